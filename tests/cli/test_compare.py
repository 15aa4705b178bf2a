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
import html
import json
import os
import re
import shutil
import subprocess
import sys
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn import metrics as skm
from sklearn.metrics import accuracy_score

import pdpaired

from ..artifacts.test_multi import redigest

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


def console_script_every_flag() -> str:
    here = Path(sys.executable).parent / "pdpaired"
    if here.is_file() and os.access(here, os.X_OK):
        return str(here)
    found = shutil.which("pdpaired")
    if found is None:
        pytest.skip("the `pdpaired` console script is not installed (pip install -e .)")
    return found


def run_cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONWARNINGS"}
    env["MPLBACKEND"] = "Agg"
    proc = subprocess.run(
        [console_script_every_flag(), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return proc


SAME = ("metric", "n_cases", "alignment", "missing", "metric_a", "metric_b",
        "raw_delta_a_minus_b", "improvement_a_over_b", "interval", "randomization",
        "exact_binomial", "decisions")  # fmt: skip


def assert_same_analysis(cli: dict[str, Any], api: dict[str, Any]) -> None:
    for key in SAME:
        assert cli[key] == api[key], key


@pytest.fixture(scope="module")
def score_table() -> pd.DataFrame:
    """Long table, 'lower is better' scores, groups nested in strata, one missing score."""
    rng = np.random.default_rng(31)
    n = 96
    group = np.arange(n) // 4
    base = rng.gamma(2.0, 1.0, size=n)
    x = base - 0.15 + rng.normal(0, 0.4, n)
    y = base + rng.normal(0, 0.4, n)
    df = pd.DataFrame({
        "cid": np.tile(np.arange(n) * 3 + 1, 2), "who": np.repeat(["new", "old"], n),
        "loss": np.r_[x, y], "g": np.tile(group, 2), "st": np.tile(group % 3, 2),
    })  # fmt: skip
    df.loc[7, "loss"] = np.nan  # model "new", case 7: missing
    return df


# --------------------------------------------------------------------------- report() options
@pytest.fixture(scope="module")
def clustered_cmp() -> pdpaired.Comparison:
    rng = np.random.default_rng(77)
    sizes = rng.integers(1, 9, size=36)
    group = np.repeat(np.arange(36), sizes)
    n = group.size
    b = rng.normal(size=n)
    a = b + rng.normal(0.1, 0.5, size=36)[group] + rng.normal(0, 0.3, n)
    df = pd.DataFrame({"case_id": np.tile(np.arange(n), 2), "model": np.repeat(["A", "B"], n),
                       "score": np.r_[a, b], "group": np.tile(group, 2)})  # fmt: skip
    return df.paired(group="group").compare("A", "B", higher_is_better=True)


class TestEveryFlag:
    """Every ``pdpaired compare`` flag through the installed console script, each checked.

    ``tests/cli/test_compare.py`` covers the workflows; this file makes sure the flags it
    does not reach (``--lower-is-better``, ``--method``, ``--alternative``,
    ``--confidence-level``, ``--missing``, ``--fill-value``, ``--threshold``,
    ``--stratum-column``, ``--model-column``, ``--practical-threshold``,
    ``--noninferiority-margin``, ``--group-column``, ``--id-column``,
    ``--task-type``, ``--names``, ``--seed``) reach the analysis: the artifact
    the script writes must equal the one the Python API gives for the same
    options, and the point estimates must equal an independent computation
    (pandas / scikit-learn). A flag that was parsed but dropped would leave
    the default in the artifact and fail the comparison, because every value
    given differs from its default.

    Also every ``report()`` option: ``method``, ``alternative``,
    ``confidence_level``, ``unit`` and ``weighting`` are checked against the
    standalone ``bootstrap()`` / ``randomization()`` with the report's streams.
    """

    def test_score_mode_flags_equal_the_api(
        self, score_table: pd.DataFrame, tmp_path: Path
    ) -> None:
        path = tmp_path / "long.csv"
        score_table.to_csv(path, index=False)
        run_cli(["compare", str(path), "--long", "--a", "new", "--b", "old",
                 "--model-column", "who", "--id-column", "cid", "--score", "loss",
                 "--lower-is-better", "--group-column", "g", "--stratum-column", "st",
                 "--missing", "as-failure", "--fill-value", "9.5",
                 "--method", "bca", "--alternative", "greater", "--confidence-level", "0.9",
                 "--practical-threshold", "0.01", "--noninferiority-margin", "0.3",
                 "--resamples", "400", "--permutations", "300", "--seed", "17",
                 "--out", str(tmp_path / "out")], tmp_path)  # fmt: skip
        cli = pdpaired.verify(tmp_path / "out" / "comparison.json")
        acc = score_table.paired(case="cid", model="who", score="loss", group="g", stratum="st")
        cmp = acc.compare(
            "new", "old", higher_is_better=False, missing="as-failure", fill_value=9.5
        )
        rep = cmp.report(n_resamples=400, n_permutations=300, method="bca", alternative="greater",
                         confidence_level=0.9, practical_threshold=0.01,
                         noninferiority_margin=0.3, rng=17)  # fmt: skip
        assert_same_analysis(cli, rep.to_artifact("local"))
        # each flag reached the analysis (every value differs from its default)
        iv, rz, d = cli["interval"], cli["randomization"], cli["decisions"]
        assert cli["metric"]["higher_is_better"] is False
        assert (iv["method"], iv["confidence_level"], iv["n_resamples"]) == ("bca", 0.9, 400)
        design = (iv["sampling"], iv["unit"], iv["n_strata"], iv["n_groups"], iv["seed"])
        assert design == ("stratified-cluster", "group", 3, 24, 17)
        assert (rz["alternative"], rz["n_permutations"]) == ("greater", 300)
        assert (d["practical_threshold"], d["noninferiority_margin"]) == (0.01, 0.3)
        assert d["noninferior"] == (iv["low"] >= -0.3)
        assert cli["missing"] == {"policy": "as-failure", "n_missing_a": 1, "n_missing_b": 0,
                                  "n_dropped": 0, "n_filled": 1, "fill_value": 9.5}  # fmt: skip
        # the point estimates by pandas: the missing score filled with 9.5, lower is better
        wide = score_table.pivot(index="cid", columns="who", values="loss").fillna(9.5)
        assert cli["metric_a"] == pytest.approx(wide["new"].mean(), rel=1e-12)
        assert cli["metric_b"] == pytest.approx(wide["old"].mean(), rel=1e-12)
        assert cli["improvement_a_over_b"] == pytest.approx(
            wide["old"].mean() - wide["new"].mean(), rel=1e-12
        )

    def test_prediction_mode_flags_equal_the_python_api_and_sklearn(self, tmp_path: Path) -> None:
        rng = np.random.default_rng(5)
        n = 120
        y = (rng.uniform(size=n) < 0.4).astype(int)
        pa = np.round(np.clip(0.35 * y + rng.uniform(0, 0.65, n), 0, 1), 1)  # ties at 0.3
        pb = np.round(np.clip(0.2 * y + rng.uniform(0, 0.8, n), 0, 1), 1)
        ids = np.arange(n) + 100
        for name, p in (("cand", pa), ("base", pb)):
            pd.DataFrame({"sid": ids, "label": y, "prob": p}).to_csv(tmp_path / f"{name}.csv",
                                                                    index=False)  # fmt: skip
        proc = run_cli(["compare", str(tmp_path / "cand.csv"), str(tmp_path / "base.csv"),
                        "--names", "A", "B", "--id-column", "sid", "--model-column", "which",
                        "--target", "label", "--prediction-column", "prob", "--task-type", "binary",
                        "--metric", "accuracy", "--threshold", "0.3", "--method", "basic",
                        "--alternative", "less", "--confidence-level", "0.8",
                        "--resamples", "300", "--permutations", "200", "--seed", "3",
                        "--out", str(tmp_path / "out")], tmp_path)  # fmt: skip
        cli = json.loads((tmp_path / "out" / "comparison.json").read_text(encoding="utf-8"))
        assert "80%" in proc.stdout
        long = pdpaired.from_tables(pd.read_csv(tmp_path / "cand.csv"),
                                    pd.read_csv(tmp_path / "base.csv"), id="sid",
                                    names=("A", "B"), model="which")  # fmt: skip
        cmp = long.paired(case="sid", model="which", target="label", prediction="prob").compare(
            "A", "B", metric="accuracy", threshold=0.3
        )
        rep = cmp.report(n_resamples=300, n_permutations=200, method="basic", alternative="less",
                         confidence_level=0.8, rng=3)  # fmt: skip
        assert_same_analysis(cli, rep.to_artifact("local"))
        assert cli["metric"]["threshold"] == 0.3
        acc_a, acc_b = accuracy_score(y, pa > 0.3), accuracy_score(y, pb > 0.3)
        assert cli["metric_a"] == pytest.approx(acc_a, rel=1e-12)
        assert cli["metric_b"] == pytest.approx(acc_b, rel=1e-12)
        assert acc_a != accuracy_score(y, pa > 0.5)  # the threshold matters on these data
        assert (cli["interval"]["method"], cli["randomization"]["alternative"]) == ("basic", "less")

    @pytest.mark.parametrize(
        "opts",
        [
            {"method": "basic", "alternative": "less", "confidence_level": 0.8},
            {"method": "bca", "alternative": "greater", "confidence_level": 0.99,
             "weighting": "group"},
            {"method": "percentile", "alternative": "two-sided", "confidence_level": 0.9,
             "unit": "case"},
        ],
    )  # fmt: skip
    def test_report_options_reach_the_bootstrap_and_the_test(
        self, clustered_cmp: pdpaired.Comparison, opts: dict[str, Any]
    ) -> None:
        """The report's parts equal bootstrap()/randomization() with the same options.

        The report draws from its own streams (``report:bootstrap``...), so the
        standalone calls are compared through the report's recorded parts: the
        same method, level, alternative, unit and weighting, and an interval
        recomputed from the report's own replicates.
        """
        rep = clustered_cmp.report(n_resamples=500, n_permutations=300, rng=9, **opts)
        bs, rz = rep.bootstrap, rep.randomization
        assert bs.method == opts["method"]
        assert bs.confidence_level == opts["confidence_level"]
        assert rz.alternative == opts["alternative"]
        unit = opts.get("unit", "group")
        weighting = opts.get("weighting", "item")
        art = rep.to_artifact("local")
        assert (art["interval"]["unit"], art["interval"]["weighting"]) == (unit, weighting)
        assert art["randomization"]["unit"] == unit
        # the point estimate follows the weighting: group-weighted is the mean of group means
        alone = clustered_cmp.bootstrap(n_resamples=500, rng=9, unit=opts.get("unit"),
                                        weighting=weighting, method=opts["method"],
                                        confidence_level=opts["confidence_level"])  # fmt: skip
        assert bs.improvement == pytest.approx(alone.improvement, rel=1e-12)
        pairs = clustered_cmp.pairs
        d = pairs["A"] - pairs["B"]
        want = d.groupby(pairs["group"]).mean().mean() if weighting == "group" else d.mean()
        assert bs.improvement == pytest.approx(want, rel=1e-12)
        assert d.groupby(pairs["group"]).mean().mean() != pytest.approx(d.mean(), rel=1e-6)
        # the interval of the report's own replicates, at its level
        dist = bs.bootstrap_distribution
        alpha = (1 - opts["confidence_level"]) / 2
        if unit == "group":  # clusters: tail levels Phi(t_nu(alpha)), nu = groups - 1
            nu = pairs["group"].nunique() - 1
            alpha = float(stats.norm.cdf(stats.t.ppf(alpha, nu)))
        if opts["method"] == "percentile":
            want = np.percentile(dist, [100 * alpha, 100 * (1 - alpha)])
            np.testing.assert_allclose([bs.confidence_interval.low, bs.confidence_interval.high],
                                       want, rtol=0, atol=1e-12)  # fmt: skip
        elif opts["method"] == "basic":
            want = 2 * bs.improvement - np.percentile(dist, [100 * (1 - alpha), 100 * alpha])
            np.testing.assert_allclose([bs.confidence_interval.low, bs.confidence_interval.high],
                                       want, rtol=0, atol=1e-12)  # fmt: skip
        # the one-sided p-values of the report's null distribution, plus one
        null = rz.null_distribution
        obs = rz.statistic
        if opts["alternative"] == "greater":
            want_p = (1 + np.sum(null >= obs - 1e-12 * abs(obs))) / (1 + null.size)
            assert rz.pvalue == pytest.approx(want_p, abs=1.0 / (1 + null.size))
        elif opts["alternative"] == "less":
            want_p = (1 + np.sum(null <= obs + 1e-12 * abs(obs))) / (1 + null.size)
            assert rz.pvalue == pytest.approx(want_p, abs=1.0 / (1 + null.size))


FAST_MULTI = ["--resamples", "300"]


REG_MULTI = ["--target", "y", "--prediction-column", "pred", "--metric", "rmse"]


MULTI_MODELS = ("base", "good", "bad")


def write_multi_inputs(root: Path) -> dict[str, Path]:
    d = root / "inputs-CANARY-DIR-9b1c"
    d.mkdir()
    rng = np.random.default_rng(11)
    n = 150
    y = np.round(rng.normal(0.0, 3.0, n), 3) + 0.000123456
    ids = [f"CANARY-ID-{i:03d}" for i in range(n)]
    files: dict[str, Path] = {}
    for name, sd in (("base", 1.0), ("good", 0.6), ("bad", 1.6)):
        files[name] = d / f"{name}.csv"
        pred = np.round(y + rng.normal(0.0, sd, n), 3)
        pd.DataFrame({"sample_id": ids, "y": y, "pred": pred}).to_csv(files[name], index=False)
    long = pd.concat(
        [
            pd.DataFrame({"case_id": np.arange(n), "model": m, "score": rng.uniform(size=n) + eff,
                          "grp": np.arange(n) // 5})
            for m, eff in (("alpha", 0.0), ("beta", 0.1), ("gamma", -0.05))
        ],
        ignore_index=True,
    )  # fmt: skip
    files["long"] = d / "long.csv"
    long.to_csv(files["long"], index=False)
    return files


@pytest.fixture(scope="module")
def multi_work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cli_multi")


@pytest.fixture(scope="module")
def multi_inputs(multi_work: Path) -> dict[str, Path]:
    return write_multi_inputs(multi_work)


def three(f: dict[str, Path]) -> list[str]:
    return [str(f[n]) for n in MULTI_MODELS]


@pytest.fixture(scope="module")
def multi_runs(multi_work: Path, multi_inputs: dict[str, Path]) -> dict[str, Run]:
    f, out = multi_inputs, multi_work / "out"
    jobs: dict[str, tuple[list[str], str]] = {
        "against": (
            [
                "compare",
                *three(f),
                "--baseline",
                "base",
                *REG_MULTI,
                *FAST_MULTI,
                "--seed",
                "0",
                "--out",
                str(out / "against"),
            ],
            "script",
        ),
        "all-pairs": (
            [
                "compare",
                str(f["long"]),
                "--long",
                "--all-pairs",
                "--score",
                "score",
                "--higher-is-better",
                "--group-column",
                "grp",
                "--adjust",
                "fdr_bh",
                "--no-simultaneous",
                *FAST_MULTI,
                "--seed",
                "1",
                "--out",
                str(out / "all-pairs"),
            ],
            "script",
        ),
        "gate": (
            [
                "compare",
                *three(f),
                "--baseline",
                "base",
                *REG_MULTI,
                *FAST_MULTI,
                "--seed",
                "0",
                "--fail-on",
                "b-better",
            ],
            "script",
        ),
        "gate-pass": (
            [
                "compare",
                str(f["base"]),
                str(f["good"]),
                "--baseline",
                "base",
                *REG_MULTI,
                *FAST_MULTI,
                "--seed",
                "0",
                "--fail-on",
                "b-better",
            ],
            "module",
        ),
        "bad-no-baseline": (
            ["compare", *three(f), *REG_MULTI, *FAST_MULTI],
            "script",
        ),
        "bad-unknown-baseline": (
            ["compare", *three(f), "--baseline", "nope", *REG_MULTI, *FAST_MULTI],
            "script",
        ),
        "bad-permutations": (
            [
                "compare",
                *three(f),
                "--baseline",
                "base",
                *REG_MULTI,
                *FAST_MULTI,
                "--permutations",
                "100",
            ],
            "script",
        ),
        "bad-names": (
            ["compare", *three(f), "--baseline", "x", "--names", "x", "y", *REG_MULTI],
            "script",
        ),
        "bad-gate-all-pairs": (
            ["compare", *three(f), "--all-pairs", "--fail-on", "b-better", *REG_MULTI],
            "script",
        ),
    }
    return run_all(jobs, cwd=multi_work)


def against_api(multi_inputs: dict[str, Path]) -> pdpaired.MultiResult:
    frames = [pd.read_csv(multi_inputs[n]) for n in MULTI_MODELS]
    long = pd.concat([f.assign(model=n) for f, n in zip(frames, MULTI_MODELS, strict=True)],
                     ignore_index=True)  # fmt: skip
    return long.paired(case="sample_id", target="y", prediction="pred").against(
        "base", ["good", "bad"], metric="rmse", rng=0, n_resamples=300
    )


class TestSeveralModels:
    """``pdpaired compare`` with several models, run as the installed console script.

    Three prediction files (``--baseline``) and a long table of three models
    (``--all-pairs``): exit status 0, one report whose artifacts verify and equal
    the Python API's (``df.paired.against`` / ``all_pairs`` with the same seed,
    ``MultiResult.to_artifact``); ``verify`` accepts the ``v2`` artifact and refuses
    it edited (a number, a removed field, the wrong version); ``--fail-on`` exits 1
    when a candidate fails the gate; bad input exits 2 with a message and no
    traceback. Every run is launched up front, concurrently (see the module docstring).
    """

    def test_three_files_against_a_baseline_equal_the_python_api(
        self,
        multi_runs: dict[str, Run],
        multi_work: Path,
        multi_inputs: dict[str, Path],
    ) -> None:
        run = get(multi_runs, "against")
        assert_ok(run)
        out = multi_work / "out" / "against"
        res = against_api(multi_inputs)
        share = pdpaired.verify(out / "comparison.shareable.json")
        assert share == res.to_artifact("shareable")
        assert share["analysis"]["simultaneous"] is True  # the default
        assert {c["interval"]["method"] for c in share["comparisons"]} == {"max-t"}
        provenance = [
            {"path": str(multi_inputs[n]), "sha256": sha256(multi_inputs[n])} for n in MULTI_MODELS
        ]
        assert load(out / "comparison.json") == res.to_artifact("local", inputs=provenance)
        assert (out / "comparison.md").read_text(encoding="utf-8") == res.to_markdown()
        # each comparison is the two-model call, and its metrics are scikit-learn's
        base = pd.read_csv(multi_inputs["base"])
        for c, name in zip(share["comparisons"], ("good", "bad"), strict=True):
            assert c["models"] == {"a": name, "b": "base"}
            frame = pd.read_csv(multi_inputs[name])
            assert c["metric_a"] == pytest.approx(skm.root_mean_squared_error(frame.y, frame.pred))
            assert c["metric_b"] == pytest.approx(skm.root_mean_squared_error(base.y, base.pred))
        for line in ("good vs base", "bad vs base", "wrote "):
            assert line in run.stdout
        text = (out / "comparison.shareable.json").read_text(encoding="utf-8")
        for word in ("CANARY", "9b1c", "123456", ".csv", "sample_id", str(multi_work)):
            assert word not in text, f"{word!r} leaked into the shareable artifact"

    def test_long_table_all_pairs_equal_the_python_api(
        self,
        multi_runs: dict[str, Run],
        multi_work: Path,
        multi_inputs: dict[str, Path],
    ) -> None:
        assert_ok(get(multi_runs, "all-pairs"))
        art = pdpaired.verify(multi_work / "out" / "all-pairs" / "comparison.shareable.json")
        long = pd.read_csv(multi_inputs["long"])
        res = long.paired(group="grp").all_pairs(higher_is_better=True, rng=1, n_resamples=300,
                                                 adjust="fdr_bh", simultaneous=False)  # fmt: skip
        assert art == res.to_artifact("shareable")
        assert art["analysis"]["simultaneous"] is False  # --no-simultaneous reached it
        assert art["analysis"]["kind"] == "all_pairs"
        assert [(c["models"]["a"], c["models"]["b"]) for c in art["comparisons"]] == [
            ("alpha", "beta"), ("alpha", "gamma"), ("beta", "gamma")]  # fmt: skip
        assert {c["interval"]["sampling"] for c in art["comparisons"]} == {"cluster"}
        means = long.groupby("model")["score"].mean()
        for c in art["comparisons"]:
            assert c["metric_a"] == pytest.approx(means[c["models"]["a"]])
        assert art["ranks"] is not None

    def test_verify_accepts_v2_and_refuses_it_edited(
        self, multi_runs: dict[str, Run], multi_work: Path
    ) -> None:
        assert_ok(get(multi_runs, "against"))
        out = multi_work / "out" / "against"
        share = load(out / "comparison.shareable.json")
        bad = multi_work / "tampered"
        bad.mkdir(exist_ok=True)

        def tampered(name: str, edit: Any) -> str:
            art = copy.deepcopy(share)
            edit(art)
            path = bad / f"{name}.json"
            path.write_text(json.dumps(redigest(art)), encoding="utf-8")
            return str(path)

        def number(art: dict[str, Any]) -> None:
            art["comparisons"][0]["metric_a"] *= 1.01

        def field(art: dict[str, Any]) -> None:
            del art["comparisons"][1]["interval"]

        def version(art: dict[str, Any]) -> None:
            art["artifact"] = "paired-comparison-artifact/v1"

        jobs = {
            "local": (["verify", str(out / "comparison.json")], "script"),
            "shareable": (["verify", str(out / "comparison.shareable.json")], "script"),
            "number": (["verify", tampered("number", number)], "script"),
            "field": (["verify", tampered("field", field)], "script"),
            "version": (["verify", tampered("version", version)], "script"),
        }
        got = run_all(jobs, cwd=multi_work)
        for name in ("local", "shareable"):
            run = get(got, name)
            assert_ok(run)
            assert run.stdout.startswith("OK: ")
            assert "paired-comparison-artifact/v2" in run.stdout
            assert "3 models, 2 comparison(s) against base" in run.stdout
        assert_bad(get(got, "number"), "improvement_a_over_b")
        assert_bad(get(got, "field"), "'interval' is a required property")
        assert_bad(get(got, "version"), "'paired-comparison-artifact/v2' was expected")

    def test_fail_on_exits_1_when_any_candidate_fails(self, multi_runs: dict[str, Run]) -> None:
        run = get(multi_runs, "gate")
        assert run.returncode == 1, run.stderr
        assert "Traceback" not in run.stderr
        assert run.stdout.count("Release gate --fail-on b-better") == 2
        assert "FAILED (exit 1)" in run.stdout  # bad vs base: the baseline is better
        passing = get(multi_runs, "gate-pass")
        assert_ok(passing)
        assert "passed (exit 0)" in passing.stdout

    @pytest.mark.parametrize(
        ("name", "words"),
        [
            ("bad-no-baseline", ("--baseline NAME or --all-pairs",)),
            ("bad-unknown-baseline", ("--baseline nope", "base, good, bad")),
            ("bad-permutations", ("--permutations",)),
            ("bad-names", ("--names", "3 files, 2 names")),
            ("bad-gate-all-pairs", ("--fail-on", "--all-pairs")),
        ],
    )
    def test_bad_several_model_input_exits_2(
        self, multi_runs: dict[str, Run], name: str, words: tuple[str, ...]
    ) -> None:
        assert_bad(get(multi_runs, name), *words)


# --------------------------------------------------------------------------- --audit
def test_audit_flag_prints_the_table_and_records_it_in_the_local_artifact(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pdpaired.cli.main import main

    rng = np.random.default_rng(5)
    n = 40
    base = rng.normal(size=n)
    long = pd.DataFrame({
        "case_id": np.tile(np.arange(n), 2), "model": np.repeat(["new", "old"], n),
        "score": np.r_[base + rng.lognormal(0, 1, n), base],
    })  # fmt: skip
    path = tmp_path / "long.csv"
    long.to_csv(path, index=False)
    out = tmp_path / "out"
    argv = ["compare", str(path), "--long", "--a", "new", "--b", "old", "--score", "score",
            "--higher-is-better", "--seed", "3", "--resamples", "999", "--permutations", "999",
            "--audit", "--audit-simulations", "20", "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "Trust " in printed
    assert "studentized interval" in printed
    local = pdpaired.verify(out / "comparison.json")
    api = (  # the command line reads ids as text
        long.astype({"case_id": str}).paired.compare("new", "old", higher_is_better=True)
        .audit(n_simulations=20, rng=3)
    )  # fmt: skip
    assert local["audit"] == api.artifact_block()
    assert local["audit"]["recommended_method"] == api.recommended_method
    shared = pdpaired.verify(out / "comparison.shareable.json")
    assert shared["audit"] == local["audit"]  # aggregates only: in both kinds
    assert main([*argv[:-2], "--audit-simulations", "1"]) == 2
    assert "--audit-simulations" in capsys.readouterr().err


# --------------------------------------------------------------------------- a suite of tasks
SUITE_XSS = "<img src=x onerror=alert(1)>|`t`"


def suite_table(n: int = 60, seed: int = 4) -> pd.DataFrame:
    """0/1 scores of two models on four tasks (one named with a Markdown/HTML canary)."""
    rng = np.random.default_rng(seed)
    parts = []
    for name, lift in (("arith", 0.05), ("code", 0.25), ("read", -0.1), (SUITE_XSS, 0.15)):
        p = rng.uniform(0.2, 0.7, n)
        a = (rng.random(n) < np.clip(p + lift, 0, 1)).astype(float)
        b = (rng.random(n) < p).astype(float)
        parts.append(pd.DataFrame({
            "task": name, "case_id": [f"{name[:3]}-{i}" for i in range(n)] * 2,
            "model": ["new"] * n + ["old"] * n, "correct": np.r_[a, b],
            "grp": np.tile(np.arange(n) // 5, 2),
        }))  # fmt: skip
    return pd.concat(parts, ignore_index=True)


class TestSuite:
    """``pdpaired compare --task-column``: the suite of tasks, end to end."""

    LONG = ("--long", "--a", "new", "--b", "old", "--score", "correct", "--higher-is-better")

    @pytest.fixture
    def table(self, tmp_path: Path) -> Path:
        path = tmp_path / "long.csv"
        suite_table().to_csv(path, index=False)
        return path

    def test_long_table_equals_the_python_api_and_verifies(
        self, table: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        from pdpaired.cli.main import main

        out, summary = tmp_path / "rep", tmp_path / "summary.md"
        code = main(["compare", str(table), *self.LONG, "--task-column", "task",
                     "--group-column", "grp", "--seed", "3", "--resamples", "600",
                     "--confidence-level", "0.9", "--tau2", "dl", "--method", "percentile",
                     "--random-ci", "wald", "--out", str(out),
                     "--summary-markdown", str(summary)])  # fmt: skip
        printed = capsys.readouterr().out
        assert code == 0
        df = pd.read_csv(table, dtype={"case_id": str})
        api = df.paired(group="grp", score="correct").suite(
            "new", "old", task="task", tau2="dl", higher_is_better=True, rng=3,
            n_resamples=600, confidence_level=0.9, method="percentile", random_ci="wald",
        )  # fmt: skip
        assert printed.splitlines()[0] == api.verdict_sentence()
        assert "Wald (normal)" in printed
        assert f"task = {SUITE_XSS} (n = 60)" in printed
        for word in ("fixed effect", "random effects", "prediction (unseen task)", "tau² (dl)"):
            assert word in printed
        art = load(out / "comparison.json")
        assert art["artifact"] == "paired-suite-artifact/v1"
        assert art["settings"] == {"confidence_level": 0.9, "simultaneous_level":
                                   api.simultaneous_level, "tau2_method": "dl",
                                   "random_ci": "wald", "n_resamples": 600, "seed": 3,
                                   "noninferiority_margin": None}  # fmt: skip
        assert art["pooled"]["random"]["estimate"] == api.random
        assert art["pooled"]["tau2"] == api.tau2
        assert art["pooled"]["random"]["low"] == api.random_interval.low
        assert [t["improvement"] for t in art["tasks"]] == list(api.tasks["improvement"])
        assert {t["method"] for t in art["tasks"]} == {"percentile"}
        assert all(t["standard_error"] > 0 for t in art["tasks"])
        assert art["local"]["inputs"] == [{"path": str(table), "sha256": sha256(table)}]
        assert "case_id" not in (out / "comparison.shareable.json").read_text(encoding="utf-8")
        md = summary.read_text(encoding="utf-8")
        assert "<img" not in md
        assert "&lt;img src=x onerror=alert(1)&gt;\\|\\`t\\`" in md
        for name in ("comparison.json", "comparison.shareable.json"):
            assert main(["verify", str(out / name)]) == 0
        assert "4 tasks; random effects" in capsys.readouterr().out

    def test_html_page_holds_the_suite_shareable_artifact(
        self, table: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        from pdpaired.cli.main import main

        out, page = tmp_path / "rep", tmp_path / "suite.html"
        code = main(["compare", str(table), *self.LONG, "--task-column", "task",
                     "--seed", "3", "--resamples", "300", "--out", str(out),
                     "--html", str(page)])  # fmt: skip
        assert code == 0
        assert f"wrote {page}" in capsys.readouterr().out
        text = page.read_text(encoding="utf-8")
        shared = (out / "comparison.shareable.json").read_text(encoding="utf-8")
        assert html.escape(json.dumps(json.loads(shared), indent=2, sort_keys=True,
                                      ensure_ascii=False)) in text  # fmt: skip
        assert SUITE_XSS not in text
        assert "<script" not in text

    def test_two_prediction_files_with_a_task_column(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        from pdpaired.cli.main import main

        rng = np.random.default_rng(8)
        n = 160
        target = rng.normal(0, 1, n)
        task = np.repeat(["t1", "t2", "t3", "t4"], n // 4)
        frames = {}
        for name, noise in (("cand", 0.5), ("base", 0.7)):
            frames[name] = pd.DataFrame({
                "sample_id": [f"s{i}" for i in range(n)], "task": task, "target": target,
                "prediction": target + rng.normal(0, noise, n),
            })  # fmt: skip
            frames[name].to_csv(tmp_path / f"{name}.csv", index=False)
        code = main(["compare", str(tmp_path / "cand.csv"), str(tmp_path / "base.csv"),
                     "--target", "target", "--metric", "rmse", "--task-column", "task",
                     "--seed", "1", "--resamples", "400"])  # fmt: skip
        printed = capsys.readouterr().out
        assert code == 0
        long = pdpaired.from_tables(frames["cand"], frames["base"], id="sample_id",
                                    names=("cand", "base"))  # fmt: skip
        api = long.paired(case="sample_id", target="target", prediction="prediction").suite(
            "cand", "base", task="task", metric="rmse", rng=1, n_resamples=400
        )
        assert printed.splitlines()[0] == api.verdict_sentence()
        # each task's improvement is the difference of the two RMSEs, written out here
        for t, row in api.tasks.set_index("task").iterrows():
            rows = frames["cand"]["task"] == t
            rmse = {k: float(np.sqrt(np.mean((f.loc[rows, "prediction"] - target[rows]) ** 2)))
                    for k, f in frames.items()}  # fmt: skip
            assert row["improvement"] == pytest.approx(rmse["base"] - rmse["cand"], rel=1e-12)

    @pytest.mark.parametrize(
        ("flag", "want"),
        [(["--fail-on", "not-a-better"], "not-a-better"),
         (["--fail-on", "b-better"], "b-better"),
         (["--fail-on", "not-noninferior", "--noninferiority-margin", "0.5"],
          "not-noninferior")],
    )  # fmt: skip
    def test_fail_on_reads_the_random_effects_interval(
        self,
        table: Path,
        capsys: pytest.CaptureFixture[str],
        flag: list[str],
        want: str,
    ) -> None:
        from pdpaired.cli.main import main

        got = main(["compare", str(table), *self.LONG, "--task-column", "task", "--seed", "0",
                    "--resamples", "400", *flag])  # fmt: skip
        printed = capsys.readouterr().out
        df = pd.read_csv(table, dtype={"case_id": str})
        margin = 0.5 if want == "not-noninferior" else None
        with warnings.catch_warnings():  # 0/1 scores: a task's exact check may warn
            warnings.simplefilter("ignore", pdpaired.DegenerateDataWarning)
            api = df.paired(score="correct").suite(
                "new", "old", higher_is_better=True, rng=0, n_resamples=400,
                noninferiority_margin=margin,
            )  # fmt: skip
        lo, hi = api.random_interval.low, api.random_interval.high
        failed = {"not-a-better": not lo > 0, "b-better": hi < 0,
                  "not-noninferior": lo < -0.5}[want]  # fmt: skip
        assert got == int(failed)
        assert f"Release gate --fail-on {want}: {'FAILED' if failed else 'passed'}" in printed

    def test_the_gate_can_fail(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        from pdpaired.cli.main import main

        df = suite_table()
        df.loc[df["model"] == "new", "correct"] = 0.0  # A fails every case of every task
        df.loc[df.index % 7 == 0, "correct"] = 1.0  # ... but a few: every task's SE > 0
        df.to_csv(tmp_path / "bad.csv", index=False)
        code = main(["compare", str(tmp_path / "bad.csv"), *self.LONG, "--task-column", "task",
                     "--seed", "0", "--resamples", "400", "--fail-on", "b-better"])  # fmt: skip
        assert code == 1
        assert "FAILED (exit 1)" in capsys.readouterr().out

    @pytest.mark.parametrize(
        ("extra", "words"),
        [
            (["--baseline", "old"], "--baseline/--all-pairs does not apply to --task-column"),
            (["--permutations", "100"], "--permutations does not apply"),
            (["--slice-columns", "grp"], "--slice-columns/--include-slice-uncertainty"),
            (["--practical-threshold", "0.1"], "--practical-threshold does not apply"),
            (["--alternative", "greater"], "--alternative does not apply"),
            (["--audit"], "--audit does not apply"),
            (["--score-range", "0", "1"], "--score-range does not apply"),
            (["--fail-on", "not-noninferior"], "needs --noninferiority-margin"),
        ],
    )
    def test_flags_without_meaning_for_a_suite_exit_2(
        self, table: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        extra: list[str], words: str,
    ) -> None:  # fmt: skip
        from pdpaired.cli.main import main

        out = tmp_path / "never"
        code = main(["compare", str(table), *self.LONG, "--task-column", "task",
                     "--out", str(out), *extra])  # fmt: skip
        err = capsys.readouterr()
        assert code == 2
        assert words in err.err
        assert err.out == ""
        assert not out.exists()

    def test_bad_suite_input_exits_2_naming_the_problem(
        self, table: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        from pdpaired.cli.main import main

        assert main(["compare", str(table), *self.LONG, "--tau2", "dl"]) == 2
        assert "--tau2 applies to a suite of tasks" in capsys.readouterr().err
        assert main(["compare", str(table), *self.LONG, "--random-ci", "hksj"]) == 2
        assert "--random-ci applies to a suite of tasks" in capsys.readouterr().err
        assert main(["compare", str(table), *self.LONG, "--task-column", "suite"]) == 2
        assert "--task-column suite: no such column" in capsys.readouterr().err
        one = suite_table()
        one = one[one["task"] == "code"]
        one.to_csv(tmp_path / "one.csv", index=False)
        assert main(["compare", str(tmp_path / "one.csv"), *self.LONG, "--task-column",
                     "task"]) == 2  # fmt: skip
        assert "at least 2 tasks" in capsys.readouterr().err
        flat = suite_table()
        flat.loc[flat["task"] == "read", "correct"] = 1.0  # no variation: SE 0
        flat.to_csv(tmp_path / "flat.csv", index=False)
        assert main(["compare", str(tmp_path / "flat.csv"), *self.LONG, "--task-column",
                     "task", "--resamples", "200"]) == 2  # fmt: skip
        assert "task task=read" in capsys.readouterr().err

    def test_verify_refuses_a_forged_pooled_effect(
        self, table: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        from pdpaired.cli.main import main

        out = tmp_path / "rep"
        assert main(["compare", str(table), *self.LONG, "--task-column", "task", "--seed", "0",
                     "--resamples", "300", "--out", str(out)]) == 0  # fmt: skip
        art = load(out / "comparison.shareable.json")
        art["pooled"]["random"]["estimate"] += 0.02
        forged = tmp_path / "forged.json"
        forged.write_text(json.dumps(redigest(art)), encoding="utf-8")
        capsys.readouterr()
        assert main(["verify", str(forged)]) == 2
        assert "pooled.random.estimate" in capsys.readouterr().err

    def test_as_a_subprocess(self, table: Path, tmp_path: Path) -> None:
        # run from the repository's root: `python -m` imports the package under test
        root = Path(__file__).resolve().parents[2]
        runs = run_all({"suite": (["compare", str(table), *self.LONG, "--task-column", "task",
                                   "--seed", "0", "--resamples", "300", "--out",
                                   str(tmp_path / "o")], "module")}, root)  # fmt: skip
        run = get(runs, "suite")
        assert_ok(run)
        assert "Suite of 4 tasks, new vs old" in run.stdout
        assert pdpaired.verify(tmp_path / "o" / "comparison.json")["kind"] == "local"
