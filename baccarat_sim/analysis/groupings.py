"""How a player classifies a card seen before betting: a partition of point values, of ranks, or every card apart.

Groupings (:class:`Grouping`): by point value (e.g. Jacobson's High =
{6, 7, 8, 9}, Low the rest: :func:`high_low`), by rank, any partition
(:func:`parse_groups`), or each card its own class (exact knowledge:
:func:`each`). The leak analysis (:mod:`baccarat_sim.analysis.leak`) applies
one grouping to every observed position. Ranks and cards are named as
:mod:`baccarat_sim.model.cards` names them.
"""

from __future__ import annotations

import dataclasses
import re

import numpy as np

from ..errors import InputError
from ..model.cards import N_CARD_IDS, N_SUITS, RANK_BY_NAME, RANK_NAMES, RANK_POINTS, card_name

__all__ = ["Grouping", "each", "high_low", "parse_groups"]

#: How people write point values in groups: digits, with A for 1 and T for the ten-value cards (0).
_VALUE_TOKENS = {**{str(v): v for v in range(10)}, "A": 1, "T": 0}
_BY = ("value", "rank", "card")


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
    tokens = _VALUE_TOKENS if by == "value" else RANK_BY_NAME
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
                hint = " (it names a rank: add --by rank)" if by == "value" and item in RANK_BY_NAME else ""
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
