"""The bulk path of a bet log: each bet's round found without a join, the bets stored in the file's order.

A bet names its round by table, shoe and round number; the database numbers rounds (``rid``). A hash join would
find them, but DuckDB does not keep a join's rows in their order, not even on one thread, and the bets must be
stored in the file's order (the analyses read them so, and their permutation tests depend on it). So the typed
rows are read in order (a plain scan keeps it) as Arrow batches, each bet's round is looked up here by its shoe
(:class:`RoundLookup`), everything a row must be is checked in numpy, and each batch is appended in turn.
"""

from __future__ import annotations

import contextlib
import queue
import threading

import numpy as np

__all__ = ["BATCH_ROWS", "RoundLookup", "append_bets"]

#: Rows per Arrow batch.
BATCH_ROWS = 1 << 20
#: Bits of a bet key (round, seat, bet) given to the seat: seats are < 32768.
_SEAT_BITS = 15


class RoundLookup:
    """The stored rounds by table, shoe and round number: their ``rid`` and rule set.

    A shoe whose rounds are numbered without a gap and in the database's order (``rid - round`` the same for all,
    the way a log in order is imported) is three numbers: its first and last round and ``rid - round``. The rounds
    of any other shoe are kept one by one, in a dense array over its round numbers.

    Parameters
    ----------
    connection : duckdb.DuckDBPyConnection
    rule_sets : list of str
        The rule sets whose rounds a bet may be on (their index is the rule code given back); a round of another
        rule set is given code -1.
    """

    def __init__(self, connection, rule_sets: list[str]):
        rule_code = ("CASE rule_set " + " ".join(f"WHEN '{name.replace(chr(39), chr(39) * 2)}' THEN {k}"
                                                  for k, name in enumerate(rule_sets)) + " ELSE -1 END")
        connection.execute(
            "CREATE OR REPLACE TEMP TABLE bulk_shoes AS SELECT row_number() OVER () - 1 AS k, * FROM ("
            f"SELECT table_id, shoe, min(round) AS lo, max(round) AS hi, min(rid - round) AS base, min({rule_code}) "
            f"AS rule, count(*) = max(round) - min(round) + 1 AND min(rid - round) = max(rid - round) AND "
            f"min({rule_code}) = max({rule_code}) AS regular FROM rounds GROUP BY table_id, shoe)")
        shoes = connection.execute(
            "SELECT table_id, shoe, lo, hi, base, rule, regular FROM bulk_shoes ORDER BY k").fetchall()
        self.index = {(table, shoe): k for k, (table, shoe, *_) in enumerate(shoes)}
        self.lo, self.hi, self.base, self.rule = (np.array([row[j] for row in shoes], np.int64) for j in range(2, 6))
        self.regular = np.array([bool(row[6]) for row in shoes], bool)
        # The other shoes: a dense array of rids (and rule codes) over each one's round numbers, -1 where none.
        odd = np.flatnonzero(~self.regular)
        self.offset = np.zeros(len(shoes), np.int64)
        sizes = self.hi[odd] - self.lo[odd] + 1
        self.offset[odd] = np.cumsum(sizes) - sizes
        self.dense_rid = np.full(int(sizes.sum()), -1, np.int64)
        self.dense_rule = np.full(int(sizes.sum()), -1, np.int64)
        if len(odd):
            rows = connection.execute(
                f"SELECT s.k, r.round, r.rid, {rule_code} AS rule FROM rounds r JOIN bulk_shoes s "
                "ON s.table_id = r.table_id AND s.shoe = r.shoe WHERE NOT s.regular").fetchnumpy()
            k = np.asarray(rows["k"], np.int64)
            position = self.offset[k] + np.asarray(rows["round"], np.int64) - self.lo[k]
            self.dense_rid[position] = np.asarray(rows["rid"], np.int64)
            self.dense_rule[position] = np.asarray(rows["rule"], np.int64)

    def shoes(self, tables, shoes) -> np.ndarray:
        """Each row's shoe (an index of this lookup; -1 where none is stored), from Arrow text columns."""
        import pyarrow.compute as pc

        table_codes, shoe_codes = pc.dictionary_encode(tables), pc.dictionary_encode(shoes)
        table_names, shoe_names = table_codes.dictionary.to_pylist(), shoe_codes.dictionary.to_pylist()
        pair = (table_codes.indices.to_numpy().astype(np.int64) * len(shoe_names)
                + shoe_codes.indices.to_numpy().astype(np.int64))
        if len(table_names) * len(shoe_names) <= 4 * len(pair) + 1024:
            seen = np.flatnonzero(np.bincount(pair, minlength=len(table_names) * len(shoe_names)))
            where = np.full(len(table_names) * len(shoe_names), -1, np.int64)
            where[seen] = [self.index.get((table_names[p // len(shoe_names)], shoe_names[p % len(shoe_names)]), -1)
                           for p in seen]
            return where[pair]
        seen, inverse = np.unique(pair, return_inverse=True)
        found = np.array([self.index.get((table_names[p // len(shoe_names)], shoe_names[p % len(shoe_names)]), -1)
                          for p in seen], np.int64)
        return found[inverse]

    def rounds(self, shoe: np.ndarray, round_no: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each row's ``rid`` and rule code (-1 and -1 where its round is not stored)."""
        known = shoe >= 0
        at = np.where(known, shoe, 0)
        stored = known & (round_no >= self.lo[at]) & (round_no <= self.hi[at])
        rid = np.where(stored, self.base[at] + round_no, -1)
        rule = np.where(stored, self.rule[at], -1)
        odd = np.flatnonzero(stored & ~self.regular[at])
        if len(odd):
            position = self.offset[at[odd]] + round_no[odd] - self.lo[at[odd]]
            rid[odd], rule[odd] = self.dense_rid[position], self.dense_rule[position]
        return rid, rule


class _RepeatCheck:
    """Whether a (round, seat, bet) key comes twice, fed batch by batch in the file's order.

    A file in round order (a round's bets together, in any order) is checked here; ``in_order`` turns False when
    it is not, and then the caller asks the database.
    """

    def __init__(self, bet_bits: int):
        self.bet_bits, self.last_round, self.carried = bet_bits, -1, np.zeros(0, np.int64)
        self.in_order, self.repeated = True, False

    def feed(self, rid: np.ndarray, seat: np.ndarray, bet: np.ndarray) -> None:
        if not self.in_order or self.repeated or not len(rid):
            return
        if rid[0] < self.last_round or np.any(rid[1:] < rid[:-1]):
            self.in_order = False
            return
        keys = (rid << (_SEAT_BITS + self.bet_bits)) | (seat.astype(np.int64) << self.bet_bits) | bet
        if len(self.carried) and rid[0] == self.last_round:  # a round's bets across two batches
            keys = np.concatenate([self.carried, keys])
        if np.any(keys[1:] <= keys[:-1]) and np.any(np.diff(np.sort(keys)) == 0):
            self.repeated = True
        self.last_round = int(rid[-1])
        self.carried = keys[(keys >> (_SEAT_BITS + self.bet_bits)) == self.last_round]


class _ReadAhead:
    """A query's Arrow batches, read by a second thread up to ``depth`` batches ahead of their use.

    DuckDB reads and types the next batches (releasing the GIL) while this thread looks up and appends the last
    one: the two halves of a bet log's import overlap on two cores.
    """

    def __init__(self, cursor, sql: str, depth: int = 2):
        self.queue, self.stop = queue.Queue(maxsize=depth), threading.Event()
        self.thread = threading.Thread(target=self._read, args=(cursor, sql), daemon=True)
        self.thread.start()

    def _read(self, cursor, sql: str) -> None:
        try:
            for batch in cursor.sql(sql).to_arrow_reader(BATCH_ROWS):
                if self.stop.is_set():
                    break
                self.queue.put(batch)
        except BaseException as error:  # handed to the reading thread's consumer, raised there
            self.queue.put(error)
        finally:
            self.queue.put(None)

    def __iter__(self):
        while (item := self.queue.get()) is not None:
            if isinstance(item, BaseException):
                raise item
            yield item

    def close(self) -> None:
        """Stop reading (a batch being read is finished first) and wait for the reading thread."""
        self.stop.set()
        while self.thread.is_alive():
            with contextlib.suppress(queue.Empty):
                self.queue.get(timeout=0.05)
        self.thread.join()


def append_bets(connection, typed_rows: str, rule_sets: list[str], bets_of: dict, newest: int) -> int | None:
    """Append the checked bets of ``typed_rows`` (SQL) to ``bets`` in order; returns how many, or None.

    None: a row is bad, its round is not stored, its bet is not one of its round's rule set, its round is not
    after ``newest`` (the newest round a stored bet is on), or a bet is repeated; the caller rolls back.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    bet_ids = sorted({bet for name in rule_sets for bet in bets_of[name]})
    allowed = np.array([[bet in bets_of[name] for bet in bet_ids] for name in rule_sets] + [[False] * len(bet_ids)],
                       bool)  # the last row: a round of no rule set given (code -1)
    lookup = RoundLookup(connection, rule_sets)
    repeats = _RepeatCheck(max(1, (len(bet_ids) - 1).bit_length()))
    reading = connection.cursor()  # this connection reads the file while the other appends
    batches = _ReadAhead(reading, f"SELECT \"table\", shoe, round, seat, player, bet, stake, net, ok "
                                  f"FROM ({typed_rows})")
    added = 0
    try:
        for batch in batches:
            if not len(batch):
                continue
            if not pc.all(batch.column("ok")).as_py():
                return None
            round_no = batch.column("round").to_numpy().astype(np.int64)
            rid, rule = lookup.rounds(lookup.shoes(batch.column("table"), batch.column("shoe")), round_no)
            bet_codes = pc.dictionary_encode(batch.column("bet"))
            code_of = np.array([bet_ids.index(b) if b in bet_ids else -1 for b in bet_codes.dictionary.to_pylist()]
                               + [-1], np.int64)
            bet = code_of[bet_codes.indices.to_numpy()]
            if np.any(rid <= newest) or np.any(bet < 0) or not allowed[rule, bet].all():
                return None
            seat = batch.column("seat").to_numpy()
            repeats.feed(rid, seat, bet)
            if repeats.repeated:
                return None
            connection.from_arrow(pa.table({
                "rid": rid, "seat": batch.column("seat"), "player": batch.column("player"),
                "bet": batch.column("bet"), "stake": batch.column("stake"), "net": batch.column("net"),
            })).insert_into("bets")
            added += len(batch)
    finally:
        batches.close()
        reading.close()
    if not repeats.in_order and connection.execute(
            f"SELECT 1 FROM bets WHERE rid > {newest} GROUP BY rid, seat, bet HAVING count(*) > 1 LIMIT 1").fetchone():
        return None
    return added
