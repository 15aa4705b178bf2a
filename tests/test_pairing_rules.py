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

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")

import dask  # noqa: E402

import pdpaired.dask  # noqa: E402  (registers ddf.paired)
import pdpaired.pairs.rules  # noqa: E402
from pdpaired import PairingError  # noqa: E402

from .conftest import long_table  # noqa: E402

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
    """Renaming the rules where ``pdpaired.pairs.rules`` builds them renames them on both backends."""
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
    sorted((Path(pdpaired.__file__).parent / "pairs" / "dask").glob("*.py")) + [Path(pdpaired.dask.__file__)],
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
