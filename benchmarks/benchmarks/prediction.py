"""Prediction mode: bootstrap of AUROC(A) - AUROC(B) vs scipy and a NumPy loop.

2,000 resamples, 95% interval; a binary target (~50% positives) and two correlated
continuous scores, n = 1e4 and 1e5. pdpaired resamples within target classes by
default; its ``iid`` row (``stratified=False``) is the design scipy and the loop use.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .common import (
    OFF_PLAN,
    Benchmark,
    FirstCompare,
    X,
    auroc_resamples,
    digest,
    engine_label,
    make_arrays,
    make_frame,
    resolve,
    scipy_batch,
    shortened,
    use_engine,
)

CASES: dict[str, dict[str, Any]] = {
    "auroc_small": {
        "kind": "auroc",
        "seed": 51,
        "n": {"tiny": 300, "quick": 1_000, "default": 10_000},
    },
    "auroc_large": {
        "kind": "auroc",
        "seed": 52,
        "n": {"tiny": 500, "quick": 3_000, "default": 100_000},
    },
}
ROLES = tuple(CASES)
# What the report says each tool ran (printed under the family's table).
NOTE = (
    "pdpaired: `cmp.bootstrap(n_resamples=2_000, rng=0, method=...)` on a prebuilt `cmp = "
    "df.paired(target='y', prediction='p').compare('A', 'B', metric='auroc')`, after one "
    "warm-up call; by default it resamples within target classes, the 'iid' rows pass "
    "`stratified=False` (the design of scipy and the loop). scipy: `scipy.stats.bootstrap("
    "(y, pa, pb), stat, paired=True, vectorized=False, method='percentile', n_resamples=2_000, "
    "batch=...)` with `stat = roc_auc_score(y, pa) - roc_auc_score(y, pb)` (sklearn). numpy "
    "loop: `idx = rng.integers(0, n, n); roc_auc_score(y[idx], pa[idx]) - roc_auc_score(y[idx], "
    "pb[idx])` per resample. scipy (`rng=0`) and the loop draw the same resamples, so their "
    "intervals coincide when they run the same number of resamples."
)


def _resamples(n: int) -> tuple[int, float]:
    """scipy's and the loop's resamples: 200 at n >= 1e5, times 10 (unless mode full)."""
    b = auroc_resamples()
    return shortened(n, b, b // 10, 100_000)


class Compare(Benchmark):
    """``df.paired(target="y", prediction="p").compare("A", "B", metric="auroc")``."""

    tool = "compare"
    params = (ROLES,)
    param_names = ("case",)

    def setup(self, role: str) -> None:
        import pdpaired  # noqa: F401

        self.df = make_frame(make_arrays(resolve(CASES, role)))
        self.time_compare(role)  # warm-up: the first call imports pandera

    def time_compare(self, role: str) -> Any:
        return self.df.paired(target="y", prediction="p").compare("A", "B", metric="auroc")

    def peakmem_compare(self, role: str) -> None:
        self.time_compare(role)

    def label(self, info: dict[str, Any], role: str) -> str:
        return "compare, metric='auroc'"


class CompareFirstCall(FirstCompare):
    """The prediction-mode ``compare`` as first called in a fresh process."""

    params = (ROLES,)
    param_names = ("case",)
    stmt = 'df.paired(target="y", prediction="p").compare("A", "B", metric="auroc")'

    def timeraw_compare(self, role: str) -> tuple[str, str]:
        return self.code(role)


class Pdpaired(Benchmark):
    """``cmp.bootstrap(n_resamples=2_000, rng=0, method=...)``; ``iid``: ``stratified=False``."""

    tool = "pdpaired"
    params = (ROLES, ("percentile", "bca"), ("stratified", "iid"), ("numba", "numpy"))
    param_names = ("case", "method", "design", "engine")

    def setup(self, role: str, method: str, design: str, engine: str) -> None:
        if method == "bca" and (role != "auroc_large" or design == "iid"):
            raise NotImplementedError(OFF_PLAN)
        if design == "iid" and engine != "numba":
            raise NotImplementedError(OFF_PLAN)
        use_engine(engine)
        import pdpaired  # noqa: F401

        df = make_frame(make_arrays(resolve(CASES, role)))
        self.cmp = df.paired(target="y", prediction="p").compare("A", "B", metric="auroc")
        self.kw = {"method": method, "stratified": False if design == "iid" else None}
        self.cmp.bootstrap(n_resamples=16, rng=1, **self.kw)  # warm-up

    def time_bootstrap(self, role: str, method: str, design: str, engine: str) -> Any:
        return self.cmp.bootstrap(n_resamples=auroc_resamples(), rng=0, **self.kw)

    def peakmem_bootstrap(self, role: str, method: str, design: str, engine: str) -> None:
        self.time_bootstrap(role, method, design, engine)

    def summary(self, out: Any) -> dict[str, Any]:
        dist = out.bootstrap_distribution
        return {
            "engine": out.engine,
            "sampling": out.sampling,
            "improvement": float(out.improvement),
            "ci": [out.confidence_interval.low, out.confidence_interval.high],
            "se": float(np.std(dist, ddof=1)),
            "n_dist": int(np.size(dist)),
            "dist_sha": digest(dist),
        }

    def label(self, info: dict[str, Any], role: str, method: str, design: str, engine: str) -> str:
        text = engine_label(f"pdpaired {method}", engine, info)
        return text + (", iid" if design == "iid" else "")


def _auroc_diff() -> Any:
    from sklearn.metrics import roc_auc_score

    def stat(y: np.ndarray, pa: np.ndarray, pb: np.ndarray) -> float:
        return float(roc_auc_score(y, pa) - roc_auc_score(y, pb))

    return stat


class Scipy(Benchmark):
    """``scipy.stats.bootstrap((y, pa, pb), stat, paired=True, vectorized=False)``.

    ``stat = roc_auc_score(y, pa) - roc_auc_score(y, pb)``; iid resampling; the batch
    as for the mean bootstrap (only bounds scipy's memory). BCa is not run.
    """

    tool = "scipy"
    reference = "scipy"
    params = (ROLES, ("percentile", "bca"))
    param_names = ("case", "method")

    def setup(self, role: str, method: str) -> None:
        from scipy import stats

        case, b = resolve(CASES, role), auroc_resamples()
        n = case["n"]
        if method == "bca":
            if role != "auroc_large":
                raise NotImplementedError(OFF_PLAN)
            msg = (
                f"not run (jackknife: {n:,} leave-one-out calls of the statistic, two "
                f"`roc_auc_score` calls each: {n / b:.0f}{X} the calls of the percentile "
                "bootstrap)"
            )
            raise NotImplementedError(msg)
        self.nres, self.scale = _resamples(n)
        arrs = make_arrays(case)
        y, a, b_ = arrs["y"], arrs["a"], arrs["b"]
        stat = self.stat = _auroc_diff()
        self.improvement = stat(y, a, b_)
        kw = {"paired": True, "vectorized": False, "method": method}
        kw["batch"] = min(scipy_batch(n, b), b)
        stats.bootstrap((y[:50], a[:50], b_[:50]), stat, n_resamples=20, rng=1, **kw)
        self.run = lambda: stats.bootstrap((y, a, b_), stat, n_resamples=self.nres, rng=0, **kw)

    def time_bootstrap(self, role: str, method: str) -> Any:
        return self.run()

    def peakmem_bootstrap(self, role: str, method: str) -> None:
        self.run()

    def summary(self, out: Any) -> dict[str, Any]:
        dist = out.bootstrap_distribution
        ci = out.confidence_interval
        return {
            "sampling": "iid",
            "improvement": self.improvement,
            "ci": [float(ci.low), float(ci.high)],
            "se": float(np.std(dist, ddof=1)),
            "n_dist": int(np.size(dist)),
        }

    def label(self, info: dict[str, Any], role: str, method: str) -> str:
        if method == "bca":
            return "scipy bca"
        n, b = resolve(CASES, role)["n"], auroc_resamples()
        return f"scipy percentile, batch={min(scipy_batch(n, b), b)}"


class Loop(Benchmark):
    """``idx = rng.integers(0, n, n); roc_auc_score(y[idx], pa[idx]) - ...`` per resample."""

    tool = "loop"
    reference = "loop"
    params = (ROLES,)
    param_names = ("case",)

    def setup(self, role: str) -> None:
        from sklearn.metrics import roc_auc_score

        case = resolve(CASES, role)
        n = case["n"]
        iters, self.scale = _resamples(n)
        arrs = make_arrays(case)
        y, a, b = arrs["y"], arrs["a"], arrs["b"]
        self.improvement = float(roc_auc_score(y, a) - roc_auc_score(y, b))

        def run() -> np.ndarray:
            rng = np.random.default_rng(0)
            out = np.empty(iters)
            for i in range(iters):
                idx = rng.integers(0, n, n)
                yi = y[idx]
                out[i] = roc_auc_score(yi, a[idx]) - roc_auc_score(yi, b[idx])
            return out

        self.run = run

    def time_loop(self, role: str) -> Any:
        return self.run()

    def peakmem_loop(self, role: str) -> None:
        self.run()

    def summary(self, out: Any) -> dict[str, Any]:
        return {
            "sampling": "iid",
            "improvement": self.improvement,
            "ci": [float(v) for v in np.percentile(out, [2.5, 97.5])],
            "se": float(np.std(out, ddof=1)),
            "n_dist": int(out.size),
        }

    def label(self, info: dict[str, Any], role: str) -> str:
        return "numpy loop"
