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

from __future__ import annotations

import re
import traceback
import warnings

import numpy as np
import pandas as pd
import pytest

import pdpaired
from pdpaired.results.verdict import VERDICTS

from .conftest import long_table


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


def test_reversed_class_labels_warn_and_right_ones_do_not() -> None:
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


def test_both_aurocs_below_half_warn_for_any_binary_metric() -> None:
    df = binary_frame()
    df["z"] = (df["y"] == "negative").astype(int)  # 1 marks the negative class: reversed
    with pytest.warns(UserWarning, match="both models' AUROC is below 0.5"):
        df.paired(target="z", prediction="p").compare("cand", "base", metric="log_loss")


def test_a_pair_named_in_reverse_warns_even_with_good_aurocs() -> None:
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


# --------------------------------------------------------------------------- pairing errors
def pairing_error(df: pd.DataFrame, **kw: object) -> pdpaired.PairingError:
    with pytest.raises(pdpaired.PairingError) as info:
        df.paired.compare("A", "B", higher_is_better=True, **kw)
    return info.value


def test_missing_outcome_names_the_policies_and_has_no_chained_traceback() -> None:
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


def test_string_scores_show_dtype_values_and_to_numeric() -> None:
    df = long_table(np.zeros(6), np.zeros(6))
    df["score"] = np.where(np.arange(12) % 2 == 0, "yes", "no")
    text = str(pairing_error(df))
    assert "dtype" in text
    assert "'yes'" in text
    assert "'no'" in text
    assert "pd.to_numeric" in text


def test_duplicates_and_disagreeing_rows_name_the_id_column_setting() -> None:
    df = long_table(np.zeros(4), np.zeros(4))
    text = str(pairing_error(pd.concat([df, df.iloc[:1]])))
    assert "df.paired(case=...)" in text
    df = long_table(np.zeros(4), np.zeros(4), group=np.arange(4))
    df.loc[0, "group"] = 99
    assert "df.paired(case=...)" in str(pairing_error(df))


@pytest.mark.parametrize("name", [pd.Series(["A", "B"]), ["A"], np.array(["A"])])
def test_non_scalar_model_name_is_a_clear_type_error(name: object) -> None:
    df = long_table(np.zeros(4), np.ones(4))
    with pytest.raises(TypeError, match="must be one model name"):
        df.paired.compare(name, "B", higher_is_better=True)
    with pytest.raises(TypeError, match="`b` must be one model name"):
        df.paired.bootstrap("A", name, higher_is_better=True)


# --------------------------------------------------------------------------- labels, reprs
@pytest.fixture(scope="module")
def digits() -> pd.DataFrame:
    from pdpaired.datasets import load_digits_cv

    return load_digits_cv()


def test_labels_name_the_score_column(digits: pd.DataFrame) -> None:
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


def test_missing_outcome_line_reads_as_a_policy(digits: pd.DataFrame) -> None:
    res = digits.paired(score="correct").bootstrap("knn", "logreg", higher_is_better=True,
                                                   rng=0, n_resamples=300)  # fmt: skip
    line = next(x for x in str(res).splitlines() if x.startswith("Missing outcomes"))
    assert line.split(maxsplit=2)[2] == "policy error — no missing outcomes"


def value_column(block: str) -> set[int]:
    """Where the values start on each labelled line (after 2+ spaces)."""
    return {m.end() for line in block.splitlines() if (m := re.match(r"\S.*?\S {2,}", line))}


def test_result_blocks_and_report_parts_are_aligned(digits: pd.DataFrame) -> None:
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


def test_slice_text_is_a_table(digits: pd.DataFrame) -> None:
    sl = digits.paired(score="correct").by_slice("knn", "logreg", columns="fold",
                                                 higher_is_better=True, uncertainty=True, rng=0,
                                                 n_resamples=200, n_permutations=200)  # fmt: skip
    lines = str(sl).splitlines()[1:12]  # header, 10 folds
    head = lines[0]
    for col in ("n", "improvement", "95% CI", "verdict"):
        assert col in head
    ends = {line.index("  A") if "  A " in line else None for line in lines[1:]}
    assert None not in ends
    verdicts = [line.split()[-1] for line in lines[1:]]
    assert set(verdicts) <= set(VERDICTS)


def test_comparison_and_accessor_reprs_are_short(digits: pd.DataFrame) -> None:
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


def test_verify_returns_a_summary_that_fits_a_screen(digits: pd.DataFrame, tmp_path) -> None:
    rep = digits.paired(score="correct").report("knn", "logreg", higher_is_better=True, rng=0,
                                                n_resamples=300, n_permutations=300)  # fmt: skip
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


def test_two_useless_models_do_not_warn() -> None:
    # random predictions: both AUROCs fall below 0.5 a quarter of the time, by chance;
    # only AUROCs more than 3 null standard errors below 0.5 warn
    rng = np.random.default_rng(2)
    y = np.repeat([0, 1], 20)
    for _ in range(20):
        df = pd.concat(
            [
                pd.DataFrame({"case_id": range(40), "model": m, "y": y, "p": rng.uniform(size=40)})
                for m in ("A", "B")
            ]
        )
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            df.paired(target="y", prediction="p").compare("A", "B", metric="auroc")
