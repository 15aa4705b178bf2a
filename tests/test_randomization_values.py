"""Values of the randomization test's pieces that no other test checks exactly.

* :func:`null_pvalue` counts a null statistic *equal* to the observed one as
  extreme (``>=``, as ``scipy.stats.permutation_test``), in each direction,
  and one within the tie tolerance ``gamma`` too;
* :func:`tie_tolerance` is ``drift`` plus 100 machine epsilons of each
  magnitude (scipy's rule), ``drift`` 0 by default;
* the binomial engine (few distinct values: 0/1 scores) with several strata
  and with a compressed design (rows with frequencies, as the Dask path
  builds) against the null written out here from its documented streams
  (``randomization_stratum`` ``h`` = child ``(3, h)`` of the root);
* the switch to that engine at exactly ``16 x distinct values == units``.
"""

from __future__ import annotations

import numpy as np
import pytest

from pdpaired.core.engine import Design
from pdpaired.core.randomization import (
    _FEW_FACTOR,
    _few_distinct,
    null_pvalue,
    randomization_design,
    tie_tolerance,
)

EPS = np.finfo(np.float64).eps


# --------------------------------------------------------------------------- p-value ties
@pytest.mark.parametrize("exact", [True, False])
def test_a_null_statistic_equal_to_the_observed_counts_as_extreme(exact: bool) -> None:
    null = np.array([-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0])
    n = null.size

    def p(k: int) -> float:
        return k / n if exact else (1 + k) / (1 + n)

    # t = 1: greater counts 1, 2, 3; less counts -2, ..., 1; two-sided |T*| >= 1
    assert null_pvalue(null, 1.0, gamma=0.0, alternative="greater", exact=exact)[0] == p(3)
    assert null_pvalue(null, 1.0, gamma=0.0, alternative="less", exact=exact)[0] == p(6)
    assert null_pvalue(null, 1.0, gamma=0.0, alternative="two-sided", exact=exact)[0] == p(5)
    # t = -1 on the less side and two-sided with |t|: the tie at -1 counts
    assert null_pvalue(null, -1.0, gamma=0.0, alternative="less", exact=exact)[0] == p(2)
    assert null_pvalue(null, -1.0, gamma=0.0, alternative="two-sided", exact=exact)[0] == p(5)
    # within gamma of t counts too, beyond it does not
    assert null_pvalue(null, 1.25, gamma=0.25, alternative="greater", exact=exact)[0] == p(3)
    assert null_pvalue(null, 1.25, gamma=0.2, alternative="greater", exact=exact)[0] == p(2)
    assert null_pvalue(null, 0.75, gamma=0.25, alternative="less", exact=exact)[0] == p(6)
    assert null_pvalue(null, 0.75, gamma=0.2, alternative="less", exact=exact)[0] == p(5)


def test_null_pvalue_equals_scipy_permutation_test_on_the_same_null() -> None:
    from scipy import stats

    # scipy's exact paired sign-flip test on 6 differences with ties in |d|:
    # its null is all 64 assignments, and so is ours when given that null
    d = np.array([1.0, -2.0, 2.0, 3.0, -1.0, 1.0])
    signs = np.array(np.meshgrid(*[[1.0, -1.0]] * 6)).reshape(6, -1).T
    null = (signs * d).mean(axis=1)
    t = d.mean()
    for alternative in ("two-sided", "greater", "less"):
        ref = stats.permutation_test(
            (d,), np.mean, permutation_type="samples", alternative=alternative,
            n_resamples=np.inf,
        ).pvalue  # fmt: skip
        got = null_pvalue(null, t, gamma=tie_tolerance(t), alternative=alternative, exact=True)
        # scipy doubles the smaller one-sided p for two-sided; the null is symmetric
        assert got[0] == pytest.approx(ref, abs=1e-12)


def test_tie_tolerance_is_drift_plus_100_epsilons_of_each_magnitude() -> None:
    assert tie_tolerance(2.0) == 100 * EPS * 2.0
    assert tie_tolerance(-2.0, 0.5) == 100 * EPS * 2.5
    assert tie_tolerance(2.0, drift=1e-9) == 1e-9 + 100 * EPS * 2.0
    assert tie_tolerance(0.0) == 0.0


# --------------------------------------------------------------------------- the binomial engine
def binary_design(diffs: list[np.ndarray], freq: list[np.ndarray] | None = None) -> Design:
    """Per-stratum unit differences in {-1, 0, 1} (0/1 scores), optionally compressed."""
    value = np.concatenate(diffs).astype(np.float64)
    f = None if freq is None else np.concatenate(freq).astype(np.int64)
    rows = [len(x) for x in diffs]
    units = rows if freq is None else [int(x.sum()) for x in freq]
    return Design(
        value=value,
        count=None,
        unit_ptr=np.concatenate([[0], np.cumsum(rows)]).astype(np.int64),
        weight=np.array(units, dtype=np.float64) / sum(units),
        sign=1.0,
        freq=f,
    )


def binomial_null(
    diffs: list[np.ndarray], freq: list[np.ndarray] | None, weight: np.ndarray,
    seed: int, n_perm: int,
) -> np.ndarray:  # fmt: skip
    """The binomial engine written out: per stratum, the number of units of each
    distinct nonzero |d| that keep their sign is Binomial(k, 1/2), drawn from the
    stratum's stream; the statistic is the weighted mean of the signed values."""
    root = np.random.SeedSequence(seed)
    total = np.zeros(n_perm)
    for h, d in enumerate(diffs):
        f = np.ones(len(d), dtype=np.int64) if freq is None else freq[h]
        values, inverse = np.unique(np.abs(d), return_inverse=True)
        k = np.bincount(inverse, weights=f).astype(np.int64)
        values, k = values[values != 0], k[values != 0]
        ss = np.random.SeedSequence(root.entropy, spawn_key=(3, h))
        heads = np.random.Generator(np.random.PCG64(ss)).binomial(k, 0.5, size=(n_perm, k.size))
        total += weight[h] * ((2 * heads - k) @ values) / f.sum()
    return total


@pytest.mark.parametrize("batch", [None, 7])
def test_binomial_engine_with_strata_is_the_null_written_out(batch: int | None) -> None:
    rng = np.random.default_rng(5)
    diffs = [rng.choice([-1.0, 0.0, 1.0], size=n, p=[0.2, 0.5, 0.3]) for n in (40, 25, 60)]
    d = binary_design(diffs)
    n_perm = 300
    core = randomization_design(d, n_permutations=n_perm, alternative="two-sided",
                                seed_sequence=np.random.SeedSequence(17), batch=batch)  # fmt: skip
    assert core.engine == "binomial"
    want = binomial_null(diffs, None, d.weight, 17, n_perm)
    np.testing.assert_allclose(core.null_distribution, want, rtol=0, atol=1e-12)
    t = sum(w * x.mean() for w, x in zip(d.weight, diffs, strict=True))
    extreme = np.count_nonzero(np.abs(want) >= abs(t) - 1e-9)
    assert core.pvalue == (1 + extreme) / (1 + n_perm)


def test_binomial_engine_on_a_compressed_design_counts_each_row_freq_times() -> None:
    # 0/1 outcomes as the Dask path compresses them: one row per distinct
    # difference with its frequency; the null must be that of the units
    diffs = [np.array([-1.0, 0.0, 1.0]), np.array([-1.0, 1.0, 0.0])]
    freq = [np.array([9, 30, 14]), np.array([5, 21, 12])]
    d = binary_design(diffs, freq)
    assert d.n_units == 91
    n_perm = 250
    core = randomization_design(d, n_permutations=n_perm, alternative="greater",
                                seed_sequence=np.random.SeedSequence(3), batch=None)  # fmt: skip
    assert core.engine == "binomial"
    want = binomial_null(diffs, freq, d.weight, 3, n_perm)
    np.testing.assert_allclose(core.null_distribution, want, rtol=0, atol=1e-12)
    # the observed statistic is the units' mean difference, frequencies counted
    t = sum(w * (x * f).sum() / f.sum() for w, x, f in zip(d.weight, diffs, freq, strict=True))
    extreme = np.count_nonzero(want >= t - 1e-9)
    assert core.pvalue == (1 + extreme) / (1 + n_perm)


def test_few_distinct_switches_at_exactly_16_units_per_distinct_value() -> None:
    assert _FEW_FACTOR == 16
    # one stratum, |q| in {0, 1}: 2 distinct values; 32 units is "few", 31 is not
    q = np.r_[np.zeros(10, np.int64), np.ones(22, np.int64)]
    assert _few_distinct(q, np.array([0, 32]), 32) is True
    assert _few_distinct(q[1:], np.array([0, 31]), 31) is False
    # distinct values are counted per stratum: {0, 1} in each of two strata is 4
    assert _few_distinct(np.r_[q, q], np.array([0, 32, 64]), 64) is True
    assert _few_distinct(np.r_[q, q[1:]], np.array([0, 32, 63]), 63) is False
