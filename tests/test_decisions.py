"""Decisions from degenerate or sparse data, and the Monte Carlo error of the interval.

Covers ``verdict``, ``confidence_interval_se``, ``decision_stable`` and
``n_resamples="auto"``.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import pdpaired
from pdpaired import DegenerateDataWarning


def long_table(a: np.ndarray, b: np.ndarray) -> pd.DataFrame:
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
        return df.paired.bootstrap("A", "B", higher_is_better=True, **kw)


def test_all_cases_won_is_undetermined_with_no_decision_flag() -> None:
    """5 cases, all won by A: CI [1, 1]; both exact tests give p = 0.0625."""
    df = long_table(np.ones(5), np.zeros(5))
    with pytest.warns(DegenerateDataWarning, match="identical"):
        res = df.paired.bootstrap("A", "B", higher_is_better=True, rng=0, noninferiority_margin=0.1)
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


def test_endpoint_on_an_atom_is_undetermined() -> None:
    """n = 50, one discordant pair: replicates k/50 with k ~ Binomial(50, 1/50); P(k = 0) =
    0.36 > 2.5%, so the low endpoint is the atom 0 and its tail holds one value."""
    a = np.r_[1.0, np.zeros(49)]
    res = quiet_boot(long_table(a, np.zeros(50)), rng=0)
    assert res.confidence_interval.low == 0.0
    assert res.degenerate
    assert res.verdict == "undetermined"
    assert not res.superior_ci


def test_sparse_discordant_pairs_say_the_exact_test_disagrees() -> None:
    """n = 50, 4-0 split: percentile CI [0.02, 0.16] excludes 0; exact p = 0.125."""
    a = np.r_[np.ones(4), np.zeros(46)]
    df = long_table(a, np.zeros(50))
    with pytest.warns(DegenerateDataWarning, match="exact test is the one to trust"):
        res = df.paired.bootstrap("A", "B", higher_is_better=True, rng=0)
    assert res.confidence_interval.low > 0
    p = stats.binomtest(4, 4, 0.5).pvalue  # independent oracle: 2 * 0.5**4
    assert p == pytest.approx(0.125)
    assert res.exact_check is not None
    assert "p = 0.125" in res.exact_check
    assert "Exact test" in str(res)
    # lower is better: the same data mirrored give the same note (B's point of view)
    df_low = long_table(1 - a, np.ones(50))
    with pytest.warns(DegenerateDataWarning, match="4 won by A, 0 by B"):
        df_low.paired.bootstrap("A", "B", higher_is_better=False, rng=0)


def test_no_exact_note_when_they_agree_or_scores_are_not_binary() -> None:
    rng = np.random.default_rng(3)
    a = (rng.uniform(size=300) < 0.7).astype(float)
    b = (rng.uniform(size=300) < 0.5).astype(float)
    res = quiet_boot(long_table(a, b), rng=0)
    assert res.exact_check is None
    assert res.verdict == "a_better"
    cont = quiet_boot(long_table(rng.normal(size=30), rng.normal(size=30)), rng=0)
    assert cont.exact_check is None


def continuous_frame(n: int = 200, seed: int = 7) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    base = rng.gamma(2.0, 1.0, n)
    return long_table(base + rng.gamma(1.0, 0.3, n), base)  # skewed differences, mean 0.3


@pytest.mark.parametrize("method", ["percentile", "basic", "bca"])
def test_endpoint_se_matches_spread_over_seeds(method: str) -> None:
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


def test_decision_stable_flags_a_threshold_near_its_endpoint() -> None:
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
    flat = long_table(x, np.zeros(100))
    res0 = quiet_boot(flat, rng=0, n_resamples=2_000)
    low0, se0 = res0.confidence_interval.low, res0.confidence_interval_se.low
    assert low0 < 0
    margin = quiet_boot(flat, rng=0, n_resamples=2_000, noninferiority_margin=-low0 + 0.5 * se0)
    assert not margin.decision_stable


def test_auto_resamples_are_bit_identical_to_asking_for_that_many() -> None:
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


def test_auto_stops_at_once_for_a_degenerate_interval() -> None:
    res = quiet_boot(long_table(np.ones(5), np.zeros(5)), rng=0, n_resamples="auto")
    assert res.n_resamples == 2_000
    assert res.verdict == "undetermined"


def test_bad_n_resamples_still_rejected() -> None:
    df = continuous_frame(20)
    with pytest.raises((TypeError, ValueError), match="n_resamples"):
        df.paired.bootstrap("A", "B", higher_is_better=True, n_resamples="many")


def test_artifact_of_a_degenerate_comparison_verifies(tmp_path: object) -> None:
    df = long_table(np.ones(6), np.zeros(6))
    cmp = df.paired.compare("A", "B", higher_is_better=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = cmp.report(rng=0, n_resamples=500, n_permutations=100)
    assert rep.bootstrap.verdict == "undetermined"
    paths = rep.save(tmp_path)
    for path in paths.values() if isinstance(paths, dict) else paths:
        if str(path).endswith(".json"):
            pdpaired.verify(path)
    assert "Verdict: undetermined" in rep.to_markdown()  # the headline states it
    art = rep.to_dict() if hasattr(rep, "to_dict") else None
    if art is not None and "decisions" in art:
        assert art["decisions"]["undetermined"] is True


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


@pytest.mark.parametrize(("b", "c", "n"), [(4, 0, 50), (12, 2, 50), (7, 9, 40), (30, 10, 200)])
def test_tango_interval_matches_first_principles(b: int, c: int, n: int) -> None:
    from pdpaired.core.bootstrap import tango_interval, tango_statistic

    low, high = tango_interval(b, c, n, 0.95)
    ref = tango_by_optimization(b, c, n, 0.95)
    assert low == pytest.approx(ref[0], abs=1e-6)
    assert high == pytest.approx(ref[1], abs=1e-6)
    # at delta = 0 the score statistic is McNemar's (b - c) / sqrt(b + c)
    assert tango_statistic(b, c, n, 0.0) == pytest.approx((b - c) / math.sqrt(b + c))


def test_tango_method_through_the_api() -> None:
    a = np.r_[np.ones(12), np.zeros(2), np.ones(20), np.zeros(16)]
    b = np.r_[np.zeros(12), np.ones(2), np.ones(20), np.zeros(16)]
    df = long_table(a, b)
    res = quiet_boot(df, rng=0, method="tango", n_resamples=500)
    ref = tango_by_optimization(12, 2, 50, 0.95)
    assert res.method == "tango"
    assert res.confidence_interval.low == pytest.approx(ref[0], abs=1e-6)
    assert res.confidence_interval.high == pytest.approx(ref[1], abs=1e-6)
    assert res.improvement == pytest.approx(10 / 50)
    # lower is better: pass is 0, the same interval in the improvement direction
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        low = long_table(1 - a, 1 - b).paired.bootstrap(
            "A", "B", higher_is_better=False, rng=0, method="tango", n_resamples=500
        )
    assert low.confidence_interval == res.confidence_interval
    with pytest.raises(ValueError, match="0/1 scores"):
        quiet_boot(continuous_frame(30), rng=0, method="tango", n_resamples=100)
