"""The resampling units of a comparison's slices, for the permutation test of heterogeneity.

:meth:`Comparison.by_slice <pdpaired.Comparison.by_slice>` hands
:func:`pdpaired.analysis.slices.by_slice` a :func:`slice_units` of its pairs
and measure: for one slice column, every unit of the analysis (a case, or a
whole group) with its slice value, its direction-adjusted sum of score
differences and its number of cases (:class:`~pdpaired.analysis.slices.SliceUnits`).
The permutation test of heterogeneity permutes the slice values over these
units.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdpaired.analysis.measures import Measure
from pdpaired.analysis.slices import SliceUnits
from pdpaired.pairs.backend import PairsBackend

__all__ = ["slice_units"]


def slice_units(
    pairs: PairsBackend, measure: Measure, column: str, unit: str | None, weighting: str
) -> SliceUnits | None:
    """Return the resampling units with their slice values (heterogeneity permutation test).

    Score mode only (a mean of per-case differences: a slice's estimate is
    its units' total over their count); None in prediction mode, where
    Welch's test is used. Each slice's cases come from the backend's own
    slice restriction and :meth:`~pdpaired.Comparison.per_case` (computed on Dask), sorted by
    case id, so both backends give the same units in the same order.
    """
    if measure.task != "score":
        return None
    cols = pairs.columns
    frames, labels = [], []
    for value, _, restrict in pairs.slices(column):
        got = restrict().per_case()
        got = got.compute() if hasattr(got, "compute") else got
        for key in (cols.case, "case"):  # Dask: the case id is a column ("case")
            if key in got.columns:
                got = got.set_index(key)
                break
        got = got.sort_index(kind="stable")
        frames.append(got)
        labels.append(pd.Series([value] * len(got), dtype=object))
    per = pd.concat(frames)
    label = pd.concat(labels, ignore_index=True)
    d = per[pairs.a].to_numpy(dtype=np.float64) - per[pairs.b].to_numpy(dtype=np.float64)
    d = d if measure.higher_is_better else -d
    stratum = (
        None
        if cols.stratum is None
        else pd.factorize(per[cols.stratum], sort=True, use_na_sentinel=False)[0]
    )
    if cols.group is None or unit == "case":
        return SliceUnits(label=label, total=d, count=np.ones(d.size), stratum=stratum)
    g, _ = pd.factorize(per[cols.group], sort=True, use_na_sentinel=False)
    total: np.ndarray = np.bincount(g, weights=d)
    count = np.bincount(g).astype(np.float64)
    first = np.unique(g, return_index=True)[1]  # groups are nested in slices when tested
    if weighting == "group":
        total, count = total / count, np.ones(count.size)
    return SliceUnits(
        label=label.iloc[first].reset_index(drop=True), total=total, count=count,
        stratum=None if stratum is None else stratum[first],
    )  # fmt: skip
