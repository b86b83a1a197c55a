"""Text, Markdown and JSON rendering shared by every result type.

Reports, position analyses, cut-card sweeps, effect-of-removal tables,
counting results and the findings page all print the same kinds of table;
one renderer each keeps their outputs alike.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd


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


def markdown_table(frame: pd.DataFrame) -> str:
    """A pipe table of ``frame``'s cells as ``str`` (the index is left out), ending in a newline."""
    head = "| " + " | ".join(map(str, frame.columns)) + " |\n|" + "---|" * len(frame.columns) + "\n"
    return head + "".join("| " + " | ".join(map(str, row)) + " |\n" for row in frame.itertuples(index=False))


def text_table(shown: pd.DataFrame, width: int) -> list[str]:
    """Rows of a plain-text table: first column left-aligned (shortened to fit ``width``), the rest right-aligned."""
    columns = list(shown.columns)
    cells = [[str(v) for v in shown[c]] for c in columns]
    widths = [max([len(c)] + [len(v) for v in col]) for c, col in zip(columns, cells)]
    room = width - sum(widths[1:]) - 2 * (len(columns) - 1)
    if widths[0] > room:
        widths[0] = max(room, len(columns[0]), 8)
        cells[0] = [v if len(v) <= widths[0] else v[: widths[0] - 1] + "…" for v in cells[0]]

    def line(values):
        return "  ".join([values[0].ljust(widths[0])] + [v.rjust(w) for v, w in zip(values[1:], widths[1:])])

    return [line(columns)] + [line([col[i] for col in cells]) for i in range(len(shown))]
