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
    atom     := "(" expr ")" | "true" | "false"
              | value [op literal | "in" "[" literal ("," literal)* "]" | op value]
    value    := FEATURE | POSITION "." ATTRIBUTE | "count" "(" test ["," positions] ")"
              | HAND "(" positions ")"
    HAND     := "poker" | "kind" | "kind_rank" | "flush" | "straight" | "pairs" | "triples"
    test     := ATTRIBUTE op literal | ATTRIBUTE "in" "[" literal ("," literal)* "]"
    positions:= POSITION ("," POSITION)* | "[" POSITION ("," POSITION)* "]"
              | first_four | player | banker | all
    op       := "==" | "!=" | "<" | "<=" | ">" | ">="
    literal  := INTEGER | NAME      (a name is a symbolic value, e.g. banker, hearts, red, K, none, pair)

``value op value`` compares two values of one kind (two numbers, two ranks,
two poker categories, ...); two cards' attributes compare on the same
attribute only.

A bare value is true where it is non-zero. Outcome features (``winner``,
``player_pair``, ...) are read from the 14,400 outcome codes; card-level
values (``P1.suit``, ``count(...)``, ``player_two_card_total``,
``player_flush``, ...; :mod:`baccarat_sim.model.cardlevel`) from the cards.
Every maximal card-only part of a condition becomes an *atom* evaluated by the
engines; the rest is a numpy mask over the outcome codes, so a pay table is
settled by a handful of vectorised comparisons, never per round.

The language is split where its concepts divide: the features a condition
names and the codes that can happen (:mod:`baccarat_sim.model.features`), the
tree (:mod:`baccarat_sim.model.condition_tree`), the parser
(:mod:`baccarat_sim.model.condition_parser`), and here the compiled
conditions: masks over the codes and the atoms the engines evaluate.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from ..errors import ConditionError
from .atoms import Atom
from .codes import N_CODES
from .condition_parser import MAX_NESTING, excerpt, parse
from .condition_tree import (
    COMPARISONS,
    Const,
    Join,
    Node,
    Not,
    OutcomeCompare,
    card_values,
    evaluate_cards,
    fold,
    node_text,
    passes,
)
from .features import CARD_FEATURES, FEATURES, feature_table, possible_codes

# FEATURES, CARD_FEATURES, feature_table, possible_codes and MAX_NESTING are the language's own names, kept here too.
__all__ = ["CARD_FEATURES", "FEATURES", "MAX_NESTING", "Condition", "ConditionError", "atom_of_text",
           "compile_condition", "covers", "evaluate", "feature_table", "outcome_mask", "possible_codes"]


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
    tree: Node
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


def _mask(node: Node, atom_bits) -> np.ndarray:
    def atom(subtree: Node):  # a card-only part the card detail already holds
        if atom_bits and subtree.is_card() and node_text(subtree) in atom_bits:
            return atom_bits[node_text(subtree)][:, None]
        return None

    return fold(node, outcome_mask, lambda value: np.full(N_CODES, value), atom)


def outcome_mask(leaf: Node) -> np.ndarray:
    """An outcome test or comparison over the outcome codes (``ndarray(bool, shape=(N_CODES,))``)."""
    table = feature_table()
    if isinstance(leaf, OutcomeCompare):
        return COMPARISONS[leaf.operator](table[leaf.left], table[leaf.right])
    return passes(table[leaf.feature], leaf.allowed)


#: Most table cells of an atom made of several card tests joined by and/or; a larger one stays several atoms.
MERGE_CELLS = 4096


def _atoms(node: Node, found: dict) -> None:
    """The maximal card-only subtrees, compiled once each (by text).

    Card tests joined by and/or become one atom (one bit of card detail) while
    its table stays small; otherwise each part is its own atom.
    """
    if node.is_card() and not isinstance(node, Const):
        text = node_text(node)
        if text in found:
            return
        try:
            atom = Atom.build(text, card_values(node), lambda cards: evaluate_cards(node, cards))
        except ValueError as error:
            if not isinstance(node, (Join, Not)):  # a join, negated or not, splits into its parts' atoms
                raise ConditionError("", f"{text}: {error}") from None
            atom = None
        if atom is not None and (atom.truth.size <= MERGE_CELLS or not isinstance(node, Join)):
            found[text] = atom
            return
    for child in (node.children if isinstance(node, Join) else (node.child,) if isinstance(node, Not) else ()):
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
    tree = parse(condition)
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

    def covered(node: Node) -> bool:
        if node.is_card() and not isinstance(node, Const) and node_text(node) in texts:
            return True
        if isinstance(node, Not):
            return covered(node.child)
        if isinstance(node, Join):
            return all(covered(child) for child in node.children)
        return not node.is_card() or isinstance(node, Const)

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
