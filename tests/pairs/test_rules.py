"""One set of pairing rules for both backends.

The pandas path and the Dask path reduce rows to the same per-case summary
and check it with the same pandera schemas (``pdpaired.pairs.rules``). Each rule is
violated here by more than ten cases in one table; both backends must raise
a ``PairingError`` with the same rule, the same message (the count and the
ten smallest ids) and the same ``failure_cases`` table holding *every*
offending case, whatever the partitioning and the row order.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import dask
import numpy as np
import pandas as pd
import pytest

import pdpaired
import pdpaired.dask
import pdpaired.pairs.rules
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

from ..conftest import long_table

dd = pytest.importorskip("dask.dataframe")


N = 150


IDS = np.arange(N) * 7 + 3  # non-contiguous ids


@pytest.fixture(autouse=True)
def _sync_scheduler() -> Any:
    with dask.config.set(scheduler="sync"):
        yield


def base(ids: np.ndarray = IDS) -> pd.DataFrame:
    rng = np.random.default_rng(4)
    group = np.arange(N) // 5
    stratum = np.where(group % 2 == 0, "s0", "s1")
    site = np.array(["x", "y", "z"])[rng.integers(0, 3, N)]
    return long_table(rng.normal(size=N), rng.normal(size=N), ids=ids, group=group,
                      stratum=stratum, site=site)  # fmt: skip


def some(k: int, seed: int) -> list[Any]:
    """``k`` case ids (positions drawn at random), as in the table."""
    return list(IDS[np.random.default_rng(seed).choice(N, k, replace=False)])


def rows(df: pd.DataFrame, ids: list[Any], model: str) -> pd.Index:
    return df.index[df["case_id"].isin(ids) & (df["model"] == model)]


def dup(df: pd.DataFrame) -> pd.DataFrame:
    return pd.concat([df, df.loc[rows(df, some(23, 1), "A")]], ignore_index=True)


def drop_a(df: pd.DataFrame) -> pd.DataFrame:
    return df.drop(index=rows(df, some(17, 2), "A"))


def nan_b(df: pd.DataFrame) -> pd.DataFrame:
    df.loc[rows(df, some(12, 3), "B"), "score"] = np.nan
    return df


def both_missing(df: pd.DataFrame) -> pd.DataFrame:
    df.loc[rows(df, some(14, 4), "A"), "score"] = np.nan
    return df.drop(index=rows(df, some(19, 5), "B"))


def infinite(df: pd.DataFrame) -> pd.DataFrame:
    df.loc[rows(df, some(11, 6), "A"), "score"] = np.inf
    df.loc[rows(df, some(9, 7), "B"), "score"] = -np.inf
    return df


def group_varies(df: pd.DataFrame) -> pd.DataFrame:
    df.loc[rows(df, some(21, 8), "B"), "group"] = 999
    return df


def stratum_varies(df: pd.DataFrame) -> pd.DataFrame:
    df.loc[rows(df, some(13, 9), "A"), "stratum"] = "s9"
    return df


def group_missing(df: pd.DataFrame) -> pd.DataFrame:
    df["group"] = df["group"].astype("float64")
    df.loc[df["case_id"].isin(some(16, 10)), "group"] = np.nan
    return df


def dup_and_stratum_varies(df: pd.DataFrame) -> pd.DataFrame:
    return stratum_varies(dup(df))


Mutation = Callable[[pd.DataFrame], pd.DataFrame]


CASES: list[tuple[str, Mutation, dict[str, Any], list[str]]] = [
    ("duplicates", dup, {}, ["unique (case, model)"]),
    ("duplicates, complete-case", dup, {"missing": "complete-case"}, ["unique (case, model)"]),
    ("duplicates, as-failure", dup, {"missing": "as-failure", "fill_value": 0.0},
     ["unique (case, model)"]),
    ("case missing for A", drop_a, {}, ["missing outcome for A (A)"]),
    ("NaN score for B", nan_b, {}, ["missing outcome for B (B)"]),
    ("missing for both", both_missing, {},
     ["missing outcome for A (A)", "missing outcome for B (B)"]),
    ("infinite scores", infinite, {}, ["finite score (NaN marks a missing output)"]),
    ("group varies", group_varies, {}, ["`group` constant within a case"]),
    ("stratum varies", stratum_varies, {}, ["`stratum` constant within a case"]),
    ("group missing", group_missing, {}, ["`group` not missing"]),
    ("two rules of one stage", dup_and_stratum_varies, {},
     ["unique (case, model)", "`stratum` constant within a case"]),
]  # fmt: skip


def pandas_error(df: pd.DataFrame, **kw: Any) -> PairingError:
    with pytest.raises(PairingError) as info:
        df.paired.compare("A", "B", higher_is_better=True, **kw)
    return info.value


def dask_error(df: pd.DataFrame, npartitions: int, **kw: Any) -> PairingError:
    shuffled = df.sample(frac=1.0, random_state=npartitions).reset_index(drop=True)
    ddf = dd.from_pandas(shuffled, npartitions=npartitions)
    with pytest.raises(PairingError) as info:
        ddf.paired.compare("A", "B", higher_is_better=True, **kw)
    return info.value


def assert_same_error(got: PairingError, ref: PairingError) -> None:
    assert got.rule == ref.rule
    assert str(got) == str(ref)
    assert got.failure_cases is not None
    assert ref.failure_cases is not None
    pd.testing.assert_frame_equal(got.failure_cases, ref.failure_cases)


@pytest.mark.parametrize(("mutate", "kw", "rules"), [pytest.param(*c[1:], id=c[0]) for c in CASES])
@pytest.mark.parametrize("npartitions", [1, 3, 7])
def test_each_rule_same_error_and_every_id_on_both_backends(
    mutate: Mutation, kw: dict[str, Any], rules: list[str], npartitions: int
) -> None:
    df = mutate(base())
    ref = pandas_error(df, **kw)
    assert ref.rule == "; ".join(rules)
    fc = ref.failure_cases
    assert fc is not None
    for rule in rules:
        ids = set(fc.loc[fc["check"] == rule, "index"])
        assert len(ids) > 10, rule  # more than the message shows
        assert f"rule `{rule}` is violated by {len(ids)} case(s)" in str(ref)
        assert f"({len(ids) - 10} more)" in str(ref)
    # row order does not matter on pandas either
    assert_same_error(pandas_error(df.sample(frac=1.0, random_state=9), **kw), ref)
    assert_same_error(dask_error(df, npartitions, **kw), ref)


def test_message_names_the_ten_smallest_ids_and_failure_cases_all() -> None:
    df = dup(base())
    bad = sorted(some(23, 1))
    err = dask_error(df, 7)
    shown = ", ".join(map(str, bad[:10]))
    assert (
        "rule `unique (case, model)` is violated by 23 case(s); "
        f"first ids: [{shown}, ... (13 more)]"
    ) in str(err)
    assert err.failure_cases is not None
    assert list(err.failure_cases["index"]) == bad
    assert list(err.failure_cases.columns) == [
        "schema_context", "column", "check", "check_number", "failure_case", "index",
    ]  # fmt: skip


def test_string_ids_same_on_both_backends() -> None:
    df = drop_a(base())
    df["case_id"] = "c" + df["case_id"].astype(str).str.zfill(5)
    ref = pandas_error(df)
    assert "17 case(s)" in str(ref)
    got = dask_error(df, 3)
    assert got.rule == ref.rule
    assert str(got) == str(ref)
    assert got.failure_cases is not None
    assert ref.failure_cases is not None
    assert list(got.failure_cases["index"]) == list(ref.failure_cases["index"])


@pytest.mark.parametrize("npartitions", [1, 3, 7])
def test_slice_rule_same_on_both_backends(npartitions: int) -> None:
    df = base()
    df.loc[rows(df, some(15, 11), "B"), "site"] = "other"
    with pytest.raises(PairingError) as ref:
        df.paired.by_slice("A", "B", columns="site", higher_is_better=True)
    shuffled = df.sample(frac=1.0, random_state=npartitions).reset_index(drop=True)
    with pytest.raises(PairingError) as got:
        dd.from_pandas(shuffled, npartitions=npartitions).paired.by_slice(
            "A", "B", columns="site", higher_is_better=True
        )
    assert ref.value.rule == "slice `site` constant within a case"
    assert "15 case(s)" in str(ref.value)
    assert_same_error(got.value, ref.value)


def test_caller_frames_untouched_by_a_failed_check() -> None:
    df = both_missing(base())
    before = df.copy(deep=True)
    pandas_error(df)
    dask_error(df, 3)
    pd.testing.assert_frame_equal(df, before)


# ---------------------------------------------------------------- one schema for both
def test_both_backends_take_their_rules_from_the_one_schema_function(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Renaming a rule where ``pdpaired.pairs.rules`` builds it renames it on both backends."""
    make = pdpaired.pairs.rules._check

    def renamed(fn: Any, rule: str) -> Any:
        return make(fn, f"{rule} [one schema]")

    monkeypatch.setattr(pdpaired.pairs.rules, "_check", renamed)
    for mutate in (dup, group_varies, nan_b):
        df = mutate(base())
        ref = pandas_error(df)
        got = dask_error(df, 3)
        assert ref.rule.endswith("[one schema]")
        assert_same_error(got, ref)


@pytest.mark.parametrize(
    "path",
    [
        *sorted((Path(pdpaired.__file__).parent / "pairs" / "dask").glob("*.py")),
        Path(pdpaired.dask.__file__),
    ],
    ids=lambda p: p.name,
)
def test_dask_backend_writes_no_per_case_rule(path: Path) -> None:
    """No rule of the per-case schemas is spelled in the Dask backend (graph code only)."""
    tree = ast.parse(path.read_text())
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
    }
    texts = [  # every string in the code (f-string parts included), docstrings aside
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
    ]
    layout = pdpaired.pairs.rules.SummaryLayout(
        outputs=("score",), design=("group", "stratum"), slices=("site",)
    )
    names = [
        check.name
        for schema in pdpaired.pairs.rules.pairing_schemas(layout, "A", "B")
        for column in schema.columns.values()
        for check in column.checks
    ]
    assert len(names) == 11
    # the words of each rule, without the parts filled in (`column`, model A/B)
    words = {
        part.strip()
        for name in names
        for part in re.split(r"`[^`]*`|\(?\b[AB]\b\)?", name)
        if len(part.strip()) > 5
    }
    assert {"constant within a case", "unique (case, model)", "missing outcome for"} <= words
    for word in words:
        hits = [t for t in texts if word in t]
        assert not hits, (word, hits)


def test_pairs_keep_the_dtypes_of_columns_that_agree_within_a_case() -> None:
    df = base().astype({"stratum": "category"})
    df["group"] = df["group"].map(lambda g: f"g{g}").astype(object)
    assert df["group"].dtype == object
    df = df.sample(frac=1.0, random_state=1)
    pairs = df.paired.compare("A", "B", higher_is_better=True).pairs
    assert pairs["group"].dtype == object
    assert isinstance(pairs["stratum"].dtype, pd.CategoricalDtype)
    assert list(pairs.index) == sorted(IDS)
    ref = base().set_index("case_id")
    ref = ref[ref["model"] == "A"].sort_index()
    assert list(pairs["group"]) == [f"g{g}" for g in ref["group"]]


def frame(n: int = 8) -> pd.DataFrame:
    return pd.DataFrame({
        "case_id": np.repeat(np.arange(n), 2),
        "model": ["A", "B"] * n,
        "score": np.arange(2.0 * n),
        "g": np.repeat(np.arange(n), 2),
    })  # fmt: skip


def error(df: pd.DataFrame, **kw) -> PairingError:
    with pytest.raises(PairingError) as info:
        df.paired(**kw).compare("A", "B", higher_is_better=True)
    return info.value


def with_scores(values: list) -> pd.DataFrame:
    df = frame().astype({"score": object})
    for i, v in enumerate(values):
        df.loc[i, "score"] = v
    return df


class TestReports:
    """The pairing rules' reports by their exact values.

    * Non-numeric scores: the message names the column's dtype and the offending
      values, sorted (row order free), at most five then ``...``; numbers, None
      and ``pd.NA`` are not offending, booleans are.
    * ``failure_cases`` are ordered by the schema's columns, then by id, whatever
      the row order of the input.
    """

    def test_offending_values_are_listed_sorted_and_truncated_after_five(self) -> None:
        df = with_scores(["g", "f", True, None, "e", "d", pd.NA, "c", "b", "a", 3, 2.5])
        text = str(error(df))
        assert (
            "rule `numeric score` is violated by 5 case(s); first ids: [0, 1, 2, 3, 4] "
            "(column 'score' has dtype object; offending values: 'a', 'b', 'c', 'd', 'e', ...). "
            "Convert the column to numbers first"
        ) in text
        # the row order does not change the message
        rng = np.random.default_rng(0)
        for _ in range(3):
            assert str(error(df.iloc[rng.permutation(len(df))])) == text

    def test_booleans_offend_numbers_none_and_na_do_not(self) -> None:
        df = with_scores(["y", 1, True, None, "x", pd.NA, 2.5, np.int64(4), np.float32(1.5)])
        assert "(column 'score' has dtype object; offending values: 'x', 'y', True). " in str(
            error(df)
        )

    @pytest.mark.parametrize(("n_bad", "tail"), [(5, ")"), (6, ", ...)")])
    def test_five_values_shown_without_ellipsis_six_with(self, n_bad: int, tail: str) -> None:
        letters = list("pqrstu")[:n_bad]
        text = str(error(with_scores(letters)))
        shown = ", ".join(repr(c) for c in letters[:5])
        assert f"offending values: {shown}{tail}" in text

    def test_failure_cases_ordered_by_rule_then_id_whatever_the_row_order(self) -> None:
        df = frame()
        df.loc[12, "g"] = 99
        df.loc[5, "g"] = 98
        df = pd.concat([df, df.iloc[[6]], df.iloc[[1]]])
        err = error(df, group="g")
        fc = err.failure_cases
        assert fc["column"].tolist() == ["rows_a", "rows_b", "varies g", "varies g"]
        assert fc["index"].tolist() == [3, 0, 2, 6]
        assert fc["failure_case"].tolist() == [2, 2, 1, 1]
        assert str(err).index("unique (case, model)") < str(err).index("constant within a case")
        assert "first ids: [0, 3]" in str(err)
        assert "first ids: [2, 6]" in str(err)
        rng = np.random.default_rng(1)
        for _ in range(3):
            again = error(df.iloc[rng.permutation(len(df))], group="g")
            pd.testing.assert_frame_equal(again.failure_cases, fc)
            assert str(again) == str(err)

    def test_pdpaired_is_the_public_error(self) -> None:
        assert pdpaired.PairingError is PairingError

    def test_bad_values_without_the_frame_or_the_column_say_nothing(self) -> None:
        from pdpaired.pairs import rules

        # the Dask path reports failures without the rows (frame None)
        assert rules._bad_values(None, "score") == ""
        assert rules._bad_values(frame(), "no such column") == ""
        df = with_scores(["z"])
        assert rules._bad_values(df, "score") == (
            " (column 'score' has dtype object; offending values: 'z')"
        )


# the module docstring's table: counts are int32, "varies" is bool
I32, BOOL = np.dtype(np.int32), np.dtype(np.bool_)


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


def prediction_table() -> pd.DataFrame:
    n = 12
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, n)
    return pd.DataFrame({"case_id": np.tile(np.arange(n), 2), "model": np.repeat(["A", "B"], n),
                         "y": np.tile(y, 2), "p": rng.uniform(size=2 * n)})  # fmt: skip


class TestSummaryTable:
    """The per-case summary table of ``pdpaired.pairs.rules``, each value pinned.

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

    def test_layout_columns_follow_the_documented_table(self) -> None:
        layout = SummaryLayout(outputs=("p", "q"), target="y", design=("g",), slices=("s",))
        assert layout.columns() == {
            "rows_a": np.int32, "rows_b": np.int32, "outputs_a": np.int32, "outputs_b": np.int32,
            "non_numeric p": np.int32, "infinite p": np.int32,
            "non_numeric q": np.int32, "infinite q": np.int32,
            "null y": np.int32, "null g": np.int32,
            "varies y": np.bool_, "varies g": np.bool_, "varies s": np.bool_,
        }  # fmt: skip

    def test_summary_matches_a_groupby_written_out(self) -> None:
        df = rows_table()
        cols = Columns(group="group", stratum="stratum")
        layout = SummaryLayout.of(cols)
        got, _, _ = summarize(df, cols, (df["model"] == "A").to_numpy(), layout)
        want = groupby_oracle(df)
        assert list(got.index) == [10, 11, 12, 13, 14, 15]  # order of first appearance
        assert list(got.columns) == list(layout.columns())
        for c in got.columns:
            np.testing.assert_array_equal(got[c].to_numpy(), want[c].to_numpy(), err_msg=c)
        assert dict(got.dtypes) == {
            c: (BOOL if c.startswith("varies") else I32) for c in got.columns
        }

    def test_a_rule_nobody_breaks_is_broadcast_in_the_summary_dtypes(self) -> None:
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

    def test_case_summary_casts_arrays_and_scalars_to_the_layout(self) -> None:
        layout = SummaryLayout(outputs=("v",), design=("g",))
        index = pd.Index(["a", "b", "c"], name="case")
        counts: dict[str, Any] = dict.fromkeys(layout.columns(), 0)
        counts["rows_a"] = np.array([1, 2, 1], dtype=np.int64)  # an int64 array: cast to int32
        counts["varies g"] = np.array([0, 1, 0])  # ints: cast to bool
        counts["infinite v"] = 3  # a scalar: broadcast
        got = case_summary(layout, index, counts)
        assert list(got.columns) == list(layout.columns())
        assert dict(got.dtypes) == {
            c: (BOOL if c.startswith("varies") else I32) for c in got.columns
        }
        assert got.index.equals(index)
        assert got["rows_a"].tolist() == [1, 2, 1]
        assert got["infinite v"].tolist() == [3, 3, 3]
        assert got["outputs_b"].tolist() == [0, 0, 0]
        assert got["varies g"].tolist() == [False, True, False]

    def test_case_summary_does_not_copy_counts_already_in_its_dtype(self) -> None:
        # "one block per column: no copy" (int32 counts: half the memory at 1e7 cases)
        layout = SummaryLayout(outputs=("v",))
        counts = {c: np.arange(4, dtype=np.int32) for c in layout.columns()}
        got = case_summary(layout, pd.RangeIndex(4), counts)
        for c, arr in counts.items():
            assert np.shares_memory(got[c].to_numpy(), arr), c

    def test_a_passing_summary_has_an_empty_failure_table_of_pandera_columns(self) -> None:
        layout = SummaryLayout(outputs=("v",))
        counts = {c: (1 if c.startswith(("rows", "outputs")) else 0) for c in layout.columns()}
        summary = case_summary(layout, pd.Index([1, 2]), counts)  # one row per model, all valid
        for schema in pairing_schemas(layout, "A", "B"):
            fc = failure_table(summary, schema)
            assert list(fc.columns) == list(FAILURE_COLUMNS)
            assert len(fc) == 0
            assert all(dt == np.dtype(object) for dt in fc.dtypes)

    @pytest.mark.parametrize("n", [9, 10, 11, 13])
    def test_ids_text_says_more_only_beyond_ten(self, n: int) -> None:
        ids = list(range(100, 100 + n))
        shown = ", ".join(str(i) for i in ids[:10])
        tail = f", ... ({n - 10} more)" if n > 10 else ""
        assert ids_text(ids) == f"[{shown}{tail}]"

    def test_exactly_ten_offending_cases_are_all_shown_without_more(self) -> None:
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

    def test_ids_of_mixed_types_sort_by_their_text(self) -> None:
        assert sorted_ids([3, 1, 2]) == [1, 2, 3]
        # str order: "1" < "10" < "3" < "a" < "b"
        assert sorted_ids(["b", 10, 3, "a", 1]) == [1, 10, 3, "a", "b"]

    def test_target_that_disagrees_is_named_with_count_and_ids(self) -> None:
        # (prediction mode is pandas only: the Dask accessor refuses target=)
        df = prediction_table()
        flip = (df["model"] == "B") & df["case_id"].isin([9, 2, 5])
        df.loc[flip, "y"] = 1 - df.loc[flip, "y"]
        with pytest.raises(PairingError) as info:
            df.paired(target="y", prediction="p").compare("A", "B", metric="auroc")
        assert info.value.rule == "target `y` agrees between A and B"
        assert (
            "rule `target `y` agrees between A and B` is violated by 3 case(s); "
            "first ids: [2, 5, 9]."
        ) in str(info.value)

    def test_a_target_missing_is_named(self) -> None:
        df = prediction_table().astype({"y": "float64"})
        df.loc[df["case_id"].isin([7, 4]), "y"] = np.nan
        with pytest.raises(PairingError) as info:
            df.paired(target="y", prediction="p").compare("A", "B", metric="auroc")
        assert "rule ``y` not missing` is violated by 2 case(s); first ids: [4, 7]." in str(
            info.value
        )

    def test_a_non_numeric_prediction_is_named_a_prediction(self) -> None:
        df = prediction_table().astype({"p": object})
        df.loc[(df["model"] == "A") & df["case_id"].isin([8, 1]), "p"] = "high"
        with pytest.raises(PairingError) as info:
            df.paired(target="y", prediction="p").compare("A", "B", metric="auroc")
        assert info.value.rule == "numeric prediction"
        assert "rule `numeric prediction` is violated by 2 case(s); first ids: [1, 8]" in str(
            info.value
        )
