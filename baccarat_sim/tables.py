"""The tables casino mathematicians publish, in one call: computed by the analysis, laid out by the report.

A convenience of the public API (``baccarat_sim.breakdown``,
``baccarat_sim.commission_table``) above the layers: the analysis computes
(:func:`baccarat_sim.analysis.settlement.bet_breakdown`,
:func:`baccarat_sim.analysis.commission.commission_by_stake`) and the report
lays the result out as a table (:mod:`baccarat_sim.report.tables`).
"""

from __future__ import annotations

import pandas as pd

from .analysis.commission import commission_by_stake
from .analysis.settlement import bet_breakdown
from .model.histogram import OutcomeHistogram
from .model.rules import Bet, Rules
from .report.tables import breakdown_frame, commission_frame

__all__ = ["breakdown", "commission_table"]


def breakdown(hist: OutcomeHistogram, bet: Bet | str, rules: Rules) -> pd.DataFrame:
    """The per-outcome table casino mathematicians publish for a bet.

    One row per line of the pay table (in file order, ``otherwise`` last) and a
    ``total`` row, as in the Wizard of Odds return tables (the lines as plain
    objects: `baccarat_sim.analysis.settlement.bet_breakdown`).

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
    DataFrame
        Columns ``event``, ``pays`` (as the rule file writes it), ``net`` (per
        unit staked), ``combinations``, ``probability`` and ``return`` (net x
        probability). The total row's ``return`` is the bet's exact EV.

    Examples
    --------
    >>> from baccarat_sim import exact_histogram, load_rules
    >>> table = breakdown(exact_histogram(8), "tie", load_rules("default"))
    >>> print(table[["event", "net", "combinations"]].to_string(index=False))
                   event  net     combinations
                     Tie  8.0  475627426473216
    Player or Banker win -1.0 4522770849030144
                   total  NaN 4998398275503360
    """
    return breakdown_frame(bet_breakdown(hist, bet, rules))


def commission_table(hist: OutcomeHistogram, rules: Rules, bet_id: str = "banker",
                     stakes=None) -> pd.DataFrame:
    """RTP of a commission bet by stake, with the commission rounded as the rule set says.

    The rows of `baccarat_sim.analysis.commission.commission_by_stake` as a table: the
    plot data of RTP against stake.

    Returns
    -------
    DataFrame
        ``stake`` (default 1 to 100 lowest chips; amounts in the table's money),
        ``commission`` (on a win of the stake), ``payout`` (net win), ``effective_rate`` (commission / win),
        ``rtp``, ``house_edge`` and ``rtp_nominal`` (at the unrounded rate).

    Examples
    --------
    >>> from baccarat_sim import exact_histogram, load_rules
    >>> table = commission_table(exact_histogram(8), load_rules("online-commission-rounding"), stakes=[1, 2, 5])
    >>> print(table[["stake", "commission", "payout", "effective_rate"]].to_string(index=False))
     stake  commission  payout  effective_rate
       1.0        0.25    0.75           0.250
       2.0        0.25    1.75           0.125
       5.0        0.25    4.75           0.050
    """
    return commission_frame(commission_by_stake(hist, rules, bet_id, stakes))
