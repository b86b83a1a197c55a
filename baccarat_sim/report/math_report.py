"""The math report as JSON (a contract: ``docs/reference/schemas/math-report.schema.json``) and Markdown.

Renders a :class:`~baccarat_sim.analysis.math_report.MathReport`; computes
nothing. The PDF (:mod:`baccarat_sim.report.pdf`) and the workbook
(:mod:`baccarat_sim.report.workbook`) read the same dictionary, so that the four
files say the same thing.
"""

from __future__ import annotations

import dataclasses
import json
import math
from fractions import Fraction

from ..analysis.check import FAIL_Z
from ..analysis.math_report import DESIRABILITY_INDEX_DEFINITION, HOLD_HORIZONS, ONE_IN_LIMIT, VOLATILITY_LEVELS
from ..model.cards import RANK_NAMES
from .render import clean_json, markdown_table

__all__ = ["SCHEMA_VERSION", "STRATEGY_FILE", "Submission", "build_manifest", "dealing_lines", "fraction_text",
           "math_report_dict", "math_report_json", "math_report_markdown", "pays_notation", "percent"]

#: Version of the JSON contract; a field keeps its name and meaning within a version.
SCHEMA_VERSION = 1
#: The name of the counting study's strategy file among the report's files (after the rule set's id).
STRATEGY_FILE = "-derived-counts.toml"
#: Libraries whose versions the manifest records (those the figures or the files depend on).
LIBRARIES = ("numpy", "numba", "pandas", "matplotlib", "xlsxwriter", "typst")


@dataclasses.dataclass(frozen=True, eq=False)
class Submission:
    """What the report files render: the figures, and the manifest that says how to reproduce them.

    Attributes
    ----------
    result : MathReport
    manifest : dict
        :func:`build_manifest`.
    """

    result: object
    manifest: dict

    @property
    def strategy_file(self) -> str | None:
        """The counting study's strategy file name among the report's files (None: no study)."""
        return None if self.result.count_strategy is None else self.result.rules.id + STRATEGY_FILE


def _library_versions() -> dict:
    from importlib import metadata

    versions = {}
    for name in LIBRARIES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def build_manifest(result, command_line: str, commands: dict) -> dict:
    """The reproducibility manifest of a math report.

    Parameters
    ----------
    result : MathReport
    command_line : str
        The command that wrote the report (it reproduces every figure).
    commands : dict of str to str
        The other commands that give each part's figures on their own.
    """
    import datetime
    import platform
    import sys

    from .._version import __version__

    return {
        "package": "baccarat_sim",
        "package_version": __version__,
        "random_stream_version": result.stream_version,
        "rules_id": result.rules.id,
        "rules_file": result.rules.path,
        "rules_sha256": result.rules.sha256,
        "seed": result.seed,
        "rounds": result.sizes.rounds,
        "count_shoes": result.sizes.count_shoes,
        "sweep_rounds": result.sizes.sweep_rounds,
        "threads": result.threads,
        "command_line": command_line,
        "commands": dict(commands),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "machine": platform.machine(),
        "libraries": _library_versions(),
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }


def fraction_text(value: Fraction | None) -> str | None:
    """An exact fraction as ``"p/q"`` (``"-1/2"``, ``"3"``)."""
    return None if value is None else str(Fraction(value))


def percent(value: float | None, digits: int = 4) -> str:
    """``0.0123456`` as ``"1.2346%"`` (``"n/a"`` for None or NaN)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    return f"{100 * float(value):.{digits}f}%"


def pays_notation(bet) -> str:
    """How the bet's payouts read: "to one" (net win) or "for one" (the stake included), from its lines."""
    texts = [case.pays for case in bet.cases]
    if any(" for " in text for text in texts):
        return "for one (the payout includes the stake)"
    return "to one (the payout is the net win; the stake is returned)"


def dealing_lines(rules, composition=None) -> list[str]:
    """The dealing assumptions in words: decks, shuffle, burn, cut card, rounds after it."""
    from ..model.shoe import describe_shoe

    shoe = rules.shoe
    cards = describe_shoe(composition) if composition is not None else f"{shoe.decks} decks ({shoe.n_cards} cards)"
    lines = [f"Shoe: {cards}."]
    if shoe.model == "fresh":
        lines.append("Shuffle: the cards are shuffled before every round (a continuous shuffler or a fresh shoe); "
                     "every figure is off the top of a full shoe.")
    else:
        cut = shoe.cut_card
        where = f"{cut.low}" if cut.low == cut.high else f"{cut.low} to {cut.high} (uniformly)"
        lines.append(f"Shuffle: the shoe is shuffled once and dealt through to the cut card, {where} cards from the "
                     f"end; {'one more round is' if shoe.rounds_after_cut else 'no round is'} dealt after the round "
                     "in which it comes out.")
    burn = {"none": "no cards are burned", "fixed": f"{shoe.burn_cards} cards are burned at the start of the shoe",
            "face_value": f"a card is turned and as many cards burned as its value (a ten or face card: "
                          f"{shoe.ten_value}){'; the turned card is discarded too' if shoe.discard_turned else ''}"}
    lines.append(f"Burn: {burn.get(shoe.burn, shoe.burn)}.")
    if rules.commission.rate and any(case.commission for bet in rules.bets for case in bet.cases):
        lines.append(f"Commission: {float(rules.commission.rate):.0%} of a winning Banker bet"
                     + ("" if rules.commission.rounding == "none" else
                        f", rounded {rules.commission.rounding}") + ".")
    return lines


def _line(row, divisor) -> dict:
    return {
        "event": row.event,
        "when": row.when,
        "pays": row.pays,
        "net": float(row.net),
        "net_exact": fraction_text(row.net),
        "per_meter": float(row.per_meter),
        "combinations": row.combinations,
        "four_card_sets": None if divisor is None else row.combinations // divisor,
        "probability": float(row.probability),
        "return": float(row.contribution),
        "one_in": row.one_in,
        "jackpot": row.jackpot,
        "meets_1_in_100_million": row.meets_one_in_limit,
    }


def _jackpot(figures) -> dict | None:
    if figures is None:
        return None
    def to_float(value):
        return None if value is None else float(value)

    return {"unit": figures.unit, "meter": float(figures.meter), "reset": to_float(figures.reset),
            "contribution": to_float(figures.contribution), "base": float(figures.base),
            "base_exact": fraction_text(figures.base), "slope": float(figures.slope),
            "slope_exact": fraction_text(figures.slope), "break_even_meter": to_float(figures.break_even_meter),
            "rtp_at_reset": to_float(figures.rtp_at_reset), "long_run_rtp": to_float(figures.long_run_rtp),
            "jackpot_probability": float(figures.jackpot_probability)}


def _count(section) -> dict | None:
    if section is None:
        return None
    tags, row = section.tags, section.row
    out = {"skipped": section.skipped, "variant": None if row is None else row["variant"], "tags": None,
           "level": None, "betting_correlation": None,
           "break_even_true_count": None, "bet_share": None, "advantage_per_bet": None, "advantage_se": None,
           "units_per_100_rounds": None, "units_per_100_rounds_se": None, "units_per_shoe": None,
           "units_per_shoe_se": None, "rounds_per_shoe": None, "desirability_index": None}
    if tags is not None:
        out.update(tags={RANK_NAMES[r]: int(t) for r, t in enumerate(tags.tags)}, level=tags.level,
                   betting_correlation=tags.betting_correlation, break_even_true_count=tags.break_even_true_count)
    if row is not None:
        out.update(bet_share=row["bet_share"], advantage_per_bet=row["advantage_per_bet"],
                   advantage_se=row["advantage_se"], units_per_100_rounds=row["units_per_100_rounds"],
                   units_per_100_rounds_se=section.units_per_100_rounds_se,
                   units_per_shoe=row["units_per_shoe"], units_per_shoe_se=row["units_per_shoe_se"],
                   rounds_per_shoe=row["rounds_per_shoe"], desirability_index=section.desirability_index)
    return out


def _positions(report, bet_id: str) -> dict | None:
    from . import positions as positions_report

    analysis = report.run.positions
    return None if analysis is None else positions_report.bet_fields(analysis, bet_id)


def _bet(report, section) -> dict:
    bet, result, figures = section.bet, section.result, section.figures
    divisor = section.four_card_divisor
    decks = report.decks
    return {
        "id": bet.id,
        "name": bet.name,
        "description": " ".join(bet.description.split()),
        "notation": pays_notation(bet),
        "stake": None if bet.stake is None else float(bet.stake),
        "max_round": bet.max_round,
        "stated_rtp": bet.stated_rtp,
        "combinations": {
            "total": section.total,
            "four_card_divisor": divisor,
            "four_card_total": None if divisor is None else section.total // divisor,
            "lines": [_line(row, divisor) for row in section.lines],
        },
        "rtp": result.rtp,
        "house_edge": result.house_edge,
        "ev_exact": fraction_text(result.ev_exact),
        "hit_frequency": result.hit_frequency,
        "push_frequency": result.push_frequency,
        "sd": result.sd,
        "volatility_index": {str(level): value for level, value in section.volatility.items()},
        "jackpot": _jackpot(section.jackpot),
        "house_edge_by_shoe": None if decks is None else
        {label: float(edge) for label, edge in zip(decks.shoes, decks.house_edge[bet.id])},
        "hold": [{"rounds": row.rounds, "kind": row.kind, "hold_mean": row.hold_mean,
                  "central_90": list(row.central_90), "central_95": list(row.central_95),
                  "central_99": list(row.central_99), "error_bound": row.error_bound} for row in section.hold],
        "eor_by_rank": None if section.eor_by_rank is None else
        {RANK_NAMES[r]: None if e is None else float(e) for r, e in enumerate(section.eor_by_rank)},
        "count": _count(section.count),
        "monte_carlo": {"rtp": figures.rtp, "se": figures.se, "ci95_low": figures.ci95_low,
                        "ci95_high": figures.ci95_high, "z": figures.z,
                        "passed": None if math.isnan(figures.z) else bool(abs(figures.z) < FAIL_Z)},
        "positions": _positions(report, bet.id),
    }


def math_report_dict(report) -> dict:
    """The JSON object of the math report (see the schema)."""
    from . import positions as positions_report

    rules, run = report.result.rules, report.result.run
    mc = run.mc
    figures = [s.figures for s in report.result.sections]
    zs = [f.z for f in figures if not math.isnan(f.z)]
    return clean_json({
        "schema_version": SCHEMA_VERSION,
        "rules": {"id": rules.id, "name": rules.name, "source": rules.source, "path": rules.path,
                  "sha256": rules.sha256, "description": " ".join(rules.description.split()),
                  "assumptions": list(rules.assumptions)},
        "dealing": {"decks": run.run.get("decks"), "cards": int(run.exact.shoe.sum()), "model": rules.shoe.model,
                    "burn": rules.shoe.burn, "cut_card": [rules.shoe.cut_card.low, rules.shoe.cut_card.high],
                    "rounds_after_cut": rules.shoe.rounds_after_cut,
                    "statements": dealing_lines(rules, run.exact.shoe)},
        "combinations_unit": "ordered deals of the six cards a round can use (416 x 415 x ... x 411 for 8 decks); "
                             "a bet on the first four cards also in unordered four-card sets",
        "bets": [_bet(report.result, s) for s in report.result.sections],
        "decks": None if report.result.decks is None else
        {"shoes": list(report.result.decks.shoes), "own": report.result.decks.own},
        "hold_horizons": list(HOLD_HORIZONS),
        "volatility_levels": list(VOLATILITY_LEVELS),
        "one_in_limit": ONE_IN_LIMIT,
        "desirability_index_definition": DESIRABILITY_INDEX_DEFINITION,
        "counting": None if report.result.counting is None else {
            "shoes": report.result.counting.run["shoes"], "rounds": report.result.counting.run["rounds"],
            "seed": report.result.counting.run["seed"], "strategy_file": report.strategy_file},
        "monte_carlo": {"rounds": mc.rounds, "shoes": mc.shoes, "seed": mc.seed, "model": mc.model,
                        "threads": run.run.get("threads"), "fail_z": FAIL_Z,
                        "passed": bool(all(abs(z) < FAIL_Z for z in zs)), "max_abs_z": max(map(abs, zs), default=None)},
        "sweep": None if report.result.sweep is None else positions_report.sweep_dict(report.result.sweep),
        "sizes": {"rounds": report.result.sizes.rounds, "count_shoes": report.result.sizes.count_shoes,
                  "sweep_rounds": report.result.sizes.sweep_rounds},
        "skipped": list(report.result.skipped),
        "timings": report.result.timings,
        "notes": list(report.result.notes),
        "manifest": report.manifest,
    })


def math_report_json(report) -> str:
    """:func:`math_report_dict` as indented JSON text."""
    return json.dumps(math_report_dict(report), indent=2)


def _md_cell(value) -> str:
    return str(value).replace("|", "\\|")


def math_report_markdown(report) -> str:
    """The math report as Markdown: every section of the PDF, as tables."""
    data = math_report_dict(report)
    rules = data["rules"]
    out = [f"# Math report: {rules['name']}", "", f"Rule set `{rules['id']}` ({rules['path']}, SHA-256 "
           f"`{rules['sha256']}`). Source: {rules['source']}", "", "## Dealing assumptions", ""]
    out += [f"- {line}" for line in data["dealing"]["statements"]]
    out += [f"- {line}" for line in rules["assumptions"]]
    out += ["", f"Combinations are {data['combinations_unit']}.", ""]
    for bet in data["bets"]:
        out += _bet_markdown(bet, data)
    if data["decks"] is not None:
        out += ["## House edge by deck count", "", markdown_table(_deck_frame(data)), ""]
    mc = data["monte_carlo"]
    out += ["## Monte Carlo verification", "",
            f"{mc['rounds']:,} rounds, seed {mc['seed']}, {mc['model']} model; a bet passes when |z| < "
            f"{mc['fail_z']}: {'every bet passes' if mc['passed'] else 'FAILED'}.", ""]
    out += ["## Reproducibility manifest", ""]
    for key, value in data["manifest"].items():
        if isinstance(value, dict):
            out += [f"- **{key}**:"] + [f"    - {k}: `{_md_cell(v)}`" for k, v in value.items()]
        else:
            out.append(f"- **{key}**: `{_md_cell(value)}`")
    return "\n".join(out).rstrip() + "\n"


def _deck_frame(data: dict):
    import pandas as pd

    shoes = data["decks"]["shoes"]
    return pd.DataFrame({"shoe": [s + (" (reported)" if s == data["decks"]["own"] else "") for s in shoes],
                         **{bet["id"]: [percent(bet["house_edge_by_shoe"][s]) for s in shoes]
                            for bet in data["bets"]}})


def _bet_markdown(bet: dict, data: dict) -> list[str]:
    import pandas as pd

    combos = bet["combinations"]
    rows = [{"event": line["event"], "pays": line["pays"], "combinations": f"{line['combinations']:,}",
             **({"four-card sets": f"{line['four_card_sets']:,}"} if combos["four_card_divisor"] else {}),
             "probability": f"{line['probability']:.10f}", "return": f"{line['return']:.10f}",
             "1 in": "" if line["one_in"] is None else f"{line['one_in']:,.1f}"} for line in combos["lines"]]
    rows.append({"event": "total", "pays": "", "combinations": f"{combos['total']:,}",
                 **({"four-card sets": f"{combos['four_card_total']:,}"} if combos["four_card_divisor"] else {}),
                 "probability": "1", "return": f"{-bet['house_edge']:.10f}", "1 in": ""})
    out = [f"## {bet['name']} (`{bet['id']}`)", "", bet["description"], "", f"Payouts: {bet['notation']}.", "",
           markdown_table(pd.DataFrame(rows)), "",
           f"RTP {percent(bet['rtp'])}, house edge {percent(bet['house_edge'])} (exact EV {bet['ev_exact']}), "
           f"hit frequency {percent(bet['hit_frequency'])}, push frequency {percent(bet['push_frequency'])}, SD "
           f"{bet['sd']:.4f}, volatility index " + ", ".join(f"{v:.3f} at {k}%" for k, v in
                                                             bet["volatility_index"].items()) + ".", ""]
    for line in combos["lines"]:
        if line["jackpot"]:
            verdict = "meets" if line["meets_1_in_100_million"] else "does NOT meet"
            out += [f"- Jackpot line {line['event']}: 1 in {line['one_in']:,.0f}; {verdict} the 1 in "
                    f"{data['one_in_limit']:,} rule."]
    jackpot = bet["jackpot"]
    if jackpot is not None:
        out += [f"- RTP = {jackpot['base']:.8f} + {jackpot['slope']:.6g} x meter ({jackpot['unit']}); break-even "
                f"meter {jackpot['break_even_meter']}; RTP at reset {jackpot['rtp_at_reset']}; long-run RTP "
                f"{jackpot['long_run_rtp']}.", ""]
    hold = pd.DataFrame([{"rounds": f"{h['rounds']:,}", "mean hold": percent(h["hold_mean"]),
                          **{f"central {level}%": f"{percent(h[f'central_{level}'][0], 2)} to "
                                                  f"{percent(h[f'central_{level}'][1], 2)}" for level in (90, 95, 99)}}
                         for h in bet["hold"]])
    if bet["hold"]:
        out += ["### Hold confidence", "", markdown_table(hold), ""]
    count = bet["count"]
    if count is not None:
        if count["skipped"]:
            out += [f"Countability: not counted ({count['skipped']}).", ""]
        else:
            out += ["### Countability", "",
                    f"Derived level-{count['level']} tags " + ", ".join(f"{k} {v:+d}" for k, v in count["tags"].items())
                    + f"; betting correlation {count['betting_correlation']:.3f}; bet at true count >= "
                    f"{count['break_even_true_count']:.3f}. Bet in {percent(count['bet_share'], 3)} of rounds, "
                    f"advantage when bet {percent(count['advantage_per_bet'], 3)} +- "
                    f"{percent(count['advantage_se'], 3)}, {_num(count['units_per_100_rounds'], '.4f')} +- "
                    f"{_num(count['units_per_100_rounds_se'], '.4f')} units per 100 rounds, "
                    f"{_num(count['units_per_shoe'], '.4f')} +- {_num(count['units_per_shoe_se'], '.4f')} "
                    "units per shoe, "
                    f"Desirability Index {_num(count['desirability_index'])}.", ""]
    mc = bet["monte_carlo"]
    out += [f"Monte Carlo: RTP {percent(mc['rtp'])}, 95% CI {percent(mc['ci95_low'])} to {percent(mc['ci95_high'])}, "
            f"z {_num(mc['z'], '+.2f')}: {'pass' if mc['passed'] else 'n/a' if mc['passed'] is None else 'FAIL'}.",
            ""]
    return out


def _num(value, spec: str = ".3f") -> str:
    return "n/a" if value is None or (isinstance(value, float) and math.isnan(value)) else format(value, spec)
