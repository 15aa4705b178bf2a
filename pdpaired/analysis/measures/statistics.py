"""The measure of a statistics metric: a function of totals of per-case statistics.

``df.paired.compare("A", "B", metric=pdpaired.metrics.bleu())`` pairs the
metric's statistic columns (one row per case and model) and holds a
:class:`StatisticsMeasure`. Corpus BLEU is not the mean of sentence BLEU; it
is a function of the corpus totals of each sentence's matched n-grams and
lengths. So every resample (or swap assignment) recomputes the metric from
the resample's weighted totals: one matrix product of count weights and
statistics per batch, the metric's vectorized ``fn`` on the result. The
resampling design (cases, whole documents, strata) and the random streams
are those of every corpus metric (:class:`CorpusMeasure`), without the
target classes: a statistics table has no target.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pdpaired.analysis.measures.corpus import CorpusMeasure
from pdpaired.core.metrics import Metric
from pdpaired.core.prediction import Evaluator, Layout, make_evaluator, statistics_value
from pdpaired.pairs.backend import PairsBackend, PassFlags
from pdpaired.pairs.pandas.backend import PandasPairs

__all__ = ["StatisticsMeasure"]


class StatisticsMeasure(CorpusMeasure):
    """A statistics metric (:meth:`pdpaired.Metric.from_statistics`) recomputed per resample.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import pdpaired
    >>> rng = np.random.default_rng(0)
    >>> n = 200
    >>> df = pd.DataFrame({
    ...     "case_id": np.tile(np.arange(n), 2),
    ...     "model": np.repeat(["new", "old"], n),
    ...     "tp": np.concatenate([rng.integers(3, 6, n), rng.integers(2, 6, n)]),
    ...     "fp": rng.integers(0, 3, 2 * n),
    ...     "fn": rng.integers(0, 3, 2 * n),
    ... })
    >>> res = df.paired.bootstrap("new", "old", metric=pdpaired.metrics.micro_f1(),
    ...                           n_resamples=999, rng=0)
    >>> res.metric, res.sampling, res.n_valid
    ('micro_f1', 'iid', 999)
    """

    def __init__(self, metric: Metric) -> None:
        assert metric.statistics is not None
        super().__init__(metric, task="statistics", classes=None, threshold=0.5)

    @property
    def _metric(self) -> Metric:
        assert isinstance(self._metric_obj, Metric)
        return self._metric_obj

    @property
    def statistics(self) -> tuple[str, ...]:
        """The statistic columns, in the order ``fn`` reads them."""
        assert self._metric.statistics is not None
        return self._metric.statistics

    @property
    def threshold(self) -> float | None:
        """None: a statistics metric has no threshold."""
        return None

    def describe(self) -> str:
        """``metric='bleu'``, statistics listed."""
        return f"metric={self.name!r}, statistics={list(self.statistics)!r}"

    @staticmethod
    def _in_memory(pairs: PairsBackend) -> PandasPairs:
        if not isinstance(pairs, PandasPairs) or pairs.data.values_a is None:
            msg = (
                "A statistics metric needs the per-case statistics in memory; these pairs "
                f"are a {pairs.kind} table of per-case scores."
            )
            raise TypeError(msg)
        return pairs

    @staticmethod
    def _arrays(pairs: PandasPairs) -> tuple[np.ndarray, np.ndarray, Any]:
        xa, xb = pairs.values_a, pairs.values_b
        return xa.reshape(xa.shape[0], -1), xb.reshape(xb.shape[0], -1), None

    def _metric_values(self, pairs: PandasPairs, weights: np.ndarray | None) -> tuple[float, float]:
        xa, xb, _ = self._arrays(pairs)
        if weights is not None:  # post-stratified: weights summing to the cases, as resamples
            weights = weights * (xa.shape[0] / weights.sum())
        out = []
        for x in (xa, xb):
            totals = x.sum(axis=0) if weights is None else weights @ x
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                out.append(float(statistics_value(self.name, self._metric.fn, totals)))
        return out[0], out[1]

    def evaluator(self, pairs: PandasPairs, layout: Layout) -> Evaluator:
        """Return the batch evaluator: exact totals per stratum, ``fn`` on each batch."""
        xa, xb, _ = self._arrays(pairs)
        return make_evaluator(self._metric, None, xa, xb, layout, threshold=0.5)

    def pass_flags(self, pairs: PairsBackend) -> PassFlags:
        """Not available: a statistics metric has no per-case pass/fail."""
        del pairs
        msg = (
            f"exact_binomial needs binary per-case outcomes; the statistics metric {self.name!r} "
            "is a function of corpus totals, with no pass/fail per case."
        )
        raise ValueError(msg)

    def binary_outcomes(self, pairs: PairsBackend) -> bool:
        """Return False: a function of totals has no per-case pass/fail."""
        del pairs
        return False
