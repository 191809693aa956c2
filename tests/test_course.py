"""The course as a package: where its files are found, `bleu-lab lessons` (a working copy that never overwrites a
student's change) and `bleu-lab lab`'s command; the packaging itself is checked end to end by .ci/wheel_check.sh."""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from bleu_lab import course
from bleu_lab.assignments import default_notebooks_dir
from bleu_lab.cli import main
from bleu_lab.data import corpus_dir

REPO = Path(__file__).resolve().parent.parent
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def test_a_clone_finds_the_course_at_its_top_level():
    assert course.course_root() == REPO
    assert corpus_dir() == REPO / "data"
    assert default_notebooks_dir() == REPO / "notebooks"


def test_the_working_copy_holds_the_lessons_solutions_data_and_reading_list():
    files = course.course_files()
    assert "notebooks/00_start_here.ipynb" in files and "notebooks/playground.ipynb" in files
    assert "notebooks/solutions/01_clip.py" in files
    assert "data/news/ref.A.de" in files and "data/wmt21/README.md" in files
    lesson_12_data = ("mqm_newstest2021_ende.avg_seg_scores.tsv", "LICENSE-mqm.txt",
                      "newstest2021_en-de_segment_metrics.tsv")
    for name in lesson_12_data:
        assert f"data/wmt21/{name}" in files  # lesson 12's data, with the MQM file's licence
    assert "docs/reading_list.md" in files
    assert not [f for f in files if "__pycache__" in f or ".ipynb_checkpoints" in f]


def test_setup_py_packages_what_the_working_copy_needs():
    """The wheel's copy of the course (setup.py) has every file a working copy is made of, and voila.json."""
    packaged = {"/".join(p.parts) for p in _setup_module().course_files(REPO)}
    assert set(course.course_files()) <= packaged
    assert {"voila.json", "jupyter-settings/voila-template/index.html.j2",
            "jupyter-settings/overrides.d/bleu_lab.json", "jupyter-settings/jupyterhub_config.py",
            "jupyter-settings/singleuser/jupyter_server_config.py", "jupyter-settings/z2jh/config.yaml",
            "jupyter-settings/z2jh/Dockerfile"} <= packaged


def _setup_module():
    import importlib.util

    spec = importlib.util.spec_from_file_location("bleu_lab_setup", REPO / "setup.py")
    module = importlib.util.module_from_spec(spec)
    # a venv of Python 3.12+ has no setuptools (pip builds with its own); CI runs this test on 3.11
    setuptools = pytest.importorskip("setuptools", reason="reading setup.py needs setuptools, which this venv lacks")

    real_setup, setuptools.setup = setuptools.setup, lambda **kwargs: None  # define the globs, build nothing
    try:
        spec.loader.exec_module(module)
    finally:
        setuptools.setup = real_setup
    return module


def test_every_relative_link_of_a_lesson_works_from_a_working_copy(tmp_path):
    course.copy_course(tmp_path / "course")
    broken = []
    for lesson in sorted((tmp_path / "course" / "notebooks").glob("*.ipynb")):
        for cell in nbformat.read(lesson, as_version=4).cells:
            if cell.cell_type != "markdown":
                continue
            for target in LINK.findall(cell.source):
                if re.match(r"^[a-z]+:", target):
                    continue  # https:, mailto:
                if not (lesson.parent / target).exists():
                    broken.append(f"{lesson.name}: {target}")
    assert not broken, broken


def _fake_course(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_copy_adds_everything_then_nothing(tmp_path):
    target = tmp_path / "bleu-lab-course"
    first = course.copy_course(target)
    assert set(first.added) == set(course.course_files()) | set(course.package_sources())
    assert (target / "bleu_lab" / "clipping.py").is_file()  # lesson 0: "open bleu_lab/clipping.py and read it"
    assert not [name for name in first.added if "course_files" in name or "__pycache__" in name]
    for name in first.added:
        assert (target / name).read_bytes() == (REPO / name).read_bytes()
    manifest = json.loads((target / course.MANIFEST_NAME).read_text())
    assert set(manifest["files"]) == set(first.added)
    again = course.copy_course(target)
    assert not (again.added or again.replaced or again.kept)
    assert "up to date" in str(again)


def test_an_update_replaces_untouched_files_and_keeps_the_students(tmp_path):
    v1 = _fake_course(tmp_path / "v1", {"notebooks/a.ipynb": "a1", "notebooks/b.ipynb": "b1",
                                        "notebooks/c.ipynb": "c1", "data/x.txt": "x1"})
    target = tmp_path / "work"
    course.copy_course(target, source=v1)
    (target / "notebooks/b.ipynb").write_text("b1, with my answers")  # changed, and v2 changes it too
    (target / "notebooks/c.ipynb").write_text("c1, with my notes")  # changed, v2 keeps it as it was
    (target / "data/x.txt").unlink()  # deleted: comes back
    v2 = _fake_course(tmp_path / "v2", {"notebooks/a.ipynb": "a2", "notebooks/b.ipynb": "b2",
                                        "notebooks/c.ipynb": "c1", "notebooks/d.ipynb": "d2", "data/x.txt": "x1"})
    report = course.copy_course(target, source=v2)
    assert report.replaced == ["notebooks/a.ipynb"] and (target / "notebooks/a.ipynb").read_text() == "a2"
    assert report.kept == ["notebooks/b.ipynb"]
    assert (target / "notebooks/b.ipynb").read_text() == "b1, with my answers"
    assert not (target / "notebooks/b.new.ipynb").exists()
    assert report.yours == ["notebooks/c.ipynb"] and (target / "notebooks/c.ipynb").read_text() == "c1, with my notes"
    assert sorted(report.added) == ["data/x.txt", "notebooks/d.ipynb"]
    text = str(report)
    assert "kept notebooks/b.ipynb (you changed it)" in text and "--update" in text and "b.new.ipynb" in text

    offered = course.copy_course(target, update=True, source=v2)
    assert offered.kept == ["notebooks/b.ipynb"] and offered.offered == ["notebooks/b.ipynb"]
    assert (target / "notebooks/b.new.ipynb").read_text() == "b2"
    assert (target / "notebooks/b.ipynb").read_text() == "b1, with my answers"
    assert "the new version is beside it: notebooks/b.new.ipynb" in str(offered)
    # Still the student's after the offer: a third run keeps it again, never replaces it.
    assert course.copy_course(target, source=v2).kept == ["notebooks/b.ipynb"]


def test_update_twice_never_replaces_an_edited_new_version(tmp_path, capsys):
    """Issue 28: `lessons --update` run twice kept the lesson but replaced the student's edits of NAME.new.ipynb."""
    v1 = _fake_course(tmp_path / "v1", {"notebooks/b.ipynb": "b1"})
    target = tmp_path / "work"
    course.copy_course(target, source=v1)
    (target / "notebooks/b.ipynb").write_text("b1, with my answers")
    v2 = _fake_course(tmp_path / "v2", {"notebooks/b.ipynb": "b2"})
    first = course.copy_course(target, update=True, source=v2)
    assert first.offered_as == {"notebooks/b.ipynb": "notebooks/b.new.ipynb"}
    again = course.copy_course(target, update=True, source=v2)  # the same offer, untouched: nothing new written
    assert again.offered_as == {"notebooks/b.ipynb": "notebooks/b.new.ipynb"} and not again.edited_offers
    assert sorted(p.name for p in (target / "notebooks").iterdir()) == ["b.ipynb", "b.new.ipynb"]
    (target / "notebooks/b.new.ipynb").write_text("b2, where I copied my answers")
    third = course.copy_course(target, update=True, source=v2)
    assert (target / "notebooks/b.new.ipynb").read_text() == "b2, where I copied my answers"
    assert (target / "notebooks/b.new-2.ipynb").read_text() == "b2"
    assert (target / "notebooks/b.ipynb").read_text() == "b1, with my answers"
    text = str(third)
    assert "the new version is beside it: notebooks/b.new-2.ipynb" in text
    assert "kept notebooks/b.new.ipynb (you changed this new version too)" in text
    # A newer release replaces an offer the student left untouched, and still never an edited one.
    v3 = _fake_course(tmp_path / "v3", {"notebooks/b.ipynb": "b3"})
    fourth = course.copy_course(target, update=True, source=v3)
    assert fourth.offered_as == {"notebooks/b.ipynb": "notebooks/b.new-2.ipynb"}
    assert (target / "notebooks/b.new-2.ipynb").read_text() == "b3"
    assert (target / "notebooks/b.new.ipynb").read_text() == "b2, where I copied my answers"
    # The same through the command line, on the real course: the second --update says where the next one went.
    monkeypatch_dir = tmp_path / "cli"
    monkeypatch_dir.mkdir()
    lesson = monkeypatch_dir / "c" / "notebooks" / "03_brevity_penalty.ipynb"
    assert main(["lessons", str(monkeypatch_dir / "c")]) == 0
    manifest = json.loads((monkeypatch_dir / "c" / course.MANIFEST_NAME).read_text())
    manifest["files"]["notebooks/03_brevity_penalty.ipynb"] = "0" * 64  # as if an older version had shipped
    (monkeypatch_dir / "c" / course.MANIFEST_NAME).write_text(json.dumps(manifest))
    lesson.write_text(lesson.read_text() + " ")
    assert main(["lessons", str(monkeypatch_dir / "c"), "--update"]) == 0
    offered = lesson.with_name("03_brevity_penalty.new.ipynb")
    offered.write_text(offered.read_text() + "  ")
    capsys.readouterr()
    assert main(["lessons", str(monkeypatch_dir / "c"), "--update"]) == 0
    out = capsys.readouterr().out
    assert "beside it: notebooks/03_brevity_penalty.new-2.ipynb" in out
    assert offered.read_text().endswith("  ") and lesson.with_name("03_brevity_penalty.new-2.ipynb").is_file()


def test_a_file_that_was_there_before_bleu_lab_is_kept(tmp_path):
    v1 = _fake_course(tmp_path / "v1", {"notebooks/a.ipynb": "ours"})
    target = _fake_course(tmp_path / "work", {"notebooks/a.ipynb": "the student's own file"})
    report = course.copy_course(target, source=v1)
    assert report.kept == ["notebooks/a.ipynb"]
    assert (target / "notebooks/a.ipynb").read_text() == "the student's own file"


def test_copy_refuses_the_course_itself_and_a_file(tmp_path):
    with pytest.raises(ValueError, match="course's own folder"):
        course.copy_course(REPO)
    with pytest.raises(ValueError, match="course's own folder"):
        course.copy_course(REPO / "notebooks")
    (tmp_path / "f").write_text("x")
    with pytest.raises(NotADirectoryError, match="not a folder"):
        course.copy_course(tmp_path / "f")
    with pytest.raises(TypeError, match="directory must be a path"):
        course.copy_course(3)


def test_a_damaged_manifest_counts_as_none(tmp_path):
    v1 = _fake_course(tmp_path / "v1", {"notebooks/a.ipynb": "a1"})
    target = tmp_path / "work"
    course.copy_course(target, source=v1)
    (target / course.MANIFEST_NAME).write_text("{not json")
    (target / "notebooks/a.ipynb").write_text("mine")
    assert course.copy_course(target, source=v1).kept == ["notebooks/a.ipynb"]


def test_bleu_lab_lessons_command(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["lessons"]) == 0
    out = capsys.readouterr().out
    assert "added" in out and "bleu-lab lab bleu-lab-course" in out
    assert (tmp_path / "bleu-lab-course" / "notebooks" / "00_start_here.ipynb").is_file()
    lesson = tmp_path / "bleu-lab-course" / "notebooks" / "03_brevity_penalty.ipynb"
    lesson.write_text(lesson.read_text() + " ")
    assert main(["lessons", "--update"]) == 0
    assert "yours, left as they are: notebooks/03_brevity_penalty.ipynb" in capsys.readouterr().out
    assert main(["lessons", "a", "b"]) == 2
    assert main(["lessons", str(REPO)]) == 2
    assert "course's own folder" in capsys.readouterr().err


def test_lab_command_serves_the_working_copy_and_saves_without_the_python_version(tmp_path):
    command = course.lab_command(tmp_path, course.FIRST_LESSON, ["--no-browser"])
    assert command[:3] == [sys.executable, "-m", "jupyterlab"]
    assert f"--ServerApp.root_dir={tmp_path.resolve()}" in command
    assert "--ContentsManager.pre_save_hook=bleu_lab.course.save_without_python_version" in command
    assert command[-2:] == ["--no-browser", course.FIRST_LESSON]
    # uploads in lesson 11's widget reach the kernel as one message: past Jupyter's 10 MiB it would be dropped
    from bleu_lab.course import UPLOAD_MESSAGE_BYTES

    settings = next(c for c in command if c.startswith("--ServerApp.tornado_settings="))
    assert ast.literal_eval(settings.split("=", 1)[1]) == {"websocket_max_message_size": UPLOAD_MESSAGE_BYTES}
    for version in ("3.11.7", "3.12.1", "3.13.0"):
        model = {"type": "notebook", "content": {"metadata": {"language_info": {"name": "python", "version": version,
                                                                                 "pygments_lexer": "ipython3"}}}}
        course.save_without_python_version(model=model, path="x.ipynb", contents_manager=None)
        assert model["content"]["metadata"]["language_info"] == {"name": "python", "pygments_lexer": "ipython3"}
    course.save_without_python_version(model={"type": "file", "content": "text"})  # other files: untouched


def test_the_playground_is_saved_as_lab_writes_it(tmp_path):
    """The playground (re-executed by .ci/execute_notebooks.py) has language_info without a Python version, and
    the same keys JupyterLab writes from the kernel: opening it changes nothing."""
    from ipykernel.ipkernel import IPythonKernel

    info = nbformat.read(REPO / "notebooks" / "playground.ipynb", as_version=4).metadata["language_info"]
    expected = dict(IPythonKernel.language_info)
    course.normalize_metadata({"language_info": expected})
    assert info == expected


def test_a_missing_course_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setattr(course, "__file__", str(tmp_path / "bleu_lab" / "course/__init__.py"))
    monkeypatch.setattr(course.resources, "files", lambda package: tmp_path / "nowhere")
    with pytest.raises(FileNotFoundError, match="course files are missing"):
        course.course_root()


def test_the_working_copy_is_not_linted_or_committed():
    assert "bleu-lab-course/" in (REPO / ".gitignore").read_text().splitlines()
    assert '"bleu-lab-course"' in (REPO / "pyproject.toml").read_text()


def test_bleu_lab_lab_copies_then_starts_jupyterlab_in_the_copy(tmp_path, capsys, monkeypatch):
    started = []

    class FakeLab:
        def __init__(self, command, cwd):
            started.append((command, cwd))

        def wait(self):
            return 0

    monkeypatch.setattr(course.subprocess, "Popen", FakeLab)
    directory = tmp_path / "my course"
    assert main(["lab", str(directory), "--no-browser", "--port", "8899"]) == 0
    (command, cwd), = started
    assert cwd == directory and (directory / course.FIRST_LESSON).is_file()
    assert f"--ServerApp.root_dir={directory.resolve()}" in command
    assert command[-4:] == ["--no-browser", "--port", "8899", course.FIRST_LESSON]  # the first lesson, first time
    assert "added" in capsys.readouterr().out
    assert main(["lab", str(directory)]) == 0
    assert started[1][0][-1] != course.FIRST_LESSON  # later: JupyterLab restores the student's own tabs


# --- graded work: the lessons as handed out, no worked solutions (--no-solutions, BLEU_LAB_GRADED=1) -------------


def test_no_solutions_hands_out_what_bleu_lab_release_hands_out(tmp_path):
    """Every lesson of a graded copy is byte for byte the student copy of `bleu-lab release` (the real release of
    the shipped lessons), and no worked solution is copied or loaded."""
    from bleu_lab.assignments.release import release

    handed = release(tmp_path / "release", default_notebooks_dir()).student
    target = tmp_path / "graded"
    report = course.copy_course(target, solutions=False)
    assert report.graded and "(graded work: no worked solutions)" in str(report)
    assert not (target / "notebooks" / "solutions").exists()
    assert not [name for name in report.added if name.startswith("notebooks/solutions/")]
    lessons = sorted(target.glob("notebooks/*.ipynb"))
    assert [p.name for p in lessons] == sorted(p.name for p in handed.glob("*.ipynb")) and len(lessons) >= 14
    for lesson in lessons:
        assert lesson.read_bytes() == (handed / lesson.name).read_bytes(), lesson.name
        assert "%load" not in lesson.read_text(encoding="utf-8")
    assert (target / "data" / "news" / "ref.A.de").is_file() and (target / "docs" / "reading_list.md").is_file()
    assert not course.copy_course(target, solutions=False).added  # a second graded copy adds nothing


def test_graded_lessons_are_handed_out_one_at_a_time_as_the_released_file_says(tmp_path, monkeypatch, capsys):
    """BLEU_LAB_RELEASED names the numbered lessons released so far, each optionally with its opening time: the others
    are not copied (the playground and the comparison page are); a line added releases its lesson at the next copy."""
    released = tmp_path / "released.txt"
    released.write_text("# week 1\n03_brevity_penalty\n04_putting_it_together.ipynb 2999-01-01 09:00\n")
    monkeypatch.setenv("BLEU_LAB_GRADED", "1")
    monkeypatch.setenv("BLEU_LAB_RELEASED", str(released))
    target = tmp_path / "course"
    assert main(["lessons", str(target)]) == 0
    assert sorted(p.name for p in target.glob("notebooks/*.ipynb")) == [
        "03_brevity_penalty.ipynb", "compare_app.ipynb", "playground.ipynb"]
    assert "not released yet: 12 lessons" in capsys.readouterr().out
    assert not (target / "notebooks" / "solutions").exists()
    released.write_text("03_brevity_penalty\n04_putting_it_together 2020-01-01 09:00\n")  # opened since
    assert main(["lessons", str(target)]) == 0
    assert (target / "notebooks" / "04_putting_it_together.ipynb").is_file()
    assert "added notebooks/04_putting_it_together.ipynb" in capsys.readouterr().out


@pytest.mark.parametrize("text, words", [
    ("03_brevity\n", r"released.txt, line 1: '03_brevity' is not a lesson; the lessons are 00_start_here, "),
    ("\n03_brevity_penalty 1 Dec\n", r"line 2: the opening time must be YYYY-MM-DD or YYYY-MM-DD HH:MM"),
])
def test_a_bad_released_file_is_refused_naming_the_line(tmp_path, monkeypatch, capsys, text, words):
    released = tmp_path / "released.txt"
    released.write_text(text)
    with pytest.raises(ValueError, match=words):
        course.read_released(released)
    monkeypatch.setenv("BLEU_LAB_GRADED", "1")
    monkeypatch.setenv("BLEU_LAB_RELEASED", str(released))
    assert main(["lessons", str(tmp_path / "course")]) == 2
    assert re.search(words, capsys.readouterr().err)
    assert not (tmp_path / "course").exists()


def test_released_opening_times_are_read_in_the_servers_local_time(tmp_path):
    released = tmp_path / "released.txt"
    released.write_text("03_brevity_penalty 2026-12-01 09:00\n04_putting_it_together 2026-12-01\n")
    at = course.dt.datetime
    assert course.read_released(released, now=at(2026, 11, 30, 23, 59)) == set()
    assert course.read_released(released, now=at(2026, 12, 1, 0, 0)) == {"04_putting_it_together"}
    assert course.read_released(released, now=at(2026, 12, 1, 9, 0)) == {"03_brevity_penalty",
                                                                          "04_putting_it_together"}
    with pytest.raises(ValueError, match="cannot read the released lessons' file"):
        course.read_released(tmp_path / "missing.txt")


def test_no_solutions_removes_the_untouched_solutions_of_an_earlier_copy_and_keeps_changed_ones(tmp_path, capsys):
    target = tmp_path / "bleu-lab-course"
    assert main(["lessons", str(target)]) == 0  # an earlier copy, with the worked solutions
    solutions = target / "notebooks" / "solutions"
    shipped = sorted(f"notebooks/solutions/{p.name}" for p in solutions.glob("*.py"))
    (solutions / "01_clip.py").write_text("# my own attempt\n")  # changed: the student's
    (solutions / "02_word_salad.py").unlink()  # deleted by the student: nothing to remove or name
    (solutions / "03_brevity_penalty.py").unlink()
    (solutions / "03_brevity_penalty.py").symlink_to(target / "docs" / "reading_list.md")  # a link: never followed
    lesson = target / "notebooks" / "04_putting_it_together.ipynb"
    lesson.write_text(lesson.read_text(encoding="utf-8") + " ", encoding="utf-8")  # a lesson the student changed
    capsys.readouterr()

    assert main(["lessons", str(target), "--no-solutions"]) == 0
    out = capsys.readouterr().out
    removed = [f for f in shipped if not f.endswith(("01_clip.py", "02_word_salad.py", "03_brevity_penalty.py"))]
    assert sorted(p.name for p in solutions.iterdir()) == ["01_clip.py", "03_brevity_penalty.py"]
    assert "removed the worked solutions an earlier copy put here" in out
    assert "(as handed out for graded work; you had not changed them)" in out
    assert out.count("notebooks/solutions/") == len(removed) + 2  # each removed one named, and the two kept
    for name in removed:
        assert name in out
    assert "kept notebooks/solutions/01_clip.py (a worked solution that you changed" in out
    assert "kept notebooks/solutions/03_brevity_penalty.py" in out and "02_word_salad" not in out
    assert (solutions / "01_clip.py").read_text() == "# my own attempt\n"
    assert (target / "docs" / "reading_list.md").is_file()  # the link's target is untouched
    assert "kept notebooks/04_putting_it_together.ipynb (you changed it)" in out
    assert "%load" not in (target / "notebooks" / "03_brevity_penalty.ipynb").read_text(encoding="utf-8")
    assert "bleu-lab lab " + str(target) + " --no-solutions" in out

    # Run again: nothing more to remove; the student's solution is named again (the hub's log shows it each start).
    assert main(["lessons", str(target), "--no-solutions"]) == 0
    out = capsys.readouterr().out
    assert "removed" not in out and "kept notebooks/solutions/01_clip.py" in out

    # Back to ungraded work: the solutions and the full lessons come back, the student's files stay.
    report = course.copy_course(target)
    assert set(removed) <= set(report.added) and "notebooks/03_brevity_penalty.ipynb" in report.replaced
    assert (solutions / "01_clip.py").read_text() == "# my own attempt\n"
    assert "%load" in (target / "notebooks" / "03_brevity_penalty.ipynb").read_text(encoding="utf-8")


def test_bleu_lab_graded_in_the_environment_is_the_switch(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv(course.GRADED_ENV, "1")
    assert main(["lessons", str(tmp_path / "graded")]) == 0
    assert "(graded work: no worked solutions)" in capsys.readouterr().out
    assert not (tmp_path / "graded" / "notebooks" / "solutions").exists()
    monkeypatch.setenv(course.GRADED_ENV, "0")
    assert main(["lessons", str(tmp_path / "open")]) == 0
    assert (tmp_path / "open" / "notebooks" / "solutions" / "01_clip.py").is_file()
    monkeypatch.setenv(course.GRADED_ENV, "yes")
    assert main(["lessons", str(tmp_path / "open")]) == 2
    assert capsys.readouterr().err.strip().endswith("BLEU_LAB_GRADED must be 1 (graded work: no worked solutions) or "
                                                    "0 (unset: 0), not 'yes'")


# --- bleu-lab guide ----------------------------------------------------------------------------------------------


def test_guide_prints_where_the_instructors_files_are(capsys):
    assert main(["guide"]) == 0
    out = capsys.readouterr().out
    for label, relative in course.INSTRUCTOR_FILES:
        line = next(line for line in out.splitlines() if line.strip().startswith(label))
        assert line.split(None, len(label.split()))[-1] == str(REPO / relative)
        assert (REPO / relative).exists() and "not here" not in line
    assert "bleu-lab guide --open" in out


def test_guide_says_which_file_is_missing(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "instructor.md").write_text("# Instructor guide\n")
    text = course.guide_text(tmp_path)
    assert f"{tmp_path / 'docs' / 'instructor.md'}\n" in text
    assert f"{tmp_path / 'notebooks' / 'solutions'}  (not here" in text


def test_guide_opens_a_browser_only_when_asked(tmp_path):
    """A real run of `bleu-lab guide --open`, with $BROWSER (which Python's webbrowser honours) a script that records
    the address it was given; without --open, no browser is started."""
    record = tmp_path / "opened.txt"
    browser = tmp_path / "browser.py"
    browser.write_text(f"import sys\nopen({str(record)!r}, 'a').write(sys.argv[1] + '\\n')\n")
    env = {**os.environ, "BROWSER": f"{sys.executable} {browser} %s"}
    plain = subprocess.run([sys.executable, "-m", "bleu_lab", "guide"], env=env, capture_output=True, text=True,
                           timeout=60)
    assert plain.returncode == 0 and not record.exists(), plain.stderr
    opened = subprocess.run([sys.executable, "-m", "bleu_lab", "guide", "--open"], env=env, capture_output=True,
                            text=True, timeout=60)
    assert opened.returncode == 0, opened.stderr
    assert record.read_text().split() == [(REPO / "docs" / "instructor.md").as_uri()]
    assert f"Opened {REPO / 'docs' / 'instructor.md'} in your web browser." in opened.stdout


def _anchors(markdown: str) -> set[str]:
    """GitHub's anchors for a Markdown file's headings: lower case, punctuation dropped, spaces to hyphens."""
    return {re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")
            for title in re.findall(r"^#{1,6} (.+)$", markdown, re.MULTILINE)}


def test_the_readmes_links_to_the_guide_work_from_a_wheel():
    """Each README link into docs/ or jupyter-settings/ names a file the wheel installs (setup.py), which `bleu-lab
    guide` prints the folder of, and each #anchor is a heading there; the guide's own #anchors are its headings."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    packaged = {"/".join(p.parts) for p in _setup_module().course_files(REPO)}
    links = re.findall(r"\]\(((?:docs|jupyter-settings)/[^)#\s]+)(?:#([^)\s]+))?\)", readme)
    assert len(links) >= 8
    for target, anchor in links:
        assert target in packaged, target
        if anchor:
            assert anchor in _anchors((REPO / target).read_text(encoding="utf-8")), (target, anchor)
    assert "bleu-lab guide" in readme
    guide = (REPO / "docs" / "instructor.md").read_text(encoding="utf-8")
    for anchor in re.findall(r"\]\(#([^)\s]+)\)", guide):
        assert anchor in _anchors(guide), anchor
