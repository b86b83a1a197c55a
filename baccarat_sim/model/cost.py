"""The cost model: cells, work, bytes and seconds of a card-detail plan, predicted before anything is allocated.

Every step that builds card-detail tables asks here first, and the engines
refuse from the same figures (:mod:`baccarat_sim.engines.detail`,
:mod:`baccarat_sim.engines.plan`):

* :func:`builder_cost`: the exact builder's tables of one group
  (:func:`~baccarat_sim.model.detail_tables.exact_tables`: for each set of
  atoms, its first-four classes times the partial states of its hands times
  its third-card classes);
* :func:`exact_cost`: a group's exact weights (the builder, then the
  enumeration: first-four card sequences, and third-card steps per state);
* :func:`reach_cost`: which of a group's cells can happen (the builder on a
  shoe of six cards of every kind, then the reach enumeration);
* :func:`kernel_cost`: the Monte Carlo tables of a group
  (:func:`~baccarat_sim.engines.packer.kernel_tables`) and a bound on the
  cells it adds to a histogram row;
* :func:`run_cost`: a Monte Carlo run's counts (state and batch rows, lanes,
  the report's copies).

The figures are predictions from the sizes (classes, states, cells), each in
milliseconds: a builder predicted cheap (:data:`PROBE_SECONDS`) is run to
size the enumeration from its real tables, nothing large is ever allocated.
The constants are measured on this project's 2-core machines: bytes are held
within a factor of 2 of the real peak by ``tests/test_cost_model.py``;
seconds are a guide (a busy machine is slower). The limits
(:mod:`baccarat_sim.limits`) are checked against them.
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np

from .cards import N_CARD_IDS, N_SUITS, RANK_POINTS
from .codes import N_CODES, N_SUFFIXES
from .detail_tables import (
    EXACT_SET_CELLS,
    MAX_COMBINATIONS,
    MAX_EXACT_CELLS,
    TABLE_CELLS,
    _derived_of,
    _first_four_states,
    _hands,
    _split,
    card_letter,
    exact_tables,
    joint_classes,
    table_cells,
    table_patterns,
    third_class_count,
)
from .rankwise_layout import rankwise_cost

__all__ = ["Cost", "builder_cost", "card_kinds", "enumeration_cost", "exact_cost", "kernel_cost", "reach_cost",
           "round_pricing_cost", "rounds_per_shoe_bound", "run_cost"]

#: Seconds per cell of the exact builder's tables (numpy: each cell's poker values and atom bits, then the rows
#: made unique): measured 2.4 us for ``poker(all) == flush`` (25.6 M cells in 60 s), 0.7 us for ``kind(all)``.
BUILD_SECONDS_PER_CELL = 2.0e-6
#: Bytes per cell of the builder's tables: the table (uint64), its unique rows and the sort's copies.
BUILD_BYTES_PER_CELL = 32
#: The builder's chunk of cells built at once, and bytes per chunk cell (its temporaries, int64 each).
BUILD_CHUNK_CELLS, BUILD_CHUNK_BYTES = 1 << 21, 128
#: Seconds per first-four card sequence of the enumeration (two threads), and per poker value or set it reads.
PREFIX_SECONDS, PREFIX_SECONDS_PER_PART = 25e-9, 4e-9
#: Seconds per third-card step (a state, a fifth and a sixth card class) of the enumeration (two threads).
THIRD_SECONDS = 1.2e-9
#: Pairs of two-card totals: the enumeration's third-card stage runs per state and pair of totals.
TOTAL_PAIRS = 100
#: Bytes per cell of a Monte Carlo table being packed (the grid of its classes, values and bits, int64 each).
PACK_BYTES_PER_CELL_AND_AXIS, PACK_SECONDS_PER_CELL = 24, 0.2e-6
#: Copies of a histogram row a Monte Carlo run makes besides its state and lane rows: the exact histogram, the
#: histogram, the checkpoint written, the settlement's indices and nets, the pay-table checks ...
RUN_ROW_COPIES = 20
#: ... and of its batch rows (the state's, the histogram's, the batch-means estimates' views of each group): a run
#: of one group of 3,686,400 cells over 20 batches peaked at 3.4 GB resident (3.1 GB predicted; issue 41 measured
#: 2.26 GB on another machine).
RUN_BATCH_COPIES = 4


class Cost(NamedTuple):
    """One prediction, made before anything is allocated.

    Attributes
    ----------
    cells : int
        Elements of the largest array the step allocates.
    work : float
        Elementary steps (table cells built, card sequences and third-card steps enumerated).
    bytes : int
        Predicted peak bytes.
    seconds : float
        Predicted seconds on the project's 2-core machines.
    """

    cells: int
    work: float
    bytes: int
    seconds: float

    def plus(self, other: Cost) -> Cost:
        """Two steps run one after the other: work and seconds add, the peak is the larger one's."""
        return Cost(max(self.cells, other.cells), self.work + other.work, max(self.bytes, other.bytes),
                    self.seconds + other.seconds)

    def beside(self, other: Cost) -> Cost:
        """Two steps whose arrays are held together: work, seconds and bytes add."""
        return Cost(max(self.cells, other.cells), self.work + other.work, self.bytes + other.bytes,
                    self.seconds + other.seconds)

    def text(self) -> str:
        """In words: ``581.5 M cells, 24.1 GB, about 1,200 s``."""
        return f"{_count(self.cells)} cells, {_bytes(self.bytes)}, about {_seconds(self.seconds)}"

    def over(self, max_bytes: float, max_seconds: float) -> str | None:
        """Which limit the prediction passes, in words (None: within both)."""
        if self.bytes > max_bytes:
            return f"more than the limit of {_bytes(max_bytes)} of memory"
        if self.seconds > max_seconds:
            return f"more than the limit of {_seconds(max_seconds)}"
        return None


NOTHING = Cost(0, 0.0, 0, 0.0)


def _count(n: float) -> str:
    return f"{n / 1e6:,.1f} M" if n >= 1e6 else f"{int(n):,}"


def _bytes(n: float) -> str:
    return f"{n / 1e9:,.1f} GB" if n >= 1e9 else f"{n / 1e6:,.0f} MB"


def _seconds(s: float) -> str:
    return f"{s:,.0f} s" if s >= 10 else f"{s:.1f} s"


def card_kinds(atoms, outcomes: str, cards: str = "ids") -> np.ndarray:
    """The kind of every card id (``int64[52]``): what the tableau, the atoms and their poker values read of it.

    A kind of card is a point value (the tableau), what every atom reads of a
    card at every position and what each poker value reads; where every code is
    counted, also the card itself (``cards="ids"``) or its rank
    (``cards="ranks"``), for the pairs and the first-card comparison.
    """
    ids = np.arange(N_CARD_IDS)
    keys = [RANK_POINTS[ids // N_SUITS]]
    if outcomes == "codes":
        keys.append(ids if cards == "ids" else ids // N_SUITS)
    keys += [column[:N_CARD_IDS] for column in joint_classes(atoms, letters=True)[0]]
    for atom in atoms:
        for hand_value in atom.derived:
            keys.append(card_letter(hand_value)[:N_CARD_IDS])
    return np.unique(np.stack(keys, axis=1), axis=0, return_inverse=True)[1].ravel()


def _exact_sets(atoms) -> list[tuple[list, float, int]]:
    """The builder's sets of atoms (as :func:`~baccarat_sim.model.detail_tables.exact_tables` splits them).

    Each: (members, table cells, first-four rows).
    """
    hands = _hands(_derived_of(atoms))
    states = {over: len(_first_four_states(over, rank_only)) for over, rank_only in hands.items()}

    def rows_and_cells(members) -> tuple[float, float]:
        sizes = [len(r) for r in joint_classes(members, letters=True)[1]]
        rows = math.prod(sizes[:4]) * math.prod(states[h] for h in _hands(_derived_of(members)))
        return float(rows), float(rows * sizes[4] * sizes[5])

    return [(members, rows_and_cells(members)[1], int(rows_and_cells(members)[0]))
            for members in _split(list(atoms), lambda m: rows_and_cells(m)[1], EXACT_SET_CELLS)]


def _combinations(sets) -> float:
    """A bound on the combinations of the sets' local ids: each set's distinct atom bits, multiplied."""
    total = 1.0
    for members in sets:
        bound = float(1 << min(len(members), 62))
        if bound > 2 and table_cells(members) <= TABLE_CELLS:
            bound = min(bound, table_patterns(members))
        total *= bound
    return min(total, float(MAX_COMBINATIONS))


#: Most cells of the by-card builder's table of one set of a group: a group with a larger one (two hands' poker
#: values compared, a poker value that reads the suits of third cards) is counted by rank
#: (:mod:`baccarat_sim.engines.rankwise`), whose cost does not grow with the hands' states.
BY_CARD_CELLS = 1 << 22


def counted_by_rank(atoms) -> bool:
    """Whether the engines count a group by rank: its by-card tables would be large."""
    return max((c for _, c, _ in _exact_sets(tuple(atoms))), default=0) > BY_CARD_CELLS


def _rankwise(atoms, outcomes: str, one_thread: bool = False, shoe=None, remembered: bool = True) -> Cost:
    """The count by rank of a group (its rounds of kinds, remembered suit distributions, output) on a shoe.

    ``remembered=False``: as if no context were remembered (its worst seconds).
    """
    cost = rankwise_cost(tuple(atoms), outcomes, shoe=shoe)
    seconds = cost.seconds if remembered else cost.worst_seconds
    return Cost(int(min(2 ** len(atoms), 1 << 20) * _n_outcomes(outcomes)), float(cost.rounds), int(cost.bytes),
                seconds if one_thread else seconds / 2)


def builder_cost(atoms, outcomes: str = "codes") -> Cost:
    """The exact builder's tables of one group, built once (the weights and the reach each build them).

    A group counted by rank (:func:`counted_by_rank`) builds no such table: its cost is the count's
    (:func:`baccarat_sim.model.rankwise_layout.rankwise_cost`), told by :func:`exact_cost` and :func:`reach_cost`.
    """
    if counted_by_rank(atoms):
        return Cost(0, 0.0, 0, 0.0)
    sets = _exact_sets(atoms)
    cells = [c for _, c, _ in sets]
    kept = sum(cells) * 8
    peak = max((c * (BUILD_BYTES_PER_CELL - 8) + min(c, BUILD_CHUNK_CELLS) * BUILD_CHUNK_BYTES for c in cells),
               default=0)
    return Cost(int(max(cells, default=0)), float(sum(cells)), int(kept + peak),
                0.01 + sum(cells) * BUILD_SECONDS_PER_CELL)


#: A builder predicted at most this quick and small is run to size the enumeration from its real tables (its
#: partial classes are the distinct rows of its tables, often far fewer than their rows).
PROBE_SECONDS, PROBE_BYTES = 0.5, 128 << 20


@functools.lru_cache(maxsize=64)
def _enumeration_sizes(atoms: tuple, outcomes: str) -> tuple[float, float]:
    """The enumeration's partial states (its states without the code's suffix) and its combinations of local ids.

    Off the builder's real tables where the builder is cheap (:data:`PROBE_SECONDS`); else bounds: each set's
    first-four rows multiplied, each set's distinct atom bits multiplied.
    """
    sets = _exact_sets(atoms)
    builder = builder_cost(atoms, outcomes)
    if builder.seconds <= PROBE_SECONDS and builder.bytes <= PROBE_BYTES:
        kinds = card_kinds(atoms, outcomes)
        shoe = np.zeros(N_CARD_IDS, np.int64)
        shoe[np.unique(kinds, return_index=True)[1]] = 8  # one id of each kind, as the engines pool the shoe
        tables = exact_tables(atoms, shoe.reshape(13, 4), outcomes)
        return float(tables["n_states"] // tables["radix"][0]), float(tables["n_combinations"])
    return float(math.prod(rows for _, _, rows in sets)), _combinations([m for m, _, _ in sets])


def _states(atoms, outcomes: str) -> float:
    """The enumeration's states: the suffix where every code is counted, times the partial states."""
    return _enumeration_sizes(tuple(atoms), outcomes)[0] * (N_SUFFIXES if outcomes == "codes" else 1)


def _n_outcomes(outcomes: str) -> int:
    return N_CODES if outcomes == "codes" else N_CODES // N_SUFFIXES


def enumeration_cost(atoms, outcomes: str, states: float, combinations: float, lanes: int = 2) -> Cost:
    """The exact enumeration's kernel once the builder's tables are known.

    ``states`` (the code's suffix included) and ``combinations`` (of local ids) as the tables hold them
    (:func:`exact_cost` estimates them before).
    """
    atoms = list(atoms)
    k = third_class_count(atoms)
    prefixes = float(len(np.unique(card_kinds(atoms, outcomes)))) ** 4
    third = min(TOTAL_PAIRS * states, prefixes) * k * k
    parts = len(_hands(_derived_of(atoms))) + len(_exact_sets(atoms))
    seconds = prefixes * (PREFIX_SECONDS + PREFIX_SECONDS_PER_PART * parts) + third * THIRD_SECONDS
    rows = max(1.0, min(states, MAX_EXACT_CELLS // (k * k)))
    out = lanes * combinations * _n_outcomes(outcomes)
    scratch = lanes * (states * 4 + rows * (k * k + k + 2) * 8)
    return Cost(int(out), prefixes + third, int(out * 8 + scratch), seconds)


def exact_cost(atoms, outcomes: str = "codes", lanes: int = 2, shoe=None, remembered: bool = True) -> Cost:
    """A group's exact weights on a shoe (:func:`baccarat_sim.engines.detail.group_weights`).

    ``shoe`` (counts by rank and suit, ``(13, 4)``; None: a full one) matters to a group counted by rank: a shoe
    depleted unevenly leaves fewer suit distributions to remember (:func:`~.rankwise_layout.rankwise_cost`).
    ``remembered=False`` prices a group counted by rank as if no context were remembered: where atoms of many
    classes that the suits leave alone multiply the contexts past what a call remembers (the observation
    patterns of a leak, :mod:`baccarat_sim.analysis.leak_cards`).
    """
    atoms = tuple(atoms)
    if counted_by_rank(atoms):
        return _rankwise(atoms, outcomes, shoe=shoe, remembered=remembered)
    enumeration = enumeration_cost(atoms, outcomes, _states(atoms, outcomes), _enumeration_sizes(atoms, outcomes)[1],
                                   lanes)
    return builder_cost(atoms, outcomes).beside(enumeration)


#: Seconds per cell (combination of local ids x outcome) of one shoe's weights dotted with a bet's nets.
DOT_SECONDS = 2e-9


def round_pricing_cost(atoms, outcomes: str = "codes") -> Cost:
    """A group's exact weights on the cards left, as a counting run prices them every round, its tables built once.

    The enumeration alone (:func:`enumeration_cost`), one thread a shoe and two shoes at a time on the two cores
    (so a round's share of the run is the two-thread enumeration's seconds), then its weights dotted with the
    bets' nets (:mod:`baccarat_sim.kernels.card_solver`).
    """
    atoms = tuple(atoms)
    states, combinations = _states(atoms, outcomes), _enumeration_sizes(atoms, outcomes)[1]
    enumeration = enumeration_cost(atoms, outcomes, states, combinations, lanes=1)
    return enumeration._replace(seconds=enumeration.seconds + combinations * _n_outcomes(outcomes) * DOT_SECONDS)


#: Fewest cards a round takes on average over many shoes (4.94 at 8 decks; every deck count is within a
#: hundredth): a shoe's rounds are bounded from the cards dealt before the cut card, with a margin.
MEAN_CARDS_PER_ROUND = 4.9


def rounds_per_shoe_bound(n_cards: int, cut_from_end: int, rounds_after_cut: int) -> float:
    """Rounds a shoe of ``n_cards`` dealt to a cut card ``cut_from_end`` cards from the end gives, about (a bound)."""
    return max(n_cards - cut_from_end, 0) / MEAN_CARDS_PER_ROUND + rounds_after_cut + 1


def reach_cost(atoms, outcomes: str = "codes") -> Cost:
    """Which cells of a group can happen (:func:`baccarat_sim.engines.detail.detail_of_group`)."""
    if counted_by_rank(atoms):
        return _rankwise(atoms, outcomes)
    atoms = list(atoms)
    sets = _exact_sets(atoms)
    k = third_class_count(atoms)
    kinds = len(np.unique(card_kinds(atoms, outcomes, "ranks"))) * (2 if outcomes == "codes" else 1)
    prefixes = float(min(kinds, N_CARD_IDS)) ** 4
    partial = _states(atoms, "prefixes")
    third = min(TOTAL_PAIRS * partial, prefixes) * (k * k + k)
    parts = len(_hands(_derived_of(atoms))) + len(sets)
    seconds = (prefixes * (PREFIX_SECONDS + PREFIX_SECONDS_PER_PART * parts) + third * THIRD_SECONDS) * 2  # 1 thread
    cells = _enumeration_sizes(tuple(atoms), outcomes)[1] * _n_outcomes(outcomes)
    enumeration = Cost(int(cells), prefixes + third, int(cells * 2 + partial * 12), seconds)
    return builder_cost(atoms, outcomes).beside(enumeration)


def kernel_cost(atoms, outcomes: str = "codes") -> Cost:
    """The Monte Carlo tables of one group; ``cells``: a bound on the cells it adds to a histogram row."""
    atoms = list(atoms)
    tables = _split(atoms, table_cells, TABLE_CELLS)
    sizes = [float(table_cells(members)) for members in tables]
    axes = [6 + len(_derived_of(members)) for members in tables]
    combinations = 1.0
    for members, size in zip(tables, sizes):
        combinations *= min(float(1 << min(len(members), 62)), size)
    details = min(combinations, float(1 << min(len(atoms), 62)))
    row = details * _n_outcomes(outcomes)
    packing = max((s * a * PACK_BYTES_PER_CELL_AND_AXIS for s, a in zip(sizes, axes)), default=0)
    kept = sum(sizes) * 8 + min(combinations, float(MAX_COMBINATIONS)) * 12
    return Cost(int(row), sum(sizes) + combinations, int(packing + kept + row * 8),
                0.01 + sum(sizes) * PACK_SECONDS_PER_CELL)


def run_cost(n_cells: int, n_positions: int, n_batches: int, lanes: int) -> Cost:
    """A Monte Carlo run's counts: the state's rows, the batch rows, the lanes' rows and the report's copies."""
    rows = RUN_BATCH_COPIES * n_batches + n_positions * (1 + lanes * 9 / 8) + RUN_ROW_COPIES
    return Cost(int(n_cells * max(n_positions, n_batches)), 0.0, int(n_cells * 8 * rows), 0.0)
