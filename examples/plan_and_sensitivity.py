"""Planning a comparison, and bounding what missing outputs could do.

Two questions every evaluation meets before and after it runs:

1. **How many cases?** The digits comparison shipped with pdpaired (k-NN
   against logistic regression, 1,797 images, score 1 when the digit is read
   right) finds k-NN 1.6 points better. How many images would make a
   0.5-point improvement decisive? ``cmp.plan(effect=0.005)`` answers from
   the observed paired design: for 0/1 scores the exact power of the exact
   binomial (McNemar) test, computed by enumerating the discordant counts,
   and the same by simulation.
2. **What could the missing outputs do?** A model that times out on its
   hardest tasks looks better on the tasks it answers.
   ``cmp.sensitivity()`` fills the missing outputs with the worst and the best
   score for the new model: the identified set of the improvement, an
   Imbens-Manski interval covering it, and the tipping point.

Run::

    python examples/plan_and_sensitivity.py                 # PNGs in the temp dir
    python examples/plan_and_sensitivity.py --out-dir docs/_static

The images in ``docs/planning.md`` and ``docs/concepts/missing-outcomes.md``
are made with ``--out-dir docs/_static``.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from pdpaired.datasets import load_digits_cv


def planning(out_dir: Path) -> None:
    cmp = load_digits_cv().paired(score="correct").compare("knn", "logreg", higher_is_better=True)
    exact = cmp.plan(effect=0.005)
    print(exact)
    sim = cmp.plan(effect=0.005, method="simulation", rng=0)
    print(f"\nsimulation ({sim.n_simulations} per size): mde {sim.mde:.4f}, "
          f"n_cases_needed {sim.n_cases_needed} (exact: {exact.n_cases_needed})")  # fmt: skip
    for n in (1797, 4000, exact.n_cases_needed):
        print(f"  power at +0.005 with {n:>5} images: exact {exact.power_at(0.005, n):.3f}, "
              f"simulated {sim.power_at(0.005, n):.3f}")  # fmt: skip
    fig = Figure(figsize=(9, 3.4), layout="constrained")
    ax1, ax2 = fig.subplots(1, 2)
    exact.plot(ax=ax1)
    exact.plot(ax=ax2, x="cases")
    fig.savefig(out_dir / "plan_digits.png", dpi=110)
    # the test you will run: the bootstrap interval above a practical threshold of 0.2
    # points, or the randomization test (a t test with a slightly larger critical value)
    strict = cmp.plan(effect=0.005, test="bootstrap", practical_threshold=0.002)
    flips = cmp.plan(effect=0.005, test="randomization")
    print(f"\ninterval above +0.002: {strict.n_cases_needed} images; randomization test: "
          f"{flips.n_cases_needed}; exact binomial test: {exact.n_cases_needed}")  # fmt: skip
    print("\n".join(strict.to_markdown(image="plan_digits.png").splitlines()[:4]))


def sensitivity(out_dir: Path) -> None:
    rng = np.random.default_rng(0)  # simulated data, as in docs/concepts/missing-outcomes.md
    n = 500
    difficulty = rng.normal(size=n)
    u = rng.uniform(size=(2, n))
    old = (u[0] < 1 / (1 + np.exp(difficulty - 0.5))).astype(float)
    new = (u[1] < 1 / (1 + np.exp(difficulty - 0.8))).astype(float)
    new[difficulty > np.quantile(difficulty, 0.88)] = np.nan  # timeouts on the hardest tasks
    df = pd.concat([
        pd.DataFrame({"case_id": np.arange(n), "model": "new", "solved": new}),
        pd.DataFrame({"case_id": np.arange(n), "model": "old", "solved": old}),
    ])  # fmt: skip
    cmp = df.paired(score="solved").compare(
        "new", "old", higher_is_better=True, missing="complete-case"
    )
    res = cmp.sensitivity()
    print("\n" + str(res))
    fig = Figure(figsize=(6.5, 3.6), layout="constrained")
    res.plot(ax=fig.add_subplot())
    fig.savefig(out_dir / "sensitivity.png", dpi=110)
    # the report carries the bounds: text, Markdown and both artifacts (verified)
    import pdpaired

    rep = cmp.report(n_resamples=2000, n_permutations=2000, rng=0)
    paths = rep.save(Path(tempfile.mkdtemp()))
    block = pdpaired.verify(paths["shareable"])["sensitivity"]
    print(f"\nshareable artifact: identified set [{block['bounds']['low']:+.3f}, "
          f"{block['bounds']['high']:+.3f}], conclusion {block['conclusion']!r}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir", type=Path, default=Path(tempfile.gettempdir()))
    args = parser.parse_args()
    args.out_dir.mkdir(parents=True, exist_ok=True)
    planning(args.out_dir)
    sensitivity(args.out_dir)
    print(f"\nplots written to {args.out_dir}")


if __name__ == "__main__":
    main()
