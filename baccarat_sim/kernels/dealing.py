"""The dealing procedure, once: the tableau of a round, fresh draws, the shoe start, burn and cut card.

Pure numba functions, no I/O. Every kernel that deals (the Monte Carlo lanes
of :mod:`baccarat_sim.kernels.mc`, the counting kernel of
:mod:`baccarat_sim.kernels.counting`) and the worst-case round count of the
dealt-shoe analysis use these functions; the plain-Python reference dealer of
the tests is written independently, as an oracle.

Cards are integers ``rank * 4 + suit`` (:mod:`baccarat_sim.model.cards`).
Inside the kernels a card travels *encoded* as ``card << 5 | point`` (int32),
so a hand's point total is one add and a mask, with no table lookup between
the cards of a round and the next round's position (the dealt model's
critical path).

A dealt shoe is dealt by one loop, written once here and used by every
kernel that deals one (the Monte Carlo lanes through :func:`deal_rounds`, the
sessions and the counting kernel)::

    position, cut_index, stop, more, state = open_shoe(cards, state, shoe_params)
    while another_round(position, stop, more):
        prefix, suffix, used = round_at(cards, position, detail)
        ...  # count or settle the round
        position += used
        stop, more = after_round(position, stop, more, n_cards, cut_index, shoe_params)

The cut card is placed and the part of the shoe that can be dealt is
shuffled (:func:`start_shoe`); a card is turned and that many cards burned
(``shoe_params``, :func:`first_round_position`); rounds are dealt from the top
while six cards are left, until the round in which the cut card comes out,
plus the rule set's extra rounds after it (:func:`shoe_end`, :func:`another_round`,
:func:`after_round`).
"""

from __future__ import annotations

import numpy as np

from ..model import codes, tableau
from ..model.cards import N_CARD_IDS, RANK_POINTS, SUIT_BITS
from ..model.codes import N_PREFIXES, N_SUFFIXES
from ..model.tableau import THIRD_CARD_PREFIX
from .detail import BATCH_ROUNDS, NO_CARD, batch_cells, count_batch, detail_index, put_round
from .jit import inline_where_typed, jit
from .outcome import banker_drew_of, code_of, player_drew_of, suffix_of, third_card_index, third_cards
from .rng import (
    STREAM_DEAL,
    batch_digits,
    block_state,
    bounded,
    bounded2,
    bounded3,
    high32,
    low32,
    next_u64,
    rejection_threshold,
)

__all__ = [
    "CARDS_PER_ROUND",
    "ENCODED_CARD",
    "FRESH_DRAWS",
    "FRESH_GENERATORS",
    "FRESH_MAX_CARDS",
    "N_SHOE_PARAMS",
    "POINT_BITS",
    "PREFIX_NUMBER",
    "PREFIX_OF_NUMBER",
    "SLOT_CODES",
    "SLOT_PREFIXES",
    "after_round",
    "another_round",
    "batch_round",
    "cell",
    "deal_rounds_groups",
    "deal_shoe",
    "deal_through",
    "dealt_round",
    "encode_cards",
    "encode_shoe",
    "first_round_position",
    "fresh_positions",
    "next_fresh",
    "open_fresh_block",
    "open_shoe",
    "fresh_round_parts",
    "pack_shoe_params",
    "round_code",
    "round_at",
    "round_detail",
    "round_parts",
    "round_with_detail",
    "rounds_in_every_shoe",
    "shoe_end",
    "shuffle_prefix",
    "slot_code",
    "slot_of",
    "start_shoe",
]

#: Most cards a round can take: two per hand and a third card each.
CARDS_PER_ROUND = 6
#: Bits of an encoded card that hold its point value (a two-card sum, up to
#: 18, must not carry into the card id).
POINT_BITS = 5
_POINT_MASK = (1 << POINT_BITS) - 1
_U0, _U1, _U2, _U3, _U4, _U5 = (np.uint64(k) for k in range(6))
#: Largest shoe for which the shuffle batches three draws into 32 random
#: bits: the rejection guard then fires on at most ``600**3 / 2**32`` = 5% of
#: batches; larger shoes batch two.
TRIPLE_MAX_CARDS = 600

# The shoe_params array: how a dealt shoe starts and ends (pack_shoe_params).
#: ``shoe_params[rank]``: cards burned after a card of that rank is turned.
SHOE_BURN = 0
#: ``shoe_params[SHOE_TURNED]``: 1 if the turned card is discarded too (0: it is the first burned card).
SHOE_TURNED = 13
#: ``shoe_params[SHOE_CUT_LOW]``, ``[SHOE_CUT_HIGH]``: the cut card's distance from the end of the shoe, drawn
#: uniformly from this closed range for every shoe.
SHOE_CUT_LOW = 14
SHOE_CUT_HIGH = 15
#: ``shoe_params[SHOE_AFTER_CUT]``: rounds dealt after the round in which the cut card comes out.
SHOE_AFTER_CUT = 16
#: Length of the ``shoe_params`` array.
N_SHOE_PARAMS = 17

#: Encoded form ``card << POINT_BITS | point`` of each card id, ``ndarray(int32, shape=(52,))``.
ENCODED_CARD = ((np.arange(N_CARD_IDS) << POINT_BITS)
                | RANK_POINTS[np.arange(N_CARD_IDS) >> SUIT_BITS]).astype(np.int32)
# The tableau's prefix table in uint16: 20 KB, so it stays in the L1 cache
# beside the histogram instead of spilling into L2 as 80 KB of int64.
_THIRD_CARD_PREFIX16 = THIRD_CARD_PREFIX.astype(np.uint16)
# Slot order (see slot_of): a round can reach 205 of the 400 prefixes, numbered in order; a slot-order row keeps
# ``suffix * SLOT_PREFIXES + number`` and its busy counters crowd into two runs of 205 (a dealt lane's 105 position
# rows: 86 KB of them in uint8 where runs of 400 made 168 KB), which makes the rows lane measurably cheaper.
_REACHABLE_PREFIXES = np.unique(THIRD_CARD_PREFIX)
#: Prefix numbers per suffix in slot order: the reachable prefixes, rounded up to a multiple of eight so that a
#: 64-bit word of uint8 counters never straddles two suffixes (:func:`baccarat_sim.kernels.mc._flush_slots`).
SLOT_PREFIXES = -(-_REACHABLE_PREFIXES.size // 8) * 8
#: The codes' part of a slot-order row (``SLOT_PREFIXES * N_SUFFIXES`` counters); up to ``N_CODES`` the row stays
#: zero, and a card detail's cells follow at ``N_CODES`` as in code order.
SLOT_CODES = SLOT_PREFIXES * N_SUFFIXES
#: The number of each reachable prefix (0 for a prefix no round reaches).
PREFIX_NUMBER = np.zeros(N_PREFIXES, np.uint8)
PREFIX_NUMBER[_REACHABLE_PREFIXES] = np.arange(_REACHABLE_PREFIXES.size)
#: The prefix of each number (the padding numbers, whose counters stay zero, the first prefix).
PREFIX_OF_NUMBER = np.full(SLOT_PREFIXES, _REACHABLE_PREFIXES[0], np.int64)
PREFIX_OF_NUMBER[:_REACHABLE_PREFIXES.size] = _REACHABLE_PREFIXES
if SLOT_PREFIXES > 255 or SLOT_CODES > N_PREFIXES * N_SUFFIXES:
    raise RuntimeError("internal error: the reachable prefixes do not fit slot order's numbers")


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
for _table in (ENCODED_CARD, _THIRD_CARD_PREFIX16, _CARDS_USED, _TOTALS_INDEX, _PAIR_STATUS, _FIRST_CARD_STATUS,
               PREFIX_NUMBER, PREFIX_OF_NUMBER):
    _table.setflags(write=False)


def pack_shoe_params(burn_by_rank, discard_turned: bool, cut_low: int, cut_high: int,
                     rounds_after_cut: int) -> np.ndarray:
    """The ``shoe_params`` array the dealing functions read.

    Parameters
    ----------
    burn_by_rank : sequence of 13 int
        Cards burned after a card of each rank is turned (all 0: no burn).
    discard_turned : bool
        Whether the turned card is discarded too.
    cut_low, cut_high : int
        The cut card's distance from the end of the shoe (drawn uniformly per shoe).
    rounds_after_cut : int
        Rounds dealt after the round in which the cut card comes out.

    Returns
    -------
    ndarray(int64, shape=(N_SHOE_PARAMS,))
    """
    params = np.zeros(N_SHOE_PARAMS, np.int64)
    params[SHOE_BURN:SHOE_BURN + 13] = burn_by_rank
    params[SHOE_TURNED] = 1 if discard_turned else 0
    params[SHOE_CUT_LOW] = cut_low
    params[SHOE_CUT_HIGH] = cut_high
    params[SHOE_AFTER_CUT] = rounds_after_cut
    return params


def encode_cards(cards) -> np.ndarray:
    """Encode card ids (``rank * 4 + suit``) for the kernel, ``ndarray(int32)``."""
    return ENCODED_CARD[np.asarray(cards, dtype=np.int64)]


@jit
def encode_shoe(canonical):
    """Encoded copy of a shoe given as card ids, ``ndarray(int32)``."""
    cards = np.empty(canonical.shape[0], np.int32)
    for i in range(canonical.shape[0]):
        cards[i] = ENCODED_CARD[canonical[i]]
    return cards


# --------------------------------------------------------------------------- one round


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
    player_sum = (e0 + e2) & _POINT_MASK
    banker_sum = (e1 + e3) & _POINT_MASK
    index = _TOTALS_INDEX[np.uint64((player_sum << POINT_BITS) | banker_sum)] + third_card_index(
        0, 0, e4 & _POINT_MASK, e5 & _POINT_MASK)
    prefix = np.int64(_THIRD_CARD_PREFIX16[np.uint64(index)])
    c0, c1 = np.uint64(e0 >> POINT_BITS), np.uint64(e1 >> POINT_BITS)
    c2, c3 = np.uint64(e2 >> POINT_BITS), np.uint64(e3 >> POINT_BITS)
    suffix = suffix_of(np.int64(_PAIR_STATUS[_pair_index(c0, c2)]), np.int64(_PAIR_STATUS[_pair_index(c1, c3)]),
                       np.int64(_FIRST_CARD_STATUS[_pair_index(c0, c1)]))  # = suffix_of_cards(c0, c1, c2, c3)
    used = np.int64(_CARDS_USED[_sums_index(player_sum, banker_sum, e4 & _POINT_MASK)])  # = cards_used_of(prefix)
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
def round_at(cards, position, detail):
    """Deal one round from encoded ``cards[position:]`` in order; return ``(prefix, suffix, cards_used)``.

    With card ``detail`` tables (None: none) the prefix carries the round's
    card detail (:func:`round_detail`). The caller guarantees six cards are left.
    """
    # An unsigned index: numba adds no test for a negative one, which cost six compares on the shoe's critical path.
    at = np.uint64(position)
    return round_with_detail(np.int64(cards[at]), np.int64(cards[at + _U1]), np.int64(cards[at + _U2]),
                             np.int64(cards[at + _U3]), np.int64(cards[at + _U4]), np.int64(cards[at + _U5]), detail)


@jit(inline="always")
def dealt_round(cards, position):
    """Deal one round from encoded ``cards[position:]`` in order; return ``(code, cards_used)``.

    The caller guarantees six cards are left.
    """
    prefix, suffix, used = round_at(cards, position, None)
    return code_of(prefix, suffix), used


# --------------------------------------------------------------------------- a freshly shuffled shoe


# A fresh block interleaves FRESH_GENERATORS generators (stream version 2): each turns one 64-bit output into a
# candidate round's six positions, and the candidates of all of them are drawn in one loop that LLVM vectorises
# (eight generators to a 512-bit register). A candidate is accepted when its positions are distinct and both of its
# batched draws pass Lemire's threshold; the block's rounds are the accepted candidates, generator by generator
# within each draw. One generator drawing six positions per round, a repeat test and a rare exact-threshold branch at
# a time, was about a third slower; 64 generators were no faster than 32.
#: Generators a fresh-shoe block interleaves (:func:`open_fresh_block`).
FRESH_GENERATORS = 32
_G = FRESH_GENERATORS
_UG = np.uint64(_G)
# The draws array of a fresh block (uint64): the generators' states (word k of generator g at k * _G + g), the six
# positions of each generator's latest candidate (position k at _DRAW_POSITIONS + k * _G + g), whether it was
# accepted, the threshold below which a batched draw is rejected and the shoe size it is for (kept together, so that
# no caller can draw positions for one size with another size's threshold).
_DRAW_POSITIONS = 4 * _G
_DRAW_ACCEPTED = 10 * _G
_DRAW_THRESHOLD = 11 * _G
_DRAW_CARDS = 11 * _G + 1
#: Length of a fresh block's draws array (:func:`open_fresh_block`).
FRESH_DRAWS = 11 * _G + 2
#: Most cards a fresh shoe may hold: a candidate draws three positions from each 32-bit half of an output, which
#: needs ``n_cards**3 <= 2**32`` (1,625; the shoe model's MAX_CARDS is below it).
FRESH_MAX_CARDS = int(np.floor(np.cbrt(2.0**32)))
if FRESH_MAX_CARDS**3 > 2**32 or (FRESH_MAX_CARDS + 1)**3 <= 2**32:
    raise RuntimeError("internal error: FRESH_MAX_CARDS is not the largest n with n**3 <= 2**32")
_M32 = np.uint64(0xFFFFFFFF)


@jit
def open_fresh_block(seed, block, n_cards, draws):
    """Start block ``block`` of master ``seed`` for a fresh shoe of ``n_cards`` cards; return the cursor.

    ``draws`` (uint64, :data:`FRESH_DRAWS`) takes the states of the block's
    :data:`FRESH_GENERATORS` generators (:func:`~baccarat_sim.kernels.rng.block_state`,
    generators ``0 .. FRESH_GENERATORS - 1`` of the dealing stream), the
    shoe size and the rejection threshold ``2**32 mod n_cards**3``; the
    cursor says that no candidate is drawn yet (:func:`next_fresh`).
    """
    if n_cards > FRESH_MAX_CARDS:
        raise ValueError("internal error: a fresh shoe holds more cards than three draws per 32 bits allow")
    for g in range(_G):
        s0, s1, s2, s3 = block_state(seed, block, STREAM_DEAL, g)
        draws[g], draws[_G + g], draws[2 * _G + g], draws[3 * _G + g] = s0, s1, s2, s3
    draws[_DRAW_THRESHOLD] = rejection_threshold(np.uint64(n_cards) * np.uint64(n_cards) * np.uint64(n_cards))
    draws[_DRAW_CARDS] = n_cards
    return np.int64(_G)


@jit
def _draw_candidates(draws):
    """One candidate round from every generator of ``draws``: six positions in ``[0, n_cards)`` and its acceptance.

    Each generator's next output gives three positions from each 32-bit half
    by Brackett-Rozinsky and Lemire's batched draw (:func:`~baccarat_sim.kernels.rng.bounded_batch`):
    a half whose low word falls below the threshold ``2**32 mod n_cards**3``
    would bias them, and a repeated position would make the six not a sample
    without replacement; either rejects the candidate, so the accepted ones
    are uniform ordered samples of six distinct positions, independent of
    each other. Written lane by lane on the arrays, with no branch, so that
    LLVM vectorises the generators.
    """
    n = draws[_DRAW_CARDS] & _M32  # the shoe size, known to fit 32 bits: 32-bit multiplies
    threshold = draws[_DRAW_THRESHOLD]
    for g in range(_G):
        x, (s0, s1, s2, s3) = next_u64((draws[g], draws[_G + g], draws[2 * _G + g], draws[3 * _G + g]))
        draws[g], draws[_G + g], draws[2 * _G + g], draws[3 * _G + g] = s0, s1, s2, s3
        j0, j1, j2, low_high = batch_digits(high32(x), n, n, n)
        j3, j4, j5, low_low = batch_digits(low32(x), n, n, n)
        repeat = (np.uint64(j1 == j0) | np.uint64(j2 == j0) | np.uint64(j2 == j1) | np.uint64(j3 == j0)
                  | np.uint64(j3 == j1) | np.uint64(j3 == j2) | np.uint64(j4 == j0) | np.uint64(j4 == j1)
                  | np.uint64(j4 == j2) | np.uint64(j4 == j3) | np.uint64(j5 == j0) | np.uint64(j5 == j1)
                  | np.uint64(j5 == j2) | np.uint64(j5 == j3) | np.uint64(j5 == j4))
        positions = _DRAW_POSITIONS + g
        draws[positions], draws[positions + _G], draws[positions + 2 * _G] = j0, j1, j2
        draws[positions + 3 * _G], draws[positions + 4 * _G], draws[positions + 5 * _G] = j3, j4, j5
        draws[_DRAW_ACCEPTED + g] = (np.uint64(low_high >= threshold) & np.uint64(low_low >= threshold)
                                     & (repeat ^ _U1))


@jit(inline="always")
def next_fresh(draws, cursor):
    """The generator whose candidate is the block's next round (uint64), and the new cursor: ``(g, cursor)``.

    ``cursor`` (``0 .. FRESH_GENERATORS``) is the next generator to look at;
    when every candidate is used, all the generators draw again (:func:`_draw_candidates`).
    """
    while True:
        if cursor == _G:
            _draw_candidates(draws)
            cursor = 0
        g = np.uint64(cursor)  # unsigned: no test for a negative index
        cursor += 1
        if draws[np.uint64(_DRAW_ACCEPTED) + g] != _U0:
            return g, cursor


@jit(inline="always")
def fresh_positions(draws, cursor):
    """Six distinct positions in ``[0, n_cards)``, a uniform ordered sample; returns ``(j0, ..., j5, cursor)``.

    The next accepted candidate of the block's generators (:func:`next_fresh`), as unsigned indices.
    """
    g, cursor = next_fresh(draws, cursor)
    at = np.uint64(_DRAW_POSITIONS) + g  # unsigned throughout: no test for a negative index
    return (draws[at], draws[at + _UG], draws[at + _UG * _U2], draws[at + _UG * _U3], draws[at + _UG * _U4],
            draws[at + _UG * _U5], cursor)


@jit(inline="always")
def fresh_round_parts(cards, draws, cursor, detail):
    """Deal one round from a freshly shuffled shoe; return ``(prefix, suffix, cursor)``.

    ``cards`` (encoded, any fixed order) is only read: the round takes the
    cards at six positions drawn by :func:`fresh_positions` (a uniform ordered
    sample of six cards is exactly the top of a uniformly shuffled shoe). All
    six are drawn even when a natural ends the round: a branch-free round is
    faster than saving the random bits. With card ``detail`` tables (None:
    none) the prefix carries the round's card detail (:func:`round_detail`).
    """
    j0, j1, j2, j3, j4, j5, cursor = fresh_positions(draws, cursor)  # cards: the shoe its block was opened for
    prefix, suffix, _ = round_with_detail(np.int64(cards[j0]), np.int64(cards[j1]), np.int64(cards[j2]),
                                          np.int64(cards[j3]), np.int64(cards[j4]), np.int64(cards[j5]), detail)
    return prefix, suffix, cursor


# --------------------------------------------------------------------------- a dealt shoe


@jit(inline="always")
def _swap_in(cards, index, offset):
    """Move ``cards[index + offset]`` to ``index`` (one Fisher-Yates step)."""
    here = np.uint64(index)  # unsigned: no test for a negative index
    there = here + np.uint64(offset)
    card = cards[there]
    cards[there] = cards[here]
    cards[here] = card


@jit
def shuffle_prefix(cards, m, state):
    """Fisher-Yates steps for positions ``0 .. m - 1`` of ``cards``, in place.

    Afterwards ``cards[:m]`` is a uniformly random ordered sample of the shoe
    (the whole shoe a uniform permutation when ``m >= len(cards) - 1``),
    whatever order ``cards`` started in; the rest of the array holds the
    unused cards. Returns the new state.
    """
    n_cards = cards.shape[0]
    steps = min(m, n_cards - 1)
    i = 0
    # Big shoes: two draws per 32 bits while the range is large (three would
    # make the rejection guard fire too often), then three.
    while i + 4 <= steps and n_cards - i > TRIPLE_MAX_CARDS:
        x, state = next_u64(state)
        j0, j1, state = bounded2(high32(x), n_cards - i, n_cards - i - 1, state)
        j2, j3, state = bounded2(low32(x), n_cards - i - 2, n_cards - i - 3, state)
        _swap_in(cards, i, j0)
        _swap_in(cards, i + 1, j1)
        _swap_in(cards, i + 2, j2)
        _swap_in(cards, i + 3, j3)
        i += 4
    while i + 6 <= steps:
        x, state = next_u64(state)
        j0, j1, j2, state = bounded3(high32(x), n_cards - i, n_cards - i - 1, n_cards - i - 2, state)
        j3, j4, j5, state = bounded3(low32(x), n_cards - i - 3, n_cards - i - 4, n_cards - i - 5, state)
        _swap_in(cards, i, j0)
        _swap_in(cards, i + 1, j1)
        _swap_in(cards, i + 2, j2)
        _swap_in(cards, i + 3, j3)
        _swap_in(cards, i + 4, j4)
        _swap_in(cards, i + 5, j5)
        i += 6
    while i < steps:
        x, state = next_u64(state)
        j, state = bounded(high32(x), n_cards - i, state)
        _swap_in(cards, i, j)
        i += 1
    return state


@jit(inline="always")
def most_cards_before_first_round(shoe_params):
    """Most cards the turned card and the burn can take before the first round."""
    most = np.int64(0)
    for rank in range(13):
        most = max(most, shoe_params[SHOE_BURN + rank])
    return most + shoe_params[SHOE_TURNED]


@jit(inline="always")
def dealable_cards(n_cards, cut_index, shoe_params):
    """How many cards from the top a shoe can deal, at most: the part :func:`start_shoe` shuffles.

    The cut card's round starts at the cut card or, when the burn reaches past
    it, at the first card after the burn; it and every round after it take at
    most six cards.
    """
    start = max(cut_index, most_cards_before_first_round(shoe_params))
    return min(start + CARDS_PER_ROUND * (1 + shoe_params[SHOE_AFTER_CUT]), n_cards)


@jit
def start_shoe(cards, state, shoe_params):
    """Place the cut card and shuffle the part of ``cards`` that can be dealt.

    ``cards`` (encoded) may start in any order. The cut card's distance from
    the end is drawn uniformly from ``shoe_params[SHOE_CUT_LOW:SHOE_CUT_HIGH + 1]``;
    the shuffle covers every card a round can reach (:func:`dealable_cards`).

    Returns
    -------
    (int, state)
        The cut index (see :func:`deal_through`) and the generator state.
    """
    n_cards = cards.shape[0]
    cut_low = shoe_params[SHOE_CUT_LOW]
    x, state = next_u64(state)
    spread, state = bounded(high32(x), shoe_params[SHOE_CUT_HIGH] - cut_low + 1, state)
    cut_index = n_cards - (cut_low + spread)
    state = shuffle_prefix(cards, dealable_cards(n_cards, cut_index, shoe_params), state)
    return cut_index, state


@jit(inline="always")
def first_round_position(cards, shoe_params):
    """Where the first round starts: past the turned card (when it is discarded) and the cards it burns.

    ``cards[0]`` is the card turned for the burn.
    """
    return shoe_params[SHOE_BURN + (cards[0] >> (POINT_BITS + SUIT_BITS))] + shoe_params[SHOE_TURNED]


@jit(inline="always")
def open_shoe(cards, state, shoe_params):
    """Start a dealt shoe: the cut card placed, the dealable part shuffled (:func:`start_shoe`), the burn done.

    Returns
    -------
    (int, int, int, int, state)
        ``(position, cut_index, stop, more, state)``: where the first round
        starts, the cut index, the shoe's end as :func:`shoe_end` gives it at
        the start, and the generator state, for :func:`another_round`,
        :func:`round_at` and :func:`after_round`.
    """
    cut_index, state = start_shoe(cards, state, shoe_params)
    position = first_round_position(cards, shoe_params)
    stop, more = shoe_end(position, cards.shape[0], cut_index)
    return position, cut_index, stop, more, state


@jit(inline="always")
def shoe_end(first_position, n_cards, cut_index):
    """The end of a shoe whose first round starts at ``first_position``, as ``(stop, more)``.

    The shoe's end is the rule of when rounds stop, written once: a round is
    dealt from ``position`` while ``position <= stop`` and ``more != 0``
    (:func:`another_round`), and after each round :func:`after_round` gives
    the new ``(stop, more)``. Rounds are dealt while six cards are left, up to
    the round in which the cut card comes out (the cut card lies just before
    ``cards[cut_index]``: the round that deals that card, or that starts
    there, is the cut card's round), then the rule set's rounds after the cut.
    While the cut card is not out ``more`` is -1 and ``stop`` is the last
    position such a round may start at: six cards from the end, and not past
    the cut card, except for the first round, which is dealt even when the
    burn reached past it (and is then the cut card's round). So the rounds
    before the cut card is out cost one compare each (:func:`deal_rounds`).
    """
    return min(max(cut_index, first_position), n_cards - CARDS_PER_ROUND), np.int64(-1)


@jit(inline="always")
def another_round(position, stop, more):
    """Whether a round is dealt from ``position`` in a shoe whose end is ``(stop, more)`` (:func:`shoe_end`)."""
    return position <= stop and more != 0


@jit(inline="always")
def after_round(position, stop, more, n_cards, cut_index, shoe_params):
    """The shoe's end ``(stop, more)`` after a round that ended at ``position`` (:func:`shoe_end`).

    Before the cut card is out (``more == -1``) nothing changes until
    ``position`` passes ``stop``: then either the cut card came out in the
    round (``position > cut_index``), and the rule set's rounds after the cut
    are left while six cards are, or fewer than six cards are left and the
    shoe has ended. After the cut card's round ``more`` counts those rounds
    down to 0, where the shoe has ended.
    """
    if more > 0:
        return stop, more - 1
    if more < 0 and position > stop:
        if position > cut_index:
            return n_cards - CARDS_PER_ROUND, shoe_params[SHOE_AFTER_CUT]
        return stop, np.int64(0)
    return stop, more


@jit(inline="always")
def slot_of(prefix, suffix):
    """An outcome's slot: ``suffix * SLOT_PREFIXES`` plus its prefix's number (:data:`PREFIX_NUMBER`).

    Most rounds have no pair and unequal first cards, so in slot order they
    crowd into two runs of 205 counters per row (see :mod:`baccarat_sim.kernels.mc`).
    """
    return suffix * SLOT_PREFIXES + np.int64(PREFIX_NUMBER[np.uint64(prefix)])


@jit(inline="always")
def slot_code(number, suffix):
    """The outcome code of slot ``suffix * SLOT_PREFIXES + number`` (:func:`slot_of` read back)."""
    return code_of(PREFIX_OF_NUMBER[number], suffix)


@jit(inline="always")
def cell(prefix, suffix, slots):
    """Histogram column of an outcome: its code, or its slot (``slots``, :func:`slot_of`)."""
    return slot_of(prefix, suffix) if slots else code_of(prefix, suffix)


@jit(inline="always")
def _count_slot_carrying(counts, row, column, prefix, suffix, carry, carried):
    """Add one to uint8 slot ``counts[row, column]``; when it wraps, 256 to the round's code in ``carry``, ``carried``.

    The groups' cells of a batch carry the same way (:func:`~baccarat_sim.kernels.detail.count_batch`).
    """
    v = np.int64(counts[row, column]) + 1
    counts[row, column] = v
    if v == 256:  # once in 256 increments of a counter
        code = np.uint64(code_of(prefix, suffix))
        carry[row, code] += 256
        carried[code] += 256


@jit
def deal_rounds(cards, cut_index, shoe_params, counts, slots, detail, carry=None, carried=None):
    """The dealing loop of :func:`deal_through`: each round added to ``counts`` as documented there.

    ``carry``: int64 rows in code order that take 256 whenever a uint8 counter of ``counts`` wraps (None: no wrap);
    ``carried`` (int64, by code) takes the same 256 beside them, so that it always holds ``carry``'s rows summed.
    """
    if detail is not None and slots:  # pruned where there is no card detail
        raise ValueError("internal error: slot order numbers plain prefixes; card detail counts in code order")
    n_cards = cards.shape[0]
    last_row = counts.shape[0] - 1
    position = first_round_position(cards, shoe_params)
    rounds = 0
    stop, more = shoe_end(position, n_cards, cut_index)
    # The loop of another_round and after_round in two parts. Until the cut card is out `more` is -1 and
    # after_round changes nothing while position <= stop: one compare a round. After it, after_round counts `more`
    # down. (Faster than testing and updating extra_left every round; the second part calls after_round directly,
    # as calling another_round there lost that gain for the lane without position rows.)
    while position <= stop:
        position, rounds = _count_dealt_round(cards, position, rounds, last_row, counts, slots, detail, carry, carried)
    stop, more = after_round(position, stop, more, n_cards, cut_index, shoe_params)
    while position <= stop and more > 0:  # the rounds after the cut card's
        position, rounds = _count_dealt_round(cards, position, rounds, last_row, counts, slots, detail, carry, carried)
        more -= 1
    return rounds


@jit(inline="always")
def _count_dealt_round(cards, position, rounds, last_row, counts, slots, detail, carry, carried):
    """Deal the round at ``position`` into row ``min(rounds, last_row)`` of ``counts`` (:func:`deal_rounds`).

    Returns the next round's position and ``rounds + 1``.
    """
    prefix, suffix, used = round_at(cards, position, detail)
    r, c = np.uint64(min(rounds, last_row)), np.uint64(cell(prefix, suffix, slots))
    if carry is None:
        counts[r, c] += 1
    else:
        _count_slot_carrying(counts, r, c, prefix, suffix, carry, carried)
    return position + used, rounds + 1


@jit
def deal_rounds_groups(cards, cut_index, shoe_params, counts, slots, tables, batch, n, carry=None, carried=None):
    """The dealing loop of :func:`deal_through`, each round counted by code and in every group of ``tables``.

    ``counts`` (``(n_positions, n_cells)``, the outcome codes first, in slot
    order if ``slots`` (see :func:`cell`), then the groups' cells): round
    ``k`` goes to row ``k``, the last row also taking every later round. A
    round's code is counted at once, its groups' cells through ``batch``,
    which holds ``n`` rounds and is counted whenever it fills
    (:func:`baccarat_sim.kernels.detail.count_batch`). ``carry``,
    ``carried``: as for :func:`deal_rounds` (uint8 ``counts`` whose wraps go
    to the int64 rows ``carry`` and their per-cell sums; None: no wrap).
    Returns the rounds dealt and the rounds left in ``batch``.
    """
    n_cards = cards.shape[0]
    last_row = counts.shape[0] - 1
    cells = batch_cells(batch)
    position = first_round_position(cards, shoe_params)
    rounds = 0
    stop, more = shoe_end(position, n_cards, cut_index)
    # One loop, the round in it: the round as an inlined function called from a loop for the rounds up to the cut
    # card's and another for those after it (as deal_rounds has it) dealt several times slower here.
    while another_round(position, stop, more):
        at = np.uint64(position)  # unsigned: no test for a negative index (see round_at)
        e0, e1, e2 = np.int64(cards[at]), np.int64(cards[at + _U1]), np.int64(cards[at + _U2])
        e3, e4, e5 = np.int64(cards[at + _U3]), np.int64(cards[at + _U4]), np.int64(cards[at + _U5])
        prefix, suffix, used = round_parts(e0, e1, e2, e3, e4, e5)
        row = min(rounds, last_row)
        r, c = np.uint64(row), np.uint64(cell(prefix, suffix, slots))
        if carry is None:
            counts[r, c] += 1
        else:
            _count_slot_carrying(counts, r, c, prefix, suffix, carry, carried)
        n = batch_round(cells, n, prefix, suffix, e0, e1, e2, e3, e4, e5, row)
        if n == BATCH_ROUNDS:
            count_batch(batch, n, tables, counts, carry, carried)
            n = 0
        rounds += 1
        position += used
        stop, more = after_round(position, stop, more, n_cards, cut_index, shoe_params)
    return rounds, n


@jit
def deal_through(cards, cut_index, shoe_params, counts, slots=False, detail=None):
    """Deal an ordered shoe from the top to the cut card; return the rounds dealt.

    Parameters
    ----------
    cards : ndarray(int32, shape=(N,))
        Encoded cards in dealing order; ``cards[0]`` is the card turned for
        the burn.
    cut_index : int
        The cut card lies just before ``cards[cut_index]`` (see :func:`after_round`);
        ``N`` if it never comes out.
    shoe_params : ndarray(int64, shape=(N_SHOE_PARAMS,))
        Burn and cut-card settings (:func:`pack_shoe_params`).
    counts : ndarray(unsigned or int64, shape=(n_positions, n_cells))
        Round ``k`` of the shoe (0-based) is added to row ``k``, the last row
        also taking every later round.
    slots : bool
        Count in slot order (see :func:`cell`) instead of by cell; without card ``detail`` only.
    detail : tuple or None
        Card detail tables (:func:`baccarat_sim.kernels.detail.detail_index`):
        the columns are cells ``detail * N_CODES + code``; None: outcome codes.

    Notes
    -----
    A round is started only with at least six cards left, so it can never run
    out mid-round.
    """
    return deal_rounds(cards, cut_index, shoe_params, counts, slots, detail)


@jit
def deal_shoe(cards, state, shoe_params, counts, slots=False, detail=None):
    """Shuffle a shoe (:func:`start_shoe`) and deal it through (:func:`deal_through`).

    Returns
    -------
    (int, state)
        Rounds dealt and the generator state.
    """
    cut_index, state = start_shoe(cards, state, shoe_params)
    return deal_through(cards, cut_index, shoe_params, counts, slots, detail), state


@jit
def rounds_in_every_shoe(n_cards, shoe_params):
    """The last round position every shoe deals, whatever its cards.

    The dealing loop run on the worst shoe: the burn takes its most cards,
    the cut card sits at its deepest, and every round takes six cards. Each
    of these only makes a shoe deal fewer rounds, so every shoe deals at
    least this many.

    Parameters
    ----------
    n_cards : int
        Cards in the shoe.
    shoe_params : ndarray(int64, shape=(N_SHOE_PARAMS,))
    """
    cut_index = n_cards - shoe_params[SHOE_CUT_HIGH]
    position = most_cards_before_first_round(shoe_params)
    rounds = 0
    stop, more = shoe_end(position, n_cards, cut_index)
    while another_round(position, stop, more):
        rounds += 1
        position += CARDS_PER_ROUND
        stop, more = after_round(position, stop, more, n_cards, cut_index, shoe_params)
    return rounds
