"""Count-vector resampling of corpus metrics (:mod:`pdpaired.core.prediction`), by value.

The swap test of AUROC with several strata (post-stratified with stratum
weights, or whole groups within strata) exchanges the models' within-model
ranks unit by unit and recomputes the post-stratified AUROC of each model
with case weights ``w_h / N_h``. Here that AUROC is written out pair by pair
(Mann-Whitney with weights), every assignment enumerated on a tiny data set
(the exact null distribution) and, for Monte Carlo, the assignments read
from the PCG64 bits of the stream, units laid out stratum by stratum (each
padded to 64 bits) in (stratum, case id or group label) order.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import pdpaired  # noqa: F401  (registers the accessor)
from pdpaired._lib.rng import CHUNK
from pdpaired.core.metrics import Metric
from pdpaired.core.prediction import (
    CountResampler,
    Layout,
    bootstrap_counts,
    jackknife,
    make_evaluator,
    unit_jackknife,
)


def weighted_auc(y: np.ndarray, s: np.ndarray, w: np.ndarray) -> float:
    """Post-stratified AUROC, pair by pair: P(s_pos > s_neg) + P(tie) / 2 under weights."""
    pos, neg = y == 1, y == 0
    sp, sn = s[pos][:, None], s[neg][None, :]
    wins = (sp > sn) + 0.5 * (sp == sn)
    wp, wn = w[pos][:, None], w[neg][None, :]
    return float(np.sum(wp * wn * wins) / (w[pos].sum() * w[neg].sum()))


def swapped_improvement(
    y: np.ndarray, ra: np.ndarray, rb: np.ndarray, w: np.ndarray, e: np.ndarray
) -> float:
    """AUROC of A minus AUROC of B after cases with ``e`` exchange their ranks."""
    sa, sb = np.where(e, rb, ra), np.where(e, ra, rb)
    return weighted_auc(y, sa, w) - weighted_auc(y, sb, w)


def frame(y: np.ndarray, pa: np.ndarray, pb: np.ndarray, **design: np.ndarray) -> pd.DataFrame:
    n = y.size
    parts = []
    for model, p in (("A", pa), ("B", pb)):
        part = pd.DataFrame({"case_id": np.arange(n), "model": model, "y": y, "p": p})
        for col, values in design.items():
            part[col] = values
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


def stream_bits(seed: int, words: int, n_perm: int) -> np.ndarray:
    """Bits (n_perm x 64 * words) of the randomization stream: child ``(2,)`` of the seed."""
    ss = np.random.SeedSequence(np.random.SeedSequence(seed).entropy, spawn_key=(2,))
    raw = np.random.PCG64(ss).random_raw(n_perm * words).reshape(n_perm, words)
    bits = (raw[:, :, None] >> np.arange(64, dtype=np.uint64)) & np.uint64(1)
    return bits.reshape(n_perm, 64 * words).astype(bool)


# --------------------------------------------------------------------------- draws and jackknives
def layout_of(
    case_unit: np.ndarray, cell_ptr: np.ndarray, stratum_ptr: np.ndarray, weight: np.ndarray
) -> Layout:
    """A case-unit layout (units = cases, already in cell order)."""
    n = case_unit.size
    stratum_of_unit = np.repeat(np.arange(weight.size), np.diff(stratum_ptr))
    return Layout(
        case_unit=case_unit,
        unit_size=np.ones(n),
        cell_ptr=cell_ptr,
        stratum_ptr=stratum_ptr,
        stratum_of_case=stratum_of_unit[case_unit],
        weight=weight,
        swap_ptr=stratum_ptr,
        unit_cell=np.repeat(np.arange(cell_ptr.size - 1), np.diff(cell_ptr)),
    )


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_stratified_auroc_swap_null_is_the_enumeration_of_every_assignment(
    alternative: str,
) -> None:
    # 10 cases in two strata weighted 0.7 / 0.3 (observed 0.4 / 0.6): 2**10 assignments
    y = np.array([1, 0, 1, 0, 1, 1, 0, 0, 1, 0])
    pa = np.array([0.9, 0.2, 0.7, 0.4, 0.4, 0.8, 0.3, 0.6, 0.55, 0.1])
    pb = np.array([0.6, 0.5, 0.5, 0.7, 0.3, 0.9, 0.2, 0.2, 0.4, 0.45])
    stratum = np.array(["s", "s", "s", "s", "t", "t", "t", "t", "t", "t"])
    weights = {"s": 0.7, "t": 0.3}
    res = frame(y, pa, pb, stratum=stratum).paired(target="y", prediction="p", stratum="stratum")
    out = res.randomization(
        "A", "B", metric="auroc", n_permutations=1024, rng=0, stratum_weights=weights,
        alternative=alternative,
    )  # fmt: skip
    assert out.exact
    assert out.n_permutations == 1024
    n = y.size
    ra, rb = stats.rankdata(pa) / n, stats.rankdata(pb) / n
    w = np.where(stratum == "s", 0.7 / 4, 0.3 / 6)
    null = np.array(
        [
            swapped_improvement(y, ra, rb, w, np.array(e))
            for e in itertools.product([0, 1], repeat=n)
        ]
    )
    t = null[0]
    # the weights matter: the unweighted AUROC difference is another number
    assert abs(t - swapped_improvement(y, ra, rb, np.ones(n), np.zeros(n, bool))) > 1e-3
    assert out.statistic == pytest.approx(t, rel=1e-12, abs=1e-15)
    np.testing.assert_allclose(np.sort(out.null_distribution), np.sort(null), rtol=0, atol=1e-12)
    tol = 1e-9
    if alternative == "two-sided":
        p = np.mean(np.abs(null) >= abs(t) - tol)
    elif alternative == "greater":
        p = np.mean(null >= t - tol)
    else:
        p = np.mean(null <= t + tol)
    assert out.pvalue == pytest.approx(p, rel=1e-12)


@pytest.mark.parametrize("weights", [None, {0: 0.25, 1: 0.75}])
def test_group_auroc_swaps_within_strata_read_the_stream_bits(
    weights: dict[int, float] | None,
) -> None:
    # 70 cases in 14 groups, groups nested in two strata (5 and 9 groups): whole groups
    # exchange their ranks; Monte Carlo (2**14 > 300), so each null value is checked
    # against the assignment its bits encode
    rng = np.random.default_rng(5)
    n_groups, n = 14, 70
    group = rng.permutation(np.repeat(np.arange(n_groups), 5))
    g_stratum = np.array([0] * 5 + [1] * 9)[rng.permutation(n_groups)]
    stratum = g_stratum[group]
    y = (rng.uniform(size=n) < 0.45).astype(int)
    pa = np.round(1 / (1 + np.exp(-(1.2 * (2 * y - 1) + rng.normal(size=n)))), 2)
    pb = np.round(1 / (1 + np.exp(-(0.6 * (2 * y - 1) + rng.normal(size=n)))), 2)
    acc = frame(y, pa, pb, group=group, stratum=stratum).paired(
        target="y", prediction="p", group="group", stratum="stratum"
    )
    out = acc.randomization(
        "A", "B", metric="auroc", n_permutations=300, rng=9, stratum_weights=weights,
        batch=128,
    )  # fmt: skip
    assert not out.exact
    assert out.unit == "group"
    assert out.n_permutations == 300
    ra, rb = stats.rankdata(pa) / n, stats.rankdata(pb) / n
    share = np.bincount(stratum) / n if weights is None else np.array([0.25, 0.75])
    w = share[stratum] / np.bincount(stratum)[stratum]
    # units: the 5 groups of stratum 0 by label (bits 0-4 of word 0), then the 9 of
    # stratum 1 (bits 0-8 of word 1)
    labels = [np.flatnonzero(g_stratum == h) for h in (0, 1)]
    bits = stream_bits(9, 2, 300)
    unit_bit = np.empty(n_groups, dtype=np.int64)
    unit_bit[labels[0]] = np.arange(5)
    unit_bit[labels[1]] = 64 + np.arange(9)
    want = np.array([swapped_improvement(y, ra, rb, w, b[unit_bit[group]]) for b in bits])
    np.testing.assert_allclose(out.null_distribution, want, rtol=0, atol=1e-12)
    t = swapped_improvement(y, ra, rb, w, np.zeros(n, bool))
    assert out.statistic == pytest.approx(t, rel=1e-12)
    p = (1 + np.sum(np.abs(want) >= abs(t) - 1e-9)) / 301
    assert out.pvalue == pytest.approx(p, rel=1e-12)


def test_bootstrap_counts_written_out_with_a_one_unit_cell(engine: str) -> None:
    # cells of 1, 4 and 7 units; no buffer given; two chunks, the second partial: chunk k
    # reads bootstrap_chunk k (child (0, k)), cell by cell, replicate by replicate, G_c
    # draws of integers(0, G_c) -- none for the one-unit cell
    cell_ptr = np.array([0, 1, 5, 12])
    lay = layout_of(np.arange(12), cell_ptr, np.array([0, 12]), np.ones(1))
    n_rows = CHUNK + 9
    got = bootstrap_counts(lay, 0, n_rows, np.random.SeedSequence(21))
    assert got.shape == (n_rows, 12)
    entropy = np.random.SeedSequence(21).entropy
    want = np.zeros((n_rows, 12), dtype=np.int64)
    for k in range(2):
        gen = np.random.Generator(
            np.random.PCG64(np.random.SeedSequence(entropy, spawn_key=(0, k)))
        )
        rows = range(k * CHUNK, min(n_rows, (k + 1) * CHUNK))
        for c in range(3):
            a, g = int(cell_ptr[c]), int(cell_ptr[c + 1] - cell_ptr[c])
            for r in rows:
                if g == 1:
                    want[r, a] = 1
                else:
                    want[r, a : a + g] = np.bincount(gen.integers(0, g, size=g), minlength=g)
    np.testing.assert_array_equal(got, want)
    # starting at chunk 1 gives the second chunk's rows
    later = bootstrap_counts(lay, 1, 9, np.random.SeedSequence(21))
    np.testing.assert_array_equal(later, want[CHUNK:])


def test_bootstrap_counts_refuse_a_cell_of_more_than_2_to_the_32_units() -> None:
    big = 2**32
    lay = Layout(
        case_unit=np.zeros(1, dtype=np.int64), unit_size=np.ones(1),
        cell_ptr=np.array([0, big], dtype=np.int64), stratum_ptr=np.array([0, big]),
        stratum_of_case=np.zeros(1, dtype=np.int64), weight=np.ones(1),
        swap_ptr=np.array([0, big]), unit_cell=np.zeros(1, dtype=np.int64),
    )  # fmt: skip
    with pytest.raises(ValueError, match=r"More than 2\*\*32 - 1 resampling units in one cell"):
        bootstrap_counts(lay, 0, 1, np.random.SeedSequence(0))


def test_stratified_sum_metric_jackknife_leaves_each_case_out() -> None:
    # Brier score post-stratified over two strata weighted 0.3 / 0.7 (observed 8 / 12 cases):
    # removing case u recomputes its stratum's mean over the other cases
    rng = np.random.default_rng(12)
    n = 20
    y = rng.integers(0, 2, n).astype(np.float64)
    pa, pb = rng.uniform(size=n), rng.uniform(size=n)
    ptr = np.array([0, 8, 20])
    weight = np.array([0.3, 0.7])
    lay = layout_of(np.arange(n), ptr, ptr, weight)
    ev = make_evaluator("brier", y, pa, pb, lay, threshold=0.5)
    got = unit_jackknife(ev)
    assert got is not None
    stratum = np.repeat([0, 1], [8, 12])
    want = np.empty(n)
    for u in range(n):
        keep = np.arange(n) != u
        brier = [
            sum(weight[h] * np.mean(((p - y) ** 2)[keep & (stratum == h)]) for h in range(2))
            for p in (pa, pb)
        ]
        want[u] = -(brier[0] - brier[1])  # lower is better
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


def test_a_jackknife_too_costly_for_bca_says_which_methods_work() -> None:
    # a custom metric's jackknife costs U * n evaluations of a case: 15,000**2 > 2e8
    n = 15_000
    y = np.tile([0.0, 1.0], n // 2)
    p = np.linspace(0.0, 1.0, n)
    lay = layout_of(np.arange(n), np.array([0, n]), np.array([0, n]), np.ones(1))

    def mse(yt: np.ndarray, yp: np.ndarray, sample_weight: np.ndarray | None = None) -> float:
        return float(np.average((yt - yp) ** 2, weights=sample_weight))

    ev = make_evaluator(Metric("mse", mse, higher_is_better=False), y, p, p[::-1], lay,
                        threshold=0.5)  # fmt: skip
    assert jackknife(ev) is None
    assert unit_jackknife(ev) is None
    res = CountResampler(layout=lay, evaluator=ev, metric="mse", cell_of_unit=lay.unit_cell,
                         drop_hint="")  # fmt: skip
    with pytest.raises(ValueError, match=r"jackknife over 15000 units, too costly .*'mse'.*"
                       r"method='percentile' or 'basic'"):  # fmt: skip
        res.acceleration()
    # a small budget refuses the same way; a large one gives every leave-one-out value
    small = make_evaluator(Metric("mse", mse, higher_is_better=False), y[:6], p[:6], p[:6] ** 2,
                           layout_of(np.arange(6), np.array([0, 6]), np.array([0, 6]),
                                     np.ones(1)), threshold=0.5)  # fmt: skip
    assert jackknife(small, max_work=35) is None
    loo = jackknife(small, max_work=36)
    assert loo is not None
    for u in range(6):
        keep = np.arange(6) != u
        want = -(mse(y[:6][keep], p[:6][keep]) - mse(y[:6][keep], p[:6][keep] ** 2))
        assert loo[u] == pytest.approx(want, rel=1e-12)
