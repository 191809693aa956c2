#!/usr/bin/env bash
# A wheel alone gives the whole course. Builds the sdist, and the wheel from it, installs the wheel with its "lessons"
# extra (the README's one command for a student; the versions requirements.txt pins) in a clean venv outside the
# repository, and from an empty folder: imports bleu_lab, loads the shipped data, copies the lessons with `bleu-lab
# lessons` (twice: the second run keeps a changed lesson; then a graded copy, --no-solutions), finds the guide with
# `bleu-lab guide`, runs one lesson top to bottom from the copy, releases the assignments and grades a solved lesson
# (full marks); then builds a Gradescope autograder carrying the wheel, and runs its setup.sh and run_autograder in a
# temporary /autograder.
# Usage: .ci/wheel_check.sh [PYTHON]   (default python3)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
python="${1:-python3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo "== build: sdist, then the wheel from the sdist"
"$python" -m venv "$work/build-venv"
"$work/build-venv/bin/pip" install -q build==1.6.1
"$work/build-venv/bin/python" -m build --outdir "$work/dist" "$repo" > "$work/build.log" 2>&1 || { cat "$work/build.log" >&2; exit 1; }
wheel="$(ls "$work"/dist/*.whl)"
sdist="$(ls "$work"/dist/*.tar.gz)"
echo "built $(basename "$sdist") and $(basename "$wheel")"
tar tzf "$sdist" > "$work/sdist.txt"
for item in notebooks/00_start_here.ipynb notebooks/solutions/ data/news/ref.A.de data/wmt21/README.md \
            docs/reading_list.md jupyter-settings/voila-template/index.html.j2 voila.json requirements.txt tests/; do
    grep -q "^[^/]*/$item" "$work/sdist.txt" || { echo "the sdist lacks $item" >&2; exit 1; }
done

echo "== install the wheel with its lessons extra in a clean venv"
grep -v '^\./' "$repo/requirements.txt" > "$work/constraints.txt"  # the pins, without the clone's local folders
"$python" -m venv --clear "$work/venv"
"$work/venv/bin/pip" install -q -c "$work/constraints.txt" "$wheel[lessons]"  # the README's one command for a student
bin="$work/venv/bin"
mkdir "$work/empty"
cd "$work/empty"

echo "== import and data, from an empty folder"
"$bin/python" - "$repo" <<'EOF'
import sys
from pathlib import Path

import bleu_lab
from bleu_lab.assignments import default_notebooks_dir
from bleu_lab.course import course_root

repo = Path(sys.argv[1]).resolve()
for path in (Path(bleu_lab.__file__), course_root(), default_notebooks_dir()):
    assert repo not in path.resolve().parents, f"{path} is in the repository, not in the installed wheel"
corpus = bleu_lab.load_corpus("news")
assert len(corpus) == 160 and len(corpus.systems) == 5, corpus
from bleu_lab.metrics.published_scores import load_system_scores
assert load_system_scores(), "no published scores"
assert len(list(default_notebooks_dir().glob("*.ipynb"))) >= 12
share = Path(sys.prefix) / "share" / "jupyter"
for hub_file in ("jupyterhub_config.py", "singleuser/jupyter_server_config.py", "z2jh/config.yaml", "z2jh/Dockerfile"):
    assert (course_root() / "jupyter-settings" / hub_file).is_file(), f"the wheel lacks jupyter-settings/{hub_file}"
for data_file in ("lab/settings/overrides.d/bleu_lab.json", "voila/templates/bleu_lab/index.html.j2"):
    assert (share / data_file).is_file(), f"the wheel did not install {share / data_file}"
print(f"bleu_lab {bleu_lab.__version__} from {Path(bleu_lab.__file__).parent}: {corpus}")
EOF

echo "== bleu-lab lessons"
"$bin/bleu-lab" lessons
test -f bleu-lab-course/notebooks/08_corpus_bleu.ipynb && test -f bleu-lab-course/docs/reading_list.md
test -f bleu-lab-course/notebooks/solutions/08_corpus_bleu.py && test -f bleu-lab-course/data/news/ref.A.de
test -f bleu-lab-course/bleu_lab/clipping.py && test ! -e bleu-lab-course/bleu_lab/course_files
echo "# my notes" >> bleu-lab-course/notebooks/solutions/08_corpus_bleu.py
rm bleu-lab-course/notebooks/03_brevity_penalty.ipynb
"$bin/bleu-lab" lessons | tee "$work/again.txt"
grep -q "added notebooks/03_brevity_penalty.ipynb" "$work/again.txt"
tail -n 1 bleu-lab-course/notebooks/solutions/08_corpus_bleu.py | grep -q "# my notes"

echo "== bleu-lab guide: the guide, the hub settings and the course, where the wheel installed them"
"$bin/bleu-lab" guide | tee "$work/guide.txt"
guide="$(awk '$1 == "instructor'"'"'s" {print $3}' "$work/guide.txt")"
case "$guide" in */site-packages/bleu_lab/course_files/docs/instructor.md) ;; *) echo "guide at '$guide'" >&2; exit 1;; esac
test -f "$guide" && test -f "$(dirname "$guide")/../jupyter-settings/jupyterhub_config.py"
! grep -q "not here" "$work/guide.txt"

echo "== bleu-lab lessons --no-solutions: graded work (the solution changed above is kept, the others go)"
"$bin/bleu-lab" lessons --no-solutions | tee "$work/graded.txt"
grep -q "removed the worked solutions" "$work/graded.txt" && grep -q "kept notebooks/solutions/08_corpus_bleu.py" "$work/graded.txt"
test "$(ls bleu-lab-course/notebooks/solutions)" = "08_corpus_bleu.py"
! grep -q "%load" bleu-lab-course/notebooks/03_brevity_penalty.ipynb
"$bin/bleu-lab" lessons > /dev/null  # back to the ungraded copy, which the rest of this check uses

echo "== one lesson top to bottom, from the copy"
"$bin/python" - <<'EOF'
from pathlib import Path

import nbformat
from nbclient import NotebookClient

path = Path("bleu-lab-course/notebooks/08_corpus_bleu.ipynb")
nb = nbformat.read(path, as_version=4)
NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
errors = [o for c in nb.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
assert not errors, errors
print(f"{path}: {len(nb.cells)} cells ran without an error")
EOF

echo "== bleu-lab release and grade (the solved copy gets full marks)"
"$bin/bleu-lab" release released > /dev/null
test -f released/student/03_brevity_penalty.ipynb
"$bin/bleu-lab" grade released/solved/03_brevity_penalty.ipynb | tee "$work/grade.txt"
score="$(grep -o 'score: [0-9]* / [0-9]*' "$work/grade.txt")"
read -r _ got _ possible <<< "$score"
[ "$got" = "$possible" ] && [ "$possible" -gt 0 ] || { echo "the solved lesson got $score" >&2; exit 1; }
echo "== bleu-lab gradescope: the autograder zip, set up and run in a folder laid out like Gradescope's /autograder"
"$bin/bleu-lab" gradescope 03_brevity_penalty -o "$work/autograder.zip" --wheel "$wheel" --timeout 120
ag="$work/autograder"
mkdir -p "$ag/source" "$ag/submission"
"$bin/python" -c "import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])" "$work/autograder.zip" \
    "$ag/source"
cp "$ag/source/run_autograder" "$ag/run_autograder"
# setup.sh finds a Python >= 3.11, makes $ag/bleu-lab-venv and installs the wheel with its dependencies from PyPI
(cd "$ag" && AUTOGRADER_ROOT="$ag" bash source/setup.sh > "$work/setup.log" 2>&1) \
    || { tail -n 40 "$work/setup.log" >&2; exit 1; }
cp released/solved/03_brevity_penalty.ipynb "$ag/submission/"
(cd "$ag" && AUTOGRADER_ROOT="$ag" bash run_autograder > "$work/run.log" 2>&1) || { tail -n 40 "$work/run.log" >&2; exit 1; }
"$bin/python" - "$ag/results/results.json" <<'EOF'
import json
import sys

results = json.load(open(sys.argv[1], encoding="utf-8"))
possible = sum(test["max_score"] for test in results["tests"])
assert results["score"] == possible == 5, results
print(f"Gradescope autograder: {results['score']} / {possible} for the solved lesson")
EOF

echo "wheel check passed: $(basename "$wheel") on $("$bin/python" --version)"
