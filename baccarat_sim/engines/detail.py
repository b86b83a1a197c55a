"""Card detail from the engines: which combinations of a rule set's atoms can happen, and the checks of its bets.

The atoms of card-level bets are compiled by the model
(:mod:`baccarat_sim.model.cardlevel`); which combinations of their values can
happen, jointly with the outcome codes, is worked out here by the exact
engine on a shoe that deals every sequence of six cards there is (six cards of
every id). The bets' pay tables are then checked on those combinations as the
model checks outcome-only bets on the possible outcome codes.
"""

from __future__ import annotations

import functools

import numba
import numpy as np

from ..errors import InternalError, InvalidRules
from ..kernels.exact_detail import exact_detail_counts
from ..model.codes import N_CODES
from ..model.conditions import atom_of_text
from ..model.detail import MAX_DETAILS, CardDetail, exact_tables
from ..model.rules import Rules

__all__ = ["detail_counts", "detail_of_atoms", "detail_of_texts", "exact_detail_weights", "rules_detail"]


def exact_detail_weights(atoms, shoe: np.ndarray, lanes: int) -> np.ndarray:
    """Exact weights by atom bits and outcome code: ``int64[2**n_atoms, N_CODES]``."""
    tables = exact_tables(atoms, shoe)
    out = np.zeros((max(1, lanes), 1 << len(atoms), N_CODES), np.int64)
    exact_detail_counts(tables["counts"], tables["points"], tables["ids"], tables["n_ids"], tables["tclass"],
                        tables["t_total"], tables["t_point"], tables["first4"], tables["reduced"],
                        tables["reduced_offset"], tables["radix"], tables["third"], tables["rt"],
                        tables["rt_offset"], tables["rt_width"], tables["n_states"], tables["rows"], out)
    return out.sum(axis=0)


def detail_counts(detail: CardDetail, shoe: np.ndarray) -> np.ndarray:
    """Exact weights of every cell ``detail * N_CODES + code`` of one round from a freshly shuffled shoe.

    Returns
    -------
    ndarray(int64, shape=(detail.n_cells,))
        They total ``N (N-1) ... (N-5)`` for a shoe of ``N`` cards, as the outcome codes' do.
    """
    weights = exact_detail_weights(detail.atoms, shoe, numba.get_num_threads())
    lookup = detail.lookup
    if weights[lookup < 0].any():  # the universal shoe deals every sequence: no other shoe can add a combination
        raise InternalError("a shoe dealt a combination of card-level conditions the universal shoe cannot")
    bits = np.flatnonzero(lookup >= 0)  # the atom bits of each detail, put in detail order below
    return weights[bits[np.argsort(lookup[bits])]].reshape(-1)


@functools.lru_cache(maxsize=64)
def detail_of_atoms(atoms: tuple) -> CardDetail:
    """The card detail of a set of atoms: which combinations of their values, with which outcomes, can happen.

    Worked out exactly on a shoe with six cards of every id, which deals every
    sequence of six cards there is.

    Raises
    ------
    ValueError
        When more than :data:`~baccarat_sim.model.detail.MAX_DETAILS` combinations can happen.
    """
    universal = np.full((13, 4), 6, np.int64)
    weights = exact_detail_weights(atoms, universal, numba.get_num_threads())
    reachable = weights > 0
    keep = np.flatnonzero(reachable.any(axis=1))
    if len(keep) > MAX_DETAILS:
        raise ValueError(f"their card-level conditions ({len(atoms)}) can hold in {len(keep)} combinations, more "
                         f"than the {MAX_DETAILS} a histogram carries; put some card-level bets in another rule set")
    patterns = ((keep[:, None] >> np.arange(len(atoms))) & 1).astype(bool)
    possible = reachable[keep].reshape(-1)
    for array in (patterns, possible):
        array.setflags(write=False)
    return CardDetail(tuple(atoms), patterns, possible)


def detail_of_texts(texts) -> CardDetail | None:
    """The card detail whose atoms have these canonical texts (a run plan's); None for none."""
    return detail_of_atoms(tuple(atom_of_text(text) for text in texts)) if texts else None


def rules_detail(rules: Rules) -> CardDetail | None:
    """The card detail of a rule set's bets (None when no bet reads cards), its card-level pay tables checked.

    Raises
    ------
    InvalidRules
        A card-level pay-table line that can never happen, lines that overlap,
        a bet that leaves outcomes uncovered, can never win or never lose
        (the message names the file, the bet and the line).
    """
    if not rules.atoms:
        return None
    try:
        detail = detail_of_atoms(rules.atoms)
    except ValueError as error:
        raise InvalidRules("", f"{rules.path}: bets: {error}") from None
    for bet in rules.bets:
        if bet.card_level:
            bet.check_detail(detail, rules)
    return detail
