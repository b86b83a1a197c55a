"""What the pay table gives for logged bets: each bet's line and net result, from the settlement layer.

A logged bet is settled on its round's outcome code (:func:`~baccarat_sim.analysis.audit_rounds.resolve_rounds`)
by its bet's pay table: the line is :meth:`~baccarat_sim.model.paytable.Bet.case_index` of the code, and the net
result per unit staked is :func:`~baccarat_sim.analysis.settlement.line_nets` of that line, worked out for the
bet's stake where the rule set rounds the commission. Vectorised: one lookup per bet, one settlement per distinct
stake.
"""

from __future__ import annotations

import numpy as np

from ..model.rules import Rules
from .settlement import line_nets

__all__ = ["expected_nets", "line_names", "settles_on_codes"]


def settles_on_codes(rules: Rules, bet_id: str) -> bool:
    """Whether a bet is settled on the outcome code alone (a card-level bet reads the cards' detail too)."""
    return not rules.bet(bet_id).card_level


def line_names(rules: Rules, bet_id: str) -> tuple[str, ...]:
    """The names of a bet's lines, ``otherwise`` last."""
    bet = rules.bet(bet_id)
    return tuple(case.name or case.when for case in bet.cases) + (bet.otherwise.name or "otherwise",)


def expected_nets(rules: Rules, bet_id: str, codes: np.ndarray, stakes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The pay table's line and net result (in money) of each bet.

    Parameters
    ----------
    rules : Rules
    bet_id : str
        A bet settled on the outcome code (:func:`settles_on_codes`).
    codes : ndarray(int64, shape=(n,))
        The outcome code of each bet's round.
    stakes : ndarray(float64, shape=(n,))
        Each bet's stake.

    Returns
    -------
    (ndarray(int64), ndarray(float64))
        The line that settles each bet (``len(cases)``: ``otherwise``) and the net result the pay table gives.
    """
    bet = rules.bet(bet_id)
    line = bet.case_index()[np.asarray(codes, np.int64)]
    stakes = np.asarray(stakes, float)
    if not rules.commission.rounded:
        per_unit = np.array([float(net) for net in line_nets(bet, rules)])
        return line, per_unit[line] * stakes
    nets = np.empty(len(stakes))
    distinct, where = np.unique(stakes, return_inverse=True)
    for k, stake in enumerate(distinct):
        per_unit = np.array([float(net) for net in line_nets(bet, rules, str(stake))])
        chosen = where == k
        nets[chosen] = per_unit[line[chosen]] * stake
    return line, nets
