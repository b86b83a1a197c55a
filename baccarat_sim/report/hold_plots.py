"""Plots of what a table does over N rounds: the hold fan chart, the house's result, ruin and goal by bankroll.

As in :mod:`baccarat_sim.report.plots`: every ``plot_*`` function draws on the
``ax`` it is given (pyplot's current axes when None) and returns the artists
it drew; the ``*_figure`` helpers build a whole
:class:`matplotlib.figure.Figure` without pyplot, for files.

Examples
--------
>>> from matplotlib.figure import Figure
>>> from baccarat_sim.analysis.hold import FanChart
>>> fan = FanChart((10, 100), (0.005, 0.025, 0.05, 0.25, 0.5, 0.75, 0.95, 0.975, 0.995),
...                ((-0.9, -0.6, -0.5, -0.2, 0.0, 0.2, 0.5, 0.6, 0.9),
...                 (-0.3, -0.2, -0.15, -0.06, 0.01, 0.08, 0.17, 0.2, 0.26)), 0.0106)
>>> sorted(plot_hold_fan(fan, ax=Figure().add_subplot()))
['bands', 'mean', 'median', 'observed']
"""

from __future__ import annotations

import numpy as np

from ..analysis.hold import FanChart, HoldAnalysis, ObservedVerdict
from .figures import EXACT_COLOR, MC_COLOR, STATED_COLOR, current_axes, new_figure

__all__ = [
    "bankroll_figure",
    "hold_fan_figure",
    "house_result_figure",
    "plot_bankroll_curve",
    "plot_hold_fan",
    "plot_house_result",
]

#: Central bands of the fan chart: (lower level, upper level, share of probability, opacity).
_BANDS = ((0.005, 0.995, 99, 0.12), (0.025, 0.975, 95, 0.2), (0.05, 0.95, 90, 0.3), (0.25, 0.75, 50, 0.45))
#: Half the width, in decades, of the column a fan chart of one horizon draws its bands in.
_ONE_HORIZON_HALF_WIDTH = 0.1


def plot_hold_fan(fan: FanChart, *, observed: ObservedVerdict | None = None, ax=None) -> dict:
    """Hold (% of handle) against rounds played (log scale): the central 50/90/95/99% bands and the median.

    With one horizon the bands are a column around it (a tenth of a decade either side).

    Parameters
    ----------
    fan : FanChart
        From :func:`baccarat_sim.analysis.hold.fan_chart`.
    observed : ObservedVerdict or None
        Drawn as a point at its rounds and hold.
    ax : matplotlib Axes or None

    Returns
    -------
    dict
        ``"bands"`` (dict of percent to PolyCollection), ``"median"`` and
        ``"mean"`` (Line2D), ``"observed"`` (Line2D or None).
    """
    ax = current_axes(ax)
    rounds = np.array(fan.rounds, dtype=float)
    holds = 100 * np.array(fan.holds)
    if rounds.size == 1:
        # One horizon: a band between two points at one x has no width. Draw it as a column around the horizon,
        # a tenth of a decade either side on the log axis, so that each band shows its range there.
        rounds = rounds[0] * 10.0 ** np.array([-_ONE_HORIZON_HALF_WIDTH, _ONE_HORIZON_HALF_WIDTH])
        holds = np.repeat(holds, 2, axis=0)
    column = {level: i for i, level in enumerate(fan.levels)}
    artists = {"bands": {}, "observed": None}
    for low, high, share, alpha in _BANDS:
        artists["bands"][share] = ax.fill_between(rounds, holds[:, column[low]], holds[:, column[high]],
                                                  color=MC_COLOR, alpha=alpha, lw=0, label=f"central {share}%")
    artists["median"] = ax.plot(rounds, holds[:, column[0.5]], "-", color="#023858", lw=1.2, label="median")[0]
    artists["mean"] = ax.axhline(100 * fan.mean_hold, color=EXACT_COLOR, lw=1, ls="--",
                                 label=f"expected hold {100 * fan.mean_hold:.3f}%")
    if observed is not None:
        artists["observed"] = ax.plot([observed.n_rounds], [100 * float(observed.hold)], "D", color=STATED_COLOR,
                                      ms=7, label=f"observed {100 * float(observed.hold):.3f}% "
                                                  f"(percentile {observed.percentile:.3g})")[0]
    ax.set_xscale("log")
    if len(fan.rounds) == 1:  # the column with a decade of room either side, so that it reads as one horizon
        ax.set_xlim(fan.rounds[0] / 10, fan.rounds[0] * 10)
    ax.set_xlabel("rounds played")
    ax.set_ylabel("hold (% of handle)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small", loc="upper right")
    return artists


def plot_house_result(dist, summary, *, ax=None, label: str = "") -> dict:
    """Distribution of the house's result over one horizon, with 0 and the central 95% range marked.

    Parameters
    ----------
    dist : LatticeSum, SaddlepointSum or EmpiricalSum
    summary : HoldSummary
        Its summary (:func:`baccarat_sim.analysis.hold.summarize`).
    ax : matplotlib Axes or None
    label : str
        Panel title.

    Returns
    -------
    dict
        ``"density"`` (Line2D or BarContainer), ``"zero"``, ``"low"``, ``"high"`` and ``"mean"`` (Line2D).
    """
    ax = current_axes(ax)
    # The law around its central 99%: every lattice point (exact), a histogram (Monte Carlo) or a grid (saddlepoint).
    drawn_law = dist.density(float(summary.central_99[0].value), float(summary.central_99[1].value))
    x, density = drawn_law.values, drawn_law.density
    if drawn_law.binned:
        width = x[1] - x[0] if x.size > 1 else 1.0
        drawn = ax.bar(x, density, width, color=MC_COLOR, alpha=0.6, label="Monte Carlo")
    else:
        drawn = ax.plot(x, density, "-", color=MC_COLOR, lw=1, drawstyle="steps-mid" if x.size < 200 else "default",
                        label="probability per chip")[0]
    artists = {"density": drawn}
    artists["zero"] = ax.axvline(0.0, color=STATED_COLOR, lw=1, label=f"0: P(house behind) "
                                                                      f"{summary.p_house_behind.value:.4g}")
    low, high = summary.central_95
    artists["low"] = ax.axvline(float(low.value), color=EXACT_COLOR, lw=0.8, ls=":", label="central 95%")
    artists["high"] = ax.axvline(float(high.value), color=EXACT_COLOR, lw=0.8, ls=":")
    artists["mean"] = ax.axvline(float(summary.mean), color=EXACT_COLOR, lw=1, ls="--", label="mean")
    # Frame the bulk of the distribution (0.1% to 99.9%): at long horizons 0 lies far out, and the legend
    # gives P(house behind) anyway.
    first, last = float(summary.quantiles[0].value), float(summary.quantiles[-1].value)
    pad = 0.15 * (last - first) or 1.0
    ax.set_xlim(first - pad, last + pad)
    ax.set_xlabel("house result (chips)")
    ax.set_ylabel("probability per chip")
    if label:
        ax.set_title(label, fontsize="medium")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="x-small")
    return artists


def plot_bankroll_curve(curve, *, ax=None, chosen=None) -> dict:
    """P(ruin), P(stop-loss) and P(goal) of a session against the starting bankroll.

    Parameters
    ----------
    curve : sequence of BankrollPoint
        From :func:`baccarat_sim.analysis.hold.bankroll_curve`.
    chosen : number or None
        The bankroll asked for, marked with a vertical line.

    Returns
    -------
    dict
        ``"ruin"``, ``"stop_loss"``, ``"goal"`` (Line2D) and ``"chosen"`` (Line2D or None).
    """
    ax = current_axes(ax)
    bankroll = np.array([float(p.bankroll) for p in curve])
    artists = {"chosen": None}
    artists["ruin"] = ax.plot(bankroll, [100 * p.p_ruin for p in curve], "o-", color=STATED_COLOR, ms=3,
                              label="ruin")[0]
    artists["stop_loss"] = ax.plot(bankroll, [100 * p.p_stop_loss for p in curve], "s-", color=EXACT_COLOR, ms=3,
                                   label="stop-loss")[0]
    artists["goal"] = ax.plot(bankroll, [100 * p.p_goal for p in curve], "^-", color=MC_COLOR, ms=3,
                              label="goal (stop-win)")[0]
    if chosen is not None:
        artists["chosen"] = ax.axvline(float(chosen), color="#777777", lw=0.8, ls="-.", label="bankroll asked")
    ax.set_xlabel("starting bankroll (chips)")
    ax.set_ylabel("probability (%)")
    ax.set_ylim(-2, 102)
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    return artists


# --------------------------------------------------------------------------- whole figures (no pyplot)


def hold_fan_figure(analysis: HoldAnalysis):
    """The fan chart of an analysis (with its observed hold), one figure."""
    fig = new_figure(9, 5)
    ax = fig.add_subplot()
    plot_hold_fan(analysis.fan, observed=analysis.observed, ax=ax)
    ax.set_title(f"{analysis.slip.rules.name}: hold over N rounds", fontsize="medium")
    return fig


def house_result_figure(analysis: HoldAnalysis, columns: int = 3):
    """The distribution of the house's result for each horizon, one panel each."""
    n = len(analysis.horizons)
    columns = max(1, min(columns, n))
    rows = -(-n // columns)
    fig = new_figure(4.4 * columns, 3.2 * rows)
    axes = np.atleast_1d(fig.subplots(rows, columns, squeeze=False)).ravel()
    for ax in axes[n:]:
        ax.set_visible(False)
    for ax, dist, summary in zip(axes, analysis.distributions, analysis.horizons):
        plot_house_result(dist, summary, ax=ax, label=f"{summary.n_rounds:,} rounds")
    fig.suptitle(f"{analysis.slip.rules.name}: the house's result", fontsize="medium")
    return fig


def bankroll_figure(analysis: HoldAnalysis):
    """Ruin, stop-loss and goal probabilities against the bankroll, one figure."""
    study = analysis.sessions
    fig = new_figure(8, 4.5)
    ax = fig.add_subplot()
    plot_bankroll_curve(study.curve, ax=ax, chosen=study.rules.bankroll)
    exact = all(p.exact for p in study.curve)
    ax.set_title(f"player sessions: ruin and goal by bankroll ({'exact' if exact else 'Monte Carlo where too large'})",
                 fontsize="medium")
    return fig
