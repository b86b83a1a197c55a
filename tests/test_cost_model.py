"""The cost model (issue 39 item 2, issue 41 items 19 and 24): predicted before anything is allocated, refused in one
line naming the file, the bet and the cost, and a Monte Carlo run that never waits on a costly exact figure.

The hostile rule files run as commands in a subprocess whose address space is capped (``RLIMIT_AS``): a refusal
that came after the allocation would fail there with a MemoryError (exit 1), not exit 2 with one line.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tracemalloc

import numpy as np
import pytest

from baccarat_sim import load_rules
from baccarat_sim.analysis.eor import effect_of_removal
from baccarat_sim.engines import budget
from baccarat_sim.engines import detail as engine_detail
from baccarat_sim.engines.budget import priced_detail
from baccarat_sim.engines.detail import group_reach, group_weights, rules_detail
from baccarat_sim.engines.plan import plan_run
from baccarat_sim.errors import InvalidRules
from baccarat_sim.model import cost as cost_model
from baccarat_sim.model import detail_tables
from baccarat_sim.model.conditions import compile_condition
from baccarat_sim.model.rules import available_rules, parse_rules

#: The address space a hostile command runs in: far below what the cross product of two poker hands allocates.
ADDRESS_SPACE = 3 << 30


def _rules_text(bets: dict[str, list[str]], decks: int = 8, name: str = "t") -> str:
    """A rule set of card-level bets, line ``i`` of each paying ``i + 1`` to 1, the rest losing."""
    blocks = []
    for bet_id, lines in bets.items():
        pays = ", ".join(f'{{ when = "{when}", pays = "{i + 1}:1" }}' for i, when in enumerate(lines))
        blocks.append(f'[[bets]]\nid = "{bet_id}"\nname = "{bet_id}"\npays = [{pays}]\notherwise = "lose"\n')
    return (f'schema_version = 1\nid = "{name}"\nname = "{name}"\npayout_notation = "to"\n\n[shoe]\ndecks = {decks}\n\n'
            + "\n".join(blocks))


def _rule_file(tmp_path, bets: dict[str, list[str]], decks: int = 8, name: str = "hostile") -> str:
    """:func:`_rules_text` written to a file; its path."""
    path = tmp_path / f"{name}.toml"
    path.write_text(_rules_text(bets, decks, name))
    return str(path)


def _capped():
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def _rtp(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "baccarat_sim.rtp", *map(str, args)], capture_output=True,
                          text=True, timeout=300, preexec_fn=_capped)


#: The bets the by-card builder could not price (its cross product of two hands' states, issue 39): counted by rank,
#: they price exactly in seconds and a few hundred MB.
FORMERLY_HOSTILE = {
    "banker_beats": "poker(banker) > poker(player)",
    "same_hand": "poker(player) == poker(banker)",
    "flush_and_kind": "poker(all) == flush and kind_rank(banker) == kind_rank(player)",
    "four": "poker(all) == four_of_a_kind",
}
#: The costliest condition the cost model was found to price (one atom whose suits tell apart 4,096 values of a
#: distribution): measured 15.7 s on a full 8-deck shoe, 78 s with one card removed, 133 s depleted unevenly.
COSTLY = "P1.suit == B1.suit and P2.suit == B2.suit and poker(all) == flush"


def _no_pricing(monkeypatch, *where):
    """Make every exact pricing (by card, by rank) and the builders fail: a refusal must come before them."""
    def priced(*args, **kwargs):
        raise AssertionError("priced or built before the refusal")

    monkeypatch.setattr(engine_detail, "rankwise_weights", priced)
    monkeypatch.setattr(engine_detail, "exact_tables", priced)
    monkeypatch.setattr(engine_detail, "exact_detail_counts", priced)
    for name in where:
        monkeypatch.setattr(name, priced)


def _main(module: str, *args) -> tuple[int, list[str], str]:
    """A command run in-process (its ``main``): (exit status, stderr's lines, stdout)."""
    import contextlib
    import importlib
    import io

    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        status = importlib.import_module(f"baccarat_sim.cli.{module}").main([str(a) for a in args])
    return status, err.getvalue().strip().splitlines(), out.getvalue()


@pytest.mark.parametrize("bet_id", ["banker_beats", "same_hand", "flush_and_kind"])
def test_a_condition_beyond_the_limits_is_refused_in_one_line_before_any_pricing(tmp_path, monkeypatch, bet_id):
    # No condition of the grammar was found beyond the limits (see COSTLY): a lowered memory limit drives the refusal.
    path = _rule_file(tmp_path, {bet_id: [FORMERLY_HOSTILE[bet_id]]}, decks=6)
    engine_detail.detail_of_group.cache_clear()
    monkeypatch.setattr(budget, "MAX_PLAN_BYTES", 4 << 20)
    monkeypatch.setattr(engine_detail, "reach_is_cheap", lambda atoms, outcomes: False)  # no count for the reach
    _no_pricing(monkeypatch, "baccarat_sim.engines.exact.detail_counts")
    status, lines, _ = _main("rtp", "--exact", "--rules", path)
    engine_detail.detail_of_group.cache_clear()
    assert status == 2, lines
    (line,) = lines
    assert line.startswith(f"python -m baccarat_sim.rtp: error: {path}: bets.{bet_id}: pricing its card-level "
                           "conditions exactly is predicted to take "), line
    assert " MB" in line and "more than the limit of 4 MB of memory" in line


@pytest.mark.parametrize("bet_id", FORMERLY_HOSTILE)
def test_a_formerly_hostile_bet_prices_exactly_in_a_capped_address_space(tmp_path, bet_id):
    path = _rule_file(tmp_path, {bet_id: [FORMERLY_HOSTILE[bet_id]]}, decks=6)
    done = _rtp("--exact", "--rules", path, "--format", "json", "--quiet")
    assert done.returncode == 0, done.stderr
    (bet,) = json.loads(done.stdout)["bets"]
    assert 0 < bet["exact_rtp"] < 40


def test_hold_beyond_the_limits_is_refused_in_one_line(tmp_path, monkeypatch):
    path = _rule_file(tmp_path, {"flush": ["poker(player) == flush"]}, decks=6)
    engine_detail.detail_of_group.cache_clear()
    monkeypatch.setattr(budget, "MAX_PLAN_BYTES", 1 << 20)
    monkeypatch.setattr(engine_detail, "reach_is_cheap", lambda atoms, outcomes: False)
    _no_pricing(monkeypatch)
    status, lines, _ = _main("hold", "--rules", path, "--slip", "flush=10", "--rounds", "100")
    engine_detail.detail_of_group.cache_clear()
    assert status == 2, lines
    (line,) = lines
    assert line.startswith(f"python -m baccarat_sim.hold: error: {path}: bets.flush: building its card-level "
                           "tables is predicted to take "), line
    assert "more than the limit of 1 MB of memory" in line


def test_monte_carlo_of_a_costly_bet_deals_and_says_why_it_has_no_exact_figure(tmp_path, monkeypatch):
    # COSTLY is within the exact engine's limits; lowered, they leave it beyond: the run deals, never prices it.
    path = _rule_file(tmp_path, {"costly": [COSTLY]}, decks=6)
    engine_detail.detail_of_group.cache_clear()
    monkeypatch.setattr(budget, "MAX_PLAN_SECONDS", 5.0)
    _no_pricing(monkeypatch)
    status, lines, out = _main("rtp", "--rules", path, "--rounds", "200000", "--seed", "3", "--format", "json",
                               "--quiet", "--out", tmp_path)
    engine_detail.detail_of_group.cache_clear()
    assert status == 0, lines
    report = json.loads(out)
    (bet,) = report["bets"]
    assert bet["exact_rtp"] is None and bet["z"] is None and 0 < bet["rtp"] < 40
    (note,) = [n for n in report["run"]["notes"] if n.startswith("costly: exact figure not computed")]
    assert "predicted to take" in note and "beyond the exact engine's limits (more than the limit of 5.0 s)" in note


def test_monte_carlo_of_the_banker_beats_bet_has_its_exact_figure_and_z(tmp_path):
    path = _rule_file(tmp_path, {"banker_beats": [FORMERLY_HOSTILE["banker_beats"]]}, decks=6)
    done = _rtp("--rules", path, "--rounds", "200000", "--seed", "3", "--format", "json", "--quiet")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    (bet,) = report["bets"]
    assert bet["exact_rtp"] is not None and abs(bet["z"]) < 4, bet
    assert not [n for n in report["run"]["notes"] if "exact figure not computed" in n]


def test_monte_carlo_on_an_unevenly_depleted_shoe_asks_for_the_exact_figure_on_that_shoe(tmp_path, monkeypatch):
    # Cheap on the full shoe, the count by rank is predicted above Monte Carlo's wait on a shoe depleted unevenly.
    path = _rule_file(tmp_path, {"banker_beats": [FORMERLY_HOSTILE["banker_beats"]]}, decks=6)
    removed = "AH,AH,2S,3S,3S,4D,5C,5C,5C,6H,7D,8D,9S,TH,TH,JC,QS,KD,KD"
    monkeypatch.setattr(engine_detail, "exact_detail_counts", lambda *a, **k: pytest.fail("priced by card"))
    status, lines, out = _main("rtp", "--rules", path, "--remove", removed, "--rounds", "100000", "--seed", "1",
                               "--format", "json", "--quiet", "--out", tmp_path)
    assert status == 0, lines
    report = json.loads(out)
    (bet,) = report["bets"]
    assert bet["exact_rtp"] is None and bet["z"] is None
    (note,) = [n for n in report["run"]["notes"] if n.startswith("banker_beats: exact figure not computed")]
    assert note.endswith(f"ask for it with rtp --exact --rules {path} --remove {removed} --bets banker_beats"), note


def test_a_monte_carlo_plan_builds_no_exact_table_for_a_costly_group(monkeypatch):
    # The run plans from the Monte Carlo tables alone: neither exact count (by card, by rank) runs for this bet.
    engine_detail.detail_of_group.cache_clear()
    _no_pricing(monkeypatch)
    rules = parse_rules(_rules_text({"costly": [COSTLY]}), "costly.toml")
    plan = plan_run(rules, 10**6, seed=1)
    (group,) = rules_detail(rules).groups
    engine_detail.detail_of_group.cache_clear()
    assert group.reach == "tables" and plan.n_cells == 14_400 + group.n_cells
    # Both values of the atom, with every prefix of the outcome code (the bet reads no pair).
    assert group.n_details == 2 and group.possible.all()


def test_the_group_atom_limit_names_the_bet():
    lines = [f"{p}.rank == {r} and player_score == {i % 10}" for i, (p, r) in
             enumerate((p, r) for p in ("P1", "B1", "P2", "B2", "P3") for r in ("A", "2", "3", "4", "5", "6", "7",
                                                                                "8", "9", "10", "J", "Q", "K"))]
    rules = parse_rules(_rules_text({"many": lines}), "many.toml")
    with pytest.raises(InvalidRules, match=r"^many.toml: bets\.many: their card-level conditions have 65 card-only "
                                           r"parts, more than the 63 one group holds"):
        rules_detail(rules)


def test_a_monte_carlo_run_too_large_for_memory_is_refused_before_dealing():
    # Issue 41 item 19: three bets of eight lines, each group 256 combinations x 14,400 codes (3,686,400 cells).
    bets = {}
    for b, (s1, s2, ranks) in enumerate((("hearts", "spades", "AKQJ"), ("clubs", "diamonds", "2345"),
                                         ("hearts", "clubs", "6789"))):
        atoms = [f"P1.suit == {s1}", f"B1.suit == {s1}", f"P2.suit == {s2}", f"B2.suit == {s2}",
                 *(f"{p}.rank == {r}" for p, r in zip(("P1", "B1", "P2", "B2"), ranks))]
        if b == 2:
            atoms[:4] = ["P1.colour == red", "B1.colour == red", "P2.colour == black", "B2.colour == black"]
        bets[f"big{b}"] = [f"{a} and player_score == {i}" + (" and player_pair" if i == 0 else "")
                           for i, a in enumerate(atoms)]
    rules = parse_rules(_rules_text(bets), "big.toml")
    assert [g.n_cells for g in rules_detail(rules).groups] == [3_686_400] * 3
    with pytest.raises(InvalidRules, match=r"^big.toml: bets\.big0, bets\.big1, bets\.big2: a Monte Carlo run of this "
                                           r"rule set counts 11,073,600 cells a round .* more than the limit"):
        plan_run(rules, 10**7, seed=1)
    plan_run(rules.with_bets(["big0"]), 10**7, seed=1)  # one of them alone fits


def test_an_effect_of_removal_beyond_the_time_limit_is_refused_before_any_pricing(monkeypatch):
    # Genuinely costly: one pricing by rank on a shoe one card short is predicted above a minute, 53 of them.
    rules = parse_rules(_rules_text({"four": [COSTLY]}), "four.toml")

    def no_pricing(*args, **kwargs):
        raise AssertionError("priced before the refusal")

    monkeypatch.setattr("baccarat_sim.analysis.eor.exact_histogram", no_pricing)
    with pytest.raises(InvalidRules, match=r"^four.toml: bets\.four: its effect of removal \(--eor\) \(\d+ exact "
                                           r"pricings\) is predicted to take about [\d,]+ s, more than the limit"):
        effect_of_removal(rules)


def _kernel_scratch(atoms, outcomes: str, shoe, lanes: int) -> int:
    """Bytes the exact enumeration's kernel allocates per lane in numba (unseen by tracemalloc), off the real tables."""
    tables = detail_tables.exact_tables(atoms, engine_detail._pooled_shoe(atoms, outcomes, shoe), outcomes)
    k = len(tables["t_total"])
    return lanes * (tables["n_states"] * 4 + tables["rows"] * (k * k + k + 2) * 8)


@pytest.mark.parametrize(("condition", "outcomes"), [("kind(all) >= 3", "prefixes"), ("kind(all) >= 3", "codes"),
                                                     ("poker(player) == flush", "codes")])
def test_predicted_bytes_are_within_a_factor_of_two_of_the_real_peak(condition, outcomes):
    # numpy reports its allocations to tracemalloc; the kernel's scratch (numba's) is added from the real tables.
    atoms = tuple(compile_condition(condition).atoms)
    shoe = np.full((13, 4), 8, np.int64)
    scratch = _kernel_scratch(atoms, outcomes, shoe, lanes=2)
    for step, predicted, unseen in ((lambda: group_weights(atoms, shoe, outcomes, lanes=2),
                                     cost_model.exact_cost(atoms, outcomes, lanes=2), scratch),
                                    (lambda: group_reach(atoms, outcomes), cost_model.reach_cost(atoms, outcomes), 0)):
        tracemalloc.start()
        step()
        peak = tracemalloc.get_traced_memory()[1] + unseen
        tracemalloc.stop()
        assert peak / 2 <= predicted.bytes <= peak * 2, (condition, outcomes, peak, predicted)


def test_predicted_cells_are_the_by_card_builders_table():
    # One set of atoms: the builder's table is its first-four rows (classes times hand states) by third-card cells.
    shoe = np.full((13, 4), 8, np.int64)
    for condition, rows in (("poker(player) == flush", 455), ("kind(all) >= 3", 1820),
                            ("poker(banker) == straight", 455), ("P1.suit == B1.suit and P3.suit == hearts", 16)):
        atoms = tuple(compile_condition(condition).atoms)
        assert not cost_model.counted_by_rank(atoms), condition  # still counted by card
        third = [len(r) for r in detail_tables.joint_classes(atoms, letters=True)[1]][4:]
        tables = detail_tables.exact_tables(atoms, shoe, "codes")
        assert len(tables["reduced"]) == rows, condition  # the builder's real first-four rows
        assert cost_model.builder_cost(atoms, "codes").cells == rows * third[0] * third[1], condition


@pytest.mark.parametrize("condition", [FORMERLY_HOSTILE["banker_beats"], FORMERLY_HOSTILE["flush_and_kind"],
                                       "poker(banker) > poker(player) and P3.suit == B3.suit"])
def test_the_rank_wise_prediction_is_the_rank_wise_builders_tables(condition):
    from baccarat_sim.engines.rankwise import rankwise_tables, rankwise_weights
    from baccarat_sim.model.codes import N_CODES
    from baccarat_sim.model.rankwise_layout import rankwise_cost

    atoms = tuple(compile_condition(condition).atoms)
    assert cost_model.counted_by_rank(atoms) and cost_model.builder_cost(atoms, "codes").cells == 0
    shoe = np.full((13, 4), 2, np.int64)  # a small shoe: the tables' shapes are the shoe's, not its counts'
    predicted = rankwise_cost(atoms, "codes", shoe=shoe)
    tables = rankwise_tables(atoms, shoe, "codes")
    assert predicted.kinds == tables.shoe.shape[0] == tables.classes.shape[1] == 13
    bits, weights = rankwise_weights(atoms, shoe, "codes")
    assert weights.shape == (len(bits), N_CODES) and len(bits) <= 2 ** len(atoms)
    # Each thread's output and the sum: at least the real rows, within the capped address space.
    assert 3 * weights.nbytes <= predicted.bytes <= ADDRESS_SPACE // 4
    assert cost_model.exact_cost(atoms, "codes").cells >= weights.size


def test_the_rank_wise_prediction_grows_as_the_shoe_is_depleted_unevenly():
    # What drives the count's time: suit distributions remembered across kinds whose suits are alike. Measured
    # (poker(banker) > poker(player), 8 decks): 1.7 s full, 0.7 s one card short, 22.9 s depleted unevenly.
    from baccarat_sim.model.rankwise_layout import rankwise_cost

    atoms = tuple(compile_condition(FORMERLY_HOSTILE["banker_beats"]).atoms)
    full = np.full((13, 4), 8, np.int64)
    short = full.copy()
    short[3, 1] -= 1
    uneven = full - np.random.default_rng(5).integers(0, 4, (13, 4))
    seconds = [rankwise_cost(atoms, "codes", shoe=shoe).seconds for shoe in (full, short, uneven)]
    assert rankwise_cost(atoms, "codes").seconds == seconds[0]
    assert seconds[0] < seconds[1] < seconds[2] <= rankwise_cost(atoms, "codes").worst_seconds
    # In wall seconds on two threads: under Monte Carlo's wait on the full shoe, well above it depleted unevenly.
    assert cost_model.exact_cost(atoms, "codes", shoe=full).seconds < 3 < 10 < cost_model.exact_cost(
        atoms, "codes", shoe=uneven).seconds
    # The costliest suit values priced on a shoe one card short are beyond a Monte Carlo run's wait.
    costly = tuple(compile_condition(COSTLY).atoms)
    assert not budget.cheap(cost_model.exact_cost(costly, "codes", shoe=short))
    assert budget.cheap(cost_model.exact_cost(atoms, "codes", shoe=full))


def test_every_shipped_rule_set_keeps_its_exact_reach_and_exact_figures():
    # No shipped group is costly: each keeps the card detail of the exact reach, and a Monte Carlo run prices
    # every bet exactly before it deals, as before the cost model.
    for rules_id in available_rules():
        rules = load_rules(rules_id)
        detail = rules_detail(rules)
        if detail is None:
            continue
        assert all(group.reach == "exact" for group in detail.groups), rules_id
        priced, missing = priced_detail(rules, detail)
        assert missing == {} and priced is not None and len(priced.groups) == len(detail.groups), rules_id


@pytest.fixture
def tables_reach(monkeypatch):
    """Every group's card detail from the Monte Carlo tables, as for a group whose exact reach is costly."""
    engine_detail.detail_of_group.cache_clear()
    monkeypatch.setattr(engine_detail, "reach_is_cheap", lambda atoms, outcomes: False)
    yield
    engine_detail.detail_of_group.cache_clear()


def test_a_detail_from_the_monte_carlo_tables_prices_as_the_exact_reach(tables_reach):
    from baccarat_sim import exact_histogram, settle

    suits = ["P1.suit == B1.suit and P1.suit == hearts", "P1.suit == B1.suit and P1.suit != hearts"]
    rules = parse_rules(_rules_text({"suits": suits, "flush": ["poker(player) == flush"]}), "t.toml")
    detail = rules_detail(rules)
    assert all(group.reach == "tables" for group in detail.groups)
    tables = settle(exact_histogram(8, detail), rules)
    engine_detail.detail_of_group.cache_clear()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(engine_detail, "reach_is_cheap", lambda atoms, outcomes: True)
        exact = settle(exact_histogram(8, rules_detail(rules)), rules)
    assert [r.ev_exact for r in tables] == [r.ev_exact for r in exact]


def test_overlapping_lines_of_a_detail_from_the_tables_are_found_on_the_exact_weights(tables_reach):
    from baccarat_sim import exact_histogram
    from baccarat_sim.engines.detail import check_on_weights

    rules = parse_rules(_rules_text({"hearts": ["P1.suit == hearts", "P1.suit == hearts and B1.suit == hearts"]}),
                        "overlap.toml")
    detail = rules_detail(rules)  # the tables' cells hold cells that cannot happen: no overlap is judged on them
    with pytest.raises(InvalidRules, match=r"^overlap.toml: bets\.hearts\.pays\[1\]\.when: .* overlaps pays\[0\]"):
        check_on_weights(rules, exact_histogram(8, detail))


def test_a_bet_within_the_limits_but_slow_is_left_to_ask_for_with_its_command():
    rules = parse_rules(_rules_text({"four": [COSTLY], "hearts": ["P1.suit == hearts"]}), "four.toml")
    priced, missing = priced_detail(rules, rules_detail(rules))
    assert list(missing) == ["four"] and [group.texts for group in priced.groups] == [("P1.suit in [hearts]",)]
    assert "ask for it with rtp --exact --rules four.toml --bets four" in missing["four"]
    assert missing["four"].endswith("not for overlaps or gaps (they need the exact cells)")
