"""Per-slice analysis (``by_slice`` and ``SliceResult``) against independent oracles.

Every expected value is computed here without pdpaired's slice code:

* multiplicity: ``statsmodels.stats.multitest.multipletests`` with the method
  always given (its default is Holm-Sidak, not Holm);
* slice metrics: a manual pandas ``groupby`` (score mode) and scikit-learn
  ``roc_auc_score`` / ``log_loss`` / ``accuracy_score`` per slice (prediction
  mode);
* design: the slice's rows cut out of the long table by hand and analysed with
  the ordinary ``bootstrap`` / ``randomization`` using the slice's recorded
  seeds must give the identical interval and p-value; cluster intervals are
  compared with case intervals in distribution;
* heterogeneity: Cochran's Q recomputed from the slices' bootstrap replicates
  (regenerated from the recorded seeds), ``scipy.stats.chi2``; a slow
  type-I error simulation (tolerance 3 binomial standard errors) and a power
  check;
* the forest plot is rendered to PNG (Agg) and its Axes inspected: tick
  labels, positions, vertical lines, interval segments, points and colours.
"""

from __future__ import annotations

import base64
import io
import json
import math
import re
import warnings

# --------------------------------------------------------------------------- permutation test
from itertools import combinations
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.collections import LineCollection, PathCollection
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure
from scipy import stats
from sklearn import metrics as skm
from statsmodels.stats.multitest import multipletests

import pdpaired
from pdpaired import PairingError
from pdpaired._lib.rng import derived_seed, slice_index, stream_sequence
from pdpaired.core.multiplicity import adjust_pvalues
from pdpaired.core.slices import (
    permutation_heterogeneity,
    welch_heterogeneity,
)
from pdpaired.results.slices import SliceResult

METHODS = ("holm", "bonferroni", "fdr_bh")


PNG = b"\x89PNG\r\n\x1a\n"


FAST = {"n_resamples": 300, "n_permutations": 300}


# --------------------------------------------------------------------------- helpers
def slice_seeds(rng: int, column: str, value: Any) -> tuple[int, int]:
    """The internal seeds of a slice's bootstrap and randomization streams (the registry's)."""
    root = np.random.SeedSequence(rng)
    index = slice_index(column, value)
    return (
        derived_seed(root, "slice_bootstrap", *index),
        derived_seed(root, "slice_randomization", *index),
    )


def long(a: np.ndarray, b: np.ndarray, *, shuffle: int | None = 0, **cols: Any) -> pd.DataFrame:
    """Long table (case_id, model, score, extra per-case columns), rows shuffled."""
    n = len(a)
    ids = np.arange(n) * 7 + 3
    parts = []
    for name, s in (("A", a), ("B", b)):
        part = pd.DataFrame({"case_id": ids, "model": name, "score": np.asarray(s, float)})
        for k, v in cols.items():
            part[k] = np.asarray(v)
        parts.append(part)
    df = pd.concat(parts, ignore_index=True)
    if shuffle is not None:
        df = df.sample(frac=1.0, random_state=shuffle).reset_index(drop=True)
    return df


def sites_frame(
    n: int = 600, seed: int = 0, effects: dict[str, float] | None = None
) -> pd.DataFrame:
    """Score mode, one case-level slice column ``site`` with a small slice ``echo``."""
    rng = np.random.default_rng(seed)
    names = np.array(["alpha", "bravo", "charlie", "delta", "echo"], dtype=object)
    site = rng.choice(names, size=n, p=[0.3, 0.3, 0.2, 0.16, 0.04])
    eff = effects if effects is not None else {"alpha": 0.6}
    shift = np.array([eff.get(s, 0.0) for s in site])
    b = rng.normal(size=n)
    a = b + shift + rng.normal(0, 1, n)
    return long(a, b, site=site)


def clustered_frame(seed: int = 7) -> pd.DataFrame:
    """Groups with strong shared effects, strata, a group-level and a case-level slice.

    ``region`` is constant within groups (``west`` is one small group, below
    min_size 30); ``device`` varies within groups and is missing for ~10%.
    """
    rng = np.random.default_rng(seed)
    sizes = rng.integers(3, 12, size=60)
    sizes[-1] = 5
    group = np.repeat(np.arange(60), sizes)
    n = group.size
    region_of = np.array(["north", "south", "east"], dtype=object)[np.arange(60) % 3]
    region_of[-1] = "west"
    region = region_of[group]
    device = rng.choice(np.array(["phone", "desktop"], dtype=object), n)
    device[rng.uniform(size=n) < 0.1] = None
    u = rng.normal(0.1, 0.8, size=60)[group]
    b = rng.normal(size=n)
    a = b + u + rng.normal(0, 0.3, n)
    stratum = np.where(group % 2 == 0, "s0", "s1")
    return long(a, b, group=group, stratum=stratum, region=region, device=device)


def binary_frame(n: int = 400, seed: int = 0) -> pd.DataFrame:
    """Prediction mode: binary target, probabilities, slice ``ward`` (``icu`` all positive)."""
    rng = np.random.default_rng(seed)
    ward = rng.choice(np.array(["icu", "med", "surg", "ortho"], dtype=object), n,
                      p=[0.15, 0.35, 0.3, 0.2])  # fmt: skip
    y = (rng.uniform(size=n) < 0.4).astype(int)
    y[ward == "icu"] = 1
    z = rng.normal(size=(2, n))
    pa = np.round(1 / (1 + np.exp(-(1.5 * (2 * y - 1) + z[0]))), 2)
    pb = np.round(1 / (1 + np.exp(-(0.8 * (2 * y - 1) + z[1]))), 2)
    g = rng.integers(0, 90, n)
    df = pd.DataFrame(
        {
            "case_id": np.tile(np.arange(n), 2),
            "model": np.repeat(["A", "B"], n),
            "y": np.tile(y, 2),
            "p": np.concatenate([pa, pb]),
            "ward": np.tile(ward, 2),
            "grp": np.tile(g, 2),
        }
    )
    return df.sample(frac=1.0, random_state=1).reset_index(drop=True)


def per_case(df: pd.DataFrame, model: str) -> pd.DataFrame:
    return df[df["model"] == model].set_index("case_id").sort_index()


def row(res: SliceResult, column: str, value: Any) -> pd.Series:
    t = res.table
    if pd.isna(value):
        hit = t[(t["column"] == column) & t["value"].isna()]
    else:
        hit = t[(t["column"] == column) & (t["value"] == value)]
    assert len(hit) == 1, (column, value, t)
    return hit.iloc[0]


def is_red(color: Any) -> bool:
    r, g, b, _ = to_rgba(color)
    return r > 0.6 and g < 0.4 and b < 0.4


def vertical_lines(ax: Any) -> list[float]:
    """x positions of full-height vertical lines (axvline: constant x, y in axes 0..1)."""
    xs = []
    for line in ax.lines:
        x, y = np.asarray(line.get_xdata(), float), np.asarray(line.get_ydata(), float)
        if x.size == 2 and x[0] == x[1] and set(y.tolist()) == {0.0, 1.0}:
            xs.append(float(x[0]))
    return xs


@pytest.fixture(scope="module")
def two_columns() -> dict[str | None, SliceResult]:
    """Two slice columns, one skipped slice; every adjustment method, same seed."""
    df = sites_frame()
    rng = np.random.default_rng(5)
    case = per_case(df, "A")
    tier = pd.Series(rng.choice(["gold", "silver", "bronze"], len(case)), index=case.index)
    df["tier"] = df["case_id"].map(tier)
    cmp = df.paired.compare("A", "B", higher_is_better=True)
    return {
        m: cmp.by_slice(["site", "tier"], uncertainty=True, adjust=m, rng=11, **FAST)
        for m in (*METHODS, None)
    }


# --------------------------------------------------------------------------- 3. invariance
SLICE_KW: dict[str, Any] = {"uncertainty": True, "rng": 2024, "min_size": 30, **FAST}


# --------------------------------------------------------------------------- 6. forest plot, views
@pytest.fixture(scope="module")
def forest() -> SliceResult:
    df = sites_frame(seed=0)
    cmp = df.paired.compare("A", "B", higher_is_better=True)
    return cmp.by_slice("site", uncertainty=True, rng=1, practical_threshold=0.1, **FAST)


# --------------------------------------------------------------------------- 7. bad input
@pytest.fixture(scope="module")
def small_cmp() -> pdpaired.Comparison:
    rng = np.random.default_rng(0)
    n = 60
    b = rng.normal(size=n)
    return long(b + 0.1, b, site=rng.choice(["x", "y"], n)).paired.compare(
        "A", "B", higher_is_better=True
    )


# --------------------------------------------------------------------------- 8. heterogeneity
def homogeneous(rng: np.random.Generator, nper: int = 50, shift: float = 0.0) -> pd.DataFrame:
    """Four slices, the same true improvement 0.2 (slice ``a`` + shift), unequal noise."""
    k = 4
    site = np.repeat(np.array(["a", "b", "c", "d"]), nper)
    sd = np.repeat([0.5, 1.0, 1.5, 2.0], nper)
    b = rng.normal(size=k * nper)
    a = b + 0.2 + np.where(site == "a", shift, 0.0) + sd * rng.standard_t(5, k * nper)
    return long(a, b, shuffle=None, site=site)


# --------------------------------------------------------------------------- 1. multiplicity
@pytest.mark.parametrize("method", METHODS)
def test_adjust_pvalues_equals_statsmodels(method: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # multipletests' Holm branch runs a full gc.collect() on every call, 0.1 s in a
    # process holding a test session's objects; collecting changes no number
    import gc

    monkeypatch.setattr(gc, "collect", lambda generation=2: 0)
    rng = np.random.default_rng(2024)
    for _ in range(60):
        k = int(rng.integers(1, 40))
        p = rng.uniform(size=k)
        kind = rng.integers(0, 4)
        if kind == 1:
            p = np.round(p, 1)  # many ties
        elif kind == 2:
            p = p**6  # very small p-values
        elif kind == 3:
            p = np.round(p**3, 3)
        p[rng.uniform(size=k) < 0.15] = 1.0
        ours = adjust_pvalues(p, method)
        ref = multipletests(p, method=method)[1]
        np.testing.assert_array_equal(ours, ref, err_msg=f"{method}: {p.tolist()}")
        # also a list input, in the input order
        np.testing.assert_array_equal(adjust_pvalues(p.tolist(), method), ref)


def test_adjust_pvalues_fixed_cases() -> None:
    p = np.array([0.01, 0.04, 0.03, 1.0, 0.03])
    # Holm by hand: sorted 0.01, 0.03, 0.03, 0.04, 1 times 5, 4, 3, 2, 1 then running max
    np.testing.assert_allclose(adjust_pvalues(p, "holm"), [0.05, 0.12, 0.12, 1.0, 0.12])
    np.testing.assert_allclose(adjust_pvalues(p, "bonferroni"), [0.05, 0.2, 0.15, 1.0, 0.15])
    # BH by hand: p_(i) * m / i, running min from the top: 0.05, 0.05, 0.05, 0.05, 1
    np.testing.assert_allclose(adjust_pvalues(p, "fdr_bh"), [0.05, 0.05, 0.05, 1.0, 0.05])
    # Holm-Sidak (statsmodels' default) is different: not what "holm" means here
    q = p[p < 1]
    assert not np.allclose(adjust_pvalues(q, "holm"), multipletests(q)[1])


def test_adjust_none_leaves_pvalues_unchanged() -> None:
    p = np.array([0.3, 0.01, 1.0, 0.01])
    out = adjust_pvalues(p, None)
    np.testing.assert_array_equal(out, p)
    out[0] = 0.9
    assert p[0] == 0.3  # a copy, the input is not modified
    for m in (*METHODS, None):
        assert adjust_pvalues([], m).size == 0
        np.testing.assert_array_equal(adjust_pvalues([0.2], m), [0.2])


@pytest.mark.parametrize("method", [*METHODS, None])
def test_table_pvalue_adjusted_across_all_reported_slices(
    two_columns: dict[str | None, SliceResult], method: str | None
) -> None:
    res = two_columns[method]
    t = res.table
    rep = t["status"] == "reported"
    assert set(t.loc[rep, "column"]) == {"site", "tier"}  # one family across both columns
    assert (~rep).sum() == 1  # echo is skipped and is not part of the family
    raw = t.loc[rep, "pvalue"].to_numpy()
    expected = raw if method is None else multipletests(raw, method=method)[1]
    np.testing.assert_array_equal(t.loc[rep, "pvalue_adjusted"].to_numpy(), expected)
    assert t.loc[~rep, ["pvalue", "pvalue_adjusted", "ci_low", "ci_high"]].isna().all().all()
    # the raw p-values and intervals do not depend on the adjustment
    base = two_columns["holm"].table
    pd.testing.assert_frame_equal(
        t.drop(columns="pvalue_adjusted"), base.drop(columns="pvalue_adjusted")
    )
    assert res.adjust == method


# --------------------------------------------------------------------------- 2. metrics
@pytest.mark.parametrize("higher_is_better", [True, False])
def test_score_metrics_equal_manual_groupby(higher_is_better: bool) -> None:
    df = sites_frame(seed=3)
    # make one slice an exact tie: B's score copied to A on "delta"
    a_rows = (df["model"] == "A") & (df["site"] == "delta")
    b_score = per_case(df, "B")["score"]
    df.loc[a_rows, "score"] = df.loc[a_rows, "case_id"].map(b_score).to_numpy()
    res = df.paired.by_slice("A", "B", columns="site", higher_is_better=higher_is_better,
                             min_size=1)  # fmt: skip
    a, b = per_case(df, "A"), per_case(df, "B")
    mean_a = a.groupby("site")["score"].mean()
    mean_b = b.groupby("site")["score"].mean()
    size = a.groupby("site").size()
    assert list(res.table["value"]) == sorted(size.index)  # sorted slice values
    for value in size.index:
        r = row(res, "site", value)
        assert r["n"] == size[value]
        assert r["status"] == "reported"
        assert r["metric_a"] == pytest.approx(mean_a[value], rel=1e-13, abs=1e-15)
        assert r["metric_b"] == pytest.approx(mean_b[value], rel=1e-13, abs=1e-15)
        raw = mean_a[value] - mean_b[value]
        improvement = raw if higher_is_better else -raw
        assert r["improvement"] == pytest.approx(improvement, rel=1e-12, abs=1e-15)
        if value == "delta":
            assert r["improvement"] == 0.0
            assert r["winner"] == "tie"
        else:
            assert r["winner"] == ("A" if improvement > 0 else "B")
    # alpha has a +0.6 effect on the raw score: A wins if higher is better, else B
    assert row(res, "site", "alpha")["winner"] == ("A" if higher_is_better else "B")
    o = res.overall
    assert o["n"] == len(a)
    assert o["metric_a"] == pytest.approx(a["score"].mean(), rel=1e-13)
    assert o["improvement"] == pytest.approx(
        (a["score"].mean() - b["score"].mean()) * (1 if higher_is_better else -1), rel=1e-12
    )
    assert "ci_low" not in res.table.columns  # no uncertainty columns without uncertainty
    assert res.heterogeneity == {}


def test_weighting_group_is_mean_of_group_means_per_slice() -> None:
    df = clustered_frame()
    res = df.paired.by_slice("A", "B", columns="device", higher_is_better=True, min_size=1,
                             weighting="group")  # fmt: skip
    a, b = per_case(df, "A"), per_case(df, "B")
    for value in a["device"].unique():  # (pandas 2.2's groupby(dropna=False).groups fails)
        idx = a.index[a["device"].isna()] if pd.isna(value) else a.index[a["device"] == value]
        ma = a.loc[idx].groupby("group")["score"].mean().mean()
        mb = b.loc[idx].groupby("group")["score"].mean().mean()
        r = row(res, "device", value)
        assert r["metric_a"] == pytest.approx(ma, rel=1e-12)
        assert r["metric_b"] == pytest.approx(mb, rel=1e-12)
        assert r["improvement"] == pytest.approx(ma - mb, rel=1e-10, abs=1e-14)


@pytest.mark.parametrize(
    ("metric", "fn", "higher"),
    [
        ("auroc", skm.roc_auc_score, True),
        ("log_loss", lambda y, p: skm.log_loss(y, p, labels=[0, 1]), False),
        ("brier", skm.brier_score_loss, False),
        ("accuracy", lambda y, p: skm.accuracy_score(y, (p > 0.5).astype(int)), True),
    ],
)
def test_prediction_metrics_equal_sklearn_per_slice(metric: str, fn: Any, higher: bool) -> None:
    df = binary_frame()
    res = df.paired(target="y", prediction="p").by_slice("A", "B", columns="ward",
                                                         metric=metric, min_size=1)  # fmt: skip
    assert res.higher_is_better is higher
    a, b = per_case(df, "A"), per_case(df, "B")
    for value, idx in a.groupby("ward").groups.items():
        r = row(res, "ward", value)
        assert r["n"] == len(idx)
        if metric == "auroc" and value == "icu":
            continue  # one class only: see test_undefined_metric_slice
        ma = fn(a.loc[idx, "y"], a.loc[idx, "p"])
        mb = fn(b.loc[idx, "y"], b.loc[idx, "p"])
        assert r["status"] == "reported"
        assert r["metric_a"] == pytest.approx(ma, rel=1e-9)
        assert r["metric_b"] == pytest.approx(mb, rel=1e-9)
        improvement = (ma - mb) if higher else (mb - ma)  # lower is better flips the sign
        assert r["improvement"] == pytest.approx(improvement, rel=1e-7, abs=1e-12)
        assert r["winner"] == ("A" if improvement > 0 else "B" if improvement < 0 else "tie")


def test_multiclass_log_loss_per_slice() -> None:
    rng = np.random.default_rng(4)
    n, k = 300, 3
    y = rng.integers(0, k, n)
    site = rng.choice(["x", "y", "z"], n)
    frames = []
    for name, strength in (("A", 2.0), ("B", 1.0)):
        logits = rng.normal(size=(n, k)) + strength * np.eye(k)[y]
        prob = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
        f = pd.DataFrame(prob, columns=["p0", "p1", "p2"])
        f.insert(0, "site", site)
        f.insert(0, "y", y)
        f.insert(0, "model", name)
        f.insert(0, "case_id", np.arange(n))
        frames.append(f)
    df = pd.concat(frames, ignore_index=True)
    res = df.paired(target="y", prediction=["p0", "p1", "p2"]).by_slice(
        "A", "B", columns="site", metric="log_loss", min_size=1
    )
    a, b = per_case(df, "A"), per_case(df, "B")
    for value, idx in a.groupby("site").groups.items():
        la = skm.log_loss(a.loc[idx, "y"], a.loc[idx, ["p0", "p1", "p2"]], labels=[0, 1, 2])
        lb = skm.log_loss(b.loc[idx, "y"], b.loc[idx, ["p0", "p1", "p2"]], labels=[0, 1, 2])
        r = row(res, "site", value)
        assert r["improvement"] == pytest.approx(lb - la, rel=1e-7)
        assert r["winner"] == "A"


def test_slice_row_does_not_depend_on_other_slice_values() -> None:
    df = clustered_frame()
    full = df.paired.compare("A", "B", higher_is_better=True).by_slice("region", **SLICE_KW)
    # the same table without any case of region "east"
    fewer = df[df["region"] != "east"]
    part = fewer.paired.compare("A", "B", higher_is_better=True).by_slice("region", **SLICE_KW)
    assert "east" not in set(part.table["value"])
    keep = full.table["value"] != "east"
    pd.testing.assert_frame_equal(
        full.table.loc[keep].drop(columns="pvalue_adjusted").reset_index(drop=True),
        part.table.drop(columns="pvalue_adjusted").reset_index(drop=True),
    )
    # the family is smaller, so only the adjusted p-values may change
    assert (part.table["status"] == "reported").sum() == 2


def test_slice_row_does_not_depend_on_other_columns() -> None:
    df = clustered_frame()
    cmp = df.paired.compare("A", "B", higher_is_better=True)
    one = cmp.by_slice("region", **SLICE_KW)
    two = cmp.by_slice(["device", "region"], **SLICE_KW)
    assert list(two.table["column"].unique()) == ["device", "region"]  # in the order given
    sub = two.table[two.table["column"] == "region"].reset_index(drop=True)
    pd.testing.assert_frame_equal(
        one.table.drop(columns="pvalue_adjusted"), sub.drop(columns="pvalue_adjusted")
    )
    assert one.overall == two.overall
    assert one.heterogeneity["region"] == two.heterogeneity["region"]


def test_recorded_seeds_are_exact_even_with_skipped_slices() -> None:
    """A skipped slice (NaN seed) must not turn the 63-bit seeds into rounded floats."""
    df = sites_frame()
    cmp = df.paired.compare("A", "B", higher_is_better=True)
    big = 2**63 - 25  # a 63-bit seed: rounded if the column were float
    with_skip = cmp.by_slice("site", **{**SLICE_KW, "rng": big})  # echo (n ~ 24) is skipped
    no_skip = cmp.by_slice("site", **{**SLICE_KW, "rng": big, "min_size": 1})
    assert row(with_skip, "site", "echo")["status"] == "skipped"
    assert pd.isna(row(with_skip, "site", "echo")["seed"])
    for value in ("alpha", "bravo", "charlie", "delta"):
        r1, r2 = row(with_skip, "site", value), row(no_skip, "site", value)
        assert int(r1["seed"]) == int(r2["seed"]) == big, (value, r1["seed"], r2["seed"])
        for key in ("stream_bootstrap", "stream_randomization"):
            assert r1[key] == r2[key], (value, key, r1[key], r2[key])
        assert r1["stream_bootstrap"] == f"slice:site={value}:bootstrap"
        # and the slice's own stream reproduces the slice on its own
        sub = df[df["site"] == value].paired.compare("A", "B", higher_is_better=True)
        bs = sub.bootstrap(n_resamples=FAST["n_resamples"], rng=slice_seeds(big, "site", value)[0])
        assert (bs.confidence_interval.low, bs.confidence_interval.high) == (
            r1["ci_low"],
            r1["ci_high"],
        )
    d = with_skip.to_dict()
    seeds = [s["seed"] for s in d["slices"] if s["status"] == "reported"]
    assert all(isinstance(s, int) and s == big for s in seeds), seeds


def test_new_missing_slice_does_not_change_integer_slices() -> None:
    """One more case whose (integer) slice value is missing adds a slice, nothing else.

    pandas stores an integer column with a missing value as float64; fold 1 is
    still fold 1, so its interval and p-value must not change.
    """
    rng = np.random.default_rng(0)
    n = 300
    b = rng.normal(size=n)
    df = long(b + rng.normal(0.1, 1, n), b, fold=rng.integers(0, 3, n))
    extra = long(np.array([0.3]), np.array([0.1]), fold=np.array([np.nan]), shuffle=None)
    extra["case_id"] = 10**6
    more = pd.concat([df, extra], ignore_index=True)
    assert more["fold"].dtype == np.float64
    kw: dict[str, Any] = {**SLICE_KW, "min_size": 1}
    r1 = df.paired.by_slice("A", "B", columns="fold", higher_is_better=True, **kw)
    r2 = more.paired.by_slice("A", "B", columns="fold", higher_is_better=True, **kw)
    assert len(r2.table) == len(r1.table) + 1
    for value in (0, 1, 2):
        x, y = row(r1, "fold", value), row(r2, "fold", value)
        assert x["n"] == y["n"]
        assert (x["ci_low"], x["ci_high"], x["pvalue"]) == (y["ci_low"], y["ci_high"], y["pvalue"])


def test_same_seed_same_result_and_seed_recorded() -> None:
    df = clustered_frame()
    cmp = df.paired.compare("A", "B", higher_is_better=True)
    kw = {"uncertainty": True, **FAST}
    r1 = cmp.by_slice(["region", "device"], rng=9, **kw)
    r2 = cmp.by_slice(["region", "device"], rng=9, **kw)
    pd.testing.assert_frame_equal(r1.table, r2.table)
    assert r1.overall == r2.overall
    assert r1.heterogeneity == r2.heterogeneity
    assert r1.seed == 9
    other = cmp.by_slice(["region", "device"], rng=10, **kw)
    rep = r1.table["status"] == "reported"
    assert not np.array_equal(r1.table.loc[rep, "ci_low"], other.table.loc[rep, "ci_low"])
    # rng=None draws a seed and records it; rng=result.seed reproduces the result
    fresh = cmp.by_slice("region", rng=None, **kw)
    assert isinstance(fresh.seed, int)
    again = cmp.by_slice("region", rng=fresh.seed, **kw)
    pd.testing.assert_frame_equal(fresh.table, again.table)
    # two generators in the same state give the same result; the seed is then None
    g1 = cmp.by_slice("region", rng=np.random.default_rng(3), **kw)
    g2 = cmp.by_slice("region", rng=np.random.default_rng(3), **kw)
    pd.testing.assert_frame_equal(g1.table, g2.table)
    assert g1.seed is None
    assert g1.rng_state == np.random.default_rng(3).bit_generator.state


def test_row_order_batch_and_one_call_form_do_not_change_results() -> None:
    df = clustered_frame()
    kw: dict[str, Any] = {"uncertainty": True, "rng": 4, **FAST}
    ref = df.paired.compare("A", "B", higher_is_better=True).by_slice(["region", "device"], **kw)
    shuffled = df.sample(frac=1.0, random_state=99).reset_index(drop=True)
    variants = [
        shuffled.paired.compare("A", "B", higher_is_better=True).by_slice(
            ["region", "device"], **kw
        ),
        df.paired.compare("A", "B", higher_is_better=True).by_slice(
            ["region", "device"], batch=17, **kw
        ),
        df.paired.by_slice("A", "B", columns=["region", "device"], higher_is_better=True, **kw),
    ]
    for res in variants:
        pd.testing.assert_frame_equal(ref.table, res.table)
        assert ref.overall == res.overall
        assert ref.heterogeneity == res.heterogeneity


def test_input_frame_not_modified() -> None:
    df = clustered_frame()
    before = df.copy()
    df.paired.by_slice("A", "B", columns=["region", "device"], higher_is_better=True,
                       uncertainty=True, rng=0, n_resamples=50, n_permutations=50)  # fmt: skip
    pd.testing.assert_frame_equal(df, before)


# --------------------------------------------------------------------------- 4. skipped slices
def test_small_slices_listed_as_skipped_with_their_size() -> None:
    df = sites_frame()
    res = df.paired.by_slice("A", "B", columns="site", higher_is_better=True, min_size=30,
                             uncertainty=True, rng=0, **FAST)  # fmt: skip
    sizes = per_case(df, "A")["site"].value_counts()
    assert sizes["echo"] < 30 <= sizes.drop("echo").min()
    assert set(res.table["value"]) == set(sizes.index)  # nothing dropped
    assert res.table["n"].sum() == len(per_case(df, "A"))
    r = row(res, "site", "echo")
    assert r["status"] == "skipped"
    assert r["n"] == sizes["echo"]
    assert r[["metric_a", "metric_b", "improvement", "ci_low", "pvalue"]].isna().all()
    text = str(res)
    assert re.search(rf"skipped: site = echo \(n={sizes['echo']}, below min_size=30\)", text)
    # a bigger min_size skips more; min_size=1 skips nothing
    big = df.paired.by_slice("A", "B", columns="site", higher_is_better=True,
                             min_size=int(sizes.max()) + 1)  # fmt: skip
    assert (big.table["status"] == "skipped").all()
    assert list(big.table["n"]) == [sizes[v] for v in big.table["value"]]
    assert big.overall["n"] == len(per_case(df, "A"))
    small = df.paired.by_slice("A", "B", columns="site", higher_is_better=True, min_size=1)
    assert (small.table["status"] == "reported").all()


def test_missing_slice_values_form_their_own_slice() -> None:
    rng = np.random.default_rng(8)
    n = 400
    b = rng.normal(size=n)
    a = b + rng.normal(0.2, 1, n)
    num = rng.choice([1.0, 2.0, 3.0, np.nan], n, p=[0.3, 0.3, 0.25, 0.15])
    text = rng.choice(np.array(["p", "q", None], dtype=object), n, p=[0.45, 0.4, 0.15])
    df = long(a, b, num=num, text=text)
    res = df.paired.by_slice("A", "B", columns=["num", "text"], higher_is_better=True,
                             min_size=10, uncertainty=True, rng=1, **FAST)  # fmt: skip
    ca, cb = per_case(df, "A"), per_case(df, "B")
    for column in ("num", "text"):
        miss = ca[column].isna()
        r = row(res, column, np.nan)
        assert r["n"] == miss.sum()
        assert r["status"] == "reported"
        assert r["metric_a"] == pytest.approx(ca.loc[miss, "score"].mean(), rel=1e-12)
        assert r["metric_b"] == pytest.approx(cb.loc[miss, "score"].mean(), rel=1e-12)
        assert np.isfinite(r["ci_low"])
        assert np.isfinite(r["pvalue"])
        sub = res.table[res.table["column"] == column]
        assert sub["n"].sum() == n
        assert sub["value"].isna().sum() == 1
        present = sub["value"].dropna().tolist()
        assert present == sorted(present)
    assert "<missing>" in str(res)
    values = [s["value"] for s in res.to_dict()["slices"]]
    assert values.count("<missing>") == 2


def test_undefined_metric_slice() -> None:
    df = binary_frame()
    res = df.paired(target="y", prediction="p").by_slice(
        "A", "B", columns="ward", metric="auroc", min_size=1, uncertainty=True, rng=0, **FAST
    )
    icu = row(res, "ward", "icu")
    assert icu["status"] == "undefined"
    assert icu["n"] == (per_case(df, "A")["ward"] == "icu").sum()
    assert pd.isna(icu["ci_low"])
    assert pd.isna(icu["pvalue"])
    assert pd.isna(icu["pvalue_adjusted"])
    rep = res.table["status"] == "reported"
    assert rep.sum() == 3
    # the undefined slice is not in the multiplicity family
    np.testing.assert_array_equal(
        res.table.loc[rep, "pvalue_adjusted"],
        multipletests(res.table.loc[rep, "pvalue"], method="holm")[1],
    )
    assert "icu" in str(res)
    assert "metric undefined" in str(res)
    assert all("icu" not in t.get_text() for t in res.plot().get_yticklabels())


# --------------------------------------------------------------------------- 5. design
def test_slice_intervals_are_the_slice_analysed_alone_with_its_seeds() -> None:
    """Cluster + strata: each row equals bootstrap/randomization of the hand-cut subset."""
    df = clustered_frame()
    cmp = df.paired.compare("A", "B", higher_is_better=True)
    res = cmp.by_slice(["region", "device"], uncertainty=True, rng=77, **FAST)
    reported = res.table[res.table["status"] == "reported"]
    assert len(reported) == 6
    for _, r in reported.iterrows():
        col = df[r["column"]]
        sub = df[col.isna()] if pd.isna(r["value"]) else df[col == r["value"]]
        c = sub.paired.compare("A", "B", higher_is_better=True)
        s_boot, s_rand = slice_seeds(77, r["column"], r["value"])
        bs = c.bootstrap(n_resamples=FAST["n_resamples"], rng=s_boot)
        rz = c.randomization(n_permutations=FAST["n_permutations"], rng=s_rand)
        assert bs.sampling == "stratified-cluster"
        assert rz.unit == "group"
        assert bs.confidence_interval.low == r["ci_low"]
        assert bs.confidence_interval.high == r["ci_high"]
        assert rz.pvalue == r["pvalue"]
        assert bs.improvement == pytest.approx(r["improvement"], rel=1e-12)
    # the overall row is the ordinary bootstrap of the whole comparison
    o = res.overall
    bs = cmp.bootstrap(n_resamples=FAST["n_resamples"], rng=slice_seeds(77, "", "\x00overall")[0])
    assert (bs.confidence_interval.low, bs.confidence_interval.high) == (o["ci_low"], o["ci_high"])
    # the streams differ between slices and between bootstrap and randomization
    streams = [*reported["stream_bootstrap"], *reported["stream_randomization"],
               o["stream_bootstrap"]]  # fmt: skip
    assert len(set(streams)) == len(streams)
    cells = zip(reported["column"], reported["value"], strict=True)
    seeds = [*(s for c, v in cells for s in slice_seeds(77, c, v)),
             slice_seeds(77, "", "\x00overall")[0]]  # fmt: skip
    assert len(set(seeds)) == len(seeds)


@pytest.mark.parametrize("design", [{}, {"group": "grp"}])
def test_prediction_slices_use_the_overall_design(design: dict[str, str]) -> None:
    df = binary_frame()
    acc = df.paired(target="y", prediction="p", **design)
    res = acc.by_slice("A", "B", columns="ward", metric="auroc", min_size=1,
                       uncertainty=True, rng=3, **FAST)  # fmt: skip
    reported = res.table[res.table["status"] == "reported"]
    for _, r in reported.iterrows():
        sub = df[df["ward"] == r["value"]]
        c = sub.paired(target="y", prediction="p", **design).compare("A", "B", metric="auroc")
        s_boot, s_rand = slice_seeds(3, "ward", r["value"])
        bs = c.bootstrap(n_resamples=FAST["n_resamples"], rng=s_boot)
        rz = c.randomization(n_permutations=FAST["n_permutations"], rng=s_rand)
        assert bs.sampling == ("cluster" if design else "target-stratified")
        assert (bs.confidence_interval.low, bs.confidence_interval.high) == (
            r["ci_low"],
            r["ci_high"],
        )
        assert rz.pvalue == r["pvalue"]


def test_cluster_slice_intervals_wider_than_case_intervals() -> None:
    """Strong shared group effects: intervals must reflect the clusters (in distribution)."""
    df = clustered_frame()
    cmp = df.paired.compare("A", "B", higher_is_better=True)
    kw: dict[str, Any] = {"uncertainty": True, "rng": 1, "n_resamples": 1000, "n_permutations": 50}
    by_group = cmp.by_slice(["region", "device"], **kw)
    by_case = cmp.by_slice(["region", "device"], unit="case", **kw)
    t = by_group.table
    rep = t["status"] == "reported"
    ratio = (t["ci_high"] - t["ci_low"]) / (by_case.table["ci_high"] - by_case.table["ci_low"])
    # region is constant within groups: between-group sd 0.8 vs within 0.3 and ~7 cases
    # per group give a design effect of ~20, the cluster interval is > 2x as wide (far
    # beyond MC noise at R = 1000); device cuts across groups, a smaller but real effect
    assert (ratio[rep & (t["column"] == "region")] > 1.8).all(), ratio.tolist()
    assert (ratio[rep & (t["column"] == "device")] > 1.1).all(), ratio.tolist()
    # and it matches the spread of slice estimates over resampled *groups* (by hand)
    rng = np.random.default_rng(0)
    a, b = per_case(df, "A"), per_case(df, "B")
    d = (a["score"] - b["score"]).to_frame("d").join(a[["group", "stratum", "region"]])
    north = d[d["region"] == "north"]
    sums = north.groupby("group")["d"].agg(["sum", "count"])
    strat = north.groupby("group")["stratum"].first()
    reps = []
    for _ in range(2000):
        parts = []
        for h in ("s0", "s1"):
            gs = strat.index[strat == h].to_numpy()
            parts.append(sums.loc[rng.choice(gs, gs.size)])
        s = pd.concat(parts)
        reps.append(s["sum"].sum() / s["count"].sum())
    lo, hi = np.quantile(reps, [0.025, 0.975])
    r = row(by_group, "region", "north")
    # widths agree within 20% (MC error of a 95% percentile width at R = 1000 is ~5%)
    assert (r["ci_high"] - r["ci_low"]) == pytest.approx(hi - lo, rel=0.2)


@pytest.mark.parametrize("alpha", [0.05, 0.5])
def test_forest_plot_structure(forest: SliceResult, alpha: float) -> None:
    plt.close("all")
    res = forest
    t = res.table
    rep = t[t["status"] == "reported"].reset_index(drop=True)
    assert len(rep) == 4
    assert (t["status"] == "skipped").sum() == 1
    ax = res.plot(alpha=alpha)
    assert ax is plt.gca()  # pyplot's current Axes: shows inline in Jupyter, with plt.show()
    assert plt.get_fignums() == [ax.figure.number]
    buf = io.BytesIO()
    ax.figure.savefig(buf, format="png")
    assert buf.getvalue().startswith(PNG)

    ticks = ax.get_yticklabels()
    labels = [tk.get_text() for tk in ticks]
    ys = [float(y) for y in ax.get_yticks()]
    assert len(labels) == len(rep) + 1
    assert len(set(ys)) == len(ys)
    # the overall row is last and at the bottom
    assert labels[-1] == f"overall (n={res.overall['n']})"
    assert ys[-1] == min(ys)
    # slices in table order, top to bottom, labelled with value and size; skipped absent
    assert ys[:-1] == sorted(ys[:-1], reverse=True)
    y_of = {}
    for (_, r), text, y in zip(rep.iterrows(), labels[:-1], ys[:-1], strict=True):
        assert r["value"] in text, (text, r["value"])
        assert f"n={r['n']}" in text, (text, r["n"])
        y_of[r["value"]] = y
    assert all("echo" not in text for text in labels)
    # vertical lines: zero and the practical threshold
    xs = vertical_lines(ax)
    assert 0.0 in xs
    assert 0.1 in xs
    # highlighted (red) labels exactly for adjusted p < alpha; the overall row never
    hot = set(rep.loc[rep["pvalue_adjusted"] < alpha, "value"])
    assert hot
    assert hot != set(rep["value"])
    for (_, r), tk in zip(rep.iterrows(), ticks[:-1], strict=True):
        assert is_red(tk.get_color()) == (r["value"] in hot), (r["value"], tk.get_color())
    assert not is_red(ticks[-1].get_color())
    # interval segments at each row: [ci_low, ci_high] (overall included)
    segs = [s for c in ax.collections if isinstance(c, LineCollection) for s in c.get_segments()]
    by_y = {float(s[0][1]): (float(s[0][0]), float(s[1][0])) for s in segs}
    for value, y in y_of.items():
        r = row(res, "site", value)
        assert by_y[y] == pytest.approx((r["ci_low"], r["ci_high"]), rel=1e-12)
    assert by_y[ys[-1]] == pytest.approx((res.overall["ci_low"], res.overall["ci_high"]))
    # points at the improvements
    pts = np.concatenate([c.get_offsets() for c in ax.collections if isinstance(c, PathCollection)])
    for value, y in y_of.items():
        imp = row(res, "site", value)["improvement"]
        assert np.any(np.isclose(pts[:, 0], imp) & (pts[:, 1] == y)), value
    assert np.any(np.isclose(pts[:, 0], res.overall["improvement"]) & (pts[:, 1] == ys[-1]))


def test_forest_plot_options_and_given_axes(forest: SliceResult) -> None:
    plt.close("all")
    fig = Figure()
    ax0 = fig.add_subplot()
    ax = forest.plot(ax=ax0, highlight=False)
    assert ax is ax0
    assert not any(is_red(tk.get_color()) for tk in ax.get_yticklabels())
    assert plt.get_fignums() == []
    # threshold 0: a line at zero only
    df = sites_frame(seed=0)
    plain_res = df.paired.by_slice("A", "B", columns="site", higher_is_better=True)
    plt.close("all")
    ax = plain_res.plot()
    assert ax is plt.gca()
    assert vertical_lines(ax) == [0.0]
    # without uncertainty: points, no interval segments, no highlight
    assert not any(isinstance(c, LineCollection) for c in ax.collections)
    assert len(ax.get_yticklabels()) == (plain_res.table["status"] == "reported").sum() + 1
    assert not any(is_red(tk.get_color()) for tk in ax.get_yticklabels())
    assert plt.get_fignums() == [ax.figure.number]


def test_forest_plot_several_columns_and_nothing_reported() -> None:
    df = clustered_frame()
    res = df.paired.by_slice("A", "B", columns=["region", "device"], higher_is_better=True,
                             uncertainty=True, rng=0, **FAST)  # fmt: skip
    labels = [tk.get_text() for tk in res.plot().get_yticklabels()]
    plt.close("all")
    rep = res.table[res.table["status"] == "reported"]
    assert len(labels) == len(rep) + 1
    assert any(text.startswith("region = north") for text in labels)
    assert any(text.startswith("device = <missing>") for text in labels)
    # every slice skipped: the plot still shows the overall row
    none = df.paired.by_slice("A", "B", columns="region", higher_is_better=True, min_size=10**6)
    plt.close("all")
    assert [tk.get_text() for tk in none.plot().get_yticklabels()] == [
        f"overall (n={none.overall['n']})"
    ]


def test_repr_html_has_table_and_inline_png(forest: SliceResult) -> None:
    plt.close("all")
    html = forest._repr_html_()
    assert plt.get_fignums() == []
    assert "<table" in html
    assert "</table>" in html
    # one html row per table row, plus the header and the overall row
    assert html.count("<tr>") == len(forest.table) + 2
    m = re.search(r"<img[^>]*src=['\"]data:image/png;base64,([A-Za-z0-9+/=]+)['\"]", html)
    assert m is not None
    assert base64.b64decode(m.group(1)).startswith(PNG)
    for value in forest.table["value"]:
        assert f">{value}<" in html


def html_rows(page: str) -> list[list[str]]:
    """The cells of each body row of a slice table's HTML."""
    return [re.findall(r"<td>(.*?)</td>", row) for row in re.findall(r"<tr>(.*?)</tr>", page)[1:]]


def test_repr_html_ends_with_the_overall_row_and_its_verdict(forest: SliceResult) -> None:
    page = forest._repr_html_()
    header = re.findall(r"<th>(.*?)</th>", page)
    assert header[-1] == "verdict"
    rows = html_rows(page)
    # every slice's verdict, as the table holds it (none for a skipped slice)
    verdicts = forest.table["verdict"]
    assert [r[-1] for r in rows[:-1]] == ["" if v is pd.NA else v for v in verdicts]
    o = forest.overall
    assert o["verdict"] in ("a_better", "b_better", "equivalent", "inconclusive", "undetermined")
    assert rows[-1] == [
        "overall", "", str(o["n"]), "", f"{o['metric_a']:.4g}", f"{o['metric_b']:.4g}",
        f"{o['improvement']:+.4g}", "", f"{o['ci_low']:+.4g}", f"{o['ci_high']:+.4g}", "",
        o["verdict"],
    ]  # fmt: skip
    # the same verdict as the overall row of the text view
    (text_row,) = [ln for ln in str(forest).splitlines() if ln.startswith("  overall ")]
    assert text_row.split()[-1] == o["verdict"]


def test_repr_html_overall_row_without_uncertainty() -> None:
    res = sites_frame(seed=0).paired.by_slice("A", "B", columns="site", higher_is_better=True)
    o = res.overall
    assert html_rows(res._repr_html_())[-1] == [
        "overall", "", str(o["n"]), "", f"{o['metric_a']:.4g}", f"{o['metric_b']:.4g}",
        f"{o['improvement']:+.4g}", "",
    ]  # fmt: skip


def test_repr_html_escapes_slice_values() -> None:
    rng = np.random.default_rng(0)
    n = 80
    b = rng.normal(size=n)
    df = long(b + 0.1, b, tag=np.where(np.arange(n) < 40, "<b>x</b>", "a&b"))
    res = df.paired.by_slice("A", "B", columns="tag", higher_is_better=True)
    html = res._repr_html_()
    assert "<b>x</b>" not in html
    assert "&lt;b&gt;x&lt;/b&gt;" in html
    assert "a&amp;b" in html


def test_to_dict_json_safe_and_to_frame_a_copy() -> None:
    df = binary_frame()
    df["num"] = df["case_id"].map(lambda i: np.nan if i % 9 == 0 else float(i % 3))
    res = df.paired(target="y", prediction="p").by_slice(
        "A", "B", columns=["ward", "num"], metric="auroc", min_size=50, uncertainty=True,
        rng=0, **FAST,
    )  # fmt: skip
    statuses = set(res.table["status"])
    assert statuses == {"reported", "skipped", "undefined"}
    d = res.to_dict()
    text = json.dumps(d, allow_nan=False)
    back = json.loads(text)
    assert len(back["slices"]) == len(res.table)
    assert back["seed"] == 0
    assert back["adjust"] == "holm"
    assert back["columns"] == ["ward", "num"]
    for s, (_, r) in zip(back["slices"], res.table.iterrows(), strict=True):
        assert s["n"] == r["n"]
        assert s["status"] == r["status"]
        if r["status"] == "reported":
            assert s["ci_low"] == r["ci_low"]
            assert s["pvalue_adjusted"] == r["pvalue_adjusted"]
        else:
            assert s["ci_low"] is None
            assert s["improvement"] is None
    assert back["overall"]["ci_low"] == res.overall["ci_low"]
    # to_frame: the table, as a copy
    frame = res.to_frame()
    pd.testing.assert_frame_equal(frame, res.table)
    frame.loc[:, "n"] = -1
    frame.loc[0, "status"] = "edited"
    assert (res.table["n"] > 0).all()
    assert "edited" not in set(res.table["status"])


def test_text_view() -> None:
    df = sites_frame()
    res = df.paired.by_slice("A", "B", columns="site", higher_is_better=True,
                             uncertainty=True, rng=0, **FAST)  # fmt: skip
    text = str(res)
    lines = text.splitlines()
    assert any(line.strip().startswith("overall") for line in lines)
    for value in ("alpha", "bravo", "charlie", "delta"):
        row = next(line for line in lines if f"site = {value}" in line)
        assert "[" in row  # its interval
        assert row.split()[-1] in pdpaired.results.verdict.VERDICTS
    assert "95% CI" in lines[1]  # the header names the columns
    assert "heterogeneity across site" in text
    assert "exploratory" in text
    assert "holm" in text
    assert "SliceResult(" in repr(res)
    assert "skipped=1" in repr(res)


def test_unknown_slice_column(small_cmp: pdpaired.Comparison) -> None:
    with pytest.raises(PairingError, match="required columns") as info:
        small_cmp.by_slice("nope")
    assert info.value.rule == "required columns"
    assert "nope" in str(info.value)
    with pytest.raises(PairingError, match="required columns"):
        small_cmp.by_slice(["site", "nope"])


def test_slice_column_varying_within_a_case() -> None:
    rng = np.random.default_rng(0)
    n = 80
    b = rng.normal(size=n)
    df = long(b + 0.1, b, site=rng.choice(["x", "y"], n), shuffle=None)
    bad = [3 + 7 * 5, 3 + 7 * 17, 3 + 7 * 60]  # case ids (ids are 7 i + 3)
    df.loc[df["case_id"].isin(bad) & (df["model"] == "B"), "site"] = "other"
    # a third model's rows do not matter: only A's and B's rows must agree
    extra = df[df["model"] == "A"].assign(model="C", site="zzz")
    df = pd.concat([df, extra], ignore_index=True)
    cmp = df.paired.compare("A", "B", higher_is_better=True)
    with pytest.raises(PairingError, match="constant within a case") as info:
        cmp.by_slice("site")
    err = info.value
    assert "site" in err.rule
    assert "constant within a case" in err.rule
    for case in bad:
        assert str(case) in str(err)
    assert "3 case" in str(err)
    assert sorted(err.failure_cases["index"].tolist()) == bad
    # a missing value on one side only is also a disagreement
    df2 = long(b + 0.1, b, site=rng.choice(["x", "y"], n), shuffle=None)
    df2["site"] = df2["site"].astype(object)
    df2.loc[(df2["case_id"] == bad[0]) & (df2["model"] == "A"), "site"] = None
    with pytest.raises(PairingError, match=str(bad[0])):
        df2.paired.by_slice("A", "B", columns="site", higher_is_better=True)


@pytest.mark.parametrize("min_size", [0, -3, 2.5, 30.0, "30", None, True])
def test_bad_min_size(small_cmp: pdpaired.Comparison, min_size: Any) -> None:
    with pytest.raises(ValueError, match="min_size"):
        small_cmp.by_slice("site", min_size=min_size)


def test_min_size_accepts_numpy_int(small_cmp: pdpaired.Comparison) -> None:
    res = small_cmp.by_slice("site", min_size=np.int64(5))
    assert res.min_size == 5
    assert (res.table["status"] == "reported").all()


@pytest.mark.parametrize("adjust", ["hs", "BH", "fdr_by", "sidak", "", 0.05])
def test_bad_adjust(small_cmp: pdpaired.Comparison, adjust: Any) -> None:
    with pytest.raises(ValueError, match="adjust"):
        small_cmp.by_slice("site", adjust=adjust, uncertainty=True, **FAST)


@pytest.mark.parametrize("columns", [5, None, 3.0, [], ["site", "site"], ["site", 1]])
def test_bad_columns(small_cmp: pdpaired.Comparison, columns: Any) -> None:
    with pytest.raises(TypeError):
        small_cmp.by_slice(columns)


def test_model_and_case_columns_are_not_slices(small_cmp: pdpaired.Comparison) -> None:
    for column in ("case_id", "model"):
        with pytest.raises(ValueError, match="slice"):
            small_cmp.by_slice(column)


def test_bad_other_keywords(small_cmp: pdpaired.Comparison) -> None:
    with pytest.raises(TypeError, match="uncertainty"):
        small_cmp.by_slice("site", uncertainty="yes")
    with pytest.raises(ValueError, match="confidence_level"):
        small_cmp.by_slice("site", uncertainty=True, confidence_level=95, **FAST)
    with pytest.raises(ValueError, match="practical_threshold"):
        small_cmp.by_slice("site", practical_threshold=-0.1)
    with pytest.raises(ValueError, match="group"):
        small_cmp.by_slice("site", uncertainty=True, unit="group", **FAST)


def test_heterogeneity_statistic_equals_cochran_q_from_slice_bootstraps() -> None:
    df = homogeneous(np.random.default_rng(3), shift=0.5)
    kw: dict[str, Any] = {"uncertainty": True, "rng": 21, "n_resamples": 400, "n_permutations": 9}
    res = df.paired.by_slice("A", "B", columns="site", higher_is_better=True, **kw)
    h = res.heterogeneity["site"]
    theta, reps = [], []
    for _, r in res.table.iterrows():
        sub = df[df["site"] == r["value"]].paired.compare("A", "B", higher_is_better=True)
        bs = sub.bootstrap(n_resamples=400, rng=slice_seeds(21, "site", r["value"])[0])
        theta.append(r["improvement"])
        reps.append(bs.bootstrap_distribution)
    theta_a = np.array(theta)
    w = 1.0 / np.array([np.var(x, ddof=1) for x in reps])
    pooled = np.sum(w * theta_a) / np.sum(w)
    q = float(np.sum(w * (theta_a - pooled) ** 2))
    assert h["statistic"] == pytest.approx(q, rel=1e-9)
    assert h["df"] == 3
    assert h["n_slices"] == 4
    assert h["pvalue_chi2"] == pytest.approx(stats.chi2.sf(q, 3), rel=1e-9)
    # Welch's (1951) test on the unbiased variances (the iid bootstrap's times
    # n / (n - 1)), each with n - 1 degrees of freedom, written out here
    nu = np.array([(df["site"] == v).sum() / 2 - 1 for v in res.table["value"]])
    wu = 1.0 / (np.array([np.var(x, ddof=1) for x in reps]) * (nu + 1) / nu)
    mu = np.sum(wu * theta_a) / wu.sum()
    lam = np.sum((1 - wu / wu.sum()) ** 2 / nu)
    f = np.sum(wu * (theta_a - mu) ** 2) / 3 / (1 + 2 * 2 / 15 * lam)
    assert h["statistic_welch"] == pytest.approx(f, rel=1e-9)
    assert h["df2"] == pytest.approx(15 / (3 * lam), rel=1e-9)
    assert h["pvalue_welch"] == pytest.approx(stats.f.sf(f, 3, 15 / (3 * lam)), rel=1e-9)
    # score mode: `pvalue` is the permutation test, with n_permutations = 9 here
    assert h["n_permutations"] == 9
    assert h["pvalue"] in {j / 10 for j in range(1, 11)}


def test_heterogeneity_rejects_a_strongly_different_slice() -> None:
    df = homogeneous(np.random.default_rng(5), nper=80, shift=-1.5)
    res = df.paired.by_slice(
        "A", "B", columns="site", higher_is_better=True, uncertainty=True, rng=0,
        n_resamples=500, n_permutations=99,
    )  # fmt: skip
    h = res.heterogeneity["site"]
    assert h["pvalue"] <= 0.01
    assert h["pvalue_chi2"] < 1e-4
    assert row(res, "site", "a")["winner"] == "B"


def test_heterogeneity_only_with_two_reported_slices() -> None:
    df = sites_frame()
    size = per_case(df, "A")["site"].value_counts()
    res = df.paired.by_slice("A", "B", columns="site", higher_is_better=True,
                             min_size=int(size.iloc[1]) + 1, uncertainty=True, rng=0,
                             **FAST)  # fmt: skip
    assert (res.table["status"] == "reported").sum() == 1
    assert res.heterogeneity == {}


def slices_frame(rng: np.random.Generator, kind: str, k: int = 6, n: int = 40) -> pd.DataFrame:
    site = np.repeat([f"s{i}" for i in range(k)], n)
    total = k * n
    if kind == "binary":  # 0/1 scores, both models right 70% of the time
        a = (rng.uniform(size=total) < 0.7).astype(float)
        b = (rng.uniform(size=total) < 0.7).astype(float)
    else:  # skewed continuous differences
        b = rng.normal(size=total)
        a = b + rng.exponential(1.0, total) - 1.0
    return pd.DataFrame(
        {
            "case_id": np.tile(np.arange(total), 2),
            "model": np.repeat(["A", "B"], total),
            "score": np.concatenate([a, b]),
            "site": np.tile(site, 2),
        }
    )


def studentized_q(d_by_slice: list[np.ndarray]) -> float:
    """Q with each slice weighted by n_k / var(d_k, ddof=1), written out from its definition."""
    theta = np.array([x.mean() for x in d_by_slice])
    w = np.array([x.size / x.var(ddof=1) for x in d_by_slice])
    mu = (w * theta).sum() / w.sum()
    return float((w * (theta - mu) ** 2).sum())


def diffs(df: pd.DataFrame) -> pd.DataFrame:
    wide = df.pivot(index="case_id", columns="model", values="score")
    site = df.drop_duplicates("case_id").set_index("case_id")["site"]
    return pd.DataFrame({"d": wide["A"] - wide["B"], "site": site})


class TestHeterogeneity:
    """Heterogeneity across slices at its nominal level.

    Oracles: Welch's (1951) formula written out here, and type-I simulations on
    null designs of six slices of 40 cases, with tolerances from their
    binomial Monte Carlo error.
    """

    def test_welch_formula(self) -> None:
        theta = np.array([0.1, 0.3, -0.2, 0.05])
        var = np.array([0.01, 0.02, 0.015, 0.03])
        nu = np.array([20.0, 35.0, 12.0, 50.0])
        q, f, df2, p = welch_heterogeneity(theta, var, nu)
        w = 1 / var
        mu = (w * theta).sum() / w.sum()
        assert q == pytest.approx((w * (theta - mu) ** 2).sum(), rel=1e-12)
        lam = ((1 - w / w.sum()) ** 2 / nu).sum()
        assert f == pytest.approx(q / 3 / (1 + 2 * 2 / 15 * lam), rel=1e-12)
        assert df2 == pytest.approx(15 / (3 * lam), rel=1e-12)
        assert p == pytest.approx(stats.f.sf(f, 3, df2), rel=1e-12)
        # with many degrees of freedom Welch's test becomes Q's chi-square test
        big = welch_heterogeneity(theta, var, np.full(4, 1e9))
        assert big[3] == pytest.approx(stats.chi2.sf(q, 3), rel=1e-5)

    def test_shared_groups_refuse_the_test_with_a_reason(self) -> None:
        rng = np.random.default_rng(0)
        df = slices_frame(rng, "binary", k=3, n=60)
        n = df["case_id"].max() + 1
        df["user"] = df["case_id"] % 20  # every user has cases in every site
        df["region"] = (df["site"] != "s0").map({True: "r1", False: "r0"})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = df.paired(group="user").by_slice(
                "A", "B", columns="site", higher_is_better=True, uncertainty=True, rng=0,
                n_resamples=200, n_permutations=9,
            )  # fmt: skip
        assert "site" not in res.heterogeneity
        assert any("several slices" in note for note in res.notes)
        # groups nested in the slices: tested as usual
        df["user"] = df["site"] + "-" + (df["case_id"] % 7).astype(str)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            nested = df.paired(group="user").by_slice(
                "A", "B", columns="site", higher_is_better=True, uncertainty=True, rng=0,
                n_resamples=200, n_permutations=9,
            )  # fmt: skip
        assert "site" in nested.heterogeneity
        assert n == 180

    def test_permutation_statistic_and_stream_are_the_documented_ones(self) -> None:
        """``pvalue`` is the permutation test on the slices' cases, read from its own stream."""
        rng = np.random.default_rng(3)
        df = slices_frame(rng, "skewed", k=4, n=30)
        res = df.paired.by_slice(
            "A", "B", columns="site", higher_is_better=True, uncertainty=True, rng=7,
            n_resamples=200, n_permutations=499,
        )  # fmt: skip
        h = res.heterogeneity["site"]
        per = diffs(df)
        groups = [g["d"].to_numpy() for _, g in per.groupby("site", sort=True)]
        assert h["statistic_permutation"] == pytest.approx(studentized_q(groups), rel=1e-10)
        assert h["n_permutations"] == 499
        code = pd.factorize(per["site"], sort=True)[0]
        ss = stream_sequence(
            np.random.SeedSequence(7),
            "slice_heterogeneity",
            *slice_index("\x00heterogeneity", "site"),
        )
        q, p = permutation_heterogeneity(
            code, per["d"].to_numpy(), np.ones(len(per)), None, 4, 499, ss
        )
        assert (q, p) == pytest.approx((h["statistic_permutation"], h["pvalue"]), rel=1e-12)
        # the same seed gives the same p-value; another seed another Monte Carlo draw
        again = df.paired.by_slice(
            "A", "B", columns="site", higher_is_better=True, uncertainty=True, rng=7,
            n_resamples=200, n_permutations=499,
        )  # fmt: skip
        assert again.heterogeneity == res.heterogeneity
        assert "permutation p" in str(res)

    def test_monte_carlo_pvalue_matches_exact_enumeration(self) -> None:
        """Two slices of 6 cases: all C(12, 6) = 924 splits enumerated here; the Monte Carlo
        p-value with R = 20,000 lies within 4 of its binomial SEs of the exact one."""
        rng = np.random.default_rng(11)
        d = np.r_[rng.exponential(1.0, 6) + 0.4, rng.exponential(1.0, 6)]
        code = np.repeat([0, 1], 6)
        q_obs = studentized_q([d[:6], d[6:]])
        hits = 0
        splits = list(combinations(range(12), 6))
        for first in splits:
            mask = np.zeros(12, bool)
            mask[list(first)] = True
            hits += studentized_q([d[mask], d[~mask]]) >= q_obs - 1e-12
        exact = hits / len(splits)
        R = 20_000
        q, p = permutation_heterogeneity(
            code, d, np.ones(12), None, 2, R, np.random.SeedSequence(1)
        )
        assert q == pytest.approx(q_obs, rel=1e-12)
        se = math.sqrt(exact * (1 - exact) / R)
        assert abs(p - exact) <= 4 * se + 1 / (1 + R), (p, exact)

    def test_permutations_stay_within_strata_and_ties_count_with_plus_one(self) -> None:
        """Each slice alone in its stratum: every permutation within strata gives Q* = Q, so
        p = (1 + R) / (1 + R) = 1 exactly (a strict ``>`` would give 1 / (1 + R))."""
        rng = np.random.default_rng(0)
        d = rng.normal(size=30) + np.repeat([0.0, 2.0, -2.0], 10)
        code = np.repeat([0, 1, 2], 10)
        q, p = permutation_heterogeneity(code, d, np.ones(30), code.copy(), 3, 9,
                                         np.random.SeedSequence(0))  # fmt: skip
        assert q > 10
        assert p == 1.0
        # without strata the same data reject: 9 permutations, none as extreme
        q2, p2 = permutation_heterogeneity(
            code, d, np.ones(30), None, 3, 9, np.random.SeedSequence(0)
        )
        assert q2 == q
        assert p2 == pytest.approx(1 / 10)

    def test_stratified_slices_permute_within_strata_end_to_end(self) -> None:
        rng = np.random.default_rng(4)
        df = slices_frame(rng, "binary", k=3, n=40)
        df["stratum"] = df["case_id"] % 2
        res = df.paired(stratum="stratum").by_slice(
            "A", "B", columns="site", higher_is_better=True, uncertainty=True, rng=0,
            n_resamples=200, n_permutations=199,
        )  # fmt: skip
        h = res.heterogeneity["site"]
        assert h["n_permutations"] == 199
        assert 0 < h["pvalue"] <= 1

    def test_groups_nested_in_slices_permute_whole_groups(self) -> None:
        """With a group column the units are groups: the statistic is Q of the ratio estimates
        with their cluster (linearized) variances, written out here."""
        rng = np.random.default_rng(8)
        df = slices_frame(rng, "skewed", k=3, n=60)
        df["user"] = df["site"] + "-" + (df["case_id"] % 12).astype(str)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = df.paired(group="user").by_slice(
                "A", "B", columns="site", higher_is_better=True, uncertainty=True, rng=0,
                n_resamples=200, n_permutations=99,
            )  # fmt: skip
        h = res.heterogeneity["site"]
        per = diffs(df)
        per["user"] = df.drop_duplicates("case_id").set_index("case_id")["user"]
        theta, var = [], []
        for _, s in per.groupby("site", sort=True):
            g = s.groupby("user")["d"].agg(["sum", "count"])
            t = g["sum"].sum() / g["count"].sum()
            n_g = len(g)
            theta.append(t)
            var.append(n_g / (n_g - 1) * ((g["sum"] - t * g["count"]) ** 2).sum()
                       / g["count"].sum() ** 2)  # fmt: skip
        w = 1 / np.array(var)
        mu = (w * np.array(theta)).sum() / w.sum()
        assert h["statistic_permutation"] == pytest.approx((w * (np.array(theta) - mu) ** 2).sum(),
                                                           rel=1e-10)  # fmt: skip
        assert h["n_permutations"] == 99

    def test_prediction_mode_keeps_welch(self) -> None:
        rng = np.random.default_rng(2)
        n = 240
        y = rng.integers(0, 2, n)
        site = np.repeat(["a", "b", "c"], n // 3)
        df = pd.DataFrame({
            "case_id": np.tile(np.arange(n), 2), "model": np.repeat(["A", "B"], n),
            "y": np.tile(y, 2), "site": np.tile(site, 2),
            "p": np.concatenate([np.clip(0.5 + 0.3 * (y - 0.5) + rng.normal(0, 0.2, n), 0, 1),
                                 np.clip(0.5 + 0.2 * (y - 0.5) + rng.normal(0, 0.2, n), 0, 1)]),
        })  # fmt: skip
        res = df.paired(target="y", prediction="p").by_slice(
            "A", "B", columns="site", metric="auroc", uncertainty=True, rng=0, n_resamples=200,
            n_permutations=99,
        )  # fmt: skip
        h = res.heterogeneity["site"]
        assert h["n_permutations"] == 0
        assert h["pvalue"] == h["pvalue_welch"]
        assert "Welch p" in str(res)
