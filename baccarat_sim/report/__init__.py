"""The report layer: renders the analysis's results as tables (pandas), text, Markdown, JSON, CSV and plots.

It computes nothing (no settlement, estimation or engine: ``tests/test_structure.py`` checks its imports) and writes
a command's files as one set through :mod:`baccarat_sim.storage.writing`.
"""
