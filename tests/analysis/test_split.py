"""``df.paired.split``: a reproducible selection / confirmation split, and its record.

* Reproducible from the seed, independent of row order; a Generator is
  consumed and recorded as no seed.
* Every row of a case (of a group, with ``by``) goes to one part; no case is
  in both parts and none is lost; the caller's table is untouched.
* Within strata the selection part holds ``round(fraction * G)`` of each
  stratum's ``G`` units (at least one in each part).
* A confirmation report checks its cases against the split and records it
  in the artifact (digests in the local artifact only); ``verify`` checks
  the record and refutes an edited one.
* Bad arguments raise errors naming the rule and the first cases.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import pdpaired
from pdpaired import SplitResult
from pdpaired.artifacts.digests import content_digest, ids_sha256


def table(n: int = 120, *, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    truth = rng.uniform(size=n)
    rows = []
    for m, shift in (("base", 0.0), ("p1", 0.02), ("p2", 0.05)):
        rows.append(pd.DataFrame({
            "case_id": np.arange(n),
            "model": m,
            "score": truth + shift + rng.normal(0.0, 0.1, n),
            "doc": np.arange(n) // 4,
            "task": np.where(np.arange(n) < n // 3, "math", "code"),
        }))  # fmt: skip
    return pd.concat(rows, ignore_index=True)


def ids(part: pd.DataFrame) -> set:
    return set(part.case_id.tolist())


def test_reproducible_disjoint_and_complete() -> None:
    df = table()
    before = df.copy()
    a = df.paired.split(0.4, rng=5)
    b = df.paired.split(0.4, rng=5)
    c = df.paired.split(0.4, rng=6)
    assert isinstance(a, SplitResult)
    pd.testing.assert_frame_equal(a.selection, b.selection)
    assert ids(a.selection) != ids(c.selection)
    assert not ids(a.selection) & ids(a.confirmation)
    assert ids(a.selection) | ids(a.confirmation) == set(range(120))
    assert len(a.selection) + len(a.confirmation) == len(df)
    # every row of a case in one part: all three models of each case
    assert (a.selection.groupby("case_id").size() == 3).all()
    assert a.n_selection_cases == 48  # round(0.4 * 120)
    assert a.n_confirmation_cases == 72
    assert a.seed == 5
    pd.testing.assert_frame_equal(df, before)
    assert a.selection_ids_sha256 == ids_sha256(pd.Index(sorted(ids(a.selection))))


def test_row_order_does_not_matter() -> None:
    df = table()
    shuffled = df.sample(frac=1.0, random_state=3)
    for kw in ({}, {"by": "doc"}, {"stratify": "task"}, {"by": "doc", "stratify": "task"}):
        a = df.paired.split(0.5, rng=1, **kw)
        b = shuffled.paired.split(0.5, rng=1, **kw)
        assert ids(a.selection) == ids(b.selection), kw
        assert a.record() == b.record()


def test_whole_groups_stay_together() -> None:
    df = table()
    sp = df.paired.split(0.5, by="doc", rng=2)
    assert not set(sp.selection.doc) & set(sp.confirmation.doc)
    assert sp.n_selection_units == 15  # of 30 documents
    assert sp.n_selection_cases == 60
    assert sp.record()["by"] == "doc"


@pytest.mark.parametrize("fraction", [0.1, 0.3, 0.5, 0.77])
def test_proportions_hold_within_strata(fraction: float) -> None:
    df = table(150)
    sp = df.paired.split(fraction, stratify="task", rng=0)
    per = sp.selection.groupby("task").case_id.nunique()
    sizes = df.groupby("task").case_id.nunique()
    for task, g in sizes.items():
        want = min(g - 1, max(1, int(np.floor(fraction * g + 0.5))))
        assert per[task] == want


def test_a_one_unit_stratum_goes_to_one_part_by_chance() -> None:
    df = table(40)
    df.loc[df.case_id == 0, "task"] = "alone"
    seen = {0 in ids(df.paired.split(0.5, stratify="task", rng=s).selection) for s in range(12)}
    assert seen == {True, False}


def test_a_generator_is_recorded_as_no_seed() -> None:
    sp = table().paired.split(0.5, rng=np.random.default_rng(0))
    assert sp.seed is None
    assert sp.record()["seed"] is None


def test_configured_case_column() -> None:
    df = table().rename(columns={"case_id": "item"})
    sp = df.paired(case="item").split(0.5, rng=0)
    assert sp.case == "item"
    assert sp.n_selection_cases + sp.n_confirmation_cases == 120
    with pytest.raises(ValueError, match="the case-id column 'case_id' is not in the table"):
        df.paired.split(0.5, rng=0)


@pytest.mark.parametrize("fraction", [0, 1, 1.5, -0.2, True, "0.5", None, float("nan")])
def test_bad_fraction(fraction: object) -> None:
    with pytest.raises(ValueError, match="`fraction` must be a number strictly between 0 and 1"):
        table().paired.split(fraction, rng=0)


def test_bad_columns_name_the_rule_and_the_cases() -> None:
    df = table()
    with pytest.raises(ValueError, match="`by` must name a column of the table; got 'nope'"):
        df.paired.split(0.5, by="nope")
    with pytest.raises(ValueError, match="`stratify` must name a column of the table"):
        df.paired.split(0.5, stratify=3)
    with pytest.raises(ValueError, match="`by` must name a column other than the case ids"):
        df.paired.split(0.5, by="case_id")
    holed = df.copy()
    holed.loc[holed.case_id == 7, "doc"] = np.nan
    with pytest.raises(ValueError, match=r"`by` column 'doc' has 3 missing .* first ids: \[7\]"):
        holed.paired.split(0.5, by="doc")
    two = df.copy()
    two.loc[(two.case_id == 5) & (two.model == "p1"), "doc"] = 99
    with pytest.raises(ValueError, match=r"every case must lie in one value of `by`.*\[5\]"):
        two.paired.split(0.5, by="doc")
    mixed = df.copy()
    mixed.loc[mixed.case_id == 0, "task"] = "other"  # doc 0 now spans two tasks
    with pytest.raises(ValueError, match=r"every group must lie in one value of `stratify`.*\[0\]"):
        mixed.paired.split(0.5, by="doc", stratify="task")
    with pytest.raises(ValueError, match="split needs at least two cases; the table has 1"):
        df[df.case_id == 0].paired.split(0.5)


# --------------------------------------------------------------------------- the record
def _confirm(tmp_path, sp: SplitResult) -> dict:
    best = sp.selection.paired.select_best(None, "base", higher_is_better=True, rng=0,
                                           n_resamples=300).selected  # fmt: skip
    rep = sp.confirmation.paired.compare(best, "base", higher_is_better=True).report(
        n_resamples=300, n_permutations=300, rng=0, split=sp
    )
    return rep.save(tmp_path)


def test_the_confirmation_report_records_the_split_and_verifies(tmp_path) -> None:
    sp = table().paired.split(0.5, by="doc", stratify="task", rng=4)
    paths = _confirm(tmp_path, sp)
    local = pdpaired.verify(paths["local"])
    shareable = pdpaired.verify(paths["shareable"])
    assert local["split"] == sp.record()
    assert local["split"]["confirmation_ids_sha256"] == local["local"]["aligned_ids_sha256"]
    assert shareable["split"] == sp.record(kind="shareable")
    assert not any(k.endswith("_sha256") for k in shareable["split"])


def test_a_comparison_with_selection_cases_is_refused() -> None:
    df = table()
    sp = df.paired.split(0.5, rng=0)
    cmp = df.paired.compare("p1", "base", higher_is_better=True)
    with pytest.raises(ValueError, match=r"60 case\(s\) are in its selection part; first ids"):
        cmp.report(n_resamples=100, n_permutations=100, rng=0, split=sp)
    other = table(200).paired.split(0.5, rng=0)  # cases 120.. are in neither part of sp
    conf = other.confirmation.paired.compare("p1", "base", higher_is_better=True)
    with pytest.raises(ValueError, match=r"are in its selection part|are in neither part"):
        conf.report(n_resamples=100, n_permutations=100, rng=0, split=sp)
    with pytest.raises(TypeError, match=r"must be the SplitResult of df\.paired\.split"):
        cmp.report(n_resamples=100, n_permutations=100, rng=0, split=sp.record())


def _rewrite(path, edit) -> None:
    art = json.loads(path.read_text())
    edit(art)
    art.pop("digest")
    art["digest"] = content_digest(art)
    path.write_text(json.dumps(art))


@pytest.mark.parametrize(
    ("edit", "problem"),
    [
        (lambda a: a["split"].update(n_confirmation_cases=a["n_cases"] - 1,
                                     n_confirmation_units=a["n_cases"] - 1),
         "exceeds split.n_confirmation_cases"),
        (lambda a: a["split"].update(confirmation_ids_sha256="0" * 64),
         "was not run on that part"),
        (lambda a: a["split"].update(selection_ids_sha256=a["split"]["confirmation_ids_sha256"]),
         "the selection and confirmation parts have the same case ids"),
        (lambda a: a["split"].update(n_selection_units=0), "at least one unit"),
        (lambda a: a["split"].update(n_selection_cases=a["split"]["n_selection_cases"] + 1),
         "without `by` each unit is one case"),
    ],
)  # fmt: skip
def test_verify_refutes_an_edited_split(tmp_path, edit, problem: str) -> None:
    sp = table().paired.split(0.5, rng=1)
    path = _confirm(tmp_path, sp)["local"]
    _rewrite(path, edit)
    with pytest.raises(pdpaired.ArtifactError, match=problem):
        pdpaired.verify(path)


def test_the_shareable_artifact_may_not_hold_the_ids_digests(tmp_path) -> None:
    sp = table().paired.split(0.5, rng=1)
    path = _confirm(tmp_path, sp)["shareable"]
    _rewrite(path, lambda a: a["split"].update(selection_ids_sha256="1" * 64))
    with pytest.raises(pdpaired.ArtifactError, match="schema"):
        pdpaired.verify(path)


def test_the_dask_front_end_says_it_cannot_split() -> None:
    dd = pytest.importorskip("dask.dataframe")
    import pdpaired.dask  # noqa: F401

    ddf = dd.from_pandas(table(), npartitions=2)
    with pytest.raises(NotImplementedError, match="bring the table into memory"):
        ddf.paired.split(0.5, rng=0)


def test_the_markdown_report_states_the_split(tmp_path) -> None:
    sp = table().paired.split(0.5, by="doc", rng=4)
    paths = _confirm(tmp_path, sp)
    text = paths["markdown"].read_text()
    assert (
        "Confirmation on fresh cases: the cases were split (fraction 0.5 for selection, "
        "whole groups of doc, seed 4) into 60 selection and 60 confirmation cases" in text
    )
