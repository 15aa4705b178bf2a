"""Paired randomization (sign-flip) test: pdpaired vs scipy and a NumPy loop.

10,000 permutations, two-sided. Continuous scores (n = 1e5), 0/1 scores (n = 1e5;
pdpaired's exact binomial shortcut) and clusters (1e6 items in 1e4 groups,
``unit="group"``: scipy has no grouped permutation test). The effects are small, so
the p-values are moderate (0.03-0.4) and comparing them across tools means something.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from .common import (
    OFF_PLAN,
    Benchmark,
    X,
    digest,
    engine_label,
    group_sums,
    make_arrays,
    make_frame,
    resamples,
    resolve,
    scipy_batch,
    use_engine,
)

N = {"tiny": 500, "quick": 10_000, "default": 100_000}
CASES: dict[str, dict[str, Any]] = {
    "cont": {"kind": "continuous", "seed": 41, "n": N, "shift": 0.0007},
    "bin": {"kind": "binary", "seed": 42, "n": N, "breaks": 0.0485, "fixes": 0.20},
    "clusters": {
        "kind": "clusters",
        "seed": 43,
        "n": {"tiny": 2_000, "quick": 100_000, "default": 1_000_000},
        "groups": {"tiny": 50, "quick": 1_000, "default": 10_000},
        "shift": 0.001,
        "suffix": ", unit=group",
    },
}
ROLES = tuple(CASES)
# What the report says each tool ran (printed under the family's table).
NOTE = (
    "pdpaired: `cmp.randomization(n_permutations=10_000, rng=0)` (clusters: `unit='group'`) on "
    "a prebuilt Comparison, after one warm-up call; '→ binomial' marks the exact binomial "
    "shortcut (0/1 scores), whichever engine is set. scipy: `scipy.stats.permutation_test("
    "(a, b), statistic, permutation_type='samples', vectorized=True, n_resamples=10_000, "
    "alternative='two-sided', batch=...)` with `statistic = mean(x - y)`, the batch chosen as "
    "for the bootstrap. numpy loop: `for _ in range(R): s = rng.integers(0, 2, n) * 2 - 1; "
    "(s * d).mean()` (clusters: over the per-group difference sums, divided by the number of "
    "cases); its time depends on the state of glibc's allocator (temporaries reused from the "
    f"heap or mapped afresh), so read ratios to it as ± 2{X}."
)


def physical_memory() -> float:
    """Bytes of RAM (0 if unknown)."""
    try:
        return float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError):
        return 0.0


def mc_pvalue(null: np.ndarray, t: float) -> float:
    """Two-sided Monte Carlo p-value ``(1 + #|T*| >= |t|) / (1 + R)``, scipy's tie tolerance."""
    gamma = 100 * np.finfo(np.float64).eps * abs(t)
    return float((1 + np.count_nonzero(np.abs(null) >= abs(t) - gamma)) / (1 + null.size))


class Pdpaired(Benchmark):
    """``cmp.randomization(n_permutations=10_000, rng=0)``; clusters: ``unit="group"``."""

    tool = "pdpaired"
    params = (ROLES, ("numba", "numpy"))
    param_names = ("case", "engine")

    def setup(self, role: str, engine: str) -> None:
        use_engine(engine)
        import pdpaired  # noqa: F401

        df = make_frame(make_arrays(resolve(CASES, role)))
        self.cmp = df.paired.compare("A", "B", higher_is_better=True)
        self.kw = {"unit": "group"} if role == "clusters" else {}
        self.cmp.randomization(n_permutations=16, rng=1, **self.kw)  # warm-up

    def time_randomization(self, role: str, engine: str) -> Any:
        return self.cmp.randomization(n_permutations=resamples(), rng=0, **self.kw)

    def peakmem_randomization(self, role: str, engine: str) -> None:
        self.time_randomization(role, engine)

    def summary(self, out: Any) -> dict[str, Any]:
        return {
            "engine": out.engine,
            "statistic": float(out.statistic),
            "pvalue": float(out.pvalue),
            "pvalue_se": out.pvalue_se,
            "null_sha": digest(out.null_distribution),
        }

    def label(self, info: dict[str, Any], role: str, engine: str) -> str:
        return engine_label("pdpaired", engine, info)


class Scipy(Benchmark):
    """``scipy.stats.permutation_test(permutation_type="samples", vectorized=True)``.

    ``statistic = mean(x - y)``, batches of ~1e7 values per array (``batch=100`` at
    n = 1e5); the default ``batch=None`` runs only if its index arrays fit in a
    quarter of the machine's memory.
    """

    tool = "scipy"
    reference = "scipy"
    params = (ROLES, ("batched", "default"))
    param_names = ("case", "batch")

    def setup(self, role: str, batch: str) -> None:
        from scipy import stats

        case, b = resolve(CASES, role), resamples()
        if role == "clusters":
            if batch == "default":
                raise NotImplementedError(OFF_PLAN)
            msg = (
                "no equivalent: `permutation_test` has no groups (a one-sample sign-flip "
                "test on the per-group difference sums would be; not timed)"
            )
            raise NotImplementedError(msg)
        if batch == "default" and role != "cont":
            raise NotImplementedError(OFF_PLAN)
        self.batch = scipy_batch(case["n"], b) if batch == "batched" else None
        need = 2 * b * case["n"] * 2 * 8  # the (R x n x 2) int64 index array, held twice
        if self.batch is None and need >= physical_memory() / 4:
            msg = (
                f"not run: all {b:,} permutations in one batch; its index array "
                f"({b:,} {X} n {X} 2 int64, {need / 2e9:.0f} GB) is held twice, "
                f"{need / 2**30:.0f} GiB before any gather, more than this machine's "
                f"{physical_memory() / 2**30:.1f} GiB"
            )
            raise NotImplementedError(msg)
        arrs = make_arrays(case)
        a, b_ = arrs["a"], arrs["b"]

        def statistic(x: np.ndarray, y: np.ndarray, axis: int) -> np.ndarray:
            return np.mean(x - y, axis=axis)

        kw = {"permutation_type": "samples", "vectorized": True, "alternative": "two-sided"}
        kw["batch"] = self.batch
        stats.permutation_test((a[:50], b_[:50]), statistic, n_resamples=20, rng=1, **kw)
        self.run = lambda: stats.permutation_test((a, b_), statistic, n_resamples=b, rng=0, **kw)

    def time_permutation_test(self, role: str, batch: str) -> Any:
        return self.run()

    def peakmem_permutation_test(self, role: str, batch: str) -> None:
        self.run()

    def summary(self, out: Any) -> dict[str, Any]:
        p, r = float(out.pvalue), np.size(out.null_distribution)
        side = min(0.5, p / 2)  # two-sided p doubles the smaller one-sided one
        se = 2 * float(np.sqrt(side * (1 - side) / (r + 1)))
        return {
            "statistic": float(out.statistic),
            "pvalue": p,
            "pvalue_se": se,
            "batch": self.batch,
        }

    def label(self, info: dict[str, Any], role: str, batch: str) -> str:
        if role == "clusters":
            return "scipy permutation_test"
        if batch == "default":
            return "scipy permutation_test, default batch=None"
        n = resolve(CASES, role)["n"]
        return f"scipy permutation_test, batch={scipy_batch(n, resamples())}"


class Loop(Benchmark):
    """``for _ in range(R): s = rng.integers(0, 2, n) * 2 - 1; (s * d).mean()``.

    Clusters: the same over the per-group difference sums, divided by the number of
    cases. Its time depends on glibc's allocator state (each temporary is reused
    from the heap or mapped afresh), so it is bimodal: read ratios to it as within a factor of 2.
    """

    tool = "loop"
    reference = "loop"
    params = (ROLES,)
    param_names = ("case",)

    def setup(self, role: str) -> None:
        arrs = make_arrays(resolve(CASES, role))
        d = arrs["a"] - arrs["b"]
        clustered = role == "clusters"
        v = group_sums(d, arrs["sizes"]) if clustered else d
        n, m, r = d.size, v.size, resamples()
        self.t = float(v.sum() / n) if clustered else float(d.mean())

        def run() -> np.ndarray:
            rng = np.random.default_rng(0)
            out = np.empty(r)
            for i in range(r):
                s = rng.integers(0, 2, m) * 2 - 1
                out[i] = (s * v).sum() / n if clustered else (s * v).mean()
            return out

        self.run = run

    def time_loop(self, role: str) -> Any:
        return self.run()

    def peakmem_loop(self, role: str) -> None:
        self.run()

    def summary(self, out: Any) -> dict[str, Any]:
        p = mc_pvalue(out, self.t)
        se = float(np.sqrt(p * (1 - p) / (out.size + 1)))
        return {"statistic": self.t, "pvalue": p, "pvalue_se": se}

    def label(self, info: dict[str, Any], role: str) -> str:
        return "numpy loop"
