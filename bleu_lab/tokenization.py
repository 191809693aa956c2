"""Step 8 — tokenization: BLEU counts tokens, so how text is cut into tokens changes the score.

bleu_lab does not write its own tokenizers: it uses sacrebleu's, the field's standard.

  '13a'   mteval-v13a (default): splits punctuation off words, for most European languages
  'intl'  mteval-v14 international: splits on Unicode punctuation and symbols
  'char'  every character is a token (for languages written without spaces, e.g. Japanese)
  'zh'    Chinese characters become tokens, other text is tokenized like 13a
  'none'  no tokenization: split on whitespace only (for text you have tokenized yourself)
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module

from .validation import as_text, check_choice

TOKENIZERS: dict[str, str] = {
    "13a": "tokenizer_13a.Tokenizer13a",
    "intl": "tokenizer_intl.TokenizerV14International",
    "char": "tokenizer_char.TokenizerChar",
    "zh": "tokenizer_zh.TokenizerZh",
    "none": "tokenizer_none.NoneTokenizer",
}


def get_tokenizer(name: str = "13a") -> Callable[[str], str]:
    """A fresh instance of sacrebleu's tokenizer ``name`` (a callable: text -> space-separated tokens)."""
    check_choice(name, "tokenize", tuple(TOKENIZERS))
    module_name, class_name = TOKENIZERS[name].rsplit(".", 1)
    return getattr(import_module(f"sacrebleu.tokenizers.{module_name}"), class_name)()


def tokenizer_signature(name: str) -> str:
    """The short name sacrebleu writes in its signature for tokenizer ``name``."""
    return get_tokenizer(name).signature()


def tokenize(text: str, tokenize: str = "13a", lowercase: bool = False) -> list[str]:
    """Tokens of ``text`` as sacrebleu's BLEU sees them: lowercased (optional), right-stripped, tokenized, split."""
    text = as_text(text, "text")
    return make_preprocessor(tokenize, lowercase)(text)


def make_preprocessor(tokenize: str = "13a", lowercase: bool = False) -> Callable[[str], list[str]]:
    """A function text -> tokens doing sacrebleu's preprocessing: ``tokenizer(text.lower()?.rstrip()).split()``."""
    tokenizer = get_tokenizer(tokenize)
    if lowercase:
        return lambda text: tokenizer(text.lower().rstrip()).split()
    return lambda text: tokenizer(text.rstrip()).split()
