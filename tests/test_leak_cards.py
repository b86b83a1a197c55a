"""Leaked card information and card-level bets (issue 39, item 4): suits, colours, ranks and poker values.

Held to an independent brute force (every ordering of the physical cards of small depleted shoes, dealt by the
reference dealer, the bets written again as plain predicates: :mod:`tests.cardlevel_oracle`), to closed forms on
full shoes, and to the effect of removal for a card off the round.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

from baccarat_sim.analysis import leak_cards
from baccarat_sim.analysis.eor import effect_of_removal
from baccarat_sim.analysis.leak import SIT_OUT, each, exposed_card, high_low, leak_value, optimal_sort
from baccarat_sim.analysis.settlement import settle
from baccarat_sim.cli.leak import main
from baccarat_sim.engines.detail import rules_detail
from baccarat_sim.engines.exact import exact_histogram
from baccarat_sim.errors import InputError, InvalidRules
from baccarat_sim.model.rules import load_rules, parse_rules

from .cardlevel_oracle import BET_SETS, Dealt, bet, colour, rank, rule_text, shoe_of, suit
from .reference_dealer import card_point, deal_round

#: Bets on the outcome and on the cards, each written twice (the grammar, and a predicate on the dealt round).
ORACLE_BETS = (
    bet("player", ("winner == player", lambda d: d.winner == "player")),
    bet("banker", ("winner == banker", "19:20", lambda d: d.winner == "banker"),
        ("winner == tie", "push", lambda d: d.winner == "tie")),
    *(b for b in BET_SETS["first_four"] if b.id in ("colour_match", "p1_heart", "first_cards_same_suit")),
    *(b for b in BET_SETS["third_cards"] if b.id in ("b3_red", "p3_over_b3")),
    *(b for b in BET_SETS["mixed"] if b.id in ("hearts_winner", "red_player_pair")),  # a pair: every code
    *(b for b in BET_SETS["player_patterns"] if b.id in ("player_flush",)),
    bet("three_of_a_rank", ("kind(all) >= 3", "5:1",
                            lambda d: max(Counter(rank(c) for c in d.cards("all")).values()) >= 3)),
)
RULES = parse_rules(rule_text("leak_cards", ORACLE_BETS), "leak_cards.toml")
#: The bets that read the third cards, with the outcome bets: fewer card-level groups to count per pricing.
THIRD_CARD_RULES = RULES.with_bets(["player", "banker", "colour_match", "b3_red", "p3_over_b3"])
#: The same bets in a dealt shoe that burns a card (a burn card, a bottom card to see).
DEALT_RULES = dataclasses.replace(RULES, shoe=load_rules("live-8deck-side-bets").shoe)

#: Small depleted shoes: uneven suits and ranks, repeated card ids, third cards of every kind.
SHOES = {
    "nine": shoe_of(["As", "2h", "3d", "Qh", "Kc", "8s", "5d", "9c", "Ah"]),
    "ten": shoe_of(["Kh", "Kh", "Kd", "Qs", "2c", "2c", "7h", "4s", "9d", "6c"]),
}
POSITION_INDEX = {"P1": 0, "B1": 1, "P2": 2, "B2": 3, "C5": 4, "C6": 5}


@functools.cache
def _sequences(name: str, length: int) -> Counter:
    """Every ordered sequence of ``length`` card ids of a shoe, with the orderings of physical cards that give it."""
    cards = [card for card in range(52) for _ in range(int(SHOES[name].reshape(-1)[card]))]
    return Counter(itertools.permutations(cards, length))


@functools.cache
def _dealt(round_ids: tuple) -> Dealt:
    return Dealt(deal_round(round_ids))


def _brute_force(name: str, rules, positions, class_of, off: bool = False) -> dict:
    """Per pattern: its weight and every bet's exact EV, over every ordering (a card off the round first)."""
    nets = [bet_.case_nets(rules.commission.rate) for bet_ in rules.bets]
    predicates = {b.id: b.predicates for b in ORACLE_BETS}
    index = {p: i + int(off) for p, i in POSITION_INDEX.items()} | {"burn": 0, "bottom": 0}
    lines: dict[tuple, Counter] = {}
    for ids, n in _sequences(name, 7 if off else 6).items():
        dealt = _dealt(ids[1:] if off else ids)
        pattern = tuple(class_of(ids[index[p]]) for p in positions)
        by_line = lines.setdefault(pattern, Counter())
        for b, bet_ in enumerate(rules.bets):
            line = next((i for i, holds in enumerate(predicates[bet_.id]) if holds(dealt)), len(bet_.cases))
            by_line[b, line] += n
    table = {}
    for pattern, by_line in lines.items():
        weight = sum(n for (b, _), n in by_line.items() if b == 0)
        evs = tuple(sum(nets[b][line] * n for (bb, line), n in by_line.items() if bb == b) / weight
                    for b in range(len(rules.bets)))
        table[pattern] = (weight, evs)
    return table


def _check(result, brute, class_names=None) -> None:
    """The exact analysis equals the brute force, pattern by pattern, and so do the edge and the actions."""
    total = sum(w for w, _ in brute.values())
    assert result.total == total
    name = (lambda grouping, c: c) if class_names is None else class_names
    rows = {tuple(name(result.grouping, c) for c in row.classes): row for row in result.rows}
    assert set(rows) == set(brute)
    edge = Fraction(0)
    for pattern, (weight, evs) in brute.items():
        row = rows[pattern]
        assert (row.weight, row.ev) == (weight, evs), pattern
        best = max(evs)
        assert row.best_action == (SIT_OUT if best <= 0 else result.bet_ids[evs.index(best)])
        edge += Fraction(weight, total) * max(best, 0)
    assert result.player_edge == edge


def _card_of(grouping, klass):
    return grouping.groups[klass][0]


@pytest.mark.parametrize("shoe", SHOES)
def test_exact_cards_at_the_first_four_equal_brute_force(shoe):
    brute = _brute_force(shoe, RULES, ["P1", "B2"], lambda card: card)
    _check(leak_value(RULES, ["P1", "B2"], each("card"), SHOES[shoe]), brute, _card_of)


@pytest.mark.parametrize("shoe", SHOES)
def test_high_low_at_the_first_four_equal_brute_force(shoe):
    brute = _brute_force(shoe, RULES, ["P1", "B1", "P2", "B2"], lambda card: int(card_point(card) >= 6))
    _check(leak_value(RULES, ["P1", "B1", "P2", "B2"], high_low([6, 7, 8, 9]), SHOES[shoe]), brute)


@pytest.mark.parametrize("positions, shoe, rules", [
    (["C5"], "nine", RULES),
    (["C5"], "ten", RULES),
    (["C6", "P2"], "ten", THIRD_CARD_RULES),
    (["B1", "C5", "C6"], "nine", THIRD_CARD_RULES),
])
def test_fifth_and_sixth_cards_dealt_or_not_equal_brute_force(positions, shoe, rules):
    # The fifth and sixth cards are third cards where the tableau draws them, and cards left in the shoe where
    # it does not: both seen, by point value.
    brute = _brute_force(shoe, rules, positions, card_point)
    _check(leak_value(rules, positions, each("value"), SHOES[shoe]), brute, lambda g, c: g.groups[c][0])


def test_a_burn_card_with_a_first_card_equal_brute_force():
    brute = _brute_force("nine", DEALT_RULES, ["P1", "burn"], lambda card: int(card_point(card) >= 6), off=True)
    burn = leak_value(DEALT_RULES, ["P1", "burn"], high_low([6, 7, 8, 9]), SHOES["nine"])
    _check(burn, brute)
    # The bottom card is a card off the round too: the same figures.
    bottom = leak_value(DEALT_RULES, ["P1", "bottom"], high_low([6, 7, 8, 9]), SHOES["nine"])
    assert [(row.weight, row.ev) for row in bottom.rows] == [(row.weight, row.ev) for row in burn.rows]


def test_a_burn_card_with_a_fifth_card_equal_brute_force():
    rules = DEALT_RULES.with_bets(THIRD_CARD_RULES.bet_ids)
    brute = _brute_force("nine", rules, ["burn", "C5"], card_point, off=True)
    _check(leak_value(rules, ["burn", "C5"], each("value"), SHOES["nine"]), brute,
           lambda g, c: g.groups[c][0])


# --------------------------------------------------------------------------- closed forms, full shoes


def _falling(n: int, k: int) -> int:
    return int(np.prod([n - i for i in range(k)], dtype=object)) if k else 1


@pytest.mark.parametrize("decks", [1, 6])
def test_colour_match_given_the_first_cards_colours(decks):
    # Colour Match (even money here: the four first cards of one colour) with P1 and B1 seen: both red (or both
    # black), the other two are red with chance (26d - 2)_2 / (52d - 2)_2; of two colours, it loses.
    rules = RULES.with_bets(["colour_match"])
    result = leak_value(rules, ["P1", "B1"], each("card"), decks)
    same = Fraction(_falling(26 * decks - 2, 2), _falling(52 * decks - 2, 2))
    for row in result.rows:
        first, second = (result.grouping.groups[c][0] for c in row.classes)
        assert row.ev[0] == (2 * same - 1 if colour(first) == colour(second) else -1)
    seen = leak_value(rules, ["P1"], each("card"), decks)
    alone = Fraction(_falling(26 * decks - 1, 3), _falling(52 * decks - 1, 3))
    assert {row.ev[0] for row in seen.rows} == {2 * alone - 1}


def test_same_suit_and_a_named_suit_given_the_players_first_card():
    # P1.suit == B1.suit with P1 known: (13d - 1) / (52d - 1) whatever it is. P1.suit == hearts: won or lost.
    rules = RULES.with_bets(["first_cards_same_suit", "p1_heart"])
    result = exposed_card(rules, "P1", 8)
    for row in result.rows:
        card = result.grouping.groups[row.classes[0]][0]
        assert row.ev[0] == 2 * Fraction(13 * 8 - 1, 52 * 8 - 1) - 1
        assert row.ev[1] == (1 if suit(card) == "hearts" else -1)
        assert row.probability == Fraction(1, 52)
    assert result.player_edge == Fraction(1, 4)  # a heart seen: p1_heart wins for sure


def test_blind_evs_and_outcome_bets_are_those_of_the_engines():
    # With card-level bets beside them, the outcome bets' figures are today's (the leak kernel's), and every
    # bet's EV averaged over the patterns is its exact EV.
    shoe = SHOES["ten"] * 2
    result = leak_value(RULES, ["C5"], each("value"), shoe)
    hist = exact_histogram(shoe, rules_detail(RULES))
    expected = {r.id: r.ev_exact for r in settle(hist, RULES)}
    assert result.ev_without_information == expected
    outcome_only = leak_value(RULES.with_bets(["player", "banker"]), ["C5"], each("value"), shoe)
    for row, alone in zip(result.rows, outcome_only.rows):
        assert row.ev[:2] == alone.ev and row.weight == alone.weight


def test_monte_carlo_of_sorted_first_cards_agrees_with_the_exact_edges():
    # 8 decks, the first four cards sorted High/Low, a bet on three cards of one rank: rounds drawn at random (a
    # fixed seed), dealt by the reference dealer and settled by the oracle's predicate, pattern by pattern.
    rules = RULES.with_bets(["three_of_a_rank"])
    exact = leak_value(rules, ["P1", "B1", "P2", "B2"], high_low([6, 7, 8, 9]), 8)
    rng = np.random.default_rng(2024)
    deck = np.repeat(np.arange(52), 8)
    (holds,) = next(b for b in ORACLE_BETS if b.id == "three_of_a_rank").predicates
    nets: dict[tuple, list] = {}
    for _ in range(60_000):
        ids = tuple(int(c) for c in deck[rng.choice(deck.size, 6, replace=False)])
        pattern = tuple(int(card_point(c) >= 6) for c in ids[:4])
        nets.setdefault(pattern, []).append(5 if holds(_dealt(ids)) else -1)
    for row in exact.rows:
        sample = np.array(nets[row.classes], float)
        z = (sample.mean() - float(row.ev[0])) / (sample.std(ddof=1) / np.sqrt(sample.size))
        assert abs(z) < 4, (row.label, z)
        assert abs(sample.size / 60_000 - float(row.probability)) < 4 * np.sqrt(float(row.probability) / 60_000)


# --------------------------------------------------------------------------- a card off the round, EOR


def test_a_burn_card_known_exactly_is_the_effect_of_removal():
    rules = DEALT_RULES.with_bets(["p1_heart", "colour_match", "hearts_winner"])
    burn = leak_value(rules, ["burn"], each("card"), 2)
    eor = effect_of_removal(rules, 2)
    for b, bet_id in enumerate(burn.bet_ids):
        base = burn.ev_without_information[bet_id]
        assert base == eor.base[bet_id]
        for rank_ in range(13):
            rows = [row for row in burn.rows if burn.grouping.groups[row.classes[0]][0] // 4 == rank_]
            mean = sum(row.weight * (row.ev[b] - base) for row in rows) / sum(row.weight for row in rows)
            assert mean == eor.by_rank[bet_id][rank_]
        for suit_ in range(4):
            rows = [row for row in burn.rows if burn.grouping.groups[row.classes[0]][0] % 4 == suit_]
            mean = sum(row.weight * (row.ev[b] - base) for row in rows) / sum(row.weight for row in rows)
            assert mean == eor.by_suit[bet_id][suit_]


# --------------------------------------------------------------------------- the cost model, the command line


def test_pricings_beyond_the_limits_are_refused_before_any_work(monkeypatch):
    # P1, C5 and C6 by point value on 8 decks beside two poker hands compared: about 1,400 pricings of seconds each.
    poker = parse_rules(rule_text("poker_leak", [bet("banker_beats", ("poker(banker) > poker(player)",
                                                                       lambda d: False))]), "poker_leak.toml")

    def no_pricing(*args, **kwargs):
        raise AssertionError("a pricing was made before the refusal")

    monkeypatch.setattr(leak_cards, "weights_by_bits", no_pricing)
    with pytest.raises(InvalidRules) as error:
        leak_value(poker, ["P1", "C5", "C6"], each("value"), 8)
    message = str(error.value)
    assert "bets.banker_beats" in message and "exact pricings" in message and "predicted" in message
    assert "\n" not in message


def test_optimal_sort_prices_card_level_bets():
    rules = RULES.with_bets(["player", "banker", "colour_match", "p3_over_b3"])
    found = optimal_sort(rules, ["P1"], 6, top=2)
    blind = optimal_sort(rules.with_bets(["player", "banker"]), ["P1"], 6, top=2)
    assert found.candidates[0].player_edge >= blind.candidates[0].player_edge
    assert found.best.player_edge == leak_value(rules, ["P1"], found.candidates[0].grouping, 6).player_edge


def test_cli_prices_a_card_level_rule_file(capsys, tmp_path):
    path = tmp_path / "cards.toml"
    path.write_text(rule_text("cards", ORACLE_BETS))
    assert main(["--rules", str(path), "--card", "P1", "--decks", "1", "--format", "json", "--quiet"]) == 0
    assert '"colour_match"' in capsys.readouterr().out
    poker = tmp_path / "poker.toml"
    poker.write_text(rule_text("poker", [bet("banker_beats", ("poker(banker) > poker(player)", lambda d: False))]))
    assert main(["--rules", str(poker), "--positions", "P1,C5,C6", "--by", "value"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "bets.banker_beats" in err and "predicted" in err


def test_too_few_cards_to_see_an_undealt_fifth_card():
    shoe = shoe_of(["As", "2h", "3d", "Qh", "Kc", "8s"])
    with pytest.raises(InputError) as error:
        leak_value(RULES, ["C5"], each("value"), shoe)
    assert error.value.param == "shoe"
    assert leak_value(RULES.with_bets(["player"]), ["C5"], each("value"), shoe).total == 720

