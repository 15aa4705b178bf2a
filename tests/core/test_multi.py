"""Joint draws of several comparisons and rank sets (:mod:`pdpaired.core.multi`), by value.

* ``joint_replicates`` shares one draw only when every comparison has the same
  units (same unit boundaries, counts, stratum weights and direction); each
  difference makes it fall back to each comparison's own resampler, and the
  replicates are then exactly those of that resampler.
* The NumPy path of the shared draw (a stratum of one unit, strata larger than
  a block of draws, ratio estimators with counts) gives, comparison by
  comparison, the two-model bootstrap's replicates bit for bit; the numba path
  with an explicit batch equals it.
* ``rank_sets`` without enough replicates says nothing (every rank possible),
  and the per-model (``simultaneous=False``) sets equal a loop-by-loop
  statement of the construction; the small-sample correction reads the
  critical value's tail level on Student's t (scipy's) and scales the
  standard errors, and leaves the sets as they were without a ``df``.
* ``few_ranked_units_message`` speaks below ``MIN_RANK_DF`` design degrees of
  freedom only.
* ``simultaneous_band`` (the max-t band of ``against`` / ``all_pairs`` and of
  ``select_best``) equals a version written out with loops (the studentized
  deviations, their maximum per replicate, its quantile, the Student-t tail
  level read with scipy); one comparison gets the studentized interval, more
  comparisons a larger critical value (never beyond Bonferroni); constant
  comparisons get a point, undefined replicates are dropped, fewer than 2
  left is an error; the endpoints' Monte Carlo SE matches their spread.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from pdpaired.core import engine as _engine
from pdpaired.core import multi as joint
from pdpaired.core.bootstrap import DesignResampler
from pdpaired.core.engine import Design, resample
from pdpaired.core.multi import (
    MIN_RANK_DF,
    few_ranked_units_message,
    joint_replicates,
    rank_sets,
    simultaneous_band,
)

from ..conftest import assert_identical, require_numba

N_RES = 200


SEED = 20261130


def design(
    value: np.ndarray,
    *,
    count: np.ndarray | None = None,
    ptr: tuple[int, ...] = (0, 12, 30),
    weight: tuple[float, ...] = (0.4, 0.6),
    sign: float = 1.0,
) -> Design:
    return Design(
        value=np.asarray(value, dtype=np.float64),
        count=None if count is None else np.asarray(count, dtype=np.int64),
        unit_ptr=np.asarray(ptr, dtype=np.int64),
        weight=np.asarray(weight, dtype=np.float64),
        sign=sign,
    )


def values(seed: int, n: int = 30) -> np.ndarray:
    # continuous values: no multinomial shortcut, every comparison resamples indices
    return np.random.default_rng(seed).normal(size=n)


def own(resamplers: list[DesignResampler]) -> list[np.ndarray]:
    ss = np.random.SeedSequence(SEED)
    return [r.replicates(N_RES, ss, None)[0] for r in resamplers]


_COUNTS = np.arange(30) % 3 + 1


# --------------------------------------------------------------- when the draw is shared
def test_same_units_shares_one_draw_equal_to_each_two_model_bootstrap() -> None:
    rs = [DesignResampler(design(values(1))), DesignResampler(design(values(2)))]
    got = joint_replicates(rs, N_RES, np.random.SeedSequence(SEED), None)
    assert got.shared
    assert got.coherent
    for x, ref in zip(got.replicates, own(rs), strict=True):
        np.testing.assert_array_equal(x, ref)


@pytest.mark.parametrize(
    ("what", "other"),
    [
        ("counts on one side only", {"count": _COUNTS}),
        ("other counts", {"count": _COUNTS[::-1].copy()}),
        ("other stratum weights", {"weight": (0.5, 0.5)}),
        ("other direction", {"sign": -1.0}),
        ("other strata", {"ptr": (0, 15, 30)}),
    ],
)
def test_different_units_fall_back_to_each_resampler(what: str, other: dict) -> None:
    base = {"count": _COUNTS} if what == "other counts" else {}
    rs = [DesignResampler(design(values(1), **base)), DesignResampler(design(values(2), **other))]
    assert not joint._same_units([r.design for r in rs]), what
    got = joint_replicates(rs, N_RES, np.random.SeedSequence(SEED), None)
    assert not got.shared, what
    assert not got.coherent, what  # designs resampled on their own are not keyed by case
    for x, ref in zip(got.replicates, own(rs), strict=True):
        np.testing.assert_array_equal(x, ref)
    # the same draws of the units: the first comparison's replicates are the
    # ones it has when the draw is shared with a copy of itself
    twin = joint_replicates([rs[0], rs[0]], N_RES, np.random.SeedSequence(SEED), None)
    np.testing.assert_array_equal(twin.replicates[0], got.replicates[0])


def test_same_units_is_true_for_identical_counts_weights_and_sign() -> None:
    a = design(values(1), count=_COUNTS, sign=-1.0)
    b = design(values(2), count=_COUNTS.copy(), sign=-1.0)
    assert joint._same_units([a, b])


# --------------------------------------------------------------- the NumPy path of the shared draw
@pytest.mark.parametrize("with_counts", [False, True])
@pytest.mark.parametrize("block", [1 << 18, 5])
def test_numpy_shared_draw_equals_two_model_bootstrap(
    monkeypatch: pytest.MonkeyPatch, with_counts: bool, block: int
) -> None:
    """A one-unit stratum, and (block 5) strata larger than a block of draws."""
    monkeypatch.setenv("PDPAIRED_ACCELERATOR", "numpy")
    monkeypatch.setattr(_engine, "_BLOCK_WORDS", block)
    ptr, weight = (0, 1, 13, 30), (0.2, 0.3, 0.5)
    count = _COUNTS if with_counts else None
    designs = [design(values(s), count=count, ptr=ptr, weight=weight) for s in (3, 4, 5)]
    got = joint_replicates([DesignResampler(d) for d in designs], 130,
                           np.random.SeedSequence(SEED), None)  # fmt: skip
    assert got.shared
    assert got.engine == "numpy"
    for d, x in zip(designs, got.replicates, strict=True):
        ref, engine = resample(d, 130, np.random.SeedSequence(SEED))
        assert engine == "numpy"
        np.testing.assert_array_equal(x, ref)
    # the one-unit stratum adds its own (fixed) value to every replicate: with
    # every other unit equal, the replicates are constant and known
    flat = design(np.r_[7.0, np.full(29, 2.0)], ptr=ptr, weight=weight)
    rep = joint_replicates([DesignResampler(flat)] * 2, 70,
                           np.random.SeedSequence(SEED), None).replicates  # fmt: skip
    for x in rep:
        np.testing.assert_allclose(x, 0.2 * 7.0 + 0.8 * 2.0, rtol=1e-14)


def test_numba_shared_draw_with_a_batch_equals_numpy(monkeypatch: pytest.MonkeyPatch) -> None:
    require_numba()
    ptr, weight = (0, 1, 13, 30), (0.2, 0.3, 0.5)
    designs = [design(values(s), count=_COUNTS, ptr=ptr, weight=weight) for s in (6, 7)]
    rs = [DesignResampler(d) for d in designs]
    monkeypatch.setenv("PDPAIRED_ACCELERATOR", "numba")
    by_batch = joint_replicates(rs, 300, np.random.SeedSequence(SEED), 70)  # not whole chunks
    default = joint_replicates(rs, 300, np.random.SeedSequence(SEED), None)
    monkeypatch.setenv("PDPAIRED_ACCELERATOR", "numpy")
    numpy = joint_replicates(rs, 300, np.random.SeedSequence(SEED), None)
    assert (by_batch.engine, default.engine, numpy.engine) == ("numba", "numba", "numpy")
    for a, b, c in zip(by_batch.replicates, default.replicates, numpy.replicates, strict=True):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)


# --------------------------------------------------------------- prediction mode, other cases
def test_prediction_mode_with_other_cases_resamples_each_comparison() -> None:
    rng = np.random.default_rng(8)
    n = 120
    y = rng.integers(0, 2, n)
    parts = []
    for j, skill in enumerate((0.5, 1.0, 1.5)):
        p = 1 / (1 + np.exp(-(skill * (2 * y - 1) + rng.normal(0, 1, n))))
        parts.append(pd.DataFrame({"case_id": np.arange(n), "model": f"m{j}", "y": y, "p": p}))
    df = pd.concat(parts, ignore_index=True)
    gone = df[~((df.model == "m2") & df.case_id.isin([3, 50, 77]))]
    kw = {"metric": "brier", "rng": 5, "n_resamples": 200, "missing": "complete-case"}
    acc = gone.paired(target="y", prediction="p")
    res = acc.all_pairs(**kw, simultaneous=False)
    assert not res.shared_draws
    for r in res.comparisons:
        assert r.n_cases == (117 if "m2" in (r.a, r.b) else 120)
        assert_identical(r, acc.bootstrap(r.a, r.b, **kw))


# --------------------------------------------------------------- rank sets
def test_rank_sets_without_enough_replicates_allow_every_rank() -> None:
    one = rank_sets(np.array([0.3]), np.zeros((1, 50)), confidence_level=0.9)
    assert one.rank.tolist() == [1]
    assert (one.lower.tolist(), one.upper.tolist()) == ([1], [1])
    assert one.critical_value == np.inf
    # three models, but a single replicate left once the NaN columns are dropped
    reps = np.array([[0.1, np.nan, 0.2], [0.0, 0.3, np.nan], [0.5, 0.1, 0.1]])
    few = rank_sets(np.array([0.2, 0.0, 0.5]), reps, confidence_level=0.9)
    assert few.rank.tolist() == [2, 3, 1]
    assert few.lower.tolist() == [1, 1, 1]
    assert few.upper.tolist() == [3, 3, 3]
    assert few.critical_value == np.inf


def test_per_model_rank_sets_reference_implementation() -> None:
    rng = np.random.default_rng(11)
    k, n, level = 5, 800, 0.9
    # neighbours 0.165 apart: significant at the per-model critical value
    # (about 2.2 sd of a difference, sd 0.07), not at the simultaneous one (2.5)
    est = np.array([0.0, 0.165, 0.5, 0.665, 1.2])
    reps = est[:, None] + rng.normal(0, 0.05, (k, n))
    got = rank_sets(est, reps, confidence_level=level, simultaneous=False)
    sim = rank_sets(est, reps, confidence_level=level, simultaneous=True)
    crits = []
    for j in range(k):
        # model j's own critical value: the max over j's differences only
        tmax = np.zeros(n)
        se = {}
        for m in range(k):
            if m != j:
                d = reps[j] - reps[m]
                se[m] = d.std(ddof=1)
                tmax = np.maximum(tmax, np.abs(d - (est[j] - est[m])) / se[m])
        crit = np.quantile(tmax, level)
        crits.append(crit)
        better = sum(est[m] - est[j] - crit * se[m] > 0 for m in range(k) if m != j)
        worse = sum(est[j] - est[m] - crit * se[m] > 0 for m in range(k) if m != j)
        assert got.lower[j] == 1 + better, j
        assert got.upper[j] == k - worse, j
    assert got.critical_value == pytest.approx(max(crits), rel=1e-12)
    # each per-model set lies inside the simultaneous one (smaller critical values)
    assert got.critical_value <= sim.critical_value
    assert np.all(got.lower >= sim.lower)
    assert np.all(got.upper <= sim.upper)
    # and is strictly narrower somewhere here (the sets differ)
    assert np.any((got.lower > sim.lower) | (got.upper < sim.upper))


@pytest.mark.parametrize("simultaneous", [True, False])
def test_small_sample_correction_reads_the_tail_level_on_t(simultaneous: bool) -> None:
    from scipy import stats

    rng = np.random.default_rng(5)
    k, n, level, df, factor = 5, 600, 0.9, 14.0, 15.0 / 14.0
    est = np.array([0.0, 0.15, 0.3, 0.5, 0.62])
    reps = est[:, None] + rng.normal(0, 0.05, (k, n))
    plain = rank_sets(est, reps, confidence_level=level, simultaneous=simultaneous)
    same = rank_sets(est, reps, confidence_level=level, simultaneous=simultaneous,
                     df=None, variance_factor=1.0)  # fmt: skip
    assert_identical(plain, same)
    got = rank_sets(est, reps, confidence_level=level, simultaneous=simultaneous,
                    df=df, variance_factor=factor)  # fmt: skip
    # the normal-scale critical value c of each model, then t_df at c's tail level
    se = {(j, m): (reps[j] - reps[m]).std(ddof=1) for j in range(k) for m in range(k) if j != m}
    tmax = {j: np.zeros(n) for j in range(k)}
    for (j, m), s in se.items():
        tmax[j] = np.maximum(tmax[j], np.abs(reps[j] - reps[m] - (est[j] - est[m])) / s)
    if simultaneous:
        both = np.max(np.stack(list(tmax.values())), axis=0)
        c = dict.fromkeys(range(k), np.quantile(both, level))
    else:
        c = {j: np.quantile(t, level) for j, t in tmax.items()}
    crit = {j: stats.t.isf(stats.norm.sf(c[j]), df) * np.sqrt(factor) for j in range(k)}
    assert all(crit[j] > c[j] * np.sqrt(factor) for j in range(k))  # heavier tails: wider
    for j in range(k):
        better = sum(est[m] - est[j] - crit[j] * se[m, j] > 0 for m in range(k) if m != j)
        worse = sum(est[j] - est[m] - crit[j] * se[j, m] > 0 for m in range(k) if m != j)
        assert got.lower[j] == 1 + better, j
        assert got.upper[j] == k - worse, j
    assert got.critical_value == pytest.approx(max(crit.values()), rel=1e-9)
    # the correction only ever widens: each corrected set contains the plain one
    assert np.all(got.lower <= plain.lower)
    assert np.all(got.upper >= plain.upper)


def test_few_ranked_units_message_below_the_threshold_only() -> None:
    assert few_ranked_units_message(None) is None
    assert few_ranked_units_message(float(MIN_RANK_DF)) is None
    msg = few_ranked_units_message(float(MIN_RANK_DF - 1))
    assert msg is not None
    assert f"Only {MIN_RANK_DF - 1} design degrees of freedom" in msg
    assert "randomization test" in msg


# --------------------------------------------------------------- simultaneous bands
def test_simultaneous_band_of_a_constant_comparison_and_undefined_replicates() -> None:
    rng = np.random.default_rng(0)
    reps = rng.normal(size=(3, 1000))
    reps[1] = 0.25  # a comparison whose replicates never move: zero width, in no maximum
    reps[2, :10] = np.nan  # columns where one comparison is undefined are dropped
    band = simultaneous_band(np.array([0.0, 0.25, 0.0]), reps, confidence_level=0.9)
    assert band.n_valid == 990
    assert band.low[1] == band.high[1] == 0.25
    keep = reps[[0, 2]][:, 10:]
    se = keep.std(axis=1, ddof=1)
    c = np.quantile((np.abs(keep) / se[:, None]).max(axis=0), 0.9)
    assert band.critical_value == pytest.approx(c, rel=1e-12)
    np.testing.assert_allclose(band.high[[0, 2]], c * se, rtol=1e-12)
    with pytest.raises(ValueError, match="at least 2 resamples"):
        simultaneous_band(np.zeros(2), np.full((2, 5), np.nan), confidence_level=0.9)


def test_simultaneous_band_endpoint_se_matches_the_spread_over_seeds() -> None:
    # 300 independent sets of 1,000 correlated replicates of 4 comparisons (unequal
    # scales): the SD of an endpoint over the sets against the mean reported endpoint SE.
    # The SD of 300 draws is itself uncertain by about 1 / sqrt(2 * 299) = 4%; the delta
    # method ignores the (negative) correlation of c and se_j, so it overstates a little
    # (measured ratios 0.85 to 0.94). Bounds 0.7 and 1.15.
    rng = np.random.default_rng(1)
    scale = np.array([1.0, 2.0, 0.5, 1.0])[:, None]
    lows, ses = [], []
    for _ in range(300):
        z = rng.normal(size=(1, 1000))
        reps = (0.6 * z + 0.8 * rng.normal(size=(4, 1000))) * scale
        band = simultaneous_band(np.zeros(4), reps, confidence_level=0.95, df=50.0,
                                 variance_factor=51 / 50)  # fmt: skip
        lows.append(band.low)
        ses.append(band.endpoint_se)
    ratio = np.std(lows, axis=0, ddof=1) / np.mean(ses, axis=0)
    assert np.all((ratio > 0.7) & (ratio < 1.15)), ratio


def joint_effects(seed: int, k: int, n: int = 60, b: int = 1500) -> tuple[np.ndarray, np.ndarray]:
    """Effects of k correlated comparisons and their joint index-bootstrap replicates."""
    rng = np.random.default_rng(seed)
    d = rng.normal(size=(n, k)) + rng.normal(size=(n, 1)) + rng.normal(0.0, 0.15, size=k)
    d *= rng.uniform(0.5, 2.0, size=k)
    idx = rng.integers(0, n, size=(b, n))
    return d.mean(axis=0), d[idx].mean(axis=1).T


def band_oracle(
    est: np.ndarray, reps: np.ndarray, level: float, df: float | None = None, factor: float = 1.0
) -> tuple[list[float], list[float], float]:
    """The max-t band written out with loops: (lows, highs, critical value)."""
    k, n = reps.shape
    se = []
    for j in range(k):
        m = sum(reps[j]) / n
        se.append(math.sqrt(sum((x - m) ** 2 for x in reps[j]) / (n - 1)))
    maxima = sorted(
        max(abs(reps[j, r] - est[j]) / se[j] for j in range(k) if se[j] > 0) for r in range(n)
    )
    h = (n - 1) * level  # linear interpolation between order statistics
    lo = math.floor(h)
    c = maxima[lo] + (h - lo) * (maxima[min(lo + 1, n - 1)] - maxima[lo])
    if df is not None:
        c = stats.t.ppf(stats.norm.cdf(c), df)
    c *= math.sqrt(factor)
    low = [e - c * s for e, s in zip(est, se, strict=True)]
    return low, [e + c * s for e, s in zip(est, se, strict=True)], c


@pytest.mark.parametrize(("seed", "k"), [(0, 2), (1, 5), (2, 8)])
@pytest.mark.parametrize("small_sample", [False, True])
def test_simultaneous_band_equals_the_loop_oracle(seed: int, k: int, small_sample: bool) -> None:
    est, reps = joint_effects(seed, k, b=400)
    kw = {"df": 59.0, "variance_factor": 60 / 59} if small_sample else {}
    band = simultaneous_band(est, reps, confidence_level=0.9, **kw)
    low, high, c = band_oracle(est, reps, 0.9, kw.get("df"), kw.get("variance_factor", 1.0))
    np.testing.assert_allclose(band.low, low, rtol=1e-10)
    np.testing.assert_allclose(band.high, high, rtol=1e-10)
    assert band.critical_value == pytest.approx(c, rel=1e-10)
    assert band.n_valid == 400


def test_simultaneous_band_of_one_comparison_is_the_studentized_interval() -> None:
    est, reps = joint_effects(3, 1)
    band = simultaneous_band(est, reps, confidence_level=0.95)
    t = np.abs(reps[0] - est[0]) / reps[0].std(ddof=1)
    assert band.critical_value == pytest.approx(np.quantile(t, 0.95))
    assert 1.8 < band.critical_value < 2.1  # about the normal 1.96


def test_more_comparisons_need_a_larger_critical_value() -> None:
    est, reps = joint_effects(4, 8)
    c = [simultaneous_band(est[:j], reps[:j], confidence_level=0.95).critical_value
         for j in (1, 2, 4, 8)]  # fmt: skip
    assert c == sorted(c)
    assert c[-1] < stats.norm.ppf(1 - 0.025 / 8)  # never beyond Bonferroni (correlated)
