"""bleu_lab's own mteval-v13a tokenizer cuts text exactly as sacrebleu's Tokenizer13a does."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from sacrebleu.metrics import BLEU
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

import bleu_lab
from bleu_lab.corpus_counting import WHITESPACE, number_utf8_tokens
from bleu_lab.tokenization import (
    RULES_13A,
    TOKENIZERS,
    get_tokenizer,
    number_13a_tokens,
    preprocess_corpus,
    preprocess_corpus_numbered,
    tokenize_13a,
    tokenize_13a_corpus,
    tokenize_13a_steps,
    tokenizer_signature,
)

# Pieces that meet every rule: digits next to . , -, every symbol class, entities, line breaks, odd whitespace.
PIECES = ["a", "Zug", "über", "猫", "0", "7", "3.5", "1,000", ".", ",", "-", "--", "...", " ", "  ", "\t", "\n", "-\n",
          "\xa0", "\u2009", "&", "&amp;", "&quot;", "&lt;", "&gt;", "amp;", "<skipped>", "<", ">", "'", '"', "(", ")",
          "[", "]", "{", "}", "/", "\\", "$", "%", "?", "!", ":", ";", "@", "^", "_", "`", "|", "~", "*", "+", "=",
          "#", "—", "–", "’", "€", "…", "·"]
pieced_text = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)


@given(st.one_of(pieced_text, st.text(max_size=60)))
@example("Die BJP hat 72 und liegt bei 97.")
@example("Mit einem 2:0-Sieg, 3.5 Punkte & 1,000 Fans.")
@example("x.... y,,, 4.-5 .5 5. ,5 a.b")
def test_13a_equals_sacrebleu_tokenizer(text):
    assert tokenize_13a(text) == Tokenizer13a()(text)


# Every code point, lone surrogates included (hypothesis's text() leaves out category Cs); the fast path works on
# UTF-8 bytes, so a character whose bytes could be taken for ASCII would show here.
any_character = st.characters(exclude_categories=())
any_text = st.text(any_character, max_size=40)
piece_or_any = st.lists(st.one_of(st.sampled_from(PIECES), any_character), max_size=20).map("".join)


@given(st.lists(st.one_of(pieced_text, st.text(max_size=60), any_text, piece_or_any), max_size=8))
@example(["x.... y,,, 4.-5 .5 5. ,5 a.b", "Die BJP hat 72 und liegt bei 97.", "a.,5 1.-2", "a.,5 1.-2", ""])
@example(["&amp;lt; &amp;quot; &amp;amp;gt; &lt;skipped&gt;", "<skip<skipped>ped> a", "1.5\n.3", "a-\nb", "7-\n8"])
@example(["\ud83d\ude00 \udfff.5, x\x85y\u2028z\x1c.\x1d", "é.5 5.é 5.,5 ...", "", "\n", "-\n"])
def test_13a_corpus_fast_path_equals_sacrebleu_line_by_line(lines):
    theirs = Tokenizer13a()
    assert tokenize_13a_corpus(lines) == [theirs(line).split() for line in lines]
    assert_numbers_name_tokens(number_13a_tokens(lines), [theirs(line).split() for line in lines])


def assert_numbers_name_tokens(numbered, tokens):
    """``numbered`` holds ``tokens`` (a list per line): as many per line, equal numbers exactly for equal tokens."""
    assert numbered.lengths.tolist() == [len(line) for line in tokens]
    flat = [token for line in tokens for token in line]
    pairs = set(zip(numbered.symbol.tolist(), flat))
    assert len(numbered.symbol) == len(flat)
    assert len(pairs) == len({number for number, _ in pairs}) == len(set(flat))


def test_whitespace_table_is_what_str_split_cuts_at():
    assert [c for c in range(0x110000) if chr(c).isspace()] == sorted(WHITESPACE)


# Tokens around 8-byte boundaries, NUL bytes (a token "a\0" must not be taken for "a"), every kind of whitespace.
long_or_odd = st.sampled_from(["abcdefgh", "abcdefghi", "abcdefgh\0", "abcdefghabcdefgh", "abcdefghabcdefgh\0", "a",
                               "a\0", "\0", "\0\0", "ü" * 4, "ü" * 5, "猫" * 3, "猫" * 6, "\ud800" * 3, "x" * 40])
spaced_tokens = st.lists(st.one_of(long_or_odd, any_character, st.sampled_from([chr(c) for c in WHITESPACE])),
                         max_size=30).map("".join).map(lambda text: text.replace("\n", " "))


@given(st.lists(st.one_of(spaced_tokens, any_text.map(lambda text: text.replace("\n", " "))), min_size=1, max_size=6))
@example(["abcdefgh abcdefghi abcdefgh\0 a a\0 \0 abcdefgh", "x\x85y\u3000z\xa0\u2028w \u200b", ""])
def test_numbering_utf8_tokens_equals_str_split(lines):
    data = "\n".join(lines).encode("utf-8", "surrogatepass")
    assert_numbers_name_tokens(number_utf8_tokens(data, len(lines)), [line.split() for line in lines])


@given(piece_or_any)
@example("\ud800.5")
def test_13a_equals_sacrebleu_on_any_character(text):
    assert tokenize_13a(text) == Tokenizer13a()(text)
    assert tokenize_13a_corpus([text, "a.b", text + "5,5"]) == [Tokenizer13a()(x).split()
                                                               for x in (text, "a.b", text + "5,5")]


@pytest.mark.parametrize("name", TOKENIZERS)
@pytest.mark.parametrize("lowercase", [False, True])
def test_preprocess_corpus_equals_sacrebleus_preprocessing(name, lowercase):
    lines = ["Mit einem 2:0-Sieg, 3.5 Punkte &amp; 1,000 Fans.  ", "Er sagte: \"Nein...\"", "Er sagte: \"Nein...\"", ""]
    bleu = BLEU(tokenize=name, lowercase=lowercase)
    assert preprocess_corpus(lines, name, lowercase) == [bleu._preprocess_segment(line).split() for line in lines]
    assert_numbers_name_tokens(preprocess_corpus_numbered(lines, name, lowercase),
                               [bleu._preprocess_segment(line).split() for line in lines])


@pytest.mark.parametrize("text,tokens", [
    ("It is 3.5 km, not 1,000 km.", "It is 3.5 km , not 1,000 km ."),
    ("The U.S. won 2-0!", "The U . S . won 2 - 0 !"),  # a period after a letter is always split off
    ("Tom &amp; Jerry said &quot;hi&quot;", 'Tom & Jerry said " hi "'),
    ("well-known (really)", "well-known ( really )"),
    ("first line-\nsecond <skipped>line", "first linesecond line"),
    ("", ""),
])
def test_13a_rules_on_hand_worked_examples(text, tokens):
    assert tokenize_13a(text) == tokens


@pytest.mark.parametrize("name", TOKENIZERS)
def test_every_tokenizer_has_sacrebleus_signature(name):
    assert tokenizer_signature(name) == BLEU(tokenize=name).tokenizer.signature()
    assert get_tokenizer(name)("a b").split() == ["a", "b"]


def test_tokenize_names_the_argument_on_bad_input():
    with pytest.raises(ValueError, match="tokenize"):
        bleu_lab.tokenize("a b", "moses")
    with pytest.raises(TypeError, match="text"):
        bleu_lab.tokenize(["a", "b"])


def test_13a_equals_sacrebleu_on_every_line_of_wmt21(mtdata: Path):
    files = sorted(p for p in mtdata.glob("*/newstest2021.*") if p.is_file())
    assert len(files) >= 30
    theirs = Tokenizer13a()
    for path in files:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            assert tokenize_13a(line) == theirs(line), f"{path.name}:{number}"
        lines = path.read_text(encoding="utf-8").splitlines()
        assert tokenize_13a_corpus(lines) == [theirs(line).split() for line in lines], path.name
        assert_numbers_name_tokens(number_13a_tokens(lines), [theirs(line).split() for line in lines])


def test_13a_steps_end_in_the_tokenized_line_and_show_each_rule():
    line = '"Don\'t worry," she said: the U.S. team\'s 2-0 &amp; 3.5 (again).'
    steps = tokenize_13a_steps(line)
    assert steps[0][1] == line.replace("&amp;", "&")
    assert steps[-1] == ("collapse whitespace", tokenize_13a(line))
    assert [description for description, _ in steps[1:-1]] == [rule.description for rule in RULES_13A]
    assert " 2 - 0 " in steps[-2][1] and "2-0" in steps[-3][1]  # the dash rule is the last regex
    with pytest.raises(TypeError, match="line"):
        tokenize_13a_steps(None)
    with pytest.raises(TypeError, match="line"):
        tokenize_13a(b"bytes")
