"""Coverage and type-I error of the AUROC comparisons, by simulation."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from scipy.special import ndtr

from pdpaired.core.delong import delong_test

from ..analysis.test_prediction import ALPHA, LEVEL, P_FAIL, auroc_data


@pytest.mark.slow
def test_type1_error_equal_auroc_different_roc_shapes() -> None:
    """Equal AUROC (0.760), different ROC shapes, latent correlation 0.9, n = 200.

    Model A: binormal, positives N(1, 1); model B: positives N(1.581, 2**2), so
    Phi(mu / sqrt(1 + sigma**2)) is the same. The randomization (swap) test
    rejects this null far too often (12.5%); DeLong's test is for
    it. 4,000 data sets: binomial SE sqrt(.05 * .95 / 4000) = 0.0034; the
    rate must lie within 3.5 SE of 0.05 (measured 0.046 with 20,000 sets).

    Sized: accepted counts [152, 248] of 4,000; a size of 0.067 or
    more (a third above alpha; the swap test's 0.125 by far) or 0.034 or less
    fails with probability >= 0.9; a size of exactly 0.05 fails with 0.0005.
    """
    rng = np.random.default_rng(2024)
    n_sets, m = 4_000, 100
    mu_a, sd_b = 1.0, 2.0
    mu_b = math.sqrt(1 + sd_b**2) * mu_a / math.sqrt(2)
    assert stats.norm.cdf(mu_a / math.sqrt(2)) == pytest.approx(
        stats.norm.cdf(mu_b / math.sqrt(1 + sd_b**2))
    )
    positive = np.r_[np.ones(m, bool), np.zeros(m, bool)]
    rejections = 0
    for _ in range(n_sets):
        z = rng.normal(size=(2, 2 * m))
        z[1] = 0.9 * z[0] + math.sqrt(1 - 0.81) * z[1]
        a = np.r_[mu_a + z[0, :m], z[0, m:]]
        b = np.r_[mu_b + sd_b * z[1, :m], z[1, m:]]
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            rejections += delong_test(a, b, positive).pvalue < 0.05
    rate = rejections / n_sets
    se = math.sqrt(0.05 * 0.95 / n_sets)
    assert abs(rate - 0.05) < 3.5 * se, rate


class TestAurocDifference:
    """Prediction mode's AUROC difference by simulation: coverage and type-I error.

    The oracles, designs and Monte Carlo tolerances are those of
    ``TestAgainstOracles`` in ``tests/analysis/test_prediction.py`` (data from its
    ``auroc_data``). Rates over ``R`` simulated data sets have binomial SE
    ``sqrt(c (1 - c) / R)``; each bound is ``3 SE`` plus an allowance stated and
    justified at the test.
    """

    # ===========================================================================
    # 6. coverage of the percentile interval (slow)
    # ===========================================================================
    @pytest.mark.slow
    def test_auroc_difference_coverage(self):
        """Binormal model: scores X ~ N(mu y, 1) per model, errors correlated
        (rho = 0.8) between A and B, so the true AUC is Phi(mu / sqrt 2) for each
        model and the true difference is known exactly.  R = 800 data sets of
        n = 400 (160 positives), 1,000 resamples each, 95% percentile interval.

        Tolerance (fixed in advance): MC SE of the coverage sqrt(.95 .05 / 800) =
        0.0077; accept [0.95 - 3 SE - 0.02, 0.95 + 3 SE] = [0.907, 0.973].
        Allowance 0.02 for known finite-sample under-coverage: the plug-in
        bootstrap variance is low by O(1/m) (~0.5% in SD, coverage -0.1%), the
        percentile interval corrects skewness only to O(1/n) (coverage error of
        order 1/n ~ 0.5%), and B = 1,000 endpoint noise (SE ~0.09 SD) costs ~0.1%;
        0.02 is about twice the sum.  Power: resampling A and B independently would
        inflate the SD about 2x for these correlated AUCs (coverage ~1.00 > 0.973).

        Sized: accepted counts [726, 778] of 800; a coverage of 0.893 or
        less (an interval about 20% too narrow) or 0.980 or more (about 20% too
        wide) fails with probability >= 0.9; a coverage of 0.95 fails with 0.0006,
        one of 0.94 (the allowance half used) with 0.0001.
        """
        mu_a, mu_b, R = 1.2, 1.0, 800
        truth = ndtr(mu_a / math.sqrt(2)) - ndtr(mu_b / math.sqrt(2))
        below = above = 0
        for r in range(R):
            y, pa, pb = auroc_data(seed=10_000 + r, n_pos=160, n_neg=240, mu=(mu_a, mu_b),
                                   rho=0.8, decimals=None)  # fmt: skip
            df = pd.DataFrame({"case_id": np.tile(np.arange(y.size), 2),
                               "model": np.repeat(["A", "B"], y.size),
                               "y": np.tile(y, 2), "p": np.r_[pa, pb]})  # fmt: skip
            res = df.paired(target="y", prediction="p").bootstrap(
                "A", "B", metric="auroc", rng=r, n_resamples=1_000)  # fmt: skip
            below += res.confidence_interval.high < truth
            above += res.confidence_interval.low > truth
        coverage = 1 - (below + above) / R
        se = math.sqrt(LEVEL * (1 - LEVEL) / R)
        msg = (
            f"coverage {coverage:.3f}: {below} intervals below, {above} above the truth {truth:.4f}"
        )
        assert LEVEL - 3 * se - 0.02 <= coverage <= LEVEL + 3 * se, msg

    @pytest.mark.slow
    def test_auroc_randomization_type1_error(self):
        """Under exchangeability of A's and B's predictions within every case
        (same mu, exchangeable correlated errors) the swap test is exact: the MC
        p-value (1 + k)/(1 + R) is uniform on {1/1000, ..., 1} up to ties of the
        lattice-valued AUC differences, which only make it conservative.

        R = 600 data sets of n = 100 (50 positives), 999 swaps, two-sided.
        Accept the rejection rate at 0.05 within [0.05 - 3 SE, 0.05 + 3 SE], SE =
        sqrt(.05 .95 / 600) = 0.0089 (no allowance: the AUC difference lives on a
        1/5000 lattice, ~100 points per null SD, so ties shift the size by well
        under 1 SE), and a KS test of the p-values against U(0, 1) (the grid
        spacing 0.001 is negligible at R = 600) at P_FAIL.

        Sized: accepted counts [14, 46] of 600; a size of 0.093 or more
        (the swap test's 12.5% under unequal ROC shapes, with power > 0.999)
        or 0.016 or less fails with probability >= 0.9; a size of exactly 0.05
        fails with 0.0022 (plus P_FAIL for the KS test). Smaller inflations of the
        size are the job of tests/calibration/test_randomization.py (R = 3,000, score mode).
        """
        R = 600
        pvalues = np.empty(R)
        for r in range(R):
            y, pa, pb = auroc_data(seed=20_000 + r, n_pos=50, n_neg=50, mu=(1.0, 1.0), rho=0.5,
                                   decimals=None)  # fmt: skip
            df = pd.DataFrame({"case_id": np.tile(np.arange(y.size), 2),
                               "model": np.repeat(["A", "B"], y.size),
                               "y": np.tile(y, 2), "p": np.r_[pa, pb]})  # fmt: skip
            res = df.paired(target="y", prediction="p").randomization(
                "A", "B", metric="auroc", n_permutations=999, rng=r)  # fmt: skip
            pvalues[r] = res.pvalue
        rate = np.mean(pvalues <= ALPHA + 1e-12)
        se = math.sqrt(ALPHA * (1 - ALPHA) / R)
        assert ALPHA - 3 * se <= rate <= ALPHA + 3 * se, rate
        assert stats.kstest(pvalues, "uniform").pvalue > P_FAIL
        assert (pvalues > 0).all()
        assert (pvalues <= 1).all()
