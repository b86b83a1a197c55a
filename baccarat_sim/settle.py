"""Settlement: pay tables applied to an outcome histogram.

Works the same on an exact histogram (integer combination weights: results are
exact fractions) and on a Monte Carlo histogram (round counts: estimates with
standard errors, see :mod:`baccarat_sim.stats`).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from fractions import Fraction

import numpy as np
import pandas as pd

from .outcomes import N_CODES, OutcomeHistogram
from .rules import Bet, Rules

__all__ = [
    "BetResult",
    "SlipResult",
    "breakdown",
    "commission_table",
    "net_vector",
    "payout_matrix",
    "settle",
    "settle_bet",
    "settle_slip",
]


@functools.lru_cache(maxsize=512)
def _net_exact(bet: Bet, commission_rate: Fraction) -> tuple[np.ndarray, tuple[Fraction, ...]]:
    """(index of each code's net value, the distinct net values)."""
    nets = bet.net_results(commission_rate)
    values = tuple(sorted(set(nets)))
    lookup = {value: i for i, value in enumerate(values)}
    index = np.array([lookup[v] for v in nets], dtype=np.int64)
    index.setflags(write=False)
    return index, values


def net_vector(bet: Bet, rules: Rules) -> np.ndarray:
    """Net result per unit staked for every outcome code, ``ndarray(float64, (N_CODES,))``."""
    index, values = _net_exact(bet, rules.commission.rate)
    return np.array([float(v) for v in values])[index]


def payout_matrix(rules: Rules) -> np.ndarray:
    """Net result per unit staked, ``ndarray(float64, shape=(n_bets, N_CODES))``."""
    return np.stack([net_vector(bet, rules) for bet in rules.bets]) if rules.bets else np.zeros((0, N_CODES))


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
        return math.ceil((1.959963984540054 * self.sd / 1e-4) ** 2)


def settle_bet(hist: OutcomeHistogram, bet: Bet, rules: Rules, counts: np.ndarray | None = None) -> BetResult:
    """Settle one bet over ``hist`` (or over ``counts`` from the same code space)."""
    counts = hist.counts if counts is None else counts
    index, values = _net_exact(bet, rules.commission.rate)
    # Exact integer sums per distinct net value (each fits int64: they are at
    # most the histogram total).
    weights = [int(counts[index == i].sum()) for i in range(len(values))]
    total = sum(weights)
    if total == 0:
        raise ValueError("cannot settle an empty histogram")
    ev_exact = sum((v * w for v, w in zip(values, weights)), Fraction(0)) / total
    second = sum((v * v * w for v, w in zip(values, weights)), Fraction(0)) / total
    variance = second - ev_exact * ev_exact
    hit = sum(w for v, w in zip(values, weights) if v > 0) / total
    push = sum(w for v, w in zip(values, weights) if v == 0) / total
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
    return [settle_bet(hist, bet, rules) for bet in rules.bets]


def breakdown(hist: OutcomeHistogram, bet: Bet, rules: Rules) -> pd.DataFrame:
    """The per-outcome table casino mathematicians publish for a bet.

    Returns
    -------
    DataFrame
        One row per pay-table line: ``event``, ``pays``, ``net``, ``combinations``
        (exact weights or rounds), ``probability``, ``return`` (net x
        probability), and a ``total`` row whose return is the EV.
    """
    case_of_code = bet.case_index()
    cases = list(bet.cases) + [bet.otherwise]
    counts_by_case = [int(hist.counts[case_of_code == i].sum()) for i in range(len(cases))]
    total = sum(counts_by_case)
    rows = []
    for case, combos in zip(cases, counts_by_case):
        net = Bet._case_net(case, rules.commission.rate)
        probability = Fraction(int(combos), total)
        rows.append(
            {
                "event": case.name,
                "pays": case.pays + (" less commission" if case.commission else ""),
                "net": float(net),
                "combinations": int(combos),
                "probability": float(probability),
                "return": float(net * probability),
            }
        )
    frame = pd.DataFrame(rows)
    total_row = {
        "event": "total",
        "pays": "",
        "net": np.nan,
        "combinations": total,
        "probability": 1.0,
        "return": float(sum(Fraction(r["combinations"], total) * Fraction(r["net"]) for r in rows)),
    }
    return pd.concat([frame, pd.DataFrame([total_row])], ignore_index=True)


@dataclasses.dataclass(frozen=True)
class SlipResult:
    """Settlement of several bets placed together (stakes in units of the minimum bet)."""

    stakes: dict
    total_stake: float
    ev: float
    sd: float
    hit_frequency: float

    @property
    def rtp(self) -> float:
        """Expected return per unit staked over the whole slip."""
        return 1.0 + self.ev / self.total_stake

    @property
    def house_edge(self) -> float:
        """Expected loss per unit staked over the whole slip."""
        return -self.ev / self.total_stake


class LimitError(ValueError):
    """A bet slip that breaks a table limit of the rule set."""


def check_limits(rules: Rules, stakes: dict[str, float]) -> None:
    """Raise :class:`LimitError` naming the limit a bet slip breaks."""
    limits = rules.limits
    for bet_id, stake in stakes.items():
        rules.bet(bet_id)
        if stake < 0:
            raise LimitError(f"stakes.{bet_id}: must be >= 0, got {stake}")
        if 0 < stake < limits.min_bet:
            raise LimitError(f"stakes.{bet_id}: {stake} is below the minimum bet {limits.min_bet}")
        maximum = limits.max_for(bet_id)
        if maximum is not None and stake > maximum * limits.min_bet:
            raise LimitError(
                f"stakes.{bet_id}: {stake} exceeds the limit of {maximum}x the minimum bet ({rules.id})"
            )
    player, banker = stakes.get("player", 0), stakes.get("banker", 0)
    if player and banker:
        if not limits.equal_player_banker and player == banker:
            raise LimitError(f"stakes: the same amount on player and banker is not allowed ({rules.id})")
        if abs(player - banker) < limits.player_banker_min_difference * limits.min_bet:
            raise LimitError(
                f"stakes: player and banker must differ by at least {limits.player_banker_min_difference}x the "
                f"minimum bet ({rules.id})"
            )


def settle_slip(hist: OutcomeHistogram, rules: Rules, stakes: dict[str, float], check: bool = True) -> SlipResult:
    """Settle a bet slip: EV and SD of the combined result, covariances included.

    Parameters
    ----------
    stakes : dict of str to float
        Stake per bet id, in units of the minimum bet.
    check : bool
        Check the slip against the rule set's table limits first.
    """
    if check:
        check_limits(rules, stakes)
    combined = np.zeros(N_CODES)
    for bet_id, stake in stakes.items():
        combined += stake * net_vector(rules.bet(bet_id), rules)
    probability = hist.probabilities
    ev = float(probability @ combined)
    variance = float(probability @ (combined - ev) ** 2)
    return SlipResult(
        stakes=dict(stakes),
        total_stake=float(sum(stakes.values())),
        ev=ev,
        sd=math.sqrt(variance),
        hit_frequency=float(probability[combined > 0].sum()),
    )


def commission_table(hist: OutcomeHistogram, rules: Rules, bet_id: str = "banker",
                     stakes=range(1, 101)) -> pd.DataFrame:
    """RTP of a commission bet by stake, with the commission rounded per the rule set.

    Stakes are in lowest-chip units. A win pays ``stake - commission(stake)``
    where the commission is ``rate x stake`` rounded as ``rules.commission`` says
    (e.g. up to a quarter of the lowest chip, online-commission-rounding.txt).

    Returns
    -------
    DataFrame
        ``stake``, ``commission``, ``effective_rate``, ``rtp``, ``house_edge``.
    """
    bet = rules.bet(bet_id)
    commission = rules.commission
    nominal = settle_bet(hist, bet, rules)
    # Split the bet's EV into its commissioned wins and the rest, exactly.
    base = dataclasses.replace(rules, commission=dataclasses.replace(commission, rate=Fraction(0)))
    gross = settle_bet(hist, bet, base).ev_exact
    win_weight = (gross - nominal.ev_exact) / commission.rate if commission.rate else Fraction(0)
    rows = []
    for stake in stakes:
        stake = Fraction(stake)
        fee = commission.amount(stake)
        effective = fee / stake
        ev = gross - win_weight * effective
        rows.append(
            {
                "stake": float(stake * commission.lowest_chip),
                "commission": float(fee * commission.lowest_chip),
                "effective_rate": float(effective),
                "rtp": float(1 + ev),
                "house_edge": float(-ev),
            }
        )
    return pd.DataFrame(rows)
