# Solution: three of sacrebleu's methods are nltk methods in disguise (on the 0-100 instead of the 0-1 scale).
#   'exp'   the k-th zero p_n -> 1 / (2^k * total_n)   = nltk method3 (NIST's geometric smoothing)
#   'floor' a zero p_n -> 0.1 / total_n                = nltk method1 (epsilon = 0.1)
#   'add-k' (m_n + 1) / (total_n + 1) for n >= 2       = nltk method2 (Lin & Och's add-one)
# On the lesson's sentences (the same tokens for both libraries, at least 4 tokens, at least one matching unigram)
# they give the same scores; outside those conditions they can differ (lesson 7 shows why shorter hypotheses do),
# so this is a correspondence of formulas, not a promise of equal numbers on every input.
from bleu_lab.course.exercises.smoothing import check_library_match

sacrebleu_to_nltk = {"exp": "method3", "floor": "method1", "add-k": "method2"}

check_library_match(sacrebleu_to_nltk)
