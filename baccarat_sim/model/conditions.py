"""A small, safe condition language over a round's outcome and its cards.

A bet's pay table says *when* each payout applies with a condition such as::

    winner == banker and banker_score == 6 and banker_cards == 3
    player_pair or banker_pair
    first_card in [tie, suited_tie]
    count(colour == red, first_four) in [0, 4]
    banker_two_card_total == 3 and P3.rank == 8
    player_flush or P1.suit == hearts

The grammar (no ``eval``; rule files are data and can never run code)::

    expr     := or_expr
    or_expr  := and_expr ("or" and_expr)*
    and_expr := not_expr ("and" not_expr)*
    not_expr := "not" not_expr | atom
    atom     := "(" expr ")" | "true" | "false" | value [op literal | "in" "[" literal ("," literal)* "]"]
    value    := FEATURE | POSITION "." ATTRIBUTE | "count" "(" test ["," positions] ")"
              | POSITION "." ATTRIBUTE op POSITION "." ATTRIBUTE     (two cards compared, same attribute)
    test     := ATTRIBUTE op literal | ATTRIBUTE "in" "[" literal ("," literal)* "]"
    positions:= POSITION ("," POSITION)* | first_four | player | banker | all
    op       := "==" | "!=" | "<" | "<=" | ">" | ">="
    literal  := INTEGER | NAME      (a name is a symbolic value, e.g. banker, hearts, red, K, none)

A bare value is true where it is non-zero. Outcome features (``winner``,
``player_pair``, ...) are read from the 14,400 outcome codes; card-level
values (``P1.suit``, ``count(...)``, ``player_two_card_total``,
``player_flush``, ...; :mod:`baccarat_sim.model.cardlevel`) from the cards.
Every maximal card-only part of a condition becomes an *atom* evaluated by the
engines; the rest is a numpy mask over the outcome codes, so a pay table is
settled by a handful of vectorised comparisons, never per round.

Not every code can happen at the table (a Banker natural beside a three-card
Player hand cannot): :func:`possible_codes` says which can, and the rule-set
validator uses it to reject pay-table lines that could never pay.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import re

import numpy as np

from ..errors import ConditionError
from .cardlevel import (
    ATTRIBUTES,
    GROUPS,
    HAND_PATTERNS,
    POSITIONS,
    Atom,
    Attribute,
    CardValue,
    Compare,
    Count,
    HandPattern,
    Membership,
    TwoCardTotal,
    attribute_domain,
    value_names,
)
from .cards import N_RANKS, RANK_POINTS
from .codes import FIELDS, N_CODES, code_of, field_grid, first_card_status, pair_status, suffix_of
from .tableau import THIRD_CARD_PREFIX, is_natural, third_card_index

__all__ = ["CARD_FEATURES", "FEATURES", "MAX_NESTING", "Condition", "ConditionError", "atom_of_text",
           "compile_condition", "covers", "evaluate", "feature_table", "possible_codes"]

#: Deepest nesting of parentheses and ``not`` in a condition.
MAX_NESTING = 64
#: Longest condition text quoted in full in a message.
EXCERPT = 80
#: Longest word or number in a condition (the longest feature name has 22 characters): a 5,000-digit number
#: would otherwise reach ``int()`` and a 200 KB word every message that quotes it.
MAX_TOKEN = 40
#: Most words, numbers and signs in one condition (the longest shipped one has 151): every comparison builds a mask
#: over all outcomes, so a 4 MB condition would take gigabytes and minutes.
MAX_TOKENS = 2000


#: Feature name -> (description, symbolic values or None, allowed integer range).
FEATURES: dict[str, tuple[str, dict[str, int] | None, tuple[int, int]]] = {
    "winner": ("the winning hand", {"player": 0, "banker": 1, "tie": 2}, (0, 2)),
    "player_score": ("the Player's final score", None, (0, 9)),
    "banker_score": ("the Banker's final score", None, (0, 9)),
    "winner_score": ("the winning hand's score (the tied score on a tie)", None, (0, 9)),
    "loser_score": ("the losing hand's score (the tied score on a tie)", None, (0, 9)),
    "margin": ("winning score minus losing score (0 on a tie)", None, (0, 9)),
    "player_cards": ("cards in the Player's hand", None, (2, 3)),
    "banker_cards": ("cards in the Banker's hand", None, (2, 3)),
    "total_cards": ("cards in both hands", None, (4, 6)),
    "player_natural": ("the Player has a two-card 8 or 9", None, (0, 1)),
    "banker_natural": ("the Banker has a two-card 8 or 9", None, (0, 1)),
    "natural": ("either hand has a natural", None, (0, 1)),
    "winner_natural": ("the winning hand has a natural", None, (0, 1)),
    "player_pair": ("the Player's first two cards have equal rank", None, (0, 1)),
    "banker_pair": ("the Banker's first two cards have equal rank", None, (0, 1)),
    "any_pair": ("the Player or the Banker has a pair", None, (0, 1)),
    "player_perfect_pair": ("the Player's first two cards have equal rank and suit", None, (0, 1)),
    "banker_perfect_pair": ("the Banker's first two cards have equal rank and suit", None, (0, 1)),
    "first_card": (
        "Player's vs Banker's first card by rank (Ace low, King high)",
        {"player_high": 0, "banker_high": 1, "tie": 2, "suited_tie": 3},
        (0, 3),
    ),
    "first_card_tie": ("the two first cards have equal rank (suited or not)", None, (0, 1)),
    "player_drew": ("the Player drew a third card", None, (0, 1)),
    "banker_drew": ("the Banker drew a third card", None, (0, 1)),
}

#: Card-level features by name: hand patterns and two-card totals (see :mod:`baccarat_sim.model.cardlevel`).
CARD_FEATURES: dict[str, tuple[str, CardValue]] = {
    f"{hand}_two_card_total": (f"the {hand.capitalize()}'s total on its first two cards (0-9)", TwoCardTotal(hand))
    for hand in ("player", "banker")
}
CARD_FEATURES.update({
    f"{hand}_{pattern}": (f"the {hand.capitalize()}'s hand: {meaning}", HandPattern(hand, pattern))
    for hand in ("player", "banker") for pattern, meaning in HAND_PATTERNS.items()
})


@functools.lru_cache(maxsize=1)
def feature_table() -> dict[str, np.ndarray]:
    """Every feature evaluated over all outcome codes (read-only arrays)."""
    g = field_grid()
    ps, bs = g["player_score"], g["banker_score"]
    # A code's score is a two-card total exactly when its hand has two cards.
    player_natural = (g["player_cards"] == 0) & is_natural(ps)
    banker_natural = (g["banker_cards"] == 0) & is_natural(bs)
    winner = np.where(ps > bs, 0, np.where(bs > ps, 1, 2))
    table = {
        "winner": winner,
        "player_score": ps,
        "banker_score": bs,
        "winner_score": np.maximum(ps, bs),
        "loser_score": np.minimum(ps, bs),
        "margin": np.abs(ps - bs),
        "player_cards": g["player_cards"] + 2,
        "banker_cards": g["banker_cards"] + 2,
        "total_cards": g["player_cards"] + g["banker_cards"] + 4,
        "player_natural": player_natural,
        "banker_natural": banker_natural,
        "natural": player_natural | banker_natural,
        "winner_natural": np.where(winner == 0, player_natural, np.where(winner == 1, banker_natural, False)),
        "player_pair": g["player_pair"] > 0,
        "banker_pair": g["banker_pair"] > 0,
        "any_pair": (g["player_pair"] > 0) | (g["banker_pair"] > 0),
        "player_perfect_pair": g["player_pair"] == 2,
        "banker_perfect_pair": g["banker_pair"] == 2,
        "first_card": g["first_card"],
        "first_card_tie": g["first_card"] >= 2,
        "player_drew": g["player_cards"] == 1,
        "banker_drew": g["banker_cards"] == 1,
    }
    for name, values in table.items():
        values = np.asarray(values, dtype=np.int64)
        values.setflags(write=False)
        table[name] = values
    assert set(table) == set(FEATURES)
    return table


@functools.lru_cache(maxsize=1)
def possible_codes() -> np.ndarray:
    """Which outcome codes can happen at the table.

    A code is possible when some deal of cards produces it under the drawing
    rules. The answer is worked out from the rules of play alone (no shoe, no
    numba): every rank of the first four cards, every point value of the two
    third cards. Whether the first cards also match in suit (perfect pairs, a
    suited first-card tie) is free given equal ranks, because the three suit
    relations (Player's two cards, Banker's two cards, the two first cards)
    form a tree and never constrain one another. Every standard shoe of four or
    more decks deals every possible code (fewer decks cannot deal, for example,
    two perfect pairs on a suited first-card tie: four identical cards).

    Returns
    -------
    ndarray(bool, shape=(N_CODES,))
        Read-only.

    Examples
    --------
    >>> int(possible_codes().sum())
    5388
    """
    ranks = np.arange(N_RANKS)
    p1, b1, p2, b2 = (a.ravel() for a in np.meshgrid(ranks, ranks, ranks, ranks, indexing="ij"))
    player_two = (RANK_POINTS[p1] + RANK_POINTS[p2]) % 10
    banker_two = (RANK_POINTS[b1] + RANK_POINTS[b2]) % 10
    suffix = suffix_of(pair_status(p1 == p2, False), pair_status(b1 == b2, False), first_card_status(p1, b1, False))
    # Only these three numbers of the first four cards matter from here on.
    signature = np.unique(np.stack([player_two, banker_two, suffix], axis=1), axis=0)
    pt, bt, sfx = (signature[:, i, None, None] for i in range(3))
    third_p, third_b = np.arange(10)[None, :, None], np.arange(10)[None, None, :]
    codes = code_of(THIRD_CARD_PREFIX[third_card_index(pt, bt, third_p, third_b)], sfx)
    possible = np.zeros(N_CODES, bool)
    possible[codes.ravel()] = True
    # Equal ranks may also be equal suits: pair 1 -> 2, tie 2 -> 3, independently.
    grid = field_grid()
    for name, plain, suited in (("player_pair", 1, 2), ("banker_pair", 1, 2), ("first_card", 2, 3)):
        names = [field for field, _ in FIELDS]
        step = int(np.prod([size for _, size in FIELDS[names.index(name) + 1:]]))
        from_plain = np.flatnonzero(possible & (grid[name] == plain))
        possible[from_plain + (suited - plain) * step] = True
    possible.setflags(write=False)
    return possible


_TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z_][A-Za-z_0-9]*)|(==|!=|<=|>=|<|>|\(|\)|\[|\]|,|\.))")
_COMPARE = {
    "==": np.equal,
    "!=": np.not_equal,
    "<": np.less,
    "<=": np.less_equal,
    ">": np.greater,
    ">=": np.greater_equal,
}
_POSITION_NAMES = {name.lower(): name for name in POSITIONS}


def excerpt(text: str) -> str:
    """A condition quoted for a message: whole when short, else its start and end."""
    return repr(text) if len(text) <= EXCERPT else repr(text[: EXCERPT - 20] + " ... " + text[-15:])


def _tokenize(text: str) -> list[str]:
    tokens, position = [], 0
    text = text.rstrip()
    while position < len(text):
        match = _TOKEN.match(text, position)
        if not match or match.end() == position:
            raise ConditionError("", f"unexpected character {text[position:].strip()[:1]!r} in {excerpt(text)}")
        token = match.group(match.lastindex)
        if len(token) > MAX_TOKEN:
            raise ConditionError("", f"a {'number' if token.isdigit() else 'word'} of {len(token):,} characters "
                                     f"({excerpt(token)}), more than the limit of {MAX_TOKEN}, in {excerpt(text)}")
        tokens.append(token)
        if len(tokens) > MAX_TOKENS:
            raise ConditionError("", f"more than the limit of {MAX_TOKENS:,} words, numbers and signs in "
                                     f"{excerpt(text)} ({len(text):,} characters); split it into several cases")
        position = match.end()
    return tokens


# --------------------------------------------------------------------------- the tree


@dataclasses.dataclass(frozen=True)
class _Node:
    def is_card(self) -> bool:
        """Whether the node reads only cards (no outcome feature)."""
        raise NotImplementedError


@dataclasses.dataclass(frozen=True)
class _Const(_Node):
    value: bool

    def is_card(self):
        return True


@dataclasses.dataclass(frozen=True)
class _Not(_Node):
    child: _Node

    def is_card(self):
        return self.child.is_card()


@dataclasses.dataclass(frozen=True)
class _Join(_Node):
    op: str  # "and" | "or"
    children: tuple

    def is_card(self):
        return all(child.is_card() for child in self.children)


@dataclasses.dataclass(frozen=True)
class _OutcomeTest(_Node):
    """An outcome feature tested against a set of values (None: non-zero)."""

    feature: str
    allowed: frozenset | None

    def is_card(self):
        return False


@dataclasses.dataclass(frozen=True)
class _CardTest(_Node):
    """A card-level value tested against a set of values (None: non-zero)."""

    value: CardValue
    allowed: frozenset | None

    def is_card(self):
        return True


def _text(node: _Node) -> str:
    """Canonical text of a tree (an atom's identity: equal texts mean equal functions)."""
    if isinstance(node, _Const):
        return "true" if node.value else "false"
    if isinstance(node, _Not):
        return f"not ({_text(node.child)})"
    if isinstance(node, _Join):
        return f" {node.op} ".join(f"({_text(c)})" for c in node.children)
    if isinstance(node, _OutcomeTest):
        return node.feature if node.allowed is None else f"{node.feature} in {sorted(node.allowed)}"
    if node.allowed is None:
        return node.value.text()
    if isinstance(node.value, Attribute):
        return f"{node.value.text()} in [{', '.join(value_names(node.value.attribute, node.allowed))}]"
    return f"{node.value.text()} in {sorted(node.allowed)}"


def _card_values(node: _Node) -> list[CardValue]:
    """What an atom must tell apart of each card: a tested attribute only as pass or fail."""
    if isinstance(node, _CardTest):
        if isinstance(node.value, Attribute) and node.allowed is not None:
            return [Membership(node.value.position, node.value.attribute, node.allowed)]
        return [node.value]
    if isinstance(node, _Not):
        return _card_values(node.child)
    if isinstance(node, _Join):
        return [v for child in node.children for v in _card_values(child)]
    return []


def _evaluate_cards(node: _Node, cards: dict) -> np.ndarray:
    """A card-only tree over arrays of card values (by position)."""
    if isinstance(node, _Const):
        return np.asarray(node.value)
    if isinstance(node, _Not):
        return ~_evaluate_cards(node.child, cards)
    if isinstance(node, _Join):
        parts = [_evaluate_cards(child, cards) for child in node.children]
        result = parts[0]
        for part in parts[1:]:
            result = (result & part) if node.op == "and" else (result | part)
        return result
    values = node.value.evaluate(cards)
    return values != 0 if node.allowed is None else np.isin(values, sorted(node.allowed))


def _join(op: str, parts: list) -> _Node:
    """``a op b op ...``, the card-only parts gathered into one subtree (one atom, not several)."""
    if len(parts) == 1:
        return parts[0]
    cards = [p for p in parts if p.is_card() and not isinstance(p, _Const)]
    if 1 < len(cards) < len(parts):
        others = [p for p in parts if not (p.is_card() and not isinstance(p, _Const))]
        return _Join(op, (_Join(op, tuple(cards)), *others))
    return _Join(op, tuple(parts))


# --------------------------------------------------------------------------- parsing


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.tokens = _tokenize(text)
        self.position = 0
        self.depth = 0

    def fail(self, message: str):
        raise ConditionError("", f"{message} in {excerpt(self.text)}")

    def fail_listing(self, problem: str, listing: str):
        """Fail with ``problem``, where it is, then a long ``listing`` (the allowed values)."""
        raise ConditionError("", f"{problem} in {excerpt(self.text)}; {listing}")

    def peek(self, ahead: int = 0):
        index = self.position + ahead
        return self.tokens[index] if index < len(self.tokens) else None

    def take(self, expected=None):
        token = self.peek()
        if token is None:
            raise ConditionError("", f"condition ends too early: {excerpt(self.text)}")
        if expected is not None and token != expected:
            self.fail(f"expected {expected!r} but found {token!r}")
        self.position += 1
        return token

    def parse(self) -> _Node:
        if not self.tokens:
            raise ConditionError("", "empty condition")
        result = self.or_expr()
        if self.peek() is not None:
            self.fail(f"unexpected {self.peek()!r}")
        return result

    def nest(self):
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise ConditionError("", f"nested more than {MAX_NESTING} levels of parentheses or 'not' in "
                                     f"{excerpt(self.text)}")

    def or_expr(self):
        parts = [self.and_expr()]
        while self.peek() == "or":
            self.take()
            parts.append(self.and_expr())
        return _join("or", parts)

    def and_expr(self):
        parts = [self.not_expr()]
        while self.peek() == "and":
            self.take()
            parts.append(self.not_expr())
        return _join("and", parts)

    def not_expr(self):
        if self.peek() == "not":
            self.take()
            self.nest()
            result = _Not(self.not_expr())
            self.depth -= 1
            return result
        return self.atom()

    def atom(self):
        token = self.peek()
        if token == "(":
            self.take()
            self.nest()
            result = self.or_expr()
            self.take(")")
            self.depth -= 1
            return result
        if token in ("true", "false"):
            self.take()
            return _Const(token == "true")
        if token is None:
            self.take()
        if token.lower() in _POSITION_NAMES and self.peek(1) == ".":
            value = self.attribute_value()
            other = self.peek(1)
            if (self.peek() in _COMPARE and other is not None and other.lower() in _POSITION_NAMES
                    and self.peek(2) == "."):
                return self.card_compare(value)
            if self.peek() not in _COMPARE and self.peek() != "in":
                # "True where non-zero" would make an Ace (rank 0 inside) false and a missing card true.
                self.fail(f"{value.text()} needs a comparison, e.g. {value.text()} == "
                          f"{value_names(value.attribute, [attribute_domain(value.attribute)[1]])[0]}")
            return self.card_test(value)
        if token == "count" and self.peek(1) == "(":
            return self.card_test(self.count())
        if token in CARD_FEATURES:
            self.take()
            return self.card_test(CARD_FEATURES[token][1])
        if token in FEATURES:
            self.take()
            return self.outcome_test(token)
        if not re.fullmatch(r"[A-Za-z_][A-Za-z_0-9]*", token):
            self.fail(f"expected a feature name but found {token!r}")
        if token.upper().rstrip("0123456789") in ("P", "B") and token[1:].isdigit():
            self.fail_listing(f"no card position {token!r}", f"positions: {', '.join(POSITIONS)}")
        names = sorted(set(FEATURES) | set(CARD_FEATURES))
        close = difflib.get_close_matches(token, names + ["count"], n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        self.fail_listing(f"unknown feature {token!r}",
                          f"{hint}known features: {', '.join(names)}, POSITION.ATTRIBUTE (positions "
                          f"{', '.join(POSITIONS)}; attributes {', '.join(a for a in ATTRIBUTES if a != 'color')}), "
                          "count(...)")

    # -- outcome features

    def outcome_test(self, feature: str) -> _OutcomeTest:
        operator = self.peek()
        if operator in _COMPARE or operator == "in":
            allowed = self.comparison(lambda: self.outcome_value(feature), self._outcome_domain(feature))
            return _OutcomeTest(feature, allowed)
        return _OutcomeTest(feature, None)

    @staticmethod
    def _outcome_domain(feature: str) -> list[int]:
        _, _, (low, high) = FEATURES[feature]
        return list(range(low, high + 1))

    def outcome_value(self, feature: str) -> int:
        token = self.take()
        _, symbols, (low, high) = FEATURES[feature]
        if token.isdigit():
            number = int(token)
            if not low <= number <= high:
                self.fail(f"{feature} takes values {low} to {high}, not {number}")
            return number
        if symbols and token in symbols:
            return symbols[token]
        allowed = ", ".join(symbols) if symbols else f"integers {low} to {high}"
        self.fail_listing(f"{feature} cannot be {token!r}", f"allowed: {allowed}")

    # -- card-level values

    def card_position(self) -> str:
        token = self.take()
        name = _POSITION_NAMES.get(token.lower())
        if name is None:
            self.fail_listing(f"no card position {token!r}", f"positions: {', '.join(POSITIONS)}, or first_four, "
                                                             "player, banker, all")
        return name

    def attribute(self) -> str:
        token = self.take()
        if token not in ATTRIBUTES:
            close = difflib.get_close_matches(token, ATTRIBUTES, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            self.fail_listing(f"unknown card attribute {token!r}", f"{hint}attributes: rank, point, suit, colour")
        return "colour" if token == "color" else token

    def attribute_value(self) -> Attribute:
        position = self.card_position()
        self.take(".")
        return Attribute(position, self.attribute())

    def literal(self, attribute: str) -> int:
        token = self.take()
        _, symbols, numbers, _ = ATTRIBUTES[attribute]
        if token.isdigit() and numbers is not None:
            low, high, offset = numbers
            number = int(token)
            if not low <= number <= high:
                self.fail(f"{attribute} takes numbers {low} to {high}, not {number}")
            return number + offset
        if token in symbols or token.lower() in symbols:
            return symbols[token] if token in symbols else symbols[token.lower()]
        words = ", ".join(name for name in symbols if len(name) > 1 or attribute == "rank")
        close = difflib.get_close_matches(token.lower(), [name for name in symbols if len(name) > 1], n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        self.fail_listing(f"{attribute} cannot be {token!r}", f"{hint}allowed: {words}"
                          + (f", or numbers {numbers[0]} to {numbers[1]}" if numbers else ""))

    def count(self) -> Count:
        self.take("count")
        self.take("(")
        attribute = self.attribute()
        if self.peek() not in _COMPARE and self.peek() != "in":
            self.fail(f"count(...) needs a test of one card such as colour == red, not {attribute!r} alone")
        domain = sorted(set(int(v) for v in ATTRIBUTES[attribute][0]))
        allowed = self.comparison(lambda: self.literal(attribute), domain, attribute)
        over: list[str] = []
        if self.peek() == ",":
            self.take()
            if self.peek() == ")":
                self.fail_listing("count(...) over no card", f"name positions ({', '.join(POSITIONS)}) or a set: "
                                                             f"{', '.join(GROUPS)}")
            if self.peek() in GROUPS:
                over = list(GROUPS[self.take()])
            else:
                over.append(self.card_position())
                while self.peek() == ",":
                    self.take()
                    over.append(self.card_position())
        else:
            over = list(GROUPS["all"])
        self.take(")")
        none = int(ATTRIBUTES[attribute][0][-1])
        if not allowed - {none}:
            self.fail("count(...) over a test no card can pass")
        if len(set(over)) != len(over):
            self.fail("count(...) names a position twice")
        return Count(attribute, frozenset(allowed - {none}), tuple(p for p in POSITIONS if p in over))

    def card_compare(self, left: Attribute) -> _CardTest:
        operator = self.take()
        right = self.attribute_value()
        if right.attribute != left.attribute:
            self.fail(f"compare a card with a card on the same attribute: {left.text()} {operator} {right.text()}")
        if right.position == left.position:
            self.fail(f"{left.text()} is compared with itself")
        if operator not in ("==", "!=") and not ATTRIBUTES[left.attribute][3]:
            self.fail(f"{left.attribute} values have no order: use == or !=")
        return _CardTest(Compare(left.attribute, left.position, operator, right.position), None)

    def card_test(self, value: CardValue) -> _CardTest:
        operator = self.peek()
        if operator in _COMPARE or operator == "in":
            attribute = value.attribute if isinstance(value, Attribute) else None
            read = (lambda: self.literal(attribute)) if attribute else (lambda: self.number_literal(value))
            return _CardTest(value, self.comparison(read, value.domain(), attribute))
        return _CardTest(value, None)

    def number_literal(self, value: CardValue) -> int:
        token = self.take()
        domain = value.domain()
        if not token.isdigit() or int(token) not in domain:
            self.fail(f"{value.text()} takes values {min(domain)} to {max(domain)}, not {token!r}")
        return int(token)

    def comparison(self, read, domain: list[int], attribute: str | None = None) -> frozenset:
        """``op literal`` or ``in [literals]`` as the set of values it allows (``none`` only by name)."""
        operator = self.take()
        none = int(ATTRIBUTES[attribute][0][-1]) if attribute else None
        if operator == "in":
            self.take("[")
            values = {read()}
            while self.peek() == ",":
                self.take()
                values.add(read())
            self.take("]")
            return frozenset(values)
        value = read()
        if operator == "==":
            return frozenset({value})
        if operator == "!=":
            return frozenset(set(domain) - {value})
        if attribute is not None and not ATTRIBUTES[attribute][3]:
            self.fail(f"{attribute} values have no order: use ==, != or in [...]")
        if value == none:
            self.fail("none has no order: use == none or != none")
        compare = _COMPARE[operator]
        return frozenset(v for v in domain if v != none and compare(v, value))


# --------------------------------------------------------------------------- compiled conditions


@dataclasses.dataclass(frozen=True, eq=False)
class Condition:
    """A parsed condition: outcome tests over the codes and card-only atoms.

    Attributes
    ----------
    text : str
        As written.
    atoms : tuple of Atom
        The card-only parts, in the order they appear (empty for an outcome-only condition).
    """

    text: str
    tree: _Node
    atoms: tuple

    @property
    def card_level(self) -> bool:
        """Whether the condition reads cards, not only the outcome."""
        return bool(self.atoms)

    def mask(self, atom_bits: dict | None = None) -> np.ndarray:
        """The condition over the outcome codes, and over the card detail when it reads cards.

        Parameters
        ----------
        atom_bits : dict of str to ndarray(bool, shape=(n_details,)) or None
            Each atom's value in each card detail (by atom text); needed when
            the condition has atoms.

        Returns
        -------
        ndarray(bool, shape=(N_CODES,)) or (n_details, N_CODES)
            Over the codes alone for an outcome-only condition.
        """
        return _mask(self.tree, atom_bits)


def _mask(node: _Node, atom_bits) -> np.ndarray:
    if atom_bits and node.is_card() and _text(node) in atom_bits:
        return atom_bits[_text(node)][:, None]
    if isinstance(node, _Const):
        return np.full(N_CODES, node.value)
    if isinstance(node, _Not):
        return ~_mask(node.child, atom_bits)
    if isinstance(node, _Join):
        parts = [_mask(child, atom_bits) for child in node.children]
        result = parts[0]
        for part in parts[1:]:
            result = (result & part) if node.op == "and" else (result | part)
        return result
    values = feature_table()[node.feature]
    return values != 0 if node.allowed is None else np.isin(values, sorted(node.allowed))


#: Most table cells of an atom made of several card tests joined by and/or; a larger one stays several atoms.
MERGE_CELLS = 4096


def _atoms(node: _Node, found: dict) -> None:
    """The maximal card-only subtrees, compiled once each (by text).

    Card tests joined by and/or become one atom (one bit of card detail) while
    its table stays small; otherwise each part is its own atom.
    """
    if node.is_card() and not isinstance(node, _Const):
        text = _text(node)
        if text in found:
            return
        try:
            atom = Atom.build(text, _card_values(node), lambda cards: _evaluate_cards(node, cards))
        except ValueError as error:
            if not isinstance(node, (_Join, _Not)):  # a join, negated or not, splits into its parts' atoms
                raise ConditionError("", f"{text}: {error}") from None
            atom = None
        if atom is not None and (atom.truth.size <= MERGE_CELLS or not isinstance(node, _Join)):
            found[text] = atom
            return
    for child in (node.children if isinstance(node, _Join) else (node.child,) if isinstance(node, _Not) else ()):
        _atoms(child, found)


def compile_condition(condition: str) -> Condition:
    """Parse a condition and compile its card-only parts.

    Raises
    ------
    ConditionError
        If it cannot be read, names an unknown feature, position, attribute or
        value, nests too deeply, or counts over no card.

    Examples
    --------
    >>> colour_match = compile_condition("count(colour == red, first_four) in [0, 4]")
    >>> colour_match.card_level, len(colour_match.atoms), colour_match.atoms[0].positions
    (True, 1, ('P1', 'B1', 'P2', 'B2'))
    """
    if not isinstance(condition, str):
        raise ConditionError("", f"a condition must be a string, got {condition!r}")
    return _compile(condition)


@functools.lru_cache(maxsize=2048)
def _compile(condition: str) -> Condition:
    tree = _Parser(condition).parse()
    found: dict = {}
    _atoms(tree, found)
    return Condition(condition, tree, tuple(found.values()))


def atom_of_text(text: str) -> Atom:
    """The atom whose canonical text is ``text`` (as a saved histogram names it).

    Raises
    ------
    ValueError
        When ``text`` is not the canonical text of one atom.
    """
    try:
        atoms = compile_condition(text).atoms
    except ConditionError as error:
        raise ValueError(f"card detail {excerpt(text)}: {error.message}") from None
    if len(atoms) != 1 or atoms[0].text != text:
        raise ValueError(f"card detail {excerpt(text)} is not one card-only condition")
    return atoms[0]


def covers(condition: str, atom_texts) -> bool:
    """Whether a card detail with atoms ``atom_texts`` settles ``condition`` (every card-only part is among them)."""
    texts = set(atom_texts)

    def covered(node: _Node) -> bool:
        if node.is_card() and not isinstance(node, _Const) and _text(node) in texts:
            return True
        if isinstance(node, _Not):
            return covered(node.child)
        if isinstance(node, _Join):
            return all(covered(child) for child in node.children)
        return not node.is_card() or isinstance(node, _Const)

    return covered(compile_condition(condition).tree)


def evaluate(condition: str) -> np.ndarray:
    """Evaluate an outcome-only condition over every outcome code.

    Parameters
    ----------
    condition : str
        See the module docstring for the grammar.

    Returns
    -------
    ndarray(bool, shape=(N_CODES,))
        Read-only (masks are cached per condition text).

    Raises
    ------
    ConditionError
        If the condition cannot be read, names an unknown feature or value, or
        reads cards (use :func:`compile_condition` and a card detail).

    Examples
    --------
    >>> int(evaluate("winner == tie and player_score == 9").sum())  # codes, not rounds
    144
    """
    compiled = compile_condition(condition)
    if compiled.card_level:
        raise ConditionError("", f"{excerpt(condition)} reads cards: it needs the card detail of a rule set")
    return _evaluate(condition)


@functools.lru_cache(maxsize=1024)
def _evaluate(condition: str) -> np.ndarray:
    # Pay tables are settled again and again (per report, per deck count): evaluate each condition once. The
    # mask is shared, so it is read-only.
    mask = np.broadcast_to(compile_condition(condition).mask(), (N_CODES,)).copy()
    mask.setflags(write=False)
    return mask
