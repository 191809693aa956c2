"""The comparison app (bleu_lab.course.widgets.compare_app, notebooks/compare_app.ipynb): the data/news example before
any upload, every analysis after one, the names box, and a friendly message (never a traceback) for odd input."""

from __future__ import annotations

import html
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bleu_lab.course.widgets.compare import CompareWidget
from bleu_lab.course.widgets.compare_app import CompareApp, compare_app, parse_names

NEWS = Path(__file__).resolve().parent.parent / "data" / "news"
FAST = {"n_samples": 100, "n_trials": 200}
CAPTIONS = ("Word F-measure by frequency bucket", "BLEU by reference length", "BLEU by length difference",
            "Segments by sentence-BLEU band", "n-grams matched more by")


def upload(name: str, data: bytes) -> dict:
    return {"name": name, "type": "text/plain", "size": len(data), "content": memoryview(data),
            "last_modified": datetime.now(UTC)}


def shown(app: CompareApp) -> tuple[CompareWidget | None, str]:
    """The comparison widget shown and the analyses' HTML below it (None, "" when nothing is shown)."""
    if not app.result.children:
        return None, ""
    widget, analyses = app.result.children
    return widget, analyses.value


def test_the_example_is_shown_before_any_upload():
    app = compare_app(**FAST)
    widget, analyses = shown(app)
    assert widget is not None and widget.comparison.names == ("strong", "fluent")
    assert "data/news example" in app.message.value
    assert all(caption in analyses for caption in CAPTIONS)
    assert "Scores" in widget.summary.value and "compare-example" in widget.output.value


def test_uploads_with_names_replace_the_example():
    app = CompareApp(example=False, **FAST)
    assert shown(app) == (None, "")
    app.systems.value = (upload("a.de", (NEWS / "sys.strong.de").read_bytes()),
                         upload("b.de", (NEWS / "sys.literal.de").read_bytes()))
    app.references.value = (upload("ref.de", (NEWS / "ref.A.de").read_bytes()),)
    app.names.value = "base, new"
    widget = app.compare()
    assert widget is not None and widget.comparison.names == ("base", "new")
    assert shown(app)[0] is widget and all(caption in shown(app)[1] for caption in CAPTIONS)
    app.names.value = ""
    assert app.compare().comparison.names == ("a.de", "b.de")


@pytest.mark.parametrize(("names", "expected"), [("one", "1 names for 2 system files"),
                                                 ("same, same", "repeat one")])
def test_bad_names_are_explained(names, expected):
    app = CompareApp(example=False, **FAST)
    app.systems.value = (upload("a.txt", b"x y\n"), upload("b.txt", b"x z\n"))
    app.references.value = (upload("r.txt", b"x y\n"),)
    app.names.value = names
    assert app.compare() is None and expected in app.message.value and app.result.children == ()


def test_mismatched_lines_and_bad_bytes_are_explained():
    app = compare_app(**FAST)
    app.systems.value = (upload("a.txt", b"one\ntwo\n"), upload("b.txt", b"one\ntwo\n"))
    app.references.value = (upload("r.txt", b"one\n"),)
    assert app.compare() is None and app.result.children == ()
    assert "reference file r.txt has 1 line but system file a.txt has 2 lines" in app.message.value
    app.references.value = (upload("r.txt", "één\ntwee\n".encode("latin-1")),)
    assert app.compare() is None and "r.txt" in app.message.value and "UTF-8" in app.message.value


def test_names_are_split_on_commas_or_spaces():
    assert parse_names("base, new system") == ["base", "new system"]
    assert parse_names("base new") == ["base", "new"]
    assert parse_names("  ") == []


def test_a_file_too_big_is_explained():
    app = CompareApp(example=False, **FAST)
    big = b"a\n" * (2 * 2**20 + 1)  # just over 4 MiB, the bound of one upload
    app.systems.value = (upload("a.txt", big), upload("b.txt", b"a\n"))
    app.references.value = (upload("r.txt", b"a\n"),)
    assert app.compare() is None and app.result.children == ()
    assert "a.txt (4,194,306 bytes)" in app.message.value and "at most 4,194,304 bytes" in app.message.value


def test_too_many_segments_for_the_paired_tests_is_a_message_a_student_can_act_on():
    """The page's paired tests (its default 10,000 randomization trials) hold at most significance.MAX_DRAWS random
    draws: the message says how many segments the page can test and what to do, not an argument to change."""
    from bleu_lab.metrics.significance import MAX_DRAWS

    most = MAX_DRAWS // 10_000
    app = CompareApp(example=False)  # the page's own settings
    lines = b"a b\n" * (most + 1)
    app.systems.value = (upload("a.txt", lines), upload("b.txt", lines))
    app.references.value = (upload("r.txt", lines),)
    assert app.compare() is None and app.result.children == ()
    message = app.message.value
    assert f"These files have {most + 1:,} segments (lines), and this page can test at most {most:,} at once" in message
    assert f"Compare at most {most:,} lines at a time" in message
    assert f"bleu-lab compare on your own computer with --trials {MAX_DRAWS // (most + 1)} or fewer" in message
    assert "n_trials" not in message and "Traceback" not in message


def _two_systems(app: CompareApp) -> int:
    """data/news's strong and literal systems against reference A uploaded into ``app``; its number of segments."""
    app.systems.value = (upload("a.de", (NEWS / "sys.strong.de").read_bytes()),
                         upload("b.de", (NEWS / "sys.literal.de").read_bytes()))
    app.references.value = (upload("ref.de", (NEWS / "ref.A.de").read_bytes()),)
    app.names.value = "base, new"
    return len((NEWS / "ref.A.de").read_text(encoding="utf-8").splitlines())


def test_segment_scores_in_the_long_format_are_compared_like_bleu():
    """One uploaded file in the MQM release's layout (system, score, segment id; a header; None = not rated): the
    metric's means are the hand-computed means of the rated segments, the unrated ones are counted, and the page's
    analyses carry it."""
    app = CompareApp(example=False, **FAST)
    n = _two_systems(app)
    lines = ["system\tmqm\tseg_id"]
    for i in range(1, n + 1):
        lines.append(f"base\t{i % 5}\t{i}")
        lines.append(f"new\t{'None' if i % 10 == 0 else i % 3}\t{i}")
    app.scores.value = (upload("mqm.tsv", ("\n".join(lines) + "\n").encode()),)
    app.metric.value = "MQM"
    app.direction.value = "lower is better"
    widget = app.compare()
    assert widget is not None, app.message.value
    (metric,) = widget.comparison.metrics
    assert metric.name == "MQM" and not metric.higher_is_better
    systems = {s.name: s for s in metric.systems}
    new_rated = [i % 3 for i in range(1, n + 1) if i % 10 != 0]
    assert systems["base"].mean == pytest.approx(sum(i % 5 for i in range(1, n + 1)) / n)
    assert systems["new"].mean == pytest.approx(sum(new_rated) / len(new_rated))
    assert (systems["new"].rated, systems["new"].unrated) == (len(new_rated), n // 10)
    assert "MQM" in shown(app)[1]


def test_segment_scores_one_number_per_line_go_with_the_systems_in_order():
    app = CompareApp(example=False, **FAST)
    n = _two_systems(app)
    app.scores.value = (upload("base.comet", "".join(f"0.{i % 7}\n" for i in range(n)).encode()),
                        upload("new.comet", "".join("0.5\n" for _ in range(n)).encode()))
    app.metric.value = "COMET"
    app.direction.value = "higher is better"
    widget = app.compare()
    assert widget is not None, app.message.value
    systems = {s.name: s.mean for s in widget.comparison.metrics[0].systems}
    assert systems == pytest.approx({"base": sum(i % 7 for i in range(n)) / n / 10, "new": 0.5})


@pytest.mark.parametrize(("metric", "direction", "content", "expected"), [
    ("", "higher is better", b"0.5\n", "need the metric's name"),
    ("COMET", None, b"0.5\n", "say whether COMET is better when higher"),
    ("COMET", "higher is better", b"0.5\n", "1 one-number-per-line files for 2 systems"),
    ("MQM", "lower is better", b"base 1 1\nnew x 1\n", "scores file s.tsv, line 2: expected a number"),
])
def test_segment_scores_that_cannot_be_used_are_explained(metric, direction, content, expected):
    app = CompareApp(example=False, **FAST)
    _two_systems(app)
    app.scores.value = (upload("s.tsv", content),)
    app.metric.value, app.direction.value = metric, direction
    assert app.compare() is None and app.result.children == ()
    message = html.unescape(app.message.value)
    assert expected in message and "Traceback" not in message, message
