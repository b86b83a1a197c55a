"""The batched card detail of the Monte Carlo kernels (kernels/detail.count_batch) against the round-by-round one.

``count_batch`` evaluates a factored card detail over a batch of rounds: each hand's poker state once, the tables'
projections packed side by side in words, one pass per table. ``group_detail`` evaluates one group of one round,
table by table, each poker value read off its hand's state. Both read the same tables; here every group's cell of
every round must agree, for rule sets with groups of one table and of several, poker values over the first four
cards, over all six and over the third cards, and enough tables to fill several packed words.
"""

from __future__ import annotations

import ast
import inspect

import numba
import numpy as np
import pytest

from baccarat_sim.engines import packer
from baccarat_sim.engines.detail import rules_detail
from baccarat_sim.engines.packer import kernel_tables
from baccarat_sim.kernels.dealing import ENCODED_CARD, POINT_BITS, _third_cards, batch_round, round_parts
from baccarat_sim.kernels.detail import BATCH_ROUNDS, KernelTables, batch_cells, count_batch, group_detail, new_batch
from baccarat_sim.model.codes import N_SUFFIXES
from baccarat_sim.model.rules import load_rules, parse_rules

from .test_catalogue import whole_catalogue

#: Poker values over other hands than the first four cards: all six, the Player's, the Banker's, the third cards.
POKER_HANDS = parse_rules("""schema_version = 1
id = "hands"
name = "hands"
[shoe]
decks = 8
[[bets]]
id = "all_six"
pays = [{ when = "kind(all) >= 4", pays = "50:1" }, { when = "kind(all) == 3", pays = "5:1" }]
otherwise = "lose"
[[bets]]
id = "player_hand"
pays = [{ when = "poker(player) == straight and winner == player", pays = "9:1" }]
otherwise = "lose"
[[bets]]
id = "banker_flush"
pays = [{ when = "poker(banker) == flush", pays = "30:1" }]
otherwise = "lose"
[[bets]]
id = "third_cards"
pays = [{ when = "pairs(P3, B3) == 1 and P3.suit == hearts", pays = "40:1" }]
otherwise = "lose"
[[bets]]
id = "banker_kind"
pays = [{ when = "kind_rank(banker) in [J, Q, K] and B1.colour == red", pays = "3:1" }]
otherwise = "lose"
""", "hands.toml")


@numba.njit(cache=True)
def _round_by_round(ids, tables, cell_offset, n_outcomes, by_code, n_cells):
    """Every round's group cells, one group at a time (group_detail), as a histogram row."""
    counts = np.zeros((1, n_cells), np.int64)
    for i in range(ids.shape[0]):
        e = ENCODED_CARD[ids[i]]
        e0, e1, e2, e3, e4, e5 = (np.int64(e[0]), np.int64(e[1]), np.int64(e[2]), np.int64(e[3]), np.int64(e[4]),
                                  np.int64(e[5]))
        prefix, suffix, _ = round_parts(e0, e1, e2, e3, e4, e5)
        p3, b3 = _third_cards(prefix, e4, e5)
        for g in range(cell_offset.shape[0]):
            detail = group_detail(e0 >> POINT_BITS, e1 >> POINT_BITS, e2 >> POINT_BITS, e3 >> POINT_BITS, p3, b3,
                                  tables, g)
            outcome = prefix * N_SUFFIXES + suffix if by_code[g] else prefix
            counts[0, cell_offset[g] + detail * n_outcomes[g] + outcome] += 1
    return counts


@numba.njit(cache=True)
def _in_batches(ids, tables, n_cells):
    """The same rounds through batches (count_batch), a short batch last."""
    counts = np.zeros((1, n_cells), np.int64)
    batch = new_batch(tables)
    cells = batch_cells(batch)
    n = 0
    for i in range(ids.shape[0]):
        e = ENCODED_CARD[ids[i]]
        e0, e1, e2, e3, e4, e5 = (np.int64(e[0]), np.int64(e[1]), np.int64(e[2]), np.int64(e[3]), np.int64(e[4]),
                                  np.int64(e[5]))
        prefix, suffix, _ = round_parts(e0, e1, e2, e3, e4, e5)
        n = batch_round(cells, n, prefix, suffix, e0, e1, e2, e3, e4, e5, 0)
        if n == BATCH_ROUNDS:
            count_batch(batch, n, tables, counts)
            n = 0
    count_batch(batch, n, tables, counts)
    return counts


@pytest.mark.parametrize(("name", "table_cells"), [
    ("catalogue-poker", None), ("catalogue-colour-and-suits", None), ("hands", None), ("whole-catalogue", None),
    ("hands", 4), ("catalogue-colour-and-suits", 16)])
def test_batches_count_every_group_cell_as_round_by_round(name, table_cells, monkeypatch):
    # table_cells: a smaller limit on a table's cells splits groups into several tables (no shipped rule set has
    # such a group: a table holds 65,536 cells).
    if table_cells is not None:
        monkeypatch.setattr(packer, "TABLE_CELLS", table_cells)
    rules = POKER_HANDS if name == "hands" else whole_catalogue() if name == "whole-catalogue" else load_rules(name)
    detail = rules_detail(rules)
    tables = kernel_tables(detail)
    if name == "whole-catalogue":
        assert tables.words.shape[0] > 1, "the test wants tables packed in several words"
    if table_cells is not None:
        assert (np.diff(tables.first_table) > 1).any(), "the test wants a group of several tables"
    rng = np.random.default_rng(7)
    n_rounds = 3 * BATCH_ROUNDS + 123
    ids = rng.integers(0, 52, size=(n_rounds, 6))
    ids[: n_rounds // 4, :4] = rng.choice([0, 1, 4, 48, 49], size=(n_rounds // 4, 4))  # kinds, straights, flushes
    groups = detail.groups
    cell_offset = np.array([detail.offset(g) for g in range(len(groups))], np.int64)
    n_outcomes = np.array([group.n_outcomes for group in groups], np.int64)
    by_code = np.array([group.outcomes == "codes" for group in groups], np.bool_)
    n_cells = detail.n_cells
    expected = _round_by_round(ids, tables, cell_offset, n_outcomes, by_code, n_cells)
    got = _in_batches(ids, tables, n_cells)
    assert expected[0, cell_offset[0]:].sum() == n_rounds * len(groups)
    np.testing.assert_array_equal(got[0, cell_offset[0]:], expected[0, cell_offset[0]:])


def test_count_batch_unpacks_the_kernel_tables_in_their_field_order():
    # count_batch takes the tables apart by position; KernelTables is defined beside it (kernels/detail.py), which
    # its cache stamp covers (kernels/jit.closure_digest), and the two orders must agree.
    tree = ast.parse(inspect.getsource(count_batch.py_func))
    (unpacked,) = [node.targets[0] for node in ast.walk(tree) if isinstance(node, ast.Assign)
                   and isinstance(node.value, ast.Name) and node.value.id == "tables"]
    assert tuple(name.id for name in unpacked.elts) == KernelTables._fields
