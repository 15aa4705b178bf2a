"""Progress bars: shown past the delay, off on request, and never a different number.

The delay and the split threshold are set to zero here, so every analysis
shows its bar (forced with ``progress=True``, as stderr is not a terminal
under pytest) and splits its loops into many batches; the numbers must be
bit-identical to ``progress=False`` on both engines, in score and
prediction mode, for the bootstrap, the randomization test, slices and
several models. A short analysis in a fresh process never imports tqdm.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import pdpaired
from pdpaired._lib import progress
from pdpaired.cli.main import main

pytest.importorskip("tqdm")


@pytest.fixture
def at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(progress, "DELAY_SECONDS", 0.0)
    monkeypatch.setattr(progress, "SPLIT_SECONDS", 0.0)
    monkeypatch.delenv("PDPAIRED_PROGRESS", raising=False)


def scores(n: int = 3000, seed: int = 0, models: int = 2) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    base = rng.normal(size=n)
    names = ["A", "B", "C"][:models]
    return pd.concat(
        [pd.DataFrame({"case_id": np.arange(n), "model": m, "site": np.arange(n) % 3,
                       "score": base + 0.05 * k + rng.normal(0, 1, n),
                       "y": (base > 0).astype(float),
                       "p": 1 / (1 + np.exp(-(base + rng.normal(0, 1 + k, n))))})
         for k, m in enumerate(names)],
        ignore_index=True,
    )  # fmt: skip


def interval(res: pdpaired.BootstrapResult) -> list[float]:
    return [res.confidence_interval.low, res.confidence_interval.high]


RUNS = {
    "bootstrap": lambda df, **kw: df.paired.bootstrap(
        "A", "B", higher_is_better=True, rng=1, n_resamples=1500, **kw).bootstrap_distribution,
    "bca": lambda df, **kw: interval(df.paired.bootstrap(
        "A", "B", higher_is_better=True, rng=1, n_resamples=1500, method="bca", **kw)),
    "randomization": lambda df, **kw: df.paired.randomization(
        "A", "B", higher_is_better=True, rng=1, n_permutations=1500, **kw).null_distribution,
    "auroc": lambda df, **kw: df.paired(target="y", prediction="p").bootstrap(
        "A", "B", metric="auroc", rng=1, n_resamples=700, **kw).bootstrap_distribution,
    "auroc swaps": lambda df, **kw: df.paired(target="y", prediction="p").randomization(
        "A", "B", metric="auroc", rng=1, n_permutations=700, **kw).null_distribution,
    "slices": lambda df, **kw: df.paired.by_slice(
        "A", "B", columns="site", higher_is_better=True, rng=1, uncertainty=True, n_resamples=300,
        n_permutations=300, **kw).table[["ci_low", "ci_high", "pvalue"]].to_numpy(),
    "several": lambda df, **kw: df.paired.against(
        "B", higher_is_better=True, rng=1, n_resamples=700, **kw).to_frame()[
        ["low", "high"]].to_numpy(),
}  # fmt: skip


@pytest.mark.parametrize("engine", ["numpy", "numba"])
@pytest.mark.parametrize("what", list(RUNS))
def test_a_bar_never_changes_a_number(
    at_once: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    what: str, engine: str,
) -> None:  # fmt: skip
    if engine == "numba":
        pytest.importorskip("numba")
    monkeypatch.setenv("PDPAIRED_ACCELERATOR", engine)
    df = scores(models=3 if what == "several" else 2)
    quiet = RUNS[what](df, progress=False)
    assert capsys.readouterr().err == ""
    shown = RUNS[what](df, progress=True)
    err = capsys.readouterr().err
    assert "%" in err or "it/s" in err or "slice" in err, err  # tqdm drew on stderr
    assert np.array_equal(np.asarray(quiet, dtype=float), np.asarray(shown, dtype=float),
                          equal_nan=True)  # fmt: skip


def test_off_by_argument_and_by_environment(
    at_once: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    df = scores()
    RUNS["bootstrap"](df, progress=False)
    assert capsys.readouterr().err == ""
    monkeypatch.setenv("PDPAIRED_PROGRESS", "0")
    RUNS["bootstrap"](df, progress=True)  # the environment turns every bar off
    assert capsys.readouterr().err == ""
    monkeypatch.delenv("PDPAIRED_PROGRESS")
    RUNS["bootstrap"](df)  # automatic: stderr is not a terminal here, so tqdm stays silent
    assert capsys.readouterr().err == ""
    with pytest.raises(TypeError, match="progress"):
        RUNS["bootstrap"](df, progress="yes")


def test_inside_a_slice_scan_only_the_scan_shows_a_bar(
    at_once: None, capsys: pytest.CaptureFixture[str]
) -> None:
    RUNS["slices"](scores(), progress=True)
    err = capsys.readouterr().err
    assert "slices" in err
    assert "bootstrap" not in err
    assert "randomization" not in err


def test_the_command_line_flags(
    at_once: None, tmp_path: os.PathLike[str], capsys: pytest.CaptureFixture[str]
) -> None:
    path = f"{tmp_path}/long.csv"
    scores(500).to_csv(path, index=False)
    args = ["compare", path, "--long", "--a", "A", "--b", "B", "--score", "score",
            "--higher-is-better", "--resamples", "500", "--permutations", "500",
            "--seed", "0"]  # fmt: skip
    assert main([*args, "--no-progress"]) == 0
    out_quiet, err_quiet = capsys.readouterr()
    assert err_quiet == ""
    assert main([*args, "--progress"]) == 0
    out_shown, err_shown = capsys.readouterr()
    assert "bootstrap" in err_shown
    assert out_shown == out_quiet  # the same report


def test_a_short_analysis_never_imports_tqdm() -> None:
    code = (
        "import sys, numpy as np, pandas as pd, pdpaired\n"
        "df = pd.DataFrame({'case_id': np.tile(np.arange(500), 2), 'model': np.repeat(['A', 'B'],"
        " 500), 'score': np.random.default_rng(0).normal(size=1000)})\n"
        "df.paired.report('A', 'B', higher_is_better=True, rng=0)\n"
        "print('tqdm' in sys.modules)"
    )
    env = {k: v for k, v in os.environ.items() if k != "PDPAIRED_PROGRESS"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, check=True, timeout=300).stdout  # fmt: skip
    assert out.strip() == "False"


def test_progress_is_a_keyword_of_every_long_analysis() -> None:
    import inspect

    for fn in (pdpaired.Comparison.bootstrap, pdpaired.Comparison.randomization,
               pdpaired.Comparison.by_slice, pdpaired.Comparison.report,
               pd.DataFrame.paired.bootstrap, pd.DataFrame.paired.randomization,
               pd.DataFrame.paired.by_slice, pd.DataFrame.paired.report,
               pd.DataFrame.paired.against, pd.DataFrame.paired.all_pairs):  # fmt: skip
        param = inspect.signature(fn).parameters["progress"]
        assert param.kind is inspect.Parameter.KEYWORD_ONLY
        assert param.default is None
        assert "progress : bool, optional" in (fn.__doc__ or "")
