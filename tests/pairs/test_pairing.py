"""Pairing layer: every pairing invariant (docs/pairing.md), and each bad input it refuses."""

from __future__ import annotations

import copy
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pdpaired
from pdpaired import PairingError
from pdpaired.cli.main import main

from ..conftest import long_table


def small() -> pd.DataFrame:
    return long_table(np.array([1.0, 0.5, 0.7, 0.2]), np.array([0.8, 0.5, 0.1, 0.4]))


# ---------------------------------------------------------------- bad input
def _error(df: pd.DataFrame, *args: object, **kw: object) -> PairingError:
    kw.setdefault("higher_is_better", True)
    with pytest.raises(PairingError) as info:
        df.paired.compare(*args, **kw)
    return info.value


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


def long_table_integer_codes(n: int = 400, seed: int = 0, *, binary: bool = False) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    ids = np.arange(n)
    if binary:
        a, b = rng.integers(0, 2, n).astype(float), rng.integers(0, 2, n).astype(float)
    else:
        base = rng.normal(size=n)
        a, b = base + rng.normal(0.1, 1, n), base + rng.normal(0, 1, n)
    return pd.DataFrame({
        "case_id": np.concatenate([ids, ids]),
        "model": np.repeat(["A", "B"], n),
        "score": np.concatenate([a, b]),
        "group": np.tile(ids // 10, 2),
        "stratum": np.tile((ids // 10) % 4, 2),
    })  # fmt: skip


def with_ids(df: pd.DataFrame, kind: str) -> pd.DataFrame:
    """The same table with the id column in another dtype, in the same sort order."""
    out = df.copy()
    text = "case-" + out["case_id"].astype(str).str.zfill(6)  # zero-padded: same order
    if kind == "int":
        return out
    if kind == "object":
        out["case_id"] = pd.Series(text.to_numpy(dtype=object), dtype=object)
    elif kind == "string":
        out["case_id"] = text.astype("string")
    elif kind == "pyarrow":
        pytest.importorskip("pyarrow")
        out["case_id"] = text.astype("string[pyarrow]")
    elif kind == "category":
        out["case_id"] = pd.Categorical(text, categories=sorted(text.unique()))
    elif kind == "category-reversed":  # pandas sorts a categorical by its categories
        out["case_id"] = pd.Categorical(text, categories=sorted(text.unique())[::-1])
    elif kind == "category-unused":  # extra categories no row uses, shuffled
        cats = np.random.default_rng(0).permutation([*text.unique(), "case-zzz", "case-!!!"])
        out["case_id"] = pd.Categorical(text, categories=cats)
    elif kind == "Int64":
        out["case_id"] = out["case_id"].astype("Int64")
    elif kind == "int-pyarrow":
        pytest.importorskip("pyarrow")
        out["case_id"] = out["case_id"].astype("int64[pyarrow]")
    elif kind == "uint32":
        out["case_id"] = out["case_id"].astype(np.uint32)
    elif kind == "int-category-reversed":
        ids = out["case_id"]
        out["case_id"] = pd.Categorical(ids, categories=sorted(ids.unique())[::-1])
    return out


def with_design_categories(df: pd.DataFrame, reverse: bool) -> pd.DataFrame:
    """Group and stratum as categoricals, their categories sorted or reversed."""
    out = df.copy()
    for col in ("group", "stratum"):
        cats = sorted(out[col].unique())
        out[col] = pd.Categorical(out[col], categories=cats[::-1] if reverse else cats)
    return out


DESIGNS = [
    {"unit": "case"},
    {"unit": "group"},
    {"unit": "group", "stratified": True},
    {"unit": "case", "stratified": True},
]


def numbers(res: pdpaired.BootstrapResult) -> tuple[object, ...]:
    return (
        res.metric_a, res.metric_b, res.improvement, res.confidence_interval,
        res.bootstrap_distribution.tobytes(),
    )  # fmt: skip


def assert_same_bootstraps(got: pd.DataFrame, ref: pd.DataFrame, *, rng: int) -> None:
    """Every design's bootstrap of ``got`` equals ``ref``'s, number for number."""
    for design in DESIGNS:
        kw = {"higher_is_better": True, "rng": rng, "n_resamples": 400, **design}
        assert numbers(got.paired.bootstrap("A", "B", **kw)) == numbers(
            ref.paired.bootstrap("A", "B", **kw)
        ), design


class TestIntegerCodes:
    """Pairing on integer codes: results never depend on row order or on the id dtype.

    Pairing factorizes the case ids once and sorts the cases only when an
    analysis needs their order (resampling cases, the pairs shown to users, a
    report); a cluster design sums exact integers per group and never sorts.
    These tests pin what that must not change: every number, under shuffled
    rows, every dtype of the id column and every missing-outcome policy.
    """

    @pytest.mark.parametrize("design", DESIGNS, ids=lambda d: "-".join(map(str, d.values())))
    def test_shuffled_rows_give_identical_numbers(self, design: dict[str, object]) -> None:
        df = long_table_integer_codes()
        shuffled = df.sample(frac=1, random_state=3).reset_index(drop=True)
        kw = {"higher_is_better": True, "rng": 5, "n_resamples": 500, **design}
        ref = df.paired.bootstrap("A", "B", **kw)
        got = shuffled.paired.bootstrap("A", "B", **kw)
        assert numbers(got) == numbers(ref)
        ref_r = df.paired.randomization("A", "B", higher_is_better=True, rng=5, n_permutations=300,
                                        unit=design["unit"])  # fmt: skip
        got_r = shuffled.paired.randomization("A", "B", higher_is_better=True, rng=5,
                                              n_permutations=300, unit=design["unit"])  # fmt: skip
        assert got_r.pvalue == ref_r.pvalue
        assert got_r.null_distribution.tobytes() == ref_r.null_distribution.tobytes()

    @pytest.mark.parametrize(
        "kind",
        ["object", "string", "pyarrow", "category", "category-reversed", "category-unused",
         "Int64", "int-pyarrow", "uint32", "int-category-reversed"],
    )  # fmt: skip
    def test_the_id_dtype_changes_no_number(self, kind: str) -> None:
        df = long_table_integer_codes(seed=1)
        other = with_ids(df, kind).sample(frac=1, random_state=7)
        assert_same_bootstraps(other, df, rng=2)
        pairs = other.paired.compare("A", "B", higher_is_better=True).pairs
        assert pairs.index.is_monotonic_increasing
        np.testing.assert_array_equal(
            pairs["A"].to_numpy(), df.paired.compare("A", "B", higher_is_better=True).pairs["A"]
        )

    @pytest.mark.parametrize("reverse", [False, True])
    def test_the_category_order_of_groups_and_strata_changes_no_number(self, reverse: bool) -> None:
        df = long_table_integer_codes(seed=4)
        other = with_design_categories(df, reverse).sample(frac=1, random_state=2)
        assert_same_bootstraps(other, df, rng=3)
        for design in DESIGNS:
            kw_r = {"higher_is_better": True, "rng": 3, "n_permutations": 300,
                    "unit": design["unit"]}  # fmt: skip
            got = other.paired.randomization("A", "B", **kw_r)
            ref = df.paired.randomization("A", "B", **kw_r)
            assert got.null_distribution.tobytes() == ref.null_distribution.tobytes(), design

    @pytest.mark.parametrize("missing", ["complete-case", "as-failure"])
    def test_policies_under_shuffled_rows(self, missing: str) -> None:
        df = long_table_integer_codes(binary=True, seed=2)
        drop = df.index[(df["model"] == "B") & (df["case_id"] % 9 == 0)]
        df = df.drop(index=drop)
        df.loc[(df["model"] == "A") & (df["case_id"] % 13 == 0), "score"] = np.nan
        shuffled = df.sample(frac=1, random_state=11)
        kw = {"higher_is_better": True, "missing": missing, "rng": 0, "n_resamples": 300}
        for design in DESIGNS:
            ref = df.paired.bootstrap("A", "B", **kw, **design)
            got = shuffled.paired.bootstrap("A", "B", **kw, **design)
            assert numbers(got) == numbers(ref), design
            assert got.missing == ref.missing

    def test_cluster_design_does_not_sort_the_cases(self) -> None:
        # order-free reductions read the table as pairing left it: the cluster bootstrap
        # never builds the sorted frame, and still equals the sorted path bit for bit
        df = with_ids(long_table_integer_codes(), "object").sample(frac=1, random_state=1)
        cmp = df.paired.compare("A", "B", higher_is_better=True)
        data = cmp._pairs.data
        res = cmp.bootstrap(unit="group", rng=0, n_resamples=300)
        assert "frame" not in vars(data)  # the cached sort was never computed
        assert not data.table.index.is_monotonic_increasing
        _ = cmp.pairs  # now it is
        assert "frame" in vars(data)
        ref = long_table_integer_codes().paired.bootstrap(
            "A", "B", higher_is_better=True, unit="group", rng=0, n_resamples=300
        )
        assert numbers(res) == numbers(ref)

    @pytest.mark.parametrize("ids", ["dense", "gaps", "negative", "uint8", "sparse"])
    def test_integer_ids_without_hashing_equal_the_hashed_path(self, ids: str) -> None:
        # integer ids in a narrow range are ranked through a presence table (already sorted);
        # wide ranges go through factorize: the same pairs and numbers either way
        df = long_table_integer_codes(n=300, seed=4)
        case = df["case_id"].to_numpy()
        df["case_id"] = {
            "dense": case, "gaps": case * 3 + 7, "negative": case - 150,
            "uint8": (case % 250).astype(np.uint8), "sparse": case * 10**12,
        }[ids]  # fmt: skip
        if ids == "uint8":  # 250 distinct ids: keep one row per (case, model)
            df = df.drop_duplicates(["case_id", "model"])
        shuffled = df.sample(frac=1, random_state=2)
        low = int(df["case_id"].min())
        as_text = shuffled.assign(
            case_id=(shuffled["case_id"].astype(np.int64) - low).map("{:020d}".format)
        )
        kw = {"higher_is_better": True, "rng": 3, "n_resamples": 300, "unit": "case"}
        got = shuffled.paired.bootstrap("A", "B", **kw)
        cmp = shuffled.paired.compare("A", "B", higher_is_better=True)
        assert cmp.pairs.index.is_monotonic_increasing
        assert cmp.pairs.index.dtype == df["case_id"].dtype
        # zero-padded text of id - min sorts like the integers: the hashed path, same order
        assert numbers(got) == numbers(as_text.paired.bootstrap("A", "B", **kw))

    def test_mixed_type_ids_are_refused_at_compare_and_tuples_work(self) -> None:
        df = long_table_integer_codes(n=6)
        mixed = df.astype({"case_id": object})
        mixed.loc[mixed["case_id"] == 3, "case_id"] = "3"
        with pytest.raises(PairingError, match="sortable case ids"):
            mixed.paired.compare("A", "B", higher_is_better=True)
        tuples = df.copy()
        tuples["case_id"] = [(int(i) % 2, int(i)) for i in df["case_id"]]
        pairs = tuples.paired.compare("A", "B", higher_is_better=True).pairs
        assert list(pairs.index) == sorted(pairs.index)

    def test_rows_of_other_models_are_ignored_without_copying_the_rest(self) -> None:
        df = long_table_integer_codes(n=200)
        extra = df[df["model"] == "A"].assign(model="C", score=9.0)
        both = pd.concat([extra, df]).sample(frac=1, random_state=0)
        kw = {"higher_is_better": True, "rng": 1, "n_resamples": 200}
        assert numbers(both.paired.bootstrap("A", "B", **kw)) == numbers(
            df.paired.bootstrap("A", "B", **kw)
        )


FUZZ = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.function_scoped_fixture,
        HealthCheck.data_too_large,
    ],
)


#: The documented error classes (PairingError is a ValueError).
DOCUMENTED = (pdpaired.PairingError, ValueError, TypeError)


OURS = (pdpaired.DegenerateDataWarning, pdpaired.IndependenceWarning)


odd_values = st.sampled_from(
    [
        None, pd.NA, np.nan, float("inf"), -float("inf"), 2**70, -(2**70), 2**63, "1", 1, 1.0,
        True, "", "x", "A", "B", (1, 2), pd.Timestamp("2024-01-01"), b"bytes", -0.0, "NaN",
    ]
)  # fmt: skip


@st.composite
def long_tables(
    draw: st.DrawFn, *, prediction: bool = False
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """A long table (score or prediction mode) with some odd corruptions, and its names."""
    n = draw(st.integers(0, 14))
    id_kind = draw(st.sampled_from(["int", "str", "huge", "mixed", "float"]))
    ids: list[Any] = {
        "int": list(range(n)),
        "str": [f"c{i}" for i in range(n)],
        "huge": [2**70 + i for i in range(n)],
        "mixed": [i if i % 2 else str(i) for i in range(n)],
        "float": [i + 0.5 for i in range(n)],
    }[id_kind]
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    rows = []
    for model in ("A", "B"):
        for i, case in enumerate(ids):
            row = {"case_id": case, "model": model, "group": i // 3, "stratum": i // 6,
                   "site": ["n", "s", "e"][i % 3]}  # fmt: skip
            if prediction:
                row["target"] = int(i % 2)
                row["prediction"] = float(rng.uniform())
            else:
                row["score"] = float(rng.integers(0, 2) if id_kind == "int" else rng.normal())
            rows.append(row)
    frame = pd.DataFrame(rows)
    if frame.empty:
        frame = pd.DataFrame(columns=["case_id", "model", "group", "stratum", "site", "score"])
    columns = list(frame.columns)
    for _ in range(draw(st.integers(0, 3)) if len(frame) else 0):  # single odd values
        column = draw(st.sampled_from(columns))
        row = draw(st.integers(0, len(frame) - 1))
        value = draw(odd_values)
        frame[column] = frame[column].astype(object)
        frame.iat[row, columns.index(column)] = value
    for column in draw(st.lists(st.sampled_from(columns), max_size=2, unique=True)):
        cast = draw(st.sampled_from(["category", "string", "Int64", "object", "float"]))
        try:
            if cast == "category":  # with an unused category
                col = frame[column].astype("category")
                frame[column] = col.cat.add_categories(["__unused__"])
            else:
                frame[column] = frame[column].astype(cast)
        except (TypeError, ValueError, OverflowError):
            pass  # a cast that does not apply to these values: the column stays
    if draw(st.booleans()):
        frame = frame.sample(frac=1.0, random_state=0)
    if draw(st.integers(0, 5)) == 5:  # a duplicated column name
        dup = draw(st.sampled_from(columns))
        frame[dup + "_copy"] = frame[dup]
        frame.columns = [*frame.columns[:-1], dup]
    names: dict[str, Any] = {"case": "case_id", "model": "model"}
    if prediction:
        names.update(target="target", prediction="prediction")
    else:
        names["score"] = "score"
    if draw(st.booleans()):
        names["group"] = "group"
    if draw(st.booleans()):
        names["stratum"] = "stratum"
    return frame, names


def snapshot(frame: pd.DataFrame) -> tuple[pd.DataFrame, list[Any], list[Any], dict[Any, Any]]:
    return copy.deepcopy(frame), list(frame.columns), list(frame.dtypes), dict(frame.attrs)


def assert_unchanged(frame: pd.DataFrame, snap: tuple[Any, ...]) -> None:
    before, columns, dtypes, attrs = snap
    assert list(frame.columns) == columns
    assert list(frame.dtypes) == dtypes
    assert frame.attrs == attrs
    pd.testing.assert_frame_equal(frame, before, check_exact=True)


def run_pairing(frame: pd.DataFrame, names: dict[str, Any], analysis: str, **kw: Any) -> None:
    """One analysis; only a result, a documented error or pdpaired's own warnings."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            cmp = frame.paired(**names).compare("A", "B", **kw)
            if analysis == "bootstrap":
                res = cmp.bootstrap(n_resamples=30, rng=0)
                assert res.n_cases >= 2
            elif analysis == "randomization":
                res = cmp.randomization(n_permutations=30, rng=0)
                assert 0.0 < res.pvalue <= 1.0
            else:
                cmp.by_slice("site", min_size=1)
        except DOCUMENTED as err:
            assert str(err)  # a message, never empty
    others = [w for w in caught if not issubclass(w.category, OURS)]
    assert not others, [f"{w.category.__name__}: {w.message}" for w in others]


# --------------------------------------------------------------------------- the CLI's CSV reader
def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    assert code in (0, 2), (code, err)
    if code == 2:
        assert out == ""
        assert err.count("\n") == 1, err
        assert err.startswith("error: ")
        assert "Traceback" not in err
    return code, out, err


FAST_CLI = ["--resamples", "20", "--permutations", "20", "--seed", "0"]


@st.composite
def csv_texts(draw: st.DrawFn) -> bytes:
    """A long table written as CSV, then (sometimes) a few bytes edited."""
    frame, _ = draw(long_tables())
    raw = bytearray(frame.to_csv(index=False).encode("utf-8"))
    for _ in range(draw(st.integers(0, 3)) if raw else 0):
        i = draw(st.integers(0, len(raw) - 1))
        op = draw(st.sampled_from(["set", "insert", "delete"]))
        byte = draw(st.sampled_from([0x2C, 0x22, 0x0A, 0x0D, 0x00, 0xFF, 0x41, 0x30, 0x2E]))
        if op == "set":
            raw[i] = byte
        elif op == "insert":
            raw.insert(i, byte)
        else:
            del raw[i]
    return bytes(raw)


class TestOddTables:
    """Odd tables through the pairing layer and the command line's CSV reader (hypothesis).

    A clean long table is drawn, then corrupted the ways real data are: ids of
    mixed types (``1`` and ``"1"``, tuples, timestamps, booleans), integers
    beyond 64 bits, ``NaN``/``pd.NA``/``None`` in any column, duplicate column
    names, empty frames, categorical columns with unused categories, nullable
    and string dtypes, shuffled rows. Every outcome must be a result or one of
    the documented errors (``PairingError``, ``ValueError``, ``TypeError``),
    pdpaired's own warnings only, and the caller's frame unchanged. The same
    tables, written to CSV (and then byte-edited), go through ``pdpaired
    compare``: exit 0, or exit 2 with one line on stderr.

    Hypothesis runs derandomized without an example database, so CI sees the
    same examples on every run.
    """

    @FUZZ
    @given(
        long_tables(),
        st.sampled_from(["bootstrap", "randomization", "slices"]),
        st.sampled_from(["error", "complete-case", "as-failure"]),
    )
    def test_score_mode_tables(self, table: tuple[pd.DataFrame, dict[str, Any]], analysis: str,
                               missing: str) -> None:  # fmt: skip
        frame, names = table
        snap = snapshot(frame)
        kw: dict[str, Any] = {"higher_is_better": True, "missing": missing}
        if missing == "as-failure":
            kw["fill_value"] = 0.0
        run_pairing(frame, names, analysis, **kw)
        assert_unchanged(frame, snap)

    @FUZZ
    @given(long_tables(prediction=True), st.sampled_from(["auroc", "rmse", "accuracy", "log_loss"]))
    def test_prediction_mode_tables(
        self, table: tuple[pd.DataFrame, dict[str, Any]], metric: str
    ) -> None:
        frame, names = table
        snap = snapshot(frame)
        run_pairing(frame, names, "bootstrap", metric=metric)
        assert_unchanged(frame, snap)

    @pytest.mark.parametrize(
        "column",
        ["case_id", "model", "score", "group"],
    )
    def test_a_duplicated_configured_column_is_a_pairing_error(self, column: str) -> None:
        """pandas allows two columns with one label; the error names the rule and the column."""
        frame = pd.DataFrame({"case_id": [1, 2, 1, 2], "model": list("AABB"),
                              "score": [0.1, 0.2, 0.3, 0.5], "group": [1, 1, 1, 1]})  # fmt: skip
        frame.insert(0, "dup", frame[column])
        frame = frame.rename(columns={"dup": column})
        snap = snapshot(frame)
        with pytest.raises(pdpaired.PairingError, match="unique column names") as info:
            frame.paired(group="group").bootstrap("A", "B", higher_is_better=True, n_resamples=10)
        assert info.value.rule == "unique column names"
        assert repr(column) in str(info.value)
        assert_unchanged(frame, snap)

    def test_a_duplicated_unused_column_is_harmless(self) -> None:
        frame = pd.DataFrame({"case_id": [1, 2, 3, 1, 2, 3], "model": list("AAABBB"),
                              "score": [0.1, 0.2, 0.7, 0.3, 0.5, 0.4], "x": 0, "y": 1})  # fmt: skip
        frame.columns = ["case_id", "model", "score", "meta", "meta"]
        res = frame.paired.bootstrap("A", "B", higher_is_better=True, n_resamples=50, rng=0)
        assert res.improvement == pytest.approx(np.mean([0.1 - 0.3, 0.2 - 0.5, 0.7 - 0.4]))

    def test_a_duplicated_slice_column_is_a_pairing_error(self) -> None:
        frame = pd.DataFrame({"case_id": [1, 2, 3, 1, 2, 3], "model": list("AAABBB"),
                              "score": [0.1, 0.2, 0.7, 0.3, 0.5, 0.4], "x": 0, "y": 1})  # fmt: skip
        frame.columns = ["case_id", "model", "score", "site", "site"]
        cmp = frame.paired.compare("A", "B", higher_is_better=True)
        with pytest.raises(pdpaired.PairingError, match="unique column names"):
            cmp.by_slice("site", min_size=1)

    @FUZZ
    @given(csv_texts(), st.booleans())
    def test_cli_long_csv(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str], text: bytes, slices: bool
    ) -> None:
        path = tmp_path / "long.csv"
        path.write_bytes(text)
        args = ["compare", str(path), "--long", "--a", "A", "--b", "B", "--score", "score",
                "--higher-is-better", "--min-slice-size", "1", *FAST_CLI]  # fmt: skip
        if slices:
            args += ["--slice-columns", "site"]
        _cli(args, capsys)

    @FUZZ
    @given(long_tables(prediction=True), st.sampled_from(["rmse", "auroc"]))
    def test_cli_two_prediction_files(
        self,
        tmp_path: Path,
        capsys: pytest.CaptureFixture[str],
        table: tuple[pd.DataFrame, dict[str, Any]],
        metric: str,
    ) -> None:
        frame, _ = table
        paths = []
        for model in ("A", "B"):
            part = frame.loc[frame["model"] == model] if frame.columns.is_unique else frame
            path = tmp_path / f"{model}.csv"
            part.drop(columns=["model"], errors="ignore").to_csv(path, index=False)
            paths.append(str(path))
        args = ["compare", *paths, "--id-column", "case_id", "--target", "target",
                "--prediction-column", "prediction", "--metric", metric, *FAST_CLI]  # fmt: skip
        _cli(args, capsys)

    @pytest.mark.parametrize(
        "content",
        [b"", b"\n\n", b"\xff\xfe\x00\x00", b"case_id,model,score\n", b'"unclosed\n1,2',
         b"case_id,model,score\n1,A,0.5\n1,B\n", b"a,a,a\n1,2,3\n"],
    )  # fmt: skip
    def test_cli_odd_csv_files(self, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                               content: bytes) -> None:  # fmt: skip
        path = tmp_path / "odd.csv"
        path.write_bytes(content)
        code, _, _ = _cli(["compare", str(path), "--long", "--a", "A", "--b", "B", "--score",
                           "score", "--higher-is-better", *FAST_CLI], capsys)  # fmt: skip
        assert code == 2
