"""``python -m baccarat_sim.compile`` (also ``baccarat-compile``): every kernel compiled ahead of time.

numba compiles a kernel on its first use and caches it on disk
(:mod:`baccarat_sim.kernels.jit`); a user's first run of each command pays
for it. This command runs every command's kernels once on tiny inputs, the
way the commands themselves call them (same argument types, so the same
compiled signatures), and leaves them in the cache: afterwards no command
compiles. Run it after installing, in an image build, or before a test run.

The work is cut into *families* (the Monte Carlo lanes of each shoe model, the
exact engines, counting, sessions, the leak engine, the Dask task kernels),
each a few tiny runs. ``--jobs N`` compiles them in N processes at once
(compilation is single-threaded): on two cores the wall time is about halved.
With a warm cache every family only loads its kernels (a few CPU-seconds each).

A run that compiled every family leaves a *stamp* in the cache folder
(:func:`stamp_key`): the digest of the whole package's sources, the machine
code's target as numba keys its cache on (CPU name and features), the families,
and each cached file with its size. The next run that finds the same package,
machine and families, and every one of those files still there at least as
large (numba only adds to an index), has nothing to compile and says so
without starting a family; ``--force`` loads every family all the same.

It also writes the package's Python bytecode (:func:`write_bytecode`), which
Python does not write itself where ``PYTHONDONTWRITEBYTECODE`` is set.

A cache folder that cannot be written is refused in one line before any family
starts (nothing compiled could be kept; every command then compiles in memory,
:mod:`baccarat_sim.kernels.jit`). Ctrl-C stops the families' processes at once.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .common import EXIT_CHECK_FAILED, EXIT_OK, Command, HelpFormatter, Parser, UsageError, positive_int
from .options import add_debug, add_quiet, add_version
from .options import option_of as shared_option_of

__all__ = ["FAMILIES", "build_parser", "main", "run", "script", "write_bytecode"]

PROG = "python -m baccarat_sim.compile"
#: Its console script (pyproject.toml).
SCRIPT = "baccarat-compile"

#: Rule set with card-level bets: its runs compile the card-detail paths.
_CARDS = "catalogue-colour-and-suits"
_RTP = ("--seed", "1", "--quiet", "--format", "json")
_HOLD = ("--seed", "1", "--quiet", "--format", "json")

#: Each family: the command runs that compile it, as (command module, arguments). Ordered by compile time, longest
#: first, so that ``--jobs`` starts the long ones first.
FAMILIES: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "counting": (("rtp", ("--count", "perfect-play", "--shoes", "8", *_RTP)),
                 ("rtp", ("--rules", _CARDS, "--count", "colour-match-red-black", "--shoes", "8", *_RTP)),
                 ("rtp", ("--rules", "live-8deck-side-bets", "--count", "lucky6-derived", "--shoes", "8", *_RTP)),
                 ("perfect-cards", ())),
    "cards-fresh": (("rtp", ("--rules", _CARDS, "--rounds", "1e4", *_RTP)),),
    "cards-dealt": (("rtp", ("--rules", _CARDS, "--model", "dealt", "--rounds", "1e4", *_RTP)),),
    "dask": (("dask", ()),),
    "dealt": (("rtp", ("--model", "dealt", "--rounds", "1e4", *_RTP)),),
    "sessions": (("hold", ("--slip", "banker=10", "--rounds", "100", "--bankroll", "100", "--stop-win", "100",
                           "--max-rounds", "100", "--sessions", "100", *_HOLD)),
                 ("hold", ("--model", "dealt", "--slip", "banker=10", "--rounds", "100", "--tables", "100",
                           "--bankroll", "100", "--stop-win", "100", "--max-rounds", "100", "--sessions", "100",
                           *_HOLD)),
                 ("hold", ("--rules", _CARDS, "--model", "dealt", "--slip", "colour_match=10,super_tie_100_25_7=1",
                           "--rounds", "100", "--tables", "100", *_HOLD))),
    "fresh": (("rtp", ("--rounds", "1e4", *_RTP)),),
    "leak": (("leak", ("--positions", "P1,B1,P2,B2", "--optimize", "--top", "1", "--format", "json", "--quiet")),),
}


def _run_family(name: str) -> None:
    """Run one family's command lines in this process, their output thrown away (a failure raises)."""
    for command, arguments in FAMILIES[name]:
        if command in _IN_PYTHON:
            _IN_PYTHON[command]()
            continue
        module = __import__(f"baccarat_sim.cli.{command}", fromlist=["main"])
        with tempfile.TemporaryDirectory() as out, contextlib.redirect_stdout(io.StringIO()):
            # Files (and a run's checkpoint) in a folder of its own, thrown away: never a user's run's.
            extra = ("--out", out, "--no-plots") if command in ("rtp", "hold") else ()
            status = module.main([*arguments, *extra])
        if status:
            raise RuntimeError(f"{command} {' '.join(arguments)} exited with status {status}")


def _dask_kernels() -> None:
    """The Dask backend's task kernel (one thread per task), for each model, plain and with card detail."""
    from ..engines.montecarlo import warm_up
    from ..engines.plan import plan_run
    from ..model.rules import load_rules

    for rules in (load_rules("default"), load_rules(_CARDS)):
        for model in ("fresh", "dealt"):
            warm_up(plan_run(rules, 1000, 1, model=model), remote=True)


def _perfect_card_kernels() -> None:
    """Counting with a card-level bet played perfectly that its group's enumeration prices every round.

    No shipped strategy names such a bet (``"*"`` leaves them out), so no command line of the family reaches the
    kernel variant that takes a group's pricing tables; a strategy written here does, as the commands call it.
    """
    from ..analysis.counting import count_simulation
    from ..model.rules import load_rules
    from ..model.strategy import parse_strategy

    strategy = parse_strategy("schema_version = 1\nid = 'compile'\n[[bets]]\nid = 'super_tie_100_25_7'\n"
                              "play = 'perfect'")
    count_simulation(load_rules(_CARDS), strategy, 8, seed=1)


#: Families' steps that are Python calls, not command lines.
_IN_PYTHON = {"dask": _dask_kernels, "perfect-cards": _perfect_card_kernels}


def write_bytecode(package: Path | None = None) -> bool:
    """Write the bytecode of the package's modules beside them; whether every module was written.

    Where ``PYTHONDONTWRITEBYTECODE`` is set (many container images and CI
    runners), Python compiles the package's modules from source at every
    start of a command, about 0.17 CPU-seconds each time, and writes nothing;
    bytecode written here is read even then. An install that cannot be
    written to (site-packages, which pip byte-compiles itself) is left as it is.

    Parameters
    ----------
    package : path, optional
        The package folder (default: this package's).
    """
    import compileall

    package = Path(__file__).resolve().parent.parent if package is None else Path(package)
    with contextlib.redirect_stdout(io.StringIO()):  # compileall prints each folder it lists
        return bool(compileall.compile_dir(str(package), quiet=2))


#: The stamp a full compile leaves in :func:`baccarat_sim.kernels.jit.kernel_cache_dir`.
STAMP_NAME = "compiled.json"


def stamp_key() -> dict:
    """What a full compile's stamp must match: the package's sources, the machine code's target, the families.

    numba keys each cached kernel on its signature and on the target (triple, CPU name and features, which
    ``NUMBA_CPU_NAME`` may set); the cache folder's name holds the numba and Python versions, and each kernel's
    stamp the sources it reads. The whole package's sources count, not only the kernels': code that calls a
    kernel decides the argument types, so the signatures a family compiles.
    """
    from numba.core.registry import cpu_target

    from ..kernels.jit import kernel_sources_digest

    return {"package": kernel_sources_digest(("**/*.py",)),
            "target": list(cpu_target.target_context.codegen().magic_tuple()),
            "families": json.loads(json.dumps(FAMILIES))}


def _cached_files(folder: Path) -> dict[str, int]:
    """Every file under ``folder`` but the stamp, relative name to size."""
    return {path.relative_to(folder).as_posix(): path.stat().st_size for path in sorted(folder.rglob("*"))
            if path.is_file() and path.name != STAMP_NAME}


def stamped_ready(folder: Path) -> bool:
    """Whether ``folder``'s stamp says every family was compiled for this package and machine, files still there."""
    try:
        stamp = json.loads((folder / STAMP_NAME).read_text())
        if {name: stamp.get(name) for name in ("package", "target", "families")} != stamp_key():
            return False
        return all((folder / name).stat().st_size >= size for name, size in stamp["files"].items())
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return False  # no stamp, an unreadable one or a missing file: compile (or load) every family


def write_stamp(folder: Path) -> None:
    """Stamp ``folder`` after every family compiled (see :func:`stamped_ready`); a folder not writable is left."""
    from ..storage.writing import atomic_write

    stamp = {**stamp_key(), "files": _cached_files(folder)}
    with contextlib.suppress(OSError):
        atomic_write(folder / STAMP_NAME, lambda path: path.write_text(json.dumps(stamp, indent=1)))


def _compile_in_processes(names: list[str], jobs: int, say) -> int:
    """Each family in a process of its own, ``jobs`` at a time; the number of families that failed.

    Stopped (Ctrl-C, SIGTERM), it starts no other family and stops the running
    ones at once, rather than wait for each to finish its compilation (up to a
    minute): a child that does not end within :data:`CHILD_GRACE_SECONDS` is
    killed (numba writes each cache file whole under a temporary name, so a
    killed child leaves no half entry).
    """
    children: list[subprocess.Popen] = []
    lock = threading.Lock()
    stopping = threading.Event()

    def one(name: str) -> tuple[str, int, float, str]:
        started = time.perf_counter()
        with lock:
            if stopping.is_set():
                return name, EXIT_CHECK_FAILED, 0.0, "not started: stopped"
            child = subprocess.Popen([sys.executable, "-m", "baccarat_sim.compile", "--only", name],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                     env=os.environ.copy())
            children.append(child)
        _, stderr = child.communicate()
        return name, child.returncode, time.perf_counter() - started, stderr

    pool = ThreadPoolExecutor(jobs)
    try:
        failed = 0
        for name, status, seconds, stderr in pool.map(one, names):
            if status:
                failed += 1
                say(f"{name}: failed (exit status {status})\n{stderr.strip()}")
            else:
                say(f"{name}: ready in {seconds:.1f} s")
        return failed
    except BaseException:
        stopping.set()
        with lock:
            running = [child for child in children if child.poll() is None]
        for child in running:
            child.terminate()
        deadline = time.monotonic() + CHILD_GRACE_SECONDS
        for child in running:
            try:
                child.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


#: Seconds a family's process is given to end once the command is stopped, before it is killed.
CHILD_GRACE_SECONDS = 2.0


def _cannot_write(folder: Path) -> str | None:
    """Why the cache folder cannot be written (made, or a file created in it), or None if it can."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):  # os.access says yes to root on a read-only mount
            pass
    except OSError as error:
        return error.strerror or str(error)
    return None


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    """The argument parser (no heavy imports)."""
    parser = Parser(prog=prog, formatter_class=HelpFormatter,
                    description="Compile every kernel ahead of time into numba's on-disk cache, so that no command "
                                "compiles on its first run.")
    add_version(parser)
    parser.add_argument("--jobs", type=positive_int("jobs", 1), default=1, metavar="N",
                        help="compile in N processes at once (default: 1; 2 on two cores halves the wall time)")
    parser.add_argument("--only", metavar="FAMILY[,FAMILY...]",
                        help=f"only these families, in this process: {', '.join(FAMILIES)} (default: all)")
    parser.add_argument("--force", action="store_true",
                        help="load (or compile) every family even where the cache folder's stamp says that all were "
                             "compiled for this package and machine")
    add_quiet(parser, "print nothing but errors")
    add_debug(parser)
    return parser


def option_of(param: str, args: argparse.Namespace) -> str:
    """The option that set a library parameter, for one-line errors."""
    return shared_option_of(param, args)


def run(args: argparse.Namespace) -> int:
    """Compile every kernel family (or those named); 0 when every one is ready, 1 otherwise."""
    names = list(FAMILIES) if args.only is None else [n.strip() for n in args.only.split(",") if n.strip()]
    unknown = [n for n in names if n not in FAMILIES]
    if unknown or not names:
        raise UsageError(f"--only: unknown family {', '.join(unknown) or '(none)'}; choose from {', '.join(FAMILIES)}")

    def say(text: str) -> None:
        if not args.quiet or "failed" in text:
            print(text, file=sys.stderr, flush=True)

    started = time.perf_counter()
    if args.only is not None:
        for name in names:
            _run_family(name)
        return EXIT_OK
    from ..kernels.jit import kernel_cache_dir

    folder = kernel_cache_dir()
    write_bytecode()
    if not args.force and stamped_ready(folder):
        say(f"kernels ready: every family was compiled before for this package and machine (--force loads them "
            f"all the same), cached in {folder}")
        return EXIT_OK
    unwritable = _cannot_write(folder)
    if unwritable:
        print(f"{args.prog}: error: the kernel cache {folder} cannot be written ({unwritable}): nothing compiled "
              "ahead of time could be kept, and every command compiles its kernels in memory; set NUMBA_CACHE_DIR "
              "to a writable folder", file=sys.stderr)
        return EXIT_CHECK_FAILED
    # Each family in a process of its own: one failing does not stop the others.
    failed = _compile_in_processes(names, args.jobs, say)
    if failed:
        say(f"{failed} of {len(names)} families failed after {time.perf_counter() - started:.1f} s; the others are "
            f"cached in {folder}")
        return EXIT_CHECK_FAILED
    write_stamp(folder)
    say(f"kernels ready in {time.perf_counter() - started:.1f} s, cached in {folder}")
    return EXIT_OK


COMMAND = Command(PROG, SCRIPT, build_parser, run, option_of)


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status (also for ``--help`` and bad arguments, instead of exiting)."""
    return COMMAND.main(argv)


def script() -> int:
    """The ``baccarat-compile`` console script."""
    return COMMAND.console_script()
