"""The best of several candidates with an interval that accounts for the choice.

:func:`select_best` compares every candidate with a baseline from one joint
resampling of the cases (:func:`pdpaired.analysis.multi.compare_many`),
takes the best (the largest improvement, direction adjusted) and gives it
an interval that accounts for the choice -- the max-t band over all
candidates (:func:`pdpaired.core.multi.simultaneous_band`), or the hybrid
interval of Andrews, Kitagawa & McCloskey
(:func:`pdpaired.core.selection.hybrid_interval`) -- beside its naive
interval.

:mod:`pdpaired.analysis.split` makes the other route possible: choose on
one part of the cases, confirm on the other.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from pdpaired._lib.errors import DegenerateDataWarning, find_stack_level
from pdpaired.analysis.multi import compare_many
from pdpaired.analysis.multi_result import design_df
from pdpaired.core.multi import simultaneous_band
from pdpaired.core.options import BootstrapOptions
from pdpaired.core.selection import hybrid_interval, select_index
from pdpaired.results.base import ConfidenceInterval
from pdpaired.results.selection import SelectionResult, decide_selected

if TYPE_CHECKING:
    from pdpaired.analysis.comparison import Comparison

__all__ = ["INTERVALS", "select_best"]

#: The intervals of the selected candidate that account for the choice.
INTERVALS = ("max-t", "hybrid")


def select_best(
    make: Callable[[Sequence[tuple[Any, Any]]], Sequence[Comparison]],
    candidates: Sequence[Any],
    baseline: Any,
    opts: BootstrapOptions,
    *,
    interval: str = "max-t",
    **bootstrap_kw: Any,
) -> SelectionResult:
    """Compare each candidate with ``baseline`` jointly, choose the best, account for the choice.

    ``make`` pairs the models (as for :func:`~pdpaired.analysis.multi.compare_many`);
    ``candidates`` are checked by the caller (distinct, without the baseline).
    ``interval``: ``"max-t"`` (:func:`~pdpaired.core.multi.simultaneous_band`)
    or ``"hybrid"`` (:func:`~pdpaired.core.selection.hybrid_interval`; with
    candidates tied for the best, the max-t interval and a warning).
    """
    if interval not in INTERVALS:
        msg = f"`interval` must be 'max-t' or 'hybrid'; got {interval!r}."
        raise ValueError(msg)
    pairs = [(c, baseline) for c in candidates]
    # each comparison keeps its own (naive) interval; the band over all of them is below
    multi = compare_many(
        make, pairs, opts, kind="against", baseline=baseline, models=[baseline, *candidates],
        adjust=None, simultaneous=False, **bootstrap_kw,
    )  # fmt: skip
    if not multi.same_cases:
        msg = (
            "select_best needs every candidate compared on the same cases, resampled together, "
            "but some comparisons dropped cases (missing='complete-case' with cases missing "
            "for some candidates: use missing='as-failure' or keep only the cases every model "
            "answered) or were resampled each on its own (a Dask table of few-valued scores; "
            "use the pandas table)."
        )
        raise ValueError(msg)
    est = np.array([r.improvement for r in multi.comparisons], dtype=np.float64)
    df, factor = design_df(multi.comparisons[0], multi.task)
    reps = multi.bootstrap_distribution
    if np.count_nonzero(np.all(np.isfinite(reps), axis=0)) < 2:
        # no band from fewer than 2 resamples where every candidate is defined: NaN intervals
        nan = np.full(est.size, np.nan)
        band_low, band_high, critical = nan, nan.copy(), float("nan")
    else:
        band = simultaneous_band(
            est, reps, confidence_level=opts.confidence_level, df=df, variance_factor=factor,
        )  # fmt: skip
        band_low, band_high, critical = band.low, band.high, band.critical_value
    j = select_index(est)
    best = multi.comparisons[j]
    if interval == "hybrid" and np.count_nonzero(est == est[j]) > 1:
        # the hybrid conditions on the winner's estimate lying strictly above the others';
        # an exact tie (frequent with pass/fail scores) puts it on the edge of that event,
        # where the interval collapses; the max-t band needs no such condition
        warnings.warn(
            f"{int(np.count_nonzero(est == est[j]))} candidates tie for the best improvement "
            f"({est[j]:.4g}); the hybrid interval assumes no ties, so the max-t interval is "
            "reported (result.method says which).",
            DegenerateDataWarning,
            stacklevel=find_stack_level(),
        )
        interval = "max-t"
    if interval == "hybrid":
        low, high = hybrid_interval(
            est, reps, j, confidence_level=opts.confidence_level,
            df=df, variance_factor=factor,
        )  # fmt: skip
    else:
        low, high = float(band_low[j]), float(band_high[j])
    return SelectionResult(
        candidates=tuple(candidates),
        baseline=baseline,
        selected=candidates[j],
        comparisons=multi.comparisons,
        improvement=float(est[j]),
        confidence_interval=ConfidenceInterval(low=low, high=high),
        naive_interval=best.confidence_interval,
        band_low=band_low,
        band_high=band_high,
        critical_value=critical,
        confidence_level=opts.confidence_level,
        method=interval,
        verdict=decide_selected(float(est[j]), low, high, best.practical_threshold),
        practical_threshold=best.practical_threshold,
        metric=best.metric,
        metric_label=best.metric_label,
        higher_is_better=best.higher_is_better,
        n_cases=best.n_cases,
        n_resamples=best.n_resamples,
        seed=best.seed,
    )
