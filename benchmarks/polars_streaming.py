"""Benchmark: a polars LazyFrame (streaming scan) vs Dask on the same Parquet log.

Run from the repository root::

    python benchmarks/polars_streaming.py                    # 1e8 rows (about 30 min)
    python benchmarks/polars_streaming.py --rows 1e7 --rows 3e7

For each size a log is written to a temporary directory, chunk by chunk (1e6
rows at a time, 5e6 rows per file; nothing of the whole log is ever held in
memory): ``case_id`` (int64), ``model`` (two values), ``score`` (a continuous
float) and ``group`` (int64, 50 cases each), plus a ``note`` column that no
analysis reads. Each measurement runs in its own subprocess, which reads the
log and runs one whole analysis -- ``compare`` plus a cluster bootstrap over
groups (1,000 resamples, ``rng=1``) -- so its peak resident memory
(``ru_maxrss``) is the analysis' alone:

* ``polars``: ``pl.scan_parquet(...).paired.bootstrap(...)``: the streaming
  engine reads the four columns and the two models' rows and pairs them, one
  row per case (score mode's common case), and the cases go to the pandas
  path;
* ``dask``: ``dd.read_parquet(...).paired.bootstrap(...)`` on Dask's threaded
  scheduler in the same process (so the peak covers every partition);
* ``pandas``: ``pd.read_parquet(...)`` and ``df.paired`` (only up to
  ``--pandas-max`` rows).

An analysis is stopped when the machine has less than ``--min-free-gib``
memory available (reported as such), so a path that does not fit does not
take the machine down; ``--limit-gib`` caps each process' address space
instead, which polars' allocator reaches well before its resident memory does.

All paths must give the same numbers: the bootstrap distributions' sha256
and the intervals are compared. The Markdown report is printed and written
to ``benchmarks/results/latest-polars.md``.
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

HERE = Path(__file__).resolve().parent
CHUNK = 1_000_000  # rows written at a time
PER_FILE = 5_000_000  # rows per Parquet file
PATHS = ("polars", "dask", "pandas")


def write_log(directory: Path, n_rows: int, seed: int = 11) -> None:
    """Write ``n_rows`` rows (two per case) as Parquet files, one chunk at a time."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    n_cases = n_rows // 2
    rng = np.random.default_rng(seed)
    per_chunk = max(1, CHUNK // 2)
    per_file = max(per_chunk, PER_FILE // 2)
    writer = None
    for lo in range(0, n_cases, per_chunk):
        hi = min(n_cases, lo + per_chunk)
        if lo % per_file == 0:
            if writer is not None:
                writer.close()
            writer = None
        case = np.arange(lo, hi, dtype=np.int64)
        group = case // 50
        base = rng.normal(size=hi - lo) + np.sin(group * 12.9898)
        table = pa.table({
            "case_id": np.concatenate([case, case]),
            "model": pa.array(np.repeat(["candidate", "baseline"], hi - lo), pa.string()),
            "score": np.concatenate([base + rng.normal(0.01, 1, hi - lo),
                                     base + rng.normal(0.0, 1, hi - lo)]),
            "group": np.concatenate([group, group]),
            "note": pa.array(np.full(2 * (hi - lo), "unused"), pa.string()),
        })  # fmt: skip
        if writer is None:
            name = directory / f"part-{lo // per_file:05d}.parquet"
            writer = pq.ParquetWriter(name, table.schema)
        writer.write_table(table, row_group_size=CHUNK)
    if writer is not None:
        writer.close()


def _digest(x: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(x).tobytes()).hexdigest()[:16]


def worker(directory: str, path: str, n_resamples: int) -> None:
    """Run one analysis and print a JSON line with its time, memory and results."""
    import warnings

    limit = float(os.environ.get("POLARS_BENCH_LIMIT_GIB", "0"))
    if limit:  # a MemoryError in this process rather than the machine out of memory
        cap = int(limit * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    warnings.filterwarnings("ignore", category=DeprecationWarning)
    files = sorted(str(p) for p in Path(directory).glob("*.parquet"))
    t0 = time.perf_counter()
    if path == "polars":
        import polars as pl

        import pdpaired

        del pdpaired
        table = pl.scan_parquet(files)
    elif path == "dask":
        import dask
        import dask.dataframe as dd

        import pdpaired.dask

        del pdpaired
        dask.config.set(scheduler="threads")
        table = dd.read_parquet(files)
    else:
        import pandas as pd

        import pdpaired

        del pdpaired
        table = pd.concat([pd.read_parquet(f, columns=["case_id", "model", "score", "group"])
                           for f in files], ignore_index=True)  # fmt: skip
    res = table.paired.bootstrap(
        "candidate", "baseline", higher_is_better=True, unit="group", n_resamples=n_resamples,
        rng=1,
    )  # fmt: skip
    seconds = time.perf_counter() - t0
    out = {
        "seconds": seconds,
        "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "n_cases": res.n_cases,
        "ci": [res.confidence_interval.low, res.confidence_interval.high],
        "improvement": res.improvement,
        "method": res.method,
        "boot_sha": _digest(res.bootstrap_distribution),
    }
    print("RESULT " + json.dumps(out), flush=True)


def _available_gib() -> float:
    """MemAvailable of the machine (Linux), in GiB; infinity where it cannot be read."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) / 2**20
    except OSError:  # pragma: no cover - not Linux
        pass
    return float("inf")


def run(
    directory: Path, path: str, n_resamples: int, limit_gib: float, min_free_gib: float
) -> dict[str, object]:
    """Run one path in a subprocess; stop it if the machine's free memory runs low."""
    cmd = [sys.executable, __file__, "--worker", str(directory), path, str(n_resamples)]
    # this checkout's pdpaired, whichever one is installed
    paths = os.pathsep.join([str(HERE.parent), os.environ.get("PYTHONPATH", "")])
    env = {**os.environ, "PYTHONPATH": paths.rstrip(os.pathsep),
           "POLARS_BENCH_LIMIT_GIB": str(limit_gib)}  # fmt: skip
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, text=True, env=env)
        stopped = None
        while proc.poll() is None:
            time.sleep(0.5)
            free = _available_gib()
            if free < min_free_gib:
                proc.kill()
                proc.wait()
                stopped = f"stopped: the machine had {free:.1f} GiB of memory left"
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    for line in stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])  # type: ignore[no-any-return]
    return {"error": stopped or (stderr.strip().splitlines()[-1] if stderr else "no output")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rows", type=float, action="append",
                        help="rows of the log (repeatable; default 1e8)")  # fmt: skip
    parser.add_argument("--pandas-max", type=float, default=1e7,
                        help="run the pandas path up to this many rows")  # fmt: skip
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument(
        "--paths",
        nargs="+",
        choices=PATHS,
        default=list(PATHS),
        help="the paths to run (polars is the reference and always runs)",
    )
    parser.add_argument(
        "--limit-gib",
        type=float,
        default=0.0,
        help="address-space limit of each analysis process (0: none)",
    )
    parser.add_argument(
        "--min-free-gib",
        type=float,
        default=1.5,
        help="stop an analysis when the machine has less memory available",
    )
    parser.add_argument("--out", default=str(HERE / "results" / "latest-polars.md"))
    parser.add_argument("--worker", nargs=3)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.worker[0], args.worker[1], int(args.worker[2]))
        return 0
    import pandas as pd
    import polars as pl

    sizes = [int(r) for r in (args.rows or [1e8])]
    cpu = platform.processor() or platform.machine()
    lines = [
        "# polars LazyFrame (streaming) vs Dask on a Parquet log",
        "",
        f"{_dt.datetime.now(_dt.UTC):%Y-%m-%d %H:%M} UTC, {cpu}, {os.cpu_count()} cores; "
        f"Python {platform.python_version()}; polars {pl.__version__}; "
        f"pandas {pd.__version__}. Cluster bootstrap over groups of 50 cases, "
        f"{args.resamples:,} resamples. Times include reading the Parquet files; 'memory' is "
        "the peak RSS of the process running the analysis (Dask: threaded scheduler, in "
        "that process).",
        "",
        "| rows | path | seconds | rows/s | memory MiB | same numbers as polars |",
        "|---:|---|---:|---:|---:|---|",
    ]
    ok = True
    for n in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            directory = Path(tmp)
            t0 = time.perf_counter()
            write_log(directory, n)
            print(f"wrote {n:,} rows in {time.perf_counter() - t0:.1f} s", flush=True)
            res: dict[str, dict[str, object]] = {}
            for path in PATHS:
                if (path == "pandas" and n > args.pandas_max) or (
                    path != "polars" and path not in args.paths
                ):
                    continue
                res[path] = run(directory, path, args.resamples, args.limit_gib, args.min_free_gib)
                print(n, path, res[path], flush=True)
        ref = res["polars"]
        for path, r in res.items():  # the same seed: the same numbers, bit for bit
            if "error" in r:
                ok = False
                lines.append(f"| {n:.0e} | {path} | {r['error']} | | | |")
                continue
            if path == "polars":
                same = "—"
            else:
                keys = ("boot_sha", "ci", "improvement", "n_cases")
                equal = "error" not in ref and all(r[k] == ref[k] for k in keys)
                ok = ok and equal
                same = "yes (sha256 and interval equal)" if equal else "NO"
            secs = float(r["seconds"])  # type: ignore[arg-type]
            lines.append(
                f"| {n:.0e} | {path} | {secs:.1f} | {n / secs:,.0f} | "
                f"{float(r['peak_mib']):,.0f} | {same} |"  # type: ignore[arg-type]
            )
    report = "\n".join(lines) + "\n"
    print(report)
    Path(args.out).write_text(report, encoding="utf-8")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
