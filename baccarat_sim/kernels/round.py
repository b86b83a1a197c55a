"""One round from six encoded cards: the tableau's tables, the round's code and cards used, its card detail.

Pure numba functions, no I/O. Every kernel that deals a round (the Monte
Carlo lanes, the counting and sessions kernels) reads it here, from the next
six encoded cards (:mod:`baccarat_sim.kernels.encoding`) of a dealt shoe
(:func:`round_at`) or of six positions drawn at random
(:func:`baccarat_sim.kernels.fresh.fresh_round_parts`). The tables are read
off the model's definitions (:mod:`baccarat_sim.model.tableau`,
:mod:`baccarat_sim.model.codes`) when the module loads.
"""

from __future__ import annotations

import numpy as np

from ..model import codes, tableau
from ..model.cards import N_CARD_IDS, SUIT_BITS
from ..model.codes import N_PREFIXES
from ..model.tableau import THIRD_CARD_PREFIX
from .detail import NO_CARD, detail_index, put_round
from .encoding import POINT_BITS, POINT_MASK
from .jit import inline_where_typed, jit
from .outcome import banker_drew_of, code_of, player_drew_of, suffix_of, third_card_index, third_cards

__all__ = ["batch_round", "cards_at", "dealt_round", "round_at", "round_code", "round_detail", "round_parts",
           "round_with_detail"]

_U1, _U2, _U3, _U4, _U5 = (np.uint64(k) for k in range(1, 6))
# The tableau's prefix table in uint16: 20 KB, so it stays in the L1 cache
# beside the histogram instead of spilling into L2 as 80 KB of int64.
_THIRD_CARD_PREFIX16 = THIRD_CARD_PREFIX.astype(np.uint16)


def _sums_index_of(player_sum, banker_sum, next_point):
    """Where :data:`_CARDS_USED` holds a round: the two-card point sums (0-18, not reduced), the next point."""
    return (player_sum << 9) | (banker_sum << 4) | next_point


_sums_index = jit(inline="always")(_sums_index_of)


def _cards_used_by_sums() -> np.ndarray:
    # The cards a round uses, read off the tableau's table (codes.cards_used_of of its prefix) by what decides it:
    # the two-card point sums and the next card's point (the Player's third card, which the Banker's draw reads).
    # In a dealt shoe the next round starts where this one ends, so this lookup is the shoe's critical path: by
    # the sums (no reduction mod 10) and without the fourth digit, it takes a third of the time the prefix does.
    table = np.zeros(_sums_index_of(18, 18, 9) + 1, np.uint8)
    for player_sum, banker_sum, next_point in np.ndindex(19, 19, 10):
        used = {int(codes.cards_used_of(THIRD_CARD_PREFIX[tableau.third_card_index(player_sum % 10, banker_sum % 10,
                                                                                   next_point, point_after)]))
                for point_after in range(10)}
        (table[_sums_index_of(player_sum, banker_sum, next_point)],) = used  # the card after never counts
    return table


_CARDS_USED = _cards_used_by_sums()
# Where the tableau's table starts the two-card totals of the hands' point sums (0-18, at ``player_sum << POINT_BITS
# | banker_sum``): one load instead of two reductions mod 10 and half of the index's arithmetic.
_TOTALS_INDEX = np.zeros(1 << (2 * POINT_BITS), np.int64)
for _player_sum, _banker_sum in np.ndindex(19, 19):
    _TOTALS_INDEX[(_player_sum << POINT_BITS) | _banker_sum] = tableau.third_card_index(_player_sum % 10,
                                                                                      _banker_sum % 10, 0, 0)
_TOTALS_INDEX = _TOTALS_INDEX.astype(np.uint16)


def _pair_index_of(card_a, card_b):
    """Where :data:`_PAIR_STATUS` and :data:`_FIRST_CARD_STATUS` hold two card ids (``rank * 4 + suit``)."""
    return (card_a << 6) | card_b


_pair_index = jit(inline="always")(_pair_index_of)


def _status_tables() -> tuple[np.ndarray, np.ndarray]:
    # The code's suffix fields by card pair, read off their definitions (codes.pair_status, codes.first_card_status,
    # as outcome.suffix_of_cards reads them): two loads replace a dozen compares and shifts per round.
    pair_status = np.zeros(_pair_index_of(N_CARD_IDS - 1, 63) + 1, np.uint8)
    first_card_status = np.zeros_like(pair_status)
    for card_a, card_b in np.ndindex(N_CARD_IDS, N_CARD_IDS):
        rank_a, rank_b = card_a >> SUIT_BITS, card_b >> SUIT_BITS
        at = _pair_index_of(card_a, card_b)
        pair_status[at] = codes.pair_status(rank_a == rank_b, card_a == card_b)
        first_card_status[at] = codes.first_card_status(rank_a, rank_b, card_a == card_b)
    return pair_status, first_card_status


_PAIR_STATUS, _FIRST_CARD_STATUS = _status_tables()
for _table in (_THIRD_CARD_PREFIX16, _CARDS_USED, _TOTALS_INDEX, _PAIR_STATUS, _FIRST_CARD_STATUS):
    _table.setflags(write=False)


@jit(inline="always")
def round_parts(e0, e1, e2, e3, e4, e5):
    """A round's outcome as ``(prefix, suffix, cards_used)``: code = ``prefix * N_SUFFIXES + suffix``.

    ``e0..e5`` are the next six encoded cards in dealing order (Player,
    Banker, Player, Banker, then the third cards, read only if the tableau
    draws them). ``prefix`` (0-399) holds the scores and card counts, read
    off the tableau's table; ``suffix`` (0-35) the pairs and the first-card
    comparison, worked out with plain integer compares
    (:func:`~baccarat_sim.kernels.outcome.suffix_of_cards`, by tables of card pairs).
    """
    player_sum = (e0 + e2) & POINT_MASK
    banker_sum = (e1 + e3) & POINT_MASK
    index = _TOTALS_INDEX[np.uint64((player_sum << POINT_BITS) | banker_sum)] + third_card_index(
        0, 0, e4 & POINT_MASK, e5 & POINT_MASK)
    prefix = np.int64(_THIRD_CARD_PREFIX16[np.uint64(index)])
    c0, c1 = np.uint64(e0 >> POINT_BITS), np.uint64(e1 >> POINT_BITS)
    c2, c3 = np.uint64(e2 >> POINT_BITS), np.uint64(e3 >> POINT_BITS)
    suffix = suffix_of(np.int64(_PAIR_STATUS[_pair_index(c0, c2)]), np.int64(_PAIR_STATUS[_pair_index(c1, c3)]),
                       np.int64(_FIRST_CARD_STATUS[_pair_index(c0, c1)]))  # = suffix_of_cards(c0, c1, c2, c3)
    used = np.int64(_CARDS_USED[_sums_index(player_sum, banker_sum, e4 & POINT_MASK)])  # = cards_used_of(prefix)
    return prefix, suffix, used


@jit(inline="always")
def _third_cards(prefix, e4, e5):
    """The third cards' card values ``(P3, B3)`` of a round with this prefix (``NO_CARD`` for a hand that stood).

    ``e4``, ``e5``: the encoded cards after the first four (:func:`~baccarat_sim.kernels.outcome.third_cards`).
    """
    return third_cards(player_drew_of(prefix), banker_drew_of(prefix), e4 >> POINT_BITS, e5 >> POINT_BITS, NO_CARD)


@inline_where_typed  # not in the plain kernels, whose `detail is not None` branch numba prunes
def round_detail(prefix, e0, e1, e2, e3, e4, e5, detail):
    """``prefix`` moved to the round's card detail: ``detail_index * N_PREFIXES + prefix``.

    The cell of the round is then ``prefix * N_SUFFIXES + suffix`` as for a
    plain code. ``detail``: the tables of one group of atoms counted with every
    code (:func:`baccarat_sim.kernels.detail.detail_index`).
    """
    p3, b3 = _third_cards(prefix, e4, e5)
    index = detail_index(np.uint64(e0 >> POINT_BITS), np.uint64(e1 >> POINT_BITS), np.uint64(e2 >> POINT_BITS),
                         np.uint64(e3 >> POINT_BITS), np.uint64(p3), np.uint64(b3), detail)
    return index * N_PREFIXES + prefix


@jit(inline="always")
def batch_round(cells, n, prefix, suffix, e0, e1, e2, e3, e4, e5, row):
    """Put a round (its encoded cards ``e0..e5``, prefix, suffix and histogram row) in a batch at ``n``.

    Returns ``n + 1``. ``cells``: the batch of rounds waiting for their card
    detail (:func:`baccarat_sim.kernels.detail.count_batch`) as one flat
    array (:func:`~baccarat_sim.kernels.detail.batch_cells`); a round goes in
    by its card values: the first four, then the next two cards as they lie
    in the shoe, which count_batch turns into the third cards by the prefix.
    """
    return put_round(cells, n, e0 >> POINT_BITS, e1 >> POINT_BITS, e2 >> POINT_BITS, e3 >> POINT_BITS,
                     e4 >> POINT_BITS, e5 >> POINT_BITS, prefix, suffix, np.int64(row))


@jit(inline="always")
def round_code(e0, e1, e2, e3, e4, e5):
    """Outcome code of a round and the number of cards it used.

    ``e0..e5``: the next six encoded cards in dealing order (see :func:`round_parts`).

    Returns
    -------
    (int64, int64)
        The outcome code (see :mod:`baccarat_sim.model.codes`) and the cards used (4-6).
    """
    prefix, suffix, used = round_parts(e0, e1, e2, e3, e4, e5)
    return code_of(prefix, suffix), used


@jit(inline="always")
def round_with_detail(e0, e1, e2, e3, e4, e5, detail):
    """:func:`round_parts`, the prefix moved to the round's card detail when ``detail`` holds tables.

    See :func:`round_detail`; with ``detail=None`` numba compiles the plain round alone.
    """
    prefix, suffix, used = round_parts(e0, e1, e2, e3, e4, e5)
    if detail is not None:  # pruned by numba where there is no card detail
        prefix = round_detail(prefix, e0, e1, e2, e3, e4, e5, detail)
    return prefix, suffix, used


@jit(inline="always")
def cards_at(cards, position):
    """The six encoded cards from ``cards[position]`` on, as int64 ``(e0, ..., e5)``: a round's cards in a dealt shoe.

    The caller guarantees six cards are left.
    """
    # An unsigned index: numba adds no test for a negative one, which cost six compares on the shoe's critical path.
    at = np.uint64(position)
    return (np.int64(cards[at]), np.int64(cards[at + _U1]), np.int64(cards[at + _U2]), np.int64(cards[at + _U3]),
            np.int64(cards[at + _U4]), np.int64(cards[at + _U5]))


@jit(inline="always")
def round_at(cards, position, detail):
    """Deal one round from encoded ``cards[position:]`` in order; return ``(prefix, suffix, cards_used)``.

    With card ``detail`` tables (None: none) the prefix carries the round's
    card detail (:func:`round_detail`). The caller guarantees six cards are left.
    """
    e0, e1, e2, e3, e4, e5 = cards_at(cards, position)
    return round_with_detail(e0, e1, e2, e3, e4, e5, detail)


@jit(inline="always")
def dealt_round(cards, position):
    """Deal one round from encoded ``cards[position:]`` in order; return ``(code, cards_used)``.

    The caller guarantees six cards are left.
    """
    prefix, suffix, used = round_at(cards, position, None)
    return code_of(prefix, suffix), used

