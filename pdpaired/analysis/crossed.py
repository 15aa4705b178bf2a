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
from dataclasses import replace

import numpy as np

from pdpaired.analysis.measures import MeanMeasure, Measure, PigeonholeMeasure
from pdpaired.core.crossed import anova_variance, pigeonhole_variance, variance_components
from pdpaired.pairs.backend import PairsBackend
from pdpaired.pairs.crossed import CrossedCells
from pdpaired.results.crossed import CrossedComponents

__all__ = ["cells_of", "crossed_variance_components", "pigeonhole_measure"]


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
    effects = variance_components(d)
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
