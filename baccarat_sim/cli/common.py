"""What every command line shares: option types, one-line errors, exit statuses, the error boundary."""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import signal
import sys
import threading
import traceback
from decimal import Decimal, InvalidOperation

from ..errors import BaccaratSimError
from ..limits import MAX_ROUNDS
from ..report.text import one_line

__all__ = [
    "EXIT_CHECK_FAILED",
    "EXIT_INTERNAL",
    "EXIT_OK",
    "EXIT_USAGE",
    "HelpFormatter",
    "Parser",
    "UsageError",
    "announce_compile",
    "guarded_main",
    "ignore_stop_signals",
    "non_negative_float",
    "parse_rounds",
    "positive_int",
    "seconds",
    "seed",
]

EXIT_OK = 0
EXIT_CHECK_FAILED = 1
#: A bug: an exception the library did not raise on purpose.
EXIT_INTERNAL = 1
EXIT_USAGE = 2
#: Environment variable that makes an internal error print its traceback (as ``--debug`` does).
DEBUG_VARIABLE = "BACCARAT_SIM_DEBUG"


class UsageError(Exception):
    """Bad input found by a command line itself: reported as one line and exit status 2."""


#: Seconds of preparing a kernel after which it is announced as compiling (a cached kernel loads in well under).
COMPILE_NOTICE_SECONDS = 1.0


@contextlib.contextmanager
def announce_compile(what: str, quiet: bool = False):
    """Say on stderr that ``what`` is compiling, if preparing it takes longer than a cached load would.

    numba compiles a kernel on its first use after an install (or an upgrade)
    and caches it; a later run loads it in a fraction of a second. Work timed
    inside this block is compile time: speed figures start after it.
    """
    timer = threading.Timer(COMPILE_NOTICE_SECONDS, lambda: print(
        f"compiling {what}, once per install (up to a minute); later runs start at once", file=sys.stderr,
        flush=True))
    timer.daemon = True
    if not quiet:
        timer.start()
    try:
        yield
    finally:
        timer.cancel()


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


class Parser(argparse.ArgumentParser):
    """argparse that reports bad input as one line and exit status 2, and suggests the nearest option."""

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


class _Stopped(KeyboardInterrupt):
    """SIGTERM or SIGHUP outside a run's dealing loop: the command stops as on Ctrl-C, with 128 + the signal."""

    def __init__(self, signum: int):
        super().__init__()
        self.signum = signum


def _stop_as_interrupt(signum, frame):
    raise _Stopped(signum)


def ignore_stop_signals() -> None:
    """Ignore Ctrl-C, SIGTERM and SIGHUP from now on: the command is stopping already, its report must not be cut.

    :func:`guarded_main` puts the handlers back when an in-process call returns.
    """
    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_IGN)


def guarded_main(prog: str, parser: argparse.ArgumentParser, run, argv, option_of, on_interrupt) -> int:
    """Parse ``argv``, call ``run(args)`` and turn every failure into the command line's exit status.

    Parameters
    ----------
    prog : str
        The command's name, for messages.
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
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else EXIT_USAGE
    debug = getattr(args, "debug", False) or os.environ.get(DEBUG_VARIABLE, "") not in ("", "0")
    # SIGTERM and SIGHUP stop a command as Ctrl-C does; while a run deals, the run driver turns all three into
    # a clean stop at a chunk boundary instead.
    previous = {"SIGINT": signal.getsignal(signal.SIGINT)}
    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            previous[name] = signal.signal(getattr(signal, name), _stop_as_interrupt)
    try:
        return run(args)
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
        option = option_of(param, args) if param else ""
        print(f"{prog}: error: {one_line((option + ': ' if option else '') + message)}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt as stop:  # outside the dealing loop (compiling, settling, writing)
        ignore_stop_signals()  # the command is stopping: a second Ctrl-C must not cut its message or exit short
        status = on_interrupt(args)
        # A batch scheduler's SIGTERM must read as one (143), not as Ctrl-C (130).
        return status if getattr(stop, "signum", None) is None else 128 + int(stop.signum)
    except Exception as error:  # a bug: never dressed up as bad input
        if debug:
            traceback.print_exc()
        else:
            print(f"{prog}: internal error (a bug, please report it): {type(error).__name__}: {one_line(str(error))}; "
                  f"rerun with --debug or {DEBUG_VARIABLE}=1 to see the traceback", file=sys.stderr)
        return EXIT_INTERNAL
    finally:
        if argv is None:
            # The process ends now (the command line's own call): a late Ctrl-C or SIGTERM must not turn a clean
            # exit, with its status and its last message, into death by that signal.
            ignore_stop_signals()
        else:
            for name, handler in previous.items():
                if handler is not None:  # None: set outside Python, cannot be put back from here
                    signal.signal(getattr(signal, name), handler)
