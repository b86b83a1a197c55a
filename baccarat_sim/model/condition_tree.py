"""The tree a condition is parsed into, and what its card-only parts read.

A condition (:mod:`baccarat_sim.model.conditions`) is a tree of constants,
``not``, ``and``/``or`` joins and tests: an outcome feature against a set of
values (:class:`OutcomeTest`), two outcome features compared
(:class:`OutcomeCompare`), or a card-level value against a set of values
(:class:`CardTest`). A subtree made of card tests alone is *card-only*: the
engines evaluate it from the cards as an atom
(:class:`baccarat_sim.model.atoms.Atom`), named by its canonical text
(:func:`node_text`).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from . import poker
from .cardlevel import Attribute, CardValue, Membership, value_names

__all__ = ["COMPARISONS", "CardTest", "Const", "Join", "Node", "Not", "OutcomeCompare", "OutcomeTest", "card_values",
           "evaluate_cards", "fold", "join", "node_text", "outcome_leaves", "passes"]


#: The comparison operators of the grammar, as numpy functions.
COMPARISONS = {
    "==": np.equal,
    "!=": np.not_equal,
    "<": np.less,
    "<=": np.less_equal,
    ">": np.greater,
    ">=": np.greater_equal,
}


@dataclasses.dataclass(frozen=True)
class Node:
    """A node of a condition's tree (base class)."""

    def is_card(self) -> bool:
        """Whether the node reads only cards (no outcome feature)."""
        raise NotImplementedError


@dataclasses.dataclass(frozen=True)
class Const(Node):
    """``true`` or ``false``."""

    value: bool

    def is_card(self):
        """Yes: a constant reads no outcome feature."""
        return True


@dataclasses.dataclass(frozen=True)
class Not(Node):
    """``not child``."""

    child: Node

    def is_card(self):
        """Whether the negated node is."""
        return self.child.is_card()


@dataclasses.dataclass(frozen=True)
class Join(Node):
    """``child and child ...`` or ``child or child ...``."""

    op: str  # "and" | "or"
    children: tuple

    def is_card(self):
        """Whether every joined node is."""
        return all(child.is_card() for child in self.children)


@dataclasses.dataclass(frozen=True)
class OutcomeTest(Node):
    """An outcome feature tested against a set of values (None: non-zero)."""

    feature: str
    allowed: frozenset | None

    def is_card(self):
        """No: it reads an outcome feature."""
        return False


@dataclasses.dataclass(frozen=True)
class OutcomeCompare(Node):
    """Two outcome features compared: ``player_score > banker_score``."""

    left: str
    operator: str
    right: str

    def is_card(self):
        """No: it reads outcome features."""
        return False


@dataclasses.dataclass(frozen=True)
class CardTest(Node):
    """A card-level value tested against a set of values (None: non-zero)."""

    value: CardValue
    allowed: frozenset | None

    def is_card(self):
        """Yes."""
        return True


def node_text(node: Node) -> str:
    """Canonical text of a tree (an atom's identity: equal texts mean equal functions)."""
    if isinstance(node, Const):
        return "true" if node.value else "false"
    if isinstance(node, Not):
        return f"not ({node_text(node.child)})"
    if isinstance(node, Join):
        return f" {node.op} ".join(f"({node_text(c)})" for c in node.children)
    if isinstance(node, OutcomeTest):
        return node.feature if node.allowed is None else f"{node.feature} in {sorted(node.allowed)}"
    if isinstance(node, OutcomeCompare):
        return f"{node.left} {node.operator} {node.right}"
    if node.allowed is None:
        return node.value.text()
    if node.value.literals() is not None:
        return f"{node.value.text()} in [{', '.join(value_names(node.value.literals(), node.allowed))}]"
    if node.value.kind == "poker":
        return f"{node.value.text()} in [{', '.join(poker.CATEGORIES[v] for v in sorted(node.allowed))}]"
    return f"{node.value.text()} in {sorted(node.allowed)}"


def card_values(node: Node) -> list[CardValue]:
    """What an atom must tell apart of each card: a tested attribute only as pass or fail."""
    if isinstance(node, CardTest):
        if isinstance(node.value, Attribute) and node.allowed is not None:
            return [Membership(node.value.position, node.value.attribute, node.allowed)]
        return [node.value]
    if isinstance(node, Not):
        return card_values(node.child)
    if isinstance(node, Join):
        return [v for child in node.children for v in card_values(child)]
    return []


def outcome_leaves(node: Node) -> list[Node]:
    """The outcome tests and comparisons of a tree, in order (what its outcome part reads of the codes)."""
    if isinstance(node, (OutcomeTest, OutcomeCompare)):
        return [node]
    if isinstance(node, Not):
        return outcome_leaves(node.child)
    if isinstance(node, Join):
        return [leaf for child in node.children for leaf in outcome_leaves(child)]
    return []


def passes(values: np.ndarray, allowed: frozenset | None) -> np.ndarray:
    """A test's truth: ``values`` in ``allowed``, or non-zero when ``allowed`` is None."""
    return values != 0 if allowed is None else np.isin(values, sorted(allowed))


def fold(node: Node, test, constant, known=None) -> np.ndarray:
    """A tree's truth over numpy arrays: ``not``, ``and`` and ``or`` elementwise.

    ``test(node)`` answers an outcome or card test, ``constant(value)`` a
    ``true``/``false``; ``known(node)``, when given, may answer any subtree
    at once (None: fold it).
    """
    if known is not None:
        found = known(node)
        if found is not None:
            return found
    if isinstance(node, Const):
        return constant(node.value)
    if isinstance(node, Not):
        return ~fold(node.child, test, constant, known)
    if isinstance(node, Join):
        parts = [fold(child, test, constant, known) for child in node.children]
        result = parts[0]
        for part in parts[1:]:
            result = (result & part) if node.op == "and" else (result | part)
        return result
    return test(node)


def evaluate_cards(node: Node, cards: dict) -> np.ndarray:
    """A card-only tree over arrays of card values (by position)."""
    return fold(node, lambda leaf: passes(leaf.value.evaluate(cards), leaf.allowed), np.asarray)


def join(op: str, parts: list) -> Node:
    """``a op b op ...``, the card-only parts gathered into one subtree (one atom, not several)."""
    if len(parts) == 1:
        return parts[0]
    cards = [p for p in parts if p.is_card() and not isinstance(p, Const)]
    if 1 < len(cards) < len(parts):
        others = [p for p in parts if not (p.is_card() and not isinstance(p, Const))]
        return Join(op, (Join(op, tuple(cards)), *others))
    return Join(op, tuple(parts))
