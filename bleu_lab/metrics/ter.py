"""TER, the translation edit rate — a third surface metric, for contrast with BLEU and chrF (lesson 10).

    TER = number of edits / reference length        (lower is better; × 100 on sacrebleu's scale)
    corpus TER = Σ edits / Σ reference lengths      (summed over segments)

An edit is an insertion, deletion or substitution of one word, or a *shift* that moves a block of words
elsewhere in the sentence; with several references, the edits to the closest reference over the average
reference length (Snover et al. 2006, https://aclanthology.org/2006.amta-papers.25/).

bleu_lab does not re-implement TER: this is sacrebleu's ``TER`` with its defaults (lowercased, then split on
whitespace only: no tokenization, so "Haus." and "Haus" are different words), wrapped with bleu_lab's input
checks and a small result type.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from sacrebleu.metrics import TER

from ..sacrebleu_style import _reference_strings, check_corpus, count_refs
from ..validation import as_text


@dataclass(frozen=True)
class TerScore:
    """A TER score (0 = no edits; can exceed 100 when the hypothesis needs more edits than the reference has words)."""

    score: float
    edits: int  # to the closest reference
    ref_length: float  # the average length of the references
    signature: str = ""  # sacrebleu's TER signature (nrefs:...|case:lc|tok:tercom|...)
    name = "TER"

    def __str__(self) -> str:
        return f"TER = {self.score:.2f}  ({self.edits} edits / {self.ref_length:g} reference words)"


_TER = TER()  # sacrebleu's default settings; the object holds no per-sentence state


# TER's shift search grows much faster than the segment. Measured with sacrebleu 2.6 on one core: a hypothesis whose
# words are its reference's shuffled takes 1.1 CPU s at 100 words, 7.6 s at 400, 38 s at 1,000 and 62 s at 1,500 (a
# 400-word hypothesis that follows its reference: 0.03 s). The longest line of the WMT21 test sets has 130 words.
MAX_TER_WORDS = 500


def check_words(lines: Sequence[str | None], name: str) -> None:
    """Refuse, naming it (``name[i]``), the first of ``lines`` with more than ``MAX_TER_WORDS`` words (TER splits on
    whitespace), before any edit distance is computed."""
    for i, line in enumerate(lines):
        _check_words(line, f"{name}[{i}]")


def _check_words(line: str | None, where: str) -> None:
    if line is not None and len(line) > MAX_TER_WORDS and len(line.split()) > MAX_TER_WORDS:
        raise ValueError(f"{where} has {len(line.split()):,} words; TER takes at most {MAX_TER_WORDS} per segment (its "
                         "shift search slows down fast with length: 38 CPU seconds for 1,000 shuffled words; the "
                         "longest line of the WMT21 test sets has 130): split the segment into sentences, or leave "
                         "TER out")


def check_corpus_words(systems: Mapping[str, Sequence[str]], references: Sequence[Sequence[str]],
                       labels: Mapping[str, str] | None = None) -> None:
    """``check_words`` on every system's lines (called ``labels[name]``, default ``systems['name']``) and on every
    segment's references (``references[i]``)."""
    for name, lines in systems.items():
        check_words(lines, (labels or {}).get(name, f"systems[{name!r}]"))
    for i, seg in enumerate(references):
        check_words(seg, f"references[{i}]")


def sentence_ter(hypothesis: str, references: Sequence[str]) -> TerScore:
    """sacrebleu's sentence TER of one hypothesis string against its reference strings (at most ``MAX_TER_WORDS``
    words each)."""
    hypothesis = as_text(hypothesis, "hypothesis")
    refs = _reference_strings(references, "references")
    _check_words(hypothesis, "hypothesis")
    check_words(refs, "references")
    result = _TER.sentence_score(hypothesis, refs)
    return TerScore(result.score, result.num_edits, result.ref_length)


def system_rows(systems: Mapping[str, Sequence[str]], references: Sequence[Sequence[str]],
                labels: Mapping[str, str] | None = None) -> dict[str, np.ndarray]:
    """Each system's TER statistics, one float64 row [edits to the closest reference, average reference length] per
    segment: what the paired tests resample. As sacrebleu's paired tests get them: one sacrebleu ``TER`` whose
    references are tokenized once (its ``references=`` cache), then ``TER._extract_corpus_statistics`` (each segment's
    ``_compute_segment_statistics``) once per system. ``references[i]`` lists segment i's references (checked corpus
    expected; a segment with fewer references than others is padded with None, which sacrebleu leaves out). Segments
    of more than ``MAX_TER_WORDS`` words are refused first (``check_corpus_words``; ``labels`` name the systems)."""
    check_corpus_words(systems, references, labels)
    if not len(references):  # no segment: no rows (sacrebleu refuses an empty reference cache)
        return {name: np.zeros((0, 2)) for name in systems}
    width = max(len(seg) for seg in references)
    streams = [[seg[k] if k < len(seg) else None for seg in references] for k in range(width)]
    metric = TER(references=streams)
    metric._force = True  # sacrebleu's log line about tokenized periods: bleu_lab's own commands warn about that
    return {name: np.array(metric._extract_corpus_statistics(list(hyps), None), dtype=np.float64).reshape(len(hyps), 2)
            for name, hyps in systems.items()}


def segment_rows(hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> np.ndarray:
    """One system's TER statistics rows (``system_rows``; sacrebleu's ``TER._compute_segment_statistics`` of each
    segment). Checked corpus expected."""
    return system_rows({"": hypotheses}, references, {"": "hypotheses"})[""]


def rows_score(rows: np.ndarray, nrefs: int | str) -> TerScore:
    """Corpus TER of statistics rows (``system_rows``): sacrebleu's own ``TER._aggregate_and_compute`` of them, which
    sums the rows in Python, segment by segment (so the last bit is sacrebleu's too), with its signature."""
    if not len(rows):  # no segment: no edits, no reference words
        return TerScore(0.0, 0, 0.0, ter_signature(nrefs))
    result = _TER._aggregate_and_compute(np.asarray(rows, dtype=np.float64).tolist())
    return TerScore(float(result.score), int(result.num_edits), float(result.ref_length), ter_signature(nrefs))


def scores_from_rows(rows: np.ndarray) -> np.ndarray:
    """TER (0–100 and up) of every row of summed statistics, as sacrebleu's ``TER._compute_score_from_stats`` does it
    on the row's own number type: 100 * edits / reference length (100 when the references are empty and the
    hypothesis is not, 0 when both are)."""
    def one(edits, ref_length):
        score = edits / ref_length if ref_length > 0 else (1.0 if edits > 0 else 0.0)
        return 100 * score

    return np.array([one(row[0], row[1]) for row in rows])  # float32 scores from float32 rows, as sacrebleu's


def ter_signature(nrefs: int | str) -> str:
    """sacrebleu's signature of its default TER, for ``nrefs`` references."""
    return str(_TER._SIGNATURE_TYPE({**_TER.__dict__, "num_refs": -1 if nrefs == "var" else int(nrefs)}))


def corpus_ter(hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> TerScore:
    """Corpus TER: edits and reference lengths summed over segments (``references[i]`` lists segment i's
    references, as ``corpus_score``); equal to ``sacrebleu.TER().corpus_score`` on the transposed streams."""
    hyps, refs = check_corpus(hypotheses, references)
    return rows_score(segment_rows(hyps, refs), count_refs(refs) if refs else 1)
