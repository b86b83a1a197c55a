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


def __dir__():
    return sorted(__all__)
