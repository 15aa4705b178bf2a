"""Independent oracle tests for the paired bootstrap.

Every expected value here is computed without pdpaired's internals: by
``scipy.stats.bootstrap``, by a straightforward NumPy re-implementation of the
resampling scheme written in this file, by a brute-force O(n^2) jackknife, or
by closed-form results of the ideal (B -> infinity) bootstrap.

Tolerances.  Two kinds of comparison are made.

* *Exact given the replicates* (no Monte Carlo error): e.g. recomputing the
  BCa interval from pdpaired's own ``bootstrap_distribution`` with an
  independent jackknife, or mirror symmetry under ``higher_is_better``.  Only
  floating-point rounding separates the two sides, so tolerances are ~1e-10
  relative to the spread of the distribution.

* *Within Monte Carlo (MC) error*: two bootstraps with independent streams.
  Each tolerance is ``Z * SE`` with ``SE`` the MC standard error of the
  difference, estimated from the replicates themselves:

  - a sample p-quantile of B replicates has SE ``sqrt(p (1 - p) / B) / f(q_p)``
    (asymptotic normality of sample quantiles); ``f`` is estimated by the
    finite difference ``2h / (q_{p+h} - q_{p-h})`` with ``h = 0.01``;
  - a BCa endpoint additionally moves with the estimated bias correction
    ``z0 = ndtri(share)``, ``share`` = share of replicates below the estimate;
    the delta method over the joint law of (share, empirical CDF at the
    quantile) gives its SE, including their (positive) covariance, see
    ``bca_endpoint_se``;
  - a bootstrap standard error (SD of B replicates) has SE
    ``s * sqrt((kurt - 1) / (4 B))`` (delta method on the sample variance,
    ``kurt`` the non-excess kurtosis of the replicates);
  - a mean of B replicates has SE ``s / sqrt(B)``.

  ``Z = 4``: about 40 such comparisons are made, so the chance that any one
  fails by MC bad luck is about 40 * 6.3e-5 = 0.3% (and the seeds are fixed,
  so the outcome is deterministic).  ``test_mc_error_model_is_calibrated``
  checks empirically, over independent seeds, that these SE formulas predict
  the actual run-to-run spread of both pdpaired and scipy.

  Whole-distribution comparisons use a two-sample KS (or chi-square) test and
  fail only at p < 1e-4.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from scipy.special import ndtr, ndtri

import pdpaired  # noqa: F401  (registers DataFrame.paired)

Z = 4.0
P_FAIL = 1e-4
LEVEL = 0.95
ALPHA = (1 - LEVEL) / 2


# ---------------------------------------------------------------------------
# helpers (independent of pdpaired)
# ---------------------------------------------------------------------------
def long_frame(a, b, seed=0, **design):
    """Long table with rows in random order (results must not depend on it)."""
    n = len(a)
    ids = np.arange(n) * 7 + 3
    parts = []
    for name, s in (("A", a), ("B", b)):
        part = pd.DataFrame({"case_id": ids, "model": name, "score": np.asarray(s, float)})
        for k, v in design.items():
            part[k] = np.asarray(v)
        parts.append(part)
    df = pd.concat(parts, ignore_index=True)
    return df.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def density_at(dist, p):
    """Density of the replicates at their p-quantile, by a central finite difference."""
    h = min(0.01, 0.5 * min(p, 1 - p))  # the window never reaches the sample min/max
    q_lo, q_hi = np.quantile(dist, [p - h, p + h])
    return 2 * h / (q_hi - q_lo)


def quantile_se(dist, p):
    """MC standard error of the sample p-quantile of ``dist``."""
    return math.sqrt(p * (1 - p) / dist.size) / density_at(dist, p)


def sd_se(dist):
    """MC standard error of the sample SD of ``dist``."""
    kurt = stats.kurtosis(dist, fisher=False)
    return dist.std(ddof=1) * math.sqrt((kurt - 1) / (4 * dist.size))


def share_below(dist, theta):
    """scipy's convention: share of replicates below theta, ties counted half."""
    return ((dist < theta).sum() + (dist <= theta).sum()) / (2.0 * dist.size)


def tail(df=None, level=LEVEL):
    """Tail level of the interval: alpha, or with the small-sample correction of
    stratified / cluster designs (``df`` = sum_h (G_h - 1)) Phi(t_df(alpha))."""
    alpha = (1 - level) / 2
    return alpha if df is None else float(ndtr(stats.t.ppf(alpha, df)))


def rao_wu(x, center, n_units):
    """Rao & Wu (1988) rescaling of a stratum's replicates around its estimate."""
    return center + math.sqrt(n_units / (n_units - 1)) * (np.asarray(x) - center)


def bca_levels(dist, theta, acc, level=LEVEL, df=None):
    alpha = tail(df, level)
    z0 = ndtri(share_below(dist, theta))
    z = ndtri(np.array([alpha, 1 - alpha]))
    return ndtr(z0 + (z0 + z) / (1 - acc * (z0 + z))), z0


def bca_from_dist(dist, theta, acc, level=LEVEL, df=None):
    levels, _ = bca_levels(dist, theta, acc, level, df)
    return np.percentile(dist, 100 * levels)


def bca_endpoint_se(dist, theta, acc, df=None):
    """MC SE of each BCa endpoint, by the delta method.

    endpoint = Qhat(L(shat)) with shat = Fhat(theta) the bias-correction share
    and L the BCa level as a function of it.  Linearising,
    endpoint - q_L ~ [L'(s) (Fhat(theta) - s) - (Fhat(q_L) - L)] / f(q_L), and
    B Cov(Fhat(x), Fhat(y)) = F(min(x, y)) - F(x) F(y), so
    B f^2 Var = L'^2 s (1 - s) + L (1 - L) - 2 L' (min(L, s) - L s).
    """
    levels, z0 = bca_levels(dist, theta, acc, df=df)
    s = ndtr(z0)
    out = []
    alpha = tail(df)
    for lv, za in zip(levels, ndtri(np.array([alpha, 1 - alpha])), strict=True):
        u = z0 + za
        dlevel = stats.norm.pdf(z0 + u / (1 - acc * u)) * (1 + 1 / (1 - acc * u) ** 2)
        dlevel /= stats.norm.pdf(z0)  # chain rule: dz0/ds = 1 / phi(z0)
        var = dlevel**2 * s * (1 - s) + lv * (1 - lv) - 2 * dlevel * (min(lv, s) - lv * s)
        out.append(math.sqrt(var / dist.size) / density_at(dist, lv))
    return np.array(out)


def dh_acceleration(theta_minus_by_stratum):
    """Davison & Hinkley's stratified jackknife acceleration (one stratum: Efron's)."""
    num = den = 0.0
    for t in theta_minus_by_stratum:
        t = np.asarray(t, float)
        n = t.size
        if n < 2:
            continue
        infl = (n - 1) * (t.mean() - t)
        num += np.sum(infl**3) / n**3
        den += np.sum(infl**2) / n**2
    return num / (6 * den**1.5)


def jackknife_mean_bruteforce(d):
    """Leave-one-out means, literally recomputed (O(n^2))."""
    return np.array([np.delete(d, i).mean() for i in range(d.size)])


def percentile_interval(dist, df=None):
    alpha = tail(df)
    return np.percentile(dist, [100 * alpha, 100 * (1 - alpha)])


def boot(df, **kw):
    kw.setdefault("higher_is_better", True)
    return df.paired.bootstrap("A", "B", **kw)


def ci(res):
    return np.array([res.confidence_interval.low, res.confidence_interval.high])


def assert_within(actual, expected, tol, what):
    actual, expected, tol = np.atleast_1d(actual), np.atleast_1d(expected), np.atleast_1d(tol)
    err = np.abs(actual - expected)
    assert np.all(err <= tol), (
        f"{what}: |{actual} - {expected}| = {err} exceeds Z*SE = {tol} ({Z * err / tol} SE)"
    )


# ---------------------------------------------------------------------------
# data
# ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def iid():
    """n = 200 pairs, strongly right-skewed differences (lognormal)."""
    rng = np.random.default_rng(20240611)
    n = 200
    base = rng.gamma(2.0, 1.0, n)
    a = base + rng.lognormal(-1.0, 1.0, n)
    b = base + 0.25 + rng.normal(0, 0.05, n)
    return a, b, long_frame(a, b, seed=1)


def _cluster_arrays(seed=99):
    rng = np.random.default_rng(seed)
    G = 40
    sizes = rng.permutation(np.r_[1, 30, rng.integers(1, 31, G - 2)])
    group = np.repeat(np.arange(G), sizes)
    # skewed group-level random effect on the difference, larger in small
    # groups (so item- and group-weighted estimands differ)
    u = 0.3 * rng.lognormal(0.0, 1.0, G) + 0.3 * (sizes < 8)
    n = group.size
    b = rng.normal(0.5, 0.2, n)
    a = b + u[group] + rng.normal(0, 0.3, n)
    return a, b, group, sizes


@pytest.fixture(scope="module")
def cluster():
    a, b, group, _sizes = _cluster_arrays()
    labels = np.array([f"g{g:02d}" for g in group])
    return a, b, labels, long_frame(a, b, seed=2, group=labels)


@pytest.fixture(scope="module")
def strat():
    rng = np.random.default_rng(777)
    parts = {
        "s0": rng.normal(0.1, 0.5, 400),
        "s1": rng.exponential(1.0, 60) - 0.5,
        "s2": rng.lognormal(0.0, 1.0, 12),
    }
    d = np.concatenate(list(parts.values()))
    stratum = np.concatenate([[k] * len(v) for k, v in parts.items()])
    b = rng.normal(0, 1, d.size)
    a = b + d
    weights = {"s0": 0.2, "s1": 0.3, "s2": 0.5}  # observed shares: .85, .13, .03
    return a, b, stratum, weights, long_frame(a, b, seed=3, stratum=stratum)


@pytest.fixture(scope="module")
def strat_cluster():
    rng = np.random.default_rng(4242)
    spec = {"s0": 25, "s1": 10, "s2": 5}
    shift = {"s0": 0.0, "s1": 0.4, "s2": -0.3}
    a_l, b_l, g_l, s_l = [], [], [], []
    for h, G in spec.items():
        sizes = rng.integers(1, 16, G)
        u = 0.3 * rng.lognormal(0, 0.8, G) + shift[h]
        for g in range(G):
            b = rng.normal(0.5, 0.2, sizes[g])
            a_l.append(b + u[g] + rng.normal(0, 0.3, sizes[g]))
            b_l.append(b)
            g_l += [f"{h}-g{g:02d}"] * sizes[g]
            s_l += [h] * sizes[g]
    a, b = np.concatenate(a_l), np.concatenate(b_l)
    group, stratum = np.array(g_l), np.array(s_l)
    weights = {"s0": 0.5, "s1": 0.2, "s2": 0.3}
    return a, b, group, stratum, weights, long_frame(a, b, seed=4, group=group, stratum=stratum)


# ---------------------------------------------------------------------------
# own resampling implementations (the oracles)
# ---------------------------------------------------------------------------
def own_cluster_boot(d, group, B, seed, weighting="item"):
    """Draw G whole groups with replacement; item: sum/sum, group: mean of means;
    Rao-Wu rescaled (the small-sample correction of cluster designs)."""
    labels, inv = np.unique(group, return_inverse=True)
    sums = np.bincount(inv, weights=d)
    counts = np.bincount(inv).astype(float)
    G = labels.size
    idx = np.random.default_rng(seed).integers(0, G, size=(B, G))
    if weighting == "item":
        return rao_wu(sums[idx].sum(1) / counts[idx].sum(1), sums.sum() / counts.sum(), G)
    return rao_wu((sums / counts)[idx].mean(1), (sums / counts).mean(), G)


def own_strat_boot(d, stratum, weights, B, seed, group=None):
    """Resample within each stratum (n_h cases, or G_h whole groups); sum_h w_h * ratio_h,
    each stratum's ratio Rao-Wu rescaled (the small-sample correction)."""
    rng = np.random.default_rng(seed)
    out = np.zeros(B)
    for h, w in weights.items():
        m = stratum == h
        if group is None:
            dh = d[m]
            idx = rng.integers(0, dh.size, size=(B, dh.size))
            out += w * rao_wu(dh[idx].mean(1), dh.mean(), dh.size)
        else:
            _, inv = np.unique(group[m], return_inverse=True)
            sums, counts = np.bincount(inv, weights=d[m]), np.bincount(inv).astype(float)
            idx = rng.integers(0, sums.size, size=(B, sums.size))
            ratio = sums[idx].sum(1) / counts[idx].sum(1)
            out += w * rao_wu(ratio, sums.sum() / counts.sum(), sums.size)
    return out


def mean_of_group_means(d, group):
    return pd.Series(d).groupby(group).mean().mean()


# ===========================================================================
# 1. iid intervals vs scipy.stats.bootstrap
# ===========================================================================
B1 = 20_000


def scipy_paired(a, b, hib, method, B, seed):
    sign = 1.0 if hib else -1.0

    def stat(x, y, axis):
        return sign * (x.mean(axis) - y.mean(axis))

    return stats.bootstrap(
        (a, b), stat, paired=True, vectorized=True, method=method, n_resamples=B,
        confidence_level=LEVEL, rng=np.random.default_rng(seed),
    )  # fmt: skip


@pytest.mark.parametrize("hib", [True, False])
@pytest.mark.parametrize("method", ["percentile", "basic", "bca"])
def test_iid_interval_matches_scipy(iid, method, hib):
    a, b, df = iid
    sign = 1.0 if hib else -1.0
    d = sign * (a - b)
    theta = d.mean()
    res = boot(df, higher_is_better=hib, rng=11, n_resamples=B1, method=method)
    ref = scipy_paired(a, b, hib, method, B1, seed=12)
    assert res.improvement == pytest.approx(theta, abs=1e-12)
    assert res.raw_delta == pytest.approx(a.mean() - b.mean(), abs=1e-12)
    assert res.metric_a == pytest.approx(a.mean(), abs=1e-12)
    assert res.sampling == "iid"
    assert res.n_valid == B1

    lib_d, ref_d = res.bootstrap_distribution, ref.bootstrap_distribution
    if method == "percentile":
        se = [np.hypot(quantile_se(lib_d, p), quantile_se(ref_d, p)) for p in (ALPHA, 1 - ALPHA)]
    elif method == "basic":  # low = 2 theta - q_{1-alpha}: the noise of the opposite quantile
        se = [np.hypot(quantile_se(lib_d, p), quantile_se(ref_d, p)) for p in (1 - ALPHA, ALPHA)]
    else:
        acc = dh_acceleration([sign * jackknife_mean_bruteforce(a - b)])
        se = np.hypot(bca_endpoint_se(lib_d, theta, acc), bca_endpoint_se(ref_d, theta, acc))
    ref_ci = [ref.confidence_interval.low, ref.confidence_interval.high]
    assert_within(ci(res), ref_ci, Z * np.asarray(se), f"{method} interval vs scipy")
    # the whole bootstrap distribution agrees with scipy's (same law)
    assert stats.ks_2samp(lib_d, ref_d).pvalue > P_FAIL


@pytest.mark.parametrize("method", ["percentile", "basic", "bca"])
def test_direction_mirrors_interval_exactly(iid, method):
    """Same seed: replicates negate and the interval mirrors (no MC error involved)."""
    _, _, df = iid
    up = boot(df, higher_is_better=True, rng=5, n_resamples=5_000, method=method)
    down = boot(df, higher_is_better=False, rng=5, n_resamples=5_000, method=method)
    scale = up.standard_error
    assert down.improvement == -up.improvement
    assert down.raw_delta == up.raw_delta
    np.testing.assert_allclose(down.bootstrap_distribution, -up.bootstrap_distribution,
                               rtol=0, atol=1e-12 * scale)  # fmt: skip
    np.testing.assert_allclose(ci(down), -ci(up)[::-1], rtol=0, atol=1e-10 * scale)


# ===========================================================================
# 2. standard error
# ===========================================================================
def test_iid_standard_error(iid):
    a, b, df = iid
    d = a - b
    res = boot(df, rng=21, n_resamples=B1)
    ref = scipy_paired(a, b, True, "percentile", B1, seed=22)
    dist = res.bootstrap_distribution
    # definition, as scipy: SD of the replicates with ddof=1
    assert res.standard_error == pytest.approx(np.std(dist, ddof=1), rel=1e-12)
    # vs scipy's independent bootstrap
    tol = Z * np.hypot(sd_se(dist), sd_se(ref.bootstrap_distribution))
    assert_within(res.standard_error, ref.standard_error, tol, "SE vs scipy")
    # vs the ideal bootstrap: Var*(mean*) = var(d, ddof=0) / n exactly
    analytic = d.std(ddof=0) / math.sqrt(d.size)
    assert_within(res.standard_error, analytic, Z * sd_se(dist), "SE vs analytic")
    # E*(mean*) = mean(d) exactly, so the replicates centre on the estimate
    assert_within(dist.mean(), res.improvement, Z * analytic / math.sqrt(dist.size), "mean")


def test_mc_error_model_is_calibrated(iid):
    """The SE formulas used for every tolerance predict the real run-to-run spread.

    K independent seeds at small B; the sample SD over K runs of an endpoint
    has relative sampling error chi_{K-1}/sqrt(K-1), so the ratio of observed
    to predicted spread must lie within the chi quantiles at P_FAIL (a bug
    that makes replicates correlated, or a wrong SE formula, moves it).
    """
    a, b, df = iid
    K, B = 40, 2_000
    cmp = df.paired.compare("A", "B", higher_is_better=True)
    lib = [cmp.bootstrap(rng=1000 + k, n_resamples=B) for k in range(K)]
    ref = [scipy_paired(a, b, True, "percentile", B, seed=2000 + k) for k in range(K)]
    lo_r, hi_r = (math.sqrt(stats.chi2.ppf(q, K - 1) / (K - 1)) for q in (P_FAIL, 1 - P_FAIL))
    pooled = np.concatenate([r.bootstrap_distribution for r in lib])
    for runs, get in ((lib, ci), (ref, lambda r: [r.confidence_interval.low,
                                                   r.confidence_interval.high])):  # fmt: skip
        ends = np.array([get(r) for r in runs])
        for j, p in enumerate((ALPHA, 1 - ALPHA)):
            predicted = math.sqrt(p * (1 - p) / B) / density_at(pooled, p)
            ratio = ends[:, j].std(ddof=1) / predicted
            assert lo_r < ratio < hi_r, (p, ratio)
    ses = np.array([r.standard_error for r in lib])
    ratio = ses.std(ddof=1) / sd_se(pooled[:B])
    assert lo_r < ratio < hi_r, ratio
    # BCa endpoints: the delta-method SE (bias-correction noise included)
    d = a - b
    acc = dh_acceleration([jackknife_mean_bruteforce(d)])
    bca = [cmp.bootstrap(rng=3000 + k, n_resamples=B, method="bca") for k in range(K)]
    ends = np.array([ci(r) for r in bca])
    predicted = np.mean([bca_endpoint_se(r.bootstrap_distribution, d.mean(), acc) for r in bca], 0)
    ratio = ends.std(0, ddof=1) / predicted
    assert np.all((lo_r < ratio) & (ratio < hi_r)), ratio


# ===========================================================================
# 3. BCa acceleration
# ===========================================================================
def test_bca_exact_given_replicates_iid(iid):
    """pdpaired's BCa = Efron's BCa (scipy's conventions) with a brute-force
    jackknife, applied to pdpaired's own replicates: no MC error at all."""
    a, b, df = iid
    for hib in (True, False):
        sign = 1.0 if hib else -1.0
        d = sign * (a - b)
        res = boot(df, higher_is_better=hib, rng=31, n_resamples=10_000, method="bca")
        acc = dh_acceleration([jackknife_mean_bruteforce(d)])
        assert abs(acc) > 0.03  # skewed data: the acceleration matters here
        expected = bca_from_dist(res.bootstrap_distribution, d.mean(), acc)
        np.testing.assert_allclose(ci(res), expected, rtol=0, atol=1e-10 * res.standard_error)


def test_bca_large_B_matches_scipy_and_has_power(iid):
    a, b, df = iid
    d = a - b
    B = 100_000
    res = boot(df, rng=41, n_resamples=B, method="bca")
    ref = stats.bootstrap((a, b), lambda x, y, axis: x.mean(axis) - y.mean(axis), paired=True,
                          vectorized=True, method="BCa", n_resamples=B, batch=10_000,
                          rng=np.random.default_rng(42))  # fmt: skip
    acc = dh_acceleration([jackknife_mean_bruteforce(d)])
    se = np.hypot(bca_endpoint_se(res.bootstrap_distribution, d.mean(), acc),
                  bca_endpoint_se(ref.bootstrap_distribution, d.mean(), acc))  # fmt: skip
    ref_ci = [ref.confidence_interval.low, ref.confidence_interval.high]
    assert_within(ci(res), ref_ci, Z * se, "BCa vs scipy (B=1e5)")
    # power: with the acceleration dropped (a = 0.039 here) both endpoints move
    # by more than the tolerance (about 5-6 SE), so this MC comparison would
    # notice a missing acceleration; the sharp check of the acceleration is
    # test_bca_exact_given_replicates_iid, which has no MC error.
    no_acc = bca_from_dist(res.bootstrap_distribution, d.mean(), 0.0)
    assert np.all(np.abs(no_acc - ci(res)) > Z * se)


def _cluster_theta_minus(d, group, weighting):
    """Leave-one-group-out estimates, recomputed from the raw cases."""
    out = []
    for g in np.unique(group):
        keep = group != g
        if weighting == "item":
            out.append(d[keep].mean())
        else:
            out.append(mean_of_group_means(d[keep], group[keep]))
    return np.array(out)


@pytest.mark.parametrize("weighting", ["item", "group"])
def test_cluster_bca_vs_own_cluster_bca(cluster, weighting):
    a, b, group, df = cluster
    d = a - b
    theta = d.mean() if weighting == "item" else mean_of_group_means(d, group)
    acc = dh_acceleration([_cluster_theta_minus(d, group, weighting)])
    assert abs(acc) > 0.02

    B = 50_000
    res = boot(df, rng=51, n_resamples=B, method="bca", weighting=weighting)
    assert res.sampling == "cluster"
    assert res.unit == "group"
    assert res.n_groups == 40
    assert res.improvement == pytest.approx(theta, abs=1e-12)
    lib_d = res.bootstrap_distribution
    # exact given replicates: the library's closed-form group jackknife == brute force
    df_design = 40 - 1  # small-sample correction: design degrees of freedom G - 1
    np.testing.assert_allclose(ci(res), bca_from_dist(lib_d, theta, acc, df=df_design), rtol=0,
                               atol=1e-10 * res.standard_error)  # fmt: skip
    # within MC error of a fully independent (Rao-Wu rescaled) cluster BCa
    own_d = own_cluster_boot(d, group, B, seed=52, weighting=weighting)
    own = bca_from_dist(own_d, theta, acc, df=df_design)
    se = np.hypot(bca_endpoint_se(lib_d, theta, acc, df_design),
                  bca_endpoint_se(own_d, theta, acc, df_design))  # fmt: skip
    assert_within(ci(res), own, Z * se, f"cluster BCa ({weighting})")
    # an iid-case jackknife would give a different acceleration (power check)
    wrong = bca_from_dist(lib_d, theta, dh_acceleration([jackknife_mean_bruteforce(d)]),
                          df=df_design)  # fmt: skip
    assert np.any(np.abs(wrong - ci(res)) > Z * se)


def test_stratified_bca_vs_scipy_multisample(strat):
    """scipy's unpaired multi-sample bootstrap resamples each sample within
    itself, and its BCa acceleration sums U^3/n^3 over samples: exactly the
    stratified design and Davison & Hinkley's formula."""
    a, b, stratum, weights, df = strat
    d = a - b
    hs = list(weights)
    w = np.array([weights[h] for h in hs])
    samples = tuple(d[stratum == h] for h in hs)
    theta = sum(wi * s.mean() for wi, s in zip(w, samples, strict=True))

    def stat(*xs, axis):  # each stratum's mean Rao-Wu rescaled around its estimate
        return sum(wi * rao_wu(x.mean(axis), s.mean(), s.size)
                   for wi, x, s in zip(w, xs, samples, strict=True))  # fmt: skip

    df_design = sum(s.size - 1 for s in samples)
    B = 50_000
    res = boot(df, rng=61, n_resamples=B, method="bca", stratum_weights=weights)
    ref = stats.bootstrap(samples, stat, paired=False, vectorized=True, method="BCa",
                          n_resamples=B, batch=10_000, rng=np.random.default_rng(62))  # fmt: skip
    # brute-force stratified jackknife: drop one case from its stratum, weights fixed
    theta_minus = []
    for j, s in enumerate(samples):
        rest = theta - w[j] * s.mean()
        theta_minus.append(rest + w[j] * jackknife_mean_bruteforce(s))
    acc = dh_acceleration(theta_minus)
    lib_d = res.bootstrap_distribution
    np.testing.assert_allclose(ci(res), bca_from_dist(lib_d, theta, acc, df=df_design), rtol=0,
                               atol=1e-10 * res.standard_error)  # fmt: skip
    ref_d = ref.bootstrap_distribution
    se = np.hypot(bca_endpoint_se(lib_d, theta, acc, df_design),
                  bca_endpoint_se(ref_d, theta, acc, df_design))  # fmt: skip
    # scipy resamples (its own BCa levels have no design-df expansion, so the
    # interval is recomputed from its replicates with the expanded levels)
    ref_ci = bca_from_dist(ref_d, theta, acc, df=df_design)
    assert_within(ci(res), ref_ci, Z * se, "stratified BCa vs scipy")
    assert stats.ks_2samp(lib_d, ref.bootstrap_distribution).pvalue > P_FAIL


def test_stratified_cluster_bca_exact_given_replicates(strat_cluster):
    a, b, group, stratum, weights, df = strat_cluster
    d = a - b

    def estimate(keep):
        return sum(w * d[keep & (stratum == h)].mean() for h, w in weights.items())

    everything = np.ones(d.size, bool)
    theta = estimate(everything)
    theta_minus = [[estimate(group != g) for g in np.unique(group[stratum == h])] for h in weights]
    acc = dh_acceleration(theta_minus)
    res = boot(df, rng=71, n_resamples=10_000, method="bca", stratum_weights=weights)
    assert res.sampling == "stratified-cluster"
    assert res.improvement == pytest.approx(theta, abs=1e-12)
    df_design = sum(len(t) - 1 for t in theta_minus)
    np.testing.assert_allclose(ci(res),
                               bca_from_dist(res.bootstrap_distribution, theta, acc, df=df_design),
                               rtol=0, atol=1e-10 * res.standard_error)  # fmt: skip


# ===========================================================================
# 4. cluster bootstrap vs own implementation
# ===========================================================================
@pytest.mark.parametrize("weighting", ["item", "group"])
def test_cluster_se_and_percentile_vs_own(cluster, weighting):
    a, b, group, df = cluster
    d = a - b
    res = boot(df, rng=81, n_resamples=B1, weighting=weighting)
    own_d = own_cluster_boot(d, group, B1, seed=82, weighting=weighting)
    lib_d = res.bootstrap_distribution
    theta = d.mean() if weighting == "item" else mean_of_group_means(d, group)
    assert res.improvement == pytest.approx(theta, abs=1e-12)

    assert_within(res.standard_error, own_d.std(ddof=1),
                  Z * np.hypot(sd_se(lib_d), sd_se(own_d)), "cluster SE")  # fmt: skip
    p_lo = tail(df=39)  # G - 1 design degrees of freedom
    se = [np.hypot(quantile_se(lib_d, p), quantile_se(own_d, p)) for p in (p_lo, 1 - p_lo)]
    assert_within(ci(res), percentile_interval(own_d, df=39), Z * np.asarray(se),
                  "cluster percentile")  # fmt: skip
    assert stats.ks_2samp(lib_d, own_d).pvalue > P_FAIL
    if weighting == "group":
        # mean of G iid draws of the group means, Rao-Wu rescaled: the ideal
        # bootstrap variance is the unbiased s**2 / G (ddof=1), not (G-1)/G of it
        gm = pd.Series(d).groupby(group).mean().to_numpy()
        analytic = gm.std(ddof=1) / math.sqrt(gm.size)
        assert_within(res.standard_error, analytic, Z * sd_se(lib_d), "group-weighted SE")
        assert_within(lib_d.mean(), theta, Z * analytic / math.sqrt(B1), "group-weighted mean")


def test_cluster_se_exceeds_naive_iid_se(cluster):
    """Intra-group correlation: the iid bootstrap (unit='case') understates the SE."""
    a, b, group, df = cluster
    d = a - b
    clu = boot(df, rng=91, n_resamples=B1)
    naive = boot(df, rng=92, n_resamples=B1, unit="case")
    assert clu.unit == "group"
    assert naive.unit == "case"
    assert naive.sampling == "iid"
    # the naive one is exactly the iid bootstrap: matches sd(d)/sqrt(n) ...
    iid_analytic = d.std(ddof=0) / math.sqrt(d.size)
    assert_within(naive.standard_error, iid_analytic, Z * sd_se(naive.bootstrap_distribution),
                  "naive SE")  # fmt: skip
    # ... and the cluster SE is far larger: the linearised (ratio-estimator)
    # cluster SE sqrt(sum_g (S_g - r C_g)^2) / N is ~3x the iid one for these data.
    # The MC error of each SE is < 1%, so a factor 2 is unambiguous.
    sums = pd.Series(d).groupby(group).sum()
    counts = pd.Series(d).groupby(group).size()
    lin = math.sqrt(((sums - d.mean() * counts) ** 2).sum()) / d.size
    assert lin > 2.5 * iid_analytic  # property of the data set (not of pdpaired)
    assert clu.standard_error > 2 * naive.standard_error
    assert clu.standard_error == pytest.approx(lin, rel=0.15)  # linearisation is O(1/G) accurate


# ===========================================================================
# 5. stratified
# ===========================================================================
def test_stratified_point_and_se(strat):
    a, b, stratum, weights, df = strat
    d = a - b
    hs = list(weights)
    res = boot(df, rng=101, n_resamples=B1, stratum_weights=weights)
    assert res.sampling == "stratified"
    expected = sum(weights[h] * d[stratum == h].mean() for h in hs)
    assert abs(res.improvement - expected) <= 1e-12
    assert abs(res.metric_a - sum(weights[h] * a[stratum == h].mean() for h in hs)) <= 1e-12
    assert abs(res.metric_b - sum(weights[h] * b[stratum == h].mean() for h in hs)) <= 1e-12
    assert abs(expected - d.mean()) > 0.1  # the weights really differ from the observed shares

    lib_d = res.bootstrap_distribution
    own_d = own_strat_boot(d, stratum, weights, B1, seed=102)
    # Rao-Wu rescaled: exactly the unbiased stratified variance (ddof=1)
    analytic = math.sqrt(sum(weights[h] ** 2 * d[stratum == h].var(ddof=1) / (stratum == h).sum()
                             for h in hs))  # fmt: skip
    df_design = len(d) - len(hs)
    assert_within(res.standard_error, analytic, Z * sd_se(lib_d), "stratified SE vs analytic")
    assert_within(res.standard_error, own_d.std(ddof=1), Z * np.hypot(sd_se(lib_d), sd_se(own_d)),
                  "stratified SE vs own")  # fmt: skip
    assert_within(lib_d.mean(), expected, Z * analytic / math.sqrt(B1), "stratified mean")
    p_lo = tail(df_design)
    se = [np.hypot(quantile_se(lib_d, p), quantile_se(own_d, p)) for p in (p_lo, 1 - p_lo)]
    assert_within(ci(res), percentile_interval(own_d, df_design), Z * np.asarray(se),
                  "stratified percentile")  # fmt: skip
    assert stats.ks_2samp(lib_d, own_d).pvalue > P_FAIL
    # default weights are the observed shares: estimate is the plain mean
    dflt = boot(df, rng=103, n_resamples=1_000)
    assert abs(dflt.improvement - d.mean()) <= 1e-12


def test_stratified_cluster_item_and_group(strat_cluster):
    a, b, group, stratum, weights, df = strat_cluster
    d = a - b
    # item weighting: sum_h w_h * (item mean in h); own stratified cluster bootstrap
    res = boot(df, rng=111, n_resamples=B1, stratum_weights=weights)
    expected = sum(w * d[stratum == h].mean() for h, w in weights.items())
    assert abs(res.improvement - expected) <= 1e-12
    lib_d = res.bootstrap_distribution
    own_d = own_strat_boot(d, stratum, weights, B1, seed=112, group=group)
    assert_within(res.standard_error, own_d.std(ddof=1), Z * np.hypot(sd_se(lib_d), sd_se(own_d)),
                  "stratified-cluster SE")  # fmt: skip
    df_design = 25 + 10 + 5 - 3  # groups minus strata
    p_lo = tail(df_design)
    se = [np.hypot(quantile_se(lib_d, p), quantile_se(own_d, p)) for p in (p_lo, 1 - p_lo)]
    assert_within(ci(res), percentile_interval(own_d, df_design), Z * np.asarray(se),
                  "stratified-cluster percentile")  # fmt: skip
    assert stats.ks_2samp(lib_d, own_d).pvalue > P_FAIL

    # group weighting: sum_h w_h * mean of group means in h; exact ideal moments
    res_g = boot(df, rng=113, n_resamples=B1, stratum_weights=weights, weighting="group")
    gm = {h: pd.Series(d[stratum == h]).groupby(group[stratum == h]).mean().to_numpy()
          for h in weights}  # fmt: skip
    expected_g = sum(w * gm[h].mean() for h, w in weights.items())
    analytic = math.sqrt(sum(w**2 * gm[h].var(ddof=1) / gm[h].size for h, w in weights.items()))
    assert abs(res_g.improvement - expected_g) <= 1e-12
    assert_within(res_g.standard_error, analytic, Z * sd_se(res_g.bootstrap_distribution),
                  "stratified-cluster group-weighted SE")  # fmt: skip
    assert_within(res_g.bootstrap_distribution.mean(), expected_g, Z * analytic / math.sqrt(B1),
                  "stratified-cluster group-weighted mean")  # fmt: skip


# ===========================================================================
# 6. 0/1 scores (multinomial shortcut)
# ===========================================================================
def exact_binary_boot_pmf(d):
    """Exact ideal-bootstrap law of sum(d*) for d in {-1, 0, 1}, n draws.

    (N_-1, N_0, N_1) ~ Multinomial(n, p); M = N_1 + N_-1 ~ Bin(n, p_1 + p_-1),
    N_1 | M ~ Bin(M, p_1 / (p_1 + p_-1)), sum = 2 N_1 - M.
    """
    n = d.size
    p1, pm = np.mean(d == 1), np.mean(d == -1)
    pmf = np.zeros(2 * n + 1)  # index s + n
    m = np.arange(n + 1)
    pm_m = stats.binom.pmf(m, n, p1 + pm)
    r = p1 / (p1 + pm)
    for mm in range(n + 1):
        k = np.arange(mm + 1)
        np.add.at(pmf, 2 * k - mm + n, pm_m[mm] * stats.binom.pmf(k, mm, r))
    return np.arange(-n, n + 1), pmf


@pytest.fixture(scope="module")
def binary():
    rng = np.random.default_rng(5150)
    n = 300
    u = rng.uniform(size=n)
    b = (rng.uniform(size=n) < 0.6).astype(float)
    a = b.copy()
    a[(u < 0.15)] = 1.0  # A fixes some of B's failures ...
    a[(u > 0.92)] = 0.0  # ... and breaks some of B's successes
    return a, b, long_frame(a, b, seed=6)


@pytest.mark.parametrize("hib", [True, False])
def test_binary_scores_exact_law(binary, hib):
    a, b, df = binary
    sign = 1.0 if hib else -1.0
    d = sign * (a - b)
    n = d.size
    B = B1
    res = boot(df, higher_is_better=hib, rng=121, n_resamples=B)
    assert res.engine == "multinomial"  # the shortcut under test is really used
    ref = scipy_paired(a, b, hib, "percentile", B, seed=122)
    lib_d = res.bootstrap_distribution
    support, pmf = exact_binary_boot_pmf(d)
    cdf = np.cumsum(pmf)

    # replicates lie on the lattice k/n and follow the exact law (chi-square GOF)
    k = np.rint(lib_d * n)
    np.testing.assert_allclose(lib_d * n, k, atol=1e-9)
    observed = np.bincount((k + n).astype(int), minlength=2 * n + 1)
    expected = pmf * B
    keep = expected >= 5  # pool the tails into one bin each
    lo_i, hi_i = np.argmax(keep), len(keep) - np.argmax(keep[::-1]) - 1
    obs = np.r_[observed[:lo_i].sum(), observed[lo_i : hi_i + 1], observed[hi_i + 1 :].sum()]
    exp = np.r_[expected[:lo_i].sum(), expected[lo_i : hi_i + 1], expected[hi_i + 1 :].sum()]
    exp *= obs.sum() / exp.sum()  # remove the negligible mass lost to float rounding
    assert stats.chisquare(obs, exp).pvalue > P_FAIL

    # moments: exact mean and SE of the ideal bootstrap
    exact_se = d.std(ddof=0) / math.sqrt(n)
    assert res.improvement == pytest.approx(d.mean(), abs=1e-12)
    assert_within(lib_d.mean(), res.improvement, Z * exact_se / math.sqrt(B), "0/1 mean")
    assert_within(res.standard_error, exact_se, Z * sd_se(lib_d), "0/1 SE")

    # percentile endpoints: the ideal quantile is the lattice point s*/n where the
    # exact CDF crosses p.  If the CDF is more than Z MC-SEs (+2/B for the
    # interpolation neighbours) away from p on both sides of s*, every sample
    # quantile from B draws equals s*/n exactly; otherwise it may sit one
    # lattice step away.  The same holds for scipy.
    for j, p in enumerate((ALPHA, 1 - ALPHA)):
        i = int(np.searchsorted(cdf, p))
        ideal = support[i] / n
        margin = min(cdf[i] - p, p - cdf[i - 1])
        tol = 1e-12 if margin > Z * math.sqrt(p * (1 - p) / B) + 2 / B else 1 / n + 1e-12
        assert abs(ci(res)[j] - ideal) <= tol, (p, ci(res)[j], ideal, margin)
        ref_end = [ref.confidence_interval.low, ref.confidence_interval.high][j]
        assert abs(ref_end - ideal) <= tol  # the oracle's own check
        assert abs(ci(res)[j] - ref_end) <= tol


def test_binary_stratified_multinomial():
    rng = np.random.default_rng(6060)
    sizes = {"s0": 500, "s1": 120, "s2": 60}
    rates = {"s0": (0.10, 0.05), "s1": (0.25, 0.05), "s2": (0.05, 0.20)}
    a_l, b_l, s_l = [], [], []
    for h, n_h in sizes.items():
        b = (rng.uniform(size=n_h) < 0.5).astype(float)
        a = b.copy()
        u = rng.uniform(size=n_h)
        a[u < rates[h][0]] = 1.0
        a[u > 1 - rates[h][1]] = 0.0
        a_l.append(a), b_l.append(b), s_l.append([h] * n_h)
    a, b, stratum = np.concatenate(a_l), np.concatenate(b_l), np.concatenate(s_l)
    weights = {"s0": 0.3, "s1": 0.3, "s2": 0.4}
    df = long_frame(a, b, seed=7, stratum=stratum)
    res = boot(df, rng=131, n_resamples=B1, stratum_weights=weights)
    assert res.engine == "multinomial"
    d = a - b
    expected = sum(w * d[stratum == h].mean() for h, w in weights.items())
    analytic = math.sqrt(sum(w**2 * d[stratum == h].var(ddof=0) / sizes[h]
                             for h, w in weights.items()))  # fmt: skip
    lib_d = res.bootstrap_distribution
    assert abs(res.improvement - expected) <= 1e-12
    assert_within(lib_d.mean(), expected, Z * analytic / math.sqrt(B1), "stratified 0/1 mean")
    assert_within(res.standard_error, analytic, Z * sd_se(lib_d), "stratified 0/1 SE")
    own_d = own_strat_boot(d, stratum, weights, B1, seed=132)
    # KS on discrete data is conservative, so P_FAIL still bounds the false-fail rate
    assert stats.ks_2samp(lib_d, own_d).pvalue > P_FAIL
