"""Hypothesis property tests: invariances any paired comparison must have."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import pdpaired

from .conftest import long_table

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
finite = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False, width=64)


@st.composite
def paired_scores(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = draw(st.integers(3, 40))
    a = draw(arrays(np.float64, n, elements=finite))
    b = draw(arrays(np.float64, n, elements=finite))
    groups = draw(arrays(np.int64, n, elements=st.integers(0, 4)))
    return a, b, groups


def _boot(df: pd.DataFrame, a: str = "A", b: str = "B", **kw: object) -> pdpaired.BootstrapResult:
    kw.setdefault("higher_is_better", True)
    with warnings.catch_warnings():  # generated data may be degenerate (all diffs equal)
        warnings.simplefilter("ignore", pdpaired.DegenerateDataWarning)
        return df.paired.bootstrap(a, b, rng=3, n_resamples=64, **kw)


@SETTINGS
@given(paired_scores(), st.randoms(use_true_random=False))
def test_row_order_never_matters(data: tuple, rnd: object) -> None:
    a, b, g = data
    df = long_table(a, b, group=g)
    perm = np.array(rnd.sample(range(len(df)), len(df)))  # type: ignore[attr-defined]
    r1 = _boot(df)
    r2 = _boot(df.iloc[perm])
    np.testing.assert_array_equal(r1.bootstrap_distribution, r2.bootstrap_distribution)
    assert r1.confidence_interval == r2.confidence_interval


@SETTINGS
@given(paired_scores(), st.booleans())
def test_swap_negates_and_direction_flips(data: tuple, hib: bool) -> None:
    a, b, _ = data
    df = long_table(a, b)
    ab = _boot(df, higher_is_better=hib)
    ba = _boot(df, "B", "A", higher_is_better=hib)
    assert ba.raw_delta == pytest.approx(-ab.raw_delta, abs=1e-9)
    assert ba.improvement == pytest.approx(-ab.improvement, abs=1e-9)
    assert ab.improvement == (ab.raw_delta if hib else -ab.raw_delta)
    np.testing.assert_allclose(ba.bootstrap_distribution, -ab.bootstrap_distribution, atol=1e-9)


@SETTINGS
@given(paired_scores(), st.sampled_from(["percentile", "basic", "bca"]))
def test_interval_is_ordered_finite_and_raw_delta_is_literal(data: tuple, method: str) -> None:
    a, b, g = data
    df = long_table(a, b, group=g)
    res = _boot(df, method=method)
    ci = res.confidence_interval
    assert np.isfinite(ci.low)
    assert np.isfinite(ci.high)
    assert ci.low <= ci.high + 1e-12
    assert res.raw_delta == res.metric_a - res.metric_b
    # mean over items: the point estimate equals the mean difference
    assert res.raw_delta == pytest.approx(float(np.mean(a) - np.mean(b)), abs=1e-9)
    assert res.n_valid == res.n_resamples == res.bootstrap_distribution.size


@SETTINGS
@given(paired_scores())
def test_cluster_replicates_lie_in_range_of_group_means(data: tuple) -> None:
    a, b, g = data
    df = long_table(a, b, group=g)
    res = _boot(df, weighting="group")
    d = pd.Series(a - b).groupby(g).mean()
    tol = 1e-9 * max(1.0, float(np.abs(d).max()))
    # a replicate is a mean of drawn group means, Rao-Wu rescaled around the
    # estimate by sqrt(G / (G - 1)) (the small-sample correction of cluster
    # designs), so it lies in the rescaled range of the group means
    theta, n_groups = float(d.mean()), d.size
    c = np.sqrt(n_groups / (n_groups - 1)) if n_groups > 1 else 1.0
    assert res.bootstrap_distribution.min() >= theta + c * (d.min() - theta) - tol
    assert res.bootstrap_distribution.max() <= theta + c * (d.max() - theta) + tol


@SETTINGS
@given(
    st.integers(2, 30),
    st.lists(st.integers(0, 29), max_size=5),
    st.lists(st.integers(0, 29), max_size=5),
    st.sampled_from(["error", "complete-case", "as-failure"]),
)
def test_missing_policies_never_drop_silently(
    n: int, drop_a: list[int], drop_b: list[int], policy: str
) -> None:
    df = long_table(np.ones(n), np.zeros(n))
    drop_a = sorted({i for i in drop_a if i < n})
    drop_b = sorted({i for i in drop_b if i < n})
    keep = ~(((df["model"] == "A") & df["case_id"].isin(drop_a)) |
             ((df["model"] == "B") & df["case_id"].isin(drop_b)))  # fmt: skip
    df = df[keep]
    lost = set(drop_a) | set(drop_b)
    both = set(drop_a) & set(drop_b)  # a case gone for both models is not in the table at all
    present = n - len(both)
    try:
        cmp = df.paired.compare("A", "B", higher_is_better=True, missing=policy)
    except pdpaired.PairingError as err:
        if err.rule == "at least two paired cases":
            return
        assert policy == "error"
        assert lost - both
        assert set(err.failure_cases["index"]) == lost - both
        return
    m = cmp.missing
    assert m.n_missing_a == len(set(drop_a) - both)
    assert m.n_missing_b == len(set(drop_b) - both)
    if policy == "complete-case":
        assert cmp.n_cases == present - m.n_dropped
        assert m.n_dropped == len(lost - both)
    elif policy == "as-failure":
        assert cmp.n_cases == present
        assert m.n_filled == len(lost - both)
    else:
        assert not (lost - both)
