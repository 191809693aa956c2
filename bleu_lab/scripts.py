"""Writing systems without spaces between words, and the tokenizer their BLEU needs.

Chinese, Japanese and Thai are written without spaces between words. The word tokenizers (``13a``, ``intl``,
``none``) cut only at spaces and punctuation, so a whole clause counts as one "word", and BLEU on such tokens says
little: sacrebleu issue #147 (https://github.com/mjpost/sacrebleu/issues/147) printed 34.3 with ``13a`` and 56.0 with
``zh`` for one Chinese file; on WMT21 en-zh (Facebook-AI, reference A) ``13a`` gives 7.16 where the official ``zh``
score is 35.94. sacrebleu picks ``zh`` for Chinese and ``ja-mecab`` for Japanese when told the target language
(``BLEU(trg_lang=...)``, sacrebleu/metrics/bleu.py); WMT21's official en-ja scores used ``char``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

HAN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f]")
KANA = re.compile("[\u3040-\u309f\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f]")
THAI = re.compile("[\u0e00-\u0e7f]")
UNSPACED_SHARE = 0.3  # the share of a text's letters in these scripts from which it counts as written unspaced
SAMPLE_CHARS = 200_000  # enough text to tell the script; a test set's first lines stand for the rest
WORD_TOKENIZERS = ("13a", "intl", "none")


@dataclass(frozen=True)
class UnspacedText:
    """A text written without spaces between words: its language, how sure, and the tokenizer to use."""

    language: str  # 'Chinese', 'Japanese' or 'Thai'
    share: float  # the share of its letters in that writing system
    tokenizers: tuple[str, ...]  # the tokenizers to use, best first

    def advice(self, option: str = "--tokenize") -> str:
        """Which tokenizer to use instead, and why (one clause)."""
        if self.language == "Chinese":
            return f"use {option} zh (what sacrebleu picks for Chinese, and WMT's setting)"
        if self.language == "Japanese":
            return (f"use {option} ja-mecab (what sacrebleu picks for Japanese; pip install \"bleu_lab[mecab]\") or "
                    f"{option} char (WMT21's official en-ja setting)")
        return (f"use {option} char (neither bleu_lab nor sacrebleu has a Thai word tokenizer that works without "
                "downloading a model)")


def unspaced_text(lines: Iterable[str]) -> UnspacedText | None:
    """The writing system of ``lines`` when it is Chinese, Japanese or Thai (written without spaces between
    words), else None. Japanese is told from Chinese by its kana."""
    text, size = [], 0
    for line in lines:
        text.append(line)
        size += len(line)
        if size >= SAMPLE_CHARS:
            break
    sample = "".join(filter(str.isalpha, "".join(text)))
    letters = len(sample)
    if not letters:
        return None
    han, kana, thai = (len(pattern.findall(sample)) for pattern in (HAN, KANA, THAI))
    if (han + kana + thai) / letters < UNSPACED_SHARE:
        return None
    if thai > han + kana:
        return UnspacedText("Thai", thai / letters, ("char",))
    if kana >= 0.05 * (han + kana):
        return UnspacedText("Japanese", (han + kana) / letters, ("ja-mecab", "char"))
    return UnspacedText("Chinese", han / letters, ("zh", "char"))


def tokenizer_warning(lines: Iterable[str], tokenize: str, what: str = "the references",
                      option: str = "--tokenize") -> str | None:
    """A warning when text written without spaces is scored with a word tokenizer (13a, intl, none), else None;
    ``option`` is how the tokenizer is chosen where the warning shows (a command-line flag)."""
    if tokenize not in WORD_TOKENIZERS:
        return None
    found = unspaced_text(lines)
    if found is None:
        return None
    return (f"{what} look like {found.language} text ({found.share:.0%} of the letters), written without spaces "
            f"between words: {option} {tokenize} cuts only at spaces and punctuation, so whole phrases count as one "
            f"token and BLEU says little (sacrebleu issue #147); {found.advice(option)}")
