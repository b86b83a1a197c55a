"""A Monte Carlo lane's small counters: counted, carried, folded into int64 and summed.

A lane keeps its histogram in small unsigned counters, to shrink its cache
footprint: the dealt model's per-position histogram (105 rows of 14,400
codes for 8 decks) is 12 MB as int64 but 1.5 MB as uint8, and a round's
increment lands in a different row every time. The lane adds them to the
caller's int64 counts before any counter could overflow (:func:`flush_slots`,
:func:`flush_codes`), or carries each wrap of a uint8 counter to them as it
happens (:func:`count_slot_carrying`). The codes are kept in slot order
(:mod:`baccarat_sim.kernels.slots`), the card detail's cells after them.
"""

from __future__ import annotations

import numpy as np

from ..model.codes import N_CODES, N_SUFFIXES
from .jit import jit
from .outcome import code_of
from .slots import SLOT_CODES, slot_code

__all__ = ["CODE_ORDER", "LIMIT32", "NO_LIMIT", "SLOT_ORDER", "add_code_totals", "count_slot_carrying", "flush_codes",
           "flush_slots", "fold_lane"]

# The constants are numpy scalars rather than Python ints: numba types them as plain int64 and bool, not as
# literals, so each callee compiles once, not once per constant.
#: Most rounds a uint32 lane takes before it is flushed.
LIMIT32 = np.int64(np.iinfo(np.uint32).max)
#: No flush before the end (int64 counters).
NO_LIMIT = np.int64(1 << 62)
#: ``slots`` arguments: count in slot order, or in code order (:func:`baccarat_sim.kernels.slots.cell`).
SLOT_ORDER = np.bool_(True)
CODE_ORDER = np.bool_(False)


@jit(inline="always")
def count_slot_carrying(counts, row, column, prefix, suffix, carry, carried):
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
def flush_codes(lane, counts):
    """Add a lane's counters (code order) to ``counts`` (int64) and clear them."""
    for row in range(lane.shape[0]):
        for code in range(lane.shape[1]):
            counts[row, code] += lane[row, code]
            lane[row, code] = 0


@jit
def flush_slots(lane, counts):
    """Add a lane's counters to ``counts`` (int64, code order) and clear them.

    A lane's row holds the outcome codes in slot order
    (:func:`~baccarat_sim.kernels.slots.slot_of`; zeros from
    ``SLOT_CODES`` to ``N_CODES``), then, with card detail, the groups' cells
    in the order of ``counts``. Each row is first read as 64-bit words (eight uint8
    counters, four uint16 or two uint32), to count those that are not all zero. A row
    with few busy words (a short chunk, or a position few shoes reach)
    visits those words alone; a busier row is walked in the memory order of
    ``counts``: visiting every counter of every row would cost a short call
    more than its dealing (measurements: ``docs/benchmarks.md``, "Kernel
    design measurements"). A run's position rows are folded only when it
    reads them (:func:`baccarat_sim.kernels.mc.small_lanes`).
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
    vector gathers, several times slower.
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


@jit
def fold_lane(lane, counts):
    """Add a lane's small counters (codes in slot order, then any cells) to its int64 rows ``counts``; clear them."""
    flush_slots(lane, counts)


@jit
def add_code_totals(lane, totals):
    """Add a lane's small counters, summed over its rows, to ``totals`` (int64, in the histogram's order).

    The lane (uint8 rows: the codes in slot order, then any groups' cells)
    is only read. With the lane's ``carried`` sums
    (:func:`baccarat_sim.kernels.mc_dealt.lane_dealt_rows`,
    :func:`baccarat_sim.kernels.mc_dealt.dealt_groups_rows`) this gives the
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

