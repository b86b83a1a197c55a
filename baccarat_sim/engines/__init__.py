"""Engines: the exact enumeration, and Monte Carlo runs through one driver on a local or a Dask backend.

``exact`` (:func:`exact_histogram`), ``plan``/``state`` (a run's layout and
what it has dealt), ``driver`` (the one run loop: progress, signals,
checkpoints), ``local`` and ``dask_backend`` (where chunks are dealt),
``montecarlo`` and ``counting`` (what a chunk deals), ``checkpoint``,
``extend`` (a run made longer), ``simulation`` (the one Monte Carlo run flow,
used by :func:`simulate`, :func:`simulate_dask` and the command line),
``signals`` (a clean stop between chunks), ``composition`` (exact solves for
any remaining shoe).
"""
