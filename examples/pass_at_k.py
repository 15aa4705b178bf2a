"""Paired pass@k and pass^k from several sampled answers per case.

pdpaired ships no evaluation with sampled answers, so this script builds
one, deterministically, from the shipped digits data
(``pdpaired.datasets.load_digits_cv``: out-of-fold predictions of k-NN and
logistic regression on 1,797 images). Each model's predicted probability of
the true class, ``exp(-log_loss)``, is the chance that a *sampling*
classifier (one that answers with a class drawn from its predicted
distribution, like an LLM at temperature 1) gets that image right; each
sample draws that answer again, with a fixed seed. k-NN gets 10 samples per
image, logistic regression 8.

1. ``df.paired.pass_at_k``: the paired difference of the mean per-image
   pass@k (at least one of k answers right), unbiased per image, for
   k = 1, 3 and 5 (declared before looking).
2. ``df.paired.pass_hat_k``: the same for pass^k (all k answers right).
3. A (case, model) with fewer than k samples is an error naming the cases::

    python examples/pass_at_k.py
"""

from __future__ import annotations

import numpy as np
import pandas as pd

import pdpaired
from pdpaired.datasets import load_digits_cv

SAMPLES = {"knn": 10, "logreg": 8}


def sampled_answers(seed: int = 2024) -> pd.DataFrame:
    """One row per (image, model, sample): whether a sampled answer is right."""
    df = load_digits_cv()
    rng = np.random.default_rng(seed)
    parts = []
    for model, n in SAMPLES.items():
        rows = df[df["model"] == model]
        p = np.exp(-rows["log_loss"].to_numpy())
        correct = rng.random((len(rows), n)) < p[:, None]
        parts.append(pd.DataFrame({
            "case_id": np.repeat(rows["case_id"].to_numpy(), n),
            "model": model,
            "sample": np.tile(np.arange(n), len(rows)),
            "correct": correct.ravel(),
        }))  # fmt: skip
    return pd.concat(parts, ignore_index=True)


def main() -> None:
    df = sampled_answers()
    print(f"{len(df)} sampled answers on {df['case_id'].nunique()} images\n")
    for k in (1, 3, 5):
        res = df.paired.pass_at_k("knn", "logreg", k=k, rng=0, n_resamples=2000)
        ci = res.confidence_interval
        print(f"{res.metric:7s} knn {res.metric_a:.4f}  logreg {res.metric_b:.4f}  "
              f"improvement {res.improvement:+.4f}  [{ci.low:+.4f}, {ci.high:+.4f}]  "
              f"{res.verdict}")  # fmt: skip
    for k in (3, 5):
        res = df.paired.pass_hat_k("knn", "logreg", k=k, rng=0, n_resamples=2000)
        ci = res.confidence_interval
        print(f"{res.metric:7s} knn {res.metric_a:.4f}  logreg {res.metric_b:.4f}  "
              f"improvement {res.improvement:+.4f}  [{ci.low:+.4f}, {ci.high:+.4f}]  "
              f"{res.verdict}")  # fmt: skip
    print()
    print(df.paired.pass_at_k("knn", "logreg", k=5, rng=0, n_resamples=2000))
    print()
    try:
        df.paired.pass_at_k("knn", "logreg", k=9)
    except pdpaired.PairingError as err:
        print(f"k=9: {err}")


if __name__ == "__main__":
    main()
