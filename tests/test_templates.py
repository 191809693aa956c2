"""The pages come from templates with autoescape on: text that reaches a view arrives as text, never as markup, and the
views' modules write no HTML of their own."""

from __future__ import annotations

import ast
import re
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

import jinja2
import pytest

import bleu_lab
from bleu_lab.assignments import lesson_gradings
from bleu_lab.assignments.exports import ExportSettings
from bleu_lab.assignments.feedback import render as feedback_page
from bleu_lab.assignments.hand_marks import StoredGrades
from bleu_lab.assignments.mark_page import MarkingSession
from bleu_lab.assignments.results import ExerciseResult, NotebookGrade
from bleu_lab.course.widgets import corpus as wc
from bleu_lab.course.widgets import model as wm
from bleu_lab.course.widgets import views as wv
from bleu_lab.course.widgets.metrics import metric_comparison
from bleu_lab.readings.view import readings_view
from bleu_lab.readings.why import why
from bleu_lab.reports import explain_html as eh
from bleu_lab.reports.explain_chrf import explain_chrf
from bleu_lab.reports.explain_chrf_html import chrf_explanation_html
from bleu_lab.reports.templates import environment, render

REPO = Path(__file__).resolve().parent.parent
# Each an attack on a different place: an element, an event handler after a closed attribute ('), a closed double
# quote, and an entity that must stay text.
EVIL = "<script>alert(1)</script> x' onerror='alert(2)' \" onerror=\"alert(3) &amp;"
TEMPLATED = ["reports/explain_html.py", "reports/explain_chrf_html.py", "readings/view.py", "readings/why.py",
             "course/widgets/views.py", "course/widgets/model.py", "course/widgets/metrics.py",
             "course/widgets/corpus.py", "course/widgets/compare.py", "course/widgets/compare_app.py",
             "assignments/feedback.py", "assignments/mark_page.py", "compare/reporters/html.py",
             "compare/reporters/figures.py", "compare/reporters/common.py"]


class _Page(HTMLParser):
    """The elements, attributes and text of a page as a browser parses them."""

    def __init__(self, page: str):
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attributes: list[tuple[str, str | None]] = []
        self.text: list[str] = []
        self.feed(page)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attributes.extend(attrs)

    def handle_data(self, data):
        self.text.append(data)

    @property
    def everything(self) -> str:
        """The text and the attribute values, decoded."""
        return "".join(self.text) + "".join(value or "" for _, value in self.attributes)


def _graded(path: Path) -> NotebookGrade:
    """A graded lesson 3 whose every text from the notebook is ``EVIL`` (issue 44: the grader's pages)."""
    grade = NotebookGrade(path, "03_brevity_penalty", errors=[EVIL], note=EVIL)
    for e in lesson_gradings()["03_brevity_penalty"].exercises:
        grade.exercises.append(ExerciseResult(e.name, 0, e.points, bool(e.manual), [EVIL, "hidden cases: " + EVIL],
                                              answer=EVIL, key_points=e.manual))
    return grade


def _compare_report() -> str:
    """The comparison report (compare_systems(...).to_html()) whose systems, outputs, references, sources and
    --scores metric all carry ``EVIL`` (a metric's name is one word: markup and quotes, no spaces)."""
    from bleu_lab.compare import compare_systems
    from bleu_lab.metrics.segment_scores import segment_scores

    words = ["the cat sat on the mat", "a dog ran in the park", "it is cold here today", "hello world again",
             "the bird sang at dawn", "we went home late"]
    systems = {EVIL + " A": [f"{w} {EVIL}" for w in words], EVIL + " B": [f"{EVIL} {w[:-3]}" for w in words],
               "plain": [w.split()[0] for w in words]}
    metric = "<i>M'&amp;\"</i>"
    scores = segment_scores(metric, {n: [0.1 * k + (n == "plain") for k in range(len(words))] for n in systems},
                            higher_is_better=False)
    c = compare_systems(systems, [f"{w} {EVIL}" for w in words], sources=[f"{EVIL} {w}" for w in words],
                        n_samples=50, n_trials=50, scores={metric: scores}, people=[metric], ter=True)
    return c.to_html()


def _views() -> dict[str, str]:
    expl = bleu_lab.explain([EVIL + " the cat", "the cat " + EVIL], EVIL + " the cat " + EVIL)
    hyps = [f"the cat sat {EVIL}", f"a dog ran {EVIL} .", f"it is {EVIL} here", "hello world ."]
    refs = [[f"the cat sat {EVIL}", f"the cat sat on {EVIL}"], [f"a dog ran in {EVIL} .", f"the dog ran {EVIL} ."],
            [f"it is {EVIL}", f"it was {EVIL} here"], ["hello , world .", "hi world ."]]
    found = why(hyps, refs, 30, reference_names=[EVIL, "B"])
    challenge = replace(wm.CHALLENGES["no-cat"], title=EVIL, task=EVIL, references=(EVIL, "the dog is on the mat"),
                        lesson=EVIL, threshold=0.0)
    challenge_widget = wv.beat_bleu_challenge(challenge, "the dog is on the mat")
    playground = wm.playground_view_model(wm.PlaygroundState(EVIL + " the cat", (EVIL + " the cat",)))
    return {
        "explain": eh.explanation_html(expl),
        "explain chips": eh.token_chips_html(expl),
        "explain clip table": eh.order_table_html(expl.orders[0]),
        "explain count rows": eh.count_rows_html([(EVIL, 2, 1, 1)], 5, EVIL, EVIL)
        + eh.count_rows_html([], 5, EVIL, EVIL),
        "chrF explain": chrf_explanation_html(explain_chrf(EVIL, [EVIL, "x"], word_order=2)),
        "chrF explain, whitespace": chrf_explanation_html(explain_chrf(EVIL, [EVIL + "\t"], whitespace=True)),
        "why": found._repr_html_(),
        "why's view": readings_view(found)._repr_html_(),
        "widget references": wv._refs_html([EVIL]),
        "challenge task": challenge_widget.task.value,
        "challenge beaten": challenge_widget.output.value,
        "challenge not beaten": wm.challenge_view_model(replace(challenge, threshold=1.0), EVIL).html,
        "message": wm.message_html(EVIL),
        "notices": wm.notices_html([EVIL]),
        "picture": wm.image_html(b"\x89PNG", EVIL, 100),
        "smoothing table": wm.smoothing_comparison([EVIL], EVIL + " x", methods=["method1", EVIL]).html,
        "clip table": wm.clip_table_view_model([EVIL], EVIL, 1).html,
        "playground": playground.score_html + playground.html,
        "corpus summary": wc.SystemSummary(EVIL, (EVIL, "B"), bleu_lab.corpus_score([EVIL], [[EVIL]]), (0.0,), (
            wc.SegmentRow(1, 0.0, EVIL, (EVIL, EVIL), EVIL),)).html,
        "paired test": wc.comparison_view_model(
            {EVIL: ["the cat sat on the mat", "a dog ran"], "plain": ["the cat", "a dog"]},
            [["the cat sat on the mat"], ["a dog ran"]], "plain", EVIL, "bootstrap", 100).html,
        "three metrics": metric_comparison(EVIL + " the cat", [EVIL + " the cat", "x " + EVIL]).html,
        "feedback page": feedback_page(_graded(Path("/c/submitted/s/03/03_brevity_penalty.ipynb")), EVIL, "details"),
        "compare report": _compare_report(),
        "marking page": MarkingSession(StoredGrades(Path("/nonexistent/marks.csv.grades.json"), [_graded(Path(
            f"/c/submitted/{EVIL}/03/03_brevity_penalty.ipynb"))], ExportSettings()), "bleu-lab", EVIL).page(EVIL),
    }


@pytest.fixture(scope="module")
def views() -> dict[str, str]:
    return _views()


def test_text_in_every_view_is_escaped(views):
    for name, page in views.items():
        parsed = _Page(page)
        assert "script" not in parsed.tags, name
        assert not [key for key, _ in parsed.attributes if key.startswith("on")], name  # no event handler got in
        assert "onerror='alert(2)'" in parsed.everything, name  # the text is there, as text
        assert "&amp;" in parsed.everything, name  # an entity in the text stays the text it was


def test_templates_escape_as_html_escape_does(views):
    """Quotes are written &#x27; and &quot; (html.escape), the spelling the pages had before templates."""
    assert "x&#x27; onerror=&#x27;alert(2)&#x27; &quot; onerror=&quot;alert(3) &amp;amp;" in views["explain"]


def test_every_template_renders_with_autoescape_and_strict_names():
    env = environment()
    assert env.autoescape is True  # for every template, whatever its name
    names = [name for name in env.list_templates() if name.endswith(".html.j2")]
    assert {"explain.html.j2", "chrf_explain.html.j2", "why.html.j2", "widget_views.html.j2"} <= set(names)
    for name in names:
        env.get_template(name)  # each compiles
    with pytest.raises(jinja2.UndefinedError):
        render("why.html.j2", verdict="v", readings=[])  # a name the template needs is missing: an error, not ""


def _html_in_string_literals(path: Path) -> list[str]:
    """String constants (f-string parts included, docstrings left out) of ``path`` that hold an HTML tag."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    tag = re.compile(r"</?[a-zA-Z][a-zA-Z0-9]*[\s/>]")
    return [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docstrings and tag.search(node.value)]


@pytest.mark.parametrize("module", TEMPLATED)
def test_the_views_write_no_html_of_their_own(module):
    assert _html_in_string_literals(REPO / "bleu_lab" / module) == []


def test_the_html_check_finds_html(tmp_path):
    module = tmp_path / "view.py"
    module.write_text('''"""A view: <b>docstrings</b> may show markup."""
def view(x):
    """Returns ``<td>``."""
    return f"<td style='x'>{x}</td>" if x < 2 else "a <= b"
''', encoding="utf-8")
    assert _html_in_string_literals(module) == ["<td style='x'>", "</td>"]
