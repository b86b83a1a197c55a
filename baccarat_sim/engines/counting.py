"""The counting job: shoes dealt to the cut card by the counting kernel, statistics summed in block order.

A counting run goes through the one run driver (:mod:`baccarat_sim.engines.driver`)
like a histogram run: it is cut into chunks of whole blocks of shoes, each
block dealt from the stream ``(seed, block)`` exactly as the Monte Carlo engine
deals it (:mod:`baccarat_sim.kernels.counting`). Each block fills its own row of
statistics and the rows are added in block order, so the result does not
depend on the number of threads. It deals on the local backend only.

A rule set with card-level bets hands the kernel its card detail tables
(:func:`baccarat_sim.engines.packer.kernel_tables`): every round is then settled
on its cell ``detail * N_CODES + code``, and the histogram it keeps has
``n_cells`` cells. Card-level bets played perfectly, or whose exact edge is
kept, are priced exactly on the unseen cards every round they are needed, from
tables built once (:mod:`baccarat_sim.engines.card_solver`).

Counting runs are not checkpointed: :meth:`CountingJob.save_checkpoint` refuses,
and a run stopped early (a signal, ``max_chunks``) reports the shoes it dealt.
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np

from ..kernels.counting import (
    FLOAT_STATS,
    INT_STATS,
    PLAY_ALWAYS,
    PLAY_PERFECT,
    PLAY_RUNNING_COUNT,
    PLAY_RUNNING_COUNT_TWO_SIDED,
    PLAY_TRUE_COUNT,
    PLAY_TRUE_COUNT_TWO_SIDED,
    SCENARIO_FLOAT,
    SCENARIO_INT,
    VARIANTS,
    count_blocks,
    float_index,
    int_index,
)
from ..model.codes import N_CODES
from .plan import SHOES_PER_BLOCK, BlockChunks, blocks_per_chunk
from .state import ChunksDone

__all__ = [
    "PLAY_ALWAYS",
    "PLAY_PERFECT",
    "PLAY_RUNNING_COUNT",
    "PLAY_RUNNING_COUNT_TWO_SIDED",
    "PLAY_TRUE_COUNT",
    "PLAY_TRUE_COUNT_TWO_SIDED",
    "VARIANTS",
    "CountPlan",
    "CountState",
    "CountStatistics",
    "CountingJob",
]

#: Most blocks in a chunk (progress and prompt stops: a chunk of 64 blocks of 16 shoes takes about a second).
MAX_BLOCKS_PER_CHUNK = 64


@dataclasses.dataclass(frozen=True)
class CountPlan(BlockChunks):
    """The layout of a counting run: shoes in blocks (the Monte Carlo engine's dealt blocks), blocks in chunks."""

    shoes: int
    total_blocks: int
    last_shoes: int
    blocks_per_chunk: int

    @classmethod
    def for_shoes(cls, shoes: int) -> CountPlan:
        """The layout of a run of ``shoes`` shoes."""
        total_blocks = -(-shoes // SHOES_PER_BLOCK)
        return cls(shoes, total_blocks, shoes - (total_blocks - 1) * SHOES_PER_BLOCK,
                   blocks_per_chunk(total_blocks, MAX_BLOCKS_PER_CHUNK))

    @property
    def rounds_requested(self) -> int:
        """Units the run deals (shoes), for progress."""
        return self.shoes


@dataclasses.dataclass(kw_only=True)
class CountState(ChunksDone):
    """Statistics of a counting run so far (sums over the blocks dealt, in block order)."""

    stats_int: np.ndarray
    stats_float: np.ndarray
    codes: np.ndarray | None
    shoes: int = 0


def _read_only(value):
    """``value`` with every array in it (through tuples) a read-only view.

    numba compiles a kernel once per argument types, and an array's type
    includes whether it may be written: the same strategy's arrays, built
    read-only by one path and writable by another (an index remapped, an empty
    table kept), would compile ``count_blocks`` again (about 30 s) for each
    mix. Read-only everywhere, every rule set and strategy shares the kernel
    that ``python -m baccarat_sim.compile`` leaves in the cache. The caller's
    arrays keep their flags.
    """
    if isinstance(value, tuple):
        return tuple(_read_only(item) for item in value)
    if isinstance(value, np.ndarray):
        view = value.view()
        view.setflags(write=False)
        return view
    return value


class CountingJob:
    """Shoes dealt to the cut card, every bet played by a strategy (the arrays of ``kernel_args``).

    Parameters
    ----------
    plan : CountPlan
    canonical : ndarray(uint8)
        The shoe's cards in canonical order.
    seed : int
        Master seed (the shoes and the moved cut cards come from two streams of it).
    shoe_params : ndarray(int64)
        Burn and cut-card settings (:func:`baccarat_sim.kernels.shoe.pack_shoe_params`).
    strategy_args : tuple
        The strategy's arrays, as :func:`baccarat_sim.kernels.counting.count_blocks` reads them after
        ``shoe_params``.
    n_scenarios, n_bets : int
        Sizes of the statistics rows.
    record_codes : bool
        Keep the histogram of the rule set's cut-card scenario.
    detail : tuple or None
        Card detail tables (:func:`baccarat_sim.engines.packer.kernel_tables`) when a bet reads cards; None: the
        rounds are settled on their outcome codes alone (the kernel's unchanged fast path).
    n_cells : int
        Cells of the histogram: ``N_CODES``, or ``detail.n_cells`` with a card detail.
    card_solver : tuple or None
        The card-level bets' pricing tables, ``(first_four, group)`` each None or read-only already
        (:meth:`baccarat_sim.engines.card_solver.CardSolver.tables`), when such a bet is played perfectly or its
        exact edge kept; None: none is priced.
    """

    supports_remote = False
    unit = "shoes"

    def __init__(self, plan: CountPlan, canonical, seed: int, shoe_params, strategy_args: tuple,
                 n_scenarios: int, n_bets: int, record_codes: bool = False, detail: tuple | None = None,
                 n_cells: int | None = None, card_solver: tuple | None = None):
        self.plan = plan
        self.canonical = canonical
        self.seed = np.uint64(seed)
        self.shoe_params = shoe_params
        self.strategy_args = _read_only(strategy_args)
        self.k_int = SCENARIO_INT * n_scenarios + n_scenarios * n_bets * VARIANTS * INT_STATS
        self.k_float = SCENARIO_FLOAT * n_scenarios + n_scenarios * n_bets * VARIANTS * FLOAT_STATS
        self.record_codes = record_codes
        self.detail = detail
        self.card_solver = (None, None) if card_solver is None else card_solver
        if n_cells is None:
            if detail is not None:
                raise ValueError("a card detail needs its number of cells")
            n_cells = N_CODES
        self.n_cells = n_cells

    def new_state(self) -> CountState:
        """Nothing dealt yet."""
        return CountState(stats_int=np.zeros(self.k_int, np.int64), stats_float=np.zeros(self.k_float),
                          codes=np.zeros(self.n_cells, np.int64) if self.record_codes else None)

    def done(self, state: CountState) -> int:
        """Shoes in ``state``."""
        return state.shoes

    def local_dealer(self, lanes: int) -> _CountDealer:
        """A dealer of whole chunks on this machine (the kernel runs a chunk's blocks in parallel)."""
        return _CountDealer(self)

    def save_checkpoint(self, path, state, meta=None):
        """Counting runs are not checkpointed (a run of 10^5 shoes takes seconds)."""
        raise OSError("counting runs are not checkpointed")


class _CountDealer:
    def __init__(self, job: CountingJob):
        self.job = job

    pending = 0  # every chunk is in the state as soon as it is dealt

    def deal(self, state: CountState, chunk: int) -> None:
        job, plan = self.job, self.job.plan
        first, n_blocks = plan.chunk_blocks(chunk)
        stats_int = np.zeros((n_blocks, job.k_int), np.int64)
        stats_float = np.zeros((n_blocks, job.k_float))
        codes = np.zeros((n_blocks, job.n_cells if job.record_codes else 1), np.int64)
        started = time.perf_counter()
        count_blocks(job.canonical, job.seed, first, n_blocks, SHOES_PER_BLOCK, plan.last_shoes,
                     plan.total_blocks, job.shoe_params, *job.strategy_args, stats_int, stats_float, codes, job.detail,
                     *job.card_solver)
        state.kernel_seconds += time.perf_counter() - started
        state.stats_int += stats_int.sum(axis=0)
        for row in stats_float:  # in block order: the same sums for any number of threads
            state.stats_float += row
        if job.record_codes:
            state.codes += codes.sum(axis=0)
        state.shoes += int(stats_int[:, 0].sum())
        state.mark_done(chunk)

    def commit(self, state: CountState) -> None:
        """Nothing to do: each chunk is added as it is dealt."""


@dataclasses.dataclass(frozen=True)
class CountStatistics:
    """A counting run's statistics, read by scenario, bet and variant in the kernel's own layout.

    The kernel (:mod:`baccarat_sim.kernels.counting`) decides where each
    statistic sits (:func:`~baccarat_sim.kernels.counting.int_index`,
    :func:`~baccarat_sim.kernels.counting.float_index`); this reads them there,
    so the layout has one home.

    Attributes
    ----------
    stats_int, stats_float : ndarray
        The run's sums (:class:`CountState`).
    n_scenarios, n_bets : int
        Cut-card scenarios and bets played.
    """

    stats_int: np.ndarray
    stats_float: np.ndarray
    n_scenarios: int
    n_bets: int

    def scenario(self, s: int) -> tuple[int, int]:
        """Shoes and rounds dealt in scenario ``s``."""
        return int(self.stats_int[SCENARIO_INT * s]), int(self.stats_int[SCENARIO_INT * s + 1])

    def bet(self, s: int, b: int, v: int) -> tuple[np.ndarray, np.ndarray]:
        """Integer and float statistics of bet ``b`` in scenario ``s``, variant ``v`` (0: every round).

        Returns
        -------
        (ndarray(int64, shape=(INT_STATS,)), ndarray(float64, shape=(FLOAT_STATS,)))
            Rounds the bet was offered, bets placed, net in units of ``1 / scale``;
            sums over shoes of net², bets², net x bets, of the exact EV of the bets placed, of its square per
            shoe and of its product with the bets per shoe.
        """
        ints = _python(int_index)(self.n_scenarios, self.n_bets, s, b, v)
        floats = _python(float_index)(self.n_scenarios, self.n_bets, s, b, v)
        return self.stats_int[ints:ints + INT_STATS], self.stats_float[floats:floats + FLOAT_STATS]


def _python(kernel):
    """A jitted helper's Python function (no compilation to read a few columns)."""
    return getattr(kernel, "py_func", kernel)
