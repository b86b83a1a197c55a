"""Plots of advantage play: the effect of removing a card on each bet, and what a counting strategy won.

As in :mod:`baccarat_sim.report.figures`: every ``plot_*`` function draws on
the ``ax`` it is given and returns the artists it drew; the ``*_figure``
helpers build a whole figure without pyplot.
"""

from __future__ import annotations

import numpy as np

from ..analysis.stats import Z95
from .counting import count_frame
from .eor import eor_table
from .figures import EXACT_COLOR, current_axes, largest, new_figure, panel_grid, shown_note

__all__ = ["count_figure", "eor_figure", "plot_count", "plot_eor"]


def plot_eor(eor, *, bets=None, by: str = "value", ax=None) -> dict:
    """Effect of removal as bars: one group per point value (or rank), one bar per bet.

    Parameters
    ----------
    eor : EffectOfRemoval
        From :func:`baccarat_sim.analysis.eor.effect_of_removal`.
    bets : list of str or None
        Bet ids to draw (default: all).
    by : {"value", "rank"}
    ax : matplotlib Axes or None

    Returns
    -------
    dict
        Bet id to the BarContainer of its bars (EV change in % of the stake).
    """
    ax = current_axes(ax)
    table = eor_table(eor, by)
    bets = list(eor.bet_ids if bets is None else bets)
    x = np.arange(len(table))
    width = 0.8 / len(bets)
    artists = {}
    for i, bet_id in enumerate(bets):
        heights = 100 * table[bet_id].to_numpy(float)
        artists[bet_id] = ax.bar(x + (i - (len(bets) - 1) / 2) * width, heights, width, label=bet_id)
    ax.axhline(0.0, color=EXACT_COLOR, lw=0.8)
    if not np.nanmax(np.abs(table[bets].to_numpy(float)), initial=0.0):
        # Pairs and Dragon/Tiger in a full shoe: every rank is as common as any other, so no single card matters.
        ax.text(0.5, 0.5, "no effect: every card removed\nchanges the EV alike (by 0)", transform=ax.transAxes,
                ha="center", va="center", fontsize="small", color="#555555")
    ax.set_xticks(x, list(table.index))
    ax.set_xlabel("point value of the card removed" if by == "value" else "rank of the card removed")
    ax.set_ylabel("change in EV (% of stake)")
    if len(bets) > 1:
        ax.legend(fontsize="x-small")
    ax.grid(axis="y", alpha=0.3)
    return artists


def eor_figure(eor, columns: int = 3):
    """Effect of removal of each bet, one panel per bet (by rank for bets that tell the ten-value ranks apart).

    With more than :data:`~baccarat_sim.limits.MAX_PLOTTED_BETS` bets, those with the largest effects.
    """
    names = dict(zip(eor.bet_ids, eor.bet_names))
    bets = largest({bet_id: max((abs(float(e)) for e in eor.by_rank[bet_id] if e is not None), default=np.nan)
                     for bet_id in eor.bet_ids})
    fig, axes = panel_grid(len(bets), columns, 2.8)
    for ax, bet_id in zip(axes, bets):
        name = names[bet_id]
        tens = {e for e, r in zip(eor.by_rank[bet_id], range(13)) if r >= 9}
        plot_eor(eor, bets=[bet_id], by="value" if len(tens) <= 1 else "rank", ax=ax)
        ax.set_title(name, fontsize="small")
    note = shown_note(len(bets), len(eor.bet_ids), "those with the largest effects")
    fig.suptitle(f"{eor.rules_id}: effect of removing one card ({int(eor.shoe.sum())}-card shoe){note}",
                 fontsize="medium")
    return fig


def plot_count(result, *, ax=None) -> dict:
    """Units won per shoe with the 95% CI, one row per bet (and Max Round variant), one colour per cut card.

    Parameters
    ----------
    result : CountResult
        From :func:`baccarat_sim.analysis.counting.count_simulation`.
    ax : matplotlib Axes or None

    Returns
    -------
    dict
        Cut-card label to the ErrorbarContainer of its rows.
    """
    ax = current_axes(ax)
    t = count_frame(result)
    labels = list(dict.fromkeys(f"{b} ({v})" for b, v in zip(t["bet"], t["variant"])))
    y_of = {label: len(labels) - 1 - i for i, label in enumerate(labels)}
    scenarios = list(dict.fromkeys(t["scenario"]))
    step = 0.6 / max(1, len(scenarios))
    artists = {}
    for k, scenario in enumerate(scenarios):
        rows = t[t["scenario"] == scenario]
        y = np.array([y_of[f"{b} ({v})"] for b, v in zip(rows["bet"], rows["variant"])]) + (
            k - (len(scenarios) - 1) / 2) * step
        artists[scenario] = ax.errorbar(rows["units_per_shoe"], y, xerr=Z95 * rows["units_per_shoe_se"], fmt="o",
                                        ms=4, capsize=3, label=scenario)
    ax.axvline(0.0, color=EXACT_COLOR, lw=0.8)
    ax.set_yticks(list(y_of.values()), list(y_of))
    ax.set_xlabel("units won per shoe (95% CI)")
    ax.legend(fontsize="x-small")
    ax.grid(axis="x", alpha=0.3)
    return artists


def count_figure(result):
    """Units won per shoe of a counting simulation, every bet and cut-card scenario."""
    rows = len(dict.fromkeys((row["bet"], row["variant"]) for row in result.rows))
    fig = new_figure(9, 1.4 + 0.4 * rows)
    plot_count(result, ax=fig.add_subplot())
    fig.suptitle(f"{result.run['strategy_name']} ({result.run['rules']}, {result.run['shoes']:,} shoes)",
                 fontsize="medium")
    return fig
