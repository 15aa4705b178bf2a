"""Which interval method to trust on *this* evaluation: the design audit.

Run:  python examples/design_audit.py

1. Thirty cases whose paired differences are strongly skewed (a few prompts
   where the new model gains a lot): the audit estimates how often each
   interval method would cover the truth on data like these, and which to
   trust. The percentile interval under-covers; the bootstrap-t, which
   method="auto" chooses here, does better.
2. A 0/1 (pass/fail) evaluation of 300 prompts: Tango's and Newcombe's score
   intervals join the bootstrap methods, and the exact binomial test's size
   is audited beside the randomization test's.
3. The audit's coverages with +/- 2 Monte Carlo errors against the nominal
   level, saved as a PNG.

The simulations are sized for a quick run (n_simulations=200); the default,
400, halves the Monte Carlo error's square.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

import pdpaired  # noqa: F401  (registers the accessor)


def long_table(a: np.ndarray, b: np.ndarray) -> pd.DataFrame:
    n = len(a)
    return pd.DataFrame({
        "case_id": np.tile(np.arange(n), 2),
        "model": np.repeat(["new", "old"], n),
        "score": np.concatenate([a, b]).astype(float),
    })  # fmt: skip


def main() -> None:
    rng = np.random.default_rng(7)

    # 1. skewed gains on 30 cases
    base = rng.uniform(0.0, 1.0, 30)
    skewed = long_table(base + rng.lognormal(0.0, 1.0, 30), base)
    cmp = skewed.paired.compare("new", "old", higher_is_better=True)
    audit = cmp.audit(n_simulations=200, n_resamples=499, rng=0)
    print(audit)
    print()
    print(audit.to_frame()[["method", "coverage", "coverage_se", "mean_width", "size"]])
    res = cmp.bootstrap(method=audit.recommended_method, rng=0)
    print()
    print(f"The audited interval ({res.method}): "
          f"[{res.confidence_interval.low:.3f}, {res.confidence_interval.high:.3f}]")  # fmt: skip

    # 2. pass/fail scores on 300 prompts
    old = rng.binomial(1, 0.70, 300)
    new = np.where(rng.uniform(size=300) < 0.92, old, 1 - old)
    binary = long_table(new, old).paired.audit(
        "new", "old", higher_is_better=True, n_simulations=200, n_resamples=499, rng=1
    )
    print()
    print(binary)

    # 3. the plot
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3), layout="constrained")
    audit.plot(ax=ax)
    fig.savefig("design_audit.png", dpi=100)
    plt.close(fig)
    print()
    print("wrote design_audit.png")


if __name__ == "__main__":
    main()
