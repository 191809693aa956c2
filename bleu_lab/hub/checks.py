"""What a course hub on one server checks before it starts: students can run its Python and read bleu_lab and the
course; no student can read another's home, the hub's state or (for graded work) the worked solutions.

``jupyter-settings/jupyterhub_config.py`` calls ``start_problems`` when the hub starts and refuses to start on any
problem, printing each on one line with its fix. A missed one shows up late and badly: a Python under ``/root`` made
every student's server fail with "Permission denied" after a 120 s timeout, and Debian's ``useradd --create-home``
(mode 755) let one student's kernel read another's lessons.

Permissions are judged as the kernel judges them (POSIX mode bits, path resolution) for a student: a user who owns
none of these files and whose groups are ``gids`` (the students' group). To open a file, every folder on its way
must grant search (x) and the file read (r): the owner's bits apply to the owner, the group's to a member of the
file's group, the others' to everyone else. A home is judged for every other student with that student's own groups
(primary and supplementary, ``os.getgrouplist``): students created with a shared primary group (``useradd -g users``)
and homes of mode 750 are open to one another, whatever the students' group. A home's access control list
(``system.posix_acl_access``, what ``setfacl`` writes) is read too: an entry that lets another student or a group of
one in is a problem. Mandatory access control (SELinux, AppArmor) is not read, nor other files' ACLs.

A login also fails where a group the config names (the students', the instructors') does not exist: PAM's group
check raises ``KeyError: getgrnam(): name not found`` for every login, in the hub's log only. ``group_problems`` names
each missing group with the ``groupadd`` that fixes it.
"""

from __future__ import annotations

import grp
import importlib.util
import os
import pwd
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path

READ, SEARCH = 4, 1  # the r and x bits of one class (owner, group or others)
NO_USER = -1  # the student's uid: owner of none of the files checked


def allows(info: os.stat_result, want: int, gids: frozenset[int], uid: int = NO_USER) -> bool:
    """Whether a user ``uid`` with groups ``gids`` has all the permission bits ``want`` (READ | SEARCH) on a file
    with this ``stat``: the owner's bits for its owner, the group's for a member of its group, else the others'."""
    if info.st_uid == uid:
        bits = info.st_mode >> 6
    elif info.st_gid in gids:
        bits = info.st_mode >> 3
    else:
        bits = info.st_mode
    return bits & want == want


def refused_at(path: Path, want: int, gids: frozenset[int]) -> Path | None:
    """The first folder on the way to ``path`` that a student cannot search, or ``path`` itself if it lacks
    ``want``; None when a student can reach it with ``want``. Links are followed as the kernel follows them."""
    path = Path(os.path.abspath(path))
    for ways in (path.resolve(), path):  # where a link leads first: the file to fix
        for folder in reversed(ways.parents):
            if not allows(folder.stat(), SEARCH, gids):
                return folder
        if not allows(ways.stat(), want, gids):
            return ways
    return None


def describe(path: Path) -> str:
    """``path``'s mode, owner and group, as ``ls -ld`` shows them: "mode 700, root:root"."""
    info = path.stat()
    return f"mode {stat.S_IMODE(info.st_mode):o}, {_name(pwd.getpwuid, info.st_uid)}:{_name(grp.getgrgid, info.st_gid)}"


def _name(lookup, number: int) -> str:
    try:
        return lookup(number)[0]
    except KeyError:
        return str(number)


def usable_problems(what: str, path: Path, want: int, gids: frozenset[int]) -> list[str]:
    """One line if students cannot reach ``path`` with ``want`` (READ to read a file, SEARCH to run a binary,
    READ | SEARCH for a script or a folder), naming where they are stopped and the fix."""
    if not path.exists():
        return [f"{what} {path} does not exist: reinstall bleu_lab in the hub's environment"]
    blocked = refused_at(path, want, gids)
    if blocked is None:
        return []
    who = "g" if blocked.stat().st_gid in gids else "o"  # the class of bits that applies to a student
    if blocked.is_dir() and blocked not in (path, path.resolve()):
        fix = (f"chmod {who}+x {blocked}, or install the hub's environment where students can reach it (e.g. "
               "/opt/bleu-lab-hub)")
    else:
        fix = f"chmod {who}+{''.join(name for bit, name in ((READ, 'r'), (SEARCH, 'x')) if want & bit)} {blocked}"
    return [f"students cannot use {what} {path}: {blocked} ({describe(blocked)}) does not let them in; {fix}"]


def tree_problems(what: str, tree: Path, gids: frozenset[int], skip: Iterable[Path] = ()) -> list[str]:
    """One line if students cannot read every file of ``tree`` (and search its folders), naming the first such
    file and how many there are; folders in ``skip`` are not visited."""
    reach = usable_problems(what, tree, READ | SEARCH, gids)
    if reach:
        return reach
    skipped = {Path(os.path.abspath(p)) for p in skip}
    closed: list[Path] = []
    for folder, folders, files in os.walk(tree):
        here = Path(folder)
        folders[:] = sorted(f for f in folders if here / f not in skipped and f != "__pycache__")
        closed += [here / name for name in folders if not _allowed(here / name, READ | SEARCH, gids)]
        folders[:] = [f for f in folders if here / f not in closed]
        closed += [here / name for name in sorted(files) if not _allowed(here / name, READ, gids)]
    if not closed:
        return []
    more = f" and {len(closed) - 1} more" if len(closed) > 1 else ""
    return [f"students cannot read {what}: {closed[0]} ({describe(closed[0])}){more}; chmod -R o+rX {tree}"]


def _allowed(path: Path, want: int, gids: frozenset[int]) -> bool:
    """``allows`` for ``path``; a file that went away meanwhile (a cache, a log being rotated) is no problem."""
    try:
        return allows(path.stat(), want, gids)
    except FileNotFoundError:
        return True


def home_problems(homes: Mapping[str, Path], gids: frozenset[int],
                  groups_of: Mapping[str, frozenset[int]] | None = None) -> list[str]:
    """One line for each home that another student can enter or list (mode 700 keeps them out, unless an ACL lets
    one in): a student in none of its groups but ``gids`` (the students' group), and each other student with their
    own groups, ``groups_of`` (``student_groups``)."""
    problems = []
    by_gid: dict[int, list[str]] = {}
    for other, theirs in sorted((groups_of or {}).items()):
        for gid in theirs:
            by_gid.setdefault(gid, []).append(other)
    for user, home in sorted(homes.items()):
        if not home.is_dir():
            continue
        if refused_at(home, SEARCH, gids) is None or refused_at(home, READ, gids) is None:
            problems.append(f"{user}'s home {home} is open to other students ({describe(home)}): chmod 700 {home}")
            continue
        group = home.stat().st_gid
        mates = [other for other in by_gid.get(group, []) if other != user]
        if mates and _group_bits(home) & (READ | SEARCH) and refused_at(home.parent, SEARCH, (groups_of or {})[
                mates[0]]) is None:
            name = _name(grp.getgrgid, group)
            problems.append(f"{user}'s home {home} is open to other students through its group {name} "
                            f"({describe(home)}; {_some(mates)} in it): chmod 700 {home}, and give each student a "
                            f"group of their own (useradd without -g {name}: USERGROUPS_ENAB yes, Debian's default)")
            continue
        let_in = _acl_lets_in(home, user, groups_of or {}, by_gid)
        if let_in:
            problems.append(f"{user}'s home {home} is open to other students through its access control list "
                            f"({let_in}): setfacl -b {home}, then chmod 700 {home}")
    return problems


def _group_bits(path: Path) -> int:
    """The permission bits (r 4, w 2, x 1) that ``path`` grants a member of its group: the mode's group bits, or,
    where it has an ACL (whose mask the mode's group bits then show), the owning group's entry within the mask."""
    entries = acl_entries(path)
    if not entries:
        return (path.stat().st_mode >> 3) & 7
    mask = next((perm for tag, perm, _ in entries if tag == ACL_MASK), 7)
    return next((perm for tag, perm, _ in entries if tag == ACL_GROUP_OBJ), 0) & mask


def _some(names: list[str]) -> str:
    return ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")


ACL_XATTR = "system.posix_acl_access"
ACL_USER, ACL_GROUP_OBJ, ACL_GROUP, ACL_MASK = 0x02, 0x04, 0x08, 0x10  # tags of linux/posix_acl_xattr.h


def acl_entries(path: Path) -> list[tuple[int, int, int]]:
    """The access ACL of ``path`` as (tag, permission bits, id) entries, [] where it has none (or the system keeps
    none): the extended attribute's layout is linux/posix_acl_xattr.h's, a 4-byte version (2) then 8 bytes an entry
    (tag and permission as 16-bit, id as 32-bit, little-endian)."""
    import struct

    try:
        raw = os.getxattr(path, ACL_XATTR)
    except (OSError, AttributeError):  # ENODATA (none), ENOTSUP (a file system without ACLs), not Linux
        return []
    if len(raw) < 4 or (len(raw) - 4) % 8 or struct.unpack_from("<I", raw)[0] != 2:
        return []
    return [struct.unpack_from("<HHI", raw, offset) for offset in range(4, len(raw), 8)]


def _acl_lets_in(home: Path, owner: str, groups_of: Mapping[str, frozenset[int]],
                 by_gid: Mapping[int, list[str]]) -> str:
    """The ACL entry of ``home`` that lets another student enter or list it ("user:bob:r-x"), or ""."""
    entries = acl_entries(home)
    mask = next((perm for tag, perm, _ in entries if tag == ACL_MASK), 7)
    for tag, perm, number in entries:
        if not perm & mask & (READ | SEARCH):
            continue
        if tag == ACL_USER:
            name = _name(pwd.getpwuid, number)
            if name != owner and name in groups_of:
                return f"user:{name}:{_rwx(perm & mask)}"
        elif tag in (ACL_GROUP, ACL_GROUP_OBJ):
            gid = home.stat().st_gid if tag == ACL_GROUP_OBJ else number
            mates = [other for other in by_gid.get(gid, []) if other != owner]
            if mates:
                return f"group:{_name(grp.getgrgid, gid)}:{_rwx(perm & mask)}, {_some(mates)} in it"
    return ""


def _rwx(perm: int) -> str:
    return "".join(letter if perm & bit else "-" for bit, letter in ((4, "r"), (2, "w"), (1, "x")))


def private_problems(what: str, folder: Path, gids: frozenset[int], fix: str = "") -> list[str]:
    """One line if students can enter or list ``folder`` (nothing under a folder they can neither enter nor list is
    theirs to read, so the folder's mode decides; a folder they can only enter still opens every file whose name
    they guess)."""
    if not folder.exists() or (refused_at(folder, READ, gids) and refused_at(folder, SEARCH, gids)):
        return []
    return [f"students can read {what} {folder} ({describe(folder)}): {fix or f'chmod 700 {folder}'}"]


def private_database(path: Path) -> None:
    """Make the hub's SQLite database readable by its owner only (mode 600): created empty with that mode if it
    does not exist yet (SQLite takes an empty file as an empty database, and gives its journal the database's
    mode), else chmod 600. JupyterHub itself creates it with the process's umask, 644 by default."""
    if not path.exists():
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    os.chmod(path, 0o600)


def group_members(group: str) -> tuple[frozenset[int], dict[str, Path]]:
    """The group's id (in a set: a student's groups, as the checks take them) and the home of each member (listed
    in the group, or with it as their primary group); nothing when the group does not exist."""
    try:
        entry = grp.getgrnam(group)
    except KeyError:
        return frozenset(), {}
    homes = {}
    for user in pwd.getpwall():
        if user.pw_gid == entry.gr_gid or user.pw_name in entry.gr_mem:
            homes[user.pw_name] = Path(user.pw_dir)
    return frozenset({entry.gr_gid}), homes


def student_groups(homes: Mapping[str, Path]) -> dict[str, frozenset[int]]:
    """Each student's groups, primary and supplementary (``os.getgrouplist``), by login."""
    found = {}
    for user in homes:
        try:
            entry = pwd.getpwnam(user)
            found[user] = frozenset(os.getgrouplist(user, entry.pw_gid))
        except (KeyError, OSError):
            continue
    return found


def group_problems(groups: Mapping[str, str]) -> list[str]:
    """One line for each group the config names (``{name: what it is for}``) that does not exist, with its fix."""
    problems = []
    for name, role in groups.items():
        try:
            grp.getgrnam(name)
        except KeyError:
            problems.append(f"the group {name!r} ({role}) does not exist, so every login would fail (PAM's "
                            f"getgrnam({name!r}) raises KeyError): groupadd {name}, then add its members "
                            f"(usermod -aG {name} LOGIN)")
    return problems


def start_problems(*, group: str, python: Path, scripts: Iterable[Path], package: Path, course: Iterable[Path],
                   state: Path, solutions: Path | None, other_groups: Mapping[str, str] | None = None) -> list[str]:
    """Everything that must hold before a hub for the members of ``group`` starts, one line per problem (empty:
    start). ``group`` and ``other_groups`` (``{name: what it is for}``, e.g. the instructors') must exist;
    ``python`` and ``scripts`` run as the student (the start command); ``package`` (bleu_lab's folder) and the
    ``course`` files are read by the student; no student's home may be open to another (``home_problems``); ``state``
    (the hub's database, cookie secret and log) must be private; ``solutions`` (graded work only) must be unreadable
    by students."""
    problems = group_problems({group: "the students'", **(other_groups or {})})
    gids, homes = group_members(group)
    problems += usable_problems("the hub's Python", python, SEARCH, gids)
    for script in scripts:
        problems += usable_problems("the hub's command", script, READ | SEARCH, gids)
    problems += tree_problems("bleu_lab", package, gids, skip=[solutions] if solutions else [])
    course_problems = [line for path in course for line in usable_problems("the course file", path, READ, gids)]
    if course_problems:  # one line: a closed folder (e.g. the solutions, closed for graded work) closes many files
        more = f" (and {len(course_problems) - 1} more course files)" if len(course_problems) > 1 else ""
        problems.append(course_problems[0] + more)
    problems += home_problems(homes, gids, student_groups(homes))
    problems += private_problems("the hub's state folder", state, gids)
    if solutions is not None:
        problems += private_problems("the worked solutions (graded work)", solutions, gids,
                                     f"chmod -R go-rwx {solutions} (as root; or delete the folder)")
    return problems


def released_problems(path: Path, gids: frozenset[int]) -> list[str]:
    """One line each if students cannot read the released lessons' file (each student's start command reads it) or
    could change it, and so release a lesson themselves: neither it nor a folder above it may be writable by others
    (a sticky folder such as /tmp excepted) or by the students' group, or belong to a student."""
    problems = usable_problems("the released lessons' file", path, READ, gids)
    for where in (path, *path.resolve().parents):
        info = where.stat()
        sticky = where.is_dir() and info.st_mode & stat.S_ISVTX
        if (info.st_mode & 0o002 and not sticky) or (info.st_mode & 0o020 and info.st_gid in gids):
            problems.append(f"students could change the released lessons' file {path}: {where} ({describe(where)}) "
                            f"is writable by them; chmod go-w {where}")
            break
        if info.st_uid != 0 and _a_student(info.st_uid, gids):
            problems.append(f"students could change the released lessons' file {path}: {where} belongs to a "
                            f"student ({describe(where)}); keep it in a folder of root's, e.g. /etc/bleu-lab")
            break
    return problems


def _a_student(uid: int, gids: frozenset[int]) -> bool:
    """Whether the user ``uid`` is in one of the students' groups ``gids``."""
    try:
        user = pwd.getpwuid(uid)
    except KeyError:
        return False
    return bool(gids & set(os.getgrouplist(user.pw_name, user.pw_gid)))


# What a student's server and its kernels import (their own and their dependencies' largest packages): each start
# compiles every module of these that has no up-to-date bytecode, where students cannot write it (into the hub's
# environment): 4.6 CPU s more per server start, measured (docs/instructor.md, "On a JupyterHub: what was measured").
SERVER_PACKAGES = ("bleu_lab", "jupyterhub", "jupyter_server", "jupyterlab", "voila", "nbconvert", "ipykernel",
                   "IPython", "ipywidgets", "tornado", "jinja2", "sqlalchemy", "numpy", "matplotlib", "nltk",
                   "sacrebleu")


def _bytecode_current(source: Path) -> bool:
    """Whether ``source`` has bytecode that Python would load as it is: the file ``importlib`` looks for, whose header
    records the source's modification time and size (or a hash, which is taken as current)."""
    try:
        with open(importlib.util.cache_from_source(str(source)), "rb") as cached:
            header = cached.read(16)
        info = source.stat()
    except OSError:
        return False
    flags = int.from_bytes(header[4:8], "little")
    return len(header) == 16 and header[:4] == importlib.util.MAGIC_NUMBER and (
        flags != 0 or (int.from_bytes(header[8:12], "little") == int(info.st_mtime) & 0xFFFFFFFF
                       and int.from_bytes(header[12:16], "little") == info.st_size & 0xFFFFFFFF))


def uncompiled_packages(names: Iterable[str] = SERVER_PACKAGES) -> dict[Path, int]:
    """The folders of the installed packages ``names`` with modules lacking current bytecode, and how many each."""
    missing = {}
    for name in names:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            continue
        for location in spec.submodule_search_locations:
            count = sum(not _bytecode_current(Path(folder) / file) for folder, _, files in os.walk(location)
                        for file in files if file.endswith(".py"))
            if count:
                missing[Path(location)] = count
    return missing


def bytecode_note(python: Path, names: Iterable[str] = SERVER_PACKAGES) -> str:
    """One line for the hub's log where the students' servers would compile modules at every start, with the command
    that compiles them once; empty where all have current bytecode (pip compiles what it installs)."""
    missing = uncompiled_packages(names)
    if not missing:
        return ""
    folders = " ".join(str(folder) for folder in sorted(missing))
    return (f"{sum(missing.values())} modules of the students' servers have no current bytecode (in "
            f"{', '.join(folder.name for folder in sorted(missing))}), so every server start compiles them again: "
            f"compile them once, as root: {python} -m compileall -q {folders}")
