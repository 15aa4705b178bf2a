"""Values of the bootstrap engine that no other test checks exactly.

* the closed-form jackknife with a one-unit stratum: that unit has no
  influence (its leave-one-out statistic is the full-sample one), computed
  without a floating-point warning, and every other unit's value equals the
  leave-one-out statistic written out here;
* BCa on a cluster design run by the multinomial engine (few distinct
  (sum, size) pairs of 0/1 scores): its acceleration is the jackknife over
  clusters of the ratio estimator, written out here, with the BCa interval
  rebuilt from the library's replicates;
* the refusal of a stratum of more than 2**32 - 1 units, by its message.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.special import ndtr, ndtri, stdtrit

from pdpaired.core import engine as _engine
from pdpaired.core.engine import Design, resample

ALPHA = 0.025


def stratified_mean_design(values: list[np.ndarray]) -> Design:
    sizes = np.array([len(v) for v in values], dtype=np.float64)
    return Design(
        value=np.concatenate(values),
        count=None,
        unit_ptr=np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
        weight=sizes / sizes.sum(),
        sign=1.0,
    )


def test_jackknife_with_a_one_unit_stratum_is_the_leave_one_out_written_out() -> None:
    rng = np.random.default_rng(8)
    values = [rng.normal(size=6), np.array([0.75]), rng.normal(size=4)]
    d = stratified_mean_design(values)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # 0/0 of the lone unit must not warn
        theta_minus, stratum_of = d.jackknife()
    np.testing.assert_array_equal(stratum_of, np.repeat([0, 1, 2], [6, 1, 4]))
    w = d.weight
    full = sum(wh * v.mean() for wh, v in zip(w, values, strict=True))
    want = []
    for h, v in enumerate(values):
        for i in range(len(v)):
            if len(v) == 1:
                want.append(full)  # a lone unit cannot be left out of its stratum
                continue
            rest = np.delete(v, i)
            means = [x.mean() for x in values]
            means[h] = rest.mean()
            want.append(sum(wh * m for wh, m in zip(w, means, strict=True)))
    np.testing.assert_allclose(theta_minus, want, rtol=0, atol=1e-12)


def efron_acceleration(loo: np.ndarray) -> float:
    infl = loo.mean() - loo
    return float(np.sum(infl**3) / (6 * np.sum(infl**2) ** 1.5))


def bca_from_dist(dist: np.ndarray, theta: float, acc: float, alpha: float) -> np.ndarray:
    share = ((dist < theta).sum() + (dist <= theta).sum()) / (2.0 * dist.size)
    z0 = ndtri(share)
    z = ndtri(np.array([alpha, 1 - alpha]))
    return np.percentile(dist, 100 * ndtr(z0 + (z0 + z) / (1 - acc * (z0 + z))))


def test_bca_on_clusters_by_the_multinomial_engine_uses_the_cluster_jackknife() -> None:
    # 320 clusters of 1 or 2 cases with 0/1 outcomes: at most 8 distinct
    # (sum of differences, size) pairs, so the multinomial engine runs
    rng = np.random.default_rng(21)
    n_groups = 320
    size = rng.choice([1, 2], size=n_groups, p=[0.3, 0.7])
    group = np.repeat(np.arange(n_groups), size)
    n = group.size
    a = (rng.uniform(size=n) < 0.62).astype(float)
    b = (rng.uniform(size=n) < 0.5).astype(float)
    df = pd.DataFrame({
        "case_id": np.tile(np.arange(n), 2), "model": np.repeat(["A", "B"], n),
        "score": np.r_[a, b], "g": np.tile(group, 2),
    })  # fmt: skip
    cmp = df.paired(group="g").compare("A", "B", higher_is_better=True)
    res = cmp.bootstrap(unit="group", method="bca", n_resamples=3_000, rng=4)
    assert res.engine == "multinomial"
    d = a - b
    sums = np.bincount(group, weights=d)
    theta = d.sum() / n  # the ratio estimator: every case counts once
    assert res.improvement == pytest.approx(theta, abs=1e-15)
    loo = (d.sum() - sums) / (n - size)  # leave one cluster out
    acc = efron_acceleration(loo)
    dist = res.bootstrap_distribution
    # clusters get the small-sample correction: the replicates are rescaled
    # (Rao-Wu) and the tails read at Phi(t_df(alpha)), df = clusters - 1
    alpha = float(ndtr(stdtrit(n_groups - 1, ALPHA)))
    got = np.array([res.confidence_interval.low, res.confidence_interval.high])
    scale = float(dist.std())
    # counting each cluster as one case instead moves the endpoints visibly
    wrong = efron_acceleration((d.sum() - sums) / (n - 1))
    assert np.max(np.abs(bca_from_dist(dist, theta, wrong, alpha) - got)) > 1e-3 * scale
    want = bca_from_dist(dist, theta, acc, alpha)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-9 * scale)


def test_a_stratum_of_more_than_2_to_the_32_units_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    d = stratified_mean_design([np.random.default_rng(0).normal(size=50)])
    monkeypatch.setattr(Design, "sizes", property(lambda self: np.array([2**32], np.int64)))
    with pytest.raises(ValueError, match=r"^More than 2\*\*32 - 1 resampling units in one "
                       r"stratum are not supported\.$"):  # fmt: skip
        resample(d, 10, np.random.SeedSequence(0), plan=("numpy", *_engine.fixed_point(d), None))
