"""The explain views (BLEU and chrF) in a real browser: long tokens and long hypotheses wrap inside a 700 px box."""

from __future__ import annotations

import bleu_lab as bl
from bleu_lab.reports.explain_html import explanation_html

PAPINENI_REFS = [
    "It is a guide to action that ensures that the military will forever heed Party commands .",
    "It is the guiding principle which guarantees the military forces always being under the command of the Party .",
]
PAPINENI_HYP = "It is a guide to action which ensures that the military always obeys the commands of the party ."


def _width_in_box(browser, html: str) -> tuple[int, int]:
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    try:
        page.set_content(f"<div id='box' style='width:700px'>{html}</div>")
        return page.evaluate("() => [document.getElementById('box').scrollWidth, document.body.scrollWidth]")
    finally:
        page.close()


def test_a_3000_character_token_wraps_inside_the_box(browser):
    token = "x" * 3000
    box, body = _width_in_box(browser, explanation_html(bl.explain([token + " cat"], token + " cat")))
    assert box <= 700 and body <= 1280


def test_the_19_token_papineni_example_fits_700_px(browser):
    box, _ = _width_in_box(browser, explanation_html(bl.explain(PAPINENI_REFS, PAPINENI_HYP)))
    assert box <= 700


def _axe_violations(browser, view: str, heading: str) -> list[tuple[str, str, int]]:
    """axe-core's violations on a page that holds only ``view`` under a heading."""
    from axe_playwright_python.sync_playwright import Axe

    page = browser.new_page(viewport={"width": 1280, "height": 720})
    try:
        page.set_content(f"<!doctype html><html lang='en'><head><title>{heading}</title></head>"
                         f"<body><main><h1>{heading}</h1>{view}</main></body></html>")
        results = Axe().run(page)
    finally:
        page.close()
    return [(v["id"], v["help"], len(v["nodes"])) for v in results.response["violations"]]


def test_the_explain_view_passes_an_axe_accessibility_audit(browser):
    view = explanation_html(bl.explain(["the cat is on the mat", "there is a cat on the mat"],
                                       "the cat and the cat on the mat"))
    violations = _axe_violations(browser, view, "BLEU, step by step")
    assert violations == [], violations


def test_the_chrf_view_wraps_a_3000_character_token_inside_the_box(browser):
    token = "x" * 3000
    view = bl.explain_chrf(token + " cat", [token + " hat", "a cat"], word_order=2, whitespace=True)._repr_html_()
    box, body = _width_in_box(browser, view)
    assert box <= 700 and body <= 1280


def test_the_chrf_view_passes_an_axe_accessibility_audit(browser):
    view = bl.explain_chrf("the cat sat on the mat.", ["the cat is on the mat.", "a cat"], word_order=2,
                           eps_smoothing=True)._repr_html_()
    violations = _axe_violations(browser, view, "chrF, step by step")
    assert violations == [], violations
