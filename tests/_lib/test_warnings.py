"""Every pdpaired warning points at the caller's line, whichever front end was used.

The stack level is computed
(``pdpaired._lib.errors.find_stack_level``), never hard-coded, so the recorded
``filename`` of a warning is this file and its ``lineno`` is the line that
called pdpaired -- through the pandas accessor's one-call forms, a
``Comparison`` (score and prediction mode), ``report()``, the Dask accessor
and a Comparison over a Dask table. On the command line a warning is printed as one
``warning: Category: message`` line on stderr, with no file name at all.

Each case below calls pdpaired from a lambda written in this file; the
warning must point at that lambda's line, which names the method called.
Not every warning exists on every front end: the Dask accessor has no
prediction mode and no ``report()``, the Poisson-drop warning exists only on
the Dask path, and the CLI's report skips the exact binomial test on grouped
cases (so its ``IndependenceWarning`` cannot surface there).
"""

from __future__ import annotations

import linecache
import os
import subprocess
import sys
import textwrap
import warnings
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import pdpaired
from pdpaired import DegenerateDataWarning, IndependenceWarning
from pdpaired._lib.errors import find_stack_level
from pdpaired.cli.main import main

from ..conftest import long_table

PKG_DIR = os.path.dirname(pdpaired.__file__) + os.sep


AB = ("A", "B")


HIB = {"higher_is_better": True}


FAST = {"n_resamples": 200, "rng": 0}


REPORT = {"n_resamples": 200, "n_permutations": 200, "rng": 0}


@pytest.fixture(autouse=True)
def dask_in_this_thread() -> Any:
    """Dask computes in the calling thread here: a warning's capture must not race.

    ``warnings.catch_warnings`` is not thread-safe, and pandas enters it inside
    Dask's worker threads, so a capture in the main thread can lose a warning;
    the only two DID NOT WARN failures seen in full runs were Dask tests of
    this file, each passing alone. What is tested is where a warning points.
    """
    try:
        import dask
    except ImportError:
        yield
        return
    with dask.config.set(scheduler="synchronous"):
        yield


def to_dask(df: pd.DataFrame) -> Any:
    dd = pytest.importorskip("dask.dataframe")
    import pdpaired.dask  # noqa: F401  (registers ddf.paired)

    return dd.from_pandas(df, npartitions=2)


def cmp(df: pd.DataFrame) -> Any:
    return df.paired.compare(*AB, **HIB)


def dask_cmp(df: pd.DataFrame) -> Any:
    return to_dask(df).paired.compare(*AB, **HIB)


def assert_points_here(
    call: Callable[[], object], category: type[Warning], match: str, method: str
) -> None:
    """``call()`` warns ``category`` from this file's line that calls ``method``."""
    with pytest.warns(category, match=match) as rec:
        call()
    hits = [w for w in rec if issubclass(w.category, category) and match in str(w.message)]
    assert hits
    for w in hits:
        assert w.filename == __file__, f"points at {w.filename}:{w.lineno}"
        assert f"{method}(" in linecache.getline(__file__, w.lineno), w.lineno


# --------------------------------------------------------------------------- data
def lonely_stratum() -> pd.DataFrame:
    """Continuous scores; one stratum holds a single case."""
    rng = np.random.default_rng(0)
    n = 40
    stratum = np.where(np.arange(n) == 0, "lonely", "big")
    return long_table(rng.normal(size=n), rng.normal(size=n), stratum=stratum)


def constant_difference() -> pd.DataFrame:
    """Every paired difference is 0.25: every bootstrap replicate is identical."""
    return long_table(np.arange(20.0) + 0.25, np.arange(20.0))


def no_discordant() -> pd.DataFrame:
    """Binary scores, the two models pass and fail on the same cases."""
    a = np.tile([1.0, 0.0], 10)
    return long_table(a, a.copy())


def grouped_binary() -> pd.DataFrame:
    rng = np.random.default_rng(1)
    n = 40
    return long_table(rng.integers(0, 2, n).astype(float), rng.integers(0, 2, n).astype(float),
                      group=np.arange(n) // 4)  # fmt: skip


def poisson_drops() -> pd.DataFrame:
    """A stratum of 3 cases gets zero Poisson weight in e**-3 = 5% of replicates."""
    rng = np.random.default_rng(8)
    n = 300
    stratum = np.where(np.arange(n) < 3, "tiny", "big")
    return long_table(rng.normal(size=n), rng.normal(size=n), stratum=stratum)


def predictions(y: np.ndarray, pa: np.ndarray, pb: np.ndarray, **design: Any) -> pd.DataFrame:
    n = len(y)
    df = pd.DataFrame({"case_id": np.tile(np.arange(n), 2), "model": np.repeat(["A", "B"], n),
                       "y": np.tile(y, 2), "p": np.concatenate([pa, pb])})  # fmt: skip
    for col, values in design.items():
        df[col] = np.tile(values, 2)
    return df


def one_positive() -> pd.DataFrame:
    """Target-stratified resampling: the positive class is a single-case cell."""
    rng = np.random.default_rng(2)
    y = np.zeros(30, dtype=int)
    y[0] = 1
    return predictions(y, rng.uniform(size=30), rng.uniform(size=30))


def positives_in_one_group() -> pd.DataFrame:
    """6 groups, positives in one: AUROC is undefined on many group resamples."""
    rng = np.random.default_rng(0)
    g = np.repeat(np.arange(6), 10)
    return predictions((g == 0).astype(int), rng.uniform(size=60), rng.uniform(size=60),
                       group=g)  # fmt: skip


def _distinct_sum(y_true: np.ndarray, y_pred: np.ndarray, sample_weight: np.ndarray) -> float:
    return float(np.sum(y_pred))  # ignores the weights: the full sample is the largest value


#: A metric whose full-sample value lies above every bootstrap replicate (BCa clips z0).
DISTINCT_SUM = pdpaired.Metric("distinct_sum", _distinct_sum, higher_is_better=True)


def bca_outside() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    return predictions(np.tile([0, 1], 10), rng.uniform(0.5, 1.0, 20), np.zeros(20))


def pred(df: pd.DataFrame) -> Any:
    return df.paired(target="y", prediction="p")


# --------------------------------------------------------------------------- score mode
SINGLE = "single resampling unit"


IDENTICAL = "Every bootstrap replicate of the improvement is identical"


NO_DISCORDANT = "No discordant pairs"


# --------------------------------------------------------------------------- the CLI
SCORE = ["--long", "--a", "A", "--b", "B", "--score", "score", "--higher-is-better"]


PREDICTION = ["--long", "--a", "A", "--b", "B", "--target", "y", "--prediction-column", "p",
              "--metric", "auroc"]  # fmt: skip


FEW = ["--resamples", "200", "--permutations", "200", "--seed", "0"]


#: name -> (the long table, its other arguments, the warning expected)
CLI_CASES: dict[str, tuple[Callable[[], pd.DataFrame], list[str], str]] = {
    "single-unit stratum": (lonely_stratum, [*SCORE, "--stratum-column", "stratum"], SINGLE),
    "identical replicates": (constant_difference, SCORE, IDENTICAL),
    "no discordant pairs": (no_discordant, SCORE, NO_DISCORDANT),
    "prediction, undefined replicates": (
        positives_in_one_group,
        [*PREDICTION, "--group-column", "group"],
        "undefined on",
    ),
    "prediction, single-unit cell": (one_positive, PREDICTION, "hold a single unit"),
}


def cli_args(name: str, tmp: Path) -> tuple[list[str], str]:
    """Write the case's table to ``tmp``; return the ``compare`` arguments and the message."""
    table, args, expected = CLI_CASES[name]
    path = tmp / "table.csv"
    table().to_csv(path, index=False)
    return ["compare", str(path), *args, *FEW], expected


def assert_clean_warning(stderr: str, expected: str) -> None:
    """Each warning is one ``warning: Category: message`` line: no file, no source line."""
    lines = stderr.splitlines()
    assert lines, "no warning on stderr"
    for line in lines:
        assert line.startswith("warning: DegenerateDataWarning: "), line
        assert ".py" not in line
        assert PKG_DIR not in line
    assert any(expected in line for line in lines), stderr


# --------------------------------------------------------------------------- the helper
def simulated_pdpaired(source: str) -> dict[str, Any]:
    """Run ``source`` as if it were a module of the pdpaired package (its file is inside)."""
    namespace: dict[str, Any] = {"warnings": warnings, "find_stack_level": find_stack_level,
                                 "pd": pd}  # fmt: skip
    code = compile(textwrap.dedent(source), os.path.join(PKG_DIR, "_simulated.py"), "exec")
    exec(code, namespace)
    return namespace


CALLBACKS = simulated_pdpaired(
    """
    def inner(value):
        warnings.warn("from a callback", UserWarning, stacklevel=find_stack_level())
        return value

    def outer():
        return pd.Series([1]).map(inner)  # pdpaired -> pandas -> pdpaired
    """
)


@pytest.mark.parametrize(
    ("method", "call"),
    [
        ("bootstrap", lambda d: d.paired.bootstrap(*AB, **HIB, **FAST)),
        ("bootstrap", lambda d: cmp(d).bootstrap(**FAST)),
        ("report", lambda d: d.paired.report(*AB, **HIB, **REPORT)),
        ("report", lambda d: cmp(d).report(**REPORT)),
        ("bootstrap", lambda d: to_dask(d).paired.bootstrap(*AB, **HIB, collect=True, **FAST)),
        ("bootstrap", lambda d: dask_cmp(d).bootstrap(collect=True, **FAST)),
    ],
    ids=["accessor", "comparison", "accessor-report", "comparison-report", "dask",
         "dask-comparison"],
)  # fmt: skip
def test_single_unit_stratum(method: str, call: Callable[[pd.DataFrame], object]) -> None:
    df = lonely_stratum()
    assert_points_here(lambda: call(df), DegenerateDataWarning, SINGLE, method)


@pytest.mark.parametrize(
    ("method", "call"),
    [
        ("bootstrap", lambda d: d.paired.bootstrap(*AB, **HIB, **FAST)),
        ("bootstrap", lambda d: cmp(d).bootstrap(**FAST)),
        ("report", lambda d: d.paired.report(*AB, **HIB, **REPORT)),
        ("report", lambda d: cmp(d).report(**REPORT)),
        ("bootstrap", lambda d: to_dask(d).paired.bootstrap(*AB, **HIB, **FAST)),
        ("bootstrap", lambda d: dask_cmp(d).bootstrap(**FAST)),
        ("bootstrap", lambda d: to_dask(d).paired.bootstrap(*AB, **HIB, collect=True, **FAST)),
    ],
    ids=["accessor", "comparison", "accessor-report", "comparison-report", "dask-poisson",
         "dask-comparison-poisson", "dask-collect"],
)  # fmt: skip
def test_identical_replicates(method: str, call: Callable[[pd.DataFrame], object]) -> None:
    df = constant_difference()
    assert_points_here(lambda: call(df), DegenerateDataWarning, IDENTICAL, method)


@pytest.mark.parametrize(
    ("method", "call"),
    [
        ("exact_binomial", lambda d: d.paired.exact_binomial(*AB, **HIB)),
        ("exact_binomial", lambda d: cmp(d).exact_binomial()),
        ("report", lambda d: d.paired.report(*AB, **HIB, **REPORT)),
        ("exact_binomial", lambda d: to_dask(d).paired.exact_binomial(*AB, **HIB)),
        ("exact_binomial", lambda d: dask_cmp(d).exact_binomial()),
    ],
    ids=["accessor", "comparison", "accessor-report", "dask", "dask-comparison"],
)  # fmt: skip
def test_no_discordant_pairs(method: str, call: Callable[[pd.DataFrame], object]) -> None:
    df = no_discordant()
    with warnings.catch_warnings():
        # the report's bootstrap also warns (every difference is 0); not this test's subject
        warnings.filterwarnings("ignore", IDENTICAL, DegenerateDataWarning)
        assert_points_here(lambda: call(df), DegenerateDataWarning, NO_DISCORDANT, method)


@pytest.mark.parametrize(
    "call",
    [
        lambda d: d.paired.exact_binomial(*AB, **HIB),
        lambda d: cmp(d).exact_binomial(),
        lambda d: to_dask(d).paired.exact_binomial(*AB, **HIB),
        lambda d: dask_cmp(d).exact_binomial(),
    ],
    ids=["accessor", "comparison", "dask", "dask-comparison"],
)  # fmt: skip
def test_exact_binomial_on_groups(call: Callable[[pd.DataFrame], object]) -> None:
    df = grouped_binary()
    assert_points_here(lambda: call(df), IndependenceWarning, "independent pairs", "exact_binomial")


@pytest.mark.parametrize(
    "call",
    [
        lambda d: to_dask(d).paired.bootstrap(*AB, **HIB, n_resamples=2000, rng=1),
        lambda d: dask_cmp(d).bootstrap(n_resamples=2000, rng=1),
    ],
    ids=["dask", "dask-comparison"],
)  # fmt: skip
def test_poisson_replicates_dropped(call: Callable[[pd.DataFrame], object]) -> None:
    df = poisson_drops()
    assert_points_here(lambda: call(df), DegenerateDataWarning, "Poisson resamples", "bootstrap")


# --------------------------------------------------------------------------- prediction mode
@pytest.mark.parametrize(
    "call",
    [
        lambda d: pred(d).bootstrap(*AB, metric="auroc", **FAST),
        lambda d: pred(d).compare(*AB, metric="auroc").bootstrap(**FAST),
    ],
    ids=["accessor", "comparison"],
)  # fmt: skip
def test_prediction_single_unit_cell(call: Callable[[pd.DataFrame], object]) -> None:
    df = one_positive()
    assert_points_here(lambda: call(df), DegenerateDataWarning, "hold a single unit", "bootstrap")


@pytest.mark.parametrize(
    ("method", "call"),
    [
        ("bootstrap", lambda d: pred(d).bootstrap(*AB, metric="auroc", **FAST)),
        ("bootstrap", lambda d: pred(d).compare(*AB, metric="auroc").bootstrap(**FAST)),
        ("report", lambda d: pred(d).report(*AB, metric="auroc", **REPORT)),
        ("report", lambda d: pred(d).compare(*AB, metric="auroc").report(**REPORT)),
    ],
    ids=["accessor", "comparison", "accessor-report", "comparison-report"],
)  # fmt: skip
def test_prediction_undefined_replicates(
    method: str, call: Callable[[pd.DataFrame], object]
) -> None:
    df = positives_in_one_group()
    assert_points_here(lambda: call(df), DegenerateDataWarning, "undefined on", method)


@pytest.mark.parametrize(
    "call",
    [
        lambda d: pred(d).bootstrap(*AB, metric=DISTINCT_SUM, method="bca", **FAST),
        lambda d: pred(d).compare(*AB, metric=DISTINCT_SUM).bootstrap(method="bca", **FAST),
    ],
    ids=["accessor", "comparison"],
)  # fmt: skip
def test_bca_bias_correction_clipped(call: Callable[[pd.DataFrame], object]) -> None:
    df = bca_outside()
    assert_points_here(lambda: call(df), DegenerateDataWarning, "BCa bias correction", "bootstrap")


@pytest.mark.parametrize("name", list(CLI_CASES))
def test_cli_prints_warnings_cleanly(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args, expected = cli_args(name, tmp_path)
    assert main(args) == 0
    out, err = capsys.readouterr()
    assert "Improvement" in out
    if name == "no discordant pairs":  # the report's bootstrap warns too: every difference is 0
        err = "\n".join(line for line in err.splitlines() if IDENTICAL not in line)
    assert_clean_warning(err, expected)


def test_cli_restores_warning_display(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The CLI's own display of warnings ends with ``main()``."""
    before = warnings.showwarning
    args, _ = cli_args("single-unit stratum", tmp_path)
    assert main(args) == 0
    capsys.readouterr()
    assert warnings.showwarning is before


def test_cli_subprocess_prints_warnings_cleanly(tmp_path: Path) -> None:
    """``python -m pdpaired``: without the CLI's display the line would be ``<frozen runpy>``."""
    args, expected = cli_args("single-unit stratum", tmp_path)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONWARNINGS"}
    proc = subprocess.run(
        [sys.executable, "-m", "pdpaired", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=180,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert_clean_warning(proc.stderr, expected)


def test_pandas_frames_between_pdpaired_frames_are_skipped() -> None:
    outer = CALLBACKS["outer"]
    assert_points_here(lambda: outer(), UserWarning, "from a callback", "outer")


def test_pandas_frames_between_the_user_and_pdpaired_are_skipped() -> None:
    inner = CALLBACKS["inner"]
    assert_points_here(lambda: pd.Series([1]).map(inner), UserWarning, "from a callback", "map")


def test_a_worker_thread_points_just_outside_pdpaired() -> None:
    """No user frame in the thread: the frame that called pdpaired (the pool's), not pdpaired."""
    with pytest.warns(UserWarning, match="from a callback") as rec, ThreadPoolExecutor(1) as pool:
        pool.submit(CALLBACKS["inner"], 1).result()
    assert len(rec) == 1
    assert not rec[0].filename.startswith(PKG_DIR)
    assert rec[0].filename.endswith(os.path.join("concurrent", "futures", "thread.py"))


def test_a_direct_call_points_at_the_caller() -> None:
    def here() -> int:
        return find_stack_level()

    # find_stack_level's own frame is level 0, ``here`` (outside pdpaired) level 1
    assert here() == 1
