"""Card-level bets under leaked card information: their pay-table lines' weights by observation pattern.

A card-level bet (suits, colours, ranks of given cards, poker values) is
settled on its group's card detail (:mod:`baccarat_sim.model.detail`) beside
the outcome. Its weights by observation pattern come from the exact
card-detail count itself (:func:`baccarat_sim.engines.detail.group_weights`,
by card or by rank, whichever the cost model picks), the observation joined to
the group as extra atoms:

* a card seen at ``P1 B1 P2 B2`` in class ``g`` is a condition on the card at
  that position: its class in binary, one atom a bit
  (:func:`observation_atoms`), so that one enumeration counts every
  (observation pattern, card detail, outcome);
* the fifth and sixth cards ``C5 C6`` are third cards where the tableau draws
  them (``C5`` the Player's if it draws, else the Banker's; ``C6`` the
  Banker's after a Player third card): atoms over ``P3 B3`` read them, "none"
  where the round leaves the card undealt. An undealt fifth or sixth card is
  still a card of the shoe, and the player still sees it: the rounds that
  leave it undealt are priced on the shoe without it, once per card it can be
  (:meth:`CardLevelLeak.pricings`). Drawing card ``c`` there first has ``n_c``
  ways, and the cards are exchangeable, so such a round's weight is ``n_c``
  times its weight in the shoe without ``c``, divided by the orderings of its
  unused positions that the card no longer fills: ``N - 6`` per such card of a
  shoe of ``N`` (exact: those weights are multiples of it);
* a card off the round (``burn``, ``bottom``) leaves the shoe: the caller
  prices the round on the shoe without it, once per card it can be
  (:mod:`baccarat_sim.analysis.leak_value`), as the effect of removal prices
  once per card removed.

Shoes that a permutation of the suits leaving every atom unchanged maps onto
each other are priced once (:func:`~baccarat_sim.analysis.eor.suit_symmetries`).
The pricings are listed, and their cost predicted by the cost model, before
any is made (:meth:`CardLevelLeak.check_cost`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import math

import numpy as np

from ..engines.budget import check_exact_cost
from ..engines.detail import rules_detail, weights_by_bits
from ..errors import InputError, InternalError, InvalidRules
from ..limits import MAX_PLAN_SECONDS
from ..model.atoms import Atom
from ..model.cards import N_CARD_IDS, N_SUITS
from ..model.codes import N_SUFFIXES, cards_used_of
from ..model.cost import exact_cost
from ..model.detail import CardDetail, FactoredDetail
from ..model.rules import Rules
from .eor import suit_symmetries

__all__ = ["THIRD_POSITIONS", "CardLevelLeak", "observation_atoms"]

#: The observed positions read through the third cards.
THIRD_POSITIONS = ("C5", "C6")
#: Cards a round takes, by whether the fifth and the sixth card are dealt in it.
_ROUND_SIZES = (4, 5, 6)
#: Most observation patterns, read without suits, that a count by rank is priced for as remembering its contexts
#: (the cost model's typical seconds): beyond them, or where the classes read suits, the observed classes multiply
#: the contexts past what a call remembers, and it is priced as remembering none (its worst seconds). Measured on
#: 8 decks, ``poker(banker) > poker(player)``: P1 by point value (10 patterns) 0.8 s, typical 1.8 s; P1 by card
#: 47 s, worst 52 s; a flush bet with B1, C5, C6 by point value (1,000 patterns) 128 s, worst 42 s a thread.
REMEMBERED_PATTERNS = 100
#: Pricings are counted until their predicted time passes this many times the limit (a refusal stays quick).
_COUNTED_PAST = 10


def _undealt(position: str, cards_used: int) -> bool:
    """Whether a round that takes ``cards_used`` cards leaves the fifth or sixth card in the shoe."""
    return cards_used <= (4 if position == "C5" else 5)


@dataclasses.dataclass(frozen=True)
class ObservedField:
    """Where one observed position's class lies among a group's atom bits, and its place in the pattern index.

    Attributes
    ----------
    position : str
    first, width : int
        Its bits: ``first .. first + width - 1`` (the class in binary; at ``C5``/``C6`` the number of classes
        stands for a card not dealt).
    radix : int
        What its class adds to the in-round pattern index (the first position the most significant).
    """

    position: str
    first: int
    width: int
    radix: int

    def values(self, bits: np.ndarray) -> np.ndarray:
        """The class read off each row of atom bits."""
        return ((bits >> np.uint64(self.first)) & np.uint64((1 << self.width) - 1)).astype(np.int64)


def observation_atoms(positions, classes: np.ndarray, n_classes: int) -> tuple[tuple[Atom, ...], tuple]:
    """Atoms that read the class of the card at each observed position, one atom a bit of the class.

    Parameters
    ----------
    positions : sequence of str
        Observed positions of the round (``P1 B1 P2 B2 C5 C6``), in pattern order.
    classes : ndarray(int64, shape=(52,))
        Class of each card id (at ``C5``/``C6`` it must be a function of the point value, as every observation
        of those cards is).
    n_classes : int

    Returns
    -------
    (tuple of Atom, tuple of ObservedField)
    """
    classes = np.asarray(classes, np.int64)
    digest = hashlib.sha256(classes.tobytes()).hexdigest()[:12]  # the grouping, in the atoms' identities
    atoms, fields = [], []
    radix = n_classes ** len(positions)
    for position in positions:
        radix //= n_classes
        third = position in THIRD_POSITIONS
        width = n_classes.bit_length() if third else max(1, (n_classes - 1).bit_length())
        if third:
            # Read off the third cards: index p3 + b3 * (n + 1) of their classes, n for no card.
            projection = np.tile(np.append(classes, n_classes), (2, 1))
            index = np.arange((n_classes + 1) ** 2)
            p3, b3 = index % (n_classes + 1), index // (n_classes + 1)
            if position == "C5":
                seen = np.where(p3 != n_classes, p3, b3)
            else:
                seen = np.where((p3 != n_classes) & (b3 != n_classes), b3, n_classes)
            where, sizes = ("P3", "B3"), (n_classes + 1, n_classes + 1)
        else:
            projection = np.append(classes, 0)[None, :]
            seen, where, sizes = np.arange(n_classes), (position,), (n_classes,)
        fields.append(ObservedField(position, len(atoms), width, radix))
        for bit in range(width):
            truth = ((seen >> bit) & 1).astype(bool)
            atoms.append(Atom(f"observed {position} class bit {bit} of grouping {digest}", where, projection,
                              sizes, truth))
    return tuple(atoms), tuple(fields)


@dataclasses.dataclass(frozen=True, eq=False)
class LeakGroup:
    """One group of the rule set's card detail with the observation's atoms before its own.

    Attributes
    ----------
    atoms : tuple of Atom
        The observation's atoms (bits ``0 .. n_observed - 1``), then the group's.
    outcomes : str
        The group's outcomes (codes or prefixes).
    detail : CardDetail
        The group's own card detail (its atoms, the combinations of their values that can happen).
    bets : tuple of (Bet, int)
        Its card-level bets and the first column of each one's pay-table lines.
    """

    atoms: tuple
    outcomes: str
    detail: CardDetail
    bets: tuple

    @property
    def texts(self) -> tuple[str, ...]:
        """Every atom's text (the cost check names the bets that read them)."""
        return tuple(atom.text for atom in self.atoms)


@dataclasses.dataclass(frozen=True)
class Pricing:
    """One exact count of the card-level groups, and how its rounds enter the in-round table.

    Attributes
    ----------
    shoe : ndarray(int64, shape=(13, 4))
        The shoe counted: the round's shoe without the undealt fifth and sixth cards the player saw.
    sizes : tuple of int
        The rounds kept, by cards taken (those that leave exactly the priced-away positions undealt).
    multiplier, divisor : int
        A kept round's weight is its weight here times ``multiplier`` (the ways to draw the cards taken away)
        divided by ``divisor`` (the orderings of unused positions they no longer fill).
    offset : int
        What the cards taken away add to the pattern index (their classes at their positions).
    """

    shoe: np.ndarray
    sizes: tuple[int, ...]
    multiplier: int
    divisor: int
    offset: int


class CardLevelLeak:
    """The card-level bets of a rule set, priced by observation pattern of the in-round positions.

    Parameters
    ----------
    rules : Rules
        Its card-level bets are priced here (their card-level pay tables checked, as everywhere).
    positions : sequence of str
        Observed positions of the round (``P1 B1 P2 B2 C5 C6``), in pattern order.
    classes : ndarray(int64, shape=(52,))
        The grouping's class of each card id.
    n_classes : int
    starts : sequence of int
        The first column of each bet's pay-table lines (the rule set's order).
    n_columns : int
    """

    def __init__(self, rules: Rules, positions, classes: np.ndarray, n_classes: int, starts, n_columns: int):
        self.positions = tuple(positions)
        self.classes = np.asarray(classes, np.int64)
        self.n_classes = n_classes
        self.n_patterns = n_classes ** len(self.positions)
        self.n_columns = n_columns
        self.observed_atoms, self.fields = observation_atoms(self.positions, self.classes, n_classes)
        detail = rules_detail(rules)  # the card-level pay tables checked on the cells that can happen
        groups = () if detail is None else detail.groups if isinstance(detail, FactoredDetail) else (detail,)
        start_of = {bet.id: start for bet, start in zip(rules.bets, starts)}
        self.groups = tuple(
            LeakGroup(self.observed_atoms + group.atoms, group.outcomes, group,
                      tuple((bet, start_of[bet.id]) for bet in rules.bets
                            if bet.card_level and {a.text for a in bet.atoms} <= set(group.texts)))
            for group in groups)
        self.symmetries = suit_symmetries(atom for group in self.groups for atom in group.atoms)
        self.path = rules.path
        self._decoded: dict = {}

    # ------------------------------------------------------------------ what is priced

    def key(self, shoe: np.ndarray) -> bytes:
        """The same bytes for shoes that a suit permutation leaving every atom unchanged maps onto each other."""
        shoe = np.asarray(shoe, np.int64).reshape(13, N_SUITS)
        return min(np.ascontiguousarray(shoe[:, list(permutation)]).tobytes() for permutation in self.symmetries)

    def pricings(self, shoe: np.ndarray):
        """The exact counts that price the round from ``shoe``, with how each one's rounds enter (:class:`Pricing`).

        One count of ``shoe`` for the rounds that deal every observed fifth and sixth card; for the rounds that
        leave some of them in the shoe, one count per card each can be, on the shoe without them.

        Raises
        ------
        InputError
            ``shoe``: too few cards for a round once the undealt cards seen are out of it.
        """
        shoe = np.asarray(shoe, np.int64).reshape(13, N_SUITS)
        observed = [p for p in THIRD_POSITIONS if p in self.positions]
        n_cards = int(shoe.sum())
        for n_away in range(len(observed) + 1):
            for away in itertools.combinations(observed, n_away):
                sizes = tuple(r for r in _ROUND_SIZES
                              if all(_undealt(p, r) == (p in away) for p in observed))
                if not sizes:
                    continue
                if away and n_cards - len(away) < 6:
                    raise InputError("shoe", f"{n_cards} cards: seeing {' and '.join(away)} where the round leaves "
                                             f"them undealt needs {6 + len(away)} cards")
                radix = {field.position: field.radix for field in self.fields}
                yield from self._taken_away(shoe, away, sizes, radix, math.perm(n_cards - 6, len(away)))

    def _taken_away(self, shoe, away, sizes, radix, divisor):
        """Every way to take the cards at the ``away`` positions out of ``shoe``, as pricings."""
        if not away:
            yield Pricing(shoe, sizes, 1, 1, 0)
            return
        left = shoe.reshape(-1).copy()
        for cards in itertools.product(range(N_CARD_IDS), repeat=len(away)):
            multiplier, offset = 1, 0
            taken = left.copy()
            for position, card in zip(away, cards):
                multiplier *= int(taken[card])
                taken[card] -= 1
                offset += int(self.classes[card]) * radix[position]
            if multiplier:
                yield Pricing(taken.reshape(13, N_SUITS), sizes, multiplier, divisor, offset)

    def check_cost(self, rules: Rules, shoes, seen=None) -> None:
        """Refuse, before any count, pricings that the cost model puts beyond the limits (one line, the bet named).

        ``shoes``: the shoes the round is dealt from (one, or one per card off the round it can follow);
        ``seen``: every observed position, for the message (default: those of the round). The pricings are
        counted until their predicted time passes ten times the limit, so that a refusal takes well under a
        second.

        Raises
        ------
        InvalidRules
            One line naming the file, the costliest bet and the predicted cost.
        """
        if not self.groups:
            return
        by_rank = self.classes.reshape(13, N_SUITS)
        remembered = self.n_patterns <= REMEMBERED_PATTERNS and bool((by_rank == by_rank[:, :1]).all())
        keys, shorter, each_seconds, stopped = set(), None, None, False
        for pricing in itertools.chain.from_iterable(self.pricings(shoe) for shoe in shoes):
            keys.add((self.key(pricing.shoe), pricing.sizes))
            if shorter is None or pricing.shoe.sum() < shorter.sum():
                shorter = pricing.shoe
            if each_seconds is None:
                each_seconds = sum(exact_cost(group.atoms, group.outcomes, shoe=shorter, remembered=remembered).seconds
                                   for group in self.groups)
            if len(keys) * each_seconds > _COUNTED_PAST * MAX_PLAN_SECONDS:
                stopped = True
                break
        seen = tuple(self.positions if seen is None else seen)
        what = (f"its leak analysis ({self.n_classes ** len(seen):,} observation patterns at "
                f"{', '.join(seen) or 'no position'})" + (" (its pricings counted to ten times the limit)" * stopped))
        check_exact_cost(rules, self.groups, pricings=len(keys), what=what, shoe=shorter, remembered=remembered,
                         advice="observe fewer positions or use coarser groups")

    # ------------------------------------------------------------------ the table

    def table(self, shoe: np.ndarray) -> np.ndarray:
        """Weights of (in-round pattern, column) of the card-level bets' columns for a round from ``shoe``.

        Returns
        -------
        ndarray(int64, shape=(n_patterns, n_columns))
            Zero in the columns of bets on the outcome alone; every card-level bet's block of a pattern's row
            sums to the ordered six-card sequences that show the pattern.
        """
        out = np.zeros((self.n_patterns, self.n_columns), dtype=object)
        out[:] = 0
        for pricing in self.pricings(shoe):
            decoded = self._decode(pricing)
            rows = np.flatnonzero(decoded.any(axis=1))
            scaled = decoded[rows].astype(object) * pricing.multiplier
            if any(int(w) % pricing.divisor for w in scaled.reshape(-1)):
                raise InternalError("an undealt card's weights are not a multiple of the orderings it leaves")
            out[rows + pricing.offset] += scaled // pricing.divisor
        return out.astype(np.int64)

    def _decode(self, pricing: Pricing) -> np.ndarray:
        """One pricing's weights by (pattern, column), the positions it took away counted as class 0."""
        key = (self.key(pricing.shoe), pricing.sizes)
        if key not in self._decoded:
            table = np.zeros((self.n_patterns, self.n_columns), np.int64)
            for group in self.groups:
                self._add_group(group, pricing, table)
            self._decoded[key] = table
        return self._decoded[key]

    def _add_group(self, group: LeakGroup, pricing: Pricing, table: np.ndarray) -> None:
        """Count one group on the pricing's shoe and add its bets' weights by pattern and pay-table line."""
        try:
            bits, weights = weights_by_bits(group.atoms, pricing.shoe, group.outcomes)
        except ValueError as error:  # the count's own limits, on its real tables: one line naming the bets
            bets = ", ".join(f"bets.{bet.id}" for bet, _ in group.bets)
            raise InvalidRules("", f"{self.path}: {bets}: {error}") from None
        n_outcomes = weights.shape[1]
        prefixes = np.arange(n_outcomes) // (N_SUFFIXES if group.outcomes == "codes" else 1)
        weights = weights * np.isin(cards_used_of(prefixes), pricing.sizes)[None, :]
        pattern = np.zeros(len(bits), np.int64)
        for field in self.fields:
            value = field.values(bits)
            # A position priced away, or one whose round is not kept: no card here, its class added elsewhere.
            pattern += np.where(value < self.n_classes, value, 0) * field.radix
        details = group.detail.details_of_bits(bits >> np.uint64(len(self.observed_atoms)))
        kept = weights.any(axis=1)
        if (details[kept] < 0).any():
            raise InternalError("an observed round dealt a combination of card-level conditions that cannot happen")
        cells, inverse = np.unique(np.stack([pattern[kept], details[kept]], axis=1), axis=0, return_inverse=True)
        summed = np.zeros((len(cells), n_outcomes), np.int64)
        np.add.at(summed, inverse.ravel(), weights[kept])
        for bet, start in group.bets:
            lines = bet.case_index(group.detail).reshape(group.detail.n_details, n_outcomes) + start
            np.add.at(table, (cells[:, :1], lines[cells[:, 1]]), summed)
