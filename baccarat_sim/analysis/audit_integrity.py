"""Shoe integrity: what the logs show that the rule set does not allow, each finding naming table, shoe and round.

* **cards**: more of one card (rank and suit) in a shoe than the rule set's decks hold (the turned card counted);
* **misdeal**: a round whose third cards are not the tableau's (:func:`~.audit_rounds.resolve_rounds`);
* **payout**: a bet whose net result differs from the pay table's for the cards dealt
  (:func:`~.audit_settle.expected_nets`; a card-level bet's line read off its card detail,
  :func:`~.audit_settle.card_level_lines`, except a bet on poker values, which is not checked), and a bet placed
  past the round its bet is offered to;
* **cut card**: a cut card placed outside the rule set's range, or rounds dealt after the cut card's round beyond
  the rule set's (the cut card's round is the one that deals the card the cut card lies before);
* **burn**: cards burned that differ from what the turned card (or the fixed burn) says.
"""

from __future__ import annotations

import numpy as np

from ..model.cards import card_name
from .audit_actual import theoretical
from .audit_counts import shoe_number
from .audit_data import COUNT_BLOCK, AuditData
from .audit_rounds import MISDEAL_PARTS
from .audit_settle import card_level_lines, expected_nets, line_names, settles_on_codes

__all__ = ["CHECKS", "PAYOUT_TOLERANCE", "integrity_findings", "sort_findings"]

#: The integrity checks, by name.
CHECKS = ("cards", "misdeal", "payout", "cut_card", "burn")
#: A net result within this much (money) of the pay table's is a right payout (float rounding of logged amounts).
PAYOUT_TOLERANCE = 0.005


def _finding(data: AuditData, check: str, row: int, what: str, **extra) -> dict:
    rounds = data.rounds
    return {"check": check, "table": data.table(row), "shoe": data.shoe(row),
            "round": int(rounds["round"][row]), "day": str(rounds["day"][row]), "what": what, **extra}


def integrity_findings(data: AuditData) -> list[dict]:
    """Every integrity finding, by check, then table, shoe and round."""
    findings = []
    for rule_id, rules in data.rules.items():
        mine = data.of_rule(rule_id)
        findings += _card_counts(data, rules, mine)
        findings += _shoe_rules(data, rules, mine)
    findings += _misdeals(data)
    findings += _payouts(data)
    return sort_findings(findings)


def sort_findings(findings: list) -> list:
    """Findings by check, then table, shoe and round (those of one round in the order they were found)."""
    order = {name: k for k, name in enumerate(CHECKS)}
    return sorted(findings, key=lambda f: (order[f["check"]], f["table"], f["shoe"], f["round"] or 0))


def _card_counts(data: AuditData, rules, mine: np.ndarray) -> list[dict]:
    cards = data.rounds["cards"]
    shoe = shoe_number(data.shoe_start)
    with_turned = np.concatenate([cards, data.rounds["turned"][:, None]], axis=1)
    rows = np.flatnonzero(mine)
    # Each shoe's count of each card, a block of rounds at a time: the (rounds x 7) keys of a year are gigabytes.
    counts = np.zeros((int(shoe[rows[-1]]) + 1 if rows.size else 0) * 52, np.int64)
    for first in range(0, rows.size, COUNT_BLOCK):
        block = rows[first:first + COUNT_BLOCK]
        dealt = with_turned[block]
        present = dealt >= 0
        keys = shoe[block][:, None] * 52 + np.where(present, dealt, 0)
        counts += np.bincount(keys[present], minlength=counts.size)
    held = rules.shoe.decks
    over = np.flatnonzero(counts > held)
    found = []
    for key in over:
        s, card = divmod(int(key), 52)
        in_shoe = rows[shoe[rows] == s]
        seen = np.cumsum((with_turned[in_shoe] == card).sum(axis=1))
        row = int(in_shoe[np.searchsorted(seen, held + 1)])
        found.append(_finding(data, "cards", row, f"{card_name(card)} dealt {int(counts[key])} times in the shoe; "
                                                  f"its {held} decks hold {held} (the excess first in this round)",
                              card=card_name(card)))
    return found


def _misdeals(data: AuditData) -> list[dict]:
    found = []
    resolved = data.resolved
    for row in np.flatnonzero(resolved.misdeal):
        parts = []
        for bit, hand in MISDEAL_PARTS.items():
            if resolved.misdeal[row] & bit:
                should = (resolved.player_should_draw if bit == 1 else resolved.banker_should_draw)[row]
                parts.append(f"the {hand} {'stood' if should else 'drew a third card'} where the tableau "
                             f"{'draws' if should else 'stands'}")
        found.append(_finding(data, "misdeal", int(row), "; ".join(parts)))
    return found


def _payouts(data: AuditData) -> list[dict]:
    bets = data.bets
    if not len(bets["row"]):
        return []
    found = []
    for rule_id, rules in data.rules.items():
        for bet_id in rules.bet_ids:
            chosen = data.bets_on(rule_id, bet_id)
            if not chosen.size:
                continue
            bet = rules.bet(bet_id)
            rows = bets["row"][chosen]
            if bet.max_round is not None:
                for j in chosen[data.rounds["round"][rows] > bet.max_round]:
                    found.append(_finding(data, "payout", int(bets["row"][j]), f"seat {int(bets['seat'][j])} bet "
                                          f"{bet_id} in round {int(data.rounds['round'][bets['row'][j]])}; it is "
                                          f"offered in rounds 1-{bet.max_round} only", seat=int(bets["seat"][j]),
                                          bet=bet_id, stake=float(bets["stake"][j]), difference=0.0))
            lines = None
            if not settles_on_codes(rules, bet_id):
                lines = card_level_lines(theoretical(rules)["hist"], rules, bet_id, data.resolved.code[rows],
                                         data.rounds["cards"][rows])
                if lines is None:  # a bet on poker values: its cards are not read from the atoms' tables here
                    continue
            line, expected = expected_nets(rules, bet_id, data.resolved.code[rows], bets["stake"][chosen], lines)
            wrong = np.abs(bets["net"][chosen] - expected) > PAYOUT_TOLERANCE
            names = line_names(rules, bet_id)
            for k in np.flatnonzero(wrong):
                j = chosen[k]
                paid, due = float(bets["net"][j]), float(expected[k])
                found.append(_finding(data, "payout", int(bets["row"][j]),
                                      f"seat {int(bets['seat'][j])} {bet_id} staked {bets['stake'][j]:g}: net "
                                      f"{paid:g} paid, the pay table gives {due:g} ({names[line[k]]})",
                                      seat=int(bets["seat"][j]), bet=bet_id, stake=float(bets["stake"][j]),
                                      difference=paid - due))
    return found


def _shoe_rules(data: AuditData, rules, mine: np.ndarray) -> list[dict]:
    """The cut card and the burn of every shoe of one rule set."""
    rounds = data.rounds
    shoe = rules.shoe
    n_cards = shoe.decks * 52
    by_rank = shoe.burn_by_rank()
    turned_extra = 1 if shoe.turned_discarded else 0
    found = []
    starts = np.flatnonzero(data.shoe_start & mine)
    ends = np.r_[np.flatnonzero(data.shoe_start)[1:], len(data.shoe_start)]
    end_of = dict(zip(np.flatnonzero(data.shoe_start), ends))
    used = data.resolved.cards_used
    for first in starts:
        last = end_of[first]
        turned, burned, cut = (int(rounds[k][first]) for k in ("turned", "burned", "cut"))
        expected_burn = None
        if shoe.burn == "none":
            expected_burn = 0
        elif shoe.burn == "fixed":
            expected_burn = int(by_rank[0])
        elif turned >= 0:
            expected_burn = int(by_rank[turned // 4]) + turned_extra
        if burned >= 0 and expected_burn is not None and burned != expected_burn:
            rule = {"none": "the rule set burns no card", "fixed": f"the rule set burns {expected_burn}"}.get(
                shoe.burn, f"the turned {card_name(turned)} burns {expected_burn}")
            found.append(_finding(data, "burn", int(first), f"{burned} cards taken before the first round; {rule}",
                                  round=None))
        start = burned if burned >= 0 else (expected_burn if expected_burn is not None else
                                            shoe.cards_before_first_round()[0])
        if cut >= 0 and not shoe.cut_card.low <= cut <= shoe.cut_card.high:
            found.append(_finding(data, "cut_card", int(first), f"cut card placed {cut} cards from the end; the rule "
                                  f"set places it {shoe.cut_card.low}-{shoe.cut_card.high}", round=None))
        position_end = start + np.cumsum(used[first:last])
        cut_index = n_cards - (cut if cut >= 0 else shoe.cut_card.low)
        out = np.flatnonzero(position_end > cut_index)
        if out.size:
            extra_rounds = (last - first) - (out[0] + 1)
            if extra_rounds > shoe.rounds_after_cut:
                row = int(first + out[0] + 1 + shoe.rounds_after_cut)
                where = f"the cut card {cut} cards from the end" if cut >= 0 else \
                    f"the cut card at its latest, {shoe.cut_card.low} cards from the end"
                found.append(_finding(data, "cut_card", row, f"{extra_rounds} rounds dealt after the round that "
                                      f"brought out {where}; the rule set deals {shoe.rounds_after_cut}"))
    return found
