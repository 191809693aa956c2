"""The standalone comparison report (``Comparison.to_html``) in a real browser: it loads nothing from anywhere,
fits a 1280 x 720 screen without sideways scrolling, and passes an axe-core accessibility audit."""

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


def test_the_report_passes_an_axe_accessibility_audit(browser, report):
    from axe_playwright_python.sync_playwright import Axe

    page = browser.new_page(viewport={"width": 1280, "height": 720})
    try:
        page.goto(report.as_uri())
        results = Axe().run(page)
    finally:
        page.close()
    violations = [(v["id"], v["help"], len(v["nodes"])) for v in results.response["violations"]]
    assert violations == [], violations


def test_the_widget_view_passes_an_axe_accessibility_audit(browser):
    """What the comparison widget draws (scores table, then the segments side by side with chips), on a plain page."""
    from axe_playwright_python.sync_playwright import Axe

    from bleu_lab.compare.reporters import scores_html
    from bleu_lab.widgets.compare import SegmentFilter, segments_view

    systems = {n: read_lines(NEWS / f"sys.{n}.de") for n in ("strong", "fluent")}
    comparison = compare_systems(systems, read_lines(NEWS / "ref.A.de"), sources=read_lines(NEWS / "src.en"),
                                 n_samples=100, n_trials=200)
    view = scores_html(comparison) + segments_view(comparison, SegmentFilter("fluent", keyword="Stadt")).html
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
