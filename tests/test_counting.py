"""Card-counting simulations through dealt shoes, strategies as data (issue 7).

Reference: Wizard of Odds, "Card Counting the Lucky 6 Bet in Baccarat"
(https://wizardofodds.com/games/baccarat/counting-lucky-6/), 8 decks, Lucky 6 paying 12 to 1 (two-card) and 23 to 1
(three-card): level-1 count (6: -3, 7-9: +1, bet at true count +7): bet 3.09% of hands, average advantage 6.27% per
bet, 80.1 hands and 0.155 units won per shoe; level-2 count (EORs x 3274, rounded; +48): 4.13%, 7.00%, 0.23 units.
80.1 hands per shoe is what a burn by the face value of a turned card and a cut card 16 cards from the end deal; the
published bet frequency and edge are those of a counter who does not count the turned card (counting it adds a
little information: about 3.15% and 6.4%, 4 standard errors away at 200,000 shoes).
"""

import numpy as np
import pandas as pd
import pytest

from baccarat_sim.analysis.counting import count_simulation
from baccarat_sim.analysis.eor import derive_tags, effect_of_removal
from baccarat_sim.engines.simulation import simulate
from baccarat_sim.errors import InvalidStrategy
from baccarat_sim.model.rules import CutCard, load_rules, parse_rules
from baccarat_sim.model.strategy import available_strategies, load_strategy, parse_strategy
from baccarat_sim.report.counting import count_dict, count_frame, count_markdown, count_text

from .run_helpers import MANY_THREADS


@pytest.fixture(scope="module")
def wizard_rules():
    """Las Vegas Lucky 6 dealt as the Wizard of Odds figures assume: face-value burn, cut card 16 from the end."""
    return load_rules("common-variants").with_shoe(model="dealt", burn="face_value", cut_card=CutCard(16, 16))


def z(value, reference, se):
    return (value - reference) / se


def test_lucky6_level1_count_matches_wizard_of_odds(wizard_rules):
    result = count_simulation(wizard_rules, load_strategy("lucky6-wizard-level1"), 40_000, seed=2024)
    row = count_frame(result).iloc[0]
    assert row["rounds_per_shoe"] == pytest.approx(80.1, abs=0.05)
    checks = {
        "bet frequency": z(row["bet_share"], 0.0309, row["bet_share_se"]),
        "exact edge per bet": z(row["exact_advantage_per_bet"], 0.0627, row["exact_advantage_se"]),
        "measured edge per bet": z(row["advantage_per_bet"], 0.0627, row["advantage_se"]),
        "units per shoe": z(row["units_per_shoe"], 0.155, row["units_per_shoe_se"]),
    }
    # Within the 95% CI at this seed; 3 standard errors leaves room for a change of the dealing stream.
    assert all(abs(v) < 3 for v in checks.values()), checks


def test_lucky6_level2_count_matches_wizard_of_odds(wizard_rules):
    result = count_simulation(wizard_rules, load_strategy("lucky6-wizard-level2"), 200_000, seed=2024)
    row = count_frame(result).iloc[0]
    checks = {
        "bet frequency": z(row["bet_share"], 0.0413, row["bet_share_se"]),
        "exact edge per bet": z(row["exact_advantage_per_bet"], 0.0700, row["exact_advantage_se"]),
        "units per shoe": z(row["units_per_shoe"], 0.23, row["units_per_shoe_se"]),
    }
    assert all(abs(v) < 3 for v in checks.values()), checks


MIXED_STRATEGY = """
schema_version = 1
id = "mixed"
cut_cards = [52, [90, 110]]
[counts.l6]
tags = { "6" = -3, "7" = 1, "8" = 1, "9" = 1 }
[[bets]]
id = "lucky_six"
play = "count"
count = "l6"
true_count = 4
[[bets]]
id = "player_pair"
play = "perfect"
[[bets]]
id = "tie"
play = "always"
"""


@pytest.fixture(scope="module")
def side_bets():
    return load_rules("live-8deck-side-bets")


def test_results_do_not_depend_on_threads(side_bets):
    strategy = parse_strategy(MIXED_STRATEGY)
    one = count_simulation(side_bets, strategy, 70, seed=99, threads=1)
    two = count_simulation(side_bets, strategy, 70, seed=99, threads=MANY_THREADS)
    pd.testing.assert_frame_equal(count_frame(one), count_frame(two), check_exact=True)
    other = count_simulation(side_bets, strategy, 70, seed=100, threads=MANY_THREADS)
    assert not count_frame(one)["units_per_shoe"].equals(count_frame(other)["units_per_shoe"])


def test_rule_set_scenario_deals_the_monte_carlo_engines_rounds(side_bets):
    flat = parse_strategy('schema_version = 1\nid = "flat"\ncut_cards = [60]\n[[bets]]\nid = "tie"\nplay = "always"')
    hist = simulate(side_bets, 8_000, seed=5, model="dealt", by_position=False)
    result = count_simulation(side_bets, flat, hist.shoes, seed=5, record_codes=True)
    # Same seed, same blocks of 16 shoes: the very same rounds as the Monte Carlo engine, moved cut card or not.
    assert np.array_equal(result.codes, hist.counts)
    alone = count_simulation(side_bets, flat, hist.shoes, seed=5, cut_cards=[])
    first = count_frame(result)[count_frame(result)["cut_card_from_end"] == "14"].reset_index(drop=True)
    pd.testing.assert_frame_equal(first, count_frame(alone), check_exact=True)


def test_flat_betting_reproduces_the_house_edge(side_bets):
    flat = parse_strategy('schema_version = 1\nid = "flat"\n[[bets]]\nid = "*"\nplay = "always"')
    result = count_simulation(side_bets.with_bets(["banker", "tie", "player_pair", "lucky_six", "player_bonus"]),
                              flat, 1_000, seed=11)
    every_round = count_frame(result)[count_frame(result)["variant"] == "all rounds"]
    for _, row in every_round.iterrows():
        assert row["bet_share"] == 1.0
        assert abs(z(row["advantage_per_bet"], row["ev_off_the_top"], row["advantage_se"])) < 4, row["bet"]
        # The EV of the next round, averaged over every round dealt, is the off-the-top EV (a martingale).
        assert abs(z(row["exact_advantage_per_bet"], row["ev_off_the_top"], row["exact_advantage_se"])) < 4, row["bet"]


def test_perfect_play_bets_only_with_an_edge(side_bets):
    strategy = parse_strategy("""
schema_version = 1
id = "perfect"
[[bets]]
id = "lucky_six"
play = "perfect"
[[bets]]
id = "any_pair"
play = "perfect"
min_edge = 0.05
""")
    result = count_simulation(side_bets, strategy, 800, seed=3)
    rows = count_frame(result).set_index(["bet", "variant"])
    lucky = rows.loc[("lucky_six", "all rounds")]
    pairs = rows.loc[("any_pair", "all rounds")]
    assert lucky["bets"] > 0 and lucky["exact_advantage_per_bet"] > 0
    assert pairs["bets"] > 0 and pairs["exact_advantage_per_bet"] > 0.05
    for row in (lucky, pairs):
        assert abs(z(row["advantage_per_bet"], row["exact_advantage_per_bet"], row["advantage_se"])) < 4


def test_max_round_availability_and_moved_cut_cards(side_bets):
    strategy = parse_strategy(MIXED_STRATEGY)
    result = count_simulation(side_bets, strategy, 400, seed=8)
    t = count_frame(result)
    pairs = t[t["bet"] == "player_pair"].set_index(["cut_card_from_end", "variant"])
    for cut in ("14", "52", "90-110"):
        capped = pairs.loc[(cut, "rounds 1-60")]
        full = pairs.loc[(cut, "all rounds")]
        assert capped["offered"] <= 60 * capped["shoes"] and capped["offered"] < full["offered"] == full["rounds"]
        assert capped["bets"] <= full["bets"]
    per_shoe = t.groupby("cut_card_from_end")["rounds_per_shoe"].first()
    assert per_shoe["14"] > per_shoe["52"] > per_shoe["90-110"]  # a cut card further from the end deals less
    assert len(t) == 3 * (2 + 2 + 1)  # lucky_six and player_pair have a max round, the tie none


def test_a_bet_offered_only_in_the_first_round():
    rules = parse_rules("""
schema_version = 1
id = "first-round-only"
[shoe]
decks = 8
shuffle = "dealt"
[[bets]]
id = "tie"
pays = [{ when = "winner == tie", pays = "8:1" }]
otherwise = "lose"
max_round = 1
""")
    flat = parse_strategy('schema_version = 1\nid = "flat"\n[[bets]]\nid = "tie"\nplay = "always"')
    capped = count_frame(count_simulation(rules, flat, 50, seed=1)).set_index("variant").loc["rounds 1-1"]
    assert capped["offered"] == capped["bets"] == 50


def test_derived_count_with_break_even_trigger(side_bets):
    strategy = load_strategy("lucky6-derived")
    result = count_simulation(side_bets, strategy, 48, seed=4)
    tags = derive_tags(effect_of_removal(side_bets, bets=["lucky_six"]), "lucky_six", level=2)
    assert result.derived["derived"] == tags
    assert result.tags["derived"] == tuple(float(t) for t in tags.tags for _suit in range(4))  # per card id
    assert f"TC >= {tags.break_even_true_count:.4g}" in count_frame(result)["play"].iloc[0]
    doc = count_dict(result)
    assert doc["counts"]["derived"]["betting_correlation"] == pytest.approx(tags.betting_correlation)
    assert {"run", "counts", "results"} <= set(doc)
    assert len(doc["results"][0]["units_per_shoe_ci95"]) == 2
    assert "derived" in count_text(result) and count_markdown(result).startswith("## Counting")


@pytest.mark.parametrize("name, rules_name", [
    ("perfect-play", "live-8deck-dragon-tiger"),
    ("lucky6-wizard-level1", "common-variants"),
    ("lucky6-wizard-level2", "common-variants"),
    ("lucky6-derived", "live-8deck-side-bets"),
])
def test_shipped_strategies_run(name, rules_name):
    assert name in available_strategies()
    result = count_simulation(load_rules(rules_name), load_strategy(name), 16, seed=1)
    assert (count_frame(result)["shoes"] == 16).all() and result.run["strategy"] == name


BAD = [
    ("id = 'x'\n[[bets]]\nid = 'tie'\nplay = 'always'", "schema_version: must be 1"),
    ("schema_version = 1\nid = 'x'\ncolour = 1\n[[bets]]\nid = 'tie'\nplay = 'always'", "colour: unknown key"),
    ("schema_version = 1\nid = 'x'\n[[bets]]\nid = 'tie'\nplay = 'sometimes'", "bets[0].play: must be one of"),
    ("schema_version = 1\nid = 'x'\n[[bets]]\nid = 'tie'\nplay = 'count'\ncount = 'c'\ntrue_count = 1",
     "bets.tie.count: must name a [counts.NAME] table"),
    ("schema_version = 1\nid = 'x'\n[counts.c]\ntags = { '6' = 1 }\n[[bets]]\nid = 'tie'\nplay = 'count'\n"
     "count = 'c'\ntrue_count = 1\nrunning_count = 2", "bets.tie: give exactly one of true_count"),
    ("schema_version = 1\nid = 'x'\n[counts.c]\ntags = { 'X' = 1 }\n[[bets]]\nid = 'tie'\nplay = 'count'\n"
     "count = 'c'\ntrue_count = 1", "counts.c.tags.X: must be a point value 0-9, a rank"),
    ("schema_version = 1\nid = 'x'\n[[bets]]\nid = 'tie'\nplay = 'always'\nmin_edge = 0.1",
     "bets.tie.min_edge: only goes with play = \"perfect\""),
    ("schema_version = 1\nid = 'x'\ncut_cards = [[20, 10]]\n[[bets]]\nid = 'tie'\nplay = 'always'",
     "cut_cards[0]: low must not exceed high"),
    ("schema_version = 1\nid = 'x'\n[[bets]]\nid = 'tie'\nplay = 'always'\n[[bets]]\nid = 'tie'\nplay = 'always'",
     "bets.tie: listed twice"),
    ("schema_version = 1\nid = 'x'\n[[bets", "malformed TOML"),
]


@pytest.mark.parametrize("text, message", BAD)
def test_bad_strategies_name_the_key(text, message):
    with pytest.raises(InvalidStrategy, match=message.replace("[", r"\[").replace("(", r"\(")):
        parse_strategy(text, "bad.toml")


def test_strategy_and_rule_set_must_fit(side_bets):
    unknown = parse_strategy("schema_version = 1\nid = 'x'\n[[bets]]\nid = 'dragon'\nplay = 'always'", "s.toml")
    with pytest.raises(InvalidStrategy, match="s.toml: bets.dragon: no such bet in rule set 'live-8deck-side-bets'"):
        count_simulation(side_bets, unknown, 1, seed=1)
    auto = parse_strategy("schema_version = 1\nid = 'x'\n[counts.c]\ntags = { '6' = 1 }\n[[bets]]\nid = 'tie'\n"
                          "play = 'count'\ncount = 'c'\ntrue_count = 'auto'", "s.toml")
    with pytest.raises(InvalidStrategy, match="\"auto\" needs a derived count"):
        count_simulation(side_bets, auto, 1, seed=1)
    zero = parse_strategy("schema_version = 1\nid = 'x'\n[counts.c]\nderive = { bet = 'any_pair' }\n[[bets]]\n"
                          "id = 'any_pair'\nplay = 'count'\ncount = 'c'\ntrue_count = 1", "s.toml")
    with pytest.raises(InvalidStrategy, match="counts.c.derive: .*every effect of removal is zero"):
        count_simulation(side_bets, zero, 1, seed=1)
    deep = parse_strategy("schema_version = 1\nid = 'x'\ncut_cards = [410]\n[[bets]]\nid = 'tie'\nplay = 'always'",
                          "s.toml")
    with pytest.raises(InvalidStrategy, match="cut_cards: \\[410, 410\\] cards from the end leaves no room"):
        count_simulation(side_bets, deep, 1, seed=1)
    mixed = parse_rules('schema_version = 1\nid = "m"\n[[bets]]\nid = "pp_win"\n'
                        'pays = [{ when = "player_pair and winner == player", pays = "20:1" }]\notherwise = "lose"')
    perfect = parse_strategy("schema_version = 1\nid = 'x'\n[[bets]]\nid = 'pp_win'\nplay = 'perfect'", "s.toml")
    with pytest.raises(InvalidStrategy, match="bets.pp_win: perfect play needs a bet settled on scores only"):
        count_simulation(mixed, perfect, 1, seed=1)
    everything = parse_strategy("schema_version = 1\nid = 'x'\n[[bets]]\nid = '*'\nplay = 'perfect'")
    with pytest.raises(InvalidStrategy, match="none of the strategy's bets"):
        count_simulation(mixed, everything, 1, seed=1)  # "*" leaves out what perfect play cannot solve
    with pytest.raises(InvalidStrategy, match="strategy: unknown strategy 'nope'; shipped: "):
        load_strategy("nope")
