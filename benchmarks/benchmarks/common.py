"""Shared pieces of the suite: run modes and sizes, the cases' data, the engine switch.

Conventions every benchmark class follows (asv's, plus three methods the targets
script reads; asv ignores them):

- the first parameter is the case's *role* (a key of the module's ``CASES``);
- ``setup`` builds the data and makes one warm-up call (numba loads or compiles
  its kernel there), so ``time_*`` times exactly the call the tables report;
- ``setup`` raises ``NotImplementedError`` to skip a combination: with a message
  the targets script shows it as a "not run" row, with an empty one it is not
  part of the plan and is left out;
- ``time_*`` returns the call's result; ``summary(out)`` turns it into a dict
  (interval, p-value, hashes, engine); ``label(info, *params)`` names the row;
  ``scale`` (set in ``setup``) is the factor from the resamples run to the
  resamples reported (extrapolation, marked ¹).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import numpy as np

MODES = ("tiny", "quick", "default", "full")
X = "\u00d7"  # multiplication sign
OFF_PLAN = ""  # NotImplementedError(OFF_PLAN): a combination outside the plan, not reported


def mode() -> str:
    """Run mode from ``PDPAIRED_BENCH_MODE``: tiny (smoke test), quick, default, full.

    ``full`` has the default sizes but never extrapolates (scipy and the loops run
    every resample at n = 1e6 and, for the AUROC, at n = 1e5).
    """
    m = os.environ.get("PDPAIRED_BENCH_MODE", "default")
    if m not in MODES:
        msg = f"`PDPAIRED_BENCH_MODE` must be one of {MODES}; got {m!r}."
        raise ValueError(msg)
    return m


def resamples() -> int:
    """Resamples and permutations of the bootstrap and randomization benchmarks."""
    return 200 if mode() == "tiny" else 10_000


def auroc_resamples() -> int:
    """Resamples of the AUROC benchmark (and per slice in the slices benchmark)."""
    return 100 if mode() == "tiny" else 2_000


def sized(spec: Any) -> Any:
    """A value of a case table: the same in every mode, or a dict keyed by mode."""
    if not isinstance(spec, dict):
        return spec
    m = mode()
    return spec.get(m, spec["default"])


def sci(n: float) -> str:
    """1000 -> '1e3', 30000 -> '3e4'."""
    mant, exp = f"{n:.0e}".split("e")
    return f"{mant}e{int(exp)}"


def resolve(cases: dict[str, dict[str, Any]], role: str) -> dict[str, Any]:
    """The case of ``role`` at the current mode's sizes, with its display name."""
    case = {k: sized(v) for k, v in cases[role].items()}
    case["role"] = role
    n, kind = case["n"], case["kind"]
    if kind == "clusters":
        name = f"clusters {sci(n)} items / {sci(case['groups'])} groups"
    elif kind == "binary":
        name = f"0/1 n={sci(n)}"
    elif kind == "auroc":
        name = f"AUROC n={sci(n)}"
    else:
        name = f"{kind} n={sci(n)}"
    if "slices" in case:
        name += f", {case['slices']} slices"
    case["name"] = name + case.get("suffix", "")
    return case


def shortened(units: int, full: int, short: int, threshold: int) -> tuple[int, float]:
    """Resamples to run and the extrapolation factor: ``short`` at ``units >= threshold``."""
    if units >= threshold and mode() != "full":
        return short, full / short
    return full, 1.0


def scipy_batch(units: int, b: int) -> int:
    """Replicates per scipy batch: about 1e7 gathered values (80 MiB) per array."""
    return max(1, min(b, 10_000_000 // units))


def use_engine(engine: str) -> None:
    """Select pdpaired's engine (read at call time); skip if numba is asked but absent."""
    if engine == "numba":
        try:
            import numba  # noqa: F401
        except ImportError:
            msg = "numba is not installed"
            raise NotImplementedError(msg) from None
    os.environ["PDPAIRED_ACCELERATOR"] = engine


def engine_label(text: str, engine: str, info: dict[str, Any]) -> str:
    """``'pdpaired percentile (numba'`` + ``' → multinomial)'`` when a shortcut ran."""
    used = info.get("engine", engine)
    return f"{text} ({engine}" + (f" → {used})" if used != engine else ")")


def digest(x: Any) -> str:
    """Short sha256 of an array's float64 bytes (bit-identity check across engines)."""
    arr = np.ascontiguousarray(np.asarray(x, dtype=np.float64))
    return hashlib.sha256(arr.tobytes()).hexdigest()[:16]


def group_sums(d: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Per-group sums of ``d``, whose groups are consecutive runs of ``sizes``."""
    return np.add.reduceat(d, np.concatenate([[0], np.cumsum(sizes)[:-1]]))


def make_arrays(case: dict[str, Any]) -> dict[str, np.ndarray]:
    """Deterministic per-case scores of models A and B (and groups, or a target)."""
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
        a = np.where(b == 1.0, (flip > breaks).astype(np.float64), (flip < fixes) * 1.0)
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
    msg = f"unknown case kind {kind!r}"
    raise ValueError(msg)


def make_frame(arrs: dict[str, np.ndarray]) -> Any:
    """The long table pdpaired takes: case_id, model, score (and group, or y and p)."""
    import pandas as pd

    n = arrs["a"].size
    cols: dict[str, Any] = {
        "case_id": np.tile(np.arange(n), 2),
        "model": np.repeat(np.array(["A", "B"]), n),
    }
    if "y" in arrs:  # prediction mode: target y, prediction p
        cols.update(y=np.tile(arrs["y"], 2), p=np.concatenate([arrs["a"], arrs["b"]]))
    else:
        cols["score"] = np.concatenate([arrs["a"], arrs["b"]])
    if "group" in arrs:
        cols["group"] = np.tile(arrs["group"], 2)
    return pd.DataFrame(cols)


FIRST_COMPARE = """
import sys
sys.path.insert(0, {bench!r})
import pdpaired
from benchmarks.common import make_arrays, make_frame, resolve
from benchmarks.{module} import CASES
df = make_frame(make_arrays(resolve(CASES, {role!r})))
"""


class FirstCompare:
    """Base of the ``compare`` classes that asv times in a fresh process (``timeraw_``).

    The first ``compare`` of a process also pays for pandera's import (lazy in
    pdpaired), which is what a script calling it once pays; the in-process
    ``Compare`` classes time the repeated call. ``stmt`` is set by the subclass.
    """

    tool = "compare"
    number = 1
    repeat = 1
    stmt = ""

    def code(self, role: str) -> tuple[str, str]:
        """``(statement, setup)`` for a fresh interpreter (``PDPAIRED_BENCH_MODE`` is inherited)."""
        bench = str(Path(__file__).resolve().parents[1])
        module = type(self).__module__.rsplit(".", 1)[1]
        return self.stmt, FIRST_COMPARE.format(bench=bench, module=module, role=role)

    def label(self, info: dict[str, Any], role: str) -> str:
        return "first call in a fresh process"


class Benchmark:
    """asv timing attributes shared by every class: one call per sample, best of three.

    ``repeat = (1, 3, 45.0)``: at least one and at most three samples, no new one
    after 45 s (the targets script's own defaults match). ``setup`` warms up.
    """

    number = 1
    repeat = (1, 3, 45.0)
    warmup_time = 0.0
    timeout = 1800.0
    scale = 1.0

    def summary(self, out: Any) -> dict[str, Any]:
        """What the report shows besides the time (nothing by default)."""
        return {}
