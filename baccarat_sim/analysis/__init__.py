"""Analysis: what every command computes, as plain result objects (frozen dataclasses).

One result per command: a run's per-bet figures (:class:`~baccarat_sim.analysis.run.RunResult`, ``rtp`` and
``--exact``), a cut-card sweep (:class:`~baccarat_sim.analysis.positions.CutSweep`), a counting study
(:class:`~baccarat_sim.analysis.counting.CountResult`), a table over N rounds
(:class:`~baccarat_sim.analysis.hold.HoldAnalysis`), the value of a leak
(:class:`~baccarat_sim.analysis.leak.LeakResult`, :class:`~baccarat_sim.analysis.leak.OptimalSort`) and the findings
of every shipped rule set (:class:`~baccarat_sim.analysis.findings.Findings`). Nothing here renders text or writes a
file (:mod:`baccarat_sim.report` does), and the kernels are reached only through :mod:`baccarat_sim.engines`.
"""
