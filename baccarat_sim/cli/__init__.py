"""Command lines: argument parsing and calls into the library; nothing else imports this package.

``rtp``, ``hold``, ``leak`` and ``findings``, each run as ``python -m
baccarat_sim.X`` or by its console script ``baccarat-X``. Each command parses
its options before importing the heavy modules, so ``--help`` and bad options
are instant, turns the library's typed errors into one line naming the option
(exit status 2), and reports any other exception as an internal error (exit
status 1). ``common`` holds what every command shares (the error boundary,
exit statuses, notes, ``--out``), ``options`` the options several commands
share; ``rtp`` is split by feature (``rtp_parser``, ``rtp_run``,
``rtp_report``, ``rtp_sweep``, ``rtp_count``).
"""
