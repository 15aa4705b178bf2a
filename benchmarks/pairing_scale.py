"""Pairing at scale: ``df.paired.compare`` against a plain pandas pivot, same run.

For each size and id dtype, a fresh process builds the long table (``n`` cases,
two models, a group per 100 cases, 8 strata, rows shuffled) and times, after a
warm-up on a small table, ``--repeats`` rounds of the three calls interleaved
(best time of each kept, so load from other work hits both sides of a ratio):

* ``pivot``: ``df.pivot(index="case_id", columns="model", values="score")`` and
  the difference of the two columns -- unvalidated, what users write by hand;
* ``compare``: ``df.paired.compare("A", "B", higher_is_better=True)`` -- every
  pairing rule (docs/pairing.md) checked, the pairs built;
* ``bootstrap``: the one-call ``df.paired.bootstrap("A", "B", ...)``, stratified
  cluster bootstrap, 10,000 resamples (pairing included).

Peak memory, one fresh process per call, is what the call adds on top of the
table: the larger of the process' high-water mark during the call (``VmHWM``
after resetting it through ``/proc/self/clear_refs``) minus its resident size
before, and the peak of the allocations ``tracemalloc`` traces (see
``_peak_extra``). Run from the repository root::

    python benchmarks/pairing_scale.py                 # 1e6 and 1e7 cases, 4 id dtypes
    python benchmarks/pairing_scale.py --sizes 1e5     # a quick look

The Markdown table goes to ``benchmarks/results/pairing-scale.md``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
KINDS = ("object", "str", "int", "category")


def _status(field: str) -> int:
    """A ``/proc/self/status`` field in bytes (``VmRSS``, ``VmHWM``)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise KeyError(field)


def _peak_extra(call):  # type: ignore[no-untyped-def]
    """Run ``call``; return its result, wall time and the peak memory it added.

    The larger of two measures: the process' high-water mark (``VmHWM``, reset
    before the call) over its resident size before, which sees every
    allocation (pyarrow's too) but misses memory the heap reuses from blocks
    the table's construction freed; and the peak of the allocations
    ``tracemalloc`` traces (NumPy's and Python's, not pyarrow's), which does
    not depend on the heap's state.
    """
    import gc
    import tracemalloc

    gc.collect()
    before = _status("VmRSS")
    Path("/proc/self/clear_refs").write_text("5")  # reset VmHWM to the current RSS
    tracemalloc.start()
    start = tracemalloc.get_traced_memory()[0]
    t = time.perf_counter()
    out = call()
    seconds = time.perf_counter() - t
    traced = tracemalloc.get_traced_memory()[1] - start
    tracemalloc.stop()
    return out, seconds, max(0, _status("VmHWM") - before, traced)


def make_table(n: int, kind: str, seed: int = 0):  # type: ignore[no-untyped-def]
    """The long table: string ids ``case-00000001``, groups of 100, 8 strata."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    ids = np.arange(n)
    base = rng.normal(size=n)
    df = pd.DataFrame(
        {
            "case_id": np.concatenate([ids, ids]),
            "model": np.repeat(np.array(["A", "B"]), n),
            "score": np.concatenate([base + rng.normal(0.01, 1, n), base + rng.normal(0, 1, n)]),
            "group": np.tile(ids // 100, 2),
            "stratum": np.tile((ids // 100) % 8, 2),
        }
    )
    if kind != "int":
        text = pd.Series(ids).map("case-{:08d}".format)
        text = pd.concat([text, text], ignore_index=True)
        if kind == "object":
            df["case_id"] = text.astype(object)
        elif kind == "str":  # pandas' default string dtype (pyarrow-backed where available)
            df["case_id"] = text.astype("str")
        else:
            df["case_id"] = text.astype("category")
    return df.sample(frac=1, random_state=seed).reset_index(drop=True)


CALLS = ("pivot", "compare", "bootstrap")


def _calls(n: int, kind: str):  # type: ignore[no-untyped-def]
    """The table and the three calls, after a warm-up on a small table."""
    import pdpaired  # noqa: F401  (registers df.paired)

    warm = make_table(2_000, kind)
    warm.paired.bootstrap("A", "B", higher_is_better=True, n_resamples=100, rng=0)
    warm.pivot(index="case_id", columns="model", values="score")
    df = make_table(n, kind)

    def pivot() -> object:
        wide = df.pivot(index="case_id", columns="model", values="score")
        return wide["A"] - wide["B"]

    def compare() -> object:
        return df.paired.compare("A", "B", higher_is_better=True)

    def bootstrap() -> object:
        return df.paired.bootstrap(
            "A", "B", higher_is_better=True, unit="group", stratified=True,
            n_resamples=10_000, rng=0,
        )  # fmt: skip

    return df, {"pivot": pivot, "compare": compare, "bootstrap": bootstrap}


def measure_peak(n: int, kind: str, which: str) -> dict[str, object]:
    """Peak memory one call adds, in this (fresh) process.

    Memory a previous call freed stays in the process' heap and would hide
    what a later call needs, so every call's peak gets its own process.
    """
    import pandas as pd

    df, calls = _calls(n, kind)
    _, _, peak = _peak_extra(calls[which])
    return {
        "n": n, "kind": kind, "dtype": str(df["case_id"].dtype),
        "frame_mib": float(df.memory_usage(deep=True).sum() / 2**20), "pandas": pd.__version__,
        f"{which}_peak_mib": peak / 2**20,
    }  # fmt: skip


def measure_times(n: int, kind: str, repeats: int) -> dict[str, object]:
    """Best-of-``repeats`` wall time of each call, the calls interleaved in one process.

    Interleaving (pivot, compare, bootstrap, pivot, ...) puts the calls a
    ratio compares seconds apart, so load from other work on the machine
    hits both sides alike.
    """
    import numpy as np

    _, calls = _calls(n, kind)
    times: dict[str, list[float]] = {c: [] for c in CALLS}
    checksum = float("nan")
    for _ in range(repeats):
        for which in CALLS:
            t = time.perf_counter()
            out = calls[which]()
            times[which].append(time.perf_counter() - t)
            if which == "pivot":
                checksum = float(np.nansum(out))  # type: ignore[call-overload]
            del out
    row: dict[str, object] = {f"{c}_s": min(times[c]) for c in CALLS}
    row["checksum"] = checksum
    return row


def table(rows: list[dict[str, object]]) -> list[str]:
    """The Markdown report."""
    head = (
        "| cases | ids (dtype) | frame MiB | pivot s | compare s | pivot / compare | "
        "bootstrap s | bootstrap / pivot | compare peak MiB | bootstrap peak MiB | "
        "peak / frame |"
    )
    out = [head, "|" + "---|" * 11]
    for r in rows:
        frame = float(r["frame_mib"])  # type: ignore[arg-type]
        peak = max(float(r["compare_peak_mib"]), float(r["bootstrap_peak_mib"]))  # type: ignore[arg-type]
        out.append(
            f"| {int(r['n']):.0e} | {r['kind']} ({r['dtype']}) | {frame:,.0f} | "  # type: ignore[call-overload]
            f"{r['pivot_s']:.2f} | {r['compare_s']:.2f} | "
            f"**{float(r['pivot_s']) / float(r['compare_s']):.2f}x** | "  # type: ignore[arg-type]
            f"{r['bootstrap_s']:.2f} | {float(r['bootstrap_s']) / float(r['pivot_s']):.2f}x | "  # type: ignore[arg-type]
            f"{r['compare_peak_mib']:,.0f} | {r['bootstrap_peak_mib']:,.0f} | "
            f"{peak / frame:.2f} |"
        )
    return out


def main(argv: list[str] | None = None) -> None:
    """Run every (size, id dtype) in its own process and write the table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", nargs="+", type=float, default=[1e6, 1e7])
    ap.add_argument("--kinds", nargs="+", choices=KINDS, default=list(KINDS))
    ap.add_argument("--repeats", type=int, default=3, help="calls per row, best time kept")
    ap.add_argument("--out", type=Path, default=HERE / "results" / "pairing-scale.md")
    ap.add_argument("--one", nargs=3, help=argparse.SUPPRESS)  # internal: n kind call|times
    args = ap.parse_args(argv)
    if args.one:
        n, kind, which = int(float(args.one[0])), args.one[1], args.one[2]
        if which == "times":
            print(json.dumps(measure_times(n, kind, args.repeats)))
        else:
            print(json.dumps(measure_peak(n, kind, which)))
        return
    rows = []
    for n in args.sizes:
        for kind in args.kinds:
            repeats = args.repeats if n < 5e6 else 1
            row: dict[str, object] = {}
            for which in (*CALLS, "times"):
                proc = subprocess.run(
                    [sys.executable, __file__, "--one", str(n), kind, which,
                     "--repeats", str(repeats)],
                    capture_output=True, text=True, check=True,
                )  # fmt: skip
                row.update(json.loads(proc.stdout.strip().splitlines()[-1]))
            print(json.dumps(row), file=sys.stderr, flush=True)
            rows.append(row)
    lines = [
        "# Pairing at scale: `df.paired.compare` vs a plain pivot (same run)",
        "",
        f"Generated by `python benchmarks/pairing_scale.py`; pandas {rows[0]['pandas']}. "
        "Times: the three calls interleaved in one process on a freshly built table, after a "
        "warm-up on a small one, best of 3 rounds at 1e6 cases, one at 1e7; peak = memory "
        "one call adds on top of its own fresh process (max of VmHWM and tracemalloc's "
        "peak). Targets: pivot / compare ≥ 1.5x, bootstrap / pivot ≤ 2x, "
        "peak / frame ≤ 1.",
        "",
        *table(rows),
    ]
    text = "\n".join(lines) + "\n"
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
