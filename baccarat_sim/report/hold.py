"""What a table does over N rounds, rendered: text, Markdown, CSV, the JSON contract, and the file set.

The JSON document (``--format json``, and the ``.json`` file) is the contract
for scripts: top level ``rules``, ``slip`` and ``horizons`` (one entry per
number of rounds, with ``rounds``, ``mean``, ``sd``, ``p_house_behind``,
``quantiles`` keyed ``"0.001"`` to ``"0.999"``, ``hold_range_95``,
``hold_range_99`` and ``method``), then ``observed`` (the observed-hold
verdict) and ``sessions`` (player sessions) when asked for, and ``run``.
Amounts are in the stakes' chips, holds and probabilities are fractions (not
percents).
"""

from __future__ import annotations

import json
import math
import textwrap
from pathlib import Path

import pandas as pd

from .._version import __version__
from ..analysis.hold import QUANTILE_LEVELS, HoldAnalysis, HoldSummary, ObservedVerdict, SessionStudy
from ..analysis.sessions import SessionOutcome
from ..model.amounts import chips_text, percent_text
from ..model.shoe import deck_count, describe_shoe
from . import hold_plots
from .files import figure_writer, text_writer, write_files
from .render import clean_json, csv_text, markdown_table, terminal_text, text_table

__all__ = [
    "SESSION_QUANTILES",
    "handle_note",
    "hold_csv",
    "hold_dict",
    "hold_markdown",
    "hold_stem",
    "hold_text",
    "horizons_frame",
    "sessions_frame",
    "write_hold_files",
]

#: Quantile levels reported for a session's final result and length.
SESSION_QUANTILES = (0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99)


def _key(q: float) -> str:
    return f"{q:g}"


def _num(value) -> float | None:
    return None if value is None else float(value)


def _probability_text(p: float) -> str:
    """A probability readable at any size: fixed point in the middle, scientific in the far tails."""
    if p == 0 or 1e-4 <= p <= 1 - 1e-4:
        return f"{p:.6f}"
    return f"{p:.3e}" if p < 0.5 else f"1 - {1 - p:.3e}"


def stated_probability(p) -> str:
    """A :class:`Probability` as text: its value, ``±`` its 95% half-width (Monte Carlo), or a bound.

    An exact figure below its error bound is shown as the bound (``<= 1.4e-10``): the digits below it are not
    proven.
    """
    if p.ci95 is not None:
        return f"{_probability_text(p.value)} ±{p.error:.4f}"
    if p.value < p.error:
        return f"<= {p.value + p.error:.1e}"
    if 1 - p.value < p.error:
        return f">= 1 - {1 - p.value + p.error:.1e}"
    return _probability_text(p.value)


def _slip_words(analysis: HoldAnalysis) -> str:
    return " + ".join(f"{bet_id} {chips_text(stake)}" for bet_id, stake in analysis.slip.stakes.items())


# --------------------------------------------------------------------------- JSON


def _rules_dict(analysis: HoldAnalysis) -> dict:
    slip = analysis.slip
    rules = slip.rules
    # The jackpot meters the slip's bets are settled at (in each rule file's unit); only where a bet has a jackpot.
    meters = {bet.id: float(bet.meter) for bet in rules.bets if bet.jackpot is not None}
    return {
        "id": rules.id,
        "name": rules.name,
        "source": rules.source,
        "path": rules.path,
        "sha256": rules.sha256,
        "model": slip.model,
        "decks": deck_count(slip.composition),
        "cards": int(slip.composition.sum()),
        "shoe": describe_shoe(slip.composition),
        "removed": analysis.run.get("removed"),
        "commission": {"rate": float(rules.commission.rate), "rounding": rules.commission.rounding},
        "assumptions": list(rules.assumptions),
    } | ({"jackpot_meters": meters} if meters else {})


def _slip_dict(analysis: HoldAnalysis) -> dict:
    slip = analysis.slip
    player = slip.player
    house_mean = -player.mean
    return {
        "stakes": {bet_id: float(stake) for bet_id, stake in slip.stakes.items()},
        "total_stake": float(slip.total_stake),
        "unit": float(slip.unit),
        "mean": float(house_mean),
        "sd": player.sd,
        "house_edge": float(slip.house_edge),
        "rounded_commission": slip.rounded_commission,
        "max_round_bets": [{"bet": bet_id, "max_round": round_} for bet_id, round_ in slip.bets_with_max_round],
        "one_round": [{"house_result": float(-value), "probability": weight / player.total,
                       "weight": weight, "total_weight": player.total}
                      for value, weight in zip(reversed(player.values), reversed(player.weights))],
        "method": "exact: the settlement layer's nets per outcome over every card ordering of a freshly shuffled shoe",
    }


def _probability_dict(p) -> dict:
    return {"value": p.value, "error": p.error, "ci95": None if p.ci95 is None else list(p.ci95)}


def _horizon_dict(summary: HoldSummary) -> dict:
    quantiles = {_key(q.q): _num(q.value) for q in summary.quantiles}
    return {
        "rounds": summary.n_rounds,
        "handle": float(summary.handle),
        "mean": float(summary.mean),
        "mean_ci95": None if summary.mean_ci95 is None else list(summary.mean_ci95),
        "sd": summary.sd,
        "p_house_behind": summary.p_house_behind.value,
        "p_house_behind_ci95": None if summary.p_house_behind.ci95 is None else list(summary.p_house_behind.ci95),
        "p_house_behind_by": [{"k": float(k), "p": p.value, "ci95": None if p.ci95 is None else list(p.ci95)}
                              for k, p in summary.p_behind_by],
        "quantiles": quantiles,
        "quantile_brackets": {_key(q.q): [_num(q.low), _num(q.high)] for q in summary.quantiles},
        "hold_mean": summary.hold_mean,
        "hold_quantiles": {_key(q.q): summary.hold(q.value) for q in summary.quantiles},
        "hold_range_95": list(summary.hold_range_95),
        "hold_range_99": list(summary.hold_range_99),
        "result_range_95": [_num(q.value) for q in summary.central_95],
        "result_range_99": [_num(q.value) for q in summary.central_99],
        "error_bound": summary.error_bound,
        "kind": summary.kind,
        "method": summary.method,
    }


def _observed_dict(verdict: ObservedVerdict, level: int) -> dict:
    return {
        "rounds_played": verdict.n_rounds,
        "win": float(verdict.win),
        "handle": float(verdict.handle),
        "hold": float(verdict.hold),
        "model_win": float(verdict.model_win),
        "percentile": verdict.percentile,
        "p_at_most": _probability_dict(verdict.p_at_most),
        "p_at_least": _probability_dict(verdict.p_at_least),
        "p_two_sided": verdict.p_two_sided.value,
        "range_95": list(verdict.range_95),
        "range_99": list(verdict.range_99),
        "inside_95": verdict.inside_95,
        "inside_99": verdict.inside_99,
        "range_checked": level,
        "outside": not verdict.inside(level),
        "method": verdict.method,
        "slip_handle": _num(verdict.slip_handle),
        "handle_rescaled": verdict.handle_rescaled,
    }


def _estimate_dict(estimate) -> dict:
    return {"value": estimate.value, "se": estimate.se, "ci95": [estimate.ci_low, estimate.ci_high]}


def _outcome_dict(outcome: SessionOutcome) -> dict:
    return {
        **{name: _estimate_dict(getattr(outcome, name))
           for name in ("p_goal", "p_stop_loss", "p_ruin", "p_limit", "mean_final", "mean_length")},
        "final_quantiles": {_key(q): float(outcome.final_quantile(q)) for q in SESSION_QUANTILES},
        "length_quantiles": {_key(q): outcome.length_quantile(q) for q in SESSION_QUANTILES},
        "sessions": outcome.n_sessions,
        "rounds": outcome.rounds,
        "seed": outcome.seed,
        "model": outcome.model,
        "complete": outcome.complete,
        "method": outcome.method,
    }


def _sessions_dict(study: SessionStudy) -> dict:
    rules = study.rules
    return {
        "bankroll": float(rules.bankroll),
        "stop_loss": _num(rules.stop_loss),
        "stop_win": _num(rules.stop_win),
        "max_rounds": rules.max_rounds,
        "cost": float(study.monte_carlo.bounds.cost),
        "monte_carlo": _outcome_dict(study.monte_carlo),
        "exact": None if study.exact is None else _outcome_dict(study.exact),
        "z": study.z_scores(),
        "bankroll_curve": [{"bankroll": float(p.bankroll), "p_ruin": p.p_ruin, "p_goal": p.p_goal,
                            "p_stop_loss": p.p_stop_loss, "exact": p.exact} for p in study.curve],
    }


def hold_dict(analysis: HoldAnalysis, check_range: int = 95) -> dict:
    """The JSON contract (fractions, not percents; amounts in chips)."""
    document = {
        "rules": _rules_dict(analysis),
        "slip": _slip_dict(analysis),
        "horizons": [_horizon_dict(s) for s in analysis.horizons],
    }
    if analysis.observed is not None:
        document["observed"] = _observed_dict(analysis.observed, check_range)
    if analysis.sessions is not None:
        document["sessions"] = _sessions_dict(analysis.sessions)
    document["run"] = {"version": __version__, **analysis.run}
    return clean_json(document)


# --------------------------------------------------------------------------- tables


def horizons_frame(analysis: HoldAnalysis) -> pd.DataFrame:
    """One row per horizon, every figure (fractions, chips): the CSV table."""
    rows = []
    for s in analysis.horizons:
        row = {"rounds": s.n_rounds, "handle": float(s.handle), "mean": float(s.mean), "sd": s.sd,
               "p_house_behind": s.p_house_behind.value}
        for k, p in s.p_behind_by:
            row[f"p_behind_by_{_key(float(k))}"] = p.value
        for q in s.quantiles:
            row[f"q{_key(q.q)}"] = _num(q.value)
        for q in s.quantiles:
            row[f"hold_q{_key(q.q)}"] = s.hold(q.value)
        row["hold_mean"] = s.hold_mean
        row["hold_95_low"], row["hold_95_high"] = s.hold_range_95
        row["hold_99_low"], row["hold_99_high"] = s.hold_range_99
        row["error_bound"] = s.error_bound
        row["method"] = s.method
        rows.append(row)
    return pd.DataFrame(rows)


def sessions_frame(study: SessionStudy) -> pd.DataFrame:
    """One row per session figure: Monte Carlo with its CI, exact where solved, z."""
    z = study.z_scores()
    rows = []
    for name in ("p_goal", "p_stop_loss", "p_ruin", "p_limit", "mean_final", "mean_length"):
        mc = getattr(study.monte_carlo, name)
        rows.append({"figure": name, "monte_carlo": mc.value, "se": mc.se, "ci95_low": mc.ci_low,
                     "ci95_high": mc.ci_high, "exact": None if study.exact is None else getattr(study.exact,
                                                                                               name).value,
                     "z": z.get(name)})
    return pd.DataFrame(rows)


def _result_table(analysis: HoldAnalysis) -> pd.DataFrame:
    shown = pd.DataFrame()
    horizons = analysis.horizons
    shown["rounds"] = [_rounds(s.n_rounds) for s in horizons]
    shown["mean"] = [chips_text(s.mean)
                     + ("" if s.mean_ci95 is None else f" ±{(s.mean_ci95[1] - s.mean_ci95[0]) / 2:,.0f}")
                     for s in horizons]
    shown["SD"] = [chips_text(s.sd) for s in horizons]
    shown["P(behind)"] = [stated_probability(s.p_house_behind) for s in horizons]
    for i, q in enumerate(QUANTILE_LEVELS):
        shown[f"{100 * q:g}%"] = [chips_text(s.quantiles[i].value) for s in horizons]
    return shown


def _rounds(n: int) -> str:
    """A number of rounds: ``10,000``, or ``1e11`` beyond a hundred million (to keep tables narrow)."""
    return f"{n:,}" if n < 10**8 else f"{n:.4g}".replace("e+", "e")


def _hold_digits(analysis: HoldAnalysis) -> int:
    """Decimals of the hold percentages: enough to show the spread of the longest horizon (3 to 6)."""
    spreads = [s.hold(s.quantiles[-1].value) - s.hold(s.quantiles[0].value) for s in analysis.horizons]
    narrowest = 100 * min((x for x in spreads if x and x > 0), default=1.0)
    return min(6, max(3, math.ceil(-math.log10(narrowest)) + 2))


def _hold_table(analysis: HoldAnalysis, digits: int | None = None) -> pd.DataFrame:
    digits = _hold_digits(analysis) if digits is None else digits
    shown = pd.DataFrame()
    horizons = analysis.horizons
    shown["rounds"] = [_rounds(s.n_rounds) for s in horizons]
    shown["mean"] = [percent_text(s.hold_mean, digits) for s in horizons]
    for i, q in enumerate(QUANTILE_LEVELS):
        shown[f"{100 * q:g}%"] = [percent_text(s.hold(s.quantiles[i].value), digits) for s in horizons]
    shown["95% range"] = [f"{percent_text(s.hold_range_95[0], digits)} to {percent_text(s.hold_range_95[1], digits)}"
                          for s in horizons]
    shown["99% range"] = [f"{percent_text(s.hold_range_99[0], digits)} to {percent_text(s.hold_range_99[1], digits)}"
                          for s in horizons]
    return shown


def _behind_table(analysis: HoldAnalysis) -> pd.DataFrame | None:
    if not analysis.horizons or not analysis.horizons[0].p_behind_by:
        return None
    shown = pd.DataFrame()
    shown["rounds"] = [_rounds(s.n_rounds) for s in analysis.horizons]
    for i, (k, _) in enumerate(analysis.horizons[0].p_behind_by):
        shown[f"k = {chips_text(k)}"] = [stated_probability(s.p_behind_by[i][1]) for s in analysis.horizons]
    return shown


def _sessions_table(study: SessionStudy) -> pd.DataFrame:
    rules = study.rules
    labels = {
        "p_goal": f"P(goal: +{chips_text(rules.stop_win)})" if rules.stop_win is not None else "P(goal: none set)",
        "p_stop_loss": f"P(stop-loss: -{chips_text(rules.stop_loss)})" if rules.stop_loss is not None
        else "P(stop-loss: none set)",
        "p_ruin": "P(ruin: can't cover the slip)",
        "p_limit": f"P(played all {rules.max_rounds:,} rounds)",
        "mean_final": "mean final result (chips)",
        "mean_length": "mean rounds played",
    }
    z = study.z_scores()
    rows = []
    for name, label in labels.items():
        mc = getattr(study.monte_carlo, name)
        digits = 6 if name.startswith("p_") else 2
        row = {"": label, "Monte Carlo (95% CI)": f"{mc.value:.{digits}f} ±{(mc.ci_high - mc.ci_low) / 2:.{digits}f}"}
        if study.exact is not None:
            row["exact"] = f"{getattr(study.exact, name).value:.{digits}f}"
            row["z"] = f"{z[name]:+.2f}"
        rows.append(row)
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- text and Markdown


def _header_lines(analysis: HoldAnalysis) -> list[str]:
    slip = analysis.slip
    rules = slip.rules
    run = analysis.run
    how = ("shuffled before every round (rounds independent: exact)" if slip.model == "fresh"
           else "dealt through to the cut card (rounds dependent: Monte Carlo of whole tables)")
    lines = [f"rule set  {rules.id}: {rules.name}  (sha256 {rules.sha256[:12]})",
             f"shoe      {describe_shoe(slip.composition)}, {how}",
             f"slip      {_slip_words(analysis)}: {chips_text(slip.total_stake)} staked a round (the handle)",
             f"edge      the house's expected hold {percent_text(float(slip.house_edge))} of handle; one round's "
             f"result moves in steps of {chips_text(slip.unit)} chips"]
    if slip.rounded_commission:
        lines.append("          (commission rounded for each stake as the rule set says: the per-stake nets apply)")
    if run.get("seed") is not None:
        lines.append(f"seed      {run['seed']}   threads {run.get('threads')}")
    return lines


def _notes(analysis: HoldAnalysis) -> list[str]:
    notes = list(analysis.run.get("notes", []))
    if analysis.slip.model == "dealt" and analysis.slip.bets_with_max_round:
        bets = ", ".join(f"{b} (round {r})" for b, r in analysis.slip.bets_with_max_round)
        notes.append(f"the slip is staked in every round of a shoe; the Max Round Availability of {bets} is not "
                     "applied")
    return notes


def _observed_lines(verdict: ObservedVerdict, level: int) -> list[str]:
    def side(inside: bool) -> str:
        return "inside" if inside else "OUTSIDE"

    return [
        f"observed  win {chips_text(verdict.win)} on handle {chips_text(verdict.handle)} over {verdict.n_rounds:,} "
        f"rounds: hold {percent_text(float(verdict.hold))}",
        f"          P(hold <= observed) {stated_probability(verdict.p_at_most)} (percentile {verdict.percentile:.4g}); "
        f"two-sided p-value {stated_probability(verdict.p_two_sided)}",
        f"          95% range {percent_text(verdict.range_95[0])} to {percent_text(verdict.range_95[1])}: "
        f"{side(verdict.inside_95)};  99% range {percent_text(verdict.range_99[0])} to "
        f"{percent_text(verdict.range_99[1])}: {side(verdict.inside_99)}",
        *([f"          {handle_note(verdict)}"] if verdict.handle_rescaled else []),
        f"verdict   the observed hold is {side(verdict.inside(level))} the {level}% range",
    ]


def handle_note(verdict: ObservedVerdict) -> str:
    """What comparing an observed handle that is not the slip's over the rounds played does (one line)."""
    return (f"the observed handle {chips_text(verdict.handle)} is not {verdict.n_rounds:,} rounds of the slip "
            f"({chips_text(verdict.slip_handle)}): its hold is compared as if the slip had been staked every round, "
            f"a house result of {chips_text(verdict.model_win)}")


def _session_words(study: SessionStudy, analysis: HoldAnalysis) -> str:
    rules = study.rules
    parts = [f"bankroll {chips_text(rules.bankroll)}"]
    if rules.stop_loss is not None:
        parts.append(f"stop-loss {chips_text(rules.stop_loss)}")
    if rules.stop_win is not None:
        parts.append(f"stop-win {chips_text(rules.stop_win)}")
    parts.append(f"at most {rules.max_rounds:,} rounds")
    return f"{_slip_words(analysis)} a round; " + ", ".join(parts)


def _session_quantile_lines(outcome: SessionOutcome) -> list[str]:
    levels = " / ".join(f"{100 * q:g}%" for q in SESSION_QUANTILES)
    finals = " / ".join(chips_text(outcome.final_quantile(q)) for q in SESSION_QUANTILES)
    lengths = " / ".join(f"{outcome.length_quantile(q):,}" for q in SESSION_QUANTILES)
    return [f"final result {levels}: {finals}", f"rounds played {levels}: {lengths}"]


def _wrap(label: str, text: str, width: int) -> list[str]:
    return textwrap.wrap(text, width, initial_indent=label, subsequent_indent=" " * len(label))


def hold_text(analysis: HoldAnalysis, width: int = 120, check_range: int = 95) -> str:
    """Header, the horizon tables, the observed verdict and sessions, with every method, as plain text."""
    lines = [wrapped for line in _header_lines(analysis)
             for wrapped in textwrap.wrap(line, width, subsequent_indent=" " * 10, break_on_hyphens=False)]
    if analysis.horizons:
        lines += ["", "house result over N rounds (chips; at q%: the smallest result r with P(result <= r) >= q%; "
                      "P(behind): P(result < 0))"]
        lines += text_table(_result_table(analysis), width)
        lines += ["", "hold = house result / handle (handle = rounds x total stake)"]
        holds = text_table(_hold_table(analysis), width)
        if max(map(len, holds)) > width:  # holds of short horizons reach tens of percent: one digit fewer
            holds = text_table(_hold_table(analysis, digits=_hold_digits(analysis) - 1), width)
        lines += holds
        behind = _behind_table(analysis)
        if behind is not None:
            lines += ["", "P(house behind by more than k chips)"]
            lines += text_table(behind, width)
        lines += ["", "method"]
        for s in analysis.horizons:
            lines += _wrap(f"  {s.n_rounds:,} rounds: ", s.method, width)
    if analysis.observed is not None:
        lines += [""] + [wrapped for line in _observed_lines(analysis.observed, check_range)
                         for wrapped in _wrap(line[:10], line[10:], width)]
        lines += _wrap("method    ", analysis.observed.method, width)
    if analysis.sessions is not None:
        study = analysis.sessions
        lines += [""] + _wrap("player sessions: ", _session_words(study, analysis), width)
        lines += text_table(_sessions_table(study), width)
        lines += _session_quantile_lines(study.monte_carlo)
        lines += _wrap("method    ", study.monte_carlo.method, width)
        if study.exact is not None:
            lines += _wrap("          ", study.exact.method, width)
    notes = _notes(analysis)
    if notes:
        lines += ["", "notes"] + [wrapped for note in notes for wrapped in _wrap("  ", note, width)]
    return terminal_text("\n".join(lines))


def hold_markdown(analysis: HoldAnalysis, check_range: int = 95) -> str:
    """The same as Markdown."""
    parts = [f"## What a table does over N rounds: {_slip_words(analysis)}", "",
             "\n".join(f"- {line}" for line in _header_lines(analysis)), ""]
    if analysis.horizons:
        parts += ["### House result (chips)", "", markdown_table(_result_table(analysis)),
                  "### Hold (house result / handle)", "", markdown_table(_hold_table(analysis))]
        behind = _behind_table(analysis)
        if behind is not None:
            parts += ["### P(house behind by more than k chips)", "", markdown_table(behind)]
        parts += ["### Methods", ""] + [f"- {s.n_rounds:,} rounds: {s.method}" for s in analysis.horizons] + [""]
    if analysis.observed is not None:
        parts += ["### Observed hold", ""] + [f"- {line.strip()}" for line in
                                              _observed_lines(analysis.observed, check_range)]
        parts += [f"- method: {analysis.observed.method}", ""]
    if analysis.sessions is not None:
        study = analysis.sessions
        parts += [f"### Player sessions: {_session_words(study, analysis)}", "",
                  markdown_table(_sessions_table(study))]
        parts += [f"- {line}" for line in _session_quantile_lines(study.monte_carlo)]
        parts += [f"- method: {study.monte_carlo.method}"]
        if study.exact is not None:
            parts += [f"- exact: {study.exact.method}"]
        parts.append("")
    notes = _notes(analysis)
    if notes:
        parts += ["### Notes", ""] + [f"- {note}" for note in notes] + [""]
    return terminal_text("\n".join(parts))


def hold_csv(analysis: HoldAnalysis) -> str:
    """The horizons table as CSV (one row per number of rounds; fractions and chips)."""
    frame = horizons_frame(analysis)
    frame.insert(0, "rules", analysis.slip.rules.id)
    frame.insert(1, "slip", _slip_words(analysis))
    return csv_text(frame, index=False)


# --------------------------------------------------------------------------- files


def hold_stem(analysis: HoldAnalysis) -> str:
    """Stem of the result files, e.g. ``hold-default-fresh-banker100-player50``."""
    bets = "-".join(f"{bet_id}{chips_text(stake).replace(',', '')}" for bet_id, stake in analysis.slip.stakes.items())
    seed = analysis.run.get("seed")
    return f"hold-{analysis.slip.rules.id}-{analysis.slip.model}-{bets}" + (f"-seed{seed}" if seed is not None
                                                                             else "")


def write_hold_files(analysis: HoldAnalysis, out_dir, plots_wanted: bool = True, check_range: int = 95) -> list[Path]:
    """Write the analysis's ``.json``, ``.csv``, ``.md`` (and ``-sessions.csv``, PNG plots) as one set.

    All the files appear together or not at all (:func:`baccarat_sim.storage.writing.write_file_set`).
    """
    stem = hold_stem(analysis)
    files = {
        f"{stem}.json": text_writer(json.dumps(hold_dict(analysis, check_range), indent=2) + "\n"),
        f"{stem}.csv": text_writer(hold_csv(analysis)),
    }
    if analysis.sessions is not None:
        files[f"{stem}-sessions.csv"] = text_writer(csv_text(sessions_frame(analysis.sessions), index=False))
    images = []
    if plots_wanted:
        figures = {"fan": hold_plots.hold_fan_figure(analysis) if analysis.fan is not None else None,
                   "distribution": hold_plots.house_result_figure(analysis) if analysis.horizons else None,
                   "bankroll": hold_plots.bankroll_figure(analysis) if analysis.sessions is not None
                   and analysis.sessions.curve else None}
        for suffix, figure in figures.items():
            if figure is not None:
                files[f"{stem}-{suffix}.png"] = figure_writer(figure)
                images.append(f"{stem}-{suffix}.png")
    pictures = "".join(f"\n![{Path(name).stem}]({name})\n" for name in images)
    files[f"{stem}.md"] = text_writer(hold_markdown(analysis, check_range) + (f"\n### Plots\n{pictures}" if pictures
                                                                       else ""))
    return write_files(out_dir, files)
