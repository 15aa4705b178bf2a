"""Prediction mode's measure: a corpus metric recomputed on every resample.

``df.paired(target="y", prediction="p").compare("A", "B", metric="auroc")``
returns a :class:`~pdpaired.Comparison` holding a :class:`CorpusMeasure`: its
statistics recompute the metric from a vector of case weights on every
resample (or swap assignment) instead of averaging per-case scores. It needs
the predictions and the coded target in memory (:func:`in_memory`); the
task, the coded target and the checks of the predictions come from
:mod:`pdpaired.analysis.prediction`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from pdpaired._lib import progress
from pdpaired._lib.rng import SeedInfo, stream_name
from pdpaired._lib.validation import plain
from pdpaired.analysis.measures import BootstrapPlan
from pdpaired.core.accel import engine_for
from pdpaired.core.metrics import (
    BUILTIN,
    Metric,
    auc_batch,
    auc_order,
    sum_columns,
    sum_metric,
)
from pdpaired.core.options import RandomizationOptions
from pdpaired.core.prediction import (
    CountResampler,
    Evaluator,
    Layout,
    all_assignments,
    make_evaluator,
)
from pdpaired.core.randomization import (
    RandomizationCore,
    null_pvalue,
    swap_indicators,
    tie_tolerance,
)
from pdpaired.pairs.backend import DesignMeta, PairsBackend, PassFlags, order_units, resolve_design
from pdpaired.pairs.pandas.backend import PandasPairs
from pdpaired.pairs.units import stratum_weight_vector

__all__ = ["CorpusMeasure", "in_memory", "metric_name"]


def metric_name(metric: str | Metric) -> str:
    """Return the name of a metric given by name or as a :class:`~pdpaired.Metric`."""
    return metric.name if isinstance(metric, Metric) else metric


def in_memory(pairs: PairsBackend) -> PandasPairs:
    """Return the pairs as in-memory pairs with predictions and a target (or TypeError)."""
    if not isinstance(pairs, PandasPairs) or pairs.target is None:
        msg = (
            "A corpus metric needs the predictions and the target in memory; these pairs "
            f"are a {pairs.kind} table of per-case scores."
        )
        raise TypeError(msg)
    return pairs


class CorpusMeasure:
    """Prediction mode's measure: a corpus metric recomputed on every resample.

    Handed to :class:`~pdpaired.Comparison` with in-memory pairs that carry
    the predictions and the coded target. Every statistic recomputes the
    metric from a vector of case weights (a count vector), never averaging
    per-case values, through the same loops as score mode:
    ``bootstrap`` draws count vectors from the bootstrap's addressed streams
    (:class:`~pdpaired.core.prediction.CountResampler`), resampling classification
    metrics within target classes (and strata) by default, so class counts
    are preserved (``stratified=False`` resamples cases freely), and drops
    replicates on which the metric is undefined (counted in ``n_valid``);
    ``randomization`` swaps each unit's predictions, reading score mode's
    sign-flip bits unit for unit, with the shared tie rule.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import pdpaired
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 300)
    >>> df = pd.DataFrame({
    ...     "case_id": np.tile(np.arange(300), 2),
    ...     "model": np.repeat(["new", "old"], 300),
    ...     "y": np.tile(y, 2),
    ...     "p": np.concatenate([np.clip(0.5 * y + rng.uniform(0, 0.6, 300), 0, 1),
    ...                          rng.uniform(0, 1, 300)]),
    ... })
    >>> cmp = df.paired(target="y", prediction="p").compare("new", "old", metric="auroc")
    >>> cmp.metric, cmp.task, cmp.metric_a > cmp.metric_b
    ('auroc', 'binary', True)
    >>> res = cmp.bootstrap(n_resamples=2000, rng=0)
    >>> res.sampling, res.n_valid, res.confidence_interval.low > 0
    ('target-stratified', 2000, True)
    """

    def __init__(
        self,
        metric: str | Metric,
        *,
        task: str,
        classes: list[Any] | None,
        threshold: float,
    ) -> None:
        self._metric_obj = metric
        self._task = task
        self._classes = classes
        self._threshold = threshold
        self.name = metric_name(metric)
        self.higher_is_better = bool(
            metric.higher_is_better
            if isinstance(metric, Metric)
            else BUILTIN[metric].higher_is_better
        )

    @property
    def task(self) -> str:
        """``"binary"``, ``"multiclass"`` or ``"regression"``."""
        return self._task

    @property
    def class_labels(self) -> list[Any] | None:
        """Class labels (negative, positive) or the probability columns' classes."""
        return None if self._classes is None else [plain(c) for c in self._classes]

    @property
    def threshold(self) -> float | None:
        """The threshold of binary label metrics (None for AUROC, scores and other tasks)."""
        if self._task == "binary" and self.name in ("accuracy", "f1"):
            return self._threshold
        return None

    def describe(self) -> str:
        """``metric='auroc'``."""
        return f"metric={self.name!r}"

    @staticmethod
    def _in_memory(pairs: PairsBackend) -> PandasPairs:
        return in_memory(pairs)

    @staticmethod
    def _arrays(pairs: PandasPairs) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        assert pairs.target is not None
        return pairs.values_a, pairs.values_b, pairs.target

    # point estimates ----------------------------------------------------------
    def _metric_values(self, pairs: PandasPairs, weights: np.ndarray | None) -> tuple[float, float]:
        pa, pb, y = self._arrays(pairs)
        m = self._metric_obj
        if isinstance(m, Metric):  # always a weight array, as on the resamples
            w = np.ones(y.size) if weights is None else weights
            return float(m.fn(y, pa, sample_weight=w)), float(m.fn(y, pb, sample_weight=w))
        spec = BUILTIN[m]
        if spec.kind == "auroc":
            w = np.ones((1, y.size)) if weights is None else weights[None, :]
            pos = y == 1.0
            return (
                float(auc_batch(auc_order(pa, pos), w)[0]),
                float(auc_batch(auc_order(pb, pos), w)[0]),
            )
        out = []
        for p in (pa, pb):
            x = sum_columns(m, y, p, self._threshold)
            if weights is None:
                s, tot = x.sum(axis=0)[None, :], np.array([float(y.size)])
            else:
                s, tot = (weights @ x)[None, :], np.array([weights.sum()])
            out.append(float(sum_metric(m, s, tot)[0]))
        return out[0], out[1]

    def _unweighted(self, pairs: PandasPairs) -> tuple[float, float]:
        """Both metrics on all cases, cached on the pairs (they never change)."""
        key = (self, "unweighted")
        if key not in pairs.memo:
            pairs.memo[key] = self._metric_values(pairs, None)
        value: tuple[float, float] = pairs.memo[key]
        return value

    # design --------------------------------------------------------------------
    def layout(
        self,
        pairs: PandasPairs,
        unit: str | None,
        weighting: str,
        stratified: bool | None,
        stratum_weights: Mapping[Any, float] | pd.Series | None,
        *,
        for_swaps: bool = False,
    ) -> tuple[Layout, DesignMeta]:
        """Return the count-vector layout of a design, and its description."""
        cols = pairs.columns
        n = pairs.n_cases
        y = self._arrays(pairs)[2]
        if weighting == "group":
            msg = (
                "`weighting`='group' (mean of group means) applies to score mode; a corpus "
                "metric weights every case (use weighting='item')."
            )
            raise ValueError(msg)
        classify = self._task in ("binary", "multiclass")
        unit, weighting, use_strata = resolve_design(
            cols, unit, weighting, stratified, stratum_weights, stratified_without_column=classify
        )
        by_class = classify and stratified is not False and unit == "case" and not for_swaps
        s_codes, s_labels = pairs.strata(use_strata)
        n_strata = len(s_labels)
        observed = np.bincount(s_codes, minlength=n_strata) / n
        weights = stratum_weight_vector(stratum_weights, s_labels, observed)
        if use_strata and n_strata == 1:
            # one stratum is no stratification: the unstratified design, bit for bit (its
            # weight, checked above, is 1 whatever was given)
            use_strata = False
            s_codes, s_labels = pairs.strata(use_strata)
            weights = stratum_weight_vector(None, s_labels, observed)

        n_groups = pairs.n_groups
        if unit == "group":
            g_codes, g_stratum = pairs.groups(s_codes)
            n_units = len(g_stratum)
            rank, cell_of_unit = order_units(g_stratum)
            case_unit = rank[g_codes]
        else:
            cell = s_codes
            if by_class:
                k = int(y.max()) + 1 if self._task == "multiclass" else 2
                cell = s_codes * k + y.astype(np.int64)
            case_unit, cell_of_unit = order_units(cell)
            n_units = n
        _, cell_dense = np.unique(cell_of_unit, return_inverse=True)
        cell_ptr = np.concatenate([[0], np.cumsum(np.bincount(cell_dense))]).astype(np.int64)
        stratum_of_unit = np.empty(n_units, dtype=np.int64)
        stratum_of_unit[case_unit] = s_codes
        stratum_ptr = np.concatenate(
            [[0], np.cumsum(np.bincount(stratum_of_unit, minlength=n_strata))]
        ).astype(np.int64)
        unit_size = np.bincount(case_unit, minlength=n_units).astype(np.float64)
        # with case units and the observed shares, every case weighs the same
        alpha = weights / np.bincount(s_codes, minlength=n_strata)
        uniform = unit == "case" and bool(np.allclose(alpha, alpha[0], rtol=1e-12, atol=0))
        layout = Layout(
            case_unit=case_unit,
            unit_size=unit_size,
            cell_ptr=cell_ptr,
            stratum_ptr=stratum_ptr if not uniform else np.array([0, n_units], dtype=np.int64),
            stratum_of_case=s_codes if not uniform else np.zeros(n, dtype=np.int64),
            weight=weights if not uniform else np.ones(1),
            swap_ptr=stratum_ptr,
            unit_cell=cell_dense,
        )
        if unit == "group":
            sampling = "stratified-cluster" if use_strata else "cluster"
        elif by_class:
            sampling = "target-stratified"
        else:
            sampling = "stratified" if use_strata else "iid"
        case_w = None if uniform else alpha[s_codes]
        ma, mb = self._unweighted(pairs) if case_w is None else self._metric_values(pairs, case_w)
        meta = DesignMeta(
            metric_a=ma,
            metric_b=mb,
            n_groups=n_groups,
            n_strata=n_strata if use_strata else None,
            unit=unit,
            weighting="item",
            sampling=sampling,
            stratum_weights=(
                {str(k): float(w) for k, w in zip(s_labels, weights, strict=True)}
                if use_strata
                else None
            ),
        )
        return layout, meta

    def point(
        self,
        pairs: PairsBackend,
        unit: str | None,
        weighting: str,
        stratified: bool | None = None,
    ) -> DesignMeta:
        """Point estimates and design description with this design (no stratum weights)."""
        return self.layout(self._in_memory(pairs), unit, weighting, stratified, None)[1]

    def evaluator(self, pairs: PandasPairs, layout: Layout) -> Evaluator:
        """Return the metric evaluator of a layout (both models, count vectors or swaps)."""
        pa, pb, y = self._arrays(pairs)
        return make_evaluator(self._metric_obj, y, pa, pb, layout, threshold=self._threshold)

    # statistics ----------------------------------------------------------------
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
        """Count vectors drawn from the bootstrap's streams, the metric recomputed on each.

        Classification metrics resample within target classes (and strata)
        by default, so class counts are preserved; ``stratified=False``
        resamples cases freely. Replicates on which the metric is undefined
        (for example a group resample without positives for AUROC) are
        dropped and counted in ``n_valid``.
        """
        del method  # every interval method applies
        pairs = self._in_memory(pairs)
        layout, meta = self.layout(pairs, unit, weighting, stratified, stratum_weights)
        if layout.n_units == pairs.n_cases and self._task in ("binary", "multiclass"):
            hint = " Resampling within target classes (unit='case') avoids this."
        elif layout.n_units < pairs.n_cases:
            hint = (
                " Whole groups are resampled, so class counts cannot be held fixed; "
                "more groups with both classes make it rarer."
            )
        else:
            hint = ""
        resampler = CountResampler(
            layout=layout, evaluator=self.evaluator(pairs, layout), metric=self.name,
            cell_of_unit=layout.unit_cell, drop_hint=hint,
        )  # fmt: skip
        return BootstrapPlan(resampler, meta, stream_name("bootstrap_chunk"))

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
        """Swap test with the metric recomputed per assignment.

        Each unit (case or whole group) independently swaps which model's
        predictions are called A, reading score mode's sign-flip bits unit
        for unit; "as extreme" tolerates ties of 100 machine epsilons of the
        metrics' size (:func:`pdpaired.core.randomization.tie_tolerance`).
        """
        pairs = self._in_memory(pairs)
        layout, meta = self.layout(pairs, unit, weighting, None, stratum_weights, for_swaps=True)
        evaluator = self.evaluator(pairs, layout)
        u = layout.n_units
        n_permutations = opts.n_permutations
        exact = u < 63 and (1 << u) <= n_permutations
        work = evaluator.draw_seconds * u * n_permutations
        rows = opts.batch or max(64, (1 << 23) // max(1, 2 * u))
        rows = min(rows, progress.steps(n_permutations, opts.batch, 64, work) or rows)
        # one engine for the observed statistic and every assignment (the one reported)
        with engine_for(work), progress.bar(n_permutations, "randomization", "swap") as done:
            t = float(evaluator.swap(np.zeros((1, u), dtype=np.uint8))[0])
            if exact:
                null = evaluator.swap(all_assignments(u))
            else:  # the bits score mode's sign flips read, unit for unit
                null = np.empty(n_permutations)
                for start in range(0, n_permutations, rows):
                    m = min(rows, n_permutations - start)
                    flips = swap_indicators(layout.swap_ptr, start, m, seed.seed_sequence)
                    null[start : start + m] = evaluator.swap(flips)
                    done(m)
            swap_engine = evaluator.swap_engine()
        null = null[np.isfinite(null)]
        gamma = tie_tolerance(meta.metric_a, meta.metric_b, t)
        pvalue, se = null_pvalue(null, t, gamma=gamma, alternative=opts.alternative, exact=exact)
        core = RandomizationCore(
            pvalue=pvalue, pvalue_se=se, null_distribution=null, n_permutations=int(null.size),
            exact=exact, engine="exact" if exact else swap_engine,
        )  # fmt: skip
        return core, meta, stream_name("randomization_bits")

    def pass_flags(self, pairs: PairsBackend) -> PassFlags:
        """Per-case correctness (``metric="accuracy"`` only)."""
        if self._metric_obj != "accuracy":
            msg = (
                "exact_binomial needs binary per-case outcomes: in prediction mode it applies to "
                f"metric='accuracy' (correct / wrong per case), not to {self.name!r}."
            )
            raise ValueError(msg)
        pa, pb, y = self._arrays(self._in_memory(pairs))
        ca = sum_columns("accuracy", y, pa, self._threshold)[:, 0]
        cb = sum_columns("accuracy", y, pb, self._threshold)[:, 0]
        return PassFlags(a_pass=ca == 1.0, b_pass=cb == 1.0)

    def binary_outcomes(self, pairs: PairsBackend) -> bool:
        """Per-case correctness is pass/fail (``metric="accuracy"``)."""
        del pairs
        return self._metric_obj == "accuracy"
