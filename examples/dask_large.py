"""Compare two models on an evaluation log too large for comfort: pdpaired on Dask.

Writes a partitioned parquet evaluation log (by default 20 million rows: 10
million test cases x 2 models, pass/fail scores, cases nested in 20,000
documents of unequal size) to a temporary directory, then compares the two
models on a local Dask cluster (worker processes) with

* the cluster bootstrap over documents (Dask reduces the log to one row per
  document: two exact sums and a count; the resampling runs on the client),
* the randomization test with whole documents swapped,
* a Poisson bootstrap of a continuous per-case score (latency, lower is
  better), run inside each partition,

and prints the results and the client's peak memory, which does not grow with
the number of rows. Run it as ``python examples/dask_large.py`` (about a minute
on two cores); ``--rows`` sets the size, ``--workers`` the number of worker
processes.
"""

from __future__ import annotations

import argparse
import logging
import os
import resource
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd


def write_log(directory: Path, n_rows: int, n_files: int, seed: int = 7) -> None:
    """Write ``n_rows`` rows (two per case) as ``n_files`` parquet files, chunk by chunk."""
    n_cases = n_rows // 2
    rng = np.random.default_rng(seed)
    n_docs = max(2, min(20_000, n_cases // 50))
    # unequal documents: sizes drawn once, cases assigned in order
    doc_weight = rng.gamma(0.7, size=n_docs)
    doc_bounds = np.concatenate([[0], np.cumsum(doc_weight / doc_weight.sum())]) * n_cases
    per_file = -(-n_cases // n_files)
    for f in range(n_files):
        lo, hi = f * per_file, min(n_cases, (f + 1) * per_file)
        if lo >= hi:
            break
        case = np.arange(lo, hi, dtype=np.int64)
        doc = np.searchsorted(doc_bounds, case, side="right") - 1
        difficulty = np.sin(doc * 12.9898) * 0.5  # shared within a document
        p_base = 1 / (1 + np.exp(-(0.3 + difficulty)))
        p_cand = 1 / (1 + np.exp(-(0.32 + difficulty)))
        u = rng.uniform(size=hi - lo)  # shared difficulty: the models often agree
        u_cand = np.where(rng.uniform(size=hi - lo) < 0.8, u, rng.uniform(size=hi - lo))
        base = (u < p_base).astype(np.int8)
        cand = (u_cand < p_cand).astype(np.int8)
        lat_base = rng.lognormal(0.0, 0.5, hi - lo)
        lat_cand = lat_base * rng.lognormal(-0.01, 0.1, hi - lo)
        frame = pd.DataFrame(
            {
                "case_id": np.concatenate([case, case]),
                "model": np.repeat(["candidate", "baseline"], hi - lo),
                "passed": np.concatenate([cand, base]),
                "latency": np.concatenate([lat_cand, lat_base]),
                "document": np.concatenate([doc, doc]).astype(np.int32),
            }
        )
        frame.to_parquet(directory / f"part-{f:04d}.parquet", index=False)


def peak_rss_mib() -> float:
    """Peak resident memory of this (the client) process so far."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 1024 if sys.platform != "darwin" else peak / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=int(os.environ.get("PDPAIRED_ROWS", 20e6)))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--resamples", type=int, default=2000)
    args = parser.parse_args()

    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    import pdpaired.dask  # noqa: F401  registers ddf.paired

    # the per-case groupby is a Dask shuffle; its scheduler plugin logs each one
    logging.getLogger("distributed.shuffle").setLevel(logging.ERROR)

    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "eval_log"
        log.mkdir()
        t0 = time.perf_counter()
        n_files = max(1, args.rows // 1_000_000)
        # a separate process writes the log, so the peak below is the comparison's alone
        with ProcessPoolExecutor(1) as pool:
            pool.submit(write_log, log, args.rows, n_files).result()
        took = time.perf_counter() - t0
        print(f"wrote {args.rows:,} rows in {n_files} parquet files ({took:.1f} s)")
        rss_before = peak_rss_mib()

        with (
            LocalCluster(
                n_workers=args.workers, threads_per_worker=1, processes=True,
                dashboard_address=":0", memory_limit=None,
            ) as cluster,
            Client(cluster),
        ):  # fmt: skip
            ddf = dd.read_parquet(str(log))
            t0 = time.perf_counter()
            cmp = ddf.paired(score="passed", group="document").compare(
                "candidate", "baseline", higher_is_better=True
            )
            print(f"\npaired and checked {cmp.n_cases:,} cases ({time.perf_counter() - t0:.1f} s)")

            t0 = time.perf_counter()
            boot = cmp.bootstrap(n_resamples=args.resamples, rng=2026)
            print(f"\n--- cluster bootstrap over documents ({time.perf_counter() - t0:.1f} s)")
            print(boot)

            t0 = time.perf_counter()
            test = cmp.randomization(n_permutations=args.resamples, rng=2026)
            print(f"\n--- randomization test, documents swapped ({time.perf_counter() - t0:.1f} s)")
            print(f"improvement {test.statistic:+.5f}, p = {test.pvalue:.4f} ({test.engine})")

            t0 = time.perf_counter()
            lat = ddf.paired(score="latency", group=None).bootstrap(
                "candidate", "baseline", higher_is_better=False, rng=2026,
                n_resamples=min(args.resamples, 500),
            )  # fmt: skip
            took = time.perf_counter() - t0
            print(f"\n--- latency, Poisson bootstrap in partitions ({took:.1f} s)")
            ci = lat.confidence_interval
            print(f"latency reduction {lat.improvement:+.5f} s, 95% CI [{ci.low:+.5f}, "
                  f"{ci.high:+.5f}] ({lat.engine}, {lat.n_resamples} resamples)")  # fmt: skip

        print(f"\npeak client memory: {peak_rss_mib():.0f} MiB "
              f"({rss_before:.0f} MiB before the comparison started)")  # fmt: skip


if __name__ == "__main__":
    main()
