"""A plain-Python reference dealer: slow, obviously correct, independent of the kernel.

It deals lists of card ids (``rank * 4 + suit``, see :mod:`baccarat_sim.model.cards`)
the way a dealer does, one card at a time, with the drawing rules written here
from the rule sheets' tableau (:func:`player_draws`, :func:`banker_draws`) and
nothing from the package's rules or engines: no numba, no lookup tables, no
encoded cards, no batched random draws. Only the layout of the outcome code
(:func:`baccarat_sim.model.codes.encode`) is shared, so that its results can be
compared with the engines'. The tests hold the numba kernels
(:mod:`baccarat_sim.kernels.round`, :mod:`baccarat_sim.kernels.dealing`) to it on hand-built shoes, and the
benchmarks use it as the baseline.

Randomness comes from Python's :class:`random.Random` (``sample`` for a fresh
shoe, ``shuffle`` for a dealt shoe, ``randint`` for the cut card), so a
reference run is reproducible from its seed but is not the kernel's stream:
the two agree in distribution, not round for round.

Examples
--------
Player K, 8 (a natural 8) against Banker 6, 3 (a natural 9):

>>> r = deal_round([12 * 4, 5 * 4, 7 * 4, 2 * 4 + 1, 3 * 4])
>>> r.player_score, r.banker_score, r.cards_used, r.fields()["first_card"]
(8, 9, 4, 0)
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence

import numpy as np

from baccarat_sim.model.codes import N_CODES, encode

__all__ = ["Round", "banker_draws", "card_point", "cards_before_first_round", "deal_dealt", "deal_fresh",
           "deal_round", "deal_shoe", "player_draws", "shoe_cards"]

N_SUITS = 4


def player_draws(total: int) -> bool:
    """The Player draws a third card on a two-card total of 0-5 and stands on 6-7 (every rule sheet)."""
    return total <= 5


def banker_draws(total: int, player_third: int | None) -> bool:
    """Whether the Banker draws, as the sheets' table reads (``player_third``: None when the Player stood).

    Player stood: the Banker draws on 0-5. Player drew: 0-2 always draws; 3
    draws unless the Player's third card is 8; 4 draws on 2-7; 5 on 4-7; 6 on
    6-7; 7 stands.
    """
    if player_third is None:
        return total <= 5
    if total <= 2:
        return True
    if total == 3:
        return player_third != 8
    if total == 4:
        return 2 <= player_third <= 7
    if total == 5:
        return 4 <= player_third <= 7
    if total == 6:
        return player_third in (6, 7)
    return False


def card_point(card: int) -> int:
    """Point value of a card: Ace 1, 2-9 their face value, 10, J, Q, K nothing."""
    rank = card // N_SUITS  # 0 = Ace, ..., 8 = Nine, 9 = Ten, 10-12 = J, Q, K
    return rank + 1 if rank <= 8 else 0


def _score(hand) -> int:
    return sum(card_point(card) for card in hand) % 10


def _pair(first: int, second: int) -> int:
    """0: no pair; 1: a pair (same rank); 2: a suited pair (same rank and suit)."""
    if first == second:
        return 2
    return 1 if first // N_SUITS == second // N_SUITS else 0


@dataclasses.dataclass(frozen=True)
class Round:
    """One dealt round: the cards of each hand in the order they were dealt."""

    player: tuple[int, ...]
    banker: tuple[int, ...]

    @property
    def cards_used(self) -> int:
        """Cards the round took from the shoe (4-6)."""
        return len(self.player) + len(self.banker)

    @property
    def player_score(self) -> int:
        """The Player's final score."""
        return _score(self.player)

    @property
    def banker_score(self) -> int:
        """The Banker's final score."""
        return _score(self.banker)

    def fields(self) -> dict[str, int]:
        """The outcome fields of :mod:`baccarat_sim.model.codes`."""
        player_rank, banker_rank = self.player[0] // N_SUITS, self.banker[0] // N_SUITS
        if player_rank > banker_rank:
            first_card = 0
        elif player_rank < banker_rank:
            first_card = 1
        else:
            first_card = 3 if self.player[0] == self.banker[0] else 2
        return {
            "player_score": self.player_score,
            "banker_score": self.banker_score,
            "player_cards": len(self.player) - 2,
            "banker_cards": len(self.banker) - 2,
            "player_pair": _pair(self.player[0], self.player[1]),
            "banker_pair": _pair(self.banker[0], self.banker[1]),
            "first_card": first_card,
        }

    @property
    def code(self) -> int:
        """The round's outcome code."""
        return int(encode(**self.fields()))


def deal_round(cards: Sequence[int]) -> Round:
    """Deal one round from the top of ``cards`` (card ids in dealing order).

    Player, Banker, Player, Banker; a natural (8 or 9 on two cards) on either
    side ends the round; otherwise the Player draws on 0-5, and the Banker
    draws by its total and the Player's third card (or on 0-5 when the Player
    stood).

    Raises
    ------
    IndexError
        If ``cards`` runs out before the round is finished.
    """
    player = [cards[0], cards[2]]
    banker = [cards[1], cards[3]]
    taken = 4
    player_total, banker_total = _score(player), _score(banker)
    if player_total < 8 and banker_total < 8:
        player_third = None
        if player_draws(player_total):
            player.append(cards[taken])
            taken += 1
            player_third = card_point(player[2])
        if banker_draws(banker_total, player_third):
            banker.append(cards[taken])
    return Round(tuple(player), tuple(banker))


def shoe_cards(composition) -> list[int]:
    """The card ids of a shoe composition (``(13, 4)`` counts), in canonical order."""
    counts = np.asarray(composition).reshape(-1)
    return [card for card in range(counts.size) for _ in range(int(counts[card]))]


def cards_before_first_round(turned: int, shoe) -> int:
    """Cards taken off the top of a new shoe before its first round.

    Parameters
    ----------
    turned : int
        The top card, turned face up to set the burn.
    shoe : baccarat_sim.model.rules.Shoe
        ``burn = "none"``: nothing; ``"fixed"``: ``burn_cards`` cards;
        ``"face_value"``: as many cards as the turned card's face value (Ace
        1, 2-9 their value, ten and face cards ``ten_value``), after the
        turned card if ``discard_turned`` (which is then burned too), or
        counting the turned card as the first of them otherwise.
    """
    if shoe.burn == "none":
        return 0
    if shoe.burn == "fixed":
        return shoe.burn_cards
    rank = turned // N_SUITS
    value = rank + 1 if rank <= 8 else shoe.ten_value
    return value + 1 if shoe.discard_turned else value


def deal_shoe(cards: Sequence[int], cut_index: int, shoe) -> list[Round]:
    """Deal an ordered shoe from the top until the cut card ends it.

    Parameters
    ----------
    cards : sequence of int
        Card ids in dealing order; ``cards[0]`` is turned for the burn.
    cut_index : int
        The cut card lies just before ``cards[cut_index]``, so it comes out as
        soon as a round takes that card (even as the round's first card).
        That round is finished and then ``shoe.rounds_after_cut`` more.
    shoe : baccarat_sim.model.rules.Shoe
        Burn and after-cut rules.

    Returns
    -------
    list of Round
        In dealing order. A round is only started with at least six cards left.
    """
    rounds = []
    position = cards_before_first_round(cards[0], shoe)
    rounds_left = None  # rounds still to deal once the cut card is out
    while len(cards) - position >= 6 and rounds_left != 0:
        round_ = deal_round(cards[position:position + 6])
        rounds.append(round_)
        position += round_.cards_used
        if rounds_left is not None:
            rounds_left -= 1
        elif position > cut_index:  # this round took the card behind the cut card
            rounds_left = shoe.rounds_after_cut
    return rounds


def deal_fresh(composition, rounds: int, seed: int) -> np.ndarray:
    """Histogram of ``rounds`` rounds, each from a freshly shuffled shoe.

    Returns
    -------
    ndarray(int64, shape=(N_CODES,))
    """
    rng = random.Random(seed)
    cards = shoe_cards(composition)
    counts = np.zeros(N_CODES, np.int64)
    for _ in range(rounds):
        counts[deal_round(rng.sample(cards, 6)).code] += 1
    return counts


def deal_dealt(shoe, shoes: int, seed: int, composition=None, n_positions: int | None = None) -> np.ndarray:
    """Per-position histogram of ``shoes`` shoes, each shuffled once and dealt to the cut card.

    Parameters
    ----------
    shoe : baccarat_sim.model.rules.Shoe
        Decks, burn, cut card (its distance from the end drawn uniformly from
        ``cut_card.low .. cut_card.high`` for every shoe) and after-cut rule.
    shoes : int
        Shoes to deal.
    seed : int
        Seed of :class:`random.Random`.
    composition : ndarray(int64, shape=(13, 4)), optional
        Overrides ``shoe.decks``.
    n_positions : int, optional
        Rows of the result (default: one per possible round, ``N // 4 + 1``);
        the last row also takes every later round.

    Returns
    -------
    ndarray(int64, shape=(n_positions, N_CODES))
        Row ``k``: the ``k``-th round (0-based) of each shoe.
    """
    rng = random.Random(seed)
    cards = shoe_cards(np.full((13, 4), shoe.decks) if composition is None else composition)
    rows = len(cards) // 4 + 1 if n_positions is None else n_positions
    counts = np.zeros((rows, N_CODES), np.int64)
    for _ in range(shoes):
        rng.shuffle(cards)
        cut_index = len(cards) - rng.randint(shoe.cut_card.low, shoe.cut_card.high)
        for k, round_ in enumerate(deal_shoe(cards, cut_index, shoe)):
            counts[min(k, rows - 1), round_.code] += 1
    return counts
