"""Two models on a suite of tasks: each task compared on its own, then pooled.

pdpaired ships no multi-task benchmark, so this script simulates one,
deterministically: six tasks of 0/1-scored items (a few hundred items
each; one task's items come in passages of four questions, a ``group``
column), a candidate whose true gain differs from task to task.

1. ``df.paired.suite``: each task's paired bootstrap (its own design: the
   passage task is resampled by passage), the fixed-effect and the
   random-effects mean across tasks, the between-task variance (REML), the
   prediction interval for an unseen task and simultaneous per-task
   intervals.
2. ``to_frame()``: one row per task, then the pooled rows.
3. ``tau2="dl"``: DerSimonian and Laird's estimator instead of REML.
4. ``gate()`` and ``save()``: the release gate on the random-effects
   interval, and the suite artifact, which ``pdpaired.verify`` checks by
   recomputing the pooling from the per-task numbers.
5. ``plot()``: the forest plot, saved as ``suite_forest.png`` when a
   directory is given::

    python examples/suite_of_tasks.py [OUTPUT_DIR]
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

import pdpaired  # registers df.paired

GAINS = {"arith": 0.06, "code": 0.02, "qa": 0.09, "reading": 0.04, "summ": -0.01, "trivia": 0.07}


def simulated_suite(seed: int = 11) -> pd.DataFrame:
    """One row per (task, item, model) with a 0/1 ``score``; ``group`` for passages."""
    rng = np.random.default_rng(seed)
    parts = []
    for task, gain in GAINS.items():
        n = int(rng.integers(250, 400))
        ease = rng.uniform(0.2, 0.9, n)
        new = rng.random(n) < np.clip(ease + gain, 0, 1)
        old = rng.random(n) < ease
        parts.append(pd.DataFrame({
            "task": task,
            "case_id": np.repeat(np.arange(n), 2),
            "group": np.repeat(np.arange(n) // 4 if task == "reading" else np.arange(n), 2),
            "model": ["new", "old"] * n,
            "score": np.ravel(np.c_[new, old]).astype(float),
        }))  # fmt: skip
    return pd.concat(parts, ignore_index=True)


def main() -> None:
    df = simulated_suite()
    res = df.paired.suite("new", "old", higher_is_better=True, rng=0, n_resamples=2000)
    print(res)
    print()
    cols = ["row", "task", "n_cases", "improvement", "standard_error", "ci_low", "ci_high"]
    print(res.to_frame()[cols].round(4).to_string(index=False))
    dl = df.paired.suite("new", "old", higher_is_better=True, rng=0, n_resamples=2000, tau2="dl")
    print(f"\ntau2: REML {res.tau2:.3g}, DerSimonian-Laird {dl.tau2:.3g}; "
          f"random effects {res.random:+.4f} vs {dl.random:+.4f}")  # fmt: skip
    print(res.gate("not-a-better"))
    with tempfile.TemporaryDirectory() as folder:  # the artifact; verify recomputes the pooling
        paths = res.save(folder)
        print(pdpaired.verify(paths["shareable"]).summary())
    if len(sys.argv) > 1:
        from matplotlib.figure import Figure

        fig = Figure(figsize=(6.4, 4.2), layout="constrained")
        res.plot(ax=fig.subplots())
        out = Path(sys.argv[1]) / "suite_forest.png"
        fig.savefig(out, dpi=100)
        print(f"forest plot: {out}")


if __name__ == "__main__":
    main()
