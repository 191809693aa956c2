"""Files written whole or not at all: ``write_whole`` writes a temporary file in the target's folder, flushes it to
disk and renames it over the target (``os.replace``, atomic on one file system), so a reader, a crash or a full disk
never leaves half a file, and an earlier file stays as it was until the new one is complete."""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path


def write_whole(path: str | Path, data: bytes | str, mode: int = 0o666) -> Path:
    """Write ``data`` (``str``: as UTF-8) to ``path`` atomically, as a new file of ``mode`` less the umask (``open``'s
    default: the umask's; 0o600: its owner's alone, whatever the umask). The temporary file, ``.NAME.RANDOM.partial``
    beside ``path``, is removed if anything fails."""
    path = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    temp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.partial")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), mode)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(payload)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    return path
