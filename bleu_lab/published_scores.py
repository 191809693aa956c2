"""Published system-level scores: what people said about real systems, beside their BLEU and chrF.

``load_system_scores()`` reads ``data/wmt21/newstest2021_en-de_system_scores.tsv``: WMT21 English→German
(newstest2021), one row per system that professional translators rated with MQM (Freitag et al.), with

- ``mqm``: the expert MQM error score (weighted errors per segment: lower is better) and its published rank;
- ``wmt_da``: the WMT direct-assessment score as printed beside it (higher is better) and its rank; the printed
  scores are rounded to three decimals (ref-A and VolcTrans-AT both print 0.280), the ranks are not (8 and 9), so
  ``wmt_da_by_rank`` orders the systems by the published rank;
- ``bleu`` and ``chrf``: the WMT21 organisers' official scores against reference A, C, D and all three
  (empty for the human translations ref-A and ref-C, which were rated as if they were systems);
- ``comet``: the system-level COMET the WMT21 organisers published against reference A, C and D, read from
  ``data/wmt21/newstest2021_en-de_comet.tsv`` (a human translation has COMET against the *other* references, not
  against itself: ref-A against C and D, ref-C against A and D).

Sources and citations: ``data/wmt21/README.md``. The numbers are copied, not computed here.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from .data import corpus_dir

SYSTEM_SCORES_FILE = Path("wmt21") / "newstest2021_en-de_system_scores.tsv"
COMET_FILE = Path("wmt21") / "newstest2021_en-de_comet.tsv"
REFERENCES = ("A", "C", "D", "all")
COMET_REFERENCES = ("A", "C", "D")  # COMET is published per reference; there is no multi-reference COMET


@dataclass(frozen=True)
class SystemScores:
    """One system's published scores (``bleu``/``chrf`` map a reference name, or 'all', to the score)."""

    system: str
    official_name: str  # its name in the WMT21 automatic-score table ('' for a human translation)
    kind: str  # 'machine' or 'human'
    mqm: float
    mqm_rank: int
    wmt_da: float
    wmt_da_rank: int
    bleu: dict[str, float]
    chrf: dict[str, float]
    comet: dict[str, float]  # reference name -> system-level COMET against it (a human translation: the others)

    @property
    def is_human(self) -> bool:
        return self.kind == "human"

    @property
    def wmt_da_by_rank(self) -> int:
        """DA as a number where higher is better and no two systems tie: minus the published DA rank.

        The printed DA scores are rounded (0.280 for both ref-A and VolcTrans-AT); the source ranks them 8 and 9, so
        comparing orders (pairwise accuracy, Kendall's tau) must use the ranks, not the rounded scores.
        """
        return -self.wmt_da_rank


def load_system_scores() -> list[SystemScores]:
    """The WMT21 en-de table, in the order of its MQM ranking (best first), with each system's published COMET."""
    comet = {row["system"]: row for row in _read(COMET_FILE)}
    rows = _read(SYSTEM_SCORES_FILE)
    missing = [row["system"] for row in rows if row["system"] not in comet]
    if missing:
        raise ValueError(f"{corpus_dir() / COMET_FILE} has no row for {', '.join(missing)}")
    return [_row(row, comet[row["system"]]) for row in rows]


def _read(name: Path) -> list[dict[str, str]]:
    path = corpus_dir() / name
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: the data/ folder comes with the bleu_lab repository")
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def _row(row: dict[str, str], comet_row: dict[str, str]) -> SystemScores:
    def scores(metric: str) -> dict[str, float]:
        return {ref: float(row[f"{metric}_{ref}"]) for ref in REFERENCES if row[f"{metric}_{ref}"]}

    return SystemScores(
        system=row["system"],
        official_name=row["official_name"],
        kind=row["kind"],
        mqm=float(row["mqm"]),
        mqm_rank=int(row["mqm_rank"]),
        wmt_da=float(row["wmt_da"]),
        wmt_da_rank=int(row["wmt_da_rank"]),
        bleu=scores("bleu"),
        chrf=scores("chrf"),
        comet={ref: float(comet_row[f"comet_{ref}"]) for ref in COMET_REFERENCES if comet_row[f"comet_{ref}"]},
    )
