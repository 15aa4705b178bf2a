"""Pairing on integer codes: results never depend on row order or on the id dtype.

Pairing factorizes the case ids once and sorts the cases only when an
analysis needs their order (resampling cases, the pairs shown to users, a
report); a cluster design sums exact integers per group and never sorts.
These tests pin what that must not change: every number, under shuffled
rows, every dtype of the id column and every missing-outcome policy.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdpaired
from pdpaired import PairingError


def long_table(n: int = 400, seed: int = 0, *, binary: bool = False) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    ids = np.arange(n)
    if binary:
        a, b = rng.integers(0, 2, n).astype(float), rng.integers(0, 2, n).astype(float)
    else:
        base = rng.normal(size=n)
        a, b = base + rng.normal(0.1, 1, n), base + rng.normal(0, 1, n)
    return pd.DataFrame({
        "case_id": np.concatenate([ids, ids]),
        "model": np.repeat(["A", "B"], n),
        "score": np.concatenate([a, b]),
        "group": np.tile(ids // 10, 2),
        "stratum": np.tile((ids // 10) % 4, 2),
    })  # fmt: skip


def with_ids(df: pd.DataFrame, kind: str) -> pd.DataFrame:
    """The same table with the id column in another dtype, in the same sort order."""
    out = df.copy()
    text = "case-" + out["case_id"].astype(str).str.zfill(6)  # zero-padded: same order
    if kind == "int":
        return out
    if kind == "object":
        out["case_id"] = pd.Series(text.to_numpy(dtype=object), dtype=object)
    elif kind == "string":
        out["case_id"] = text.astype("string")
    elif kind == "pyarrow":
        pytest.importorskip("pyarrow")
        out["case_id"] = text.astype("string[pyarrow]")
    elif kind == "category":
        out["case_id"] = pd.Categorical(text, categories=sorted(text.unique()))
    return out


DESIGNS = [
    {"unit": "case"},
    {"unit": "group"},
    {"unit": "group", "stratified": True},
    {"unit": "case", "stratified": True},
]


def numbers(res: pdpaired.BootstrapResult) -> tuple[object, ...]:
    return (
        res.metric_a, res.metric_b, res.improvement, res.confidence_interval,
        res.bootstrap_distribution.tobytes(),
    )  # fmt: skip


@pytest.mark.parametrize("design", DESIGNS, ids=lambda d: "-".join(map(str, d.values())))
def test_shuffled_rows_give_identical_numbers(design: dict[str, object]) -> None:
    df = long_table()
    shuffled = df.sample(frac=1, random_state=3).reset_index(drop=True)
    kw = {"higher_is_better": True, "rng": 5, "n_resamples": 500, **design}
    ref = df.paired.bootstrap("A", "B", **kw)
    got = shuffled.paired.bootstrap("A", "B", **kw)
    assert numbers(got) == numbers(ref)
    ref_r = df.paired.randomization("A", "B", higher_is_better=True, rng=5, n_permutations=300,
                                    unit=design["unit"])  # fmt: skip
    got_r = shuffled.paired.randomization("A", "B", higher_is_better=True, rng=5,
                                          n_permutations=300, unit=design["unit"])  # fmt: skip
    assert got_r.pvalue == ref_r.pvalue
    assert got_r.null_distribution.tobytes() == ref_r.null_distribution.tobytes()


@pytest.mark.parametrize("kind", ["object", "string", "pyarrow", "category"])
def test_the_id_dtype_changes_no_number(kind: str) -> None:
    df = long_table(seed=1)
    other = with_ids(df, kind).sample(frac=1, random_state=7)
    for design in DESIGNS:
        kw = {"higher_is_better": True, "rng": 2, "n_resamples": 400, **design}
        assert numbers(other.paired.bootstrap("A", "B", **kw)) == numbers(
            df.paired.bootstrap("A", "B", **kw)
        ), (kind, design)
    pairs = other.paired.compare("A", "B", higher_is_better=True).pairs
    assert pairs.index.is_monotonic_increasing
    np.testing.assert_array_equal(
        pairs["A"].to_numpy(), df.paired.compare("A", "B", higher_is_better=True).pairs["A"]
    )


@pytest.mark.parametrize("missing", ["complete-case", "as-failure"])
def test_policies_under_shuffled_rows(missing: str) -> None:
    df = long_table(binary=True, seed=2)
    drop = df.index[(df["model"] == "B") & (df["case_id"] % 9 == 0)]
    df = df.drop(index=drop)
    df.loc[(df["model"] == "A") & (df["case_id"] % 13 == 0), "score"] = np.nan
    shuffled = df.sample(frac=1, random_state=11)
    kw = {"higher_is_better": True, "missing": missing, "rng": 0, "n_resamples": 300}
    for design in DESIGNS:
        ref = df.paired.bootstrap("A", "B", **kw, **design)
        got = shuffled.paired.bootstrap("A", "B", **kw, **design)
        assert numbers(got) == numbers(ref), design
        assert got.missing == ref.missing


def test_cluster_design_does_not_sort_the_cases() -> None:
    # order-free reductions read the table as pairing left it: the cluster bootstrap
    # never builds the sorted frame, and still equals the sorted path bit for bit
    df = with_ids(long_table(), "object").sample(frac=1, random_state=1)
    cmp = df.paired.compare("A", "B", higher_is_better=True)
    data = cmp._pairs.data
    res = cmp.bootstrap(unit="group", rng=0, n_resamples=300)
    assert "frame" not in vars(data)  # the cached sort was never computed
    assert not data.table.index.is_monotonic_increasing
    _ = cmp.pairs  # now it is
    assert "frame" in vars(data)
    ref = long_table().paired.bootstrap("A", "B", higher_is_better=True, unit="group", rng=0,
                                        n_resamples=300)  # fmt: skip
    assert numbers(res) == numbers(ref)


@pytest.mark.parametrize("ids", ["dense", "gaps", "negative", "uint8", "sparse"])
def test_integer_ids_without_hashing_equal_the_hashed_path(ids: str) -> None:
    # integer ids in a narrow range are ranked through a presence table (already sorted);
    # wide ranges go through factorize: the same pairs and numbers either way
    df = long_table(n=300, seed=4)
    case = df["case_id"].to_numpy()
    df["case_id"] = {
        "dense": case, "gaps": case * 3 + 7, "negative": case - 150,
        "uint8": (case % 250).astype(np.uint8), "sparse": case * 10**12,
    }[ids]  # fmt: skip
    if ids == "uint8":  # 250 distinct ids: keep one row per (case, model)
        df = df.drop_duplicates(["case_id", "model"])
    shuffled = df.sample(frac=1, random_state=2)
    low = int(df["case_id"].min())
    as_text = shuffled.assign(
        case_id=(shuffled["case_id"].astype(np.int64) - low).map("{:020d}".format)
    )
    kw = {"higher_is_better": True, "rng": 3, "n_resamples": 300, "unit": "case"}
    got = shuffled.paired.bootstrap("A", "B", **kw)
    cmp = shuffled.paired.compare("A", "B", higher_is_better=True)
    assert cmp.pairs.index.is_monotonic_increasing
    assert cmp.pairs.index.dtype == df["case_id"].dtype
    # zero-padded text of id - min sorts like the integers: the hashed path, same order
    assert numbers(got) == numbers(as_text.paired.bootstrap("A", "B", **kw))


def test_mixed_type_ids_are_refused_at_compare_and_tuples_work() -> None:
    df = long_table(n=6)
    mixed = df.astype({"case_id": object})
    mixed.loc[mixed["case_id"] == 3, "case_id"] = "3"
    with pytest.raises(PairingError, match="sortable case ids"):
        mixed.paired.compare("A", "B", higher_is_better=True)
    tuples = df.copy()
    tuples["case_id"] = [(int(i) % 2, int(i)) for i in df["case_id"]]
    pairs = tuples.paired.compare("A", "B", higher_is_better=True).pairs
    assert list(pairs.index) == sorted(pairs.index)


def test_rows_of_other_models_are_ignored_without_copying_the_rest() -> None:
    df = long_table(n=200)
    extra = df[df["model"] == "A"].assign(model="C", score=9.0)
    both = pd.concat([extra, df]).sample(frac=1, random_state=0)
    kw = {"higher_is_better": True, "rng": 1, "n_resamples": 200}
    assert numbers(both.paired.bootstrap("A", "B", **kw)) == numbers(
        df.paired.bootstrap("A", "B", **kw)
    )
