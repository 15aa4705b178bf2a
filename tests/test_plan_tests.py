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

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import pdpaired  # noqa: F401


def paired_frame(d: np.ndarray, group: np.ndarray | None = None) -> pd.DataFrame:
    n = d.size
    df = pd.DataFrame(
        {"case_id": np.tile(np.arange(n), 2), "model": np.repeat(["a", "b"], n),
         "score": np.concatenate([d, np.zeros(n)])}
    )  # fmt: skip
    if group is not None:
        df["group"] = np.tile(group, 2)
    return df


def binary_frame(a_only: int, b_only: int, both_pass: int, both_fail: int) -> pd.DataFrame:
    a = [1] * a_only + [0] * b_only + [1] * both_pass + [0] * both_fail
    b = [0] * a_only + [1] * b_only + [1] * both_pass + [0] * both_fail
    return paired_frame(np.asarray(a, float) - 0.0).assign(
        score=np.concatenate([a, b]).astype(float))  # fmt: skip


def standard_normal_sample(n: int, seed: int) -> np.ndarray:
    x = np.random.default_rng(seed).normal(size=n)
    return (x - x.mean()) / x.std(ddof=1)  # observed mean 0, sd exactly 1


def mc_tol(p: float, reps: int, extra: float = 0.0) -> float:
    return 4 * math.sqrt(max(p * (1 - p), 1e-4) / reps) + extra


# --------------------------------------------------------------------- practical threshold
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_threshold_power_is_the_noncentral_t_of_the_decision(alternative) -> None:
    d = standard_normal_sample(80, 1)
    cmp = paired_frame(d).paired.compare("a", "b", higher_is_better=True)
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


def test_threshold_simulation_agrees_with_analytic_iid() -> None:
    # iid normal differences: analytic (noncentral t) vs the plan's simulation (resampled
    # units, the interval's decision run on each of 4000 simulated comparisons)
    d = np.random.default_rng(3).normal(0.1, 1.0, 150)
    cmp = paired_frame(d).paired.compare("a", "b", higher_is_better=True)
    an = cmp.plan(practical_threshold=0.15, effect=0.4)
    sim = cmp.plan(practical_threshold=0.15, effect=0.4, method="simulation",
                   n_simulations=4000, rng=2)  # fmt: skip
    for delta in (0.15, 0.3, 0.45, 0.6):
        for n in (60, 150):
            a = an.power_at(delta, n)
            # MC sd <= 0.5 / sqrt(4000) = 0.0079: 4 sd + 0.02 (empirical distribution)
            assert sim.power_at(delta, n) == pytest.approx(a, abs=mc_tol(a, 4000, 0.02))
    assert sim.n_cases_needed == pytest.approx(an.n_cases_needed, rel=0.1)


def test_threshold_simulation_agrees_with_analytic_clustered() -> None:
    rng = np.random.default_rng(5)
    g, m = 80, 5
    u = rng.normal(0, math.sqrt(0.3), g)
    d = 0.1 + np.repeat(u, m) + rng.normal(0, math.sqrt(0.7), g * m)
    cmp = paired_frame(d, group=np.repeat(np.arange(g), m)).paired.compare(
        "a", "b", higher_is_better=True)  # fmt: skip
    an = cmp.plan(practical_threshold=0.05, effect=0.25)
    sim = cmp.plan(practical_threshold=0.05, effect=0.25, method="simulation",
                   n_simulations=4000, rng=4)  # fmt: skip
    assert an.unit == "group"
    assert an.n_groups_needed is not None
    for delta in (0.1, 0.2, 0.3):
        a = an.power_at(delta)
        assert sim.power_at(delta) == pytest.approx(a, abs=mc_tol(a, 4000, 0.02))


def test_threshold_power_on_fresh_data() -> None:
    # fresh N(delta, 1) data at the planned size; the 95% t interval computed by hand;
    # the share whose low end exceeds t (or whose high end is below -t)
    p = paired_frame(standard_normal_sample(200, 6)).paired.compare(
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


def test_effect_within_the_threshold_is_never_decisive() -> None:
    cmp = paired_frame(standard_normal_sample(60, 8)).paired.compare(
        "a", "b", higher_is_better=True)  # fmt: skip
    p = cmp.plan(effect=0.1, practical_threshold=0.1)
    assert p.n_cases_needed is None
    sim = cmp.plan(effect=0.05, practical_threshold=0.1, method="simulation",
                   n_simulations=200, rng=0)  # fmt: skip
    assert sim.n_cases_needed is None
    assert "not reachable" in str(p)
    assert "practical threshold" in str(p)
    assert p.to_dict()["practical_threshold"] == 0.1


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


def test_randomization_power_against_a_sign_flip_test_on_fresh_data() -> None:
    n = 40
    p = paired_frame(standard_normal_sample(n, 9)).paired.compare(
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
def test_randomization_simulation_agrees_with_analytic(clustered) -> None:
    rng = np.random.default_rng(12)
    if clustered:
        g, m = 60, 4
        d = 0.1 + np.repeat(rng.normal(0, 0.5, g), m) + rng.normal(0, 0.8, g * m)
        frame = paired_frame(d, group=np.repeat(np.arange(g), m))
    else:
        frame = paired_frame(rng.normal(0.1, 1.0, 120))
    cmp = frame.paired.compare("a", "b", higher_is_better=True)
    an = cmp.plan(test="randomization", effect=0.3)
    sim = cmp.plan(test="randomization", effect=0.3, method="simulation", n_simulations=4000,
                   rng=13)  # fmt: skip
    assert sim.test == "randomization"
    for delta in (0.0, 0.15, 0.3, 0.5):
        a = an.power_at(delta)
        assert sim.power_at(delta) == pytest.approx(a, abs=mc_tol(a, 4000, 0.02))


def test_randomization_is_a_t_test_with_a_larger_critical_value() -> None:
    # given iid data the flips' null variance is sum(x**2) / n**2, which holds the mean
    # itself: |mean| >= z * sqrt(sum x**2) / n  <=>  |t| >= z * sqrt((n - 1) / (n - z**2))
    cmp = paired_frame(standard_normal_sample(100, 14)).paired.compare(
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


# --------------------------------------------------------------------------- exact binomial
def brute_force_mcnemar(n: int, p10: float, p01: float, alpha: float, alternative: str) -> float:
    total = 0.0
    for k in range(n + 1):
        for j in range(n + 1 - k):
            prob = stats.multinomial.pmf([k, j, n - k - j], n, [p10, p01, 1 - p10 - p01])
            if prob < 1e-300 or k + j == 0:
                continue
            pvalue = stats.binomtest(k, k + j, 0.5, alternative=alternative).pvalue
            total += prob * (pvalue <= alpha)
    return total


@pytest.mark.parametrize("alternative", ["two-sided", "less"])
def test_exact_binomial_by_enumeration(alternative) -> None:
    df = binary_frame(3, 7, 8, 12)  # n = 30, discordance 1/3
    cmp = df.paired.compare("a", "b", higher_is_better=True)
    p = cmp.plan(test="exact_binomial", alternative=alternative)
    assert p.test == "exact_binomial"
    assert p.power_at(-0.1, 25) == cmp.plan(alternative=alternative).power_at(-0.1, 25)
    for delta in (-0.2, -0.1, 0.0):
        for n in (10, 25):
            want = brute_force_mcnemar(n, (1 / 3 + delta) / 2, (1 / 3 - delta) / 2, 0.05,
                                       alternative)  # fmt: skip
            assert p.power_at(delta, n) == pytest.approx(want, abs=1e-10)


def test_bootstrap_on_binary_scores_is_the_t_plan() -> None:
    df = binary_frame(30, 12, 300, 58)
    cmp = df.paired.compare("a", "b", higher_is_better=True)
    p = cmp.plan(test="bootstrap")
    assert p.test == "t"
    w = df.pivot(index="case_id", columns="model", values="score")
    sd = float((w["a"] - w["b"]).std(ddof=1))
    n = 400
    nc = 0.05 / (sd / math.sqrt(n))
    c = stats.t.isf(0.025, n - 1)
    assert p.power_at(0.05) == pytest.approx(stats.nct.sf(c, n - 1, nc)
                                             + stats.nct.sf(c, n - 1, -nc), abs=1e-9)  # fmt: skip
    # a practical threshold on 0/1 scores plans the interval too (the exact test has none)
    assert cmp.plan(practical_threshold=0.01).test == "t"
    assert cmp.plan().test == "exact_binomial"


@pytest.mark.parametrize(
    ("frame", "kw", "err", "match"),
    [
        ("iid", {"test": "exact_binomial"}, ValueError, "binary"),
        ("grouped01", {"test": "exact_binomial"}, ValueError, "independent pairs"),
        ("iid", {"test": "randomization", "practical_threshold": 0.1}, ValueError, "no difference"),
        ("iid", {"test": "exact_binomial", "practical_threshold": 0.1}, ValueError, "threshold"),
        ("iid", {"test": "t-test"}, ValueError, "`test`"),
        ("iid", {"practical_threshold": -0.1}, ValueError, "practical_threshold"),
        ("iid", {"practical_threshold": "0.1"}, TypeError, "practical_threshold"),
        ("iid", {"practical_threshold": math.inf}, ValueError, "finite"),
    ],
)  # fmt: skip
def test_bad_test_arguments(frame, kw, err, match) -> None:
    if frame == "iid":
        df = paired_frame(standard_normal_sample(40, 15))
    else:
        df = binary_frame(10, 5, 20, 5).assign(group=lambda f: f["case_id"] // 4)
    with pytest.raises(err, match=match):
        df.paired.compare("a", "b", higher_is_better=True).plan(**kw)


def test_prediction_mode_threshold_and_refusals() -> None:
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


def test_the_accessor_takes_the_same_options() -> None:
    df = paired_frame(standard_normal_sample(50, 17))
    one = df.paired.plan("a", "b", higher_is_better=True, test="randomization",
                         effect=0.5)  # fmt: skip
    two = df.paired.compare("a", "b", higher_is_better=True).plan(test="randomization",
                                                                 effect=0.5)  # fmt: skip
    assert one.n_cases_needed == two.n_cases_needed
    assert one.test == "randomization"


# --------------------------------------------------------------------------- the command line
def test_cli_plan_test_threshold_and_report(tmp_path, capsys) -> None:
    from pdpaired.cli.main import main

    df = binary_frame(30, 12, 300, 58).drop(index=[0, 1, 2])  # three of A's rows absent
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
