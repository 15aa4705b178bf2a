"""Mutants of ``pdpaired.pairs.rules`` that other tests miss, each pinned by its value.

* The per-case summary against a pandas groupby written out here (rows of A
  and B per case, rows with present outputs, non-numeric and infinite
  outputs, missing and varying agreed columns), with the dtypes of the
  module's table (counts int32, ``varies`` bool), whether a count arrives
  as an array or as a broadcast scalar; int32 counts are not copied.
* A passing summary's failure table has pandera's columns, object dtype.
* Ids: exactly ten are shown without "more"; mixed types sort by their text.
* The layout of a comparison keeps its target (the target must be present
  and agree between A and B) and its mode (a non-numeric prediction is named
  as such).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

from pdpaired import PairingError
from pdpaired.pairs.columns import Columns
from pdpaired.pairs.pandas.pairing import summarize
from pdpaired.pairs.rules import (
    FAILURE_COLUMNS,
    SummaryLayout,
    case_summary,
    failure_table,
    ids_text,
    pairing_schemas,
    sorted_ids,
)

# the module docstring's table: counts are int32, "varies" is bool
I32, BOOL = np.dtype(np.int32), np.dtype(np.bool_)


def test_layout_columns_follow_the_documented_table() -> None:
    layout = SummaryLayout(outputs=("p", "q"), target="y", design=("g",), slices=("s",))
    assert layout.columns() == {
        "rows_a": np.int32, "rows_b": np.int32, "outputs_a": np.int32, "outputs_b": np.int32,
        "non_numeric p": np.int32, "infinite p": np.int32,
        "non_numeric q": np.int32, "infinite q": np.int32,
        "null y": np.int32, "null g": np.int32,
        "varies y": np.bool_, "varies g": np.bool_, "varies s": np.bool_,
    }  # fmt: skip


def rows_table() -> pd.DataFrame:
    """Cases 10..15 with one kind of fault each (case 10 is clean)."""
    rec = [
        # case, model, score, group, stratum
        (10, "A", 0.5, 1, "s"), (10, "B", 0.25, 1, "s"),
        (11, "A", 1.0, 2, "s"), (11, "A", 2.0, 2, "s"), (11, "B", 3.0, 2, "s"),  # 2 rows of A
        (12, "B", np.nan, 3, "s"), (12, "B", "x", 3, "s"), (12, "B", 4.0, 3, "t"),  # no A
        (13, "A", np.inf, 4, "s"), (13, "B", -np.inf, 5, "s"),  # infinite; group varies
        (14, "A", "y", np.nan, "s"), (14, "B", 1.0, np.nan, "s"),  # group missing, not varying
        (15, "B", 2.0, 6, "u"), (15, "A", np.nan, np.nan, "u"),  # group varies (NaN is a value)
    ]  # fmt: skip
    df = pd.DataFrame(rec, columns=["case_id", "model", "score", "group", "stratum"])
    return df.astype({"score": object})


def groupby_oracle(df: pd.DataFrame) -> pd.DataFrame:
    is_a = df["model"] == "A"
    s = df["score"]
    present = s.map(lambda v: not (v is None or (isinstance(v, float) and np.isnan(v))))
    non_numeric = s.map(lambda v: isinstance(v, str))
    infinite = s.map(lambda v: isinstance(v, float) and bool(np.isinf(v)))
    by = df["case_id"]
    frame = pd.DataFrame({
        "rows_a": is_a, "rows_b": ~is_a, "outputs_a": is_a & present, "outputs_b": ~is_a & present,
        "non_numeric score": non_numeric, "infinite score": infinite,
        "null group": df["group"].isna(), "null stratum": df["stratum"].isna(),
    })  # fmt: skip
    out = frame.groupby(by, sort=False).sum()
    for c in ("group", "stratum"):
        out[f"varies {c}"] = df.groupby(by, sort=False)[c].nunique(dropna=False) > 1
    return out


def test_summary_matches_a_groupby_written_out() -> None:
    df = rows_table()
    cols = Columns(group="group", stratum="stratum")
    layout = SummaryLayout.of(cols)
    got, _, _ = summarize(df, cols, (df["model"] == "A").to_numpy(), layout)
    want = groupby_oracle(df)
    assert list(got.index) == [10, 11, 12, 13, 14, 15]  # order of first appearance
    assert list(got.columns) == list(layout.columns())
    for c in got.columns:
        np.testing.assert_array_equal(got[c].to_numpy(), want[c].to_numpy(), err_msg=c)
    assert dict(got.dtypes) == {c: (BOOL if c.startswith("varies") else I32) for c in got.columns}


def test_a_rule_nobody_breaks_is_broadcast_in_the_summary_dtypes() -> None:
    # no non-numeric, infinite or missing value: those counts arrive as scalars
    df = pd.DataFrame({"case_id": [1, 1, 2, 2], "model": ["A", "B", "B", "A"],
                       "score": [0.0, 1.0, 2.0, 3.0], "group": [7, 7, 8, 8]})  # fmt: skip
    cols = Columns(group="group")
    got, _, _ = summarize(df, cols, (df["model"] == "A").to_numpy(), SummaryLayout.of(cols))
    for c in ("non_numeric score", "infinite score", "null group"):
        assert got[c].dtype == I32, c
        assert got[c].tolist() == [0, 0]
    assert got["varies group"].dtype == BOOL
    assert got["rows_a"].tolist() == [1, 1]


def test_case_summary_casts_arrays_and_scalars_to_the_layout() -> None:
    layout = SummaryLayout(outputs=("v",), design=("g",))
    index = pd.Index(["a", "b", "c"], name="case")
    counts: dict[str, Any] = dict.fromkeys(layout.columns(), 0)
    counts["rows_a"] = np.array([1, 2, 1], dtype=np.int64)  # an int64 array: cast to int32
    counts["varies g"] = np.array([0, 1, 0])  # ints: cast to bool
    counts["infinite v"] = 3  # a scalar: broadcast
    got = case_summary(layout, index, counts)
    assert list(got.columns) == list(layout.columns())
    assert dict(got.dtypes) == {c: (BOOL if c.startswith("varies") else I32) for c in got.columns}
    assert got.index.equals(index)
    assert got["rows_a"].tolist() == [1, 2, 1]
    assert got["infinite v"].tolist() == [3, 3, 3]
    assert got["outputs_b"].tolist() == [0, 0, 0]
    assert got["varies g"].tolist() == [False, True, False]


def test_case_summary_does_not_copy_counts_already_in_its_dtype() -> None:
    # "one block per column: no copy" (int32 counts: half the memory at 1e7 cases)
    layout = SummaryLayout(outputs=("v",))
    counts = {c: np.arange(4, dtype=np.int32) for c in layout.columns()}
    got = case_summary(layout, pd.RangeIndex(4), counts)
    for c, arr in counts.items():
        assert np.shares_memory(got[c].to_numpy(), arr), c


def test_a_passing_summary_has_an_empty_failure_table_of_pandera_columns() -> None:
    layout = SummaryLayout(outputs=("v",))
    counts = {c: (1 if c.startswith(("rows", "outputs")) else 0) for c in layout.columns()}
    summary = case_summary(layout, pd.Index([1, 2]), counts)  # one row per model, all valid
    for schema in pairing_schemas(layout, "A", "B"):
        fc = failure_table(summary, schema)
        assert list(fc.columns) == list(FAILURE_COLUMNS)
        assert len(fc) == 0
        assert all(dt == np.dtype(object) for dt in fc.dtypes)


@pytest.mark.parametrize("n", [9, 10, 11, 13])
def test_ids_text_says_more_only_beyond_ten(n: int) -> None:
    ids = list(range(100, 100 + n))
    shown = ", ".join(str(i) for i in ids[:10])
    tail = f", ... ({n - 10} more)" if n > 10 else ""
    assert ids_text(ids) == f"[{shown}{tail}]"


def test_exactly_ten_offending_cases_are_all_shown_without_more() -> None:
    n = 12
    df = pd.DataFrame({"case_id": np.repeat(np.arange(n), 2), "model": ["A", "B"] * n,
                       "score": np.arange(2.0 * n)})  # fmt: skip
    df = pd.concat([df, df[(df["model"] == "A") & (df["case_id"] >= 2)]])  # cases 2..11 twice
    with pytest.raises(PairingError) as info:
        df.paired.compare("A", "B", higher_is_better=True)
    assert (
        "rule `unique (case, model)` is violated by 10 case(s); "
        "first ids: [2, 3, 4, 5, 6, 7, 8, 9, 10, 11]."
    ) in str(info.value)


def test_ids_of_mixed_types_sort_by_their_text() -> None:
    assert sorted_ids([3, 1, 2]) == [1, 2, 3]
    # str order: "1" < "10" < "3" < "a" < "b"
    assert sorted_ids(["b", 10, 3, "a", 1]) == [1, 10, 3, "a", "b"]


def prediction_table() -> pd.DataFrame:
    n = 12
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, n)
    return pd.DataFrame({"case_id": np.tile(np.arange(n), 2), "model": np.repeat(["A", "B"], n),
                         "y": np.tile(y, 2), "p": rng.uniform(size=2 * n)})  # fmt: skip


def test_target_that_disagrees_is_named_with_count_and_ids() -> None:
    # (prediction mode is pandas only: the Dask accessor refuses target=)
    df = prediction_table()
    flip = (df["model"] == "B") & df["case_id"].isin([9, 2, 5])
    df.loc[flip, "y"] = 1 - df.loc[flip, "y"]
    with pytest.raises(PairingError) as info:
        df.paired(target="y", prediction="p").compare("A", "B", metric="auroc")
    assert info.value.rule == "target `y` agrees between A and B"
    assert (
        "rule `target `y` agrees between A and B` is violated by 3 case(s); first ids: [2, 5, 9]."
    ) in str(info.value)


def test_a_target_missing_is_named() -> None:
    df = prediction_table().astype({"y": "float64"})
    df.loc[df["case_id"].isin([7, 4]), "y"] = np.nan
    with pytest.raises(PairingError) as info:
        df.paired(target="y", prediction="p").compare("A", "B", metric="auroc")
    assert "rule ``y` not missing` is violated by 2 case(s); first ids: [4, 7]." in str(info.value)


def test_a_non_numeric_prediction_is_named_a_prediction() -> None:
    df = prediction_table().astype({"p": object})
    df.loc[(df["model"] == "A") & df["case_id"].isin([8, 1]), "p"] = "high"
    with pytest.raises(PairingError) as info:
        df.paired(target="y", prediction="p").compare("A", "B", metric="auroc")
    assert info.value.rule == "numeric prediction"
    assert "rule `numeric prediction` is violated by 2 case(s); first ids: [1, 8]" in str(
        info.value
    )
