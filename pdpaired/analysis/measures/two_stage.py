"""Repeated runs' measure: the mean of run means, bootstrapped in two stages.

``bootstrap(..., resample_repeats=True)`` on a comparison of
``df.paired(repeat="sample")`` runs with a :class:`TwoStageMeasure`: the
comparison's :class:`~pdpaired.analysis.measures.mean.MeanMeasure` with a
two-stage resampler (:class:`pdpaired.core.repeats.TwoStageResampler`:
cases, then runs within cases) in its bootstrap plan; everything else
(point estimates, design, randomization test) is the mean measure's.
:func:`pdpaired.analysis.repeats.two_stage_measure` builds it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from pdpaired._lib.rng import stream_name
from pdpaired.analysis.measures import BootstrapPlan
from pdpaired.analysis.measures.mean import MeanMeasure, MeanOfMeansMeasure
from pdpaired.core.bootstrap import SMALL_SAMPLE_SAMPLINGS, DesignResampler
from pdpaired.core.repeats import TwoStageResampler
from pdpaired.pairs.backend import PairsBackend, order_units
from pdpaired.pairs.pandas.backend import PandasPairs
from pdpaired.pairs.repeats import CaseRuns

__all__ = ["TwoStageMeasure"]


class TwoStageMeasure(MeanOfMeansMeasure):
    """The mean of run means, bootstrapped in two stages (cases, then runs within cases)."""

    def __init__(self, base: MeanMeasure, runs: CaseRuns) -> None:
        super().__init__(base)
        self._runs = runs

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
