"""The grader's own files and the batch's files stay as they were.

Before the first submission runs, the grader imports everything marking needs (``import_everything``), snapshots the
files it runs (``Snapshot``: bleu_lab, ``data/``, every folder on ``sys.path`` from the standard library on, the
interpreter) and guards any later import (``ImportGuard``). ``BatchFiles`` backs up and fingerprints every submitted
file, and restores any that a submission changed."""

from __future__ import annotations

import contextlib
import hashlib
import os
import random
import shutil
import stat
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from . import lesson_gradings, own_code
from .limits import private_root
from .marking import _wire_classes
from .sandbox import unmount_sockets
from .submissions import MAX_NOTEBOOK_MB, read_regular

PROTECTED_PACKAGES = ("bleu_lab", "data")  # beside the site-packages: this checkout's package and its data
SKIPPED_IN_STDLIB = ("site-packages", "test", "idlelib", "tkinter", "turtledemo", "ensurepip")


class TamperingError(RuntimeError):
    """The grader's own files changed while a submission ran (``when``), or a changed file was about to be imported:
    ``changed`` names them."""

    def __init__(self, when: str, changed: list[str]) -> None:
        super().__init__(f"{when}: {', '.join(changed[:5])}")
        self.when, self.changed = when, changed


@dataclass
class Snapshot:
    """What the grader and its kernels run: each file's size, inode and change time (a change time cannot be set
    back, so any write, rename or ``touch`` shows)."""

    files: dict[str, tuple[int, int, int]]
    roots: list[Path] = field(default_factory=list)

    @classmethod
    def take(cls) -> Snapshot:
        roots = protected_roots()
        return cls(dict(_walk_protected(roots)), roots)

    def changes(self, other: Snapshot) -> list[str]:
        """Files added, removed or changed since this snapshot (sorted). A new ``.pyc`` is not counted: another
        process on the machine may compile a module for the first time (kernels and the grader write none)."""
        if self.files == other.files:
            return []
        return sorted(path for path in self.files.keys() | other.files.keys()
                      if self.files.get(path) != other.files.get(path)
                      and not (path not in self.files and path.endswith(".pyc")))


class ImportGuard:
    """A ``sys.meta_path`` finder that lets no module be imported from a protected source file that changed (or
    appeared) since the snapshot: ``TamperingError`` instead. A ``.pyc`` that appeared since (another process may
    compile a module for the first time; a submission may forge one) is never read: the module is compiled from its
    checked source. The grader imports what marking needs before the first submission runs; this covers the rest."""

    def __init__(self, snapshot: Snapshot) -> None:
        self.files = {os.path.realpath(path): state for path, state in snapshot.files.items()}
        self.roots = [os.path.realpath(root) for root in snapshot.roots]

    def _state(self, path: str | None) -> str:
        """"same" as in the snapshot, "changed", "new" (in a protected folder, not in the snapshot) or "outside"."""
        if not path or not os.path.isabs(path):
            return "outside"
        real = os.path.realpath(path)
        try:
            st = os.lstat(real)
        except OSError:
            return "outside"
        if real in self.files:
            return "same" if self.files[real] == (st.st_size, st.st_ino, st.st_ctime_ns) else "changed"
        return "new" if any(real.startswith(root + os.sep) for root in self.roots) else "outside"

    def find_spec(self, name, path=None, target=None):
        import importlib.machinery

        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        if spec is None or not spec.has_location:
            return None  # the usual finders import it
        if self._state(spec.origin) in ("changed", "new"):
            raise TamperingError("a module about to be imported changed since the grader started", [spec.origin])
        cached = getattr(spec, "cached", None)
        state = self._state(cached) if cached and os.path.exists(cached) else "outside"
        if state == "changed":
            raise TamperingError("a module about to be imported changed since the grader started", [cached])
        if state == "new" and isinstance(spec.loader, importlib.machinery.SourceFileLoader):
            spec.loader = _SourceOnlyLoader(spec.loader.name, spec.loader.path)
            return spec
        return None

    def invalidate_caches(self) -> None:
        pass


def _source_only_loader_class():
    import importlib.machinery

    class SourceOnlyLoader(importlib.machinery.SourceFileLoader):
        """Compiles the module from its source, never from a ``.pyc``."""

        def get_code(self, fullname):
            return compile(self.get_data(self.path), self.path, "exec", dont_inherit=True)

    return SourceOnlyLoader


_SourceOnlyLoader = _source_only_loader_class()


def protected_roots() -> list[Path]:
    """The folders whose files the grading depends on: every folder on ``sys.path`` (site-packages, and what a
    ``.pth`` file adds), the standard library, this checkout's bleu_lab and data, and the interpreter."""
    import site
    import sysconfig

    package_root = Path(__file__).resolve().parent.parent.parent
    stdlib = sysconfig.get_paths()["stdlib"]
    # sys.path from the standard library on: what site adds (site-packages, and .pth files' folders), not the
    # script's folder or the working directory in front
    tail = sys.path[sys.path.index(stdlib):] if stdlib in sys.path else []
    roots = {Path(p) for p in [*site.getsitepackages(), *tail] if p and os.path.isabs(p) and Path(p).is_dir()}
    roots = {root for root in roots if not package_root.resolve().is_relative_to(root.resolve())}  # not the clone
    roots |= {Path(stdlib)}
    roots |= {package_root / name for name in PROTECTED_PACKAGES if (package_root / name).is_dir()}
    return sorted(roots)


def _warm_up() -> None:
    """Build now, once, what each notebook's worker (a fork of the grader) would otherwise build for itself:
    nbformat's validators (fastjsonschema compiles the notebook schema into code) and jupyter_client's list of kernel
    provisioners (read from the entry points of every installed package)."""
    import nbformat
    from jupyter_client.provisioning import KernelProvisionerFactory

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1", outputs=[nbformat.v4.new_output("stream")])])
    nbformat.validate(nbformat.reads(nbformat.writes(nb), as_version=4))
    KernelProvisionerFactory.instance()


def _walk_protected(roots: list[Path]):
    """(path, (size, inode, change time)) of every file under ``roots`` (of a symlink, the link's own: a linked
    folder is not entered), then of the interpreter: ``os.scandir`` once per folder and one ``lstat`` per file."""
    for root in roots:
        top = str(root)
        folders = [top]
        while folders:
            folder = folders.pop()
            try:
                entries = os.scandir(folder)
            except OSError:
                continue
            with entries:
                for entry in entries:
                    try:
                        is_folder = entry.is_dir()
                    except OSError:
                        is_folder = False
                    if is_folder and not entry.is_symlink():
                        # The stdlib's own site-packages and tests are not on a venv's path.
                        if not (folder == top and entry.name in SKIPPED_IN_STDLIB):
                            folders.append(entry.path)
                        continue
                    try:
                        st = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    yield entry.path, (st.st_size, st.st_ino, st.st_ctime_ns)
    exe = Path(sys.executable)
    for path in {exe, exe.resolve()}:
        st = os.lstat(path)
        yield str(path), (st.st_size, st.st_ino, st.st_ctime_ns)


BATCH_PREFIX = "bleu-lab-batch-"
OWNER_FILE = "owner"  # in a batch's temporary folder: the grader's PID and start time


def _owner(pid: int) -> str:
    """``"PID START"``: a process, told apart from a later one with the same PID by its start time (Linux)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat_line = f.read().decode("ascii", "replace")
        start = stat_line[stat_line.rfind(")") + 2:].split()[19]
    except (OSError, IndexError):
        start = "?"
    return f"{pid} {start}"


def _alive(owner: list[str]) -> bool:
    """Whether the process an owner file names still runs (the same process, where its start time is known)."""
    pid = int(owner[0])
    if len(owner) > 1 and owner[1] != "?":
        return _owner(pid).split() == owner
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def remove_dead_batches(folder: str | None = None) -> int:
    """Remove the temporary folders (``bleu-lab-batch-*``, this user's) of batches whose grader is dead (killed, or
    its machine restarted): their backups of submitted files and their notebooks' private folders. Only a folder whose
    owner file names a dead grader goes (one without it may be a batch starting now). How many went."""
    removed = 0
    for entry in Path(folder or private_root()).glob(BATCH_PREFIX + "*"):
        try:
            st = os.lstat(entry)
            if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
                continue
            owner = (entry / OWNER_FILE).read_text(encoding="ascii").split()
        except (OSError, ValueError):
            continue
        if not owner or not owner[0].isdigit() or _alive(owner):
            continue
        unmount_sockets(entry)  # its kernels' sockets folders, where the grader was root
        shutil.rmtree(entry, ignore_errors=True)
        removed += 1
    return removed


class BatchFiles:
    """Every submitted file of a batch, fingerprinted (type, SHA-256) and backed up in a private folder when first
    read; ``restore()`` after each submission puts back any that changed and names them."""

    def __init__(self, max_mb: float = MAX_NOTEBOOK_MB) -> None:
        # the notebooks' private folders go in it too: 0711, so that a kernel run as another user (sandbox.kernel_user)
        # reaches its own folder, whose random name it is given; nothing in it can be listed, the backups are 0600
        self.backup = Path(tempfile.mkdtemp(prefix=BATCH_PREFIX, dir=private_root()))
        self.backup.chmod(0o711)
        (self.backup / OWNER_FILE).write_text(_owner(os.getpid()), encoding="ascii")
        self.files: dict[Path, tuple[str, int, Path]] = {}
        self.max_mb = max_mb

    def digest(self, path: Path) -> str | None:
        """The SHA-256 of ``path`` as it was read (None if it could not be read)."""
        return self.files[path][0] if path in self.files else None

    def add(self, path: Path) -> None:
        """Read the file at ``path`` (``read_regular``: OSError or ValueError), back it up and fingerprint it."""
        data = read_regular(path, self.max_mb)
        copy = self.backup / str(len(self.files))
        with open(os.open(copy, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as f:
            f.write(data)
        self.files[path] = (hashlib.sha256(data).hexdigest(), stat.S_IMODE(os.lstat(path).st_mode), copy)

    def read(self, path: Path) -> bytes:
        """The bytes of ``path`` as they were when added (from the backup, checked against the fingerprint)."""
        digest, _, copy = self.files[path]
        data = copy.read_bytes()
        if hashlib.sha256(data).hexdigest() != digest:
            raise ValueError("its copy changed while the batch ran: not graded")
        return data

    def restore(self) -> list[Path]:
        """The files that changed since they were read (each now restored), in batch order."""
        changed = []
        for path, (digest, mode, copy) in self.files.items():
            try:
                now = hashlib.sha256(read_regular(path, self.max_mb)).hexdigest()
            except (OSError, ValueError):
                now = None
            if now == digest:
                continue
            changed.append(path)
            with contextlib.suppress(FileNotFoundError):
                if os.path.isdir(path) and not os.path.islink(path):
                    shutil.rmtree(path)
                else:
                    os.unlink(path)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), mode)
            with os.fdopen(fd, "wb") as f:
                f.write(copy.read_bytes())
        return changed

    def close(self) -> None:
        shutil.rmtree(self.backup, ignore_errors=True)


def _import_everything() -> None:
    """Import what marking (and the grader) needs now, before any submission runs, so that no file a submission
    could change is read later: every module of bleu_lab and sacrebleu (its tokenizers too), nltk's BLEU, numpy,
    nbclient and jupyter_client; then draw every lesson's hidden cases once."""
    import importlib
    import pkgutil

    import nbclient  # noqa: F401
    import nbformat  # noqa: F401
    import numpy  # noqa: F401
    from jupyter_client import AsyncKernelManager  # noqa: F401

    for top in ("sacrebleu", "nltk.translate", "bleu_lab"):
        try:
            package = importlib.import_module(top)
        except ImportError:
            continue
        for module in pkgutil.walk_packages(package.__path__, top + ".", onerror=lambda name: None):
            if module.name.endswith(".__main__") or top == "nltk.translate" and not module.name.endswith(
                    ("bleu_score", "api")):
                continue  # a command line that would run
            with contextlib.suppress(Exception):  # an optional tokenizer without its extra (ja-mecab ...)
                importlib.import_module(module.name)
    for name in ("fractions", "decimal", "statistics", "difflib", "unicodedata", "csv", "math", "re", "regex",
                 "nltk.translate.bleu_score", "json", "collections", "dataclasses"):
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    _warm_up()
    for grading in lesson_gradings().values():
        for exercise in grading.exercises:
            if exercise.hidden is not None:
                exercise.hidden(random.Random(0))
        own_code.overlay(grading)  # the stand-ins, from bleu_lab's files as they are now
    _wire_classes()
