"""Crossed factors: training seeds and prompt templates shared by every case.

A simulated evaluation of two models on 120 questions, each model trained
with 4 seeds and asked with 3 prompt templates: every question is answered
under every (seed, template), so the seeds and templates are *crossed* with
the questions, and a seed's luck is shared by all of them.

1. ``df.paired(repeat="sample", factors=["seed", "prompt"])``: A and B are
   paired within every (question, seed, template) cell.
2. The case-only bootstrap (``resample_factors=False``) covers new questions
   with these same seeds and templates; it warns, and it is far too short
   when the seeds matter. The pigeonhole bootstrap
   (``resample_factors=True``) resamples questions, seeds and templates.
3. ``variance_components()``: one row per axis, and ``plan()``: one more
   seed or 200 more questions?
4. A missing cell follows the ``missing=`` policy::

    python examples/crossed_factors.py
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

import pdpaired


def simulated(seed: int = 2) -> pd.DataFrame:
    """One row per (question, model, seed, template): correct or not."""
    rng = np.random.default_rng(seed)
    n, seeds, prompts = 120, 4, 3
    skill = rng.normal(0, 1.5, n)
    seed_a = rng.normal(0, 0.6, seeds)  # the new model's seeds differ more
    seed_b = rng.normal(0, 0.2, seeds)
    tmpl = rng.normal(0, 0.3, prompts)
    i, s, t = (
        g.ravel()
        for g in np.meshgrid(np.arange(n), np.arange(seeds), np.arange(prompts), indexing="ij")
    )
    parts = []
    for model, lift, by_seed in (("new", 0.3, seed_a), ("old", 0.0, seed_b)):
        p = 1 / (1 + np.exp(-(skill[i] + lift + by_seed[s] + tmpl[t])))
        correct = (rng.uniform(size=p.size) < p).astype(int)
        parts.append(
            pd.DataFrame(
                {
                    "case_id": i,
                    "model": model,
                    "seed": s,
                    "prompt": [f"template-{k}" for k in t],
                    "correct": correct,
                }
            )
        )
    return pd.concat(parts, ignore_index=True)


def main() -> None:
    df = simulated()
    accessor = df.paired(repeat="sample", factors=["seed", "prompt"], score="correct")
    cmp = accessor.compare("new", "old", higher_is_better=True)
    print("design:", cmp.crossed)
    print(f"improvement: {cmp.improvement:+.4f}\n")

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cases = cmp.bootstrap(rng=0, n_resamples=4000)
    print("case-only bootstrap:", caught[0].message)
    print(cases, "\n")
    both = cmp.bootstrap(rng=0, n_resamples=4000, resample_factors=True)
    print("pigeonhole bootstrap (questions, seeds and templates resampled):")
    print(both, "\n")

    vc = cmp.variance_components()
    print(vc, "\n")
    print(vc.to_frame().round(4).to_string(index=False), "\n")
    print("one more seed, or 200 more questions?")
    print(vc.plan(add_cases=200, add_levels=1).round(4).to_string(index=False))
    low, high = vc.interval()
    dof = vc.degrees_of_freedom
    print(f"\nt interval of the components ({dof:.2g} df): [{low:+.3f}, {high:+.3f}]")

    # a question the new model was not asked with template-2 under seed 1
    gone = (
        df["case_id"].eq(7) & df["seed"].eq(1) & df["prompt"].eq("template-2")
        & df["model"].eq("new")
    )  # fmt: skip
    try:
        df[~gone].paired(repeat="sample", factors=["seed", "prompt"], score="correct").compare(
            "new", "old", higher_is_better=True
        )
    except pdpaired.PairingError as err:
        print("\nmissing='error':", str(err).splitlines()[0])
    dropped = (
        df[~gone]
        .paired(repeat="sample", factors=["seed", "prompt"], score="correct")
        .compare("new", "old", higher_is_better=True, missing="complete-case")
    )
    print("missing='complete-case':", dropped.crossed)
    print("  ", dropped.missing.describe())


if __name__ == "__main__":
    main()
