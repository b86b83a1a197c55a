"""The value of a card leak as tables, text, Markdown, CSV, JSON, a plot and result files.

One row per observation pattern: its probability, the EV of every bet given
it, the best action and its edge. Figures are fractions in JSON and CSV
(exact fractions as ``"p/q"`` strings beside the headline ones), percentages
in text and Markdown.
"""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib as mpl
import numpy as np
import pandas as pd

from ..analysis.leak import SIT_OUT, LeakResult, OptimalSort
from ..model.amounts import percent_text
from ..model.shoe import describe_shoe
from .figures import current_axes, new_figure
from .files import figure_writer, text_writer, write_files
from .render import clean_json, csv_text, markdown_table, terminal_text, text_table

__all__ = [
    "leak_csv",
    "leak_dict",
    "leak_figure",
    "leak_frame",
    "leak_markdown",
    "leak_stem",
    "leak_text",
    "plot_leak_edges",
    "write_leak_files",
]

#: Colours of the actions in the plot (colour-blind safe); other bets take the tab10 colours in turn.
ACTION_COLORS = {SIT_OUT: "#999999", "player": "#0072B2", "banker": "#D55E00", "tie": "#009E73"}
#: Patterns in the plot up to which each bar is named.
LABELLED_PATTERNS = 24
#: Width of the text tables.
TEXT_WIDTH = 120


def _exact(value) -> str:
    return f"{value.numerator}/{value.denominator}"


def _pct(value, digits: int = 3, sign: bool = True) -> str:
    """A figure as a percentage: three decimals, signed (an EV, an edge) unless ``sign`` is False."""
    return percent_text(value, digits, sign=sign)


def _action_name(result: LeakResult, action: str) -> str:
    return "sit out" if action == SIT_OUT else action


def _members(grouping, group: int) -> list:
    """A group's members for JSON: point values as numbers, ranks and cards by name."""
    return list(grouping.groups[group]) if grouping.by == "value" else list(grouping.member_names(group))


def leak_frame(result: LeakResult) -> pd.DataFrame:
    """One row per observation pattern: the group at each position, probability, EVs, best action, edge."""
    records = []
    for row in result.rows:
        record = {"pattern": row.label}
        record.update({position: result.grouping.names[c] for position, c in zip(result.positions, row.classes)})
        record["probability"] = float(row.probability)
        record.update({f"ev_{bet_id}": float(ev) for bet_id, ev in zip(result.bet_ids, row.ev)})
        record["best_action"] = row.best_action
        record["edge"] = float(row.edge)
        records.append(record)
    return pd.DataFrame(records)


def _run_header(result: LeakResult, optimal: OptimalSort | None = None) -> list[str]:
    shoe = describe_shoe(result.shoe)
    model = "shuffled before every round" if result.model == "fresh" else "dealt to the cut card"
    taken = ", ".join(f"{_action_name(result, a)} {_pct(f, sign=False)}" for a, f in result.action_frequency.items()
                      if f)
    seen = f"{', '.join(result.positions)}; {result.grouping.describe()}" if result.positions else "nothing"
    lines = [
        f"rule set     {result.rules_id} ({result.rules_name}), {shoe}, {model}",
        f"seen         {seen}",
    ]
    if optimal is not None:
        lines.append(f"searched     {optimal.searched} High groups (511 distinct splits); the best is shown")
    lines += [
        f"player edge  {_pct(result.player_edge)} of every round (a sat-out round counts 0)",
        f"actions      {taken}",
    ]
    return lines


def _display(result: LeakResult) -> pd.DataFrame:
    """The pattern table people read: percentages."""
    shown = pd.DataFrame({"pattern": [row.label or "-" for row in result.rows],
                          "probability": [_pct(row.probability, sign=False) for row in result.rows]})
    for b, bet_id in enumerate(result.bet_ids):
        shown[bet_id] = [_pct(row.ev[b]) for row in result.rows]
    shown["best"] = [_action_name(result, row.best_action) for row in result.rows]
    shown["edge"] = [_pct(row.edge) for row in result.rows]
    return shown


def _candidates_frame(optimal: OptimalSort) -> pd.DataFrame:
    rows = []
    for rank, candidate in enumerate(optimal.candidates, 1):
        grouping = candidate.grouping
        rows.append({"rank": rank, "Low": " ".join(grouping.member_names(0)),
                     "High": " ".join(grouping.member_names(1)), "player edge": _pct(candidate.player_edge)})
    return pd.DataFrame(rows)


def leak_text(result: LeakResult, optimal: OptimalSort | None = None) -> str:
    """Header, the best splits (for an optimal sort) and the pattern table, as plain text."""
    parts = ["\n".join(_run_header(result, optimal))]
    if optimal is not None:
        parts.append("best splits of the point values into Low and High:\n"
                     + "\n".join(text_table(_candidates_frame(optimal), TEXT_WIDTH)))
    parts.append("\n".join(text_table(_display(result), TEXT_WIDTH)))
    return terminal_text("\n\n".join(parts))


def leak_markdown(result: LeakResult, optimal: OptimalSort | None = None) -> str:
    """Header, the best splits and the pattern table as Markdown."""
    header = "\n".join(f"- {line}" for line in _run_header(result, optimal))
    parts = [f"## What the leak is worth: {', '.join(result.positions) or 'no information'}", header]
    if optimal is not None:
        parts.append("### Best splits of the point values\n\n" + markdown_table(_candidates_frame(optimal)))
    parts.append("### Observation patterns\n\n" + markdown_table(_display(result)))
    return terminal_text("\n\n".join(parts))


def leak_csv(result: LeakResult) -> str:
    """One row per observation pattern (fractions, not percents), with the rule set and edge repeated."""
    frame = leak_frame(result)
    frame["rules"] = result.rules_id
    frame["cards"] = int(result.shoe.sum())
    frame["player_edge"] = float(result.player_edge)
    return csv_text(frame, index=False)


def leak_dict(result: LeakResult, optimal: OptimalSort | None = None, run: dict | None = None) -> dict:
    """JSON-ready: ``player_edge``, ``positions``, ``groups``, one entry per pattern in ``patterns``, and more.

    Fractions, not percents; ``*_exact`` fields carry exact fractions as ``"p/q"``.
    """
    document = {
        "rules": result.rules_id,
        "rules_name": result.rules_name,
        "shoe": {"cards": int(result.shoe.sum()), "description": describe_shoe(result.shoe),
                 "composition": result.shoe.tolist()},
        "model": result.model,
        "positions": list(result.positions),
        "grouping": {"by": result.grouping.by, "description": result.grouping.describe()},
        "groups": [{"name": name, "members": _members(result.grouping, g)}
                   for g, name in enumerate(result.grouping.names)],
        "player_edge": float(result.player_edge),
        "player_edge_exact": _exact(result.player_edge),
        "action_frequency": {action: float(f) for action, f in result.action_frequency.items()},
        "bets": [{"id": bet_id, "name": name, "ev_without_information": float(result.ev_without_information[bet_id])}
                 for bet_id, name in zip(result.bet_ids, result.bet_names)],
        "patterns": [
            {
                "pattern": row.label,
                "classes": {p: result.grouping.names[c] for p, c in zip(result.positions, row.classes)},
                "probability": float(row.probability),
                "probability_exact": _exact(row.probability),
                "ev": {bet_id: float(ev) for bet_id, ev in zip(result.bet_ids, row.ev)},
                "best_action": row.best_action,
                "edge": float(row.edge),
                "edge_exact": _exact(row.edge),
            }
            for row in result.rows
        ],
    }
    if optimal is not None:
        document["optimize"] = {
            "searched": optimal.searched,
            "candidates": [{"low": _members(c.grouping, 0), "high": _members(c.grouping, 1),
                            "player_edge": float(c.player_edge), "player_edge_exact": _exact(c.player_edge)}
                           for c in optimal.candidates],
        }
    if run is not None:
        document["run"] = run
    return clean_json(document)


def _action_colors(result: LeakResult) -> dict:
    others = [a for a in (SIT_OUT, *result.bet_ids) if a not in ACTION_COLORS]
    palette = mpl.colormaps["tab10"].colors
    return {**ACTION_COLORS, **{a: palette[i % len(palette)] for i, a in enumerate(others)}}


def plot_leak_edges(result: LeakResult, *, ax=None) -> dict:
    """The edge of every observation pattern: one bar per pattern, as wide as the pattern is likely.

    Bars are sorted by edge, coloured by the best action; their total area is
    the player's edge, drawn as a dashed line. Patterns are named on the bars
    when there are at most :data:`LABELLED_PATTERNS`.

    Parameters
    ----------
    result : LeakResult
    ax : matplotlib Axes or None
        Where to draw (the current pyplot axes when None).

    Returns
    -------
    dict
        ``"bars"`` (BarContainer) and ``"edge"`` (Line2D of the player's edge).
    """
    ax = current_axes(ax)
    rows = sorted(result.rows, key=lambda row: (-row.edge, row.classes))
    widths = np.array([100 * float(row.probability) for row in rows])
    heights = np.array([100 * float(row.edge) for row in rows])
    left = np.concatenate([[0.0], np.cumsum(widths)[:-1]])
    colors = _action_colors(result)
    artists = {"bars": ax.bar(left, heights, widths, align="edge", color=[colors[r.best_action] for r in rows],
                              edgecolor="white", linewidth=0.5 if len(rows) <= 200 else 0)}
    if len(rows) <= LABELLED_PATTERNS:
        for x, w, h, row in zip(left, widths, heights, rows):
            ax.annotate(row.label, (x + w / 2, h), xytext=(0, 2), textcoords="offset points", ha="center",
                        va="bottom", fontsize="x-small", rotation=90 if len(row.label) > 4 else 0)
    edge = 100 * float(result.player_edge)
    artists["edge"] = ax.axhline(edge, color="black", lw=1, ls="--", label=f"player edge {edge:.3f}%")
    for action in (SIT_OUT, *result.bet_ids):
        if result.action_frequency.get(action):
            ax.bar(0, 0, 0, color=colors[action], label=f"best: {action.replace('_', ' ')}")
    ax.set_xlim(0, 100)
    ax.set_xlabel("rounds (%), patterns sorted by edge; bar width = how often the pattern is seen")
    ax.set_ylabel("edge of the best action (%)")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize="small", loc="upper right")
    return artists


def leak_figure(result: LeakResult):
    """A :class:`matplotlib.figure.Figure` (no pyplot) of :func:`plot_leak_edges`, titled."""
    fig = new_figure(9, 4.5)
    ax = fig.add_subplot()
    plot_leak_edges(result, ax=ax)
    seen = ", ".join(result.positions) or "nothing"
    ax.set_title(f"{result.rules_name}, {describe_shoe(result.shoe)}: {seen} seen, "
                 f"{result.grouping.describe()}", fontsize="small")
    return fig


def leak_stem(result: LeakResult, optimal: OptimalSort | None = None) -> str:
    """Stem of the result files, e.g. ``leak-default-P1-high-6789`` or ``leak-default-P1B1P2B2-optimal``."""
    positions = "".join(result.positions) or "none"
    grouping = result.grouping
    if optimal is not None:
        how = "optimal"
    elif grouping.names == ("L", "H"):
        how = "high-" + "".join(str(v) for v in grouping.groups[1])
    elif all(len(members) == 1 for members in grouping.groups):
        how = f"every-{grouping.by}"
    else:
        how = f"{grouping.by}-" + "-".join(grouping.names)
    return f"leak-{result.rules_id}-{positions}-{how}"


def write_leak_files(result: LeakResult, out_dir, optimal: OptimalSort | None = None, plots_wanted: bool = True,
                     run: dict | None = None) -> list[Path]:
    """Write ``.json``, ``.csv``, ``.md`` and (with plots) ``.png`` into ``out_dir`` as one set; returns the paths."""
    stem = leak_stem(result, optimal)
    document = json.dumps(leak_dict(result, optimal, run), indent=2) + "\n"
    markdown = leak_markdown(result, optimal)
    files = {
        f"{stem}.json": text_writer(document),
        f"{stem}.csv": text_writer(leak_csv(result)),
    }
    if plots_wanted:
        files[f"{stem}.png"] = figure_writer(leak_figure(result))
        markdown += f"\n\n![{stem}]({stem}.png)"
    files[f"{stem}.md"] = text_writer(markdown + "\n")
    return write_files(out_dir, files)
