"""Counting strategies on card-level bets: tags by suit, colour or card, and bets settled on the cards (issue 13).

Reference: Eliot Jacobson, "Card Counting the Colour Match Baccarat Side Bet" (888casino.com blog,
https://888casino.com/blog/side-bets/card-counting-the-colour-match-baccarat-side-bet): Colour Match (the first
four cards all red or all black, 6 to 1) has a house edge of 13.7635% on 8 decks; "at the 2-deck point (104 unseen
cards), the gap is 20" (the fewest extra cards of one colour that give the player the edge), "from 357 cards (color
gap = 59)", and "there is no edge possible with more than 357 unseen cards remaining in the shoe".

The rule set is ``tests/data/colour-match.toml`` (8 decks dealt, face-value burn, cut card 14 from the end) with the
main bets, Colour Match and a suit bet (the Player's first card a heart, 2 to 1).
"""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from baccarat_sim.analysis.counting import count_simulation
from baccarat_sim.analysis.settlement import settle_bet
from baccarat_sim.engines.counting import CountPlan
from baccarat_sim.engines.detail import rules_detail
from baccarat_sim.engines.exact import exact_histogram
from baccarat_sim.engines.plan import SHOES_PER_BLOCK, shoe_params
from baccarat_sim.engines.simulation import simulate
from baccarat_sim.errors import InvalidStrategy
from baccarat_sim.kernels.encoding import POINT_BITS, encode_shoe
from baccarat_sim.kernels.rng import block_state
from baccarat_sim.kernels.shoe import after_round, another_round, first_round_position, shoe_end, start_shoe
from baccarat_sim.model.rules import load_rules
from baccarat_sim.model.shoe import as_shoe, canonical_cards
from baccarat_sim.model.strategy import available_strategies, describe_tags, load_strategy, parse_strategy
from baccarat_sim.report.counting import count_csv, count_dict, count_frame, count_markdown, count_text

from .reference_dealer import deal_round
from .run_helpers import MANY_THREADS

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def rules():
    return load_rules(DATA / "colour-match.toml")


def z(value, reference, se):
    return (value - reference) / se


def red(card: int) -> bool:
    return card % 4 in (1, 2)


# --------------------------------------------------------------------------- the strategy grammar


def tags_of(text: str) -> tuple[float, ...]:
    strategy = parse_strategy(f"schema_version = 1\nid = 'x'\n[counts.c]\ntags = {text}\n"
                              "[[bets]]\nid = 'tie'\nplay = 'always'")
    return strategy.counts[0].tags


def test_tags_by_rank_suit_colour_and_card():
    by_rank = tags_of('{ "0" = -2, K = 1, "6" = -3 }')
    assert len(by_rank) == 52
    assert describe_tags(by_rank) == ("rank", {"A": 0, "2": 0, "3": 0, "4": 0, "5": 0, "6": -3, "7": 0, "8": 0,
                                               "9": 0, "10": -2, "J": -2, "Q": -2, "K": 1})
    colours = tags_of("{ red = 1, black = -1 }")
    assert [colours[card] for card in (0, 1, 2, 3, 51)] == [-1, 1, 1, -1, -1]  # As Ah Ad Ac Kc
    assert describe_tags(colours) == ("colour", {"black": -1, "red": 1})
    # A suit overrides its colour: hearts 2, diamonds 1.
    assert describe_tags(tags_of("{ red = 1, hearts = 2 }")) == ("suit", {"spades": 0, "hearts": 2, "diamonds": 1,
                                                                          "clubs": 0})
    cards = tags_of('{ Qh = 2, 10s = -1, Td = -1, "6H" = 3, hearts = 1 }')
    assert cards[11 * 4 + 1] == 2 and cards[9 * 4] == cards[9 * 4 + 2] == -1 and cards[5 * 4 + 1] == 3
    assert cards[1] == 1 and cards[0] == 0  # the Ace of hearts from the suit, the Ace of spades untagged
    by, keyed = describe_tags(cards)
    assert by == "card" and keyed["Qh"] == 2 and keyed["Ah"] == 1 and len(keyed) == 52


BAD = [
    ("[counts.c]\ntags = { six = 1 }", "counts.c.tags.six: must be a point value 0-9, a rank A,2..10,J,Q,K, a suit"),
    ("[counts.c]\ntags = { reds = 1 }", "counts.c.tags.reds: did you mean 'red'?"),
    ("[counts.c]\ntags = { harts = 1 }", "counts.c.tags.harts: did you mean 'hearts'?"),
    ("[counts.c]\ntags = { \"6\" = 1, red = 1 }", "counts.c.tags: give tags by point value or rank, or by suit or "
                                                   "colour, not both"),
    ("[counts.c]\ntags = { red = 'x' }", "counts.c.tags.red: must be a number"),
]


@pytest.mark.parametrize("counts, message", BAD)
def test_bad_card_tags_name_the_key(counts, message):
    text = f"schema_version = 1\nid = 'x'\n{counts}\n[[bets]]\nid = 'tie'\nplay = 'always'"
    with pytest.raises(InvalidStrategy, match=message.replace("(", r"\(").replace("?", r"\?")):
        parse_strategy(text, "bad.toml")


@pytest.mark.parametrize("threshold, message", [
    ("true_count = 'auto'", "bets.tie.two_sided: needs a threshold above zero"),
    ("running_count = 0", "bets.tie.two_sided: needs a threshold above zero"),
])
def test_two_sided_needs_a_positive_threshold(threshold, message):
    text = (f"schema_version = 1\nid = 'x'\n[counts.c]\ntags = {{ red = 1, black = -1 }}\n[[bets]]\nid = 'tie'\n"
            f"play = 'count'\ncount = 'c'\n{threshold}\ntwo_sided = true")
    with pytest.raises(InvalidStrategy, match=message):
        parse_strategy(text, "bad.toml")
    with pytest.raises(InvalidStrategy, match="bets.tie.two_sided: only goes with play = \"count\""):
        parse_strategy("schema_version = 1\nid = 'x'\n[[bets]]\nid = 'tie'\nplay = 'always'\ntwo_sided = true")


# --------------------------------------------------------------------------- the published Colour Match figures


def colour_match_edge(rules, red_cards: int, black_cards: int) -> float:
    """Exact Colour Match EV on a shoe of that many red and black cards (spread over the ranks as evenly as can be)."""
    shoe = np.zeros((13, 4), np.int64)
    for colour_suits, n in (((1, 2), red_cards), ((0, 3), black_cards)):
        for i in range(n):
            shoe[(i // 2) % 13, colour_suits[i % 2]] += 1
    assert shoe.sum() == red_cards + black_cards and shoe.max() <= 8
    return settle_bet(exact_histogram(shoe, rules_detail(rules)), rules.bet("colour_match"), rules).ev


def test_colour_match_edge_and_jacobsons_colour_gaps(rules):
    assert colour_match_edge(rules, 208, 208) == pytest.approx(-0.137635, abs=5e-7)
    # The two-deck point: 20 more cards of one colour give the edge, 18 do not.
    assert colour_match_edge(rules, 62, 42) > 0 > colour_match_edge(rules, 61, 43)
    assert colour_match_edge(rules, 42, 62) > 0  # either colour
    # 357 unseen cards: a gap of 59 (every red card left) gives the edge, 57 does not; 358 cannot reach 59.
    assert colour_match_edge(rules, 208, 149) > 0 > colour_match_edge(rules, 207, 150)
    assert colour_match_edge(rules, 208, 150) < 0


# --------------------------------------------------------------------------- simulations


HEART_AND_COLOUR = """
schema_version = 1
id = "cards"
[counts.red_black]
tags = { red = 1, black = -1 }
[counts.hearts]
tags = { hearts = -3, spades = 1, diamonds = 1, clubs = 1 }
[[bets]]
id = "colour_match"
play = "count"
count = "red_black"
true_count = 10
two_sided = true
[[bets]]
id = "heart_first"
play = "count"
count = "hearts"
running_count = 12
"""


def replay(rules, shoes: int, seed: int) -> dict:
    """The HEART_AND_COLOUR strategy replayed in plain Python on the shoes the kernel deals for ``seed``.

    Each block of 16 shoes starts from the canonical order and the stream ``(seed, block)``, and its shoes are
    shuffled in turn by the one dealing procedure; the rounds are dealt by the reference dealer, the counts kept
    and the bets settled here from the card ids (the turned card is seen, burned cards are not).
    """
    composition = as_shoe(rules.shoe.decks)
    n_cards = int(composition.sum())
    params = shoe_params(rules.shoe, n_cards)
    totals = {"rounds": 0, "colour_match": [0, 0], "heart_first": [0, 0]}  # bets placed, net units
    for block in range(-(-shoes // SHOES_PER_BLOCK)):
        cards = encode_shoe(canonical_cards(composition))
        state = block_state(np.uint64(seed), block)
        for _ in range(min(SHOES_PER_BLOCK, shoes - block * SHOES_PER_BLOCK)):
            # Back in Python the generator state is plain ints: give numba its uint64s again.
            cut_index, state = start_shoe(cards, tuple(np.uint64(word) for word in state), params)
            ids = [int(e) >> POINT_BITS for e in cards]
            colour_count = hearts_count = 0.0
            unseen = n_cards

            def see(card):
                nonlocal colour_count, hearts_count, unseen
                colour_count += 1 if red(card) else -1
                hearts_count += -3 if card % 4 == 1 else 1
                unseen -= 1

            see(ids[0])  # the card turned to set the burn
            position = first_round_position(cards, params)
            stop, more = shoe_end(position, n_cards, cut_index)
            while another_round(position, stop, more):
                colour_bet = abs(colour_count) * 52.0 / unseen >= 10
                heart_bet = hearts_count >= 12
                r = deal_round(ids[position:position + 6])
                first_four = (r.player[0], r.banker[0], r.player[1], r.banker[1])
                if colour_bet:
                    totals["colour_match"][0] += 1
                    totals["colour_match"][1] += 6 if len({red(c) for c in first_four}) == 1 else -1
                if heart_bet:
                    totals["heart_first"][0] += 1
                    totals["heart_first"][1] += 2 if r.player[0] % 4 == 1 else -1
                for card in ids[position:position + r.cards_used]:
                    see(card)
                position += r.cards_used
                totals["rounds"] += 1
                stop, more = after_round(position, stop, more, n_cards, cut_index, params)
    return totals


def test_counts_by_colour_and_suit_match_a_plain_python_replay(rules):
    result = count_simulation(rules, parse_strategy(HEART_AND_COLOUR), 40, seed=77)
    expected = replay(rules, 40, 77)
    rows = count_frame(result).set_index("bet")
    assert int(rows["rounds"].iloc[0]) == expected["rounds"]
    for bet_id in ("colour_match", "heart_first"):
        row = rows.loc[bet_id]
        assert [int(row["bets"]), round(row["units_per_shoe"] * row["shoes"])] == expected[bet_id], bet_id
        assert expected[bet_id][0] > 0  # each count placed some bets in these 40 shoes
    assert result.run["card_level_bets"] == ["colour_match", "heart_first"]


@pytest.fixture(scope="module")
def shipped(rules):
    return count_simulation(rules, load_strategy("colour-match-red-black"), 6_000, seed=2024)


def test_shipped_red_black_count_beats_colour_match(shipped):
    assert "colour-match-red-black" in available_strategies()
    rows = count_frame(shipped)
    assert list(rows["cut_card_from_end"]) == ["14", "52"]
    first, deeper = rows.iloc[0], rows.iloc[1]
    assert first["play"] == "count red_black, |TC| >= 10"
    # About 3% of rounds are bet with a 12% edge (0.31 units per shoe at 10^5 shoes, seed 7): clear of zero at
    # this seed, and a cut card one deck from the end leaves fewer chances.
    assert first["advantage_ci95_low"] > 0 and 0.02 < first["bet_share"] < 0.04
    assert deeper["bet_share"] < first["bet_share"]
    # The exact edge of the bets placed, Colour Match's closed form on the unseen cards of every round bet.
    assert 0.05 < first["exact_advantage_per_bet"] < 0.25
    assert abs(z(first["advantage_per_bet"], first["exact_advantage_per_bet"], first["advantage_se"])) < 4
    assert first["ev_off_the_top"] == pytest.approx(-0.137635, abs=5e-7)


def test_shipped_count_runs_on_the_catalogues_colour_match():
    catalogue = load_rules("catalogue-colour-and-suits")
    result = count_simulation(catalogue, load_strategy("colour-match-red-black"), 32, seed=1)
    assert set(count_frame(result)["bet"]) == {"colour_match"} and (count_frame(result)["shoes"] == 32).all()


def test_card_level_counting_is_reproducible_and_thread_independent(rules, shipped):
    strategy = load_strategy("colour-match-red-black")
    one = count_simulation(rules, strategy, 70, seed=99, threads=1)
    two = count_simulation(rules, strategy, 70, seed=99, threads=MANY_THREADS)
    pd.testing.assert_frame_equal(count_frame(one), count_frame(two), check_exact=True)
    again = count_simulation(rules, strategy, 6_000, seed=2024)
    pd.testing.assert_frame_equal(count_frame(again), count_frame(shipped), check_exact=True)
    other = count_simulation(rules, strategy, 70, seed=100, threads=MANY_THREADS)
    assert not count_frame(one)["units_per_shoe"].equals(count_frame(other)["units_per_shoe"])


def test_flat_betting_card_level_bets_reproduces_the_exact_edge(rules):
    flat = parse_strategy('schema_version = 1\nid = "flat"\n[[bets]]\nid = "*"\nplay = "always"\nexact_edge = false')
    result = count_simulation(rules, flat, 3_000, seed=11)
    exact = exact_histogram(rules)
    for _, row in count_frame(result).iterrows():
        assert row["bet_share"] == 1.0
        ev = settle_bet(exact, rules.bet(row["bet"]), rules).ev
        assert row["ev_off_the_top"] == pytest.approx(ev, abs=1e-15), row["bet"]
        assert abs(z(row["advantage_per_bet"], ev, row["advantage_se"])) < 4, row["bet"]


def test_kept_histogram_is_the_monte_carlo_engines_with_its_card_detail(rules):
    flat = parse_strategy('schema_version = 1\nid = "flat"\ncut_cards = [60]\n[[bets]]\nid = "colour_match"\n'
                          'play = "always"')
    hist = simulate(rules, 4_000, seed=5, model="dealt", by_position=False)
    result = count_simulation(rules, flat, hist.shoes, seed=5, record_codes=True)
    # Same seed, same blocks of 16 shoes: the same rounds, in the same cells detail * N_CODES + code.
    assert result.detail.signature == hist.detail.signature
    assert np.array_equal(result.codes, hist.counts)
    # A rule set without card-level bets keeps the outcome codes alone.
    plain = count_simulation(rules.with_bets(["banker"]), parse_strategy(
        'schema_version = 1\nid = "flat"\n[[bets]]\nid = "banker"\nplay = "always"\nexact_edge = false'),
        16, seed=5, record_codes=True)
    assert plain.detail is None and plain.codes.shape == (14_400,)


def test_stopped_run_deals_whole_chunks_of_a_card_level_run(rules):
    # Counting runs are not checkpointed; a run stopped at a chunk boundary reports the shoes it dealt, and they are
    # the same blocks a run of exactly that many shoes deals.
    strategy = load_strategy("colour-match-red-black")
    stopped = count_simulation(rules, strategy, 4_096, seed=3, max_chunks=2)
    dealt = 2 * CountPlan.for_shoes(4_096).blocks_per_chunk * SHOES_PER_BLOCK
    assert stopped.run["complete"] is False and stopped.run["stopped_by"] == "max_chunks"
    assert stopped.run["shoes"] == dealt < 4_096
    whole = count_simulation(rules, strategy, dealt, seed=3)
    pd.testing.assert_frame_equal(count_frame(stopped), count_frame(whole), check_exact=True)


def test_perfect_play_beside_a_card_level_bet_is_the_same_as_alone(rules):
    # The card-level bet comes first: the solver's bets keep their own places among the bets the kernel plays.
    both = rules.with_bets(["colour_match", "banker"])
    strategy = parse_strategy("schema_version = 1\nid = 'x'\n[[bets]]\nid = 'colour_match'\nplay = 'always'\n"
                              "[[bets]]\nid = 'banker'\nplay = 'perfect'")
    alone = parse_strategy("schema_version = 1\nid = 'x'\n[[bets]]\nid = 'banker'\nplay = 'perfect'")
    # 96 shoes: perfect play finds a Banker bet worth making in a few shoes (48 shoes of some seeds have none).
    together = count_frame(count_simulation(both, strategy, 96, seed=6)).set_index("bet")
    banker = count_frame(count_simulation(rules.with_bets(["banker"]), alone, 96, seed=6)).iloc[0]
    assert together.loc["banker", "bets"] == banker["bets"] > 0
    assert together.loc["banker", "exact_advantage_per_bet"] == banker["exact_advantage_per_bet"] > 0
    assert together.loc["banker", "units_per_shoe"] == banker["units_per_shoe"]
    assert together.loc["colour_match", "bet_share"] == 1.0


def test_exact_play_of_card_level_bets(rules):
    # Perfect play and the exact edge of card-level bets rest on the exact EV of the unseen cards, every round
    # (tests/test_card_solver.py checks the figures): both bets here read only the first four cards' classes.
    perfect = parse_strategy("schema_version = 1\nid = 'x'\n[[bets]]\nid = 'colour_match'\nplay = 'perfect'")
    row = count_frame(count_simulation(rules, perfect, 64, seed=1)).iloc[0]
    assert row["play"] == "perfect play" and row["bets"] > 0 and row["exact_advantage_per_bet"] > 0
    exact = parse_strategy("schema_version = 1\nid = 'x'\n[[bets]]\nid = 'heart_first'\nplay = 'always'\n"
                           "exact_edge = true")
    row = count_frame(count_simulation(rules, exact, 16, seed=1)).iloc[0]
    assert row["bet_share"] == 1.0 and row["exact_advantage_per_bet"] == pytest.approx(-0.25, abs=0.02)
    # "*" with perfect play means every bet priced in closed form: the first-four card-level bets included.
    everything = parse_strategy("schema_version = 1\nid = 'x'\n[[bets]]\nid = '*'\nplay = 'perfect'")
    result = count_simulation(rules, everything, 16, seed=1)
    assert result.run["skipped_bets"] == []
    assert set(count_frame(result)["bet"]) == {"player", "banker", "colour_match", "heart_first"}
    derived = parse_strategy("schema_version = 1\nid = 'x'\n[counts.c]\nderive = { bet = 'colour_match' }\n[[bets]]\n"
                             "id = 'colour_match'\nplay = 'count'\ncount = 'c'\ntrue_count = 1", "s.toml")
    with pytest.raises(InvalidStrategy, match="counts.c.derive: .*every effect of removal is zero.*give tags by suit"):
        count_simulation(rules, derived, 1, seed=1)


def test_star_leaves_out_card_level_bets_priced_by_their_group():
    # A bet that reads third cards is priced by its group's enumeration (milliseconds a round): "*" leaves it out,
    # named; a strategy that names it plays it perfectly.
    catalogue = load_rules("catalogue-colour-and-suits").with_bets(["colour_match", "super_tie_100_25_7"])
    everything = parse_strategy("schema_version = 1\nid = 'x'\n[[bets]]\nid = '*'\nplay = 'perfect'")
    result = count_simulation(catalogue, everything, 16, seed=1)
    assert result.run["skipped_bets"] == ["super_tie_100_25_7"]
    assert "left out   super_tie_100_25_7" in count_text(result)


def test_reports_name_card_tags(rules):
    result = count_simulation(rules, parse_strategy(HEART_AND_COLOUR), 32, seed=1)
    doc = count_dict(result)
    assert doc["counts"]["red_black"] == {"by": "colour", "tags": {"black": -1.0, "red": 1.0}}
    assert doc["counts"]["hearts"]["by"] == "suit" and doc["counts"]["hearts"]["tags"]["hearts"] == -3.0
    text = count_text(result)
    assert "count      red_black: black:-1 red:+1" in text and "hearts:-3" in text
    assert "|TC| >= 10" in text and "RC >= 12" in text
    assert count_markdown(result).startswith("## Counting") and "colour_match" in count_csv(result)
