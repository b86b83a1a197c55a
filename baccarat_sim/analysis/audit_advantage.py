"""Advantage-play flags: bets that follow a count, maximum bets late in the shoe, seats that bet together.

* **count**: for each player (the logged player id, else the table and seat) and each countable side bet of the
  rule set (one whose best count, :func:`~.audit_counts.best_count`, exists), the correlation over the rounds the
  player played of the amount on that bet with the true count before the round. Its p-value is a permutation
  p-value within shoes (the amounts shuffled among the rounds of each shoe, :data:`PERMUTATIONS` times, so that a
  shoe's count path is kept; the p-value from the observed correlation's z-score in that permutation law)
  for every player whose normal-law p-value is below :data:`SCREEN`; the others keep
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

from .audit_counts import best_count, counts_before_rounds
from .audit_data import AuditData, unique_inverse
from .audit_stats import FDR, benjamini_hochberg

__all__ = ["PERMUTATIONS", "SCREEN", "advantage_flags"]

#: Permutations of a permutation p-value.
PERMUTATIONS = 199
#: Normal-law p-value below which a correlation gets its permutation p-value.
SCREEN = 0.01
#: Fewest bets on a side bet before a player's correlation is tested.
MIN_BETS = 5


def _players(data: AuditData) -> tuple[np.ndarray, np.ndarray]:
    """The players' names and each bet's player code (the logged id, else the table and seat)."""
    return data.bets["player_names"], data.bets["player_code"]


def _countable(data: AuditData) -> dict:
    """Rule set to {bet id: (BetCount, true count per round row)}."""
    found = {}
    for rule_id, rules in data.rules.items():
        mine = data.of_rule(rule_id)
        bets = {}
        for bet in rules.bets:
            if bet.group == "main" or bet.card_level or not data.bets_on(rule_id, bet.id).size:
                continue
            count = best_count(rules, bet.id)
            if count is None:
                continue
            true = np.full(data.n_rounds, np.nan)
            rows = np.flatnonzero(mine)
            true[rows] = counts_before_rounds(data.rounds["cards"][rows], data.shoe_start[rows], count.tags,
                                              rules.shoe.decks * 52, data.rounds["turned"][rows])[1]
            bets[bet.id] = (count, true)
        found[rule_id] = bets
    return found


def _correlation(x, y, group, n_groups):
    n = np.bincount(group, minlength=n_groups).astype(float)
    sx, sy = np.bincount(group, x, n_groups), np.bincount(group, y, n_groups)
    sxx, syy, sxy = (np.bincount(group, x * x, n_groups), np.bincount(group, y * y, n_groups),
                     np.bincount(group, x * y, n_groups))
    with np.errstate(invalid="ignore", divide="ignore"):
        cov = sxy - sx * sy / n
        r = cov / np.sqrt((sxx - sx * sx / n) * (syy - sy * sy / n))
    return np.nan_to_num(r), n


def _permutation_p(x, y, shoe, rng) -> float:
    """One-sided p-value of the correlation against its permutation law within shoes.

    The amounts are shuffled among the rounds of each shoe :data:`PERMUTATIONS` times; the observed correlation's
    z-score against the permuted correlations' mean and standard deviation gives the p-value (the count of permuted
    correlations at least as large cannot go below ``1 / (PERMUTATIONS + 1)``, too coarse for a family of many
    players under Benjamini-Hochberg).
    """
    observed = np.corrcoef(x, y)[0, 1]
    shoe_sorted = np.argsort(shoe, kind="stable")
    permuted = np.empty(PERMUTATIONS)
    for k in range(PERMUTATIONS):
        order = shoe_sorted[np.lexsort((rng.random(len(x)), shoe[shoe_sorted]))]
        shuffled = np.empty_like(x)
        shuffled[shoe_sorted] = x[order]
        permuted[k] = np.corrcoef(shuffled, y)[0, 1]
    permuted = np.nan_to_num(permuted)
    sd = permuted.std()
    if sd == 0:
        return 1.0
    return 0.5 * math.erfc((observed - permuted.mean()) / sd / math.sqrt(2))


def _count_flags(data: AuditData, countable: dict, players: np.ndarray, rng) -> list[dict]:
    bets = data.bets
    tests = []
    shoe = np.cumsum(data.shoe_start) - 1
    keys, player_index = players
    for rule_id, by_bet in countable.items():
        of_rule = data.of_rule(rule_id)[bets["row"]]
        for bet_id, (count, true) in by_bet.items():
            on_bet = np.zeros(len(bets["row"]), bool)
            on_bet[data.bets_on(rule_id, bet_id)] = True
            per_player = np.bincount(player_index[on_bet], minlength=len(keys))
            bettors = np.flatnonzero(per_player >= MIN_BETS)
            if not bettors.size:
                continue
            is_bettor = np.zeros(len(keys), bool)
            is_bettor[bettors] = True
            active = of_rule & is_bettor[player_index]
            pair = unique_inverse(player_index[active] * np.int64(data.n_rounds) + bets["row"][active])[0]
            who, row = pair // data.n_rounds, pair % data.n_rounds
            on_pair = np.searchsorted(pair, player_index[on_bet & active] * np.int64(data.n_rounds)
                                      + bets["row"][on_bet & active])
            amount = np.bincount(on_pair, weights=bets["stake"][on_bet & active], minlength=len(pair))
            local = np.searchsorted(bettors, who)  # pairs are sorted by player: each player's pairs are a slice
            r, n = _correlation(amount, true[row], local, len(bettors))
            z = r * np.sqrt(np.maximum(n - 2, 1))
            p_normal = 0.5 * np.vectorize(math.erfc)(z / math.sqrt(2))
            bounds = np.searchsorted(local, np.arange(len(bettors) + 1))
            for k, player in enumerate(bettors):
                mine = slice(bounds[k], bounds[k + 1])
                p, method = float(p_normal[k]), "normal"
                if p < SCREEN:
                    p, method = _permutation_p(amount[mine], true[row[mine]], shoe[row[mine]], rng), "permutation"
                edge = count.edge(true[row[mine]])
                staked = amount[mine]
                tests.append({"kind": "count", "player": str(keys[player]), "rule_set": rule_id, "bet": bet_id,
                              "table": data.table(row[mine][0]),
                              "rounds": int(bounds[k + 1] - bounds[k]),
                              "bets": int((staked > 0).sum()), "correlation": float(r[k]), "p": p, "method": method,
                              "amount_bet": float(staked.sum()), "money_at_stake": float((staked * edge).sum()),
                              "count_tags": list(count.tags), "betting_correlation": count.betting_correlation,
                              "first_day": str(data.rounds["day"][row[mine]].min()),
                              "last_day": str(data.rounds["day"][row[mine]].max())})
    return tests


def _late_flags(data: AuditData, players: np.ndarray) -> list[dict]:
    """Rounds of a player's maximum bets in the last third of the shoe against the rounds they played there."""
    bets = data.bets
    shoe = np.cumsum(data.shoe_start) - 1
    length = np.bincount(shoe)
    late_round = data.rounds["round"] / length[shoe] > 2 / 3
    keys, who = players
    top = np.zeros(len(keys))
    np.maximum.at(top, who, bets["stake"])
    is_max = bets["stake"] >= top[who]
    n = np.int64(data.n_rounds)
    # Rounds, not bets: a round of several bets counts once, and a side bet offered only early in the shoe (Max
    # Round Availability) does not make the rounds look early.
    played = unique_inverse(who.astype(np.int64) * n + bets["row"])[0]
    maxed = unique_inverse(who[is_max].astype(np.int64) * n + bets["row"][is_max])[0]
    n_played = np.bincount(played // n, minlength=len(keys))
    share = np.bincount(played // n, late_round[played % n], len(keys)) / np.maximum(n_played, 1)
    n_max = np.bincount(maxed // n, minlength=len(keys))
    late_max = np.bincount(maxed // n, late_round[maxed % n], len(keys)).astype(np.int64)
    first_bet = np.zeros(len(keys), np.int64)
    first_bet[who[::-1]] = np.arange(len(who))[::-1]
    amount = np.bincount(who, bets["stake"] * is_max, len(keys))
    tests = []
    for k in np.flatnonzero((n_max >= MIN_BETS) & (n_max < n_played)):
        p = _binomial_upper(int(late_max[k]), int(n_max[k]), float(share[k]))
        tests.append({"kind": "late_max_bets", "player": str(keys[k]), "max_stake": float(top[k]),
                      "max_bets": int(n_max[k]), "late_max_bets": int(late_max[k]), "late_share_of_rounds":
                      float(share[k]), "p": p, "amount_bet": float(amount[k]),
                      "money_at_stake": None, "table": data.table(bets["row"][first_bet[k]])})
    return tests


def _binomial_upper(k: int, n: int, p: float) -> float:
    """P(X >= k) for X binomial(n, p), summed exactly in logs."""
    if k <= 0:
        return 1.0
    if p <= 0:
        return 0.0
    if p >= 1:
        return 1.0
    terms = [math.lgamma(n + 1) - math.lgamma(j + 1) - math.lgamma(n - j + 1) + j * math.log(p)
             + (n - j) * math.log1p(-p) for j in range(k, n + 1)]
    top = max(terms)
    return min(1.0, math.exp(top) * sum(math.exp(t - top) for t in terms))


def _hypergeometric_upper(both: int, n: int, a: int, b: int) -> float:
    """P(X >= both), X the overlap of random subsets of sizes a and b of n (Fisher's exact test, one-sided)."""
    def log_choose(x, y):
        return math.lgamma(x + 1) - math.lgamma(y + 1) - math.lgamma(x - y + 1)
    top = min(a, b)
    terms = [log_choose(a, j) + log_choose(n - a, b - j) - log_choose(n, b) for j in range(both, top + 1)
             if b - j <= n - a]
    if not terms:
        return 0.0
    peak = max(terms)
    return min(1.0, math.exp(peak) * sum(math.exp(t - peak) for t in terms))


def _together_flags(data: AuditData, countable: dict, players: np.ndarray) -> tuple[list[dict], int]:
    """The seat pairs tested (those that bet a side bet together more than chance) and how many others there were."""
    bets = data.bets
    tests = []
    untested = 0
    day_of = data.rounds["day"][bets["row"]]
    # Sorted: a set of text is iterated in an order that changes from one process to the next (hash seeds).
    side_ids = sorted({bet for by_bet in countable.values() for bet in by_bet})
    if not side_ids:
        return tests, 0
    code_of = {str(name): k for k, name in enumerate(bets["bet_names"])}
    group = data.rounds["table_code"][bets["row"]] * 1_000_000 + (day_of - day_of.min()).astype(np.int64)
    order = np.argsort(group, kind="stable")
    bounds = np.flatnonzero(np.r_[True, group[order][1:] != group[order][:-1], True])
    for start, end in zip(bounds[:-1], bounds[1:]):
        chosen = order[start:end]
        seats = np.unique(bets["seat"][chosen])
        if len(seats) < 2:
            continue
        rows, row_index = np.unique(bets["row"][chosen], return_inverse=True)
        seat_index = np.searchsorted(seats, bets["seat"][chosen])
        active = np.zeros((len(rows), len(seats)), bool)
        active[row_index, seat_index] = True
        codes = bets["bet_code"][chosen]
        for bet_id in side_ids:
            on = codes == code_of[bet_id]
            if on.sum() < 2 * MIN_BETS:
                untested += len(seats) * (len(seats) - 1) // 2
                continue
            placed = np.zeros_like(active)
            placed[row_index[on], seat_index[on]] = True
            # Every pair at once: rounds both played, rounds each bet it while the other played, rounds both bet it.
            played, bet_on = active.astype(np.int64), placed.astype(np.int64)
            shared_all, alone_all, both_all = played.T @ played, bet_on.T @ played, bet_on.T @ bet_on
            for i, j in zip(*np.triu_indices(len(seats), 1)):
                n, a, b, both = (int(shared_all[i, j]), int(alone_all[i, j]), int(alone_all[j, i]),
                                 int(both_all[i, j]))
                if both < 3 or both <= a * b / max(n, 1):
                    untested += 1
                    continue
                p = _hypergeometric_upper(both, n, a, b)
                name = {s: _main_player(players, chosen[bets["seat"][chosen] == s]) for s in (seats[i], seats[j])}
                together = np.isin(bets["row"][chosen], rows[placed[:, i] & placed[:, j]])
                staked = float(bets["stake"][chosen][on & np.isin(bets["seat"][chosen], (seats[i], seats[j]))
                                                     & together].sum())
                tests.append({"kind": "together", "table": data.table(bets["row"][chosen[0]]),
                              "day": str(day_of[chosen][0]),
                              "bet": bet_id, "seats": [int(seats[i]), int(seats[j])],
                              "players": [name[seats[i]], name[seats[j]]], "rounds": n, "both": both,
                              "expected_both": a * b / max(n, 1), "p": p, "amount_bet": staked,
                              "money_at_stake": None})
    return tests, untested


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


def _group_stakes(data: AuditData, countable: dict, group: dict) -> dict:
    """A group's amount on its bet that day at its seats, and the money at stake: each bet times the count's edge."""
    bets = data.bets
    rows = bets["row"]
    table_names = list(data.rounds["table_names"])
    code = list(bets["bet_names"]).index(group["bet"])
    chosen = np.flatnonzero((bets["bet_code"] == code) & np.isin(bets["seat"], group["seats"])
                            & (data.rounds["table_code"][rows] == table_names.index(group["table"]))
                            & (data.rounds["day"][rows] == np.datetime64(group["day"])))
    money = 0.0
    for rule_id, by_bet in countable.items():
        if group["bet"] in by_bet:
            count, true = by_bet[group["bet"]]
            mine = chosen[data.of_rule(rule_id)[rows[chosen]]]
            money += float((bets["stake"][mine] * count.edge(true[rows[mine]])).sum())
    return {**group, "amount_bet": float(bets["stake"][chosen].sum()), "money_at_stake": money}


def advantage_flags(data: AuditData, seed: int = 0) -> dict:
    """Every advantage-play test and its flag (BH at 5% per family), the groups of seats, and the counts used."""
    if not len(data.bets["row"]):
        return {"count": [], "late_max_bets": [], "together": [], "groups": [], "counts": {}}
    rng = np.random.default_rng(seed)
    players = _players(data)
    countable = _countable(data)
    together, untested = _together_flags(data, countable, players)
    families = {"count": _count_flags(data, countable, players, rng), "late_max_bets": _late_flags(data, players),
                "together": together}
    for name, tests in families.items():
        # The pairs that bet together no more than chance are in the family too (p-value 1): leaving them out
        # would loosen Benjamini-Hochberg's thresholds.
        padding = [1.0] * (untested if name == "together" else 0)
        for test, flag in zip(tests, benjamini_hochberg([t["p"] for t in tests] + padding, FDR)):
            test["flag"] = bool(flag)
    flagged = [t for t in families["together"] if t["flag"]]
    groups = [_group_stakes(data, countable, group) for group in _groups(flagged)]
    counts = {rule_id: {bet: {"tags": list(c.tags), "level": c.level, "betting_correlation": c.betting_correlation,
                              "break_even_true_count": c.break_even_true_count, "base_ev": c.base_ev,
                              "ev_per_true_count": c.ev_per_true_count} for bet, (c, _) in by_bet.items()}
              for rule_id, by_bet in countable.items()}
    return {**families, "groups": groups, "counts": counts}
