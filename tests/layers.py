"""The package's two layers, declared: the base (what `pip install bleu_lab` runs, without Jupyter) and the course on
top of it (the lessons extra). tests/test_layers.py checks the tree against these lists; .ci/base_install_check.sh
imports every base module in a venv with the base install only. Plain Python (no pytest), so that venv can read it.
"""

from __future__ import annotations

# The base layer: what `pip install bleu_lab` runs. A package name ("bleu_lab.compare") covers its modules.
BASE = (
    "bleu_lab", "bleu_lab.__main__", "bleu_lab.version", "bleu_lab.commands", "bleu_lab.cli", "bleu_lab.validation",
    # the metric's steps, in lesson order, and its fronts
    "bleu_lab.ngrams", "bleu_lab.clipping", "bleu_lab.precision", "bleu_lab.brevity", "bleu_lab.statistics",
    "bleu_lab.corpus_counting", "bleu_lab.geometric_mean", "bleu_lab.smoothing", "bleu_lab.tokenization",
    "bleu_lab.scripts", "bleu_lab.nltk_style", "bleu_lab.sacrebleu_style", "bleu_lab.explain", "bleu_lab.explain_html",
    # other metrics and statistics
    "bleu_lab.chrf", "bleu_lab.explain_chrf", "bleu_lab.explain_chrf_html", "bleu_lab.ter", "bleu_lab.significance",
    "bleu_lab.agreement", "bleu_lab.delta_accuracy", "bleu_lab.segment_scores", "bleu_lab.published_scores",
    # data, files, figures, the course's files on disk (bleu-lab guide; the data's location)
    "bleu_lab.data", "bleu_lab.files", "bleu_lab.spreadsheet", "bleu_lab.plots", "bleu_lab.course",
    # the pages' templates (Jinja2, autoescaped)
    "bleu_lab.templates",
    # comparing systems and other libraries' readings (bleu-lab compare, bleu-lab why)
    "bleu_lab.compare", "bleu_lab.readings",
)
# The layer on top, which needs the "lessons" extra (or the hub's): every other module must be named here.
COURSE = (
    "bleu_lab.widgets", "bleu_lab.exercises", "bleu_lab.classroom", "bleu_lab.handout", "bleu_lab.assignments",
    "bleu_lab.hub_checks", "bleu_lab.hub_fallback", "bleu_lab.hub_probe", "bleu_lab.cgroups",
)
# What the base modules may import beyond the standard library: the import names of pyproject.toml's dependencies.
BASE_IMPORTS = {"numpy": "numpy", "sacrebleu": "sacrebleu", "matplotlib": "matplotlib", "PIL": "pillow",
                "tqdm": "tqdm", "threadpoolctl": "threadpoolctl", "jinja2": "jinja2", "markupsafe": "markupsafe"}
# Imports from a base module to the course's layer or its packages, each inside a function that only runs where
# those packages are: module -> {imported module: why}.
LAZY_UPPER = {
    "bleu_lab.cli": {
        "bleu_lab.assignments.cli": "release, grade, gradescope, collect: after commands.require_lessons",
        "bleu_lab.classroom": "bleu-lab classroom: after commands.require_lessons",
        "bleu_lab.hub_probe": "bleu-lab hub check: it says which of the hub extra's packages it lacks",
    },
    "bleu_lab.course": {
        "nbformat": "handed_out, for `bleu-lab lessons --no-solutions`: after commands.require_lessons",
        "bleu_lab.handout": "the same",
    },
    "bleu_lab.plots": {"IPython.display": "show() displays a figure in a notebook, whose kernel is IPython"},
}
# Never imported by a base module: the Jupyter stack (import names of the lessons extra and what it brings).
JUPYTER = ("IPython", "ipykernel", "ipywidgets", "jupyter_client", "jupyter_core", "jupyter_server", "jupyterlab",
           "notebook", "nbformat", "nbclient", "nbconvert", "voila", "traitlets", "tornado", "zmq", "comm",
           "widgetsnbextension", "jupyterlab_widgets", "jupyter_events", "matplotlib_inline", "jupyterhub", "nbgrader")


def in_layer(module: str, layer: tuple[str, ...]) -> bool:
    return any(module == name or (module.startswith(name + ".") and name != "bleu_lab") for name in layer)
