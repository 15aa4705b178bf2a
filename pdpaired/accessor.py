"""The ``DataFrame.paired`` accessor: a stateless facade over the pairing layer."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from pdpaired.comparison import Comparison, make_comparison
from pdpaired.metrics import Metric
from pdpaired.pairing import Columns
from pdpaired.report import ComparisonReport
from pdpaired.results import BootstrapResult, ExactBinomialResult, RandomizationResult
from pdpaired.slices import SliceResult

__all__ = ["PairedAccessor"]


class _Auto:
    """Sentinel: use the default column when the table has it."""

    def __repr__(self) -> str:
        return "<auto>"


AUTO: Any = _Auto()


def resolve_columns(spec: Mapping[str, Any], names: Any) -> Columns:
    """Column names from an accessor's configuration and the table's columns.

    ``group`` and ``stratum`` left at their default mean: that column if the
    table has it (shared with the Dask accessor).
    """
    spec = dict(spec)
    for key in ("group", "stratum"):
        value = spec.get(key, AUTO)
        spec[key] = (key if key in names else None) if value is AUTO else value
    pred = spec.get("prediction")
    if isinstance(pred, str):
        pred = (pred,)
    elif pred is not None:
        pred = tuple(pred)
    return Columns(
        case=spec.get("case", "case_id"),
        model=spec.get("model", "model"),
        score=spec.get("score", "score"),
        group=spec["group"],
        stratum=spec["stratum"],
        target=spec.get("target"),
        prediction=pred,
    )


@pd.api.extensions.register_dataframe_accessor("paired")
class PairedAccessor:
    """Paired comparison of two models on a long table, as ``df.paired``.

    ``df.paired`` uses the default column names ``case_id``, ``model``,
    ``score``, and ``group`` / ``stratum`` when the table has them. Call it to
    configure other names; the call returns a new accessor (nothing is stored
    on the DataFrame)::

        df.paired(case="id", model="system", score="acc", group="doc", stratum=None)

    Examples
    --------
    >>> import pandas as pd
    >>> import pdpaired
    >>> df = pd.DataFrame({
    ...     "id": [1, 1, 2, 2, 3, 3],
    ...     "system": ["a", "b"] * 3,
    ...     "acc": [1, 0, 1, 1, 0, 0],
    ... })
    >>> df.paired(case="id", model="system", score="acc").compare(
    ...     "a", "b", higher_is_better=True
    ... ).n_cases
    3
    """

    def __init__(self, pandas_obj: pd.DataFrame) -> None:
        self._obj = pandas_obj
        self._spec: dict[str, Any] = {}

    def __call__(
        self,
        *,
        case: str = "case_id",
        model: str = "model",
        score: str | None = "score",
        group: str | None = AUTO,
        stratum: str | None = AUTO,
        target: str | None = None,
        prediction: str | Sequence[str] | None = None,
    ) -> PairedAccessor:
        """Return an accessor configured with these column names.

        Parameters
        ----------
        case, model, score : str
            Case id, model label and per-case score columns.
        group : str or None
            Cluster column (document, user, prompt group...). Default: the
            column ``group`` if present; None switches clustering off.
        stratum : str or None
            Stratum column. Default: ``stratum`` if present; None switches it off.
        target : str, optional
            Prediction mode: the ground-truth column (identical for both
            models' rows of a case).
        prediction : str or list of str, optional
            Prediction mode: one column (positive-class probability, score or
            regression value) or one probability column per class.

        Returns
        -------
        PairedAccessor
        """
        new = PairedAccessor(self._obj)
        new._spec = {
            "case": case,
            "model": model,
            "score": score,
            "group": group,
            "stratum": stratum,
            "target": target,
            "prediction": prediction,
        }
        return new

    def _columns(self) -> Columns:
        return resolve_columns(self._spec, self._obj.columns)

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
        a, b : str
            Model labels; positive improvements mean A is better.
        metric : str or Metric, default "mean"
            ``"mean"`` of the per-case score (score mode); in prediction mode a
            corpus metric recomputed on every resample: ``"auroc"``,
            ``"accuracy"``, ``"f1"``, ``"log_loss"``, ``"brier"`` (binary),
            ``"accuracy"``, ``"log_loss"``, ``"macro_f1"`` (multiclass),
            ``"mae"``, ``"rmse"``, ``"r2"`` (regression), or a
            :class:`~pdpaired.Metric`.
        higher_is_better : bool
            Required for ``"mean"``: the direction of the score. Prediction
            metrics know their direction (giving the opposite is an error).
        missing : {"error", "complete-case", "as-failure"}
            Policy for a case with no output (absent row or NaN) for a model:
            raise (default); drop the case for both models; or give the missing
            output ``fill_value`` (default for 0/1 scores: the worse value).
        fill_value : float, optional
            The value ``"as-failure"`` fills in.
        class_labels : sequence, optional
            Binary metrics: ``(negative, positive)`` target values (default:
            targets are 0/1). Multiclass: the class of each probability column,
            in order (default: the column names if the targets are among them,
            else ``0 .. K-1``).
        threshold : float, default 0.5
            Binary label metrics (accuracy, F1) predict the positive class
            when ``probability > threshold``.

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
        return make_comparison(
            self._obj,
            self._columns(),
            a,
            b,
            metric=metric,
            higher_is_better=higher_is_better,
            missing=missing,
            fill_value=fill_value,
            class_labels=class_labels,
            threshold=threshold,
        )

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
        method: str = "percentile",
        rng: int | np.random.Generator | None = None,
        unit: str | None = None,
        weighting: str = "item",
        stratified: bool | None = None,
        stratum_weights: Mapping[Any, float] | pd.Series | None = None,
        practical_threshold: float = 0.0,
        noninferiority_margin: float | None = None,
        batch: int | None = None,
    ) -> BootstrapResult:
        """One call: ``compare(a, b, ...)`` then :meth:`Comparison.bootstrap`.

        Takes the keywords of both; see :meth:`compare` and
        :meth:`pdpaired.Comparison.bootstrap`.

        Returns
        -------
        BootstrapResult

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
            a,
            b,
            metric=metric,
            higher_is_better=higher_is_better,
            missing=missing,
            fill_value=fill_value,
            class_labels=class_labels,
            threshold=threshold,
        )
        return cmp.bootstrap(
            n_resamples=n_resamples,
            confidence_level=confidence_level,
            method=method,
            rng=rng,
            unit=unit,
            weighting=weighting,
            stratified=stratified,
            stratum_weights=stratum_weights,
            practical_threshold=practical_threshold,
            noninferiority_margin=noninferiority_margin,
            batch=batch,
        )

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
    ) -> RandomizationResult:
        """One call: ``compare(a, b, ...)`` then :meth:`Comparison.randomization`.

        Takes the keywords of both; see :meth:`compare` and
        :meth:`pdpaired.Comparison.randomization`.

        Returns
        -------
        RandomizationResult

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
            a,
            b,
            metric=metric,
            higher_is_better=higher_is_better,
            missing=missing,
            fill_value=fill_value,
            class_labels=class_labels,
            threshold=threshold,
        )
        return cmp.randomization(
            n_permutations=n_permutations,
            alternative=alternative,
            rng=rng,
            unit=unit,
            weighting=weighting,
            stratum_weights=stratum_weights,
            batch=batch,
        )

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
        """One call: ``compare(a, b, ...)`` then :meth:`Comparison.exact_binomial`.

        Takes the keywords of both; see :meth:`compare` and
        :meth:`pdpaired.Comparison.exact_binomial`.

        Returns
        -------
        ExactBinomialResult
        """
        cmp = self.compare(
            a,
            b,
            metric=metric,
            higher_is_better=higher_is_better,
            missing=missing,
            fill_value=fill_value,
            class_labels=class_labels,
            threshold=threshold,
        )
        return cmp.exact_binomial(
            alternative=alternative, mid_p=mid_p, confidence_level=confidence_level
        )

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
        batch: int | None = None,
    ) -> SliceResult:
        """One call: ``compare(a, b, ...)`` then :meth:`Comparison.by_slice`.

        Takes the keywords of both (``columns`` is a keyword here, since
        ``a`` and ``b`` are the only positionals); see :meth:`compare` and
        :meth:`pdpaired.Comparison.by_slice`.

        Returns
        -------
        SliceResult

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
            a,
            b,
            metric=metric,
            higher_is_better=higher_is_better,
            missing=missing,
            fill_value=fill_value,
            class_labels=class_labels,
            threshold=threshold,
        )
        return cmp.by_slice(
            columns,
            min_size=min_size,
            uncertainty=uncertainty,
            n_resamples=n_resamples,
            n_permutations=n_permutations,
            adjust=adjust,
            rng=rng,
            confidence_level=confidence_level,
            practical_threshold=practical_threshold,
            unit=unit,
            weighting=weighting,
            batch=batch,
        )

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
        method: str = "percentile",
        alternative: str = "two-sided",
        rng: int | np.random.Generator | None = None,
        unit: str | None = None,
        weighting: str = "item",
    ) -> ComparisonReport:
        """One call: ``compare(a, b, ...)`` then :meth:`Comparison.report`.

        Takes the keywords of both; see :meth:`compare` and
        :meth:`pdpaired.Comparison.report`.

        Returns
        -------
        ComparisonReport
        """
        cmp = self.compare(
            a,
            b,
            metric=metric,
            higher_is_better=higher_is_better,
            missing=missing,
            fill_value=fill_value,
            class_labels=class_labels,
            threshold=threshold,
        )
        return cmp.report(
            n_resamples=n_resamples,
            n_permutations=n_permutations,
            slices=slices,
            min_slice_size=min_slice_size,
            slice_uncertainty=slice_uncertainty,
            practical_threshold=practical_threshold,
            noninferiority_margin=noninferiority_margin,
            confidence_level=confidence_level,
            method=method,
            alternative=alternative,
            rng=rng,
            unit=unit,
            weighting=weighting,
        )
