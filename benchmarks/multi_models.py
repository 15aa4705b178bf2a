"""Benchmark: several models from one joint bootstrap vs k - 1 two-model bootstraps.

Run from the repository root::

    python benchmarks/multi_models.py                  # k = 10, 1e5 cases, 10,000 resamples
    python benchmarks/multi_models.py --cases 20000    # other sizes
    python benchmarks/multi_models.py --tiny           # a smoke run

The table has ``k`` models scored on the same cases (continuous scores, so the
two-model bootstrap resamples indices). Timed, best of ``--repeat``:

* ``two-model x (k-1)``: ``compare(m, "m0")`` is built once per model, then
  the timed part is the ``k - 1`` calls ``cmp.bootstrap(...)`` (core time:
  design, draws, interval);
* ``against (joint)``: ``df.paired.against("m0", ...)`` in one call (pairing of
  every model, one joint resampling, every interval and the p-values);
* ``joint core``: the joint resampling alone (``pdpaired.core.multi.joint_replicates``
  on the ``k - 1`` resamplers), the part that replaces the ``k - 1`` draws;
* ``all_pairs (joint)``: ``df.paired.all_pairs(...)``, ``k (k - 1) / 2`` comparisons.

The rows of ``against`` are checked to equal the two-model results. The Markdown
table is printed and written to ``benchmarks/results/latest-multi.md``.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd

import pdpaired
from pdpaired._lib.rng import normalize_rng
from pdpaired.analysis.comparison import bootstrap_parts
from pdpaired.core.multi import joint_replicates
from pdpaired.core.options import bootstrap_iv


def table(k: int, n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    base = rng.normal(size=n)
    parts = [
        pd.DataFrame(
            {
                "case_id": np.arange(n),
                "model": f"m{j}",
                "score": base + 0.01 * j + rng.normal(0.0, 0.5, n),
            }
        )
        for j in range(k)
    ]
    return pd.concat(parts, ignore_index=True)


def best_of(fn, repeat: int) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", type=int, default=10)
    ap.add_argument("--cases", type=int, default=100_000)
    ap.add_argument("--resamples", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--tiny", action="store_true")
    args = ap.parse_args()
    if args.tiny:
        args.models, args.cases, args.resamples, args.repeat = 4, 500, 256, 1
    k, n, r = args.models, args.cases, args.resamples
    df = table(k, n)
    kw = {"higher_is_better": True, "rng": 0, "n_resamples": r}
    others = [f"m{j}" for j in range(1, k)]
    cmps = [df.paired.compare(m, "m0", higher_is_better=True) for m in others]
    # warm up numba's kernels (compiled or loaded from its cache) outside the timings
    df[df.case_id < 8].paired.against("m0", higher_is_better=True, rng=0, n_resamples=64)
    cmps[0].bootstrap(rng=0, n_resamples=64)

    t_two, twos = best_of(lambda: [c.bootstrap(rng=0, n_resamples=r) for c in cmps], args.repeat)
    # per-comparison intervals, to check them against the two-model calls (the default
    # simultaneous band only adds one quantile over the joint replicates)
    t_against, res = best_of(lambda: df.paired.against("m0", **kw, simultaneous=False), args.repeat)
    for got, ref in zip(res.comparisons, twos, strict=True):
        assert got.confidence_interval == ref.confidence_interval
        assert np.array_equal(got.bootstrap_distribution, ref.bootstrap_distribution)

    opts = bootstrap_iv(
        n_resamples=r, confidence_level=0.95, method="percentile", batch=None,
        practical_threshold=0.0, noninferiority_margin=None,
    )  # fmt: skip
    seed = normalize_rng(0)
    plans = [
        bootstrap_parts(
            c, opts, seed, unit=None, weighting="item", stratified=None, stratum_weights=None
        )[0].resampler
        for c in cmps
    ]
    t_core, _ = best_of(lambda: joint_replicates(plans, r, seed.seed_sequence, None), args.repeat)
    t_one, _ = best_of(lambda: plans[0].replicates(r, seed.seed_sequence, None), args.repeat)
    t_pairs, allp = best_of(lambda: df.paired.all_pairs(**kw), 1)

    engine = res.comparisons[0].engine
    threads = os.environ.get("NUMBA_NUM_THREADS") or os.cpu_count()
    rows = [
        ("two-model bootstrap x (k-1), core", t_two, k - 1),
        ("one two-model draw (replicates only)", t_one, 1),
        ("joint core: one draw for k-1 comparisons", t_core, k - 1),
        ("against(): pairing + joint draw + intervals", t_against, k - 1),
        ("all_pairs(): pairing + joint draw + intervals", t_pairs, len(allp.comparisons)),
    ]
    lines = [
        f"# Several models: k = {k}, {n:,} cases, {r:,} resamples "
        f"(engine {engine}, {threads} threads, pdpaired {pdpaired.__version__})",
        "",
        "| what | seconds | comparisons |",
        "|---|---:|---:|",
        *[f"| {name} | {t:.2f} | {c} |" for name, t, c in rows],
        "",
        f"joint core / (k-1 two-model bootstraps): {t_core / t_two:.2f}; "
        f"against() / (k-1 two-model bootstraps): {t_against / t_two:.2f}",
    ]
    text = "\n".join(lines)
    print(text)
    if not args.tiny:
        out = Path(__file__).resolve().parent / "results" / "latest-multi.md"
        out.write_text(text + "\n")


if __name__ == "__main__":
    main()
