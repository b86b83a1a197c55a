"""The condition language's features: what a condition can name of a round, and which outcome codes can happen.

Outcome features (:data:`FEATURES`: ``winner``, ``player_pair``, ``natural``,
...) are functions of the outcome code, evaluated once over all 14,400 codes
(:func:`feature_table`); card-level features (:data:`CARD_FEATURES`: two-card
totals, hand patterns) are values of the cards
(:mod:`baccarat_sim.model.cardlevel`). Naturals and draws are read from the
tableau and the code's layout (:mod:`baccarat_sim.model.tableau`,
:mod:`baccarat_sim.model.codes`), never restated here.

Not every code can happen at the table (a Banker natural beside a three-card
Player hand cannot): :func:`possible_codes` says which can, and the rule-set
validator uses it to reject pay-table lines that could never pay.
"""

from __future__ import annotations

import functools

import numpy as np

from .cardlevel import HAND_PATTERNS, CardValue, HandPattern, TwoCardTotal
from .cards import N_RANKS, RANK_POINTS
from .codes import FIELDS, N_CODES, code_of, field_grid, first_card_status, pair_status, suffix_of
from .tableau import THIRD_CARD_PREFIX, is_natural, third_card_index

__all__ = ["CARD_FEATURES", "FEATURES", "feature_table", "possible_codes"]

#: Feature name -> (description, symbolic values or None, allowed integer range).
FEATURES: dict[str, tuple[str, dict[str, int] | None, tuple[int, int]]] = {
    "winner": ("the winning hand", {"player": 0, "banker": 1, "tie": 2}, (0, 2)),
    "player_score": ("the Player's final score", None, (0, 9)),
    "banker_score": ("the Banker's final score", None, (0, 9)),
    "winner_score": ("the winning hand's score (the tied score on a tie)", None, (0, 9)),
    "loser_score": ("the losing hand's score (the tied score on a tie)", None, (0, 9)),
    "margin": ("winning score minus losing score (0 on a tie)", None, (0, 9)),
    "player_cards": ("cards in the Player's hand", None, (2, 3)),
    "banker_cards": ("cards in the Banker's hand", None, (2, 3)),
    "total_cards": ("cards in both hands", None, (4, 6)),
    "player_natural": ("the Player has a two-card 8 or 9", None, (0, 1)),
    "banker_natural": ("the Banker has a two-card 8 or 9", None, (0, 1)),
    "natural": ("either hand has a natural", None, (0, 1)),
    "winner_natural": ("the winning hand has a natural", None, (0, 1)),
    "player_pair": ("the Player's first two cards have equal rank", None, (0, 1)),
    "banker_pair": ("the Banker's first two cards have equal rank", None, (0, 1)),
    "any_pair": ("the Player or the Banker has a pair", None, (0, 1)),
    "player_perfect_pair": ("the Player's first two cards have equal rank and suit", None, (0, 1)),
    "banker_perfect_pair": ("the Banker's first two cards have equal rank and suit", None, (0, 1)),
    "first_card": (
        "Player's vs Banker's first card by rank (Ace low, King high)",
        {"player_high": 0, "banker_high": 1, "tie": 2, "suited_tie": 3},
        (0, 3),
    ),
    "first_card_tie": ("the two first cards have equal rank (suited or not)", None, (0, 1)),
    "player_drew": ("the Player drew a third card", None, (0, 1)),
    "banker_drew": ("the Banker drew a third card", None, (0, 1)),
}

#: Card-level features by name: hand patterns and two-card totals (see :mod:`baccarat_sim.model.cardlevel`).
CARD_FEATURES: dict[str, tuple[str, CardValue]] = {
    f"{hand}_two_card_total": (f"the {hand.capitalize()}'s total on its first two cards (0-9)", TwoCardTotal(hand))
    for hand in ("player", "banker")
}
CARD_FEATURES.update({
    f"{hand}_{pattern}": (f"the {hand.capitalize()}'s hand: {meaning}", HandPattern(hand, pattern))
    for hand in ("player", "banker") for pattern, meaning in HAND_PATTERNS.items()
})


@functools.lru_cache(maxsize=1)
def feature_table() -> dict[str, np.ndarray]:
    """Every feature evaluated over all outcome codes (read-only arrays)."""
    g = field_grid()
    ps, bs = g["player_score"], g["banker_score"]
    # A code's score is a two-card total exactly when its hand has two cards.
    player_natural = (g["player_cards"] == 0) & is_natural(ps)
    banker_natural = (g["banker_cards"] == 0) & is_natural(bs)
    winner = np.where(ps > bs, 0, np.where(bs > ps, 1, 2))
    table = {
        "winner": winner,
        "player_score": ps,
        "banker_score": bs,
        "winner_score": np.maximum(ps, bs),
        "loser_score": np.minimum(ps, bs),
        "margin": np.abs(ps - bs),
        "player_cards": g["player_cards"] + 2,
        "banker_cards": g["banker_cards"] + 2,
        "total_cards": g["player_cards"] + g["banker_cards"] + 4,
        "player_natural": player_natural,
        "banker_natural": banker_natural,
        "natural": player_natural | banker_natural,
        "winner_natural": np.where(winner == 0, player_natural, np.where(winner == 1, banker_natural, False)),
        "player_pair": g["player_pair"] > 0,
        "banker_pair": g["banker_pair"] > 0,
        "any_pair": (g["player_pair"] > 0) | (g["banker_pair"] > 0),
        "player_perfect_pair": g["player_pair"] == 2,
        "banker_perfect_pair": g["banker_pair"] == 2,
        "first_card": g["first_card"],
        "first_card_tie": g["first_card"] >= 2,
        "player_drew": g["player_cards"] == 1,
        "banker_drew": g["banker_cards"] == 1,
    }
    for name, values in table.items():
        values = np.asarray(values, dtype=np.int64)
        values.setflags(write=False)
        table[name] = values
    return table


@functools.lru_cache(maxsize=1)
def possible_codes() -> np.ndarray:
    """Which outcome codes can happen at the table.

    A code is possible when some deal of cards produces it under the drawing
    rules. The answer is worked out from the rules of play alone (no shoe, no
    numba): every rank of the first four cards, every point value of the two
    third cards. Whether the first cards also match in suit (perfect pairs, a
    suited first-card tie) is free given equal ranks, because the three suit
    relations (Player's two cards, Banker's two cards, the two first cards)
    form a tree and never constrain one another. Every standard shoe of four or
    more decks deals every possible code (fewer decks cannot deal, for example,
    two perfect pairs on a suited first-card tie: four identical cards).

    Returns
    -------
    ndarray(bool, shape=(N_CODES,))
        Read-only.

    Examples
    --------
    >>> int(possible_codes().sum())
    5388
    """
    ranks = np.arange(N_RANKS)
    p1, b1, p2, b2 = (a.ravel() for a in np.meshgrid(ranks, ranks, ranks, ranks, indexing="ij"))
    player_two = (RANK_POINTS[p1] + RANK_POINTS[p2]) % 10
    banker_two = (RANK_POINTS[b1] + RANK_POINTS[b2]) % 10
    suffix = suffix_of(pair_status(p1 == p2, False), pair_status(b1 == b2, False), first_card_status(p1, b1, False))
    # Only these three numbers of the first four cards matter from here on.
    signature = np.unique(np.stack([player_two, banker_two, suffix], axis=1), axis=0)
    pt, bt, sfx = (signature[:, i, None, None] for i in range(3))
    third_p, third_b = np.arange(10)[None, :, None], np.arange(10)[None, None, :]
    codes = code_of(THIRD_CARD_PREFIX[third_card_index(pt, bt, third_p, third_b)], sfx)
    possible = np.zeros(N_CODES, bool)
    possible[codes.ravel()] = True
    # Equal ranks may also be equal suits: pair 1 -> 2, tie 2 -> 3, independently.
    grid = field_grid()
    for name, plain, suited in (("player_pair", 1, 2), ("banker_pair", 1, 2), ("first_card", 2, 3)):
        names = [field for field, _ in FIELDS]
        step = int(np.prod([size for _, size in FIELDS[names.index(name) + 1:]]))
        from_plain = np.flatnonzero(possible & (grid[name] == plain))
        possible[from_plain + (suited - plain) * step] = True
    possible.setflags(write=False)
    return possible
