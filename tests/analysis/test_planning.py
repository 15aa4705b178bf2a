"""Planning (``Comparison.plan``): power, detectable effects and sizes, against oracles.

Oracles: the paired t-test's power from scipy's noncentral t written here
(and statsmodels' ``TTestPower``), the exact McNemar power by brute-force
enumeration of every (A only, B only, concordant) outcome with
``scipy.stats.binomtest``, and simulations of fresh data at the planned size.
"""

from __future__ import annotations

import json
import math

import matplotlib as mpl
import numpy as np
import pandas as pd
import pytest
from scipy import stats

import pdpaired

mpl.use("Agg")


def paired_frame(d: np.ndarray, group: np.ndarray | None = None, stratum=None) -> pd.DataFrame:
    n = d.size
    df = pd.DataFrame(
        {
            "case_id": np.tile(np.arange(n), 2),
            "model": np.repeat(["a", "b"], n),
            "score": np.concatenate([d, np.zeros(n)]),
        }
    )
    if group is not None:
        df["group"] = np.tile(group, 2)
    if stratum is not None:
        df["stratum"] = np.tile(stratum, 2)
    return df


def binary_frame(a_only: int, b_only: int, both_pass: int, both_fail: int) -> pd.DataFrame:
    a = [1] * a_only + [0] * b_only + [1] * both_pass + [0] * both_fail
    b = [0] * a_only + [1] * b_only + [1] * both_pass + [0] * both_fail
    n = len(a)
    return pd.DataFrame(
        {
            "case_id": np.tile(np.arange(n), 2),
            "model": np.repeat(["a", "b"], n),
            "score": np.concatenate([a, b]),
        }
    )


def t_power(delta: float, sd: float, n: int, alpha: float, alternative: str) -> float:
    """Paired t-test power, written from the noncentral t distribution."""
    df, nc = n - 1, delta / (sd / math.sqrt(n))
    if alternative == "two-sided":
        c = stats.t.ppf(1 - alpha / 2, df)
        return float(stats.nct.sf(c, df, nc) + np.nan_to_num(stats.nct.cdf(-c, df, nc)))
    c = stats.t.ppf(1 - alpha, df)
    return float(stats.nct.sf(c, df, nc if alternative == "greater" else -nc))


@pytest.fixture(scope="module")
def iid() -> tuple[pd.DataFrame, float]:
    d = np.random.default_rng(1).normal(0.2, 1.0, 60)
    return paired_frame(d), float(d.std(ddof=1))


# --------------------------------------------------------------------------- McNemar
def brute_force_mcnemar(n: int, p10: float, p01: float, alpha: float, alternative: str) -> float:
    """Sum over every (A only, B only) outcome of n cases of P(outcome) * [binomtest rejects]."""
    total = 0.0
    p_c = 1.0 - p10 - p01
    for k in range(n + 1):
        for j in range(n + 1 - k):
            prob = stats.multinomial.pmf([k, j, n - k - j], n, [p10, p01, p_c])
            if prob < 1e-300:
                continue
            if k + j == 0:
                continue
            pv = stats.binomtest(k, k + j, 0.5, alternative=alternative).pvalue
            total += prob * (pv <= alpha)
    return total


def clustered(seed: int, n_groups: int = 80, m: int = 6, rho: float = 0.3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    u = rng.normal(0, math.sqrt(rho), n_groups)
    d = 0.1 + np.repeat(u, m) + rng.normal(0, math.sqrt(1 - rho), n_groups * m)
    return paired_frame(d, group=np.repeat(np.arange(n_groups), m))


# --------------------------------------------------------------------------- analytic, iid
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_power_is_the_paired_t_power(iid, alternative) -> None:
    df, sd = iid
    res = df.paired.compare("a", "b", higher_is_better=True)
    p = res.plan(alternative=alternative)
    assert p.test == "t"
    assert p.sd_diff == pytest.approx(sd, rel=1e-12)
    assert p.standard_error == pytest.approx(sd / math.sqrt(60), rel=1e-12)
    for delta in (0.05, 0.2, 0.4):
        signed = -delta if alternative == "less" else delta
        for n in (10, 60, 500):
            assert p.power_at(signed, n) == pytest.approx(
                t_power(signed, sd, n, 0.05, alternative), abs=1e-9
            )
    # the minimum detectable effect has the target power
    assert abs(p.power_at(p.mde)) == pytest.approx(0.8, abs=1e-7)


def test_plan_agrees_with_statsmodels(iid) -> None:
    smp = pytest.importorskip("statsmodels.stats.power")
    df, sd = iid
    cmp = df.paired.compare("a", "b", higher_is_better=True)
    p = cmp.plan(effect=0.25, power=0.9, alpha=0.01)
    tt = smp.TTestPower()
    nobs = tt.solve_power(effect_size=0.25 / sd, alpha=0.01, power=0.9)
    assert p.n_cases_needed == math.ceil(nobs)
    es = tt.solve_power(nobs=60, alpha=0.01, power=0.9)
    assert p.mde == pytest.approx(es * sd, rel=1e-6)
    assert p.power_at(0.25, 60) == pytest.approx(tt.power(0.25 / sd, 60, 0.01), abs=1e-9)


def test_lower_is_better_flips_the_direction() -> None:
    d = np.random.default_rng(2).normal(-0.3, 1.0, 40)
    df = paired_frame(d)
    lo = df.paired.compare("a", "b", higher_is_better=False).plan(alternative="greater")
    hi = df.paired.compare("a", "b", higher_is_better=True).plan(alternative="less")
    assert lo.improvement == pytest.approx(-hi.improvement)
    assert lo.power_at(0.2) == pytest.approx(hi.power_at(-0.2))


@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
def test_exact_mcnemar_power_by_enumeration(alternative) -> None:
    df = binary_frame(6, 2, 10, 12)  # n = 30, discordance 8/30
    p = df.paired.compare("a", "b", higher_is_better=True).plan(alternative=alternative)
    assert p.test == "exact_binomial"
    assert p.discordant_rate == pytest.approx(8 / 30)
    p_d = 8 / 30
    for delta in (0.0, 0.1, 0.2):
        for n in (12, 30):
            want = brute_force_mcnemar(n, (p_d + delta) / 2, (p_d - delta) / 2, 0.05, alternative)
            assert p.power_at(delta, n) == pytest.approx(want, abs=1e-10)


def test_mcnemar_simulation_matches_exact() -> None:
    df = binary_frame(30, 12, 300, 58)  # n = 400
    cmp = df.paired.compare("a", "b", higher_is_better=True)
    exact = cmp.plan(effect=0.03)
    sim = cmp.plan(effect=0.03, method="simulation", n_simulations=4000, rng=3)
    for delta in (0.02, 0.04, 0.06):
        e = exact.power_at(delta)
        # MC sd of a power estimated from 4000 draws <= sqrt(.25/4000) = 0.0079; allow 4 sd
        assert sim.power_at(delta) == pytest.approx(e, abs=4 * math.sqrt(e * (1 - e) / 4000) + 1e-3)
    assert sim.seed == 3
    again = cmp.plan(effect=0.03, method="simulation", n_simulations=4000, rng=3)
    assert again.n_cases_needed == sim.n_cases_needed
    assert again.power_at(0.04) == sim.power_at(0.04)


# --------------------------------------------------------------------------- simulation
def test_simulation_agrees_with_analytic_on_iid_normal(iid) -> None:
    df, _ = iid
    cmp = df.paired.compare("a", "b", higher_is_better=True)
    an = cmp.plan()
    sim = cmp.plan(method="simulation", n_simulations=4000, rng=0)
    for delta in (0.1, 0.25, 0.4):
        a = an.power_at(delta)
        # 4000 simulated comparisons: sd <= 0.0079; 4 sd, plus the normal data's
        # resampling (the empirical distribution of 60 draws) adds a little
        assert sim.power_at(delta) == pytest.approx(a, abs=4 * math.sqrt(a * (1 - a) / 4000) + 0.02)


def test_clustered_design_effect_and_simulation() -> None:
    df = clustered(5)
    cmp = df.paired.compare("a", "b", higher_is_better=True)
    an = cmp.plan(effect=0.15)
    assert an.unit == "group"
    # design effect 1 + (m - 1) * icc, with icc near the true 0.3 (80 groups: sd ~ 0.06)
    assert an.design_effect == pytest.approx(1 + 5 * an.icc, rel=1e-12)
    assert 0.15 < an.icc < 0.45
    # the analytic standard error is the cluster-robust one: group means' sd / sqrt(G)
    g = df[df.model == "a"].groupby("group")["score"].mean()
    assert an.standard_error == pytest.approx(g.std(ddof=1) / math.sqrt(80), rel=1e-10)
    assert an.n_groups_needed is not None
    assert an.n_cases_needed == an.n_groups_needed * 6
    sim = cmp.plan(effect=0.15, method="simulation", n_simulations=4000, rng=1)
    for delta in (0.05, 0.15):
        a = an.power_at(delta)
        assert sim.power_at(delta) == pytest.approx(a, abs=4 * math.sqrt(a * (1 - a) / 4000) + 0.02)


def test_strata_are_kept() -> None:
    rng = np.random.default_rng(4)
    n = 200
    stratum = np.repeat(["x", "y"], n // 2)
    d = np.where(stratum == "x", rng.normal(0.0, 0.5, n), rng.normal(0.4, 2.0, n))
    p = paired_frame(d, stratum=stratum).paired.compare("a", "b", higher_is_better=True).plan()
    want = math.sqrt(sum(0.25 * d[stratum == s].var(ddof=1) / 100 for s in ("x", "y")))
    assert p.standard_error == pytest.approx(want, rel=1e-10)
    assert p.n_strata == 2


# --------------------------------------------------------------------------- views and errors
def test_views(iid) -> None:
    import matplotlib.pyplot as plt

    df, _ = iid
    p = df.paired.compare("a", "b", higher_is_better=True).plan(effect=0.3)
    json.dumps(p.to_dict(), allow_nan=False)
    assert "Needed for +0.3" in str(p)
    assert "<img" in p._repr_html_()
    frame = p.to_frame()
    assert list(frame.columns) == ["improvement", "n_cases", "power"]
    assert frame.power.between(0, 1).all()
    ax = p.plot()
    assert ax is plt.gca()
    p.plot(x="cases")
    plt.close("all")
    with pytest.raises(ValueError, match="`x`"):
        p.plot(x="bad")


@pytest.mark.parametrize(
    ("kw", "err", "match"),
    [
        ({"power": 1.2}, ValueError, "`power`"),
        ({"power": 0.01}, ValueError, "exceed"),
        ({"alpha": True}, TypeError, "`alpha`"),
        ({"effect": 0}, ValueError, "`effect`"),
        ({"effect": -0.1, "alternative": "greater"}, ValueError, "other way"),
        ({"method": "magic"}, ValueError, "`method`"),
        ({"n_cases": 1}, ValueError, "`n_cases`"),
        ({"n_simulations": 0}, ValueError, "`n_simulations`"),
    ],
)
def test_bad_arguments(iid, kw, err, match) -> None:
    df, _ = iid
    with pytest.raises(err, match=match):
        df.paired.compare("a", "b", higher_is_better=True).plan(**kw)


def test_prediction_mode_plans_from_the_bootstrap() -> None:
    rng = np.random.default_rng(0)
    n = 300
    y = rng.integers(0, 2, n)
    pa = np.clip(y * 0.6 + rng.uniform(0, 0.4, n), 0, 1)
    pb = np.clip(y * 0.4 + rng.uniform(0, 0.6, n), 0, 1)
    df = pd.DataFrame(
        {
            "case_id": np.tile(np.arange(n), 2),
            "model": np.repeat(["a", "b"], n),
            "target": np.tile(y, 2),
            "p": np.concatenate([pa, pb]),
        }
    )
    cmp = df.paired(target="target", prediction="p").compare("a", "b", metric="auroc")
    p = cmp.plan(effect=0.01, rng=0, n_simulations=500)
    assert p.test == "bootstrap"
    se = cmp.bootstrap(n_resamples=500, rng=0).standard_error
    # the plan's bootstrap reads its own stream (plan:bootstrap): 500 resamples give
    # a standard error within ~3% (1/sqrt(2 * 500)), so two of them agree within 15%
    assert p.standard_error == pytest.approx(se, rel=0.15)
    assert p.stream == "plan:bootstrap"
    assert p.n_cases_needed > n


# --------------------------------------------------------------------------- the command line
def test_cli_plan(tmp_path, capsys) -> None:
    from pdpaired.cli.main import main

    df = binary_frame(30, 12, 300, 58)
    path = tmp_path / "long.csv"
    df.to_csv(path, index=False)
    png = tmp_path / "power.png"
    argv = [
        "plan", str(path), "--long", "--a", "a", "--b", "b", "--score", "score",
        "--higher-is-better", "--effect", "0.03", "--plot", str(png),
    ]  # fmt: skip
    assert main(argv) == 0
    out = capsys.readouterr().out
    want = df.paired.compare("a", "b", higher_is_better=True).plan(effect=0.03)
    assert f"Needed for +0.03           {want.n_cases_needed} cases" in out
    assert png.stat().st_size > 1000
    assert main([*argv[:-2], "--power", "1.5"]) == 2
    assert "`power` must be in (0, 1)" in capsys.readouterr().err


def test_cli_plan_prints_the_sensitivity_with_missing_outcomes(tmp_path, capsys) -> None:
    from pdpaired.cli.main import main

    df = binary_frame(30, 12, 300, 58)
    df = df.drop(index=[0, 1, 2])  # three of A's rows are absent
    path = tmp_path / "long.csv"
    df.to_csv(path, index=False)
    argv = [
        "plan", str(path), "--long", "--a", "a", "--b", "b", "--score", "score",
        "--higher-is-better", "--missing", "complete-case",
    ]  # fmt: skip
    assert main(argv) == 0
    assert "Identified set" in capsys.readouterr().out


def test_constant_differences_warn_and_give_certain_power() -> None:
    n = 30
    d = np.full(n, 0.1)
    cmp = paired_frame(d).paired.compare("a", "b", higher_is_better=True)
    with pytest.warns(pdpaired.DegenerateDataWarning, match="do not vary"):
        p = cmp.plan(effect=0.05)
    assert p.power_at(0.01) == 1.0
    assert p.power_at(0.0) == pytest.approx(0.05)


def paired_frame_plan_for_the_test(d: np.ndarray, group: np.ndarray | None = None) -> pd.DataFrame:
    n = d.size
    df = pd.DataFrame(
        {"case_id": np.tile(np.arange(n), 2), "model": np.repeat(["a", "b"], n),
         "score": np.concatenate([d, np.zeros(n)])}
    )  # fmt: skip
    if group is not None:
        df["group"] = np.tile(group, 2)
    return df


def binary_frame_plan_for_the_test(
    a_only: int, b_only: int, both_pass: int, both_fail: int
) -> pd.DataFrame:
    a = [1] * a_only + [0] * b_only + [1] * both_pass + [0] * both_fail
    b = [0] * a_only + [1] * b_only + [1] * both_pass + [0] * both_fail
    return paired_frame_plan_for_the_test(np.asarray(a, float) - 0.0).assign(
        score=np.concatenate([a, b]).astype(float))  # fmt: skip


def standard_normal_sample(n: int, seed: int) -> np.ndarray:
    x = np.random.default_rng(seed).normal(size=n)
    return (x - x.mean()) / x.std(ddof=1)  # observed mean 0, sd exactly 1


def mc_tol(p: float, reps: int, extra: float = 0.0) -> float:
    return 4 * math.sqrt(max(p * (1 - p), 1e-4) / reps) + extra


# --------------------------------------------------------------------------- randomization
def sign_flip_rejection_rate(x: np.ndarray, n_flips: int, alpha: float, seed: int) -> float:
    """The paired randomization test, written here: flip signs, plus-one Monte Carlo p."""
    rng = np.random.default_rng(seed)
    reps, n = x.shape
    t_obs = np.abs(x.mean(axis=1))
    count = np.zeros(reps)
    for _ in range(n_flips):
        s = rng.choice((-1.0, 1.0), size=(reps, n))
        count += np.abs((s * x).mean(axis=1)) >= t_obs - 1e-12
    p = (1 + count) / (1 + n_flips)
    return float(np.mean(p <= alpha))


# --------------------------------------------------------------------------- exact binomial
def brute_force_mcnemar_plan_for_the_test(
    n: int, p10: float, p01: float, alpha: float, alternative: str
) -> float:
    total = 0.0
    for k in range(n + 1):
        for j in range(n + 1 - k):
            prob = stats.multinomial.pmf([k, j, n - k - j], n, [p10, p01, 1 - p10 - p01])
            if prob < 1e-300 or k + j == 0:
                continue
            pvalue = stats.binomtest(k, k + j, 0.5, alternative=alternative).pvalue
            total += prob * (pvalue <= alpha)
    return total


class TestPlanForTheTest:
    """``plan(test=..., practical_threshold=...)``: power for the test the user will run.

    Oracles, each independent of ``pdpaired.core.planning``:

    * the interval's decision beyond a practical threshold ``t``: the
      noncentral t written here, ``P(T' >= c)`` with noncentrality
      ``(delta - t) / se`` (A better) plus ``P(T'' <= -c)`` with ``(delta + t) / se``
      (B better, two-sided), and, at the planned size, fresh normal data with the
      interval computed by hand;
    * the randomization test: fresh normal data and a sign-flip test written here
      (Monte Carlo p-value with the plus-one correction);
    * the exact binomial test: brute-force enumeration of every (A only, B only,
      concordant) outcome with ``scipy.stats.binomtest``.

    Monte Carlo tolerances: a rejection rate from ``R`` simulated comparisons has
    standard error ``sqrt(p (1 - p) / R) <= 0.5 / sqrt(R)``; checks allow 4 of
    them (a false alarm about 6e-5 per check; seeds are fixed) plus, where the
    plan's simulation resamples the observed sample rather than the normal
    distribution, 0.02 for the empirical distribution of the observed cases.
    """

    # --------------------------------------------------------------------- practical threshold
    @pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
    def test_threshold_power_is_the_noncentral_t_of_the_decision(self, alternative) -> None:
        d = standard_normal_sample(80, 1)
        cmp = paired_frame_plan_for_the_test(d).paired.compare("a", "b", higher_is_better=True)
        t = 0.1
        p = cmp.plan(practical_threshold=t, alternative=alternative)
        assert (p.test, p.practical_threshold) == ("t", 0.1)
        for n in (40, 80, 300):
            se, df = 1 / math.sqrt(n), n - 1
            for delta in (-0.3, 0.0, 0.1, 0.25, 0.5):
                if alternative == "two-sided":
                    c = stats.t.isf(0.025, df)
                    up, down = (delta - t) / se, -(delta + t) / se
                    want = stats.nct.sf(c, df, up) + stats.nct.sf(c, df, down)
                elif alternative == "greater":
                    want = stats.nct.sf(stats.t.isf(0.05, df), df, (delta - t) / se)
                else:
                    want = stats.nct.sf(stats.t.isf(0.05, df), df, -(delta + t) / se)
                assert p.power_at(delta, n) == pytest.approx(want, abs=1e-9)
        # the detectable improvement clears the threshold by the usual margin
        sign = -1 if alternative == "less" else 1
        assert sign * p.mde > t
        assert p.power_at(p.mde) == pytest.approx(0.8, abs=1e-7)
        # a threshold of 0 is the plain test
        assert cmp.plan(practical_threshold=0.0, alternative=alternative).mde == cmp.plan(
            alternative=alternative).mde  # fmt: skip

    def test_threshold_simulation_agrees_with_analytic_iid(self) -> None:
        # iid normal differences: analytic (noncentral t) vs the plan's simulation (resampled
        # units, the interval's decision run on each of 4000 simulated comparisons)
        d = np.random.default_rng(3).normal(0.1, 1.0, 150)
        cmp = paired_frame_plan_for_the_test(d).paired.compare("a", "b", higher_is_better=True)
        an = cmp.plan(practical_threshold=0.15, effect=0.4)
        sim = cmp.plan(practical_threshold=0.15, effect=0.4, method="simulation",
                       n_simulations=4000, rng=2)  # fmt: skip
        for delta in (0.15, 0.3, 0.45, 0.6):
            for n in (60, 150):
                a = an.power_at(delta, n)
                # MC sd <= 0.5 / sqrt(4000) = 0.0079: 4 sd + 0.02 (empirical distribution)
                assert sim.power_at(delta, n) == pytest.approx(a, abs=mc_tol(a, 4000, 0.02))
        assert sim.n_cases_needed == pytest.approx(an.n_cases_needed, rel=0.1)

    def test_threshold_simulation_agrees_with_analytic_clustered(self) -> None:
        rng = np.random.default_rng(5)
        g, m = 80, 5
        u = rng.normal(0, math.sqrt(0.3), g)
        d = 0.1 + np.repeat(u, m) + rng.normal(0, math.sqrt(0.7), g * m)
        cmp = paired_frame_plan_for_the_test(d, group=np.repeat(np.arange(g), m)).paired.compare(
            "a", "b", higher_is_better=True)  # fmt: skip
        an = cmp.plan(practical_threshold=0.05, effect=0.25)
        sim = cmp.plan(practical_threshold=0.05, effect=0.25, method="simulation",
                       n_simulations=4000, rng=4)  # fmt: skip
        assert an.unit == "group"
        assert an.n_groups_needed is not None
        for delta in (0.1, 0.2, 0.3):
            a = an.power_at(delta)
            assert sim.power_at(delta) == pytest.approx(a, abs=mc_tol(a, 4000, 0.02))

    def test_threshold_power_on_fresh_data(self) -> None:
        # fresh N(delta, 1) data at the planned size; the 95% t interval computed by hand;
        # the share whose low end exceeds t (or whose high end is below -t)
        p = paired_frame_plan_for_the_test(standard_normal_sample(200, 6)).paired.compare(
            "a", "b", higher_is_better=True).plan(effect=0.3, practical_threshold=0.1)  # fmt: skip
        n = p.n_cases_needed
        rng = np.random.default_rng(7)
        reps = 8000
        x = rng.normal(0.3, 1.0, (reps, n))
        half = stats.t.isf(0.025, n - 1) * x.std(axis=1, ddof=1) / math.sqrt(n)
        est = x.mean(axis=1)
        rate = float(np.mean((est - half > 0.1) | (est + half < -0.1)))
        # 8000 replicates: MC sd sqrt(.8 * .2 / 8000) = 0.0045; 4 sd
        assert rate == pytest.approx(p.power_at(0.3, n), abs=0.018)
        assert p.power_at(0.3, n) >= 0.8 > p.power_at(0.3, n - 1)

    def test_effect_within_the_threshold_is_never_decisive(self) -> None:
        cmp = paired_frame_plan_for_the_test(standard_normal_sample(60, 8)).paired.compare(
            "a", "b", higher_is_better=True)  # fmt: skip
        p = cmp.plan(effect=0.1, practical_threshold=0.1)
        assert p.n_cases_needed is None
        sim = cmp.plan(effect=0.05, practical_threshold=0.1, method="simulation",
                       n_simulations=200, rng=0)  # fmt: skip
        assert sim.n_cases_needed is None
        assert "not reachable" in str(p)
        assert "practical threshold" in str(p)
        assert p.to_dict()["practical_threshold"] == 0.1

    def test_randomization_power_against_a_sign_flip_test_on_fresh_data(self) -> None:
        n = 40
        p = paired_frame_plan_for_the_test(standard_normal_sample(n, 9)).paired.compare(
            "a", "b", higher_is_better=True).plan(test="randomization")  # fmt: skip
        assert p.test == "randomization"
        reps, flips = 3000, 400
        rng = np.random.default_rng(10)
        for delta in (0.3, 0.6):
            x = rng.normal(delta, 1.0, (reps, n))
            rate = sign_flip_rejection_rate(x, flips, 0.05, seed=11)
            want = p.power_at(delta, n)
            # 3000 replicates: MC sd <= 0.0091, 4 sd; plus 0.015 for the test's own 400 flips
            # (its Monte Carlo p-value) and the normal approximation at n = 40
            assert rate == pytest.approx(want, abs=mc_tol(want, reps, 0.015))

    @pytest.mark.parametrize("clustered", [False, True])
    def test_randomization_simulation_agrees_with_analytic(self, clustered) -> None:
        rng = np.random.default_rng(12)
        if clustered:
            g, m = 60, 4
            d = 0.1 + np.repeat(rng.normal(0, 0.5, g), m) + rng.normal(0, 0.8, g * m)
            frame = paired_frame_plan_for_the_test(d, group=np.repeat(np.arange(g), m))
        else:
            frame = paired_frame_plan_for_the_test(rng.normal(0.1, 1.0, 120))
        cmp = frame.paired.compare("a", "b", higher_is_better=True)
        an = cmp.plan(test="randomization", effect=0.3)
        sim = cmp.plan(test="randomization", effect=0.3, method="simulation", n_simulations=4000,
                       rng=13)  # fmt: skip
        assert sim.test == "randomization"
        for delta in (0.0, 0.15, 0.3, 0.5):
            a = an.power_at(delta)
            assert sim.power_at(delta) == pytest.approx(a, abs=mc_tol(a, 4000, 0.02))

    def test_randomization_is_a_t_test_with_a_larger_critical_value(self) -> None:
        # given iid data the flips' null variance is sum(x**2) / n**2, which holds the mean
        # itself: |mean| >= z * sqrt(sum x**2) / n  <=>  |t| >= z * sqrt((n - 1) / (n - z**2))
        cmp = paired_frame_plan_for_the_test(standard_normal_sample(100, 14)).paired.compare(
            "a", "b", higher_is_better=True)  # fmt: skip
        t = cmp.plan(effect=0.3)
        r = cmp.plan(effect=0.3, test="randomization")
        z = stats.norm.isf(0.025)
        for n in (30, 100, 400):
            c = z * math.sqrt((n - 1) / (n - z * z))
            nc = 0.3 * math.sqrt(n)
            want = stats.nct.sf(c, n - 1, nc) + stats.nct.sf(c, n - 1, -nc)
            assert r.power_at(0.3, n) == pytest.approx(want, abs=1e-9)
            assert r.power_at(0.3, n) <= t.power_at(0.3, n)
        assert t.n_cases_needed <= r.n_cases_needed <= t.n_cases_needed + 2
        assert r.power_at(0.3, 3) == 0.0  # three cases: no sign flip is extreme enough at 5%

    @pytest.mark.parametrize("alternative", ["two-sided", "less"])
    def test_exact_binomial_by_enumeration(self, alternative) -> None:
        df = binary_frame_plan_for_the_test(3, 7, 8, 12)  # n = 30, discordance 1/3
        cmp = df.paired.compare("a", "b", higher_is_better=True)
        p = cmp.plan(test="exact_binomial", alternative=alternative)
        assert p.test == "exact_binomial"
        assert p.power_at(-0.1, 25) == cmp.plan(alternative=alternative).power_at(-0.1, 25)
        for delta in (-0.2, -0.1, 0.0):
            for n in (10, 25):
                want = brute_force_mcnemar_plan_for_the_test(
                    n, (1 / 3 + delta) / 2, (1 / 3 - delta) / 2, 0.05, alternative
                )
                assert p.power_at(delta, n) == pytest.approx(want, abs=1e-10)

    def test_bootstrap_on_binary_scores_is_the_t_plan(self) -> None:
        df = binary_frame_plan_for_the_test(30, 12, 300, 58)
        cmp = df.paired.compare("a", "b", higher_is_better=True)
        p = cmp.plan(test="bootstrap")
        assert p.test == "t"
        w = df.pivot(index="case_id", columns="model", values="score")
        sd = float((w["a"] - w["b"]).std(ddof=1))
        n = 400
        nc = 0.05 / (sd / math.sqrt(n))
        c = stats.t.isf(0.025, n - 1)
        assert p.power_at(0.05) == pytest.approx(
            stats.nct.sf(c, n - 1, nc) + stats.nct.sf(c, n - 1, -nc), abs=1e-9
        )
        # a practical threshold on 0/1 scores plans the interval too (the exact test has none)
        assert cmp.plan(practical_threshold=0.01).test == "t"
        assert cmp.plan().test == "exact_binomial"

    @pytest.mark.parametrize(
        ("frame", "kw", "err", "match"),
        [
            ("iid", {"test": "exact_binomial"}, ValueError, "binary"),
            ("grouped01", {"test": "exact_binomial"}, ValueError, "independent pairs"),
            (
                "iid",
                {"test": "randomization", "practical_threshold": 0.1},
                ValueError,
                "no difference",
            ),
            (
                "iid",
                {"test": "exact_binomial", "practical_threshold": 0.1},
                ValueError,
                "threshold",
            ),
            ("iid", {"test": "t-test"}, ValueError, "`test`"),
            ("iid", {"practical_threshold": -0.1}, ValueError, "practical_threshold"),
            ("iid", {"practical_threshold": "0.1"}, TypeError, "practical_threshold"),
            ("iid", {"practical_threshold": math.inf}, ValueError, "finite"),
        ],
    )
    def test_bad_test_arguments(self, frame, kw, err, match) -> None:
        if frame == "iid":
            df = paired_frame_plan_for_the_test(standard_normal_sample(40, 15))
        else:
            df = binary_frame_plan_for_the_test(10, 5, 20, 5).assign(
                group=lambda f: f["case_id"] // 4
            )
        with pytest.raises(err, match=match):
            df.paired.compare("a", "b", higher_is_better=True).plan(**kw)

    def test_prediction_mode_threshold_and_refusals(self) -> None:
        rng = np.random.default_rng(16)
        n = 200
        y = rng.integers(0, 2, n)
        df = pd.DataFrame(
            {"case_id": np.tile(np.arange(n), 2), "model": np.repeat(["a", "b"], n),
             "y": np.tile(y, 2),
             "p": np.concatenate([np.clip(y * 0.6 + rng.uniform(0, 0.4, n), 0, 1),
                                  np.clip(y * 0.4 + rng.uniform(0, 0.6, n), 0, 1)])}
        )  # fmt: skip
        cmp = df.paired(target="y", prediction="p").compare("a", "b", metric="auroc")
        p = cmp.plan(practical_threshold=0.01, rng=0, n_simulations=300)
        se, z = p.standard_error, stats.norm.isf(0.025)
        for delta in (0.02, 0.05):
            want = stats.norm.sf(z - (delta - 0.01) / se) + stats.norm.cdf(-z - (delta + 0.01) / se)
            assert p.power_at(delta) == pytest.approx(want, abs=1e-12)
        with pytest.raises(ValueError, match="prediction mode"):
            cmp.plan(test="randomization", rng=0)

    def test_the_accessor_takes_the_same_options(self) -> None:
        df = paired_frame_plan_for_the_test(standard_normal_sample(50, 17))
        one = df.paired.plan("a", "b", higher_is_better=True, test="randomization",
                             effect=0.5)  # fmt: skip
        two = df.paired.compare("a", "b", higher_is_better=True).plan(test="randomization",
                                                                     effect=0.5)  # fmt: skip
        assert one.n_cases_needed == two.n_cases_needed
        assert one.test == "randomization"

    # --------------------------------------------------------------------------- the command line
    def test_cli_plan_test_threshold_and_report(self, tmp_path, capsys) -> None:
        from pdpaired.cli.main import main

        df = binary_frame_plan_for_the_test(30, 12, 300, 58).drop(
            index=[0, 1, 2]
        )  # three of A's rows absent
        path = tmp_path / "long.csv"
        df.to_csv(path, index=False)
        report = tmp_path / "out" / "plan.md"
        argv = [
            "plan",
            str(path),
            "--long",
            "--a",
            "a",
            "--b",
            "b",
            "--score",
            "score",
            "--higher-is-better",
            "--effect",
            "0.03",
            "--missing",
            "complete-case",
            "--test",
            "bootstrap",
            "--practical-threshold",
            "0.01",
            "--report",
            str(report),
        ]
        assert main(argv) == 0
        out = capsys.readouterr().out
        cmp = df.paired.compare("a", "b", higher_is_better=True, missing="complete-case")
        want = cmp.plan(effect=0.03, test="bootstrap", practical_threshold=0.01)
        assert f"Needed for +0.03           {want.n_cases_needed} cases" in out
        text = report.read_text()
        assert "# Planning a paired comparison: a vs b" in text
        assert f"| Needed for +0.03 | {want.n_cases_needed} cases |" in text
        assert "interval beyond the practical threshold 0.01" in text
        # the power curves and the sensitivity plot are saved next to it and linked
        assert "![power curves](plan.power.png)" in text
        assert (tmp_path / "out" / "plan.power.png").stat().st_size > 1000
        assert "## Missing outcomes: what they could change" in text
        assert "![what the missing outputs could do](plan.sensitivity.png)" in text
        assert (tmp_path / "out" / "plan.sensitivity.png").stat().st_size > 1000
        sens = cmp.sensitivity()
        assert f"{sens.bounds.low:+.4g}" in text
        # --plot names the power curves' file; the report links it relative to itself
        plot = tmp_path / "pics" / "curves.png"
        assert main([*argv, "--plot", str(plot)]) == 0
        assert "![power curves](../pics/curves.png)" in report.read_text()
        capsys.readouterr()
        assert main([*argv[:-2], "--test", "randomization"]) == 2  # threshold with randomization
        assert "practical" in capsys.readouterr().err
