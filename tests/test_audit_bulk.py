"""The audit's fast paths against the slow ones they stand in for.

``audit import``'s bulk path (baccarat_sim/audit_store/bulk.py) against its checked path: the same database, row
for row and in the same order, from CSV and Parquet; a bad file refused with the same lines. ``audit simulate``
made a chunk at a time: the same month whatever the chunk size, and the same files as written whole."""

import datetime

import numpy as np
import pytest

from baccarat_sim.analysis.audit_simulate import ANOMALIES, month_chunks, simulate_month, sort_anomalies
from baccarat_sim.audit_store import importing
from baccarat_sim.audit_store.bulk import NeedsChecking
from baccarat_sim.audit_store.database import open_database
from baccarat_sim.audit_store.files import write_log_chunks, write_logs
from baccarat_sim.engines.audit_deal import deal_shoes
from baccarat_sim.model.rules import load_rules

RULES = ("live-8deck-side-bets", "ez-baccarat")
RULE_BETS = {name: load_rules(name).bet_ids for name in RULES}
KINDS = ("rounds", "bets", "results")


def _checked_only(monkeypatch):
    """Every import takes the checked path (what the bulk path must equal)."""
    def refuse(*args, **kwargs):
        raise NeedsChecking("the checked path, for the comparison")

    monkeypatch.setattr(importing, "bulk_add", refuse)


def _bulk_spy(monkeypatch) -> list:
    """The kinds of the files the bulk path adds, in turn, from now on."""
    added, bulk_add = [], importing.bulk_add

    def spy(*args):
        rows = bulk_add(*args)
        added.append(args[3].kind)
        return rows

    monkeypatch.setattr(importing, "bulk_add", spy)
    return added


def _import(db, paths):
    """Import ``paths`` into a new database ``db``; returns its tables (rows in stored order) or the refusal."""
    connection = open_database(db)
    try:
        for path in paths:
            try:
                importing.import_file(connection, path, RULE_BETS)
            except importing.BadFile as error:
                return error.lines, _tables(connection)
        return None, _tables(connection)
    finally:
        connection.close()


def _tables(connection):
    return {table: connection.execute(f"SELECT * FROM {table}").fetchall() for table in KINDS} | {
        "imports": connection.execute("SELECT sha256, file, kind, rows_read, rows_added FROM imports").fetchall()}


@pytest.fixture(scope="module")
def month():
    return simulate_month([load_rules(name) for name in RULES], 3, 3, 150, 21, list(ANOMALIES))


@pytest.mark.parametrize("file_format", ["csv", "parquet"])
def test_bulk_path_stores_what_the_checked_path_stores(month, tmp_path, monkeypatch, file_format):
    write_logs(tmp_path / "logs", {"rounds": month.rounds, "bets": month.bets, "results": month.results},
               file_format)
    paths = [tmp_path / "logs" / f"{kind}.{file_format}" for kind in KINDS]
    taken = _bulk_spy(monkeypatch)
    refused, fast = _import(tmp_path / "fast.duckdb", paths)
    assert refused is None and taken == ["rounds", "bets"]  # table results are small: always checked
    _checked_only(monkeypatch)
    refused, slow = _import(tmp_path / "slow.duckdb", paths)
    assert refused is None
    assert len(fast["bets"]) == len(month.bets["bet"]) > 1000
    assert fast == slow  # every row, in the order stored: the bets in the file's order


def _write(path, text):
    path.write_text(text)
    return path


ROUNDS = "table,shoe,round,day,rule_set,p1,b1,p2,b2,p3,b3\n"
BETS = "table,shoe,round,seat,player,bet,stake,net\n"
GOOD_ROUNDS = (ROUNDS + "T1,1,1,2026-01-01,ez-baccarat,9s,5h,K♥,A♣,,\n"
               "T1,1,2,2026-01-01,ez-baccarat,13H,2d,3c,4s,5d,\n" "T1,1,3,2026-01-01,ez-baccarat,Ts,10d,Qc,6s,,\n")


@pytest.mark.parametrize("rounds, bets", [
    (ROUNDS + "T1,1,1,2026-01-01,ez-baccarat,9s,5h,K♥,A♣,,\nT1,1,1,2026-01-01,ez-baccarat,9s,5h,K♥,A♣,,\n", None),
    (ROUNDS + "T1,1,1,2026-01-01,ez-baccarat,9s,5h,K♥,A♣,Zz,\n", None),  # a bad optional card
    (ROUNDS + "T1,1,1,2026-01-01,no-such-rules,9s,5h,K♥,A♣,,\n", None),
    (ROUNDS + f"{'T' * 65},1,1,2026-01-01,ez-baccarat,9s,5h,K♥,A♣,,\n", None),
    (ROUNDS + "T1,1,0,2026-01-01,ez-baccarat,9s,5h,K♥,A♣,,\n", None),
    (GOOD_ROUNDS, BETS + "T1,1,1,1,,banker,10,-10\nT1,1,4,1,,banker,10,10\n"),  # round 4 not imported
    (GOOD_ROUNDS, BETS + "T1,1,1,1,,banker,10,-10\nT1,1,1,1,,banker,10,-10\n"),  # a bet repeated
    (GOOD_ROUNDS, BETS + "T1,1,1,1,,dragon_7,10,-10\nT1,1,2,1,,no_such_bet,10,-10\n"),
    (GOOD_ROUNDS, BETS + "T1,1,1,1,,banker,0,0\nT1,1,2,1,,banker,10,nan\n"),
    (ROUNDS + "T1,1,2.5,2026-01-01,ez-baccarat,9s,5h,K♥,A♣,,\n", None),  # a cast would round it to 3
    (GOOD_ROUNDS, BETS + "T1,1,1,1.5,,banker,10,-10\n"),
])
def test_a_bad_file_is_refused_with_the_same_lines_either_way(tmp_path, monkeypatch, rounds, bets):
    paths = [_write(tmp_path / "rounds.csv", rounds)] + ([_write(tmp_path / "bets.csv", bets)] if bets else [])
    refused, fast = _import(tmp_path / "fast.duckdb", paths)
    _checked_only(monkeypatch)
    refused_slow, slow = _import(tmp_path / "slow.duckdb", paths)
    assert refused and refused == refused_slow
    assert fast == slow  # the good files before the bad one imported, nothing of the bad one
    assert refused[-1].endswith("bad rows; nothing was imported")


def test_shoes_out_of_order_with_gaps_and_a_second_overlapping_log(tmp_path, monkeypatch):
    # Rounds logged out of order and with a gap (round 4 voided), a shoe spread over the file, then a second log
    # that repeats rounds already stored (the same cards: added once) and adds new ones.
    first = _write(tmp_path / "a.csv", ROUNDS + "T1,1,3,2026-01-01,ez-baccarat,Ts,10d,Qc,6s,,\n"
                   "T2,7,1,2026-01-01,live-8deck-side-bets,2s,3s,4s,5s,,\n"
                   "T1,1,1,2026-01-01,ez-baccarat,9s,5h,K♥,A♣,,\n"
                   "T1,1,5,2026-01-01,ez-baccarat,13H,2d,3c,4s,5d,\n"
                   "T2,7,2,2026-01-01,live-8deck-side-bets,Kc,Kd,Kh,Ks,,\n")
    second = _write(tmp_path / "b.csv", ROUNDS + "T1,1,5,2026-01-01,ez-baccarat,13H,2d,3c,4s,5d,\n"
                    "T1,1,6,2026-01-01,ez-baccarat,Ah,Ad,2h,2d,,\n")
    bets = _write(tmp_path / "bets.csv", BETS + "T1,1,1,2,,player,25,25\nT2,7,2,1,P9,player_pair,5,-5\n"
                  "T1,1,5,1,,banker,10,-10\nT1,1,3,1,,tie,10,80\nT1,1,6,3,,banker,10,10\nT2,7,1,1,,player,10,-10\n")
    taken = _bulk_spy(monkeypatch)
    refused, fast = _import(tmp_path / "fast.duckdb", [first, second, bets])
    assert taken == ["rounds", "bets"]  # the second log, overlapping the first, through the checked path
    _checked_only(monkeypatch)
    _, slow = _import(tmp_path / "slow.duckdb", [first, second, bets])
    assert refused is None and fast == slow
    assert len(fast["rounds"]) == 6 and len(fast["bets"]) == 6


def test_parquet_columns_of_their_own_types_read_as_their_text(tmp_path, monkeypatch):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    rounds = tmp_path / "rounds.parquet"
    pq.write_table(pa.table({
        "table": ["T1", "T1"], "shoe": ["1", "1"], "round": pa.array([1, 2], pa.int16()),
        "day": [datetime.date(2026, 1, 1)] * 2, "rule_set": ["ez-baccarat"] * 2, "p1": ["9s", "13H"],
        "b1": ["5h", "2d"], "p2": ["K♥", "3c"], "b2": ["A♣", "4s"], "p3": [None, "5d"], "b3": [None, None],
        "burned": pa.array([3, None], pa.int64())}), rounds)
    bets = tmp_path / "bets.parquet"
    pq.write_table(pa.table({"table": ["T1", "T1"], "shoe": ["1", "1"], "round": [1, 2], "seat": [1, 2],
                             "bet": ["banker", "player"], "stake": pa.array([10, 20], pa.int32()),
                             "net": [-10.0, 20.0]}), bets)
    taken = _bulk_spy(monkeypatch)
    refused, fast = _import(tmp_path / "fast.duckdb", [rounds, bets])
    assert taken == ["rounds", "bets"]
    _checked_only(monkeypatch)
    _, slow = _import(tmp_path / "slow.duckdb", [rounds, bets])
    assert refused is None and fast == slow and fast["bets"][1][:2] == (2, 2)


def test_an_integer_column_holds_whole_numbers_only(tmp_path, monkeypatch):
    # "2.0" is round 2 (as written by a spreadsheet); 2.5 is refused in a CSV file and in a Parquet column of
    # doubles alike, naming the column, where DuckDB's cast to an integer would round it.
    whole = _write(tmp_path / "whole.csv", ROUNDS + "T1,1,2.0,2026-01-01,ez-baccarat,9s,5h,K♥,A♣,,\n")
    refused, stored = _import(tmp_path / "whole.duckdb", [whole])
    assert refused is None and stored["rounds"][0][3] == 2
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    fractional = tmp_path / "rounds.parquet"
    pq.write_table(pa.table({
        "table": ["T1", "T1"], "shoe": ["1", "1"], "round": [1.0, 2.5], "day": [datetime.date(2026, 1, 1)] * 2,
        "rule_set": ["ez-baccarat"] * 2, "p1": ["9s", "13H"], "b1": ["5h", "2d"], "p2": ["K♥", "3c"],
        "b2": ["A♣", "4s"], "p3": [None, "5d"], "b3": [None, None]}), fractional)
    refused, fast = _import(tmp_path / "fast.duckdb", [fractional])
    _checked_only(monkeypatch)
    refused_slow, _ = _import(tmp_path / "slow.duckdb", [fractional])
    assert refused == refused_slow and len(refused) == 2 and "round" in refused[0] and "2.5" in refused[0]
    assert fast["rounds"] == []


def test_a_shoe_is_dealt_the_same_whichever_shoe_a_call_starts_at():
    rules = load_rules("live-8deck-side-bets")
    alone, among = deal_shoes(rules, 5, 10, 1), deal_shoes(rules, 5, 7, 6)
    assert alone.rounds[0] == among.rounds[3] and np.array_equal(alone.cards[0], among.cards[3])


def test_a_month_made_in_chunks_is_the_same_whatever_their_size(tmp_path):
    rules = [load_rules(name) for name in RULES]

    def month(chunk_rounds):
        chunks = list(month_chunks(rules, 3, 6, 120, 9, list(ANOMALIES), chunk_rounds=chunk_rounds))
        logs = {kind: {key: np.concatenate([getattr(c, kind)[key] for c in chunks]) for key in getattr(chunks[0], kind)}
                for kind in KINDS}
        return len(chunks), logs, sort_anomalies([a for c in chunks for a in c.anomalies])

    (few, small, anomalies), (many, whole, anomalies_whole) = month(100), month(10**6)
    assert many == 3 < few and anomalies == anomalies_whole and len(anomalies) == len(ANOMALIES)
    for kind in KINDS:
        assert small[kind].keys() == whole[kind].keys()
        for key in whole[kind]:
            assert np.array_equal(small[kind][key], whole[kind][key]), (kind, key)
    # Written a chunk at a time, the files are those of the month written whole.
    chunks = month_chunks(rules, 3, 6, 120, 9, list(ANOMALIES), chunk_rounds=100)
    write_log_chunks(tmp_path / "chunked", list(KINDS), ({kind: getattr(c, kind) for kind in KINDS} for c in chunks))
    write_logs(tmp_path / "whole", whole)
    for kind in KINDS:
        assert (tmp_path / "chunked" / f"{kind}.csv").read_bytes() == (tmp_path / "whole" / f"{kind}.csv").read_bytes()


@pytest.mark.parametrize("stake, taken", [("10", ["rounds", "bets"]), (" +1e1 ", ["rounds", "bets"]),
                                          ("\u00a010", ["rounds"]), ("1e1", ["rounds", "bets"])])
def test_csv_numbers_parsed_by_the_reader_read_as_their_text(tmp_path, monkeypatch, stake, taken):
    # The bulk path lets DuckDB's CSV reader parse a number; where only the checked path's trimming reads it (a
    # no-break space), the reader refuses it and the file takes the checked path: the same rows either way.
    rounds = _write(tmp_path / "rounds.csv", GOOD_ROUNDS)
    bets = _write(tmp_path / "bets.csv", BETS + f"T1,1, 2 ,+3,,banker,\"{stake}\",-10\nT1,1,3,1,,tie,5,4e1\n")
    bulk = _bulk_spy(monkeypatch)
    refused, fast = _import(tmp_path / "fast.duckdb", [rounds, bets])
    assert refused is None and bulk == taken
    _checked_only(monkeypatch)
    _, slow = _import(tmp_path / "slow.duckdb", [rounds, bets])
    assert fast == slow and fast["bets"][0][1:] == (3, None, "banker", 10.0, -10.0)


def test_an_anomaly_no_table_can_hold_is_bad_input(tmp_path, capsys):
    from baccarat_sim.cli.audit import main

    assert main(["simulate", "--rules", "ez-baccarat", "--tables", "1", "--days", "1", "--anomalies", "commission",
                 "--out", str(tmp_path / "logs")]) == 2
    assert capsys.readouterr().err.strip().endswith(
        "--anomalies: a short-paid commission needs a table whose rule set takes commission")
    assert not any((tmp_path / "logs").iterdir()) if (tmp_path / "logs").exists() else True


def test_a_second_month_added_to_a_database_takes_the_bulk_path(tmp_path, monkeypatch):
    rules = [load_rules(name) for name in RULES]
    paths = []
    for k, start in enumerate(("2026-01-01", "2026-02-01")):
        month = simulate_month(rules, 2, 2, 120, 30 + k, [], datetime.date.fromisoformat(start))
        for kind in ("rounds", "bets"):  # the second month's shoes are other shoes
            getattr(month, kind)["shoe"] = np.char.add(f"m{k + 1}-", getattr(month, kind)["shoe"].astype(str))
        write_logs(tmp_path / f"m{k}", {"rounds": month.rounds, "bets": month.bets, "results": month.results})
        paths += [tmp_path / f"m{k}" / f"{kind}.csv" for kind in KINDS]
    taken = _bulk_spy(monkeypatch)
    refused, fast = _import(tmp_path / "fast.duckdb", paths)
    assert refused is None and taken == ["rounds", "bets"] * 2
    _checked_only(monkeypatch)
    _, slow = _import(tmp_path / "slow.duckdb", paths)
    assert fast == slow
