"""Benchmark: the pandas path vs the Dask path on partitioned parquet evaluation logs.

Run from the repository root::

    python benchmarks/dask_scale.py                       # 1e6, 1e7, 5e7 rows (~25 min)
    python benchmarks/dask_scale.py --rows 1e6 --rows 1e7 # chosen sizes
    python benchmarks/dask_scale.py --rows 1e7 --design stratified

For each size a log is written to a temporary directory (1e6 rows per parquet
file; two rows per case, pass/fail score, cases nested in 20,000 documents of
unequal size). Each measurement runs in its own subprocess, which reads the
log and runs one whole analysis, so its peak resident memory (``ru_maxrss``)
is the analysis' alone:

* ``cluster``: ``compare`` + cluster bootstrap over documents (2,000
  resamples) + randomization test with document swaps (2,000);
* ``binary``: ``compare`` + bootstrap of 0/1 scores by case (multinomial,
  2,000) + randomization (binomial, 2,000) + exact binomial test;
* ``stratified`` (the pairing benchmark's table, its own log): string case ids
  ``case-00000001``, continuous scores, a group per 100 cases, 8 strata;
  ``compare`` + stratified cluster bootstrap (10,000 resamples) + stratified
  randomization test with group swaps (2,000).

The pandas path reads the parquet files with ``pd.read_parquet`` and uses
``df.paired``; the Dask path uses ``dd.read_parquet`` and ``ddf.paired`` on a
``distributed.LocalCluster`` of two single-threaded worker processes, and
"client memory" is the peak of the client process (the workers hold the
partitions). The pandas path is skipped above ``--pandas-max`` rows. Both paths
must give the same numbers: the bootstrap distributions' sha256 are compared.
The Markdown report is printed and written to
``benchmarks/results/latest-dask.md``.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import hashlib
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent


def write_log(directory: Path, n_rows: int, seed: int = 11) -> None:
    """Write ``n_rows`` rows as parquet files of 1e6 rows, one chunk at a time."""
    n_cases = n_rows // 2
    rng = np.random.default_rng(seed)
    n_docs = min(20_000, max(2, n_cases // 50))
    weight = rng.gamma(0.7, size=n_docs)
    bounds = np.concatenate([[0], np.cumsum(weight / weight.sum())]) * n_cases
    per_file = 500_000
    for f, lo in enumerate(range(0, n_cases, per_file)):
        hi = min(n_cases, lo + per_file)
        case = np.arange(lo, hi, dtype=np.int64)
        doc = np.searchsorted(bounds, case, side="right") - 1
        p = 1 / (1 + np.exp(-(0.3 + 0.5 * np.sin(doc * 12.9898))))
        u = rng.uniform(size=hi - lo)
        u_cand = np.where(rng.uniform(size=hi - lo) < 0.8, u, rng.uniform(size=hi - lo))
        frame = pd.DataFrame(
            {
                "case_id": np.concatenate([case, case]),
                "model": np.repeat(["candidate", "baseline"], hi - lo),
                "passed": np.concatenate([(u_cand < p + 0.005), (u < p)]).astype(np.int8),
                "document": np.concatenate([doc, doc]).astype(np.int32),
            }
        )
        frame.to_parquet(directory / f"part-{f:05d}.parquet", index=False)


def write_strings_log(directory: Path, n_rows: int, seed: int = 0) -> None:
    """Parquet files of 1e6 rows, pairing_scale.py's table: string ids, groups of 100, 8 strata."""
    n_cases = n_rows // 2
    rng = np.random.default_rng(seed)
    per_file = 500_000
    for f, lo in enumerate(range(0, n_cases, per_file)):
        hi = min(n_cases, lo + per_file)
        case = np.arange(lo, hi, dtype=np.int64)
        ids = pd.Series(case).map("case-{:08d}".format).to_numpy(dtype=object)
        base = rng.normal(size=hi - lo)
        frame = pd.DataFrame(
            {
                "case_id": np.concatenate([ids, ids]),
                "model": np.repeat(["candidate", "baseline"], hi - lo),
                "score": np.concatenate(
                    [base + rng.normal(0.01, 1, hi - lo), base + rng.normal(0, 1, hi - lo)]
                ),
                "group": np.tile(case // 100, 2),
                "stratum": np.tile((case // 100) % 8, 2).astype(np.int8),
            }
        )
        frame.to_parquet(directory / f"part-{f:05d}.parquet", index=False)


LOGS = {"cluster": write_log, "binary": write_log, "stratified": write_strings_log}


def _digest(x: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(x).tobytes()).hexdigest()[:16]


def _columns(design: str) -> dict[str, str]:
    if design == "stratified":
        return {"score": "score", "group": "group", "stratum": "stratum"}
    return {"score": "passed", "group": "document"}


def worker(path: str, engine: str, design: str) -> None:
    """Run one analysis and print a JSON line with its time, memory and results."""
    import warnings

    warnings.filterwarnings("ignore", category=DeprecationWarning)
    t0 = time.perf_counter()
    if engine == "pandas":
        import pdpaired

        del pdpaired
        table = pd.read_parquet(path)
        acc = table.paired(**_columns(design))
        client = None
    else:
        import logging

        import dask.dataframe as dd
        from distributed import Client, LocalCluster

        import pdpaired.dask

        del pdpaired
        logging.getLogger("distributed").setLevel(logging.ERROR)
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                               dashboard_address=":0", memory_limit=None)  # fmt: skip
        client = Client(cluster)
        t0 = time.perf_counter()  # the cluster's start-up is not the analysis
        acc = dd.read_parquet(path).paired(**_columns(design))
    cmp = acc.compare("candidate", "baseline", higher_is_better=True)
    t_compare = time.perf_counter() - t0
    out: dict[str, object] = {"n_cases": cmp.n_cases}
    if design == "cluster":
        boot = cmp.bootstrap(n_resamples=2000, rng=1)
        test = cmp.randomization(n_permutations=2000, rng=1)
    elif design == "stratified":
        boot = cmp.bootstrap(n_resamples=10_000, rng=1, stratified=True)
        test = cmp.randomization(n_permutations=2000, rng=1)  # within strata: the design
    else:
        boot = cmp.bootstrap(n_resamples=2000, rng=1, unit="case")
        test = cmp.randomization(n_permutations=2000, rng=1, unit="case")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exact = cmp.exact_binomial()
        out["exact_pvalue"] = exact.pvalue
    seconds = time.perf_counter() - t0
    out.update(
        seconds=seconds,
        compare_seconds=t_compare,
        peak_mib=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        boot_sha=_digest(boot.bootstrap_distribution),
        null_sha=_digest(test.null_distribution),
        ci=[boot.confidence_interval.low, boot.confidence_interval.high],
        pvalue=test.pvalue,
        engines=[boot.engine, test.engine],
    )
    if client is not None:
        client.close()
        cluster.close()
    print("RESULT " + json.dumps(out))


def run(path: Path, engine: str, design: str) -> dict[str, object]:
    cmd = [sys.executable, __file__, "--worker", str(path), engine, design]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])  # type: ignore[no-any-return]
    return {"error": proc.stderr.strip().splitlines()[-1] if proc.stderr else "no output"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, action="append")
    parser.add_argument("--pandas-max", type=float, default=5e7)
    parser.add_argument("--out", default=str(HERE / "results" / "latest-dask.md"))
    parser.add_argument("--design", action="append", choices=list(LOGS),
                        help="analyses to run (default: all three)")  # fmt: skip
    parser.add_argument("--worker", nargs=3)
    args = parser.parse_args()
    if args.worker:
        worker(*args.worker)
        return
    sizes = [int(r) for r in (args.rows or [1e6, 1e7, 5e7])]
    cpu = platform.processor() or platform.machine()
    lines = [
        "# pandas path vs Dask path (partitioned parquet log)",
        "",
        f"{_dt.datetime.now(_dt.UTC):%Y-%m-%d %H:%M} UTC, {cpu}, "
        f"{os.cpu_count()} cores; Python {platform.python_version()}; pandas {pd.__version__}. "
        "Dask: LocalCluster, 2 worker processes x 1 thread. Times include reading the "
        "parquet files; 'memory' is the peak RSS of the process running the analysis "
        "(for Dask the client; its workers hold the partitions).",
        "",
        "| rows | design | path | seconds | rows/s | compare s | memory MiB | same numbers |",
        "|---:|---|---|---:|---:|---:|---:|---|",
    ]
    designs = args.design or list(LOGS)
    for n in sizes:
        for writer in dict.fromkeys(LOGS[d] for d in designs):
            with tempfile.TemporaryDirectory() as tmp:
                path = Path(tmp)
                t0 = time.perf_counter()
                writer(path, n)
                print(f"wrote {n:,} rows in {time.perf_counter() - t0:.1f} s", flush=True)
                for design in (d for d in designs if LOGS[d] is writer):
                    res = {}
                    for engine in ("pandas", "dask"):
                        if engine == "pandas" and n > args.pandas_max:
                            res[engine] = {"error": f"skipped (> {args.pandas_max:.0e} rows)"}
                        else:
                            res[engine] = run(path, engine, design)
                        print(n, design, engine, res[engine], flush=True)
                    ref = res["pandas"]
                    for engine in ("pandas", "dask"):
                        r = res[engine]
                        if "error" in r:
                            lines.append(
                                f"| {n:.0e} | {design} | {engine} | {r['error']} | | | | |"
                            )
                            continue
                        same = (
                            "—"
                            if engine == "pandas" or "error" in ref
                            else ("yes (sha256 equal)" if (r["boot_sha"], r["null_sha"]) ==
                                  (ref["boot_sha"], ref["null_sha"]) else "NO")
                        )  # fmt: skip
                        secs = float(r["seconds"])  # type: ignore[arg-type]
                        lines.append(
                            f"| {n:.0e} | {design} | {engine} | {secs:.1f} | {n / secs:,.0f} | "
                            f"{float(r['compare_seconds']):.1f} | {float(r['peak_mib']):.0f} | "  # type: ignore[arg-type]
                            f"{same} |"
                        )
    report = "\n".join(lines) + "\n"
    print(report)
    Path(args.out).write_text(report)


if __name__ == "__main__":
    main()
