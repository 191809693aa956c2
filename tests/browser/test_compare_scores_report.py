"""The comparison report with a metric from elsewhere (``compare_systems(..., scores=...)``) in a real browser: the
sentence-BLEU-against-MQM figure and the MQM-by-bucket figures are images with a name and a caption, the metric's,
its bucket and the agreement tables, the people-against-the-metrics tables, its examples and the disagreements fit a
1280 x 720 screen, and the page passes an axe-core accessibility audit with every ``<details>`` open."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bleu_lab.compare import compare_systems
from bleu_lab.data import read_lines
from bleu_lab.metrics.segment_scores import segment_scores

NEWS = Path(__file__).resolve().parents[2] / "data" / "news"


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    systems = {n: read_lines(NEWS / f"sys.{n}.de") for n in ("strong", "fluent", "literal")}
    rng = np.random.default_rng(5)
    n = len(systems["strong"])
    mqm = segment_scores("MQM", {s: [None if i % 6 == 0 else float(rng.choice([0, 0, 0, 1, 5, 0.1]))
                                     for i in range(n)] for s in systems}, higher_is_better=False)
    comparison = compare_systems(systems, read_lines(NEWS / "ref.A.de"), sources=read_lines(NEWS / "src.en"),
                                 n_samples=100, n_trials=200, scores={"MQM": mqm})
    path = tmp_path_factory.mktemp("report") / "report.html"
    comparison.to_html(path)
    return path


def test_the_metric_sections_fit_and_the_scatter_has_a_name(browser, report):
    from playwright.sync_api import expect

    page = browser.new_page(viewport={"width": 1280, "height": 720})
    try:
        page.goto(report.as_uri())
        figure = page.get_by_role("img", name="Sentence BLEU and MQM", exact=True)
        expect(figure).to_be_visible()
        assert figure.bounding_box()["width"] >= 400
        for caption in ("MQM: each system", "MQM: every pair of systems", "Metrics and people"):
            expect(page.locator("caption", has_text=caption)).to_have_count(1)
        expect(page.locator(".compare-disagreement").first).to_be_visible()
        # the people against the metrics: its two tables, each no wider than its region (nothing to scroll sideways)
        for caption in ("MQM (the people) against the metrics: rank (score)",
                        "Where a metric and MQM disagree: every pair they order the opposite way"):
            table = page.locator("table", has=page.locator("caption", has_text=caption))
            expect(table).to_have_count(1)
            expect(table).to_be_visible()
            assert table.evaluate("t => t.scrollWidth <= t.parentElement.clientWidth"), caption
        for name in ("MQM by reference length", "MQM by length difference"):
            figure = page.get_by_role("img", name=name, exact=True)
            expect(figure).to_be_visible()
            assert figure.bounding_box()["width"] >= 400
            caption = page.locator("figure", has=figure).locator("figcaption")
            expect(caption).to_contain_text("mean of their MQM scores (lower is better: shorter is better)")
            expect(page.locator("caption", has_text=f"{name} (mean of segment scores)")).to_have_count(1)
        examples = page.locator(".compare-metric-example")
        expect(examples.first).to_be_hidden()  # behind <details> until opened
        page.evaluate("() => document.querySelectorAll('details').forEach((d) => { d.open = true; })")
        expect(examples).to_have_count(20)  # 10 for each of the two systems against the baseline
        expect(examples.first).to_be_visible()
        width = page.evaluate("() => document.documentElement.scrollWidth")
    finally:
        page.close()
    assert width <= 1280


def test_the_report_with_scores_passes_an_axe_accessibility_audit(browser, report):
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
