"""Bootstrap-t and calibrated intervals against implementations written out here.

The written-out versions redraw the library's streams (index chunk ``k`` reads
``SeedSequence(entropy, spawn_key=(0, k))`` through ``Generator.integers``,
stratum by stratum; the double bootstrap's outer resample ``b`` reads
``spawn_key=(32, b)``) and compute every replicate in plain floating point,
with the textbook formulas: the mean and its ``s / sqrt(n)``; a stratified mean
``sum_h w_h m_h`` and ``sqrt(sum_h w_h**2 s_h**2 / n_h)``; a cluster ratio mean
and its linearization ``sqrt(sum_g (T_g - r n_g)**2 / (G (G - 1) nbar**2))``.
They agree with the library to rounding (the library sums in exact fixed
point), so the tolerance is 1e-9 relative.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import pdpaired  # noqa: F401  (registers DataFrame.paired)
from pdpaired import DegenerateDataWarning
from pdpaired.core.engine import Design, resample
from pdpaired.core.studentized import (
    CALIBRATION_INNER,
    CALIBRATION_OUTER,
    calibrated_levels,
    design_se,
    effective_df,
    studentized_replicates,
    t_interval,
)

from ..conftest import require_numba

SEED = 20261203
LEVEL = 0.95


def long_frame(d: np.ndarray, **extra: np.ndarray) -> pd.DataFrame:
    """Long table where A - B = d case by case (B scores 0)."""
    n = d.size
    cols = {
        "case_id": np.tile(np.arange(n), 2),
        "model": np.repeat(["A", "B"], n),
        "score": np.concatenate([d, np.zeros(n)]),
    }
    for name, v in extra.items():
        cols[name] = np.tile(v, 2)
    return pd.DataFrame(cols)


def index_draws(sizes: list[int], n_resamples: int, seed: int) -> list[list[np.ndarray]]:
    """Per replicate block of 64: the indices drawn in each stratum (stratum-local)."""
    root = np.random.SeedSequence(seed)
    out = []
    for k in range(-(-n_resamples // 64)):
        m = min(64, n_resamples - 64 * k)
        gen = np.random.Generator(
            np.random.PCG64(np.random.SeedSequence(root.entropy, spawn_key=(0, k)))
        )
        out.append([gen.integers(0, g, size=(m, g)) if g > 1 else np.zeros((m, 1), int)
                    for g in sizes])  # fmt: skip
    return out


Units = list[tuple[np.ndarray, np.ndarray]]


def written_out_t(
    units: Units, weights: np.ndarray, n_resamples: int, seed: int, *, rescale: bool
) -> tuple[np.ndarray, np.ndarray, float, float]:
    """Replicates, their SEs, the estimate and its SE: strata of (totals, sizes) units."""
    sizes = [t.size for t, _ in units]

    def ratio_and_var(t: np.ndarray, c: np.ndarray) -> tuple[float, float]:
        r = t.sum() / c.sum()
        g = t.size
        if g < 2:
            return r, 0.0
        return r, float(np.sum((t - r * c) ** 2) / (g * (g - 1) * c.mean() ** 2))

    full = [ratio_and_var(t, c) for t, c in units]
    est = float(sum(w * r for w, (r, _) in zip(weights, full, strict=True)))
    se = math.sqrt(sum(w**2 * v for w, (_, v) in zip(weights, full, strict=True)))
    factor = [math.sqrt(g / (g - 1)) if rescale and g > 1 else 1.0 for g in sizes]
    thetas, ses = [], []
    for block in index_draws(sizes, n_resamples, seed):
        m = block[0].shape[0]
        for i in range(m):
            th, var = 0.0, 0.0
            for h, (t, c) in enumerate(units):
                idx = block[h][i]
                r_star, v_star = ratio_and_var(t[idx], c[idx])
                r0 = full[h][0]
                th += weights[h] * (r0 + factor[h] * (r_star - r0))
                var += weights[h] ** 2 * factor[h] ** 2 * v_star
            thetas.append(th)
            ses.append(math.sqrt(var))
    return np.array(thetas), np.array(ses), est, se


def written_out_interval(theta, ses, est, se):
    t = (theta - est) / ses
    q_lo, q_hi = np.percentile(t, [2.5, 97.5])
    return est - q_hi * se, est - q_lo * se


def design_of(units, weights) -> Design:
    value = np.concatenate([t for t, _ in units])
    count = np.concatenate([c for _, c in units]).astype(np.int64)
    ptr = np.concatenate([[0], np.cumsum([t.size for t, _ in units])]).astype(np.int64)
    cases = bool(np.all(count == 1))
    return Design(value=value, count=None if cases else count, unit_ptr=ptr,
                  weight=np.asarray(weights, float), sign=1.0)  # fmt: skip


RNG = np.random.default_rng(7)
CASES = [(RNG.lognormal(size=40), np.ones(40))]
STRATA = [(RNG.normal(0, s, g), np.ones(g)) for s, g in ((0.5, 6), (1.0, 9), (2.0, 14))]
SIZES = RNG.integers(1, 6, 25)
CLUSTERS = [(RNG.lognormal(size=25) * SIZES, SIZES.astype(float))]
STRAT_CLUSTERS = [
    (RNG.normal(0.2, 1.0, g) * n, n.astype(float))
    for g, n in ((7, RNG.integers(1, 4, 7)), (11, RNG.integers(1, 6, 11)))
]
DESIGNS = {
    "cases": (CASES, [1.0], False),
    "strata": (STRATA, [0.2, 0.3, 0.5], True),
    "clusters": (CLUSTERS, [1.0], True),
    "stratified clusters": (STRAT_CLUSTERS, [0.6, 0.4], True),
}


@pytest.mark.parametrize("accel", ["numpy", "numba"])
@pytest.mark.parametrize("name", list(DESIGNS))
def test_bootstrap_t_equals_the_written_out_one(
    name: str, accel: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if accel == "numba":
        require_numba()
    monkeypatch.setenv("PDPAIRED_ACCELERATOR", accel)
    units, weights, rescale = DESIGNS[name]
    d = design_of(units, weights)
    n = 300
    st = studentized_replicates(d, n, np.random.SeedSequence(SEED), rescale=rescale)
    theta, ses, est, se = written_out_t(units, np.asarray(weights), n, SEED, rescale=rescale)
    assert st.engine == accel
    np.testing.assert_allclose(st.theta, theta, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(st.se, ses, rtol=1e-9, atol=1e-12)
    assert st.estimate == pytest.approx(est, rel=1e-12)
    assert st.standard_error == pytest.approx(se, rel=1e-12)
    low, high, _, _ = t_interval(st, LEVEL)
    np.testing.assert_allclose([low, high], written_out_interval(theta, ses, est, se), rtol=1e-9)
    # the same draws as the percentile bootstrap, bit for bit
    ref, _ = resample(d, n, np.random.SeedSequence(SEED), rescale=rescale)
    np.testing.assert_array_equal(st.theta, ref)


def test_batches_and_slices_of_the_draw_never_change_the_replicates() -> None:
    units, weights, rescale = DESIGNS["stratified clusters"]
    d = design_of(units, weights)
    runs = [studentized_replicates(d, 200, np.random.SeedSequence(3), b, rescale=rescale)
            for b in (None, 1, 64, 130)]  # fmt: skip
    for r in runs[1:]:
        np.testing.assert_array_equal(r.theta, runs[0].theta)
        np.testing.assert_array_equal(r.se, runs[0].se)


def test_multinomial_engine_standard_errors_follow_the_drawn_counts() -> None:
    """0/1 differences in {0, 1}: a replicate's mean p fixes its SE sqrt(p (1 - p) / (n - 1))."""
    n = 2_000
    v = (np.arange(n) % 5 == 0).astype(float)
    d = Design(value=v, count=None, unit_ptr=np.array([0, n]), weight=np.ones(1), sign=1.0)
    st = studentized_replicates(d, 500, np.random.SeedSequence(9))
    assert st.engine == "multinomial"
    ref, _ = resample(d, 500, np.random.SeedSequence(9))
    np.testing.assert_array_equal(st.theta, ref)
    p = st.theta
    np.testing.assert_allclose(st.se, np.sqrt(p * (1 - p) / (n - 1)), rtol=1e-9)


def welch_1947_df(parts: list[np.ndarray], weights: list[float]) -> float:
    """Welch's (1947) df of a weighted sum of means, clipped as the library documents."""
    a = np.array([w**2 * x.var(ddof=1) / x.size for x, w in zip(parts, weights, strict=True)])
    n = np.array([x.size for x in parts], dtype=float)
    df = a.sum() ** 2 / np.sum(a**2 / (n + 1)) - 2
    return float(min(max(df, np.min(n - 1)), np.sum(n - 1)))


def test_design_se_and_effective_df_against_written_out_formulas() -> None:
    x = RNG.normal(size=23)
    one = Design(value=x, count=None, unit_ptr=np.array([0, 23]), weight=np.ones(1), sign=-1.0)
    assert design_se(one) == pytest.approx(stats.sem(x), rel=1e-12)
    assert effective_df(one) == pytest.approx(22.0, rel=1e-12)  # one stratum: G - 1
    g1, g2 = RNG.normal(0, 0.5, 6), RNG.normal(0, 2.0, 11)
    two = Design(value=np.concatenate([g1, g2]), count=None, unit_ptr=np.array([0, 6, 17]),
                 weight=np.array([0.3, 0.7]), sign=1.0)  # fmt: skip
    assert effective_df(two) == pytest.approx(welch_1947_df([g1, g2], [0.3, 0.7]), rel=1e-10)
    # the plain Satterthwaite ratio (scipy's Welch df) is not what is used: it is lower
    plain = stats.ttest_ind(g1, g2, equal_var=False).df
    halves = Design(value=two.value, count=None, unit_ptr=two.unit_ptr, weight=np.full(2, 0.5),
                    sign=1.0)  # fmt: skip
    assert effective_df(halves) > plain
    # equal stratum shares of the variance: clipped at sum (G_h - 1)
    same = np.tile(np.array([-1.0, 1.0, 0.0]), 4)
    alike = Design(value=same, count=None, unit_ptr=np.arange(0, 13, 3), weight=np.full(4, 0.25),
                   sign=1.0)  # fmt: skip
    assert effective_df(alike) == pytest.approx(8.0, rel=1e-12)
    # one stratum dominates: towards its own G - 1, never below the smallest G_h - 1
    big = np.concatenate([RNG.normal(0, 50, 4), RNG.normal(0, 0.01, 30), RNG.normal(0, 0.01, 30)])
    dominated = Design(value=big, count=None, unit_ptr=np.array([0, 4, 34, 64]),
                       weight=np.full(3, 1 / 3), sign=1.0)  # fmt: skip
    assert 3.0 <= effective_df(dominated) < 4.0  # type: ignore[operator]


def written_out_calibration(units, weights, est, seed, n_outer, n_inner, rescale):
    root = np.random.SeedSequence(seed)
    sizes = [t.size for t, _ in units]
    full = [t.sum() / c.sum() for t, c in units]
    factor = [math.sqrt(g / (g - 1)) if rescale and g > 1 else 1.0 for g in sizes]
    u = np.empty(n_outer)
    for b in range(n_outer):
        gen = np.random.Generator(
            np.random.PCG64(np.random.SeedSequence(root.entropy, spawn_key=(32, b)))
        )
        outer = [gen.integers(0, g, size=g) for g in sizes]
        reps = np.zeros(n_inner)
        for h, (t, c) in enumerate(units):
            idx = outer[h][gen.integers(0, sizes[h], size=(n_inner, sizes[h]))]
            r = t[idx].sum(axis=1) / c[idx].sum(axis=1)
            reps += weights[h] * (full[h] + factor[h] * (r - full[h]))
        u[b] = (np.sum(reps < est) + 0.5 * np.sum(reps == est)) / n_inner
    return tuple(np.quantile(u, [0.025, 0.975]))


@pytest.mark.parametrize("name", ["cases", "strata"])
def test_calibrated_levels_equal_the_written_out_double_bootstrap(name: str) -> None:
    units, weights, rescale = DESIGNS[name]
    d = design_of(units, weights)
    est = float(sum(w * t.sum() / c.sum() for w, (t, c) in zip(weights, units, strict=True)))
    got = calibrated_levels(d, est, LEVEL, np.random.SeedSequence(SEED), rescale=rescale,
                            n_outer=200, n_inner=300)  # fmt: skip
    want = written_out_calibration(units, weights, est, SEED, 200, 300, rescale)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_public_studentized_and_calibrated_intervals() -> None:
    """The accessor's intervals are the written-out ones on the same seed."""
    ((t, _),) = CASES
    df = long_frame(t)
    res = df.paired.bootstrap("A", "B", higher_is_better=True, rng=SEED, n_resamples=300,
                              method="studentized")  # fmt: skip
    theta, ses, est, se = written_out_t(CASES, np.ones(1), 300, SEED, rescale=False)
    assert res.method == "studentized"
    assert res.method_reason == "asked for"
    np.testing.assert_allclose(
        [res.confidence_interval.low, res.confidence_interval.high],
        written_out_interval(theta, ses, est, se), rtol=1e-9,
    )  # fmt: skip
    np.testing.assert_allclose(res.bootstrap_distribution, theta, rtol=1e-9)
    cal = df.paired.bootstrap("A", "B", higher_is_better=True, rng=SEED, n_resamples=300,
                              method="calibrated")  # fmt: skip
    lo, hi = written_out_calibration(CASES, [1.0], est, SEED, CALIBRATION_OUTER,
                                     CALIBRATION_INNER, False)  # fmt: skip
    np.testing.assert_allclose(
        [cal.confidence_interval.low, cal.confidence_interval.high],
        np.percentile(theta, [100 * lo, 100 * hi]), rtol=1e-9,
    )  # fmt: skip
    # lower is better: the same interval of the improvement, mirrored draws
    flipped = long_frame(-t).paired.bootstrap("A", "B", higher_is_better=False, rng=SEED,
                                              n_resamples=300, method="studentized")  # fmt: skip
    np.testing.assert_allclose(
        [flipped.confidence_interval.low, flipped.confidence_interval.high],
        [res.confidence_interval.low, res.confidence_interval.high], rtol=1e-9,
    )  # fmt: skip


def test_studentized_needs_a_mean_of_scores() -> None:
    rng = np.random.default_rng(0)
    n = 60
    y = rng.integers(0, 2, n)
    df = pd.DataFrame({
        "case_id": np.tile(np.arange(n), 2), "model": np.repeat(["A", "B"], n),
        "prediction": np.concatenate([rng.random(n), rng.random(n)]), "target": np.tile(y, 2),
    })  # fmt: skip
    cmp = df.paired(prediction="prediction", target="target").compare(
        "A", "B", metric="auroc")  # fmt: skip
    with pytest.raises(ValueError, match="method='studentized' needs the design of a mean"):
        cmp.bootstrap(method="studentized", n_resamples=100, rng=0)


def test_degenerate_replicates_get_infinite_t_and_a_degenerate_verdict() -> None:
    """Three cases, two equal: many replicates draw one value only (se* = 0)."""
    df = long_frame(np.array([1.0, 1.0, 3.0]))
    with pytest.warns(DegenerateDataWarning, match="endpoint is unbounded"):
        res = df.paired.bootstrap("A", "B", higher_is_better=True, rng=1, n_resamples=200,
                                  method="studentized")  # fmt: skip
    assert res.degenerate
    # shown at the extreme replicate, never infinite (artifacts are strict JSON)
    ci, dist = res.confidence_interval, res.bootstrap_distribution
    assert math.isfinite(ci.low)
    assert math.isfinite(ci.high)
    assert ci.low == dist.min() or ci.high == dist.max()
    assert res.verdict == "undetermined"


def test_constant_differences_collapse_to_the_point() -> None:
    df = long_frame(np.full(12, 0.25))
    with pytest.warns(DegenerateDataWarning, match="identical"):
        res = df.paired.bootstrap("A", "B", higher_is_better=True, rng=1, n_resamples=100,
                                  method="studentized")  # fmt: skip
    assert res.confidence_interval.low == 0.25
    assert res.confidence_interval.high == 0.25


def test_every_method_is_a_cli_choice() -> None:
    from pdpaired.cli.main import METHOD_CHOICES
    from pdpaired.core.bootstrap import METHODS

    assert ("auto", *METHODS) == METHOD_CHOICES
