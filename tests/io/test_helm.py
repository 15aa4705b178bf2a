"""pdpaired.io.read_helm: HELM run directories in, the long table out.

The fixture tests/data/helm/runs is helm-run's own output (crfm-helm 0.5.16,
offline: HELM's SimpleClient as simple/model1 and, registered under a second
name, simple/model2) on the simple_mcqa scenario: 4 instances, each also
lower-cased, in 2 train trials (its README says how it was made). Every
number is checked against a hand parse of the same files with plain
``json``; the edge cases edit a copy of them.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import math
import re
import shutil
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import pdpaired
from pdpaired.cli.main import main
from pdpaired.io import read_helm

RUNS = Path(__file__).resolve().parents[1] / "data" / "helm" / "runs"
MODEL1, MODEL2 = RUNS / "simple_model1", RUNS / "simple_model2"
TASK = "simple_mcqa:data_augmentation=lower,num_train_trials=2"  # the run name without model=
HOSTILE = "evil\x1b[31m\n# heading | [link](http://x) `code` <b>\u202e"

# 4 instances in 4 groups: pdpaired warns that so few units make a poor bootstrap;
# reading the files is these tests' subject
pytestmark = pytest.mark.filterwarnings(
    "ignore:Only 4 resampling units:pdpaired.DegenerateDataWarning"
)


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def hand(run: Path, stat: str) -> dict[tuple[str, str | None, int], float | None]:
    """(instance id, perturbation name, train trial) -> the stat's mean (the oracle)."""
    out: dict[tuple[str, str | None, int], float | None] = {}
    for rec in load(run / "per_instance_stats.json"):
        pert = rec.get("perturbation")
        key = (rec["instance_id"], None if pert is None else pert["name"],
               rec["train_trial_index"])  # fmt: skip
        for s in rec["stats"]:
            if s["name"]["name"] == stat:
                out[key] = s.get("mean")
    return out


def copy_run(tmp_path: Path, run: Path = MODEL1, name: str | None = None) -> Path:
    dest = tmp_path / (name or run.name)
    shutil.copytree(run, dest)
    return dest


def edit(path: Path, change: Any) -> None:
    doc = load(path)
    change(doc)
    path.write_text(json.dumps(doc), encoding="utf-8")


# --------------------------------------------------------------------------- the fixture
def test_the_fixture_is_read_exactly() -> None:
    df = read_helm(RUNS, metric="inference_runtime")
    assert list(df.columns) == ["case_id", "model", "task", "instance_id", "perturbation",
                                "train_trial", "split", "score", "error"]  # fmt: skip
    assert df["score"].dtype == np.float64
    assert df["train_trial"].dtype == np.int64
    n = 0
    for run in (MODEL1, MODEL2):
        model = load(run / "run_spec.json")["adapter_spec"]["model"]
        want = hand(run, "inference_runtime")
        states = load(run / "scenario_state.json")["request_states"]
        assert len(want) == len(states) == 16  # 4 instances x (original, lowercase) x 2 trials
        got = df[df["model"] == model]
        assert len(got) == len(want)  # every record kept, none added
        n += len(got)
        for row in got.itertuples():
            pert = None if pd.isna(row.perturbation) else row.perturbation
            assert row.score == want[(row.instance_id, pert, row.train_trial)]
            assert row.task == TASK
            assert row.case_id == f"{TASK}/{row.instance_id}" + ("" if pert is None else f"/{pert}")
            assert row.split == "test"
            assert pd.isna(row.error)
    assert n == len(df) == 32
    assert set(df["model"]) == {"simple/model1", "simple/model2"}
    assert sorted(set(df["instance_id"])) == ["id38", "id41", "id60", "id74"]
    assert set(df["perturbation"].dropna()) == {"lowercase"}
    assert df.attrs["metric"] == "inference_runtime"
    assert df.attrs["higher_is_better"] is None
    assert df.attrs["source_files"] == [str(run / f) for run in (MODEL1, MODEL2) for f in
                                        ("run_spec.json", "per_instance_stats.json",
                                         "scenario_state.json")]  # fmt: skip


def test_exact_match_of_the_fixture_is_every_record_s() -> None:
    # HELM's SimpleClient answers every question wrong: 0 for every record of both runs
    df = read_helm([MODEL1, MODEL2], metric="exact_match")
    for run in (MODEL1, MODEL2):
        assert sorted(hand(run, "exact_match").values()) == [0.0] * 16
    assert (df["score"] == 0.0).all()
    assert len(df) == 32


def test_a_suite_a_list_and_a_stats_file_read_the_same() -> None:
    suite = read_helm(RUNS, metric="num_prompt_tokens")
    listed = read_helm([MODEL2, MODEL1], metric="num_prompt_tokens")
    files = read_helm([MODEL1 / "per_instance_stats.json", MODEL2], metric="num_prompt_tokens")
    pd.testing.assert_frame_equal(suite, files)
    # the rows are sorted by case; the models in the order read
    key = ["case_id", "train_trial", "model"]
    pd.testing.assert_frame_equal(
        suite.sort_values(key, ignore_index=True), listed.sort_values(key, ignore_index=True)
    )
    assert suite["model"].tolist()[:2] == ["simple/model1", "simple/model2"]
    assert listed["model"].tolist()[:2] == ["simple/model2", "simple/model1"]


def test_a_stat_that_counts_nothing_is_a_missing_outcome() -> None:
    # HELM records training_co2_cost with count 0 (and no mean) for these models
    assert set(hand(MODEL1, "training_co2_cost").values()) == {None}
    df = read_helm(MODEL1, metric="training_co2_cost")
    assert len(df) == 16
    assert df["score"].isna().all()
    assert (df["error"] == "the 'training_co2_cost' stat has no value").all()


# --------------------------------------------------------------------------- missing outcomes
def test_a_statistic_helm_left_out_is_a_missing_outcome(tmp_path: Path) -> None:
    run = copy_run(tmp_path)

    def drop(doc: list[dict[str, Any]]) -> None:  # HELM leaves out a stat that is NaN
        doc[5]["stats"] = [s for s in doc[5]["stats"] if s["name"]["name"] != "exact_match"]

    edit(run / "per_instance_stats.json", drop)
    rec = load(run / "per_instance_stats.json")[5]
    df = read_helm(run, metric="exact_match")
    assert len(df) == 16
    missing = df[df["score"].isna()]
    assert missing[["instance_id", "train_trial"]].values.tolist() == [
        [rec["instance_id"], rec["train_trial_index"]]
    ]
    assert missing["error"].tolist() == ["no 'exact_match' stat"]


def test_a_failed_request_is_a_missing_outcome_with_its_error(tmp_path: Path) -> None:
    run = copy_run(tmp_path)

    def fail(doc: dict[str, Any]) -> None:
        doc["request_states"][2]["result"].update(
            success=False, error="Error: rate limited\n  Traceback: ..."
        )
        del doc["request_states"][7]["result"]  # never run  # fmt: skip

    edit(run / "scenario_state.json", fail)
    states = load(run / "scenario_state.json")["request_states"]
    keys = {(s["instance"]["id"], (s["instance"].get("perturbation") or {}).get("name"),
             s["train_trial_index"]): s for s in states}  # fmt: skip
    df = read_helm(run, metric="exact_match")
    assert len(df) == 16
    bad = {}
    for row in df[df["score"].isna()].itertuples():
        pert = None if pd.isna(row.perturbation) else row.perturbation
        bad[(row.instance_id, pert, row.train_trial)] = row.error
    assert bad == {
        next(k for k, s in keys.items() if s is states[2]): "Error: rate limited",
        next(k for k, s in keys.items() if s is states[7]): "no result (the request was not run)",
    }
    # HELM's own record scores the failed request 0: pdpaired does not take that as an answer
    assert (df["score"].dropna() == 0.0).all()


def test_an_instance_without_statistics_is_a_missing_outcome_with_a_warning(
    tmp_path: Path,
) -> None:
    run = copy_run(tmp_path)
    gone = load(run / "per_instance_stats.json")[3]
    edit(run / "per_instance_stats.json", lambda doc: doc.pop(3))
    with pytest.warns(
        UserWarning, match=rf"no statistics for 1 of the 16.*'{gone['instance_id']}'"
    ):
        df = read_helm(run, metric="exact_match")
    assert len(df) == 16
    row = df[df["score"].isna()].iloc[0]
    assert (row["instance_id"], row["train_trial"]) == (gone["instance_id"],
                                                        gone["train_trial_index"])  # fmt: skip
    assert row["error"] == "absent from per_instance_stats.json"


def test_without_scenario_state_the_records_are_read_with_a_warning(tmp_path: Path) -> None:
    run = copy_run(tmp_path)
    (run / "scenario_state.json").unlink()
    with pytest.warns(UserWarning, match=r"no scenario_state\.json: a request that failed"):
        df = read_helm(run, metric="inference_runtime")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        full = read_helm(MODEL1, metric="inference_runtime")
    pd.testing.assert_frame_equal(df, full)
    assert df.attrs["source_files"] == [str(run / "run_spec.json"),
                                        str(run / "per_instance_stats.json")]  # fmt: skip


# --------------------------------------------------------------------------- comparisons
def test_the_comparison_uses_the_run_means_and_the_instances_as_groups() -> None:
    df = read_helm(RUNS, metric="inference_runtime")
    res = df.paired(repeat="sample", run="train_trial", group="instance_id").bootstrap(
        "simple/model2", "simple/model1", higher_is_better=False, rng=0, n_resamples=200
    )
    means = {}
    for run in (MODEL1, MODEL2):
        per_case: dict[tuple[str, str | None], list[float]] = {}
        for (iid, pert, _), v in hand(run, "inference_runtime").items():
            per_case.setdefault((iid, pert), []).append(v)  # type: ignore[arg-type]
        means[run] = np.mean([np.mean(v) for v in per_case.values()])
    assert res.n_cases == 8
    assert math.isclose(res.metric_a, means[MODEL2])
    assert math.isclose(res.metric_b, means[MODEL1])


def test_labels_are_kept_as_data_and_escaped_by_the_views(tmp_path: Path) -> None:
    run = copy_run(tmp_path, MODEL2)
    edit(run / "run_spec.json", lambda doc: doc["adapter_spec"].update(model=HOSTILE))
    df = read_helm([MODEL1, run], metric="inference_runtime")
    assert set(df["model"]) == {"simple/model1", HOSTILE}  # the label as given, not cleaned
    res = df.paired(repeat="sample", run="train_trial").bootstrap(
        HOSTILE, "simple/model1", higher_is_better=False, rng=0, n_resamples=200
    )
    text = str(res)
    for bad in ("\x1b", "\u202e"):
        assert bad not in text
    for line in text.splitlines():
        assert line.isprintable(), repr(line)
    assert "evil\\x1b[31m\\n# heading" in text


# --------------------------------------------------------------------------- names and keys
def test_task_and_model_can_be_given(tmp_path: Path) -> None:
    df = read_helm(MODEL1, metric="exact_match", model="base", task="mcqa")
    assert set(df["model"]) == {"base"}
    assert set(df["task"]) == {"mcqa"}
    assert df["case_id"].str.startswith("mcqa/id").all()
    # two runs of one model on one task would give a case two scores
    with pytest.raises(ValueError, match=r"32 rows repeat a \(case, model, train trial\)"):
        read_helm([MODEL1, copy_run(tmp_path)], metric="exact_match")
    with pytest.raises(ValueError, match=r"repeat a \(case, model, train trial\)"):
        read_helm([MODEL1, MODEL2], metric="exact_match", model="same")


def test_the_task_is_the_run_name_without_the_model_settings(tmp_path: Path) -> None:
    run = copy_run(tmp_path)
    name = "mmlu:subject=anatomy,model=openai_gpt2,method=joint,model_deployment=x_y"
    edit(run / "run_spec.json", lambda doc: doc.update(name=name))
    assert set(read_helm(run, metric="exact_match")["task"]) == {
        "mmlu:subject=anatomy,method=joint"
    }
    edit(run / "run_spec.json", lambda doc: doc.update(name="simple1:model=simple_model1"))
    assert set(read_helm(run, metric="exact_match")["task"]) == {"simple1"}


def test_instances_sort_by_number_and_perturbations_keep_their_fields(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "run_spec.json").write_text(
        json.dumps({"name": "s:model=m", "adapter_spec": {"model": "m"}})
    )
    stat = {"name": {"name": "em", "split": "valid"}, "count": 1, "sum": 2, "mean": 0.5}
    typo = {"name": "typos", "robustness": True, "fairness": False, "computed_on": "perturbed",
            "prob": 0.1}  # fmt: skip
    recs = [{"instance_id": i, "train_trial_index": 0, "stats": [stat]} for i in ("id10", "id9")]
    recs.append({"instance_id": "id9", "train_trial_index": 0, "perturbation": typo,
                 "stats": [{**stat, "mean": None}]})  # a mean left out: sum / count  # fmt: skip
    (run / "per_instance_stats.json").write_text(json.dumps(recs))
    with pytest.warns(UserWarning, match="no scenario_state"):
        df = read_helm(run, metric="em")
    assert df["case_id"].tolist() == ["s/id9", "s/id9/typos(prob=0.1)", "s/id10"]
    assert df["score"].tolist() == [0.5, 2.0, 0.5]
    assert df["split"].tolist() == ["valid"] * 3


# --------------------------------------------------------------------------- clear errors
def test_an_unknown_metric_lists_the_statistics(tmp_path: Path) -> None:
    with pytest.raises(
        ValueError, match=r"Unknown metric 'accuracy'.*'exact_match', 'exact_match@5'"
    ):
        read_helm(RUNS, metric="accuracy")
    run = copy_run(tmp_path)

    def drop(doc: list[dict[str, Any]]) -> None:
        for rec in doc:
            rec["stats"] = [s for s in rec["stats"] if s["name"]["name"] != "exact_match"]

    edit(run / "per_instance_stats.json", drop)
    with pytest.raises(ValueError, match=r"'exact_match' is in no record of .*simple_model1"):
        read_helm([run, MODEL2], metric="exact_match")


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("{not json", r"per_instance_stats\.json' is not JSON"),
        ('{"a": 1}', r"is not HELM's per_instance_stats\.json: it holds a dict"),
        ("[3]", r"record 0 is a int, not a per-instance record"),
        ('[{"train_trial_index": 0, "stats": []}]', r"record 0 has no instance_id"),
        ('[{"instance_id": "id1", "train_trial_index": -1, "stats": []}]',
         r"record 0 \(instance 'id1'\) has no train_trial_index \(got -1\)"),
        ('[{"instance_id": "id1", "train_trial_index": 0}]',
         r"record 0 \(instance 'id1'\) has no list"),
        ('[{"instance_id": "id1", "train_trial_index": 0, "stats": [{"count": 1}]}]',
         r"record 0 \(instance 'id1'\): stats\[0\] is not a HELM Stat"),
        ('[{"instance_id": "id1", "train_trial_index": 0, "perturbation": "typo", "stats": []}]',
         r"record 0: `perturbation` is typo"),
        ('[{"instance_id": "id1", "train_trial_index": 0, "stats": [{"name": {"name": '
         '"exact_match"}, "count": 1, "mean": "high"}]}]',
         r"record 0 \(instance 'id1'\): stat 'exact_match': the value is a str \(high\)"),
        ('[{"instance_id": "id1", "train_trial_index": 0, "stats": [{"name": {"name": '
         '"exact_match"}, "count": 1, "mean": 1}, {"name": {"name": "exact_match"}, "count": 1, '
         '"mean": 0}]}]', r"two 'exact_match' stats disagree \(1\.0 and 0\.0\)"),
    ],
)  # fmt: skip
def test_a_malformed_stats_file_names_the_file_and_the_record(
    tmp_path: Path, content: str, words: str
) -> None:
    run = copy_run(tmp_path)
    (run / "per_instance_stats.json").write_text(content, encoding="utf-8")
    (run / "scenario_state.json").write_text('{"request_states": []}', encoding="utf-8")
    with pytest.raises(ValueError, match=words) as err:
        read_helm(run, metric="exact_match")
    assert str(run / "per_instance_stats.json") in str(err.value)


@pytest.mark.parametrize(
    ("file", "content", "words"),
    [
        ("run_spec.json", '{"adapter_spec": {"model": "m"}}',
         r"is not a HELM run spec: it has no `name`"),
        ("run_spec.json", '{"name": "s", "adapter_spec": {}}', r"has no adapter_spec\.model"),
        ("run_spec.json", "[", r"run_spec\.json' is not JSON"),
        ("scenario_state.json", "{}", r"lacks the list request_states"),
        ("scenario_state.json", '{"request_states": [{"train_trial_index": 0}]}',
         r"request_states\[0\] has no instance with an id"),
        ("scenario_state.json", '{"request_states": [{"instance": {"id": "id1"}}]}',
         r"request_states\[0\] \(instance 'id1'\) has no train_trial_index"),
    ],
)  # fmt: skip
def test_a_malformed_run_file_names_the_file(
    tmp_path: Path, file: str, content: str, words: str
) -> None:
    run = copy_run(tmp_path)
    (run / file).write_text(content, encoding="utf-8")
    with pytest.raises(ValueError, match=words) as err:
        read_helm(run, metric="exact_match")
    assert str(run / file) in str(err.value)


def test_missing_paths_and_files_are_named(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"No such file or directory.*nowhere"):
        read_helm(tmp_path / "nowhere", metric="exact_match")
    with pytest.raises(FileNotFoundError, match=r"No HELM run in .*neither it nor a directory"):
        read_helm(tmp_path, metric="exact_match")
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(ValueError, match=r"notes\.txt' is not a HELM run directory"):
        read_helm(tmp_path / "notes.txt", metric="exact_match")
    run = copy_run(tmp_path)
    (run / "run_spec.json").unlink()
    with pytest.raises(FileNotFoundError, match=r"has no run_spec\.json"):
        read_helm(run, metric="exact_match")
    with pytest.raises(ValueError, match=r"`path` is an empty list"):
        read_helm([], metric="exact_match")


# --------------------------------------------------------------------------- command line
def run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def test_the_command_line_compares_two_runs(tmp_path: Path) -> None:
    code, _, err = run_cli(["compare", "--helm", str(MODEL2), str(MODEL1), "--metric",
                            "inference_runtime", "--lower-is-better", "--group-column",
                            "instance_id", "--seed", "0", "--resamples", "200",
                            "--permutations", "200", "--out", str(tmp_path)])  # fmt: skip
    assert code == 0, err
    assert "several train trials per instance" in err
    art = json.loads((tmp_path / "comparison.json").read_text(encoding="utf-8"))
    means = {}
    for run in (MODEL1, MODEL2):
        per_case: dict[tuple[str, str | None], list[float]] = {}
        for (iid, pert, _), v in hand(run, "inference_runtime").items():
            per_case.setdefault((iid, pert), []).append(v)  # type: ignore[arg-type]
        means[run] = np.mean([np.mean(v) for v in per_case.values()])
    assert art["models"] == {"a": "simple/model2", "b": "simple/model1"}
    assert art["n_cases"] == 8
    assert math.isclose(art["metric_a"], means[MODEL2])
    assert math.isclose(art["metric_b"], means[MODEL1])
    names = ("run_spec.json", "per_instance_stats.json", "scenario_state.json")
    files = [run / f for run in (MODEL2, MODEL1) for f in names]
    assert art["local"]["inputs"] == [
        {"path": str(f), "sha256": hashlib.sha256(f.read_bytes()).hexdigest()} for f in files
    ]


def test_the_command_line_refuses_runs_of_different_tasks(tmp_path: Path) -> None:
    run = copy_run(tmp_path, MODEL2)
    edit(run / "run_spec.json", lambda doc: doc.update(name="simple_mcqa:model=simple_model2"))
    code, out, err = run_cli(["compare", "--helm", str(run), str(MODEL1), "--metric",
                              "exact_match", "--higher-is-better"])  # fmt: skip
    assert code == 2
    assert out == ""
    assert re.search(r"different tasks \(simple_mcqa and simple_mcqa:data_augmentation", err), err


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        ([], r"--helm needs --metric"),
        (["--metric", "exact_match"], r"do not say whether a higher score is better"),
        (["--metric", "nope", "--higher-is-better"], r"Unknown metric 'nope'.*'exact_match'"),
        (
            ["--metric", "exact_match", "--a", "x", "--b", "y"],
            r"--a and --b name the models of a --long",
        ),
    ],
)
def test_the_command_line_says_what_is_wrong_in_one_line(extra: list[str], words: str) -> None:
    code, out, err = run_cli(["compare", "--helm", str(MODEL2), str(MODEL1), *extra])
    assert code == 2
    assert out == ""
    (line,) = err.splitlines()
    assert line.startswith("error: ")
    assert re.search(words, line), line


def test_the_command_line_takes_two_runs() -> None:
    code, _, err = run_cli(["compare", "--helm", str(MODEL1), "--metric", "exact_match"])
    assert code == 2
    assert "--helm takes two inputs" in err


def test_pdpaired_io_lists_read_helm() -> None:
    assert "read_helm" in pdpaired.io.__all__
    assert read_helm.__module__ == "pdpaired.io"
