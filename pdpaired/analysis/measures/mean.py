"""Score mode's measure: the (stratum-weighted) mean of per-case scores.

:class:`MeanMeasure` (``metric="mean"``) computes its point estimates and
designs from exact unit sums and runs the multinomial / sign-flip engines on
them. On a backend that resamples where its rows are (Dask, continuous
scores by case) it uses the partition-side Poisson bootstrap
(:class:`PoissonResampler`) and sign flips instead; it asks the backend
through the :class:`~pdpaired.pairs.backend.PairsBackend` protocol and never
knows which one it is handed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from pdpaired._lib.rng import SeedInfo, stream_name, stream_words
from pdpaired.analysis.measures import BootstrapPlan
from pdpaired.core.bootstrap import SMALL_SAMPLE_SAMPLINGS, DesignResampler
from pdpaired.core.engine import Design
from pdpaired.core.options import RandomizationOptions
from pdpaired.core.randomization import (
    RandomizationCore,
    null_pvalue,
    randomization_design,
    tie_tolerance,
)
from pdpaired.pairs.backend import (
    DesignMeta,
    PairsBackend,
    PassFlags,
    design_meta,
    resolve_design,
)
from pdpaired.pairs.units import UnitTable, design_from_units, to_float

__all__ = ["MeanMeasure", "MeanOfMeansMeasure", "PoissonResampler"]


class MeanMeasure:
    """Score mode: the (stratum-weighted) mean of per-case scores, from exact unit sums."""

    name = "mean"
    task = "score"
    class_labels = None
    threshold = None

    def __init__(self, higher_is_better: bool) -> None:
        self.higher_is_better = bool(higher_is_better)
        self._sign = 1.0 if self.higher_is_better else -1.0

    def describe(self) -> str:
        """``metric='mean', higher_is_better=...``."""
        return f"metric='mean', higher_is_better={self.higher_is_better}"

    def design(
        self,
        pairs: PairsBackend,
        unit: str | None,
        weighting: str,
        stratified: bool | None,
        stratum_weights: Mapping[Any, float] | pd.Series | None,
    ) -> tuple[Design, DesignMeta, UnitTable | None]:
        """Return the design of an analysis, its description and the unit table it came from.

        The table is None when the backend resamples where its rows are
        (continuous scores by case on Dask): the design then has one 'unit' per
        stratum (the per-stratum totals), which gives the point estimates and
        the stratum weights the in-place replicates are combined with.
        """
        unit, weighting, use_strata = resolve_design(
            pairs.columns, unit, weighting, stratified, stratum_weights
        )
        table = pairs.unit_table(unit, use_strata)
        source = table if table is not None else pairs.stratum_totals(use_strata)
        design, metric_a, metric_b = design_from_units(
            source, weighting=weighting, stratum_weights=stratum_weights, sign=self._sign
        )
        if use_strata and len(source.s_labels) == 1:
            # one stratum is no stratification: the unstratified design, bit for bit (its
            # weight, checked above, is 1 whatever was given)
            use_strata = False
            table = pairs.unit_table(unit, use_strata)
            source = table if table is not None else pairs.stratum_totals(use_strata)
            design, metric_a, metric_b = design_from_units(
                source, weighting=weighting, stratum_weights=None, sign=self._sign
            )
        meta = design_meta(
            metric_a, metric_b, design, source.s_labels, n_groups=pairs.n_groups, unit=unit,
            weighting=weighting, use_strata=use_strata,
        )  # fmt: skip
        return design, meta, table

    def point(
        self, pairs: PairsBackend, unit: str | None, weighting: str, stratified: bool | None = None
    ) -> DesignMeta:
        """Point estimates with this design (no stratum weights)."""
        return self.design(pairs, unit, weighting, stratified, None)[1]

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
        """Resample unit sums on the client, or use the backend's in-place Poisson bootstrap."""
        design, meta, table = self.design(pairs, unit, weighting, stratified, stratum_weights)
        if table is not None:
            small = (
                meta.sampling in SMALL_SAMPLE_SAMPLINGS
            )  # Rao-Wu rescaling (pdpaired.core.bootstrap)
            both = self._both_pass(pairs) if method == "newcombe" else None
            return BootstrapPlan(
                DesignResampler(design, small_sample=small, both_pass=both,
                                binary=pairs.binary), meta,
                stream_name("bootstrap_chunk"),
            )  # fmt: skip
        if method == "bca":
            msg = (
                "method='bca' is not available with the in-partition Poisson bootstrap (its "
                "jackknife needs every case); use 'percentile' or 'basic', or collect=True."
            )
            raise ValueError(msg)
        use_strata = meta.n_strata is not None
        return BootstrapPlan(
            PoissonResampler(pairs, design.weight, use_strata, self._sign),
            meta,
            stream_name("dask_poisson"),
        )

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
        """Sign flips of the unit sums, or of the cases where the backend's rows are."""
        design, meta, table = self.design(pairs, unit, weighting, None, stratum_weights)
        if table is not None:
            core = randomization_design(
                design, n_permutations=opts.n_permutations, alternative=opts.alternative,
                seed_sequence=seed.seed_sequence, batch=opts.batch,
            )  # fmt: skip
            return core, meta, stream_name("randomization_bits")
        use_strata = meta.n_strata is not None
        words = stream_words(seed.seed_sequence, "dask_flips", 2)
        values, counts = pairs.partition_sums("flip", opts.n_permutations, words, use_strata)
        totals = pairs.stratum_totals(use_strata)
        n_h = totals.count.astype(np.float64)
        del counts  # the flips keep every case: the counts are n_h
        null = self._sign * np.sum(values / n_h * design.weight, axis=1)
        observed = to_float(totals.sum_a - totals.sum_b, totals.k) / n_h
        t = self._sign * float(np.sum(observed * design.weight))
        pvalue, se = null_pvalue(
            null, t, gamma=tie_tolerance(t), alternative=opts.alternative, exact=False
        )
        core = RandomizationCore(
            pvalue=pvalue, pvalue_se=se, null_distribution=null,
            n_permutations=opts.n_permutations, exact=False, engine="partition-flips",
        )  # fmt: skip
        return core, meta, stream_name("dask_flips")

    def _both_pass(self, pairs: PairsBackend) -> int | None:
        """Cases both models pass (Newcombe's interval needs the concordant split), or None."""
        try:
            flags = pairs.pass_flags(1.0 if self.higher_is_better else 0.0)
        except ValueError:  # not 0/1 scores: the interval says so
            return None
        both = flags.a_pass & flags.b_pass
        return int(both.sum() if flags.freq is None else flags.freq[both].sum())

    def pass_flags(self, pairs: PairsBackend) -> PassFlags:
        """Pass is the better value: 1 when higher is better, 0 when lower is better."""
        return pairs.pass_flags(1.0 if self.higher_is_better else 0.0)

    def binary_outcomes(self, pairs: PairsBackend) -> bool:
        """0/1 scores."""
        return pairs.binary


class MeanOfMeansMeasure:
    """A :class:`MeanMeasure` of per-case means with a bootstrap plan of its own.

    Repeated runs (:class:`~pdpaired.analysis.measures.two_stage.TwoStageMeasure`)
    and crossed factors
    (:class:`~pdpaired.analysis.measures.crossed.PigeonholeMeasure`) resample
    more than the cases; everything else -- the description, the point
    estimates, the randomization test, the pass/fail flags -- is the mean
    measure's of the per-case means. Subclasses define ``bootstrap_plan``.
    """

    def __init__(self, base: MeanMeasure) -> None:
        self._base = base
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
        """Run the mean measure's swap test (of the per-case means)."""
        return self._base.randomization(
            pairs, opts, unit=unit, weighting=weighting, stratum_weights=stratum_weights,
            seed=seed,
        )  # fmt: skip

    def pass_flags(self, pairs: PairsBackend) -> PassFlags:
        """Return the mean measure's pass/fail flags."""
        return self._base.pass_flags(pairs)

    def binary_outcomes(self, pairs: PairsBackend) -> bool:
        """Return whether the per-case means are 0/1."""
        return self._base.binary_outcomes(pairs)


class PoissonResampler:
    """The in-place Poisson bootstrap as a :class:`pdpaired.core.bootstrap.Resampler`.

    The backend weights its rows by Poisson(1) draws keyed by the case id, so
    only ``n_resamples x strata`` sums reach the client; a replicate that
    leaves a stratum without cases is undefined.
    """

    def __init__(
        self, pairs: PairsBackend, weights: np.ndarray, use_strata: bool, sign: float
    ) -> None:
        self._pairs = pairs
        self._weights = weights
        self._use_strata = use_strata
        self._sign = sign

    def singleton_warning(self) -> str | None:
        """Poisson weights vary even in a stratum of one case: nothing to say."""
        return None

    def replicates(
        self, n_resamples: int, seed_sequence: np.random.SeedSequence, batch: int | None
    ) -> tuple[np.ndarray, str]:
        """One pass of Poisson-weighted sums; NaN where a stratum got no case."""
        del batch  # the partitions bound the memory: n_resamples x strata sums each
        words = stream_words(seed_sequence, "dask_poisson", 2)
        s, c = self._pairs.partition_sums("poisson", n_resamples, words, self._use_strata)
        with np.errstate(invalid="ignore", divide="ignore"):
            dist = self._sign * np.sum(s / c * self._weights, axis=1)
        dist[~np.all(c > 0, axis=1)] = np.nan
        return dist, "poisson"

    def theta(self) -> float:
        """Not used: BCa is refused on this path."""
        return 0.0

    def acceleration(self) -> float:
        """Not used: BCa is refused on this path."""
        return 0.0

    def undefined(self, n_dropped: int, n_resamples: int) -> str:
        """Replicates that gave a stratum no case."""
        if n_dropped == n_resamples:
            return "Every Poisson replicate left a stratum empty; merge small strata."
        return (
            f"{n_dropped} of {n_resamples} Poisson resamples "
            f"({100 * n_dropped / n_resamples:.1f}%) gave a stratum no case (all its "
            "weights 0) and are dropped; the interval uses the others (n_valid). Small "
            "strata cause this: merge them, or use collect=True for the ordinary bootstrap."
        )
