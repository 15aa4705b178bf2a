"""Heterogeneity of slice effects: the array-level tests behind ``by_slice``.

Are the effects of a slice column's slices the same? Two tests answer from
arrays: :func:`welch_heterogeneity` (Welch's 1951 test of equal means with
estimated variances, from the slices' bootstrap variances, whose degrees of
freedom :func:`variance_dof` gives) and :func:`permutation_heterogeneity`
(slice labels permuted among the resampling units, on a studentized Cochran
Q). :func:`permute` runs the permutation test on the units of the tested
slices of one column. Which slices are tested, and the notes about those
left out, are decided by :mod:`pdpaired.analysis.slices`.
"""

from __future__ import annotations

import itertools
import math
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from pdpaired._lib.rng import slice_index, stream_sequence
from pdpaired.core.bootstrap import SMALL_SAMPLE_SAMPLINGS

if TYPE_CHECKING:
    from pdpaired.analysis.slices import SliceUnits

__all__ = ["permutation_heterogeneity", "permute", "variance_dof", "welch_heterogeneity"]

#: Permutations of slice labels evaluated at once (bounds memory; never changes results).
_PERM_BATCH_CELLS = 2_000_000


def variance_dof(bs: Any, *, score_mode: bool | None = None) -> tuple[float, float]:
    """Degrees of freedom of a slice's bootstrap variance, and the factor that unbiases it.

    The variance of a mean estimated from ``G`` resampling units (in ``H``
    strata) has ``G - H`` degrees of freedom. The plain bootstrap's variance
    is ``(G - 1) / G`` of the unbiased estimate; the stratified and cluster
    bootstraps of score mode are Rao-Wu rescaled, so already unbiased.
    ``score_mode``: whether the slice's measure is a mean of per-case scores
    (whatever its name, e.g. ``"pass@5"``); None reads it from ``bs.metric``
    (``"mean"``).
    """
    units = bs.n_groups if bs.unit == "group" and bs.n_groups is not None else bs.n_cases
    strata = bs.n_strata or 1
    if bs.sampling == "target-stratified":
        strata += 1  # two target classes held fixed
    dof = float(max(units - strata, 1))
    mean_of_scores = bs.metric == "mean" if score_mode is None else score_mode
    rescaled = bs.sampling in SMALL_SAMPLE_SAMPLINGS and mean_of_scores
    factor = 1.0 if rescaled or units < 2 else units / (units - 1.0)
    return dof, factor


def welch_heterogeneity(
    theta: np.ndarray, var: np.ndarray, dof: np.ndarray
) -> tuple[float, float, float, float]:
    """Welch's (1951) test of equal means with estimated variances, for slice effects.

    Cochran's Q with inverse-variance weights refers the weighted spread of
    the effects to a chi-square with ``k - 1`` degrees of freedom, as if the
    weights were known; estimated from a few dozen cases they are not, and Q
    rejects too often (7-8% at a nominal 5% with six slices of 40 cases).
    Welch divides ``Q / (k - 1)`` by ``1 + 2 (k - 2) / (k**2 - 1) * L`` with
    ``L = sum_i (1 - w_i / W)**2 / nu_i`` and refers it to an F distribution
    with ``k - 1`` and ``(k**2 - 1) / (3 L)`` degrees of freedom, which
    accounts for the variance estimates' own error (``nu_i`` their degrees
    of freedom).

    Returns
    -------
    q, f, df2, pvalue
    """
    from scipy import stats

    w = 1.0 / var
    big_w = float(w.sum())
    k = theta.size
    mean = float(np.sum(w * theta)) / big_w
    q = float(np.sum(w * (theta - mean) ** 2))
    lam = float(np.sum((1.0 - w / big_w) ** 2 / dof))
    f = q / (k - 1) / (1.0 + 2.0 * (k - 2) / (k * k - 1.0) * lam)
    df2 = (k * k - 1.0) / (3.0 * lam) if lam > 0 else np.inf
    return q, f, float(df2), float(stats.f.sf(f, k - 1, df2))


def _studentized_q(
    s1: np.ndarray,
    m1: np.ndarray,
    s2: np.ndarray,
    sm: np.ndarray,
    m2: np.ndarray,
    g: np.ndarray,
) -> np.ndarray:
    """Q of the slice estimates, each weighted by its own unit-level variance (last axis: slices).

    ``s1, m1, s2, sm, m2, g``: per slice, the sums of ``total``, ``count``,
    ``total**2``, ``total * count``, ``count**2`` and the number of units.
    The slice estimate is the ratio ``s1 / m1`` and its variance the
    linearized (cluster) estimate ``g / (g - 1) * sum((t - theta c)**2) / m1**2``,
    which for single cases is ``var(d, ddof=1) / n``.
    """
    with np.errstate(all="ignore"):
        theta = s1 / m1
        ss = s2 - 2.0 * theta * sm + theta * theta * m2
        var = g / (g - 1.0) * np.maximum(ss, 0.0) / (m1 * m1)
        w = 1.0 / var
        mean = np.sum(w * theta, axis=-1, keepdims=True) / np.sum(w, axis=-1, keepdims=True)
        q: np.ndarray = np.sum(w * (theta - mean) ** 2, axis=-1)
    return q


def permutation_heterogeneity(
    code: np.ndarray,
    total: np.ndarray,
    count: np.ndarray,
    stratum: np.ndarray | None,
    k: int,
    n_permutations: int,
    seed_sequence: np.random.SeedSequence,
) -> tuple[float, float]:
    """Permutation test of equal slice effects: slice labels permuted among units.

    The statistic is Cochran's Q with each slice weighted by the inverse of
    its own estimated variance (a *studentized* statistic: its permutation
    test is exact when the slices' distributions are the same, and
    asymptotically valid for equal means when their variances differ --
    Chung & Romano 2013, Ann. Statist. 41(2)). Labels are permuted among
    the units (cases, or whole groups) of the same stratum. The p-value is
    ``(1 + #{Q* >= Q}) / (1 + R)`` (a permuted Q equal to the observed one
    within 1e-12 counts; an undefined Q*, a permuted slice without spread,
    counts too). Permutations are drawn from one generator in batches of
    ``floor(2,000,000 / units)``; within a batch each stratum's units are
    shuffled for every permutation (``Generator.permuted``) before the next
    stratum's, so with strata the draws depend on that batch size (a fixed
    function of the number of units: the p-value is reproducible).

    Parameters
    ----------
    code : ndarray of int
        Slice of each unit, ``0 .. k-1``.
    total, count : ndarray
        Each unit's sum of differences and its number of cases.
    stratum : ndarray of int or None
    k : int
        Number of slices.
    n_permutations : int
    seed_sequence : numpy.random.SeedSequence
        The stream ``slice_heterogeneity`` of the column.

    Returns
    -------
    statistic, pvalue : float
    """
    n = code.size
    t = np.asarray(total, dtype=np.float64)
    c = np.asarray(count, dtype=np.float64)
    parts = (t, c, t * t, t * c, c * c)
    # columns grouped by slice: a slice's sums are one reduceat over its columns
    by_slice = np.argsort(code, kind="stable")
    sizes = np.bincount(code, minlength=k)
    if np.any(sizes == 0):
        return math.nan, math.nan
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    g = sizes.astype(np.float64)

    single = bool(np.all(c == 1.0))  # cases: the count sums are the slice sizes

    def q_of(src: np.ndarray) -> np.ndarray:
        # src[r, u]: the unit whose values unit u carries in permutation r
        cols = src[:, by_slice]
        if single:
            s1, s2 = (np.add.reduceat(x[cols], starts, axis=1) for x in (t, t * t))
            m = np.broadcast_to(g, s1.shape)
            return _studentized_q(s1, m, s2, s1, m, m)
        s1, m1, s2, sm, m2 = (np.add.reduceat(x[cols], starts, axis=1) for x in parts)
        return _studentized_q(s1, m1, s2, sm, m2, np.broadcast_to(g, s1.shape))

    q_obs = float(q_of(np.arange(n)[None, :])[0])
    # shuffling values among units of a stratum is shuffling their slice labels
    unit_order = np.argsort(stratum, kind="stable") if stratum is not None else np.arange(n)
    if stratum is None:
        blocks = [(0, n)]
    else:
        edges = np.flatnonzero(np.diff(stratum[unit_order])) + 1
        bounds = np.concatenate([[0], edges, [n]])
        blocks = [(int(a), int(b)) for a, b in itertools.pairwise(bounds)]
    rng = np.random.default_rng(seed_sequence)
    tol = 1e-12 * max(1.0, abs(q_obs))
    extreme = 0
    step = max(1, _PERM_BATCH_CELLS // max(n, 1))
    done = 0
    while done < n_permutations:
        rows = min(step, n_permutations - done)
        base = np.broadcast_to(unit_order, (rows, n)).copy()
        for lo, hi in blocks:
            if hi - lo > 1:
                base[:, lo:hi] = rng.permuted(base[:, lo:hi], axis=1)
        src = np.empty_like(base)
        src[:, unit_order] = base
        q = q_of(src)
        extreme += int(np.count_nonzero(~(q < q_obs - tol)))  # NaN counts as extreme
        done += rows
    return q_obs, (1.0 + extreme) / (1.0 + n_permutations)


def permute(
    table: pd.DataFrame,
    rows: list[int],
    got: SliceUnits,
    n_permutations: int,
    root: np.random.SeedSequence,
    column: str,
) -> tuple[float, float] | None:
    """Run :func:`permutation_heterogeneity` on the units of the tested slices of a column."""
    codes, uniques = pd.factorize(got.label, use_na_sentinel=False)
    where = np.full(len(uniques), -1, dtype=np.int64)
    for k, i in enumerate(rows):
        v = table.loc[i, "value"]
        for j, u in enumerate(uniques):
            na_u, na_v = _scalar_na(u), _scalar_na(v)
            if (na_u and na_v) or (not na_u and not na_v and bool(u == v)):
                where[j] = k
    code = where[codes]
    keep = code >= 0  # units of skipped, undefined or flat slices are left out
    stratum = None if got.stratum is None else got.stratum[keep]
    q, p = permutation_heterogeneity(
        code[keep], got.total[keep], got.count[keep], stratum, len(rows), n_permutations,
        stream_sequence(root, "slice_heterogeneity", *slice_index("\x00heterogeneity", column)),
    )  # fmt: skip
    return (q, p) if np.isfinite(q) else None


def _scalar_na(v: Any) -> bool:
    return v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v))
