"""Settlement: a bet's pay table applied to an outcome histogram.

Works the same on an exact histogram (integer combination weights: results are
exact fractions) and on a Monte Carlo histogram (round counts: estimates with
standard errors, see :mod:`baccarat_sim.analysis.stats`). The net result of
each pay-table line (:func:`line_nets`, the commission rounded for the stake
where the rule set rounds it) is worked out here and read by every module
that settles: several bets on one round (covariance, bet slips:
:mod:`baccarat_sim.analysis.joint`), the RTP by stake of a rounded commission
(:mod:`baccarat_sim.analysis.commission`) and the slips of the hold analysis
(:mod:`baccarat_sim.analysis.slip`). The table limits a slip must keep are in
:mod:`baccarat_sim.analysis.table_limits`.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import warnings
from fractions import Fraction

import numpy as np

from ..errors import InputError, ShoeMismatchWarning
from ..model.histogram import OutcomeHistogram
from ..model.rules import Bet, Rules
from ..model.shoe import deck_count
from .stats import Z95

__all__ = [
    "BetResult",
    "Breakdown",
    "BreakdownLine",
    "bet_breakdown",
    "line_nets",
    "net_vector",
    "settle",
    "settle_bet",
]


@functools.lru_cache(maxsize=512)
def _net_exact(bet: Bet, commission_rate: Fraction, detail=None) -> tuple[np.ndarray, tuple[Fraction, ...]]:
    """(index of each cell's net value, the distinct net values of the cells).

    Worked out per line and then spread over the cells by their line index: a card-level bet has hundreds of
    thousands of cells and only a few lines, and hashing a Fraction per cell took seconds.
    """
    line_of_cell = bet.case_index(detail)
    nets = bet.case_nets(commission_rate)
    values = tuple(sorted({nets[line] for line in np.unique(line_of_cell)}))
    lookup = {value: i for i, value in enumerate(values)}
    index = np.array([lookup.get(net, -1) for net in nets], dtype=np.int64)[line_of_cell]
    index.setflags(write=False)
    return index, values


def net_vector(bet: Bet, rules: Rules, detail=None) -> np.ndarray:
    """Net result per unit staked for every cell of a histogram.

    Parameters
    ----------
    detail : CardDetail or None
        The card detail of the histogram's view of the bet (``hist.view([bet]).detail``); None: the outcome codes.

    Returns
    -------
    ndarray(float64, shape=(N_CODES,) or (detail.n_cells,))
    """
    index, values = _net_exact(bet, rules.commission.rate, detail)
    return np.array([float(v) for v in values])[index]


@dataclasses.dataclass(frozen=True)
class BetResult:
    """Settlement of one bet over a histogram (per unit staked).

    ``ev`` is exact (a Fraction turned to float) for the exact engine; for Monte
    Carlo it is the sample mean. ``distribution`` maps each net result to its
    probability (exact Fractions for the exact engine).
    """

    id: str
    name: str
    ev: float
    sd: float
    hit_frequency: float
    push_frequency: float
    rounds: int
    distribution: tuple[tuple[Fraction, float], ...]
    ev_exact: Fraction | None = None

    @property
    def rtp(self) -> float:
        """Return to player: ``1 + ev``."""
        return 1.0 + self.ev

    @property
    def house_edge(self) -> float:
        """``-ev``."""
        return -self.ev

    @property
    def rounds_for_precision(self) -> float:
        """Rounds for a 95% CI of +/- 0.01 percentage points (1e-4) at this SD."""
        return math.ceil((Z95 * self.sd / 1e-4) ** 2)


def settle_bet(hist: OutcomeHistogram, bet: Bet | str, rules: Rules, counts: np.ndarray | None = None,
               stake=None) -> BetResult:
    """Settle one bet over ``hist`` (or over ``counts`` from the same code space).

    Parameters
    ----------
    hist : OutcomeHistogram
    bet : Bet or str
        The bet, or its id in ``rules``.
    rules : Rules
    counts : ndarray(int64, shape=(hist.n_cells,)), optional
        Counts to settle instead of ``hist.counts`` (e.g. one round position).
    stake : number, optional
        Stake in lowest chips. Only matters where the rule set rounds the
        commission (``commission.rounding``): the commission on a win is then
        worked out for this stake. Without it the nominal rate applies.

    Returns
    -------
    BetResult
        Per unit staked; exact (``ev_exact`` a Fraction) for the exact engine.
    """
    bet = rules.bet(bet) if isinstance(bet, str) else bet
    view = hist.view([bet])  # a histogram of card-level groups settles each bet on its group's cells
    counts = view.counts if counts is None else counts[..., hist.cell_range([bet])]
    nets = line_nets(bet, rules, stake)
    line_weights = np.zeros(len(nets), np.int64)
    np.add.at(line_weights, bet.case_index(view.detail), counts)
    by_net: dict[Fraction, int] = {}
    for net, weight in zip(nets, line_weights):
        by_net[net] = by_net.get(net, 0) + int(weight)
    values, weights = sorted(by_net), [by_net[v] for v in sorted(by_net)]
    total = sum(weights)
    if total == 0:
        raise InputError("hist", "cannot settle an empty histogram (no rounds)")
    ev_exact = sum((v * w for v, w in zip(values, weights)), Fraction(0)) / total
    second = sum((v * v * w for v, w in zip(values, weights)), Fraction(0)) / total
    variance = second - ev_exact * ev_exact
    # A line that pays the jackpot (or a share of it) is a hit whatever the meter: at a meter of 0 it pays
    # nothing, yet it is the bet's top prize (issue 41, item 4). Every other line is a hit when it nets a win.
    lines = (*bet.cases, bet.otherwise)
    hit = sum(int(w) for case, net, w in zip(lines, nets, line_weights) if net > 0 or case.jackpot) / total
    push = sum(int(w) for case, net, w in zip(lines, nets, line_weights) if net == 0 and not case.jackpot) / total
    return BetResult(
        id=bet.id,
        name=bet.name,
        ev=float(ev_exact),
        sd=math.sqrt(float(variance)),
        hit_frequency=float(hit),
        push_frequency=float(push),
        rounds=total,
        distribution=tuple((v, w / total) for v, w in zip(values, weights) if w),
        ev_exact=ev_exact,
    )


def settle(hist: OutcomeHistogram, rules: Rules) -> list[BetResult]:
    """Settle every bet of ``rules`` over ``hist``.

    Examples
    --------
    >>> from baccarat_sim import exact_histogram, load_rules
    >>> results = settle(exact_histogram(8), load_rules("default"))
    >>> [(r.id, round(r.house_edge, 6)) for r in results]
    [('player', 0.012351), ('banker', 0.010579), ('tie', 0.143596)]
    """
    _warn_other_decks(hist, rules)
    return [settle_bet(hist, bet, rules) for bet in rules.bets]


def _warn_other_decks(hist: OutcomeHistogram, rules: Rules) -> None:
    """Warn when a histogram of whole decks is settled under a rule set that states another deck count."""
    decks = deck_count(hist.shoe)
    if decks is not None and decks != rules.shoe.decks:
        warnings.warn(f"the histogram was dealt from {decks} deck{'s' if decks != 1 else ''}, rule set {rules.id!r} "
                      f"states {rules.shoe.decks}: the figures are those of the histogram's shoe (settle under "
                      f"rules.with_shoe(decks={decks}) to say so)", ShoeMismatchWarning, stacklevel=3)


@dataclasses.dataclass(frozen=True)
class BreakdownLine:
    """One line of a bet's pay table over a histogram: its event, payout and weight."""

    event: str
    pays: str
    net: Fraction
    combinations: int
    probability: Fraction

    @property
    def contribution(self) -> Fraction:
        """Net result times probability: this line's share of the EV."""
        return self.net * self.probability


@dataclasses.dataclass(frozen=True)
class Breakdown:
    """A bet's pay table line by line over a histogram, as casino mathematicians publish it.

    Attributes
    ----------
    bet_id : str
    lines : tuple of BreakdownLine
        In file order, ``otherwise`` last.
    total : int
        Total weight (combinations or rounds).
    """

    bet_id: str
    lines: tuple[BreakdownLine, ...]
    total: int

    @property
    def ev(self) -> Fraction:
        """The bet's EV per unit staked (exact for an exact histogram)."""
        return sum((line.contribution for line in self.lines), Fraction(0))


def bet_breakdown(hist: OutcomeHistogram, bet: Bet | str, rules: Rules) -> Breakdown:
    """A bet's pay table line by line: combinations, probability and return of each line.

    Parameters
    ----------
    hist : OutcomeHistogram
        Exact (combinations are exact integer weights over six-card orderings)
        or Monte Carlo (combinations are rounds).
    bet : Bet or str
        The bet, or its id in ``rules``.
    rules : Rules

    Returns
    -------
    Breakdown
        (as a table: :func:`baccarat_sim.tables.breakdown`)

    Examples
    --------
    >>> from baccarat_sim import exact_histogram, load_rules
    >>> tie = bet_breakdown(exact_histogram(8), "tie", load_rules("default"))
    >>> [(line.event, line.net, line.combinations) for line in tie.lines]
    [('Tie', Fraction(8, 1), 475627426473216), ('Player or Banker win', Fraction(-1, 1), 4522770849030144)]
    """
    bet = rules.bet(bet) if isinstance(bet, str) else bet
    combos = np.zeros(len(bet.cases) + 1, np.int64)
    view = hist.view([bet])
    np.add.at(combos, bet.case_index(view.detail), view.counts)
    total = int(combos.sum())
    if total == 0:
        raise InputError("hist", "cannot settle an empty histogram (no rounds)")
    lines = tuple(
        BreakdownLine(case.name, case.pays + (" less commission" if case.commission else ""), net, int(weight),
                      Fraction(int(weight), total))
        for case, net, weight in zip((*bet.cases, bet.otherwise), line_nets(bet, rules), combos)
    )
    return Breakdown(bet.id, lines, total)


def line_nets(bet: Bet, rules: Rules, stake=None) -> list[Fraction]:
    """Net result per unit staked of each line of a bet (``otherwise`` last).

    With ``stake`` (lowest chips) and a rounded commission, the commission on
    each winning line is the rounded amount on that stake's win.
    """
    commission = rules.commission
    if stake is None or commission.rounding == "none":
        return bet.case_nets(commission.rate)
    stake = Fraction(str(stake)) if not isinstance(stake, Fraction) else stake
    if stake <= 0:
        raise InputError("stake", f"must be > 0, got {stake}")
    nets = []
    for case in (*bet.cases, bet.otherwise):
        if case.commission and case.net > 0:
            nets.append(case.net - commission.amount(stake * case.net) / stake)
        else:
            nets.append(case.net)
    return nets
