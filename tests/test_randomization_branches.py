"""Branches of :mod:`pdpaired.core.randomization` checked by their values.

The NumPy sign-flip engine reads the bits of an assignment ``k`` at a time
(``k`` = 8, 4 or 1, whichever keeps its lookup table small) and looks up exact
subset sums; here every ``k`` is checked against the same flips written out
bit by bit from the PCG64 stream. A compressed design (rows with
frequencies, as the Dask path builds) sent to the exact or the sign-flip
engine must give the same test as its expansion to one row per unit, bit for
bit, and the exact null distribution must be the enumeration of every sign
assignment written out here.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from pdpaired.core import randomization
from pdpaired.core.engine import Design
from pdpaired.core.randomization import (
    RandomizationCore,
    _flip_layout,
    _flip_sums_numpy,
    randomization_design,
)


def stream_bits(seed: int, n_words_per: int, n_perm: int) -> np.ndarray:
    """Bits (n_perm x 64 * words) of the ``randomization_bits`` stream, bit j of word i at 64i+j.

    The stream is the child ``(2,)`` of the root seed (docs: the stream registry).
    """
    ss = np.random.SeedSequence(np.random.SeedSequence(seed).entropy, spawn_key=(2,))
    words = np.random.PCG64(ss).random_raw(n_perm * n_words_per).reshape(n_perm, n_words_per)
    shifts = np.arange(64, dtype=np.uint64)
    bits = (words[:, :, None] >> shifts) & np.uint64(1)
    return bits.reshape(n_perm, n_words_per * 64).astype(np.int64)


def flipped_sums(q: np.ndarray, sizes: list[int], bits: np.ndarray) -> np.ndarray:
    """Per assignment and stratum: sum of the units' values, negated where the bit is set.

    Stratum ``h`` occupies ``ceil(G_h / 64)`` whole words; its unit ``j`` is the
    ``j``-th bit from the start of them.
    """
    out = np.zeros((bits.shape[0], len(sizes)), dtype=np.int64)
    start_unit, start_bit = 0, 0
    for h, g in enumerate(sizes):
        for j in range(g):
            sign = 1 - 2 * bits[:, start_bit + j]
            out[:, h] += sign * q[start_unit + j]
        start_unit += g
        start_bit += -(-g // 64) * 64
    return out


@pytest.mark.parametrize(("table_bytes", "k"), [(1 << 24, 8), (1 << 14, 4), (100, 1)])
def test_lookup_codes_of_every_width_sum_the_flips_written_out(
    monkeypatch: pytest.MonkeyPatch, table_bytes: int, k: int
) -> None:
    # strata of 70, 100 and 1 units: 2 + 2 + 1 words, 320 padded positions
    monkeypatch.setattr(randomization, "_TABLE_BYTES", table_bytes)
    sizes = [70, 100, 1]
    rng = np.random.default_rng(4)
    q = rng.integers(-(2**40), 2**40, size=sum(sizes), dtype=np.int64)
    ptr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    lay = _flip_layout(q, ptr, tables=True)
    assert lay.k == k  # the width under test is the one in use
    assert lay.words_per == 5
    n_perm = 37
    ss = np.random.SeedSequence(np.random.SeedSequence(21).entropy, spawn_key=(2,))
    for batch in (1, 5, 8192):  # batches never change the sums
        got = _flip_sums_numpy(lay, n_perm, ss, batch)
        want = flipped_sums(q, sizes, stream_bits(21, 5, n_perm))
        np.testing.assert_array_equal(got, want)


def continuous_design(sizes: list[int], seed: int) -> Design:
    rng = np.random.default_rng(seed)
    n = sum(sizes)
    return Design(
        value=rng.normal(0.3, 1.0, n),
        count=None,
        unit_ptr=np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
        weight=np.array(sizes, dtype=np.float64) / n if len(sizes) > 1 else np.ones(1),
        sign=1.0,
    )


def test_numpy_engine_null_distribution_is_the_same_for_every_lookup_width(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PDPAIRED_ACCELERATOR", "numpy")
    sizes = [70, 100]
    d = continuous_design(sizes, 9)
    n_perm = 200
    nulls = []
    for table_bytes, k in ((1 << 24, 8), (1 << 13, 4), (100, 1)):  # 256 padded units
        monkeypatch.setattr(randomization, "_TABLE_BYTES", table_bytes)
        assert _flip_layout(np.ones(170, np.int64), d.unit_ptr, tables=True).k == k
        core = randomization_design(
            d, n_permutations=n_perm, alternative="two-sided",
            seed_sequence=np.random.SeedSequence(13), batch=None,
        )  # fmt: skip
        assert core.engine == "numpy"
        assert not core.exact
        nulls.append(core.null_distribution)
    for other in nulls[1:]:
        np.testing.assert_array_equal(nulls[0], other)
    # the statistic of each assignment, in floating point from the bits of the stream:
    # sum over strata of w_h * mean of the signed values (no quantization)
    bits = stream_bits(13, 4, n_perm)
    v = d.value
    signed_a = (1 - 2 * bits[:, :70]) * v[:70]
    signed_b = (1 - 2 * bits[:, 128 : 128 + 100]) * v[70:]
    want = d.weight[0] * signed_a.mean(axis=1) + d.weight[1] * signed_b.mean(axis=1)
    np.testing.assert_allclose(nulls[0], want, rtol=1e-12, atol=1e-14)


def test_a_large_design_picks_four_bit_codes_and_sums_the_flips(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # more than 65,536 padded units: an 8-bit table would exceed 16 MiB, so k = 4
    monkeypatch.setenv("PDPAIRED_ACCELERATOR", "numpy")
    n = 70_000
    rng = np.random.default_rng(2)
    q = rng.integers(-(2**30), 2**30, size=n, dtype=np.int64)
    lay = _flip_layout(q, np.array([0, n]), tables=True)
    assert lay.k == 4
    words = -(-n // 64)
    ss = np.random.SeedSequence(np.random.SeedSequence(6).entropy, spawn_key=(2,))
    got = _flip_sums_numpy(lay, 5, ss, 8192)
    bits = stream_bits(6, words, 5)[:, :n]
    want = ((1 - 2 * bits) * q).sum(axis=1)
    np.testing.assert_array_equal(got[:, 0], want)


# --------------------------------------------------------------------------- compressed designs
def compressed_design(value: np.ndarray, freq: np.ndarray, ptr: np.ndarray) -> Design:
    sizes = np.add.reduceat(freq, ptr[:-1])
    return Design(
        value=value,
        count=None,
        unit_ptr=ptr,
        weight=sizes / sizes.sum(),
        sign=-1.0,
        freq=freq,
    )


def run(
    d: Design, n_permutations: int, alternative: str, seed: int, batch: int | None
) -> RandomizationCore:
    return randomization_design(
        d, n_permutations=n_permutations, alternative=alternative,
        seed_sequence=np.random.SeedSequence(seed), batch=batch,
    )  # fmt: skip


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_compressed_design_sent_to_exact_enumeration_is_its_expansion(alternative: str) -> None:
    # 10 units in two strata as 5 rows with frequencies: 2**10 assignments, enumerated
    value = np.array([0.5, -1.25, 2.0, 0.75, -0.25])
    freq = np.array([2, 1, 3, 2, 2])
    ptr = np.array([0, 3, 5])
    d = compressed_design(value, freq, ptr)
    assert d.n_units == 10
    got = run(d, 1024, alternative, 1, None)
    ref = run(d.expanded(), 1024, alternative, 1, None)
    assert got.exact
    assert ref.exact
    assert got.engine == ref.engine == "exact"
    np.testing.assert_array_equal(got.null_distribution, ref.null_distribution)
    assert got.pvalue == ref.pvalue
    assert got.pvalue_se is None
    # oracle: every sign assignment of the 10 units, the statistic written out
    units = np.repeat(value, freq)
    stratum = np.repeat([0, 0, 0, 1, 1], freq)
    w = d.weight
    stats = []
    for signs in itertools.product((1.0, -1.0), repeat=10):
        s = np.array(signs) * units
        stats.append(-(w[0] * s[stratum == 0].mean() + w[1] * s[stratum == 1].mean()))
    stats_arr = np.array(stats)
    np.testing.assert_allclose(np.sort(got.null_distribution), np.sort(stats_arr), atol=1e-12)
    t = -(w[0] * units[stratum == 0].mean() + w[1] * units[stratum == 1].mean())
    tol = 1e-9
    if alternative == "two-sided":
        p = np.mean(np.abs(stats_arr) >= abs(t) - tol)
    elif alternative == "greater":
        p = np.mean(stats_arr >= t - tol)
    else:
        p = np.mean(stats_arr <= t + tol)
    assert got.pvalue == pytest.approx(p, abs=1e-15)


def test_compressed_design_with_many_distinct_values_uses_the_sign_flips_of_its_expansion(
    engine: str,
) -> None:
    # 40 distinct values, 80 units: not few enough for the binomial shortcut, too many
    # for enumeration; the sign-flip engine needs one row per unit
    rng = np.random.default_rng(3)
    value = rng.normal(0.1, 1.0, 40)
    freq = np.tile([1, 3], 20)
    ptr = np.array([0, 15, 40])
    d = compressed_design(value, freq, ptr)
    got = run(d, 300, "two-sided", 17, 64)
    ref = run(d.expanded(), 300, "two-sided", 17, 64)
    assert got.engine == ref.engine == engine
    assert not got.exact
    np.testing.assert_array_equal(got.null_distribution, ref.null_distribution)
    assert (got.pvalue, got.pvalue_se) == (ref.pvalue, ref.pvalue_se)
    # and the expansion's flips are the stream's bits, unit by unit (strata padded to 64)
    e = d.expanded()
    sizes = [int(s) for s in e.sizes]
    assert sizes == [29, 51]  # one word each
    bits = stream_bits(17, 2, 300)
    v = e.value
    s0 = (1 - 2 * bits[:, : sizes[0]]) * v[: sizes[0]]
    s1 = (1 - 2 * bits[:, 64 : 64 + sizes[1]]) * v[sizes[0] :]
    want = -(e.weight[0] * s0.mean(axis=1) + e.weight[1] * s1.mean(axis=1))
    np.testing.assert_allclose(got.null_distribution, want, rtol=1e-12, atol=1e-14)
