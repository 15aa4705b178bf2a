"""The paired bootstrap's intervals against independent oracles: scipy, exact
enumeration, closed forms; its pieces (BCa acceleration, sparsity, Tango),
decisions from sparse or degenerate data, and the small-sample correction."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from scipy.special import ndtr, ndtri
from statsmodels.regression.quantile_regression import hall_sheather

import pdpaired
from pdpaired import DegenerateDataWarning
from pdpaired.core.bootstrap import (
    DesignResampler,
    Levels,
    acceleration,
    bootstrap_replicates,
    endpoint_se,
    expanded_alpha,
    few_units_message,
    interval,
    sparsity,
    tango_interval,
    tango_statistic,
)
from pdpaired.core.engine import Design, finalize, fixed_point
from pdpaired.core.engine import rao_wu as rao_wu_small_sample_correction
from pdpaired.results.base import ConfidenceInterval

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


def satterthwaite_df(d, stratum, weights, group=None):
    """Effective df of the stratified (cluster) mean's variance, written out.

    Each stratum's share of the variance is ``w**2 s**2 / n`` (cases), or for
    clusters the ratio estimator's linearization ``w**2 sum z**2 / (G (G - 1)
    cbar**2)`` with ``z = cluster sum - r * cluster size``; the df is Welch's
    (1947) ``(sum a)**2 / sum (a**2 / (G + 1)) - 2``, clipped to
    ``[min (G - 1), sum (G - 1)]``.
    """
    shares, sizes = [], []
    for h, w in weights.items():
        x = d[stratum == h]
        if group is None:
            shares.append(w**2 * x.var(ddof=1) / x.size)
            sizes.append(x.size)
            continue
        by = pd.Series(x).groupby(group[stratum == h])
        tot, size = by.sum().to_numpy(), by.size().to_numpy()
        z = tot - tot.sum() / size.sum() * size
        g = tot.size
        shares.append(w**2 * np.sum(z**2) / (g * (g - 1) * size.mean() ** 2))
        sizes.append(g)
    a, g = np.asarray(shares), np.asarray(sizes, dtype=float)
    df = a.sum() ** 2 / np.sum(a**2 / (g + 1)) - 2
    return float(min(max(df, np.min(g - 1)), np.sum(g - 1)))


def percentile_interval(dist, df=None):
    alpha = tail(df)
    return np.percentile(dist, [100 * alpha, 100 * (1 - alpha)])


def boot(df, **kw):
    """The bootstrap of the named interval methods (percentile unless given; "auto" is
    tested in tests/core/test_auto.py)."""
    kw.setdefault("higher_is_better", True)
    kw.setdefault("method", "percentile")
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
    lib = [cmp.bootstrap(rng=1000 + k, n_resamples=B, method="percentile") for k in range(K)]
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

    df_design = satterthwaite_df(d, stratum, weights)
    assert df_design < sum(s.size - 1 for s in samples)  # unequal variances: fewer
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
    df_design = satterthwaite_df(d, stratum, weights, group)
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
    df_design = satterthwaite_df(d, stratum, weights)
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
    df_design = satterthwaite_df(d, stratum, weights, group)
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


def long_table(a: np.ndarray, b: np.ndarray) -> pd.DataFrame:
    n = len(a)
    return pd.DataFrame({"case_id": np.tile(np.arange(n), 2), "model": np.repeat(["A", "B"], n),
                         "score": np.concatenate([a, b]).astype(float)})  # fmt: skip


def binary_table(a_only: int, b_only: int, ties: int) -> pd.DataFrame:
    """0/1 scores: ``a_only`` cases only A passes, ``b_only`` only B, ``ties`` both fail."""
    a = np.r_[np.ones(a_only), np.zeros(b_only + ties)]
    b = np.r_[np.zeros(a_only), np.ones(b_only), np.zeros(ties)]
    return long_table(a, b)


def one_stratum(values: np.ndarray) -> Design:
    return Design(
        value=np.asarray(values, dtype=np.float64),
        count=None,
        unit_ptr=np.array([0, len(values)]),
        weight=np.array([1.0]),
        sign=1.0,
    )


# ---------------------------------------------------------------------------
# acceleration: Davison & Hinkley's stratified form, written out over units
# ---------------------------------------------------------------------------
def dh_acceleration_interval_pieces(theta: np.ndarray, stratum: np.ndarray, w: np.ndarray) -> float:
    """``sum_h n_h^-3 sum_j l^3 / (6 (sum_h n_h^-2 sum_j l^2)^1.5)``, ``l = (n_h - 1)(mean_h -
    theta_hj)``, each entry counted ``w`` times; float64 throughout, exact integer weights."""
    num = den = 0.0
    for h in np.unique(stratum):
        t, f = theta[stratum == h], w[stratum == h].astype(np.float64)
        n_h = math.fsum(f)
        l_hj = (n_h - 1) * (math.fsum(t * f) / n_h - t)
        num += math.fsum(f * l_hj**3) / n_h**3
        den += math.fsum(f * l_hj**2) / n_h**2
    return float(num / (6 * den**1.5))


# ---------------------------------------------------------------------------
# sparsity: Hall & Sheather's bandwidth, and its widening on atoms
# ---------------------------------------------------------------------------
def linear_quantile(sorted_x: np.ndarray, p: float) -> float:
    """numpy's default ("linear") quantile, written out: interpolate at index p (n - 1)."""
    return float(np.interp(p * (sorted_x.size - 1), np.arange(sorted_x.size), sorted_x))


# ---------------------------------------------------------------------------
# The exact check of 0/1 scores, and the score methods' path through the loop
# ---------------------------------------------------------------------------
def exact_note(a_only: int, b_only: int, level: float, interval_excludes: bool) -> str:
    """The documented note, assembled here; p from scipy's binomtest."""
    p = stats.binomtest(a_only, a_only + b_only, 0.5).pvalue
    at = f"at the {100 * (1 - level):g}% level"
    said = (f"it does not exclude a difference of 0 {at}, while the interval does"
            if interval_excludes else
            f"it excludes a difference of 0 {at}, while the interval does not")  # fmt: skip
    return (
        f"The exact binomial test on the {a_only + b_only} discordant pairs ({a_only} won by "
        f"A, {b_only} by B) gives p = {p:.3g}: {said}. With few discordant pairs the exact "
        "test is the one to trust (cmp.exact_binomial()); the bootstrap interval of a "
        "difference of 0/1 scores is unreliable there."
    )


# ---------------------------------------------------------------------------
# The shared loop with a hand-made Resampler
# ---------------------------------------------------------------------------
class FixedResampler:
    """Returns given replicates; its acceleration can be impossible."""

    def __init__(self, reps: np.ndarray, theta: float, accel_fails: bool = False) -> None:
        self.reps, self.t, self.accel_fails = reps, theta, accel_fails
        self.accel_calls = 0

    def singleton_warning(self) -> str | None:
        return None

    def replicates(
        self, n_resamples: int, seed_sequence: np.random.SeedSequence, batch: int | None
    ) -> tuple[np.ndarray, str]:
        return self.reps[:n_resamples].copy(), "numpy"

    def theta(self) -> float:
        return self.t

    def acceleration(self) -> float:
        self.accel_calls += 1
        if self.accel_fails:
            raise ValueError("no jackknife for this statistic")
        return 0.0

    def undefined(self, n_dropped: int, n_resamples: int) -> str:
        return f"{n_dropped} of {n_resamples} replicates undefined"


def run(r: FixedResampler, method: str, n: int = 1_000) -> pdpaired.core.bootstrap.BootstrapCore:
    return bootstrap_replicates(r, r.t, n_resamples=n, confidence_level=0.95, method=method,
                                seed_sequence=np.random.SeedSequence(0), batch=None)  # fmt: skip


class TestIntervalPieces:
    """The pieces of the bootstrap intervals, each against an oracle written here.

    Each test checks a value of the bootstrap module against an oracle written
    here: scipy (``scipy.stats.bootstrap``'s BCa interval, ``binomtest``),
    statsmodels' Hall-Sheather bandwidth, the delta-method variance of a BCa
    endpoint derived in the test, Tango's (1998) interval in closed form for an
    all-discordant table and by numerical likelihood maximization
    (``tango_by_optimization``, as in tests/core/test_bootstrap.py), Davison & Hinkley's stratified
    acceleration written out over the units, and the documented warning texts.
    """

    def test_acceleration_sums_float32_counts_in_float64(self) -> None:
        """Counts in a float32 array are summed in float64 when equal entries are merged:
        2**24 + 1 is not a float32, so summing in float32 loses a unit."""
        theta = np.array([0.5, 0.5, 0.1, 0.9])
        counts = np.array([2**24, 1, 3, 5], dtype=np.float32)
        assert np.float32(2**24) + np.float32(1) == np.float32(2**24)  # the trap
        sizes = np.array([2**24 + 9])
        got = acceleration(theta, np.zeros(4, dtype=np.int64), sizes, counts)
        assert got == pytest.approx(
            dh_acceleration_interval_pieces(theta, np.zeros(4), counts), rel=1e-10
        )

    def test_acceleration_does_not_depend_on_how_units_are_grouped(self) -> None:
        """The docstring's promise, bit for bit: units repeated one by one, the same units
        as (value, count) entries, and a shuffle of the units give the same ``a`` — also in a
        stratum other than the first (equal entries of stratum 1 must be merged too)."""
        t0 = np.array([0.126, -0.132, 0.64, 0.105])  # stratum 0: four distinct units
        t1 = np.array([-0.536, 0.362, 1.304])  # stratum 1: values repeated 5, 4 and 4 times
        k = np.array([5, 4, 4])
        theta = np.r_[t0, np.repeat(t1, k)]
        stratum = np.r_[np.zeros(4, np.int64), np.ones(13, np.int64)]
        sizes = np.array([4, 13])
        # values found by search: summed one unit at a time instead of merged (value, count)
        # entries, these give an ``a`` that differs in the last bits from the grouped form
        one_by_one = acceleration(theta, stratum, sizes)
        grouped = acceleration(np.r_[t0, t1], np.r_[np.zeros(4, np.int64), np.ones(3, np.int64)],
                               sizes, np.r_[np.ones(4), k].astype(np.float64))  # fmt: skip
        perm = np.random.default_rng(0).permutation(theta.size)
        shuffled = acceleration(theta[perm], stratum[perm], sizes)
        assert one_by_one == grouped == shuffled
        assert one_by_one == pytest.approx(
            dh_acceleration_interval_pieces(theta, stratum, np.ones(17)), rel=1e-12
        )

    # ---------------------------------------------------------------------------
    # endpoint_se: the delta-method variance of a BCa endpoint
    # ---------------------------------------------------------------------------
    @pytest.mark.parametrize(("z0", "acc"), [(0.3, 0.05), (-0.4, -0.08), (0.15, 0.0)])
    def test_bca_endpoint_se_is_the_delta_method(self, z0: float, acc: float) -> None:
        """A BCa endpoint is ``Q(L(s))`` with ``s`` the share of replicates below the estimate
        and ``L(s) = Phi(z0 + (z0 + z) / (1 - a (z0 + z)))``, ``z0 = Phi^-1(s)``. Linearising
        ``F(q_hat) - L = L' (s_hat - s) - (F_hat(q) - F(q))`` with ``B Cov(s_hat, F_hat(q)) =
        min(s, L) - s L`` gives ``B Var F(q_hat) = L'^2 s (1 - s) + L (1 - L) - 2 L' (min(L, s)
        - L s)``; a percentile endpoint at the same level has ``L (1 - L)``. The SE ratio is
        the square root of the ratio (the sparsity cancels). ``L'`` by a central difference."""
        alpha = 0.025
        s = stats.norm.cdf(z0)

        def level(share: float, za: float) -> float:
            z = stats.norm.ppf(share)
            return float(stats.norm.cdf(z + (z + za) / (1 - acc * (z + za))))

        za = stats.norm.ppf([alpha, 1 - alpha])
        levels = np.array([level(s, z) for z in za])
        dist = np.sort(np.random.default_rng(1).gamma(3.0, 1.0, 4_000))
        bca = endpoint_se(dist, Levels("bca", levels, alpha, z0, acc))
        pct = endpoint_se(dist, Levels("percentile", levels, alpha))
        for got, ref, za_i, lv in zip((bca.low, bca.high), (pct.low, pct.high), za, levels,
                                      strict=True):  # fmt: skip
            eps = 1e-6
            dl = (level(s + eps, za_i) - level(s - eps, za_i)) / (2 * eps)
            var = dl**2 * s * (1 - s) + lv * (1 - lv) - 2 * dl * (min(lv, s) - lv * s)
            assert got / ref == pytest.approx(math.sqrt(var / (lv * (1 - lv))), rel=1e-6)

    @pytest.mark.parametrize("p", [0.025, 0.1, 0.5, 0.9, 0.975])
    def test_sparsity_uses_the_hall_sheather_bandwidth(self, p: float) -> None:
        """Quantile function ``x**3`` (curved, so the difference quotient depends on ``h``:
        about ``3 p**2 + h**2``); ``h`` from statsmodels' ``hall_sheather`` (Koenker's
        ``bandwidth.rq(hs=TRUE)``, alpha = 0.05)."""
        n = 1_000
        x = ((np.arange(n) + 0.5) / n) ** 3
        h = hall_sheather(n, p)
        assert h > 1 / n  # no clipping, no widening here
        assert p - h > 0
        assert p + h < 1
        ref = (linear_quantile(x, p + h) - linear_quantile(x, p - h)) / (2 * h)
        assert sparsity(x, p) == pytest.approx(ref, rel=1e-10)

    def test_sparsity_window_doubles_until_it_leaves_an_atom(self) -> None:
        """Two atoms, 500 zeros and 500 ones: the linear quantile is 0 up to 499/999 and 1
        from 500/999 on. At p = 0.25 the Hall-Sheather window (h0 = 0.067) and its double
        lie inside the zeros; doubled twice it reaches the ones: lo = 0, hi = 0.25 + 4 h0."""
        n, p = 1_000, 0.25
        x = np.r_[np.zeros(500), np.ones(500)]
        h0 = hall_sheather(n, p)
        assert p + 2 * h0 < 499 / 999
        assert p + 4 * h0 > 500 / 999
        assert p - 4 * h0 < 0
        assert sparsity(x, p) == pytest.approx(1.0 / (p + 4 * h0), rel=1e-12)

    # ---------------------------------------------------------------------------
    # interval: scipy's BCa with ties at the estimate; Levels of a collapsed interval
    # ---------------------------------------------------------------------------
    def test_bca_counts_replicates_tied_with_the_estimate_half(self) -> None:
        """scipy.stats.bootstrap's BCa on 0/1 differences (a lattice: many replicates equal
        the estimate exactly): fed scipy's replicates and the jackknife acceleration written
        out here, the interval is scipy's."""
        d = np.r_[np.ones(7), -np.ones(3), np.zeros(20)]
        res = stats.bootstrap((d,), np.mean, method="BCa", n_resamples=2_000,
                              rng=np.random.default_rng(0))  # fmt: skip
        dist = res.bootstrap_distribution
        assert np.count_nonzero(dist == d.mean()) > 100  # the ties the convention is about
        loo = (d.sum() - d) / (d.size - 1)
        u = (d.size - 1) * (loo.mean() - loo)
        a = float(np.sum(u**3) / (6 * np.sum(u**2) ** 1.5))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            ci, _, degenerate = interval(
                dist,
                d.mean(),
                method="bca",
                confidence_level=0.95,
                theta=lambda: float(d.mean()),
                accel=lambda: a,
            )
        assert not degenerate
        assert ci.low == pytest.approx(res.confidence_interval.low, abs=1e-12)
        assert ci.high == pytest.approx(res.confidence_interval.high, abs=1e-12)

    @pytest.mark.parametrize("df", [None, 4])
    def test_collapsed_interval_reports_its_tail_level(self, df: int | None) -> None:
        """Identical replicates: the Levels still carry the tail level, ``Phi(t_df(alpha))``
        with the small-sample correction (scipy's t and normal)."""
        alpha = 0.05 / 2
        expected = alpha if df is None else stats.norm.cdf(stats.t.ppf(alpha, df))
        with pytest.warns(DegenerateDataWarning, match="identical"):
            ci, _, degenerate, lv = interval(
                np.full(50, 0.3), 0.3, method="percentile", confidence_level=0.95,
                theta=lambda: 0.3, accel=lambda: 0.0, df=df, details=True,
            )  # fmt: skip
        assert degenerate
        assert (ci.low, ci.high) == (0.3, 0.3)
        assert lv.alpha == pytest.approx(expected, rel=1e-12)
        np.testing.assert_allclose(lv.levels, [expected, 1 - expected], rtol=1e-12)

    # ---------------------------------------------------------------------------
    # Tango's score interval and statistic
    # ---------------------------------------------------------------------------
    @pytest.mark.parametrize("n", [5, 10, 40])
    def test_tango_when_every_pair_is_won_by_one_model(self, n: int) -> None:
        """b = n, c = 0: the constrained MLE puts all mass on the discordant cells,
        q = (1 - delta) / 2, so Z = sqrt(n (1 - delta) / (1 + delta)) and Z = z at
        delta = (n - z^2) / (n + z^2); the upper end is the largest difference, 1."""
        z = stats.norm.ppf(0.975)
        low, high = tango_interval(n, 0, n, 0.95)
        assert high == 1.0
        assert low == pytest.approx((n - z**2) / (n + z**2), abs=1e-10)
        low_b, high_b = tango_interval(0, n, n, 0.95)  # mirrored: every pair won by B
        assert low_b == -1.0
        assert high_b == pytest.approx(-(n - z**2) / (n + z**2), abs=1e-10)

    def test_tango_method_all_cases_won_gives_upper_end_one(self) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DegenerateDataWarning)
            res = binary_table(8, 0, 0).paired.bootstrap(
                "A", "B", higher_is_better=True, rng=0, method="tango", n_resamples=200
            )
        z = stats.norm.ppf(0.975)
        assert res.confidence_interval.high == 1.0
        assert res.confidence_interval.low == pytest.approx((8 - z**2) / (8 + z**2), abs=1e-10)

    @pytest.mark.parametrize(
        ("b", "c", "n"), [(1, 0, 2), (1, 0, 3), (2, 1, 4), (1, 1, 3), (0, 1, 2)]
    )
    def test_tango_with_a_handful_of_pairs(self, b: int, c: int, n: int) -> None:
        """Tiny tables, where n (2q + delta (1 - delta)) drops below 1 near the ends: the
        statistic at 0 is McNemar's (b - c) / sqrt(b + c), the interval the first-principles one."""
        assert tango_statistic(b, c, n, 0.0) == pytest.approx((b - c) / math.sqrt(b + c), abs=1e-12)
        low, high = tango_interval(b, c, n, 0.95)
        ref = tango_by_optimization(b, c, n, 0.95)
        assert low == pytest.approx(ref[0], abs=1e-6)
        assert high == pytest.approx(ref[1], abs=1e-6)

    def test_tango_interval_is_checked_against_the_exact_test(self) -> None:
        """n = 50, 5-0 split: McNemar's statistic sqrt(5) = 2.24 > 1.96, so Tango's interval
        excludes 0; exact p = 2 / 32 = 0.0625 does not. The note is returned and warned once,
        as a DegenerateDataWarning."""
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            res = binary_table(5, 0, 45).paired.bootstrap(
                "A", "B", higher_is_better=True, rng=0, method="tango", n_resamples=200
            )
        assert res.confidence_interval.low > 0
        expected = exact_note(5, 0, 0.95, interval_excludes=True)
        assert "p = 0.0625" in expected
        assert res.exact_check == expected
        assert [(w.category, str(w.message)) for w in rec] == [(DegenerateDataWarning, expected)]

    def test_no_exact_check_at_25_discordant_pairs(self) -> None:
        """FEW_DISCORDANT = 25 is the first count left alone. 17-8 at the 90% level: McNemar's
        statistic 9/5 = 1.8 > 1.645, so Tango's interval excludes 0, while exact p = 0.108 >
        0.10: the two disagree, and still no note at 25 discordant pairs."""
        assert stats.binomtest(17, 25, 0.5).pvalue > 0.10
        assert stats.norm.ppf(0.95) < 9 / 5  # McNemar's statistic at 0
        with warnings.catch_warnings():
            warnings.simplefilter("error", DegenerateDataWarning)
            res = binary_table(17, 8, 75).paired.bootstrap(
                "A", "B", higher_is_better=True, rng=0, method="tango", n_resamples=200,
                confidence_level=0.90,
            )  # fmt: skip
        assert res.confidence_interval.low > 0
        assert res.exact_check is None

    def test_exact_check_only_for_differences_in_minus_one_zero_one(self) -> None:
        """Five positive differences and an interval above 0: a sign test (p = 0.0625) would
        disagree, but the check is only for 0/1 scores; the same for 0/1 scores does speak."""
        ci = ConfidenceInterval(low=0.3, high=1.5)
        cont = DesignResampler(one_stratum(np.array([0.5, 1.2, 0.3, 2.0, 0.9])))
        assert cont.exact_check(ci, 0.95) is None
        binary = DesignResampler(one_stratum(np.ones(5)))
        assert binary.exact_check(ci, 0.95) == exact_note(5, 0, 0.95, interval_excludes=True)

    def test_exact_check_when_the_exact_test_excludes_and_the_interval_does_not(self) -> None:
        """6-0 split: exact p = 2 / 64 = 0.031 < 0.05; an interval reaching below 0."""
        r = DesignResampler(one_stratum(np.r_[np.ones(6), np.zeros(4)]))
        note = r.exact_check(ConfidenceInterval(low=-0.05, high=0.5), 0.95)
        assert note == exact_note(6, 0, 0.95, interval_excludes=False)
        assert "p = 0.0312: it excludes a difference of 0 at the 5% level" in note

    @pytest.mark.parametrize(
        ("method", "who"), [("tango", "Tango's"), ("newcombe", "Newcombe's (1998, method 10)")]
    )
    def test_score_methods_name_themselves_when_refusing(self, method: str, who: str) -> None:
        rng = np.random.default_rng(0)
        df = long_table(rng.normal(size=20), rng.normal(size=20))
        with pytest.raises(ValueError, match="score interval") as err:
            df.paired.bootstrap(
                "A", "B", higher_is_better=True, rng=0, method=method, n_resamples=100
            )
        assert str(err.value).startswith(f"method={method!r} ({who} score interval for a paired")

    def test_undefined_replicates_are_dropped_with_the_resamplers_message(self) -> None:
        reps = np.random.default_rng(0).normal(size=1_000)
        reps[::40] = np.nan  # 25 of 1,000: 97.5% valid, below the 99% that warns
        with pytest.warns(DegenerateDataWarning) as rec:
            core = run(FixedResampler(reps, 0.0), "percentile")
        assert [str(w.message) for w in rec] == ["25 of 1000 replicates undefined"]
        valid = reps[np.isfinite(reps)]
        assert core.distribution.size == 975
        np.testing.assert_allclose([core.confidence_interval.low, core.confidence_interval.high],
                                   np.percentile(valid, [2.5, 97.5]), rtol=1e-14)  # fmt: skip

    def test_acceleration_only_for_bca_and_before_any_interval_warning(self) -> None:
        reps = np.random.default_rng(1).normal(size=1_000)
        ok = FixedResampler(reps, 0.0, accel_fails=True)
        for method in ("percentile", "basic"):  # never asked for the acceleration
            core = run(ok, method)
            assert np.isfinite(core.confidence_interval.low)
        assert ok.accel_calls == 0
        # BCa: the estimate lies above every replicate (interval() would warn), but the
        # impossible acceleration raises first, before any warning
        outside = FixedResampler(reps, 10.0, accel_fails=True)
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            with pytest.raises(ValueError, match="no jackknife"):
                run(outside, "bca")
        assert rec == []

    def test_an_endpoint_on_an_atom_marks_the_core_degenerate(self) -> None:
        """n = 8: 6 only-A, 1 only-B, 1 tie. Drawing 8 only-A cases (prob (6/8)**8 = 10%) gives
        the maximum 1.0, so the 97.5% endpoint is that atom and its tail holds one value."""
        d = one_stratum(np.r_[np.ones(6), -1.0, 0.0])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DegenerateDataWarning)
            core = bootstrap_replicates(
                DesignResampler(d), 5 / 8, n_resamples=2_000, confidence_level=0.95,
                method="percentile", seed_sequence=np.random.SeedSequence(0), batch=None,
            )  # fmt: skip
        assert core.confidence_interval.high == 1.0
        assert np.unique(core.distribution[core.distribution >= 1.0]).size == 1
        assert core.degenerate is True

    # ---------------------------------------------------------------------------
    # Warning texts
    # ---------------------------------------------------------------------------
    def test_singleton_strata_warning_text(self) -> None:
        d = Design(value=np.array([0.1, 0.2, -0.3, 0.4, 0.5]), count=None,
                   unit_ptr=np.array([0, 1, 4, 5]), weight=np.full(3, 1 / 3), sign=1.0)  # fmt: skip
        assert DesignResampler(d).singleton_warning() == (
            "2 stratum/strata hold a single resampling unit: resampling within them cannot "
            "vary, so they add no sampling variance and the interval is too narrow. Merge "
            "small strata or resample without them."
        )

    def test_few_units_message_text(self) -> None:
        many = few_units_message(np.array([3, 2, 4]), 6.0)
        assert many == (
            "Only 9 resampling units (3 stratum/strata, 6 design degrees of freedom): below 8 "
            "degrees of freedom no bootstrap interval reliably reaches its confidence level, "
            "even with the small-sample correction. Check the methods on this design with "
            "cmp.audit(); use fewer strata, the randomization test (exact at this size), or "
            "for 0/1 scores the exact binomial test."
        )
        one = few_units_message(np.array([5]), 4.0)
        assert one == (
            "Only 5 resampling units (1 stratum/strata, 4 design degrees of freedom): below 8 "
            "degrees of freedom no bootstrap interval reliably reaches its confidence level, "
            "even with the small-sample correction. Check the methods on this design with "
            "cmp.audit(); use the randomization test (exact at this size), or for 0/1 scores "
            "the exact binomial test."
        )  # one stratum: nothing to merge, and fewer units would not help
        # unequal variances: the effective df falls short of sum (G_h - 1), and says why
        uneven = few_units_message(np.array([2] * 6), 2.66)
        assert uneven is not None
        assert "(6 stratum/strata, 2.7 effective design degrees of freedom of 6: " in uneven
        assert "the strata's variances differ" in uneven
        # with 8 or more design df the effective df restores the level: no warning
        assert few_units_message(np.array([2] * 10), 3.0) is None
        two = few_units_message(np.array([3, 2]), 3)  # two strata can be merged too
        assert two is not None
        assert "(2 stratum/strata, 3 design degrees of freedom)" in two
        assert "use fewer strata, the randomization test" in two
        assert few_units_message(np.array([5, 5]), 8) is None

    def test_design_theta_is_the_weighted_mean_of_stratum_means(self) -> None:
        """BCa's ``theta``: sum_h W_h (unit sums / cases of stratum h), direction-adjusted."""
        v0, v1 = np.array([0.2, -0.1, 0.5]), np.array([1.0, 0.4, -0.3, 0.9])
        plain = Design(
            value=np.r_[v0, v1],
            count=None,
            unit_ptr=np.array([0, 3, 7]),
            weight=np.array([0.3, 0.7]),
            sign=-1.0,
        )
        assert DesignResampler(plain).theta() == pytest.approx(-(0.3 * v0.mean() + 0.7 * v1.mean()))
        counts = np.array([2, 1, 3, 1, 2, 2, 1])  # cluster sums over 2, 1, 3, ... cases
        clusters = Design(value=np.r_[v0, v1], count=counts, unit_ptr=np.array([0, 3, 7]),
                          weight=np.array([0.3, 0.7]), sign=1.0)  # fmt: skip
        expected = 0.3 * v0.sum() / counts[:3].sum() + 0.7 * v1.sum() / counts[3:].sum()
        assert DesignResampler(clusters).theta() == pytest.approx(expected, rel=1e-12)


def long_table_sparse_and_degenerate_data(a: np.ndarray, b: np.ndarray) -> pd.DataFrame:
    n = len(a)
    return pd.DataFrame(
        {
            "case_id": np.tile(np.arange(n), 2),
            "model": np.repeat(["A", "B"], n),
            "score": np.concatenate([a, b]).astype(float),
        }
    )


def quiet_boot(df: pd.DataFrame, **kw: object) -> pdpaired.BootstrapResult:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        kw.setdefault("method", "percentile")
        return df.paired.bootstrap("A", "B", higher_is_better=True, **kw)


def continuous_frame(n: int = 200, seed: int = 7) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    base = rng.gamma(2.0, 1.0, n)
    return long_table_sparse_and_degenerate_data(
        base + rng.gamma(1.0, 0.3, n), base
    )  # skewed differences, mean 0.3


# ---------------------------------------------------------------------------
# Tango's score interval for the paired difference of proportions
# ---------------------------------------------------------------------------
def tango_by_optimization(b: int, c: int, n: int, level: float) -> tuple[float, float]:
    """Tango (1998) from first principles: for each delta, maximize the multinomial
    likelihood of (only A, only B, concordant) under p12 - p21 = delta numerically,
    form the score statistic, and find where it crosses +/- z with brentq."""
    from scipy import optimize

    m = n - b - c
    z = stats.norm.ppf(0.5 + level / 2)

    def score(delta: float) -> float:
        lo, hi = max(0.0, -delta), (1 - delta) / 2  # p21 range with p12 = p21 + delta >= 0
        if hi - lo < 1e-15:
            q = lo
        else:

            def nll(q: float) -> float:
                out = 0.0
                for k, p in ((b, q + delta), (c, q), (m, 1 - 2 * q - delta)):
                    if k:
                        out -= k * np.log(max(p, 1e-300))
                return out

            q = optimize.minimize_scalar(
                nll, bounds=(lo, hi), method="bounded", options={"xatol": 1e-13}
            ).x
        var = n * (2 * q + delta - delta**2)
        return (b - c - n * delta) / np.sqrt(var)

    est = (b - c) / n
    low = optimize.brentq(lambda d: score(d) - z, -1 + 1e-9, est) if b - c + n > 0 else -1.0
    high = optimize.brentq(lambda d: score(d) + z, est, 1 - 1e-9) if n - b + c > 0 else 1.0
    return low, high


class TestSparseAndDegenerateData:
    """Decisions from degenerate or sparse data, and the Monte Carlo error of the interval.

    Covers ``verdict``, ``confidence_interval_se``, ``decision_stable`` and
    ``n_resamples="auto"``.
    """

    def test_all_cases_won_is_undetermined_with_no_decision_flag(self) -> None:
        """5 cases, all won by A: CI [1, 1]; both exact tests give p = 0.0625."""
        df = long_table_sparse_and_degenerate_data(np.ones(5), np.zeros(5))
        with pytest.warns(DegenerateDataWarning, match="identical"):
            res = df.paired.bootstrap(
                "A",
                "B",
                higher_is_better=True,
                rng=0,
                noninferiority_margin=0.1,
                method="percentile",
            )
        assert (res.confidence_interval.low, res.confidence_interval.high) == (1.0, 1.0)
        assert res.degenerate
        assert res.verdict == "undetermined"
        assert not res.superior_point
        assert not res.superior_ci
        assert res.noninferior is False
        assert "undetermined" in str(res)
        assert "undetermined" in res._repr_html_()
        assert res.to_dict()["verdict"] == "undetermined"
        exact = df.paired.compare("A", "B", higher_is_better=True).exact_binomial()
        assert exact.pvalue == pytest.approx(0.0625)

    def test_endpoint_on_an_atom_is_undetermined(self) -> None:
        """n = 50, one discordant pair: replicates k/50 with k ~ Binomial(50, 1/50); P(k = 0) =
        0.36 > 2.5%, so the low endpoint is the atom 0 and its tail holds one value."""
        a = np.r_[1.0, np.zeros(49)]
        res = quiet_boot(long_table_sparse_and_degenerate_data(a, np.zeros(50)), rng=0)
        assert res.confidence_interval.low == 0.0
        assert res.degenerate
        assert res.verdict == "undetermined"
        assert not res.superior_ci

    def test_sparse_discordant_pairs_say_the_exact_test_disagrees(self) -> None:
        """n = 50, 4-0 split: percentile CI [0.02, 0.16] excludes 0; exact p = 0.125."""
        a = np.r_[np.ones(4), np.zeros(46)]
        df = long_table_sparse_and_degenerate_data(a, np.zeros(50))
        with pytest.warns(DegenerateDataWarning, match="exact test is the one to trust"):
            res = df.paired.bootstrap("A", "B", higher_is_better=True, rng=0)
        assert res.confidence_interval.low > 0
        p = stats.binomtest(4, 4, 0.5).pvalue  # independent oracle: 2 * 0.5**4
        assert p == pytest.approx(0.125)
        assert res.exact_check is not None
        assert "p = 0.125" in res.exact_check
        assert "Exact test" in str(res)
        # lower is better: the same data mirrored give the same note (B's point of view)
        df_low = long_table_sparse_and_degenerate_data(1 - a, np.ones(50))
        with pytest.warns(DegenerateDataWarning, match="4 won by A, 0 by B"):
            df_low.paired.bootstrap("A", "B", higher_is_better=False, rng=0)

    def test_no_exact_note_when_they_agree_or_scores_are_not_binary(self) -> None:
        rng = np.random.default_rng(3)
        a = (rng.uniform(size=300) < 0.7).astype(float)
        b = (rng.uniform(size=300) < 0.5).astype(float)
        res = quiet_boot(long_table_sparse_and_degenerate_data(a, b), rng=0)
        assert res.exact_check is None
        assert res.verdict == "a_better"
        cont = quiet_boot(
            long_table_sparse_and_degenerate_data(rng.normal(size=30), rng.normal(size=30)), rng=0
        )
        assert cont.exact_check is None

    @pytest.mark.parametrize("method", ["percentile", "basic", "bca"])
    def test_endpoint_se_matches_spread_over_seeds(self, method: str) -> None:
        """The reported Monte Carlo SE of each endpoint equals the SD of the endpoint over seeds.

        80 seeds at B = 2,000: the SD over seeds has a relative standard error of
        about 1 / sqrt(2 * 79) = 8%; the reported SE (averaged over the seeds) must
        match it within 30% (3.75 of those SEs).
        """
        df = continuous_frame()
        runs = [quiet_boot(df, rng=s, n_resamples=2_000, method=method) for s in range(80)]
        for end in ("low", "high"):
            spread = np.std([getattr(r.confidence_interval, end) for r in runs], ddof=1)
            reported = np.mean([getattr(r.confidence_interval_se, end) for r in runs])
            assert reported == pytest.approx(spread, rel=0.30), (end, reported, spread)
        if method == "percentile":  # measured: ~0.04 bootstrap SEs at 2,000
            ratio = np.mean([r.confidence_interval_se.low / r.standard_error for r in runs])
            assert 0.02 < ratio < 0.07

    def test_decision_stable_flags_a_threshold_near_its_endpoint(self) -> None:
        df = continuous_frame()
        res = quiet_boot(df, rng=0, n_resamples=2_000)
        low, se = res.confidence_interval.low, res.confidence_interval_se.low
        assert res.decision_stable  # 0 is far from both endpoints here
        assert res.confidence_interval.low > 0
        near = quiet_boot(df, rng=0, n_resamples=2_000, practical_threshold=low + se)
        assert not near.decision_stable
        assert "another seed could flip" in str(near)
        far = quiet_boot(df, rng=0, n_resamples=2_000, practical_threshold=low + 5 * se)
        assert far.decision_stable
        rng = np.random.default_rng(1)
        x = rng.normal(0.0, 1.0, 100)
        flat = long_table_sparse_and_degenerate_data(x, np.zeros(100))
        res0 = quiet_boot(flat, rng=0, n_resamples=2_000)
        low0, se0 = res0.confidence_interval.low, res0.confidence_interval_se.low
        assert low0 < 0
        margin = quiet_boot(flat, rng=0, n_resamples=2_000, noninferiority_margin=-low0 + 0.5 * se0)
        assert not margin.decision_stable

    def test_auto_resamples_are_bit_identical_to_asking_for_that_many(self) -> None:
        df = continuous_frame()
        for method in ("percentile", "bca"):
            auto = quiet_boot(df, rng=3, n_resamples="auto", method=method)
            assert 2_000 < auto.n_resamples <= 1_000_000
            se = auto.confidence_interval_se
            assert max(se.low, se.high) <= 0.01 * auto.standard_error
            fixed = quiet_boot(df, rng=3, n_resamples=auto.n_resamples, method=method)
            np.testing.assert_array_equal(auto.bootstrap_distribution, fixed.bootstrap_distribution)
            assert auto.confidence_interval == fixed.confidence_interval
            assert auto.confidence_interval_se == fixed.confidence_interval_se

    def test_auto_stops_at_once_for_a_degenerate_interval(self) -> None:
        res = quiet_boot(
            long_table_sparse_and_degenerate_data(np.ones(5), np.zeros(5)),
            rng=0,
            n_resamples="auto",
        )
        assert res.n_resamples == 2_000
        assert res.verdict == "undetermined"

    def test_bad_n_resamples_still_rejected(self) -> None:
        df = continuous_frame(20)
        with pytest.raises((TypeError, ValueError), match="n_resamples"):
            df.paired.bootstrap("A", "B", higher_is_better=True, n_resamples="many")

    def test_artifact_of_a_degenerate_comparison_verifies(self, tmp_path: object) -> None:
        df = long_table_sparse_and_degenerate_data(np.ones(6), np.zeros(6))
        cmp = df.paired.compare("A", "B", higher_is_better=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rep = cmp.report(rng=0, n_resamples=500, n_permutations=100, method="percentile")
        assert rep.bootstrap.verdict == "undetermined"
        paths = rep.save(tmp_path)
        for path in paths.values() if isinstance(paths, dict) else paths:
            if str(path).endswith(".json"):
                pdpaired.verify(path)
        assert "Verdict: undetermined" in rep.to_markdown()  # the headline states it
        art = rep.to_dict() if hasattr(rep, "to_dict") else None
        if art is not None and "decisions" in art:
            assert art["decisions"]["undetermined"] is True

    @pytest.mark.parametrize(("b", "c", "n"), [(4, 0, 50), (12, 2, 50), (7, 9, 40), (30, 10, 200)])
    def test_tango_interval_matches_first_principles(self, b: int, c: int, n: int) -> None:
        from pdpaired.core.bootstrap import tango_interval, tango_statistic

        low, high = tango_interval(b, c, n, 0.95)
        ref = tango_by_optimization(b, c, n, 0.95)
        assert low == pytest.approx(ref[0], abs=1e-6)
        assert high == pytest.approx(ref[1], abs=1e-6)
        # at delta = 0 the score statistic is McNemar's (b - c) / sqrt(b + c)
        assert tango_statistic(b, c, n, 0.0) == pytest.approx((b - c) / math.sqrt(b + c))

    def test_tango_method_through_the_api(self) -> None:
        a = np.r_[np.ones(12), np.zeros(2), np.ones(20), np.zeros(16)]
        b = np.r_[np.zeros(12), np.ones(2), np.ones(20), np.zeros(16)]
        df = long_table_sparse_and_degenerate_data(a, b)
        res = quiet_boot(df, rng=0, method="tango", n_resamples=500)
        ref = tango_by_optimization(12, 2, 50, 0.95)
        assert res.method == "tango"
        assert res.confidence_interval.low == pytest.approx(ref[0], abs=1e-6)
        assert res.confidence_interval.high == pytest.approx(ref[1], abs=1e-6)
        assert res.improvement == pytest.approx(10 / 50)
        # lower is better: pass is 0, the same interval in the improvement direction
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DegenerateDataWarning)
            low = long_table_sparse_and_degenerate_data(1 - a, 1 - b).paired.bootstrap(
                "A", "B", higher_is_better=False, rng=0, method="tango", n_resamples=500
            )
        assert low.confidence_interval == res.confidence_interval
        with pytest.raises(ValueError, match="0/1 scores"):
            quiet_boot(continuous_frame(30), rng=0, method="tango", n_resamples=100)


def enumerated_variance(values: list[np.ndarray], weights: np.ndarray, rescale: bool) -> float:
    """Exact variance of the (rescaled) stratified bootstrap, by enumerating every draw.

    Every ordered draw of G_h units from the G_h of stratum h is listed
    (G_h**G_h of them, equally likely); the stratum sums go through the
    library's own ``finalize`` (so its rescaling is what is checked), and
    strata are independent, so the variance is the sum of the strata's.
    """
    design = Design(
        value=np.concatenate(values),
        count=None,
        unit_ptr=np.concatenate([[0], np.cumsum([v.size for v in values])]).astype(np.int64),
        weight=weights,
        sign=1.0,
    )
    q, qscale = fixed_point(design)
    rw = rao_wu_small_sample_correction(design) if rescale else None
    total = 0.0
    start = 0
    for h, v in enumerate(values):
        g = v.size
        qh = q[start : start + g]
        start += g
        draws = np.array(list(itertools.product(range(g), repeat=g)))
        s = np.zeros((draws.shape[0], len(values)), dtype=np.int64)
        full = fixed_point(design)[0]
        for k, w in enumerate(values):  # other strata at their full-sample sums
            lo = sum(x.size for x in values[:k])
            s[:, k] = full[lo : lo + w.size].sum()
        s[:, h] = qh[draws].sum(axis=1)
        reps = finalize(design, s, None, qscale, rw)
        total += float(np.var(reps))  # every draw equally likely: population variance
    return total


def long_table_small_sample_correction(d: np.ndarray, **design: np.ndarray) -> pd.DataFrame:
    n = d.size
    parts = []
    for name, s in (("A", d), ("B", np.zeros(n))):
        part = pd.DataFrame({"case_id": np.arange(n), "model": name, "score": s})
        for k, v in design.items():
            part[k] = v
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


class TestSmallSampleCorrection:
    """Small-sample correction of stratified and cluster bootstraps.

    Oracles: the ideal (B -> infinity) bootstrap variance by exact enumeration of
    every draw, the unbiased stratified variance formula, and coverage
    simulations whose tolerances are derived from their Monte Carlo error.
    """

    def test_rao_wu_variance_is_the_unbiased_stratified_variance_exactly(self) -> None:
        """Enumeration of the ideal bootstrap: rescaled variance == sum w_h^2 s_h^2 / n_h."""
        rng = np.random.default_rng(5)
        values = [rng.normal(size=2), rng.exponential(size=3), rng.normal(2, 3, size=5),
                  rng.normal(size=4)]  # fmt: skip
        weights = np.array([0.1, 0.4, 0.3, 0.2])
        unbiased = sum(w**2 * v.var(ddof=1) / v.size for w, v in zip(weights, values, strict=True))
        plain = sum(w**2 * v.var(ddof=0) / v.size for w, v in zip(weights, values, strict=True))
        assert enumerated_variance(values, weights, rescale=True) == pytest.approx(
            unbiased, rel=1e-12
        )
        # without the correction: low by (n_h - 1) / n_h, half the variance at n_h = 2
        assert enumerated_variance(values, weights, rescale=False) == pytest.approx(
            plain, rel=1e-12
        )
        assert plain < 0.8 * unbiased  # the bias is material here (not a property of pdpaired)

    def test_public_stratified_bootstrap_se_matches_unbiased_formula(self) -> None:
        """10 strata of 2 cases: the bootstrap SE is the unbiased stratified SE.

        Not 1/sqrt(2) of it, as without the small-sample correction.

        MC error of an SD of B = 40,000 normal-ish replicates: SE * sqrt((kurt - 1) / (4 B))
        ~ 0.0035 SE; a 2% tolerance is > 5 of those (the uncorrected SE is 29% lower).
        """
        rng = np.random.default_rng(11)
        d = rng.normal(size=20) + np.repeat(rng.normal(size=10), 2)
        stratum = np.repeat([f"s{h}" for h in range(10)], 2)
        df = long_table_small_sample_correction(d, stratum=stratum)
        cmp = df.paired(stratum="stratum").compare("A", "B", higher_is_better=True)
        with pytest.warns(DegenerateDataWarning, match="Tiny strata"):
            res = cmp.bootstrap(rng=0, n_resamples=40_000)
        dh = d.reshape(10, 2)
        unbiased = math.sqrt(np.sum(dh.var(axis=1, ddof=1) / 2) / 100)
        assert res.sampling == "stratified"
        assert res.standard_error == pytest.approx(unbiased, rel=0.02)
        # the interval uses the design's effective degrees of freedom (at most the 10 of
        # sum (G_h - 1))
        dof = satterthwaite_df(d, stratum, {f"s{h}": 0.1 for h in range(10)})
        assert 1 <= dof <= 10
        assert expanded_alpha(0.025, dof) == pytest.approx(ndtr(stats.t.ppf(0.025, dof)), rel=1e-12)
        low = np.percentile(res.bootstrap_distribution, 100 * expanded_alpha(0.025, dof))
        assert res.confidence_interval.low == pytest.approx(low, rel=1e-12)

    def test_iid_bootstrap_is_unchanged(self) -> None:
        """Plain iid cases keep Efron's (scipy's) bootstrap: no rescaling, alpha levels."""
        rng = np.random.default_rng(2)
        d = rng.normal(size=30)
        res = long_table_small_sample_correction(d).paired.bootstrap(
            "A", "B", higher_is_better=True, rng=1, n_resamples=500, method="percentile"
        )
        root = np.random.SeedSequence(1)
        reps = []
        for k in range(-(-500 // 64)):
            gen = np.random.default_rng(np.random.SeedSequence(root.entropy, spawn_key=(0, k)))
            m = min(64, 500 - 64 * k)
            reps.append(d[gen.integers(0, 30, size=(m, 30))].mean(axis=1))
        np.testing.assert_allclose(res.bootstrap_distribution, np.concatenate(reps), rtol=1e-12)
        np.testing.assert_allclose(
            [res.confidence_interval.low, res.confidence_interval.high],
            np.percentile(np.concatenate(reps), [2.5, 97.5]),
            rtol=1e-12,
        )

    @pytest.mark.parametrize(("n_groups", "warns"), [(5, True), (8, True), (9, False), (20, False)])
    def test_few_clusters_warn_with_what_to_do(self, n_groups: int, warns: bool) -> None:
        rng = np.random.default_rng(n_groups)
        group = np.repeat(np.arange(n_groups), 4)
        d = rng.normal(size=group.size)
        df = long_table_small_sample_correction(d, group=group)
        cmp = df.paired(group="group").compare("A", "B", higher_is_better=True)
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            cmp.bootstrap(rng=0, n_resamples=200)
        msgs = [str(w.message) for w in rec if issubclass(w.category, DegenerateDataWarning)]
        hit = [m for m in msgs if "design degrees of freedom" in m]
        assert bool(hit) == warns
        if warns:
            assert "randomization test" in hit[0]
            assert "exact binomial" in hit[0]

    def test_bca_with_one_design_degree_of_freedom_stays_finite(self) -> None:
        # two clusters: the expanded tail level is ~3e-37, so 1 - alpha rounds to 1 and its
        # normal quantile would be inf (0 * inf in the BCa adjustment); found by hypothesis
        n = 3
        df = pd.DataFrame({
            "case_id": np.tile(np.arange(n), 2), "model": np.repeat(["A", "B"], n),
            "score": np.r_[0.0, 0.0, 0.0, 0.0, 1.0, 1.0], "group": np.tile([0, 1, 1], 2),
        })  # fmt: skip
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            warnings.simplefilter("ignore", pdpaired.DegenerateDataWarning)
            res = df.paired.bootstrap("A", "B", higher_is_better=True, method="bca", rng=0,
                                      n_resamples=200)  # fmt: skip
        ci, se = res.confidence_interval, res.confidence_interval_se
        assert np.isfinite([ci.low, ci.high]).all()
        assert ci.low <= ci.high
        assert se is not None
        assert np.isfinite([se.low, se.high]).all()
