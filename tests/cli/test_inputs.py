"""Reading the command line's CSV inputs: ids are text, a column is named once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

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
