"""``why``: which reading of BLEU reproduces a reported number, and which input mistakes are visible.

    result = bl.why(hypotheses, references, 27.3)
    result.matches      # readings that give 27.3 (within the reported precision), closest first
    result.nearest      # the closest readings, whether or not they match
    result.findings     # input mistakes seen: reference layout, tokenized text, subword residue, scale, alignment

When no reading with the library's defaults gives the number, ``why`` also tries the likeliest readings (at most one
departure) on other corpora: a subset of the references, the segments of a named subset (``segments=``: e.g. only the
ones people rated), and the two files paired again where their alignment shifts by one line.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal, InvalidOperation
from numbers import Real

from ..reports.templates import render
from ..scripts import tokenizer_warning, unspaced_text
from ..tokenization import OPTIONAL_TOKENIZERS, available_tokenizers
from ..validation import as_sequence, check_segment_lengths, plain_strings
from .catalogue import SUBWORD_MARKERS, Reading, Workspace, readings, score, specs

NEAREST = 5
REALIGN_FROM = 4  # files one line apart are paired again (``realign``) when both have at least this many lines
LIKELIER_CAUSES = ("Likelier than any reading below: the number was computed against another reference (or more of "
                   "them), on another version of the test set (other segments, other fixes), or from another output "
                   "file (another checkpoint, other post-processing).")
CHARACTER_VIEWS = ("char", "chars")  # readings on characters are not evidence about the number of references
TOKENIZED_MARKS = re.compile(r" [.,!?;:)'\"]( |$)|&apos;|&quot;|@-@| n't\b| 's\b")


@dataclass(frozen=True)
class Finding:
    """What ``why`` can see besides the readings (``kind``: layout, tokenized, subwords, scale, alignment,
    references, tokenizer, untried)."""

    kind: str
    message: str


@dataclass(frozen=True)
class WhyResult:
    """What ``why`` found: the readings that reproduce ``reported``, the nearest ones, and input mistakes."""

    reported: float
    tolerance: float
    matches: tuple[Reading, ...]
    nearest: tuple[Reading, ...]
    findings: tuple[Finding, ...]
    readings: tuple[Reading, ...] = field(repr=False)
    workspace: Workspace = field(repr=False, compare=False)
    scaled: frozenset[str] = frozenset()  # labels of the matches that give the number on the 0–1 scale
    workspaces: dict[str, Workspace] = field(default_factory=dict, repr=False, compare=False)  # per other corpus
    decimals: int | None = None  # how many decimals the reported number was written with

    @property
    def reported_text(self) -> str:
        """The reported number as it was written (27.30 stays 27.30)."""
        return f"{self.reported:.{self.decimals}f}" if self.decimals is not None else f"{self.reported:g}"

    def workspace_of(self, reading: Reading) -> Workspace:
        """The corpus ``reading`` was scored on (all the references and segments, or the subset it names)."""
        return self.workspaces.get(reading.references or reading.corpus, self.workspace)

    @property
    def verdict(self) -> str:
        """One sentence: which reading (or none) gives the reported number."""
        if self.matches:
            best = self.matches[0]
            n = len(self.matches) - 1
            others = "" if not n else "; 1 other reading also does" if n == 1 else f"; {n} other readings also do"
            if best.label() in self.scaled:
                return (f"{self.reported_text} is reproduced on the 0–1 scale by {best.label()}, which returns "
                        f"{best.native:.4f} ({best.score:.2f} on the 0–100 scale){others}.")
            return f"{self.reported_text} is reproduced by {best.label()}: {best.score:.2f}{others}."
        near = self.nearest[0]
        more = (" It is above every BLEU-4 reading on words with these references: more references may have been "
                "used." if any(f.kind == "references" for f in self.findings) else "")
        return (f"No reading gives {self.reported_text} (within ±{self.tolerance:g}).{more} {LIKELIER_CAUSES} The "
                f"nearest reading is {near.label()}: {near.score:.2f}.")

    def __str__(self) -> str:
        lines = [self.verdict]
        shown = self.matches or self.nearest
        lines.append("matches:" if self.matches else "nearest readings:")
        for r in shown[:10]:
            lines.append(f"  {r.score:8.2f}  {r.label()}")
            lines.append(f"            {r.explanation}")
        lines += [f"note ({f.kind}): {f.message}" for f in self.findings]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        """The verdict, the readings shown (matches, else the nearest) and the findings (templates/why.html.j2)."""
        return render("why.html.j2", verdict=self.verdict, readings=(self.matches or self.nearest)[:10],
                      findings=self.findings)


def why(
    hypotheses: Sequence[str],
    references: Sequence,
    reported: float | str,
    *,
    tolerance: float | None = None,
    reference_names: Sequence[str] | None = None,
    segments: Mapping[str, Sequence[int]] | None = None,
) -> WhyResult:
    """Find the readings of BLEU that give ``reported`` on this corpus, and the input mistakes that show.

    ``hypotheses``: one string per segment. ``references``: per segment (``references[i]`` = the reference strings
    of segment i, as ``corpus_score`` takes them), one string per segment, or sacrebleu's streams (one list per
    reference file; recognized and noted). An empty reference string is an empty reference, as sacrebleu reads it
    (in streams, ``None`` means "no reference here", as in sacrebleu). ``reported``: the number to explain, 0–100
    (a 0–1 number is recognized too). ``tolerance``: how far a reading may be from it; by default half a unit of its
    last printed decimal (27.3 -> 0.05), so every reading that *rounds* to the reported number matches.
    ``reference_names``: one name per reference (e.g. the file names), for "computed against reference A only".
    ``segments``: named subsets of the segments, {name: 1-based segment numbers} (e.g. the segments people rated),
    for "computed on the 527 segments of mqm.tsv".

    Hypotheses one line longer or shorter than the references are paired where the two match best (a hypothesis
    line left out, or an empty hypothesis put in), and a finding says where; every reading is on that pairing.

    Among the matches, the reading with the fewest departures from its library's defaults leads, then one with all
    the references before one with a subset of them, a proper use of a library before a misuse (raw strings to
    nltk, references in the wrong layout), then the closest. With several references, the readings with at most one
    departure are tried against every subset of them too when no default reading matches with all of them.
    """
    value, decimals = _reported(reported)
    text = f"{value:.{decimals}f}" if decimals is not None else f"{value:g}"
    tol = _tolerance(tolerance, decimals)
    hyps = plain_strings(as_sequence(hypotheses, "hypotheses", "hypothesis strings (one per segment)"),
                         "hypotheses", "a hypothesis string")
    if not hyps:
        raise ValueError("hypotheses is empty: give at least one hypothesis string")
    check_segment_lengths(hyps, "hypotheses")
    refs, findings = _per_segment(hyps, references)
    if len(refs) != len(hyps):
        given = len(hyps)
        hyps, how = realign(hyps, refs)
        findings.append(Finding("alignment", f"the hypotheses have {given} lines and the references {len(refs)}: "
                                f"read with {how}, where the two files pair "
                                "best; every reading below is on that pairing (sacrebleu and nltk refuse files of "
                                "different lengths, and zip() silently drops the last segment)"))
    subsets = _segment_subsets(segments, len(hyps))
    names = _reference_names(reference_names, refs)
    workspace = Workspace(hyps, refs)
    catalogue = readings(workspace)
    ranked = _rank(catalogue, value, tol)
    workspaces: dict[str, Workspace] = {}
    if not ranked or ranked[0][0].departures > 0:
        others = _subset_readings(workspace, names) if names else []
        others += _corpus_readings(workspace, subsets)
        for other_ws, reading in others:
            workspaces[reading.references or reading.corpus] = other_ws
            catalogue.append(reading)
        ranked = _rank(catalogue, value, tol)
    every = sorted(catalogue, key=lambda r: (r.score is None, r.score or 0.0))
    scored = [r for r in catalogue if r.score is not None and math.isfinite(r.score)]
    scaled = frozenset(r.label() for r, on_scale in ranked if on_scale)
    target = value * 100 if ranked and ranked[0][1] else value
    nearest = sorted(scored, key=lambda r: (abs(r.score - target), r.departures, r.mistake))[:NEAREST]
    if ranked and ranked[0][1]:
        best = ranked[0][0]
        findings.append(Finding("scale", f"{text} looks like a score on the 0–1 scale (nltk, Hugging Face evaluate, "
                                f"torchmetrics and d2l return 0–1): ×100 it is {value * 100:g}, which "
                                f"{best.label()} gives; papers report BLEU on the 0–100 scale"))
    findings += _corpus_findings(ranked, text, len(hyps))
    findings += _reference_findings(catalogue, ranked, value, text, tol, names, len(refs[0]))
    findings += _input_findings(workspace)
    if ranked:
        warning = tokenizer_warning((r for seg in refs for r in seg), ranked[0][0].view.partition(":")[0],
                                    option="tokenize")
        if warning:
            findings.append(Finding("tokenizer", f"{warning}; the number may be reproduced, but it says little"))
    findings += _untried_findings(workspace, bool(ranked))
    return WhyResult(value, tol, tuple(r for r, _ in ranked), tuple(nearest), tuple(findings), tuple(every),
                     workspace, scaled, workspaces, decimals)


def _rank(catalogue: Sequence[Reading], value: float, tol: float) -> list[tuple[Reading, bool]]:
    """The readings that round to ``value`` (or, for a value <= 1, to ``value`` x 100: the 0–1 scale), each with
    whether it matched on the 0–1 scale; best first.

    A number printed on the 0–1 scale comes first from a library that prints 0–1, then from a reading of 0–100
    that happens to be that small, last from a 0–100 library's number divided by 100. Within each: fewest departures
    from the library's defaults, all the references before a subset of them, a proper use before a misuse, then the
    closest (a reading on other segments after one on the segments given)."""
    ranked = []
    for order, r in enumerate(catalogue):
        if r.score is None or not math.isfinite(r.score):
            continue
        for target, t, on_scale in ((value, tol, False), (value * 100, tol * 100, True)):
            if on_scale and value > 1:
                break
            distance = abs(r.score - target)
            if distance <= t + 1e-9:
                if value > 1:
                    tier = 0
                elif on_scale:
                    tier = 0 if r.native_scale == 1 else 2
                else:
                    tier = 1
                key = (tier, r.departures, bool(r.references), bool(r.corpus), r.mistake, round(distance / t, 6),
                       order)
                ranked.append((key, r, on_scale))
                break
    ranked.sort(key=lambda m: m[0])
    return [(r, on_scale) for _, r, on_scale in ranked]


FIRST_REFERENCE_ONLY = ("d2l", "cmt")  # views that read the first reference only: no subset changes them
SUBSETS_OF_ALL_UP_TO = 4  # with at most 4 references every subset is tried; with more, each reference alone


def _reference_names(names: Sequence[str] | None, refs: Sequence[Sequence[str]]) -> list[str]:
    """The names of the reference columns when every segment has the same number (>= 2) of them, else []."""
    width = len(refs[0])
    if width < 2 or any(len(seg) != width for seg in refs):
        return []
    if names is None:
        return [str(k) for k in range(1, width + 1)]
    names = [str(n) for n in as_sequence(names, "reference_names", "one name per reference")]
    if len(names) != width:
        raise ValueError(f"reference_names has {len(names)} names but each segment has {width} references: give "
                         "one name per reference")
    return names


def _subset_readings(workspace: Workspace, names: Sequence[str]) -> list[tuple[Workspace, Reading]]:
    """The readings with at most one departure from their library's defaults, scored against each proper subset of
    the references (the references are not a setting of the library: a subset ranks after all the references with
    as many departures)."""
    width = len(names)
    sizes = range(1, width) if width <= SUBSETS_OF_ALL_UP_TO else (1,)
    found = []
    for size in sizes:
        for columns in itertools.combinations(range(width), size):
            subset = workspace.with_references(columns)
            which = (f"reference {names[columns[0]]} only" if size == 1 else
                     f"references {', '.join(names[k] for k in columns[:-1])} and {names[columns[-1]]} only")
            for spec in specs(subset):
                if spec.departures <= 1 and not spec.mistake and spec.view not in FIRST_REFERENCE_ONLY:
                    reading = score(spec, subset)
                    found.append((subset, replace(reading, references=which)))
    return found


def _reference_findings(catalogue: Sequence[Reading], ranked: Sequence[tuple[Reading, bool]], value: float,
                        text: str, tol: float, names: Sequence[str], width: int) -> list[Finding]:
    """A reading with a subset of the references leads, or the number is above every BLEU-4 reading on words
    (readings on characters, such as tokenize='char', score far higher and say nothing about the references)."""
    findings = []
    if ranked and ranked[0][0].references:
        best = ranked[0][0]
        findings.append(Finding("references", f"{text} is reproduced when the score is computed against "
                                f"{best.references}, not against all {len(names)} references given: "
                                f"{best.label()} gives {best.score:.2f}"))
        return findings
    four = [r for r in catalogue if r.order == 4 and not r.mistake and not r.references and not r.corpus
            and r.score is not None
            and math.isfinite(r.score) and r.score <= 100 and r.view.partition(":")[0] not in CHARACTER_VIEWS]
    # (above 100: nltk's methods 5 and 7 at corpus level, which read the last segment; not a BLEU to compare with)
    target, t = (value * 100, tol * 100) if value <= 1 else (value, tol)
    if four and not any(r.order == 4 for r, _ in ranked):  # a BLEU-4 reading that reproduces it, misuse or not
        top = max(four, key=lambda r: r.score)
        if target > top.score + t:
            given = f"the {width} references given" if width > 1 else "the reference given"
            shown = text if value > 1 else f"{target:g}"
            findings.append(Finding("references", f"{shown} is above every BLEU-4 reading on words with {given} (the "
                                    f"highest: {top.label()}, {top.score:.2f}): BLEU rises with each reference added "
                                    "(more n-grams to match, more lengths to choose from), so the number may have "
                                    "been computed against more references than these"))
    return findings


def _reported(reported: object) -> tuple[float, int | None]:
    """The reported number and how many decimals it was written with (None: unknown)."""
    if isinstance(reported, bool) or not isinstance(reported, (Real, str)):
        raise TypeError(f"reported must be a number such as 27.3 (or a string '27.3'), not {type(reported).__name__}")
    if isinstance(reported, int):
        text = str(reported)
    else:
        text = reported.strip() if isinstance(reported, str) else repr(float(reported))
    try:
        dec = Decimal(text)
    except InvalidOperation:
        raise ValueError(f"reported must be a number such as 27.3, got {reported!r}") from None
    value = float(dec)
    if not math.isfinite(value):
        raise ValueError(f"reported must be a finite number between 0 and 100, got {reported!r}")
    if not 0 <= value <= 100:
        raise ValueError(f"reported must be a BLEU score between 0 and 100 (or 0 and 1), got {value:g}")
    exponent = dec.as_tuple().exponent
    decimals = max(0, -exponent) if isinstance(exponent, int) and "e" not in text.lower() else None
    return value, decimals


def _tolerance(tolerance: object, decimals: int | None) -> float:
    if tolerance is None:
        return 0.5 * 10 ** -(decimals if decimals is not None else 2)
    if isinstance(tolerance, bool) or not isinstance(tolerance, Real):
        raise TypeError(f"tolerance must be a number such as 0.05, not {type(tolerance).__name__}")
    if not math.isfinite(tolerance) or tolerance <= 0:
        raise ValueError(f"tolerance must be a finite number > 0, got {tolerance}")
    return float(tolerance)


def _per_segment(hyps: list[str], references: object) -> tuple[list[list[str]], list[Finding]]:
    """References as one list per segment, accepting per-segment lists, one string per segment, or streams."""
    refs = as_sequence(references, "references", "reference lists (one per segment), reference strings, or streams")
    findings: list[Finding] = []
    if not refs:
        raise ValueError("references is empty: give the references of every segment")
    if all(isinstance(r, str) for r in refs):
        segments = [[r] for r in refs]
    elif all(isinstance(r, Sequence) and not isinstance(r, (str, bytes)) for r in refs):
        per_segment = len(refs) == len(hyps)
        streams = all(len(r) == len(hyps) for r in refs)
        if streams and not per_segment:
            segments = [[line for line in seg if line is not None] for seg in zip(*refs)]  # sacrebleu drops None
            findings.append(Finding("layout", f"references came as {len(refs)} stream(s) (sacrebleu's layout: one "
                                    "list per reference file); read as one reference list per segment. Given to "
                                    "Hugging Face evaluate, torchmetrics or bleu_lab in this layout they would be "
                                    "wrong; given to sacrebleu the other way round, segments silently drop out"))
        else:
            segments = [list(plain_strings(seg, f"references[{i}]", "a reference string")) for i, seg in
                        enumerate(refs)]
    else:
        raise TypeError("references must be a list with, per segment, a list of reference strings (or one string "
                        "per segment)")
    if len(segments) != len(hyps) and (abs(len(segments) - len(hyps)) > 1 or
                                       min(len(segments), len(hyps)) < REALIGN_FROM):  # else ``realign`` pairs them
        raise ValueError(f"hypotheses and references must have one entry per segment, but hypotheses has {len(hyps)} "
                         f"and references has {len(segments)}{alignment_hint(hyps, segments)}")
    for i, seg in enumerate(segments):
        if not seg:
            raise ValueError(f"references[{i}] is empty: every segment needs at least one reference")
        plain_strings(seg, f"references[{i}]", "a reference string")
        check_segment_lengths(seg, f"references[{i}]")
    return segments, findings


def alignment_hint(hyps: Sequence[str], segments: Sequence[Sequence[str]]) -> str:
    empty = [i for i, h in enumerate(hyps) if not h.strip()]
    empty_refs = [i for i, seg in enumerate(segments) if not any(r.strip() for r in seg)]
    if empty or empty_refs:
        where = f"hypothesis line {empty[0] + 1}" if empty else f"reference line {empty_refs[0] + 1}"
        return f"; an empty line (e.g. {where}) may have been added or dropped, shifting every later segment"
    return "; a line was added or dropped somewhere, shifting every later segment"


def _overlap(hyp: str, refs: Sequence[str]) -> float:
    words = set(hyp.lower().split())
    if not words:
        return 0.0
    ref_words = set(" ".join(refs).lower().split())
    return len(words & ref_words) / len(words)


def _input_findings(workspace: Workspace) -> list[Finding]:
    hyps, refs = workspace.hypotheses, workspace.references
    findings = []
    tokenized = sum(1 for h in hyps if TOKENIZED_MARKS.search(h))
    if tokenized >= max(1, len(hyps) // 2):
        findings.append(Finding(
            "tokenized", f"{tokenized} of {len(hyps)} hypotheses look tokenized (spaces before punctuation, &apos;, "
            "@-@): sacrebleu expects detokenized text and tokenizes it itself (it warns when 100 lines end in ' .'; "
            "force=True only silences that warning). Scores of tokenized and detokenized text are not comparable"))
    marked = [m for m in SUBWORD_MARKERS if any(m in h for h in hyps)]
    if marked:
        findings.append(Finding(
            "subwords", f"the hypotheses contain subword markers ({', '.join(repr(m) for m in marked)}): BPE or "
            "SentencePiece pieces scored as if they were words; undo the segmentation before scoring (the reading "
            "'sacrebleu on decoded subwords' does)"))
    findings += _shift_findings(hyps, refs)
    return findings


def _shift_findings(hyps: Sequence[str], refs: Sequence[Sequence[str]]) -> list[Finding]:
    """A run of segments that matches its neighbour's references far better than its own: a shifted alignment."""
    found = _shift(hyps, refs)
    if found is None:
        return []
    line, shift = found
    direction = "the next" if shift == 1 else "the previous"
    return [Finding("alignment", f"from segment {line} on, hypotheses match {direction} segment's references far "
                    f"better than their own: a line was probably added or dropped (an empty line?) near line {line}, "
                    "shifting the alignment")]


def _shift(hyps: Sequence[str], refs: Sequence[Sequence[str]]) -> tuple[int, int] | None:
    """(the 1-based line where a shift starts, +1 or -1) when the hypotheses from there on match the next (+1) or the
    previous (-1) segment's references far better than their own; None otherwise."""
    n = len(hyps)
    if n < 4:
        return None
    own = [_overlap(h, seg) for h, seg in zip(hyps, refs)]
    for shift in (1, -1):
        other = [_overlap(hyps[i], refs[i + shift]) if 0 <= i + shift < n else 0.0 for i in range(n)]
        # the start k maximizing (gain of the shifted pairing from k on)
        best_k, best_gain, gain = None, 0.0, 0.0
        for k in range(n - 1, -1, -1):
            gain += other[k] - own[k]
            if gain > best_gain:
                best_k, best_gain = k, gain
        if best_k is not None and best_gain >= max(2.0, 0.25 * (n - best_k)):
            if best_k > 0 and not hyps[best_k - 1].strip():
                best_k -= 1  # the empty line itself is where the shift starts
            return best_k + 1, shift
    return None


def realign(hyps: Sequence[str], refs: Sequence[Sequence[str]]) -> tuple[list[str], str]:
    """Hypotheses one line longer or shorter than the references, paired where the two match best: the hypothesis
    line k left out, or an empty hypothesis put in for segment k, k chosen to maximize the summed word overlap of
    every pair (an empty line first among equals). Returns the hypotheses and what was done."""
    n_h, n_r = len(hyps), len(refs)
    if n_h == n_r + 1:  # pairs: h_i with r_i before k, h_i with r_(i-1) after k
        before = [_overlap(hyps[i], refs[i]) for i in range(n_r)]
        after = [_overlap(hyps[i], refs[i - 1]) for i in range(1, n_h)]
        gains = _split_sums(before, after)
    elif n_h == n_r - 1:  # pairs: h_i with r_i before k, h_i with r_(i+1) from k on
        before = [_overlap(hyps[i], refs[i]) for i in range(n_h)]
        after = [_overlap(hyps[i], refs[i + 1]) for i in range(n_h)]
        gains = _split_sums(before, after)
    else:
        raise ValueError(f"realign pairs files that differ by one line, not {n_h} hypotheses and {n_r} references")
    best = max(gains)
    ties = [k for k, gain in enumerate(gains) if gain >= best - 1e-9]
    k = next((k for k in ties if k < n_h and not hyps[k].strip()), ties[0])
    if n_h > n_r:
        return [*hyps[:k], *hyps[k + 1:]], f"hypothesis line {k + 1} left out"
    return [*hyps[:k], "", *hyps[k:]], f"an empty hypothesis for segment {k + 1} (no line of the hypothesis file)"


def _split_sums(before: Sequence[float], after: Sequence[float]) -> list[float]:
    """sum(before[:k]) + sum(after[k:]) for k = 0 .. len(after) (lists of one length), in one pass each way."""
    heads = [0.0, *itertools.accumulate(before)]
    tails = [*list(itertools.accumulate(reversed(after)))[::-1], 0.0]
    return [heads[k] + tails[k] for k in range(len(after) + 1)]


def _realigned(hyps: Sequence[str], refs: Sequence[Sequence[str]]) -> tuple[list[str], str] | None:
    """Hypotheses of the same length as the references whose alignment shifts by one line from some line k: paired
    again, with the line the shift starts at left out (an empty line appended) or an empty hypothesis put in (the
    last line dropped)."""
    found = _shift(hyps, refs)
    if found is None:
        return None
    line, shift = found
    k = line - 1
    if shift == -1:  # from line k on, hypothesis i belongs to segment i - 1: line k is one too many
        return [*hyps[:k], *hyps[k + 1:], ""], f"hypothesis line {line} left out and an empty last line"
    return [*hyps[:k], "", *hyps[k:-1]], f"an empty hypothesis for segment {line} and the last line left out"


def _segment_subsets(segments: object, n: int) -> dict[str, list[int]]:
    """The named subsets of ``segments`` as 0-based positions, checked: {name: 1-based segment numbers}."""
    if segments is None:
        return {}
    if not isinstance(segments, Mapping):
        raise TypeError("segments must be a dict {name: 1-based segment numbers}, e.g. {'rated': [1, 4, 7]}")
    subsets = {}
    for name, numbers in segments.items():
        numbers = as_sequence(numbers, f"segments[{name!r}]", "1-based segment numbers")
        bad = next((x for x in numbers if isinstance(x, bool) or not isinstance(x, int) or not 1 <= x <= n), None)
        if bad is not None:
            raise ValueError(f"segments[{name!r}] must hold segment numbers from 1 to {n}, got {bad!r}")
        if not numbers or len(set(numbers)) != len(numbers):
            raise ValueError(f"segments[{name!r}] must name at least one segment, each once")
        subsets[str(name)] = [x - 1 for x in sorted(numbers)]
    return subsets


def _corpus_readings(workspace: Workspace, subsets: Mapping[str, Sequence[int]]) -> list[tuple[Workspace, Reading]]:
    """The readings with at most one departure from their library's defaults on other segments: each named subset,
    and the hypotheses paired again where their alignment shifts by one line."""
    hyps, refs = workspace.hypotheses, workspace.references
    corpora = [(Workspace([hyps[i] for i in rows], [refs[i] for i in rows]), f"the {len(rows)} segments of {name}")
               for name, rows in subsets.items() if len(rows) < len(hyps)]
    realigned = _realigned(hyps, refs)
    if realigned is not None:
        corpora.append((Workspace(realigned[0], refs), f"the segments paired again ({realigned[1]})"))
    return [(ws, replace(score(spec, ws), corpus=what)) for ws, what in corpora
            for spec in specs(ws) if spec.departures <= 1 and not spec.mistake]


def _corpus_findings(ranked: Sequence[tuple[Reading, bool]], text: str, n: int) -> list[Finding]:
    """The leading reading is on other segments than the ones given: say which."""
    if not ranked or not ranked[0][0].corpus:
        return []
    best = ranked[0][0]
    kind = "alignment" if "paired again" in best.corpus else "segments"
    return [Finding(kind, f"{text} is reproduced on {best.corpus}, not on the {n} segments as given: {best.label()} "
                    f"gives {best.score:.2f}")]


OPTIONAL_BY_LANGUAGE = {"Japanese": "ja-mecab"}
SENTENCEPIECE = ("spm", "flores101", "flores200", "spBLEU-1K")  # sacrebleu 2.6.0, sacrebleu/metrics/bleu.py


def _untried_findings(workspace: Workspace, matched: bool) -> list[Finding]:
    """The readings that could not be tried on this corpus, and why (a reading whose library fails on this input,
    listed as n/a by ``bleu-lab why --all``, cannot have made any number)."""
    findings = []
    found = unspaced_text(r for seg in workspace.references for r in seg)
    needed = OPTIONAL_BY_LANGUAGE.get(found.language) if found else None
    if needed and needed not in available_tokenizers():
        modules = " and ".join(OPTIONAL_TOKENIZERS[needed][1])
        findings.append(Finding("untried", f"the references are in {found.language}, and sacrebleu's '{needed}' "
                                f"tokenizer (what sacrebleu picks for {found.language}) could not be tried: it needs "
                                f"{modules}, which the mecab extra installs (pip install \"bleu_lab[mecab]\")"))
    if not matched:
        findings.append(Finding("untried", "not tried: sacrebleu's SentencePiece tokenizers "
                                f"({', '.join(SENTENCEPIECE)}: each loads a model downloaded at first use), other "
                                "metrics, and tokenizers outside these libraries (e.g. Moses' tokenizer.perl or "
                                "jieba before multi-bleu.perl)"))
    return findings
