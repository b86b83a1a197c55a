"""What leaked card information is worth: the player's exact edge from cards classified before betting.

A player who can tell something about some cards of a round before betting
(edge sorting: a card's group from a defect on its back; a flashed or exposed
card) sees an *observation pattern*: the class of the card at each observed
position. For each pattern this module gives its probability, the exact EV of
every bet of the rule set given that pattern (side bets included), the best
action (a bet, or sitting out) and its edge; over all rounds, the player's
edge (a sat-out round counts 0) and how often each action is taken.

Positions (:data:`POSITIONS`): the first four cards ``P1 B1 P2 B2`` in
dealing order, the fifth and sixth cards ``C5 C6`` (the third cards: the
fifth goes to the Player if it draws, else to the Banker; the sixth to the
Banker after a Player third card), ``next`` (the next card out of the shoe:
the round's first card, ``P1``), and two cards that are *not* in the part
dealt: ``burn`` (a burned card shown, in a dealt shoe that burns) and
``bottom`` (the bottom card, behind the cut card of a dealt shoe). A known
card off the round simply leaves the shoe the round is dealt from.

Groupings (:class:`~baccarat_sim.analysis.groupings.Grouping`): by point value (e.g. Jacobson's High =
{6, 7, 8, 9}, Low the rest: :func:`high_low`), by rank, any partition
(:func:`parse_groups`), or each card its own class (exact knowledge:
:func:`each`). One grouping applies to every observed position.

Exact: the kernel counts every ordered six-card sequence in integers
(:mod:`baccarat_sim.kernels.leak`), and every probability, EV and edge here is
a :class:`fractions.Fraction`. Card-level bets (suits, colours, ranks of given
cards, poker values) are counted by the exact card-detail count that prices
them everywhere, the observation joined to their conditions as atoms
(:mod:`baccarat_sim.analysis.leak_cards`): an undealt fifth or sixth card seen,
like a card off the round, is priced on the shoe without it, once per card it
can be. Bets are settled line by line through their pay
tables (:meth:`baccarat_sim.model.rules.Bet.case_index`), with the nominal
commission rate. Ties are broken deterministically: the player sits out unless
some bet has a positive EV, and of equal best bets takes the first in the rule
set's order.

This module gathers the analysis's public names: the groupings
(:mod:`baccarat_sim.analysis.groupings`), the value of a leak
(:func:`leak_value`, :func:`exposed_card`: :mod:`baccarat_sim.analysis.leak_value`)
and, here, the best two-group sort of the point values (:func:`optimal_sort`).

Limits (checked, each a one-line :class:`~baccarat_sim.errors.InputError`):
``C5`` and ``C6`` are classified by point value only (the outcome depends on
them only through their point values, and the kernel resolves the third cards
by point value); at most one card off the round; at most
:data:`MAX_PATTERNS` observation patterns; card-level bets only where the cost
model puts their pricings (the observation's atoms beside their conditions,
once per card an undealt or off-round card seen can be) within its limits
(:class:`~baccarat_sim.errors.InvalidRules` naming the bet and the predicted
cost, before any pricing).

Examples
--------
Jacobson's one sorted card (8 decks, High = {6, 7, 8, 9}): Banker on Low,
Player on High, a 6.765% edge.

>>> from baccarat_sim.model.rules import load_rules
>>> result = leak_value(load_rules("default"), ["P1"], high_low([6, 7, 8, 9]))
>>> f"{float(result.player_edge):.3%}", [(row.label, row.best_action) for row in result.rows]
('6.765%', [('L', 'banker'), ('H', 'player')])
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import numpy as np

from ..errors import InputError
from ..model.rules import Rules
from ..model.shoe import as_shoe
from .groupings import Grouping, each, high_low, parse_groups
from .leak_value import (
    ALIASES,
    MAX_PATTERNS,
    OFF_ROUND_POSITIONS,
    POSITIONS,
    SIT_OUT,
    LeakResult,
    PatternResult,
    card_level_leak,
    exposed_card,
    in_round_table,
    leak_value,
    resolve_positions,
    settlement_lines,
)

__all__ = [
    "ALIASES",
    "MAX_PATTERNS",
    "OFF_ROUND_POSITIONS",
    "POSITIONS",
    "SIT_OUT",
    "Grouping",
    "LeakResult",
    "OptimalSort",
    "PatternResult",
    "SortCandidate",
    "each",
    "exposed_card",
    "high_low",
    "leak_value",
    "optimal_sort",
    "parse_groups",
    "resolve_positions",
]


@dataclasses.dataclass(frozen=True)
class SortCandidate:
    """One two-group split of the point values and the player's edge with it."""

    grouping: Grouping
    player_edge: Fraction


@dataclasses.dataclass(frozen=True)
class OptimalSort:
    """The best split of the ten point values into two sorting groups.

    Attributes
    ----------
    positions : tuple of str
    searched : int
        High groups searched: every non-empty set of point values (1023,
        as Roach counted them; a set and its complement are the same split,
        so 511 distinct splits tell the player something and one, everything
        High, tells nothing).
    candidates : tuple of SortCandidate
        The best distinct splits, best first (exact edges).
    best : LeakResult
        The full analysis of the best split.
    """

    positions: tuple[str, ...]
    searched: int
    candidates: tuple[SortCandidate, ...]
    best: LeakResult



def _value_digits(n_positions: int) -> np.ndarray:
    """The point value at each position of every pattern index of an every-value table."""
    index = np.arange(10 ** n_positions)
    return np.stack([(index // 10 ** (n_positions - 1 - i)) % 10 for i in range(n_positions)])


def optimal_sort(rules: Rules, positions=("P1", "B1", "P2", "B2"), shoe=None, top: int = 10) -> OptimalSort:
    """The best split of the ten point values into two sorting groups, over all 1023 High groups.

    One kernel run counts every tuple of point values at the positions
    (10^4 for four); each split is then an aggregation of that table. Every
    split is screened in floating point, and the best are recomputed exactly
    (so the order of the candidates is exact).

    Parameters
    ----------
    positions : sequence of str
        One to four positions of the round (``P1 B1 P2 B2 C5 C6``).
    top : int
        Distinct splits to report.

    Examples
    --------
    >>> from baccarat_sim.model.rules import load_rules
    >>> found = optimal_sort(load_rules("default"), ["P1"], top=2)
    >>> [(c.grouping.member_names(1), f"{float(c.player_edge):.3%}") for c in found.candidates]
    [(('6', '7', '8', '9'), '6.765%'), (('7', '8', '9'), '6.478%')]
    """
    positions = resolve_positions(rules, positions, each("value"))
    if any(p in OFF_ROUND_POSITIONS for p in positions):
        raise InputError("positions", "the optimal sort searches groupings of cards in the round (P1, B1, P2, B2, "
                                      "C5, C6), not of a card off it")
    if not 1 <= len(positions) <= 4:
        raise InputError("positions", f"the optimal sort takes one to four positions, got {len(positions)}")
    if top < 1:
        raise InputError("top", f"must be at least 1, got {top}")
    composition = as_shoe(rules.shoe.decks if shoe is None else shoe)
    lines = settlement_lines(rules)
    classes = each("value").card_classes()
    cards = card_level_leak(rules, positions, classes, 10, lines, [composition])
    table = in_round_table(composition, positions, classes, lines, 10, cards)
    total = int(table[:, lines.first_bet_columns].sum())
    numerators = table.astype(float) @ lines.scaled.astype(float)  # screening only
    digits = _value_digits(len(positions))
    place = 2 ** np.arange(len(positions) - 1, -1, -1)[:, None]
    screened = []
    for mask in range(1, 1024):
        high_bits = np.array([(mask >> v) & 1 for v in range(10)])
        pattern = (high_bits[digits] * place).sum(axis=0)
        summed = np.stack([np.bincount(pattern, numerators[:, b], minlength=2 ** len(positions))
                           for b in range(numerators.shape[1])], axis=1)
        screened.append((float(np.maximum(summed.max(axis=1), 0).sum()), mask))
    screened.sort(key=lambda item: (-item[0], item[1]))
    # Distinct splits: a High group and its complement sort the same way; name the group without 0 High.
    distinct, seen = [], set()
    for _, mask in screened:
        high = mask if not mask & 1 else 1023 & ~mask
        if high == 0 or high in seen:
            continue
        seen.add(high)
        distinct.append(high)
    exact = []
    for high in distinct[: top + 8]:  # a margin: float ties or near-ties are settled exactly
        grouping = high_low([v for v in range(10) if (high >> v) & 1])
        high_bits = np.array([(high >> v) & 1 for v in range(10)])
        pattern = (high_bits[digits] * place).sum(axis=0)
        summed = np.zeros((2 ** len(positions), lines.n_columns), np.int64)
        np.add.at(summed, pattern, table)
        nums = summed.astype(object).dot(lines.scaled)
        edge = Fraction(sum(max(max(int(n) for n in row), 0) for row in nums), lines.denominator * total)
        exact.append(SortCandidate(grouping, edge))
    exact.sort(key=lambda c: (-c.player_edge, c.grouping.groups[1]))
    candidates = tuple(exact[:top])
    best = leak_value(rules, positions, candidates[0].grouping, composition)
    return OptimalSort(positions, 1023, candidates, best)
