"""Engine choice: the ``auto`` budget (NumPy while loading numba would not pay), the
block that fixes one choice, and a first call in a fresh process that never loads numba
it does not need -- with the same numbers as the numba engine."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pdpaired.core import accel

from ..conftest import require_numba

ROOT = Path(__file__).resolve().parents[2]
BUDGET = accel.NUMBA_LOAD_SECONDS


@pytest.fixture
def unloaded(monkeypatch: pytest.MonkeyPatch) -> None:
    """``auto``, numba installed but not loaded yet, nothing spent."""
    require_numba()
    monkeypatch.setenv("PDPAIRED_ACCELERATOR", "auto")
    monkeypatch.setattr(accel, "_numba_loaded", lambda: False)
    monkeypatch.setattr(accel, "_numba_findable", lambda: True)
    monkeypatch.setattr(accel, "_numpy_seconds", 0.0)


@pytest.mark.usefixtures("unloaded")
def test_auto_runs_numpy_until_the_numba_load_is_paid_for() -> None:
    # ski rental: NumPy while the NumPy seconds chosen, with this call's, fit the budget
    assert accel.resampling_engine(BUDGET / 2) == "numpy"
    assert accel.resampling_engine(BUDGET / 2) == "numpy"  # exactly the budget
    assert accel._numpy_seconds == BUDGET
    assert accel.resampling_engine(BUDGET / 1000) == "numba"  # the next one loads numba
    assert accel._numpy_seconds == BUDGET  # a numba choice spends nothing


@pytest.mark.usefixtures("unloaded")
def test_a_computation_over_the_budget_loads_numba_at_once() -> None:
    assert accel.resampling_engine(BUDGET * 1.01) == "numba"
    assert accel._numpy_seconds == 0.0
    assert accel.resampling_engine(0.0) == "numpy"  # still unloaded (patched): free work


@pytest.mark.usefixtures("unloaded")
@pytest.mark.parametrize("choice", ["numba", "numpy"])
def test_an_explicit_engine_is_obeyed_whatever_the_work(
    choice: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PDPAIRED_ACCELERATOR", choice)
    assert accel.resampling_engine(0.0) == choice
    assert accel.resampling_engine(1e9) == choice
    assert accel._numpy_seconds == 0.0


def test_once_numba_is_loaded_auto_always_runs_it(monkeypatch: pytest.MonkeyPatch) -> None:
    require_numba()
    monkeypatch.setenv("PDPAIRED_ACCELERATOR", "auto")
    accel.index_kernel()  # loads the kernels
    assert accel._numba_loaded()
    assert accel.resampling_engine(0.0) == "numba"


def test_without_numba_auto_spends_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing() -> None:
        raise ModuleNotFoundError("No module named 'numba'", name="numba")

    monkeypatch.setenv("PDPAIRED_ACCELERATOR", "auto")
    monkeypatch.setattr(accel, "_numba_loaded", lambda: False)
    monkeypatch.setattr(accel, "_numba_findable", lambda: False)
    monkeypatch.setattr(accel, "_numba_kernel", missing)
    monkeypatch.setattr(accel, "_numpy_seconds", 0.0)
    assert accel.resampling_engine(1e9) == "numpy"
    assert accel._numpy_seconds == 0.0


@pytest.mark.usefixtures("unloaded")
def test_a_block_fixes_one_choice_for_everything_inside() -> None:
    with accel.engine_for(BUDGET / 4) as outer:
        assert outer == "numpy"
        # work inside (however large) and nested blocks keep the block's choice
        assert accel.resampling_engine(1e9) == "numpy"
        assert accel.engine_name() == "numpy"
        with accel.engine_for(1e9) as inner:
            assert inner == "numpy"
    assert accel._numpy_seconds == BUDGET / 4  # charged once, for the block
    with accel.engine_for(1e9) as big:
        assert big == "numba"
        assert accel.resampling_engine(0.0) == "numba"
    assert accel.resampling_engine(0.0) == "numpy"  # outside, the budget rule again


FRESH = """
import json, sys
import numpy as np, pandas as pd
import pdpaired
rng = np.random.default_rng(7)
n = 1000
base = rng.normal(size=n)
df = pd.DataFrame({"case_id": np.tile(np.arange(n), 2), "model": np.repeat(["A", "B"], n),
                   "score": np.r_[base + 0.1 + rng.normal(0, 1, n), base]})
y = rng.integers(0, 2, n)
pred = pd.DataFrame({"case_id": np.tile(np.arange(n), 2), "model": np.repeat(["A", "B"], n),
                     "y": np.tile(y, 2), "p": np.r_[np.clip(y * 0.3 + rng.random(n), 0, 1),
                                                     rng.random(n)]})
out = {}
small = df.paired.bootstrap("A", "B", higher_is_better=True, rng=1, method="bca")
auc = pred.paired(target="y", prediction="p").bootstrap("A", "B", metric="auroc", rng=1,
                                                        n_resamples=2000)
flips = df.paired.randomization("A", "B", higher_is_better=True, rng=1)
out["small"] = [small.engine, small.bootstrap_distribution.tolist(),
                [small.confidence_interval.low, small.confidence_interval.high]]
out["auc"] = [auc.engine, auc.bootstrap_distribution.tolist()]
out["flips"] = [flips.engine, flips.pvalue]
out["loaded_after_small"] = "numba" in sys.modules
big = df.paired.bootstrap("A", "B", higher_is_better=True, rng=1, n_resamples=200_000)
out["big"] = [big.engine, big.bootstrap_distribution[:1000].tolist()]
print(json.dumps(out))
"""


def fresh(choice: str) -> dict[str, list[object]]:
    env = {k: v for k, v in os.environ.items() if k != "PDPAIRED_ACCELERATOR"}
    env["PDPAIRED_ACCELERATOR"] = choice
    proc = subprocess.run([sys.executable, "-c", FRESH], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    out: dict[str, list[object]] = json.loads(proc.stdout.strip().splitlines()[-1])
    return out


def test_a_fresh_process_runs_small_work_on_numpy_with_numbas_numbers() -> None:
    require_numba()
    auto, numba = fresh("auto"), fresh("numba")
    # a default bootstrap, an AUROC bootstrap and a sign-flip test on 1,000 cases cost
    # less than loading numba: they run on NumPy and numba is never imported ...
    assert auto["small"][0] == auto["auc"][0] == auto["flips"][0] == "numpy"
    assert auto["loaded_after_small"] is False
    # ... and a computation that pays for the load runs on numba
    assert auto["big"][0] == "numba"
    assert [numba[k][0] for k in ("small", "auc", "flips", "big")] == ["numba"] * 4
    # bit-identical numbers whichever engine ran
    for key in ("small", "auc", "flips", "big"):
        assert auto[key][1:] == numba[key][1:], key
