"""The design helpers of :mod:`pdpaired.pairs.backend` and the in-memory backend, by value.

The design arguments' checks (each error names what to do), the order of the
slices of a categorical column (its categories' order, not the values'
sorted order, missing values last) with each slice's improvement against a
groupby oracle, the arrival key of :meth:`sequential` (a column name), and
``fill_units``, which only a score-mode long table has.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdpaired  # noqa: F401  (registers the accessor)
from pdpaired.pairs.backend import value_order

from ..conftest import long_table


def scores(n: int = 40, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.normal(0.3, 1.0, n), rng.normal(0.0, 1.0, n)


def test_stratified_must_be_a_bool_or_none() -> None:
    a, b = scores()
    cmp = long_table(a, b).paired.compare("A", "B", higher_is_better=True)
    with pytest.raises(TypeError, match=r"`stratified` must be None, True or False; got 'yes'"):
        cmp.bootstrap(n_resamples=50, rng=0, stratified="yes")


def test_stratum_weights_need_stratified_resampling_over_a_stratum_column() -> None:
    a, b = scores()
    stratum = np.repeat(["s", "t"], 20)
    cmp = long_table(a, b).paired.compare("A", "B", higher_is_better=True)
    with pytest.raises(ValueError, match="`stratum_weights` needs stratified resampling"):
        cmp.bootstrap(n_resamples=50, rng=0, stratum_weights={"s": 0.5, "t": 0.5})
    strat = long_table(a, b, stratum=stratum).paired(stratum="stratum")
    with pytest.raises(ValueError, match="`stratum_weights` needs stratified resampling"):
        strat.bootstrap(
            "A", "B", higher_is_better=True, n_resamples=50, rng=0, stratified=False,
            stratum_weights={"s": 0.5, "t": 0.5},
        )  # fmt: skip
    # with the strata, the weights give the post-stratified mean: sum_h w_h * mean_h
    res = strat.bootstrap(
        "A", "B", higher_is_better=True, n_resamples=50, rng=0,
        stratum_weights={"s": 0.2, "t": 0.8},
    )  # fmt: skip
    d = a - b
    assert res.improvement == pytest.approx(0.2 * d[:20].mean() + 0.8 * d[20:].mean(), rel=1e-12)


def test_weighting_group_needs_unit_group() -> None:
    a, b = scores()
    acc = long_table(a, b, group=np.arange(40) // 4).paired(group="group")
    with pytest.raises(ValueError, match=r"`weighting`=.group. .* needs unit=.group."):
        acc.bootstrap(
            "A", "B", higher_is_better=True, n_resamples=50, rng=0, unit="case",
            weighting="group",
        )  # fmt: skip


def test_stratified_true_without_a_stratum_column_means_target_classes_in_prediction_mode() -> None:
    rng = np.random.default_rng(1)
    n = 60
    y = np.tile([0, 1], n // 2)
    df = long_table(rng.uniform(size=n), rng.uniform(size=n), y=y)
    df = df.rename(columns={"score": "p"})
    res = df.paired(target="y", prediction="p").bootstrap(
        "A", "B", metric="accuracy", n_resamples=50, rng=0, stratified=True
    )
    assert res.sampling == "target-stratified"
    with pytest.raises(ValueError, match="`stratified`=True needs a stratum column"):
        long_table(*scores()).paired.bootstrap(
            "A", "B", higher_is_better=True, n_resamples=50, rng=0, stratified=True
        )


def test_categorical_slices_follow_the_category_order_missing_last() -> None:
    rng = np.random.default_rng(4)
    n = 90
    a, b = scores(n, seed=4)
    tier = rng.choice(np.array(["low", "mid", "high"], dtype=object), n)
    tier[rng.choice(n, 7, replace=False)] = None
    cats = ["mid", "unused", "high", "low"]  # neither sorted nor the order of appearance
    df = long_table(a, b, tier=pd.Categorical(np.tile(tier, 1), categories=cats))
    df["tier"] = pd.Categorical(df["tier"], categories=cats)
    res = df.paired.compare("A", "B", higher_is_better=True).by_slice("tier", min_size=1)
    table = res.table
    shown = ["<missing>" if pd.isna(v) else str(v) for v in table["value"]]
    assert shown == ["mid", "high", "low", "<missing>"]
    d = pd.Series(a - b)
    key = pd.Series(tier).fillna("<missing>")
    want = d.groupby(key).mean()
    sizes = key.value_counts()
    for _, row in table.iterrows():
        label = "<missing>" if pd.isna(row["value"]) else str(row["value"])
        assert row["n"] == sizes[label]
        assert row["improvement"] == pytest.approx(want[label], rel=1e-12, abs=1e-15)


def test_value_order_of_a_categorical_and_of_mixed_values() -> None:
    values = pd.Series(pd.Categorical(["b", "a", None, "c"], categories=["c", "a", "b"]))
    labels = pd.Index(["b", "a", np.nan, "c"])
    assert value_order(labels, values) == [3, 1, 0, 2]  # c, a, b, then the missing value
    mixed = np.array([3, "x", None, 1], dtype=object)  # do not compare: sorted as text
    assert value_order(mixed, pd.Series(mixed)) == [3, 0, 1, 2]


def test_sequential_order_must_be_a_column_name() -> None:
    rng = np.random.default_rng(3)
    a, b = rng.binomial(1, 0.7, 40), rng.binomial(1, 0.4, 40)  # 0/1: no bounds needed
    df = long_table(a, b)
    df["arrival"] = np.tile(np.arange(40)[::-1], 2)
    cmp = df.paired.compare("A", "B", higher_is_better=True)
    with pytest.raises(TypeError, match=r"`order` must be a column name; got \['arrival'\]"):
        cmp.sequential(["arrival"])
    with pytest.raises(ValueError, match="`order` column 'when' not found; the table has"):
        cmp.sequential("when")
    # the arrival column orders the cases: reversed ids give the reversed sequence
    by_arrival = cmp.sequential("arrival").to_frame()
    d = (a - b)[::-1]
    np.testing.assert_allclose(by_arrival["estimate"], np.cumsum(d) / np.arange(1, 41), rtol=1e-12)
    reversed_ids = long_table(a[::-1], b[::-1]).paired.compare("A", "B", higher_is_better=True)
    by_id = reversed_ids.sequential("case_id").to_frame()
    cols = [c for c in by_id.columns if c not in ("case_id", "arrival", "order")]
    pd.testing.assert_frame_equal(
        by_arrival[cols].reset_index(drop=True), by_id[cols].reset_index(drop=True)
    )


def test_fill_units_needs_a_score_mode_long_table() -> None:
    rng = np.random.default_rng(2)
    df = long_table(rng.uniform(size=20), rng.uniform(size=20), y=np.tile([0, 1], 10))
    cmp = (
        df.rename(columns={"score": "p"})
        .paired(target="y", prediction="p")
        .compare("A", "B", metric="accuracy")
    )
    with pytest.raises(NotImplementedError, match="fill_units needs the long table"):
        cmp._pairs.fill_units("case", False)
