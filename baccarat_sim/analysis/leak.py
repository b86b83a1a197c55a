"""What leaked card information is worth: the player's exact edge from cards classified before betting.

A player who can tell something about some cards of a round before betting
(edge sorting: a card's group from a defect on its back; a flashed or exposed
card) sees an *observation pattern*: the class of the card at each observed
position. For each pattern this module gives its probability, the exact EV of
every bet of the rule set given that pattern (side bets included), the best
action (a bet, or sitting out) and its edge; over all rounds, the player's
edge (a sat-out round counts 0) and how often each action is taken.

Positions (:data:`POSITIONS`): the first four cards ``P1 B1 P2 B2`` in
dealing order, the fifth and sixth cards ``C5 C6`` (the third cards: the
fifth goes to the Player if it draws, else to the Banker; the sixth to the
Banker after a Player third card), ``next`` (the next card out of the shoe:
the round's first card, ``P1``), and two cards that are *not* in the part
dealt: ``burn`` (a burned card shown, in a dealt shoe that burns) and
``bottom`` (the bottom card, behind the cut card of a dealt shoe). A known
card off the round simply leaves the shoe the round is dealt from.

Groupings (:class:`Grouping`): by point value (e.g. Jacobson's High =
{6, 7, 8, 9}, Low the rest: :func:`high_low`), by rank, any partition
(:func:`parse_groups`), or each card its own class (exact knowledge:
:func:`each`). One grouping applies to every observed position.

Exact: the kernel counts every ordered six-card sequence in integers
(:mod:`baccarat_sim.kernels.leak`), and every probability, EV and edge here is
a :class:`fractions.Fraction`. Bets are settled line by line through their pay
tables (:meth:`baccarat_sim.model.rules.Bet.case_index`), with the nominal
commission rate. Ties are broken deterministically: the player sits out unless
some bet has a positive EV, and of equal best bets takes the first in the rule
set's order.

Limits (checked, each a one-line :class:`~baccarat_sim.errors.InputError`):
``C5`` and ``C6`` are classified by point value only (the outcome depends on
them only through their point values, and the kernel resolves the third cards
by point value); at most one card off the round; at most
:data:`MAX_PATTERNS` observation patterns.

Examples
--------
Jacobson's one sorted card (8 decks, High = {6, 7, 8, 9}): Banker on Low,
Player on High, a 6.765% edge.

>>> from baccarat_sim.model.rules import load_rules
>>> result = leak_value(load_rules("default"), ["P1"], high_low([6, 7, 8, 9]))
>>> f"{float(result.player_edge):.3%}", [(row.label, row.best_action) for row in result.rows]
('6.765%', [('L', 'banker'), ('H', 'player')])
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import re
from fractions import Fraction

import numpy as np

from ..engines.leak import IN_ROUND_POSITIONS, leak_table
from ..errors import InputError, InternalError
from ..model.cards import N_CARD_IDS, N_SUITS, RANK_NAMES, RANK_POINTS, card_name
from ..model.codes import N_CODES
from ..model.rules import Bet, Rules
from ..model.shoe import as_shoe

__all__ = [
    "ALIASES",
    "MAX_PATTERNS",
    "OFF_ROUND_POSITIONS",
    "POSITIONS",
    "SIT_OUT",
    "Grouping",
    "LeakResult",
    "OptimalSort",
    "PatternResult",
    "SortCandidate",
    "each",
    "exposed_card",
    "high_low",
    "leak_value",
    "optimal_sort",
    "parse_groups",
    "resolve_positions",
]

#: Cards the player can see before betting that are not dealt in the round.
OFF_ROUND_POSITIONS = ("burn", "bottom")
#: Every position a leak can be at, canonical names.
POSITIONS = IN_ROUND_POSITIONS + OFF_ROUND_POSITIONS
#: Other names of positions: the next card out of the shoe is the round's first card.
ALIASES = {"next": "P1"}
#: The action of a player who bets nothing.
SIT_OUT = "sit_out"
#: Most observation patterns one analysis counts (classes per position to the power of the positions): a
#: larger table is too large to print or to settle in Fractions. Rank-level knowledge of the first four cards
#: (13^4 = 28,561) fits; exact cards at three positions (52^3) do not.
MAX_PATTERNS = 30_000
#: How people write point values in groups: digits, with A for 1 and T for the ten-value cards (0).
_VALUE_TOKENS = {**{str(v): v for v in range(10)}, "A": 1, "T": 0}
_RANK_TOKENS = {**{name: r for r, name in enumerate(RANK_NAMES)}, "T": 9}
_BY = ("value", "rank", "card")


# --------------------------------------------------------------------------- groupings


@dataclasses.dataclass(frozen=True)
class Grouping:
    """How the player classifies a card: a partition of point values, of ranks, or every card apart.

    Attributes
    ----------
    by : {"value", "rank", "card"}
        What the members of the groups are: point values 0-9, ranks 0-12
        (Ace..King) or card ids ``rank * 4 + suit``.
    groups : tuple of tuple of int
        The members of each group; every member is in exactly one group.
    names : tuple of str
        A short name per group (``"L"``, ``"H"``; ``"A234"``; ``"Qh"``).
    """

    by: str
    groups: tuple[tuple[int, ...], ...]
    names: tuple[str, ...]

    def card_classes(self) -> np.ndarray:
        """The group of every card id, ``ndarray(int64, shape=(52,))``."""
        group_of = {member: g for g, members in enumerate(self.groups) for member in members}
        keys = [_member_of(card, self.by) for card in range(N_CARD_IDS)]
        return np.array([group_of[key] for key in keys], np.int64)

    def member_names(self, group: int) -> tuple[str, ...]:
        """The members of one group as people write them (point values as digits, ranks, cards)."""
        return tuple(_member_name(member, self.by) for member in self.groups[group])

    def describe(self) -> str:
        """One line, e.g. ``"by point value: L = 0 1 2 3 4 5 | H = 6 7 8 9"``."""
        if self.by == "card":
            return "every card apart (rank and suit)"
        what = {"value": "point value", "rank": "rank"}[self.by]
        if all(len(members) == 1 for members in self.groups):
            return f"every {what} apart"
        return f"by {what}: " + " | ".join(f"{name} = {' '.join(self.member_names(g))}"
                                            for g, name in enumerate(self.names))

    @property
    def suit_aware(self) -> bool:
        """Whether two cards of one rank can fall in different groups."""
        return self.by == "card"


def _member_of(card: int, by: str) -> int:
    rank = card // N_SUITS
    return int(RANK_POINTS[rank]) if by == "value" else rank if by == "rank" else card


def _member_name(member: int, by: str) -> str:
    return str(member) if by == "value" else RANK_NAMES[member] if by == "rank" else card_name(member)


def _value_list(values, param: str) -> tuple[int, ...]:
    """Point values 0-9 from ints or strings, each once."""
    texts = [str(value).strip() for value in values]
    if not any(texts):
        return ()
    found = []
    for text in texts:
        if not re.fullmatch(r"[0-9]", text):
            raise InputError(param, f"{text!r} is not a point value; give point values 0-9 (0 for 10, J, Q, K), "
                                    "e.g. 6,7,8,9")
        if int(text) not in found:
            found.append(int(text))
    return tuple(sorted(found))


def high_low(high) -> Grouping:
    """Two groups by point value: ``H`` the values in ``high``, ``L`` the rest (edge sorting).

    Parameters
    ----------
    high : iterable of int or str
        Point values 0-9 in the High group, e.g. ``[6, 7, 8, 9]``.

    Raises
    ------
    InputError
        ``high``: a value outside 0-9, no value, or every value (one group
        tells the player nothing).

    Examples
    --------
    >>> high_low([6, 7, 8, 9]).describe()
    'by point value: L = 0 1 2 3 4 5 | H = 6 7 8 9'
    """
    values = _value_list(high, "high")
    if not values:
        raise InputError("high", "the High group is empty; give the point values 0-9 in it, e.g. 6,7,8,9")
    if len(values) == 10:
        raise InputError("high", "the High group covers every point value 0-9, leaving Low empty; leave out at "
                                 "least one value")
    low = tuple(v for v in range(10) if v not in values)
    return Grouping("value", (low, values), ("L", "H"))


def each(by: str = "card") -> Grouping:
    """Every point value, rank or card its own group: exact knowledge at that level.

    Examples
    --------
    >>> len(each("card").groups), len(each("rank").groups), each("value").names[:3]
    (52, 13, ('0', '1', '2'))
    """
    if by not in _BY:
        raise InputError("by", f"must be one of {', '.join(_BY)}, got {by!r}")
    size = {"value": 10, "rank": len(RANK_NAMES), "card": N_CARD_IDS}[by]
    return Grouping(by, tuple((m,) for m in range(size)), tuple(_member_name(m, by) for m in range(size)))


def parse_groups(text: str, by: str | None = None) -> Grouping:
    """A partition written as groups separated by ``|``: ``"0123|456789"`` or ``"A234|5678|9TJQK"``.

    Within a group, members are separated by commas (``"A,2,3,4|..."``) or, with
    no comma, written one character each (``T`` for 10). By point value a
    member is a digit 0-9 (``A`` for 1, ``T`` for 0: the ten-value cards); by
    rank, ``A 2 .. 9 T J Q K`` (``10`` for T). Every member must be in exactly
    one group, and there must be at least two groups.

    Parameters
    ----------
    text : str
    by : {"value", "rank"} or None
        None: by rank when ``text`` names J, Q or K, else by point value.

    Raises
    ------
    InputError
        ``groups``: an empty group, a member that cannot be read, one in two
        groups or in none, a single group covering everything.

    Examples
    --------
    >>> parse_groups("A234|5678|9TJQK").describe()
    'by rank: A234 = A 2 3 4 | 5678 = 5 6 7 8 | 9TJQK = 9 10 J Q K'
    >>> parse_groups("0123|456789").names
    ('0123', '456789')
    """
    if by is None:
        by = "rank" if re.search(r"[JQKjqk]", text) else "value"
    if by not in ("value", "rank"):
        raise InputError("by", f"groups are partitions of point values or ranks (--by value or rank), not {by!r}")
    tokens = _VALUE_TOKENS if by == "value" else _RANK_TOKENS
    what = "point value" if by == "value" else "rank"
    allowed = "0-9 (A for 1, T for 0)" if by == "value" else "A 2 .. 9 T J Q K (10 for T)"
    size = 10 if by == "value" else len(RANK_NAMES)
    groups, names, owner = [], [], {}
    for g, raw in enumerate(text.split("|")):
        cleaned = raw.strip().upper()
        if not cleaned:
            raise InputError("groups", f"group {g + 1} of {text!r} is empty; write groups such as "
                                       + ("0123|456789" if by == "value" else "A234|5678|9TJQK"))
        items = [i.strip() for i in cleaned.split(",")] if "," in cleaned else re.findall(r"10|\S", cleaned)
        members = []
        for item in items:
            if item not in tokens:
                hint = " (it names a rank: add --by rank)" if by == "value" and item in _RANK_TOKENS else ""
                raise InputError("groups", f"{item!r} in group {g + 1} is not a {what}; {what}s are {allowed}{hint}")
            member = tokens[item]
            if member in owner:
                raise InputError("groups", f"{item!r} is in group {owner[member] + 1} and group {g + 1}; every "
                                           f"{what} must be in exactly one group")
            owner[member] = g
            members.append(member)
        groups.append(tuple(sorted(members)))
        names.append(cleaned.replace(",", "").replace("10", "T"))
    missing = [_member_name(m, by) for m in range(size) if m not in owner]
    if missing:
        raise InputError("groups", f"{what}s {', '.join(missing)} are in no group; every {what} must be in exactly "
                                   "one group (groups are separated by '|')")
    if len(groups) < 2:
        raise InputError("groups", f"one group covers every {what}, which tells the player nothing; give two or "
                                   "more groups separated by '|'")
    return Grouping(by, tuple(groups), tuple(names))


# --------------------------------------------------------------------------- positions


def resolve_positions(rules: Rules, positions, grouping: Grouping | None = None) -> tuple[str, ...]:
    """Canonical names of the observed positions, checked against the shoe model and the grouping.

    Raises
    ------
    InputError
        ``positions``: an unknown or repeated position, more than one card off
        the round, a card the shoe model cannot show (a burn card where none is
        burned, a bottom card in a shoe shuffled before every round), or a
        fifth or sixth card classified by rank or card.
    """
    names = [str(p).strip() for p in positions]
    canonical = {p.lower(): p for p in POSITIONS} | {alias: target for alias, target in ALIASES.items()}
    resolved = []
    for name in names:
        position = canonical.get(name.lower())
        if position is None:
            raise InputError("positions", f"unknown position {name!r}; positions: P1, B1, P2, B2 (the first four "
                                          "cards), C5, C6 (the fifth and sixth cards), next (the next card: P1), "
                                          "burn, bottom")
        if position in resolved:
            raise InputError("positions", f"{name!r} names {position} twice")
        resolved.append(position)
    off = [p for p in resolved if p in OFF_ROUND_POSITIONS]
    if len(off) > 1:
        raise InputError("positions", f"{' and '.join(off)}: one card off the round at a time")
    shoe = rules.shoe
    for position in off:
        if shoe.model != "dealt":
            raise InputError("positions", f"{position}: rule set {rules.id!r} shuffles the shoe before every round "
                                          "(shoe.shuffle = \"fresh\"): there is no "
                                          + ("burn card" if position == "burn" else "undealt bottom card")
                                          + " to see; a dealt shoe has one")
        if position == "burn" and shoe.burn == "none":
            raise InputError("positions", f"burn: rule set {rules.id!r} burns no card (shoe.burn = \"none\"); "
                                          "a rule set that burns (face_value or fixed) can show one")
        if position == "bottom" and shoe.cut_card.low == 0:
            raise InputError("positions", f"bottom: the cut card of rule set {rules.id!r} can be the last card, so "
                                          "the bottom card can be dealt")
    if grouping is not None and grouping.by != "value":
        thirds = [p for p in resolved if p in ("C5", "C6")]
        if thirds:
            raise InputError("positions", f"{', '.join(thirds)}: the fifth and sixth cards are classified by point "
                                          f"value only, not by {grouping.by} (the outcome depends on them only "
                                          "through their point values); use a grouping by point value")
    return tuple(resolved)


# --------------------------------------------------------------------------- results


@dataclasses.dataclass(frozen=True)
class PatternResult:
    """One observation pattern: what the player saw, how often, what each bet is then worth.

    Attributes
    ----------
    classes : tuple of int
        The group seen at each observed position (in the result's order).
    label : str
        The group names, e.g. ``"HLLL"`` (one character each) or
        ``"A234 9TJQK"``.
    weight : int
        Ordered card sequences that show it (exact).
    probability : Fraction
    ev : tuple of Fraction
        EV per unit staked of each bet given the pattern (the result's bet order).
    best_action : str
        A bet id, or :data:`SIT_OUT` when no bet has a positive EV.
    edge : Fraction
        EV of the best action (0 when sitting out).
    """

    classes: tuple[int, ...]
    label: str
    weight: int
    probability: Fraction
    ev: tuple[Fraction, ...]
    best_action: str
    edge: Fraction


@dataclasses.dataclass(frozen=True)
class LeakResult:
    """The value of a leak for one rule set and shoe.

    Attributes
    ----------
    rules_id, rules_name : str
    shoe : ndarray(int64, shape=(13, 4))
        The shoe the round is dealt from (before a card off the round leaves it).
    model : str
        The shoe model: ``"fresh"`` or ``"dealt"``.
    positions : tuple of str
        The observed positions, canonical names.
    grouping : Grouping
    bet_ids, bet_names : tuple of str
    rows : tuple of PatternResult
        Every pattern that can be seen, in order of its classes.
    total : int
        Total weight of all patterns.
    player_edge : Fraction
        Average over all rounds of the best action's EV, a sat-out round counting 0.
    action_frequency : dict of str to Fraction
        How often each action is taken: :data:`SIT_OUT` and every bet id.
    ev_without_information : dict of str to Fraction
        Each bet's EV over all rounds (the blind EV: a check on the table).
    """

    rules_id: str
    rules_name: str
    shoe: np.ndarray
    model: str
    positions: tuple[str, ...]
    grouping: Grouping
    bet_ids: tuple[str, ...]
    bet_names: tuple[str, ...]
    rows: tuple[PatternResult, ...]
    total: int
    player_edge: Fraction
    action_frequency: dict
    ev_without_information: dict

    def row(self, label: str) -> PatternResult:
        """The pattern with this label (e.g. ``"HLLL"``)."""
        for row in self.rows:
            if row.label == label:
                return row
        raise KeyError(f"no pattern {label!r}; patterns: {', '.join(r.label for r in self.rows[:20])}")

    def ev(self, label: str, bet_id: str) -> Fraction:
        """EV of one bet given one pattern."""
        return self.row(label).ev[self.bet_ids.index(bet_id)]


@dataclasses.dataclass(frozen=True)
class SortCandidate:
    """One two-group split of the point values and the player's edge with it."""

    grouping: Grouping
    player_edge: Fraction


@dataclasses.dataclass(frozen=True)
class OptimalSort:
    """The best split of the ten point values into two sorting groups.

    Attributes
    ----------
    positions : tuple of str
    searched : int
        High groups searched: every non-empty set of point values (1023,
        as Roach counted them; a set and its complement are the same split,
        so 511 distinct splits tell the player something and one, everything
        High, tells nothing).
    candidates : tuple of SortCandidate
        The best distinct splits, best first (exact edges).
    best : LeakResult
        The full analysis of the best split.
    """

    positions: tuple[str, ...]
    searched: int
    candidates: tuple[SortCandidate, ...]
    best: LeakResult


# --------------------------------------------------------------------------- settlement lines


@dataclasses.dataclass(frozen=True)
class _Lines:
    """Every bet's pay-table lines as columns: which column settles each code, and each column's net."""

    line_col: np.ndarray  # (n_bets, N_CODES)
    scaled: np.ndarray  # (n_columns, n_bets) object: net * denominator in the bet's own column block
    denominator: int
    first_bet_columns: slice

    @property
    def n_columns(self) -> int:
        return self.scaled.shape[0]


def _settlement_lines(rules: Rules) -> _Lines:
    """Columns of every pay-table line; refuses a bet the kernel cannot settle."""
    blocks, nets = [], []
    offset = 0
    for bet in rules.bets:
        # A card-level bet (suits, colours, ranks of given cards: the card-detail axis beside the outcome codes)
        # is settled on details the leak kernel does not count: refuse it rather than settle it on the codes.
        card_level = bool(getattr(bet, "card_level", False))
        index = None if card_level else np.asarray(bet.case_index())
        if index is None or index.shape != (N_CODES,):
            raise InputError("bets", f"bet {bet.id!r} settles on card details beyond the {N_CODES:,} outcome codes, "
                                     "which the leak kernel does not count; leave it out of the bets")
        lines = (*bet.cases, bet.otherwise)
        blocks.append(index.astype(np.int64) + offset)
        nets.append([Bet._case_net(case, rules.commission.rate) for case in lines])
        offset += len(lines)
    denominator = math.lcm(*(net.denominator for bet_nets in nets for net in bet_nets))
    scaled = np.zeros((offset, len(nets)), dtype=object)
    scaled[:] = 0
    column = 0
    for b, bet_nets in enumerate(nets):
        for net in bet_nets:
            scaled[column, b] = int(net * denominator)
            column += 1
    return _Lines(np.stack(blocks), scaled, denominator, slice(0, len(nets[0])))


# --------------------------------------------------------------------------- analysis


def _shoe_of(rules: Rules, shoe) -> np.ndarray:
    return as_shoe(rules.shoe.decks if shoe is None else shoe)


def _in_round_table(composition, positions, classes, lines: _Lines, n_classes: int) -> np.ndarray:
    """Weights of (in-round pattern, column), int64, patterns in the order of ``itertools.product``."""
    table, sizes = leak_table(composition, {p: classes for p in positions}, lines.line_col, lines.n_columns)
    if any(size != n_classes for size in sizes):  # every group has a card, so every class is counted
        raise InternalError(f"a grouping of {n_classes} classes reached the leak kernel with {sizes} classes")
    return table


def _canonical_key(composition: np.ndarray) -> bytes:
    """The same bytes for shoes that differ only by a permutation of suits."""
    columns = composition.T[np.lexsort(composition[::-1])]
    return columns.tobytes()


def _pattern_weights(composition, positions, grouping: Grouping, lines: _Lines) -> tuple[list, np.ndarray, int]:
    """Every pattern (classes per position, in order), its weights per column (Python ints), and the total."""
    classes = grouping.card_classes()
    n_classes = len(grouping.groups)
    in_round = [p for p in positions if p in IN_ROUND_POSITIONS]
    off = [p for p in positions if p in OFF_ROUND_POSITIONS]
    in_keys = list(itertools.product(range(n_classes), repeat=len(in_round)))  # the kernel's pattern order
    if not off:
        table = _in_round_table(composition, in_round, classes, lines, n_classes)
        return in_keys, table.astype(object), int(table[:, lines.first_bet_columns].sum())
    # A known card off the round: the round is dealt from the shoe without it. Mix the tables of every card
    # the shoe holds, each weighted by its count (exact Python integers: the sums outgrow 64 bits on big shoes).
    if int(composition.sum()) - 1 < 6:
        raise InputError("shoe", "a card off the round leaves fewer than the six cards a round needs")
    where = positions.index(off[0])
    mixed = np.zeros((n_classes, len(in_keys), lines.n_columns), dtype=object)
    mixed[:] = 0
    cache: dict[bytes, np.ndarray] = {}
    blind_to_suits = not (grouping.suit_aware and in_round)
    for card in range(N_CARD_IDS):
        rank, suit = divmod(card, N_SUITS)
        count = int(composition[rank, suit])
        if count == 0:
            continue
        rest = composition.copy()
        rest[rank, suit] -= 1
        key = _canonical_key(rest) if blind_to_suits else rest.tobytes()
        if key not in cache:
            cache[key] = _in_round_table(rest, in_round, classes, lines, n_classes).astype(object)
        mixed[classes[card]] += count * cache[key]
    keys = [k[:where] + (seen,) + k[where:] for seen in range(n_classes) for k in in_keys]
    order = sorted(range(len(keys)), key=keys.__getitem__)
    weights = mixed.reshape(len(keys), lines.n_columns)[order]
    total = int(sum(weights[:, lines.first_bet_columns].sum(axis=1)))
    return [keys[i] for i in order], weights, total


def _label(grouping: Grouping, classes: tuple[int, ...]) -> str:
    names = [grouping.names[c] for c in classes]
    return "".join(names) if all(len(n) == 1 for n in names) else " ".join(names)


def _check_size(positions, grouping: Grouping) -> None:
    n_patterns = len(grouping.groups) ** len(positions)
    if n_patterns > MAX_PATTERNS:
        raise InputError("positions", f"{len(grouping.groups)} classes at {len(positions)} positions make "
                                      f"{n_patterns:,} observation patterns, over the limit of {MAX_PATTERNS:,}; "
                                      "observe fewer positions or use coarser groups")


def leak_value(rules: Rules, positions=("P1",), grouping: Grouping | None = None, shoe=None) -> LeakResult:
    """The exact value of seeing the group of the cards at ``positions`` before betting.

    Parameters
    ----------
    rules : Rules
        Its bets (side bets included) are the player's options besides sitting
        out; its shoe model says which positions can be seen.
    positions : sequence of str
        Observed positions (:data:`POSITIONS` or :data:`ALIASES`); empty: no
        information.
    grouping : Grouping, optional
        Default: Jacobson's High = {6, 7, 8, 9} against the rest.
    shoe : int or ndarray(int64, shape=(13, 4)), optional
        The shoe the round is dealt from (a deck count or a depleted
        composition); default the rule set's decks.

    Returns
    -------
    LeakResult

    Examples
    --------
    With no information the best action is to sit out:

    >>> from baccarat_sim.model.rules import load_rules
    >>> blind = leak_value(load_rules("default"), [])
    >>> blind.player_edge, blind.rows[0].best_action
    (Fraction(0, 1), 'sit_out')
    """
    grouping = grouping if grouping is not None else high_low((6, 7, 8, 9))
    positions = resolve_positions(rules, positions, grouping)
    _check_size(positions, grouping)
    composition = _shoe_of(rules, shoe)
    lines = _settlement_lines(rules)
    keys, weights, total = _pattern_weights(composition, positions, grouping, lines)
    bet_ids = tuple(bet.id for bet in rules.bets)
    numerators = weights.dot(lines.scaled)
    denominator = lines.denominator
    rows = []
    edge_numerator = 0
    taken = dict.fromkeys((SIT_OUT, *bet_ids), 0)
    blind = [0] * len(bet_ids)
    for key, row_weights, nums in zip(keys, weights, numerators):
        weight = int(sum(row_weights[lines.first_bet_columns]))
        if weight == 0:
            continue  # this pattern cannot be seen in this shoe
        nums = [int(n) for n in nums]
        best = max(nums)
        action = SIT_OUT if best <= 0 else bet_ids[nums.index(best)]
        for b, n in enumerate(nums):
            blind[b] += n
        edge_numerator += max(best, 0)
        taken[action] += weight
        rows.append(PatternResult(
            classes=key,
            label=_label(grouping, key),
            weight=weight,
            probability=Fraction(weight, total),
            ev=tuple(Fraction(n, denominator * weight) for n in nums),
            best_action=action,
            edge=Fraction(max(best, 0), denominator * weight),
        ))
    return LeakResult(
        rules_id=rules.id,
        rules_name=rules.name,
        shoe=composition,
        model=rules.shoe.model,
        positions=positions,
        grouping=grouping,
        bet_ids=bet_ids,
        bet_names=tuple(bet.name for bet in rules.bets),
        rows=tuple(rows),
        total=total,
        player_edge=Fraction(edge_numerator, denominator * total),
        action_frequency={action: Fraction(w, total) for action, w in taken.items()},
        ev_without_information={bet_id: Fraction(n, denominator * total) for bet_id, n in zip(bet_ids, blind)},
    )


def exposed_card(rules: Rules, position: str = "P1", shoe=None, by: str = "card") -> LeakResult:
    """One card seen by accident: the edge for each card it can be, and on average.

    A flashed Player first card is ``position="P1"``; a card known at another
    of the six positions of a round is ``B1 P2 B2 C5 C6`` (the fifth and sixth
    by point value); a shown burn card or the bottom card of a dealt shoe is
    ``burn`` or ``bottom`` (the round comes from the shoe without it).

    Parameters
    ----------
    by : {"card", "rank", "value"}
        How exactly the card is known (``C5``/``C6``: ``"value"``).

    Examples
    --------
    >>> from baccarat_sim.model.rules import load_rules
    >>> flashed = exposed_card(load_rules("default"), "P1", by="value")
    >>> [(row.label, row.best_action, f"{float(row.edge):.3%}") for row in flashed.rows][8:]
    [('8', 'player', '17.294%'), ('9', 'player', '21.528%')]
    """
    return leak_value(rules, [position], each(by), shoe)


def _value_digits(n_positions: int) -> np.ndarray:
    """The point value at each position of every pattern index of an every-value table."""
    index = np.arange(10 ** n_positions)
    return np.stack([(index // 10 ** (n_positions - 1 - i)) % 10 for i in range(n_positions)])


def optimal_sort(rules: Rules, positions=("P1", "B1", "P2", "B2"), shoe=None, top: int = 10) -> OptimalSort:
    """The best split of the ten point values into two sorting groups, over all 1023 High groups.

    One kernel run counts every tuple of point values at the positions
    (10^4 for four); each split is then an aggregation of that table. Every
    split is screened in floating point, and the best are recomputed exactly
    (so the order of the candidates is exact).

    Parameters
    ----------
    positions : sequence of str
        One to four positions of the round (``P1 B1 P2 B2 C5 C6``).
    top : int
        Distinct splits to report.

    Examples
    --------
    >>> from baccarat_sim.model.rules import load_rules
    >>> found = optimal_sort(load_rules("default"), ["P1"], top=2)
    >>> [(c.grouping.member_names(1), f"{float(c.player_edge):.3%}") for c in found.candidates]
    [(('6', '7', '8', '9'), '6.765%'), (('7', '8', '9'), '6.478%')]
    """
    positions = resolve_positions(rules, positions, each("value"))
    if any(p in OFF_ROUND_POSITIONS for p in positions):
        raise InputError("positions", "the optimal sort searches groupings of cards in the round (P1, B1, P2, B2, "
                                      "C5, C6), not of a card off it")
    if not 1 <= len(positions) <= 4:
        raise InputError("positions", f"the optimal sort takes one to four positions, got {len(positions)}")
    if top < 1:
        raise InputError("top", f"must be at least 1, got {top}")
    composition = _shoe_of(rules, shoe)
    lines = _settlement_lines(rules)
    classes = each("value").card_classes()
    table = _in_round_table(composition, positions, classes, lines, 10)
    total = int(table[:, lines.first_bet_columns].sum())
    numerators = table.astype(float) @ lines.scaled.astype(float)  # screening only
    digits = _value_digits(len(positions))
    place = 2 ** np.arange(len(positions) - 1, -1, -1)[:, None]
    screened = []
    for mask in range(1, 1024):
        high_bits = np.array([(mask >> v) & 1 for v in range(10)])
        pattern = (high_bits[digits] * place).sum(axis=0)
        summed = np.stack([np.bincount(pattern, numerators[:, b], minlength=2 ** len(positions))
                           for b in range(numerators.shape[1])], axis=1)
        screened.append((float(np.maximum(summed.max(axis=1), 0).sum()), mask))
    screened.sort(key=lambda item: (-item[0], item[1]))
    # Distinct splits: a High group and its complement sort the same way; name the group without 0 High.
    distinct, seen = [], set()
    for _, mask in screened:
        high = mask if not mask & 1 else 1023 & ~mask
        if high == 0 or high in seen:
            continue
        seen.add(high)
        distinct.append(high)
    exact = []
    for high in distinct[: top + 8]:  # a margin: float ties or near-ties are settled exactly
        grouping = high_low([v for v in range(10) if (high >> v) & 1])
        high_bits = np.array([(high >> v) & 1 for v in range(10)])
        pattern = (high_bits[digits] * place).sum(axis=0)
        summed = np.zeros((2 ** len(positions), lines.n_columns), np.int64)
        np.add.at(summed, pattern, table)
        nums = summed.astype(object).dot(lines.scaled)
        edge = Fraction(sum(max(max(int(n) for n in row), 0) for row in nums), lines.denominator * total)
        exact.append(SortCandidate(grouping, edge))
    exact.sort(key=lambda c: (-c.player_edge, c.grouping.groups[1]))
    candidates = tuple(exact[:top])
    best = leak_value(rules, positions, candidates[0].grouping, composition)
    return OptimalSort(positions, 1023, candidates, best)
