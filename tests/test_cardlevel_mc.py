"""Card-level bets by Monte Carlo (issue 13): held to the exact engine, and everything a run does works with them.

Fresh and dealt runs of a rule set with card-level bets (suits, colours,
third cards, hand patterns, counts) against the exact histogram with the same
card detail, at a fixed seed: every bet's RTP and every card detail's frequency
within |z| < 4. Then what a run must keep: the same histogram for any thread
count, through a checkpoint and resume, and on Dask; the command line; round
positions and Max Round Availability; and the covariance between a card-level
bet and the Banker bet (exact, against the brute force of
:mod:`tests.cardlevel_oracle`).

Power of the fresh run (2**23 = 8,388,608 rounds; the dealt run deals about
4 million, with batch-means errors): the standard error of a card detail's
frequency is at most sqrt(0.25 / n) = 1.7e-4, so an error of 1e-3 in any
detail's probability shows as |z| > 5.8; Colour Match's RTP has a standard
error of 2.30 / sqrt(n) = 7.9e-4, so an RTP off by half a percentage point
shows as |z| > 6; 3 Giving 8 (SD 13.5) off by 3 percentage points, |z| > 6.
"""

from __future__ import annotations

import functools
import json
import math
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from baccarat_sim.analysis.joint import covariance
from baccarat_sim.analysis.positions import analyze_positions, rounds_in_every_shoe
from baccarat_sim.analysis.settlement import net_vector, settle_bet
from baccarat_sim.analysis.stats import estimate
from baccarat_sim.cli.common import EXIT_CHECK_FAILED
from baccarat_sim.cli.rtp import main
from baccarat_sim.engines.checkpoint import load_checkpoint, save_checkpoint
from baccarat_sim.engines.detail import rules_detail
from baccarat_sim.engines.exact import exact_histogram
from baccarat_sim.engines.montecarlo import detail_tables, kernel_args
from baccarat_sim.engines.plan import plan_run
from baccarat_sim.engines.simulation import simulate
from baccarat_sim.engines.state import RunState
from baccarat_sim.kernels import counters as C
from baccarat_sim.kernels import mc as MC
from baccarat_sim.kernels import mc_dealt as MCD
from baccarat_sim.model.codes import N_CODES, decode
from baccarat_sim.model.rules import parse_rules

from .cardlevel_oracle import deal_table, every_ordering, red, shoe_of, suit
from .run_helpers import MANY_THREADS, run_chunks

SEED = 20261201
FRESH_ROUNDS = 1 << 23
DEALT_ROUNDS = 4_000_000
REPO = Path(__file__).resolve().parents[1]

FRESH_SHOE = '[shoe]\ndecks = 8\nshuffle = "fresh"\n'
#: A live 8-deck shoe: the turned card sets the burn (up to 11 cards), cut card 14 from the end.
DEALT_SHOE = ('[shoe]\ndecks = 8\nshuffle = "dealt"\nburn = "face_value"\nten_value = 10\ndiscard_turned = true\n'
              'cut_card = { cards_from_end = 14 }\nafter_cut = "finish_round"\n')

COLOUR_MATCH = '''
[[bets]]
id = "colour_match"
name = "Colour Match"
max_round = 40
stated_rtp = "86.2365%"
pays = [{ when = "count(colour == red, first_four) in [0, 4]", pays = "6:1" }]
otherwise = "lose"
'''
THREE_GIVING_EIGHT = '''
[[bets]]
id = "three_giving_eight"
name = "3 Giving 8"
stated_rtp = "91.318%"
pays = [{ when = "banker_two_card_total == 3 and P3.rank == 8", pays = "200:1" }]
otherwise = "lose"
'''
HEARTS_WINNER = '''
[[bets]]
id = "hearts_winner"
name = "Heart of the Winner"
pays = [
  { when = "winner == banker and banker_flush and B1.suit == hearts", pays = "40:1" },
  { when = "winner == banker and B1.suit == hearts and not banker_flush", pays = "3:1" },
]
otherwise = "lose"
'''
THIRD_CARDS = '''
[[bets]]
id = "third_cards"
name = "Player's third card outranks the Banker's"
max_round = 80
pays = [{ when = "P3.rank > B3.rank", pays = "3:1" }]
otherwise = "lose"
'''
MORE_CARD_BETS = '''
[[bets]]
id = "player_flush"
name = "Player flush"
pays = [{ when = "player_flush", pays = "15:1" }]
otherwise = "lose"

[[bets]]
id = "red_majority"
name = "Four or more red cards"
pays = [{ when = "count(colour == red) >= 4", pays = "3:1" }]
otherwise = "lose"
'''
BANKER = '''
[[bets]]
id = "banker"
name = "Banker"
pays = [
  { when = "winner == banker", pays = "1:1", commission = true },
  { when = "winner == tie", pays = "push" },
]
otherwise = "lose"
'''


def rules_text(shoe: str, *bets: str, rules_id: str = "card-bets") -> str:
    return (f'schema_version = 1\nid = "{rules_id}"\nname = "Card-level bets"\npayout_notation = "to"\n\n'
            f'[commission]\nrate = 0.05\n\n{shoe}' + "".join(bets))


@functools.cache
def fresh_rules():
    return parse_rules(rules_text(FRESH_SHOE, COLOUR_MATCH, THREE_GIVING_EIGHT, HEARTS_WINNER, THIRD_CARDS,
                                  MORE_CARD_BETS, BANKER), "card-bets.toml")


@functools.cache
def dealt_rules():
    # Fewer card details than the fresh set, so that the dealt run keeps a histogram per round position.
    return parse_rules(rules_text(DEALT_SHOE, COLOUR_MATCH, THREE_GIVING_EIGHT, THIRD_CARDS, BANKER,
                                  rules_id="card-bets-dealt"), "card-bets-dealt.toml")


@functools.cache
def exact_of(rules):
    return exact_histogram(rules)


@functools.cache
def fresh_run():
    return simulate(fresh_rules(), FRESH_ROUNDS, SEED, threads=MANY_THREADS)


@functools.cache
def dealt_run():
    return simulate(dealt_rules(), DEALT_ROUNDS, SEED, threads=MANY_THREADS)


def bet_failures(hist, rules) -> list[str]:
    """Bets whose Monte Carlo RTP is 4 or more standard errors from the exact one (batch means when dealt)."""
    exact = exact_of(rules)
    failures = []
    for bet in rules.bets:
        view = hist.view([bet])  # the cells of the bet's group of the card detail
        est = estimate(view, net_vector(bet, rules, view.detail))
        exact_rtp = 1 + float(settle_bet(exact, bet, rules).ev_exact)
        if not abs(est.z(exact_rtp)) < 4:
            failures.append(f"{bet.id}: MC {est.rtp:.6f} +/- {est.se:.6f} ({est.method}), exact {exact_rtp:.6f}, "
                            f"z = {est.z(exact_rtp):.2f}")
    return failures


def detail_failures(hist, exact) -> tuple[list[str], int]:
    """Card details whose Monte Carlo frequency is 4 or more standard errors from the exact probability.

    Each detail of each group of the card detail (a combination of the group's atoms' values), with each Player
    score, is tested as an indicator bet with the run's own standard error (batch means over whole shoes when
    dealt); those of a group expected fewer than 25 times are pooled into one. Returns the failures and the
    number of indicators (or pools) tested.
    """
    failures, tested = [], 0
    for g, group in enumerate(hist.detail.groups):
        cells = slice(hist.detail.offset(g), hist.detail.offset(g) + group.n_cells)
        n_details, n_outcomes = group.n_details, group.n_outcomes
        score = np.array([decode(group.code_of_outcome(o))["player_score"] for o in range(n_outcomes)])
        kind = (np.arange(n_details)[:, None] * 10 + score[None, :]).reshape(-1)  # (detail, Player score)
        probability = np.bincount(kind, weights=exact.counts[cells], minlength=n_details * 10) / exact.total
        small = (probability * hist.rounds < 25) & (probability > 0)
        pools = [[k] for k in np.flatnonzero(probability * hist.rounds >= 25)]
        pools += [list(np.flatnonzero(small))] if small.any() else []
        for pool in pools:
            indicator = np.isin(kind, pool).astype(float)
            est = estimate(hist, indicator, counts=hist.counts[cells],
                           batches=None if hist.batches is None else hist.batches[:, cells])
            expected = float(probability[pool].sum())
            z = est.z(1 + expected)  # estimate() reports 1 + mean as the "rtp"
            if not abs(z) < 4:
                failures.append(f"group {g} details {pool}: MC {est.rtp - 1:.6f} +/- {est.se:.2e}, exact "
                                f"{expected:.6f}, z = {z:.2f}")
        tested += len(pools)
    return failures, tested


# --------------------------------------------------------------------------- Monte Carlo against exact


def test_fresh_run_agrees_with_exact_by_bet_and_by_card_detail():
    hist, exact = fresh_run(), exact_of(fresh_rules())
    assert hist.rounds == FRESH_ROUNDS and hist.detail.signature == exact.detail.signature
    assert hist.counts.shape == (exact.detail.n_cells,)
    assert not (failures := bet_failures(hist, fresh_rules())), "\n".join(failures)
    failures, groups = detail_failures(hist, exact)
    assert groups >= 20 and not failures, "\n".join(failures)
    # Every cell the run dealt can happen (positive exact weight).
    assert not hist.counts[exact.counts == 0].any()


def test_dealt_run_agrees_with_exact_by_bet_and_by_card_detail():
    hist, exact = dealt_run(), exact_of(dealt_rules())
    assert hist.model == "dealt" and hist.by_position is not None and len(hist.batches) >= 30
    assert not (failures := bet_failures(hist, dealt_rules())), "\n".join(failures)
    failures, groups = detail_failures(hist, exact)
    assert groups >= 5 and not failures, "\n".join(failures)


@pytest.mark.parametrize("model", ["fresh", "dealt"])
def test_one_and_two_threads_deal_the_same_histogram(model):
    rules = fresh_rules() if model == "fresh" else dealt_rules()
    one = simulate(rules, 1 << 21, SEED + 1, threads=1)
    many = simulate(rules, 1 << 21, SEED + 1, threads=MANY_THREADS)
    assert one.detail.signature == many.detail.signature
    np.testing.assert_array_equal(one.counts, many.counts)
    np.testing.assert_array_equal(one.batches, many.batches)
    assert (one.by_position is None) == (many.by_position is None)
    if one.by_position is not None:
        np.testing.assert_array_equal(one.by_position, many.by_position)


def test_position_rows_and_the_one_row_lane_deal_the_same_rounds_with_card_detail():
    # With rows the codes and cells count in uint16 rows, with one row in a uint32 lane (each folded into the int64
    # counts): the same rounds, so the same histogram, batch by batch, on one thread and on several.
    rows = simulate(dealt_rules(), 1 << 20, SEED + 2, threads=MANY_THREADS, by_position=True)
    for threads in (1, MANY_THREADS):
        flat = simulate(dealt_rules(), 1 << 20, SEED + 2, threads=threads, by_position=False)
        assert flat.by_position is None and flat.detail.signature == rows.detail.signature
        np.testing.assert_array_equal(flat.counts, rows.counts)
        np.testing.assert_array_equal(flat.counts, rows.by_position.sum(axis=0))
        np.testing.assert_array_equal(flat.batches, rows.batches)


@pytest.mark.parametrize("limit", [50, (1 << 16) - 1])
def test_every_small_counter_layout_of_a_dealt_card_level_lane_counts_the_same(limit):
    # uint16 rows with the groups' cells beside the codes, one uint32 row (the lane without position rows), and the
    # int64 rows of deal_block: the same blocks, the same counts. A limit of 50 folds the small counters every few
    # shoes, the batch counted first.
    plan = plan_run(dealt_rules(), 1 << 18, SEED + 3, model="dealt")
    canonical, _, seed = kernel_args(plan)
    params, tables, n_blocks = np.array(plan.shoe_params, np.int64), detail_tables(plan), 6
    limit = np.int64(limit)

    def blocks(small, counts):
        totals = np.zeros(2, np.int64)
        taken = np.zeros(1, np.int64)  # the blocks the lane has taken
        MCD.dealt_groups_blocks(canonical, seed, 0, n_blocks, taken, 16, 16, n_blocks, params, small, limit, counts,
                                totals, tables)
        return totals

    by_position = np.zeros((plan.n_positions, plan.n_cells), np.int64)
    totals = blocks(np.zeros(by_position.shape, np.uint16), by_position)
    assert totals[1] == 16 * n_blocks and by_position.sum() == totals[0] * (1 + len(rules_detail(dealt_rules()).groups))
    straight = np.zeros(by_position.shape, np.int64)
    for block in range(n_blocks):
        MC.deal_block(canonical, MC.MODEL_DEALT, seed, block, 16, params, straight, tables)
    np.testing.assert_array_equal(straight, by_position)
    one_row = np.zeros((1, plan.n_cells), np.int64)
    blocks(np.zeros(one_row.shape, np.uint32), one_row)
    np.testing.assert_array_equal(one_row[0], by_position.sum(axis=0))


def test_card_level_position_rows_in_uint8_carry_their_wraps_and_are_kept_from_call_to_call():
    # A run's dealer keeps a lane's uint8 rows from one call to the next and folds them when it reads them; every
    # wrap of a code's or a cell's counter goes to the int64 rows and their per-cell sums at once. After each call the
    # sums plus the small rows' totals are the per-cell totals of every shoe so far (what a batch's close reads), and
    # the rows folded at the end are deal_block's, shoe for shoe.
    plan = plan_run(dealt_rules(), 1 << 18, SEED + 3, model="dealt")
    canonical, _, seed = kernel_args(plan)
    params, tables = np.array(plan.shoe_params, np.int64), detail_tables(plan)
    calls, blocks_a_call = 3, 2_100  # 100,800 shoes: the busiest code and cell counters of the first rows wrap
    by_position = np.zeros((plan.n_positions, plan.n_cells), np.int64)
    small, carried = (lanes[0] for lanes in MC.small_lanes(by_position[None], MC.MODEL_DEALT))
    assert small.dtype == np.uint8 and small.shape == by_position.shape
    straight = np.zeros(by_position.shape, np.int64)
    dealt = np.zeros(2, np.int64)
    for call in range(calls):
        first = call * blocks_a_call
        taken = np.zeros(1, np.int64)
        MCD.dealt_groups_rows(canonical, seed, first, blocks_a_call, taken, 16, 16, calls * blocks_a_call, params,
                              small, by_position, dealt, tables, carried)
        for block in range(first, first + blocks_a_call):
            MC.deal_block(canonical, MC.MODEL_DEALT, seed, block, 16, params, straight, tables)
        np.testing.assert_array_equal(carried, by_position.sum(axis=0))
        so_far = carried.copy()
        C.add_code_totals(small, so_far)
        np.testing.assert_array_equal(so_far, straight.sum(axis=0))
    assert carried[:N_CODES].any() and carried[N_CODES:].any()  # codes and cells both wrapped
    C.fold_lane(small, by_position)
    assert not small.any()
    np.testing.assert_array_equal(straight, by_position)
    assert dealt[1] == 16 * blocks_a_call * calls
    assert by_position.sum() == dealt[0] * (1 + len(rules_detail(dealt_rules()).groups))


@pytest.mark.parametrize("model", ["fresh", "dealt"])
def test_checkpoint_and_resume_mid_run_is_bit_identical(model, tmp_path):
    rules = fresh_rules() if model == "fresh" else dealt_rules()
    rounds = 1 << 22 if model == "fresh" else 1_000_000
    plan = plan_run(rules, rounds, SEED + 2)
    groups = tuple((group.outcomes, group.texts) for group in rules_detail(rules).groups)
    assert plan.detail == groups and plan.n_cells == rules_detail(rules).n_cells
    state = RunState.empty(plan)
    run_chunks(plan, state, threads=1, max_chunks=5)
    assert 0 < state.chunks_done < plan.n_chunks
    path = tmp_path / "checkpoint.npz"
    save_checkpoint(path, plan, state)
    resumed_plan, resumed = load_checkpoint(path, expect=plan, rules=rules)
    assert resumed_plan == plan and resumed.chunks_done == state.chunks_done
    run_chunks(resumed_plan, resumed, threads=MANY_THREADS)
    whole = simulate(rules, rounds, SEED + 2, threads=MANY_THREADS)
    hist = resumed.histogram(resumed_plan)
    assert hist.detail.signature == whole.detail.signature
    assert (hist.rounds, hist.shoes) == (whole.rounds, whole.shoes)
    np.testing.assert_array_equal(hist.counts, whole.counts)
    np.testing.assert_array_equal(hist.batches, whole.batches)
    if whole.by_position is not None:
        np.testing.assert_array_equal(hist.by_position, whole.by_position)


def test_dask_deals_the_local_histogram():
    pytest.importorskip("distributed")
    from baccarat_sim.engines.dask_backend import (  # needs dask
        _prepare_worker,
        connect,
        prepare_workers,
        simulate_dask,
    )
    from baccarat_sim.engines.fingerprint import stream_fingerprint

    rules = dealt_rules()
    rounds = 500_000
    plan = plan_run(rules, rounds, SEED + 3)
    # Compile (or load) the workers' kernel with this card detail here first: the two worker processes then
    # load numba's cache instead of compiling side by side on a two-core machine.
    _prepare_worker(stream_fingerprint(), plan)
    local = simulate(rules, rounds, SEED + 3, threads=MANY_THREADS)
    with connect(workers=2, threads_per_worker=1) as client:
        prepare_workers(client, plan)
        hist = simulate_dask(rules, rounds, SEED + 3, client=client)
    assert hist.detail.signature == local.detail.signature and hist.meta["backend"] == "dask"
    np.testing.assert_array_equal(hist.counts, local.counts)
    np.testing.assert_array_equal(hist.batches, local.batches)
    np.testing.assert_array_equal(hist.by_position, local.by_position)


# --------------------------------------------------------------------------- the command line


@pytest.fixture(scope="module")
def rule_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("rules") / "card-bets.toml"
    path.write_text(rules_text(FRESH_SHOE, COLOUR_MATCH, THREE_GIVING_EIGHT, HEARTS_WINNER, BANKER))
    return path


def test_command_line_prices_card_level_bets_end_to_end(rule_file):
    command = [sys.executable, "-m", "baccarat_sim.rtp", "--rules", str(rule_file), "--rounds", "2e5", "--seed",
               "1", "--format", "json", "--check"]
    done = subprocess.run(command, capture_output=True, text=True, cwd=REPO, timeout=300)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["run"]["rounds"] == 200_000
    bets = {bet["id"]: bet for bet in report["bets"]}
    assert set(bets) == {"colour_match", "three_giving_eight", "hearts_winner", "banker"}
    for bet in bets.values():
        assert abs(bet["z"]) < 4, bet
        assert bet["ci95"][0] < bet["rtp"] < bet["ci95"][1]
    # The exact figures beside them are the exact engine's (values are fractions, not percents).
    assert round(bets["colour_match"]["exact_house_edge"], 6) == 0.137635
    assert bets["colour_match"]["stated_holds"] is True and bets["three_giving_eight"]["stated_holds"] is True
    assert all(claim["holds"] for claim in report["claims"])
    assert "check passed" in done.stderr


def test_command_line_check_fails_on_a_wrong_stated_rtp(rule_file, tmp_path, capsys):
    wrong = tmp_path / "wrong.toml"
    wrong.write_text(rule_file.read_text().replace('stated_rtp = "86.2365%"', 'stated_rtp = "87.5%"'))
    status = main(["--rules", str(wrong), "--rounds", "2e5", "--seed", "1", "--format", "json",
                   "--check", "--quiet"])
    out, err = capsys.readouterr()
    assert status == EXIT_CHECK_FAILED
    claims = {claim["subject"]: claim for claim in json.loads(out)["claims"]}
    assert claims["colour_match RTP"]["holds"] is False and claims["three_giving_eight RTP"]["holds"] is True
    assert "check FAILED colour_match" in err


# --------------------------------------------------------------------------- positions and Max Round Availability


def test_positions_and_max_round_availability_of_card_level_bets():
    rules, hist = dealt_rules(), dealt_run()
    exact = exact_of(rules)
    assert hist.by_position.shape == (416 // 4 + 1, exact.detail.n_cells)
    np.testing.assert_array_equal(hist.by_position.sum(axis=0), hist.counts)
    analysis = analyze_positions(hist, rules, exact)
    always = rounds_in_every_shoe(rules.shoe)
    assert analysis.always == always == 66  # 416 cards, burn up to 11, cut card 14 from the end
    for bet in rules.bets:
        positions = analysis.bets[bet.id]
        exact_rtp = 1 + float(settle_bet(exact, bet, rules).ev_exact)
        assert positions.exact_rtp == pytest.approx(exact_rtp, abs=1e-12)
        # Round 1 of a shoe is a fresh shoe after the burn: its RTP is the exact one.
        first = (positions.rtp[0] - exact_rtp) / positions.se[0]
        assert abs(first) < 4, (bet.id, positions.rtp[0], positions.se[0], exact_rtp)
    # Colour Match is offered in rounds 1-40, all dealt in every shoe: its RTP under the cap is exactly the fresh
    # one, and the run agrees. The third-card bet's cap (80) reaches past round 66: no exact figure there.
    capped = analysis.bets["colour_match"]
    assert capped.max_round == 40 and capped.exact_rtp_capped == capped.exact_rtp
    assert abs(capped.capped.rtp - capped.exact_rtp) / capped.capped.se < 4
    late = analysis.bets["third_cards"]
    assert late.max_round == 80 and late.exact_rtp_capped is None and late.capped.rounds < hist.rounds


# --------------------------------------------------------------------------- covariance


#: The fresh rule set's bets as plain predicates: line nets in order, then the predicate of each line.
COVARIANCE_ORACLE = {
    "colour_match": ((Fraction(6),), (lambda d: d.count(red, "first_four") in (0, 4),)),
    "hearts_winner": ((Fraction(40), Fraction(3)), (
        lambda d: d.winner == "banker" and d.flush("banker") and suit(d.B1) == "hearts",
        lambda d: d.winner == "banker" and suit(d.B1) == "hearts" and not d.flush("banker"))),
    "banker": ((Fraction(19, 20), Fraction(0)), (lambda d: d.winner == "banker", lambda d: d.winner == "tie")),
}


def oracle_net(bet_id: str, dealt) -> Fraction:
    nets, lines = COVARIANCE_ORACLE[bet_id]
    return next((net for net, holds in zip(nets, lines) if holds(dealt)), Fraction(-1))


def test_covariance_of_card_level_bets_with_banker_equals_brute_force():
    rules = fresh_rules()
    shoe = shoe_of(["As", "2h", "3d", "Qh", "Kh", "8s", "5h", "9c", "Ah"])
    hist = exact_histogram(shoe, rules_detail(rules))
    table = deal_table(every_ordering(shoe))
    total = sum(n for _, n in table)
    bet_ids = list(COVARIANCE_ORACLE)
    nets = {bet_id: [(oracle_net(bet_id, dealt), n) for dealt, n in table] for bet_id in bet_ids}
    mean = {bet_id: sum(v * n for v, n in nets[bet_id]) / total for bet_id in bet_ids}
    matrix = covariance(hist, rules, bet_ids)
    for a in bet_ids:
        for b in bet_ids:
            second = sum(x * y * n for (x, n), (y, _) in zip(nets[a], nets[b])) / total
            expected = float(second - mean[a] * mean[b])
            assert math.isclose(matrix(a, b), expected, rel_tol=1e-12, abs_tol=1e-15), (a, b)
    assert matrix("colour_match", "banker") != 0 and matrix("hearts_winner", "banker") > 0
