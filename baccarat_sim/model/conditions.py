"""A small, safe condition language evaluated over the whole outcome-code grid.

A bet's pay table says *when* each payout applies with a condition such as::

    winner == banker and banker_score == 6 and banker_cards == 3
    player_pair or banker_pair
    margin >= 4 and not natural
    first_card in [tie, suited_tie]

The grammar (no ``eval``; rule files are data and can never run code)::

    expr     := or_expr
    or_expr  := and_expr ("or" and_expr)*
    and_expr := not_expr ("and" not_expr)*
    not_expr := "not" not_expr | atom
    atom     := "(" expr ")" | "true" | "false" | FEATURE [op value | "in" "[" value ("," value)* "]"]
    op       := "==" | "!=" | "<" | "<=" | ">" | ">="
    value    := INTEGER | NAME      (a name is a symbolic value of the feature, e.g. banker)

A bare feature is true where it is non-zero. Every condition evaluates to a
boolean ``ndarray(shape=(N_CODES,))`` over all outcome codes at once, so a pay
table is settled by a handful of vectorised comparisons, never per round.

Not every code can happen at the table (a Banker natural beside a three-card
Player hand cannot): :func:`possible_codes` says which can, and the rule-set
validator uses it to reject pay-table lines that could never pay.
"""

from __future__ import annotations

import difflib
import functools
import re

import numpy as np

from ..errors import ConditionError
from .cards import N_RANKS, RANK_POINTS
from .codes import FIELDS, N_CODES, encode, field_grid
from .tableau import BANKER_DRAWS

__all__ = ["FEATURES", "ConditionError", "evaluate", "feature_table", "possible_codes"]


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
}


@functools.lru_cache(maxsize=1)
def feature_table() -> dict[str, np.ndarray]:
    """Every feature evaluated over all outcome codes (read-only arrays)."""
    g = field_grid()
    ps, bs = g["player_score"], g["banker_score"]
    player_natural = (g["player_cards"] == 0) & (ps >= 8)
    banker_natural = (g["banker_cards"] == 0) & (bs >= 8)
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
    pair_p = (p1 == p2).astype(np.int64)
    pair_b = (b1 == b2).astype(np.int64)
    first = np.where(p1 > b1, 0, np.where(b1 > p1, 1, 2))
    # Only these five numbers of the first four cards matter from here on.
    signature = np.unique(np.stack([player_two, banker_two, pair_p, pair_b, first], axis=1), axis=0)
    pt, bt, pp, bp, fc = (signature[:, i, None, None] for i in range(5))
    third_p, third_b = np.arange(10)[None, :, None], np.arange(10)[None, None, :]
    natural = (pt >= 8) | (bt >= 8)
    player_draws = ~natural & (pt <= 5)
    player_score = np.where(player_draws, (pt + third_p) % 10, pt)
    column = np.where(player_draws, 1 + third_p, 0)
    banker_draws = ~natural & (BANKER_DRAWS[bt, column] == 1)
    banker_score = np.where(banker_draws, (bt + third_b) % 10, bt)
    shape = np.broadcast_shapes(player_score.shape, banker_score.shape)
    fields = [player_score, banker_score, player_draws, banker_draws, pp, bp, fc]
    codes = encode(*(np.broadcast_to(f, shape).astype(np.int64) for f in fields))
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


_TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z_][A-Za-z_0-9]*)|(==|!=|<=|>=|<|>|\(|\)|\[|\]|,))")
_COMPARE = {
    "==": np.equal,
    "!=": np.not_equal,
    "<": np.less,
    "<=": np.less_equal,
    ">": np.greater,
    ">=": np.greater_equal,
}


def _tokenize(text: str) -> list[str]:
    tokens, position = [], 0
    text = text.rstrip()
    while position < len(text):
        match = _TOKEN.match(text, position)
        if not match or match.end() == position:
            raise ConditionError("", f"unexpected character {text[position:].strip()[:1]!r} in {text!r}")
        tokens.append(match.group(match.lastindex))
        position = match.end()
    return tokens


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.tokens = _tokenize(text)
        self.position = 0
        self.table = feature_table()

    def peek(self):
        return self.tokens[self.position] if self.position < len(self.tokens) else None

    def take(self, expected=None):
        token = self.peek()
        if token is None:
            raise ConditionError("", f"condition ends too early: {self.text!r}")
        if expected is not None and token != expected:
            raise ConditionError("", f"expected {expected!r} but found {token!r} in {self.text!r}")
        self.position += 1
        return token

    def parse(self) -> np.ndarray:
        if not self.tokens:
            raise ConditionError("", "empty condition")
        result = self.or_expr()
        if self.peek() is not None:
            raise ConditionError("", f"unexpected {self.peek()!r} in {self.text!r}")
        return result

    def or_expr(self):
        result = self.and_expr()
        while self.peek() == "or":
            self.take()
            result = result | self.and_expr()
        return result

    def and_expr(self):
        result = self.not_expr()
        while self.peek() == "and":
            self.take()
            result = result & self.not_expr()
        return result

    def not_expr(self):
        if self.peek() == "not":
            self.take()
            return ~self.not_expr()
        return self.atom()

    def atom(self):
        token = self.take()
        if token == "(":
            result = self.or_expr()
            self.take(")")
            return result
        if token in ("true", "false"):
            return np.full(N_CODES, token == "true")
        if token not in FEATURES:
            if not re.fullmatch(r"[A-Za-z_][A-Za-z_0-9]*", token):
                raise ConditionError("", f"expected a feature name but found {token!r} in {self.text!r}")
            close = difflib.get_close_matches(token, FEATURES, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise ConditionError(
                "", f"unknown feature {token!r} in {self.text!r}; {hint}known features: {', '.join(sorted(FEATURES))}"
            )
        values = self.table[token]
        operator = self.peek()
        if operator in _COMPARE:
            self.take()
            return _COMPARE[operator](values, self.value(token))
        if operator == "in":
            self.take()
            self.take("[")
            allowed = [self.value(token)]
            while self.peek() == ",":
                self.take()
                allowed.append(self.value(token))
            self.take("]")
            return np.isin(values, allowed)
        return values != 0

    def value(self, feature: str) -> int:
        token = self.take()
        _, symbols, (low, high) = FEATURES[feature]
        if token.isdigit():
            number = int(token)
            if not low <= number <= high:
                raise ConditionError("", f"{feature} takes values {low} to {high}, not {number}, in {self.text!r}")
            return number
        if symbols and token in symbols:
            return symbols[token]
        allowed = ", ".join(symbols) if symbols else f"integers {low} to {high}"
        raise ConditionError("", f"{feature} cannot be {token!r} in {self.text!r}; allowed: {allowed}")


def evaluate(condition: str) -> np.ndarray:
    """Evaluate a condition over every outcome code.

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
        If the condition cannot be read, or names an unknown feature or value.

    Examples
    --------
    >>> int(evaluate("winner == tie and player_score == 9").sum())  # codes, not rounds
    144
    """
    if not isinstance(condition, str):
        raise ConditionError("", f"a condition must be a string, got {condition!r}")
    return _evaluate(condition)


@functools.lru_cache(maxsize=1024)
def _evaluate(condition: str) -> np.ndarray:
    # Pay tables are settled again and again (per report, per deck count):
    # parse each condition once. The mask is shared, so it is read-only.
    mask = _Parser(condition).parse()
    mask.setflags(write=False)
    return mask
