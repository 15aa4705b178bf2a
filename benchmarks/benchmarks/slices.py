"""Slices with uncertainty: ``by_slice`` vs a Python loop of scipy calls.

``cmp.by_slice("site", uncertainty=True, n_resamples=2000, n_permutations=2000,
rng=0)`` on n = 1e5 cases in 50 slices: per slice a bootstrap interval and a
randomization p-value (Holm-adjusted), the overall interval and the heterogeneity
test. scipy: per slice ``scipy.stats.bootstrap(paired=True)`` and
``scipy.stats.permutation_test(permutation_type="samples")`` (score mode only).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .common import Benchmark, auroc_resamples, resolve, use_engine

N = {"tiny": 1_000, "quick": 10_000, "default": 100_000}
K = {"tiny": 4, "quick": 10, "default": 50}
CASES: dict[str, dict[str, Any]] = {
    "score": {"kind": "score", "seed": 61, "n": N, "slices": K},
    "auroc": {"kind": "AUROC", "seed": 62, "n": N, "slices": K},
}
ROLES = tuple(CASES)
# What the report says each tool ran (printed under the family's table).
NOTE = (
    "`cmp.by_slice('site', uncertainty=True, n_resamples=2000, n_permutations=2000, rng=0)`: "
    "per slice a paired bootstrap interval and a randomization p-value (Holm-adjusted), plus "
    "the overall interval and the heterogeneity test, on a prebuilt Comparison after one "
    "warm-up call. scipy: a Python loop over the slices calling "
    "`scipy.stats.bootstrap(paired=True)` and `scipy.stats.permutation_test(permutation_type="
    "'samples')` with 2,000 resamples each (no overall row, no adjustment; score mode only)."
)


def make_data(role: str) -> dict[str, Any]:
    """Sites and the two models' scores (or target and predictions) of the case."""
    case = resolve(CASES, role)
    n, k = case["n"], case["slices"]
    rng = np.random.default_rng(case["seed"])
    site = rng.integers(0, k, n)
    if role == "score":
        base = rng.uniform(size=n)
        return {"site": site, "a": base + rng.normal(0.01, 0.1, n), "b": base, "k": k}
    y = rng.integers(0, 2, n)
    z = rng.normal(size=(2, n))
    return {"site": site, "y": y, "a": y + z[0], "b": 0.9 * y + z[1], "k": k}


class Pdpaired(Benchmark):
    """``cmp.by_slice("site", uncertainty=True, ...)`` on a prebuilt Comparison."""

    tool = "pdpaired"
    params = (ROLES, ("numba", "numpy"))
    param_names = ("case", "engine")

    def setup(self, role: str, engine: str) -> None:
        use_engine(engine)
        import pandas as pd

        import pdpaired  # noqa: F401

        d = make_data(role)
        n = d["a"].size
        cols: dict[str, Any] = {
            "case_id": np.tile(np.arange(n), 2),
            "model": np.repeat(["A", "B"], n),
            "site": np.tile(d["site"], 2),
        }
        if role == "score":
            cols["score"] = np.concatenate([d["a"], d["b"]])
            self.cmp = pd.DataFrame(cols).paired.compare("A", "B", higher_is_better=True)
        else:
            cols.update(y=np.tile(d["y"], 2), p=np.concatenate([d["a"], d["b"]]))
            frame = pd.DataFrame(cols).paired(target="y", prediction="p")
            self.cmp = frame.compare("A", "B", metric="auroc")
        self.cmp.by_slice("site", uncertainty=True, n_resamples=16, n_permutations=16, rng=1)

    def time_by_slice(self, role: str, engine: str) -> Any:
        b = auroc_resamples()
        return self.cmp.by_slice("site", uncertainty=True, n_resamples=b, n_permutations=b, rng=0)

    def peakmem_by_slice(self, role: str, engine: str) -> None:
        self.time_by_slice(role, engine)

    def summary(self, out: Any) -> dict[str, Any]:
        return {"reported": int((out.table["status"] == "reported").sum())}

    def label(self, info: dict[str, Any], role: str, engine: str) -> str:
        return f"pdpaired ({engine})"


class Scipy(Benchmark):
    """A Python loop over the slices: scipy's bootstrap and permutation test per slice."""

    tool = "scipy"
    reference = "scipy"
    params = (ROLES,)
    param_names = ("case",)

    def setup(self, role: str) -> None:
        from scipy import stats

        if role != "score":
            msg = "no equivalent: scipy has no AUROC statistic"
            raise NotImplementedError(msg)
        d = make_data(role)
        a, b, site, k, nres = d["a"], d["b"], d["site"], d["k"], auroc_resamples()

        def diff(x: np.ndarray, w: np.ndarray, axis: int = -1) -> np.ndarray:
            return np.mean(x, axis=axis) - np.mean(w, axis=axis)

        def run() -> int:
            for s in range(k):
                m = site == s
                stats.bootstrap(
                    (a[m], b[m]), diff, paired=True, n_resamples=nres, method="percentile", rng=0
                )
                stats.permutation_test(
                    (a[m], b[m]), diff, permutation_type="samples", n_resamples=nres, rng=0
                )
            return k

        self.run = run

    def time_loop(self, role: str) -> Any:
        return self.run()

    def peakmem_loop(self, role: str) -> None:
        self.run()

    def label(self, info: dict[str, Any], role: str) -> str:
        return "scipy loop"
