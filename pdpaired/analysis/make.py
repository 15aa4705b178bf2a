"""Building a :class:`~pdpaired.Comparison` from a long table: the analysis layer's entry.

``make_comparison`` checks the arguments of ``compare``, pairs the table and
returns a :class:`~pdpaired.Comparison` over in-memory pairs, with the mean
of per-case scores as its measure or, when a target and prediction columns
are configured, a corpus metric (:class:`~pdpaired.analysis.measures.corpus.CorpusMeasure`).
The checks every table shares (the two model names, the missing-outcome
policy, score mode's metric and direction: :func:`check_models`,
:func:`check_score_mode`) are the Dask front end's too.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from pdpaired._lib.errors import find_stack_level
from pdpaired._lib.special import rankdata
from pdpaired._lib.validation import check_bool, check_choice, plain
from pdpaired.analysis.comparison import Comparison
from pdpaired.analysis.measures import CorpusMeasure, MeanMeasure
from pdpaired.analysis.measures.statistics import StatisticsMeasure
from pdpaired.analysis.prediction import check_predictions, resolve_task
from pdpaired.core.metrics import BUILTIN, Metric
from pdpaired.pairs.columns import MISSING_POLICIES, Columns
from pdpaired.pairs.crossed import pair_crossed
from pdpaired.pairs.pandas.backend import PandasPairs
from pdpaired.pairs.pandas.pairing import PairedData, pair, pair_many
from pdpaired.pairs.repeats import pair_runs

__all__ = [
    "check_models",
    "check_score_mode",
    "make_comparison",
    "make_comparisons",
    "score_comparison",
    "statistics_columns",
    "statistics_comparison",
]


def check_models(a: Any, b: Any, missing: str) -> str:
    """Check the two model names and the missing-outcome policy; return the policy."""
    if a is None or b is None:
        msg = "`a` and `b` (the two model names) are required."
        raise TypeError(msg)
    if a == b:
        msg = f"`a` and `b` must name two different models; both are {a!r}."
        raise ValueError(msg)
    return check_choice(missing, "missing", MISSING_POLICIES)


def check_score_mode(
    cols: Columns, a: Any, b: Any, metric: Any, higher_is_better: bool | None, *, hint: str
) -> bool:
    """Check score mode's metric, direction and model names; return the direction.

    ``hint`` says what to do for a metric other than ``"mean"``.
    """
    if not (isinstance(metric, str) and metric == "mean"):
        msg = (
            f"metric={metric!r} {hint}. Score mode (a per-case score column) supports "
            "metric='mean'."
        )
        raise ValueError(msg)
    if higher_is_better is None:
        msg = (
            "`higher_is_better` is required for metric='mean': say whether a larger score is "
            "better (accuracy, BLEU: True) or worse (loss, error, latency: False)."
        )
        raise ValueError(msg)
    direction = check_bool(higher_is_better, "higher_is_better")
    _check_model_names(cols, [(a, b)])
    return direction


def _check_model_names(cols: Columns, pairs: list[tuple[Any, Any]]) -> None:
    """Refuse a model named like a group or stratum column (its values would be ambiguous)."""
    for a, b in pairs:
        clash = {a, b} & set(cols.design_columns())
        if clash:
            msg = f"Model names must differ from the group/stratum column names; clash: {clash}."
            raise ValueError(msg)


def make_comparison(
    df: pd.DataFrame,
    cols: Columns,
    a: Any,
    b: Any,
    *,
    metric: Any,
    higher_is_better: bool | None,
    missing: str,
    fill_value: float | None,
    class_labels: Any,
    threshold: float,
) -> Comparison:
    """Validate the arguments of ``compare`` and pair the table."""
    missing = check_models(a, b, missing)
    if isinstance(metric, Metric) and metric.statistics is not None:
        del class_labels, threshold  # classification only
        stats_cols = statistics_columns(df, cols, metric, [(a, b)], higher_is_better, missing)
        data = pair(df, stats_cols, a, b, missing=missing, fill_value=fill_value)
        return statistics_comparison(data, metric)
    if cols.repeat is not None and (cols.prediction is not None or cols.target is not None):
        msg = (
            "repeat='sample' is score mode only: a corpus metric (AUROC, F1, ...) is not a mean "
            "of per-case scores, so there is no case score to average over runs. Score each "
            "run per case (e.g. correct = prediction == target, or a per-case loss) and compare "
            "that score with df.paired(repeat='sample', score=...); or, if averaging the "
            "predictions over runs is what you mean, average them first (df.groupby([case, "
            "model]).mean()) and compare the averaged predictions without repeat."
        )
        raise ValueError(msg)
    if cols.prediction is not None or cols.target is not None:
        return _make_prediction_comparison(
            df, cols, a, b, metric=metric, higher_is_better=higher_is_better,
            missing=missing, fill_value=fill_value, class_labels=class_labels,
            threshold=threshold,
        )  # fmt: skip
    del class_labels, threshold  # prediction mode only
    higher_is_better = check_score_mode(
        cols, a, b, metric, higher_is_better,
        hint="needs prediction mode: configure the target and prediction column(s) with "
        "df.paired(target=..., prediction=...)",
    )  # fmt: skip
    if cols.factors is not None:  # runs indexed by crossed factors: cell means, then cases
        data, runs, cells = pair_crossed(
            df, cols, a, b, missing=missing, fill_value=fill_value,
            higher_is_better=higher_is_better,
        )  # fmt: skip
        return Comparison(PandasPairs(data, runs=runs, cells=cells), MeanMeasure(higher_is_better))
    if cols.repeat is not None:  # several rows per (case, model): average the runs
        data, runs = pair_runs(
            df, cols, a, b, missing=missing, fill_value=fill_value,
            higher_is_better=higher_is_better,
        )  # fmt: skip
        return Comparison(PandasPairs(data, runs=runs), MeanMeasure(higher_is_better))
    data = pair(
        df,
        cols,
        a,
        b,
        missing=missing,
        fill_value=fill_value,
        higher_is_better=higher_is_better,
    )
    return Comparison(PandasPairs(data), MeanMeasure(higher_is_better))


def score_comparison(
    pairs: Callable[[str, float | None, bool], PairedData | None],
    cols: Columns,
    a: Any,
    b: Any,
    *,
    metric: Any,
    higher_is_better: bool | None,
    missing: str,
    fill_value: float | None,
) -> Comparison | None:
    """Check the arguments as :func:`make_comparison` does, then pair with ``pairs``.

    For a front end that can pair score mode's common case itself (no
    statistics, no runs, no factors): ``pairs(missing, fill_value,
    higher_is_better)`` returns the pairs, or None when it leaves the table to
    :func:`make_comparison` (which is then called; its checks pass again).
    The argument errors are :func:`make_comparison`'s, raised in its order
    before it reads the table.

    Examples
    --------
    >>> from pdpaired.pairs.columns import Columns
    >>> score_comparison(lambda *args: None, Columns(), "a", "b", metric="mean",
    ...                  higher_is_better=True, missing="error", fill_value=None) is None
    True
    >>> score_comparison(lambda *args: None, Columns(), "a", "a", metric="mean",
    ...                  higher_is_better=True, missing="error", fill_value=None)
    Traceback (most recent call last):
    ...
    ValueError: `a` and `b` must name two different models; both are 'a'.
    """
    missing = check_models(a, b, missing)
    if isinstance(metric, Metric) or cols.prediction is not None or cols.target is not None:
        return None
    if cols.repeat is not None or cols.factors is not None:
        return None
    higher_is_better = check_score_mode(
        cols, a, b, metric, higher_is_better,
        hint="needs prediction mode: configure the target and prediction column(s) with "
        "df.paired(target=..., prediction=...)",
    )  # fmt: skip
    data = pairs(missing, fill_value, higher_is_better)
    if data is None:
        return None
    return Comparison(PandasPairs(data), MeanMeasure(higher_is_better))


def statistics_columns(
    df: pd.DataFrame,
    cols: Columns,
    metric: Metric,
    pairs: list[tuple[Any, Any]],
    higher_is_better: bool | None,
    missing: str,
) -> Columns:
    """Check a statistics metric's arguments; return the columns that pair its statistics."""
    assert metric.statistics is not None
    if missing == "as-failure":
        msg = (
            f"missing='as-failure' is not available for the statistics metric "
            f"{metric.name!r}: a failed output has statistics of its own (an empty "
            "translation still has a reference length), which one fill value cannot give. "
            "Score the failed outputs as what they are (e.g. an empty line, for "
            "read_sacrebleu) and pass their rows, or declare missing='complete-case'."
        )
        raise ValueError(msg)
    if cols.repeat is not None:
        msg = (
            f"repeat='sample' is score mode only: the statistics metric {metric.name!r} is a "
            "function of corpus totals, not a mean of per-case scores. Give one row per "
            "(case, model) with the statistics of that case."
        )
        raise ValueError(msg)
    if cols.target is not None or cols.prediction is not None:
        msg = (
            f"The statistics metric {metric.name!r} reads its own columns "
            f"{list(metric.statistics)}; leave target= and prediction= out of df.paired(...)."
        )
        raise ValueError(msg)
    if higher_is_better is not None and (
        check_bool(higher_is_better, "higher_is_better") != metric.higher_is_better
    ):
        msg = (
            f"`higher_is_better`={higher_is_better} contradicts metric {metric.name!r}, for "
            f"which {'higher' if metric.higher_is_better else 'lower'} is better; leave it out."
        )
        raise ValueError(msg)
    absent = [c for c in metric.statistics if c not in df.columns]
    if absent:
        msg = (
            f"The statistics metric {metric.name!r} needs the column(s) {absent}, which the "
            f"table does not have (columns: {[str(c) for c in df.columns]})."
        )
        raise ValueError(msg)
    taken = set(metric.statistics) & {cols.case, cols.model, *cols.design_columns()}
    if taken:
        msg = (
            f"Statistic column(s) {sorted(taken)} of metric {metric.name!r} are also the "
            "case, model, group or stratum column."
        )
        raise ValueError(msg)
    _check_model_names(cols, pairs)
    return dataclasses.replace(cols, score=None, prediction=tuple(metric.statistics))


def statistics_comparison(data: PairedData, metric: Metric) -> Comparison:
    """Return the comparison of paired statistics.

    The pairing rules have refused infinite statistics and the missing-outcome
    policy has handled NaN ones, so every statistic here is finite.
    """
    measure = StatisticsMeasure(metric)
    cmp = Comparison(PandasPairs(data, target=None), measure)
    cmp.metric_a  # noqa: B018 - checks fn's shape contract once, before any resample
    return cmp


def _check_prediction_args(
    cols: Columns, a: Any, b: Any, metric: Any, higher_is_better: bool | None, threshold: Any
) -> float:
    """Check prediction mode's arguments for models ``a`` and ``b``; return the threshold."""
    if cols.prediction is None or cols.target is None:
        msg = (
            "Prediction mode needs both a target and prediction column(s): "
            "df.paired(target=..., prediction=...)."
        )
        raise ValueError(msg)
    if isinstance(metric, str) and metric == "mean":
        msg = (
            "Prediction mode needs a corpus metric, not 'mean': pass metric= one of "
            f"{', '.join(BUILTIN)}, or a pdpaired.Metric."
        )
        raise ValueError(msg)
    if not isinstance(metric, (str, Metric)):
        msg = f"`metric` must be a metric name or a pdpaired.Metric; got {metric!r}."
        raise TypeError(msg)
    if isinstance(metric, str) and metric not in BUILTIN:
        msg = (
            f"Unknown metric {metric!r}. Built-in prediction metrics: "
            f"{', '.join(sorted(BUILTIN))}; or pass a pdpaired.Metric(name, fn, higher_is_better)."
        )
        raise ValueError(msg)
    own = (
        metric.higher_is_better if isinstance(metric, Metric) else BUILTIN[metric].higher_is_better
    )
    if higher_is_better is not None and check_bool(higher_is_better, "higher_is_better") != own:
        name = metric.name if isinstance(metric, Metric) else metric
        msg = (
            f"`higher_is_better`={higher_is_better} contradicts metric {name!r}, for which "
            f"{'higher' if own else 'lower'} is better; leave it out in prediction mode."
        )
        raise ValueError(msg)
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float, np.number)):
        msg = f"`threshold` must be a number; got {threshold!r}."
        raise TypeError(msg)
    value = float(threshold)
    clash = {a, b} & {cols.target, *cols.design_columns()}
    if clash:
        msg = f"Model names must differ from the target/group/stratum column names; clash: {clash}."
        raise ValueError(msg)
    return value


def _make_prediction_comparison(
    df: pd.DataFrame,
    cols: Columns,
    a: Any,
    b: Any,
    *,
    metric: Any,
    higher_is_better: bool | None,
    missing: str,
    fill_value: float | None,
    class_labels: Any,
    threshold: float,
) -> Comparison:
    threshold = _check_prediction_args(cols, a, b, metric, higher_is_better, threshold)
    data = pair(df, cols, a, b, missing=missing, fill_value=fill_value)
    return _prediction_comparison(data, metric, class_labels, threshold)


def _prediction_comparison(
    data: PairedData, metric: Any, class_labels: Any, threshold: float
) -> Comparison:
    """Return the prediction-mode comparison of checked pairs."""
    task, y, classes = resolve_task(data, metric, class_labels=class_labels, threshold=threshold)
    check_predictions(data, task, metric, threshold)
    if task == "binary" and isinstance(metric, str) and metric == "auroc":
        n_pos = int(np.count_nonzero(y == 1.0))
        if n_pos in (0, y.size):
            assert classes is not None
            only = classes[1] if n_pos else classes[0]
            msg = (
                f"AUROC needs both classes in the target, but every one of the {y.size} cases "
                f"has class {plain(only)!r}."
            )
            raise ValueError(msg)
    measure = CorpusMeasure(metric, task=task, classes=classes, threshold=threshold)
    cmp = Comparison(PandasPairs(data, target=y), measure)
    if task == "binary":
        warn_if_labels_reversed(cmp, y, classes, given=class_labels is not None)
    return cmp


def make_comparisons(
    df: pd.DataFrame,
    cols: Columns,
    pairs: list[tuple[Any, Any]],
    *,
    metric: Any,
    higher_is_better: bool | None,
    missing: str,
    fill_value: float | None,
    class_labels: Any,
    threshold: float,
) -> list[Comparison]:
    """Validate the arguments of ``compare`` for every pair and pair the table once.

    :func:`pdpaired.pairs.pandas.pairing.pair_many` reads the rows of all the models
    together (every rule checked for all of them at once); each comparison
    is then the one :func:`make_comparison` returns for its two models.
    """
    if cols.repeat is not None:  # runs are averaged pair by pair (pdpaired.pairs.repeats)
        settings = {
            "metric": metric, "higher_is_better": higher_is_better, "missing": missing,
            "fill_value": fill_value, "class_labels": class_labels, "threshold": threshold,
        }  # fmt: skip
        return [make_comparison(df, cols, a, b, **settings) for a, b in pairs]
    for a, b in pairs:
        missing = check_models(a, b, missing)
    if isinstance(metric, Metric) and metric.statistics is not None:
        stats_cols = statistics_columns(df, cols, metric, pairs, higher_is_better, missing)
        datas = pair_many(df, stats_cols, pairs, missing=missing, fill_value=fill_value)
        return [statistics_comparison(d, metric) for d in datas]
    if cols.prediction is not None or cols.target is not None:
        for a, b in pairs:
            threshold = _check_prediction_args(cols, a, b, metric, higher_is_better, threshold)
        datas = pair_many(df, cols, pairs, missing=missing, fill_value=fill_value)
        return [_prediction_comparison(d, metric, class_labels, threshold) for d in datas]
    del class_labels, threshold  # prediction mode only
    for a, b in pairs:
        higher_is_better = check_score_mode(
            cols, a, b, metric, higher_is_better,
            hint="needs prediction mode: configure the target and prediction column(s) with "
            "df.paired(target=..., prediction=...)",
        )  # fmt: skip
    datas = pair_many(df, cols, pairs, missing=missing, fill_value=fill_value,
                      higher_is_better=higher_is_better)  # fmt: skip
    assert higher_is_better is not None
    return [Comparison(PandasPairs(d), MeanMeasure(higher_is_better)) for d in datas]


#: (negative, positive) label pairs that name their roles, so the reverse order is a
#: mistake whatever the predictions (domain pairs such as benign/malignant are not
#: here: either class may be the one whose probability was predicted).
_LABEL_PAIRS = {("negative", "positive"), ("neg", "pos"), ("false", "true"), ("0", "1")}


def _auroc(y: np.ndarray, p: np.ndarray) -> float:
    """AUROC by the rank-sum (Mann-Whitney) formula, ties counted half."""
    pos = y == 1.0
    n_pos, n_neg = int(pos.sum()), int((~pos).sum())
    if not n_pos or not n_neg:
        return float("nan")
    ranks = rankdata(p)
    return float((ranks[pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def warn_if_labels_reversed(cmp: Comparison, y: np.ndarray, classes: Any, *, given: bool) -> None:
    """Warn when a binary comparison's class labels are probably the wrong way round.

    Either both models' AUROC is below 0.5 by more than 3 null standard
    errors, ``sqrt((n_pos + n_neg + 1) / (12 n_pos n_neg))`` (the
    Mann-Whitney statistic's under random predictions), so that each ranks
    the positive class lower than chance would -- far likelier swapped
    labels than two models both worse than a coin, while two useless models
    (AUROCs near 0.5 on either side) stay silent; or ``class_labels`` names
    a pair that says its roles in reverse order, e.g.
    ``("positive", "negative")``.
    """
    pairs = cmp.pairs
    auc_a = _auroc(y, pairs[cmp.a].to_numpy(dtype=np.float64))
    auc_b = _auroc(y, pairs[cmp.b].to_numpy(dtype=np.float64))
    n_pos = int(np.count_nonzero(y == 1.0))
    n_neg = y.size - n_pos
    se0 = math.sqrt((y.size + 1) / (12 * n_pos * n_neg)) if n_pos and n_neg else math.inf
    below = auc_a < 0.5 - 3 * se0 and auc_b < 0.5 - 3 * se0
    named = given and classes is not None and len(classes) == 2
    reverse = named and (str(classes[1]).lower(), str(classes[0]).lower()) in _LABEL_PAIRS
    if not below and not reverse:
        return
    neg, pos = (plain(c) for c in classes) if classes is not None else (0, 1)
    why = (
        f"both models' AUROC is below 0.5 ({cmp.a}: {auc_a:.4g}, {cmp.b}: {auc_b:.4g}), "
        "far beyond chance"
        if below
        else f"class_labels=({neg!r}, {pos!r}) names the positive class first"
    )
    msg = (
        f"The class labels are probably reversed: {why}. class_labels=(negative, positive) "
        f"takes the negative class first, and the prediction must be the probability of the "
        f"positive class; here the positive class is {pos!r}. If that is wrong, pass "
        f"class_labels=({pos!r}, {neg!r})."
    )
    warnings.warn(msg, UserWarning, stacklevel=find_stack_level())
