"""Benchmark: pdpaired's paired bootstrap, randomization test and AUROC bootstrap vs scipy.

Run from the repository root::

    python benchmarks/run.py            # full benchmark, ~20 min on 2 cores
    python benchmarks/run.py --quick    # small sizes, ~3.5 min, smoke test only
    python benchmarks/run.py --full     # no extrapolation (scipy and the loop at
                                        # n = 1e6 run all 10,000 resamples, and
                                        # all 2,000 AUROC resamples at n = 1e5)
    python benchmarks/run.py --only randomization   # only the randomization test
                                                    # (~5 min; or --only bootstrap)
    python benchmarks/run.py --only auroc   # only the AUROC bootstrap (prediction mode,
                                            # ~5-10 min)
    python benchmarks/run.py --only slices  # only by_slice with uncertainty, 50 slices
                                            # of 1e5 cases (~2 min)

Every measurement runs in its own subprocess (``--worker``), so one tool's
allocations cannot hide or inflate another's, and the peak extra memory of
exactly one call can be read from the kernel's high-water mark
(``/proc/self/clear_refs`` resets it; ``VmHWM - VmRSS`` before the call is the
extra peak). Wall-clock time is the best of up to ``--repeats`` calls (fewer
when one call is slow). pdpaired is timed from a prebuilt ``Comparison``
(``cmp.bootstrap(...)``, ``cmp.randomization(...)``; for the AUROC,
``df.paired(target="y", prediction="p").compare("A", "B", metric="auroc")``); the one-time
``df.paired.compare`` cost is reported separately. The Markdown report is printed
and written to ``benchmarks/results/latest.md`` (``--only PART`` writes
``latest-PART.md``; ``--out`` to change).
"""

from __future__ import annotations

import argparse
import ctypes
import datetime as _dt
import gc
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
MARK = "@@RESULT@@"
B = 10_000  # resamples (bootstrap) and permutations (randomization test) throughout
MIB = 1024 * 1024


def pdpaired_source() -> tuple[str, Path | None]:
    """Short sha256 of the pdpaired package's .py files, and where they are imported from."""
    import hashlib
    import importlib.util

    spec = importlib.util.find_spec("pdpaired")
    if spec is None or spec.origin is None:
        return "?", None
    pkg = Path(spec.origin).parent
    h = hashlib.sha256()
    for f in sorted(pkg.rglob("*.py")):
        h.update(str(f.relative_to(pkg)).encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:12], pkg


# --------------------------------------------------------------------------- data


def make_arrays(case: dict[str, Any]) -> dict[str, np.ndarray]:
    """Deterministic per-case scores of models A and B (and groups)."""
    n = int(case["n"])
    rng = np.random.default_rng(case["seed"])
    kind = case["kind"]
    if kind == "continuous":
        base = rng.uniform(size=n)  # case difficulty, shared by both models
        b = base + rng.normal(0.0, 0.1, n)
        a = base + rng.normal(case.get("shift", 0.01), 0.1, n)
        return {"a": a, "b": b}
    if kind == "binary":
        hard = rng.uniform(size=n)
        b = (hard < 0.80).astype(np.float64)
        # A agrees with B on most cases, fixes some errors, breaks a few.
        flip = rng.uniform(size=n)
        breaks, fixes = case.get("breaks", 0.03), case.get("fixes", 0.20)
        a = np.where(
            b == 1.0, (flip > breaks).astype(np.float64), (flip < fixes).astype(np.float64)
        )
        return {"a": a, "b": b}
    if kind == "clusters":
        g = int(case["groups"])
        p = rng.lognormal(0.0, 1.0, g)
        sizes = 1 + rng.multinomial(n - g, p / p.sum())  # unequal, every group non-empty
        group = np.repeat(np.arange(g), sizes)
        effect = rng.normal(0.0, 0.05, g)[group]  # differences correlated within a group
        base = rng.uniform(size=n)
        b = base + rng.normal(0.0, 0.1, n)
        a = base + effect + rng.normal(case.get("shift", 0.01), 0.1, n)
        return {"a": a, "b": b, "group": group, "sizes": sizes}
    if kind == "auroc":
        # Binary target (~50 % positives); two continuous scores sharing a case effect
        # (correlation ~0.55), A separating the classes slightly better than B.
        y = (rng.uniform(size=n) < 0.5).astype(np.int64)
        shared = rng.normal(size=n)
        b = 1.0 * y + shared + rng.normal(0.0, 1.0, n)
        a = (1.0 + case.get("shift", 0.05)) * y + shared + rng.normal(0.0, 1.0, n)
        return {"y": y, "a": a, "b": b}
    raise ValueError(kind)


def make_frame(arrs: dict[str, np.ndarray]) -> Any:
    """The long table pdpaired takes: case_id, model, score (and group)."""
    import pandas as pd

    n = arrs["a"].size
    cols: dict[str, Any] = {
        "case_id": np.tile(np.arange(n), 2),
        "model": np.repeat(np.array(["A", "B"]), n),
        "score": np.concatenate([arrs["a"], arrs["b"]]),
    }
    if "group" in arrs:
        cols["group"] = np.tile(arrs["group"], 2)
    return pd.DataFrame(cols)


def make_prediction_frame(arrs: dict[str, np.ndarray]) -> Any:
    """The long table of prediction mode: case_id, model, y (target), p (prediction)."""
    import pandas as pd

    n = arrs["a"].size
    return pd.DataFrame(
        {
            "case_id": np.tile(np.arange(n), 2),
            "model": np.repeat(np.array(["A", "B"]), n),
            "y": np.tile(arrs["y"], 2),
            "p": np.concatenate([arrs["a"], arrs["b"]]),
        }
    )


# --------------------------------------------------------------------------- memory


def _status_kib(field: str) -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


class PeakMemory:
    """Peak extra resident memory of a block, from the kernel's high-water mark."""

    def __init__(self) -> None:
        self.ok = True
        try:
            self._trim = ctypes.CDLL("libc.so.6").malloc_trim
        except OSError:  # not glibc
            self._trim = None

    def start(self) -> None:
        gc.collect()
        if self._trim is not None:
            self._trim(0)  # give freed heap pages back, so reuse shows up as growth
        try:
            with open("/proc/self/clear_refs", "w") as fh:
                fh.write("5")  # reset VmHWM (and ru_maxrss) to the current RSS
        except OSError:
            self.ok = False
        self.base = _status_kib("VmRSS")

    def stop(self) -> float | None:
        if not self.ok:
            return None
        return (_status_kib("VmHWM") - self.base) / 1024.0


# --------------------------------------------------------------------------- worker


def _timed(fn: Any, repeats: int, budget: float) -> tuple[float, int, float | None, Any]:
    """Best wall time of up to ``repeats`` calls (stop early past ``budget`` s)."""
    mem = PeakMemory()
    best, peak, out, spent, done = float("inf"), None, None, 0.0, 0
    while done < repeats:
        mem.start()
        t0 = time.perf_counter()
        out = fn()
        dt = time.perf_counter() - t0
        p = mem.stop()
        peak = p if peak is None else max(peak, p if p is not None else peak)
        best, spent, done = min(best, dt), spent + dt, done + 1
        if spent + dt > budget:
            break
    return best, done, peak, out


def worker(task: dict[str, Any]) -> dict[str, Any]:
    if task.get("part") == "randomization":
        return rand_worker(task)
    if task.get("part") == "slices":
        return slices_worker(task)
    if task.get("part") == "auroc":
        return auroc_worker(task)
    case, tool = task["case"], task["tool"]
    repeats, budget = task["repeats"], task["budget"]
    arrs = make_arrays(case)
    res: dict[str, Any] = {}

    if tool == "pdpaired":
        import pandas as pd  # noqa: F401

        import pdpaired  # noqa: F401

        os.environ["PDPAIRED_ACCELERATOR"] = task["accel"]
        res["source"] = pdpaired_source()[0]
        df = make_frame(arrs)
        del arrs
        mem = PeakMemory()
        mem.start()
        t0 = time.perf_counter()
        cmp = df.paired.compare("A", "B", higher_is_better=True)
        res["compare_seconds"] = time.perf_counter() - t0
        res["compare_peak_mib"] = mem.stop()
        # Warm-up (numba: load or compile the kernel) on the same Comparison.
        t0 = time.perf_counter()
        cmp.bootstrap(n_resamples=16, rng=1, method=task["method"])
        res["first_call_seconds"] = time.perf_counter() - t0
        best, done, peak, out = _timed(
            lambda: cmp.bootstrap(n_resamples=B, rng=0, method=task["method"]), repeats, budget
        )
        res.update(
            engine=out.engine, ci=[out.confidence_interval.low, out.confidence_interval.high]
        )
        res.update(unit=out.unit, n_groups=out.n_groups)
    elif tool == "scipy":
        from scipy import stats

        if case["kind"] == "clusters":
            d = arrs["a"] - arrs["b"]
            sizes = arrs["sizes"]
            s = np.add.reduceat(d, np.concatenate([[0], np.cumsum(sizes)[:-1]]))
            x, y = s, sizes.astype(np.float64)

            def stat(s: np.ndarray, c: np.ndarray, axis: int = -1) -> np.ndarray:
                return s.sum(axis=axis) / c.sum(axis=axis)
        else:
            x, y = arrs["a"], arrs["b"]

            def stat(a: np.ndarray, b: np.ndarray, axis: int = -1) -> np.ndarray:
                return np.mean(a, axis=axis) - np.mean(b, axis=axis)

        del arrs
        nres = task["n_resamples"]
        kw = dict(paired=True, vectorized=True, method=task["method"], batch=task["batch"])
        stats.bootstrap((x[:50], y[:50]), stat, n_resamples=20, rng=1, **kw)  # warm-up
        best, done, peak, out = _timed(
            lambda: stats.bootstrap((x, y), stat, n_resamples=nres, rng=0, **kw), repeats, budget
        )
        res.update(
            engine="scipy",
            ci=[float(out.confidence_interval.low), float(out.confidence_interval.high)],
        )
    elif tool == "loop":
        iters = task["n_resamples"]
        if case["kind"] == "clusters":
            d = arrs["a"] - arrs["b"]
            sizes = arrs["sizes"]
            s = np.add.reduceat(d, np.concatenate([[0], np.cumsum(sizes)[:-1]]))
            c = sizes.astype(np.float64)
            g = s.size

            def run() -> np.ndarray:
                rng = np.random.default_rng(0)
                out = np.empty(iters)
                for i in range(iters):
                    idx = rng.integers(0, g, g)
                    out[i] = s[idx].sum() / c[idx].sum()
                return out
        else:
            d = arrs["a"] - arrs["b"]
            n = d.size

            def run() -> np.ndarray:
                rng = np.random.default_rng(0)
                out = np.empty(iters)
                for i in range(iters):
                    idx = rng.integers(0, n, n)
                    out[i] = d[idx].mean()
                return out

        del arrs
        best, done, peak, out = _timed(run, repeats, budget)
        lo, hi = np.percentile(out, [2.5, 97.5])
        res.update(engine="loop", ci=[float(lo), float(hi)])
    elif tool == "floor":
        # A lower bound for any exact index bootstrap of the groups: the memory work
        # of the replicates alone (per replicate, G random gathers of a group's int64
        # sum and int64 count), with the indices precomputed (64 rows reused) so that
        # no random number is generated. Both layouts are timed (two arrays, or sum
        # and count side by side); the task's `env` can turn numba's vectorizer off
        # (scalar loads beat AMD's vector gathers), so it is set before numba loads.
        assert "numba" not in sys.modules
        os.environ.update(task.get("env", {}))
        import numba

        d = arrs["a"] - arrs["b"]
        sizes = arrs["sizes"]
        s = np.add.reduceat(d, np.concatenate([[0], np.cumsum(sizes)[:-1]]))
        q = np.rint(np.ldexp(s, 40)).astype(np.int64)
        c = sizes.astype(np.int64)
        qc = np.stack([q, c], axis=1)  # C-contiguous: sum and count in one cache line
        g = s.size
        idx = np.random.default_rng(0).integers(0, g, size=(64, g))
        del arrs

        @numba.njit(parallel=True, nogil=True)
        def split(idx, q, c, s_out, c_out):  # type: ignore[no-untyped-def]
            rows = idx.shape[0]
            for r in numba.prange(s_out.size):
                row = idx[r % rows]
                acc = np.int64(0)
                acc_c = np.int64(0)
                for j in range(row.size):
                    k = row[j]
                    acc += q[k]
                    acc_c += c[k]
                s_out[r] = acc
                c_out[r] = acc_c

        @numba.njit(parallel=True, nogil=True)
        def paired(idx, qc, s_out, c_out):  # type: ignore[no-untyped-def]
            rows = idx.shape[0]
            for r in numba.prange(s_out.size):
                row = idx[r % rows]
                acc = np.int64(0)
                acc_c = np.int64(0)
                for j in range(row.size):
                    k = row[j]
                    acc += qc[k, 0]
                    acc_c += qc[k, 1]
                s_out[r] = acc
                c_out[r] = acc_c

        s_out = np.empty(B, dtype=np.int64)
        c_out = np.empty(B, dtype=np.int64)
        split(idx, q, c, s_out[:64], c_out[:64])  # compile
        paired(idx, qc, s_out[:64], c_out[:64])
        best_split, done, peak, _ = _timed(lambda: split(idx, q, c, s_out, c_out), repeats, budget)
        best, done, peak, _ = _timed(lambda: paired(idx, qc, s_out, c_out), repeats, budget)
        res.update(
            engine="floor",
            threads=numba.get_num_threads(),
            layout="side by side" if best <= best_split else "two arrays",
        )
        best = min(best, best_split)
    else:
        raise ValueError(tool)
    res.update(seconds=best, repeats_done=done, peak_mib=peak)
    return res


def null_hash(null: np.ndarray) -> str:
    """Short sha256 of a null distribution's float64 bytes (bit-identity check)."""
    arr = np.ascontiguousarray(np.asarray(null, dtype=np.float64))
    return hashlib.sha256(arr.tobytes()).hexdigest()[:16]


def mc_pvalue(null: np.ndarray, t: float) -> float:
    """Two-sided Monte Carlo p-value ``(1 + #|T*| >= |t|) / (1 + R)``, scipy's tie tolerance."""
    gamma = 100 * np.finfo(np.float64).eps * abs(t)
    return float((1 + np.count_nonzero(np.abs(null) >= abs(t) - gamma)) / (1 + null.size))


def rand_worker(task: dict[str, Any]) -> dict[str, Any]:
    """One row of the randomization-test benchmark (two-sided, ``R`` permutations)."""
    case, tool = task["case"], task["tool"]
    repeats, budget, R = task["repeats"], task["budget"], task["n_permutations"]
    clustered = case["kind"] == "clusters"
    arrs = make_arrays(case)
    res: dict[str, Any] = {}

    if tool == "pdpaired":
        import pandas as pd  # noqa: F401

        import pdpaired  # noqa: F401

        os.environ["PDPAIRED_ACCELERATOR"] = task["accel"]
        res["source"] = pdpaired_source()[0]
        df = make_frame(arrs)
        del arrs
        cmp = df.paired.compare("A", "B", higher_is_better=True)
        kw = {"unit": "group"} if clustered else {}
        # Warm-up (numba: load or compile the sign-flip kernel) on the same Comparison.
        t0 = time.perf_counter()
        cmp.randomization(n_permutations=16, rng=1, **kw)
        res["first_call_seconds"] = time.perf_counter() - t0
        best, done, peak, out = _timed(
            lambda: cmp.randomization(n_permutations=R, rng=0, **kw), repeats, budget
        )
        res.update(
            engine=out.engine,
            unit=out.unit,
            statistic=float(out.statistic),
            pvalue=float(out.pvalue),
            pvalue_se=out.pvalue_se,
            n_null=int(out.n_permutations),
            null_sha=null_hash(out.null_distribution),
        )
    elif tool == "scipy":
        from scipy import stats

        a, b = arrs["a"], arrs["b"]
        del arrs

        def statistic(x: np.ndarray, y: np.ndarray, axis: int) -> np.ndarray:
            return np.mean(x - y, axis=axis)

        kw = dict(
            permutation_type="samples", vectorized=True, alternative="two-sided",
            batch=task["batch"],
        )  # fmt: skip
        stats.permutation_test((a[:50], b[:50]), statistic, n_resamples=20, rng=1, **kw)
        best, done, peak, out = _timed(
            lambda: stats.permutation_test((a, b), statistic, n_resamples=R, rng=0, **kw),
            repeats,
            budget,
        )
        p = float(out.pvalue)
        # scipy's two-sided p-value doubles the smaller one-sided one: s.e. of 2 * p_side.
        side = min(0.5, p / 2)
        res.update(
            engine="scipy",
            statistic=float(out.statistic),
            pvalue=p,
            pvalue_se=2 * float(np.sqrt(side * (1 - side) / (R + 1))),
            n_null=int(np.size(out.null_distribution)),
        )
    elif tool == "loop":
        d = arrs["a"] - arrs["b"]
        if clustered:
            sizes = arrs["sizes"]
            v = np.add.reduceat(d, np.concatenate([[0], np.cumsum(sizes)[:-1]]))  # group sums
        else:
            v = d
        n, m = d.size, v.size
        t = float(v.sum() / n) if clustered else float(d.mean())
        del arrs

        def run() -> np.ndarray:
            rng = np.random.default_rng(0)
            out = np.empty(R)
            for i in range(R):
                s = rng.integers(0, 2, m) * 2 - 1
                out[i] = (s * v).sum() / n if clustered else (s * v).mean()
            return out

        best, done, peak, out = _timed(run, repeats, budget)
        p = mc_pvalue(out, t)
        res.update(
            engine="loop",
            statistic=t,
            pvalue=p,
            pvalue_se=float(np.sqrt(p * (1 - p) / (R + 1))),
            n_null=R,
        )
    else:
        raise ValueError(tool)
    res.update(seconds=best, repeats_done=done, peak_mib=peak)
    return res


def auroc_worker(task: dict[str, Any]) -> dict[str, Any]:
    """One row of the AUROC benchmark: bootstrap of AUROC(A) - AUROC(B), prediction mode."""
    case, tool = task["case"], task["tool"]
    repeats, budget, nres = task["repeats"], task["budget"], task["n_resamples"]
    arrs = make_arrays(case)
    res: dict[str, Any] = {}

    if tool == "pdpaired":
        import pandas as pd  # noqa: F401

        import pdpaired  # noqa: F401

        os.environ["PDPAIRED_ACCELERATOR"] = task["accel"]
        res["source"] = pdpaired_source()[0]
        df = make_prediction_frame(arrs)
        del arrs
        mem = PeakMemory()
        mem.start()
        t0 = time.perf_counter()
        cmp = df.paired(target="y", prediction="p").compare("A", "B", metric="auroc")
        res["compare_seconds"] = time.perf_counter() - t0
        res["compare_peak_mib"] = mem.stop()
        kw = dict(method=task["method"], stratified=task.get("stratified"))
        # Warm-up (numba: load or compile the kernels) on the same Comparison.
        t0 = time.perf_counter()
        cmp.bootstrap(n_resamples=16, rng=1, **kw)
        res["first_call_seconds"] = time.perf_counter() - t0
        best, done, peak, out = _timed(
            lambda: cmp.bootstrap(n_resamples=nres, rng=0, **kw), repeats, budget
        )
        dist = out.bootstrap_distribution
        res.update(
            engine=out.engine,
            sampling=out.sampling,
            n_valid=int(out.n_valid),
            improvement=float(out.improvement),
            ci=[out.confidence_interval.low, out.confidence_interval.high],
            dist_sha=null_hash(dist),
        )
    elif tool == "scipy":
        from scipy import stats
        from sklearn.metrics import roc_auc_score

        y, a, b = arrs["y"], arrs["a"], arrs["b"]
        del arrs

        def stat(y: np.ndarray, pa: np.ndarray, pb: np.ndarray) -> float:
            return roc_auc_score(y, pa) - roc_auc_score(y, pb)

        kw = dict(paired=True, vectorized=False, method=task["method"], batch=task["batch"])
        stats.bootstrap((y[:50], a[:50], b[:50]), stat, n_resamples=20, rng=1, **kw)  # warm-up
        best, done, peak, out = _timed(
            lambda: stats.bootstrap((y, a, b), stat, n_resamples=nres, rng=0, **kw),
            repeats,
            budget,
        )
        dist = out.bootstrap_distribution
        res.update(
            engine="scipy",
            sampling="iid",
            improvement=float(stat(y, a, b)),
            ci=[float(out.confidence_interval.low), float(out.confidence_interval.high)],
        )
    elif tool == "loop":
        from sklearn.metrics import roc_auc_score

        y, a, b = arrs["y"], arrs["a"], arrs["b"]
        n = y.size
        del arrs
        roc_auc_score(y[:50], a[:50])  # warm-up (imports)

        def run() -> np.ndarray:
            rng = np.random.default_rng(0)
            out = np.empty(nres)
            for i in range(nres):
                idx = rng.integers(0, n, n)
                yi = y[idx]
                out[i] = roc_auc_score(yi, a[idx]) - roc_auc_score(yi, b[idx])
            return out

        best, done, peak, dist = _timed(run, repeats, budget)
        lo, hi = np.percentile(dist, [2.5, 97.5])
        res.update(
            engine="loop",
            sampling="iid",
            improvement=float(roc_auc_score(y, a) - roc_auc_score(y, b)),
            ci=[float(lo), float(hi)],
        )
    else:
        raise ValueError(tool)
    res.update(
        seconds=best,
        repeats_done=done,
        peak_mib=peak,
        se=float(np.std(dist, ddof=1)),
        n_dist=int(np.size(dist)),
    )
    return res


def slices_worker(task: dict[str, Any]) -> dict[str, Any]:
    """One row of the slices benchmark: by_slice(uncertainty=True) over many slices."""
    case, tool = task["case"], task["tool"]
    repeats, budget = task["repeats"], task["budget"]
    n, k, nres = case["n"], case["slices"], task["n_resamples"]
    rng = np.random.default_rng(case["seed"])
    site = rng.integers(0, k, n)
    res: dict[str, Any] = {}
    if case["kind"] == "score":
        base = rng.uniform(size=n)
        a, b = base + rng.normal(0.01, 0.1, n), base
    else:
        y = rng.integers(0, 2, n)
        z = rng.normal(size=(2, n))
        a, b = y + z[0], 0.9 * y + z[1]
    if tool == "pdpaired":
        import pandas as pd

        import pdpaired  # noqa: F401

        os.environ["PDPAIRED_ACCELERATOR"] = task["accel"]
        res["source"] = pdpaired_source()[0]
        cols: dict[str, Any] = {
            "case_id": np.tile(np.arange(n), 2),
            "model": np.repeat(["A", "B"], n),
            "site": np.tile(site, 2),
        }
        if case["kind"] == "score":
            cols["score"] = np.concatenate([a, b])
            cmp = pd.DataFrame(cols).paired.compare("A", "B", higher_is_better=True)
        else:
            cols.update(y=np.tile(y, 2), p=np.concatenate([a, b]))
            cmp = (
                pd.DataFrame(cols)
                .paired(target="y", prediction="p")
                .compare("A", "B", metric="auroc")
            )
        cmp.by_slice("site", uncertainty=True, n_resamples=16, n_permutations=16, rng=1)
        best, done, peak, out = _timed(
            lambda: cmp.by_slice(
                "site", uncertainty=True, n_resamples=nres, n_permutations=nres, rng=0
            ),
            repeats,
            budget,
        )
        res.update(reported=int((out.table["status"] == "reported").sum()))
    else:  # scipy: a loop over slices, bootstrap + permutation test per slice
        from scipy import stats

        def diff(x: np.ndarray, w: np.ndarray, axis: int = -1) -> np.ndarray:
            return np.mean(x, axis=axis) - np.mean(w, axis=axis)

        def run() -> int:
            for s_ in range(k):
                m = site == s_
                stats.bootstrap((a[m], b[m]), diff, paired=True, n_resamples=nres,
                                method="percentile", rng=0)  # fmt: skip
                stats.permutation_test((a[m], b[m]), diff, permutation_type="samples",
                                       n_resamples=nres, rng=0)  # fmt: skip
            return k

        best, done, peak, _ = _timed(run, repeats, budget)
        res.update(reported=k)
    res.update(seconds=best, repeats_done=done, peak_mib=peak, engine=task.get("accel", "scipy"))
    return res


# --------------------------------------------------------------------------- driver

X = "\u00d7"  # multiplication sign, for ratios
BUSY = 0.2  # cores used by other processes above which a row is flagged


def cases_for(quick: bool) -> list[dict[str, Any]]:
    """The benchmark cases; ``role`` ties a case to the issue's targets."""

    def cont(n: int, seed: int, role: str) -> dict[str, Any]:
        return dict(name=f"continuous n={sci(n)}", kind="continuous", n=n, seed=seed, role=role)

    def binary(n: int, seed: int, role: str) -> dict[str, Any]:
        return dict(name=f"0/1 n={sci(n)}", kind="binary", n=n, seed=seed, role=role)

    def clusters(n: int, g: int) -> dict[str, Any]:
        name = f"clusters {sci(n)} items / {sci(g)} groups"
        return dict(name=name, kind="clusters", n=n, groups=g, seed=31, role="clusters")

    if quick:
        return [
            cont(1_000, 11, "cont_small"),
            cont(10_000, 12, "cont_mid"),
            cont(30_000, 13, "cont_large"),
            binary(10_000, 21, "bin_mid"),
            binary(30_000, 22, "bin_large"),
            clusters(100_000, 1_000),
        ]
    return [
        cont(1_000, 11, "cont_small"),
        cont(100_000, 12, "cont_mid"),
        cont(1_000_000, 13, "cont_large"),
        binary(100_000, 21, "bin_mid"),
        binary(1_000_000, 22, "bin_large"),
        clusters(1_000_000, 10_000),
    ]


def sci(n: float) -> str:
    """1000 -> '1e3', 30000 -> '3e4'."""
    mant, exp = f"{n:.0e}".split("e")
    return f"{mant}e{int(exp)}"


def scipy_batch(units: int) -> int:
    """Replicates per scipy batch: about 1e7 gathered values (80 MiB) per array."""
    return max(1, min(B, 10_000_000 // units))


def plan(cases: list[dict[str, Any]], args: argparse.Namespace) -> list[dict[str, Any]]:
    """Every row of the table, as a worker task."""
    tasks: list[dict[str, Any]] = []
    base = dict(repeats=args.repeats, budget=args.budget)
    for case in cases:
        units = case.get("groups", case["n"])
        methods = ["percentile"]
        if case["role"] in {"cont_small", "cont_large", "bin_large", "clusters"}:
            methods.append("bca")
        for method in methods:
            for accel in ("numba", "numpy"):
                tasks.append(dict(base, case=case, tool="pdpaired", accel=accel, method=method))
        # At n >= 1e6 scipy and the loop run 1,000 resamples, extrapolated (unless --full).
        nres = 1_000 if units >= 1_000_000 and not args.full else B
        batch = scipy_batch(units)
        tasks.append(
            dict(base, case=case, tool="scipy", method="percentile", n_resamples=nres,
                 batch=batch, scale=B / nres)
        )  # fmt: skip
        if case["role"] == "cont_mid" and not args.quick:
            # scipy's default batch=None gathers B x n values at once: show its memory.
            tasks.append(
                dict(base, case=case, tool="scipy", method="percentile", n_resamples=1_000,
                     batch=None, scale=B / 1_000, label_extra="default batch=None")
            )  # fmt: skip
        if units <= 10_000:  # scipy BCa: O(n^2) jackknife over the resampled unit
            tasks.append(
                dict(base, case=case, tool="scipy", method="bca", n_resamples=B, batch=batch)
            )
        else:
            why = (
                f"not run (O(n²) jackknife: n² = {sci(float(units) ** 2)} values; "
                "O(n²) memory with batch=None, O(n²) time with a batch)"
            )
            tasks.append(dict(case=case, tool="scipy", method="bca", skipped=why))
        tasks.append(dict(base, case=case, tool="loop", n_resamples=nres, scale=B / nres))
        if case["role"] == "clusters":
            tasks.append(dict(base, case=case, tool="floor"))
            off = {"NUMBA_LOOP_VECTORIZE": "0", "NUMBA_SLP_VECTORIZE": "0"}
            tasks.append(dict(base, case=case, tool="floor", env=off))
    return tasks


def rand_cases_for(quick: bool) -> list[dict[str, Any]]:
    """Cases of the randomization-test benchmark (issue #3).

    The effects are small, so that the p-values are moderate (about 0.03-0.4) and the
    agreement check between tools means something (with the bootstrap cases' effects
    every tool returns the smallest possible p-value, 1 / 10,001).
    """
    n = 10_000 if quick else 100_000
    n_items, n_groups = (100_000, 1_000) if quick else (1_000_000, 10_000)
    return [
        dict(name=f"continuous n={sci(n)}", kind="continuous", n=n, seed=41, shift=0.0007,
             role="cont"),
        dict(name=f"0/1 n={sci(n)}", kind="binary", n=n, seed=42, breaks=0.0485, fixes=0.20,
             role="bin"),
        dict(name=f"clusters {sci(n_items)} items / {sci(n_groups)} groups, unit=group",
             kind="clusters", n=n_items, groups=n_groups, seed=43, shift=0.001, role="clusters"),
    ]  # fmt: skip


def rand_plan(cases: list[dict[str, Any]], args: argparse.Namespace) -> list[dict[str, Any]]:
    """Every row of the randomization-test table, as a worker task."""
    tasks: list[dict[str, Any]] = []
    base = dict(part="randomization", repeats=args.repeats, budget=args.budget, n_permutations=B)
    for case in cases:
        for accel in ("numba", "numpy"):
            tasks.append(dict(base, case=case, tool="pdpaired", accel=accel))
        if case["kind"] == "clusters":
            why = (
                "no equivalent: `permutation_test` has no groups (a one-sample sign-flip test "
                "on the per-group difference sums would be; not timed)"
            )
            tasks.append(dict(base, case=case, tool="scipy", skipped=why))
        else:
            batch = scipy_batch(case["n"])
            tasks.append(dict(base, case=case, tool="scipy", batch=batch))
            if case["role"] == "cont":
                # scipy's default batch=None: all permutations in one batch. Its index array
                # (R x n x 2 int64) is held twice (tiled and permuted) before any gather.
                need = 2 * B * case["n"] * 2 * 8
                if need < physical_memory() / 4:
                    tasks.append(dict(base, case=case, tool="scipy", batch=None))
                else:
                    why = (
                        f"not run: all {B:,} permutations in one batch; its index array "
                        f"({B:,} {X} n {X} 2 int64, {need / 2e9:.0f} GB) is held twice, "
                        f"{need / 2**30:.0f} GiB before any gather, more than this machine's "
                        f"{physical_memory() / 2**30:.1f} GiB"
                    )
                    tasks.append(dict(base, case=case, tool="scipy", batch=None, skipped=why))
        tasks.append(dict(base, case=case, tool="loop"))
    return tasks


AUROC_B = 2_000  # resamples of the AUROC benchmark (issue #4)
AUROC_SHORT = 200  # resamples of scipy and the loop at n >= 1e5 (x10, unless --full)


def auroc_cases_for(quick: bool) -> list[dict[str, Any]]:
    """Cases of the AUROC benchmark (issue #4): binary target, two continuous scores."""
    sizes = (1_000, 3_000) if quick else (10_000, 100_000)
    return [
        dict(name=f"AUROC n={sci(n)}", kind="auroc", n=n, seed=seed, role=role)
        for n, seed, role in zip(sizes, (51, 52), ("auroc_small", "auroc_large"), strict=True)
    ]


def auroc_plan(cases: list[dict[str, Any]], args: argparse.Namespace) -> list[dict[str, Any]]:
    """Every row of the AUROC table, as a worker task."""
    tasks: list[dict[str, Any]] = []
    base = dict(part="auroc", repeats=args.repeats, budget=args.budget, n_resamples=AUROC_B)
    for case in cases:
        n = case["n"]
        methods = ["percentile"] + (["bca"] if case["role"] == "auroc_large" else [])
        for method in methods:
            for accel in ("numba", "numpy"):
                tasks.append(dict(base, case=case, tool="pdpaired", accel=accel, method=method))
        # iid resampling, as scipy and the loop do: the like-for-like interval.
        tasks.append(
            dict(base, case=case, tool="pdpaired", accel="numba", method="percentile",
                 stratified=False)
        )  # fmt: skip
        # At n >= 1e5 scipy and the loop run 200 resamples, extrapolated (unless --full).
        nres = AUROC_SHORT if n >= 100_000 and not args.full else AUROC_B
        short = dict(base, case=case, n_resamples=nres, scale=AUROC_B / nres)
        batch = min(scipy_batch(n), AUROC_B)
        tasks.append(dict(short, tool="scipy", method="percentile", batch=batch))
        if "bca" in methods:
            why = (
                f"not run (jackknife: {n:,} leave-one-out calls of the statistic, two "
                f"`roc_auc_score` calls each: {n / AUROC_B:.0f}{X} the calls of the "
                "percentile bootstrap)"
            )
            tasks.append(dict(case=case, part="auroc", tool="scipy", method="bca", skipped=why))
        tasks.append(dict(short, tool="loop"))
    return tasks


def slices_cases_for(quick: bool) -> list[dict[str, Any]]:
    """Cases of the slices benchmark (issue #5): 50 slices of n = 1e5 cases."""
    n, k = (10_000, 10) if quick else (100_000, 50)
    return [
        dict(name=f"score n={sci(n)}, {k} slices", kind="score", n=n, slices=k, seed=61),
        dict(name=f"AUROC n={sci(n)}, {k} slices", kind="auroc", n=n, slices=k, seed=62),
    ]


def slices_plan(cases: list[dict[str, Any]], args: argparse.Namespace) -> list[dict[str, Any]]:
    """Every row of the slices table, as a worker task."""
    tasks: list[dict[str, Any]] = []
    base = dict(part="slices", repeats=args.repeats, budget=args.budget, n_resamples=AUROC_B)
    for case in cases:
        for accel in ("numba", "numpy"):
            tasks.append(dict(base, case=case, tool="pdpaired", accel=accel))
        if case["kind"] == "score":
            tasks.append(dict(base, case=case, tool="scipy"))
    return tasks


def slices_report(
    tasks: list[dict[str, Any]], results: list[dict[str, Any]], args: argparse.Namespace
) -> str:
    """Markdown table of the slices benchmark."""
    lines = [
        "## Slices with uncertainty (issue #5)",
        "",
        "`cmp.by_slice('site', uncertainty=True, n_resamples=2000, n_permutations=2000, rng=0)`: "
        "per slice a paired bootstrap interval and a randomization p-value (Holm-adjusted), plus "
        "the overall interval and the heterogeneity test. scipy: a Python loop over the slices "
        "calling `scipy.stats.bootstrap(paired=True)` and `scipy.stats.permutation_test("
        "permutation_type='samples')` with 2,000 resamples each on the slice's scores (no "
        "overall row, no adjustment; score mode only, since scipy has no AUROC statistic).",
        "",
        "| case | tool | seconds | ratio vs scipy loop | peak MiB |",
        "|---|---|---:|---:|---:|",
    ]
    ref: dict[str, float] = {}
    for t, r in zip(tasks, results, strict=True):
        if t["tool"] == "scipy" and "seconds" in r:
            ref[t["case"]["name"]] = r["seconds"]
    for t, r in zip(tasks, results, strict=True):
        name = t["case"]["name"]
        label = f"pdpaired ({t['accel']})" if t["tool"] == "pdpaired" else "scipy loop"
        if "error" in r:
            lines.append(f"| {name} | {label} | {r['error']} | — | — |")
            continue
        busy = " ‡" if r.get("foreign_cores", 0.0) > BUSY else ""
        ratio = ref[name] / r["seconds"] if name in ref else None
        lines.append(
            f"| {name} | {label} | {fmt_s(r['seconds'])} [{r['repeats_done']}]{busy} | "
            f"{fmt_ratio(ratio)} | {fmt_mib(r['peak_mib'])} |"
        )
    lines.append("")
    lines.append("‡ other processes used more than 0.2 cores during the row.")
    return "\n".join(lines) + "\n"


def physical_memory() -> float:
    """Bytes of RAM (0 if unknown)."""
    try:
        return float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError):
        return 0.0


def busy_cpu_seconds() -> float | None:
    """CPU seconds spent busy by the whole machine so far (all processes, /proc/stat)."""
    try:
        with open("/proc/stat") as fh:
            ticks = [int(v) for v in fh.readline().split()[1:9]]
    except (OSError, ValueError):
        return None
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")


def own_cpu_seconds() -> float:
    """CPU seconds of this process and its finished children."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def foreign_load(seconds: float) -> float | None:
    """Cores used by other processes, averaged over ``seconds`` of sleep."""
    b0, o0, t0 = busy_cpu_seconds(), own_cpu_seconds(), time.perf_counter()
    time.sleep(seconds)
    b1, o1 = busy_cpu_seconds(), own_cpu_seconds()
    if b0 is None or b1 is None:
        return None
    return max(0.0, (b1 - b0) - (o1 - o0)) / (time.perf_counter() - t0)


def wait_for_idle(max_wait: float, threshold: float = 0.25) -> float:
    """Wait (at most ``max_wait`` s) until other processes use < ``threshold`` cores."""
    t0 = time.perf_counter()
    while True:
        load = foreign_load(1.0)
        if load is None or load < threshold or time.perf_counter() - t0 >= max_wait:
            return time.perf_counter() - t0
        time.sleep(4.0)


def run_worker(task: dict[str, Any], env: dict[str, str], timeout: float) -> dict[str, Any]:
    """Run one row in a fresh interpreter, parse its JSON result, note foreign CPU load."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", json.dumps(task)]
    b0, o0, t0 = busy_cpu_seconds(), own_cpu_seconds(), time.perf_counter()
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s"}
    b1, o1, wall = busy_cpu_seconds(), own_cpu_seconds(), time.perf_counter() - t0
    for line in p.stdout.splitlines()[::-1]:
        if line.startswith(MARK):
            res: dict[str, Any] = json.loads(line[len(MARK) :])
            if b0 is not None and b1 is not None:
                res["foreign_cores"] = max(0.0, (b1 - b0) - (o1 - o0)) / wall
            return res
    tail = (p.stderr.strip().splitlines() or ["?"])[-1]
    return {"error": f"worker failed (rc={p.returncode}): {tail[:200]}"}


FIRST_CALL = """
import os, time
import numpy as np, pandas as pd
import pdpaired
os.environ["PDPAIRED_ACCELERATOR"] = "numba"
n = 1000
r = np.random.default_rng(0)
x = r.normal(size=n)
df = pd.DataFrame({"case_id": np.tile(np.arange(n), 2), "model": np.repeat(["A", "B"], n),
                   "score": np.concatenate([x + r.normal(size=n), x])})
c = df.paired.compare("A", "B", higher_is_better=True)
t = time.perf_counter(); c.bootstrap(n_resamples=10_000, rng=0); t1 = time.perf_counter() - t
t = time.perf_counter(); c.bootstrap(n_resamples=10_000, rng=0); t2 = time.perf_counter() - t
print(t1, t2)
"""

FIRST_CALL_RANDOMIZATION = """
import os, time
import numpy as np, pandas as pd
import pdpaired
os.environ["PDPAIRED_ACCELERATOR"] = "numba"
n = 10_000
r = np.random.default_rng(0)
x = r.normal(size=n)
df = pd.DataFrame({"case_id": np.tile(np.arange(n), 2), "model": np.repeat(["A", "B"], n),
                   "score": np.concatenate([x + r.normal(size=n), x])})
c = df.paired.compare("A", "B", higher_is_better=True)
t = time.perf_counter(); c.randomization(n_permutations=10_000, rng=0); t1 = time.perf_counter() - t
t = time.perf_counter(); c.randomization(n_permutations=10_000, rng=0); t2 = time.perf_counter() - t
print(t1, t2)
"""


def first_call_latency(
    env: dict[str, str], cache_dir: str, script: str = FIRST_CALL
) -> dict[str, Any]:
    """Numba's first-call cost in two fresh processes sharing one (initially empty) cache."""
    e = dict(env, NUMBA_CACHE_DIR=cache_dir)
    out: dict[str, Any] = {}
    for label in ("process 1 (empty cache dir)", "process 2 (cache dir written by process 1)"):
        # cwd: keep `python -c` from importing a pdpaired/ in the current directory
        # ahead of PYTHONPATH (a snapshot being measured).
        p = subprocess.run(
            [sys.executable, "-c", script], env=e, capture_output=True, text=True, cwd=cache_dir
        )
        try:
            t1, t2 = (float(v) for v in p.stdout.split())
            out[label] = (t1, t2)
        except ValueError:
            out[label] = None
    return out


def machine_info() -> dict[str, str]:
    """CPU, memory, library versions and threading environment."""
    import numba
    import pandas
    import scipy

    import pdpaired

    cpu = platform.processor() or "?"
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        mem = f"{os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.1f} GiB"
    except (ValueError, OSError):
        mem = "?"
    digest, pkg = pdpaired_source()
    where = str(pkg) if pkg else "?"
    commit = "not in a git checkout"
    if pkg is not None:
        try:
            git = ["git", "-C", str(pkg.parent)]
            head = subprocess.run(
                [*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True
            )
            if head.returncode == 0:
                commit = f"git {head.stdout.strip()}"
                dirty = subprocess.run(
                    [*git, "status", "--porcelain", "--", str(pkg)], capture_output=True, text=True
                ).stdout.strip()
                if dirty:
                    commit += " + uncommitted changes in pdpaired/"
        except OSError:
            pass
    try:
        import sklearn

        skl = sklearn.__version__
    except ImportError:
        skl = "not installed"
    prefixes = ("OPENBLAS_", "OMP_", "MKL_", "NUMBA_", "PDPAIRED_")
    env_vars = {k: v for k, v in os.environ.items() if k.startswith(prefixes)}
    env_text = ", ".join(f"{k}={v}" for k, v in sorted(env_vars.items())) or "none set"
    return {
        "date (UTC)": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M"),
        "cpu": cpu,
        "cpu count": f"{os.cpu_count()} (usable: {len(os.sched_getaffinity(0))})",
        "memory": mem,
        "python": platform.python_version(),
        "pdpaired": f"{pdpaired.__version__}, {commit}; source sha256 {digest} ({where})",
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "pandas": pandas.__version__,
        "scikit-learn": skl,
        "numba": f"{numba.__version__} (threads: {numba.config.NUMBA_NUM_THREADS})",
        "OPENBLAS_* / OMP_* / MKL_* / NUMBA_* / PDPAIRED_* env": env_text,
    }


def tool_label(task: dict[str, Any], res: dict[str, Any]) -> str:
    """Row label: tool, method and engine."""
    tool = task["tool"]
    if tool == "pdpaired":
        eng = res.get("engine", "?")
        s = f"pdpaired {task['method']} ({task['accel']}"
        return s + (f" → {eng})" if eng != task["accel"] else ")")
    if tool == "scipy":
        s = f"scipy {task['method']}"
        if task.get("label_extra"):
            s += f", {task['label_extra']}"
        elif "batch" in task:
            s += f", batch={task['batch']}"
        return s
    if tool == "floor":
        loads = "scalar loads" if task.get("env") else "vectorized"
        return (
            f"floor: the gathers alone, no random numbers (numba, {res.get('threads', '?')} "
            f"threads, {loads}, {res.get('layout', '?')})"
        )
    return "numpy loop"


def fmt_s(x: float | None) -> str:
    """Seconds, three significant digits."""
    if x is None:
        return "—"
    return f"{x:.3g}" if x < 100 else f"{x:.0f}"


def fmt_ratio(x: float | None) -> str:
    """A speed-up, e.g. '9.43x' or '1,363x'."""
    if x is None:
        return "—"
    return f"{x:,.0f}{X}" if x >= 100 else f"{x:.3g}{X}"


def fmt_mib(x: float | None) -> str:
    """MiB, no decimals above 10."""
    if x is None:
        return "—"
    return f"{x:,.0f}" if x >= 10 else f"{x:.1f}"


Row = tuple[dict[str, Any], dict[str, Any]]


def seconds_of(t: dict[str, Any], r: dict[str, Any]) -> float | None:
    """Reported seconds of a row (extrapolated to 10,000 resamples where marked)."""
    if "seconds" not in r:
        return None
    return float(r["seconds"]) * float(t.get("scale", 1.0))


NOTE_EXTRAPOLATED = (
    "¹ Extrapolated linearly: measured with 1,000 resamples (loop: iterations) and multiplied "
    "by 10; the time of both is linear in the number of resamples. The peak memory is that "
    "of the 1,000-resample run: for batched scipy it depends on the batch, not on the number "
    f"of resamples; with batch=None it grows linearly ({X}10 for 10,000 resamples)."
)

NOTE_TOOLS = (
    "scipy: `scipy.stats.bootstrap((a, b), stat, paired=True, vectorized=True, "
    "n_resamples=10_000)` with `stat = mean(a) - mean(b)` along the last axis, and `batch` "
    "chosen so that a batch gathers about 1e7 values per array (scipy's default `batch=None` "
    f"gathers 10,000 {X} n values per array at once: 8 GB at n = 1e5, far beyond this "
    "machine at n = 1e6). Clusters: scipy has no cluster bootstrap, so it gets the per-group "
    "difference sums `s` and counts `c` as two paired arrays with `stat = sum(s) / sum(c)`. "
    "numpy loop: `for _ in range(B): idx = rng.integers(0, n, n); d[idx].mean()` on the "
    "precomputed differences (clusters: the same over groups, `s[idx].sum() / c[idx].sum()`). "
    "pdpaired: `cmp.bootstrap(n_resamples=10_000, rng=0, method=...)` on a prebuilt "
    "`cmp = df.paired.compare('A', 'B', higher_is_better=True)`, after one warm-up call, with "
    "`PDPAIRED_ACCELERATOR` set to the engine in brackets; '→ multinomial' marks the exact "
    "multinomial shortcut used when the differences take few distinct values. floor (clusters "
    "only): not a bootstrap but a lower bound for any exact one on this machine: a numba "
    "kernel that does only the memory work of the replicates (per replicate, one random gather "
    "per group drawn of the group's int64 sum and int64 count, summed), with precomputed indices "
    "and no random numbers, vectorized or with numba's vectorizer off, the faster of the two "
    "layouts (two arrays, or sum and count side by side); "
    "its ratio vs scipy is the most any exact cluster bootstrap could reach here."
)


def header(info: dict[str, str], args: argparse.Namespace) -> list[str]:
    """Title, what was run, and the machine section."""
    flags = (
        (" --quick" if args.quick else "")
        + (" --full" if args.full else "")
        + (f" --only {args.only}" if args.only != "all" else "")
    )
    title = {
        "all": "pdpaired benchmark: paired bootstrap, randomization test, AUROC bootstrap, slices",
        "bootstrap": "pdpaired bootstrap benchmark",
        "randomization": "pdpaired randomization-test benchmark",
        "auroc": "pdpaired AUROC bootstrap benchmark (prediction mode)",
        "slices": "pdpaired slices benchmark (by_slice with uncertainty)",
    }[args.only]
    if args.quick:
        title += " — QUICK smoke run (not the benchmark sizes)"
    what = {
        "all": (
            f"Bootstrap: {B:,} resamples, 95% interval; randomization test: {B:,} permutations; "
            f"AUROC bootstrap: {AUROC_B:,} resamples; slices: {AUROC_B:,} resamples and "
            "permutations per slice"
        ),
        "bootstrap": f"{B:,} resamples, 95% interval",
        "randomization": f"{B:,} permutations, two-sided",
        "auroc": f"AUROC(A) - AUROC(B), {AUROC_B:,} resamples, 95% interval",
        "slices": f"{AUROC_B:,} resamples and {AUROC_B:,} permutations per slice",
    }[args.only]
    out = [f"# {title}\n"]
    out.append(f"{what}. Generated by `python benchmarks/run.py{flags}`.\n")
    out.append("## Machine\n")
    out += [f"- {k}: {v}" for k, v in info.items()]
    return out


def report(
    cases: list[dict[str, Any]],
    tasks: list[dict[str, Any]],
    results: list[dict[str, Any]],
    info: dict[str, str],
    first_call: dict[str, Any],
    args: argparse.Namespace,
) -> str:
    """The Markdown report."""
    rows: dict[str, list[Row]] = {c["name"]: [] for c in cases}
    for t, r in zip(tasks, results, strict=True):
        rows[t["case"]["name"]].append((t, r))
    ref: dict[str, dict[str, float | None]] = {}
    for name, items in rows.items():
        sp = [
            seconds_of(t, r)
            for t, r in items
            if t["tool"] == "scipy" and t["method"] == "percentile" and not t.get("label_extra")
        ]
        lp = [seconds_of(t, r) for t, r in items if t["tool"] == "loop"]
        ref[name] = {"scipy": sp[0] if sp else None, "loop": lp[0] if lp else None}

    out = header(info, args)
    out += ["", "## Bootstrap results" if args.only == "all" else "## Results", ""]
    out.append(
        "Seconds: wall clock, best of the number of calls in brackets. Ratios are speed-ups "
        "(reference seconds / row seconds; above 1 means faster than the reference). Peak MiB: "
        "extra resident memory during one call above the process's memory just before it "
        "(kernel high-water mark; every row runs in its own subprocess).\n"
    )
    out.append(
        "| case | tool | seconds | ratio vs scipy percentile | ratio vs numpy loop | peak MiB |"
    )
    out.append("|---|---|---:|---:|---:|---:|")
    extrapolated = False
    disturbed: list[str] = []
    for case in cases:
        name = case["name"]
        for t, r in rows[name]:
            label = tool_label(t, r)
            problem = t.get("skipped") or r.get("error")
            if problem:
                out.append(f"| {name} | {label} | {problem} | — | — | — |")
                continue
            s = seconds_of(t, r)
            mark = ""
            if t.get("scale", 1.0) != 1.0:
                mark, extrapolated = " ¹", True
            if (r.get("foreign_cores") or 0.0) >= BUSY:
                mark += " ‡"
                disturbed.append(f"{name}, {label}: {r['foreign_cores']:.2f}")
            rs, rl = ref[name]["scipy"], ref[name]["loop"]
            r_s = rs / s if rs and s else None
            r_l = rl / s if rl and s else None
            out.append(
                f"| {name} | {label} | {fmt_s(s)}{mark} [{r['repeats_done']}] | "
                f"{fmt_ratio(r_s)} | {fmt_ratio(r_l)} | {fmt_mib(r.get('peak_mib'))} |"
            )
    out.append("")
    if extrapolated:
        out += [NOTE_EXTRAPOLATED, ""]
    if disturbed:
        out.append(
            f"‡ Other processes used ≥ {BUSY} cores on average while this row ran, so its time "
            "is probably inflated (cores used by others: " + "; ".join(disturbed) + ")."
        )
        out.append("")
    out += [NOTE_TOOLS, ""]

    out.append("## One-time pairing and validation (`df.paired.compare`)\n")
    out.append("Measured in every pdpaired worker of the case; best time, largest peak.\n")
    out.append("| case | seconds | peak MiB |")
    out.append("|---|---:|---:|")
    for case in cases:
        comp = [r for t, r in rows[case["name"]] if "compare_seconds" in r]
        if comp:
            sec = min(r["compare_seconds"] for r in comp)
            pk = max((r["compare_peak_mib"] or 0.0) for r in comp)
            out.append(f"| {case['name']} | {fmt_s(sec)} [{len(comp)}] | {fmt_mib(pk)} |")
    out.append("")
    if first_call:
        out.append("## Numba first call (continuous n=1e3, 10,000 resamples, fresh process)\n")
        for label, v in first_call.items():
            if v:
                out.append(f"- {label}: first call {v[0]:.2f} s, second call {v[1]:.3f} s")
            else:
                out.append(f"- {label}: failed")
        out.append("")

    out.append("## Intervals (all tools should agree within Monte Carlo error)\n")
    out.append("| case | tool | 95% interval |")
    out.append("|---|---|---|")
    for case in cases:
        for t, r in rows[case["name"]]:
            if "ci" in r:
                lo, hi = r["ci"]
                out.append(f"| {case['name']} | {tool_label(t, r)} | [{lo:.6f}, {hi:.6f}] |")
    out.append("")
    out.append(targets(cases, rows, ref, args))
    return "\n".join(out)


def targets(
    cases: list[dict[str, Any]],
    rows: dict[str, list[Row]],
    ref: dict[str, dict[str, float | None]],
    args: argparse.Namespace,
) -> str:
    """The issue's speed and memory targets, each marked met / NOT met."""
    by_role = {c["role"]: c["name"] for c in cases}

    def find(role: str, accel: str, method: str = "percentile") -> float | None:
        for t, r in rows[by_role[role]]:
            if t["tool"] == "pdpaired" and (t["accel"], t["method"]) == (accel, method):
                return seconds_of(t, r)
        return None

    def speedup(role: str, accel: str) -> float | None:
        s, rs = find(role, accel), ref[by_role[role]]["scipy"]
        return rs / s if s and rs else None

    def verdict(ok: bool | None) -> str:
        return "—" if ok is None else ("met" if ok else "**NOT met**")

    lines = ["## Targets (issue #2, same-run ratios)\n"]
    if args.quick:
        lines.append("_Quick run: the sizes differ from the issue's; verdicts are indicative._\n")
    lines.append("| target | measured | verdict |")
    lines.append("|---|---|---|")

    floor = sorted(
        f
        for f in (seconds_of(t, r) for t, r in rows[by_role["clusters"]] if t["tool"] == "floor")
        if f
    )  # the fastest floor first
    for role, accel, goal in (
        ("cont_mid", "numba", 10),
        ("clusters", "numba", 30),
        ("cont_mid", "numpy", 3),
        ("clusters", "numpy", 5),
    ):
        x = speedup(role, accel)
        ok = None if x is None else x >= goal
        what = f"{accel} ≥ {goal}{X} scipy percentile, {by_role[role]}"
        miss = "" if ok or x is None else f"; {x / goal:.0%} of the target"
        rs = ref[by_role[role]]["scipy"]
        if role == "clusters" and accel == "numba" and floor and floor[0] and rs:
            miss += (
                f" (the gathers alone, with no random numbers, take at least {fmt_s(floor[0])} s: "
                f"at most {fmt_ratio(rs / floor[0])} for any exact cluster bootstrap here)"
            )
        lines.append(f"| {what} | {fmt_ratio(x)}{miss} | {verdict(ok)} |")

    vals = [
        (by_role[role], accel, speedup(role, accel))
        for role in ("bin_mid", "bin_large")
        for accel in ("numba", "numpy")
    ]
    ok = all(v is not None and v >= 500 for _, _, v in vals)
    meas = "; ".join(f"{name} {accel}: {fmt_ratio(v)}" for name, accel, v in vals)
    lines.append(
        f"| 0/1 scores ≥ 500{X} scipy percentile, either engine | {meas} | {verdict(ok)} |"
    )

    for accel in ("numba", "numpy"):
        ratios = []
        for case in cases:
            rl = ref[case["name"]]["loop"]
            for t, r in rows[case["name"]]:
                s = seconds_of(t, r)
                if t["tool"] == "pdpaired" and t["accel"] == accel and s and rl:
                    ratios.append((rl / s, f"{case['name']} {t['method']}"))
        if not ratios:
            continue
        ratios.sort()
        slower = [w for w in ratios if w[0] < 1.0]
        meas = f"lowest {fmt_ratio(ratios[0][0])} ({ratios[0][1]})"
        if len(slower) > 1:
            meas += "; also slower: " + "; ".join(f"{w[1]} {fmt_ratio(w[0])}" for w in slower[1:])
        what = f"{accel}: never slower than the plain numpy loop (every row)"
        lines.append(f"| {what} | {meas} | {verdict(not slower)} |")

    for role in ("cont_large", "bin_large", "clusters"):
        parts, ok = [], True
        for accel in ("numba", "numpy"):
            p, b = find(role, accel), find(role, accel, "bca")
            if p and b:
                ok &= b / p < 2.0
                parts.append(f"{accel}: {fmt_s(b)} s / {fmt_s(p)} s = {b / p:.2f}")
        what = f"BCa < 2 {X} percentile time, {by_role[role]}"
        lines.append(f"| {what} | {'; '.join(parts)} | {verdict(ok if parts else None)} |")

    parts, ok = [], True
    for role in ("cont_large", "bin_large", "clusters"):
        name = by_role[role]
        peaks = [
            (r["peak_mib"], tool_label(t, r))
            for t, r in rows[name]
            if t["tool"] == "pdpaired" and r.get("peak_mib") is not None
        ]
        if peaks:
            top = max(peaks)
            ok &= top[0] < 300
            parts.append(f"{name}: max {fmt_mib(top[0])} MiB ({top[1]})")
    scipy_peaks = [
        r["peak_mib"]
        for role in ("cont_large", "bin_large", "clusters")
        for t, r in rows[by_role[role]]
        if t["tool"] == "scipy" and r.get("peak_mib") is not None
    ]
    if scipy_peaks:
        parts.append(f"(scipy, batched: up to {fmt_mib(max(scipy_peaks))} MiB)")
    what = "peak extra memory < 300 MiB at the largest n (bootstrap call)"
    lines.append(f"| {what} | {'; '.join(parts)} | {verdict(ok if parts else None)} |")
    lines.append("")
    return "\n".join(lines)


# --------------------------------------------------------------------------- randomization report


def rand_label(task: dict[str, Any], res: dict[str, Any]) -> str:
    """Row label of the randomization table: tool and engine."""
    tool = task["tool"]
    if tool == "pdpaired":
        eng = res.get("engine", task["accel"])
        return f"pdpaired ({task['accel']}" + (f" → {eng})" if eng != task["accel"] else ")")
    if tool == "scipy":
        if "batch" not in task:
            return "scipy permutation_test"
        if task["batch"] is None:
            return "scipy permutation_test, default batch=None"
        return f"scipy permutation_test, batch={task['batch']}"
    return "numpy loop"


NOTE_RAND_TOOLS = (
    "pdpaired: `cmp.randomization(n_permutations=10_000, rng=0)` (clusters: `unit='group'`, "
    "all cases of a group swap together) on a prebuilt "
    "`cmp = df.paired.compare('A', 'B', higher_is_better=True)`, after one warm-up call, with "
    "`PDPAIRED_ACCELERATOR` set to the engine in brackets; '→ binomial' marks the exact "
    "binomial shortcut used when the differences take few distinct absolute values (0/1 "
    "scores), whichever engine is set. scipy: `scipy.stats.permutation_test((a, b), "
    "statistic, permutation_type='samples', vectorized=True, n_resamples=10_000, "
    "alternative='two-sided', batch=...)` with `statistic = lambda x, y, axis: "
    "np.mean(x - y, axis=axis)`; the batch is chosen as for the bootstrap (about 1e7 values "
    "per batch and array). scipy loops in Python over the n pairs once per batch, so smaller "
    "batches are slower, and larger ones need more memory. numpy loop: `for _ in range(R): "
    "s = rng.integers(0, 2, n) * 2 - 1; (s * d).mean()` on `d = a - b` (clusters: the same "
    "over the per-group difference sums, divided by the number of cases). The loop's time "
    "depends on the state of glibc's allocator: each of its n-element temporaries is either "
    "reused from the heap or mapped and page-faulted afresh (about half the loop's time at "
    "n = 1e5), depending on earlier allocations in the process, so the same loop can take "
    "twice as long in one row as in another."
)


def rand_report(
    cases: list[dict[str, Any]],
    tasks: list[dict[str, Any]],
    results: list[dict[str, Any]],
    first_call: dict[str, Any],
    args: argparse.Namespace,
) -> str:
    """The randomization-test sections of the Markdown report."""
    rows: dict[str, list[Row]] = {c["name"]: [] for c in cases}
    for t, r in zip(tasks, results, strict=True):
        rows[t["case"]["name"]].append((t, r))
    ref: dict[str, dict[str, float | None]] = {}
    for name, items in rows.items():
        sp = [seconds_of(t, r) for t, r in items if t["tool"] == "scipy" and t.get("batch")]
        lp = [seconds_of(t, r) for t, r in items if t["tool"] == "loop"]
        ref[name] = {"scipy": sp[0] if sp else None, "loop": lp[0] if lp else None}

    out = ["## Randomization test (issue #3)\n"]
    out.append(
        f"Paired randomization (sign-flip) test, {B:,} permutations, two-sided. Seconds, "
        "ratios (speed-ups) and peak MiB as in the bootstrap table: best of the number of "
        "calls in brackets, every row in its own subprocess.\n"
    )
    out.append("| case | tool | seconds | ratio vs scipy | ratio vs numpy loop | peak MiB |")
    out.append("|---|---|---:|---:|---:|---:|")
    disturbed: list[str] = []
    for case in cases:
        name = case["name"]
        for t, r in rows[name]:
            label = rand_label(t, r)
            problem = t.get("skipped") or r.get("error")
            if problem:
                out.append(f"| {name} | {label} | {problem} | — | — | — |")
                continue
            s = seconds_of(t, r)
            mark = ""
            if (r.get("foreign_cores") or 0.0) >= BUSY:
                mark = " ‡"
                disturbed.append(f"{name}, {label}: {r['foreign_cores']:.2f}")
            rs, rl = ref[name]["scipy"], ref[name]["loop"]
            r_s = rs / s if rs and s else None
            r_l = rl / s if rl and s else None
            out.append(
                f"| {name} | {label} | {fmt_s(s)}{mark} [{r['repeats_done']}] | "
                f"{fmt_ratio(r_s)} | {fmt_ratio(r_l)} | {fmt_mib(r.get('peak_mib'))} |"
            )
    out.append("")
    if disturbed:
        out.append(
            f"‡ Other processes used ≥ {BUSY} cores on average while this row ran, so its time "
            "is probably inflated (cores used by others: " + "; ".join(disturbed) + ")."
        )
        out.append("")
    out += [NOTE_RAND_TOOLS, ""]
    for case in cases:
        batched = [
            (t, r) for t, r in rows[case["name"]]
            if t["tool"] == "scipy" and t.get("batch") and r.get("peak_mib")
        ]  # fmt: skip
        skipped_default = any(
            t["tool"] == "scipy" and t.get("skipped") and "batch" in t
            for t, _ in rows[case["name"]]
        )
        if batched and skipped_default:
            t, r = batched[0]
            est = r["peak_mib"] * B / t["batch"] / 1024
            out.append(
                f"scipy's default `batch=None` at {case['name']}: scaling the peak of the "
                f"batch={t['batch']} row ({fmt_mib(r['peak_mib'])} MiB) to one batch of {B:,} "
                f"permutations gives about {est:,.0f} GiB.\n"
            )

    out.append("### p-values (all tools should agree within Monte Carlo error)\n")
    out.append(
        "MC s.e.: Monte Carlo standard error of the p-value (pdpaired's `pvalue_se`; for "
        "scipy, whose two-sided p-value is twice the smaller one-sided one, that of "
        f"2 {X} p_side; "
        "for the loop, sqrt(p (1 - p) / (R + 1))). z: difference to pdpaired (numba) over the "
        "combined s.e. of two independent estimates; |z| < 3 counts as agreement. Null hash: "
        "sha256 of the null distribution's float64 bytes (pdpaired only).\n"
    )
    out.append("| case | tool | statistic | p-value | MC s.e. | vs pdpaired (numba) | null hash |")
    out.append("|---|---|---:|---:|---:|---|---|")
    for case in cases:
        items = [(t, r) for t, r in rows[case["name"]] if "pvalue" in r]
        ref_r = next(
            (r for t, r in items if t["tool"] == "pdpaired" and t["accel"] == "numba"), None
        )
        for t, r in items:
            se = r.get("pvalue_se")
            if ref_r is None:
                cmp_txt = "—"
            elif r is ref_r:
                cmp_txt = "reference"
            elif t["tool"] == "pdpaired":
                same = r.get("null_sha") == ref_r.get("null_sha") and r["pvalue"] == ref_r["pvalue"]
                cmp_txt = "identical (same seed)" if same else "**differs**"
            else:
                s0 = ref_r.get("pvalue_se") or 0.0
                denom = float(np.hypot(se or 0.0, s0))
                z = (r["pvalue"] - ref_r["pvalue"]) / denom if denom > 0 else float("inf")
                cmp_txt = (f"agrees (z = {z:+.2f})" if abs(z) < 3 else
                           f"**disagrees** (z = {z:+.2f})")  # fmt: skip
            out.append(
                f"| {case['name']} | {rand_label(t, r)} | {r['statistic']:.8g} | "
                f"{r['pvalue']:.4f} | {'—' if se is None else f'{se:.4f}'} | {cmp_txt} | "
                f"{r.get('null_sha', '—')} |"
            )
    out.append("")
    if first_call:
        out.append(
            "### Numba first call (randomization, continuous n=1e4, 10,000 permutations, "
            "fresh process)\n"
        )
        for label, v in first_call.items():
            if v:
                out.append(f"- {label}: first call {v[0]:.2f} s, second call {v[1]:.3f} s")
            else:
                out.append(f"- {label}: failed")
        out.append("")
    out.append(rand_targets(cases, rows, ref, args))
    return "\n".join(out)


def rand_targets(
    cases: list[dict[str, Any]],
    rows: dict[str, list[Row]],
    ref: dict[str, dict[str, float | None]],
    args: argparse.Namespace,
) -> str:
    """Issue #3's speed, memory and reproducibility targets, each marked met / NOT met."""
    by_role = {c["role"]: c["name"] for c in cases}

    def find(name: str, accel: str) -> dict[str, Any] | None:
        for t, r in rows[name]:
            if t["tool"] == "pdpaired" and t["accel"] == accel and "seconds" in r:
                return r
        return None

    def verdict(ok: bool | None) -> str:
        return "—" if ok is None else ("met" if ok else "**NOT met**")

    lines = ["## Targets (issue #3, same-run ratios)\n"]
    if args.quick:
        lines.append("_Quick run: the sizes differ from the issue's; verdicts are indicative._\n")
    lines.append("| target | measured | verdict |")
    lines.append("|---|---|---|")
    cont = by_role["cont"]
    rs = ref[cont]["scipy"]
    for accel, goal in (("numba", 200), ("numpy", 20)):
        r = find(cont, accel)
        x = rs / r["seconds"] if r and rs else None
        ok = None if x is None else x >= goal
        miss = "" if ok or x is None else f"; {x / goal:.0%} of the target"
        meas = f"{fmt_ratio(x)} ({fmt_s(r['seconds'] if r else None)} s vs {fmt_s(rs)} s){miss}"
        lines.append(
            f"| {accel} ≥ {goal}{X} scipy permutation_test, {cont} | {meas} | {verdict(ok)} |"
        )

    parts, ok_mem = [], True
    for case in cases:
        peaks = [
            (r["peak_mib"], rand_label(t, r))
            for t, r in rows[case["name"]]
            if t["tool"] == "pdpaired" and r.get("peak_mib") is not None
        ]
        if peaks:
            top = max(peaks)
            ok_mem &= top[0] < 300
            parts.append(f"{case['name']}: max {fmt_mib(top[0])} MiB ({top[1]})")
    sp = [
        (r["peak_mib"], rand_label(t, r))
        for t, r in rows[cont]
        if t["tool"] == "scipy" and r.get("peak_mib") is not None
    ]
    if sp:
        parts.append("(" + "; ".join(f"{lab}: {fmt_mib(m)} MiB" for m, lab in sp) + ")")
    lines.append(
        "| peak extra memory < 300 MiB (randomization call, every pdpaired row) | "
        f"{'; '.join(parts)} | {verdict(ok_mem if parts else None)} |"
    )

    parts, ok_bits, seen = [], True, False
    for case in cases:
        a, b = find(case["name"], "numba"), find(case["name"], "numpy")
        if not (a and b):
            continue
        seen = True
        same = a["null_sha"] == b["null_sha"]
        ok_bits &= same
        engines = a["engine"] if a["engine"] == b["engine"] else f"{a['engine']} vs {b['engine']}"
        rel = "==" if same else "!="
        parts.append(f"{case['name']} ({engines}): {a['null_sha']} {rel} {b['null_sha']}")
    lines.append(
        "| bit-identical null distribution, numba vs numpy engine, same seed (sha256) | "
        f"{'; '.join(parts)} | {verdict(ok_bits if seen else None)} |"
    )
    lines.append("")
    return "\n".join(lines)


# --------------------------------------------------------------------------- AUROC report


def auroc_label(task: dict[str, Any], res: dict[str, Any]) -> str:
    """Row label of the AUROC table: tool, method, engine (and iid for pdpaired)."""
    tool = task["tool"]
    if tool == "pdpaired":
        label = tool_label(task, res)
        return label + (", iid" if task.get("stratified") is False else "")
    if tool == "scipy":
        return f"scipy {task['method']}" + (f", batch={task['batch']}" if "batch" in task else "")
    return "numpy loop"


NOTE_AUROC_TOOLS = (
    "pdpaired: `cmp.bootstrap(n_resamples=2_000, rng=0, method=...)` on a prebuilt "
    "`cmp = df.paired(target='y', prediction='p').compare('A', 'B', metric='auroc')` (a long "
    "table: case_id, model, y, p), after one warm-up call, with `PDPAIRED_ACCELERATOR` set to "
    "the engine in brackets. By default pdpaired resamples within target classes "
    "(target-stratified: the numbers of positives and negatives are kept); the rows marked "
    "'iid' pass `stratified=False` and resample cases freely, as scipy and the loop do. "
    "scipy: `scipy.stats.bootstrap((y, pa, pb), stat, paired=True, vectorized=False, "
    "method='percentile', n_resamples=2_000, batch=...)` with `stat = lambda y, pa, pb: "
    "roc_auc_score(y, pa) - roc_auc_score(y, pb)` (sklearn), the batch chosen as for the "
    "mean bootstrap (about 1e7 values per batch and array; with `vectorized=False` it only "
    "sets how many resamples scipy gathers at once, i.e. its memory). scipy's paired "
    "resampling is iid: it draws cases, not cases within target classes, so the number of "
    "positives varies from resample to resample. numpy loop: `for _ in range(B): idx = "
    "rng.integers(0, n, n); roc_auc_score(y[idx], pa[idx]) - roc_auc_score(y[idx], pb[idx])` "
    "(iid as well). scipy (`rng=0`) and the loop (`default_rng(0)`) draw the very same "
    "resamples from the same stream, so their intervals coincide when they run the same "
    "number of resamples: a check that both compute the same statistic."
)


def quantile_mc_se(sd: float, alpha: float, b: int) -> float:
    """Monte Carlo s.e. of a bootstrap ``alpha`` quantile from ``b`` draws (normal approx.)."""
    from statistics import NormalDist

    nd = NormalDist()
    return sd * float(np.sqrt(alpha * (1 - alpha) / b)) / nd.pdf(nd.inv_cdf(alpha))


def auroc_report(
    cases: list[dict[str, Any]],
    tasks: list[dict[str, Any]],
    results: list[dict[str, Any]],
    args: argparse.Namespace,
) -> str:
    """The AUROC sections of the Markdown report (issue #4)."""
    rows: dict[str, list[Row]] = {c["name"]: [] for c in cases}
    for t, r in zip(tasks, results, strict=True):
        rows[t["case"]["name"]].append((t, r))
    ref: dict[str, dict[str, float | None]] = {}
    for name, items in rows.items():
        sp = [
            seconds_of(t, r)
            for t, r in items
            if t["tool"] == "scipy" and t["method"] == "percentile" and "seconds" in r
        ]
        lp = [seconds_of(t, r) for t, r in items if t["tool"] == "loop" and "seconds" in r]
        ref[name] = {"scipy": sp[0] if sp else None, "loop": lp[0] if lp else None}

    out = ["## AUROC bootstrap, prediction mode (issue #4)\n"]
    out.append(
        f"Paired bootstrap of AUROC(A) - AUROC(B), {AUROC_B:,} resamples, 95% interval; binary "
        "target (~50% positives), two correlated continuous scores. Seconds, ratios (speed-ups) "
        "and peak MiB as in the bootstrap table: best of the number of calls in brackets, every "
        "row in its own subprocess.\n"
    )
    out.append(
        "| case | tool | seconds | ratio vs scipy percentile | ratio vs numpy loop | peak MiB |"
    )
    out.append("|---|---|---:|---:|---:|---:|")
    extrapolated: set[int] = set()
    disturbed: list[str] = []
    for case in cases:
        name = case["name"]
        for t, r in rows[name]:
            label = auroc_label(t, r)
            problem = t.get("skipped") or r.get("error")
            if problem:
                out.append(f"| {name} | {label} | {problem} | — | — | — |")
                continue
            s = seconds_of(t, r)
            mark = ""
            if t.get("scale", 1.0) != 1.0:
                mark = " ¹"
                extrapolated.add(t["n_resamples"])
            if (r.get("foreign_cores") or 0.0) >= BUSY:
                mark += " ‡"
                disturbed.append(f"{name}, {label}: {r['foreign_cores']:.2f}")
            rs, rl = ref[name]["scipy"], ref[name]["loop"]
            r_s = rs / s if rs and s else None
            r_l = rl / s if rl and s else None
            out.append(
                f"| {name} | {label} | {fmt_s(s)}{mark} [{r['repeats_done']}] | "
                f"{fmt_ratio(r_s)} | {fmt_ratio(r_l)} | {fmt_mib(r.get('peak_mib'))} |"
            )
    out.append("")
    for m in sorted(extrapolated):
        out.append(
            f"¹ Extrapolated linearly: measured with {m:,} resamples (loop: iterations) and "
            f"multiplied by {AUROC_B / m:g}; both make two `roc_auc_score` calls per resample, so "
            "their time is linear in the number of resamples (`--full` runs all "
            f"{AUROC_B:,}). The peak memory is that of the {m:,}-resample run (for batched "
            "scipy it depends on the batch, not on the number of resamples).\n"
        )
    if disturbed:
        out.append(
            f"‡ Other processes used ≥ {BUSY} cores on average while this row ran, so its time "
            "is probably inflated (cores used by others: " + "; ".join(disturbed) + ").\n"
        )
    out += [NOTE_AUROC_TOOLS, ""]

    out.append("### Pairing and validation (`df.paired(...).compare(..., metric='auroc')`)\n")
    out.append("| case | seconds | peak MiB |")
    out.append("|---|---:|---:|")
    for case in cases:
        comp = [r for t, r in rows[case["name"]] if "compare_seconds" in r]
        if comp:
            sec = min(r["compare_seconds"] for r in comp)
            pk = max((r["compare_peak_mib"] or 0.0) for r in comp)
            out.append(f"| {case['name']} | {fmt_s(sec)} [{len(comp)}] | {fmt_mib(pk)} |")
    out.append("")

    out.append("### Intervals (all tools should agree within Monte Carlo error)\n")
    out.append(
        "s.e.: standard deviation of the tool's bootstrap distribution (draws: its number of "
        "resamples). The reference is pdpaired percentile (numba, iid), the same design as "
        "scipy and the loop; z: each end's difference to the reference over the combined Monte "
        "Carlo s.e. of the two 2.5 % / 97.5 % quantiles (normal approximation); |z| < 3 counts "
        "as agreement. pdpaired's default target-stratified rows are compared to the same "
        "reference: a different design, expected close for AUROC but not identical. BCa "
        "intervals are not compared. Hash: sha256 of the bootstrap distribution's float64 "
        "bytes (pdpaired only; numba and numpy must match).\n"
    )
    out.append(
        "| case | tool | sampling | draws | AUROC(A) - AUROC(B) | 95% interval | s.e. | "
        "vs pdpaired (numba, iid) | hash |"
    )
    out.append("|---|---|---|---:|---:|---|---:|---|---|")
    for case in cases:
        items = [(t, r) for t, r in rows[case["name"]] if "ci" in r]
        ref_r = next(
            (
                r
                for t, r in items
                if t["tool"] == "pdpaired"
                and t["accel"] == "numba"
                and t.get("stratified") is False
            ),
            None,
        )
        for t, r in items:
            lo, hi = r["ci"]
            if ref_r is None or t.get("method", "percentile") != "percentile":
                cmp_txt = "—"
            elif r is ref_r:
                cmp_txt = "reference"
            else:
                zs = []
                for k, alpha in ((0, 0.025), (1, 0.975)):
                    se = float(
                        np.hypot(
                            quantile_mc_se(ref_r["se"], alpha, ref_r["n_dist"]),
                            quantile_mc_se(r["se"], alpha, r["n_dist"]),
                        )
                    )
                    zs.append((r["ci"][k] - ref_r["ci"][k]) / se if se > 0 else float("inf"))
                ok = max(abs(z) for z in zs) < 3
                word = "agrees" if ok else "**differs**"
                cmp_txt = f"{word} (z = {zs[0]:+.2f}, {zs[1]:+.2f})"
            out.append(
                f"| {case['name']} | {auroc_label(t, r)} | {r['sampling']} | {r['n_dist']:,} | "
                f"{r['improvement']:.6f} | [{lo:.6f}, {hi:.6f}] | {r['se']:.6f} | {cmp_txt} | "
                f"{r.get('dist_sha', '—')} |"
            )
    out.append("")
    out.append(auroc_targets(cases, rows, ref, args))
    return "\n".join(out)


def auroc_targets(
    cases: list[dict[str, Any]],
    rows: dict[str, list[Row]],
    ref: dict[str, dict[str, float | None]],
    args: argparse.Namespace,
) -> str:
    """Issue #4's speed, memory and reproducibility targets, each marked met / NOT met."""
    large = next(c["name"] for c in cases if c["role"] == "auroc_large")

    def find(name: str, accel: str, method: str = "percentile") -> Row | None:
        for t, r in rows[name]:
            if (
                t["tool"] == "pdpaired"
                and (t["accel"], t["method"]) == (accel, method)
                and t.get("stratified") is None
                and "seconds" in r
            ):
                return t, r
        return None

    def verdict(ok: bool | None) -> str:
        return "—" if ok is None else ("met" if ok else "**NOT met**")

    lines = ["### Targets (issue #4, same-run ratios)\n"]
    if args.quick:
        lines.append("_Quick run: the sizes differ from the issue's; verdicts are indicative._\n")
    lines.append("| target | measured | verdict |")
    lines.append("|---|---|---|")
    rs = ref[large]["scipy"]
    extrap = any(
        t["tool"] == "scipy" and t.get("scale", 1.0) != 1.0 and "seconds" in r
        for t, r in rows[large]
    )
    for accel, goal in (("numba", 50), ("numpy", 10)):
        hit = find(large, accel)
        sec = seconds_of(*hit) if hit else None
        x = rs / sec if rs and sec else None
        ok = None if x is None else x >= goal
        miss = "" if ok or x is None else f"; {x / goal:.0%} of the target"
        meas = f"{fmt_ratio(x)} ({fmt_s(sec)} s vs {fmt_s(rs)} s{' ¹' if extrap else ''}){miss}"
        lines.append(
            f"| {accel} ≥ {goal}{X} scipy percentile, {large} (percentile, target-stratified) | "
            f"{meas} | {verdict(ok)} |"
        )

    peaks = [
        (r["peak_mib"], auroc_label(t, r))
        for t, r in rows[large]
        if t["tool"] == "pdpaired" and r.get("peak_mib") is not None
    ]
    parts, ok_mem = [], None
    if peaks:
        top = max(peaks)
        ok_mem = top[0] < 500
        parts.append(f"pdpaired: max {fmt_mib(top[0])} MiB ({top[1]})")
    for t, r in rows[large]:
        if t["tool"] in {"scipy", "loop"} and r.get("peak_mib") is not None:
            parts.append(f"{auroc_label(t, r)}: {fmt_mib(r['peak_mib'])} MiB")
    lines.append(
        f"| peak extra memory < 500 MiB, {large} (bootstrap call, every pdpaired row) | "
        f"{'; '.join(parts)} | {verdict(ok_mem)} |"
    )

    parts, ok_bits, seen = [], True, False
    for case in cases:
        for method in ("percentile", "bca"):
            a, b = find(case["name"], "numba", method), find(case["name"], "numpy", method)
            if not (a and b):
                continue
            seen = True
            ra, rb = a[1], b[1]
            same = ra["dist_sha"] == rb["dist_sha"] and ra["ci"] == rb["ci"]
            both = (ra["engine"], rb["engine"]) == ("numba", "numpy")
            ok_bits &= same and both
            engines = f"{ra['engine']} vs {rb['engine']}" + ("" if both else ", not both engines")
            rel = "==" if same else "!="
            parts.append(
                f"{case['name']} {method} ({engines}): {ra['dist_sha']} {rel} {rb['dist_sha']}"
            )
    lines.append(
        "| bit-identical bootstrap distribution, numba vs numpy engine, same seed (sha256) | "
        f"{'; '.join(parts)} | {verdict(ok_bits if seen else None)} |"
    )
    lines.append("")
    return "\n".join(lines)


def main() -> None:
    """Run the benchmark (or, with --worker, one row of it)."""
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--quick", action="store_true", help="small sizes (smoke test, ~3.5 min)")
    ap.add_argument(
        "--full",
        action="store_true",
        help="no extrapolation: scipy and the loop run all 10,000 resamples at n=1e6 (+~10 min) "
        "and all 2,000 AUROC resamples at n=1e5 (+~4 min)",
    )
    ap.add_argument(
        "--repeats", type=int, help="at most this many timed calls per row (default 3; quick 2)"
    )
    ap.add_argument(
        "--budget",
        type=float,
        help="no further call once a row's calls have used this many seconds (default 45; quick 5)",
    )
    ap.add_argument(
        "--only",
        choices=("all", "bootstrap", "randomization", "auroc", "slices"),
        default="all",
        help="run only one part (default: all); the report goes to latest-PART.md",
    )
    ap.add_argument("--out", type=Path, help="Markdown output (default benchmarks/results/)")
    ap.add_argument("--timeout", type=float, default=3600.0, help="per-row timeout, seconds")
    ap.add_argument(
        "--max-wait",
        type=float,
        default=60.0,
        help="before each row, wait up to this many seconds for other processes to leave the "
        "CPUs idle (0: never wait; default 60)",
    )
    ap.add_argument(
        "--source-note", help="text added to the machine section, e.g. the commit measured"
    )
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.worker:
        res = worker(json.loads(args.worker))
        print(MARK + json.dumps(res), flush=True)
        return

    if args.repeats is None:
        args.repeats = 2 if args.quick else 3
    if args.budget is None:
        args.budget = 5.0 if args.quick else 45.0
    stem = ("quick" if args.quick else "latest") + ("" if args.only == "all" else f"-{args.only}")
    out_path = args.out or HERE / "results" / f"{stem}.md"
    boot, rand = args.only in {"all", "bootstrap"}, args.only in {"all", "randomization"}
    auroc = args.only in {"all", "auroc"}
    slices = args.only in {"all", "slices"}
    cases = cases_for(args.quick) if boot else []
    rcases = rand_cases_for(args.quick) if rand else []
    acases = auroc_cases_for(args.quick) if auroc else []
    btasks = plan(cases, args)
    rtasks = rand_plan(rcases, args)
    atasks = auroc_plan(acases, args)
    stasks = slices_plan(slices_cases_for(args.quick), args) if slices else []
    tasks = btasks + rtasks + atasks + stasks
    env = dict(os.environ)
    user_cache = "NUMBA_CACHE_DIR" in env
    # Keep numba's on-disk cache out of the source tree.
    cache_dir = env.get("NUMBA_CACHE_DIR") or tempfile.mkdtemp(prefix="pdpaired-bench-numba-")
    env["NUMBA_CACHE_DIR"] = cache_dir
    results = []
    t_start = time.perf_counter()
    load_start = os.getloadavg()
    source_start = pdpaired_source()[0]
    first_call: dict[str, Any] = {}
    rand_first_call: dict[str, Any] = {}
    try:
        for wanted, script, slot in (
            (boot, FIRST_CALL, first_call),
            (rand, FIRST_CALL_RANDOMIZATION, rand_first_call),
        ):
            if not wanted:
                continue
            fc_dir = tempfile.mkdtemp(prefix="pdpaired-bench-first-call-")
            try:
                if args.max_wait > 0:
                    wait_for_idle(args.max_wait)
                slot.update(first_call_latency(env, fc_dir, script))
            finally:
                shutil.rmtree(fc_dir, ignore_errors=True)
        for i, task in enumerate(tasks, 1):
            what = " ".join(str(task[k]) for k in ("tool", "accel", "method") if k in task)
            if task.get("part") in {"randomization", "auroc", "slices"}:
                what = f"{task['part']} {what}"
                if task.get("stratified") is False:
                    what += " iid"
            print(
                f"[{i}/{len(tasks)}] {task['case']['name']}: {what} ...", end=" ", file=sys.stderr
            )
            sys.stderr.flush()
            if task.get("skipped"):
                res: dict[str, Any] = {}
                print("skipped", file=sys.stderr, flush=True)
            else:
                waited = wait_for_idle(args.max_wait) if args.max_wait > 0 else 0.0
                t0 = time.perf_counter()
                res = run_worker(task, env, args.timeout)
                msg = res.get("error") or (
                    f"{seconds_of(task, res):.3f} s [{res['repeats_done']}], "
                    f"peak {fmt_mib(res['peak_mib'])} MiB, engine {res.get('engine')}, "
                    f"other processes {res.get('foreign_cores', float('nan')):.2f} cores"
                    + (f", p = {res['pvalue']:.4f}" if "pvalue" in res else "")
                )
                took = time.perf_counter() - t0
                wait = f", waited {waited:.0f} s for idle" if waited >= 2 else ""
                print(f"{msg} (row took {took:.0f} s{wait})", file=sys.stderr, flush=True)
            results.append(res)
    finally:
        if not user_cache:
            shutil.rmtree(cache_dir, ignore_errors=True)
    info = machine_info()
    if args.source_note:
        info["note"] = args.source_note
    seen = {source_start, pdpaired_source()[0]} | {r["source"] for r in results if "source" in r}
    if len(seen) > 1:
        info["WARNING"] = (
            f"pdpaired's source changed during the run ({len(seen)} versions seen); rows may "
            "measure different code. Rerun on a stable tree (see benchmarks/README.md)."
        )
    info["benchmark wall time"] = f"{time.perf_counter() - t_start:.0f} s"
    loads = " / ".join(", ".join(f"{x:.2f}" for x in la) for la in (load_start, os.getloadavg()))
    info["load average (1, 5, 15 min) at start / end"] = (
        f"{loads} (other processes using the cores distort the timings)"
    )
    nb, nr = len(btasks), len(btasks) + len(rtasks)
    na = nr + len(atasks)
    if boot:
        text = report(cases, tasks[:nb], results[:nb], info, first_call, args)
    else:
        text = "\n".join(header(info, args)) + "\n"
    if rand:
        text += "\n" + rand_report(rcases, tasks[nb:nr], results[nb:nr], rand_first_call, args)
    if auroc:
        text += "\n" + auroc_report(acases, tasks[nr:na], results[nr:na], args)
    if slices:
        text += "\n" + slices_report(tasks[na:], results[na:], args)
    print(text)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = out_path.with_name(out_path.name + ".tmp")
    tmp.write_text(text + "\n")
    tmp.replace(out_path)
    print(f"\nwritten to {out_path}", file=sys.stderr)


if __name__ == "__main__":
    main()
