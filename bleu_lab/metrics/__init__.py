"""Other metrics and statistics, on the BLEU core: chrF and TER (as sacrebleu computes them), the paired
significance tests between two systems, agreement with people's judgements (Kendall tau, pairwise accuracy), the
delta-accuracy tables, segment-level scores and the published scores the lessons read. These modules import the core
(``bleu_lab``'s own modules) and each other, never the reports, the course, the grader or the hub; the base install
(no Jupyter) runs them all.
"""

from importlib import import_module
from pkgutil import iter_modules

_SUBMODULES = {module.name for module in iter_modules(__path__)}


def __getattr__(name: str) -> object:
    """A submodule by attribute, imported on first use: ``bl.metrics.significance.holm_adjusted``."""
    if name in _SUBMODULES:
        return import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
