"""The pandas, Dask and polars accessors: one front end with the same methods and
signatures, and what a new user meets (guardrails, messages, labels, reprs)."""

from __future__ import annotations

import contextlib
import inspect
import re
import traceback
import warnings
from typing import Any

import dask
import numpy as np
import pandas as pd
import pytest

import pdpaired
from pdpaired import Comparison, PairedAccessor
from pdpaired.dask import DaskPairedAccessor
from pdpaired.polars import PolarsPairedAccessor
from pdpaired.results.verdict import VERDICTS

from .conftest import assert_identical, long_table

dd = pytest.importorskip("dask.dataframe")


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


@pytest.mark.parametrize("other", [DaskPairedAccessor, PolarsPairedAccessor])
def test_pandas_dask_and_polars_accessors_have_the_same_methods_and_signatures(
    other: type,
) -> None:
    methods = public_methods(PairedAccessor)
    assert methods == public_methods(other)
    assert set(ONE_CALL) | {"compare", "__call__"} <= set(methods)
    for name in methods:
        sig_pd = inspect.signature(getattr(PairedAccessor, name))
        sig_other = inspect.signature(getattr(other, name))
        assert sig_pd == sig_other, name
        assert list(sig_pd.parameters) == list(sig_other.parameters), name


@pytest.mark.parametrize("cls", [PairedAccessor, DaskPairedAccessor, PolarsPairedAccessor])
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
        # take the baseline and the models list (``against("base", ["m1", "m2"])``),
        # select_best the candidates and the baseline, split the fraction
        allowed = {"against": ["baseline", "models"], "all_pairs": ["models"],
                   "select_best": ["candidates", "baseline"], "split": ["fraction"]}  # fmt: skip
        assert positional in ([], ["a", "b"], allowed.get(name)), (name, positional)


@pytest.mark.parametrize(
    "cls", [PairedAccessor, DaskPairedAccessor, PolarsPairedAccessor, Comparison]
)
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


# --------------------------------------------------------------------------- reversed labels
def binary_frame(n: int = 200, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    z = rng.integers(0, 2, n)
    label = np.where(z == 1, "positive", "negative")
    rows = []
    for model, noise in (("cand", 1.0), ("base", 1.5)):
        p = 1 / (1 + np.exp(-(3 * (z - 0.5) + rng.normal(0, noise, n))))
        rows.append(pd.DataFrame({"case_id": np.arange(n), "model": model, "y": label, "p": p}))
    return pd.concat(rows, ignore_index=True)


# --------------------------------------------------------------------------- pairing errors
def pairing_error(df: pd.DataFrame, **kw: object) -> pdpaired.PairingError:
    with pytest.raises(pdpaired.PairingError) as info:
        df.paired.compare("A", "B", higher_is_better=True, **kw)
    return info.value


# --------------------------------------------------------------------------- labels, reprs
@pytest.fixture(scope="module")
def digits() -> pd.DataFrame:
    from pdpaired.datasets import load_digits_cv

    return load_digits_cv()


def value_column(block: str) -> set[int]:
    """Where the values start on each labelled line (after 2+ spaces)."""
    return {m.end() for line in block.splitlines() if (m := re.match(r"\S.*?\S {2,}", line))}


class TestWhatANewUserMeets:
    """What a new user meets: guardrails, error messages, labels, reprs.

    * reversed class labels (both AUROCs below 0.5, or a well-known pair in
      reverse order) warn;
    * every pairing error says what to do, shows the dtype and a few offending
      values, is raised without pandera's chained traceback and is
      ``pdpaired.PairingError`` by name;
    * a non-scalar model name is a clear ``TypeError``;
    * labels name the score column; the missing-outcome line reads as a policy;
      result blocks and report parts are aligned; ``Comparison`` and the
      accessor have short reprs; ``verify()`` returns a summary that fits a screen.
    """

    def test_reversed_class_labels_warn_and_right_ones_do_not(self) -> None:
        df = binary_frame().paired(target="y", prediction="p")
        with pytest.warns(UserWarning, match="probably reversed") as rec:
            cmp = df.compare("cand", "base", metric="auroc", class_labels=("positive", "negative"))
        assert cmp.metric_a < 0.5
        assert cmp.metric_b < 0.5
        msg = str(rec[0].message)
        assert "class_labels=('negative', 'positive')" in msg  # says the fix
        assert rec[0].filename == __file__  # points at the caller's line
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            good = df.compare("cand", "base", metric="auroc", class_labels=("negative", "positive"))
        # the same data the right way round: AUROC is 1 - the reversed one (no ties in p)
        assert good.metric_a == pytest.approx(1 - cmp.metric_a, abs=1e-12)

    def test_both_aurocs_below_half_warn_for_any_binary_metric(self) -> None:
        df = binary_frame()
        df["z"] = (df["y"] == "negative").astype(int)  # 1 marks the negative class: reversed
        with pytest.warns(UserWarning, match="both models' AUROC is below 0.5"):
            df.paired(target="z", prediction="p").compare("cand", "base", metric="log_loss")

    def test_a_pair_named_in_reverse_warns_even_with_good_aurocs(self) -> None:
        df = binary_frame()
        df["y"] = df["y"].map({"positive": "negative", "negative": "positive"})
        # the probabilities now follow the class called "negative": the AUROCs are fine with
        # class_labels=("positive", "negative"), but the names say the roles are reversed
        with pytest.warns(UserWarning, match="names the positive class first"):
            df.paired(target="y", prediction="p").compare(
                "cand", "base", metric="auroc", class_labels=("positive", "negative")
            )
        # a domain pair (either class may be the predicted one) does not warn
        df["y"] = df["y"].map({"negative": "benign", "positive": "malignant"})
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            df.paired(target="y", prediction="p").compare(
                "cand", "base", metric="auroc", class_labels=("malignant", "benign")
            )

    def test_missing_outcome_names_the_policies_and_has_no_chained_traceback(self) -> None:
        a = np.array([1.0, np.nan, 0.0, 1.0, np.nan])
        err = pairing_error(long_table(a, np.ones(5)))
        text = str(err)
        assert "missing='complete-case'" in text
        assert "missing='as-failure'" in text
        assert "first ids: [1, 4]" in text
        assert err.__cause__ is None
        assert err.__suppress_context__  # raised `from None`: no pandera JSON above it
        assert len(err.failure_cases) == 2  # the table stays on the error
        shown = "".join(traceback.format_exception(err))
        assert "SchemaError" not in shown
        assert "During handling" not in shown
        assert "pdpaired.PairingError:" in shown  # its public name, not pdpaired._lib.errors
        assert type(err).__module__ == "pdpaired"

    def test_string_scores_show_dtype_values_and_to_numeric(self) -> None:
        df = long_table(np.zeros(6), np.zeros(6))
        df["score"] = np.where(np.arange(12) % 2 == 0, "yes", "no")
        text = str(pairing_error(df))
        assert "dtype" in text
        assert "'yes'" in text
        assert "'no'" in text
        assert "pd.to_numeric" in text

    def test_duplicates_and_disagreeing_rows_name_the_id_column_setting(self) -> None:
        df = long_table(np.zeros(4), np.zeros(4))
        text = str(pairing_error(pd.concat([df, df.iloc[:1]])))
        assert "df.paired(case=...)" in text
        df = long_table(np.zeros(4), np.zeros(4), group=np.arange(4))
        df.loc[0, "group"] = 99
        assert "df.paired(case=...)" in str(pairing_error(df))

    @pytest.mark.parametrize("name", [pd.Series(["A", "B"]), ["A"], np.array(["A"])])
    def test_non_scalar_model_name_is_a_clear_type_error(self, name: object) -> None:
        df = long_table(np.zeros(4), np.ones(4))
        with pytest.raises(TypeError, match="must be one model name"):
            df.paired.compare(name, "B", higher_is_better=True)
        with pytest.raises(TypeError, match="`b` must be one model name"):
            df.paired.bootstrap("A", name, higher_is_better=True)

    def test_labels_name_the_score_column(self, digits: pd.DataFrame) -> None:
        res = digits.paired(score="log_loss").bootstrap("knn", "logreg", higher_is_better=False,
                                                        rng=0, n_resamples=300)  # fmt: skip
        text = str(res)
        assert "Model A (knn) mean log_loss" in text
        assert "Direction" in text
        assert "mean log_loss (lower is better)" in text
        assert res.metric == "mean"  # the metric's name is unchanged; the label names the column
        assert res.metric_label == "mean log_loss"
        assert "mean log_loss" in res.plot().get_xlabel()
        sl = digits.paired(score="brier").by_slice("knn", "logreg", columns="fold",
                                                   higher_is_better=False)  # fmt: skip
        assert "mean brier" in str(sl).splitlines()[0]

    def test_missing_outcome_line_reads_as_a_policy(self, digits: pd.DataFrame) -> None:
        res = digits.paired(score="correct").bootstrap("knn", "logreg", higher_is_better=True,
                                                       rng=0, n_resamples=300)  # fmt: skip
        line = next(x for x in str(res).splitlines() if x.startswith("Missing outcomes"))
        assert line.split(maxsplit=2)[2] == "policy error — no missing outcomes"

    def test_result_blocks_and_report_parts_are_aligned(self, digits: pd.DataFrame) -> None:
        cmp = digits.paired(score="correct").compare("knn", "logreg", higher_is_better=True)
        rep = cmp.report(n_resamples=300, n_permutations=300, rng=0)
        parts = str(rep).split("\n\n")
        assert len(parts) == 3
        blocks = ["\n".join(p.splitlines()[1:] if p.startswith("Verdict") else p.splitlines())
                  for p in parts]  # fmt: skip
        starts = set().union(*(value_column(b) for b in blocks))
        assert len(starts) == 1  # one value column across the bootstrap, test and binomial blocks
        eb = str(cmp.exact_binomial())
        share = next(x for x in eb.splitlines() if x.startswith("Share won by A"))
        assert re.search(r"\d   \(95% exact CI \[", share)

    def test_slice_text_is_a_table(self, digits: pd.DataFrame) -> None:
        sl = digits.paired(score="correct").by_slice(
            "knn",
            "logreg",
            columns="fold",
            higher_is_better=True,
            uncertainty=True,
            rng=0,
            n_resamples=200,
            n_permutations=200,
        )
        lines = str(sl).splitlines()[1:12]  # header, 10 folds
        head = lines[0]
        for col in ("n", "improvement", "95% CI", "verdict"):
            assert col in head
        ends = {line.index("  A") if "  A " in line else None for line in lines[1:]}
        assert None not in ends
        verdicts = [line.split()[-1] for line in lines[1:]]
        assert set(verdicts) <= set(VERDICTS)

    def test_comparison_and_accessor_reprs_are_short(self, digits: pd.DataFrame) -> None:
        acc = digits.paired(score="correct")
        cmp = acc.compare("knn", "logreg", higher_is_better=True)
        text = repr(cmp)
        assert text.startswith("Comparison(a='knn', b='logreg'")
        assert "score='correct'" in text
        assert len(text) < 200
        html = cmp._repr_html_()
        assert "<table>" in html
        assert "mean correct (higher is better)" in html
        assert "policy error" in html
        assert len(html) < 2000
        assert "score='correct'" in repr(acc)
        assert len(repr(acc)) < 300
        assert "object at 0x" not in repr(digits.paired)

    def test_verify_returns_a_summary_that_fits_a_screen(
        self, digits: pd.DataFrame, tmp_path
    ) -> None:
        rep = digits.paired(score="correct").report(
            "knn", "logreg", higher_is_better=True, rng=0, n_resamples=300, n_permutations=300
        )
        paths = rep.save(tmp_path)
        art = pdpaired.verify(paths["shareable"])
        assert isinstance(art, pdpaired.VerifiedArtifact)
        assert isinstance(art, dict)
        assert art["kind"] == "shareable"  # still the artifact
        assert art == rep.to_artifact("shareable")
        text = repr(art)
        assert len(text) < 400
        assert "\n" not in text
        assert "knn vs logreg" in text
        assert f"verdict {rep.bootstrap.verdict}" in text
        assert "valid shareable" in art._repr_html_()

    def test_two_useless_models_do_not_warn(self) -> None:
        # random predictions: both AUROCs fall below 0.5 a quarter of the time, by chance;
        # only AUROCs more than 3 null standard errors below 0.5 warn
        rng = np.random.default_rng(2)
        y = np.repeat([0, 1], 20)
        for _ in range(20):
            df = pd.concat(
                [
                    pd.DataFrame(
                        {"case_id": range(40), "model": m, "y": y, "p": rng.uniform(size=40)}
                    )
                    for m in ("A", "B")
                ]
            )
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                df.paired(target="y", prediction="p").compare("A", "B", metric="auroc")
