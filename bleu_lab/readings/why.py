"""``why``: which reading of BLEU reproduces a reported number, and which input mistakes are visible.

    result = bl.why(hypotheses, references, 27.3)
    result.matches      # readings that give 27.3 (within the reported precision), closest first
    result.nearest      # the closest readings, whether or not they match
    result.findings     # input mistakes seen: reference layout, tokenized text, subword residue, scale, alignment
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from numbers import Real

from ..validation import as_sequence, check_segment_lengths, plain_strings
from .catalogue import SUBWORD_MARKERS, Reading, Workspace, readings

NEAREST = 5
TOKENIZED_MARKS = re.compile(r" [.,!?;:)'\"]( |$)|&apos;|&quot;|@-@| n't\b| 's\b")


@dataclass(frozen=True)
class Finding:
    """An input mistake ``why`` can see (``kind``: layout, tokenized, subwords, scale, alignment)."""

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

    @property
    def verdict(self) -> str:
        """One sentence: which reading (or none) gives the reported number."""
        if self.matches:
            best = self.matches[0]
            others = f" ({len(self.matches) - 1} other reading(s) also do)" if len(self.matches) > 1 else ""
            return f"{self.reported:g} is reproduced by {best.label()}: {best.score:.2f}{others}."
        near = self.nearest[0]
        return (f"No reading gives {self.reported:g} (within ±{self.tolerance:g}); the nearest is {near.label()}: "
                f"{near.score:.2f}.")

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
        shown = self.matches or self.nearest
        rows = "".join(
            f"<tr><td style='text-align:right'>{r.score:.2f}</td><td>{html.escape(r.label())}</td>"
            f"<td>{html.escape(r.explanation)}</td></tr>" for r in shown[:10]
        )
        notes = "".join(f"<li><b>{html.escape(f.kind)}</b>: {html.escape(f.message)}</li>" for f in self.findings)
        return (f"<div><b>{html.escape(self.verdict)}</b><table><tr><th>score</th><th>reading</th><th>why it "
                f"differs</th></tr>{rows}</table>{'<ul>' + notes + '</ul>' if notes else ''}</div>")

    def view(self, first: Reading | str | None = None, second: Reading | str | None = None):
        """The readings table beside the explain view of the segment where two readings differ most."""
        from .view import ReadingsView

        return ReadingsView.build(self, first, second)


def why(
    hypotheses: Sequence[str],
    references: Sequence,
    reported: float | str,
    *,
    tolerance: float | None = None,
) -> WhyResult:
    """Find the readings of BLEU that give ``reported`` on this corpus, and the input mistakes that show.

    ``hypotheses``: one string per segment. ``references``: per segment (``references[i]`` = the reference strings
    of segment i, as ``corpus_score`` takes them), one string per segment, or sacrebleu's streams (one list per
    reference file; recognized and noted). ``reported``: the number to explain, 0–100 (a 0–1 number is recognized
    too). ``tolerance``: how far a reading may be from it; by default half a unit of its last printed decimal
    (27.3 -> 0.05), so every reading that *rounds* to the reported number matches.
    """
    value, decimals = _reported(reported)
    tol = _tolerance(tolerance, decimals)
    hyps = plain_strings(as_sequence(hypotheses, "hypotheses", "hypothesis strings (one per segment)"),
                         "hypotheses", "a hypothesis string")
    if not hyps:
        raise ValueError("hypotheses is empty: give at least one hypothesis string")
    check_segment_lengths(hyps, "hypotheses")
    refs, findings = _per_segment(hyps, references)
    workspace = Workspace(hyps, refs)
    catalogue = readings(workspace)
    every = sorted(catalogue, key=lambda r: (r.score is None, r.score or 0.0))
    scored = [r for r in catalogue if r.score is not None and math.isfinite(r.score)]
    targets = [(value, tol, "")]
    if value <= 1:
        targets.append((value * 100, tol * 100, "scale"))
    matches: list[tuple[float, int, Reading]] = []
    scale_hits = []
    for order, r in enumerate(scored):
        for target, t, note in targets:
            distance = abs(r.score - target)
            if distance <= t + 1e-9:
                matches.append((round(distance / t, 6), r.departures, order, r))  # ties: fewer departures
                if note:
                    scale_hits.append(r)
                break
    matches.sort(key=lambda m: m[:3])
    target = value * 100 if scale_hits and not any(abs(r.score - value) <= tol for r in scored) else value
    nearest = sorted(scored, key=lambda r: (abs(r.score - target), r.departures))[:NEAREST]
    if scale_hits:
        hit = next((r for r in scale_hits if r.native_scale == 1), scale_hits[0])
        findings.append(Finding("scale", f"{value:g} looks like a score on the 0–1 scale (nltk, Hugging Face evaluate, "
                                f"torchmetrics and d2l return 0–1): ×100 it is {value * 100:g}, which "
                                f"{hit.label()} gives; papers report BLEU on the 0–100 scale"))
    findings += _input_findings(workspace)
    return WhyResult(value, tol, tuple(m[3] for m in matches), tuple(nearest), tuple(findings), tuple(every), workspace)


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
            segments = [[line for line in seg if line] for seg in zip(*refs)]
            findings.append(Finding("layout", f"references came as {len(refs)} stream(s) (sacrebleu's layout: one "
                                    "list per reference file); read as one reference list per segment. Given to "
                                    "Hugging Face evaluate, torchmetrics or bleu_lab in this layout they would be "
                                    "wrong; given to sacrebleu the other way round, segments silently drop out"))
        else:
            segments = [list(plain_strings(seg, f"references[{i}]", "a reference string")) for i, seg in
                        enumerate(refs)]
            segments = [[r for r in seg if r] or seg for seg in segments]
    else:
        raise TypeError("references must be a list with, per segment, a list of reference strings (or one string "
                        "per segment)")
    if len(segments) != len(hyps):
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
    n = len(hyps)
    if n < 4:
        return []
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
            line = best_k + 1
            direction = "the next" if shift == 1 else "the previous"
            return [Finding("alignment", f"from segment {line} on, hypotheses match {direction} segment's references "
                            f"far better than their own: a line was probably added or dropped (an empty line?) "
                            f"near line {line}, shifting the alignment")]
    return []
