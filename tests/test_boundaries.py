"""Decisions and rules tested exactly on their boundaries.

A decision test that recomputes ``low >= -margin`` with the code's own
formula, away from the boundary, passes whether the code says ``>=`` or
``>``. Each test here puts the threshold *on* the bound (the same float), and
one ulp either side, so a flipped comparison fails:

* superiority: ``improvement > threshold`` and ``ci.low > threshold`` -- a
  threshold equal to the bound is *not* superior;
* noninferiority: ``ci.low >= -margin`` -- a margin equal to ``-ci.low`` *is*
  noninferior, one ulp less is not;
* the same rules re-checked by :func:`pdpaired.verify` on a saved report;
* slices: ``winner`` on an exact zero improvement is ``"tie"``; a slice of
  exactly ``min_size`` cases is reported, one case fewer is skipped;
* pairing: exactly two cases are enough, one is not (pandas and Dask);
* the heterogeneity p-value ``(1 + #{Q* >= Q}) / (1 + R)`` exactly, on a
  Q* equal to Q;
* BCa's acceleration sign in prediction mode, for lower-is-better corpus
  metrics (log loss, MSE) against a leave-one-out jackknife by scikit-learn.

The verdicts (bootstrap results, slice rows, several
models, release gates, sequential monitoring) on their boundaries are in
``tests/test_verdict_boundaries.py``.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy.special import ndtr, ndtri

import pdpaired
from pdpaired import PairingError
from pdpaired.results.verdict import decide

from .conftest import long_table

ALPHA = 0.025


def below(x: float) -> float:
    return float(np.nextafter(x, -np.inf))


def above(x: float) -> float:
    return float(np.nextafter(x, np.inf))


@pytest.fixture(scope="module")
def shifted() -> pd.DataFrame:
    """A clear improvement of A over B: ci.low > 0 (and B over A: ci.high < 0)."""
    rng = np.random.default_rng(2024)
    base = rng.normal(size=120)
    return long_table(base + 0.5 + rng.normal(0, 0.5, size=120), base)


def boot(df: pd.DataFrame, a: str = "A", b: str = "B", **kw: Any) -> pdpaired.BootstrapResult:
    kw.setdefault("n_resamples", 300)
    return df.paired.bootstrap(a, b, higher_is_better=True, rng=7, **kw)


# --------------------------------------------------------------------------- bootstrap decisions
def test_superiority_threshold_equal_to_the_bound_is_not_superior(shifted: pd.DataFrame) -> None:
    ref = boot(shifted)
    low, imp = ref.confidence_interval.low, ref.improvement
    assert 0 < low < imp
    on_low = boot(shifted, practical_threshold=low)
    assert on_low.confidence_interval.low == low  # same seed, same interval
    assert on_low.superior_ci is False
    assert on_low.superior_point is True
    assert boot(shifted, practical_threshold=below(low)).superior_ci is True
    on_point = boot(shifted, practical_threshold=imp)
    assert on_point.superior_point is False
    assert on_point.superior_ci is False
    assert boot(shifted, practical_threshold=below(imp)).superior_point is True


def test_margin_equal_to_minus_the_low_bound_is_noninferior(shifted: pd.DataFrame) -> None:
    ref = boot(shifted, "B", "A")  # B is worse: the interval lies below zero
    low = ref.confidence_interval.low
    assert low < 0
    on = boot(shifted, "B", "A", noninferiority_margin=-low)
    assert on.confidence_interval.low == low
    assert on.noninferior is True
    assert boot(shifted, "B", "A", noninferiority_margin=below(-low)).noninferior is False
    assert boot(shifted, "B", "A", noninferiority_margin=above(-low)).noninferior is True
    # and a margin of zero: noninferior exactly when the interval's low end is >= 0
    assert boot(shifted, "B", "A", noninferiority_margin=0.0).noninferior is False
    assert boot(shifted, noninferiority_margin=0.0).noninferior is True


def test_zero_margin_on_an_interval_starting_at_zero_is_noninferior() -> None:
    # on the boundary itself: low == -margin == 0 is noninferior, not superior
    d = decide(0.075, 0.0, 0.175, practical_threshold=0.0, noninferiority_margin=0.0,
               degenerate=False)  # fmt: skip
    assert d.noninferior is True
    assert d.superior_ci is False
    # through the bootstrap, 0/1 differences put that endpoint on an atom of the
    # replicates: the verdict calls the interval undetermined and sets no flag
    df = long_table(np.r_[np.ones(3), np.zeros(37)], np.zeros(40))
    res = df.paired.bootstrap("A", "B", higher_is_better=True, rng=0, n_resamples=200,
                              confidence_level=0.999, noninferiority_margin=0.0)  # fmt: skip
    assert res.confidence_interval.low == 0.0
    assert res.verdict == "undetermined"
    assert res.noninferior is False


def test_report_decisions_on_the_boundary_verify(shifted: pd.DataFrame, tmp_path: Any) -> None:
    """The report's decisions and verify's re-check use the same boundary rules."""
    cmp = shifted.paired.compare("B", "A", higher_is_better=True)
    kw: dict[str, Any] = {"n_resamples": 300, "n_permutations": 99, "rng": 3}
    low = cmp.report(**kw).bootstrap.confidence_interval.low
    assert low < 0
    rep = cmp.report(noninferiority_margin=-low, **kw)
    assert rep.bootstrap.confidence_interval.low == low
    assert rep.bootstrap.noninferior is True
    paths = rep.save(tmp_path / "ni")
    art = pdpaired.verify(paths["local"])
    assert art["decisions"]["noninferior"] is True

    up = shifted.paired.compare("A", "B", higher_is_better=True)
    low_up = up.report(**kw).bootstrap.confidence_interval.low
    assert low_up > 0
    rep = up.report(practical_threshold=low_up, **kw)
    assert rep.bootstrap.superior_ci is False
    art = pdpaired.verify(rep.save(tmp_path / "sup")["local"])
    assert art["decisions"]["superior_ci"] is False
    assert art["decisions"]["superior_point"] is True
    rep = up.report(practical_threshold=rep.bootstrap.improvement, **kw)
    assert rep.bootstrap.superior_point is False
    art = pdpaired.verify(rep.save(tmp_path / "point")["local"])
    assert art["decisions"]["superior_point"] is False


# --------------------------------------------------------------------------- slices
def test_slice_winner_tie_and_min_size_boundary() -> None:
    # slice "t": A == B on every case (improvement exactly 0) -> "tie";
    # slice "u": A better; slice "v": B better; slice "w": 4 cases only
    site = np.repeat(["t", "u", "v", "w"], [5, 5, 5, 4])
    b = np.arange(19, dtype=float)
    a = b + np.select([site == "u", site == "v"], [1.0, -1.0], 0.0)
    df = long_table(a, b, site=site)
    res = df.paired.by_slice("A", "B", columns="site", higher_is_better=True, min_size=5)
    t = res.table.set_index("value")
    assert t.loc["t", "improvement"] == 0.0
    assert t.loc["t", "winner"] == "tie"
    assert t.loc["u", "winner"] == "A"
    assert t.loc["v", "winner"] == "B"
    assert t.loc["t", "status"] == "reported"  # exactly min_size cases
    assert t.loc["w", "status"] == "skipped"  # one fewer
    assert pd.isna(t.loc["w", "winner"])
    lower = df.paired.by_slice("A", "B", columns="site", higher_is_better=False, min_size=4)
    lt = lower.table.set_index("value")
    assert lt.loc["w", "status"] == "reported"
    assert (lt.loc["u", "winner"], lt.loc["v", "winner"]) == ("B", "A")


# --------------------------------------------------------------------------- pairing
def test_two_cases_are_enough_one_is_not() -> None:
    two = long_table(np.array([1.0, 2.0]), np.array([0.0, 0.5]))
    cmp = two.paired.compare("A", "B", higher_is_better=True)
    assert cmp.n_cases == 2
    assert cmp.improvement == pytest.approx(1.25, abs=1e-15)
    one = long_table(np.array([1.0]), np.array([0.0]))
    with pytest.raises(PairingError, match="got 1 usable case") as exc:
        one.paired.compare("A", "B", higher_is_better=True)
    assert exc.value.rule == "at least two paired cases"
    # two rows of which one is dropped as missing: one usable case left
    gap = long_table(np.array([1.0, np.nan]), np.array([0.0, 0.5]))
    with pytest.raises(PairingError, match="got 1 usable case"):
        gap.paired.compare("A", "B", higher_is_better=True, missing="complete-case")


def test_two_cases_are_enough_on_dask() -> None:
    dd = pytest.importorskip("dask.dataframe")
    import pdpaired.dask  # noqa: F401  (registers ddf.paired)

    two = dd.from_pandas(long_table(np.array([1.0, 2.0]), np.array([0.0, 0.5])), npartitions=1)
    cmp = two.paired.compare("A", "B", higher_is_better=True)
    assert cmp.n_cases == 2
    one = dd.from_pandas(long_table(np.array([1.0]), np.array([0.0])), npartitions=1)
    with pytest.raises(PairingError, match="got 1 usable case"):
        one.paired.compare("A", "B", higher_is_better=True).n_cases  # noqa: B018


# --------------------------------------------------------------------------- BCa, prediction mode
def share_below(dist: np.ndarray, theta: float) -> float:
    return float(((dist < theta).sum() + (dist <= theta).sum()) / (2.0 * dist.size))


def bca_from_dist(dist: np.ndarray, theta: float, acc: float) -> np.ndarray:
    z0 = ndtri(share_below(dist, theta))
    z = ndtri(np.array([ALPHA, 1 - ALPHA]))
    return np.percentile(dist, 100 * ndtr(z0 + (z0 + z) / (1 - acc * (z0 + z))))


def efron_acceleration(loo: np.ndarray) -> float:
    infl = loo.mean() - loo
    return float(np.sum(infl**3) / (6 * np.sum(infl**2) ** 1.5))


@pytest.mark.parametrize("metric", ["log_loss", "mae", "rmse"])
def test_prediction_bca_acceleration_sign_lower_is_better(metric: str) -> None:
    """BCa with a lower-is-better corpus metric, from the library's own replicates.

    The improvement is ``metric_B - metric_A``; its leave-one-out values come
    from scikit-learn on n - 1 cases. A flipped acceleration sign moves each
    endpoint by far more than the 1e-9 tolerance (checked: the acceleration
    here is not near zero).
    """
    from sklearn.metrics import log_loss, mean_absolute_error, mean_squared_error

    rng = np.random.default_rng(11)
    n = 80
    if metric == "log_loss":
        y = (rng.uniform(size=n) < 0.4).astype(float)
        pa = np.clip(np.where(y == 1, 0.7, 0.3) + rng.normal(0, 0.15, n), 0.02, 0.98)
        pb = np.clip(np.where(y == 1, 0.6, 0.4) + rng.normal(0, 0.25, n), 0.02, 0.98)
        pb[:3] = 1 - y[:3] * 0.97  # a few confident mistakes: skewed jackknife

        def fn(yy: np.ndarray, p: np.ndarray) -> float:
            return float(log_loss(yy, p, labels=[0.0, 1.0]))
    else:
        y = rng.normal(size=n)
        pa = y + rng.normal(0, 0.5, n)
        pb = y + rng.standard_exponential(n) * rng.choice([-1, 1], n)

        def fn(yy: np.ndarray, p: np.ndarray) -> float:
            if metric == "mae":
                return float(mean_absolute_error(yy, p))
            return math.sqrt(mean_squared_error(yy, p))

    df = pd.DataFrame({"case_id": np.tile(np.arange(n), 2), "model": np.repeat(["A", "B"], n),
                       "y": np.tile(y, 2), "p": np.r_[pa, pb]})  # fmt: skip
    cmp = df.paired(target="y", prediction="p").compare("A", "B", metric=metric)
    assert cmp.higher_is_better is False
    res = cmp.bootstrap(n_resamples=2_000, rng=5, method="bca", stratified=False)
    theta = fn(y, pb) - fn(y, pa)
    assert res.improvement == pytest.approx(theta, rel=1e-12)
    keep = ~np.eye(n, dtype=bool)
    loo = np.array([fn(y[k], pb[k]) - fn(y[k], pa[k]) for k in keep])
    acc = efron_acceleration(loo)
    assert abs(acc) > 0.01
    dist = res.bootstrap_distribution
    expected = bca_from_dist(dist, theta, acc)
    flipped = bca_from_dist(dist, theta, -acc)
    got = np.array([res.confidence_interval.low, res.confidence_interval.high])
    scale = float(dist.std())
    assert np.max(np.abs(expected - flipped)) > 1e-3 * scale
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9 * scale)


# --------------------------------------------------------------------------- standard error
@pytest.mark.parametrize("n_resamples", [1, 2, 3])
def test_standard_error_is_the_sd_of_the_replicates(n_resamples: int) -> None:
    """``standard_error`` is ``np.std(dist, ddof=1)``, and 0.0 for a single replicate."""
    rng = np.random.default_rng(8)
    df = long_table(rng.normal(size=30) + 0.1, rng.normal(size=30))
    if n_resamples == 1:
        with pytest.warns(pdpaired.DegenerateDataWarning, match="identical"):
            res = boot(df, n_resamples=n_resamples)
    else:
        res = boot(df, n_resamples=n_resamples)
    dist = res.bootstrap_distribution
    assert dist.size == n_resamples
    if n_resamples == 1:
        assert res.standard_error == 0.0
    else:
        d = dist - dist.mean()
        assert res.standard_error == pytest.approx(
            math.sqrt(float(d @ d) / (n_resamples - 1)), rel=1e-12
        )
        assert res.standard_error > 0


def test_standard_error_matches_ddof_one_on_many_replicates(shifted: pd.DataFrame) -> None:
    res = boot(shifted)
    d = res.bootstrap_distribution - res.bootstrap_distribution.mean()
    assert res.standard_error == pytest.approx(math.sqrt(float(d @ d) / (d.size - 1)), rel=1e-12)


# --------------------------------------------------------------------------- exact binomial edges
def binary_pairs(a_only: int, b_only: int, both: int = 3, neither: int = 2) -> pd.DataFrame:
    a = np.r_[np.ones(a_only), np.zeros(b_only), np.ones(both), np.zeros(neither)]
    b = np.r_[np.zeros(a_only), np.ones(b_only), np.ones(both), np.zeros(neither)]
    return long_table(a, b)


@pytest.mark.parametrize(("a_only", "b_only"), [(0, 5), (1, 0), (1, 4), (5, 0), (2, 7), (0, 1)])
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_exact_binomial_small_counts_equal_scipy(a_only: int, b_only: int,
                                                 alternative: str) -> None:  # fmt: skip
    """p-value and Clopper-Pearson interval at the edges a = 0, a = n, n = 1, vs scipy."""
    from scipy.stats import binomtest

    n = a_only + b_only
    cmp = binary_pairs(a_only, b_only).paired.compare("A", "B", higher_is_better=True)
    res = cmp.exact_binomial(alternative=alternative, confidence_level=0.9)
    ref = binomtest(a_only, n, 0.5, alternative=alternative)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    ci = binomtest(a_only, n, 0.5).proportion_ci(confidence_level=0.9, method="exact")
    assert res.confidence_interval.low == pytest.approx(ci.low, abs=1e-12)
    assert res.confidence_interval.high == pytest.approx(ci.high, abs=1e-12)
    assert (res.a_only, res.b_only, res.discordant_share) == (a_only, b_only, a_only / n)


def test_exact_binomial_without_discordant_pairs_is_uninformative() -> None:
    cmp = binary_pairs(0, 0).paired.compare("A", "B", higher_is_better=True)
    with pytest.warns(pdpaired.DegenerateDataWarning, match="No discordant pairs"):
        res = cmp.exact_binomial()
    assert res.pvalue == 1.0
    assert (res.confidence_interval.low, res.confidence_interval.high) == (0.0, 1.0)
    assert res.discordant_share is None


# --------------------------------------------------------------------------- BCa clipping
@pytest.mark.parametrize("side", ["below", "above"])
def test_bca_clips_an_estimate_outside_the_replicates(side: str) -> None:
    """Every replicate above (below) the estimate: z0 is clipped to half a replicate.

    The clipped share is 0.5 / B (1 - 0.5 / B), so z0 = ndtri(share) and the
    BCa levels follow from it and the acceleration; checked against the same
    formula written here.
    """
    from pdpaired.core.bootstrap import interval

    rng = np.random.default_rng(3)
    b = 400
    dist = np.sort(rng.normal(1.0, 0.2, b))
    theta = float(dist.min() - 0.5) if side == "below" else float(dist.max() + 0.5)
    acc = 0.03
    with pytest.warns(pdpaired.DegenerateDataWarning, match="clipped to half a replicate"):
        ci, out, degenerate = interval(dist, theta, method="bca", confidence_level=0.9,
                                       theta=lambda: theta, accel=lambda: acc)  # fmt: skip
    assert not degenerate
    np.testing.assert_array_equal(out, dist)
    share = 0.5 / b if side == "below" else 1 - 0.5 / b
    z0 = ndtri(share)
    z = ndtri(np.array([0.05, 0.95]))
    want = np.percentile(dist, 100 * ndtr(z0 + (z0 + z) / (1 - acc * (z0 + z))))
    np.testing.assert_allclose([ci.low, ci.high], want, rtol=0, atol=1e-12)
    # an estimate inside the replicates is not clipped and does not warn
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        interval(dist, 1.0, method="bca", confidence_level=0.9, theta=lambda: 1.0,
                 accel=lambda: acc)  # fmt: skip


# --------------------------------------------------------------------------- custom metrics
def test_custom_metric_returning_nan_or_raising() -> None:
    """A custom Metric that is undefined (NaN) on every resample is an error naming
    the metric; one that raises lets its own exception through, unchanged."""
    rng = np.random.default_rng(2)
    n = 40
    y = (rng.uniform(size=n) < 0.5).astype(float)
    df = pd.DataFrame({"case_id": np.tile(np.arange(n), 2), "model": np.repeat(["A", "B"], n),
                       "y": np.tile(y, 2), "p": rng.uniform(size=2 * n)})  # fmt: skip
    acc = df.paired(target="y", prediction="p")

    def nan_metric(y_true: Any, p: Any, sample_weight: Any = None) -> float:
        return float("nan")

    class Boom(RuntimeError):
        pass

    def boom(y_true: Any, p: Any, sample_weight: Any = None) -> float:
        raise Boom("custom metric failed")

    cmp = acc.compare("A", "B", metric=pdpaired.Metric("always_nan", nan_metric, True))
    assert math.isnan(cmp.improvement)
    with pytest.raises(ValueError, match="always_nan"):
        cmp.bootstrap(n_resamples=20, rng=0)
    with pytest.raises(Boom, match="custom metric failed"):
        acc.compare("A", "B", metric=pdpaired.Metric("boom", boom, True)).bootstrap(
            n_resamples=20, rng=0
        )


# --------------------------------------------------------------------------- NumPy engine branches
@pytest.mark.parametrize("weighting", ["item", "group"])
def test_numpy_engine_cluster_paths_equal_numba(
    weighting: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The NumPy engine's cluster paths (sizes carried along, a single-unit stratum,
    strata wider than a block of draws) give numba's replicates bit for bit."""
    from pdpaired.core import engine as _engine

    from .conftest import require_numba

    require_numba()
    monkeypatch.setattr(_engine, "_BLOCK_WORDS", 4)
    rng = np.random.default_rng(12)
    sizes = rng.integers(1, 5, size=23)
    group = np.repeat(np.arange(23), sizes)
    stratum = np.where(group == 0, "solo", np.where(group % 2 == 0, "even", "odd"))
    n = group.size
    b = rng.normal(size=n)
    a = b + rng.normal(0.2, 1.0, size=n)
    df = long_table(a, b, group=group, stratum=stratum)
    out = []
    for accel in ("numpy", "numba"):
        monkeypatch.setenv("PDPAIRED_ACCELERATOR", accel)
        for batch in (None, 3):
            with pytest.warns(pdpaired.DegenerateDataWarning, match="single resampling unit"):
                res = df.paired.bootstrap("A", "B", higher_is_better=True, rng=5, n_resamples=40,
                                          weighting=weighting, batch=batch)  # fmt: skip
            assert res.engine == accel
            out.append(res.bootstrap_distribution)
    for other in out[1:]:
        np.testing.assert_array_equal(out[0], other)
    assert np.std(out[0]) > 0


# --------------------------------------------------------------------------- heterogeneity edges
def test_heterogeneity_per_column_in_order_and_flat_slices_noted() -> None:
    """Columns keep the caller's order; a column with no reported slice does not stop
    the others; a slice with zero bootstrap variance is left out with a note naming it."""
    rng = np.random.default_rng(21)
    n = 120
    zone = np.repeat(["z2", "z1", "z0"], 40)
    tiny = np.arange(n).astype(str)  # one case per value: every slice skipped
    site = np.tile(["s1", "s0"], 60)
    b = rng.normal(size=n)
    a = b + rng.normal(0.1, 1.0, size=n)
    a[zone == "z0"] = b[zone == "z0"] + 0.25  # a constant difference: zero variance
    df = long_table(a, b, zone=zone, tiny=tiny, site=site)
    res = df.paired.by_slice("A", "B", columns=["zone", "tiny", "site"],
                             higher_is_better=True, uncertainty=True, rng=0, min_size=10,
                             n_resamples=200, n_permutations=20)  # fmt: skip
    assert list(res.heterogeneity) == ["zone", "site"]
    assert res.heterogeneity["zone"]["n_slices"] == 2.0  # z0 left out
    assert res.heterogeneity["site"]["n_slices"] == 2.0
    assert (
        "heterogeneity across zone: slice(s) z0 left out (zero bootstrap variance, so no "
        "finite weight)"
    ) in res.notes


def test_heterogeneity_column_with_one_usable_slice_does_not_stop_the_next() -> None:
    """A column left with a single non-flat slice has no test; the next column still has."""
    rng = np.random.default_rng(8)
    n = 120
    zone = np.repeat(["z1", "z0"], 60)
    site = np.tile(["s1", "s0"], 60)
    b = rng.normal(size=n)
    a = b + rng.normal(0.1, 1.0, size=n)
    a[zone == "z0"] = b[zone == "z0"] + 0.25  # zero variance: z0 is left out
    df = long_table(a, b, zone=zone, site=site)
    res = df.paired.by_slice("A", "B", columns=["zone", "site"], higher_is_better=True,
                             uncertainty=True, rng=0, min_size=10, n_resamples=200,
                             n_permutations=20)  # fmt: skip
    assert list(res.heterogeneity) == ["site"]
    assert res.heterogeneity["site"]["n_slices"] == 2.0


def test_custom_metric_randomization_equals_the_builtin() -> None:
    """A custom Metric's swap path gives the built-in metric's null distribution."""
    from sklearn.metrics import accuracy_score

    rng = np.random.default_rng(6)
    n = 60
    y = (rng.uniform(size=n) < 0.5).astype(float)
    p = rng.uniform(size=2 * n)
    df = pd.DataFrame({"case_id": np.tile(np.arange(n), 2), "model": np.repeat(["A", "B"], n),
                       "y": np.tile(y, 2), "p": p})  # fmt: skip

    def acc(y_true: Any, prob: Any, sample_weight: Any = None) -> float:
        return float(accuracy_score(y_true, prob > 0.5, sample_weight=sample_weight))

    paired = df.paired(target="y", prediction="p")
    custom = paired.compare("A", "B", metric=pdpaired.Metric("acc", acc, True))
    builtin = paired.compare("A", "B", metric="accuracy")
    assert custom.improvement == pytest.approx(builtin.improvement, abs=1e-12)
    rc = custom.randomization(n_permutations=99, rng=2)
    rb = builtin.randomization(n_permutations=99, rng=2)
    np.testing.assert_allclose(rc.null_distribution, rb.null_distribution, rtol=0, atol=1e-12)
    assert rc.pvalue == rb.pvalue
