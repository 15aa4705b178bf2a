"""The ``paired`` namespace on polars tables: ``pl.DataFrame.paired`` and ``pl.LazyFrame.paired``.

``import pdpaired`` registers it when polars is imported (extra
``pdpaired[polars]``), before or after pdpaired, without importing polars
itself; ``import pdpaired.polars`` registers it at once. The methods are the
pandas accessor's (:class:`pdpaired._frontend.PairedFrontEnd`), with the same
signatures; the table reaches the pandas path through
:mod:`pdpaired.pairs.polars`, so the pairing rules, the errors and every
number are the pandas accessor's, bit for bit, for the same data and seed.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import polars as pl

# pdpaired.pairs.polars is imported where it is used: importing it imports polars, which
# imports this module (pdpaired._lib.after_import), whichever of the two comes first
from pdpaired._frontend import PairedFrontEnd
from pdpaired._lib.public import rehome
from pdpaired.accessor import PairedAccessor

if TYPE_CHECKING:  # the analysis layer loads on the first analysis, not at import
    from pdpaired.analysis.comparison import Comparison
    from pdpaired.core.metrics import Metric
    from pdpaired.pairs.columns import Columns

__all__ = ["PolarsPairedAccessor"]

F = TypeVar("F", bound=Callable[..., Any])


def _reading(*params: str) -> Callable[[F], F]:
    """Let a one-call form read the columns it names (``params``) from a lazy table.

    A lazy table is reduced to the columns an analysis reads; the slice,
    order and task columns of a one-call form are added to the configured
    ones. The method itself, its signature and documentation are unchanged.
    """

    def wrap(method: F) -> F:
        sig = inspect.signature(method)

        @functools.wraps(method)
        def run(self: PolarsPairedAccessor, *args: Any, **kwargs: Any) -> Any:
            bound = sig.bind_partial(self, *args, **kwargs).arguments
            named: list[Any] = []
            for p in params:
                value = bound.get(p)
                named.extend([value] if isinstance(value, str) else list(value or ()))
            front = self._with(named)
            return method(front, *args, **kwargs)

        return run  # type: ignore[return-value]

    return wrap


def _statistics(metric: Any) -> Sequence[Any]:
    """Return the per-case statistic columns of a metric (a corpus metric's); none for a name."""
    return getattr(metric, "statistics", None) or ()


# --------------------------------------------------------------------------- accessor
@pl.api.register_lazyframe_namespace("paired")
@pl.api.register_dataframe_namespace("paired")
class PolarsPairedAccessor(PairedFrontEnd):
    """Paired comparison of two models on a polars long table, as ``df.paired``.

    The methods of :class:`pdpaired.PairedAccessor`, with the same signatures
    and the same results, on a :class:`polars.DataFrame` or a
    :class:`polars.LazyFrame`. Call it to configure column names (the call
    returns a new accessor).

    An eager ``DataFrame`` is converted to pandas whole
    (:meth:`polars.DataFrame.to_pandas`: strings stay strings, categoricals
    categoricals, nulls become NaN) and analysed by the pandas path. A
    ``LazyFrame`` is reduced in polars' streaming engine first: the configured
    columns, plus the columns a one-call form names (``by_slice``'s
    ``columns``, ``report``'s ``slices``, ``sequential``'s ``order``, a
    ``suite``'s task), for the rows of the compared models; only those reach
    pandas. So on a ``LazyFrame``, slice a comparison by naming the columns in
    the one-call form (``lf.paired.by_slice(a, b, columns=...)``):
    ``lf.paired.compare(a, b)`` holds only the configured columns. In score
    mode's common case (one score column, two models, no runs, no factors,
    no column named by the call) the streaming engine goes further: it
    pairs the rows, one row per case, and the long rows reach pandas only if
    the comparison is later sliced, monitored or bounded (read once); a table
    that may break a pairing rule is paired by pandas, for its error.

    Examples
    --------
    >>> import numpy as np, pandas as pd, polars as pl
    >>> import pdpaired
    >>> rng = np.random.default_rng(0)
    >>> n = 400
    >>> pdf = pd.DataFrame({
    ...     "case_id": np.tile(np.arange(n), 2),
    ...     "model": np.repeat(["new", "old"], n),
    ...     "score": rng.normal(size=2 * n),
    ... })
    >>> lf = pl.from_pandas(pdf).lazy()
    >>> res = lf.paired.bootstrap("new", "old", higher_is_better=True, rng=0,
    ...                           n_resamples=2000)
    >>> ref = pdf.paired.bootstrap("new", "old", higher_is_better=True, rng=0,
    ...                            n_resamples=2000)
    >>> res.confidence_interval == ref.confidence_interval   # bit for bit
    True
    """

    def __init__(self, obj: pl.DataFrame | pl.LazyFrame) -> None:
        super().__init__(obj)
        self._reads: tuple[Any, ...] = ()  # columns a one-call form names

    def _with(self, reads: Sequence[Any]) -> PolarsPairedAccessor:
        new = type(self)(self._obj)
        new._spec = dict(self._spec)
        new._reads = (*self._reads, *reads)
        return new

    # -- hooks of a front end ------------------------------------------------
    def _names(self) -> list[Any]:
        from pdpaired.pairs.polars.reduce import column_names

        return column_names(self._obj)

    def _pandas(
        self, cols: Columns, models: Sequence[Any] | None, extra: Sequence[Any] = ()
    ) -> PairedAccessor:
        """Return the pandas accessor, same configuration, on the rows the analysis reads."""
        from pdpaired.pairs.polars.reduce import to_pandas

        table = to_pandas(self._obj, cols, models=models, extra=[*self._reads, *extra])
        front = PairedAccessor(table)
        front._spec = dict(self._spec)
        return front

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
        if isinstance(self._obj, pl.LazyFrame) and not self._reads:
            from pdpaired.analysis.make import score_comparison
            from pdpaired.pairs.polars.reduce import reduced_pairs

            frame = self._obj

            def pairs(policy: str, fill: float | None, direction: bool) -> Any:
                return reduced_pairs(frame, cols, a, b, missing=policy, fill_value=fill,
                                     higher_is_better=direction)  # fmt: skip

            cmp = score_comparison(
                pairs, cols, a, b, metric=metric, higher_is_better=higher_is_better,
                missing=missing, fill_value=fill_value,
            )  # fmt: skip
            if cmp is not None:
                return cmp
        return self._pandas(cols, [a, b], _statistics(metric))._make(
            cols, a, b, metric=metric, higher_is_better=higher_is_better, missing=missing,
            fill_value=fill_value, class_labels=class_labels, threshold=threshold,
        )  # fmt: skip

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
        return self._pandas(cols, [a, b], [correct])._make_pass(
            cols, a, b, k=k, kind=kind, correct=correct, missing=missing, fill_value=fill_value
        )

    def _split_tasks(self, task: Any) -> list[tuple[Any, PairedAccessor]]:
        return self._pandas(self._columns(), None, [task])._split_tasks(task)

    def _make_many(
        self, cols: Columns, pairs: list[tuple[Any, Any]], **compare_kw: Any
    ) -> list[Comparison]:
        models = list(dict.fromkeys(m for pair in pairs for m in pair))
        front = self._pandas(cols, models, _statistics(compare_kw.get("metric")))
        return front._make_many(cols, pairs, **compare_kw)

    def _model_labels(self, cols: Columns) -> list[Any]:
        from pdpaired.pairs.polars.reduce import model_table

        return PairedAccessor(model_table(self._obj, cols.model))._model_labels(cols)

    # -- one-call forms that name columns -------------------------------------
    by_slice = _reading("columns")(PairedFrontEnd.by_slice)
    report = _reading("slices")(PairedFrontEnd.report)
    sequential = _reading("order")(PairedFrontEnd.sequential)


rehome(globals(), __all__, "pdpaired.polars")
del rehome
