"""PrivateLabBench's command lines, verbatim, through the installed console script.

Every command line of PrivateLabBench's paired-comparison
document runs verbatim (``pdpaired`` for ``plb``) on files shaped as that
document describes: ``sample_id``, ``target``, the prediction column(s),
string class labels and slice metadata (``site``, ``batch``). Each line is
run as written, and once more with ``--seed 0 --out DIR`` (and fewer
resamples) so that its artifact can be compared with the Python API on the
same seed.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import pdpaired

SCRIPT = Path(sys.executable).parent / "pdpaired"


#: The seven command lines of PrivateLabBench's document (docs/cli.md), verbatim.
COMMANDS = [
    "pdpaired compare candidate.csv baseline.csv --target target --prediction-column prediction --task-type regression --metric rmse",  # noqa: E501
    "pdpaired compare candidate.csv baseline.csv --target target --prediction-column probability_positive --task-type classification --class-labels negative positive --metric auroc --practical-threshold 0.01",  # noqa: E501
    "pdpaired compare candidate.csv baseline.csv --target target --prediction-columns p_alpha p_beta p_gamma --class-labels alpha beta gamma --task-type multiclass --metric log_loss",  # noqa: E501
    "pdpaired compare a.csv b.csv --target target --metric rmse --permutations 5000",
    "pdpaired compare a.csv b.csv --target target --metric auroc --practical-threshold 0.01",
    "pdpaired compare candidate.csv baseline.csv --target target --metric rmse --noninferiority-margin 0.02",  # noqa: E501
    "pdpaired compare candidate.csv baseline.csv --target target --metric rmse --slice-columns site batch",  # noqa: E501
]


SEEDED = "--resamples 2000 --permutations 1000"


#: The directory (task) each command line runs in.
WHERE = ["regression", "binary", "multiclass", "regression", "binary01", "regression",
         "regression"]  # fmt: skip


def write_files(root: Path) -> None:
    """PrivateLabBench-shaped prediction files, one directory per task."""
    rng = np.random.default_rng(16)
    n = 240
    ids = [f"S-{i:05d}" for i in range(n)]
    site = rng.choice(["north", "south", "east"], n)
    batch = rng.choice(["b1", "b2"], n)

    def save(task: str, name: str, **cols: Any) -> None:
        (root / task).mkdir(exist_ok=True)
        frame = pd.DataFrame({"sample_id": ids, **cols, "site": site, "batch": batch})
        frame.sample(frac=1.0, random_state=len(name)).to_csv(root / task / name, index=False)

    y = rng.normal(size=n)
    for names, noise in ((("candidate.csv", "a.csv"), 0.5), (("baseline.csv", "b.csv"), 0.6)):
        pred = y + rng.normal(0, noise, n)
        for name in names:
            save("regression", name, target=y, prediction=pred)
    z = rng.integers(0, 2, n)
    labels = np.where(z == 1, "positive", "negative")
    for name, noise in (("candidate", 1.5), ("baseline", 1.8)):
        p = 1 / (1 + np.exp(-(4 * (z - 0.5) + rng.normal(0, noise, n))))
        save("binary", f"{name}.csv", target=labels, probability_positive=p)
        save("binary01", {"candidate": "a.csv", "baseline": "b.csv"}[name], target=z, prediction=p)
    k = rng.integers(0, 3, n)
    for name, noise in (("candidate", 1.0), ("baseline", 1.3)):
        logits = rng.normal(0, noise, (n, 3))
        logits[np.arange(n), k] += 1.5
        p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
        save("multiclass", f"{name}.csv", target=np.array(["alpha", "beta", "gamma"])[k],
             p_alpha=p[:, 0], p_beta=p[:, 1], p_gamma=p[:, 2])  # fmt: skip


def run(line: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    args = shlex.split(line)
    assert args[0] == "pdpaired"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONWARNINGS"}
    return subprocess.run([str(SCRIPT), *args[1:]], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300, check=False)  # fmt: skip


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("plb")
    write_files(root)
    jobs = {}
    for i, (line, task) in enumerate(zip(COMMANDS, WHERE, strict=True)):
        jobs[f"verbatim-{i}"] = (line, root / task)
        # the same line with a seed, an output directory and fewer resamples (the last
        # --permutations wins), so its artifact can be compared with the Python API's
        jobs[f"seeded-{i}"] = (f"{line} --seed 0 --out {root / f'out-{i}'} {SEEDED}", root / task)
    extra = {  # guardrails and PrivateLabBench's other defaults
        "reversed": ("pdpaired compare candidate.csv baseline.csv --target target "
                     "--prediction-column probability_positive --task-type classification "
                     "--class-labels positive negative --metric auroc --resamples 200 "
                     "--permutations 0", "binary"),
        "no-labels": ("pdpaired compare candidate.csv baseline.csv --target target "
                      "--prediction-column probability_positive --metric auroc", "binary"),
        "skip-test": (f"pdpaired compare a.csv b.csv --target target --metric rmse "
                      f"--permutations 0 --resamples 200 --seed 0 --out {root / 'skip'}",
                      "regression"),
        "no-prediction": ("pdpaired compare candidate.csv baseline.csv --target target "
                          "--metric log_loss --task-type classification", "multiclass"),
        "wrong-task": ("pdpaired compare a.csv b.csv --target target --metric rmse "
                       "--task-type classification", "regression"),
        "skip-with-slice-test": ("pdpaired compare a.csv b.csv --target target --metric rmse "
                                 "--permutations 0 --slice-columns site "
                                 "--include-slice-uncertainty", "regression"),
        "no-target": (
            "pdpaired compare candidate.csv baseline.csv --target truth --metric rmse",
            "regression",
        ),
        "no-direction": ("pdpaired compare long.csv --long --a A --b B --score score",
                         "regression"),
    }  # fmt: skip
    for name, (line, task) in extra.items():
        jobs[name] = (line, root / task)
    pd.DataFrame({"case_id": [1, 1, 2, 2], "model": ["A", "B"] * 2, "score": [1, 0, 1, 1]}).to_csv(
        root / "regression" / "long.csv", index=False
    )
    with ThreadPoolExecutor(max_workers=2) as pool:
        done = dict(zip(jobs, pool.map(lambda j: run(*j), jobs.values()), strict=True))
    return {"root": root, **done}


def python_report(i: int, root: Path) -> pdpaired.ComparisonReport:
    """The Python API's report for command line ``i`` (file stems as model names, seed 0)."""
    args = shlex.split(COMMANDS[i])
    fa, fb = args[2], args[3]
    cwd = root / WHERE[i]
    long = pdpaired.from_tables(pd.read_csv(cwd / fa), pd.read_csv(cwd / fb), id="sample_id",
                                names=(fa[:-4], fb[:-4]))  # fmt: skip

    def opt(flag: str, n: int = 1) -> Any:
        if flag not in args:
            return None
        at = args.index(flag)
        return args[at + 1] if n == 1 else args[at + 1 : at + 1 + n]

    prediction = opt("--prediction-columns", 3) or opt("--prediction-column") or "prediction"
    labels = opt("--class-labels", 3 if "--prediction-columns" in args else 2)
    return long.paired(case="sample_id", target="target", prediction=prediction).report(
        fa[:-4], fb[:-4], metric=opt("--metric"), class_labels=labels, rng=0,
        n_resamples=2_000, n_permutations=1_000,
        practical_threshold=float(opt("--practical-threshold") or 0.0),
        noninferiority_margin=None if opt("--noninferiority-margin") is None
        else float(opt("--noninferiority-margin")),
        slices=opt("--slice-columns", 2),
    )  # fmt: skip


pytestmark = pytest.mark.skipif(
    not (SCRIPT.is_file() and os.access(SCRIPT, os.X_OK)),
    reason="the `pdpaired` console script is not installed (pip install -e . creates it)",
)


@pytest.mark.parametrize("i", range(len(COMMANDS)))
def test_each_command_line_runs_verbatim(runs: dict[str, Any], i: int) -> None:
    proc = runs[f"verbatim-{i}"]
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("Verdict: ")
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("i", range(len(COMMANDS)))
def test_each_command_line_gives_the_python_api_numbers(runs: dict[str, Any], i: int) -> None:
    proc = runs[f"seeded-{i}"]
    assert proc.returncode == 0, proc.stderr
    root = runs["root"]
    art = json.loads((root / f"out-{i}" / "comparison.json").read_text())
    ref = python_report(i, root).to_artifact("local")
    for key in ("metric_a", "metric_b", "improvement_a_over_b", "n_cases"):
        assert art[key] == ref[key], key
    assert art["metric"]["task"] == ref["metric"]["task"]
    assert art["interval"]["low"] == ref["interval"]["low"]
    assert art["interval"]["high"] == ref["interval"]["high"]
    assert art["randomization"]["pvalue"] == ref["randomization"]["pvalue"]
    assert art["decisions"] == ref["decisions"]
    assert art["slices"] == ref["slices"]
    assert "seed 0" in proc.stdout  # the seed the user gave, not a derived one


def test_task_type_classification_is_binary_or_multiclass(runs: dict[str, Any]) -> None:
    root = runs["root"]
    tasks = [json.loads((root / f"out-{i}" / "comparison.json").read_text())["metric"]["task"]
             for i in range(len(COMMANDS))]  # fmt: skip
    assert tasks == ["regression", "binary", "multiclass", "regression", "binary", "regression",
                     "regression"]  # fmt: skip
    # the verdict headline, and who is ahead, on stdout
    assert runs["seeded-1"].stdout.splitlines()[0].startswith("Verdict: ")


def test_permutations_0_skips_the_test(runs: dict[str, Any]) -> None:
    proc = runs["skip-test"]
    assert proc.returncode == 0, proc.stderr
    assert "Randomization test skipped" in proc.stdout
    shareable = runs["root"] / "skip" / "comparison.shareable.json"
    assert json.loads(shareable.read_text())["randomization"] is None
    pdpaired.verify(shareable)
    bad = runs["skip-with-slice-test"]
    assert bad.returncode == 2
    assert "--permutations 0" in bad.stderr
    assert "--include-slice-uncertainty" in bad.stderr


def test_reversed_class_labels_warn(runs: dict[str, Any]) -> None:
    proc = runs["reversed"]
    assert proc.returncode == 0, proc.stderr
    assert "probably reversed" in proc.stderr
    assert "--class-labels negative positive" in proc.stderr  # in flags, not class_labels=


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("no-labels", ["--class-labels"]),
        ("no-prediction", ["--prediction-column", "prediction"]),
        ("wrong-task", ["--task-type classification", "regression"]),
        ("no-direction", ["--higher-is-better", "--lower-is-better"]),
        ("no-target", ["'truth'", "--target"]),
    ],
)
def test_errors_name_flags_not_python_arguments(runs: dict[str, Any], name: str,
                                                words: list[str]) -> None:  # fmt: skip
    proc = runs[name]
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr
    for word in words:
        assert word in proc.stderr, (word, proc.stderr)
    for python in ("class_labels=", "`higher_is_better`", "prediction=", "metric=", "df.paired("):
        assert python not in proc.stderr, (python, proc.stderr)
