# Solution: give nltk lists of WORDS. A list of reference token lists first, then the hypothesis tokens.
import warnings

from nltk.translate.bleu_score import sentence_bleu as nltk_sentence_bleu

from bleu_lab.course.exercises.tokenization import check_nltk_word_bleu


def nltk_word_bleu(reference, hypothesis):
    """nltk's sentence BLEU over whitespace-separated words (not characters)."""
    with warnings.catch_warnings():  # nltk warns when an order has no match; the score is still right
        warnings.simplefilter("ignore")
        return nltk_sentence_bleu([reference.split()], hypothesis.split())


check_nltk_word_bleu(nltk_word_bleu)
