"""Which cells of a card detail can happen: the enumeration without weights against the counts, by card and by rank.

:func:`baccarat_sim.engines.detail.detail_of_group` (every rule set with
card-level bets, as it loads) reads which (combination, outcome) cells of a
group can happen on the universal shoe, six cards of every id, from
:func:`~baccarat_sim.engines.detail.group_reach`: by card, a shoe of one or two
ids of each kind of card and an enumeration that records the states of the
first four cards, not their weights; by rank (a group whose by-card table is
large), the cells of positive weight of the rank-wise count on 8 decks. Here
both are held to the cells of positive weight of the by-card count on the
universal shoe, cell by cell, with the same atom bits, and the rank-wise count
on the universal shoe to the by-card count, integer by integer, for every group
of every shipped rule set (the catalogue included; each bet's group counted by
code prefix where it may be, and by every code) and for generated conditions.
"""

from __future__ import annotations

import numpy as np
import pytest

from baccarat_sim.engines.detail import UNIVERSAL_SHOE, group_reach, plan_groups
from baccarat_sim.engines.rankwise import rankwise_weights
from baccarat_sim.model.conditions import compile_condition
from baccarat_sim.model.rules import available_rules, load_rules

from .test_cardlevel_exact import GENERATED_SEED, Generated
from .test_rankwise import _rows, by_card_reach_rows, by_card_rows

#: Generated conditions reading cards, the first drawn with the seed of the generated bets' brute-force test. (The
#: next one reads seven atoms whose count on the universal shoe takes 20 CPU-seconds.)
GENERATED_CARD_LEVEL = 12


def assert_reach_is_positive_weight(atoms: tuple, outcomes: str) -> None:
    """The cells :func:`group_reach` finds are the universal shoe's cells of positive weight, by rank and by card."""
    try:
        by_card = by_card_rows(atoms, UNIVERSAL_SHOE, outcomes, lanes=1)
    except ValueError as error:  # more than the by-card enumeration holds: refused alike
        with pytest.raises(ValueError, match=str(error)[:40]):
            by_card_reach_rows(atoms, outcomes)
        return
    by_rank = rankwise_weights(atoms, UNIVERSAL_SHOE, outcomes)
    np.testing.assert_array_equal(by_rank[0], by_card[0])
    np.testing.assert_array_equal(by_rank[1], by_card[1])
    for reach, distinct in (group_reach(atoms, outcomes), group_reach(atoms, outcomes, count="rank")):
        bits, rows = _rows(reach.astype(np.int64), distinct)
        np.testing.assert_array_equal(bits, by_card[0])
        np.testing.assert_array_equal(rows > 0, by_card[1] > 0)
    bits, reach = by_card_reach_rows(atoms, outcomes)
    np.testing.assert_array_equal(bits, by_card[0])
    np.testing.assert_array_equal(reach, by_card[1] > 0)


def assert_every_group(rules) -> int:
    """Every group of the rule set's bets, in both plans; how many groups."""
    atoms = {atom.text: atom for bet in rules.bets for atom in bet.atoms}
    groups = {group for codes in (False, True) for group in plan_groups(rules.bets, codes)}
    for outcomes, texts in sorted(groups):
        assert_reach_is_positive_weight(tuple(atoms[text] for text in texts), outcomes)
    return len(groups)


@pytest.mark.parametrize("name", available_rules())
def test_every_group_of_every_shipped_rule_set(name):
    rules = load_rules(name)
    assert (assert_every_group(rules) > 0) == any(bet.card_level for bet in rules.bets)


def test_generated_conditions():
    generator = Generated(np.random.default_rng(GENERATED_SEED))
    compared = 0
    while compared < GENERATED_CARD_LEVEL:
        condition = compile_condition(generator.condition()[0])
        if condition.card_level:
            for outcomes in ("prefixes", "codes"):
                assert_reach_is_positive_weight(tuple(condition.atoms), outcomes)
            compared += 1
