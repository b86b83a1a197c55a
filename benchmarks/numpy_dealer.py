"""A numpy dealer vectorised over rounds: the baseline a numpy programmer would write first.

It is exact like the numba kernel and the reference dealer (same tableau from
:mod:`baccarat_sim.model.cards`, same outcome codes), and it is here only to be timed
against them (``benchmarks/bench_mc.py``), which also checks it against the
exact engine.

* fresh: a batch of rounds draws six positions per round with replacement and
  redraws every round that drew a position twice (3.6% in 8 decks), which
  leaves each round a uniform ordered sample of six distinct cards; the
  tableau runs as array expressions over the batch.
* dealt: a batch of shoes is shuffled at once (``Generator.permuted``) and
  dealt in lockstep, one round of every live shoe per step.
"""

from __future__ import annotations

import numpy as np

from baccarat_sim.model.cards import RANK_POINTS
from baccarat_sim.model.codes import N_CODES, encode
from baccarat_sim.model.tableau import BANKER_DRAWS, PLAYER_DRAWS
from tests.reference_dealer import shoe_cards  # run from the repository root (the benchmarks add it to the path)


def round_codes(c0, c1, c2, c3, c4, c5):
    """Outcome codes and cards used of rounds given their six next cards (card id arrays)."""
    points = RANK_POINTS[np.stack([c0, c1, c2, c3, c4, c5]) // 4]
    player, banker = (points[0] + points[2]) % 10, (points[1] + points[3]) % 10
    natural = (player >= 8) | (banker >= 8)
    player_drew = ~natural & (PLAYER_DRAWS[player] == 1)
    column = np.where(player_drew, 1 + points[4], 0)
    banker_drew = ~natural & (BANKER_DRAWS[banker, column] == 1)
    banker_third = np.where(player_drew, points[5], points[4])
    player_final = np.where(player_drew, (player + points[4]) % 10, player)
    banker_final = np.where(banker_drew, (banker + banker_third) % 10, banker)

    def pair(a, b):
        return np.where(a == b, 2, np.where(a // 4 == b // 4, 1, 0))

    r0, r1 = c0 // 4, c1 // 4
    first = np.where(r0 > r1, 0, np.where(r0 < r1, 1, np.where(c0 == c1, 3, 2)))
    code = encode(player_final, banker_final, player_drew.astype(np.int64), banker_drew.astype(np.int64),
                  pair(c0, c2), pair(c1, c3), first)
    return code, 4 + player_drew + banker_drew


def deal_fresh(composition, rounds, seed, batch=1 << 20):
    """Histogram ``ndarray(int64, (N_CODES,))`` of ``rounds`` fresh-shoe rounds."""
    rng = np.random.default_rng(seed)
    cards = np.array(shoe_cards(composition))
    n = len(cards)
    counts = np.zeros(N_CODES, np.int64)
    done = 0
    while done < rounds:
        size = min(batch, rounds - done)
        picks = rng.integers(0, n, (size, 6))
        while True:
            ordered = np.sort(picks, axis=1)
            repeated = (ordered[:, 1:] == ordered[:, :-1]).any(axis=1)
            if not repeated.any():
                break
            picks[repeated] = rng.integers(0, n, (int(repeated.sum()), 6))
        code, _ = round_codes(*cards[picks].T)
        counts += np.bincount(code, minlength=N_CODES)
        done += size
    return counts


def deal_dealt(shoe, shoes, seed, batch=4096):
    """Histogram ``ndarray(int64, (N_CODES,))`` and rounds of ``shoes`` dealt shoes (burn, cut card, after-cut)."""
    rng = np.random.default_rng(seed)
    canonical = np.array(shoe_cards(np.full((13, 4), shoe.decks)))
    n = len(canonical)
    burn = shoe.burn_by_rank() + (1 if shoe.burn == "face_value" and shoe.discard_turned else 0)
    counts = np.zeros(N_CODES, np.int64)
    total = 0
    done = 0
    while done < shoes:
        size = min(batch, shoes - done)
        decks = rng.permuted(np.broadcast_to(canonical, (size, n)), axis=1)
        cut = n - rng.integers(shoe.cut_card.low, shoe.cut_card.high + 1, size)
        position = burn[decks[:, 0] // 4]
        left = np.full(size, -1)  # rounds still to deal once the cut card is out; -1: not out yet
        live = np.arange(size)
        while live.size:
            at = position[live]
            code, used = round_codes(*(decks[live, at + k] for k in range(6)))
            counts += np.bincount(code, minlength=N_CODES)
            total += live.size
            position[live] = at + used
            out = (left[live] < 0) & (position[live] > cut[live])
            left[live] = np.where(left[live] > 0, left[live] - 1, np.where(out, shoe.rounds_after_cut, left[live]))
            live = live[(left[live] != 0) & (position[live] + 6 <= n)]
        done += size
    return counts, total
