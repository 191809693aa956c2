"""The readings: every way of computing BLEU this package knows, each named, with its settings and its source.

A ``Workspace`` holds one corpus and tokenizes and counts it once per view (a tokenization); ``readings(workspace)``
then scores every reading from those counts, so a hundred readings cost little more than the dozen views.

Sources (the versions read to write these definitions; links in ``SOURCES``):
  sacrebleu 2.6.0   sacrebleu/metrics/bleu.py (BLEU), sacrebleu/metrics/base.py (references as streams; ``force``);
                    with the mecab extra, also its ja-mecab and ko-mecab tokenizers (sacrebleu/tokenizers/)
  nltk 3.10.4       nltk/translate/bleu_score.py (corpus_bleu, sentence_bleu, SmoothingFunction); before 3.4, see
                    lesson 5 appendix A2 and nltk pull request #1844
  Hugging Face evaluate, metrics/bleu/bleu.py @ 0be8642 (13a tokens + TensorFlow NMT's compute_bleu,
                    tensorflow/nmt nmt/scripts/bleu.py @ a7dd338)
  torchmetrics      src/torchmetrics/functional/text/bleu.py (``BLEUScore`` calls the same update/compute)
  Moses             scripts/generic/multi-bleu.perl
  d2l.ai            "Dive into Deep Learning", section 10.7 (seq2seq), function ``bleu``
  compare-mt 0.2.10 compare_mt/scorers.py (``BleuScorer``), compare_mt/corpus_utils.py (lines split on ' ')
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from ..nltk_style import UNIFORM_4
from ..sacrebleu_style import ScoreOptions, score_from_stats
from ..smoothing import NLTK_METHODS, SACREBLEU_METHODS
from ..statistics import BleuStats
from ..tokenization import available_tokenizers, preprocess_corpus
from .counts import MAX_ORDER, SegmentCounts, count_segments, pool
from .formulas import (
    compare_mt_bleu,
    d2l_sentence,
    multi_bleu,
    nltk_before_3_4,
    nltk_corpus,
    tf_nmt,
    torchmetrics_bleu,
)

SOURCES: dict[str, str] = {
    "sacrebleu": "https://github.com/mjpost/sacrebleu/blob/v2.6.0/sacrebleu/metrics/bleu.py",
    "nltk": "https://github.com/nltk/nltk/blob/3.10.4/nltk/translate/bleu_score.py",
    "nltk < 3.4": "https://github.com/nltk/nltk/pull/1844",
    "Hugging Face evaluate": "https://github.com/huggingface/evaluate/blob/0be864257a76c151eef20ea689755f08bc1faf4e/"
    "metrics/bleu/bleu.py (compute_bleu: https://github.com/tensorflow/nmt/blob/"
    "a7dd338386a4fae9a1767e05eb9ef9479513d9e8/nmt/scripts/bleu.py)",
    "torchmetrics": "https://github.com/Lightning-AI/torchmetrics/blob/0f4f7807cdb6cb357f8c9989a357386c877b650b/"
    "src/torchmetrics/functional/text/bleu.py",
    "Moses multi-bleu.perl": "https://github.com/moses-smt/mosesdecoder/blob/master/scripts/generic/multi-bleu.perl "
    "(read in fairseq's copy, scripts/multi-bleu.perl @ bbfc5838)",
    "compare-mt": "https://github.com/neulab/compare-mt/blob/master/compare_mt/scorers.py (BleuScorer; read in the "
    "pip package compare-mt 0.2.10, compare_mt/scorers.py and corpus_utils.iterate_tokens)",
    "d2l.ai": "https://d2l.ai/chapter_recurrent-modern/seq2seq.html#evaluation-of-predicted-sequences "
    "(d2l.bleu: for n in range(1, min(k, len_pred) + 1), the code of d2l 1.0)",
}

NLTK_WEIGHTS = {1: (1.0,), 2: (0.5, 0.5), 3: (1 / 3, 1 / 3, 1 / 3), 4: UNIFORM_4}
TOKENIZER_NOTES = {
    "13a": "13a splits punctuation off words (WMT's standard)",
    "intl": "'intl' splits off Unicode punctuation (but not between two digits) and symbols",
    "char": "'char' scores characters, not words",
    "zh": "'zh' splits Chinese characters apart",
    "none": "'none' only splits on spaces, so punctuation stays glued to words",
    "ja-mecab": "'ja-mecab' cuts Japanese into words with MeCab and the IPA dictionary",
    "ko-mecab": "'ko-mecab' cuts Korean into morphemes with MeCab-ko and mecab-ko-dic",
}
SUBWORD_MARKERS = ("@@", "\u2581")  # BPE continuation marker, SentencePiece's word-start piece "▁"


@dataclass(frozen=True)
class Reading:
    """One reading of a corpus: which library and settings, its score (0–100) and what makes it differ."""

    name: str
    settings: dict[str, object]
    score: float | None  # 0–100 (a 0–1 library's value times 100); None when the library fails on this input
    explanation: str
    library: str
    call: str  # the call giving this number (hyps: strings; refs: per segment; streams = list(zip(*refs)))
    departures: int = 0  # settings changed from the library's defaults (fewer = a likelier explanation)
    native_scale: int = 100  # 1 when the library itself reports 0–1
    mistake: bool = False  # a misuse of the library (input it does not expect), not one of its settings
    order: int = 4  # the longest n-grams counted (BLEU-4 unless a setting changes it)
    references: str = ""  # which of the given references, when not all of them: "reference A only"
    corpus: str = ""  # which segments, when not the ones given: "the 527 segments of mqm.tsv", "realigned: ..."
    view: str = field(default="13a", repr=False)
    rule: str = field(default="closest", repr=False)
    equivalent: tuple[str, ...] = field(default=(), repr=False)  # other settings giving the same number
    scorer: Callable | None = field(default=None, repr=False, compare=False)  # (stats, last) -> native score

    @property
    def source(self) -> str:
        """Where the definition comes from (a link)."""
        return SOURCES[self.library]

    @property
    def native(self) -> float | None:
        """The number the library itself prints (0–1 for nltk, evaluate, torchmetrics, d2l)."""
        return None if self.score is None else self.score * self.native_scale / 100

    def label(self) -> str:
        """``name`` and its non-default settings, for tables."""
        shown = ", ".join(f"{k}={v!r}" for k, v in self.settings.items())
        label = f"{self.name} ({shown})" if shown else self.name
        label = f"{label} against {self.references}" if self.references else label
        return f"{label} on {self.corpus}" if self.corpus else label


class Workspace:
    """One corpus, tokenized and counted once per view (``references[i]``: the reference strings of segment i)."""

    def __init__(self, hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> None:
        self.hypotheses = list(hypotheses)
        self.references = [list(seg) for seg in references]
        self._tokens: dict[str, tuple[list[list[str]], list[list[list[str]]]]] = {}
        self._counts: dict[str, list[SegmentCounts]] = {}
        self._segments: dict[tuple[str, str], list[BleuStats]] = {}
        self._pooled: dict[tuple[str, str], tuple[BleuStats, BleuStats]] = {}

    def tokens(self, view: str) -> tuple[list[list[str]], list[list[list[str]]]]:
        """(hypothesis tokens, reference tokens per segment) as ``view`` cuts the text."""
        if view not in self._tokens:
            self._tokens[view] = self._tokenize(view)
        return self._tokens[view]

    def _tokenize(self, view: str) -> tuple[list[list[str]], list[list[list[str]]]]:
        hyps, refs = self.hypotheses, self.references
        kind, _, rest = view.partition(":")
        if kind == "chars":  # nltk given strings iterates over them: characters, spaces included
            return [list(h) for h in hyps], [[list(r) for r in seg] for seg in refs]
        if kind == "d2l":  # one label per prediction, split on single spaces
            return [h.split(" ") for h in hyps], [[seg[0].split(" ")] for seg in refs]
        if kind == "cmt":  # compare-mt: one reference file, each line stripped and split on single spaces
            return [h.strip().split(" ") for h in hyps], [[seg[0].strip().split(" ")] for seg in refs]
        if kind == "transposed":  # per-segment references handed to sacrebleu as if they were streams
            hyps, refs = transposed_layout(hyps, refs)
            kind, _, rest = rest.partition(":")
        if kind == "flat":  # a plain list of reference strings handed to sacrebleu: it zips their characters
            hyps, refs = transposed_layout(hyps, [seg[0] for seg in refs])
            kind, _, rest = rest.partition(":")
        if kind == "decoded":  # subword markers removed
            hyps, refs = [decode_subwords(h) for h in hyps], [[decode_subwords(r) for r in seg] for seg in refs]
            kind, _, rest = rest.partition(":")
        flat = preprocess_corpus([*hyps, *(r for seg in refs for r in seg)], kind, rest == "lc")
        hyp_tokens, rest_tokens = flat[: len(hyps)], iter(flat[len(hyps):])
        return hyp_tokens, [[next(rest_tokens) for _ in seg] for seg in refs]

    def with_references(self, columns: Sequence[int]) -> Workspace:
        """The same corpus against only the references at positions ``columns`` of each segment (every segment must
        have them); the tokens already cut are reused."""
        def pick(seg: Sequence) -> list:
            return [seg[k] for k in columns]

        subset = Workspace(self.hypotheses, [pick(seg) for seg in self.references])
        for view, (hyps, refs) in self._tokens.items():
            if view.partition(":")[0] not in ("d2l", "cmt", "transposed", "flat"):  # these read the layout itself
                subset._tokens[view] = (hyps, [pick(seg) for seg in refs])
        return subset

    def counts(self, view: str) -> list[SegmentCounts]:
        """Every segment of ``view`` counted once (orders 1..4, and 5 for the views nltk's readings use)."""
        if view not in self._counts:
            tokens = self.tokens(view)
            same = next((counts for other, counts in self._counts.items()  # e.g. 'zh' on text without Chinese = 13a
                         if _order(other) >= _order(view) and self.tokens(other) == tokens), None)
            self._counts[view] = same if same is not None else count_segments(*tokens, _order(view))
        return self._counts[view]

    def pooled(self, view: str, rule: str) -> tuple[BleuStats, BleuStats]:
        """The corpus statistics of ``view`` with reference lengths chosen by ``rule``, and the last segment's
        (nltk's smoothing methods 5-7 read it at corpus level)."""
        if (view, rule) not in self._pooled:
            counts = self.counts(view)
            self._pooled[view, rule] = (pool(counts, rule, _order(view)), pool(counts[-1:], rule, _order(view)))
        return self._pooled[view, rule]

    def segments(self, view: str, rule: str) -> list[BleuStats]:
        """Each segment's own statistics."""
        if (view, rule) not in self._segments:
            self._segments[view, rule] = [pool([seg], rule, _order(view)) for seg in self.counts(view)]
        return self._segments[view, rule]

    def has_subwords(self) -> bool:
        """Whether any line carries BPE ("@@") or SentencePiece ("▁") markers."""
        lines = self.hypotheses + [r for seg in self.references for r in seg]
        return any(marker in line for line in lines for marker in SUBWORD_MARKERS)


NLTK_VIEWS = ("none", "none:lc", "chars")  # nltk's smoothing methods 5 and 7 also look at 5-grams


def _order(view: str) -> int:
    return MAX_ORDER if view in NLTK_VIEWS else 4


def transposed_layout(hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> tuple[list, list]:
    """What sacrebleu scores when given per-segment references where it expects streams.

    sacrebleu reads ``references`` as streams (``references[k]`` = the k-th reference of every segment) and pairs
    ``zip(*references)`` with the hypotheses: with per-segment lists, segment j gets the j-th reference *of every
    segment*, and only as many segments as the shortest list has references are scored (sacrebleu/metrics/base.py,
    ``_cache_references`` and ``_extract_corpus_statistics``).
    """
    rows = [list(refs) for refs in zip(*references)]
    return list(hypotheses[: len(rows)]), rows


def decode_subwords(text: str) -> str:
    """``text`` with BPE ("@@ ") joins undone, and SentencePiece pieces ("▁") joined back into words."""
    text = text.replace("@@ ", "")
    text = text[:-2] if text.endswith("@@") else text
    if "\u2581" in text:
        text = "".join(text.split(" ")).replace("\u2581", " ").strip()
    return text


Scorer = Callable[[BleuStats, BleuStats], float | None]


@dataclass(frozen=True)
class Spec:
    """A reading before scoring: how to compute it from a view's counts."""

    name: str
    library: str
    settings: dict[str, object]
    view: str
    rule: str
    scorer: Scorer
    explanation: str
    call: str
    native_scale: int
    per_segment: bool = False  # the mean of sentence scores instead of one corpus score
    departures: int = 0
    mistake: bool = False
    order: int = 4


def specs(workspace: Workspace) -> Iterator[Spec]:
    """Every reading that applies to this corpus."""
    yield from _sacrebleu_specs()
    yield from _nltk_specs()
    yield from _other_specs()
    if any(len(seg) > 1 for seg in workspace.references) or len(workspace.hypotheses) > 1:
        yield Spec(
            "sacrebleu, references in the wrong layout", "sacrebleu", {"references": "per segment, not streams"},
            "transposed:13a", "closest", _sacrebleu(ScoreOptions()),
            "sacrebleu reads references as streams; given one list per segment it pairs segment j with the j-th "
            "reference of every segment and silently drops all but the first few segments",
            "sacrebleu.corpus_bleu(hyps, refs)  # should be streams = list(zip(*refs))", 100,
            departures=1, mistake=True,
        )
    if all(len(seg) == 1 for seg in workspace.references):
        yield Spec(
            "sacrebleu, references not wrapped in a list", "sacrebleu", {"references": "refs, not [refs]"},
            "flat:13a", "closest", _sacrebleu(ScoreOptions()),
            "sacrebleu given the reference strings themselves instead of [refs] takes each string as a stream and "
            "zips their characters: only as many segments as the shortest reference has characters are scored, "
            "each against single characters",
            "sacrebleu.corpus_bleu(hyps, ref_lines)  # should be [ref_lines]", 100, departures=1, mistake=True,
        )
    if workspace.has_subwords():
        yield from _subword_specs()


def _sacrebleu(options: ScoreOptions) -> Scorer:
    return lambda stats, last: score_from_stats(stats.truncated(4), options).score


def _view(tokenize: str, lowercase: bool) -> str:
    return f"{tokenize}:lc" if lowercase else tokenize


def _sacrebleu_specs() -> Iterator[Spec]:
    for tok in available_tokenizers():  # 'ja-mecab' and 'ko-mecab' only where the mecab extra is installed
        for lc in (False, True):
            for smooth in SACREBLEU_METHODS:
                for eff in (False, True):
                    settings = {"tokenize": tok, "lowercase": lc, "smooth_method": smooth, "effective_order": eff}
                    changed = {k: v for k, v in settings.items() if v != SACREBLEU_CORPUS_DEFAULTS[k]}
                    args = "".join(f", {_arg(k)}={v!r}" for k, v in changed.items())
                    yield Spec(
                        "sacrebleu corpus_bleu", "sacrebleu", changed, _view(tok, lc), "closest",
                        _sacrebleu(ScoreOptions(tok, lc, smooth, None, eff)),
                        _sacrebleu_note("sacrebleu's corpus BLEU", changed),
                        f"sacrebleu.corpus_bleu(hyps, streams{args})", 100, departures=len(changed),
                    )
            changed = {k: v for k, v in (("tokenize", tok), ("lowercase", lc)) if v != SACREBLEU_CORPUS_DEFAULTS[k]}
            args = "".join(f", {_arg(k)}={v!r}" for k, v in changed.items())
            yield Spec(
                "mean of sacrebleu sentence_bleu", "sacrebleu", changed, _view(tok, lc), "closest",
                _sacrebleu(ScoreOptions(tok, lc, "exp", None, True)),
                _sacrebleu_note("the average of sacrebleu's sentence BLEU (exp smoothing, effective order) over the "
                                "segments — not a corpus BLEU, which pools the counts first", changed),
                f"mean(sacrebleu.sentence_bleu(h, seg{args}).score for h, seg in zip(hyps, refs))", 100,
                per_segment=True, departures=len(changed) + 1,
            )


@dataclass(frozen=True)
class Smoothing:
    """What a smoothing method does to the precisions p_n, as its library's code does it."""

    every_order_from: int | None  # every order n >= this changes, matched or not; None: only orders without a match
    text: str


# From the code, not the docstrings: sacrebleu 2.6.0 ``BLEU.compute_bleu`` (sacrebleu/metrics/bleu.py: 'add-k' adds
# to ``correct[n - 1]`` and ``total[n - 1]`` for every n > 1 before looking at the count; 'exp' and 'floor' act only
# where ``correct[n - 1] == 0``) and nltk 3.10.4 ``SmoothingFunction`` (nltk/translate/bleu_score.py: method2 adds 1
# for every ``i != 0``; method5 averages every p_n with its neighbours; method6 rewrites every order from the third,
# ``if i in [0, 1]: continue``; method7 is method4 then method5). tests/test_readings.py holds each text against both.
SMOOTHING: dict[tuple[str, str], Smoothing] = {
    ("sacrebleu", "exp"): Smoothing(None, "smoothing 'exp' changes only orders without a match: the k-th gets "
                                    "100 / (2^k total_n)"),
    ("sacrebleu", "floor"): Smoothing(None, "smoothing 'floor' changes only orders without a match: p_n = 0.1 / "
                                      "total_n"),
    ("sacrebleu", "add-k"): Smoothing(2, "smoothing 'add-k' adds 1 to the matches and n-grams of every order from 2 "
                                      "up, matched or not, so it changes the score of a sentence that matches every "
                                      "order too"),
    ("sacrebleu", "none"): Smoothing(None, "smoothing 'none' leaves every p_n as it is: an order without a match "
                                     "makes the score 0"),
    ("nltk", "method0"): Smoothing(None, "no smoothing: an order without a match becomes the smallest float"),
    ("nltk", "method1"): Smoothing(None, "smoothing method1 changes only orders without a match: p_n = 0.1 / "
                                   "total_n"),
    ("nltk", "method2"): Smoothing(2, "smoothing method2 adds 1 to the matches and n-grams of every order from 2 up, "
                                   "matched or not (Lin & Och 2004)"),
    ("nltk", "method3"): Smoothing(None, "smoothing method3 changes only orders without a match: the k-th gets "
                                   "1 / (2^k total_n)"),
    ("nltk", "method4"): Smoothing(None, "smoothing method4 changes only orders without a match: the k-th gets "
                                   "ln(c) / (5 * 2^k * total_n)"),
    ("nltk", "method5"): Smoothing(1, "smoothing method5 changes every order: each p_n becomes the mean of the "
                                   "previous smoothed p, p_n and p_(n+1)"),
    ("nltk", "method6"): Smoothing(3, "smoothing method6 changes every order from 3 up: each p_n is interpolated "
                                   "with the prior p_(n-1)^2 / p_(n-2) (Gao & He 2013)"),
    ("nltk", "method7"): Smoothing(1, "smoothing method7 changes every order: method4, then method5's averaging"),
}


SACREBLEU_CORPUS_DEFAULTS = {"tokenize": "13a", "lowercase": False, "smooth_method": "exp", "effective_order": False}


def _arg(key: str) -> str:
    return "use_effective_order" if key == "effective_order" else key


def _sacrebleu_note(what: str, changed: dict[str, object]) -> str:
    notes = []
    if "tokenize" in changed:
        notes.append(TOKENIZER_NOTES[str(changed["tokenize"])])
    if changed.get("lowercase"):
        notes.append("lowercasing forgives errors of case")
    if "smooth_method" in changed:
        notes.append(SMOOTHING["sacrebleu", str(changed["smooth_method"])].text)
    if changed.get("effective_order"):
        notes.append("the effective order leaves out orders with no n-gram at all")
    return what + (": " + "; ".join(notes) if notes else " with its defaults (13a, mixed case, exp smoothing)")


def _nltk(weights: tuple[float, ...], method: str) -> Scorer:
    return lambda stats, last: nltk_corpus(stats, last, weights, method)


def _nltk_specs() -> Iterator[Spec]:
    for view, tokens in (("none", "whitespace tokens"), ("none:lc", "lowercased whitespace tokens"),
                         ("chars", "raw strings (characters)")):
        lc = view == "none:lc"
        prep = "list(text)" if view == "chars" else ("text.lower().split()" if lc else "text.split()")
        base = 1 if view != "none" else 0
        for order, weights in NLTK_WEIGHTS.items():
            for method in NLTK_METHODS:
                settings: dict[str, object] = {"input": tokens} if view != "none" else {}
                if order != 4:
                    settings["weights"] = f"BLEU-{order}"
                if method != "method0":
                    settings["smoothing"] = method
                extra = (f", weights={tuple(round(w, 4) for w in weights)}" if order != 4 else "") + (
                    f", smoothing_function=SmoothingFunction().{method}" if method != "method0" else "")
                yield Spec(
                    "nltk corpus_bleu", "nltk", settings, view, "closest", _nltk(weights, method),
                    _nltk_note("nltk's corpus BLEU", view, order, method),
                    f"corpus_bleu([[{prep.replace('text', 'r')} for r in seg] for seg in refs], "
                    f"[{prep.replace('text', 'h')} for h "
                    f"in hyps]{extra})", 1, departures=base + (order != 4) + (method != "method0"),
                    mistake=view == "chars", order=order,
                )
            if view == "chars":
                continue
            settings = {"input": tokens} if view != "none" else {}
            if order != 4:
                settings["weights"] = f"BLEU-{order}"
            yield Spec(
                "nltk corpus_bleu before 3.4", "nltk < 3.4", settings, view, "closest",
                lambda stats, last, w=weights: nltk_before_3_4(stats, w),
                "nltk 3.2-3.3 without smoothing: the first n-gram order without a match and all higher ones were left "
                "out of the geometric mean, so a missing 4-gram match did not make the score 0",
                f"corpus_bleu([[{prep.replace('text', 'r')} for r in seg] for seg in refs], "
                f"[{prep.replace('text', 'h')} for h in hyps]{extra4(order)})  # nltk 3.2-3.3", 1,
                departures=base + (order != 4) + 1, order=order,
            )
        for method in NLTK_METHODS if view != "chars" else ():
            settings = {"input": tokens} if view != "none" else {}
            if method != "method0":
                settings["smoothing"] = method
            extra = f", smoothing_function=SmoothingFunction().{method}" if method != "method0" else ""
            yield Spec(
                "mean of nltk sentence_bleu", "nltk", settings, view, "closest", _nltk(UNIFORM_4, method),
                _nltk_note("the average of nltk's sentence BLEU over the segments (not corpus BLEU, which pools the "
                           "counts first)", view, 4, method),
                f"mean(sentence_bleu([{prep.replace('text', 'r')} for r in seg], {prep.replace('text', 'h')}{extra}) "
                "for h, seg in "
                "zip(hyps, refs))", 1, per_segment=True, departures=base + 1 + (method != "method0"),
            )


def extra4(order: int) -> str:
    """The weights argument of an nltk call for BLEU-``order`` (nothing for BLEU-4, nltk's default)."""
    return f", weights={tuple(round(w, 4) for w in NLTK_WEIGHTS[order])}" if order != 4 else ""


def _nltk_note(what: str, view: str, order: int, method: str) -> str:
    notes = []
    if view == "chars":
        notes.append("given raw strings, nltk counts characters as tokens")
    elif view == "none:lc":
        notes.append("the text was lowercased before splitting")
    else:
        notes.append("on whitespace tokens, so punctuation stays glued to words")
    if order != 4:
        notes.append(f"only n-grams up to {order} (BLEU-{order})")
    if method != "method0":
        notes.append(SMOOTHING["nltk", method].text)
    return f"{what}: " + "; ".join(notes)


def _other_specs() -> Iterator[Spec]:
    for order in (4, 3, 2, 1):
        for smooth in (False, True):
            settings: dict[str, object] = {}
            if order != 4:
                settings["max_order"] = order
            if smooth:
                settings["smooth"] = True
            yield Spec(
                "evaluate bleu", "Hugging Face evaluate", settings, "13a", "shortest",
                lambda stats, last, n=order, s=smooth: tf_nmt(stats, n, s),
                "Hugging Face evaluate's 'bleu' (TensorFlow NMT's compute_bleu on 13a tokens): the brevity penalty uses"
                " the SHORTEST reference, not the closest" + (f"; n-grams up to {order}" if order != 4 else "")
                + ("; smooth adds 1 to the matches and n-grams of every order, unigrams too" if smooth else ""),
                "evaluate.load('bleu').compute(predictions=hyps, references=refs" + "".join(
                    f", {k}={v!r}" for k, v in settings.items()) + ")", 1, departures=len(settings), order=order,
            )
            yield Spec(
                "torchmetrics BLEUScore", "torchmetrics", {("n_gram" if k == "max_order" else k): v
                                                           for k, v in settings.items()},
                "none", "first-closest", lambda stats, last, n=order, s=smooth: torchmetrics_bleu(stats, n, s),
                "torchmetrics' BLEUScore: whitespace tokens, so punctuation stays glued to words; on a length tie it "
                "takes the first reference listed" + (f"; n-grams up to {order}" if order != 4 else "")
                + ("; smooth adds 1 for orders 2 and up, but an order without a match still gives 0" if smooth else ""),
                "BLEUScore(" + ", ".join(f"{'n_gram' if k == 'max_order' else k}={v!r}" for k, v in settings.items())
                + ")(hyps, refs)", 1, departures=len(settings), order=order,
            )
    for lc in (False, True):
        yield Spec(
            "Moses multi-bleu.perl", "Moses multi-bleu.perl", {"-lc": True} if lc else {}, _view("none", lc),
            "closest", lambda stats, last: multi_bleu(stats),
            "Moses' multi-bleu.perl scores the text as it is, split on spaces (it expects tokenized text), "
            "without smoothing" + (", lowercased (-lc)" if lc else ""),
            f"perl multi-bleu.perl{' -lc' if lc else ''} ref.txt < hyp.txt", 100, departures=int(lc),
        )
    yield Spec(
        "compare-mt BLEU", "compare-mt", {}, "cmt", "closest", lambda stats, last: compare_mt_bleu(stats),
        "compare-mt's own BLEU (BleuScorer): the lines split on single spaces (no punctuation splitting), the first "
        "reference only, and an n-gram order without any match counted as if its precision were 1",
        "compare-mt ref.txt hyp.txt  # its BLEU line; or compare_mt.scorers.BleuScorer().score_corpus(refs, hyps)",
        100,
    )
    for k in (2, 3, 4):
        yield Spec(
            "mean of d2l bleu", "d2l.ai", {"k": k}, "d2l", "closest",
            lambda stats, last, k=k: d2l_sentence(stats, k),
            f"d2l.ai's bleu(pred, label, k={k}) averaged over segments: weights 1/2, 1/4, ... (not uniform), no "
            "geometric mean, the first reference only, no punctuation splitting",
            f"mean(d2l.bleu(h, seg[0], k={k}) for h, seg in zip(hyps, refs))", 1, per_segment=True, departures=1,
            order=k,
        )


def _subword_specs() -> Iterator[Spec]:
    for tok in ("13a", "none"):
        yield Spec(
            "sacrebleu on decoded subwords", "sacrebleu", {"subwords": "decoded", "tokenize": tok},
            f"decoded:{tok}", "closest", _sacrebleu(ScoreOptions(tok)),
            "sacrebleu's corpus BLEU after undoing the BPE '@@ ' joins and SentencePiece '▁' pieces: the words as "
            "people read them", f"sacrebleu.corpus_bleu(decoded_hyps, decoded_streams, tokenize={tok!r})", 100,
            departures=1,
        )


def score(spec: Spec, workspace: Workspace) -> Reading:
    """Score one reading on the workspace's corpus."""
    if spec.per_segment:
        values = [spec.scorer(seg, seg) for seg in workspace.segments(spec.view, spec.rule)]
        value = None if any(v is None for v in values) else math.fsum(values) / len(values)
    else:
        value = spec.scorer(*workspace.pooled(spec.view, spec.rule))
    score_100 = None if value is None else value * 100 / spec.native_scale
    return Reading(spec.name, spec.settings, score_100, spec.explanation, spec.library, spec.call, spec.departures,
                   spec.native_scale, spec.mistake, spec.order, view=spec.view, rule=spec.rule, scorer=spec.scorer)


def readings(workspace: Workspace) -> list[Reading]:
    """Every reading of the workspace's corpus; readings of one name that give the same number are merged into
    the one with the fewest departures from the defaults (the others listed in ``equivalent``)."""
    merged: dict[tuple[str, float | None], Reading] = {}
    for spec in specs(workspace):
        reading = score(spec, workspace)
        key = (reading.name, None if reading.score is None else round(reading.score, 9))
        kept = merged.get(key)
        if kept is None:
            merged[key] = reading
        else:
            extra = reading.label()
            merged[key] = Reading(**{**kept.__dict__, "equivalent": (*kept.equivalent, extra)})
    return list(merged.values())
