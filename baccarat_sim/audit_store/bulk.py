"""The bulk path of an import: a good file added in one streaming pass of SQL, inside the caller's transaction.

The checked path (:mod:`~baccarat_sim.audit_store.importing`) stages a whole file, spells out every row's
problems and joins the staged rows with the database several times: it is what a bad file needs, and it is what
made a year of logs (10^7 rounds, 3.4 x 10^7 bets) take minutes and spill to disk. A good file needs none of it.
The bulk path reads the file once (DuckDB's own CSV and Parquet readers, in parallel), types every value by the
same column rules (:mod:`~baccarat_sim.audit_store.columns`) and adds it as it reads; each row's checks are one
yes or no, and the first no stops. A round log is inserted by one statement, which numbers the rounds as it
reads them; what spans rows is checked after it, on the rows just added (a round's key repeated, in the file or
against the database; a rule set nobody knows). A bet log's rounds are looked up batch by batch
(:mod:`~baccarat_sim.audit_store.bulk_bets`), which also finds a bet repeated in a round.

Whenever the bulk path cannot add the file exactly as the checked path would (a bad row, a row already stored,
a bet on a round older than the stored bets), it raises :class:`NeedsChecking`; the caller rolls back and takes
the checked path, which refuses the file row by row or adds what it would have added. The bulk path therefore
never decides what a file's problems are: it only adds files the checked path would add whole, the same rows
with the same round numbers.
"""

from __future__ import annotations

from .bulk_bets import append_bets
from .columns import CARD_MACRO, allowed_sql, ident, quote, typed_sql, value_sql
from .formats import FileFormat

__all__ = ["NeedsChecking", "bulk_add"]



class NeedsChecking(Exception):
    """The file cannot be added by the bulk path as it is; the checked path must take it."""


def bulk_add(connection, reader: str, source_types: dict[str, str], file_format: FileFormat, rule_bets) -> int:
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
    if not rule_sets:
        raise NeedsChecking("no rule set with bets")
    # Every stored bet is on a round up to ``newest``: bets on later rounds cannot be stored already.
    newest = connection.execute("SELECT coalesce(max(rid), 0) FROM bets").fetchone()[0]
    added = append_bets(connection, _typed_rows(reader, source_types, file_format, numbered=False), rule_sets,
                        {name: set(known[name]) for name in rule_sets}, newest)
    if added is None:
        raise NeedsChecking("a bad row, a round not stored, a bet of another rule set, a bet stored or repeated")
    return added
