"""Pairing layer: every pairing invariant (docs/pairing.md), and each bad input it refuses."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdpaired
from pdpaired import PairingError

from .conftest import long_table


def small() -> pd.DataFrame:
    return long_table(np.array([1.0, 0.5, 0.7, 0.2]), np.array([0.8, 0.5, 0.1, 0.4]))


def test_import_registers_accessor() -> None:
    assert hasattr(pd.DataFrame({"x": [1]}), "paired")
    assert isinstance(pd.DataFrame().paired, pdpaired.PairedAccessor)


def test_pairs_sorted_wide_and_a_copy() -> None:
    df = small().sample(frac=1.0, random_state=3)
    cmp = df.paired.compare("A", "B", higher_is_better=True)
    pairs = cmp.pairs
    assert list(pairs.columns) == ["A", "B"]
    assert pairs.index.is_monotonic_increasing
    assert pairs.index.name == "case_id"
    pairs.loc[0, "A"] = 99.0  # editing the copy does not touch the comparison
    assert cmp.pairs.loc[0, "A"] == 1.0


def test_caller_frame_never_modified(clustered: pd.DataFrame) -> None:
    before = clustered.copy(deep=True)
    clustered.paired.bootstrap("A", "B", higher_is_better=True, rng=0, n_resamples=50)
    clustered.paired(stratum=None).compare("A", "B", higher_is_better=False)
    pd.testing.assert_frame_equal(clustered, before)
    assert clustered.attrs == {}


def test_configured_column_names() -> None:
    df = small().rename(columns={"case_id": "id", "model": "system", "score": "acc"})
    cmp = df.paired(case="id", model="system", score="acc").compare("A", "B", higher_is_better=True)
    assert cmp.n_cases == 4
    assert cmp.pairs.index.name == "id"


def test_group_and_stratum_default_to_present_columns(clustered: pd.DataFrame) -> None:
    res = clustered.paired.bootstrap("A", "B", higher_is_better=True, rng=0, n_resamples=50)
    assert res.sampling == "stratified-cluster"
    off = clustered.paired(group=None, stratum=None).bootstrap(
        "A", "B", higher_is_better=True, rng=0, n_resamples=50
    )
    assert off.sampling == "iid"
    assert off.n_groups is None


def test_third_model_rows_are_ignored() -> None:
    df = pd.concat([small(), pd.DataFrame({"case_id": [0, 0], "model": ["C", "C"], "score": 1.0})])
    assert df.paired.compare("A", "B", higher_is_better=True).n_cases == 4


# ---------------------------------------------------------------- bad input
def _error(df: pd.DataFrame, *args: object, **kw: object) -> PairingError:
    kw.setdefault("higher_is_better", True)
    with pytest.raises(PairingError) as info:
        df.paired.compare(*args, **kw)
    return info.value


@pytest.mark.parametrize("missing", ["error", "complete-case", "as-failure"])
def test_duplicate_case_model_rows_always_error(missing: str) -> None:
    df = pd.concat([small(), small().iloc[[0, 5]]], ignore_index=True)
    err = _error(df, "A", "B", missing=missing)
    assert "unique (case, model)" in str(err)
    assert "2 case(s)" in str(err)
    assert "[0, 1]" in str(err)
    assert set(err.failure_cases["index"]) == {0, 1}
    assert isinstance(err, ValueError)


def test_duplicate_ids_message_truncates_but_failure_cases_has_all() -> None:
    df = long_table(np.zeros(30), np.ones(30))
    df = pd.concat([df, df[df["model"] == "A"]], ignore_index=True)
    err = _error(df, "A", "B")
    assert "30 case(s)" in str(err)
    assert "(20 more)" in str(err)
    assert len(err.failure_cases) == 30


def test_case_missing_for_one_model_under_error_policy() -> None:
    df = small().drop(index=[6])  # B's row of case 2
    err = _error(df, "A", "B")
    assert "missing outcome for B (B)" in str(err)
    assert "1 case(s)" in str(err)
    assert list(err.failure_cases["index"]) == [2]


def test_nan_score_is_a_missing_outcome() -> None:
    df = small()
    df.loc[1, "score"] = np.nan
    err = _error(df, "A", "B")
    assert "missing outcome for A (A)" in str(err)
    assert list(err.failure_cases["index"]) == [1]


def test_non_numeric_scores() -> None:
    df = small().astype({"score": object})
    df.loc[2, "score"] = "oops"
    err = _error(df, "A", "B")
    assert "numeric score" in str(err)
    assert list(err.failure_cases["index"]) == [2]


def test_infinite_scores() -> None:
    df = small()
    df.loc[3, "score"] = np.inf
    err = _error(df, "A", "B")
    assert "finite score" in str(err)
    assert list(err.failure_cases["index"]) == [3]


def test_unknown_model_lists_available() -> None:
    err = _error(small(), "A", "C")
    assert "models present" in str(err)
    assert "['A', 'B']" in str(err)


def test_a_equals_b() -> None:
    with pytest.raises(ValueError, match="two different models"):
        small().paired.compare("A", "A", higher_is_better=True)


def test_empty_table_and_single_case() -> None:
    empty = small().iloc[0:0]
    with pytest.raises(PairingError, match="models present"):
        empty.paired.compare("A", "B", higher_is_better=True)
    one = small()
    one = one[one["case_id"] == 0]
    err = _error(one, "A", "B")
    assert err.rule == "at least two paired cases"


def test_missing_columns() -> None:
    err = _error(small().drop(columns="score"), "A", "B")
    assert err.rule == "required columns"
    assert "'score'" in str(err)
    with pytest.raises(PairingError, match=r"\['doc'\] not found"):
        small().paired(group="doc").compare("A", "B", higher_is_better=True)


def test_missing_case_id_or_model_label() -> None:
    df = small()
    df.loc[0, "case_id"] = np.nan
    err = _error(df, "A", "B")
    assert "rule `no missing case_id` is violated by 1 row(s); first row labels: [0]" in str(err)
    assert "case_id" in err.failure_cases["column"].tolist()
    df = small().astype({"model": object})
    df.loc[0, "model"] = None
    err = _error(df, "A", "B")
    assert "model" in err.failure_cases["column"].tolist()


@pytest.mark.parametrize("column", ["group", "stratum"])
def test_design_column_not_constant_within_case(column: str) -> None:
    df = long_table(np.arange(6.0), np.zeros(6), **{column: np.array([0, 0, 1, 1, 2, 2])})
    df.loc[(df["model"] == "B") & (df["case_id"].isin([1, 4])), column] = 9
    err = _error(df, "A", "B")
    assert f"`{column}` constant within a case" in str(err)
    assert "2 case(s)" in str(err)
    assert sorted(err.failure_cases["index"]) == [1, 4]


def test_missing_group_value() -> None:
    df = long_table(np.arange(6.0), np.zeros(6), group=np.array([0, 0, 1, 1, 2, 2.0]))
    df.loc[df["case_id"] == 3, "group"] = np.nan
    err = _error(df, "A", "B")
    assert "`group` not missing" in str(err)
    assert set(err.failure_cases["index"]) == {3}


def test_violations_of_one_stage_reported_together() -> None:
    df = long_table(np.arange(4.0), np.zeros(4), group=np.array([0, 0, 1, 1]))
    df = pd.concat([df, df.iloc[[0]]], ignore_index=True)  # duplicate of case 0 for A
    df.loc[(df["model"] == "B") & (df["case_id"] == 3), "group"] = 7  # group varies in case 3
    err = _error(df, "A", "B")
    assert "unique (case, model)" in str(err)
    assert "`group` constant within a case" in str(err)
    assert set(err.failure_cases["check"]) == {
        "unique (case, model)",
        "`group` constant within a case",
    }


def test_missing_policy_argument_checked() -> None:
    with pytest.raises(ValueError, match="`missing` must be one of"):
        small().paired.compare("A", "B", higher_is_better=True, missing="drop")


def test_higher_is_better_required() -> None:
    with pytest.raises(ValueError, match="`higher_is_better` is required"):
        small().paired.compare("A", "B")
    with pytest.raises(TypeError, match="True or False"):
        small().paired.compare("A", "B", higher_is_better="yes")


# ---------------------------------------------------------------- missing policies
def test_complete_case_drops_and_records() -> None:
    df = small().drop(index=[6])  # B missing on case 2
    df.loc[1, "score"] = np.nan  # A NaN on case 1
    cmp = df.paired.compare("A", "B", higher_is_better=True, missing="complete-case")
    assert list(cmp.pairs.index) == [0, 3]
    m = cmp.missing
    assert (m.policy, m.n_missing_a, m.n_missing_b, m.n_dropped, m.n_filled) == (
        "complete-case",
        1,
        1,
        2,
        0,
    )
    res = cmp.bootstrap(n_resamples=20, rng=0)
    assert res.missing == m
    assert res.to_dict()["missing"]["n_dropped"] == 2
    assert "estimand" in str(res)


@pytest.mark.parametrize(("hib", "fill"), [(True, 0.0), (False, 1.0)])
def test_as_failure_binary_default_fill_is_worse_value(hib: bool, fill: float) -> None:
    df = long_table(np.array([1, 0, 1, 1]), np.array([1, 1, 0, 0]))
    df = df.drop(index=[0, 7])  # A's case 0 and B's case 3
    cmp = df.paired.compare("A", "B", higher_is_better=hib, missing="as-failure")
    pairs = cmp.pairs
    assert pairs.loc[0, "A"] == fill
    assert pairs.loc[3, "B"] == fill
    assert (cmp.missing.n_filled, cmp.missing.fill_value) == (2, fill)


def test_as_failure_continuous_needs_fill_value() -> None:
    df = small().drop(index=[0])
    with pytest.raises(ValueError, match="`fill_value` is required"):
        df.paired.compare("A", "B", higher_is_better=True, missing="as-failure")
    cmp = df.paired.compare("A", "B", higher_is_better=True, missing="as-failure", fill_value=-1)
    assert cmp.pairs.loc[0, "A"] == -1.0
    assert cmp.missing.n_missing_a == 1


def test_as_failure_applies_to_both_models_identically() -> None:
    df = small().drop(index=[0, 5])  # A missing case 0, B missing case 1
    cmp = df.paired.compare("A", "B", higher_is_better=True, missing="as-failure", fill_value=0.0)
    assert cmp.pairs.loc[0, "A"] == 0.0
    assert cmp.pairs.loc[1, "B"] == 0.0


def test_row_order_irrelevant(clustered: pd.DataFrame) -> None:
    shuffled = clustered.sample(frac=1.0, random_state=11).reset_index(drop=True)
    r1 = clustered.paired.bootstrap("A", "B", higher_is_better=True, rng=5, n_resamples=300)
    r2 = shuffled.paired.bootstrap("A", "B", higher_is_better=True, rng=5, n_resamples=300)
    np.testing.assert_array_equal(r1.bootstrap_distribution, r2.bootstrap_distribution)
    assert r1.confidence_interval == r2.confidence_interval
    assert r1.improvement == pytest.approx(r2.improvement, rel=0, abs=1e-15)


def test_string_case_ids_and_categorical_models() -> None:
    df = small()
    df["case_id"] = "c" + df["case_id"].astype(str)
    df["model"] = df["model"].astype("category")
    cmp = df.paired.compare("A", "B", higher_is_better=True)
    assert list(cmp.pairs.index) == ["c0", "c1", "c2", "c3"]


def test_model_name_clashing_with_design_column() -> None:
    df = long_table(np.arange(4.0), np.zeros(4), names=("group", "B"), group=np.array([0, 0, 1, 1]))
    with pytest.raises(ValueError, match="clash"):
        df.paired.compare("group", "B", higher_is_better=True)


def test_groups_must_nest_in_strata() -> None:
    df = long_table(
        np.arange(6.0), np.zeros(6), group=np.array([0, 0, 1, 1, 2, 2]),
        stratum=np.array(["x", "y", "x", "x", "y", "y"]),
    )  # fmt: skip
    with pytest.raises(PairingError, match="groups nested in strata"):
        df.paired.bootstrap("A", "B", higher_is_better=True, rng=0, n_resamples=10)


def test_corpus_metric_needs_prediction_mode() -> None:
    with pytest.raises(ValueError, match=r"needs prediction mode: configure the target"):
        small().paired.compare("A", "B", metric="auroc")
