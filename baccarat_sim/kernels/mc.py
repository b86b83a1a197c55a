"""Monte Carlo lanes: blocks of rounds dealt in parallel into per-thread histograms.

Pure numba functions, no I/O. Rounds are dealt by the one dealing procedure of
:mod:`baccarat_sim.kernels.dealing`. A block of rounds (fresh model) or of
whole shoes (dealt model) is dealt from its own random stream
(:mod:`baccarat_sim.kernels.rng`), starting from the canonical shoe order, so
what a block deals depends only on (seed, block index). *Lanes* (one per
thread) take the blocks as they are free; each lane adds its rounds to its own
histogram and the lanes are summed afterwards. Integer addition is exact and
order-free, so the summed histogram is the same whatever the number of lanes
and whichever lane deals a block.

The two models draw cards differently, each chosen for speed and each an
exactly uniform draw without replacement:

* fresh: six positions of the canonical shoe are drawn uniformly for each
  candidate round by 32 generators interleaved in vector registers, and a
  candidate with a repeated position (or a biased draw) is passed over
  (:func:`~baccarat_sim.kernels.dealing.open_fresh_block`,
  :func:`~baccarat_sim.kernels.dealing.fresh_positions`). Reading the
  unchanged canonical array (no swaps, no stores) is 30-40% faster than a
  partial Fisher-Yates shuffle.
* dealt: a Fisher-Yates shuffle of the part of the shoe that can be dealt,
  then the rounds are read off in order
  (:func:`~baccarat_sim.kernels.dealing.start_shoe`, :func:`~baccarat_sim.kernels.dealing.deal_rounds`).

A lane's per-position rows count in *slot* order
(:func:`~baccarat_sim.kernels.dealing.slot_of`: the suffix, then the number
of the prefix among the 205 a round can reach) instead of code order: most
rounds have no pair and unequal first cards, so their slots crowd into two
runs of 205 counters (0.4 KB in uint8) per row instead of one cache line in
every 36 codes, and the rows stay in cache.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ..model.codes import N_CODES, N_SUFFIXES
from .atomic import fetch_add
from .dealing import (
    FRESH_DRAWS,
    SLOT_CODES,
    SLOT_PREFIXES,
    batch_round,
    deal_rounds,
    deal_rounds_groups,
    encode_shoe,
    fresh_positions,
    fresh_round_parts,
    open_fresh_block,
    round_parts,
    slot_code,
    slot_of,
    start_shoe,
)
from .detail import BATCH_ROUNDS, batch_cells, count_batch, new_batch
from .jit import jit, jit_parallel
from .outcome import code_of
from .rng import block_state

__all__ = ["DRIVERS", "MODEL_DEALT", "MODEL_FRESH", "add_code_totals", "deal_block", "deal_blocks",
           "deal_blocks_serial", "fold_lane", "small_lanes"]

MODEL_FRESH = 0
MODEL_DEALT = 1
# A lane keeps its histogram in small unsigned counters, to shrink its cache
# footprint: the dealt model's per-position histogram (105 rows of 14,400
# codes for 8 decks) is 12 MB as int64 but 1.5 MB as uint8, and a round's
# increment lands in a different row every time. The lane adds them to the
# caller's int64 counts before any counter could overflow (uint8 rows carry
# each wrap to them as it happens). The constants are
# numpy scalars rather than Python ints: numba types them as plain int64 and
# bool, not as literals, so each callee compiles once, not once per constant.
_LIMIT32 = np.int64(np.iinfo(np.uint32).max)
_NO_LIMIT = np.int64(1 << 62)
_SLOTS = np.bool_(True)
_CODES = np.bool_(False)


@jit
def _flush_codes(lane, counts):
    """Add a lane's counters (code order) to ``counts`` (int64) and clear them."""
    for row in range(lane.shape[0]):
        for code in range(lane.shape[1]):
            counts[row, code] += lane[row, code]
            lane[row, code] = 0


@jit
def _flush_slots(lane, counts):
    """Add a lane's counters to ``counts`` (int64, code order) and clear them.

    A lane's row holds the outcome codes in slot order
    (:func:`~baccarat_sim.kernels.dealing.slot_of`; zeros from
    ``SLOT_CODES`` to ``N_CODES``), then, with card detail, the groups' cells
    in the order of ``counts``. Each row is first read as 64-bit words (eight uint8
    counters, four uint16 or two uint32), to count those that are not all zero. A row
    with few busy words (a short chunk, or a position few shoes reach)
    visits those words alone; a busier row is walked in the memory order of
    ``counts``: a short call does not amortise visiting every counter of
    every row, which costs several times as much. (A run's position rows are
    folded only when it reads them: :func:`small_lanes`.)
    """
    n_numbers = _slot_numbers(lane.shape[1])
    for row in range(lane.shape[0]):
        counters, into = lane[row], counts[row]
        words = counters.view(np.uint64)
        per_word = counters.shape[0] // words.shape[0]
        busy = 0
        for w in range(words.shape[0]):
            busy += words[w] != 0
        if busy == 0:
            continue
        if busy * 8 > words.shape[0]:
            _add_slot_row(counters, into, n_numbers)
            counters[:] = 0
            continue
        for w in range(words.shape[0]):
            if words[w] != 0:
                # Every counter of the word, zero or not: a test per counter mispredicts on a row's scattered counts.
                # A word never straddles two suffixes or the codes' end (SLOT_PREFIXES is a multiple of eight).
                first = w * per_word
                if first < SLOT_CODES:
                    suffix, number = divmod(first, n_numbers)
                    for k in range(per_word):
                        into[slot_code(number + k, suffix)] += counters[first + k]
                elif first >= N_CODES:  # the groups' cells (a row is zero between the slots and them)
                    for k in range(per_word):
                        into[first + k] += counters[first + k]
                words[w] = 0


@jit(inline="always")
def _slot_numbers(width):
    """``SLOT_PREFIXES``, read through a row's ``width`` (at least ``N_CODES``) for the walks of slot-order rows.

    As a constant of the machine code it made LLVM turn those walks into
    vector gathers, and the flush 7 times slower.
    """
    return min(width, SLOT_CODES) // N_SUFFIXES


@jit(inline="always")
def _add_slot_row(counters, into, n_numbers):
    """Add a lane's row (the codes in slot order, ``n_numbers`` a suffix, then any cells) to ``into`` (code order)."""
    for number in range(n_numbers):
        for suffix in range(N_SUFFIXES):
            into[slot_code(number, suffix)] += counters[suffix * n_numbers + number]
    for cell in range(N_CODES, counters.shape[0]):
        into[cell] += counters[cell]


if SLOT_PREFIXES % 8 != 0:
    raise RuntimeError("internal error: a lane's 64-bit word would straddle two suffixes")


@jit(inline="always")
def _next_block(taken, first_block, n_blocks):
    """The next block of ``first_block .. first_block + n_blocks - 1`` for a lane to deal; -1 when none is left.

    The lanes of one call share ``taken`` (int64, one element: how many
    blocks lanes have taken) and take the blocks one at a time, first come
    first served (an atomic add). What a block deals depends on (seed, block)
    alone and the lanes' counts are summed, so the histogram is the same
    whichever lane deals a block; a lane slowed by a busy neighbour on a
    shared machine deals fewer blocks instead of keeping the other waiting
    at the call's end (a fixed share of blocks per lane was measurably
    slower on both shoes).
    """
    k = fetch_add(taken, np.int64(1))
    return first_block + k if k < n_blocks else np.int64(-1)


@jit
def _deal_fresh(cards, draws, cursor, units, lane, limit, counts, pending, detail):
    """Deal ``units`` fresh-shoe rounds into row 0 of ``lane``, in slot order.

    ``draws``, ``cursor``: the block's random draws (:func:`~baccarat_sim.kernels.dealing.open_fresh_block`).
    ``pending`` rounds are already in ``lane``; it is flushed into ``counts``
    before a counter could pass ``limit``. Returns ``(pending, cursor)``.
    Slot order keeps the busy counters in two runs of 205 (see the module's
    notes); a caller's own int64 histogram in code order has
    :func:`_deal_fresh_codes`. Each is a function of its own so that a run
    compiles only the loops it deals with: every copy of the inlined round
    adds seconds to the compile.
    """
    row = lane[0]
    left = units
    while left > 0:  # in spans that fit the counters, so the round loop has no check
        if pending >= limit:
            _flush_slots(lane, counts)
            pending = 0
        span = min(left, limit - pending)
        for _ in range(span):
            prefix, suffix, cursor = fresh_round_parts(cards, draws, cursor, detail)
            row[slot_of(prefix, suffix)] += 1
        pending += span
        left -= span
    return pending, cursor


@jit
def _deal_fresh_codes(cards, draws, cursor, units, counts, detail):
    """Deal ``units`` fresh-shoe rounds into row 0 of the int64 ``counts``, in code order; returns the cursor."""
    row = counts[0]
    for _ in range(units):
        prefix, suffix, cursor = fresh_round_parts(cards, draws, cursor, detail)
        row[code_of(prefix, suffix)] += 1
    return cursor


@jit
def _deal_dealt_flat(cards, state, units, shoe_params, lane, limit, counts, pending, detail):
    """Deal ``units`` dealt shoes into a one-row ``lane`` (code order); returns ``(rounds, pending, state)``.

    A shoe adds at most ``N // 4`` rounds to a counter (a round takes at least
    four cards); ``lane`` is flushed into ``counts`` before it could pass ``limit``.
    """
    per_shoe = cards.shape[0] // 4
    rounds = 0
    for _ in range(units):
        if pending + per_shoe > limit:
            _flush_codes(lane, counts)
            pending = 0
        cut_index, state = start_shoe(cards, state, shoe_params)
        rounds += deal_rounds(cards, cut_index, shoe_params, lane, False, detail)
        pending += per_shoe
    return rounds, pending, state


@jit
def _deal_dealt_rows(cards, state, units, shoe_params, lane, slots, carry, carried):
    """Deal ``units`` dealt shoes into the position rows of ``lane``; returns ``(rounds, state)``.

    ``lane``: uint8 rows in slot order (``slots``, see :func:`~baccarat_sim.kernels.dealing.slot_of`),
    each counter's wraps carried into the int64 rows ``carry`` (in code
    order) and into their per-code sums ``carried``, as the lanes keep them;
    or int64 rows in code order with ``carry`` and ``carried`` None (:func:`deal_block`).

    Each round is added as it is dealt, to its row: in slot order a row's
    busy counters are about a KB, so the rows' busy parts stay in the L2
    cache, and the loads hide behind the shoe's dealing (recording a group
    of shoes and adding them row by row was slower). uint8 counters with a
    carry cost less than uint16 rows folded before a counter could pass
    65,535, most of all in short chunks.
    """
    rounds = 0
    for _ in range(units):
        cut_index, state = start_shoe(cards, state, shoe_params)
        rounds += deal_rounds(cards, cut_index, shoe_params, lane, slots, None, carry, carried)
    return rounds, state


@jit
def deal_block(canonical, model, seed, block, units, shoe_params, counts, detail=None):
    """Deal one block and add its rounds to ``counts``.

    The block-level kernel the drivers below run through their lanes, for
    direct use (tests, experiments).

    Parameters
    ----------
    canonical : ndarray(uint8, shape=(N,))
        The shoe's card ids in canonical order.
    model : int
        ``MODEL_FRESH`` (shuffle before every round) or ``MODEL_DEALT``.
    seed : uint64
        Master seed.
    block : int
        Block index: with ``seed`` it fixes the block's random stream.
    units : int
        Rounds (fresh model) or shoes (dealt model) in this block.
    shoe_params : ndarray(int64, shape=(N_SHOE_PARAMS,))
        Burn and cut-card parameters of the dealt model (see :func:`deal_through`).
    counts : ndarray(int64, shape=(n_positions, n_cells))
        Histogram to add to (row = round position in the shoe; one row for fresh).
    detail : tuple or None
        The tables of a factored card detail (:mod:`baccarat_sim.kernels.detail`): the columns are the outcome
        codes, then every group's cells; None: the outcome codes.

    Returns
    -------
    (int, int)
        Rounds and shoes dealt.
    """
    state = block_state(seed, block)
    cards = encode_shoe(canonical)
    draws = np.empty(FRESH_DRAWS, np.uint64)
    rounds, shoes = units, 0
    if detail is not None:  # the plain paths get None, not `detail`: see _deal_lane_fresh
        batch = new_batch(detail)
        if model == MODEL_FRESH:
            lane = np.zeros(counts.shape, np.int64)  # codes in slot order, folded into counts' code order
            cursor = open_fresh_block(seed, block, cards.shape[0], draws)
            _deal_fresh_groups(cards, draws, cursor, units, lane, _NO_LIMIT, counts, np.int64(0), detail, batch)
            _flush_slots(lane, counts)
        else:
            rounds, shoes = _deal_dealt_groups(cards, state, units, shoe_params, counts, detail, batch)[0], units
    elif model == MODEL_FRESH:
        _deal_fresh_codes(cards, draws, open_fresh_block(seed, block, cards.shape[0], draws), units, counts, None)
    else:
        none = np.int64(0)
        shoes = units
        if counts.shape[0] == 1:
            rounds, _, state = _deal_dealt_flat(cards, state, units, shoe_params, counts, _NO_LIMIT, counts, none,
                                                None)
        else:
            rounds, state = _deal_dealt_rows(cards, state, units, shoe_params, counts, _CODES, None, None)
    return rounds, shoes


@jit
def _lane_fresh(lane, canonical, seed, first_block, n_blocks, taken, units_per_block, last_units, total_blocks,
                counts, totals, detail):
    """Fresh-model blocks the lane takes (:func:`_next_block`) through ``lane`` (uint32, one row).

    The lane counts in slot order: its busy counters (two runs of 205) stay
    in the L1 cache beside the tableau's tables, where code order would
    spread them over the row's 57.6 KB.
    """
    cards = encode_shoe(canonical)  # only read: shared by the lane's blocks
    draws = np.empty(FRESH_DRAWS, np.uint64)
    pending = np.int64(0)  # not the literal 0: one compiled callee
    block = _next_block(taken, first_block, n_blocks)
    while block >= 0:
        units = last_units if block == total_blocks - 1 else units_per_block
        cursor = open_fresh_block(seed, block, cards.shape[0], draws)
        pending, _ = _deal_fresh(cards, draws, cursor, units, lane, _LIMIT32, counts, pending, detail)
        totals[0] += units
        block = _next_block(taken, first_block, n_blocks)
    _flush_slots(lane, counts)


@jit
def _lane_dealt_flat(lane, canonical, seed, first_block, n_blocks, taken, units_per_block, last_units, total_blocks,
                     shoe_params, counts, totals, detail):
    """Dealt-model blocks the lane takes (:func:`_next_block`) through ``lane`` (uint32, one row)."""
    pending = np.int64(0)  # not the literal 0: one compiled callee
    block = _next_block(taken, first_block, n_blocks)
    while block >= 0:
        units = last_units if block == total_blocks - 1 else units_per_block
        cards = encode_shoe(canonical)  # every block starts from the canonical order
        rounds, pending, _ = _deal_dealt_flat(cards, block_state(seed, block), units, shoe_params, lane, _LIMIT32,
                                              counts, pending, detail)
        totals[0] += rounds
        totals[1] += units
        block = _next_block(taken, first_block, n_blocks)
    _flush_codes(lane, counts)


@jit
def _lane_dealt_rows(lane, canonical, seed, first_block, n_blocks, taken, units_per_block, last_units,
                     total_blocks, shoe_params, counts, totals, carried):
    """Dealt-model blocks the lane takes (:func:`_next_block`) through ``lane`` (uint8 rows, slot order).

    A counter's wraps go straight to ``counts`` and their per-code sums
    ``carried`` (:func:`_deal_dealt_rows`); the rest stays in ``lane``, which
    the caller keeps from one call to the next and folds into ``counts``
    when it needs the rows (:func:`fold_lane`). Its per-code totals
    (:func:`add_code_totals`, plus ``carried``) need a read of the uint8
    rows alone: folding at the end of every call, or summing the int64 rows
    for a batch's totals, would cost time each call.
    """
    block = _next_block(taken, first_block, n_blocks)
    while block >= 0:
        units = last_units if block == total_blocks - 1 else units_per_block
        cards = encode_shoe(canonical)  # every block starts from the canonical order
        rounds, _ = _deal_dealt_rows(cards, block_state(seed, block), units, shoe_params, lane, _SLOTS, counts,
                                     carried)
        totals[0] += rounds
        totals[1] += units
        block = _next_block(taken, first_block, n_blocks)


@jit
def fold_lane(lane, counts):
    """Add a lane's small counters (codes in slot order, then any cells) to its int64 rows ``counts``; clear them."""
    _flush_slots(lane, counts)


@jit
def add_code_totals(lane, totals):
    """Add a lane's small counters, summed over its rows, to ``totals`` (int64, in the histogram's order).

    The lane (uint8 rows: the codes in slot order, then any groups' cells)
    is only read. With the lane's ``carried`` sums
    (:func:`_lane_dealt_rows`, :func:`_dealt_groups_rows`) this gives the
    per-code totals of everything the lane dealt since it was last folded,
    at a read of its small rows (1.5 MB of uint8 for 8 decks) instead of
    its int64 rows (12 MB).
    """
    if lane.shape[0] == 0:
        return
    summed = np.zeros(lane.shape[1], np.int64)
    # Summed in uint32 first, as many rows at a time as their counters cannot overflow: the compiler adds twice as
    # many counters an instruction as in int64.
    rows_a_sum = np.int64(np.iinfo(np.uint32).max) // ((np.int64(1) << (8 * lane.itemsize)) - 1)
    partial = np.zeros(lane.shape[1], np.uint32)
    for first in range(0, lane.shape[0], rows_a_sum):
        for row in range(first, min(first + rows_a_sum, lane.shape[0])):
            counters = lane[row]
            for slot in range(lane.shape[1]):
                partial[slot] += counters[slot]
        for slot in range(lane.shape[1]):
            summed[slot] += partial[slot]
            partial[slot] = 0
    _add_slot_row(summed, totals, _slot_numbers(lane.shape[1]))


# --------------------------------------------------------------------------- card detail


@jit
def _deal_fresh_groups(cards, draws, cursor, units, lane, limit, counts, pending, tables, batch):
    """Deal ``units`` fresh-shoe rounds into row 0 of ``lane``: each by its code and in every group's cell.

    A round's code is counted at once, in slot order (see :func:`_deal_fresh`;
    the groups' cells follow the codes in code order), its groups' cells through ``batch``
    (:func:`~baccarat_sim.kernels.detail.count_batch`), which is empty again
    on return. ``pending`` rounds are already in ``lane``; it is flushed into
    ``counts`` before a counter could pass ``limit`` (a round adds one to a
    counter at most). ``draws``, ``cursor``: the block's random draws
    (:func:`~baccarat_sim.kernels.dealing.open_fresh_block`). Returns ``(pending, cursor)``.
    """
    row = lane[0]
    cells = batch_cells(batch)
    left = units
    n = np.int64(0)
    while left > 0:  # in spans that fit the counters, so the round loop has no check
        if pending >= limit:
            _flush_slots(lane, counts)
            pending = 0
        span = min(left, limit - pending)
        for _ in range(span):
            j0, j1, j2, j3, j4, j5, cursor = fresh_positions(draws, cursor)
            e0, e1, e2 = np.int64(cards[j0]), np.int64(cards[j1]), np.int64(cards[j2])
            e3, e4, e5 = np.int64(cards[j3]), np.int64(cards[j4]), np.int64(cards[j5])
            prefix, suffix, _ = round_parts(e0, e1, e2, e3, e4, e5)
            row[slot_of(prefix, suffix)] += 1
            n = batch_round(cells, n, prefix, suffix, e0, e1, e2, e3, e4, e5, 0)
            if n == BATCH_ROUNDS:
                count_batch(batch, n, tables, lane)
                n = 0
        count_batch(batch, n, tables, lane)  # before the lane can be flushed
        n = 0
        pending += span
        left -= span
    return pending, cursor


@jit
def _deal_dealt_groups(cards, state, units, shoe_params, counts, tables, batch):
    """Deal ``units`` dealt shoes straight into the int64 rows ``counts``; returns ``(rounds, state)``.

    The groups' cells go through ``batch``, counted in full before the return.
    """
    rounds = 0
    n = np.int64(0)
    for _ in range(units):
        cut_index, state = start_shoe(cards, state, shoe_params)
        dealt, n = deal_rounds_groups(cards, cut_index, shoe_params, counts, _CODES, tables, batch, n)
        rounds += dealt
    count_batch(batch, n, tables, counts)
    return rounds, state


@jit
def _deal_dealt_groups_small(cards, state, units, shoe_params, small, limit, counts, pending, tables, batch):
    """Deal ``units`` dealt shoes into the small counters ``small``; returns ``(rounds, pending, state)``.

    ``small``'s rows hold the codes in slot order, so that their busy
    counters stay in cache, then the groups' cells, which go through
    ``batch`` (counted in full before the return; see :func:`_lane_dealt_groups`).
    A shoe adds at most one round to a row's counter (``N // 4`` where one
    row takes every round); ``small`` is folded into ``counts``
    (:func:`_flush_slots`) before a counter could pass ``limit``.
    """
    n_cards = cards.shape[0]
    per_shoe = 1 if small.shape[0] > n_cards // 4 else n_cards // 4
    rounds = 0
    n = np.int64(0)
    for _ in range(units):
        if pending + per_shoe > limit:
            count_batch(batch, n, tables, small)  # its cells are folded too
            n = 0
            _flush_slots(small, counts)
            pending = 0
        cut_index, state = start_shoe(cards, state, shoe_params)
        dealt, n = deal_rounds_groups(cards, cut_index, shoe_params, small, _SLOTS, tables, batch, n)
        rounds += dealt
        pending += per_shoe
    count_batch(batch, n, tables, small)
    return rounds, pending, state


@jit
def _dealt_groups_blocks(canonical, seed, first_block, n_blocks, taken, units_per_block, last_units, total_blocks,
                         shoe_params, small, limit, counts, totals, tables):
    """:func:`_lane_dealt_groups`' blocks through the small counters ``small`` (:func:`_deal_dealt_groups_small`)."""
    batch = new_batch(tables)
    pending = np.int64(0)
    block = _next_block(taken, first_block, n_blocks)
    while block >= 0:
        units = last_units if block == total_blocks - 1 else units_per_block
        cards = encode_shoe(canonical)  # every block starts from the canonical order
        rounds, pending, _ = _deal_dealt_groups_small(cards, block_state(seed, block), units, shoe_params, small,
                                                      limit, counts, pending, tables, batch)
        totals[0] += rounds
        totals[1] += units
        block = _next_block(taken, first_block, n_blocks)
    _flush_slots(small, counts)


@jit
def _dealt_groups_rows(canonical, seed, first_block, n_blocks, taken, units_per_block, last_units, total_blocks,
                       shoe_params, small, counts, totals, tables, carried):
    """:func:`_lane_dealt_groups`' blocks into the position rows ``small`` (uint8, kept from call to call).

    As the plain lane's rows (:func:`_lane_dealt_rows`): the codes in slot
    order, then the groups' cells, each counter's wraps carried into the
    int64 rows ``counts`` and their per-cell sums ``carried`` as they happen
    (in the dealing loop for the codes, in the batch for the cells), the
    rest left in ``small`` for the caller to fold: faster than uint16 rows
    folded before a counter could pass 65,535 and at every call's end.
    """
    batch = new_batch(tables)
    block = _next_block(taken, first_block, n_blocks)
    while block >= 0:
        units = last_units if block == total_blocks - 1 else units_per_block
        cards = encode_shoe(canonical)  # every block starts from the canonical order
        state = block_state(seed, block)
        rounds = 0
        n = np.int64(0)
        for _ in range(units):
            cut_index, state = start_shoe(cards, state, shoe_params)
            dealt, n = deal_rounds_groups(cards, cut_index, shoe_params, small, _SLOTS, tables, batch, n, counts,
                                          carried)
            rounds += dealt
        count_batch(batch, n, tables, small, counts, carried)
        totals[0] += rounds
        totals[1] += units
        block = _next_block(taken, first_block, n_blocks)


@jit
def _lane_fresh_groups(canonical, seed, first_block, n_blocks, taken, units_per_block, last_units, total_blocks,
                       counts, totals, tables):
    """Fresh-model blocks the lane takes (:func:`_next_block`) with a factored card detail, into ``counts``.

    The rounds count in a uint32 lane (one row: the codes in slot order, then
    the groups' cells) folded into ``counts`` at the end. A function of
    its own, not a branch on the model beside the dealt one: numba would
    compile both paths for either model.
    """
    cards = encode_shoe(canonical)
    draws = np.empty(FRESH_DRAWS, np.uint64)
    lane = np.zeros(counts.shape, np.uint32)
    batch = new_batch(tables)
    pending = np.int64(0)
    block = _next_block(taken, first_block, n_blocks)
    while block >= 0:
        units = last_units if block == total_blocks - 1 else units_per_block
        cursor = open_fresh_block(seed, block, cards.shape[0], draws)
        pending, _ = _deal_fresh_groups(cards, draws, cursor, units, lane, _LIMIT32, counts, pending, tables,
                                        batch)
        totals[0] += units
        block = _next_block(taken, first_block, n_blocks)
    _flush_slots(lane, counts)


@jit
def _lane_dealt_groups(canonical, seed, first_block, n_blocks, taken, units_per_block, last_units, total_blocks,
                       shoe_params, counts, totals, tables, small, carried):
    """Dealt-model blocks the lane takes (:func:`_next_block`) with a factored card detail, into ``counts``.

    The rounds count in small counters, the codes in slot order and the
    groups' cells after them: one row in a uint32 lane, as the fresh lane
    does, folded into ``counts`` at the end (:func:`_deal_dealt_groups_small`);
    position rows in the caller's uint8 rows ``small``, left unfolded as the
    plain lane's are (:func:`_dealt_groups_rows`): small counters for the
    cells as for the codes cost markedly less than int64 rows.
    """
    if counts.shape[0] == 1:
        _dealt_groups_blocks(canonical, seed, first_block, n_blocks, taken, units_per_block, last_units, total_blocks,
                             shoe_params, np.zeros(counts.shape, np.uint32), _LIMIT32, counts, totals, tables)
    else:
        _dealt_groups_rows(canonical, seed, first_block, n_blocks, taken, units_per_block, last_units, total_blocks,
                           shoe_params, small, counts, totals, tables, carried)


@jit
def _deal_lane_fresh(canonical, seed, first_block, n_blocks, taken, units_per_block, last_units, total_blocks,
                     counts, totals, detail):
    """Fresh-model blocks of ``first_block .. first_block + n_blocks - 1`` the lane takes (:func:`_next_block`)."""
    if detail is not None:  # a factored card detail: its own loop (the plain path is unchanged)
        _lane_fresh_groups(canonical, seed, first_block, n_blocks, taken, units_per_block, last_units,
                           total_blocks, counts, totals, detail)
    else:
        # None, not `detail`: numba prunes this branch where `detail` is None, but not where it holds tables, and
        # would compile the plain lane again for the tables' type (30 s of compile for code that never runs).
        _lane_fresh(np.zeros(counts.shape, np.uint32), canonical, seed, first_block, n_blocks, taken,
                    units_per_block, last_units, total_blocks, counts, totals, None)


@jit
def _deal_lane_dealt(canonical, seed, first_block, n_blocks, taken, units_per_block, last_units, total_blocks,
                     shoe_params, counts, totals, detail, small, carried):
    """Dealt-model blocks of ``first_block .. first_block + n_blocks - 1`` the lane takes (:func:`_next_block`).

    ``small``, ``carried``: the small rows and their carried sums of a lane
    with position rows (:func:`_lane_dealt_rows`, :func:`_lane_dealt_groups`),
    left unfolded; empty for any other lane.
    """
    if detail is not None:  # a factored card detail: its own loop
        _lane_dealt_groups(canonical, seed, first_block, n_blocks, taken, units_per_block, last_units,
                           total_blocks, shoe_params, counts, totals, detail, small, carried)
    elif counts.shape[0] > 1:  # None, not `detail`: see _deal_lane_fresh
        _lane_dealt_rows(small, canonical, seed, first_block, n_blocks, taken, units_per_block, last_units,
                         total_blocks, shoe_params, counts, totals, carried)
    else:
        _lane_dealt_flat(np.zeros(counts.shape, np.uint32), canonical, seed, first_block, n_blocks, taken,
                         units_per_block, last_units, total_blocks, shoe_params, counts, totals, None)


@jit
def _deal_lane(canonical, model, seed, first_block, n_blocks, taken, units_per_block, last_units, total_blocks,
               shoe_params, counts, totals, detail, small, carried):
    """Deal the blocks a lane takes (:func:`_next_block`) of ``first_block .. first_block + n_blocks - 1``."""
    if model == MODEL_FRESH:
        _deal_lane_fresh(canonical, seed, first_block, n_blocks, taken, units_per_block, last_units, total_blocks,
                         counts, totals, detail)
    else:
        _deal_lane_dealt(canonical, seed, first_block, n_blocks, taken, units_per_block, last_units, total_blocks,
                         shoe_params, counts, totals, detail, small, carried)


# One parallel driver per model, chosen in Python (:func:`deal_blocks`): a run compiles the lanes of its own model
# only (a first fresh run used to compile the dealt lanes too, a third of its compile time).
@jit_parallel
def _fresh_blocks(canonical, seed, first_block, n_blocks, units_per_block, last_units, total_blocks, lane_counts,
                  lane_totals, detail):
    taken = np.zeros(1, np.int64)  # the blocks the lanes have taken (see _next_block)
    for lane in prange(lane_counts.shape[0]):
        _deal_lane_fresh(canonical, seed, first_block, n_blocks, taken, units_per_block, last_units,
                         total_blocks, lane_counts[lane], lane_totals[lane], detail)


@jit_parallel
def _dealt_blocks(canonical, seed, first_block, n_blocks, units_per_block, last_units, total_blocks, shoe_params,
                  lane_counts, lane_totals, detail, lane_small, lane_carried):
    taken = np.zeros(1, np.int64)
    for lane in prange(lane_counts.shape[0]):
        _deal_lane_dealt(canonical, seed, first_block, n_blocks, taken, units_per_block, last_units,
                         total_blocks, shoe_params, lane_counts[lane], lane_totals[lane], detail, lane_small[lane],
                         lane_carried[lane])


def small_lanes(lane_counts, model):
    """The small counters a dealt run's lanes keep beside their int64 rows: ``(lane_small, lane_carried)``.

    Position rows deal into uint8 rows (slot order) that stay unfolded from
    one call of :func:`deal_blocks` to the next, and into ``lane_carried``,
    the per-cell sums of what their wraps carried to the int64 rows (see
    :func:`_lane_dealt_rows`, :func:`_dealt_groups_rows`); any other lane
    gets empty arrays of the same types (one compiled driver).
    """
    lanes, positions, cells = lane_counts.shape
    rows = model != MODEL_FRESH and positions > 1
    return (np.zeros((lanes, positions, cells) if rows else (lanes, 0, 0), np.uint8),
            np.zeros((lanes, cells if rows else 0), np.int64))


def deal_blocks(canonical, model, seed, first_block, n_blocks, units_per_block, last_units, total_blocks,
                shoe_params, lane_counts, lane_totals, detail=None, small=None):
    """Deal blocks ``first_block .. first_block + n_blocks - 1`` over lanes in parallel.

    Each lane takes the blocks one at a time as it is free (:func:`_next_block`)
    and adds them to its ``lane_counts[k]`` (int64, ``(n_lanes, n_positions,
    n_cells)``); ``lane_totals[k]`` receives its (rounds, shoes). Block
    ``total_blocks - 1`` (the run's last) deals ``last_units`` units, every
    other block ``units_per_block``. ``detail``: as for :func:`deal_block`.
    ``small``: the lanes' small counters (:func:`small_lanes`), which a
    caller that deals many calls keeps and folds when it reads the rows
    (:func:`fold_lane`); None: made here and folded into ``lane_counts``
    before the return. The model's own compiled driver runs (:data:`DRIVERS`).
    """
    if model == MODEL_FRESH:
        _fresh_blocks(canonical, seed, first_block, n_blocks, units_per_block, last_units, total_blocks, lane_counts,
                      lane_totals, detail)
        return
    lane_small, lane_carried = small_lanes(lane_counts, model) if small is None else small
    _dealt_blocks(canonical, seed, first_block, n_blocks, units_per_block, last_units, total_blocks, shoe_params,
                  lane_counts, lane_totals, detail, lane_small, lane_carried)
    if small is None:
        for lane in range(lane_small.shape[0]):
            fold_lane(lane_small[lane], lane_counts[lane])


#: The compiled parallel driver of each model (what :func:`deal_blocks` runs).
DRIVERS = {MODEL_FRESH: _fresh_blocks, MODEL_DEALT: _dealt_blocks}


def deal_blocks_serial(canonical, model, seed, first_block, n_blocks, units_per_block, last_units, total_blocks,
                       shoe_params, counts, totals, detail=None):
    """Deal blocks ``first_block .. first_block + n_blocks - 1`` one after another on the calling thread.

    The distributed backend's task kernel: a Dask worker runs several tasks at
    once from its own threads, and a ``parallel=True`` kernel launched from
    several threads aborts under numba's workqueue threading layer. It lives
    here, beside :func:`deal_block`, because numba's on-disk cache is keyed on
    the defining file: a caller in another file could keep running a stale
    ``deal_block``. ``counts`` (int64, ``(n_positions, n_cells)``) and
    ``totals`` (rounds, shoes) are added to, block by block, exactly as one
    lane of :func:`deal_blocks` would.
    """
    small, carried = small_lanes(counts[None], model)
    _serial_blocks(canonical, model, seed, first_block, n_blocks, units_per_block, last_units, total_blocks,
                   shoe_params, counts, totals, detail, small[0], carried[0])
    fold_lane(small[0], counts)


@jit
def _serial_blocks(canonical, model, seed, first_block, n_blocks, units_per_block, last_units, total_blocks,
                   shoe_params, counts, totals, detail, small, carried):
    """:func:`deal_blocks_serial`'s kernel: one lane, its small rows left to the caller to fold."""
    _deal_lane(canonical, model, seed, first_block, n_blocks, np.zeros(1, np.int64), units_per_block, last_units,
               total_blocks, shoe_params, counts, totals, detail, small, carried)
