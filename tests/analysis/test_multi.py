"""Several models: ``against``, ``all_pairs``, ``MultiResult`` and ``ranks``.

* Each comparison equals the two-model ``bootstrap(a, b, ...)`` with the same
  seed, field by field (score mode iid / clusters / strata, prediction mode,
  missing-outcome policies, both engines, the Dask backend).
* One joint resampling serves every comparison: replicate ``r`` of A - C
  equals that of A - B plus that of B - C.
* p-values are adjusted across comparisons exactly as statsmodels'
  ``multipletests`` does (and as an independent implementation here).
* Every pairing invariant is checked for every model before anything runs.
* The rank confidence sets cover the true ranks (slow simulation).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import pdpaired
from pdpaired import MultiResult, PairingError
from pdpaired.core.multi import rank_sets

from ..conftest import assert_identical


def many(
    n: int = 240,
    effects: tuple[float, ...] = (0.0, 0.05, -0.03, 0.1),
    *,
    seed: int = 0,
    binary: bool = False,
    **design: np.ndarray,
) -> pd.DataFrame:
    """Long table of len(effects) models m0, m1, ... on the same n cases."""
    rng = np.random.default_rng(seed)
    base = rng.normal(size=n)
    parts = []
    for j, eff in enumerate(effects):
        x = base + eff + rng.normal(0.0, 0.3, n)
        score = (x > 0).astype(float) if binary else x
        part = pd.DataFrame({"case_id": np.arange(n), "model": f"m{j}", "score": score})
        for col, values in design.items():
            part[col] = values
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


def check_each_pair_equals_two_model(res: MultiResult, one_call, **kw) -> None:
    assert len(res.comparisons) == len(res.to_frame())
    for r in res.comparisons:
        two = one_call(r.a, r.b, **kw)
        assert_identical(r, two)


# --------------------------------------------------------------- p-values
def holm_reference(p: np.ndarray) -> np.ndarray:
    """Holm's step-down, written out (independent of pdpaired's code)."""
    m = len(p)
    out = np.empty(m)
    running = 0.0
    for rank, i in enumerate(np.argsort(p, kind="stable")):
        running = max(running, min(1.0, (m - rank) * p[i]))
        out[i] = running
    return out


# --------------------------------------------------------------- equal to the two-model call
@pytest.mark.usefixtures("engine")
def test_against_equals_each_two_model_call() -> None:
    df = many()
    kw = {"higher_is_better": True, "rng": 3, "n_resamples": 500}
    res = df.paired.against("m0", **kw, simultaneous=False)
    assert [(r.a, r.b) for r in res.comparisons] == [("m1", "m0"), ("m2", "m0"), ("m3", "m0")]
    assert res.models == ("m0", "m1", "m2", "m3")
    assert res.shared_draws
    check_each_pair_equals_two_model(res, df.paired.bootstrap, **kw)


@pytest.mark.usefixtures("engine")
def test_all_pairs_equals_each_two_model_call_with_clusters_and_strata() -> None:
    rng = np.random.default_rng(5)
    group = np.repeat(np.arange(60), rng.integers(1, 6, 60))
    n = group.size
    stratum = np.where(group % 2 == 0, "s0", "s1")
    df = many(n, (0.0, 0.1, 0.05), group=group, stratum=stratum)
    for weighting in ("item", "group"):
        kw = {"higher_is_better": True, "rng": 11, "n_resamples": 300, "weighting": weighting}
        res = df.paired.all_pairs(**kw, simultaneous=False)
        assert res.comparisons[0].unit == "group"
        check_each_pair_equals_two_model(res, df.paired.bootstrap, **kw)


def test_bca_basic_and_options_pass_through() -> None:
    df = many(150)
    for method in ("bca", "basic"):
        kw = {
            "higher_is_better": False, "rng": 2, "n_resamples": 400, "method": method,
            "confidence_level": 0.9, "practical_threshold": 0.02, "noninferiority_margin": 0.05,
        }  # fmt: skip
        res = df.paired.against("m3", ["m0", "m2"], **kw, simultaneous=False)
        check_each_pair_equals_two_model(res, df.paired.bootstrap, **kw)


def test_prediction_mode_equals_each_two_model_call() -> None:
    rng = np.random.default_rng(1)
    n = 200
    y = rng.integers(0, 2, n)
    parts = []
    for j, skill in enumerate((0.5, 1.0, 1.5)):
        p = 1 / (1 + np.exp(-(skill * (2 * y - 1) + rng.normal(0, 1, n))))
        parts.append(pd.DataFrame({"case_id": np.arange(n), "model": f"m{j}", "y": y, "p": p}))
    df = pd.concat(parts, ignore_index=True)
    acc = df.paired(target="y", prediction="p")
    for metric in ("auroc", "brier"):
        kw = {"metric": metric, "rng": 4, "n_resamples": 300}
        res = acc.all_pairs(**kw, simultaneous=False)
        assert res.shared_draws
        check_each_pair_equals_two_model(res, acc.bootstrap, **kw)
        d = res.bootstrap_distribution  # (m0, m1), (m0, m2), (m1, m2)
        np.testing.assert_allclose(d[1], d[0] + d[2], rtol=0, atol=1e-12)


# --------------------------------------------------------------- coherence
@pytest.mark.usefixtures("engine")
def test_joint_replicates_are_coherent() -> None:
    df = many(300)
    res = df.paired.all_pairs(["m0", "m1", "m2", "m3"], higher_is_better=True, rng=0,
                              n_resamples=1000)  # fmt: skip
    frame = res.to_frame()
    d = {
        (a, b): res.bootstrap_distribution[i]
        for i, (a, b) in enumerate(zip(frame.a, frame.b, strict=True))
    }
    scale = np.abs(res.bootstrap_distribution).max()
    for a, b, c in [("m0", "m1", "m2"), ("m0", "m2", "m3"), ("m1", "m2", "m3")]:
        # replicate r of a - c == that of a - b plus that of b - c (fixed-point rounding only)
        np.testing.assert_allclose(d[a, c], d[a, b] + d[b, c], rtol=0, atol=1e-12 * scale)
    # ... and the point estimates likewise
    imp = dict(zip(zip(frame.a, frame.b, strict=True), frame.improvement, strict=True))
    assert imp["m0", "m2"] == pytest.approx(imp["m0", "m1"] + imp["m1", "m2"], abs=1e-12)


def test_lower_is_better_flips_every_comparison() -> None:
    df = many(200)
    hi = df.paired.all_pairs(higher_is_better=True, rng=1, n_resamples=300)
    lo = df.paired.all_pairs(higher_is_better=False, rng=1, n_resamples=300)
    np.testing.assert_allclose(hi.bootstrap_distribution, -lo.bootstrap_distribution, atol=1e-12)


def test_binary_scores_are_coherent_and_agree_in_distribution() -> None:
    # 0/1 scores on many cases: the two-model call takes the multinomial shortcut
    # over distinct differences, which cannot be shared; the joint draw resamples
    # indices. Same estimand, same design: the intervals agree within Monte Carlo
    # error. Endpoint MC sd with R = 4000 is about sqrt(a(1-a)/R)/f(q) ~ 0.3 * se,
    # so |diff| < 0.25 * se (se ~ 0.03 here) is ~ 1 sd of the difference of two
    # independent endpoints -- loose enough, and a real bug (wrong sign, wrong
    # cases) moves them by several se.
    df = many(2000, (0.0, 0.1, 0.05), binary=True)
    kw = {"higher_is_better": True, "rng": 0, "n_resamples": 4000}
    res = df.paired.all_pairs(**kw, simultaneous=False)
    d = res.bootstrap_distribution
    np.testing.assert_allclose(d[1], d[0] + d[2], atol=1e-12)
    for r in res.comparisons:
        two = df.paired.bootstrap(r.a, r.b, **kw)
        assert two.engine == "multinomial"
        assert r.improvement == two.improvement
        se = two.standard_error
        assert abs(r.confidence_interval.low - two.confidence_interval.low) < 0.5 * se
        assert abs(r.confidence_interval.high - two.confidence_interval.high) < 0.5 * se
        assert r.standard_error == pytest.approx(se, rel=0.1)


@pytest.mark.parametrize("adjust", ["holm", "fdr_bh", "bonferroni", None])
def test_adjusted_pvalues_match_statsmodels(adjust: str | None) -> None:
    df = many(120, (0.0, 0.02, 0.05, 0.08, 0.11))
    res = df.paired.all_pairs(higher_is_better=True, rng=0, n_resamples=999, adjust=adjust)
    frame = res.to_frame()
    p = frame.pvalue.to_numpy()
    assert len(p) == 10
    assert np.all((p > 0) & (p <= 1))
    if adjust is None:
        np.testing.assert_array_equal(frame.pvalue_adjusted, p)
        return
    if adjust == "holm":
        np.testing.assert_allclose(frame.pvalue_adjusted, holm_reference(p), rtol=1e-12)
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    ref = multitest.multipletests(p, method=adjust)[1]
    np.testing.assert_allclose(frame.pvalue_adjusted, ref, rtol=1e-12)


def test_pvalue_is_the_bootstrap_sign_share() -> None:
    df = many(100, (0.0, 0.02))
    res = df.paired.against("m0", higher_is_better=True, rng=0, n_resamples=999)
    reps = res.bootstrap_distribution[0]
    le, ge = np.sum(reps <= 0), np.sum(reps >= 0)
    assert res.pvalues[0] == min(1.0, 2 * min(1 + le, 1 + ge) / 1000)


def test_bad_adjust_is_an_error() -> None:
    with pytest.raises(ValueError, match="`adjust`"):
        many(50).paired.against("m0", higher_is_better=True, adjust="sidak")


# --------------------------------------------------------------- pairing invariants
def test_every_model_is_checked_before_anything_runs() -> None:
    df = many(50)
    dup = pd.concat([df, df[(df.model == "m2") & (df.case_id == 7)]], ignore_index=True)
    with pytest.raises(PairingError) as err:
        dup.paired.against("m0", higher_is_better=True)
    assert "7" in str(err.value)
    gone = df[~((df.model == "m3") & (df.case_id.isin([4, 9])))]
    with pytest.raises(PairingError, match="4"):
        gone.paired.all_pairs(higher_is_better=True)
    with pytest.raises(PairingError, match="m9"):
        df.paired.against("m9", higher_is_better=True)
    with pytest.raises(ValueError, match="baseline"):
        df.paired.against("m0", ["m0", "m1"], higher_is_better=True)
    with pytest.raises(ValueError, match="at least two"):
        df.paired.all_pairs(["m1"], higher_is_better=True)


def test_a_missing_case_is_missing_only_where_its_model_enters() -> None:
    df = many(80)
    gone = df[~((df.model == "m3") & (df.case_id.isin([4, 9])))]
    kw = {"higher_is_better": True, "rng": 0, "n_resamples": 200, "missing": "complete-case"}
    res = gone.paired.all_pairs(**kw, simultaneous=False)
    for r in res.comparisons:
        enters = "m3" in (r.a, r.b)
        assert r.n_cases == (78 if enters else 80)
        assert r.missing.n_dropped == (2 if enters else 0)
    check_each_pair_equals_two_model(res, gone.paired.bootstrap, **kw)
    assert not res.shared_draws
    assert not res.same_cases
    with pytest.raises(ValueError, match="same cases"):
        res.ranks()
    filled = gone.paired.all_pairs(**{**kw, "missing": "as-failure", "fill_value": -3.0})
    assert filled.same_cases
    assert filled.shared_draws
    assert [r.missing.n_filled for r in filled.comparisons] == [0, 0, 2, 0, 2, 2]


def test_input_is_not_modified_and_row_order_is_irrelevant() -> None:
    df = many(90)
    before = df.copy()
    res = df.paired.against("m0", higher_is_better=True, rng=5, n_resamples=300)
    pd.testing.assert_frame_equal(df, before)
    shuffled = df.sample(frac=1.0, random_state=3)
    again = shuffled.paired.against("m0", higher_is_better=True, rng=5, n_resamples=300)
    pd.testing.assert_frame_equal(res.to_frame(), again.to_frame())
    np.testing.assert_array_equal(res.bootstrap_distribution, again.bootstrap_distribution)


def test_seed_is_recorded_and_reproduces() -> None:
    df = many(60)
    res = df.paired.against("m0", higher_is_better=True, rng=None, n_resamples=200)
    assert isinstance(res.seed, int)
    assert res.stream == "bootstrap"
    again = df.paired.against("m0", higher_is_better=True, rng=res.seed, n_resamples=200)
    pd.testing.assert_frame_equal(res.to_frame(), again.to_frame())
    gen = df.paired.against("m0", higher_is_better=True, rng=np.random.default_rng(1),
                            n_resamples=200)  # fmt: skip
    assert gen.seed is None


# --------------------------------------------------------------- views
def test_frame_dict_html_text_and_plots() -> None:
    df = many(150)
    res = df.paired.against("m0", higher_is_better=True, rng=0, n_resamples=400,
                            practical_threshold=0.01)  # fmt: skip
    frame = res.to_frame()
    assert list(frame.columns) == [
        "a", "b", "metric_a", "metric_b", "improvement", "low", "high", "pvalue",
        "pvalue_adjusted", "verdict",
    ]  # fmt: skip
    assert set(frame.verdict) <= {"a_better", "b_better", "equivalent", "inconclusive",
                                  "undetermined"}  # fmt: skip
    for row, r in zip(frame.itertuples(), res.comparisons, strict=True):
        assert (row.low, row.high) == (r.confidence_interval.low, r.confidence_interval.high)
        assert row.metric_a - row.metric_b == pytest.approx(row.improvement)
    d = res.to_dict()
    json.dumps(d, allow_nan=False)
    assert (d["kind"], d["baseline"], len(d["comparisons"])) == ("against", "m0", 3)
    html = res._repr_html_()
    assert "<table" in html
    assert "m3" in html
    assert "m1 vs m0" in str(res)

    import matplotlib.pyplot as plt

    fig = plt.figure()
    try:
        ax = res.plot()
        assert ax is plt.gca()
        labels = {t.get_text() for t in ax.get_yticklabels()}
        assert labels == {"m1 vs m0", "m2 vs m0", "m3 vs m0"}
        ranks = df.paired.all_pairs(higher_is_better=True, rng=0, n_resamples=400).ranks()
        ax2 = ranks.plot(ax=fig.add_subplot(2, 1, 2))
        assert ax2.get_xlabel().startswith("rank")
        json.dumps(ranks.to_dict(), allow_nan=False)
        assert "<table" in ranks._repr_html_()
    finally:
        plt.close(fig)


def test_html_escapes_labels() -> None:
    df = many(60, (0.0, 0.1))
    df["model"] = df["model"].map({"m0": "<b>base</b>", "m1": "new & better"})
    res = df.paired.against("<b>base</b>", higher_is_better=True, rng=0, n_resamples=200)
    html = res._repr_html_()
    assert "<b>base</b>" not in html
    assert "&lt;b&gt;" in html


# --------------------------------------------------------------- ranks
def test_rank_sets_on_clear_and_tied_models() -> None:
    df = many(400, (0.0, 0.0, 0.3, -0.3))
    ranks = df.paired.all_pairs(higher_is_better=True, rng=0, n_resamples=2000).ranks()
    frame = ranks.to_frame().set_index("model")
    assert (frame.loc["m2", "lower"], frame.loc["m2", "upper"]) == (1, 1)
    assert (frame.loc["m3", "lower"], frame.loc["m3", "upper"]) == (4, 4)
    assert (frame.loc["m0", "lower"], frame.loc["m0", "upper"]) == (2, 3)
    assert (frame.loc["m1", "lower"], frame.loc["m1", "upper"]) == (2, 3)
    # the against form gives the same sets (the same joint replicates, another reference)
    alt = df.paired.against("m1", higher_is_better=True, rng=0, n_resamples=2000).ranks()
    pd.testing.assert_frame_equal(alt.to_frame().sort_values("model").reset_index(drop=True),
                                  ranks.to_frame().sort_values("model").reset_index(drop=True),
                                  check_exact=False)  # fmt: skip
    lower_better = df.paired.all_pairs(higher_is_better=False, rng=0, n_resamples=2000).ranks()
    assert lower_better.to_frame().set_index("model").loc["m3", "rank"] == 1


def test_rank_sets_reference_implementation() -> None:
    # an independent, loop-by-loop statement of the max-t construction
    rng = np.random.default_rng(3)
    k, n = 4, 500
    est = np.array([0.0, 0.1, 0.12, 0.5])
    reps = est[:, None] + rng.normal(0, 0.05, (k, n))
    got = rank_sets(est, reps, confidence_level=0.9)
    tmax = np.zeros(n)
    se = {}
    for j in range(k):
        for m in range(k):
            if j != m:
                d = reps[j] - reps[m]
                se[j, m] = d.std(ddof=1)
                tmax = np.maximum(tmax, np.abs(d - (est[j] - est[m])) / se[j, m])
    crit = np.quantile(tmax, 0.9)
    for j in range(k):
        better = sum(est[m] - est[j] - crit * se[m, j] > 0 for m in range(k) if m != j)
        worse = sum(est[j] - est[m] - crit * se[j, m] > 0 for m in range(k) if m != j)
        assert got.lower[j] == 1 + better
        assert got.upper[j] == k - worse
    assert got.critical_value == pytest.approx(crit)


def test_rank_sets_take_the_design_degrees_of_freedom() -> None:
    # independent cases: n - 1 degrees of freedom and the n / (n - 1) variance factor;
    # a cluster design (Rao-Wu rescaled): G - 1 and no factor
    n = 60
    df = many(n, (0.0, 0.05, 0.3))
    res = df.paired.all_pairs(higher_is_better=True, rng=0, n_resamples=1000)
    _, est, reps, _ = res._effects()
    want = rank_sets(est, reps, confidence_level=0.95, df=n - 1.0, variance_factor=n / (n - 1))
    got = res.ranks(confidence_level=0.95)
    assert got.critical_value == pytest.approx(want.critical_value, rel=1e-12)
    plain = rank_sets(est, reps, confidence_level=0.95)
    assert got.critical_value > plain.critical_value
    groups = np.arange(n) // 2  # 30 clusters of 2
    clustered = many(n, (0.0, 0.05, 0.3), group=groups)
    cres = clustered.paired.all_pairs(higher_is_better=True, rng=0, n_resamples=1000)
    assert cres.comparisons[0].unit == "group"
    _, est, reps, _ = cres._effects()
    want = rank_sets(est, reps, confidence_level=0.95, df=29.0, variance_factor=1.0)
    assert cres.ranks(confidence_level=0.95).critical_value == pytest.approx(
        want.critical_value, rel=1e-12
    )


def test_rank_sets_on_few_cases_warn() -> None:
    df = many(15, (0.0, 0.1, 0.2))
    res = df.paired.all_pairs(higher_is_better=True, rng=0, n_resamples=500, method="percentile")
    with pytest.warns(pdpaired.DegenerateDataWarning, match="Only 14 design degrees of freedom"):
        res.ranks()
    many(40, (0.0, 0.1, 0.2)).paired.all_pairs(
        higher_is_better=True, rng=0, n_resamples=500
    ).ranks()  # 39 degrees of freedom: no warning (warnings are errors here)


# --------------------------------------------------------------- Dask
@pytest.mark.filterwarnings(
    "ignore:The exact binomial test:pdpaired.DegenerateDataWarning"
)  # few discordant pairs: both paths warn alike; not this test's subject
def test_dask_against_equals_pandas() -> None:
    dd = pytest.importorskip("dask.dataframe")
    import pdpaired.dask  # noqa: F401

    df = many(120, (0.0, 0.1, 0.2), binary=True)
    ddf = dd.from_pandas(df, npartitions=3)
    kw = {"higher_is_better": True, "rng": 0, "n_resamples": 300}
    got = ddf.paired.against("m0", **kw, simultaneous=False)
    # few-valued scores: Dask reduces each comparison to counts of distinct pairs,
    # resampled on their own -- each equals the two-model call, not coherent
    check_each_pair_equals_two_model(got, ddf.paired.bootstrap, **kw)
    check_each_pair_equals_two_model(got, df.paired.bootstrap, **kw)
    assert not got.same_cases
    with pytest.raises(ValueError, match="each on its own"):
        got.ranks()
    cases = dd.from_pandas(many(120, (0.0, 0.1, 0.2)), npartitions=2)
    kw_c = {**kw, "collect": True}
    col = cases.paired.against("m0", **kw_c)
    assert col.shared_draws
    pd.testing.assert_frame_equal(col.to_frame(), many(120, (0.0, 0.1, 0.2)).paired.against(
        "m0", **kw).to_frame())  # fmt: skip
    cont = dd.from_pandas(many(120, (0.0, 0.1, 0.2)), npartitions=2)
    pois = cont.paired.all_pairs(higher_is_better=True, rng=0, n_resamples=300, simultaneous=False)
    check_each_pair_equals_two_model(pois, cont.paired.bootstrap, higher_is_better=True, rng=0,
                                     n_resamples=300)  # fmt: skip
    d = pois.bootstrap_distribution  # Poisson weights keyed by case: still coherent
    np.testing.assert_allclose(d[1], d[0] + d[2], atol=1e-10)


def test_exported() -> None:
    assert pdpaired.MultiResult is MultiResult
    assert hasattr(pdpaired, "RankResult")


def test_verdicts_follow_the_interval_rule() -> None:
    # m1 == m0 on every case (degenerate: undetermined), m2 tiny shift with a wide
    # threshold (equivalent), m3 clearly worse (b_better), m4 clearly better.
    rng = np.random.default_rng(0)
    n = 300
    base = rng.normal(size=n)
    scores = {
        "m0": base,
        "m1": base,
        "m2": base + rng.normal(0.0, 0.01, n),
        "m3": base - 0.5 + rng.normal(0.0, 0.1, n),
        "m4": base + 0.5 + rng.normal(0.0, 0.1, n),
    }
    df = pd.concat(
        [
            pd.DataFrame({"case_id": np.arange(n), "model": m, "score": s})
            for m, s in scores.items()
        ],
        ignore_index=True,
    )
    with pytest.warns(pdpaired.DegenerateDataWarning):
        res = df.paired.against(
            "m0", ["m4", "m3", "m2", "m1"], higher_is_better=True, rng=0, n_resamples=500,
            practical_threshold=0.1,
        )  # fmt: skip
    frame = res.to_frame().set_index("a")
    assert list(frame.index) == ["m4", "m3", "m2", "m1"]  # the order asked for
    assert frame.loc["m4", "verdict"] == "a_better"
    assert frame.loc["m3", "verdict"] == "b_better"
    assert frame.loc["m2", "verdict"] == "equivalent"
    assert frame.loc["m1", "verdict"] == "undetermined"
    assert frame.loc["m1", "pvalue"] == 1.0


# --------------------------------------------------------------- simultaneous intervals
def band_oracle(
    res: MultiResult, *, df: float, factor: float
) -> tuple[np.ndarray, np.ndarray, float]:
    """The max-t band written out in NumPy and scipy from the result's joint replicates.

    ``se_j`` the SD of comparison j's replicates, ``c`` the level quantile of the largest
    studentized deviation per resample, read at its tail level on ``t_df`` and scaled by
    ``sqrt(factor)``; the interval ``estimate +- c * se_j``.
    """
    from scipy import stats

    reps = res.bootstrap_distribution
    reps = reps[:, np.isfinite(reps).all(axis=0)]
    est = np.array([r.improvement for r in res.comparisons])
    se = reps.std(axis=1, ddof=1)
    biggest = (np.abs(reps - est[:, None]) / se[:, None]).max(axis=0)
    c = np.quantile(biggest, res.confidence_level)
    c_t = stats.t.ppf(stats.norm.cdf(c), df) * np.sqrt(factor)
    return est - c_t * se, est + c_t * se, float(c_t)


@pytest.mark.parametrize("design", ["iid", "cluster", "stratified", "binary", "prediction"])
def test_simultaneous_band_equals_a_numpy_oracle(design: str) -> None:
    n = 120
    kw: dict = {"higher_is_better": True, "rng": 7, "n_resamples": 999}
    if design == "cluster":
        df, units, n_strata = many(n, group=np.arange(n) // 3), 40, 1
    elif design == "stratified":
        df, units, n_strata = many(n, stratum=np.where(np.arange(n) < 50, "s", "t")), n, 2
    elif design == "binary":
        df, units, n_strata = many(n, binary=True), n, 1
    elif design == "prediction":
        rng = np.random.default_rng(3)
        y = rng.integers(0, 2, n)
        df = pd.concat([
            pd.DataFrame({"case_id": np.arange(n), "model": f"m{j}", "y": y,
                          "p": 1 / (1 + np.exp(-(s * (2 * y - 1) + rng.normal(0, 1, n))))})
            for j, s in enumerate((0.5, 0.8, 1.0, 1.2))
        ], ignore_index=True)  # fmt: skip
        kw = {"metric": "auroc", "rng": 7, "n_resamples": 999}
        units, n_strata = n, 1
    else:
        df, units, n_strata = many(n), n, 1
    acc = df.paired(target="y", prediction="p") if design == "prediction" else df.paired
    res = acc.against("m0", **kw)
    assert res.simultaneous
    assert res.method == "max-t"
    # Rao-Wu rescaled score-mode cluster / stratified designs need no variance factor
    rescaled = design in ("cluster", "stratified")
    dof = units - n_strata
    low, high, c = band_oracle(res, df=dof, factor=1.0 if rescaled else units / dof)
    frame = res.to_frame()
    np.testing.assert_allclose(frame.low, low, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(frame.high, high, rtol=1e-12, atol=1e-15)
    assert res.critical_value == pytest.approx(c, rel=1e-12)
    # the band is wider than any one comparison's own interval at the same level
    own = acc.against("m0", **kw, simultaneous=False)
    assert not own.simultaneous
    assert own.critical_value is None
    assert np.all(frame.high - frame.low > own.to_frame().high - own.to_frame().low)
    # ... and everything else is the per-comparison result's
    for name in ("improvement", "pvalue", "pvalue_adjusted", "metric_a", "metric_b"):
        pd.testing.assert_series_equal(frame[name], own.to_frame()[name])
    np.testing.assert_array_equal(res.bootstrap_distribution, own.bootstrap_distribution)


def test_simultaneous_all_pairs_oracle_and_verdicts_read_the_band() -> None:
    df = many(200, (0.0, 0.04, 0.08, 0.3))
    res = df.paired.all_pairs(higher_is_better=True, rng=1, n_resamples=999,
                              practical_threshold=0.01)  # fmt: skip
    low, high, _ = band_oracle(res, df=199.0, factor=200 / 199)
    frame = res.to_frame()
    np.testing.assert_allclose(frame.low, low, rtol=1e-12)
    np.testing.assert_allclose(frame.high, high, rtol=1e-12)
    t = 0.01
    for row, r in zip(frame.itertuples(index=False), res.comparisons, strict=True):
        want = (
            "a_better" if row.low > t else "b_better" if row.high < -t
            else "equivalent" if -t <= row.low and row.high <= t else "inconclusive"
        )  # fmt: skip
        assert row.verdict == r.verdict == want
        assert r.method == "max-t"
        assert "in place of the" in r.method_reason
        assert r.confidence_interval_se is not None
        assert 0 < r.confidence_interval_se.low < 0.1 * (row.high - row.low)
    # the per-comparison intervals are narrower, every one
    own = df.paired.all_pairs(higher_is_better=True, rng=1, n_resamples=999,
                              practical_threshold=0.01, simultaneous=False).to_frame()  # fmt: skip
    assert (own.high - own.low < frame.high - frame.low).all()
    assert "simultaneous" in str(res)
    assert "per-comparison" in str(
        df.paired.all_pairs(higher_is_better=True, rng=1, n_resamples=99, simultaneous=False)
    )
    d = res.to_dict()
    assert d["simultaneous"] is True
    assert d["critical_value"] == res.critical_value
    assert d["method"] == "max-t"


def test_one_comparison_keeps_its_own_interval() -> None:
    df = many(100, (0.0, 0.1))
    kw = {"higher_is_better": True, "rng": 0, "n_resamples": 300}
    res = df.paired.against("m0", **kw)
    assert res.simultaneous
    assert res.critical_value is None
    check_each_pair_equals_two_model(res, df.paired.bootstrap, **kw)


def test_simultaneous_needs_one_joint_resampling() -> None:
    gone = many(80)
    gone = gone[~((gone.model == "m3") & (gone.case_id.isin([4, 9])))]
    kw = {"higher_is_better": True, "rng": 0, "n_resamples": 200, "missing": "complete-case"}
    with pytest.raises(ValueError, match="simultaneous=False"):
        gone.paired.all_pairs(**kw)
    assert not gone.paired.all_pairs(**kw, simultaneous=False).simultaneous
    with pytest.raises(TypeError, match="`simultaneous` must be True or False"):
        gone.paired.all_pairs(**kw, simultaneous="yes")


@pytest.mark.filterwarnings(
    "ignore:The exact binomial test:pdpaired.DegenerateDataWarning"
)  # few discordant pairs: not this test's subject
def test_dask_simultaneous_band_or_a_clear_error() -> None:
    dd = pytest.importorskip("dask.dataframe")
    import pdpaired.dask  # noqa: F401

    kw = {"higher_is_better": True, "rng": 0, "n_resamples": 300}
    binary = dd.from_pandas(many(120, (0.0, 0.1, 0.2), binary=True), npartitions=3)
    with pytest.raises(ValueError, match="Dask table of few-valued scores"):
        binary.paired.against("m0", **kw)
    cont = dd.from_pandas(many(120, (0.0, 0.1, 0.2)), npartitions=2)
    res = cont.paired.all_pairs(**kw)  # Poisson weights keyed by case: one joint resampling
    assert res.simultaneous
    assert res.method == "max-t"
    low, high, _ = band_oracle(res, df=119.0, factor=120 / 119)
    np.testing.assert_allclose(res.to_frame().low, low, rtol=1e-12)
    np.testing.assert_allclose(res.to_frame().high, high, rtol=1e-12)


@pytest.mark.filterwarnings(
    "ignore:The exact binomial test:pdpaired.DegenerateDataWarning"
)  # the disagreement is also warned about; its record on the result is the subject
def test_band_of_few_discordant_pairs_is_checked_at_the_bonferroni_level() -> None:
    # m1 beats m0 on 6 cases and ties on the rest: the exact sign test gives p = 2 / 2**6
    # = 0.03125, below 0.05 but above the Bonferroni level 0.05 / 2 of two comparisons.
    n = 300
    base = (np.arange(n) < 150).astype(float)
    m1 = base.copy()
    m1[150:156] = 1.0
    m2 = base.copy()
    m2[150:152], m2[0] = 1.0, 0.0
    df = pd.concat(
        [pd.DataFrame({"case_id": np.arange(n), "model": m, "score": s})
         for m, s in (("m0", base), ("m1", m1), ("m2", m2))],
        ignore_index=True,
    )  # fmt: skip
    kw = {"higher_is_better": True, "rng": 0, "n_resamples": 2000}
    band = df.paired.against("m0", **kw).comparisons[0]
    own = df.paired.against("m0", **kw, simultaneous=False).comparisons[0]
    assert own.method == "tango"
    assert own.exact_check is None  # p < 0.05 and Tango's interval excludes 0: agreed
    assert band.method == "max-t"
    assert band.confidence_interval.low > 0  # the band excludes 0 ...
    assert band.exact_check is not None  # ... where the exact test at 2.5% does not
    assert "p = 0.0312" in band.exact_check
    assert "2.5% level" in band.exact_check
    assert not band.agreement
