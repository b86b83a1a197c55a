"""Card-level bets priced exactly on any shoe, every round: the tables built once, only the counting per shoe.

:class:`CardSolver` sorts card-level bets by what they read (the kernels are
:mod:`baccarat_sim.kernels.card_solver`):

``first_four``
    The bet's conditions read only classes of the first four cards (a
    colour, a suit, a rank of P1, B1, P2, B2) and no outcome: a closed form,
    an integer linear form in the falling-factorial monomials of the cards
    left per joint class (Colour Match: two classes, five monomials).
``card``
    Any other card-level bet: its group of atoms
    (:func:`baccarat_sim.engines.detail.plan_groups`) counted by the exact
    card-detail enumeration by card, on the cards left, with its layout
    (:func:`baccarat_sim.model.detail_tables.exact_tables`), reach and nets
    built once. Its cost per shoe is the cost model's
    (:func:`baccarat_sim.model.cost.round_pricing_cost`), and a layout the
    model puts beyond the limits is refused before it is built.

Both are exact: :meth:`CardSolver.weights` gives the weight of every net
result as integers, equal to the exact engine's histogram settled
(:func:`baccarat_sim.analysis.settlement.settle_bet`) on the same shoe.
"""

from __future__ import annotations

import functools
import itertools
import math
from fractions import Fraction

import numpy as np

from ..kernels.card_solver import FirstFourTables, GroupTables, group_counts, solve_cards
from ..model.cards import N_CARD_IDS
from ..model.condition_tree import outcome_leaves
from ..model.cost import Cost, builder_cost, card_kinds, counted_by_rank, round_pricing_cost
from ..model.detail import CardDetail
from ..model.detail_tables import exact_tables
from ..model.rules import Bet, Rules
from ..model.shoe import as_shoe
from .budget import refused
from .detail import _combination_bits, detail_of_group, plan_groups

__all__ = ["FIRST_FOUR_POSITIONS", "MAX_FIRST_FOUR_CLASSES", "CardSolver", "no_card_pricing"]

#: Largest scaled net a kernel row holds: its sums of products are exact on 128 bits (:mod:`baccarat_sim.kernels.wide`).
_ROW_LIMIT = 2**62
#: The positions a ``first_four`` bet may read.
FIRST_FOUR_POSITIONS = ("P1", "B1", "P2", "B2")
#: Most joint classes of a ``first_four`` bet: ``C(K + 3, 4)`` monomials, at most 4,845 (fewer than the 5,005 of
#: the value bets); a bet that tells more cards apart is priced by its group.
MAX_FIRST_FOUR_CLASSES = 17


def _reads_outcome(bet: Bet) -> bool:
    return any(outcome_leaves(case.condition.tree) for case in (*bet.cases, bet.otherwise))


def _nets(bet: Bet, rate: Fraction, detail: CardDetail) -> np.ndarray:
    """The bet's net on each cell of ``detail`` (object array of Fractions)."""
    return np.array(bet.case_nets(rate), dtype=object)[bet.case_index(detail)]


def _scale(values) -> int:
    scale = 1
    for value in values:
        scale = math.lcm(scale, Fraction(value).denominator)
    return scale


class _FirstFour:
    """A ``first_four`` bet's closed form: its classes, monomials and their coefficients."""

    def __init__(self, card_class: np.ndarray, multisets: np.ndarray, nets_by_multiset: list[dict]):
        self.card_class = card_class  # (52,): the joint class of every card id
        self.multisets = multisets  # (n_monomials, 4): each monomial's classes, ascending
        self.nets_by_multiset = nets_by_multiset  # per monomial: net -> class sequences of that multiset
        self.scale = _scale(net for nets in nets_by_multiset for net in nets)
        self.row = np.array([sum(int(net * self.scale) * n for net, n in nets.items())
                             for nets in nets_by_multiset], np.int64)

    def weights(self, shoe: np.ndarray) -> dict[Fraction, int]:
        """Ordered draws of the first four cards by the bet's net (Python integers, exact)."""
        counts = np.bincount(self.card_class, weights=shoe.reshape(-1), minlength=self.multisets.max() + 1)
        counts = [int(c) for c in counts]
        totals: dict[Fraction, int] = {}
        for classes, nets in zip(self.multisets.tolist(), self.nets_by_multiset):
            ways = 1
            for i, c in enumerate(classes):
                ways *= max(counts[c] - classes[:i].count(c), 0)
            for net, n in nets.items():
                if ways:
                    totals[net] = totals.get(net, 0) + ways * n
        return totals


def _first_four(bet: Bet, rate: Fraction) -> _FirstFour | None:
    """The closed form of a bet that reads only classes of the first four cards and no outcome; None otherwise."""
    atoms = bet.atoms
    if (not atoms or _reads_outcome(bet) or any(atom.derived for atom in atoms)
            or any(p not in FIRST_FOUR_POSITIONS for atom in atoms for p in atom.positions)):
        return None
    columns = [atom.projection[j, :N_CARD_IDS] for atom in atoms for j in range(len(atom.positions))]
    representatives, card_class = np.unique(np.stack(columns, axis=1), axis=0, return_index=True,
                                            return_inverse=True)[1:]
    card_class = card_class.ravel().astype(np.int64)
    n_classes = len(representatives)
    if n_classes > MAX_FIRST_FOUR_CLASSES:
        return None
    sequences = np.array(list(itertools.product(range(n_classes), repeat=4)), np.int64)
    cards = representatives[sequences]  # a card of each class at P1, B1, P2, B2
    bits = np.zeros(len(sequences), np.uint64)
    for a, atom in enumerate(atoms):
        index = np.zeros(len(sequences), np.int64)
        for j, (position, stride) in enumerate(zip(atom.positions, atom.strides)):
            index += atom.projection[j][cards[:, FIRST_FOUR_POSITIONS.index(position)]] * stride
        bits |= atom.truth[index].astype(np.uint64) << np.uint64(a)
    keys, by_key = np.unique(bits, return_inverse=True)
    patterns = ((keys[:, None] >> np.arange(len(atoms), dtype=np.uint64)) & np.uint64(1)).astype(bool)
    detail = CardDetail(tuple(atoms), patterns, outcomes="prefixes")
    nets = _nets(bet, rate, detail).reshape(len(keys), -1)[:, 0]  # no outcome read: the same on every prefix
    if max(abs(net) for net in nets) * _scale(nets) * len(sequences) > _ROW_LIMIT:
        return None  # payouts of dozens of digits: the enumeration refuses them in one line
    multisets, by_multiset = np.unique(np.sort(sequences, axis=1), axis=0, return_inverse=True)
    nets_by_multiset: list[dict] = [{} for _ in range(len(multisets))]
    for m, net in zip(by_multiset.ravel().tolist(), nets[by_key.ravel()].tolist()):
        nets_by_multiset[m][net] = nets_by_multiset[m].get(net, 0) + 1
    return _FirstFour(card_class, multisets.astype(np.int64), nets_by_multiset)


def _read_only(array: np.ndarray) -> np.ndarray:
    array = np.ascontiguousarray(array)
    array.setflags(write=False)
    return array


#: What a refusal advises.
_ADVICE = "play it by a count or always"


def _layout_refusal(atoms: tuple, outcomes: str) -> str | None:
    """Why a group's tables are not built (the cost model's prediction); None: they are."""
    if counted_by_rank(atoms):
        return ("pricing its card-level conditions every round needs their tables by card, which the cost model "
                "puts beyond the builder's limit (the exact engine counts them by rank, seconds a shoe); " + _ADVICE)
    return (refused("laying out its card-level conditions for pricing every round", builder_cost(atoms, outcomes),
                    _ADVICE)
            or refused("pricing its card-level conditions every round", round_pricing_cost(atoms, outcomes), _ADVICE))


@functools.lru_cache(maxsize=16)
def _group_layout(atoms: tuple, outcomes: str) -> tuple[dict, np.ndarray, CardDetail]:
    """A group's enumeration tables (less the shoe), each combination's detail, the group's card detail.

    Raises
    ------
    ValueError
        Where the cost model refuses the tables (:func:`_layout_refusal`), before anything is built.
    """
    why = _layout_refusal(atoms, outcomes)
    if why:
        raise ValueError(why)
    kinds = card_kinds(atoms, outcomes, "ids")
    first = np.unique(kinds, return_index=True)[1]
    pooled = first[kinds].astype(np.int64)
    shoe = np.zeros(N_CARD_IDS, np.int64)
    shoe[first] = 1  # the layout does not depend on the shoe: any with a card of every kind
    tables = exact_tables(atoms, shoe.reshape(13, 4), outcomes)
    tables["pooled"] = pooled
    detail = detail_of_group(atoms, outcomes)
    return tables, detail.details_of_bits(_combination_bits(tables["distinct"])), detail


def _first_four_tables(forms: list, where: dict[str, int]) -> FirstFourTables:
    """The closed forms ``forms`` (bet id, :class:`_FirstFour`) as the kernel reads them; none gives empty tables."""
    first = np.cumsum([0, *[len(f.multisets) for _, f in forms]]).astype(np.int64)
    return FirstFourTables(
        _read_only(np.array([f.card_class for _, f in forms], np.int64).reshape(len(forms), N_CARD_IDS)),
        _read_only(first),
        _read_only(np.concatenate([f.multisets for _, f in forms]) if forms else np.zeros((0, 4), np.int64)),
        _read_only(np.concatenate([f.row for _, f in forms]) if forms else np.zeros(0, np.int64)),
        _read_only(np.array([f.scale for _, f in forms], np.int64)),
        _read_only(np.array([where[b] for b, _ in forms], np.int64)))


def no_card_pricing() -> tuple[FirstFourTables, None]:
    """The tables of a counting run that settles card-level bets but prices none of them.

    Empty closed forms rather than None: a run with a card detail then always hands the counting kernel the same
    types, priced bets or not, and numba compiles one variant fewer (the ``compile`` command covers the others).
    """
    return _first_four_tables([], {}), None


class CardSolver:
    """Exact EV of a rule set's card-level bets on any shoe, the tables built once.

    Parameters
    ----------
    rules : Rules
    bets : iterable of str
        Card-level bet ids.
    closed_forms : bool
        Price ``first_four`` bets in closed form (default); False prices every bet by the enumeration (the
        tests compare the two).

    Examples
    --------
    >>> from baccarat_sim import load_rules
    >>> solver = CardSolver(load_rules("catalogue-colour-and-suits"), ["colour_match"])
    >>> solver.kinds["colour_match"]
    'first_four'
    >>> round(float(solver.ev(8)["colour_match"]), 6)
    -0.137635
    """

    def __init__(self, rules: Rules, bets, closed_forms: bool = True):
        self.rules = rules
        self.bet_ids = tuple(bets)
        rate = rules.commission.rate
        self._first_four = {}
        general = []
        for bet_id in self.bet_ids:
            form = _first_four(rules.bet(bet_id), rate) if closed_forms else None
            if form is None:
                general.append(rules.bet(bet_id))
            else:
                self._first_four[bet_id] = form
        #: The group of the bets priced by the enumeration, ``(outcomes, atom texts)``: one group (the kernel of a
        #: counting run takes one), every outcome code counted where one of them reads a pair or the first cards.
        groups = plan_groups(general)
        self.groups = (("codes" if any(o == "codes" for o, _ in groups) else "prefixes",
                        tuple(dict.fromkeys(t for _, texts in groups for t in texts))),) if groups else ()
        self._atoms = {atom.text: atom for bet in general for atom in bet.atoms}
        self._group_of = {bet.id: g for bet in general for g, (_, texts) in enumerate(self.groups)
                          if {a.text for a in bet.atoms} <= set(texts)}

    @property
    def kinds(self) -> dict[str, str]:
        """Bet id to ``first_four`` or ``card``."""
        return {b: "first_four" if b in self._first_four else "card" for b in self.bet_ids}

    def _group_atoms(self, g: int) -> tuple:
        return tuple(self._atoms[text] for text in self.groups[g][1])

    def round_cost(self, bet_ids=None) -> Cost:
        """The predicted cost of pricing ``bet_ids`` (default: all) on one shoe: the closed forms cost nothing.

        Ask :meth:`refusal` first: a group whose tables are refused has no prediction.
        """
        wanted = self.bet_ids if bet_ids is None else tuple(bet_ids)
        if not any(b in self._group_of for b in wanted):
            return Cost(0, 0.0, 0, 0.0)
        return round_pricing_cost(self._group_atoms(0), self.groups[0][0])

    def refusal(self, bet_ids=None) -> str | None:
        """Why the tables pricing ``bet_ids`` (default: all) are refused, by the cost model; None: they are not."""
        wanted = self.bet_ids if bet_ids is None else tuple(bet_ids)
        if not any(b in self._group_of for b in wanted):
            return None
        return _layout_refusal(self._group_atoms(0), self.groups[0][0])

    def _group_tables(self, g: int, where: dict[str, int]) -> GroupTables:
        """Group ``g``'s tables, its bets' EVs written at ``where[bet_id]``."""
        outcomes, _ = self.groups[g]
        atoms = self._group_atoms(g)
        tables, details, detail = _group_layout(atoms, outcomes)
        members = [b for b in self.bet_ids if self._group_of.get(b) == g and b in where]
        n_outcomes = detail.n_outcomes
        net = np.zeros((len(members), len(details), n_outcomes), np.int64)
        scales = []
        for j, bet_id in enumerate(members):
            nets = _nets(self.rules.bet(bet_id), self.rules.commission.rate, detail).reshape(detail.n_details,
                                                                                              n_outcomes)
            distinct = sorted(set(nets.ravel()))
            scale = _scale(distinct)
            if max(abs(v) for v in distinct) * scale > _ROW_LIMIT:
                raise ValueError(f"bets.{bet_id}: its pay table's nets need more than 62 bits in units of 1/{scale}, "
                                 "more than the per-round pricing holds; play it by a count or always")
            scaled = np.array([int(v * scale) for v in nets.ravel()], np.int64).reshape(nets.shape)
            held = details >= 0  # a combination that cannot happen weighs nothing on any shoe
            net[j, held] = scaled[details[held]]
            scales.append(scale)
        fields = {name: _read_only(np.asarray(tables[name], np.int64)) for name in GroupTables._fields
                  if name not in ("n_states", "rows", "net", "scale", "bet")}
        return GroupTables(**fields, n_states=int(tables["n_states"]), rows=int(tables["rows"]),
                           net=_read_only(net), scale=_read_only(np.array(scales, np.int64)),
                           bet=_read_only(np.array([where[b] for b in members], np.int64)))

    def tables(self, where: dict[str, int]) -> tuple[FirstFourTables, GroupTables | None]:
        """The kernel's tables of the bets in ``where`` (bet id to its index in the EV arrays).

        Returns
        -------
        (FirstFourTables, GroupTables or None)
            As :func:`baccarat_sim.kernels.card_solver.solve_cards` reads them: the closed forms (none, possibly),
            and the bets priced by the enumeration (None: no such bet).
        """
        first_four = _first_four_tables([(b, f) for b, f in self._first_four.items() if b in where], where)
        group = self._group_tables(0, where) if any(b in self._group_of for b in where) else None
        return first_four, group

    def weights(self, shoe) -> dict[str, dict[Fraction, int]]:
        """Exact weight of each net result of each bet (ordered draws of the cards its kind reads)."""
        composition = as_shoe(shoe)
        result = {b: form.weights(composition) for b, form in self._first_four.items()}
        for g in sorted(set(self._group_of.values())):
            tables, details, detail = _group_layout(self._group_atoms(g), self.groups[g][0])
            where = {b: 0 for b, h in self._group_of.items() if h == g}
            group = self._group_tables(g, where)
            out = np.zeros((len(details), detail.n_outcomes), np.int64)
            group_counts(group, composition, out)
            for bet_id in where:
                nets = _nets(self.rules.bet(bet_id), self.rules.commission.rate, detail).reshape(
                    detail.n_details, detail.n_outcomes)
                totals: dict[Fraction, int] = {}
                for c, o in zip(*np.nonzero(out)):
                    net = nets[details[c], o]
                    totals[net] = totals.get(net, 0) + int(out[c, o])
                result[bet_id] = totals
        return {b: result[b] for b in self.bet_ids}

    def ev(self, shoe) -> dict[str, Fraction]:
        """Exact EV per unit staked of every bet, as Fractions."""
        return {b: sum((v * w for v, w in weights.items()), Fraction(0)) / sum(weights.values())
                for b, weights in self.weights(shoe).items()}

    def ev_array(self, shoe) -> tuple[np.ndarray, np.ndarray]:
        """EV (float64) and exact sign of every bet, in :attr:`bet_ids` order, through the kernel a run calls."""
        composition = as_shoe(shoe)
        first_four, group = self.tables({b: i for i, b in enumerate(self.bet_ids)})
        n = len(self.bet_ids)
        ev, sign, solved = np.zeros(n), np.zeros(n, np.int64), np.zeros(n, np.bool_)
        solve_cards(first_four, group, composition, np.full(n, -np.inf), ev, sign, solved)
        return ev, sign
