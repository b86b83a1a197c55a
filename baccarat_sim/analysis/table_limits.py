"""Table limits: whether a bet slip may be staked at a rule set's table.

The limits of a rule file (``[limits]``): the minimum bet, each bet's maximum
as a multiple of it, the Player/Banker rules (a cap on their difference, equal
stakes, a minimum difference), bets that count as another (``counts_as``) or
exclude each other (``exclusive``), side bets only with a main bet, and whole
numbers of lowest chips where the commission is rounded. Every broken limit is
one :class:`~baccarat_sim.errors.LimitError` naming its rule-file key.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ..errors import LimitError
from ..model.amounts import amount_text
from ..model.rules import Rules

__all__ = ["check_limits", "check_priced_stake", "slip_stakes", "stake_amount"]


def stake_amount(value, key: str) -> Fraction:
    """A stake as an exact amount (a float at the decimal it prints as), or a :class:`LimitError` naming ``key``."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str, Fraction, np.integer, np.floating)):
        raise LimitError("", f"{key}: a stake must be a number, got {value!r}")
    try:
        return Fraction(str(value)) if not isinstance(value, Fraction) else value
    except (ValueError, ZeroDivisionError):
        raise LimitError("", f"{key}: a stake must be a number, got {value!r}") from None


def check_priced_stake(rules: Rules, bet_id: str, stake: Fraction) -> None:
    """A bet priced for one stake (flat ``amounts``, a meter in money) is staked at that stake, or not at all.

    Its pay table is per unit staked *at its stake*: the amounts of another
    stake level, and a meter in money shared out over another stake, give
    another table, so scaling it would price a bet nobody offers (issue 41,
    item 17).

    Raises
    ------
    LimitError
        Naming the bet's ``stake`` and the stake levels its amounts give.
    """
    bet = rules.bet(bet_id)
    if bet.stake is None or not stake or stake == bet.stake:
        return
    levels = ", ".join(amount_text(level) for level in bet.amount_stakes)
    others = [other.id for other in rules.bets if other.id != bet_id and other.stake == stake
              and other.amount_stakes == bet.amount_stakes and [c.when for c in other.cases] == [
                  c.when for c in bet.cases]]
    what = (f"its amounts are for stakes {levels}" if levels else "its jackpot meter counts money per stake of "
            f"{amount_text(bet.stake)}")
    hint = (f": bet {others[0]} is priced for {amount_text(stake)}" if others
            else f": stake it {amount_text(bet.stake)}")
    raise LimitError("", f"stakes.{bet_id}: a stake of {amount_text(stake)} on {bet_id}, a bet priced for a stake "
                         f"of {amount_text(bet.stake)} (bets.{bet_id}.stake; {what}){hint}")


def slip_stakes(rules: Rules, stakes: dict, check: bool = True) -> dict[str, Fraction]:
    """A slip's stakes as exact amounts: the table limits checked (``check``), each bet at a stake it prices.

    Raises
    ------
    LimitError
        A limit broken (:func:`check_limits`), or a stake a bet does not price (:func:`check_priced_stake`).
    """
    amounts = check_limits(rules, stakes) if check else {k: stake_amount(v, f"stakes.{k}") for k, v in stakes.items()}
    for bet_id, stake in amounts.items():
        if bet_id in rules.bet_ids:
            check_priced_stake(rules, bet_id, stake)
    return amounts


def check_limits(rules: Rules, stakes: dict) -> dict[str, Fraction]:
    """Check a bet slip against the rule set's table limits.

    Parameters
    ----------
    rules : Rules
    stakes : dict of str to number
        Stake per bet id, an amount in the table's money (the unit of
        ``limits.min_bet``); 0 means not staked.

    Returns
    -------
    dict of str to Fraction
        The stakes as exact amounts.

    Raises
    ------
    LimitError
        Naming the limit broken (its rule-file key) and the rule set.

    Notes
    -----
    A stake on a bet that ``limits.counts_as`` another (live-8deck-side-bets:
    the No Commission Banker counts as the Banker) counts towards that bet's
    maximum and the Player/Banker rules; bets of one ``limits.exclusive`` group
    (the Traditional and No Commission Banker bets) may not be staked together.
    Where the commission is rounded to a part of the lowest chip, every stake
    must be a whole number of lowest chips.

    Examples
    --------
    >>> from baccarat_sim import load_rules
    >>> check_limits(load_rules("rng-6deck-single-hand"), {"tie": 20})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    baccarat_sim.errors.LimitError: limits.max_bet.tie: a stake of 20 on tie is over the limit of 15x the minimum ...
    """
    limits = rules.limits
    where = f"in {rules.id}"
    if not isinstance(stakes, dict) or not stakes:
        raise LimitError("stakes", "give at least one bet id and its stake")
    amounts = {}
    chip = rules.commission.lowest_chip if rules.commission.rounded else None
    for bet_id, raw in stakes.items():
        if bet_id not in rules.bet_ids:
            raise LimitError("", f"stakes.{bet_id}: no such bet {where}; bets: {', '.join(rules.bet_ids)}")
        amounts[bet_id] = stake = stake_amount(raw, f"stakes.{bet_id}")
        if stake < 0:
            raise LimitError("", f"stakes.{bet_id}: a stake must be >= 0, got {amount_text(stake)}")
        if 0 < stake < limits.min_bet:
            raise LimitError("", f"limits.min_bet: a stake of {amount_text(stake)} on {bet_id} is below the minimum "
                             f"bet ({amount_text(limits.min_bet)}) {where}")
        if chip is not None and stake % chip:
            raise LimitError("", f"commission.lowest_chip: a stake of {amount_text(stake)} on {bet_id} is not a whole "
                             f"number of lowest chips ({amount_text(chip)}) {where}")
    if not any(amounts.values()):
        raise LimitError("stakes", "every stake is 0")
    for group in limits.exclusive:
        both = [bet_id for bet_id in group if amounts.get(bet_id)]
        if len(both) > 1:
            names = " or ".join(f"{rules.bet(bet_id).name!r}" for bet_id in both)
            raise LimitError("", f"limits.exclusive: {' and '.join(both)} are alternatives ({names}): a slip may "
                             f"stake only one of them {where}")
    # What each bet's limits see: its own stake plus the stakes that count as it.
    counted: dict[str, Fraction] = {}
    for bet_id, stake in amounts.items():
        counted[limits.counted_as(bet_id)] = counted.get(limits.counted_as(bet_id), Fraction(0)) + stake
    player, banker = counted.get("player", Fraction(0)), counted.get("banker", Fraction(0))
    difference_rule = limits.player_banker_limit == "difference"

    def stake_text(bet_id: str) -> str:
        parts = [other for other, stake in amounts.items() if stake and limits.counted_as(other) == bet_id]
        return bet_id if parts in ([bet_id], []) else f"{' + '.join(parts)} (counted as {bet_id})"

    # Each bet's maximum caps its own stake, and the stakes counted as it together.
    capped = [(bet_id, stake, bet_id) for bet_id, stake in amounts.items()]
    capped += [(bet_id, amount, stake_text(bet_id)) for bet_id, amount in counted.items()
               if amount != amounts.get(bet_id)]
    for bet_id, amount, on in capped:
        maximum = limits.max_for(bet_id)
        if maximum is None or (difference_rule and bet_id in ("player", "banker")):
            continue
        if amount > maximum * limits.min_bet:
            raise LimitError("", f"limits.max_bet.{bet_id}: a stake of {amount_text(amount)} on {on} is over the limit "
                             f"of {amount_text(maximum)}x the minimum bet ({amount_text(maximum * limits.min_bet)}) "
                             f"{where}")
    if difference_rule:
        cap = min(limits.max_for("player"), limits.max_for("banker")) * limits.min_bet
        if abs(player - banker) > cap:
            counted_too = any(limits.counted_as(b) != b and limits.counted_as(b) in ("player", "banker") and stake
                              for b, stake in amounts.items())
            both = (f"{amount_text(player)} on {stake_text('player')} and {amount_text(banker)} on "
                    f"{stake_text('banker')}" if counted_too else f"{amount_text(player)} and {amount_text(banker)}")
            raise LimitError("", f"limits.player_banker_limit: the Player and Banker stakes ({both}) differ by "
                             f"{amount_text(abs(player - banker))}, over the limit of {amount_text(cap)} on their "
                             f"difference {where}")
    if player and banker:
        if not limits.equal_player_banker and player == banker:
            raise LimitError("", f"limits.equal_player_banker: the same amount ({amount_text(player)}) may not be "
                             f"staked on Player and Banker {where}")
        gap = limits.player_banker_min_difference * limits.min_bet
        if abs(player - banker) < gap:
            raise LimitError("", f"limits.player_banker_min_difference: the Player and Banker stakes must differ by at "
                             f"least {amount_text(gap)}, got {amount_text(player)} and {amount_text(banker)} {where}")
    if limits.side_bets_need_main_bet:
        main = any(stake and rules.bet(bet_id).group == "main" for bet_id, stake in amounts.items())
        side = [bet_id for bet_id, stake in amounts.items() if stake and rules.bet(bet_id).group == "side"]
        if side and not main:
            raise LimitError("", f"limits.side_bets_need_main_bet: {', '.join(side)} may only be staked with a main "
                             f"bet {where}")
    return amounts
