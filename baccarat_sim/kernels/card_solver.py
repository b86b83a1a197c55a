"""Exact EV of card-level bets on the cards left, fast enough to ask every round: pure numba functions, no I/O.

The tables are built once per run (:mod:`baccarat_sim.engines.card_solver`);
a round only counts the cards left into them. Two ways, by what a bet reads:

``first_four``
    A bet whose conditions read only classes of the first four cards (P1, B1,
    P2, B2: a colour, a suit, a rank) and no outcome, such as Colour Match.
    The cards fall into ``K`` joint classes (every class any of its atoms
    tells apart, at any of the four positions); the ordered draws of four
    cards whose classes form the multiset ``M`` number
    ``FF(M) = prod_c n_c (n_c - 1) ... (n_c - m_c + 1)`` (``n_c`` cards of
    class ``c`` left), so the EV numerator is a fixed integer linear form in
    the ``C(K + 3, 4)`` monomials ``FF(M)`` (each coefficient: the bet's
    scaled net summed over the class sequences of ``M``), exact on any shoe.
``group``
    Any other card-level bet: the exact card-detail enumeration of the group
    of atoms of every such bet of the run, by card (the stage
    :func:`baccarat_sim.kernels.exact_detail.exact_detail_counts` runs per pair
    of two-card totals, here all hundred in one thread), on the cards left, its
    weights by (combination of local ids, outcome) dotted with each bet's
    scaled net there.

Numerators are summed on 128 bits (:mod:`baccarat_sim.kernels.wide`): every
sign is exact, and the EV is its float.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .composition import falling
from .exact_detail import _group as group_stage  # the enumeration's stage of one pair of two-card totals
from .jit import jit
from .wide import add_product, wide_float, wide_sign

__all__ = ["FirstFourTables", "GroupTables", "group_counts", "solve_cards"]

#: Card ids ``rank * 4 + suit``.
_N_IDS = 52
#: The pairs of two-card totals the enumeration goes through (Player * 10 + Banker).
_TOTAL_PAIRS = 100


class FirstFourTables(NamedTuple):
    """The ``first_four`` bets' closed forms, bet ``j`` after bet ``j - 1`` (read-only arrays).

    Attributes
    ----------
    card_class : ndarray(int64, shape=(k, 52))
        Bet ``j``'s joint class of every card id.
    mono_first : ndarray(int64, shape=(k + 1,))
        Bet ``j``'s monomials are ``mono_first[j] .. mono_first[j + 1] - 1``.
    mono_classes : ndarray(int64, shape=(n_monomials, 4))
        Each monomial's multiset of four classes, ascending.
    mono_row : ndarray(int64, shape=(n_monomials,))
        Its coefficient: the bet's net, in units of ``1 / scale``, summed over the class sequences of the multiset.
    scale : ndarray(int64, shape=(k,))
        Each bet's scale (the lcm of its nets' denominators).
    bet : ndarray(int64, shape=(k,))
        Each bet's index in the caller's EV arrays.
    """

    card_class: np.ndarray
    mono_first: np.ndarray
    mono_classes: np.ndarray
    mono_row: np.ndarray
    scale: np.ndarray
    bet: np.ndarray


class GroupTables(NamedTuple):
    """One group of atoms laid out for the by-card enumeration, and its bets' nets (read-only arrays).

    The enumeration's arrays are :func:`baccarat_sim.model.detail_tables.exact_tables`' (named as there) less
    the two that depend on the shoe (the cards of each id, of each third-card class), which each call counts.

    Attributes
    ----------
    pooled : ndarray(int64, shape=(52,))
        The card id each card id is counted as (ids that nothing the group reads tells apart share one).
    net : ndarray(int64, shape=(k, n_combinations, n_outcomes))
        Each bet's net in units of ``1 / scale`` on every combination of local ids and outcome (0 where the
        combination cannot happen).
    scale, bet : ndarray(int64, shape=(k,))
        Each bet's scale, and its index in the caller's EV arrays.
    """

    pooled: np.ndarray
    points: np.ndarray
    ids: np.ndarray
    n_ids: np.ndarray
    tclass: np.ndarray
    t_point: np.ndarray
    first4: np.ndarray
    d_over: np.ndarray
    d_rank_only: np.ndarray
    d_keys: np.ndarray
    d_key_offset: np.ndarray
    d_key_count: np.ndarray
    d_stride: np.ndarray
    reduced: np.ndarray
    reduced_offset: np.ndarray
    radix: np.ndarray
    third: np.ndarray
    rt: np.ndarray
    rt_offset: np.ndarray
    rt_width: np.ndarray
    n_states: int
    rows: int
    net: np.ndarray
    scale: np.ndarray
    bet: np.ndarray


@jit
def first_four_evs(t, shoe, floor, ev_out, sign_out, solved_out):
    """Exact EV and sign of every ``first_four`` bet whose floor is below ``+inf`` (see :func:`solve_cards`)."""
    n_cards = np.int64(0)
    for card in range(_N_IDS):
        n_cards += shoe[card >> 2, card & 3]
    total4 = falling(n_cards, 4)
    counts = np.zeros(_N_IDS, np.int64)
    for j in range(t.bet.shape[0]):
        b = t.bet[j]
        if floor[b] == np.inf:
            continue
        counts[:] = 0
        for card in range(_N_IDS):
            counts[t.card_class[j, card]] += shoe[card >> 2, card & 3]
        high, low = np.uint64(0), np.uint64(0)
        for m in range(t.mono_first[j], t.mono_first[j + 1]):
            c0, c1, c2, c3 = t.mono_classes[m, 0], t.mono_classes[m, 1], t.mono_classes[m, 2], t.mono_classes[m, 3]
            # Ordered draws of four cards of these classes, without replacement (0 once a class runs out).
            ways = counts[c0] * (counts[c1] - (c1 == c0)) * (counts[c2] - (c2 == c0) - (c2 == c1)) * (
                counts[c3] - (c3 == c0) - (c3 == c1) - (c3 == c2))
            if ways > 0:
                high, low = add_product(high, low, t.mono_row[m], ways)
        ev_out[b] = wide_float(high, low) / (t.scale[j] * float(total4)) if total4 > 0 else 0.0
        sign_out[b] = wide_sign(high, low)
        solved_out[b] = True


@jit
def group_counts(g, shoe, out):
    """Exact weights of one group's combinations by outcome on ``shoe``, added to ``out``.

    Parameters
    ----------
    g : GroupTables
    shoe : ndarray(int64, shape=(13, 4))
        Cards left per rank and suit.
    out : ndarray(int64, shape=(n_combinations, n_outcomes))
        Added to: the weights total ``N (N-1) ... (N-5)`` for ``N`` cards left, as the exact engine's.
    """
    counts = np.zeros(_N_IDS, np.int64)
    for card in range(_N_IDS):
        counts[g.pooled[card]] += shoe[card >> 2, card & 3]
    k = g.t_point.shape[0]
    t_total = np.zeros(k, np.int64)
    n_cards = np.int64(0)
    for card in range(_N_IDS):
        t_total[g.tclass[card]] += counts[card]
        n_cards += counts[card]
    rows = g.rows
    slot = np.full(g.n_states, -1, np.int32)
    states = np.zeros(rows, np.int64)
    weight = np.zeros(rows, np.int64)
    r1 = np.zeros((rows, k), np.int64)
    r2 = np.zeros((rows, k, k), np.int64)
    d_state = np.zeros(max(1, g.d_over.shape[0]), np.int64)
    for pair in range(_TOTAL_PAIRS):
        group_stage(pair // 10, pair % 10, counts, g.points, g.ids, g.n_ids, g.tclass, t_total, g.t_point, k,
                    g.first4, g.d_over, g.d_rank_only, g.d_keys, g.d_key_offset, g.d_key_count, g.d_stride, d_state,
                    g.reduced, g.reduced_offset, g.radix, g.third, g.rt, g.rt_offset, g.rt_width,
                    g.first4.shape[0], n_cards, slot, states, weight, r1, r2, out)


@jit
def group_evs(g, shoe, floor, ev_out, sign_out, solved_out):
    """Exact EV and sign of one group's bets, where any of them has a floor below ``+inf`` (see :func:`solve_cards`)."""
    needed = False
    for j in range(g.bet.shape[0]):
        needed = needed or floor[g.bet[j]] < np.inf
    if not needed:
        return
    out = np.zeros((g.net.shape[1], g.net.shape[2]), np.int64)
    group_counts(g, shoe, out)
    n_cards = np.int64(0)
    for card in range(_N_IDS):
        n_cards += shoe[card >> 2, card & 3]
    total6 = falling(n_cards, 6)
    for j in range(g.bet.shape[0]):
        net = g.net[j]
        high, low = np.uint64(0), np.uint64(0)
        for c in range(out.shape[0]):
            for o in range(out.shape[1]):
                if out[c, o] != 0:
                    high, low = add_product(high, low, net[c, o], out[c, o])
        b = g.bet[j]
        ev_out[b] = wide_float(high, low) / (g.scale[j] * float(total6)) if total6 > 0 else 0.0
        sign_out[b] = wide_sign(high, low)
        solved_out[b] = True


@jit
def solve_cards(first_four, group, shoe, floor, ev_out, sign_out, solved_out):
    """Exact EV and sign of the card-level bets on the cards left, for the bets whose floor is below ``+inf``.

    Parameters
    ----------
    first_four : FirstFourTables or None
    group : GroupTables or None
        The bets priced by the enumeration, in one group. None: no such bets (numba compiles that path alone; a
        parallel kernel takes a named tuple as an argument of its own, not inside another tuple).
    shoe : ndarray(int64, shape=(13, 4))
        Cards left per rank and suit.
    floor : ndarray(float64, shape=(n_bets,))
        ``+inf`` where a bet's EV is not needed this round.
    ev_out, sign_out, solved_out : ndarray(float64 / int64 / bool, shape=(n_bets,))
        Written for the bets solved only (a group's bets are solved together).
    """
    if first_four is not None:
        first_four_evs(first_four, shoe, floor, ev_out, sign_out, solved_out)
    if group is not None:
        group_evs(group, shoe, floor, ev_out, sign_out, solved_out)
