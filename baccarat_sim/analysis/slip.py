"""A bet slip played every round: its exact one-round law and its net result per outcome code.

The settlement layer decides everything about a slip: the table limits and
the rules on combining bets (:func:`~baccarat_sim.analysis.table_limits.check_limits`),
each bet's pay-table line for every outcome (``Bet.case_index``) and the net
of each line, with the commission rounded for the stake where the rule set
rounds it (``online-commission-rounding``); the slip's net on each combination
of lines is :func:`~baccarat_sim.analysis.joint.slip_nets`. This module only
groups the exact combination weights of a fresh shoe by net result, giving
the integer weights the lattice sums (:mod:`baccarat_sim.analysis.lattice`)
and the exact session sampler need.
The result is checked, value for value, against
:func:`~baccarat_sim.analysis.joint.settle_slip`, which rounds the
commission for the stake the same way.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import numpy as np

from ..engines.detail import GroupError, joint_detail
from ..engines.exact import exact_histogram
from ..errors import InputError, InternalError
from ..model.detail import CardDetail
from ..model.rules import Rules
from ..model.shoe import as_shoe
from .joint import joint_lines, settle_slip, slip_nets
from .one_round import OneRound, one_round
from .table_limits import slip_stakes

__all__ = ["Slip", "build_slip"]


@dataclasses.dataclass(frozen=True, eq=False)
class Slip:
    """A bet slip on a rule set and shoe, settled once for all.

    Attributes
    ----------
    rules : Rules
        The rule set (its shoe model says whether rounds are dealt from fresh shoes).
    stakes : dict of str to Fraction
        Stake per staked bet, in the rule set's chips (bets staked 0 are left out).
    total_stake : Fraction
        Handle of one round: what the slip puts on the table.
    player : OneRound
        Exact law of the player's net result of one round from a freshly
        shuffled shoe, integer weights (card orderings); ``cost`` is
        ``total_stake``.
    code_steps : ndarray(int64, shape=(n_cells,))
        Net result of each histogram cell (outcome code, per card detail when
        a staked bet reads cards) in lattice units of ``player`` (0 for cells
        the shoe cannot deal), for dealing kernels.
    composition : ndarray(int64, shape=(13, 4))
        The shoe before shuffling.
    rounded_commission : bool
        Whether a staked bet's commission is rounded for its stake (so the
        slip's law differs from the nominal commission's).
    """

    rules: Rules
    stakes: dict
    total_stake: Fraction
    player: OneRound
    code_steps: np.ndarray
    composition: np.ndarray
    rounded_commission: bool
    #: The card detail of the staked bets that read cards (None: outcome codes alone).
    detail: CardDetail | None = None

    @property
    def model(self) -> str:
        """``"fresh"`` or ``"dealt"``: the rule set's shoe model."""
        return self.rules.shoe.model

    @property
    def unit(self) -> Fraction:
        """Lattice unit of the net results (chips)."""
        return self.player.unit

    @property
    def house_edge(self) -> Fraction:
        """Expected house result per unit of handle, exact."""
        return -self.player.mean / self.total_stake

    @property
    def bets_with_max_round(self) -> tuple[tuple[str, int], ...]:
        """Staked bets offered only up to a round of the shoe (Max Round Availability): (bet id, round)."""
        return tuple((bet_id, self.rules.bet(bet_id).max_round) for bet_id in self.stakes
                     if self.rules.bet(bet_id).max_round is not None)


def build_slip(rules: Rules, stakes: dict, shoe=None, *, check: bool = True) -> Slip:
    """Settle a bet slip for every outcome and weigh it over a freshly shuffled shoe.

    Parameters
    ----------
    rules : Rules
    stakes : dict of str to number
        Stake per bet id in chips (``{"banker": 100, "player": 50}``); stakes
        of 0 are left out.
    shoe : int or ndarray(int64, shape=(13, 4)) or None
        Decks or a composition (a depleted shoe); default the rule set's decks.
    check : bool
        Check the slip against the rule set's table limits
        (:func:`~baccarat_sim.analysis.table_limits.check_limits`).

    Returns
    -------
    Slip

    Raises
    ------
    LimitError
        A bet not in the rule set, a negative stake, a stake outside the table limits.

    Examples
    --------
    >>> from baccarat_sim import load_rules
    >>> slip = build_slip(load_rules("default"), {"banker": 100, "player": 50})
    >>> slip.player.values, slip.unit, slip.total_stake
    ((Fraction(-50, 1), Fraction(0, 1), Fraction(45, 1)), Fraction(5, 1), Fraction(150, 1))
    """
    amounts = slip_stakes(rules, stakes, check)
    staked = {bet_id: stake for bet_id, stake in amounts.items() if stake}
    if not staked:
        raise InputError("stakes", "every stake is 0")
    composition = as_shoe(rules.shoe.decks if shoe is None else shoe)
    bets = [rules.bet(bet_id) for bet_id in staked]
    # Bets on the cards themselves (suits, third cards, ...) are settled on the card detail they read, all of
    # them together (one group, with every outcome code).
    detail = joint_detail(rules, [bet.id for bet in bets])
    try:
        hist = exact_histogram(composition, detail)
    except GroupError as error:  # refused before its work: one line naming the bets
        raise error.naming(rules) from None
    # The joint pay-table line of every outcome code, and the slip's net for each combination of lines
    # (a handful): stake times the line's net per unit, the commission rounded for that stake where the rule
    # set rounds it.
    groups, inverse = joint_lines(bets, detail)
    group_net = slip_nets(groups, bets, rules, list(staked.values()))
    # The combination weights of the fresh shoe, grouped by net result. (This reads the histogram's counts per
    # outcome code: the one place here that depends on the code space.)
    weights = np.zeros(len(groups), np.int64)
    np.add.at(weights, inverse, hist.counts)
    by_net: dict[Fraction, int] = {}
    for net, weight in zip(group_net, weights):
        if weight:
            by_net[net] = by_net.get(net, 0) + int(weight)
    total_stake = sum(staked.values(), Fraction(0))
    player = one_round(list(by_net), list(by_net.values()), cost=total_stake)
    rounded = rules.commission.rounded and any(case.commission for bet in bets for case in (*bet.cases, bet.otherwise))
    _check_against_settlement(player, hist, rules, staked)
    unit = player.unit
    steps_of_group = np.array([int(net / unit) if (net / unit).denominator == 1 else 0 for net in group_net],
                              dtype=np.int64)
    code_steps = steps_of_group[inverse]
    code_steps.setflags(write=False)
    return Slip(rules, staked, total_stake, player, code_steps, composition, rounded, detail)


def _check_against_settlement(player: OneRound, hist, rules: Rules, staked: dict) -> None:
    """The slip's law must be ``settle_slip``'s, value for value (it is, unless the code above has a bug)."""
    slip = settle_slip(hist, rules, staked, check=False)
    ours = tuple((value, weight / player.total) for value, weight in zip(player.values, player.weights))
    if ours != tuple(slip.distribution) or player.mean != slip.ev_exact:
        raise InternalError(f"the slip's one-round law disagrees with settle_slip for {staked}")
