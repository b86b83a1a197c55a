"""The layout of a group of atoms for the exact count by rank, and that count's cost, known before it runs.

:func:`rankwise_layout` is what :mod:`baccarat_sim.engines.rankwise` packs for
the kernel (:mod:`baccarat_sim.kernels.rankwise`) and reads nothing but the
atoms: each card id's *kind* and suit slot (by rank, or by what is read of the
card where no suit is compared between positions), the group's joint class of
a card of each kind and suit at each position and whether it depends on the
suit, the poker hands and which read suits, each atom's truth-table terms.
:func:`rankwise_cost` reads the cost off it (:mod:`baccarat_sim.model.cost`
reports it for groups counted by rank).
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from .cardlevel import NONE, POSITIONS
from .cards import N_CARD_IDS, N_SUITS, RANK_POINTS
from .codes import N_CODES, N_PREFIXES, cards_used_of
from .detail_tables import _RANK_ONLY, _derived_of, joint_classes
from .tableau import THIRD_CARD_PREFIX, third_card_index

__all__ = ["REMEMBERED_VALUES", "RankwiseCost", "rankwise_cost", "rankwise_layout"]

#: What a round counted by rank costs beside a round counted by card, at most: the values of its suit
#: distribution, most of which a call remembers by their context (the kinds' classes, the hands' states).
REMEMBERED_VALUES = 64

def _hands(atoms) -> dict:
    """The hands the atoms' poker values read (positions, in POSITIONS order) -> whether a value over it reads suits."""
    hands: dict = {}
    for d in _derived_of(atoms):
        over = tuple(p for p in POSITIONS if p in d.over)
        hands[over] = hands.get(over, False) or d.which not in _RANK_ONLY
    return hands


def _pooled(keys: list) -> np.ndarray:
    """The kind of each row of ``keys`` (columns side by side): rows with equal keys share one."""
    return np.unique(np.stack(keys, axis=1), axis=0, return_inverse=True)[1].ravel().astype(np.int64)


def _card_kinds(atoms, outcomes: str, classes: list) -> tuple[np.ndarray, np.ndarray]:
    """The kind and the suit slot of every card id: by rank with its suit, or by what is read of the card alone.

    By rank (ranks pooled where nothing tells them apart): a kind's cards are told apart by their suits, which the
    enumeration counts (:mod:`baccarat_sim.kernels.rankwise`). By card (where no poker value reads suits and the
    outcome is a code prefix, so that no two positions' suits are compared but through the atoms' classes): cards
    that every position reads alike share a kind and its one slot, and no suit is counted. The cheaper is taken,
    by rounds times the values of a suit distribution.
    """
    ids = np.arange(N_CARD_IDS)
    rank, suit = ids // N_SUITS, ids % N_SUITS
    read = [column[:N_CARD_IDS] for column in classes]
    hands = _hands(atoms)
    if outcomes == "codes" or hands:
        by_rank = rank
    else:  # ranks that no position tells apart, suit by suit, share one kind
        by_rank = _pooled([RANK_POINTS[rank], *(column[rank * N_SUITS + s] for column in read
                                                 for s in range(N_SUITS))])
    if outcomes == "codes" or any(hands.values()):
        return by_rank, suit
    by_card = _pooled([RANK_POINTS[rank], *read, *([rank] if hands else [])])
    n_rank, n_card = int(by_rank.max()) + 1, int(by_card.max()) + 1
    values = 1.0
    for column in read:  # the most classes the suits of one kind give at each position
        values *= max(len(np.unique(column[by_rank == k])) for k in range(n_rank))
    # Rounds of kinds, times the values of a suit distribution counted by rank: most of them are remembered
    # (:data:`REMEMBERED_VALUES` a round, as measured on the catalogue's suit and colour bets).
    if float(n_card) ** 6 <= float(n_rank) ** 6 * min(values, REMEMBERED_VALUES):
        return by_card, np.zeros(N_CARD_IDS, np.int64)
    return by_rank, suit


@functools.lru_cache(maxsize=64)
def rankwise_layout(atoms: tuple, outcomes: str):
    """What of the tables depends on the atoms alone (not the shoe)."""
    classes, representatives = joint_classes(atoms)
    kind_of, slot_of = _card_kinds(atoms, outcomes, classes)
    n_kinds = int(kind_of.max()) + 1
    first_card = np.array([np.flatnonzero(kind_of == k)[0] for k in range(n_kinds)], np.int64)
    # Each kind's card in each suit slot (a slot without cards reads as the kind's first card).
    cards = np.repeat(first_card[:, None], N_SUITS, axis=1)
    cards[kind_of, slot_of] = np.arange(N_CARD_IDS)
    by_kind = np.stack([column[cards] for column in classes])  # (6, n_kinds, 4)
    varies = (by_kind != by_kind[:, :, :1]).any(axis=2).astype(np.int64)
    hands = _hands(atoms)
    suit_hands = [over for over, suits in hands.items() if suits]
    hand_list = list(hands)
    hand_over = np.array([[p in over for p in POSITIONS] for over in hand_list], np.int64).reshape(len(hands), 6)
    hand_suits = np.array([suit_hands.index(h) if h in suit_hands else -1 for h in hand_list], np.int64)
    n_classes = max(len(r) for r in representatives)
    atom_term = np.zeros((len(atoms), len(POSITIONS), n_classes), np.int64)
    value_first, value_which, value_hand, value_stride, truth, truth_offset = [0], [], [], [], [], []
    offset = 0
    for a, atom in enumerate(atoms):
        strides = atom.strides
        for j, position in enumerate(atom.positions):
            p = POSITIONS.index(position)
            reps = representatives[p]
            atom_term[a, p, :len(reps)] = atom.projection[j][reps] * strides[j]
        for i, hand_value in enumerate(atom.derived):
            value_which.append(hand_value.number)
            value_hand.append(hand_list.index(tuple(p for p in POSITIONS if p in hand_value.over)))
            value_stride.append(strides[len(atom.positions) + i])
        value_first.append(len(value_which))
        truth.append(atom.truth.astype(np.uint8))
        truth_offset.append(offset)
        offset += atom.truth.size
    none_class = np.array([column[NONE] for column in classes], np.int64)
    return (kind_of, slot_of, first_card // N_SUITS, by_kind, varies, none_class, hand_over, hand_suits, atom_term,
            np.array(value_first, np.int64), np.array(value_which, np.int64), np.array(value_hand, np.int64),
            np.array(value_stride, np.int64), np.concatenate(truth), np.array(truth_offset, np.int64))


#: CPU-seconds of the count by rank (2-core machine, two threads, load ~5), per round of kinds and per unit of what
#: drives it: the suit distributions a round works out, (2 ** hands whose poker value reads suits) ** 2 times (the
#: values the positions' suits tell apart) ** 0.6, most of them remembered where every kind's suits are alike, few
#: where the shoe is depleted unevenly (whether code prefixes or codes are counted barely matters). Measured on 8
#: decks, 1.66 M rounds, wall seconds (full shoe / one card removed / 0-3 cards of each rank and suit removed):
#: ``poker(all) == flush`` (drive 4) 0.5 / 0.5 / 5.7; ``poker(banker) > poker(player)`` (16) 1.7 / 0.7 / 22.9, code
#: prefixes on 6 decks, 19 cards removed, 21.9; ``P1.suit == B1.suit and P2.suit == B2.suit and poker(all) ==
#: flush`` (111) 15.7 / 78 / 133.
SECONDS_PER_ROUND = 3e-7
SECONDS_PER_DRIVE = 1.2e-7
#: ... and where no context is remembered (every kind's suits its own).
WORST_SECONDS_PER_DRIVE = 1.7e-6


def _uneven(kind_of: np.ndarray, slot_of: np.ndarray, n_kinds: int, shoe) -> float:
    """How unevenly the shoe's suits are spread over its kinds: 0 where all alike, 1 where each kind's are its own.

    The square root of the share of kinds whose suit distribution differs from the commonest one.
    """
    if shoe is None or n_kinds < 2:
        return 0.0
    by_suit = np.zeros((n_kinds, N_SUITS), np.int64)
    np.add.at(by_suit, (kind_of, slot_of), np.asarray(shoe, np.int64).reshape(-1))
    counts = np.unique(by_suit, axis=0, return_counts=True)[1]
    return float(np.sqrt((n_kinds - counts.max()) / (n_kinds - 1)))


class RankwiseCost(NamedTuple):
    """The rank-wise count's cost for a group, known before anything is built (:func:`rankwise_cost`).

    Attributes
    ----------
    kinds : int
        Kinds of card enumerated (ranks, or cards read alike).
    rounds : int
        Rounds of kinds the enumeration visits (first four cards' kinds, then the third cards' as drawn).
    values : int
        Most values of one round's suit distribution (what the atoms can tell apart of the suits).
    bytes : int
        Peak bytes: each thread's remembered distributions and output, for ``threads`` threads.
    seconds : float
        CPU-seconds on the shoe given (on one whose suits are equally represented where none is: contexts mostly
        remembered; towards :attr:`worst_seconds` as the shoe is depleted unevenly).
    worst_seconds : float
        CPU-seconds where no context is remembered (a shoe depleted unevenly, every kind's suits its own).
    """

    kinds: int
    rounds: int
    values: int
    bytes: int
    seconds: float
    worst_seconds: float


def _rounds(points: np.ndarray) -> int:
    """Rounds of kinds of the given point values: first four kinds, then the third cards' kinds the tableau draws."""
    by_point = np.bincount(points, minlength=10).astype(np.float64)
    n_kinds = float(len(points))
    p = np.arange(10)
    totals = (p[:, None] + p[None, :]) % 10
    pairs = np.zeros(10)  # kinds of two cards by their total
    np.add.at(pairs, totals.reshape(-1), np.outer(by_point, by_point).reshape(-1))
    rounds = 0.0
    for pt in range(10):
        for bt in range(10):
            stands = THIRD_CARD_PREFIX[third_card_index(pt, bt, 0, 0)]
            if cards_used_of(stands) == 4:
                options = 1.0
            else:
                options = sum(by_point[v] * (1.0 if cards_used_of(THIRD_CARD_PREFIX[third_card_index(pt, bt, v, 0)])
                                              == 5 else n_kinds) for v in range(10))
            rounds += pairs[pt] * pairs[bt] * options
    return int(rounds)


def rankwise_cost(atoms: tuple, outcomes: str, threads: int = 2, shoe=None) -> RankwiseCost:
    """What counting a group by rank costs: rounds, values of a suit distribution, bytes and seconds.

    Read off the group's layout and the shoe's counts by rank and suit (``shoe``, ``(13, 4)``; None: one whose
    suits are equally represented); nothing allocated but the layout's small tables.
    """
    (kind_of, slot_of, first_rank, by_kind, varies, none_class, hand_over, hand_suits, atom_term, *_rest
     ) = rankwise_layout(tuple(atoms), outcomes)
    n_kinds = len(first_rank)
    present = np.ones(n_kinds, bool)
    if shoe is not None:  # the enumeration skips the kinds the shoe holds no card of
        held = np.zeros(n_kinds, np.int64)
        np.add.at(held, kind_of, np.asarray(shoe, np.int64).reshape(-1))
        present = held > 0
    rounds = _rounds(RANK_POINTS[first_rank[present]])
    values = 1
    for p in range(len(POSITIONS)):  # what the suits of a position can tell apart
        values *= max(1, max(len(np.unique(by_kind[p, k])) for k in range(n_kinds)))
    suit_hands = 2 ** int((hand_suits >= 0).sum())
    drive = suit_hands ** 2 * min(values, 4 ** len(POSITIONS)) ** 0.6
    values = min(values * suit_hands * (8 if outcomes == "codes" else 1), 4 ** len(POSITIONS))
    n_outcomes = N_CODES if outcomes == "codes" else N_PREFIXES
    rows = min(2 ** len(atoms), 1 << 20)
    memo = 8 * (4 * (1 << 12) + (1 << 12) + 2 * (1 << 16) + 2 * (1 << 14) * (9 + hand_over.shape[0])
                + (1 << 15) + 3 * (1 << 16) + 2 * min(1 << (len(atoms) + 1), 1 << 21))
    output = 8 * rows * n_outcomes
    typical = rounds * (SECONDS_PER_ROUND + drive * SECONDS_PER_DRIVE)
    worst = rounds * (SECONDS_PER_ROUND + drive * WORST_SECONDS_PER_DRIVE)
    seconds = typical + (worst - typical) * _uneven(kind_of, slot_of, n_kinds, shoe)
    return RankwiseCost(n_kinds, rounds, values, threads * (memo + 2 * output) + output, seconds, worst)
