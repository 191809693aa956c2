"""Folders by layer, imports one way: every module sits in one layer of tests/layers.py (core, metrics, reports, the
front, course, hub, grading; each a folder with a docstring saying its role) and imports only its own layer and those
below. The base install stays without Jupyter: the modules ``pip install bleu_lab`` must run (the metric, its command
line, ``compare``, ``why``, chrF, TER, the significance tests, the reports) import nothing outside the standard
library, the base dependencies and each other, and matplotlib (the "plots" extra) only inside a function that
draws. The course's modules (lessons, widgets, classroom, assignments, hub) sit on top.

Checked statically (every import statement of every base module, in functions too) against tests/layers.py and
pyproject.toml, and by importing every base module with the Jupyter packages and matplotlib blocked. CI also installs
the base into a fresh venv and runs the commands there (.ci/base_install_check.sh).
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from layers import BASE, BASE_IMPORTS, COURSE, JUPYTER, LAYERS, LAZY_UPPER, PLOTS_IMPORTS, in_layer, layer_of

from bleu_lab.commands import LESSONS_PACKAGES, PLOTS_PACKAGES

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "bleu_lab"


def module_name(path: Path) -> str:
    name = ".".join(("bleu_lab", *path.relative_to(PACKAGE).with_suffix("").parts))
    return name.removesuffix(".__init__")


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py") if "course_files" not in p.relative_to(PACKAGE).parts}


def imports(module: str) -> list[tuple[str, int, bool]]:
    """Every import statement of ``module``: (module imported, line, inside a function or ``if TYPE_CHECKING``),
    relative ones resolved."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            lazy = (in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
                    or (isinstance(child, ast.If) and ast.unparse(child.test) == "TYPE_CHECKING"))  # never run
            if isinstance(child, ast.Import):
                found.extend((alias.name, child.lineno, in_function) for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    parts = package.split(".")
                    base = ".".join(parts[: len(parts) - child.level + 1])
                    target = f"{base}.{child.module}" if child.module else base
                else:
                    target = child.module or ""
                submodules = [f"{target}.{alias.name}" for alias in child.names if f"{target}.{alias.name}" in MODULES]
                found.extend((name, child.lineno, in_function) for name in submodules or [target])
            visit(child, lazy)

    visit(ast.parse(path.read_text(encoding="utf-8")), False)
    return found


BASE_MODULES = sorted(m for m in MODULES if in_layer(m, BASE))


def test_every_module_is_in_one_layer():
    unplaced = {m: [layer for layer, names in LAYERS if in_layer(m, names)] for m in MODULES}
    unplaced = {m: layers for m, layers in unplaced.items() if len(layers) != 1}
    assert not unplaced, f"place each module in one layer of LAYERS (tests/layers.py): {unplaced}"
    assert len(BASE_MODULES) > 40 and all(any(m == n or m.startswith(n + ".") for m in MODULES) for n in BASE + COURSE)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_run_one_way(module):
    """A module imports its own layer and the layers below it; an import upwards is allowed only inside a function,
    where LAZY_UPPER names it."""
    own = layer_of(module)
    wrong = [f"line {line}: {name} ({LAYERS[layer_of(name)][0]}, above {LAYERS[own][0]})"
             for name, line, lazy in imports(module)
             if name.split(".")[0] == "bleu_lab" and layer_of(name) > own
             and not (lazy and name in LAZY_UPPER.get(module, {}))]
    assert not wrong, f"{module} imports a higher layer: {wrong}"


def test_a_lower_layer_importing_a_higher_one_is_found(tmp_path, monkeypatch):
    """The check above finds an upward import, relative or absolute, at a module's top or in a function."""
    fake = PACKAGE / "metrics" / "chrf.py"
    source = "from ..course.widgets import views\ndef f():\n    import bleu_lab.assignments.grade\n"
    monkeypatch.setitem(MODULES, "bleu_lab.metrics.chrf", tmp_path / "chrf.py")
    (tmp_path / "chrf.py").write_text(source, encoding="utf-8")
    with pytest.raises(AssertionError, match=r"line 1: bleu_lab.course.widgets.views \(course, above metrics\)"):
        test_imports_run_one_way("bleu_lab.metrics.chrf")
    assert fake.is_file()  # the real module is untouched


@pytest.mark.parametrize("package", sorted(m for m, p in MODULES.items() if p.name == "__init__.py"))
def test_every_package_says_its_role(package):
    docstring = ast.get_docstring(ast.parse(MODULES[package].read_text(encoding="utf-8")))
    assert docstring and len(docstring) > 100, f"{package} needs a docstring saying its role"


@pytest.mark.parametrize("module", BASE_MODULES)
def test_a_base_module_imports_only_the_base(module):
    """Each import of a base module, at its top or in a function, is the standard library, a base dependency or a
    base module; the only exceptions are LAZY_UPPER's and matplotlib's (the plots extra), each inside a function.
    Jupyter is never among the rest."""
    wrong = []
    for name, line, lazy in imports(module):
        top = name.split(".")[0]
        allowed = LAZY_UPPER.get(module, {})
        if name in allowed:
            if not lazy:
                wrong.append(f"line {line}: {name} at the module's top (allowed only inside a function)")
            continue
        if top == "bleu_lab":
            if not in_layer(name, BASE):
                wrong.append(f"line {line}: {name}, a module of the course's layer")
        elif top in JUPYTER:
            wrong.append(f"line {line}: {name}, a Jupyter package")
        elif top in PLOTS_IMPORTS:
            if not lazy:
                wrong.append(f"line {line}: {name} (the plots extra) at the module's top (only where it draws)")
        elif top not in sys.stdlib_module_names and top not in BASE_IMPORTS:
            wrong.append(f"line {line}: {name}, not a base dependency (BASE_IMPORTS)")
    assert not wrong, f"{module} imports beyond the base install: {wrong}"


def test_every_allowed_exception_is_still_there():
    for module, allowed in LAZY_UPPER.items():
        assert set(allowed) <= {name for name, _, lazy in imports(module) if lazy}, module


def normalized(requirement: str) -> str:
    return re.sub(r"[-_.]+", "-", re.match(r"[A-Za-z0-9_.\-]+", requirement)[0]).lower()


def test_the_dependencies_are_the_base_and_the_lessons_extra_the_rest():
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    base = {normalized(r) for r in project["dependencies"]}
    assert base == {normalized(d) for d in BASE_IMPORTS.values()}
    extras = project["optional-dependencies"]
    lessons = {normalized(r) for r in extras["lessons"]} - {"bleu-lab"}
    assert lessons == {normalized(d) for d in LESSONS_PACKAGES.values()} and "bleu_lab[plots]" in extras["lessons"]
    plots = {normalized(r) for r in extras["plots"]}
    assert plots == {normalized(d) for d in PLOTS_PACKAGES.values()} and set(PLOTS_PACKAGES) == set(PLOTS_IMPORTS)
    assert not base & {normalized(n) for n in JUPYTER} and not base & (lessons | plots)
    for extra in ("hub", "grading"):  # a hub's students and nbgrader's instructors run the lessons too
        assert "bleu_lab[lessons]" in extras[extra]
    pinned = {normalized(line) for line in (REPO / "requirements.txt").read_text().splitlines()
              if line and not line.startswith(("#", "."))}
    assert base - {"numpy"} <= pinned and lessons - {"ipython", "traitlets", "jupyter-server"} <= pinned
    assert plots - {"pillow"} <= pinned


BLOCKED = list(LESSONS_PACKAGES) + list(JUPYTER) + list(PLOTS_PACKAGES)  # the base install lacks these
BLOCK_JUPYTER = f"""if True:
    import sys
    for name in {BLOCKED!r}:
        sys.modules[name] = None  # as if not installed: import raises ModuleNotFoundError, find_spec gives None
"""


def test_every_base_module_imports_without_jupyter_and_the_course_commands_say_what_to_install(tmp_path):
    """In a Python where no Jupyter package (nor matplotlib) can be imported: every base module imports, and
    ``bleu-lab lab`` (and the other course commands) exits with 2 and one line giving the install command, no
    traceback."""
    code = BLOCK_JUPYTER + f"""
    import importlib
    for module in {[m for m in BASE_MODULES if m != "bleu_lab.__main__"]!r}:  # __main__ would run the command
        importlib.import_module(module)
    from bleu_lab.cli import main
    for command in ("lab", "lessons", "classroom", "release", "grade", "gradescope", "collect"):
        assert main([command]) == 2, command
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 7 and "Traceback" not in done.stderr, done.stderr
    for line in lines:
        assert re.match(r"bleu-lab \w+: error: this needs the lessons' packages .* lacks them: add them with "
                        r".*python\S* -m pip install ", line), line
        assert "-r requirements.txt -e . (in " in line  # a clone: the README's set-up, where to run it


def test_the_course_commands_name_only_what_is_missing(tmp_path):
    code = BLOCK_JUPYTER.replace(repr(BLOCKED), "['voila']") + """
    from bleu_lab.cli import main
    assert main(["classroom"]) == 2
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0 and "this environment lacks voila: add them with" in done.stderr, done.stderr
