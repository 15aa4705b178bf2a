""":mod:`pdpaired.pairs.units` by exact values.

* The point estimates are exact sums on the grid: for scores that lie on it,
  the mean equals the correctly rounded sum (``math.fsum``) over the count,
  bit for bit -- a float accumulation of the grid integers would not.
* A compressed unit table (rows with frequencies, the Dask path's 0/1 scores)
  weighs each row by its frequency.
* Bad ``stratum_weights`` are refused with messages that say what is wrong.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from pdpaired.pairs.units import UnitTable, design_from_units


def stratified() -> pd.DataFrame:
    n = 12
    return pd.DataFrame({"case_id": np.tile(np.arange(n), 2), "model": np.repeat(["A", "B"], n),
                         "score": np.arange(2.0 * n) % 5,
                         "stratum": np.tile(np.arange(n) % 2, 2)})  # fmt: skip


def three_strata() -> pd.DataFrame:
    n = 12
    return pd.DataFrame({"case_id": np.tile(np.arange(n), 2), "model": np.repeat(["A", "B"], n),
                         "score": np.r_[np.arange(n) % 4, np.zeros(n)].astype(float),
                         "stratum": np.tile(np.arange(n) % 3, 2)})  # fmt: skip


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_means_are_exact_sums_on_the_grid(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = 1000
    # 2n = 2000 rows of |x| < 2: the grid is 2**-(61 - 1 - 11) = 2**-49, and these
    # 51-bit values lie on it; their sum needs ~61 bits, more than a float64 holds
    a = rng.integers(-(2**50), 2**50, n) * 2.0**-49
    b = rng.integers(-(2**50), 2**50, n) * 2.0**-49
    df = pd.DataFrame({"case_id": np.tile(np.arange(n), 2), "model": np.repeat(["A", "B"], n),
                       "score": np.r_[a, b]})  # fmt: skip
    res = df.paired.bootstrap("A", "B", higher_is_better=True, n_resamples=10, rng=0)
    assert res.metric_a == math.fsum(a) / n
    assert res.metric_b == math.fsum(b) / n


@pytest.mark.parametrize("seed", [0, 1])
def test_group_sums_are_exact_on_the_grid(seed: int) -> None:
    # the same 51-bit scores in groups of 10: each group's sum needs ~55 bits, so
    # group sums accumulated in float64 would round; on the grid they are exact
    rng = np.random.default_rng(seed)
    n = 1000
    a = rng.integers(-(2**50), 2**50, n) * 2.0**-49
    b = rng.integers(-(2**50), 2**50, n) * 2.0**-49
    g = np.arange(n) // 10
    df = pd.DataFrame({"case_id": np.tile(np.arange(n), 2), "model": np.repeat(["A", "B"], n),
                       "score": np.r_[a, b], "g": np.tile(g, 2)})  # fmt: skip
    res = df.paired(group="g").bootstrap("A", "B", higher_is_better=True, unit="group",
                                         n_resamples=10, rng=0)  # fmt: skip
    assert res.metric_a == math.fsum(a) / n
    assert res.metric_b == math.fsum(b) / n
    assert res.improvement == math.fsum(a - b) / n  # a - b is exact: both on the grid


@pytest.mark.parametrize("unit", ["case", "group"])
def test_dask_sums_are_exact_on_the_grid(unit: str) -> None:
    # the Dask path quantizes each partition and sums the grid integers across
    # partitions: the same exact means as pandas, whatever the partitioning
    dd = pytest.importorskip("dask.dataframe")
    import pdpaired.dask  # noqa: F401  (registers ddf.paired)

    rng = np.random.default_rng(3)
    n = 600
    a = rng.integers(-(2**50), 2**50, n) * 2.0**-49
    b = rng.integers(-(2**50), 2**50, n) * 2.0**-49
    g = np.arange(n) // 10
    df = pd.DataFrame({"case_id": np.tile(np.arange(n), 2), "model": np.repeat(["A", "B"], n),
                       "score": np.r_[a, b], "g": np.tile(g, 2)})  # fmt: skip
    ddf = dd.from_pandas(df, npartitions=3)
    res = ddf.paired(group="g").bootstrap("A", "B", higher_is_better=True, unit=unit,
                                          n_resamples=10, rng=0)  # fmt: skip
    assert res.metric_a == math.fsum(a) / n
    assert res.metric_b == math.fsum(b) / n


@pytest.mark.parametrize("n", [1, 4, 5, 11])
def test_quantize_in_blocks_equals_one_pass(monkeypatch: pytest.MonkeyPatch, n: int) -> None:
    from pdpaired.pairs import units as _units

    monkeypatch.setattr(_units, "_QUANTIZE_BLOCK", 4)  # blocks of 4 values
    x = np.random.default_rng(n).normal(size=n) * 3.0
    k = 40
    want = np.rint(x * 2.0**k).astype(np.int64)  # x * 2**k is exact: a power of two
    got = _units.quantize(x, k)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, want)
    # round half to even on the grid, as np.rint
    halves = np.array([0.5, 1.5, 2.5, -0.5, -2.5, 3.25]) * 2.0**-3
    np.testing.assert_array_equal(_units.quantize(halves, 3), [0, 2, 2, 0, -2, 3])


def test_compressed_unit_table_weighs_rows_by_frequency() -> None:
    k = 3
    t = UnitTable(
        sum_a=np.array([8, 0, 8, 8]),  # on the grid 2**-3: scores 1, 0, 1, 1
        sum_b=np.array([0, 8, 8, 0]),
        count=np.ones(4, dtype=np.int64),
        stratum=np.array([0, 0, 1, 1]),
        s_labels=pd.Index(["x", "y"]),
        k=k,
        unit="case",
        freq=np.array([5, 15, 2, 6]),
    )
    np.testing.assert_array_equal(t.weights(), [5, 15, 2, 6])
    design, ma, mb = design_from_units(t, weighting="item", stratum_weights=None, sign=1.0)
    # stratum x: 20 cases, A right on 5, B on 15; stratum y: 8 cases, A on 8, B on 2
    assert ma == pytest.approx(20 / 28 * 5 / 20 + 8 / 28 * 8 / 8, rel=1e-15)
    assert mb == pytest.approx(20 / 28 * 15 / 20 + 8 / 28 * 2 / 8, rel=1e-15)
    np.testing.assert_array_equal(design.freq, [5, 15, 2, 6])
    np.testing.assert_allclose(design.weight, [20 / 28, 8 / 28], rtol=1e-15)
    assert design.count is None  # case units: every unit counts one case
    # each unit counting once gives the same means here (one case per unit)
    dg, ga, gb = design_from_units(t, weighting="group", stratum_weights=None, sign=1.0)
    assert (ga, gb) == pytest.approx((ma, mb), rel=1e-15)
    np.testing.assert_allclose(dg.weight, [20 / 28, 8 / 28], rtol=1e-15)
    # groups of unequal size: the item mean weighs cases, the group mean units
    tg = UnitTable(sum_a=np.array([16, 0, 8, 8]), sum_b=np.zeros(4, dtype=np.int64),
                   count=np.array([2, 1, 1, 1]), stratum=np.array([0, 0, 1, 1]),
                   s_labels=pd.Index(["x", "y"]), k=k, unit="group",
                   freq=np.array([1, 3, 2, 2]))  # fmt: skip
    di, ia, _ = design_from_units(tg, weighting="item", stratum_weights=None, sign=1.0)
    np.testing.assert_array_equal(di.count, [2, 1, 1, 1])
    # stratum x: 1 group of 2 cases scoring 1, 3 groups of 1 case scoring 0; y: 4 cases of 1
    assert ia == pytest.approx(5 / 9 * 2 / 5 + 4 / 9 * 1.0, rel=1e-15)
    dgr, gra, _ = design_from_units(tg, weighting="group", stratum_weights=None, sign=1.0)
    assert gra == pytest.approx(4 / 8 * 1 / 4 + 4 / 8 * 1.0, rel=1e-15)
    np.testing.assert_allclose(dgr.weight, [0.5, 0.5], rtol=1e-15)
    assert dgr.count is None
    plain = UnitTable(sum_a=t.sum_a, sum_b=t.sum_b, count=t.count, stratum=t.stratum,
                      s_labels=t.s_labels, k=k, unit="case")  # fmt: skip
    w = plain.weights()
    assert w.dtype == np.int64
    np.testing.assert_array_equal(w, [1, 1, 1, 1])


def test_stratum_weights_must_be_a_mapping() -> None:
    with pytest.raises(TypeError) as info:
        stratified().paired.bootstrap("A", "B", higher_is_better=True, rng=0, n_resamples=10,
                                      stratum_weights=[0.5, 0.5])  # fmt: skip
    assert str(info.value) == (
        "`stratum_weights` must be a mapping (dict or Series) from stratum to share."
    )


def test_stratum_weights_must_name_every_stratum() -> None:
    with pytest.raises(ValueError, match="stratum_weights") as info:
        stratified().paired.bootstrap("A", "B", higher_is_better=True, rng=0, n_resamples=10,
                                      stratum_weights={0: 0.5, 7: 0.5})  # fmt: skip
    assert str(info.value) == (
        "`stratum_weights` must give one share for every stratum in the data; "
        "missing: [1], not in the data: [7]."
    )


def test_a_zero_stratum_weight_is_allowed() -> None:
    df = three_strata()
    res = df.paired.bootstrap("A", "B", higher_is_better=True, rng=0, n_resamples=10,
                              stratum_weights={0: 1.0, 1: 0.0, 2: 0.0})  # fmt: skip
    a = df[(df.model == "A") & (df.stratum == 0)]["score"]
    assert res.metric_a == a.mean()


def test_stratum_weights_sum_to_one_within_1e9() -> None:
    df = three_strata()
    kw = {"higher_is_better": True, "rng": 0, "n_resamples": 10}
    # 0.7 + 0.2 + 0.1 is 0.9999999999999999 in floats: accepted
    assert float(np.sum([0.7, 0.2, 0.1])) != 1.0
    res = df.paired.bootstrap("A", "B", stratum_weights={0: 0.7, 1: 0.2, 2: 0.1}, **kw)
    means = df[df.model == "A"].groupby("stratum")["score"].mean()
    assert res.metric_a == pytest.approx(0.7 * means[0] + 0.2 * means[1] + 0.1 * means[2])
    ok = df.paired.bootstrap("A", "B", stratum_weights={0: 0.5, 1: 0.25, 2: 0.25 + 9e-10}, **kw)
    assert np.isfinite(ok.metric_a)
    with pytest.raises(ValueError, match=r"must sum to 1 \(within 1e-9\)"):
        df.paired.bootstrap("A", "B", stratum_weights={0: 0.5, 1: 0.25, 2: 0.25 + 2e-9}, **kw)


def test_scores_below_one_keep_their_fractions() -> None:
    # probabilities-like scores in [0, 1): the grid still resolves every bit
    rng = np.random.default_rng(9)
    n = 500
    a = rng.integers(0, 2**40, n) * 2.0**-40
    b = rng.integers(0, 2**40, n) * 2.0**-40
    df = pd.DataFrame({"case_id": np.tile(np.arange(n), 2), "model": np.repeat(["A", "B"], n),
                       "score": np.r_[a, b]})  # fmt: skip
    res = df.paired.bootstrap("A", "B", higher_is_better=True, n_resamples=10, rng=0)
    assert res.metric_a == math.fsum(a) / n
    assert res.metric_b == math.fsum(b) / n
