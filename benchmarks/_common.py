"""Shared helpers for the benchmarks: locating the WMT21 data, timing peers interleaved, and hiding from the processes
a bench measures the packages this (test) environment holds that an install of one of bleu_lab's extras lacks."""

from __future__ import annotations

import gc
import os
import statistics
import sys
import time
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parent.parent


def mtdata_dir() -> Path:
    """$BLEU_LAB_MTDATA or ../shared/mtdata beside the repo; exits with a message when absent."""
    candidates = [os.environ.get("BLEU_LAB_MTDATA"), str(REPO.parent / "shared" / "mtdata")]
    for c in candidates:
        if c and Path(c).is_dir():
            return Path(c)
    sys.exit("benchmarks need the WMT21 test sets: set BLEU_LAB_MTDATA to shared/mtdata")


def read_lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def wmt21_en_de(system: str = "Facebook-AI", refs: str = "ACD") -> tuple[list[str], list[list[str]]]:
    """Hypotheses and per-segment references of WMT21 en-de (1002 segments)."""
    d = mtdata_dir() / "en-de"
    hyps = read_lines(d / f"newstest2021.en-de.hyp.{system}.de")
    streams = [read_lines(d / f"newstest2021.en-de.ref.{r}.de") for r in refs]
    return hyps, [list(seg) for seg in zip(*streams)]


def interleaved_medians(contenders: dict[str, Callable[[], object]], rounds: int = 7) -> dict[str, float]:
    """Run each contender once per round, alternating, and return the median seconds of each."""
    times: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(rounds):
        for name, fn in contenders.items():
            gc.collect()
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(ts) for name, ts in times.items()}


def report(label: str, ours: float, peer: float, target: float, unit: str = "ms") -> bool:
    """Print one ratio line; return whether it meets the target."""
    ratio = ours / peer
    ok = ratio <= target
    scale = 1000 if unit == "ms" else 1 / 2**20
    print(f"{label:<58} bleu_lab {ours * scale:9.1f} {unit}  peer {peer * scale:9.1f} {unit}  "
          f"ratio {ratio:5.2f} (target <= {target})  {'OK' if ok else 'MISSED'}")
    return ok


ALWAYS_INSTALLED = {"pip", "setuptools"}  # in every venv; setuptools' .pth imports its _distutils_hack at every start


def extra_install(extras: tuple[str, ...], root: str = "bleu_lab") -> set[str]:
    """The distributions (canonical names) that ``pip install bleu_lab[extras]`` installs: the closure of its
    requirements over the distributions installed here, with their markers and extras evaluated."""
    installed = {canonicalize_name(d.metadata["Name"]): d for d in metadata.distributions()}
    seen: set[tuple[str, tuple[str, ...]]] = set()
    todo = [(canonicalize_name(root), extras)]
    while todo:
        name, wanted = todo.pop()
        if (name, wanted) in seen or name not in installed:
            continue
        seen.add((name, wanted))
        for line in installed[name].requires or []:
            requirement = Requirement(line)
            if any(requirement.marker is None or requirement.marker.evaluate({"extra": extra})
                   for extra in (*wanted, "")):
                todo.append((canonicalize_name(requirement.name), tuple(sorted(requirement.extras))))
    return {name for name, _ in seen}


def top_level_modules(dist: metadata.Distribution) -> set[str]:
    """The importable names a distribution installs into site-packages (packages and single modules)."""
    names = set()
    for file in dist.files or []:
        first = file.parts[0]
        if first.startswith("__"):  # __pycache__ of a single module
            continue
        if len(file.parts) > 1 and first.isidentifier():
            names.add(first)
        elif len(file.parts) == 1 and file.suffix == ".py" and file.stem.isidentifier():
            names.add(file.stem)
    return names


def not_installed(extras: tuple[str, ...]) -> dict[str, set[str]]:
    """The distributions installed here that ``bleu_lab[extras]`` does not install (the test extra's: pytest,
    playwright, scipy, ...), each with the modules it installs."""
    wanted = extra_install(extras) | ALWAYS_INSTALLED
    found: dict[str, set[str]] = {}
    for dist in metadata.distributions():
        name = canonicalize_name(dist.metadata["Name"])
        modules = top_level_modules(dist)
        if name not in wanted and modules:
            found[name] = modules
    return dict(sorted(found.items()))


def _not_found(module: str, extras: tuple[str, ...]) -> str:
    return f"No module named {module!r} (not in bleu_lab[{','.join(extras)}])"


def hidden_packages(folder: Path, extras: tuple[str, ...]) -> list[str]:
    """Write, in ``folder``, a stand-in for each module of ``not_installed(extras)``: importing it raises
    ModuleNotFoundError, as in an install of ``bleu_lab[extras]``. Return the distributions hidden. ``folder`` goes
    first on the PYTHONPATH of the processes measured."""
    hidden = not_installed(extras)
    for modules in hidden.values():
        for module in modules:
            (folder / f"{module}.py").write_text(
                f"raise ModuleNotFoundError({_not_found(module, extras)!r}, name={module!r})\n")
    return list(hidden)


def hiding_code(extras: tuple[str, ...]) -> tuple[str, list[str]]:
    """For processes that ignore PYTHONPATH (``python -I``, such as the grader's kernels): Python code which, run
    first, puts a finder at the head of ``sys.meta_path`` that refuses each module of ``not_installed(extras)`` as
    ``hidden_packages``' stand-ins do (it needs no file, so it works in a sandbox too). Returns the code and the
    distributions hidden."""
    hidden = not_installed(extras)
    refused = {module: _not_found(module, extras) for modules in hidden.values() for module in modules}
    code = ("import sys\n"
            "class NotInstalled:\n"
            f"    refused = {refused!r}\n"
            "    @classmethod\n"
            "    def find_spec(cls, name, path=None, target=None):\n"
            "        if name in cls.refused:\n"
            "            raise ModuleNotFoundError(cls.refused[name], name=name)\n"
            "sys.meta_path.insert(0, NotInstalled)\n")
    return code, list(hidden)
