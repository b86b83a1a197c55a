"""The published formats of the audit's input files: one definition, read by the import, the docs and the schema.

Three kinds of file, each a CSV file (a header line, comma-separated, UTF-8) or a Parquet file with these
columns (any column type that reads as the text described):

* a **round log**, one row per round dealt;
* a **bet log**, one row per bet a seat placed in a round (the rounds must be imported first);
* **table results**, one row per table and gaming day (or shift): drop, win and, where known, handle.

The kind is told by the columns (``p1`` a round log, ``bet`` a bet log, ``drop`` table results).
:func:`column_table` writes the columns as the docs show them; :func:`json_schema` as a JSON Schema of one row.
"""

from __future__ import annotations

import dataclasses

from .cards import ALLOWED as CARD

__all__ = ["FORMATS", "Column", "FileFormat", "column_table", "json_schema", "kind_of"]

#: What each type of column allows, as the import's messages say it.
ALLOWED = {
    "text": "text of 1-64 characters",
    "integer": "a whole number >= {low}",
    "date": "a date YYYY-MM-DD",
    "card": CARD,
    "amount": "a number (a decimal point, no currency sign)",
    "amount>0": "a number > 0",
    "amount>=0": "a number >= 0",
}


@dataclasses.dataclass(frozen=True)
class Column:
    """One column of a file kind: its name, type, whether every row needs it, and what it means."""

    name: str
    type: str
    required: bool
    meaning: str
    low: int = 0

    @property
    def allowed(self) -> str:
        """What the column allows, in words (the import's messages)."""
        return ALLOWED[self.type].format(low=self.low) + ("" if self.required else ", or empty")


@dataclasses.dataclass(frozen=True)
class FileFormat:
    """A file kind: its name, what a row is, and its columns."""

    kind: str
    row: str
    columns: tuple[Column, ...]

    @property
    def names(self) -> tuple[str, ...]:
        """The column names, in order."""
        return tuple(column.name for column in self.columns)

    def column(self, name: str) -> Column:
        """The column called ``name``."""
        return next(column for column in self.columns if column.name == name)


_KEY = (
    Column("table", "text", True, "the table's id, e.g. BAC-01"),
    Column("shoe", "text", True, "the shoe's id, unique at its table (a number or a label)"),
    Column("round", "integer", True, "the round's number in its shoe, from 1", 1),
)
_CARDS = tuple(Column(name, "card", name not in ("p3", "b3"), meaning) for name, meaning in (
    ("p1", "the Player's first card (the first card of the round)"),
    ("b1", "the Banker's first card"),
    ("p2", "the Player's second card"),
    ("b2", "the Banker's second card"),
    ("p3", "the Player's third card; empty when the Player stood"),
    ("b3", "the Banker's third card; empty when the Banker stood"),
))

#: The file kinds, by name.
FORMATS = {
    "rounds": FileFormat("rounds", "one round dealt", _KEY + (
        Column("day", "date", True, "the gaming day the round was dealt on"),
        Column("rule_set", "text", True, "the rule set in use: a shipped rule set's id or one given with --rules"),
    ) + _CARDS + (
        Column("turned", "card", False, "the card turned to set the burn (on the shoe's first round)"),
        Column("burned", "integer", False, "cards taken before the first round, the turned card included where "
                                           "the rule set discards it (on the shoe's first round)"),
        Column("cut", "integer", False, "where the cut card was placed, in cards from the end of the shoe (on the "
                                        "shoe's first round)"),
    )),
    "bets": FileFormat("bets", "one bet a seat placed in a round", _KEY + (
        Column("seat", "integer", True, "the seat, from 1", 1),
        Column("player", "text", False, "the player's id where the table knows it (a card, a rating)"),
        Column("bet", "text", True, "the bet's id in the round's rule set, e.g. banker, dragon_7"),
        Column("stake", "amount>0", True, "the amount staked"),
        Column("net", "amount", True, "the player's net result: the win paid, minus the stake when it is lost, "
                                      "0 on a push"),
    )),
    "results": FileFormat("results", "one table's gaming day or shift", (
        Column("table", "text", True, "the table's id"),
        Column("day", "date", True, "the gaming day"),
        Column("shift", "text", False, "the shift, where results are counted by shift"),
        Column("drop", "amount>=0", True, "cash and markers exchanged for chips at the table"),
        Column("win", "amount", True, "the house's win: negative for a loss"),
        Column("handle", "amount>=0", False, "the total amount bet, where known"),
    )),
}
#: The column that tells each kind apart.
_MARKS = {"p1": "rounds", "bet": "bets", "drop": "results"}


def kind_of(columns) -> str | None:
    """The file kind whose marking column is among ``columns`` (None: none is)."""
    found = [kind for mark, kind in _MARKS.items() if mark in columns]
    return found[0] if len(found) == 1 else None


def column_table(kind: str) -> str:
    """The columns of a file kind as a Markdown table (the docs' copy)."""
    lines = ["| column | required | allowed | meaning |", "|---|---|---|---|"]
    for column in FORMATS[kind].columns:
        allowed = ALLOWED[column.type].format(low=column.low).replace("|", "\\|")
        lines.append(f"| `{column.name}` | {'yes' if column.required else 'no'} | {allowed} | {column.meaning} |")
    return "\n".join(lines)


_JSON_TYPES = {
    "text": {"type": "string", "minLength": 1, "maxLength": 64},
    "integer": {"type": "integer"},
    "date": {"type": "string", "format": "date", "pattern": r"^\d{4}-\d{2}-\d{2}$"},
    "card": {"type": "string", "pattern": r"^\s*([AaTtJjQqKk2-9]|10|1[1-3]|1)[SsHhDdCc♠♥♦♣♤♡♢♧]\s*$"},
    "amount": {"type": "number"},
    "amount>0": {"type": "number", "exclusiveMinimum": 0},
    "amount>=0": {"type": "number", "minimum": 0},
}


def json_schema(kind: str) -> dict:
    """A JSON Schema (draft 2020-12) of one row of a file kind, every value as the CSV file writes it."""
    file_format = FORMATS[kind]
    properties = {}
    for column in file_format.columns:
        schema = dict(_JSON_TYPES[column.type], description=column.meaning)
        if column.type == "integer":
            schema["minimum"] = column.low
        properties[column.name] = schema if column.required else {"anyOf": [schema, {"type": "null"}],
                                                                   "description": column.meaning}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"baccarat_sim audit: a row of a {kind} file ({file_format.row})",
        "type": "object",
        "properties": properties,
        "required": [column.name for column in file_format.columns if column.required],
        "additionalProperties": False,
    }
