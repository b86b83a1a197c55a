"""The hand key of :mod:`baccarat_sim.model.poker`, compiled for the exact enumeration's kernels.

The model defines the key once, as integer arithmetic that also runs over
numpy arrays. Here its functions are compiled with ``inline="always"`` in a
copy of the model's namespace in which the names of the functions they call
are the compiled ones, so a kernel gets the model's own definitions inlined,
and there is still one copy of each rule. (The Monte Carlo kernels read the
poker values themselves off tables the model computes,
:mod:`baccarat_sim.model.poker_states`.)
"""

from __future__ import annotations

import types

from ..model import poker
from .jit import jit

__all__ = ["add_card", "rank_counts_only", "suits_settled"]

# Helpers before the functions that call them (these three call none).
_ORDER = ("add_card", "rank_counts_only", "suits_settled")


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
