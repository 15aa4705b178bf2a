"""Repeated runs: every pairing rule and missing-run policy of ``repeat="sample"``, by value.

Each test builds a small table whose expected outcome is written out by hand:
the rule a bad table breaks (with its count and ids), or the run means the
policy leads to, computed here with pandas' groupby as the oracle.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdpaired
from pdpaired import PairingError


def table() -> pd.DataFrame:
    """Four cases; A has 2 runs per case, B has 3; scores are exact binary fractions."""
    rows = []
    for case in range(4):
        rows += [(case, "A", r, 0.25 * (case + r)) for r in range(2)]
        rows += [(case, "B", r, 0.125 * (case + 2 * r)) for r in range(3)]
    return pd.DataFrame(rows, columns=["case_id", "model", "run", "score"])


def compare(df: pd.DataFrame, **kw: object) -> pdpaired.Comparison:
    return df.paired(repeat="sample").compare("A", "B", higher_is_better=True, **kw)


def oracle_means(df: pd.DataFrame) -> pd.DataFrame:
    return df.groupby(["case_id", "model"])["score"].mean().unstack()


def test_run_column_must_differ_from_the_score_column() -> None:
    with pytest.raises(ValueError, match="run column must differ"):
        table().paired(repeat="sample", run="score").compare("A", "B", higher_is_better=True)


def test_absent_model_is_named() -> None:
    with pytest.raises(PairingError, match="'C'"):
        table().paired(repeat="sample").compare("A", "C", higher_is_better=True)


@pytest.mark.parametrize("column", ["case_id", "run"])
def test_missing_id_names_the_row(column: str) -> None:
    df = table()
    df[column] = df[column].astype(float)
    df.loc[3, column] = np.nan
    with pytest.raises(PairingError, match=f"no missing {column}") as err:
        compare(df)
    assert err.value.failure_cases is not None
    assert list(err.value.failure_cases["index"]) == [3]


def test_infinite_score_is_refused_with_its_case() -> None:
    df = table()
    df.loc[7, "score"] = np.inf
    with pytest.raises(PairingError, match="finite score") as err:
        compare(df)
    assert list(err.value.failure_cases["failure_case"]) == [np.inf]


@pytest.mark.parametrize(("model", "role"), [("A", "A"), ("B", "B")])
def test_missing_run_under_error_names_the_model(model: str, role: str) -> None:
    df = table()
    row = df.index[(df["model"] == model) & (df["case_id"] == 2)][0]
    df.loc[row, "score"] = np.nan
    with pytest.raises(PairingError, match=rf"missing run for {role} \({model}\)") as err:
        compare(df)
    assert err.value.rule.startswith(f"missing run for {role}")


def test_complete_case_drops_the_missing_runs_only() -> None:
    df = table()
    df.loc[(df["model"] == "B") & (df["case_id"] == 1) & (df["run"] == 0), "score"] = np.nan
    cmp = compare(df, missing="complete-case")
    want = oracle_means(df.dropna(subset=["score"]))
    pd.testing.assert_frame_equal(cmp.pairs, want, check_names=False, rtol=1e-12)
    assert cmp.runs is not None
    assert (cmp.runs.n_missing_runs_a, cmp.runs.n_missing_runs_b) == (0, 1)
    assert cmp.runs.n_runs_dropped == 1


def test_as_failure_fills_the_runs_with_the_given_value() -> None:
    df = table()
    df.loc[(df["model"] == "A") & (df["run"] == 1) & (df["case_id"] < 2), "score"] = np.nan
    cmp = compare(df, missing="as-failure", fill_value=-1.0)
    want = oracle_means(df.fillna({"score": -1.0}))
    pd.testing.assert_frame_equal(cmp.pairs, want, check_names=False, rtol=1e-12)
    assert cmp.runs is not None
    assert cmp.runs.n_runs_filled == 2


def test_as_failure_needs_a_fill_value_for_continuous_scores() -> None:
    df = table()
    df.loc[0, "score"] = np.nan
    with pytest.raises(ValueError, match="1 run\\(s\\) need a value"):
        compare(df, missing="as-failure")


def test_as_failure_refuses_a_non_finite_fill_value() -> None:
    df = table()
    df.loc[0, "score"] = np.nan
    with pytest.raises(ValueError, match="finite"):
        compare(df, missing="as-failure", fill_value=np.inf)


def test_binary_runs_default_to_the_worse_value() -> None:
    df = table()
    df["score"] = (df["score"] >= 0.25).astype(float)
    df.loc[(df["model"] == "A") & (df["case_id"] == 3) & (df["run"] == 0), "score"] = np.nan
    for hib, fill in ((True, 0.0), (False, 1.0)):
        cmp = df.paired(repeat="sample").compare(
            "A", "B", higher_is_better=hib, missing="as-failure"
        )
        want = oracle_means(df.fillna({"score": fill}))
        pd.testing.assert_frame_equal(cmp.pairs, want, check_names=False, rtol=1e-12)


def test_a_case_without_rows_for_a_model_is_filled_once() -> None:
    # no row at all for B on case 3: a missing case, filled with the fill value
    df = table()
    df = df[~((df["model"] == "B") & (df["case_id"] == 3))]
    cmp = compare(df, missing="as-failure", fill_value=-1.0)
    want = oracle_means(df)
    want.loc[3, "B"] = -1.0
    pd.testing.assert_frame_equal(cmp.pairs, want, check_names=False, rtol=1e-12)
    assert cmp.missing.n_missing_b == 1
