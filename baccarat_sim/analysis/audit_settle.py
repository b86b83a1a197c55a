"""What the pay table gives for logged bets: each bet's line and net result, from the settlement layer.

A logged bet is settled on its round's outcome code (:func:`~baccarat_sim.analysis.audit_rounds.resolve_rounds`)
by its bet's pay table: the line is :meth:`~baccarat_sim.model.paytable.Bet.case_index` of the code, and the net
result per unit staked is :func:`~baccarat_sim.analysis.settlement.line_nets` of that line, worked out for the
bet's stake where the rule set rounds the commission. Vectorised: one lookup per bet, one settlement per distinct
stake.
"""

from __future__ import annotations

import numpy as np

from ..model.cardlevel import NONE, POSITIONS
from ..model.codes import N_SUFFIXES
from ..model.detail import OUTCOMES
from ..model.rules import Rules
from .settlement import line_nets

__all__ = ["card_level_lines", "expected_nets", "line_names", "settles_on_codes"]


def settles_on_codes(rules: Rules, bet_id: str) -> bool:
    """Whether a bet is settled on the outcome code alone (a card-level bet reads the cards' detail too)."""
    return not rules.bet(bet_id).card_level


def _atom_values(atom, cards: np.ndarray) -> np.ndarray | None:
    """An atom for every round (cards ``(n, 6)``, -1 none), from its tables; None for one that reads poker values."""
    if atom.derived:
        return None
    index = np.zeros(len(cards), np.int64)
    for j, (position, stride) in enumerate(zip(atom.positions, atom.strides)):
        column = cards[:, POSITIONS.index(position)].astype(np.int64)
        index += atom.projection[j, np.where(column >= 0, column, NONE)] * stride
    return atom.truth[index]


def card_level_lines(hist, rules: Rules, bet_id: str, codes: np.ndarray, cards: np.ndarray) -> np.ndarray | None:
    """The line of a card-level bet for every round: its card detail's cell read off the cards, then the pay table.

    ``hist``: a histogram of the rule set's card detail (the exact engine's). None where an atom of the bet reads
    poker values (not read from the tables here).
    """
    bet = rules.bet(bet_id)
    detail = hist.view([bet]).detail
    bits = np.zeros(len(codes), np.int64)
    for i, atom in enumerate(detail.atoms):
        values = _atom_values(atom, cards)
        if values is None:
            return None
        bits |= values.astype(np.int64) << i
    pattern_bits = (detail.patterns.astype(np.int64) << np.arange(detail.patterns.shape[1])).sum(axis=1)
    order = np.argsort(pattern_bits)
    where = np.minimum(np.searchsorted(pattern_bits[order], bits), len(order) - 1)
    if (pattern_bits[order][where] != bits).any():
        raise ValueError(f"internal error: bet {bet_id}: cards whose card detail the exact engine did not find")
    outcome = codes if detail.outcomes == "codes" else np.asarray(codes) // N_SUFFIXES
    cell = order[where] * OUTCOMES[detail.outcomes] + outcome
    return bet.case_index(detail)[cell]


def line_names(rules: Rules, bet_id: str) -> tuple[str, ...]:
    """The names of a bet's lines, ``otherwise`` last."""
    bet = rules.bet(bet_id)
    return tuple(case.name or case.when for case in bet.cases) + (bet.otherwise.name or "otherwise",)


def expected_nets(rules: Rules, bet_id: str, codes: np.ndarray, stakes: np.ndarray,
                  lines: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The pay table's line and net result (in money) of each bet.

    Parameters
    ----------
    rules : Rules
    bet_id : str
        A bet settled on the outcome code (:func:`settles_on_codes`), or any bet with ``lines`` given.
    codes : ndarray(int64, shape=(n,))
        The outcome code of each bet's round.
    stakes : ndarray(float64, shape=(n,))
        Each bet's stake.
    lines : ndarray(int64, shape=(n,)) or None
        The line of each bet where the caller worked it out (a card-level bet: :func:`card_level_lines`).

    Returns
    -------
    (ndarray(int64), ndarray(float64))
        The line that settles each bet (``len(cases)``: ``otherwise``) and the net result the pay table gives.
    """
    bet = rules.bet(bet_id)
    line = bet.case_index()[np.asarray(codes, np.int64)] if lines is None else lines
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
