"""The Dask backend of the pairs protocol: a long Dask table reduced to pairs by graphs.

:mod:`~pdpaired.pairs.dask.backend` holds :class:`~pdpaired.pairs.dask.backend.DaskPairs`
and its graphs, :mod:`~pdpaired.pairs.dask.pairing` the per-partition code
that reduces rows to per-case tables, and :mod:`~pdpaired.pairs.dask.resampling`
the counter-based Poisson and sign-flip draws summed inside the partitions.

How it works
------------
The long table is reduced with Dask's own groupby; nothing that grows with the
number of rows reaches the client unless asked for.

0. **Scan** (no shuffle): the models present, null ids, and the number and
   largest finite magnitude of A's and B's scores, which fix the exact
   fixed-point grid of :mod:`pdpaired.pairs.units` when no outcome is missing.
1. **Pairing** (one per-case shuffle). Each row is masked by model and every
   case reduced to counts and sums: rows per model, NaN and infinite scores,
   and the minimum and maximum hash of its group and stratum labels. These
   counts are put in the per-case summary of :mod:`pdpaired.pairs.rules` and
   checked per partition by the pandas path's pandera schemas; the failure
   tables are concatenated, so :class:`~pdpaired.PairingError` is the pandas
   path's, with every offending case in ``failure_cases``. This module
   writes no pairing rule. The same pass computes the sufficient statistics
   on the grid, which are exact integer sums, independent of the
   partitioning:

   * clusters (``unit="group"``): per group, the two models' sums and the
     number of cases (from the rows when no outcome is missing: each row is
     then one model's output for one case);
   * repeated scores (0/1, Likert) by case: per stratum, how many cases have
     each distinct pair of scores (few cases are collected instead);
   * per stratum totals, for the point estimates.

   These are resampled on the client by the same engines as in memory, giving
   **bit-identical** results for the same seed. With missing outcomes the
   grid depends on the policy, and the statistics take a second pass.
2. **Continuous scores, resampled by case** (mostly distinct values). The
   bootstrap is a **Poisson bootstrap** and the randomization test flips
   signs, inside each partition (on the rows themselves when no outcome is
   missing); only replicate-length vectors are summed. A case's weights come
   from a counter-based stream keyed by the recorded seed and a hash of its
   id, so results depend neither on the number of workers nor on the
   partitioning or row order. They are statistically equivalent to, not
   bit-identical with, the pandas path. ``collect=True`` brings the per-case
   values to the client instead (memory grows with the number of cases) and
   then gives bit-identical results.
"""

from __future__ import annotations

__all__: list[str] = []
