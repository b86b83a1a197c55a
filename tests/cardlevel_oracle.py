"""An independent brute force for card-level bets: every ordering of a shoe, dealt by the reference dealer.

Nothing here comes from the package's condition compiler, atoms, card detail
or kernels. Rounds are dealt by :func:`tests.reference_dealer.deal_round`
(plain Python), bets are plain Python predicates on the dealt cards, and a card
is read as the rule-set README defines it (card id ``rank * 4 + suit``; ranks
0 = Ace .. 12 = King, Ace low; suits spades, hearts, diamonds, clubs; hearts and
diamonds red). The only thing shared with the package is the layout of the
outcome code (through the reference dealer), so that the brute force's weights
can be compared cell by cell with the exact engine's.

Two enumerations, which a test holds to each other:

* :func:`every_ordering`: every ordering of the physical cards of a small shoe
  (``itertools.permutations`` of 6 of them), each ordering once;
* :func:`by_prefix`: ordered prefixes of card ids with their multiplicities (the
  product of the cards of each id left), stopping as soon as the round is dealt;
  the positions a round does not use stand for every ordering of the cards left,
  so the weights are those of ordered six-card sequences, as the exact engine's.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
from collections import Counter

import numpy as np

from baccarat_sim.model.codes import N_CODES, N_SUFFIXES

from .reference_dealer import Round, card_point, deal_round

SUITS = ("spades", "hearts", "diamonds", "clubs")
RED_SUITS = ("hearts", "diamonds")
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
GROUPS = {
    "first_four": ("P1", "B1", "P2", "B2"),
    "player": ("P1", "P2", "P3"),
    "banker": ("B1", "B2", "B3"),
    "all": ("P1", "B1", "P2", "B2", "P3", "B3"),
}


def card(name: str) -> int:
    """A card id from a name such as ``"Qh"``, ``"10s"``, ``"Ad"`` (rank, then the suit's initial)."""
    return RANKS.index(name[:-1]) * 4 + "shdc".index(name[-1])


def rank(card_id: int | None) -> int | None:
    """Rank number as the grammar writes it: 1 (Ace) to 13 (King); None for no card."""
    return None if card_id is None else card_id // 4 + 1


def suit(card_id: int | None) -> str | None:
    """Suit name; None for no card."""
    return None if card_id is None else SUITS[card_id % 4]


def colour(card_id: int | None) -> str | None:
    """``red`` or ``black``; None for no card."""
    return None if card_id is None else ("red" if suit(card_id) in RED_SUITS else "black")


def point(card_id: int | None) -> int | None:
    """Baccarat point value; None for no card."""
    return None if card_id is None else card_point(card_id)


ATTRIBUTE = {"rank": rank, "suit": suit, "colour": colour, "point": point}


class Dealt:
    """The cards of one round by position (``None`` for a third card not dealt) and its outcome.

    Everything is worked out once, when the round is wrapped: the predicates
    of the bets read plain attributes.
    """

    __slots__ = ("P1", "B1", "P2", "B2", "P3", "B3", "player", "banker", "player_score", "banker_score", "winner",
                 "player_drew", "banker_drew", "player_pair", "banker_pair", "player_two_card_total",
                 "banker_two_card_total", "natural", "code", "_cards")

    def __init__(self, dealt_round: Round):
        self.player, self.banker = dealt_round.player, dealt_round.banker
        self.P1, self.P2 = self.player[:2]
        self.B1, self.B2 = self.banker[:2]
        self.P3 = self.player[2] if len(self.player) == 3 else None
        self.B3 = self.banker[2] if len(self.banker) == 3 else None
        self.player_score, self.banker_score = dealt_round.player_score, dealt_round.banker_score
        if self.player_score > self.banker_score:
            self.winner = "player"
        else:
            self.winner = "banker" if self.banker_score > self.player_score else "tie"
        self.player_drew, self.banker_drew = self.P3 is not None, self.B3 is not None
        self.player_pair, self.banker_pair = rank(self.P1) == rank(self.P2), rank(self.B1) == rank(self.B2)
        self.player_two_card_total = (point(self.P1) + point(self.P2)) % 10
        self.banker_two_card_total = (point(self.B1) + point(self.B2)) % 10
        self.natural = self.player_two_card_total >= 8 or self.banker_two_card_total >= 8
        self.code = dealt_round.code
        self._cards = {}  # group (a name or positions) -> its cards, as the predicates ask

    def at(self, position: str) -> int | None:
        """The card at a position (None: no card)."""
        return getattr(self, position)

    def cards(self, group) -> list[int]:
        """The cards dealt at a group's positions (a missing third card is not a card)."""
        return list(self._dealt(group))

    def _dealt(self, group) -> tuple[int, ...]:
        if group not in self._cards:  # worked out once per round and group: the predicates ask again and again
            positions = GROUPS[group] if isinstance(group, str) else group
            self._cards[group] = tuple(c for c in (getattr(self, p) for p in positions) if c is not None)
        return self._cards[group]

    def count(self, test, group="all") -> int:
        """How many dealt cards of ``group`` pass ``test`` (a function of a card id)."""
        return sum(1 for c in self._dealt(group) if test(c))

    # -- hand patterns, as the README defines them
    def hand(self, side: str) -> tuple[int, ...]:
        """The cards of a hand (two or three)."""
        return self.player if side == "player" else self.banker

    def suited(self, side: str) -> bool:
        return len({suit(c) for c in self.hand(side)}) == 1

    def flush(self, side: str) -> bool:
        return len(self.hand(side)) == 3 and self.suited(side)

    def three_of_a_kind(self, side: str) -> bool:
        return len(self.hand(side)) == 3 and len({rank(c) for c in self.hand(side)}) == 1

    def straight(self, side: str) -> bool:
        cards = self.hand(side)
        return len(cards) == 3 and is_straight(tuple(rank(c) for c in cards))

    def straight_flush(self, side: str) -> bool:
        return self.straight(side) and self.flush(side)


def is_straight(ranks: tuple[int, int, int]) -> bool:
    """Whether three rank numbers (1 = Ace .. 13 = King) make a straight, by the README's definition.

    Three different ranks in a run, Ace low (A-2-3) or high (Q-K-A); a run never wraps round the King
    (K-A-2 is no straight).
    """
    low, middle, high = sorted(ranks)
    return (middle == low + 1 and high == low + 2) or (low, middle, high) == (1, 12, 13)


# --------------------------------------------------------------------------- enumerations


def shoe_of(names: list[str]) -> np.ndarray:
    """A shoe composition ``(13, 4)`` holding the named cards (a name may repeat)."""
    counts = np.zeros(52, np.int64)
    for name in names:
        counts[card(name)] += 1
    return counts.reshape(13, 4)


def cards_of(composition) -> list[int]:
    """The card ids of a composition, one per physical card."""
    counts = np.asarray(composition).reshape(-1)
    return [c for c in range(counts.size) for _ in range(int(counts[c]))]


def every_ordering(composition) -> Counter:
    """Weight of every round: the orderings of six of the shoe's physical cards that deal it.

    Returns
    -------
    Counter of Round to int
        Totals ``N (N-1) ... (N-5)``.
    """
    sequences = Counter(itertools.permutations(cards_of(composition), 6))
    rounds: Counter = Counter()
    for sequence, n in sequences.items():
        rounds[deal_round(sequence)] += n
    return rounds


def by_prefix(composition) -> Counter:
    """Weight of every round, from ordered prefixes of card ids with their multiplicities.

    A prefix is extended one card at a time until the reference dealer can
    finish the round on it (it raises IndexError while it needs another
    card). The prefix's weight is the number of ways to draw its cards, in
    order, from the shoe; the positions up to six that the round leaves unused
    take any of the cards left.
    """
    counts = np.asarray(composition, np.int64).reshape(-1).copy()
    n_cards = int(counts.sum())
    rounds: Counter = Counter()

    def extend(prefix: list[int], weight: int) -> None:
        if len(prefix) >= 4:
            try:
                dealt = deal_round(prefix)
            except IndexError:
                dealt = None
            if dealt is not None:
                left = n_cards - len(prefix)
                for k in range(6 - len(prefix)):
                    weight *= left - k
                rounds[dealt] += weight
                return
        for c in np.flatnonzero(counts):
            n = int(counts[c])
            counts[c] -= 1
            extend(prefix + [int(c)], weight * n)
            counts[c] += 1

    extend([], 1)
    return rounds


def falling(n: int, k: int = 6) -> int:
    """``n (n-1) ... (n-k+1)``."""
    out = 1
    for i in range(k):
        out *= n - i
    return out


# --------------------------------------------------------------------------- weights by pay line


def deal_table(rounds: Counter) -> list[tuple[Dealt, int]]:
    """The rounds of an enumeration as (:class:`Dealt`, weight) pairs, built once per shoe."""
    return [(Dealt(dealt_round), n) for dealt_round, n in rounds.items()]


def oracle_lines(table: list[tuple[Dealt, int]], lines) -> Counter:
    """Weights by (pay line, outcome code) of a bet whose lines are plain predicates on :class:`Dealt`.

    ``lines`` are tried in order; a round matching none is settled by
    ``otherwise`` (index ``len(lines)``).
    """
    weights: Counter = Counter()
    for dealt, n in table:
        line = 0
        for holds in lines:
            if holds(dealt):
                break
            line += 1
        weights[line, dealt.code] += n  # len(lines) where none holds: otherwise
    return weights


def by_prefix_of_code(weights: Counter) -> Counter:
    """Weights by (pay line, outcome code) summed to (pay line, prefix of the code: scores and card counts)."""
    out: Counter = Counter()
    for (line, code), weight in weights.items():
        out[line, code // N_SUFFIXES] += weight
    return out


def engine_prefix_lines(hist, bet) -> Counter:
    """Weights by (pay line, prefix of the outcome code) of a bet whose card detail counts prefixes."""
    view = hist.view([bet])
    n_outcomes = view.detail.n_outcomes
    cells = np.flatnonzero(view.counts)
    table = np.zeros((len(bet.cases) + 1, n_outcomes), np.int64)
    np.add.at(table, (bet.case_index(view.detail)[cells], cells % n_outcomes), view.counts[cells])
    if view.detail.outcomes == "codes":  # the group counts every code: sum them to their prefixes
        table = table.reshape(len(bet.cases) + 1, -1, N_SUFFIXES).sum(axis=2)
    return Counter({(int(line), int(prefix)): int(table[line, prefix]) for line, prefix in zip(*np.nonzero(table))})


def engine_lines(hist, bet) -> Counter:
    """Weights by (pay line, outcome code) of a bet, read from a histogram with its card detail.

    The histogram's view of the bet must count every outcome code (``rules_detail(rules, codes=True)``).
    """
    hist = hist.view([bet])
    assert hist.detail is None or hist.detail.outcomes == "codes", "count the card detail with every code"
    cells = np.flatnonzero(hist.counts)
    table = np.zeros((len(bet.cases) + 1, N_CODES), np.int64)
    np.add.at(table, (bet.case_index(hist.detail)[cells], cells % N_CODES), hist.counts[cells])
    return Counter({(int(line), int(code)): int(table[line, code]) for line, code in zip(*np.nonzero(table))})


# --------------------------------------------------------------------------- bets written twice


@dataclasses.dataclass(frozen=True)
class OracleBet:
    """A bet written twice: pay lines in the condition grammar, and the same lines as plain predicates.

    ``lines`` holds ``(condition, pays, predicate)``; every other round loses.
    """

    id: str
    lines: tuple

    @property
    def predicates(self) -> list:
        return [predicate for _, _, predicate in self.lines]


def bet(bet_id: str, *lines) -> OracleBet:
    """A bet of lines ``(condition, predicate)`` or ``(condition, pays, predicate)`` (default pays ``"1:1"``)."""
    full = tuple(line if len(line) == 3 else (line[0], "1:1", line[1]) for line in lines)
    return OracleBet(bet_id, full)


def rule_text(rules_id: str, bets, decks: int = 8) -> str:
    """A rule file offering ``bets`` (fresh shuffle)."""
    parts = [f'schema_version = 1\nid = "{rules_id}"\nname = "{rules_id}"\n\n[shoe]\ndecks = {decks}\n'
             'shuffle = "fresh"\n']
    for oracle_bet in bets:
        pays = ",\n".join(f'  {{ when = "{when}", pays = "{pays}" }}' for when, pays, _ in oracle_bet.lines)
        parts.append(f'[[bets]]\nid = "{oracle_bet.id}"\npays = [\n{pays},\n]\notherwise = "lose"\n')
    return "\n".join(parts)


def red(card_id: int) -> bool:
    """Hearts and diamonds are red."""
    return colour(card_id) == "red"


#: Rule sets of bets on the cards, each within the limits of one rule set (10 atoms, 64 card details).
BET_SETS = {
    # Suits and colours of the first four cards, compared with each other and counted.
    "first_four": (
        bet("colour_match", ("count(colour == red, first_four) in [0, 4]",
                             lambda d: d.count(red, "first_four") in (0, 4))),
        bet("p1_heart", ("P1.suit == hearts", lambda d: suit(d.P1) == "hearts")),
        bet("b2_black", ("B2.color == black", lambda d: colour(d.B2) == "black")),
        bet("first_cards_same_suit", ("P1.suit == B1.suit", lambda d: suit(d.P1) == suit(d.B1))),
        bet("p2_not_clubs", ("P2.suit != clubs", lambda d: suit(d.P2) != "clubs")),
        bet("two_spades", ("count(suit == spades, first_four) >= 2",
                           lambda d: d.count(lambda c: suit(c) == "spades", "first_four") >= 2)),
        bet("b1_red",
            ("B1.colour == red and P2.suit == diamonds", "5:1",
             lambda d: red(d.B1) and suit(d.P2) == "diamonds"),
            ("B1.colour == red and P2.suit != diamonds", "1:2",
             lambda d: red(d.B1) and suit(d.P2) != "diamonds")),
    ),
    # Third cards, a missing one being "no card".
    "third_cards": (
        bet("p3_eight", ("P3.rank == 8", lambda d: d.P3 is not None and rank(d.P3) == 8)),
        bet("p3_not_eight", ("P3.rank != 8", lambda d: d.P3 is None or rank(d.P3) != 8)),
        bet("p3_none", ("P3.rank == none", lambda d: d.P3 is None)),
        bet("three_giving_eight", ("banker_two_card_total == 3 and P3.rank == 8", "200:1",
                                   lambda d: d.banker_two_card_total == 3 and rank(d.P3) == 8)),
        bet("p3_over_b3", ("P3.rank > B3.rank",
                           lambda d: d.P3 is not None and d.B3 is not None and rank(d.P3) > rank(d.B3))),
        bet("b3_red", ("B3.colour == red", lambda d: d.B3 is not None and red(d.B3))),
        bet("p3_face", ("P3.rank in [J, Q, K]", lambda d: d.P3 is not None and rank(d.P3) >= 11)),
        bet("b3_low", ("B3.point < 4", lambda d: d.B3 is not None and point(d.B3) < 4)),
    ),
    "third_cards_more": (
        bet("p3_heart_or_none", ("P3.suit in [hearts, none]", lambda d: d.P3 is None or suit(d.P3) == "hearts")),
        bet("b3_not_none", ("B3.colour != none", lambda d: d.B3 is not None)),
        bet("third_cards_same_colour", ("P3.colour == B3.colour",
                                        lambda d: d.P3 is not None and d.B3 is not None
                                        and colour(d.P3) == colour(d.B3))),
        bet("third_cards_differ", ("P3.suit != B3.suit",
                                   lambda d: d.P3 is None or d.B3 is None or suit(d.P3) != suit(d.B3))),
        bet("b3_ace_or_king", ("B3.rank == A or B3.rank == king",
                               lambda d: rank(d.B3) in (1, 13))),
        bet("p3_at_most_p1", ("P3.rank <= P1.rank", lambda d: d.P3 is not None and rank(d.P3) <= rank(d.P1))),
    ),
    # Counts over groups of positions.
    "counts": (
        bet("red_player", ("count(colour == red, player) >= 2", lambda d: d.count(red, "player") >= 2)),
        bet("one_nine_banker", ("count(rank == 9, banker) == 1",
                                lambda d: d.count(lambda c: rank(c) == 9, "banker") == 1)),
        bet("no_eight_or_nine", ("count(point >= 8) == 0", lambda d: d.count(lambda c: point(c) >= 8) == 0)),
        bet("red_p1_b3", ("count(suit in [hearts, diamonds], P1, B3) == 2",
                          lambda d: d.count(red, ("P1", "B3")) == 2)),
        bet("third_not_spades", ("count(suit != spades, P3, B3) == 1",
                                 lambda d: d.count(lambda c: suit(c) != "spades", ("P3", "B3")) == 1)),
    ),
    "counts_more": (
        bet("low_cards", ("count(rank in [A, 2, 3], all) >= 3",
                          lambda d: d.count(lambda c: rank(c) <= 3, "all") >= 3)),
        bet("black_banker_all", ("count(colour == black, banker) == 3",
                                 lambda d: d.count(lambda c: not red(c), "banker") == 3)),
        bet("faces_first_four", ("count(rank > 10, first_four) in [1, 3]",
                                 lambda d: d.count(lambda c: rank(c) > 10, "first_four") in (1, 3))),
    ),
    # Hand patterns and two-card totals, one hand at a time.
    "player_patterns": (
        bet("player_suited", ("player_suited", lambda d: d.suited("player"))),
        bet("player_flush", ("player_flush", lambda d: d.flush("player"))),
        bet("player_trips", ("player_three_of_a_kind", lambda d: d.three_of_a_kind("player"))),
        bet("player_straight", ("player_straight", lambda d: d.straight("player"))),
        bet("player_straight_flush", ("player_straight_flush", lambda d: d.straight_flush("player"))),
        bet("player_two_five", ("player_two_card_total == 5", lambda d: d.player_two_card_total == 5)),
    ),
    "banker_patterns": (
        bet("banker_suited_two", ("banker_suited and banker_cards == 2",
                                  lambda d: d.suited("banker") and not d.banker_drew)),
        bet("banker_flush", ("banker_flush", lambda d: d.flush("banker"))),
        bet("banker_trips", ("banker_three_of_a_kind", lambda d: d.three_of_a_kind("banker"))),
        bet("banker_straight", ("banker_straight", lambda d: d.straight("banker"))),
        bet("banker_straight_flush", ("banker_straight_flush", lambda d: d.straight_flush("banker"))),
        bet("banker_two_high", ("banker_two_card_total >= 8", lambda d: d.banker_two_card_total >= 8)),
    ),
    # Card-level tests mixed with outcome features, several lines per bet.
    "mixed": (
        bet("banker_flush_win", ("winner == banker and banker_flush",
                                 lambda d: d.winner == "banker" and d.flush("banker"))),
        bet("hearts_winner",
            ("winner == banker and banker_flush and B1.suit == hearts", "40:1",
             lambda d: d.winner == "banker" and d.flush("banker") and suit(d.B1) == "hearts"),
            ("winner == banker and B1.suit == hearts and not banker_flush", "3:1",
             lambda d: d.winner == "banker" and suit(d.B1) == "hearts" and not d.flush("banker"))),
        bet("red_player_pair", ("player_pair and P1.colour == red", lambda d: d.player_pair and red(d.P1))),
        bet("nine_from_nine", ("player_score == 9 and P3.rank == 9",
                               lambda d: d.player_score == 9 and rank(d.P3) == 9)),
    ),
    "mixed_more": (
        bet("tie_or_black", ("winner == tie or count(colour == black, first_four) == 4",
                             lambda d: d.winner == "tie" or d.count(lambda c: not red(c), "first_four") == 4)),
        bet("standing_suited", ("not player_drew and P1.suit == P2.suit",
                                lambda d: not d.player_drew and suit(d.P1) == suit(d.P2))),
        bet("suited_winner",
            ("winner == player and player_suited", "5:1", lambda d: d.winner == "player" and d.suited("player")),
            ("winner == banker and banker_suited", "4:1", lambda d: d.winner == "banker" and d.suited("banker")),
            ("winner == tie", "push", lambda d: d.winner == "tie")),
        bet("natural_reds", ("natural and count(colour == red, first_four) >= 3 or banker_pair and B3.rank == none",
                             lambda d: (d.natural and d.count(red, "first_four") >= 3)
                             or (d.banker_pair and d.B3 is None))),
    ),
    # Atoms reading the ranks and suits of first-four cards against third cards: with the exact enumeration of
    # d7b588d, up to 8,392 kinds of first four cards with one pair of two-card totals against 3,102 scratch rows
    # on 8 decks, so the third-card stage runs whenever the rows fill (75 of the 100 pairs of totals).
    "many_classes": (
        bet("p1_over_p3", ("P1.rank > P3.rank", lambda d: d.P3 is not None and rank(d.P1) > rank(d.P3))),
        bet("b1_under_b3", ("B1.rank < B3.rank", lambda d: d.B3 is not None and rank(d.B1) < rank(d.B3))),
        bet("b2_p3_suit", ("B2.suit == P3.suit", lambda d: d.P3 is not None and suit(d.B2) == suit(d.P3))),
        bet("p2_b3_suit", ("P2.suit == B3.suit", lambda d: d.B3 is not None and suit(d.P2) == suit(d.B3))),
    ),
}


# --------------------------------------------------------------------------- poker hands, as the README defines them


#: The README's ladder of categories, lowest first.
POKER_LADDER = ("high_card", "pair", "two_pair", "three_pair", "straight", "flush", "three_of_a_kind", "full_house",
                "double_three_of_a_kind", "four_of_a_kind", "straight_flush", "royal", "five_of_a_kind",
                "six_of_a_kind")


def by_hand(value):
    """``value(cards)`` worked out once per hand, the cards as a tuple (a tuple it gives back comes out as a list).

    The predicates of a bet's lines ask the same hand's category again and again, line after line and round after
    round: remembering it takes two thirds off the poker brute force.
    """
    remembered = functools.lru_cache(maxsize=None)(value)

    @functools.wraps(value)
    def of(cards):
        result = remembered(tuple(cards))
        return list(result) if isinstance(result, tuple) else result
    return of


def hand_ranks(cards) -> list[int]:
    """Rank numbers 1 (Ace) .. 13 (King) of the cards dealt (None, a card not dealt, is not in the hand)."""
    return [rank(c) for c in cards if c is not None]


@by_hand
def rank_groups(cards) -> tuple[int, ...]:
    """How many cards of each rank the hand holds, largest first (``[3, 2]`` for a full house, as a list)."""
    return tuple(sorted(Counter(hand_ranks(cards)).values(), reverse=True))


def is_run(ranks) -> bool:
    """Different ranks that run in sequence, the Ace (1) low or high (as 14), never both."""
    if len(ranks) < 2 or len(set(ranks)) != len(ranks):
        return False
    for values in (sorted(ranks), sorted(14 if r == 1 else r for r in ranks)):
        if values[-1] - values[0] == len(values) - 1:
            return True
    return False


def is_flush(cards) -> bool:
    dealt = [c for c in cards if c is not None]
    return len(dealt) >= 2 and len({suit(c) for c in dealt}) == 1


@by_hand
def poker_category(cards) -> str:
    """The README's category of the hand: the highest rung of the ladder that it makes."""
    ranks = hand_ranks(cards)
    groups = rank_groups(cards)
    top = groups[0] if groups else 0
    flush, straight = is_flush(cards), is_run(ranks)
    if top >= 6:
        return "six_of_a_kind"
    if top == 5:
        return "five_of_a_kind"
    if flush and straight:
        return "royal" if 1 in ranks and 13 in ranks else "straight_flush"
    if top == 4:
        return "four_of_a_kind"
    if groups[:2] == [3, 3]:
        return "double_three_of_a_kind"
    if top == 3 and len(groups) > 1 and groups[1] >= 2:
        return "full_house"
    if top == 3:
        return "three_of_a_kind"
    if flush:
        return "flush"
    if straight:
        return "straight"
    pairs = sum(1 for g in groups if g >= 2)
    return ("high_card", "pair", "two_pair", "three_pair")[pairs]


@by_hand
def kind_rank(cards) -> int | None:
    """Rank number of the largest group, the higher on a tie with the Ace high; None without cards."""
    counts = Counter(hand_ranks(cards))
    if not counts:
        return None
    most = max(counts.values())
    return max((r for r, n in counts.items() if n == most), key=lambda r: 14 if r == 1 else r)
