"""What a run has dealt so far: which chunks, and their counts (the mutable part of a checkpoint)."""

from __future__ import annotations

import dataclasses

import numpy as np

from ..model.histogram import OutcomeHistogram
from .detail import detail_of_texts
from .plan import RunPlan

__all__ = ["ChunksDone", "RunState"]


@dataclasses.dataclass(kw_only=True)
class ChunksDone:
    """Which chunks of a run are done, and the kernel time they took.

    Chunks ``0 .. next_chunk - 1`` are done, and so are those in
    ``done_ahead``: a distributed run finishes chunks out of order, so a
    checkpoint may hold a few chunks past a gap (a local run leaves it empty).
    """

    next_chunk: int = 0
    done_ahead: set = dataclasses.field(default_factory=set)
    kernel_seconds: float = 0.0
    interrupted: bool = False

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


@dataclasses.dataclass(kw_only=True)
class RunState(ChunksDone):
    """What a Monte Carlo histogram run has dealt so far: counts per position and per batch, rounds and shoes."""

    by_position: np.ndarray
    batches: np.ndarray
    rounds: int = 0
    shoes: int = 0

    @classmethod
    def empty(cls, plan: RunPlan) -> RunState:
        """Nothing dealt yet."""
        return cls(
            by_position=np.zeros((plan.n_positions, plan.n_cells), np.int64),
            batches=np.zeros((plan.n_batches, plan.n_cells), np.int64),
        )

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
                # How the shoe was dealt (burn, cut card, rounds after it): the histogram describes its own
                # dealing when it is settled under another rule set.
                "shoe_params": list(plan.shoe_params),
                **(meta or {}),
            },
            detail=detail_of_texts(plan.detail),
        )

    def add(self, plan: RunPlan, chunk: int, counts: np.ndarray, rounds: int, shoes: int, n_chunks: int = 1):
        """Fold the result of chunks ``chunk .. chunk + n_chunks - 1`` into the state.

        The chunks may come in any order (integer sums do not depend on it), but
        each only once, and one result may not straddle two batches (its counts
        go to a single batch row).

        Raises
        ------
        ValueError
            A chunk outside the run, one that arrived twice, or a range across two batches (a bug).
        """
        last = chunk + n_chunks - 1
        if n_chunks < 1 or chunk < 0 or last >= plan.n_chunks:
            raise ValueError(f"chunks {chunk}..{last}: outside the run's {plan.n_chunks} chunks")
        if plan.batch_of_chunk(chunk) != plan.batch_of_chunk(last):
            raise ValueError(f"chunks {chunk}..{last} straddle two batches")
        done = [c for c in range(chunk, last + 1) if self.is_done(c)]
        if done:
            raise ValueError(f"chunk {done[0]} arrived twice")
        self.by_position += counts
        self.batches[plan.batch_of_chunk(chunk)] += counts.sum(axis=0)
        self.rounds += rounds
        self.shoes += shoes
        self.mark_done(chunk, n_chunks)
