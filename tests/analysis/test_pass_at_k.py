"""Paired pass@k / pass^k through the accessor: the estimand, the designs, the errors.

The oracle is the per-case estimate computed with ``math.comb`` in a plain
loop; the bootstrap of the pass@k comparison must be the ordinary score-mode
bootstrap of those estimates, bit for bit.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

import pdpaired
from pdpaired import PairingError


def table(seed: int = 1, n_cases: int = 60) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    p = rng.beta(1.0, 1.5, n_cases)
    rows = []
    for case in range(n_cases):
        for model, lift in (("A", 1.0), ("B", 0.7)):
            for _ in range(int(rng.integers(5, 11))):
                hit = int(rng.random() < p[case] * lift)
                rows.append((case, model, hit, case // 4, (case // 4) % 3))
    return pd.DataFrame(rows, columns=["case_id", "model", "correct", "group", "stratum"])


def estimates(df: pd.DataFrame, kind: str, k: int) -> pd.DataFrame:
    """One row per (case, model) with the oracle estimate as ``score``."""
    rows = []
    for (case, model), g in df.groupby(["case_id", "model"]):
        n, c = len(g), int(g["correct"].sum())
        if kind == "pass@k":
            v = 1 - Fraction(math.comb(n - c, k), math.comb(n, k))
        else:
            v = Fraction(math.comb(c, k), math.comb(n, k))
        rows.append((case, model, float(v), g["group"].iloc[0], g["stratum"].iloc[0]))
    return pd.DataFrame(rows, columns=["case_id", "model", "score", "group", "stratum"])


KW = {"rng": 0, "n_resamples": 1999}


@pytest.mark.parametrize(("kind", "method", "name"), [
    ("pass@k", "pass_at_k", "pass@4"), ("pass^k", "pass_hat_k", "pass^4"),
])  # fmt: skip
def test_point_estimate_is_the_mean_difference_of_the_estimates(kind, method, name) -> None:
    df = table()[["case_id", "model", "correct", "group", "stratum"]]
    plain = df.drop(columns=["group", "stratum"])
    res = getattr(plain.paired, method)("A", "B", k=4, **KW)
    est = estimates(df, kind, 4).pivot(index="case_id", columns="model", values="score")
    assert res.metric == name
    assert res.higher_is_better is True
    assert res.n_cases == 60
    assert res.metric_a == pytest.approx(est["A"].mean(), rel=1e-12)
    assert res.metric_b == pytest.approx(est["B"].mean(), rel=1e-12)
    assert res.improvement == pytest.approx((est["A"] - est["B"]).mean(), rel=1e-12)


@pytest.mark.parametrize("design", [{}, {"group": "group"}, {"stratum": "stratum"}])
def test_the_bootstrap_is_score_modes_on_the_per_case_estimates(design) -> None:
    df = table()
    cols = {"group": design.get("group"), "stratum": design.get("stratum")}  # others off
    res = df.paired(**cols).pass_at_k("A", "B", k=3, **KW)
    ref = estimates(df, "pass@k", 3).paired(**cols).bootstrap("A", "B", higher_is_better=True, **KW)
    assert res.sampling == ref.sampling
    assert res.method == ref.method
    # the oracle's estimates are rounded from exact fractions, the library's from a
    # product of k factors: they differ by an ulp or two, hence rel=1e-12, not ==
    assert res.confidence_interval.low == pytest.approx(ref.confidence_interval.low, rel=1e-12)
    assert res.confidence_interval.high == pytest.approx(ref.confidence_interval.high, rel=1e-12)
    assert res.improvement == pytest.approx(ref.improvement, rel=1e-12)


def test_sampling_follows_the_configured_design() -> None:
    df = table()
    one = df.paired(group="group", stratum=None).pass_at_k("A", "B", k=2, **KW)
    assert (one.sampling, one.n_groups) == ("cluster", 15)
    two = df.paired(group=None, stratum="stratum").pass_at_k("A", "B", k=2, **KW)
    assert (two.sampling, two.n_strata) == ("stratified", 3)
    # group and stratum columns left at their defaults are used when present
    both = df.paired.pass_at_k("A", "B", k=2, **KW)
    assert (both.sampling, both.n_groups, both.n_strata) == ("stratified-cluster", 15, 3)


def test_row_order_is_irrelevant_and_the_frame_unmodified() -> None:
    df = table().drop(columns=["group", "stratum"])
    shuffled = df.sample(frac=1.0, random_state=7)
    before = shuffled.copy(deep=True)
    a = df.paired.pass_hat_k("A", "B", k=2, **KW)
    b = shuffled.paired.pass_hat_k("A", "B", k=2, **KW)
    assert a.confidence_interval == b.confidence_interval
    pd.testing.assert_frame_equal(shuffled, before)
    assert shuffled.attrs == {}


def test_a_custom_correct_column_and_swapped_models() -> None:
    df = table().drop(columns=["group", "stratum"]).rename(columns={"correct": "hit"})
    ab = df.paired.pass_at_k("A", "B", k=2, correct="hit", **KW)
    ba = df.paired.pass_at_k("B", "A", k=2, correct="hit", **KW)
    assert ab.improvement == pytest.approx(-ba.improvement, abs=1e-15)


@pytest.mark.parametrize("k", [0, -1, 2.5, True, "3", None])
def test_k_must_be_a_positive_integer(k) -> None:
    with pytest.raises(ValueError, match="`k` must be a positive integer"):
        table().paired.pass_at_k("A", "B", k=k)


def test_fewer_than_k_samples_names_the_rule_and_cases() -> None:
    df = table()
    with pytest.raises(PairingError, match=r"rule `at least k=8 samples") as err:
        df.paired.pass_at_k("A", "B", k=8)
    assert "first ids: " in str(err.value)


def test_the_same_model_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="two different models"):
        table().paired.pass_at_k("A", "A", k=1)


def test_dask_tables_say_what_to_do() -> None:
    dd = pytest.importorskip("dask.dataframe")
    import pdpaired.dask  # noqa: F401

    ddf = dd.from_pandas(table(), npartitions=2)
    with pytest.raises(NotImplementedError, match=r"ddf.compute\(\)"):
        ddf.paired.pass_at_k("A", "B", k=2)


def test_k_1_is_the_mean_of_the_per_case_accuracy() -> None:
    df = table().drop(columns=["group", "stratum"])
    res = df.paired.pass_at_k("A", "B", k=1, **KW)
    acc = df.groupby(["case_id", "model"])["correct"].mean().unstack()
    assert res.metric_a == pytest.approx(acc["A"].mean(), rel=1e-12)
    assert isinstance(res, pdpaired.BootstrapResult)


def test_correct_none_is_refused_and_the_measure_describes_itself() -> None:
    from pdpaired.analysis.pass_at_k import PassMeasure, make_pass_comparison
    from pdpaired.pairs.columns import Columns

    with pytest.raises(ValueError, match="`correct` must name the 0/1 column"):
        make_pass_comparison(
            table(), Columns(score=None), "A", "B", k=2, kind="pass@k", correct=None,
            missing="error", fill_value=None,
        )  # fmt: skip
    assert PassMeasure("pass@2").describe() == "metric='pass@2', higher_is_better=True"


@pytest.mark.parametrize(("kind", "method"), [("pass@k", "pass_at_k"), ("pass^k", "pass_hat_k")])
def test_compare_pass_is_the_comparison_behind_the_one_call_forms(kind, method) -> None:
    df = table()
    cmp = df.paired(group="group", stratum=None).compare_pass("A", "B", k=3, kind=kind)
    one = getattr(df.paired(group="group", stratum=None), method)("A", "B", k=3, **KW)
    two = cmp.bootstrap(**KW)
    assert two.confidence_interval == one.confidence_interval
    assert np.array_equal(two.bootstrap_distribution, one.bootstrap_distribution)
    # the per-case scores of the comparison are the oracle's estimates
    want = estimates(df, kind, 3).pivot(index="case_id", columns="model", values="score")
    got = cmp.pairs.sort_index()
    np.testing.assert_allclose(got["A"], want["A"], rtol=1e-12)
    np.testing.assert_allclose(got["B"], want["B"], rtol=1e-12)


def test_compare_pass_gives_reports_slices_and_verifiable_artifacts(tmp_path) -> None:
    df = table()
    df["family"] = np.where(df["case_id"] % 2 == 0, "even", "odd")  # constant within a case
    cmp = df.paired(group=None, stratum=None).compare_pass("A", "B", k=2)
    sl = cmp.by_slice("family", rng=0, n_resamples=999)
    est = estimates(df, "pass@k", 2)
    est["family"] = np.where(est["case_id"] % 2 == 0, "even", "odd")
    ref = est.drop(columns=["group", "stratum"]).paired.by_slice(
        "A", "B", columns="family", higher_is_better=True, rng=0, n_resamples=999
    )
    np.testing.assert_allclose(sl.to_frame()["improvement"], ref.to_frame()["improvement"],
                               rtol=1e-12)  # fmt: skip
    rep = cmp.report(rng=0, n_resamples=999)
    paths = rep.save(tmp_path)
    art = pdpaired.verify(paths["shareable"])
    assert art["metric"]["name"] == "pass@2"
    assert pdpaired.verify(paths["local"])["n_cases"] == 60


def test_compare_pass_refuses_an_unknown_kind() -> None:
    with pytest.raises(ValueError, match=r"`kind` must be 'pass@k' or 'pass\^k'; got 'pass@'"):
        table().paired.compare_pass("A", "B", k=2, kind="pass@")
