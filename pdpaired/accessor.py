"""The ``DataFrame.paired`` accessor: a stateless facade over the pairing layer.

Its methods are :class:`pdpaired._frontend.PairedFrontEnd`'s, shared with the
Dask accessor; this module supplies only how a pandas table is paired.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from pdpaired._frontend import PairedFrontEnd

if TYPE_CHECKING:  # the analysis layer loads on the first analysis, not at import
    import numpy as np

    from pdpaired.analysis.comparison import Comparison
    from pdpaired.core.metrics import Metric
    from pdpaired.pairs.columns import Columns
    from pdpaired.results.split import SplitResult

__all__ = ["PairedAccessor"]


@pd.api.extensions.register_dataframe_accessor("paired")
class PairedAccessor(PairedFrontEnd):
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
        from pdpaired.analysis.make import make_comparison

        return make_comparison(
            self._obj, cols, a, b, metric=metric, higher_is_better=higher_is_better,
            missing=missing, fill_value=fill_value, class_labels=class_labels,
            threshold=threshold,
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
        from pdpaired.analysis.pass_at_k import make_pass_comparison

        return make_pass_comparison(
            self._obj, cols, a, b, k=k, kind=kind, correct=correct, missing=missing,
            fill_value=fill_value,
        )  # fmt: skip

    def _split_tasks(self, task: Any) -> list[tuple[Any, PairedAccessor]]:
        if not isinstance(task, str) or task not in self._obj.columns:
            msg = f"`task` must name a column of the table; got {task!r}."
            raise ValueError(msg)
        labels = self._obj[task]
        if labels.isna().any():
            from pdpaired.pairs.rules import ids_text

            case = self._spec.get("case", "case_id")
            where = ""
            if case in self._obj.columns:  # the cases they hold, sorted: row order free
                ids = pd.unique(self._obj.loc[labels.isna().to_numpy(), case]).tolist()
                try:
                    ids.sort()
                except TypeError:  # ids of mixed types
                    ids.sort(key=repr)
                where = f"; first ids: {ids_text(ids)}"
            msg = (
                f"`task` column {task!r} has {int(labels.isna().sum())} missing value(s); "
                f"every row must belong to a task{where}."
            )
            raise ValueError(msg)
        out = []
        for label, rows in self._obj.groupby(task, sort=True, observed=True):
            front = type(self)(rows)
            front._spec = dict(self._spec)
            out.append((label, front))
        return out

    def _split_cases(
        self,
        fraction: Any,
        *,
        by: str | None,
        stratify: str | None,
        rng: int | np.random.Generator | None,
    ) -> SplitResult:
        from pdpaired.analysis.split import split_table

        case = self._spec.get("case", "case_id")
        return split_table(self._obj, case, fraction, by=by, stratify=stratify, rng=rng)

    def _make_many(
        self, cols: Columns, pairs: list[tuple[Any, Any]], **compare_kw: Any
    ) -> list[Comparison]:
        from pdpaired.analysis.make import make_comparisons

        # every model's rows read and checked once (pdpaired.pairs.pandas.pairing.pair_many)
        return make_comparisons(self._obj, cols, pairs, **compare_kw)
