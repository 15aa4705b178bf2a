"""Crossed factors on a comparison: the pigeonhole bootstrap and the variance components."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest

import pdpaired
from pdpaired._lib.rng import CHUNK, normalize_rng, stream_sequence


def crossed_table(
    *,
    n: int = 40,
    seeds: int = 4,
    prompts: int = 3,
    effect: float = 0.3,
    sd_case: float = 1.0,
    sd_seed: float = 0.5,
    sd_prompt: float = 0.3,
    sd_case_seed: float = 0.0,
    sd_resid: float = 0.5,
    replicates: int = 1,
    seed: int = 0,
) -> pd.DataFrame:
    """One row per (case, model, seed, prompt[, run]): B scores noise, A adds the effects."""
    rng = np.random.default_rng(seed)
    grid = np.meshgrid(
        np.arange(n), np.arange(seeds), np.arange(prompts), np.arange(replicates), indexing="ij"
    )
    case, s, p, r = (g.ravel() for g in grid)
    u_c = rng.normal(0, sd_case, n)
    u_s = rng.normal(0, sd_seed, seeds)
    u_p = rng.normal(0, sd_prompt, prompts)
    u_cs = rng.normal(0, sd_case_seed, (n, seeds))
    gain = effect + u_c[case] + u_s[s] + u_p[p] + u_cs[case, s]
    base = rng.normal(0, 1, (n, seeds, prompts))[case, s, p]  # shared by A and B in a cell
    frames = []
    for model, shift in (("A", gain), ("B", 0.0)):
        frames.append(
            pd.DataFrame(
                {
                    "case_id": case, "seed": s, "prompt": [f"t{j}" for j in p], "run": r,
                    "model": model,
                    "score": base + shift + rng.normal(0, sd_resid / math.sqrt(2), case.size),
                }
            )
        )  # fmt: skip
    df = pd.concat(frames, ignore_index=True)
    return df if replicates > 1 else df.drop(columns="run")


def compare(df: pd.DataFrame, **kw: object) -> pdpaired.Comparison:
    return df.paired(repeat="sample", factors=["seed", "prompt"]).compare(
        "A", "B", higher_is_better=True, **kw
    )


def cells_of(df: pd.DataFrame) -> np.ndarray:
    """The per-cell improvement, cases x seeds x prompts, written out with pandas."""
    means = df.groupby(["case_id", "seed", "prompt", "model"])["score"].mean().unstack("model")
    d = (means["A"] - means["B"]).sort_index()
    n = d.index.get_level_values(0).nunique()
    s = d.index.get_level_values(1).nunique()
    return d.to_numpy().reshape(n, s, -1)


class TestPigeonholeBootstrap:
    def test_replicates_match_a_numpy_oracle_on_the_same_streams(self) -> None:
        df = crossed_table(n=25, seed=1)
        res = compare(df).bootstrap(rng=3, n_resamples=200, resample_factors=True)
        assert res.stream == "pigeonhole-bootstrap"
        assert res.method == "percentile"
        assert res.engine == "pigeonhole"
        x = cells_of(df)
        root = normalize_rng(3).seed_sequence
        plain = []
        for k in range(-(-200 // CHUNK)):
            m = min(200, (k + 1) * CHUNK) - k * CHUNK
            w = []
            for j, n_j in enumerate(x.shape):
                gen = np.random.Generator(
                    np.random.PCG64(stream_sequence(root, "crossed_levels", k, j))
                )
                idx = gen.integers(0, n_j, size=(m, n_j))
                w.append(np.stack([np.bincount(row, minlength=n_j) for row in idx]))
            plain.append(np.einsum("ri,rs,rp,isp->r", *w, x) / x.size)
        reps = np.concatenate(plain)
        # the small-sample correction: rescaled about the estimate to the ANOVA variance
        vc = compare(df).variance_components()
        scale = vc.standard_error / vc.pigeonhole_standard_error
        want = x.mean() + scale * (reps - x.mean())
        np.testing.assert_allclose(res.bootstrap_distribution, want, rtol=1e-10)
        assert res.improvement == pytest.approx(x.mean())
        assert "pigeonhole" in res.method_reason
        assert "new cases and levels" in str(res)

    def test_it_is_wider_than_the_case_only_bootstrap_when_seeds_vary(self) -> None:
        df = crossed_table(n=60, sd_seed=1.0, seed=2)
        cmp = compare(df)
        with pytest.warns(
            pdpaired.IndependenceWarning, match="new cases run with these same"
        ) as record:
            cases = cmp.bootstrap(rng=0, n_resamples=1000)
        assert record[0].filename == __file__  # the warning points at the caller's line
        both = cmp.bootstrap(rng=0, n_resamples=1000, resample_factors=True)
        assert both.standard_error > 2 * cases.standard_error

    def test_the_case_only_interval_is_todays_bootstrap_of_the_case_means(self) -> None:
        df = crossed_table(n=30, seed=3)
        with pytest.warns(pdpaired.IndependenceWarning):
            got = compare(df).bootstrap(rng=5, n_resamples=500, method="percentile")
        means = df.groupby(["case_id", "model"])["score"].mean().unstack("model").reset_index()
        long = means.melt(id_vars="case_id", var_name="model", value_name="score")
        want = long.paired.bootstrap(
            "A", "B", higher_is_better=True, rng=5, n_resamples=500, method="percentile"
        )
        np.testing.assert_allclose(got.bootstrap_distribution, want.bootstrap_distribution)
        assert got.stream == "bootstrap"

    def test_row_order_does_not_matter(self) -> None:
        df = crossed_table(n=20, seed=4)
        shuffled = df.sample(frac=1.0, random_state=1)
        a = compare(df).bootstrap(rng=1, n_resamples=100, resample_factors=True)
        b = compare(shuffled).bootstrap(rng=1, n_resamples=100, resample_factors=True)
        np.testing.assert_array_equal(a.bootstrap_distribution, b.bootstrap_distribution)

    def test_direction_flips_the_improvement(self) -> None:
        df = crossed_table(n=20, seed=5)
        up = compare(df).bootstrap(rng=1, n_resamples=100, resample_factors=True)
        down = df.paired(repeat="sample", factors=["seed", "prompt"]).compare(
            "A", "B", higher_is_better=False
        )
        res = down.bootstrap(rng=1, n_resamples=100, resample_factors=True)
        np.testing.assert_allclose(res.bootstrap_distribution, -up.bootstrap_distribution)

    def test_refusals(self) -> None:
        df = crossed_table(n=15, seed=6)
        cmp = compare(df)
        with pytest.raises(ValueError, match="cannot be combined"):
            cmp.bootstrap(resample_factors=True, resample_repeats=True)
        with pytest.raises(ValueError, match="jackknife"):
            cmp.bootstrap(rng=0, n_resamples=100, resample_factors=True, method="bca")
        with pytest.raises(ValueError, match="studentized"):
            cmp.bootstrap(rng=0, n_resamples=100, resample_factors=True, method="studentized")
        grouped = df.assign(group=df["case_id"] % 5)
        with pytest.raises(ValueError, match="group=None"):
            compare(grouped).bootstrap(rng=0, n_resamples=100, resample_factors=True)
        plain = df[df["seed"].eq(0) & df["prompt"].eq("t0")]
        one = plain.paired.compare("A", "B", higher_is_better=True)
        with pytest.raises(ValueError, match="needs crossed factors"):
            one.bootstrap(resample_factors=True)
        with pytest.raises(ValueError, match="needs repeated runs"):
            one.variance_components()

    def test_one_call_form(self) -> None:
        df = crossed_table(n=15, seed=7)
        res = df.paired(repeat="sample", factors=["seed", "prompt"]).bootstrap(
            "A", "B", higher_is_better=True, rng=0, n_resamples=100, resample_factors=True
        )
        assert res.stream == "pigeonhole-bootstrap"


class TestVarianceComponents:
    def test_components_match_the_anova_written_out(self) -> None:
        sm = pytest.importorskip("statsmodels.api")
        smf = pytest.importorskip("statsmodels.formula.api")
        df = crossed_table(n=12, sd_case_seed=0.4, seed=8)
        vc = compare(df).variance_components()
        x = cells_of(df)
        n_i, n_s, n_p = x.shape
        i, s, p = (g.ravel() for g in np.meshgrid(*map(np.arange, x.shape), indexing="ij"))
        table = sm.stats.anova_lm(
            smf.ols(
                "y ~ C(c) + C(s) + C(p) + C(c):C(s) + C(c):C(p) + C(s):C(p)",
                pd.DataFrame({"y": x.ravel(), "c": i, "s": s, "p": p}),
            ).fit(),
            typ=1,
        )
        ms = table["mean_sq"]
        e = ms["Residual"]
        want = {
            "case": (ms["C(c)"] - ms["C(c):C(s)"] - ms["C(c):C(p)"] + e) / (n_s * n_p),
            "seed": (ms["C(s)"] - ms["C(c):C(s)"] - ms["C(s):C(p)"] + e) / (n_i * n_p),
            "prompt": (ms["C(p)"] - ms["C(c):C(p)"] - ms["C(s):C(p)"] + e) / (n_i * n_s),
            "case x seed": (ms["C(c):C(s)"] - e) / n_p,
            "case x prompt": (ms["C(c):C(p)"] - e) / n_s,
            "seed x prompt": (ms["C(s):C(p)"] - e) / n_i,
            "residual": e,
        }
        frame = vc.to_frame().set_index("component")
        assert list(frame.index) == list(want)
        for name, value in want.items():
            assert frame.loc[name, "variance"] == pytest.approx(value, rel=1e-9, abs=1e-12)
        div = {"case": n_i, "seed": n_s, "prompt": n_p, "case x seed": n_i * n_s,
               "case x prompt": n_i * n_p, "seed x prompt": n_s * n_p,
               "residual": n_i * n_s * n_p}  # fmt: skip
        se2 = sum(max(want[k], 0.0) / div[k] for k in want)
        assert vc.standard_error == pytest.approx(math.sqrt(se2))
        case_means = x.mean(axis=(1, 2))
        assert vc.case_standard_error == pytest.approx(case_means.std(ddof=1) / math.sqrt(n_i))
        assert vc.improvement == pytest.approx(x.mean())
        assert (vc.n_cases, vc.n_levels, vc.factors) == (12, (4, 3), ("seed", "prompt"))

    def test_replicates_split_the_residual_from_the_interaction(self) -> None:
        df = crossed_table(n=10, replicates=3, sd_resid=1.0, seed=9)
        vc = compare(df).variance_components()
        assert vc.components[-2:] == ("case x seed x prompt", "residual")
        # the run noise of a cell's improvement: pooled within-cell variance of each model / 3
        within = {}
        for model, rows in df.groupby("model"):
            g = rows.groupby(["case_id", "seed", "prompt"])["score"]
            within[model] = float((g.var(ddof=1)).mean())  # equal replicates: pooled = mean
        noise = within["A"] / 3 + within["B"] / 3
        assert vc.variances[-1] == pytest.approx(noise)
        no_reps = compare(
            df.groupby(["case_id", "seed", "prompt", "model"], as_index=False)["score"].mean()
        ).variance_components()
        assert vc.variances[-2] == pytest.approx(no_reps.variances[-1] - noise)
        assert vc.replicates == pytest.approx(3.0)
        assert vc.standard_error == pytest.approx(vc.se_at())

    def test_se_at_and_plan(self) -> None:
        df = crossed_table(n=30, sd_seed=1.0, seed=10)
        vc = compare(df).variance_components()
        comps = dict(zip(vc.components, vc.variances, strict=True))
        pos = {k: max(v, 0.0) for k, v in comps.items()}

        def by_hand(n: int, s: int, p: int) -> float:
            return math.sqrt(
                pos["case"] / n + pos["seed"] / s + pos["prompt"] / p
                + pos["case x seed"] / (n * s) + pos["case x prompt"] / (n * p)
                + pos["seed x prompt"] / (s * p) + pos["residual"] / (n * s * p)
            )  # fmt: skip

        assert vc.se_at() == pytest.approx(by_hand(30, 4, 3))
        assert vc.se_at(n_cases=230, levels={"seed": 9}) == pytest.approx(by_hand(230, 9, 3))
        plan = vc.plan(add_cases=200, add_levels=1)
        assert list(plan["design"]) == ["as run", "+200 cases", "+1 seed level", "+1 prompt level"]
        np.testing.assert_allclose(
            plan["standard_error"],
            [by_hand(30, 4, 3), by_hand(230, 4, 3), by_hand(30, 5, 3), by_hand(30, 4, 4)],
        )
        np.testing.assert_allclose(plan["half_width"], 1.959963984540054 * plan["standard_error"])
        # a dominant seed variance: one more seed buys more than 200 more cases
        assert plan["standard_error"][2] < plan["standard_error"][1]
        with pytest.raises(ValueError, match="not in the design"):
            vc.se_at(levels={"judge": 3})
        with pytest.raises(ValueError, match="n_cases"):
            vc.se_at(n_cases=0)
        with pytest.raises(ValueError, match="add_cases"):
            vc.plan(add_cases=-1)

    def test_t_interval_uses_the_satterthwaite_df(self) -> None:
        from scipy import stats

        from pdpaired.core.crossed import anova_variance

        df = crossed_table(n=30, sd_seed=1.0, seed=11)
        vc = compare(df).variance_components()
        v, dof = anova_variance(cells_of(df))
        assert vc.degrees_of_freedom == pytest.approx(dof)
        assert vc.standard_error == pytest.approx(math.sqrt(v))
        lo, hi = vc.interval(0.9)
        half = stats.t.ppf(0.95, dof) * math.sqrt(v)
        assert (lo, hi) == pytest.approx((vc.improvement - half, vc.improvement + half))

    def test_views(self) -> None:
        df = crossed_table(n=12, seed=12)
        vc = compare(df).variance_components()
        assert isinstance(vc, pdpaired.CrossedComponents)
        text = str(vc)
        assert "seed x prompt" in text
        assert "new cases and levels" in text
        assert "CrossedComponents(" in repr(vc)
        assert "<table>" in vc._repr_html_()
        d = vc.to_dict()
        json.dumps(d, allow_nan=False)
        assert d["result"] == "CrossedComponents"
        assert d["summary"]["factors"] == ["seed", "prompt"]
        frame = vc.to_frame()
        assert frame["share"].sum() == pytest.approx(1.0)

    def test_needs_two_levels_on_every_axis(self) -> None:
        df = crossed_table(n=10, seeds=1, seed=13)
        cmp = compare(df)
        with pytest.raises(ValueError, match="at least 2 levels"):
            cmp.variance_components()


def test_crossed_summary_on_the_comparison() -> None:
    df = crossed_table(n=10, seed=14)
    cmp = compare(df)
    assert isinstance(cmp.crossed, pdpaired.CrossedSummary)
    assert cmp.crossed.n_levels == (4, 3)
    assert cmp.runs is not None
    assert cmp.runs.column == "seed x prompt"
    runs = df.assign(run=df["seed"].astype(str) + df["prompt"])
    nested = runs.paired(repeat="sample").compare("A", "B", higher_is_better=True)
    assert nested.crossed is None
    with warnings.catch_warnings():  # no factors declared: nothing to warn about
        warnings.simplefilter("error")
        nested.bootstrap(rng=0, n_resamples=50)


def test_a_report_says_its_interval_covers_new_cases_only() -> None:
    df = crossed_table(n=12, seed=15)
    with pytest.warns(pdpaired.IndependenceWarning, match="covers new cases run with these same"):
        rep = compare(df).report(rng=0, n_resamples=200, n_permutations=200)
    assert rep.bootstrap.stream == "report:bootstrap"
