"""The several-model methods of the ``paired`` accessors: ``against`` and ``all_pairs``.

:class:`SeveralModelForms` compares many models from one joint bootstrap of
the cases (:mod:`pdpaired.analysis.multi`): every model against a baseline,
or every pair. It is a mixin over
:class:`~pdpaired._frontend.base.FrontEndBase` and keeps no state: it reads
the table's model labels and pairs the models through the front end's
``_make_many`` hook.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from pdpaired._frontend.base import FrontEndBase
from pdpaired._lib.docs import compose
from pdpaired._lib.progress import with_progress

if TYPE_CHECKING:  # the analysis layer loads on the first analysis, not at import
    from pdpaired.analysis.comparison import Comparison
    from pdpaired.analysis.multi_result import MultiResult
    from pdpaired.core.metrics import Metric
    from pdpaired.pairs.columns import Columns

__all__ = ["SeveralModelForms"]


class SeveralModelForms(FrontEndBase):
    """``against`` and ``all_pairs`` of the ``paired`` accessors (no state of its own)."""

    # -- several models (pdpaired.analysis.multi) ---------------------------------------------
    def _model_labels(self, cols: Columns) -> list[Any]:
        """Return the table's model labels, sorted (first-appearance order if they do not sort)."""
        values = self._obj[cols.model].dropna().unique()
        if hasattr(values, "compute"):
            values = values.compute()
        labels = list(pd.unique(np.asarray(values, dtype=object)))
        try:
            return sorted(labels)
        except TypeError:
            return labels

    def _many(
        self,
        baseline: Any | None,
        models: Sequence[Any] | None,
        kind: str,
        compare_kw: dict[str, Any],
        bootstrap_kw: dict[str, Any],
        adjust: str | None,
        simultaneous: bool,
    ) -> MultiResult:
        from pdpaired.analysis.multi import check_adjust, compare_many, model_pairs
        from pdpaired.core.options import bootstrap_iv

        adjust = check_adjust(adjust)
        if not isinstance(simultaneous, (bool, np.bool_)):
            msg = f"`simultaneous` must be True or False; got {simultaneous!r}."
            raise TypeError(msg)
        opts = bootstrap_iv(
            n_resamples=bootstrap_kw.pop("n_resamples"),
            confidence_level=bootstrap_kw.pop("confidence_level"),
            method=bootstrap_kw.pop("method"), batch=bootstrap_kw.pop("batch"),
            practical_threshold=bootstrap_kw.pop("practical_threshold"),
            noninferiority_margin=bootstrap_kw.pop("noninferiority_margin"),
        )  # fmt: skip
        collect = bootstrap_kw.pop("collect")
        cols = self._columns()
        present = self._model_labels(cols)
        chosen, pairs = model_pairs(present, baseline, models)

        def make(pairs: Sequence[tuple[Any, Any]]) -> list[Comparison]:
            return self._make_many(cols, list(pairs), **compare_kw)

        return compare_many(
            make, pairs, opts, kind=kind, baseline=baseline, models=chosen, adjust=adjust,
            collect=collect, simultaneous=bool(simultaneous), **bootstrap_kw,
        )  # fmt: skip

    @with_progress
    @compose
    def against(
        self,
        baseline: Any,
        models: Sequence[Any] | None = None,
        *,
        metric: str | Metric = "mean",
        higher_is_better: bool | None = None,
        missing: str = "error",
        fill_value: float | None = None,
        class_labels: Sequence[Any] | None = None,
        threshold: float = 0.5,
        n_resamples: int = 10_000,
        confidence_level: float = 0.95,
        method: str = "auto",
        rng: int | np.random.Generator | None = None,
        unit: str | None = None,
        weighting: str = "item",
        stratified: bool | None = None,
        stratum_weights: Mapping[Any, float] | pd.Series | None = None,
        practical_threshold: float = 0.0,
        noninferiority_margin: float | None = None,
        batch: int | None = None,
        collect: bool = False,
        adjust: str | None = "holm",
        simultaneous: bool = True,
    ) -> MultiResult:
        """Compare every other model with a baseline, from one joint bootstrap of the cases.

        Each comparison is ``(model, baseline)``: positive improvements mean
        the model beats the baseline. Every pairing invariant is checked for
        every model before anything is resampled (a case missing for one
        model is a missing outcome of that model, under ``missing``, in each
        comparison it enters). One resampling of the cases serves every
        comparison, so the replicates are coherent across comparisons:
        each comparison's improvement and replicates equal the two-model
        ``bootstrap(model, baseline, ...)`` with the same seed (see the
        "Several models" guide for the one exception, the multinomial
        shortcut of few-valued differences), and so do its interval and
        verdict with ``simultaneous=False``. By default the intervals are
        simultaneous: they cover every comparison at once.

        Parameters
        ----------
        baseline : str
            The reference model (B of every comparison).
        models : list, optional
            The models to compare with it (default: every other model in
            the table, sorted).
        ${compare_options}
        ${bootstrap_params}
        ${collect_param}
        ${progress_param}
        ${multi_params}

        Returns
        -------
        MultiResult

        See Also
        --------
        all_pairs : Every pair of models.

        Examples
        --------
        >>> import numpy as np, pandas as pd
        >>> import pdpaired
        >>> rng = np.random.default_rng(0)
        >>> n = 300
        >>> truth = rng.uniform(size=n)
        >>> df = pd.DataFrame({
        ...     "case_id": np.tile(np.arange(n), 3),
        ...     "model": np.repeat(["base", "small", "large"], n),
        ...     "score": np.concatenate([truth, truth + rng.normal(0.0, 0.1, n),
        ...                              truth + rng.normal(0.08, 0.1, n)]),
        ... })
        >>> res = df.paired.against("base", higher_is_better=True, rng=0, n_resamples=2000)
        >>> res.to_frame()[["a", "b", "verdict"]]
               a     b       verdict
        0  large  base      a_better
        1  small  base  inconclusive
        """
        compare_kw = {
            "metric": metric, "higher_is_better": higher_is_better, "missing": missing,
            "fill_value": fill_value, "class_labels": class_labels, "threshold": threshold,
        }  # fmt: skip
        bootstrap_kw = {
            "n_resamples": n_resamples, "confidence_level": confidence_level, "method": method,
            "rng": rng, "unit": unit, "weighting": weighting, "stratified": stratified,
            "stratum_weights": stratum_weights, "practical_threshold": practical_threshold,
            "noninferiority_margin": noninferiority_margin, "batch": batch, "collect": collect,
        }  # fmt: skip
        return self._many(
            baseline, models, "against", compare_kw, bootstrap_kw, adjust, simultaneous
        )

    @with_progress
    @compose
    def all_pairs(
        self,
        models: Sequence[Any] | None = None,
        *,
        metric: str | Metric = "mean",
        higher_is_better: bool | None = None,
        missing: str = "error",
        fill_value: float | None = None,
        class_labels: Sequence[Any] | None = None,
        threshold: float = 0.5,
        n_resamples: int = 10_000,
        confidence_level: float = 0.95,
        method: str = "auto",
        rng: int | np.random.Generator | None = None,
        unit: str | None = None,
        weighting: str = "item",
        stratified: bool | None = None,
        stratum_weights: Mapping[Any, float] | pd.Series | None = None,
        practical_threshold: float = 0.0,
        noninferiority_margin: float | None = None,
        batch: int | None = None,
        collect: bool = False,
        adjust: str | None = "holm",
        simultaneous: bool = True,
    ) -> MultiResult:
        """Compare every pair of models, from one joint bootstrap of the cases.

        The comparisons are ``(models[i], models[j])`` for ``i < j``. As in
        :meth:`against`, every invariant of every model is checked first,
        one resampling of the cases serves every comparison (replicate ``r``
        of A - C equals that of A - B plus that of B - C), each row's
        estimate and replicates equal the two-model ``bootstrap(a, b, ...)``
        with the same seed (its interval too with ``simultaneous=False``),
        and by default the intervals cover every pair at once.
        :meth:`MultiResult.ranks` gives simultaneous rank confidence sets.

        Parameters
        ----------
        models : list, optional
            The models, in the order the pairs are formed (default: every
            model in the table, sorted).
        ${compare_options}
        ${bootstrap_params}
        ${collect_param}
        ${progress_param}
        ${multi_params}

        Returns
        -------
        MultiResult

        See Also
        --------
        against : Every model against one baseline.

        Examples
        --------
        >>> import numpy as np, pandas as pd
        >>> import pdpaired
        >>> rng = np.random.default_rng(0)
        >>> n = 300
        >>> truth = rng.uniform(size=n)
        >>> df = pd.DataFrame({
        ...     "case_id": np.tile(np.arange(n), 3),
        ...     "model": np.repeat(["a", "b", "c"], n),
        ...     "score": np.concatenate([truth + 0.1, truth + rng.normal(0.0, 0.1, n),
        ...                              truth + rng.normal(-0.1, 0.1, n)]),
        ... })
        >>> res = df.paired.all_pairs(higher_is_better=True, rng=0, n_resamples=2000)
        >>> res.to_frame()[["a", "b", "verdict"]]
           a  b   verdict
        0  a  b  a_better
        1  a  c  a_better
        2  b  c  a_better
        >>> res.ranks().to_frame()[["model", "rank", "lower", "upper"]]
          model  rank  lower  upper
        0     a     1      1      1
        1     b     2      2      2
        2     c     3      3      3
        """
        compare_kw = {
            "metric": metric, "higher_is_better": higher_is_better, "missing": missing,
            "fill_value": fill_value, "class_labels": class_labels, "threshold": threshold,
        }  # fmt: skip
        bootstrap_kw = {
            "n_resamples": n_resamples, "confidence_level": confidence_level, "method": method,
            "rng": rng, "unit": unit, "weighting": weighting, "stratified": stratified,
            "stratum_weights": stratum_weights, "practical_threshold": practical_threshold,
            "noninferiority_margin": noninferiority_margin, "batch": batch, "collect": collect,
        }  # fmt: skip
        return self._many(None, models, "all_pairs", compare_kw, bootstrap_kw, adjust, simultaneous)
