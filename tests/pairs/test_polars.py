"""The polars front end (``pl.DataFrame.paired``, ``pl.LazyFrame.paired``) against pandas.

The claim (docs/where-results-live.md, docs/scale-out.md): for the same table
and seed, a polars table gives the pandas accessor's results **bit for bit**,
for every design -- every float with ``==``, every array with
``np.array_equal``, no tolerance -- and a broken pairing rule raises the
pandas path's error, with the same message and failure table. Each design is
run three ways: an eager ``pl.DataFrame`` (converted to pandas whole), a
``pl.LazyFrame`` built in memory and one scanned from a Parquet file (both
reduced in polars' streaming engine to the columns and the rows of the
compared models before pandas sees them). The pandas reference is the table
the polars one was made from.

The tables hold things a careless reduction would get wrong: rows of a third
model (whose junk scores must be ignored), non-contiguous ids, rows in
shuffled order, string labels, a missing output, and a slice column that only
the one-call form names.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import pdpaired
from pdpaired import PairedAccessor, PairingError

from ..conftest import assert_identical, long_table

pl = pytest.importorskip("polars")

from pdpaired.pairs.columns import Columns  # noqa: E402
from pdpaired.pairs.polars.reduce import model_table, to_pandas  # noqa: E402
from pdpaired.polars import PolarsPairedAccessor  # noqa: E402

KINDS = ("eager", "lazy", "parquet")


@pytest.fixture(params=KINDS)
def as_polars(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[pd.DataFrame], Any]:
    """The polars table of a pandas one: eager, lazy, or a lazy scan of a Parquet file."""

    def convert(df: pd.DataFrame) -> Any:
        eager = pl.from_pandas(df)
        if request.param == "eager":
            return eager
        if request.param == "lazy":
            return eager.lazy()
        path = tmp_path / f"t{len(list(tmp_path.iterdir()))}.parquet"
        eager.write_parquet(path, row_group_size=97)  # several row groups
        return pl.scan_parquet(path)

    return convert


def same(got: Any, ref: Any) -> None:
    """Two results are the same, field by field (nested results too), bit for bit."""
    assert type(got) is type(ref)
    if not dataclasses.is_dataclass(ref):
        assert got == ref
        return
    for f in dataclasses.fields(ref):
        x, y = getattr(got, f.name), getattr(ref, f.name)
        if isinstance(y, tuple) and y and isinstance(y[0], pdpaired.Comparison):
            # comparisons hold their pairs: the same cases and the same improvement
            assert [(c.a, c.b, c.n_cases, c.improvement) for c in x] == [
                (c.a, c.b, c.n_cases, c.improvement) for c in y]  # fmt: skip
        elif dataclasses.is_dataclass(y) and not isinstance(y, type):
            same(x, y)
        elif isinstance(y, list | tuple) and y and dataclasses.is_dataclass(y[0]):
            assert len(x) == len(y), f.name
            for xi, yi in zip(x, y, strict=True):
                same(xi, yi)
        elif isinstance(y, dict) and y and dataclasses.is_dataclass(next(iter(y.values()))):
            assert list(x) == list(y), f.name
            for key in y:
                same(x[key], y[key])
        else:
            assert_identical(_Box(x), _Box(y))


@dataclasses.dataclass
class _Box:
    """One value in a dataclass, so that ``assert_identical``'s rules compare it."""

    value: Any


# --------------------------------------------------------------------------- tables
def shuffled(df: pd.DataFrame, seed: int = 1) -> pd.DataFrame:
    return df.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def continuous_table(seed: int = 5, n: int = 240) -> pd.DataFrame:
    """Continuous normal-float scores, non-contiguous ids, a junk third model, one slice."""
    rng = np.random.default_rng(seed)
    b = rng.normal(size=n)
    a = b + rng.normal(0.15, 0.7, size=n)
    site = np.array(["north", "south", "east"])[rng.integers(0, 3, size=n)]
    ids = rng.permutation(10 * n)[:n] + 7
    df = long_table(a, b, ids=ids, site=site)
    junk = df[df["model"] == "A"].assign(model="C", score=np.inf)
    return shuffled(pd.concat([df, junk], ignore_index=True))


def design_table(seed: int = 3, n: int = 480) -> pd.DataFrame:
    """0/1 scores in groups of 4 nested in 3 strata, a slice column, one missing output of B."""
    rng = np.random.default_rng(seed)
    b = rng.binomial(1, 0.6, size=n).astype(np.float64)
    a = np.where(rng.random(n) < 0.7, b, rng.binomial(1, 0.75, size=n)).astype(np.float64)
    group = np.arange(n) // 4
    stratum = np.array(["s0", "s1", "s2"])[group % 3]
    site = np.array(["north", "south"])[rng.integers(0, 2, size=n)]
    df = long_table(a, b, ids=np.arange(n) * 3 + 1, group=group, stratum=stratum, site=site)
    drop = df.index[(df["model"] == "B") & (df["case_id"] == 4)]
    return shuffled(df.drop(index=drop))


def three_models(seed: int = 9, n: int = 200) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    base = rng.normal(size=n)
    parts = [
        pd.DataFrame({"case_id": np.arange(n), "model": m, "score": base + rng.normal(d, 1, n)})
        for m, d in (("m1", 0.0), ("m2", 0.2), ("m3", 0.35))
    ]
    return shuffled(pd.concat(parts, ignore_index=True))


def runs_table(seed: int = 4, n: int = 150) -> pd.DataFrame:
    """Several runs per (case, model): 1-4 runs, continuous scores, a missing run."""
    rng = np.random.default_rng(seed)
    rows = []
    for model, shift in (("A", 0.2), ("B", 0.0)):
        k = rng.integers(1, 5, size=n)
        case = np.repeat(np.arange(n), k)
        run = np.concatenate([np.arange(j) for j in k])
        score = rng.normal(shift, 1, size=case.size) + case % 7 * 0.1
        rows.append(pd.DataFrame({"case_id": case, "model": model, "run": run, "score": score}))
    df = pd.concat(rows, ignore_index=True)
    df.loc[5, "score"] = np.nan
    return shuffled(df)


def prediction_table(n: int = 200, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    z = rng.integers(0, 2, n)
    label = np.where(z == 1, "positive", "negative")
    rows = []
    for model, noise in (("cand", 1.0), ("base", 1.5)):
        p = 1 / (1 + np.exp(-(3 * (z - 0.5) + rng.normal(0, noise, n))))
        rows.append(pd.DataFrame({"case_id": np.arange(n), "model": model, "y": label, "p": p}))
    return shuffled(pd.concat(rows, ignore_index=True))


def samples_table(seed: int = 2, n: int = 120, k: int = 5) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.1, 0.9, n)
    rows = [
        pd.DataFrame({
            "case_id": np.repeat(np.arange(n), k), "model": model,
            "sample": np.tile(np.arange(k), n),
            "correct": (rng.random(n * k) < np.repeat(np.clip(p + lift, 0, 1), k)).astype(int),
        })
        for model, lift in (("new", 0.08), ("old", 0.0))
    ]  # fmt: skip
    return shuffled(pd.concat(rows, ignore_index=True))


def suite_table(seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for t, lift in enumerate([0.02, 0.05, 0.08, 0.03]):
        p = rng.uniform(0.3, 0.8, 150)
        rows.append(pd.DataFrame({
            "task": f"t{t}", "case_id": np.repeat(np.arange(150), 2),
            "model": ["new", "old"] * 150,
            "score": (rng.random(300) < np.repeat(p, 2) + [lift, 0] * 150) * 1.0}))  # fmt: skip
    return shuffled(pd.concat(rows, ignore_index=True))


# --------------------------------------------------------------------------- signatures
def test_the_namespace_is_registered_on_both_polars_tables() -> None:
    df = pl.DataFrame({"case_id": [1], "model": ["a"], "score": [1.0]})
    assert isinstance(df.paired, PolarsPairedAccessor)
    assert isinstance(df.lazy().paired, PolarsPairedAccessor)
    assert isinstance(df.paired(group=None), PolarsPairedAccessor)
    assert "PolarsPairedAccessor on a table with 3 columns" in repr(df.lazy().paired)


def test_same_methods_and_signatures_as_the_pandas_accessor() -> None:
    import inspect

    def public(cls: type) -> list[str]:
        return sorted(n for n, v in inspect.getmembers(cls, inspect.isfunction)
                      if not n.startswith("_") or n == "__call__")  # fmt: skip

    assert public(PolarsPairedAccessor) == public(PairedAccessor)
    for name in public(PairedAccessor):
        want = getattr(PairedAccessor, name)
        got = getattr(PolarsPairedAccessor, name)
        assert inspect.signature(got) == inspect.signature(want), name
        assert got.__doc__ == want.__doc__, name


# --------------------------------------------------------------------------- same numbers
def test_iid_continuous_scores(as_polars: Callable[[pd.DataFrame], Any]) -> None:
    df = continuous_table()
    t = as_polars(df)
    kw: dict[str, Any] = {"higher_is_better": True, "rng": 3, "n_resamples": 1500}
    same(t.paired.bootstrap("A", "B", **kw), df.paired.bootstrap("A", "B", **kw))
    for method in ("percentile", "bca", "studentized"):
        same(t.paired.bootstrap("A", "B", method=method, **kw),
             df.paired.bootstrap("A", "B", method=method, **kw))  # fmt: skip
    same(
        t.paired.randomization("A", "B", higher_is_better=True, rng=3, n_permutations=1500),
        df.paired.randomization("A", "B", higher_is_better=True, rng=3, n_permutations=1500),
    )
    cmp = t.paired.compare("A", "B", higher_is_better=True)
    ref = df.paired.compare("A", "B", higher_is_better=True)
    assert cmp.n_cases == ref.n_cases == 240
    assert cmp.improvement == ref.improvement


def test_binary_scores_with_clusters_strata_and_a_missing_output(
    as_polars: Callable[[pd.DataFrame], Any],
) -> None:
    df = design_table()
    t = as_polars(df)
    kw: dict[str, Any] = {"higher_is_better": True, "missing": "as-failure", "rng": 4,
                          "n_resamples": 1200}  # fmt: skip
    for unit in (None, "group"):
        same(t.paired.bootstrap("A", "B", unit=unit, **kw),
             df.paired.bootstrap("A", "B", unit=unit, **kw))  # fmt: skip
    same(t.paired(group=None).bootstrap("A", "B", **kw),
         df.paired(group=None).bootstrap("A", "B", **kw))  # fmt: skip
    same(t.paired(group=None).bootstrap("A", "B", stratified=False, **kw),
         df.paired(group=None).bootstrap("A", "B", stratified=False, **kw))  # fmt: skip
    rk: dict[str, Any] = {"higher_is_better": True, "missing": "complete-case", "rng": 4,
                          "n_permutations": 1200}  # fmt: skip
    same(t.paired.randomization("A", "B", **rk), df.paired.randomization("A", "B", **rk))
    plain = {"higher_is_better": True, "missing": "complete-case"}
    same(t.paired(group=None, stratum=None).exact_binomial("A", "B", **plain),
         df.paired(group=None, stratum=None).exact_binomial("A", "B", **plain))  # fmt: skip
    same(t.paired.compare("A", "B", **plain).missing, df.paired.compare("A", "B", **plain).missing)


def test_prediction_mode(as_polars: Callable[[pd.DataFrame], Any]) -> None:
    df = prediction_table()
    t = as_polars(df)
    labels = ["negative", "positive"]
    cfg: dict[str, Any] = {"target": "y", "prediction": "p", "score": None}
    for metric, kw in (("auroc", {}), ("accuracy", {"threshold": 0.4})):
        same(t.paired(**cfg).bootstrap("cand", "base", metric=metric, class_labels=labels,
                                       rng=1, n_resamples=800, **kw),
             df.paired(**cfg).bootstrap("cand", "base", metric=metric, class_labels=labels,
                                        rng=1, n_resamples=800, **kw))  # fmt: skip
    same(t.paired(**cfg).delong("cand", "base", class_labels=labels),
         df.paired(**cfg).delong("cand", "base", class_labels=labels))  # fmt: skip


def test_slices_named_by_the_one_call_form(as_polars: Callable[[pd.DataFrame], Any]) -> None:
    df = design_table()
    t = as_polars(df)
    kw: dict[str, Any] = {"higher_is_better": True, "missing": "as-failure", "rng": 2,
                          "min_size": 10, "uncertainty": True, "n_resamples": 400,
                          "n_permutations": 400}  # fmt: skip
    same(t.paired.by_slice("A", "B", columns="site", **kw),
         df.paired.by_slice("A", "B", columns="site", **kw))  # fmt: skip
    same(t.paired(group=None).by_slice("A", "B", columns=["site", "stratum"], **kw),
         df.paired(group=None).by_slice("A", "B", columns=["site", "stratum"], **kw))  # fmt: skip


def test_a_lazy_comparison_holds_only_the_configured_columns() -> None:
    df = design_table()
    kw: dict[str, Any] = {"missing": "complete-case", "higher_is_better": True}
    cmp = pl.from_pandas(df).lazy().paired.compare("A", "B", **kw)
    with pytest.raises(PairingError, match="slice column 'site' not found"):
        cmp.by_slice("site")
    eager = pl.from_pandas(df).paired.compare("A", "B", **kw)
    same(eager.by_slice("site", rng=0), df.paired.compare("A", "B", **kw).by_slice("site", rng=0))


def test_several_models(as_polars: Callable[[pd.DataFrame], Any]) -> None:
    df = three_models()
    t = as_polars(df)
    kw: dict[str, Any] = {"higher_is_better": True, "rng": 5, "n_resamples": 600}
    same(t.paired.against("m1", **kw), df.paired.against("m1", **kw))
    same(t.paired.against("m1", ["m3"], **kw), df.paired.against("m1", ["m3"], **kw))
    same(t.paired.all_pairs(**kw), df.paired.all_pairs(**kw))


def test_repeated_runs(as_polars: Callable[[pd.DataFrame], Any]) -> None:
    df = runs_table()
    t = as_polars(df)
    kw: dict[str, Any] = {"higher_is_better": True, "missing": "complete-case", "rng": 6,
                          "n_resamples": 800}  # fmt: skip
    same(t.paired(repeat="sample").bootstrap("A", "B", **kw),
         df.paired(repeat="sample").bootstrap("A", "B", **kw))  # fmt: skip
    got = t.paired(repeat="sample").compare("A", "B", higher_is_better=True, missing="as-failure",
                                            fill_value=0.0)  # fmt: skip
    ref = df.paired(repeat="sample").compare("A", "B", higher_is_better=True, missing="as-failure",
                                             fill_value=0.0)  # fmt: skip
    same(got.runs, ref.runs)
    same(got.variance_components(), ref.variance_components())


def test_pass_at_k(as_polars: Callable[[pd.DataFrame], Any]) -> None:
    df = samples_table()
    t = as_polars(df)
    kw: dict[str, Any] = {"k": 3, "rng": 7, "n_resamples": 700}
    same(t.paired.pass_at_k("new", "old", **kw), df.paired.pass_at_k("new", "old", **kw))
    same(t.paired.pass_hat_k("new", "old", **kw), df.paired.pass_hat_k("new", "old", **kw))


def test_suite(as_polars: Callable[[pd.DataFrame], Any]) -> None:
    df = suite_table()
    t = as_polars(df)
    kw: dict[str, Any] = {"higher_is_better": True, "rng": 0, "n_resamples": 500}
    same(t.paired(task="task").suite("new", "old", **kw),
         df.paired(task="task").suite("new", "old", **kw))  # fmt: skip
    same(t.paired.suite("new", "old", task="task", **kw),
         df.paired.suite("new", "old", task="task", **kw))  # fmt: skip


def test_report_and_artifacts(as_polars: Callable[[pd.DataFrame], Any]) -> None:
    df = design_table()
    t = as_polars(df)
    kw: dict[str, Any] = {
        "higher_is_better": True, "missing": "as-failure", "n_resamples": 300,
        "n_permutations": 300, "rng": 4, "slices": "site", "min_slice_size": 10,
    }  # fmt: skip
    got, ref = t.paired.report("A", "B", **kw), df.paired.report("A", "B", **kw)
    for part in ("bootstrap", "randomization", "slices"):
        same(getattr(got, part), getattr(ref, part))
    assert got.inputs == ref.inputs
    assert got.id_digest == ref.id_digest
    for kind in ("local", "shareable"):
        a, b = got.to_artifact(kind), ref.to_artifact(kind)
        a.pop("software"), b.pop("software")
        assert a == b


def test_sequential_order_sensitivity_and_a_statistics_metric(
    as_polars: Callable[[pd.DataFrame], Any],
) -> None:
    df = design_table()
    df["when"] = df["case_id"] % 97
    t = as_polars(df)
    kw: dict[str, Any] = {"higher_is_better": True, "missing": "complete-case", "bounds": (-1, 1)}
    same(t.paired(group=None).sequential("A", "B", order="when", **kw),
         df.paired(group=None).sequential("A", "B", order="when", **kw))  # fmt: skip
    sk: dict[str, Any] = {"higher_is_better": True, "rng": 1, "missing": "complete-case"}
    same(t.paired(group=None).sensitivity("A", "B", **sk),
         df.paired(group=None).sensitivity("A", "B", **sk))  # fmt: skip
    cont = continuous_table().assign(den=lambda d: 1.0 + d["case_id"] % 3)
    cont = cont[cont["model"] != "C"].assign(num=lambda d: d["score"] + 3.0)
    ratio = pdpaired.metrics.ratio("num", "den", higher_is_better=True)
    same(as_polars(cont).paired.bootstrap("A", "B", metric=ratio, rng=0, n_resamples=300),
         cont.paired.bootstrap("A", "B", metric=ratio, rng=0, n_resamples=300))  # fmt: skip


# --------------------------------------------------------------------------- pairing errors
def _raises(fn: Callable[[], Any]) -> BaseException:
    with pytest.raises(Exception) as info:  # noqa: PT011  (the type is compared below)
        fn()
    return info.value


def assert_same_error(t: Any, df: pd.DataFrame, call: Callable[[Any], Any]) -> None:
    got, want = _raises(lambda: call(t)), _raises(lambda: call(df))
    assert type(got) is type(want)
    assert str(got) == str(want)
    if isinstance(want, PairingError):
        assert got.rule == want.rule
        if want.failure_cases is None:
            assert got.failure_cases is None
        else:
            pd.testing.assert_frame_equal(got.failure_cases, want.failure_cases)


def _dup(df: pd.DataFrame) -> pd.DataFrame:
    return pd.concat([df, df.iloc[[3, 10]]], ignore_index=True)


def _nan_id(df: pd.DataFrame, model: str) -> pd.DataFrame:
    out = df.copy()
    out["case_id"] = out["case_id"].astype(np.float64)
    out.loc[out.index[out["model"] == model][:2], "case_id"] = np.nan
    return out


def _nan_model(df: pd.DataFrame) -> pd.DataFrame:
    out = df.copy()
    out.loc[[4, 8], "model"] = None
    return out


def _varying_group(df: pd.DataFrame) -> pd.DataFrame:
    out = df.copy()
    out.loc[out.index[out["model"] == "A"][:3], "group"] = 10_000
    return out


CALL = {"higher_is_better": True}
BROKEN: dict[str, tuple[Callable[[], pd.DataFrame], Callable[[Any], Any]]] = {
    "duplicate rows": (lambda: _dup(design_table()),
                       lambda t: t.paired.compare("A", "B", missing="complete-case", **CALL)),
    "unknown model": (continuous_table, lambda t: t.paired.compare("A", "Z", **CALL)),
    "unknown model of another type": (continuous_table, lambda t: t.paired.compare("A", 3, **CALL)),
    "missing output": (design_table, lambda t: t.paired.compare("A", "B", **CALL)),
    "missing id of a compared model": (lambda: _nan_id(continuous_table(), "A"),
                                       lambda t: t.paired.compare("A", "B", **CALL)),
    "missing id of another model": (lambda: _nan_id(continuous_table(), "C"),
                                    lambda t: t.paired.compare("A", "B", **CALL)),
    "missing model": (lambda: _nan_model(continuous_table()),
                      lambda t: t.paired.compare("A", "B", **CALL)),
    "group varies within a case": (lambda: _varying_group(design_table()),
                                   lambda t: t.paired.compare("A", "B", missing="complete-case",
                                                              **CALL)),
    "missing column": (continuous_table,
                       lambda t: t.paired(score="acc").compare("A", "B", **CALL)),
    "missing slice column": (continuous_table,
                             lambda t: t.paired.by_slice("A", "B", columns="lang", **CALL)),
    "missing task column": (continuous_table,
                            lambda t: t.paired.suite("A", "B", task="topic", **CALL)),
    "missing run column": (continuous_table,
                           lambda t: t.paired(repeat="sample").compare("A", "B", **CALL)),
    "duplicate run": (lambda: pd.concat([runs_table(), runs_table().iloc[[0]]]),
                      lambda t: t.paired(repeat="sample").compare("A", "B", missing="complete-case",
                                                                  **CALL)),
    "infinite score": (continuous_table, lambda t: t.paired.compare("A", "C", **CALL)),
    "unknown model in against": (three_models,
                                 lambda t: t.paired.against("m0", higher_is_better=True)),
}  # fmt: skip


@pytest.mark.parametrize("rule", list(BROKEN))
def test_a_broken_rule_raises_the_pandas_error(
    rule: str, as_polars: Callable[[pd.DataFrame], Any]
) -> None:
    make, call = BROKEN[rule]
    df = make()
    assert_same_error(as_polars(df), df, call)


# --------------------------------------------------------------------------- the reduction
def test_a_lazy_table_reaches_pandas_reduced() -> None:
    df = continuous_table().assign(note="unused")
    lf = pl.from_pandas(df).lazy()
    cols = Columns(group=None, stratum=None)
    got = to_pandas(lf, cols, models=["A", "B"])
    assert list(got.columns) == ["case_id", "model", "score"]  # no site, no note
    assert set(got["model"]) == {"A", "B"}
    want = df.loc[df["model"] != "C", ["case_id", "model", "score"]]
    pd.testing.assert_frame_equal(got, want.reset_index(drop=True))
    # a row that a rule names (no case id) is labelled by its position in the table
    nan_id = df.assign(case_id=df["case_id"].astype(float).mask(df.index == 5))
    got = to_pandas(pl.from_pandas(nan_id).lazy(), cols, models=["A", "B"])
    pd.testing.assert_frame_equal(  # the A and B rows and row 5, under their positions
        got, nan_id.loc[(nan_id["model"] != "C") | (nan_id.index == 5), list(got.columns)]
    )
    assert list(to_pandas(lf, cols, extra=["site", "site"]).columns) == [
        "case_id", "model", "score", "site"]  # fmt: skip
    eager = to_pandas(pl.from_pandas(df), cols, models=["A", "B"])
    pd.testing.assert_frame_equal(eager, df)  # an eager table: whole
    no_score = to_pandas(lf.drop("score"), cols, models=["A", "B"])
    assert no_score.empty
    assert list(no_score.columns) == ["case_id", "model", "site", "note"]


def test_the_row_position_column_never_hides_a_column() -> None:
    lf = pl.LazyFrame({"__pdpaired_row__": [9, 8, 7], "case_id": [1, None, 1],
                       "model": ["a", "c", "b"], "score": [1.0, 0.0, 0.5]})  # fmt: skip
    got = to_pandas(lf, Columns(group=None, stratum=None),
                    models=["a", "b"], extra=["__pdpaired_row__"])  # fmt: skip
    assert got["__pdpaired_row__"].tolist() == [9, 8, 7]
    assert got.index.tolist() == [0, 1, 2]


def test_model_labels_in_order_of_appearance_then_sorted() -> None:
    lf = pl.LazyFrame({"model": ["m2", None, "m1", "m2"]})
    got = model_table(lf, "model")["model"]
    assert got[[0, 2]].tolist() == ["m2", "m1"]
    assert got.isna().tolist() == [False, True, False]
    assert PolarsPairedAccessor(lf)._model_labels(Columns()) == ["m1", "m2"]
    assert model_table(lf, "system").empty


# --------------------------------------------------------------------------- import
def _run(code: str) -> subprocess.CompletedProcess[str]:
    root = Path(pdpaired.__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, cwd=root, check=False, timeout=120)  # fmt: skip


def test_import_pdpaired_works_without_polars_and_never_imports_it() -> None:
    blocked = _run(
        "import sys\n"
        "sys.modules['polars'] = None  # as if polars were not installed\n"
        "import pandas as pd, pdpaired\n"
        "df = pd.DataFrame({'case_id': [1, 1, 2, 2], 'model': ['a', 'b'] * 2,"
        " 'score': [1.0, 0.0, 1.0, 1.0]})\n"
        "print(df.paired.compare('a', 'b', higher_is_better=True).n_cases,"
        " sys.modules['polars'], 'pdpaired.polars' in sys.modules)\n"
    )
    assert blocked.returncode == 0, blocked.stderr
    assert blocked.stdout.split() == ["2", "None", "False"]
    installed = _run(
        "import sys, pdpaired\nprint('polars' in sys.modules, 'pdpaired.polars' in sys.modules)\n"
    )
    assert installed.returncode == 0, installed.stderr
    assert installed.stdout.split() == ["False", "False"]


@pytest.mark.parametrize(
    "order",
    # the last two import polars from inside pdpaired: the namespace is registered once
    ["pdpaired, polars", "polars, pdpaired", "pdpaired.polars", "pdpaired.pairs.polars.reduce"],
)
def test_polars_is_registered_whichever_is_imported_first(order: str) -> None:
    out = _run(
        f"import {order}\n"
        "import polars as pl\n"
        "df = pl.DataFrame({'case_id': [1, 1], 'model': ['a', 'b'], 'score': [1.0, 0.0]})\n"
        "print(type(df.paired).__name__, type(df.lazy().paired).__name__,"
        " type(pl.__spec__.loader).__module__)\n"
    )
    assert out.returncode == 0, out.stderr
    name, lazy, loader = out.stdout.split()
    assert name == lazy == "PolarsPairedAccessor"
    assert not loader.startswith("pdpaired")  # polars keeps its own loader


# --------------------------------------------------------------------------- per-case reduction
# A lazy table in score mode's common case (one score column, two models, no runs, no
# slices) is reduced to one row per case in polars; the long rows never reach pandas.
# Anything a rule might refuse goes the pandas way, for its error.
@pytest.fixture(params=("lazy", "parquet"))
def as_lazy(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[pd.DataFrame], Any]:
    def convert(df: pd.DataFrame) -> Any:
        if request.param == "lazy":
            return pl.from_pandas(df).lazy()
        path = tmp_path / f"t{len(list(tmp_path.iterdir()))}.parquet"
        pl.from_pandas(df).write_parquet(path, row_group_size=97)
        return pl.scan_parquet(path)

    return convert


@pytest.fixture
def long_reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the long tables a lazy table sends to pandas (the prune path, or a source read)."""
    import pdpaired.pairs.polars.reduce as reduce

    calls: list[int] = []
    real = reduce.to_pandas

    def counted(*args: Any, **kwargs: Any) -> pd.DataFrame:
        out = real(*args, **kwargs)
        calls.append(len(out))
        return out

    monkeypatch.setattr(reduce, "to_pandas", counted)
    return calls


def same_pairs(got: Any, ref: Any) -> None:
    """Two comparisons hold the same pairs: table, missing summary, 0/1 flag, grid."""
    x, y = got._pairs.data, ref._pairs.data
    pd.testing.assert_frame_equal(x.frame, y.frame, check_exact=True)
    pd.testing.assert_index_equal(x.frame.index, y.frame.index, exact=True)
    assert (x.missing, x.binary, x.scale_exp, x.a, x.b) == (y.missing, y.binary, y.scale_exp,
                                                            y.a, y.b)  # fmt: skip
    assert x.columns == y.columns


def _absent(df: pd.DataFrame, model: str = "B", n: int = 3) -> pd.DataFrame:
    """Drop ``n`` rows of ``model``: missing outputs as absent rows."""
    return df.drop(index=df.index[df["model"] == model][:n]).reset_index(drop=True)


def _nan_score(df: pd.DataFrame, model: str = "A", n: int = 2) -> pd.DataFrame:
    """Blank ``n`` scores of ``model``: missing outputs as NaN scores."""
    out = df.copy()
    out.loc[out.index[out["model"] == model][:n], "score"] = np.nan
    return out


def _two(df: pd.DataFrame) -> pd.DataFrame:
    return df[df["model"].isin(["A", "B"])].reset_index(drop=True)


REDUCED: dict[str, tuple[Callable[[], pd.DataFrame], dict[str, Any], dict[str, Any]]] = {
    # name: (table, configuration, compare arguments)
    "iid continuous": (continuous_table, {}, {}),
    "0/1, clusters and strata": (design_table, {}, {"missing": "as-failure"}),
    "0/1, strata only, complete-case": (design_table, {"group": None},
                                        {"missing": "complete-case"}),
    "absent rows, complete-case": (lambda: _absent(continuous_table()), {},
                                   {"missing": "complete-case"}),
    "absent rows, as-failure with a fill": (lambda: _absent(continuous_table()), {},
                                            {"missing": "as-failure", "fill_value": -1.5}),
    "NaN scores, complete-case": (lambda: _nan_score(continuous_table()), {},
                                  {"missing": "complete-case"}),
    "NaN scores and absent rows, as-failure 0/1": (
        lambda: _nan_score(_absent(design_table(), "A", 5), "B", 4), {}, {"missing": "as-failure"}),
    "NaN scores, as-failure, lower is better": (
        lambda: _nan_score(design_table()), {},
        {"missing": "as-failure", "higher_is_better": False}),
    "int scores": (lambda: design_table().assign(score=lambda d: d["score"].astype(np.int64) * 3),
                   {}, {"missing": "complete-case"}),
    "string case ids": (lambda: continuous_table().assign(case_id=lambda d: "c" + d["case_id"]
                                                          .astype(str)), {}, {}),
    "int32 case ids, sparse": (lambda: continuous_table().assign(
        case_id=lambda d: (d["case_id"] * 1_000_003).astype(np.int32)), {}, {}),
    "categorical model column": (lambda: _two(continuous_table()).assign(
        model=lambda d: d["model"].astype("category")), {}, {}),
    "renamed columns": (lambda: design_table().rename(columns={
        "case_id": "item", "model": "system", "score": "acc", "group": "doc"}),
        {"case": "item", "model": "system", "score": "acc", "group": "doc"},
        {"missing": "as-failure"}),
}  # fmt: skip


@pytest.mark.parametrize("design", list(REDUCED))
def test_the_common_case_is_reduced_in_polars_with_the_pandas_results(
    design: str, as_lazy: Callable[[pd.DataFrame], Any], long_reads: list[int]
) -> None:
    make, cfg, kw = REDUCED[design]
    df = make()
    t = as_lazy(df)
    kw = {"higher_is_better": True, **kw}
    got, ref = t.paired(**cfg).compare("A", "B", **kw), df.paired(**cfg).compare("A", "B", **kw)
    same_pairs(got, ref)
    rk: dict[str, Any] = {**kw, "rng": 3, "n_resamples": 300, "n_permutations": 300}
    same(t.paired(**cfg).bootstrap("A", "B", n_resamples=300, rng=3, **kw),
         df.paired(**cfg).bootstrap("A", "B", n_resamples=300, rng=3, **kw))  # fmt: skip
    assert long_reads == []  # nothing so far sent the long rows to pandas
    rep, want = t.paired(**cfg).report("A", "B", **rk), df.paired(**cfg).report("A", "B", **rk)
    for part in ("bootstrap", "randomization", "exact_binomial", "sensitivity"):
        same(getattr(rep, part), getattr(want, part))
    assert (rep.inputs, rep.id_digest) == (want.inputs, want.id_digest)
    for kind in ("local", "shareable"):
        x, y = rep.to_artifact(kind), want.to_artifact(kind)
        x.pop("software"), y.pop("software")
        assert x == y
    # a report with missing outcomes bounds them (sensitivity): the long table is read then
    assert len(long_reads) <= int(bool(want.sensitivity))


def test_a_reduced_comparison_reads_the_long_table_for_slices_and_sensitivity(
    long_reads: list[int],
) -> None:
    df = _nan_score(design_table())
    kw: dict[str, Any] = {"higher_is_better": True, "missing": "complete-case"}
    got = pl.from_pandas(df).lazy().paired(group=None).compare("A", "B", **kw)
    ref = df.paired(group=None).compare("A", "B", **kw)
    assert long_reads == []
    same(got.by_slice("stratum", rng=0), ref.by_slice("stratum", rng=0))
    same(got.sensitivity(rng=1), ref.sensitivity(rng=1))
    same(got.sequential(order="case_id", bounds=(-1, 1)), ref.sequential(order="case_id",
                                                                     bounds=(-1, 1)))  # fmt: skip
    assert len(long_reads) == 1  # read once, when first needed
    with pytest.raises(PairingError, match="slice column 'site' not found"):
        got.by_slice("site")


FALLBACK: dict[str, tuple[Callable[[], pd.DataFrame], Callable[[Any], Any]]] = {
    **BROKEN,
    "absent row under missing='error'": (lambda: _absent(continuous_table()),
                                         lambda t: t.paired.compare("A", "B", **CALL)),
    "NaN score under missing='error'": (lambda: _nan_score(continuous_table()),
                                        lambda t: t.paired.compare("A", "B", **CALL)),
    "no fill value for continuous scores": (
        lambda: _nan_score(continuous_table()),
        lambda t: t.paired.compare("A", "B", missing="as-failure", **CALL)),
    "an infinite fill value": (lambda: _nan_score(design_table()),
                               lambda t: t.paired.compare("A", "B", missing="as-failure",
                                                          fill_value=np.inf, **CALL)),
    "one case": (lambda: continuous_table(n=1),
                 lambda t: t.paired.compare("A", "B", **CALL)),
    "infinite score of A": (lambda: continuous_table().assign(score=lambda d: d["score"].mask(
        d.index == d.index[d["model"] == "A"][0], -np.inf)),
        lambda t: t.paired.compare("A", "B", **CALL)),
    "non-numeric score": (lambda: continuous_table().assign(score=lambda d: d["score"].astype(str)),
                          lambda t: t.paired.compare("A", "B", **CALL)),
    "missing stratum": (lambda: design_table().assign(stratum=lambda d: d["stratum"].mask(
        d.index == 7)), lambda t: t.paired.compare("A", "B", missing="as-failure", **CALL)),
    "stratum varies within a case": (lambda: design_table().assign(
        stratum=lambda d: d["stratum"].mask(d.index == 7, "zz")),
        lambda t: t.paired.compare("A", "B", missing="as-failure", **CALL)),
    "no direction": (continuous_table, lambda t: t.paired.compare("A", "B")),
    "a bad policy": (continuous_table, lambda t: t.paired.compare("A", "B", missing="x", **CALL)),
    "a model named like the group column": (
        lambda: design_table().assign(model=lambda d: d["model"].replace({"A": "group"})),
        lambda t: t.paired.compare("group", "B", missing="as-failure", **CALL)),
    "model label of another type": (lambda: _two(continuous_table()),
                                    lambda t: t.paired.compare("A", 3, **CALL)),
}  # fmt: skip


@pytest.mark.parametrize("rule", [r for r in FALLBACK if r not in BROKEN])
def test_anything_a_rule_may_refuse_gives_the_pandas_error(
    rule: str, as_lazy: Callable[[pd.DataFrame], Any]
) -> None:
    make, call = FALLBACK[rule]
    df = make()
    assert_same_error(as_lazy(df), df, call)


def test_only_the_common_case_is_reduced(long_reads: list[int]) -> None:
    df = design_table()
    lf = pl.from_pandas(df).lazy()
    kw: dict[str, Any] = {"higher_is_better": True, "missing": "complete-case"}
    lf.paired.compare("A", "B", **kw)
    assert long_reads == []
    lf.paired.by_slice("A", "B", columns="site", min_size=10, **kw)  # a slice column is read
    assert len(long_reads) == 1
    _raises(lambda: lf.paired.compare("A", "B", **CALL))  # a missing outcome: pandas names it
    assert len(long_reads) == 2
    pl.from_pandas(df).paired.compare("A", "B", **kw)  # an eager table: whole, as before
    assert len(long_reads) == 3


def test_a_polars_nan_score_is_a_missing_output_like_a_null(long_reads: list[int]) -> None:
    df = _nan_score(_absent(design_table(), "A", 2), "B", 3)
    lf = pl.from_pandas(df, nan_to_null=False).lazy()  # NaN stays NaN in polars
    assert lf.select(pl.col("score").is_nan().sum()).collect().item() == 3
    for kw in ({"missing": "complete-case"}, {"missing": "as-failure"},
               {"missing": "as-failure", "fill_value": 0.5}):  # fmt: skip
        same_pairs(lf.paired.compare("A", "B", **kw, **CALL),
                   df.paired.compare("A", "B", **kw, **CALL))  # fmt: skip
    assert long_reads == []
    only_nan = _nan_score(continuous_table(), "B", 1)  # no absent row: only the NaN breaks it
    assert_same_error(pl.from_pandas(only_nan, nan_to_null=False).lazy(), only_nan,
                      lambda t: t.paired.compare("A", "B", **CALL))  # fmt: skip


def test_a_reduced_comparison_pickles_with_its_table() -> None:
    import pickle

    df = design_table()
    kw: dict[str, Any] = {"higher_is_better": True, "missing": "as-failure"}
    got = pickle.loads(pickle.dumps(pl.from_pandas(df).lazy().paired.compare("A", "B", **kw)))
    ref = df.paired.compare("A", "B", **kw)
    same_pairs(got, ref)
    same(got.by_slice("stratum", rng=0), ref.by_slice("stratum", rng=0))
