"""baccarat_sim: exact and Monte Carlo RTP analysis of punto banco Baccarat.

The public names are imported lazily, so that ``python -m baccarat_sim.rtp
--help`` starts without loading numba. The package is laid out in layers, each
importing only those below it: ``model`` (cards, tableau, outcome codes,
conditions, rules), ``kernels`` (numba), ``engines`` (exact, Monte Carlo),
``analysis``, ``report`` and ``cli``.

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
    "LimitError",
    "OutcomeHistogram",
    "Rules",
    "ShoeMismatchWarning",
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

#: Where each public name lives.
_HOME = {
    "InvalidRules": "errors",
    "LimitError": "errors",
    "ShoeMismatchWarning": "errors",
    "Rules": "model.rules",
    "available_rules": "model.rules",
    "load_rules": "model.rules",
    "OutcomeHistogram": "model.histogram",
    "remove_cards": "model.shoe",
    "exact_histogram": "engines.exact",
    "simulate": "engines.simulation",
    "settle": "analysis.settlement",
    "settle_slip": "analysis.joint",
    "breakdown": "tables",
    "commission_table": "tables",
}


def __getattr__(name):
    if name in _HOME:
        return getattr(importlib.import_module(f".{_HOME[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(__all__)
