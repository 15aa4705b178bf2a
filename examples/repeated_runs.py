"""Repeated runs per case: run means, the two-stage bootstrap and the variance components.

pdpaired ships no evaluation with repeated runs, so this script builds one,
deterministically, from the shipped digits data
(``pdpaired.datasets.load_digits_cv``: out-of-fold predictions of k-NN and
logistic regression on 1,797 images). Each model's predicted probability of
the true class, ``exp(-log_loss)``, is what a *sampling* classifier (one
that answers with a class drawn from its predicted distribution, like an LLM
at temperature 1) gets right on that image; each run draws that answer
again, with a fixed seed. k-NN gets 5 runs per image, logistic regression 3.

1. ``df.paired(repeat="sample")``: each image's score is the mean of its
   runs; the runs summary records what was read.
2. The ordinary (one-stage) bootstrap of the run means and the two-stage
   bootstrap (``resample_repeats=True``), which also redraws the runs of
   every resampled image: the same interval up to Monte Carlo error.
3. ``variance_components()``: how much of the spread of the per-image
   improvement is run-to-run noise, and whether more runs per image or more
   images shrink the standard error more (Miller 2024)::

    python examples/repeated_runs.py
"""

from __future__ import annotations

import numpy as np
import pandas as pd

import pdpaired  # noqa: F401  (registers DataFrame.paired)
from pdpaired.datasets import load_digits_cv

RUNS = {"knn": 5, "logreg": 3}


def sampled_runs(seed: int = 2024) -> pd.DataFrame:
    """One row per (image, model, run): whether a class drawn from the model's
    predicted distribution is the right one (probability ``exp(-log_loss)``)."""
    df = load_digits_cv()
    rng = np.random.default_rng(seed)
    parts = []
    for model, r in RUNS.items():
        rows = df[df["model"] == model].sort_values("case_id")
        p_true = np.exp(-rows["log_loss"].to_numpy())
        part = rows[["case_id", "model", "fold"]].loc[rows.index.repeat(r)].copy()
        part["run"] = np.tile(np.arange(r), len(rows))
        part["correct"] = (rng.uniform(size=len(part)) < np.repeat(p_true, r)).astype(int)
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


def main() -> None:
    runs = sampled_runs()
    cmp = runs.paired(repeat="sample", score="correct").compare(
        "knn", "logreg", higher_is_better=True
    )
    print(cmp)
    print("runs:", cmp.runs, "\n")

    one = cmp.bootstrap(rng=0)
    two = cmp.bootstrap(rng=0, resample_repeats=True)
    print(one, "\n")
    ci1, ci2 = one.confidence_interval, two.confidence_interval
    print(f"one-stage  [{ci1.low:+.4f}, {ci1.high:+.4f}]  se {one.standard_error:.4f}")
    print(f"two-stage  [{ci2.low:+.4f}, {ci2.high:+.4f}]  se {two.standard_error:.4f}\n")
    # both estimate the variance of the mean of run means: the same up to Monte Carlo error
    assert abs(two.standard_error / one.standard_error - 1) < 0.1

    vc = cmp.variance_components()
    print(vc, "\n")
    print(vc.to_frame().round(4), "\n")
    n = vc.n_cases
    print(f"SE now                        {vc.se_at():.4f}")
    print(f"SE with 10 runs of each model {vc.se_at(runs=10):.4f}")
    print(f"SE with twice the images      {vc.se_at(n_cases=2 * n):.4f}")
    assert vc.se_at(n_cases=2 * n) < vc.se_at()


if __name__ == "__main__":
    main()
