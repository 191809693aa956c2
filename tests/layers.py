"""The package's layers, declared bottom to top, and which of them the base install (`pip install bleu_lab`, without
Jupyter) holds. Each layer is a folder of bleu_lab/ (the core is the package's own modules): a module imports its own
layer and the layers below, never one above (LAZY_UPPER names the few exceptions, each inside a function).
tests/test_layers.py checks the tree against these lists; .ci/base_install_check.sh imports every base module in a
venv with the base install only. Plain Python (no pytest), so that venv can read it.
"""

from __future__ import annotations

# Bottom to top: (layer, its modules). A package name ("bleu_lab.metrics") covers its modules, but for PACKAGE_ONLY's.
LAYERS = (
    ("core", (  # the metric: its steps in lesson order, tokenization, the nltk and sacrebleu fronts, data, files
        "bleu_lab.version", "bleu_lab.validation", "bleu_lab.ngrams", "bleu_lab.clipping", "bleu_lab.precision",
        "bleu_lab.brevity", "bleu_lab.statistics", "bleu_lab.corpus_counting", "bleu_lab.geometric_mean",
        "bleu_lab.smoothing", "bleu_lab.tokenization", "bleu_lab.scripts", "bleu_lab.nltk_style",
        "bleu_lab.sacrebleu_style", "bleu_lab.data", "bleu_lab.files", "bleu_lab.commands",
        "bleu_lab.course",  # the package's own module only: the course's files on disk (the data's location)
    )),
    ("metrics", ("bleu_lab.metrics",)),  # chrF, TER, significance, agreement, segment and published scores
    ("reports", ("bleu_lab.reports", "bleu_lab.compare", "bleu_lab.readings")),  # explanations, pages, figures, why
    ("front", ("bleu_lab", "bleu_lab.cli", "bleu_lab.__main__")),  # the public names and the command line
    ("course", ("bleu_lab.course.handout", "bleu_lab.course.exercises", "bleu_lab.course.widgets",
                "bleu_lab.course.classroom")),  # the lessons' code, their widgets, the classroom (Voila)
    ("hub", ("bleu_lab.hub",)),  # JupyterHub's start checks, the fallback spawner, the cgroups
    ("grading", ("bleu_lab.assignments",)),  # release, grade, feedback, collect (nbgrader, Gradescope, Canvas)
)
PACKAGE_ONLY = ("bleu_lab", "bleu_lab.course")  # these names cover the package's own module, not its submodules
BASE_LAYERS = ("core", "metrics", "reports", "front")
# The base layers (what `pip install bleu_lab` runs) and the layers on top, which need the "lessons" extra (or the
# hub's or grading's): every module is in one of them.
BASE = tuple(name for layer, names in LAYERS if layer in BASE_LAYERS for name in names)
COURSE = tuple(name for layer, names in LAYERS if layer not in BASE_LAYERS for name in names)
# What the base modules may import beyond the standard library: the import names of pyproject.toml's dependencies.
BASE_IMPORTS = {"numpy": "numpy", "sacrebleu": "sacrebleu", "tqdm": "tqdm", "threadpoolctl": "threadpoolctl",
                "jinja2": "jinja2", "markupsafe": "markupsafe"}
# The "plots" extra (bleu_lab.commands.PLOTS_PACKAGES): a base module imports it only inside a function that draws.
PLOTS_IMPORTS = ("matplotlib", "PIL")
# Imports from a module to a layer above it or to the lessons' packages, each inside a function that only runs where
# those are installed: module -> {imported module: why}.
LAZY_UPPER = {
    "bleu_lab.cli": {
        "bleu_lab.assignments.cli": "release, grade, gradescope, collect: after commands.require_lessons",
        "bleu_lab.course.classroom": "bleu-lab classroom: after commands.require_lessons",
        "bleu_lab.hub.probe": "bleu-lab hub check: it says which of the hub extra's packages it lacks",
    },
    "bleu_lab.course": {
        "nbformat": "handed_out, for `bleu-lab lessons --no-solutions`: after commands.require_lessons",
        "bleu_lab.course.handout": "the same",
    },
    "bleu_lab.reports.plots": {"IPython.display": "show() displays a figure in a notebook, whose kernel is IPython"},
    # A notebook's view of a score, a corpus or a paired test (_repr_html_): its markup is a template of the reports
    # layer, rendered only when a notebook shows the object (the base install has that layer).
    "bleu_lab.sacrebleu_style": {"bleu_lab.reports.templates": "BleuScore._repr_html_: templates/bleu_score.html.j2"},
    "bleu_lab.data": {"bleu_lab.reports.templates": "Corpus._repr_html_: templates/corpus.html.j2"},
    "bleu_lab.metrics.significance": {"bleu_lab.reports.templates": "the tests' _repr_html_: paired_test.html.j2"},
}
# Never imported by a base module: the Jupyter stack (import names of the lessons extra and what it brings).
JUPYTER = ("IPython", "ipykernel", "ipywidgets", "jupyter_client", "jupyter_core", "jupyter_server", "jupyterlab",
           "notebook", "nbformat", "nbclient", "nbconvert", "voila", "traitlets", "tornado", "zmq", "comm",
           "widgetsnbextension", "jupyterlab_widgets", "jupyter_events", "matplotlib_inline", "jupyterhub", "nbgrader")


def in_layer(module: str, layer: tuple[str, ...]) -> bool:
    return any(module == name or (module.startswith(name + ".") and name not in PACKAGE_ONLY) for name in layer)


def layer_of(module: str) -> int | None:
    """The position of ``module``'s layer in LAYERS (0: the bottom), None if no layer names it."""
    return next((i for i, (_, names) in enumerate(LAYERS) if in_layer(module, names)), None)
