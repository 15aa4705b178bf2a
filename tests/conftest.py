"""Shared fixtures. Test helpers live here, never inside the package."""

from __future__ import annotations

import dataclasses
import math
import os
import sys
from typing import Any

#: Idle OpenMP threads (numba's ``omp`` threading layer, scikit-learn) sleep instead
#: of spinning. libgomp's default spins for a while after each parallel region; with
#: several processes on the cores (``make test`` runs one xdist worker per core, each
#: with a thread per core) the spinning threads take the CPU from the working ones:
#: 150 numba bootstraps took 1.3-2.0 s of CPU instead of 0.2-0.25 s, 3.6-5.4 s of
#: wall time instead of 0.5-1.0 s. Only how idle threads wait changes, never a result.
#: Set before anything loads libgomp, which reads it once; a value already set wins.
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest

import pdpaired  # noqa: F401  (registers the accessor)


@pytest.fixture(autouse=True)
def _close_pyplot_figures() -> Any:
    """Close the pyplot figures a test opened: ``res.plot()`` draws on ``plt.gca()``."""
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


def long_table(
    a: np.ndarray,
    b: np.ndarray,
    *,
    names: tuple[str, str] = ("A", "B"),
    ids: np.ndarray | None = None,
    **design: np.ndarray,
) -> pd.DataFrame:
    """Long (case, model, score[, design]) table from paired score arrays."""
    n = len(a)
    ids = np.arange(n) if ids is None else np.asarray(ids)
    parts = []
    for name, scores in zip(names, (a, b), strict=True):
        part = pd.DataFrame({"case_id": ids, "model": name, "score": scores})
        for col, values in design.items():
            part[col] = values
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


@pytest.fixture
def continuous() -> pd.DataFrame:
    rng = np.random.default_rng(12345)
    base = rng.gamma(2.0, 1.0, size=150)
    return long_table(base + rng.normal(0.2, 0.8, size=150), base)


@pytest.fixture
def clustered() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    sizes = rng.integers(1, 12, size=30)
    group = np.repeat(np.arange(30), sizes)
    effect = rng.normal(0.1, 0.5, size=30)[group]
    n = len(group)
    b = rng.normal(size=n)
    a = b + effect + rng.normal(0, 0.3, size=n)
    stratum = np.where(group % 3 == 0, "s0", np.where(group % 3 == 1, "s1", "s2"))
    return long_table(a, b, group=group, stratum=stratum)


# ------------------------------------------------------------ no silent skips in CI
#: ``PDPAIRED_REQUIRE_EXTRAS=1`` (set by ``make test``, so by CI): a test skipped
#: because an extra is missing (numba, dask, pyarrow, scikit-learn, import-linter,
#: the console script) fails instead, so a broken install cannot pass green.
REQUIRE_EXTRAS = os.environ.get("PDPAIRED_REQUIRE_EXTRAS", "").strip() not in ("", "0")
MISSING_EXTRA = ("could not import", "not installed")


def _skip_reason(report: Any) -> str:
    longrepr = report.longrepr
    return str(longrepr[2] if isinstance(longrepr, tuple) else longrepr)


def _fail_missing_extra(report: Any) -> None:
    if REQUIRE_EXTRAS and report.skipped and not hasattr(report, "wasxfail"):
        reason = _skip_reason(report)
        if any(s in reason.lower() for s in MISSING_EXTRA):
            report.outcome = "failed"
            report.longrepr = (
                f"PDPAIRED_REQUIRE_EXTRAS is set, so a missing extra fails the test: {reason}"
            )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    outcome = yield
    _fail_missing_extra(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Any:
    outcome = yield
    _fail_missing_extra(outcome.get_result())


def require_numba() -> Any:
    """Return the numba module, or skip the test (a failure in CI) without it.

    Only the tests that use numba call this, so without the ``fast`` extra the
    NumPy path and argument validation still run.
    """
    return pytest.importorskip("numba")


@pytest.fixture(params=["numpy", "numba"])
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run a test under each resampling engine."""
    if request.param == "numba":
        require_numba()
    monkeypatch.setenv("PDPAIRED_ACCELERATOR", request.param)
    return str(request.param)


def assert_identical(got: Any, ref: Any) -> None:
    """Every field of two result dataclasses is equal: floats by ``==``, arrays bit for bit."""
    assert type(got) is type(ref)
    for f in dataclasses.fields(ref):
        x, y = getattr(got, f.name), getattr(ref, f.name)
        if isinstance(y, np.ndarray):
            assert isinstance(x, np.ndarray), f.name
            assert x.dtype == y.dtype, f.name
            assert np.array_equal(x, y), f"{f.name}: arrays differ"
        elif isinstance(y, pd.DataFrame):
            pd.testing.assert_frame_equal(x, y)
        elif isinstance(y, float) and math.isnan(y):
            assert isinstance(x, float), f.name
            assert math.isnan(x), f"{f.name}: {x!r} is not NaN"
        else:
            assert x == y, f"{f.name}: dask {x!r} != pandas {y!r}"


# ------------------------------------------------------------ simulations run untraced
#: The simulations in ``tests/calibration/`` run the same few code paths thousands of
#: times to measure coverage and error rates; under coverage.py's tracer (``make
#: test`` measures line and branch coverage) they took 1.8x their plain time, for no
#: line that the other tests do not run. Their call phase runs with every running
#: coverage.py measurement stopped, and restarted afterwards in the same order, so the
#: coverage figures come from the tests that check the code's behaviour and a line
#: reached only by a simulation counts as not covered. Nothing else changes: the same
#: tests, seeds and assertions. (pytest-cov's own ``no_cover`` mark is not enough: in
#: an xdist worker pytest-cov 7.1 runs two measurements, and the mark pauses one.)
CALIBRATION = os.path.join(os.path.dirname(__file__), "calibration") + os.sep


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Any:
    cov = sys.modules.get("coverage")
    if cov is None or not str(item.path).startswith(CALIBRATION):
        yield
        return
    stopped = []
    while (running := cov.Coverage.current()) is not None:
        running.stop()  # the innermost first: it hands the thread back to the one below
        stopped.append(running)
    try:
        yield
    finally:
        for measurement in reversed(stopped):
            measurement.start()


# ------------------------------------------------------------ parallel runs (pytest-xdist)
#: ``make test`` runs the suite on every core with ``--dist loadgroup
#: --no-loadscope-reorder``: the scheduler hands out work units in the order of
#: the collection, each to a worker that is nearly idle. Each ``slow`` simulation
#: (minutes each) is a unit of its own and goes first, so the simulations spread
#: over the workers and the run does not end waiting for one of them. Every other
#: test is grouped with its file (a doctest with its module or page): a file's
#: ``scope="module"`` fixtures are built once, in one worker, and its tests run in
#: their usual order; larger files go first, small ones fill the end. A test that
#: has an ``xdist_group`` mark of its own stays in that group. Without xdist, or
#: with another ``--dist``, nothing changes: no marks, the usual order.
@pytest.hookimpl(tryfirst=True)  # before xdist's own hook, which reads the xdist_group marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not hasattr(config, "workerinput") or not config.getvalue("loadgroup"):
        return
    slow: list[pytest.Item] = []
    groups: dict[str, list[pytest.Item]] = {}
    for item in items:
        if item.get_closest_marker("xdist_group") is not None:
            mark = item.get_closest_marker("xdist_group")
            name = str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
            groups.setdefault(name, []).append(item)
        elif item.get_closest_marker("slow") is not None:
            slow.append(item)
        else:
            name = item.nodeid.split("::")[0]
            item.add_marker(pytest.mark.xdist_group(name))
            groups.setdefault(name, []).append(item)
    # deterministic, so every worker collects the same order (xdist checks it)
    ordered = sorted(groups.values(), key=len, reverse=True)  # stable: ties keep their order
    items[:] = slow + [item for group in ordered for item in group]
