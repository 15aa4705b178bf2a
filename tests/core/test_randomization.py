"""Randomization test and exact binomial: engines, reproducibility, arguments, views."""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.proportion import proportion_confint

import pdpaired
from pdpaired import DegenerateDataWarning, IndependenceWarning
from pdpaired.core import randomization
from pdpaired.core.engine import Design
from pdpaired.core.randomization import (
    _FEW_FACTOR,
    RandomizationCore,
    _few_distinct,
    _flip_layout,
    _flip_sums_numpy,
    null_pvalue,
    randomization_design,
    tie_tolerance,
)

from ..conftest import long_table, require_numba


def perm(df: pd.DataFrame, **kw: object) -> pdpaired.RandomizationResult:
    kw.setdefault("higher_is_better", True)
    kw.setdefault("n_permutations", 500)
    kw.setdefault("rng", 11)
    return df.paired.randomization("A", "B", **kw)


# ---------------------------------------------------------------- exact binomial
def binary() -> pd.DataFrame:
    a = np.array([1, 1, 1, 1, 0, 0, 1, 0, 1, 1])
    b = np.array([0, 0, 0, 1, 1, 0, 1, 0, 1, 0])
    return long_table(a, b)


@pytest.mark.parametrize("design", ["iid", "cluster", "stratified", "stratified-cluster"])
def test_same_seed_identical_across_engines_batches_threads(
    clustered: pd.DataFrame, design: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    cfg = {
        "iid": {"group": None, "stratum": None},
        "cluster": {"stratum": None},
        "stratified": {"group": None},
        "stratified-cluster": {},
    }[design]
    numba = require_numba()
    df = clustered.paired(**cfg)
    out = []
    for accel in ("numpy", "numba"):
        monkeypatch.setenv("PDPAIRED_ACCELERATOR", accel)
        for batch in (None, 1, 33):
            res = df.randomization(
                "A", "B", higher_is_better=True, rng=4, n_permutations=300, batch=batch
            )
            assert res.engine == accel
            out.append(res.null_distribution)
    numba.set_num_threads(1)
    try:
        out.append(
            df.randomization(
                "A", "B", higher_is_better=True, rng=4, n_permutations=300
            ).null_distribution
        )
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    for other in out[1:]:
        np.testing.assert_array_equal(out[0], other)


def test_sign_bits_come_from_the_pcg64_stream(engine: str) -> None:
    """Assignment r flips unit u when bit u % 64 of word r*W + u // 64 is set."""
    n, reps = 70, 6
    d = np.random.default_rng(0).normal(size=n)
    res = perm(long_table(d, np.zeros(n)), n_permutations=reps, rng=5)
    root = np.random.SeedSequence(5)
    stream = np.random.PCG64(np.random.SeedSequence(root.entropy, spawn_key=(2,)))
    words = stream.random_raw(reps * 2).reshape(reps, 2)
    bits = (words[:, np.arange(n) // 64] >> (np.arange(n) % 64).astype(np.uint64)) & np.uint64(1)
    expected = np.where(bits == 1, -d, d).mean(axis=1)
    np.testing.assert_allclose(res.null_distribution, expected, rtol=1e-9, atol=1e-12)


def test_exact_enumeration_when_affordable() -> None:
    df = long_table(np.arange(10.0), np.zeros(10))
    res = perm(df, n_permutations=1024)
    assert res.exact
    assert res.n_permutations == 1024
    assert res.pvalue_se is None
    assert res.engine == "exact"
    not_exact = perm(df, n_permutations=1023)
    assert not not_exact.exact
    assert not_exact.pvalue_se is not None


def test_plus_one_pvalue_is_never_zero() -> None:
    rng = np.random.default_rng(1)
    df = long_table(rng.normal(3, 1, 400), rng.normal(0, 1, 400))
    res = perm(df, n_permutations=999)
    assert res.pvalue == pytest.approx(1 / 1000)
    assert res.pvalue_se == pytest.approx(np.sqrt(0.001 * 0.999 / 1000))


def test_binary_scores_use_binomial_shortcut_and_seed_reproduces() -> None:
    rng = np.random.default_rng(3)
    df = long_table(rng.integers(0, 2, 400), rng.integers(0, 2, 400))
    r1 = perm(df, rng=None)
    r2 = perm(df, rng=r1.seed)
    assert r1.engine == "binomial"
    np.testing.assert_array_equal(r1.null_distribution, r2.null_distribution)
    r3 = perm(df, rng=r1.seed, batch=7)
    np.testing.assert_array_equal(r1.null_distribution, r3.null_distribution)


def test_alternatives_and_direction(continuous: pd.DataFrame) -> None:
    up = perm(continuous, alternative="greater")
    down = perm(continuous, alternative="less")
    two = perm(continuous, alternative="two-sided")
    assert up.statistic > 0
    assert up.pvalue < 0.05 < down.pvalue
    # same seed, same null draws: the two-sided count is the sum of the two tails
    np.testing.assert_array_equal(up.null_distribution, two.null_distribution)
    r = up.n_permutations
    tail_up = round(up.pvalue * (r + 1)) - 1
    tail_low = int(np.count_nonzero(up.null_distribution <= -up.statistic))
    assert round(two.pvalue * (r + 1)) - 1 == tail_up + tail_low
    flipped = perm(continuous, higher_is_better=False, alternative="less")
    assert flipped.statistic == -up.statistic
    assert flipped.pvalue == up.pvalue
    np.testing.assert_array_equal(flipped.null_distribution, -up.null_distribution)


def test_group_swaps_are_the_default_with_groups(clustered: pd.DataFrame) -> None:
    res = perm(clustered)
    assert res.unit == "group"
    assert res.sampling == "stratified-cluster"
    assert perm(clustered, unit="case").unit == "case"


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"n_permutations": 0}, "`n_permutations` must be a positive integer"),
        ({"alternative": "bigger"}, "`alternative` must be one of"),
        ({"unit": "doc"}, "`unit` must be one of"),
        ({"batch": -3}, "`batch` must be a positive integer"),
        ({"rng": -2}, "`rng`"),
    ],
)
def test_randomization_bad_arguments(continuous: pd.DataFrame, kw: dict, match: str) -> None:
    with pytest.raises((ValueError, TypeError), match=match):
        perm(continuous, **kw)


def test_randomization_views(clustered: pd.DataFrame) -> None:
    res = perm(clustered, alternative="greater")
    text = str(res)
    assert "Randomization test" in text
    assert "greater, group swaps, 500 permutations, seed 11" in text
    assert res._repr_html_().startswith("<div class='pdpaired-result'><table>")
    d = res.to_dict()
    json.dumps(d, allow_nan=False)
    assert d["pvalue"] == res.pvalue
    assert d["result"] == "RandomizationResult"
    assert res.to_frame().shape[0] == 1
    ax = res.plot()
    assert ax.get_ylabel() == "assignments"


def test_exact_binomial_counts_and_direction() -> None:
    res = binary().paired.exact_binomial("A", "B", higher_is_better=True)
    assert (res.a_only, res.b_only, res.both_pass, res.both_fail) == (4, 1, 3, 2)
    assert res.statistic == 4
    assert res.discordant_share == pytest.approx(0.8)
    lower = binary().paired.exact_binomial("A", "B", higher_is_better=False)
    assert (lower.a_only, lower.b_only, lower.both_pass, lower.both_fail) == (1, 4, 2, 3)
    assert lower.improvement == -res.improvement


def test_exact_binomial_rejects_non_binary_scores_naming_values() -> None:
    df = long_table(np.array([1, 0, 0.5, 1, 2.0]), np.array([0, 0, 1, 1, 1]))
    with pytest.raises(ValueError, match=r"2 other value\(s\): 0.5, 2"):
        df.paired.exact_binomial("A", "B", higher_is_better=True)


def test_exact_binomial_zero_discordant_and_groups_warn() -> None:
    df = long_table(np.array([1, 0, 1, 1]), np.array([1, 0, 1, 1]))
    with pytest.warns(DegenerateDataWarning, match="No discordant pairs"):
        res = df.paired.exact_binomial("A", "B", higher_is_better=True)
    assert res.pvalue == 1.0
    assert res.discordant_share is None
    json.dumps(res.to_dict(), allow_nan=False)
    grouped = binary()
    grouped["group"] = grouped["case_id"] // 3
    with pytest.warns(IndependenceWarning, match="randomization\\(unit='group'\\)"):
        grouped.paired.exact_binomial("A", "B", higher_is_better=True)


def test_exact_binomial_bad_arguments() -> None:
    df = binary()
    with pytest.raises(ValueError, match="`alternative` must be one of"):
        df.paired.exact_binomial("A", "B", higher_is_better=True, alternative="up")
    with pytest.raises(TypeError, match="`mid_p`"):
        df.paired.exact_binomial("A", "B", higher_is_better=True, mid_p="yes")
    with pytest.raises(ValueError, match="`confidence_level`"):
        df.paired.exact_binomial("A", "B", higher_is_better=True, confidence_level=95)


def test_exact_binomial_views() -> None:
    res = binary().paired.exact_binomial("A", "B", higher_is_better=True, mid_p=True)
    text = str(res)
    assert "A only 4, B only 1 (of 5)" in text
    assert "mid-p" in text
    d = res.to_dict()
    json.dumps(d, allow_nan=False)
    assert d["a_only"] == 4
    frame = res.to_frame()
    assert frame.loc[0, "ci_low"] == res.confidence_interval.low
    assert "ExactBinomialResult(" in repr(res)


Z = 4.0


ALTS = ("two-sided", "greater", "less")


# ---------------------------------------------------------------------------
# helpers (independent of pdpaired)
# ---------------------------------------------------------------------------
def long_frame(a, b, seed=0, **design):
    """Long table (case_id, model, score[, design]) with rows shuffled."""
    n = len(a)
    ids = np.arange(n) * 5 + 11
    parts = []
    for name, s in (("A", a), ("B", b)):
        part = pd.DataFrame({"case_id": ids, "model": name, "score": np.asarray(s, dtype=float)})
        for k, v in design.items():
            part[k] = np.asarray(v)
        parts.append(part)
    df = pd.concat(parts, ignore_index=True)
    return df.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def exact_diffs(a, b, decimals=None):
    """Per-case differences a - b as exact rationals.

    With ``decimals`` the scores are read as the decimal numbers they were
    meant to be (e.g. 0.3, not the nearest double), so mathematically tied
    assignments are tied in the oracle.
    """
    if decimals is None:
        return [Fraction(float(x)) - Fraction(float(y)) for x, y in zip(a, b, strict=True)]
    return [
        Fraction(f"{x:.{decimals}f}") - Fraction(f"{y:.{decimals}f}")
        for x, y in zip(a, b, strict=True)
    ]


def enumerate_test(units, sign=1):
    """Exact randomization test by brute force.

    ``units`` is a list of ``(value, coef)``: a unit contributes
    ``coef * eps * value`` to the statistic, eps = +-1 (eps = -1: A and B
    swapped for that unit). Returns the observed statistic (a Fraction), the
    whole null distribution (list of Fractions, identity included) and the
    exact p-value numerators for the three alternatives.
    """
    terms = [Fraction(sign) * c * v for v, c in units]
    t = sum(terms, Fraction(0))
    null = []
    for eps in itertools.product((1, -1), repeat=len(terms)):
        null.append(sum((e * x for e, x in zip(eps, terms, strict=True)), Fraction(0)))
    counts = {
        "two-sided": sum(abs(x) >= abs(t) for x in null),
        "greater": sum(x >= t for x in null),
        "less": sum(x <= t for x in null),
    }
    return t, null, counts


def item_units(d, strata=None, weights=None):
    """Case units for ``weighting="item"``: coef = w_h / n_h (one stratum: 1/n)."""
    if strata is None:
        return [(x, Fraction(1, len(d))) for x in d]
    strata = list(strata)
    n_h = {h: strata.count(h) for h in set(strata)}
    return [(x, Fraction(weights[h]) / n_h[h]) for x, h in zip(d, strata, strict=True)]


def group_units(d, groups, strata=None, weights=None, weighting="item"):
    """Group units: value = sum (item) or mean (group) of the group's differences."""
    groups = list(groups)
    labels = sorted(set(groups))
    g_of = {g: [x for x, gg in zip(d, groups, strict=True) if gg == g] for g in labels}
    if strata is None:
        g_stratum = dict.fromkeys(labels, "all")
        weights = {"all": 1.0}
    else:
        g_stratum = {g: s for g, s in zip(groups, strata, strict=True)}
    units = []
    for g in labels:
        h = g_stratum[g]
        if weighting == "item":
            n_h = sum(len(g_of[k]) for k in labels if g_stratum[k] == h)
            units.append((sum(g_of[g], Fraction(0)), Fraction(weights[h]) / n_h))
        else:
            G_h = sum(1 for k in labels if g_stratum[k] == h)
            units.append((sum(g_of[g], Fraction(0)) / len(g_of[g]), Fraction(weights[h]) / G_h))
    return units


def check_exact(res, units, sign=1, alternative="two-sided"):
    """Compare an exact pdpaired result with the brute-force enumeration."""
    t, null, counts = enumerate_test(units, sign)
    n_assign = 2 ** len(units)
    assert res.exact is True
    assert res.pvalue_se is None
    assert res.n_permutations == n_assign
    assert res.alternative == alternative
    # exact rational p-value; count / 2**n is a dyadic rational, exact in float64
    assert res.pvalue == counts[alternative] / n_assign, (res.pvalue, counts, n_assign)
    assert res.statistic == pytest.approx(float(t), rel=1e-12, abs=1e-14)
    got = np.sort(np.asarray(res.null_distribution, dtype=float))
    want = np.sort(np.array([float(x) for x in null]))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14 * max(1.0, np.abs(want).max()))
    return counts


def grid_pair(n, seed, target_tenths, grid=10):
    """Scores on a 1/grid grid with sum(a - b) == target_tenths / grid exactly (in decimals)."""
    rng = np.random.default_rng(seed)
    ka = rng.integers(0, grid + 1, size=n)
    kb = rng.integers(0, grid + 1, size=n)
    i = 0
    while (ka - kb).sum() != target_tenths:
        diff = target_tenths - (ka - kb).sum()
        if diff > 0 and ka[i] < grid:
            ka[i] += 1
        elif diff < 0 and ka[i] > 0:
            ka[i] -= 1
        else:
            i += 1
    return ka / grid, kb / grid, ka - kb


def clustered_small(seed=11):
    rng = np.random.default_rng(seed)
    sizes = np.array([1, 2, 5, 3, 7, 1, 4, 6])  # 8 groups, unequal sizes
    group = np.repeat(np.array([f"g{i}" for i in range(8)]), sizes)
    eff = rng.normal(0.3, 1.0, size=8)
    n = int(sizes.sum())
    b = rng.normal(size=n)
    a = b + np.repeat(eff, sizes) + rng.normal(0, 0.3, size=n)
    return a, b, group


WEIGHTS = {"s0": 0.5, "s1": 0.3, "s2": 0.2}


# ---------------------------------------------------------------------------
# 2. Monte Carlo agreement with scipy.stats.permutation_test
# ---------------------------------------------------------------------------
def _mean_diff(x, y, axis=-1):
    return np.mean(x, axis=axis) - np.mean(y, axis=axis)


# ---------------------------------------------------------------------------
# 3. the null distribution: symmetric about 0, variance sum(d^2) / n^2
# ---------------------------------------------------------------------------
def _check_null_moments(null, var_exact, label):
    null = np.asarray(null, dtype=float)
    R = null.size
    sd = math.sqrt(var_exact)
    # mean 0
    assert abs(null.mean()) <= Z * sd / math.sqrt(R), (label, null.mean())
    # variance: SE of a sample variance is v * sqrt((kurt - 1) / R)
    kurt = np.mean(null**4) / np.mean(null**2) ** 2
    se_var = var_exact * math.sqrt((kurt - 1) / R)
    assert abs(null.var() - var_exact) <= Z * se_var, (label, null.var(), var_exact)
    # symmetry: beyond any cut c, #(T* > c) and #(T* < -c) are exchangeable,
    # so given their total each is Bin(total, 1/2)
    for q in (0.0, 0.5, 1.0, 2.0):
        c = q * sd
        up, down = int(np.sum(null > c)), int(np.sum(null < -c))
        if up + down > 0:
            p_sym = stats.binomtest(up, up + down, 0.5).pvalue
            assert p_sym > 1e-4, (label, q, up, down)
    # and a distribution-level check: T* and -T* (from an independent half) agree
    half = R // 2
    ks = stats.ks_2samp(null[:half], -null[half:])
    assert ks.pvalue > 1e-4, (label, ks)


# ---------------------------------------------------------------------------
# 4. 0/1 scores: the randomization test is the McNemar-type binomial test
# ---------------------------------------------------------------------------
def binary_pairs(n, p10, p01, p11, seed):
    rng = np.random.default_rng(seed)
    kind = rng.choice(4, size=n, p=[p10, p01, p11, 1 - p10 - p01 - p11])
    a = np.isin(kind, (0, 2)).astype(float)
    b = np.isin(kind, (1, 2)).astype(float)
    return a, b


def randomization_p_binary(a_only, b_only, alternative):
    """Exact sign-flip p for 0/1 scores: n T* = 2 X - D, X ~ Bin(D, 1/2)."""
    D = a_only + b_only
    k = np.arange(D + 1)
    pmf = stats.binom.pmf(k, D, 0.5)
    if alternative == "two-sided":
        return float(pmf[np.abs(2 * k - D) >= abs(a_only - b_only)].sum())
    if alternative == "greater":
        return float(pmf[k >= a_only].sum())
    return float(pmf[k <= a_only].sum())


# ---------------------------------------------------------------------------
# 5. exact_binomial
# ---------------------------------------------------------------------------
def counts(a, b, good):
    ap, bp = a == good, b == good
    return (
        int(np.sum(ap & ~bp)),
        int(np.sum(~ap & bp)),
        int(np.sum(ap & bp)),
        int(np.sum(~ap & ~bp)),
    )


def mid_p(a_only, D, alternative):
    pm = stats.binom.pmf(a_only, D, 0.5)
    up = stats.binom.sf(a_only, D, 0.5) + 0.5 * pm  # P(X > a) + P(X = a) / 2
    lo = stats.binom.cdf(a_only - 1, D, 0.5) + 0.5 * pm  # P(X < a) + P(X = a) / 2
    return {"greater": up, "less": lo, "two-sided": min(1.0, 2 * min(up, lo))}[alternative]


BIN_CASES = [(60, 0.15, 0.05, 1), (200, 0.1, 0.1, 2), (40, 0.05, 0.2, 3), (500, 0.03, 0.01, 4)]


class TestAgainstOracles:
    """Independent oracle tests for the paired randomization and exact binomial tests.

    Every expected value is computed here without pdpaired's internals:

    * full enumeration of the ``2**n`` sign assignments with exact rational
      arithmetic (``fractions.Fraction``), so "as extreme" is decided exactly and
      the exact p-value is a rational ``count / 2**n`` (representable in float64,
      hence compared with ``==``);
    * ``scipy.stats.permutation_test(permutation_type="samples")``;
    * closed forms: the permutation variance ``sum(d_i**2) / n**2`` and, for 0/1
      scores, the law ``n * T* = 2 * Bin(D, 1/2) - D`` over the ``D`` discordant
      pairs;
    * ``scipy.stats.binomtest``, ``scipy.stats.binom``,
      ``statsmodels`` ``mcnemar(exact=True)`` and ``proportion_confint(method="beta")``.

    Monte Carlo (MC) tolerances are ``Z * SE`` with ``Z = 4`` and ``SE`` the MC
    standard error of the quantity compared (a binomial proportion
    ``sqrt(p (1 - p) / R)``, a mean ``s / sqrt(R)``, a sample variance
    ``v * sqrt((kurt - 1) / R)``); about 30 such comparisons at Z = 4 give a
    family-wise chance of a spurious failure below 0.2%, and the seeds are fixed.
    """

    # ---------------------------------------------------------------------------
    # 1. exact enumeration, small n
    # ---------------------------------------------------------------------------
    @pytest.mark.parametrize("n", [8, 9, 10, 11, 12])
    @pytest.mark.parametrize("alternative", ALTS)
    def test_exact_enumeration_continuous(self, n, alternative):
        rng = np.random.default_rng(100 + n)
        b = rng.normal(size=n)
        a = b + rng.normal(0.4, 1.0, size=n)
        df = long_frame(a, b, seed=n)
        res = df.paired.randomization(
            "A", "B", higher_is_better=True, n_permutations=2**n, alternative=alternative, rng=1
        )
        check_exact(res, item_units(exact_diffs(a, b)), alternative=alternative)

    @pytest.mark.parametrize("alternative", ALTS)
    def test_exact_enumeration_lower_is_better(self, alternative):
        # improvement = mean(B) - mean(A): "greater" means A has the LOWER scores
        rng = np.random.default_rng(5)
        n = 10
        b = rng.gamma(2.0, size=n)
        a = b - rng.normal(0.3, 0.8, size=n)
        res = long_frame(a, b).paired.randomization(
            "A", "B", higher_is_better=False, n_permutations=5000, alternative=alternative, rng=0
        )
        check_exact(res, item_units(exact_diffs(a, b)), sign=-1, alternative=alternative)

    @pytest.mark.parametrize("n", [9, 12])
    @pytest.mark.parametrize("alternative", ALTS)
    @pytest.mark.parametrize("hib", [True, False])
    def test_exact_enumeration_binary_ties(self, n, alternative, hib):
        # 0/1 scores: the statistic takes few values and ties are everywhere
        rng = np.random.default_rng(200 + n)
        a = (rng.random(n) < 0.7).astype(float)
        b = (rng.random(n) < 0.4).astype(float)
        res = long_frame(a, b).paired.randomization(
            "A", "B", higher_is_better=hib, n_permutations=2**n, alternative=alternative, rng=2
        )
        counts = check_exact(
            res, item_units(exact_diffs(a, b)), sign=1 if hib else -1, alternative=alternative
        )
        # cross-check the oracle itself: with D discordant pairs the exact p is a binomial tail
        a_only = int(np.sum((a == 1) & (b == 0)))
        b_only = int(np.sum((a == 0) & (b == 1)))
        if not hib:
            a_only, b_only = b_only, a_only
        D = a_only + b_only
        k = np.arange(D + 1)
        pmf = stats.binom.pmf(k, D, 0.5)
        want = {
            "two-sided": pmf[np.abs(2 * k - D) >= abs(2 * a_only - D)].sum(),
            "greater": pmf[k >= a_only].sum(),
            "less": pmf[k <= a_only].sum(),
        }[alternative]
        assert counts[alternative] / 2**n == pytest.approx(want, rel=1e-12)

    @pytest.mark.parametrize("seed", range(6))
    @pytest.mark.parametrize("alternative", ALTS)
    def test_exact_enumeration_decimal_grid_ties(self, seed, alternative):
        # scores on a 0.1 grid: 0.3 - 0.1 != 0.2 in binary floating point, but the
        # assignments are meant to tie; the oracle uses the decimal values exactly
        rng = np.random.default_rng(300 + seed)
        n = 11
        a = np.round(rng.integers(0, 11, size=n) / 10, 1)
        b = np.round(rng.integers(0, 11, size=n) / 10, 1)
        res = long_frame(a, b).paired.randomization(
            "A", "B", higher_is_better=True, n_permutations=2**n, alternative=alternative, rng=0
        )
        check_exact(res, item_units(exact_diffs(a, b, decimals=1)), alternative=alternative)

    @pytest.mark.parametrize("seed", range(3))
    @pytest.mark.parametrize("grid", [10, 3])
    def test_mc_decimal_grid_counts_every_tie(self, seed, grid):
        # Scores on a 0.1 (or 1/3) grid, t chosen so that the two-sided p is about
        # 0.05. The returned null distribution lives on the grid {k / (grid n)}: two
        # values are either tied or at least 1 / (grid n) apart, i.e. relatively
        # more than 1e-4 apart here. So the as-extreme count can be recomputed
        # from the library's own null distribution with a relative tolerance of
        # 1e-9 without any ambiguity, and must match the reported p exactly.
        n = 400
        _, _, dk = grid_pair(n, seed, 0, grid)
        target = int(1.96 * math.sqrt(float(np.sum(dk.astype(float) ** 2))))
        a, b, dk = grid_pair(n, seed, target, grid)
        R = 100_000
        for alt in ALTS:
            res = long_frame(a, b).paired.randomization(
                "A", "B", higher_is_better=True, n_permutations=R, alternative=alt, rng=seed
            )
            null, t = np.asarray(res.null_distribution), res.statistic
            assert t == pytest.approx(target / (grid * n), rel=1e-9)
            tol = 1e-9 * abs(t)
            k = {
                "two-sided": np.sum(np.abs(null) >= abs(t) - tol),
                "greater": np.sum(null >= t - tol),
                "less": np.sum(null <= t + tol),
            }[alt]
            ties = int(np.sum(np.abs(np.abs(null) - abs(t)) <= tol))
            assert res.pvalue == (1 + k) / (1 + R), (alt, res.pvalue * (1 + R) - 1, k, ties)

    @pytest.mark.parametrize(("n", "seed"), [(11, 1), (11, 18), (400, 1), (400, 3)])
    def test_decimal_grid_zero_statistic_two_sided_p_is_one(self, n, seed):
        # sum(a - b) == 0 exactly (in decimals): every assignment has |T*| >= |t| = 0
        a, b, _ = grid_pair(n, seed, 0)
        res = long_frame(a, b).paired.randomization(
            "A", "B", higher_is_better=True, n_permutations=2**n if n < 20 else 20_000, rng=0
        )
        assert res.statistic == pytest.approx(0.0, abs=1e-14)
        assert res.pvalue == 1.0

    def test_exact_switches_at_two_to_the_n(self):
        rng = np.random.default_rng(9)
        n = 10
        b = rng.normal(size=n)
        a = b + rng.normal(0.5, 1, size=n)
        df = long_frame(a, b)
        at = df.paired.randomization("A", "B", higher_is_better=True, n_permutations=2**n, rng=0)
        below = df.paired.randomization(
            "A", "B", higher_is_better=True, n_permutations=2**n - 1, rng=0
        )
        assert at.exact
        assert at.n_permutations == 2**n
        assert at.pvalue_se is None
        assert not below.exact
        assert below.n_permutations == 2**n - 1
        # MC plus-one convention: p = (1 + k) / (1 + R) with integer k
        k = below.pvalue * 2**n - 1
        assert k == pytest.approx(round(k), abs=1e-6)
        assert below.pvalue_se == pytest.approx(
            math.sqrt(below.pvalue * (1 - below.pvalue) / 2**n), rel=1e-9
        )

    @pytest.mark.parametrize("alternative", ALTS)
    @pytest.mark.parametrize("weighting", ["item", "group"])
    def test_exact_enumeration_clustered(self, alternative, weighting):
        a, b, group = clustered_small()
        df = long_frame(a, b, group=group)
        res = df.paired.randomization(
            "A",
            "B",
            higher_is_better=True,
            n_permutations=256,
            alternative=alternative,
            rng=0,
            unit="group",
            weighting=weighting,
        )
        assert res.unit == "group"
        units = group_units(exact_diffs(a, b), group, weighting=weighting)
        check_exact(res, units, alternative=alternative)

    def test_clustered_default_unit_is_group(self):
        a, b, group = clustered_small()
        res = long_frame(a, b, group=group).paired.randomization(
            "A", "B", higher_is_better=True, n_permutations=300, rng=0
        )
        assert res.unit == "group"
        assert res.exact
        assert res.n_permutations == 256

    def test_exact_enumeration_clustered_binary_ties(self):
        rng = np.random.default_rng(4)
        sizes = np.array([3, 1, 4, 2, 2, 5, 1, 3, 2])
        group = np.repeat(np.arange(9), sizes)
        n = int(sizes.sum())
        a = (rng.random(n) < 0.6).astype(float)
        b = (rng.random(n) < 0.5).astype(float)
        df = long_frame(a, b, group=group)
        units = group_units(exact_diffs(a, b), group)
        for alt in ALTS:
            res = df.paired.randomization(
                "A",
                "B",
                higher_is_better=True,
                n_permutations=512,
                alternative=alt,
                rng=0,
                unit="group",
            )
            check_exact(res, units, alternative=alt)

    @pytest.mark.parametrize("alternative", ALTS)
    @pytest.mark.parametrize("weights", [None, WEIGHTS])
    def test_exact_enumeration_stratified(self, alternative, weights):
        rng = np.random.default_rng(21)
        n = 11
        stratum = np.array(["s0"] * 3 + ["s1"] * 5 + ["s2"] * 3)
        b = rng.normal(size=n)
        a = b + rng.normal(0.3, 1.0, size=n) + (stratum == "s2") * 1.0
        df = long_frame(a, b, stratum=stratum)
        res = df.paired.randomization(
            "A",
            "B",
            higher_is_better=True,
            n_permutations=2**n,
            alternative=alternative,
            rng=0,
            stratum_weights=weights,
        )
        w = weights or {h: Fraction(int(np.sum(stratum == h)), n) for h in WEIGHTS}
        units = item_units(exact_diffs(a, b), stratum, w)
        check_exact(res, units, alternative=alternative)
        # the statistic is sum_h w_h * mean_h(a - b)
        d = a - b
        want = sum(float(w[h]) * d[stratum == h].mean() for h in WEIGHTS)
        assert res.statistic == pytest.approx(want, rel=1e-12)

    @pytest.mark.parametrize("alternative", ALTS)
    def test_exact_enumeration_stratified_binary_weighted(self, alternative):
        # weighted strata with 0/1 scores: ties must still be found after the
        # floating-point combination over strata
        rng = np.random.default_rng(31)
        stratum = np.array(["s0"] * 4 + ["s1"] * 4 + ["s2"] * 4)
        a = (rng.random(12) < 0.6).astype(float)
        b = (rng.random(12) < 0.4).astype(float)
        res = long_frame(a, b, stratum=stratum).paired.randomization(
            "A",
            "B",
            higher_is_better=True,
            n_permutations=4096,
            alternative=alternative,
            rng=0,
            stratum_weights=WEIGHTS,
        )
        check_exact(res, item_units(exact_diffs(a, b), stratum, WEIGHTS), alternative=alternative)

    @pytest.mark.parametrize("alternative", ALTS)
    def test_exact_enumeration_stratified_clusters(self, alternative):
        rng = np.random.default_rng(41)
        sizes = np.array([2, 4, 1, 3, 5, 2, 1, 3, 2, 4])
        group = np.repeat(np.arange(10), sizes)
        g_stratum = np.array(["s0", "s0", "s0", "s1", "s1", "s1", "s1", "s2", "s2", "s2"])
        stratum = g_stratum[group]
        n = int(sizes.sum())
        b = rng.normal(size=n)
        a = b + np.repeat(rng.normal(0.4, 1.0, size=10), sizes)
        res = long_frame(a, b, group=group, stratum=stratum).paired.randomization(
            "A",
            "B",
            higher_is_better=True,
            n_permutations=1024,
            alternative=alternative,
            rng=0,
            unit="group",
            stratum_weights=WEIGHTS,
        )
        units = group_units(exact_diffs(a, b), group, stratum, WEIGHTS)
        check_exact(res, units, alternative=alternative)

    @pytest.mark.parametrize("alternative", ALTS)
    def test_mc_agrees_with_scipy_permutation_test(self, alternative):
        rng = np.random.default_rng(2024)
        n = 200
        b = rng.gamma(2.0, 1.0, size=n)
        noise = rng.normal(0.0, 1.0, size=n)
        noise -= noise.mean()
        # fix the observed mean difference so that the two-sided p is about 0.05
        shift = {"two-sided": 1.0, "greater": 1.0, "less": -1.0}[alternative]
        a = b + noise + shift * 1.96 * noise.std() / math.sqrt(n)
        r_lib, r_sp = 200_000, 50_000
        res = long_frame(a, b).paired.randomization(
            "A", "B", higher_is_better=True, n_permutations=r_lib, alternative=alternative, rng=7
        )
        sp = stats.permutation_test(
            (a, b),
            _mean_diff,
            permutation_type="samples",
            vectorized=True,
            n_resamples=r_sp,
            alternative=alternative,
            rng=np.random.default_rng(8),
        )
        assert res.statistic == pytest.approx(sp.statistic, rel=1e-12)
        assert not res.exact
        # a p-value in the informative range
        assert 0.01 < sp.pvalue < 0.2
        assert 0.01 < res.pvalue < 0.2
        p = res.pvalue
        se_lib = math.sqrt(p * (1 - p) / r_lib)
        if alternative == "two-sided":
            # scipy: 2 * min(one-sided MC p's); each tail has prob ~p/2, SE of the
            # doubled tail is 2 * sqrt(p/2 (1 - p/2) / R)
            se_sp = 2 * math.sqrt(p / 2 * (1 - p / 2) / r_sp)
        else:
            se_sp = math.sqrt(p * (1 - p) / r_sp)
        # both estimate the same tail probability (the swap null is symmetric);
        # the plus-one corrections differ by O(1 / R)
        tol = Z * math.hypot(se_lib, se_sp) + 2.0 / r_sp
        assert abs(res.pvalue - sp.pvalue) <= tol, (res.pvalue, sp.pvalue, tol)
        assert res.pvalue_se == pytest.approx(math.sqrt(p * (1 - p) / (r_lib + 1)), rel=1e-9)

    def test_mc_conventions_plus_one(self):
        # an extreme observation: no permutation is as extreme except (almost surely) none,
        # so the MC p is exactly 1 / (1 + R), as scipy's
        rng = np.random.default_rng(3)
        n = 200
        b = rng.normal(size=n)
        a = b + 1.0 + rng.normal(0, 0.1, size=n)
        R = 999
        res = long_frame(a, b).paired.randomization(
            "A", "B", higher_is_better=True, n_permutations=R, rng=0
        )
        sp = stats.permutation_test(
            (a, b),
            _mean_diff,
            permutation_type="samples",
            vectorized=True,
            n_resamples=R,
            alternative="greater",
            rng=0,
        )
        assert res.pvalue == 1 / (R + 1) == sp.pvalue
        assert res.null_distribution.shape == (R,)

    def test_null_distribution_iid(self):
        rng = np.random.default_rng(12)
        n = 150
        b = rng.gamma(2.0, size=n)
        a = b + rng.standard_t(3, size=n) + 0.2
        R = 40_000
        res = long_frame(a, b).paired.randomization(
            "A", "B", higher_is_better=True, n_permutations=R, rng=5
        )
        d = a - b
        assert res.null_distribution.shape == (R,)
        _check_null_moments(res.null_distribution, np.sum(d**2) / n**2, "iid")

    def test_null_distribution_lower_is_better_is_mirror_invariant(self):
        # the null is symmetric, so its variance does not depend on the sign convention
        rng = np.random.default_rng(13)
        n = 80
        b = rng.normal(size=n)
        a = b + rng.normal(0.1, 1.0, size=n)
        res = long_frame(a, b).paired.randomization(
            "A", "B", higher_is_better=False, n_permutations=40_000, rng=6
        )
        d = a - b
        assert res.statistic == pytest.approx(-d.mean(), rel=1e-12)
        _check_null_moments(res.null_distribution, np.sum(d**2) / n**2, "lower-is-better")

    def test_null_distribution_clustered(self):
        rng = np.random.default_rng(14)
        G = 40
        sizes = rng.integers(1, 15, size=G)
        group = np.repeat(np.arange(G), sizes)
        n = int(sizes.sum())
        b = rng.normal(size=n)
        a = b + np.repeat(rng.normal(0, 1, size=G), sizes) + rng.normal(0, 0.2, size=n)
        d = a - b
        S = np.bincount(group, weights=d)
        df = long_frame(a, b, group=group)
        res = df.paired.randomization("A", "B", higher_is_better=True, n_permutations=40_000, rng=7)
        assert res.unit == "group"
        _check_null_moments(res.null_distribution, np.sum(S**2) / n**2, "cluster-item")
        # weighting="group": mean of group means, var = sum(m_g^2) / G^2
        res_g = df.paired.randomization(
            "A", "B", higher_is_better=True, n_permutations=40_000, rng=8, weighting="group"
        )
        m = S / sizes
        assert res_g.statistic == pytest.approx(m.mean(), rel=1e-12)
        _check_null_moments(res_g.null_distribution, np.sum(m**2) / G**2, "cluster-group")
        # case swaps on the same data: var = sum(d^2) / n^2 (much smaller)
        res_c = df.paired.randomization(
            "A", "B", higher_is_better=True, n_permutations=40_000, rng=9, unit="case"
        )
        assert res_c.unit == "case"
        _check_null_moments(res_c.null_distribution, np.sum(d**2) / n**2, "cluster-case")

    def test_null_distribution_stratified_weighted(self):
        rng = np.random.default_rng(15)
        n_h = {"s0": 30, "s1": 70, "s2": 100}
        stratum = np.concatenate([[h] * k for h, k in n_h.items()])
        n = stratum.size
        b = rng.normal(size=n)
        a = b + rng.normal(0, 1, size=n) * np.where(stratum == "s0", 3.0, 1.0)
        d = a - b
        res = long_frame(a, b, stratum=stratum).paired.randomization(
            "A", "B", higher_is_better=True, n_permutations=40_000, rng=10, stratum_weights=WEIGHTS
        )
        var = sum(WEIGHTS[h] ** 2 * np.sum(d[stratum == h] ** 2) / n_h[h] ** 2 for h in n_h)
        _check_null_moments(res.null_distribution, var, "stratified")

    @pytest.mark.parametrize("alternative", ALTS)
    @pytest.mark.parametrize(
        ("n", "p10", "p01", "seed"),
        [(300, 0.12, 0.07, 1), (1000, 0.05, 0.035, 2), (120, 0.2, 0.2, 3)],
    )
    @pytest.mark.parametrize("hib", [True, False])
    def test_binary_randomization_matches_binomial(self, alternative, n, p10, p01, seed, hib):
        a, b = binary_pairs(n, p10, p01, 0.5, seed)
        R = 100_000
        res = long_frame(a, b).paired.randomization(
            "A", "B", higher_is_better=hib, n_permutations=R, alternative=alternative, rng=seed
        )
        good = 1.0 if hib else 0.0
        a_only = int(np.sum((a == good) & (b != good)))
        b_only = int(np.sum((a != good) & (b == good)))
        D = a_only + b_only
        assert res.statistic == pytest.approx((a_only - b_only) / n, rel=1e-12, abs=1e-15)
        p_exact = randomization_p_binary(a_only, b_only, alternative)
        # oracle vs scipy.binomtest on the same discordant counts
        p_bt = stats.binomtest(a_only, D, 0.5, alternative=alternative).pvalue
        assert p_exact == pytest.approx(p_bt, rel=1e-9)
        # MC p: E = p_exact + (1 - p_exact) / (R + 1), SE sqrt(p (1 - p) / R)
        se = math.sqrt(p_exact * (1 - p_exact) / R)
        assert abs(res.pvalue - p_exact) <= Z * se + 1.0 / (R + 1), (res.pvalue, p_exact)
        # the null distribution lives on {(2x - D) / n : x = 0..D}, with Bin(D, 1/2) law
        nt = np.asarray(res.null_distribution) * n
        x2 = np.rint(nt).astype(int) + D
        np.testing.assert_allclose(nt, np.rint(nt), atol=1e-9)
        assert np.all(x2 % 2 == 0)
        assert x2.min() >= 0
        assert x2.max() <= 2 * D
        x = x2 // 2
        obs = np.bincount(x, minlength=D + 1)
        exp = stats.binom.pmf(np.arange(D + 1), D, 0.5) * R
        # pool the thin tails for a valid chi-square
        keep = exp >= 20
        obs_p = np.append(obs[keep], obs[~keep].sum())
        exp_p = np.append(exp[keep], exp[~keep].sum())
        if exp_p[-1] < 5:
            obs_p, exp_p = obs_p[:-1], exp_p[:-1]
            exp_p = exp_p * obs_p.sum() / exp_p.sum()
        assert stats.chisquare(obs_p, exp_p).pvalue > 1e-4

    @pytest.mark.parametrize(("n", "p10", "p01", "seed"), BIN_CASES)
    @pytest.mark.parametrize("hib", [True, False])
    def test_exact_binomial_oracles(self, n, p10, p01, seed, hib):
        a, b = binary_pairs(n, p10, p01, 0.6, seed)
        df = long_frame(a, b)
        good = 1.0 if hib else 0.0
        a_only, b_only, both_pass, both_fail = counts(a, b, good)
        D = a_only + b_only
        assert D > 0
        for alt in ALTS:
            e = df.paired.exact_binomial("A", "B", higher_is_better=hib, alternative=alt)
            assert (e.a_only, e.b_only, e.both_pass, e.both_fail) == (
                a_only,
                b_only,
                both_pass,
                both_fail,
            )
            assert e.discordant_share == pytest.approx(a_only / D, rel=1e-15)
            if alt == "two-sided":
                table = [[both_pass, a_only], [b_only, both_fail]]
                want = mcnemar(table, exact=True).pvalue
            else:
                want = stats.binomtest(a_only, D, 0.5, alternative=alt).pvalue
            assert e.pvalue == pytest.approx(want, rel=1e-12, abs=1e-300), (alt, e.pvalue, want)
            em = df.paired.exact_binomial(
                "A", "B", higher_is_better=hib, alternative=alt, mid_p=True
            )
            assert em.pvalue == pytest.approx(mid_p(a_only, D, alt), rel=1e-12, abs=1e-300)
            assert em.pvalue <= e.pvalue
        for level in (0.95, 0.9, 0.99):
            e = df.paired.exact_binomial("A", "B", higher_is_better=hib, confidence_level=level)
            lo, hi = proportion_confint(a_only, D, alpha=1 - level, method="beta")
            assert e.confidence_interval.low == pytest.approx(lo, rel=1e-10, abs=1e-14)
            assert e.confidence_interval.high == pytest.approx(hi, rel=1e-10, abs=1e-14)

    def test_exact_binomial_lower_is_better_swaps_roles(self):
        # error indicators (1 = wrong, lower is better) must give exactly the
        # result of the correctness indicators (1 = right, higher is better)
        a, b = binary_pairs(150, 0.15, 0.06, 0.6, 9)
        right = long_frame(a, b)
        wrong = long_frame(1 - a, 1 - b)
        for alt in ALTS:
            r1 = right.paired.exact_binomial("A", "B", higher_is_better=True, alternative=alt)
            r0 = wrong.paired.exact_binomial("A", "B", higher_is_better=False, alternative=alt)
            assert (r0.a_only, r0.b_only, r0.both_pass, r0.both_fail) == (
                r1.a_only,
                r1.b_only,
                r1.both_pass,
                r1.both_fail,
            )
            assert r0.pvalue == r1.pvalue
            assert r0.confidence_interval == r1.confidence_interval
        # A better here, so "greater" is small and "less" is large
        g = wrong.paired.exact_binomial("A", "B", higher_is_better=False, alternative="greater")
        ls = wrong.paired.exact_binomial("A", "B", higher_is_better=False, alternative="less")
        assert g.a_only > g.b_only
        assert g.pvalue < 0.05 < ls.pvalue
        # and wrong counts would result with the opposite sense
        bad = wrong.paired.exact_binomial("A", "B", higher_is_better=True, alternative="greater")
        assert bad.a_only == r1.b_only
        assert bad.pvalue > 0.5

    def test_exact_binomial_edge_one_sided_extremes(self):
        # all discordant pairs favour A: p_greater = 2**-D, CI upper = 1
        a = np.array([1.0] * 7 + [0.0] * 3 + [1.0] * 5)
        b = np.array([0.0] * 7 + [0.0] * 3 + [1.0] * 5)
        df = long_frame(a, b)
        e = df.paired.exact_binomial("A", "B", higher_is_better=True, alternative="greater")
        assert e.pvalue == 2.0**-7
        assert e.confidence_interval.high == 1.0
        lo, _ = proportion_confint(7, 7, alpha=0.05, method="beta")
        assert e.confidence_interval.low == pytest.approx(lo, rel=1e-12)
        assert (
            df.paired.exact_binomial("A", "B", higher_is_better=True, alternative="less").pvalue
            == 1
        )
        two = df.paired.exact_binomial("A", "B", higher_is_better=True)
        assert two.pvalue == 2.0**-6 == mcnemar([[5, 7], [0, 3]], exact=True).pvalue
        # balanced: two-sided p capped at 1
        bal = long_frame(np.array([1.0, 0, 1, 0]), np.array([0.0, 1, 0, 1]))
        assert bal.paired.exact_binomial("A", "B", higher_is_better=True).pvalue == 1.0

    def test_exact_binomial_no_discordant_pairs(self):
        a = np.array([1.0, 1, 0, 0, 1, 0])
        df = long_frame(a, a.copy())
        for alt in ALTS:
            with pytest.warns(pdpaired.DegenerateDataWarning):
                e = df.paired.exact_binomial("A", "B", higher_is_better=True, alternative=alt)
            assert e.pvalue == 1.0
            assert (e.a_only, e.b_only, e.both_pass, e.both_fail) == (0, 0, 3, 3)
        with pytest.warns(pdpaired.DegenerateDataWarning):
            em = df.paired.exact_binomial("A", "B", higher_is_better=True, mid_p=True)
        assert em.pvalue == 1.0

    def test_exact_binomial_group_warns(self):
        a, b = binary_pairs(40, 0.2, 0.1, 0.5, 3)
        df = long_frame(a, b, group=np.arange(40) // 4)
        with pytest.warns(pdpaired.IndependenceWarning):
            e = df.paired.exact_binomial("A", "B", higher_is_better=True)
        # the counts are unaffected by the grouping
        assert (e.a_only, e.b_only) == counts(a, b, 1.0)[:2]

    @pytest.mark.parametrize(
        ("bad_a", "shown"),
        [([0.5], ["0.5"]), ([2.0, -1.0], ["2", "-1"]), ([0.25, 3.0], ["0.25", "3"])],
    )
    def test_exact_binomial_rejects_non_binary(self, bad_a, shown):
        a = np.array([1.0, 0, 1, 1, 0, 1, 0, 0])
        b = np.array([0.0, 0, 1, 0, 1, 1, 1, 0])
        a[: len(bad_a)] = bad_a
        df = long_frame(a, b)
        with pytest.raises(ValueError, match="0/1") as info:
            df.paired.exact_binomial("A", "B", higher_is_better=True)
        for s in shown:
            assert s in str(info.value)


def stream_bits(seed: int, n_words_per: int, n_perm: int) -> np.ndarray:
    """Bits (n_perm x 64 * words) of the ``randomization_bits`` stream, bit j of word i at 64i+j.

    The stream is the child ``(2,)`` of the root seed (docs: the stream registry).
    """
    ss = np.random.SeedSequence(np.random.SeedSequence(seed).entropy, spawn_key=(2,))
    words = np.random.PCG64(ss).random_raw(n_perm * n_words_per).reshape(n_perm, n_words_per)
    shifts = np.arange(64, dtype=np.uint64)
    bits = (words[:, :, None] >> shifts) & np.uint64(1)
    return bits.reshape(n_perm, n_words_per * 64).astype(np.int64)


def flipped_sums(q: np.ndarray, sizes: list[int], bits: np.ndarray) -> np.ndarray:
    """Per assignment and stratum: sum of the units' values, negated where the bit is set.

    Stratum ``h`` occupies ``ceil(G_h / 64)`` whole words; its unit ``j`` is the
    ``j``-th bit from the start of them.
    """
    out = np.zeros((bits.shape[0], len(sizes)), dtype=np.int64)
    start_unit, start_bit = 0, 0
    for h, g in enumerate(sizes):
        for j in range(g):
            sign = 1 - 2 * bits[:, start_bit + j]
            out[:, h] += sign * q[start_unit + j]
        start_unit += g
        start_bit += -(-g // 64) * 64
    return out


def continuous_design(sizes: list[int], seed: int) -> Design:
    rng = np.random.default_rng(seed)
    n = sum(sizes)
    return Design(
        value=rng.normal(0.3, 1.0, n),
        count=None,
        unit_ptr=np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
        weight=np.array(sizes, dtype=np.float64) / n if len(sizes) > 1 else np.ones(1),
        sign=1.0,
    )


# --------------------------------------------------------------------------- compressed designs
def compressed_design(value: np.ndarray, freq: np.ndarray, ptr: np.ndarray) -> Design:
    sizes = np.add.reduceat(freq, ptr[:-1])
    return Design(
        value=value,
        count=None,
        unit_ptr=ptr,
        weight=sizes / sizes.sum(),
        sign=-1.0,
        freq=freq,
    )


def run(
    d: Design, n_permutations: int, alternative: str, seed: int, batch: int | None
) -> RandomizationCore:
    return randomization_design(
        d, n_permutations=n_permutations, alternative=alternative,
        seed_sequence=np.random.SeedSequence(seed), batch=batch,
    )  # fmt: skip


class TestSignFlipEngines:
    """The sign-flip engines of :mod:`pdpaired.core.randomization`, flip by flip.

    The NumPy sign-flip engine reads the bits of an assignment ``k`` at a time
    (``k`` = 8, 4 or 1, whichever keeps its lookup table small) and looks up exact
    subset sums; here every ``k`` is checked against the same flips written out
    bit by bit from the PCG64 stream. A compressed design (rows with
    frequencies, as the Dask path builds) sent to the exact or the sign-flip
    engine must give the same test as its expansion to one row per unit, bit for
    bit, and the exact null distribution must be the enumeration of every sign
    assignment written out here.
    """

    @pytest.mark.parametrize(("table_bytes", "k"), [(1 << 24, 8), (1 << 14, 4), (100, 1)])
    def test_lookup_codes_of_every_width_sum_the_flips_written_out(
        self, monkeypatch: pytest.MonkeyPatch, table_bytes: int, k: int
    ) -> None:
        # strata of 70, 100 and 1 units: 2 + 2 + 1 words, 320 padded positions
        monkeypatch.setattr(randomization, "_TABLE_BYTES", table_bytes)
        sizes = [70, 100, 1]
        rng = np.random.default_rng(4)
        q = rng.integers(-(2**40), 2**40, size=sum(sizes), dtype=np.int64)
        ptr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        lay = _flip_layout(q, ptr, tables=True)
        assert lay.k == k  # the width under test is the one in use
        assert lay.words_per == 5
        n_perm = 37
        ss = np.random.SeedSequence(np.random.SeedSequence(21).entropy, spawn_key=(2,))
        for batch in (1, 5, 8192):  # batches never change the sums
            got = _flip_sums_numpy(lay, n_perm, ss, batch)
            want = flipped_sums(q, sizes, stream_bits(21, 5, n_perm))
            np.testing.assert_array_equal(got, want)

    def test_numpy_engine_null_distribution_is_the_same_for_every_lookup_width(
        self,
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        monkeypatch.setenv("PDPAIRED_ACCELERATOR", "numpy")
        sizes = [70, 100]
        d = continuous_design(sizes, 9)
        n_perm = 200
        nulls = []
        for table_bytes, k in ((1 << 24, 8), (1 << 13, 4), (100, 1)):  # 256 padded units
            monkeypatch.setattr(randomization, "_TABLE_BYTES", table_bytes)
            assert _flip_layout(np.ones(170, np.int64), d.unit_ptr, tables=True).k == k
            core = randomization_design(
                d, n_permutations=n_perm, alternative="two-sided",
                seed_sequence=np.random.SeedSequence(13), batch=None,
            )  # fmt: skip
            assert core.engine == "numpy"
            assert not core.exact
            nulls.append(core.null_distribution)
        for other in nulls[1:]:
            np.testing.assert_array_equal(nulls[0], other)
        # the statistic of each assignment, in floating point from the bits of the stream:
        # sum over strata of w_h * mean of the signed values (no quantization)
        bits = stream_bits(13, 4, n_perm)
        v = d.value
        signed_a = (1 - 2 * bits[:, :70]) * v[:70]
        signed_b = (1 - 2 * bits[:, 128 : 128 + 100]) * v[70:]
        want = d.weight[0] * signed_a.mean(axis=1) + d.weight[1] * signed_b.mean(axis=1)
        np.testing.assert_allclose(nulls[0], want, rtol=1e-12, atol=1e-14)

    def test_a_large_design_picks_four_bit_codes_and_sums_the_flips(
        self,
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        # more than 65,536 padded units: an 8-bit table would exceed 16 MiB, so k = 4
        monkeypatch.setenv("PDPAIRED_ACCELERATOR", "numpy")
        n = 70_000
        rng = np.random.default_rng(2)
        q = rng.integers(-(2**30), 2**30, size=n, dtype=np.int64)
        lay = _flip_layout(q, np.array([0, n]), tables=True)
        assert lay.k == 4
        words = -(-n // 64)
        ss = np.random.SeedSequence(np.random.SeedSequence(6).entropy, spawn_key=(2,))
        got = _flip_sums_numpy(lay, 5, ss, 8192)
        bits = stream_bits(6, words, 5)[:, :n]
        want = ((1 - 2 * bits) * q).sum(axis=1)
        np.testing.assert_array_equal(got[:, 0], want)

    @pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
    def test_compressed_design_sent_to_exact_enumeration_is_its_expansion(
        self, alternative: str
    ) -> None:
        # 10 units in two strata as 5 rows with frequencies: 2**10 assignments, enumerated
        value = np.array([0.5, -1.25, 2.0, 0.75, -0.25])
        freq = np.array([2, 1, 3, 2, 2])
        ptr = np.array([0, 3, 5])
        d = compressed_design(value, freq, ptr)
        assert d.n_units == 10
        got = run(d, 1024, alternative, 1, None)
        ref = run(d.expanded(), 1024, alternative, 1, None)
        assert got.exact
        assert ref.exact
        assert got.engine == ref.engine == "exact"
        np.testing.assert_array_equal(got.null_distribution, ref.null_distribution)
        assert got.pvalue == ref.pvalue
        assert got.pvalue_se is None
        # oracle: every sign assignment of the 10 units, the statistic written out
        units = np.repeat(value, freq)
        stratum = np.repeat([0, 0, 0, 1, 1], freq)
        w = d.weight
        stats = []
        for signs in itertools.product((1.0, -1.0), repeat=10):
            s = np.array(signs) * units
            stats.append(-(w[0] * s[stratum == 0].mean() + w[1] * s[stratum == 1].mean()))
        stats_arr = np.array(stats)
        np.testing.assert_allclose(np.sort(got.null_distribution), np.sort(stats_arr), atol=1e-12)
        t = -(w[0] * units[stratum == 0].mean() + w[1] * units[stratum == 1].mean())
        tol = 1e-9
        if alternative == "two-sided":
            p = np.mean(np.abs(stats_arr) >= abs(t) - tol)
        elif alternative == "greater":
            p = np.mean(stats_arr >= t - tol)
        else:
            p = np.mean(stats_arr <= t + tol)
        assert got.pvalue == pytest.approx(p, abs=1e-15)

    def test_compressed_design_with_many_distinct_values_uses_the_sign_flips_of_its_expansion(
        self,
        engine: str,
    ) -> None:
        # 40 distinct values, 80 units: not few enough for the binomial shortcut, too many
        # for enumeration; the sign-flip engine needs one row per unit
        rng = np.random.default_rng(3)
        value = rng.normal(0.1, 1.0, 40)
        freq = np.tile([1, 3], 20)
        ptr = np.array([0, 15, 40])
        d = compressed_design(value, freq, ptr)
        got = run(d, 300, "two-sided", 17, 64)
        ref = run(d.expanded(), 300, "two-sided", 17, 64)
        assert got.engine == ref.engine == engine
        assert not got.exact
        np.testing.assert_array_equal(got.null_distribution, ref.null_distribution)
        assert (got.pvalue, got.pvalue_se) == (ref.pvalue, ref.pvalue_se)
        # and the expansion's flips are the stream's bits, unit by unit (strata padded to 64)
        e = d.expanded()
        sizes = [int(s) for s in e.sizes]
        assert sizes == [29, 51]  # one word each
        bits = stream_bits(17, 2, 300)
        v = e.value
        s0 = (1 - 2 * bits[:, : sizes[0]]) * v[: sizes[0]]
        s1 = (1 - 2 * bits[:, 64 : 64 + sizes[1]]) * v[sizes[0] :]
        want = -(e.weight[0] * s0.mean(axis=1) + e.weight[1] * s1.mean(axis=1))
        np.testing.assert_allclose(got.null_distribution, want, rtol=1e-12, atol=1e-14)


EPS = np.finfo(np.float64).eps


# --------------------------------------------------------------------------- the binomial engine
def binary_design(diffs: list[np.ndarray], freq: list[np.ndarray] | None = None) -> Design:
    """Per-stratum unit differences in {-1, 0, 1} (0/1 scores), optionally compressed."""
    value = np.concatenate(diffs).astype(np.float64)
    f = None if freq is None else np.concatenate(freq).astype(np.int64)
    rows = [len(x) for x in diffs]
    units = rows if freq is None else [int(x.sum()) for x in freq]
    return Design(
        value=value,
        count=None,
        unit_ptr=np.concatenate([[0], np.cumsum(rows)]).astype(np.int64),
        weight=np.array(units, dtype=np.float64) / sum(units),
        sign=1.0,
        freq=f,
    )


def binomial_null(
    diffs: list[np.ndarray], freq: list[np.ndarray] | None, weight: np.ndarray,
    seed: int, n_perm: int,
) -> np.ndarray:  # fmt: skip
    """The binomial engine written out: per stratum, the number of units of each
    distinct nonzero |d| that keep their sign is Binomial(k, 1/2), drawn from the
    stratum's stream; the statistic is the weighted mean of the signed values."""
    root = np.random.SeedSequence(seed)
    total = np.zeros(n_perm)
    for h, d in enumerate(diffs):
        f = np.ones(len(d), dtype=np.int64) if freq is None else freq[h]
        values, inverse = np.unique(np.abs(d), return_inverse=True)
        k = np.bincount(inverse, weights=f).astype(np.int64)
        values, k = values[values != 0], k[values != 0]
        ss = np.random.SeedSequence(root.entropy, spawn_key=(3, h))
        heads = np.random.Generator(np.random.PCG64(ss)).binomial(k, 0.5, size=(n_perm, k.size))
        total += weight[h] * ((2 * heads - k) @ values) / f.sum()
    return total


class TestNullAndTies:
    """The randomization test's pieces by exact value: the p-value, ties, the binomial engine.

    * :func:`null_pvalue` counts a null statistic *equal* to the observed one as
      extreme (``>=``, as ``scipy.stats.permutation_test``), in each direction,
      and one within the tie tolerance ``gamma`` too;
    * :func:`tie_tolerance` is ``drift`` plus 100 machine epsilons of each
      magnitude (scipy's rule), ``drift`` 0 by default;
    * the binomial engine (few distinct values: 0/1 scores) with several strata
      and with a compressed design (rows with frequencies, as the Dask path
      builds) against the null written out here from its documented streams
      (``randomization_stratum`` ``h`` = child ``(3, h)`` of the root);
    * the switch to that engine at exactly ``16 x distinct values == units``.
    """

    # --------------------------------------------------------------------------- p-value ties
    @pytest.mark.parametrize("exact", [True, False])
    def test_a_null_statistic_equal_to_the_observed_counts_as_extreme(self, exact: bool) -> None:
        null = np.array([-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0])
        n = null.size

        def p(k: int) -> float:
            return k / n if exact else (1 + k) / (1 + n)

        # t = 1: greater counts 1, 2, 3; less counts -2, ..., 1; two-sided |T*| >= 1
        assert null_pvalue(null, 1.0, gamma=0.0, alternative="greater", exact=exact)[0] == p(3)
        assert null_pvalue(null, 1.0, gamma=0.0, alternative="less", exact=exact)[0] == p(6)
        assert null_pvalue(null, 1.0, gamma=0.0, alternative="two-sided", exact=exact)[0] == p(5)
        # t = -1 on the less side and two-sided with |t|: the tie at -1 counts
        assert null_pvalue(null, -1.0, gamma=0.0, alternative="less", exact=exact)[0] == p(2)
        assert null_pvalue(null, -1.0, gamma=0.0, alternative="two-sided", exact=exact)[0] == p(5)
        # within gamma of t counts too, beyond it does not
        assert null_pvalue(null, 1.25, gamma=0.25, alternative="greater", exact=exact)[0] == p(3)
        assert null_pvalue(null, 1.25, gamma=0.2, alternative="greater", exact=exact)[0] == p(2)
        assert null_pvalue(null, 0.75, gamma=0.25, alternative="less", exact=exact)[0] == p(6)
        assert null_pvalue(null, 0.75, gamma=0.2, alternative="less", exact=exact)[0] == p(5)

    def test_null_pvalue_equals_scipy_permutation_test_on_the_same_null(self) -> None:
        from scipy import stats

        # scipy's exact paired sign-flip test on 6 differences with ties in |d|:
        # its null is all 64 assignments, and so is ours when given that null
        d = np.array([1.0, -2.0, 2.0, 3.0, -1.0, 1.0])
        signs = np.array(np.meshgrid(*[[1.0, -1.0]] * 6)).reshape(6, -1).T
        null = (signs * d).mean(axis=1)
        t = d.mean()
        for alternative in ("two-sided", "greater", "less"):
            ref = stats.permutation_test(
                (d,), np.mean, permutation_type="samples", alternative=alternative,
                n_resamples=np.inf,
            ).pvalue  # fmt: skip
            got = null_pvalue(null, t, gamma=tie_tolerance(t), alternative=alternative, exact=True)
            # scipy doubles the smaller one-sided p for two-sided; the null is symmetric
            assert got[0] == pytest.approx(ref, abs=1e-12)

    def test_tie_tolerance_is_drift_plus_100_epsilons_of_each_magnitude(self) -> None:
        assert tie_tolerance(2.0) == 100 * EPS * 2.0
        assert tie_tolerance(-2.0, 0.5) == 100 * EPS * 2.5
        assert tie_tolerance(2.0, drift=1e-9) == 1e-9 + 100 * EPS * 2.0
        assert tie_tolerance(0.0) == 0.0

    @pytest.mark.parametrize("batch", [None, 7])
    def test_binomial_engine_with_strata_is_the_null_written_out(self, batch: int | None) -> None:
        rng = np.random.default_rng(5)
        diffs = [rng.choice([-1.0, 0.0, 1.0], size=n, p=[0.2, 0.5, 0.3]) for n in (40, 25, 60)]
        d = binary_design(diffs)
        n_perm = 300
        core = randomization_design(
            d,
            n_permutations=n_perm,
            alternative="two-sided",
            seed_sequence=np.random.SeedSequence(17),
            batch=batch,
        )
        assert core.engine == "binomial"
        want = binomial_null(diffs, None, d.weight, 17, n_perm)
        np.testing.assert_allclose(core.null_distribution, want, rtol=0, atol=1e-12)
        t = sum(w * x.mean() for w, x in zip(d.weight, diffs, strict=True))
        extreme = np.count_nonzero(np.abs(want) >= abs(t) - 1e-9)
        assert core.pvalue == (1 + extreme) / (1 + n_perm)

    def test_binomial_engine_on_a_compressed_design_counts_each_row_freq_times(self) -> None:
        # 0/1 outcomes as the Dask path compresses them: one row per distinct
        # difference with its frequency; the null must be that of the units
        diffs = [np.array([-1.0, 0.0, 1.0]), np.array([-1.0, 1.0, 0.0])]
        freq = [np.array([9, 30, 14]), np.array([5, 21, 12])]
        d = binary_design(diffs, freq)
        assert d.n_units == 91
        n_perm = 250
        core = randomization_design(
            d,
            n_permutations=n_perm,
            alternative="greater",
            seed_sequence=np.random.SeedSequence(3),
            batch=None,
        )
        assert core.engine == "binomial"
        want = binomial_null(diffs, freq, d.weight, 3, n_perm)
        np.testing.assert_allclose(core.null_distribution, want, rtol=0, atol=1e-12)
        # the observed statistic is the units' mean difference, frequencies counted
        t = sum(w * (x * f).sum() / f.sum() for w, x, f in zip(d.weight, diffs, freq, strict=True))
        extreme = np.count_nonzero(want >= t - 1e-9)
        assert core.pvalue == (1 + extreme) / (1 + n_perm)

    def test_few_distinct_switches_at_exactly_16_units_per_distinct_value(self) -> None:
        assert _FEW_FACTOR == 16
        # one stratum, |q| in {0, 1}: 2 distinct values; 32 units is "few", 31 is not
        q = np.r_[np.zeros(10, np.int64), np.ones(22, np.int64)]
        assert _few_distinct(q, np.array([0, 32]), 32) is True
        assert _few_distinct(q[1:], np.array([0, 31]), 31) is False
        # distinct values are counted per stratum: {0, 1} in each of two strata is 4
        assert _few_distinct(np.r_[q, q], np.array([0, 32, 64]), 64) is True
        assert _few_distinct(np.r_[q, q[1:]], np.array([0, 32, 63]), 63) is False
