"""The session job: many sessions of one bet slip, dealt through the one run driver.

A session run goes through :func:`baccarat_sim.engines.driver.run` like a
histogram run (progress, Ctrl-C/SIGTERM/SIGHUP stops at a chunk boundary): it
is cut into chunks of whole blocks of sessions, and block ``b`` is played from
the random stream ``(seed, b)`` (:mod:`baccarat_sim.kernels.sessions`). Each
session writes its own slots; a chunk's final results and lengths are folded
into the state as integer counts, so the result is the same for any number of
threads. The block and chunk layout depends only on the run's size
(:class:`SessionPlan`). It deals on the local backend only and is not
checkpointed (runs take seconds).

The job knows nothing of slips or rule sets: it receives the kernel's arrays
(the exact sampling table of a fresh-shoe round, or the shoe and the net per
outcome code of a dealt one) and the stopping bounds in lattice units.
:mod:`baccarat_sim.analysis.sessions` builds them and reads the results.
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np

from ..errors import InputError
from ..kernels.sessions import play_dealt_blocks, play_fresh_blocks
from .plan import BlockChunks, blocks_per_chunk, normalize_seed, whole_number
from .state import ChunksDone

__all__ = [
    "MAX_SESSIONS",
    "NO_BOUND",
    "SessionJob",
    "SessionPlan",
    "SessionState",
    "sampling_table",
    "warm_up",
]

#: Most sessions a run plays.
MAX_SESSIONS = 10**12
#: Most sessions in one block (one random stream).
MAX_SESSIONS_PER_BLOCK = 1024
#: Rounds a block aims at: long sessions get fewer per block, so blocks stay small enough to spread over threads.
BLOCK_ROUNDS = 1 << 20
#: Rounds a chunk aims at (about 0.1 s of kernel time on two cores).
CHUNK_ROUNDS = 1 << 24
#: A bound no session reaches (a table's hold over N rounds has none).
NO_BOUND = 1 << 62
MODELS = ("fresh", "dealt")


@dataclasses.dataclass(frozen=True)
class SessionPlan(BlockChunks):
    """The layout of a session run: sessions in blocks (one random stream each), blocks in chunks.

    Build it with :meth:`for_sessions`; it depends only on the run's size and seed.
    """

    model: str
    seed: int
    sessions: int
    max_rounds: int
    sessions_per_block: int
    total_blocks: int
    blocks_per_chunk: int

    @classmethod
    def for_sessions(cls, model: str, sessions: int, max_rounds: int, seed: int | None = None) -> SessionPlan:
        """The layout of ``sessions`` sessions of at most ``max_rounds`` rounds.

        Raises
        ------
        InputError
            ``model``, ``sessions``, ``max_rounds`` or ``seed`` out of range.
        """
        if model not in MODELS:
            raise InputError("model", f"must be fresh or dealt, got {model!r}")
        sessions = whole_number(sessions, "sessions", 1, MAX_SESSIONS)
        max_rounds = whole_number(max_rounds, "max_rounds", 1, 10**15)
        per_block = max(1, min(MAX_SESSIONS_PER_BLOCK, BLOCK_ROUNDS // max_rounds))
        total_blocks = -(-sessions // per_block)
        chunk = blocks_per_chunk(total_blocks, round(CHUNK_ROUNDS / (per_block * max_rounds)))
        return cls(model, normalize_seed(seed), sessions, max_rounds, per_block, total_blocks, chunk)

    @property
    def rounds_requested(self) -> int:
        """Units the run plays (sessions), for progress."""
        return self.sessions

    def chunk_sessions(self, chunk: int) -> tuple[int, int, int]:
        """(first block, first session, number of sessions) of chunk ``chunk``."""
        first_block, n_blocks = self.chunk_blocks(chunk)
        first = first_block * self.sessions_per_block
        last = min(self.sessions, (first_block + n_blocks) * self.sessions_per_block)
        return first_block, first, last - first


@dataclasses.dataclass(kw_only=True)
class SessionState(ChunksDone):
    """What a session run has played so far: counts of final results and of session lengths.

    Both are kept as (value, count) pairs of the values seen, never as a table
    over every possible value: a table's run over 10^8 rounds keeps a few
    thousand lengths, not 10^8 + 1 counters (memory does not grow with the horizon).

    Attributes
    ----------
    final_values : ndarray(int64)
        Distinct final net results seen (lattice units), ascending.
    final_counts : ndarray(int64)
        Sessions that ended at each of them.
    length_values : ndarray(int64)
        Distinct session lengths seen (rounds), ascending.
    length_counts : ndarray(int64)
        Sessions that lasted each of them.
    sessions, rounds, shoes : int
        Sessions played, rounds dealt, shoes shuffled (dealt model).
    """

    final_values: np.ndarray
    final_counts: np.ndarray
    length_values: np.ndarray
    length_counts: np.ndarray
    sessions: int = 0
    rounds: int = 0
    shoes: int = 0

    def add_finals(self, finals: np.ndarray) -> None:
        """Count a chunk's final results into the state (integer counts: the order of chunks does not matter)."""
        self.final_values, self.final_counts = _add_counts(self.final_values, self.final_counts, finals)

    def add_lengths(self, lengths: np.ndarray) -> None:
        """Count a chunk's session lengths into the state."""
        self.length_values, self.length_counts = _add_counts(self.length_values, self.length_counts, lengths)

    def length_table(self, size: int) -> np.ndarray:
        """Sessions by length as one table, ``ndarray(int64, shape=(size,))`` (entry ``k``: lasted ``k`` rounds)."""
        table = np.zeros(size, np.int64)
        table[self.length_values] = self.length_counts
        return table


def _add_counts(values: np.ndarray, counts: np.ndarray, new: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(values, counts)`` with every entry of ``new`` counted in: the distinct values ascending, their counts."""
    seen, times = np.unique(new, return_counts=True)
    merged, where = np.unique(np.concatenate([values, seen]), return_inverse=True)
    total = np.zeros(merged.size, np.int64)
    np.add.at(total, where, np.concatenate([counts, times]))
    return merged, total


def sampling_table(steps, weights) -> tuple[np.ndarray, np.ndarray, np.uint64]:
    """The fresh kernel's exact sampling table: outcomes by decreasing weight, cumulative integer weights.

    Parameters
    ----------
    steps : sequence of int
        Net result of each outcome, lattice units.
    weights : sequence of int
        Positive integer weights (exact: card orderings), totalling below ``2**64``.

    Returns
    -------
    (ndarray(uint64, (a,)), ndarray(int64, (a,)), uint64)
        Cumulative weights, steps in the same order, and the total.

    Raises
    ------
    InputError
        ``weights``: a total of ``2**64`` or more (a shoe of at most 1,450
        cards never has one: its orderings fit in int64).
    """
    order = sorted(range(len(weights)), key=lambda i: -int(weights[i]))
    total = sum(int(w) for w in weights)
    if total >= 2**64 or any(int(w) <= 0 for w in weights):
        raise InputError("weights", f"must be positive integers totalling below 2**64, got a total of {total}")
    cumulative = np.cumsum([int(weights[i]) for i in order], dtype=np.uint64)
    return cumulative, np.array([int(steps[i]) for i in order], dtype=np.int64), np.uint64(total)


class SessionJob:
    """Sessions of one slip: rounds until ``z <= low``, ``z >= high`` or the plan's ``max_rounds``.

    Parameters
    ----------
    plan : SessionPlan
    low, high : int
        Stopping bounds on the net result ``z``, lattice units (:data:`NO_BOUND` for none).
    fresh : tuple or None
        Fresh model: ``(thresholds, steps, total)`` from :func:`sampling_table`.
    dealt : tuple or None
        Dealt model: ``(canonical, shoe_params, code_steps)`` or with a fourth
        item, the card detail tables of a slip with card-level bets
        (:func:`baccarat_sim.engines.packer.kernel_tables`): the shoe's card ids
        in canonical order (uint8), its burn and cut-card settings and the net
        result of every histogram cell in lattice units (int64).
    """

    supports_remote = False
    unit = "sessions"

    def __init__(self, plan: SessionPlan, low: int, high: int, *, fresh=None, dealt=None):
        if (fresh is None) == (dealt is None) or (plan.model == "dealt") != (dealt is not None):
            raise ValueError("a session job needs the arrays of its plan's model (fresh or dealt), and only those")
        self.plan = plan
        self.low = np.int64(low)
        self.high = np.int64(high)
        self.fresh = fresh
        self.dealt = None if dealt is None else (np.ascontiguousarray(dealt[0], np.uint8),
                                                 np.ascontiguousarray(dealt[1], np.int64),
                                                 np.ascontiguousarray(dealt[2], np.int64),
                                                 dealt[3] if len(dealt) > 3 else None)

    def new_state(self) -> SessionState:
        """Nothing played yet."""
        return SessionState(final_values=np.zeros(0, np.int64), final_counts=np.zeros(0, np.int64),
                            length_values=np.zeros(0, np.int64), length_counts=np.zeros(0, np.int64))

    def done(self, state: SessionState) -> int:
        """Sessions in ``state``."""
        return state.sessions

    def local_dealer(self, lanes: int) -> _SessionDealer:
        """A dealer of whole chunks on this machine (the kernel runs a chunk's blocks in parallel)."""
        return _SessionDealer(self)

    def save_checkpoint(self, path, state, meta=None):
        """Session runs are not checkpointed (they take seconds)."""
        raise OSError("session runs are not checkpointed")

    def play(self, first_block: int, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Play ``size`` sessions from block ``first_block`` on; returns (finals, lengths, shoes) per session."""
        plan = self.plan
        finals = np.empty(size, np.int64)
        lengths = np.empty(size, np.int64)
        shoes = np.zeros(size, np.int64)
        seed = np.uint64(plan.seed)
        per_block = np.int64(plan.sessions_per_block)
        rounds = np.int64(plan.max_rounds)
        if self.fresh is not None:
            thresholds, steps, total = self.fresh
            play_fresh_blocks(seed, np.int64(first_block), per_block, thresholds, steps, total, self.low, self.high,
                              rounds, finals, lengths)
        else:
            canonical, params, code_steps, detail = self.dealt
            play_dealt_blocks(canonical, seed, np.int64(first_block), per_block, params, code_steps, self.low,
                              self.high, rounds, finals, lengths, shoes, detail)
        return finals, lengths, shoes


class _SessionDealer:
    pending = 0  # every chunk is in the state as soon as it is played

    def __init__(self, job: SessionJob):
        self.job = job

    def deal(self, state: SessionState, chunk: int) -> None:
        first_block, _, size = self.job.plan.chunk_sessions(chunk)
        started = time.perf_counter()
        finals, lengths, shoes = self.job.play(first_block, size)
        state.kernel_seconds += time.perf_counter() - started
        state.add_finals(finals)
        state.add_lengths(lengths)
        state.sessions += size
        state.rounds += int(lengths.sum())
        state.shoes += int(shoes.sum())
        state.mark_done(chunk)

    def commit(self, state: SessionState) -> None:
        """Nothing to do: each chunk is added as it is played."""


def warm_up(job: SessionJob) -> None:
    """Compile (or load from numba's cache) the kernel a job runs, before any timing starts."""
    tiny = dataclasses.replace(job.plan, sessions=1, max_rounds=1, sessions_per_block=1, total_blocks=1)
    SessionJob(tiny, job.low, job.high, fresh=job.fresh, dealt=job.dealt).play(0, 1)
