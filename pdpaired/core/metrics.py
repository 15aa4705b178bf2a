"""Prediction-mode metrics: built-in corpus metrics and custom :class:`Metric`.

A corpus metric is recomputed on every resample, never averaged per case. A
bootstrap resample (or a randomization assignment) is a vector of case
weights, so every metric is evaluated as a *weighted* metric. Built-in
metrics are written so that a whole batch of weight vectors is evaluated at
once:

* **sum metrics** (accuracy, F1, log loss, Brier, MAE, RMSE, R², macro F1)
  are a function of a few weighted sums of per-case columns, so a batch is
  one matrix product ``weights @ columns`` followed by the metric's formula;
* **AUROC** is the weighted Mann-Whitney statistic: one global sort of the
  scores, then for each weight vector a cumulative sum of the negatives'
  weights in that order (ties count one half), with no re-sort per resample.

The formulas equal scikit-learn's: label metrics predict the positive class
when ``probability > threshold`` (scikit-learn's ``predict`` for a binary
classifier), multiclass labels are the ``argmax`` of the probability row, log
loss clips probabilities to ``[eps, 1 - eps]`` (``eps`` of float64) as
scikit-learn does, and macro F1 averages the per-class F1 over the classes
that occur in the target -- scikit-learn's ``f1_score(y, pred,
average="macro", labels=<classes in y>)`` -- so both models are averaged over
the same classes (scikit-learn's default would also count a class that only
one model predicts, giving the two models different denominators).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pdpaired._lib.public import public
from pdpaired._lib.validation import check_bool

__all__ = [
    "BUILTIN",
    "TASK_METRICS",
    "Metric",
    "auc_batch",
    "auc_counts",
    "auc_counts_each",
    "auc_order",
]

_EPS = float(np.finfo(np.float64).eps)
_AUC_BLOCK_BYTES = 1 << 17  # int32 cumulative sums of one block of replicates


@public
@dataclass(frozen=True, slots=True)
class Metric:
    """A custom metric for prediction mode.

    Parameters
    ----------
    name : str
        Shown in results and reports.
    fn : callable
        Called as ``fn(y_true, y_pred, sample_weight=w)`` -- scikit-learn's
        signature, so any scikit-learn metric that accepts ``sample_weight``
        works. ``y_true`` is the target (0/1 for binary tasks, the class
        index ``0 .. K-1`` for multiclass, the value for regression),
        ``y_pred`` the prediction column (an ``(n, K)`` array for multiclass)
        and ``w`` the resample's case weights (only cases with ``w > 0`` are
        passed). It must return a float; NaN (or a ``ValueError``) marks a
        resample on which the metric is undefined.
    higher_is_better : bool
        Direction of the metric.
    statistics : tuple of str, optional
        Set by :meth:`from_statistics`: the metric is then a function of
        weighted totals of these per-case columns, ``fn(totals)``.

    Notes
    -----
    A custom metric is called once per resample (a Python loop), so it is
    much slower than the built-in metrics, which evaluate whole batches of
    resamples at once. It gets exactly the same resampling design.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from sklearn.metrics import balanced_accuracy_score
    >>> import pdpaired
    >>> def bacc(y_true, y_pred, sample_weight=None):
    ...     return balanced_accuracy_score(y_true, y_pred > 0.5, sample_weight=sample_weight)
    >>> metric = pdpaired.Metric("balanced_accuracy", bacc, higher_is_better=True)
    >>> metric.name
    'balanced_accuracy'
    """

    name: str
    fn: Callable[..., Any] = field(repr=False)
    higher_is_better: bool
    statistics: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            msg = f"`name` must be a non-empty string; got {self.name!r}."
            raise TypeError(msg)
        if not callable(self.fn):
            how = (
                "fn(totals)"
                if self.statistics is not None
                else "fn(y_true, y_pred, sample_weight=w)"
            )
            msg = f"`fn` must be callable {how}; got {self.fn!r}."
            raise TypeError(msg)
        check_bool(self.higher_is_better, "higher_is_better")
        if self.statistics is not None:
            stats = self.statistics
            if not isinstance(stats, tuple) or not all(isinstance(c, str) and c for c in stats):
                msg = f"`statistics` must be a list of column names; got {stats!r}."
                raise TypeError(msg)
            if not stats or len(set(stats)) != len(stats):
                msg = (
                    "`statistics` must name at least one column, each once (distinct "
                    f"names); got {list(stats)!r}."
                )
                raise ValueError(msg)

    @classmethod
    def from_statistics(
        cls,
        name: str,
        fn: Callable[[np.ndarray], np.ndarray],
        *,
        statistics: Sequence[str],
        higher_is_better: bool,
    ) -> Metric:
        """Make a corpus metric computed from totals of per-case statistics.

        Each case carries ``k`` statistic columns per model (matched n-grams
        and lengths for BLEU, true/false positive counts for micro-F1, a
        numerator and a denominator for a ratio). A resample's metric is
        ``fn`` of the resample's *weighted totals* of those columns, so a
        whole batch of resamples is one matrix product of count weights and
        statistics: never a Python call per resample.

        Parameters
        ----------
        name : str
            Shown in results and reports.
        fn : callable
            ``fn(totals)``: ``totals`` is a float64 array of shape
            ``(..., k)`` (a batch of resamples by the ``k`` statistics, in
            the order of ``statistics``); it returns the metric, shape
            ``(...)``, NaN where it is undefined. It must work on any
            leading shape, ``(k,)`` included (the point estimate).
        statistics : list of str
            The statistic columns of the long table, one row per (case,
            model).
        higher_is_better : bool
            Direction of the metric.

        Notes
        -----
        The totals are those of the resample, at the resample's size: with
        plain (iid or cluster) resampling, ``counts @ statistics``; with
        stratum weights, each stratum's totals are scaled to its weight, so
        the weights still sum to the cases drawn. A missing statistic (NaN)
        is a missing outcome of that case, handled by the ``missing`` policy.

        Examples
        --------
        >>> import numpy as np, pandas as pd
        >>> import pdpaired
        >>> rate = pdpaired.Metric.from_statistics(
        ...     "errors per token", lambda t: t[..., 0] / t[..., 1],
        ...     statistics=["errors", "tokens"], higher_is_better=False)
        >>> df = pd.DataFrame({
        ...     "case_id": [1, 2, 3, 1, 2, 3], "model": ["A"] * 3 + ["B"] * 3,
        ...     "errors": [1, 0, 2, 3, 1, 2], "tokens": [10, 5, 20, 10, 5, 20]})
        >>> cmp = df.paired.compare("A", "B", metric=rate)
        >>> round(cmp.metric_a, 4), round(cmp.metric_b, 4)   # 3 / 35 and 6 / 35
        (0.0857, 0.1714)
        """
        if isinstance(statistics, str):
            statistics = [statistics]
        return cls(name, fn, higher_is_better, statistics=tuple(statistics))


# --------------------------------------------------------------------------- built-ins
@dataclass(frozen=True, slots=True)
class Builtin:
    """A built-in metric: its direction and what it needs."""

    name: str
    higher_is_better: bool
    tasks: tuple[str, ...]
    kind: str  # "sum" or "auroc"
    probabilities: bool  # predictions must be probabilities in [0, 1]


BUILTIN: dict[str, Builtin] = {
    b.name: b
    for b in (
        Builtin("auroc", True, ("binary",), "auroc", probabilities=False),
        Builtin("accuracy", True, ("binary", "multiclass"), "sum", probabilities=True),
        Builtin("f1", True, ("binary",), "sum", probabilities=True),
        Builtin("log_loss", False, ("binary", "multiclass"), "sum", probabilities=True),
        Builtin("brier", False, ("binary",), "sum", probabilities=True),
        Builtin("macro_f1", True, ("multiclass",), "sum", probabilities=True),
        Builtin("mae", False, ("regression",), "sum", probabilities=False),
        Builtin("rmse", False, ("regression",), "sum", probabilities=False),
        Builtin("r2", True, ("regression",), "sum", probabilities=False),
    )
}

#: Metric names by task, for messages.
TASK_METRICS: dict[str, list[str]] = {
    task: [n for n, b in BUILTIN.items() if task in b.tasks]
    for task in ("binary", "multiclass", "regression")
}


def _clip(p: np.ndarray) -> np.ndarray:
    return np.asarray(np.clip(p, _EPS, 1.0 - _EPS))


def sum_columns(name: str, y: np.ndarray, p: np.ndarray, threshold: float) -> np.ndarray:
    """Per-case columns whose weighted sums determine a sum metric.

    Parameters
    ----------
    name : str
        A built-in sum metric.
    y : ndarray
        Binary: 0/1 floats; multiclass: class index (int); regression: values.
    p : ndarray
        Predictions, ``(n,)`` or ``(n, K)``.
    threshold : float
        Binary label metrics predict 1 when ``p > threshold``.

    Returns
    -------
    ndarray of float64, shape (n, k)
    """
    if name in ("accuracy", "f1") and p.ndim == 1:
        label = p > threshold
        pos = y == 1.0
        if name == "accuracy":
            return np.asarray((label == pos).astype(np.float64)[:, None])
        return np.stack([label & pos, label & ~pos, ~label & pos], axis=1).astype(np.float64)
    if name == "log_loss" and p.ndim == 1:
        loss = np.where(y == 1.0, -np.log(_clip(p)), -np.log(_clip(1.0 - p)))
        return np.asarray(loss[:, None])
    if name == "brier":
        return np.asarray(((p - y) ** 2)[:, None])
    if name == "accuracy":
        return np.asarray((np.argmax(p, axis=1) == y).astype(np.float64)[:, None])
    if name == "log_loss":
        picked = np.take_along_axis(p, y[:, None].astype(np.intp), axis=1)[:, 0]
        return np.asarray((-np.log(_clip(picked)))[:, None])
    if name == "macro_f1":
        k = p.shape[1]
        pred = np.argmax(p, axis=1)
        cls = np.arange(k)
        is_pred = pred[:, None] == cls
        is_true = y[:, None] == cls
        tp, fp, fn = is_pred & is_true, is_pred & ~is_true, ~is_pred & is_true
        return np.concatenate([tp, fp, fn], axis=1).astype(np.float64)
    err = p - y
    if name == "mae":
        return np.asarray(np.abs(err)[:, None])
    if name == "rmse":
        return np.asarray((err * err)[:, None])
    if name == "r2":
        yc = y - np.mean(y)  # centred, so SS_tot below does not cancel
        return np.stack([err * err, yc, yc * yc], axis=1)
    msg = f"not a sum metric: {name!r}"  # pragma: no cover - guarded by callers
    raise AssertionError(msg)


def sum_metric(name: str, s: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Return a sum metric from weighted column sums ``s`` (m, k) and total weights ``w`` (m,).

    Undefined values (no positive and no predicted positive for F1, a
    constant target for R²) are NaN.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        if name == "f1":
            tp, fp, fn = s[:, 0], s[:, 1], s[:, 2]
            den = 2 * tp + fp + fn
            return np.where(den > 0, 2 * tp / den, np.nan)
        if name == "macro_f1":
            k = s.shape[1] // 3
            tp, fp, fn = s[:, :k], s[:, k : 2 * k], s[:, 2 * k :]
            # classes occurring in the (resampled) target: the same set for A and B
            occurs = (tp + fn) > 0
            den = 2 * tp + fp + fn
            f1 = np.where(occurs, 2 * tp / np.where(occurs, den, 1.0), 0.0)
            present = np.count_nonzero(occurs, axis=1)
            total = np.add.accumulate(f1, axis=1)[:, -1]  # fixed order: reproducible
            return np.where(present > 0, total / present, np.nan)
        if name == "rmse":
            return np.asarray(np.sqrt(s[:, 0] / w))
        if name == "r2":
            ss_tot = s[:, 2] - s[:, 1] * s[:, 1] / w
            ok = ss_tot > 1e-12 * s[:, 2]
            return np.where(ok, 1.0 - s[:, 0] / np.where(ok, ss_tot, 1.0), np.nan)
        return np.asarray(s[:, 0] / w)


# --------------------------------------------------------------------------- AUROC
@dataclass(frozen=True, slots=True, eq=False)
class AucOrder:
    """One global sort of the scores, shared by every weight vector.

    ``order`` sorts the entries by score; for the positives in that order,
    ``lo`` / ``hi`` are the positions (in a cumulative sum with a leading
    zero) just before and at the end of their tie block.
    """

    scores: np.ndarray
    positive: np.ndarray
    order: np.ndarray
    pos_at: np.ndarray  # sorted positions of the positives
    pos_sorted: np.ndarray  # bool, sorted order
    neg_mask: np.ndarray  # float 0/1, sorted order
    lo: np.ndarray
    hi: np.ndarray
    starts: np.ndarray  # tie blocks: sorted positions starts[b] .. starts[b + 1] - 1
    neg_at: np.ndarray  # sorted positions of the negatives
    lo_neg: np.ndarray  # per positive: negatives before its tie block
    hi_neg: np.ndarray  # per positive: negatives up to the end of its tie block


def auc_order(scores: np.ndarray, positive: np.ndarray) -> AucOrder:
    """Prepare the weighted Mann-Whitney statistic for ``scores``.

    Parameters
    ----------
    scores : ndarray of float64, shape (n,)
    positive : ndarray of bool, shape (n,)
    """
    order = np.argsort(scores, kind="stable")
    s = scores[order]
    new_block = np.empty(s.size, dtype=bool)
    new_block[:1] = True
    new_block[1:] = s[1:] != s[:-1]
    starts = np.flatnonzero(new_block)
    ends = np.append(starts[1:], s.size)
    block = np.cumsum(new_block) - 1
    pos_sorted = positive[order]
    pos_at = np.flatnonzero(pos_sorted)
    negs_through = np.concatenate([[0], np.cumsum(~pos_sorted)])  # negatives in [0, i)
    return AucOrder(
        scores=scores,
        positive=positive,
        order=order,
        pos_at=pos_at,
        pos_sorted=pos_sorted,
        neg_mask=(~pos_sorted).astype(np.float64),
        lo=starts[block[pos_at]],
        hi=ends[block[pos_at]],
        starts=np.append(starts, s.size).astype(np.int64),
        neg_at=np.flatnonzero(~pos_sorted),
        lo_neg=negs_through[starts[block[pos_at]]],
        hi_neg=negs_through[ends[block[pos_at]]],
    )


def auc_batch(prep: AucOrder, weights: np.ndarray) -> np.ndarray:
    """Weighted AUROC for each row of ``weights`` (m, n), in the original order.

    ``AUC = sum_{i pos} w_i (W_neg(< s_i) + W_neg(= s_i) / 2) / (W_pos W_neg)``;
    NaN when a row has no positive or no negative weight. With integer
    weights every sum is an exact integer in float64 (n**2 < 2**52), so the
    result does not depend on summation order.
    """
    ws = weights[:, prep.order]
    cum = np.zeros((ws.shape[0], ws.shape[1] + 1))
    np.cumsum(ws * prep.neg_mask, axis=1, out=cum[:, 1:])
    wpos = ws[:, prep.pos_at]
    num2 = np.einsum("ij,ij->i", wpos, cum[:, prep.lo] + cum[:, prep.hi])
    p_tot = wpos.sum(axis=1)
    n_tot = cum[:, -1]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where((p_tot > 0) & (n_tot > 0), num2 / (2.0 * p_tot * n_tot), np.nan)


def auc_counts(prep: AucOrder, counts: np.ndarray, unit_sorted: np.ndarray) -> np.ndarray:
    """AUROC for each row of integer ``counts`` (m, U), exactly.

    The entry at sorted position ``j`` weighs ``counts[:, unit_sorted[j]]``.
    Only the negatives are cumulated; each positive reads the cumulative
    negative weight before and at the end of its tie block. Every sum is an
    exact int64, so the result equals the numba kernel's bit for bit.
    """
    return auc_counts_each([(prep, unit_sorted)], counts)[0]


def auc_counts_each(
    orders: Sequence[tuple[AucOrder, np.ndarray]], counts: np.ndarray, *, complement: bool = False
) -> list[np.ndarray]:
    """:func:`auc_counts` of several ``(prep, unit_sorted)`` on the same ``counts``.

    Replicates are taken a block at a time, transposed once for every order
    (so that each gather copies whole rows and the cumulative sum runs down
    contiguous columns), with the block's cumulative sums (int32 when they
    cannot overflow) well inside a core's L2 cache: 5-6x faster than
    gathering columns of the whole batch (threads do not help here).

    ``complement=True`` (0/1 ``counts`` only) also returns, after each
    order's AUROC, the AUROC of the weights ``1 - counts``, from the same
    pass: the Mann-Whitney double sum is bilinear in the weights, so with
    ``K`` the pair kernel (2 below, 1 tied), ``num(1 - w) = num(1) - w . R -
    w . C + num(w)`` where ``R`` and ``C`` are ``K``'s row and column sums,
    and the weight totals are complements too. Every term is an exact
    integer: the result equals evaluating ``1 - counts`` directly.
    """
    m = counts.shape[0]
    n_units = counts.shape[1]
    parts = []
    for prep, unit_sorted in orders:
        parts.append((prep, unit_sorted[prep.neg_at], unit_sorted[prep.pos_at]))
    largest = max(p[1].size for p in parts)
    outs = [np.empty(m) for _ in range(len(parts) * (2 if complement else 1))]
    lin = [_linear_terms(*part, n_units) for part in parts] if complement else []
    block = max(8, _AUC_BLOCK_BYTES // (4 * max(1, largest + 1)))
    for r0 in range(0, m, block):
        ct = np.ascontiguousarray(counts[r0 : r0 + block].T)  # (U, b)
        if ct.dtype.kind not in "iu":  # integer-valued weights given as floats (all ones)
            ct = ct.astype(np.int64)
        b = ct.shape[1]
        # cumulative weights are at most (largest count) x (entries): int32 while twice
        # that fits (half the memory traffic of int64), the products in int64
        top = int(ct.max(initial=0))
        for k, (prep, u_neg, u_pos) in enumerate(parts):
            small = 2 * top * (u_neg.size + u_pos.size) < 2**31
            c = np.empty((u_neg.size + 1, b), dtype=np.int32 if small else np.int64)
            c[0] = 0
            np.cumsum(ct[u_neg], axis=0, dtype=c.dtype, out=c[1:])
            w_pos = ct[u_pos]
            between = c[prep.lo_neg]
            between += c[prep.hi_neg]
            num2 = np.einsum("ij,ij->j", w_pos, between, dtype=np.int64)
            p_tot = w_pos.sum(axis=0, dtype=np.int64)
            n_tot = c[-1].astype(np.int64)
            if not complement:
                outs[k][r0 : r0 + b] = _auc_of(num2, p_tot, n_tot)
                continue
            total, by_unit = lin[k]
            num2_c = total - np.dot(by_unit, ct) + num2
            outs[2 * k][r0 : r0 + b] = _auc_of(num2, p_tot, n_tot)
            outs[2 * k + 1][r0 : r0 + b] = _auc_of(num2_c, u_pos.size - p_tot, u_neg.size - n_tot)
    return outs


def _linear_terms(
    prep: AucOrder, u_neg: np.ndarray, u_pos: np.ndarray, n_units: int
) -> tuple[int, np.ndarray]:
    """``num(1)`` and, per unit, the summed row / column sums of the pair kernel."""
    rows = (prep.lo_neg + prep.hi_neg).astype(np.int64)  # per positive: 2 below + 1 tied
    n_neg = u_neg.size
    # per negative k: positives with lo_neg > k (2 each), with hi_neg > k (1 more each)
    above_lo = np.cumsum(np.bincount(prep.lo_neg, minlength=n_neg + 1)[::-1])[::-1]
    above_hi = np.cumsum(np.bincount(prep.hi_neg, minlength=n_neg + 1)[::-1])[::-1]
    cols = (above_lo[1:] + above_hi[1:]).astype(np.int64)
    by_unit = np.bincount(u_pos, rows, minlength=n_units) + np.bincount(
        u_neg, cols, minlength=n_units
    )
    return int(rows.sum()), by_unit.astype(np.int64)


def _auc_of(num2: np.ndarray, p_tot: np.ndarray, n_tot: np.ndarray) -> np.ndarray:
    """``num2 / (2 P N)``, NaN without a positive or a negative weight."""
    with np.errstate(divide="ignore", invalid="ignore"):
        auc = num2.astype(np.float64) / (2.0 * p_tot * n_tot)
    return np.where((p_tot > 0) & (n_tot > 0), auc, np.nan)


def call_custom(metric: Metric, y: np.ndarray, p: np.ndarray, w: np.ndarray) -> float:
    """Evaluate a custom metric on the cases with positive weight (NaN if undefined)."""
    keep = w > 0
    try:
        value: Any = metric.fn(y[keep], p[keep], sample_weight=w[keep])
    except (ValueError, ZeroDivisionError, FloatingPointError):
        return float("nan")
    try:
        return float(value)
    except (TypeError, ValueError) as err:
        msg = f"Metric {metric.name!r} must return a float; got {value!r}."
        raise TypeError(msg) from err
