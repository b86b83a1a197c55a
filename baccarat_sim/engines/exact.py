"""Exact engine: the outcome histogram of a freshly shuffled shoe, in integers."""

from __future__ import annotations

import numpy as np

from ..kernels.exact import exact_counts
from ..model.codes import N_CODES
from ..model.detail import CardDetail, FactoredDetail
from ..model.histogram import OutcomeHistogram
from ..model.rules import Rules
from ..model.shoe import as_shoe, deck_count
from .budget import check_exact_cost
from .detail import GroupError, detail_counts, rules_detail

__all__ = ["exact_histogram"]


def exact_histogram(shoe=8, detail: FactoredDetail | CardDetail | None = None, progress=None) -> OutcomeHistogram:
    """Exact outcome histogram of one round from a freshly shuffled shoe.

    Parameters
    ----------
    shoe : int, ndarray(int64, shape=(13, 4)) or Rules, default 8
        Number of standard decks (1 to 16), the count of every rank and suit,
        or a rule set (its decks, and the card detail its card-level bets read).
    detail : FactoredDetail, CardDetail or None
        Count the cells of this card detail (default: the rule set's, when
        ``shoe`` is a rule set; else the outcome codes alone; see
        `baccarat_sim.model.histogram` for the cells).
    progress : callable or None
        ``progress(done, total)`` as the groups of a card detail are enumerated.

    Returns
    -------
    OutcomeHistogram
        ``counts[cell]`` is the number of ordered six-card sequences that give
        the cell; they total ``N (N-1) (N-2) (N-3) (N-4) (N-5)`` (the outcome
        codes, and every group of a card detail each).

    Examples
    --------
    >>> h = exact_histogram(8)
    >>> h.total == 416 * 415 * 414 * 413 * 412 * 411
    True
    """
    rules = shoe if isinstance(shoe, Rules) else None
    if rules is not None:
        detail = rules_detail(rules) if detail is None else detail
        shoe = rules.shoe.decks
        # refused before any work where the cost model says it is too costly
        check_exact_cost(rules, detail, shoe=as_shoe(shoe))
    composition = as_shoe(shoe)
    if detail is None:
        counts = np.zeros(N_CODES, np.int64)
        exact_counts(composition, counts)
    else:
        try:
            counts = detail_counts(detail, composition, progress)
        except GroupError as error:  # refused before its work: named by its bets where the rule set is known
            raise (error if rules is None else error.naming(rules)) from None
    return OutcomeHistogram(
        counts=counts,
        engine="exact",
        model="exact",
        shoe=composition,
        rounds=int(counts[:N_CODES].sum() if isinstance(detail, FactoredDetail) else counts.sum()),
        meta={"decks": deck_count(composition)},
        detail=detail,
    )
