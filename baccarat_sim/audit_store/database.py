"""The audit's database: one DuckDB file, its tables, and opening it.

=============  ==========================================================================================
table          holds
=============  ==========================================================================================
``imports``    every file imported: its SHA-256 (a second import of the same bytes adds nothing), name,
               kind, rows read and rows added
``rule_sets``  the rule files given with ``--rules`` (their text and hash), by rule-set id
``rounds``     one row per round: ``rid`` (the database's round number), ``table_id``, ``shoe``,
               ``round``, ``day``, ``rule_set``, the cards ``p1 b1 p2 b2 p3 b3`` (card ids
               ``rank * 4 + suit``, rank 0 the Ace, suits s h d c; NULL where a hand stood), and the
               shoe's ``turned`` card, ``burned`` cards and ``cut`` position where logged
``bets``       one row per bet: ``rid`` (its round), ``seat``, ``player``, ``bet``, ``stake``, ``net``
``results``    one row per table and gaming day or shift: ``table_id``, ``day``, ``shift``,
               ``drop_amount``, ``win``, ``handle``
=============  ==========================================================================================

The columns keep the files' names except ``table`` (``table_id``) and ``drop`` (``drop_amount``), which are SQL
words. Query it with any DuckDB client: ``duckdb audit.duckdb "select day, sum(win) from results group by day"``.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["SCHEMA", "SCHEMA_VERSION", "open_database"]

SCHEMA_VERSION = 1
#: The tables, as DuckDB creates them.
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key VARCHAR, value VARCHAR);
CREATE TABLE IF NOT EXISTS imports (sha256 VARCHAR, file VARCHAR, kind VARCHAR, rows_read BIGINT,
                                    rows_added BIGINT, imported_at TIMESTAMP);
CREATE TABLE IF NOT EXISTS rule_sets (id VARCHAR, path VARCHAR, sha256 VARCHAR, toml VARCHAR);
CREATE TABLE IF NOT EXISTS rounds (rid BIGINT, table_id VARCHAR, shoe VARCHAR, round INTEGER, day DATE,
                                   rule_set VARCHAR, p1 TINYINT, b1 TINYINT, p2 TINYINT, b2 TINYINT, p3 TINYINT,
                                   b3 TINYINT, turned TINYINT, burned SMALLINT, cut SMALLINT);
CREATE TABLE IF NOT EXISTS bets (rid BIGINT, seat SMALLINT, player VARCHAR, bet VARCHAR, stake DOUBLE, net DOUBLE);
CREATE TABLE IF NOT EXISTS results (table_id VARCHAR, day DATE, shift VARCHAR, drop_amount DOUBLE, win DOUBLE,
                                    handle DOUBLE);
"""
#: DuckDB's memory limit for the audit (it spills to a temporary folder beside the database past it).
MEMORY_LIMIT = "1200MB"


class DatabaseRefused(ValueError):
    """A file that is not an audit database of this version (one line: what and why)."""


def open_database(path, *, create: bool = True, threads: int | None = None, read_only: bool = False):
    """Open (or create) the audit database at ``path``; returns a DuckDB connection (``read_only``: for queries).

    Raises
    ------
    DatabaseRefused
        ``path`` is missing (``create=False``), not a DuckDB file, or an audit database of another version.
    """
    import duckdb

    path = Path(path)
    if not create and not path.is_file():
        raise DatabaseRefused(f"{path}: no such database; import logs into it first (audit import --db {path})")
    try:
        connection = duckdb.connect(str(path), read_only=read_only)
    except duckdb.Error as error:
        raise DatabaseRefused(f"{path}: not a DuckDB database ({str(error).splitlines()[0]})") from None
    connection.execute(f"SET memory_limit = '{MEMORY_LIMIT}'")
    connection.execute("SET preserve_insertion_order = true")
    if threads:
        connection.execute(f"SET threads = {int(threads)}")
    tables = {row[0] for row in connection.execute("SELECT table_name FROM information_schema.tables").fetchall()}
    if tables and "meta" not in tables:
        connection.close()
        raise DatabaseRefused(f"{path}: a DuckDB database, but not an audit database (no meta table)")
    if read_only:
        if "meta" not in tables:
            connection.close()
            raise DatabaseRefused(f"{path}: a DuckDB database, but not an audit database (no meta table)")
        return connection
    connection.execute(SCHEMA)
    version = connection.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    if version is None:
        connection.execute("INSERT INTO meta VALUES ('schema_version', ?)", [str(SCHEMA_VERSION)])
    elif version[0] != str(SCHEMA_VERSION):
        connection.close()
        raise DatabaseRefused(f"{path}: an audit database of schema version {version[0]}; this version reads "
                              f"{SCHEMA_VERSION}")
    return connection
