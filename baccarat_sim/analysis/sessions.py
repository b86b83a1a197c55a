"""A player's sessions: bankroll, stop-loss, stop-win, round limit; exactly (Markov chain) and by Monte Carlo.

The player starts with a bankroll and plays the same slip every round; ``Z``
is the session's net result so far. Before each round the slip's total stake
must be on the table. After each round the session stops, in this order of
precedence, on

* **ruin**: ``B + Z < cost``, the bankroll left cannot cover the next slip;
* **stop-loss**: ``Z <= -L``;
* **goal** (stop-win): ``Z >= G``;
* **round limit**: ``M`` rounds played (a bound reached on round ``M`` counts as that bound).

The final result is the ``Z`` reached, overshoot included.

* :func:`session_chain` solves this exactly as an absorbing Markov chain
  (forward propagation of the distribution of ``Z``) for a fresh shoe, where
  rounds are independent.
* :func:`simulate_sessions` plays it by Monte Carlo in the numba kernel
  (:mod:`baccarat_sim.kernels.sessions`) through the one run driver: exact
  draws from the slip's integer weights for a fresh shoe, or every round
  dealt through consecutive shoes for a dealt one. Results are the same for
  any number of threads.
* :func:`simulate_tables` plays sessions with no stop at all: a table's
  result over ``N`` rounds, as an :class:`~baccarat_sim.analysis.empirical.EmpiricalSum`
  (for the dealt model, where no exact lattice law exists).
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

import numpy as np

from ..engines.driver import RunControl, run
from ..engines.local import LocalBackend
from ..engines.packer import kernel_tables
from ..engines.plan import shoe_params
from ..engines.sessions import NO_BOUND, SessionJob, SessionPlan, sampling_table, warm_up
from ..errors import InputError, ShoeError
from ..model.amounts import amount_text
from ..model.shoe import canonical_cards
from .empirical import EmpiricalSum
from .one_round import OneRound, as_fraction
from .slip import Slip
from .stats import Z95, wilson_interval

__all__ = [
    "SessionBounds",
    "SessionEstimate",
    "SessionOutcome",
    "SessionRules",
    "chain_cells",
    "session_bounds",
    "session_chain",
    "simulate_sessions",
    "simulate_tables",
]

#: Most rounds a session may last (the length distribution is kept per round).
MAX_SESSION_ROUNDS = 10**7


@dataclasses.dataclass(frozen=True)
class SessionRules:
    """How a player's session runs and stops (amounts in chips, as the stakes).

    Attributes
    ----------
    bankroll : Fraction
        ``B >= cost``.
    max_rounds : int
        ``M``: the most rounds a session lasts.
    stop_loss : Fraction or None
        ``L > 0``; None: play until ruin.
    stop_win : Fraction or None
        ``G > 0``; None: no goal.
    cost : Fraction or None
        What one round puts on the table; default the slip's total stake.
    """

    bankroll: Fraction
    max_rounds: int
    stop_loss: Fraction | None = None
    stop_win: Fraction | None = None
    cost: Fraction | None = None

    def __post_init__(self):
        for name in ("bankroll", "stop_loss", "stop_win", "cost"):
            value = getattr(self, name)
            if value is not None:
                if isinstance(value, bool) or not isinstance(value, (int, float, Fraction, np.integer, np.floating)):
                    raise InputError(name, f"must be a number > 0, got {value!r}")
                exact = as_fraction(value)
                if not exact > 0:
                    raise InputError(name, f"must be > 0, got {value}")
                object.__setattr__(self, name, exact)
        rounds = self.max_rounds
        if isinstance(rounds, bool) or int(rounds) != rounds or not 1 <= rounds <= MAX_SESSION_ROUNDS:
            raise InputError("max_rounds", f"must be a whole number from 1 to {MAX_SESSION_ROUNDS:.0e}, got {rounds}")
        object.__setattr__(self, "max_rounds", int(rounds))


@dataclasses.dataclass(frozen=True)
class SessionBounds:
    """The session's stopping rules on the lattice of ``Z / unit`` (integers).

    Attributes
    ----------
    low : int
        Stop when ``z <= low`` (ruin or stop-loss).
    ruin : int
        ``z <= ruin`` is ruin (``ruin <= low``).
    high : int
        Stop when ``z >= high`` (goal); unreachable when there is no goal.
    z_min, z_max : int
        Range of every possible final result.
    max_rounds : int
    cost : Fraction
    """

    low: int
    ruin: int
    high: int
    z_min: int
    z_max: int
    max_rounds: int
    cost: Fraction


def session_bounds(player: OneRound, rules: SessionRules) -> SessionBounds:
    """Integer stopping thresholds of ``rules`` on the lattice of ``player``.

    Raises
    ------
    InputError
        ``bankroll``: it cannot cover the slip's cost.
    """
    unit = player.unit
    cost = rules.cost if rules.cost is not None else player.cost
    if cost is None:
        cost = max(-player.values[0], unit)
    if rules.bankroll < cost:
        raise InputError("bankroll", f"{amount_text(rules.bankroll)} cannot cover the slip's total stake of "
                                     f"{amount_text(cost)}")
    d_min, d_max = int(player.steps[0]), int(player.steps[-1])
    # A threshold no session can reach (a bankroll of 10^30 chips) is as good as none: it is held beyond every result
    # a session of at most MAX_SESSION_ROUNDS rounds can reach, so that it fits the kernels' int64.
    far = MAX_SESSION_ROUNDS * (max(-d_min, d_max) + 1) + 1
    ruin = max(math.ceil((cost - rules.bankroll) / unit) - 1, -far)  # B + z unit < cost
    low = ruin if rules.stop_loss is None else max(ruin, math.floor(-rules.stop_loss / unit))
    high = (min(math.ceil(rules.stop_win / unit), far) if rules.stop_win is not None
            else rules.max_rounds * max(d_max, 0) + 1)
    return SessionBounds(low, ruin, high, low + 1 + min(d_min, 0), high - 1 + max(d_max, 0), rules.max_rounds, cost)


@dataclasses.dataclass(frozen=True)
class SessionEstimate:
    """A session figure with its standard error and 95% confidence interval (all 0-width when exact).

    Attributes
    ----------
    value, se, ci_low, ci_high : float
    """

    value: float
    se: float = 0.0
    ci_low: float = math.nan
    ci_high: float = math.nan

    def __post_init__(self):
        if math.isnan(self.ci_low):
            object.__setattr__(self, "ci_low", self.value)
            object.__setattr__(self, "ci_high", self.value)

    def z(self, reference: float) -> float:
        """z-score of this estimate against a reference value (0 or +/-inf when exact)."""
        if self.se == 0:
            return 0.0 if self.value == reference else math.copysign(math.inf, self.value - reference)
        return (self.value - reference) / self.se


@dataclasses.dataclass(frozen=True, eq=False)
class SessionOutcome:
    """How player sessions end: exact (:func:`session_chain`) or Monte Carlo (:func:`simulate_sessions`).

    Attributes
    ----------
    p_goal, p_stop_loss, p_ruin, p_limit : SessionEstimate
        Probabilities of each way to stop (they sum to 1).
    mean_final : SessionEstimate
        Expected final result ``Z`` (chips).
    mean_length : SessionEstimate
        Expected number of rounds played.
    final_steps : ndarray(int64, shape=(m,))
        Final results in lattice units, ascending.
    final_pmf : ndarray(float64, shape=(m,))
        ``P(Z = final_steps[i] * unit)``.
    length_pmf : ndarray(float64, shape=(max_rounds + 1,))
        ``length_pmf[k] = P(the session lasts k rounds)``.
    bounds : SessionBounds
    rules : SessionRules
    unit : Fraction
    method : str
    model : str
        ``"fresh"`` or ``"dealt"``.
    n_sessions : int or None
        Sessions simulated (Monte Carlo).
    seed : int or None
    rounds : int or None
        Rounds dealt (Monte Carlo).
    complete : bool
        False when a signal stopped the simulation early (the figures are of the sessions played).
    """

    p_goal: SessionEstimate
    p_stop_loss: SessionEstimate
    p_ruin: SessionEstimate
    p_limit: SessionEstimate
    mean_final: SessionEstimate
    mean_length: SessionEstimate
    final_steps: np.ndarray
    final_pmf: np.ndarray
    length_pmf: np.ndarray
    bounds: SessionBounds
    rules: SessionRules
    unit: Fraction
    method: str
    model: str = "fresh"
    n_sessions: int | None = None
    seed: int | None = None
    rounds: int | None = None
    complete: bool = True

    @property
    def exact(self) -> bool:
        """Whether the figures are exact (the Markov chain), not estimates."""
        return self.n_sessions is None

    def final_values(self) -> np.ndarray:
        """Chips of each ``final_pmf`` entry, ``ndarray(float64, (m,))``."""
        return self.final_steps * float(self.unit)

    def final_quantile(self, q: float) -> Fraction:
        """Smallest final result (chips) ``v`` with ``P(Z <= v) >= q``."""
        index = np.searchsorted(np.cumsum(self.final_pmf), q * (1 - 1e-12), side="left")
        return int(self.final_steps[min(index, self.final_steps.size - 1)]) * self.unit

    def length_quantile(self, q: float) -> int:
        """Smallest session length ``k`` with ``P(length <= k) >= q``."""
        index = np.searchsorted(np.cumsum(self.length_pmf), q * (1 - 1e-12), side="left")
        return int(min(index, self.length_pmf.size - 1))


def _stop_masses(steps: np.ndarray, mass: np.ndarray, bounds: SessionBounds) -> tuple:
    """``(goal, stop_loss, ruin, limit)`` masses (probabilities or counts) of final results, by where ``Z`` ended."""
    goal = mass[steps >= bounds.high].sum()
    ruin = mass[steps <= bounds.ruin].sum()
    stop_loss = mass[(steps > bounds.ruin) & (steps <= bounds.low)].sum()
    limit = mass[(steps > bounds.low) & (steps < bounds.high)].sum()
    return goal.item(), stop_loss.item(), ruin.item(), limit.item()


def chain_cells(player: OneRound, rules: SessionRules) -> int:
    """Work of :func:`session_chain`: transient states times rounds (about 3 ns each for a main-bet slip)."""
    bounds = session_bounds(player, rules)
    return (bounds.high - bounds.low - 1) * bounds.max_rounds


def session_chain(player: OneRound, rules: SessionRules, *, max_cells: float = 2e10) -> SessionOutcome:
    """Session outcome, exactly: forward propagation of the absorbing Markov chain (fresh shoe).

    The state is the net result ``z`` (lattice units) strictly between the
    bounds; each round the state distribution is convolved with one round
    (shifted adds over the outcomes, or ``np.convolve`` for many outcomes),
    the mass landing beyond a bound is absorbed at the value reached and
    counted in the final result and the session length. Cost ``states x
    rounds x outcomes`` (:func:`chain_cells`); float64 throughout (the mass
    defect is stated in ``method``).

    Parameters
    ----------
    player : OneRound
        The slip's one-round net result for the player.
    rules : SessionRules
    max_cells : float
        Refuse when ``states x max_rounds`` is larger: use :func:`simulate_sessions`.

    Returns
    -------
    SessionOutcome

    Raises
    ------
    InputError
        ``max_rounds``: the chain is larger than ``max_cells``.
    """
    bounds = session_bounds(player, rules)
    n_states = bounds.high - bounds.low - 1
    if n_states * bounds.max_rounds > max_cells:
        raise InputError("max_rounds", f"the exact chain has {n_states:,} states x {bounds.max_rounds:,} rounds, over "
                                       f"{max_cells:.0e}: use Monte Carlo")
    steps, probs = player.steps, player.probabilities
    offset = bounds.low + 1 - bounds.z_min  # index of the first transient state in the full array
    shifts = offset + steps  # where each outcome moves the transient block to
    dense = steps.size > 32
    kernel = np.zeros(int(steps[-1] - steps[0]) + 1)
    kernel[steps - steps[0]] = probs
    state = np.zeros(n_states)
    state[-bounds.low - 1] = 1.0  # z = 0
    final = np.zeros(bounds.z_max - bounds.z_min + 1)
    length = np.zeros(bounds.max_rounds + 1)
    for k in range(1, bounds.max_rounds + 1):
        full = np.zeros_like(final)
        if dense:
            first = offset + int(steps[0])
            full[first:first + n_states + kernel.size - 1] = np.convolve(state, kernel)
        else:
            for shift, p in zip(shifts, probs):
                full[shift:shift + n_states] += p * state
        state = full[offset:offset + n_states].copy()
        full[offset:offset + n_states] = 0.0
        final += full
        length[k] = full.sum()
    final[offset:offset + n_states] += state
    length[bounds.max_rounds] += state.sum()
    defect = abs(1.0 - math.fsum(final))
    z = bounds.z_min + np.arange(final.size)
    goal, stop_loss, ruin, limit = _stop_masses(z, final, bounds)
    mean_final = float(final @ z) * float(player.unit)
    mean_length = float(length @ np.arange(length.size))
    method = (f"exact: absorbing Markov chain, forward propagation over {bounds.max_rounds:,} rounds x {n_states:,} "
              f"states (float64; total mass 1 - {defect:.0e})")
    for array in (z, final, length):
        array.setflags(write=False)
    return SessionOutcome(SessionEstimate(goal), SessionEstimate(stop_loss), SessionEstimate(ruin),
                          SessionEstimate(limit), SessionEstimate(mean_final), SessionEstimate(mean_length), z, final,
                          length, bounds, rules, player.unit, method)


def _proportion(p: float, n: int) -> SessionEstimate:
    p = min(max(p, 0.0), 1.0)
    low, high = wilson_interval(round(p * n), n)
    # Clamped: at p = 0 or 1 the formula's round-off would put the estimate a hair outside its own interval.
    return SessionEstimate(p, math.sqrt(p * (1 - p) / n), min(max(low, 0.0), p), max(min(high, 1.0), p))


def _mean(counts: np.ndarray, values: np.ndarray, n: int) -> SessionEstimate:
    mean = float(counts @ values) / n
    variance = float(counts @ (values - mean) ** 2) / max(n - 1, 1)
    se = math.sqrt(variance / n)
    return SessionEstimate(mean, se, mean - Z95 * se, mean + Z95 * se)


def _job(source: Slip | OneRound, model: str, plan: SessionPlan, low: int, high: int) -> SessionJob:
    """The session job of a slip (or a bare one-round law, fresh model only) with its kernel's arrays."""
    player = source.player if isinstance(source, Slip) else source
    if model == "fresh":
        return SessionJob(plan, low, high, fresh=sampling_table(player.steps, player.weights))
    if not isinstance(source, Slip):
        raise InputError("model", "the dealt model deals every round from a shoe: give a Slip, not a one-round law")
    rules, composition = source.rules, source.composition
    n_cards = int(composition.sum())
    problem = rules.shoe.room_problem(n_cards)
    if problem:
        raise ShoeError("shoe", problem)
    tables = None if source.detail is None else kernel_tables(source.detail)
    return SessionJob(plan, low, high,
                      dealt=(canonical_cards(composition), shoe_params(rules.shoe, n_cards), source.code_steps, tables))


def _model_words(source: Slip | OneRound, model: str) -> str:
    if model == "fresh":
        return ("every round from a freshly shuffled shoe, exact draws from the slip's integer weights (Lemire, "
                "unbiased)")
    shoe = source.rules.shoe
    cut = shoe.cut_card
    burn = "no burn" if shoe.burn == "none" else f"burn {shoe.burn.replace('_', ' ')}"
    cut_text = f"{cut.low}" if cut.low == cut.high else f"{cut.low}-{cut.high}"
    return (f"every round dealt from shoes dealt through to the cut card ({burn}, cut card {cut_text} cards from the "
            f"end), a session starting with a new shoe and going on through as many as it needs")


def _run(job: SessionJob, threads, progress, max_chunks):
    warm_up(job)  # compile (or load the cached kernel) before the progress bar starts
    state = job.new_state()
    outcome = run(job, state, LocalBackend(threads), RunControl(progress=progress, max_chunks=max_chunks))
    if outcome.interrupted:
        # Ctrl-C (or SIGTERM, SIGHUP) stopped the run at a chunk boundary: stop the caller too, as Python does.
        raise KeyboardInterrupt
    if state.sessions < 2:
        raise InputError("sessions", f"stopped after {state.sessions} session(s): too few to estimate anything")
    return state, outcome


def simulate_sessions(source: Slip | OneRound, rules: SessionRules, n_sessions: int, seed: int | None = None, *,
                      model: str | None = None, threads: int | None = None, progress=None,
                      max_chunks: int | None = None) -> SessionOutcome:
    """Monte Carlo of player sessions (see :class:`SessionRules`), in the numba kernel, through the run driver.

    Parameters
    ----------
    source : Slip or OneRound
        The slip (its rule set's shoe model decides how rounds are dealt), or
        a bare one-round law of the player's net (fresh model only).
    rules : SessionRules
    n_sessions : int
        At least 2.
    seed : int or None
        Master seed (None draws one; it is in the result).
    model : {"fresh", "dealt"} or None
        Overrides the slip's shoe model.
    threads : int or None
        numba threads for this run (None: numba's setting); the result does not depend on it.
    progress : object or None
        Anything with ``update(n)``: told of the sessions played.
    max_chunks : int or None
        Stop after this many chunks (as a signal would).

    Returns
    -------
    SessionOutcome
        Probabilities with standard errors and 95% Wilson intervals; means
        with standard errors and normal 95% intervals (CLT over the sessions).
    """
    player = source.player if isinstance(source, Slip) else source
    model = model or (source.model if isinstance(source, Slip) else "fresh")
    bounds = session_bounds(player, rules)
    plan = SessionPlan.for_sessions(model, n_sessions, bounds.max_rounds, seed)
    if plan.sessions < 2:
        raise InputError("sessions", f"must be at least 2, got {plan.sessions}")
    state, _ = _run(_job(source, model, plan, bounds.low, bounds.high), threads, progress, max_chunks)
    n = state.sessions
    steps = state.final_values
    final_pmf = state.final_counts / n
    lengths = state.length_table(plan.max_rounds + 1)  # the outcome's length law is a table over 0..max_rounds
    length_pmf = lengths / n
    # From the integer counts: each proportion is one division, so the four sum to 1 up to rounding.
    goal, stop_loss, ruin, limit = (count / n for count in _stop_masses(steps, state.final_counts, bounds))
    z_values = steps * float(player.unit)
    complete = n == plan.sessions
    note = "" if complete else f"; stopped at max_chunks after {n:,} of {plan.sessions:,} sessions"
    method = (f"Monte Carlo: {n:,} sessions ({state.rounds:,} rounds), {_model_words(source, model)}; xoshiro256** "
              f"per block of {plan.sessions_per_block} sessions, seed {plan.seed}{note}")
    for array in (steps, final_pmf, length_pmf):
        array.setflags(write=False)
    return SessionOutcome(_proportion(goal, n), _proportion(stop_loss, n), _proportion(ruin, n),
                          _proportion(limit, n), _mean(state.final_counts, z_values, n),
                          _mean(lengths, np.arange(lengths.size, dtype=np.float64), n),
                          steps, final_pmf, length_pmf, bounds, rules, player.unit, method, model, n, plan.seed,
                          state.rounds, complete)


def simulate_tables(source: Slip | OneRound, n_rounds: int, tables: int, seed: int | None = None, *,
                    model: str | None = None, threads: int | None = None, progress=None,
                    max_chunks: int | None = None) -> EmpiricalSum:
    """The house's result over ``n_rounds`` rounds of the slip at ``tables`` simulated tables (no stop).

    For the dealt model (rounds of a shoe are dependent, so no lattice law
    exists) this is the way to the distribution of the table's result: each
    table deals ``n_rounds`` rounds through consecutive shoes, starting with a
    new shoe.

    Parameters
    ----------
    source : Slip or OneRound
    n_rounds : int
    tables : int
        At least 2.
    seed, model, threads, progress, max_chunks
        As for :func:`simulate_sessions` (``progress`` counts tables).

    Returns
    -------
    EmpiricalSum
        The house's result (minus the player's) per table, with confidence intervals.
    """
    player = source.player if isinstance(source, Slip) else source
    model = model or (source.model if isinstance(source, Slip) else "fresh")
    plan = SessionPlan.for_sessions(model, tables, n_rounds, seed)
    if plan.sessions < 2:
        raise InputError("tables", f"must be at least 2, got {plan.sessions}")
    state, _ = _run(_job(source, model, plan, -NO_BOUND, NO_BOUND), threads, progress, max_chunks)
    n = state.sessions
    note = "" if n == plan.sessions else f"; stopped at max_chunks after {n:,} of {plan.sessions:,} tables"
    method = (f"Monte Carlo: {n:,} simulated tables of {plan.max_rounds:,} rounds ({_model_words(source, model)}); "
              f"seed {plan.seed}; 95% CIs: Wilson for probabilities, order statistics for quantiles, normal for the "
              f"mean{note}")
    # The house's result is minus the player's: negate and reverse to keep the values ascending.
    return EmpiricalSum(plan.max_rounds, player.unit, -state.final_values[::-1].copy(),
                        state.final_counts[::-1].copy(), method, n == plan.sessions)
