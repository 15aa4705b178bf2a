"""Prediction mode's inputs: the task, the coded target, the checks, and ``from_tables``.

``df.paired(target="y", prediction="p").compare("A", "B", metric="auroc")``
checks here that the metric fits the data (:func:`resolve_task`, which also
codes the target) and that the predictions are usable for it
(:func:`check_predictions`); the comparison then holds a
:class:`~pdpaired.analysis.measures.corpus.CorpusMeasure`, whose statistics
recompute the metric on every resample (or swap assignment) instead of
averaging per-case scores. :func:`from_tables` stacks two one-file-per-model
prediction tables into the long layout.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from pdpaired._lib.errors import PairingError
from pdpaired._lib.public import public
from pdpaired._lib.validation import plain
from pdpaired.analysis.measures.corpus import metric_name
from pdpaired.core.metrics import BUILTIN, TASK_METRICS, Metric
from pdpaired.pairs.pandas.pairing import PairedData
from pdpaired.pairs.rules import ids_text

__all__ = ["check_predictions", "from_tables", "resolve_task"]

#: Multiclass probability rows must sum to 1 within this absolute tolerance.
ROW_SUM_TOL = 1e-5


# --------------------------------------------------------------------------- task
def _ids(index: pd.Index, mask: np.ndarray) -> str:
    return ids_text(list(index[mask]))


def resolve_task(
    data: PairedData,
    metric: str | Metric,
    *,
    class_labels: Sequence[Any] | None,
    threshold: float,
    task: str | None = None,
) -> tuple[str, np.ndarray, list[Any] | None]:
    """Check that the metric fits the data and encode the target.

    Returns
    -------
    task : {"binary", "multiclass", "regression"}
    y : ndarray
        0/1 floats (binary), class index (multiclass) or values (regression).
    classes : list or None
        Class labels in prediction-column order (classification).
    """
    cols = data.columns
    assert cols.prediction is not None
    assert cols.target is not None
    multi = len(cols.prediction) > 1
    if isinstance(metric, Metric):
        if task is None:
            task = "multiclass" if multi else ("binary" if class_labels is not None else None)
        if task is None:
            target = data.frame[cols.target]
            binary_like = pd.Series(pd.unique(target)).isin([0, 1, True, False]).all()
            task = "binary" if binary_like else "regression"
    else:
        if not isinstance(metric, str) or metric not in BUILTIN:
            names = ", ".join(sorted(BUILTIN))
            msg = (
                f"Unknown metric {metric!r}. Built-in prediction metrics: {names}; "
                "or pass a pdpaired.Metric(name, fn, higher_is_better)."
            )
            raise ValueError(msg)
        spec = BUILTIN[metric]
        fits = [t for t in spec.tasks if (t == "multiclass") == multi]
        if not fits:
            have = "multiclass" if multi else "binary/regression"
            shape = (
                f"{len(cols.prediction)} probability columns (multiclass)"
                if multi
                else "one prediction column (binary or regression)"
            )
            options = (
                TASK_METRICS["multiclass"]
                if multi
                else TASK_METRICS["binary"] + TASK_METRICS["regression"]
            )
            msg = (
                f"metric {metric!r} does not fit the task: it needs "
                f"{' or '.join(spec.tasks)} predictions, but the table has {shape}. "
                f"Metrics that fit {have} predictions: {', '.join(options)}."
            )
            raise ValueError(msg)
        task = fits[0]
    target = data.frame[cols.target]
    index = data.frame.index
    if isinstance(target, pd.DataFrame):  # multiclass frames have two column levels
        target = target.iloc[:, 0]
    if task == "regression":
        if class_labels is not None:
            msg = "`class_labels` applies to classification metrics, not to regression."
            raise ValueError(msg)
        y = pd.to_numeric(target, errors="coerce").to_numpy(dtype=np.float64)
        bad = ~np.isfinite(y)
        if bad.any():
            msg = (
                f"A regression target must be finite numbers: {int(bad.sum())} case(s) are not; "
                f"first ids: {_ids(index, bad)}."
            )
            raise ValueError(msg)
        return task, y, None
    values = target.to_numpy()
    if task == "binary":
        if class_labels is None:
            classes: list[Any] = [0, 1]
            ok = np.array([_is01(v) for v in values], dtype=bool)
            how = (
                "binary targets must be 0/1 (or False/True); pass class_labels=(negative, positive)"
            )
        else:
            classes = list(class_labels)
            if len(classes) != 2 or classes[0] == classes[1]:
                msg = (
                    "`class_labels` of a binary metric must be (negative, positive); "
                    f"got {class_labels!r}."
                )
                raise ValueError(msg)
            ok = np.array([v in classes for v in values], dtype=bool)
            how = f"class_labels={tuple(classes)!r}"
        if not ok.all():
            shown = sorted({str(plain(v)) for v in values[~ok]})[:10]
            msg = (
                f"Target value(s) {shown} are not class labels ({how}): {int((~ok).sum())} "
                f"case(s); first ids: {_ids(index, ~ok)}."
            )
            raise ValueError(msg)
        if class_labels is None:
            y = np.array([float(bool(v)) for v in values])
        else:
            y = np.array([1.0 if v == classes[1] else 0.0 for v in values])
        return task, y, classes
    # multiclass
    k = len(cols.prediction)
    if class_labels is None:
        col_names: list[Any] = list(cols.prediction)
        classes = col_names if all(v in col_names for v in values) else list(range(k))
    else:
        classes = list(class_labels)
        if len(classes) != k or len(set(map(str, classes))) != k:
            msg = (
                f"`class_labels` must name the {k} classes of the probability columns "
                f"{list(cols.prediction)} in order, each once; got {class_labels!r}."
            )
            raise ValueError(msg)
    lookup = {c: i for i, c in enumerate(classes)}
    code = np.array([lookup.get(plain(v), -1) if _hashable(v) else -1 for v in values])
    bad = code < 0
    if bad.any():
        shown = sorted({str(plain(v)) for v in values[bad]})[:10]
        msg = (
            f"Target value(s) {shown} are not among the class labels {classes} of the "
            f"probability columns {list(cols.prediction)}: {int(bad.sum())} case(s); first ids: "
            f"{_ids(index, bad)}. Pass class_labels=[...] naming each column's class."
        )
        raise ValueError(msg)
    return task, code.astype(np.int64), classes


def _is01(v: Any) -> bool:
    try:
        return bool(v in (0, 1)) and not isinstance(v, str)
    except (TypeError, ValueError):
        return False


def _hashable(v: Any) -> bool:
    try:
        hash(v)
    except TypeError:
        return False
    return True


def check_predictions(data: PairedData, task: str, metric: str | Metric, threshold: float) -> None:
    """Probabilities in [0, 1]; multiclass rows summing to 1."""
    index = data.frame.index
    needs_prob = task == "multiclass" or (
        isinstance(metric, str) and BUILTIN[metric].probabilities and task == "binary"
    )
    if not needs_prob:
        return
    for name, p in ((data.a, data.values_a), (data.b, data.values_b)):
        assert p is not None
        outside = (p < 0.0) | (p > 1.0)
        bad = np.asarray(outside if outside.ndim == 1 else outside.any(axis=1))
        if bad.any():
            msg = (
                f"Predictions of model {name!r} must be probabilities in [0, 1] for metric "
                f"{metric_name(metric)!r}: {int(bad.sum())} case(s) outside; first ids: "
                f"{_ids(index, bad)}."
            )
            raise ValueError(msg)
        if p.ndim == 2:
            off = np.abs(p.sum(axis=1) - 1.0) > ROW_SUM_TOL
            if off.any():
                msg = (
                    f"Multiclass probabilities of model {name!r} must sum to 1 in every row "
                    f"(within {ROW_SUM_TOL:g}): {int(off.sum())} row(s) do not; first ids: "
                    f"{_ids(index, off)}."
                )
                raise ValueError(msg)
    if not (0.0 <= threshold <= 1.0):
        msg = f"`threshold` must be in [0, 1] for probability predictions; got {threshold!r}."
        raise ValueError(msg)


# --------------------------------------------------------------------------- from_tables
@public
def from_tables(
    a_df: pd.DataFrame,
    b_df: pd.DataFrame,
    *,
    id: str,
    names: tuple[str, str] = ("a", "b"),
    model: str = "model",
) -> pd.DataFrame:
    """Stack two one-file-per-model prediction tables into the long layout.

    Parameters
    ----------
    a_df, b_df : DataFrame
        One row per case, the same columns (id, target, prediction(s), and any
        group / stratum / slice columns). Never modified.
    id : str
        The case id column (the pairing key).
    names : (str, str)
        Model labels of ``a_df`` and ``b_df``.
    model : str, default "model"
        Name of the model-label column of the result.

    Returns
    -------
    DataFrame
        The long table: ``a_df``'s rows then ``b_df``'s, with a ``model``
        column. Nothing is dropped: ids present in one table only are paired
        (and handled by the missing-outcome policy) by ``compare``.

    Raises
    ------
    PairingError
        A missing id column, different columns, or a duplicate id in a table.

    Examples
    --------
    >>> import pandas as pd
    >>> import pdpaired
    >>> a = pd.DataFrame({"sample_id": [1, 2, 3], "y": [0, 1, 1], "p": [0.2, 0.9, 0.6]})
    >>> b = pd.DataFrame({"sample_id": [3, 1, 2], "y": [1, 0, 1], "p": [0.4, 0.3, 0.7]})
    >>> long = pdpaired.from_tables(a, b, id="sample_id", names=("new", "old"))
    >>> long.shape
    (6, 4)
    >>> res = long.paired(case="sample_id", target="y", prediction="p").compare(
    ...     "new", "old", metric="brier")
    >>> round(res.metric_a, 4), round(res.metric_b, 4)
    (0.07, 0.18)
    """
    if not (isinstance(names, (tuple, list)) and len(names) == 2 and names[0] != names[1]):
        msg = f"`names` must be two different model labels; got {names!r}."
        raise ValueError(msg)
    for label, frame in zip(names, (a_df, b_df), strict=True):
        if not isinstance(frame, pd.DataFrame):
            msg = f"The table of model {label!r} must be a DataFrame; got {type(frame).__name__}."
            raise TypeError(msg)
        if id not in frame.columns:
            msg = (
                f"Pairing check failed: rule `required columns` — the table of model {label!r} "
                f"has no id column {id!r}; its columns are {list(frame.columns)}."
            )
            raise PairingError(msg, rule="required columns")
        if model in frame.columns:
            msg = f"The table of model {label!r} already has a {model!r} column; pass model=..."
            raise ValueError(msg)
        dup = frame[id].duplicated(keep=False)
        if dup.any():
            ids = list(pd.unique(frame.loc[dup, id]))
            msg = (
                f"Pairing check failed: rule `unique id per table` — the table of model "
                f"{label!r} repeats {len(ids)} id(s); first ids: {ids_text(ids)}."
            )
            fc = pd.DataFrame({"model": label, "index": ids, "check": "unique id per table"})
            raise PairingError(msg, rule="unique id per table", failure_cases=fc)
    only_a = [c for c in a_df.columns if c not in set(b_df.columns)]
    only_b = [c for c in b_df.columns if c not in set(a_df.columns)]
    if only_a or only_b:
        msg = (
            "Pairing check failed: rule `same columns` — the two tables must have the same "
            f"columns; only in {names[0]!r}: {only_a}, only in {names[1]!r}: {only_b}."
        )
        raise PairingError(msg, rule="same columns")
    parts = [
        frame.assign(**{model: label}) for label, frame in zip(names, (a_df, b_df), strict=True)
    ]
    long = pd.concat(parts, ignore_index=True)
    return long[[id, model, *[c for c in a_df.columns if c != id]]]
