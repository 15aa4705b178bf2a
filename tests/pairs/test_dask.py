"""The Dask path (``import pdpaired.dask``, docs/scale-out.md) against the pandas path.

Two kinds of claims are tested, as the docs (``docs/scale-out.md``) make them.

* **Bit-identical** designs (clusters, few-valued scores by case, group swaps,
  the exact binomial test, continuous scores with ``collect=True``, and the
  missing-outcome policies on top of them): for the same seed the Dask result
  must equal the pandas result field by field -- every float with ``==``,
  every array with ``np.array_equal`` -- whatever the number of partitions,
  the row order and the scheduler. There is no tolerance at all: both paths
  put the scores on the same fixed-point grid, so every sum is an exact
  integer sum and the same engine draws the same replicates. Scores are
  normal floats (not integers) wherever the design allows, so that this is
  not true by accident of small integers.

* **Statistically equivalent** designs (continuous scores by case without
  ``collect``: ``engine="poisson"`` for the bootstrap, ``"partition-flips"``
  for the randomization test). Their numbers differ from the pandas path's;
  what must hold is (a) bit-identity with *themselves* across partitionings,
  row orders, schedulers and the optional numba kernel; (b) the same
  sampling distribution. Tolerances for (b) are Monte Carlo (MC) errors,
  ``Z = 4`` standard errors (a false alarm probability of 6e-5 per check; the
  seeds are fixed so the outcome is deterministic):

  - an SD of ``B`` replicates has MC standard error ``sd * sqrt((kurt - 1) /
    (4 B))`` (delta method on the sample variance; ``kurt`` the non-excess
    kurtosis of the replicates, estimated from them);
  - a mean of ``B`` replicates has MC standard error ``sd / sqrt(B)``;
  - the ideal (B -> infinity) Poisson bootstrap of a mean has variance
    ``s2 * E[1/W | W > 0]`` with ``W ~ Poisson(n)`` the total weight and
    ``s2`` the plug-in variance (given ``W = m`` the weights are multinomial
    with ``m`` draws), i.e. ``s2 / n * (1 + 1/n + O(n^-2))``: its SD exceeds
    the multinomial bootstrap's ``sqrt(s2 / n)`` by the factor
    ``1 + 1/(2n)``, used below as the exact expected ratio;
  - a sign-flip null distribution of ``T* = sum_i e_i d_i / n`` has mean 0
    and the exact SD ``sqrt(sum_i d_i**2) / n`` given the data.

  The coverage and type-I error simulations (marked ``slow``) accept
  ``nominal +- 3`` binomial standard errors.

Pairing invariants: every pairing rule (docs/pairing.md) is violated in a Dask frame
and must raise the same ``PairingError`` rule as pandas, naming the count and
the first ids. A real ``distributed.LocalCluster`` with worker processes and
the threaded scheduler are exercised too.

The tests at the end of the file are regressions: each failed on the first
version of the Dask path.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Iterator
from typing import Any

import dask
import numpy as np
import pandas as pd
import pytest

import pdpaired
import pdpaired.dask  # noqa: F401  (registers ddf.paired)
from pdpaired import DegenerateDataWarning, IndependenceWarning, PairingError
from pdpaired._lib.rng import derived_seed, slice_index

from ..conftest import assert_identical, long_table

dd = pytest.importorskip("dask.dataframe")


Z = 4.0


NPARTS = (1, 3, 7)


# --------------------------------------------------------------------------- helpers
@pytest.fixture(autouse=True)
def _sync_scheduler() -> Iterator[None]:
    """Every test runs on the synchronous scheduler unless it asks for another one."""
    with dask.config.set(scheduler="sync"):
        yield


def to_dask(df: pd.DataFrame, npartitions: int = 3, *, shuffle: int | None = 0) -> Any:
    """Dask frame of ``df`` with its rows shuffled (``shuffle`` is the seed; None keeps order)."""
    if shuffle is not None:
        df = df.sample(frac=1.0, random_state=shuffle)
    return dd.from_pandas(df.reset_index(drop=True), npartitions=npartitions)


def sd_mc_se(x: np.ndarray) -> float:
    """MC standard error of the sample SD of the replicates ``x`` (delta method)."""
    x = np.asarray(x, dtype=np.float64)
    c = x - x.mean()
    m2 = np.mean(c**2)
    kurt = np.mean(c**4) / m2**2
    return float(np.std(x, ddof=1) * math.sqrt(max(kurt - 1.0, 0.0) / (4 * x.size)))


def clustered_table(seed: int = 7, n_groups: int = 72) -> pd.DataFrame:
    """Continuous normal-float scores in groups of 1-9 cases, 3 strata (groups nested),
    a slice column constant within a case, non-contiguous int ids, and a third model
    whose rows must be ignored."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 10, size=n_groups)
    group = np.repeat(np.arange(n_groups) * 3 + 100, sizes)
    n = group.size
    stratum = np.array(["s0", "s1", "s2"])[(group // 3) % 3]
    effect = rng.normal(0.1, 0.4, size=n_groups)[np.repeat(np.arange(n_groups), sizes)]
    b = rng.normal(0.0, 1.0, size=n)
    a = b + effect + rng.normal(0.0, 0.5, size=n)
    site = np.array(["north", "south", "east", "west"])[rng.integers(0, 4, size=n)]
    ids = rng.permutation(10 * n)[:n] + 1
    df = long_table(a, b, ids=ids, group=group, stratum=stratum, site=site)
    other = df[df["model"] == "A"].assign(model="C", score=np.inf)  # junk model C
    return pd.concat([df, other], ignore_index=True)


def binary_table(seed: int = 11, n: int = 1200) -> pd.DataFrame:
    """0/1 scores by case (3 strata, groups of 6, a slice column)."""
    rng = np.random.default_rng(seed)
    b = rng.binomial(1, 0.6, size=n)
    a = np.where(rng.random(n) < 0.8, b, rng.binomial(1, 0.7, size=n))
    stratum = np.array(["easy", "hard", "mid"])[rng.integers(0, 3, size=n)]
    group = np.arange(n) // 6
    stratum = stratum[group * 6]  # groups nested in strata
    site = np.array(["north", "south", "east", "west"])[rng.integers(0, 4, size=n)]
    ids = np.array([f"case-{i:05d}" for i in rng.permutation(n)])
    return long_table(
        a.astype(np.float64), b.astype(np.float64), ids=ids, stratum=stratum, group=group,
        site=site,
    )  # fmt: skip


def continuous_table(seed: int = 3, n: int = 400) -> pd.DataFrame:
    """Continuous scores by case (gamma baseline, normal improvement), 2 strata."""
    rng = np.random.default_rng(seed)
    base = rng.gamma(2.0, 1.0, size=n)
    a = base + rng.normal(0.15, 0.8, size=n)
    stratum = np.where(rng.random(n) < 0.3, "rare", "common")
    return long_table(a, base, ids=np.arange(n) * 5 + 2, stratum=stratum)


def with_missing(df: pd.DataFrame, seed: int = 5) -> pd.DataFrame:
    """Make some outcomes missing: NaN scores for A and for B, and one-sided cases."""
    rng = np.random.default_rng(seed)
    df = df.copy()
    ids = np.sort(df["case_id"].unique())
    nan_a, nan_b, only_a, only_b = np.split(rng.choice(ids, 16, replace=False), 4)
    df.loc[df["case_id"].isin(nan_a) & (df["model"] == "A"), "score"] = np.nan
    df.loc[df["case_id"].isin(nan_b) & (df["model"] == "B"), "score"] = np.nan
    df = df[~(df["case_id"].isin(only_a) & (df["model"] == "B"))]
    df = df[~(df["case_id"].isin(only_b) & (df["model"] == "A"))]
    return df.reset_index(drop=True)


# =========================================================================== Poisson / flips
def _poisson_fingerprint(ddf: Any) -> tuple[np.ndarray, ...]:
    base = ddf.paired(stratum=None).compare("A", "B", higher_is_better=True)
    strat = ddf.paired.compare("A", "B", higher_is_better=True)
    boot = base.bootstrap(rng=31, n_resamples=400)
    flips = base.randomization(rng=31, n_permutations=400)
    sboot = strat.bootstrap(rng=31, n_resamples=400, stratum_weights={"rare": 0.5, "common": 0.5})
    sflips = strat.randomization(rng=31, n_permutations=400)
    assert boot.engine == sboot.engine == "poisson"
    assert flips.engine == sflips.engine == "partition-flips"
    return (
        boot.bootstrap_distribution, flips.null_distribution,
        sboot.bootstrap_distribution, sflips.null_distribution,
        np.array([boot.confidence_interval.low, boot.confidence_interval.high, flips.pvalue,
                  sboot.confidence_interval.low, sflips.pvalue, boot.improvement]),
    )  # fmt: skip


# =========================================================================== invariants
def _base() -> pd.DataFrame:
    """60 cases (ids 1..60) with groups nested in strata; rows shuffled over partitions."""
    rng = np.random.default_rng(1)
    n = 60
    ids = np.arange(1, n + 1)
    group = (ids - 1) // 4
    stratum = np.where(group % 2 == 0, "s0", "s1")
    return long_table(rng.normal(size=n), rng.normal(size=n), ids=ids, group=group,
                      stratum=stratum, site=np.where(ids % 2 == 0, "x", "y"))  # fmt: skip


def _rows(df: pd.DataFrame, ids: list[int], model: str) -> pd.Index:
    return df.index[df["case_id"].isin(ids) & (df["model"] == model)]


def _dup(df: pd.DataFrame) -> pd.DataFrame:
    return pd.concat([df, df.loc[_rows(df, [7, 31, 52], "A")]], ignore_index=True)


def _drop_b(df: pd.DataFrame) -> pd.DataFrame:
    return df.drop(index=_rows(df, [9, 44], "B"))


def _drop_a(df: pd.DataFrame) -> pd.DataFrame:
    return df.drop(index=_rows(df, [11, 12, 13, 58], "A"))


def _null_model(df: pd.DataFrame) -> pd.DataFrame:
    df.loc[_rows(df, [20], "B"), "model"] = None
    return df


def _nan_a(df: pd.DataFrame) -> pd.DataFrame:
    df.loc[_rows(df, [5, 18, 60], "A"), "score"] = np.nan
    return df


def _inf(df: pd.DataFrame) -> pd.DataFrame:
    df.loc[_rows(df, [12], "A"), "score"] = np.inf
    df.loc[_rows(df, [3], "B"), "score"] = -np.inf
    return df


def _group_varies(df: pd.DataFrame) -> pd.DataFrame:
    df.loc[_rows(df, [8, 33], "B"), "group"] = 99
    return df


def _stratum_varies(df: pd.DataFrame) -> pd.DataFrame:
    df.loc[_rows(df, [2, 40, 59], "A"), "stratum"] = "s9"
    return df


def _group_missing(df: pd.DataFrame) -> pd.DataFrame:
    df["group"] = df["group"].astype("float64")
    df.loc[df["case_id"].isin([14, 27]), "group"] = np.nan
    return df


def _text_score(df: pd.DataFrame) -> pd.DataFrame:
    return df.assign(score=df["score"].astype(str))


def _one_case(df: pd.DataFrame) -> pd.DataFrame:
    return df[df["case_id"] == 1]


def _null_ids(df: pd.DataFrame) -> pd.DataFrame:
    df["case_id"] = df["case_id"].astype("float64")
    df.loc[_rows(df, [4, 6], "A"), "case_id"] = np.nan
    return df


Mutation = Callable[[pd.DataFrame], pd.DataFrame]


VIOLATIONS: list[tuple[str, Mutation, dict[str, Any], str, list[str]]] = [
    ("duplicate rows", _dup, {}, "unique (case, model)", ["3 case(s)", "[7, 31, 52]"]),
    ("duplicate rows, complete-case", _dup, {"missing": "complete-case"}, "unique (case, model)",
     ["3 case(s)", "[7, 31, 52]"]),
    ("duplicate rows, as-failure", _dup, {"missing": "as-failure", "fill_value": 0.0},
     "unique (case, model)", ["3 case(s)", "[7, 31, 52]"]),
    ("case missing for A", _drop_a, {}, "missing outcome for A (A)",
     ["4 case(s)", "[11, 12, 13, 58]"]),
    ("case missing for B", _drop_b, {}, "missing outcome for B (B)", ["2 case(s)", "[9, 44]"]),
    ("NaN score for A", _nan_a, {}, "missing outcome for A (A)", ["3 case(s)", "[5, 18, 60]"]),
    ("infinite score", _inf, {}, "finite score", ["2 case(s)", "[3, 12]"]),
    ("group varies", _group_varies, {}, "`group` constant within a case", ["2 case(s)", "[8, 33]"]),
    ("stratum varies", _stratum_varies, {}, "`stratum` constant within a case",
     ["3 case(s)", "[2, 40, 59]"]),
    ("group missing", _group_missing, {}, "`group` not missing", ["2 case(s)", "[14, 27]"]),
    ("text scores", _text_score, {}, "numeric score", ["'score'"]),
    ("fewer than two cases", _one_case, {}, "at least two paired cases", ["got 1 usable case"]),
    ("null case ids", _null_ids, {}, "no missing case_id", ["2 row(s) (no case id)"]),
    ("null model labels", _null_model, {}, "no missing model", ["1 row(s) (no model label)"]),
]  # fmt: skip


def _scheduler_fingerprint(ddf: Any) -> list[Any]:
    return [
        ddf.paired.bootstrap("A", "B", higher_is_better=True, rng=3, n_resamples=300,
                             method="bca"),
        ddf.paired.randomization("A", "B", higher_is_better=True, rng=3, n_permutations=300),
        ddf.paired(group=None, stratum=None).bootstrap("A", "B", higher_is_better=True, rng=3,
                                                       n_resamples=300),
        ddf.paired(group=None, stratum=None).randomization("A", "B", higher_is_better=True,
                                                           rng=3, n_permutations=300),
    ]  # fmt: skip


@pytest.fixture(scope="module")
def local_cluster() -> Iterator[Any]:
    """A real distributed cluster: 2 worker processes, 1 thread each (closed at teardown)."""
    distributed = pytest.importorskip("distributed")
    # dashboard on a free port: dashboard_address=None still binds 8787, and a cluster started
    # while another holds it warns (an error under filterwarnings=error)
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    )
    client = distributed.Client(cluster, set_as_default=False)
    try:
        yield client
    finally:
        client.close()
        cluster.close()


# =========================================================================== bit-identical
@pytest.mark.parametrize("npartitions", NPARTS)
def test_cluster_bootstrap_bit_identical(npartitions: int) -> None:
    df = clustered_table()
    ddf = to_dask(df, npartitions, shuffle=npartitions)
    dcmp = ddf.paired.compare("A", "B", higher_is_better=True)
    pcmp = df.paired.compare("A", "B", higher_is_better=True)
    assert dcmp.n_cases == pcmp.n_cases
    designs: list[dict[str, Any]] = [
        {"stratified": False},  # cluster, item weighting
        {"stratified": False, "weighting": "group", "method": "bca"},
        {"method": "basic"},  # stratified cluster (the default with a stratum column)
        {"method": "bca", "stratum_weights": {"s0": 0.5, "s1": 0.2, "s2": 0.3}},
        {"weighting": "group", "stratum_weights": {"s0": 0.1, "s1": 0.6, "s2": 0.3}},
    ]
    for kw in designs:
        got = dcmp.bootstrap(rng=2026, n_resamples=1000, **kw)
        ref = pcmp.bootstrap(rng=2026, n_resamples=1000, **kw)
        assert_identical(got, ref)
        assert got.unit == "group"
        assert got.n_groups == 72
        assert got.sampling == (
            "cluster" if kw.get("stratified") is False else "stratified-cluster"
        )


def test_cluster_bootstrap_same_numbers_for_any_partitioning_and_row_order() -> None:
    df = clustered_table(seed=8)
    dists = []
    for npartitions, shuffle in ((1, None), (3, 1), (7, 2), (16, 3)):
        res = to_dask(df, npartitions, shuffle=shuffle).paired.bootstrap(
            "A", "B", higher_is_better=False, rng=1, n_resamples=500, method="bca"
        )
        dists.append(res)
    for res in dists[1:]:
        assert_identical(res, dists[0])


@pytest.mark.parametrize("npartitions", NPARTS)
def test_group_swap_randomization_bit_identical(npartitions: int) -> None:
    df = clustered_table()
    dcmp = to_dask(df, npartitions, shuffle=10 + npartitions).paired.compare(
        "A", "B", higher_is_better=True
    )
    pcmp = df.paired.compare("A", "B", higher_is_better=True)
    for kw in (
        {},
        {"weighting": "group", "alternative": "greater"},
        {"stratum_weights": {"s0": 0.5, "s1": 0.2, "s2": 0.3}, "alternative": "less"},
    ):
        got = dcmp.randomization(rng=77, n_permutations=999, **kw)
        ref = pcmp.randomization(rng=77, n_permutations=999, **kw)
        assert_identical(got, ref)
        assert got.unit == "group"


def test_group_swap_exact_enumeration_bit_identical() -> None:
    df = clustered_table(n_groups=9)  # 2**9 = 512 <= n_permutations: exact
    got = (
        to_dask(df, 3)
        .paired(stratum=None)
        .randomization("A", "B", higher_is_better=True, rng=0, n_permutations=1000)
    )
    ref = df.paired(stratum=None).randomization(
        "A", "B", higher_is_better=True, rng=0, n_permutations=1000
    )
    assert ref.exact
    assert ref.n_permutations == 512
    assert_identical(got, ref)


@pytest.mark.parametrize("npartitions", NPARTS)
def test_binary_scores_by_case_bit_identical(npartitions: int) -> None:
    """0/1 scores by case: Dask sends counts of distinct score pairs; the multinomial
    bootstrap engine and the binomial randomization engine give pandas' numbers."""
    df = binary_table()
    ddf = to_dask(df, npartitions, shuffle=npartitions).paired(group=None)
    pdf = df.paired(group=None)
    for kw in (
        {"stratified": False},
        {"method": "bca"},  # stratified by case
        {"method": "basic", "stratum_weights": {"easy": 0.2, "hard": 0.5, "mid": 0.3}},
    ):
        got = ddf.bootstrap("A", "B", higher_is_better=True, rng=5, n_resamples=2000, **kw)
        ref = pdf.bootstrap("A", "B", higher_is_better=True, rng=5, n_resamples=2000, **kw)
        assert ref.engine == "multinomial"
        assert_identical(got, ref)
    for kw in ({}, {"stratum_weights": {"easy": 0.2, "hard": 0.5, "mid": 0.3}}):
        got = ddf.randomization("A", "B", higher_is_better=False, rng=6, n_permutations=2000, **kw)
        ref = pdf.randomization("A", "B", higher_is_better=False, rng=6, n_permutations=2000, **kw)
        assert ref.engine == "binomial"
        assert_identical(got, ref)


def test_few_valued_likert_scores_bit_identical() -> None:
    """Scores on a 1-5 scale (25 distinct pairs) are few-valued too."""
    rng = np.random.default_rng(21)
    n = 800
    b = rng.integers(1, 6, size=n)
    a = np.clip(b + rng.integers(-1, 3, size=n), 1, 5)
    df = long_table(a.astype(float), b.astype(float))
    ddf = to_dask(df, 4)
    for method in ("percentile", "bca"):
        got = ddf.paired.bootstrap("A", "B", higher_is_better=True, rng=1, method=method,
                                   n_resamples=1000)  # fmt: skip
        ref = df.paired.bootstrap("A", "B", higher_is_better=True, rng=1, method=method,
                                  n_resamples=1000)  # fmt: skip
        assert_identical(got, ref)
    got = ddf.paired.randomization("A", "B", higher_is_better=True, rng=2, n_permutations=1000)
    ref = df.paired.randomization("A", "B", higher_is_better=True, rng=2, n_permutations=1000)
    assert_identical(got, ref)
    with pytest.raises(ValueError, match="binary 0/1"):
        ddf.paired.exact_binomial("A", "B", higher_is_better=True)


@pytest.mark.parametrize("higher_is_better", [True, False])
def test_exact_binomial_bit_identical(higher_is_better: bool) -> None:
    df = binary_table()
    ddf = to_dask(df, 5).paired(group=None)
    pdf = df.paired(group=None)
    for kw in (
        {},
        {"alternative": "greater"},
        {"alternative": "less", "mid_p": True},
        {"mid_p": True, "confidence_level": 0.9},
    ):
        got = ddf.exact_binomial("A", "B", higher_is_better=higher_is_better, **kw)
        ref = pdf.exact_binomial("A", "B", higher_is_better=higher_is_better, **kw)
        assert_identical(got, ref)
        assert (got.a_only, got.b_only, got.both_pass, got.both_fail) == (
            ref.a_only, ref.b_only, ref.both_pass, ref.both_fail,
        )  # fmt: skip
        assert got.a_only + got.b_only + got.both_pass + got.both_fail == 1200


def test_exact_binomial_warnings_as_pandas() -> None:
    df = binary_table()
    with pytest.warns(IndependenceWarning, match="independent pairs"):
        got = to_dask(df).paired.exact_binomial("A", "B", higher_is_better=True)
    with pytest.warns(IndependenceWarning):
        ref = df.paired.exact_binomial("A", "B", higher_is_better=True)
    assert_identical(got, ref)
    rng = np.random.default_rng(2)
    a = rng.integers(0, 2, size=300).astype(float)
    same = long_table(a, a.copy())  # A and B pass and fail on exactly the same cases
    with pytest.warns(DegenerateDataWarning, match="No discordant pairs"):
        res = to_dask(same).paired.exact_binomial("A", "B", higher_is_better=True)
    assert res.pvalue == 1.0
    assert res.a_only == res.b_only == 0


@pytest.mark.parametrize("npartitions", NPARTS)
def test_continuous_by_case_collect_bit_identical(npartitions: int) -> None:
    df = continuous_table()
    ddf = to_dask(df, npartitions, shuffle=npartitions)
    for cfg in ({"stratum": None}, {}):
        dcmp = ddf.paired(**cfg).compare("A", "B", higher_is_better=True)
        pcmp = df.paired(**cfg).compare("A", "B", higher_is_better=True)
        for method in ("percentile", "bca"):
            got = dcmp.bootstrap(rng=9, n_resamples=1000, method=method, collect=True)
            ref = pcmp.bootstrap(rng=9, n_resamples=1000, method=method)
            assert_identical(got, ref)
        got = dcmp.randomization(rng=9, n_permutations=1000, collect=True)
        ref = pcmp.randomization(rng=9, n_permutations=1000)
        assert_identical(got, ref)
        assert got.engine not in ("poisson", "partition-flips")


@pytest.mark.parametrize("npartitions", NPARTS)
@pytest.mark.parametrize(
    ("missing", "fill_value"), [("complete-case", None), ("as-failure", -2.5)]
)  # fmt: skip
def test_missing_policies_bit_identical(
    npartitions: int, missing: str, fill_value: float | None
) -> None:
    """One-sided cases and NaN scores under each policy: same summary, same numbers."""
    df = with_missing(clustered_table())
    ddf = to_dask(df, npartitions, shuffle=npartitions)
    kw = {"higher_is_better": True, "missing": missing, "fill_value": fill_value}
    dcmp = ddf.paired.compare("A", "B", **kw)
    pcmp = df.paired.compare("A", "B", **kw)
    assert dcmp.missing == pcmp.missing
    assert dcmp.missing.n_missing_a == 8
    assert dcmp.missing.n_missing_b == 8
    assert dcmp.n_cases == pcmp.n_cases
    assert_identical(dcmp.bootstrap(rng=4, n_resamples=500), pcmp.bootstrap(rng=4, n_resamples=500))
    assert_identical(
        dcmp.randomization(rng=4, n_permutations=500), pcmp.randomization(rng=4, n_permutations=500)
    )
    # the same table by case, continuous scores collected
    got = ddf.paired(group=None).bootstrap("A", "B", rng=4, n_resamples=500, collect=True, **kw)
    ref = df.paired(group=None).bootstrap("A", "B", rng=4, n_resamples=500, **kw)
    assert_identical(got, ref)


@pytest.mark.parametrize("higher_is_better", [True, False])
def test_as_failure_default_fill_for_binary_scores(higher_is_better: bool) -> None:
    """0/1 scores: as-failure fills the worse value (0 or 1) with no fill_value given."""
    df = with_missing(binary_table())
    ddf = to_dask(df, 3).paired(group=None)
    pdf = df.paired(group=None)
    kw = {"higher_is_better": higher_is_better, "missing": "as-failure"}
    got = ddf.bootstrap("A", "B", rng=3, n_resamples=1000, method="bca", **kw)
    ref = pdf.bootstrap("A", "B", rng=3, n_resamples=1000, method="bca", **kw)
    assert_identical(got, ref)
    assert got.missing.fill_value == (0.0 if higher_is_better else 1.0)
    assert got.missing.n_filled == 16
    assert_identical(ddf.exact_binomial("A", "B", **kw), pdf.exact_binomial("A", "B", **kw))
    got = ddf.randomization("A", "B", rng=3, n_permutations=1000, **kw)
    assert_identical(got, pdf.randomization("A", "B", rng=3, n_permutations=1000, **kw))


def test_n_groups_after_complete_case_drops_a_whole_group() -> None:
    """Regression (bb19242 counted the groups before the policy: 15 instead of 14)."""
    df = _base()
    df.loc[_rows(df, [1, 2, 3, 4], "A"), "score"] = np.nan  # all of group 0
    kw = {"higher_is_better": True, "missing": "complete-case"}
    ref = df.paired.bootstrap("A", "B", rng=0, n_resamples=100, **kw)
    got = to_dask(df, 3).paired.bootstrap("A", "B", rng=0, n_resamples=100, **kw)
    assert ref.n_groups == 14
    assert_identical(got, ref)


def test_grid_edge_cases_bit_identical() -> None:
    """The fixed-point grid is the pandas one after the policy: (1) complete-case drops the
    case holding the largest |score|; (2) as-failure fills a value larger than every score;
    (3) a one-sided case makes the number of rows (255) cross a power of two below the 2n =
    256 values that pandas puts on the grid."""
    rng = np.random.default_rng(77)
    n = 128
    group = np.arange(n) // 4
    df = long_table(rng.normal(size=n), rng.normal(size=n), group=group)
    big = df.copy()
    big.loc[_rows(big, [5], "A"), "score"] = 1e6
    big.loc[_rows(big, [5], "B"), "score"] = np.nan
    one_sided = df.drop(index=_rows(df, [9], "B"))
    for table, kw in (
        (big, {"missing": "complete-case"}),
        (with_missing(df), {"missing": "as-failure", "fill_value": -1e4}),
        (one_sided, {"missing": "as-failure", "fill_value": 0.0}),
        (one_sided, {"missing": "complete-case"}),
    ):
        for cfg, extra in (({}, {}), ({"group": None}, {"collect": True})):
            got = (
                to_dask(table, 3)
                .paired(**cfg)
                .bootstrap("A", "B", higher_is_better=True, rng=1, n_resamples=300, **kw, **extra)
            )
            ref = table.paired(**cfg).bootstrap(
                "A", "B", higher_is_better=True, rng=1, n_resamples=300, **kw
            )
            assert_identical(got, ref)


def test_categorical_design_columns_with_unused_categories() -> None:
    """Categoricals (as hive-partitioned parquet gives) with categories no row uses: no
    empty group or stratum appears."""
    df = clustered_table()
    df = df[df["model"] != "C"].copy()
    df["stratum"] = pd.Categorical(df["stratum"], categories=["s0", "s1", "s2", "unused"])
    df["group"] = pd.Categorical(df["group"], categories=list(range(100, 400)))
    ddf = to_dask(df, 3)
    for kw in ({}, {"weighting": "group", "stratified": False}):
        got = ddf.paired.bootstrap("A", "B", higher_is_better=True, rng=2, n_resamples=300, **kw)
        ref = df.paired.bootstrap("A", "B", higher_is_better=True, rng=2, n_resamples=300, **kw)
        assert_identical(got, ref)
        assert got.n_groups == 72
    got = ddf.paired.randomization("A", "B", higher_is_better=True, rng=2, n_permutations=300)
    assert_identical(got, df.paired.randomization("A", "B", higher_is_better=True, rng=2,
                                                  n_permutations=300))  # fmt: skip
    assert got.n_strata == 3


def test_the_category_order_of_groups_and_strata_changes_no_number() -> None:
    """Groups and strata are ordered by their values, whatever the categories' order."""
    plain = clustered_table(seed=9)
    plain = plain[plain["model"] != "C"]
    df = plain.copy()
    df["stratum"] = pd.Categorical(df["stratum"], categories=["s2", "unused", "s0", "s1"])
    groups = sorted(df["group"].unique())
    df["group"] = pd.Categorical(df["group"], categories=groups[::-1])
    ddf = to_dask(df, 3, shuffle=1)
    for kw in ({}, {"weighting": "group", "stratified": False}, {"method": "bca"}):
        got = ddf.paired.bootstrap("A", "B", higher_is_better=True, rng=4, n_resamples=300, **kw)
        ref = plain.paired.bootstrap("A", "B", higher_is_better=True, rng=4, n_resamples=300,
                                     **kw)  # fmt: skip
        assert_identical(got, ref)
        assert_identical(
            df.paired.bootstrap("A", "B", higher_is_better=True, rng=4, n_resamples=300, **kw),
            ref,
        )
    got = ddf.paired.randomization("A", "B", higher_is_better=True, rng=4, n_permutations=300)
    assert_identical(got, plain.paired.randomization("A", "B", higher_is_better=True, rng=4,
                                                     n_permutations=300))  # fmt: skip


def test_by_slice_with_uncertainty_cluster_design_bit_identical() -> None:
    df = clustered_table()
    kw: dict[str, Any] = {"higher_is_better": True, "uncertainty": True, "rng": 12,
                          "n_resamples": 300, "n_permutations": 300, "min_size": 20}  # fmt: skip
    got = to_dask(df, 3).paired(stratum=None).by_slice("A", "B", columns="site", **kw)
    ref = df.paired(stratum=None).by_slice("A", "B", columns="site", **kw)
    pd.testing.assert_frame_equal(got.table, ref.table, check_exact=True)
    assert got.overall == ref.overall
    assert got.heterogeneity == ref.heterogeneity
    assert (got.table["status"] == "reported").all()


def test_by_slice_binary_scores_bit_identical() -> None:
    df = binary_table()
    df.loc[df["case_id"] < "case-00040", "site"] = "tiny"  # 40 cases: below min_size
    kw: dict[str, Any] = {"higher_is_better": True, "uncertainty": True, "rng": 3,
                          "n_resamples": 300, "n_permutations": 300, "min_size": 250}  # fmt: skip
    got = to_dask(df, 4).paired(group=None).by_slice("A", "B", columns=["site", "stratum"], **kw)
    ref = df.paired(group=None).by_slice("A", "B", columns=["site", "stratum"], **kw)
    pd.testing.assert_frame_equal(got.table, ref.table, check_exact=True)
    assert got.overall == ref.overall
    assert got.heterogeneity == ref.heterogeneity
    skipped = got.table[got.table["status"] == "skipped"]
    assert list(skipped["value"]) == ["tiny"]
    assert list(skipped["n"]) == [40]


def test_by_slice_without_uncertainty_and_missing_slice_values() -> None:
    df = clustered_table()
    df["lang"] = np.where(df["case_id"] % 3 == 0, np.nan, (df["case_id"] % 2).astype(float))
    got = to_dask(df, 3).paired.by_slice("A", "B", columns=["lang", "site"],
                                        higher_is_better=False, min_size=5)  # fmt: skip
    ref = df.paired.by_slice("A", "B", columns=["lang", "site"], higher_is_better=False, min_size=5)
    pd.testing.assert_frame_equal(got.table, ref.table, check_exact=True)
    assert got.table["value"].isna().sum() == 1  # the NaN slice is a slice of its own


def test_poisson_and_flips_do_not_depend_on_partitions_order_or_scheduler() -> None:
    """16 partitions also gives the per-case groupby more than one output partition."""
    df = continuous_table(n=1500)
    ref = _poisson_fingerprint(to_dask(df, 1, shuffle=None))
    for npartitions, shuffle, scheduler in ((3, 1, "sync"), (7, 2, "threads"), (16, 3, "sync")):
        with dask.config.set(scheduler=scheduler):
            got = _poisson_fingerprint(to_dask(df, npartitions, shuffle=shuffle))
        for x, y in zip(got, ref, strict=True):
            assert np.array_equal(x, y)


def test_poisson_same_integers_with_and_without_numba(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("numba")
    ddf = to_dask(continuous_table(n=600), 3)
    out = {}
    for accel in ("numpy", "numba"):
        monkeypatch.setenv("PDPAIRED_ACCELERATOR", accel)
        out[accel] = _poisson_fingerprint(ddf)
    for x, y in zip(out["numpy"], out["numba"], strict=True):
        assert np.array_equal(x, y)


def test_poisson_seed_reproduces_and_differs_between_seeds() -> None:
    ddf = to_dask(continuous_table(), 3).paired(stratum=None)
    r1 = ddf.bootstrap("A", "B", higher_is_better=True, n_resamples=300)  # fresh OS entropy
    assert isinstance(r1.seed, int)
    r2 = ddf.bootstrap("A", "B", higher_is_better=True, n_resamples=300, rng=r1.seed)
    assert_identical(r2, r1)
    r3 = ddf.bootstrap("A", "B", higher_is_better=True, n_resamples=300, rng=r1.seed + 1)
    assert not np.array_equal(r3.bootstrap_distribution, r1.bootstrap_distribution)
    gen = np.random.default_rng(5)
    r4 = ddf.bootstrap("A", "B", higher_is_better=True, n_resamples=300, rng=gen)
    assert r4.seed is None
    assert r4.rng_state is not None


def test_poisson_point_estimates_are_exact_and_direction_mirrors() -> None:
    df = continuous_table()
    ddf = to_dask(df, 3)
    for cfg in ({"stratum": None}, {}):
        up = ddf.paired(**cfg).bootstrap("A", "B", higher_is_better=True, rng=2, n_resamples=500)
        down = ddf.paired(**cfg).bootstrap("A", "B", higher_is_better=False, rng=2,
                                           n_resamples=500)  # fmt: skip
        ref = df.paired(**cfg).bootstrap("A", "B", higher_is_better=True, rng=2, n_resamples=10)
        for f in ("metric_a", "metric_b", "raw_delta", "improvement", "n_cases", "sampling",
                  "stratum_weights", "n_strata", "unit"):  # fmt: skip
            assert getattr(up, f) == getattr(ref, f), f
        assert down.improvement == -up.improvement
        assert np.array_equal(down.bootstrap_distribution, -up.bootstrap_distribution)
        # quantiles of the negated replicates: equal up to the interpolation's rounding
        assert down.confidence_interval.low == pytest.approx(
            -up.confidence_interval.high, rel=1e-14
        )
        assert down.confidence_interval.high == pytest.approx(
            -up.confidence_interval.low, rel=1e-14
        )
        basic = ddf.paired(**cfg).bootstrap("A", "B", higher_is_better=True, rng=2,
                                            n_resamples=500, method="basic")  # fmt: skip
        assert np.array_equal(basic.bootstrap_distribution, up.bootstrap_distribution)
        t, ci = up.improvement, up.confidence_interval
        assert basic.confidence_interval.low == pytest.approx(2 * t - ci.high, rel=1e-12, abs=1e-15)
        assert basic.confidence_interval.high == pytest.approx(2 * t - ci.low, rel=1e-12, abs=1e-15)


def test_poisson_bootstrap_se_matches_pandas_and_analytic() -> None:
    """Tolerance: Z = 4 MC standard errors of the replicate SD (module docstring)."""
    rng = np.random.default_rng(404)
    n, b_reps = 3000, 4000
    base = rng.normal(size=n)
    d = rng.standard_t(5, size=n) * 0.7 + 0.05
    df = long_table(base + d, base)
    pois = to_dask(df, 4).paired.bootstrap("A", "B", higher_is_better=True, rng=1,
                                           n_resamples=b_reps)  # fmt: skip
    mult = df.paired.bootstrap("A", "B", higher_is_better=True, rng=1, n_resamples=b_reps)
    assert pois.engine == "poisson"
    assert pois.n_valid == b_reps
    d_grid = df["score"][:n].to_numpy() - df["score"][n:].to_numpy()
    analytic = float(np.std(d_grid) / math.sqrt(n)) * (1 + 1 / (2 * n))
    se_p, se_m = pois.standard_error, mult.standard_error
    mc_p, mc_m = sd_mc_se(pois.bootstrap_distribution), sd_mc_se(mult.bootstrap_distribution)
    assert abs(se_p - analytic) < Z * mc_p, (se_p, analytic, mc_p)
    assert abs(se_p - se_m) < Z * math.hypot(mc_p, mc_m), (se_p, se_m)
    # the replicates are centred on the estimate (bias of the ratio is O(1/n) * SE)
    assert abs(pois.bootstrap_distribution.mean() - pois.improvement) < Z * se_p / math.sqrt(b_reps)
    # percentile endpoints roughly +-1.96 SE around the estimate
    half = (pois.confidence_interval.high - pois.confidence_interval.low) / 2
    assert half == pytest.approx(1.96 * analytic, rel=0.06)


def test_partition_flips_null_matches_exact_sign_flip_law_and_pandas() -> None:
    """Null of T* = sum e_i d_i / n: mean 0, SD sqrt(sum d_i^2) / n exactly (given d)."""
    rng = np.random.default_rng(505)
    n, b_reps = 2500, 4000
    base = rng.normal(size=n)
    d = rng.laplace(0.02, 0.6, size=n)
    df = long_table(base + d, base)
    got = to_dask(df, 5).paired.randomization("A", "B", higher_is_better=True, rng=3,
                                              n_permutations=b_reps)  # fmt: skip
    ref = df.paired.randomization("A", "B", higher_is_better=True, rng=3, n_permutations=b_reps)
    assert got.engine == "partition-flips"
    assert got.null_distribution.size == b_reps
    assert got.statistic == ref.statistic
    d_obs = df["score"][:n].to_numpy() - df["score"][n:].to_numpy()
    exact_sd = math.sqrt(float(np.sum(d_obs**2))) / n
    sd_g, sd_r = np.std(got.null_distribution, ddof=1), np.std(ref.null_distribution, ddof=1)
    mc_g, mc_r = sd_mc_se(got.null_distribution), sd_mc_se(ref.null_distribution)
    assert abs(sd_g - exact_sd) < Z * mc_g, (sd_g, exact_sd)
    assert abs(sd_g - sd_r) < Z * math.hypot(mc_g, mc_r), (sd_g, sd_r)
    assert abs(got.null_distribution.mean()) < Z * exact_sd / math.sqrt(b_reps)
    # the p-value is the plus-one Monte Carlo p-value of its own null distribution
    t, null = got.statistic, got.null_distribution
    assert got.pvalue == (1 + np.count_nonzero(np.abs(null) >= abs(t))) / (1 + b_reps)
    p = got.pvalue
    # deterministic given the p-value: its binomial MC error with R + 1 in the denominator
    assert got.pvalue_se == pytest.approx(math.sqrt(p * (1 - p) / (1 + b_reps)), rel=1e-12)
    for alternative, extreme in (("greater", null >= t), ("less", null <= t)):
        one = to_dask(df, 5).paired.randomization(
            "A", "B", higher_is_better=True, rng=3, n_permutations=b_reps, alternative=alternative
        )
        assert np.array_equal(one.null_distribution, null)
        assert one.pvalue == (1 + np.count_nonzero(extreme)) / (1 + b_reps)


def test_stratified_poisson_bootstrap_estimate_and_se() -> None:
    """Stratified Poisson bootstrap: the pandas stratified point estimate (bit for bit)
    and the analytic SE sqrt(sum_h w_h^2 s_h^2 / n_h) within MC error."""
    rng = np.random.default_rng(606)
    sizes = {"a": 400, "b": 1200, "c": 2400}
    scales = {"a": 2.0, "b": 1.0, "c": 0.5}
    stratum = np.concatenate([np.repeat(k, v) for k, v in sizes.items()])
    d = np.concatenate([rng.normal(0.1 * i, scales[k], size=v)
                        for i, (k, v) in enumerate(sizes.items())])  # fmt: skip
    base = rng.normal(size=d.size)
    df = long_table(base + d, base, stratum=stratum)
    ddf = to_dask(df, 4)
    b_reps = 3000
    for weights in (None, {"a": 0.5, "b": 0.3, "c": 0.2}):
        got = ddf.paired.bootstrap("A", "B", higher_is_better=True, rng=8, n_resamples=b_reps,
                                   stratum_weights=weights)  # fmt: skip
        ref = df.paired.bootstrap("A", "B", higher_is_better=True, rng=8, n_resamples=b_reps,
                                  stratum_weights=weights)  # fmt: skip
        assert got.engine == "poisson"
        assert got.sampling == "stratified"
        for f in ("improvement", "metric_a", "metric_b", "stratum_weights", "n_strata"):
            assert getattr(got, f) == getattr(ref, f), f
        n_tot = d.size
        w = {k: (weights or {})[k] if weights else v / n_tot for k, v in sizes.items()}
        dd_obs = pd.Series(df["score"][: d.size].to_numpy() - df["score"][d.size :].to_numpy())
        by = dd_obs.groupby(stratum)
        means, var = by.mean(), by.var(ddof=0)
        assert got.improvement == pytest.approx(sum(w[k] * means[k] for k in sizes), rel=1e-12)
        analytic = math.sqrt(sum(w[k] ** 2 * var[k] / sizes[k] for k in sizes))
        mc_g, mc_r = sd_mc_se(got.bootstrap_distribution), sd_mc_se(ref.bootstrap_distribution)
        assert abs(got.standard_error - analytic) < Z * mc_g + analytic / 400, weights
        assert abs(got.standard_error - ref.standard_error) < Z * math.hypot(mc_g, mc_r)


@pytest.mark.parametrize(
    ("missing", "fill_value"), [("complete-case", None), ("as-failure", -1.0)]
)  # fmt: skip
def test_poisson_and_flips_with_missing_outcomes(missing: str, fill_value: float | None) -> None:
    """With missing outcomes the Poisson path weights cases (after the policy), not rows:
    still independent of partitions and order, with the pandas point estimates and summary."""
    df = with_missing(continuous_table(n=1200))
    kw = {"higher_is_better": True, "missing": missing, "fill_value": fill_value}
    prints = []
    for npartitions, shuffle in ((1, None), (4, 1), (16, 2)):
        cmp = to_dask(df, npartitions, shuffle=shuffle).paired(stratum=None).compare("A", "B", **kw)
        boot = cmp.bootstrap(rng=5, n_resamples=300)
        flips = cmp.randomization(rng=5, n_permutations=300)
        assert (boot.engine, flips.engine) == ("poisson", "partition-flips")
        prints.append((boot, flips))
    for boot, flips in prints[1:]:
        assert_identical(boot, prints[0][0])
        assert_identical(flips, prints[0][1])
    ref = df.paired(stratum=None).bootstrap("A", "B", rng=5, n_resamples=10, **kw)
    boot = prints[0][0]
    for f in ("metric_a", "metric_b", "improvement", "n_cases", "missing"):
        assert getattr(boot, f) == getattr(ref, f), f


def test_poisson_by_case_with_a_group_column() -> None:
    """unit='case' on a clustered table: the Poisson path reports the number of groups."""
    df = clustered_table()
    ddf = to_dask(df, 3)
    for kw in ({}, {"stratified": False}):
        got = ddf.paired.bootstrap("A", "B", higher_is_better=True, rng=1, n_resamples=300,
                                   unit="case", **kw)  # fmt: skip
        ref = df.paired.bootstrap("A", "B", higher_is_better=True, rng=1, n_resamples=300,
                                  unit="case", **kw)  # fmt: skip
        assert got.engine == "poisson"
        for f in ("n_groups", "sampling", "unit", "improvement", "stratum_weights"):
            assert getattr(got, f) == getattr(ref, f), f
        col = ddf.paired.bootstrap("A", "B", higher_is_better=True, rng=1, n_resamples=300,
                                   unit="case", collect=True, **kw)  # fmt: skip
        assert_identical(col, ref)


def test_by_slice_poisson_reproducible_from_slice_seeds_and_collect_identical() -> None:
    df = continuous_table(n=600)
    df["site"] = np.where(df["case_id"] % 3 == 0, "n", np.where(df["case_id"] % 3 == 1, "s", "e"))
    ddf = to_dask(df, 3).paired(stratum=None)
    kw: dict[str, Any] = {"higher_is_better": True, "uncertainty": True, "rng": 4,
                          "n_resamples": 300, "n_permutations": 300}  # fmt: skip
    res = ddf.by_slice("A", "B", columns="site", **kw)
    raw = to_dask(df, 3)
    root = np.random.SeedSequence(4)  # each slice's streams, as the registry addresses them
    for _, row in res.table.iterrows():
        sub = raw[raw["site"] == row["value"]].paired(stratum=None)
        index = slice_index("site", row["value"])
        boot = sub.bootstrap("A", "B", higher_is_better=True, n_resamples=300,
                             rng=derived_seed(root, "slice_bootstrap", *index))  # fmt: skip
        test = sub.randomization("A", "B", higher_is_better=True, n_permutations=300,
                                 rng=derived_seed(root, "slice_randomization", *index))  # fmt: skip
        assert boot.engine == "poisson"
        assert (boot.confidence_interval.low, boot.confidence_interval.high) == (
            row["ci_low"], row["ci_high"])  # fmt: skip
        assert test.pvalue == row["pvalue"]
    got = ddf.by_slice("A", "B", columns="site", collect=True, **kw)
    ref = df.paired(stratum=None).by_slice("A", "B", columns="site", **kw)
    pd.testing.assert_frame_equal(got.table, ref.table, check_exact=True)
    assert got.overall == ref.overall
    assert got.heterogeneity == ref.heterogeneity


def test_bca_with_poisson_bootstrap_is_a_value_error() -> None:
    ddf = to_dask(continuous_table(), 3)
    with pytest.raises(ValueError, match="bca"):
        ddf.paired.bootstrap("A", "B", higher_is_better=True, rng=0, method="bca")
    res = ddf.paired.bootstrap("A", "B", higher_is_better=True, rng=0, method="bca",
                               n_resamples=200, collect=True)  # fmt: skip
    assert res.method == "bca"


def test_poisson_weights_have_the_poisson_law_shared_by_both_rows_of_a_case() -> None:
    """Two cases with differences (1, 0): each replicate is w1 / (w1 + w2), whose exact law
    (w1, w2 independent Poisson(1), replicates with w1 + w2 = 0 dropped) is known. Both models'
    scores are offset by 8, so a weight not shared by a case's two rows would leave the
    support. Chi-square goodness of fit, failing only at p < 1e-4; n_valid within 4 SEs."""
    from fractions import Fraction

    from scipy import stats

    b_reps = 20_000
    df = long_table(np.array([9.0, 8.0]), np.array([8.0, 8.0]))
    with pytest.warns(DegenerateDataWarning, match="Poisson resamples"):  # 13.5% dropped
        res = to_dask(df, 2).paired.bootstrap("A", "B", higher_is_better=True, rng=123,
                                              n_resamples=b_reps)  # fmt: skip
    assert res.engine == "poisson"
    p_valid = 1 - math.exp(-2)
    sd = math.sqrt(b_reps * p_valid * (1 - p_valid))
    assert abs(res.n_valid - b_reps * p_valid) < Z * sd
    law: dict[Fraction, float] = {}
    for a in range(25):
        for b in range(25):
            if a + b:
                p = math.exp(-2) / (math.factorial(a) * math.factorial(b)) / p_valid
                law[Fraction(a, a + b)] = law.get(Fraction(a, a + b), 0.0) + p
    seen = [Fraction(float(t)).limit_denominator(64) for t in res.bootstrap_distribution]
    assert set(seen) <= set(law), set(seen) - set(law)
    for t, f in zip(res.bootstrap_distribution[:200], seen[:200], strict=True):
        assert t == float(f)  # exactly a/(a+b): nothing outside the support
    big = [v for v in law if law[v] * res.n_valid >= 10]
    observed = [sum(1 for f in seen if f == v) for v in big]
    expected = [law[v] * res.n_valid for v in big]
    observed.append(res.n_valid - sum(observed))
    expected.append(res.n_valid - sum(expected))
    assert stats.chisquare(observed, expected).pvalue > 1e-4


def test_flip_signs_are_fair_independent_and_shared_by_both_rows() -> None:
    """Case i has difference 2**i (i < 20), so n * T* = sum_i e_i 2**i reveals every sign.
    Scores are offset by 2**21: a sign not shared by a case's two rows shows up as a term
    of 2**22. Each sign is +1 half the time (4 SEs), pairwise correlations |r| sqrt(B) < 5."""
    n, b_reps = 20, 5000
    d = 2.0 ** np.arange(n)
    df = long_table(d + 2.0**21, np.full(n, 2.0**21))
    res = to_dask(df, 3).paired.randomization("A", "B", higher_is_better=True, rng=9,
                                              n_permutations=b_reps)  # fmt: skip
    assert res.engine == "partition-flips"
    m = np.rint(res.null_distribution * n).astype(np.int64)
    assert np.max(np.abs(res.null_distribution * n - m)) < 1e-6  # integers, up to the division
    assert np.all(np.abs(m) < 2**n)
    assert np.all((m + 2**n - 1) % 2 == 0)
    bits = ((m + 2**n - 1) // 2)[:, None] >> np.arange(n)[None, :] & 1
    signs = 2 * bits - 1
    assert np.array_equal(signs @ d, m)
    share = bits.mean(axis=0)
    assert np.all(np.abs(share - 0.5) < Z * 0.5 / math.sqrt(b_reps)), share
    corr = np.corrcoef(signs, rowvar=False)[np.triu_indices(n, 1)]
    assert np.max(np.abs(corr)) * math.sqrt(b_reps) < 5.0


@pytest.mark.parametrize(
    ("mutate", "kw", "rule", "texts"),
    [pytest.param(*v[1:], id=v[0]) for v in VIOLATIONS],
)
def test_pairing_violation_caught_like_pandas(
    mutate: Mutation, kw: dict[str, Any], rule: str, texts: list[str]
) -> None:
    df = mutate(_base())
    with pytest.raises(PairingError) as ref:
        df.paired.compare("A", "B", higher_is_better=True, **kw)
    with pytest.raises(PairingError) as got:
        to_dask(df, 4, shuffle=3).paired.compare("A", "B", higher_is_better=True, **kw)
    err = got.value
    assert isinstance(err, ValueError)
    assert rule in err.rule
    assert rule in str(err)
    assert err.rule == ref.value.rule
    for text in texts:
        assert text in str(err), str(err)


def test_missing_outcomes_for_both_models_listed_together() -> None:
    df = _nan_a(_drop_b(_base()))
    with pytest.raises(PairingError) as got:
        to_dask(df, 3).paired.compare("A", "B", higher_is_better=True)
    msg = str(got.value)
    assert "missing outcome for A (A)` is violated by 3 case(s); first ids: [5, 18, 60]" in msg
    assert "missing outcome for B (B)` is violated by 2 case(s); first ids: [9, 44]" in msg
    assert set(got.value.failure_cases["index"]) == {5, 18, 60, 9, 44}


def test_many_violations_name_the_ten_smallest_ids_across_partitions() -> None:
    df = _base()
    rng = np.random.default_rng(0)
    bad = sorted(rng.choice(np.arange(1, 61), size=25, replace=False).tolist())
    df = pd.concat([df, df.loc[_rows(df, bad, "B")]], ignore_index=True)
    with pytest.raises(PairingError) as got:
        to_dask(df, 7, shuffle=5).paired.compare("A", "B", higher_is_better=True)
    msg = str(got.value)
    assert "is violated by 25 case(s)" in msg
    # the pandas path's wording, and failure_cases holds every id (it held the first 10)
    assert f"first ids: [{', '.join(map(str, bad[:10]))}, ... (15 more)]" in msg
    assert sorted(got.value.failure_cases["index"]) == bad


def test_groups_spanning_strata_caught_at_cluster_resampling() -> None:
    df = _base()
    df.loc[df["case_id"] == 1, "stratum"] = "s1"  # group 0 now spans s0 and s1
    ddf = to_dask(df, 3)
    with pytest.raises(
        PairingError, match=r"1 group\(s\) span several strata; first groups: \[0\]"
    ):
        ddf.paired.bootstrap("A", "B", higher_is_better=True, rng=0, n_resamples=10)
    with pytest.raises(PairingError) as got:
        ddf.paired.randomization("A", "B", higher_is_better=True, rng=0, n_permutations=10)
    assert got.value.rule == "groups nested in strata"
    # without strata (or by case) the design is fine
    res = ddf.paired.bootstrap("A", "B", higher_is_better=True, rng=0, n_resamples=10,
                               stratified=False)  # fmt: skip
    assert res.sampling == "cluster"


def test_unknown_model_lists_available_models() -> None:
    df = pd.concat([_base(), _base().assign(model="C")], ignore_index=True)
    with pytest.raises(PairingError) as got:
        to_dask(df).paired.compare("A", "Z", higher_is_better=True)
    assert got.value.rule == "models present"
    msg = str(got.value)
    assert "'Z'" in msg
    assert "'A'" in msg
    assert "'B'" in msg
    assert "'C'" in msg


def test_argument_errors() -> None:
    ddf = to_dask(_base())
    with pytest.raises(ValueError, match="two different models"):
        ddf.paired.compare("A", "A", higher_is_better=True)
    with pytest.raises(ValueError, match="score mode"):
        ddf.paired.compare("A", "B", higher_is_better=True, metric="auroc")
    with pytest.raises(ValueError, match="higher_is_better"):
        ddf.paired.compare("A", "B")
    with pytest.raises(PairingError, match="required columns") as got:
        ddf.paired(score="accuracy").compare("A", "B", higher_is_better=True)
    assert "'accuracy'" in str(got.value)
    with pytest.raises(PairingError, match="required columns"):
        ddf.paired(group="document").compare("A", "B", higher_is_better=True)
    with pytest.raises(ValueError, match="fill_value"):
        to_dask(_nan_a(_base())).paired.compare("A", "B", higher_is_better=True,
                                                missing="as-failure")  # fmt: skip
    with pytest.raises(ValueError, match="binary 0/1"):
        ddf.paired.exact_binomial("A", "B", higher_is_better=True)
    with pytest.raises(ValueError, match="missing"):
        ddf.paired.compare("A", "B", higher_is_better=True, missing="drop")
    # report() used to raise NotImplementedError here; it now runs on Dask tables
    # (tests/test_accessor.py compares it with the pandas report); prediction mode does not
    with pytest.raises(NotImplementedError, match="pandas accessor"):
        ddf.paired(target="score", prediction="score").compare("A", "B")


def test_slice_column_must_be_constant_within_a_case() -> None:
    df = _base()
    df.loc[_rows(df, [10, 21], "B"), "site"] = "z"
    with pytest.raises(PairingError) as got:
        to_dask(df, 3).paired.by_slice("A", "B", columns="site", higher_is_better=True)
    assert got.value.rule == "slice `site` constant within a case"
    assert "2 case(s)" in str(got.value)
    assert "[10, 21]" in str(got.value)
    with pytest.raises(PairingError, match="required columns"):
        to_dask(df, 3).paired.by_slice("A", "B", columns="nope", higher_is_better=True)


def test_caller_frame_not_modified_and_pairs_points_to_per_case() -> None:
    df = with_missing(clustered_table())
    before_pd = df.copy(deep=True)
    ddf = to_dask(df, 3)
    before = ddf.compute()
    name, columns, nparts = ddf._name, list(ddf.columns), ddf.npartitions
    cmp = ddf.paired.compare("A", "B", higher_is_better=True, missing="as-failure", fill_value=0.0)
    cmp.bootstrap(rng=0, n_resamples=50)
    cmp.randomization(rng=0, n_permutations=50)
    cmp.bootstrap(rng=0, n_resamples=50, unit="case")
    ddf.paired.by_slice("A", "B", columns="site", higher_is_better=True, missing="complete-case")
    pd.testing.assert_frame_equal(ddf.compute(), before)
    pd.testing.assert_frame_equal(df, before_pd)
    assert (ddf._name, list(ddf.columns), ddf.npartitions) == (name, columns, nparts)
    with pytest.raises(AttributeError, match=r"per_case\(\)"):
        _ = cmp.pairs
    assert not hasattr(cmp, "pairs")


@pytest.mark.parametrize(
    ("missing", "fill_value"), [("error", None), ("complete-case", None), ("as-failure", 0.25)]
)  # fmt: skip
def test_per_case_matches_pandas_pairs(missing: str, fill_value: float | None) -> None:
    df = clustered_table()
    if missing != "error":
        df = with_missing(df)
    kw = {"higher_is_better": True, "missing": missing, "fill_value": fill_value}
    lazy = to_dask(df, 4).paired.compare("A", "B", **kw).per_case()
    assert isinstance(lazy, dd.DataFrame)
    got = lazy.compute().set_index("case").sort_index()
    ref = df.paired.compare("A", "B", **kw).pairs
    assert list(got.columns) == list(ref.columns) == ["A", "B", "group", "stratum"]
    assert np.array_equal(got.index.to_numpy(), ref.index.to_numpy())
    for c in ("A", "B"):
        assert np.array_equal(got[c].to_numpy(np.float64), ref[c].to_numpy(np.float64))
    for c in ("group", "stratum"):
        assert list(got[c]) == list(ref[c])


# =========================================================================== accessor forms
def test_call_configures_columns_and_returns_a_fresh_accessor() -> None:
    df = clustered_table().rename(
        columns={"case_id": "id", "model": "system", "score": "acc", "group": "doc"}
    )
    ddf = to_dask(df, 3)
    conf = ddf.paired(case="id", model="system", score="acc", group="doc", stratum=None)
    assert conf is not ddf.paired
    got = conf.bootstrap("A", "B", higher_is_better=True, rng=1, n_resamples=300)
    ref = df.paired(case="id", model="system", score="acc", group="doc", stratum=None).bootstrap(
        "A", "B", higher_is_better=True, rng=1, n_resamples=300
    )
    assert_identical(got, ref)
    assert got.sampling == "cluster"
    assert got.n_groups == 72
    # configuring did not change the cached default accessor: it still wants case_id
    with pytest.raises(PairingError, match="required columns"):
        ddf.paired.compare("A", "B", higher_is_better=True)
    # group=None switches clusters off although no column is called "group"
    off = ddf.paired(case="id", model="system", score="acc", group=None).compare(
        "A", "B", higher_is_better=True
    )
    assert "stratum='stratum'" in repr(off)
    assert "group=" not in repr(off)


def test_one_call_forms_equal_compare_then_method() -> None:
    df = binary_table(n=900)
    ddf = to_dask(df, 3)
    cmp = ddf.paired.compare("A", "B", higher_is_better=True)
    pcmp = df.paired.compare("A", "B", higher_is_better=True)
    one = ddf.paired.bootstrap("A", "B", higher_is_better=True, rng=4, n_resamples=300)
    assert_identical(one, cmp.bootstrap(rng=4, n_resamples=300))
    assert_identical(one, pcmp.bootstrap(rng=4, n_resamples=300))
    one = ddf.paired.randomization("A", "B", higher_is_better=True, rng=4, n_permutations=300)
    assert_identical(one, pcmp.randomization(rng=4, n_permutations=300))
    with pytest.warns(IndependenceWarning):
        one = ddf.paired.exact_binomial("A", "B", higher_is_better=True, alternative="greater")
    with pytest.warns(IndependenceWarning):
        assert_identical(one, pcmp.exact_binomial(alternative="greater"))
    got = ddf.paired.by_slice("A", "B", columns="site", higher_is_better=True, min_size=10)
    ref = pcmp.by_slice("site", min_size=10)
    pd.testing.assert_frame_equal(got.table, ref.table, check_exact=True)
    assert cmp.a == "A"
    assert cmp.b == "B"
    assert cmp.higher_is_better is True
    assert cmp.n_cases == 900
    assert cmp.missing == pcmp.missing


# =========================================================================== storage, schedulers
def test_parquet_round_trip_with_pyarrow_string_ids(tmp_path: Any) -> None:
    """A partitioned parquet log read back with dd.read_parquet: ids and labels come back as
    pyarrow strings (hive partitions as categoricals) and give the pandas numbers."""
    pytest.importorskip("pyarrow")
    df = binary_table(n=900)
    hive = tmp_path / "hive"
    df.to_parquet(hive, partition_cols=["model"])  # model becomes a directory level
    flat = tmp_path / "flat"
    flat.mkdir()
    shuffled = df.sample(frac=1.0, random_state=0)
    rng = np.random.default_rng(0)
    cont = shuffled.assign(score=rng.normal(size=len(shuffled)))
    for i in range(4):
        cont.iloc[i::4].to_parquet(flat / f"part-{i}.parquet")
    hdf = dd.read_parquet(hive)
    fdf = dd.read_parquet(flat)
    assert pd.api.types.is_string_dtype(fdf["case_id"].dtype)
    assert isinstance(hdf["model"].dtype, pd.CategoricalDtype)
    got = hdf.paired.bootstrap("A", "B", higher_is_better=True, rng=7, n_resamples=500)
    ref = df.paired.bootstrap("A", "B", higher_is_better=True, rng=7, n_resamples=500)
    assert_identical(got, ref)
    assert got.n_groups == 150
    with pytest.warns(IndependenceWarning):
        got_e = hdf.paired.exact_binomial("A", "B", higher_is_better=True)
    with pytest.warns(IndependenceWarning):
        assert_identical(got_e, df.paired.exact_binomial("A", "B", higher_is_better=True))
    # continuous scores by case: collect=True equals pandas; the Poisson bootstrap keyed by
    # the ids gives the same numbers from pyarrow strings as from Python strings
    cfg = {"group": None, "stratum": None}
    got = fdf.paired(**cfg).bootstrap("A", "B", higher_is_better=True, rng=7, n_resamples=400,
                                      collect=True)  # fmt: skip
    ref = cont.paired(**cfg).bootstrap("A", "B", higher_is_better=True, rng=7, n_resamples=400)
    assert_identical(got, ref)
    pois = fdf.paired(**cfg).bootstrap("A", "B", higher_is_better=True, rng=7, n_resamples=400)
    same = to_dask(cont, 2).paired(**cfg).bootstrap("A", "B", higher_is_better=True, rng=7,
                                                    n_resamples=400)  # fmt: skip
    assert pois.engine == "poisson"
    assert_identical(pois, same)
    # errors name string ids
    broken = cont[~((cont["case_id"] == "case-00003") & (cont["model"] == "B"))]
    for i in range(4):
        broken.iloc[i::4].to_parquet(flat / f"part-{i}.parquet")
    with pytest.raises(PairingError, match=r"first ids: \['case-00003'\]"):
        dd.read_parquet(flat).paired.compare("A", "B", higher_is_better=True)


def test_threaded_scheduler_gives_the_sync_numbers() -> None:
    ddf = to_dask(clustered_table(), 6)
    ref = _scheduler_fingerprint(ddf)
    with dask.config.set(scheduler="threads"):
        got = _scheduler_fingerprint(ddf)
    assert [r.engine for r in got][2:] == ["poisson", "partition-flips"]
    for x, y in zip(got, ref, strict=True):
        assert_identical(x, y)


def test_distributed_local_cluster_gives_the_sync_numbers(local_cluster: Any) -> None:
    from distributed import get_task_stream

    ddf = to_dask(clustered_table(), 4)
    ref = _scheduler_fingerprint(ddf)
    start = time.perf_counter()
    with local_cluster.as_current(), get_task_stream(local_cluster) as stream:
        got = _scheduler_fingerprint(ddf)
    assert time.perf_counter() - start < 120
    workers = {task["worker"] for task in stream.data}
    assert len(workers) == 2, workers  # both worker processes computed
    pids = local_cluster.run(os.getpid)
    assert len(set(pids.values())) == 2
    assert os.getpid() not in pids.values()
    for x, y in zip(got, ref, strict=True):
        assert_identical(x, y)
    # a pairing error found from the workers' per-case counts
    with local_cluster.as_current(), pytest.raises(PairingError, match=r"\[7, 31, 52\]"):
        to_dask(_dup(_base()), 3).paired.compare("A", "B", higher_is_better=True)


# =========================================================================== regressions
# Bugs these tests found in the first version of the Dask path (fixed).
def test_exact_binomial_on_few_binary_cases() -> None:
    rng = np.random.default_rng(40)
    df = long_table(rng.integers(0, 2, 40).astype(float), rng.integers(0, 2, 40).astype(float))
    ref = df.paired.exact_binomial("A", "B", higher_is_better=True)
    got = to_dask(df, 2).paired.exact_binomial("A", "B", higher_is_better=True)
    assert_identical(got, ref)


def test_binary_scores_of_few_cases_bit_identical() -> None:
    rng = np.random.default_rng(41)
    df = long_table(rng.integers(0, 2, 60).astype(float), rng.integers(0, 2, 60).astype(float))
    ref = df.paired.bootstrap("A", "B", higher_is_better=True, rng=0, n_resamples=500)
    got = to_dask(df, 2).paired.bootstrap("A", "B", higher_is_better=True, rng=0, n_resamples=500)
    assert_identical(got, ref)


def test_comparison_point_estimates_equal_the_results_and_pandas() -> None:
    df = clustered_table()
    pcmp = df.paired(group=None, stratum=None).compare("A", "B", higher_is_better=True)
    dcmp = to_dask(df).paired(group=None, stratum=None).compare("A", "B", higher_is_better=True)
    res = pcmp.bootstrap(rng=0, n_resamples=10)
    for f in ("metric_a", "metric_b", "improvement"):
        assert getattr(dcmp, f) == getattr(res, f), f  # holds: both exact sums
        assert getattr(pcmp, f) == getattr(res, f), f  # was a float mean: last bits differed


def test_poisson_warns_when_replicates_are_dropped() -> None:
    """Undefined replicates are dropped and counted, with a warning below
    99% valid. A stratum of 3 cases has zero total Poisson weight in e**-3 = 5% of them."""
    rng = np.random.default_rng(8)
    n = 300
    stratum = np.where(np.arange(n) < 3, "tiny", "big")
    df = long_table(rng.normal(size=n), rng.normal(size=n), stratum=stratum)
    with pytest.warns(Warning, match="Poisson resamples"):
        res = to_dask(df, 2).paired.bootstrap("A", "B", higher_is_better=True, rng=1,
                                              n_resamples=2000)  # fmt: skip
    assert res.n_valid < 0.99 * 2000


def test_by_slice_reports_a_one_case_slice_like_pandas() -> None:
    """min_size=1: pandas reports a slice of one case; each Dask slice is a full comparison,
    whose '>= 2 paired cases' rule aborts the whole by_slice."""
    rng = np.random.default_rng(3)
    n = 60
    site = np.where(np.arange(n) == 0, "solo", np.where(np.arange(n) % 2 == 1, "x", "y"))
    df = long_table(rng.normal(size=n), rng.normal(size=n), site=site)
    ref = df.paired.by_slice("A", "B", columns="site", higher_is_better=True, min_size=1)
    got = to_dask(df, 2).paired.by_slice("A", "B", columns="site", higher_is_better=True,
                                         min_size=1)  # fmt: skip
    pd.testing.assert_frame_equal(got.table, ref.table, check_exact=True)


def test_slice_constant_checked_before_the_missing_outcome_policy() -> None:
    """Like group and stratum, a slice column must agree between A's and B's row of every
    case, including a case that complete-case then drops (pandas raises)."""
    df = _base()
    df.loc[_rows(df, [3], "A"), "score"] = np.nan
    df.loc[_rows(df, [3], "B"), "site"] = "z"
    kw = {"higher_is_better": True, "missing": "complete-case"}
    with pytest.raises(PairingError, match="slice `site` constant within a case"):
        df.paired.by_slice("A", "B", columns="site", **kw)
    with pytest.raises(PairingError, match="slice `site` constant within a case"):
        to_dask(df, 3).paired.by_slice("A", "B", columns="site", **kw)


def test_exact_binomial_error_names_the_offending_values() -> None:
    """Non-binary scores raise a ValueError naming the offending values."""
    df = with_missing(binary_table(n=600))
    kw = {"higher_is_better": True, "missing": "as-failure", "fill_value": 0.5}
    with pytest.raises(ValueError, match=r"0\.5"):
        df.paired(group=None).exact_binomial("A", "B", **kw)
    with pytest.raises(ValueError, match=r"0\.5"):
        to_dask(df).paired(group=None).exact_binomial("A", "B", **kw)
