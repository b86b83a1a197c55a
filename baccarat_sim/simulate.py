"""Monte Carlo engine: plans a run in blocks and chunks, drives the kernel, returns a histogram.

The random stream of a run is fixed by (seed, block index): block ``b`` always
deals the same rounds. A run is cut into *chunks* of whole blocks (the unit of
progress, checkpoints, interruption and distributed tasks) and the chunks into
at most :data:`MAX_BATCHES` *batches* of whole chunks (the unit of batch-means
standard errors and of convergence plots). All three layouts depend only on the
run's size, never on threads or timing, so a histogram is bit-identical however
the run is executed, interrupted and resumed.
"""

from __future__ import annotations

import dataclasses
import math
import os
import secrets
import signal
import threading
import time
from pathlib import Path

import numpy as np

from .exact import as_shoe, exact_histogram
from .outcomes import N_CODES, OutcomeHistogram
from .rules import Rules

__all__ = [
    "MAX_BATCHES",
    "MAX_ROUNDS",
    "RunPlan",
    "RunState",
    "normalize_seed",
    "plan_run",
    "run_chunks",
    "simulate",
]

#: Rounds per block in the fresh model.
ROUNDS_PER_BLOCK = 1 << 16
#: Shoes per block in the dealt model.
SHOES_PER_BLOCK = 16
#: Rounds a chunk aims at (about 0.1-0.2 s of kernel time on one core).
CHUNK_ROUNDS = 1 << 23
#: Chunks a run is cut into at least (when it has that many blocks).
MIN_CHUNKS = 32
MAX_BATCHES = 100
#: Largest round count a run accepts: counts stay far from int64 overflow.
MAX_ROUNDS = 10**15


def normalize_seed(seed: int | None) -> int:
    """The master seed as a non-negative 63-bit integer; None draws one at random."""
    if seed is None:
        return secrets.randbits(63)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"seed: must be a whole number, got {seed!r}")
    if not 0 <= seed < 2**63:
        raise ValueError(f"seed: must be from 0 to 2**63 - 1, got {seed}")
    return int(seed)


def canonical_cards(composition: np.ndarray) -> np.ndarray:
    """The shoe's cards (``rank * 4 + suit``) in canonical order, ``ndarray(uint8)``."""
    return np.repeat(np.arange(52, dtype=np.uint8), composition.reshape(-1))


@dataclasses.dataclass(frozen=True)
class RunPlan:
    """Everything that fixes a run's random stream and layout (no results).

    Build it with :func:`plan_run`. ``units`` are rounds (fresh model) or shoes
    (dealt model).
    """

    model: str
    seed: int
    composition: tuple
    shoe_params: tuple
    rounds_requested: int
    units_per_block: int
    total_blocks: int
    last_units: int
    blocks_per_chunk: int
    n_positions: int
    rules_id: str = ""
    rules_sha256: str = ""

    @property
    def n_chunks(self) -> int:
        """Chunks in the run."""
        return -(-self.total_blocks // self.blocks_per_chunk)

    @property
    def n_batches(self) -> int:
        """Batches in the run (consecutive groups of whole chunks)."""
        return min(self.n_chunks, MAX_BATCHES)

    def batch_of_chunk(self, chunk: int) -> int:
        """Batch that chunk ``chunk`` belongs to."""
        return chunk * self.n_batches // self.n_chunks

    def chunk_blocks(self, chunk: int) -> tuple[int, int]:
        """(first block, number of blocks) of chunk ``chunk``."""
        first = chunk * self.blocks_per_chunk
        return first, min(self.blocks_per_chunk, self.total_blocks - first)

    def chunk_units(self, chunk: int) -> int:
        """Rounds (fresh) or shoes (dealt) dealt by chunk ``chunk``."""
        first, n = self.chunk_blocks(chunk)
        last_in_chunk = first + n == self.total_blocks
        return (n - 1) * self.units_per_block + (self.last_units if last_in_chunk else self.units_per_block)

    @property
    def shoe(self) -> np.ndarray:
        """Composition as ``ndarray(int64, shape=(13, 4))``."""
        return np.array(self.composition, dtype=np.int64).reshape(13, 4)

    def identity(self) -> dict:
        """JSON-ready fields that must match for a checkpoint to be resumed."""
        fields = dataclasses.asdict(self)
        fields["composition"] = list(self.composition)
        fields["shoe_params"] = list(self.shoe_params)
        return fields


def _estimate_rounds_per_shoe(rules: Rules, composition: np.ndarray) -> float:
    """Expected rounds per dealt shoe, from the exact mean cards per round."""
    hist = exact_histogram(composition)
    cards_per_round = 4 + (hist.marginal("player_cards")[1] + hist.marginal("banker_cards")[1]) / hist.total
    shoe = rules.shoe
    low, high = shoe.cards_before_first_round()
    usable = composition.sum() - (low + high) / 2 - shoe.cut_card.mean
    return max(1.0, usable / cards_per_round + 0.5 + shoe.rounds_after_cut)


def plan_run(rules: Rules, rounds: int, seed: int | None = None, *, model: str | None = None,
             shoe=None, by_position: bool | None = None) -> RunPlan:
    """Lay out a Monte Carlo run.

    Parameters
    ----------
    rules : Rules
        Rule set (shoe, burn and cut card come from it).
    rounds : int
        Rounds to deal: exactly, in the fresh model; in the dealt model, whole
        shoes are dealt until about this many rounds (the count is reported).
    seed : int or None
        Master seed; None draws one.
    model : {"fresh", "dealt"} or None
        Overrides the rule set's shoe model.
    shoe : int or ndarray(int64, shape=(13, 4)) or None
        Overrides the rule set's decks (e.g. a depleted shoe).
    by_position : bool or None
        Dealt model: keep a histogram per round position (default True).
    """
    model = model or rules.shoe.model
    if model not in ("fresh", "dealt"):
        raise ValueError(f"model: must be fresh or dealt, got {model!r}")
    if isinstance(rounds, bool) or not isinstance(rounds, (int, np.integer)) or not 1 <= rounds <= MAX_ROUNDS:
        raise ValueError(f"rounds: must be a whole number from 1 to {MAX_ROUNDS:.0e}, got {rounds!r}")
    composition = as_shoe(rules.shoe.decks if shoe is None else shoe)
    n_cards = int(composition.sum())
    shoe_rules = rules.shoe
    params = np.zeros(17, np.int64)
    params[0:13] = shoe_rules.burn_by_rank()
    params[13] = 1 if (shoe_rules.burn == "face_value" and shoe_rules.discard_turned) else 0
    params[14] = min(shoe_rules.cut_card.low, n_cards)
    params[15] = min(shoe_rules.cut_card.high, n_cards)
    params[16] = shoe_rules.rounds_after_cut
    if model == "fresh":
        units_per_block = ROUNDS_PER_BLOCK
        total_units = int(rounds)
        rounds_per_unit = 1.0
        n_positions = 1
    else:
        _, most_burned = shoe_rules.cards_before_first_round()
        if n_cards - most_burned < 6:
            raise ValueError(f"shoe: {n_cards} cards leave no room for a round after burning {most_burned}")
        units_per_block = SHOES_PER_BLOCK
        rounds_per_unit = _estimate_rounds_per_shoe(rules, composition)
        total_units = max(1, math.ceil(rounds / rounds_per_unit))
        n_positions = (n_cards // 4 + 1) if (by_position is None or by_position) else 1
    total_blocks = -(-total_units // units_per_block)
    last_units = total_units - (total_blocks - 1) * units_per_block
    rounds_per_block = units_per_block * rounds_per_unit
    blocks_per_chunk = max(1, min(round(CHUNK_ROUNDS / rounds_per_block), -(-total_blocks // MIN_CHUNKS)))
    return RunPlan(
        model=model,
        seed=normalize_seed(seed),
        composition=tuple(int(x) for x in composition.reshape(-1)),
        shoe_params=tuple(int(x) for x in params),
        rounds_requested=int(rounds),
        units_per_block=units_per_block,
        total_blocks=total_blocks,
        last_units=last_units,
        blocks_per_chunk=blocks_per_chunk,
        n_positions=n_positions,
        rules_id=rules.id,
        rules_sha256=rules.sha256,
    )


@dataclasses.dataclass
class RunState:
    """What a run has dealt so far (the mutable part of a checkpoint).

    Chunks ``0 .. next_chunk - 1`` are done, and so are those in
    ``done_ahead``: a distributed run finishes chunks out of order, so a
    checkpoint may hold a few chunks past a gap (a local run leaves it empty).
    """

    by_position: np.ndarray
    batches: np.ndarray
    rounds: int = 0
    shoes: int = 0
    next_chunk: int = 0
    kernel_seconds: float = 0.0
    interrupted: bool = False
    done_ahead: set = dataclasses.field(default_factory=set)

    @classmethod
    def empty(cls, plan: RunPlan) -> RunState:
        """Nothing dealt yet."""
        return cls(
            by_position=np.zeros((plan.n_positions, N_CODES), np.int64),
            batches=np.zeros((plan.n_batches, N_CODES), np.int64),
        )

    def is_done(self, chunk: int) -> bool:
        """Whether chunk ``chunk`` has been dealt into the state."""
        return chunk < self.next_chunk or chunk in self.done_ahead

    @property
    def chunks_done(self) -> int:
        """Chunks dealt into the state."""
        return self.next_chunk + len(self.done_ahead)

    def mark_done(self, first_chunk: int, n_chunks: int = 1) -> None:
        """Record chunks ``first_chunk .. first_chunk + n_chunks - 1`` as dealt."""
        self.done_ahead.update(range(first_chunk, first_chunk + n_chunks))
        while self.next_chunk in self.done_ahead:
            self.done_ahead.discard(self.next_chunk)
            self.next_chunk += 1

    def histogram(self, plan: RunPlan, meta: dict | None = None) -> OutcomeHistogram:
        """The histogram of what has been dealt."""
        last_done = max(self.done_ahead, default=self.next_chunk - 1)
        done_batches = plan.batch_of_chunk(last_done) + 1 if last_done >= 0 else 0
        return OutcomeHistogram(
            counts=self.by_position.sum(axis=0),
            engine="mc",
            model=plan.model,
            shoe=plan.shoe,
            seed=plan.seed,
            rounds=self.rounds,
            shoes=self.shoes if plan.model == "dealt" else 0,
            by_position=self.by_position if plan.model == "dealt" and plan.n_positions > 1 else None,
            batches=self.batches[:done_batches],
            meta={
                "rules": plan.rules_id,
                "rules_sha256": plan.rules_sha256,
                "rounds_requested": plan.rounds_requested,
                "chunks_done": self.chunks_done,
                "chunks": plan.n_chunks,
                "complete": self.next_chunk >= plan.n_chunks,
                "kernel_seconds": self.kernel_seconds,
                **(meta or {}),
            },
        )


def deal_chunks(plan: RunPlan, first_chunk: int, n_chunks: int, lane_counts: np.ndarray,
                lane_totals: np.ndarray) -> None:
    """Deal chunks ``first_chunk .. first_chunk + n_chunks - 1``, adding to the lane arrays.

    A pure function of the plan and the chunk range: the local and distributed
    backends both call it.
    """
    from ._kernel import MODEL_DEALT, MODEL_FRESH, deal_blocks

    first_block, _ = plan.chunk_blocks(first_chunk)
    last_first, last_n = plan.chunk_blocks(first_chunk + n_chunks - 1)
    deal_blocks(
        canonical_cards(plan.shoe),
        MODEL_FRESH if plan.model == "fresh" else MODEL_DEALT,
        np.uint64(plan.seed),
        first_block,
        last_first + last_n - first_block,
        plan.units_per_block,
        plan.last_units,
        plan.total_blocks,
        np.array(plan.shoe_params, np.int64),
        lane_counts,
        lane_totals,
    )


def run_chunk(plan: RunPlan, chunk: int, threads: int = 1) -> tuple[np.ndarray, int, int]:
    """Deal one chunk on its own: ``(by_position counts, rounds, shoes)``.

    Used by distributed backends; the counts equal what a local run adds for
    this chunk.
    """
    lanes = max(1, threads)
    lane_counts = np.zeros((lanes, plan.n_positions, N_CODES), np.int64)
    lane_totals = np.zeros((lanes, 2), np.int64)
    deal_chunks(plan, chunk, 1, lane_counts, lane_totals)
    totals = lane_totals.sum(axis=0)
    return lane_counts.sum(axis=0), int(totals[0]), int(totals[1])


def add_chunk_result(plan: RunPlan, state: RunState, chunk: int, counts: np.ndarray, rounds: int, shoes: int,
                     n_chunks: int = 1):
    """Fold the result of chunks ``chunk .. chunk + n_chunks - 1`` into ``state``.

    The chunks may come in any order (integer sums do not depend on it), but
    each only once, and one result may not straddle two batches (its counts
    go to a single batch row).
    """
    last = chunk + n_chunks - 1
    if n_chunks < 1 or chunk < 0 or last >= plan.n_chunks:
        raise ValueError(f"chunks {chunk}..{last}: outside the run's {plan.n_chunks} chunks")
    if plan.batch_of_chunk(chunk) != plan.batch_of_chunk(last):
        raise ValueError(f"chunks {chunk}..{last} straddle two batches")
    done = [c for c in range(chunk, last + 1) if state.is_done(c)]
    if done:
        raise ValueError(f"chunk {done[0]} arrived twice")
    state.by_position += counts
    state.batches[plan.batch_of_chunk(chunk)] += counts.sum(axis=0)
    state.rounds += rounds
    state.shoes += shoes
    state.mark_done(chunk, n_chunks)


class _StopFlag:
    """Turns Ctrl-C into a flag checked at chunk boundaries (main thread only)."""

    def __init__(self):
        self.stop = False
        self._previous = None

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._handle)
        return self

    def _handle(self, signum, frame):
        if self.stop:  # a second Ctrl-C: the user really wants out
            raise KeyboardInterrupt
        self.stop = True

    def __exit__(self, *exc):
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
        return False


def run_chunks(plan: RunPlan, state: RunState, *, threads: int | None = None, progress: bool | None = False,
               checkpoint: str | Path | None = None, checkpoint_every: float = 30.0, max_chunks: int | None = None,
               extra_meta: dict | None = None, on_chunk=None) -> RunState:
    """Deal the chunks of ``plan`` not yet in ``state`` (in place), locally.

    Stops early, at a chunk boundary, on Ctrl-C or after ``max_chunks`` chunks.
    Writes ``checkpoint`` atomically at least every ``checkpoint_every``
    seconds and when it stops.
    """
    import numba

    from ._progress import get_progress_bar
    from .checkpoint import save_checkpoint

    lanes = numba.get_num_threads() if threads is None else threads
    if threads is not None:
        numba.set_num_threads(threads)
    lane_counts = np.zeros((lanes, plan.n_positions, N_CODES), np.int64)
    lane_totals = np.zeros((lanes, 2), np.int64)
    # Per-code totals of lane_counts already credited to batches (see _close_batch).
    credited = np.zeros(N_CODES, np.int64)
    end_chunk = plan.n_chunks if max_chunks is None else min(plan.n_chunks, state.next_chunk + max_chunks)
    est_total = plan.rounds_requested
    last_save = time.monotonic()
    with _StopFlag() as flag, get_progress_bar(progress, est_total, initial=min(state.rounds, est_total)) as bar:
        # Chunks of one batch are dealt into the lane arrays and folded into the
        # state together: folding costs a pass over the arrays, so it happens at
        # batch boundaries, checkpoints and the end, not after every chunk.
        pending_from = state.next_chunk
        while state.next_chunk < end_chunk and not flag.stop:
            if state.next_chunk in state.done_ahead:  # dealt by a distributed run before this resume
                _fold(plan, state, pending_from, lane_counts, lane_totals, credited)
                state.mark_done(state.next_chunk)
                pending_from = state.next_chunk
                continue
            chunk = state.next_chunk
            started = time.perf_counter()
            deal_chunks(plan, chunk, 1, lane_counts, lane_totals)
            state.kernel_seconds += time.perf_counter() - started
            state.next_chunk += 1
            done_rounds = int(lane_totals[:, 0].sum())
            bar.update(min(state.rounds + done_rounds, est_total) - bar.n)
            boundary = state.next_chunk == end_chunk or plan.batch_of_chunk(state.next_chunk) != plan.batch_of_chunk(
                chunk)
            due = checkpoint is not None and time.monotonic() - last_save >= checkpoint_every
            if boundary or due or flag.stop:
                if due or flag.stop or on_chunk is not None:
                    _fold(plan, state, pending_from, lane_counts, lane_totals, credited)
                else:  # the per-position rows (dealt model) can wait in the lanes
                    _close_batch(plan, state, pending_from, lane_counts, lane_totals, credited)
                pending_from = state.next_chunk
            if checkpoint is not None and (due or flag.stop):
                save_checkpoint(checkpoint, plan, state, extra_meta)
                last_save = time.monotonic()
            if on_chunk is not None:
                on_chunk(state)
        _fold(plan, state, pending_from, lane_counts, lane_totals, credited)
        if checkpoint is not None and state.next_chunk < plan.n_chunks:
            save_checkpoint(checkpoint, plan, state, extra_meta)
    state.interrupted = flag.stop
    return state


def _close_batch(plan: RunPlan, state: RunState, first_chunk: int, lane_counts: np.ndarray, lane_totals: np.ndarray,
                 credited: np.ndarray):
    """Credit the rounds dealt since ``first_chunk`` (all in one batch) to that batch, rounds and shoes.

    The lanes keep their per-position rows: moving them into ``state`` costs
    several passes over ``lanes x positions x N_CODES`` counts (12 MB a lane
    for 8 decks), while the batch's totals need one read. ``credited`` holds
    the per-code totals of the lanes already credited to batches.
    """
    if state.next_chunk == first_chunk:
        return
    now = lane_counts.sum(axis=(0, 1))
    state.batches[plan.batch_of_chunk(first_chunk)] += now - credited
    credited[:] = now
    totals = lane_totals.sum(axis=0)
    state.rounds += int(totals[0])
    state.shoes += int(totals[1])
    lane_totals[:] = 0


def _fold(plan: RunPlan, state: RunState, first_chunk: int, lane_counts: np.ndarray, lane_totals: np.ndarray,
          credited: np.ndarray):
    """Close the pending batch and move everything the lanes hold into ``state``."""
    _close_batch(plan, state, first_chunk, lane_counts, lane_totals, credited)
    if credited.any():  # the lanes hold rounds that are not in state.by_position yet
        state.by_position += lane_counts.sum(axis=0)
        lane_counts[:] = 0
        credited[:] = 0


def simulate(rules: Rules, rounds: int, seed: int | None = None, *, threads: int | None = None,
             model: str | None = None, shoe=None, by_position: bool | None = None, progress: bool | None = False,
             checkpoint: str | Path | None = None, resume: bool = False) -> OutcomeHistogram:
    """Monte Carlo outcome histogram of ``rounds`` rounds under ``rules``.

    Parameters
    ----------
    rules : Rules
        The rule set (shoe model, decks, burn, cut card).
    rounds : int
        Rounds to deal (exactly, fresh model; about, in whole shoes, dealt model).
    seed : int or None
        Master seed (None draws one; it is recorded in the histogram).
    threads : int or None
        Kernel threads (None: numba's default). The result does not depend on it.
    model, shoe, by_position
        See :func:`plan_run`.
    progress : bool or None
        Show a progress bar (None: only on a terminal).
    checkpoint : path or None
        Write a resumable checkpoint here while running.
    resume : bool
        Continue from ``checkpoint`` if it exists.

    Returns
    -------
    OutcomeHistogram

    Examples
    --------
    >>> from baccarat_sim import load_rules
    >>> h = simulate(load_rules("default"), 100_000, seed=1)
    >>> h.rounds, h.total
    (100000, 100000)
    """
    from .checkpoint import load_checkpoint

    plan = plan_run(rules, rounds, seed, model=model, shoe=shoe, by_position=by_position)
    state = RunState.empty(plan)
    if resume and checkpoint is not None and Path(checkpoint).exists():
        plan, state = load_checkpoint(checkpoint, expect=plan if seed is not None else None, rules=rules)
    wall = time.perf_counter()
    run_chunks(plan, state, threads=threads, progress=progress, checkpoint=checkpoint)
    wall = time.perf_counter() - wall
    if checkpoint is not None and state.next_chunk >= plan.n_chunks and Path(checkpoint).exists():
        os.remove(checkpoint)  # a finished run needs no checkpoint
    return state.histogram(plan, {"wall_seconds": wall})
