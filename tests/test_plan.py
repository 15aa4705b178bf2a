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


def clustered(seed: int, n_groups: int = 80, m: int = 6, rho: float = 0.3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    u = rng.normal(0, math.sqrt(rho), n_groups)
    d = 0.1 + np.repeat(u, m) + rng.normal(0, math.sqrt(1 - rho), n_groups * m)
    return paired_frame(d, group=np.repeat(np.arange(n_groups), m))


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


# ------------------------------------------------------------------ n needed, by simulation
@pytest.mark.slow
def test_n_cases_needed_has_the_power_by_simulation() -> None:
    """Fresh normal data at the planned size: the paired t-test rejects at the target rate."""
    sd, delta = 1.0, 0.2
    base = np.random.default_rng(7).normal(0.0, sd, 400)
    base = (base - base.mean()) / base.std(ddof=1) * sd  # the observed sd is exactly sd
    p = paired_frame(base).paired.compare("a", "b", higher_is_better=True).plan(effect=delta)
    n = p.n_cases_needed
    rng = np.random.default_rng(8)
    reps = 20_000
    x = rng.normal(delta, sd, (reps, n))
    res = stats.ttest_1samp(x, 0.0, axis=1)
    rate = float(np.mean(res.pvalue <= 0.05))
    # 20,000 replicates: MC sd sqrt(.8 * .2 / 20000) = 0.0028; 4 sd.
    # Sized: accepted [0.788, 0.812]; a planned size whose power is
    # 0.784 or less, or 0.816 or more, fails with
    # probability >= 0.9; a power of exactly 0.8 fails with 2e-5
    assert rate == pytest.approx(0.8, abs=0.012)
    rate_below = float(np.mean(stats.ttest_1samp(x[:, : n - 8], 0.0, axis=1).pvalue <= 0.05))
    assert rate_below < 0.8


@pytest.mark.slow
def test_mcnemar_n_cases_needed_by_simulation() -> None:
    """Fresh 0/1 data at the planned size: the exact binomial test rejects at >= the target."""
    df = binary_frame(40, 20, 600, 340)  # n = 1000, discordance 6%
    p = df.paired.compare("a", "b", higher_is_better=True).plan(effect=0.02)
    n = p.n_cases_needed
    rng = np.random.default_rng(9)
    reps = 10_000
    p10, p01 = (0.06 + 0.02) / 2, (0.06 - 0.02) / 2
    draws = rng.multinomial(n, [p10, p01, 1 - p10 - p01], size=reps)
    k, j = draws[:, 0], draws[:, 1]
    upper = stats.binom.sf(k - 1, k + j, 0.5)
    lower = stats.binom.cdf(k, k + j, 0.5)
    rate = float(np.mean(np.minimum(1, 2 * np.minimum(upper, lower)) <= 0.05))
    # 10,000 replicates: MC sd 0.004; the exact power at n is in [0.8, 0.81).
    # Sized: a simulated rate 0.021 or more from the exact power (the
    # power one planned size step away) is caught with probability >= 0.9; the
    # exact power itself fails with 5e-5
    assert rate == pytest.approx(p.power_at(0.02, n), abs=0.016)
    assert p.power_at(0.02, n) >= 0.8


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
