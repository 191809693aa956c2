"""The sacrebleu front door: BLEU on raw strings, scores in 0–100, with sacrebleu's exact semantics.

``sentence_score`` and ``corpus_score`` reproduce sacrebleu 2.6's ``BLEU(...).sentence_score`` /
``.corpus_score`` for every tokenizer, smoothing method, casing and effective-order setting, and carry
the same signature string. References are given per segment — ``references[i]`` is the list of
reference strings for ``hypotheses[i]`` — not as sacrebleu's transposed reference streams.

Differences from the nltk front door: text is tokenized first (13a by default); precisions are in percent;
a hypothesis shorter than n contributes 0 n-grams to the denominator (nltk counts 1); the default smoothing
is 'exp'; sentence scores use the effective order (stop at the longest order the hypothesis has).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import chain

from .brevity import brevity_penalty
from .corpus_counting import CHUNK, lay_out_numbered
from .geometric_mean import uniform_log_mean
from .smoothing import SACREBLEU_DEFAULTS, SACREBLEU_METHODS, sacrebleu_precisions
from .statistics import BleuStats, empty_stats, layout_stats, pooled_stats
from .tokenization import ALL_TOKENIZERS, make_preprocessor, preprocess_corpus_numbered, tokenizer_signature
from .validation import as_sequence, as_text, check_choice, check_order, plain_strings


@dataclass(frozen=True)
class BleuScore:
    """A sacrebleu-style BLEU result: the score (0–100) and the statistics it came from."""

    score: float
    counts: tuple[int | float, ...]  # clipped n-gram matches per order (as sacrebleu reports them: + k under add-k)
    totals: tuple[int | float, ...]  # hypothesis n-grams per order (likewise); the raw ones are in ``stats``
    precisions: tuple[float, ...]  # p_n in percent, after smoothing
    bp: float
    sys_len: int
    ref_len: int
    signature: str
    stats: BleuStats = field(repr=False, compare=False)
    orders: int = 4  # how many orders the geometric mean averaged (fewer with effective_order)

    @property
    def ratio(self) -> float:
        """Hypothesis length / reference length (0 when there is no reference text)."""
        return self.sys_len / self.ref_len if self.ref_len else 0.0

    def __str__(self) -> str:
        prec = "/".join(f"{p:.1f}" for p in self.precisions)
        return (
            f"BLEU = {self.score:.2f} {prec} (BP = {self.bp:.3f} ratio = {self.ratio:.3f} "
            f"hyp_len = {self.sys_len:d} ref_len = {self.ref_len:d})"
        )

    def _repr_html_(self) -> str:
        from .reports.templates import render  # the pages' templates live in the reports layer

        return render("bleu_score.html.j2", score=self)


@dataclass(frozen=True)
class ScoreOptions:
    """The options that define a sacrebleu-style BLEU (what its signature records)."""

    tokenize: str = "13a"
    lowercase: bool = False
    smooth_method: str = "exp"
    smooth_value: float | None = None
    effective_order: bool = False
    max_ngram_order: int = 4

    def __post_init__(self) -> None:
        check_choice(self.tokenize, "tokenize", ALL_TOKENIZERS)
        check_choice(self.smooth_method, "smooth_method", SACREBLEU_METHODS)
        if not isinstance(self.lowercase, bool):
            raise TypeError(f"lowercase must be True or False, not {type(self.lowercase).__name__}")
        if not isinstance(self.effective_order, bool):
            raise TypeError(f"effective_order must be True or False, not {type(self.effective_order).__name__}")
        check_order(self.max_ngram_order, "max_ngram_order")
        v = self.smooth_value
        if v is not None:
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise TypeError(f"smooth_value must be a number or None, not {type(v).__name__}")
            if not math.isfinite(v) or v < 0:
                raise ValueError(f"smooth_value must be a finite number >= 0, got {v}")

    def signature(self, nrefs: int | str) -> str:
        """sacrebleu's signature, e.g. ``nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0``."""
        import sacrebleu  # here, not at the top: ``import bleu_lab`` does not load sacrebleu for its version alone

        smooth = self.smooth_method
        default = SACREBLEU_DEFAULTS[smooth]
        if default is not None:
            smooth += f"[{(self.smooth_value if self.smooth_value is not None else default):.2f}]"
        return (
            f"nrefs:{nrefs}|case:{'lc' if self.lowercase else 'mixed'}|eff:{'yes' if self.effective_order else 'no'}"
            f"|tok:{tokenizer_signature(self.tokenize)}|smooth:{smooth}|version:{sacrebleu.__version__}"
        )


def sentence_score(
    hypothesis: str,
    references: Sequence[str],
    *,
    tokenize: str = "13a",
    lowercase: bool = False,
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    effective_order: bool = True,
    max_ngram_order: int = 4,
) -> BleuScore:
    """sacrebleu's sentence BLEU (0–100) of one hypothesis string against a list of reference strings."""
    options = ScoreOptions(tokenize, lowercase, smooth_method, smooth_value, effective_order, max_ngram_order)
    hypothesis = as_text(hypothesis, "hypothesis")
    refs = _reference_strings(references, "references")
    prep = make_preprocessor(tokenize, lowercase)
    stats = pooled_stats([[prep(r) for r in refs]], [prep(hypothesis)], max_ngram_order)
    return score_from_stats(stats, options, nrefs=len(refs))


def corpus_score(
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    *,
    tokenize: str = "13a",
    lowercase: bool = False,
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    effective_order: bool = False,
    max_ngram_order: int = 4,
) -> BleuScore:
    """sacrebleu's corpus BLEU (0–100); ``references[i]`` lists the reference strings of ``hypotheses[i]``.

    Statistics are pooled over segments before any division, as in ``BLEU().corpus_score``.
    """
    options = ScoreOptions(tokenize, lowercase, smooth_method, smooth_value, effective_order, max_ngram_order)
    hyps, refs = check_corpus(hypotheses, references)
    stats = text_stats(hyps, refs, tokenize, lowercase, max_ngram_order)
    return score_from_stats(stats, options, nrefs=count_refs(refs))


def text_stats(
    hypotheses: Sequence[str], references: Sequence[Sequence[str]], tokenize: str, lowercase: bool, max_order: int
) -> BleuStats:
    """The pooled statistics of a checked corpus of raw text, ``CHUNK`` segments at a time.

    Each chunk (its hypotheses, then its references segment by segment) is tokenized in one pass straight into
    token numbers (``preprocess_corpus_numbered``) and counted with array operations (``layout_stats``).
    """
    stats = empty_stats(max_order)
    for start in range(0, len(hypotheses), CHUNK):
        segment_refs = references[start : start + CHUNK]
        lines = [*hypotheses[start : start + CHUNK], *chain.from_iterable(segment_refs)]
        texts = preprocess_corpus_numbered(lines, tokenize, lowercase)
        stats += layout_stats(lay_out_numbered(texts, list(map(len, segment_refs))), max_order)
    return stats


def score_from_stats(stats: BleuStats, options: ScoreOptions = ScoreOptions(), nrefs: int | str = 1) -> BleuScore:
    """sacrebleu's score from pooled statistics: BP * exp(mean_n log p_n), p_n in percent after smoothing."""
    counts, totals = stats.matches, stats.totals
    bp = 1.0 if stats.hyp_len >= stats.ref_len else brevity_penalty(stats.ref_len, stats.hyp_len)
    signature = options.signature(nrefs)
    if not any(counts):
        zero = (0.0,) * len(counts)
        return BleuScore(0.0, counts, totals, zero, bp, stats.hyp_len, stats.ref_len, signature, stats, len(counts))
    precisions, order = sacrebleu_precisions(
        counts, totals, options.smooth_method, options.smooth_value, options.effective_order
    )
    score = bp * math.exp(uniform_log_mean(precisions, order))
    if options.smooth_method == "add-k":  # sacrebleu reports the counts with k added for n >= 2, as it scored them
        k = SACREBLEU_DEFAULTS["add-k"] if options.smooth_value is None else options.smooth_value
        counts = (counts[0], *(c + k for c in counts[1:]))
        totals = (totals[0], *(t + k for t in totals[1:]))
    return BleuScore(
        score, counts, totals, tuple(precisions), bp, stats.hyp_len, stats.ref_len, signature, stats, order
    )


def check_corpus(
    hypotheses: object, references: object, name: str = "hypotheses"
) -> tuple[Sequence[str], list[list[str]]]:
    """Validate a corpus given per segment; return the hypotheses and each segment's reference list.

    ``name`` is what the caller calls its hypotheses, for the messages (e.g. "baseline_hypotheses").
    """
    hyps = as_sequence(hypotheses, name, "hypothesis strings (one per segment)")
    hyps = plain_strings(hyps, name, "a hypothesis string")
    segs = as_sequence(references, "references", "reference lists, one per segment (references[i] for hypotheses[i])")
    if len(segs) != len(hyps):
        hint = ""
        if segs and not isinstance(segs[0], str) and isinstance(segs[0], Sequence) and len(segs[0]) == len(hyps):
            hint = "; this looks like sacrebleu's transposed reference streams: convert with list(zip(*streams))"
        raise ValueError(
            f"{name} and references must have one entry per segment, but {name} has {len(hyps)} "
            f"and references has {len(segs)}{hint}"
        )
    refs = [_reference_strings(seg, f"references[{i}]") for i, seg in enumerate(segs)]
    return hyps, refs


def count_refs(refs: Sequence[Sequence[str]]) -> int | str:
    """The number of references per segment for the signature, or 'var' when it varies."""
    sizes = {len(seg) for seg in refs}
    return sizes.pop() if len(sizes) == 1 else "var"


def _reference_strings(value: object, name: str) -> list[str]:
    seg = as_sequence(value, name, "reference strings; wrap a single reference in a list: [reference]")
    if len(seg) == 0:
        raise ValueError(f"{name} is empty: every hypothesis needs at least one reference")
    return plain_strings(seg, name, "a reference string")
