"""SQL that reads a log file's column as its published type, and says whether (and why not) a value is allowed.

One copy of each column type's rule (:data:`~baccarat_sim.audit_store.formats.ALLOWED`) for both ways a file is
imported: the checked path of :mod:`~baccarat_sim.audit_store.importing` (every row's problems spelled out) and
the bulk path of :mod:`~baccarat_sim.audit_store.bulk` (one yes or no per row, no text built). A value is the
column as trimmed text, NULL when empty or absent, and typed from that text; a Parquet column already of the
column's type (a date column of dates, an integer column of integers, an amount column of doubles) is read as it
is, which is the same value the text would give without the round trip through text. An integer column holds
whole numbers only: ``2.0`` is 2, ``2.5`` is refused (DuckDB's cast would round it to 3).
"""

from __future__ import annotations

from ..model.cards import N_SUITS
from .cards import SPELLINGS
from .formats import Column, FileFormat

__all__ = ["CARD_MACRO", "allowed_sql", "csv_types", "ident", "problem_sql", "quote", "typed_sql", "value_sql"]

#: Parquet types read as they are, by column type (a round trip through text gives the same value for these).
_NATIVE = {
    "integer": {"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT", "USMALLINT", "UINTEGER", "DOUBLE", "FLOAT"},
    "date": {"DATE"},
    "amount": {"DOUBLE", "TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT", "USMALLINT", "UINTEGER"},
}
_NATIVE["amount>0"] = _NATIVE["amount>=0"] = _NATIVE["amount"]
#: Types of numbers with fractions: an integer column read from one holds the whole ones only.
_FRACTIONAL = {"DOUBLE", "FLOAT"}
_NATIVE_AS = {"integer": "BIGINT", "date": "DATE", "amount": "DOUBLE", "amount>0": "DOUBLE", "amount>=0": "DOUBLE"}
#: A DuckDB macro ``card_of(v)``: the card id of an upper-cased spelling, NULL where it is none of
#: :data:`~baccarat_sim.audit_store.cards.SPELLINGS` (one map lookup, not a parse).
CARD_MACRO = ("CREATE OR REPLACE TEMP MACRO card_of(v) AS MAP {"
              + ", ".join(f"'{text}': {card}" for text, card in SPELLINGS.items()) + "}[v]")
assert max(SPELLINGS.values()) < 13 * N_SUITS


def csv_types(file_format: FileFormat, names: list[str]) -> dict[str, str]:
    """The DuckDB type each column of a CSV file is parsed as by the bulk path.

    Integers (as doubles, of which :func:`typed_sql` keeps the whole ones) and amounts are parsed by DuckDB's CSV
    reader itself, which converts a field as ``CAST`` does: the value the text path gives (``TRY_CAST`` of the
    trimmed text) wherever that is one, and an error where it is not (or where only the text path's wider trimming,
    of non-ASCII spaces, would read it): the error sends the file to the checked path, which says what is wrong.
    Every other column is text (a shoe ``01`` stays ``01``; a date is read by the column's own rule, not by a
    format the reader guesses).
    """
    parsed = {"integer": "DOUBLE", "amount": "DOUBLE", "amount>0": "DOUBLE", "amount>=0": "DOUBLE"}
    return {name: parsed.get(file_format.column(name).type, "VARCHAR") for name in names}


def quote(text: str) -> str:
    """``text`` as an SQL string literal."""
    return "'" + str(text).replace("'", "''") + "'"


def ident(name: str) -> str:
    """``name`` as an SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def _native(column: Column, source_type: str | None) -> bool:
    return source_type is not None and source_type in _NATIVE.get(column.type, ())


def value_sql(column: Column, source_type: str | None) -> str:
    """The column's value: trimmed text, NULL when empty; ``source_type`` None where the file lacks the column.

    A column read natively (:data:`_NATIVE`) is its own value.
    """
    if source_type is None:
        return "CAST(NULL AS VARCHAR)"
    if _native(column, source_type):
        return ident(column.name)
    return f"NULLIF(trim(CAST({ident(column.name)} AS VARCHAR)), '')"


def typed_sql(column: Column, value: str, source_type: str | None) -> str:
    """The SQL that turns a value into its stored type (NULL where the text is not of the type)."""
    if _native(column, source_type):
        if column.type == "integer" and source_type in _FRACTIONAL:
            return f"CASE WHEN {value} = trunc({value}) THEN TRY_CAST({value} AS BIGINT) END"
        return f"CAST({value} AS {_NATIVE_AS[column.type]})"
    return {
        "text": value,
        # A cast to BIGINT rounds "2.5" to 3: only text whose number is whole is an integer.
        "integer": (f"CASE WHEN TRY_CAST({value} AS DOUBLE) = TRY_CAST({value} AS BIGINT) "
                    f"THEN TRY_CAST({value} AS BIGINT) END"),
        "date": f"TRY_CAST({value} AS DATE)",
        "card": f"card_of(upper({value}))",
        "amount": f"TRY_CAST({value} AS DOUBLE)",
        "amount>0": f"TRY_CAST({value} AS DOUBLE)",
        "amount>=0": f"TRY_CAST({value} AS DOUBLE)",
    }[column.type]


def _valid(column: Column, typed: str) -> str:
    """SQL that is true where a present value is allowed (NULL counts as not)."""
    return {
        "text": "true",  # length is checked beside it
        "integer": f"{typed} >= {column.low} AND {typed} < 32768",
        "date": f"{typed} IS NOT NULL",
        "card": f"{typed} IS NOT NULL",
        "amount": f"isfinite({typed})",
        "amount>0": f"isfinite({typed}) AND {typed} > 0",
        "amount>=0": f"isfinite({typed}) AND {typed} >= 0",
    }[column.type]


def allowed_sql(column: Column, value: str, typed: str) -> str:
    """SQL that is true where the row's value of the column is allowed (the bulk path's check)."""
    present = f"coalesce({_valid(column, typed)}, false)"
    if column.type == "text":
        present = f"length({value}) <= 64"
    return f"({value} IS NOT NULL AND {present})" if column.required else f"({value} IS NULL OR {present})"


def problem_sql(column: Column, value: str, typed: str) -> str:
    """SQL giving the column's problem in a row as text (NULL where there is none): the checked path's words."""
    allowed = quote(f"column {column.name}: ")
    missing = (f"WHEN {value} IS NULL THEN {allowed} || 'missing; allowed: ' || {quote(column.allowed)} "
               if column.required else f"WHEN {value} IS NULL THEN NULL ")
    long = f"WHEN length({value}) > 64 THEN {allowed} || 'longer than 64 characters' " if column.type == "text" else ""
    return (f"CASE {missing}{long}WHEN NOT coalesce({_valid(column, typed)}, false) THEN {allowed} || 'got ' || "
            f"{value} || '; allowed: ' || {quote(column.allowed)} END")
