"""Collect → grade → return on a hub (issue 36): `bleu-lab collect`, `bleu-lab grade --feedback`, `collect --return`.

The homes are fake homes in a temporary folder, laid out as the hub's `bleu-lab lessons` leaves them
(HOME/bleu-lab-course/notebooks/LESSON.ipynb), with what a hostile student can plant there: links at every
component (one to /etc/shadow), a FIFO, an oversized notebook, a file of their own where the feedback page goes.
One real batch (lesson 0: the solved copy and the untouched student copy, collected from two homes) is graded by the
real `bleu-lab grade --feedback`, and its pages are returned to the homes. Where the tests run as root (CI does), a
real user is created with useradd and removed after, and the returned page must be owned by that user's uid.
"""

from __future__ import annotations

import csv
import hashlib
import os
import pwd
import secrets
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bleu_lab.assignments import lesson_gradings
from bleu_lab.assignments.cli import main as assignments_main
from bleu_lab.assignments.collect import RETURNED_NAME, collect, parse_deadline, return_feedback
from bleu_lab.assignments.feedback import render
from bleu_lab.assignments.grade import ExerciseResult, NotebookGrade
from bleu_lab.assignments.gradebook import student_id
from bleu_lab.assignments.release import release

REPO = Path(__file__).resolve().parent.parent
BLEU_LAB = Path(sys.executable).parent / "bleu-lab"
L0, L3 = "00_start_here", "03_brevity_penalty"
NOTEBOOK = ("bleu-lab-course", "notebooks")
FEEDBACK = ("bleu-lab-course", "feedback")
DEADLINE = datetime(2400, 12, 1, 23, 59, tzinfo=UTC)  # after the files' ctime (now), before ext4's last time


def _home(homes: Path, student: str) -> Path:
    folder = homes.joinpath(student, *NOTEBOOK)
    folder.mkdir(parents=True)
    return homes / student


def _notebook(homes: Path, student: str, data: bytes, modified: datetime = DEADLINE - timedelta(hours=1)) -> Path:
    path = _home(homes, student).joinpath(*NOTEBOOK, f"{L3}.ipynb")
    path.write_bytes(data)
    os.utime(path, (modified.timestamp(), modified.timestamp()))
    return path


def _manifest(path: Path) -> dict[str, dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as f:
        return {row["student"]: row for row in csv.DictReader(f)}


@pytest.fixture
def hostile_homes(tmp_path) -> Path:
    """Homes of every kind a student can leave: on time, late, links at each component, a FIFO, too large, empty."""
    homes = tmp_path / "home"
    outside = tmp_path / "outside" / "notebooks"
    outside.mkdir(parents=True)
    (outside / f"{L3}.ipynb").write_bytes(b'{"stolen": true}')
    _notebook(homes, "alice", b'{"alice": 1}')
    _notebook(homes, "bob", b'{"bob": 1}', DEADLINE + timedelta(minutes=5))
    carol = homes / "carol" / "bleu-lab-course"  # the notebooks folder is a link to someone else's
    carol.mkdir(parents=True)
    (carol / "notebooks").symlink_to(outside)
    _home(homes, "dave").joinpath(*NOTEBOOK, f"{L3}.ipynb").symlink_to(outside / f"{L3}.ipynb")
    _notebook(homes, "erin", b"x" * 6_000_000)
    _home(homes, "frank").joinpath(*NOTEBOOK, "01_ngrams_and_clipping.ipynb").write_bytes(b"{}")
    os.mkfifo(_home(homes, "gina").joinpath(*NOTEBOOK, f"{L3}.ipynb"))
    (homes / "henry").symlink_to(homes / "alice")  # a home that is a link
    (homes / "ivan").mkdir()
    (homes / "ivan" / "bleu-lab-course").symlink_to(outside.parent)
    (homes / ".snapshots").mkdir()
    return homes


def test_collect_copies_regular_files_only_and_lists_every_home(hostile_homes, tmp_path):
    target = tmp_path / "course" / "submitted"
    report = collect(L3, hostile_homes, target, deadline=DEADLINE)
    rows = _manifest(report.manifest)
    assert report.manifest == tmp_path / "course" / f"{L3}-collected.csv"
    assert sorted(rows) == ["alice", "bob", "carol", "dave", "erin", "frank", "gina", "henry", "ivan"]
    assert {s: r["status"] for s, r in rows.items()} == {
        "alice": "collected", "bob": "late", "carol": "refused", "dave": "refused", "erin": "refused",
        "frank": "nothing to collect", "gina": "refused", "henry": "refused", "ivan": "refused"}
    assert "notebooks is a link" in rows["carol"]["note"] and "is a link" in rows["dave"]["note"]
    assert "6.0 MB, over the 5 MB bound" in rows["erin"]["note"]
    assert "not a regular file" in rows["gina"]["note"]
    assert "the home henry is a link" in rows["henry"]["note"]
    assert "bleu-lab-course is a link" in rows["ivan"]["note"]
    assert rows["frank"]["note"] == f"no bleu-lab-course/notebooks/{L3}.ipynb"
    assert (rows["alice"]["late"], rows["bob"]["late"]) == ("no", "yes")
    assert rows["bob"]["modified"] == (DEADLINE + timedelta(minutes=5)).isoformat(timespec="seconds")
    assert rows["alice"]["sha256"] == hashlib.sha256(b'{"alice": 1}').hexdigest()
    copied = sorted(p.relative_to(target).as_posix() for p in target.rglob("*") if p.is_file())
    assert copied == [f"alice/{L3}/{L3}.ipynb", f"bob/{L3}/{L3}.ipynb"]  # nothing stolen through a link
    alice = target / "alice" / L3 / f"{L3}.ipynb"
    assert alice.read_bytes() == b'{"alice": 1}' and stat.S_IMODE(alice.stat().st_mode) == 0o600
    assert stat.S_IMODE(target.stat().st_mode) == 0o700
    assert student_id(alice, lesson_gradings()) == "alice"  # the layout bleu-lab grade reads
    text = str(report)
    assert "late (1, collected and marked in the manifest): bob" in text and "refused erin" in text
    assert "nothing to collect (1): frank" in text


def test_collect_again_replaces_its_own_copy_and_a_smaller_bound_refuses_more(hostile_homes, tmp_path):
    target = tmp_path / "submitted"
    collect(L3, hostile_homes, target)
    (hostile_homes / "alice" / "bleu-lab-course" / "notebooks" / f"{L3}.ipynb").write_bytes(b'{"alice": 2}')
    report = collect(L3, hostile_homes, target, limit=12)
    assert (target / "alice" / L3 / f"{L3}.ipynb").read_bytes() == b'{"alice": 2}'
    assert _manifest(report.manifest)["bob"]["status"] == "collected"  # no deadline: nothing is late
    assert _manifest(report.manifest)["bob"]["late"] == ""
    assert assignments_main(["collect", L3, "--homes", str(hostile_homes), "--to", str(target), "--max-mb",
                             "0.000011"]) == 0
    rows = _manifest(report.manifest)
    assert rows["alice"]["status"] == "refused" and rows["bob"]["status"] == "collected"
    assert "12 bytes" not in rows["alice"]["note"] and "over the 1.1e-05 MB bound" in rows["alice"]["note"]
    assert f"now {L3}.ipynb.earlier" in rows["alice"]["note"]
    assert not (target / "alice" / L3 / f"{L3}.ipynb").exists()  # out of bleu-lab grade's way, not deleted
    assert (target / "alice" / L3 / f"{L3}.ipynb.earlier").read_bytes() == b'{"alice": 2}'


def test_collect_refuses_bad_options_in_one_line(hostile_homes, tmp_path, capsys):
    assert assignments_main(["collect", L3, "--homes", str(hostile_homes), "--to", str(tmp_path / "in")]) == 2
    assert "name the folder 'submitted'" in capsys.readouterr().err
    assert assignments_main(["collect", "99_nothing", "--homes", str(hostile_homes), "--to",
                             str(tmp_path / "submitted")]) == 2
    assert "no such graded lesson" in capsys.readouterr().err
    assert assignments_main(["collect", L3, "--homes", str(hostile_homes), "--to", str(tmp_path / "submitted"),
                             "--deadline", "next friday"]) == 2
    assert "--deadline 'next friday': expected an ISO 8601 time" in capsys.readouterr().err
    assert assignments_main(["collect", L3, "--homes", str(tmp_path / "nohomes"), "--to",
                             str(tmp_path / "submitted")]) == 2
    assert "--homes" in capsys.readouterr().err
    assert assignments_main(["collect", "--homes", str(hostile_homes)]) == 2
    assert "needs LESSON and --to" in capsys.readouterr().err
    assert assignments_main(["collect", L3, "--homes", str(hostile_homes), "--to",
                             str(hostile_homes / "alice" / "submitted")]) == 2
    assert "is inside --homes" in capsys.readouterr().err and not (hostile_homes / "alice" / "submitted").exists()
    assert not (tmp_path / "in").exists()


@pytest.fixture
def tmpfs_dir(tmp_path) -> Path:
    """A folder on a file system with 64-bit times (tmpfs: /dev/shm), where a student can set an mtime of 1e15 s
    (ext4 caps it at 2446); else tmp_path."""
    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        yield tmp_path
        return
    folder = shm / f"bleu-lab-collect-{secrets.token_hex(4)}"
    folder.mkdir(mode=0o700)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_collect_goes_on_past_any_one_home(tmpfs_dir):
    """Issue 44: a Unix socket in place of the notebook, an mtime no date holds and a hard link each cost only their
    own home (one line in the manifest); the homes after them are collected."""
    homes, target = tmpfs_dir / "home", tmpfs_dir / "course" / "submitted"
    _notebook(homes, "amy", b'{"amy": 1}')
    with socket.socket(socket.AF_UNIX) as sock:  # the issue's: bind() where the lesson was
        sock.bind(str(_home(homes, "ben").joinpath(*NOTEBOOK, f"{L3}.ipynb")))
        future = _notebook(homes, "cat", b'{"cat": 1}')
        os.utime(future, (1e15, 1e15))
        outside = tmpfs_dir / "someone-elses.ipynb"
        outside.write_bytes(b'{"not dan": 1}')
        os.link(outside, _home(homes, "dan").joinpath(*NOTEBOOK, f"{L3}.ipynb"))
        _notebook(homes, "zoe", b'{"zoe": 1}')
        assert assignments_main(["collect", L3, "--homes", str(homes), "--to", str(target), "--deadline",
                                 DEADLINE.isoformat()]) == 0
    rows = _manifest(target.parent / f"{L3}-collected.csv")
    assert {s: r["status"] for s, r in rows.items()} == {
        "amy": "collected", "ben": "refused", "cat": "refused", "dan": "refused", "zoe": "collected"}
    assert rows["ben"]["note"].endswith("is not a regular file (a socket)")
    if os.stat(future).st_mtime == 1e15:  # the file system holds it (tmpfs, btrfs, XFS)
        assert "its modification time (1000000000000000 s after 1970) is out of range" in rows["cat"]["note"]
    assert rows["dan"]["note"].endswith("has 2 hard links: it may be another's file (save the lesson again, as a "
                                        "file of its own)")
    assert sorted(p.relative_to(target).as_posix() for p in target.rglob("*.ipynb")) == [
        f"amy/{L3}/{L3}.ipynb", f"zoe/{L3}/{L3}.ipynb"]


def test_as_root_a_file_the_student_does_not_own_is_refused(real_student, tmp_path):
    """A file root (or anyone) left in a student's home is not the student's submission, whatever its mode."""
    home = Path(real_student.pw_dir)
    folder = home.joinpath(*NOTEBOOK)
    folder.mkdir(parents=True)
    for path in (home / NOTEBOOK[0], folder):
        os.chown(path, real_student.pw_uid, real_student.pw_gid)
    (folder / f"{L3}.ipynb").write_bytes(b"{}")  # root's
    report = collect(L3, home.parent, tmp_path / "submitted")
    [row] = report.rows
    assert row.status == "refused" and f"is not the student's: owned by root (uid 0), not by the home's owner " \
        f"{real_student.pw_name} (uid {real_student.pw_uid})" in row.note
    os.chown(folder / f"{L3}.ipynb", real_student.pw_uid, real_student.pw_gid)
    assert collect(L3, home.parent, tmp_path / "submitted").rows[0].status == "collected"


def test_a_deadline_without_a_zone_is_local_time():
    assert parse_deadline("2400-12-01T23:59Z") == DEADLINE
    assert parse_deadline("2026-12-01T23:59").utcoffset() is not None


# ------------------------------------------------------------------------------------------------ return


def _pages(tmp_path: Path, students: list[str], text: str = "page") -> Path:
    source = tmp_path / "feedback"
    for student in students:
        (source / student).mkdir(parents=True, exist_ok=True)
        (source / student / f"{L3}.html").write_text(f"<p>{text} for {student}</p>", encoding="utf-8")
    return source


def _fb(homes: Path, student: str, name: str = f"{L3}.html") -> Path:
    return homes.joinpath(student, *FEEDBACK, name)


def test_return_never_overwrites_the_students_files_nor_follows_their_links(tmp_path):
    homes = tmp_path / "home"
    secret = tmp_path / "shadow"  # stands for /etc/shadow (the next test plants a link to the real one)
    secret.write_text("root:secret", encoding="utf-8")
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    for student in ("alice", "bob", "carol", "dave", "erin"):
        (homes / student).mkdir(parents=True)
    _home(homes, "bob")  # bob wrote his own page where the feedback goes
    _fb(homes, "bob").parent.mkdir(parents=True)
    _fb(homes, "bob").write_text("bob's own notes", encoding="utf-8")
    _fb(homes, "carol").parent.mkdir(parents=True)
    _fb(homes, "carol").symlink_to(secret)
    (homes / "dave" / "bleu-lab-course").mkdir()
    (homes / "dave" / "bleu-lab-course" / "feedback").symlink_to(outside)
    (homes / "erin" / "bleu-lab-course").symlink_to(outside)
    source = _pages(tmp_path, ["alice", "bob", "carol", "dave", "erin", "mallory"])
    report = return_feedback(source, homes)
    assert _fb(homes, "alice").read_text(encoding="utf-8") == "<p>page for alice</p>"
    assert stat.S_IMODE(_fb(homes, "alice").stat().st_mode) == 0o600
    assert _fb(homes, "bob").read_text(encoding="utf-8") == "bob's own notes"
    assert _fb(homes, "bob", f"{L3}.new.html").read_text(encoding="utf-8") == "<p>page for bob</p>"
    assert secret.read_text(encoding="utf-8") == "root:secret" and _fb(homes, "carol").is_symlink()
    assert _fb(homes, "carol", f"{L3}.new.html").read_text(encoding="utf-8") == "<p>page for carol</p>"
    assert list(outside.iterdir()) == []
    text = str(report)
    assert f"written beside: bob: bleu-lab-course/feedback/{L3}.new.html ({L3}.html was not written by" in text
    assert f"({L3}.html is a link, left alone)" in text
    assert "dave: bleu-lab-course/feedback/" in text and "feedback is a link (never followed)" in text
    assert "bleu-lab-course is a link (never followed)" in text
    assert "mallory" in text and "no home mallory" in text
    # again, with new pages: its own pages are replaced in place, the students' files still left alone
    source = _pages(tmp_path, ["alice", "bob", "carol"], text="regraded")
    report = return_feedback(source, homes)
    assert _fb(homes, "alice").read_text(encoding="utf-8") == "<p>regraded for alice</p>"
    assert _fb(homes, "bob", f"{L3}.new.html").read_text(encoding="utf-8") == "<p>regraded for bob</p>"
    assert _fb(homes, "bob").read_text(encoding="utf-8") == "bob's own notes"
    assert not _fb(homes, "bob", f"{L3}.new-2.html").exists()
    assert (source / RETURNED_NAME).is_file()
    # a page the student edited after it was returned is theirs now
    _fb(homes, "alice").write_text("alice's annotations", encoding="utf-8")
    return_feedback(_pages(tmp_path, ["alice"], text="third"), homes)
    assert _fb(homes, "alice").read_text(encoding="utf-8") == "alice's annotations"
    assert _fb(homes, "alice", f"{L3}.new.html").read_text(encoding="utf-8") == "<p>third for alice</p>"
    assert not [p for p in homes.rglob(".*.html*")]  # no temporary file left behind


def test_return_through_a_link_to_etc_shadow_leaves_it_untouched(tmp_path):
    shadow = Path("/etc/shadow")
    if not os.path.lexists(shadow):
        pytest.skip("no /etc/shadow on this system")
    before = (shadow.lstat().st_mtime_ns, shadow.lstat().st_size, stat.S_IMODE(shadow.lstat().st_mode))
    homes = tmp_path / "home"
    _fb(homes, "mallory").parent.mkdir(parents=True)
    _fb(homes, "mallory").symlink_to(shadow)
    (homes / "oscar" / "bleu-lab-course").mkdir(parents=True)
    (homes / "oscar" / "bleu-lab-course" / "feedback").symlink_to("/etc")
    report = return_feedback(_pages(tmp_path, ["mallory", "oscar"]), homes)
    assert (shadow.lstat().st_mtime_ns, shadow.lstat().st_size, stat.S_IMODE(shadow.lstat().st_mode)) == before
    assert not Path(f"/etc/{L3}.html").exists()
    assert _fb(homes, "mallory", f"{L3}.new.html").is_file() and _fb(homes, "mallory").is_symlink()
    assert "oscar" in "\n".join(report.refused)


def test_not_as_root_the_pages_are_written_but_the_report_says_whose_they_are(tmp_path, monkeypatch):
    homes = tmp_path / "home"
    (homes / "alice").mkdir(parents=True)
    monkeypatch.setattr(os, "geteuid", lambda: 4242)  # an instructor's account: no chown is tried
    report = return_feedback(_pages(tmp_path, ["alice"]), homes)
    assert _fb(homes, "alice").stat().st_uid == os.getuid()
    assert "not run as root: the pages are owned by you, not by the students" in str(report)


@pytest.fixture
def real_student(tmp_path):
    """A real local user whose home is in tmp_path/home (created with useradd, removed after): root only."""
    if os.geteuid() != 0:
        pytest.skip("needs root to create a user and to chown (CI runs this as root)")
    if shutil.which("useradd") is None or shutil.which("userdel") is None:
        pytest.skip("no useradd/userdel on this system")
    name = f"bltest{secrets.token_hex(4)}"
    home = tmp_path / "home" / name
    home.parent.mkdir(parents=True)
    subprocess.run(["useradd", "--no-create-home", "--home-dir", str(home), "--shell", "/usr/sbin/nologin", name],
                   check=True, capture_output=True, timeout=30)
    try:
        user = pwd.getpwnam(name)
        home.mkdir(mode=0o700)
        os.chown(home, user.pw_uid, user.pw_gid)
        yield user
    finally:
        subprocess.run(["userdel", name], capture_output=True, timeout=30)


def test_as_root_the_returned_page_belongs_to_the_student(real_student, tmp_path):
    homes = Path(real_student.pw_dir).parent
    report = return_feedback(_pages(tmp_path, [real_student.pw_name]), homes)
    assert report.owner_note == ""
    page = _fb(homes, real_student.pw_name)
    for path in (page, page.parent, page.parent.parent):
        assert (path.stat().st_uid, path.stat().st_gid) == (real_student.pw_uid, real_student.pw_gid), path
    assert page.read_text(encoding="utf-8") == f"<p>page for {real_student.pw_name}</p>"


# ------------------------------------------------------------------------------------------------ feedback pages


def _lesson3(points: dict[str, tuple[int, int]], messages: dict[str, list[str]]) -> NotebookGrade:
    grade = NotebookGrade(Path(f"/c/submitted/alice/{L3}/{L3}.ipynb"), L3)
    for e in lesson_gradings()[L3].exercises:
        total, hidden = points.get(e.name, (e.points, int(e.hidden is not None)))
        grade.exercises.append(ExerciseResult(e.name, total, e.points, bool(e.manual), messages.get(e.name, []),
                                              answer="my words" if e.manual else "", key_points=e.manual,
                                              hidden_points=hidden))
    return grade


def test_a_page_shows_hidden_cases_only_as_the_policy_allows_and_escapes_the_notebooks_text():
    grade = _lesson3({"my_closest_ref_length": (1, 0), "my_brevity_penalty": (0, 0)},
                     {"my_closest_ref_length": ["hidden cases: ✘ my_closest_ref_length([13, 7], 10) returned 13"],
                      "my_brevity_penalty": ["✘ my_brevity_penalty: <script>alert(1)</script>",
                                             "hidden cases: not passed either"]})
    grade.errors = ["cell 12: NameError: name 'x' is not defined"]
    summary, details = render(grade, "alice"), render(grade, "alice", "details")
    assert "Score: 2 / 6" in summary and "1 written answer is graded by hand and not marked yet" in summary
    assert "[13, 7]" not in summary and "[13, 7]" in details
    assert "The hidden cases did not pass" in summary
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in summary and "<script" not in summary
    assert "my words" not in summary and lesson_gradings()[L3].exercises[-1].manual not in summary  # no rubric
    assert "NameError" in summary
    assert '<html lang="en">' in summary and "<caption>" in summary and 'scope="col"' in summary
    assert "http" not in summary.replace("https://", "")  # nothing fetched from elsewhere
    assert "src=" not in summary and "<link" not in summary
    marked = render(grade, "alice", by_hand={f"{L3}: what BLEU would do without BP (by hand)": 0.5})
    assert "<td>0.5</td>" in marked and "marked by hand" in marked and "Score: 2.5 / 6" in marked  # issue 44: counted
    assert "not marked yet" not in marked


@pytest.fixture(scope="module")
def round_trip():
    """The hub's round trip with the real commands: alice saved the solved lesson 0, bob the untouched one, carol
    planted a link; collect, grade --feedback --csv --canvas, return."""
    root = Path(tempfile.mkdtemp(prefix="bleu-lab-round-trip-"))
    root.chmod(0o755)  # a folder every user can enter, as /srv/grading is on a hub: what is written must be private
    course = root / "release"
    release(course, REPO / "notebooks")
    homes = root / "home"
    for student, copy in (("alice", "solved"), ("bob", "student")):
        folder = homes.joinpath(student, *NOTEBOOK)
        folder.mkdir(parents=True)
        shutil.copy(course / copy / f"{L0}.ipynb", folder / f"{L0}.ipynb")
    carol = homes.joinpath("carol", *NOTEBOOK)
    carol.mkdir(parents=True)
    (carol / f"{L0}.ipynb").symlink_to(course / "solved" / f"{L0}.ipynb")
    submitted = root / "course" / "submitted"
    gradebook = root / "Grades-BLEU.csv"  # as Canvas exports it (tests/test_canvas.py has the details)
    gradebook.write_text(f"Student,ID,SIS User ID,SIS Login ID,Section,Lesson 0: {L0} (222),Current Score\r\n"
                         "    Points Possible,,,,,2.00,(read only)\r\n"
                         '"Doe, Alice",1001,S1001,alice,"Section A, Monday",,\r\n'
                         '"Roe, Bob",1002,S1002,bob@uni.example,Section A,1.00,50.00\r\n'
                         '"Student, Test",1099,,,Section A,,\r\n', encoding="utf-8")
    earlier = root / "marks.csv"  # an earlier run's export, open to all: rewritten, it is private too
    earlier.write_text("student\n", encoding="utf-8")
    earlier.chmod(0o644)
    run = [str(BLEU_LAB)]
    collected = subprocess.run([*run, "collect", L0, "--homes", str(homes), "--to", str(submitted)],
                               capture_output=True, text=True, timeout=120)
    graded = subprocess.run([*run, "grade", *map(str, sorted(submitted.glob(f"*/{L0}/{L0}.ipynb"))), "--seed", "7",
                             "--timeout", "120", "--csv", str(root / "marks.csv"), "--feedback",
                             str(root / "feedback"), "--canvas", str(gradebook), "-o", str(root / "import.csv")],
                            capture_output=True, text=True, timeout=900)
    returned = subprocess.run([*run, "collect", "--return", str(root / "feedback"), "--homes", str(homes)],
                              capture_output=True, text=True, timeout=120)
    yield root, homes, collected, graded, returned
    shutil.rmtree(root, ignore_errors=True)


def test_round_trip_collects_grades_and_returns_each_page_to_its_home(round_trip):
    root, homes, collected, graded, returned = round_trip
    assert collected.returncode == 0, collected.stderr
    assert "collected 2 notebooks of 00_start_here" in collected.stdout
    assert "refused carol: bleu-lab-course/notebooks/00_start_here.ipynb: 00_start_here.ipynb is a link" in (
        collected.stdout)
    assert graded.returncode == 0, graded.stderr[-2000:]
    assert "wrote 2 feedback pages" in graded.stderr
    assert [line for line in graded.stdout.splitlines() if line.startswith("score:")] == [
        "score: 2 / 2", "score: 0 / 2"]
    assert returned.returncode == 0, returned.stderr
    alice = _fb(homes, "alice", f"{L0}.html").read_text(encoding="utf-8")
    bob = _fb(homes, "bob", f"{L0}.html").read_text(encoding="utf-8")
    assert "00_start_here: feedback for alice" in alice and "Score: 2 / 2" in alice
    assert "Where marks were missed" not in alice
    assert "Score: 0 / 2" in bob and "Where marks were missed" in bob and "What the check said" in bob
    assert "reading the explanation" in bob and "a better translation" in bob
    assert not _fb(homes, "carol", f"{L0}.html").exists()
    with (root / "marks.csv").open(encoding="utf-8", newline="") as f:
        rows = {row["student"]: row for row in csv.DictReader(f)}
    assert (rows["alice"][f"{L0}: total"], rows["bob"][f"{L0}: total"]) == ("2", "0")
    assert "matched 1 by SIS Login ID, 1 by login" in graded.stderr
    assert (root / "import.csv").read_text(encoding="utf-8").splitlines() == [
        f"Student,ID,SIS User ID,SIS Login ID,Section,Lesson 0: {L0} (222)", "    Points Possible,,,,,2.00",
        '"Doe, Alice",1001,S1001,alice,"Section A, Monday",2', '"Roe, Bob",1002,S1002,bob@uni.example,Section A,0',
        '"Student, Test",1099,,,Section A,']


PEEK = """\
import os, sys
for path in sys.argv[1:]:
    try:
        os.listdir(path) if os.path.isdir(path) else open(path, "rb").read(1)
        print("READ", path)
    except PermissionError:
        print("DENIED", path)
"""


def test_round_trip_writes_nothing_another_user_can_read(round_trip):
    """Issues 43 and 44: in a folder every user can enter, what release, collect and grade wrote (the solved lessons,
    the manifest, the collected notebooks, marks.csv, the feedback pages, Canvas's file) is 0700 / 0600, and a real
    second user (nobody) can open none of it; grade warns that the folder is open."""
    root, _, _, graded, _ = round_trip
    written = [p for p in root.rglob("*") if not p.is_relative_to(root / "home") and p.name != "Grades-BLEU.csv"]
    assert {"marks.csv", "import.csv", f"{L0}-collected.csv", f"{L0}.html", "solved", "student"} <= {
        p.name for p in written}
    modes = {p.relative_to(root).as_posix(): oct(stat.S_IMODE(p.lstat().st_mode)) for p in written}
    assert {k: v for k, v in modes.items() if v != ("0o700" if (root / k).is_dir() else "0o600")} == {}, modes
    assert (f"bleu-lab grade: warning: --csv writes into {root}, which other users can enter or list (mode 755, "
            f"root:root): the files written there are private (mode 600), but their names show; chmod 700 {root}"
            if os.geteuid() == 0 else f"writes into {root}, which other users can enter") in graded.stderr
    if os.geteuid() != 0:
        return  # only root can be another user here (CI runs as root)
    try:
        nobody = pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("no user nobody on this system")
    seen = subprocess.run(["/usr/bin/python3", "-I", "-c", PEEK, *map(str, written)], capture_output=True, text=True,
                          user=nobody.pw_uid, group=nobody.pw_gid, extra_groups=[], timeout=60, check=True)
    assert seen.stdout.splitlines() == [f"DENIED {p}" for p in written], seen.stdout


def test_a_notebook_changed_after_the_deadline_is_late_whatever_its_modification_time(tmp_path):
    """touch -d 2020-01-01 sets the modification time back, but the change time (which no user can set) stays the
    present: the edit after the deadline is late. A file untouched since before the deadline is on time."""
    homes = tmp_path / "home"
    forged = _notebook(homes, "mallory", b'{"late": 1}', datetime(2020, 1, 1, tzinfo=UTC))
    _notebook(homes, "alice", b'{"alice": 1}', datetime(2020, 1, 1, tzinfo=UTC))
    changed = datetime.fromtimestamp(forged.stat().st_ctime, UTC)
    assert forged.stat().st_mtime < changed.timestamp() - 3600  # what the student set, and what they could not
    rows = _manifest(collect(L3, homes, tmp_path / "submitted", deadline=changed - timedelta(seconds=1)).manifest)
    assert (rows["mallory"]["status"], rows["mallory"]["late"]) == ("late", "yes")
    assert rows["mallory"]["modified"] == changed.isoformat(timespec="seconds")
    rows = _manifest(collect(L3, homes, tmp_path / "submitted", deadline=changed + timedelta(hours=1)).manifest)
    assert (rows["mallory"]["status"], rows["alice"]["status"]) == ("collected", "collected")

