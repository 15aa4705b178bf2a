"""The two-model methods of the ``paired`` accessors: ``compare`` and the one-call forms.

:class:`TwoModelForms` pairs model ``a`` with model ``b`` (``compare``) and
runs one analysis of that comparison in one call (``bootstrap``,
``audit``, ``randomization``, ``exact_binomial``, ``by_slice``, ``report``,
``sequential``, ``plan``, ``sensitivity``, ``delong``). It is a mixin over
:class:`~pdpaired._frontend.base.FrontEndBase` and keeps no state: each
method checks the models, calls the front end's ``_make`` hook and hands the
keywords to the :class:`~pdpaired.Comparison` method of the same name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from pdpaired._frontend.base import FrontEndBase
from pdpaired._lib.docs import compose
from pdpaired._lib.progress import with_progress
from pdpaired._lib.validation import check_model_names

if TYPE_CHECKING:  # the analysis layer loads on the first analysis, not at import
    from pdpaired.analysis.comparison import Comparison
    from pdpaired.artifacts.report import ComparisonReport
    from pdpaired.core.metrics import Metric
    from pdpaired.results.audit import AuditResult
    from pdpaired.results.bootstrap import BootstrapResult
    from pdpaired.results.delong import DeLongResult
    from pdpaired.results.exact_binomial import ExactBinomialResult
    from pdpaired.results.planning import PlanResult
    from pdpaired.results.randomization import RandomizationResult
    from pdpaired.results.sensitivity import SensitivityResult
    from pdpaired.results.sequential import SequenceResult
    from pdpaired.results.slices import SliceResult
    from pdpaired.results.split import SplitResult

__all__ = ["TwoModelForms"]


class TwoModelForms(FrontEndBase):
    """``compare`` and the one-call forms of the ``paired`` accessors (no state of its own)."""

    # -- pairing -------------------------------------------------------------
    @compose
    def compare(
        self,
        a: Any,
        b: Any,
        *,
        metric: str | Metric = "mean",
        higher_is_better: bool | None = None,
        missing: str = "error",
        fill_value: float | None = None,
        class_labels: Sequence[Any] | None = None,
        threshold: float = 0.5,
    ) -> Comparison:
        """Pair model ``a`` (candidate) with model ``b`` (reference) case by case.

        Every pairing invariant is checked before anything is computed; a
        violation raises :class:`~pdpaired.PairingError` naming the rule, the
        number of offending cases and the first ids.

        Parameters
        ----------
        ${compare_params}

        Returns
        -------
        Comparison

        Examples
        --------
        >>> import pandas as pd
        >>> import pdpaired
        >>> df = pd.DataFrame({
        ...     "case_id": [1, 1, 2, 2, 3],
        ...     "model": ["new", "old", "new", "old", "new"],
        ...     "score": [1, 0, 1, 1, 1],
        ... })
        >>> cmp = df.paired.compare("new", "old", higher_is_better=True, missing="as-failure")
        >>> cmp.missing.n_filled, cmp.pairs.loc[3, "old"]
        (1, np.float64(0.0))
        """
        check_model_names(a, b)
        return self._make(
            self._columns(), a, b, metric=metric, higher_is_better=higher_is_better,
            missing=missing, fill_value=fill_value, class_labels=class_labels,
            threshold=threshold,
        )  # fmt: skip

    # -- one-call forms ------------------------------------------------------
    @with_progress
    @compose
    def bootstrap(
        self,
        a: Any,
        b: Any,
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
        resample_repeats: bool = False,
        resample_factors: bool = False,
    ) -> BootstrapResult:
        """Paired bootstrap in one call: ``compare(a, b, ...)``, then ``bootstrap(...)``.

        Parameters
        ----------
        ${compare_params}
        ${bootstrap_params}
        ${collect_param}
        ${progress_param}
        ${repeats_param}
        ${factors_param}

        Returns
        -------
        BootstrapResult

        See Also
        --------
        pdpaired.Comparison.bootstrap : The same analysis on a comparison.

        Examples
        --------
        >>> import pdpaired
        >>> from pdpaired.datasets import load_digits_cv
        >>> res = load_digits_cv().paired(score="correct").bootstrap(
        ...     "knn", "logreg", higher_is_better=True, rng=0, n_resamples=2000
        ... )
        >>> res.sampling, res.n_cases
        ('iid', 1797)
        """
        cmp = self.compare(
            a, b, metric=metric, higher_is_better=higher_is_better, missing=missing,
            fill_value=fill_value, class_labels=class_labels, threshold=threshold,
        )  # fmt: skip
        return cmp.bootstrap(
            n_resamples=n_resamples, confidence_level=confidence_level, method=method, rng=rng,
            unit=unit, weighting=weighting, stratified=stratified, stratum_weights=stratum_weights,
            practical_threshold=practical_threshold, noninferiority_margin=noninferiority_margin,
            batch=batch, collect=collect, resample_repeats=resample_repeats,
            resample_factors=resample_factors,
        )  # fmt: skip

    @with_progress
    @compose
    def audit(
        self,
        a: Any,
        b: Any,
        *,
        metric: str | Metric = "mean",
        higher_is_better: bool | None = None,
        missing: str = "error",
        fill_value: float | None = None,
        class_labels: Sequence[Any] | None = None,
        threshold: float = 0.5,
        methods: Sequence[str] | None = None,
        n_simulations: int = 400,
        n_resamples: int = 999,
        confidence_level: float = 0.95,
        tests: bool = True,
        rng: int | np.random.Generator | None = None,
        unit: str | None = None,
        weighting: str = "item",
        stratified: bool | None = None,
        stratum_weights: Mapping[Any, float] | pd.Series | None = None,
        collect: bool = False,
    ) -> AuditResult:
        """Design audit in one call: ``compare(a, b, ...)``, then ``audit(...)``.

        Parameters
        ----------
        ${compare_params}
        ${audit_params}
        ${collect_param}
        ${progress_param}

        Returns
        -------
        AuditResult

        See Also
        --------
        pdpaired.Comparison.audit : The same analysis on a comparison.

        Examples
        --------
        >>> import pdpaired
        >>> from pdpaired.datasets import load_digits_cv
        >>> res = load_digits_cv().paired(score="correct").audit(
        ...     "knn", "logreg", higher_is_better=True, rng=0, n_simulations=20,
        ...     n_resamples=199)
        >>> res.auto_method, res.to_frame()["method"].tolist()[-2:]
        ('tango', ['randomization', 'exact_binomial'])
        """
        cmp = self.compare(
            a, b, metric=metric, higher_is_better=higher_is_better, missing=missing,
            fill_value=fill_value, class_labels=class_labels, threshold=threshold,
        )  # fmt: skip
        return cmp.audit(
            methods=methods, n_simulations=n_simulations, n_resamples=n_resamples,
            confidence_level=confidence_level, tests=tests, rng=rng, unit=unit,
            weighting=weighting, stratified=stratified, stratum_weights=stratum_weights,
            collect=collect,
        )  # fmt: skip

    @with_progress
    @compose
    def randomization(
        self,
        a: Any,
        b: Any,
        *,
        metric: str | Metric = "mean",
        higher_is_better: bool | None = None,
        missing: str = "error",
        fill_value: float | None = None,
        class_labels: Sequence[Any] | None = None,
        threshold: float = 0.5,
        n_permutations: int = 10_000,
        alternative: str = "two-sided",
        rng: int | np.random.Generator | None = None,
        unit: str | None = None,
        weighting: str = "item",
        stratum_weights: Mapping[Any, float] | pd.Series | None = None,
        batch: int | None = None,
        collect: bool = False,
    ) -> RandomizationResult:
        """Paired randomization test in one call: ``compare(a, b, ...)``, then ``randomization``.

        Parameters
        ----------
        ${compare_params}
        ${randomization_params}
        ${collect_param}
        ${progress_param}

        Returns
        -------
        RandomizationResult

        See Also
        --------
        pdpaired.Comparison.randomization : The same test on a comparison.

        Examples
        --------
        >>> import pdpaired
        >>> from pdpaired.datasets import load_digits_cv
        >>> res = load_digits_cv().paired(score="log_loss").randomization(
        ...     "knn", "logreg", higher_is_better=False, alternative="greater", rng=0,
        ...     n_permutations=2000)
        >>> res.statistic > 0, res.unit
        (True, 'case')
        """
        cmp = self.compare(
            a, b, metric=metric, higher_is_better=higher_is_better, missing=missing,
            fill_value=fill_value, class_labels=class_labels, threshold=threshold,
        )  # fmt: skip
        return cmp.randomization(
            n_permutations=n_permutations, alternative=alternative, rng=rng, unit=unit,
            weighting=weighting, stratum_weights=stratum_weights, batch=batch,
            collect=collect,
        )  # fmt: skip

    @compose
    def exact_binomial(
        self,
        a: Any,
        b: Any,
        *,
        metric: str | Metric = "mean",
        higher_is_better: bool | None = None,
        missing: str = "error",
        fill_value: float | None = None,
        class_labels: Sequence[Any] | None = None,
        threshold: float = 0.5,
        alternative: str = "two-sided",
        mid_p: bool = False,
        confidence_level: float = 0.95,
    ) -> ExactBinomialResult:
        """Exact binomial test in one call: ``compare(a, b, ...)``, then ``exact_binomial``.

        Parameters
        ----------
        ${compare_params}
        ${exact_binomial_params}

        Returns
        -------
        ExactBinomialResult

        See Also
        --------
        pdpaired.Comparison.exact_binomial : The same test on a comparison.

        Examples
        --------
        >>> import pdpaired
        >>> from pdpaired.datasets import load_digits_cv
        >>> res = load_digits_cv().paired(score="correct").exact_binomial(
        ...     "knn", "logreg", higher_is_better=True)
        >>> res.a_only, res.b_only
        (39, 10)
        """
        cmp = self.compare(
            a, b, metric=metric, higher_is_better=higher_is_better, missing=missing,
            fill_value=fill_value, class_labels=class_labels, threshold=threshold,
        )  # fmt: skip
        return cmp.exact_binomial(
            alternative=alternative, mid_p=mid_p, confidence_level=confidence_level
        )

    @with_progress
    @compose
    def by_slice(
        self,
        a: Any,
        b: Any,
        *,
        columns: str | Sequence[str],
        metric: str | Metric = "mean",
        higher_is_better: bool | None = None,
        missing: str = "error",
        fill_value: float | None = None,
        class_labels: Sequence[Any] | None = None,
        threshold: float = 0.5,
        min_size: int = 30,
        uncertainty: bool = False,
        n_resamples: int = 2_000,
        n_permutations: int = 2_000,
        adjust: str | None = "holm",
        rng: int | np.random.Generator | None = None,
        confidence_level: float = 0.95,
        practical_threshold: float = 0.0,
        unit: str | None = None,
        weighting: str = "item",
        method: str = "auto",
        batch: int | None = None,
        collect: bool = False,
    ) -> SliceResult:
        """Per-slice comparison in one call: ``compare(a, b, ...)``, then ``by_slice``.

        ``columns`` is a keyword here, since ``a`` and ``b`` are the only
        positionals.

        Parameters
        ----------
        ${slice_columns_param}
        ${compare_params}
        ${by_slice_params}
        ${collect_param}
        ${progress_param}

        Returns
        -------
        SliceResult

        See Also
        --------
        pdpaired.Comparison.by_slice : The same analysis on a comparison.

        Examples
        --------
        >>> import pdpaired
        >>> from pdpaired.datasets import load_digits_cv
        >>> res = load_digits_cv().paired(score="correct").by_slice(
        ...     "knn", "logreg", columns="fold", higher_is_better=True)
        >>> len(res.table), sorted(set(res.table["winner"]))
        (10, ['A'])
        """
        cmp = self.compare(
            a, b, metric=metric, higher_is_better=higher_is_better, missing=missing,
            fill_value=fill_value, class_labels=class_labels, threshold=threshold,
        )  # fmt: skip
        return cmp.by_slice(
            columns, min_size=min_size, uncertainty=uncertainty, n_resamples=n_resamples,
            n_permutations=n_permutations, adjust=adjust, rng=rng,
            confidence_level=confidence_level, practical_threshold=practical_threshold,
            unit=unit, weighting=weighting, batch=batch, collect=collect, method=method,
        )  # fmt: skip

    @with_progress
    @compose
    def report(
        self,
        a: Any,
        b: Any,
        *,
        metric: str | Metric = "mean",
        higher_is_better: bool | None = None,
        missing: str = "error",
        fill_value: float | None = None,
        class_labels: Sequence[Any] | None = None,
        threshold: float = 0.5,
        n_resamples: int = 10_000,
        n_permutations: int = 10_000,
        slices: str | Sequence[str] | None = None,
        min_slice_size: int = 30,
        slice_uncertainty: bool = False,
        practical_threshold: float = 0.0,
        noninferiority_margin: float | None = None,
        confidence_level: float = 0.95,
        method: str = "auto",
        alternative: str = "two-sided",
        rng: int | np.random.Generator | None = None,
        unit: str | None = None,
        weighting: str = "item",
        score_range: tuple[float, float] | None = None,
        split: SplitResult | None = None,
    ) -> ComparisonReport:
        """Run the declared analysis in one call: ``compare(a, b, ...)``, then ``report``.

        Parameters
        ----------
        ${compare_params}
        ${report_params}
        ${progress_param}

        Returns
        -------
        ComparisonReport

        See Also
        --------
        pdpaired.Comparison.report : The same report on a comparison.
        """
        cmp = self.compare(
            a, b, metric=metric, higher_is_better=higher_is_better, missing=missing,
            fill_value=fill_value, class_labels=class_labels, threshold=threshold,
        )  # fmt: skip
        return cmp.report(
            n_resamples=n_resamples, n_permutations=n_permutations, slices=slices,
            min_slice_size=min_slice_size, slice_uncertainty=slice_uncertainty,
            practical_threshold=practical_threshold, noninferiority_margin=noninferiority_margin,
            confidence_level=confidence_level, method=method, alternative=alternative, rng=rng,
            unit=unit, weighting=weighting, score_range=score_range, split=split,
        )  # fmt: skip

    @compose
    def sequential(
        self,
        a: Any,
        b: Any,
        *,
        order: str,
        metric: str | Metric = "mean",
        higher_is_better: bool | None = None,
        missing: str = "error",
        fill_value: float | None = None,
        class_labels: Sequence[Any] | None = None,
        threshold: float = 0.5,
        alpha: float = 0.05,
        bounds: tuple[float, float] | None = None,
        alternative: str = "two-sided",
    ) -> SequenceResult:
        """Confidence sequence in one call: ``compare(a, b, ...)``, then ``sequential``.

        ``order`` is a keyword here, since ``a`` and ``b`` are the only
        positionals.

        Parameters
        ----------
        ${compare_params}
        ${sequential_params}

        Returns
        -------
        SequenceResult

        See Also
        --------
        pdpaired.Comparison.sequential : The same sequence on a comparison.
        pdpaired.Monitor : The streaming form, fed batch by batch.

        Examples
        --------
        >>> import pdpaired
        >>> from pdpaired.datasets import load_digits_cv
        >>> df = load_digits_cv()
        >>> res = df.paired(score="correct").sequential(
        ...     "knn", "logreg", order="case_id", higher_is_better=True)
        >>> res.n, res.verdict
        (1797, 'a_better')
        """
        cmp = self.compare(
            a, b, metric=metric, higher_is_better=higher_is_better, missing=missing,
            fill_value=fill_value, class_labels=class_labels, threshold=threshold,
        )  # fmt: skip
        return cmp.sequential(order, alpha=alpha, bounds=bounds, alternative=alternative)

    @compose
    def plan(
        self,
        a: Any,
        b: Any,
        *,
        metric: str | Metric = "mean",
        higher_is_better: bool | None = None,
        missing: str = "error",
        fill_value: float | None = None,
        class_labels: Sequence[Any] | None = None,
        threshold: float = 0.5,
        power: float = 0.8,
        alpha: float = 0.05,
        alternative: str = "two-sided",
        effect: float | None = None,
        n_cases: int | None = None,
        method: str = "analytic",
        n_simulations: int = 2_000,
        rng: int | np.random.Generator | None = None,
        test: str | None = None,
        practical_threshold: float = 0.0,
    ) -> PlanResult:
        """Plan in one call: ``compare(a, b, ...)``, then ``plan``.

        Parameters
        ----------
        ${compare_params}
        ${plan_params}

        Returns
        -------
        PlanResult

        See Also
        --------
        pdpaired.Comparison.plan : The same plan on a comparison.

        Examples
        --------
        >>> import pdpaired
        >>> from pdpaired.datasets import load_digits_cv
        >>> p = load_digits_cv().paired(score="correct").plan(
        ...     "knn", "logreg", higher_is_better=True, effect=0.005)
        >>> p.n_cases_needed
        8891
        """
        cmp = self.compare(
            a, b, metric=metric, higher_is_better=higher_is_better, missing=missing,
            fill_value=fill_value, class_labels=class_labels, threshold=threshold,
        )  # fmt: skip
        return cmp.plan(
            power=power, alpha=alpha, alternative=alternative, effect=effect, n_cases=n_cases,
            method=method, n_simulations=n_simulations, rng=rng, test=test,
            practical_threshold=practical_threshold,
        )  # fmt: skip

    @compose
    def sensitivity(
        self,
        a: Any,
        b: Any,
        *,
        metric: str | Metric = "mean",
        higher_is_better: bool | None = None,
        missing: str = "error",
        fill_value: float | None = None,
        class_labels: Sequence[Any] | None = None,
        threshold: float = 0.5,
        lower: float | None = None,
        upper: float | None = None,
        confidence_level: float = 0.95,
        rng: int | np.random.Generator | None = None,
    ) -> SensitivityResult:
        """Missing-outcome sensitivity in one call: ``compare(a, b, ...)``, then ``sensitivity``.

        Parameters
        ----------
        ${compare_params}
        ${sensitivity_params}

        Returns
        -------
        SensitivityResult

        See Also
        --------
        pdpaired.Comparison.sensitivity : The same analysis on a comparison.

        Examples
        --------
        >>> import numpy as np, pandas as pd
        >>> import pdpaired
        >>> df = pd.DataFrame({"case_id": [1, 1, 2, 2, 3, 3, 4],
        ...                    "model": ["a", "b"] * 3 + ["b"],
        ...                    "score": [1, 0, 1, 1, 0, 0, 1]})
        >>> res = df.paired.sensitivity("a", "b", higher_is_better=True,
        ...                             missing="complete-case")
        >>> res.bounds.low, res.bounds.high
        (0.0, 0.25)
        """
        cmp = self.compare(
            a, b, metric=metric, higher_is_better=higher_is_better, missing=missing,
            fill_value=fill_value, class_labels=class_labels, threshold=threshold,
        )  # fmt: skip
        return cmp.sensitivity(lower=lower, upper=upper, confidence_level=confidence_level, rng=rng)

    @compose
    def delong(
        self,
        a: Any,
        b: Any,
        *,
        metric: str | Metric = "auroc",
        higher_is_better: bool | None = None,
        missing: str = "error",
        fill_value: float | None = None,
        class_labels: Sequence[Any] | None = None,
        threshold: float = 0.5,
        alternative: str = "two-sided",
        confidence_level: float = 0.95,
    ) -> DeLongResult:
        """DeLong's test of equal AUROC in one call: ``compare(a, b, ...)``, then ``delong``.

        Binary prediction mode only (configure ``target`` and ``prediction``);
        ``metric`` defaults to ``"auroc"``, the only metric the test compares.

        Parameters
        ----------
        ${compare_params}
        ${delong_params}

        Returns
        -------
        DeLongResult

        See Also
        --------
        pdpaired.Comparison.delong : The same test on a comparison.

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
        ...     "p": np.concatenate([y + rng.normal(0, 0.8, 300), y + rng.normal(0, 1.2, 300)]),
        ... })
        >>> res = df.paired(target="y", prediction="p").delong("new", "old")
        >>> bool(res.statistic > 0), bool(res.pvalue < 0.05)
        (True, True)
        """
        cmp = self.compare(
            a, b, metric=metric, higher_is_better=higher_is_better, missing=missing,
            fill_value=fill_value, class_labels=class_labels, threshold=threshold,
        )  # fmt: skip
        return cmp.delong(alternative=alternative, confidence_level=confidence_level)
