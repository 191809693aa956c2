"""CSV that a spreadsheet opens as data: every CSV file bleu_lab writes goes through ``write_csv``.

A spreadsheet runs a cell whose text starts with ``=``, ``+``, ``-`` or ``@`` (and a tab or carriage return before
one) as a formula: a system output such as ``=HYPERLINK(...)`` would become a live link in an instructor's sheet.
OWASP's rule (https://owasp.org/www-community/attacks/CSV_Injection): prefix such a text cell with a single quote, so
that it is shown as text. Numbers are written as they are, and so is text that is a plain number (a bucket labelled
``-3``): a spreadsheet reads those as numbers, never as formulas.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from ..files import write_whole

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
PLAIN_NUMBER = re.compile(r"[-+]?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?")


def safe_cell(value: object) -> object:
    """``value``, or ``"'" + value`` for a text cell a spreadsheet would run as a formula."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS) and not PLAIN_NUMBER.fullmatch(value):
        return "'" + value
    return value


def write_csv(path: str | Path, rows: Iterable[Mapping[str, object]], fieldnames: list[str] | None = None, *,
              mode: int = 0o666) -> Path:
    """Write ``rows`` (dicts) as a UTF-8 CSV with a header; every text cell through ``safe_cell``.

    ``fieldnames`` defaults to the first row's keys; with no rows and no ``fieldnames`` the file is empty. Written
    whole (``files.write_whole``, as a new file of ``mode`` less the umask): an earlier file at ``path`` stays as it
    was until the new one is complete.
    """
    path = Path(path)
    rows = list(rows)
    names = list(fieldnames) if fieldnames is not None else (list(rows[0]) if rows else [])
    text = io.StringIO(newline="")
    if names:
        writer = csv.DictWriter(text, fieldnames=[safe_cell(n) for n in names])
        writer.writeheader()
        writer.writerows({safe_cell(k): safe_cell(v) for k, v in row.items()} for row in rows)
    return write_whole(path, text.getvalue(), mode)
