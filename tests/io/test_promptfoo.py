"""pdpaired.io.read_promptfoo: promptfoo's results.json in, the long table out.

The fixture tests/data/promptfoo/results.json is promptfoo 0.121.20's own
output for the config beside it (two labelled echo providers, 6 tests, one
errored result; its README says how it was made). Every number is checked
against a hand parse of the same file with plain ``json``; the edge cases
edit a copy of it.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import io
import json
import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import pdpaired
from pdpaired.cli.main import main
from pdpaired.io import read_promptfoo

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "promptfoo" / "results.json"
HOSTILE = "evil\x1b[31m\n# heading | [link](http://x) `code` <b>\u202e"

# 5 or 6 cases of 0/1-ish scores: pdpaired warns that the exact test is the one to trust;
# reading the file is these tests' subject
pytestmark = pytest.mark.filterwarnings(
    "ignore:The exact binomial test:pdpaired.DegenerateDataWarning"
)


def raw() -> dict[str, Any]:
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


def hand(doc: dict[str, Any]) -> dict[tuple[int, str], dict[str, Any]]:
    """(testIdx, provider label) -> the result record (the oracle for the reader)."""
    return {(r["testIdx"], r["provider"]["label"]): r for r in doc["results"]["results"]}


def write(tmp_path: Path, doc: Any, name: str = "results.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


# --------------------------------------------------------------------------- the fixture
def test_the_fixture_is_read_exactly() -> None:
    doc = raw()
    want = hand(doc)
    tests = {r["testIdx"] for r in doc["results"]["results"]}
    providers = {r["provider"]["label"] for r in doc["results"]["results"]}
    df = read_promptfoo(FIXTURE)
    assert list(df.columns) == ["case_id", "model", "score", "passed", "error", "prompt",
                                "description", "vars"]  # fmt: skip
    assert len(df) == len(tests) * len(providers) == len(want) == 12
    assert df["case_id"].tolist() == [i for i in sorted(tests) for _ in range(2)]
    assert df["model"].tolist() == ["baseline", "candidate"] * 6  # the file's provider order
    assert df["score"].dtype == df["passed"].dtype == np.float64
    assert df["case_id"].dtype == np.int64
    for row in df.itertuples():
        rec = want[(row.case_id, row.model)]
        assert row.prompt == rec["prompt"]["label"]
        assert row.description == rec["testCase"]["description"]
        assert json.loads(row.vars) == rec["vars"]
        if rec["failureReason"] == 2:  # promptfoo's ERROR: no score
            assert math.isnan(row.score)
            assert math.isnan(row.passed)
            assert row.error == rec["error"].splitlines()[0]
        else:
            assert row.score == float(rec["score"])
            assert row.passed == float(rec["success"])
            assert pd.isna(row.error)
    assert df.attrs == {"source_files": [str(FIXTURE)], "metric": "score",
                        "higher_is_better": True}  # fmt: skip


def test_an_errored_result_is_a_missing_outcome_with_its_reason() -> None:
    df = read_promptfoo(FIXTURE)
    errored = df[df["error"].notna()]
    assert errored[["case_id", "model"]].values.tolist() == [[5, "candidate"]]
    (reason,) = errored["error"]
    assert reason.startswith("Error: Transform failed")
    assert reason.endswith("candidate unavailable")
    assert "\n" not in reason  # the message, not the stack trace
    # the fixture's own record says score 0 and success false: pdpaired does not take them
    rec = hand(raw())[(5, "candidate")]
    assert (rec["score"], rec["success"]) == (0, False)
    assert errored["score"].isna().all()


def test_an_error_without_failure_reason_is_still_an_error(tmp_path: Path) -> None:
    doc = raw()
    for r in doc["results"]["results"]:
        r.pop("failureReason")
    df = read_promptfoo(write(tmp_path, doc))
    assert df.loc[df["error"].notna(), ["case_id", "model"]].values.tolist() == [[5, "candidate"]]
    assert df["score"].isna().sum() == 1


def test_a_named_metric_is_the_score() -> None:
    want = hand(raw())
    df = read_promptfoo(FIXTURE, metric="correct")
    assert df.attrs["metric"] == "correct"
    for row in df.itertuples():
        rec = want[(row.case_id, row.model)]
        value = rec["namedScores"].get("correct")
        if rec["failureReason"] == 2:
            assert math.isnan(row.score)
            assert "candidate unavailable" in row.error
        elif value is None:  # test 2 has only a brevity assertion
            assert row.case_id == 2
            assert math.isnan(row.score)
            assert row.error == "no 'correct' named score"
            assert row.passed == float(rec["success"])
        else:
            assert row.score == float(value)
    # test 4: the candidate passes `correct` and fails `brevity`, score 0.5 overall
    both = read_promptfoo(FIXTURE).set_index(["case_id", "model"])["score"]
    assert both[(4, "candidate")] == 0.5
    assert df.set_index(["case_id", "model"])["score"][(4, "candidate")] == 1.0


def test_an_unknown_metric_lists_the_named_metrics() -> None:
    with pytest.raises(ValueError, match=r"Unknown metric 'accuracy'.*'brevity', 'correct'"):
        read_promptfoo(FIXTURE, metric="accuracy")


# --------------------------------------------------------------------------- end to end
def test_bootstrap_and_report_on_the_read_table() -> None:
    want = hand(raw())
    df = read_promptfoo(FIXTURE)
    # the errored result is a missing outcome: the default policy stops and names it
    with pytest.raises(pdpaired.PairingError, match=r"\b5\b"):
        df.paired.compare("candidate", "baseline", higher_is_better=True)
    res = df.paired.bootstrap("candidate", "baseline", higher_is_better=True,
                              missing="complete-case", rng=0, n_resamples=500)  # fmt: skip
    kept = [i for i in range(6) if want[(i, "candidate")]["failureReason"] != 2]
    a = [float(want[(i, "candidate")]["score"]) for i in kept]
    b = [float(want[(i, "baseline")]["score"]) for i in kept]
    assert res.n_cases == len(kept) == 5
    assert res.missing.n_missing_a == 1
    assert math.isclose(res.metric_a, np.mean(a))
    assert math.isclose(res.metric_b, np.mean(b))
    assert math.isclose(res.improvement, np.mean(a) - np.mean(b))
    # pass rates: the pass flag as the score, the error scored as a failure
    passed = df.assign(score=df["passed"])
    report = passed.paired.compare("candidate", "baseline", higher_is_better=True,
                                   missing="as-failure").report(
        rng=0, n_resamples=200, n_permutations=200)  # fmt: skip
    flags_a = [float(want[(i, "candidate")]["success"]) for i in range(6)]
    flags_b = [float(want[(i, "baseline")]["success"]) for i in range(6)]
    assert math.isclose(report.bootstrap.metric_a, np.mean(flags_a))
    assert math.isclose(report.bootstrap.metric_b, np.mean(flags_b))
    assert "candidate" in report.to_markdown()


def test_labels_are_kept_as_data_and_escaped_by_the_views(tmp_path: Path) -> None:
    doc = raw()
    for r in doc["results"]["results"]:
        if r["provider"]["label"] == "candidate":
            r["provider"]["label"] = HOSTILE
    df = read_promptfoo(write(tmp_path, doc))
    assert set(df["model"]) == {"baseline", HOSTILE}  # the label as given, not cleaned
    res = df.paired.bootstrap(HOSTILE, "baseline", higher_is_better=True,
                              missing="complete-case", rng=0, n_resamples=200)  # fmt: skip
    text = str(res)
    for bad in ("\x1b", "\u202e"):
        assert bad not in text
    for line in text.splitlines():
        assert line.isprintable(), repr(line)
    assert "evil\\x1b[31m\\n# heading" in text


# --------------------------------------------------------------------------- files and prompts
def test_one_eval_per_provider_reads_as_one_file(tmp_path: Path) -> None:
    doc = raw()
    paths = []
    for label in ("baseline", "candidate"):
        part = copy.deepcopy(doc)
        part["results"]["results"] = [r for r in doc["results"]["results"]
                                      if r["provider"]["label"] == label]  # fmt: skip
        paths.append(write(tmp_path, part, f"{label}.json"))
    both = read_promptfoo(paths)
    pd.testing.assert_frame_equal(both, read_promptfoo(FIXTURE))
    assert both.attrs["source_files"] == [str(p) for p in paths]


def test_a_provider_with_several_prompts_is_named_with_each_prompt(tmp_path: Path) -> None:
    doc = raw()
    for r in doc["results"]["results"]:
        r["provider"]["label"] = "echo"  # one provider, the two prompts
    df = read_promptfoo(write(tmp_path, doc))
    assert set(df["model"]) == {"[echo] terse", "[echo] chatty"}
    assert len(df) == 12


def test_an_absent_result_is_a_missing_outcome_with_a_warning(tmp_path: Path) -> None:
    doc = raw()
    results = doc["results"]["results"]
    doc["results"]["results"] = [r for r in results if (r["testIdx"], r["provider"]["label"])
                                 != (3, "baseline")]  # fmt: skip
    with pytest.warns(UserWarning, match=r"lack.*1 of the 12.*\(test 3, 'baseline'\)"):
        df = read_promptfoo(write(tmp_path, doc))
    assert len(df) == 12
    row = df[(df["case_id"] == 3) & (df["model"] == "baseline")].iloc[0]
    assert math.isnan(row["score"])
    assert row["error"] == "absent from the results"
    assert row["description"] == "exact"


# --------------------------------------------------------------------------- clear errors
def test_a_repeated_result_is_an_error_naming_it(tmp_path: Path) -> None:
    doc = raw()
    doc["results"]["results"].append(copy.deepcopy(doc["results"]["results"][0]))
    with pytest.raises(ValueError, match=r"repeat a \(test, provider\).*test 0 of 'baseline'"):
        read_promptfoo(write(tmp_path, doc))
    # the same file twice holds every result twice
    with pytest.raises(ValueError, match=r"repeat a \(test, provider\)"):
        read_promptfoo([FIXTURE, FIXTURE])


def test_a_test_index_for_two_different_tests_is_an_error(tmp_path: Path) -> None:
    doc = raw()
    for r in doc["results"]["results"]:
        if (r["testIdx"], r["provider"]["label"]) == (1, "candidate"):
            r["vars"] = {"question": "3 + 3", "answer": "6"}
    with pytest.raises(ValueError, match=r"Test 1 is not the same test.*'baseline'.*'candidate'"):
        read_promptfoo(write(tmp_path, doc))


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("{not json", r"is not JSON"),
        ("[1, 2]", r"is not a promptfoo results file.*results\.results"),
        ('{"results": {"version": 3}}', r"is not a promptfoo results file"),
        ('{"results": {"results": []}}', r"holds no results"),
        ('{"results": {"results": [3]}}', r"results\.results\[0\] is a int"),
    ],
)
def test_a_malformed_file_names_the_file_and_the_fault(
    tmp_path: Path, content: str, words: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ValueError, match=words) as err:
        read_promptfoo(path)
    assert str(path) in str(err.value)


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("testIdx", None, r"results\.results\[2\] has no test index"),
        ("testIdx", "1", r"has no test index \(testIdx '1'\)"),
        ("provider", {}, r"results\.results\[2\] names no provider"),
        ("score", "high", r"results\.results\[2\]: the score is a str \(high\), not a number"),
        ("success", "yes", r"results\.results\[2\]: `success` is 'yes'"),
    ],
)
def test_a_malformed_result_names_the_file_and_the_result(
    tmp_path: Path, field: str, value: Any, words: str
) -> None:
    doc = raw()
    doc["results"]["results"][2][field] = value
    path = write(tmp_path, doc)
    with pytest.raises(ValueError, match=words) as err:
        read_promptfoo(path)
    assert str(path) in str(err.value)


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"No such file.*nowhere\.json"):
        read_promptfoo(tmp_path / "nowhere.json")
    with pytest.raises(FileNotFoundError, match=r"is not a file"):
        read_promptfoo(tmp_path)


# --------------------------------------------------------------------------- command line
def run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def test_the_command_line_compares_two_providers_of_one_file(tmp_path: Path) -> None:
    want = hand(raw())
    code, _, err = run_cli(["compare", "--promptfoo", str(FIXTURE), "--a", "candidate",
                            "--b", "baseline", "--missing", "complete-case", "--seed", "0",
                            "--resamples", "200", "--permutations", "200",
                            "--out", str(tmp_path)])  # fmt: skip
    assert code == 0, err
    art = json.loads((tmp_path / "comparison.json").read_text(encoding="utf-8"))
    kept = [i for i in range(6) if want[(i, "candidate")]["failureReason"] != 2]
    a = np.mean([float(want[(i, "candidate")]["score"]) for i in kept])
    b = np.mean([float(want[(i, "baseline")]["score"]) for i in kept])
    assert art["models"] == {"a": "candidate", "b": "baseline"}
    assert art["n_cases"] == 5
    assert art["missing"]["n_missing_a"] == 1
    assert math.isclose(art["metric_a"], a)
    assert math.isclose(art["metric_b"], b)
    assert math.isclose(art["improvement_a_over_b"], a - b)
    digest = hashlib.sha256(FIXTURE.read_bytes()).hexdigest()
    assert art["local"]["inputs"] == [{"path": str(FIXTURE), "sha256": digest}]


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        ([], r"--promptfoo needs --a and --b"),
        (["--a", "candidate", "--b", "nobody"],
         r"no provider 'nobody' in .*results\.json; its providers: 'baseline', 'candidate'"),
        (["--a", "candidate", "--b", "baseline", "--metric", "nope"],
         r"Unknown metric 'nope'.*'brevity', 'correct'"),
        (["--names", "x", "y"], r"--names does not apply to --promptfoo"),
    ],
)  # fmt: skip
def test_the_command_line_says_what_is_wrong_in_one_line(extra: list[str], words: str) -> None:
    code, out, err = run_cli(["compare", "--promptfoo", str(FIXTURE), *extra])
    assert code == 2
    assert out == ""
    (line,) = err.splitlines()
    assert line.startswith("error: ")
    assert re.search(words, line), line
