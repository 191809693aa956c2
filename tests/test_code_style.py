"""The code stays ruff-clean (the same check a contributor runs: `ruff check .`)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def test_ruff_is_clean():
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if ruff is None:
        pytest.skip('ruff is not installed (pip install -e ".[test]")')
    result = subprocess.run([ruff, "check", "--output-format", "concise", "."], cwd=REPO, capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def _package_imports(path: Path) -> set[str]:
    """The bleu_lab modules a module imports at its top level (type-checking imports included)."""
    import ast

    package = "bleu_lab." + ".".join(path.relative_to(REPO / "bleu_lab").with_suffix("").parts)
    package = package.removesuffix(".__init__")
    base = package if path.name == "__init__.py" else package.rsplit(".", 1)[0]
    found = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        nodes = node.body if isinstance(node, ast.If) else [node]
        for stmt in nodes:
            if isinstance(stmt, ast.ImportFrom) and stmt.level:
                parts = base.split(".")
                parent = ".".join(parts[: len(parts) - stmt.level + 1])
                target = f"{parent}.{stmt.module}" if stmt.module else parent
                found.add(target)
            elif isinstance(stmt, ast.ImportFrom) and (stmt.module or "").startswith("bleu_lab"):
                found.add(stmt.module)
    return found


def test_the_package_has_no_import_cycles():
    graph = {}
    for path in (REPO / "bleu_lab").rglob("*.py"):
        name = "bleu_lab." + ".".join(path.relative_to(REPO / "bleu_lab").with_suffix("").parts)
        graph[name.removesuffix(".__init__")] = _package_imports(path)
    modules = set(graph)

    def visit(module, stack):
        for target in graph.get(module, ()):
            if target not in modules or target == "bleu_lab":
                continue
            assert target not in stack, "import cycle: " + " -> ".join([*stack, target])
            visit(target, [*stack, target])

    for module in graph:
        if not module.endswith("__init__") and module != "bleu_lab":
            visit(module, [module])


def test_import_bleu_lab_is_light_and_its_public_names_stay_functions():
    """``import bleu_lab`` (what a hub's every server start and ``bleu-lab lessons`` pay for) loads neither matplotlib
    nor sacrebleu; every public name is its module's object, also after every submodule was imported (a submodule
    named like its function, bleu_lab.explain, must not take the function's place)."""
    code = """if True:
        import importlib, pkgutil, sys, types
        import bleu_lab.course
        heavy = sorted({"matplotlib", "sacrebleu", "ipywidgets"} & set(sys.modules))
        assert not heavy, f"import bleu_lab loads {heavy}"
        import bleu_lab as bl
        for module in pkgutil.iter_modules(bl.__path__):
            if module.name != "__main__":
                importlib.import_module(f"bleu_lab.{module.name}")
        for name in bl.__all__:
            value = getattr(bl, name)
            assert not isinstance(value, types.ModuleType), f"bl.{name} is a module"
            assert value is getattr(importlib.import_module(value.__module__), name), name
        assert bl.readings.readings and bl.data.read_lines  # submodules by attribute, as the lessons use them
    """
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert result.returncode == 0, result.stderr
