"""Pairing a crossed design: the cells, the rules and the missing-outcome policy."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdpaired

from ..analysis.test_crossed import cells_of, compare, crossed_table


class TestCells:
    def test_case_scores_are_the_means_over_their_cells(self) -> None:
        df = crossed_table(n=8, seed=1)
        before = df.copy()
        cmp = compare(df)
        pd.testing.assert_frame_equal(df, before)  # the caller's table is untouched
        want = df.groupby(["case_id", "model"])["score"].mean().unstack("model")
        got = cmp.pairs
        np.testing.assert_allclose(got["A"].to_numpy(), want["A"].to_numpy())
        np.testing.assert_allclose(got["B"].to_numpy(), want["B"].to_numpy())
        assert cmp.improvement == pytest.approx(cells_of(df).mean())

    def test_levels_of_any_type_and_any_row_order(self) -> None:
        df = crossed_table(n=6, seed=2)
        df["seed"] = df["seed"].map({0: "s-a", 1: "s-b", 2: "s-c", 3: "s-d"})
        a = compare(df).variance_components()
        b = compare(df.sample(frac=1.0, random_state=3)).variance_components()
        assert a.variances == pytest.approx(b.variances)

    def test_replicate_rows_are_averaged_within_a_cell(self) -> None:
        df = crossed_table(n=6, replicates=2, seed=4)
        cmp = compare(df)
        assert cmp.crossed is not None
        assert cmp.crossed.replicate == "run"
        assert "replicates per cell told apart by run" in cmp.crossed.describe()
        assert cmp.improvement == pytest.approx(cells_of(df).mean())

    def test_two_rows_in_a_cell_without_a_run_column_is_an_error(self) -> None:
        df = crossed_table(n=6, replicates=2, seed=5).drop(columns="run")
        with pytest.raises(pdpaired.PairingError, match=r"unique \(case, model, seed, prompt\)"):
            compare(df)

    def test_bad_configuration(self) -> None:
        df = crossed_table(n=4, seed=6)
        with pytest.raises(ValueError, match="needs repeat='sample'"):
            df.paired(factors=["seed"])
        with pytest.raises(ValueError, match="distinct column names"):
            df.paired(repeat="sample", factors=["seed", "seed"])
        with pytest.raises(ValueError, match="distinct column names"):
            df.paired(repeat="sample", factors=[])
        with pytest.raises(pdpaired.PairingError, match="factor column"):
            df.paired(repeat="sample", factors=["judge"]).compare("A", "B", higher_is_better=True)
        with pytest.raises(ValueError, match="must differ"):
            df.paired(repeat="sample", factors=["case_id"]).compare("A", "B", higher_is_better=True)
        bad = df.astype({"seed": float})
        bad.loc[3, "seed"] = np.nan
        with pytest.raises(pdpaired.PairingError, match="no missing seed"):
            compare(bad)

    def test_a_single_factor(self) -> None:
        df = crossed_table(n=10, prompts=1, seed=7)
        cmp = df.paired(repeat="sample", factors="seed").compare("A", "B", higher_is_better=True)
        vc = cmp.variance_components()
        assert vc.components == ("case", "seed", "residual")

    def test_design_columns_must_be_constant_within_a_case(self) -> None:
        df = crossed_table(n=6, seed=8)
        df["stratum"] = df["case_id"] % 2
        assert compare(df).pairs["stratum"].tolist() == [0, 1, 0, 1, 0, 1]
        df.loc[df.index[0], "stratum"] = 5
        with pytest.raises(pdpaired.PairingError, match="stratum"):
            compare(df)


class TestMissing:
    def drop_cell(self) -> pd.DataFrame:
        df = crossed_table(n=6, seed=9)
        gone = df["case_id"].eq(2) & df["seed"].eq(1) & df["prompt"].eq("t2") & df["model"].eq("A")
        return df[~gone]

    def test_a_missing_cell_is_an_error_naming_the_case_and_cell(self) -> None:
        with pytest.raises(pdpaired.PairingError, match="complete crossed design") as err:
            compare(self.drop_cell())
        text = str(err.value)
        assert "1 case" in text
        assert "2" in text
        fc = err.value.failure_cases
        assert fc["failure_case"].tolist() == ["seed=1, prompt='t2'"]

    def test_complete_case_drops_the_incomplete_case_for_both_models(self) -> None:
        df = self.drop_cell()
        cmp = compare(df, missing="complete-case")
        assert 2 not in cmp.pairs.index
        assert cmp.n_cases == 5
        assert cmp.missing.n_dropped == 1
        assert cmp.missing.n_missing_a == 1
        summary = cmp.crossed
        assert summary is not None
        assert summary.n_missing_cells_a == 1
        assert summary.n_incomplete_cases == 1
        assert summary.incomplete_ids == ("2",)
        assert "1 incomplete case(s) dropped for both models" in summary.describe()
        full = crossed_table(n=6, seed=9)
        kept = full[full["case_id"].ne(2)]
        assert cmp.improvement == pytest.approx(cells_of(kept).mean())
        assert cmp.variance_components().variances == pytest.approx(
            compare(kept).variance_components().variances
        )

    def test_as_failure_fills_the_missing_cell(self) -> None:
        df = self.drop_cell()
        cmp = compare(df, missing="as-failure", fill_value=-3.0)
        full = crossed_table(n=6, seed=9)
        cell = full["case_id"].eq(2) & full["seed"].eq(1) & full["prompt"].eq("t2")
        filled = full.copy()
        filled.loc[cell & full["model"].eq("A"), "score"] = -3.0
        assert cmp.improvement == pytest.approx(cells_of(filled).mean())
        assert cmp.crossed is not None
        assert cmp.crossed.fill_value == -3.0
        assert (cmp.missing.n_missing_a, cmp.missing.n_missing_b) == (1, 0)
        assert cmp.missing.n_filled == 1
        assert "1 case(s) filled with -3" in cmp.missing.describe()
        assert "filled with -3" in cmp.crossed.describe()
        with pytest.raises(ValueError, match="fill_value"):
            compare(df, missing="as-failure")

    def test_nan_scores_follow_the_policy(self) -> None:
        df = crossed_table(n=6, seed=10)
        df.loc[df.index[5], "score"] = np.nan
        case = df.loc[df.index[5], "case_id"]
        with pytest.raises(pdpaired.PairingError, match="missing output in a cell for A"):
            compare(df)
        cmp = compare(df, missing="complete-case")
        assert case not in cmp.pairs.index
        assert cmp.crossed is not None
        assert cmp.crossed.n_missing_rows_a == 1
        assert cmp.missing.n_dropped == 1

    def test_a_case_absent_for_one_model(self) -> None:
        df = crossed_table(n=6, seed=11)
        df = df[~(df["case_id"].eq(4) & df["model"].eq("B"))]
        with pytest.raises(pdpaired.PairingError, match="for B"):
            compare(df)
        cmp = compare(df, missing="complete-case")
        assert cmp.missing.n_missing_b == 1
        assert cmp.n_cases == 5

    def test_binary_scores_fill_the_worse_value(self) -> None:
        df = crossed_table(n=6, seed=12)
        df["score"] = (df["score"] > 0).astype(float)
        gone = df["case_id"].eq(1) & df["seed"].eq(0) & df["prompt"].eq("t0") & df["model"].eq("B")
        cmp = compare(df[~gone], missing="as-failure")
        assert cmp.crossed is not None
        assert cmp.crossed.fill_value == 0.0

    def test_a_case_with_every_row_missing_is_counted(self) -> None:
        df = crossed_table(n=6, seed=13)
        df.loc[df["case_id"].eq(3), "score"] = np.nan
        cmp = compare(df, missing="complete-case")
        assert 3 not in cmp.pairs.index
        summary = cmp.crossed
        assert summary is not None
        assert summary.n_incomplete_cases == 1
        assert summary.incomplete_ids == ("3",)
        assert summary.n_missing_rows_a == summary.n_missing_rows_b == 12

    def test_as_failure_fills_a_nan_row(self) -> None:
        df = crossed_table(n=6, seed=14)
        row = df.index[df["model"].eq("B")][4]
        filled = df.copy()
        filled.loc[row, "score"] = 0.25
        df.loc[row, "score"] = np.nan
        cmp = compare(df, missing="as-failure", fill_value=0.25)
        assert cmp.improvement == pytest.approx(cells_of(filled).mean())
        assert cmp.crossed is not None
        assert cmp.crossed.n_missing_rows_b == 1
        assert (cmp.missing.n_missing_a, cmp.missing.n_missing_b, cmp.missing.n_filled) == (0, 1, 1)
