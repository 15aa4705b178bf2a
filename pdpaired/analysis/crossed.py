"""Analyses of crossed factors: the pigeonhole bootstrap and the variance components.

A comparison of ``df.paired(repeat="sample", factors=[...])`` holds the case
means over the cells as its pairs (so every case-level analysis runs on
them) and the cells themselves on its backend (``PairsBackend.cells``). Two
analyses read the cells:

* ``bootstrap(..., resample_factors=True)``: :func:`pigeonhole_measure`
  gives the comparison's mean measure in its pigeonhole form,
  :class:`~pdpaired.analysis.measures.crossed.PigeonholeMeasure` (cases
  and every factor's levels resampled);
* ``variance_components()``: :func:`crossed_variance_components`.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from pdpaired._lib.errors import IndependenceWarning, find_stack_level
from pdpaired.analysis.measures import MeanMeasure, Measure, PigeonholeMeasure
from pdpaired.analysis.repeats import run_variance_components, two_stage_measure
from pdpaired.core.crossed import anova_variance, pigeonhole_variance
from pdpaired.core.crossed import variance_components as crossed_components
from pdpaired.pairs.backend import PairsBackend
from pdpaired.pairs.crossed import CrossedCells
from pdpaired.results.crossed import CrossedComponents
from pdpaired.results.repeats import VarianceComponents

if TYPE_CHECKING:
    from pdpaired.analysis.comparison import Comparison

__all__ = [
    "cells_of",
    "comparison_variance_components",
    "crossed_variance_components",
    "pigeonhole_measure",
    "resampling_measure",
    "variance_components",
    "warn_case_only",
]


def cells_of(pairs: PairsBackend, what: str) -> CrossedCells:
    """Return the cells of a comparison, or say how to declare crossed factors."""
    cells = pairs.cells()
    if cells is None:
        msg = (
            f"{what} needs crossed factors: declare them with df.paired(repeat='sample', "
            "factors=['seed', 'prompt']) (one row per case, model and level of every factor)."
        )
        raise ValueError(msg)
    return cells


def pigeonhole_measure(pairs: PairsBackend, measure: Measure) -> PigeonholeMeasure:
    """Return the pigeonhole form of a comparison's measure (score mode with factors only)."""
    cells = cells_of(pairs, "resample_factors=True")
    if not isinstance(measure, MeanMeasure):  # pragma: no cover - repeat is score mode only
        msg = "resample_factors=True needs score mode (metric='mean')."
        raise ValueError(msg)
    return PigeonholeMeasure(measure, cells)


def resampling_measure(
    pairs: PairsBackend, measure: Measure, *, resample_repeats: bool, resample_factors: bool
) -> Measure:
    """Return the measure ``bootstrap`` resamples with: two-stage, pigeonhole or its own.

    With crossed factors and ``resample_factors=False`` an
    :class:`~pdpaired.IndependenceWarning` says that the interval covers new
    cases with the same levels only.
    """
    if resample_factors:
        if resample_repeats:
            msg = (
                "resample_repeats=True and resample_factors=True cannot be combined: the "
                "pigeonhole bootstrap resamples the cells' means (replicates averaged)."
            )
            raise ValueError(msg)
        return pigeonhole_measure(pairs, measure)
    warn_case_only(pairs, "resample_factors=False")
    return two_stage_measure(pairs, measure) if resample_repeats else measure


def warn_case_only(pairs: PairsBackend, what: str) -> None:
    """Warn that an analysis of the case means of a crossed design covers new cases only."""
    if pairs.cells() is not None:
        warnings.warn(
            f"this comparison has crossed factors but {what}: the interval covers new "
            "cases run with these same factor levels only, not a new level (seed, prompt, "
            "...); bootstrap(resample_factors=True) covers both.",
            IndependenceWarning, stacklevel=find_stack_level(),
        )  # fmt: skip


def comparison_variance_components(self: Comparison) -> VarianceComponents | CrossedComponents:
    """Split the variance of the improvement into between-case and run-to-run parts.

    With crossed factors (``factors=``): a :class:`~pdpaired.CrossedComponents`,
    one component per axis of the crossed ANOVA (see the "Repeated runs" guide).

    With repeated runs (``df.paired(repeat="sample")``), a case's
    improvement ``d_i`` is the difference of A's and B's means over their
    runs, and ``Var(d_i) = between + within_a / R_ia + within_b / R_ib``:
    the variance over cases of the true per-case improvement, plus each
    model's run-to-run variance over its runs on the case. Estimated by
    the method of moments (one-way ANOVA; the runs may differ in number
    per case and per model). The variance of the mean improvement over
    ``n`` cases is ``(between + within / R) / n`` (Miller 2024, "Adding
    error bars to evals"), so :meth:`VarianceComponents.se_at` tells
    whether more runs per case or more cases shrink the standard error
    more.

    Returns
    -------
    VarianceComponents or CrossedComponents

    Notes
    -----
    The components describe the cases as independent (groups and strata
    are not used): with clustered cases, ``between`` includes the
    clusters' correlation. Direction-adjusted like every result.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import pdpaired
    >>> rng = np.random.default_rng(0)
    >>> n, runs = 2000, 4
    >>> gain = rng.normal(0.2, 0.5, n)  # true per-case improvement: variance 0.25
    >>> case = np.repeat(np.arange(n), runs)
    >>> df = pd.concat([
    ...     pd.DataFrame({"case_id": case, "model": m, "run": np.tile(np.arange(runs), n),
    ...                   "score": shift[case] + rng.normal(0.0, 2.0, n * runs)})
    ...     for m, shift in (("new", gain), ("old", np.zeros(n)))])
    >>> cmp = df.paired(repeat="sample").compare("new", "old", higher_is_better=True)
    >>> vc = cmp.variance_components()  # truth: between 0.25, run to run 4 and 4
    >>> round(vc.between, 2), round(vc.within_a, 1), round(vc.within_b, 1)
    (0.21, 4.0, 3.9)
    >>> vc.se_at(runs=16) < vc.se_at(n_cases=2 * n)  # run noise dominates here
    True
    """
    return variance_components(
        self._pairs, a=self.a, b=self.b, metric=self.metric,
        higher_is_better=self.higher_is_better,
    )  # fmt: skip


def variance_components(
    pairs: PairsBackend, *, a: str, b: str, metric: str, higher_is_better: bool
) -> VarianceComponents | CrossedComponents:
    """Return the crossed components with factors, the runs' components otherwise."""
    if pairs.cells() is not None:
        return crossed_variance_components(
            pairs, a=a, b=b, metric=metric, higher_is_better=higher_is_better
        )
    return run_variance_components(
        pairs, a=a, b=b, metric=metric, higher_is_better=higher_is_better
    )


def crossed_variance_components(
    pairs: PairsBackend, *, a: str, b: str, metric: str, higher_is_better: bool
) -> CrossedComponents:
    """One variance component per axis of a crossed design (method of moments)."""
    cells = cells_of(pairs, "variance_components()")
    d = cells.improvement(1.0 if higher_is_better else -1.0)
    small = [name for name, n in zip(("cases", *cells.factors), d.shape, strict=True) if n < 2]
    if small:
        msg = (
            f"variance_components() needs at least 2 levels on every axis; {small} "
            f"has only one (shape {d.shape})."
        )
        raise ValueError(msg)
    names = ("case", *cells.factors)
    effects = crossed_components(d)
    components, variances, divisors, axes = [], [], [], []
    top = tuple(range(d.ndim))
    # replicate rows in the cells: the run noise of a cell's improvement, told apart
    noise = math.nan
    has_reps = bool((cells.reps_a > 1).any() or (cells.reps_b > 1).any())
    if has_reps:
        noise = 0.0
        for reps, ss in ((cells.reps_a, cells.ss_a), (cells.reps_b, cells.ss_b)):
            dof = float(np.sum(reps - 1))
            if dof > 0:
                within = float(np.sum(ss)) / dof
                noise += float(np.mean(within / reps))
    for e in effects:
        if e.axes == top:
            if has_reps:
                components.append(" x ".join(names[a] for a in e.axes))
                variances.append(e.sigma2 - noise)
                divisors.append(float(e.divisor))
                axes.append(e.axes)
                components.append("residual")
                variances.append(noise)
            else:
                components.append("residual")
                variances.append(e.sigma2)
        else:
            components.append(" x ".join(names[a] for a in e.axes))
            variances.append(e.sigma2)
        divisors.append(float(e.divisor))
        axes.append(e.axes)
    case_means = d.reshape(d.shape[0], -1).mean(axis=1)
    reps = np.concatenate([cells.reps_a.ravel(), cells.reps_b.ravel()])
    out = CrossedComponents(
        a=a, b=b, metric=metric, higher_is_better=higher_is_better,
        improvement=float(np.mean(d)), n_cases=int(d.shape[0]), factors=cells.factors,
        n_levels=tuple(int(n) for n in d.shape[1:]), components=tuple(components),
        variances=tuple(float(v) for v in variances), divisors=tuple(divisors),
        axes=tuple(axes), replicates=float(reps.size / np.sum(1.0 / reps)),
        standard_error=math.nan,
        case_standard_error=float(np.std(case_means, ddof=1) / math.sqrt(d.shape[0])),
        pigeonhole_standard_error=math.sqrt(pigeonhole_variance(d)),
        degrees_of_freedom=math.nan, summary=cells.summary,
    )  # fmt: skip
    _, dof = anova_variance(d)  # of the cell means (the run noise is in the top mean square)
    return replace(out, standard_error=out.se_at(), degrees_of_freedom=dof)
