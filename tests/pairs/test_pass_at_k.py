"""Sampled outputs paired as per-case pass@k / pass^k: every rule and policy, by value.

The oracle is a plain loop over the (case, model) groups with ``math.comb``
and ``fractions.Fraction``, independent of the vectorised product form.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from pdpaired import PairingError
from pdpaired.pairs.columns import Columns
from pdpaired.pairs.pass_at_k import pair_samples

COLS = Columns(score=None)


def table(seed: int = 0, n_cases: int = 12) -> pd.DataFrame:
    """``n_cases`` cases; each model has between 3 and 8 samples per case (n differs)."""
    rng = np.random.default_rng(seed)
    rows = []
    for case in range(n_cases):
        for model, p in (("A", 0.6), ("B", 0.4)):
            for _ in range(int(rng.integers(3, 9))):
                rows.append((f"c{case:02d}", model, int(rng.random() < p)))
    return pd.DataFrame(rows, columns=["case_id", "model", "correct"])


def oracle(df: pd.DataFrame, kind: str, k: int) -> pd.DataFrame:
    out: dict[str, dict[str, float]] = {}
    for (case, model), g in df.groupby(["case_id", "model"]):
        n, c = len(g), int(g["correct"].sum())
        if kind == "pass@k":
            v = 1 - Fraction(math.comb(n - c, k), math.comb(n, k))
        else:
            v = Fraction(math.comb(c, k), math.comb(n, k))
        out.setdefault(model, {})[case] = float(v)
    return pd.DataFrame(out)


def pairs(df: pd.DataFrame, kind: str = "pass@k", k: int = 3, **kw: object) -> pd.DataFrame:
    kw = {"missing": "error", "fill_value": None, **kw}
    data = pair_samples(df, COLS, "A", "B", k=k, kind=kind, correct="correct", **kw)
    return data.frame


@pytest.mark.parametrize("kind", ["pass@k", "pass^k"])
@pytest.mark.parametrize("k", [1, 2, 3])
def test_estimates_match_the_comb_oracle(kind: str, k: int) -> None:
    df = table()
    got = pairs(df, kind, k)
    want = oracle(df, kind, k)
    np.testing.assert_allclose(got["A"], want.loc[got.index, "A"], rtol=1e-14)
    np.testing.assert_allclose(got["B"], want.loc[got.index, "B"], rtol=1e-14)


def test_booleans_are_read_as_zero_one() -> None:
    df = table()
    as_bool = df.assign(correct=df["correct"].astype(bool))
    pd.testing.assert_frame_equal(pairs(as_bool), pairs(df))


def test_row_order_is_irrelevant_and_the_table_is_not_modified() -> None:
    df = table()
    shuffled = df.sample(frac=1.0, random_state=3)
    before = shuffled.copy(deep=True)
    pd.testing.assert_frame_equal(pairs(shuffled), pairs(df))
    pd.testing.assert_frame_equal(shuffled, before)


def test_fewer_than_k_samples_is_an_error_naming_the_cases() -> None:
    df = table()
    # three (case, model)s short of k=6 at most; the oracle counts them directly
    counts = df.groupby(["case_id", "model"]).size()
    short = sorted({case for (case, _), n in counts.items() if n < 6})
    assert short  # the table has some
    with pytest.raises(PairingError, match=r"at least k=6 samples per \(case, model\)") as err:
        pairs(df, k=6)
    msg = str(err.value)
    assert f"violated by {len(short)} case(s)" in msg
    assert short[0] in msg
    assert set(err.value.failure_cases["index"]) == set(short)


def test_values_other_than_zero_one_are_refused() -> None:
    df = table().astype({"correct": float})
    df.loc[5, "correct"] = 0.5
    with pytest.raises(PairingError, match="0/1 correct"):
        pairs(df)
    with pytest.raises(PairingError, match="0/1 correct"):
        pairs(table().assign(correct="yes"))


class TestMissingSamples:
    def with_nan(self) -> pd.DataFrame:
        df = table().astype({"correct": float})
        df.loc[0, "correct"] = np.nan  # one sample of A on case c00
        return df

    def test_error_names_the_case(self) -> None:
        with pytest.raises(PairingError, match=r"missing sample for A") as err:
            pairs(self.with_nan())
        assert list(err.value.failure_cases["index"]) == ["c00"]

    def test_complete_case_drops_the_sample(self) -> None:
        df = self.with_nan()
        got = pairs(df, missing="complete-case")
        want = oracle(df.dropna(), "pass@k", 3)
        assert got.loc["c00", "A"] == pytest.approx(want.loc["c00", "A"], rel=1e-14)

    def test_as_failure_counts_it_incorrect(self) -> None:
        df = self.with_nan()
        got = pairs(df, missing="as-failure")
        want = oracle(df.fillna(0.0), "pass@k", 3)
        assert got.loc["c00", "A"] == pytest.approx(want.loc["c00", "A"], rel=1e-14)


class TestMissingCases:
    def without_b_on_c03(self) -> pd.DataFrame:
        df = table()
        return df[~((df["case_id"] == "c03") & (df["model"] == "B"))]

    def test_error_names_the_case(self) -> None:
        with pytest.raises(PairingError, match="c03"):
            pairs(self.without_b_on_c03())

    def test_complete_case_drops_it_for_both(self) -> None:
        got = pairs(self.without_b_on_c03(), missing="complete-case")
        assert "c03" not in got.index
        assert len(got) == 11

    def test_as_failure_fills_the_worst_estimate(self) -> None:
        got = pairs(self.without_b_on_c03(), missing="as-failure")
        assert got.loc["c03", "B"] == 0.0
        got = pairs(self.without_b_on_c03(), missing="as-failure", fill_value=0.25)
        assert got.loc["c03", "B"] == 0.25


def test_group_must_be_constant_within_a_case() -> None:
    df = table().assign(group=lambda d: d["case_id"].str[1:].astype(int) // 3)
    cols = Columns(score=None, group="group")
    data = pair_samples(
        df, cols, "A", "B", k=2, kind="pass@k", correct="correct", missing="error",
        fill_value=None,
    )  # fmt: skip
    assert list(data.frame["group"]) == [i // 3 for i in range(12)]
    df.loc[df.index[0], "group"] = 99
    with pytest.raises(PairingError, match="group"):
        pair_samples(
            df, cols, "A", "B", k=2, kind="pass@k", correct="correct", missing="error",
            fill_value=None,
        )  # fmt: skip


def test_absent_column_and_model_are_named() -> None:
    with pytest.raises(PairingError, match="'hit'"):
        pair_samples(
            table(), COLS, "A", "B", k=1, kind="pass@k", correct="hit", missing="error",
            fill_value=None,
        )  # fmt: skip
    with pytest.raises(PairingError, match="'C'"):
        pair_samples(
            table(), COLS, "A", "C", k=1, kind="pass@k", correct="correct", missing="error",
            fill_value=None,
        )  # fmt: skip


def test_a_missing_case_id_names_the_row() -> None:
    df = table().astype({"case_id": object})
    df.loc[7, "case_id"] = None
    with pytest.raises(PairingError, match="no missing case_id") as err:
        pairs(df)
    assert list(err.value.failure_cases["index"]) == [7]


def test_a_missing_sample_of_b_names_b() -> None:
    df = table().astype({"correct": float})
    last = df.index[df["model"] == "B"][-1]
    df.loc[last, "correct"] = np.nan
    with pytest.raises(PairingError, match=r"missing sample for B \(B\)"):
        pairs(df)


def test_the_correct_column_must_not_be_the_case_column() -> None:
    with pytest.raises(ValueError, match="`correct` column must differ"):
        pair_samples(
            table(), COLS, "A", "B", k=1, kind="pass@k", correct="case_id", missing="error",
            fill_value=None,
        )  # fmt: skip
