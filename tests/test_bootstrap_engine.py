"""Resampling engine: reproducibility, bit-identity across engines/batches/threads,
arguments, direction rules, decisions, degenerate data and the result views."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest

import pdpaired
from pdpaired import DegenerateDataWarning

from .conftest import long_table, require_numba

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
    # the last one partial, so threads finish out of order
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
        ({"method": "studentized"}, "`method` must be one of"),
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
