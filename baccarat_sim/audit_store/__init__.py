"""Stored real play: the audit's embedded DuckDB database, the published log formats and their import.

Beside :mod:`baccarat_sim.storage`, read through the analysis layer (:mod:`baccarat_sim.analysis.audit`):
:mod:`~baccarat_sim.audit_store.cards` (how a log may spell a card), :mod:`~baccarat_sim.audit_store.formats`
(the columns of each file kind, the one definition the docs and the JSON Schema are written from),
:mod:`~baccarat_sim.audit_store.database` (the schema, opening a database) and
:mod:`~baccarat_sim.audit_store.importing` (checking a file and importing it once).
"""
