"""Scale-out: the ``paired`` accessor on Dask DataFrames.

``import pdpaired.dask`` (extra ``pdpaired[dask]``) registers ``paired`` on
:class:`dask.dataframe.DataFrame` with the score-mode API of the pandas
accessor: ``compare``, ``bootstrap``, ``randomization``, ``exact_binomial``,
``by_slice`` and ``report``, with the same signatures. ``compare`` returns
the same :class:`~pdpaired.Comparison` as on pandas, holding the table's
pairs in a Dask backend (:mod:`pdpaired.pairs.dask`, which says how the
table is reduced); this module is only the front end.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dask.dataframe.extensions import register_dataframe_accessor

from pdpaired._frontend import PairedFrontEnd
from pdpaired._lib.public import rehome
from pdpaired.analysis.comparison import Comparison
from pdpaired.analysis.make import check_models, check_score_mode, make_comparison
from pdpaired.analysis.measures import MeanMeasure
from pdpaired.core.metrics import Metric
from pdpaired.pairs.columns import Columns
from pdpaired.pairs.dask.backend import DaskPairs

__all__ = ["DaskPairedAccessor", "DaskPairs"]


# --------------------------------------------------------------------------- accessor
@register_dataframe_accessor("paired")
class DaskPairedAccessor(PairedFrontEnd):
    """Paired comparison of two models on a Dask long table, as ``ddf.paired``.

    The methods of :class:`pdpaired.PairedAccessor`, with the same signatures,
    on a :class:`dask.dataframe.DataFrame` (score mode): ``compare`` returns a
    :class:`~pdpaired.Comparison` over the table's pairs, whose
    ``bootstrap``, ``randomization``, ``exact_binomial``, ``by_slice`` and
    ``report`` return the usual result objects.
    Call it to configure column names (the call returns a new accessor).
    Prediction mode (``target=``, ``prediction=``) is not available on Dask
    tables yet and raises :class:`NotImplementedError`; ``report`` brings the
    per-case table (one row per case) to the client to digest it. A metric
    of per-case statistics (:meth:`Metric.from_statistics
    <pdpaired.Metric.from_statistics>`, :func:`pdpaired.metrics.bleu`, ...)
    brings the two models' rows to the client and pairs them there, since
    its resamples index every case's statistics.

    Examples
    --------
    >>> import dask.dataframe as dd
    >>> import numpy as np, pandas as pd
    >>> import pdpaired.dask
    >>> rng = np.random.default_rng(0)
    >>> n = 400
    >>> df = pd.DataFrame({
    ...     "case_id": np.tile(np.arange(n), 2),
    ...     "model": np.repeat(["new", "old"], n),
    ...     "score": rng.integers(0, 2, 2 * n),
    ...     "group": np.tile(np.arange(n) // 4, 2),
    ... })
    >>> ddf = dd.from_pandas(df, npartitions=4)
    >>> res = ddf.paired.bootstrap("new", "old", higher_is_better=True, rng=0,
    ...                            n_resamples=2000)
    >>> pd_res = df.paired.bootstrap("new", "old", higher_is_better=True, rng=0,
    ...                              n_resamples=2000)
    >>> res.confidence_interval == pd_res.confidence_interval   # bit for bit
    True
    """

    def _make(
        self,
        cols: Columns,
        a: Any,
        b: Any,
        *,
        metric: str | Metric,
        higher_is_better: bool | None,
        missing: str,
        fill_value: float | None,
        class_labels: Sequence[Any] | None,
        threshold: float,
    ) -> Comparison:
        del class_labels, threshold  # prediction mode only, as on the pandas path
        if cols.repeat is not None:
            msg = (
                "repeat='sample' (several runs per case) is not available on the Dask path yet. "
                "For the case-level analysis, average the runs in Dask first, e.g. "
                "ddf.groupby(['case_id', 'model']).score.mean().reset_index(), and compare "
                "the means; for the two-stage bootstrap or variance_components(), use the "
                "pandas accessor (ddf.compute())."
            )
            raise NotImplementedError(msg)
        if isinstance(metric, Metric) and metric.statistics is not None:
            return self._statistics_comparison(
                cols, a, b, metric=metric, higher_is_better=higher_is_better, missing=missing,
                fill_value=fill_value,
            )  # fmt: skip
        if cols.target is not None or cols.prediction is not None:
            msg = (
                "Prediction mode (target= / prediction= columns) is not available on the Dask "
                "path yet: compute a per-case score (correct, squared error, ...) in Dask and "
                "compare it with metric='mean', or use the pandas accessor."
            )
            raise NotImplementedError(msg)
        missing = check_models(a, b, missing)
        higher_is_better = check_score_mode(
            cols, a, b, metric, higher_is_better,
            hint="is not available: the Dask path supports score mode only; use the pandas "
            "accessor for prediction metrics, or compute a per-case score (correct, squared "
            "error, ...) in Dask first",
        )  # fmt: skip
        pairs = DaskPairs(
            self._obj, cols, a, b, higher_is_better=higher_is_better, missing=missing,
            fill_value=fill_value,
        )  # fmt: skip
        return Comparison(pairs, MeanMeasure(higher_is_better))

    def _statistics_comparison(
        self,
        cols: Columns,
        a: Any,
        b: Any,
        *,
        metric: Metric,
        higher_is_better: bool | None,
        missing: str,
        fill_value: float | None,
    ) -> Comparison:
        """Pair a statistics metric's rows: the two models', computed, on the pandas path.

        A corpus metric of per-case statistics needs each case's statistics
        on the client (the resamples index them), so the reduction here is the
        row filter to the two models; the pairing checks and every analysis are
        then the pandas path's, number for number.
        """
        if cols.model not in self._obj.columns:
            msg = f"Column {cols.model!r} (the model column) is not in the table."
            raise KeyError(msg)
        rows = self._obj[self._obj[cols.model].isin([a, b])].compute()
        return make_comparison(
            rows, cols, a, b, metric=metric, higher_is_better=higher_is_better,
            missing=missing, fill_value=fill_value, class_labels=None, threshold=0.5,
        )  # fmt: skip


rehome(globals(), __all__, "pdpaired.dask")
del rehome
