"""baccarat_sim: exact and Monte Carlo RTP analysis of punto banco Baccarat.

The public names are imported lazily, so that ``python -m baccarat_sim.rtp
--help`` starts without loading numba.

>>> from baccarat_sim import exact_histogram, load_rules, settle
>>> banker = settle(exact_histogram(8), load_rules("default"))[1]
>>> round(banker.rtp, 6)
0.989421
"""

from __future__ import annotations

import importlib
import sys
import types

from ._version import __version__

__all__ = [
    "InvalidRules",
    "OutcomeHistogram",
    "Rules",
    "__version__",
    "available_rules",
    "breakdown",
    "commission_table",
    "exact_histogram",
    "load_rules",
    "remove_cards",
    "settle",
    "settle_slip",
    "simulate",
]

_HOME = {
    "InvalidRules": "rules",
    "Rules": "rules",
    "available_rules": "rules",
    "load_rules": "rules",
    "OutcomeHistogram": "outcomes",
    "exact_histogram": "exact",
    "remove_cards": "exact",
    "settle": "settle",
    "settle_slip": "settle",
    "breakdown": "settle",
    "commission_table": "settle",
    "simulate": "simulate",
}


def __getattr__(name):
    if name in _HOME:
        return getattr(importlib.import_module(f".{_HOME[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _Package(types.ModuleType):
    """The package module: keeps ``settle`` and ``simulate`` the functions.

    Importing a submodule binds it on its package (``baccarat_sim.settle`` would
    become the module ``settle.py`` as soon as anything imports it), which would
    shadow the public function of the same name. The submodule itself stays
    importable as usual (``from baccarat_sim.settle import settle_bet``).
    """

    def __setattr__(self, name, value):
        if isinstance(value, types.ModuleType) and _HOME.get(name) == name:
            value = getattr(value, name)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def __dir__():
    return sorted(__all__)
