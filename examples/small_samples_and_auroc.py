"""Small evaluation sets: honest intervals, undetermined verdicts, and DeLong's AUROC test.

Run:  python examples/small_samples_and_auroc.py

1. A stratified evaluation with two cases per stratum: the bootstrap is
   Rao-Wu rescaled, so its standard error is the unbiased stratified one.
2. Five cases all won by A: the interval [1, 1] is degenerate, so the verdict
   is "undetermined" and no decision flag is set.
3. The Monte Carlo error of the interval, and n_resamples="auto".
4. Two models with (about) equal AUROC: DeLong's test of equal AUROC.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

import pdpaired


def long_table(a: np.ndarray, b: np.ndarray, **extra: np.ndarray) -> pd.DataFrame:
    n = len(a)
    df = pd.DataFrame(
        {
            "case_id": np.tile(np.arange(n), 2),
            "model": np.repeat(["new", "old"], n),
            "score": np.concatenate([a, b]),
        }
    )
    for k, v in extra.items():
        df[k] = np.tile(v, 2)
    return df


def main() -> None:
    rng = np.random.default_rng(0)

    # 1. ten strata of two cases each
    stratum = np.repeat([f"s{h}" for h in range(10)], 2)
    base = rng.normal(size=20) + np.repeat(rng.normal(size=10), 2)
    df = long_table(base + 0.5, base + rng.normal(0, 1, 20), stratum=stratum)
    with warnings.catch_warnings(record=True) as caught:  # tiny strata: the library says so
        warnings.simplefilter("always", pdpaired.DegenerateDataWarning)
        res = df.paired(stratum="stratum").bootstrap("new", "old", higher_is_better=True, rng=0)
    for w in caught:
        print(f"warning: {w.message}\n")
    d = df[df.model == "new"].score.to_numpy() - df[df.model == "old"].score.to_numpy()
    unbiased = np.sqrt(np.sum(d.reshape(10, 2).var(axis=1, ddof=1) / 2) / 100)
    print(res)
    print(f"bootstrap SE {res.standard_error:.4f}  unbiased stratified SE {unbiased:.4f}\n")

    # 2. a degenerate interval
    five = long_table(np.ones(5), np.zeros(5))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tiny = five.paired.bootstrap("new", "old", higher_is_better=True, rng=0)
    print(f"5 cases all won by A: CI [{tiny.confidence_interval.low:g}, "
          f"{tiny.confidence_interval.high:g}], verdict {tiny.verdict!r}, "
          f"superior_ci {tiny.superior_ci}\n")  # fmt: skip

    # 3. Monte Carlo error, and as many resamples as the endpoints need
    x = rng.normal(0.1, 1.0, 300)
    cont = long_table(x, np.zeros(300))
    auto = cont.paired.bootstrap("new", "old", higher_is_better=True, rng=0, n_resamples="auto")
    se = auto.confidence_interval_se
    print(f"n_resamples='auto' used {auto.n_resamples}; endpoint MC SE {se.low:.2g} / "
          f"{se.high:.2g} (bootstrap SE {auto.standard_error:.3g}); "
          f"decision stable: {auto.decision_stable}\n")  # fmt: skip

    # 4. DeLong's test: equal AUROC, differently shaped ROC curves
    n = 400
    y = rng.integers(0, 2, n)
    z = rng.normal(size=(2, n))
    p_a = np.where(y == 1, 1.0 + z[0], z[0])  # binormal, equal variances
    p_b = np.where(y == 1, 1.58 + 2.0 * z[1], z[1])  # same AUROC, another ROC shape
    auc = pd.DataFrame(
        {
            "case_id": np.tile(np.arange(n), 2),
            "model": np.repeat(["new", "old"], n),
            "y": np.tile(y, 2),
            "p": np.concatenate([p_a, p_b]),
        }
    )
    cmp = auc.paired(target="y", prediction="p").compare("new", "old", metric="auroc")
    print(cmp.delong())


if __name__ == "__main__":
    main()
