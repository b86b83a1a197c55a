"""The audit's data, read from its database into arrays a batch of tables at a time.

Rounds by table, shoe and round; bets by round.

A year of rounds and bets does not fit in memory at once beside the analyses' temporaries: the audit reads whole
tables at a time (:func:`plan_batches`, :func:`read_audit_data` with ``tables``), each batch's analyses adding to
sums that the report finishes. Within a batch: one query per table of the database
(:mod:`baccarat_sim.audit_store.database`); everything after is numpy.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..model.rules import Rules
from .audit_rounds import CARD_COLUMNS, ResolvedRounds, resolve_rounds

__all__ = ["BATCH_ROUNDS", "COUNT_BLOCK", "AuditData", "plan_batches", "read_audit_data", "read_results",
           "unique_inverse"]


def unique_inverse(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The sorted distinct integer keys and where each key is among them (``np.unique(..., return_inverse=True)``).

    By one sort: numpy's hash-based unique took seconds on a few million int64 keys.

    >>> unique_inverse(np.array([5, 3, 5, 9]))
    (array([3, 5, 9]), array([1, 0, 1, 2]))
    """
    keys = np.asarray(keys)
    # Sorted as 32-bit integers where they fit (the same order, sooner).
    fits = len(keys) and keys.dtype.kind in "iu" and 0 <= keys.min() and keys.max() < 2**31
    order = np.argsort(keys.astype(np.int32) if fits else keys, kind="stable")
    ordered = keys[order]
    new = np.r_[True, ordered[1:] != ordered[:-1]] if len(keys) else np.zeros(0, bool)
    inverse = np.empty(len(keys), np.int64)
    inverse[order] = np.cumsum(new) - 1
    return ordered[new], inverse


@dataclasses.dataclass(frozen=True, eq=False)
class AuditData:
    """Rounds (sorted by table, shoe, round), their resolution, bets and table results.

    ``rounds`` columns: ``rid round day turned burned cut``, ``cards`` (n, 6), -1 for no card, and the text
    columns as codes into their distinct values: ``table_code``/``table_names``, ``shoe_code``/``shoe_names``,
    ``rule_code``/``rule_names`` (:meth:`table`, :meth:`shoe`, :meth:`rule_set` of a row; :meth:`of_rule`);
    ``shoe_start`` marks each shoe's first row. ``bets``: ``row`` (the round's row in ``rounds``), ``seat
    stake net``, ``bet_code`` and ``player_code`` (indexes into ``bet_names`` and ``player_names``; a player
    is the logged id, else the table and seat), ``position`` (the bet's place in the database's order of bets,
    which orders ties and first appearances the same whatever the batches). ``results``: ``table day shift drop
    win handle`` (handle nan where not known).
    ``rules``: every rule set the rounds name, by id.
    """

    rounds: dict
    resolved: ResolvedRounds
    shoe_start: np.ndarray
    bets: dict
    results: dict
    rules: dict
    #: What the analyses ask of the batch more than once (a rule set's rounds), kept for the batch's life.
    cache: dict = dataclasses.field(default_factory=dict, repr=False)

    @property
    def n_rounds(self) -> int:
        """Rounds stored."""
        return len(self.rounds["rid"])

    def table(self, row) -> str:
        """The table of a round (by its row)."""
        return str(self.rounds["table_names"][self.rounds["table_code"][row]])

    def shoe(self, row) -> str:
        """The shoe of a round."""
        return str(self.rounds["shoe_names"][self.rounds["shoe_code"][row]])

    def rule_set(self, row) -> str:
        """The rule set of a round."""
        return str(self.rounds["rule_names"][self.rounds["rule_code"][row]])

    def of_rule(self, rule_id: str) -> np.ndarray:
        """Which rounds are of rule set ``rule_id`` (a bool per round; read-only)."""
        key = ("of_rule", rule_id)
        if key not in self.cache:
            names = list(self.rounds["rule_names"])
            found = self.rounds["rule_code"] == (names.index(rule_id) if rule_id in names else -1)
            found.flags.writeable = False
            self.cache[key] = found
        return self.cache[key]

    def player_rounds(self) -> tuple[np.ndarray, np.ndarray]:
        """The (player, round) pairs of the bets, as sorted keys ``player * n_rounds + row``, and each bet's pair."""
        if "player_rounds" not in self.cache:
            keys = self.bets["player_code"].astype(np.int64) * self.n_rounds + self.bets["row"]
            cells = len(self.bets["player_names"]) * self.n_rounds
            if cells > DENSE_CELLS:
                self.cache["player_rounds"] = unique_inverse(keys)
            else:  # marks in a (player, round) grid: the same keys in order, no sort
                marked = np.zeros(cells, bool)
                marked[keys] = True
                self.cache["player_rounds"] = (np.flatnonzero(marked),
                                               (np.cumsum(marked, dtype=np.int32) - 1)[keys].astype(np.int64))
        return self.cache["player_rounds"]

    def bets_on(self, rule_id: str, bet_id: str) -> np.ndarray:
        """The indexes of the bets on ``bet_id`` in rounds of rule set ``rule_id``, in the bets' order."""
        if "_by_bet" not in self.bets:
            rule_names, bet_names = list(self.rounds["rule_names"]), list(self.bets["bet_names"])
            # In 32 bits (rule sets x bets is small): the key and its sort are a year of bets long.
            key = (self.rounds["rule_code"].astype(np.int32)[self.bets["row"]] * np.int32(max(1, len(bet_names)))
                   + self.bets["bet_code"])
            order = np.argsort(key, kind="stable")
            starts = np.searchsorted(key[order], np.arange(len(rule_names) * max(1, len(bet_names)) + 1))
            self.bets["_by_bet"] = {(r, b): order[starts[i * len(bet_names) + j]:starts[i * len(bet_names) + j + 1]]
                                    for i, r in enumerate(rule_names) for j, b in enumerate(bet_names)}
        return self.bets["_by_bet"].get((rule_id, bet_id), np.zeros(0, np.int64))


#: Rows of a query fetched at a time: a batch of Arrow columns lives only while it is copied into the arrays.
BATCH_ROWS = 1 << 19


def _integers(column, fill: int, dtype=np.int64) -> np.ndarray:
    """An Arrow integer column as ``dtype``, nulls as ``fill``."""
    import pyarrow.compute as pc

    return np.asarray(pc.fill_null(column, fill).to_numpy(), dtype)


class _Encoder:
    """A text column, batch by batch, as codes into its distinct values in the order they first appear.

    The codes are those :func:`pyarrow.compute.dictionary_encode` gives the whole column at once: a batch's own
    dictionary is in first-appearance order, and its values new to the column get the next codes in that order.
    """

    def __init__(self):
        self.index: dict = {}

    def codes(self, column) -> np.ndarray:
        """The codes of one batch's column."""
        import pyarrow.compute as pc

        encoded = pc.dictionary_encode(column)
        known = np.array([self.index.setdefault(v, len(self.index)) for v in encoded.dictionary.to_pylist()],
                         np.int64)
        return known[np.asarray(encoded.indices.to_numpy(), np.int64)] if len(known) else \
            np.zeros(len(column), np.int64)

    def names(self) -> np.ndarray:
        """The distinct values, as fixed-width text."""
        return np.array(list(self.index) if self.index else [], dtype=str)


def _batches(cursor, sql: str, params: list):
    """The query's result as Arrow record batches of at most :data:`BATCH_ROWS` rows, and where each starts."""
    at = 0
    for batch in cursor.sql(sql, params=params).to_arrow_reader(BATCH_ROWS):
        yield at, batch
        at += batch.num_rows


def _first_appearance(codes: np.ndarray, names: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``codes`` and ``names`` renumbered so that the codes are in the order the values first appear in ``codes``."""
    first = np.full(len(names), len(codes), np.int64)
    np.minimum.at(first, codes, np.arange(len(codes)))
    order = np.argsort(first, kind="stable")
    renumber = np.empty(len(names), np.int64)
    renumber[order] = np.arange(len(names))
    return renumber[codes], names[order]


def _text_rank(names: np.ndarray) -> np.ndarray:
    """Each distinct text's place in DuckDB's order of text (by bytes of UTF-8: numpy's order of code points)."""
    rank = np.empty(len(names), np.int64)
    rank[np.argsort(names, kind="stable")] = np.arange(len(names))
    return rank


def _read_rounds(cursor, clause: str, params: list) -> dict:
    """The rounds, sorted by table, shoe and round, streamed into their arrays.

    Small integer types: a year of rounds and bets must fit in memory beside the analyses' temporaries. Read in
    the database's order (a stream: DuckDB sorting a year of rounds held them all, and more, at once),
    then sorted here by one integer key; the text columns' codes are then renumbered in the order their values
    first appear, as reading them sorted would give.
    """
    n = cursor.sql(f"SELECT count(*) FROM rounds{clause}", params=params).fetchall()[0][0]
    kinds = {"rid": np.int64, "round": np.int32, "turned": np.int8, "burned": np.int16, "cut": np.int16}
    rounds = {key: np.empty(n, dtype) for key, dtype in kinds.items()}
    rounds.update({f"{key}_code": np.empty(n, np.int64) for key in ("table", "shoe", "rule")})
    rounds["day"] = np.empty(n, "datetime64[D]")
    rounds["cards"] = np.empty((n, 6), np.int8)
    encoders = {key: _Encoder() for key in ("table", "shoe", "rule")}
    sql = (f"SELECT rid, table_id, shoe, rule_set, round, day, {', '.join(CARD_COLUMNS)}, turned, burned, cut "
           f"FROM rounds{clause}")
    for at, batch in _batches(cursor, sql, params):
        part = slice(at, at + batch.num_rows)
        for key, dtype in kinds.items():
            rounds[key][part] = _integers(batch.column(key), -1, dtype)
        for column, key in (("table_id", "table"), ("shoe", "shoe"), ("rule_set", "rule")):
            rounds[f"{key}_code"][part] = encoders[key].codes(batch.column(column))
        rounds["day"][part] = batch.column("day").to_numpy(zero_copy_only=False).astype("datetime64[D]")
        for k, column in enumerate(CARD_COLUMNS):
            rounds["cards"][part, k] = _integers(batch.column(column), -1, np.int8)
    for key, encoder in encoders.items():
        rounds[f"{key}_names"] = encoder.names()
    if n:
        tables, shoes = _text_rank(rounds["table_names"]), _text_rank(rounds["shoe_names"])
        low = int(rounds["round"].min())
        span = int(rounds["round"].max()) - low + 1
        key = (tables[rounds["table_code"]] * len(shoes) + shoes[rounds["shoe_code"]]) * span \
            + (rounds["round"] - low)
        order = np.argsort(key, kind="stable")
        del key
        for column in [k for k in rounds if not k.endswith("_names")]:
            rounds[column] = rounds[column][order]
        del order
        for key in ("table", "shoe", "rule"):
            rounds[f"{key}_code"], rounds[f"{key}_names"] = _first_appearance(rounds[f"{key}_code"],
                                                                               rounds[f"{key}_names"])
    return rounds


def _rid_ranges(rids: np.ndarray, gap: int = 4096) -> list[tuple[int, int]]:
    """The sorted ``rids`` as a few ranges ``(low, high)``: runs of them closer than ``gap`` joined.

    A batch's bets are read by these ranges (DuckDB skips the row groups outside them); the rids in a gap belong to
    other tables, and their bets are dropped after reading.
    """
    if not len(rids):
        return []
    ordered = np.sort(rids)
    cut = np.flatnonzero(np.diff(ordered) > gap)
    return list(zip(ordered[np.r_[0, cut + 1]].tolist(), ordered[np.r_[cut, len(ordered) - 1]].tolist()))


def _read_bets(cursor, rounds: dict) -> dict:
    """The bets of the rounds read, streamed into their arrays; ``row`` is the bet's round's row in ``rounds``.

    Read in the database's order (the order the bet files listed them) without a join: the rounds are already in
    memory, and a bet's round and table are looked up there; a bet of a round outside the rounds read is skipped.
    (Through a join, the bets came in an order that changed with DuckDB's threads, and so did the figures that
    depend on it: sums of floats and the order of ties and first appearances.) Only the rid ranges of the rounds read
    are scanned; ``position`` (DuckDB's ``rowid``) keeps the database's order across ranges.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    n_rounds = len(rounds["rid"])
    bets = {"bet_names": np.zeros(0, str), "player_names": np.zeros(0, object)}
    if not n_rounds:
        bets.update({key: np.zeros(0, np.int64) for key in ("seat", "bet_code", "player_code", "row", "position")})
        bets.update({key: np.zeros(0) for key in ("stake", "net")})
        return bets
    ranges = _rid_ranges(rounds["rid"])
    n = sum(cursor.sql("SELECT count(*) FROM bets WHERE rid BETWEEN ? AND ?", params=[low, high]).fetchall()[0][0]
            for low, high in ranges)
    # The bets are the audit's largest arrays: codes and rows in the smallest integers that hold them (a bet
    # code below 2**15, a player below 2**31; the analyses widen to int64 where they combine them into keys).
    bets.update({"seat": np.empty(n, np.int16), "stake": np.empty(n), "net": np.empty(n),
                 "bet_code": np.empty(n, np.int16), "player_code": np.empty(n, np.int32),
                 "row": np.empty(n, np.int32 if n_rounds < 2**31 else np.int64), "position": np.empty(n, np.int64)})
    position_of_rid = np.full(int(rounds["rid"].max()) + 2, -1, np.int64)
    position_of_rid[rounds["rid"]] = np.arange(n_rounds)
    table_names = pa.array(rounds["table_names"].tolist(), pa.string())
    # Bets and players as codes: bet_code indexes bet_names; player_code indexes player_names, a player being the
    # logged id or else the table and seat.
    encoders = {"bet": _Encoder(), "player": _Encoder()}
    filled = 0
    for low, high in ranges:
        sql = ("SELECT rowid AS position, rid, seat, stake, net, bet, nullif(player, '') AS player FROM bets "
               "WHERE rid BETWEEN ? AND ?")
        for _, batch in _batches(cursor, sql, [low, high]):
            rids = np.minimum(_integers(batch.column("rid"), 0), len(position_of_rid) - 1)
            rows = position_of_rid[rids]
            keep = rows >= 0
            if not keep.all():
                batch = batch.filter(pa.array(keep))
                rows = rows[keep]
            part = slice(filled, filled + batch.num_rows)
            filled += batch.num_rows
            bets["row"][part] = rows
            bets["position"][part] = _integers(batch.column("position"), 0)
            bets["seat"][part] = _integers(batch.column("seat"), 0, np.int16)
            for key in ("stake", "net"):
                bets[key][part] = batch.column(key).to_numpy(zero_copy_only=False)
            bets["bet_code"][part] = encoders["bet"].codes(batch.column("bet"))
            seat_of = pc.binary_join_element_wise(table_names.take(pa.array(rounds["table_code"][rows])),
                                                  pc.cast(batch.column("seat"), pa.string()), " seat ")
            bets["player_code"][part] = encoders["player"].codes(pc.coalesce(batch.column("player"), seat_of))
    columns = ("seat", "stake", "net", "bet_code", "player_code", "row", "position")
    if filled < n:
        for key in columns:
            bets[key] = bets[key][:filled].copy()
    if filled > 1 and (np.diff(bets["position"]) < 0).any():  # ranges out of the database's order: put it back
        order = np.argsort(bets["position"], kind="stable")
        for key in columns:
            bets[key] = bets[key][order]
        bet_codes, bet_names = _first_appearance(bets["bet_code"].astype(np.int64), encoders["bet"].names())
        player_codes, player_names = _first_appearance(bets["player_code"].astype(np.int64),
                                                       encoders["player"].names())
        bets["bet_code"], bets["player_code"] = bet_codes.astype(np.int16), player_codes.astype(np.int32)
        bets["bet_names"], bets["player_names"] = bet_names, player_names.astype(object)
        return bets
    bets["bet_names"] = encoders["bet"].names()
    bets["player_names"] = encoders["player"].names().astype(object)
    return bets


#: Most cells of a dense grid (of players by rounds) the audit marks instead of sorting keys (4 bytes a cell).
DENSE_CELLS = 1 << 25
#: Rounds whose cards are counted at a time (a year's cards as int64 keys are gigabytes).
COUNT_BLOCK = 1 << 20
#: Rounds the audit reads at a time, about (whole tables at a time: a batch holds at least one table). Smaller
#: batches are no slower (1e6 rounds: 9.7 s in batches of 5e5 rounds, 11.3 s in one) and hold less (651 against
#: 930 MB; 1e7 rounds in batches of one table of 4e5 rounds: 889 MB).
BATCH_ROUNDS = 500_000


def _clause(since, until, tables=None) -> tuple[str, list]:
    where, params = [], []
    if since is not None:
        where.append("day >= ?")
        params.append(since)
    if until is not None:
        where.append("day <= ?")
        params.append(until)
    if tables is not None:
        where.append(f"table_id IN ({', '.join('?' * len(tables))})")
        params.extend(tables)
    return (" WHERE " + " AND ".join(where)) if where else "", params


def plan_batches(connection, since=None, until=None, batch_rounds: int = BATCH_ROUNDS) -> list[list[str]]:
    """The tables in batches of about ``batch_rounds`` rounds (whole tables, in the order of their ids)."""
    clause, params = _clause(since, until)
    found = connection.execute(f"SELECT table_id, count(*) FROM rounds{clause} GROUP BY table_id ORDER BY table_id",
                               params).fetchall()
    batches, size = [], 0
    for table, rounds in found:
        if not batches or size + rounds > batch_rounds:
            batches.append([])
            size = 0
        batches[-1].append(table)
        size += rounds
    return batches


def read_results(connection, since=None, until=None) -> dict:
    """The table results (days ``since`` to ``until``): ``table day shift drop win handle`` (handle nan: unknown)."""
    clause, params = _clause(since, until)
    raw = connection.execute(
        f"SELECT table_id, day, shift, drop_amount, win, coalesce(handle, 'nan'::DOUBLE) AS handle FROM results"
        f"{clause} ORDER BY day, table_id, shift", params).fetchnumpy()
    return {"table": np.asarray(raw["table_id"]), "day": np.asarray(raw["day"]).astype("datetime64[D]"),
            "shift": np.asarray(raw["shift"]), "drop": np.asarray(raw["drop_amount"], float),
            "win": np.asarray(raw["win"], float), "handle": np.asarray(raw["handle"], float)}


def read_audit_data(connection, rules_of: dict[str, Rules], since=None, until=None, tables=None,
                    results: dict | None = None) -> AuditData:
    """Read the database (days ``since`` to ``until`` inclusive, None: all) into :class:`AuditData`.

    ``tables``: those tables only (None: all); ``results``: the table results already read (None: read here).
    """
    clause, params = _clause(since, until, tables)
    # Read through Arrow, a batch at a time: a text column is dictionary-encoded there (codes into its distinct
    # values), and numpy gets the codes and fixed-width text, never a Python object per row.
    reader = connection.cursor()  # a fresh cursor: no earlier result of the connection is left unfinished
    rounds = _read_rounds(reader, clause, params)
    n = len(rounds["rid"])
    shoe_start = np.ones(n, bool)
    if n:
        shoe_start[1:] = ((rounds["table_code"][1:] != rounds["table_code"][:-1])
                          | (rounds["shoe_code"][1:] != rounds["shoe_code"][:-1]))
    resolved = resolve_rounds(rounds["cards"])
    bets = _read_bets(reader, rounds)
    named = {str(r) for r in rounds["rule_names"]} if n else set()
    return AuditData(rounds, resolved, shoe_start, bets, read_results(connection, since, until) if results is None
                     else results, {r: rules_of[r] for r in sorted(named)})
