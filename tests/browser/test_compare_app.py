"""The comparison app (notebooks/compare_app.ipynb) as a Voilà page in a real browser, and in JupyterLab.

It opens with the data/news example (never an empty page); a student uploads two small system files and a reference
through the page's file inputs, presses Compare and reads the scores table of their own systems; files whose line
counts differ give a friendly message naming both files, never a traceback. Every wait is on page state.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from playwright.sync_api import Locator, Page, expect

from .helpers import PageErrors, assert_no_traceback, open_in_voila, open_notebook_in_lab, type_into_widget

APP = "notebooks/compare_app.ipynb"
REFERENCE = ["the cat sat on the mat .", "a dog barks at the moon .", "we went home early today ."]
SYSTEM_A = ["the cat sat on the mat .", "a dog barks at moon .", "we went home today ."]
SYSTEM_B = ["a cat is on a mat .", "the dog is barking .", "today we went early home ."]


def text_file(name: str, lines: list[str]) -> dict:
    """A file for Playwright's set_input_files, as a student's plain-text file (UTF-8, one segment per line)."""
    return {"name": name, "mimeType": "text/plain", "buffer": ("\n".join(lines) + "\n").encode("utf-8")}


def choose_files(button: Locator, files: list[dict]) -> None:
    """Click an upload button and give its file input the files (ipywidgets' FileUpload keeps its
    ``<input type=file>`` out of the document, so Playwright sets the files through the file chooser it opens)."""
    with button.page.expect_file_chooser() as chooser:
        button.click()
    chooser.value.set_files(files)
    expect(button).to_contain_text(f"({len(files)})")


def upload(app: Locator, systems: list[dict], references: list[dict], names: str = "") -> None:
    """Choose the files in the two file inputs, type the names, press Compare."""
    choose_files(app.locator(".bleu-upload-systems"), systems)
    choose_files(app.locator(".bleu-upload-references"), references)
    if names:
        type_into_widget(app.page, app.locator(".bleu-upload-names"), names)
    app.get_by_role("button", name="Compare").click()


def scores_table(app: Locator) -> Locator:
    return app.locator("table").filter(has=app.page.locator("caption", has_text=re.compile(r"^Scores$")))


def analyses_pass_an_axe_audit(page: Page) -> None:
    """The figures, the pairs and the bucket tables with every bucket's segments open, as the page shows them."""
    from axe_playwright_python.sync_playwright import Axe

    page.evaluate("() => document.querySelectorAll('.bleu-compare-analyses details')"
                  ".forEach((d) => { d.open = true; })")
    results = Axe().run(page, context={"include": [[".bleu-compare-analyses"]]})
    violations = [(v["id"], v["help"], [n["target"] for n in v["nodes"]][:3]) for v in results.response["violations"]]
    assert violations == [], violations


def test_compare_app_in_voila(page: Page, voila_server_factory: Callable[[str | None], str], page_errors: PageErrors):
    cells = open_in_voila(page, voila_server_factory(APP))
    assert_no_traceback(page)
    expect(page.locator(".jp-CodeCell .jp-InputArea, .jp-CodeMirrorEditor, .cm-content")).to_have_count(0)
    expect(cells).to_contain_text("Compare your own systems")
    expect(cells).not_to_contain_text("In JupyterLab")  # the voila-hide cell
    app = cells.locator(".bleu-compare-app")
    expect(app).to_have_count(1)

    # before any upload: the data/news example, every analysis on the page
    expect(app.locator(".bleu-upload-message")).to_contain_text("data/news example")
    table = scores_table(app)
    expect(table.locator("tbody tr")).to_have_count(2)
    expect(table).to_contain_text("strong")
    expect(table).to_contain_text("fluent")
    for caption in ("Word F-measure by frequency bucket", "BLEU by reference length", "Segments by sentence-BLEU band",
                    "n-grams matched more by"):
        expect(app.locator("caption", has_text=caption).first).to_be_visible()
    expect(app.locator(".compare-example").first).to_be_visible()
    for name in ("BLEU by reference length", "BLEU by length difference", "Word F-measure by frequency bucket",
                 "Sentence-BLEU distribution"):
        expect(app.get_by_role("img", name=name, exact=True)).to_be_visible()
    expect(app.locator("caption", has_text="Every pair of systems")).to_be_visible()
    expect(app.locator(".compare-legend")).to_contain_text("clipped away")
    segments = app.locator(".bucket-segments details").first
    segments.locator("summary").click()
    expect(segments.locator("li").first).to_be_visible()
    analyses_pass_an_axe_audit(page)

    # the student's own files
    upload(app, [text_file("base.txt", SYSTEM_A), text_file("new.txt", SYSTEM_B)], [text_file("ref.txt", REFERENCE)],
           names="mine, theirs")
    expect(app.locator(".bleu-upload-message")).to_contain_text("Compared 2 systems on 3 segments")
    table = scores_table(app)
    expect(table.locator("tbody tr")).to_have_count(2)
    expect(table.locator("tbody tr").nth(0)).to_contain_text("mine (baseline)")
    expect(table.locator("tbody tr").nth(1)).to_contain_text("theirs")
    expect(app).not_to_contain_text("strong")
    assert_no_traceback(page)

    # people's scores beside BLEU: a long-format file (system, score, segment id), the metric's name and direction
    mqm = ["mine 0 1", "mine 1 2", "mine 5 3", "theirs 2 1", "theirs None 2", "theirs 7 3"]
    choose_files(app.locator(".bleu-upload-scores"), [text_file("mqm.tsv", mqm)])
    type_into_widget(page, app.locator(".bleu-upload-metric"), "MQM")
    app.locator(".bleu-upload-direction").get_by_role("button", name="lower is better").click()
    app.get_by_role("button", name="Compare").click()
    expect(app.locator(".bleu-upload-message")).to_contain_text("Compared 2 systems on 3 segments")
    expect(app.locator(".bleu-compare-analyses")).to_contain_text("MQM")
    assert_no_traceback(page)

    # a reference with one line too few: a friendly message naming both files, and no stale comparison
    upload(app, [text_file("base.txt", SYSTEM_A), text_file("new.txt", SYSTEM_B)],
           [text_file("short_ref.txt", REFERENCE[:2])])
    message = app.locator(".bleu-upload-message")
    expect(message).to_contain_text("These files cannot be compared")
    expect(message).to_contain_text("short_ref.txt has 2 lines but system file base.txt has 3 lines")
    expect(scores_table(app)).to_have_count(0)
    assert_no_traceback(page)
    page_errors.assert_clean()


def test_compare_app_in_jupyterlab(page: Page, jupyterlab_url: str):
    panel = open_notebook_in_lab(page, jupyterlab_url, APP)
    assert_no_traceback(page)
    app = panel.locator(".bleu-compare-app")
    expect(app).to_have_count(1)
    expect(scores_table(app).locator("tbody tr")).to_have_count(2)
    upload(app, [text_file("base.txt", SYSTEM_A), text_file("new.txt", SYSTEM_B)], [text_file("ref.txt", REFERENCE)])
    expect(app.locator(".bleu-upload-message")).to_contain_text("Compared 2 systems on 3 segments")
    expect(scores_table(app).locator("tbody tr").nth(0)).to_contain_text("base.txt (baseline)")
    assert_no_traceback(page)


def big_upload_gets_a_message(app: Locator) -> None:
    """5 MB of lines: more than the page accepts (4 MiB, compare.files.MAX_UPLOAD_BYTES) but within the server's
    websocket_max_message_size (8 MiB), so the upload reaches the page's own check, which names the bound."""
    expect(app.locator(".bleu-upload-message")).to_contain_text("data/news example")
    big = text_file("huge.txt", ["the cat sat on the mat ."] * 200_000)
    upload(app, [big, text_file("new.txt", SYSTEM_B)], [text_file("ref.txt", REFERENCE)])
    message = app.locator(".bleu-upload-message")
    expect(message).to_contain_text("huge.txt", timeout=60_000)
    expect(message).to_contain_text("one comparison here takes at most 4,194,304 bytes")
    assert_no_traceback(app.page)


def test_a_file_over_the_size_limit_gets_a_message_in_voila(
    page: Page, voila_server_factory: Callable[[str | None], str], page_errors: PageErrors
):
    big_upload_gets_a_message(open_in_voila(page, voila_server_factory(APP)).locator(".bleu-compare-app"))
    page_errors.assert_clean()


def test_a_file_over_the_size_limit_gets_a_message_in_jupyterlab(page: Page, jupyterlab_url: str):
    big_upload_gets_a_message(open_notebook_in_lab(page, jupyterlab_url, APP).locator(".bleu-compare-app"))
