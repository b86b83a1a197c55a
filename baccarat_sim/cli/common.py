"""What every command line shares: option types, one-line errors, exit statuses, notes, ``--out``, the error boundary.

A command is a :class:`Command`: its names (``python -m baccarat_sim.rtp``
and the console script ``baccarat-rtp``, each the usage line of its own way
in), its parser and what it does; :meth:`Command.main` is the one error
boundary. The options several commands share are defined in
:mod:`baccarat_sim.cli.options`.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import re
import signal
import sys
import tempfile
import traceback
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from pathlib import Path

from ..errors import BaccaratSimError
from ..limits import MAX_ROUNDS
from ..report.text import one_line
from ..storage.signals import FIRST_STOP, Stopped, exit_status

__all__ = [
    "EXIT_CHECK_FAILED",
    "EXIT_INTERNAL",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_USAGE",
    "Command",
    "HelpFormatter",
    "Parser",
    "UsageError",
    "announce_compile",
    "check_out_dir",
    "guarded_main",
    "non_negative_float",
    "note",
    "parse_rounds",
    "positive_int",
    "seconds",
    "seed",
    "write_files",
]

EXIT_OK = 0
EXIT_CHECK_FAILED = 1
#: A bug: an exception the library did not raise on purpose.
EXIT_INTERNAL = 1
EXIT_USAGE = 2
#: A command stopped by Ctrl-C (128 + SIGINT, the shell's convention); SIGTERM gives 143, SIGHUP 129.
EXIT_INTERRUPTED = exit_status(signal.SIGINT)
#: Environment variable that makes an internal error print its traceback (as ``--debug`` does).
DEBUG_VARIABLE = "BACCARAT_SIM_DEBUG"


class UsageError(Exception):
    """Bad input found by a command line itself: reported as one line and exit status 2."""


@contextlib.contextmanager
def announce_compile(what: str, quiet: bool = False):
    """Say on stderr that ``what`` is compiling, when numba compiles a kernel inside this block (and only then).

    numba compiles a kernel on its first use after an install (or an upgrade)
    and caches it; a later run loads it from the cache, which says nothing.
    The notice is printed once, as numba starts its first compilation (its
    ``numba:compile`` event fires for a compile, not for a load from the
    cache). ``python -m baccarat_sim.compile`` compiles every kernel ahead of
    time. Work timed inside this block is compile time: speed figures start
    after it.
    """
    if quiet:
        yield
        return
    from numba.core import event

    class Notice(event.Listener):
        said = False

        def on_start(self, ev):
            if not self.said:
                self.said = True
                print(f"compiling {what}, once per install (up to a minute; python -m baccarat_sim.compile does it "
                      f"ahead of time); later runs start at once", file=sys.stderr, flush=True)

        def on_end(self, ev):
            pass

    with event.install_listener("numba:compile", Notice()):
        yield


def parse_rounds(text: str) -> int:
    """Read a whole count: ``1e9``, ``2_000_000``, ``100000``, ``2.5e6``.

    Examples
    --------
    >>> parse_rounds("1e9"), parse_rounds("2_000_000"), parse_rounds("2.5e6")
    (1000000000, 2000000, 2500000)
    """
    cleaned = text.strip().replace("_", "")
    if not re.fullmatch(r"\d+(\.\d*)?([eE][+]?\d+)?", cleaned):
        raise argparse.ArgumentTypeError(f"must be a positive whole number such as 1e9 or 2_000_000, got {text!r}")
    try:
        # Decimal, not float: 1e400 must not become inf, and 1e15 + 1 must not round.
        value = Decimal(cleaned)
    except InvalidOperation:
        raise argparse.ArgumentTypeError(f"must be a positive whole number such as 1e9, got {text!r}") from None
    if value > MAX_ROUNDS:
        raise argparse.ArgumentTypeError(f"must be at most 1e{len(str(MAX_ROUNDS)) - 1} (beyond what a run can "
                                         f"count), got {text!r}")
    if value != value.to_integral_value():
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}")
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {text!r}")
    return int(value)


def non_negative_float(name: str):
    """An option type: a finite number >= 0 (``1e-9``, ``0.0001``)."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a number >= 0 such as 1e-9, got {text!r}") from None
        if not value >= 0 or value == float("inf"):
            raise argparse.ArgumentTypeError(f"must be a finite number >= 0, got {text!r}")
        return value

    parse.__name__ = name
    return parse


def positive_int(name: str, low: int = 1, high: int | None = None):
    """An option type: a whole number in ``[low, high]``."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
        if value < low or (high is not None and value > high):
            allowed = f"from {low} to {high}" if high is not None else f">= {low}"
            raise argparse.ArgumentTypeError(f"must be {allowed}, got {value}")
        return value

    parse.__name__ = name
    return parse


def seed(text: str) -> int:
    """An option type: a master seed from 0 to 2**63 - 1 (``0x...`` and ``_`` accepted)."""
    try:
        value = int(text.replace("_", ""), 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number from 0 to 2**63-1, got {text!r}") from None
    if not 0 <= value < 2**63:
        raise argparse.ArgumentTypeError(f"must be from 0 to 2**63-1, got {text!r}")
    return value


def seconds(text: str) -> float:
    """An option type: a number of seconds, more than 0 and at most a day."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of seconds, got {text!r}") from None
    if not 0 < value <= 86_400:
        raise argparse.ArgumentTypeError(f"must be more than 0 and at most 86400 seconds, got {text!r}")
    return value


#: A negative number as an option's value (``--observed-win -6e4``), not an option: argparse's own reading
#: leaves out exponents and digit separators.
_NEGATIVE_NUMBER = re.compile(r"^-(\d[\d_]*(\.[\d_]*)?|\.\d[\d_]*)([eE][+-]?\d+)?$")


class Parser(argparse.ArgumentParser):
    """argparse that reports bad input as one line and exit status 2, and suggests the nearest option."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = _NEGATIVE_NUMBER  # read by argparse for every argument and group

    def error(self, message):
        """Print one line (with the nearest option for an unknown one) and exit with status 2."""
        match = re.match(r"unrecognized arguments: (\S+)", message)
        if match:
            import difflib

            wrong = match.group(1).split("=")[0]
            options = [o for action in self._actions for o in action.option_strings if o.startswith("--")]
            close = difflib.get_close_matches(wrong, options, n=1)
            if close:
                message += f" (did you mean {close[0]}?)"
        self.exit(EXIT_USAGE, f"{self.prog}: error: {one_line(message)}\n")


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows a default only where it says something (not None/False, not already in the help)."""

    def _get_help_string(self, action):
        if action.default in (None, False) or "default" in (action.help or ""):
            return action.help
        return super()._get_help_string(action)


def note(args, message: str) -> None:
    """A note on stderr, unless ``--quiet``."""
    if not getattr(args, "quiet", False):
        print(message, file=sys.stderr)


def progress_note(args, what: str, every: float = 2.0):
    """``progress(done, total)`` for a long preparation: a note on stderr at most every ``every`` seconds."""
    import time

    last = [time.monotonic()]

    def progress(done: int, total: int) -> None:
        now = time.monotonic()
        if now - last[0] >= every:
            last[0] = now
            note(args, f"{what}: {done:,} of {total:,} groups of card-level conditions done")

    return progress


def check_out_dir(path, option: str = "--out") -> Path:
    """Create a directory and prove it writable now, before any work is done; temporaries of killed runs go.

    Raises
    ------
    UsageError
        Naming ``option``: the path is a file, or the directory cannot be written.
    """
    directory = Path(path)
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"{option}: {str(path)!r} is a file; give a directory (it is created if missing)")
    try:
        directory.mkdir(parents=True, exist_ok=True)
        # os.access says yes to root on a read-only mount: only writing a file tells the truth.
        with tempfile.TemporaryFile(dir=directory):
            pass
    except OSError as error:
        raise UsageError(f"{option}: cannot write to directory {str(path)!r} ({error.strerror or error}); "
                         "give a writable directory") from None
    from ..storage.writing import remove_orphans

    remove_orphans(directory)  # temporary files of a killed run
    return directory


def write_files(args, out_dir: Path | None, write: Callable[[Path], list]) -> tuple[list, int]:
    """Write the result files with ``write(out_dir)``; returns ``(paths, exit status)``.

    A failed write is one error line naming ``--out`` and ``EXIT_USAGE``, not
    a traceback: the caller still prints the result.
    """
    if out_dir is None:
        return [], EXIT_OK
    try:
        return write(out_dir), EXIT_OK
    except OSError as error:
        print(f"{args.prog}: error: --out: {error.strerror or error}", file=sys.stderr)
        return [], EXIT_USAGE


@dataclasses.dataclass(frozen=True)
class Command:
    """A command line: its names, its parser, what it does, and how its errors read.

    Attributes
    ----------
    prog : str
        Its name as ``python -m`` runs it (``python -m baccarat_sim.rtp``).
    script : str
        Its console script (``baccarat-rtp``, see ``pyproject.toml``).
    build_parser : callable
        ``build_parser(prog)``: the argument parser (no heavy imports).
    run : callable
        Carries out the parsed arguments (which carry ``prog``); returns the exit status.
    option_of : callable
        Maps a library parameter name (``error.param``) to the option that set
        it, given the parsed arguments.
    on_interrupt : str or callable
        What the line of a command stopped outside a run's dealing loop adds
        (``"; nothing was written"``), or ``on_interrupt(args)`` giving it
        from the parsed arguments (None when stopped before they were parsed).
    """

    prog: str
    script: str
    build_parser: Callable[[str], argparse.ArgumentParser]
    run: Callable[[argparse.Namespace], int]
    option_of: Callable[[str, argparse.Namespace], str]
    on_interrupt: str | Callable[[argparse.Namespace | None], str] = ""

    def main(self, argv: list[str] | None = None, prog: str | None = None) -> int:
        """Parse ``argv``, run, and return the exit status (also for ``--help`` and bad arguments)."""
        prog = prog or self.prog

        def interrupted(args) -> int:
            then = self.on_interrupt(args) if callable(self.on_interrupt) else self.on_interrupt
            print(f"{prog}: interrupted{then}", file=sys.stderr)
            return EXIT_INTERRUPTED

        return guarded_main(prog, self.build_parser(prog), self.run, argv, self.option_of, interrupted)

    def console_script(self) -> int:
        """The installed console script: the same command, its usage line naming the script."""
        return self.main(prog=self.script)


def guarded_main(prog: str, parser: argparse.ArgumentParser, run, argv, option_of, on_interrupt) -> int:
    """Parse ``argv``, call ``run(args)`` and turn every failure into the command line's exit status.

    Parameters
    ----------
    prog : str
        The command's name, for messages (also set as ``args.prog``).
    parser : ArgumentParser
        Its options (with ``--debug``).
    run : callable
        Carries out the parsed arguments; returns the exit status.
    option_of : callable
        Maps a library parameter name (``error.param``) to the option that set
        it, given the parsed arguments.
    on_interrupt : callable
        The exit status (and message) of a run stopped by a signal outside its
        dealing loop.

    Returns
    -------
    int
        0 done; the command's own statuses; 2 bad input (one line); 1 an
        internal error (one line, the traceback with ``--debug`` or
        ``BACCARAT_SIM_DEBUG=1``).
    """
    # The stop signals go through one latch (storage.signals.FIRST_STOP): the first one stops the command (as
    # Ctrl-C does; while a run deals, the run driver turns it into a clean stop at a chunk boundary) and gives the
    # exit status; every later one is ignored, wherever it lands, until the process exits.
    stop = FIRST_STOP
    previous = stop.arm(fresh=argv is not None)
    args = None
    try:
        try:
            if stop.signum is not None:  # it came while the command's modules were imported
                raise Stopped(stop.signum)
            try:
                args = parser.parse_args(argv)
            except SystemExit as exit_:
                return exit_.code if isinstance(exit_.code, int) else EXIT_USAGE
            args.prog = prog
            return run(args)
        finally:
            # The command is ending, one way or another: a signal from now on is only recorded, so that no
            # exception cuts short the lines below, which say how it ended.
            stop.quiet()
    except BrokenPipeError:  # e.g. piped into `head`: stop quietly, as other command-line tools do
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
    # Every message is one line of bounded length with nothing a terminal would obey: it may quote a hostile file.
    except UsageError as error:
        print(f"{prog}: error: {one_line(str(error))}", file=sys.stderr)
        return EXIT_USAGE
    except BaccaratSimError as error:
        param = getattr(error, "param", "")
        message = getattr(error, "message", str(error))
        option = option_of(param, args) if param and args is not None else ""
        print(f"{prog}: error: {one_line((option + ': ' if option else '') + message)}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:  # outside the dealing loop (importing, compiling, settling, writing)
        return _interrupted(stop, on_interrupt, args)
    except Exception as error:
        if stop.raised:
            # The signal landed inside a library call that turned it into an error of its own (numpy's import
            # reports an ImportError): the command was stopped, not broken.
            return _interrupted(stop, on_interrupt, args)
        if getattr(args, "debug", False) or os.environ.get(DEBUG_VARIABLE, "") not in ("", "0"):
            traceback.print_exc()
        else:
            print(f"{prog}: internal error (a bug, please report it): {type(error).__name__}: {one_line(str(error))}; "
                  f"rerun with --debug or {DEBUG_VARIABLE}=1 to see the traceback", file=sys.stderr)
        return EXIT_INTERNAL
    finally:
        if argv is None:
            # The process ends now (the command line's own call): a late Ctrl-C or SIGTERM must not turn a clean
            # exit, with its status and its last message, into death by that signal.
            stop.end_of_process()
        else:
            stop.disarm(previous)


def _interrupted(stop, on_interrupt, args) -> int:
    """A command stopped by a signal outside the dealing loop: its line, and the exit status of the first signal."""
    status = on_interrupt(args)
    # A batch scheduler's SIGTERM must read as one (143), not as Ctrl-C (130).
    return status if stop.signum is None else exit_status(stop.signum)
