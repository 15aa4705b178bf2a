"""The pairing rules' reports by their exact values.

* Non-numeric scores: the message names the column's dtype and the offending
  values, sorted (row order free), at most five then ``...``; numbers, None
  and ``pd.NA`` are not offending, booleans are.
* ``failure_cases`` are ordered by the schema's columns, then by id, whatever
  the row order of the input.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdpaired
from pdpaired import PairingError


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


def test_offending_values_are_listed_sorted_and_truncated_after_five() -> None:
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


def test_booleans_offend_numbers_none_and_na_do_not() -> None:
    df = with_scores(["y", 1, True, None, "x", pd.NA, 2.5, np.int64(4), np.float32(1.5)])
    assert "(column 'score' has dtype object; offending values: 'x', 'y', True). " in str(error(df))


@pytest.mark.parametrize(("n_bad", "tail"), [(5, ")"), (6, ", ...)")])
def test_five_values_shown_without_ellipsis_six_with(n_bad: int, tail: str) -> None:
    letters = list("pqrstu")[:n_bad]
    text = str(error(with_scores(letters)))
    shown = ", ".join(repr(c) for c in letters[:5])
    assert f"offending values: {shown}{tail}" in text


def test_failure_cases_ordered_by_rule_then_id_whatever_the_row_order() -> None:
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


def test_pdpaired_is_the_public_error() -> None:
    assert pdpaired.PairingError is PairingError


def test_bad_values_without_the_frame_or_the_column_say_nothing() -> None:
    from pdpaired.pairs import rules

    # the Dask path reports failures without the rows (frame None)
    assert rules._bad_values(None, "score") == ""
    assert rules._bad_values(frame(), "no such column") == ""
    df = with_scores(["z"])
    assert rules._bad_values(df, "score") == (
        " (column 'score' has dtype object; offending values: 'z')"
    )
