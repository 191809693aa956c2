"""The wiring: ``compare_systems`` runs every analysis of a comparison and returns one ``Comparison``.

Conventions (the lesson explains each):
- BLEU, its signature and the sentence BLEU of each segment are sacrebleu's (exact); chrF is sacrebleu's chrF2;
  TER (``ter=True``) is sacrebleu's default TER, a corpus score (edits summed over reference words summed).
- Every pair of systems is tested with paired approximate randomization and the paired bootstrap's shift p-value
  (``bleu_lab.metrics.significance``, on the statistics rows built once for all systems), with each system's 95%
  interval over the resamples; on BLEU, on chrF and (``ter=True``) on TER, with the same draws. ``pairs`` holds the
  pairs with the baseline, ``all_pairs`` every pair (the later system of the pair against the earlier, the baseline
  first); the reports correct ``all_pairs`` for many comparisons with Bonferroni (lesson 9) and Holm when there are more
  than two systems (TER: Holm over its own pairs; lower TER is better).
- The word-level analyses (word accuracy by frequency, salient n-grams) and the reference-length buckets use the
  first reference of each segment, as compare-mt does with its one reference file; BLEU uses all references.
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from ..metrics.chrf import ChrfOptions, segment_rows
from ..metrics.chrf import scores_from_rows as chrf_scores
from ..metrics.segment_scores import SegmentScores
from ..metrics.significance import (
    DRAW_FLAGS,
    MAX_DRAWS,
    PairedRows,
    _rows,
    bonferroni_alpha,
    bootstrap_from_rows,
    check_draws,
    holm_adjusted,
    randomization_from_rows,
)
from ..metrics.ter import check_corpus_words, ter_signature
from ..metrics.ter import rows_score as ter_score
from ..metrics.ter import scores_from_rows as ter_scores
from ..metrics.ter import system_rows as ter_rows_of
from ..sacrebleu_style import ScoreOptions, check_corpus, count_refs
from ..statistics import prepare_references
from ..tokenization import make_preprocessor
from ..validation import as_sequence, check_flag, check_segment_lengths, plain_strings
from .bucketers import (
    FREQUENCY,
    LENGTH_DIFFERENCE,
    LENGTH_DIFFERENCE_MERGED,
    REFERENCE_LENGTH,
    SENTENCE_BLEU,
    Bucketer,
    read_frequency_file,
    word_frequencies,
)
from .metrics import (
    MetricResult,
    disagreements,
    every_agreement,
    holm_pairs,
    largest_gaps,
    metric_buckets,
    metric_examples,
    metric_tests,
    oriented,
)
from .people import MetricTests, PairSide, people_table, ranked_clusters
from .reporters import ALPHA, report_html, to_csv, to_dict, to_html, to_json, to_latex, to_text
from .results import (
    BucketTable,
    ComparisonData,
    Example,
    PairTest,
    SalientPair,
    SystemScores,
    WordAccuracy,
    WordExample,
)
from .scorers import (
    COMPARE_TYPES,
    bucket_counts,
    bucket_indices,
    bucket_scores,
    chrf_from_rows,
    ngram_counts,
    reference_ngram_counts,
    rows_score,
    salient_ngrams,
    sentence_scores,
    word_counts,
)

__all__ = ["BucketTable", "Comparison", "Example", "PairTest", "SalientPair", "SystemScores", "WordAccuracy",
           "compare_systems"]


class Comparison(ComparisonData):
    """Everything ``compare_systems`` found. Show it in a notebook, or export it (``to_json``, ``to_csv``, ...)."""

    def to_dict(self) -> dict:
        """The report as plain data (what ``to_json`` writes)."""
        return to_dict(self)

    def to_json(self, path: str | Path | None = None) -> str:
        """The report as JSON text; also written to ``path`` when given."""
        return to_json(self, path)

    def to_csv(self, directory: str | Path) -> list[Path]:
        """One CSV file per table in ``directory`` (created if needed); returns the files written."""
        return to_csv(self, directory)

    def to_latex(self, path: str | Path | None = None) -> str:
        """The scores table (and the pairwise tests) as a LaTeX ``tabular``; also written to ``path`` when given."""
        return to_latex(self, path)

    def to_html(self, path: str | Path | None = None) -> str:
        """The whole report as one standalone HTML page (no external resources); also written to ``path``."""
        return to_html(self, path)

    def _repr_html_(self) -> str:
        return report_html(self)

    def __str__(self) -> str:
        return to_text(self)


def compare_systems(
    systems: Mapping[str, Sequence[str]] | Sequence[Sequence[str]],
    references: Sequence[Sequence[str]] | Sequence[str],
    *,
    names: Sequence[str] | None = None,
    tokenize: str = "13a",
    lowercase: bool = False,
    baseline: str | int | None = None,
    sources: Sequence[str] | None = None,
    frequencies: Mapping[str, int] | str | Path | None = None,
    n_samples: int = 1000,
    n_trials: int = 10000,
    seed: int | None = 12345,
    alpha: float = 1.0,
    ngram_order: int = 4,
    compare_type: str = "match",
    top_ngrams: int = 50,
    n_examples: int = 10,
    chrf: bool = True,
    scores: Mapping[str, SegmentScores] | None = None,
    ter: bool = False,
    people: Sequence[str] | str | None = None,
) -> Comparison:
    """Compare two or more systems' outputs on one test set, every figure from bleu_lab's exact core.

    ``systems``: a dict {name: output lines}, or a list of output-line lists (named by ``names``, else sys1, sys2,
    ...). ``references[i]`` lists the reference strings of segment i (as in ``corpus_score``); a plain list of
    strings means one reference per segment. ``baseline``: the name or index of the system the others are tested
    against (default: the first). ``sources``: the source lines, shown beside the examples.
    ``frequencies``: word counts for the frequency buckets, a {word: count} dict or a ``word<TAB>count`` file
    (default: counted in the first reference of every segment, as compare-mt does).
    ``n_samples`` bootstrap resamples, ``n_trials`` randomization trials, ``seed`` for both and for the bucket
    intervals. ``alpha``, ``ngram_order``, ``compare_type`` ('match', 'over' or 'under'), ``top_ngrams``: the
    salient n-grams (compare-mt's defaults). ``n_examples``: segments shown per pair. ``chrf=False`` skips chrF
    (without TER the slowest score: about half the time on a 1,000-segment test set with three references).
    ``ter=True`` adds sacrebleu's default TER: each system's corpus TER (lower is better) and both paired tests on
    every pair, with the same draws as BLEU's and Holm's adjusted p over the pairs; off by default because TER's edit
    distance with shifts is slow (about ``TER_SECONDS`` CPU seconds per system and reference on WMT21 en-de's 1,002
    segments).
    ``scores``: other metrics' (or people's) segment scores, {name: ``segment_scores.SegmentScores``} (from
    ``read_segment_scores`` or ``segment_scores``; unrated segments NaN): each gets its system means with 95% intervals
    and both paired tests on every pair, its means per reference-length and (merged) length-difference bucket and the
    segments where each system and the baseline differ most in it (``MetricResult.buckets``, ``.examples``), and
    every pair of metrics (BLEU, chrF, these) gets its Kendall's tau per system and pooled, system-level pairwise
    accuracy and tau, and the segments BLEU and each rank furthest apart (``compare.metrics``).
    ``people``: the names of the ``scores`` metrics that hold people's judgements (default: every ``scores`` metric);
    each gets a people-against-the-metrics table (``compare.people``): every system's score and rank by every
    metric and by it, its clusters, and every pair a metric and it order the opposite way, with both sides' tests.
    """
    outputs = _systems(systems, names)
    refs = _references(references, len(next(iter(outputs.values()))))
    for name, lines in outputs.items():
        check_corpus(lines, refs, f"systems[{name!r}]")
        check_segment_lengths(lines, f"systems[{name!r}]")
    for i, seg in enumerate(refs):
        check_segment_lengths(seg, f"references[{i}]")
    base = _baseline(baseline, list(outputs))
    srcs = None if sources is None else plain_strings(as_sequence(sources, "sources", "source strings"), "sources",
                                                       "a source string")
    if srcs is not None:
        check_segment_lengths(srcs, "sources")
    if srcs is not None and len(srcs) != len(refs):
        raise ValueError(f"sources has {len(srcs)} lines but the systems have {len(refs)}: one source per segment")
    options = ScoreOptions(tokenize, check_flag(lowercase, "lowercase"))
    if check_flag(ter, "ter"):
        check_corpus_words(outputs, refs)  # TER's bound, before anything is tokenized
    if compare_type not in COMPARE_TYPES:
        raise ValueError(f"compare_type must be one of {', '.join(COMPARE_TYPES)}, got {compare_type!r}")
    for value, arg in ((top_ngrams, "top_ngrams"), (n_examples, "n_examples"), (ngram_order, "ngram_order")):
        if isinstance(value, bool) or not isinstance(value, int) or value < (1 if arg == "ngram_order" else 0):
            raise ValueError(f"{arg} must be a whole number >= {1 if arg == 'ngram_order' else 0}, got {value!r}")

    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not alpha > 0:
        raise ValueError(f"alpha must be a number > 0 (compare-mt's default is 1.0), got {alpha!r}")
    for value, arg in ((n_samples, "n_samples"), (n_trials, "n_trials")):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{arg} must be a whole number >= 1, got {value!r}")
        check_draws(value, len(refs), arg)  # the paired tests' bound, before any text is tokenized
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise ValueError(f"seed must be a whole number >= 0 (or None for fresh randomness), got {seed!r}")
    extra = _scores(scores, list(outputs), len(refs))
    judges = _people(people, extra)
    n_pairs = len(outputs) * (len(outputs) - 1) // 2
    requested = {"n_samples": n_samples, "n_trials": n_trials}
    n_samples, n_trials = (reachable_draws(requested[arg], n_pairs, len(refs), arg) for arg in requested)

    prep = make_preprocessor(tokenize, lowercase)
    ref_tokens = [[prep(r) for r in seg] for seg in refs]
    prepared = [prepare_references(seg, options.max_ngram_order) for seg in ref_tokens]
    first_ref = [seg[0] for seg in ref_tokens]
    out_tokens = {name: [prep(h) for h in lines] for name, lines in outputs.items()}
    rows = {name: _rows(prepared, toks, options.max_ngram_order) for name, toks in out_tokens.items()}
    nrefs = count_refs(refs)

    chrf_options = ChrfOptions(lowercase=lowercase)
    chrf_rows = ({name: segment_rows(lines, refs, chrf_options) for name, lines in outputs.items()}
                 if check_flag(chrf, "chrf") else {})
    chrfs = {name: chrf_from_rows(r, chrf_options, nrefs) for name, r in chrf_rows.items()}
    ter_rows = ter_rows_of(outputs, refs) if ter else {}  # sacrebleu's TER statistics, once per system
    ters = {name: ter_score(r, nrefs) for name, r in ter_rows.items()}
    scores = tuple(SystemScores(name, rows_score(rows[name], options, nrefs), chrfs.get(name), ters.get(name))
                   for name in outputs)

    def chrf_tests(baseline: str, system: str) -> dict:
        """chrF's paired tests on the same draws as BLEU's (equal to sacrebleu's on chrF: tests/test_significance)."""
        if not chrf_rows:
            return {}
        paired = PairedRows(options, chrf_rows[baseline], chrf_rows[system], chrfs[baseline], chrfs[system],
                            lambda summed: chrf_scores(summed, chrf_options))
        return {"chrf_randomization": randomization_from_rows(paired, n_trials=n_trials, seed=seed),
                "chrf_bootstrap": bootstrap_from_rows(paired, n_samples=n_samples, seed=seed, method="shift")}

    def ter_tests(baseline: str, system: str) -> dict:
        """TER's paired tests on the same draws as BLEU's (equal to sacrebleu's on TER: tests/test_compare)."""
        if not ter_rows:
            return {}
        paired = PairedRows(options, ter_rows[baseline], ter_rows[system], ters[baseline], ters[system], ter_scores)
        return {"ter_randomization": randomization_from_rows(paired, n_trials=n_trials, seed=seed),
                "ter_bootstrap": bootstrap_from_rows(paired, n_samples=n_samples, seed=seed, method="shift")}
    order = [base] + [name for name in outputs if name != base]
    tested = [
        PairTest(
            system, baseline,
            randomization_from_rows(paired, n_trials=n_trials, seed=seed),
            bootstrap_from_rows(paired, n_samples=n_samples, seed=seed, method="shift"),
            **chrf_tests(baseline, system), **ter_tests(baseline, system),
        )
        for i, baseline in enumerate(order) for system in order[i + 1:]
        for paired in (PairedRows.from_rows(rows[baseline], rows[system], options, nrefs),)
    ]
    every_pair = tuple(tested)
    for metric, computed in (("", True), ("chrf_", bool(chrf_rows)), ("ter_", bool(ter_rows))):
        if computed and every_pair:  # each metric's pairs a family of their own, Holm-adjusted
            adjusted = {f"{metric}{test}_holm": holm_adjusted([getattr(p, f"{metric}{test}").p_value
                                                               for p in every_pair])
                        for test in ("randomization", "bootstrap")}
            every_pair = tuple(replace(p, **{name: values[k] for name, values in adjusted.items()})
                               for k, p in enumerate(every_pair))
    pairs = tuple(p for p in every_pair if p.baseline == base)
    sentence = {name: sentence_scores(r, options) for name, r in rows.items()}

    bucket_of: dict[str, dict[str, np.ndarray]] = {}

    def table(bucketer: Bucketer, values: Mapping[str, Sequence[float]], counts_only: bool = False) -> BucketTable:
        n = len(bucketer.cutoffs) + 1
        index = bucket_of[bucketer.name] = {name: bucket_indices(values[name], bucketer) for name in outputs}
        if counts_only:  # a bucket defined by the score: its BLEU and interval would only restate the bucket
            return BucketTable(bucketer, {name: bucket_counts(index[name], n) for name in outputs}, counts_only=True)
        return BucketTable(bucketer, {
            name: bucket_scores(rows[name], index[name], n, options, n_samples, seed) for name in outputs
        })

    ref_lengths = [len(r) for r in first_ref]
    length_table = table(REFERENCE_LENGTH, {name: ref_lengths for name in outputs})
    differences = {name: [len(o) - r for o, r in zip(out_tokens[name], ref_lengths)] for name in outputs}
    diff_table = table(LENGTH_DIFFERENCE, differences)
    merged_table = table(LENGTH_DIFFERENCE_MERGED, differences)
    band_table = table(SENTENCE_BLEU, {name: sentence[name].tolist() for name in outputs}, counts_only=True)

    freq, source = _frequencies(frequencies, first_ref)
    n_freq = len(FREQUENCY.cutoffs) + 1
    word_bucket, unseen = {w: FREQUENCY.bucket(f) for w, f in freq.items()}, FREQUENCY.bucket(0)
    ref_words = [Counter(ref) for ref in first_ref]
    accuracy = WordAccuracy(FREQUENCY, {
        name: word_counts(first_ref, out_tokens[name], lambda w: word_bucket.get(w, unseen), n_freq, ref_words)
        for name in outputs
    }, source, word_examples(first_ref, out_tokens, lambda w: word_bucket.get(w, unseen), n_freq))

    ref_ngrams = reference_ngram_counts(first_ref, 1, ngram_order)
    counts = {name: ngram_counts(first_ref, out_tokens[name], 1, ngram_order, ref_ngrams, (compare_type,))[compare_type]
              for name in outputs}
    salient = tuple(
        SalientPair(name, base, compare_type, alpha, *salient_ngrams(counts[name], counts[base], alpha, top_ngrams))
        for name in outputs if name != base
    )
    examples = tuple(ex for name in outputs if name != base
                     for ex in _examples(sentence[name], sentence[base], name, base, n_examples))
    settings = {"tokenize": tokenize, "lowercase": lowercase, "n_samples": n_samples, "n_trials": n_trials,
                "seed": seed, "alpha": alpha, "ngram_order": ngram_order, "compare_type": compare_type,
                "raised": {arg: [asked, used] for (arg, asked), used in zip(requested.items(), (n_samples, n_trials))
                           if asked != used}}
    bleu = {s.name: s.bleu.score for s in scores}
    metric_results = tuple(
        replace(metric_tests(m, order, n_samples, n_trials, seed),
                buckets=tuple(metric_buckets(m, t.bucketer, bucket_of[t.bucketer.name], n_samples, seed)
                              for t in (length_table, merged_table)),
                examples=metric_examples(m, base, list(outputs), n_examples))
        for m in extra.values())
    agreement, disagree = _agreement(extra, scores, sentence, chrf_rows, chrf_options, n_examples)
    every_metric = _metric_tests(scores, every_pair, metric_results)
    tables = tuple(people_table(next(m for m in every_metric if m.name == name), every_metric, ALPHA)
                   for name in judges)
    return Comparison(
        tuple(outputs), base, options, scores[0].bleu.signature, scores[0].chrf.signature if chrf else "", scores,
        pairs, every_pair, accuracy, length_table, diff_table, band_table, salient, examples, outputs, refs, srcs,
        sentence, ref_lengths, bucket_of, settings,
        {test: clusters(bleu, every_pair, test) for test in ("AR", "BS")} if len(outputs) > 2 else {}, merged_table,
        metric_results, agreement, disagree, extra, ter_signature(nrefs) if ter else "", tables,
    )


def _scores(scores: object, names: list[str], segments: int) -> dict[str, SegmentScores]:
    """The --scores metrics, checked: ``SegmentScores`` for every system, one score per segment, no name taken."""
    if scores is None:
        return {}
    if not isinstance(scores, Mapping):
        raise TypeError(f"scores must be a dict {{name: SegmentScores}}, not {type(scores).__name__}")
    for key, metric in scores.items():
        if not isinstance(metric, SegmentScores):
            raise TypeError(f"scores[{key!r}] must be SegmentScores: build it with bleu_lab.metrics.segment_scores."
                            "segment_scores(name, {system: scores}, higher_is_better=...) or read_segment_scores")
        if key != metric.name or key in BUILT_IN_METRICS:
            raise ValueError(f"scores[{key!r}] must be keyed by its own name ({metric.name!r}), and not BLEU or chrF")
        missing = [n for n in names if n not in metric.scores]
        if missing:
            raise ValueError(f"scores[{key!r}] has no scores for system {missing[0]!r}; it has "
                             f"{', '.join(metric.scores)}")
        for n in names:
            if len(metric.scores[n]) != segments:
                raise ValueError(f"scores[{key!r}] has {len(metric.scores[n])} scores for {n!r} but the test set has "
                                 f"{segments} segments: one per segment (None or NaN where not rated)")
            if not metric.rated(n).any():
                raise ValueError(f"scores[{key!r}] rates no segment of {n!r}")
    return {key: SegmentScores(m.name, m.higher_is_better, {n: m.scores[n] for n in names}, m.source, m.note)
            for key, m in scores.items()}


BUILT_IN_METRICS = ("BLEU", "chrF")
# CPU seconds of sacrebleu's TER per system and reference file on WMT21 en-de's 1,002 segments: measured 3.0 to 6.3
# (Facebook-AI, UEdin and Online-B against references A, C and D; sacrebleu 2.6, a shared 2-core machine)
TER_SECONDS = 4


def _agreement(extra, scores, sentence, chrf_rows, chrf_options, n_examples) -> tuple[tuple, tuple]:
    """Every pair of metrics (BLEU, chrF, each --scores; higher is better for all) and, for BLEU and each --scores
    metric, the segments they rank furthest apart; nothing without --scores."""
    if not extra:
        return (), ()
    segment = {"BLEU": sentence}
    system = {"BLEU": {s.name: s.bleu.score for s in scores}}
    if chrf_rows:
        segment["chrF"] = {n: chrf_scores(r, chrf_options) for n, r in chrf_rows.items()}
        system["chrF"] = {s.name: s.chrf.score for s in scores}
    for name, m in extra.items():
        segment[name] = {n: oriented(v, m.higher_is_better) for n, v in m.scores.items()}
        system[name] = {n: oriented(np.float64(m.mean(n)), m.higher_is_better) for n in m.scores}
    found = tuple(d for name, m in extra.items()
                  for d in disagreements("BLEU", name, segment["BLEU"], segment[name], sentence, m.scores, n_examples))
    return every_agreement(segment, system), found


def _systems(systems: object, names: Sequence[str] | None) -> dict[str, list[str]]:
    """{name: output lines}, checked: at least one system, distinct non-empty names, lists of strings."""
    if isinstance(systems, Mapping):
        if names is not None:
            raise ValueError("give names only with a list of systems; a dict already names its systems")
        items = list(systems.items())
    else:
        lists = as_sequence(systems, "systems", "systems' output lines (a dict {name: lines} or a list of lists)")
        if lists and isinstance(lists[0], str):
            raise TypeError("systems must be a list of systems (each a list of output lines) or a dict "
                            "{name: lines}; for one system, wrap it: [lines]")
        if names is None:
            names = [f"sys{i}" for i in range(1, len(lists) + 1)]
        names = plain_strings(as_sequence(names, "names", "system names"), "names", "a system name")
        if len(names) != len(lists):
            raise ValueError(f"names has {len(names)} entries but there are {len(lists)} systems: one name each")
        items = list(zip(names, lists))
    if not items:
        raise ValueError("systems is empty: give at least one system's output lines")
    result: dict[str, list[str]] = {}
    for name, lines in items:
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"every system needs a non-empty name, got {name!r}")
        if name in result:
            raise ValueError(f"two systems are called {name!r}: give each a different name")
        result[name] = plain_strings(as_sequence(lines, f"systems[{name!r}]", "output lines"), f"systems[{name!r}]",
                                     "an output line")
    sizes = {name: len(lines) for name, lines in result.items()}
    first = next(iter(sizes))
    for name, size in sizes.items():
        if size != sizes[first]:
            raise ValueError(f"system {name!r} has {size} lines but {first!r} has {sizes[first]}: "
                             "every system must translate the same segments")
    if sizes[first] == 0:
        raise ValueError("the systems have no lines: a comparison needs at least one segment")
    return result


def _references(references: object, n: int) -> list[list[str]]:
    """Per-segment reference lists; a plain list of strings is one reference per segment."""
    refs = as_sequence(references, "references", "reference lists, one per segment (references[i] for segment i)")
    if refs and all(isinstance(r, str) for r in refs):
        refs = [[r] for r in refs]
    if len(refs) != n:
        raise ValueError(f"references has {len(refs)} segments but the systems have {n} lines: one entry per segment")
    return refs


def _baseline(baseline: object, names: list[str]) -> str:
    if baseline is None:
        return names[0]
    if isinstance(baseline, int) and not isinstance(baseline, bool):
        if not 0 <= baseline < len(names):
            raise ValueError(f"baseline index {baseline} is out of range: there are {len(names)} systems")
        return names[baseline]
    if baseline not in names:
        raise ValueError(f"baseline {baseline!r} is not one of the systems: {', '.join(map(repr, names))}")
    return baseline


def _frequencies(frequencies: object, first_ref: list[list[str]]) -> tuple[Mapping[str, int], str]:
    if frequencies is None:
        return word_frequencies(first_ref), "reference"
    if isinstance(frequencies, (str, Path)):
        return read_frequency_file(str(frequencies)), str(frequencies)
    if isinstance(frequencies, Mapping):
        return Counter(frequencies), "given counts"
    raise TypeError(f"frequencies must be a dict {{word: count}} or a file path, not {type(frequencies).__name__}")


def _examples(system: np.ndarray, baseline: np.ndarray, name: str, base: str, k: int) -> list[Example]:
    """The k segments with the largest |sentence BLEU gap| (ties: the earlier segment first); no zero gaps."""
    gaps = system - baseline
    return [Example(i, name, base, float(gaps[i])) for i in largest_gaps(gaps, k)]


class ThresholdOutOfReach(ValueError):
    """The family-wise threshold (``ALPHA`` / pairs) is below every p-value ``count`` resamples (or trials, the
    argument ``name``) can give, and the count that would reach it needs more than ``MAX_DRAWS`` random draws."""

    def __init__(self, count: int, needed: int, pairs: int, segments: int, name: str):
        self.count, self.needed, self.pairs, self.segments, self.name = count, needed, pairs, segments, name
        super().__init__(self._text(name))

    def _text(self, name: str) -> str:
        threshold = bonferroni_alpha(ALPHA, self.pairs)
        return (f"{self.pairs} pairs are tested together, so each is read at {ALPHA:g} / {self.pairs} = "
                f"{threshold:.2g}, below 1 / ({self.count} + 1), the smallest p-value {name} {self.count} can give: "
                f"every pair would read 'not significant'. {name} {self.needed:,} would reach below it, but on "
                f"{self.segments:,} segments that needs {self.needed * self.segments:,} random draws, more than the "
                f"{MAX_DRAWS:,} that fit in memory: compare fewer systems at a time (or fewer segments)")

    def in_flags(self) -> str:
        """The refusal in the command line's words (``--samples``, ``--trials``)."""
        return self._text(DRAW_FLAGS.get(self.name, self.name))


ROUND_DRAWS = 1000  # raised counts are multiples of this


def reachable_draws(count: int, pairs: int, segments: int, name: str) -> int:
    """``count`` resamples (or trials), raised when it cannot give a p-value below the family-wise threshold.

    Both paired tests' p-values are (k + 1) / (count + 1), so the smallest is 1 / (count + 1). When that is not below
    ``ALPHA`` / ``pairs`` (Bonferroni's level, and Holm's for the smallest p), every pair would read "not
    significant" whatever the data: the count is raised to the smallest multiple of ``ROUND_DRAWS`` whose smallest
    p is at most half the threshold, and refused (``ThresholdOutOfReach``) when those do not fit in ``MAX_DRAWS``
    random draws.
    """
    if pairs == 0:  # one system: nothing is tested
        return count
    threshold = bonferroni_alpha(ALPHA, pairs)
    if 1 / (count + 1) < threshold:
        return count
    needed = ROUND_DRAWS  # a round count whose smallest p is at most half the threshold: a pair is not read
    while not 1 / (needed + 1) <= threshold / 2:  # "significant" only when no resample at all comes near
        needed += ROUND_DRAWS
    if needed * segments > MAX_DRAWS:
        raise ThresholdOutOfReach(count, needed, pairs, segments, name)
    return needed


def clusters(bleu: Mapping[str, float], every_pair: Sequence[PairTest], test: str) -> list[list[str]]:
    """WMT-style clusters by ``test`` ("AR" or "BS"), read with Holm's adjusted p at ``ALPHA``: the best system by
    BLEU and every system not significantly different from it form the first cluster; the same on the systems left,
    until none is left. Within a cluster, by BLEU (``people.ranked_clusters``)."""
    def different(a: str, b: str) -> bool:
        p = next(p for p in every_pair if {p.system, p.baseline} == {a, b})
        adjusted = p.randomization_holm if test == "AR" else p.bootstrap_holm
        return p.difference != 0 and adjusted < ALPHA

    return ranked_clusters(bleu, True, different)


def _metric_tests(scores: Sequence[SystemScores], every_pair: Sequence[PairTest],
                  metric_results: Sequence[MetricResult]) -> list[MetricTests]:
    """Every metric of the report as ``people.MetricTests``: BLEU, chrF and TER (when computed) from the scores and
    ``every_pair``'s tests, each --scores metric from its ``MetricResult`` (Holm over its own pairs)."""
    found = [MetricTests("BLEU", True, {s.name: s.bleu.score for s in scores},
                         tuple(PairSide(p.system, p.baseline, p.difference, p.randomization_holm, p.bootstrap_holm)
                               for p in every_pair))]
    if all(s.chrf is not None for s in scores):
        found.append(MetricTests("chrF", True, {s.name: s.chrf.score for s in scores}, tuple(
            PairSide(p.system, p.baseline, p.chrf_bootstrap.difference, p.chrf_randomization_holm,
                     p.chrf_bootstrap_holm) for p in every_pair)))
    if all(s.ter is not None for s in scores):
        found.append(MetricTests("TER", False, {s.name: s.ter.score for s in scores}, tuple(
            PairSide(p.system, p.baseline, p.ter_bootstrap.difference, p.ter_randomization_holm,
                     p.ter_bootstrap_holm) for p in every_pair)))
    for m in metric_results:
        holm_ar, holm_bs = holm_pairs(m.all_pairs)
        found.append(MetricTests(m.name, m.higher_is_better, {s.name: s.mean for s in m.systems}, tuple(
            PairSide(p.system, p.baseline, p.difference, a, b) for p, a, b in zip(m.all_pairs, holm_ar, holm_bs))))
    return found


def _people(people: object, extra: Mapping[str, SegmentScores]) -> list[str]:
    """The --scores metrics that are people's judgements, checked (None: every --scores metric)."""
    if people is None:
        return list(extra)
    if isinstance(people, str):
        people = [people]
    names = list(as_sequence(people, "people", "names of --scores metrics"))
    for name in names:
        if name not in extra:
            raise ValueError(f"people names {name!r}, which is not a scores metric; the scores metrics are "
                             f"{', '.join(extra) or 'none (give scores=...)'}")
    return list(dict.fromkeys(names))


WORD_EXAMPLES = 3  # segments shown per word-frequency bucket


def word_examples(first_ref: Sequence[Sequence[str]], out_tokens: Mapping[str, Sequence[Sequence[str]]],
                  bucket_of: Callable[[str], int], n_buckets: int,
                  k: int = WORD_EXAMPLES) -> dict[int, list[WordExample]]:
    """Per frequency bucket, ``k`` segments whose first reference holds words of the bucket, with the words each
    system's output has: first the segments where some system misses one of them, then the others (earlier first)."""
    candidates: dict[int, list[tuple[bool, int, WordExample]]] = {b: [] for b in range(n_buckets)}
    outputs = {name: [set(toks) for toks in tokens] for name, tokens in out_tokens.items()}
    for i, ref in enumerate(first_ref):
        by_bucket: dict[int, list[str]] = {}
        for word in dict.fromkeys(ref):
            by_bucket.setdefault(bucket_of(word), []).append(word)
        for b, words in by_bucket.items():
            found = {name: tuple(w for w in words if w in toks[i]) for name, toks in outputs.items()}
            complete = all(len(f) == len(words) for f in found.values())
            candidates[b].append((complete, i, WordExample(i, tuple(words), found)))
    return {b: [ex for _, _, ex in heapq.nsmallest(k, found, key=lambda x: x[:2])]
            for b, found in candidates.items() if found}
