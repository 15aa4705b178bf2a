"""Five classifiers on the same images: against a baseline, all pairs, and rank sets.

The digits data shipped with pdpaired in its five-model version
(``pdpaired.datasets.load_digits_models``): out-of-fold predictions of
logistic regression, k-NN, LDA, Gaussian naive Bayes and a decision tree on
the same 1,797 images and the same ten folds.

1. Every model against logistic regression (log loss, lower is better), from
   one joint bootstrap of the images, p-values Holm-adjusted across the four
   comparisons, and intervals that hold for all four at once (the max-t band,
   the default); with ``simultaneous=False`` each row equals the two-model
   ``bootstrap`` with the same seed.
2. Every pair, and the coherence of the joint replicates
   (replicate of knn - nb == knn - logreg + logreg - nb).
3. Simultaneous 95% confidence sets for the ranks (Mogstad, Romano, Shaikh &
   Wilhelm 2024), and a forest plot and a rank plot saved as PNG.
4. One report of every comparison: ``res.save(dir)`` writes the artifact
   ``paired-comparison-artifact/v2`` (a ``comparisons`` list), which
   ``pdpaired.verify`` checks -- what ``pdpaired compare ... --baseline``
   writes on the command line::

    python examples/several_models.py                 # PNGs in the temp dir
    python examples/several_models.py --out plots/    # PNGs where you want them
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

import pdpaired
from pdpaired.datasets import load_digits_models


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()))
    args = ap.parse_args()
    df = load_digits_models()
    acc = df.paired(score="log_loss")

    res = acc.against("logreg", higher_is_better=False, rng=0)
    print(res)
    print(f"simultaneous: each improvement +- {res.critical_value:.3f} bootstrap SEs\n")
    own = acc.against("logreg", higher_is_better=False, rng=0, simultaneous=False)
    print(own)
    for row in own.comparisons:
        two = acc.bootstrap(row.a, row.b, higher_is_better=False, rng=0)
        assert two.confidence_interval == row.confidence_interval  # the two-model call
    print("simultaneous=False: each row equals the two-model bootstrap with seed 0\n")

    allp = acc.all_pairs(higher_is_better=False, rng=0)
    frame = allp.to_frame()
    index = {(a, b): i for i, (a, b) in enumerate(zip(frame.a, frame.b, strict=True))}
    d = allp.bootstrap_distribution
    gap = d[index["knn", "nb"]] - (d[index["knn", "logreg"]] + d[index["logreg", "nb"]])
    print(f"coherence: max |(knn-nb) - (knn-logreg) - (logreg-nb)| = {np.abs(gap).max():.1e}\n")

    ranks = allp.ranks()
    print(ranks)

    args.out.mkdir(parents=True, exist_ok=True)
    fig = Figure(figsize=(7, 6))
    allp.plot(ax=fig.add_subplot(2, 1, 1))
    ranks.plot(ax=fig.add_subplot(2, 1, 2))
    fig.tight_layout()
    path = args.out / "several_models.png"
    fig.savefig(path, dpi=100)
    print(f"\nforest plot and rank plot: {path}")

    paths = res.save(args.out / "several-models-report")
    art = pdpaired.verify(paths["shareable"])
    assert [c["interval"]["low"] for c in art["comparisons"]] == [
        r.confidence_interval.low for r in res.comparisons
    ]
    print(f"\n{art!r}")


if __name__ == "__main__":
    main()
