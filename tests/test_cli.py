"""The ``pdpaired`` command line, run as a subprocess as a new user would run it.

The installed console script (``<venv>/bin/pdpaired``) and ``python -m
pdpaired`` are started in subprocesses. Every run is launched up front by two
module fixtures, concurrently (each costs an interpreter start and the pandas
import), and the tests read the results:

* good runs: the two-file layout (regression ``rmse``; binary ``auroc`` with
  string class labels and slices with uncertainty; multiclass with one
  probability column per class) and the long layout in score mode with a
  group column; the artifacts written with ``--out`` verify, equal the Python
  API's for the same seed, and the shareable one holds none of the canaries
  planted in the inputs (case ids, targets, predictions, a row-level column,
  the input directory's name);
* ``pdpaired verify``: exit status 0 on a good artifact, 2 on a tampered one;
* bad input: exit status 2, a message on stderr, no traceback, nothing on
  stdout, and no ``--out`` directory.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
import pytest
from sklearn import metrics as skm

import pdpaired

FAST = ["--resamples", "200", "--permutations", "200"]
FILES = {"comparison.json", "comparison.shareable.json", "comparison.md"}
CANARY_DIR = "inputs-CANARY-PATH-5e1d"


def console_script() -> str | None:
    """The ``pdpaired`` entry point installed next to this interpreter (else on PATH)."""
    here = Path(sys.executable).parent / "pdpaired"
    if here.is_file() and os.access(here, os.X_OK):
        return str(here)
    return shutil.which("pdpaired")


SCRIPT = console_script()
NO_SCRIPT = "the `pdpaired` console script is not installed (pip install -e . creates it)"


class Run(NamedTuple):
    returncode: int
    stdout: str
    stderr: str


def command(args: list[str], via: str) -> list[str]:
    if via == "module":
        return [sys.executable, "-m", "pdpaired", *args]
    assert SCRIPT is not None
    return [SCRIPT, *args]


def run_all(jobs: dict[str, tuple[list[str], str]], cwd: Path) -> dict[str, Run]:
    """Run every ``name -> (args, via)`` job in a subprocess, concurrently."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONWARNINGS"}

    def one(job: tuple[list[str], str]) -> Run:
        args, via = job
        if via == "script" and SCRIPT is None:
            return Run(-1, "", NO_SCRIPT)
        proc = subprocess.run(
            command(args, via), cwd=cwd, env=env, capture_output=True, text=True,
            timeout=180, check=False,
        )  # fmt: skip
        return Run(proc.returncode, proc.stdout, proc.stderr)

    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        results = dict(zip(jobs, pool.map(one, jobs.values()), strict=True))
    return results


def get(runs: dict[str, Run], name: str) -> Run:
    """The run called ``name``; skip the test when it needed the missing console script."""
    run = runs[name]
    if run.returncode == -1 and run.stderr == NO_SCRIPT:
        pytest.skip(NO_SCRIPT)
    return run


def load(path: Path) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return out


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def digest_of(art: dict[str, Any]) -> str:
    body = {k: v for k, v in art.items() if k != "digest"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def assert_ok(run: Run) -> None:
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr, run.stderr


def assert_bad(run: Run, *words: str, stdout_empty: bool = True) -> None:
    assert run.returncode == 2, (run.returncode, run.stderr)
    assert "Traceback" not in run.stderr, run.stderr
    assert run.stderr.strip(), "no message on stderr"
    assert "error" in run.stderr.lower(), run.stderr
    for word in words:
        assert word in run.stderr, (word, run.stderr)
    if stdout_empty:
        assert run.stdout == "", run.stdout


# --------------------------------------------------------------------------- data
def write_inputs(root: Path) -> dict[str, Path]:
    d = root / CANARY_DIR
    d.mkdir()
    rng = np.random.default_rng(2024)
    files: dict[str, Path] = {}

    def put(name: str, frame: pd.DataFrame) -> None:
        files[name] = d / f"{name}.csv"
        frame.to_csv(files[name], index=False)

    # regression, full of canaries
    n = 40
    ids = [f"CANARY-ID-7f3a-{i:03d}" for i in range(n)]
    y = rng.integers(-5, 6, n) + 0.123456789
    reg = pd.DataFrame(
        {
            "sample_id": ids,
            "y": y,
            "pred": np.round(y + rng.normal(0, 0.4, n), 2) + 0.0000271828,
            "site": np.where(np.arange(n) % 2 == 0, "north", "south"),
            "note": [f"CANARY-META-c0ffee-{i:03d}" for i in range(n)],
        }
    )
    reg_b = reg.assign(pred=np.round(y + rng.normal(0, 0.8, n), 2) + 0.0000314159)
    put("reg_a", reg)
    put("reg_b", reg_b)
    put("reg_a_dup", pd.concat([reg, reg.iloc[[4]]]))
    put("reg_b_short", reg_b.iloc[1:])
    put("reg_b_disagree", reg_b.assign(y=reg_b["y"].where(reg_b.index != 6, 99.5)))
    put("reg_a_no_target", reg.drop(columns="y"))

    # binary, string labels, a slice column
    n = 90
    yb = rng.uniform(size=n) < 0.5
    z = rng.normal(size=(2, n))
    spam = pd.DataFrame(
        {
            "case_id": np.arange(n) + 1000,
            "label": np.where(yb, "spam", "ham"),
            "p_spam": np.round(1 / (1 + np.exp(-(1.5 * (2 * yb - 1) + z[0]))), 3),
            "site": rng.choice(["north", "south", "east"], n),
        }
    )
    put("spam_new", spam)
    put("spam_old", spam.assign(p_spam=np.round(1 / (1 + np.exp(-(0.6 * (2 * yb - 1) + z[1]))), 3)))

    # multiclass, one probability column per class
    n, labels = 60, np.array(["cat", "dog", "bird"])
    k = rng.integers(0, 3, n)
    for name, strength in (("mc_a", 2.0), ("mc_b", 0.8)):
        logits = rng.normal(size=(n, 3)) + strength * np.eye(3)[k]
        prob = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
        frame = pd.DataFrame(prob, columns=["p_cat", "p_dog", "p_bird"])
        frame.insert(0, "y", labels[k])
        frame.insert(0, "case_id", np.arange(n))
        put(name, frame)

    # long layout, binary per-case scores, prompt groups
    n = 60
    group = np.arange(n) // 4
    a = (rng.uniform(size=n) < 0.75).astype(int)
    b = (rng.uniform(size=n) < 0.5).astype(int)
    put(
        "long",
        pd.concat(
            [
                pd.DataFrame(
                    {"case_id": np.arange(n), "model": m, "score": s, "prompt_group": group}
                )
                for m, s in (("cand", a), ("base", b))
            ],
            ignore_index=True,
        ),
    )

    files["empty"] = d / "empty.csv"
    files["empty"].write_bytes(b"")
    files["garbage"] = d / "garbage.csv"
    files["garbage"].write_bytes(bytes(range(128, 256)) * 16)
    files["not_json"] = d / "not_json.json"
    files["not_json"].write_text("{not json", encoding="utf-8")
    files["a_file"] = d / "a_file.txt"
    files["a_file"].write_text("I am a file, not a directory\n", encoding="utf-8")
    return files


REG = ["--id-column", "sample_id", "--target", "y", "--prediction-column", "pred", "--metric",
       "rmse"]  # fmt: skip


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cli")


@pytest.fixture(scope="module")
def inputs(work: Path) -> dict[str, Path]:
    return write_inputs(work)


# name -> (how it is run, words its message must contain, arguments); "{x}" is the
# path of input x. ``compare`` runs also get --resamples, --seed and their own --out.
BAD_CASES: dict[str, tuple[str, tuple[str, ...], list[str]]] = {
    "missing-file": ("script", ("nope.csv",), ["compare", "{nope}", "{reg_b}", *REG]),
    "empty-csv": ("script", ("empty.csv",), ["compare", "{empty}", "{reg_b}", *REG]),
    "garbage-csv": ("module", ("garbage.csv",), ["compare", "{garbage}", "{reg_b}", *REG]),
    "missing-id-column": (
        "script", ("--id-column nope", "no such column"),
        ["compare", "{reg_a}", "{reg_b}", "--id-column", "nope", *REG[2:]],
    ),
    "missing-target-column": (
        "script", ("truth",),
        ["compare", "{reg_a}", "{reg_b}", *REG[:2], "--target", "truth", *REG[4:]],
    ),
    "missing-prediction-column": (
        "script", ("yhat",),
        ["compare", "{reg_a}", "{reg_b}", *REG[:4], "--prediction-column", "yhat", *REG[6:]],
    ),
    "target-in-one-file-only": (
        "script", ("'y'",), ["compare", "{reg_a_no_target}", "{reg_b}", *REG],
    ),
    "duplicate-ids": (
        "script", ("CANARY-ID-7f3a-004",), ["compare", "{reg_a_dup}", "{reg_b}", *REG],
    ),
    "ids-in-one-file-only": (
        "module", ("CANARY-ID-7f3a-000",), ["compare", "{reg_a}", "{reg_b_short}", *REG],
    ),
    "targets-disagree": (
        "script", ("CANARY-ID-7f3a-006",), ["compare", "{reg_a}", "{reg_b_disagree}", *REG],
    ),
    "task-type-contradicts-metric": (
        "script", ("--task-type", "regression"),
        ["compare", "{reg_a}", "{reg_b}", *REG, "--task-type", "binary"],
    ),
    "long-without-a-b": (
        "script", ("--a", "--b"),
        ["compare", "{long}", "--long", "--score", "score", "--higher-is-better"],
    ),
    "long-with-two-files": (
        "script", ("--long",),
        ["compare", "{reg_a}", "{reg_b}", "--long", "--a", "x", "--b", "y", "--score", "pred",
         "--higher-is-better"],
    ),
    "a-b-without-long": (
        "script", ("--names",), ["compare", "{reg_a}", "{reg_b}", *REG, "--a", "x", "--b", "y"],
    ),
    "names-with-long": (
        "script", ("--a", "--b"),
        ["compare", "{long}", "--long", "--names", "cand", "base", "--score", "score",
         "--higher-is-better"],
    ),
    "one-file": ("script", ("two",), ["compare", "{reg_a}", *REG]),
    "no-metric": ("script", ("--metric",), ["compare", "{reg_a}", "{reg_b}", *REG[:6]]),
    "unknown-metric": (
        "script", ("rmsle",), ["compare", "{reg_a}", "{reg_b}", *REG[:6], "--metric", "rmsle"],
    ),
    "unknown-flag": ("script", ("--bogus",), ["compare", "{reg_a}", "{reg_b}", *REG, "--bogus"]),
    "no-command": ("script", ("command",), []),
    "verify-not-json": ("script", ("not_json.json", "not valid JSON"), ["verify", "{not_json}"]),
    "verify-missing": ("module", ("nope.csv",), ["verify", "{nope}"]),
    "verify-csv": ("script", ("reg_a.csv", "not valid JSON"), ["verify", "{reg_a}"]),
    "verify-binary": ("script", ("garbage.csv",), ["verify", "{garbage}"]),
}  # fmt: skip


def bad_args(name: str, files: dict[str, Path], out: Path) -> list[str]:
    _, _, args = BAD_CASES[name]
    paths = {**{k: str(v) for k, v in files.items()}, "nope": str(out.parent / "nope.csv")}
    resolved = [paths[a[1:-1]] if a.startswith("{") else a for a in args]
    if resolved[:1] == ["compare"]:
        resolved += [*FAST, "--seed", "0", "--out", str(out / name)]
    return resolved


GOOD = {
    "regression": "script",
    "regression-module": "module",
    "binary": "script",
    "multiclass": "module",
    "long": "script",
    "help": "script",
    "compare-help": "script",
    "verify-help": "module",
}


@pytest.fixture(scope="module")
def runs(work: Path, inputs: dict[str, Path]) -> dict[str, Run]:
    f, out = inputs, work / "out"
    out.mkdir()
    good: dict[str, tuple[list[str], str]] = {
        "regression": (["compare", str(f["reg_a"]), str(f["reg_b"]), "--names", "ridge", "lasso",
                        *REG, "--task-type", "regression", *FAST, "--seed", "0",
                        "--out", str(out / "regression")], GOOD["regression"]),
        "regression-module": (["compare", str(f["reg_a"]), str(f["reg_b"]), "--names", "ridge",
                               "lasso", *REG, "--task-type", "regression", *FAST, "--seed", "0"],
                              GOOD["regression-module"]),
        "binary": (["compare", str(f["spam_new"]), str(f["spam_old"]), "--target", "label",
                    "--prediction-column", "p_spam", "--task-type", "binary", "--metric", "auroc",
                    "--class-labels", "ham", "spam", "--slice-columns", "site",
                    "--include-slice-uncertainty", "--min-slice-size", "10", *FAST, "--seed", "1",
                    "--out", str(out / "binary")], GOOD["binary"]),
        "multiclass": (["compare", str(f["mc_a"]), str(f["mc_b"]), "--target", "y",
                        "--prediction-columns", "p_cat", "p_dog", "p_bird", "--class-labels",
                        "cat", "dog", "bird", "--task-type", "multiclass", "--metric", "log_loss",
                        *FAST, "--seed", "2", "--out", str(out / "multiclass")],
                       GOOD["multiclass"]),
        "long": (["compare", str(f["long"]), "--long", "--a", "cand", "--b", "base", "--score",
                  "score", "--higher-is-better", "--group-column", "prompt_group", *FAST,
                  "--seed", "3", "--out", str(out / "long")], GOOD["long"]),
        "help": (["--help"], GOOD["help"]),
        "compare-help": (["compare", "--help"], GOOD["compare-help"]),
        "verify-help": (["verify", "--help"], GOOD["verify-help"]),
    }  # fmt: skip
    bad = {name: (bad_args(name, f, out), via) for name, (via, _, _) in BAD_CASES.items()}
    for name, target in (("out-is-a-file", f["a_file"]), ("out-under-a-file", f["a_file"] / "x")):
        bad[name] = (["compare", str(f["reg_a"]), str(f["reg_b"]), *REG, *FAST,
                      "--out", str(target)], "script")  # fmt: skip
    return run_all({**good, **bad}, cwd=work)


@pytest.fixture(scope="module")
def verify_runs(work: Path, runs: dict[str, Run]) -> dict[str, Run]:
    """``pdpaired verify`` on the artifacts written above, good and tampered."""
    out = work / "out" / "regression"
    assert_ok(get(runs, "regression"))
    share = load(out / "comparison.shareable.json")
    bad = work / "tampered"
    bad.mkdir()

    def tampered(name: str, edit: Any, *, redigest: bool) -> str:
        art = copy.deepcopy(share)
        edit(art)
        if redigest:
            art["digest"] = digest_of(art)
        path = bad / f"{name}.json"
        path.write_text(json.dumps(art), encoding="utf-8")
        return str(path)

    def flip(art: dict[str, Any]) -> None:
        art["improvement_a_over_b"] = -art["improvement_a_over_b"]

    def version(art: dict[str, Any]) -> None:
        art["artifact"] = "paired-comparison-artifact/v2"

    def pvalue(art: dict[str, Any]) -> None:
        art["randomization"]["pvalue"] /= 2

    jobs = {
        "shareable": (["verify", str(out / "comparison.shareable.json")], "script"),
        "local": (["verify", str(out / "comparison.json")], "module"),
        "long-local": (["verify", str(work / "out" / "long" / "comparison.json")], "script"),
        "flipped-sign": (["verify", tampered("flip", flip, redigest=True)], "script"),
        "edited-pvalue": (["verify", tampered("pvalue", pvalue, redigest=False)], "script"),
        "wrong-version": (["verify", tampered("version", version, redigest=True)], "module"),
    }
    return run_all(jobs, cwd=work)


# --------------------------------------------------------------------------- good runs
def test_regression_two_files_writes_three_artifacts_that_verify(
    runs: dict[str, Run], work: Path
) -> None:
    run = get(runs, "regression")
    assert_ok(run)
    out = work / "out" / "regression"
    assert {p.name for p in out.iterdir()} == FILES
    for name in ("comparison.json", "comparison.shareable.json", "comparison.md"):
        assert f"wrote {out / name}" in run.stdout
    assert "rmse" in run.stdout
    assert "ridge" in run.stdout
    for name in ("comparison.json", "comparison.shareable.json"):
        pdpaired.verify(out / name)


def test_the_command_line_equals_the_python_api_for_the_same_seed(
    runs: dict[str, Run], work: Path, inputs: dict[str, Path]
) -> None:
    assert_ok(get(runs, "regression"))
    out = work / "out" / "regression"
    fa, fb = pd.read_csv(inputs["reg_a"]), pd.read_csv(inputs["reg_b"])
    long = pdpaired.from_tables(fa, fb, id="sample_id", names=("ridge", "lasso"))
    cmp = long.paired(case="sample_id", target="y", prediction="pred").compare(
        "ridge", "lasso", metric="rmse"
    )
    provenance = [{"path": str(inputs[k]), "sha256": sha256(inputs[k])} for k in ("reg_a", "reg_b")]
    rep = cmp.report(n_resamples=200, n_permutations=200, rng=0, inputs=provenance)
    assert load(out / "comparison.shareable.json") == rep.to_artifact("shareable")
    assert load(out / "comparison.json") == rep.to_artifact("local")
    assert (out / "comparison.md").read_text(encoding="utf-8") == rep.to_markdown()
    assert rep.bootstrap.seed == 0  # the user's seed; the report call reproduces the part
    bs = cmp.report(n_resamples=200, n_permutations=200, rng=rep.bootstrap.seed).bootstrap
    share = load(out / "comparison.shareable.json")
    assert share["interval"]["low"] == bs.confidence_interval.low
    assert share["interval"]["high"] == bs.confidence_interval.high
    assert share["metric_a"] == pytest.approx(skm.root_mean_squared_error(fa["y"], fa["pred"]))


def test_the_local_artifact_records_the_input_files(
    runs: dict[str, Run], work: Path, inputs: dict[str, Path]
) -> None:
    assert_ok(get(runs, "regression"))
    local = load(work / "out" / "regression" / "comparison.json")["local"]
    assert local["inputs"] == [
        {"path": str(inputs["reg_a"]), "sha256": sha256(inputs["reg_a"])},
        {"path": str(inputs["reg_b"]), "sha256": sha256(inputs["reg_b"])},
    ]
    assert CANARY_DIR in json.dumps(local)
    assert local["seed"] == 0


def test_the_shareable_artifact_holds_no_canary(
    runs: dict[str, Run], work: Path, inputs: dict[str, Path]
) -> None:
    assert_ok(get(runs, "regression"))
    text = (work / "out" / "regression" / "comparison.shareable.json").read_text(encoding="utf-8")
    for word in ("CANARY", "7f3a", "c0ffee", "5e1d", "123456789", "0271828", "0314159",
                 str(work), "reg_a", "reg_b", ".csv", "sample_id"):  # fmt: skip
        assert word not in text, f"{word!r} leaked into the shareable artifact"
    values = pd.concat([pd.read_csv(inputs["reg_a"]), pd.read_csv(inputs["reg_b"])])
    numbers = {float(x) for x in values[["y", "pred"]].to_numpy().ravel()}
    for x in numbers:
        assert repr(x) not in text, f"row-level value {x!r} leaked"
    art = json.loads(text)
    assert art["models"] == {"a": "ridge", "b": "lasso"}  # model names may appear
    assert re.findall(r"[0-9a-f]{64}", text) == [art["digest"]]  # its own digest only


def test_module_entry_point_prints_the_same_result_block(runs: dict[str, Run]) -> None:
    script, module = get(runs, "regression"), get(runs, "regression-module")
    assert_ok(module)
    assert module.stdout.strip()
    # same seed, same numbers: the --out run prints the block then the paths it wrote
    assert script.stdout.startswith(module.stdout)
    rest = script.stdout[len(module.stdout) :].strip().splitlines()
    assert [line.split()[0] for line in rest] == ["wrote"] * 3


def test_binary_auroc_with_class_labels_and_slices(
    runs: dict[str, Run], work: Path, inputs: dict[str, Path]
) -> None:
    run = get(runs, "binary")
    assert_ok(run)
    out = work / "out" / "binary"
    assert {p.name for p in out.iterdir()} == FILES
    art = pdpaired.verify(out / "comparison.shareable.json")
    assert art["models"] == {"a": "spam_new", "b": "spam_old"}  # default: the file stems
    assert art["metric"] == {
        "name": "auroc",
        "higher_is_better": True,
        "task": "binary",
        "threshold": None,
    }
    assert art["exact_binomial"] is None
    frame = pd.read_csv(inputs["spam_new"])
    old = pd.read_csv(inputs["spam_old"])
    y = frame["label"] == "spam"
    assert art["metric_a"] == pytest.approx(skm.roc_auc_score(y, frame["p_spam"]))
    assert art["metric_b"] == pytest.approx(skm.roc_auc_score(y, old["p_spam"]))
    sl = art["slices"]
    assert sl["columns"] == ["site"]
    assert sl["uncertainty"] is True
    rows = {r["value"]: r for r in sl["rows"]}
    assert set(rows) == {"north", "south", "east"}  # slice labels may be shared
    for value, r in rows.items():
        assert r["n"] == int((frame["site"] == value).sum())
        if r["status"] == "reported":
            assert {"ci_low", "ci_high", "pvalue", "pvalue_adjusted"} <= set(r)
    assert "site" in run.stdout
    # class labels are target values: in the local artifact only
    text = (out / "comparison.shareable.json").read_text(encoding="utf-8")
    assert '"ham"' not in text
    assert '"spam"' not in text
    assert load(out / "comparison.json")["local"]["class_labels"] == ["ham", "spam"]


def test_multiclass_prediction_columns(
    runs: dict[str, Run], work: Path, inputs: dict[str, Path]
) -> None:
    assert_ok(get(runs, "multiclass"))
    art = pdpaired.verify(work / "out" / "multiclass" / "comparison.shareable.json")
    assert art["metric"] == {
        "name": "log_loss",
        "higher_is_better": False,
        "task": "multiclass",
        "threshold": None,
    }
    for key, name in (("metric_a", "mc_a"), ("metric_b", "mc_b")):
        frame = pd.read_csv(inputs[name])
        prob = frame[["p_cat", "p_dog", "p_bird"]].to_numpy()
        col = frame["y"].map({"cat": 0, "dog": 1, "bird": 2}).to_numpy()
        by_hand = -np.mean(np.log(prob[np.arange(len(frame)), col]))
        assert art[key] == pytest.approx(by_hand, rel=1e-9)
    assert art["improvement_a_over_b"] > 0


def test_long_score_mode_with_groups(
    runs: dict[str, Run], work: Path, inputs: dict[str, Path]
) -> None:
    run = get(runs, "long")
    assert_ok(run)
    assert "IndependenceWarning" not in run.stderr
    art = pdpaired.verify(work / "out" / "long" / "comparison.shareable.json")
    assert art["metric"] == {
        "name": "mean",
        "higher_is_better": True,
        "task": "score",
        "threshold": None,
    }
    assert art["models"] == {"a": "cand", "b": "base"}
    assert art["interval"]["unit"] == "group"
    assert art["interval"]["sampling"] == "cluster"
    assert art["interval"]["n_groups"] == 15
    assert art["randomization"]["unit"] == "group"
    assert art["exact_binomial"] is None  # binary scores, but grouped: not independent pairs
    frame = pd.read_csv(inputs["long"])
    means = frame.groupby("model")["score"].mean()
    assert art["metric_a"] == pytest.approx(means["cand"])
    assert art["metric_b"] == pytest.approx(means["base"])


@pytest.mark.parametrize("name", ["help", "compare-help", "verify-help"])
def test_help_exits_zero_and_shows_examples(runs: dict[str, Run], name: str) -> None:
    run = get(runs, name)
    assert_ok(run)
    assert run.stdout.startswith("usage: pdpaired")
    if name == "help":
        assert "compare" in run.stdout
        assert "verify" in run.stdout
    elif name == "compare-help":
        assert "examples:" in run.stdout
        for flag in ("--long", "--target", "--prediction-columns", "--class-labels",
                     "--slice-columns", "--include-slice-uncertainty", "--seed", "--out",
                     "--higher-is-better", "--group-column", "--task-type"):  # fmt: skip
            assert flag in run.stdout, flag
        assert run.stdout.count("pdpaired compare ") >= 3
    else:
        assert "examples:" in run.stdout
        assert "pdpaired verify " in run.stdout


# --------------------------------------------------------------------------- verify
@pytest.mark.parametrize("name", ["shareable", "local", "long-local"])
def test_verify_accepts_good_artifacts(verify_runs: dict[str, Run], name: str) -> None:
    run = get(verify_runs, name)
    assert_ok(run)
    assert run.stdout.startswith("OK: ")


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("flipped-sign", ("improvement_a_over_b",)),
        ("edited-pvalue", ("digest",)),
        ("wrong-version", ("artifact", "'paired-comparison-artifact/v1' was expected")),
    ],
)
def test_verify_refuses_tampered_artifacts(
    verify_runs: dict[str, Run], name: str, words: tuple[str, ...]
) -> None:
    assert_bad(get(verify_runs, name), *words)


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("name", list(BAD_CASES))
def test_bad_input_exits_2_with_a_message_and_writes_nothing(
    runs: dict[str, Run], work: Path, inputs: dict[str, Path], name: str
) -> None:
    _, words, _ = BAD_CASES[name]
    assert_bad(get(runs, name), *words)
    assert not (work / "out" / name).exists(), "an --out directory was created on failure"


def test_an_out_path_that_is_a_file_exits_2(runs: dict[str, Run], inputs: dict[str, Path]) -> None:
    assert_bad(get(runs, "out-is-a-file"), "a_file.txt", "not a directory")
    assert inputs["a_file"].read_text(encoding="utf-8") == "I am a file, not a directory\n"


def test_an_out_directory_that_cannot_be_created_exits_2(
    runs: dict[str, Run], inputs: dict[str, Path]
) -> None:
    # found only when saving: the result block may already be on stdout
    assert_bad(get(runs, "out-under-a-file"), "a_file.txt", stdout_empty=False)
    assert inputs["a_file"].read_text(encoding="utf-8") == "I am a file, not a directory\n"


def test_main_returns_the_exit_status_in_process(
    inputs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    from pdpaired.cli.main import main

    assert main(["verify", str(inputs["not_json"])]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "not valid JSON" in captured.err
    assert main(["--help"]) == 0
    assert "usage: pdpaired" in capsys.readouterr().out
