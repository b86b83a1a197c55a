"""Checkpoints of Monte Carlo runs: written atomically, checked in full before a run resumes.

A checkpoint is a checked archive (:mod:`baccarat_sim.storage.archive`): the
run's plan, what it has dealt and the stream version of the dealing code
(:data:`~baccarat_sim.engines.fingerprint.STREAM_VERSION`). Before a
run resumes from one, every invariant between its parts is checked: the plan
must be the one the rule set gives for its round count, the chunks done must
account for exactly the rounds or shoes counted, and every count must add up.
A file that fails any check is refused with one line; nothing in it is used.
"""

from __future__ import annotations

import numpy as np

from .._version import __version__
from ..errors import CheckpointError
from ..model.cards import RANK_NAMES
from ..model.codes import N_CODES
from ..storage.archive import ArchiveError, read_archive, read_archive_header, write_archive
from ..storage.writing import atomic_write
from .detail import detail_of_texts
from .fingerprint import STREAM_VERSION
from .plan import RunPlan, plan_run
from .state import RunState

__all__ = ["FORMAT", "PLAN_FIELDS", "load_checkpoint", "peek_checkpoint", "save_checkpoint"]

FORMAT = "baccarat_sim-checkpoint"
#: Plan fields a resumed run must share with its checkpoint (what fixes the random stream and the layout).
PLAN_FIELDS = ("seed", "rounds_requested", "model", "composition", "n_positions", "shoe_params", "detail")


def save_checkpoint(path, plan: RunPlan, state: RunState, meta: dict | None = None) -> None:
    """Write the run's plan and state to ``path`` (``.npz``), atomically and flushed to disk.

    The file is first written beside ``path`` and then renamed over it, so a
    crash mid-write leaves the previous checkpoint intact.
    """
    header = {
        "version": __version__,
        "stream": STREAM_VERSION,
        "plan": plan.identity(),
        "rounds": int(state.rounds),
        "shoes": int(state.shoes),
        "next_chunk": int(state.next_chunk),
        "done_ahead": sorted(int(c) for c in state.done_ahead),  # chunks a distributed run finished past a gap
        "kernel_seconds": float(state.kernel_seconds),
        "meta": meta or {},
    }

    def write(temporary):
        with open(temporary, "wb") as stream:  # a file object: numpy would append ".npz" to a name
            write_archive(stream, FORMAT, header, {"by_position": state.by_position, "batches": state.batches})

    atomic_write(path, write, sync=True)


def _fail(path, message: str):
    raise CheckpointError("checkpoint", f"{path}: {message}")


def _integer(value, path, name: str, low: int = 0, high: int = 2**62) -> int:
    if type(value) is not int or not low <= value <= high:
        _fail(path, f"is damaged ({name} = {value!r} is not a whole number from {low} to {high})")
    return value


def _plan(fields, path) -> RunPlan:
    """The checkpoint's plan, every field of the right type (its card detail is checked by :func:`_check_detail`)."""
    if not isinstance(fields, dict) or set(fields) != {f.name for f in RunPlan.__dataclass_fields__.values()}:
        _fail(path, "is damaged (its plan has the wrong fields)")
    for name in ("seed", "rounds_requested", "units_per_block", "total_blocks", "last_units", "blocks_per_chunk",
                 "n_positions", "n_cells"):
        _integer(fields[name], path, f"plan.{name}")
    if fields["units_per_block"] < 1 or fields["blocks_per_chunk"] < 1 or fields["total_blocks"] < 1 or \
            fields["n_cells"] < 1 or fields["n_positions"] < 1:
        _fail(path, "is damaged (its plan has an empty layout)")
    if not isinstance(fields["detail"], list) or not all(isinstance(x, str) for x in fields["detail"]):
        _fail(path, "is damaged (plan.detail is not a list of card-level conditions)")
    for name in ("composition", "shoe_params"):
        if not isinstance(fields[name], list) or not all(type(x) is int for x in fields[name]):
            _fail(path, f"is damaged (plan.{name} is not a list of whole numbers)")
    if len(fields["composition"]) != 52 or not all(0 <= x <= 2**16 for x in fields["composition"]):
        _fail(path, "is damaged (plan.composition is not a shoe)")
    if fields["model"] not in ("fresh", "dealt") or not all(isinstance(fields[k], str) for k in ("rules_id",
                                                                                                  "rules_sha256")):
        _fail(path, "is damaged (plan.model or the rule set's id is not valid)")
    return RunPlan(**{**fields, "composition": tuple(fields["composition"]),
                      "shoe_params": tuple(fields["shoe_params"]), "detail": tuple(fields["detail"])})


def _check_detail(path, plan: RunPlan) -> None:
    """The plan's card detail is made of card-level conditions, and gives its cells (compiles every condition)."""
    try:
        detail = detail_of_texts(plan.detail)
    except ValueError as error:
        _fail(path, f"is damaged (plan.detail: {error})")
    if plan.n_cells != (N_CODES if detail is None else detail.n_cells):
        _fail(path, "is damaged (plan.n_cells does not fit its card detail)")


def _check_plan(path, header: dict, shapes: dict, expect: RunPlan | None, rules, compare) -> RunPlan:
    """What the header and the arrays' declared shapes tell, checked before any array is decompressed.

    The plan must be the run's (``expect``, the rule set's), and the arrays
    its size: a hostile file costs no more than its header. Its card detail is
    compiled only when nothing the caller knows vouches for it.
    """
    if header.get("stream") != STREAM_VERSION:
        # Another stream deals other rounds from the same seed: mixing the two would be silently wrong.
        _fail(path, f"was dealt by other dealing code (baccarat_sim {header.get('version')}, random stream "
                    f"{header.get('stream')}; this baccarat_sim deals random stream {STREAM_VERSION}, whose rounds "
                    "for the same seed differ); start the run again instead of resuming it")
    plan = _plan(header.get("plan"), path)
    if rules is not None and plan.rules_sha256 != rules.sha256:
        if plan.rules_id == rules.id:
            _fail(path, f"is from another version of rule set {rules.id!r} (sha256 {plan.rules_sha256[:12]}, this "
                        f"file is {rules.sha256[:12]}); start the run again")
        _fail(path, f"is from rule set {plan.rules_id!r}, this run uses {rules.id!r}")
    if expect is not None:
        for name in compare:
            if getattr(expect, name) != getattr(plan, name):
                _fail(path, f"has {_describe(plan, name)}, this run asks for {_describe(expect, name)}; start a "
                            "new run, or resume with the same settings")
    vouched = expect is not None and "detail" in compare and expect.n_cells == plan.n_cells
    if rules is not None:
        try:
            again = plan_run(rules, plan.rounds_requested, plan.seed, model=plan.model, shoe=plan.shoe,
                             by_position=plan.n_positions > 1)
        except ValueError as error:
            _fail(path, f"is damaged (its plan cannot be made again: {error})")
        if again != plan:
            wrong = next(f for f in RunPlan.__dataclass_fields__ if getattr(again, f) != getattr(plan, f))
            _fail(path, f"is damaged (its plan has {wrong} = {getattr(plan, wrong)!r}, but {plan.rounds_requested:,} "
                        f"rounds of this rule set give {getattr(again, wrong)!r})")
        vouched = True
    if set(shapes) != {"by_position", "batches"} or any(dtype != np.int64 for dtype, _ in shapes.values()):
        _fail(path, "is damaged (its arrays are not the run's counts)")
    if shapes["by_position"][1] != (plan.n_positions, plan.n_cells) or \
            shapes["batches"][1] != (plan.n_batches, plan.n_cells):
        _fail(path, "is damaged (its arrays do not fit its plan)")
    if not vouched:
        _check_detail(path, plan)
    return plan


def _check_consistent(path, plan: RunPlan, state: RunState) -> None:
    """Every invariant between a checkpoint's plan, counters and arrays (in time independent of its chunks)."""
    if not 0 <= state.next_chunk <= plan.n_chunks:
        _fail(path, f"is damaged (next_chunk {state.next_chunk} is outside 0..{plan.n_chunks})")
    if any(not state.next_chunk < c < plan.n_chunks for c in state.done_ahead):
        _fail(path, "is damaged (a chunk done ahead lies outside the run or before next_chunk)")
    if (state.by_position < 0).any() or (state.batches < 0).any():
        _fail(path, "is damaged (a negative count)")
    units = plan.units_of_chunks(0, state.next_chunk) + sum(plan.units_of_chunks(c, 1) for c in state.done_ahead)
    counted = state.rounds if plan.model == "fresh" else state.shoes
    if counted != units:
        what = "rounds" if plan.model == "fresh" else "shoes"
        _fail(path, f"is damaged ({state.chunks_done} chunks done deal {units:,} {what}, but it counts {counted:,})")
    if int(state.by_position.sum()) != state.rounds or int(state.batches.sum()) != state.rounds:
        _fail(path, f"is damaged (its counts do not add up to its {state.rounds:,} rounds)")
    if plan.model == "dealt" and not state.shoes <= state.rounds <= state.shoes * (plan.shoe.sum() // 4):
        _fail(path, "is damaged (its rounds do not fit its shoes)")


def load_checkpoint(path, expect: RunPlan | None = None, rules=None,
                    compare: tuple[str, ...] = PLAN_FIELDS) -> tuple[RunPlan, RunState]:
    """Read a checkpoint, refusing one that is damaged or from another dealing code, rule set or run.

    Everything its header and the shapes its arrays declare can tell is
    checked first (:func:`_check_plan`); only a checkpoint of this run has its
    arrays decompressed and its checksum verified.

    Parameters
    ----------
    path : str or Path
        The checkpoint (``.npz``) written by :func:`save_checkpoint`.
    expect : RunPlan or None
        The plan the caller is about to run; its fields named in ``compare``
        must match the checkpoint's. None accepts the checkpoint's own plan.
    rules : Rules or None
        The rule set in use; its hash must match the checkpoint's, and the
        checkpoint's plan must be the one it gives.
    compare : tuple of str
        Fields of :class:`~baccarat_sim.engines.plan.RunPlan` checked against
        ``expect`` (a command line leaves out the seed and rounds the user did
        not give: they come from the checkpoint).

    Returns
    -------
    (RunPlan, RunState)
        The checkpoint's plan and what it had dealt.

    Raises
    ------
    CheckpointError
        One line naming the file and the problem (``param`` ``"checkpoint"``).
    """
    checked = {}

    def before_arrays(header, shapes):
        checked["plan"] = _check_plan(path, header, shapes, expect, rules, compare)

    try:
        header, arrays = read_archive(path, FORMAT, "checkpoint", check=before_arrays)
    except ArchiveError as error:
        raise CheckpointError("checkpoint", str(error)) from None
    plan = checked["plan"]
    done_ahead = header.get("done_ahead")
    if not isinstance(done_ahead, list):
        _fail(path, "is damaged (done_ahead is not a list)")
    kernel_seconds = header.get("kernel_seconds")
    if type(kernel_seconds) not in (int, float) or not 0 <= kernel_seconds < 1e12:
        _fail(path, "is damaged (kernel_seconds)")
    state = RunState(
        by_position=arrays["by_position"], batches=arrays["batches"],
        rounds=_integer(header.get("rounds"), path, "rounds"), shoes=_integer(header.get("shoes"), path, "shoes"),
        next_chunk=_integer(header.get("next_chunk"), path, "next_chunk"),
        kernel_seconds=float(kernel_seconds),
        done_ahead={_integer(c, path, "done_ahead") for c in done_ahead},
    )
    _check_consistent(path, plan, state)
    return plan, state


def peek_checkpoint(path) -> dict | None:
    """The header of a checkpoint (seed, rounds done, plan, version), or None if it cannot be read.

    The header alone is read, and nothing in it is verified: it says what a
    new run would replace, never what a run resumes from.
    """
    try:
        return read_archive_header(path, FORMAT, "checkpoint")
    except ArchiveError:
        return None


def _describe(plan: RunPlan, name: str) -> str:
    """A plan field as a person reads it (a shoe by its cards, not 52 numbers)."""
    value = getattr(plan, name)
    if name == "composition":
        counts = np.array(value).reshape(13, 4).sum(axis=1)
        return f"a shoe of {sum(value)} cards (by rank {' '.join(f'{r}:{c}' for r, c in zip(RANK_NAMES, counts))})"
    if name == "shoe_params":
        return f"burn/cut-card settings {list(value)}"
    if name == "n_positions":
        return f"{value} round positions"
    if name == "detail":
        return f"card detail [{'; '.join(value)}]" if value else "no card detail"
    return f"{name} = {value!r}"
