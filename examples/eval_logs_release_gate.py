"""Compare two models from their evaluation logs, and gate a release on the verdict.

The logs are real output of lm-evaluation-harness (``samples_*.jsonl``, written
with ``--log_samples``), of inspect_ai (``.eval`` logs of its offline mock
model) and of HELM (run directories of its offline test client), kept in
pdpaired's repository under tests/data/ with the scripts that made them. In
the first two pairs of runs one record has no score (a document the second
run did not evaluate; a sample whose model call failed): a missing outcome
that the comparison handles by a declared policy, never by dropping it
silently.

The same decision from the command line (what a CI step runs):

    pdpaired compare --lm-eval runs/large runs/small --metric acc --tasks tiny_arith \
        --missing complete-case --noninferiority-margin 0.05 \
        --fail-on not-noninferior --summary-markdown "$GITHUB_STEP_SUMMARY"
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import pandas as pd

import pdpaired
from pdpaired.io import read_helm, read_inspect, read_lm_eval

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
RUNS = DATA / "lm_eval" / "runs"
LOGS = DATA / "inspect"
HELM = DATA / "helm" / "runs"


def lm_eval_gate() -> None:
    print("== lm-evaluation-harness: task tiny_arith, metric acc ==")
    long = pd.concat(
        [read_lm_eval(RUNS / m, metric="acc", tasks=["tiny_arith"]) for m in ("large", "small")]
    )
    counts = long.groupby("model")["case_id"].nunique().to_dict()
    print(f"documents per run: {counts}  (the large run lacks one)")
    cmp = long.paired.compare("large", "small", higher_is_better=True, missing="complete-case")
    rep = cmp.report(n_resamples=5000, n_permutations=2000, noninferiority_margin=0.05, rng=0)
    print(rep.bootstrap)
    for fail_on in ("b-better", "not-a-better", "not-noninferior"):
        print(rep.gate(fail_on))


def inspect_gate() -> None:
    print("\n== inspect_ai: task tiny_sums, scorer match ==")
    if importlib.util.find_spec("inspect_ai") is None:
        print('inspect_ai is not installed (pip install "pdpaired[inspect]"); skipped')
        return
    long = pd.concat([read_inspect(LOGS / "large.eval"), read_inspect(LOGS / "small.eval")])
    print(long.loc[long["score"].isna(), ["case_id", "model", "error"]].to_string(index=False))
    cmp = long.paired.compare(
        "mockllm/large", "mockllm/small", higher_is_better=True, missing="as-failure"
    )
    # 20 cases, 11 discordant: pdpaired warns that the exact test is the one to trust here
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", pdpaired.DegenerateDataWarning)
        rep = cmp.report(n_resamples=5000, n_permutations=2000, slices=["level"],
                         min_slice_size=5, rng=0)  # fmt: skip
    for w in caught:
        print(f"warning: {w.message}")
    print(rep.bootstrap)
    print(rep.exact_binomial)
    print(rep.gate("not-a-better"))


def helm_runs() -> None:
    print("\n== HELM: simple_mcqa, two runs of its offline test client ==")
    em = read_helm(HELM, metric="exact_match")
    print(f"exact_match: {len(em)} records, every one {em['score'].unique().tolist()}")
    rt = read_helm(HELM, metric="inference_runtime")
    print(rt.groupby("model")["score"].mean().to_string())
    # train trials are repeats of a case; a lower-cased copy belongs with its original
    res = rt.paired(repeat="sample", run="train_trial", group="instance_id").randomization(
        "simple/model2", "simple/model1", higher_is_better=False, rng=0
    )
    print(res)


def command_line_gate() -> None:
    print("\n== the same gate from the command line ==")
    summary = Path(tempfile.mkdtemp()) / "summary.md"
    cmd = [sys.executable, "-m", "pdpaired", "compare", "--lm-eval", str(RUNS / "large"),
           str(RUNS / "small"), "--metric", "acc", "--tasks", "tiny_arith", "--missing",
           "complete-case", "--noninferiority-margin", "0.05", "--fail-on", "not-noninferior",
           "--resamples", "5000", "--permutations", "2000", "--seed", "0",
           "--summary-markdown", str(summary)]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    print(proc.stdout.strip().splitlines()[-1])
    print(f"exit status {proc.returncode}; the job summary starts with:")
    print("\n".join(summary.read_text(encoding="utf-8").splitlines()[:3]))
    if proc.returncode not in (0, 1):
        raise SystemExit(proc.stderr)


if __name__ == "__main__":
    lm_eval_gate()
    inspect_gate()
    helm_runs()
    command_line_gate()
