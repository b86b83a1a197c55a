"""How a run's files are named: once, for its checkpoint and its result files alike.

A run's files share one name, ``{words}-{digest}[-seed{seed}]``: a few words a
person reads (the rule set's id and the kind of run, e.g. ``default-fresh``),
then a short digest of everything else that makes two runs differ, then the
seed. The digest covers the rule file's content (its SHA-256), the shoe as
dealt (decks and removed cards), how it is dealt (burn, cut card, the rounds
after it), the bets reported and whatever else a kind of run adds (a counting
strategy, the cut cards of a sweep); never the round count, so that a run
extended to more rounds keeps its name. Two runs that differ in any of these
never write to the same files, in ``--out`` or in the checkpoint folder.

A run stopped before its end writes its result files under the same name with
:data:`PARTIAL` after it, so that they never pass for a finished run's; the
finished run removes exactly those files (:func:`partial_names`).

The name is part of what a run is, so it is computed here, in the analysis:
its digest reads the dealing as the engines pack it
(:func:`~baccarat_sim.engines.plan.shoe_params`), which the report, rendering
only, does not import. The report's writer (:mod:`baccarat_sim.report.files`)
and the command line's checkpoints read it.
"""

from __future__ import annotations

import glob
import hashlib
import json
import re

import numpy as np

from ..engines.plan import shoe_params

__all__ = ["PARTIAL", "partial_names", "run_file_name", "run_file_pattern", "run_name", "run_name_pattern",
           "seed_of_name", "table_definition"]

#: Inserted after a run's name in the files of a run stopped before its end.
PARTIAL = "-partial"
#: Hex digits of the definition's SHA-256 in a name (32 bits: a clash needs tens of thousands of runs in a folder).
DIGEST_DIGITS = 8


def table_definition(rules, composition, model: str) -> dict:
    """What a run's rule set and shoe fix: the rule file's content, the shoe, its dealing, the bets reported.

    Parameters
    ----------
    rules : Rules
        As the run uses it (decks, shoe model, after-cut reading and bets applied).
    composition : ndarray(int64, shape=(13, 4))
        The shoe before shuffling (decks, less the removed cards).
    model : str
        ``"fresh"``, ``"dealt"`` or ``"exact"``; the dealing (burn, cut card,
        rounds after it) counts only for a dealt shoe.
    """
    shoe = np.asarray(composition, np.int64)
    definition = {"rules_sha256": rules.sha256, "shoe": [int(x) for x in shoe.reshape(-1)],
                  "bets": list(rules.bet_ids)}
    if model == "dealt":
        definition["dealing"] = [int(x) for x in shoe_params(rules.shoe, int(shoe.sum()))]
    return definition


def run_file_name(rules, composition, model: str, seed: int | None = None) -> str:
    """The name of a run's result files and of its checkpoint (:mod:`~baccarat_sim.analysis.naming`).

    ``{rules}-{model}-{digest}[-seed{seed}]``: the digest covers the rule
    file's content, the shoe (decks, removed cards), its dealing (dealt
    model) and the bets reported; ``model`` is ``"exact"`` for exact figures
    alone (no seed).
    """
    return run_name([rules.id, model], table_definition(rules, composition, model), seed)


def _base(words, definition: dict) -> str:
    text = json.dumps(definition, sort_keys=True, separators=(",", ":"), default=str)
    return "-".join([*map(str, words), hashlib.sha256(text.encode()).hexdigest()[:DIGEST_DIGITS]])


def run_name(words, definition: dict, seed: int | None = None) -> str:
    """A run's name: ``words``, the digest of ``definition``, and ``seed{seed}`` (when the run has a seed).

    Examples
    --------
    >>> run_name(["default", "fresh"], {"rules_sha256": "0b19"}, 7)
    'default-fresh-3abb4d69-seed7'
    """
    base = _base(words, definition)
    return base if seed is None else f"{base}-seed{seed}"


def run_file_pattern(rules, composition, model: str) -> str:
    """A glob pattern of :func:`run_file_name` for any seed."""
    return run_name_pattern([rules.id, model], table_definition(rules, composition, model))


def run_name_pattern(words, definition: dict) -> str:
    """A glob pattern of the names :func:`run_name` gives these words and definition, any seed."""
    return f"{glob.escape(_base(words, definition))}-seed*"


def seed_of_name(name: str, prefix: str = "", suffix: str = "") -> int | None:
    """The seed of a run name (inside ``prefix`` and ``suffix``), or None when the name is not one."""
    match = re.fullmatch(re.escape(prefix) + r".*-seed(\d+)" + re.escape(suffix), name)
    return None if match is None else int(match[1])


def partial_names(name: str, suffixes) -> list[str]:
    """The file names a stopped run of this name may have written, one per suffix of its kind of files."""
    return [f"{name}{PARTIAL}{suffix}" for suffix in suffixes]
