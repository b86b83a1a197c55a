"""Monte Carlo dealing kernel: pure numba functions, no I/O, no Python objects.

Cards are integers ``rank * 4 + suit`` (see :mod:`baccarat_sim.cards`). Inside
the kernel a card travels *encoded* as ``card << 5 | point`` (int32), so a
hand's point total is one add and a mask, with no table lookup between the
cards of a round and the next round's position (the dealt model's critical
path).

A block of rounds (fresh model) or of whole shoes (dealt model) is dealt from
its own random stream (:mod:`baccarat_sim._rng`), starting from the canonical
shoe order, so what a block deals depends only on (seed, block index). Blocks
are spread over *lanes* (one per thread); each lane adds its rounds to its own
histogram and the lanes are summed afterwards. Integer addition is exact and
order-free, so the summed histogram is the same whatever the number of lanes.

The two models draw cards differently, each chosen for speed and each an
exactly uniform draw without replacement:

* fresh: six positions of the canonical shoe are drawn uniformly (one
  64-bit output, :func:`~baccarat_sim._rng.bounded3`), again until no
  position repeats (rejection sampling). Reading the unchanged canonical
  array (no swaps, no stores) is 30-40% faster than a partial Fisher-Yates
  shuffle.
* dealt: a Fisher-Yates shuffle of the part of the shoe that can be dealt
  (up to six cards past the cut card, six more per extra round), then the
  rounds are read off in order.

Numba caches compiled code per defining file and does not notice edits to
the inlined helpers in :mod:`baccarat_sim._rng` or :mod:`baccarat_sim.cards`:
touch this file after editing those.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ._jit import jit, jit_parallel
from ._rng import block_state, bounded, bounded2, bounded3, high32, low32, next_u64
from .cards import RANK_POINTS, banker_draws, player_draws
from .outcomes import N_CODES

MODEL_FRESH = 0
MODEL_DEALT = 1
#: An outcome code is ``prefix * N_SUFFIXES + suffix``: the prefix holds the
#: scores and card counts, the suffix the pairs and the first-card comparison.
#: A lane's per-position rows count in *slot* order ``suffix * N_PREFIXES +
#: prefix`` instead: most rounds have no pair and unequal first cards, so
#: their slots crowd into two runs of 400 counters (1.6 KB in uint16) per row
#: instead of one cache line in every 36 codes, and the rows stay in cache.
N_PREFIXES = 400
N_SUFFIXES = 36
#: Length of the ``shoe_params`` array (see :func:`deal_through`).
N_SHOE_PARAMS = 17
#: Bits of an encoded card that hold its point value (a two-card sum, up to
#: 18, must not carry into the card id).
POINT_BITS = 5
_POINT_MASK = (1 << POINT_BITS) - 1
#: Largest shoe for which the fresh model and the shuffle batch three draws
#: into 32 random bits: the rejection guard then fires on at most
#: ``600**3 / 2**32`` = 5% of batches; larger shoes batch two.
TRIPLE_MAX_CARDS = 600
# A lane keeps its histogram in small unsigned counters, to shrink its cache
# footprint: the dealt model's per-position histogram (105 rows of 14,400
# codes for 8 decks) is 12 MB as int64 but 3 MB as uint16, and a round's
# increment lands in a different row every time. The lane adds them to the
# caller's int64 counts before any counter could overflow. The constants are
# numpy scalars rather than Python ints: numba types them as plain int64 and
# bool, not as literals, so each callee compiles once, not once per constant.
_LIMIT16 = np.int64(np.iinfo(np.uint16).max)
_LIMIT32 = np.int64(np.iinfo(np.uint32).max)
_NO_LIMIT = np.int64(1 << 62)
_SLOTS = np.bool_(True)
_CODES = np.bool_(False)
#: Shoes the per-position path records before adding them row by row.
_RECORD_SHOES = 32


def _third_cards_py(p, b, point4, point5):
    """The tableau (plain Python), for building the kernel's lookup table."""
    if p >= 8 or b >= 8:
        return p, b, 0, 0
    if player_draws(p):
        p_final, third_point, next_point, player_drew = (p + point4) % 10, point4, point5, 1
    else:
        p_final, third_point, next_point, player_drew = p, None, point4, 0
    if banker_draws(b, third_point):
        return p_final, (b + next_point) % 10, player_drew, 1
    return p_final, b, player_drew, 0


def _tables():
    """Read-only lookup tables used by the kernel."""
    card = np.arange(52)
    tables = {
        "CARD_POINTS": RANK_POINTS[card // 4].astype(np.int64),
        "ENCODED_CARD": ((card << POINT_BITS) | RANK_POINTS[card // 4]).astype(np.int32),
    }
    # Tableau resolved for every (player two-card total, banker two-card total,
    # point of the next card, point of the card after): the round's code prefix
    # ((player_score * 10 + banker_score) * 2 + player_drew) * 2 + banker_drew.
    # One lookup replaces three hard-to-predict branches per round.
    third = np.zeros((10, 10, 10, 10), np.int64)
    for p, b, point4, point5 in np.ndindex(10, 10, 10, 10):
        p_final, b_final, player_drew, banker_drew = _third_cards_py(p, b, point4, point5)
        third[p, b, point4, point5] = ((p_final * 10 + b_final) * 2 + player_drew) * 2 + banker_drew
    tables["THIRD_CARD_PREFIX"] = third.reshape(-1)
    # The same in uint16 for the kernel: 20 KB, so it stays in the L1 cache
    # beside the histogram instead of spilling into L2 as 80 KB of int64.
    tables["THIRD_CARD_PREFIX16"] = third.reshape(-1).astype(np.uint16)
    for table in tables.values():
        table.setflags(write=False)
    return tables


_TABLES = _tables()
#: Point value of each card id, ``ndarray(int64, shape=(52,))``.
CARD_POINTS = _TABLES["CARD_POINTS"]
#: Encoded form ``card << POINT_BITS | point`` of each card id, ``ndarray(int32, shape=(52,))``.
ENCODED_CARD = _TABLES["ENCODED_CARD"]
#: Outcome-code prefix of a round by (player total, banker total, next point,
#: point after), flattened; ``ndarray(int64, shape=(10000,))``.
THIRD_CARD_PREFIX = _TABLES["THIRD_CARD_PREFIX"]
THIRD_CARD_PREFIX16 = _TABLES["THIRD_CARD_PREFIX16"]


def encode_cards(cards) -> np.ndarray:
    """Encode card ids (``rank * 4 + suit``) for the kernel, ``ndarray(int32)``."""
    return ENCODED_CARD[np.asarray(cards, dtype=np.int64)]


@jit(inline="always")
def _mod10(total):
    """``total % 10`` for ``0 <= total <= 18`` without a division."""
    return total - 10 * np.int64(total >= 10)


@jit(inline="always")
def round_parts(e0, e1, e2, e3, e4, e5):
    """A round's outcome as ``(prefix, suffix, cards_used)``: code = ``prefix * 36 + suffix``.

    ``e0..e5`` are the next six encoded cards in dealing order (Player,
    Banker, Player, Banker, then the third cards, read only if the tableau
    draws them). ``prefix`` (0-399) holds the scores and card counts,
    ``suffix`` (0-35) the pairs and the first-card comparison, worked out with
    plain integer compares: pairs 0/1/2 = none / same rank / same card id
    (suited), first card 0/1/2/3 = Player higher / Banker higher / same rank /
    same card id.
    """
    p = _mod10((e0 + e2) & _POINT_MASK)
    b = _mod10((e1 + e3) & _POINT_MASK)
    prefix = np.int64(THIRD_CARD_PREFIX16[((p * 10 + b) * 10 + (e4 & _POINT_MASK)) * 10 + (e5 & _POINT_MASK)])
    c0 = e0 >> POINT_BITS
    c1 = e1 >> POINT_BITS
    c2 = e2 >> POINT_BITS
    c3 = e3 >> POINT_BITS
    r0 = c0 >> 2
    r1 = c1 >> 2
    player_pair = np.int64(r0 == (c2 >> 2)) + np.int64(c0 == c2)
    banker_pair = np.int64(r1 == (c3 >> 2)) + np.int64(c1 == c3)
    first = np.int64(r0 < r1) + 2 * np.int64(r0 == r1) + np.int64(c0 == c1)
    return prefix, player_pair * 12 + banker_pair * 4 + first, 4 + ((prefix >> 1) & 1) + (prefix & 1)


@jit(inline="always")
def round_code(e0, e1, e2, e3, e4, e5):
    """Outcome code of a round and the number of cards it used.

    ``e0..e5``: the next six encoded cards in dealing order (see :func:`round_parts`).

    Returns
    -------
    (int64, int64)
        The outcome code (see :mod:`baccarat_sim.outcomes`) and the cards used (4-6).
    """
    prefix, suffix, used = round_parts(e0, e1, e2, e3, e4, e5)
    return prefix * N_SUFFIXES + suffix, used


@jit(inline="always")
def _cell(prefix, suffix, slots):
    """Histogram column of an outcome: its code, or its slot (``slots``, see :data:`N_PREFIXES`)."""
    return suffix * N_PREFIXES + prefix if slots else prefix * N_SUFFIXES + suffix


@jit(inline="always")
def dealt_round(cards, position):
    """Deal one round from encoded ``cards[position:]`` in order; return ``(code, cards_used)``.

    The caller guarantees six cards are left.
    """
    return round_code(
        np.int64(cards[position]),
        np.int64(cards[position + 1]),
        np.int64(cards[position + 2]),
        np.int64(cards[position + 3]),
        np.int64(cards[position + 4]),
        np.int64(cards[position + 5]),
    )


@jit(inline="always")
def _draw_six(n_cards, state):
    """Six independent uniform positions in ``[0, n_cards)``."""
    x, state = next_u64(state)
    if n_cards <= TRIPLE_MAX_CARDS:
        j0, j1, j2, state = bounded3(high32(x), n_cards, n_cards, n_cards, state)
        j3, j4, j5, state = bounded3(low32(x), n_cards, n_cards, n_cards, state)
        return j0, j1, j2, j3, j4, j5, state
    j0, j1, state = bounded2(high32(x), n_cards, n_cards, state)
    j2, j3, state = bounded2(low32(x), n_cards, n_cards, state)
    x, state = next_u64(state)
    j4, j5, state = bounded2(high32(x), n_cards, n_cards, state)
    return j0, j1, j2, j3, j4, j5, state


@jit(inline="always")
def fresh_positions(n_cards, state):
    """Six distinct positions in ``[0, n_cards)``, a uniform ordered sample; returns ``(j0, ..., j5, state)``.

    Six independent uniform positions are drawn until they are distinct:
    rejection sampling, so each ordered sample of distinct positions is
    equally likely. In 8 decks 3.6% of rounds draw again (one more 64-bit
    output each time); the loop keeps a single copy of the drawing code, and
    no call on the cold path keeps the state out of registers.
    """
    while True:
        j0, j1, j2, j3, j4, j5, state = _draw_six(n_cards, state)
        repeat = ((j1 == j0) | (j2 == j0) | (j2 == j1) | (j3 == j0) | (j3 == j1) | (j3 == j2)
                  | (j4 == j0) | (j4 == j1) | (j4 == j2) | (j4 == j3)
                  | (j5 == j0) | (j5 == j1) | (j5 == j2) | (j5 == j3) | (j5 == j4))
        if not repeat:
            return j0, j1, j2, j3, j4, j5, state


@jit(inline="always")
def fresh_round_parts(cards, state):
    """Deal one round from a freshly shuffled shoe; return ``(prefix, suffix, state)``.

    ``cards`` (encoded, any fixed order) is only read: the round takes the
    cards at six positions drawn by :func:`fresh_positions`. All six are
    drawn even when a natural ends the round: a branch-free round is faster
    than saving the random bits.
    """
    j0, j1, j2, j3, j4, j5, state = fresh_positions(cards.shape[0], state)
    prefix, suffix, _ = round_parts(
        np.int64(cards[j0]),
        np.int64(cards[j1]),
        np.int64(cards[j2]),
        np.int64(cards[j3]),
        np.int64(cards[j4]),
        np.int64(cards[j5]),
    )
    return prefix, suffix, state


@jit(inline="always")
def fresh_round(cards, state):
    """Deal one round from a freshly shuffled shoe; return ``(code, state)`` (see :func:`fresh_round_parts`)."""
    prefix, suffix, state = fresh_round_parts(cards, state)
    return prefix * N_SUFFIXES + suffix, state


@jit(inline="always")
def _swap_in(cards, index, offset):
    """Move ``cards[index + offset]`` to ``index`` (one Fisher-Yates step)."""
    card = cards[index + offset]
    cards[index + offset] = cards[index]
    cards[index] = card


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


@jit
def _deal_rounds(cards, cut_index, shoe_params, counts, slots, record, column):
    """The dealing loop of :func:`deal_through`.

    With ``column < 0`` each round is added to ``counts`` as documented
    there; otherwise round ``k``'s histogram column (a slot if ``slots``) is
    written to ``record[k, column]`` and ``counts`` is left alone.
    """
    n_cards = cards.shape[0]
    last_row = counts.shape[0] - 1
    position = shoe_params[cards[0] >> (POINT_BITS + 2)] + shoe_params[13]
    rounds = 0
    extra_left = -1  # rounds still to deal once the cut card is out; -1: not out yet
    while position + 6 <= n_cards and extra_left != 0:
        prefix, suffix, used = round_parts(
            np.int64(cards[position]),
            np.int64(cards[position + 1]),
            np.int64(cards[position + 2]),
            np.int64(cards[position + 3]),
            np.int64(cards[position + 4]),
            np.int64(cards[position + 5]),
        )
        if column < 0:
            counts[min(rounds, last_row), _cell(prefix, suffix, slots)] += 1
        else:
            record[rounds, column] = _cell(prefix, suffix, slots)
        rounds += 1
        position += used
        if extra_left > 0:
            extra_left -= 1
        elif position > cut_index:  # the cut card came out during this round
            extra_left = shoe_params[16]
    return rounds


@jit
def deal_through(cards, cut_index, shoe_params, counts, slots=False):
    """Deal an ordered shoe from the top to the cut card; return the rounds dealt.

    Parameters
    ----------
    cards : ndarray(int32, shape=(N,))
        Encoded cards in dealing order; ``cards[0]`` is the card turned for
        the burn.
    cut_index : int
        The cut card lies just before ``cards[cut_index]``: it comes out in
        the round that deals that card (a round that starts exactly there is
        the cut card's round); ``N`` if it never comes out.
    shoe_params : ndarray(int64, shape=(17,))
        ``[0:13]`` cards burned after a card of each rank is turned; ``[13]``
        1 if the turned card is discarded too (0: it is the first burned
        card); ``[14]``, ``[15]`` the cut card's distance from the end of the
        shoe, drawn uniformly from this closed range for every shoe (used by
        :func:`deal_shoe`); ``[16]`` rounds dealt after the cut card's round.
    counts : ndarray(unsigned or int64, shape=(n_positions, N_CODES))
        Round ``k`` of the shoe (0-based) is added to row ``k``, the last row
        also taking every later round.
    slots : bool
        Count in slot order (see :data:`N_PREFIXES`) instead of by code.

    Notes
    -----
    A round is started only with at least six cards left, so it can never run
    out mid-round (with the cut card at least six cards from the end, as the
    rule sets require, this never binds).
    """
    return _deal_rounds(cards, cut_index, shoe_params, counts, slots, np.empty((1, 1), np.int32), -1)


@jit
def start_shoe(cards, state, shoe_params):
    """Place the cut card and shuffle the part of ``cards`` that can be dealt.

    ``cards`` (encoded) may start in any order. The cut card's distance from
    the end is drawn uniformly from ``shoe_params[14:16]``; the shuffle covers
    up to six cards past the cut card and six more for each round after the
    cut card's round (see :func:`shuffle_prefix`).

    Returns
    -------
    (int, state)
        The cut index (see :func:`deal_through`) and the generator state.
    """
    n_cards = cards.shape[0]
    cut_low = shoe_params[14]
    x, state = next_u64(state)
    spread, state = bounded(high32(x), shoe_params[15] - cut_low + 1, state)
    cut_index = n_cards - (cut_low + spread)
    state = shuffle_prefix(cards, cut_index + 6 * (1 + shoe_params[16]), state)
    return cut_index, state


@jit
def deal_shoe(cards, state, shoe_params, counts, slots=False):
    """Shuffle a shoe (:func:`start_shoe`) and deal it through (:func:`deal_through`).

    Returns
    -------
    (int, state)
        Rounds dealt and the generator state.
    """
    cut_index, state = start_shoe(cards, state, shoe_params)
    return deal_through(cards, cut_index, shoe_params, counts, slots), state


@jit
def encode_shoe(canonical):
    """Encoded copy of a shoe given as card ids, ``ndarray(int32)``."""
    cards = np.empty(canonical.shape[0], np.int32)
    for i in range(canonical.shape[0]):
        cards[i] = ENCODED_CARD[canonical[i]]
    return cards


@jit
def _flush_codes(lane, counts):
    """Add a lane's counters (code order) to ``counts`` (int64) and clear them."""
    for row in range(lane.shape[0]):
        for code in range(lane.shape[1]):
            counts[row, code] += lane[row, code]
            lane[row, code] = 0


@jit
def _flush_slots(lane, counts, sparse):
    """Add a lane's counters (slot order) to ``counts`` (int64, code order) and clear them.

    Rows the lane never reached (positions past the longest shoe) are skipped
    after a read. ``sparse``: few counts per row (a short call), so only the
    non-zero counters are visited; otherwise ``counts`` is walked in memory
    order, the lane's row (28 KB as uint16) staying in cache.
    """
    for row in range(lane.shape[0]):
        touched = False
        for slot in range(lane.shape[1]):
            if lane[row, slot] != 0:
                touched = True
                break
        if not touched:
            continue
        if sparse:
            for suffix in range(N_SUFFIXES):
                for prefix in range(N_PREFIXES):
                    slot = suffix * N_PREFIXES + prefix
                    if lane[row, slot] != 0:
                        counts[row, prefix * N_SUFFIXES + suffix] += lane[row, slot]
                        lane[row, slot] = 0
        else:
            for prefix in range(N_PREFIXES):
                for suffix in range(N_SUFFIXES):
                    slot = suffix * N_PREFIXES + prefix
                    counts[row, prefix * N_SUFFIXES + suffix] += lane[row, slot]
                    lane[row, slot] = 0


@jit
def _deal_fresh(cards, state, units, lane, limit, counts, pending):
    """Deal ``units`` fresh-shoe rounds into row 0 of ``lane`` (code order).

    ``pending`` rounds are already in ``lane``; it is flushed into ``counts``
    before a counter could pass ``limit``. Returns ``(pending, state)``.
    """
    row = lane[0]
    left = units
    while left > 0:  # in spans that fit the counters, so the round loop has no check
        if pending >= limit:
            _flush_codes(lane, counts)
            pending = 0
        span = min(left, limit - pending)
        for _ in range(span):
            prefix, suffix, state = fresh_round_parts(cards, state)
            row[prefix * N_SUFFIXES + suffix] += 1
        pending += span
        left -= span
    return pending, state


@jit
def _deal_dealt_flat(cards, state, units, shoe_params, lane, limit, counts, pending):
    """Deal ``units`` dealt shoes into a one-row ``lane`` (code order); returns ``(rounds, pending, state)``.

    A shoe adds at most ``N // 4`` rounds to a counter (a round takes at least
    four cards); ``lane`` is flushed into ``counts`` before it could pass ``limit``.
    """
    per_shoe = cards.shape[0] // 4
    no_record = np.empty((1, 1), np.int32)
    rounds = 0
    for _ in range(units):
        if pending + per_shoe > limit:
            _flush_codes(lane, counts)
            pending = 0
        cut_index, state = start_shoe(cards, state, shoe_params)
        rounds += _deal_rounds(cards, cut_index, shoe_params, lane, False, no_record, -1)
        pending += per_shoe
    return rounds, pending, state


@jit
def _deal_dealt_rows(cards, state, units, shoe_params, lane, limit, counts, pending, slots):
    """Deal ``units`` dealt shoes into the position rows of ``lane``; returns ``(rounds, pending, state)``.

    ``lane`` is in slot order if ``slots`` (see :data:`N_PREFIXES`), else in code order.

    A shoe's rounds land in a different row each, so adding them as they are
    dealt would touch up to 105 rows' cache lines in turn: a group of shoes
    is recorded first and added row by row, one row (28 KB as uint16) in
    cache at a time. A shoe adds at most one round to a row's counter, or
    ``N // 4`` to the last row's when its rounds can reach it; ``lane`` is
    flushed into ``counts`` before a counter could pass ``limit``.
    """
    n_cards = cards.shape[0]
    last_row = lane.shape[0] - 1
    per_shoe = 1 if last_row + 1 > n_cards // 4 else n_cards // 4
    record = np.empty((n_cards // 4 + 1, _RECORD_SHOES), np.int32)
    shoe_rounds = np.zeros(_RECORD_SHOES, np.int64)
    rounds = 0
    done = 0
    while done < units:
        group = min(_RECORD_SHOES, units - done)
        if pending + group * per_shoe > limit:  # never when lane is counts itself (code order)
            _flush_slots(lane, counts, pending < N_CODES // 8)
            pending = 0
        most = 0
        for shoe in range(group):
            cut_index, state = start_shoe(cards, state, shoe_params)
            shoe_rounds[shoe] = _deal_rounds(cards, cut_index, shoe_params, lane, slots, record, shoe)
            most = max(most, shoe_rounds[shoe])
        for k in range(most):
            row = min(k, last_row)
            for shoe in range(group):
                if k < shoe_rounds[shoe]:
                    lane[row, record[k, shoe]] += 1
        for shoe in range(group):
            rounds += shoe_rounds[shoe]
        pending += group * per_shoe
        done += group
    return rounds, pending, state


@jit
def deal_block(canonical, model, seed, block, units, shoe_params, counts):
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
    shoe_params : ndarray(int64, shape=(17,))
        Burn and cut-card parameters of the dealt model (see :func:`deal_through`).
    counts : ndarray(int64, shape=(n_positions, N_CODES))
        Histogram to add to (row = round position in the shoe; one row for fresh).

    Returns
    -------
    (int, int)
        Rounds and shoes dealt.
    """
    state = block_state(seed, block)
    cards = encode_shoe(canonical)
    if model == MODEL_FRESH:
        _deal_fresh(cards, state, units, counts, _NO_LIMIT, counts, np.int64(0))  # counts is its own lane
        return units, 0
    none = np.int64(0)
    if counts.shape[0] == 1:
        rounds, _, state = _deal_dealt_flat(cards, state, units, shoe_params, counts, _NO_LIMIT, counts, none)
    else:
        rounds, _, state = _deal_dealt_rows(cards, state, units, shoe_params, counts, _NO_LIMIT, counts, none, _CODES)
    return rounds, units


@jit
def _lane_fresh(lane, canonical, seed, first_block, n_blocks, stride, units_per_block, last_units, total_blocks,
                counts, totals):
    """Fresh-model blocks ``first_block, first_block + stride, ...`` through ``lane`` (uint32, one row)."""
    cards = encode_shoe(canonical)  # only read: shared by the lane's blocks
    pending = np.int64(0)  # not the literal 0: one compiled callee
    for block in range(first_block, first_block + n_blocks, stride):
        units = last_units if block == total_blocks - 1 else units_per_block
        pending, _ = _deal_fresh(cards, block_state(seed, block), units, lane, _LIMIT32, counts, pending)
        totals[0] += units
    _flush_codes(lane, counts)


@jit
def _lane_dealt_flat(lane, canonical, seed, first_block, n_blocks, stride, units_per_block, last_units, total_blocks,
                     shoe_params, counts, totals):
    """Dealt-model blocks ``first_block, first_block + stride, ...`` through ``lane`` (uint32, one row)."""
    pending = np.int64(0)  # not the literal 0: one compiled callee
    for block in range(first_block, first_block + n_blocks, stride):
        units = last_units if block == total_blocks - 1 else units_per_block
        cards = encode_shoe(canonical)  # every block starts from the canonical order
        rounds, pending, _ = _deal_dealt_flat(cards, block_state(seed, block), units, shoe_params, lane, _LIMIT32,
                                              counts, pending)
        totals[0] += rounds
        totals[1] += units
    _flush_codes(lane, counts)


@jit
def _lane_dealt_rows(lane, canonical, seed, first_block, n_blocks, stride, units_per_block, last_units,
                     total_blocks, shoe_params, counts, totals):
    """Dealt-model blocks ``first_block, first_block + stride, ...`` through ``lane`` (uint16 rows, slot order)."""
    pending = np.int64(0)  # not the literal 0: one compiled callee
    for block in range(first_block, first_block + n_blocks, stride):
        units = last_units if block == total_blocks - 1 else units_per_block
        cards = encode_shoe(canonical)  # every block starts from the canonical order
        rounds, pending, _ = _deal_dealt_rows(cards, block_state(seed, block), units, shoe_params, lane, _LIMIT16,
                                              counts, pending, _SLOTS)
        totals[0] += rounds
        totals[1] += units
    # A row gets at most one round per shoe: with fewer shoes than an eighth
    # of the codes, most counters are still zero.
    _flush_slots(lane, counts, pending < N_CODES // 8)


@jit
def _deal_lane(canonical, model, seed, first_block, n_blocks, stride, units_per_block, last_units, total_blocks,
               shoe_params, counts, totals):
    """Deal blocks ``first_block, first_block + stride, ...`` (below ``first_block + n_blocks``) into ``counts``."""
    if model == MODEL_FRESH:
        _lane_fresh(np.zeros(counts.shape, np.uint32), canonical, seed, first_block, n_blocks, stride,
                    units_per_block, last_units, total_blocks, counts, totals)
    elif counts.shape[0] > 1:
        _lane_dealt_rows(np.zeros(counts.shape, np.uint16), canonical, seed, first_block, n_blocks, stride,
                         units_per_block, last_units, total_blocks, shoe_params, counts, totals)
    else:
        _lane_dealt_flat(np.zeros(counts.shape, np.uint32), canonical, seed, first_block, n_blocks, stride,
                         units_per_block, last_units, total_blocks, shoe_params, counts, totals)


@jit_parallel
def deal_blocks(canonical, model, seed, first_block, n_blocks, units_per_block, last_units, total_blocks,
                shoe_params, lane_counts, lane_totals):
    """Deal blocks ``first_block .. first_block + n_blocks - 1`` over lanes in parallel.

    Lane ``k`` deals blocks ``first_block + k``, ``first_block + k + n_lanes``, ...
    and adds them to ``lane_counts[k]`` (int64, ``(n_lanes, n_positions,
    N_CODES)``); ``lane_totals[k]`` receives (rounds, shoes). Block
    ``total_blocks - 1`` (the run's last) deals ``last_units`` units, every
    other block ``units_per_block``.
    """
    n_lanes = lane_counts.shape[0]
    for lane in prange(n_lanes):
        _deal_lane(canonical, model, seed, first_block + lane, n_blocks - lane, n_lanes, units_per_block, last_units,
                   total_blocks, shoe_params, lane_counts[lane], lane_totals[lane])


@jit
def deal_blocks_serial(canonical, model, seed, first_block, n_blocks, units_per_block, last_units, total_blocks,
                       shoe_params, counts, totals):
    """Deal blocks ``first_block .. first_block + n_blocks - 1`` one after another on the calling thread.

    The distributed backend's task kernel: a Dask worker runs several tasks at
    once from its own threads, and a ``parallel=True`` kernel launched from
    several threads aborts under numba's workqueue threading layer. It lives
    here, beside :func:`deal_block`, because numba's on-disk cache is keyed on
    the defining file: a caller in another file could keep running a stale
    ``deal_block``. ``counts`` (int64, ``(n_positions, N_CODES)``) and
    ``totals`` (rounds, shoes) are added to, block by block, exactly as one
    lane of :func:`deal_blocks` would.
    """
    _deal_lane(canonical, model, seed, first_block, n_blocks, 1, units_per_block, last_units, total_blocks,
               shoe_params, counts, totals)

