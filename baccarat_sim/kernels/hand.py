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
_ORDER = ("_count", "n_cards", "kind", "kind_rank", "_groups", "pairs", "triples",
          "_rank_mask", "_run", "flush", "straight",
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
#: ``hand_value(which, key)``: poker value number ``which`` (:data:`baccarat_sim.model.poker.VALUES`) of a key.
hand_value = _COMPILED["value"]
