"""Coverage and type-I error of the AUROC comparisons, by simulation."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from scipy.special import expit, ndtr

from pdpaired.core.delong import delong_test


def data(n: int = 300, seed: int = 0, ties: bool = False) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    latent = rng.normal(size=n)
    pa = 1 / (1 + np.exp(-(1.2 * y + latent + rng.normal(0, 0.7, n))))
    pb = 1 / (1 + np.exp(-(0.9 * y + latent + rng.normal(0, 0.9, n))))
    if ties:  # coarse scores: many ties within and across classes
        pa, pb = np.round(pa, 1), np.round(pb, 1)
    return y, pa, pb


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


P_FAIL = 1e-4


LEVEL = 0.95


ALPHA = (1 - LEVEL) / 2


# ---------------------------------------------------------------------------
# data generators
# ---------------------------------------------------------------------------
def correlated_normals(n, rho, rng):
    e = rng.standard_normal((2, n))
    return e[0], rho * e[0] + math.sqrt(1 - rho**2) * e[1]


def auroc_data(seed, n_pos, n_neg, mu=(1.2, 1.0), rho=0.8, decimals=2):
    """Binormal latent scores (AUC = Phi(mu / sqrt 2)), correlated between A and B."""
    rng = np.random.default_rng(seed)
    y = rng.permutation(np.r_[np.ones(n_pos, int), np.zeros(n_neg, int)])
    ea, eb = correlated_normals(y.size, rho, rng)
    pa, pb = expit(mu[0] * y + ea), expit(mu[1] * y + eb)
    if decimals is not None:
        pa, pb = np.round(pa, decimals), np.round(pb, decimals)
    return y, pa, pb


class TestAurocDifference:
    """Independent oracle tests for prediction mode (metrics recomputed on resamples).

    Every expected value here is computed without pdpaired's internals:

    * metric values by scikit-learn (``roc_auc_score``, ``f1_score``, ``log_loss``...);
    * resampling distributions by plain NumPy re-implementations of the designs
      written in this file, by ``scipy.stats.bootstrap(paired=True)``, or by
      closed-form moments of the ideal (B -> infinity) bootstrap;
    * the variance of a difference of two correlated AUCs by DeLong, DeLong &
      Clarke-Pearson (1988), written out below from the placement values;
    * swap (randomization) distributions by full enumeration or by an own Monte
      Carlo swap test.

    The designs under test (docs/prediction.md):

    * target-stratified bootstrap (default for classification with case units):
      every replicate draws ``n_c`` cases with replacement within each target
      class ``c``, the SAME cases for A and B, and the metric is recomputed on the
      resample (count weights);
    * iid bootstrap (``stratified=False``, and regression): ``n`` cases with
      replacement;
    * paired swap test: each case independently swaps A's and B's predictions
      with probability 1/2.

    The vectorised oracles below (count-weighted AUROC, F1, macro-F1, balanced
    accuracy) are checked against scikit-learn on materialised resamples
    (``y[idx]``, ``p[idx]``) inside every test that uses them, so each oracle
    distribution *is* scikit-learn's metric evaluated on the oracle's resamples;
    vectorising only keeps the run time down (``roc_auc_score`` costs ~1.5 ms a
    call, i.e. 30 s for 10,000 paired replicates).

    Tolerances
    ----------
    * Metric values: scikit-learn to ``rtol = 1e-12`` (only summation order differs).
    * *Exact given the replicates* (no Monte Carlo error): intervals recomputed
      from pdpaired's own ``bootstrap_distribution``; ~1e-10 of the SD.
    * *Within Monte Carlo (MC) error*: ``Z * SE`` of the difference, with the SE
      estimated from the replicates themselves, exactly as in
      ``test_bootstrap_oracles.py``:

      - sample p-quantile of B replicates: ``sqrt(p (1 - p) / B) / f(q_p)``, ``f``
        by a central finite difference of the empirical quantile function;
      - sample SD: ``s * sqrt((kurt - 1) / (4 B))`` (delta method);
      - mean of B replicates: ``s / sqrt(B)``;
      - Monte Carlo p-value from R swaps: ``sqrt(p (1 - p) / R)``;
      - the count of undefined replicates: binomial SD ``sqrt(B q (1 - q))``.

      ``Z = 4``: this file makes about 80 such comparisons, so the chance that any
      one of them fails by MC bad luck is about 80 * 6.3e-5 = 0.5% (seeds are
      fixed, so the outcome is deterministic anyway).  Whole-distribution
      comparisons use a two-sample KS test and fail only at p < 1e-4 (KS is
      conservative on the discrete distributions of label metrics).
    * Simulations (slow): rates over R simulated data sets have binomial SE
      ``sqrt(c (1 - c) / R)``; each bound is ``3 SE`` plus an allowance stated
      and justified at the test.
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
