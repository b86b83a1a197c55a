"""The condition language's parser: text to a tree, every problem one line that says where and what is allowed.

A hand-written recursive-descent parser (no ``eval``: rule files are data and
can never run code) of the grammar in :mod:`baccarat_sim.model.conditions`.
It checks every name and value against the features
(:mod:`baccarat_sim.model.features`) and the card attributes
(:mod:`baccarat_sim.model.cardlevel`) as it reads them, and bounds what a
hostile rule file can cost (:data:`MAX_TOKEN`, :data:`MAX_TOKENS`,
:data:`MAX_NESTING`).
"""

from __future__ import annotations

import difflib
import re

from ..errors import ConditionError
from . import poker
from .cardlevel import (
    ATTRIBUTES,
    GROUPS,
    HAND_VALUES,
    POSITIONS,
    Attribute,
    CardValue,
    Compare,
    Count,
    HandValue,
    ValueCompare,
    attribute_domain,
    value_names,
)
from .condition_tree import COMPARISONS, CardTest, Const, Node, Not, OutcomeCompare, OutcomeTest, join
from .features import CARD_FEATURES, FEATURES

__all__ = ["EXCERPT", "MAX_NESTING", "MAX_TOKEN", "MAX_TOKENS", "excerpt", "parse"]

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

_TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z_][A-Za-z_0-9]*)|(==|!=|<=|>=|<|>|\(|\)|\[|\]|,|\.))")
_COMPARE = COMPARISONS
_POSITION_NAMES = {name.lower(): name for name in POSITIONS}
#: The names that open a card-level value with an argument list: ``count(...)`` and the poker values.
_FUNCTIONS = ("count", *HAND_VALUES)


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

    def parse(self) -> Node:
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
        return join("or", parts)

    def and_expr(self):
        parts = [self.not_expr()]
        while self.peek() == "and":
            self.take()
            parts.append(self.not_expr())
        return join("and", parts)

    def not_expr(self):
        if self.peek() == "not":
            self.take()
            self.nest()
            result = Not(self.not_expr())
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
            return Const(token == "true")
        if token is None:
            self.take()
        left = self.value()
        if self.peek() in _COMPARE and self.starts_value(1):
            operator = self.take()
            return self.compared(left, operator, self.value())
        if isinstance(left, str):
            return self.outcome_test(left)
        needs_comparison = isinstance(left, Attribute) or (isinstance(left, HandValue) and left.which in (
            "poker", "kind", "kind_rank"))
        if needs_comparison and self.peek() not in _COMPARE and self.peek() != "in":
            # "True where non-zero" would make an Ace (rank 0 inside) false and a missing card true.
            self.fail(f"{left.text()} needs a comparison, e.g. {left.text()} == {self.example(left)}")
        return self.card_test(left)

    def starts_value(self, ahead: int) -> bool:
        """Whether the token ``ahead`` opens a value (a feature, a card's attribute, a count or poker value)."""
        token, after = self.peek(ahead), self.peek(ahead + 1)
        if token is None:
            return False
        if token.lower() in _POSITION_NAMES and after == ".":
            return True
        if token in _FUNCTIONS and after == "(":
            return True
        return token in CARD_FEATURES or token in FEATURES

    def value(self) -> str | CardValue:
        """A value: an outcome feature (its name) or a card-level value."""
        token = self.peek()
        if token.lower() in _POSITION_NAMES and self.peek(1) == ".":
            return self.attribute_value()
        if token == "count" and self.peek(1) == "(":
            return self.count()
        if token in HAND_VALUES and self.peek(1) == "(":
            return self.hand_value()
        if token in CARD_FEATURES:
            self.take()
            return CARD_FEATURES[token][1]
        if token in FEATURES:
            self.take()
            return token
        if not re.fullmatch(r"[A-Za-z_][A-Za-z_0-9]*", token):
            self.fail(f"expected a feature name but found {token!r}")
        if token.upper().rstrip("0123456789") in ("P", "B") and token[1:].isdigit():
            self.fail_listing(f"no card position {token!r}", f"positions: {', '.join(POSITIONS)}")
        names = sorted(set(FEATURES) | set(CARD_FEATURES))
        close = difflib.get_close_matches(token, names + list(_FUNCTIONS), n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        self.fail_listing(f"unknown feature {token!r}",
                          f"{hint}known features: {', '.join(names)}, POSITION.ATTRIBUTE (positions "
                          f"{', '.join(POSITIONS)}; attributes {', '.join(a for a in ATTRIBUTES if a != 'color')}), "
                          f"count(...), {', '.join(f'{name}(POSITIONS)' for name in HAND_VALUES)}")

    @staticmethod
    def example(value: CardValue) -> str:
        """A literal a test of ``value`` could name (for messages)."""
        if value.kind == "poker":
            return "pair"
        if value.literals() is None:
            return str(value.domain()[-1])
        return value_names(value.literals(), [attribute_domain(value.literals())[1]])[0]

    # -- two values compared

    @staticmethod
    def _kind_of(value) -> str:
        """What a value's values are: card values say; outcome features are numbers but for named ones."""
        if isinstance(value, str):
            return value if FEATURES[value][1] else "number"
        return value.kind

    @staticmethod
    def _text_of(value) -> str:
        return value if isinstance(value, str) else value.text()

    def compared(self, left, operator: str, right) -> Node:
        """``left operator right``: two values of one kind."""
        if isinstance(left, Attribute) and isinstance(right, Attribute):
            if right.attribute != left.attribute:
                self.fail(f"compare a card with a card on the same attribute: {left.text()} {operator} "
                          f"{right.text()}")
            if right.position == left.position:
                self.fail(f"{left.text()} is compared with itself")
            if operator not in ("==", "!=") and not ATTRIBUTES[left.attribute][3]:
                self.fail(f"{left.attribute} values have no order: use == or !=")
            return CardTest(Compare(left.attribute, left.position, operator, right.position), None)
        left_kind, right_kind = self._kind_of(left), self._kind_of(right)
        if left_kind != right_kind:
            self.fail(f"{self._text_of(left)} and {self._text_of(right)} cannot be compared: one is a "
                      f"{left_kind.replace('_', ' ')} value, the other a {right_kind.replace('_', ' ')} value")
        if self._text_of(left) == self._text_of(right):
            self.fail(f"{self._text_of(left)} is compared with itself")
        if operator not in ("==", "!=") and (left_kind in FEATURES or left_kind in ("suit", "colour")):
            self.fail(f"{self._text_of(left)} values have no order: use == or !=")
        if isinstance(left, str) and isinstance(right, str):
            return OutcomeCompare(left, operator, right)
        if not isinstance(left, str) and not isinstance(right, str):
            return CardTest(ValueCompare(left, operator, right), None)
        return self.mixed(left, operator, right)

    def mixed(self, left, operator: str, right) -> Node:
        """A card-level value against an outcome feature, as one case per card value.

        ``(card == v and feature op' v) or ...`` (numbers only; no card has no value: it passes ``!=`` alone).
        """
        card, feature = (left, right) if isinstance(right, str) else (right, left)
        if card is right:  # read "feature op card" as "card op' feature"
            operator = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}.get(operator, operator)
        outcomes = self._outcome_domain(feature)
        parts = []
        for v in card.domain():
            if v == card.none():
                if operator == "!=":
                    parts.append(CardTest(card, frozenset({v})))
                continue
            allowed = frozenset(w for w in outcomes if _COMPARE[operator](v, w))
            if allowed == frozenset(outcomes):
                parts.append(CardTest(card, frozenset({v})))
            elif allowed:
                parts.append(join("and", [CardTest(card, frozenset({v})), OutcomeTest(feature, allowed)]))
        if not parts:
            self.fail(f"{card.text()} {operator} {feature} can never hold")
        return parts[0] if len(parts) == 1 else join("or", parts)

    # -- outcome features

    def outcome_test(self, feature: str) -> OutcomeTest:
        operator = self.peek()
        if operator in _COMPARE or operator == "in":
            allowed = self.comparison(lambda: self.outcome_value(feature), self._outcome_domain(feature))
            return OutcomeTest(feature, allowed)
        return OutcomeTest(feature, None)

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

    def positions(self, what: str) -> tuple[str, ...]:
        """``GROUP``, ``POSITION, POSITION ...`` or ``[POSITION, ...]``: positions in dealing order, each once."""
        if self.peek() in GROUPS:
            return GROUPS[self.take()]
        bracket = self.peek() == "["
        if bracket:
            self.take()
        if self.peek() in (")", "]"):
            self.fail_listing(f"{what} over no card", f"name positions ({', '.join(POSITIONS)}) or a set: "
                                                      f"{', '.join(GROUPS)}")
        over = [self.card_position()]
        while self.peek() == ",":
            self.take()
            over.append(self.card_position())
        if bracket:
            self.take("]")
        if len(set(over)) != len(over):
            self.fail(f"{what} names a position twice")
        return tuple(p for p in POSITIONS if p in over)

    def count(self) -> Count:
        self.take("count")
        self.take("(")
        attribute = self.attribute()
        if self.peek() not in _COMPARE and self.peek() != "in":
            self.fail(f"count(...) needs a test of one card such as colour == red, not {attribute!r} alone")
        domain = sorted(set(int(v) for v in ATTRIBUTES[attribute][0]))
        allowed = self.comparison(lambda: self.literal(attribute), domain, attribute)
        over: tuple[str, ...] = GROUPS["all"]
        if self.peek() == ",":
            self.take()
            over = self.positions("count(...)")
        self.take(")")
        none = int(ATTRIBUTES[attribute][0][-1])
        if not allowed - {none}:
            self.fail("count(...) over a test no card can pass")
        return Count(attribute, frozenset(allowed - {none}), over)

    def hand_value(self) -> HandValue:
        """``poker(POSITIONS)`` and the other poker values of the cards at some positions."""
        which = self.take()
        self.take("(")
        over = self.positions(f"{which}(...)")
        self.take(")")
        return HandValue(which, over)

    def card_test(self, value: CardValue) -> CardTest:
        operator = self.peek()
        if operator in _COMPARE or operator == "in":
            if value.literals() is not None:
                read = lambda: self.literal(value.literals())  # noqa: E731
            elif value.kind == "poker":
                read = self.category_literal
            else:
                read = lambda: self.number_literal(value)  # noqa: E731
            return CardTest(value, self.comparison(read, value.domain(), value.literals(), value.ordered()))
        return CardTest(value, None)

    def category_literal(self) -> int:
        token = self.take()
        if token in poker.CATEGORY_BY_NAME:
            return poker.CATEGORY_BY_NAME[token]
        words = token.split("_")
        # The longest leading words that name a category first (royal_flush: royal, not the closer-spelled
        # straight_flush; full_house_bonus: full_house), else the closest spelling.
        heads = ["_".join(words[:n]) for n in range(len(words) - 1, 0, -1)]
        close = ([head for head in heads if head in poker.CATEGORY_BY_NAME][:1]
                 or difflib.get_close_matches(token, list(poker.CATEGORY_BY_NAME), n=1))
        hint = f"did you mean {close[0]!r}? " if close else ""
        self.fail_listing(f"no poker category {token!r}",
                          f"{hint}categories: {', '.join(poker.CATEGORIES)} (mini_royal: royal)")

    def number_literal(self, value: CardValue) -> int:
        token = self.take()
        domain = value.domain()
        if not token.isdigit() or int(token) not in domain:
            self.fail(f"{value.text()} takes values {min(domain)} to {max(domain)}, not {token!r}")
        return int(token)

    def comparison(self, read, domain: list[int], attribute: str | None = None, ordered: bool = True) -> frozenset:
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
        if (attribute is not None and not ATTRIBUTES[attribute][3]) or not ordered:
            self.fail(f"{attribute} values have no order: use ==, != or in [...]")
        if value == none:
            self.fail("none has no order: use == none or != none")
        compare = _COMPARE[operator]
        return frozenset(v for v in domain if v != none and compare(v, value))


def parse(text: str) -> Node:
    """The tree of a condition.

    Raises
    ------
    ConditionError
        One line naming what cannot be read, where, and what is allowed.
    """
    return _Parser(text).parse()
