"""Paired bootstrap of a mean difference: pdpaired vs scipy and a NumPy loop.

10,000 resamples, 95% interval. Continuous scores (n = 1e3, 1e5, 1e6), 0/1 scores
(n = 1e5, 1e6; pdpaired's exact multinomial shortcut) and clusters (1e6 items in
1e4 groups of unequal size, resampled as whole groups). ``floor.py`` bounds what
any exact cluster bootstrap can reach on the machine.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .common import (
    OFF_PLAN,
    Benchmark,
    FirstCompare,
    X,
    engine_label,
    group_sums,
    make_arrays,
    make_frame,
    mode,
    resamples,
    resolve,
    sci,
    scipy_batch,
    shortened,
    use_engine,
)

BIG = {"tiny": 500, "quick": 10_000, "default": 100_000}
LARGE = {"tiny": 1_000, "quick": 30_000, "default": 1_000_000}
CASES: dict[str, dict[str, Any]] = {
    "cont_small": {"kind": "continuous", "seed": 11, "n": {"tiny": 300, "default": 1_000}},
    "cont_mid": {"kind": "continuous", "seed": 12, "n": BIG},
    "cont_large": {"kind": "continuous", "seed": 13, "n": LARGE},
    "bin_mid": {"kind": "binary", "seed": 21, "n": BIG},
    "bin_large": {"kind": "binary", "seed": 22, "n": LARGE},
    "clusters": {
        "kind": "clusters",
        "seed": 31,
        "n": {"tiny": 2_000, "quick": 100_000, "default": 1_000_000},
        "groups": {"tiny": 50, "quick": 1_000, "default": 10_000},
    },
}
ROLES = tuple(CASES)
# What the report says each tool ran (printed under the family's table).
NOTE = (
    "scipy: `scipy.stats.bootstrap((a, b), stat, paired=True, vectorized=True, "
    "n_resamples=10_000)` with `stat = mean(a) - mean(b)` along the last axis, `batch` chosen "
    "so that a batch gathers about 1e7 values per array (the default `batch=None` gathers "
    f"10,000 {X} n at once). Clusters: scipy has no cluster bootstrap, so it gets the per-group "
    "difference sums `s` and counts `c` as two paired arrays with `stat = sum(s) / sum(c)`. "
    "numpy loop: `for _ in range(B): idx = rng.integers(0, n, n); d[idx].mean()` on the "
    "precomputed differences (clusters: over groups, `s[idx].sum() / c[idx].sum()`). "
    "pdpaired: `cmp.bootstrap(n_resamples=10_000, rng=0, method=...)` on a prebuilt "
    "`cmp = df.paired.compare('A', 'B', higher_is_better=True)`, after one warm-up call, with "
    "`PDPAIRED_ACCELERATOR` set to the engine in brackets; '→ multinomial' marks the exact "
    "multinomial shortcut."
)
BCA_ROLES = {"cont_small", "cont_large", "bin_large", "clusters"}  # pdpaired's BCa rows


def _units(case: dict[str, Any]) -> int:
    return int(case.get("groups", case["n"]))


def _prepared(case: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, Any]:
    """scipy's two paired arrays and statistic: (a, b) or, for clusters, group (sums, counts)."""
    arrs = make_arrays(case)
    if case["kind"] != "clusters":

        def diff(a: np.ndarray, b: np.ndarray, axis: int = -1) -> np.ndarray:
            return np.mean(a, axis=axis) - np.mean(b, axis=axis)

        return arrs["a"], arrs["b"], diff

    def ratio(s: np.ndarray, c: np.ndarray, axis: int = -1) -> np.ndarray:
        return s.sum(axis=axis) / c.sum(axis=axis)

    sums = group_sums(arrs["a"] - arrs["b"], arrs["sizes"])
    return sums, arrs["sizes"].astype(np.float64), ratio


def _interval(out: Any) -> dict[str, Any]:
    ci = out.confidence_interval
    return {"ci": [float(ci.low), float(ci.high)]}


class Compare(Benchmark):
    """One-time pairing and validation: ``df.paired.compare`` on the long table."""

    tool = "compare"
    params = (ROLES,)
    param_names = ("case",)

    def setup(self, role: str) -> None:
        import pdpaired  # noqa: F401  (registers the accessor)

        self.df = make_frame(make_arrays(resolve(CASES, role)))
        self.time_compare(role)  # warm-up: the first call imports pandera

    def time_compare(self, role: str) -> Any:
        return self.df.paired.compare("A", "B", higher_is_better=True)

    def peakmem_compare(self, role: str) -> None:
        self.time_compare(role)

    def label(self, info: dict[str, Any], role: str) -> str:
        return "df.paired.compare"


class CompareFirstCall(FirstCompare):
    """``df.paired.compare`` as first called in a fresh process (pandera's import included)."""

    params = (ROLES,)
    param_names = ("case",)
    stmt = 'df.paired.compare("A", "B", higher_is_better=True)'

    def timeraw_compare(self, role: str) -> tuple[str, str]:
        return self.code(role)


class Pdpaired(Benchmark):
    """``cmp.bootstrap(n_resamples=10_000, rng=0, method=...)`` on a prebuilt Comparison."""

    tool = "pdpaired"
    params = (ROLES, ("percentile", "bca"), ("numba", "numpy"))
    param_names = ("case", "method", "engine")

    def setup(self, role: str, method: str, engine: str) -> None:
        if method == "bca" and role not in BCA_ROLES:
            raise NotImplementedError(OFF_PLAN)
        use_engine(engine)
        import pdpaired  # noqa: F401

        df = make_frame(make_arrays(resolve(CASES, role)))
        self.cmp = df.paired.compare("A", "B", higher_is_better=True)
        self.cmp.bootstrap(n_resamples=16, rng=1, method=method)  # warm-up

    def time_bootstrap(self, role: str, method: str, engine: str) -> Any:
        return self.cmp.bootstrap(n_resamples=resamples(), rng=0, method=method)

    def peakmem_bootstrap(self, role: str, method: str, engine: str) -> None:
        self.time_bootstrap(role, method, engine)

    def summary(self, out: Any) -> dict[str, Any]:
        return {"engine": out.engine, **_interval(out)}

    def label(self, info: dict[str, Any], role: str, method: str, engine: str) -> str:
        return engine_label(f"pdpaired {method}", engine, info)


class Scipy(Benchmark):
    """``scipy.stats.bootstrap(paired=True, vectorized=True)``, batches of ~1e7 values.

    Clusters: the per-group difference sums and counts as two paired arrays,
    ``stat = sum(s) / sum(c)``. BCa (an O(n²) jackknife) only where the resampled
    units number at most 1e4. At 1e6 units 1,000 resamples run, times 10 (¹).
    """

    tool = "scipy"
    reference = "scipy"  # the first row of a case (percentile) is the ratios' reference
    params = (ROLES, ("percentile", "bca"))
    param_names = ("case", "method")

    def setup(self, role: str, method: str) -> None:
        from scipy import stats

        case = resolve(CASES, role)
        units = _units(case)
        if method == "bca" and units > 10_000:
            msg = (
                f"not run (O(n²) jackknife: n² = {sci(float(units) ** 2)} values; "
                "O(n²) memory with batch=None, O(n²) time with a batch)"
            )
            raise NotImplementedError(msg)
        self.nres, self.scale = shortened(units, resamples(), resamples() // 10, 1_000_000)
        x, y, stat = _prepared(case)
        kw = {"paired": True, "vectorized": True, "method": method}
        kw["batch"] = scipy_batch(units, resamples())
        stats.bootstrap((x[:50], y[:50]), stat, n_resamples=20, rng=1, **kw)  # warm-up
        self.run = lambda: stats.bootstrap((x, y), stat, n_resamples=self.nres, rng=0, **kw)

    def time_bootstrap(self, role: str, method: str) -> Any:
        return self.run()

    def peakmem_bootstrap(self, role: str, method: str) -> None:
        self.run()

    def summary(self, out: Any) -> dict[str, Any]:
        return _interval(out)

    def label(self, info: dict[str, Any], role: str, method: str) -> str:
        units = _units(resolve(CASES, role))
        return f"scipy {method}, batch={scipy_batch(units, resamples())}"


class ScipyDefaultBatch(Scipy):
    """scipy's default ``batch=None`` (all resamples gathered at once), at n = 1e5: its memory."""

    reference = None
    params = (("cont_mid",), ("percentile",))

    def setup(self, role: str, method: str) -> None:
        from scipy import stats

        if mode() in {"tiny", "quick"}:
            raise NotImplementedError(OFF_PLAN)  # only at the benchmark's sizes
        x, y, stat = _prepared(resolve(CASES, role))
        self.nres, self.scale = resamples() // 10, 10.0
        kw = {"paired": True, "vectorized": True, "method": method}
        stats.bootstrap((x[:50], y[:50]), stat, n_resamples=20, rng=1, **kw)  # warm-up
        self.run = lambda: stats.bootstrap((x, y), stat, n_resamples=self.nres, rng=0, **kw)

    def label(self, info: dict[str, Any], role: str, method: str) -> str:
        return f"scipy {method}, default batch=None"


class Loop(Benchmark):
    """``for _ in range(B): idx = rng.integers(0, n, n); d[idx].mean()`` (groups: s/c)."""

    tool = "loop"
    reference = "loop"
    params = (ROLES,)
    param_names = ("case",)

    def setup(self, role: str) -> None:
        case = resolve(CASES, role)
        iters, self.scale = shortened(_units(case), resamples(), resamples() // 10, 1_000_000)
        x, y, _ = _prepared(case)
        clusters = case["kind"] == "clusters"
        d = x if clusters else x - y
        m = d.size

        def run() -> np.ndarray:
            rng = np.random.default_rng(0)
            out = np.empty(iters)
            for i in range(iters):
                idx = rng.integers(0, m, m)
                out[i] = d[idx].sum() / y[idx].sum() if clusters else d[idx].mean()
            return out

        self.run = run

    def time_loop(self, role: str) -> Any:
        return self.run()

    def peakmem_loop(self, role: str) -> None:
        self.run()

    def summary(self, out: Any) -> dict[str, Any]:
        return {"ci": [float(v) for v in np.percentile(out, [2.5, 97.5])]}

    def label(self, info: dict[str, Any], role: str) -> str:
        return "numpy loop"
