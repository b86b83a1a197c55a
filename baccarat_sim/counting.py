"""Card-counting simulations in the dealt model, with strategies as data.

A *strategy* (a TOML file, shipped ones in ``baccarat_sim/strategies/``) says
how each bet is played while shoes are dealt through to the cut card:

``play = "count"``
    A linear count: tags per rank (``[counts.NAME] tags = {...}``, or derived
    from the bet's effects of removal with ``derive = {bet = ..., level = ...}``);
    bet when the true count (running count per 52 unseen cards) is at least
    ``true_count`` (``"auto"``: the derived tags' break-even true count), or
    when the running count is at least ``running_count``.
``play = "perfect"``
    Bet when the exact EV for the unseen cards is positive (or above
    ``min_edge``): the upper bound of what any count can do.
``play = "always"``
    Flat betting every round (a control: it must reproduce the house edge).

Each bet is reported for every cut-card scenario (the rule set's cut card and
any moved one, sharing the same shuffles) and, for bets with a "Max Round
Availability", also withdrawn after that round. The figures: share of rounds
bet, average advantage per bet placed (measured, with a 95% CI, and the exact
mean edge of the bets placed), units won per shoe with a 95% CI (shoes are
independent), units per 100 rounds.

A run is fixed by its seed: block ``b`` of 16 shoes is dealt from the stream
``(seed, b)`` exactly as the Monte Carlo engine deals it, blocks run in
parallel and their statistics are summed in block order, so results do not
depend on the number of threads.

Strategy file format::

    schema_version = 1
    id = "lucky6-level1"
    name = "Lucky 6: level-1 count"
    source = "where the count was published"
    cut_cards = [52, [100, 110]]        # extra cut-card positions, cards from the end
    count_turned_card = true            # the card turned to set the burn is counted (default)

    [counts.level1]
    tags = { "6" = -3, "7" = 1, "8" = 1, "9" = 1 }   # point values 0-9 or ranks A..K; others 0

    [[bets]]
    id = "lucky_six_12_23"              # a bet of the rule set, or "*" for every other bet
    play = "count"                      # count | perfect | always
    count = "level1"
    true_count = 7                      # or running_count = 10
    exact_edge = true                   # also record the exact edge of every bet placed
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import re
import time
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd

from ._format import clean_json, markdown_table
from .cards import N_RANKS, RANK_NAMES, RANK_POINTS
from .outcomes import N_CODES
from .rules import Rules, read_toml
from .stats import Z95

__all__ = [
    "BetPlay",
    "CountResult",
    "CountSystem",
    "InvalidStrategy",
    "Strategy",
    "available_strategies",
    "count_simulation",
    "load_strategy",
    "parse_strategy",
]

SCHEMA_VERSION = 1
#: Salt of the second stream that places moved cut cards.
AUX_SALT = 0x6A09E667F3BCC909
PLAYS = ("count", "perfect", "always")
_ID = re.compile(r"^[a-z0-9][a-z0-9_.-]*$")


class InvalidStrategy(ValueError):
    """A strategy that cannot be used; the message names the file and key at fault."""


@dataclasses.dataclass(frozen=True)
class CountSystem:
    """A linear count: a tag per rank, given or derived from a bet's effects of removal.

    Attributes
    ----------
    name : str
    tags : tuple of 13 float or None
        Tag of Ace..King (None when derived).
    derive : tuple (bet id, level, by) or None
        Derive balanced integer tags with :func:`baccarat_sim.eor.derive_tags`.
    """

    name: str
    tags: tuple[float, ...] | None = None
    derive: tuple[str, int, str | None] | None = None


@dataclasses.dataclass(frozen=True)
class BetPlay:
    """How one bet is played."""

    bet: str
    play: str
    count: str | None = None
    true_count: float | str | None = None
    running_count: float | None = None
    min_edge: float = 0.0
    exact_edge: bool = True


@dataclasses.dataclass(frozen=True)
class Strategy:
    """A validated strategy (immutable). Build it with :func:`load_strategy`."""

    id: str
    name: str
    source: str
    description: str
    counts: tuple[CountSystem, ...]
    bets: tuple[BetPlay, ...]
    cut_cards: tuple[tuple[int, int], ...]
    path: str
    sha256: str
    count_turned_card: bool = True


# --------------------------------------------------------------------------- loading


def _strategies_dir():
    return resources.files("baccarat_sim") / "strategies"


def available_strategies() -> list[str]:
    """Names of the shipped strategies."""
    return sorted(p.name[: -len(".toml")] for p in _strategies_dir().iterdir() if p.name.endswith(".toml"))


def load_strategy(name_or_path: str | Path) -> Strategy:
    """Load and validate a shipped strategy by name, or a strategy file by path.

    Raises
    ------
    InvalidStrategy
        With one line naming the file, the key at fault and what is allowed.
    """
    text = str(name_or_path)
    path = Path(text)
    if text.endswith(".toml") or path.exists() or "/" in text or "\\" in text:
        try:
            data = path.read_bytes()
        except OSError as error:
            raise InvalidStrategy(f"{text}: cannot read strategy file ({error.strerror or error})") from None
        return parse_strategy(data, text)
    shipped = _strategies_dir() / f"{text}.toml"
    if not shipped.is_file():
        raise InvalidStrategy(f"--count: unknown strategy {text!r}; shipped: {', '.join(available_strategies())} "
                              "(or a .toml path)")
    return parse_strategy(shipped.read_bytes(), f"{text}.toml")


def _tag_keys() -> dict[str, list[int]]:
    """Ranks named by each tag key: point values "0".."9" and rank names."""
    keys = {str(v): [r for r in range(N_RANKS) if RANK_POINTS[r] == v] for v in range(10)}
    for r, name in enumerate(RANK_NAMES):
        if name != "10":
            keys[name] = [r]
    keys["10"] = [9]
    keys["T"] = [9]
    return keys


class _Checker:
    def __init__(self, label: str):
        self.label = label

    def fail(self, key: str, message: str):
        raise InvalidStrategy(f"{self.label}: {key}: {message}")

    def known(self, table: dict, key: str, allowed: set[str]):
        if not isinstance(table, dict):
            self.fail(key or "document", f"must be a table, got {type(table).__name__}")
        for name in table:
            if name not in allowed:
                self.fail(f"{key}.{name}" if key else name, f"unknown key; allowed: {', '.join(sorted(allowed))}")

    def number(self, value, key) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            self.fail(key, f"must be a number, got {value!r}")
        return float(value)

    def string(self, value, key) -> str:
        if not isinstance(value, str):
            self.fail(key, f"must be a string, got {value!r}")
        return value

    def count(self, name: str, t) -> CountSystem:
        key = f"counts.{name}"
        self.known(t, key, {"tags", "derive"})
        if ("tags" in t) == ("derive" in t):
            self.fail(key, "give exactly one of tags = {...} or derive = {bet = ..., level = ...}")
        if "derive" in t:
            d = t["derive"]
            self.known(d, f"{key}.derive", {"bet", "level", "by"})
            bet = self.string(d.get("bet"), f"{key}.derive.bet")
            level = d.get("level", 1)
            if isinstance(level, bool) or not isinstance(level, int) or not 1 <= level <= 50:
                self.fail(f"{key}.derive.level", f"must be a whole number from 1 to 50, got {level!r}")
            by = d.get("by")
            if by is not None and by not in ("value", "rank"):
                self.fail(f"{key}.derive.by", f"must be value or rank, got {by!r}")
            return CountSystem(name, None, (bet, level, by))
        tags_raw = t["tags"]
        if not isinstance(tags_raw, dict) or not tags_raw:
            self.fail(f"{key}.tags", "must be a table of card = tag, e.g. { \"6\" = -3, \"7\" = 1 }")
        keys = _tag_keys()
        tags = [0.0] * N_RANKS
        # Point values first, then ranks, so "0" = -2 with "K" = 1 sets the K alone.
        for card in sorted(tags_raw, key=lambda k: 0 if k.isdigit() and len(k) == 1 else 1):
            if card not in keys:
                self.fail(f"{key}.tags.{card}", "must be a point value 0-9 or a rank A,2..10,J,Q,K")
            value = self.number(tags_raw[card], f"{key}.tags.{card}")
            for r in keys[card]:
                tags[r] = value
        return CountSystem(name, tuple(tags), None)

    def bet(self, t, key: str, counts: set[str]) -> BetPlay:
        self.known(t, key, {"id", "play", "count", "true_count", "running_count", "min_edge", "exact_edge"})
        bet = self.string(t.get("id"), f"{key}.id")
        play = t.get("play")
        if play not in PLAYS:
            self.fail(f"{key}.play", f"must be one of {', '.join(PLAYS)}; got {play!r}")
        key = f"bets.{bet}"
        count = t.get("count")
        true_count = t.get("true_count")
        running = t.get("running_count")
        if play == "count":
            if count not in counts:
                self.fail(f"{key}.count", f"must name a [counts.NAME] table: {', '.join(sorted(counts)) or 'none'}")
            if (true_count is None) == (running is None):
                self.fail(key, "give exactly one of true_count = N (or \"auto\") and running_count = N")
            if true_count is not None and true_count != "auto":
                true_count = self.number(true_count, f"{key}.true_count")
            if running is not None:
                running = self.number(running, f"{key}.running_count")
        else:
            for name in ("count", "true_count", "running_count"):
                if name in t:
                    self.fail(f"{key}.{name}", f"only goes with play = \"count\", not {play!r}")
        min_edge = self.number(t.get("min_edge", 0.0), f"{key}.min_edge")
        if "min_edge" in t and play != "perfect":
            self.fail(f"{key}.min_edge", "only goes with play = \"perfect\"")
        exact_edge = t.get("exact_edge", True)
        if not isinstance(exact_edge, bool):
            self.fail(f"{key}.exact_edge", f"must be true or false, got {exact_edge!r}")
        return BetPlay(bet, play, count, true_count, running, min_edge, exact_edge)

    def cut_card(self, value, key) -> tuple[int, int]:
        bounds = value if isinstance(value, list) else [value, value]
        if len(bounds) != 2 or any(isinstance(b, bool) or not isinstance(b, int) or b < 0 for b in bounds):
            self.fail(key, f"must be a whole number of cards from the end or a [low, high] pair, got {value!r}")
        if bounds[0] > bounds[1]:
            self.fail(key, f"low must not exceed high, got {value!r}")
        return int(bounds[0]), int(bounds[1])


def parse_strategy(data: bytes | str, label: str = "<strategy>") -> Strategy:
    """Validate TOML text into a :class:`Strategy` (see :func:`load_strategy`)."""
    raw, doc = read_toml(data, label, InvalidStrategy)
    check = _Checker(label)
    check.known(doc, "", {"schema_version", "id", "name", "source", "description", "cut_cards", "count_turned_card",
                          "counts", "bets"})
    if doc.get("schema_version") != SCHEMA_VERSION:
        check.fail("schema_version", f"must be {SCHEMA_VERSION}, got {doc.get('schema_version')!r}")
    strategy_id = check.string(doc.get("id"), "id")
    if not _ID.match(strategy_id):
        check.fail("id", f"must be lower-case letters, digits, '-', '_' or '.', got {strategy_id!r}")
    counts_raw = doc.get("counts", {})
    check.known(counts_raw, "counts", set(counts_raw) if isinstance(counts_raw, dict) else set())
    counts = tuple(check.count(name, t) for name, t in counts_raw.items())
    bets_raw = doc.get("bets")
    if not isinstance(bets_raw, list) or not bets_raw:
        check.fail("bets", "must be a non-empty array of tables ([[bets]])")
    bets = tuple(check.bet(t, f"bets[{i}]", {c.name for c in counts}) for i, t in enumerate(bets_raw))
    seen = set()
    for bet in bets:
        if bet.bet in seen:
            check.fail(f"bets.{bet.bet}", "listed twice")
        seen.add(bet.bet)
    cuts_raw = doc.get("cut_cards", [])
    if not isinstance(cuts_raw, list):
        check.fail("cut_cards", "must be an array of cut-card positions (cards from the end)")
    cuts = tuple(check.cut_card(c, f"cut_cards[{i}]") for i, c in enumerate(cuts_raw))
    turned = doc.get("count_turned_card", True)
    if not isinstance(turned, bool):
        check.fail("count_turned_card", f"must be true or false, got {turned!r}")
    return Strategy(
        id=strategy_id,
        name=check.string(doc.get("name", strategy_id), "name"),
        source=check.string(doc.get("source", ""), "source"),
        description=check.string(doc.get("description", ""), "description"),
        counts=counts,
        bets=bets,
        cut_cards=cuts,
        path=label,
        sha256=hashlib.sha256(raw).hexdigest(),
        count_turned_card=turned,
    )


# --------------------------------------------------------------------------- running


@dataclasses.dataclass(frozen=True)
class _Resolved:
    """A strategy bound to a rule set and shoe: everything the kernel reads."""

    bet_ids: tuple[str, ...]
    plays: tuple[BetPlay, ...]
    count_names: tuple[str, ...]
    tags: np.ndarray  # (n_counts, 13) float64
    derived: dict  # count name -> CountTags
    count_of_bet: np.ndarray
    mode: np.ndarray
    threshold: np.ndarray
    min_edge: np.ndarray
    max_round: np.ndarray
    track_exact: np.ndarray
    net: np.ndarray  # (n_bets, N_CODES) int64, scaled
    scale: np.ndarray  # (n_bets,) int64
    solver: object  # FastSolver of the played bets
    skipped: tuple[str, ...]  # bets "*" left out (perfect play of a pay table with no fast solver)


def _resolve(strategy: Strategy, rules: Rules, composition: np.ndarray) -> _Resolved:
    from ._count_kernel import PLAY_ALWAYS, PLAY_PERFECT, PLAY_RUNNING_COUNT, PLAY_TRUE_COUNT
    from .fast import FastSolver

    label = strategy.path
    explicit = [p for p in strategy.bets if p.bet != "*"]
    for play in explicit:
        if play.bet not in rules.bet_ids:
            raise InvalidStrategy(f"{label}: bets.{play.bet}: no such bet in rule set {rules.id!r}; bets: "
                                  f"{', '.join(rules.bet_ids)}")
    wildcard = next((p for p in strategy.bets if p.bet == "*"), None)
    by_id = {p.bet: p for p in explicit}
    kinds = FastSolver(rules).kinds
    plays = []
    skipped = []
    for bet_id in rules.bet_ids:
        if bet_id in by_id:
            plays.append(by_id[bet_id])
        elif wildcard is not None:
            if wildcard.play == "perfect" and kinds[bet_id] == "general":
                skipped.append(bet_id)  # "*" means every bet that can be played this way
                continue
            plays.append(dataclasses.replace(wildcard, bet=bet_id))
    bet_ids = tuple(p.bet for p in plays)
    solver = FastSolver(rules, bet_ids)
    derived = {}
    tag_rows = []
    count_names = tuple(c.name for c in strategy.counts)
    for system in strategy.counts:
        if system.derive is None:
            tag_rows.append(system.tags)
            continue
        from .eor import derive_tags, effect_of_removal

        bet_id, level, by = system.derive
        if bet_id not in rules.bet_ids:
            raise InvalidStrategy(f"{label}: counts.{system.name}.derive.bet: no such bet {bet_id!r} in rule set "
                                  f"{rules.id!r}; bets: {', '.join(rules.bet_ids)}")
        try:
            tags = derive_tags(effect_of_removal(rules, composition, [bet_id]), bet_id, level, by)
        except ValueError as error:
            raise InvalidStrategy(f"{label}: counts.{system.name}.derive: {error}") from None
        derived[system.name] = tags
        tag_rows.append(tuple(float(t) for t in tags.tags))
    n = len(plays)
    mode = np.zeros(n, np.int64)
    threshold = np.zeros(n)
    count_of_bet = np.zeros(n, np.int64)
    for i, play in enumerate(plays):
        if play.play == "always":
            mode[i] = PLAY_ALWAYS
        elif play.play == "perfect":
            if kinds[play.bet] == "general":
                raise InvalidStrategy(f"{label}: bets.{play.bet}: perfect play needs a bet settled on scores only, "
                                      "pairs only or first cards only; this pay table mixes them")
            mode[i] = PLAY_PERFECT
        else:
            count_of_bet[i] = count_names.index(play.count)
            if play.running_count is not None:
                mode[i] = PLAY_RUNNING_COUNT
                threshold[i] = play.running_count
            else:
                mode[i] = PLAY_TRUE_COUNT
                if play.true_count == "auto":
                    if play.count not in derived:
                        raise InvalidStrategy(f"{label}: bets.{play.bet}.true_count: \"auto\" needs a derived count "
                                              f"(derive = {{...}}), not the given tags of {play.count!r}")
                    threshold[i] = derived[play.count].break_even_true_count
                else:
                    threshold[i] = play.true_count
    net = np.zeros((n, N_CODES), np.int64)
    scale = np.zeros(n, np.int64)
    for i, bet_id in enumerate(bet_ids):
        nets = rules.bet(bet_id).net_results(rules.commission.rate)
        factor = 1
        for value in set(nets):
            factor = math.lcm(factor, value.denominator)
        scale[i] = factor
        net[i] = [int(v * factor) for v in nets]
    max_round = np.array([rules.bet(b).max_round or 10**9 for b in bet_ids], np.int64)
    track = np.array([p.exact_edge and kinds[p.bet] != "general" for p in plays], np.int64)
    return _Resolved(bet_ids, tuple(plays), count_names,
                     np.array(tag_rows, np.float64).reshape(len(tag_rows), N_RANKS), derived, count_of_bet, mode,
                     threshold, np.array([p.min_edge for p in plays]), max_round, track, net, scale, solver,
                     tuple(skipped))


@dataclasses.dataclass
class CountResult:
    """Per bet, per cut-card scenario and per variant: how the strategy did.

    Attributes
    ----------
    run : dict
        Rule set, strategy, seed, shoes, threads, timing, scenarios.
    table : DataFrame
        One row per (scenario, bet, variant); see :func:`count_simulation`.
    derived : dict
        Count name to :class:`baccarat_sim.eor.CountTags` for derived counts.
    tags : dict
        Count name to the tag of every rank.
    codes : ndarray(int64, shape=(N_CODES,)) or None
        Outcome histogram of the rule set's cut-card scenario (``record_codes``).
    """

    run: dict
    table: pd.DataFrame
    derived: dict
    tags: dict
    codes: np.ndarray | None = None

    def to_dict(self) -> dict:
        """JSON-ready: ``{"run": ..., "counts": ..., "results": [...]}`` (fractions, not percents)."""
        counts = {}
        for name, tags in self.tags.items():
            entry = {"tags": dict(zip(RANK_NAMES, tags))}
            if name in self.derived:
                d = self.derived[name]
                entry.update(derived_from=d.bet, level=d.level, betting_correlation=d.betting_correlation,
                             break_even_true_count=d.break_even_true_count)
            counts[name] = entry
        records = []
        for _, row in self.table.iterrows():
            record = {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()}
            record["advantage_ci95"] = [record.pop("advantage_ci95_low"), record.pop("advantage_ci95_high")]
            record["units_per_shoe_ci95"] = [record.pop("units_per_shoe_ci95_low"),
                                             record.pop("units_per_shoe_ci95_high")]
            records.append(record)
        return clean_json({"run": self.run, "counts": counts, "results": records})

    def display_table(self) -> pd.DataFrame:
        """The table people read: percentages, rounded."""
        t = self.table
        shown = pd.DataFrame(index=t.index)
        shown["scenario"] = t["scenario"]
        shown["bet"] = t["bet"]
        shown["offered in"] = t["variant"]
        shown["play"] = t["play"]
        shown["bet freq"] = [f"{100 * v:.3f}% ±{100 * Z95 * se:.3f}" for v, se in zip(t["bet_share"],
                                                                                 t["bet_share_se"])]
        shown["adv/bet"] = [
            "" if math.isnan(a) else f"{100 * a:+.2f}% ±{100 * Z95 * se:.2f}" for a, se in zip(t["advantage_per_bet"],
                                                                                         t["advantage_se"])
        ]
        shown["exact adv/bet"] = ["" if math.isnan(v) else f"{100 * v:+.3f}% ±{100 * Z95 * se:.3f}"
                                  for v, se in zip(t["exact_advantage_per_bet"], t["exact_advantage_se"])]
        shown["units/shoe"] = [f"{u:+.4f} ±{Z95 * se:.4f}"
                               for u, se in zip(t["units_per_shoe"], t["units_per_shoe_se"])]
        shown["units/100 rounds"] = t["units_per_100_rounds"].map(lambda v: f"{v:+.4f}")
        return shown

    def header_lines(self) -> list[str]:
        """Human-readable header of the run."""
        r = self.run
        lines = [
            f"strategy   {r['strategy']} ({r['strategy_name']})",
            f"rule set   {r['rules']}, {r['cards']} cards, dealt to the cut card",
            f"shoes      {r['shoes']:,}    seed {r['seed']}    threads {r['threads']}",
            f"time       {r['seconds']:.2f} s, {r['rounds_per_second'] / 1e6:.3f} M rounds/s",
        ]
        for name, tags in self.tags.items():
            text = " ".join(f"{RANK_NAMES[k]}:{tags[k]:+g}" for k in range(N_RANKS))
            extra = ""
            if name in self.derived:
                d = self.derived[name]
                extra = (f"  (derived from {d.bet}, level {d.level}, betting correlation "
                         f"{d.betting_correlation:.3f}, break-even true count {d.break_even_true_count:+.2f})")
            lines.append(f"count      {name}: {text}{extra}")
        return lines

    def to_text(self) -> str:
        """Header and table as plain text."""
        return "\n".join(self.header_lines() + ["", self.display_table().to_string(index=False)])

    def to_csv(self) -> str:
        """The full table as CSV (one row per scenario, bet and variant; fractions, not percents)."""
        frame = self.table.copy()
        for key in ("rules", "strategy", "seed", "cards", "threads"):
            frame[key] = self.run.get(key)
        return frame.to_csv(index=False)

    @property
    def stem(self) -> str:
        """Stem of the result files, e.g. ``count-perfect-play-live-8deck-side-bets-seed1``."""
        return f"count-{self.run['strategy']}-{self.run['rules']}-seed{self.run['seed']}"

    def write(self, out_dir, plots: bool = True) -> list:
        """Write ``.json``, ``.csv``, ``.md`` (and a ``.png`` plot) into ``out_dir``; returns their paths."""
        import json
        from pathlib import Path

        out_dir = Path(out_dir)
        out_dir.mkdir(parents=True, exist_ok=True)
        written = []
        for suffix, text in ((".json", json.dumps(self.to_dict(), indent=2) + "\n"), (".csv", self.to_csv())):
            path = out_dir / f"{self.stem}{suffix}"
            path.write_text(text)
            written.append(path)
        markdown = self.to_markdown()
        if plots:
            from .plots import count_figure

            path = out_dir / f"{self.stem}.png"
            count_figure(self).savefig(path, dpi=120, format="png")
            written.append(path)
            markdown += f"\n![{path.stem}]({path.name})\n"
        path = out_dir / f"{self.stem}.md"
        path.write_text(markdown)
        written.append(path)
        return written

    def to_markdown(self) -> str:
        """Header and table as Markdown."""
        shown = self.display_table()
        header = "\n".join(f"- {line}" for line in self.header_lines())
        return f"## Counting: {self.run['strategy_name']}\n\n{header}\n\n{markdown_table(shown)}"


def _scenarios(rules: Rules, strategy: Strategy, cut_cards, n_cards: int, params: np.ndarray) -> np.ndarray:
    """Cut-card (low, high) of every scenario; row 0 is the rule set's own."""
    rows = [(int(params[14]), int(params[15]))]
    extra = strategy.cut_cards if cut_cards is None else tuple(
        (c, c) if isinstance(c, (int, np.integer)) else tuple(c) for c in cut_cards)
    _, most_burned = rules.shoe.cards_before_first_round()
    for low, high in extra:
        if not 0 <= low <= high or n_cards - high - most_burned < 6:
            raise InvalidStrategy(f"{strategy.path}: cut_cards: [{low}, {high}] cards from the end leaves no room "
                                  f"for a round in a {n_cards}-card shoe after burning up to {most_burned}")
        if (low, high) not in rows:
            rows.append((int(low), int(high)))
    return np.array(rows, np.int64)


def _describe_play(play: BetPlay, threshold: float) -> str:
    if play.play == "count":
        if play.running_count is not None:
            return f"count {play.count}, RC >= {threshold:g}"
        return f"count {play.count}, TC >= {threshold:.4g}"
    if play.play == "perfect":
        return "perfect play" + (f" (edge > {play.min_edge:g})" if play.min_edge else "")
    return "always"


def count_simulation(rules: Rules, strategy: Strategy, shoes: int, seed: int | None = None, *,
                     threads: int | None = None, shoe=None, cut_cards=None, progress: bool | None = False,
                     record_codes: bool = False) -> CountResult:
    """Deal ``shoes`` shoes to the cut card, playing each bet by the strategy.

    Parameters
    ----------
    rules : Rules
        The rule set: decks, burn, cut card, rounds after the cut, bets and their
        "Max Round Availability".
    strategy : Strategy
    shoes : int
        Shoes to deal.
    seed : int or None
        Master seed (None draws one; it is in ``result.run``).
    threads : int or None
        Kernel threads (None: numba's default); the result does not depend on it.
    shoe : int or ndarray(int64, shape=(13, 4)) or None
        Shoe composition before shuffling (default: the rule set's decks).
    cut_cards : iterable or None
        Extra cut-card positions (cards from the end, or (low, high)); None: the strategy's.
    progress : bool or None
        Show a progress bar (None: only on a terminal).
    record_codes : bool
        Keep the outcome histogram of the rule set's cut-card scenario.

    Returns
    -------
    CountResult
        ``table`` columns: ``scenario``, ``cut_card_from_end``, ``bet``, ``variant``,
        ``play``, ``shoes``, ``rounds``, ``rounds_per_shoe``, ``offered``, ``bets``,
        ``bet_share`` (bets per round dealt), ``advantage_per_bet`` and
        ``advantage_se`` / ``advantage_ci95_low`` / ``advantage_ci95_high``
        (measured net per unit bet), ``exact_advantage_per_bet`` (mean exact EV of
        the bets placed), ``units_per_shoe``, ``units_per_shoe_se`` and its 95% CI,
        ``units_per_100_rounds``, ``advantage_per_round``, ``ev_off_the_top``.

    Examples
    --------
    >>> from baccarat_sim import load_rules
    >>> rules = load_rules("default").with_shoe(model="dealt")
    >>> flat = parse_strategy('''
    ... schema_version = 1
    ... id = "flat"
    ... [[bets]]
    ... id = "tie"
    ... play = "always"
    ... ''')
    >>> result = count_simulation(rules, flat, shoes=32, seed=1)
    >>> int(result.table["shoes"].iloc[0])
    32
    """
    import numba

    from ._count_kernel import FLOAT_STATS, INT_STATS, SCENARIO_FLOAT, SCENARIO_INT, VARIANTS, count_blocks
    from ._progress import get_progress_bar
    from .exact import as_shoe
    from .simulate import SHOES_PER_BLOCK, canonical_cards, plan_run

    if isinstance(shoes, bool) or not isinstance(shoes, (int, np.integer)) or not 1 <= shoes <= 10**12:
        raise ValueError(f"shoes: must be a whole number from 1 to 1e12, got {shoes!r}")
    composition = as_shoe(rules.shoe.decks if shoe is None else shoe)
    plan = plan_run(rules, 1, seed, model="dealt", shoe=composition, by_position=False)
    params = np.array(plan.shoe_params, np.int64)
    n_cards = int(composition.sum())
    resolved = _resolve(strategy, rules, composition)
    if not resolved.bet_ids:
        raise InvalidStrategy(f"{strategy.path}: bets: none of the strategy's bets is in rule set {rules.id!r}")
    scenarios = _scenarios(rules, strategy, cut_cards, n_cards, params)
    packed = resolved.solver.packed_arrays()
    n_s, n_b = len(scenarios), len(resolved.bet_ids)
    k_int = SCENARIO_INT * n_s + n_s * n_b * VARIANTS * INT_STATS
    k_float = SCENARIO_FLOAT * n_s + n_s * n_b * VARIANTS * FLOAT_STATS
    seed = plan.seed
    total_blocks = -(-int(shoes) // SHOES_PER_BLOCK)
    last_shoes = int(shoes) - (total_blocks - 1) * SHOES_PER_BLOCK
    blocks_per_chunk = max(1, min(64, -(-total_blocks // 32)))
    if threads is not None:
        numba.set_num_threads(threads)
    used_threads = numba.get_num_threads()
    totals_int = np.zeros(k_int, np.int64)
    totals_float = np.zeros(k_float)
    codes_total = np.zeros(N_CODES, np.int64) if record_codes else None
    canonical = canonical_cards(composition)
    kernel_args = (
        int(rules.shoe.burn == "face_value" and strategy.count_turned_card), scenarios, resolved.tags,
        resolved.count_of_bet, resolved.mode, resolved.threshold, resolved.min_edge, resolved.max_round,
        resolved.track_exact, resolved.net,
        (packed["v_rows"], packed["p_rows"], packed["f_rows"]),
        (packed["v_scale"], packed["p_scale"], packed["f_scale"]), packed["v_max"],
        (packed["v_bet"], packed["p_bet"], packed["f_bet"]),
    )
    started = time.perf_counter()
    kernel_seconds = 0.0
    with get_progress_bar(progress, int(shoes), unit="shoe") as bar:
        for first in range(0, total_blocks, blocks_per_chunk):
            n_blocks = min(blocks_per_chunk, total_blocks - first)
            stats_int = np.zeros((n_blocks, k_int), np.int64)
            stats_float = np.zeros((n_blocks, k_float))
            codes = np.zeros((n_blocks, N_CODES if record_codes else 1), np.int64)
            tick = time.perf_counter()
            count_blocks(canonical, np.uint64(seed), np.uint64(seed ^ AUX_SALT), first, n_blocks, SHOES_PER_BLOCK,
                         last_shoes, total_blocks, params, *kernel_args, stats_int, stats_float, codes)
            kernel_seconds += time.perf_counter() - tick
            totals_int += stats_int.sum(axis=0)
            for row in stats_float:  # in block order: the same sums for any number of threads
                totals_float += row
            if record_codes:
                codes_total += codes.sum(axis=0)
            bar.update(int(stats_int[:, 0].sum()))
    wall = time.perf_counter() - started
    table = _table(resolved, composition, scenarios, totals_int, totals_float)
    rounds = int(totals_int[1])
    run = {
        "rules": rules.id,
        "rules_sha256": rules.sha256,
        "strategy": strategy.id,
        "strategy_name": strategy.name,
        "strategy_source": strategy.source,
        "strategy_sha256": strategy.sha256,
        "cards": n_cards,
        "burn": rules.shoe.burn,
        "count_turned_card": bool(rules.shoe.burn == "face_value" and strategy.count_turned_card),
        "rounds_after_cut": rules.shoe.rounds_after_cut,
        "shoes": int(shoes),
        "rounds": rounds,
        "seed": seed,
        "threads": used_threads,
        "seconds": wall,
        "kernel_seconds": kernel_seconds,
        "rounds_per_second": rounds / kernel_seconds if kernel_seconds else None,
        "scenarios": [{"cut_card_from_end": [int(lo), int(hi)]} for lo, hi in scenarios],
        "skipped_bets": list(resolved.skipped),
    }
    tags = {name: tuple(float(t) for t in row) for name, row in zip(resolved.count_names, resolved.tags)}
    return CountResult(run, table, resolved.derived, tags, codes_total)


def _ratio(total_x: float, total_y: float, sum_x2: float, sum_xy: float, sum_y2: float, shoes: int):
    """Ratio estimate ``sum x / sum y`` over independent shoes and its standard error (delta method)."""
    ratio = total_x / total_y
    if shoes < 2:
        return ratio, math.nan
    residual = max(sum_x2 - 2 * ratio * sum_xy + ratio * ratio * sum_y2, 0.0)
    return ratio, math.sqrt(shoes / (shoes - 1) * residual) / total_y


def _table(resolved: _Resolved, composition: np.ndarray, scenarios: np.ndarray, ints: np.ndarray,
           floats: np.ndarray) -> pd.DataFrame:
    from ._count_kernel import FLOAT_STATS, INT_STATS, SCENARIO_FLOAT, SCENARIO_INT, VARIANTS

    n_s, n_b = len(scenarios), len(resolved.bet_ids)
    off_the_top = resolved.solver.ev(composition)
    rows = []
    for s, (low, high) in enumerate(scenarios):
        shoes = int(ints[SCENARIO_INT * s])
        rounds = int(ints[SCENARIO_INT * s + 1])
        cut_text = f"{low}" if low == high else f"{low}-{high}"
        label = f"cut card {cut_text} from end" + (" (rule set)" if s == 0 else "")
        for b, bet_id in enumerate(resolved.bet_ids):
            max_round = int(resolved.max_round[b])
            for v in range(VARIANTS):
                if v == 1 and max_round >= 10**9:
                    continue
                ci = SCENARIO_INT * n_s + ((s * n_b + b) * VARIANTS + v) * INT_STATS
                cf = SCENARIO_FLOAT * n_s + ((s * n_b + b) * VARIANTS + v) * FLOAT_STATS
                offered, bets, net_scaled = (int(x) for x in ints[ci:ci + 3])
                scale = float(resolved.scale[b])
                net = net_scaled / scale
                sum_x2, sum_y2, sum_xy, sum_ev, sum_e2, sum_ey = floats[cf:cf + 6]
                sum_x2 /= scale * scale
                sum_xy /= scale
                mean = net / shoes
                var_shoe = max(sum_x2 - shoes * mean * mean, 0.0) / (shoes - 1) if shoes > 1 else math.nan
                se_shoe = math.sqrt(var_shoe / shoes) if shoes > 1 else math.nan
                bets_per_shoe = bets / shoes
                var_bets = max(sum_y2 - shoes * bets_per_shoe ** 2, 0.0) / (shoes - 1) if shoes > 1 else math.nan
                share_se = math.sqrt(var_bets / shoes) / (rounds / shoes) if rounds and shoes > 1 else math.nan
                ratio = se_ratio = exact = exact_se = math.nan
                if bets:
                    ratio, se_ratio = _ratio(net, bets, sum_x2, sum_xy, sum_y2, shoes)
                    if resolved.track_exact[b]:
                        exact, exact_se = _ratio(sum_ev, bets, sum_e2, sum_ey, sum_y2, shoes)
                rows.append({
                    "scenario": label,
                    "cut_card_from_end": cut_text,
                    "bet": bet_id,
                    "variant": "all rounds" if v == 0 else f"rounds 1-{max_round}",
                    "max_round": max_round if v == 1 else None,
                    "play": _describe_play(resolved.plays[b], resolved.threshold[b]),
                    "shoes": shoes,
                    "rounds": rounds,
                    "rounds_per_shoe": rounds / shoes,
                    "offered": offered,
                    "bets": bets,
                    "bet_share": bets / rounds if rounds else math.nan,
                    "bet_share_se": share_se,
                    "advantage_per_bet": ratio,
                    "advantage_se": se_ratio,
                    "advantage_ci95_low": ratio - Z95 * se_ratio,
                    "advantage_ci95_high": ratio + Z95 * se_ratio,
                    "exact_advantage_per_bet": exact,
                    "exact_advantage_se": exact_se,
                    "units_per_shoe": mean,
                    "units_per_shoe_se": se_shoe,
                    "units_per_shoe_ci95_low": mean - Z95 * se_shoe,
                    "units_per_shoe_ci95_high": mean + Z95 * se_shoe,
                    "units_per_100_rounds": 100 * net / rounds if rounds else math.nan,
                    "advantage_per_round": net / rounds if rounds else math.nan,
                    "ev_off_the_top": float(off_the_top[bet_id]),
                })
    return pd.DataFrame(rows)
