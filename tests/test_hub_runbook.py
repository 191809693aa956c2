"""The runbook of docs/instructor.md (*Runbook: a graded lesson on the hub*), followed as root (issue 44).

Its commands are read from the guide's table, so this test breaks when the runbook drifts, and run with bash as the
guide prints them, with these names swapped for ones of the test's own (the machine is shared): the groups
``students`` and ``instructors``, ``YOU``, ``/home`` (``useradd -b``, ``--homes``), ``/srv/bleu-lab-hub``,
``/srv/grading`` and ``/etc/bleu-lab``; ``HUB`` is a Python environment students can run (tests/hub_harness.py).
Not run: step 1's install (this checkout is the install), and step 6 is started through tests/hub_harness.py with the
environment step 6 sets (its addresses on 127.0.0.1), with the shipped PAM login: real accounts (step 3), real
passwords (step 4), logins through the hub's login form. Lesson 3 in graded mode, released alone (step 5b):

- the start refuses, one line each with its fix, while the instructors' group is missing and while a student made
  with ``useradd -g users ... -K HOME_MODE=0750`` shares a primary group with other students;
- ``bleu-lab hub check`` (the probe login) passes, and fails naming the fix for a lesson not handed out; with an
  instructor's token (a hub admin through the instructors' group) it deletes the hub's record of the probe too;
- each student gets lesson 3 only (and the playground and the comparison page);
- collect goes past a home whose lesson 3 is a Unix socket (Dan's, bound as himself) and one whose notebook's
  modification time is 1e15 s (Eve's, on a tmpfs mounted on her notebooks folder: ext4 stops at 2446): one manifest
  line each, the others collected; Bob, who saved after the deadline and set the file's time back to 2020, is late;
- step 8b's page, started as the runbook says, gets one mark by hand through its own form (then Ctrl-C): Amy's page,
  Moodle's total and notes (marks.csv) and Canvas's file all show it, with no grading again;
- collect, grade (with Canvas's import), mark, return, and ``bleu-lab release``: every file the instructor's commands
  wrote is mode 600 (folders 700) and none of it, nor the hub's state folder, is readable by any student, checked as
  the student's own account; each student's feedback page is in their home, theirs, and no other student can read it.

Skips where not root, or without configurable-http-proxy (CI: BLEU_LAB_REQUIRE_HUB=1 fails instead).
"""

from __future__ import annotations

import contextlib
import csv
import html
import json
import math
import os
import pwd
import re
import selectors
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urljoin

import pytest
import requests

from bleu_lab.assignments import lesson_gradings
from bleu_lab.assignments.gradebook import by_hand_column
from bleu_lab.course import course_root

hub_harness = pytest.importorskip("hub_harness", reason="tests/hub_harness.py needs psutil and requests")

GUIDE = hub_harness.REPO / "docs" / "instructor.md"
LESSON = "03_brevity_penalty"
ROW = re.compile(r"^\| (\d+b?)\. .*? \| `([^`]+)`.* \|$")


def runbook_steps(text: str) -> dict[str, str]:
    """The runbook table's commands by step ("1", "2", ..., "5b", ...), as the guide prints them (a row's first
    command: step 8b's cell goes on with what to do on your own machine)."""
    section = text.split("### Runbook: a graded lesson on the hub", 1)[1].split("\n### ", 1)[0]
    return {match[1]: match[2] for line in section.splitlines() if (match := ROW.match(line))}


def test_the_runbook_table_is_read():
    steps = runbook_steps(GUIDE.read_text(encoding="utf-8"))
    assert list(steps) == ["1", "2", "3", "4", "5", "5b", "6", "6b", "7", "8", "8b", "9"]
    assert steps["3"].startswith("while read -r s; do useradd --create-home -K HOME_MODE=0700 --groups students ")
    assert "bleu-lab hub check" in steps["6b"]
    assert steps["8b"] == "$HUB/bleu-lab mark /srv/grading/marks.csv.grades.json --port 8765"


def localised(command: str, names: dict[str, str]) -> str:
    """``command`` with the machine's names swapped for the test's (the module docstring)."""
    command = re.sub(r"\bstudents\b(?!\.txt)", names["students"], command)
    command = re.sub(r"\binstructors\b", names["instructors"], command)
    command = re.sub(r"\bYOU\b", names["you"], command)
    command = command.replace("useradd --create-home", f"useradd -b {names['homes']} --create-home")
    command = command.replace("--homes /home", f"--homes {names['homes']}")
    if "deadline" in names:  # the runbook's example deadline, swapped for the test's
        command = re.sub(r"--deadline \S+", f"--deadline {names['deadline']}", command)
    if "port" in names:  # the mark page's port, a free one (the machine is shared)
        command = re.sub(r"--port \d+", f"--port {names['port']}", command)
    for place in ("/srv/bleu-lab-hub", "/srv/grading", "/etc/bleu-lab"):
        command = command.replace(place, names["base"] + place)
    return command


def bash(command: str, cwd: Path, hub_bin: Path, env: dict[str, str], timeout: float = 600
         ) -> subprocess.CompletedProcess:
    """``command`` run by bash in ``cwd`` with HUB set as the runbook says (its exit status 0 asserted)."""
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", command], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env={**hub_harness.hub_environment(hub_bin, env), "HUB": str(hub_bin)})
    assert done.returncode == 0, f"{command}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def as_user(name: str, code: str) -> str:
    """What ``code`` prints, run by the system's Python as the account ``name`` (its own groups)."""
    entry = pwd.getpwnam(name)
    done = subprocess.run(["/usr/bin/python3", "-I", "-c", code], user=entry.pw_uid, group=entry.pw_gid,
                          extra_groups=os.getgrouplist(name, entry.pw_gid), capture_output=True, text=True,
                          timeout=60, cwd="/")
    assert done.returncode == 0, done.stderr
    return done.stdout


READABLE = """\
import json, os, sys
opened = []
for path in json.loads({paths!r}):
    try:
        os.listdir(path) if os.path.isdir(path) else open(path, "rb").read(1)
        opened.append(path)
    except OSError:
        pass
print(json.dumps(opened))
"""


def readable_by(name: str, paths: list[Path]) -> list[str]:
    """Which of ``paths`` the account ``name`` can list or read."""
    return json.loads(as_user(name, READABLE.format(paths=json.dumps([str(p) for p in paths]))))


@contextlib.contextmanager
def modes_restored(folder: Path):
    """The modes of ``folder`` and everything in it, put back at the end (step 5 closes the installed solutions)."""
    modes = {path: stat.S_IMODE(path.stat().st_mode) for path in [folder, *folder.rglob("*")]}
    try:
        yield
    finally:
        for path, mode in modes.items():
            with contextlib.suppress(FileNotFoundError):
                path.chmod(mode)


def test_the_runbook_as_root_lesson_3_graded():
    hub_harness.require_hub()
    if os.geteuid() != 0:
        pytest.skip("creates local accounts and groups (useradd, groupadd) and runs the hub's PAM login: needs root "
                    "(CI runs it as root)")
    missing = [tool for tool in ("useradd", "userdel", "groupadd", "groupdel", "usermod", "chpasswd", "bash")
               if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"no {', '.join(missing)} on this machine")
    steps = runbook_steps(GUIDE.read_text(encoding="utf-8"))
    tag = uuid.uuid4().hex[:6]
    base = Path(tempfile.mkdtemp(prefix="bleu-lab-runbook-"))
    base.chmod(0o755)
    homes, work = base / "home", base / "instructor"
    homes.mkdir(mode=0o755)
    work.mkdir(mode=0o700)
    names = {"students": f"blr{tag}s", "instructors": f"blr{tag}i", "you": f"blr{tag}y", "homes": str(homes),
             "base": str(base)}
    amy, bob, carl, dan, eve = (f"blr{tag}{letter}" for letter in "abcde")
    users = [names["you"], amy, bob, carl, dan, eve, f"blr{tag}p", f"blr{tag}q"]
    groups = [names["students"], names["instructors"]]
    solutions = course_root() / "notebooks" / "solutions"
    with contextlib.ExitStack() as stack:
        stack.callback(shutil.rmtree, base, ignore_errors=True)
        stack.enter_context(hub_harness.accounts_removed(users, groups))
        stack.enter_context(hub_harness.course_files_lock(exclusive=True))  # step 5 closes the installed solutions
        stack.enter_context(modes_restored(solutions))
        hub_bin, hub_env = hub_harness.reachable_environment(base / "python")

        def step(number: str, timeout: float = 600) -> subprocess.CompletedProcess:
            return bash(localised(steps[number], names), work, hub_bin, hub_env, timeout)

        # 1. (the install is this checkout) the hub's state folder and the grading folder, private
        install = steps["1"].split(" && ")
        assert install[0] == "/usr/bin/python3 -m venv /opt/bleu-lab-hub" and install[-1].startswith("install -d")
        bash(localised(install[-1], names), work, hub_bin, hub_env)
        state, grading = base / "srv" / "bleu-lab-hub", base / "srv" / "grading"
        assert stat.S_IMODE(state.stat().st_mode) == stat.S_IMODE(grading.stat().st_mode) == 0o700
        # 2.-4. the groups, you an instructor, the students' accounts and passwords
        subprocess.run(["useradd", "-b", str(homes), "--create-home", "-K", "HOME_MODE=0700", names["you"]],
                       check=True, capture_output=True)
        (work / "students.txt").write_text(f"{amy}\n{bob}\n{dan}\n{eve}\n")
        passwords = {name: "pw-" + uuid.uuid4().hex for name in (amy, bob, dan, eve)}
        (work / "passwords.txt").write_text("".join(f"{n}:{p}\n" for n, p in passwords.items()))
        for number in ("2", "3", "4", "5", "5b"):
            step(number)
        assert stat.S_IMODE((homes / amy).stat().st_mode) == 0o700
        assert not [p for p in [solutions, *solutions.rglob("*")] if p.stat().st_mode & 0o077]
        # 6. the environment step 6 gives the hub, and the config it starts
        start = localised(steps["6"], names)
        assert start.startswith(f"cd {state} && ")
        env = dict(re.findall(r"\b(BLEU_LAB_\w+)=(\S+)", start))
        assert env == {"BLEU_LAB_GRADED": "1", "BLEU_LAB_RELEASED": f"{base}/etc/bleu-lab/released.txt"}
        config = re.search(r'-f "\$\((.+)\)"$', start)[1]
        assert bash(config, work, hub_bin, hub_env).stdout.strip() == str(hub_harness.SHIPPED_CONFIG)
        env |= {**hub_env, "BLEU_LAB_STUDENTS_GROUP": names["students"],
                "BLEU_LAB_INSTRUCTORS_GROUP": names["instructors"]}

        # The start refuses, one line each with its fix: the instructors' group missing, and a student made with
        # the shared primary group the runbook's step 3 warns against (useradd -g users ... -K HOME_MODE=0750).
        subprocess.run(["useradd", "-b", str(homes), "--create-home", "-g", "users", "--groups", names["students"],
                        "-K", "HOME_MODE=0750", carl], check=True, capture_output=True)
        subprocess.run(["usermod", "-g", "users", amy], check=True, capture_output=True)
        (homes / amy).chmod(0o750)
        gone = f"blr{tag}-no-such-group"
        refused = hub_harness.refused_start(state, hub_bin, {**env, "BLEU_LAB_INSTRUCTORS_GROUP": gone},
                                            local_users=True, pam=True)
        lines = [line.strip() for line in refused.stdout.splitlines()]
        assert refused.returncode != 0, refused.stdout[-3000:]
        assert (f"the group {gone!r} (the instructors', hub admins) does not exist, so every login would fail (PAM's "
                f"getgrnam({gone!r}) raises KeyError): groupadd {gone}, then add its members (usermod -aG {gone} "
                "LOGIN)") in lines, lines
        for name, other in ((carl, amy), (amy, carl)):
            assert [line for line in lines if line.startswith(
                f"{name}'s home {homes / name} is open to other students through its group users (mode 750, "
                f"{name}:users; ") and f"{other}" in line and line.endswith(
                "(useradd without -g users: USERGROUPS_ENAB yes, Debian's default)")], lines
        subprocess.run(["userdel", "--remove", carl], check=True, capture_output=True)
        subprocess.run(["usermod", "-g", amy, amy], check=True, capture_output=True)
        (homes / amy).chmod(0o700)

        with hub_harness.running_hub(state, local_users=True, pam=True, env=env, bin_dir=hub_bin) as hub:
            try:
                during_class(hub, steps, names, homes, work, hub_bin, hub_env,
                             {name: passwords[name] for name in (amy, bob)}, tag)
            except BaseException:
                print(hub.log()[-6000:])
                raise
        assert hub.alive() == [], [(p.pid, p.cmdline()) for p in hub.alive()]

        # Dan's lesson 3 is a Unix socket (bound where the notebook goes, as himself); Eve's has a modification time
        # of 1e15 s, on a tmpfs mounted on her notebooks folder (64-bit times; ext4 stops at 2446).
        as_user(dan, SOCKET.format(folder=str(homes / dan / "bleu-lab-course" / "notebooks"), name=f"{LESSON}.ipynb"))
        no_tmpfs = far_future_notebook(eve, homes, stack)

        # 7.-9. collect, grade with Canvas's import, mark the written answers, return the feedback
        points = sum(e.points for e in lesson_gradings()[LESSON].exercises) + sum(
            1 for e in lesson_gradings()[LESSON].exercises if e.manual)
        (work / "gradebook.csv").write_text(
            "Student,ID,SIS User ID,SIS Login ID,Section,Lesson 3 (12345)\r\n"
            f"    Points Possible,,,,,{points}.00\r\n"
            f"Amy,1001,S1001,{amy},A,\r\nBob,1002,S1002,{bob},A,\r\n", encoding="utf-8")
        # The deadline passes after Amy's save; Bob then saves again and sets the file's modification time back to
        # 2020 (touch -d): its change time, which he cannot set, is after the deadline, so he is late.
        deadline = math.floor(time.time()) + 1
        while time.time() <= deadline:  # the clock passes the deadline (at most a second)
            time.sleep(0.05)
        mine = homes / bob / "bleu-lab-course" / "notebooks" / f"{LESSON}.ipynb"
        mine.write_bytes(mine.read_bytes())
        os.utime(mine, (1577836800, 1577836800))
        names["deadline"] = datetime.fromtimestamp(deadline, UTC).isoformat(timespec="seconds")
        collected = step("7")
        assert f"collected 2 notebooks of {LESSON}" in collected.stdout, collected.stdout
        # each of Dan's and Eve's notebooks costs only their own home: one line each, the others collected
        manifest = list(csv.DictReader((grading / f"{LESSON}-collected.csv").read_text(encoding="utf-8").splitlines()))
        assert sorted(row["student"] for row in manifest) == sorted({row["student"] for row in manifest})
        by_student = {row["student"]: row for row in manifest}
        assert {name: by_student[name]["status"] for name in (amy, bob, dan, eve)} == {
            amy: "collected", bob: "late", dan: "refused", eve: "nothing to collect" if no_tmpfs else "refused"}
        assert by_student[dan]["note"] == f"bleu-lab-course/notebooks/{LESSON}.ipynb: {LESSON}.ipynb is not a " \
            "regular file (a socket)", by_student[dan]
        assert no_tmpfs or "its modification time (1000000000000000 s after 1970) is out of range: not collected" in \
            by_student[eve]["note"], by_student[eve]
        assert f"  refused {dan}: " in collected.stdout
        step("8")
        feedback = {name: grading / "feedback" / name / f"{LESSON}.html" for name in (amy, bob)}
        assert f"Score: 2 / {points}" in feedback[amy].read_text(encoding="utf-8")  # the written answer waits
        stored = (grading / "marks.csv.grades.json").read_bytes()
        # 8b. one mark by hand, entered once on the page (its own form, as a browser posts it), then Ctrl-C
        names["port"] = str(hub_harness.free_port())
        saved = mark_on_the_page(localised(steps["8b"], names), work, hub_bin, hub_env, amy, "1")
        assert saved == f"Saved: {amy}, {LESSON}, {EXERCISE}: 1 / 1. Every export is written again.", saved
        assert (grading / "marks.csv.grades.json").read_bytes() == stored  # not graded again
        step("9")
        # an instructor's other command: the lessons for nbgrader, with the solutions filled in (release)
        bash(f"$HUB/bleu-lab release {base}/srv/release", work, hub_bin, hub_env)
        written = [grading, *grading.rglob("*"), base / "srv" / "release", *(base / "srv" / "release").rglob("*")]
        assert {p.relative_to(grading).parts[0] for p in written[1:] if p.is_relative_to(grading)} == {
            "submitted", f"{LESSON}-collected.csv", "marks.csv", "marks.csv.grades.json", "marks.csv.hand-marks.json",
            "feedback", "canvas-import.csv"}
        assert {p.relative_to(base / "srv" / "release").parts[0] for p in written if p.is_relative_to(
            base / "srv" / "release") and p != base / "srv" / "release"} >= {"solved", "student", "nbgrader"}
        assert [(str(p), oct(stat.S_IMODE(p.stat().st_mode))) for p in written
                if stat.S_IMODE(p.stat().st_mode) != (0o700 if p.is_dir() else 0o600)] == []
        marks = (grading / "canvas-import.csv").read_text(encoding="utf-8")
        assert "Lesson 3 (12345)" in marks and "1001" in marks and "1002" in marks
        page = {name: homes / name / "bleu-lab-course" / "feedback" / f"{LESSON}.html" for name in (amy, bob)}
        hub_state = [state, *state.rglob("*")]  # what the hub (step 6) wrote
        for name, other in ((amy, bob), (bob, amy), (dan, amy)):
            if name in page:
                assert page[name].stat().st_uid == pwd.getpwnam(name).pw_uid, page[name]
                assert readable_by(name, [page[name]]) == [str(page[name])]
            # checked as the student's own account: nothing of the instructor's, nothing of the other student's
            assert readable_by(name, [*written, *hub_state, homes / other, page[other]]) == []
        # Amy's mark by hand, entered once, is in every total: her page, Moodle's (marks.csv) and Canvas's
        assert f"Score: 3 / {points}" in page[amy].read_text(encoding="utf-8")  # my_brevity_penalty 2, written 1
        assert "not marked yet" not in page[amy].read_text(encoding="utf-8")
        assert f"Score: 0 / {points} after the late penalty" in page[bob].read_text(encoding="utf-8")
        canvas = {row[3]: row[5] for row in csv.reader(marks.splitlines()) if len(row) > 5}
        assert canvas[amy] == "3" and canvas[bob] == "0", marks
        rows = {row["student"]: row for row in csv.DictReader(
            (grading / "marks.csv").read_text(encoding="utf-8").splitlines())}
        assert (rows[amy][WRITTEN], rows[amy][f"{LESSON}: total"], rows[amy][f"{LESSON}: possible"]) == (
            "1", "3", str(points)), rows[amy]
        assert "to grade by hand" not in rows[amy]["notes"] and "to grade by hand" in rows[bob]["notes"], rows
        assert (rows[amy][f"{LESSON}: late"], rows[bob][f"{LESSON}: late"]) == ("no", "yes"), rows
        assert "Handed in on time: the notebook last changed before the deadline" in page[amy].read_text(
            encoding="utf-8")
        assert "Handed in late: the notebook last changed" in page[bob].read_text(encoding="utf-8")
    assert not [name for name in users if hub_harness.account_exists(name)]
    assert not [group for group in groups if hub_harness.group_exists(group)]
    if no_tmpfs:
        pytest.skip(f"all else passed; Eve's notebook at 1e15 s was not tried: {no_tmpfs}")


EXERCISE = "what BLEU would do without BP"  # lesson 3's written answer
WRITTEN = by_hand_column(LESSON, EXERCISE)
SOCKET = """\
import os, socket
os.makedirs({folder!r})
socket.socket(socket.AF_UNIX).bind(os.path.join({folder!r}, {name!r}))
"""
FAR_FUTURE = """\
import json, os
with open({path!r}, "w") as f:
    json.dump({{"cells": [], "metadata": {{}}, "nbformat": 4, "nbformat_minor": 5}}, f)
os.utime({path!r}, (1e15, 1e15))
print(os.stat({path!r}).st_mtime)
"""


def far_future_notebook(name: str, homes: Path, stack: contextlib.ExitStack) -> str:
    """As ``name``, lesson 3's notebook with a modification time of 1e15 s, on a tmpfs mounted (by root, unmounted
    by ``stack``) on their notebooks folder; why not ("" once done) where no tmpfs can be mounted."""
    folder = homes / name / "bleu-lab-course" / "notebooks"
    as_user(name, f"import os; os.makedirs({str(folder)!r})")
    entry = pwd.getpwnam(name)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size=4m,mode=0700,uid={entry.pw_uid},gid={entry.pw_gid}",
                              "bleu-lab-test", str(folder)], capture_output=True, text=True, timeout=60)
    if mounted.returncode != 0:
        return f"mount -t tmpfs on {folder}: {mounted.stderr.strip() or mounted.returncode}"
    stack.callback(subprocess.run, ["umount", str(folder)], capture_output=True, timeout=60)
    assert float(as_user(name, FAR_FUTURE.format(path=str(folder / f"{LESSON}.ipynb")))) == 1e15
    return ""


def mark_on_the_page(command: str, work: Path, hub_bin: Path, hub_env: dict[str, str], student: str,
                     mark: str) -> str:
    """Step 8b as an instructor does it: ``command`` serves the page; ``student``'s written answer gets ``mark``
    through the page's own form (its fields, posted as a browser does); then Ctrl-C. What the page says once saved."""
    page = subprocess.Popen(["bash", "-euo", "pipefail", "-c", command], cwd=work, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True,
                            env={**hub_harness.hub_environment(hub_bin, hub_env), "HUB": str(hub_bin)})
    try:
        address = printed_address(page, timeout=120)
        shown = requests.get(address, timeout=60)
        assert shown.status_code == 200, shown.text[:2000]
        [item] = re.findall(rf'<h2 id="title-(\d+)">{re.escape(student)}: ', shown.text)
        form = re.search(rf'<form method="post" action="(/mark)" id="answer-{item}">(.*?)</form>', shown.text, re.S)
        fields = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)">', form[2]))
        assert fields["item"] == item and address.endswith(f"token={fields['token']}"), fields
        saved = requests.post(urljoin(address, form[1]), data={**fields, "mark": mark}, timeout=300)  # then its 303
        assert saved.status_code == 200 and saved.history[0].status_code == 303, saved.text[:2000]
        said = re.search(r"Saved: [^<]*", saved.text)
        assert said, saved.text[:3000]
    finally:
        os.killpg(page.pid, signal.SIGINT)  # Ctrl-C in its terminal
        out, err = page.communicate(timeout=120)
    assert page.returncode == 0, (out, err)
    return html.unescape(said[0])


def printed_address(process: subprocess.Popen, timeout: float) -> str:
    """The page's address (with its token), as ``process`` prints it, waited for at most ``timeout`` seconds."""
    seen, deadline = b"", time.monotonic() + timeout
    with selectors.DefaultSelector() as ready:
        ready.register(process.stdout, selectors.EVENT_READ)
        while (left := deadline - time.monotonic()) > 0 and ready.select(left):
            chunk = os.read(process.stdout.fileno(), 65536)
            seen += chunk
            if found := re.search(rb"http://127\.0\.0\.1:\d+/\?token=[\w-]+", seen):
                return found[0].decode()
            if not chunk:
                break
    raise AssertionError(f"bleu-lab mark printed no address in {timeout:g} s: {seen.decode(errors='replace')}")


SOLVED = """\
import math


def my_brevity_penalty(r, c):
    if c == 0:
        return 0.0
    if c > r:
        return 1.0
    return math.exp(1 - r / c)
"""


def during_class(hub, steps: dict[str, str], names: dict[str, str], homes: Path, work: Path, hub_bin: Path,
                 hub_env: dict[str, str], passwords: dict[str, str], tag: str) -> None:
    """Steps 6b (the probe login) and the students' logins through the hub's login form (PAM)."""
    check = localised(steps["6b"], names)
    assert check.startswith("$HUB/bleu-lab hub check") and f"--lesson {LESSON}" in check
    probe = [f"--url {hub.url}", f"--group {names['students']}", f"--homes {homes}"]
    done = bash(f"{check} {' '.join(probe)} --probe blr{tag}p", work, hub_bin, hub_env, timeout=600)
    lines = done.stdout.splitlines()
    assert [line.split(":")[0] for line in lines] == ["ok"] * 7, done.stdout
    assert f"ok: {LESSON} opens in the probe's server (numbered lessons handed out: 1)" in lines
    assert lines[-1] == "ok: probe removed: server stopped, account and home removed", lines
    assert "imports bleu_lab, and enters none of the other 4 students' homes" in done.stdout
    assert not hub_harness.account_exists(f"blr{tag}p") and not (homes / f"blr{tag}p").exists()
    # the hub keeps the probe's name (no account, no server), which an instructor's token deletes
    you = hub_harness.Student(hub, names["you"], "pw-" + uuid.uuid4().hex)
    subprocess.run(["chpasswd"], input=f"{you.name}:{you.password}\n", text=True, check=True, capture_output=True)
    you.login()
    assert you.user_model()["admin"] is True  # a member of the instructors' group: a hub admin
    assert you.hub_api("GET", f"/users/blr{tag}p").status_code == 200
    # a lesson not handed out: the probe names the fix, and is removed all the same, with the hub's record
    failed = subprocess.run(
        [str(hub_bin / "bleu-lab"), "hub", "check", "--lesson", "04_putting_it_together", *" ".join(probe).split(),
         "--probe", f"blr{tag}q"], capture_output=True, text=True, timeout=600,
        env=hub_harness.hub_environment(hub_bin, {**hub_env, "JUPYTERHUB_API_TOKEN": you.token}))
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert (f"FAILED: a lesson in it: 04_putting_it_together was not handed out ({LESSON} was): in graded mode with "
            "BLEU_LAB_RELEASED, add it to the released file (the runbook's step 5b), or wait for its opening time"
            ) in failed.stdout.splitlines(), failed.stdout
    assert failed.stdout.splitlines()[-1] == ("ok: probe removed: server stopped, account and home removed, the "
                                              "hub's record deleted"), failed.stdout
    assert not hub_harness.account_exists(f"blr{tag}q") and you.hub_api("GET", f"/users/blr{tag}q").status_code == 404

    students = {name: hub_harness.Student(hub, name, password) for name, password in passwords.items()}
    for student in students.values():
        student.login()
        student.start()
        student.wait_ready()
        listing = sorted(item["name"] for item in student.contents("notebooks")["content"])
        assert [n for n in listing if n.endswith(".ipynb")] == [
            "03_brevity_penalty.ipynb", "compare_app.ipynb", "playground.ipynb"], listing
        lesson = student.contents(f"notebooks/{LESSON}.ipynb")["content"]
        if student.name == min(passwords):  # Amy answers exercise 1 (the worked solution's function); Bob nothing
            [skeleton] = [cell for cell in lesson["cells"] if "def my_brevity_penalty(r, c):" in cell["source"]
                          and "your code here" in cell["source"]]
            skeleton["source"] = SOLVED
        student.put_notebook(f"notebooks/{LESSON}.ipynb", lesson)  # saved, as a student's Ctrl+S
    wrong = hub_harness.Student(hub, next(iter(passwords)), "not-the-password")
    with pytest.raises(RuntimeError, match="HTTP 403"):
        wrong.login()


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-x", "-q"]))
