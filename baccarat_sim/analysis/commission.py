"""A rounded commission: how the RTP of a commission bet depends on its stake.

Where a rule set rounds the commission (``commission.rounding``, e.g.
online-commission-rounding: up to a quarter of the lowest chip), the commission
on a win is worked out for each stake (:func:`~baccarat_sim.analysis.settlement.line_nets`),
so a one-chip Banker win pays 0.75 chips and the nominal RTP holds only at some
stakes. :func:`commission_by_stake` gives the RTP at every stake;
:func:`stake_dependence` says whether a bet's RTP depends on its stake, at
which stakes the nominal figure holds and what the minimum stake returns.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

from ..errors import InputError
from ..model.histogram import OutcomeHistogram
from ..model.rules import Bet, Rules
from .settlement import settle_bet

__all__ = ["StakeDependence", "StakeRTP", "commission_by_stake", "stake_dependence"]


@dataclasses.dataclass(frozen=True)
class StakeRTP:
    """A commission bet's RTP at one stake, when the commission is rounded (amounts in the table's money)."""

    stake: Fraction
    commission: Fraction
    rtp: float
    rtp_nominal: float

    @property
    def payout(self) -> Fraction:
        """Net win of a winning stake."""
        return self.stake - self.commission

    @property
    def effective_rate(self) -> Fraction:
        """Commission as a share of the win."""
        return self.commission / self.stake

    @property
    def house_edge(self) -> float:
        """``1 - rtp``."""
        return 1.0 - self.rtp


def _stakes_in_chips(rules: Rules, count: int = 100) -> list[Fraction]:
    """The first ``count`` stakes a table takes: 1, 2, ... lowest chips."""
    return [k * rules.commission.lowest_chip for k in range(1, count + 1)]


def commission_by_stake(hist: OutcomeHistogram, rules: Rules, bet_id: str = "banker",
                        stakes=None) -> list[StakeRTP]:
    """RTP of a commission bet by stake, with the commission rounded as the rule set says.

    online-commission-rounding.txt: "Commission is rounded up to a quarter of the
    lowest chip denomination". A one-chip Banker win then pays 1 - 0.25 = 0.75
    chips (an effective 25% commission) and only multiples of 5 chips pay the
    nominal 5%. (As a table: :func:`baccarat_sim.tables.commission_table`.)

    Parameters
    ----------
    hist : OutcomeHistogram
    rules : Rules
    bet_id : str
        A bet with a commission line (``commission = true``).
    stakes : iterable of number, optional
        Stakes, amounts in the table's money (the unit of
        ``commission.lowest_chip``). Default: 1 to 100 lowest chips.

    Returns
    -------
    list of StakeRTP
        ``commission`` is the commission on a win of the stake (an even-money line).

    Examples
    --------
    >>> from baccarat_sim import exact_histogram, load_rules
    >>> rows = commission_by_stake(exact_histogram(8), load_rules("online-commission-rounding"), stakes=[1, 2, 5])
    >>> [(str(r.stake), str(r.commission), float(r.effective_rate)) for r in rows]
    [('1', '1/4', 0.25), ('2', '1/4', 0.125), ('5', '1/4', 0.05)]
    """
    bet = rules.bet(bet_id)
    if not any(case.commission for case in bet.cases):
        raise InputError("bet_id", f"{bet_id!r} has no commission line in rule set {rules.id!r}")
    nominal = settle_bet(hist, bet, rules).rtp
    rounded = rules.commission.rounded
    rows = []
    for stake in _stakes_in_chips(rules) if stakes is None else stakes:
        stake = Fraction(str(stake)) if not isinstance(stake, Fraction) else stake
        result = settle_bet(hist, bet, rules, stake=stake if rounded else None)
        fee = rules.commission.amount(stake) if rounded else rules.commission.rate * stake
        rows.append(StakeRTP(stake, fee, result.rtp, nominal))
    return rows


@dataclasses.dataclass(frozen=True)
class StakeDependence:
    """How a bet's RTP depends on its stake, where the rule set rounds the commission.

    Attributes
    ----------
    bet_id : str
    rtp_nominal : float
        RTP at the unrounded rate: the per-bet table's figure.
    holds_at_multiples_of : Fraction
        The nominal RTP holds at stakes that are multiples of this amount, and
        at no other stake (there the commission needs no rounding).
    lowest_chip : Fraction
        Stakes are whole numbers of lowest chips.
    min_stake : Fraction
        The rule set's minimum bet (``limits.min_bet``).
    rtp_at_min_stake : float
    by_stake : tuple of StakeRTP
        The RTP at every stake from the minimum, a lowest chip apart, up to the
        first at which the nominal RTP holds (the rounding repeats with that period).
    """

    bet_id: str
    rtp_nominal: float
    holds_at_multiples_of: Fraction
    lowest_chip: Fraction
    min_stake: Fraction
    rtp_at_min_stake: float
    by_stake: tuple[StakeRTP, ...]


def stake_dependence(hist: OutcomeHistogram, rules: Rules, bet: Bet | str) -> StakeDependence | None:
    """Whether, and how, a bet's RTP depends on the stake (None: the same RTP at every stake).

    It does where the rule set rounds the commission (``commission.rounding``)
    and the bet takes commission from a win whose commission is not a whole
    number of rounding steps at every stake.

    Examples
    --------
    >>> from baccarat_sim import exact_histogram, load_rules
    >>> found = stake_dependence(exact_histogram(8), load_rules("online-commission-rounding"), "banker")
    >>> int(found.holds_at_multiples_of), int(found.min_stake), round(found.rtp_at_min_stake, 4)
    (5, 1, 0.8977)
    """
    bet = rules.bet(bet) if isinstance(bet, str) else bet
    commission = rules.commission
    nets = [case.net for case in bet.cases if case.commission and case.net > 0]
    multiple = commission.nominal_stake_multiple(nets) if nets else None
    if multiple is None or multiple == commission.lowest_chip:
        return None  # no rounding, or every stake (a whole number of chips) pays the exact commission
    min_stake = rules.limits.min_bet
    last = min_stake + (-min_stake) % multiple  # the first stake from the minimum that pays the nominal rate
    stakes = [min_stake + k * commission.lowest_chip
              for k in range(int((last - min_stake) / commission.lowest_chip) + 1)]
    nominal = settle_bet(hist, bet, rules).rtp
    rows = tuple(StakeRTP(stake, commission.amount(stake), settle_bet(hist, bet, rules, stake=stake).rtp, nominal)
                 for stake in stakes)
    return StakeDependence(bet.id, nominal, multiple, commission.lowest_chip, min_stake, rows[0].rtp, rows)
