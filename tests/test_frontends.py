"""The pandas and Dask accessors are one front end.

* Every public method of ``df.paired`` exists on ``ddf.paired`` with the same
  ``inspect.signature`` (names, kinds, defaults and annotations), takes no
  ``*args``/``**kwargs`` and does not return ``Any``.
* Every parameter a method takes is described in its own docstring (the
  blocks of ``pdpaired._lib.docs`` are composed in), so each docs page lists all.
* The same one-call form, with ``metric=`` and every ``compare`` keyword,
  gives the same result on both tables, field by field (it raised
  ``TypeError`` on the Dask frame before).
"""

from __future__ import annotations

import contextlib
import inspect
import re
from typing import Any

import numpy as np
import pandas as pd
import pytest

import pdpaired
from pdpaired import Comparison, PairedAccessor

from .conftest import assert_identical, long_table

dd = pytest.importorskip("dask.dataframe")

import dask  # noqa: E402

from pdpaired.dask import DaskPairedAccessor  # noqa: E402

ONE_CALL = ("bootstrap", "randomization", "exact_binomial", "by_slice", "report", "delong")


def public_methods(cls: type) -> list[str]:
    names = [n for n, v in inspect.getmembers(cls, inspect.isfunction) if not n.startswith("_")]
    return [*sorted(names), "__call__"]


def param_names_in_doc(doc: str) -> set[str]:
    """Names described in the numpydoc ``Parameters`` section (``a, b : str`` gives two)."""
    section = doc.split("Parameters\n----------\n", 1)[1]
    section = re.split(r"\n\n[A-Z][a-z]+( [A-Z][a-z]+)?\n-+\n", section, maxsplit=1)[0]
    names: set[str] = set()
    for line in section.splitlines():
        if line and not line.startswith(" "):
            names.update(n.strip() for n in line.split(" : ")[0].split(","))
    return names


def test_pandas_and_dask_accessors_have_the_same_methods_and_signatures() -> None:
    methods = public_methods(PairedAccessor)
    assert methods == public_methods(DaskPairedAccessor)
    assert set(ONE_CALL) | {"compare", "__call__"} <= set(methods)
    for name in methods:
        sig_pd = inspect.signature(getattr(PairedAccessor, name))
        sig_dd = inspect.signature(getattr(DaskPairedAccessor, name))
        assert sig_pd == sig_dd, name
        assert list(sig_pd.parameters) == list(sig_dd.parameters), name


@pytest.mark.parametrize("cls", [PairedAccessor, DaskPairedAccessor])
def test_no_pass_through_keywords_and_no_any_return(cls: type) -> None:
    for name in public_methods(cls):
        sig = inspect.signature(getattr(cls, name))
        kinds = {p.kind for p in sig.parameters.values()}
        assert inspect.Parameter.VAR_KEYWORD not in kinds, name
        assert inspect.Parameter.VAR_POSITIONAL not in kinds, name
        assert sig.return_annotation not in ("Any", inspect.Signature.empty), name
        positional = [
            p.name
            for p in sig.parameters.values()
            if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD and p.name != "self"
        ]
        # the two models of a one-call form; the several-model forms
        # take the baseline and the models list (``against("base", ["m1", "m2"])``)
        allowed = {"against": ["baseline", "models"], "all_pairs": ["models"]}
        assert positional in ([], ["a", "b"], allowed.get(name)), (name, positional)


@pytest.mark.parametrize("cls", [PairedAccessor, DaskPairedAccessor, Comparison])
def test_every_parameter_is_documented_in_its_own_docstring(cls: type) -> None:
    names = [*ONE_CALL, "compare", "__call__"] if "Accessor" in cls.__name__ else ONE_CALL
    for name in names:
        fn = getattr(cls, name)
        params = {p for p in inspect.signature(fn).parameters if p != "self"}
        if not params:
            continue
        documented = param_names_in_doc(inspect.getdoc(fn) or "")
        assert params <= documented, (cls.__name__, name, params - documented)
        assert "$" not in (fn.__doc__ or ""), (cls.__name__, name)


def test_comparison_methods_take_the_one_call_keywords_after_compares() -> None:
    # one Comparison for every table: its analyses take what the one-call forms
    # take after compare's keywords (collect= included), in the same order
    compare_params = list(inspect.signature(PairedAccessor.compare).parameters)
    for name in ONE_CALL:
        one_call = inspect.signature(getattr(PairedAccessor, name)).parameters
        method = inspect.signature(getattr(Comparison, name)).parameters
        rest = [p for p in one_call if p not in compare_params]
        # report(inputs=) is the comparison's only extra: the files it was read from,
        # which the CLI passes and a one-call form cannot know
        assert [p for p in method if p not in ("self", "inputs")] == rest, name
        for p in rest:
            assert method[p].default == one_call[p].default, (name, p)


# --------------------------------------------------------------------------- same numbers
@pytest.fixture
def grouped() -> pd.DataFrame:
    """0/1 scores in groups of 4 with 3 strata and a slice column, one missing output of B."""
    rng = np.random.default_rng(3)
    n = 480
    b = rng.binomial(1, 0.6, size=n).astype(np.float64)
    a = np.where(rng.random(n) < 0.7, b, rng.binomial(1, 0.75, size=n)).astype(np.float64)
    group = np.arange(n) // 4
    stratum = np.array(["s0", "s1", "s2"])[group % 3]
    site = np.array(["north", "south"])[rng.integers(0, 2, size=n)]
    df = long_table(a, b, ids=np.arange(n) * 3 + 1, group=group, stratum=stratum, site=site)
    drop = df.index[(df["model"] == "B") & (df["case_id"] == 4)]
    return df.drop(index=drop).reset_index(drop=True)


def warns_or_not(category: type[Warning] | None) -> Any:
    return contextlib.nullcontext() if category is None else pytest.warns(category)


COMPARE_KW: dict[str, Any] = {
    "metric": "mean",
    "higher_is_better": True,
    "missing": "as-failure",
    "fill_value": 0.0,
    "class_labels": None,
    "threshold": 0.5,
}


@pytest.mark.parametrize(
    ("method", "kw"),
    [
        ("bootstrap", {"n_resamples": 400, "method": "bca", "rng": 5, "weighting": "group",
                       "practical_threshold": 0.01, "noninferiority_margin": 0.02, "batch": 64}),
        ("bootstrap", {"n_resamples": 300, "rng": 1, "unit": "case", "stratified": False}),
        ("randomization", {"n_permutations": 300, "alternative": "greater", "rng": 2,
                           "unit": "group", "batch": 50}),
        ("exact_binomial", {"alternative": "less", "mid_p": True, "confidence_level": 0.9}),
        ("by_slice", {"columns": "site", "min_size": 10, "uncertainty": True,
                      "n_resamples": 200, "n_permutations": 200, "adjust": "fdr_bh", "rng": 3}),
    ],
)  # fmt: skip
def test_same_one_call_gives_the_same_result_on_pandas_and_dask(
    grouped: pd.DataFrame, method: str, kw: dict[str, Any]
) -> None:
    ddf = dd.from_pandas(grouped.sample(frac=1.0, random_state=0), npartitions=3)
    # the exact binomial test warns on grouped cases, on both paths alike
    expect = pdpaired.IndependenceWarning if method == "exact_binomial" else None
    with dask.config.set(scheduler="sync"):
        with warns_or_not(expect):
            ref = getattr(grouped.paired, method)("A", "B", **COMPARE_KW, **kw)
        with warns_or_not(expect):
            got = getattr(ddf.paired, method)("A", "B", **COMPARE_KW, **kw)
    assert_identical(got, ref)


def test_configured_columns_and_collect_on_both(grouped: pd.DataFrame) -> None:
    renamed = grouped.rename(columns={"case_id": "id", "model": "system", "score": "acc"})
    ddf = dd.from_pandas(renamed, npartitions=2)
    cfg = {"case": "id", "model": "system", "score": "acc", "group": None, "stratum": None}
    kw = {"higher_is_better": True, "missing": "complete-case", "n_resamples": 300, "rng": 9}
    with dask.config.set(scheduler="sync"):
        ref = renamed.paired(**cfg).bootstrap("A", "B", collect=True, **kw)
        got = ddf.paired(**cfg).bootstrap("A", "B", collect=True, **kw)
    assert ref == renamed.paired(**cfg).bootstrap("A", "B", **kw)  # pandas: no effect
    assert_identical(got, ref)
    with pytest.raises(TypeError, match="`collect`"):
        renamed.paired(**cfg).bootstrap("A", "B", collect="yes", **kw)


def test_dask_says_what_it_cannot_do_yet(grouped: pd.DataFrame) -> None:
    ddf = dd.from_pandas(grouped, npartitions=2)
    with pytest.raises(NotImplementedError, match="Prediction mode"):
        ddf.paired(target="score", prediction="score").compare("A", "B")


def test_same_report_and_artifacts_on_pandas_and_dask(grouped: pd.DataFrame) -> None:
    """The report's parts, its input and id digests and its artifacts are the same."""
    ddf = dd.from_pandas(grouped.sample(frac=1.0, random_state=1), npartitions=3)
    kw: dict[str, Any] = {
        **COMPARE_KW, "n_resamples": 300, "n_permutations": 300, "rng": 4, "slices": "site",
        "min_slice_size": 10, "practical_threshold": 0.01, "noninferiority_margin": 0.05,
    }  # fmt: skip
    with dask.config.set(scheduler="sync"):
        got = ddf.paired.report("A", "B", **kw)
    ref = grouped.paired.report("A", "B", **kw)
    for part in ("bootstrap", "randomization", "slices"):
        assert_identical(getattr(got, part), getattr(ref, part))
    assert got.exact_binomial is ref.exact_binomial is None  # grouped cases: not run
    assert got.inputs == ref.inputs
    assert got.id_digest == ref.id_digest
    for kind in ("local", "shareable"):
        a, b = got.to_artifact(kind), ref.to_artifact(kind)
        a.pop("software"), b.pop("software")
        assert a == b


def test_configuring_returns_the_same_kind_of_accessor(grouped: pd.DataFrame) -> None:
    ddf = dd.from_pandas(grouped, npartitions=2)
    assert isinstance(grouped.paired(group=None), PairedAccessor)
    assert isinstance(ddf.paired(group=None), DaskPairedAccessor)
