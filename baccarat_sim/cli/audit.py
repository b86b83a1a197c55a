"""``python -m baccarat_sim.audit`` (also installed as ``baccarat-audit``): audit real play from its logs.

Examples
--------
A simulated month with one of each anomaly, imported into a database and audited::

    python -m baccarat_sim.audit simulate --tables 4 --days 30 --anomalies all --seed 1 --out month
    python -m baccarat_sim.audit import --db audit.duckdb month/rounds.csv month/bets.csv month/results.csv
    python -m baccarat_sim.audit report --db audit.duckdb --out report

Heavy modules (numpy, DuckDB) are imported only after the arguments are parsed.
"""

from __future__ import annotations

import argparse
import datetime
import sys
from pathlib import Path

from .common import EXIT_OK, EXIT_USAGE, Command, HelpFormatter, Parser, UsageError, check_out_dir, positive_int
from .common import seed as seed_type
from .options import add_debug, add_version
from .options import option_of as shared_option_of

__all__ = ["build_parser", "main", "run", "script"]

PROG = "python -m baccarat_sim.audit"
#: Its console script (pyproject.toml).
SCRIPT = "baccarat-audit"
DEFAULT_DB = "audit.duckdb"
DEFAULT_SIMULATED_RULES = "live-8deck-side-bets,ez-baccarat"


def _date(text: str) -> datetime.date:
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a date YYYY-MM-DD, got {text!r}") from None


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number > 0, got {text!r}")
    return value


def _mix(text: str) -> dict:
    mix = {}
    for item in text.split(","):
        bet, _, share = item.partition("=")
        try:
            mix[bet.strip()] = float(share)
        except ValueError:
            raise argparse.ArgumentTypeError(f"give BET=SHARE[,...], e.g. banker=0.55,player=0.4,tie=0.05; got "
                                             f"{item.strip()!r}") from None
    return mix


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    """The argument parser (no heavy imports)."""
    parser = Parser(prog=prog, formatter_class=HelpFormatter,
                    description="Audit real play: import round logs, bet logs and table results into an embedded "
                                "DuckDB database and check actual against theoretical, shoe integrity, hold on drop "
                                "and advantage play.",
                    epilog="Exit status: 0 done, 1 an internal error (which says so), 2 bad input (a bad file: one "
                           "line per bad row, nothing imported).")
    add_version(parser)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    simulate = commands.add_parser("simulate", help="write a synthetic month of logs (anomalies on request)",
                                   formatter_class=HelpFormatter)
    simulate.add_argument("--rules", default=DEFAULT_SIMULATED_RULES, metavar="NAME|PATH[,...]",
                          help="rule sets, given to the tables in turn (each table deals from a shoe)")
    simulate.add_argument("--tables", type=positive_int("tables", 1, 1000), default=4, metavar="N",
                          help="tables on the floor, 1 to 1000 (default: 4)")
    simulate.add_argument("--days", type=positive_int("days", 1, 3660), default=30, metavar="D",
                          help="gaming days, 1 to 3660 (default: 30)")
    simulate.add_argument("--rounds-per-day", type=positive_int("rounds-per-day", 1, 100_000), default=400,
                          metavar="R", help="rounds a table deals a day (whole shoes, nearest)")
    simulate.add_argument("--start", type=_date, default=datetime.date(2026, 1, 1), metavar="YYYY-MM-DD",
                          help="the first gaming day (default: 2026-01-01)")
    simulate.add_argument("--anomalies", default="", metavar="KIND[,...]|all",
                          help="inject one of each: counter, team, misdeal, payout, commission, stacked, late-cut, "
                               "bad-burn")
    simulate.add_argument("--churn", type=_positive_float, default=2.2, metavar="X", help="handle / drop")
    simulate.add_argument("--seed", type=seed_type, default=1, metavar="S")
    simulate.add_argument("--format", choices=("csv", "parquet"), default="csv")
    simulate.add_argument("--out", required=True, metavar="DIR", help="folder for the files")
    importing = commands.add_parser("import", help="check files and import them into the database",
                                    formatter_class=HelpFormatter)
    importing.add_argument("files", nargs="+", metavar="FILE", help="round logs, bet logs, table results (CSV or "
                                                                    "Parquet); round logs before their bets")
    importing.add_argument("--db", default=DEFAULT_DB, metavar="PATH", help="the database file")
    importing.add_argument("--rules", action="append", default=[], metavar="PATH",
                           help="a rule file the logs name by its id (stored in the database); repeatable")
    report = commands.add_parser("report", help="audit the database", formatter_class=HelpFormatter)
    report.add_argument("--db", default=DEFAULT_DB, metavar="PATH", help="the database file")
    report.add_argument("--since", type=_date, metavar="YYYY-MM-DD", help="first gaming day audited")
    report.add_argument("--until", type=_date, metavar="YYYY-MM-DD", help="last gaming day audited")
    report.add_argument("--mix", type=_mix, metavar="BET=SHARE[,...]", help="the bet mix where no bets are logged")
    report.add_argument("--churn", type=_positive_float, metavar="X",
                        help="handle / drop where no handle is reported")
    report.add_argument("--format", choices=("text", "json"), default="text", help="what is printed")
    report.add_argument("--out", metavar="DIR", help="write the report's files (JSON, CSV, Markdown, HTML, PNG)")
    report.add_argument("--no-plots", action="store_true", help="no PNG control charts")
    query = commands.add_parser("query", help="run one SQL query on the database (read-only) and print its rows",
                                formatter_class=HelpFormatter)
    query.add_argument("sql", metavar="SQL", help="a query, e.g. \"select rule_set, count(*) from rounds group by 1\"")
    query.add_argument("--db", default=DEFAULT_DB, metavar="PATH", help="the database file")
    for sub in (simulate, importing, report, query):
        add_debug(sub)
    return parser


def option_of(param: str, args: argparse.Namespace) -> str:
    """The option that set a library parameter, for one-line errors."""
    return {"mix": "--mix", "churn": "--churn"}.get(param) or shared_option_of(param, args)


def _rules_list(text: str):
    from ..model.rules import load_rules

    return [load_rules(name.strip()) for name in text.split(",") if name.strip()]


def _run_simulate(args) -> int:
    from ..analysis.audit_simulate import ANOMALIES, AnomalyRefused, month_chunks, sort_anomalies
    from ..audit_store.files import write_log_chunks

    kinds = list(ANOMALIES) if args.anomalies == "all" else [k.strip() for k in args.anomalies.split(",") if k.strip()]
    unknown = [k for k in kinds if k not in ANOMALIES]
    if unknown:
        raise UsageError(f"--anomalies: got {unknown[0]!r}; allowed: {', '.join(ANOMALIES)} or all")
    out = check_out_dir(args.out)
    # A chunk at a time (a table's run of days): a year of 25 tables never sits in memory whole.
    counted = {"rounds": 0, "bets": 0, "results": 0}
    anomalies: list[dict] = []

    def chunks():
        for chunk in month_chunks(_rules_list(args.rules), args.tables, args.days, args.rounds_per_day, args.seed,
                                  kinds, args.start, args.churn):
            logs = {"rounds": chunk.rounds, "bets": chunk.bets, "results": chunk.results}
            for kind, columns in logs.items():
                counted[kind] += len(columns["table"])
            anomalies.extend(chunk.anomalies)
            yield logs

    try:
        paths = write_log_chunks(out, ["rounds", "bets", "results"], chunks(), args.format,
                                 {"anomalies.json": lambda: sort_anomalies(anomalies)})
    except AnomalyRefused as error:
        raise UsageError(f"--anomalies: {error}") from None
    print(f"wrote {counted['rounds']:,} rounds, {counted['bets']:,} bets and {counted['results']:,} table results "
          f"to {args.out} ({', '.join(p.name for p in paths)})")
    return EXIT_OK


def _known_rules(connection, given: list[str]):
    """Rule sets by id: those stored in the database, those given now (stored), then the shipped ones on demand."""
    from ..model.rules import available_rules, load_rules, parse_rules

    known = {}
    for rule_id, text, label in connection.execute("SELECT id, toml, path FROM rule_sets").fetchall():
        known[rule_id] = parse_rules(text, label)
    for path in given:
        raw = Path(path).read_bytes() if Path(path).is_file() else None
        if raw is None:
            raise UsageError(f"--rules: no such rule file {path!r}")
        rules = parse_rules(raw, path)
        connection.execute("DELETE FROM rule_sets WHERE id = ?", [rules.id])
        connection.execute("INSERT INTO rule_sets VALUES (?, ?, ?, ?)", [rules.id, path, rules.sha256,
                                                                         raw.decode("utf-8")])
        known[rules.id] = rules
    shipped = set(available_rules())

    def resolve(names):
        for name in names:
            if name not in known and name in shipped:
                known[name] = load_rules(name)
        return known

    return resolve


def _run_import(args) -> int:
    from ..audit_store.database import DatabaseRefused, open_database
    from ..audit_store.importing import BadFile, import_file

    try:
        connection = open_database(args.db)
    except DatabaseRefused as error:
        raise UsageError(f"--db: {error}") from None
    try:
        resolve = _known_rules(connection, args.rules)
        for path in args.files:
            try:
                result = import_file(connection, path, lambda names: {k: r.bet_ids for k, r in resolve(names).items()})
            except BadFile as error:
                for line in error.lines:
                    print(line, file=sys.stderr)
                return EXIT_USAGE
            note = "already imported: nothing added" if result.already else f"{result.rows_added:,} added"
            print(f"{path}: {result.kind}, {result.rows_read:,} rows; {note}")
    finally:
        connection.close()
    return EXIT_OK


def _run_report(args) -> int:
    from ..analysis.audit import run_audit
    from ..audit_store.database import DatabaseRefused, open_database
    from ..report.audit_report import audit_files, audit_json, audit_text
    from ..report.files import write_files

    out = check_out_dir(args.out) if args.out else None
    try:
        connection = open_database(args.db, create=False)
    except DatabaseRefused as error:
        raise UsageError(f"--db: {error}") from None
    try:
        resolve = _known_rules(connection, [])
        names = [r[0] for r in connection.execute("SELECT DISTINCT rule_set FROM rounds").fetchall()]
        if not names:  # an audit of nothing would print a report of zeros, as if a month had been clean
            raise UsageError(f"--db: {args.db} holds no rounds; import round logs into it first "
                             f"(audit import --db {args.db} FILE ...)")
        rules_of = resolve(names)
        missing = [n for n in names if n not in rules_of]
        if missing:
            raise UsageError(f"--db: the rounds name rule set {missing[0]!r}, neither shipped nor imported with "
                             "--rules")
        report = run_audit(connection, rules_of, since=args.since, until=args.until, mix=args.mix,
                           churn=args.churn)
    finally:
        connection.close()
    if args.format == "json":
        import json

        print(json.dumps(audit_json(report), indent=2))
    else:
        print(audit_text(report), end="")
    if out is not None:
        paths = write_files(out, audit_files(report, plots=not args.no_plots))
        if args.format != "json":
            print(f"wrote {len(paths)} files to {args.out}; open {Path(args.out) / 'audit.html'}")
    return EXIT_OK


def _run_query(args) -> int:
    import duckdb

    from ..audit_store.database import DatabaseRefused, open_database

    try:
        connection = open_database(args.db, create=False, read_only=True)
    except DatabaseRefused as error:
        raise UsageError(f"--db: {error}") from None
    try:
        cursor = connection.cursor()
        try:
            result = cursor.execute(args.sql)
            names = [column[0] for column in result.description or ()]
            rows = result.fetchall() if names else []
        except duckdb.Error as error:
            raise UsageError(f"SQL: {str(error).splitlines()[0]}") from None
    finally:
        connection.close()
    print(",".join(names))
    for row in rows:
        print(",".join("" if value is None else str(value) for value in row))
    return EXIT_OK


def run(args: argparse.Namespace) -> int:
    """Carry out a subcommand; returns the exit status."""
    return {"simulate": _run_simulate, "import": _run_import, "report": _run_report,
            "query": _run_query}[args.command](args)


COMMAND = Command(PROG, SCRIPT, build_parser, run, option_of, "; nothing was written")


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    return COMMAND.main(argv)


def script() -> int:
    """The ``baccarat-audit`` console script."""
    return COMMAND.console_script()
