"""Slot order: the columns a Monte Carlo lane's small counters keep the outcome codes in.

A round can reach 205 of the tableau's 400 prefixes. In slot order a row
keeps ``suffix * SLOT_PREFIXES + number``, the number of the prefix among the
reachable ones (:func:`slot_of`), instead of the code
``prefix * N_SUFFIXES + suffix``: most rounds have no pair and unequal first
cards, so their slots crowd into two runs of 205 counters (0.4 KB in uint8)
per row instead of one cache line in every 36 codes, and the rows stay in
cache (a dealt lane's 105 position rows: 86 KB of uint8 where runs of 400
made 168 KB). A lane's counters are read back into code order by
:mod:`baccarat_sim.kernels.counters`.
"""

from __future__ import annotations

import numpy as np

from ..model.codes import N_PREFIXES, N_SUFFIXES
from ..model.tableau import THIRD_CARD_PREFIX
from .jit import jit
from .outcome import code_of

__all__ = ["PREFIX_NUMBER", "PREFIX_OF_NUMBER", "SLOT_CODES", "SLOT_PREFIXES", "cell", "slot_code", "slot_of"]

_REACHABLE_PREFIXES = np.unique(THIRD_CARD_PREFIX)
#: Prefix numbers per suffix in slot order: the reachable prefixes, rounded up to a multiple of eight so that a
#: 64-bit word of uint8 counters never straddles two suffixes (:func:`baccarat_sim.kernels.counters.flush_slots`).
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
if SLOT_PREFIXES % 8 != 0:
    raise RuntimeError("internal error: a lane's 64-bit word would straddle two suffixes")
for _table in (PREFIX_NUMBER, PREFIX_OF_NUMBER):
    _table.setflags(write=False)


@jit(inline="always")
def slot_of(prefix, suffix):
    """An outcome's slot: ``suffix * SLOT_PREFIXES`` plus its prefix's number (:data:`PREFIX_NUMBER`).

    Most rounds have no pair and unequal first cards, so in slot order they
    crowd into two runs of 205 counters per row (see the module's notes).
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

