"""Text, Markdown, CSV and JSON rendering shared by every result type.

Reports, position analyses, cut-card sweeps, effect-of-removal tables,
counting results, hold and leak analyses and the findings page all print the
same kinds of table; one renderer each keeps their outputs alike.

It is also the one place where text from a rule file (rule-set, bet and claim
names, assumptions) is made safe to show: names are data a stranger may have
written. What a terminal would obey is shown as an escape
(:mod:`baccarat_sim.report.text`), table cells stay on one line, a ``|``
cannot end a Markdown cell, and a CSV cell that a spreadsheet would run as a
formula (``=HYPERLINK(...)``) is prefixed with a quote, as OWASP recommends
(:func:`csv_text`).
"""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd

from .text import cell_text, one_line, terminal_text

__all__ = ["CSV_FORMULA_START", "cell_text", "clean_json", "csv_text", "markdown_links", "markdown_table", "one_line",
           "terminal_text", "text_table"]

#: First characters that make a spreadsheet read a CSV cell as a formula (OWASP, "CSV Injection").
CSV_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


def _csv_cell(value):
    """A CSV cell a spreadsheet shows as text: controls escaped, a formula start defused with a leading quote."""
    if not isinstance(value, str):
        return value
    text = cell_text(value)
    if value.startswith(CSV_FORMULA_START) and not _PLAIN_NUMBER.match(value):
        return "'" + text
    return text


def csv_text(frame: pd.DataFrame, **options) -> str:
    """``frame.to_csv(**options)`` with every text cell, column name and index label made safe (:func:`_csv_cell`).

    Numbers are left alone; so is a text cell that is a plain number (``-0.5``).

    Examples
    --------
    >>> print(csv_text(pd.DataFrame({"name": ["=HYPERLINK(1)", "-0.5", "Tie"]}), index=False), end="")
    name
    '=HYPERLINK(1)
    -0.5
    Tie
    """
    safe = frame.copy()
    for column in safe.columns:
        if not pd.api.types.is_numeric_dtype(safe[column]):  # text, or text mixed with numbers and None
            safe[column] = safe[column].map(_csv_cell).astype(object)
    safe.columns = [_csv_cell(c) for c in safe.columns]
    if not pd.api.types.is_numeric_dtype(safe.index):
        safe.index = safe.index.map(_csv_cell)
    return safe.to_csv(**options)


def clean_json(value):
    """JSON-safe: nan/inf become None, numpy scalars become Python numbers."""
    if isinstance(value, (list, tuple)):
        return [clean_json(v) for v in value]
    if isinstance(value, dict):
        return {k: clean_json(v) for k, v in value.items()}
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return None if math.isnan(value) or math.isinf(value) else value
    return value


def _markdown_cell(value) -> str:
    # A '|' would end the cell early; a line break, the row.
    return cell_text(value).replace("|", "\\|")


#: A web address in running text: up to a space, a bracket or a separator, never ending on a full stop.
_URL = re.compile(r"https?://[^\s,;()<>]*[^\s,;()<>.]")


def markdown_links(text: str) -> str:
    """The text with every web address an autolink (``<https://...>``), which a code host and a site both follow.

    Examples
    --------
    >>> markdown_links("Wizard of Odds, https://wizardofodds.com/games/baccarat/ (stored copy https://a.example/x).")
    'Wizard of Odds, <https://wizardofodds.com/games/baccarat/> (stored copy <https://a.example/x>).'
    """
    return _URL.sub(lambda match: f"<{match.group(0)}>", text)


def markdown_table(frame: pd.DataFrame) -> str:
    """A pipe table of ``frame``'s cells as safe one-line text (the index is left out), ending in a newline."""
    head = "| " + " | ".join(map(_markdown_cell, frame.columns)) + " |\n|" + "---|" * len(frame.columns) + "\n"
    return head + "".join("| " + " | ".join(map(_markdown_cell, row)) + " |\n"
                          for row in frame.itertuples(index=False))


def text_table(shown: pd.DataFrame, width: int) -> list[str]:
    """Rows of a plain-text table: first column left-aligned, the rest right-aligned, at most ``width`` wide.

    A first-column value too long for the room left is wrapped at word
    boundaries onto continuation lines, so no name loses its end; the column
    is never narrower than its longest word (and its indent), so no word is
    split: on a very narrow terminal the table runs wider instead.
    """
    import textwrap

    columns = [cell_text(c) for c in shown.columns]
    cells = [[cell_text(v) for v in shown[c]] for c in shown.columns]
    widths = [max([len(c)] + [len(v) for v in col]) for c, col in zip(columns, cells)]
    room = width - sum(widths[1:]) - 2 * (len(columns) - 1)
    if widths[0] > room:
        longest_word = max((len(word) for name in cells[0] for word in name.split()), default=0)
        widths[0] = max(room, len(columns[0]), 12, longest_word + 2)

    def line(values):
        return "  ".join([values[0].ljust(widths[0])] + [v.rjust(w) for v, w in zip(values[1:], widths[1:])])

    rows = [line(columns)]
    for i in range(len(shown)):
        parts = textwrap.wrap(cells[0][i], widths[0], subsequent_indent="  ", break_on_hyphens=False,
                              break_long_words=False) or [""]
        rows.append(line([parts[0]] + [col[i] for col in cells[1:]]))
        rows += parts[1:]
    return rows
