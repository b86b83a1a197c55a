"""Several bets on one round: the joint law of their pay-table lines, their covariance, a bet slip's settlement.

A bet slip stakes several bets of a rule set on the same round; its net
result is the sum of each bet's stake times the net of the line it settles on
(:func:`slip_nets`, the commission rounded for each stake where the rule set
rounds it), over the combinations of lines that the outcomes settle on
together (:func:`joint_lines`). The hold analysis builds its slips
(:mod:`baccarat_sim.analysis.slip`) on the same two functions.
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

import numpy as np

from ..errors import InputError
from ..model.histogram import OutcomeHistogram
from ..model.rules import Bet, Rules
from .settlement import line_nets
from .table_limits import slip_stakes

__all__ = ["Covariance", "SlipResult", "covariance", "joint_lines", "settle_slip", "slip_nets"]


def joint_lines(bets: list[Bet], detail=None) -> tuple[np.ndarray, np.ndarray]:
    """The combinations of pay-table lines several bets settle on together, and the combination of every cell.

    Parameters
    ----------
    bets : list of Bet
    detail : CardDetail or None
        The histogram's card detail (None: the outcome codes).

    Returns
    -------
    (ndarray(int64, shape=(n_groups, n_bets)), ndarray(int64, shape=(n_cells,)))
        Each row of the first is one combination of lines (index into
        ``cases + [otherwise]`` per bet) that some cell settles on; the second
        gives each cell's row.
    """
    lines = np.stack([bet.case_index(detail) for bet in bets], axis=1)
    groups, inverse = np.unique(lines, axis=0, return_inverse=True)
    return groups, inverse.ravel()


def _joint(bets: list[Bet], counts: np.ndarray, detail=None) -> tuple[np.ndarray, np.ndarray]:
    """Joint distribution of the pay-table lines of several bets.

    Returns
    -------
    (ndarray(int64, shape=(n_groups, n_bets)), ndarray(int64, shape=(n_groups,)))
        Each combination of lines (:func:`joint_lines`) that some outcome settles
        on, and its total weight. Weights are summed in int64 (exact: they never
        exceed the histogram total).
    """
    groups, inverse = joint_lines(bets, detail)
    weights = np.zeros(len(groups), np.int64)
    np.add.at(weights, inverse, counts)
    keep = weights > 0
    return groups[keep], weights[keep]


def _joint_of_histogram(hist: OutcomeHistogram, bets: list[Bet]) -> tuple[np.ndarray, np.ndarray, int]:
    """:func:`_joint` of a histogram (its card-level group that holds every bet's cards) and the total weight."""
    view = hist.view(bets)
    groups, weights = _joint(bets, view.counts, view.detail)
    total = int(weights.sum())
    if total == 0:
        raise InputError("hist", "cannot settle an empty histogram (no rounds)")
    return groups, weights, total


def slip_nets(groups: np.ndarray, bets: list[Bet], rules: Rules, stakes) -> list[Fraction]:
    """The net result of a slip on each combination of lines: stake times the line's net, summed over the bets.

    Each bet's line nets are those at its stake (:func:`~baccarat_sim.analysis.settlement.line_nets`: the
    commission rounded for the stake where the rule set rounds it).

    Parameters
    ----------
    groups : ndarray(int64, shape=(n_groups, n_bets))
        Combinations of lines (:func:`joint_lines`).
    bets : list of Bet
    rules : Rules
    stakes : sequence of Fraction
        Stake of each bet, in the order of ``bets``.
    """
    nets = [line_nets(bet, rules, stake) for bet, stake in zip(bets, stakes)]
    return [sum((stake * bet_nets[line] for stake, bet_nets, line in zip(stakes, nets, row)), Fraction(0))
            for row in groups]




@dataclasses.dataclass(frozen=True)
class Covariance:
    """Covariance of the per-unit results of bets over one round.

    Attributes
    ----------
    bet_ids : tuple of str
    matrix : ndarray(float64, shape=(n, n))
        Square, in ``bet_ids`` order; the diagonal holds the variances.
    """

    bet_ids: tuple[str, ...]
    matrix: np.ndarray

    def __call__(self, first: str, second: str) -> float:
        """The covariance of two bets by id."""
        return float(self.matrix[self.bet_ids.index(first), self.bet_ids.index(second)])


def covariance(hist: OutcomeHistogram, rules: Rules, bet_ids=None, stakes: dict | None = None) -> Covariance:
    """Covariance of the per-unit results of bets over one round.

    Exact (from integer weights) for the exact engine; for a Monte Carlo
    histogram it is the covariance of the rounds counted.

    Parameters
    ----------
    bet_ids : sequence of str, optional
        Default: every bet of ``rules``.
    stakes : dict of str to number, optional
        Stake per bet id: where the rule set rounds the commission, each bet's
        per-unit result is the one at its stake (as :func:`settle_bet` with
        ``stake=``). Default: the nominal rate.

    Examples
    --------
    >>> from baccarat_sim import exact_histogram, load_rules
    >>> cov = covariance(exact_histogram(8), load_rules("default"), ["player", "banker"])
    >>> round(cov("player", "banker"), 3)  # one wins when the other loses
    -0.882
    """
    bet_ids = tuple(rules.bet_ids if bet_ids is None else bet_ids)
    bets = [rules.bet(bet_id) for bet_id in bet_ids]
    groups, weights, total = _joint_of_histogram(hist, bets)
    stakes = stakes or {}
    by_line = [line_nets(bet, rules, stakes.get(bet.id)) for bet in bets]
    nets = [[by_line[i][line] for line in groups[:, i]] for i in range(len(bets))]
    means = [sum((v * int(w) for v, w in zip(column, weights)), Fraction(0)) / total for column in nets]
    matrix = np.zeros((len(bets), len(bets)))
    for i in range(len(bets)):
        for j in range(i, len(bets)):
            second = sum((a * b * int(w) for a, b, w in zip(nets[i], nets[j], weights)), Fraction(0)) / total
            matrix[i, j] = matrix[j, i] = float(second - means[i] * means[j])
    return Covariance(bet_ids, matrix)


@dataclasses.dataclass(frozen=True)
class SlipResult:
    """Settlement of several bets placed together on one round.

    Stakes are amounts in the table's money, the unit of
    ``rules.limits.min_bet`` (a currency, or chips). ``ev``, ``sd`` and
    ``distribution`` are of the slip's net result in that unit, with the
    commission rounded for each stake where the rule set rounds it; the SD
    includes the covariance between the bets (a Player and a Banker stake
    largely cancel).

    Attributes
    ----------
    stakes : dict of str to Fraction
    total_stake : float
    ev : float
        Expected net result of the slip (exact value in ``ev_exact``).
    sd : float
        Standard deviation of the slip's net result.
    hit_frequency, push_frequency : float
        Probability that the slip as a whole wins, or breaks even.
    distribution : tuple of (Fraction, float)
        Every net result of the slip and its probability.
    covariance : Covariance
        Per-unit covariance matrix of the staked bets (at their stakes).
    ev_exact : Fraction
    """

    stakes: dict
    total_stake: float
    ev: float
    sd: float
    hit_frequency: float
    push_frequency: float
    distribution: tuple[tuple[Fraction, float], ...]
    covariance: Covariance
    ev_exact: Fraction

    @property
    def rtp(self) -> float:
        """Expected return per unit staked over the whole slip."""
        return 1.0 + self.ev / self.total_stake

    @property
    def house_edge(self) -> float:
        """Expected loss per unit staked over the whole slip."""
        return -self.ev / self.total_stake


def settle_slip(hist: OutcomeHistogram, rules: Rules, stakes: dict, check: bool = True) -> SlipResult:
    """Settle a bet slip: the distribution of the combined result of several bets.

    Parameters
    ----------
    hist : OutcomeHistogram
        Exact or Monte Carlo.
    rules : Rules
    stakes : dict of str to number
        Stake per bet id, an amount in the table's money (the unit of
        ``rules.limits.min_bet``). Where the rule set rounds the commission
        (``online-commission-rounding``) each commission bet is settled at its
        stake: one chip on the Banker wins 0.75 chips.
    check : bool
        Check the slip against the rule set's table limits first
        (`baccarat_sim.analysis.table_limits.check_limits`).

    Examples
    --------
    >>> from baccarat_sim import exact_histogram, load_rules
    >>> slip = settle_slip(exact_histogram(8), load_rules("rng-6deck-single-hand"), {"banker": 10, "tie": 1})
    >>> round(slip.ev, 6), round(slip.sd, 4)
    (-0.249387, 9.6518)
    """
    amounts = slip_stakes(rules, stakes, check)
    staked = {bet_id: stake for bet_id, stake in amounts.items() if stake}
    bets = [rules.bet(bet_id) for bet_id in staked]
    groups, weights, total = _joint_of_histogram(hist, bets)
    by_net: dict[Fraction, int] = {}
    for net, weight in zip(slip_nets(groups, bets, rules, list(staked.values())), weights):
        by_net[net] = by_net.get(net, 0) + int(weight)
    ev = sum((v * w for v, w in by_net.items()), Fraction(0)) / total
    variance = sum((v * v * w for v, w in by_net.items()), Fraction(0)) / total - ev * ev
    return SlipResult(
        stakes=amounts,
        total_stake=float(sum(staked.values())),
        ev=float(ev),
        sd=math.sqrt(float(variance)),
        hit_frequency=sum(w for v, w in by_net.items() if v > 0) / total,
        push_frequency=sum(w for v, w in by_net.items() if v == 0) / total,
        distribution=tuple((v, by_net[v] / total) for v in sorted(by_net)),
        covariance=covariance(hist, rules, list(staked), staked),
        ev_exact=ev,
    )
