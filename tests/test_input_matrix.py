"""Every public function, every argument, a wrong value: a TypeError/ValueError that names the argument.

And a fuzz test: generated text of any kind never raises anything but a clear error, and scores stay in range.
"""

from __future__ import annotations

import inspect
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

import bleu_lab as bl

REFS = ["the cat is on the mat", "there is a cat on the mat"]
HYP = "the cat and the cat on the mat"
COUNTS = bl.count_ngrams(HYP, 1)

# A valid call of every public function; each argument is then replaced, one at a time, by wrong values.
VALID = {
    "brevity_penalty": {"closest_ref_len": 6, "hyp_len": 8},
    "clip_counts": {"hypothesis_counts": COUNTS, "max_ref_counts": bl.max_reference_counts(REFS, 1)},
    "clip_table": {"references": REFS, "hypothesis": HYP, "n": 2},
    "closest_ref_length": {"references": REFS, "hyp_len": 8},
    "corpus_bleu": {"list_of_references": [REFS], "hypotheses": [HYP]},
    "corpus_chrf": {"hypotheses": [HYP], "references": [REFS]},
    "sentence_chrf": {"hypothesis": HYP, "references": REFS},
    "corpus_score": {"hypotheses": [HYP], "references": [REFS]},
    "corpus_stats": {"list_of_references": [REFS], "hypotheses": [HYP]},
    "count_ngrams": {"tokens": HYP, "n": 2},
    "explain": {"references": REFS, "hypothesis": HYP},
    "explain_chrf": {"hypothesis": HYP, "references": REFS},
    "load_corpus": {"name": "news"},
    "max_reference_counts": {"references": REFS, "n": 2},
    "modified_precision": {"references": REFS, "hypothesis": HYP, "n": 2},
    "ngrams": {"tokens": HYP, "n": 2},
    "paired_bootstrap": {"baseline_hypotheses": [HYP, HYP], "system_hypotheses": [HYP, "the cat"],
                         "references": [REFS, REFS], "n_samples": 20},
    "paired_randomization": {"baseline_hypotheses": [HYP, HYP], "system_hypotheses": [HYP, "the cat"],
                             "references": [REFS, REFS], "n_trials": 20},
    "segment_stats": {"references": REFS, "hypothesis": HYP},
    "sentence_bleu": {"references": REFS, "hypothesis": HYP},
    "sentence_score": {"hypothesis": HYP, "references": REFS},
    "tokenize": {"text": HYP},
    "compare_systems": {"systems": {"old": [HYP, "the cat"], "new": [HYP, "a cat"]}, "references": [REFS, REFS],
                        "n_samples": 20, "n_trials": 20, "chrf": False},
    "why": {"hypotheses": [HYP, "the cat"], "references": [REFS, REFS], "reported": 30.0},
}
# Arguments that legitimately take any value of the wrong kinds below (None = default) are left out.
ACCEPTS_NONE = {"smoothing", "smoothing_function", "smooth_value", "effective_order", "seed"}
NOT_CHECKED = {"load_wmt"}  # needs sacrebleu's downloaded test sets; tested where they exist
WRONG = [object(), b"\xff\xfe", -1.5, float("nan")]


def cases():
    for name in bl.__all__:
        func = getattr(bl, name)
        if not inspect.isfunction(func) or name in NOT_CHECKED:
            continue
        assert name in VALID, f"add a valid call of the public function {name} to VALID"
        params = [p for p in inspect.signature(func).parameters.values() if p.kind != p.VAR_KEYWORD]
        for param in params:
            for k, wrong in enumerate(WRONG):
                yield pytest.param(name, param.name, wrong, id=f"{name}-{param.name}-{k}")


def test_every_public_function_has_a_valid_call():
    for name, kwargs in VALID.items():
        getattr(bl, name)(**kwargs)


@pytest.mark.parametrize(("name", "argument", "wrong"), list(cases()))
def test_a_wrong_argument_is_named(name, argument, wrong):
    func = getattr(bl, name)
    kwargs = dict(VALID[name], **{argument: wrong})
    if argument in ACCEPTS_NONE and wrong is None:
        return
    try:
        func(**kwargs)
    except (TypeError, ValueError) as err:
        message = str(err)
        aliases = {argument, argument.replace("_", " "), argument.rstrip("s")}
        assert any(alias in message for alias in aliases), f"{name}({argument}={wrong!r}): {message}"
        return
    # accepted: only numbers that the argument documents as meaningful may pass
    assert isinstance(wrong, float) and argument in ("weights",), f"{name} accepted {argument}={wrong!r}"


TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40)


@given(hyp=TEXT, refs=st.lists(TEXT, min_size=1, max_size=3), n=st.integers(1, 6),
       smoothing=st.sampled_from(["method0", "method1", "method2", "method3", "method4", "method7"]))
def test_any_text_scores_in_range_or_fails_clearly(hyp, refs, n, smoothing):
    try:
        nltk_score = bl.sentence_bleu(refs, hyp, (1 / n,) * n, smoothing)
        sacre = bl.sentence_score(hyp, refs, max_ngram_order=n)
        expl = bl.explain(refs, hyp, weights=(1 / n,) * n, smoothing=smoothing)
    except ValueError as err:  # e.g. references that are one tokenized sentence: a clear message
        assert "reference" in str(err)
        return
    above_one = smoothing == "method7"  # nltk's reading of methods 5 and 7 can exceed 1 (lesson 6, appendix)
    assert 0 <= nltk_score and (above_one or nltk_score <= 1 + 1e-9) and not math.isnan(nltk_score)
    assert 0 <= sacre.score <= 100 + 1e-9
    assert expl.score == nltk_score and str(expl) and expl._repr_html_()
