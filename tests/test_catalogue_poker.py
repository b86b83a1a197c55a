"""The catalogue's poker bets (issue 22, section 5): Jackpot Baccarat, Dragon Dragon and Lucky Match, row by row.

Wizard of Odds' tables, 8 decks: Jackpot Baccarat counts unordered four-card sets out of C(416, 4) = 1,229,930,520;
Dragon Dragon and Lucky Match count ordered six-card deals out of 416 x 415 x ... x 411. Dragon Dragon pays "for
one" and its return is "0.318146+x+y", x and y the jackpot's terms: its RTP at a meter of 0 and the slope of its RTP
in the meter are checked against the published counts.
"""

import math
from fractions import Fraction

import pytest

from baccarat_sim.analysis.settlement_jackpot import jackpot_figures
from baccarat_sim.engines.detail import rules_detail
from baccarat_sim.engines.exact import exact_histogram
from baccarat_sim.model.rules import load_rules
from baccarat_sim.tables import breakdown

T = math.perm(416, 6)
FOUR_CARD = 24 * 412 * 411  # six-card deals per unordered set of the first four cards


@pytest.fixture(scope="module")
def rules():
    return load_rules("catalogue-poker")


@pytest.fixture(scope="module")
def hist(rules):
    return exact_histogram(8, rules_detail(rules))


def counts(hist, rules, bet_id):
    table = breakdown(hist, bet_id, rules)
    return {event: int(n) for event, n in zip(table["event"], table["combinations"])}


def test_jackpot_baccarat_reproduces_the_published_table_row_by_row(hist, rules):
    published = {"Mini royal": 16_384, "Four of a kind": 467_480, "Straight flush": 163_840,
                 "Three of a kind": 24_760_320, "Flush": 17_929_088, "Straight": 11_354_112, "Two pair": 18_944_640,
                 "Pair of aces": 33_048_576, "Pair 10's to K's": 132_194_304, "Loser": 991_051_776,
                 "total": 1_229_930_520}
    assert {event: n // FOUR_CARD for event, n in counts(hist, rules, "jackpot_baccarat").items()} == published
    assert all(n % FOUR_CARD == 0 for n in counts(hist, rules, "jackpot_baccarat").values())


def test_dragon_dragon_reproduces_the_counts_and_0_318146_plus_the_jackpot_terms(hist, rules):
    published = {"Six of a kind": 5_872_124_160, "Five of a kind": 351_070_863_360,
                 "Double three of a kind": 616_417_689_600, "Four of a kind": 12_273_961_559_040,
                 "Three of a kind out of four cards": 32_896_683_048_960, "Loser": 4_952_254_270_218_240, "total": T}
    six, five = published["Six of a kind"], published["Five of a kind"]
    for stake in (1, 2, 5):
        bet_id = f"dragon_dragon_{stake}"
        assert counts(hist, rules, bet_id) == published
        figures = jackpot_figures(hist, bet_id, rules)
        amounts = (250, 50, 25) if stake in (1, 2) else (300, 60, 30)  # for one, per unit staked
        fixed = zip(amounts, ("Double three of a kind", "Four of a kind", "Three of a kind out of four cards"))
        assert figures.base == sum(Fraction(a * published[event], T) for a, event in fixed)
        assert figures.slope == (Fraction(six, T) + Fraction(five, 10 * T)) / stake  # a meter in dollars
        assert figures.reset is None and figures.meter == 0 and figures.break_even_meter is not None
    base = jackpot_figures(hist, "dragon_dragon_1", rules).base
    assert abs(base - Fraction("0.318146")) <= Fraction(5, 10**7)  # "0.318146+x+y"


def test_lucky_match_reproduces_the_published_table_row_by_row(hist, rules):
    published = {"Five or six of a kind": 356_942_987_520, "Double triplets": 616_417_689_600,
                 "Four of a kind": 12_273_961_559_040, "Full house": 40_022_630_768_640,
                 "Three of a kind": 207_858_985_697_280, "Two or three pairs": 385_294_498_430_976,
                 # printed 4,351,974,838,370,300: Wizard of Odds' formatting drops the last digits
                 "Loser": 4_351_974_838_370_304, "total": T}
    assert counts(hist, rules, "lucky_match") == published
