"""The one histogram type every engine returns: counts of rounds per outcome code.

Both engines (exact and Monte Carlo) fill an :class:`OutcomeHistogram` over the
codes of :mod:`baccarat_sim.model.codes`; settlement, statistics, reports and
plots read only this type.

A rule set whose bets read cards (suits, ranks, third cards, ...) also needs
the *card detail* of every round (:mod:`baccarat_sim.model.detail`), the card
detail travelling with the histogram. Its cells are

* without card detail: the outcome codes (one cell per code);
* with the card detail of a rule set (a
  :class:`~baccarat_sim.model.detail.FactoredDetail`): the outcome codes, then
  each group's cells ``detail * n_outcomes + outcome`` in turn;
* with one group of atoms (a :class:`~baccarat_sim.model.detail.CardDetail`,
  a slip's or a saved histogram of earlier versions): that group's cells alone.

A bet, or several bets together, is settled on the histogram's :meth:`OutcomeHistogram.view`
of them: the outcome codes, or the cells of the one group that holds their atoms.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..errors import InputError
from ..storage.archive import ArchiveError, read_archive, write_archive
from ..storage.writing import atomic_write
from .codes import FIELDS, N_CODES
from .detail import CardDetail, FactoredDetail, detail_from_json
from .toml import excerpt

#: Format name of a saved histogram (checked on loading).
FORMAT = "baccarat_sim-histogram"

__all__ = ["OutcomeHistogram"]


def _as_counts(counts, name: str = "counts") -> np.ndarray:
    """The histogram's own read-only int64 copy of ``counts`` (the caller's array is never kept)."""
    array = np.asarray(counts)
    if array.dtype.kind not in "iu":
        raise TypeError(f"{name} must be integers (combination counts or round counts), got {array.dtype}")
    if array.dtype == np.uint64 and array.size and array.max() > np.iinfo(np.int64).max:
        raise ValueError(f"{name} do not fit in int64")
    array = np.array(array, dtype=np.int64)  # a copy: editing the caller's array cannot change the histogram
    if array.size and array.min() < 0:
        raise ValueError(f"{name} must be >= 0")
    array.setflags(write=False)
    return array


@dataclasses.dataclass(frozen=True, eq=False)
class OutcomeHistogram:
    """Integer counts of rounds (or exact combination weights) per outcome code.

    Both engines return this type; settlement, statistics, reports and plots
    read only this type.

    The histogram owns its arrays: it keeps read-only copies of ``counts``,
    ``shoe``, ``by_position`` and ``batches``, so neither the caller nor a
    reader can change a histogram after it is made.

    Parameters
    ----------
    counts : ndarray(int64, shape=(n_cells,))
        Rounds (Monte Carlo) or exact weights (exact engine) per cell: per
        outcome code (``n_cells = N_CODES``), or per ``detail * N_CODES +
        code`` when the histogram holds a card detail.
    engine : str
        ``"exact"`` or ``"mc"``.
    model : str
        ``"exact"``, ``"fresh"`` or ``"dealt"``.
    shoe : ndarray(int64, shape=(13, 4))
        The shoe composition the rounds were dealt from (before burning).
    seed : int or None
        Master seed of a Monte Carlo run, None for the exact engine.
    rounds : int
        Rounds dealt (for the exact engine: the total weight).
    shoes : int
        Shoes dealt through in the dealt model; 0 for the fresh model (every round is its own
        freshly shuffled shoe, so rounds counts them) and for the exact engine.
    by_position : ndarray(int64, shape=(n_positions, n_cells)) or None
        Dealt model: counts per round position in the shoe (row 0 is round 1; the
        last row also holds every later round). Sums to ``counts``.
    batches : ndarray(int64, shape=(n_batches, n_cells)) or None
        Counts of consecutive groups of whole blocks (whole shoes in the dealt
        model), for batch-means standard errors and convergence plots.
    meta : dict
        Free-form provenance (rules id, rule hash, version, block size, ...).
    detail : FactoredDetail, CardDetail or None
        The card detail the cells carry (None: cells are the outcome codes; see the module's docstring).
    """

    counts: np.ndarray
    engine: str
    model: str
    shoe: np.ndarray
    seed: int | None = None
    rounds: int = 0
    shoes: int = 0
    by_position: np.ndarray | None = None
    batches: np.ndarray | None = None
    meta: dict = dataclasses.field(default_factory=dict)
    detail: FactoredDetail | CardDetail | None = None

    def __post_init__(self):
        if self.engine not in ("exact", "mc") or self.model not in ("exact", "fresh", "dealt"):
            raise ValueError(f"engine must be exact or mc and model exact, fresh or dealt, got {self.engine!r}, "
                             f"{self.model!r}")
        for name in ("rounds", "shoes"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
                raise ValueError(f"{name} must be a whole number >= 0, got {value!r}")
        if self.seed is not None and (isinstance(self.seed, bool) or not isinstance(self.seed, (int, np.integer))):
            raise ValueError(f"seed must be a whole number or None, got {self.seed!r}")
        if not isinstance(self.meta, dict):
            raise ValueError(f"meta must be a dict, got {type(self.meta).__name__}")
        if self.detail is not None and not isinstance(self.detail, (CardDetail, FactoredDetail)):
            raise ValueError(f"detail must be a FactoredDetail, a CardDetail or None, got "
                             f"{type(self.detail).__name__}")
        counts = _as_counts(self.counts)
        if counts.shape != (self.n_cells,):
            raise ValueError(f"counts must have shape ({self.n_cells},), got {counts.shape}")
        object.__setattr__(self, "counts", counts)
        shoe = _as_counts(self.shoe, "shoe")
        if shoe.shape != (13, 4):
            raise ValueError(f"shoe must have shape (13, 4), got {shoe.shape}")
        object.__setattr__(self, "shoe", shoe)
        for name in ("by_position", "batches"):
            value = getattr(self, name)
            if value is not None:
                value = _as_counts(value, name)
                if value.ndim != 2 or value.shape[1] != self.n_cells:
                    raise ValueError(f"{name} must have shape (n, {self.n_cells}), got {value.shape}")
                object.__setattr__(self, name, value)

    @property
    def n_cells(self) -> int:
        """Cells counted: ``N_CODES``, or the card detail's cells (see the module's docstring)."""
        return N_CODES if self.detail is None else self.detail.n_cells

    def _codes_of(self, counts: np.ndarray) -> np.ndarray:
        """Counts by cell (the last axis) summed to counts by outcome code."""
        if self.detail is None:
            return counts
        if isinstance(self.detail, FactoredDetail):
            return counts[..., :N_CODES]
        group = self.detail
        by_outcome = counts.reshape(*counts.shape[:-1], group.n_details, group.n_outcomes).sum(axis=-2)
        if group.outcomes == "codes":
            return by_outcome
        raise ValueError("this histogram's card detail counts the codes' prefixes (scores and card counts) alone")

    @property
    def code_counts(self) -> np.ndarray:
        """Counts per outcome code, summed over the card details (``ndarray(int64, shape=(N_CODES,))``)."""
        return self._codes_of(self.counts)

    @property
    def total(self) -> int:
        """Sum of the counts of one round each (rounds, or total combination weight)."""
        return int(self.code_counts.sum()) if isinstance(self.detail, FactoredDetail) else int(self.counts.sum())

    @property
    def probabilities(self) -> np.ndarray:
        """Counts divided by their total, ``ndarray(float64, shape=(n_cells,))``."""
        return self.counts / self.total

    def _group_of(self, bets) -> int:
        """The group of a factored card detail that holds the atoms of every card-level bet of ``bets`` (-1: none)."""
        bets = [bet for bet in bets if bet.card_level]
        texts = {atom.text for bet in bets for atom in bet.atoms}
        g = self.detail.group_holding(texts) if texts else -1
        if g is not None:
            return g
        from .conditions import covers  # conditions compile the atoms this module only reads

        cases = [case.when for bet in bets for case in bet.cases if case.condition.card_level]
        for g, group in enumerate(self.detail.groups):  # another rule file's bets, made of a group's atoms
            if all(covers(when, group.texts) for when in cases):
                return g
        for bet in bets:
            for case in bet.cases:
                if case.condition.card_level and not covers(case.when, self.detail.texts):
                    raise InputError("histogram", f"bet {bet.id!r} reads cards ({excerpt(case.when)}) that the "
                                                  f"histogram does not carry (its card detail: "
                                                  f"{'; '.join(self.detail.texts)}); count the histogram from a "
                                                  "rule set with this bet")
        raise InputError("histogram", f"bets {', '.join(bet.id for bet in bets)} read cards counted in different "
                                      "groups of this histogram's card detail, so they cannot be settled together "
                                      "(a slip, a covariance); count them together from a rule set of these bets")

    def cell_range(self, bets=()) -> slice:
        """The cells (last axis of ``counts``, ``by_position`` and ``batches``) of :meth:`view` ``(bets)``."""
        if not isinstance(self.detail, FactoredDetail):
            return slice(0, self.n_cells)
        g = self._group_of(bets)
        if g < 0:
            return slice(0, N_CODES)
        start = self.detail.offset(g)
        return slice(start, start + self.detail.groups[g].n_cells)

    def view(self, bets=()) -> OutcomeHistogram:
        """The histogram that settles ``bets`` together: its cells for their card detail, or the outcome codes.

        A histogram of a rule set's card detail (groups) gives the cells of the
        group that holds the atoms of every card-level bet of ``bets`` (the
        outcome codes when none reads cards); any other histogram is its own
        view. Counts, positions and batches are sliced alike (each view is made
        once).

        Raises
        ------
        InputError
            ``histogram``: a card-level bet whose cards this histogram does not
            carry, or card-level bets counted in different groups (a slip or a
            covariance cannot combine them), in one line.
        """
        if not isinstance(self.detail, FactoredDetail):
            return self
        g = self._group_of(bets)
        views = self.__dict__.setdefault("_views", {})
        if g not in views:
            cells = self.cell_range(bets)

            def cut(array):
                return None if array is None else array[..., cells]

            views[g] = dataclasses.replace(self, counts=self.counts[cells], by_position=cut(self.by_position),
                                           batches=cut(self.batches),
                                           detail=None if g < 0 else self.detail.groups[g])
        return views[g]

    def merge(self, other: OutcomeHistogram) -> OutcomeHistogram:
        """Add two histograms of the same engine, model and shoe.

        Counts, rounds, shoes and per-position counts add (the shorter
        ``by_position`` is padded with zero rows); batches stack, ``self``'s
        first. ``by_position`` and ``batches`` are kept only when both sides
        have them, since otherwise they would no longer add up to ``counts``.
        The seed is kept when both sides share it, else it becomes None; the
        metadata is ``self``'s.

        Raises
        ------
        ValueError
            When engine, model, shoe or card detail differ.
        """
        if (self.engine, self.model) != (other.engine, other.model) or not np.array_equal(
            self.shoe, other.shoe
        ):
            raise ValueError("only histograms of the same engine, model and shoe can be merged")
        if _signature(self.detail) != _signature(other.detail):
            raise ValueError("only histograms with the same card detail can be merged")
        by_position = None
        if self.by_position is not None and other.by_position is not None:
            rows = max(len(self.by_position), len(other.by_position))
            by_position = np.zeros((rows, self.n_cells), np.int64)
            by_position[: len(self.by_position)] += self.by_position
            by_position[: len(other.by_position)] += other.by_position
        batches = None
        if self.batches is not None and other.batches is not None:
            batches = np.concatenate([self.batches, other.batches])
        return dataclasses.replace(
            self,
            counts=self.counts + other.counts,
            rounds=self.rounds + other.rounds,
            shoes=self.shoes + other.shoes,
            by_position=by_position,
            batches=batches,
            seed=self.seed if self.seed == other.seed else None,
        )

    __add__ = merge

    def marginal(self, field: str) -> np.ndarray:
        """Counts summed over every field but ``field``.

        Returns
        -------
        ndarray(int64, shape=(size of the field,))
            ``marginal(field)[v]`` is the count of the codes whose ``field`` is
            ``v`` (over every card detail).
        """
        sizes = [size for _, size in FIELDS]
        names = [name for name, _ in FIELDS]
        if field not in names:
            raise ValueError(f"field: must be one of {', '.join(names)}, got {field!r}")
        axis = names.index(field)
        table = self.code_counts.reshape(sizes)
        return table.sum(axis=tuple(i for i in range(len(sizes)) if i != axis))

    def save(self, target) -> None:
        """Write the histogram as a checked ``.npz`` archive (counts, provenance, batches, positions).

        Parameters
        ----------
        target : path or binary file object
            A path is written atomically (a temporary file renamed over it).
        """
        arrays = {"counts": self.counts, "shoe": self.shoe}
        if self.by_position is not None:
            arrays["by_position"] = self.by_position
        if self.batches is not None:
            arrays["batches"] = self.batches
        header = {
            "engine": self.engine,
            "model": self.model,
            # int(): numpy integers are not JSON serialisable.
            "seed": None if self.seed is None else int(self.seed),
            "rounds": int(self.rounds),
            "shoes": int(self.shoes),
            "meta": self.meta,
            "detail": None if self.detail is None else self.detail.to_json(),
        }
        if hasattr(target, "write"):
            write_archive(target, FORMAT, header, arrays)
            return

        def write(temporary):
            with open(temporary, "wb") as stream:  # a file object: numpy would append ".npz" to a name
                write_archive(stream, FORMAT, header, arrays)

        atomic_write(target, write)

    @classmethod
    def load(cls, path) -> OutcomeHistogram:
        """Read a histogram written by [`save`][baccarat_sim.model.histogram.OutcomeHistogram.save].

        Every byte must read back as written (the archive's checksum), so a
        damaged or edited file is refused rather than loaded as something else.

        Raises
        ------
        InputError
            ``histogram``: one line naming the file and what is wrong with it.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> from baccarat_sim import exact_histogram
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "h.npz"
        >>> exact_histogram(8).save(path)
        >>> OutcomeHistogram.load(path).total == exact_histogram(8).total
        True
        """
        try:
            header, arrays = read_archive(path, FORMAT, "histogram")
        except ArchiveError as error:
            raise InputError("histogram", str(error)) from None
        if set(header) != {"engine", "model", "seed", "rounds", "shoes", "meta", "detail"} or not {
                "counts", "shoe"} <= set(arrays) or not set(arrays) <= {"counts", "shoe", "by_position", "batches"}:
            raise InputError("histogram", f"{path}: is not a histogram of this version (its fields differ)")
        try:
            detail = detail_from_json(header.pop("detail"))
            hist = cls(**arrays, **header, detail=detail)
            hist._check_totals()
            return hist
        except (TypeError, ValueError, KeyError) as error:
            raise InputError("histogram", f"{path}: is not a usable histogram ({error})") from None

    def _check_totals(self) -> None:
        """Every block of counts totals what int64 holds, and every block the same (one round counted once in each).

        A block is the outcome codes, and each group of a card detail. The
        archive's checksum proves the bytes are as written, not that they make
        sense: a file written (and signed) by other code can hold counts whose
        sum wraps around int64, or a card-detail block that no longer totals
        the outcome codes; settled, either gives figures that are no
        probabilities (issue 41, item 23). Counts by round position and by
        batch are checked row by row the same way.

        Raises
        ------
        ValueError
            Naming the block and the totals.
        """
        blocks = [("the outcome codes", slice(0, N_CODES))] if isinstance(self.detail, FactoredDetail) else []
        if isinstance(self.detail, FactoredDetail):
            blocks += [(f"card-detail group {g}", slice(self.detail.offset(g), self.detail.offset(g) + group.n_cells))
                       for g, group in enumerate(self.detail.groups)]
        else:
            blocks = [("the counts", slice(0, self.n_cells))]
        for name, rows in (("counts", self.counts[None, :]), ("by_position", self.by_position),
                           ("batches", self.batches)):
            if rows is None or not rows.size:
                continue
            totals = [(block, _exact_sums(rows[:, cells])) for block, cells in blocks]
            for block, sums in totals:
                if any(total > _INT64_MAX for total in sums):
                    raise ValueError(f"{name}: {block} total more than int64 holds ({max(sums):,})")
            first_block, first = totals[0]
            for block, sums in totals[1:]:
                if sums != first:
                    row = next(i for i, (a, b) in enumerate(zip(first, sums)) if a != b)
                    where = "" if name == "counts" else f" (row {row})"
                    raise ValueError(f"{name}{where}: {block} totals {sums[row]:,}, {first_block} {first[row]:,}: "
                                     "every block counts each round once")


_INT64_MAX = int(np.iinfo(np.int64).max)


def _exact_sums(rows: np.ndarray) -> list[int]:
    """Each row's sum as a Python int, exact whatever its size (counts are >= 0 and fit int64 each).

    Summed in int64 the total would wrap around silently; summed as 32-bit halves, each partial sum stays
    far within int64 (fewer than 2**31 cells of at most 2**32 each).
    """
    sums = []
    for row in rows:  # one row at a time: a temporary copy of one row, not of every position's or batch's
        sums.append((int((row >> 32).sum(dtype=np.int64)) << 32) + int((row & 0xFFFFFFFF).sum(dtype=np.int64)))
    return sums


def _signature(detail: CardDetail | None) -> str | None:
    return None if detail is None else detail.signature
