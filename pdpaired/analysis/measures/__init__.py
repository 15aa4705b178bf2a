"""Measures: what a :class:`~pdpaired.Comparison` estimates, as a strategy.

A comparison holds pairs (a backend, :mod:`pdpaired.pairs.backend`) and a
*measure*. The measure turns the pairs into the pieces the core's shared
loops run: a point estimate with its design description, a
:class:`~pdpaired.core.bootstrap.Resampler` for
:func:`~pdpaired.core.bootstrap.bootstrap_replicates`, the null
distribution of the swap test, and the pass/fail flags of the exact binomial
test. This package holds the :class:`Measure` protocol and the
:class:`BootstrapPlan` a measure hands the bootstrap loop; one module per
measure:

* :class:`~pdpaired.analysis.measures.mean.MeanMeasure` (score mode,
  ``metric="mean"``): exact unit sums, the multinomial / sign-flip engines;
  on a backend that resamples where its rows are (Dask, continuous scores by
  case) the partition-side Poisson bootstrap and sign flips
  (:mod:`pdpaired.analysis.measures.mean`).
* :class:`~pdpaired.analysis.measures.corpus.CorpusMeasure` (prediction
  mode): corpus metrics recomputed from count vectors, on the same streams
  and with the same tie rule (:mod:`pdpaired.analysis.measures.corpus`).
* :class:`~pdpaired.analysis.measures.two_stage.TwoStageMeasure` (repeated
  runs, ``bootstrap(resample_repeats=True)``): the mean measure with a
  two-stage resampler (:mod:`pdpaired.analysis.measures.two_stage`).
* :class:`~pdpaired.analysis.measures.crossed.PigeonholeMeasure` (crossed
  factors, ``bootstrap(resample_factors=True)``): the mean measure with the
  pigeonhole resampler of cases and levels
  (:mod:`pdpaired.analysis.measures.crossed`).

None knows which backend it is handed: they ask it through the
:class:`~pdpaired.pairs.backend.PairsBackend` protocol.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import pandas as pd

from pdpaired._lib.rng import SeedInfo
from pdpaired.core.bootstrap import Resampler
from pdpaired.core.options import RandomizationOptions
from pdpaired.core.randomization import RandomizationCore
from pdpaired.pairs.backend import DesignMeta, PairsBackend, PassFlags

__all__ = [
    "BootstrapPlan",
    "CorpusMeasure",
    "MeanMeasure",
    "Measure",
    "PigeonholeMeasure",
    "PoissonResampler",
    "TwoStageMeasure",
]


@dataclass(frozen=True, slots=True)
class BootstrapPlan:
    """What a measure hands the bootstrap loop: the resampler, the design, the stream's name."""

    resampler: Resampler
    meta: DesignMeta
    stream: str  # the stream's name, as results show it


class Measure(Protocol):
    """The statistic of a comparison (see the module docstring)."""

    @property
    def name(self) -> str:
        """The metric's name (``"mean"``, ``"auroc"``, ...)."""

    @property
    def higher_is_better(self) -> bool:
        """Direction of the metric."""

    @property
    def task(self) -> str:
        """``"score"``, or the prediction task."""

    @property
    def class_labels(self) -> list[Any] | None:
        """Prediction mode's class labels (None in score mode)."""

    @property
    def threshold(self) -> float | None:
        """The threshold of binary label metrics (None otherwise)."""

    def point(
        self, pairs: PairsBackend, unit: str | None, weighting: str, stratified: bool | None = None
    ) -> DesignMeta:
        """Point estimates and design description with this design (no stratum weights)."""

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
        """Resampler, design description and stream family of a bootstrap."""

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
        """Null distribution and p-value, the design description and the stream's name."""

    def pass_flags(self, pairs: PairsBackend) -> PassFlags:
        """Per-case pass/fail of both models (ValueError when the outcomes are not binary)."""

    def binary_outcomes(self, pairs: PairsBackend) -> bool:
        """Whether the per-case outcomes are pass/fail (the exact binomial test applies)."""

    def describe(self) -> str:
        """Return the measure's part of the comparison's repr."""


# the measures, after the protocol and the plan they import from here
from pdpaired.analysis.measures.corpus import CorpusMeasure  # noqa: E402
from pdpaired.analysis.measures.crossed import PigeonholeMeasure  # noqa: E402
from pdpaired.analysis.measures.mean import MeanMeasure, PoissonResampler  # noqa: E402
from pdpaired.analysis.measures.two_stage import TwoStageMeasure  # noqa: E402
