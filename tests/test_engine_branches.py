"""Branches of :mod:`pdpaired.core.engine` checked by their values.

A *compressed* design (one row per distinct unit with its frequency, as the
Dask path builds for 0/1 scores) stands for the same units as the design with
one row per unit: every statistic of it -- the full-sample value, the
distinct-unit table of the multinomial engine, the Rao-Wu centres, the
jackknife, the bootstrap replicates -- must equal the expanded design's, bit
for bit. The NumPy path's strata larger than a block of draws and strata of
one unit give the replicates written out by hand here.
"""

from __future__ import annotations

import numpy as np
import pytest

from pdpaired.core import engine as _engine
from pdpaired.core.engine import (
    Design,
    choose_engine,
    fixed_point,
    full_sample_statistic,
    rao_wu,
    resample,
)
from pdpaired._lib.rng import CHUNK, stream_sequence


def compressed(with_counts: bool) -> Design:
    # two strata; rows are distinct (value, count) units with their frequencies
    value = np.array([-1.0, 0.0, 1.0, -1.0, 0.0, 1.0, 2.0])
    count = np.array([1, 2, 1, 3, 1, 2, 1]) if with_counts else None
    if with_counts:
        value = value * np.array([1, 2, 1, 3, 1, 2, 1])  # unit sums
    return Design(
        value=value,
        count=count,
        unit_ptr=np.array([0, 3, 7]),
        weight=np.array([0.35, 0.65]),
        sign=-1.0,
        freq=np.array([30, 50, 20, 10, 40, 25, 5]),
    )


@pytest.mark.parametrize("with_counts", [False, True])
def test_compressed_design_equals_its_expansion(with_counts: bool) -> None:
    d = compressed(with_counts)
    e = d.expanded()
    assert e.freq is None
    assert e.n_units == d.n_units == 180
    np.testing.assert_array_equal(d.sizes, [100, 80])
    np.testing.assert_array_equal(e.sizes, [100, 80])
    np.testing.assert_array_equal(e.unit_ptr, [0, 100, 180])
    np.testing.assert_array_equal(e.value, np.repeat(d.value, d.freq))
    if with_counts:
        np.testing.assert_array_equal(e.count, np.repeat(d.count, d.freq))
    else:
        assert e.count is None
    assert e.expanded() is e
    np.testing.assert_array_equal(d.row_weights(), d.freq)
    np.testing.assert_array_equal(e.row_weights(), np.ones(180, dtype=np.int64))
    # the statistic, by hand: per stratum sum / count, weighted, direction -1
    c = np.ones(7) if d.count is None else d.count
    r0 = np.sum(d.value[:3] * d.freq[:3]) / np.sum(c[:3] * d.freq[:3])
    r1 = np.sum(d.value[3:] * d.freq[3:]) / np.sum(c[3:] * d.freq[3:])
    want = -(0.35 * r0 + 0.65 * r1)
    assert full_sample_statistic(d) == pytest.approx(want, rel=1e-14)
    assert full_sample_statistic(d) == full_sample_statistic(e)
    # Rao-Wu centres are those ratios, factors sqrt(G / (G - 1))
    center, factor = rao_wu(d)
    np.testing.assert_allclose(center, [r0, r1], rtol=1e-14)
    np.testing.assert_array_equal(factor, np.sqrt([100 / 99, 80 / 79]))
    ce, fe = rao_wu(e)
    np.testing.assert_array_equal(center, ce)
    np.testing.assert_array_equal(factor, fe)


@pytest.mark.parametrize("with_counts", [False, True])
def test_distinct_table_of_a_compressed_design(with_counts: bool) -> None:
    d = compressed(with_counts)
    e = d.expanded()
    name, _, qscale, distinct = choose_engine(d)
    name_e, _, qscale_e, distinct_e = choose_engine(e)
    assert name == name_e == "multinomial"
    assert qscale == qscale_e
    assert distinct is not None
    assert distinct_e is not None
    for (u, uc, f), (ue, uce, fe) in zip(distinct, distinct_e, strict=True):
        np.testing.assert_array_equal(u, ue)
        np.testing.assert_array_equal(f, fe)
        if with_counts:
            np.testing.assert_array_equal(uc, uce)
        else:
            assert uc is None
            assert uce is None
    # frequencies per stratum add up to the stratum's units
    assert [int(x[2].sum()) for x in distinct] == [100, 80]
    # and the replicates are the same draws, bit for bit
    for rescale in (False, True):
        a, ea = resample(d, 300, np.random.SeedSequence(4), rescale=rescale)
        b, eb = resample(e, 300, np.random.SeedSequence(4), rescale=rescale)
        assert ea == eb == "multinomial"
        np.testing.assert_array_equal(a, b)
    # the jackknife of a compressed design: each row's value equals that of any
    # of its units in the expansion
    tm, st = d.jackknife()
    tm_e, st_e = e.jackknife()
    np.testing.assert_array_equal(np.repeat(tm, d.freq), tm_e)
    np.testing.assert_array_equal(np.repeat(st, d.freq), st_e)


def test_compressed_design_with_many_distinct_units_is_expanded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PDPAIRED_ACCELERATOR", "numpy")
    rng = np.random.default_rng(2)
    value = rng.normal(size=40)  # 40 distinct values for 80 units: no multinomial
    d = Design(value=value, count=None, unit_ptr=np.array([0, 40]), weight=np.array([1.0]),
               sign=1.0, freq=np.full(40, 2))  # fmt: skip
    got, engine = resample(d, 150, np.random.SeedSequence(8))
    ref, engine_e = resample(d.expanded(), 150, np.random.SeedSequence(8))
    assert engine == engine_e == "numpy"
    np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("with_counts", [False, True])
def test_numpy_draws_by_hand(monkeypatch: pytest.MonkeyPatch, with_counts: bool) -> None:
    """Strata of one unit and strata larger than a block, against the draws written out."""
    monkeypatch.setenv("PDPAIRED_ACCELERATOR", "numpy")
    monkeypatch.setattr(_engine, "_BLOCK_WORDS", 4)  # strata of 9 and 13 units: 3-4 blocks
    rng = np.random.default_rng(6)
    ptr = np.array([0, 1, 10, 23])
    value = rng.normal(size=23)
    count = rng.integers(1, 4, 23) if with_counts else None
    d = Design(value=value, count=count, unit_ptr=ptr, weight=np.array([0.1, 0.4, 0.5]),
               sign=1.0)  # fmt: skip
    n = CHUNK + 7  # two chunks, the second partial
    got, engine = resample(d, n, np.random.SeedSequence(3))
    assert engine == "numpy"
    q, qscale = fixed_point(d)
    cnt = np.ones(23, dtype=np.int64) if count is None else count
    want = np.empty(n)
    for k in range(2):
        ss = stream_sequence(np.random.SeedSequence(3), "bootstrap_chunk", k)
        gen = np.random.Generator(np.random.PCG64(ss))
        m = min(n, (k + 1) * CHUNK) - k * CHUNK
        sums = np.zeros((m, 3))
        cnts = np.zeros((m, 3))
        for h in range(3):
            a, g = int(ptr[h]), int(ptr[h + 1] - ptr[h])
            if g == 1:  # no draw at all
                sums[:, h] = q[a]
                cnts[:, h] = cnt[a]
                continue
            for r in range(m):  # replicate by replicate, blocks of 4 draws
                idx = np.concatenate([gen.integers(0, g, size=min(4, g - p0))
                                      for p0 in range(0, g, 4)])  # fmt: skip
                sums[r, h] = q[a + idx].sum()
                cnts[r, h] = cnt[a + idx].sum()
        ratio = sums * qscale / cnts
        want[k * CHUNK : k * CHUNK + m] = ratio @ d.weight
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)
