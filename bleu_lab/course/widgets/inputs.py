"""What a widget does with whatever a student types or pastes, before any scoring.

Long text is cut (at most ``MAX_WORDS`` words and ``MAX_CHARS`` characters per box, ``MAX_REFERENCES``
references) so every update stays fast; each cut comes back as a notice that says so. Text with nothing
visible in it (empty, spaces, zero-width characters) counts as empty, and the widget shows a friendly message.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

MAX_WORDS = 200
MAX_CHARS = 4000
MAX_REFERENCES = 20
INVISIBLE = {"Cc", "Cf", "Zs", "Zl", "Zp"}  # control, format (zero-width), space separators

EMPTY_HYPOTHESIS = "Type a hypothesis (the translation to score) to see its BLEU score."
NO_REFERENCES = "Add at least one reference translation: BLEU compares the hypothesis with references."


@dataclass(frozen=True)
class CleanText:
    """A text box's content, cut to size, with a notice if anything was cut."""

    text: str
    notice: str | None = None

    @property
    def blank(self) -> bool:
        """True if nothing visible is left (empty, whitespace, zero-width characters only)."""
        return is_blank(self.text)


def is_blank(text: str) -> bool:
    """True if ``text`` has no visible character."""
    return all(unicodedata.category(ch) in INVISIBLE for ch in text)


def clip_text(text: object, name: str = "text", max_words: int = MAX_WORDS, max_chars: int = MAX_CHARS) -> CleanText:
    """``text`` cut to its first ``max_words`` words and ``max_chars`` characters (a notice says so).

    Short text is returned untouched. ``None`` counts as empty; anything else that is not a string is
    shown as its ``str()``.
    """
    text = "" if text is None else text if isinstance(text, str) else str(text)
    cleaned = _without_lone_surrogates(text)
    if cleaned != text:  # half of a broken character pair: the browser could not receive the view otherwise
        clipped = clip_text(cleaned, name, max_words, max_chars)
        notice = f"The {name} held an invalid character (half of a character pair); it is shown and scored as �."
        return CleanText(clipped.text, f"{notice} {clipped.notice}" if clipped.notice else notice)
    if len(text) <= max_chars and len(text) <= max_words * 2:  # too few characters to hold too many words
        return CleanText(text)
    head = text[:max_chars]
    words = head.split()
    cut_inside_word = len(text) > max_chars and not text[max_chars].isspace() and not head[-1:].isspace()
    if cut_inside_word and len(words) > 1:
        words = words[:-1]
    if len(words) <= max_words and len(text) <= max_chars:
        return CleanText(text)
    words = words[:max_words]
    notice = (
        f"The {name} is long ({len(text):,} characters): only its first {len(words)} words"
        f"{f' ({max_chars:,} characters)' if len(words) == 1 else ''} are scored and shown here. "
        "bleu_lab.explain(...) in a code cell scores text of any length."
    )
    return CleanText(" ".join(words), notice)


def _without_lone_surrogates(text: str) -> str:
    """``text`` with every unpaired UTF-16 surrogate (U+D800-U+DFFF) replaced by U+FFFD."""
    return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace") if _has_surrogate(text) else text


def _has_surrogate(text: str) -> bool:
    return any("\ud800" <= ch <= "\udfff" for ch in text)


def clip_references(references: object, max_refs: int = MAX_REFERENCES) -> tuple[list[str], list[str]]:
    """The non-blank references, each cut by ``clip_text``, at most ``max_refs``; and the notices."""
    if isinstance(references, str):
        references = [references]
    clipped = [c for c in (clip_text(r, f"reference {i}") for i, r in enumerate(references or [], 1)) if not c.blank]
    notices = [c.notice for c in clipped[:max_refs] if c.notice]
    if len(clipped) > max_refs:
        notices.append(f"There are {len(clipped)} references: only the first {max_refs} are used here.")
    return [c.text for c in clipped[:max_refs]], notices


def parse_references(text: object) -> list[str]:
    """One reference per line of ``text`` (blank lines dropped), e.g. from a text area."""
    text = "" if text is None else str(text)
    lines = text[: MAX_CHARS * MAX_REFERENCES].splitlines()
    return [line for line in lines if not is_blank(line)]
