"""Reading the command line's CSV inputs: ids are text, a column is named once, samples."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pdpaired  # noqa: F401  (registers DataFrame.paired)
from pdpaired.cli.inputs import UsageError, read_csv
from pdpaired.cli.main import main


def write(path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_ids_are_read_as_text_so_007_and_7_are_two_cases(tmp_path: Path) -> None:
    rows = ["case_id,model,score"]
    for i, case in enumerate(["007", "7", "07", "8", "9", "010", "10", "11"]):
        rows += [f"{case},A,{i % 3}", f"{case},B,{(i + 1) % 2}"]
    path = write(tmp_path / "long.csv", "\n".join(rows) + "\n")
    frame, _ = read_csv(path)
    assert frame["case_id"].tolist()[:4] == ["007", "007", "7", "7"]
    out = tmp_path / "o"
    assert main(["compare", path, "--long", "--a", "A", "--b", "B", "--score", "score",
                 "--higher-is-better", "--resamples", "200", "--permutations", "200",
                 "--out", str(out)]) == 0  # fmt: skip
    art = json.loads((out / "comparison.json").read_text(encoding="utf-8"))
    assert art["n_cases"] == 8  # not 5: 007 / 07 / 7 and 010 / 10 stay apart


def test_an_id_column_named_on_the_command_line_is_text_too(tmp_path: Path) -> None:
    path = write(tmp_path / "a.csv", "doc,target,prediction\n001,1,0.5\n1,0,0.25\n")
    frame, _ = read_csv(path, "doc")
    assert frame["doc"].tolist() == ["001", "1"]
    assert frame["target"].dtype.kind == "i"  # other columns keep pandas' types


def test_a_column_named_twice_in_the_header_is_refused_with_the_rule(tmp_path: Path) -> None:
    path = write(tmp_path / "dup.csv", "case_id,model,score,score\n1,A,0,1\n1,B,1,0\n")
    with pytest.raises(UsageError, match=r"rule `unique column names`: .*dup\.csv names the "
                                         r"column\(s\) 'score' more than once"):  # fmt: skip
        read_csv(path)


def test_a_duplicate_header_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "dup.csv", "case_id,model,score,score\n1,A,0,1\n1,B,1,0\n")
    code = main(["compare", path, "--long", "--a", "A", "--b", "B", "--score", "score",
                 "--higher-is-better"])  # fmt: skip
    assert code == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("error: rule `unique column names`")
    assert len(err.strip().splitlines()) == 1


class TestSamples:
    """``--pass-at-k`` / ``--pass-hat-k``: a --long table with a row per sample."""

    @staticmethod
    def table(tmp_path: Path) -> tuple[str, pd.DataFrame]:
        rng = np.random.default_rng(5)
        p = rng.uniform(0, 1, 40)
        rows = [
            (f"q{i}", m, s, int(rng.random() < p[i] * lift))
            for i in range(40)
            for m, lift in (("new", 1.0), ("old", 0.7))
            for s in range(int(rng.integers(4, 7)))
        ]
        df = pd.DataFrame(rows, columns=["case_id", "model", "sample", "hit"])
        path = tmp_path / "samples.csv"
        df.to_csv(path, index=False)
        return str(path), df

    @pytest.mark.parametrize(("flag", "method", "name"), [
        ("--pass-at-k", "pass_at_k", "pass@3"), ("--pass-hat-k", "pass_hat_k", "pass^3"),
    ])  # fmt: skip
    def test_the_artifact_holds_the_accessors_estimate(self, tmp_path, flag, method, name):
        path, df = self.table(tmp_path)
        out = tmp_path / "o"
        assert main(["compare", path, "--long", "--a", "new", "--b", "old", flag, "3",
                     "--correct", "hit", "--resamples", "200", "--permutations", "200",
                     "--seed", "0", "--out", str(out)]) == 0  # fmt: skip
        art = json.loads((out / "comparison.json").read_text(encoding="utf-8"))
        res = getattr(df.paired, method)("new", "old", k=3, correct="hit", rng=0,
                                         n_resamples=200)  # fmt: skip
        assert art["metric"]["name"] == name
        assert art["metric"]["higher_is_better"] is True
        assert art["n_cases"] == 40
        assert art["improvement_a_over_b"] == pytest.approx(res.improvement, rel=1e-12)

    def test_the_score_column_serves_as_the_correct_column(self, tmp_path, capsys):
        path, _ = self.table(tmp_path)
        assert main(["compare", path, "--long", "--a", "new", "--b", "old", "--pass-at-k", "2",
                     "--score", "hit", "--resamples", "200",
                     "--permutations", "0"]) == 0  # fmt: skip
        assert "pass@2" in capsys.readouterr().out

    @pytest.mark.parametrize(("extra", "words"), [
        (["--pass-at-k", "9", "--correct", "hit"], "rule `at least k=9 samples"),
        (["--pass-at-k", "0", "--correct", "hit"], "--pass-at-k must be a positive integer"),
        (["--pass-at-k", "2", "--correct", "hit", "--lower-is-better"], "higher-is-better"),
        (["--pass-at-k", "2", "--correct", "hit", "--metric", "auroc"], "--metric does not"),
        (["--correct", "hit", "--score", "hit", "--higher-is-better"], "--correct applies to"),
        (["--pass-at-k", "2", "--pass-hat-k", "2"], "not allowed with"),
    ])  # fmt: skip
    def test_misuse_exits_2_naming_the_flag(self, tmp_path, capsys, extra, words):
        path, _ = self.table(tmp_path)
        assert main(["compare", path, "--long", "--a", "new", "--b", "old", *extra]) == 2
        assert words in capsys.readouterr().err

    def test_two_files_or_several_models_are_refused(self, tmp_path, capsys):
        path, _ = self.table(tmp_path)
        assert main(["compare", path, path, "--pass-at-k", "2"]) == 2
        assert "--pass-at-k reads one --long table" in capsys.readouterr().err
        assert main(["compare", path, "--long", "--baseline", "old", "--pass-at-k", "2"]) == 2
        assert "not --baseline/--all-pairs" in capsys.readouterr().err

    def test_slices_read_the_sample_rows_case_by_case(self, tmp_path):
        _, df = self.table(tmp_path)
        df = df.assign(topic=np.where(df["case_id"].str[1:].astype(int) < 25, "x", "y"))
        path = tmp_path / "topics.csv"
        df.to_csv(path, index=False)
        out = tmp_path / "o"
        assert main(["compare", str(path), "--long", "--a", "new", "--b", "old",
                     "--pass-at-k", "2", "--correct", "hit", "--slice-columns", "topic",
                     "--min-slice-size", "10", "--resamples", "200", "--permutations", "200",
                     "--seed", "0", "--out", str(out)]) == 0  # fmt: skip
        art = json.loads((out / "comparison.json").read_text(encoding="utf-8"))
        rows = {r["value"]: r for r in art["slices"]["rows"]}
        assert (rows["x"]["n"], rows["y"]["n"]) == (25, 15)
        x = df[df["topic"] == "x"].paired.pass_at_k("new", "old", k=2, correct="hit", rng=0,
                                                     n_resamples=200)  # fmt: skip
        assert rows["x"]["improvement"] == pytest.approx(x.improvement, rel=1e-12)
