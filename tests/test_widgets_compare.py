"""The comparison widget (bleu_lab.course.widgets.compare): filters, side-by-side chips, files and uploads, and a
friendly message (never a traceback) for every odd input."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from bleu_lab.compare import compare_systems
from bleu_lab.compare.bucketers import SENTENCE_BLEU
from bleu_lab.course.widgets import compare_upload, compare_widget
from bleu_lab.course.widgets.compare import ALL, CompareWidget, SegmentFilter, matching_segments
from bleu_lab.data import read_lines

NEWS = Path(__file__).resolve().parent.parent / "data" / "news"
FAST = {"n_samples": 100, "n_trials": 200}


@pytest.fixture(scope="module")
def comparison():
    systems = {n: read_lines(NEWS / f"sys.{n}.de") for n in ("strong", "fluent", "literal")}
    return compare_systems(systems, read_lines(NEWS / "ref.A.de"), sources=read_lines(NEWS / "src.en"), **FAST)


def test_every_control_redraws_the_segments(comparison):
    widget = CompareWidget(comparison)
    first = widget.output.value
    assert first.count("class='compare-example'") == 10 and "bleu-tok" in first
    widget.pair.value = "literal"
    assert widget.output.value != first and "literal" in widget.output.value
    widget.bucket.value = (SENTENCE_BLEU.name, 1)
    shown = widget.update().segments
    assert shown and all(10 <= comparison.sentence_bleu["literal"][i] < 20 for i in shown)
    widget.keyword.value = "Kettleford"
    assert all("kettleford" in " ".join([comparison.sources[i], *comparison.references[i],
                                         comparison.outputs["literal"][i], comparison.outputs["strong"][i]]).lower()
               for i in widget.update().segments)


def test_segments_sort_by_gap_or_length(comparison):
    by_gap = matching_segments(comparison, SegmentFilter("fluent"))
    gaps = abs(comparison.sentence_bleu["fluent"] - comparison.sentence_bleu["strong"])
    assert [gaps[i] for i in by_gap] == sorted(gaps, reverse=True)
    by_length = matching_segments(comparison, SegmentFilter("fluent", ALL, "", "length"))
    assert [comparison.reference_lengths[i] for i in by_length] == sorted(comparison.reference_lengths)


@pytest.mark.parametrize("keyword", ["zzzz", "   ", "<script>", "x" * 500, "\ud800"])
def test_odd_keywords_get_a_message_not_a_traceback(comparison, keyword):
    widget = CompareWidget(comparison)
    widget.keyword.value = keyword
    out = widget.output.value
    assert "Traceback" not in out and "<script>" not in out
    assert "bleu-message" in out or "compare-example" in out


def test_files_with_problems_get_a_friendly_message(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes("K\xe4se\n".encode("latin-1") * 160)
    strong = str(NEWS / "sys.strong.de")
    cases = {
        "has 3 lines but system file": dict(system_paths=[strong, str(tmp_path / "short.txt")],
                                            reference_paths=[str(NEWS / "ref.A.de")]),
        "is not valid UTF-8": dict(system_paths=[strong], reference_paths=[str(bad)]),
        "not found": dict(system_paths=[strong], reference_paths=[str(tmp_path / "none.txt")]),
    }
    (tmp_path / "short.txt").write_text("a\nb\nc\n", encoding="utf-8")
    for message, kwargs in cases.items():
        widget = compare_widget(**kwargs, **FAST)
        assert message in widget.output.value and "Traceback" not in widget.output.value


def test_paths_give_the_same_comparison_as_lines():
    widget = compare_widget(system_paths=[str(NEWS / "sys.strong.de"), str(NEWS / "sys.fluent.de")],
                            reference_paths=[str(NEWS / "ref.A.de")], names=["strong", "fluent"], **FAST)
    assert isinstance(widget, CompareWidget)
    assert widget.comparison.system("fluent").bleu.score == pytest.approx(30.71, abs=0.01)


def upload(name: str, data: bytes) -> dict:
    return {"name": name, "type": "text/plain", "size": len(data), "content": memoryview(data),
            "last_modified": datetime.now(UTC)}


def test_uploads_are_compared_or_explained():
    view = compare_upload(**FAST)
    ref = (NEWS / "ref.A.de").read_bytes()
    view.systems.value = (upload("strong.de", (NEWS / "sys.strong.de").read_bytes()),
                          upload("fluent.de", (NEWS / "sys.fluent.de").read_bytes()))
    view.references.value = (upload("ref.de", ref),)
    widget = view.compare()
    assert widget is not None and widget.comparison.names == ("strong.de", "fluent.de")
    view.references.value = (upload("ref.de", ref[: len(ref) // 2]),)
    assert view.compare() is None and "reference file ref.de has" in view.message.value
    view.references.value = ()
    assert view.compare() is None and "no reference file" in view.message.value


def test_chinese_uploads_compared_with_13a_get_a_note_naming_zh():
    view = compare_upload(**FAST, chrf=False)
    view.systems.value = (upload("a.zh", "我们今天去公园走路。\n他喜欢看书。\n".encode()),
                          upload("b.zh", "我们今天去公园散步。\n他喜欢读书。\n".encode()))
    view.references.value = (upload("ref.zh", "我们今天去公园散步。\n他喜欢读书和写字。\n".encode()),)
    assert view.compare() is not None
    assert "look like Chinese text" in view.message.value and "use tokenizer zh" in view.message.value
    view.tokenize.value = "zh"
    assert view.compare() is not None and "Chinese" not in view.message.value
