"""Card-level bets priced exactly on any shoe, every round (issue 39, item 4): closed forms and the enumeration.

:class:`~baccarat_sim.engines.card_solver.CardSolver` (through :class:`~baccarat_sim.engines.composition.FastSolver`)
must give exactly the exact engine's settled EV on any shoe, full or depleted; its closed form for bets on the first
four cards' classes must agree with the enumeration; a counting run's perfect play and exact edge of card-level bets
must rest on those figures round by round.

Reference for Colour Match: Eliot Jacobson, "Card Counting the Colour Match Baccarat Side Bet" (888casino.com blog,
https://888casino.com/blog/side-bets/card-counting-the-colour-match-baccarat-side-bet): the first four cards all red
or all black pay 6 to 1, a house edge of 13.7635% on 8 decks, and "the easiest way to beat CM is ... to compute the
house edge in real-time as the cards are dealt" (perfect play).
"""

import math
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from baccarat_sim.analysis.counting import count_simulation
from baccarat_sim.analysis.settlement import settle_bet
from baccarat_sim.engines.card_solver import CardSolver
from baccarat_sim.engines.composition import FastSolver
from baccarat_sim.engines.detail import rules_detail
from baccarat_sim.engines.exact import exact_histogram
from baccarat_sim.engines.plan import SHOES_PER_BLOCK, shoe_params
from baccarat_sim.errors import InvalidStrategy
from baccarat_sim.kernels.encoding import POINT_BITS, encode_shoe
from baccarat_sim.kernels.rng import block_state
from baccarat_sim.kernels.shoe import after_round, another_round, first_round_position, shoe_end, start_shoe
from baccarat_sim.model.rules import load_rules, parse_rules
from baccarat_sim.model.shoe import as_shoe, canonical_cards
from baccarat_sim.model.strategy import parse_strategy
from baccarat_sim.report.counting import count_frame

from .reference_dealer import deal_round
from .run_helpers import MANY_THREADS

DATA = Path(__file__).parent / "data"

#: Card-level bets written in the grammar: first-four classes (suits compared, ranks, colours) priced in closed
#: form; third cards, the outcome, pairs and a poker value priced by the enumeration.
CARD_BETS = """
schema_version = 1
id = "card-bets"
[[bets]]
id = "suited_first_cards"
pays = [{ when = "P1.suit == B1.suit", pays = "3:1" }]
otherwise = "lose"
[[bets]]
id = "red_king_start"
pays = [{ when = "P1.rank == K and P1.colour == red and count(colour == red, P2, B2) == 1", pays = "30:1" },
        { when = "B1.suit == spades and not (P1.rank == K and P1.colour == red)", pays = "1:2" }]
otherwise = "lose"
[[bets]]
id = "heart_third"
pays = [{ when = "P3.suit == hearts", pays = "5:1" }]
otherwise = "lose"
[[bets]]
id = "red_tie"
pays = [{ when = "winner == tie and count(colour == red, first_four) >= 3", pays = "20:1" }]
otherwise = "lose"
[[bets]]
id = "black_pair"
pays = [{ when = "player_pair and P1.colour == black", pays = "22:1" }]
otherwise = "lose"
[[bets]]
id = "banker_flush"
pays = [{ when = "poker(banker) == flush", pays = "7:1" }]
otherwise = "lose"
"""


def depleted(seed: int, keep: int, decks: int = 8) -> np.ndarray:
    """A shoe of ``decks`` decks with all but ``keep`` cards removed at random (suits and colours uneven)."""
    rng = np.random.default_rng(seed)
    cards = np.repeat(np.arange(52), as_shoe(decks).ravel())
    return np.bincount(rng.choice(cards, size=keep, replace=False), minlength=52).reshape(13, 4).astype(np.int64)


def lopsided() -> np.ndarray:
    """Two decks with most black cards gone: a colour gap no full shoe has."""
    shoe = as_shoe(2).copy()
    shoe[:, [0, 3]] //= 3
    return shoe


SHOES = [
    pytest.param(as_shoe(8), id="8-decks"),
    pytest.param(as_shoe(1), id="1-deck"),
    pytest.param(depleted(1, 240), id="240-left"),
    pytest.param(depleted(2, 45), id="45-left"),
    pytest.param(depleted(3, 9, 1), id="9-left"),
    pytest.param(lopsided(), id="lopsided"),
]


@pytest.fixture(scope="module")
def card_rules():
    return parse_rules(CARD_BETS)


def exact_evs(rules, shoe) -> dict:
    """The exact engine's histogram of the shoe, settled bet by bet (the reference)."""
    hist = exact_histogram(shoe, rules_detail(rules))
    return {b: settle_bet(hist, rules.bet(b), rules).ev_exact for b in rules.bet_ids}


@pytest.mark.parametrize("shoe", SHOES)
def test_card_level_bets_price_exactly_as_the_exact_engine_settles(card_rules, shoe):
    solver = FastSolver(card_rules)
    assert solver.kinds == {"suited_first_cards": "first_four", "red_king_start": "first_four",
                            "heart_third": "card", "red_tie": "card", "black_pair": "card", "banker_flush": "card"}
    expected = exact_evs(card_rules, shoe)
    assert solver.ev(shoe) == expected
    ev, sign = solver.ev_array(shoe)  # the kernel a counting run calls every round
    for i, bet_id in enumerate(solver.bet_ids):
        assert ev[i] == pytest.approx(float(expected[bet_id]), rel=1e-12, abs=1e-15), bet_id
        assert sign[i] == (expected[bet_id] > 0) - (expected[bet_id] < 0), bet_id


@pytest.mark.parametrize("name", ["catalogue-colour-and-suits", "catalogue-lucky-nines"])
def test_catalogue_card_bets_price_exactly_on_depleted_shoes(name):
    rules = load_rules(name)
    solver = FastSolver(rules)
    for seed, keep in ((5, 150), (6, 33)):
        shoe = depleted(seed, keep)
        assert solver.ev(shoe) == exact_evs(rules, shoe), (name, keep)


@pytest.mark.parametrize("shoe", SHOES)
def test_closed_form_equals_the_enumeration(card_rules, shoe):
    rules = load_rules(DATA / "colour-match.toml")
    for rule_set, bets in ((rules, ["colour_match", "heart_first"]),
                           (card_rules, ["suited_first_cards", "red_king_start"])):
        closed = CardSolver(rule_set, bets)
        enumerated = CardSolver(rule_set, bets, closed_forms=False)
        assert set(closed.kinds.values()) == {"first_four"} and set(enumerated.kinds.values()) == {"card"}
        assert closed.weights(shoe) == {b: _scaled(w, math.perm(int(shoe.sum()) - 4, 2))
                                        for b, w in enumerated.weights(shoe).items()}
        assert closed.ev(shoe) == enumerated.ev(shoe)
        assert np.allclose(closed.ev_array(shoe)[0], enumerated.ev_array(shoe)[0], rtol=1e-12, atol=1e-15)


def _scaled(weights: dict, factor: int) -> dict:
    """Six-card weights as four-card ones: each four-card draw stands for ``(N-4)(N-5)`` six-card ones."""
    assert all(w % factor == 0 for w in weights.values())
    return {net: w // factor for net, w in weights.items()}


@pytest.mark.parametrize("decks", range(1, 9))
def test_colour_match_closed_form_on_full_shoes(decks):
    # Four cards of one colour: 2 (26d)_4 / (52d)_4 (the falling factorials), paid 6 to 1.
    rules = load_rules("catalogue-colour-and-suits")
    p = Fraction(2 * math.perm(26 * decks, 4), math.perm(52 * decks, 4))
    ev = CardSolver(rules, ["colour_match"]).ev(decks)["colour_match"]
    assert ev == 6 * p - (1 - p)
    if decks == 8:
        assert float(ev) == pytest.approx(-0.137635, abs=5e-7)  # Jacobson's 13.7635%


# --------------------------------------------------------------------------- counting runs


PERFECT = "schema_version = 1\nid = 'perfect'\n[[bets]]\nid = '{bet}'\nplay = 'perfect'\n"


@pytest.fixture(scope="module")
def colour_perfect():
    rules = load_rules(DATA / "colour-match.toml")
    return count_simulation(rules, parse_strategy(PERFECT.format(bet="colour_match")), 3_000, seed=39)


def test_perfect_play_beats_colour_match(colour_perfect):
    row = count_frame(colour_perfect).iloc[0]
    # Computer-perfect play bets the rounds whose exact EV on the unseen cards is positive: about 2% of them (a colour
    # gap of 20 at the two-deck point, none with more than 357 cards unseen), at an exact mean edge near 18%.
    assert 0.01 < row["bet_share"] < 0.04
    assert 0.1 < row["exact_advantage_per_bet"] < 0.3
    assert row["advantage_ci95_low"] > 0
    z = (row["advantage_per_bet"] - row["exact_advantage_per_bet"]) / row["advantage_se"]
    assert abs(z) < 4
    assert row["ev_off_the_top"] == pytest.approx(-0.137635, abs=5e-7)


def replay(rules, bet_id: str, composition: np.ndarray, shoes: int, seed: int) -> list[tuple[Fraction, tuple]]:
    """Every round of the shoes the kernel deals for ``seed`` (one block), replayed in plain Python.

    Before each round the exact engine's histogram of the unseen cards (a card turned to set the burn is seen,
    burned cards and the cards behind the cut card are not) is settled for ``bet_id``. Returns each round's exact
    EV and its first four cards (P1, B1, P2, B2).
    """
    assert shoes <= SHOES_PER_BLOCK
    n_cards = int(composition.sum())
    params = shoe_params(rules.shoe, n_cards)
    cards = encode_shoe(canonical_cards(composition))
    state = block_state(np.uint64(seed), 0)
    detail = rules_detail(rules)
    rounds = []
    for _ in range(shoes):
        cut_index, state = start_shoe(cards, tuple(np.uint64(word) for word in state), params)
        ids = [int(e) >> POINT_BITS for e in cards]
        unseen = composition.copy()
        if rules.shoe.burn == "face_value":
            unseen[ids[0] // 4, ids[0] % 4] -= 1  # the card turned to set the burn
        position = first_round_position(cards, params)
        stop, more = shoe_end(position, n_cards, cut_index)
        while another_round(position, stop, more):
            ev = settle_bet(exact_histogram(unseen, detail), rules.bet(bet_id), rules).ev_exact
            r = deal_round(ids[position:position + 6])
            rounds.append((ev, (r.player[0], r.banker[0], r.player[1], r.banker[1])))
            for card in ids[position:position + r.cards_used]:
                unseen[card // 4, card % 4] -= 1
            position += r.cards_used
            stop, more = after_round(position, stop, more, n_cards, cut_index, params)
    return rounds


def test_perfect_play_bets_exactly_where_the_exact_ev_is_positive():
    # A shoe short of black cards gives Colour Match an edge at times: the kernel's perfect play, priced by the
    # closed form, bets exactly in the rounds where the exact engine finds a positive EV on the unseen cards.
    rules = load_rules(DATA / "colour-match.toml")
    shoe = as_shoe(8).copy()
    shoe[:, [0, 3]] -= 2  # 52 black cards gone
    result = count_simulation(rules, parse_strategy(PERFECT.format(bet="colour_match")), 3, seed=2, shoe=shoe)
    row = count_frame(result).iloc[0]
    placed = [(ev, cards) for ev, cards in replay(rules, "colour_match", shoe, 3, 2) if ev > 0]
    net = sum(6 if len({card % 4 in (1, 2) for card in cards}) == 1 else -1 for _, cards in placed)
    assert placed
    assert (int(row["bets"]), round(row["units_per_shoe"] * row["shoes"])) == (len(placed), net)
    assert row["exact_advantage_per_bet"] == pytest.approx(float(sum(ev for ev, _ in placed)) / len(placed),
                                                           rel=1e-12)


def test_exact_edge_of_a_bet_priced_by_its_group_matches_a_replay():
    # Super Tie (a tie, the six cards' colours) is priced by its group's enumeration every round it is bet: the
    # mean exact EV of the bets placed is the exact engine's, round by round, on the rounds the kernel deals.
    rules = load_rules("catalogue-colour-and-suits").with_bets(["super_tie_100_25_7"]).with_shoe(model="dealt")
    strategy = parse_strategy("schema_version = 1\nid = 'x'\n[[bets]]\nid = 'super_tie_100_25_7'\nplay = 'always'\n"
                              "exact_edge = true")
    shoe = as_shoe(8)
    result = count_simulation(rules, strategy, 1, seed=4)
    row = count_frame(result).iloc[0]
    evs = [ev for ev, _ in replay(rules, "super_tie_100_25_7", shoe, 1, 4)]
    assert row["bet_share"] == 1.0 and row["bets"] == len(evs)
    assert row["exact_advantage_per_bet"] == pytest.approx(float(sum(evs)) / len(evs), rel=1e-12)
    assert len(set(evs)) > len(evs) // 2  # the EV moves with the cards seen


def test_card_level_perfect_play_is_thread_independent_and_leaves_other_bets_alone():
    rules = load_rules(DATA / "colour-match.toml")
    both = parse_strategy(PERFECT.format(bet="colour_match") + "[[bets]]\nid = 'banker'\nplay = 'perfect'\n")
    one = count_frame(count_simulation(rules, both, 48, seed=8, threads=1)).set_index("bet")
    two = count_frame(count_simulation(rules, both, 48, seed=8, threads=MANY_THREADS)).set_index("bet")
    assert one.equals(two)
    alone = parse_strategy("schema_version = 1\nid = 'x'\n[[bets]]\nid = 'banker'\nplay = 'perfect'")
    banker = count_frame(count_simulation(rules.with_bets(["banker"]), alone, 48, seed=8)).iloc[0]
    assert one.loc["banker", "bets"] == banker["bets"]
    assert one.loc["banker", "exact_advantage_per_bet"] == banker["exact_advantage_per_bet"] or (
        math.isnan(banker["exact_advantage_per_bet"]) and math.isnan(one.loc["banker", "exact_advantage_per_bet"]))


def test_a_run_whose_pricing_is_predicted_too_long_is_refused_in_one_line(tmp_path):
    rules = load_rules("catalogue-colour-and-suits")
    strategy = parse_strategy(PERFECT.format(bet="contrast_bonus_35_15_5"), "s.toml")
    with pytest.raises(InvalidStrategy, match=r"s.toml: bets.contrast_bonus_35_15_5: pricing the card-level bet "
                                              r"exactly every round is predicted to take about .* ms a round, about "
                                              r"[\d,]+ s for 1,000,000 shoes .* more than the limit of 600 s; at most "
                                              r"[\d,]+ shoes fit") as error:
        count_simulation(rules, strategy, 10**6, seed=1)
    assert "\n" not in str(error.value)
    fit = int(str(error.value).split("at most ")[1].split(" shoes")[0].replace(",", ""))
    assert 100 < fit < 10**6
    path = tmp_path / "perfect-contrast.toml"
    path.write_text(PERFECT.format(bet="contrast_bonus_35_15_5"))
    done = subprocess.run([sys.executable, "-m", "baccarat_sim.rtp", "--rules", "catalogue-colour-and-suits",
                           "--count", str(path), "--shoes", "1e6"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stderr
    errors = [line for line in done.stderr.splitlines() if "error" in line]
    assert len(errors) == 1 and "bets.contrast_bonus_35_15_5" in errors[0] and "shoes fit" in errors[0]


def test_a_bet_whose_tables_by_card_are_too_large_is_refused_before_they_are_built():
    # Two poker hands compared: the exact engine counts it by rank; its tables by card would pass the builder's
    # limit, so perfect play (which prices by card every round) is refused in one line, nothing built.
    rules = parse_rules('schema_version = 1\nid = "x"\n[shoe]\ndecks = 8\nshuffle = "dealt"\n[[bets]]\nid = "beats"\n'
                        'pays = [{ when = "poker(banker) > poker(player)", pays = "1:1" }]\notherwise = "lose"\n')
    with pytest.raises(InvalidStrategy, match="s.toml: bets.beats: pricing its card-level conditions every round "
                                              "needs their tables by card") as error:
        count_simulation(rules, parse_strategy(PERFECT.format(bet="beats"), "s.toml"), 10, seed=1)
    assert "\n" not in str(error.value)


def test_a_pay_table_mixing_scores_with_pairs_is_still_refused_perfect_play():
    rules = parse_rules('schema_version = 1\nid = "x"\n[shoe]\ndecks = 8\nshuffle = "dealt"\n[[bets]]\nid = "mixed"\n'
                        'pays = [{ when = "player_pair and winner == banker", pays = "30:1" }]\notherwise = "lose"\n')
    assert FastSolver(rules).kinds == {"mixed": "general"}
    with pytest.raises(InvalidStrategy, match="s.toml: bets.mixed: perfect play needs a bet settled on scores only, "
                                              "pairs only, first cards only or the cards alone"):
        count_simulation(rules, parse_strategy(PERFECT.format(bet="mixed"), "s.toml"), 10, seed=1)
