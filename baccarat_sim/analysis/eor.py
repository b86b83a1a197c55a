"""Effect of removal: the exact change in every bet's EV when one card leaves the shoe.

The effect of removal (EOR) of a rank is ``EV(shoe less one card of that rank)
- EV(shoe)``, per unit staked, computed exactly (integer weights, Fractions)
with the full exact engine, so it holds for every pay table a rule set can
express. A card of a rank is removed from each suit in proportion to the
suit's count (suits with identical counts give identical results, so only
distinct suits are solved). The EOR of a point value is the count-weighted
mean of its ranks' EORs (for point value 0, of 10, J, Q and K).

Removing one card at random does not change the EV of the next round (the
cards are exchangeable), so the count-weighted EORs of a shoe sum to exactly
zero: :meth:`EffectOfRemoval.balance` checks it for every bet.

Suits are interchangeable only where no bet tells them apart. Two suits are
solved once for both when a permutation of the suits maps the shoe to itself
and leaves every card-level condition (atom) of the bets unchanged: always for
bets on the outcome alone (suited pairs are the same whatever the suit), for
Colour Match also red against black, never hearts against spades for a bet on
hearts. When the bets read suits or colours, every bet also gets its EOR by
suit (the count-weighted mean over the ranks of removing one card of that
suit) and by colour, which balance to zero the same way.

Counting tags are the EORs scaled and rounded to small integers and then
*balanced* (their count-weighted sum is zero, so a full shoe counts to 0); the
betting correlation is the count-weighted correlation of the tags with the
EORs (Griffin, *The Theory of Blackjack*, ch. 4).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from fractions import Fraction

import numpy as np

from ..engines.budget import check_exact_cost
from ..engines.detail import detail_of_plan, plan_groups, rules_detail
from ..engines.exact import exact_histogram
from ..errors import InputError, ShoeError
from ..model.cardlevel import NONE
from ..model.cards import N_CARD_IDS, N_RANKS, N_SUITS, RANK_NAMES, RANK_POINTS, SUITS_OF_COLOUR
from ..model.rules import Rules
from ..model.shoe import as_shoe
from .settlement import settle_bet

__all__ = [
    "CountTags",
    "EffectOfRemoval",
    "betting_correlation",
    "break_even_true_count",
    "check_eor_cost",
    "derive_tags",
    "effect_of_removal",
    "reads_suits",
    "suit_orbits",
    "suit_symmetries",
]



@dataclasses.dataclass(frozen=True)
class EffectOfRemoval:
    """Exact effects of removal of every rank and point value (and suit and colour) for every bet.

    Attributes
    ----------
    rules_id : str
    shoe : ndarray(int64, shape=(13, 4))
        The shoe the cards are removed from.
    bet_ids, bet_names : tuple of str
    base : dict of str to Fraction
        EV per unit staked of the shoe itself.
    by_rank : dict of str to tuple of 13 (Fraction or None)
        EOR of Ace..King (None for a rank with no card left).
    by_value : dict of str to tuple of 10 (Fraction or None)
        EOR of point values 0..9.
    by_suit : dict of str to tuple of 4 (Fraction or None), or None
        EOR of spades, hearts, diamonds, clubs (suit order, ``model.cards.SUIT_WORDS``; None
        for a suit with no card left); None when no bet reads suits or colours.
    by_colour : dict of str to tuple of 2 (Fraction or None), or None
        EOR of black and red (``model.cards.SUITS_OF_COLOUR`` order); None as ``by_suit``.
    suit_bets : tuple of str
        The bets whose conditions read suits or colours.
    """

    rules_id: str
    shoe: np.ndarray
    bet_ids: tuple[str, ...]
    bet_names: tuple[str, ...]
    base: dict
    by_rank: dict
    by_value: dict
    by_suit: dict | None = None
    by_colour: dict | None = None
    suit_bets: tuple[str, ...] = ()

    @property
    def rank_counts(self) -> np.ndarray:
        """Cards of each rank in the shoe, ``ndarray(int64, shape=(13,))``."""
        return self.shoe.sum(axis=1)

    @property
    def value_counts(self) -> np.ndarray:
        """Cards of each point value in the shoe, ``ndarray(int64, shape=(10,))``."""
        counts = np.zeros(10, np.int64)
        np.add.at(counts, RANK_POINTS, self.rank_counts)
        return counts

    @property
    def suit_counts(self) -> np.ndarray:
        """Cards of each suit in the shoe, ``ndarray(int64, shape=(4,))`` (spades, hearts, diamonds, clubs)."""
        return self.shoe.sum(axis=0)

    @property
    def colour_counts(self) -> np.ndarray:
        """Cards of each colour in the shoe, ``ndarray(int64, shape=(2,))`` (black, red)."""
        return np.array([self.suit_counts[list(suits)].sum() for suits in SUITS_OF_COLOUR.values()], np.int64)

    @property
    def rank_bets(self) -> tuple[str, ...]:
        """The bets whose effect of removal differs among 10, J, Q and K (poker values, a card's rank).

        For them an effect by point value pools ranks the bet tells apart (its
        ten-value figure is their count-weighted mean): read them by rank.
        """
        tens = [r for r, points in enumerate(RANK_POINTS) if points == 0]
        return tuple(bet_id for bet_id in self.bet_ids
                     if len({self.by_rank[bet_id][r] for r in tens} - {None}) > 1)

    def balance(self, bet_id: str, by: str = "rank") -> Fraction:
        """Count-weighted sum of the EORs of a bet: exactly zero.

        Parameters
        ----------
        by : {"rank", "value", "suit", "colour"}
            ``suit`` and ``colour`` where the bets read suits (:attr:`by_suit` is not None).
        """
        effects, counts = {
            "rank": (self.by_rank, self.rank_counts),
            "value": (self.by_value, self.value_counts),
            "suit": (self.by_suit, self.suit_counts),
            "colour": (self.by_colour, self.colour_counts),
        }[by]
        if effects is None:
            raise InputError("by", f"no effect of removal by {by}: no bet of rule set {self.rules_id!r} reads suits "
                                   "or colours")
        return sum((int(n) * e for n, e in zip(counts, effects[bet_id]) if e is not None), Fraction(0))

    def count_tags(self, bet_id: str, levels=(1, 2, 3)) -> list:
        """Derived balanced tags of a bet for each level (levels with no balanced tags are left out)."""
        key = (bet_id, tuple(levels))
        cache = self.__dict__.setdefault("_tags_cache", {})
        if key not in cache:
            tags = []
            for level in levels:
                try:
                    tags.append(derive_tags(self, bet_id, level))
                except ValueError:  # every EOR zero (pairs in a full shoe), or no balanced tags at this level
                    continue
            cache[key] = tags
        return cache[key]



def _suit_map(permutation) -> np.ndarray:
    """Card value ``0..52`` to card value with the suits permuted (no card stays no card)."""
    cards = np.arange(N_CARD_IDS)
    mapped = np.append((cards // N_SUITS) * N_SUITS + np.asarray(permutation)[cards % N_SUITS], NONE)
    return mapped


def _atom_invariant(atom, card_map: np.ndarray) -> bool:
    """Whether an atom has the same value for every round after its cards are mapped by ``card_map``.

    Sound, not complete: each position's class of a mapped card must be a
    function of the card's own class, and the truth table must be the same
    on the classes so mapped (for every combination of classes, whether it
    can be dealt or not).
    """
    index = np.arange(atom.truth.size)
    mapped = np.zeros(atom.truth.size, np.int64)
    for j, (position, size, stride) in enumerate(zip(atom.positions, atom.sizes, atom.strides)):
        cards = np.arange(N_CARD_IDS if position in ("P1", "B1", "P2", "B2") else N_CARD_IDS + 1)
        own, image = atom.projection[j, cards], atom.projection[j, card_map[cards]]
        class_map = np.zeros(size, np.int64)
        class_map[own] = image
        if not np.array_equal(class_map[own], image):
            return False
        mapped += class_map[(index // stride) % size] * stride
    return bool(np.array_equal(atom.truth[mapped], atom.truth))


def suit_orbits(shoe: np.ndarray, atoms=()) -> list[list[int]]:
    """Suits that removing a card of any rank from gives the same EVs: orbits of the shoe's and bets' symmetries.

    A permutation of the four suits is a symmetry when it maps the shoe to
    itself (equal columns) and leaves every atom unchanged; the outcome codes
    never tell suits apart (a suited pair is a suited pair in any suit).
    Suits in one orbit give identical results, so only one of them is solved.

    Parameters
    ----------
    shoe : ndarray(int64, shape=(13, 4))
    atoms : iterable of Atom
        The card-level conditions of the bets (none: every suit of equal count is interchangeable).

    Returns
    -------
    list of list of int
        The orbits, each sorted, in order of their first suit.

    Examples
    --------
    >>> import numpy as np
    >>> suit_orbits(np.full((13, 4), 2))
    [[0, 1, 2, 3]]
    """
    atoms = tuple(atoms)
    parent = list(range(N_SUITS))

    def root(s: int) -> int:
        while parent[s] != s:
            s = parent[s]
        return s

    for permutation in itertools.permutations(range(N_SUITS)):
        if not np.array_equal(shoe[:, list(permutation)], shoe):
            continue
        if any(root(s) != root(permutation[s]) for s in range(N_SUITS)):  # would join orbits: check the atoms
            card_map = _suit_map(permutation)
            if all(_atom_invariant(atom, card_map) for atom in atoms):
                for s in range(N_SUITS):
                    parent[root(permutation[s])] = root(s)
    orbits: dict[int, list[int]] = {}
    for s in range(N_SUITS):
        orbits.setdefault(root(s), []).append(s)
    return sorted(orbits.values())


def suit_symmetries(atoms) -> tuple[tuple[int, ...], ...]:
    """The permutations of the four suits that leave every atom unchanged (the identity first).

    Two shoes that such a permutation maps one onto the other give the same
    weights to every combination of the atoms' values and outcome code (the
    codes never tell suits apart), so one of them is priced for both.
    """
    atoms = tuple(atoms)
    identity, *others = itertools.permutations(range(N_SUITS))
    return (identity, *(permutation for permutation in others
                        if all(_atom_invariant(atom, _suit_map(permutation)) for atom in atoms)))


def reads_suits(atoms) -> bool:
    """Whether any atom tells apart two cards of one rank (by suit or colour)."""
    for atom in atoms:
        by_rank = atom.projection[:, :N_CARD_IDS].reshape(len(atom.positions), N_RANKS, N_SUITS)
        if (by_rank != by_rank[:, :, :1]).any():
            return True
    return False


def _eor_plan(rules: Rules, composition: np.ndarray, bet_list) -> tuple:
    """The card detail the effect of removal prices, its atoms and the cards removed, ``(rank, suit orbit)`` each.

    Raises
    ------
    InvalidRules
        Where the cost model puts the pricings beyond the limits (:func:`check_eor_cost`).
    """
    detail = rules_detail(rules)  # checks the rule set's card-level pay tables
    atoms = tuple({atom.text: atom for bet in bet_list for atom in bet.atoms}.values())
    if detail is not None and len(atoms) < len(detail.atoms):
        # Only the groups of the bets asked for: fewer card details to enumerate after every removal.
        detail = detail_of_plan(plan_groups(bet_list))
    orbits = suit_orbits(composition, atoms)
    removals = [(rank, orbit) for rank in range(N_RANKS) for orbit in orbits if composition[rank, orbit[0]]]
    # Each pricing but the first is on a shoe one card short (the costlier, for a count by rank): priced as such.
    shorter = composition.copy()
    if removals:
        shorter[removals[0][0], removals[0][1][0]] -= 1
    check_exact_cost(rules, detail, pricings=1 + len(removals), what="its effect of removal (--eor)", shoe=shorter)
    return detail, atoms, removals


def check_eor_cost(rules: Rules, shoe=None) -> None:
    """Refuse, before any work, an effect of removal of every bet that the cost model puts beyond the limits.

    It prices the rule set once, then once per card removed (a rank, and a suit where the bets tell suits apart).

    Raises
    ------
    InvalidRules
        One line naming the file, the costliest bet and the predicted time.
    """
    _eor_plan(rules, as_shoe(rules.shoe.decks if shoe is None else shoe), list(rules.bets))


def effect_of_removal(rules: Rules, shoe=None, bets=None, progress=None) -> EffectOfRemoval:
    """Exact effect of removing one card of each rank (and point value) on every bet.

    Where the bets read suits or colours, also of removing one card of each
    suit (averaged over the ranks, weighted by their counts) and of each colour.

    Parameters
    ----------
    rules : Rules
    shoe : int or ndarray(int64, shape=(13, 4)) or None
        The shoe the cards are removed from (default: the rule set's full shoe).
    bets : iterable of str or None
        Bet ids (default: every bet of the rule set).
    progress : callable or None
        ``progress(done, total)`` after each exact pricing (the full shoe, then one per card removed).

    Returns
    -------
    EffectOfRemoval

    Raises
    ------
    InvalidRules
        Before any pricing, where the cost model puts the pricings together beyond
        the time limit (``MAX_PLAN_SECONDS`` of ``baccarat_sim.limits``; or one of
        them beyond the memory limit): one line naming the file, the costliest bet
        and the predicted cost.

    Examples
    --------
    >>> from baccarat_sim import load_rules
    >>> eor = effect_of_removal(load_rules("default"), bets=["player"])
    >>> round(float(eor.by_value["player"][6]) * 1e7)  # removing a 6 helps the Player
    1128
    >>> eor.balance("player")
    Fraction(0, 1)
    """
    composition = as_shoe(rules.shoe.decks if shoe is None else shoe)
    bet_list = [rules.bet(bet_id) for bet_id in (rules.bet_ids if bets is None else bets)]

    def evs(hist) -> dict:
        return {bet.id: settle_bet(hist, bet, rules).ev_exact for bet in bet_list}

    detail, atoms, removals = _eor_plan(rules, composition, bet_list)
    base = evs(exact_histogram(composition, detail))
    if progress is not None:
        progress(1, 1 + len(removals))
    # effect[bet][rank, suit]: EV(shoe less that card) - EV(shoe), for every card the shoe holds.
    effect = {bet.id: np.full((N_RANKS, N_SUITS), None, dtype=object) for bet in bet_list}
    for done, (rank, orbit) in enumerate(removals, start=2):
        suit = orbit[0]
        removed = composition.copy()
        removed[rank, suit] -= 1
        try:
            hist = exact_histogram(removed, detail)
        except InputError as error:  # the shoe given is fine; the card this analysis removes is what breaks it
            if error.param != "shoe":
                raise
            raise ShoeError("eor", f"removes one more card from the {int(composition.sum())}-card shoe, and then "
                                   f"it {error.message}") from None
        for bet_id, ev in evs(hist).items():
            effect[bet_id][rank, orbit] = ev - base[bet_id]  # every suit of the orbit gives the same EV
        if progress is not None:
            progress(done, 1 + len(removals))

    def mean(bet_id: str, cards) -> Fraction | None:
        """Count-weighted mean effect of removing one of ``cards`` ((rank, suit) pairs)."""
        total = sum(int(composition[r, s]) for r, s in cards)
        if not total:
            return None
        return sum((int(composition[r, s]) * effect[bet_id][r, s] for r, s in cards if composition[r, s]),
                   Fraction(0)) / total

    by_rank = {bet.id: tuple(mean(bet.id, [(r, s) for s in range(N_SUITS)]) for r in range(N_RANKS))
               for bet in bet_list}
    by_value = {}
    for bet_id in by_rank:
        by_value[bet_id] = tuple(mean(bet_id, [(r, s) for r in range(N_RANKS) if RANK_POINTS[r] == value
                                               for s in range(N_SUITS)]) for value in range(10))
    by_suit = by_colour = None
    if reads_suits(atoms):
        by_suit = {bet.id: tuple(mean(bet.id, [(r, s) for r in range(N_RANKS)]) for s in range(N_SUITS))
                   for bet in bet_list}
        by_colour = {bet.id: tuple(mean(bet.id, [(r, s) for r in range(N_RANKS) for s in suits])
                                   for suits in SUITS_OF_COLOUR.values()) for bet in bet_list}
    return EffectOfRemoval(
        rules_id=rules.id,
        shoe=composition,
        bet_ids=tuple(bet.id for bet in bet_list),
        bet_names=tuple(bet.name for bet in bet_list),
        base=base,
        by_rank=by_rank,
        by_value=by_value,
        by_suit=by_suit,
        by_colour=by_colour,
        suit_bets=tuple(bet.id for bet in bet_list if reads_suits(bet.atoms)),
    )


def betting_correlation(tags, effects, counts) -> float:
    """Count-weighted correlation between counting tags and effects of removal.

    Parameters
    ----------
    tags, effects, counts : array_like, shape (k,)
        Per rank (or point value): tag, EOR and number of cards in the shoe.

    Returns
    -------
    float
        In [-1, 1]; nan when the tags or the effects are constant.

    Examples
    --------
    >>> betting_correlation([1, -1], [0.2, -0.2], [4, 4])
    1.0
    """
    t = np.asarray(tags, float)
    e = np.asarray(effects, float)
    w = np.asarray(counts, float)
    keep = (w > 0) & np.isfinite(e)
    t, e, w = t[keep], e[keep], w[keep]
    t = t - (w @ t) / w.sum()
    e = e - (w @ e) / w.sum()
    denominator = math.sqrt(float(w @ (t * t)) * float(w @ (e * e)))
    return float(w @ (t * e)) / denominator if denominator > 0 else math.nan


@dataclasses.dataclass(frozen=True)
class CountTags:
    """Balanced integer counting tags derived from a bet's effects of removal.

    Attributes
    ----------
    bet : str
    level : int
        Largest absolute tag allowed.
    by : str
        ``"value"``: one tag per point value (ranks of a value share it);
        ``"rank"``: one tag per rank.
    tags : tuple of 13 int
        Tag of Ace..King: add it to the running count when a card of that rank is seen.
    scale : float
        Tags per unit of EOR: the least-squares slope of the tags on the EORs.
    betting_correlation : float
    break_even_true_count : float
        True count (running count per 52 unseen cards) at which the linear
        estimate of the EV reaches zero: ``-EV * 52 * scale / (N - 1)``.
    """

    bet: str
    level: int
    by: str
    tags: tuple[int, ...]
    scale: float
    betting_correlation: float
    break_even_true_count: float

    def as_dict(self) -> dict[str, int]:
        """Tags keyed by point value ("0".."9") or by rank name, as a strategy file writes them."""
        if self.by == "value":
            return {str(RANK_POINTS[r]): self.tags[r] for r in range(N_RANKS)}
        return {RANK_NAMES[r]: self.tags[r] for r in range(N_RANKS)}


def _balance(tags: np.ndarray, raw: np.ndarray, weights: np.ndarray, level: int) -> np.ndarray | None:
    """Move tags one step at a time, cheapest rounding error first, until ``weights @ tags == 0``."""
    tags = tags.copy()
    imbalance = int(weights @ tags)
    while imbalance:
        step = -1 if imbalance > 0 else 1
        best, best_cost = None, math.inf
        for g in range(len(tags)):
            moved = tags[g] + step
            if abs(moved) > level or weights[g] > abs(imbalance) or weights[g] == 0:
                continue
            cost = abs(raw[g] - moved) - abs(raw[g] - tags[g])
            if cost < best_cost:
                best, best_cost = g, cost
        if best is None:
            return None
        tags[best] += step
        imbalance += step * int(weights[best])
    return tags


def _candidate_scales(effects: np.ndarray, top: float, level: int) -> np.ndarray:
    """One scale inside every interval where the rounded, clipped tags stay the same.

    The rounded tags change only where some ``scale * |e|`` crosses a half
    integer; the midpoints between consecutive crossings (within the scales that
    map the largest EOR to ``level +- 1/2``) cover every distinct tag vector.
    """
    low, high = (level - 0.5) / top, (level + 0.5) / top
    magnitudes = np.abs(effects[effects != 0])
    crossings = [low, high]
    for k in range(level + 1):
        crossings.extend((k + 0.5) / magnitudes)
    edges = np.unique(np.clip(crossings, low, high))
    return (edges[:-1] + edges[1:]) / 2


def derive_tags(eor: EffectOfRemoval, bet_id: str, level: int = 1, by: str | None = None) -> CountTags:
    """The balanced integer tags of largest betting correlation for a bet.

    Every scale that maps the largest EOR to between ``level - 1/2`` and
    ``level + 1/2`` is tried (one per distinct rounding); the scaled EORs are
    rounded, clipped to ``[-level, level]`` and balanced by the cheapest
    one-step moves.

    Parameters
    ----------
    eor : EffectOfRemoval
    bet_id : str
    level : int
        Largest absolute tag (1, 2, 3, ...).
    by : {"value", "rank"} or None
        One tag per point value or per rank (None: by value when every ten-value
        rank has the same EOR, as for bets settled on scores only).

    Examples
    --------
    >>> from baccarat_sim import load_rules
    >>> eor = effect_of_removal(load_rules("default"), bets=["banker"])
    >>> derive_tags(eor, "banker").as_dict()["4"]  # a 4 leaving the shoe helps the Banker
    1
    """
    if isinstance(level, bool) or not isinstance(level, int) or level < 1:
        raise InputError("level", f"must be a whole number >= 1, got {level!r}")
    rank_effects = eor.by_rank[bet_id]
    rank_counts = eor.rank_counts
    tens = [rank_effects[r] for r in range(N_RANKS) if RANK_POINTS[r] == 0 and rank_counts[r] > 0]
    if by is None:
        by = "value" if len(set(tens)) <= 1 else "rank"
    if by not in ("value", "rank"):
        raise InputError("by", f"must be value or rank, got {by!r}")
    groups = [[r for r in range(N_RANKS) if RANK_POINTS[r] == v] for v in range(10)] if by == "value" \
        else [[r] for r in range(N_RANKS)]
    weights = np.array([sum(int(rank_counts[r]) for r in g) for g in groups], np.int64)
    divisor = math.gcd(*weights.tolist()) or 1
    effects = np.array([
        float(sum((int(rank_counts[r]) * rank_effects[r] for r in g if rank_counts[r]), Fraction(0)) / w) if w else 0.0
        for g, w in zip(groups, weights)
    ])
    top = float(np.abs(effects).max())
    if top == 0:
        raise InputError("", f"bets.{bet_id}: every effect of removal is zero; no count can track it")
    rank_e = np.array([float(e) if e is not None else np.nan for e in rank_effects])
    best = None
    for scale in _candidate_scales(effects, top, level):
        raw = scale * effects
        rounded = np.clip(np.rint(raw), -level, level).astype(np.int64)
        balanced = _balance(rounded, raw, weights // divisor, level)
        if balanced is None or not balanced.any():
            continue
        rank_tags = np.zeros(N_RANKS, np.int64)
        for g, members in enumerate(groups):
            rank_tags[members] = balanced[g]
        correlation = betting_correlation(rank_tags, rank_e, rank_counts)
        if best is None or correlation > best[0] + 1e-12:
            best = (correlation, rank_tags)
    if best is None:
        raise InputError("", f"bets.{bet_id}: no balanced level-{level} tags exist for this shoe")
    correlation, rank_tags = best
    slope = _slope(eor, bet_id, rank_tags)
    return CountTags(bet_id, level, by, tuple(int(t) for t in rank_tags), 1 / slope if slope else math.inf,
                     correlation, break_even_true_count(eor, bet_id, rank_tags))


def _slope(eor: EffectOfRemoval, bet_id: str, tags) -> float:
    """EOR per tag unit: the count-weighted least-squares slope of the EORs on the tags, through 0."""
    counts = eor.rank_counts
    keep = counts > 0
    t = np.asarray(tags, float)[keep]
    e = np.array([float(x) for x, k in zip(eor.by_rank[bet_id], keep) if k])
    w = counts[keep].astype(float)
    denominator = float(w @ (t * t))
    return float(w @ (t * e)) / denominator if denominator else 0.0


def break_even_true_count(eor: EffectOfRemoval, bet_id: str, tags) -> float:
    """True count at which the linear estimate of a bet's EV reaches zero.

    Removing ``k`` cards from a shoe of ``N`` moves the EV by about
    ``(N - 1) / (N - k)`` times the sum of their EORs; with tags ``t ~ e / s``
    (``s`` the least-squares EOR per tag unit) and the true count
    ``TC = 52 RC / (N - k)``, the EV is about ``EV0 + (N - 1) s TC / 52``.

    Parameters
    ----------
    eor : EffectOfRemoval
    bet_id : str
    tags : array_like, shape (13,)
        Tag of Ace..King.

    Returns
    -------
    float
        ``-EV0 * 52 / (s * (N - 1))``; inf when the tags do not track the bet.
    """
    slope = _slope(eor, bet_id, tags)
    n_cards = int(eor.rank_counts.sum())
    base = float(eor.base[bet_id])
    return -base * 52 / (slope * (n_cards - 1)) if slope > 0 else math.inf
