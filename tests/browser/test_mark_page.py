"""`bleu-lab mark GRADES`'s page in a real browser (issue 44): served on 127.0.0.1 behind a token, a mark entered with
the keyboard alone (Tab to the field, type, Enter), a mark out of range refused beside its field, the exports written
again, a student's markup shown as text (no script runs), and an axe-core audit of the page as it is and with an error.

The grades are built here (as `bleu-lab grade` stores them: `hand_marks.save_grades`); tests/test_hand_marks.py grades
real notebooks. The server is started as an instructor runs it, stopped by its PID; every wait is on a condition.
"""

from __future__ import annotations

import csv
import http.client
import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect

from bleu_lab.assignments import lesson_gradings
from bleu_lab.assignments.exports import ExportSettings
from bleu_lab.assignments.gradebook import by_hand_column
from bleu_lab.assignments.hand_marks import save_grades
from bleu_lab.assignments.results import ExerciseResult, NotebookGrade

BLEU_LAB = Path(sys.executable).parent / "bleu-lab"
L3 = "03_brevity_penalty"
WRITTEN = by_hand_column(L3, "what BLEU would do without BP")
EVIL = "short outputs would score high <script>alert(1)</script> <img src=x onerror=alert(2)>"
START_TIMEOUT_S = 60.0
# Chromium logs a page answered with 400 (the refused mark) as a failed resource load.
REFUSED_LOAD = r"Failed to load resource: the server responded with a status of 400"


def _grade(student: str, answer: str) -> NotebookGrade:
    grade = NotebookGrade(Path(f"/c/submitted/{student}/{L3}/{L3}.ipynb"), L3)
    for e in lesson_gradings()[L3].exercises:
        grade.exercises.append(ExerciseResult(e.name, e.points, e.points, bool(e.manual),
                                              answer=f"answer = {answer!r}" if e.manual else "",
                                              key_points=e.manual, hidden_points=int(e.hidden is not None)))
    return grade


@pytest.fixture
def marking(tmp_path):
    """`bleu-lab mark` serving stored grades of alice and bob (bob's answer holds markup); yields (url, folder)."""
    store = tmp_path / "marks.csv.grades.json"
    save_grades(store, [_grade("alice", "Without BP, short outputs would score high."), _grade("bob", EVIL)],
                ExportSettings(csv=tmp_path / "marks.csv", feedback=tmp_path / "feedback"))
    process = subprocess.Popen([str(BLEU_LAB), "mark", str(store)], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, cwd=tmp_path)
    try:
        seen, deadline = b"", time.monotonic() + START_TIMEOUT_S
        while not re.search(rb"http://127\.0\.0\.1:\d+/\?token=\S+\n", seen) and time.monotonic() < deadline:
            ready, _, _ = select.select([process.stdout], [], [], max(0.0, deadline - time.monotonic()))
            chunk = os.read(process.stdout.fileno(), 4096) if ready else b""
            if ready and not chunk:
                break  # it stopped
            seen += chunk
        found = re.search(rb"http://127\.0\.0\.1:\d+/\?token=\S+\n", seen)
        assert found, f"bleu-lab mark printed no address within {START_TIMEOUT_S} s: {seen!r}"
        url = found.group(0).decode().strip()
        assert "?token=" in url
        yield url, tmp_path
    finally:
        os.kill(process.pid, 15)  # SIGTERM, by PID
        try:
            assert process.wait(timeout=20) == 0
        finally:
            if process.poll() is None:
                process.kill()
                process.wait(timeout=10)


def _tab_to(page, element_id: str, limit: int = 40) -> None:
    """Press Tab until the element ``element_id`` has the focus (at most ``limit`` presses)."""
    for _ in range(limit):
        if page.evaluate("() => document.activeElement && document.activeElement.id") == element_id:
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached #{element_id}")


def _audit(page) -> list[tuple[str, str, int]]:
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    return [(v["id"], v["help"], len(v["nodes"])) for v in results.response["violations"]]


def test_a_mark_entered_with_the_keyboard_alone_reaches_the_exports(page, page_errors, marking):
    url, folder = marking
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.goto(url)
    expect(page.locator("h1")).to_have_text("Written answers to mark")
    bob = page.locator("section", has=page.locator("h2", has_text="bob"))
    expect(bob.locator("pre")).to_have_text(f"answer = {EVIL!r}")  # the markup, as text
    assert page.locator("section img").count() == 0 and page.locator("body script").count() == 0
    assert _audit(page) == []

    _tab_to(page, "mark-0")  # alice's field: the keyboard alone, from the top of the page
    page.keyboard.type("2")
    page.keyboard.press("Enter")
    error = page.locator("#error-0")
    expect(error).to_contain_text("'2' is not a mark: expected a number from 0 to 1")
    expect(page.locator("#mark-0")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#mark-0")).to_have_attribute("aria-describedby", "error-0")
    assert _audit(page) == []
    assert not (folder / "marks.csv").exists()  # nothing recorded

    _tab_to(page, "mark-0")
    page.keyboard.press("Control+A")
    page.keyboard.type("1")
    page.keyboard.press("Enter")
    expect(page.locator("[role=status]")).to_contain_text(
        "Saved: alice, 03_brevity_penalty, what BLEU would do without BP: 1 / 1")
    expect(page.locator("section").first).to_contain_text("Mark so far: 1 / 1")
    with (folder / "marks.csv").open(encoding="utf-8", newline="") as f:
        rows = {row["student"]: row for row in csv.DictReader(f)}
    assert (rows["alice"][WRITTEN], rows["alice"][f"{L3}: total"], rows["alice"][f"{L3}: possible"]) == ("1", "6", "6")
    assert rows["bob"][f"{L3}: total"] == "5" and "to grade by hand" in rows["bob"]["notes"]
    assert "Score: 6 / 6" in (folder / "feedback" / "alice" / f"{L3}.html").read_text(encoding="utf-8")
    assert _audit(page) == []
    assert dialogs == []
    page_errors.assert_clean(ignore=[REFUSED_LOAD])


def test_the_page_refuses_a_request_without_its_token_or_from_another_host(page, marking):
    url, _ = marking
    response = page.goto(url.split("?")[0] + "?token=guess")
    assert response is not None and response.status == 403
    response = page.goto(url.split("?")[0])
    assert response is not None and response.status == 403
    port = int(url.split(":")[2].split("/")[0])
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    try:
        connection.request("GET", url.split(str(port), 1)[1], headers={"Host": f"rebound.example:{port}"})
        refused = connection.getresponse()
        assert refused.status == 403 and b"refused" in refused.read()  # the token, from a page of another name
        connection.request("POST", "/mark", body=b"x" * 20_000)
        too_large = connection.getresponse()
        assert too_large.status == 413 and b"at most" in too_large.read()
    finally:
        connection.close()


def test_the_filter_lists_one_student_or_the_answers_still_to_mark_with_the_keyboard(page, page_errors, marking):
    """For 200 students: the filter, a plain form (no script), used with the keyboard alone; a save keeps it."""
    url, folder = marking
    page.goto(url)
    expect(page.locator("section")).to_have_count(2)
    _tab_to(page, "filter-student")
    page.keyboard.type("BO")  # part of the login, any case
    page.keyboard.press("Enter")
    expect(page.locator("section")).to_have_count(1)
    expect(page.locator("section h2")).to_have_text(f"bob: {L3}, what BLEU would do without BP")
    expect(page.locator("main")).to_contain_text("Listing 1 of 2")
    assert _audit(page) == []

    _tab_to(page, "mark-1")  # bob's field keeps its number in the whole list
    page.keyboard.type("0.5")
    page.keyboard.press("Enter")
    expect(page.locator("[role=status]")).to_contain_text(f"Saved: bob, {L3}, what BLEU would do without BP: 0.5 / 1")
    expect(page.locator("section")).to_have_count(1)  # still bob's alone
    expect(page.locator("#filter-student")).to_have_value("BO")

    _tab_to(page, "filter-student")
    page.keyboard.press("Control+A")
    page.keyboard.press("Backspace")
    _tab_to(page, "filter-unmarked")
    page.keyboard.press("Space")
    page.keyboard.press("Enter")
    expect(page.locator("section")).to_have_count(1)  # alice's: bob's is marked now
    expect(page.locator("section h2")).to_have_text(f"alice: {L3}, what BLEU would do without BP")
    expect(page.locator("#filter-unmarked")).to_be_checked()
    assert _audit(page) == []

    page.goto(url + "&student=carol")
    expect(page.locator("main")).to_contain_text("No written answer is listed with this filter.")
    with (folder / "marks.csv").open(encoding="utf-8", newline="") as f:
        assert {row["student"]: row[WRITTEN] for row in csv.DictReader(f)} == {"alice": "", "bob": "0.5"}
    page_errors.assert_clean()
