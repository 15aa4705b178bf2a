"""The pairs layer: the only code that knows column names.

Column rules (pandera schemas written once for every backend), the
missing-outcome policy, repeated runs, and the backends that reduce a long
table to per-case and per-unit summaries: in memory (pandas) and out of core
(``pairs.dask``).
"""
