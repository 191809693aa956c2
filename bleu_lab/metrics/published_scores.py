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

Segment by segment (lesson 12):

- ``load_mqm_segments()`` reads Google's segment-level MQM for the same test set
  (``data/wmt21/mqm_newstest2021_ende.avg_seg_scores.tsv``, Freitag et al. 2021, Apache-2.0): per system and
  segment, minus the weighted error points (0 = no error; higher is better), ``None`` where the segment was not
  rated;
- ``load_segment_metrics()`` reads each rated segment's sentence BLEU and chrF for the eight rated machine systems,
  computed here from the WMT21 files by ``segment_metrics_from_text()`` (the shipped file is its output, written by
  ``data/wmt21/make_segment_metrics.py``); ``read_wmt21_texts()`` reads those files after checking their SHA-256.

Sources and citations: ``data/wmt21/README.md``. The system-level numbers and the MQM scores are copied, not
computed here.
"""

from __future__ import annotations

import csv
import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..data import corpus_dir, read_lines

SYSTEM_SCORES_FILE = Path("wmt21") / "newstest2021_en-de_system_scores.tsv"
COMET_FILE = Path("wmt21") / "newstest2021_en-de_comet.tsv"
REFERENCES = ("A", "C", "D", "all")
COMET_REFERENCES = ("A", "C", "D")  # COMET is published per reference; there is no multi-reference COMET
MQM_SEGMENTS_FILE = Path("wmt21") / "mqm_newstest2021_ende.avg_seg_scores.tsv"
SEGMENT_METRICS_FILE = Path("wmt21") / "newstest2021_en-de_segment_metrics.tsv"


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


# ------------------------------------------------------------------------------------------ segment by segment

SEGMENTS = 1002  # lines of newstest2021 en-de; MQM's seg_id is the 1-based line number
# The eight WMT21 systems the experts rated, by their MQM names; the WMT21 files call Nemo "NVIDIA-NeMo".
RATED_SYSTEMS = ("Facebook-AI", "HuaweiTSC", "Nemo", "Online-W", "UEdin", "VolcTrans-AT", "VolcTrans-GLAT",
                 "eTranslation")
FILE_NAMES = {"Nemo": "NVIDIA-NeMo"}
# The reference the sentence scores use: the WMT21 metrics task's standard reference for en-de newstest2021
# (std_ref='refC' in google-research/mt-metrics-eval, mt_metrics_eval/meta_info.py).
SEGMENT_REFERENCE = "C"
# SHA-256 of the WMT21 files read here (github.com/wmt-conference/wmt21-news-systems, revision f41750d, txt/).
WMT21_FINGERPRINTS = {
    "newstest2021.en-de.src.en": "63925ded38b5354d19717df308d81274854f95ac2be5d94fd29b7b13c5dddcb7",
    "newstest2021.en-de.ref.A.de": "3363b4a490bdcf55f3565bcc5dfadabaf3554f17cfb3540e25781e6bad67f854",
    "newstest2021.en-de.ref.C.de": "86363cb4e88d5230db35f565977a0604d5e862e130d3d7284480aec72dd282e2",
    "newstest2021.en-de.ref.D.de": "d28a51ad23bb04bcacb8653e27682e2c2447dafdb558f1294f266c509b29b12d",
    "newstest2021.en-de.hyp.Facebook-AI.de": "5f6a7aaa6a41b8b8e4ed2bf4b6f4dd7ebb8d2f8f6ede0e7ac5de6f060ab1b04b",
    "newstest2021.en-de.hyp.HuaweiTSC.de": "d7742e29e9b5d2ea3b754d995b8966c5a5d0d435dcdfb48a506e0c175be2c77e",
    "newstest2021.en-de.hyp.NVIDIA-NeMo.de": "a1df417921273450bd42b3e03f355ea541e34446b9769556fe1ebcdbf1c95abb",
    "newstest2021.en-de.hyp.Online-W.de": "80408efad1d6712bda1b8a164520544f346eaf3720d69adeb3624e409271289c",
    "newstest2021.en-de.hyp.UEdin.de": "918585ea913caf5e8942b866be44dc608571f02ddbe9ff0e9e8082b7674c13fc",
    "newstest2021.en-de.hyp.VolcTrans-AT.de": "ee73f4ab38592a4322a5bc9a8a0a9f266d0911685cc4d9786cb5b7b84342a045",
    "newstest2021.en-de.hyp.VolcTrans-GLAT.de": "17293ca95c05e2e5d9d71f497e54f1f6934aac6da700c88d487b16462fd6fdc1",
    "newstest2021.en-de.hyp.eTranslation.de": "42e117397c08985a50670f54cdfe728f23f1bc9994d6dde516f002254c7f7654",
}


@dataclass(frozen=True)
class MqmSegment:
    """One system's MQM score for one segment: minus its weighted error points (Major 5, Minor 1, minor
    punctuation 0.1, non-translation 25), averaged over its raters; 0 is no error, ``None`` not rated."""

    system: str
    segment: int  # 1-based line of newstest2021 en-de
    score: float | None

    @property
    def rated(self) -> bool:
        return self.score is not None


@dataclass(frozen=True)
class SegmentMetrics:
    """One rated segment of one system: sentence BLEU (sacrebleu's sentence_bleu: 13a, exp smoothing, effective
    order) and chrF (chrF2) of its output against reference C, both 0-100."""

    system: str  # the MQM name (Nemo, not NVIDIA-NeMo)
    segment: int
    bleu: float
    chrf: float


@dataclass(frozen=True)
class Wmt21Texts:
    """The WMT21 en-de files lesson 12 reads: the source, references A, C and D, the eight rated systems (by their
    MQM names), each a list of 1,002 lines."""

    source: list[str]
    references: dict[str, list[str]]
    systems: dict[str, list[str]]


def mqm_systems() -> list[str]:
    """Every "system" of the MQM file, in its order: the eight WMT21 systems, the human translations ref-A to
    ref-D, and metricsystem1-5 (translations the metrics task added)."""
    return list(dict.fromkeys(row[0] for row in _mqm_rows()))


def load_mqm_segments(systems: str | Iterable[str] | None = None) -> list[MqmSegment]:
    """The segment-level MQM of ``systems`` (a name, a list of names, or None for all ``mqm_systems()``), one row per
    system and segment (1,002 per system), in the file's order."""
    wanted = _system_names(systems, mqm_systems(), "systems")
    return [MqmSegment(system, segment, score) for system, segment, score in _mqm_rows() if system in wanted]


def load_segment_metrics(systems: str | Iterable[str] | None = None) -> list[SegmentMetrics]:
    """The shipped sentence BLEU and chrF of every MQM-rated segment of ``systems`` (a name, a list, or None for the
    eight ``RATED_SYSTEMS``), as ``segment_metrics_from_text`` computes them from the WMT21 files."""
    wanted = _system_names(systems, RATED_SYSTEMS, "systems")
    path = corpus_dir() / SEGMENT_METRICS_FILE
    rows = _read(SEGMENT_METRICS_FILE)
    if not rows or list(rows[0]) != ["system", "segment", "sentence_bleu", "chrf"]:
        raise ValueError(f"{path} must have the columns system, segment, sentence_bleu, chrf")
    return [SegmentMetrics(row["system"], int(row["segment"]), float(row["sentence_bleu"]), float(row["chrf"]))
            for row in rows if row["system"] in wanted]


def check_wmt21_files(folder: str | Path) -> Path:
    """``folder``/en-de, once every file of ``WMT21_FINGERPRINTS`` is there with the published content (SHA-256);
    else a clear error naming the file (a different revision of the test set gives different numbers)."""
    if not isinstance(folder, (str, Path)):
        raise TypeError(f"folder must be a path (str or Path), not {type(folder).__name__}")
    pair = Path(folder) / "en-de"
    if not pair.is_dir():
        raise FileNotFoundError(f"{pair} is not a folder: set BLEU_LAB_MTDATA to the folder holding en-de/ with the "
                                "WMT21 files (github.com/wmt-conference/wmt21-news-systems, folder txt/)")
    for name, expected in WMT21_FINGERPRINTS.items():
        path = pair / name
        if not path.is_file():
            raise FileNotFoundError(f"{path} is missing: download it from github.com/wmt-conference/"
                                    "wmt21-news-systems (txt/sources, txt/references or txt/system-outputs)")
        if hashlib.sha256(path.read_bytes()).hexdigest() != expected:
            raise ValueError(f"{path} is not the published file (its SHA-256 differs): download it again from "
                             "github.com/wmt-conference/wmt21-news-systems, revision f41750d")
    return pair


def read_wmt21_texts(folder: str | Path) -> Wmt21Texts:
    """The WMT21 en-de source, references A, C, D and the eight rated systems' outputs, fingerprints checked."""
    pair = check_wmt21_files(folder)

    def lines(kind: str, name: str, lang: str) -> list[str]:
        return read_lines(pair / f"newstest2021.en-de.{kind}.{name}.{lang}" if name else
                          pair / f"newstest2021.en-de.{kind}.{lang}", kind)

    return Wmt21Texts(lines("src", "", "en"), {ref: lines("ref", ref, "de") for ref in ("A", "C", "D")},
                      {system: lines("hyp", FILE_NAMES.get(system, system), "de") for system in RATED_SYSTEMS})


def segment_metrics_from_text(folder: str | Path, systems: str | Iterable[str] | None = None
                              ) -> list[SegmentMetrics]:
    """Sentence BLEU (``sentence_score``: sacrebleu's sentence_bleu, 13a, exp smoothing, effective order) and
    chrF2 (``sentence_chrf``) against reference C for every MQM-rated segment of ``systems``, from the WMT21
    files in ``folder``/en-de (fingerprints checked): the numbers ``load_segment_metrics`` ships."""
    from ..sacrebleu_style import sentence_score
    from .chrf import sentence_chrf

    wanted = _system_names(systems, RATED_SYSTEMS, "systems")
    texts = read_wmt21_texts(folder)
    reference = texts.references[SEGMENT_REFERENCE]
    rows = []
    for row in load_mqm_segments([s for s in RATED_SYSTEMS if s in wanted]):
        if row.rated:
            hypothesis, refs = texts.systems[row.system][row.segment - 1], [reference[row.segment - 1]]
            rows.append(SegmentMetrics(row.system, row.segment, sentence_score(hypothesis, refs).score,
                                       sentence_chrf(hypothesis, refs).score))
    return rows


def write_segment_metrics(rows: Sequence[SegmentMetrics], path: str | Path) -> None:
    """Write ``rows`` as the shipped TSV: system, segment, sentence_bleu, chrf (floats at full precision)."""
    with Path(path).open("w", encoding="utf-8", newline="") as handle:
        handle.write("system\tsegment\tsentence_bleu\tchrf\n")
        for row in rows:
            handle.write(f"{row.system}\t{row.segment}\t{row.bleu!r}\t{row.chrf!r}\n")


def _system_names(systems: object, known: Sequence[str], label: str) -> set[str]:
    if systems is None:
        return set(known)
    names = [systems] if isinstance(systems, str) else systems
    if not isinstance(names, Iterable) or isinstance(names, (bytes, dict)):
        raise TypeError(f"{label} must be a system name or a list of names, not {type(systems).__name__}")
    names = list(names)
    bad = next((n for n in names if not isinstance(n, str)), None)
    if bad is not None:
        raise TypeError(f"{label} must hold system names (str), not {type(bad).__name__} ({bad!r:.40})")
    unknown = [n for n in names if n not in known]
    if unknown:
        hint = " (the WMT21 files call it NVIDIA-NeMo; here it is Nemo)" if "NVIDIA-NeMo" in unknown else ""
        raise ValueError(f"unknown system {unknown[0]!r}{hint}: choose among {', '.join(known)}")
    if not names:
        raise ValueError(f"{label} is empty: name at least one system, or pass None for all")
    return set(names)


_MQM_CACHE: list[tuple[str, int, float | None]] = []


def _mqm_rows() -> list[tuple[str, int, float | None]]:
    """(system, segment, score or None) per line of the MQM file, checked: 1,002 segments per system, in order."""
    if _MQM_CACHE:
        return _MQM_CACHE
    path = corpus_dir() / MQM_SEGMENTS_FILE
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: the data/ folder comes with the bleu_lab repository")
    lines = path.read_text(encoding="utf-8").splitlines()
    if not lines or lines[0].split() != ["system", "mqm_avg_score", "seg_id"]:
        raise ValueError(f"{path} must start with the header 'system mqm_avg_score seg_id'")
    rows, counts = [], {}
    for number, line in enumerate(lines[1:], 2):
        fields = line.split()
        if len(fields) != 3:
            raise ValueError(f"{path}, line {number}: expected system, score and seg_id, got {line!r:.80}")
        # "-0.000000" is read as 0.0 (float("-0.0") + 0.0), so that a segment without errors prints as 0
        system, score, segment = fields[0], None if fields[1] == "None" else float(fields[1]) + 0.0, int(fields[2])
        counts[system] = counts.get(system, 0) + 1
        if segment != counts[system]:
            raise ValueError(f"{path}, line {number}: {system}'s segment {segment} is out of order")
        rows.append((system, segment, score))
    short = [system for system, count in counts.items() if count != SEGMENTS]
    if short:
        raise ValueError(f"{path}: {short[0]} has {counts[short[0]]} segments, not {SEGMENTS}")
    _MQM_CACHE.extend(rows)
    return _MQM_CACHE
