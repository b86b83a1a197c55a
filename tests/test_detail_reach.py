"""Which cells of a card detail can happen: the enumeration without weights against the counts it replaced.

:func:`baccarat_sim.engines.detail.detail_of_group` (every rule set with
card-level bets, as it loads) reads which (combination, outcome) cells of a
group can happen on the universal shoe, six cards of every id, from
:func:`~baccarat_sim.engines.detail.group_reach`: a shoe of one or two ids of
each kind of card and an enumeration that records the states of the first
four cards, not their weights. Until it, the cells were those of positive
weight in the exact count on the universal shoe
(:func:`~baccarat_sim.engines.detail.group_weights`). Here the two are held
equal, cell by cell, with the same tables of bits, for every group of every
shipped rule set (the catalogue included; each bet's group counted by code
prefix where it may be, and by every code) and for generated conditions.
"""

from __future__ import annotations

import numpy as np
import pytest

from baccarat_sim.engines.detail import UNIVERSAL_SHOE, group_reach, group_weights, plan_groups
from baccarat_sim.model.conditions import compile_condition
from baccarat_sim.model.rules import available_rules, load_rules

from .test_cardlevel_exact import GENERATED_SEED, Generated

#: Generated conditions reading cards, the first drawn with the seed of the generated bets' brute-force test. (The
#: next one reads seven atoms whose count on the universal shoe takes 20 CPU-seconds.)
GENERATED_CARD_LEVEL = 12


def assert_reach_is_positive_weight(atoms: tuple, outcomes: str) -> None:
    """The cells :func:`group_reach` finds are the universal shoe's cells of positive weight, with the same bits."""
    try:
        weights, weights_bits = group_weights(atoms, UNIVERSAL_SHOE, outcomes, lanes=1)
    except ValueError as error:  # more than the enumeration holds: refused alike
        with pytest.raises(ValueError, match=str(error)[:40]):
            group_reach(atoms, outcomes)
        return
    reach, reach_bits = group_reach(atoms, outcomes)
    assert len(reach_bits) == len(weights_bits)
    for ours, theirs in zip(reach_bits, weights_bits):
        np.testing.assert_array_equal(ours, theirs)
    np.testing.assert_array_equal(reach, weights > 0)


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
