"""The poker values of a hand (:mod:`baccarat_sim.model.poker`), compiled for the kernels.

The model defines each value once, as integer arithmetic that also runs over
numpy arrays; its functions call one another. Here each is compiled with
``inline="always"`` in a copy of the model's namespace in which the names of
the functions it calls are the compiled ones, so a kernel gets the model's own
definitions inlined, and there is still one copy of each rule.
"""

from __future__ import annotations

import types

from ..model import poker
from .jit import jit

__all__ = ["add_card", "hand_value", "rank_counts_only", "suits_settled"]

# Helpers before the functions that call them.
_ORDER = ("_count", "_at_least", "_bit_count", "n_cards", "_two_or_more", "kind",
          "_highest_bit", "kind_rank", "_groups", "pairs", "triples", "_run", "flush", "straight",
          "category", "add_card", "rank_counts_only", "suits_settled", "value")


def _compiled() -> dict:
    namespace = dict(vars(poker))
    for name in _ORDER:
        function = getattr(poker, name)
        namespace[name] = jit(inline="always")(types.FunctionType(function.__code__, namespace, name,
                                                                  function.__defaults__, function.__closure__))
    return {name: namespace[name] for name in _ORDER}


_COMPILED = _compiled()
add_card = _COMPILED["add_card"]
rank_counts_only = _COMPILED["rank_counts_only"]
suits_settled = _COMPILED["suits_settled"]
_category, _kind, _kind_rank, _flush, _straight, _pairs, _triples = (
    _COMPILED[name] for name in ("category", "kind", "kind_rank", "flush", "straight", "pairs", "triples"))


@jit(inline="always")
def hand_value(which, key):
    """Poker value number ``which`` (:data:`baccarat_sim.model.poker.VALUES`) of a hand key.

    The model's :func:`~baccarat_sim.model.poker.value` works out every value
    and keeps one, so that it runs over arrays; a kernel asks for the same
    value every round, so here a branch (always predicted) computes only that
    one. ``tests/test_poker.py`` holds it to the model's ``value``.
    """
    if which == 0:
        return _category(key)
    if which == 1:
        return _kind(key)
    if which == 2:
        return _kind_rank(key)
    if which == 3:
        return _flush(key)
    if which == 4:
        return _straight(key)
    if which == 5:
        return _pairs(key)
    return _triples(key)
