"""The intervals of a selected candidate: ``selection_band`` (max-t) and ``hybrid_interval``.

* The max-t band equals a version written out here with loops (the
  studentized deviations, their maximum per replicate, its quantile, the
  Student-t tail level read with scipy).
* The hybrid interval equals an independent version built on
  ``scipy.stats.truncnorm`` and ``scipy.optimize.brentq`` from the
  construction of Andrews, Kitagawa & McCloskey (2024): the selection event
  as bounds on the winner's estimate given the others' residuals, the
  truncated normal inverted in its mean within the max-t band of level
  ``1 - beta``.
* Limits: a clear winner gets about the naive normal interval; one
  candidate's band is the studentized interval; degenerate inputs.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize, stats

from pdpaired.core.selection import (
    HYBRID_BETA,
    hybrid_interval,
    select_index,
    selection_band,
)


def _joint(seed: int, k: int, n: int = 60, b: int = 1500) -> tuple[np.ndarray, np.ndarray]:
    """Effects of k correlated candidates and their joint index-bootstrap replicates."""
    rng = np.random.default_rng(seed)
    d = rng.normal(size=(n, k)) + rng.normal(size=(n, 1)) + rng.normal(0.0, 0.15, size=k)
    d *= rng.uniform(0.5, 2.0, size=k)
    idx = rng.integers(0, n, size=(b, n))
    return d.mean(axis=0), d[idx].mean(axis=1).T


def _band_oracle(est, reps, level, df=None, factor=1.0):
    k, n = reps.shape
    se = []
    for j in range(k):
        m = sum(reps[j]) / n
        se.append(math.sqrt(sum((x - m) ** 2 for x in reps[j]) / (n - 1)))
    maxima = sorted(
        max(abs(reps[j, r] - est[j]) / se[j] for j in range(k) if se[j] > 0) for r in range(n)
    )
    h = (n - 1) * level  # linear interpolation between order statistics
    lo = math.floor(h)
    c = maxima[lo] + (h - lo) * (maxima[min(lo + 1, n - 1)] - maxima[lo])
    if df is not None:
        c = stats.t.ppf(stats.norm.cdf(c), df)
    c *= math.sqrt(factor)
    low = [e - c * s for e, s in zip(est, se, strict=True)]
    return low, [e + c * s for e, s in zip(est, se, strict=True)], c


@pytest.mark.parametrize(("seed", "k"), [(0, 2), (1, 5), (2, 8)])
@pytest.mark.parametrize("small_sample", [False, True])
def test_band_equals_the_loop_oracle(seed: int, k: int, small_sample: bool) -> None:
    est, reps = _joint(seed, k, b=400)
    kw = {"df": 59.0, "variance_factor": 60 / 59} if small_sample else {}
    band = selection_band(est, reps, confidence_level=0.9, **kw)
    low, high, c = _band_oracle(est, reps, 0.9, kw.get("df"), kw.get("variance_factor", 1.0))
    np.testing.assert_allclose(band.low, low, rtol=1e-10)
    np.testing.assert_allclose(band.high, high, rtol=1e-10)
    assert band.critical_value == pytest.approx(c, rel=1e-10)
    assert band.n_used == 400


def test_one_candidate_gets_the_studentized_interval() -> None:
    est, reps = _joint(3, 1)
    band = selection_band(est, reps, confidence_level=0.95)
    t = np.abs(reps[0] - est[0]) / reps[0].std(ddof=1)
    assert band.critical_value == pytest.approx(np.quantile(t, 0.95))
    assert 1.8 < band.critical_value < 2.1  # about the normal 1.96


def test_more_candidates_need_a_larger_critical_value() -> None:
    est, reps = _joint(4, 8)
    c = [selection_band(est[:j], reps[:j], confidence_level=0.95).critical_value
         for j in (1, 2, 4, 8)]  # fmt: skip
    assert c == sorted(c)
    assert c[-1] < stats.norm.ppf(1 - 0.025 / 8)  # never beyond Bonferroni (correlated)


def test_nonfinite_replicates_are_dropped_and_constant_effects_get_a_point() -> None:
    est, reps = _joint(5, 3)
    reps = np.vstack([reps, np.full(reps.shape[1], 0.25)])  # a candidate equal on every draw
    est = np.append(est, 0.25)
    holed = reps.copy()
    holed[1, [3, 7]] = np.nan
    band = selection_band(est, holed, confidence_level=0.95)
    keep = np.ones(reps.shape[1], bool)
    keep[[3, 7]] = False
    want = selection_band(est, reps[:, keep], confidence_level=0.95)
    np.testing.assert_array_equal(band.low, want.low)
    assert band.n_used == reps.shape[1] - 2
    assert band.low[3] == band.high[3] == 0.25


def test_select_index_takes_the_largest_and_the_first_of_ties() -> None:
    assert select_index(np.array([0.2, np.nan, 0.5, 0.5])) == 2
    assert select_index(np.array([-1.0])) == 0
    with pytest.raises(ValueError, match="No candidate has a finite estimate"):
        select_index(np.array([np.nan, np.nan]))


# --------------------------------------------------------------------------- hybrid
def _hybrid_oracle(est, reps, level, df=None, factor=1.0):
    """Andrews-Kitagawa-McCloskey hybrid interval, written from the paper with scipy."""
    k = est.size
    j = int(np.argmax(est))
    cov = np.cov(reps) * factor
    sigma = math.sqrt(cov[j, j])
    alpha = 1 - level
    beta = HYBRID_BETA * alpha
    c = _band_oracle(est, reps, 1 - beta, df, factor)[2]  # includes sqrt(factor)
    half = c * math.sqrt(np.cov(reps)[j, j])  # the band's half-width at 1 - beta
    lo_sel, hi_sel = -np.inf, np.inf
    for i in range(k):
        if i == j:
            continue
        # Y_j >= Y_i  <=>  Y_j * (1 - S_ij / S_jj) >= Y_i - S_ij / S_jj * Y_j  (= Z_i)
        coef = 1 - cov[i, j] / cov[j, j]
        z = est[i] - cov[i, j] / cov[j, j] * est[j]
        if coef > 0:
            lo_sel = max(lo_sel, z / coef)
        elif coef < 0:
            hi_sel = min(hi_sel, z / coef)
    y = est[j]
    lvl = (alpha - beta) / (1 - beta)

    def cdf(theta):
        lo = max(lo_sel, theta - half)
        hi = min(hi_sel, theta + half)
        a, b = (lo - theta) / sigma, (hi - theta) / sigma
        return stats.truncnorm.cdf((y - theta) / sigma, a, b)

    def end(target):
        f = lambda t: cdf(t) - target  # noqa: E731
        left, right = y - half, y + half
        if f(left) < 0:
            return left
        if f(right) > 0:
            return right
        return optimize.brentq(f, left, right, xtol=1e-14, rtol=1e-12)

    return end(1 - lvl / 2), end(lvl / 2)


@pytest.mark.parametrize(("seed", "k"), [(10, 2), (11, 4), (12, 8), (13, 8)])
def test_hybrid_equals_the_truncnorm_oracle(seed: int, k: int) -> None:
    est, reps = _joint(seed, k, b=800)
    j = select_index(est)
    got = hybrid_interval(est, reps, j, confidence_level=0.95, df=59.0, variance_factor=60 / 59)
    want = _hybrid_oracle(est, reps, 0.95, 59.0, 60 / 59)
    sigma = math.sqrt(np.cov(reps)[j, j])
    np.testing.assert_allclose(got, want, atol=1e-7 * sigma)
    assert got[0] < est[j] < got[1] or got[0] < got[1]


def test_a_clear_winner_gets_about_the_naive_normal_interval() -> None:
    rng = np.random.default_rng(0)
    reps = rng.normal(size=(3, 20_000))
    est = np.array([12.0, 0.0, -1.0])
    low, high = hybrid_interval(est, reps, 0, confidence_level=0.95)
    # no truncation from the selection: the normal interval at the level the hybrid
    # spends after the band, (alpha - beta) / (1 - beta), truncated to +- c_beta
    want = _hybrid_oracle(est, reps, 0.95)
    assert (low, high) == pytest.approx(want, abs=1e-7)
    z = stats.norm.ppf(1 - (0.05 - 0.005) / 0.995 / 2)
    assert (low, high) == pytest.approx((12 - z, 12 + z), abs=0.05)


def test_the_hybrid_stays_within_the_band_of_level_one_minus_beta() -> None:
    for seed in range(20, 26):
        est, reps = _joint(seed, 6, b=600)
        j = select_index(est)
        low, high = hybrid_interval(est, reps, j, confidence_level=0.95)
        band = selection_band(est, reps, confidence_level=1 - HYBRID_BETA * 0.05)
        assert band.low[j] - 1e-12 <= low < high <= band.high[j] + 1e-12


def test_a_constant_winner_gets_a_point() -> None:
    reps = np.vstack([np.full(100, 0.5), np.linspace(-1, 0, 100)])
    assert hybrid_interval(np.array([0.5, -0.5]), reps, 0, confidence_level=0.95) == (0.5, 0.5)
