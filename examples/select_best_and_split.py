"""Choosing the best of several candidates without fooling yourself: two routes.

1. ``select_best``: eight prompt variants of a model against the baseline on
   the same 400 tasks (simulated pass/fail outcomes; seven variants are
   exactly as good as the baseline, one a little better). The best is
   chosen, and its interval accounts for the choice (the max-t band over all
   candidates, and the Andrews-Kitagawa-McCloskey hybrid), beside the naive
   interval that does not.
2. ``split``: the same choice made on half of the tasks (kept within
   difficulty strata), the winner confirmed once on the other half with a
   report that checks no selection task was used and records the split in
   its artifact, which ``pdpaired.verify`` checks.
3. The same on real data: four classifiers against logistic regression on
   the shipped digits predictions (``load_digits_models``), log loss, the
   images split with whole cross-validation folds kept together (``by``).

    python examples/select_best_and_split.py
"""

from __future__ import annotations

import tempfile
import warnings

import numpy as np
import pandas as pd

import pdpaired
from pdpaired.datasets import load_digits_models


def prompt_evaluations(seed: int = 1, n_tasks: int = 400) -> pd.DataFrame:
    """Pass/fail outcomes of a baseline and eight prompts; "prompt 8" is the better one."""
    rng = np.random.default_rng(seed)
    difficulty = rng.normal(0.3, 1.5, size=n_tasks)
    shifts = {"baseline": 0.0, **{f"prompt {j}": 0.0 for j in range(1, 8)}, "prompt 8": 0.3}
    parts = []
    for model, shift in shifts.items():
        p = 1.0 / (1.0 + np.exp(-(difficulty + shift)))
        parts.append(pd.DataFrame({
            "task": np.arange(n_tasks),
            "model": model,
            "passed": (rng.uniform(size=n_tasks) < p).astype(int),
            "level": np.where(difficulty > 0.3, "easy", "hard"),
        }))  # fmt: skip
    return pd.concat(parts, ignore_index=True)


def main() -> None:
    runs = prompt_evaluations()
    prompts = [m for m in runs.model.unique() if m != "baseline"]
    evals = runs.paired(case="task", score="passed")

    print("== 1. Best of eight prompts, accounting for the choice ==")
    best = evals.select_best(prompts, "baseline", higher_is_better=True, rng=0,
                             n_resamples=4000)  # fmt: skip
    print(best)
    with warnings.catch_warnings():  # ties for the best fall back to max-t, with a warning
        warnings.simplefilter("ignore", pdpaired.DegenerateDataWarning)
        hybrid = evals.select_best(prompts, "baseline", higher_is_better=True, rng=0,
                                   n_resamples=4000, interval="hybrid")  # fmt: skip
    ci = hybrid.confidence_interval
    print(f"{hybrid.method} interval of {hybrid.selected}: [{ci.low:+.4f}, {ci.high:+.4f}]")
    frame = best.to_frame()
    fooled = frame[(frame.naive_low > 0) & (frame.candidate != "prompt 8")]
    print("null prompts whose naive interval excludes 0:", list(fooled.candidate))

    print("\n== 2. Select on half the tasks, confirm on the other half ==")
    sp = evals.split(0.5, stratify="level", rng=0)
    print(sp)
    chosen = (
        sp.selection.paired(case="task", score="passed")
        .select_best(prompts, "baseline", higher_is_better=True, rng=0, n_resamples=4000)
        .selected
    )
    report = sp.confirmation.paired(case="task", score="passed").report(
        chosen, "baseline", higher_is_better=True, rng=0, n_resamples=4000,
        n_permutations=4000, split=sp,
    )  # fmt: skip
    print(f"chosen on the selection half: {chosen}")
    print(report.headline())
    out = tempfile.mkdtemp()
    paths = report.save(out)
    checked = pdpaired.verify(paths["local"])
    print("artifact verified; its split record:", checked["split"])

    print("\n== 3. Four classifiers against logistic regression (digits, log loss) ==")
    digits = load_digits_models()
    loss = digits.paired(score="log_loss")
    res = loss.select_best(None, "logreg", higher_is_better=False, rng=0, n_resamples=2000)
    print(res.to_frame()[["candidate", "improvement", "simultaneous_low", "simultaneous_high"]])
    print(res.headline())
    folds = loss.split(0.5, by="fold", rng=0)
    print(folds)


if __name__ == "__main__":
    main()
