"""One ``Comparison`` over a backend protocol and a measure, and the
invariances any paired comparison must have (hypothesis properties)."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import pdpaired
import pdpaired.dask
from pdpaired import Comparison
from pdpaired.analysis.measures import Measure
from pdpaired.pairs.backend import PairsBackend

from ..conftest import long_table as long_table_invariances

dd = pytest.importorskip("dask.dataframe")


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


ANALYSIS = {
    # the comparison and the modules its analyses forward to
    "comparison": ["comparison.py", "bootstrap.py", "randomization.py", "exact_binomial.py",
                   "delong.py", "sequential.py", "slice_units.py"],
    # the measure protocol and score mode's measure (the corpus and two-stage
    # measures need their pairs in memory, and say so)
    "measures": ["measures/__init__.py", "measures/mean.py"],
}  # fmt: skip


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


@pytest.mark.parametrize("module", ["comparison", "measures"])
def test_the_analysis_never_names_a_concrete_backend(module: str) -> None:
    for path in ANALYSIS[module]:
        assert_names_no_backend(PACKAGE / "analysis" / path)


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


SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


finite = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False, width=64)


@st.composite
def paired_scores(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = draw(st.integers(3, 40))
    a = draw(arrays(np.float64, n, elements=finite))
    b = draw(arrays(np.float64, n, elements=finite))
    groups = draw(arrays(np.int64, n, elements=st.integers(0, 4)))
    return a, b, groups


def _boot(df: pd.DataFrame, a: str = "A", b: str = "B", **kw: object) -> pdpaired.BootstrapResult:
    kw.setdefault("higher_is_better", True)
    with warnings.catch_warnings():  # generated data may be degenerate (all diffs equal)
        warnings.simplefilter("ignore", pdpaired.DegenerateDataWarning)
        return df.paired.bootstrap(a, b, rng=3, n_resamples=64, **kw)


class TestInvariances:
    """Hypothesis property tests: invariances any paired comparison must have."""

    @SETTINGS
    @given(paired_scores(), st.randoms(use_true_random=False))
    def test_row_order_never_matters(self, data: tuple, rnd: object) -> None:
        a, b, g = data
        df = long_table_invariances(a, b, group=g)
        perm = np.array(rnd.sample(range(len(df)), len(df)))  # type: ignore[attr-defined]
        r1 = _boot(df)
        r2 = _boot(df.iloc[perm])
        np.testing.assert_array_equal(r1.bootstrap_distribution, r2.bootstrap_distribution)
        assert r1.confidence_interval == r2.confidence_interval

    @SETTINGS
    @given(paired_scores(), st.booleans())
    def test_swap_negates_and_direction_flips(self, data: tuple, hib: bool) -> None:
        a, b, _ = data
        df = long_table_invariances(a, b)
        ab = _boot(df, higher_is_better=hib)
        ba = _boot(df, "B", "A", higher_is_better=hib)
        assert ba.raw_delta == pytest.approx(-ab.raw_delta, abs=1e-9)
        assert ba.improvement == pytest.approx(-ab.improvement, abs=1e-9)
        assert ab.improvement == (ab.raw_delta if hib else -ab.raw_delta)
        np.testing.assert_allclose(ba.bootstrap_distribution, -ab.bootstrap_distribution, atol=1e-9)

    @SETTINGS
    @given(paired_scores(), st.sampled_from(["percentile", "basic", "bca"]))
    def test_interval_is_ordered_finite_and_raw_delta_is_literal(
        self, data: tuple, method: str
    ) -> None:
        a, b, g = data
        df = long_table_invariances(a, b, group=g)
        res = _boot(df, method=method)
        ci = res.confidence_interval
        assert np.isfinite(ci.low)
        assert np.isfinite(ci.high)
        assert ci.low <= ci.high + 1e-12
        assert res.raw_delta == res.metric_a - res.metric_b
        # mean over items: the point estimate equals the mean difference
        assert res.raw_delta == pytest.approx(float(np.mean(a) - np.mean(b)), abs=1e-9)
        assert res.n_valid == res.n_resamples == res.bootstrap_distribution.size

    @SETTINGS
    @given(paired_scores())
    def test_cluster_replicates_lie_in_range_of_group_means(self, data: tuple) -> None:
        a, b, g = data
        df = long_table_invariances(a, b, group=g)
        res = _boot(df, weighting="group")
        d = pd.Series(a - b).groupby(g).mean()
        tol = 1e-9 * max(1.0, float(np.abs(d).max()))
        # a replicate is a mean of drawn group means, Rao-Wu rescaled around the
        # estimate by sqrt(G / (G - 1)) (the small-sample correction of cluster
        # designs), so it lies in the rescaled range of the group means
        theta, n_groups = float(d.mean()), d.size
        c = np.sqrt(n_groups / (n_groups - 1)) if n_groups > 1 else 1.0
        assert res.bootstrap_distribution.min() >= theta + c * (d.min() - theta) - tol
        assert res.bootstrap_distribution.max() <= theta + c * (d.max() - theta) + tol

    @SETTINGS
    @given(
        st.integers(2, 30),
        st.lists(st.integers(0, 29), max_size=5),
        st.lists(st.integers(0, 29), max_size=5),
        st.sampled_from(["error", "complete-case", "as-failure"]),
    )
    def test_missing_policies_never_drop_silently(
        self, n: int, drop_a: list[int], drop_b: list[int], policy: str
    ) -> None:
        df = long_table_invariances(np.ones(n), np.zeros(n))
        drop_a = sorted({i for i in drop_a if i < n})
        drop_b = sorted({i for i in drop_b if i < n})
        keep = ~(((df["model"] == "A") & df["case_id"].isin(drop_a)) |
                 ((df["model"] == "B") & df["case_id"].isin(drop_b)))  # fmt: skip
        df = df[keep]
        lost = set(drop_a) | set(drop_b)
        both = set(drop_a) & set(drop_b)  # a case gone for both models is not in the table at all
        present = n - len(both)
        try:
            cmp = df.paired.compare("A", "B", higher_is_better=True, missing=policy)
        except pdpaired.PairingError as err:
            if err.rule == "at least two paired cases":
                return
            if err.rule == "models present":  # every row of one model dropped
                assert set(range(n)) <= set(drop_a) or set(range(n)) <= set(drop_b)
                return
            assert policy == "error"
            assert lost - both
            assert set(err.failure_cases["index"]) == lost - both
            return
        m = cmp.missing
        assert m.n_missing_a == len(set(drop_a) - both)
        assert m.n_missing_b == len(set(drop_b) - both)
        if policy == "complete-case":
            assert cmp.n_cases == present - m.n_dropped
            assert m.n_dropped == len(lost - both)
        elif policy == "as-failure":
            assert cmp.n_cases == present
            assert m.n_filled == len(lost - both)
        else:
            assert not (lost - both)


# ------------------------------------------------------------- one stratum is no stratification
@pytest.mark.parametrize("method", ["percentile", "basic", "bca", "studentized", "auto"])
@pytest.mark.parametrize("clustered", [False, True])
def test_one_stratum_gives_the_unstratified_result_bit_for_bit(
    method: str, clustered: bool
) -> None:
    """``stratum=`` on a column with one value changes no number (nor the method)."""
    rng = np.random.default_rng(1)
    n = 40
    b = rng.normal(size=n)
    a = b + rng.normal(0.2, 1.0, size=n)
    doc = np.repeat(np.arange(10), 4)
    long = pd.concat(
        pd.DataFrame({"case_id": range(n), "model": m, "score": s, "doc": doc})
        for m, s in (("A", a), ("B", b))
    )
    kw = {"group": "doc"} if clustered else {}
    flat = long.paired(**kw).bootstrap("A", "B", higher_is_better=True, method=method, rng=3,
                                       n_resamples=999)  # fmt: skip
    one = long.assign(task="only").paired(stratum="task", **kw).bootstrap(
        "A", "B", higher_is_better=True, method=method, rng=3, n_resamples=999)  # fmt: skip
    assert one.method == flat.method
    assert one.confidence_interval == flat.confidence_interval
    np.testing.assert_array_equal(one.bootstrap_distribution, flat.bootstrap_distribution)
    assert one.sampling == flat.sampling == ("cluster" if clustered else "iid")
    assert one.n_strata is None


def test_one_stratum_in_prediction_mode_and_for_the_tests() -> None:
    rng = np.random.default_rng(2)
    n = 60
    y = (rng.uniform(size=n) < 0.5).astype(float)
    long = pd.DataFrame({
        "case_id": np.tile(np.arange(n), 2), "model": np.repeat(["A", "B"], n),
        "y": np.tile(y, 2), "p": rng.uniform(size=2 * n), "task": "only",
    })  # fmt: skip
    flat = long.drop(columns="task").paired(target="y", prediction="p").compare(
        "A", "B", metric="brier")  # fmt: skip
    one = long.paired(target="y", prediction="p", stratum="task").compare("A", "B", metric="brier")
    bs_flat, bs_one = (c.bootstrap(n_resamples=499, rng=4) for c in (flat, one))
    assert bs_one.confidence_interval == bs_flat.confidence_interval
    np.testing.assert_array_equal(bs_one.bootstrap_distribution, bs_flat.bootstrap_distribution)
    rz_flat, rz_one = (c.randomization(n_permutations=299, rng=5) for c in (flat, one))
    assert rz_one.pvalue == rz_flat.pvalue
