"""The state and the hooks of a ``paired`` accessor, and its configuration call.

:class:`FrontEndBase` holds the table and the column configuration, the
hooks a front end (pandas, Dask) overrides to turn a table into a
:class:`~pdpaired.Comparison`, and the call that configures column names.
The analyses are mixins over it (:mod:`pdpaired._frontend.two_models`,
:mod:`pdpaired._frontend.several_models`) that keep no state of their own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Self

from pdpaired._lib.docs import compose
from pdpaired.pairs.columns import AUTO, check_factors, check_repeat, resolve_columns

if TYPE_CHECKING:  # the analysis layer loads on the first analysis, not at import
    import numpy as np

    from pdpaired.analysis.comparison import Comparison
    from pdpaired.core.metrics import Metric
    from pdpaired.pairs.columns import Columns
    from pdpaired.results.split import SplitResult

__all__ = ["FrontEndBase"]


class FrontEndBase:
    """State, hooks and configuration of the ``paired`` accessors.

    Holds only the table and the column configuration; nothing is stored on
    the table, and every call returns a new object.
    """

    def __init__(self, obj: Any) -> None:
        self._obj = obj
        self._spec: dict[str, Any] = {}

    def __repr__(self) -> str:
        """Show the configured column names and what to call next (never raises, never computes)."""
        spec = {k: v for k, v in self._spec.items() if v is not AUTO and v is not None}
        if spec.get("repeat") is None:
            spec.pop("run", None)
        shown = ", ".join(f"{k}={v!r}" for k, v in spec.items()) or "default columns"
        return (
            f"<{type(self).__name__} on a table with {len(self._names())} columns; {shown}: "
            "call .compare(a, b, ...) or a one-call form such as .bootstrap(a, b, ...)>"
        )

    # -- hooks of a front end ------------------------------------------------
    def _names(self) -> list[Any]:
        """Column names of the table."""
        return list(self._obj.columns)

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
    ) -> Comparison:  # pragma: no cover - every front end overrides it
        raise NotImplementedError

    def _make_pass(
        self,
        cols: Columns,
        a: Any,
        b: Any,
        *,
        k: Any,
        kind: str,
        correct: Any,
        missing: str,
        fill_value: float | None,
    ) -> Comparison:
        """Pair per-case pass@k / pass^k estimates (overridden where the samples are in memory)."""
        msg = (
            f"{kind} reads every sample row of a case; this front end does not reduce samples "
            "yet: bring the table into memory (ddf.compute()) and use the pandas accessor."
        )
        raise NotImplementedError(msg)

    def _split_tasks(self, task: Any) -> list[tuple[Any, Self]]:
        """Return one accessor per value of column ``task`` (its rows, this configuration)."""
        msg = (
            "suite splits the table by task; this front end does not split tables yet: "
            "bring the table into memory (ddf.compute()) and use the pandas accessor."
        )
        raise NotImplementedError(msg)

    def _split_cases(
        self,
        fraction: Any,
        *,
        by: str | None,
        stratify: str | None,
        rng: int | np.random.Generator | None,
    ) -> SplitResult:
        """Split the table's cases into selection and confirmation parts (in-memory tables)."""
        msg = (
            "split divides the table's rows into two tables; this front end does not split "
            "tables yet: bring the table into memory (ddf.compute()) and use the pandas accessor."
        )
        raise NotImplementedError(msg)

    def _make_many(
        self, cols: Columns, pairs: list[tuple[Any, Any]], **compare_kw: Any
    ) -> list[Comparison]:
        """Pair the models of several comparisons (default: one ``_make`` per pair).

        A front end that can read the rows of every model at once (pandas)
        overrides it; the comparisons must equal ``_make``'s.
        """
        return [self._make(cols, a, b, **compare_kw) for a, b in pairs]

    # -- configuration -------------------------------------------------------
    @compose
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
        repeat: str | None = None,
        run: str = "run",
        task: str | None = None,
        factors: str | Sequence[str] | None = None,
    ) -> Self:
        """Return an accessor configured with these column names.

        Parameters
        ----------
        ${columns_params}

        Returns
        -------
        PairedAccessor or DaskPairedAccessor
            A new accessor of the same kind (nothing is stored on the table).
        """
        new = type(self)(self._obj)
        new._spec = {
            "case": case,
            "model": model,
            "score": score,
            "group": group,
            "stratum": stratum,
            "target": target,
            "prediction": prediction,
            "repeat": check_repeat(repeat),
            "run": run,
            "task": task,
            "factors": check_factors(factors, repeat),
        }
        return new

    def _columns(self) -> Columns:
        return resolve_columns(self._spec, self._names())
