"""Paired pass@k and pass^k: a comparison of per-case unbiased estimates.

:func:`make_pass_comparison` checks the arguments, reduces each (case,
model)'s samples to its unbiased estimate (:func:`pdpaired.pairs.pass_at_k.pair_samples`)
and returns a :class:`~pdpaired.Comparison` whose measure is the mean of
those per-case estimates, named ``"pass@k"`` or ``"pass^k"`` with ``k``
filled in (:class:`PassMeasure`). Every analysis of a comparison then runs
on it as on any per-case score: the bootstrap resamples cases (or groups,
within strata), and its point estimate is the mean difference of the
estimates.
"""

from __future__ import annotations

import operator
from typing import Any

import pandas as pd

from pdpaired.analysis.comparison import Comparison
from pdpaired.analysis.make import check_models
from pdpaired.analysis.measures import MeanMeasure
from pdpaired.core.pass_at_k import ESTIMATORS
from pdpaired.pairs.columns import Columns
from pdpaired.pairs.pandas.backend import PandasPairs
from pdpaired.pairs.pass_at_k import pair_samples

__all__ = ["PassMeasure", "check_k", "make_pass_comparison"]


class PassMeasure(MeanMeasure):
    """The mean of per-case pass@k (or pass^k) estimates; higher is better."""

    def __init__(self, name: str) -> None:
        super().__init__(higher_is_better=True)
        self.name = name

    def describe(self) -> str:
        """``metric='pass@5', higher_is_better=True``."""
        return f"metric={self.name!r}, higher_is_better=True"


def check_k(k: Any) -> int:
    """Return ``k`` as an int, or raise naming the rule (a positive integer)."""
    try:
        value = operator.index(k)
    except TypeError:
        value = None
    if value is None or isinstance(k, bool) or value < 1:
        msg = f"`k` must be a positive integer (the number of attempts); got {k!r}."
        raise ValueError(msg)
    return int(value)


def make_pass_comparison(
    df: pd.DataFrame,
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
    """Validate the arguments of ``pass_at_k`` / ``pass_hat_k`` and pair the estimates."""
    missing = check_models(a, b, missing)
    k = check_k(k)
    if correct is None:
        msg = "`correct` must name the 0/1 column of the samples; got None."
        raise ValueError(msg)
    data = pair_samples(
        df, cols, a, b, k=k, kind=kind, correct=correct, missing=missing, fill_value=fill_value
    )
    name = ESTIMATORS[kind][1].format(k=k)
    return Comparison(PandasPairs(data), PassMeasure(name))
