"""Loading test sets: the shipped news corpus, text files, and WMT through sacrebleu (local files, no network)."""

from __future__ import annotations

import socket
import urllib.error
import urllib.request

import pytest
from sacrebleu.dataset import DATASETS
from sacrebleu.metrics import BLEU

import bleu_lab
import bleu_lab.data as data
from bleu_lab.data import (
    Corpus,
    DataUnavailableError,
    available_corpora,
    corpus_dir,
    load_corpus,
    load_wmt,
    read_lines,
    references_per_segment,
)

# --- the shipped corpus -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def news() -> Corpus:
    return load_corpus("news")


def test_news_corpus_is_shipped_and_line_aligned(news):
    assert "news" in available_corpora() and news.path == corpus_dir() / "news"
    assert len(news) == len(news.sources) == 160
    assert set(news.systems) == {"strong", "literal", "fluent", "degraded", "salad"}
    assert list(news.systems) == sorted(news.systems)
    assert list(news.reference_streams) == ["A", "B"]
    for lines in [*news.reference_streams.values(), *news.systems.values()]:
        assert len(lines) == 160


def test_empty_ref_b_lines_mean_no_second_reference(news):
    refs = news.references
    b = news.reference_streams["B"]
    assert [len(r) for r in refs] == [2 if line.strip() else 1 for line in b]
    assert all(len(r) == 2 for r in refs[:60]) and all(len(r) == 1 for r in refs[60:])
    assert news.references_for("A") == [[line] for line in news.reference_streams["A"]]
    assert all(seg[0] == a for seg, a in zip(refs, news.reference_streams["A"]))


def test_news_scores_equal_sacrebleu_on_ref_a(news):
    ref_a = news.reference_streams["A"]
    for name, hyps in news.systems.items():
        ours = bleu_lab.corpus_score(hyps, news.references_for("A"))
        assert ours.score == BLEU().corpus_score(hyps, [ref_a]).score, name


def test_references_for_checks_names(news):
    with pytest.raises(ValueError, match="unknown reference 'C'; this corpus has A, B"):
        news.references_for("A", "C")
    with pytest.raises(ValueError, match="name at least one reference"):
        news.references_for()


def test_corpus_views(news):
    text = str(news)
    assert text.startswith("Corpus 'news': 160 segments") and "B (60 lines)" in text and "strong" in text
    assert "<b>Corpus news</b>" in news._repr_html_() and "reference B: 60 of 160 segments" in news._repr_html_()


def test_unknown_corpus_lists_the_shipped_ones():
    with pytest.raises(ValueError, match="unknown corpus 'nws'; available: .*news"):
        load_corpus("nws")
    with pytest.raises(TypeError, match="corpus name"):
        load_corpus(None)


def test_missing_data_folder_says_where_it_comes_from(monkeypatch, tmp_path):
    monkeypatch.setattr(data, "corpus_dir", lambda: tmp_path / "nowhere")
    with pytest.raises(FileNotFoundError, match="comes with the bleu_lab repository"):
        load_corpus("news")


def make_corpus(root, files: dict[str, str]):
    folder = root / "mini"
    folder.mkdir(parents=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def test_any_folder_in_the_layout_loads(monkeypatch, tmp_path):
    files = {"src.en": "a\nb\nc\n", "ref.A.de": "x\ny\nz\n", "ref.B.de": "\nY\n\n", "sys.one.de": "x\n\nz\n"}
    make_corpus(tmp_path, files)
    monkeypatch.setattr(data, "corpus_dir", lambda: tmp_path)
    mini = load_corpus("mini")
    assert mini.sources == ["a", "b", "c"] and mini.systems == {"one": ["x", "", "z"]}
    assert mini.references == [["x"], ["y", "Y"], ["z"]]


def test_unequal_line_counts_name_the_file(monkeypatch, tmp_path):
    make_corpus(tmp_path, {"src.en": "a\nb\nc\n", "ref.A.de": "x\ny\nz\n", "sys.short.de": "x\ny\n"})
    monkeypatch.setattr(data, "corpus_dir", lambda: tmp_path)
    with pytest.raises(ValueError, match="sys.short.de has 2 lines but src.en has 3"):
        load_corpus("mini")


def test_a_folder_without_references_is_refused(monkeypatch, tmp_path):
    make_corpus(tmp_path, {"src.en": "a\n", "sys.one.de": "x\n"})
    monkeypatch.setattr(data, "corpus_dir", lambda: tmp_path)
    with pytest.raises(ValueError, match="no reference file"):
        load_corpus("mini")


# --- reading text files ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "lines"),
    [
        (b"one\ntwo\n", ["one", "two"]),
        (b"one\ntwo", ["one", "two"]),  # no newline at the end
        (b"one\r\ntwo\r\n", ["one", "two"]),  # Windows line endings
        (b"one\n\nthree\n", ["one", "", "three"]),  # an empty line is a segment
        (b"", []),
        (b"\n", [""]),
        ("a\u2028b\nc\n".encode(), ["a\u2028b", "c"]),  # split on \n only, as sacrebleu reads files
    ],
)
def test_read_lines(tmp_path, raw, lines):
    path = tmp_path / "f.txt"
    path.write_bytes(raw)
    assert read_lines(path) == lines


def test_read_lines_errors_name_the_file_and_the_place(tmp_path):
    with pytest.raises(FileNotFoundError, match="hypothesis file not found: .*missing.txt"):
        read_lines(tmp_path / "missing.txt", "hypothesis")
    with pytest.raises(IsADirectoryError, match="is a directory"):
        read_lines(tmp_path, "reference")
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("ok\nSch\xf6n\n".encode("latin-1"))
    with pytest.raises(ValueError, match=r"latin1.txt is not valid UTF-8: byte 0xf6 at line 2, column 4"):
        read_lines(bad, "reference")


def test_references_per_segment_keeps_at_least_one():
    assert references_per_segment([["a", "b", ""], ["A", "", " "]]) == [["a", "A"], ["b"], [""]]


# --- WMT through sacrebleu, on local files --------------------------------------------------------

WMT21_XML = """<?xml version='1.0' encoding='utf-8'?>
<dataset id="newstest2021">
  <collection id="general">
    <doc id="doc-1" origlang="en">
      <src lang="en"><p><seg id="1">The  council voted.</seg><seg id="2">It rained.</seg></p></src>
      <ref lang="de" translator="A"><p><seg id="1">Der Rat stimmte ab.</seg><seg id="2">Es regnete.</seg></p></ref>
      <ref lang="de" translator="B"><p><seg id="1">Der Rat hat abgestimmt.</seg><seg id="2">Nass.</seg></p></ref>
    </doc>
  </collection>
</dataset>
"""


@pytest.fixture
def no_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a test tried to use the network")

    monkeypatch.setattr(urllib.request, "urlopen", refuse)


@pytest.fixture
def wmt21_in(monkeypatch, tmp_path, no_network):
    """sacrebleu's wmt21 dataset, pointed at an empty cache folder under tmp_path."""
    dataset = DATASETS["wmt21"]
    monkeypatch.setattr(dataset, "_outdir", str(tmp_path / "wmt21"))
    monkeypatch.setattr(dataset, "_rawdir", str(tmp_path / "wmt21" / "raw"))
    return tmp_path / "wmt21"


def test_load_wmt_reads_what_sacrebleu_prepares(monkeypatch, wmt21_in):
    """The cached, already extracted test set: sacrebleu parses the XML into text files, load_wmt reads them."""
    raw = wmt21_in / "raw" / "test"
    raw.mkdir(parents=True)
    (raw / "newstest2021.en-de.xml").write_text(WMT21_XML, encoding="utf-8")
    downloads = []
    monkeypatch.setattr("sacrebleu.dataset.base.download_file", lambda url, *a, **k: downloads.append(url))
    test_set = load_wmt("wmt21", "en-de")
    assert downloads and all(url.startswith("https://") for url in downloads)  # asked for, never fetched
    assert test_set.name == "wmt21 en-de" and test_set.systems == {}
    assert test_set.sources == ["The council voted.", "It rained."]  # sacrebleu collapses whitespace
    assert test_set.reference_streams == {"A": ["Der Rat stimmte ab.", "Es regnete."]}  # wmt21's official ref
    assert test_set.references == [["Der Rat stimmte ab."], ["Es regnete."]]
    assert socket.getdefaulttimeout() is None  # the download time limit is put back


@pytest.mark.parametrize(
    "failure",
    [urllib.error.URLError("[Errno -3] Temporary failure in name resolution"), SystemExit(1), TimeoutError()],
)
def test_load_wmt_offline_gives_a_clear_error(monkeypatch, wmt21_in, failure):
    def fail(*args, **kwargs):
        raise failure

    monkeypatch.setattr("sacrebleu.dataset.base.download_file", fail)
    with pytest.raises(DataUnavailableError) as info:
        load_wmt("wmt21", "en-de")
    message = str(info.value)
    assert "could not get the wmt21 en-de test set through sacrebleu" in message
    assert "offline" in message and "load_corpus('news')" in message
    assert type(failure).__name__ in message


def test_load_wmt_names_unknown_test_sets_and_pairs(no_network):
    with pytest.raises(ValueError, match="unknown test set 'wmt211'; did you mean 'wmt21'"):
        load_wmt("wmt211", "en-de")
    with pytest.raises(ValueError, match="wmt21 has no language pair 'en-xx'; it has .*en-de"):
        load_wmt("wmt21", "en-xx")
    with pytest.raises(TypeError, match="must be strings"):
        load_wmt("wmt21", None)
