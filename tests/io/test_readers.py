"""pdpaired.io: evaluation logs in, the long table out.

The fixtures under tests/data are the harnesses' own output (the scripts that
made them sit beside them): lm-evaluation-harness 0.4.13 ``samples_*.jsonl``
files of two local tasks for two models (``large`` lacks one document), and
inspect_ai 0.3.285 ``.eval`` logs of a local task run with the offline mock
model for two models (``large`` has one failed sample: no score). Every
check of the numbers is against a hand parse of the same files (plain
``json`` for lm-eval, ``inspect_ai.log.read_eval_log`` for inspect) and a
hand alignment by id.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pdpaired
from pdpaired.cli.main import main
from pdpaired.io import inspect_value_to_float, read_inspect, read_lm_eval

DATA = Path(__file__).resolve().parents[1] / "data"


RUNS = DATA / "lm_eval" / "runs"


LOGS = DATA / "inspect"


def samples_file(model: str, task: str) -> Path:
    [path] = (RUNS / model / model).glob(f"samples_{task}_*.jsonl")
    return path


def hand_parse(path: Path, metric: str, filt: str = "none") -> dict[int, float]:
    """doc_id -> metric value, read with plain json (the oracle for the reader)."""
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        if rec["filter"] == filt:
            out[rec["doc_id"]] = float(rec[metric])
    return out


def copy_run(tmp_path: Path) -> Path:
    run = tmp_path / "run"
    shutil.copytree(RUNS / "small" / "small", run)
    return run


@pytest.fixture(scope="module")
def inspect_log():
    pytest.importorskip("inspect_ai")
    from inspect_ai.log import read_eval_log

    return read_eval_log


def hand_inspect(read_eval_log, path: Path, scorer: str = "match") -> dict:
    """(sample id, epoch) -> score by inspect's own value_to_float (None: no score)."""
    from inspect_ai.scorer import value_to_float

    to_float = value_to_float()
    log = read_eval_log(str(path))
    return {
        (s.id, s.epoch): (to_float(s.scores[scorer].value) if s.scores and scorer in s.scores
                          else None)
        for s in log.samples
    }  # fmt: skip


FRESH_RUN = """
import sys
import warnings
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import Score, match, mean, scorer

@scorer(metrics={"exact": [mean()], "length": [mean()]})
def multi():
    async def score(state, target):
        text = state.output.completion
        return Score(value={"exact": "C" if text == target.text else "I",
                            "length": float(len(text))})
    return score

answers = {"a": "1", "b": "5", "c": "3", "d": "9"}

def reply(messages, tools, tool_choice, config):
    key = messages[-1].text[0]
    if key == "c":
        raise RuntimeError("mock failure")
    out = ModelOutput.from_content(model="mockllm/fresh", content=answers[key])
    out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return out

samples = [Sample(id=k, input=f"{k}: say {v}", target=v if k != "b" else "4",
                  metadata={"kind": "odd" if k in "ac" else "even"})
           for k, v in answers.items()]
[log] = eval(Task(dataset=samples, scorer=[match(), multi()]),
             model=get_model("mockllm/fresh", custom_outputs=reply),
             log_dir=sys.argv[1], display="none", fail_on_error=False)
print(log.location)
"""


# the logs are small 0/1 evaluations: with few discordant pairs pdpaired warns that the
# exact test is the one to trust; reading the logs is these tests' subject
pytestmark = pytest.mark.filterwarnings(
    "ignore:The exact binomial test:pdpaired.DegenerateDataWarning"
)


# --------------------------------------------------------------------------- lm-eval
def test_lm_eval_directory_matches_a_hand_parse() -> None:
    df = read_lm_eval(RUNS / "small", metric="acc", tasks=["tiny_arith"])
    want = hand_parse(samples_file("small", "tiny_arith"), "acc")
    assert list(df.columns) == ["case_id", "model", "task", "doc_id", "score"]
    assert len(df) == len(want) == 24
    assert (df["model"] == "small").all()  # the model_name of the run's results file
    assert (df["task"] == "tiny_arith").all()
    assert df["case_id"].tolist() == [f"tiny_arith/{i}" for i in sorted(want)]
    assert dict(zip(df["doc_id"], df["score"], strict=True)) == want
    assert df["score"].dtype == np.float64
    assert df.attrs["metric"] == "acc"
    assert df.attrs["higher_is_better"] is True
    assert df.attrs["source_files"] == [str(samples_file("small", "tiny_arith"))]


def test_lm_eval_file_list_and_model_dir_read_the_same() -> None:
    by_dir = read_lm_eval(RUNS / "small" / "small", metric="acc", tasks="tiny_arith")
    by_file = read_lm_eval([samples_file("small", "tiny_arith")], metric="acc")
    by_path = read_lm_eval(str(samples_file("small", "tiny_arith")), metric="acc", model="x")
    pd.testing.assert_frame_equal(by_dir, by_file)
    assert (by_path["model"] == "x").all()
    pd.testing.assert_frame_equal(by_path.drop(columns="model"), by_file.drop(columns="model"))


def test_lm_eval_numbers_equal_a_hand_alignment() -> None:
    a = hand_parse(samples_file("large", "tiny_arith"), "acc")
    b = hand_parse(samples_file("small", "tiny_arith"), "acc")
    assert set(b) - set(a) == {23}  # the run of `large` lacks document 23
    long = pd.concat(
        [read_lm_eval(RUNS / m, metric="acc", tasks=["tiny_arith"]) for m in ("large", "small")]
    )
    # the missing document is a missing outcome, never silently dropped
    with pytest.raises(pdpaired.PairingError, match=r"tiny_arith/23"):
        long.paired.compare("large", "small", higher_is_better=True)
    res = long.paired.bootstrap(
        "large", "small", higher_is_better=True, missing="complete-case", rng=0, n_resamples=500
    )
    common = sorted(set(a) & set(b))
    assert res.n_cases == len(common) == 23
    assert res.missing.n_missing_a == 1
    assert math.isclose(res.metric_a, np.mean([a[i] for i in common]))
    assert math.isclose(res.metric_b, np.mean([b[i] for i in common]))
    filled = long.paired.compare("large", "small", higher_is_better=True, missing="as-failure")
    assert filled.pairs.loc["tiny_arith/23"].tolist() == [0.0, b[23]]


def test_lm_eval_unknown_metric_lists_the_available_ones() -> None:
    with pytest.raises(ValueError, match=r"Unknown metric 'accuracy'.*acc, acc_norm") as err:
        read_lm_eval(RUNS / "small", metric="accuracy")
    assert "exact_match" in str(err.value)  # every task's metrics are listed
    with pytest.raises(ValueError, match=r"Give `metric`"):
        read_lm_eval(RUNS / "small", tasks=["tiny_arith"])  # acc and acc_norm: ambiguous
    with pytest.raises(ValueError, match=r"not logged for task\(s\) 'tiny_words'.*`tasks=`"):
        read_lm_eval(RUNS / "small", metric="acc")
    with pytest.raises(ValueError, match=r"`tasks`: 'nope' not found.*'tiny_arith'"):
        read_lm_eval(RUNS / "small", metric="acc", tasks=["nope"])


def test_lm_eval_filters() -> None:
    with pytest.raises(ValueError, match=r"2 filters \['first-word', 'none'\]"):
        read_lm_eval(RUNS / "small", tasks=["tiny_words"])
    df = read_lm_eval(RUNS / "small", tasks=["tiny_words"], filter="first-word")
    assert df.attrs["metric"] == "exact_match"  # the only metric: no need to name it
    want = hand_parse(samples_file("small", "tiny_words"), "exact_match", "first-word")
    assert dict(zip(df["doc_id"], df["score"], strict=True)) == want
    none = read_lm_eval(RUNS / "small", tasks=["tiny_words"], filter="none")
    assert (none["score"] == 0).all()  # the unfiltered answers carry a trailing word
    with pytest.raises(ValueError, match=r"`filter` 'strict' is not logged"):
        read_lm_eval(RUNS / "small", tasks=["tiny_words"], filter="strict")


def test_lm_eval_output_path_with_two_models_is_refused(tmp_path: Path) -> None:
    # one --output_path for two models: the harness makes a directory per model in it
    for m in ("small", "large"):
        shutil.copytree(RUNS / m / m, tmp_path / m)
    with pytest.raises(ValueError, match=r"several runs \('large', 'small'\)"):
        read_lm_eval(tmp_path, metric="acc")


def test_lm_eval_record_without_a_score_is_nan_not_dropped(tmp_path: Path) -> None:
    run = copy_run(tmp_path)
    path = next(run.glob("samples_tiny_arith_*.jsonl"))
    recs = [json.loads(x) for x in path.read_text().splitlines()]
    recs[3]["acc"] = None
    del recs[5]["acc"]
    recs[7]["acc"] = float("nan")
    path.write_text("\n".join(json.dumps(r) for r in recs) + "\n")
    df = read_lm_eval(run, metric="acc", tasks=["tiny_arith"])
    assert len(df) == 24
    assert df.loc[df["score"].isna(), "doc_id"].tolist() == [3, 5, 7]
    orig = hand_parse(samples_file("small", "tiny_arith"), "acc")
    kept = df.dropna(subset=["score"])
    assert all(orig[d] == s for d, s in zip(kept["doc_id"], kept["score"], strict=True))


def test_lm_eval_corpus_metric_is_refused(tmp_path: Path) -> None:
    run = copy_run(tmp_path)
    path = next(run.glob("samples_tiny_words_*.jsonl"))
    recs = [json.loads(x) for x in path.read_text().splitlines()]
    for r in recs:  # what bleu logs per sample: the (reference, prediction) pair
        r["metrics"] = ["bleu"]
        r["bleu"] = [r["target"], r["filtered_resps"]]
    path.write_text("\n".join(json.dumps(r) for r in recs) + "\n")
    with pytest.raises(ValueError, match=r"'bleu'.*list per sample.*corpus"):
        read_lm_eval(run, metric="bleu", filter="none", tasks=["tiny_words"])


def test_lm_eval_latest_run_per_task_in_a_directory(tmp_path: Path) -> None:
    run = copy_run(tmp_path)
    path = next(run.glob("samples_tiny_arith_*.jsonl"))
    older = run / "samples_tiny_arith_2020-01-01T00-00-00.000000.jsonl"
    recs = [json.loads(x) for x in path.read_text().splitlines()]
    older.write_text("\n".join(json.dumps({**r, "acc": 1 - r["acc"]}) for r in recs) + "\n")
    with pytest.warns(
        UserWarning, match=r"reading the latest.*ignoring samples_tiny_arith_2020"
    ) as record:
        df = read_lm_eval(run, metric="acc", tasks=["tiny_arith"])
    assert record[0].filename == __file__  # the warning points at the caller's line
    pd.testing.assert_frame_equal(
        df, read_lm_eval([path], metric="acc", model="small"), check_like=True
    )
    with pytest.raises(ValueError, match=r"Task 'tiny_arith' comes from 2 files"):
        read_lm_eval([path, older], metric="acc")


def test_lm_eval_task_is_a_stratum_and_a_slice(tmp_path: Path) -> None:
    # a second task with the same documents, so one metric spans two tasks
    frames = []
    for m in ("large", "small"):
        d = tmp_path / m
        d.mkdir()
        src = samples_file(m, "tiny_arith")
        shutil.copy(src, d / src.name)
        shutil.copy(src, d / src.name.replace("tiny_arith", "tiny_arith_copy"))
        frames.append(read_lm_eval(d, metric="acc", model=m))
    long = pd.concat(frames)
    assert sorted(long["task"].unique()) == ["tiny_arith", "tiny_arith_copy"]
    assert long["case_id"].is_unique is False  # one row per model
    assert not long.duplicated(["case_id", "model"]).any()  # doc ids do not collide
    cmp = long.paired(stratum="task").compare(
        "large", "small", higher_is_better=True, missing="complete-case"
    )
    res = cmp.bootstrap(n_resamples=200, rng=0)
    assert res.n_strata == 2
    assert res.n_cases == 46
    sl = cmp.by_slice("task", min_size=5)
    assert set(sl.table["value"].dropna()) >= {"tiny_arith", "tiny_arith_copy"}


def test_lm_eval_bad_input(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="No such file"):
        read_lm_eval(tmp_path / "absent", metric="acc")
    with pytest.raises(FileNotFoundError, match="--log_samples"):
        read_lm_eval(tmp_path, metric="acc")
    bad = tmp_path / "samples_t_2026-01-01T00-00-00.0.jsonl"
    bad.write_text('{"doc_id": 0, "acc": 1}\nnot json\n')
    with pytest.raises(ValueError, match="line 2 is not JSON"):
        read_lm_eval(bad, metric="acc")
    csv = tmp_path / "x.csv"
    csv.write_text("a\n")
    with pytest.raises(ValueError, match="not an lm-evaluation-harness samples"):
        read_lm_eval(csv, metric="acc")
    with pytest.raises(ValueError, match="empty list"):
        read_lm_eval([], metric="acc")


# --------------------------------------------------------------------------- inspect_ai
def test_inspect_value_to_float_without_inspect() -> None:
    values = ["C", "P", "I", "N", "yes", "No", "TRUE", "false", "0.25", " 2 ", "-1e3", 3, 2.5,
              True, False, None, float("nan"), "maybe", "inf", ""]  # fmt: skip
    got = [inspect_value_to_float(v) for v in values]
    want = [1, 0.5, 0, 0, 1, 0, 1, 0, 0.25, 2, -1000, 3, 2.5, 1, 0] + [math.nan] * 5
    np.testing.assert_array_equal(got, want)
    with pytest.raises(TypeError, match="dict"):
        inspect_value_to_float({"a": 1})


def test_inspect_value_to_float_agrees_with_inspect() -> None:
    pytest.importorskip("inspect_ai")
    from inspect_ai.scorer import value_to_float

    to_float = value_to_float()
    for v in ["C", "P", "I", "N", "yes", "No", "TRUE", "false", "0.25", "-1e3", 3, 2.5, True]:
        assert inspect_value_to_float(v) == to_float(v), v


def test_read_inspect_without_inspect_ai(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "inspect_ai", None)
    monkeypatch.setitem(sys.modules, "inspect_ai.log", None)
    with pytest.raises(ImportError, match=r"pdpaired\[inspect\]"):
        read_inspect(LOGS / "small.eval")


def test_read_inspect_matches_inspect(inspect_log) -> None:
    df = read_inspect(LOGS / "small.eval")
    want = hand_inspect(inspect_log, LOGS / "small.eval")
    assert list(df.columns[:6]) == ["case_id", "model", "epoch", "score", "task", "error"]
    assert len(df) == len(want) == 20
    assert dict(zip(zip(df["case_id"], df["epoch"], strict=True), df["score"], strict=True)) == want
    assert (df["model"] == "mockllm/small").all()
    assert (df["task"] == "tiny_sums").all()
    assert df["error"].isna().all()
    assert df.attrs == {"scorer": "match", "higher_is_better": True,
                        "source_files": [str(LOGS / "small.eval")]}  # fmt: skip
    log = inspect_log(str(LOGS / "small.eval"))
    meta = pd.DataFrame([s.metadata for s in log.samples])
    pd.testing.assert_frame_equal(
        df[["level", "topic", "digits"]].reset_index(drop=True), meta, check_dtype=False
    )


def test_read_inspect_failed_sample_is_a_missing_outcome(inspect_log) -> None:
    large = read_inspect(LOGS / "large.eval")
    assert len(large) == 20  # the failed sample keeps its row
    miss = large[large["score"].isna()]
    assert miss["case_id"].tolist() == ["q07"]
    assert "mock API failure on q07" in miss["error"].iloc[0]
    assert miss["level"].iloc[0] == "hard"  # its metadata too
    long = pd.concat([large, read_inspect(LOGS / "small.eval")])
    with pytest.raises(pdpaired.PairingError, match=r"q07"):
        long.paired.compare("mockllm/large", "mockllm/small", higher_is_better=True)
    # the numbers against a hand alignment by sample id
    a = hand_inspect(inspect_log, LOGS / "large.eval")
    b = hand_inspect(inspect_log, LOGS / "small.eval")
    assert a[("q07", 1)] is None
    res = long.paired.bootstrap("mockllm/large", "mockllm/small", higher_is_better=True,
                                missing="as-failure", n_resamples=500, rng=0)  # fmt: skip
    ids = sorted(b)
    filled = [0.0 if a[k] is None else a[k] for k in ids]
    assert res.n_cases == 20
    assert res.missing.n_filled == 1
    assert math.isclose(res.metric_a, np.mean(filled))
    assert math.isclose(res.improvement, np.mean(np.subtract(filled, [b[k] for k in ids])))
    cc = long.paired.compare("mockllm/large", "mockllm/small", higher_is_better=True,
                             missing="complete-case")  # fmt: skip
    assert cc.pairs.index.tolist() == [k[0] for k in ids if a[k] is not None]


def test_read_inspect_scorers_and_epochs(inspect_log) -> None:
    path = LOGS / "epochs.eval"
    with pytest.raises(ValueError, match=r"2 scorers \('match', 'graded'\)"):
        read_inspect(path)
    with pytest.raises(ValueError, match=r"Unknown scorer 'nope'.*'match', 'graded'"):
        read_inspect(path, scorer="nope")
    df = read_inspect(path, scorer="graded")
    want = hand_inspect(inspect_log, path, "graded")
    assert len(df) == 12
    assert sorted(df["epoch"].unique()) == [1, 2]
    assert dict(zip(zip(df["case_id"], df["epoch"], strict=True), df["score"], strict=True)) == want
    assert set(df["score"]) <= {0.0, 0.5, 1.0}
    log = inspect_log(str(path))
    raw = {s.scores["graded"].value for s in log.samples}
    assert raw >= {"C", "I"}  # the letter grades are exercised
    assert raw & {"P", "N"}
    # one row per (sample, epoch): a per-case mean for a comparison
    per_case = df.groupby(["case_id", "model"], as_index=False)["score"].mean()
    assert len(per_case) == 6


def edited_log(tmp_path: Path, name: str, edit, out: str = "edited.eval") -> Path:
    """A copy of a committed log, its samples or status edited, written by inspect_ai."""
    from inspect_ai.log import read_eval_log, write_eval_log

    log = read_eval_log(str(LOGS / name))
    edit(log)
    write_eval_log(log, str(tmp_path / out))
    return tmp_path / out


def test_read_inspect_an_absent_epoch_is_a_missing_outcome_not_an_average(
    inspect_log, tmp_path: Path
) -> None:
    def lose(log) -> None:
        log.samples = [s for s in log.samples if (s.id, s.epoch) != ("q03", 2)]

    path = edited_log(tmp_path, "epochs.eval", lose)
    with pytest.warns(UserWarning, match=r"lacks 1 \(sample, epoch\) record\(s\) its "
                                         r"configuration promises \(6 samples x 2 epoch\(s\)\): "
                                         r"\('q03', 2\)"):  # fmt: skip
        df = read_inspect(path, scorer="match")
    assert len(df) == 12  # the absent record keeps a row
    row = df[(df["case_id"] == "q03") & (df["epoch"] == 2)]
    assert row["score"].isna().all()
    assert row["error"].tolist() == ["absent from the log"]
    full = read_inspect(LOGS / "epochs.eval", scorer="match")
    kept = df.drop(row.index).sort_values(["case_id", "epoch"]).reset_index(drop=True)
    ref = full.drop(full[(full["case_id"] == "q03") & (full["epoch"] == 2)].index)
    ref = ref.sort_values(["case_id", "epoch"]).reset_index(drop=True)
    assert kept["error"].isna().all()
    pd.testing.assert_frame_equal(kept.drop(columns="error"), ref.drop(columns="error"))
    # the command line's mean over epochs is NaN for q03: --missing error refuses it
    other = edited_log(tmp_path, "epochs.eval", lambda log: None, out="full.eval")
    code = main(["compare", "--inspect", str(path), str(other), "--names", "lost", "full",
                 "--scorer", "match", "--missing", "error"])  # fmt: skip
    assert code == 2


def test_read_inspect_warns_about_a_log_that_did_not_succeed(inspect_log, tmp_path: Path) -> None:
    def stop(log) -> None:
        log.status = "error"
        log.samples = log.samples[:7]

    path = edited_log(tmp_path, "epochs.eval", stop)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        df = read_inspect(path, scorer="match")
    said = [str(w.message) for w in caught]
    assert len(said) == 2
    assert "is a log with status 'error'. It holds 7 of the 12" in said[0]
    assert "lacks 5 (sample, epoch) record(s)" in said[1]
    assert len(df) == 12
    assert int(df["score"].isna().sum()) == 5


def test_read_inspect_a_complete_log_warns_nothing(inspect_log) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name, scorer in (("small.eval", None), ("large.eval", None),
                             ("epochs.eval", "match")):  # fmt: skip
            read_inspect(LOGS / name, scorer=scorer)


def test_read_inspect_several_logs(inspect_log, tmp_path: Path) -> None:
    for name in ("small.eval", "large.eval"):
        shutil.copy(LOGS / name, tmp_path / name)
    both = read_inspect(tmp_path)
    assert len(both) == 40
    assert sorted(both["model"].unique()) == ["mockllm/large", "mockllm/small"]
    assert len(both.attrs["source_files"]) == 2
    pd.testing.assert_frame_equal(both, read_inspect([tmp_path / "large.eval",
                                                      tmp_path / "small.eval"]))  # fmt: skip
    with pytest.raises(ValueError, match=r"hold the same model's samples twice"):
        read_inspect([LOGS / "small.eval", LOGS / "small.eval"])
    renamed = read_inspect(LOGS / "small.eval", model="baseline")
    assert (renamed["model"] == "baseline").all()
    with pytest.raises(FileNotFoundError):
        read_inspect(tmp_path / "absent.eval")


def test_read_inspect_fresh_mock_run(inspect_log, tmp_path: Path) -> None:
    """A log the suite has not seen: a fresh run of inspect's offline mock model."""
    proc = subprocess.run(
        [sys.executable, "-c", FRESH_RUN, str(tmp_path)], capture_output=True, text=True,
        timeout=300, check=False, env={k: v for k, v in os.environ.items()
                                       if k != "PYTHONWARNINGS"} | {"HOME": str(tmp_path)},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    path = proc.stdout.strip().splitlines()[-1]
    with pytest.raises(ValueError, match=r"2 scorers \('match', 'multi'\)"):
        read_inspect(path)
    with pytest.raises(ValueError, match=r"several values per sample.*'exact', 'length'"):
        read_inspect(path, scorer="multi")
    exact = read_inspect(path, scorer="multi/exact")
    assert exact.attrs["scorer"] == "multi/exact"
    assert exact.set_index("case_id")["score"].to_dict() == pytest.approx(
        {"a": 1.0, "b": 0.0, "c": math.nan, "d": 1.0}, nan_ok=True
    )
    length = read_inspect(path, scorer="multi/length")
    assert length.attrs["higher_is_better"] is None  # a number: the direction is not known
    assert length.set_index("case_id")["score"].to_dict() == pytest.approx(
        {"a": 1.0, "b": 1.0, "c": math.nan, "d": 1.0}, nan_ok=True
    )
    df = read_inspect(path, scorer="match")
    scores = df.set_index("case_id")["score"].to_dict()
    assert scores == pytest.approx({"a": 1.0, "b": 0.0, "c": math.nan, "d": 1.0}, nan_ok=True)
    assert df.set_index("case_id")["kind"].to_dict() == {"a": "odd", "b": "even", "c": "odd",
                                                         "d": "even"}  # fmt: skip
    assert "mock failure" in df.set_index("case_id").loc["c", "error"]


def test_read_lm_eval_documents_the_results_file_counts_but_the_samples_lack(
    tmp_path: Path,
) -> None:
    runs = tmp_path / "runs"
    shutil.copytree(RUNS, runs)
    (samples,) = runs.glob("small/small/samples_tiny_arith_*.jsonl")
    kept = [ln for ln in samples.read_text(encoding="utf-8").splitlines()
            if json.loads(ln)["doc_id"] not in (5, 9)]  # fmt: skip
    samples.write_text("\n".join(kept) + "\n", encoding="utf-8")
    with pytest.warns(UserWarning, match=r"lacks 2 of the 24 documents of task 'tiny_arith' its "
                                         r"results file counts \(doc_id 5, 9\)"):  # fmt: skip
        df = read_lm_eval(runs / "small", tasks=["tiny_arith"], metric="acc")
    assert len(df) == 24
    assert df.loc[df["score"].isna(), "case_id"].tolist() == ["tiny_arith/5", "tiny_arith/9"]
    code = main(["compare", "--lm-eval", str(runs / "small"), str(runs / "large"),
                 "--tasks", "tiny_arith", "--metric", "acc", "--missing", "error"])  # fmt: skip
    assert code == 2


def test_read_lm_eval_a_complete_run_warns_nothing() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        df = read_lm_eval(RUNS / "small", tasks=["tiny_arith"], metric="acc")
    assert not df["score"].isna().any()
