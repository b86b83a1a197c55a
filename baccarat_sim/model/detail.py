"""The card detail of an outcome: which atoms of a rule set's card-level bets hold, group by group.

A rule set whose bets read cards (``P1.suit == hearts``, ``poker(all) == four_of_a_kind``, ...) has *atoms*
(:class:`~baccarat_sim.model.atoms.Atom`): the card-only parts of its conditions. The atoms are put in *groups*
(every atom of a bet in one group; :func:`baccarat_sim.engines.detail.rules_detail` forms them). A group's
*detail* is the combination of its atoms' values; only the combinations that can happen are kept, numbered
``0 .. n_details - 1`` in the order of their bits (atom ``i`` is bit ``i``). A group is counted with the outcome
fields its bets read (:data:`OUTCOMES`): every outcome code, or only the code's *prefix* (scores and card counts,
:mod:`baccarat_sim.model.codes`) when none of them reads a pair or the first-card comparison.

:class:`CardDetail` is one group: its cells are ``detail * n_outcomes + outcome``, the outcome a code or a
prefix. :class:`FactoredDetail` is the card detail of a rule set: its cells are the 14,400 outcome codes, then
each group's cells in turn. Each bet is settled from the cells of its group (a histogram's *view* of those
bets, :meth:`baccarat_sim.model.histogram.OutcomeHistogram.view`); several bets together (a slip, a covariance)
need one group that holds them all. A rule set without card-level bets has no card detail: its cells are the
outcome codes.

The detail a histogram holds is part of the histogram (atoms by their texts, the patterns, the outcomes): any
rule file can be settled on it whose card-level conditions use only those atoms, with outcome tests the group
keeps.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib

import numpy as np

from .codes import N_CODES, N_PREFIXES, N_SUFFIXES

__all__ = ["MAX_GROUP_ATOMS", "OUTCOMES", "CardDetail", "FactoredDetail", "detail_from_json"]

#: How a group counts the outcome: every code, or the code's prefix (scores and card counts) alone.
OUTCOMES = {"codes": N_CODES, "prefixes": N_PREFIXES}
#: Most atoms of one group: its details are numbered by their atoms' bits, one uint64.
MAX_GROUP_ATOMS = 63


def _read_only(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


@dataclasses.dataclass(frozen=True, eq=False)
class CardDetail:
    """One group of atoms, the combinations of their values that can happen, and the outcomes counted with them.

    Attributes
    ----------
    atoms : tuple of Atom
    patterns : ndarray(bool, shape=(n_details, n_atoms))
        Row ``d``: the value of every atom in detail ``d`` (rows in the order of their bits).
    possible : ndarray(bool, shape=(n_details * n_outcomes,)) or None
        Which cells can happen at the table (from a shoe with six of every
        card); the engines work it out, a histogram read from a file does not
        carry it.
    outcomes : str
        ``"codes"``: cells ``detail * N_CODES + code``; ``"prefixes"``: cells
        ``detail * N_PREFIXES + prefix`` (the bets read no pair and no first-card comparison).
    reach : str
        How ``possible`` was worked out: ``"exact"``, the cells that happen on a shoe that deals every
        sequence; ``"tables"``, every combination the Monte Carlo tables can form with every outcome (more
        cells than can happen: where the exact reach is predicted too costly,
        :func:`baccarat_sim.engines.detail.detail_of_group`); ``"dealt"``, the cells of positive weight on one
        shoe (fewer, perhaps, than can happen: :func:`baccarat_sim.engines.detail.check_on_weights`).
    """

    atoms: tuple
    patterns: np.ndarray
    possible: np.ndarray | None = None
    outcomes: str = "codes"
    reach: str = "exact"

    def __post_init__(self):
        if self.outcomes not in OUTCOMES:
            raise ValueError(f"outcomes must be one of {', '.join(OUTCOMES)}, got {self.outcomes!r}")
        if len(self.atoms) > MAX_GROUP_ATOMS:
            raise ValueError(f"a group of card details holds at most {MAX_GROUP_ATOMS} atoms")

    @property
    def n_details(self) -> int:
        """Details (combinations of atom values) that can happen."""
        return int(self.patterns.shape[0])

    @property
    def n_outcomes(self) -> int:
        """Outcomes counted with each detail: ``N_CODES`` or ``N_PREFIXES``."""
        return OUTCOMES[self.outcomes]

    @property
    def n_cells(self) -> int:
        """Cells ``detail * n_outcomes + outcome``."""
        return self.n_details * self.n_outcomes

    @property
    def texts(self) -> tuple[str, ...]:
        """The atoms' canonical texts (their identities)."""
        return tuple(atom.text for atom in self.atoms)

    @functools.cached_property
    def signature(self) -> str:
        """SHA-256 (hex, 16 characters) of the atoms, their possible combinations and the outcomes counted."""
        digest = hashlib.sha256("\n".join(self.texts).encode())
        digest.update(np.packbits(self.patterns).tobytes())
        if self.outcomes != "codes":  # a detail over every code keeps the signature it always had
            digest.update(self.outcomes.encode())
        return digest.hexdigest()[:16]

    def atom_bits(self) -> dict[str, np.ndarray]:
        """Each atom's value in each detail, by atom text: ``ndarray(bool, shape=(n_details,))``."""
        return {atom.text: self.patterns[:, i] for i, atom in enumerate(self.atoms)}

    @functools.cached_property
    def keys(self) -> np.ndarray:
        """The atoms' bits of each detail (``uint64[n_details]``, ascending: atom ``i`` is bit ``i``)."""
        weights = np.uint64(1) << np.arange(len(self.atoms), dtype=np.uint64)
        return _read_only((self.patterns.astype(np.uint64) * weights).sum(axis=1, dtype=np.uint64))

    def details_of_bits(self, bits: np.ndarray) -> np.ndarray:
        """The detail of each combination of atom bits (``uint64`` array), -1 where none is (it cannot happen)."""
        bits = np.asarray(bits, np.uint64)
        found = np.searchsorted(self.keys, bits)
        found = np.minimum(found, max(self.n_details - 1, 0))
        return np.where(self.keys[found] == bits, found, -1).astype(np.int64)

    def outcome_of(self, codes) -> np.ndarray:
        """The outcome each code counts as: itself, or its prefix."""
        codes = np.asarray(codes)
        return codes if self.outcomes == "codes" else codes // N_SUFFIXES

    def code_of_outcome(self, outcome: int) -> int:
        """A code that counts as ``outcome`` (itself, or the first code of a prefix), for messages."""
        return int(outcome) if self.outcomes == "codes" else int(outcome) * N_SUFFIXES

    def project(self, mask: np.ndarray) -> np.ndarray:
        """A mask over ``(n_details, N_CODES)`` as one over this detail's cells, flattened.

        Raises
        ------
        ValueError
            When the detail counts prefixes and the mask tells apart codes of one prefix (it reads a pair or
            the first-card comparison, which the detail does not keep).
        """
        mask = np.broadcast_to(mask, (self.n_details, N_CODES))
        if self.outcomes == "codes":
            return mask.reshape(-1)
        by_prefix = mask.reshape(self.n_details, N_PREFIXES, N_SUFFIXES)
        if (by_prefix != by_prefix[:, :, :1]).any():
            raise ValueError("it reads a pair or the first-card comparison, which this card detail does not keep "
                             "(it counts scores and card counts beside the cards)")
        return by_prefix[:, :, 0].reshape(-1)

    def to_json(self) -> dict:
        """The detail as JSON-ready data: atom texts, the patterns as strings of 0 and 1, the outcomes counted."""
        data = {"atoms": list(self.texts), "patterns": ["".join("01"[int(b)] for b in row) for row in self.patterns]}
        if self.outcomes != "codes":  # a detail over every code is written as it always was
            data["outcomes"] = self.outcomes
        return data

    @classmethod
    def from_json(cls, data: dict) -> CardDetail:
        """The detail :meth:`to_json` wrote, its atoms compiled again from their texts.

        Raises
        ------
        ValueError
            When the data is not a card detail of this version.
        """
        from .conditions import atom_of_text  # conditions compile atoms; this module only holds them

        if not isinstance(data, dict) or not {"atoms", "patterns"} <= set(data) <= {"atoms", "patterns", "outcomes"}:
            raise ValueError("the card detail must have atoms and patterns")
        texts, rows, outcomes = data["atoms"], data["patterns"], data.get("outcomes", "codes")
        if not (isinstance(texts, list) and isinstance(rows, list) and rows and all(isinstance(t, str) for t in texts)
                and all(isinstance(r, str) and len(r) == len(texts) and set(r) <= {"0", "1"} for r in rows)):
            raise ValueError("the card detail's atoms and patterns do not fit together")
        if (not texts or len(texts) > MAX_GROUP_ATOMS or len(set(rows)) != len(rows) or len(set(texts)) != len(texts)
                or outcomes not in OUTCOMES):
            raise ValueError("the card detail's atoms and patterns do not fit together")
        patterns = np.array([[c == "1" for c in row] for row in rows], bool).reshape(len(rows), len(texts))
        detail = cls(tuple(atom_of_text(text) for text in texts), _read_only(patterns), outcomes=outcomes)
        if (detail.keys[1:] <= detail.keys[:-1]).any():  # details are numbered in the order of their bits
            raise ValueError("the card detail's patterns are not in order")
        return detail

    def describe(self, detail: int) -> str:
        """A detail in words: which atoms hold."""
        held = [atom.text for atom, bit in zip(self.atoms, self.patterns[detail]) if bit]
        return " and ".join(held) if held else "no card-level condition holds"


@dataclasses.dataclass(frozen=True, eq=False)
class FactoredDetail:
    """The card detail of a rule set: groups of atoms, each counted on its own beside the outcome codes.

    A histogram of it counts ``N_CODES`` outcome codes, then each group's cells (``groups[g].n_cells``) from
    :meth:`offset` ``(g)`` on; every block sums to the rounds counted.

    Attributes
    ----------
    groups : tuple of CardDetail
    """

    groups: tuple

    def __post_init__(self):
        if not self.groups or not all(isinstance(g, CardDetail) for g in self.groups):
            raise ValueError("a factored card detail needs groups of card details")
        texts = [text for group in self.groups for text in group.texts]
        if len(set(texts)) != len(texts):
            raise ValueError("an atom belongs to one group of the card detail")

    @property
    def n_cells(self) -> int:
        """Cells: the outcome codes, then every group's cells."""
        return N_CODES + sum(group.n_cells for group in self.groups)

    def offset(self, group: int) -> int:
        """Where group ``group``'s cells start."""
        return N_CODES + sum(g.n_cells for g in self.groups[:group])

    @property
    def atoms(self) -> tuple:
        """Every group's atoms, group after group."""
        return tuple(atom for group in self.groups for atom in group.atoms)

    @property
    def texts(self) -> tuple[str, ...]:
        """Every atom's text, group after group."""
        return tuple(atom.text for atom in self.atoms)

    @functools.cached_property
    def signature(self) -> str:
        """SHA-256 (hex, 16 characters) of the groups' signatures, in order."""
        return hashlib.sha256("\n".join(g.signature for g in self.groups).encode()).hexdigest()[:16]

    def group_holding(self, texts) -> int | None:
        """The group that holds every atom of ``texts``; None when no group does (or ``texts`` is empty)."""
        texts = set(texts)
        for g, group in enumerate(self.groups):
            if texts and texts <= set(group.texts):
                return g
        return None

    def to_json(self) -> dict:
        """The detail as JSON-ready data: its groups."""
        return {"groups": [group.to_json() for group in self.groups]}

    @classmethod
    def from_json(cls, data: dict) -> FactoredDetail:
        """The detail :meth:`to_json` wrote.

        Raises
        ------
        ValueError
            When the data is not a factored card detail of this version.
        """
        if not isinstance(data, dict) or set(data) != {"groups"} or not isinstance(data["groups"], list):
            raise ValueError("a factored card detail must have groups")
        return cls(tuple(CardDetail.from_json(group) for group in data["groups"]))


def detail_from_json(data) -> CardDetail | FactoredDetail | None:
    """A histogram's card detail as its file writes it: none, one group (the layout of earlier versions) or groups.

    Raises
    ------
    ValueError
        When the data is none of these.
    """
    if data is None:
        return None
    if isinstance(data, dict) and "groups" in data:
        return FactoredDetail.from_json(data)
    return CardDetail.from_json(data)

