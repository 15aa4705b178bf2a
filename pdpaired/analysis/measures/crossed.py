"""Crossed factors' measure: the mean over cells, bootstrapped over cases and levels.

``bootstrap(..., resample_factors=True)`` on a comparison of
``df.paired(repeat="sample", factors=[...])`` runs with a
:class:`PigeonholeMeasure`: the comparison's
:class:`~pdpaired.analysis.measures.mean.MeanMeasure` with the pigeonhole
resampler (:class:`pdpaired.core.crossed.PigeonholeResampler`: cases and
every factor's levels drawn independently) in its bootstrap plan;
everything else (point estimates, randomization test) is the mean
measure's. :func:`pdpaired.analysis.crossed.pigeonhole_measure` builds it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from pdpaired._lib.rng import stream_name
from pdpaired.analysis.measures import BootstrapPlan
from pdpaired.analysis.measures.mean import MeanMeasure, MeanOfMeansMeasure
from pdpaired.core.crossed import PigeonholeResampler
from pdpaired.pairs.backend import PairsBackend
from pdpaired.pairs.crossed import CrossedCells

__all__ = ["PigeonholeMeasure"]


class PigeonholeMeasure(MeanOfMeansMeasure):
    """The mean over the cells of a crossed design, bootstrapped over cases and levels."""

    def __init__(self, base: MeanMeasure, cells: CrossedCells) -> None:
        super().__init__(base)
        self._cells = cells

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
        """Return the pigeonhole resampler of the cells (cases resampled one by one)."""
        del method  # BCa and the bootstrap-t refuse it in the loop (no jackknife, no SE)
        meta = self._base.point(pairs, unit, weighting, stratified)
        if meta.unit != "case" or meta.n_strata is not None or stratum_weights is not None:
            msg = (
                "resample_factors=True resamples cases one by one, crossed with the factors' "
                f"levels; this design has unit {meta.unit!r} and "
                f"{meta.n_strata or 0} strata. Configure df.paired(group=None, stratum=None) "
                "(clusters and strata crossed with factors are not supported yet)."
            )
            raise ValueError(msg)
        sign = 1.0 if self.higher_is_better else -1.0
        resampler = PigeonholeResampler(self._cells.improvement(sign))
        return BootstrapPlan(resampler, meta, stream_name("crossed_levels"))
