"""The polars tables: rows brought to the pandas backend, a lazy table reduced on the way.

:mod:`~pdpaired.pairs.polars.reduce` turns a polars table into the pandas long
table that :mod:`pdpaired.pairs.pandas` pairs; every pairing rule, the
missing-outcome policy and every number are then the pandas path's.

How it works
------------
* An eager :class:`polars.DataFrame` is already in memory: it is converted
  whole (:meth:`polars.DataFrame.to_pandas`), so every column is there for the
  analyses that read one later (slices, ``sequential``'s order).
* A :class:`polars.LazyFrame` (a scan of files larger than memory, say) is
  reduced by polars' streaming engine first: only the columns the analysis
  names are read, and only the rows of the compared models are kept, with
  every row that has no model or no case id (the pairing rules name those
  rows). The rows keep their position in the table as their label, so a rule
  broken by a row names the row the pandas path would name. The rows are not
  aggregated further: the pairing rules check each row (duplicates, missing
  outputs, labels that vary within a case), repeated runs are read one by one
  by the two-stage bootstrap, and the run means are pandas' own sums.
"""

from __future__ import annotations

__all__: list[str] = []
