"""One pipeline: one ``Comparison`` class over a backend protocol and a measure.

Score mode, prediction mode and Dask tables all give an instance of exactly
:class:`pdpaired.Comparison`; the backends implement the whole
:class:`pdpaired.pairs.backend.PairsBackend` protocol and the measures the whole
:class:`pdpaired.analysis.measures.Measure` protocol, with the protocol's signatures;
the comparison and the measures never name a concrete backend.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pdpaired
from pdpaired import Comparison
from pdpaired.pairs.backend import PairsBackend
from pdpaired.analysis.measures import Measure

dd = pytest.importorskip("dask.dataframe")
import pdpaired.dask  # noqa: E402  (registers ddf.paired)

PACKAGE = Path(pdpaired.__file__).parent


def protocol_members(proto: type) -> list[str]:
    return [
        name
        for name in vars(proto)
        if not name.startswith("_") and (callable(vars(proto)[name]) or isinstance(
            vars(proto)[name], property))
    ]  # fmt: skip


def long_table(n: int = 120, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    return pd.DataFrame({
        "case_id": np.tile(np.arange(n), 2),
        "model": np.repeat(["A", "B"], n),
        "score": rng.integers(0, 2, 2 * n),
        "y": np.tile(y, 2),
        "p": np.concatenate([np.clip(0.4 * y + rng.uniform(0, 0.6, n), 0, 1),
                             rng.uniform(0, 1, n)]),
        "site": np.tile(np.arange(n) % 3, 2),
    })  # fmt: skip


def test_no_module_subclasses_comparison() -> None:
    for info in pkgutil.walk_packages([str(PACKAGE)], prefix="pdpaired."):
        if info.name == "pdpaired.__main__":
            continue
        module = importlib.import_module(info.name)
        for _, obj in inspect.getmembers(module, inspect.isclass):
            if obj is not Comparison:
                assert not issubclass(obj, Comparison), (info.name, obj)


def test_every_table_and_mode_gives_exactly_a_comparison() -> None:
    df = long_table()
    score = df.paired.compare("A", "B", higher_is_better=True)
    pred = df.paired(target="y", prediction="p").compare("A", "B", metric="auroc")
    dask = dd.from_pandas(df, npartitions=3).paired.compare("A", "B", higher_is_better=True)
    for cmp in (score, pred, dask):
        assert type(cmp) is Comparison
    assert (score.task, pred.task, dask.task) == ("score", "binary", "score")
    assert (score.class_labels, score.threshold) == (None, None)
    assert pred.class_labels == [0, 1]
    assert "npartitions=3" in repr(dask)
    assert "task='binary'" in repr(pred)


def instances() -> dict[str, tuple[object, type]]:
    df = long_table()
    score = df.paired.compare("A", "B", higher_is_better=True)
    pred = df.paired(target="y", prediction="p").compare("A", "B", metric="auroc")
    dask = dd.from_pandas(df, npartitions=2).paired.compare("A", "B", higher_is_better=True)
    return {
        "PandasPairs": (score._pairs, PairsBackend),
        "DaskPairs": (dask._pairs, PairsBackend),
        "MeanMeasure": (score._measure, Measure),
        "CorpusMeasure": (pred._measure, Measure),
    }


@pytest.mark.parametrize("impl", ["PandasPairs", "DaskPairs", "MeanMeasure", "CorpusMeasure"])
def test_implementations_have_every_protocol_member_with_its_parameters(impl: str) -> None:
    obj, proto = instances()[impl]
    assert type(obj).__name__ == impl
    for name in protocol_members(proto):
        assert hasattr(obj, name), (impl, name)
        want = vars(proto)[name]
        if isinstance(want, property):
            continue  # an attribute or a property: present is what matters
        got = getattr(type(obj), name)
        assert list(inspect.signature(got).parameters) == list(
            inspect.signature(want).parameters
        ), (impl, name)


ANALYSIS = {
    # the comparison and the modules its analyses forward to
    "comparison": ["comparison.py", "bootstrap.py", "randomization.py", "exact_binomial.py",
                   "delong.py", "sequential.py", "slice_units.py"],
    # the measure protocol and score mode's measure (the corpus and two-stage
    # measures need their pairs in memory, and say so)
    "measures": ["measures/__init__.py", "measures/mean.py"],
}  # fmt: skip


@pytest.mark.parametrize("module", ["comparison", "measures"])
def test_the_analysis_never_names_a_concrete_backend(module: str) -> None:
    for path in ANALYSIS[module]:
        assert_names_no_backend(PACKAGE / "analysis" / path)


def assert_names_no_backend(path: Path) -> None:
    tree = ast.parse(path.read_text())
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    names |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
    assert not ({"PandasPairs", "DaskPairs", "kind"} & (names | imported))
    assert not any(
        (n.module or "").startswith(("dask", "pdpaired.pairs.dask", "pdpaired.dask"))
        for n in ast.walk(tree)
        if isinstance(n, ast.ImportFrom)
    )


def test_per_case_in_memory_is_the_pairs_and_lazy_on_dask() -> None:
    df = long_table()
    cmp = df.paired.compare("A", "B", higher_is_better=True)
    pd.testing.assert_frame_equal(cmp.per_case(), cmp.pairs)
    dcmp = dd.from_pandas(df, npartitions=2).paired.compare("A", "B", higher_is_better=True)
    lazy = dcmp.per_case()
    assert isinstance(lazy, dd.DataFrame)
    got = lazy.compute().set_index("case").sort_index()
    np.testing.assert_array_equal(got["A"].to_numpy(), cmp.pairs["A"].to_numpy())
    with pytest.raises(AttributeError, match="per_case"):
        _ = dcmp.pairs


def test_a_corpus_measure_refuses_pairs_without_predictions() -> None:
    df = long_table()
    pred = df.paired(target="y", prediction="p").compare("A", "B", metric="auroc")
    score = df.paired.compare("A", "B", higher_is_better=True)
    with pytest.raises(TypeError, match="in memory"):
        pred._measure.point(score._pairs, "case", "item")


def test_prediction_slices_keep_the_measure() -> None:
    # a slice of a prediction-mode comparison is the corpus metric on the slice's cases
    df = long_table(n=300)
    acc = df.paired(target="y", prediction="p")
    sl = acc.compare("A", "B", metric="auroc").by_slice("site", min_size=10)
    for _, row in sl.table.iterrows():
        if row["column"] != "site":
            continue
        sub = df[df["site"] == row["value"]]
        ref = sub.paired(target="y", prediction="p").compare("A", "B", metric="auroc")
        assert row["metric_a"] == ref.metric_a
        assert row["metric_b"] == ref.metric_b
