"""Rounds per second of the Dask backend against the local numba backend (issue 8).

    python benchmarks/bench_dask.py                      # 1e9 rounds, fresh and dealt, 2 repeats
    python benchmarks/bench_dask.py --rounds 2e8 --models fresh --repeats 1

Both backends deal the same plan with every core of this machine: the local
backend with numba threads, the Dask backend with a LocalCluster of one
single-threaded worker process per core (the client and scheduler share the
machine, as a user's laptop cluster would). Cluster start-up and numba warm-up
are timed apart from the dealing, which is what the overhead target is about:
the Dask run's wall time over the local run's, for the same rounds, should be
under 10% at 1e9 rounds. Runs alternate (local, dask, local, dask, ...) and the
best of the repeats counts, so a noisy neighbour hurts both alike. Each pair of
histograms is compared bit for bit as well.

Figures go to ``results/bench_dask.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import numpy as np

from baccarat_sim import load_rules
from baccarat_sim._version import __version__
from baccarat_sim.cli.common import parse_rounds
from baccarat_sim.engines.dask_backend import DaskBackend, connect, prepare_workers
from baccarat_sim.engines.driver import run
from baccarat_sim.engines.local import LocalBackend
from baccarat_sim.engines.montecarlo import HistogramJob
from baccarat_sim.engines.montecarlo import warm_up as _warm_up
from baccarat_sim.engines.plan import plan_run
from baccarat_sim.engines.state import RunState

OUT = Path(__file__).resolve().parent.parent / "results" / "bench_dask.json"


def local_run(plan, threads):
    state = RunState.empty(plan)
    started = time.perf_counter()
    run(HistogramJob(plan), state, LocalBackend(threads))
    return time.perf_counter() - started, state


def dask_run(plan, client):
    state = RunState.empty(plan)
    started = time.perf_counter()
    backend = DaskBackend(client)
    run(HistogramJob(plan), state, backend)
    return time.perf_counter() - started, state, backend


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=parse_rounds, default=10**9)
    parser.add_argument("--models", default="fresh,dealt", help="comma-separated: fresh, dealt")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--workers", type=int, default=os.cpu_count(), help="LocalCluster worker processes")
    parser.add_argument("--threads", type=int, default=os.cpu_count(), help="local backend's numba threads")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()

    import numba

    rules = load_rules("default")
    cases = []
    started = time.perf_counter()
    with connect(workers=args.workers, threads_per_worker=1) as client:
        cluster_start = time.perf_counter() - started
        started = time.perf_counter()
        prepare_workers(client, plan_run(rules, args.rounds, seed=2024))
        warm_up = time.perf_counter() - started
        for model in args.models.split(","):
            plan = plan_run(rules, args.rounds, seed=2024, model=model)
            _warm_up(plan)
            local_times, dask_times, identical, tasks, workers = [], [], True, 0, 0
            for _ in range(args.repeats):
                seconds, local_state = local_run(plan, args.threads)
                local_times.append(seconds)
                seconds, dask_state, backend = dask_run(plan, client)
                dask_times.append(seconds)
                tasks, workers = backend.tasks, len(backend.workers)
                identical &= bool(np.array_equal(local_state.by_position, dask_state.by_position)
                                  and np.array_equal(local_state.batches, dask_state.batches)
                                  and local_state.rounds == dask_state.rounds)
            rounds = local_state.rounds
            local_best, dask_best = min(local_times), min(dask_times)
            case = {
                "model": model,
                "rounds": rounds,
                "chunks": plan.n_chunks,
                "tasks": tasks,
                "workers_that_dealt": workers,
                "local_seconds": local_times,
                "dask_seconds": dask_times,
                "local_rounds_per_second": rounds / local_best,
                "dask_rounds_per_second": rounds / dask_best,
                "overhead": dask_best / local_best - 1,
                "bit_identical": identical,
            }
            cases.append(case)
            print(f"{model:6} {rounds:.3g} rounds: local {case['local_rounds_per_second'] / 1e6:6.1f} M/s, "
                  f"dask {case['dask_rounds_per_second'] / 1e6:6.1f} M/s, overhead {100 * case['overhead']:+.1f}%, "
                  f"identical {identical}", flush=True)
    report = {
        "benchmark": "bench_dask",
        "command": "python benchmarks/bench_dask.py " + " ".join(
            f"--{k} {v}" for k, v in (("rounds", f"{args.rounds:.0e}"), ("models", args.models),
                                      ("repeats", args.repeats), ("workers", args.workers),
                                      ("threads", args.threads))),
        "version": __version__,
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "processor": platform.processor(),
                    "python": platform.python_version(), "numba": numba.__version__,
                    "numba_threading_layer": numba.threading_layer()},
        "dask": {"version": __import__("distributed").__version__, "workers": args.workers,
                 "threads_per_worker": 1, "cluster_start_seconds": cluster_start,
                 "warm_up_seconds": warm_up},
        "local_threads": args.threads,
        "target": "dask overhead under 10% at 1e9 rounds (best of repeats, dealing time only)",
        "cases": cases,
        "target_met": all(c["overhead"] < 0.10 for c in cases) if args.rounds >= 10**9 else None,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
