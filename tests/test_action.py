"""The GitHub Action (``action.yml``): its structure, and its compare step run here.

* A composite action with the documented inputs; ``fail-on`` has no default
  (the gate is the workflow's decision); every input reaches a script through
  ``env:``, never as ``${{ inputs.* }}`` pasted into a ``run:`` block.
* The compare step runs ``pdpaired compare`` with ``--fail-on`` and
  ``--summary-markdown "$GITHUB_STEP_SUMMARY"``, and the artifacts are
  uploaded after it with ``if: always()``, so a failing gate keeps them.
* Its script, run by bash with the inputs in the environment as the runner
  sets them, exits 1 on a failing gate and 0 on a passing one, writes the
  summary and the artifacts, takes file names with spaces and shell syntax
  as plain names, and stops (exit 2) on a bad ``format`` or an unbalanced
  quote in ``args`` instead of running a different comparison.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def action() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "action.yml").read_text())
    return loaded


def step(action: dict[str, Any], name: str) -> dict[str, Any]:
    (found,) = [s for s in action["runs"]["steps"] if s.get("name") == name]
    return found


COMPARE = "Paired comparison and release gate"


# --------------------------------------------------------------------------- structure
def test_a_composite_action_with_the_inputs(action: dict[str, Any]) -> None:
    assert action["runs"]["using"] == "composite"
    inputs = action["inputs"]
    for name in ("candidate", "baseline", "format", "metric", "fail-on", "practical-threshold",
                 "noninferiority-margin", "seed", "args", "out", "python-version",
                 "pdpaired-version", "extras", "install"):  # fmt: skip
        assert name in inputs, name
        assert inputs[name]["description"]
    assert inputs["candidate"]["required"]
    assert inputs["baseline"]["required"]
    assert inputs["fail-on"]["required"]
    assert "default" not in inputs["fail-on"]


def test_no_input_is_pasted_into_a_script(action: dict[str, Any]) -> None:
    inputs = set(action["inputs"])
    runs = [s for s in action["runs"]["steps"] if "run" in s]
    assert len(runs) == 2
    for s in runs:
        assert "${{" not in s["run"], s["name"]
        assert s["shell"] == "bash"
        assert s["run"].startswith("set -euo pipefail\n")
        # every variable the script reads is set by the step (or by the runner)
        used = set(re.findall(r"\$\{?(INPUT_[A-Z_]+)", s["run"]))
        assert used <= set(s["env"]), s["name"]
        for value in s["env"].values():
            assert re.fullmatch(r"\$\{\{ inputs\.([a-z-]+) \}\}", value), value
            assert value.split(".")[1].split(" ")[0] in inputs
    # and every ${{ inputs.x }} anywhere names a declared input
    text = (ROOT / "action.yml").read_text()
    assert set(re.findall(r"inputs\.([a-z-]+)", text)) <= inputs


def test_the_gate_and_the_summary_and_the_upload(action: dict[str, Any]) -> None:
    script = step(action, COMPARE)["run"]
    assert "cmd=(pdpaired compare " in script
    assert '--fail-on "$INPUT_FAIL_ON"' in script
    assert '--summary-markdown "$GITHUB_STEP_SUMMARY"' in script
    assert '--out "$INPUT_OUT"' in script
    steps = action["runs"]["steps"]
    upload = step(action, "Keep the comparison artifacts")
    assert upload["uses"].startswith("actions/upload-artifact@")
    assert upload["if"] == "always()"
    assert upload["with"]["path"] == "${{ inputs.out }}"
    assert steps.index(upload) > steps.index(step(action, COMPARE))
    assert step(action, "Set up Python")["uses"].startswith("actions/setup-python@")


# --------------------------------------------------------------------------- the script, run
def write_predictions(path: Path, error_sd: float, seed: int) -> None:
    rng = np.random.default_rng(seed)
    y = np.linspace(0, 10, 40)
    pd.DataFrame({"case_id": range(40), "y": y, "p": y + rng.normal(0, error_sd, 40)}).to_csv(
        path, index=False
    )


def run_compare(action: dict[str, Any], tmp_path: Path, **inputs: str) -> Any:
    """Run the compare step's script as the runner would, with ``pdpaired`` on PATH."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for name, command in (("pdpaired", f'"{sys.executable}" -m pdpaired'),
                          ("python", f'"{sys.executable}"')):  # fmt: skip
        exe = bin_dir / name
        exe.write_text(f'#!/bin/sh\nexec {command} "$@"\n')
        exe.chmod(0o755)
    summary = tmp_path / "summary.md"
    env = {k: v for k, v in os.environ.items() if not k.startswith("INPUT_")}
    defaults = {k: str(v.get("default", "")) for k, v in action["inputs"].items()}
    values = {**defaults, **inputs}
    for var, ref in step(action, COMPARE)["env"].items():
        env[var] = values[ref.split(".")[1].split(" ")[0]]
    env.update(PATH=f"{bin_dir}{os.pathsep}{env['PATH']}", PYTHONPATH=str(ROOT),
               MPLBACKEND="Agg", GITHUB_STEP_SUMMARY=str(summary))  # fmt: skip
    proc = subprocess.run(["bash", "-c", step(action, COMPARE)["run"]], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
    return proc, summary


ARGS = "--target y --prediction-column p --resamples 500 --permutations 200"


def test_a_failing_gate_fails_the_step_and_writes_the_summary(
    action: dict[str, Any], tmp_path: Path
) -> None:
    write_predictions(tmp_path / "worse model.csv", 2.0, 1)
    write_predictions(tmp_path / "prod.csv", 0.3, 2)
    proc, summary = run_compare(
        action, tmp_path, candidate="worse model.csv", baseline="prod.csv", metric="rmse",
        **{"fail-on": "not-a-better", "seed": "0", "args": ARGS, "out": "reports"},
    )  # fmt: skip
    assert proc.returncode == 1, proc.stdout + proc.stderr
    text = summary.read_text()
    assert "**Release gate** `--fail-on not-a-better`: **failed** (exit 1)." in text
    assert "B (prod) is better than A (worse model)" in text
    assert (tmp_path / "reports" / "comparison.json").is_file()
    assert "Release gate --fail-on not-a-better: FAILED (exit 1)." in proc.stdout


def test_a_passing_gate_passes_and_names_are_never_run(
    action: dict[str, Any], tmp_path: Path
) -> None:
    odd = "cand $(touch pwned); `touch pwned2` 'q.csv"
    write_predictions(tmp_path / odd, 0.3, 1)
    write_predictions(tmp_path / "prod.csv", 2.0, 2)
    proc, summary = run_compare(
        action, tmp_path, candidate=odd, baseline="prod.csv", metric="rmse",
        **{"fail-on": "b-better", "seed": "0", "args": ARGS + " --names 'new model' prod"},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "**Release gate** `--fail-on b-better`: **passed** (exit 0)." in summary.read_text()
    assert "A (new model) is better than B (prod)" in proc.stdout
    assert not (tmp_path / "pwned").exists()
    assert not (tmp_path / "pwned2").exists()
    assert (tmp_path / "pdpaired-report" / "comparison.md").is_file()  # the default `out`


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ({"format": "parquet"}, "format must be csv, lm-eval, inspect, sacrebleu or trec"),
        ({"args": ARGS + " --names 'new model prod"}, "No closing quotation"),
        ({"fail-on": ""}, "--fail-on"),
    ],
    ids=["format", "quote", "no-gate"],
)
def test_bad_input_stops_the_step(
    action: dict[str, Any], tmp_path: Path, inputs: dict[str, str], message: str
) -> None:
    write_predictions(tmp_path / "a.csv", 0.3, 1)
    write_predictions(tmp_path / "b.csv", 2.0, 2)
    given = {"candidate": "a.csv", "baseline": "b.csv", "metric": "rmse", "fail-on": "b-better",
             "args": ARGS, **inputs}  # fmt: skip
    proc, summary = run_compare(action, tmp_path, **given)
    assert proc.returncode not in (0, 1), proc.stdout + proc.stderr
    assert message in proc.stderr
    assert not summary.exists()


def test_an_unbalanced_quote_in_install_stops_before_pip(
    action: dict[str, Any], tmp_path: Path
) -> None:
    script = step(action, "Install pdpaired")["run"]
    env = {**os.environ, "INPUT_INSTALL": "'pdpaired[inspect]", "INPUT_EXTRAS": "",
           "INPUT_VERSION": ""}  # fmt: skip
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    (bin_dir / "python").chmod(0o755)
    env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
    proc = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=60, check=False)  # fmt: skip
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "install: No closing quotation" in proc.stderr
