"""Reporters: a comparison's results as plain data, JSON, CSV, LaTeX, text, HTML and figures, one module per format
(``data``: plain data and JSON; ``spreadsheets``: CSV; ``latex``; ``text``; ``html``: the notebook view and the
standalone page; ``figures``: their inline SVG; ``common``: what the formats share). Nothing here computes a score.

The HTML is one fragment with inline styles only (the notebook view) or, from ``to_html``, one standalone page
that loads nothing from anywhere and runs no script: the figures are inline SVG (``plots.figure_svg``), each bucket
row opens its segments with ``<details>``. The side-by-side examples mark each output's tokens with the explain
view's chips (``explain_html.token_chips_html``): the longest n-gram through each token that the references credit.
Reporters read ``results.ComparisonData`` (what ``compare_systems`` returns is one); they never import the
comparison module, which calls them. The names below are the reporters' interface (``Comparison``'s methods, the
widgets, lesson 11 and the tests read them here).
"""

from .common import ALPHA as ALPHA
from .common import NUM as NUM
from .common import TER_NOTE as TER_NOTE
from .data import to_dict as to_dict
from .data import to_json as to_json
from .figures import figures_html as figures_html
from .html import analyses_html as analyses_html
from .html import bucket_html as bucket_html
from .html import bucket_segments as bucket_segments
from .html import bucket_segments_html as bucket_segments_html
from .html import example_html as example_html
from .html import legend_html as legend_html
from .html import output_chips as output_chips
from .html import report_html as report_html
from .html import salient_html as salient_html
from .html import scores_html as scores_html
from .html import to_html as to_html
from .html import word_accuracy_html as word_accuracy_html
from .latex import latex_escape as latex_escape
from .latex import to_latex as to_latex
from .spreadsheets import to_csv as to_csv
from .text import to_text as to_text
