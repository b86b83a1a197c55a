"""The rules of play (issue 2), tested exhaustively against the rule sheets.

The drawing tableau below is transcribed by hand from the rule sheets in
``shared/rulesheets/``:

* ``live-8deck-side-bets.txt`` ("Third Card Rules": Player, and the Banker table
  "Banker Receives Third Card when Player's Third Card Has Point" / "Banker Stands
  when ..."),
* ``rng-6deck-single-hand.txt`` ("Third card rule": "Hit when the third card of
  player is" / "Does not hit when ..."; Note 1 and Note 2),
* ``online-commission-rounding.txt`` ("If Player has 2 cards" / "If Player has 3
  cards: (Third Card Rule)"),
* ``classic-6deck.txt`` ("Third Card Rules": "Draw if the player's third card is"
  / "Does not draw if ...").

The four sheets print the same tableau, cell for cell (checked by reading each
one; the fifth sheet, ``live-8deck-dragon-tiger.txt``, prints no tableau). Every
sheet gives both the "draws" and the "stands" column, so both are transcribed
and the transcription is checked to be a partition of the ten point values
before it is used as the reference.
"""

import numpy as np
import pytest

from baccarat_sim.model import cards
from baccarat_sim.model.cards import RANK_POINTS, card_point, parse_cards
from baccarat_sim.model.shoe import shoe_composition
from baccarat_sim.model.tableau import BANKER_DRAWS, PLAYER_DRAWS, banker_draws, hand_score, is_natural, player_draws

ALL_POINTS = frozenset(range(10))

#: Player, two-card total -> "draw" / "stand" / "natural" (all four sheets:
#: 0-5 draw, 6-7 stand, 8-9 natural).
PLAYER_TABLE = {
    0: "draw", 1: "draw", 2: "draw", 3: "draw", 4: "draw", 5: "draw",
    6: "stand", 7: "stand",
    8: "natural", 9: "natural",
}  # fmt: skip

#: Banker, two-card total -> (points of the Player's third card on which the
#: Banker draws, points on which the Banker stands), as printed in the sheets.
BANKER_TABLE_PLAYER_DREW = {
    0: ({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, set()),  # "0, 1, 2 | always draws"
    1: ({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, set()),
    2: ({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, set()),
    3: ({0, 1, 2, 3, 4, 5, 6, 7, 9}, {8}),
    4: ({2, 3, 4, 5, 6, 7}, {0, 1, 8, 9}),
    5: ({4, 5, 6, 7}, {0, 1, 2, 3, 8, 9}),
    6: ({6, 7}, {0, 1, 2, 3, 4, 5, 8, 9}),
    7: (set(), {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}),  # "always stands"
}

#: Banker, two-card total -> draws when the Player stood (on 6 or 7): "the Banker
#: hand will receive a third card on a score of 5 or less" (live sheet), "will
#: only draw a third card with a total of five or less" (RNG sheet, Note 2),
#: "0-5 Draws, 6-9 Stands" (online sheet), "can hit on a total of 5 or less"
#: (classic sheet).
BANKER_TABLE_PLAYER_STOOD = {0: True, 1: True, 2: True, 3: True, 4: True, 5: True, 6: False, 7: False}


def test_transcription_is_a_partition():
    # Each row of the transcribed table must split the ten point values into
    # "draws" and "stands" with nothing missing and nothing twice.
    assert sorted(BANKER_TABLE_PLAYER_DREW) == list(range(8))
    for total, (draws, stands) in BANKER_TABLE_PLAYER_DREW.items():
        assert not draws & stands, total
        assert draws | stands == ALL_POINTS, total


@pytest.mark.parametrize("total", range(10))
def test_player_rule_every_total(total):
    expected = PLAYER_TABLE[total]
    assert is_natural(total) == (expected == "natural")
    if expected != "natural":
        assert player_draws(total) == (expected == "draw")
        assert PLAYER_DRAWS[total] == (expected == "draw")
    else:
        # Naturals never consult the table; it must still not say "draw".
        assert PLAYER_DRAWS[total] == 0


@pytest.mark.parametrize("banker_total", range(8))
@pytest.mark.parametrize("player_third", [None, *range(10)])
def test_banker_rule_every_cell(banker_total, player_third):
    """All 8 x 11 cells: Banker two-card total 0-7 x (Player stood, or third card 0-9)."""
    if player_third is None:
        expected = BANKER_TABLE_PLAYER_STOOD[banker_total]
        column = 0
    else:
        draws, stands = BANKER_TABLE_PLAYER_DREW[banker_total]
        expected = player_third in draws
        assert expected != (player_third in stands)
        column = 1 + player_third
    assert banker_draws(banker_total, player_third) is expected
    assert BANKER_DRAWS[banker_total, column] == int(expected)


def test_banker_table_shape_and_natural_rows():
    assert BANKER_DRAWS.shape == (10, 11)
    assert PLAYER_DRAWS.shape == (10,)
    # Rows 8 and 9 are naturals: "they must both stand" (classic sheet); the
    # engines settle naturals before reading the table, but a stray 1 here
    # would still be a wrong rule.
    assert not BANKER_DRAWS[8:].any()
    assert set(np.unique(BANKER_DRAWS)) <= {0, 1}


def test_tables_are_read_only():
    # The numba kernels freeze these as compile-time constants; a write would
    # silently desynchronise the Python rules from compiled ones.
    for table in (RANK_POINTS, PLAYER_DRAWS, BANKER_DRAWS):
        with pytest.raises(ValueError, match="read-only"):
            table[0] = 1 - table[0]


def test_rank_points():
    # "Aces count as 1 point. Cards 2 through 9 are worth their face value. Tens
    # and face cards (Jack, Queen and King) are worth 0 points." (live sheet)
    expected = {"A": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9,
                "10": 0, "J": 0, "Q": 0, "K": 0}  # fmt: skip
    assert cards.RANK_NAMES == tuple(expected)
    assert list(RANK_POINTS) == list(expected.values())


@pytest.mark.parametrize("card", range(52))
def test_card_point_every_card(card):
    rank, suit = divmod(card, 4)
    assert 0 <= suit < cards.N_SUITS
    assert card_point(card) == RANK_POINTS[rank]


@pytest.mark.parametrize(
    ("points", "score"),
    [
        ([8, 9], 7),  # live sheet: "Banker has an 8 and a 9, the total is 17 and the score becomes 7"
        ([7, 6], 3),  # RNG and classic sheets: "7+6=13 ... 3"
        ([4, 6], 0),  # classic sheet: "4 + 6 = 10 (point value: 0)"
        ([9, 9, 3], 1),  # online sheet: "21 - digit in tens position = 1 point"
        ([0, 0], 0),
        ([9, 0], 9),
        ([5], 5),
    ],
)
def test_hand_score(points, score):
    assert hand_score(points) == score


def test_natural_means_two_card_eight_or_nine():
    assert [t for t in range(10) if is_natural(t)] == [8, 9]


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("6,6,7", [("point", 6), ("point", 6), ("point", 7)]),
        ("0", [("point", 0)]),
        ("1", [("point", 1)]),  # a bare digit is a point value, not the Ace
        ("K,As,0", [("rank", 12), ("card", 0 * 4 + 0), ("point", 0)]),
        ("A,10,J,Q,K", [("rank", 0), ("rank", 9), ("rank", 10), ("rank", 11), ("rank", 12)]),
        ("T,t", [("rank", 9), ("rank", 9)]),  # T is the 10, as card players write it
        ("Qh, 10d ,2c", [("card", 11 * 4 + 1), ("card", 9 * 4 + 2), ("card", 1 * 4 + 3)]),
        ("qh,ks", [("card", 11 * 4 + 1), ("card", 12 * 4 + 0)]),  # case-insensitive
    ],
)
def test_parse_cards(text, parsed):
    assert parse_cards(text) == parsed


@pytest.mark.parametrize("bad", ["X", "14", "Qz", "1x", "AA", "Zs", "6,B", "10hh", "-1",
                                 "11", "12", "13"])  # 11/12/13 are refused, not read as J/Q/K (issue 16)
def test_parse_cards_rejects(bad):
    with pytest.raises(ValueError, match="cannot read"):
        parse_cards(bad)


@pytest.mark.parametrize("bad", ["6,,7", "6,7,", ",6", ""])
def test_parse_cards_refuses_an_empty_item(bad):  # issue 16: "6,,7" is a typo, not two cards
    with pytest.raises(ValueError, match="empty item"):
        parse_cards(bad)


def test_parse_cards_names_every_exact_card():
    names = [f"{rank}{suit}" for rank in cards.RANK_NAMES for suit in cards.SUIT_NAMES]
    assert parse_cards(",".join(names)) == [("card", c) for c in range(52)]


@pytest.mark.parametrize("decks", [1, 6, 8, 16, np.int64(2)])
def test_shoe_composition(decks):
    shoe = shoe_composition(decks)
    assert shoe.shape == (13, 4)
    assert shoe.dtype == np.int64
    assert (shoe == decks).all()
    assert shoe.sum() == 52 * decks


@pytest.mark.parametrize("bad", [0, -1, True, 2.0, "8", None, 17])
def test_shoe_composition_errors(bad):
    with pytest.raises(ValueError, match="decks: must be a whole number from 1 to 16"):
        shoe_composition(bad)
