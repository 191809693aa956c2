"""The standalone comparison report (``Comparison.to_html``) in a real browser: it loads nothing from anywhere,
fits a 1280 x 720 screen without sideways scrolling (every bucket's segments opened too), shows its four figures as
images with names, opens a bucket's segments on a click, and passes an axe-core accessibility audit with every
``<details>`` open."""

from __future__ import annotations

from pathlib import Path

import pytest

from bleu_lab.compare import compare_systems
from bleu_lab.data import read_lines

NEWS = Path(__file__).resolve().parents[2] / "data" / "news"


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    systems = {n: read_lines(NEWS / f"sys.{n}.de") for n in ("strong", "fluent", "literal")}
    systems["long"] = [line + " " + "Donaudampfschifffahrtsgesellschaftskapitän" * 40 for line in systems["strong"]]
    comparison = compare_systems(systems, read_lines(NEWS / "ref.A.de"), sources=read_lines(NEWS / "src.en"),
                                 n_samples=100, n_trials=200)
    path = tmp_path_factory.mktemp("report") / "report.html"
    comparison.to_html(path)
    return path


def test_the_report_is_offline_and_fits_1280_px(browser, report):
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    try:
        page.goto(report.as_uri())
        widths = page.evaluate("() => [document.documentElement.scrollWidth, document.body.scrollWidth]")
        examples = page.locator(".compare-example").count()
    finally:
        page.close()
    assert [url for url in requests if not url.startswith("file:")] == []
    assert max(widths) <= 1280
    assert examples == 30  # 10 per pair, 3 pairs against the baseline


def test_the_figures_pairs_and_segments_of_a_bucket(browser, report):
    from playwright.sync_api import expect

    page = browser.new_page(viewport={"width": 1280, "height": 720})
    try:
        page.goto(report.as_uri())
        for name in ("BLEU by reference length", "BLEU by length difference", "Word F-measure by frequency bucket",
                     "Sentence-BLEU distribution"):
            figure = page.get_by_role("img", name=name, exact=True)
            expect(figure).to_be_visible()
            assert figure.bounding_box()["width"] >= 400  # readable, not a thumbnail
        pairs = page.locator("table").filter(has=page.locator("caption", has_text="Every pair of systems"))
        expect(pairs.locator("tbody tr")).to_have_count(6)  # 4 systems: every pair, not only against the baseline
        expect(pairs.locator("thead")).to_contain_text("(Bonferroni)")
        segments = page.locator(".bucket-segments details").first
        expect(segments.locator("li").first).to_be_hidden()
        segments.locator("summary").click()
        expect(segments.locator("li").first).to_be_visible()
        expect(segments).to_contain_text("best")
        page.evaluate("() => document.querySelectorAll('details').forEach((d) => { d.open = true; })")
        width = page.evaluate("() => document.documentElement.scrollWidth")
        legend, scores = (page.locator(s).first.bounding_box()["y"] for s in (".compare-legend", "caption"))
    finally:
        page.close()
    assert width <= 1280
    assert legend < scores  # the legend comes first


def test_the_report_passes_an_axe_accessibility_audit(browser, report):
    from axe_playwright_python.sync_playwright import Axe

    page = browser.new_page(viewport={"width": 1280, "height": 720})
    try:
        page.goto(report.as_uri())
        page.evaluate("() => document.querySelectorAll('details').forEach((d) => { d.open = true; })")
        results = Axe().run(page)
    finally:
        page.close()
    violations = [(v["id"], v["help"], len(v["nodes"])) for v in results.response["violations"]]
    assert violations == [], violations


def test_the_widget_view_passes_an_axe_accessibility_audit(browser):
    """What the comparison widget draws (legend and scores table, then the segments side by side with chips), on a
    plain page."""
    from axe_playwright_python.sync_playwright import Axe

    from bleu_lab.course.widgets.compare import SegmentFilter, _summary_html, segments_view

    systems = {n: read_lines(NEWS / f"sys.{n}.de") for n in ("strong", "fluent")}
    comparison = compare_systems(systems, read_lines(NEWS / "ref.A.de"), sources=read_lines(NEWS / "src.en"),
                                 n_samples=100, n_trials=200)
    view = _summary_html(comparison) + segments_view(comparison, SegmentFilter("fluent", keyword="Stadt")).html
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    try:
        page.set_content("<!doctype html><html lang='en'><head><title>Compare systems</title></head>"
                         f"<body><main><h1>Compare systems</h1>{view}</main></body></html>")
        width = page.evaluate("() => document.documentElement.scrollWidth")
        results = Axe().run(page)
    finally:
        page.close()
    assert width <= 1280
    violations = [(v["id"], v["help"], len(v["nodes"])) for v in results.response["violations"]]
    assert violations == [], violations
