"""The bulk path of an import: a good file added in one streaming pass of SQL, inside the caller's transaction.

The checked path (:mod:`~baccarat_sim.audit_store.importing`) stages a whole file, spells out every row's
problems and joins the staged rows with the database several times: it is what a bad file needs, and it is what
made a year of logs (10^7 rounds, 3.4 x 10^7 bets) take minutes and spill to disk. A good file needs none of it.
The bulk path reads the file once (DuckDB's own CSV and Parquet readers, in parallel), types every value by the
same column rules (:mod:`~baccarat_sim.audit_store.columns`) and inserts it in the same statement; each row's
checks are one yes or no, and the first no stops the statement. What spans rows is checked after the insert, on
the rows just added: a round's key repeated (in the file or against the database), a rule set nobody knows, a
bet repeated in a round.

Whenever the bulk path cannot add the file exactly as the checked path would (a bad row, a row already stored,
a bet on a round older than the stored bets), it raises :class:`NeedsChecking`; the caller rolls back and takes
the checked path, which refuses the file row by row or adds what it would have added. The bulk path therefore
never decides what a file's problems are: it only adds files the checked path would add whole, the same rows
with the same round numbers.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

from .columns import CARD_MACRO, allowed_sql, ident, quote, typed_sql, value_sql
from .formats import FileFormat

__all__ = ["NeedsChecking", "bulk_add"]

#: Rows per Arrow batch when the added bets are read back to look for a repeated bet.
BATCH_ROWS = 1 << 20
#: Bits of a bet key (round, seat, bet) given to the seat: seats are < 32768.
_SEAT_BITS = 15


class NeedsChecking(Exception):
    """The file cannot be added by the bulk path as it is; the checked path must take it."""


def bulk_add(connection, reader: str, source_types: dict[str, str], file_format: FileFormat, rule_bets,
             text_file: bool = False) -> int:
    """Add every row of a file in one pass (the caller holds a transaction); returns the rows added.

    Parameters
    ----------
    connection : duckdb.DuckDBPyConnection
    reader : str
        The DuckDB table function that reads the file.
    source_types : dict of str to str
        The file's columns and their DuckDB types.
    file_format : FileFormat
        The file's kind (rounds or bets; table results are small and always checked).
    rule_bets : dict of str to tuple of str, or callable
        As :func:`~baccarat_sim.audit_store.importing.import_file` takes it.
    text_file : bool
        The file is text (CSV): a bet log is parsed and checked in parallel into a temporary Parquet file first,
        as the statement that looks up the bets' rounds runs on one thread.

    Raises
    ------
    NeedsChecking
        A bad row, a row already stored, a key repeated, or anything else the checked path must judge; the
        caller rolls back.
    """
    import duckdb

    if file_format.kind not in ("rounds", "bets"):
        raise NeedsChecking(file_format.kind)
    connection.execute(CARD_MACRO)
    try:
        if file_format.kind == "rounds":
            return _add_rounds(connection, reader, source_types, file_format, rule_bets)
        if not text_file:
            return _add_bets(connection, reader, source_types, file_format, rule_bets)
        with tempfile.TemporaryDirectory(prefix="baccarat-audit-") as folder:
            staged = str(Path(folder) / "bets.parquet")
            checked = f"CASE WHEN ok THEN \"table\" ELSE {_stop('a bad row')} END AS \"table\""
            names = ", ".join(ident(name) for name in file_format.names if name != "table")
            rows = _typed_rows(reader, source_types, file_format, numbered=False)
            connection.execute(f"COPY (SELECT {checked}, {names} FROM ({rows})) TO {quote(staged)} "
                               "(FORMAT parquet, COMPRESSION snappy)")
            reader = f"read_parquet({quote(staged)})"
            source_types = dict(row[:2] for row in connection.execute(f"DESCRIBE SELECT * FROM {reader}").fetchall())
            return _add_bets(connection, reader, source_types, file_format, rule_bets)
    except duckdb.Error as error:  # a row's check said no (error()), or the file does not read
        raise NeedsChecking(str(error).splitlines()[0]) from None


def _typed_rows(reader: str, source_types: dict[str, str], file_format: FileFormat, numbered: bool = True) -> str:
    """SQL: the file's rows typed, in the file's order, with ``ok`` true where every column's value is allowed.

    In three steps (text, typed, checked) so that no value is computed twice; numbered by ``row_number()``, which
    also keeps the file's order through a join (without it, a parallel hash join may swap blocks of rows).
    """
    columns = file_format.columns
    text = ", ".join(f"{value_sql(c, source_types.get(c.name))} AS {ident('v_' + c.name)}" for c in columns)
    typed = ", ".join(f"{typed_sql(c, ident('v_' + c.name), source_types.get(c.name))} AS {ident(c.name)}"
                      for c in columns)
    ok = " AND ".join(allowed_sql(c, ident("v_" + c.name), ident(c.name)) for c in columns)
    line_no = "row_number() OVER () AS line_no, " if numbered else ""
    return f"SELECT {line_no}*, {ok} AS ok FROM (SELECT *, {typed} FROM (SELECT {text} FROM {reader}))"


def _stop(what: str) -> str:
    return f"error({quote('bulk import stopped: ' + what)})"


def _add_rounds(connection, reader, source_types, file_format, rule_bets) -> int:
    start = connection.execute("SELECT coalesce(max(rid), 0) FROM rounds").fetchone()[0]
    # The check sits in the round number's expression: a column inserted is never pruned, and a filter could be.
    added = connection.execute(
        f"INSERT INTO rounds SELECT CASE WHEN ok THEN {start} + line_no ELSE {_stop('a bad row')} END, "
        "\"table\", shoe, round, day, rule_set, p1, b1, p2, b2, p3, b3, turned, burned, cut "
        f"FROM ({_typed_rows(reader, source_types, file_format)})").fetchone()[0]
    names = [row[0] for row in connection.execute(
        f"SELECT DISTINCT rule_set FROM rounds WHERE rid > {start}").fetchall()]
    known = rule_bets(names) if callable(rule_bets) else rule_bets
    if any(name not in known for name in names):
        raise NeedsChecking("a rule set nobody knows")
    # The stored rounds' keys are unique (every import keeps them so): a key seen twice is a round repeated in the
    # file or one already stored. A shoe whose rounds are numbered as the database numbers them (round = rid - c,
    # as many rounds as its first to its last) cannot repeat one, as no two rounds share a rid: only the rounds
    # of other shoes are grouped.
    if connection.execute(
            "WITH odd AS (SELECT table_id, shoe FROM rounds GROUP BY table_id, shoe HAVING NOT (count(*) = "
            "max(round) - min(round) + 1 AND min(rid - round) = max(rid - round))) "
            "SELECT 1 FROM rounds r SEMI JOIN odd o ON o.table_id = r.table_id AND o.shoe = r.shoe "
            "GROUP BY r.table_id, r.shoe, r.round HAVING count(*) > 1 LIMIT 1").fetchone():
        raise NeedsChecking("a round repeated or already stored")
    return added


def _add_bets(connection, reader, source_types, file_format, rule_bets) -> int:
    names = [row[0] for row in connection.execute(
        "SELECT DISTINCT rule_set FROM rounds WHERE rule_set IS NOT NULL").fetchall()]
    known = rule_bets(names) if callable(rule_bets) else rule_bets
    rule_sets = [name for name in names if name in known and known[name]]
    bet_ids = sorted({bet for name in rule_sets for bet in known[name]})
    if not rule_sets:
        raise NeedsChecking("no rule set with bets")
    # Every stored bet is on a round up to ``newest``: bets on later rounds cannot be stored already.
    newest = connection.execute("SELECT coalesce(max(rid), 0) FROM bets").fetchone()[0]
    rule_code = "CASE rule_set " + " ".join(f"WHEN {quote(name)} THEN {k}" for k, name in enumerate(rule_sets)) + " END"
    bet_allowed = " ".join(f"WHEN {k} THEN s.bet IN ({', '.join(quote(b) for b in known[name])})"
                           for k, name in enumerate(rule_sets))
    # A bet's round from its shoe: a shoe whose rounds are numbered without a gap, with round numbers that
    # follow the database's (the rule for a shoe imported from a log in order), gives round r the number
    # base + r; the rounds of any other shoe are looked up one by one. Both lookups are small beside the bets.
    connection.execute(
        "CREATE OR REPLACE TEMP TABLE bulk_shoes AS SELECT table_id, shoe, min(round) AS lo, max(round) AS hi, "
        f"min(rid - round) AS base, min({rule_code}) AS rule_code, count(*) = max(round) - min(round) + 1 AND "
        f"min(rid - round) = max(rid - round) AND min({rule_code}) = max({rule_code}) AS regular "
        "FROM rounds GROUP BY table_id, shoe")
    connection.execute(
        f"CREATE OR REPLACE TEMP TABLE bulk_rounds AS SELECT r.table_id, r.shoe, r.round, r.rid, {rule_code} AS "
        "rule_code FROM rounds r SEMI JOIN (SELECT * FROM bulk_shoes WHERE NOT regular) h "
        "ON h.table_id = r.table_id AND h.shoe = r.shoe")
    threads = connection.execute("SELECT current_setting('threads')").fetchone()[0]
    # One thread: a parallel hash join gives its rows in an order that varies, and the bets are stored in the
    # file's order (the analyses read them in that order, and their permutation tests depend on it).
    connection.execute("SET threads = 1")
    try:
        added = connection.execute(
            f"INSERT INTO bets SELECT CASE WHEN s.ok AND s.rid > {newest} AND coalesce(CASE s.rule_code "
            f"{bet_allowed} END, false) THEN s.rid ELSE {_stop('a bad row, a round not imported or a bet stored')} "
            f"END, s.seat, s.player, s.bet, s.stake, s.net FROM (SELECT s.*, CASE WHEN h.regular THEN (CASE WHEN "
            "s.round BETWEEN h.lo AND h.hi THEN h.base + s.round END) ELSE o.rid END AS rid, CASE WHEN h.regular "
            f"THEN h.rule_code ELSE o.rule_code END AS rule_code FROM ({_typed_rows(reader, source_types, file_format)}"
            ") s LEFT JOIN bulk_shoes h ON h.table_id = s.\"table\" AND h.shoe = s.shoe LEFT JOIN bulk_rounds o ON "
            "o.table_id = s.\"table\" AND o.shoe = s.shoe AND o.round = s.round) s").fetchone()[0]
    finally:
        connection.execute(f"SET threads = {int(threads)}")
    if _bet_repeated(connection, newest, bet_ids):
        raise NeedsChecking("a bet repeated")
    return added


def _bet_repeated(connection, newest: int, bet_ids: list[str]) -> bool:
    """Whether a (round, seat, bet) repeats among the bets added (those on rounds after ``newest``).

    Read back in the order they were added, as one integer key each: a file in round order (a round's bets
    together, in any order) is checked batch by batch in numpy; one that is not is checked by a GROUP BY.
    """
    bet_bits = max(1, (len(bet_ids) - 1).bit_length())
    code = "CASE bet " + " ".join(f"WHEN {quote(b)} THEN {k}" for k, b in enumerate(bet_ids)) + " END"
    batches = connection.sql(f"SELECT rid, seat, {code} AS code FROM bets WHERE rid > {newest}").to_arrow_reader(
        BATCH_ROWS)
    try:
        in_order = _keys_unique(batches, bet_bits)
    finally:
        batches.close()  # the connection answers no other query while a result is open
    if in_order is not None:
        return not in_order
    return bool(connection.execute(
        f"SELECT 1 FROM bets WHERE rid > {newest} GROUP BY rid, seat, bet HAVING count(*) > 1 LIMIT 1").fetchone())


def _keys_unique(batches, bet_bits: int) -> bool | None:
    """Whether the (round, seat, bet) keys of ``batches`` are unique; None where the rounds are not in order."""
    last_round, carried = -1, np.zeros(0, np.int64)
    for batch in batches:
        rid = batch.column(0).to_numpy().astype(np.int64)
        if len(rid) == 0:
            continue
        if rid[0] < last_round or np.any(rid[1:] < rid[:-1]):
            return None
        keys = ((rid << (_SEAT_BITS + bet_bits)) | (batch.column(1).to_numpy().astype(np.int64) << bet_bits)
                | batch.column(2).to_numpy().astype(np.int64))
        if len(carried) and rid[0] == last_round:  # a round's bets across two batches
            keys = np.concatenate([carried, keys])
        if np.any(keys[1:] <= keys[:-1]) and np.any(np.diff(np.sort(keys)) == 0):
            return False
        last_round = int(rid[-1])
        carried = keys[(keys >> (_SEAT_BITS + bet_bits)) == last_round]
    return True
