"""Pure numba kernels: integer arrays in, integer arrays out; no pandas, plots, CLI or I/O.

``rng`` (random streams), ``dealing`` (the one dealing procedure), ``mc`` (the
Monte Carlo lanes), ``exact`` (the exact enumeration), ``composition`` (exact
solves for any remaining shoe) and ``counting`` (card-counting simulations).
"""
