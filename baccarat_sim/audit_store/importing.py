"""Importing a log file: every row checked first, then the whole file added once, or nothing.

A file is read by DuckDB itself (CSV or Parquet), every value as text, and checked column by column in SQL
against its published format (:mod:`~baccarat_sim.audit_store.formats`): a bad file is refused with one line per
bad row naming the file, the line (the row of a Parquet file), each column at fault and what it allows, and
nothing of it is imported. A good file is added in one transaction. The file's SHA-256 is recorded: importing the
same bytes again adds nothing; a round, bet or result already in the database (the same key from another file)
is not added twice.

Two paths, one outcome. A file is first offered to the bulk path (:mod:`~baccarat_sim.audit_store.bulk`), which
adds a good round or bet log in one streaming pass and gives up, rolling back, at the first thing it cannot add
whole; the checked path below then stages the file, spells out every bad row's problems or adds the rows not yet
stored. The bulk path never refuses a file itself, so every refusal reads the same.
"""

from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path

from .bulk import NeedsChecking, bulk_add
from .columns import CARD_MACRO, csv_types, ident, problem_sql, quote, typed_sql, value_sql
from .formats import FORMATS, FileFormat, kind_of

__all__ = ["MAX_ERROR_LINES", "BadFile", "ImportResult", "import_file"]

#: Most bad rows a refusal lists (then a line saying how many more there are).
MAX_ERROR_LINES = 200
#: The key of each kind's rows (file columns); a row whose key is already stored is not added again.
_KEYS = {"rounds": ("table", "shoe", "round"), "bets": ("table", "shoe", "round", "seat", "bet"),
         "results": ("table", "day", "shift")}


class BadFile(ValueError):
    """A file refused: ``lines`` says why, one line per bad row (or one line for the whole file)."""

    def __init__(self, lines: list[str]):
        super().__init__(lines[0] if lines else "bad file")
        self.lines = lines


@dataclasses.dataclass(frozen=True)
class ImportResult:
    """What an import did: the file, its kind, rows read and added, and whether its bytes were imported before."""

    file: str
    kind: str
    rows_read: int
    rows_added: int
    already: bool


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file's bytes, read in blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 22), b""):
            digest.update(block)
    return digest.hexdigest()


def _reader(path: Path) -> tuple[str, str]:
    """The DuckDB table function that reads the file, and what its rows are called in messages."""
    if path.suffix.lower() in (".parquet", ".pq"):
        return f"read_parquet({quote(str(path))})", "row"
    if path.suffix.lower() in (".csv", ".txt"):
        return f"read_csv({quote(str(path))}, all_varchar = true, header = true)", "line"
    raise BadFile([f"{path}: cannot tell the file's format from its name; give a .csv or a .parquet file"])


def _check_columns(path: Path, names: list[str], kind: str | None) -> FileFormat:
    guessed = kind_of(names)
    if kind is None:
        if guessed is None:
            raise BadFile([f"{path}: not a round log (a column p1), a bet log (a column bet) or table results (a "
                           f"column drop); its columns: {', '.join(names) or 'none'}"])
        kind = guessed
    file_format = FORMATS[kind]
    unknown = [name for name in names if name not in file_format.names]
    if unknown:
        raise BadFile([f"{path}: column {unknown[0]!r} is not a column of a {kind} file; its columns: "
                       f"{', '.join(file_format.names)}"])
    missing = [column.name for column in file_format.columns if column.required and column.name not in names]
    if missing:
        raise BadFile([f"{path}: column {missing[0]!r} missing; a {kind} file needs "
                       f"{', '.join(c.name for c in file_format.columns if c.required)}"])
    return file_format


def import_file(connection, path, rule_bets: dict[str, tuple[str, ...]], kind: str | None = None) -> ImportResult:
    """Check a file and import it into the audit database.

    Parameters
    ----------
    connection : duckdb.DuckDBPyConnection
        An audit database (:func:`~baccarat_sim.audit_store.database.open_database`).
    path : path
        A CSV or Parquet file of one of the kinds of :data:`~baccarat_sim.audit_store.formats.FORMATS`.
    rule_bets : dict of str to tuple of str, or callable
        The rule sets a round may name, with their bet ids (a bet log's bets must be bets of their round's); or a
        function that gives them for the rule-set names the rounds use (unknown names left out).
    kind : str or None
        The file's kind (None: told by its columns).

    Raises
    ------
    BadFile
        With one line per bad row (at most :data:`MAX_ERROR_LINES`, then how many more); nothing was imported.
    """
    path = Path(path)
    if not path.is_file():
        raise BadFile([f"{path}: no such file"])
    reader, row_word = _reader(path)
    try:
        source_types = dict(row[:2] for row in connection.execute(f"DESCRIBE SELECT * FROM {reader}").fetchall())
    except Exception as error:  # duckdb.Error, without importing duckdb here for the message's sake
        raise BadFile([f"{path}: cannot be read as {'Parquet' if row_word == 'row' else 'CSV'}: "
                       f"{str(error).splitlines()[0]}"]) from None
    file_format = _check_columns(path, list(source_types), kind)
    sha = file_sha256(path)
    before = connection.execute("SELECT rows_read FROM imports WHERE sha256 = ?", [sha]).fetchone()
    if before is not None:
        return ImportResult(str(path), file_format.kind, before[0], 0, True)
    bulk_reader, bulk_types = reader, source_types
    if row_word == "line":  # numbers parsed by the CSV reader (columns.csv_types), every other column text
        bulk_types = csv_types(file_format, list(source_types))
        types = ", ".join(f"{quote(name)}: {quote(kind)}" for name, kind in bulk_types.items())
        bulk_reader = f"read_csv({quote(str(path))}, header = true, types = {{{types}}})"
    connection.execute("BEGIN TRANSACTION")
    try:
        added = bulk_add(connection, bulk_reader, bulk_types, file_format, rule_bets)
        _record(connection, sha, path, file_format.kind, added, added)
        return ImportResult(str(path), file_format.kind, added, added, False)
    except NeedsChecking:
        connection.execute("ROLLBACK")
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    return _checked_import(connection, path, reader, row_word, source_types, file_format, rule_bets, sha)


def _record(connection, sha: str, path: Path, kind: str, rows_read: int, added: int) -> None:
    """Record the file imported, drop what the import staged, and commit."""
    connection.execute("INSERT INTO imports VALUES (?, ?, ?, ?, ?, now())", [sha, str(path), kind, rows_read, added])
    for name in ("staged_checked", "staged", "bet_ids", "bet_lists", "bulk_shoes"):
        kind_of_object = connection.execute(
            "SELECT table_type FROM information_schema.tables WHERE table_name = ?", [name]).fetchone()
        if kind_of_object is not None:
            connection.execute(f"DROP {'VIEW' if kind_of_object[0] == 'VIEW' else 'TABLE'} {name}")
    connection.execute("COMMIT")


def _checked_import(connection, path: Path, reader: str, row_word: str, source_types: dict, file_format: FileFormat,
                    rule_bets, sha: str) -> ImportResult:
    """Stage the whole file, spell out every bad row's problems (:class:`BadFile`), or add the rows not stored."""
    rows_read = connection.execute(f"SELECT count(*) FROM {reader}").fetchone()[0]
    # Every value through its text, as the messages show it.
    values = {c.name: value_sql(c, "VARCHAR" if c.name in source_types else None) for c in file_format.columns}
    typed = {c.name: typed_sql(c, values[c.name], "VARCHAR") for c in file_format.columns}
    first_line = 2 if row_word == "line" else 1
    checks = [problem_sql(c, values[c.name], typed[c.name]) for c in file_format.columns]
    staged = (f"SELECT row_number() OVER () - 1 + {first_line} AS line_no, "
              + ", ".join(f"{typed[name]} AS {ident(name)}" for name in file_format.names)
              + f", concat_ws('; ', {', '.join(checks)}) AS problem FROM {reader}")
    connection.execute("BEGIN TRANSACTION")
    try:
        connection.execute(CARD_MACRO)
        connection.execute(f"CREATE OR REPLACE TEMP TABLE staged AS {staged}")
        if callable(rule_bets):
            source = "staged" if file_format.kind == "rounds" else "rounds"
            names = [row[0] for row in connection.execute(
                f"SELECT DISTINCT rule_set FROM {source} WHERE rule_set IS NOT NULL").fetchall()] \
                if file_format.kind != "results" else []
            rule_bets = rule_bets(names)
        extra = _cross_row_problems(connection, file_format.kind, rule_bets, row_word)
        bad = connection.execute(
            f"SELECT line_no, concat_ws('; ', nullif(problem, ''), {extra}) AS why FROM staged_checked "
            "WHERE why <> '' ORDER BY line_no").fetchall()
        if bad:
            lines = [f"{path}:{row_word} {line}: {why}" for line, why in bad[:MAX_ERROR_LINES]]
            more = f"... and {len(bad) - MAX_ERROR_LINES:,} more" if len(bad) > MAX_ERROR_LINES else f"{len(bad):,}"
            raise BadFile(lines + [f"{path}: {more} bad rows; nothing was imported"])
        added = _add(connection, file_format.kind)
        _record(connection, sha, path, file_format.kind, rows_read, added)
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    return ImportResult(str(path), file_format.kind, rows_read, added, False)


def _cross_row_problems(connection, kind: str, rule_bets: dict, row_word: str) -> str:
    """Create ``staged_checked`` (the staged rows with what spans rows or the database) and return its problem SQL.

    A round log: a rule set this audit does not know, a round repeated in the file, a round stored with other
    cards. A bet log: a round not imported, a bet that is not a bet of its round's rule set, a bet repeated.
    Table results: a table and day (and shift) repeated in the file.
    """
    known = ", ".join(quote(r) for r in rule_bets) or "NULL"
    listed = ", ".join(rule_bets) or "none"
    if kind == "rounds":
        connection.execute(
            "CREATE OR REPLACE TEMP VIEW staged_checked AS SELECT s.*, "
            f"CASE WHEN s.rule_set IS NOT NULL AND s.rule_set NOT IN ({known}) THEN 'column rule_set: got ' || "
            f"s.rule_set || {quote('; allowed: a rule set given with --rules or shipped: ' + listed)} END AS unknown,"
            f" {_repeated('columns table, shoe, round: the round is repeated', row_word)} AS repeated, "
            "CASE WHEN r.rid IS NOT NULL AND (r.p1, r.b1, r.p2, r.b2, coalesce(r.p3, -1), coalesce(r.b3, -1)) <> "
            "(s.p1, s.b1, s.p2, s.b2, coalesce(s.p3, -1), coalesce(s.b3, -1)) THEN 'columns p1-b3: the round is "
            "already stored with other cards' END AS conflict "
            "FROM staged s LEFT JOIN rounds r ON r.table_id = s.\"table\" AND r.shoe = s.shoe AND r.round = s.round "
            f"{_repeats_join(('table', 'shoe', 'round'))}")
        return "unknown, repeated, conflict"
    if kind == "bets":
        pairs = ", ".join(f"({quote(r)}, {quote(b)})" for r, bets in rule_bets.items() for b in bets) or \
            "(NULL, NULL)"
        lists = ", ".join(f"({quote(r)}, {quote(', '.join(bets))})" for r, bets in rule_bets.items()) or \
            "(NULL, NULL)"
        connection.execute(f"CREATE OR REPLACE TEMP TABLE bet_ids AS SELECT * FROM (VALUES {pairs}) v(rule_set, bet)")
        connection.execute(f"CREATE OR REPLACE TEMP TABLE bet_lists AS SELECT * FROM (VALUES {lists}) v(rule_set, ids)")
        connection.execute(
            "CREATE OR REPLACE TEMP TABLE staged_checked AS SELECT s.*, r.rid, "
            "CASE WHEN s.round IS NOT NULL AND r.rid IS NULL THEN 'columns table, shoe, round: no such round "
            "imported (import the round log first)' END AS orphan, "
            "CASE WHEN r.rid IS NOT NULL AND s.bet IS NOT NULL AND b.bet IS NULL THEN 'column bet: got ' || s.bet || "
            "'; allowed: a bet of rule set ' || r.rule_set || ' (' || coalesce(l.ids, '') || ')' END AS foreign_bet, "
            f"{_repeated('columns seat, bet: the bet is repeated', row_word)} AS repeated "
            "FROM staged s LEFT JOIN rounds r ON r.table_id = s.\"table\" AND r.shoe = s.shoe AND r.round = s.round "
            "LEFT JOIN bet_ids b ON b.rule_set = r.rule_set AND b.bet = s.bet "
            "LEFT JOIN bet_lists l ON l.rule_set = r.rule_set "
            f"{_repeats_join(('table', 'shoe', 'round', 'seat', 'bet'))}")
        return "orphan, foreign_bet, repeated"
    connection.execute(
        "CREATE OR REPLACE TEMP VIEW staged_checked AS SELECT s.*, "
        f"{_repeated('columns table, day, shift: repeated', row_word)} AS repeated FROM staged s "
        f"{_repeats_join(('table', 'day', 'shift'))}")
    return "repeated"


def _repeated(what: str, row_word: str) -> str:
    """SQL: the problem of a row whose key an earlier row of the file has (``d``: :func:`_repeats_join`)."""
    return (f"CASE WHEN d.first_line IS NOT NULL AND s.line_no <> d.first_line THEN {quote(what + ' (first at ')} "
            f"|| {quote(row_word + ' ')} || d.first_line || ')' END")


def _repeats_join(keys) -> str:
    """SQL: the keys found more than once in the file, with their first line, joined as ``d`` (a hash join)."""
    columns = ", ".join(ident(k) for k in keys)
    match = " AND ".join(f"s.{ident(k)} IS NOT DISTINCT FROM d.{ident(k)}" for k in keys)
    return (f"LEFT JOIN (SELECT {columns}, min(line_no) AS first_line FROM staged GROUP BY {columns} "
            f"HAVING count(*) > 1) d ON {match}")


def _add(connection, kind: str) -> int:
    """Insert the checked rows not already stored; returns how many were added."""
    if kind == "rounds":
        start = connection.execute("SELECT coalesce(max(rid), 0) FROM rounds").fetchone()[0]
        return connection.execute(
            f"INSERT INTO rounds SELECT {start} + row_number() OVER (ORDER BY s.line_no), s.\"table\", s.shoe, "
            "s.round, s.day, s.rule_set, s.p1, s.b1, s.p2, s.b2, s.p3, s.b3, s.turned, s.burned, s.cut FROM staged s "
            "WHERE NOT EXISTS (SELECT 1 FROM rounds r WHERE r.table_id = s.\"table\" AND r.shoe = s.shoe "
            "AND r.round = s.round)").fetchone()[0]
    if kind == "bets":
        stored = connection.execute("SELECT count(*) FROM (SELECT 1 FROM bets LIMIT 1)").fetchone()[0]
        new = ("WHERE NOT EXISTS (SELECT 1 FROM bets b WHERE b.rid = c.rid AND b.seat = c.seat AND b.bet = c.bet) "
               if stored else "")
        return connection.execute(
            f"INSERT INTO bets SELECT c.rid, c.seat, c.player, c.bet, c.stake, c.net FROM staged_checked c {new}"
            "ORDER BY c.line_no").fetchone()[0]
    return connection.execute(
        "INSERT INTO results SELECT s.\"table\", s.day, coalesce(s.shift, ''), s.\"drop\", s.win, s.handle FROM "
        "staged s WHERE NOT EXISTS (SELECT 1 FROM results r WHERE r.table_id = s.\"table\" AND r.day = s.day AND "
        "r.shift = coalesce(s.shift, '')) ORDER BY s.line_no").fetchone()[0]
