"""Monte Carlo dealing kernel: pure numba functions, no I/O, no Python objects.

Cards are integers ``rank * 4 + suit`` (see :mod:`baccarat_sim.cards`). A block
of rounds (fresh model) or of whole shoes (dealt model) is dealt from its own
random stream (:mod:`baccarat_sim._rng`), starting from the canonical shoe
order, so what a block deals depends only on (seed, block index). Blocks are
spread over *lanes* (one per thread); each lane adds its rounds to its own
histogram row and the rows are summed afterwards. Integer addition is exact and
order-free, so the summed histogram is the same whatever the number of lanes.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ._jit import jit, jit_parallel
from ._rng import block_state, bounded, high32, low32, next_u64
from .cards import RANK_POINTS, banker_draws, player_draws


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


def _card_tables():
    """Lookup tables over card ids (``rank * 4 + suit``) used by the kernel.

    Table lookups instead of comparisons keep the hot loop free of
    hard-to-predict branches (a pair or a first-card tie is a coin flip to the
    branch predictor).
    """
    card = np.arange(52)
    rank = card // 4
    same_rank = rank[:, None] == rank[None, :]
    same_card = card[:, None] == card[None, :]
    pair = np.where(same_rank, np.where(same_card, 2, 1), 0)  # 0 none, 1 pair, 2 suited
    first = np.where(
        rank[:, None] > rank[None, :], 0, np.where(rank[:, None] < rank[None, :], 1, np.where(same_card, 3, 2))
    )
    tables = {
        "CARD_POINTS": RANK_POINTS[rank].astype(np.int64),
        "PLAYER_PAIR_PART": (pair * 12).astype(np.int64),  # player_pair * 3 * 4
        "BANKER_PAIR_PART": (pair * 4).astype(np.int64),  # banker_pair * 4
        "FIRST_CARD": first.astype(np.int64),
        "MOD10": np.arange(20, dtype=np.int64) % 10,
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
    for table in tables.values():
        table.setflags(write=False)
    return tables


_TABLES = _card_tables()
CARD_POINTS = _TABLES["CARD_POINTS"]
PLAYER_PAIR_PART = _TABLES["PLAYER_PAIR_PART"]
BANKER_PAIR_PART = _TABLES["BANKER_PAIR_PART"]
FIRST_CARD = _TABLES["FIRST_CARD"]
MOD10 = _TABLES["MOD10"]
THIRD_CARD_PREFIX = _TABLES["THIRD_CARD_PREFIX"]

MODEL_FRESH = 0
MODEL_DEALT = 1
#: Length of the ``shoe_params`` array (see :func:`deal_shoe`).
N_SHOE_PARAMS = 17


@jit(inline="always")
def round_code(c0, c1, c2, c3, point4, point5):
    """Outcome code of a round and the number of cards it used.

    ``c0..c3`` are the first four cards (Player, Banker, Player, Banker);
    ``point4``, ``point5`` the points of the next two cards in dealing order
    (used only if the tableau draws them).
    """
    p = MOD10[CARD_POINTS[c0] + CARD_POINTS[c2]]
    b = MOD10[CARD_POINTS[c1] + CARD_POINTS[c3]]
    prefix = THIRD_CARD_PREFIX[((p * 10 + b) * 10 + point4) * 10 + point5]
    code = prefix * 36 + PLAYER_PAIR_PART[c0, c2] + BANKER_PAIR_PART[c1, c3] + FIRST_CARD[c0, c1]
    return code, 4 + ((prefix >> 1) & 1) + (prefix & 1)


@jit(inline="always")
def _swap_in(cards, index, offset):
    """Move ``cards[index + offset]`` to ``index`` (one Fisher-Yates step)."""
    card = cards[index + offset]
    cards[index + offset] = cards[index]
    cards[index] = card
    return card


@jit(inline="always")
def fresh_round(cards, n_cards, state):
    """Deal one round from a freshly shuffled shoe; return ``(code, state)``.

    A partial Fisher-Yates shuffle of ``cards`` (which stays a permutation of
    the shoe) draws a uniform ordered sample of the cards the round uses.
    """
    x, state = next_u64(state)
    j, state = bounded(high32(x), n_cards, state)
    c0 = _swap_in(cards, 0, j)
    j, state = bounded(low32(x), n_cards - 1, state)
    c1 = _swap_in(cards, 1, j)
    x, state = next_u64(state)
    j, state = bounded(high32(x), n_cards - 2, state)
    c2 = _swap_in(cards, 2, j)
    j, state = bounded(low32(x), n_cards - 3, state)
    c3 = _swap_in(cards, 3, j)
    # The next two cards are drawn even when a natural ends the round: a
    # branch-free round is faster than saving the random bits.
    x, state = next_u64(state)
    j, state = bounded(high32(x), n_cards - 4, state)
    c4 = _swap_in(cards, 4, j)
    j, state = bounded(low32(x), n_cards - 5, state)
    c5 = _swap_in(cards, 5, j)
    code, _ = round_code(c0, c1, c2, c3, CARD_POINTS[c4], CARD_POINTS[c5])
    return code, state


@jit(inline="always")
def dealt_round(cards, position):
    """Deal one round from ``cards[position:]`` in order; return ``(code, cards_used)``.

    The caller guarantees six cards are left.
    """
    return round_code(
        cards[position],
        cards[position + 1],
        cards[position + 2],
        cards[position + 3],
        CARD_POINTS[cards[position + 4]],
        CARD_POINTS[cards[position + 5]],
    )


@jit(inline="always")
def shuffle(cards, state):
    """Fisher-Yates shuffle of ``cards`` in place; returns the new state."""
    n_cards = cards.shape[0]
    for i in range(0, n_cards - 1, 2):
        x, state = next_u64(state)
        j, state = bounded(high32(x), n_cards - i, state)
        _swap_in(cards, i, j)
        if i + 2 < n_cards:
            j, state = bounded(low32(x), n_cards - i - 1, state)
            _swap_in(cards, i + 1, j)
    return state


@jit(inline="always")
def deal_shoe(cards, state, shoe_params, counts):
    """Shuffle ``cards`` and deal it through to the cut card.

    ``shoe_params`` (int64[17]): ``[0:13]`` cards burned after a card of each
    rank is turned; ``[13]`` 1 if the turned card is discarded too; ``[14]``,
    ``[15]`` the cut card's distance from the end of the shoe, drawn uniformly
    from this closed range for every shoe; ``[16]`` rounds dealt after the round
    in which the cut card came out. Rounds go to ``counts[position]``, the last
    row also taking every later round.

    Returns
    -------
    (int, state)
        Rounds dealt and the generator state.
    """
    n_cards = cards.shape[0]
    n_positions = counts.shape[0]
    state = shuffle(cards, state)
    cut_low = shoe_params[14]
    x, state = next_u64(state)
    spread, state = bounded(high32(x), shoe_params[15] - cut_low + 1, state)
    cut_index = n_cards - (cut_low + spread)  # the cut card lies just before this card
    position = shoe_params[cards[0] >> 2] + shoe_params[13]
    rounds = 0
    extra_left = -1  # rounds still to deal once the cut card is out; -1: not out yet
    while position + 6 <= n_cards and extra_left != 0:
        code, used = dealt_round(cards, position)
        row = rounds if rounds < n_positions else n_positions - 1
        counts[row, code] += 1
        rounds += 1
        position += used
        if extra_left > 0:
            extra_left -= 1
        elif position > cut_index:  # the cut card came out during this round
            extra_left = shoe_params[16]
    return rounds, state


@jit
def deal_block(canonical, model, seed, block, units, shoe_params, counts):
    """Deal one block and add its rounds to ``counts``.

    Parameters
    ----------
    canonical : ndarray(uint8, shape=(N,))
        The shoe's cards in canonical order.
    model : int
        ``MODEL_FRESH`` (shuffle before every round) or ``MODEL_DEALT``.
    seed : uint64
        Master seed.
    block : int
        Block index: with ``seed`` it fixes the block's random stream.
    units : int
        Rounds (fresh model) or shoes (dealt model) in this block.
    shoe_params : ndarray(int64, shape=(17,))
        Burn and cut-card parameters of the dealt model (see :func:`deal_shoe`).
    counts : ndarray(int64, shape=(n_positions, N_CODES))
        Histogram to add to (row = round position in the shoe; one row for fresh).

    Returns
    -------
    (int, int)
        Rounds and shoes dealt.
    """
    state = block_state(seed, block)
    cards = canonical.copy()
    if model == MODEL_FRESH:
        row = counts[0]
        n_cards = cards.shape[0]
        for _ in range(units):
            code, state = fresh_round(cards, n_cards, state)
            row[code] += 1
        return units, 0
    rounds = 0
    for _ in range(units):
        shoe_rounds, state = deal_shoe(cards, state, shoe_params, counts)
        rounds += shoe_rounds
    return rounds, units


@jit_parallel
def deal_blocks(canonical, model, seed, first_block, n_blocks, units_per_block, last_units, total_blocks,
                shoe_params, lane_counts, lane_totals):
    """Deal blocks ``first_block .. first_block + n_blocks - 1`` over lanes in parallel.

    Lane ``k`` deals blocks ``first_block + k``, ``first_block + k + n_lanes``, ...
    into ``lane_counts[k]``; ``lane_totals[k]`` receives (rounds, shoes).
    Block ``total_blocks - 1`` (the run's last) deals ``last_units`` units,
    every other block ``units_per_block``.
    """
    n_lanes = lane_counts.shape[0]
    for lane in prange(n_lanes):
        for offset in range(lane, n_blocks, n_lanes):
            block = first_block + offset
            units = last_units if block == total_blocks - 1 else units_per_block
            rounds, shoes = deal_block(canonical, model, seed, block, units, shoe_params, lane_counts[lane])
            lane_totals[lane, 0] += rounds
            lane_totals[lane, 1] += shoes


@jit
def deal_blocks_serial(canonical, model, seed, first_block, n_blocks, units_per_block, last_units, total_blocks,
                       shoe_params, counts, totals):
    """Deal blocks ``first_block .. first_block + n_blocks - 1`` one after another on the calling thread.

    The distributed backend's task kernel: a Dask worker runs several tasks at
    once from its own threads, and a ``parallel=True`` kernel launched from
    several threads aborts under numba's workqueue threading layer. It lives
    here, beside :func:`deal_block`, because numba's on-disk cache is keyed on
    the defining file: a caller in another file could keep running a stale
    ``deal_block``. ``counts`` (``(n_positions, N_CODES)``) and ``totals``
    (rounds, shoes) are added to, block by block, exactly as one lane of
    :func:`deal_blocks` would.
    """
    for block in range(first_block, first_block + n_blocks):
        units = last_units if block == total_blocks - 1 else units_per_block
        rounds, shoes = deal_block(canonical, model, seed, block, units, shoe_params, counts)
        totals[0] += rounds
        totals[1] += shoes
