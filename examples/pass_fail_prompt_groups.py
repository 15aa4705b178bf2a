"""Pass/fail evaluation with several prompts per task: choose the right unit.

An LLM-evaluation-style comparison (simulated data, clearly labelled): 150
tasks, each asked with 3-12 prompt variants, every answer graded pass/fail for
a candidate and a baseline model. Answers to variants of the same task are
strongly correlated (an easy task is easy in every wording), so the
independent unit is the task, not the prompt.

The script runs the three analyses and shows what goes wrong when the unit is
too small: the case-level interval is too narrow and the case-level tests too
confident, while the task-level (cluster) analyses are honest.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

import pdpaired  # noqa: F401  (registers DataFrame.paired)


def simulate(seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n_tasks = 150
    variants = rng.integers(3, 13, size=n_tasks)
    task = np.repeat(np.arange(n_tasks), variants)
    difficulty = rng.normal(0, 1.5, size=n_tasks)[task]  # shared by both models
    task_gain = rng.normal(0.4, 2.0, size=n_tasks)[task]  # candidate's edge varies by task
    logit_base = 0.3 - difficulty + rng.normal(0, 0.5, size=task.size)
    p_base = 1 / (1 + np.exp(-logit_base))
    p_cand = 1 / (1 + np.exp(-(logit_base + task_gain)))
    ids = [
        f"t{t:03d}-v{i}" for t, n in zip(range(n_tasks), variants, strict=True) for i in range(n)
    ]
    rows = []
    for name, p in (("candidate", p_cand), ("baseline", p_base)):
        u = rng.uniform(size=task.size)
        rows.append(
            pd.DataFrame(
                {"case_id": ids, "model": name, "passed": (u < p).astype(int), "task": task}
            )
        )
    return pd.concat(rows, ignore_index=True)


def main() -> None:
    df = simulate()
    by_task = df.paired(score="passed", group="task")
    by_prompt = df.paired(score="passed", group=None)
    print(f"{df['case_id'].nunique()} prompts in {df['task'].nunique()} tasks (simulated)\n")

    boot = by_task.bootstrap("candidate", "baseline", higher_is_better=True, rng=0)
    naive = by_prompt.bootstrap("candidate", "baseline", higher_is_better=True, rng=0)
    print("Cluster bootstrap over tasks (the honest unit)")
    print(boot, end="\n\n")
    ratio = boot.standard_error / naive.standard_error
    print(f"Prompt-level bootstrap SE is {1 / ratio:.2f}x the task-level SE: too narrow.\n")

    swap = by_task.randomization("candidate", "baseline", higher_is_better=True, rng=0)
    swap_naive = by_prompt.randomization("candidate", "baseline", higher_is_better=True, rng=0)
    print("Randomization test with whole tasks swapping")
    print(swap, end="\n\n")
    print(f"p with task swaps {swap.pvalue:.4f} vs prompt swaps {swap_naive.pvalue:.4f}\n")

    # The exact binomial test assumes independent prompts; pdpaired says so.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exact = by_task.exact_binomial("candidate", "baseline", higher_is_better=True)
    print("Exact binomial test on discordant prompts (assumes independence!)")
    print(exact)
    for w in caught:
        print(f"warning: {w.category.__name__}: {w.message}")


if __name__ == "__main__":
    main()
