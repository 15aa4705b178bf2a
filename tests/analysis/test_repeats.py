"""Repeated runs: pairing of runs, the two-stage bootstrap and the variance components."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdpaired
from pdpaired.core.repeats import variance_components


def runs_table(
    n: int = 120,
    *,
    runs_a: int | np.ndarray = 3,
    runs_b: int | np.ndarray = 3,
    between: float = 0.5,
    within_a: float = 2.0,
    within_b: float = 1.0,
    shift: float = 0.2,
    seed: int = 0,
    **design: np.ndarray,
) -> pd.DataFrame:
    """Runs of two models with known variance components.

    Case ``i`` has a common effect (cancels in the difference), A's own effect
    ``N(0, between)`` and ``R`` runs of each model with noise of variance
    ``within_a`` (resp. ``within_b``); the true per-case improvement has
    variance ``between``.
    """
    rng = np.random.default_rng(seed)
    common = rng.normal(0.0, 1.0, n)
    own = rng.normal(0.0, np.sqrt(between), n)
    ra = np.broadcast_to(runs_a, n)
    rb = np.broadcast_to(runs_b, n)
    parts = []
    for model, r, centre, sd in (
        ("A", ra, common + own + shift, np.sqrt(within_a)),
        ("B", rb, common, np.sqrt(within_b)),
    ):
        case = np.repeat(np.arange(n), r)
        run = np.concatenate([np.arange(k) for k in r])
        part = pd.DataFrame(
            {"case_id": case, "model": model, "run": run,
             "score": centre[case] + rng.normal(0.0, sd, case.size)}
        )  # fmt: skip
        for col, values in design.items():
            part[col] = np.asarray(values)[case]
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


# --------------------------------------------------------------------------- variance components
def _oracle_components(df: pd.DataFrame) -> dict[str, float]:
    """One-way ANOVA by hand with pandas: pooled within-case variance, then the between part."""
    g = df.groupby(["model", "case_id"])["score"]
    stats = pd.DataFrame({"mean": g.mean(), "var": g.var(ddof=1), "n": g.size()})
    out = {}
    for m in ("A", "B"):
        s = stats.loc[m]
        multi = s[s.n > 1]
        out[f"within_{m}"] = float(((multi.n - 1) * multi["var"]).sum() / (multi.n - 1).sum())
    d = stats.loc["A", "mean"] - stats.loc["B", "mean"]
    noise = out["within_A"] / stats.loc["A", "n"] + out["within_B"] / stats.loc["B", "n"]
    out["between"] = float(d.var(ddof=1) - noise.mean())
    return out


# --------------------------------------------------------------------------- pairing
def test_case_score_is_the_mean_of_its_runs() -> None:
    df = runs_table(runs_a=np.tile([1, 2, 5], 40), runs_b=4)
    cmp = df.paired(repeat="sample").compare("A", "B", higher_is_better=True)
    means = df.groupby(["case_id", "model"])["score"].mean().unstack()
    pd.testing.assert_frame_equal(cmp.pairs, means, check_names=False, rtol=1e-12)
    # the one-stage analysis is the analysis of the averaged table, same seed, same numbers
    averaged = means.stack().rename("score").reset_index()
    one = averaged.paired.bootstrap("A", "B", higher_is_better=True, rng=3, n_resamples=500)
    res = cmp.bootstrap(rng=3, n_resamples=500)
    # (the means may differ in the last bit: pandas sums each group's runs in row order)
    assert res.confidence_interval.low == pytest.approx(one.confidence_interval.low, abs=1e-12)
    assert res.confidence_interval.high == pytest.approx(one.confidence_interval.high, abs=1e-12)
    assert res.improvement == pytest.approx(one.improvement, abs=1e-12)
    s = cmp.runs
    assert s is not None
    assert (s.n_runs_a, s.min_runs_a, s.max_runs_a) == (320, 1, 5)
    assert (s.n_runs_b, s.min_runs_b, s.max_runs_b) == (480, 4, 4)


def test_duplicate_run_is_a_pairing_error_naming_rule_count_and_ids() -> None:
    df = runs_table(n=20)
    dup = pd.concat([df, df.iloc[[0, 7, 7]]], ignore_index=True)  # case 0 run 0; case 2 run 1
    with pytest.raises(pdpaired.PairingError) as err:
        dup.paired(repeat="sample").compare("A", "B", higher_is_better=True)
    msg = str(err.value)
    assert "`unique (case, model, run)`" in msg
    assert "2 case(s)" in msg
    assert "[0, 2]" in msg
    assert set(err.value.failure_cases["index"]) == {0, 2}


def test_without_repeat_a_second_row_is_an_error_that_hints_at_repeat() -> None:
    df = runs_table(n=10)
    with pytest.raises(pdpaired.PairingError, match=r"unique \(case, model\)") as err:
        df.paired.compare("A", "B", higher_is_better=True)
    assert "repeat='sample'" in str(err.value)


def test_run_column_must_exist_and_repeat_is_checked() -> None:
    df = runs_table(n=10).rename(columns={"run": "epoch"})
    with pytest.raises(pdpaired.PairingError, match="run column 'run' not found"):
        df.paired(repeat="sample").compare("A", "B", higher_is_better=True)
    cmp = df.paired(repeat="sample", run="epoch").compare("A", "B", higher_is_better=True)
    assert cmp.n_cases == 10
    with pytest.raises(ValueError, match="`repeat` must be None or one of"):
        df.paired(repeat="epochs")


def test_missing_runs_follow_the_policy_with_their_own_counts() -> None:
    df = runs_table(n=30, runs_a=3, runs_b=2)
    df.loc[(df.model == "A") & (df.case_id == 4) & (df.run == 1), "score"] = np.nan
    df.loc[(df.model == "B") & (df.case_id == 9), "score"] = np.nan  # every run of B on case 9
    original = df.copy()
    with pytest.raises(pdpaired.PairingError, match=r"missing run for A \(A\)") as err:
        df.paired(repeat="sample").compare("A", "B", higher_is_better=True)
    assert "missing run for B (B)" not in str(err.value)  # the first failing rule is named

    cc = df.paired(repeat="sample").compare(
        "A", "B", higher_is_better=True, missing="complete-case"
    )
    s = cc.runs
    assert s is not None
    assert (s.n_missing_runs_a, s.n_missing_runs_b, s.n_runs_dropped) == (1, 2, 3)
    assert (cc.missing.n_missing_b, cc.missing.n_dropped, cc.n_cases) == (1, 1, 29)
    kept = df.dropna(subset=["score"])
    a4 = kept[(kept.model == "A") & (kept.case_id == 4)]
    assert cc.pairs.loc[4, "A"] == pytest.approx(a4.score.mean())
    assert "missing runs" in s.describe()

    filled = df.paired(repeat="sample").compare(
        "A", "B", higher_is_better=True, missing="as-failure", fill_value=-10.0
    )
    s = filled.runs
    assert s is not None
    assert (s.n_runs_filled, s.fill_value, filled.n_cases) == (3, -10.0, 30)
    assert filled.pairs.loc[9, "B"] == -10.0
    pd.testing.assert_frame_equal(df, original)  # never modified


def test_binary_runs_fill_the_worse_value_by_default() -> None:
    df = runs_table(n=10)
    df["score"] = (df["score"] > 0).astype(float)
    df.loc[0, "score"] = np.nan
    cmp = df.paired(repeat="sample").compare("A", "B", higher_is_better=True, missing="as-failure")
    assert cmp.runs is not None
    assert cmp.runs.fill_value == 0.0


def test_groups_must_be_constant_within_a_case_across_runs() -> None:
    df = runs_table(n=12, group=np.arange(12) // 3)
    df.loc[1, "group"] = 99  # one run of case 0 in another group
    with pytest.raises(pdpaired.PairingError, match="`group` constant within a case"):
        df.paired(repeat="sample").compare("A", "B", higher_is_better=True)


def test_prediction_mode_and_dask_refuse_repeat_with_a_hint() -> None:
    df = runs_table(n=10)
    df["y"] = 1
    with pytest.raises(ValueError, match="score mode only"):
        df.paired(repeat="sample", target="y", prediction="score").compare("A", "B", metric="mae")
    dd = pytest.importorskip("dask.dataframe")
    import pdpaired.dask  # noqa: F401

    ddf = dd.from_pandas(df, npartitions=2)
    with pytest.raises(NotImplementedError, match="not available on the Dask path"):
        ddf.paired(repeat="sample").compare("A", "B", higher_is_better=True)


def test_sensitivity_refuses_runs_with_a_hint() -> None:
    df = runs_table(n=10)
    cmp = df.paired(repeat="sample").compare("A", "B", higher_is_better=True)
    with pytest.raises(NotImplementedError, match="Average the runs first"):
        cmp.sensitivity(lower=-5, upper=5)


def test_resample_repeats_and_components_need_runs() -> None:
    df = runs_table(n=10).query("run == 0")
    cmp = df.paired.compare("A", "B", higher_is_better=True)
    assert cmp.runs is None
    with pytest.raises(ValueError, match="needs repeated runs"):
        cmp.bootstrap(resample_repeats=True, rng=0)
    with pytest.raises(ValueError, match="needs repeated runs"):
        cmp.variance_components()


def test_several_models_and_slices_run_on_the_run_means() -> None:
    df = runs_table(n=60, site=np.arange(60) % 2)
    third = df[df.model == "B"].assign(model="C", score=lambda d: d.score + 0.1)
    both = pd.concat([df, third], ignore_index=True)
    acc = both.paired(repeat="sample", group=None)
    res = acc.against("B", higher_is_better=True, rng=0, n_resamples=300, simultaneous=False)
    two = acc.bootstrap("A", "B", higher_is_better=True, rng=0, n_resamples=300)
    row = res.to_frame().set_index("a").loc["A"]
    assert row["low"] == pytest.approx(two.confidence_interval.low)
    band = acc.against("B", higher_is_better=True, rng=0, n_resamples=300)  # simultaneous
    assert band.method == "max-t"
    np.testing.assert_array_equal(band.bootstrap_distribution, res.bootstrap_distribution)
    sl = acc.compare("A", "B", higher_is_better=True).by_slice("site", min_size=5)
    assert len(sl.table) == 2


def test_variance_components_match_a_one_way_anova_oracle() -> None:
    df = runs_table(n=80, runs_a=np.tile([1, 2, 3, 6], 20), runs_b=np.tile([2, 5], 40))
    vc = df.paired(repeat="sample").compare("A", "B", higher_is_better=False).variance_components()
    oracle = _oracle_components(df)
    assert vc.within_a == pytest.approx(oracle["within_A"], rel=1e-12)
    assert vc.within_b == pytest.approx(oracle["within_B"], rel=1e-12)
    assert vc.between == pytest.approx(oracle["between"], rel=1e-10)
    assert vc.improvement < 0  # lower is better: A's higher scores are worse
    assert vc.runs_a == pytest.approx(4 / (1 + 1 / 2 + 1 / 3 + 1 / 6))
    assert vc.se_at() == pytest.approx(
        np.sqrt((max(vc.between, 0) + vc.within_a / vc.runs_a + vc.within_b / vc.runs_b) / 80)
    )
    assert set(vc.to_frame()["component"]) == {"between", "within_a", "within_b"}
    assert "Between cases" in str(vc)
    assert "<table>" in vc._repr_html_()


def test_variance_components_are_unbiased_on_simulated_runs() -> None:
    # 400 simulated datasets of 150 cases, unequal runs (1-4 for A, 2-3 for B), known
    # components between = 0.5, within_a = 2, within_b = 1. Each estimator is unbiased, so
    # the mean of 400 estimates is within 4 Monte Carlo standard errors (sd / sqrt(400)) of
    # the truth (a false alarm has probability ~6e-5 per component).
    rng = np.random.default_rng(2024)
    n, m = 150, 400
    ra = np.tile([1, 2, 3, 4], n // 4 + 1)[:n]
    rb = np.tile([2, 3], n // 2)
    est = np.empty((m, 3))
    for k in range(m):
        own = rng.normal(0.0, np.sqrt(0.5), n)
        runs_a = np.repeat(own, ra) + rng.normal(0.0, np.sqrt(2.0), ra.sum())
        runs_b = rng.normal(0.0, 1.0, rb.sum())
        ptr_a = np.concatenate([[0], np.cumsum(ra)])
        ptr_b = np.concatenate([[0], np.cumsum(rb)])
        c = variance_components(ptr_a, runs_a, ptr_b, runs_b, 1.0)
        est[k] = c.between, c.within_a, c.within_b
    mc_se = est.std(axis=0, ddof=1) / np.sqrt(m)
    assert np.all(np.abs(est.mean(axis=0) - [0.5, 2.0, 1.0]) < 4 * mc_se)


# --------------------------------------------------------------------------- two-stage bootstrap
def test_two_stage_with_one_run_per_case_is_the_one_stage_bootstrap() -> None:
    # with a single run per case there is nothing to redraw and nothing to shrink: stage
    # one reads the index bootstrap's streams, so the replicates are the one-stage ones
    # (up to the one-stage engine's fixed-point sums)
    rng = np.random.default_rng(5)
    n = 90
    base = rng.gamma(2.0, 1.0, n)
    for design in ({}, {"group": np.arange(n) // 4}, {"stratum": np.arange(n) % 3}):
        df = runs_table(n=n, runs_a=1, runs_b=1, seed=1, **design)
        df["score"] += np.repeat(base, 1)[df.case_id]
        cmp = df.paired(repeat="sample").compare("A", "B", higher_is_better=True)
        one = cmp.bootstrap(rng=11, n_resamples=300)
        two = cmp.bootstrap(rng=11, n_resamples=300, resample_repeats=True)
        assert one.engine != "multinomial"
        np.testing.assert_allclose(
            two.bootstrap_distribution, one.bootstrap_distribution, rtol=0, atol=1e-9
        )
        assert two.engine == "two-stage"
        assert two.stream == "two-stage-bootstrap"


def test_two_stage_is_row_order_and_batch_invariant() -> None:
    df = runs_table(n=50, runs_a=np.tile([2, 3], 25), runs_b=4, group=np.arange(50) // 5)
    res = df.paired(repeat="sample").bootstrap(
        "A", "B", higher_is_better=True, rng=4, n_resamples=200, resample_repeats=True
    )
    shuffled = df.sample(frac=1.0, random_state=1)
    again = shuffled.paired(repeat="sample").bootstrap(
        "A", "B", higher_is_better=True, rng=4, n_resamples=200, resample_repeats=True, batch=7
    )
    np.testing.assert_array_equal(res.bootstrap_distribution, again.bootstrap_distribution)
    vc1 = df.paired(repeat="sample").compare("A", "B", higher_is_better=True).variance_components()
    vc2 = (
        shuffled.paired(repeat="sample")
        .compare("A", "B", higher_is_better=True)
        .variance_components()
    )
    assert vc1.between == vc2.between
    assert vc1.within_a == vc2.within_a


def test_two_stage_runs_every_design_and_method() -> None:
    df = runs_table(
        n=60, runs_a=3, runs_b=2, group=np.arange(60) // 3, stratum=(np.arange(60) // 3) % 2
    )
    acc = df.paired(repeat="sample")
    for kw in ({}, {"weighting": "group"}, {"unit": "case", "stratified": False}):
        for method in ("percentile", "bca"):
            res = acc.bootstrap(
                "A", "B", higher_is_better=True, rng=0, n_resamples=300, method=method,
                resample_repeats=True, **kw,
            )  # fmt: skip
            assert res.confidence_interval.low < res.improvement < res.confidence_interval.high


def test_report_with_runs_and_missing_cases_says_why_no_sensitivity() -> None:
    # a case whose every run of A is missing is a missing case; report() must not
    # raise (sensitivity() refuses run means) but say why the bounds are absent
    rng = np.random.default_rng(0)
    n = 50
    df = pd.concat(
        [
            pd.DataFrame({"case_id": np.repeat(np.arange(n), 3), "model": m,
                          "run": np.tile(np.arange(3), n),
                          "score": (rng.random(3 * n) < p).astype(float)})
            for m, p in (("a", 0.6), ("b", 0.5))
        ],
        ignore_index=True,
    )  # fmt: skip
    df.loc[:2, "score"] = np.nan  # case 0: no usable run of "a"
    cmp = df.paired(repeat="sample").compare(
        "a", "b", higher_is_better=True, missing="complete-case"
    )
    assert cmp.missing.n_missing_a == 1
    rep = cmp.report(rng=0, n_resamples=500)
    assert rep.sensitivity is None
    assert rep.sensitivity_note is not None
    assert "repeated runs" in rep.sensitivity_note


def test_two_stage_result_says_so_in_its_design_line() -> None:
    rng = np.random.default_rng(1)
    n = 30
    df = pd.concat(
        [
            pd.DataFrame({"case_id": np.repeat(np.arange(n), 3), "model": m,
                          "run": np.tile(np.arange(3), n), "score": rng.normal(mu, 1, 3 * n)})
            for m, mu in (("a", 0.3), ("b", 0.0))
        ],
        ignore_index=True,
    )  # fmt: skip
    acc = df.paired(repeat="sample")
    two = acc.bootstrap("a", "b", higher_is_better=True, resample_repeats=True, rng=0,
                        n_resamples=200)  # fmt: skip
    one = acc.bootstrap("a", "b", higher_is_better=True, rng=0, n_resamples=200)
    assert "two-stage" in str(two)
    assert "two-stage" not in str(one)
