"""The stream version (issue 20): what a few seeds deal, held to golden hashes of this STREAM_VERSION.

Checkpoints and Dask workers trust :data:`baccarat_sim.engines.fingerprint.STREAM_VERSION` to say which rounds a
seed deals. These tests hash what some seeds deal (fresh and dealt shoes, with and without card detail, per round
position and per batch) and the cells a card-detail run counts; a hash that differs means the stream or the cell
layout changed. If that is on purpose, raise ``STREAM_VERSION`` and renew ``GOLDEN`` (and ``GOLDEN_VERSION``) from
the new tree: old checkpoints are then refused instead of being resumed into a histogram of two streams. A change
that leaves every hash alone (a comment, a faster kernel that deals the same rounds) keeps the version.

The card detail in groups (issue 22) changed the cells of a card-detail run (the outcome codes, then each group's
cells) but not the rounds a seed deals: the ``*-codes`` cases, the outcome codes of the card-detail runs, keep the
hashes the tree before it dealt (computed there, from its cells summed over the details), and a checkpoint of a
card-level run written before it is refused by its plan's card detail (a list of atoms, not of groups). So the
layout hashes were renewed and the version kept.

The kernel tables' hash (``card-detail-cells``) was renewed again when the Monte Carlo kernels began to count
card detail in batches and to read poker values off state tables (issue 22): the tables gained arrays, while every
histogram hash above, the cells and the rounds, stayed the same; and once more when a batch began to hold a
round's cards in one word (the tables lost the positions each word reads, which the kernel no longer needs), the
histogram hashes again unchanged; and once more when each table began to read a hand's poker values in one lookup
(the tables gained ``first_term``, ``term_hand`` and ``term_table``), the histogram hashes unchanged.

Stream version 2 (issue 23) changed what every seed deals: the block states come from an invertible derivation
(two seeds no longer share a block), and a fresh-shoe block draws its rounds from 32 generators interleaved in
vector registers. Every histogram hash was renewed from that tree; the cells' hash stayed.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from baccarat_sim.engines.detail import rules_detail
from baccarat_sim.engines.fingerprint import STREAM_VERSION
from baccarat_sim.engines.packer import kernel_tables
from baccarat_sim.engines.simulation import simulate
from baccarat_sim.model.rules import load_rules

#: The stream version the golden hashes belong to.
GOLDEN_VERSION = 2
#: sha256 (first 16 hex digits) of what each case deals under GOLDEN_VERSION (version 2, issue 23: block states by
#: an invertible derivation, a fresh block's rounds from 32 interleaved generators).
GOLDEN = {
    "fresh": "a9d5c1b13f78ac39",
    "dealt": "ff868418d126439d",
    "fresh-card-detail": "4f60d328c9ffa84c",
    "dealt-card-detail": "2bba2d8c8c29bf95",
    "card-detail-cells": "b67afb2509baf980",
    "fresh-card-detail-codes": "9ce798bf3783c639",
    "dealt-card-detail-codes": "c51ee2ef819ee0ee",
}

#: A rule set with card-level bets (colour bets: atoms on the first four cards' colours and the third cards).
CARD_RULES = "catalogue-colour-and-suits"


def _digest(*parts) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(np.ascontiguousarray(part).tobytes() if isinstance(part, np.ndarray) else repr(part).encode())
    return digest.hexdigest()[:16]


def _histogram_digest(hist) -> str:
    return _digest(hist.counts, hist.by_position, hist.batches, hist.rounds, hist.shoes)


def _codes_digest(hist) -> str:
    """The outcome codes of a card-detail run (per cell, position and batch), in the layout of any version."""
    codes = hist.view()  # the outcome codes block of the cells
    return _digest(codes.counts, codes.by_position, codes.batches, hist.rounds, hist.shoes)


def _case(name: str) -> str:
    if name == "fresh":  # several blocks and a short last one, on two lanes
        return _histogram_digest(simulate(load_rules("default"), 3 * 2**16 + 12_345, seed=20, model="fresh",
                                          threads=2))
    if name == "dealt":  # face-value burn, a cut card, rounds per position
        return _histogram_digest(simulate(load_rules("live-8deck-side-bets"), 40_000, seed=21, model="dealt",
                                          threads=2))
    if name == "fresh-card-detail-codes":
        return _codes_digest(simulate(load_rules(CARD_RULES), 100_000, seed=22, model="fresh", threads=2))
    if name == "dealt-card-detail-codes":
        return _codes_digest(simulate(load_rules(CARD_RULES), 40_000, seed=23, model="dealt", threads=2))
    if name == "fresh-card-detail":
        return _histogram_digest(simulate(load_rules(CARD_RULES), 100_000, seed=22, model="fresh", threads=2))
    if name == "dealt-card-detail":
        return _histogram_digest(simulate(load_rules(CARD_RULES), 40_000, seed=23, model="dealt", threads=2))
    detail = rules_detail(load_rules(CARD_RULES))  # "card-detail-cells": the cells and the kernel's tables
    return _digest([(g.outcomes, g.texts) for g in detail.groups], detail.n_cells, *kernel_tables(detail))


def test_golden_values_are_this_stream_versions():
    assert STREAM_VERSION == GOLDEN_VERSION, (
        f"STREAM_VERSION is {STREAM_VERSION}, the golden hashes are version {GOLDEN_VERSION}'s: renew GOLDEN from "
        "this tree and set GOLDEN_VERSION with it")


@pytest.mark.parametrize("case", sorted(GOLDEN))
def test_what_a_seed_deals_is_its_stream_versions(case):
    got = _case(case)
    assert got == GOLDEN[case], (
        f"{case}: what a seed deals changed ({got}, stream version {STREAM_VERSION} dealt {GOLDEN[case]}); if that "
        "is on purpose, raise STREAM_VERSION in baccarat_sim/engines/fingerprint.py and renew GOLDEN here")
