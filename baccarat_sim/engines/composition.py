"""Exact EV of every bet for any remaining shoe, fast enough to call every round.

The full-code exact engine (:func:`baccarat_sim.engines.exact.exact_histogram`) takes
milliseconds per shoe; card counting and "perfect play" need the exact EV
after every round. :class:`FastSolver` sorts a rule set's bets by what their
pay tables read (see :mod:`baccarat_sim.kernels.composition`):

``value``
    Only final scores and card counts (Player, Banker, Tie, naturals, bonus,
    Lucky 6, ...): an integer linear form in 5005 falling-factorial monomials
    of the ten point-value counts.
``pairs``
    Only the Player's and the Banker's pair status (pairs, any pair, perfect
    pairs): a closed form in the rank and rank-suit counts.
``first_card``
    Only the comparison of the two first cards (Dragon/Tiger): a closed form.
``first_four``, ``card``
    Card-level bets (suits, colours, ranks, poker values): a closed form where
    the conditions read only classes of the first four cards and no outcome
    (Colour Match), else the exact card-detail enumeration of the bet's group
    on the shoe, its tables built once (:class:`baccarat_sim.engines.card_solver.CardSolver`).
``general``
    Anything else (a pay table mixing scores with pairs, ...), and a pay table
    whose nets, in integer units, would not fit the fast path's 64-bit rows
    (payouts with dozens of digits): settled on the full exact histogram, exact
    but at the full engine's speed.

Every result is exact: :meth:`FastSolver.ev` returns Fractions equal to
:func:`baccarat_sim.analysis.settlement.settle` on the exact histogram of the same shoe.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import numpy as np

from ..kernels.composition import (
    N_BASES,
    N_MONOMIALS,
    first_card_weights,
    pair_weights,
    solve_packed,
    value_coefficients,
    value_dot,
)
from ..model.codes import N_CODES, N_PREFIXES, N_SUFFIXES
from ..model.rules import Rules
from ..model.shoe import as_shoe
from .card_solver import CardSolver
from .exact import exact_histogram

__all__ = [
    "FastSolver",
    "first_card_histogram",
    "pair_histogram",
    "value_counts",
    "value_histogram",
]

def value_counts(shoe) -> np.ndarray:
    """Cards per point value of a (13, 4) shoe, ``ndarray(int64, shape=(10,))``."""
    per_rank = np.asarray(shoe, np.int64).sum(axis=1)
    counts = np.empty(10, np.int64)
    counts[1:] = per_rank[:9]  # Ace..9 are worth 1..9
    counts[0] = per_rank[9:].sum()  # 10, J, Q, K are worth 0
    return counts


@functools.lru_cache(maxsize=1)
def _coefficients() -> np.ndarray:
    """``A[base, m]``: value sequences of multiset ``m`` ending in ``base`` (computed once)."""
    table = np.zeros((N_BASES, N_MONOMIALS), np.int64)
    value_coefficients(table)
    table.setflags(write=False)
    return table


def _falling(n: int, k: int) -> int:
    return math.perm(n, k) if 0 <= k <= n else 0


def value_histogram(shoe) -> np.ndarray:
    """Exact weights of the 400 point-value outcomes (scores and card counts).

    Parameters
    ----------
    shoe : int or ndarray(int64, shape=(13, 4))

    Returns
    -------
    ndarray(int64, shape=(400,))
        ``out[((ps * 10 + bs) * 2 + pc) * 2 + bc]``: ordered six-card draws, the
        same weights as the exact engine's histogram summed over pairs and first
        cards (they total ``N (N-1) ... (N-5)``).

    Examples
    --------
    >>> import math
    >>> int(value_histogram(8).sum()) == math.perm(416, 6)
    True
    """
    out = np.zeros(_coefficients().shape[0], np.int64)
    value_dot(value_counts(as_shoe(shoe)), _coefficients(), out)
    return out


def pair_histogram(shoe) -> np.ndarray:
    """Ordered four-card draws by (Player pair, Banker pair) status.

    Returns
    -------
    ndarray(int64, shape=(3, 3))
        Status 0 no pair, 1 pair of unequal suits, 2 suited pair; the weights
        total ``N (N-1) (N-2) (N-3)``.
    """
    out = np.zeros((3, 3), np.int64)
    pair_weights(as_shoe(shoe), out)
    return out


def first_card_histogram(shoe) -> np.ndarray:
    """Ordered (Player, Banker) first cards: Player higher, Banker higher, tie, suited tie.

    Returns
    -------
    ndarray(int64, shape=(4,))
        Totals ``N (N-1)``.
    """
    out = np.zeros(4, np.int64)
    first_card_weights(as_shoe(shoe), out)
    return out


def _lcm_of_denominators(values) -> int:
    scale = 1
    for value in values:
        scale = math.lcm(scale, Fraction(value).denominator)
    return scale


class _Packed:
    """A bet's pay table in the shape its kind is solved on."""

    def __init__(self, bet_id: str, kind: str, table: np.ndarray):
        self.id = bet_id
        self.kind = kind
        self.table = table  # object array of Fractions: (400,), (3, 3), (4,) or (N_CODES,)
        self.values = tuple(sorted(set(table.ravel())))
        self.scale = _lcm_of_denominators(self.values)

    def scaled(self) -> np.ndarray:
        """The pay table in integer units of ``1 / scale`` (int64, same shape)."""
        return np.array([int(v * self.scale) for v in self.table.ravel()], np.int64).reshape(self.table.shape)


#: Largest integer a packed row may hold (int64).
_ROW_LIMIT = 2**63 - 1
#: A value bet's packed row sums up to 6! = 720 of its scaled nets per monomial (the orderings of a multiset).
_VALUE_TERMS = math.factorial(6)


def _packs(packed: _Packed) -> bool:
    """Whether a pay table's rows fit in int64, so that :func:`solve_packed` is exact for every shoe.

    The kernel sums each row against non-negative weights on 128 bits when it
    must: any int64 row is then exact (see its notes).
    """
    largest = max(abs(value) for value in packed.values) * packed.scale  # a whole number
    return int(largest) * (_VALUE_TERMS if packed.kind == "value" else 1) <= _ROW_LIMIT


def _classify(bet, rules: Rules) -> _Packed:
    """Which of the four kinds a bet's pay table is, and its table in that kind's space."""
    case_nets = bet.case_nets(rules.commission.rate)
    case_index = bet.case_index()
    nets = np.array(case_nets, dtype=object)[case_index].reshape(N_PREFIXES, N_SUFFIXES)
    # Which nets are equal, read off the few cases: each code's net as the number of its distinct value (comparing
    # the 14,400 codes' Fractions one by one took most of a solver's set-up).
    distinct = list(dict.fromkeys(case_nets))
    same = np.array([distinct.index(net) for net in case_nets])[case_index].reshape(N_PREFIXES, N_SUFFIXES)
    packed = None
    if (same == same[:, :1]).all():
        packed = _Packed(bet.id, "value", nets[:, 0].copy())
    elif (same == same[:1, :]).all():
        tail = same[0].reshape(3, 3, 4)
        if (tail == tail[:, :, :1]).all():
            packed = _Packed(bet.id, "pairs", nets[0].reshape(3, 3, 4)[:, :, 0].copy())
        elif (tail == tail[:1, :1, :]).all():
            packed = _Packed(bet.id, "first_card", nets[0].reshape(3, 3, 4)[0, 0, :].copy())
    if packed is not None and _packs(packed):
        return packed
    return _Packed(bet.id, "general", nets.reshape(N_CODES).copy())


class FastSolver:
    """Exact EV of a rule set's bets for any shoe composition.

    Parameters
    ----------
    rules : Rules
        The rule set whose pay tables are solved.
    bets : iterable of str or None
        Bet ids to solve (default: all, in the rule set's order).

    Examples
    --------
    >>> from baccarat_sim import load_rules
    >>> solver = FastSolver(load_rules("default"))
    >>> solver.kinds["banker"]
    'value'
    >>> ev = solver.ev(8)
    >>> float(ev["banker"])  # doctest: +ELLIPSIS
    -0.01057...
    """

    def __init__(self, rules: Rules, bets=None):
        self.rules = rules
        ids = tuple(rules.bet_ids if bets is None else bets)
        self.bet_ids = ids
        cards = tuple(bet_id for bet_id in ids if rules.bet(bet_id).card_level)
        #: The card-level bets' solver (None: none of the bets reads cards).
        self.cards = CardSolver(rules, cards) if cards else None
        self._packed = [_classify(rules.bet(bet_id), rules) for bet_id in ids if bet_id not in cards]
        self._class_rows = {}
        self._arrays = None

    @property
    def kinds(self) -> dict[str, str]:
        """Bet id to kind: ``value``, ``pairs``, ``first_card``, ``first_four``, ``card`` or ``general``."""
        kinds = {p.id: p.kind for p in self._packed}
        if self.cards is not None:
            kinds.update(self.cards.kinds)
        return {bet_id: kinds[bet_id] for bet_id in self.bet_ids}

    def scale(self, bet_id: str) -> int:
        """The integer scale of a bet's packed pay table (lcm of its nets' denominators)."""
        return next(p.scale for p in self._packed if p.id == bet_id)

    # -- exact (Fractions)

    def _value_class_rows(self, packed: _Packed) -> tuple[np.ndarray, tuple]:
        """Coefficient rows of a value bet's net classes (all but the last one)."""
        if packed.id not in self._class_rows:
            coefficients = _coefficients()
            classes = packed.values
            rows = np.stack([coefficients[packed.table == value].sum(axis=0) for value in classes[:-1]]) \
                if len(classes) > 1 else np.zeros((0, coefficients.shape[1]), np.int64)
            self._class_rows[packed.id] = (np.ascontiguousarray(rows, dtype=np.int64), classes)
        return self._class_rows[packed.id]

    def weights(self, shoe) -> dict[str, dict[Fraction, int]]:
        """Exact weight of each net result of each bet (ordered draws of the cards the kind reads)."""
        composition = as_shoe(shoe)
        counts = value_counts(composition)
        n_cards = int(composition.sum())
        result = {}
        pairs = first = None
        for packed in self._packed:
            if packed.kind == "value":
                rows, classes = self._value_class_rows(packed)
                out = np.zeros(len(rows), np.int64)
                value_dot(counts, rows, out)
                weights = [int(w) for w in out]
                weights.append(_falling(n_cards, 6) - sum(weights))  # every class partitions the draws
                result[packed.id] = dict(zip(classes, weights))
                continue
            if packed.kind == "pairs":
                pairs = pair_histogram(composition) if pairs is None else pairs
                grid = pairs
            elif packed.kind == "first_card":
                first = first_card_histogram(composition) if first is None else first
                grid = first
            else:
                grid = exact_histogram(composition).counts
            totals: dict[Fraction, int] = {}
            for value, weight in zip(packed.table.ravel(), grid.ravel()):
                totals[value] = totals.get(value, 0) + int(weight)
            result[packed.id] = totals
        if self.cards is not None:
            result.update(self.cards.weights(composition))
        return {bet_id: result[bet_id] for bet_id in self.bet_ids}

    def ev(self, shoe) -> dict[str, Fraction]:
        """Exact EV per unit staked of every bet, as Fractions."""
        out = {}
        for bet_id, weights in self.weights(shoe).items():
            total = sum(weights.values())
            out[bet_id] = sum((value * w for value, w in weights.items()), Fraction(0)) / total
        return out

    # -- fast path (numba, floats with exact signs)

    def packed_arrays(self) -> dict[str, np.ndarray]:
        """The pay tables packed for :func:`baccarat_sim.kernels.composition.solve_packed`.

        Returns
        -------
        dict of str to ndarray(int64)
            ``v_rows (k, 5005)``, ``v_scale``, ``v_max`` (float64), ``v_bet``, ``p_rows (k, 9)``,
            ``p_scale``, ``p_bet``, ``f_rows (k, 4)``, ``f_scale``, ``f_bet``;
            ``*_bet`` index into :attr:`bet_ids`. ``general`` and card-level bets are not packed.
        """
        if self._arrays is None:
            groups = {"v": [], "p": [], "f": []}
            v_max = []
            for packed in self._packed:
                index = self.bet_ids.index(packed.id)
                if packed.kind == "value":
                    row = packed.scaled() @ _coefficients()  # exact: |entries| <= 720 * max net (_packs)
                    groups["v"].append((row, packed.scale, index))
                    v_max.append(float(max(abs(v) for v in packed.scaled().ravel())))
                elif packed.kind == "pairs":
                    groups["p"].append((packed.scaled().ravel(), packed.scale, index))
                elif packed.kind == "first_card":
                    groups["f"].append((packed.scaled().ravel(), packed.scale, index))
            width = {"v": _coefficients().shape[1], "p": 9, "f": 4}
            arrays = {}
            for key, items in groups.items():
                arrays[f"{key}_rows"] = np.ascontiguousarray(
                    np.stack([row for row, _, _ in items]) if items else np.zeros((0, width[key]), np.int64),
                    dtype=np.int64)
                arrays[f"{key}_scale"] = np.array([s for _, s, _ in items], np.int64)
                arrays[f"{key}_bet"] = np.array([i for _, _, i in items], np.int64)
            arrays["v_max"] = np.array(v_max, np.float64)
            for array in arrays.values():
                array.setflags(write=False)
            self._arrays = arrays
        return self._arrays

    @property
    def general(self) -> tuple[str, ...]:
        """Ids of the bets solved on the full exact histogram (no fast path)."""
        return tuple(p.id for p in self._packed if p.kind == "general")

    def ev_array(self, shoe) -> tuple[np.ndarray, np.ndarray]:
        """EV (float64) and its exact sign (int64) for every bet, in :attr:`bet_ids` order.

        One numba call for all ``value``/``pairs``/``first_card`` bets, one for the card-level bets
        (:meth:`CardSolver.ev_array`); ``general`` bets fall back to the full exact engine.
        """
        composition = as_shoe(shoe)
        a = self.packed_arrays()
        ev = np.zeros(len(self.bet_ids))
        sign = np.zeros(len(self.bet_ids), np.int64)
        solve_packed(composition, value_counts(composition), a["v_rows"], a["v_scale"], a["v_max"], a["v_bet"],
                     a["p_rows"], a["p_scale"], a["p_bet"], a["f_rows"], a["f_scale"], a["f_bet"], ev, sign)
        if self.general:
            exact = FastSolver(self.rules, self.general).ev(composition)
            for bet_id, value in exact.items():
                i = self.bet_ids.index(bet_id)
                ev[i] = float(value)
                sign[i] = (value > 0) - (value < 0)
        if self.cards is not None:
            where = [self.bet_ids.index(bet_id) for bet_id in self.cards.bet_ids]
            ev[where], sign[where] = self.cards.ev_array(composition)
        return ev, sign
