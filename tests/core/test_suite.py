"""Pooling of per-task estimates checked against statsmodels and written-out likelihoods."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize, stats
from statsmodels.stats.meta_analysis import combine_effects

from pdpaired.core.suite import pool_tasks, tau2_dl, tau2_reml

# heterogeneous effects: Q > k - 1, so DerSimonian-Laird is positive (statsmodels does
# not truncate it at 0, pdpaired does; the two agree whenever it is positive)
Y = np.array([0.10, 0.30, -0.05, 0.20, 0.50, 0.12])
SE = np.array([0.05, 0.10, 0.08, 0.06, 0.12, 0.04])


def restricted_loglik(tau2: float, y: np.ndarray, v: np.ndarray) -> float:
    """The restricted (REML) log-likelihood of the random-effects model, up to a constant."""
    w = 1.0 / (v + tau2)
    mu = np.sum(w * y) / np.sum(w)
    return -0.5 * (np.sum(np.log(v + tau2)) + math.log(np.sum(w)) + np.sum(w * (y - mu) ** 2))


def reml_oracle(y: np.ndarray, v: np.ndarray) -> float:
    res = optimize.minimize_scalar(
        lambda t: -restricted_loglik(t, y, v), bounds=(0.0, 10 * np.var(y) + 1.0),
        method="bounded", options={"xatol": 1e-14},
    )  # fmt: skip
    return float(res.x)


class TestAgainstStatsmodels:
    @pytest.mark.parametrize("level", [0.95, 0.9])
    def test_fixed_and_dersimonian_laird(self, level: float) -> None:
        p = pool_tasks(Y, SE, tau2_method="dl", confidence_level=level)
        sm = combine_effects(Y, SE**2, method_re="dl", alpha=1 - level)
        (fe_low, fe_high), (re_low, re_high), *_ = sm.conf_int(alpha=1 - level, use_t=False)
        assert sm.tau2 > 0
        for ours, theirs in [
            (p.fixed, sm.mean_effect_fe), (p.fixed_se, sm.sd_eff_w_fe),
            (p.fixed_low, fe_low), (p.fixed_high, fe_high),
            (p.tau2, sm.tau2), (p.random, sm.mean_effect_re), (p.random_se, sm.sd_eff_w_re),
            (p.random_low, re_low), (p.random_high, re_high), (p.q, sm.q),
        ]:  # fmt: skip
            assert ours == pytest.approx(theirs, abs=1e-10, rel=1e-10)
        homog = sm.test_homogeneity()
        assert p.q_pvalue == pytest.approx(homog.pvalue, abs=1e-10)
        assert p.q_df == homog.df == len(Y) - 1
        assert p.i2 == pytest.approx((sm.q - (len(Y) - 1)) / sm.q, abs=1e-12)
        np.testing.assert_allclose(p.weights_fixed, sm.weights_rel_fe, atol=1e-12)
        np.testing.assert_allclose(p.weights_random, sm.weights_rel_re, atol=1e-12)

    @pytest.mark.parametrize("level", [0.95, 0.9])
    def test_hartung_knapp_sidik_jonkman_interval(self, level: float) -> None:
        p = pool_tasks(Y, SE, tau2_method="dl", confidence_level=level, random_ci="hksj")
        sm = combine_effects(Y, SE**2, method_re="dl")
        *_, (hk_low, hk_high) = sm.conf_int(alpha=1 - level, use_t=True)
        assert p.random_ci == "hksj"
        assert p.random_ci_df == len(Y) - 1 == sm.df_resid
        for ours, theirs in [
            (p.random_low, hk_low), (p.random_high, hk_high),
            (p.random_ci_se, sm.sd_eff_w_re_hksj),
            (p.random_se, sm.sd_eff_w_re), (p.random, sm.mean_effect_re),
        ]:  # fmt: skip
            assert ours == pytest.approx(theirs, abs=1e-10, rel=1e-10)
        # the fixed-effect interval and the prediction interval do not depend on the choice
        w = pool_tasks(Y, SE, tau2_method="dl", confidence_level=level, random_ci="wald")
        assert (w.fixed_low, w.prediction_low) == (p.fixed_low, p.prediction_low)
        assert w.random_ci_se == w.random_se
        assert w.random_ci_df is None

    def test_hksj_with_reml_written_out(self) -> None:
        v = SE**2
        tau2 = reml_oracle(Y, v)
        w = 1 / (v + tau2)
        mu = np.sum(w * Y) / np.sum(w)
        k = len(Y)
        se_hk = math.sqrt(np.sum(w * (Y - mu) ** 2) / ((k - 1) * np.sum(w)))
        half = stats.t.ppf(0.975, k - 1) * se_hk
        p = pool_tasks(Y, SE, tau2_method="reml", confidence_level=0.95, random_ci="hksj")
        assert p.random_low == pytest.approx(mu - half, abs=1e-8)
        assert p.random_high == pytest.approx(mu + half, abs=1e-8)

    def test_hksj_is_narrower_than_its_model_standard_error_when_q_is_small(self) -> None:
        # the documented property of the unmodified interval: SE_HK < SE_RE when the
        # weighted residuals sum to less than k - 1 (here tau2 = 0 and Q < k - 1)
        y = np.array([0.10, 0.11, 0.09, 0.10])
        se = np.array([0.05, 0.06, 0.04, 0.05])
        p = pool_tasks(y, se, tau2_method="reml", confidence_level=0.95, random_ci="hksj")
        assert p.q < len(y) - 1
        assert p.random_ci_se == pytest.approx(p.random_se * math.sqrt(p.q / (len(y) - 1)))
        two = pool_tasks(Y[:2], SE[:2], tau2_method="dl", confidence_level=0.95, random_ci="hksj")
        assert two.random_ci_df == 1  # two tasks: t with one degree of freedom

    def test_reml_maximises_the_restricted_likelihood(self) -> None:
        v = SE**2
        want = reml_oracle(Y, v)
        got = tau2_reml(Y, v)
        assert got == pytest.approx(want, rel=1e-7)
        assert restricted_loglik(got, Y, v) >= restricted_loglik(want, Y, v) - 1e-12
        p = pool_tasks(Y, SE, tau2_method="reml", confidence_level=0.95)
        w = 1 / (v + got)
        assert p.random == pytest.approx(np.sum(w * Y) / np.sum(w), abs=1e-12)
        assert p.random_se == pytest.approx(np.sum(w) ** -0.5, abs=1e-12)

    def test_reml_on_other_data_sets(self) -> None:
        rng = np.random.default_rng(3)
        for _ in range(20):
            k = int(rng.integers(3, 12))
            se = rng.uniform(0.02, 0.2, k)
            y = rng.normal(0.1, rng.uniform(0, 0.2), k) + rng.normal(0, se)
            assert tau2_reml(y, se**2) == pytest.approx(reml_oracle(y, se**2), abs=1e-9)


class TestBoundaries:
    def test_homogeneous_tasks_give_tau2_zero_and_random_equals_fixed(self) -> None:
        y = np.array([0.10, 0.11, 0.09, 0.10])
        se = np.array([0.05, 0.06, 0.04, 0.05])
        assert tau2_dl(y, se**2) == 0.0
        for method in ("reml", "dl"):
            p = pool_tasks(y, se, tau2_method=method, confidence_level=0.95)
            assert p.tau2 == 0.0
            assert p.i2 == 0.0
            assert p.random == pytest.approx(p.fixed, abs=1e-15)
            assert p.random_se == pytest.approx(p.fixed_se, abs=1e-15)
        # the restricted likelihood is maximal on the boundary
        assert reml_oracle(y, se**2) < 1e-8

    def test_prediction_interval_formula(self) -> None:
        p = pool_tasks(Y, SE, tau2_method="reml", confidence_level=0.9)
        t = stats.t.ppf(0.95, len(Y) - 2)
        half = t * math.sqrt(p.tau2 + p.random_se**2)
        assert p.prediction_low == pytest.approx(p.random - half, abs=1e-12)
        assert p.prediction_high == pytest.approx(p.random + half, abs=1e-12)

    def test_two_tasks_have_no_prediction_interval(self) -> None:
        p = pool_tasks(Y[:2], SE[:2], tau2_method="dl", confidence_level=0.95)
        assert p.prediction_low is None
        assert p.prediction_high is None

    def test_sidak_level_covers_jointly(self) -> None:
        p = pool_tasks(Y, SE, tau2_method="dl", confidence_level=0.95)
        assert p.simultaneous_level ** len(Y) == pytest.approx(0.95, abs=1e-14)
        assert p.simultaneous_z == pytest.approx(
            stats.norm.ppf(1 - (1 - p.simultaneous_level) / 2), abs=1e-12
        )

    def test_order_of_tasks_is_irrelevant(self) -> None:
        perm = np.array([3, 0, 5, 1, 4, 2])
        for method in ("reml", "dl"):
            p = pool_tasks(Y, SE, tau2_method=method, confidence_level=0.95)
            q = pool_tasks(Y[perm], SE[perm], tau2_method=method, confidence_level=0.95)
            assert q.random == pytest.approx(p.random, abs=1e-13)
            assert q.tau2 == pytest.approx(p.tau2, abs=1e-13)
