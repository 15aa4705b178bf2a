"""Analyses of repeated runs: the two-stage bootstrap's measure and the variance components.

A comparison of ``df.paired(repeat="sample")`` holds the run means as its
pairs (so every analysis runs on them as on any scores) and the runs
themselves on its backend (``PairsBackend.runs``). Two analyses read the runs:

* ``bootstrap(..., resample_repeats=True)``: :class:`TwoStageMeasure` is the
  comparison's mean measure with a two-stage resampler
  (:class:`pdpaired.core.repeats.TwoStageResampler`) in its bootstrap plan;
  everything else (point estimates, design, randomization test) is the mean
  measure's.
* ``variance_components()``: :func:`run_variance_components`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from pdpaired.core.options import RandomizationOptions
from pdpaired._lib.rng import SeedInfo, stream_name
from pdpaired.pairs.backend import DesignMeta, PairsBackend, PassFlags, order_units
from pdpaired.pairs.pandas.backend import PandasPairs
from pdpaired.core.bootstrap import SMALL_SAMPLE_SAMPLINGS, DesignResampler
from pdpaired.analysis.measures import BootstrapPlan, MeanMeasure, Measure
from pdpaired.core.randomization import RandomizationCore
from pdpaired.results.repeats import RunSummary, VarianceComponents
from pdpaired.pairs.repeats import CaseRuns
from pdpaired.core.repeats import TwoStageResampler, variance_components

__all__ = ["TwoStageMeasure", "case_runs_of", "run_variance_components", "two_stage_measure"]


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


class TwoStageMeasure:
    """The mean of run means, bootstrapped in two stages (cases, then runs within cases)."""

    def __init__(self, base: MeanMeasure, runs: CaseRuns) -> None:
        self._base = base
        self._runs = runs
        self.name = base.name
        self.task = base.task
        self.class_labels = base.class_labels
        self.threshold = base.threshold
        self.higher_is_better = base.higher_is_better

    def describe(self) -> str:
        """Return the mean measure's description."""
        return self._base.describe()

    def point(
        self, pairs: PairsBackend, unit: str | None, weighting: str, stratified: bool | None = None
    ) -> DesignMeta:
        """Return the mean measure's point estimates."""
        return self._base.point(pairs, unit, weighting, stratified)

    def bootstrap_plan(
        self,
        pairs: PairsBackend,
        *,
        unit: str | None,
        weighting: str,
        stratified: bool | None,
        stratum_weights: Mapping[Any, float] | pd.Series | None,
        method: str,
    ) -> BootstrapPlan:
        """Return the one-stage design, its units' draws followed by draws of runs."""
        del method  # every interval method applies (BCa: jackknife over the units)
        design, meta, table = self._base.design(pairs, unit, weighting, stratified, stratum_weights)
        if table is None or not isinstance(pairs, PandasPairs):  # pragma: no cover - pandas only
            msg = "The two-stage bootstrap needs the runs in memory (the pandas accessor)."
            raise NotImplementedError(msg)
        use_strata = meta.n_strata is not None
        s_codes, _ = pairs.strata(use_strata)
        if meta.unit == "group":
            g_codes, g_stratum = pairs.groups(s_codes)
            rank, _ = order_units(g_stratum)
            unit_of_case = rank[g_codes]
        else:
            unit_of_case, _ = order_units(s_codes)
        factor = np.ones(unit_of_case.size)
        if meta.weighting == "group":
            factor = 1.0 / np.bincount(unit_of_case)[unit_of_case]
        base = DesignResampler(design, small_sample=meta.sampling in SMALL_SAMPLE_SAMPLINGS)
        runs = self._runs
        resampler = TwoStageResampler(
            base, unit_of_case.astype(np.int64), factor, runs.ptr_a, runs.runs_a, runs.ptr_b,
            runs.runs_b,
        )  # fmt: skip
        return BootstrapPlan(resampler, meta, stream_name("repeat_runs"))

    def randomization(
        self,
        pairs: PairsBackend,
        opts: RandomizationOptions,
        *,
        unit: str | None,
        weighting: str,
        stratum_weights: Mapping[Any, float] | pd.Series | None,
        seed: SeedInfo,
    ) -> tuple[RandomizationCore, DesignMeta, str]:
        """Run the mean measure's swap test (of the run means)."""
        return self._base.randomization(
            pairs, opts, unit=unit, weighting=weighting, stratum_weights=stratum_weights,
            seed=seed,
        )  # fmt: skip

    def pass_flags(self, pairs: PairsBackend) -> PassFlags:
        """Return the mean measure's pass/fail flags."""
        return self._base.pass_flags(pairs)

    def binary_outcomes(self, pairs: PairsBackend) -> bool:
        """Return whether the run means are 0/1."""
        return self._base.binary_outcomes(pairs)


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
