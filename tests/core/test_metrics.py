"""The corpus metrics of :mod:`pdpaired.core.metrics` on their edge cases, by value."""

from __future__ import annotations

import re

import numpy as np
import pytest

import pdpaired


def _mean(y: np.ndarray, p: np.ndarray, sample_weight: np.ndarray | None = None) -> float:
    return float(np.average(p == y, weights=sample_weight))


@pytest.mark.parametrize("bad", ["yes", 1, None])
def test_metric_names_the_argument_that_is_not_a_bool(bad: object) -> None:
    msg = f"`higher_is_better` must be True or False; got {bad!r}."
    with pytest.raises(TypeError, match=f"^{re.escape(msg)}$"):
        pdpaired.Metric("acc", _mean, higher_is_better=bad)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^`name` must be a non-empty string; got ''\.$"):
        pdpaired.Metric("", _mean, higher_is_better=True)
    with pytest.raises(TypeError, match=r"^`fn` must be callable .*; got 3\.$"):
        pdpaired.Metric("acc", 3, higher_is_better=True)  # type: ignore[arg-type]
    assert pdpaired.Metric("acc", _mean, higher_is_better=np.bool_(True)).higher_is_better


def test_auroc_of_a_resample_without_positives_is_nan_without_a_warning() -> None:
    from sklearn.metrics import roc_auc_score

    from pdpaired.core.metrics import auc_batch, auc_order

    scores = np.array([0.1, 0.4, 0.4, 0.35, 0.8, 0.7, 0.2])
    y = np.array([0, 0, 1, 1, 1, 0, 0])
    weights = np.array([
        [1.0, 2.0, 1.0, 0.0, 3.0, 1.0, 2.0],  # a resample with both classes
        [1.0, 2.0, 0.0, 0.0, 0.0, 1.0, 2.0],  # no positive left
        [0.0, 0.0, 2.0, 1.0, 1.0, 0.0, 0.0],  # no negative left
    ])  # fmt: skip
    # the module's filterwarnings = error turns a 0/0 RuntimeWarning into a failure
    got = auc_batch(auc_order(scores, y == 1), weights)
    assert got[0] == pytest.approx(roc_auc_score(y, scores, sample_weight=weights[0]), abs=1e-15)
    assert np.isnan(got[1])
    assert np.isnan(got[2])


def test_r2_of_an_all_zero_target_is_nan() -> None:
    from pdpaired.core.metrics import sum_columns, sum_metric

    # a resample whose target is constant has no R^2 (scikit-learn gives 0 or
    # raises); with an all-zero target the sums of y and y^2 are exactly 0
    y = np.zeros(4)
    p = np.array([0.5, -1.0, 2.0, 0.25])
    s = sum_columns("r2", y, p, 0.5).sum(axis=0)[None, :]
    assert s[0, 0] > 0  # the squared errors
    assert np.isnan(sum_metric("r2", s, np.array([4.0]))[0])
    # and a target that varies gives scikit-learn's R^2
    from sklearn.metrics import r2_score

    y2 = np.array([0.0, 1.0, 3.0, -1.0])
    s2 = sum_columns("r2", y2, p, 0.5).sum(axis=0)[None, :]
    assert sum_metric("r2", s2, np.array([4.0]))[0] == pytest.approx(r2_score(y2, p), rel=1e-12)


def test_macro_f1_with_one_class_present_is_its_f1() -> None:
    from sklearn.metrics import f1_score

    from pdpaired.core.metrics import sum_columns, sum_metric

    # three classes; the resample's target holds class 1 only: macro F1 over
    # the classes present is class 1's F1 (scikit-learn with labels=[1])
    y = np.array([1, 1, 1, 1])
    p = np.array([[0.1, 0.8, 0.1], [0.6, 0.3, 0.1], [0.2, 0.7, 0.1], [0.1, 0.2, 0.7]])
    s = sum_columns("macro_f1", y, p, 0.5).sum(axis=0)[None, :]
    got = sum_metric("macro_f1", s, np.array([4.0]))[0]
    want = f1_score(y, p.argmax(axis=1), labels=[1], average="macro")
    assert got == pytest.approx(want, rel=1e-12)
    assert got == pytest.approx(4 / 6, rel=1e-12)  # 2 tp / (2 tp + fp + fn): tp 2, fp 0, fn 2


def _auc_brute(scores: np.ndarray, positive: np.ndarray, w: np.ndarray) -> float:
    """Weighted Mann-Whitney AUROC by enumerating every (positive, negative) pair."""
    pos, neg = np.flatnonzero(positive), np.flatnonzero(~positive)
    num = 0.0
    for i in pos:
        for j in neg:
            num += w[i] * w[j] * (1.0 if scores[i] > scores[j] else 0.5 * (scores[i] == scores[j]))
    den = w[pos].sum() * w[neg].sum()
    return num / den if den > 0 else float("nan")


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.float64, "large"])
def test_auc_counts_equals_pair_enumeration(dtype: object) -> None:
    from pdpaired.core.metrics import auc_counts, auc_order

    rng = np.random.default_rng(11)
    n, units, m = 60, 25, 300  # m spans several blocks
    scores = np.round(rng.normal(size=n), 1)  # ties within and across classes
    positive = rng.random(n) < 0.4
    unit_of = rng.integers(0, units, n)  # several entries per unit
    prep = auc_order(scores, positive)
    if dtype == "large":  # cumulative weights past int32: the int64 branch
        counts = rng.integers(0, 2**26, size=(m, units)).astype(np.int64)
    elif dtype == np.float64:
        counts = np.ones((m, units))  # the full sample, as theta() passes it
    else:
        counts = rng.integers(0, 4, size=(m, units)).astype(dtype)
    counts[0] = 0  # no weight at all: undefined
    got = auc_counts(prep, counts, unit_of[prep.order])
    assert np.isnan(got[0])
    for r in range(1, m, 37):
        w = counts[r][unit_of].astype(np.float64)
        assert got[r] == pytest.approx(_auc_brute(scores, positive, w), rel=1e-12), r


def test_auc_of_the_complement_weights_is_exact() -> None:
    # a swap assignment weighs A's entries 1 - e and B's e; model B's weighting is the
    # complement, derived from the same pass: it must equal evaluating 1 - e directly
    # (bit for bit: every sum is an integer) and the pair enumeration
    from pdpaired.core.metrics import auc_counts, auc_counts_each, auc_order

    rng = np.random.default_rng(12)
    n, units, m = 70, 30, 300
    scores = np.round(rng.normal(size=n), 1)
    positive = rng.random(n) < 0.4
    unit_of = rng.integers(0, units, n)
    prep = auc_order(scores, positive)
    flips = rng.integers(0, 2, size=(m, units)).astype(np.uint8)
    flips[0], flips[1] = 0, 1  # the complement has no weight / every weight
    orders = [(prep, unit_of[prep.order])]
    auc, auc_c = auc_counts_each(orders, flips, complement=True)
    direct = auc_counts(prep, (1 - flips).astype(np.uint8), unit_of[prep.order])
    np.testing.assert_array_equal(auc, auc_counts(prep, flips, unit_of[prep.order]))
    np.testing.assert_array_equal(auc_c, direct)
    assert np.isnan(auc[0])
    assert np.isnan(auc_c[1])
    for r in range(2, m, 41):
        w = (1 - flips[r][unit_of]).astype(np.float64)
        assert auc_c[r] == pytest.approx(_auc_brute(scores, positive, w), rel=1e-12), r
