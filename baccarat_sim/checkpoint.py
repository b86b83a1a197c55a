"""Checkpoints of Monte Carlo runs: written atomically, checked before resuming."""

from __future__ import annotations

import json
import os
import tempfile
import zipfile
from pathlib import Path

import numpy as np

from ._version import __version__
from .simulate import RunPlan, RunState

__all__ = ["CheckpointError", "load_checkpoint", "peek_checkpoint", "save_checkpoint"]


class CheckpointError(ValueError):
    """A checkpoint that cannot be resumed (unreadable, or from another run)."""


def save_checkpoint(path: str | Path, plan: RunPlan, state: RunState, meta: dict | None = None) -> None:
    """Write the run's plan and state to ``path`` (``.npz``), atomically.

    The file is first written beside ``path`` and then renamed over it, so a
    crash mid-write leaves the previous checkpoint intact.
    """
    path = Path(path)
    header = {
        "format": "baccarat_sim-checkpoint",
        "version": __version__,
        "plan": plan.identity(),
        "rounds": state.rounds,
        "shoes": state.shoes,
        "next_chunk": state.next_chunk,
        "done_ahead": sorted(state.done_ahead),  # chunks a distributed run finished past a gap
        "kernel_seconds": state.kernel_seconds,
        "meta": meta or {},
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            np.savez_compressed(stream, header=np.array(json.dumps(header)), by_position=state.by_position,
                                batches=state.batches)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


#: Plan fields a resumed run must share with its checkpoint (what fixes the random stream and the layout).
PLAN_FIELDS = ("seed", "rounds_requested", "model", "composition", "n_positions", "shoe_params")


def load_checkpoint(path: str | Path, expect: RunPlan | None = None, rules=None,
                    compare: tuple[str, ...] = PLAN_FIELDS) -> tuple[RunPlan, RunState]:
    """Read a checkpoint, refusing one from another version, rule set or run.

    Parameters
    ----------
    path : str or Path
        The checkpoint (``.npz``) written by :func:`save_checkpoint`.
    expect : RunPlan or None
        The plan the caller is about to run; its fields named in ``compare``
        must match the checkpoint's. None accepts the checkpoint's own plan.
    rules : Rules or None
        The rule set in use; its hash must match the checkpoint's.
    compare : tuple of str
        Fields of :class:`~baccarat_sim.simulate.RunPlan` checked against
        ``expect`` (a command line leaves out the seed and rounds the user did
        not give: they come from the checkpoint).

    Returns
    -------
    (RunPlan, RunState)
        The checkpoint's plan and what it had dealt.

    Raises
    ------
    CheckpointError
        One line naming the file and the mismatch.
    """
    try:
        # Our own handle: np.load leaks the one it opens when the file is no zip at all.
        with open(path, "rb") as stream, np.load(stream, allow_pickle=False) as data:
            header = json.loads(str(data["header"]))
            by_position = data["by_position"]
            batches = data["batches"]
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as error:
        raise CheckpointError(f"--resume: cannot read checkpoint {path} ({error})") from None
    if not isinstance(header, dict) or header.get("format") != "baccarat_sim-checkpoint":
        raise CheckpointError(f"--resume: {path} is not a baccarat_sim checkpoint")
    if header.get("version") != __version__:
        # Another version may deal a different stream from the same seed: mixing the two would be silently wrong.
        raise CheckpointError(
            f"--resume: checkpoint {path} was written by baccarat_sim {header.get('version')}, this is "
            f"{__version__}; rerun without --resume"
        )
    try:
        fields = dict(header["plan"])
        fields["composition"] = tuple(fields["composition"])
        fields["shoe_params"] = tuple(fields["shoe_params"])
        plan = RunPlan(**fields)
        counters = {key: header[key] for key in ("rounds", "shoes", "next_chunk", "kernel_seconds")}
        counters["done_ahead"] = {int(chunk) for chunk in header.get("done_ahead", [])}
    except (KeyError, TypeError, ValueError) as error:
        raise CheckpointError(f"--resume: checkpoint {path} is damaged ({type(error).__name__}: {error})") from None
    if rules is not None and plan.rules_sha256 != rules.sha256:
        if plan.rules_id == rules.id:
            raise CheckpointError(
                f"--resume: checkpoint {path} is from another version of rule set {rules.id!r} (sha256 "
                f"{plan.rules_sha256[:12]}, this file is {rules.sha256[:12]}); rerun without --resume"
            )
        raise CheckpointError(
            f"--resume: checkpoint {path} is from rule set {plan.rules_id!r}, this run uses {rules.id!r}"
        )
    if expect is not None:
        for name in compare:
            if getattr(expect, name) != getattr(plan, name):
                raise CheckpointError(f"--resume: checkpoint {path} has {_describe(plan, name)}, this run asks for "
                                      f"{_describe(expect, name)}; rerun without --resume, or with the same options")
    if by_position.shape != (plan.n_positions, by_position.shape[-1]) or len(batches) != plan.n_batches:
        raise CheckpointError(f"--resume: checkpoint {path} is damaged (its arrays do not fit its plan)")
    state = RunState(by_position=by_position, batches=batches, **counters)
    return plan, state


def peek_checkpoint(path: str | Path) -> dict | None:
    """The header of a checkpoint (seed, rounds done, plan, version), or None if unreadable.

    Cheap: the arrays are not read. Used to say what a new run would replace.
    """
    try:
        # Our own handle: np.load leaks the one it opens when the file is no zip at all.
        with open(path, "rb") as stream, np.load(stream, allow_pickle=False) as data:
            header = json.loads(str(data["header"]))
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return None
    return header if isinstance(header, dict) and header.get("format") == "baccarat_sim-checkpoint" else None


def _describe(plan: RunPlan, name: str) -> str:
    """A plan field as a person reads it (a shoe by its cards, not 52 numbers)."""
    value = getattr(plan, name)
    if name == "composition":
        counts = np.array(value).reshape(13, 4).sum(axis=1)
        ranks = "A,2,3,4,5,6,7,8,9,10,J,Q,K".split(",")
        return f"a shoe of {sum(value)} cards (by rank {' '.join(f'{r}:{c}' for r, c in zip(ranks, counts))})"
    if name == "shoe_params":
        return f"burn/cut-card settings {list(value)}"
    if name == "n_positions":
        return f"{value} round positions"
    return f"{name} = {value!r}"
