"""The benchmark suite still runs: every planned benchmark once, at its tiny size.

No timing is asserted (timings belong to ``benchmarks/targets.py``); this only keeps
the asv-style classes of ``benchmarks/benchmarks/`` from rotting as pdpaired changes.
"""

import importlib
import inspect
import itertools
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
MODULES = ["bootstrap", "floor", "randomization", "prediction", "slices"]


@pytest.fixture
def suite(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCH))
    monkeypatch.setenv("PDPAIRED_BENCH_MODE", "tiny")
    # The benchmarks set these themselves; monkeypatch restores them afterwards.
    monkeypatch.setenv("PDPAIRED_ACCELERATOR", "auto")
    monkeypatch.delenv("NUMBA_LOOP_VECTORIZE", raising=False)
    return importlib


def own_classes(module):
    return [
        c
        for _, c in inspect.getmembers(module, inspect.isclass)
        if c.__module__ == module.__name__ and hasattr(c, "tool")
    ]


@pytest.mark.parametrize("name", MODULES)
def test_every_benchmark_runs_once(suite, name):
    module = suite.import_module(f"benchmarks.{name}")
    ran = 0
    for cls in own_classes(module):
        raw = [m for m in dir(cls) if m.startswith("timeraw_")]
        if raw:  # asv runs it in a fresh interpreter; here the code just has to run
            for combo in itertools.product(*cls.params):
                stmt, setup = getattr(cls(), raw[0])(*combo)
                exec(compile(setup + "\n" + stmt, "<timeraw>", "exec"), {})
            continue
        (method,) = [m for m in dir(cls) if m.startswith("time_")]
        assert hasattr(cls, "peakmem" + method[len("time") :])
        for combo in itertools.product(*cls.params):
            bench = cls()
            try:
                bench.setup(*combo)
            except NotImplementedError:  # skipped by design: reason shown, or off plan
                assert bench.label({}, *combo)
                continue
            out = getattr(bench, method)(*combo)
            info = bench.summary(out)
            assert bench.label(info, *combo)
            assert bench.scale >= 1.0
            ran += 1
    assert ran > 0


def test_first_call_code_is_valid_python(suite):
    first_call = suite.import_module("benchmarks.first_call")
    for call in first_call.FirstCall.params[0]:
        stmt, setup = first_call.code(call)
        compile(setup, "<setup>", "exec")
        compile(stmt, "<stmt>", "exec")


def test_first_minute_script_runs_and_reports_every_ratio(monkeypatch, tmp_path, capsys):
    monkeypatch.syspath_prepend(str(BENCH))
    first_minute = importlib.import_module("first_minute")
    out = tmp_path / "first-minute.md"
    assert first_minute.main(["--repeats", "1", "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert capsys.readouterr().out == text + "\n"  # the report printed is the one written
    for ratio in ("import pdpaired / import pandas", "pdpaired compare (rmse) / import pandas",
                  "pdpaired compare (auroc) / import pandas",
                  "first bootstrap, default engine / numpy engine"):  # fmt: skip
        assert f"| {ratio} |" in text


def test_corpus_metrics_script_runs_and_reports_both_ratios(monkeypatch, tmp_path, capsys):
    pytest.importorskip("sacrebleu")
    monkeypatch.syspath_prepend(str(BENCH))
    corpus_metrics = importlib.import_module("corpus_metrics")
    out = tmp_path / "corpus.md"
    assert corpus_metrics.main(["--tiny", "--out", str(out)]) == 0
    text = out.read_text()
    assert "| bootstrap |" in text
    assert "| randomization |" in text
    assert text.count("x |") == 2


def test_polars_streaming_script_runs_tiny_and_every_path_agrees(monkeypatch, tmp_path, capsys):
    pytest.importorskip("polars")
    pytest.importorskip("dask.dataframe")
    monkeypatch.syspath_prepend(str(BENCH))
    polars_streaming = importlib.import_module("polars_streaming")
    out = tmp_path / "polars.md"
    assert polars_streaming.main(["--rows", "4000", "--resamples", "50", "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert capsys.readouterr().out.endswith(text + "\n")
    for path in ("polars", "dask", "pandas"):
        assert f"| 4e+03 | {path} |" in text
    assert text.count("yes (sha256 and interval equal)") == 2
