"""Engines: the exact enumeration, and Monte Carlo runs through one driver on a local or a Dask backend.

``exact`` (:func:`exact_histogram`), ``plan``/``state`` (a run's layout and
what it has dealt), ``driver`` (the one run loop: progress, signals,
checkpoints), ``local`` and ``dask_backend`` (where chunks are dealt),
``montecarlo`` and ``counting`` (what a chunk deals), ``checkpoint``,
``simulation`` (:func:`simulate`, :func:`simulate_dask`), ``composition``
(exact solves for any remaining shoe).
"""
