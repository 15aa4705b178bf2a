"""What does the design audit cost at 10,000 cases with its default settings?

``cmp.audit()`` runs ``n_simulations`` (400) outer resamples of the design and,
on each, every candidate interval with ``n_resamples`` (999) inner replicates
plus the randomization test (999 sign-flip assignments): for continuous scores
the percentile, basic, BCa and bootstrap-t intervals share one joint draw of
the inner replicates per outer resample, so the work is about
``400 x 999 x 10,000`` index draws gathering two columns, and as many sign
flips. This script times the call on continuous scores and on 0/1 scores
(whose inner bootstraps use the multinomial engine), each after a warm-up
call that loads numba's kernels, best of ``--repeats``, and prints a
Markdown table. Run from the repository root::

    python benchmarks/audit.py              # 10,000 cases, default settings
    python benchmarks/audit.py --tiny       # a smoke run (1,000 cases, 20 simulations)

Other processes using the cores inflate the timings; the table says how many
cores the machine has.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import pandas as pd

import pdpaired


def table(n: int, *, binary: bool, seed: int = 0) -> pd.DataFrame:
    """A long table of two models on ``n`` cases (fixed seed)."""
    rng = np.random.default_rng(seed)
    if binary:
        b = rng.binomial(1, 0.70, n)
        a = np.where(rng.uniform(size=n) < 0.9, b, 1 - b)
    else:
        b = rng.normal(0.0, 1.0, n)
        a = b + rng.normal(0.02, 0.5, n)
    return pd.DataFrame({
        "case_id": np.tile(np.arange(n), 2), "model": np.repeat(["A", "B"], n),
        "score": np.concatenate([a, b]).astype(float),
    })  # fmt: skip


def time_audit(df: pd.DataFrame, n_simulations: int, repeats: int) -> tuple[float, object]:
    """Best wall-clock seconds of ``cmp.audit`` over ``repeats`` calls, after a warm-up call."""
    cmp = df.paired.compare("A", "B", higher_is_better=True)
    cmp.audit(n_simulations=2, rng=0, progress=False)  # loads numba's kernels
    best, res = float("inf"), None
    for r in range(repeats):
        t0 = time.perf_counter()
        res = cmp.audit(n_simulations=n_simulations, rng=r, progress=False)
        best = min(best, time.perf_counter() - t0)
    return best, res


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tiny", action="store_true", help="1,000 cases, 20 simulations")
    parser.add_argument("--repeats", type=int, default=1, help="timed calls per case (best kept)")
    args = parser.parse_args()
    n, sims = (1_000, 20) if args.tiny else (10_000, 400)
    rows = []
    for label, binary in (("continuous", False), ("0/1", True)):
        seconds, res = time_audit(table(n, binary=binary), sims, args.repeats)
        frame = res.to_frame()  # type: ignore[attr-defined]
        methods = ", ".join(frame["method"])
        rows.append(f"| {label} | {n:,} | {sims} | 999 | {methods} | {seconds:.1f} |")
        print(f"{label}: {seconds:.1f} s", flush=True)
    print()
    print(f"pdpaired {pdpaired.__version__}, {os.cpu_count()} cores")
    print()
    print("| scores | cases | simulations | resamples | methods and tests | seconds |")
    print("|---|---:|---:|---:|---|---:|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
