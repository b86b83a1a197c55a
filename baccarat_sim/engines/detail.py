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

The exact enumeration of a group (:func:`group_weights`) runs on the shoe with
the cards that no atom of the group (nor the outcomes it counts) tells apart
pooled into one id: the weights of every combination are the same, and the
enumeration takes the few kinds of card the bets read instead of 52 card ids.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable

import numba
import numpy as np

from ..errors import InputError, InternalError, InvalidRules
from ..kernels.exact import exact_counts
from ..kernels.exact_detail import exact_detail_counts, exact_detail_reach
from ..kernels.shoe import CARDS_PER_ROUND
from ..model.cards import N_CARD_IDS
from ..model.codes import N_CODES, N_SUFFIXES
from ..model.condition_tree import OutcomeCompare, outcome_leaves
from ..model.conditions import atom_of_text, feature_table
from ..model.cost import (
    builder_cost,
    card_kinds,
    counted_by_rank,
    enumeration_cost,
    exact_cost,
    kernel_cost,
    reach_cost,
)
from ..model.detail import MAX_GROUP_ATOMS, OUTCOMES, CardDetail, FactoredDetail
from ..model.detail_tables import (
    MAX_COMBINATIONS,
    TABLE_CELLS,
    _mc_table,
    _split,
    exact_tables,
    joint_classes,
    table_cells,
    table_patterns,
    third_class_count,
)
from ..model.rules import Bet, Rules
from .budget import bet_keys, cheap, reach_is_cheap, refused
from .rankwise import rankwise_weights

__all__ = ["GROUP_CELLS", "MAX_CELLS", "GroupError", "by_card", "check_on_weights", "detail_counts", "detail_of_atoms",
           "detail_of_group", "detail_of_plan", "exact_detail_weights", "factored_counts", "group_weights",
           "joint_detail", "plan_groups", "rules_detail", "weights_by_bits"]

#: Most cells (details x outcomes) of a group made by merging the groups of several bets: its counters stay in
#: the fastest caches of the Monte Carlo kernels. One bet's group may be larger, up to :data:`MAX_CELLS`.
GROUP_CELLS = 1 << 15
#: Most cells of one group (a histogram row holds it once per round position, in int64).
MAX_CELLS = 1 << 22
#: Most work (first-four states times third-card classes squared) of the exact enumeration of a group made by
#: merging the groups of several bets.
EXACT_WORK = 1 << 27
#: The pairs of two-card totals the exact enumeration takes per call: between calls a stop signal is honoured
#: and progress is told.
PAIRS_PER_CALL = 10

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
    """Whether atoms merged from several bets stay one small group: one table, few cells, quick to enumerate.

    Quick to enumerate: by the first-four classes and third-card classes, and by the cost model (which counts
    the poker values' states too), so that merging never makes a group whose exact figures are costly.
    """
    if len(atoms) > MAX_GROUP_ATOMS or table_cells(atoms) > TABLE_CELLS:
        return False
    if table_patterns(atoms) * (N_CODES if suffix else N_CODES // N_SUFFIXES) > GROUP_CELLS:
        return False
    k = third_class_count(atoms)
    if _first_four_classes(atoms) * (N_SUFFIXES if suffix else 1) * k * k > EXACT_WORK:
        return False
    if not any(atom.derived for atom in atoms):  # no poker value: the classes above are all the work there is
        return True
    outcomes = "codes" if suffix else "prefixes"
    return cheap(reach_cost(atoms, outcomes).plus(exact_cost(atoms, outcomes)))


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


_kinds = card_kinds  # what the tableau, the atoms and their poker values read of each card id (the cost model's)


def _pooled_shoe(atoms, outcomes: str, shoe: np.ndarray) -> np.ndarray:
    """The shoe with the card ids that nothing counted tells apart pooled on one id of each kind (:func:`_kinds`).

    Where every code is counted, the pairs and first cards compare ids: no two ids are pooled.
    """
    counts = np.asarray(shoe, np.int64).reshape(-1)
    kinds = _kinds(atoms, outcomes, "ids")
    first = np.unique(kinds, return_index=True)[1]
    pooled = np.zeros(N_CARD_IDS, np.int64)
    np.add.at(pooled, first[kinds], counts)
    return pooled


def _reach_shoe(atoms, outcomes: str) -> np.ndarray:
    """Six cards of one id of every kind, of two where every code is counted: the shoe :func:`group_reach` deals.

    It deals the same cells as the universal shoe (six cards of every id).
    Each of its sequences is one of the universal shoe's; and a sequence of
    the universal shoe has a twin here that every atom, poker value and the
    tableau read the same, card by card, as they read only kinds
    (:func:`_kinds`). Where every code is counted, the twin also keeps the
    outcome code's suffix: it reads the cards' ranks (in the kind) and
    whether P1 is P2, B1 is B2 and P1 is B1 (the same id). Those three
    comparisons form a chain, P2 - P1 - B1 - B2, so two ids of each kind are
    enough to keep them all: P1 takes the kind's first id; each next card of
    the chain takes the id of its neighbour where the two were one card, the
    kind's other id where they were two cards of one kind, and its kind's
    first id otherwise (the third cards take their kind's first id). A poker
    value that reads suits makes every id a kind of its own, so that the twin
    is the sequence itself.
    """
    kinds = _kinds(atoms, outcomes, "ranks")
    per_kind = 2 if outcomes == "codes" else 1
    shoe = np.zeros(N_CARD_IDS, np.int64)
    for kind in np.unique(kinds):
        shoe[np.flatnonzero(kinds == kind)[:per_kind]] = CARDS_PER_ROUND
    return shoe.reshape(13, 4)


#: The shoe the rank-wise count finds the cells that can happen on: any shoe with at least six cards of every id
#: deals every sequence of six cards there is, as the universal shoe does; 8 decks are priced most often, and
#: their exact count then serves both (:func:`_remembered_rankwise`).
_REACH_SHOE = np.full((13, 4), 8, np.int64)


def by_card(atoms, outcomes: str) -> bool:
    """Whether a group is counted by card (its by-card tables are small), not by rank (:func:`counted_by_rank`)."""
    return not counted_by_rank(tuple(atoms))


@functools.lru_cache(maxsize=4)
def _remembered_rankwise(atoms: tuple, shoe: bytes, outcomes: str) -> tuple[np.ndarray, np.ndarray]:
    """The rank-wise count of the last few groups and shoes (a rule set's reach, then its 8-deck pricing)."""
    bits, weights = rankwise_weights(atoms, np.frombuffer(shoe, np.int64).reshape(13, 4), outcomes)
    bits.setflags(write=False)
    weights.setflags(write=False)
    return bits, weights


def _by_rank(atoms, shoe: np.ndarray, outcomes: str, lanes: int | None) -> tuple[np.ndarray, list]:
    """The rank-wise count as :func:`group_weights` gives its weights: one set whose local ids are the rows."""
    if lanes is None:
        bits, weights = _remembered_rankwise(tuple(atoms), np.asarray(shoe, np.int64).reshape(13, 4).tobytes(),
                                             outcomes)
    else:
        bits, weights = rankwise_weights(tuple(atoms), shoe, outcomes, lanes)
    return weights, [bits]


def group_weights(atoms, shoe: np.ndarray, outcomes: str, lanes: int | None = None, count: str = "auto"
                  ) -> tuple[np.ndarray, list]:
    """Exact weights of one group's atoms: by combination of local ids and by outcome, and each set's bits.

    Counted by card where the by-card tables are small (:func:`by_card`), else by rank, the suits of the positions
    the atoms read counted, not enumerated (:func:`baccarat_sim.engines.rankwise.rankwise_weights`: its rows are
    one set's local ids); both give the same integers. ``count`` (``"card"``, ``"rank"``) forces one.

    Returns
    -------
    (ndarray(int64, shape=(n_combinations, n_outcomes)), list of ndarray(uint64))
        The weights (they total ``N (N-1) ... (N-5)`` for a shoe of ``N`` cards) and, for each set of the
        enumeration, the atom bits of each local id (:func:`baccarat_sim.model.detail_tables.exact_tables`).

    Raises
    ------
    ValueError
        When the atoms tell apart more than the enumeration holds, or the cost model puts the work beyond the
        limits (before anything is allocated).
    """
    if count == "rank" or (count == "auto" and not by_card(atoms, outcomes)):
        return _by_rank(atoms, shoe, outcomes, lanes)
    lanes = max(1, numba.get_num_threads() if lanes is None else lanes)
    advice = "run it by Monte Carlo, or split its conditions into simpler bets"
    # The builder's tables by the cost model's prediction, then the enumeration's arrays by the tables' real sizes.
    why = refused("building its card-level tables", builder_cost(tuple(atoms), outcomes), advice)
    if why:
        raise ValueError(why)
    tables = exact_tables(atoms, _pooled_shoe(atoms, outcomes, shoe), outcomes)
    why = refused("pricing its card-level conditions exactly",
                  enumeration_cost(atoms, outcomes, tables["n_states"], tables["n_combinations"], lanes), advice)
    if why:
        raise ValueError(why)
    out = np.zeros((lanes, tables["n_combinations"], tables["n_outcomes"]), np.int64)
    args = [tables[name] for name in ("counts", "points", "ids", "n_ids", "tclass", "t_total", "t_point", "first4",
                                      "d_over", "d_rank_only", "d_keys", "d_key_offset", "d_key_count", "d_stride",
                                      "reduced", "reduced_offset", "radix", "third", "rt", "rt_offset", "rt_width",
                                      "n_states", "rows")]
    for start in range(0, 100, PAIRS_PER_CALL):  # short calls: a stop signal acts between them
        exact_detail_counts(*args, np.arange(start, min(start + PAIRS_PER_CALL, 100), dtype=np.int64), out)
    return out.sum(axis=0), tables["distinct"]


def group_reach(atoms, outcomes: str, count: str = "auto") -> tuple[np.ndarray, list]:
    """Which cells of one group's atoms can happen: by combination of local ids and by outcome, and each set's bits.

    The cells of :func:`group_weights` that have a positive weight on the universal shoe (six cards of every id),
    found without counting them by card (:func:`~baccarat_sim.kernels.exact_detail.exact_detail_reach`), or the
    cells of positive weight of the rank-wise count on 8 decks (at least six cards of every id: the same cells).

    Returns
    -------
    (ndarray(bool, shape=(n_combinations, n_outcomes)), list of ndarray(uint64))
    """
    if count == "rank" or (count == "auto" and not by_card(atoms, outcomes)):
        weights, distinct = _by_rank(atoms, _REACH_SHOE, outcomes, None)
        return weights > 0, distinct
    tables = exact_tables(atoms, _reach_shoe(atoms, outcomes), outcomes)
    out = np.zeros((tables["n_combinations"], tables["n_outcomes"]), np.bool_)
    held = np.flatnonzero(tables["t_total"] > 0)
    # A third card matters through its point value and the index it gives each set, as the Player's or the Banker's
    # third card: one class of each kind is tried.
    player, banker = tables["third"][:, 0, held].T, tables["third"][:, 1, held].T
    point = tables["t_point"][held, None]
    fifth = held[np.unique(np.hstack([point, player, banker]), axis=0, return_index=True)[1]]
    sixth = held[np.unique(np.hstack([point, banker]), axis=0, return_index=True)[1]]
    args = [tables["counts"], tables["ids"], tables["n_ids"], tables["t_point"], np.sort(fifth), np.sort(sixth)]
    args += [tables[name] for name in ("first4", "d_over", "d_rank_only", "d_keys", "d_key_offset", "d_key_count",
                                       "d_stride", "reduced", "reduced_offset", "radix", "third", "rt", "rt_offset",
                                       "rt_width", "n_states")]
    for start in range(0, 100, PAIRS_PER_CALL):  # short calls: a stop signal acts between them
        exact_detail_reach(*args, np.arange(start, min(start + PAIRS_PER_CALL, 100), dtype=np.int64), out)
    return out, tables["distinct"]


def _combination_bits(distinct: list) -> np.ndarray:
    """The atom bits of every combination of local ids (the first set's id varies fastest)."""
    bits = np.zeros(1, np.uint64)
    for values in distinct:
        bits = (values[:, None] | bits[None, :]).reshape(-1)
    return bits


def weights_by_bits(atoms, shoe: np.ndarray, outcomes: str) -> tuple[np.ndarray, np.ndarray]:
    """Exact weights of one group's atoms (:func:`group_weights`) as rows of atom bits: ``(uint64[n], int64[n, o])``.

    The rows' bits may repeat (the by-card count's combinations); their weights then add.
    """
    weights, distinct = group_weights(tuple(atoms), shoe, outcomes)
    return _combination_bits(distinct), weights


def exact_detail_weights(atoms, shoe: np.ndarray, lanes: int | None = None) -> np.ndarray:
    """Exact weights by atom bits and outcome code: ``int64[2**n_atoms, N_CODES]`` (a few atoms, for tests)."""
    weights, distinct = group_weights(tuple(atoms), shoe, "codes", lanes)
    by_bits = np.zeros((1 << len(atoms), N_CODES), np.int64)
    np.add.at(by_bits, _combination_bits(distinct).astype(np.int64), weights)
    return by_bits


@functools.lru_cache(maxsize=256)
def detail_of_group(atoms: tuple, outcomes: str = "codes") -> CardDetail:
    """One group's card detail: which combinations of its atoms' values, with which outcomes, can happen.

    Worked out exactly on a shoe with six cards of every id, which deals every
    sequence of six cards there is (:func:`group_reach`), where the cost model
    says it is cheap (:func:`reach_is_cheap`); otherwise every combination the
    Monte Carlo tables form, with every outcome (:func:`_tables_detail`).

    Raises
    ------
    ValueError
        When the group has more than :data:`MAX_CELLS` cells or :data:`MAX_GROUP_ATOMS` atoms, or more than the
        enumeration holds (before anything large is allocated).
    """
    if len(atoms) > MAX_GROUP_ATOMS:
        raise ValueError(f"their card-level conditions have {len(atoms)} card-only parts, more than the "
                         f"{MAX_GROUP_ATOMS} one group holds; split the bet into simpler ones")
    table_bits = _table_bits(tuple(atoms), outcomes)  # the Monte Carlo tables' limits, whichever way is taken
    if not reach_is_cheap(atoms, outcomes):  # by card or by rank: a Monte Carlo run never waits on a costly reach
        return _tables_detail(tuple(atoms), outcomes, table_bits)
    reachable, distinct = group_reach(atoms, outcomes)
    by_combination = reachable.any(axis=1)
    bits = _combination_bits(distinct)
    keys = np.unique(bits[by_combination])
    n_outcomes = reachable.shape[1]
    _check_cells(len(keys), n_outcomes)
    patterns = ((keys[:, None] >> np.arange(len(atoms), dtype=np.uint64)) & np.uint64(1)).astype(bool)
    possible = np.zeros((len(keys), n_outcomes), bool)
    index = np.searchsorted(keys, bits)
    for combination in np.flatnonzero(by_combination):
        possible[index[combination]] |= reachable[combination]
    for array in (patterns, possible):
        array.setflags(write=False)
    return CardDetail(tuple(atoms), patterns, possible.reshape(-1), outcomes)


def _check_cells(n_details: int, n_outcomes: int) -> None:
    if n_details * n_outcomes > MAX_CELLS:
        raise ValueError(f"their card-level conditions can hold in {n_details:,} combinations, "
                         f"{n_details * n_outcomes:,} cells with the outcomes, more than the {MAX_CELLS:,} a group "
                         "carries; split the bet into simpler ones")


def _table_bits(atoms: tuple, outcomes: str) -> list[np.ndarray]:
    """The distinct atom bits of each Monte Carlo table of a group, its packing checked against the limits first.

    Raises
    ------
    ValueError
        When packing the tables is predicted beyond the memory limit, or their local ids make more than
        :data:`~baccarat_sim.model.detail_tables.MAX_COMBINATIONS` combinations (the packer's limit, found here
        before a run deals).
    """
    why = refused("packing its card-level conditions for Monte Carlo", kernel_cost(atoms, outcomes),
                  "split its conditions into simpler bets")
    if why:
        raise ValueError(why)
    bit_of = {atom.text: i for i, atom in enumerate(atoms)}
    distinct, combinations = [], 1
    for members in _split(list(atoms), table_cells, TABLE_CELLS):
        derived = {d.text(): 0 for atom in members for d in atom.derived}
        values = np.unique(_mc_table(members, [bit_of[a.text] for a in members], derived)[2])
        distinct.append(values)
        combinations *= len(values)
        if combinations > MAX_COMBINATIONS:
            raise ValueError(f"their card-level conditions make more than {MAX_COMBINATIONS:,} combinations of "
                             "lookups, the limit; split them into simpler bets")
    return distinct


def _tables_detail(atoms: tuple, outcomes: str, distinct: list[np.ndarray]) -> CardDetail:
    """A group's details from its Monte Carlo tables alone: every combination of atom values they can form.

    More combinations than can happen, perhaps, each with every outcome
    (``reach="tables"``); built in the Monte Carlo tables' time (their cells are
    few), never the exact enumeration's. The cells that cannot happen stay
    empty in every histogram. ``distinct``: each table's atom bits (:func:`_table_bits`).
    """
    keys = np.unique(_combination_bits(distinct))
    n_outcomes = OUTCOMES[outcomes]
    _check_cells(len(keys), n_outcomes)
    patterns = ((keys[:, None] >> np.arange(len(atoms), dtype=np.uint64)) & np.uint64(1)).astype(bool)
    possible = np.ones(len(keys) * n_outcomes, bool)
    for array in (patterns, possible):
        array.setflags(write=False)
    return CardDetail(tuple(atoms), patterns, possible, outcomes, reach="tables")


def detail_of_atoms(atoms: tuple) -> CardDetail:
    """The joint card detail of some atoms, counted with every outcome code (one group)."""
    return detail_of_group(tuple(atoms), "codes")


class GroupError(InputError):
    """A group of card-level conditions the exact enumeration refuses, before its work: one line naming them.

    ``texts``: the group's atoms; :meth:`naming` names the bets that read them instead, where the rule set is at
    hand.
    """

    def __init__(self, texts: tuple, reason: str):
        self.texts, self.reason = tuple(texts), reason
        shown = ", ".join(repr(text) for text in self.texts[:2]) + (", ..." if len(self.texts) > 2 else "")
        super().__init__("", f"card-level conditions {shown}: {reason}")

    def __reduce__(self):
        return (type(self), (self.texts, self.reason))

    def naming(self, rules: Rules) -> InvalidRules:
        """The refusal as one line naming the rule file and the bets that read the group."""
        return InvalidRules("", f"{rules.path}: {bet_keys(rules.bets, self.texts)}: {self.reason}")


def group_counts(group: CardDetail, shoe: np.ndarray) -> np.ndarray:
    """Exact weights of every cell of one group (``detail * n_outcomes + outcome``) from a freshly shuffled shoe.

    Raises
    ------
    GroupError
        Where the enumeration refuses the group (a limit, or the cost model's prediction).
    """
    try:
        weights, distinct = group_weights(group.atoms, shoe, group.outcomes)
    except ValueError as error:
        raise GroupError(group.texts, str(error)) from None
    details = group.details_of_bits(_combination_bits(distinct))
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
    atoms = {atom.text: atom for bet in rules.bets for atom in bet.atoms}
    details = []
    for g, (outcomes, texts) in enumerate(groups):
        try:
            details.append(detail_of_group(tuple(atoms[text] for text in texts), outcomes))
        except ValueError as error:
            raise InvalidRules("", f"{rules.path}: {bet_keys(rules.bets, texts)}: {error}") from None
        if progress is not None:
            progress(g + 1, len(groups))
    detail = FactoredDetail(tuple(details))
    for bet in rules.bets:
        if bet.card_level:
            bet.check_detail(detail.groups[detail.group_holding(a.text for a in bet.atoms)], rules)
    return detail


def check_on_weights(rules: Rules, hist) -> None:
    """The pay-table checks the Monte Carlo tables' cells could not make, on the cells an exact histogram weighs.

    A group whose card detail comes from the Monte Carlo tables (``reach == "tables"``) had its lines checked
    only for lines that can never happen; its cells of positive exact weight certainly happen, so two lines that
    both hold on one of them overlap, and a cell no line covers is a gap (without ``otherwise``).

    Raises
    ------
    InvalidRules
        Naming the file, the bet and the line at fault.
    """
    detail = hist.detail
    groups = () if detail is None else detail.groups if isinstance(detail, FactoredDetail) else (detail,)
    for g, group in enumerate(groups):
        if group.reach != "tables":
            continue
        start = detail.offset(g) if isinstance(detail, FactoredDetail) else 0
        weighed = np.asarray(hist.counts[start:start + group.n_cells]) > 0
        dealt = dataclasses.replace(group, possible=weighed, reach="dealt")
        for bet in rules.bets:
            if bet.card_level and {atom.text for atom in bet.atoms} <= set(group.texts):
                bet.check_detail(dealt, rules)


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
        # The rule file's keys of the bets, as every other refusal of a bet names it (bets.ID).
        together = " together" if sum(bet.card_level for bet in bets) > 1 else ""
        raise InvalidRules("", f"{rules.path}: {bet_keys(bets, [atom.text for atom in atoms])}{together}: "
                               f"{error}") from None
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
