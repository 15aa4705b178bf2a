"""Resampling engine: reproducibility, bit-identity across engines/batches/threads,
arguments, direction rules, decisions, degenerate data and the result views."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.special import ndtr, ndtri, stdtrit

import pdpaired
from pdpaired import DegenerateDataWarning
from pdpaired._lib.rng import CHUNK, stream_sequence
from pdpaired.core import engine as _engine
from pdpaired.core.engine import (
    Design,
    choose_engine,
    fixed_point,
    full_sample_statistic,
    rao_wu,
    resample,
)

from ..conftest import long_table, require_numba

DESIGNS = {
    "iid": {"group": None, "stratum": None},
    "cluster": {"stratum": None},
    "stratified": {"group": None},
    "stratified-cluster": {},
}


def run(df: pd.DataFrame, design: str, **kw: object) -> pdpaired.BootstrapResult:
    kw.setdefault("higher_is_better", True)
    kw.setdefault("n_resamples", 400)
    kw.setdefault("rng", 123)
    return df.paired(**DESIGNS[design]).bootstrap("A", "B", **kw)


@pytest.mark.parametrize(
    ("design", "weighting"),
    [(d, "item") for d in DESIGNS] + [("cluster", "group"), ("stratified-cluster", "group")],
)
def test_same_seed_bit_identical_across_engines_and_batches(
    clustered: pd.DataFrame, design: str, weighting: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    require_numba()
    results = []
    for accel in ("numpy", "numba"):
        monkeypatch.setenv("PDPAIRED_ACCELERATOR", accel)
        for batch in (None, 1, 7, 1000):
            res = run(clustered, design, batch=batch, weighting=weighting)
            assert res.engine == accel
            results.append(res.bootstrap_distribution)
    for other in results[1:]:
        np.testing.assert_array_equal(results[0], other)


def test_numba_thread_count_does_not_change_results(
    continuous: pd.DataFrame, monkeypatch: pytest.MonkeyPatch
) -> None:
    numba = require_numba()
    monkeypatch.setenv("PDPAIRED_ACCELERATOR", "numba")
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = run(continuous, "iid", n_resamples=2000).bootstrap_distribution
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        many = run(continuous, "iid", n_resamples=2000).bootstrap_distribution
    finally:
        numba.set_num_threads(before)
    np.testing.assert_array_equal(one, many)


@pytest.mark.parametrize("design", ["iid", "stratified-cluster"])
def test_numpy_thread_count_does_not_change_results(
    clustered: pd.DataFrame, design: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # chunks of 64 replicates run on a thread pool; 700 replicates = 11 chunks,
    # the last one partial, so threads finish out of order (a pool even for this
    # small work, which otherwise runs on the calling thread)
    from pdpaired.core import accel

    monkeypatch.setattr(accel, "THREAD_MIN_SECONDS", 0.0)
    monkeypatch.setenv("PDPAIRED_ACCELERATOR", "numpy")
    out = []
    for threads in ("1", "2", "5"):
        monkeypatch.setenv("PDPAIRED_NUM_THREADS", threads)
        res = run(clustered, design, n_resamples=700, method="bca")
        assert res.engine == "numpy"
        out.append(res)
    for other in out[1:]:
        np.testing.assert_array_equal(out[0].bootstrap_distribution, other.bootstrap_distribution)
        assert other.confidence_interval == out[0].confidence_interval


@pytest.mark.parametrize("bad", ["0", "-2", "two", "1.5"])
def test_bad_numpy_thread_count_is_an_error(
    continuous: pd.DataFrame, bad: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PDPAIRED_ACCELERATOR", "numpy")
    monkeypatch.setenv("PDPAIRED_NUM_THREADS", bad)
    with pytest.raises(ValueError, match="PDPAIRED_NUM_THREADS must be a positive integer"):
        run(continuous, "iid", n_resamples=200)


def test_large_replicates_use_the_chunked_numpy_path(monkeypatch: pytest.MonkeyPatch) -> None:
    # more draws per replicate than one NumPy block: positions split across blocks and strata
    from pdpaired.core import engine as _engine

    monkeypatch.setattr(_engine, "_BLOCK_WORDS", 64)
    rng = np.random.default_rng(0)
    n = 300
    df = long_table(rng.normal(size=n), rng.normal(size=n), stratum=np.arange(n) % 7)
    require_numba()
    out = []
    for accel in ("numpy", "numba"):
        monkeypatch.setenv("PDPAIRED_ACCELERATOR", accel)
        out.append(df.paired.bootstrap("A", "B", higher_is_better=True, rng=1, n_resamples=50))
    np.testing.assert_array_equal(out[0].bootstrap_distribution, out[1].bootstrap_distribution)


def test_multinomial_path_for_binary_scores_is_batch_invariant() -> None:
    rng = np.random.default_rng(3)
    df = long_table(rng.integers(0, 2, 500), rng.integers(0, 2, 500))
    r1 = df.paired.bootstrap("A", "B", higher_is_better=True, rng=9, n_resamples=1000)
    r2 = df.paired.bootstrap("A", "B", higher_is_better=True, rng=9, n_resamples=1000, batch=3)
    assert r1.engine == r2.engine == "multinomial"
    np.testing.assert_array_equal(r1.bootstrap_distribution, r2.bootstrap_distribution)


def test_bootstrap_indices_are_numpys_bounded_integers(engine: str) -> None:
    """Chunk k of 64 replicates draws Generator(PCG64(child (0, k))).integers(0, G)."""
    n, reps = 50, 150  # three chunks, the last one partial
    rng = np.random.default_rng(0)
    a = rng.normal(size=n)
    df = long_table(a, np.zeros(n))
    res = df.paired.bootstrap("A", "B", higher_is_better=True, rng=42, n_resamples=reps)
    root = np.random.SeedSequence(42)
    expected = []
    for k in range(3):
        gen = np.random.default_rng(np.random.SeedSequence(root.entropy, spawn_key=(0, k)))
        m = min(64, reps - 64 * k)
        expected.append(a[gen.integers(0, n, size=(m, n))].mean(axis=1))
    np.testing.assert_allclose(
        res.bootstrap_distribution, np.concatenate(expected), rtol=1e-12, atol=1e-15
    )


def test_stratified_indices_follow_strata_in_order(engine: str) -> None:
    sizes = [3, 1, 40]  # a single-unit stratum consumes no randomness, as in numpy
    stratum = np.repeat(["a", "b", "c"], sizes)
    vals = np.random.default_rng(1).normal(size=sum(sizes))
    df = long_table(vals, np.zeros(sum(sizes)), stratum=stratum)
    with pytest.warns(DegenerateDataWarning, match="single resampling unit"):
        res = df.paired.bootstrap("A", "B", higher_is_better=True, rng=3, n_resamples=10)
    # within a chunk: stratum by stratum, and within a stratum replicate by replicate
    gen = np.random.default_rng(np.random.SeedSequence(3, spawn_key=(0, 0)))
    offsets = np.cumsum([0, *sizes[:-1]])
    cols = []
    for off, g in zip(offsets, sizes, strict=True):
        idx = np.zeros((10, g), dtype=np.int64) if g == 1 else gen.integers(0, g, size=(10, g))
        full = vals[off : off + g].mean()
        factor = np.sqrt(g / (g - 1)) if g > 1 else 1.0  # Rao-Wu rescaling of the stratum
        cols.append(full + factor * (vals[off + idx].mean(axis=1) - full))
    means = np.stack(cols, axis=1)
    w = np.array(sizes) / sum(sizes)
    np.testing.assert_allclose(res.bootstrap_distribution, means @ w, rtol=1e-12)


# ---------------------------------------------------------------- SPEC 7
def test_int_seed_reproducible_and_recorded(continuous: pd.DataFrame) -> None:
    r1 = run(continuous, "iid", rng=7)
    r2 = run(continuous, "iid", rng=7)
    r3 = run(continuous, "iid", rng=8)
    assert r1.seed == 7
    assert r1 == r2  # dataclass equality on the scalar fields
    np.testing.assert_array_equal(r1.bootstrap_distribution, r2.bootstrap_distribution)
    assert not np.array_equal(r1.bootstrap_distribution, r3.bootstrap_distribution)


def test_none_seed_is_drawn_and_reproduces(continuous: pd.DataFrame) -> None:
    r1 = run(continuous, "iid", rng=None)
    assert isinstance(r1.seed, int)
    r2 = run(continuous, "iid", rng=r1.seed)
    np.testing.assert_array_equal(r1.bootstrap_distribution, r2.bootstrap_distribution)


def test_generator_state_recorded(continuous: pd.DataFrame) -> None:
    gen = np.random.default_rng(2024)
    r1 = run(continuous, "iid", rng=gen)
    assert r1.seed is None
    replay = np.random.default_rng()
    replay.bit_generator.state = r1.rng_state
    r2 = run(continuous, "iid", rng=replay)
    np.testing.assert_array_equal(r1.bootstrap_distribution, r2.bootstrap_distribution)
    json.dumps(r1.to_dict(), allow_nan=False)


@pytest.mark.parametrize("bad", [-1, 1.5, "0", True, np.random.RandomState(0)])
def test_bad_rng(continuous: pd.DataFrame, bad: object) -> None:
    with pytest.raises((TypeError, ValueError), match="`rng`"):
        run(continuous, "iid", rng=bad)


# ---------------------------------------------------------------- arguments
@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"n_resamples": 0}, "`n_resamples` must be a positive integer"),
        ({"n_resamples": 10.0}, "`n_resamples` must be a positive integer"),
        ({"confidence_level": 1.5}, r"`confidence_level` must be in \(0, 1\)"),
        ({"confidence_level": 0.0}, r"`confidence_level` must be in \(0, 1\)"),
        ({"method": "bootstrap-t"}, "`method` must be one of"),
        ({"unit": "doc"}, "`unit` must be one of"),
        ({"weighting": "case"}, "`weighting` must be one of"),
        ({"batch": 0}, "`batch` must be a positive integer"),
        ({"practical_threshold": -0.1}, "`practical_threshold`"),
        ({"noninferiority_margin": float("nan")}, "`noninferiority_margin`"),
    ],
)
def test_bad_arguments(continuous: pd.DataFrame, kw: dict, match: str) -> None:
    with pytest.raises((ValueError, TypeError), match=match):
        run(continuous, "iid", **kw)


def test_unit_group_without_group_column(continuous: pd.DataFrame) -> None:
    with pytest.raises(ValueError, match="needs a group column"):
        run(continuous, "iid", unit="group")
    with pytest.raises(ValueError, match="needs unit='group'"):
        run(continuous, "iid", weighting="group")


def test_stratum_weights_validation(clustered: pd.DataFrame) -> None:
    with pytest.raises(ValueError, match=r"missing: \['s2'\]"):
        run(clustered, "stratified", stratum_weights={"s0": 0.5, "s1": 0.5})
    with pytest.raises(ValueError, match=r"not in the data: \['s9'\]"):
        run(clustered, "stratified", stratum_weights={"s0": 0.2, "s1": 0.2, "s2": 0.2, "s9": 0.4})
    with pytest.raises(ValueError, match="must sum to 1"):
        run(clustered, "stratified", stratum_weights={"s0": 0.5, "s1": 0.5, "s2": 0.5})
    with pytest.raises(ValueError, match=">= 0"):
        run(clustered, "stratified", stratum_weights={"s0": -0.5, "s1": 0.5, "s2": 1.0})
    with pytest.raises(ValueError, match="needs stratified"):
        run(clustered, "iid", stratum_weights={"s0": 1.0})
    res = run(clustered, "stratified", stratum_weights=pd.Series({"s0": 0.2, "s1": 0.3, "s2": 0.5}))
    assert res.stratum_weights == {"s0": 0.2, "s1": 0.3, "s2": 0.5}


def test_stratified_false_ignores_strata(clustered: pd.DataFrame) -> None:
    res = run(clustered, "stratified", stratified=False)
    assert res.sampling == "iid"
    with pytest.raises(ValueError, match="needs a stratum column"):
        run(clustered, "iid", stratified=True)


# ---------------------------------------------------------------- direction and decisions
def test_direction_rules(continuous: pd.DataFrame) -> None:
    up = run(continuous, "iid", higher_is_better=True)
    down = run(continuous, "iid", higher_is_better=False)
    assert up.raw_delta == down.raw_delta == pytest.approx(up.metric_a - up.metric_b, abs=0)
    assert up.improvement == up.raw_delta
    assert down.improvement == -down.raw_delta
    np.testing.assert_array_equal(down.bootstrap_distribution, -up.bootstrap_distribution)
    assert down.confidence_interval.low == pytest.approx(-up.confidence_interval.high, abs=1e-12)


def test_swapping_a_and_b_negates(continuous: pd.DataFrame) -> None:
    ab = run(continuous, "iid")
    ba = continuous.paired.bootstrap("B", "A", higher_is_better=True, rng=123, n_resamples=400)
    assert ba.improvement == pytest.approx(-ab.improvement, abs=1e-15)
    np.testing.assert_allclose(ba.bootstrap_distribution, -ab.bootstrap_distribution, atol=1e-15)


def test_decisions_follow_thresholds(continuous: pd.DataFrame) -> None:
    res = run(continuous, "iid", practical_threshold=0.0, noninferiority_margin=0.05)
    low = res.confidence_interval.low
    assert res.superior_ci == (low > 0.0)
    assert res.superior_point == (res.improvement > 0.0)
    assert res.noninferior == (low >= -0.05)
    high_bar = run(continuous, "iid", practical_threshold=res.improvement + 1)
    assert not high_bar.superior_point
    assert not high_bar.superior_ci
    assert run(continuous, "iid").noninferior is None


def test_exact_tie_is_never_superior() -> None:
    df = long_table(np.array([1.0, 2.0, 3.0, 4.0]), np.array([1.0, 2.0, 3.0, 4.0]))
    with pytest.warns(DegenerateDataWarning, match="collapses to the point estimate"):
        res = df.paired.bootstrap("A", "B", higher_is_better=True, rng=0, n_resamples=100)
    assert res.improvement == 0.0
    assert (res.confidence_interval.low, res.confidence_interval.high) == (0.0, 0.0)
    assert not res.superior_ci
    assert not res.superior_point


@pytest.mark.parametrize("method", ["percentile", "basic", "bca"])
def test_degenerate_all_differences_equal(method: str) -> None:
    df = long_table(np.arange(20.0) + 0.25, np.arange(20.0))
    with pytest.warns(DegenerateDataWarning):
        res = df.paired.bootstrap(
            "A", "B", higher_is_better=True, rng=0, n_resamples=200, method=method
        )
    assert res.confidence_interval.low == res.confidence_interval.high == res.improvement
    assert np.all(np.isfinite(res.bootstrap_distribution))
    assert res.n_valid == 200


# ---------------------------------------------------------------- views
def test_result_views(clustered: pd.DataFrame) -> None:
    res = run(clustered, "stratified-cluster", method="bca", noninferiority_margin=0.1)
    text = str(res)
    assert "Model A (A) mean" in text
    assert "Improvement (A over B)" in text
    assert "95% paired CI" in text
    assert "bca, 400 resamples, seed 123" in text
    assert "stratified-cluster over whole groups" in text
    html = res._repr_html_()
    assert html.startswith("<div class='pdpaired-result'><p class='pdpaired-verdict'>")
    assert f"Verdict: {res.headline().split(': ', 1)[1].split(' — ')[0]}" in html
    assert "95% paired CI" in html
    d = res.to_dict()
    json.dumps(d, allow_nan=False)
    assert d["confidence_interval"]["low"] == res.confidence_interval.low
    assert d["sampling"] == "stratified-cluster"
    frame = res.to_frame()
    assert frame.shape[0] == 1
    assert frame.loc[0, "ci_high"] == res.confidence_interval.high
    assert "BootstrapResult(" in repr(res)
    with pytest.raises(AttributeError):
        res.improvement = 3.0  # type: ignore[misc]


def test_plot_draws_on_pyplot_current_axes_or_given_axes(continuous: pd.DataFrame) -> None:
    import matplotlib.pyplot as plt
    from matplotlib.figure import Figure

    res = run(continuous, "iid", practical_threshold=0.1)
    plt.close("all")
    ax = res.plot()  # no figure open: a new pyplot figure, so it shows inline / with plt.show()
    assert plt.get_fignums() == [ax.figure.number]
    assert ax is plt.gca()
    assert ax.get_xlabel().startswith("improvement of A over B")
    _, ax_b = plt.subplots()  # an open figure: its current Axes, as pandas and seaborn do
    assert res.plot() is ax_b
    plt.close("all")
    fig = Figure()
    ax2 = fig.add_subplot()
    assert res.plot(ax=ax2) is ax2
    xs = {line.get_xdata()[0] for line in ax2.get_lines()}
    assert {res.improvement, 0.0, 0.1} <= xs


def test_no_warnings_on_ordinary_data(continuous: pd.DataFrame) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run(continuous, "iid", method="bca")


def test_single_unit_stratum_warns() -> None:
    df = long_table(
        np.array([1.0, 2.0, 0.5, 3.0, 2.5]),
        np.array([0.0, 1.0, 1.0, 1.0, 2.0]),
        stratum=np.array(["big", "big", "big", "big", "lonely"]),
    )
    with (
        pytest.warns(DegenerateDataWarning, match="1 stratum/strata hold a single"),
        pytest.warns(DegenerateDataWarning, match="3 design degrees of freedom"),
    ):
        res = df.paired.bootstrap("A", "B", higher_is_better=True, rng=0, n_resamples=100)
    assert res.sampling == "stratified"


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


class TestCompressedDesigns:
    """Compressed designs of :mod:`pdpaired.core.engine` equal their expansion, bit for bit.

    A *compressed* design (one row per distinct unit with its frequency, as the
    Dask path builds for 0/1 scores) stands for the same units as the design with
    one row per unit: every statistic of it -- the full-sample value, the
    distinct-unit table of the multinomial engine, the Rao-Wu centres, the
    jackknife, the bootstrap replicates -- must equal the expanded design's, bit
    for bit. The NumPy path's strata larger than a block of draws and strata of
    one unit give the replicates written out by hand here.
    """

    @pytest.mark.parametrize("with_counts", [False, True])
    def test_compressed_design_equals_its_expansion(self, with_counts: bool) -> None:
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
    def test_distinct_table_of_a_compressed_design(self, with_counts: bool) -> None:
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
        self,
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
    def test_numpy_draws_by_hand(self, monkeypatch: pytest.MonkeyPatch, with_counts: bool) -> None:
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


ALPHA = 0.025


def stratified_mean_design(values: list[np.ndarray]) -> Design:
    sizes = np.array([len(v) for v in values], dtype=np.float64)
    return Design(
        value=np.concatenate(values),
        count=None,
        unit_ptr=np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
        weight=sizes / sizes.sum(),
        sign=1.0,
    )


def efron_acceleration(loo: np.ndarray) -> float:
    infl = loo.mean() - loo
    return float(np.sum(infl**3) / (6 * np.sum(infl**2) ** 1.5))


def bca_from_dist(dist: np.ndarray, theta: float, acc: float, alpha: float) -> np.ndarray:
    share = ((dist < theta).sum() + (dist <= theta).sum()) / (2.0 * dist.size)
    z0 = ndtri(share)
    z = ndtri(np.array([alpha, 1 - alpha]))
    return np.percentile(dist, 100 * ndtr(z0 + (z0 + z) / (1 - acc * (z0 + z))))


class TestJackknifeAndLimits:
    """The jackknife, BCa on clusters and the engine's limits, by exact value.

    * the closed-form jackknife with a one-unit stratum: that unit has no
      influence (its leave-one-out statistic is the full-sample one), computed
      without a floating-point warning, and every other unit's value equals the
      leave-one-out statistic written out here;
    * BCa on a cluster design run by the multinomial engine (few distinct
      (sum, size) pairs of 0/1 scores): its acceleration is the jackknife over
      clusters of the ratio estimator, written out here, with the BCa interval
      rebuilt from the library's replicates;
    * the refusal of a stratum of more than 2**32 - 1 units, by its message.
    """

    def test_jackknife_with_a_one_unit_stratum_is_the_leave_one_out_written_out(self) -> None:
        rng = np.random.default_rng(8)
        values = [rng.normal(size=6), np.array([0.75]), rng.normal(size=4)]
        d = stratified_mean_design(values)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # 0/0 of the lone unit must not warn
            theta_minus, stratum_of = d.jackknife()
        np.testing.assert_array_equal(stratum_of, np.repeat([0, 1, 2], [6, 1, 4]))
        w = d.weight
        full = sum(wh * v.mean() for wh, v in zip(w, values, strict=True))
        want = []
        for h, v in enumerate(values):
            for i in range(len(v)):
                if len(v) == 1:
                    want.append(full)  # a lone unit cannot be left out of its stratum
                    continue
                rest = np.delete(v, i)
                means = [x.mean() for x in values]
                means[h] = rest.mean()
                want.append(sum(wh * m for wh, m in zip(w, means, strict=True)))
        np.testing.assert_allclose(theta_minus, want, rtol=0, atol=1e-12)

    def test_bca_on_clusters_by_the_multinomial_engine_uses_the_cluster_jackknife(self) -> None:
        # 320 clusters of 1 or 2 cases with 0/1 outcomes: at most 8 distinct
        # (sum of differences, size) pairs, so the multinomial engine runs
        rng = np.random.default_rng(21)
        n_groups = 320
        size = rng.choice([1, 2], size=n_groups, p=[0.3, 0.7])
        group = np.repeat(np.arange(n_groups), size)
        n = group.size
        a = (rng.uniform(size=n) < 0.62).astype(float)
        b = (rng.uniform(size=n) < 0.5).astype(float)
        df = pd.DataFrame({
            "case_id": np.tile(np.arange(n), 2), "model": np.repeat(["A", "B"], n),
            "score": np.r_[a, b], "g": np.tile(group, 2),
        })  # fmt: skip
        cmp = df.paired(group="g").compare("A", "B", higher_is_better=True)
        res = cmp.bootstrap(unit="group", method="bca", n_resamples=3_000, rng=4)
        assert res.engine == "multinomial"
        d = a - b
        sums = np.bincount(group, weights=d)
        theta = d.sum() / n  # the ratio estimator: every case counts once
        assert res.improvement == pytest.approx(theta, abs=1e-15)
        loo = (d.sum() - sums) / (n - size)  # leave one cluster out
        acc = efron_acceleration(loo)
        dist = res.bootstrap_distribution
        # clusters get the small-sample correction: the replicates are rescaled
        # (Rao-Wu) and the tails read at Phi(t_df(alpha)), df = clusters - 1
        alpha = float(ndtr(stdtrit(n_groups - 1, ALPHA)))
        got = np.array([res.confidence_interval.low, res.confidence_interval.high])
        scale = float(dist.std())
        # counting each cluster as one case instead moves the endpoints visibly
        wrong = efron_acceleration((d.sum() - sums) / (n - 1))
        assert np.max(np.abs(bca_from_dist(dist, theta, wrong, alpha) - got)) > 1e-3 * scale
        want = bca_from_dist(dist, theta, acc, alpha)
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-9 * scale)

    def test_a_stratum_of_more_than_2_to_the_32_units_is_refused(
        self,
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        d = stratified_mean_design([np.random.default_rng(0).normal(size=50)])
        monkeypatch.setattr(Design, "sizes", property(lambda self: np.array([2**32], np.int64)))
        with pytest.raises(ValueError, match=r"^More than 2\*\*32 - 1 resampling units in one "
                           r"stratum are not supported\.$"):  # fmt: skip
            resample(
                d, 10, np.random.SeedSequence(0), plan=("numpy", *_engine.fixed_point(d), None)
            )


def test_small_work_runs_on_the_calling_thread_and_large_work_on_the_pool(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import threading

    from pdpaired.core.accel import THREAD_MIN_SECONDS, for_each_chunk

    monkeypatch.setenv("PDPAIRED_NUM_THREADS", "2")
    for seconds, pooled in ((THREAD_MIN_SECONDS / 2, False), (THREAD_MIN_SECONDS, True),
                            (None, True)):  # fmt: skip
        names: list[str] = []

        def record(k: int, names: list[str] = names) -> None:
            names.append(threading.current_thread().name)

        for_each_chunk(record, 4, seconds=seconds)
        assert len(names) == 4
        on_pool = {n.startswith("pdpaired") for n in names}
        assert on_pool == {pooled}, (seconds, names)
