#!/usr/bin/env bash
# The base install (`pip install bleu_lab`, no extra) scores without Jupyter or matplotlib. In a fresh venv,
# `pip install` of a clean copy of the repository (the versions requirements.txt pins; pip's cache makes it quick),
# then from an empty folder, on the shipped data (data/news): `bleu-lab --version`, `bleu-lab HYP REF`, `bleu-lab
# compare` with --scores, --html and --json (the page with its tables and, in place of the figures, one line naming
# the command that adds matplotlib), `bleu-lab why`, and from Python corpus_score, sentence_score, chrF, TER and the
# paired tests with every base module imported; no Jupyter package nor matplotlib installed or imported; `bleu-lab
# lab` refuses with the command that adds the lessons' packages; and the venv's size within its bound (README, "How
# big, how long"; benchmarks/bench_install.py).
# Usage: .ci/base_install_check.sh [PYTHON]   (default python3)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
python="${1:-python3}"
# measured 121 MB on Python 3.11 (December 2026): numpy 71 MB, pip and setuptools 22 MB, sacrebleu with lxml and regex
# 18 MB, bleu_lab with the course's files 7 MB. With matplotlib (now the plots extra) the base measured 225 MB.
max_mb=130
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo "== the base install in a fresh venv: pip install of a clean copy of the repository, no extra"
mkdir "$work/src"  # a copy, so that the build's build/ and *.egg-info stay out of the repository
tar -C "$repo" --exclude='./.venv*' --exclude=./.git --exclude=./build --exclude='*.egg-info' --exclude=./dist \
    --exclude=./bleu-lab-course --exclude=__pycache__ -cf - . | tar -C "$work/src" -xf -
grep -v '^\./' "$repo/requirements.txt" > "$work/constraints.txt"  # the pins, without the clone's local folders
"$python" -m venv "$work/venv"
start=$SECONDS
"$work/venv/bin/pip" install -q -c "$work/constraints.txt" "$work/src"
echo "installed in $((SECONDS - start)) s"
bin="$work/venv/bin"
data="$repo/data/news"
mkdir "$work/empty"
cd "$work/empty"

echo "== no Jupyter package installed, nor matplotlib (the plots extra)"
"$bin/python" - <<'EOF'
import re
from importlib.metadata import distributions

jupyter = re.compile(r"jupyter.*|ipython|ipykernel|ipywidgets|nbformat|nbclient|nbconvert|notebook|voila|traitlets|"
                     r"tornado|pyzmq|comm|widgetsnbextension|matplotlib-inline|nltk|matplotlib|pillow|fonttools")
names = sorted({re.sub(r"[-_.]+", "-", d.metadata["Name"]).lower() for d in distributions()})
found = [name for name in names if jupyter.fullmatch(name)]
assert not found, f"the base install brought {found}"
print(f"{len(names)} distributions, none of Jupyter's: {' '.join(names)}")
EOF

echo "== bleu-lab --version: names what is installed (no nltk in the base)"
"$bin/bleu-lab" --version | tee version.txt
grep -q '^bleu-lab [0-9.]* (sacrebleu [0-9.]*, Python [0-9.]*)$' version.txt

echo "== bleu-lab HYP REF"
"$bin/bleu-lab" "$data/sys.strong.de" "$data/ref.A.de" | tee score.txt
grep -q '^BLEU = [0-9.]* ' score.txt

echo "== bleu-lab compare --scores ... --html ... --json ..."
for system in strong fluent; do  # a metric brought from elsewhere: here each output line's length in characters
    awk '{print length($0)}' "$data/sys.$system.de" > "$system.len"
done
"$bin/bleu-lab" compare --refs "$data/ref.A.de" --systems "$data/sys.strong.de" "$data/sys.fluent.de" \
    --names strong fluent --scores LEN=strong.len,fluent.len --higher-is-better LEN --ter --samples 200 --trials 200 \
    --html report.html --json report.json > compare.txt
grep -q "LEN" report.html && grep -q "<table" report.html && ! grep -q "<svg" report.html
note="$(grep -o "<p class='compare-figures-missing'[^>]*>[^<]*</p>" report.html | sed 's/<[^>]*>//g')"
echo "in place of the figures: $note"
grep -q '^The figures need matplotlib, .* -m pip install &quot;bleu_lab-[^&]*\.whl\[plots\]&quot;' <<< "$note"
"$bin/python" -c "import json, sys; json.load(open(sys.argv[1]))" report.json
echo "compare: $(wc -l < compare.txt) lines printed, report.html $(wc -c < report.html) bytes, no figure"

echo "== bleu-lab why"
"$bin/bleu-lab" why "$data/sys.strong.de" "$data/ref.A.de" "$data/ref.B.de" --reported 55.6 > why.txt
head -n 3 why.txt
grep -q "55.6 is reproduced by" why.txt

echo "== from Python: every base module, the scores, chrF, TER, the paired tests"
"$bin/python" - "$repo" <<'EOF'
import importlib
import pkgutil
import sys

import bleu_lab as bl

corpus = bl.load_corpus("news")
hyps, base, refs = corpus.systems["strong"], corpus.systems["fluent"], corpus.references
print(bl.corpus_score(hyps, refs))
print(bl.sentence_score(hyps[0], refs[0]))
print(bl.corpus_chrf(hyps, refs))
from bleu_lab.metrics.ter import corpus_ter

print(corpus_ter(hyps, refs))
print(bl.paired_randomization(base, hyps, refs, n_trials=200))
print(bl.paired_bootstrap(base, hyps, refs, n_samples=200))
sys.path.insert(0, f"{sys.argv[1]}/tests")  # the declared list of base modules (tests/layers.py)
base_modules = [m.name for m in pkgutil.walk_packages(bl.__path__, "bleu_lab.")]
from layers import BASE, JUPYTER, PLOTS_IMPORTS, in_layer

for name in base_modules:
    if in_layer(name, BASE) and name != "bleu_lab.__main__":
        importlib.import_module(name)
loaded = sorted({m.split(".")[0] for m in sys.modules} & {*JUPYTER, *PLOTS_IMPORTS})
assert not loaded, f"a base module imported {loaded}"
print(f"imported {sum(in_layer(n, BASE) for n in base_modules)} base modules; no Jupyter package loaded")
EOF

echo "== bleu-lab lab: refused, with the command that adds the lessons' packages"
if "$bin/bleu-lab" lab 2> lab.txt; then
    echo "bleu-lab lab ran on the base install" >&2; exit 1
fi
cat lab.txt
[ "$(wc -l < lab.txt)" = 1 ] && grep -q 'pip install "bleu_lab-[^"]*\.whl\[lessons\]"' lab.txt && ! grep -q Traceback lab.txt

echo "== the venv's size"
"$bin/python" - "$work/venv" "$max_mb" <<'EOF'
import sys
from pathlib import Path

venv, max_mb = Path(sys.argv[1]), int(sys.argv[2])
size = sum(f.lstat().st_size for f in venv.rglob("*") if f.is_file() and not f.is_symlink()) / 1e6
print(f"base install: {size:.0f} MB (bound {max_mb} MB)")
assert size <= max_mb, f"the base install's venv is {size:.0f} MB, over its bound of {max_mb} MB"
EOF
echo "base install check passed on $("$bin/python" --version)"
