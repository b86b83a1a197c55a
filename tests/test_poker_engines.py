"""Poker bets priced by the engines (issue 22): exact weights against an independent brute force and published
tables, many card-level bets in one rule file, covariance of many card-level bets.

The definitions themselves are held to the publishers' tables in ``tests/test_poker.py``; here the engines that
price bets written with them (the exact enumeration with the partial hands of the first four cards, the Monte
Carlo kernels with the factored card detail) are held to

* every ordering of the cards of small shoes, line by line and outcome code by outcome code (the plain-Python
  predicates of :mod:`tests.cardlevel_oracle`, written from the rule-set README);
* Wizard of Odds' Jackpot Baccarat table on 8 decks (every row, as ordered deals);
* a rule file of more than 40 card-level bets (no cap): exactly, by Monte Carlo, and its covariances against the
  brute force.
"""

from __future__ import annotations

import functools
import itertools
from math import comb

import numpy as np
import pytest

from baccarat_sim.analysis.joint import covariance
from baccarat_sim.analysis.settlement import bet_breakdown, settle_bet
from baccarat_sim.engines.detail import joint_detail, rules_detail
from baccarat_sim.engines.exact import exact_histogram
from baccarat_sim.model.rules import parse_rules

from .cardlevel_oracle import (
    POKER_LADDER,
    bet,
    by_prefix_of_code,
    colour,
    deal_table,
    engine_prefix_lines,
    every_ordering,
    falling,
    hand_ranks,
    is_flush,
    is_run,
    kind_rank,
    oracle_lines,
    point,
    poker_category,
    rank,
    rank_groups,
    rule_text,
    shoe_of,
)
from .cardlevel_oracle import suit as suit_of

#: Small shoes whose every ordering is dealt: runs with the Ace low and high, several suits, repeated card ids.
SHOES = {
    "nine_mixed": ["As", "2h", "3d", "Qh", "Kc", "8s", "5d", "9c", "Ah"],
    "nine_trips": ["7s", "7s", "7h", "7d", "Ks", "Ks", "Qs", "As", "2c"],
}


def category(d, positions) -> str:
    return poker_category(d.cards(positions))


def rank_of(d, positions):
    return kind_rank(d.cards(positions))


def kind(d, positions) -> int:
    groups = rank_groups(d.cards(positions))
    return groups[0] if groups else 0


LADDER = {name: i for i, name in enumerate(POKER_LADDER)}
#: Categories four cards cannot make (a line that can never happen is refused by the loader).
FIVE_OR_SIX_CARDS = ("three_pair", "full_house", "double_three_of_a_kind", "five_of_a_kind", "six_of_a_kind")

#: Poker bets over every set of positions the grammar names, each line with its plain predicate: the ladder of the
#: first four cards and of all six (whose flush reads the third cards' suits), both three-card hands compared, and
#: the categories that are rank patterns written by ranks, as the catalogue writes them. (Issue 39: the exact
#: enumeration counts the suits of such hands rank by rank, so none is left out of the suite any more.)
POKER_BETS = (
    bet("ladder_first_four", *[(f"poker(first_four) == {name}", lambda d, n=name: category(d, "first_four") == n)
                               for name in POKER_LADDER[1:] if name not in FIVE_OR_SIX_CARDS]),
    bet("ranks_all", ("kind(all) == 4", "20:1", lambda d: kind(d, "all") == 4),
        ("kind(all) < 4 and kind_rank(all) == A", lambda d: kind(d, "all") < 4 and rank_of(d, "all") == 1)),
    bet("ladder_all", *[(f"poker(all) == {name}", lambda d, n=name: category(d, "all") == n)
                        for name in POKER_LADDER[1:]]),
    bet("banker_beats_player", ("poker(banker) > poker(player)",
                                lambda d: LADDER[category(d, "banker")] > LADDER[category(d, "player")])),
    bet("hands_tie", ("poker(banker) == poker(player) and flush(player) == 1",
                      lambda d: category(d, "banker") == category(d, "player") and is_flush(d.cards("player")))),
    bet("listed", ("poker([P1, B1, P3]) >= pair", lambda d: LADDER[category(d, ("P1", "B1", "P3"))] >= 1)),
    bet("third_cards", ("poker([P3, B3]) == pair", lambda d: category(d, ("P3", "B3")) == "pair")),
    bet("kinds", ("kind(all) >= 3", "5:1", lambda d: kind(d, "all") >= 3),
        ("kind(all) == 2 and pairs(all) >= 2", lambda d: kind(d, "all") == 2
         and sum(1 for g in rank_groups(d.cards("all")) if g >= 2) >= 2)),
    # Lucky Match's lines by ranks alone (catalogue-poker), each held to the poker category it stands for.
    bet("rank_only_categories",
        ("triples(all) == 2", "100:1", lambda d: category(d, "all") == "double_three_of_a_kind"),
        ("kind(all) == 4", "30:1", lambda d: category(d, "all") == "four_of_a_kind"),
        ("kind(all) == 3 and pairs(all) >= 2 and triples(all) == 1", "15:1",
         lambda d: category(d, "all") == "full_house"),
        ("kind(all) == 3 and pairs(all) == 1", "6:1", lambda d: category(d, "all") == "three_of_a_kind")),
    bet("pair_of_aces", ("poker(first_four) == pair and kind_rank(first_four) == A",
                         lambda d: category(d, "first_four") == "pair" and rank_of(d, "first_four") == 1)),
    bet("banker_flush_straight", ("flush(banker) and straight(banker)", "9:1",
                                  lambda d: is_flush(d.cards("banker")) and is_run(hand_ranks(d.cards("banker")))),
        ("flush(banker) and not straight(banker)",
         lambda d: is_flush(d.cards("banker")) and not is_run(hand_ranks(d.cards("banker"))))),
    bet("totals_equal", ("player_two_card_total == banker_two_card_total",
                         lambda d: two_card(d.P1, d.P2) == two_card(d.B1, d.B2))),
    bet("red_pair", ("count(colour == red, [P1, P2]) == 2",
                     lambda d: sum(colour(c) == "red" for c in (d.P1, d.P2)) == 2)),
    bet("rank_matches", ("P3.rank == kind_rank(first_four)",
                         lambda d: d.P3 is not None and rank(d.P3) == rank_of(d, "first_four"))),
)


def two_card(a: int, b: int) -> int:
    return (point(a) + point(b)) % 10


@functools.cache
def rounds(shoe: str):
    return deal_table(every_ordering(shoe_of(SHOES[shoe])))


@functools.cache
def poker_rules():
    return parse_rules(rule_text("poker-bets", POKER_BETS), "poker-bets.toml")


@pytest.mark.parametrize("shoe", sorted(SHOES))
def test_poker_bets_equal_every_ordering_line_by_line(shoe):
    rules = poker_rules()
    table = rounds(shoe)
    # No poker bet reads a pair or the first cards: each group counts the scores and card counts beside its cards.
    hist = exact_histogram(shoe_of(SHOES[shoe]), rules_detail(rules))
    assert hist.total == falling(len(SHOES[shoe])) == sum(n for _, n in table)
    for oracle_bet in POKER_BETS:
        expected = by_prefix_of_code(oracle_lines(table, oracle_bet.predicates))
        assert engine_prefix_lines(hist, rules.bet(oracle_bet.id)) == expected, (shoe, oracle_bet.id)


# --------------------------------------------------------------------------- published tables, 8 decks

#: Wizard of Odds, Jackpot Baccarat (8 decks): unordered sets of the first four cards of each row, and its pays.
JACKPOT = (
    ("poker(first_four) == mini_royal", "250:1", 16_384),
    ("poker(first_four) == four_of_a_kind", "75:1", 467_480),
    ("poker(first_four) == straight_flush", "50:1", 163_840),
    ("poker(first_four) == three_of_a_kind", "15:1", 24_760_320),
    ("poker(first_four) == flush", "10:1", 17_929_088),
    ("poker(first_four) == straight", "5:1", 11_354_112),
    ("poker(first_four) == two_pair", "4:1", 18_944_640),
    ("poker(first_four) == pair and kind_rank(first_four) == A", "2:1", 33_048_576),
    ("poker(first_four) == pair and kind_rank(first_four) in [10, J, Q, K]", "push", 132_194_304),
)


def test_jackpot_baccarat_reproduces_wizard_of_odds_row_by_row():
    rules = parse_rules(rule_text("jackpot", [bet("jackpot", *[(when, pays, None) for when, pays, _ in JACKPOT])]),
                        "jackpot.toml")
    hist = exact_histogram(8, rules_detail(rules))
    lines = bet_breakdown(hist, "jackpot", rules).lines
    # Each four-card set is dealt in 4! orders, and any two cards of the 412 left follow.
    ordered = 24 * 412 * 411
    assert [line.combinations for line in lines[:-1]] == [count * ordered for _, _, count in JACKPOT]
    assert lines[-1].combinations == (comb(416, 4) - sum(c for _, _, c in JACKPOT)) * ordered == 991_051_776 * ordered
    assert round(-settle_bet(hist, "jackpot", rules).ev, 4) == 0.1580  # "house edge 15.80%"


# --------------------------------------------------------------------------- many card-level bets in one file

#: More than 40 card-level bets: the poker bets above and variants of colour and suit bets.
MANY_BETS = POKER_BETS + tuple(
    bet(f"suit_{position.lower()}_{suit}", (f"{position}.suit == {suit}", "3:1",
                                    lambda d, p=position, s=suit: d.at(p) is not None and suit_of(d.at(p)) == s))
    for position in ("P1", "B1", "P2", "B2", "P3", "B3") for suit in ("spades", "hearts", "diamonds", "clubs")
) + tuple(
    bet(f"reds_{n}", (f"count(colour == red, all) == {n}", "2:1",
                      lambda d, n=n: sum(colour(c) == "red" for c in d.cards("all")) == n))
    for n in range(7)
)


@functools.cache
def many_rules():
    return parse_rules(rule_text("many", MANY_BETS), "many.toml")


def test_more_than_forty_card_level_bets_price_in_one_file():
    rules = many_rules()
    assert sum(bet.card_level for bet in rules.bets) >= 40
    shoe = "nine_mixed"
    table = rounds(shoe)
    hist = exact_histogram(shoe_of(SHOES[shoe]), rules_detail(rules))
    for oracle_bet in MANY_BETS:
        expected = by_prefix_of_code(oracle_lines(table, oracle_bet.predicates))
        assert engine_prefix_lines(hist, rules.bet(oracle_bet.id)) == expected, oracle_bet.id


#: 40 card-level bets on the colours of the first four cards, counted together (one group: 16 combinations).
FOUR = ("P1", "B1", "P2", "B2")
COLOUR_BETS = tuple(
    bet(f"{p.lower()}_{c}", (f"{p}.colour == {c}", lambda d, p=p, c=c: colour(d.at(p)) == c))
    for p in FOUR for c in ("red", "black")
) + tuple(
    bet(f"{c}s_{'_'.join(group).lower()}_{n}", (f"count(colour == {c}, [{', '.join(group)}]) == {n}", "4:1",
                                                lambda d, g=group, c=c, n=n: sum(colour(d.at(x)) == c for x in g) == n))
    for c, groups in (("red", (FOUR, ("P1", "P2"), ("B1", "B2"), ("P1", "B1"), ("P2", "B2"), ("P1", "B1", "P2"))),
                      ("black", (FOUR,)))
    for group in groups for n in range(len(group) + 1)
) + tuple(
    bet(f"same_{a.lower()}_{b.lower()}", (f"{a}.colour == {b}.colour", lambda d, a=a, b=b: colour(d.at(a)) == colour(
        d.at(b)))) for a, b in itertools.combinations(FOUR, 2)
)


def test_covariance_of_forty_card_level_bets_equals_the_brute_force():
    # A slip's bets are counted together (one group of every atom); the covariance of every pair is the brute
    # force's, on every ordering of a small shoe.
    rules = parse_rules(rule_text("colours", COLOUR_BETS), "colours.toml")
    ids = [b.id for b in COLOUR_BETS]
    assert len(ids) >= 40
    shoe = "nine_trips"
    table = rounds(shoe)
    hist = exact_histogram(shoe_of(SHOES[shoe]), joint_detail(rules, ids))
    cov = covariance(hist, rules, ids)
    total = sum(n for _, n in table)
    nets = {}
    for oracle_bet in COLOUR_BETS:
        pays = [float(p.split(":")[0]) for _, p, _ in oracle_bet.lines]
        nets[oracle_bet.id] = np.array([
            next((pays[i] for i, holds in enumerate(oracle_bet.predicates) if holds(d)), -1.0) for d, _ in table])
    weights = np.array([n for _, n in table], float) / total
    for a in ids:
        for b in ids[::3]:
            mean_a, mean_b = weights @ nets[a], weights @ nets[b]
            expected = weights @ (nets[a] * nets[b]) - mean_a * mean_b
            assert cov(a, b) == pytest.approx(expected, abs=1e-12), (a, b)
