"""Mutants of ``pdpaired/core/bootstrap.py`` that other tests miss, each killed by a value.

Each test checks a value of the bootstrap module against an oracle written
here: scipy (``scipy.stats.bootstrap``'s BCa interval, ``binomtest``),
statsmodels' Hall-Sheather bandwidth, the delta-method variance of a BCa
endpoint derived in the test, Tango's (1998) interval in closed form for an
all-discordant table and by numerical likelihood maximization
(``tango_by_optimization``, as in tests/test_decisions.py), Davison & Hinkley's stratified
acceleration written out over the units, and the documented warning texts.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.regression.quantile_regression import hall_sheather

import pdpaired
from pdpaired import DegenerateDataWarning
from pdpaired.core.engine import Design
from pdpaired.core.bootstrap import (
    DesignResampler,
    Levels,
    acceleration,
    bootstrap_replicates,
    endpoint_se,
    few_units_message,
    interval,
    sparsity,
    tango_interval,
    tango_statistic,
)
from pdpaired.results.base import ConfidenceInterval

from .test_decisions import tango_by_optimization


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
def dh_acceleration(theta: np.ndarray, stratum: np.ndarray, w: np.ndarray) -> float:
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


def test_acceleration_sums_float32_counts_in_float64() -> None:
    """Counts in a float32 array are summed in float64 when equal entries are merged:
    2**24 + 1 is not a float32, so summing in float32 loses a unit."""
    theta = np.array([0.5, 0.5, 0.1, 0.9])
    counts = np.array([2**24, 1, 3, 5], dtype=np.float32)
    assert np.float32(2**24) + np.float32(1) == np.float32(2**24)  # the trap
    sizes = np.array([2**24 + 9])
    got = acceleration(theta, np.zeros(4, dtype=np.int64), sizes, counts)
    assert got == pytest.approx(dh_acceleration(theta, np.zeros(4), counts), rel=1e-10)


def test_acceleration_does_not_depend_on_how_units_are_grouped() -> None:
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
    assert one_by_one == pytest.approx(dh_acceleration(theta, stratum, np.ones(17)), rel=1e-12)


# ---------------------------------------------------------------------------
# endpoint_se: the delta-method variance of a BCa endpoint
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(("z0", "acc"), [(0.3, 0.05), (-0.4, -0.08), (0.15, 0.0)])
def test_bca_endpoint_se_is_the_delta_method(z0: float, acc: float) -> None:
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


# ---------------------------------------------------------------------------
# sparsity: Hall & Sheather's bandwidth, and its widening on atoms
# ---------------------------------------------------------------------------
def linear_quantile(sorted_x: np.ndarray, p: float) -> float:
    """numpy's default ("linear") quantile, written out: interpolate at index p (n - 1)."""
    return float(np.interp(p * (sorted_x.size - 1), np.arange(sorted_x.size), sorted_x))


@pytest.mark.parametrize("p", [0.025, 0.1, 0.5, 0.9, 0.975])
def test_sparsity_uses_the_hall_sheather_bandwidth(p: float) -> None:
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


def test_sparsity_window_doubles_until_it_leaves_an_atom() -> None:
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
def test_bca_counts_replicates_tied_with_the_estimate_half() -> None:
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
        ci, _, degenerate = interval(dist, d.mean(), method="bca", confidence_level=0.95,
                                     theta=lambda: float(d.mean()), accel=lambda: a)  # fmt: skip
    assert not degenerate
    assert ci.low == pytest.approx(res.confidence_interval.low, abs=1e-12)
    assert ci.high == pytest.approx(res.confidence_interval.high, abs=1e-12)


@pytest.mark.parametrize("df", [None, 4])
def test_collapsed_interval_reports_its_tail_level(df: int | None) -> None:
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
def test_tango_when_every_pair_is_won_by_one_model(n: int) -> None:
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


def test_tango_method_all_cases_won_gives_upper_end_one() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        res = binary_table(8, 0, 0).paired.bootstrap(
            "A", "B", higher_is_better=True, rng=0, method="tango", n_resamples=200
        )
    z = stats.norm.ppf(0.975)
    assert res.confidence_interval.high == 1.0
    assert res.confidence_interval.low == pytest.approx((8 - z**2) / (8 + z**2), abs=1e-10)


@pytest.mark.parametrize(("b", "c", "n"), [(1, 0, 2), (1, 0, 3), (2, 1, 4), (1, 1, 3), (0, 1, 2)])
def test_tango_with_a_handful_of_pairs(b: int, c: int, n: int) -> None:
    """Tiny tables, where n (2q + delta (1 - delta)) drops below 1 near the ends: the
    statistic at 0 is McNemar's (b - c) / sqrt(b + c), the interval the first-principles one."""
    assert tango_statistic(b, c, n, 0.0) == pytest.approx((b - c) / math.sqrt(b + c), abs=1e-12)
    low, high = tango_interval(b, c, n, 0.95)
    ref = tango_by_optimization(b, c, n, 0.95)
    assert low == pytest.approx(ref[0], abs=1e-6)
    assert high == pytest.approx(ref[1], abs=1e-6)


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


def test_tango_interval_is_checked_against_the_exact_test() -> None:
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


def test_no_exact_check_at_25_discordant_pairs() -> None:
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


def test_exact_check_only_for_differences_in_minus_one_zero_one() -> None:
    """Five positive differences and an interval above 0: a sign test (p = 0.0625) would
    disagree, but the check is only for 0/1 scores; the same for 0/1 scores does speak."""
    ci = ConfidenceInterval(low=0.3, high=1.5)
    cont = DesignResampler(one_stratum(np.array([0.5, 1.2, 0.3, 2.0, 0.9])))
    assert cont.exact_check(ci, 0.95) is None
    binary = DesignResampler(one_stratum(np.ones(5)))
    assert binary.exact_check(ci, 0.95) == exact_note(5, 0, 0.95, interval_excludes=True)


def test_exact_check_when_the_exact_test_excludes_and_the_interval_does_not() -> None:
    """6-0 split: exact p = 2 / 64 = 0.031 < 0.05; an interval reaching below 0."""
    r = DesignResampler(one_stratum(np.r_[np.ones(6), np.zeros(4)]))
    note = r.exact_check(ConfidenceInterval(low=-0.05, high=0.5), 0.95)
    assert note == exact_note(6, 0, 0.95, interval_excludes=False)
    assert "p = 0.0312: it excludes a difference of 0 at the 5% level" in note


@pytest.mark.parametrize(
    ("method", "who"), [("tango", "Tango's"), ("newcombe", "Newcombe's (1998, method 10)")]
)
def test_score_methods_name_themselves_when_refusing(method: str, who: str) -> None:
    rng = np.random.default_rng(0)
    df = long_table(rng.normal(size=20), rng.normal(size=20))
    with pytest.raises(ValueError, match="score interval") as err:
        df.paired.bootstrap("A", "B", higher_is_better=True, rng=0, method=method, n_resamples=100)
    assert str(err.value).startswith(f"method={method!r} ({who} score interval for a paired")


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


def test_undefined_replicates_are_dropped_with_the_resamplers_message() -> None:
    reps = np.random.default_rng(0).normal(size=1_000)
    reps[::40] = np.nan  # 25 of 1,000: 97.5% valid, below the 99% that warns
    with pytest.warns(DegenerateDataWarning) as rec:
        core = run(FixedResampler(reps, 0.0), "percentile")
    assert [str(w.message) for w in rec] == ["25 of 1000 replicates undefined"]
    valid = reps[np.isfinite(reps)]
    assert core.distribution.size == 975
    np.testing.assert_allclose([core.confidence_interval.low, core.confidence_interval.high],
                               np.percentile(valid, [2.5, 97.5]), rtol=1e-14)  # fmt: skip


def test_acceleration_only_for_bca_and_before_any_interval_warning() -> None:
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


def test_an_endpoint_on_an_atom_marks_the_core_degenerate() -> None:
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
def test_singleton_strata_warning_text() -> None:
    d = Design(value=np.array([0.1, 0.2, -0.3, 0.4, 0.5]), count=None,
               unit_ptr=np.array([0, 1, 4, 5]), weight=np.full(3, 1 / 3), sign=1.0)  # fmt: skip
    assert DesignResampler(d).singleton_warning() == (
        "2 stratum/strata hold a single resampling unit: resampling within them cannot "
        "vary, so they add no sampling variance and the interval is too narrow. Merge "
        "small strata or resample without them."
    )


def test_few_units_message_text() -> None:
    many = few_units_message(np.array([3, 2, 4]), 6)
    assert many == (
        "Only 9 resampling units (3 stratum/strata, 6 design degrees of freedom): below 8 "
        "degrees of freedom no bootstrap interval reliably reaches its confidence level, "
        "even with the small-sample correction. Use fewer strata, the randomization test "
        "(exact at this size), or for 0/1 scores the exact binomial test."
    )
    one = few_units_message(np.array([5]), 4)
    assert one == (
        "Only 5 resampling units (1 stratum/strata, 4 design degrees of freedom): below 8 "
        "degrees of freedom no bootstrap interval reliably reaches its confidence level, "
        "even with the small-sample correction. Use the randomization test (exact at this "
        "size), or for 0/1 scores the exact binomial test."
    )  # one stratum: nothing to merge, and fewer units would not help
    two = few_units_message(np.array([3, 2]), 3)  # two strata can be merged too
    assert two is not None
    assert "(2 stratum/strata, 3 design degrees of freedom)" in two
    assert "Use fewer strata, the randomization test" in two
    assert few_units_message(np.array([5, 5]), 8) is None


def test_design_theta_is_the_weighted_mean_of_stratum_means() -> None:
    """BCa's ``theta``: sum_h W_h (sum of unit sums / cases in stratum h), direction-adjusted."""
    v0, v1 = np.array([0.2, -0.1, 0.5]), np.array([1.0, 0.4, -0.3, 0.9])
    plain = Design(value=np.r_[v0, v1], count=None, unit_ptr=np.array([0, 3, 7]),
                   weight=np.array([0.3, 0.7]), sign=-1.0)  # fmt: skip
    assert DesignResampler(plain).theta() == pytest.approx(-(0.3 * v0.mean() + 0.7 * v1.mean()))
    counts = np.array([2, 1, 3, 1, 2, 2, 1])  # cluster sums over 2, 1, 3, ... cases
    clusters = Design(value=np.r_[v0, v1], count=counts, unit_ptr=np.array([0, 3, 7]),
                      weight=np.array([0.3, 0.7]), sign=1.0)  # fmt: skip
    expected = 0.3 * v0.sum() / counts[:3].sum() + 0.7 * v1.sum() / counts[3:].sum()
    assert DesignResampler(clusters).theta() == pytest.approx(expected, rel=1e-12)
