"""Dealing a rule set's shoes into round logs (the audit's simulated month): the kernel's arrays, sized and seeded.

Shoe ``k`` of master ``seed`` is dealt from its own generator (:mod:`baccarat_sim.kernels.audit_deal`), with
the rule set's decks, burn, cut card and rounds after the cut (:func:`~baccarat_sim.engines.plan.shoe_params`).
"""

from __future__ import annotations

import numpy as np

from ..kernels.audit_deal import LOG_CARDS, ShoeLogs, deal_logged_shoes
from ..kernels.encoding import encode_cards
from ..model.rules import Rules
from ..model.shoe import canonical_cards, shoe_composition
from .plan import shoe_params

__all__ = ["ShoeLogs", "deal_shoes"]


def deal_shoes(rules: Rules, seed: int, first_shoe: int, n_shoes: int) -> ShoeLogs:
    """Deal shoes ``first_shoe .. first_shoe + n_shoes - 1`` of ``seed``; every round's cards (:class:`ShoeLogs`)."""
    composition = shoe_composition(rules.shoe.decks)
    n_cards = int(composition.sum())
    most = n_cards // 4  # a round takes at least four cards
    logs = ShoeLogs(np.full((n_shoes, most, LOG_CARDS), -1, np.int8), np.zeros(n_shoes, np.int64),
                    np.zeros(n_shoes, np.int8), np.zeros(n_shoes, np.int64), np.zeros(n_shoes, np.int64))
    deal_logged_shoes(np.uint64(seed), first_shoe, encode_cards(canonical_cards(composition)),
                      shoe_params(rules.shoe, n_cards), *logs)
    return logs
