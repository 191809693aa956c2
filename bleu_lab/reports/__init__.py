"""What a person reads, on the core and the metrics: every step of one score (``explain``, ``explain_chrf``)
and their HTML views, the figures (``plots``), spreadsheets, and the pages' Jinja2 templates (``templates/``,
autoescaped). ``bleu_lab.compare`` and ``bleu_lab.readings`` (``bleu-lab compare``, ``bleu-lab why``) sit in this
layer too. Nothing here imports the course, the grader or the hub; the base install (no Jupyter) runs it all.
"""

from importlib import import_module
from pkgutil import iter_modules

_SUBMODULES = {module.name for module in iter_modules(__path__)}


def __getattr__(name: str) -> object:
    """A submodule by attribute, imported on first use: ``bl.reports.plots``."""
    if name in _SUBMODULES:
        return import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
