"""``bleu-lab grade ... --feedback DIR``: one feedback page per student and lesson, ``DIR/STUDENT/LESSON.html``.

A page is built from the ``NotebookGrade`` the grader reports (the marks are the grader's, nothing is recomputed): the
score, a table of the marks per exercise (the visible check and, for a function exercise, its hidden cases), the
check's messages where a mark was missed, the cells that raised, and the grader's note. An exercise whose run with
bleu_lab's functions hidden could not finish is "not marked" (no points yet, graded again), never an accusation. The
student is ``roster.student_of`` (nbgrader's ``submitted/STUDENT/``, which ``bleu-lab collect`` writes), so
``bleu-lab collect --return DIR`` puts each page in its student's home; of a student's notebooks of one lesson, the
page is the graded one's.

**Hidden cases**, as the release treats them: no hidden case ships, and Gradescope shows their details (which name the
hidden inputs) only once grades are published (``gradebook``). A returned page is a published grade, but the same
``--seed`` draws the same inputs again (for a late submission, a regrade), so by default (``HIDDEN_POLICIES[0]``,
"summary") a page says only whether the hidden cases passed and their points; ``--feedback-hidden details`` adds the
messages that name the inputs. Written answers are graded by hand: the page says so (with the mark, once ``bleu-lab
mark`` or ``--manual`` gives it, counted in the score as in every export: ``gradebook.lesson_total``), and shows neither
the key points nor the model answer (the rubric).

The page is self-contained HTML (no script, no link, no font or image from elsewhere), in the language declared, with
a table whose caption and header cells say what each column holds, text at least 16 px with contrast above WCAG's
AA ratio, and every text from a notebook escaped: it is rendered from ``templates/feedback_page.html.j2`` with
autoescape (this module passes data only).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..reports.templates import Markup
from ..reports.templates import render as render_template
from . import lesson_gradings
from .grade import ExerciseResult, NotebookGrade
from .gradebook import WRITTEN_POINTS, LessonTotal, _split_messages, by_hand_column, lesson_total
from .lateness import LateWork, percent, points
from .private import private_folder, write_private
from .roster import student_of

HIDDEN_POLICIES = ("summary", "details")
MAX_MESSAGE_CHARS = 4000  # of one exercise's messages on a page (the rest is cut, and says so)

STYLE = """
body { font: 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1a1a1a; background: #fff;
       max-width: 52rem; margin: 2rem auto; padding: 0 1rem; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.25rem; margin-top: 2rem; }
table { border-collapse: collapse; width: 100%; }
caption { text-align: left; font-weight: bold; padding: 0.5rem 0; }
th, td { border: 1px solid #767676; padding: 0.4rem 0.6rem; text-align: left; vertical-align: top; }
th { background: #f0f0f0; }
.score { font-size: 1.3rem; font-weight: bold; }
.missed { color: #8a1c1c; } .earned { color: #1b5e20; }
pre { white-space: pre-wrap; word-break: break-word; background: #f7f7f7; border-left: 4px solid #767676;
      padding: 0.5rem 0.75rem; font: 15px/1.45 ui-monospace, Menlo, Consolas, monospace; }
"""


@dataclass(frozen=True)
class Page:
    student: str
    lesson: str
    path: Path


def _cut(lines: Sequence[str]) -> str:
    """Messages as one text, cut at ``MAX_MESSAGE_CHARS`` (saying so)."""
    text = "\n".join(lines)
    if len(text) > MAX_MESSAGE_CHARS:
        text = text[:MAX_MESSAGE_CHARS] + f"\n... (cut: {len(text) - MAX_MESSAGE_CHARS} more characters)"
    return text


def _rows(result: ExerciseResult, hidden: bool, by_hand: float | None = None) -> list[tuple[str, str, str, str]]:
    """(part, marks, out of, what it means) for the table."""
    if result.manual:
        if by_hand is not None:
            return [(result.name, f"{by_hand:g}", str(WRITTEN_POINTS), "a written answer, marked by hand")]
        return [(result.name, "by hand", str(WRITTEN_POINTS), "a written answer: your instructor reads and marks it "
                 "(not in this score yet)")]
    if result.unmarked:
        return [(result.name, "not marked", str(result.possible), "not marked yet: your instructor grades it again")]
    hidden_points = result.hidden_points if hidden else 0
    visible = result.points - hidden_points
    rows = [(result.name, str(visible), "1", "passed" if visible else "not passed")]
    if hidden:
        rows.append((f"{result.name}: hidden cases", str(hidden_points), "1",
                     "passed" if hidden_points else "not passed"))
    return rows


def _details(result: ExerciseResult, hidden: bool, policy: str) -> dict[str, str] | None:
    """What the page says of a missed mark (None: nothing): the visible check's messages always, the hidden cases'
    as ``policy`` allows (else only that they did not pass)."""
    if result.manual or result.points >= result.possible:
        return None
    if result.unmarked:
        return {"name": result.name, "unmarked": result.unmarked}
    visible, hidden_messages = _split_messages(result)
    found = {"name": result.name, "unmarked": "", "visible": _cut(visible), "hidden": "", "hidden_summary": ""}
    if hidden and not result.hidden_points:
        if policy == "details" and hidden_messages:
            found["hidden"] = _cut(hidden_messages)
        else:
            found["hidden_summary"] = "yes"
    return found if found["visible"] or found["hidden"] or found["hidden_summary"] else None


def _late(grade: NotebookGrade, total: LessonTotal, late: LateWork | None) -> dict[str, object] | None:
    """What the page says of lateness (``lateness``; None where it is unknown): how late, and with a penalty rule the
    penalty on ``total``, the total with the marks by hand (``gradebook.lesson_total``)."""
    lateness = late.of(grade.path) if late is not None else None
    if late is None or lateness is None or lateness.late is None:
        return None
    found: dict[str, object] = {"late": lateness.late, "by": lateness.by(), "deadline": lateness.deadline,
                                "rule": ""}
    if lateness.late and late.rule is not None and total.marked is not None:
        found.update(rule=late.rule.describe(), share=percent(total.marked.share), penalty=points(total.penalty),
                     final=points(total.final),
                     days=f": {lateness.days} started day{'s' if lateness.days != 1 else ''} late"
                     if late.rule.per_day else "")
    return found


def render(grade: NotebookGrade, student: str, policy: str = "summary",
           by_hand: Mapping[str, float] | None = None, late: LateWork | None = None) -> str:
    """The feedback page of one graded notebook, as HTML (``templates/feedback_page.html.j2``, autoescaped);
    ``by_hand``: the student's marks by hand (``gradebook.read_by_hand``), by column; ``late``: lateness and the late
    penalty (``lateness``), on the total with the marks by hand."""
    if policy not in HIDDEN_POLICIES:
        raise ValueError(f"--feedback-hidden {policy!r}: expected one of {', '.join(HIDDEN_POLICIES)}")
    grading = lesson_gradings().get(grade.lesson)
    with_hidden = {e.name for e in grading.exercises if e.hidden is not None} if grading else set()
    marks = by_hand or {}
    total = lesson_total(grade, marks, late)
    rows = [{"part": part, "marks": points, "out_of": out_of, "meaning": meaning,
             "kind": "earned" if meaning == "passed" else "missed" if meaning == "not passed" else ""}
            for e in grade.exercises
            for part, points, out_of, meaning in _rows(e, e.name in with_hidden,
                                                       marks.get(by_hand_column(grade.lesson, e.name)))]
    details = [d for e in grade.exercises if (d := _details(e, e.name in with_hidden, policy)) is not None]
    return render_template(
        "feedback_page.html.j2", title=f"{grade.lesson}: feedback for {student}", style=Markup(STYLE),
        graded=grade.graded, note=grade.note, score=total.score, possible=total.possible,
        late=_late(grade, total, late),
        withheld=sum(e.possible for e in grade.exercises if e.unmarked), to_mark=len(total.to_mark), rows=rows,
        details=details, errors=_cut(grade.errors)) + "\n"  # byte for byte the page written before the template


def write_feedback(directory: Path, grades: Sequence[NotebookGrade], policy: str = "summary",
                   by_hand: Mapping[str, Mapping[str, float]] | None = None,
                   late: LateWork | None = None) -> list[Page]:
    """Write ``directory/STUDENT/LESSON.html`` for each grade (a notebook of no known lesson: ``NAME.html``), with
    the marks ``by_hand`` (``--manual``) and the lateness ``late`` where given."""
    directory = Path(directory)
    lessons = lesson_gradings()
    chosen: dict[tuple[str, str], NotebookGrade] = {}
    for grade in sorted(grades, key=lambda g: not g.graded):  # a lesson's graded notebook before the others
        name = grade.lesson if grade.lesson in lessons else Path(grade.path).stem
        chosen.setdefault((student_of(grade.path), name), grade)
    pages = []
    for (student, name), grade in chosen.items():
        path = directory / student / f"{name}.html"
        private_folder(path.parent)  # 0700, as the page is 0600 (``private``): the student's marks are theirs alone
        write_private(path, render(grade, student, policy, (by_hand or {}).get(student), late))
        pages.append(Page(student, grade.lesson, path))
    return pages
