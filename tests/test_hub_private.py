"""Private by default, checked (issue 36): bleu_lab.hub.checks on folders made for it, and a real JupyterHub with the
shipped jupyterhub_config.py and real local accounts (created with the guide's ``useradd`` and removed at the end,
as root; tests/hub_harness.py says what else the test swaps): homes and database private, a student's kernel
cannot read another's files, graded mode hands out no worked solutions, and the start check refuses, in one line
with its fix, a home other students can read, a Python they cannot run, an open state folder and readable
solutions in graded mode, a group the config names that does not exist, and a student whose primary group is
another's.

The hub test skips with a reason where it does not run as root (CI runs it as root, with BLEU_LAB_REQUIRE_HUB=1).
"""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import shutil
import sqlite3
import stat
import struct
import subprocess
import sys
import tempfile
import textwrap
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from bleu_lab.course import SOLUTIONS, course_files, course_root
from bleu_lab.course.handout import SCRATCH_CELL

hub_checks = pytest.importorskip("bleu_lab.hub.checks", reason="POSIX accounts and permissions (pwd, grp)")
hub_harness = pytest.importorskip("hub_harness", reason="tests/hub_harness.py needs psutil and requests")

NOBODY = frozenset()  # a student in none of the files' groups


@pytest.fixture
def open_dir() -> Iterator[Path]:
    """A folder every user can reach (pytest's own tmp_path sits in a folder only its owner can enter)."""
    folder = Path(tempfile.mkdtemp(prefix="bleu-lab-hub-checks-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def make(path: Path, permissions: int, text: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(permissions)
    return path


# --- bleu_lab.hub.checks on folders made for it ------------------------------------------------------------------


def test_a_python_under_a_private_folder_is_named_with_its_fix(open_dir):
    """The issue's failure: the hub's environment under /root (mode 700), so every student's server failed."""
    python = make(open_dir / "root" / "venv" / "bin" / "python", 0o755)
    (open_dir / "root").chmod(0o700)
    assert hub_checks.usable_problems("the hub's Python", python, hub_checks.SEARCH, NOBODY) == [
        f"students cannot use the hub's Python {python}: {open_dir / 'root'} ({hub_checks.describe(open_dir / 'root')})"
        f" does not let them in; chmod o+x {open_dir / 'root'}, or install the hub's environment where students can "
        "reach it (e.g. /opt/bleu-lab-hub)"]
    (open_dir / "root").chmod(0o755)
    assert hub_checks.usable_problems("the hub's Python", python, hub_checks.SEARCH, NOBODY) == []
    python.chmod(0o700)  # the file itself
    [line] = hub_checks.usable_problems("the hub's Python", python, hub_checks.SEARCH, NOBODY)
    assert line.endswith(f"does not let them in; chmod o+x {python}")
    python.chmod(0o705)  # others may run it, but a student in its group gets the group's bits: none
    in_group = frozenset({python.stat().st_gid})
    [line] = hub_checks.usable_problems("the hub's Python", python, hub_checks.SEARCH, in_group)
    assert line.endswith(f"does not let them in; chmod g+x {python}")
    python.chmod(0o700)
    link = open_dir / "python-link"  # a link is judged where it leads
    link.symlink_to(python)
    assert hub_checks.refused_at(link, hub_checks.SEARCH, NOBODY) == python


def test_an_unreadable_file_of_bleu_lab_is_named_with_the_count(open_dir):
    package = open_dir / "bleu_lab"
    for name in ("a.py", "b.py", "c.py"):
        make(package / name, 0o644)
    (package / "gone.py").symlink_to(package / "nowhere.py")  # a file that went away while the check walked
    assert hub_checks.tree_problems("bleu_lab", package, NOBODY) == []
    (package / "b.py").chmod(0o600)
    (package / "c.py").chmod(0o600)
    [line] = hub_checks.tree_problems("bleu_lab", package, NOBODY)
    assert line.startswith(f"students cannot read bleu_lab: {package / 'b.py'} (mode 600, ")
    assert line.endswith(f" and 1 more; chmod -R o+rX {package}")
    # a skipped folder (the solutions, closed on purpose for graded work) is not visited
    make(package / "solutions" / "s.py", 0o600)
    (package / "b.py").chmod(0o644), (package / "c.py").chmod(0o644)
    assert hub_checks.tree_problems("bleu_lab", package, NOBODY, skip=[package / "solutions"]) == []
    assert hub_checks.tree_problems("bleu_lab", package, NOBODY) != []


def test_homes_are_open_when_another_student_can_enter_or_list_them(open_dir):
    home = open_dir / "home" / "alice"
    home.mkdir(parents=True)
    owner = pwd.getpwuid(os.getuid()).pw_name
    for permissions, is_open in ((0o755, True), (0o711, True), (0o704, True), (0o700, False), (0o750, False)):
        home.chmod(permissions)
        problems = hub_checks.home_problems({"alice": home}, NOBODY)
        assert bool(problems) == is_open, oct(permissions)
        if is_open:
            assert problems == [f"alice's home {home} is open to other students ({hub_checks.describe(home)}): "
                                f"chmod 700 {home}"]
    # 750 with the students' group as the home's group (useradd -g students): open to every student
    home.chmod(0o750)
    assert hub_checks.home_problems({"alice": home}, frozenset({home.stat().st_gid}))
    assert hub_checks.describe(home).startswith(f"mode 750, {owner}:")  # as ls -l shows the owner


def test_the_state_folder_and_the_solutions_must_be_closed(open_dir):
    state = open_dir / "state"
    make(state / "jupyterhub.sqlite", 0o600)
    state.chmod(0o755)
    assert hub_checks.private_problems("the hub's state folder", state, NOBODY) == [
        f"students can read the hub's state folder {state} ({hub_checks.describe(state)}): chmod 700 {state}"]
    assert hub_checks.describe(state).startswith("mode 755, ")
    state.chmod(0o700)
    assert hub_checks.private_problems("the hub's state folder", state, NOBODY) == []
    solutions = open_dir / "course" / "notebooks" / "solutions"
    make(solutions / "01_clip.py", 0o644, "answer = 1\n")
    problems = hub_checks.private_problems("the worked solutions (graded work)", solutions, NOBODY, "FIX")
    assert len(problems) == 1 and problems[0].endswith(": FIX")
    solutions.chmod(0o711)  # the folder cannot be listed, but a file whose name is known can be read
    [line] = hub_checks.private_problems("the worked solutions (graded work)", solutions, NOBODY, "FIX")
    assert f"{solutions} (mode 711, " in line
    solutions.chmod(0o700)  # as the guide says (chmod -R go-rwx)
    assert hub_checks.private_problems("the worked solutions (graded work)", solutions, NOBODY) == []


def test_the_database_is_made_private_and_sqlite_takes_the_empty_file(open_dir):
    database = open_dir / "jupyterhub.sqlite"
    hub_checks.private_database(database)
    assert mode(database) == 0o600 and database.stat().st_size == 0
    with contextlib.closing(sqlite3.connect(database)) as db:
        db.execute("create table users (name text)")
        db.execute("insert into users values ('ada')")
        db.commit()
    assert mode(database) == 0o600
    database.chmod(0o644)  # a database an earlier hub created with the default umask
    hub_checks.private_database(database)
    assert mode(database) == 0o600
    with contextlib.closing(sqlite3.connect(database)) as db:
        assert db.execute("select name from users").fetchall() == [("ada",)]


def test_a_missing_group_has_no_homes_to_check_and_stops_the_start():
    """Issue 44: the config's `instructors` group missing made every login fail (HTTP 500, KeyError in the log)."""
    missing = "bleu-lab-no-such-group-" + uuid.uuid4().hex[:8]
    assert hub_checks.group_members(missing) == (frozenset(), {})
    assert hub_checks.group_problems({missing: "the instructors', hub admins"}) == [
        f"the group {missing!r} (the instructors', hub admins) does not exist, so every login would fail (PAM's "
        f"getgrnam({missing!r}) raises KeyError): groupadd {missing}, then add its members (usermod -aG {missing} "
        "LOGIN)"]
    assert hub_checks.group_problems({hub_harness.no_homes_group(): "the students'"}) == []


def test_students_with_a_shared_primary_group_or_an_acl_are_found(open_dir):
    """Issue 44: `useradd -g users -G students -K HOME_MODE=0750` passed the start check, yet one student read
    another's home; so does an ACL entry (setfacl -m u:bob:rx). Each is a real account, and the other student really
    lists the home before the check names it."""
    if os.geteuid() != 0 or shutil.which("useradd") is None:
        pytest.skip("creates local accounts (useradd): needs root (CI runs it as root)")
    suffix = uuid.uuid4().hex[:6]
    students, shared, amy, bob = f"blt{suffix}", f"blt{suffix}u", f"blt{suffix}a", f"blt{suffix}b"
    homes = open_dir / "home"
    homes.mkdir(mode=0o755)
    with hub_harness.accounts_removed([amy, bob], [students, shared]):
        for group in (students, shared):
            subprocess.run(["groupadd", group], check=True, capture_output=True)
        for name in (amy, bob):  # the set-up: one primary group for all, homes 750
            subprocess.run(["useradd", "--create-home", "--home-dir", str(homes / name), "-g", shared, "-G", students,
                            "-K", "HOME_MODE=0750", "--shell", "/bin/sh", name], check=True, capture_output=True)
        gids, members = hub_checks.group_members(students)
        groups_of = hub_checks.student_groups(members)

        def bob_lists_amys_home() -> bool:
            entry = pwd.getpwnam(bob)
            done = subprocess.run(["/usr/bin/python3", "-I", "-c", f"import os; os.listdir({str(homes / amy)!r})"],
                                  user=entry.pw_uid, group=entry.pw_gid, extra_groups=list(groups_of[bob]),
                                  capture_output=True, timeout=60)
            return done.returncode == 0

        assert bob_lists_amys_home()
        assert hub_checks.home_problems(members, gids) == []  # the students' group alone: what the check saw before
        assert hub_checks.home_problems(members, gids, groups_of) == [
            f"{name}'s home {homes / name} is open to other students through its group {shared} (mode 750, "
            f"{name}:{shared}; {other} in it): chmod 700 {homes / name}, and give each student a group of their own "
            f"(useradd without -g {shared}: USERGROUPS_ENAB yes, Debian's default)"
            for name, other in ((amy, bob), (bob, amy))]
        for name in (amy, bob):
            (homes / name).chmod(0o700)
        assert not bob_lists_amys_home() and hub_checks.home_problems(members, gids, groups_of) == []
        # setfacl -m u:bob:rx ~amy, written as the kernel keeps it (linux/posix_acl_xattr.h)
        entries = [(0x01, 7, 0xFFFFFFFF), (0x02, 5, pwd.getpwnam(bob).pw_uid), (0x04, 0, 0xFFFFFFFF),
                   (0x10, 5, 0xFFFFFFFF), (0x20, 0, 0xFFFFFFFF)]
        try:
            os.setxattr(homes / amy, hub_checks.ACL_XATTR,
                        struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *e) for e in entries))
        except OSError as err:
            pytest.skip(f"no ACLs on this file system ({err.strerror})")
        assert hub_checks.acl_entries(homes / amy) == entries
        assert bob_lists_amys_home()
        assert hub_checks.home_problems(members, gids, groups_of) == [
            f"{amy}'s home {homes / amy} is open to other students through its access control list (user:{bob}:r-x):"
            f" setfacl -b {homes / amy}, then chmod 700 {homes / amy}"]


# --- a real hub, real accounts -----------------------------------------------------------------------------------


@contextlib.contextmanager
def local_accounts(group: str, names: tuple[str, ...], homes: Path) -> Iterator[None]:
    """The students' group and accounts, created as the guide's recipe does (private homes: HOME_MODE 0700), and
    removed at the end (with their homes), whatever happens in between."""
    with hub_harness.accounts_removed(list(names), [group]):
        subprocess.run(["groupadd", group], check=True, capture_output=True)
        for name in names:
            subprocess.run(["useradd", "--create-home", "--home-dir", str(homes / name), "-K", "HOME_MODE=0700",
                            "--groups", group, "--shell", "/bin/sh", name], check=True, capture_output=True)
        yield


def require_root_hub() -> None:
    hub_harness.require_hub()
    if os.geteuid() != 0:
        pytest.skip("creates local accounts (useradd) and runs each student's server as its student: needs root "
                    "(CI runs it as root)")
    missing = [tool for tool in ("useradd", "userdel", "groupadd", "groupdel") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"no {', '.join(missing)} on this machine (Debian's passwd package)")


KERNEL_PROBE = """\
import os
print("uid", os.getuid())
for path in {paths!r}:
    try:
        os.listdir(path) if os.path.isdir(path) else open(path, "rb").read(1)
        print("READ", path)
    except PermissionError:
        print("DENIED", path)
"""


def test_private_homes_database_and_graded_work_on_a_real_hub() -> None:
    require_root_hub()
    suffix = uuid.uuid4().hex[:6]
    group, ada, ben = f"blt{suffix}", f"blt{suffix}a", f"blt{suffix}b"
    base = Path(tempfile.mkdtemp(prefix="bleu-lab-hub-private-"))
    base.chmod(0o755)
    homes, state = base / "home", base / "hub"
    homes.mkdir(mode=0o755)
    state.mkdir(mode=0o700)
    solutions = course_root() / Path(SOLUTIONS).parent
    # the installed course's solutions are closed below: no other test's hub starts meanwhile
    exclusive = contextlib.ExitStack()
    exclusive.enter_context(hub_harness.course_files_lock(exclusive=True))
    solutions_mode = mode(solutions)
    try:
        bin_dir, env = hub_harness.reachable_environment(base)
        env["BLEU_LAB_STUDENTS_GROUP"] = group
        with local_accounts(group, (ada, ben), homes):
            assert mode(homes / ada) == mode(homes / ben) == 0o700  # useradd -K HOME_MODE=0700, as the guide says

            # Ada had the course, with its worked solutions, before graded work began; she changed one solution.
            ada_course = homes / ada / "bleu-lab-course"
            entry = pwd.getpwnam(ada)
            subprocess.run([str(bin_dir / "bleu-lab"), "lessons", str(ada_course)], user=entry.pw_uid,
                           group=entry.pw_gid, env={**env, "HOME": entry.pw_dir, "PATH": os.environ["PATH"]},
                           check=True, capture_output=True, timeout=120)
            (ada_course / "notebooks/solutions/01_clip.py").write_text("# Ada's own attempt\n")

            # The start check refuses, one line each with its fix: a home other students can enter...
            (homes / ben).chmod(0o755)
            refused = hub_harness.refused_start(state, bin_dir, env, local_users=True)
            assert refused.returncode != 0, refused.stdout[-3000:]
            assert (f"{ben}'s home {homes / ben} is open to other students (mode 755, {ben}:{ben}): chmod 700 "
                    f"{homes / ben}") in refused.stdout.splitlines()[-1]
            (homes / ben).chmod(0o700)
            # ...a Python they cannot reach (the issue's: every server start failed after a 120 s timeout)...
            closed = base / "closed"
            closed.mkdir(mode=0o700)
            closed_bin, closed_env = hub_harness.reachable_environment(closed, copy=True)
            refused = hub_harness.refused_start(state, closed_bin, {**env, **closed_env}, local_users=True)
            assert refused.returncode != 0, refused.stdout[-3000:]
            assert (f"students cannot use the hub's Python {closed_bin / 'python'}: {closed} (mode 700, root:root) "
                    f"does not let them in; chmod o+x {closed}, or install the hub's environment where students can "
                    "reach it (e.g. /opt/bleu-lab-hub)") in [line.strip() for line in refused.stdout.splitlines()]
            # ...a state folder they can enter, and, for graded work, worked solutions they can read.
            state.chmod(0o755)
            refused = hub_harness.refused_start(state, bin_dir, {**env, "BLEU_LAB_GRADED": "1"},
                                                 local_users=True)
            lines = [line.strip() for line in refused.stdout.splitlines()]
            assert refused.returncode != 0, refused.stdout[-3000:]
            assert f"students can read the hub's state folder {state} (mode 755, root:root): chmod 700 {state}" in lines
            assert [line for line in lines if line.startswith("students can read the worked solutions (graded work) ")
                    and line.endswith(f": chmod -R go-rwx {solutions} (as root; or delete the folder)")]
            assert not [line for line in lines if "home" in line]
            state.chmod(0o700)
            assert not list(state.glob("jupyterhub.sqlite*"))  # nothing created before the checks pass
            # Issue 44: a missing instructors' group (every login failed with HTTP 500) and a student whose primary
            # group is another's (useradd -g ... -K HOME_MODE=0750): refused, one line each with its fix.
            carl, missing = f"blt{suffix}c", f"blt{suffix}-no-such-group"
            with hub_harness.accounts_removed([carl], []):
                subprocess.run(["useradd", "--create-home", "--home-dir", str(homes / carl), "-g", ada, "--groups",
                                group, "-K", "HOME_MODE=0750", "--shell", "/bin/sh", carl], check=True,
                               capture_output=True)
                refused = hub_harness.refused_start(state, bin_dir, {**env, "BLEU_LAB_INSTRUCTORS_GROUP": missing},
                                                     local_users=True)
            lines = [line.strip() for line in refused.stdout.splitlines()]
            assert refused.returncode != 0, refused.stdout[-3000:]
            assert f"the group {missing!r} (the instructors', hub admins) does not exist, so every login would fail " \
                f"(PAM's getgrnam({missing!r}) raises KeyError): groupadd {missing}, then add its members (usermod " \
                f"-aG {missing} LOGIN)" in lines, refused.stdout[-3000:]
            opened = f"{carl}'s home {homes / carl} is open to other students through its group {ada} (mode 750, "
            assert [line for line in lines if line.startswith(f"{opened}{carl}:{ada}; {ada} in it): chmod 700")], lines

            # Graded work with the solutions closed as the guide says, one lesson at a time (lessons 0 and 1 out,
            # lesson 3 opening in 2999): the hub starts.
            solutions.chmod(0o700)
            released = base / "released.txt"
            released.write_text("00_start_here\n01_ngrams_and_clipping  # week 1\n"
                                "03_brevity_penalty 2999-01-01 09:00\n")
            released.chmod(0o644)
            graded = {**env, "BLEU_LAB_GRADED": "1", "BLEU_LAB_RELEASED": str(released)}
            with hub_harness.running_hub(state, local_users=True, env=graded, bin_dir=bin_dir) as hub:
                try:
                    check_running_hub(hub, homes, state, ada, ben, solutions)
                except BaseException:
                    print(hub.log()[-6000:])
                    raise
            assert hub.alive() == [], [(p.pid, p.cmdline()) for p in hub.alive()]
            check_collect_grade_and_return(base, homes, ada, ben)
    finally:
        solutions.chmod(solutions_mode)
        exclusive.close()
        shutil.rmtree(base, ignore_errors=True)
    assert not [name for name in (ada, ben) if hub_harness.account_exists(name)]  # the accounts are gone


def check_collect_grade_and_return(base: Path, homes: Path, ada: str, ben: str) -> None:
    """The runbook's last steps on the homes the hub made: collect lesson 0 (Ada put a link to /etc/shadow where her
    lesson was: refused, never followed), grade Ben's with feedback pages, return them: Ben's page lands in his
    home, owned by him; Ada gets none, and /etc/shadow is untouched."""
    lesson = "00_start_here"
    bleu_lab = str(Path(sys.executable).parent / "bleu-lab")
    ada_lesson = homes / ada / "bleu-lab-course" / "notebooks" / f"{lesson}.ipynb"
    ada_lesson.unlink()
    ada_lesson.symlink_to("/etc/shadow")
    os.lchown(ada_lesson, pwd.getpwnam(ada).pw_uid, pwd.getpwnam(ada).pw_gid)
    submitted, feedback = base / "course" / "submitted", base / "feedback"
    collected = subprocess.run([bleu_lab, "collect", lesson, "--homes", str(homes), "--to", str(submitted)],
                               capture_output=True, text=True, timeout=120)
    assert collected.returncode == 0, collected.stderr
    assert f"collected 1 notebooks of {lesson}" in collected.stdout, collected.stdout
    assert f"refused {ada}: " in collected.stdout and "is a link (never followed)" in collected.stdout
    assert [p.relative_to(submitted).parts[0] for p in submitted.glob(f"*/{lesson}/{lesson}.ipynb")] == [ben]
    graded = subprocess.run([bleu_lab, "grade", str(submitted / ben / lesson / f"{lesson}.ipynb"), "--seed", "7",
                             "--feedback", str(feedback)], capture_output=True, text=True, timeout=600)
    assert graded.returncode == 0, graded.stderr[-3000:]
    assert "score: 0 / 2" in graded.stdout  # the handed-out lesson, untouched
    returned = subprocess.run([bleu_lab, "collect", "--return", str(feedback), "--homes", str(homes)],
                              capture_output=True, text=True, timeout=120)
    assert returned.returncode == 0, returned.stderr
    page = homes / ben / "bleu-lab-course" / "feedback" / f"{lesson}.html"
    assert page.stat().st_uid == pwd.getpwnam(ben).pw_uid and "Score: 0 / 2" in page.read_text(encoding="utf-8")
    assert not (homes / ada / "bleu-lab-course" / "feedback").exists()
    assert ada_lesson.is_symlink() and os.readlink(ada_lesson) == "/etc/shadow"
    assert "<html" not in Path("/etc/shadow").read_text(encoding="utf-8", errors="replace")  # nothing written through


def check_running_hub(hub, homes: Path, state: Path, ada: str, ben: str, solutions: Path) -> None:
    students = {name: hub_harness.Student(hub, name) for name in (ada, ben)}
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(lambda s: (s.login(), s.start()), students.values()))
        list(pool.map(lambda s: s.wait_ready(), students.values()))
    assert "bleu_lab jupyterhub_config: checked: students can run" in hub.log()

    # The hub's state and database: root's only.
    assert mode(state) == 0o700 and mode(state / "jupyterhub.sqlite") == 0o600
    assert (state / "jupyterhub.sqlite").stat().st_size > 0  # JupyterHub's tables, in the file made private
    # Each home: the student's, private; the course in it belongs to the student (the copy ran as them).
    for name in (ada, ben):
        entry = pwd.getpwnam(name)
        assert mode(homes / name) == 0o700 and (homes / name).stat().st_uid == entry.pw_uid
        lesson = homes / name / "bleu-lab-course" / "notebooks" / "01_ngrams_and_clipping.ipynb"
        assert lesson.stat().st_uid == entry.pw_uid
        # graded work: the lessons as handed out (scratch cells in place of %load), no worked solutions
        text = lesson.read_text(encoding="utf-8")
        assert "%load" not in text and json.dumps(SCRATCH_CELL)[1:-1] in text
    assert not (homes / ben / "bleu-lab-course" / "notebooks" / "solutions").exists()
    # one lesson at a time: Ben, new to the course, got only the released lessons (and the playground)
    assert sorted(p.name for p in (homes / ben / "bleu-lab-course" / "notebooks").glob("*.ipynb")) == [
        "00_start_here.ipynb", "01_ngrams_and_clipping.ipynb", "compare_app.ipynb", "playground.ipynb"]
    assert "not released yet: 11 lessons" in hub.log()
    assert "released so far (" in hub.log() and "): 00_start_here, 01_ngrams_and_clipping" in hub.log()
    ada_solutions = homes / ada / "bleu-lab-course" / "notebooks" / "solutions"
    assert sorted(p.name for p in ada_solutions.iterdir()) == ["01_clip.py"]  # the one she changed stays
    assert (ada_solutions / "01_clip.py").read_text() == "# Ada's own attempt\n"
    assert "removed the worked solutions an earlier copy put here" in hub.log()
    assert "kept notebooks/solutions/01_clip.py (a worked solution that you changed" in hub.log()
    listing = {item["name"] for item in students[ben].contents("notebooks")["content"]}
    assert "solutions" not in listing and "01_ngrams_and_clipping.ipynb" in listing

    # Ben's kernel, running as Ben, reads his own lesson and nothing of Ada's, the hub's or the solutions.
    own = homes / ben / "bleu-lab-course" / "notebooks" / "01_ngrams_and_clipping.ipynb"
    a_solution = course_root() / next(p for p in course_files() if p.startswith("notebooks/solutions/"))
    others = [homes / ada, homes / ada / "bleu-lab-course" / "notebooks" / "03_brevity_penalty.ipynb",
              state / "jupyterhub.sqlite", solutions, a_solution]
    kernel = students[ben].server_api("POST", "api/kernels", data=json.dumps({"name": "python3"}))
    assert kernel.status_code == 201, kernel.text
    url = hub.url.replace("http", "ws", 1) + f"/user/{ben}/api/kernels/{kernel.json()['id']}/channels"
    code = textwrap.dedent(KERNEL_PROBE.format(paths=[str(own), *map(str, others)]))
    status, printed = hub_harness.run_async(hub_harness.execute(url, students[ben].token, code))
    assert status == "ok", printed
    lines = printed.splitlines()
    assert lines[0] == f"uid {pwd.getpwnam(ben).pw_uid}"
    assert lines[1:] == [f"READ {own}", *(f"DENIED {path}" for path in others)], printed


def test_start_problems_says_one_line_for_many_closed_course_files(open_dir):
    """Solutions closed for graded work (chmod 700) while the hub starts ungraded: one line, with the count."""
    course = open_dir / "course"
    files = [make(course / "notebooks" / "solutions" / f"0{i}.py", 0o644) for i in range(3)]
    make(course / "notebooks" / "00_start_here.ipynb", 0o644)
    (course / "notebooks" / "solutions").chmod(0o700)
    state = open_dir / "state"
    state.mkdir(mode=0o700)
    python = make(open_dir / "bin" / "python", 0o755)
    missing = "bleu-lab-no-such-group-" + uuid.uuid4().hex[:8]
    problems = hub_checks.start_problems(
        group=missing, python=python, scripts=[], package=course,
        course=[course / "notebooks" / "00_start_here.ipynb", *files], state=state, solutions=None)
    assert problems == [
        *hub_checks.group_problems({missing: "the students'"}),
        f"students cannot read bleu_lab: {course / 'notebooks' / 'solutions'} (mode 700, "
        f"{hub_checks.describe(course / 'notebooks' / 'solutions').split(', ')[1]}); chmod -R o+rX {course}",
        f"students cannot use the course file {files[0]}: {course / 'notebooks' / 'solutions'} "
        f"({hub_checks.describe(course / 'notebooks' / 'solutions')}) does not let them in; chmod o+x "
        f"{course / 'notebooks' / 'solutions'}, or install the hub's environment where students can reach it (e.g. "
        "/opt/bleu-lab-hub) (and 2 more course files)"]
    # graded: the closed solutions are what it asks for, and the course is the files a graded copy reads
    assert hub_checks.start_problems(
        group=hub_harness.no_homes_group(), python=python, scripts=[], package=course,
        course=[course / "notebooks" / "00_start_here.ipynb"], state=state, solutions=course / "notebooks" / "solutions"
    ) == []
