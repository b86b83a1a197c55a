"""Plots of a run (matplotlib): per-bet RTP against exact and stated values, convergence, score distribution.

Figures draw what the analysis computed (a :class:`~baccarat_sim.report.run_report.Report`'s
result, a dealt run's positions, a cut-card sweep); nothing here settles or
estimates. The plots of advantage play (effects of removal, counting) are in
:mod:`baccarat_sim.report.advantage_plots` and read here too.

Every ``plot_*`` function draws on the ``ax`` it is given (the current axes of
pyplot when None) and returns the artists it drew, so a caller can restyle or
test them; none calls ``plt.show()``. The ``*_figure`` helpers build a whole
:class:`matplotlib.figure.Figure` without pyplot, for files written by a
command-line run (no GUI backend, no global state): :mod:`baccarat_sim.report.figures`.

A figure with one panel or row per bet shows at most
:data:`~baccarat_sim.limits.MAX_PLOTTED_BETS` bets, chosen by
:meth:`~baccarat_sim.report.run_report.Report.plotted_bets` (a sweep or EOR
figure: the bets with the largest effects), and its title says how many were
left out: a rule set of 200 bets plots in seconds, not minutes.

Examples
--------
>>> from matplotlib.figure import Figure
>>> from baccarat_sim import exact_histogram
>>> from baccarat_sim.analysis.stats import score_distribution
>>> artists = plot_score_distribution(score_distribution(exact_histogram(8)), ax=Figure().add_subplot())
>>> sorted(artists)
['banker', 'player']
"""

from __future__ import annotations

import matplotlib as mpl
import numpy as np

from ..analysis.stats import HANDS, Z95, ScoreDistribution
from ..model.amounts import amount_text
from .advantage_plots import count_figure, eor_figure, plot_count, plot_eor
from .figures import (
    BANKER_COLOR,
    EXACT_COLOR,
    MC_COLOR,
    PLAYER_COLOR,
    STATED_COLOR,
    current_axes,
    largest,
    new_figure,
    panel_grid,
    shown_note,
)
from .positions import cut_label, sweep_frame
from .run_report import STAKE_MARK

__all__ = [
    "BANKER_COLOR",
    "EXACT_COLOR",
    "MC_COLOR",
    "PLAYER_COLOR",
    "STATED_COLOR",
    "bet_rtp_figure",
    "convergence_figure",
    "count_figure",
    "current_axes",
    "cut_sweep_figure",
    "eor_figure",
    "new_figure",
    "plot_bet_rtp",
    "plot_convergence",
    "plot_count",
    "plot_cut_sweep",
    "plot_eor",
    "plot_rounds_per_shoe",
    "plot_rtp_by_round",
    "plot_score_distribution",
    "rounds_per_shoe_figure",
    "rtp_by_round_figure",
    "score_distribution_figure",
]


def plot_bet_rtp(report, *, ax=None, relative: bool = False, bet_ids=None) -> dict:
    """Per-bet RTP: Monte Carlo estimate with its 95% CI, the exact value and the stated one.

    Parameters
    ----------
    report : Report
        From :func:`baccarat_sim.report.run_report.build_report`.
    ax : matplotlib Axes or None
    relative : bool
        False: RTP in percent. True: each figure minus the exact RTP, in
        percentage points, so CIs of a few hundredths stay visible next to
        RTPs that differ by whole percents.
    bet_ids : list of str or None
        Bets to draw, one row each (default: all).

    Returns
    -------
    dict
        ``"exact"`` (Line2D of markers), ``"mc"`` (ErrorbarContainer, or None
        for an exact-only report), ``"stated"`` (Line2D, or None when the
        sheet states no bet RTP) and ``"min_stake"`` (Line2D of the exact RTP
        at the rule set's minimum stake for the bets whose RTP depends on the
        stake, joined to their nominal RTP; None when none does).
    """
    ax = current_axes(ax)
    t = report.table if bet_ids is None else report.table.loc[list(bet_ids)]
    y = np.arange(len(t))[::-1]  # first bet on top
    exact = 100 * t["exact_rtp"].to_numpy(float)
    base = exact if relative else np.zeros_like(exact)
    artists = {"mc": None, "stated": None}
    if relative:
        ax.axvline(0.0, color=EXACT_COLOR, lw=0.8)
    artists["exact"] = ax.plot(exact - base, y, "|", color=EXACT_COLOR, ms=14, mew=2, label="exact")[0]
    if report.mc is not None:
        rtp = 100 * t["rtp"].to_numpy(float)
        half = 100 * (t["ci95_high"] - t["ci95_low"]).to_numpy(float) / 2
        artists["mc"] = ax.errorbar(rtp - base, y, xerr=half, fmt="o", color=MC_COLOR, ms=4, capsize=3,
                                    label=f"Monte Carlo, 95% CI ({report.mc.rounds:,.0f} rounds)")
    stated = 100 * t["stated_rtp"].to_numpy(float)
    if np.isfinite(stated).any():
        artists["stated"] = ax.plot(stated - base, y, "x", color=STATED_COLOR, ms=8, mew=2, label="stated")[0]
    by_stake = getattr(report, "by_stake", {})
    marked = np.array([bet_id in by_stake for bet_id in t.index], bool)
    artists["min_stake"] = None
    if marked.any():
        # A rounded commission: the nominal RTP holds at some stakes only; the minimum stake's is drawn beside it.
        at_min = 100 * t["rtp_at_min_stake"].to_numpy(float)
        ax.hlines(y[marked], (at_min - base)[marked], (exact - base)[marked], colors=EXACT_COLOR, linestyles=":",
                  lw=1)
        minimum = amount_text(report.rules.limits.min_bet)
        artists["min_stake"] = ax.plot((at_min - base)[marked], y[marked], "<", color=EXACT_COLOR, mfc="white", ms=7,
                                       label=f"{STAKE_MARK} exact at the minimum stake, {minimum}")[0]
    ax.set_yticks(y, [str(name) + (f" {STAKE_MARK}" if mark else "") for name, mark in zip(t["name"], marked)])
    ax.set_xlabel("RTP minus exact RTP (percentage points)" if relative else "RTP (%)")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(loc="best", fontsize="small")
    return artists


def plot_convergence(running: tuple[np.ndarray, np.ndarray, np.ndarray], *, exact_rtp: float | None = None,
                     stated_rtp: float | None = None, ax=None, label: str = "") -> dict:
    """Running RTP estimate of one bet with its 95% CI band, against the exact (and stated) RTP.

    Parameters
    ----------
    running : (ndarray, ndarray, ndarray)
        Rounds dealt, RTP and its standard error after each batch of a Monte
        Carlo run (:func:`baccarat_sim.analysis.stats.running_estimate`,
        :meth:`baccarat_sim.analysis.run.RunResult.convergence`).
    exact_rtp, stated_rtp : float or None
        Reference lines (fractions, not percents).
    ax : matplotlib Axes or None
    label : str
        Title of the panel (the bet's name).

    Returns
    -------
    dict
        ``"estimate"`` (Line2D), ``"band"`` (PolyCollection), ``"exact"`` and
        ``"stated"`` (Line2D or None).
    """
    ax = current_axes(ax)
    rounds, rtp, se = running
    artists = {"exact": None, "stated": None}
    artists["band"] = ax.fill_between(rounds, 100 * (rtp - Z95 * se), 100 * (rtp + Z95 * se), color=MC_COLOR,
                                      alpha=0.2, lw=0, label="95% CI")
    artists["estimate"] = ax.plot(rounds, 100 * rtp, "-", color=MC_COLOR, lw=1.2, label="Monte Carlo")[0]
    if exact_rtp is not None:
        artists["exact"] = ax.axhline(100 * exact_rtp, color=EXACT_COLOR, lw=1, ls="--",
                                      label=f"exact {100 * exact_rtp:.4f}%")
    if stated_rtp is not None and np.isfinite(stated_rtp):
        artists["stated"] = ax.axhline(100 * stated_rtp, color=STATED_COLOR, lw=1, ls=":",
                                       label=f"stated {100 * stated_rtp:.4g}%")
    if len(rounds) > 1 and rounds[-1] > 10 * rounds[0]:
        ax.set_xscale("log")
    ax.set_xlabel("rounds dealt")
    ax.set_ylabel("RTP (%)")
    if label:
        ax.set_title(label, fontsize="medium")
    ax.grid(alpha=0.3)
    return artists


def plot_score_distribution(scores: ScoreDistribution, *, ax=None) -> dict:
    """Probability of each final score (0-9) of the Player and the Banker hand.

    Bars show the exact distribution when there is one; a Monte Carlo
    estimate beside exact bars appears as points with 95% Wilson intervals.

    Parameters
    ----------
    scores : ScoreDistribution
        From :func:`baccarat_sim.analysis.stats.score_distribution` (a run's:
        :meth:`baccarat_sim.analysis.run.RunResult.scores`).
    ax : matplotlib Axes or None

    Returns
    -------
    dict
        ``"player"``, ``"banker"`` (BarContainer) and, with a Monte Carlo
        estimate, ``"mc_player"``, ``"mc_banker"`` (ErrorbarContainer).
    """
    ax = current_axes(ax)
    points = np.arange(10)
    width = 0.4
    artists = {}
    for side, offset, color in zip(HANDS, (-width / 2, width / 2), (PLAYER_COLOR, BANKER_COLOR)):
        probability = 100 * scores.counts[side] / scores.total
        label = f"{side.capitalize()}" + (" (exact)" if scores.exact else "")
        artists[side] = ax.bar(points + offset, probability, width, color=color, alpha=0.55, label=label)
        if scores.mc_counts is not None:
            share = 100 * scores.mc_counts[side] / scores.mc_total
            low, high = scores.mc_ci95[side] * 100
            artists[f"mc_{side}"] = ax.errorbar(points + offset, share, yerr=[share - low, high - share], fmt=".",
                                                color=color, ms=5, capsize=2,
                                                label=f"{side.capitalize()} (Monte Carlo, 95% CI)")
    ax.set_xticks(points)
    ax.set_xlabel("final score")
    ax.set_ylabel("probability (%)")
    ax.legend(fontsize="small")
    ax.grid(axis="y", alpha=0.3)
    return artists


# --------------------------------------------------------------------------- whole figures (no pyplot)


def _plotted(report) -> tuple[list, str]:
    """The report's bets a per-bet figure shows (:meth:`Report.plotted_bets`) and the title's note."""
    keep = set(report.plotted_bets())
    bets = [bet for bet in report.rules.bets if bet.id in keep]
    why = "stated RTPs that do not hold, then the largest |z|" if report.mc is not None else (
        "stated RTPs that do not hold, then the rule file's order")
    return bets, shown_note(len(bets), len(report.rules.bets), why)


def bet_rtp_figure(report):
    """Per-bet RTP in percent (left) and minus the exact RTP (right), one figure (one row per plotted bet)."""
    bets, note = _plotted(report)
    fig = new_figure(12, 1.2 + 0.35 * len(bets) + (0.3 if note else 0.0))
    left, right = fig.subplots(1, 2, sharey=True)
    plot_bet_rtp(report, ax=left, bet_ids=[bet.id for bet in bets])
    plot_bet_rtp(report, ax=right, relative=True, bet_ids=[bet.id for bet in bets])
    right.get_legend().remove()
    fig.suptitle(f"{report.rules.name}: RTP per bet{note}", fontsize="medium")
    return fig


def convergence_figure(report, columns: int = 3):
    """Running RTP of each plotted bet of a Monte Carlo report, one panel per bet."""
    if report.mc is None:
        raise ValueError("a convergence figure needs a Monte Carlo report")
    bets, note = _plotted(report)
    fig, axes = panel_grid(len(bets), columns, 3.0)
    for ax, bet in zip(axes, bets):
        row = report.table.loc[bet.id]
        plot_convergence(report.result.convergence(bet.id), exact_rtp=row["exact_rtp"],
                         stated_rtp=row["stated_rtp"], ax=ax, label=bet.name)
    for ax in axes:  # each panel names its own exact figure
        ax.legend(fontsize="x-small", loc="best")
    fig.suptitle(f"{report.rules.name}: convergence of the Monte Carlo RTP (seed {report.mc.seed}){note}",
                 fontsize="medium")
    return fig


def score_distribution_figure(report):
    """Final-score distribution of the report's run (Monte Carlo over exact bars, or exact)."""
    fig = new_figure(8, 4)
    ax = fig.add_subplot()
    plot_score_distribution(report.result.scores(), ax=ax)
    ax.set_title(f"{report.rules.name}: final scores", fontsize="medium")
    return fig


# --------------------------------------------------------------------------- dealt shoe: positions, cut card


def plot_rtp_by_round(positions, bet_id: str, *, ax=None, label: str = "") -> dict:
    """RTP of one bet at each round position of a dealt shoe, with its 95% CI band.

    Parameters
    ----------
    positions : PositionAnalysis
        From :func:`baccarat_sim.analysis.positions.analyze_positions`.
    bet_id : str
    ax : matplotlib Axes or None
    label : str
        Title of the panel (the bet's name).

    Returns
    -------
    dict
        ``"estimate"`` (Line2D), ``"band"`` (PolyCollection), ``"exact"``
        (Line2D: the fresh-shoe RTP), ``"always"`` (Line2D: the last round every
        shoe deals), ``"cap"`` (Line2D at the Max Round Availability, or None)
        and ``"rare"`` (Line2D: hollow markers on the rounds seen in fewer than 1%
        of shoes, whose wide bands the axis does not hold; or None).
    """
    ax = current_axes(ax)
    b = positions.bets[bet_id]
    k = np.arange(1, len(b.rounds) + 1)
    shown = ~np.isnan(b.rtp)
    rtp, se = 100 * b.rtp[shown], 100 * b.se[shown]
    artists = {"cap": None}
    artists["band"] = ax.fill_between(k[shown], rtp - Z95 * se, rtp + Z95 * se, color=MC_COLOR, alpha=0.2, lw=0,
                                      label="95% CI")
    artists["estimate"] = ax.plot(k[shown], rtp, ".-", color=MC_COLOR, lw=0.8, ms=3, label="Monte Carlo")[0]
    artists["exact"] = ax.axhline(100 * b.exact_rtp, color=EXACT_COLOR, lw=1, ls="--",
                                  label=f"fresh shoe {100 * b.exact_rtp:.4f}%")
    artists["always"] = ax.axvline(b.always + 0.5, color="#777777", lw=0.8, ls="-.",
                                   label=f"rounds 1-{b.always}: every shoe")
    # A position seen in a handful of shoes has a huge interval: the axis holds every estimate, the last rounds'
    # included, but only the bands of the positions seen in at least 1% of shoes (a rarer one's may run off it).
    solid = shown & (b.rounds >= 0.01 * b.rounds.max())
    rare = shown & ~solid
    artists["rare"] = None
    if rare.any():
        artists["rare"] = ax.plot(k[rare], 100 * b.rtp[rare], "o", ls="none", ms=4, mfc="white", mec=MC_COLOR,
                                  label="round seen in < 1% of shoes")[0]
    if shown.any():
        low = min(np.min(rtp), np.min(100 * (b.rtp[solid] - Z95 * b.se[solid]), initial=np.inf), 100 * b.exact_rtp)
        high = max(np.max(rtp), np.max(100 * (b.rtp[solid] + Z95 * b.se[solid]), initial=-np.inf),
                   100 * b.exact_rtp)
        pad = 0.08 * (high - low) or 0.01
        ax.set_ylim(low - pad, high + pad)
    if b.max_round is not None:
        capped = "" if b.capped is None else f", capped RTP {100 * b.capped.rtp:.3f}%"
        artists["cap"] = ax.axvline(b.max_round + 0.5, color=STATED_COLOR, lw=1.2, ls=":",
                                    label=f"max round {b.max_round}{capped}")
    ax.set_xlabel("round of the shoe")
    ax.set_ylabel("RTP (%)")
    if label:
        ax.set_title(label, fontsize="medium")
    ax.grid(alpha=0.3)
    return artists


def plot_rounds_per_shoe(per_shoe, *, ax=None) -> dict:
    """Distribution of the number of rounds a dealt shoe gives.

    Parameters
    ----------
    per_shoe : RoundsPerShoe
        From :func:`baccarat_sim.analysis.positions.rounds_per_shoe`.
    ax : matplotlib Axes or None

    Returns
    -------
    dict
        ``"bars"`` (BarContainer), ``"mean"`` (Line2D) and ``"central"``
        (the shaded 5%-95% range, a Polygon).
    """
    ax = current_axes(ax)
    k = np.arange(1, len(per_shoe.reaching) + 1)
    probability = 100 * per_shoe.probability
    keep = probability > 0
    artists = {}
    artists["central"] = ax.axvspan(per_shoe.quantile(0.05) - 0.5, per_shoe.quantile(0.95) + 0.5, color=MC_COLOR,
                                    alpha=0.08, label="5%-95% of shoes")
    artists["bars"] = ax.bar(k[keep], probability[keep], 0.8, color=MC_COLOR, alpha=0.7,
                             label=f"{per_shoe.shoes:,} shoes")
    artists["mean"] = ax.axvline(per_shoe.mean, color=EXACT_COLOR, lw=1, ls="--", label=f"mean {per_shoe.mean:.2f}")
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_xlabel("rounds in the shoe")
    ax.set_ylabel("shoes (%)")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize="small")
    return artists


def plot_cut_sweep(sweep, *, ax=None, bet_ids=None) -> dict:
    """Each bet's RTP minus its fresh-shoe RTP as the cut card moves, with 95% CIs.

    Parameters
    ----------
    sweep : CutSweep
        From :func:`baccarat_sim.analysis.positions.cut_card_sweep`.
    ax : matplotlib Axes or None
    bet_ids : list of str or None
        Bets to draw (default: all).

    Returns
    -------
    dict
        Bet id -> ErrorbarContainer, and ``"zero"`` (the fresh-shoe line).
    """
    ax = current_axes(ax)
    frame = sweep_frame(sweep)
    bet_ids = list(bet_ids) if bet_ids is not None else [bet.id for bet in sweep.rules.bets]
    n_bets = max(1, len(bet_ids))
    # One slot per cut-card position, in the order of the shoe, labelled with the position: the bets of a
    # position stand side by side within its slot, so no point is drawn at a position it was not dealt at.
    cuts = sorted((cut for cut, _ in sweep.done), key=lambda cut: (cut.low, cut.high))
    slot = {cut_label(cut): i for i, cut in enumerate(cuts)}
    artists = {"zero": ax.axhline(0.0, color=EXACT_COLOR, lw=0.8, label="fresh shoe (exact)")}
    colors = mpl.colormaps["tab20" if n_bets > 10 else "tab10"].colors
    for i, bet_id in enumerate(bet_ids):
        part = frame[frame["bet"] == bet_id].sort_values(["cut_from_end_low", "cut_from_end_high"])
        x = np.array([slot[label] for label in part["cut"]]) + (i - (n_bets - 1) / 2) * 0.6 / n_bets
        half = 100 * (part["ci95_high"] - part["ci95_low"]) / 2
        artists[bet_id] = ax.errorbar(x, 100 * part["rtp_minus_fresh"], yerr=half, fmt="o-", ms=3, lw=0.8,
                                      capsize=2, color=colors[i % len(colors)], label=str(part["name"].iloc[0]))
    ax.set_xticks(range(len(cuts)), [cut_label(cut) for cut in cuts])
    ax.set_xlim(-0.5, len(cuts) - 0.5)
    ax.set_xlabel("cut card position (cards from the end of the shoe)")
    ax.set_ylabel("RTP minus fresh-shoe RTP (percentage points)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="x-small", ncols=2)
    return artists


def rtp_by_round_figure(report, columns: int = 3):
    """RTP by round position of each plotted bet of a dealt run, one panel per bet (None for other runs)."""
    positions = getattr(report, "positions", None)
    if positions is None:
        return None
    bets, note = _plotted(report)
    fig, axes = panel_grid(len(bets), columns, 3.0)
    for ax, bet in zip(axes, bets):
        plot_rtp_by_round(positions, bet.id, ax=ax, label=bet.name)
        ax.legend(fontsize="xx-small", loc="best")
    fig.suptitle(f"{report.rules.name}: RTP by round of the shoe ({report.mc.rounds:,} rounds, seed "
                 f"{report.mc.seed}){note}", fontsize="medium")
    return fig


def rounds_per_shoe_figure(report):
    """Rounds per shoe of a dealt run (None for other runs)."""
    positions = getattr(report, "positions", None)
    if positions is None:
        return None
    fig = new_figure(8, 4)
    ax = fig.add_subplot()
    plot_rounds_per_shoe(positions.rounds_per_shoe, ax=ax)
    shoe = report.rules.shoe
    cut = shoe.cut_card
    where = f"{cut.low}" if cut.low == cut.high else f"{cut.low}-{cut.high}"
    ax.set_title(f"{report.rules.name}\nrounds per shoe: cut card {where} cards from the end, burn {shoe.burn}",
                 fontsize="medium")
    return fig


def cut_sweep_figure(sweep):
    """One figure of a cut-card sweep: each bet's RTP minus its fresh-shoe RTP by cut-card position.

    With more than :data:`~baccarat_sim.limits.MAX_PLOTTED_BETS` bets, those the cut card moves most.
    """
    frame = sweep_frame(sweep)
    moved = frame.assign(size=frame["rtp_minus_fresh"].abs()).groupby("bet", sort=False)["size"].max()
    bet_ids = largest({bet.id: float(moved.get(bet.id, np.nan)) for bet in sweep.rules.bets})
    fig = new_figure(10, 5.5)
    ax = fig.add_subplot()
    plot_cut_sweep(sweep, ax=ax, bet_ids=bet_ids)
    note = shown_note(len(bet_ids), len(sweep.rules.bets), "those the cut card moves most")
    ax.set_title(f"{sweep.rules.name}: RTP by cut-card position (seed {sweep.seed}){note}", fontsize="medium")
    return fig

