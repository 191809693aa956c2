"""The attacks of issue 28 on ``bleu-lab grade``: real notebooks graded by the real command, with and without
bubblewrap.

Each mode grades one batch (``attacked``) of attacks and controls with one seed, and each test reads its part of that
one report; the notebooks whose marking would run for minutes make a batch of their own (``timed``) under a short time
limit, every other run a limit no notebook that finishes reaches, however loaded the machine. The sandboxed runs skip
with bubblewrap's reason where it cannot start here; with ``BLEU_LAB_REQUIRE_SANDBOX=1`` (CI) they fail instead. The
tamper of an installed module runs in a venv made for the test in a temporary folder, with a copy of sacrebleu in it:
the shared venv is never written.
"""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import subprocess
import sys
import sysconfig
import time
from collections.abc import Callable
from pathlib import Path

import nbformat
import pytest

from bleu_lab.assignments import grade as grading
from bleu_lab.assignments import integrity
from bleu_lab.assignments.release import release

REPO = Path(__file__).resolve().parent.parent
REQUIRE = os.environ.get("BLEU_LAB_REQUIRE_SANDBOX") == "1"
SEED = 28
TIMEOUT = 40  # seconds to run one notebook, and again to mark it, where the time limit is what a test looks at
# --timeout where every notebook of the batch is to finish (its point is not the time limit): wall-clock seconds that
# a solved lesson (a few CPU seconds) never reaches, even on a 2-core CI machine at load 50.
FINISH_TIMEOUT = 600
BACKSTOP = 1800  # seconds a test waits for a whole `bleu-lab grade` run, or for a condition, before it gives up
MODES = ("none", "bubblewrap")


@pytest.fixture(scope="module")
def released(tmp_path_factory) -> Path:
    outdir = tmp_path_factory.mktemp("course")
    release(outdir, REPO / "notebooks")
    return outdir


def _need(mode: str) -> None:
    """Skip (or, under BLEU_LAB_REQUIRE_SANDBOX=1, fail) a bubblewrap run where bubblewrap cannot start."""
    if mode != "bubblewrap":
        return
    box = grading.choose_sandbox("auto")
    if box.kind != "bubblewrap":
        if REQUIRE:
            pytest.fail(f"BLEU_LAB_REQUIRE_SANDBOX=1 but {box.why}")
        pytest.skip(box.why)


def _nb(released: Path, copy: str, lesson: str) -> nbformat.NotebookNode:
    return nbformat.read(released / copy / f"{lesson}.ipynb", as_version=4)


def _with_cell(nb: nbformat.NotebookNode, source: str, at: int = 1) -> nbformat.NotebookNode:
    nb = nbformat.from_dict(json.loads(json.dumps(nb)))
    nb.cells.insert(at, nbformat.v4.new_code_cell(source))
    return nb


def _write(path: Path, nb: nbformat.NotebookNode) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


def _grade(paths: list[Path], mode: str, cwd: Path, python: Path | None = None, *options: str,
           timeout: float = FINISH_TIMEOUT) -> subprocess.CompletedProcess:
    """``bleu-lab grade --timeout timeout`` as an instructor runs it (or this venv's entry point under another
    ``python``)."""
    args = ["grade", *map(str, paths), "--seed", str(SEED), "--timeout", str(timeout), "--sandbox", mode, *options]
    if python is None:
        command = [str(Path(sys.executable).parent / "bleu-lab"), *args]
    else:
        command = [str(python), "-I", "-c", "import sys; from bleu_lab.cli import main; sys.exit(main(sys.argv[1:]))",
                   *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=BACKSTOP, cwd=cwd)


def _wait_for(condition: Callable[[], object], what: str, seconds: float = BACKSTOP) -> object:
    """What ``condition`` returns once it is true, polled (a test waits for its condition, never for a fixed pause);
    the test fails naming ``what`` after ``seconds``, a backstop far beyond what a loaded machine needs."""
    deadline = time.monotonic() + seconds
    while not (found := condition()):
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: still not the case after {seconds:g} s")
        time.sleep(0.05)
    return found


def _children_cpu() -> float:
    """CPU seconds (user and system) of this process's finished children and all they waited for: unlike the wall
    clock, what a run costs does not grow with the machine's load."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _reports(stdout: str) -> list[str]:
    return re.split(r"^(?===)", stdout, flags=re.MULTILINE)


def _report(batch: dict, name: str) -> str:
    return next(r for r in _reports(batch["done"].stdout)[1:] if f"/{name}/" in r.splitlines()[0])


def _score(batch: dict, name: str) -> str:
    return re.findall(r"^score: .*$", _report(batch, name), re.MULTILINE)[0]


# ------------------------------------------------------------------------------------------------ the attacks

# Forks, leaves the kernel's session, and waits for the next kernel: finds its connection file in /proc/PID/cmdline,
# connects and installs an input transformer that breaks every cell (issue 28: a solved lesson 3 dropped to 1/5).
LEFTOVER = """\
import os, sys, time
EVIDENCE = {evidence!r}

def parent(pid):
    stat = open(f"/proc/{{pid}}/stat", "rb").read()
    return int(stat[stat.rfind(b")") + 2:].split()[1])

def ancestors(pid):
    while pid > 1:
        try:
            pid = parent(pid)
        except (OSError, ValueError):
            return
        yield pid

def is_grader(pid):
    try:
        argv = open(f"/proc/{{pid}}/cmdline", "rb").read().split(b"\\0")
    except OSError:
        return False
    return b"grade" in argv and any(b"bleu-lab" in a or b"bleu_lab" in a for a in argv)

# only kernels of this grader are attacked (never another process on the machine), whichever worker started them:
# the grader is the topmost ancestor whose command is bleu-lab's grade (its workers have the same command)
GRADER = ([pid for pid in ancestors(os.getpid()) if is_grader(pid)] or [os.getppid()])[-1]
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        try:
            open(EVIDENCE + ".pid", "w").write(str(os.getpid()))
        except OSError:
            pass
        own = set()
        for pid in os.listdir("/proc"):
            own.add(pid)
        end = time.time() + 900  # (on a loaded machine the next kernel may start minutes later)
        while time.time() < end:
            for pid in os.listdir("/proc"):
                if not pid.isdigit() or pid in own:
                    continue
                try:
                    stat = open(f"/proc/{{pid}}/stat", "rb").read()
                    argv = open(f"/proc/{{pid}}/cmdline", "rb").read().split(b"\\0")
                except OSError:
                    continue
                if GRADER not in ancestors(int(pid)):
                    continue
                if b"-f" in argv and b"launch_new_instance" in b" ".join(argv):
                    connection = argv[argv.index(b"-f") + 1].decode()
                    try:
                        from jupyter_client import BlockingKernelClient
                        client = BlockingKernelClient(connection_file=connection)
                        client.load_connection_file()
                        client.start_channels()
                        client.execute("get_ipython().input_transformers_post.append("
                                       "lambda lines: ['1/0' + chr(10)] if lines else lines)")
                        client.get_shell_msg(timeout=60)
                        open(EVIDENCE, "w").write("connected to " + connection)
                    except Exception as exc:
                        open(EVIDENCE + ".failed", "w").write(repr(exc))
                    os._exit(0)
                own.add(pid)
            time.sleep(0.1)
        os._exit(0)
    os._exit(0)
"""

WRITE_CLASSMATE = """\
for target in ({target!r},):
    try:
        open(target, "w").write("{{}}")
    except OSError as exc:
        print("refused:", exc)
"""

EXEC_SOLUTIONS = """\
import glob
from bleu_lab.course import course_root
for source in sorted(glob.glob(str(course_root() / "notebooks" / "solutions" / "*.py"))):
    try:  # a solution's own check may raise: in the grader's second run bleu_lab's answers are stand-ins
        exec(open(source).read())
    except Exception:
        pass
"""

HUGE_DTYPE = """\
class Huge:
    shape, size, dtype = (1,), 1, "(40000000,)f8"

    def tolist(self):
        return [0.5]

p1, p4, bp = Huge(), Huge(), Huge()
"""


@pytest.fixture(scope="module", params=MODES)
def attacked(request, released, tmp_path_factory):
    """One batch per mode: each attack of issue 28 (and controls), graded by `bleu-lab grade --sandbox MODE`."""
    mode = request.param
    _need(mode)
    inbox = tmp_path_factory.mktemp(f"inbox-{mode}")
    evidence = tmp_path_factory.mktemp(f"evidence-{mode}") / "leftover"
    solved3, student3 = _nb(released, "solved", "03_brevity_penalty"), _nb(released, "student", "03_brevity_penalty")
    solved0, student0 = _nb(released, "solved", "00_start_here"), _nb(released, "student", "00_start_here")
    paths = {}
    paths["leftover"] = _write(inbox / "leftover" / "00_start_here.ipynb",
                               _with_cell(student0, LEFTOVER.format(evidence=str(evidence))))
    paths["victim"] = _write(inbox / "victim" / "03_brevity_penalty.ipynb", solved3)
    classmate = inbox / "classmate" / "00_start_here.ipynb"
    paths["writer"] = _write(inbox / "writer" / "00_start_here.ipynb",
                             _with_cell(student0, WRITE_CLASSMATE.format(target=str(classmate))))
    paths["classmate"] = _write(classmate, solved0)
    (inbox / "link").mkdir()
    (inbox / "link" / "03_brevity_penalty.ipynb").symlink_to(released / "solved" / "03_brevity_penalty.ipynb")
    paths["link"] = inbox / "link" / "03_brevity_penalty.ipynb"
    (inbox / "dangling").mkdir()
    (inbox / "dangling" / "03_brevity_penalty.ipynb").symlink_to(inbox / "nowhere.ipynb")
    paths["dangling"] = inbox / "dangling" / "03_brevity_penalty.ipynb"
    (inbox / "fifo").mkdir()
    os.mkfifo(inbox / "fifo" / "03_brevity_penalty.ipynb")
    paths["fifo"] = inbox / "fifo" / "03_brevity_penalty.ipynb"
    paths["solutions"] = _write(inbox / "solutions" / "03_brevity_penalty.ipynb",
                                _with_cell(student3, EXEC_SOLUTIONS, at=len(student3.cells)))
    paths["dtype"] = _write(inbox / "dtype" / "00_start_here.ipynb",
                            _with_cell(solved0, HUGE_DTYPE, at=len(solved0.cells)))
    paths["last"] = _write(inbox / "last" / "00_start_here.ipynb", solved0)
    before = {p: p.read_bytes() for p in inbox.rglob("*") if p.is_file() and not p.is_symlink()
              and p.stat().st_mode & 0o170000 == 0o100000}
    done = _grade(list(paths.values()), mode, inbox)
    return {"done": done, "mode": mode, "inbox": inbox, "before": before, "evidence": evidence, "paths": paths}


@pytest.fixture(scope="module", params=MODES)
def timed(request, released, tmp_path_factory):
    """One batch per mode under ``--timeout TIMEOUT``: two notebooks whose marking once took 146 s and forever, then
    a solved lesson 0; and the CPU seconds the grader and all it started used."""
    mode = request.param
    _need(mode)
    inbox = tmp_path_factory.mktemp(f"timed-{mode}")
    solved3, solved0 = _nb(released, "solved", "03_brevity_penalty"), _nb(released, "solved", "00_start_here")
    paths = {"exponent": _write(inbox / "exponent" / "00_start_here.ipynb",
                                _with_cell(solved0, 'p1 = "1e999999999"', at=len(solved0.cells))),
             "essay": _write(inbox / "essay" / "03_brevity_penalty.ipynb",  # 200,000 characters
                             _with_cell(solved3, 'answer = "the brevity penalty " * 10_000', at=len(solved3.cells))),
             "after": _write(inbox / "after" / "00_start_here.ipynb", solved0)}
    before = _children_cpu()
    done = _grade(list(paths.values()), mode, inbox, timeout=TIMEOUT)
    return {"done": done, "mode": mode, "paths": paths, "cpu": _children_cpu() - before}


def test_the_batch_is_graded_and_says_how_it_was_boxed(attacked):
    done = attacked["done"]
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    header = _reports(done.stdout)[0].splitlines()
    assert header[0].startswith(f"seed: {SEED}")
    assert header[1].startswith(f"sandbox: {attacked['mode']}")
    assert len(re.findall(r"^score: ", done.stdout, re.MULTILINE)) == len(attacked["paths"])
    assert _score(attacked, "last") == "score: 2 / 2"


def test_a_process_left_behind_is_ended_before_the_next_kernel_starts(attacked):
    """The forked, setsid'd process never reaches the next kernel; the solved lesson 3 after it keeps 5 / 5."""
    evidence = attacked["evidence"]
    assert not evidence.exists(), evidence.read_text()
    assert _score(attacked, "victim") == "score: 5 / 5  (+ 1 to grade by hand)", _report(attacked, "victim")
    pid_file = Path(str(evidence) + ".pid")
    # It ran (as this user) and was killed; under bubblewrap it wrote nowhere we see; in a PID namespace, its own PID
    if attacked["mode"] == "none" and "its own PID namespace" not in attacked["done"].stdout.splitlines()[1]:
        pid = int(pid_file.read_text())
        assert not Path(f"/proc/{pid}").exists() or "zombie" in Path(f"/proc/{pid}/status").read_text()


def test_a_classmates_file_written_by_absolute_path_is_restored_and_the_writer_named(attacked):
    after = {p: p.read_bytes() for p in attacked["before"]}
    assert after == attacked["before"]
    assert _score(attacked, "classmate") == "score: 2 / 2"
    if attacked["mode"] == "none":  # written, then restored and reported
        classmate = str(attacked["paths"]["classmate"])
        assert f"changed submitted files (restored): {classmate}" in _report(attacked, "writer")
        assert "writer" in attacked["done"].stderr and classmate in attacked["done"].stderr
    else:  # not even visible in the box
        assert "changed submitted files" not in attacked["done"].stdout


@pytest.mark.parametrize("name, why", [("link", "a link"), ("dangling", "a link"), ("fifo", "not a regular file")])
def test_links_and_special_files_are_refused_one_by_one(attacked, name, why):
    report = _report(attacked, name)
    assert f"note: not graded: {why}" in report and report.rstrip().endswith("score: not graded")


def test_the_installed_solutions_are_out_of_reach_in_the_sandbox(attacked):
    score = _score(attacked, "solutions")
    if attacked["mode"] == "bubblewrap":
        assert score == "score: 0 / 5  (+ 1 to grade by hand)"
    else:  # the known limit, documented in the guide: without the sandbox a notebook reads what this user can
        assert score == "score: 5 / 5  (+ 1 to grade by hand)"


def test_marking_has_a_time_limit_and_the_batch_goes_on(timed):
    """Lesson 0 with p1 = "1e999999999" (Fraction would compute 10**999999999), and a 200,000-character written
    answer: each costs at most the limit (or is refused at once), and the notebook after them is graded."""
    done = timed["done"]
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    report = _report(timed, "exponent")
    assert re.search(r"reading the explanation\s+0 / 1", report)
    if "marking exceeded" in report:
        assert f"note: not graded: marking exceeded {TIMEOUT} s" in report
    essay = _report(timed, "essay")
    assert "score: " in essay
    if "marking exceeded" in essay:
        assert f"not graded: marking exceeded {TIMEOUT} s" in essay
    assert _score(timed, "after") != "score: not graded", _report(timed, "after")
    # Three notebooks, two of them at most TIMEOUT of marking each: far from the 146 s and the endless hang. Counted
    # in CPU seconds (of the grader, its kernels and its marking): a loaded machine stretches the wall clock only.
    assert timed["cpu"] < 3 * 30 + 4 * TIMEOUT, f"the batch used {timed['cpu']:.0f} CPU seconds"


def test_an_answer_claiming_a_huge_dtype_allocates_nothing(attacked):
    report = _report(attacked, "dtype")
    assert re.search(r"reading the explanation\s+0 / 1", report)
    assert "marking exceeded" not in report and "MemoryError" not in report


# The kernel's reply is the student's to write: here 3,000,000 numbers (12 MB of JSON, within the reply's bound) for
# p1, which marking would decode into some 120 MB of Python objects.
HUGE_REPLY = """\
import json
_dumps = json.dumps

def dumps(obj, *args, **kwargs):
    if isinstance(obj, dict) and "p1" in obj:
        return '{"p1": {"ok": [' + ",".join(["1.5"] * 3_000_000) + ']}}'
    return _dumps(obj, *args, **kwargs)

json.dumps = dumps
"""


@pytest.mark.parametrize("mode", MODES)
def test_marking_has_a_memory_limit_and_the_batch_goes_on(mode, released, tmp_path):
    _need(mode)
    solved = _nb(released, "solved", "00_start_here")
    paths = [_write(tmp_path / "greedy" / "00_start_here.ipynb", _with_cell(solved, HUGE_REPLY, at=len(solved.cells))),
             _write(tmp_path / "after" / "00_start_here.ipynb", solved)]
    done = _grade(paths, mode, tmp_path, None, "--memory", "64")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    reports = _reports(done.stdout)
    assert "note: not graded: marking exceeded 64 MB" in reports[1] and reports[1].rstrip().endswith("score: 0 / 2")
    assert reports[2].rstrip().endswith("score: 2 / 2")  # marking a solved lesson 0 fits in 64 MB


# ------------------------------------------------------------------------------------------------ a tampered module


TAMPER = """\
import importlib.util
spec = importlib.util.find_spec("sacrebleu.tokenizers.tokenizer_intl")
try:
    with open(spec.origin, "a") as f:
        f.write({payload!r})
    print("appended to", spec.origin)
except OSError as exc:
    print("refused:", exc)
"""
# What the appended code would do in the grader: mark everything right and switch the tamper check off.
PAYLOAD = """
import sys as _sys
if "nbclient" in _sys.modules:
    open({evidence!r}, "a").write("ran in the grader\\n")
    _g = _sys.modules.get("bleu_lab.assignments.grade")
    if _g is not None:
        _g.Snapshot.changes = lambda self, other: []
        _g.grade_namespace = lambda grading, *a, **k: [
            _g.ExerciseResult(e.name, points=e.points, possible=e.points) for e in grading.exercises]
"""


@pytest.fixture(scope="module")
def test_venv(tmp_path_factory) -> tuple[Path, Path]:
    """A venv in a temporary folder that sees this venv's packages, with a copy of sacrebleu of its own (first)."""
    root = tmp_path_factory.mktemp("venv")
    venv = root / "venv"
    subprocess.run([getattr(sys, "_base_executable", sys.executable), "-m", "venv", "--without-pip", str(venv)],
                   check=True, timeout=120)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    import sacrebleu

    shutil.copytree(Path(sacrebleu.__file__).parent, site / "sacrebleu",
                    ignore=shutil.ignore_patterns("__pycache__"))
    ours = sysconfig.get_paths()["purelib"]
    (site / "zz_bleu_lab_test.pth").write_text(f"import site; site.addsitedir({ours!r})\n", encoding="utf-8")
    copied = site / "sacrebleu" / "tokenizers" / "tokenizer_intl.py"
    assert copied.is_file()
    return python, copied


@pytest.mark.parametrize("mode", MODES)
def test_a_tampered_module_never_runs_in_the_grader(mode, released, test_venv, tmp_path):
    """A lesson-7 submission appends code to sacrebleu's tokenizer_intl.py. Without the sandbox the write happens:
    the grader never imports the file after it (everything is imported first, the files are checked before marking),
    stops and names it. In the sandbox the file cannot be written at all."""
    _need(mode)
    python, target = test_venv
    original = target.read_bytes()
    evidence = tmp_path / "payload-ran"
    attack = _with_cell(_nb(released, "student", "07_tokenization_and_reporting"),
                        TAMPER.format(payload=PAYLOAD.format(evidence=str(evidence))))
    paths = [_write(tmp_path / "eve" / "07_tokenization_and_reporting.ipynb", attack),
             _write(tmp_path / "frank" / "00_start_here.ipynb", _nb(released, "solved", "00_start_here"))]
    try:
        done = _grade(paths, mode, tmp_path, python=python)
        assert not evidence.exists(), evidence.read_text()
        if mode == "none":
            assert done.returncode == 3, done.stdout[-2000:] + done.stderr[-2000:]
            assert "files changed while" in done.stderr and "tokenizer_intl.py" in done.stderr
            assert "score:" not in done.stdout
        else:
            assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
            assert target.read_bytes() == original
            assert re.findall(r"^score: .*$", done.stdout, re.MULTILINE)[-1] == "score: 2 / 2"
    finally:
        target.write_bytes(original)


def test_a_module_imported_during_a_batch_is_checked_first(tmp_path, monkeypatch):
    """After the snapshot, a changed module is refused, and a new .pyc (say, forged for a module never compiled, with
    its source's size and time) is never read: the module is compiled from its checked source."""
    import importlib.util
    import py_compile

    for name in ("forged_pyc", "changed_source"):
        (tmp_path / f"{name}.py").write_text("VALUE = 'source'\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(integrity, "protected_roots", lambda: [tmp_path])
    guard = grading.ImportGuard(grading.Snapshot.take())
    monkeypatch.setattr(sys, "meta_path", [guard, *sys.meta_path])
    source, forged = tmp_path / "forged_pyc.py", tmp_path / "elsewhere" / "forged_pyc.py"
    forged.parent.mkdir()
    forged.write_text("VALUE = 'forged'\n", encoding="utf-8")
    os.utime(forged, ns=(source.stat().st_atime_ns, source.stat().st_mtime_ns))
    py_compile.compile(str(forged), cfile=importlib.util.cache_from_source(str(source)))
    with open(tmp_path / "changed_source.py", "a", encoding="utf-8") as f:
        f.write("VALUE = 'tampered'\n")
    try:
        assert importlib.import_module("forged_pyc").VALUE == "source"
        with pytest.raises(grading.TamperingError, match="changed_source.py"):
            importlib.import_module("changed_source")
    finally:
        for name in ("forged_pyc", "changed_source"):
            sys.modules.pop(name, None)
