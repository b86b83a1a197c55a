"""Advantage-play flags: bets that follow a count, maximum bets late in the shoe, seats that bet together.

* **count**: for each player (the logged player id, else the table and seat) and each countable side bet of the
  rule set (one whose best count, :func:`~.audit_counts.best_count`, exists), the correlation over the rounds the
  player played of the amount on that bet with the true count before the round. Its p-value is a permutation
  p-value within shoes (the amounts shuffled among the rounds of each shoe, so that a shoe's count path is kept:
  the observed correlation's z-score in that permutation law, whose mean and variance are exact,
  :func:`_count_sums`) for every player whose normal-law p-value is below :data:`SCREEN`; the others keep
  the normal-law p-value, which is larger.
* **late max bets**: the rounds of a player's maximum bets (their largest stake, on any bet) in the last third of
  the shoe against the share of the rounds they played there (one-sided binomial).
* **together**: for each table, gaming day and side bet, each pair of seats that played the same rounds: how often
  both bet the side bet against their rates alone (one-sided hypergeometric, Fisher's exact test); flagged pairs
  join into groups.

Each family is put through Benjamini-Hochberg at 5%. Each flag carries the money at stake: the amounts bet times
the edge the count gives at the rounds they were bet (``base EV + EV per true count x true count``).
"""

from __future__ import annotations

import math

import numpy as np

from ..engines.audit_moments import pair_moments
from .audit_counts import ShoeCounts, best_count
from .audit_data import AuditData
from .audit_stats import FDR, benjamini_hochberg

__all__ = ["SCREEN", "AdvantageSums", "advantage_flags"]

#: Normal-law p-value below which a correlation gets its permutation p-value.
SCREEN = 0.01
#: Fewest bets on a side bet before a player's correlation is tested.
MIN_BETS = 5


def _countable(data: AuditData) -> dict:
    """Rule set to {bet id: (BetCount, true count per round row)}."""
    found = {}
    for rule_id, rules in data.rules.items():
        rows = np.flatnonzero(data.of_rule(rule_id))
        shoes = None
        bets = {}
        for bet in rules.bets:
            if bet.group == "main" or bet.card_level or not data.bets_on(rule_id, bet.id).size:
                continue
            count = best_count(rules, bet.id)
            if count is None:
                continue
            if shoes is None:
                shoes = ShoeCounts(data.rounds["cards"][rows], data.shoe_start[rows], rules.shoe.decks * 52,
                                   data.rounds["turned"][rows])
            true = np.full(data.n_rounds, np.nan)
            true[rows] = shoes.before_rounds(count.tags)[1]
            bets[bet.id] = (count, true)
        found[rule_id] = bets
    return found


def _correlation(moments: np.ndarray) -> np.ndarray:
    """The correlation of x and y from their sums (``PairMoments.sums``), 0 where either is constant."""
    n, sx, sy, sxx, syy, sxy = moments
    with np.errstate(invalid="ignore", divide="ignore"):
        cov = sxy - sx * sy / n
        r = cov / np.sqrt((sxx - sx * sx / n) * (syy - sy * sy / n))
    return np.nan_to_num(r)


def _p_normal(r: np.ndarray, n: np.ndarray) -> np.ndarray:
    """One-sided normal-law p-value of correlations ``r`` over ``n`` rounds."""
    z = r * np.sqrt(np.maximum(n - 2, 1))
    return np.array([0.5 * math.erfc(v / math.sqrt(2)) for v in z])


def _segments(player: np.ndarray, shoe: np.ndarray) -> tuple[np.ndarray, int]:
    """Each (player, round) pair's (player, shoe) segment, pairs sorted by player and round, and how many there are."""
    if not len(player):
        return np.zeros(0, np.int64), 0
    segment = np.cumsum(np.r_[True, (player[1:] != player[:-1]) | (shoe[1:] != shoe[:-1])]) - 1
    return segment, int(segment[-1]) + 1


def _count_sums(data: AuditData, countable: dict, into: dict) -> None:
    """Add a batch's part of every (rule set, countable bet, player) correlation to ``into``.

    ``into[(rule_id, bet_id)][player]``: a list of one record per batch the player bet in: the bets on the bet,
    the sums of the amount on it and the true count over the rounds the player played and their permutation
    moments (:func:`~baccarat_sim.engines.audit_moments.pair_moments`), the amounts and money at stake, where and
    when.

    The permutation law: the amounts ``x`` shuffled among the rounds of each shoe, the true counts ``y`` staying.
    The correlation moves with ``T = sum x y`` alone (the amounts' mean and spread do not change), and within a shoe
    of ``n`` rounds ``T`` has mean ``n mean(x) mean(y)`` and variance ``SSx SSy / (n - 1)`` (``SS``: sum of squared
    deviations from the shoe's mean), shoes independent. So ``z = sum x (y - mean_shoe(y)) / sqrt(sum SSx SSy /
    (n - 1))``: the exact moments that drawing permutations estimates, at no drawing's cost, and sums over shoes
    that add from batch to batch.
    """
    bets = data.bets
    shoe = np.cumsum(data.shoe_start) - 1
    keys = data.bets["player_names"]
    for rule_id, by_bet in countable.items():
        # Every player of the rule set's rounds, on every bet: whether one bet a bet at least MIN_BETS times is
        # known only from every batch, and the correlation runs over all the rounds they played.
        active = np.flatnonzero(data.of_rule(rule_id)[bets["row"]])
        if not active.size or not by_bet:
            continue
        player_index, codes = bets["player_code"][active], bets["bet_code"][active]
        # The batch's (player, round) pairs of this rule set's rounds, in their order.
        every_pair, pair_of_every_bet = data.player_rounds()
        in_rule = data.of_rule(rule_id)[every_pair % data.n_rounds]
        pair = every_pair[in_rule]
        pair_of_bet = (np.cumsum(in_rule) - 1)[pair_of_every_bet[active]]
        who, row = pair // data.n_rounds, pair % data.n_rounds
        bettors = np.unique(who)
        local = np.searchsorted(bettors, who)  # pairs are sorted by player: each player's pairs are a slice
        bounds = np.searchsorted(local, np.arange(len(bettors) + 1))
        stakes = bets["stake"][active]
        code_of = {str(name): k for k, name in enumerate(bets["bet_names"])}
        segment, n_segments = _segments(local, shoe[row])
        for bet_id, (count, true) in by_bet.items():
            on_bet = codes == code_of[bet_id]
            per_player = np.bincount(player_index[on_bet], minlength=len(keys))
            amount = np.bincount(pair_of_bet[on_bet], weights=stakes[on_bet], minlength=len(pair))
            true_of_pair = true[row]
            moments, shifted, spread = pair_moments(local, amount, true_of_pair, segment, len(bettors), n_segments)
            found = into.setdefault((rule_id, bet_id), {})
            for k, player in enumerate(bettors):
                mine = slice(bounds[k], bounds[k + 1])
                staked = amount[mine]
                days = data.rounds["day"][row[mine]]
                record = {"on_bets": int(per_player[player]), "moments": moments[:, k],
                          "permutation": (float(shifted[k]), float(spread[k])),
                          "rounds": int(bounds[k + 1] - bounds[k]), "bets": int((staked > 0).sum()),
                          "amount_bet": float(staked.sum()),
                          "money_at_stake": float((staked * count.edge(true_of_pair[mine])).sum()),
                          "table": data.table(row[mine][0]), "first_day": days.min(), "last_day": days.max(),
                          "count": count}
                found.setdefault(str(keys[player]), []).append(record)


def _count_test(rule_id: str, bet_id: str, player: str, records: list) -> dict:
    """A player's count test from their records of every batch (:func:`_count_sums`), its p-value normal."""
    moments = np.sum([r["moments"] for r in records], axis=0)[:, None]
    r = float(_correlation(moments)[0])
    count = records[0]["count"]
    return {"kind": "count", "player": player, "rule_set": rule_id, "bet": bet_id, "table": records[0]["table"],
            "rounds": sum(x["rounds"] for x in records), "bets": sum(x["bets"] for x in records), "correlation": r,
            "p": float(_p_normal(np.array([r]), moments[0])[0]), "method": "normal",
            "amount_bet": float(sum(x["amount_bet"] for x in records)),
            "money_at_stake": float(sum(x["money_at_stake"] for x in records)),
            "count_tags": list(count.tags), "betting_correlation": count.betting_correlation,
            "first_day": str(min(x["first_day"] for x in records)),
            "last_day": str(max(x["last_day"] for x in records))}


def _late_sums(data: AuditData, into: dict) -> None:
    """Add a batch's part of every player's maximum bets (at the batch's own largest stake) to ``into[player]``."""
    bets = data.bets
    if not len(bets["row"]):
        return
    shoe = np.cumsum(data.shoe_start) - 1
    length = np.bincount(shoe)
    late_round = data.rounds["round"] / length[shoe] > 2 / 3
    keys, who = data.bets["player_names"], data.bets["player_code"]
    top = np.zeros(len(keys))
    np.maximum.at(top, who, bets["stake"])
    is_max = bets["stake"] >= top[who]
    n = np.int64(data.n_rounds)
    # Rounds, not bets: a round of several bets counts once, and a side bet offered only early in the shoe (Max
    # Round Availability) does not make the rounds look early.
    played, pair_of_bet = data.player_rounds()
    maxed = played[np.bincount(pair_of_bet[is_max], minlength=len(played)) > 0]
    n_played = np.bincount(played // n, minlength=len(keys))
    late_played = np.bincount(played // n, late_round[played % n], len(keys))
    n_max = np.bincount(maxed // n, minlength=len(keys))
    late_max = np.bincount(maxed // n, late_round[maxed % n], len(keys))
    first_bet = np.zeros(len(keys), np.int64)
    first_bet[who[::-1]] = np.arange(len(who))[::-1]
    amount = np.bincount(who, bets["stake"] * is_max, len(keys))
    for k, name in enumerate(keys):
        into.setdefault(str(name), []).append(
            {"top": float(top[k]), "played": int(n_played[k]), "late_played": int(late_played[k]),
             "max": int(n_max[k]), "late_max": int(late_max[k]), "amount": float(amount[k]),
             "first": int(bets["position"][first_bet[k]]), "table": data.table(bets["row"][first_bet[k]])})


def _late_flags(sums: dict) -> list[dict]:
    """Rounds of a player's maximum bets in the last third of the shoe against the rounds they played there."""
    tests = []
    for name, records in sorted(sums.items(), key=lambda item: min(r["first"] for r in item[1])):
        top = max(r["top"] for r in records)
        at_top = [r for r in records if r["top"] == top]
        n_max, late_max = sum(r["max"] for r in at_top), sum(r["late_max"] for r in at_top)
        n_played = sum(r["played"] for r in records)
        share = sum(r["late_played"] for r in records) / max(n_played, 1)
        if not MIN_BETS <= n_max < n_played:
            continue
        tests.append({"kind": "late_max_bets", "player": name, "max_stake": top, "max_bets": n_max,
                      "late_max_bets": late_max, "late_share_of_rounds": share,
                      "p": _binomial_upper(late_max, n_max, share), "amount_bet": sum(r["amount"] for r in at_top),
                      "money_at_stake": None, "table": min(records, key=lambda r: r["first"])["table"]})
    return tests


def _binomial_upper(k: int, n: int, p: float) -> float:
    """P(X >= k) for X binomial(n, p), summed exactly in logs."""
    if k <= 0:
        return 1.0
    if p <= 0:
        return 0.0
    if p >= 1:
        return 1.0
    # The terms j = k..n at once, log-factorials from math.lgamma (a player's thousands of rounds of maximum bets
    # took a second in a Python loop).
    j = np.arange(k, n + 1)
    log_factorial = _log_factorials(n)
    terms = log_factorial[n] - log_factorial[j] - log_factorial[n - j] + j * math.log(p) + (n - j) * math.log1p(-p)
    top = float(terms.max())
    return min(1.0, math.exp(top) * float(np.exp(terms - top).sum()))


def _log_factorials(n: int) -> np.ndarray:
    """``log(m!)`` for m = 0..n at least, by math.lgamma (kept, and doubled when a larger n asks)."""
    if len(_LOG_FACTORIALS[0]) <= n:
        size = max(n + 1, 2 * len(_LOG_FACTORIALS[0]))
        _LOG_FACTORIALS[0] = np.array([math.lgamma(m + 1) for m in range(size)])
    return _LOG_FACTORIALS[0]


_LOG_FACTORIALS = [np.zeros(0)]


def _hypergeometric_upper(both: int, n: int, a: int, b: int) -> float:
    """P(X >= both), X the overlap of random subsets of sizes a and b of n (Fisher's exact test, one-sided)."""
    log_factorial = _log_factorials(n)

    def log_choose(x, y):
        return log_factorial[x] - log_factorial[y] - log_factorial[x - y]
    j = np.arange(max(both, b - (n - a)), min(a, b) + 1)
    if not len(j):
        return 0.0
    terms = log_choose(a, j) + log_choose(n - a, b - j) - log_choose(n, b)
    peak = float(terms.max())
    return min(1.0, math.exp(peak) * float(np.exp(terms - peak).sum()))


def _together_flags(data: AuditData, countable: dict, seat_sums: dict) -> tuple[list[dict], int, int]:
    """The seat pairs tested (those that bet a side bet together more than chance), and how many others there were.

    Also how many pairs each side bet that the batch has no bets on would have had.

    ``seat_sums[(table, day, bet, seat)]`` gets each tested pair's seats' amount on the bet that day and the money at
    stake (each bet times the count's edge): a group's figures are the sums over its seats.

    Each table's gaming day is a group; its seats are those that bet there. The counts of every pair of seats are
    made for all the groups at once (a bincount over the rounds per pair), the tests in the order of group, bet and
    pair.
    """
    bets = data.bets
    # Sorted: a set of text is iterated in an order that changes from one process to the next (hash seeds).
    side_ids = sorted({bet for by_bet in countable.values() for bet in by_bet})
    if not len(bets["row"]):
        return [], 0, 0
    rows_of = bets["row"]
    day = (data.rounds["day"] - data.rounds["day"].min()).astype(np.int64)
    key = data.rounds["table_code"].astype(np.int64) * (int(day.max()) + 1) + day  # table-major, then day
    present = np.bincount(key[rows_of]) > 0
    rank = np.cumsum(present) - 1
    group_of_round = np.where(present[np.minimum(key, len(present) - 1)] & (key < len(present)),
                              rank[np.minimum(key, len(present) - 1)], -1)
    group = group_of_round[rows_of]
    n_groups = int(rank[-1]) + 1
    seat_values, seat_index = np.unique(bets["seat"], return_inverse=True)
    seated = np.zeros((n_groups, len(seat_values)), bool)
    seated[group, seat_index] = True
    n_seats = seated.sum(axis=1)
    pairs_of = n_seats * (n_seats - 1) // 2
    pairs = int(pairs_of.sum())
    if not side_ids or len(seat_values) < 2:
        return [], 0, pairs
    # Seats by rounds: the rounds each seat played (any bet), and placed a side bet on.
    active = np.zeros((len(seat_values), data.n_rounds), bool)
    active[seat_index, rows_of] = True
    seat_pairs = list(zip(*np.triu_indices(len(seat_values), 1)))
    played = [np.flatnonzero(active[i]) for i in range(len(seat_values))]
    shared = [np.bincount(group_of_round[played[i][active[j][played[i]]]], minlength=n_groups) for i, j in seat_pairs]
    code_of = {str(name): k for k, name in enumerate(bets["bet_names"])}
    untested = 0
    found = []
    for order_of_bet, bet_id in enumerate(side_ids):
        on = np.flatnonzero(bets["bet_code"] == code_of[bet_id])
        enough = np.bincount(group[on], minlength=n_groups) >= 2 * MIN_BETS
        untested += int(pairs_of[~enough].sum())
        placed = np.zeros_like(active)
        placed[seat_index[on], rows_of[on]] = True
        # Each seat's rounds of the bet: the pairs' counts run over those, not over every round.
        bet_rows = [np.flatnonzero(placed[i]) for i in range(len(seat_values))]
        for (i, j), n in zip(seat_pairs, shared):
            valid = enough & seated[:, i] & seated[:, j]
            if not valid.any():
                continue
            rows_i, rows_j = bet_rows[i], bet_rows[j]
            a = np.bincount(group_of_round[rows_i[active[j][rows_i]]], minlength=n_groups)
            b = np.bincount(group_of_round[rows_j[active[i][rows_j]]], minlength=n_groups)
            both = np.bincount(group_of_round[rows_i[placed[j][rows_i]]], minlength=n_groups)
            tested = valid & (both >= 3) & (both > a * b / np.maximum(n, 1))
            untested += int((valid & ~tested).sum())
            if not tested.any():
                continue
            at = seat_index[on]
            together = on[((at == i) | (at == j)) & placed[i][rows_of[on]] & placed[j][rows_of[on]]]
            staked = np.bincount(group[together], weights=bets["stake"][together], minlength=n_groups)
            found += [(g, order_of_bet, i, j, int(n[g]), int(a[g]), int(b[g]), int(both[g]), float(staked[g]))
                      for g in np.flatnonzero(tested)]
    if not found:
        return [], untested, pairs
    players = (bets["player_names"], bets["player_code"])
    order = np.argsort(group, kind="stable")
    bounds = np.searchsorted(group[order], np.arange(n_groups + 1))
    tests = []
    for g, order_of_bet, i, j, n, a, b, both, staked in sorted(found):
        chosen = order[bounds[g]:bounds[g + 1]]
        bet_id = side_ids[order_of_bet]
        seat_i, seat_j = seat_values[i], seat_values[j]
        name = {s: _main_player(players, chosen[bets["seat"][chosen] == s]) for s in (seat_i, seat_j)}
        table, when = data.table(rows_of[chosen[0]]), str(data.rounds["day"][rows_of[chosen[0]]])
        tests.append({"kind": "together", "table": table, "day": when, "bet": bet_id,
                      "seats": [int(seat_i), int(seat_j)], "players": [name[seat_i], name[seat_j]], "rounds": n,
                      "both": both, "expected_both": a * b / max(n, 1), "p": _hypergeometric_upper(both, n, a, b),
                      "amount_bet": staked, "money_at_stake": None})
        on = bets["bet_code"][chosen] == code_of[bet_id]
        for seat in (seat_i, seat_j):
            if (table, when, bet_id, int(seat)) not in seat_sums:
                seat_sums[(table, when, bet_id, int(seat))] = _seat_stakes(
                    data, countable, chosen[on & (bets["seat"][chosen] == seat)], bet_id)
    return tests, untested, pairs


def _seat_stakes(data: AuditData, countable: dict, chosen: np.ndarray, bet_id: str) -> tuple[float, float]:
    """The amount of bets ``chosen`` (on ``bet_id``) and the money at stake: each bet times the count's edge."""
    bets = data.bets
    rows = bets["row"]
    money = 0.0
    for rule_id, by_bet in countable.items():
        if bet_id in by_bet:
            count, true = by_bet[bet_id]
            mine = chosen[data.of_rule(rule_id)[rows[chosen]]]
            money += float((bets["stake"][mine] * count.edge(true[rows[mine]])).sum())
    return float(bets["stake"][chosen].sum()), money


def _main_player(players, bets_at_seat: np.ndarray) -> str:
    """The player who placed most of these bets (a seat changes hands during a day)."""
    names, codes = players
    found, counts = np.unique(codes[bets_at_seat], return_counts=True)
    return str(names[found[np.argmax(counts)]])


def _groups(flagged_pairs: list[dict]) -> list[dict]:
    """Flagged pairs joined into groups (seats linked by a flagged pair) per table, day and bet."""
    groups: dict = {}
    for pair in flagged_pairs:
        key = (pair["table"], pair["day"], pair["bet"])
        sets = groups.setdefault(key, [])
        members = set(pair["players"])
        joined = [s for s in sets if s["players"] & members]
        merged = {"players": members.union(*(s["players"] for s in joined)),
                  "seats": set(pair["seats"]).union(*(s["seats"] for s in joined)),
                  "p": min([pair["p"], *(s["p"] for s in joined)])}
        groups[key] = [s for s in sets if s not in joined] + [merged]
    return [{"kind": "group", "table": table, "day": day, "bet": bet, "players": sorted(g["players"]),
             "seats": sorted(g["seats"]), "p": g["p"]}
            for (table, day, bet), sets in groups.items() for g in sets]


def _group_stakes(seat_sums: dict, group: dict) -> dict:
    """A group's amount on its bet that day at its seats, and the money at stake (sums over its seats)."""
    found = [seat_sums[(group["table"], group["day"], group["bet"], seat)] for seat in group["seats"]]
    return {**group, "amount_bet": float(sum(a for a, _ in found)), "money_at_stake": float(sum(m for _, m in found))}


class AdvantageSums:
    """Advantage play, a batch of tables at a time: :meth:`add` each batch, then :meth:`finish`."""

    def __init__(self):
        self.rules: dict = {}
        self.countable: dict = {}  # rule set -> bet -> BetCount, as a batch found them
        self.count: dict = {}
        self.late: dict = {}
        self.together: list = []
        self.untested = 0
        self.pairs: list = []  # per batch: its seat pairs, and the side bets it tested
        self.seat_sums: dict = {}
        self.bets = 0

    def add(self, data: AuditData) -> None:
        """Add a batch (batches in the order of their tables)."""
        self.rules.update(data.rules)
        countable = _countable(data)
        for rule_id, by_bet in countable.items():
            self.countable.setdefault(rule_id, {}).update({bet: count for bet, (count, _) in by_bet.items()})
        _count_sums(data, countable, self.count)
        _late_sums(data, self.late)
        tests, untested, pairs = _together_flags(data, countable, self.seat_sums)
        self.together += tests
        self.untested += untested
        self.pairs.append((pairs, {bet for by_bet in countable.values() for bet in by_bet}))
        self.bets += len(data.bets["row"])

    def _screened(self):
        """Each test of the count family (in the report's order), its player's records, and whether it is screened."""
        first = {player: min(r["first"] for r in records) for player, records in self.late.items()}
        for rule_id in sorted(self.countable):
            for bet in self.rules[rule_id].bets:
                found = self.count.get((rule_id, bet.id), {})
                for player in sorted(found, key=first.__getitem__):
                    records = found[player]
                    if sum(r["on_bets"] for r in records) < MIN_BETS:
                        continue
                    test = _count_test(rule_id, bet.id, player, records)
                    yield test, records, test["p"] < SCREEN

    def finish(self) -> dict:
        """Every advantage-play test and its flag (BH at 5% per family), the groups of seats, and the counts used."""
        if not self.bets:
            return {"count": [], "late_max_bets": [], "together": [], "groups": [], "counts": {}}
        count_tests = []
        for test, records, screened in self._screened():
            if screened:
                shifted, spread = (sum(part) for part in zip(*(r["permutation"] for r in records)))
                test["p"] = 0.5 * math.erfc(shifted / math.sqrt(spread) / math.sqrt(2)) if spread > 0 else 1.0
                test["method"] = "permutation"
            count_tests.append(test)
        side_ids = {bet for by_bet in self.countable.values() for bet in by_bet}
        # A side bet a batch has no bets on leaves all of that batch's seat pairs untested.
        untested = self.untested + sum(pairs * len(side_ids - tested) for pairs, tested in self.pairs)
        families = {"count": count_tests, "late_max_bets": _late_flags(self.late), "together": self.together}
        for name, tests in families.items():
            # The pairs that bet together no more than chance are in the family too (p-value 1): leaving them out
            # would loosen Benjamini-Hochberg's thresholds.
            padding = [1.0] * (untested if name == "together" else 0)
            for test, flag in zip(tests, benjamini_hochberg([t["p"] for t in tests] + padding, FDR)):
                test["flag"] = bool(flag)
        flagged = [t for t in families["together"] if t["flag"]]
        groups = [_group_stakes(self.seat_sums, group) for group in _groups(flagged)]
        counts = {rule_id: {bet.id: _count_figures(self.countable[rule_id][bet.id]) for bet in self.rules[rule_id].bets
                            if bet.id in self.countable[rule_id]} for rule_id in sorted(self.rules)}
        return {**families, "groups": groups, "counts": counts}


def _count_figures(c) -> dict:
    return {"tags": list(c.tags), "level": c.level, "betting_correlation": c.betting_correlation,
            "break_even_true_count": c.break_even_true_count, "base_ev": c.base_ev,
            "ev_per_true_count": c.ev_per_true_count}


def advantage_flags(data: AuditData) -> dict:
    """Advantage play of one batch holding every table (:class:`AdvantageSums`)."""
    sums = AdvantageSums()
    sums.add(data)
    return sums.finish()
