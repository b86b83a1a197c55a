"""What every figure shares: its colours, axes, a figure outside pyplot, the note of what a figure leaves out.

Every ``plot_*`` function of the report (:mod:`~baccarat_sim.report.plots`,
:mod:`~baccarat_sim.report.advantage_plots`, :mod:`~baccarat_sim.report.hold_plots`,
:mod:`~baccarat_sim.report.leak`) draws on the ``ax`` it is given
(:func:`current_axes`: pyplot's current axes when None) and returns the artists
it drew; the ``*_figure`` helpers build a whole figure with :func:`new_figure`,
without pyplot, for files written by a command-line run (no GUI backend, no
global state). A figure with one panel or row per bet shows at most
:data:`~baccarat_sim.limits.MAX_PLOTTED_BETS` bets (:func:`largest`), and its
title says how many were left out (:func:`shown_note`).
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from ..limits import MAX_PLOTTED_BETS

__all__ = ["BANKER_COLOR", "EXACT_COLOR", "MC_COLOR", "PLAYER_COLOR", "STATED_COLOR", "current_axes", "largest",
           "new_figure", "panel_grid", "shown_note"]

#: Colours of the three kinds of figure: Monte Carlo, exact, stated (colour-blind safe).
MC_COLOR, EXACT_COLOR, STATED_COLOR = "#0072B2", "#000000", "#D55E00"
PLAYER_COLOR, BANKER_COLOR = "#0072B2", "#D55E00"


def current_axes(ax):
    """``ax``, or pyplot's current axes when None (the ``plot_*`` functions' default)."""
    if ax is None:
        # pyplot only when the caller gives no axes: importing it picks a GUI backend and keeps global state.
        import matplotlib.pyplot as plt

        ax = plt.gca()
    return ax


def new_figure(width: float, height: float):
    """A constrained-layout :class:`~matplotlib.figure.Figure` outside pyplot (no GUI backend, no global state)."""
    return Figure(figsize=(width, height), layout="constrained")


def panel_grid(n_panels: int, columns: int, panel_height: float):
    """A figure of ``n_panels`` axes, ``columns`` to a row; returns ``(fig, axes)`` with the spare cells hidden."""
    columns = max(1, min(columns, n_panels))
    rows = -(-n_panels // columns)
    fig = new_figure(4.2 * columns, panel_height * rows)
    axes = np.atleast_1d(fig.subplots(rows, columns, squeeze=False)).ravel()
    for ax in axes[n_panels:]:
        ax.set_visible(False)
    return fig, axes[:n_panels]


def shown_note(shown: int, total: int, why: str) -> str:
    """A title's note of the bets a figure leaves out ("" when it shows them all)."""
    return "" if shown >= total else f"\n{shown} of {total} bets: {why} (every bet is in the tables)"


def largest(effects: dict[str, float], limit: int = MAX_PLOTTED_BETS) -> list[str]:
    """The ``limit`` keys of ``effects`` with the largest values (NaN last), in their given order."""
    if len(effects) <= limit:
        return list(effects)
    ranked = sorted(effects, key=lambda k: -effects[k] if effects[k] == effects[k] else np.inf)
    keep = set(ranked[:limit])
    return [k for k in effects if k in keep]
