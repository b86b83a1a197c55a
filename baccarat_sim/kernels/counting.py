"""Card-counting kernel: deal whole shoes, decide each bet from the cards seen, settle.

Pure numba functions over integer and float arrays, no I/O. Shoes are dealt
by the one dealing procedure (:mod:`baccarat_sim.kernels.shoe`,
:mod:`baccarat_sim.kernels.round`), exactly as the Monte Carlo engine deals them:
block ``b`` of master seed ``s`` starts from the canonical shoe order with the
generator state ``block_state(s, b)``, places the cut card and shuffles the
dealable part of the same array once per shoe, so the rounds of the rule set's
own cut-card scenario are the rounds the MC engine deals for the same seed.

What the counter knows is every card turned face up: the card turned to set the
burn (face-value burn) and every card of every round; burned cards and the
cards behind the cut card stay unseen. The exact EV for "perfect play" is the
EV of the next round drawn from the unseen cards, which, by exchangeability,
is the EV given everything the counter has seen.

Alternative cut-card positions ("scenarios") share every shuffle: a shoe's
rounds are the same whatever the cut card, only the round at which the shoe
stops differs, so all scenarios are counted in one pass. Their cut positions,
and the shuffle of any cards a deeper cut card makes dealable, come from a
stream of their own (``block_state(seed, b, STREAM_CUT_SCENARIOS)``) applied to a
working copy, so the first scenario's stream and card order stay identical to
the MC engine's.

Counts tag each card id (``tags[count, card]``), so a count may go by rank,
suit, colour or card. A rule set with card-level bets passes its card detail
tables (``detail``, :func:`baccarat_sim.kernels.detail.detail_index`): each
round is then settled on its cell ``detail * N_CODES + code`` with
:func:`baccarat_sim.kernels.round.round_detail`, as the Monte Carlo engine
counts it; with ``detail=None`` numba compiles the outcome-code path alone.
Card-level bets played perfectly, or whose exact edge is kept, are priced on
the unseen cards by :func:`baccarat_sim.kernels.card_solver.solve_cards`
(``card_first_four``, ``card_group``) wherever the composition solver prices
the other bets; with both None that path is not compiled either.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ..model.cards import SUIT_BITS
from .card_solver import solve_cards
from .encoding import POINT_BITS, POINT_MASK, encode_shoe
from .jit import jit, jit_parallel
from .outcome import code_of
from .rng import STREAM_CUT_SCENARIOS, block_state, bounded, high32, next_u64
from .round import round_at
from .screen import screen_margins, solve_screened
from .shoe import after_round, another_round, dealable_cards, open_shoe, shoe_end
from .shuffle import shuffle_prefix

#: How a bet is played (``mode`` array).
PLAY_NEVER = 0
PLAY_ALWAYS = 1
PLAY_TRUE_COUNT = 2
PLAY_RUNNING_COUNT = 3
PLAY_PERFECT = 4
#: Bet when the count is at least the threshold away from zero, either sign (``|count| >= threshold``).
PLAY_TRUE_COUNT_TWO_SIDED = 5
PLAY_RUNNING_COUNT_TWO_SIDED = 6

#: Integer statistics per (scenario, bet, variant): rounds the bet was offered,
#: bets placed, net result in units of ``1 / scale``.
INT_STATS = 3
#: Float statistics per (scenario, bet, variant): sums over shoes of (net per
#: shoe)^2, (bets per shoe)^2 and their product; the sum of the exact EV of
#: every bet placed, and over shoes of (exact EV per shoe)^2 and of its product
#: with the bets per shoe (for the standard errors of ratio estimates).
FLOAT_STATS = 6
#: Per scenario: shoes and rounds (ints), sum of rounds per shoe squared (float).
SCENARIO_INT = 2
SCENARIO_FLOAT = 1
#: Variant 0: every round of the shoe; variant 1: only rounds 1..max_round.
VARIANTS = 2


@jit
def int_index(n_scenarios, n_bets, s, b, v):
    """Column of (scenario, bet, variant) in the integer statistics row."""
    return SCENARIO_INT * n_scenarios + ((s * n_bets + b) * VARIANTS + v) * INT_STATS


@jit
def float_index(n_scenarios, n_bets, s, b, v):
    """Column of (scenario, bet, variant) in the float statistics row."""
    return SCENARIO_FLOAT * n_scenarios + ((s * n_bets + b) * VARIANTS + v) * FLOAT_STATS


_SUIT_MASK = (1 << SUIT_BITS) - 1


@jit(inline="always")
def _see(encoded, unseen, values, tags, running):
    """The counter sees a card (encoded ``card << POINT_BITS | point``): it leaves the unseen cards."""
    card = encoded >> POINT_BITS
    unseen[card >> SUIT_BITS, card & _SUIT_MASK] -= 1
    values[encoded & POINT_MASK] -= 1
    for c in range(tags.shape[0]):
        running[c] += tags[c, card]


@jit
def count_block(canonical, seed, block, n_shoes, shoe_params, turned_seen, scenario_cuts,
                tags, count_of_bet, mode, threshold, min_edge, max_round, track_exact, net, solver_rows,
                solver_scale, solver_max, solver_bet, solver_screen, stats_int, stats_float, codes, detail,
                card_first_four, card_group):
    """Deal ``n_shoes`` shoes of one block, playing every bet by its strategy.

    Parameters
    ----------
    canonical : ndarray(uint8, shape=(N,))
        The shoe's cards in canonical order.
    seed : uint64
        Master seed: the shoes come from its dealing stream, the extra cut-card positions from its
        ``STREAM_CUT_SCENARIOS`` stream.
    block : int
        Block index.
    n_shoes : int
        Shoes in this block.
    shoe_params : ndarray(int64, shape=(N_SHOE_PARAMS,))
        Burn and cut-card parameters, as :func:`baccarat_sim.kernels.shoe.start_shoe` reads them.
    turned_seen : int
        1 when the first card of the shoe is turned face up to set the burn.
    scenario_cuts : ndarray(int64, shape=(n_scenarios, 2))
        Cut card (low, high) in cards from the end; row 0 is the rule set's.
    tags : ndarray(float64, shape=(n_counts, 52))
        Tag of each card id ``rank * 4 + suit``, per count system.
    count_of_bet : ndarray(int64, shape=(n_bets,))
        Count system each bet reads.
    mode : ndarray(int64, shape=(n_bets,))
        ``PLAY_*`` constant of each bet.
    threshold : ndarray(float64, shape=(n_bets,))
        Bet when the true (or running) count is at least this (two-sided modes: at least this far from zero).
    min_edge : ndarray(float64, shape=(n_bets,))
        Perfect play: bet when the exact EV exceeds this (0: exactly positive).
    max_round : ndarray(int64, shape=(n_bets,))
        Variant 1 offers the bet only in rounds ``1..max_round`` of a shoe.
    track_exact : ndarray(int64, shape=(n_bets,))
        1: compute the exact EV of every bet placed (needs a packed bet).
    net : ndarray(int64, shape=(n_bets, n_cells))
        Net result per cell (outcome code, or ``detail * N_CODES + code``) in units of ``1 / scale``.
    solver_rows, solver_scale, solver_max, solver_bet : tuple of arrays
        The packed pay tables of :meth:`baccarat_sim.engines.composition.FastSolver.packed_arrays`.
    solver_screen : (ndarray(float32, shape=(r, 5005)), ndarray(float64, shape=(k, r + 1)), ndarray(float64, (k,)))
        The value rows' basis, each row's combination of it and its reach
        (:func:`baccarat_sim.engines.value_basis.value_basis`): perfect play estimates the value bets from them first
        (:mod:`baccarat_sim.kernels.screen`).
    stats_int : ndarray(int64, shape=(K_int,))
        This block's integer statistics (added to).
    stats_float : ndarray(float64, shape=(K_float,))
        This block's float statistics (added to, in dealing order).
    codes : ndarray(int64, shape=(n_cells,) or (1,))
        Histogram of scenario 0 by cell (when it has more than one entry).
    detail : tuple or None
        Card detail tables (:func:`baccarat_sim.kernels.detail.detail_index`) when a bet reads cards; None: cells
        are the outcome codes.
    card_first_four, card_group : FirstFourTables or None, GroupTables or None
        The tables of :func:`baccarat_sim.kernels.card_solver.solve_cards` when card-level bets are played
        perfectly or their exact edge is kept: their exact EV on the unseen cards, wherever a value bet's would be
        worked out; None: no such bet (numba compiles that path alone).
    """
    v_rows, p_rows, f_rows = solver_rows
    v_scale, p_scale, f_scale = solver_scale
    v_bet, p_bet, f_bet = solver_bet
    n_scenarios = scenario_cuts.shape[0]
    n_bets = mode.shape[0]
    n_counts = tags.shape[0]
    record_codes = codes.shape[0] > 1
    needs_solver = False
    for b in range(n_bets):
        if mode[b] == PLAY_PERFECT:
            needs_solver = True
    state = block_state(seed, block)
    aux = block_state(seed, block, STREAM_CUT_SCENARIOS)
    cards = encode_shoe(canonical)  # evolves exactly like the MC engine's array
    work = cards.copy()  # this shoe's dealing order, deeper cut cards included
    n_cards = cards.shape[0]
    full = np.zeros((13, 4), np.int64)
    full_values = np.zeros(10, np.int64)
    for i in range(n_cards):
        card = cards[i] >> POINT_BITS
        full[card >> SUIT_BITS, card & _SUIT_MASK] += 1
        full_values[cards[i] & POINT_MASK] += 1
    unseen = np.zeros((13, 4), np.int64)
    values = np.zeros(10, np.int64)
    running = np.zeros(n_counts)
    cut_index = np.zeros(n_scenarios, np.int64)
    stop = np.zeros(n_scenarios, np.int64)  # each scenario's shoe end (shoe.shoe_end)
    more = np.zeros(n_scenarios, np.int64)
    live = np.zeros(n_scenarios, np.bool_)
    placed = np.zeros(n_bets, np.bool_)
    ev = np.zeros(n_bets)
    sign = np.zeros(n_bets, np.int64)
    # The solver runs the exact integer form only for the bets whose EV this round can matter (kernels.screen).
    floor = np.empty(n_bets)
    solved = np.zeros(n_bets, np.bool_)
    basis, coefficients, reach = solver_screen
    v_margin = screen_margins(v_scale, reach)
    shoe_net = np.zeros((n_scenarios, n_bets, VARIANTS), np.int64)
    shoe_bets = np.zeros((n_scenarios, n_bets, VARIANTS), np.int64)
    shoe_ev = np.zeros((n_scenarios, n_bets, VARIANTS))
    shoe_rounds = np.zeros(n_scenarios, np.int64)
    for _ in range(n_shoes):
        # Scenario 0 is the rule set's shoe, started exactly as the Monte Carlo engine starts it; its turned
        # card and burn are every scenario's.
        position, cut_index[0], _, _, state = open_shoe(cards, state, shoe_params)
        shuffled = dealable_cards(n_cards, cut_index[0], shoe_params)
        deepest = shuffled
        for s in range(1, n_scenarios):
            x, aux = next_u64(aux)
            spread, aux = bounded(high32(x), scenario_cuts[s, 1] - scenario_cuts[s, 0] + 1, aux)
            cut_index[s] = n_cards - (scenario_cuts[s, 0] + spread)
            deepest = max(deepest, dealable_cards(n_cards, cut_index[s], shoe_params))
        work[:] = cards
        if deepest > shuffled:  # continue the Fisher-Yates shuffle on the copy, from the cut cards' stream
            aux = shuffle_prefix(work[shuffled:], deepest - shuffled, aux)
        unseen[:, :] = full
        values[:] = full_values
        running[:] = 0.0
        n_unseen = n_cards
        if turned_seen:
            _see(work[0], unseen, values, tags, running)
            n_unseen -= 1
        for s in range(n_scenarios):
            stop[s], more[s] = shoe_end(position, n_cards, cut_index[s])
        shoe_net[:, :, :] = 0
        shoe_bets[:, :, :] = 0
        shoe_ev[:, :, :] = 0.0
        shoe_rounds[:] = 0
        round_index = 0
        while True:
            any_active = False
            for s in range(n_scenarios):
                live[s] = another_round(position, stop[s], more[s])
                any_active |= live[s]
            if not any_active:
                break
            # Decide every bet from what has been seen before this round.
            want_exact = needs_solver
            for b in range(n_bets):
                play = mode[b]
                if play == PLAY_ALWAYS:
                    placed[b] = True
                elif play == PLAY_TRUE_COUNT:
                    placed[b] = running[count_of_bet[b]] * 52.0 / n_unseen >= threshold[b]
                elif play == PLAY_RUNNING_COUNT:
                    placed[b] = running[count_of_bet[b]] >= threshold[b]
                elif play == PLAY_TRUE_COUNT_TWO_SIDED:
                    placed[b] = abs(running[count_of_bet[b]]) * 52.0 / n_unseen >= threshold[b]
                elif play == PLAY_RUNNING_COUNT_TWO_SIDED:
                    placed[b] = abs(running[count_of_bet[b]]) >= threshold[b]
                else:
                    placed[b] = False
                if placed[b] and track_exact[b]:
                    want_exact = True
            if want_exact:
                # Perfect play needs the EV only where it may clear the bet's edge; a bet placed by its count and
                # tracked needs it always; any other bet not at all.
                for b in range(n_bets):
                    if mode[b] == PLAY_PERFECT:
                        floor[b] = min_edge[b]
                    else:
                        floor[b] = -np.inf if placed[b] and track_exact[b] else np.inf
                solve_screened(unseen, values, v_rows, v_scale, solver_max, v_bet, p_rows, p_scale, p_bet, f_rows,
                               f_scale, f_bet, basis, coefficients, v_margin, floor, ev, sign, solved)
                solve_cards(card_first_four, card_group, unseen, floor, ev, sign, solved)
                for b in range(n_bets):
                    if mode[b] == PLAY_PERFECT:
                        placed[b] = solved[b] and (sign[b] > 0 if min_edge[b] == 0.0 else ev[b] > min_edge[b])
            prefix, suffix, used = round_at(work, position, detail)
            code = code_of(prefix, suffix)
            if record_codes and live[0]:
                codes[code] += 1
            for s in range(n_scenarios):
                if not live[s]:
                    continue
                shoe_rounds[s] += 1
                for b in range(n_bets):
                    for v in range(VARIANTS):
                        if v == 1 and round_index >= max_round[b]:
                            continue
                        stats_int[int_index(n_scenarios, n_bets, s, b, v)] += 1
                        if placed[b]:
                            shoe_bets[s, b, v] += 1
                            shoe_net[s, b, v] += net[b, code]
                            if track_exact[b]:
                                shoe_ev[s, b, v] += ev[b]
            for i in range(used):
                _see(work[position + i], unseen, values, tags, running)
            n_unseen -= used
            position += used
            round_index += 1
            for s in range(n_scenarios):
                stop[s], more[s] = after_round(position, stop[s], more[s], n_cards, cut_index[s], shoe_params)
        for s in range(n_scenarios):
            stats_int[SCENARIO_INT * s] += 1
            stats_int[SCENARIO_INT * s + 1] += shoe_rounds[s]
            stats_float[SCENARIO_FLOAT * s] += float(shoe_rounds[s]) * float(shoe_rounds[s])
            for b in range(n_bets):
                for v in range(VARIANTS):
                    column = int_index(n_scenarios, n_bets, s, b, v)
                    stats_int[column + 1] += shoe_bets[s, b, v]
                    stats_int[column + 2] += shoe_net[s, b, v]
                    column = float_index(n_scenarios, n_bets, s, b, v)
                    net_f = float(shoe_net[s, b, v])
                    bets_f = float(shoe_bets[s, b, v])
                    stats_float[column] += net_f * net_f
                    stats_float[column + 1] += bets_f * bets_f
                    stats_float[column + 2] += net_f * bets_f
                    ev_f = shoe_ev[s, b, v]
                    stats_float[column + 3] += ev_f
                    stats_float[column + 4] += ev_f * ev_f
                    stats_float[column + 5] += ev_f * bets_f


@jit_parallel
def count_blocks(canonical, seed, first_block, n_blocks, shoes_per_block, last_shoes, total_blocks,
                 shoe_params, turned_seen, scenario_cuts, tags, count_of_bet, mode, threshold, min_edge, max_round,
                 track_exact, net, solver_rows, solver_scale, solver_max, solver_bet, solver_screen, stats_int,
                 stats_float, codes, detail, card_first_four, card_group):
    """Deal blocks ``first_block .. first_block + n_blocks - 1`` in parallel, one statistics row each.

    Row ``k`` of ``stats_int``/``stats_float``/``codes`` belongs to block
    ``first_block + k`` whatever thread deals it, so the caller's in-order sum
    is the same for any number of threads. The run's last block
    (``total_blocks - 1``) deals ``last_shoes`` shoes, every other block
    ``shoes_per_block``. ``detail``, ``card_first_four``, ``card_group``: tables or None, as for :func:`count_block`.
    """
    for k in prange(n_blocks):
        block = first_block + k
        n_shoes = last_shoes if block == total_blocks - 1 else shoes_per_block
        count_block(canonical, seed, block, n_shoes, shoe_params, turned_seen, scenario_cuts, tags,
                    count_of_bet, mode, threshold, min_edge, max_round, track_exact, net, solver_rows, solver_scale,
                    solver_max, solver_bet, solver_screen, stats_int[k], stats_float[k], codes[k], detail,
                    card_first_four, card_group)
