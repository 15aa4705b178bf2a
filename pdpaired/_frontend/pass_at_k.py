"""The sampled-output forms of the ``paired`` accessors: ``pass_at_k`` and ``pass_hat_k``.

:class:`PassAtKForms` reads several rows per (case, model), one per sample
with a 0/1 ``correct`` column, asks the front end's ``_make_pass`` hook for
a :class:`~pdpaired.Comparison` of the per-case unbiased estimates (pass@k
or pass^k) and bootstraps it with the keywords of ``bootstrap``. It is a
mixin over :class:`~pdpaired._frontend.base.FrontEndBase` and keeps no
state.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from pdpaired._frontend.base import FrontEndBase
from pdpaired._lib.docs import compose
from pdpaired._lib.progress import with_progress
from pdpaired._lib.validation import check_model_names
from pdpaired.pairs.columns import Columns, resolve_columns

if TYPE_CHECKING:  # the analysis layer loads on the first analysis, not at import
    from pdpaired.analysis.comparison import Comparison
    from pdpaired.results.bootstrap import BootstrapResult

__all__ = ["PassAtKForms"]


class PassAtKForms(FrontEndBase):
    """``pass_at_k`` and ``pass_hat_k`` of the ``paired`` accessors (no state of its own)."""

    def _pass_bootstrap(
        self, kind: str, a: Any, b: Any, k: Any, correct: Any, missing: str,
        fill_value: float | None, bootstrap_kw: dict[str, Any],
    ) -> BootstrapResult:  # fmt: skip
        check_model_names(a, b)
        cmp = self._make_pass(
            self._columns_for_samples(), a, b, k=k, kind=kind, correct=correct,
            missing=missing, fill_value=fill_value,
        )  # fmt: skip
        return cmp.bootstrap(**bootstrap_kw)

    @compose
    def compare_pass(
        self,
        a: Any,
        b: Any,
        *,
        k: int,
        kind: str = "pass@k",
        correct: str = "correct",
        missing: str = "error",
        fill_value: float | None = None,
    ) -> Comparison:
        """Pair two models' per-case pass@k (or pass^k) estimates, without analysing them yet.

        The :class:`~pdpaired.Comparison` behind :meth:`pass_at_k` and
        :meth:`pass_hat_k`: each case's unbiased estimate for each model
        (``1 - C(n - c, k) / C(n, k)`` for ``kind="pass@k"``, ``C(c, k) /
        C(n, k)`` for ``kind="pass^k"``), paired by case. Its ``bootstrap``
        with the same keywords gives the same result as :meth:`pass_at_k`;
        it also gives the rest of a comparison: ``report`` (the artifacts),
        ``by_slice`` (a slice column must be constant within a case),
        ``randomization``, ``audit`` and ``plan``.

        Parameters
        ----------
        ${pass_params}
        kind : {"pass@k", "pass^k"}, default "pass@k"
            At least one of ``k`` attempts correct, or all ``k``.

        Returns
        -------
        Comparison
            Score mode: one row per case, the estimates as scores; ``metric``
            is ``"pass@5"`` (``"pass^5"``), higher is better.

        Examples
        --------
        >>> import numpy as np, pandas as pd
        >>> import pdpaired
        >>> rng = np.random.default_rng(0)
        >>> p = rng.uniform(0, 1, 200)
        >>> df = pd.DataFrame({
        ...     "case_id": np.repeat(np.arange(200), 20),
        ...     "model": np.tile(np.repeat(["new", "old"], 10), 200),
        ...     "correct": rng.random(4000) < np.repeat(p, 20) * np.tile(
        ...         np.repeat([1.0, 0.8], 10), 200),
        ... })
        >>> cmp = df.paired.compare_pass("new", "old", k=5)
        >>> one = df.paired.pass_at_k("new", "old", k=5, rng=0, n_resamples=2000)
        >>> cmp.bootstrap(rng=0, n_resamples=2000).confidence_interval == one.confidence_interval
        True
        >>> cmp.report(rng=0, n_resamples=2000).to_artifact("shareable")["metric"]["name"]
        'pass@5'
        """
        check_model_names(a, b)
        if kind not in ("pass@k", "pass^k"):
            msg = f"`kind` must be 'pass@k' or 'pass^k'; got {kind!r}."
            raise ValueError(msg)
        return self._make_pass(
            self._columns_for_samples(), a, b, k=k, kind=kind, correct=correct,
            missing=missing, fill_value=fill_value,
        )  # fmt: skip

    def _columns_for_samples(self) -> Columns:
        """Return the configured columns, the score column not required (``correct`` holds it)."""
        spec = dict(self._spec)
        spec["score"] = None
        spec.pop("repeat", None)
        return resolve_columns(spec, self._names())

    @with_progress
    @compose
    def pass_at_k(
        self,
        a: Any,
        b: Any,
        *,
        k: int,
        correct: str = "correct",
        missing: str = "error",
        fill_value: float | None = None,
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
    ) -> BootstrapResult:
        """Paired bootstrap of the difference in pass@k, from several samples per case.

        Each row is one sample of a model's output on a case. Per case and
        model, with ``n`` samples of which ``c`` are correct, the unbiased
        estimate of pass@k (the chance that at least one of ``k`` attempts
        is correct) is ``1 - C(n - c, k) / C(n, k)`` (Chen et al., 2021).
        The estimand is each model's mean over cases of that estimate and
        their difference A - B; the bootstrap resamples cases (or groups,
        within strata) with the per-case estimates paired, so ``n`` may
        differ between cases and models.

        Parameters
        ----------
        ${pass_params}
        ${bootstrap_params}
        ${progress_param}

        Returns
        -------
        BootstrapResult
            ``metric`` is ``"pass@k"`` with ``k`` filled in (``"pass@5"``),
            higher is better.

        See Also
        --------
        pass_hat_k : The same comparison of pass^k (all ``k`` attempts correct).

        Examples
        --------
        >>> import numpy as np, pandas as pd
        >>> import pdpaired
        >>> rng = np.random.default_rng(0)
        >>> p = rng.uniform(0, 1, 200)
        >>> df = pd.DataFrame({
        ...     "case_id": np.repeat(np.arange(200), 20),
        ...     "model": np.tile(np.repeat(["new", "old"], 10), 200),
        ...     "correct": rng.random(4000) < np.repeat(p, 20) * np.tile(
        ...         np.repeat([1.0, 0.8], 10), 200),
        ... })
        >>> res = df.paired.pass_at_k("new", "old", k=5, rng=0, n_resamples=2000)
        >>> res.metric, res.n_cases, res.verdict
        ('pass@5', 200, 'a_better')
        """
        return self._pass_bootstrap(
            "pass@k", a, b, k, correct, missing, fill_value, {
                "n_resamples": n_resamples, "confidence_level": confidence_level,
                "method": method, "rng": rng, "unit": unit, "weighting": weighting,
                "stratified": stratified, "stratum_weights": stratum_weights,
                "practical_threshold": practical_threshold,
                "noninferiority_margin": noninferiority_margin, "batch": batch,
            },
        )  # fmt: skip

    @with_progress
    @compose
    def pass_hat_k(
        self,
        a: Any,
        b: Any,
        *,
        k: int,
        correct: str = "correct",
        missing: str = "error",
        fill_value: float | None = None,
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
    ) -> BootstrapResult:
        """Paired bootstrap of the difference in pass^k, from several samples per case.

        As :meth:`pass_at_k`, with the unbiased estimate of pass^k (the
        chance that all ``k`` attempts are correct: reliability rather than
        coverage), ``C(c, k) / C(n, k)`` per case and model.

        Parameters
        ----------
        ${pass_params}
        ${bootstrap_params}
        ${progress_param}

        Returns
        -------
        BootstrapResult
            ``metric`` is ``"pass^k"`` with ``k`` filled in (``"pass^5"``),
            higher is better.

        See Also
        --------
        pass_at_k : The same comparison of pass@k (at least one correct).

        Examples
        --------
        >>> import pandas as pd
        >>> import pdpaired
        >>> df = pd.DataFrame({
        ...     "case_id": [1] * 6 + [2] * 6 + [3] * 6,
        ...     "model": (["new"] * 3 + ["old"] * 3) * 3,
        ...     "correct": [1, 1, 1, 1, 1, 0,  1, 1, 0, 0, 0, 0,  1, 1, 1, 1, 1, 1],
        ... })
        >>> res = df.paired.pass_hat_k("new", "old", k=2, rng=0, n_resamples=1000)
        >>> res.metric, round(res.metric_a, 4), round(res.metric_b, 4)
        ('pass^2', 0.7778, 0.4444)
        """
        return self._pass_bootstrap(
            "pass^k", a, b, k, correct, missing, fill_value, {
                "n_resamples": n_resamples, "confidence_level": confidence_level,
                "method": method, "rng": rng, "unit": unit, "weighting": weighting,
                "stratified": stratified, "stratum_weights": stratum_weights,
                "practical_threshold": practical_threshold,
                "noninferiority_margin": noninferiority_margin, "batch": batch,
            },
        )  # fmt: skip
