"""The interval of a selected candidate: ``hybrid_interval``, and ``select_index``.

The max-t band (``pdpaired.core.multi.simultaneous_band``) is tested against
its loop oracle in ``tests/core/test_multi.py``; its oracle serves here.

* The hybrid interval equals an independent version built on
  ``scipy.stats.truncnorm`` and ``scipy.optimize.brentq`` from the
  construction of Andrews, Kitagawa & McCloskey (2024): the selection event
  as bounds on the winner's estimate given the others' residuals, the
  truncated normal inverted in its mean within the max-t band of level
  ``1 - beta``.
* Limits: a clear winner gets about the naive normal interval; it stays
  within the max-t band of level ``1 - beta``; degenerate inputs.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize, stats

from pdpaired.core.multi import simultaneous_band
from pdpaired.core.selection import HYBRID_BETA, hybrid_interval, select_index

from .test_multi import band_oracle as _band_oracle
from .test_multi import joint_effects as _joint


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
        band = simultaneous_band(est, reps, confidence_level=1 - HYBRID_BETA * 0.05)
        assert band.low[j] - 1e-12 <= low < high <= band.high[j] + 1e-12


def test_a_constant_winner_gets_a_point() -> None:
    reps = np.vstack([np.full(100, 0.5), np.linspace(-1, 0, 100)])
    assert hybrid_interval(np.array([0.5, -0.5]), reps, 0, confidence_level=0.95) == (0.5, 0.5)


def test_fewer_than_two_defined_replicates_give_no_interval() -> None:
    reps = np.array([[0.1, np.nan, 0.3], [0.0, 0.2, np.nan]])  # one column defined for both
    low, high = hybrid_interval(np.array([0.2, 0.1]), reps, 0, confidence_level=0.95)
    assert math.isnan(low)
    assert math.isnan(high)
