"""Coverage of the paired bootstrap intervals, by simulation: iid, clusters,
strata with population weights, 0/1 scores, small strata and few clusters."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import pdpaired  # noqa: F401  (registers DataFrame.paired)
from pdpaired import DegenerateDataWarning
from pdpaired.core.bootstrap import DesignResampler, bootstrap_replicates
from pdpaired.core.engine import Design

N_DATASETS = {0.02: 2_000, 0.025: 3_000}  # simulated data sets, by allowance (see above)


# bootstrap replicates per interval: 1000 (was 2000) pays for the larger R; the
# endpoints' Monte Carlo error at B = 1000 moves coverage by ~0.1 point
N_RESAMPLES = 1_000


def _window(r: int, level: float, allowance: float) -> tuple[int, int]:
    """Accepted counts of covering intervals: 0.5% false failure in each tail."""
    lo = int(stats.binom.ppf(0.005, r, level - allowance))
    hi = int(stats.binom.isf(0.005, r, level))
    return lo, hi


def _assert_sized(r: int, allowance: float, level: float = 0.95) -> None:
    """The test catches an interval 15% too narrow or too wide with probability >= 0.9."""
    z = stats.norm.ppf((1 + level) / 2)
    narrow = 2 * stats.norm.cdf(z * 0.85) - 1  # 0.904 at 95%, 0.838 at 90%
    wide = 2 * stats.norm.cdf(z * 1.15) - 1  # 0.976 at 95%, 0.942 at 90%
    lo, hi = _window(r, level, allowance)
    assert stats.binom.cdf(lo - 1, r, narrow) >= 0.9, (r, allowance, level)
    assert stats.binom.sf(hi, r, wide) >= 0.9, (r, allowance, level)


def _long(a: np.ndarray, b: np.ndarray, **cols: np.ndarray) -> pd.DataFrame:
    """Long table (one row per case and model) from paired score arrays."""
    n = len(a)
    data = {
        "case_id": np.tile(np.arange(n), 2),
        "model": np.repeat(["A", "B"], n),
        "score": np.concatenate([a, b]),
    }
    for name, values in cols.items():
        data[name] = np.tile(np.asarray(values), 2)
    return pd.DataFrame(data)


class _Tally:
    """Counts misses below / above the truth for one interval type."""

    def __init__(self, truth: float, level: float) -> None:
        self.truth, self.level = truth, level
        self.n = self.below = self.above = 0
        self.estimates: list[float] = []

    def add(self, res) -> None:
        ci = res.confidence_interval
        self.n += 1
        self.estimates.append(res.improvement)
        if ci.high < self.truth:  # whole interval below the truth
            self.below += 1
        elif ci.low > self.truth:  # whole interval above the truth
            self.above += 1

    @property
    def coverage(self) -> float:
        return 1.0 - (self.below + self.above) / self.n

    def describe(self) -> str:
        est = np.asarray(self.estimates)
        return (
            f"coverage {self.coverage:.3f} (nominal {self.level}), misses: interval below truth "
            f"{self.below}, above truth {self.above}, of {self.n}; truth {self.truth:.5f}, "
            f"mean estimate {est.mean():.5f} (MC se {est.std(ddof=1) / math.sqrt(est.size):.5f})"
        )

    def assert_calibrated(self, allowance: float) -> None:
        lo, hi = _window(self.n, self.level, allowance)
        covered = self.n - self.below - self.above
        assert lo <= covered <= hi, (
            f"miscalibrated: accepted [{lo / self.n:.3f}, {hi / self.n:.3f}]; {self.describe()}"
        )


@pytest.mark.slow
def test_coverage_iid_skewed_continuous():
    """n = 100 iid pairs of correlated, right-skewed (lognormal) scores.

    A = exp(0.1 + 0.7 U), B = exp(0.35 V), (U, V) standard bivariate normal
    with correlation 0.7, so E[A] - E[B] = exp(0.1 + 0.7**2 / 2) - exp(0.35**2 / 2)
    exactly. A has skewness ~2.9, so the mean of 100 differences is still
    noticeably skewed (~0.3).

    Allowance 0.02: two-sided percentile intervals for a mean of n = 100
    skewed observations under-cover by O(1/n) terms, in published simulations
    about 1-2 points at this skewness (e.g. Hesterberg 2015, Am. Stat. 69:371,
    for exponential data); the divisor-n variance alone costs ~0.1 point.
    BCa is second-order accurate but shares the divisor-n narrowness and
    Monte Carlo noise in z0; it gets the same allowance.
    """
    n, rho = 100, 0.7
    truth = math.exp(0.1 + 0.7**2 / 2) - math.exp(0.35**2 / 2)
    tallies = {m: _Tally(truth, 0.95) for m in ("percentile", "bca")}
    _assert_sized(N_DATASETS[0.02], 0.02)
    for rep in range(N_DATASETS[0.02]):
        rng = np.random.default_rng([1, rep])
        u = rng.standard_normal(n)
        v = rho * u + math.sqrt(1 - rho**2) * rng.standard_normal(n)
        a, b = np.exp(0.1 + 0.7 * u), np.exp(0.35 * v)
        cmp = _long(a, b).paired.compare("A", "B", higher_is_better=True)
        for method, tally in tallies.items():
            tally.add(cmp.bootstrap(n_resamples=N_RESAMPLES, method=method, rng=1000 + rep))
    for method, tally in tallies.items():
        print(f"iid skewed n={n} {method}: {tally.describe()}")
    for tally in tallies.values():
        tally.assert_calibrated(allowance=0.02)


@pytest.mark.slow
def test_coverage_clustered_unequal_group_sizes():
    """60 groups of iid sizes m_g ~ Uniform{1, ..., 40}, strong group effect.

    Per item j of group g: B = s_g + c_gj, A = B + d_gj with
    d_gj = mu + beta (m_g - E m) + u_g + e_gj,  u_g ~ N(0, 0.5**2), e_gj ~ N(0, 1),
    s_g ~ N(0, 1), c_gj ~ N(0, 1), everything independent of m_g except the
    deliberate linear size effect beta. The two weightings then have
    DIFFERENT, exactly known estimands, so a mix-up between them is detected:

    * item weighting, population ratio E[sum_j d_gj] / E[m_g]
      = mu + beta E[m (m - E m)] / E m = mu + beta Var(m) / E(m)
      with E m = 20.5, Var m = (40**2 - 1) / 12 (discrete uniform);
    * group weighting, E[group mean of d] = mu.

    Allowance 0.025 for the cluster bootstrap: the effective sample size is the
    G = 60 groups, not the items. A z-type interval whose spread uses the
    divisor-G variance, sqrt(59/60) too narrow, has coverage
    P(|t_59| < 1.96 sqrt(59/60)) ~= 0.943 even for normal data, ~0.7 point
    below nominal; the ratio estimator with unequal sizes adds heavier tails.

    Power check: ignoring the clusters (unit="case") under-estimates the
    variance of the item-weighted mean by the design effect
    1 + (E[m**2] / E[m] - 1) ICC = 1 + 26 * 0.2 = 6.2 (ICC = 0.25 / 1.25 of d),
    so the naive interval should cover about 2 Phi(1.96 / sqrt(6.2)) - 1 ~= 0.57;
    we require it below 0.80.
    """
    n_groups, mu, beta = 60, 0.3, 0.02
    mean_m, var_m = 20.5, (40**2 - 1) / 12
    truth_item = mu + beta * var_m / mean_m
    truth_group = mu
    cluster_item = _Tally(truth_item, 0.95)
    cluster_group = _Tally(truth_group, 0.95)
    naive = _Tally(truth_item, 0.95)
    _assert_sized(N_DATASETS[0.025], 0.025)
    for rep in range(N_DATASETS[0.025]):
        rng = np.random.default_rng([2, rep])
        m = rng.integers(1, 41, size=n_groups)
        g = np.repeat(np.arange(n_groups), m)
        size = m[g]
        u, s = rng.normal(0, 0.5, n_groups)[g], rng.standard_normal(n_groups)[g]
        b = s + rng.standard_normal(g.size)
        d = mu + beta * (size - mean_m) + u + rng.standard_normal(g.size)
        cmp = _long(b + d, b, group=g).paired.compare("A", "B", higher_is_better=True)
        seed = 2000 + rep
        kw = {"n_resamples": N_RESAMPLES, "rng": seed}
        cluster_item.add(cmp.bootstrap(unit="group", weighting="item", **kw))
        cluster_group.add(cmp.bootstrap(unit="group", weighting="group", **kw))
        naive.add(cmp.bootstrap(unit="case", weighting="item", **kw))
    print(f"cluster item weighting: {cluster_item.describe()}")
    print(f"cluster group weighting: {cluster_group.describe()}")
    print(f"naive iid (unit='case'): {naive.describe()}")
    cluster_item.assert_calibrated(allowance=0.025)
    cluster_group.assert_calibrated(allowance=0.025)
    assert naive.coverage < 0.80, f"naive bootstrap should under-cover: {naive.describe()}"


@pytest.mark.slow
def test_coverage_stratified_population_weights():
    """Stratified test set whose sample shares differ from the population's.

    Strata s0, s1, s2 with n_h = 240, 100, 60 (shares 0.6, 0.25, 0.15) but
    population weights w_h = 0.2, 0.3, 0.5. Per stratum B ~ N(h, 1) and
    A = B + mu_h + sd_h e with e ~ N(0, 1), mu_h = 0, 0.2, 0.5, sd_h = 0.5, 1, 1.5,
    so the estimand sum_h w_h mu_h = 0.31 exactly (observed shares would
    target 0.125, far outside every interval).

    Allowance 0.02: the variance is dominated by the smallest stratum
    (w = 0.5, n = 60); the divisor-n_h bootstrap variance and normal-vs-t
    quantiles give P(|t_59| < 1.96 sqrt(59/60)) ~= 0.943, under a point below
    nominal; the rest is a margin for the stratified BCa's estimated z0 and a.
    """
    n_h = np.array([240, 100, 60])
    w = {"s0": 0.2, "s1": 0.3, "s2": 0.5}
    mu_h, sd_h = np.array([0.0, 0.2, 0.5]), np.array([0.5, 1.0, 1.5])
    truth = float(np.dot(list(w.values()), mu_h))
    labels = np.repeat(np.array(list(w)), n_h)
    h = np.repeat(np.arange(3), n_h)
    tallies = {m: _Tally(truth, 0.95) for m in ("percentile", "bca")}
    _assert_sized(N_DATASETS[0.02], 0.02)
    for rep in range(N_DATASETS[0.02]):
        rng = np.random.default_rng([3, rep])
        b = h + rng.standard_normal(h.size)
        a = b + mu_h[h] + sd_h[h] * rng.standard_normal(h.size)
        cmp = _long(a, b, stratum=labels).paired.compare("A", "B", higher_is_better=True)
        for method, tally in tallies.items():
            tally.add(
                cmp.bootstrap(
                    n_resamples=N_RESAMPLES, method=method, rng=3000 + rep, stratum_weights=w
                )
            )
    for method, tally in tallies.items():
        print(f"stratified {method}: {tally.describe()}")
    for tally in tallies.values():
        tally.assert_calibrated(allowance=0.02)


@pytest.mark.slow
def test_coverage_binary_pass_fail():
    """n = 300 paired 0/1 outcomes, nominal 90% (exercises confidence_level).

    Joint law of (A, B): P(1,1) = 0.60, P(1,0) = 0.15, P(0,1) = 0.10,
    P(0,0) = 0.15, so the pass rates are 0.75 and 0.70 and the true
    improvement is 0.05 exactly (about 75 discordant pairs per data set).

    Allowance 0.02: the paired difference takes three values and the
    bootstrap distribution lives on a lattice of step 1/300, so percentile
    endpoints are discretised; with the divisor-n variance this costs well
    under a point at n = 300, and the remainder covers the lattice effect.
    """
    n, level = 300, 0.90
    probs = [0.60, 0.15, 0.10, 0.15]  # (1,1), (1,0), (0,1), (0,0)
    pairs = np.array([[1, 1], [1, 0], [0, 1], [0, 0]], dtype=float)
    truth = (probs[0] + probs[1]) - (probs[0] + probs[2])
    tallies = {m: _Tally(truth, level) for m in ("percentile", "basic")}
    _assert_sized(N_DATASETS[0.02], 0.02, level)
    for rep in range(N_DATASETS[0.02]):
        rng = np.random.default_rng([4, rep])
        ab = pairs[rng.choice(4, size=n, p=probs)]
        cmp = _long(ab[:, 0], ab[:, 1]).paired.compare("A", "B", higher_is_better=True)
        for method, tally in tallies.items():
            tally.add(
                cmp.bootstrap(
                    n_resamples=N_RESAMPLES,
                    method=method,
                    confidence_level=level,
                    rng=4000 + rep,
                )
            )
    for method, tally in tallies.items():
        print(f"binary n={n} {method}: {tally.describe()}")
    for tally in tallies.values():
        tally.assert_calibrated(allowance=0.02)


# ---------------------------------------------------------------------------
# coverage simulations
# ---------------------------------------------------------------------------
def _coverage(
    nh: int, n_strata: int, n_sets: int, small_sample: bool, kind: str, n_resamples: int = 1_000
) -> float:
    """Share of data sets whose 95% percentile interval covers the true stratified mean.

    Runs the library's own loop (:func:`bootstrap_replicates` on a
    :class:`DesignResampler`), the code path of ``Comparison.bootstrap``, without
    building a DataFrame per data set.
    """
    rng = np.random.default_rng(1000 * nh + n_strata)
    mu = np.random.default_rng(99).normal(0, 1, n_strata)  # fixed stratum means
    w = np.full(n_strata, 1.0 / n_strata)
    hits = 0
    for r in range(n_sets):
        if kind == "normal":
            e = rng.normal(0, 1, (n_strata, nh))
        else:  # 0/1 scores of two models: differences in {-1, 0, 1}, mean 0.1
            e = (rng.uniform(size=(n_strata, nh)) < 0.3).astype(float)
            e -= (rng.uniform(size=(n_strata, nh)) < 0.2).astype(float) + 0.1
        d = mu[:, None] + e
        design = Design(
            value=d.ravel(), count=None, unit_ptr=np.arange(0, n_strata * nh + 1, nh),
            weight=w, sign=1.0,
        )  # fmt: skip
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DegenerateDataWarning)
            core = bootstrap_replicates(
                DesignResampler(design, small_sample=small_sample), float(np.sum(w * d.mean(1))),
                n_resamples=n_resamples, confidence_level=0.95, method="percentile",
                seed_sequence=np.random.SeedSequence(r), batch=None,
            )  # fmt: skip
        ci = core.confidence_interval
        hits += ci.low <= mu.mean() <= ci.high
    return hits / n_sets


def _cluster_coverage(n_groups: int, n_sets: int, small_sample: bool) -> float:
    rng = np.random.default_rng(n_groups)
    hits = 0
    for r in range(n_sets):
        sizes = rng.integers(5, 30, n_groups)
        u = rng.normal(0, 1, n_groups)  # cluster effects: high intra-cluster correlation
        vals = np.array([np.sum(u[g] + rng.normal(0, 1, sizes[g])) for g in range(n_groups)])
        design = Design(
            value=vals, count=sizes.astype(np.int64), unit_ptr=np.array([0, n_groups]),
            weight=np.array([1.0]), sign=1.0,
        )  # fmt: skip
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DegenerateDataWarning)
            core = bootstrap_replicates(
                DesignResampler(design, small_sample=small_sample), vals.sum() / sizes.sum(),
                n_resamples=1_000, confidence_level=0.95, method="percentile",
                seed_sequence=np.random.SeedSequence(r), batch=None,
            )  # fmt: skip
        hits += core.confidence_interval.low <= 0.0 <= core.confidence_interval.high
    return hits / n_sets


class TestSmallSamples:
    """Small-sample correction of stratified and cluster bootstraps.

    Oracles: the ideal (B -> infinity) bootstrap variance by exact enumeration of
    every draw, the unbiased stratified variance formula, and coverage
    simulations whose tolerances are derived from their Monte Carlo error.
    """

    @pytest.mark.slow
    @pytest.mark.parametrize("kind", ["normal", "binary"])
    @pytest.mark.parametrize("nh", [2, 3, 5])
    def test_small_strata_coverage(self, nh: int, kind: str) -> None:
        """10 strata of n_h cases: corrected coverage within MC error of 0.95.

        2,000 data sets: MC SE of a coverage near 0.95 is sqrt(.95 * .05 / 2000) =
        0.0049, so 0.95 - 3 SE = 0.935 is the floor (measured: normal 0.945 /
        0.942 / 0.947, 0/1 scores 0.943 / 0.955 / 0.938 at n_h = 2 / 3 / 5 with
        4,000 sets). Before the correction coverage was 0.80 / 0.87 / 0.91: the
        uncorrected run must stay below 0.92, which documents the defect.

        Sized: the window [0.935, 0.969] (counts [1871, 1938] of
        2,000) fails with probability >= 0.9 at a coverage of 0.928 or less (about
        the uncorrected bootstrap at n_h = 5) or 0.974 or more, and with 0.0018 at
        0.95. 0/1 scores with n_h = 2 (measured 0.933-0.943): floor 0.915, which a
        coverage of 0.933 misses with 0.0008 and one of 0.906 or less (the
        uncorrected 0.80 by far) hits with >= 0.9. The uncorrected check (400 sets,
        < 0.92) fails with 0.0006 at its 0.87 and catches a correction already
        applied (0.937 or more) with >= 0.9.
        """
        n_sets = 2_000
        se = math.sqrt(0.95 * 0.05 / n_sets)
        corrected = _coverage(nh, 10, n_sets, True, kind)
        # 0/1 scores with two cases per stratum: the bootstrap distribution takes few
        # values, which costs about a point (measured 0.933-0.943); the floor is 0.915.
        floor = 0.915 if (kind, nh) == ("binary", 2) else 0.95 - 3 * se
        assert corrected >= floor, corrected
        assert corrected <= 0.95 + 4 * se, corrected  # not bought by over-wide intervals
        if nh <= 3:
            assert _coverage(nh, 10, 400, False, kind) < 0.92

    @pytest.mark.slow
    @pytest.mark.parametrize("n_groups", [8, 12, 20])
    def test_few_clusters_coverage(self, n_groups: int) -> None:
        """Cluster bootstrap (ratio estimator, cluster sizes 5-29, strong cluster effect).

        Measured with 2,000 sets: uncorrected 0.872 / 0.905 / 0.927, corrected
        0.932 / 0.939 / 0.950 at 8 / 12 / 20 clusters. With 1,500 sets the MC SE
        is 0.0056; the floor is 0.95 - 0.025 (0.015 below nominal, the most a
        ratio estimator with 8 clusters reaches, plus 1.8 SE) and the correction
        must gain at least 0.03 over the uncorrected bootstrap at 8 clusters.

        Sized: the floor depends on the number of clusters, 2.9-3.3 MC
        SEs below the measured coverage so that a correct run fails with at most
        0.006: 0.915 at 8 clusters (fails with 0.006 at 0.932; the uncorrected
        0.872 with probability > 0.999), 0.92 at 12 (0.0013 at 0.939; the
        uncorrected 0.905 with 0.976), 0.925 at 20 (2e-5 at 0.950; a coverage of
        0.916 or less with >= 0.9 -- the uncorrected 0.927 is too close to tell
        apart at 20 clusters, which the gain at 8 clusters checks instead). The gain
        (measured 0.06 on the same data sets: its SE comes from the ~6% of sets the
        two intervals disagree on, sqrt(0.06 / 1500) = 0.0063) falls under 0.03
        with about 1e-6, and a gain of 0.022 or less fails with >= 0.9.
        """
        floor = {8: 0.915, 12: 0.92, 20: 0.925}[n_groups]
        corrected = _cluster_coverage(n_groups, 1_500, True)
        assert corrected >= floor, corrected
        if n_groups == 8:
            assert corrected - _cluster_coverage(n_groups, 1_500, False) >= 0.03
