"""Analyses of repeated runs: the two-stage bootstrap and the variance components.

A comparison of ``df.paired(repeat="sample")`` holds the run means as its
pairs (so every analysis runs on them as on any scores) and the runs
themselves on its backend (``PairsBackend.runs``). Two analyses read the runs:

* ``bootstrap(..., resample_repeats=True)``: :func:`two_stage_measure` gives
  the comparison's mean measure in its two-stage form,
  :class:`~pdpaired.analysis.measures.two_stage.TwoStageMeasure` (cases, then
  runs within cases);
* ``variance_components()``: :func:`run_variance_components`.
"""

from __future__ import annotations

import numpy as np

from pdpaired.analysis.measures import MeanMeasure, Measure, TwoStageMeasure
from pdpaired.core.repeats import variance_components
from pdpaired.pairs.backend import PairsBackend
from pdpaired.pairs.repeats import CaseRuns
from pdpaired.results.repeats import RunSummary, VarianceComponents

__all__ = ["case_runs_of", "run_variance_components", "two_stage_measure"]


def case_runs_of(pairs: PairsBackend, what: str) -> CaseRuns:
    """Return the runs of a comparison, or say how to declare them."""
    runs = pairs.runs()
    if runs is None:
        msg = (
            f"{what} needs repeated runs: declare them with df.paired(repeat='sample', "
            "run='run') (several rows per (case, model), one per run). This comparison has "
            "one score per case."
        )
        raise ValueError(msg)
    return runs


def two_stage_measure(pairs: PairsBackend, measure: Measure) -> TwoStageMeasure:
    """Return the two-stage form of a comparison's measure (score mode with runs only)."""
    runs = case_runs_of(pairs, "resample_repeats=True")
    if not isinstance(measure, MeanMeasure):  # pragma: no cover - repeat is score mode only
        msg = "resample_repeats=True needs score mode (metric='mean')."
        raise ValueError(msg)
    return TwoStageMeasure(measure, runs)


def run_variance_components(
    pairs: PairsBackend, *, a: str, b: str, metric: str, higher_is_better: bool
) -> VarianceComponents:
    """Split the variance of the per-case improvement into between-case and run parts."""
    runs = case_runs_of(pairs, "variance_components()")
    sign = 1.0 if higher_is_better else -1.0
    comp = variance_components(runs.ptr_a, runs.runs_a, runs.ptr_b, runs.runs_b, sign)
    n = comp.d.size
    noise = comp.var_d - comp.between
    summary: RunSummary = runs.summary
    return VarianceComponents(
        a=a, b=b, metric=metric, higher_is_better=higher_is_better,
        improvement=float(np.mean(comp.d)), n_cases=n, between=comp.between,
        within_a=comp.within_a, within_b=comp.within_b, within=comp.within_a + comp.within_b,
        var_case_improvement=comp.var_d, runs_a=comp.runs_a, runs_b=comp.runs_b,
        standard_error=float(np.sqrt(comp.var_d / n)),
        share_within=float(noise / comp.var_d) if comp.var_d > 0 else float("nan"),
        runs=summary,
    )  # fmt: skip
