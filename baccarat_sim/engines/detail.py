"""Card detail from the engines: the groups of a rule set's atoms, which combinations can happen, exact weights.

The atoms of card-level bets are compiled by the model
(:mod:`baccarat_sim.model.atoms`). Here they are put in groups
(:func:`plan_groups`: every atom of a bet in one group, bets that share an atom
together, and groups merged while their tables stay small), and each group's
combinations of atom values that can happen, jointly with the outcomes, are
worked out on a shoe that deals every sequence of six cards there is (six cards
of every id), by an enumeration that marks the cells that occur instead of
counting them (:func:`group_reach`). The bets' pay tables are then checked on
those combinations, each bet on its group, as the model checks outcome-only
bets on the possible outcome codes.

The exact enumeration of a group (:func:`group_weights`) runs by card where
its table of first-four states by third-card classes is small
(:mod:`baccarat_sim.engines.bycard`), else by rank: the ranks of the six cards
are enumerated, and the suits of the positions the atoms read are counted rank
by rank, with exact depletion (:mod:`baccarat_sim.engines.rankwise`); both give
the same integers. Which cells can happen is the same count on the universal
shoe (six cards of every id).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from ..errors import InternalError, InvalidRules
from ..kernels.dealing import CARDS_PER_ROUND
from ..kernels.exact import exact_counts
from ..model.codes import N_CODES, N_SUFFIXES
from ..model.condition_tree import OutcomeCompare, outcome_leaves
from ..model.conditions import atom_of_text, feature_table
from ..model.detail import MAX_GROUP_ATOMS, CardDetail, FactoredDetail
from ..model.detail_tables import (
    TABLE_CELLS,
    exact_cells,
    joint_classes,
    table_cells,
    table_patterns,
    third_class_count,
)
from ..model.rules import Bet, Rules
from .bycard import bycard_reach, bycard_weights
from .rankwise import rankwise_weights

__all__ = ["BY_CARD_CELLS", "GROUP_CELLS", "MAX_CELLS", "by_card", "detail_counts", "detail_of_atoms",
           "detail_of_group", "detail_of_plan", "exact_detail_weights", "factored_counts", "group_weights",
           "joint_detail", "plan_groups", "rules_detail"]

#: Most cells (details x outcomes) of a group made by merging the groups of several bets: its counters stay in
#: the fastest caches of the Monte Carlo kernels. One bet's group may be larger, up to :data:`MAX_CELLS`.
GROUP_CELLS = 1 << 15
#: Most cells of one group (a histogram row holds it once per round position, in int64).
MAX_CELLS = 1 << 22
#: Most work (first-four states times third-card classes squared) of the exact enumeration of a group made by
#: merging the groups of several bets.
EXACT_WORK = 1 << 27

#: Six cards of every id (a round takes six at most): a shoe that deals every sequence of six card ids there is.
UNIVERSAL_SHOE = np.full((13, 4), CARDS_PER_ROUND, np.int64)
UNIVERSAL_SHOE.setflags(write=False)

#: ``progress(done, total)``, told as the groups of a card detail are worked out.
Progress = Callable[[int, int], None]


@functools.lru_cache(maxsize=1)
def _suffix_features() -> frozenset:
    """The outcome features that read a pair or the first-card comparison (the code's suffix), not only its prefix."""
    reads = set()
    for name, values in feature_table().items():
        by_prefix = values.reshape(-1, N_SUFFIXES)
        if (by_prefix != by_prefix[:, :1]).any():
            reads.add(name)
    return frozenset(reads)


def _reads_suffix(bet: Bet) -> bool:
    """Whether a bet's conditions read a pair or the first-card comparison."""
    features = set()
    for case in bet.cases:
        for leaf in outcome_leaves(case.condition.tree):
            features |= {leaf.left, leaf.right} if isinstance(leaf, OutcomeCompare) else {leaf.feature}
    return bool(features & _suffix_features())


# --------------------------------------------------------------------------- the groups


def _derived(atoms) -> frozenset:
    return frozenset(d.text() for atom in atoms for d in atom.derived)


def _first_four_classes(atoms) -> float:
    return float(np.prod([len(r) for r in joint_classes(atoms)[1][:4]], dtype=np.float64))


def _fits(atoms: list, suffix: bool) -> bool:
    """Whether atoms merged from several bets stay one small group: one table, few cells, quick to enumerate."""
    if len(atoms) > MAX_GROUP_ATOMS or table_cells(atoms) > TABLE_CELLS:
        return False
    if table_patterns(atoms) * (N_CODES if suffix else N_CODES // N_SUFFIXES) > GROUP_CELLS:
        return False
    k = third_class_count(atoms)
    return _first_four_classes(atoms) * (N_SUFFIXES if suffix else 1) * k * k <= EXACT_WORK


def plan_groups(bets, codes: bool = False) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The groups of the atoms of ``bets``: ``(outcomes, atom texts)`` each, in the order of the bets.

    The atoms of a bet go in one group, and bets that share an atom too; a
    bet's group is merged into the first earlier group it fits (:func:`_fits`)
    that reads the same poker values, so that bets reading the same cards count
    together. A group counts every outcome code where one of its bets reads a
    pair or the first-card comparison (or ``codes`` asks for every code), else
    the code's prefix alone (scores and card counts).
    """
    units: list[dict] = []  # {"atoms": {text: atom}, "suffix": bool}
    for bet in bets:
        if not bet.card_level:
            continue
        unit = {"atoms": {atom.text: atom for atom in bet.atoms}, "suffix": codes or _reads_suffix(bet)}
        for other in [u for u in units if set(u["atoms"]) & set(unit["atoms"])]:
            units.remove(other)
            unit = {"atoms": {**other["atoms"], **unit["atoms"]}, "suffix": other["suffix"] or unit["suffix"]}
        units.append(unit)
    groups: list[dict] = []
    for unit in units:
        for group in groups:
            merged = [*group["atoms"].values(), *unit["atoms"].values()]
            suffix = group["suffix"] or unit["suffix"]
            if _derived(group["atoms"].values()) == _derived(unit["atoms"].values()) and _fits(merged, suffix):
                group["atoms"].update(unit["atoms"])
                group["suffix"] = suffix
                break
        else:
            groups.append({"atoms": dict(unit["atoms"]), "suffix": unit["suffix"]})
    return tuple(("codes" if g["suffix"] else "prefixes", tuple(g["atoms"])) for g in groups)


# --------------------------------------------------------------------------- exact weights of a group


#: Most cells of the by-card enumeration's table of a group (:func:`~baccarat_sim.model.detail_tables.exact_cells`):
#: a group whose table would be larger is counted by rank, whose cost does not grow with two hands' states.
BY_CARD_CELLS = 1 << 22


def group_weights(atoms, shoe: np.ndarray, outcomes: str, threads: int | None = None
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Exact weights of one group's atoms: by combination of atom bits and by outcome.

    Counted by card where the by-card enumeration's table is small
    (:func:`baccarat_sim.engines.bycard.bycard_weights`, :data:`BY_CARD_CELLS`), else by rank, the suits of the
    positions the atoms read counted, not enumerated (:func:`baccarat_sim.engines.rankwise.rankwise_weights`):
    both give the same integers.

    Returns
    -------
    (ndarray(uint64, shape=(n_rows,)), ndarray(int64, shape=(n_rows, n_outcomes)))
        The atom bits of each row, ascending (atom ``i`` is bit ``i``; combinations of positive weight only), and
        its weights by outcome (a code, or a code prefix): they total ``N (N-1) ... (N-5)`` for a shoe of ``N``
        cards.

    Raises
    ------
    ValueError
        When the atoms tell apart more than the enumeration holds.
    """
    if by_card(atoms):
        return bycard_weights(tuple(atoms), shoe, outcomes, threads)
    if threads is None:
        return _remembered_rankwise(tuple(atoms), np.asarray(shoe, np.int64).reshape(13, 4).tobytes(), outcomes)
    return rankwise_weights(tuple(atoms), shoe, outcomes, threads)


def by_card(atoms) -> bool:
    """Whether a group is counted by card (its by-card table is small), not by rank."""
    return exact_cells(tuple(atoms)) <= BY_CARD_CELLS


def group_reach(atoms, outcomes: str) -> tuple[np.ndarray, np.ndarray]:
    """Which cells of one group's atoms can happen: by combination of atom bits and by outcome.

    The cells of :func:`group_weights` that have a positive weight on the universal shoe (six cards of every id),
    which deals every sequence of six cards there is.

    Returns
    -------
    (ndarray(uint64, shape=(n_rows,)), ndarray(bool, shape=(n_rows, n_outcomes)))
    """
    if by_card(atoms):
        return bycard_reach(tuple(atoms), outcomes)
    bits, weights = _remembered_rankwise(tuple(atoms), _REACH_SHOE.tobytes(), outcomes)
    return bits, weights > 0


#: The shoe the rank-wise count finds the cells that can happen on: any shoe with at least six cards of every id
#: deals every sequence of six cards there is, as the universal shoe does; 8 decks are priced most often, and
#: their exact count then serves both (:func:`_remembered_rankwise`).
_REACH_SHOE = np.full((13, 4), 8, np.int64)


@functools.lru_cache(maxsize=4)
def _remembered_rankwise(atoms: tuple, shoe: bytes, outcomes: str) -> tuple[np.ndarray, np.ndarray]:
    """The rank-wise count of the last few groups and shoes (a rule set's reach, then its 8-deck pricing)."""
    bits, weights = rankwise_weights(atoms, np.frombuffer(shoe, np.int64).reshape(13, 4), outcomes)
    bits.setflags(write=False)
    weights.setflags(write=False)
    return bits, weights


def exact_detail_weights(atoms, shoe: np.ndarray, threads: int | None = None) -> np.ndarray:
    """Exact weights by atom bits and outcome code: ``int64[2**n_atoms, N_CODES]`` (a few atoms, for tests)."""
    bits, weights = group_weights(tuple(atoms), shoe, "codes", threads)
    by_bits = np.zeros((1 << len(atoms), N_CODES), np.int64)
    by_bits[bits.astype(np.int64)] = weights
    return by_bits


@functools.lru_cache(maxsize=256)
def detail_of_group(atoms: tuple, outcomes: str = "codes") -> CardDetail:
    """One group's card detail: which combinations of its atoms' values, with which outcomes, can happen.

    Worked out exactly on a shoe with six cards of every id, which deals every
    sequence of six cards there is (:func:`group_reach`).

    Raises
    ------
    ValueError
        When the group has more than :data:`MAX_CELLS` cells, or more than the enumeration holds.
    """
    keys, possible = group_reach(atoms, outcomes)
    n_outcomes = possible.shape[1]
    if len(keys) * n_outcomes > MAX_CELLS:
        raise ValueError(f"their card-level conditions can hold in {len(keys):,} combinations, "
                         f"{len(keys) * n_outcomes:,} cells with the outcomes, more than the {MAX_CELLS:,} a group "
                         "carries; split the bet into simpler ones")
    patterns = ((keys[:, None] >> np.arange(len(atoms), dtype=np.uint64)) & np.uint64(1)).astype(bool)
    for array in (patterns, possible):
        array.setflags(write=False)
    return CardDetail(tuple(atoms), patterns, possible.reshape(-1), outcomes)


def detail_of_atoms(atoms: tuple) -> CardDetail:
    """The joint card detail of some atoms, counted with every outcome code (one group)."""
    return detail_of_group(tuple(atoms), "codes")


def group_counts(group: CardDetail, shoe: np.ndarray) -> np.ndarray:
    """Exact weights of every cell of one group (``detail * n_outcomes + outcome``) from a freshly shuffled shoe."""
    bits, weights = group_weights(group.atoms, shoe, group.outcomes)
    details = group.details_of_bits(bits)
    if weights[details < 0].any():  # the universal shoe deals every sequence: no other shoe can add a combination
        raise InternalError("a shoe dealt a combination of card-level conditions the universal shoe cannot")
    counts = np.zeros((group.n_details, weights.shape[1]), np.int64)
    np.add.at(counts, details[details >= 0], weights[details >= 0])
    return counts.reshape(-1)


def detail_counts(detail: CardDetail | FactoredDetail, shoe: np.ndarray, progress: Progress | None = None
                  ) -> np.ndarray:
    """Exact weights of every cell of a card detail from a freshly shuffled shoe.

    Returns
    -------
    ndarray(int64, shape=(detail.n_cells,))
        A group's cells, or the outcome codes then every group's cells; each block totals
        ``N (N-1) ... (N-5)`` for a shoe of ``N`` cards, as the outcome codes' do.
    """
    composition = np.asarray(shoe, np.int64).reshape(13, 4)
    if isinstance(detail, CardDetail):
        return group_counts(detail, composition)
    codes = np.zeros(N_CODES, np.int64)
    exact_counts(composition, codes)
    parts = [codes]
    for g, group in enumerate(detail.groups):
        parts.append(group_counts(group, composition))
        if progress is not None:
            progress(g + 1, len(detail.groups))
    return np.concatenate(parts)


# --------------------------------------------------------------------------- a rule set's card detail


def detail_of_plan(groups, progress: Progress | None = None, atoms: dict | None = None) -> FactoredDetail | None:
    """The factored card detail of a plan's groups (``(outcomes, atom texts)`` each, :func:`plan_groups`).

    ``atoms`` (text to atom) gives the compiled atoms where the caller has them; others are compiled from their
    texts.
    """
    if not groups:
        return None
    atoms = atoms or {}
    details = []
    for g, (outcomes, texts) in enumerate(groups):
        details.append(detail_of_group(tuple(atoms.get(text) or atom_of_text(text) for text in texts), outcomes))
        if progress is not None:
            progress(g + 1, len(groups))
    return FactoredDetail(tuple(details))


def rules_detail(rules: Rules, codes: bool = False, progress: Progress | None = None) -> FactoredDetail | None:
    """The card detail of a rule set's bets (None when no bet reads cards), its card-level pay tables checked.

    Parameters
    ----------
    codes : bool
        Count every group with every outcome code (default: a group whose bets read no pair and no first-card
        comparison counts the code's prefix alone).
    progress : callable or None
        ``progress(done, total)`` as the groups are worked out.

    Raises
    ------
    InvalidRules
        A card-level pay-table line that can never happen, lines that overlap,
        a bet that leaves outcomes uncovered, can never win or never lose, or
        card-level conditions too large to count (the message names the file,
        the bet and the line).
    """
    groups = plan_groups(rules.bets, codes)
    if not groups:
        return None
    try:
        detail = detail_of_plan(groups, progress, {atom.text: atom for bet in rules.bets for atom in bet.atoms})
    except ValueError as error:
        raise InvalidRules("", f"{rules.path}: bets: {error}") from None
    for bet in rules.bets:
        if bet.card_level:
            bet.check_detail(detail.groups[detail.group_holding(a.text for a in bet.atoms)], rules)
    return detail


def joint_detail(rules: Rules, bet_ids) -> CardDetail | None:
    """One group holding the atoms of every bet of ``bet_ids`` (a slip's), counted with every code; None for none.

    Raises
    ------
    InvalidRules
        When those bets' card-level conditions are too many to count together (one line naming them).
    """
    bets = [rules.bet(bet_id) for bet_id in bet_ids]
    atoms = tuple({atom.text: atom for bet in bets for atom in bet.atoms}.values())
    if not atoms:
        return None
    try:
        detail = detail_of_group(atoms, "codes")
    except ValueError as error:
        names = ", ".join(bet.id for bet in bets if bet.card_level)
        raise InvalidRules("", f"{rules.path}: bets {names} together: {error}") from None
    for bet in bets:
        if bet.card_level:
            bet.check_detail(detail, rules)
    return detail



def factored_counts(counts: np.ndarray, joint: CardDetail, factored: FactoredDetail) -> np.ndarray:
    """Counts over a joint card detail's cells (``detail * N_CODES + code``) as counts over a factored detail's.

    Each group's detail is a function of the joint detail (its atoms' bits) and its outcome of the code: the
    counts are the ones the Monte Carlo engine would have counted with ``factored`` for the same rounds.

    Raises
    ------
    ValueError
        When the joint detail lacks an atom of ``factored``.
    """
    if joint.outcomes != "codes":
        raise ValueError("the joint card detail must count every outcome code")
    counts = np.asarray(counts, np.int64).reshape(joint.n_details, N_CODES)
    column = {text: i for i, text in enumerate(joint.texts)}
    missing = [text for text in factored.texts if text not in column]
    if missing:
        raise ValueError(f"the joint card detail does not hold {missing[0]}")
    parts = [counts.sum(axis=0)]
    codes = np.arange(N_CODES)
    for group in factored.groups:
        weights = np.uint64(1) << np.arange(len(group.atoms), dtype=np.uint64)
        bits = (joint.patterns[:, [column[t] for t in group.texts]].astype(np.uint64) * weights).sum(
            axis=1, dtype=np.uint64)
        details = group.details_of_bits(bits)
        if (details < 0).any():
            raise InternalError("a joint card detail holds a combination its group cannot")
        cells = details[:, None] * group.n_outcomes + group.outcome_of(codes)[None, :]
        part = np.zeros(group.n_cells, np.int64)
        np.add.at(part, cells.reshape(-1), counts.reshape(-1))
        parts.append(part)
    return np.concatenate(parts)
