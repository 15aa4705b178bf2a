"""Missing-outcome sensitivity: what the missing outputs could do to the improvement.

For :meth:`pdpaired.Comparison.sensitivity`. The comparison as analysed
keeps no trace of which outputs were missing (``"complete-case"`` dropped
them, ``"as-failure"`` filled them), so the backend reads every case of the
table again with its missing outputs counted, summed per unit of the
analysis (:meth:`~pdpaired.pairs.backend.PairsBackend.fill_units`: in memory the
long table is paired again by the same rules; on Dask one more pass of its
graph). A unit's sum of differences is linear in the values the missing
outputs are filled with, so every fill is a cheap combination. From them:

* the **identified set** ``[low, high]``: the improvement with every missing
  output of A at its worst value and every missing output of B at its best
  (``low``), and the reverse (``high``), Manski's worst-case bounds;
* an interval that covers the set with probability ``confidence_level``
  (Imbens & Manski 2004): ``[low - C * se_low, high + C * se_high]`` with
  ``C`` solving ``Phi(C + (high - low) / max(se)) - Phi(-C) = level``;
* the **tipping point**: filling every missing output (both models) with one
  value ``v`` moves the improvement linearly in ``v``; the tipping point is
  the smallest ``v`` in ``[lower, upper]`` whose verdict differs from the
  verdict at ``lower``.

Standard errors are the analysis' own (over its units and within its
strata; :func:`pdpaired.core.planning.summarize_design`), and verdicts use the
normal interval ``estimate +/- z * se``.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pandas as pd

from pdpaired._lib.rng import normalize_rng
from pdpaired.analysis.measures import MeanMeasure, Measure
from pdpaired.core.engine import Design
from pdpaired.core.planning import summarize_design
from pdpaired.pairs.backend import FillUnits, PairsBackend
from pdpaired.pairs.pandas.backend import PandasPairs
from pdpaired.pairs.pandas.pairing import PairedData, pair
from pdpaired.results.base import ConfidenceInterval
from pdpaired.results.missing import MissingSummary
from pdpaired.results.sensitivity import SensitivityResult, imbens_manski

__all__ = ["imbens_manski", "missing_sensitivity"]


def _verdicts(est: np.ndarray, se: np.ndarray, z: float) -> tuple[np.ndarray, ...]:
    low, high = est - z * se, est + z * se
    verdict = np.where(low > 0, "a_better", np.where(high < 0, "b_better", "inconclusive"))
    return low, high, verdict


def missing_sensitivity(
    pairs: PairsBackend,
    measure: Measure,
    *,
    lower: float | None,
    upper: float | None,
    confidence_level: float,
    rng: int | np.random.Generator | None,
    improvement: float,
    bootstrap_se: Callable[[PandasPairs, int], float],
) -> SensitivityResult:
    """Bound the improvement over every fill of the missing outputs (see the module docstring).

    ``bootstrap_se(pairs, seed)`` returns the paired bootstrap's standard
    error of the improvement on other pairs (prediction mode).
    """
    if pairs.runs() is not None:
        msg = (
            "sensitivity() is not available with repeated runs yet: its bounds re-pair the "
            "table with the missing outputs filled, one row per (case, model). Average the "
            "runs first (df.groupby([case, model], as_index=False)[score].mean()) and run "
            "it on the run means, where a missing case is one with no usable run."
        )
        raise NotImplementedError(msg)
    from scipy.stats import norm

    if measure.task == "statistics":
        msg = (
            "sensitivity() is not available for a metric of per-case statistics: there is "
            "no worst or best output to fill in for a missing case (a failed translation "
            "still has a reference length). The complete-case result says what it drops; "
            "to bound the effect, score each missing output as a failure explicitly (e.g. "
            "an empty output) and compare again."
        )
        raise NotImplementedError(msg)
    if not isinstance(measure, MeanMeasure):
        if not isinstance(pairs, PandasPairs) or pairs.data.source is None:
            msg = "sensitivity() in prediction mode re-pairs the long table, held in memory"
            raise NotImplementedError(msg)
        return _prediction_sensitivity(
            pairs, measure, lower=lower, upper=upper, confidence_level=confidence_level,
            rng=rng, improvement=improvement, bootstrap_se=bootstrap_se,
        )  # fmt: skip
    seed = None if rng is None else normalize_rng(rng).seed  # checked; recorded only
    cols = pairs.columns
    units = pairs.fill_units("group" if cols.group is not None else "case",
                             cols.stratum is not None)  # fmt: skip
    info = pairs.missing
    any_missing = bool(units.n_missing_a or units.n_missing_b)
    lo_fill, hi_fill, binary = _score_range(units, info, lower, upper, any_missing=any_missing)
    hib = measure.higher_is_better
    sign = 1.0 if hib else -1.0
    z = float(norm.ppf(0.5 + confidence_level / 2))
    f = units.freq if units.freq is not None else np.ones(units.count.size, np.int64)
    per_stratum = np.add.reduceat(units.count * f, units.unit_ptr[:-1]).astype(np.float64)
    weight = per_stratum / per_stratum.sum()  # the observed shares of the cases

    def design(fill_a: float, fill_b: float) -> Design:
        value = units.observed + fill_a * units.missing_a - fill_b * units.missing_b
        return Design(value=value, count=units.count, unit_ptr=units.unit_ptr, weight=weight,
                      sign=sign, freq=units.freq)  # fmt: skip

    def estimate(fill_a: float, fill_b: float) -> tuple[float, float]:
        d = design(fill_a, fill_b)
        return float(_mean(d)), float(summarize_design(d, None).se)

    if not any_missing:
        imp, se0 = estimate(0.0, 0.0)
        lo_ci, hi_ci, _ = imbens_manski(imp, imp, se0, se0, confidence_level)
        empty = np.array([])
        return _result(pairs, measure, info, units, lo_fill, hi_fill, binary, imp, imp, se0,
                       se0, (lo_ci, hi_ci), confidence_level, None, empty, empty, empty,
                       improvement, seed)  # fmt: skip

    worst, best = (lo_fill, hi_fill) if hib else (hi_fill, lo_fill)
    low, se_low = estimate(worst, best)
    high, se_high = estimate(best, worst)
    lo_ci, hi_ci, _ = imbens_manski(low, high, se_low, se_high, confidence_level)

    def path(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        # the same fill for both models' missing outputs
        out = [estimate(float(x), float(x)) for x in v]
        return np.array([e for e, _ in out]), np.array([s for _, s in out])

    grid = np.linspace(lo_fill, hi_fill, 101)
    est, se = path(grid)
    _, _, verdict = _verdicts(est, se, z)
    tipping = None
    change = np.nonzero(verdict != verdict[0])[0]
    if change.size:
        left, right = float(grid[change[0] - 1]), float(grid[change[0]])
        for _ in range(60):  # bisect the change between two grid points
            mid = 0.5 * (left + right)
            e, s = path(np.array([mid]))
            if _verdicts(e, s, z)[2][0] == verdict[0]:
                left = mid
            else:
                right = mid
        tipping = float(right)
    return _result(pairs, measure, info, units, lo_fill, hi_fill, binary, low, high, se_low,
                   se_high, (lo_ci, hi_ci), confidence_level, tipping, grid, est, se,
                   improvement, seed)  # fmt: skip


def _mean(d: Design) -> float:
    """Return the design's point estimate (improvement direction)."""
    count = np.ones(d.value.size) if d.count is None else d.count.astype(np.float64)
    f = d.row_weights()
    est = 0.0
    for h, (lo, hi) in enumerate(zip(d.unit_ptr[:-1], d.unit_ptr[1:], strict=True)):
        est += d.weight[h] * float(
            np.sum(d.value[lo:hi] * f[lo:hi]) / np.sum(count[lo:hi] * f[lo:hi])
        )
    return d.sign * est


def _score_range(
    units: FillUnits, info: MissingSummary, lower: float | None, upper: float | None, *,
    any_missing: bool,
) -> tuple[float, float, bool]:  # fmt: skip
    """Return the score range: 0/1 for binary scores, else ``lower``/``upper`` (checked).

    The scores are every observed output and, when ``"as-failure"`` filled
    some, its fill value (a value the policy put in is a score too).
    """
    low, high, binary = units.low, units.high, units.binary
    if info.fill_value is not None and info.n_filled:
        fv = float(info.fill_value)
        low, high = np.fmin(low, fv), np.fmax(high, fv)
        binary = binary and fv in (0.0, 1.0)
    if lower is None and upper is None and binary:
        return 0.0, 1.0, True
    if lower is None or upper is None:
        msg = (
            "sensitivity() needs the range of the scores for non-binary scores: pass both "
            "`lower` and `upper` (the worst and best possible score); an unbounded score "
            "cannot be bounded"
            + (f" ({units.n_missing_a + units.n_missing_b} missing "
               "output(s) could be anything)." if any_missing else ".")
        )  # fmt: skip
        raise ValueError(msg)
    vals = []
    for name, v in (("lower", lower), ("upper", upper)):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.number)):
            msg = f"`{name}` must be a finite number; got {v!r}."
            raise TypeError(msg)
        if not math.isfinite(float(v)):
            msg = f"`{name}` must be finite (an unbounded score cannot be bounded); got {v!r}."
            raise ValueError(msg)
        vals.append(float(v))
    lo, hi = vals
    if not lo < hi:
        msg = f"`lower` must be below `upper`; got lower={lo:g}, upper={hi:g}."
        raise ValueError(msg)
    if low < lo or high > hi:
        msg = (
            f"observed score(s) lie outside [lower, upper] = [{lo:g}, {hi:g}] "
            f"(from {low:g} to {high:g}); the range must hold every score."
        )
        raise ValueError(msg)
    return lo, hi, binary


def _result(
    pairs: PairsBackend, measure: Measure, info: MissingSummary, units: FillUnits,
    lo_fill: float, hi_fill: float, binary: bool, low: float, high: float, se_low: float,
    se_high: float, ci: tuple[float, float], level: float, tipping: float | None,
    grid: np.ndarray, est: np.ndarray, se: np.ndarray, improvement: float, seed: int | None,
) -> SensitivityResult:  # fmt: skip
    from scipy.stats import norm

    z = float(norm.ppf(0.5 + level / 2))
    g_low, g_high, verdict = _verdicts(est, se, z)
    return SensitivityResult(
        a=pairs.a, b=pairs.b, metric=measure.name, higher_is_better=measure.higher_is_better,
        improvement=improvement, lower=lo_fill, upper=hi_fill, binary=binary,
        bounds=ConfidenceInterval(low=low, high=high),
        standard_errors=ConfidenceInterval(low=se_low, high=se_high),
        confidence_interval=ConfidenceInterval(low=ci[0], high=ci[1]),
        confidence_level=level, tipping_point=tipping, n_cases=units.n_cases,
        n_missing_a=units.n_missing_a, n_missing_b=units.n_missing_b,
        n_missing_both=units.n_missing_both,
        missing=info, seed=seed,
        fill_grid=grid, fill_improvement=est, fill_low=g_low, fill_high=g_high,
        fill_verdict=verdict,
    )  # fmt: skip


def _prediction_sensitivity(
    pairs: PandasPairs,
    measure: Measure,
    *,
    lower: float | None,
    upper: float | None,
    confidence_level: float,
    rng: int | np.random.Generator | None,
    improvement: float,
    bootstrap_se: Callable[[PandasPairs, int], float],
) -> SensitivityResult:
    """Prediction mode: the worst and best predictions, standard errors by the bootstrap.

    Classification: the worst prediction gives probability 0 to the true
    class (binary: ``1 - y``; multiclass: all of it on the next class), the
    best gives it probability 1. Regression: the best prediction is the
    target, the worst the end of ``[lower, upper]`` farther from it. No
    tipping point (a corpus metric is not linear in a fill value).
    """
    data = pairs.data
    source, cols, a, b = data.source, data.columns, data.a, data.b
    assert source is not None
    info = normalize_rng(rng)
    seed = info.seed if info.seed is not None else int(
        np.random.default_rng(info.seed_sequence).integers(2**63)
    )  # fmt: skip
    task = measure.task
    if task == "regression" and (lower is None or upper is None):
        msg = (
            "sensitivity() in regression needs the range of the predictions: pass both `lower` "
            "and `upper` (the worst prediction is the end farther from the target)."
        )
        raise ValueError(msg)
    at0 = pair(source, cols, a, b, missing="as-failure", fill_value=0.0)
    at1 = pair(source, cols, a, b, missing="as-failure", fill_value=1.0)
    va0, vb0 = _values(at0.values_a), _values(at0.values_b)
    va1, vb1 = _values(at1.values_a), _values(at1.values_b)

    def missing(v0: np.ndarray, v1: np.ndarray) -> np.ndarray:
        diff: np.ndarray = v0 != v1
        return np.asarray(diff.any(axis=1) if diff.ndim == 2 else diff)

    miss_a, miss_b = missing(va0, va1), missing(vb0, vb1)
    assert cols.target is not None
    target = at0.frame[cols.target]
    if isinstance(target, pd.DataFrame):
        target = target.iloc[:, 0]
    classes = measure.class_labels
    if task == "regression":
        assert lower is not None
        assert upper is not None
        lo, hi = float(lower), float(upper)
        y = target.to_numpy(dtype=np.float64)
        best = y
        worst = np.where(np.abs(y - lo) >= np.abs(y - hi), lo, hi)
    else:
        assert classes is not None
        code = pd.Index(list(classes)).get_indexer(target)
        if task == "binary":
            y = (code == 1).astype(np.float64)
            best, worst = y, 1.0 - y
        else:
            k = len(classes)
            y = code.astype(np.float64)
            best = np.eye(k)[code]
            worst = np.eye(k)[(code + 1) % k]
        lo, hi = 0.0, 1.0

    def filled(a_best: bool) -> PandasPairs:
        va: np.ndarray = np.where(_col(miss_a, va0), best if a_best else worst, va0)
        vb: np.ndarray = np.where(_col(miss_b, vb0), worst if a_best else best, vb0)
        return PandasPairs(
            PairedData(
                table=at0.frame, a=a, b=b, columns=cols, missing=at0.missing, binary=False,
                values_a=va, values_b=vb, source=source,
            ),
            target=y,
        )  # fmt: skip

    sign = 1.0 if measure.higher_is_better else -1.0
    ends = []
    for a_best in (False, True):
        p = filled(a_best)
        meta = measure.point(p, "case", "item", stratified=False)
        ends.append((sign * (meta.metric_a - meta.metric_b), bootstrap_se(p, seed)))
    (low, se_low), (high, se_high) = ends
    lo_ci, hi_ci, _ = imbens_manski(low, high, se_low, se_high, confidence_level)
    empty = np.array([])
    counts = FillUnits(
        observed=empty, missing_a=empty, missing_b=empty, count=np.ones(len(at0.frame), np.int64),
        unit_ptr=np.array([0, len(at0.frame)]), s_labels=pd.Index(["all"]), freq=None,
        n_missing_a=int(miss_a.sum()), n_missing_b=int(miss_b.sum()),
        n_missing_both=int((miss_a & miss_b).sum()), low=lo, high=hi, binary=False,
    )  # fmt: skip
    return _result(pairs, measure, data.missing, counts, lo, hi, False, low, high, se_low,
                   se_high, (lo_ci, hi_ci), confidence_level, None, empty, empty, empty,
                   improvement, seed)  # fmt: skip


def _col(mask: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Return ``mask`` shaped to broadcast against ``values`` (a column for 2-D values)."""
    out: np.ndarray = mask[:, None] if values.ndim == 2 else mask
    return out


def _values(v: np.ndarray | None) -> np.ndarray:
    """Prediction mode's outputs (always present there)."""
    assert v is not None
    return v
