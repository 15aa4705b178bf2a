"""Crossed designs as arrays: the ANOVA, the variance components, the pigeonhole bootstrap."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from pdpaired._lib.rng import CHUNK, stream_sequence
from pdpaired.core.bootstrap import bootstrap_replicates
from pdpaired.core.crossed import (
    PigeonholeResampler,
    anova,
    anova_variance,
    expected_pigeonhole_variance,
    pigeonhole_variance,
    variance_components,
)


def crossed(shape: tuple[int, ...], sd: dict[tuple[int, ...], float], seed: int) -> np.ndarray:
    """One value per cell: a sum of independent normal effects, one per set of axes."""
    rng = np.random.default_rng(seed)
    x = np.zeros(shape)
    for axes, s in sd.items():
        size = [shape[a] if a in axes else 1 for a in range(len(shape))]
        x = x + rng.normal(0.0, s, size)
    return x


class TestAnovaOracle:
    def test_sums_of_squares_and_df_match_statsmodels_anova_lm(self) -> None:
        smf = pytest.importorskip("statsmodels.formula.api")
        sm = pytest.importorskip("statsmodels.api")
        shape = (7, 4, 3)
        x = crossed(shape, {(0,): 1.0, (1,): 0.7, (2,): 0.4, (0, 1): 0.3, (0, 1, 2): 0.5}, 1)
        i, s, p = (g.ravel() for g in np.meshgrid(*map(np.arange, shape), indexing="ij"))
        df = pd.DataFrame({"y": x.ravel(), "c": i, "s": s, "p": p})
        # every effect but the three-way interaction, which is the residual (one value a cell)
        fit = smf.ols("y ~ C(c) + C(s) + C(p) + C(c):C(s) + C(c):C(p) + C(s):C(p)", df).fit()
        table = sm.stats.anova_lm(fit, typ=1)
        ours = {axes: (dof, ss) for axes, dof, ss in anova(x)}
        names = {
            (0,): "C(c)", (1,): "C(s)", (2,): "C(p)", (0, 1): "C(c):C(s)",
            (0, 2): "C(c):C(p)", (1, 2): "C(s):C(p)", (0, 1, 2): "Residual",
        }  # fmt: skip
        for axes, row in names.items():
            dof, ss = ours[axes]
            assert dof == table.loc[row, "df"]
            assert ss == pytest.approx(table.loc[row, "sum_sq"], rel=1e-9)
        total = float(np.sum((x - x.mean()) ** 2))
        assert sum(ss for _, ss in ours.values()) == pytest.approx(total, rel=1e-12)

    def test_components_follow_the_expected_mean_squares_written_out(self) -> None:
        # Balanced three-way random model, one value per cell (Searle, Casella & McCulloch
        # 1992): the EMS written out by hand and solved for each component.
        shape = (9, 4, 3)
        n_i, n_s, n_p = shape
        x = crossed(shape, {(0,): 1.0, (1,): 0.5, (2,): 0.5, (0, 2): 0.4, (0, 1, 2): 0.3}, 2)
        ms = {axes: ss / dof for axes, dof, ss in anova(x)}
        e = ms[(0, 1, 2)]
        want = {
            (0, 1, 2): e,
            (0, 1): (ms[(0, 1)] - e) / n_p,
            (0, 2): (ms[(0, 2)] - e) / n_s,
            (1, 2): (ms[(1, 2)] - e) / n_i,
            (0,): (ms[(0,)] - ms[(0, 1)] - ms[(0, 2)] + e) / (n_s * n_p),
            (1,): (ms[(1,)] - ms[(0, 1)] - ms[(1, 2)] + e) / (n_i * n_p),
            (2,): (ms[(2,)] - ms[(0, 2)] - ms[(1, 2)] + e) / (n_i * n_s),
        }
        got = {c.axes: c for c in variance_components(x)}
        for axes, value in want.items():
            assert got[axes].sigma2 == pytest.approx(value, rel=1e-10, abs=1e-12)
            assert got[axes].divisor == math.prod(shape[a] for a in axes)

    def test_components_are_unbiased(self) -> None:
        # 600 data sets of 12 x 4 x 3 cells from known components; each estimate's mean
        # must lie within 4 Monte Carlo standard errors of its truth.
        shape = (12, 4, 3)
        truth = {(0,): 1.0, (1,): 0.5, (2,): 0.3, (0, 1): 0.2, (0, 2): 0.4, (1, 2): 0.1,
                 (0, 1, 2): 0.6}  # fmt: skip
        sd = {k: math.sqrt(v) for k, v in truth.items()}
        est = np.array(
            [[c.sigma2 for c in variance_components(crossed(shape, sd, k))] for k in range(600)]
        )
        order = [c.axes for c in variance_components(np.zeros(shape) + np.arange(3))]
        mean, se = est.mean(axis=0), est.std(axis=0, ddof=1) / math.sqrt(len(est))
        for j, axes in enumerate(order):
            assert abs(mean[j] - truth[axes]) < 4 * se[j], axes

    def test_anova_variance_and_satterthwaite_df_of_a_two_way_design(self) -> None:
        # Two-way (cases x seeds), every component positive: V = (MS_c + MS_s - MS_e) / (I S)
        # and Satterthwaite's df = V**2 / sum (MS_F / (I S))**2 / df_F.
        shape = (20, 5)
        x = crossed(shape, {(0,): 1.0, (1,): 1.0, (0, 1): 0.5}, 3)
        terms = {axes: (dof, ss / dof) for axes, dof, ss in anova(x)}
        comps = {c.axes: c.sigma2 for c in variance_components(x)}
        assert all(v > 0 for v in comps.values())
        n = x.size
        v = (terms[(0,)][1] + terms[(1,)][1] - terms[(0, 1)][1]) / n
        df = v**2 / sum((ms / n) ** 2 / dof for dof, ms in terms.values())
        got_v, got_df = anova_variance(x)
        assert got_v == pytest.approx(v, rel=1e-12)
        assert got_df == pytest.approx(df, rel=1e-12)

    def test_negative_components_count_as_zero_in_the_variance(self) -> None:
        shape = (15, 3, 3)
        x = crossed(shape, {(0,): 1.0, (0, 1, 2): 1.0}, 4)
        comps = variance_components(x)
        assert any(c.sigma2 < 0 for c in comps)
        v, _ = anova_variance(x)
        assert v == pytest.approx(sum(max(c.sigma2, 0.0) / c.divisor for c in comps))


class TestPigeonhole:
    def test_replicates_are_the_mean_over_the_product_of_the_drawn_levels(self) -> None:
        # Oracle: the same streams read here, and the weighted mean written out with einsum.
        x = crossed((11, 4, 3), {(0,): 1.0, (1,): 1.0, (2,): 0.5, (0, 1, 2): 0.3}, 5)
        res = PigeonholeResampler(x, small_sample=False)
        root = np.random.SeedSequence(123)
        reps, engine = res.replicates(150, root, None)
        assert engine == "pigeonhole"
        want = []
        for k in range(-(-150 // CHUNK)):
            m = min(150, (k + 1) * CHUNK) - k * CHUNK
            w = []
            for j, n_j in enumerate(x.shape):
                gen = np.random.Generator(
                    np.random.PCG64(stream_sequence(root, "crossed_levels", k, j))
                )
                idx = gen.integers(0, n_j, size=(m, n_j))
                w.append(np.stack([np.bincount(row, minlength=n_j) for row in idx]))
            num = np.einsum("ri,rs,rp,isp->r", w[0], w[1], w[2], x)
            den = w[0].sum(1) * w[1].sum(1) * w[2].sum(1)
            want.append(num / den)
        np.testing.assert_allclose(reps, np.concatenate(want), rtol=1e-12)

    def test_replicates_do_not_depend_on_how_many_are_asked_for(self) -> None:
        x = crossed((8, 3, 2), {(0,): 1.0, (1,): 1.0, (0, 1, 2): 0.3}, 6)
        res = PigeonholeResampler(x)
        root = np.random.SeedSequence(7)
        short, _ = res.replicates(70, root, None)
        long, _ = res.replicates(200, root, 16)
        np.testing.assert_array_equal(short, long[:70])

    def test_variance_formula_matches_a_written_out_pigeonhole_bootstrap(self) -> None:
        # A pigeonhole bootstrap written in numpy on its own generator: its replicates'
        # variance (20,000 of them) must agree with the exact formula within 4 Monte Carlo
        # standard errors (the SE of a sample variance: sqrt(Var((T - mean)^2) / B)).
        x = crossed((10, 4, 3), {(0,): 1.0, (1,): 0.8, (2,): 0.5, (0, 1): 0.4, (0, 1, 2): 0.4}, 8)
        rng = np.random.default_rng(9)
        b = 20_000
        w = [rng.multinomial(n, np.full(n, 1.0 / n), size=b).astype(float) for n in x.shape]
        t = np.einsum("ri,rs,rp,isp->r", w[0], w[1], w[2], x) / x.size
        dev2 = (t - t.mean()) ** 2
        mc_se = dev2.std(ddof=1) / math.sqrt(b)
        assert abs(t.var(ddof=1) - pigeonhole_variance(x)) < 4 * mc_se
        # and the library's replicates (plain) agree with the same formula
        reps, _ = PigeonholeResampler(x, small_sample=False).replicates(
            b, np.random.SeedSequence(10), None
        )
        assert abs(reps.var(ddof=1) - pigeonhole_variance(x)) < 4 * mc_se

    def test_formula_is_the_sum_over_effects_of_their_mean_square_over_levels(self) -> None:
        # The same quantity from the ANOVA: nu_E = SS_E / N, Var* = sum_E nu_E / prod n_a.
        x = crossed((6, 3, 4), {(0,): 1.0, (2,): 1.0, (0, 1, 2): 1.0}, 11)
        want = sum(ss / x.size / math.prod(x.shape[a] for a in axes) for axes, _, ss in anova(x))
        assert pigeonhole_variance(x) == pytest.approx(want, rel=1e-12)

    def test_small_sample_correction_matches_the_anova_variance(self) -> None:
        x = crossed((30, 4, 3), {(0,): 1.0, (1,): 1.0, (2,): 0.3, (0, 1, 2): 0.5}, 12)
        res = PigeonholeResampler(x)
        v, df = anova_variance(x)
        assert res.degrees_of_freedom == pytest.approx(df)
        assert res.scale == pytest.approx(math.sqrt(v / pigeonhole_variance(x)))
        plain = PigeonholeResampler(x, small_sample=False)
        root = np.random.SeedSequence(13)
        a, _ = res.replicates(500, root, None)
        b, _ = plain.replicates(500, root, None)
        np.testing.assert_allclose(a - x.mean(), res.scale * (b - x.mean()), atol=1e-12)
        assert plain.degrees_of_freedom is None

    def test_the_interval_reads_tails_at_the_satterthwaite_df(self) -> None:
        x = crossed((30, 4, 3), {(0,): 1.0, (1,): 1.0, (0, 1, 2): 0.5}, 14)
        res = PigeonholeResampler(x)
        core = bootstrap_replicates(
            res, res.theta(), n_resamples=4000, confidence_level=0.95, method="percentile",
            seed_sequence=np.random.SeedSequence(15), batch=None,
        )  # fmt: skip
        from scipy import stats

        alpha = stats.norm.cdf(stats.t.ppf(0.025, res.degrees_of_freedom))
        reps = np.sort(core.distribution)
        lo_rank = np.searchsorted(reps, core.confidence_interval.low, side="right") / reps.size
        assert lo_rank == pytest.approx(alpha, abs=3 / math.sqrt(reps.size))

    def test_bca_is_refused(self) -> None:
        x = crossed((5, 3, 2), {(0,): 1.0}, 16)
        with pytest.raises(ValueError, match="jackknife"):
            PigeonholeResampler(x).acceleration()


class TestExpectedVariance:
    @pytest.mark.parametrize(
        ("shape", "sd"),
        [
            ((12, 4, 3), {(0,): 1.0, (1,): 1.0, (2,): 0.3, (0, 1, 2): 0.5}),
            ((12, 4, 3), {(0,): 1.0, (0, 1): 0.7, (0, 2): 0.7, (0, 1, 2): 0.5}),
        ],
    )
    def test_expectation_over_data_sets_matches_the_formula(
        self, shape: tuple[int, ...], sd: dict[tuple[int, ...], float]
    ) -> None:
        # 1,500 data sets: the mean of the exact conditional bootstrap variance must lie
        # within 4 Monte Carlo SEs of E[Var*] = sum_E df_E EMS_E / (N prod n_a).
        v = np.array([pigeonhole_variance(crossed(shape, sd, 100 + k)) for k in range(1500)])
        want = expected_pigeonhole_variance({k: s * s for k, s in sd.items()}, shape)
        assert abs(v.mean() - want) < 4 * v.std(ddof=1) / math.sqrt(v.size)

    def test_over_and_under_estimation_of_the_variance_of_the_mean(self) -> None:
        # Owen (2007): interactions are counted again (conservative), main effects lose
        # (n - 1) / n (anti-conservative with few levels). Worked out by hand for 2 axes:
        # E[Var*] = (I-1)/I (s_c/I + s_e/(IS)) + (S-1)/S (s_s/S + s_e/(IS))
        #           + (I-1)(S-1)/(IS) s_e/(IS).
        i, s = 20, 4
        sig = {(0,): 1.0, (1,): 2.0, (0, 1): 3.0}
        var_mean = sig[(0,)] / i + sig[(1,)] / s + sig[(0, 1)] / (i * s)
        e = sig[(0, 1)]
        want = (
            (i - 1) / i * (sig[(0,)] / i + e / (i * s))
            + (s - 1) / s * (sig[(1,)] / s + e / (i * s))
            + (i - 1) * (s - 1) / (i * s) * e / (i * s)
        )
        assert expected_pigeonhole_variance(sig, (i, s)) == pytest.approx(want, rel=1e-12)
        assert want < var_mean  # a dominant factor with 4 levels: too small
        only_interaction = expected_pigeonhole_variance({(0, 1): 1.0}, (i, s))
        assert only_interaction > 1.0 / (i * s)  # interactions only: conservative
        ratio = only_interaction * i * s
        assert ratio == pytest.approx((i - 1) / i + (s - 1) / s + (i - 1) * (s - 1) / (i * s))


def test_every_subset_of_axes_is_one_effect() -> None:
    x = crossed((3, 2, 2, 2), {(0,): 1.0}, 17)
    got = [axes for axes, _, _ in anova(x)]
    want = [c for r in range(1, 5) for c in itertools.combinations(range(4), r)]
    assert got == want
