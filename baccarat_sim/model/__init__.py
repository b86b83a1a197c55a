"""The model: cards, shoes, the tableau, outcome codes, the histogram type, conditions, rule sets, strategies.

Everything here is immutable data or a pure function of it; rule sets and
strategies are validated on load.
"""
