"""Settlement of a bet that pays a progressive jackpot: its RTP as a straight line in the meter.

A line paying the jackpot (or a share of it) has a net result linear in the
meter (:class:`~baccarat_sim.model.paytable.Case`), so the bet's RTP is
``base + slope x meter``. Both come from settling the bet twice over the same
histogram (meter 0 and meter 1: exact fractions for the exact engine, sample
means for Monte Carlo); from them follow the meter at which the bet breaks even
(RTP 1), its RTP at the reset value and, where the rule file gives the
contribution rate, the long-run figures.

The long run: every stake adds ``contribution`` of itself to the meter; a line
paying the whole jackpot empties the meter, which the operator seeds again at
the reset value; a line paying a share takes it from the meter. Every
contribution is therefore paid back to players in the long run, and the
operator pays the reset value once per whole jackpot won, so the player's
long-run RTP is ``base + contribution + reset (in stakes) x P(whole jackpot)``
and the operator's long-run return is one less that.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import numpy as np

from ..model.histogram import OutcomeHistogram
from ..model.rules import Bet, Rules
from .settlement import settle_bet

__all__ = ["JackpotFigures", "jackpot_figures"]


@dataclasses.dataclass(frozen=True)
class JackpotFigures:
    """A jackpot bet's RTP as ``base + slope x meter`` over one histogram, and what follows from it.

    Attributes
    ----------
    bet_id : str
    unit : str
        What the meter counts: ``"stake"`` (units of the stake) or ``"money"``.
    per_stake : Fraction
        Meter units per stake (the stake in money for a meter in money, else 1).
    meter : Fraction
        The meter value the bet's reported RTP is at (the reset value unless set).
    reset : Fraction or None
        The meter's value after it is won (None: the rule file does not say).
    contribution : Fraction or None
        The fraction of every stake added to the meter (None: the rule file does not say).
    base : Fraction
        The RTP with the meter at 0.
    slope : Fraction
        RTP per unit of meter.
    jackpot_probability : Fraction
        The probability of a line paying the whole jackpot (it resets the meter).
    """

    bet_id: str
    unit: str
    per_stake: Fraction
    meter: Fraction
    reset: Fraction | None
    contribution: Fraction | None
    base: Fraction
    slope: Fraction
    jackpot_probability: Fraction

    def rtp_at(self, meter) -> Fraction:
        """The RTP with the meter at ``meter`` (in the jackpot's unit)."""
        return self.base + self.slope * Fraction(meter)

    @property
    def rtp_at_reset(self) -> Fraction | None:
        """The RTP with the meter at its reset value (None without one)."""
        return None if self.reset is None else self.rtp_at(self.reset)

    @property
    def break_even_meter(self) -> Fraction | None:
        """The meter at which the RTP is 1 (None where no line pays the meter in this histogram)."""
        return None if self.slope <= 0 else (1 - self.base) / self.slope

    @property
    def long_run_rtp(self) -> Fraction | None:
        """The player's long-run RTP with every contribution paid back (None without a contribution rate or reset)."""
        if self.contribution is None or self.reset is None:
            return None
        return self.base + self.contribution + self.reset / self.per_stake * self.jackpot_probability

    @property
    def operator_long_run_return(self) -> Fraction | None:
        """What the operator keeps per unit staked in the long run, contributions and reset seeds paid."""
        rtp = self.long_run_rtp
        return None if rtp is None else 1 - rtp


def jackpot_figures(hist: OutcomeHistogram, bet: Bet | str, rules: Rules) -> JackpotFigures:
    """A jackpot bet's figures over ``hist``: exact for an exact histogram, estimates for Monte Carlo.

    Parameters
    ----------
    hist : OutcomeHistogram
    bet : Bet or str
        A bet with a jackpot (``bet.jackpot``), or its id in ``rules``.
    rules : Rules

    Raises
    ------
    ValueError
        The bet pays no jackpot.
    """
    bet = rules.bet(bet) if isinstance(bet, str) else bet
    if bet.jackpot is None:
        raise ValueError(f"bet {bet.id!r} pays no jackpot")
    base = 1 + settle_bet(hist, bet.with_meter(0), rules).ev_exact
    slope = 1 + settle_bet(hist, bet.with_meter(1), rules).ev_exact - base
    weights = np.zeros(len(bet.cases) + 1, np.int64)
    np.add.at(weights, bet.case_index(hist.detail), hist.counts)
    resetting = sum(int(w) for case, w in zip((*bet.cases, bet.otherwise), weights) if case.resets_meter)
    jackpot = bet.jackpot
    return JackpotFigures(bet.id, jackpot.unit, jackpot.per_stake, jackpot.meter, jackpot.reset, jackpot.contribution,
                          base, slope, Fraction(resetting, int(weights.sum())))
