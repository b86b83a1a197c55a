"""Pure numba kernels: integer arrays in, integer arrays out; no pandas, plots, CLI or I/O.

The dealing procedure: ``rng`` (random streams), ``encoding`` (cards as the
kernels carry them), ``round`` (one round from six cards), ``fresh`` (a
freshly shuffled shoe every round), ``shuffle`` and ``shoe`` (a dealt shoe's
shuffle, start and end), ``dealing`` (the loop that deals a dealt shoe). The
Monte Carlo lanes: ``slots`` and ``counters`` (a lane's small counters),
``blocks`` (blocks shared out between lanes), ``mc_fresh`` and ``mc_dealt``
(the lanes of each model), ``mc`` (the drivers). Then ``exact`` (the exact
enumeration), ``composition`` (exact solves for any remaining shoe),
``counting`` (card-counting simulations) and the others listed in
``docs/reference/layout.md``.
"""
