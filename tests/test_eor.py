"""Effects of removal, derived counting tags and betting correlations (issue 7).

Reference numbers:

* Wizard of Odds, "Card Counting the Lucky 6 Bet in Baccarat"
  (https://wizardofodds.com/games/baccarat/counting-lucky-6/): the effect of removing one card of each point value
  from a full 8-deck shoe on the Lucky 6 (12 to 1 two-card, 23 to 1 three-card Banker 6) EV, to six decimals, the
  effects times 3274 rounded (the level-2 count) and the level-1/level-2 trigger true counts +7 and +48.
* excelpunks, "Concepts 16: Baccarat - Effects of Card Removal"
  (https://excelpunks.com/concepts-16-baccarat-effects-of-card-removal/): the effect of removing one, two and three
  cards of a rank from a full 8-deck shoe on the probability that the Player bet wins, to ten decimals.
"""

from fractions import Fraction

import numpy as np
import pytest

from baccarat_sim.analysis.eor import betting_correlation, break_even_true_count, derive_tags, effect_of_removal
from baccarat_sim.analysis.settlement import settle_bet
from baccarat_sim.engines.exact import exact_histogram
from baccarat_sim.model.cards import RANK_NAMES
from baccarat_sim.model.conditions import feature_table
from baccarat_sim.model.rules import load_rules, parse_rules
from baccarat_sim.model.shoe import as_shoe
from baccarat_sim.report.eor import eor_dict, eor_table, tag_lines


@pytest.fixture(scope="module")
def variants():
    """EORs of every bet of the common-variants rule set (main bets, pairs, bonus, Lucky 6 12/23, Big/Small)."""
    return effect_of_removal(load_rules("common-variants"))


@pytest.mark.parametrize("name", ["live-8deck-side-bets", "live-8deck-dragon-tiger"])
def test_effects_of_removal_sum_to_zero_for_every_bet(name):
    eor = effect_of_removal(load_rules(name))
    for bet_id in eor.bet_ids:
        # Removing a card at random leaves every EV unchanged: exactly, in Fractions.
        assert eor.balance(bet_id) == 0, bet_id
        assert eor.balance(bet_id, by="value") == 0, bet_id


def test_balance_holds_for_the_variants(variants):
    for bet_id in variants.bet_ids:
        assert variants.balance(bet_id) == 0 and variants.balance(bet_id, "value") == 0, bet_id


def test_balance_and_suit_weighting_in_an_uneven_shoe():
    # Suits of unequal size: the EOR of a rank is the suit-count-weighted mean of removing each suit.
    rules = load_rules("live-8deck-dragon-tiger").with_bets(["player", "dragon"])
    shoe = as_shoe(1).copy()
    shoe[0, 0] += 2  # two more aces of spades
    shoe[12, 3] -= 1  # no king of clubs
    shoe[5, :2] += 1
    eor = effect_of_removal(rules, shoe)
    for bet_id in eor.bet_ids:
        assert eor.balance(bet_id) == 0 and eor.balance(bet_id, "value") == 0
    base = settle_bet(exact_histogram(shoe), rules.bet("dragon"), rules).ev_exact
    by_suit = []
    for suit in range(4):
        removed = shoe.copy()
        removed[0, suit] -= 1
        by_suit.append(int(shoe[0, suit]) * (settle_bet(exact_histogram(removed), rules.bet("dragon"), rules).ev_exact
                                             - base))
    assert eor.by_rank["dragon"][0] == sum(by_suit) / int(shoe[0].sum())


# Wizard of Odds, Card Counting the Lucky 6 Bet in Baccarat: EOR of point values 0..9 and the rounded x3274 column.
WIZARD_LUCKY6_EOR = [-0.000611, -0.000329, -0.000323, -0.001131, -0.000393, -0.000278, -0.005386, 0.003907,
                     0.003537, 0.002838]
WIZARD_LUCKY6_LEVEL2 = [-2, -1, -1, -4, -1, -1, -18, 13, 12, 9]


def test_lucky6_effects_of_removal_match_wizard_of_odds(variants):
    ours = [float(e) for e in variants.by_value["lucky_six_12_23"]]
    assert ours == pytest.approx(WIZARD_LUCKY6_EOR, abs=5e-7)  # published to six decimals
    assert [round(3274 * e) for e in ours] == WIZARD_LUCKY6_LEVEL2
    assert float(variants.base["lucky_six_12_23"]) == pytest.approx(-0.1170, abs=5e-5)  # "house edge of 11.70%"


def rank_tags(by_value):
    """Tags of Ace..King from tags of point values 0..9."""
    return [by_value[(r + 1) % 10] if r < 9 else by_value[0] for r in range(13)]


def test_lucky6_published_triggers_are_the_break_even_true_counts(variants):
    level1 = rank_tags([0, 0, 0, 0, 0, 0, -3, 1, 1, 1])
    level2 = rank_tags(WIZARD_LUCKY6_LEVEL2)
    # The published triggers +7 and +48 are the linear break-even true counts (6.65 and 48.8 by least squares of
    # the EORs on the tags; 48.0 from the x3274 scale the level-2 tags were rounded from) to within one point.
    assert break_even_true_count(variants, "lucky_six_12_23", level1) == pytest.approx(7, abs=1)
    assert break_even_true_count(variants, "lucky_six_12_23", level2) == pytest.approx(48, abs=1)
    effects = [float(e) for e in variants.by_rank["lucky_six_12_23"]]
    counts = variants.rank_counts
    assert betting_correlation(level2, effects, counts) > betting_correlation(level1, effects, counts) > 0.9


# excelpunks, Concepts 16: change in P(Player wins) when 1, 2 and 3 cards of a rank leave a full 8-deck shoe.
EXCELPUNKS_PLAYER_WIN = {
    "4": (-0.0000435175, -0.0000870460, -0.0001305855),
    "10": (-0.0000373810, -0.0000749287, -0.0001126377),
    "J": (-0.0000373810, -0.0000749287, -0.0001126377),
    "Q": (-0.0000373810, -0.0000749287, -0.0001126377),
    "K": (-0.0000373810, -0.0000749287, -0.0001126377),
    "A": (-0.0000295798, -0.0000594307, -0.0000895596),
}

PLAYER_WINS = """
schema_version = 1
id = "player-wins"
[[bets]]
id = "player_wins"
pays = [{ when = "winner == player", pays = "1:1" }]
otherwise = "lose"
"""


def test_player_win_probability_effects_match_the_published_table():
    rules = parse_rules(PLAYER_WINS)
    eor = effect_of_removal(rules)
    for rank_name, published in EXCELPUNKS_PLAYER_WIN.items():
        rank = RANK_NAMES.index(rank_name)
        # The bet wins 1 or loses 1: its EV is 2 P(win) - 1, so its EOR is twice the change in P(win).
        assert float(eor.by_rank["player_wins"][rank]) / 2 == pytest.approx(published[0], abs=1e-10), rank_name
        winner = feature_table()["winner"]
        base = exact_histogram(8)
        p0 = Fraction(int(base.counts[winner == 0].sum()), base.total)
        for removed in (2, 3):
            shoe = as_shoe(8).copy()
            shoe[rank, :removed] -= 1
            hist = exact_histogram(shoe)
            change = Fraction(int(hist.counts[winner == 0].sum()), hist.total) - p0
            assert float(change) == pytest.approx(published[removed - 1], abs=1e-10), (rank_name, removed)


def test_player_and_banker_count_opposite_cards(variants):
    player = derive_tags(variants, "player", level=1)
    banker = derive_tags(variants, "banker", level=1)
    # Small cards leaving help the Banker, 5-8 leaving help the Player; 9 and the tens are too weak to tag.
    assert player.as_dict() == {"0": 0, "1": -1, "2": -1, "3": -1, "4": -1, "5": 1, "6": 1, "7": 1, "8": 1, "9": 0}
    assert banker.tags == tuple(-t for t in player.tags)
    for tags in (player, banker):
        assert tags.betting_correlation > 0.9
        assert tags.break_even_true_count > 15  # the main bets are countable only in theory


@pytest.mark.parametrize("bet_id", ["player", "tie", "player_bonus", "lucky_six_12_23", "big"])
@pytest.mark.parametrize("level", [1, 2, 3])
def test_derived_tags_are_balanced_and_bounded(variants, bet_id, level):
    tags = derive_tags(variants, bet_id, level=level)
    counts = variants.rank_counts
    assert int(np.dot(tags.tags, counts)) == 0  # balanced: a full shoe counts to zero
    assert max(abs(t) for t in tags.tags) <= level
    effects = [float(e) for e in variants.by_rank[bet_id]]
    assert tags.betting_correlation == pytest.approx(betting_correlation(tags.tags, effects, counts))
    assert 0.5 < tags.betting_correlation <= 1.0


def test_higher_levels_approach_perfect_correlation(variants):
    correlations = [derive_tags(variants, "lucky_six_12_23", level).betting_correlation for level in (1, 3, 18)]
    assert correlations[0] < correlations[2] and correlations[2] > 0.999


def test_pair_bets_have_no_linear_count_in_a_full_shoe(variants):
    # Every rank is equally common, so removing any one card changes a pair bet the same way: by zero.
    assert set(variants.by_rank["any_pair"]) == {0}
    with pytest.raises(ValueError, match="every effect of removal is zero"):
        derive_tags(variants, "any_pair")
    # In an uneven shoe the same bet has a count: the scarce rank pairs less, and removing it helps.
    shoe = as_shoe(8).copy()
    shoe[4, :] -= 6  # 8 fives left, 32 of every other rank
    uneven = effect_of_removal(load_rules("common-variants").with_bets(["any_pair"]), shoe)
    assert uneven.by_rank["any_pair"][4] > 0 > uneven.by_rank["any_pair"][0]
    with pytest.raises(ValueError, match="no balanced level-2 tags"):
        derive_tags(uneven, "any_pair", level=2, by="rank")  # 8 t5 + 32 (others) = 0 needs t5 = 4
    tags = derive_tags(uneven, "any_pair", level=4, by="rank")
    assert tags.tags[4] == 4 and tags.betting_correlation > 0.85


def test_tables_and_json(variants):
    # Issue 16: the table and the tag lines name and order the card values alike: A..9, then T.
    table = eor_table(variants)
    assert list(table.index) == ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T"]
    assert list(table.columns) == list(variants.bet_ids)
    assert table.loc["6", "lucky_six_12_23"] == pytest.approx(-0.005386, abs=5e-7)
    assert table.loc["T", "player"] == pytest.approx(float(variants.by_value["player"][0]))
    by_rank = eor_table(variants, by="rank")
    assert list(by_rank.index) == list(RANK_NAMES)
    doc = eor_dict(variants)
    assert set(doc["bets"]["player"]["eor"]) == {str(v) for v in range(10)}  # the JSON keeps point values 0-9
    for line in tag_lines(variants):
        if "level" in line and " A" in line:
            assert line.split("level")[1].split(":", 1)[1].split()[0].startswith("A")
    with pytest.raises(ValueError, match="by: must be value or rank"):
        derive_tags(variants, "player", by="suit")
