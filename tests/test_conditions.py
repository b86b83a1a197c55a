"""The condition grammar, the outcome features and which outcomes can happen (issue 3)."""

from pathlib import Path

import numpy as np
import pytest

from baccarat_sim.engines.exact import exact_histogram
from baccarat_sim.errors import ConditionError
from baccarat_sim.model.codes import N_CODES, decode, encode
from baccarat_sim.model.conditions import FEATURES, evaluate, feature_table, possible_codes

GRID = decode(np.arange(N_CODES))
PS, BS = GRID["player_score"], GRID["banker_score"]
README = Path(__file__).resolve().parents[1] / "baccarat_sim" / "rulesets" / "README.md"


def code(ps, bs, pc=2, bc=2, pp=0, bp=0, fc=0):
    return int(encode(ps, bs, pc - 2, bc - 2, pp, bp, fc))


def test_features_from_first_principles():
    t = feature_table()
    assert np.array_equal(t["winner"], np.select([PS > BS, BS > PS], [0, 1], 2))
    assert np.array_equal(t["margin"], np.abs(PS - BS))
    assert np.array_equal(t["winner_score"], np.maximum(PS, BS))
    assert np.array_equal(t["loser_score"], np.minimum(PS, BS))
    # A natural is a two-card 8 or 9: a three-card 9 is not one.
    assert t["player_natural"][code(9, 0)] == 1 and t["player_natural"][code(9, 0, pc=3)] == 0
    assert t["banker_natural"][code(0, 8)] == 1 and t["banker_natural"][code(0, 7)] == 0
    assert t["winner_natural"][code(9, 8)] == 1 and t["winner_natural"][code(9, 8, pc=3)] == 0
    assert t["total_cards"][code(1, 1, 3, 3)] == 6
    assert t["player_perfect_pair"][code(0, 0, pp=2)] == 1 and t["player_perfect_pair"][code(0, 0, pp=1)] == 0
    assert t["player_pair"][code(0, 0, pp=2)] == 1  # a perfect pair is a pair too
    assert t["any_pair"][code(0, 0, bp=1)] == 1
    assert t["first_card_tie"][code(0, 0, fc=3)] == 1 and t["first_card_tie"][code(0, 0, fc=1)] == 0
    assert set(t) == set(FEATURES)
    for name, (_, _symbols, (low, high)) in FEATURES.items():
        assert t[name].min() >= low and t[name].max() <= high, name
        assert not t[name].flags.writeable


@pytest.mark.parametrize(
    "condition, expected",
    [
        ("winner == banker", BS > PS),
        ("winner != tie", PS != BS),
        ("player_score >= 8 and player_cards == 2", (PS >= 8) & (GRID["player_cards"] == 0)),
        # "and" binds tighter than "or"
        ("winner == tie or winner == banker and banker_score == 6", (PS == BS) | ((BS > PS) & (BS == 6))),
        ("(winner == tie or winner == banker) and banker_score == 6", (PS <= BS) & (BS == 6)),
        ("not not winner == player", PS > BS),
        ("not winner == player", PS <= BS),
        ("first_card in [tie, suited_tie]", GRID["first_card"] >= 2),
        ("banker_score in [6]", BS == 6),
        ("player_pair", GRID["player_pair"] > 0),
        ("true", np.ones(N_CODES, bool)),
        ("false", np.zeros(N_CODES, bool)),
        ("  margin>=4 and winner==player ", (np.abs(PS - BS) >= 4) & (PS > BS)),  # spaces are optional around operators
    ],
)
def test_grammar(condition, expected):
    assert np.array_equal(evaluate(condition), expected)


@pytest.mark.parametrize(
    "condition, message",
    [
        ("plyer_pair", "unknown feature 'plyer_pair' in 'plyer_pair'; did you mean 'player_pair'?"),
        ("", "empty condition"),
        ("winner ==", "condition ends too early"),
        ("winner == banker banker_score == 6", "unexpected 'banker_score'"),
        ("(winner == banker", "condition ends too early"),
        ("winner == dragon", "winner cannot be 'dragon' in 'winner == dragon'; allowed: player, banker, tie"),
        ("player_score == 10", "player_score takes values 0 to 9, not 10"),
        ("player_score == -1", "unexpected character '-'"),
        ("winner == banker; import os", "unexpected character ';'"),
        ("first_card in [tie,", "condition ends too early"),
        ("== 3", "expected a feature name but found '=='"),
    ],
)
def test_errors_say_what_is_wrong(condition, message):
    with pytest.raises(ConditionError) as info:
        evaluate(condition)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_not_a_string():
    with pytest.raises(ConditionError, match="must be a string"):
        evaluate(3)


def test_masks_are_cached_and_read_only():
    first = evaluate("winner == banker and banker_score == 6")
    assert evaluate("winner == banker and banker_score == 6") is first
    with pytest.raises(ValueError):
        first[0] = True


@pytest.mark.parametrize("decks", [4, 6, 8])
def test_possible_codes_are_exactly_what_a_shoe_deals(decks):
    # Worked out from the drawing rules alone; the exact engine counts every six-card ordering.
    assert np.array_equal(possible_codes(), exact_histogram(decks).counts > 0)


def test_small_shoes_deal_fewer_codes():
    # One deck has no two identical cards: no perfect pair, no suited first-card tie.
    one = exact_histogram(1).counts > 0
    assert not (one & ~possible_codes()).any()
    assert not one[evaluate("player_perfect_pair or banker_perfect_pair or first_card == suited_tie")].any()


def test_some_impossible_outcomes():
    possible = possible_codes()
    # A natural stops the deal: the other hand cannot have three cards.
    assert not (possible & evaluate("banker_natural and player_cards == 3")).any()
    # Two equal cards make an even total: a two-card pair never scores 9 (nor 7).
    assert not (possible & evaluate("player_pair and player_cards == 2 and player_score in [7, 9]")).any()
    # A Player who stands on 6 or 7 leaves a Banker on 0-5 drawing.
    assert not (possible & evaluate("player_cards == 2 and player_score == 6 and banker_cards == 2 "
                                    "and banker_score <= 5")).any()
    assert possible[code(6, 5, 2, 3)]


def test_readme_documents_every_feature():
    text = README.read_text()
    missing = [name for name in FEATURES if f"`{name}`" not in text]
    assert not missing, f"baccarat_sim/rulesets/README.md does not document {missing}"
