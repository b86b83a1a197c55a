"""What the cost model allows: the limits of card-detail work checked before it starts, and the refusals.

The predictions are the cost model's (:mod:`baccarat_sim.model.cost`); the
limits are :mod:`baccarat_sim.limits`'. Here they meet: a step is *cheap*
(a Monte Carlo run takes it before dealing, a group may be merged), within
the limits (the exact engine takes it when asked), or refused in one line
naming the rule file, the bets and the predicted cost, before any work.
"""

from __future__ import annotations

from ..errors import InvalidRules
from ..limits import CHEAP_EXACT_BYTES, CHEAP_EXACT_SECONDS, MAX_PLAN_BYTES, MAX_PLAN_SECONDS
from ..model.cost import Cost, exact_cost, reach_cost
from ..model.detail import CardDetail, FactoredDetail
from ..model.rules import Rules

__all__ = ["UNCHECKED", "bet_keys", "cheap", "check_exact_cost", "priced_detail", "reach_is_cheap", "refused"]

#: What a run's note adds for a group whose cells came from the Monte Carlo tables.
UNCHECKED = ("; its pay table's lines were checked for lines that can never happen, not for overlaps or gaps (they "
             "need the exact cells)")


def cheap(cost: Cost) -> bool:
    """Whether a step is cheap enough for a Monte Carlo run to take before dealing (and a group to be merged)."""
    return cost.seconds <= CHEAP_EXACT_SECONDS and cost.bytes <= CHEAP_EXACT_BYTES


def refused(what: str, cost: Cost, advice: str) -> str | None:
    """Why a step predicted to take ``cost`` is refused; None within the limits.

    The limits: :data:`~baccarat_sim.limits.MAX_PLAN_BYTES` and :data:`~baccarat_sim.limits.MAX_PLAN_SECONDS`.
    """
    problem = cost.over(MAX_PLAN_BYTES, MAX_PLAN_SECONDS)
    return None if problem is None else f"{what} is predicted to take {cost.text()}, {problem}; {advice}"


def reach_is_cheap(atoms, outcomes: str) -> bool:
    """Whether a group's cells that can happen are worked out exactly (else from the Monte Carlo tables)."""
    return cheap(reach_cost(tuple(atoms), outcomes))


def bet_keys(bets, texts) -> str:
    """The rule file's keys of the card-level bets that read any of the atoms ``texts``: ``bets.a, bets.b``."""
    texts = set(texts)
    return ", ".join(f"bets.{bet.id}" for bet in bets if bet.card_level and texts & {a.text for a in bet.atoms})


def priced_detail(rules: Rules, detail: FactoredDetail | CardDetail | None, shoe=None, shoe_options: str = ""
                  ) -> tuple[FactoredDetail | CardDetail | None, dict[str, str]]:
    """The groups a Monte Carlo run prices exactly before it deals, and the bets it leaves out, each with why.

    A group whose exact weights the cost model predicts to take more than
    :data:`~baccarat_sim.limits.CHEAP_EXACT_SECONDS` (or
    :data:`~baccarat_sim.limits.CHEAP_EXACT_BYTES`) is not priced: the run
    goes on from its own tables, and the report says why and how to ask for
    the exact figure (``rtp --exact --rules FILE --bets ID``, within the exact engine's limits). ``shoe``: the
    counts by rank and suit it is priced on (None: the rule set's full shoe), and ``shoe_options`` the command's
    options that give that shoe (``--decks 6 --remove K,K``), for the command that asks for the figure.

    Returns
    -------
    (FactoredDetail or CardDetail or None, dict of str to str)
        The priced groups (a one-group detail itself; None when none is), and the bets left out by id.
    """
    kept, missing = [], {}
    for group in () if detail is None else detail.groups if isinstance(detail, FactoredDetail) else (detail,):
        cost = exact_cost(group.atoms, group.outcomes, shoe=shoe)
        if cheap(cost):
            kept.append(group)
            continue
        beyond = cost.over(MAX_PLAN_BYTES, MAX_PLAN_SECONDS)
        for bet in rules.bets:
            if bet.card_level and {a.text for a in bet.atoms} & set(group.texts):
                how = (f"beyond the exact engine's limits ({beyond})" if beyond else
                       f"ask for it with rtp --exact --rules {rules.path}{shoe_options} --bets {bet.id}")
                missing[bet.id] = (f"exact figure not computed: pricing it exactly is predicted to take {cost.text()}, "
                                   f"more than a Monte Carlo run waits for ({CHEAP_EXACT_SECONDS:g} s, "
                                   f"{CHEAP_EXACT_BYTES >> 20} MB); {how}"
                                   + (UNCHECKED if group.reach == "tables" else ""))
    if isinstance(detail, CardDetail):
        return (detail if kept else None), missing
    return (FactoredDetail(tuple(kept)) if kept else None), missing


def check_exact_cost(rules: Rules, detail: FactoredDetail | CardDetail | None, pricings: int = 1,
                     what: str = "pricing every card-level bet exactly", shoe=None, advice: str | None = None,
                     remembered: bool = True) -> None:
    """Refuse, before any work, exact card-level pricing that the cost model puts beyond the limits.

    Parameters
    ----------
    rules : Rules
        The rule set (its file and bets name the refusal).
    detail : FactoredDetail, CardDetail, sequence or None
        The card detail to be priced (or its groups: anything with ``atoms``, ``outcomes`` and ``texts``).
    pricings : int
        How many times it is priced (the effect of removal prices it once per card removed).
    what : str
        What prices it, for the message.
    shoe : ndarray or None
        The counts by rank and suit of the shoe it is priced on (None: the rule set's full shoe).
    advice : str or None
        What to do instead (default: Monte Carlo, or simpler bets).
    remembered : bool
        False: price a group counted by rank as if it remembered no context
        (:func:`~baccarat_sim.model.cost.exact_cost`).

    Raises
    ------
    InvalidRules
        One line naming the file, the bet (the costliest, for the whole file's time) and the predicted cost.
    """
    groups = (() if detail is None else tuple(detail) if isinstance(detail, (tuple, list))
              else detail.groups if isinstance(detail, FactoredDetail) else (detail,))
    costs = [(exact_cost(group.atoms, group.outcomes, shoe=shoe, remembered=remembered), group) for group in groups]
    tail = f"; {advice}" if advice else ", or run it by Monte Carlo" if pricings == 1 else ""
    advice = advice or "run it by Monte Carlo (rtp without --exact), or split its conditions into simpler bets"
    for cost, group in costs:
        why = refused("pricing its card-level conditions exactly", cost, advice)
        if why:
            raise InvalidRules("", f"{rules.path}: {bet_keys(rules.bets, group.texts)}: {why}")
    seconds = sum(cost.seconds for cost, _ in costs) * pricings
    if seconds > MAX_PLAN_SECONDS:
        cost, group = max(costs, key=lambda pair: pair[0].seconds)
        times = f" ({pricings:,} exact pricings)" if pricings > 1 else ""
        raise InvalidRules("", f"{rules.path}: {bet_keys(rules.bets, group.texts)}: {what}{times} is predicted to "
                               f"take about {seconds:,.0f} s, more than the limit of {MAX_PLAN_SECONDS:,.0f} s (this "
                               f"bet: {cost.text()} a pricing); leave it out with --bets{tail}")
