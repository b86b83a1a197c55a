"""The outcome code space and OutcomeHistogram (issue 2, deliverable 3)."""

import itertools
import json

import numpy as np
import pytest

from baccarat_sim.model.codes import FIELDS, N_CODES, decode, encode, field_grid
from baccarat_sim.model.histogram import OutcomeHistogram

SIZES = dict(FIELDS)
NAMES = [name for name, _ in FIELDS]


def test_code_space_size():
    # 10 x 10 scores, 2 x 2 card counts, 3 x 3 pair kinds, 4 first-card results.
    assert N_CODES == 10 * 10 * 2 * 2 * 3 * 3 * 4 == 14_400
    assert NAMES == ["player_score", "banker_score", "player_cards", "banker_cards",
                     "player_pair", "banker_pair", "first_card"]  # fmt: skip


def test_encode_is_a_bijection_onto_the_code_space():
    # Every combination of field values, in order, must get the codes 0..N-1 in
    # order (mixed-radix, most significant field first): no gaps, no collisions.
    combos = itertools.product(*(range(size) for _, size in FIELDS))
    codes = [encode(*values) for values in combos]
    assert codes == list(range(N_CODES))


def test_decode_inverts_encode_on_every_code_scalar():
    for code in range(N_CODES):
        fields = decode(code)
        assert list(fields) == NAMES
        assert all(0 <= int(fields[n]) < SIZES[n] for n in NAMES)
        assert encode(*(int(fields[n]) for n in NAMES)) == code


def test_encode_decode_round_trip_arrays():
    codes = np.arange(N_CODES, dtype=np.int64)
    fields = decode(codes)
    assert all(fields[n].shape == (N_CODES,) for n in NAMES)
    np.testing.assert_array_equal(encode(**fields), codes)
    # keyword call with the field names works too (the names are the API)
    rng = np.random.default_rng(7)
    sample = rng.integers(0, N_CODES, 500)
    np.testing.assert_array_equal(encode(**decode(sample)), sample)


def test_field_grid():
    grid = field_grid()
    assert list(grid) == NAMES
    for name, size in FIELDS:
        column = grid[name]
        assert column.shape == (N_CODES,)
        assert column.dtype == np.int64
        # each value of a field covers an equal share of the code space
        np.testing.assert_array_equal(np.bincount(column, minlength=size), np.full(size, N_CODES // size))
    # all fields together identify the code
    stacked = np.stack([grid[n] for n in NAMES], axis=1)
    assert len(np.unique(stacked, axis=0)) == N_CODES
    np.testing.assert_array_equal(encode(*(grid[n] for n in NAMES)), np.arange(N_CODES))


def test_known_codes():
    # Player 9 with two cards (natural), Banker 0 with three, a suited Player pair,
    # no Banker pair, equal first-card ranks of different suits.
    code = encode(9, 0, 0, 1, 2, 0, 2)
    assert code == ((((((9 * 10 + 0) * 2 + 0) * 2 + 1) * 3 + 2) * 3 + 0) * 4 + 2)
    assert {k: int(v) for k, v in decode(code).items()} == {
        "player_score": 9, "banker_score": 0, "player_cards": 0, "banker_cards": 1,
        "player_pair": 2, "banker_pair": 0, "first_card": 2,
    }  # fmt: skip
    assert encode(0, 0, 0, 0, 0, 0, 0) == 0
    assert encode(9, 9, 1, 1, 2, 2, 3) == N_CODES - 1


# --------------------------------------------------------------------------- histograms


def _hist(data_seed, engine="mc", model="dealt", shoe=None, positions=None, batches=None, **kw):
    rng = np.random.default_rng(data_seed)
    shoe = np.full((13, 4), 8, np.int64) if shoe is None else shoe
    by_position = None
    if positions:
        by_position = rng.integers(0, 50, (positions, N_CODES))
        counts = by_position.sum(axis=0)
    else:
        counts = rng.integers(0, 50, N_CODES)
    batch_rows = None
    if batches:
        batch_rows = rng.integers(0, 50, (batches, N_CODES))
    return OutcomeHistogram(counts=counts, engine=engine, model=model, shoe=shoe, rounds=int(counts.sum()),
                            shoes=kw.pop("shoes", 3), by_position=by_position, batches=batch_rows, **kw)


def test_histogram_normalises_and_exposes_totals():
    h = _hist(1, seed=5)
    assert h.counts.dtype == np.int64
    assert h.total == int(h.counts.sum()) == h.rounds
    assert h.probabilities.sum() == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(h.probabilities, h.counts / h.counts.sum())
    # unsigned and narrow integer counts are accepted and widened
    h32 = OutcomeHistogram(counts=h.counts.astype(np.uint32), engine="mc", model="fresh", shoe=h.shoe)
    assert h32.counts.dtype == np.int64
    np.testing.assert_array_equal(h32.counts, h.counts)


def test_merge_is_addition():
    a = _hist(1, positions=3, batches=2, seed=11, shoes=4)
    b = _hist(2, positions=5, batches=3, seed=11, shoes=6)
    m = a.merge(b)
    np.testing.assert_array_equal(m.counts, a.counts + b.counts)
    assert m.rounds == a.rounds + b.rounds
    assert m.shoes == a.shoes + b.shoes == 10
    assert m.seed == 11
    # by_position: rows add, the shorter one padded with zeros
    assert m.by_position.shape == (5, N_CODES)
    np.testing.assert_array_equal(m.by_position[:3], a.by_position + b.by_position[:3])
    np.testing.assert_array_equal(m.by_position[3:], b.by_position[3:])
    np.testing.assert_array_equal(m.by_position.sum(axis=0), m.counts)
    # batches stack, self's first
    np.testing.assert_array_equal(m.batches, np.concatenate([a.batches, b.batches]))
    # + is merge, and merging is commutative in counts and associative
    np.testing.assert_array_equal((a + b).counts, (b + a).counts)
    c = _hist(3, positions=2, batches=1, seed=11)
    np.testing.assert_array_equal(((a + b) + c).by_position, (a + (b + c)).by_position)
    np.testing.assert_array_equal(((a + b) + c).batches, (a + (b + c)).batches)
    # the inputs are untouched
    np.testing.assert_array_equal(a.counts, _hist(1, positions=3, batches=2).counts)


def test_merge_keeps_breakdowns_only_when_both_have_them():
    a = _hist(1, positions=3, batches=2)
    b = _hist(2)
    m = a + b
    assert m.by_position is None
    assert m.batches is None
    np.testing.assert_array_equal(m.counts, a.counts + b.counts)


def test_merge_drops_a_seed_that_differs():
    assert (_hist(1, seed=1) + _hist(2, seed=2)).seed is None
    assert (_hist(1, seed=None) + _hist(2, seed=None)).seed is None


@pytest.mark.parametrize(
    "other",
    [
        {"engine": "exact", "model": "exact"},
        {"model": "fresh"},
        {"shoe": np.full((13, 4), 6, np.int64)},
    ],
)
def test_merge_refuses_different_sources(other):
    with pytest.raises(ValueError, match="same engine, model and shoe"):
        _hist(1).merge(_hist(2, **other))


def test_marginal():
    h = _hist(4)
    table = h.counts.reshape([size for _, size in FIELDS])
    for axis, (name, size) in enumerate(FIELDS):
        marginal = h.marginal(name)
        assert marginal.shape == (size,)
        assert marginal.sum() == h.total
        # independent computation: sum the counts of codes whose field has value v
        grid = field_grid()[name]
        np.testing.assert_array_equal(marginal, [h.counts[grid == v].sum() for v in range(size)])
        other_axes = tuple(i for i in range(len(FIELDS)) if i != axis)
        np.testing.assert_array_equal(marginal, table.sum(axis=other_axes))
    with pytest.raises(ValueError, match="field: must be one of"):
        h.marginal("winner")


@pytest.mark.parametrize("full", [True, False])
def test_save_load_round_trip(tmp_path, full):
    if full:
        h = _hist(5, positions=4, batches=3, seed=np.int64(123), meta={"rules_id": "default", "block": 1000})
    else:
        h = OutcomeHistogram(counts=np.arange(N_CODES), engine="exact", model="exact",
                             shoe=np.full((13, 4), 2, np.int64), rounds=int(np.arange(N_CODES).sum()))
    path = tmp_path / "hist.npz"
    h.save(path)
    back = OutcomeHistogram.load(path)
    np.testing.assert_array_equal(back.counts, h.counts)
    np.testing.assert_array_equal(back.shoe, h.shoe)
    for name in ("engine", "model", "seed", "rounds", "shoes", "meta"):
        assert getattr(back, name) == getattr(h, name), name
    for name in ("by_position", "batches"):
        if getattr(h, name) is None:
            assert getattr(back, name) is None
        else:
            np.testing.assert_array_equal(getattr(back, name), getattr(h, name))
    # the file is plain arrays plus a JSON header (no pickles)
    with np.load(path, allow_pickle=False) as data:
        header = json.loads(str(data["header"]))
    assert header["engine"] == h.engine


def test_save_load_keeps_exact_weights_beyond_float_precision(tmp_path):
    # Exact 8-deck weights reach ~5e18; they must survive the file bit for bit.
    counts = np.zeros(N_CODES, np.int64)
    counts[0] = 2**62 + 1
    counts[-1] = 3
    h = OutcomeHistogram(counts=counts, engine="exact", model="exact", shoe=np.full((13, 4), 8), rounds=2**62 + 4)
    h.save(tmp_path / "big.npz")
    back = OutcomeHistogram.load(tmp_path / "big.npz")
    assert int(back.counts[0]) == 2**62 + 1
    assert back.rounds == 2**62 + 4


@pytest.mark.parametrize(
    ("change", "error", "message"),
    [
        ({"counts": np.zeros(N_CODES)}, TypeError, "counts must be integers"),
        ({"counts": np.zeros(N_CODES - 1, np.int64)}, ValueError, "counts must have shape"),
        ({"counts": np.zeros((2, N_CODES), np.int64)}, ValueError, "counts must have shape"),
        ({"counts": np.full(N_CODES, -1, np.int64)}, ValueError, "counts must be >= 0"),
        ({"counts": np.full(N_CODES, 2**63, np.uint64)}, ValueError, "do not fit in int64"),
        ({"shoe": np.ones((13,), np.int64)}, ValueError, "shoe must have shape"),
        ({"shoe": np.ones((13, 4))}, TypeError, "shoe must be integers"),
        ({"by_position": np.zeros(N_CODES, np.int64)}, ValueError, "by_position must have shape"),
        ({"by_position": np.zeros((2, 3), np.int64)}, ValueError, "by_position must have shape"),
        ({"batches": np.zeros((2, N_CODES), np.float64)}, TypeError, "batches must be integers"),
        ({"batches": np.full((1, N_CODES), -2, np.int64)}, ValueError, "batches must be >= 0"),
    ],
)
def test_histogram_validation(change, error, message):
    fields = {"counts": np.zeros(N_CODES, np.int64), "engine": "mc", "model": "fresh",
              "shoe": np.full((13, 4), 8, np.int64)}  # fmt: skip
    fields.update(change)
    with pytest.raises(error, match=message):
        OutcomeHistogram(**fields)


def test_histogram_is_frozen():
    h = _hist(6)
    with pytest.raises(AttributeError):
        h.rounds = 0


def test_histogram_owns_its_arrays():
    # Issue 20: the histogram kept the caller's arrays, so editing the array passed as counts changed h.total.
    counts = np.ones(N_CODES, np.int64)
    shoe = np.full((13, 4), 8, np.int64)
    by_position = np.stack([counts, np.zeros(N_CODES, np.int64)])
    batches = by_position.copy()
    h = OutcomeHistogram(counts=counts, engine="mc", model="dealt", shoe=shoe, seed=1, rounds=N_CODES,
                         by_position=by_position, batches=batches)
    for given in (counts, shoe, by_position, batches):
        given[...] = 7  # the caller's arrays are the caller's
    assert h.total == N_CODES and int(h.shoe.sum()) == 8 * 52
    assert int(h.by_position.sum()) == N_CODES and int(h.batches.sum()) == N_CODES
    for mine in (h.counts, h.shoe, h.by_position, h.batches, h.code_counts):
        with pytest.raises(ValueError, match="read-only"):
            mine[0] = 1  # nor can a reader change the histogram
    assert h.total == N_CODES
