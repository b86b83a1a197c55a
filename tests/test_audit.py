"""The audit journey: simulate -> import -> report finds every injected anomaly, names where it is; the database
is checked by SQL; a bad file is refused row by row; the HTML report renders in headless Chromium."""

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

from baccarat_sim.analysis.audit import run_audit
from baccarat_sim.analysis.audit_simulate import ANOMALIES
from baccarat_sim.audit_store.database import open_database
from baccarat_sim.cli.audit import main
from baccarat_sim.model.rules import load_rules


@pytest.fixture(scope="module")
def month(tmp_path_factory):
    folder = tmp_path_factory.mktemp("audit")
    assert main(["simulate", "--tables", "4", "--days", "8", "--rounds-per-day", "250", "--anomalies", "all",
                 "--seed", "3", "--out", str(folder / "logs")]) == 0
    db = folder / "audit.duckdb"
    logs = folder / "logs"
    assert main(["import", "--db", str(db), str(logs / "rounds.csv"), str(logs / "bets.csv"),
                 str(logs / "results.csv")]) == 0
    connection = open_database(db)
    rules = {r: load_rules(r) for r in ("live-8deck-side-bets", "ez-baccarat")}
    report = run_audit(connection, rules)
    connection.close()
    return folder, json.loads((logs / "anomalies.json").read_text()), report


@pytest.mark.slow
def test_every_anomaly_found_and_located(month):
    _, anomalies, report = month
    assert {a["kind"] for a in anomalies} == set(ANOMALIES)
    integrity = report.integrity
    for a in anomalies:
        kind = a["kind"]
        if kind == "misdeal":
            where = (a["table"], a["shoe"], a["round"])
            assert any(f["check"] == "misdeal" and (f["table"], f["shoe"], f["round"]) == where for f in integrity)
        elif kind == "payout":
            assert any(f["check"] == "payout" and (f["table"], f["shoe"], f["round"], f["seat"]) == (
                a["table"], a["shoe"], a["round"], a["seat"]) for f in integrity)
        elif kind == "commission":
            short = [f for f in integrity if f["check"] == "payout" and f["table"] == a["table"]
                     and f["day"] == a["day"] and f["bet"] == "banker"]
            assert len(short) >= a["rounds"]
        elif kind == "stacked":
            assert any(f["check"] == "cards" and (f["table"], f["shoe"]) == (a["table"], a["shoe"]) for f in integrity)
        elif kind == "late-cut":
            assert any(f["check"] == "cut_card" and (f["table"], f["shoe"]) == (a["table"], a["shoe"])
                       for f in integrity)
        elif kind == "bad-burn":
            assert any(f["check"] == "burn" and (f["table"], f["shoe"]) == (a["table"], a["shoe"]) for f in integrity)
        elif kind == "counter":
            flagged = [t for t in report.advantage["count"] if t["flag"] and t["player"] in a["players"]]
            assert flagged and flagged[0]["bet"] == "dragon_7" and flagged[0]["money_at_stake"] > 0
        elif kind == "team":
            assert any(g["table"] == a["table"] and set(a["players"]) <= set(g["players"])
                       for g in report.advantage["groups"])


@pytest.mark.slow
def test_no_integrity_finding_outside_the_anomalies(month):
    _, anomalies, report = month
    shoes = {(a["table"], a["shoe"]) for a in anomalies if "shoe" in a}
    days = {(a["table"], a["day"]) for a in anomalies if a["kind"] == "commission"}
    for f in report.integrity:
        assert (f["table"], f["shoe"]) in shoes or (f["table"], f["day"]) in days, f


@pytest.mark.slow
def test_clean_month_equals_exact_within_its_ranges(tmp_path):
    assert main(["simulate", "--tables", "2", "--days", "6", "--rounds-per-day", "300", "--seed", "11",
                 "--out", str(tmp_path / "logs")]) == 0
    db = tmp_path / "clean.duckdb"
    assert main(["import", "--db", str(db), *(str(tmp_path / "logs" / f"{k}.csv") for k in
                                              ("rounds", "bets", "results"))]) == 0
    connection = open_database(db)
    report = run_audit(connection, {r: load_rules(r) for r in ("live-8deck-side-bets", "ez-baccarat")})
    # The database by SQL: every bet belongs to a stored round, and the results add up to the bets.
    orphans = connection.execute("SELECT count(*) FROM bets b ANTI JOIN rounds r ON b.rid = r.rid").fetchone()[0]
    handle = connection.execute("SELECT sum(handle) - (SELECT sum(stake) FROM bets) FROM results").fetchone()[0]
    connection.close()
    assert orphans == 0 and abs(handle) < 1
    assert report.integrity == []
    flags = report.flags()
    assert len(flags) <= 2, flags  # BH at 5% per family
    for row in report.actual["bets"]:
        if row["by"] == "all":
            assert row["p_rtp"] > 0.001 or row["bets"] < 30, row


def test_reimport_adds_nothing_and_bad_file_is_refused(tmp_path, capsys):
    db = tmp_path / "a.duckdb"
    good = tmp_path / "rounds.csv"
    good.write_text("table,shoe,round,day,rule_set,p1,b1,p2,b2,p3,b3\n"
                    "T1,1,1,2026-01-01,ez-baccarat,9s,5h,K♥,A♣,,\n"
                    "T1,1,2,2026-01-01,ez-baccarat,13H,2d,3c,4s,5d,\n")
    assert main(["import", "--db", str(db), str(good)]) == 0
    assert main(["import", "--db", str(db), str(good)]) == 0
    assert "already imported: nothing added" in capsys.readouterr().out
    bad = tmp_path / "bad.csv"
    bad.write_text("table,shoe,round,day,rule_set,p1,b1,p2,b2,p3,b3\n"
                   "T1,2,1,2026-01-01,ez-baccarat,9s,5h,K♥,A♣,,\n"
                   "T1,2,2,2026-13-01,ez-baccarat,Zz,2d,3c,4s,5d,\n")
    assert main(["import", "--db", str(db), str(bad)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith(f"{bad}:line 3: column day: got 2026-13-01; allowed: a date YYYY-MM-DD")
    assert "column p1: got Zz; allowed: a card such as Kh" in err[0]
    connection = open_database(db)
    assert connection.execute("SELECT count(*) FROM rounds").fetchone()[0] == 2
    cards = connection.execute("SELECT p2, p1 FROM rounds ORDER BY round").fetchall()
    connection.close()
    assert cards == [(49, 32), (11, 49)]  # K♥ and 9s; 3c and 13H (the King of hearts)
    assert main(["query", "--db", str(db), "select count(*) as n, max(p3) as p3 from rounds"]) == 0
    assert capsys.readouterr().out == "n,p3\n2,18\n"  # 5d: rank 4 (the 5), suit 2 (diamonds)
    assert main(["query", "--db", str(db), "delete from rounds"]) == 2  # read-only


@pytest.mark.slow
def test_report_files_schema_and_html_in_chromium(month, tmp_path):
    folder, _, report = month
    out = tmp_path / "report"
    assert main(["report", "--db", str(folder / "audit.duckdb"), "--out", str(out)]) == 0
    document = json.loads((out / "audit.json").read_text())
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((Path(__file__).parents[1] / "docs/reference/schemas/audit.schema.json").read_text())
    jsonschema.validate(document, schema)
    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.skip("no chromium")
    profile = tempfile.mkdtemp()
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", f"--user-data-dir={profile}"]
    dom = subprocess.run([chromium, *flags, "--dump-dom", (out / "audit.html").as_uri()], capture_output=True,
                         text=True, timeout=120).stdout
    assert 'id="flags"' in dom and "COUNTER-7" in dom and "misdeal" in dom
    shot = tmp_path / "page.png"
    subprocess.run([chromium, *flags, f"--screenshot={shot}", "--window-size=1200,2000", (out / "audit.html").as_uri()],
                   capture_output=True, timeout=120)
    assert shot.stat().st_size > 10_000


@pytest.mark.slow
def test_hold_without_bets_needs_the_mix(month, tmp_path, capsys):
    folder, _, _ = month
    db = tmp_path / "no-bets.duckdb"
    logs = folder / "logs"
    assert main(["import", "--db", str(db), str(logs / "rounds.csv"), str(logs / "results.csv")]) == 0
    capsys.readouterr()
    assert main(["report", "--db", str(db)]) == 2
    assert capsys.readouterr().err.startswith("python -m baccarat_sim.audit: error: --mix: rule set ")
    assert main(["report", "--db", str(db), "--mix", "banker=0.5,player=0.45,tie=0.05", "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["hold"]["rule_sets"]["ez-baccarat"]["mix"] == {"banker": 0.5, "player": 0.45, "tie": 0.05}
    periods = document["hold"]["periods"]
    assert periods and all(p["range_95"] is not None and p["range_95"][0] < p["expected_hold"] < p["range_95"][1]
                           for p in periods)


def test_bad_input_found_in_the_second_process_is_the_callers(month, tmp_path):
    """A batch at a time, the hold part runs in a second process: its refusal reaches the caller as it is."""
    from baccarat_sim.errors import InputError

    folder, _, _ = month
    db = tmp_path / "no-bets.duckdb"
    logs = folder / "logs"
    assert main(["import", "--db", str(db), str(logs / "rounds.csv"), str(logs / "results.csv")]) == 0
    connection = open_database(db)
    rules = {r: load_rules(r) for r in ("live-8deck-side-bets", "ez-baccarat")}
    with pytest.raises(InputError, match="no bets are logged") as refused:
        run_audit(connection, rules, batch_rounds=1)
    assert refused.value.param == "mix"
    mix = {"banker": 0.5, "player": 0.45, "tie": 0.05}
    apart, whole = (run_audit(connection, rules, mix=mix, batch_rounds=size) for size in (1, 10**9))
    connection.close()
    assert apart.hold == whole.hold and apart.hold["periods"]


def test_an_error_in_the_second_process_midway_reaches_the_caller(month, monkeypatch):
    import pickle

    from baccarat_sim.analysis import audit_parallel

    folder, _, _ = month
    connection = open_database(folder / "audit.duckdb", read_only=True)
    rules = {r: load_rules(r) for r in ("live-8deck-side-bets", "ez-baccarat")}
    sent = []
    add = audit_parallel.SecondProcess.add

    def add_then_spoil(self, data):  # the second batch arrives spoilt, as a bug in either process would leave it
        sent.append(data.n_rounds)
        if len(sent) == 2:
            self._put(b"not a pickled batch")
        else:
            add(self, data)

    monkeypatch.setattr(audit_parallel.SecondProcess, "add", add_then_spoil)
    with pytest.raises(pickle.UnpicklingError):
        run_audit(connection, rules, batch_rounds=1)
    connection.close()
    assert len(sent) >= 2


def test_the_second_process_runs_under_a_script_without_a_main_guard(month, tmp_path):
    # The second process is a fresh interpreter, not multiprocessing's spawn, which runs the caller's script again.
    folder, _, _ = month
    script = tmp_path / "script.py"
    script.write_text("from baccarat_sim.analysis.audit import run_audit\n"
                      "from baccarat_sim.audit_store.database import open_database\n"
                      "from baccarat_sim.model.rules import load_rules\n"
                      f"connection = open_database({str(folder / 'audit.duckdb')!r}, read_only=True)\n"
                      "rules = {r: load_rules(r) for r in ('live-8deck-side-bets', 'ez-baccarat')}\n"
                      "print(len(run_audit(connection, rules, batch_rounds=1).flags()))\n")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) > 0 and "Warning" not in done.stderr


def test_card_level_payouts_are_checked(tmp_path):
    """Colour Match (catalogue-colour-and-suits): 6 to 1 when P1, B1, P2, B2 are all red or all black."""
    rounds = tmp_path / "rounds.csv"
    rounds.write_text("table,shoe,round,day,rule_set,p1,b1,p2,b2,p3,b3\n"
                      "C1,1,1,2026-03-01,catalogue-colour-and-suits,Kh,9d,2h,Jd,,\n"  # all red (a Banker natural)
                      "C1,1,2,2026-03-01,catalogue-colour-and-suits,Ks,9d,2h,Jd,,\n"  # mixed
                      "C1,1,3,2026-03-01,catalogue-colour-and-suits,Ks,9c,2s,Jc,,\n")  # all black
    bets = tmp_path / "bets.csv"
    bets.write_text("table,shoe,round,seat,player,bet,stake,net\n"
                    "C1,1,1,1,,colour_match,10,60\n"  # right: all red pays 6 to 1
                    "C1,1,2,1,,colour_match,10,60\n"  # wrong: mixed colours lose
                    "C1,1,3,1,,colour_match,10,-10\n")  # wrong: all black pays
    db = tmp_path / "c.duckdb"
    assert main(["import", "--db", str(db), str(rounds), str(bets)]) == 0
    connection = open_database(db)
    report = run_audit(connection, {"catalogue-colour-and-suits": load_rules("catalogue-colour-and-suits")})
    connection.close()
    assert [(f["check"], f["round"], f.get("difference")) for f in report.integrity] == [
        ("payout", 2, 70.0), ("payout", 3, -70.0)]


def test_a_report_of_a_database_without_rounds_is_refused(tmp_path, capsys):
    # A database the import created but filled with nothing (its file refused, or a results file alone) would
    # otherwise be audited as a report of zeros that reads like a clean month.
    db = tmp_path / "empty.duckdb"
    open_database(db).close()
    assert main(["report", "--db", str(db)]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.endswith(f"--db: {db} holds no rounds; import round logs into it first "
                         f"(audit import --db {db} FILE ...)")


def _same(one, other, where: str = "") -> list[str]:
    """Where two reports' JSON differ beyond the round-off of sums added in another order (relative 1e-12)."""
    if isinstance(one, dict) and isinstance(other, dict):
        return ([f"{where}: keys"] if set(one) != set(other) else
                [d for key in one for d in _same(one[key], other[key], f"{where}/{key}")])
    if isinstance(one, list) and isinstance(other, list):
        return ([f"{where}: {len(one)} items, {len(other)}"] if len(one) != len(other) else
                [d for k, (a, b) in enumerate(zip(one, other)) for d in _same(a, b, f"{where}[{k}]")])
    if isinstance(one, float) and isinstance(other, float):
        return [] if abs(one - other) <= 1e-12 * max(abs(one), abs(other)) else [f"{where}: {one!r}, {other!r}"]
    return [] if one == other else [f"{where}: {one!r}, {other!r}"]


@pytest.mark.slow
def test_a_report_a_table_at_a_time_equals_one_batch(month, tmp_path):
    # The audit reads whole tables a batch at a time and adds each batch to its sums. A logged player who plays at
    # two tables (the counter, given a seat at a second table here) is in two batches: their correlation and its
    # permutation test add both batches' sums, their maximum bets take the largest stake of both.
    from baccarat_sim.analysis.audit_data import plan_batches
    from baccarat_sim.report.audit_report import audit_json

    folder, anomalies, _ = month
    db = tmp_path / "audit.duckdb"
    shutil.copy(folder / "audit.duckdb", db)
    (counter,) = [a for a in anomalies if a["kind"] == "counter"]
    connection = open_database(db)
    other = connection.execute("SELECT min(table_id) FROM rounds WHERE table_id <> ? AND rule_set = (SELECT any_value("
                               "rule_set) FROM rounds WHERE table_id = ?)", [counter["table"]] * 2).fetchone()[0]
    connection.execute("UPDATE bets SET player = ? WHERE seat = 1 AND rid IN (SELECT rid FROM rounds WHERE "
                       "table_id = ?)", [counter["players"][0], other])
    rules = {r: load_rules(r) for r in ("live-8deck-side-bets", "ez-baccarat")}
    assert len(plan_batches(connection, batch_rounds=1)) == 4
    whole, by_table = (json.loads(json.dumps(audit_json(run_audit(connection, rules, batch_rounds=size))))
                       for size in (10**9, 1))
    connection.close()
    assert _same(whole, by_table) == []
    tested = [t for t in by_table["advantage"]["count"] if t["player"] == counter["players"][0]]
    assert other is not None and {t["table"] for t in tested} == {min(other, counter["table"])}
    assert any(t["method"] == "permutation" and t["flag"] for t in tested)


def test_runs_added_a_part_at_a_time_equal_the_whole():
    from baccarat_sim.analysis.audit_stats import Runs, runs_test

    rng = np.random.default_rng(5)
    for _ in range(20):
        outcomes, starts = rng.random(300) < 0.5, rng.random(300) < 0.05
        cuts = np.sort(rng.choice(np.arange(1, 300), 4, replace=False))
        runs = Runs()
        for part in np.split(np.arange(300), cuts):
            runs.add(outcomes[part], starts[part])
        assert runs.result() == runs_test(outcomes, starts)


def test_permutation_moments_equal_every_shuffle_within_shoes():
    # Brute force: every shuffle of the amounts within each shoe of one player (4! x 3! x 1 orders) against the
    # kernel's mean and variance of sum(amount x true count); a second player's sums stay apart.
    import itertools

    from baccarat_sim.engines.audit_moments import pair_moments

    x = np.array([0.0, 25.0, 0.0, 100.0, 5.0, 0.0, 5.0, 40.0, 0.0, 10.0])
    y = np.array([-1.5, 0.25, 2.0, 3.5, -0.5, 1.0, 4.0, 7.0, 1.0, -2.0])
    player = np.array([0, 0, 0, 0, 0, 0, 0, 0, 1, 1])
    segment = np.array([0, 0, 0, 0, 1, 1, 1, 2, 3, 3])
    found = pair_moments(player, x, y, segment, 2, 4)
    shoes = [np.arange(0, 4), np.arange(4, 7), np.arange(7, 8)]
    totals = [float(x[list(a) + list(b) + list(c)] @ y[:8])
              for a in itertools.permutations(shoes[0]) for b in itertools.permutations(shoes[1])
              for c in itertools.permutations(shoes[2])]
    observed = float(x[:8] @ y[:8])
    assert found.shifted[0] == pytest.approx(observed - np.mean(totals), rel=1e-12)
    assert found.spread[0] == pytest.approx(np.var(totals), rel=1e-12)
    assert found.sums[:, 1].tolist() == [2, 10, -1, 100, 5, -20]
    assert found.spread[1] == pytest.approx(np.var([10 * -2, 10 * 1]), rel=1e-12)
