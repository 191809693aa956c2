"""Private by default: what the instructor's commands write (``collect``, ``grade``, ``release``) is theirs alone.

On a shared server the students are the other users: a manifest, a marks CSV, a journal, a feedback page or a solved
lesson that they can read gives away classmates' marks or the answers. So these commands run under umask 077
(``private_umask``, at the command line's entry: every folder they make is 0700 and every file 0600, whatever folder
they write into), the files they write are new files renamed into place (``write_private``: a file an earlier run left
with mode 644 is replaced, never rewritten in place; an export written by other code is closed after, ``close_file``),
and before any work each command warns, one line per folder, when a folder it writes into is open to another user
(``open_folders``): its files are still private, but their names (the students') can be listed. The one thing students
read, a handout, is handed out by copying it (see docs/instructor.md, *Releasing and collecting assignments*).
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path

from ..files import write_whole

PRIVATE_UMASK = 0o077  # group and others get nothing: folders 0700, files 0600
PRIVATE_FILE = 0o600


@contextlib.contextmanager
def private_umask() -> Iterator[None]:
    """Run the block under umask 077 (folders made 0700, files 0600), then restore the previous umask."""
    previous = os.umask(PRIVATE_UMASK)
    try:
        yield
    finally:
        os.umask(previous)


def write_private(path: Path, data: bytes | str) -> Path:
    """Write ``path`` whole as a new file of mode 0600 (``files.write_whole``: a temporary file beside it, renamed
    over it), so an earlier file at ``path`` is replaced whatever its mode was."""
    return write_whole(path, data, PRIVATE_FILE)


def close_file(path: Path) -> None:
    """Make ``path`` (a file this user wrote in place, e.g. over one an earlier run left with mode 644) mode 0600."""
    info = os.lstat(path)
    if stat.S_ISREG(info.st_mode) and info.st_uid == os.geteuid() and info.st_mode & 0o077:
        os.chmod(path, 0o600)


def private_folder(path: Path) -> Path:
    """``path`` as a folder of mode 0700: made so (with its missing parents) if it does not exist, and closed if an
    earlier run made it open (it is this user's, and open to group or others); a link is left as it is."""
    path = Path(path)
    for folder in [*reversed(path.parents), path]:
        if not os.path.lexists(folder):
            with contextlib.suppress(FileExistsError):
                folder.mkdir(mode=0o700)
            folder.chmod(0o700)  # whatever the umask of a caller outside the command line
    info = os.lstat(path)
    if stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid() and info.st_mode & 0o077:
        path.chmod(0o700)
    return path


def open_to_others(folder: Path) -> str:
    """Why another user can enter or list ``folder`` (e.g. "mode 755, root:root"), or "" if nobody but its owner
    (and root) can: judged as ``bleu_lab.hub.checks`` judges a student's access, for any user in none of its groups
    and for the other members of its group. A folder that does not exist yet is made private: ""."""
    try:
        from ..hub import checks as hub_checks
    except ImportError:  # no POSIX accounts (Windows): nothing to check
        return ""
    folder = Path(os.path.abspath(folder))
    try:
        info = folder.stat()
    except OSError:
        return ""
    who = [frozenset()]
    if _group_has_others(info.st_gid, info.st_uid):
        who.append(frozenset({info.st_gid}))
    for gids in who:
        with contextlib.suppress(OSError):
            if (hub_checks.refused_at(folder, hub_checks.SEARCH, gids) is None
                    or hub_checks.refused_at(folder, hub_checks.READ, gids) is None):
                return hub_checks.describe(folder)
    return ""


def _group_has_others(gid: int, owner: int) -> bool:
    """Whether a user other than ``owner`` is in the group ``gid`` (listed in it, or with it as primary group)."""
    import grp
    import pwd

    try:
        members = set(grp.getgrgid(gid).gr_mem)
    except KeyError:
        return False
    with contextlib.suppress(KeyError):
        members.discard(pwd.getpwuid(owner).pw_name)
    return bool(members) or any(user.pw_gid == gid and user.pw_uid != owner for user in pwd.getpwall())


def open_folders(folders: Iterable[tuple[str, Path]]) -> list[str]:
    """One warning per folder (``(what, folder)``: e.g. ``("--csv", Path("/srv/grading"))``) that another user can
    enter or list, with its fix; each folder once."""
    lines, seen = [], set()
    for what, folder in folders:
        folder = Path(os.path.abspath(folder))
        if folder in seen:
            continue
        seen.add(folder)
        why = open_to_others(folder)
        if why:
            lines.append(f"warning: {what} writes into {folder}, which other users can enter or list ({why}): the "
                         f"files written there are private (mode 600), but their names show; chmod 700 {folder}")
    return lines
