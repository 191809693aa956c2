"""No module of bleu_lab writes HTML by hand: the markup is in the templates (bleu_lab/reports/templates/*.html.j2,
autoescape on) and only their loader escapes. A string constant holding an HTML or SVG element, or a call to an
escaping function, anywhere else fails here unless ALLOWED names it with its reason."""

from __future__ import annotations

import ast
import re
from dataclasses import replace
from pathlib import Path

import pytest
from test_templates import EVIL, _html_in_string_literals
from test_templates import test_text_in_every_view_is_escaped as check_escaped  # the checks, not a test here

from bleu_lab.course.exercises.feedback import Feedback
from bleu_lab.course.exercises.written import WrittenFeedback
from bleu_lab.data import Corpus
from bleu_lab.metrics.significance import paired_bootstrap, paired_randomization
from bleu_lab.reports.plots import figure_svg
from bleu_lab.sacrebleu_style import corpus_score

PACKAGE = Path(__file__).resolve().parent.parent / "bleu_lab"
LOADER = "reports/templates/__init__.py"  # renders the templates: the one place that escapes
# (module, string constant): why it may stay. Each names markup that is not a page written by hand.
ALLOWED = {
    ("reports/plots.py", "<metadata>.*?</metadata>\\s*"): "a pattern that removes matplotlib's SVG metadata",
    ("reports/plots.py", '<style type=\\"text/css\\">.*?</style>'): "a pattern that removes matplotlib's SVG style",
    ("reports/plots.py", "<defs>\\s*</defs>\\s*"): "a pattern that removes matplotlib's empty SVG defs",
    ("assignments/wire.py", "<a "): "a Python repr, '<a TypeName object: ...>', not an <a> element",
}
ELEMENTS = (  # HTML's and SVG's elements; placeholders such as <lang>, <number> or <TAB> are not among them
    "html head body title meta link style script main section header footer nav article aside h1 h2 h3 h4 h5 h6 p div "
    "span a b i u s em strong small sub sup code pre kbd samp br hr ul ol li dl dt dd table thead tbody tfoot tr th td "
    "caption colgroup col details summary mark img figure figcaption picture form input button label select option "
    "textarea iframe abbr blockquote q cite del ins noscript template canvas video audio source object embed svg g "
    "path rect circle ellipse line polyline polygon text tspan desc defs metadata clippath use symbol marker"
).split()
ELEMENT = re.compile(rf"</?(?:{'|'.join(ELEMENTS)})[\s/>]", re.IGNORECASE)
ESCAPES = {"escape", "escape_silent"}  # html.escape, markupsafe.escape (re.escape, a pattern's, is not among them)


def _modules() -> list[str]:
    """The package's modules (paths under bleu_lab/) the check reads: all but the loader."""
    modules = (path.relative_to(PACKAGE).as_posix() for path in PACKAGE.rglob("*.py"))
    return sorted(m for m in modules if m != LOADER)


def html_constants(path: Path) -> list[str]:
    """The string constants of ``path`` (docstrings left out) that hold an HTML or SVG element."""
    return [text for text in _html_in_string_literals(path) if ELEMENT.search(text)]


def escape_calls(path: Path) -> list[int]:
    """The lines of ``path`` that call an HTML escaping function (``escape(...)``, ``html.escape``,
    ``markupsafe.escape``), which only the templates' loader needs."""
    calls = [node for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if isinstance(node, ast.Call)]
    return [call.lineno for call in calls
            if (isinstance(call.func, ast.Name) and call.func.id in ESCAPES)
            or (isinstance(call.func, ast.Attribute) and call.func.attr in ESCAPES
                and not (isinstance(call.func.value, ast.Name) and call.func.value.id == "re"))]


@pytest.mark.parametrize("module", _modules())
def test_no_module_writes_html_by_hand(module):
    path = PACKAGE / module
    by_hand = [text for text in html_constants(path) if (module, text) not in ALLOWED]
    assert not by_hand, f"bleu_lab/{module} writes HTML by hand (move it into a template): {by_hand}"
    assert not escape_calls(path), f"bleu_lab/{module} escapes by hand (a template's {{{{ value }}}} does it)"


def test_every_allowed_string_is_still_there():
    """An entry the code no longer needs is taken out, so the list stays small."""
    for module, text in ALLOWED:
        assert text in html_constants(PACKAGE / module), (module, text)


def test_the_check_finds_html_and_escaping_but_not_placeholders(tmp_path):
    module = tmp_path / "view.py"
    module.write_text('''"""A view: <b>docstrings</b> may show markup."""
import html, re
def view(x):
    """Returns ``<td>``."""
    pattern = re.escape(x)
    usage = "ref.<NAME>.<lang>, e.g. 'BLEU = <number>'"
    return f"<td style='x'>{html.escape(x)}</td>" if x < 2 else "<P>a</P>"
''', encoding="utf-8")
    assert sorted(html_constants(module)) == ["</td>", "<P>a</P>", "<td style='x'>"]
    assert escape_calls(module) == [7]


def _views() -> dict[str, str]:
    """The views moved into templates on this branch, with ``EVIL`` in every text that reaches them."""
    hyps, refs = [f"the cat sat {EVIL}", "a dog ran ."], [[f"the cat sat {EVIL}"], ["the dog ran ."]]
    bootstrap = paired_bootstrap(hyps, hyps[::-1], refs, n_samples=20, seed=1)
    randomization = paired_randomization(hyps, hyps[::-1], refs, n_trials=20, seed=1)
    corpus = Corpus(EVIL, Path("/c"), ["a", "b"], {EVIL: ["x", ""], "B": ["y", "z"]}, {EVIL: ["p", "q"]})
    return {
        "BLEU score": replace(corpus_score(hyps, refs), signature=EVIL)._repr_html_(),
        "corpus": corpus._repr_html_(),
        "bootstrap": replace(bootstrap, signature=EVIL)._repr_html_(),
        "randomization": replace(randomization, signature=EVIL)._repr_html_(),
        "exercise feedback": Feedback(EVIL, False, [EVIL])._repr_html_(),
        "written answer's feedback": WrittenFeedback(EVIL, True, [EVIL])._repr_html_(),
        "figure": figure_svg(EVIL, EVIL, EVIL, lambda ax: ax.plot([0, 1], [0, 1]), EVIL),
    }


def test_text_in_the_views_moved_here_is_escaped():
    check_escaped(_views())
