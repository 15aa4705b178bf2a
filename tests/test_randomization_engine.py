"""Randomization test and exact binomial: engines, reproducibility, arguments, views."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import pdpaired
from pdpaired import DegenerateDataWarning, IndependenceWarning

from .conftest import long_table, require_numba


def perm(df: pd.DataFrame, **kw: object) -> pdpaired.RandomizationResult:
    kw.setdefault("higher_is_better", True)
    kw.setdefault("n_permutations", 500)
    kw.setdefault("rng", 11)
    return df.paired.randomization("A", "B", **kw)


@pytest.mark.parametrize("design", ["iid", "cluster", "stratified", "stratified-cluster"])
def test_same_seed_identical_across_engines_batches_threads(
    clustered: pd.DataFrame, design: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    cfg = {
        "iid": {"group": None, "stratum": None},
        "cluster": {"stratum": None},
        "stratified": {"group": None},
        "stratified-cluster": {},
    }[design]
    numba = require_numba()
    df = clustered.paired(**cfg)
    out = []
    for accel in ("numpy", "numba"):
        monkeypatch.setenv("PDPAIRED_ACCELERATOR", accel)
        for batch in (None, 1, 33):
            res = df.randomization(
                "A", "B", higher_is_better=True, rng=4, n_permutations=300, batch=batch
            )
            assert res.engine == accel
            out.append(res.null_distribution)
    numba.set_num_threads(1)
    try:
        out.append(
            df.randomization(
                "A", "B", higher_is_better=True, rng=4, n_permutations=300
            ).null_distribution
        )
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    for other in out[1:]:
        np.testing.assert_array_equal(out[0], other)


def test_sign_bits_come_from_the_pcg64_stream(engine: str) -> None:
    """Assignment r flips unit u when bit u % 64 of word r*W + u // 64 is set."""
    n, reps = 70, 6
    d = np.random.default_rng(0).normal(size=n)
    res = perm(long_table(d, np.zeros(n)), n_permutations=reps, rng=5)
    root = np.random.SeedSequence(5)
    stream = np.random.PCG64(np.random.SeedSequence(root.entropy, spawn_key=(2,)))
    words = stream.random_raw(reps * 2).reshape(reps, 2)
    bits = (words[:, np.arange(n) // 64] >> (np.arange(n) % 64).astype(np.uint64)) & np.uint64(1)
    expected = np.where(bits == 1, -d, d).mean(axis=1)
    np.testing.assert_allclose(res.null_distribution, expected, rtol=1e-9, atol=1e-12)


def test_exact_enumeration_when_affordable() -> None:
    df = long_table(np.arange(10.0), np.zeros(10))
    res = perm(df, n_permutations=1024)
    assert res.exact
    assert res.n_permutations == 1024
    assert res.pvalue_se is None
    assert res.engine == "exact"
    not_exact = perm(df, n_permutations=1023)
    assert not not_exact.exact
    assert not_exact.pvalue_se is not None


def test_plus_one_pvalue_is_never_zero() -> None:
    rng = np.random.default_rng(1)
    df = long_table(rng.normal(3, 1, 400), rng.normal(0, 1, 400))
    res = perm(df, n_permutations=999)
    assert res.pvalue == pytest.approx(1 / 1000)
    assert res.pvalue_se == pytest.approx(np.sqrt(0.001 * 0.999 / 1000))


def test_binary_scores_use_binomial_shortcut_and_seed_reproduces() -> None:
    rng = np.random.default_rng(3)
    df = long_table(rng.integers(0, 2, 400), rng.integers(0, 2, 400))
    r1 = perm(df, rng=None)
    r2 = perm(df, rng=r1.seed)
    assert r1.engine == "binomial"
    np.testing.assert_array_equal(r1.null_distribution, r2.null_distribution)
    r3 = perm(df, rng=r1.seed, batch=7)
    np.testing.assert_array_equal(r1.null_distribution, r3.null_distribution)


def test_alternatives_and_direction(continuous: pd.DataFrame) -> None:
    up = perm(continuous, alternative="greater")
    down = perm(continuous, alternative="less")
    two = perm(continuous, alternative="two-sided")
    assert up.statistic > 0
    assert up.pvalue < 0.05 < down.pvalue
    # same seed, same null draws: the two-sided count is the sum of the two tails
    np.testing.assert_array_equal(up.null_distribution, two.null_distribution)
    r = up.n_permutations
    tail_up = round(up.pvalue * (r + 1)) - 1
    tail_low = int(np.count_nonzero(up.null_distribution <= -up.statistic))
    assert round(two.pvalue * (r + 1)) - 1 == tail_up + tail_low
    flipped = perm(continuous, higher_is_better=False, alternative="less")
    assert flipped.statistic == -up.statistic
    assert flipped.pvalue == up.pvalue
    np.testing.assert_array_equal(flipped.null_distribution, -up.null_distribution)


def test_group_swaps_are_the_default_with_groups(clustered: pd.DataFrame) -> None:
    res = perm(clustered)
    assert res.unit == "group"
    assert res.sampling == "stratified-cluster"
    assert perm(clustered, unit="case").unit == "case"


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"n_permutations": 0}, "`n_permutations` must be a positive integer"),
        ({"alternative": "bigger"}, "`alternative` must be one of"),
        ({"unit": "doc"}, "`unit` must be one of"),
        ({"batch": -3}, "`batch` must be a positive integer"),
        ({"rng": -2}, "`rng`"),
    ],
)
def test_randomization_bad_arguments(continuous: pd.DataFrame, kw: dict, match: str) -> None:
    with pytest.raises((ValueError, TypeError), match=match):
        perm(continuous, **kw)


def test_randomization_views(clustered: pd.DataFrame) -> None:
    res = perm(clustered, alternative="greater")
    text = str(res)
    assert "Randomization test" in text
    assert "greater, group swaps, 500 permutations, seed 11" in text
    assert res._repr_html_().startswith("<div class='pdpaired-result'><table>")
    d = res.to_dict()
    json.dumps(d, allow_nan=False)
    assert d["pvalue"] == res.pvalue
    assert d["result"] == "RandomizationResult"
    assert res.to_frame().shape[0] == 1
    ax = res.plot()
    assert ax.get_ylabel() == "assignments"


# ---------------------------------------------------------------- exact binomial
def binary() -> pd.DataFrame:
    a = np.array([1, 1, 1, 1, 0, 0, 1, 0, 1, 1])
    b = np.array([0, 0, 0, 1, 1, 0, 1, 0, 1, 0])
    return long_table(a, b)


def test_exact_binomial_counts_and_direction() -> None:
    res = binary().paired.exact_binomial("A", "B", higher_is_better=True)
    assert (res.a_only, res.b_only, res.both_pass, res.both_fail) == (4, 1, 3, 2)
    assert res.statistic == 4
    assert res.discordant_share == pytest.approx(0.8)
    lower = binary().paired.exact_binomial("A", "B", higher_is_better=False)
    assert (lower.a_only, lower.b_only, lower.both_pass, lower.both_fail) == (1, 4, 2, 3)
    assert lower.improvement == -res.improvement


def test_exact_binomial_rejects_non_binary_scores_naming_values() -> None:
    df = long_table(np.array([1, 0, 0.5, 1, 2.0]), np.array([0, 0, 1, 1, 1]))
    with pytest.raises(ValueError, match=r"2 other value\(s\): 0.5, 2"):
        df.paired.exact_binomial("A", "B", higher_is_better=True)


def test_exact_binomial_zero_discordant_and_groups_warn() -> None:
    df = long_table(np.array([1, 0, 1, 1]), np.array([1, 0, 1, 1]))
    with pytest.warns(DegenerateDataWarning, match="No discordant pairs"):
        res = df.paired.exact_binomial("A", "B", higher_is_better=True)
    assert res.pvalue == 1.0
    assert res.discordant_share is None
    json.dumps(res.to_dict(), allow_nan=False)
    grouped = binary()
    grouped["group"] = grouped["case_id"] // 3
    with pytest.warns(IndependenceWarning, match="randomization\\(unit='group'\\)"):
        grouped.paired.exact_binomial("A", "B", higher_is_better=True)


def test_exact_binomial_bad_arguments() -> None:
    df = binary()
    with pytest.raises(ValueError, match="`alternative` must be one of"):
        df.paired.exact_binomial("A", "B", higher_is_better=True, alternative="up")
    with pytest.raises(TypeError, match="`mid_p`"):
        df.paired.exact_binomial("A", "B", higher_is_better=True, mid_p="yes")
    with pytest.raises(ValueError, match="`confidence_level`"):
        df.paired.exact_binomial("A", "B", higher_is_better=True, confidence_level=95)


def test_exact_binomial_views() -> None:
    res = binary().paired.exact_binomial("A", "B", higher_is_better=True, mid_p=True)
    text = str(res)
    assert "A only 4, B only 1 (of 5)" in text
    assert "mid-p" in text
    d = res.to_dict()
    json.dumps(d, allow_nan=False)
    assert d["a_only"] == 4
    frame = res.to_frame()
    assert frame.loc[0, "ci_low"] == res.confidence_interval.low
    assert "ExactBinomialResult(" in repr(res)
