"""Checkpoints of Monte Carlo runs: written atomically, checked before resuming."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import numpy as np

from ._version import __version__
from .simulate import RunPlan, RunState

__all__ = ["CheckpointError", "load_checkpoint", "save_checkpoint"]


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


def load_checkpoint(path: str | Path, expect: RunPlan | None = None, rules=None) -> tuple[RunPlan, RunState]:
    """Read a checkpoint, refusing one from another version, rule set or run.

    Parameters
    ----------
    expect : RunPlan or None
        The plan the caller is about to run; its seed, rounds, model and shoe
        must match the checkpoint's. None accepts the checkpoint's own seed.
    rules : Rules or None
        The rule set in use; its hash must match the checkpoint's.
    """
    try:
        with np.load(path, allow_pickle=False) as data:
            header = json.loads(str(data["header"]))
            by_position = data["by_position"]
            batches = data["batches"]
    except (OSError, ValueError, KeyError) as error:
        raise CheckpointError(f"--resume: cannot read checkpoint {path} ({error})") from None
    if header.get("format") != "baccarat_sim-checkpoint":
        raise CheckpointError(f"--resume: {path} is not a baccarat_sim checkpoint")
    if header["version"] != __version__:
        raise CheckpointError(
            f"--resume: checkpoint {path} was written by baccarat_sim {header['version']}, this is {__version__}; "
            "rerun without --resume"
        )
    fields = dict(header["plan"])
    fields["composition"] = tuple(fields["composition"])
    fields["shoe_params"] = tuple(fields["shoe_params"])
    plan = RunPlan(**fields)
    if rules is not None and plan.rules_sha256 != rules.sha256:
        raise CheckpointError(
            f"--resume: checkpoint {path} is from rule set {plan.rules_id!r} (another rule file or version of it); "
            f"this run uses {rules.id!r}"
        )
    if expect is not None:
        for name in ("seed", "rounds_requested", "model", "composition", "n_positions", "shoe_params"):
            if getattr(expect, name) != getattr(plan, name):
                raise CheckpointError(
                    f"--resume: checkpoint {path} has {name} = {getattr(plan, name)!r}, this run asks for "
                    f"{getattr(expect, name)!r}"
                )
    state = RunState(
        by_position=by_position,
        batches=batches,
        rounds=header["rounds"],
        shoes=header["shoes"],
        next_chunk=header["next_chunk"],
        kernel_seconds=header["kernel_seconds"],
    )
    return plan, state
