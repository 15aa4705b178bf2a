"""``method="auto"``: which method each design gets, the sentence that says why, and the
warning for a named method known to under-cover there."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import pdpaired
from pdpaired import DegenerateDataWarning
from pdpaired.core.auto import (
    FEW_CASES,
    MAX_FLAT_SHARE,
    STRONG_SKEW,
    choose_method,
    flat_share,
    skewness,
)
from pdpaired.core.bootstrap import DesignResampler
from pdpaired.core.engine import Design


def long_frame(a: np.ndarray, b: np.ndarray, **extra: np.ndarray) -> pd.DataFrame:
    n = a.size
    cols = {
        "case_id": np.tile(np.arange(n), 2),
        "model": np.repeat(["A", "B"], n),
        "score": np.concatenate([a, b]),
    }
    for name, v in extra.items():
        cols[name] = np.tile(v, 2)
    return pd.DataFrame(cols)


def auto(df: pd.DataFrame, **design: object) -> pdpaired.BootstrapResult:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        return df.paired(**design).bootstrap("A", "B", higher_is_better=True, rng=0,
                                             n_resamples=200)  # fmt: skip


RNG = np.random.default_rng(11)


def test_zero_one_scores_on_independent_cases_get_tango() -> None:
    a = (RNG.random(300) < 0.6).astype(float)
    b = (RNG.random(300) < 0.5).astype(float)
    res = auto(long_frame(a, b))
    assert res.method == "tango"
    assert res.method_reason.startswith("0/1 scores on 300 independent cases: Tango's")
    # the same interval as asking for it
    named = long_frame(a, b).paired.bootstrap("A", "B", higher_is_better=True, rng=0,
                                              n_resamples=200, method="tango")  # fmt: skip
    assert res.confidence_interval == named.confidence_interval
    assert named.method_reason == "asked for"


def test_integer_ratings_differing_by_one_are_not_pass_fail() -> None:
    """Differences in {-1, 0, 1} from 1-5 ratings: a mean of ratings, not Tango's."""
    b = RNG.integers(1, 5, 400).astype(float)
    a = b + RNG.choice([-1.0, 0.0, 1.0], 400)
    res = auto(long_frame(a, b))
    assert res.method != "tango"


def test_few_continuous_cases_get_the_bootstrap_t() -> None:
    n = FEW_CASES - 1
    res = auto(long_frame(RNG.normal(size=n), np.zeros(n)))
    assert res.method == "studentized"
    assert res.method_reason.startswith(f"continuous scores with only {n} independent cases")


def test_strong_skew_gets_the_bootstrap_t_at_any_size() -> None:
    d = RNG.lognormal(0, 1.0, 2_000)
    assert stats.skew(d) > STRONG_SKEW
    res = auto(long_frame(d, np.zeros(d.size)))
    assert res.method == "studentized"
    assert f"skewness {stats.skew(d):+.2f}" in res.method_reason


def test_large_symmetric_samples_keep_the_percentile_interval() -> None:
    d = RNG.normal(size=FEW_CASES)
    res = auto(long_frame(d, np.zeros(d.size)))
    assert res.method == "percentile"
    assert f"skewness {stats.skew(d):+.2f}" in res.method_reason


def test_heavily_tied_few_cases_keep_the_percentile_interval() -> None:
    """Six cases, four equal: (4/6)**6 + 2 (1/6)**6 = 8.8% of resamples have no spread."""
    d = np.array([1.0, 1.0, 1.0, 1.0, 2.5, 4.0])
    des = Design(value=d, count=None, unit_ptr=np.array([0, 6]), weight=np.ones(1), sign=1.0)
    share = flat_share(DesignResampler(des))
    assert share == pytest.approx((4 / 6) ** 6 + 2 * (1 / 6) ** 6, rel=1e-12)
    assert share >= MAX_FLAT_SHARE
    res = auto(long_frame(d, np.zeros(6)))
    assert res.method == "percentile"
    assert "many ties" in res.method_reason


def test_strata_and_clusters_get_the_corrected_percentile_interval() -> None:
    n = 120
    d = RNG.normal(size=n)
    stratum = np.repeat(["s0", "s1", "s2"], n // 3)
    group = np.repeat(np.arange(30), n // 30)
    designs = (("stratified", {"stratum": "stratum", "group": None}),
               ("cluster", {"group": "group", "stratum": None}))  # fmt: skip
    for design, cols in designs:
        res = auto(long_frame(d, np.zeros(n), stratum=stratum, group=group), **cols)
        assert res.sampling == design
        assert res.method == "percentile"
        assert "small-sample correction" in res.method_reason
        assert "effective degrees of freedom" in res.method_reason


def test_corpus_metrics_get_bca_where_the_jackknife_is_affordable() -> None:
    n = 200
    y = RNG.integers(0, 2, n)
    df = pd.DataFrame({
        "case_id": np.tile(np.arange(n), 2), "model": np.repeat(["A", "B"], n),
        "prediction": np.concatenate([RNG.random(n), RNG.random(n)]), "target": np.tile(y, 2),
    })  # fmt: skip
    res = df.paired(prediction="prediction", target="target").bootstrap(
        "A", "B", metric="auroc", rng=0, n_resamples=200)  # fmt: skip
    assert res.method == "bca"
    assert res.method_reason.startswith("corpus metric 'auroc': BCa")


def test_skewness_is_scipys_and_scale_free() -> None:
    d = RNG.lognormal(size=50)
    des = Design(value=d, count=None, unit_ptr=np.array([0, 50]), weight=np.ones(1), sign=1.0)
    assert skewness(DesignResampler(des)) == pytest.approx(stats.skew(d), rel=1e-10)
    big = Design(value=d * 1e300, count=None, unit_ptr=np.array([0, 50]), weight=np.ones(1),
                 sign=1.0)  # fmt: skip
    assert skewness(DesignResampler(big)) == pytest.approx(stats.skew(d), rel=1e-10)


def test_choose_method_of_a_resampler_it_does_not_know() -> None:
    method, reason = choose_method(object())
    assert method == "percentile"
    assert "two-stage" in reason


@pytest.mark.parametrize("method", ["percentile", "basic", "bca"])
def test_a_named_method_known_to_under_cover_warns(method: str) -> None:
    d = np.random.default_rng(5).lognormal(size=30)
    assert stats.skew(d) >= STRONG_SKEW
    df = long_frame(d, np.zeros(30))
    with pytest.warns(DegenerateDataWarning, match="strongly skewed") as info:
        df.paired.bootstrap("A", "B", higher_is_better=True, rng=0, n_resamples=200,
                            method=method)  # fmt: skip
    text = str(info[0].message)
    assert f"a {method} interval under-covers here" in text
    assert "method='studentized' (what method='auto' chooses for this design)" in text
    assert "cmp.audit()" in text


def test_no_warning_where_the_named_method_is_fine() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", DegenerateDataWarning)
        long_frame(RNG.normal(size=30), np.zeros(30)).paired.bootstrap(
            "A", "B", higher_is_better=True, rng=0, n_resamples=200, method="percentile"
        )
        long_frame(RNG.lognormal(size=300), np.zeros(300)).paired.bootstrap(
            "A", "B", higher_is_better=True, rng=0, n_resamples=200, method="percentile"
        )
        long_frame(RNG.lognormal(size=30), np.zeros(30)).paired.bootstrap(
            "A", "B", higher_is_better=True, rng=0, n_resamples=200, method="studentized"
        )


def test_several_models_choose_per_comparison() -> None:
    n = 60
    base = RNG.normal(size=n)
    df = pd.DataFrame({
        "case_id": np.tile(np.arange(n), 3), "model": np.repeat(["base", "sym", "skew"], n),
        "score": np.concatenate([base, base + RNG.normal(size=n),
                                 base + RNG.lognormal(0, 1.5, n)]),
    })  # fmt: skip
    res = df.paired.against("base", higher_is_better=True, rng=0, n_resamples=200,
                            simultaneous=False)  # fmt: skip
    assert {c.method for c in res.comparisons} == {"studentized"}  # 60 cases: both few
    assert all(c.method_reason for c in res.comparisons)
    assert res.method == "studentized"
    # simultaneous (the default): the band replaces them, and each says which it replaced
    band = df.paired.against("base", higher_is_better=True, rng=0, n_resamples=200)
    assert res.method != band.method == "max-t"
    for c, own in zip(band.comparisons, res.comparisons, strict=True):
        assert f"in place of the studentized interval ({own.method_reason})" in c.method_reason


def test_cli_method_auto_is_the_default(tmp_path: object, capsys: pytest.CaptureFixture) -> None:
    from pdpaired.cli.main import main

    path = f"{tmp_path}/long.csv"
    long_frame(RNG.lognormal(size=40), np.zeros(40)).to_csv(path, index=False)
    code = main(["compare", path, "--long", "--a", "A", "--b", "B", "--score", "score",
                 "--higher-is-better", "--resamples", "200", "--permutations", "100",
                 "--seed", "0"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    assert "studentized: continuous scores with only 40 independent cases" in out
