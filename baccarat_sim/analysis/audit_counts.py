"""Running and true counts of logged shoes, and the best count of each countable bet.

The count of a bet is the one the project derives from the bet's exact effects of removal
(:func:`baccarat_sim.analysis.eor.derive_tags`): of the balanced tags of level 1 to :data:`MAX_LEVEL`, the one of
largest betting correlation. A round's running count is the sum of the tags of every card seen in its shoe before
it (the card turned for the burn where it is logged, then every card of the earlier rounds); its true count is
the running count per 52 cards not yet seen. Everything is vectorised over the rounds of many shoes.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from ..model.cards import N_RANKS, N_SUITS
from ..model.rules import Rules
from .eor import derive_tags, effect_of_removal

__all__ = ["MAX_LEVEL", "BetCount", "ShoeCounts", "best_count", "counts_before_rounds"]

#: Largest tag a count may use.
MAX_LEVEL = 3


@dataclasses.dataclass(frozen=True)
class BetCount:
    """The best count of one bet and what it is worth.

    Attributes
    ----------
    bet : str
    tags : tuple of 13 int
        Tag of Ace..King.
    level : int
    betting_correlation : float
    base_ev : float
        The bet's EV off the top (per unit staked).
    ev_per_true_count : float
        The EV gained per unit of true count (linear estimate,
        :func:`~baccarat_sim.analysis.eor.break_even_true_count`).
    break_even_true_count : float
    """

    bet: str
    tags: tuple[int, ...]
    level: int
    betting_correlation: float
    base_ev: float
    ev_per_true_count: float
    break_even_true_count: float

    def edge(self, true_count: np.ndarray) -> np.ndarray:
        """The player's estimated EV per unit staked at these true counts."""
        return self.base_ev + self.ev_per_true_count * np.asarray(true_count, float)


_FOUND: dict = {}


def best_count(rules: Rules, bet_id: str) -> BetCount | None:
    """The best count of ``bet_id`` (None: no card's removal moves the bet, e.g. a bet on the first card alone)."""
    key = (rules.sha256, rules.shoe.decks, bet_id)
    if key not in _FOUND:
        _FOUND[key] = _best_count(rules, bet_id)
    return _FOUND[key]


def _best_count(rules: Rules, bet_id: str) -> BetCount | None:
    eor = effect_of_removal(rules, bets=[bet_id])
    best = None
    for level in range(1, MAX_LEVEL + 1):
        try:
            tags = derive_tags(eor, bet_id, level=level)
        except Exception:  # noqa: BLE001 - InputError: every effect zero, or no balanced tags at this level
            continue
        if best is None or tags.betting_correlation > best.betting_correlation + 1e-9:
            best = tags
    if best is None or not math.isfinite(best.break_even_true_count):
        return None
    base = float(eor.base[bet_id])
    per_true = -base / best.break_even_true_count if best.break_even_true_count else 0.0
    return BetCount(bet_id, best.tags, best.level, best.betting_correlation, base, per_true,
                    best.break_even_true_count)


class ShoeCounts:
    """What every count of logged shoes shares: the cards of each rank each round dealt and the cards seen before it.

    :meth:`before_rounds` gives one count's running and true count before each round; made once for the rounds of
    a rule set, it serves the count of each of its bets (:func:`counts_before_rounds` for one count).

    Parameters
    ----------
    cards : ndarray(int, shape=(n, 6))
        Card ids of each round (-1: none), rounds of a shoe consecutive and in order.
    shoe_start : ndarray(bool, shape=(n,))
        True on each shoe's first round.
    n_cards : int
        Cards in a full shoe.
    turned : ndarray(int, shape=(n,)) or None
        The card turned for the burn, on each shoe's first round (-1 elsewhere or where not logged): it is seen.
    """

    def __init__(self, cards: np.ndarray, shoe_start: np.ndarray, n_cards: int, turned: np.ndarray | None = None):
        cards = np.asarray(cards)
        n = len(cards)
        # Each round's cards of each rank (the last row: no card), in small integers: a count's tags are then 13
        # multiply-adds over the rounds, not a gather of six int64 columns a year long.
        self.by_rank = np.zeros((N_RANKS + 1, n), np.int8)
        every = np.arange(n)
        for column in cards.T:  # a card a round per column: no two adds to one cell
            self.by_rank[np.where(column >= 0, column // N_SUITS, N_RANKS), every] += 1
        self.shoe_start = np.asarray(shoe_start, bool)
        round_cards = (cards >= 0).sum(axis=1)
        seen_turned = np.zeros(n, np.int64)
        self.turned_rank = np.full(n, -1, np.int64)
        if turned is not None:
            turned = np.asarray(turned, np.int64)
            shown = turned >= 0
            seen_turned[shown] = 1
            self.turned_rank[shown] = turned[shown] // N_SUITS
        seen = _within_shoe_exclusive(round_cards, self.shoe_start) + _carry(seen_turned, self.shoe_start)
        self.unseen = np.maximum(n_cards - seen, 1)

    def before_rounds(self, tags) -> tuple[np.ndarray, np.ndarray]:
        """The running and the true count (per 52 unseen cards) before each round, float64, of ``tags`` (Ace..King)."""
        tags = np.asarray(tags, np.int64)
        round_tags = np.zeros(self.by_rank.shape[1], np.int64)
        for rank, tag in enumerate(tags.tolist()):
            if tag:
                round_tags += tag * self.by_rank[rank].astype(np.int64)
        shown = self.turned_rank >= 0
        seen_tag = np.where(shown, tags[np.maximum(self.turned_rank, 0)], 0)
        running = _within_shoe_exclusive(round_tags, self.shoe_start) + _carry(seen_tag, self.shoe_start)
        return running.astype(float), running * 52.0 / self.unseen


def counts_before_rounds(cards: np.ndarray, shoe_start: np.ndarray, tags, n_cards: int,
                         turned: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Running and true count before each round.

    Parameters
    ----------
    cards : ndarray(int, shape=(n, 6))
        Card ids of each round (-1: none), rounds of a shoe consecutive and in order.
    shoe_start : ndarray(bool, shape=(n,))
        True on each shoe's first round.
    tags : sequence of 13 int
        Tag of Ace..King.
    n_cards : int
        Cards in a full shoe.
    turned : ndarray(int, shape=(n,)) or None
        The card turned for the burn, on each shoe's first round (-1 elsewhere or where not logged): it is seen.

    Returns
    -------
    (ndarray(float64), ndarray(float64))
        The running count and the true count (per 52 unseen cards) before each round.
    """
    return ShoeCounts(cards, shoe_start, n_cards, turned).before_rounds(tags)


def shoe_number(shoe_start: np.ndarray) -> np.ndarray:
    """The shoe of each round, numbered from 0 (rounds of a shoe consecutive)."""
    return np.cumsum(shoe_start) - 1


def _within_shoe_exclusive(values: np.ndarray, shoe_start: np.ndarray) -> np.ndarray:
    """Sum of ``values`` over the earlier rounds of each round's shoe."""
    total = np.cumsum(values) - values
    return total - total[np.flatnonzero(shoe_start)][shoe_number(shoe_start)]


def _carry(first_values: np.ndarray, shoe_start: np.ndarray) -> np.ndarray:
    """The value on each shoe's first round, spread over the shoe."""
    return first_values[np.flatnonzero(shoe_start)][shoe_number(shoe_start)]
