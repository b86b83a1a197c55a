"""Command lines: argument parsing and calls into the library; nothing else imports this package.

``rtp`` (``python -m baccarat_sim.rtp``), ``findings`` (``python -m
baccarat_sim.findings``). Each command parses its options before importing the
heavy modules, so ``--help`` and bad options are instant, turns the library's
typed errors into one line naming the option (exit status 2), and reports any
other exception as an internal error (exit status 1).
"""
