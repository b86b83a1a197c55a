"""Extending a run (issue 16, item 12): more rounds on the same stream are bit-identical to asking for them at first."""

from __future__ import annotations

import json

import numpy as np
import pytest

from baccarat_sim.cli.rtp import EXIT_PARTIAL
from baccarat_sim.engines.extend import extend_state
from baccarat_sim.engines.montecarlo import HistogramJob
from baccarat_sim.engines.plan import plan_run
from baccarat_sim.errors import InputError
from baccarat_sim.model.histogram import OutcomeHistogram
from baccarat_sim.model.rules import load_rules, parse_rules

from .cli_helpers import cli
from .run_helpers import run_chunks

COLOUR_MATCH = """
schema_version = 1
id = "colour-match"
name = "Colour Match"
payout_notation = "to"
[shoe]
decks = 8
shuffle = "dealt"
cut_card = { cards_from_end = 14 }
[[bets]]
id = "colour_match"
name = "Colour Match"
pays = [{ when = "count(colour == red, first_four) in [0, 4]", pays = "6:1" }]
otherwise = { pays = "lose" }
"""


def _deal(plan, state=None, max_chunks=None):
    """Deal ``plan``'s chunks (all, or the first ``max_chunks`` not yet done) into ``state``."""
    return run_chunks(plan, HistogramJob(plan).new_state() if state is None else state, max_chunks=max_chunks)


def _same(a, b):
    assert (a.rounds, a.shoes) == (b.rounds, b.shoes)
    assert np.array_equal(a.by_position, b.by_position)
    assert np.array_equal(a.batches, b.batches)


@pytest.mark.parametrize("rules", [load_rules("default"), parse_rules(COLOUR_MATCH, "colour-match.toml")],
                         ids=lambda r: r.id)
@pytest.mark.parametrize("model", ["fresh", "dealt"])
@pytest.mark.parametrize(("short", "long", "stop_after"), [(300_000, 2_500_000, None), (1_000_000, 3_000_000, 3)])
def test_an_extended_run_is_the_longer_run(rules, model, short, long, stop_after):
    rules = rules.with_shoe(model=model)
    old, new = plan_run(rules, short, 7), plan_run(rules, long, 7)
    # A finished run, or one stopped after a few chunks: either is extended on the same stream.
    state = _deal(old, max_chunks=stop_after)
    extended = _deal(new, extend_state(old, state, new))
    _same(extended, _deal(new))
    assert extended.chunks_done == new.n_chunks


def test_extending_takes_back_only_what_the_longer_run_deals_otherwise():
    rules = load_rules("default")
    old, new = plan_run(rules, 1_000_001, 3), plan_run(rules, 4_000_000, 3)
    state = _deal(old)
    extended = extend_state(old, state, new)
    assert state.rounds == 1_000_001  # left as it was
    # Only the chunk holding the old run's short last block is dealt again.
    assert state.rounds - extended.rounds < new.blocks_per_chunk * new.units_per_block
    assert extended.chunks_done == (old.total_blocks - 1) // new.blocks_per_chunk


def test_a_run_cannot_be_shortened_or_moved_to_another_stream():
    rules = load_rules("default")
    old = plan_run(rules, 1_000_000, 3)
    state = _deal(old, max_chunks=2)
    with pytest.raises(InputError, match="rounds: must be more than"):
        extend_state(old, state, plan_run(rules, 500_000, 3))
    with pytest.raises(InputError, match="seed"):
        extend_state(old, state, plan_run(rules, 2_000_000, 4))
    with pytest.raises(InputError, match="composition"):
        extend_state(old, state, plan_run(rules, 2_000_000, 3, shoe=6))


@pytest.mark.parametrize("model", ["fresh", "dealt"])
def test_cli_resume_with_more_rounds_extends_a_finished_or_stopped_run(capsys, tmp_path, model):
    common = ["--seed", "11", "--model", model, "--no-plots", "--format", "json"]  # not --quiet: notes are read
    status, out, _ = cli(capsys, "--rounds", "6e5", *common, "--out", tmp_path / "direct")
    assert status == 0
    direct = json.loads(out)
    # Stopped part way through a shorter run, extended, then finished.
    status, _, _ = cli(capsys, "--rounds", "2e5", *common, "--out", tmp_path / "grown", "--max-chunks", "2")
    assert status == EXIT_PARTIAL
    status, out, err = cli(capsys, "--resume", "--rounds", "4e5", *common, "--out", tmp_path / "grown")
    assert status == 0 and "extending seed 11 from 200,000 to 400,000 rounds" in err
    # A finished run keeps its checkpoint with --out, and is extended again.
    assert "kept" in err and "--rounds M" in err
    status, out, err = cli(capsys, "--resume", "--rounds", "6e5", *common, "--out", tmp_path / "grown")
    assert status == 0
    grown = json.loads(out)
    assert [b["rtp"] for b in grown["bets"]] == [b["rtp"] for b in direct["bets"]]
    a, b = (OutcomeHistogram.load(next((tmp_path / d).glob("*-histogram.npz"))) for d in ("direct", "grown"))
    assert np.array_equal(a.counts, b.counts) and np.array_equal(a.batches, b.batches)
    assert not list((tmp_path / "grown").glob("*-partial*"))  # the stopped run's files gave way to the finished ones
    # Fewer rounds than the run has: refused in one line.
    status, _, err = cli(capsys, "--resume", "--rounds", "1e5", *common, "--out", tmp_path / "grown")
    assert status == 2 and err.count("\n") == 1 and "--rounds: the run in" in err


# --------------------------------------------------------------------------- the one run flow, from Python


def _stopped_run(rules, rounds, seed, path, max_chunks):
    """A run stopped after ``max_chunks`` chunks, its checkpoint written (as Ctrl-C would leave it)."""
    from baccarat_sim.engines.driver import RunControl
    from baccarat_sim.engines.local import LocalBackend
    from baccarat_sim.engines.simulation import MonteCarloRun

    with MonteCarloRun.open(rules, rounds, seed, checkpoint=path) as flow:
        flow.deal(LocalBackend(1), RunControl(max_chunks=max_chunks))
        assert not flow.complete and path.exists()


@pytest.mark.parametrize("model", ["fresh", "dealt"])
def test_simulate_resumes_and_extends_a_run_through_its_checkpoint(tmp_path, model):
    from baccarat_sim.engines.simulation import simulate

    rules = load_rules("default").with_shoe(model=model)
    path = tmp_path / "run.npz"
    _stopped_run(rules, 300_000, 5, path, max_chunks=2)
    # More rounds than the stopped run: the same stream, as if 900,000 had been asked for at first.
    extended = simulate(rules, 900_000, 5, threads=1, checkpoint=path, resume=True)
    direct = simulate(rules, 900_000, 5, threads=1)
    assert np.array_equal(extended.counts, direct.counts) and np.array_equal(extended.batches, direct.batches)
    assert (extended.rounds, extended.shoes) == (direct.rounds, direct.shoes)
    assert not path.exists()  # finished: its checkpoint is gone
    # Without a seed or round count, a resumed run takes the checkpoint's.
    _stopped_run(rules, 300_000, 6, path, max_chunks=2)
    resumed = simulate(rules, None, checkpoint=path, resume=True)
    assert resumed.seed == 6 and np.array_equal(resumed.counts, simulate(rules, 300_000, 6).counts)


def test_simulate_refuses_fewer_rounds_than_its_checkpoint_and_a_locked_checkpoint(tmp_path):
    from baccarat_sim.engines.simulation import MonteCarloRun, simulate
    from baccarat_sim.errors import CheckpointInUse

    rules = load_rules("default")
    path = tmp_path / "run.npz"
    _stopped_run(rules, 600_000, 5, path, max_chunks=1)
    with pytest.raises(InputError, match="rounds: the run in .* is of 600,000 rounds; give more"):
        simulate(rules, 300_000, 5, checkpoint=path, resume=True)
    assert path.exists() and not path.with_name(path.name + ".lock").exists()  # refused: nothing touched, unlocked
    with MonteCarloRun.open(rules, None, checkpoint=path, resume=True) as held:
        assert held.resumed and held.state.chunks_done == 1
        with pytest.raises(CheckpointInUse, match="in use by another run"):
            simulate(rules, 600_000, 5, checkpoint=path, resume=True)
        with pytest.raises(CheckpointInUse):
            simulate(rules, 600_000, 5, checkpoint=path)  # a new run would overwrite it: refused too
    assert simulate(rules, 600_000, 5, checkpoint=path, resume=True).rounds == 600_000  # released
