"""The package's limits, in one place (plain Python: the command lines read them before importing numpy).

A limit names a size beyond which a computation would overflow, take unbounded
time or memory, or stop meaning anything; every check of it cites the constant
here, and messages name its value.
"""

#: Largest round count a Monte Carlo run accepts: its int64 counts stay far from overflow.
MAX_ROUNDS = 10**15
#: Most decks a shoe built from a deck count may hold.
MAX_DECKS = 16
#: Most bets a rule set may offer: every report, table and plot stays bounded in time and memory.
MAX_BETS = 200
#: Most bets a run's per-bet figures show (one panel or row each); the report's notes say how many were left out,
#: and how the shown ones were chosen. The largest shipped rule set has 15 bets.
MAX_PLOTTED_BETS = 24
#: Most lattice steps one round's results may span (hold): the lattice's arrays hold one entry per step, so stakes
#: a million times apart (a span of tens of millions of steps) are the most it prices; beyond, one line says so.
MAX_LATTICE_SPAN = 1 << 26
#: Most memory a card-detail plan may be predicted to take (the cost model, :mod:`baccarat_sim.model.cost`): the
#: exact tables and enumeration of a bet's group, a Monte Carlo run's counts. Beyond it the bet is refused in one
#: line before any work (a laptop's memory, with room for the rest of the process).
MAX_PLAN_BYTES = 2 << 30
#: Most seconds a rule file's exact card-level pricing may be predicted to take, and a counting run's pricing of its
#: card-level bets on the unseen cards every round (rounds times one round's pricing): beyond it, refused in one line.
MAX_PLAN_SECONDS = 600.0
#: A Monte Carlo run works out a group's exact figures (its cells that can happen, its exact weights for ``z`` and
#: ``--check``) only when the cost model predicts at most this many seconds: the run deals its first round within
#: seconds, and the report says which exact figures were not computed and how to ask for them.
CHEAP_EXACT_SECONDS = 3.0
#: ... and at most this many bytes.
CHEAP_EXACT_BYTES = 512 << 20
#: Most memory a Monte Carlo run's counts may be predicted to take (its rows of cells: state, batches, lanes, the
#: report's copies; :func:`baccarat_sim.model.cost.run_cost`): beyond it the run is refused before dealing.
MAX_RUN_BYTES = 4 << 30
