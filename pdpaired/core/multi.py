"""Joint bootstrap of several comparisons of the same cases, and simultaneous rank sets.

One resampling of the cases per replicate serves every comparison: the draws
(unit indices, or unit draw counts in prediction mode) come from the same
addressed streams as a two-model bootstrap (``bootstrap_chunk`` ``k`` for
replicates ``CHUNK*k ...``; see :mod:`pdpaired._lib.rng`) and depend only on the
units per stratum, never on the scores. Hence

* each comparison's replicates are bit-identical to its own two-model
  bootstrap whenever that bootstrap resamples indices (every prediction-mode
  metric; score mode unless its unit differences take so few distinct values
  that the two-model call takes the multinomial shortcut, e.g. 0/1 scores on
  many cases -- that shortcut draws counts of distinct differences, which
  cannot be shared across comparisons, so there the joint replicates agree
  with the two-model ones in distribution, not draw for draw);
* the replicates are coherent across comparisons: with the same cases,
  replicate ``r`` of ``A - C`` equals replicate ``r`` of ``A - B`` plus that
  of ``B - C`` (up to the fixed-point rounding of each comparison's sums,
  below ``2**-40`` of the largest value).

Drawing once and gathering every comparison's unit sums per draw costs about
one two-model bootstrap plus a cheap gather per extra comparison.

:func:`rank_sets` builds simultaneous confidence sets for ranks from joint
replicates (Mogstad, Romano, Shaikh & Wilhelm 2024).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pdpaired._lib import progress
from pdpaired._lib.rng import CHUNK
from pdpaired._lib.special import ndtr, stdtrit
from pdpaired.core.accel import (
    DRAW_SECONDS,
    engine_for,
    resampling_engine,
)
from pdpaired.core.bootstrap import DesignResampler, Resampler, sparsity
from pdpaired.core.engine import (
    Design,
    Rescale,
    finalize,
    fixed_point,
    joint_draws,
    rao_wu,
)
from pdpaired.core.prediction import CountResampler, bootstrap_counts

__all__ = [
    "MIN_RANK_DF",
    "JointDraws",
    "RankSets",
    "SimultaneousBand",
    "few_ranked_units_message",
    "joint_replicates",
    "pair_relations",
    "rank_sets",
    "simultaneous_band",
]

#: Below this many design degrees of freedom the corrected rank sets still cover
#: under their level (see :func:`few_ranked_units_message`).
MIN_RANK_DF = 20


@dataclass(frozen=True, slots=True, eq=False)
class JointDraws:
    """Replicates of several comparisons.

    Attributes
    ----------
    replicates : list of ndarray
        One ``(n_resamples,)`` array per comparison (NaN where undefined).
    engine : str
        What drew them (``"numba"``, ``"numpy"``, ``"poisson"``, ...).
    shared : bool
        True when one draw of the units served every comparison (the same
        units, resampled once); False when each comparison resampled its own
        cases (they differ, e.g. under ``"complete-case"`` with different
        missing cases), still from the same streams.
    coherent : bool
        True when replicate ``r`` of every comparison resamples the same
        cases: one shared draw, or a backend whose draws are keyed by case
        (the Dask Poisson bootstrap). False when the comparisons' own
        resamplers drew differently (other cases, or the multinomial
        shortcut over a compressed design's distinct differences).
    """

    replicates: list[np.ndarray]
    engine: str
    shared: bool
    coherent: bool


def _same_units(designs: Sequence[Design]) -> bool:
    first = designs[0]
    for d in designs:
        if d.freq is not None or first.freq is not None:
            return False
        if not np.array_equal(d.unit_ptr, first.unit_ptr):
            return False
        if (d.count is None) != (first.count is None):
            return False
        if (
            d.count is not None
            and first.count is not None
            and not np.array_equal(d.count, first.count)
        ):
            return False
        if not np.array_equal(d.weight, first.weight) or d.sign != first.sign:
            return False
    return True


def _same_layout(resamplers: Sequence[CountResampler]) -> bool:
    first = resamplers[0].layout
    for r in resamplers:
        lay = r.layout
        for name in ("case_unit", "cell_ptr", "stratum_ptr", "weight", "unit_size"):
            if not np.array_equal(getattr(lay, name), getattr(first, name)):
                return False
    return True


def pair_relations(pairs: Sequence[tuple[object, object]]) -> list[tuple[int, int] | None]:
    """Comparisons whose differences may follow from two others: ``A - B = (R - B) - (R - A)``.

    For each comparison ``(a, b)``, the positions ``(p, m)`` of comparisons
    ``(r, b)`` and ``(r, a)`` with ``r`` the first model (or ``(a, r)`` and
    ``(b, r)``), or None. :func:`joint_replicates` uses a relation only when
    the quantized per-unit differences satisfy it exactly, so it never
    changes a replicate; it spares gathering ``k (k - 1) / 2`` columns per
    draw for ``all_pairs`` (``k - 1`` suffice).
    """
    if not pairs:
        return []
    where = {(a, b): i for i, (a, b) in enumerate(pairs)}
    r = pairs[0][0]
    out: list[tuple[int, int] | None] = []
    for a, b in pairs:
        rel = None
        if r not in (a, b):
            if (r, b) in where and (r, a) in where:
                rel = (where[r, b], where[r, a])  # (r - b) - (r - a) = a - b
            elif (a, r) in where and (b, r) in where:
                rel = (where[a, r], where[b, r])  # (a - r) - (b - r) = a - b
        out.append(rel)
    return out


def joint_replicates(
    resamplers: Sequence[Resampler],
    n_resamples: int,
    seed_sequence: np.random.SeedSequence,
    batch: int | None,
    relations: Sequence[tuple[int, int] | None] | None = None,
) -> JointDraws:
    """Draw the bootstrap replicates of several comparisons from one resampling.

    Parameters
    ----------
    resamplers : sequence of Resampler
        One per comparison, as each two-model bootstrap would use it.
    n_resamples : int
    seed_sequence : numpy.random.SeedSequence
        The root of the streams (the user's seed).
    batch : int or None
        Replicates evaluated at once; never changes results.
    relations : sequence, optional
        :func:`pair_relations` of the comparisons: a comparison whose
        quantized unit differences are exactly those of two others (up to a
        power of two) gets its replicate sums from theirs instead of its own
        gather -- the same integers, so the same replicates.

    Returns
    -------
    JointDraws
    """
    if all(isinstance(r, DesignResampler) for r in resamplers):
        designs = [r.design for r in resamplers if isinstance(r, DesignResampler)]
        if _same_units(designs) and designs[0].n_units < 2**31:
            rescales = [  # the small-sample correction of each comparison (Rao-Wu)
                rao_wu(r.design) if r.small_sample else None
                for r in resamplers
                if isinstance(r, DesignResampler)
            ]
            reps, engine = _shared_index(
                designs, n_resamples, seed_sequence, batch, rescales, relations
            )
            return JointDraws(reps, engine, shared=True, coherent=True)
    if all(isinstance(r, CountResampler) for r in resamplers):
        counters = [r for r in resamplers if isinstance(r, CountResampler)]
        if _same_layout(counters):
            work = sum(r.evaluator.draw_seconds for r in counters) * counters[0].layout.n_units
            with engine_for(work * n_resamples) as engine:
                reps = _shared_counts(counters, n_resamples, seed_sequence, batch)
            return JointDraws(reps, engine, shared=True, coherent=True)
    # Otherwise (other cases per comparison, a compressed design, or a backend that
    # resamples where its rows are): each comparison resamples from the same
    # streams on its own. With the same cases, draws keyed by case (the Dask
    # Poisson weights) stay coherent; designs resampled on the client do not.
    out = [r.replicates(n_resamples, seed_sequence, batch) for r in resamplers]
    engines = sorted({e for _, e in out})
    keyed = not any(isinstance(r, (DesignResampler, CountResampler)) for r in resamplers)
    return JointDraws([x for x, _ in out], "+".join(engines), shared=False, coherent=keyed)


def _shared_index(
    designs: Sequence[Design],
    n_resamples: int,
    seed_sequence: np.random.SeedSequence,
    batch: int | None,
    rescales: Sequence[Rescale | None] | None = None,
    relations: Sequence[tuple[int, int] | None] | None = None,
) -> tuple[list[np.ndarray], str]:
    """Index resampling of the common units, each draw gathering every comparison's sums.

    ``rescales``: each comparison's Rao-Wu rescaling (or None), applied to its
    replicates as :class:`pdpaired.core.bootstrap.DesignResampler` does.
    ``relations``: see :func:`joint_replicates`; the comparisons they derive
    are not gathered.
    """
    first = designs[0]
    quantized = [fixed_point(d) for d in designs]
    derived = _derivable(quantized, relations)
    gathered = [j for j in range(len(designs)) if j not in derived]
    q_t = np.ascontiguousarray(np.stack([quantized[j][0] for j in gathered], axis=0))
    n_cols = q_t.shape[0]  # the comparisons gathered (the others follow from them)
    sizes = first.sizes
    n_strata = len(first.weight)
    if int(sizes.max()) > 0xFFFFFFFF:
        msg = "More than 2**32 - 1 resampling units in one stratum are not supported."
        raise ValueError(msg)
    s = np.empty((n_resamples, n_strata, n_cols), dtype=np.int64)
    c = None if first.count is None else np.empty((n_resamples, n_strata), dtype=np.int64)
    work = DRAW_SECONDS * first.n_units * n_resamples * n_cols
    engine = resampling_engine(work)
    with progress.bar(n_resamples, "bootstrap") as done:
        joint_draws(first, q_t, c, s, n_resamples, seed_sequence, batch, engine, work, done)
    sums = {j: s[:, :, i] for i, j in enumerate(gathered)}
    for j, (p, m, shift) in derived.items():  # exact int64: the sums of the derived differences
        e = sums[p] - sums[m]
        sums[j] = e << shift if shift >= 0 else e >> -shift
    rescales = list(rescales) if rescales is not None else [None] * len(designs)
    reps = [
        finalize(d, np.ascontiguousarray(sums[j]), c, quantized[j][1], rescales[j])
        for j, d in enumerate(designs)
    ]
    return reps, engine


def _derivable(
    quantized: Sequence[tuple[np.ndarray, float]],
    relations: Sequence[tuple[int, int] | None] | None,
) -> dict[int, tuple[int, int, int]]:
    """Comparisons whose quantized unit differences follow exactly from two gathered ones.

    ``j -> (p, m, shift)`` when ``q_j * 2**-shift == q_p - q_m`` elementwise
    (``q_p`` and ``q_m`` on one grid; ``shift`` the exponent between the
    grids): then every replicate's sums satisfy the same identity in exact
    int64 arithmetic, so ``j``'s sums are computed from ``p``'s and ``m``'s
    rather than gathered. Checked on the integers, so a relation that does
    not hold exactly (other grids, rounding) is simply not used.
    """
    out: dict[int, tuple[int, int, int]] = {}
    if relations is None:
        return out
    for j, rel in enumerate(relations):
        if rel is None:
            continue
        p, m = rel
        if p in out or m in out or p == j or m == j:
            continue  # derive from gathered comparisons only
        (qj, sj), (qp, sp), (qm, sm) = quantized[j], quantized[p], quantized[m]
        if sp != sm or sj <= 0.0 or sp <= 0.0:
            continue
        shift = round(math.log2(sp / sj))
        if math.ldexp(sj, shift) != sp or abs(shift) > 60:
            continue
        e = qp - qm
        if shift >= 0:
            ok = np.array_equal(e << shift, qj) and np.array_equal(qj >> shift, e)
        else:
            ok = np.array_equal(e >> -shift, qj) and np.array_equal(qj << -shift, e)
        if ok:
            out[j] = (p, m, shift)
    return out


def _shared_counts(
    resamplers: Sequence[CountResampler],
    n_resamples: int,
    seed_sequence: np.random.SeedSequence,
    batch: int | None,
) -> list[np.ndarray]:
    """Prediction mode: one batch of draw counts, every comparison's metric on it."""
    layout = resamplers[0].layout
    u = layout.n_units
    rows = batch or max(2 * CHUNK, (1 << 24) // max(1, u))
    rows = CHUNK * max(1, -(-rows // CHUNK))  # whole chunks
    work = sum(r.evaluator.draw_seconds for r in resamplers) * u * n_resamples
    rows = min(rows, progress.steps(n_resamples, batch, CHUNK, work) or rows)
    rows = CHUNK * max(1, -(-rows // CHUNK))
    reps = [np.empty(n_resamples) for _ in resamplers]
    buffer = np.empty((min(rows, n_resamples), u), dtype=np.int32)
    with progress.bar(n_resamples, "bootstrap") as done:
        for start in range(0, n_resamples, rows):
            m = min(rows, n_resamples - start)
            counts = buffer[:m]
            bootstrap_counts(layout, start // CHUNK, m, seed_sequence, counts)
            for out, r in zip(reps, resamplers, strict=True):
                out[start : start + m] = r.evaluator.evaluate(counts)
            done(m)
    return reps


# --------------------------------------------------------------------------- ranks
@dataclass(frozen=True, slots=True, eq=False)
class RankSets:
    """Simultaneous confidence sets of ranks (rank 1 is the best)."""

    rank: np.ndarray  # (k,) rank of each point estimate (ties share the best rank)
    lower: np.ndarray  # (k,) best rank in the set
    upper: np.ndarray  # (k,) worst rank in the set
    critical_value: float  # the half-width of each difference's interval, in bootstrap SEs


def rank_sets(
    estimate: np.ndarray,
    replicates: np.ndarray,
    *,
    confidence_level: float,
    simultaneous: bool = True,
    df: float | None = None,
    variance_factor: float = 1.0,
) -> RankSets:
    """Confidence sets for the ranks of ``k`` effects from joint bootstrap replicates.

    The construction of Mogstad, Romano, Shaikh & Wilhelm (2024, "Inference
    for ranks with applications to mobility across neighbourhoods and
    academic achievement across countries", Review of Economic Studies):
    simultaneous confidence intervals for every difference ``theta_j -
    theta_k`` from the bootstrap distribution of the largest studentized
    deviation (a max-t critical value), then the rank of ``j`` lies between
    ``1 +`` (effects significantly above ``theta_j``) and ``k -`` (effects
    significantly below). With ``simultaneous=True`` the sets cover every
    model's rank at once with probability at least ``confidence_level``
    (asymptotically); with False each set covers its own model's rank
    (the maximum over ``j``'s differences only).

    The max-t critical value ``c`` is a quantile of deviations measured in
    bootstrap standard errors, whose distribution is close to that of a
    maximum of normal variables. In a finite sample each observed deviation
    is measured in an *estimated* standard error instead, and behaves as a
    Student ``t`` on the design's degrees of freedom: its tails are heavier,
    and ``c`` read as a normal quantile under-covers. The small-sample
    correction, given ``df``, keeps the level each single difference is
    tested at, ``2 * Phi(-c)``, and reads it on the ``t_df`` distribution
    instead, ``c_t = t_df(1 - Phi(-c))`` (the expansion the two-model
    intervals of stratified and cluster designs apply to their tail levels,
    Hesterberg 2015); ``variance_factor`` then scales the standard errors by
    its square root: ``n / (n - 1)`` undoes the bootstrap's ``(n - 1) / n``
    bias of the variance of a mean where no Rao-Wu rescaling removed it. For
    normal scores each studentized difference is then exactly ``t_df`` at
    the level the bootstrap gives it; the bootstrap still supplies their
    dependence. The intervals of the differences are ``diff +- c_t *
    sqrt(variance_factor) * se``. Simultaneous 95% sets of six equal
    models (normal scores), uncorrected -> corrected: 100 cases 0.939 ->
    0.952 (+- 0.004, 10,000 replicates; 0.933 -> 0.943 +- 0.003 with
    1,000, whose Monte Carlo error of ``c`` costs coverage); 30 cases 0.904
    -> 0.949 +- 0.004; with 20 cases or fewer still about 0.94
    (:func:`few_ranked_units_message`).

    Parameters
    ----------
    estimate : ndarray, shape (k,)
        Effects, larger is better (direction adjusted).
    replicates : ndarray, shape (k, n)
        Their joint bootstrap replicates (columns with a NaN are dropped).
    confidence_level : float
    simultaneous : bool
    df : float, optional
        Degrees of freedom of the design (``n - 1`` for ``n`` independent
        cases, ``sum_h (G_h - 1)`` for ``G_h`` units in stratum ``h``); None
        (default) reads ``c`` as it is.
    variance_factor : float, default 1.0
        Factor of the bootstrap variance of every difference.

    Returns
    -------
    RankSets
    """
    est = np.asarray(estimate, dtype=np.float64)
    k = est.size
    reps = np.asarray(replicates, dtype=np.float64)
    reps = reps[:, np.all(np.isfinite(reps), axis=0)]
    rank = 1 + (est[None, :] > est[:, None]).sum(axis=1)
    if k < 2 or reps.shape[1] < 2:
        return RankSets(rank, np.ones(k, int), np.full(k, k), float("inf"))
    diff = est[:, None] - est[None, :]  # theta_j - theta_k
    dist = reps[:, None, :] - reps[None, :, :]  # (k, k, n)
    se = dist.std(axis=2, ddof=1)
    off = ~np.eye(k, dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.abs(dist - diff[:, :, None]) / se[:, :, None]
    t = np.where((se > 0)[:, :, None] & off[:, :, None], t, 0.0)
    if simultaneous:
        crit = np.full(k, float(np.quantile(t.max(axis=(0, 1)), confidence_level)))
    else:
        crit = np.quantile(t.max(axis=1), confidence_level, axis=1)
    crit = _small_sample(crit, df, variance_factor)
    half = crit[:, None] * se
    low, high = diff - half, diff + half  # interval of theta_j - theta_k, row j
    above = (high < 0) & off  # theta_k significantly above theta_j
    below = (low > 0) & off
    lower = 1 + above.sum(axis=1)
    upper = k - below.sum(axis=1)
    return RankSets(rank, lower.astype(int), upper.astype(int), float(crit.max()))


def _small_sample(crit: np.ndarray, df: float | None, variance_factor: float) -> np.ndarray:
    """Read a max-t critical value on ``t_df`` at its tail level; scale by the factor's root."""
    if df is not None and df > 0:
        crit = -stdtrit(df, ndtr(-crit))  # the same tail level, on t_df
    return crit * math.sqrt(variance_factor)


# --------------------------------------------------------------------------- bands
@dataclass(frozen=True, slots=True, eq=False)
class SimultaneousBand:
    """Simultaneous intervals of several comparisons (a max-t band)."""

    low: np.ndarray  # (m,)
    high: np.ndarray  # (m,)
    standard_error: np.ndarray  # (m,) bootstrap SD of each comparison (the joint columns)
    critical_value: float  # half-width of every interval in its comparison's bootstrap SEs
    endpoint_se: np.ndarray  # (m,) Monte Carlo standard error of each endpoint
    n_valid: int  # joint replicates where every comparison is defined


def simultaneous_band(
    estimate: np.ndarray,
    replicates: np.ndarray,
    *,
    confidence_level: float,
    df: float | None = None,
    variance_factor: float = 1.0,
) -> SimultaneousBand:
    """Intervals of ``m`` comparisons that cover all of them at once (a max-t band).

    From the joint replicates ``theta*_jb`` (one resampling of the cases
    per column ``b``): ``se_j`` is the bootstrap standard deviation of
    comparison ``j``, ``M_b = max_j |theta*_jb - theta_j| / se_j`` the
    largest studentized deviation of resample ``b``, ``c`` the
    ``confidence_level`` quantile of the ``M_b`` (``numpy.quantile``'s
    default, linear interpolation), and the interval of ``j`` is
    ``theta_j +- c * se_j``: all ``m`` hold at once with probability about
    ``confidence_level``, because the largest deviation is below ``c``
    exactly when every one is (the max-t construction of Romano & Wolf
    2005; Hothorn, Bretz & Westfall 2008 for the normal version). A
    comparison whose replicates do not vary (``se_j = 0``) enters no
    maximum and gets a zero-width interval.

    The same small-sample correction as :func:`rank_sets`: given ``df``
    the tail level ``2 * Phi(-c)`` is read on ``t_df`` and the standard
    errors are scaled by ``sqrt(variance_factor)``. Columns with a NaN
    (a replicate where some comparison is undefined) are dropped.

    ``endpoint_se`` is the Monte Carlo standard error of each endpoint
    (both have the same): the delta method over the sample quantile ``c``
    (``sqrt(q (1 - q) / B) / f(c)``, the density from a difference of
    quantiles) and the sample SD ``se_j`` (``Var(se^2) = (m_4 - se^4) / B``),
    ignoring their correlation.

    Parameters
    ----------
    estimate : ndarray, shape (m,)
    replicates : ndarray, shape (m, B)
    confidence_level : float
    df : float, optional
        Degrees of freedom of the design (see :func:`rank_sets`).
    variance_factor : float, default 1.0

    Returns
    -------
    SimultaneousBand

    Examples
    --------
    >>> import numpy as np
    >>> from pdpaired.core.multi import simultaneous_band
    >>> reps = np.random.default_rng(0).normal(size=(3, 4000))
    >>> band = simultaneous_band(np.zeros(3), reps, confidence_level=0.95)
    >>> round(band.critical_value, 1)  # the 95% quantile of the largest of 3 |N(0, 1)|
    2.4
    """
    est = np.asarray(estimate, dtype=np.float64)
    reps = np.asarray(replicates, dtype=np.float64)
    reps = reps[:, np.all(np.isfinite(reps), axis=0)]
    n = reps.shape[1]
    if n < 2:
        msg = (
            f"simultaneous intervals need at least 2 resamples where every comparison is "
            f"defined; got {n}. Use more resamples, or simultaneous=False."
        )
        raise ValueError(msg)
    se = reps.std(axis=1, ddof=1)
    live = se > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.abs(reps - est[:, None]) / se[:, None]
    t = np.where(live[:, None], t, 0.0)
    m_b = t.max(axis=0)
    q = float(confidence_level)
    c = float(np.quantile(m_b, q))
    crit = float(_small_sample(np.array([c]), df, variance_factor)[0])
    half = crit * se
    # Monte Carlo error: of the quantile c (mapped through the correction) and of each se_j
    sd_c = math.sqrt(q * (1.0 - q) / n) * sparsity(np.sort(m_b), q)
    h = max(1e-6, 1e-4 * c)
    slope = float(np.diff(_small_sample(np.array([c - h, c + h]), df, variance_factor))[0]) / (
        2 * h
    )
    dev = reps - reps.mean(axis=1, keepdims=True)
    m4 = np.mean(dev**4, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        var_se = np.where(live, np.maximum(m4 - se**4, 0.0) / n / (4.0 * se**2), 0.0)
    endpoint = np.sqrt((slope * sd_c * se) ** 2 + crit**2 * var_se)
    return SimultaneousBand(
        low=est - half, high=est + half, standard_error=se, critical_value=crit,
        endpoint_se=endpoint, n_valid=n,
    )  # fmt: skip


def few_ranked_units_message(df: float | None) -> str | None:
    """Warn below :data:`MIN_RANK_DF` design degrees of freedom, where rank sets under-cover.

    With the small-sample correction of :func:`rank_sets`, simultaneous 95%
    sets of six equal models (normal scores) covered 0.949 +- 0.004 with 30
    independent cases, but 0.939 +- 0.005 with 20, 0.934 +- 0.006 with 15
    and 0.939 +- 0.005 with 10.
    """
    if df is None or df >= MIN_RANK_DF:
        return None
    return (
        f"Only {df:.0f} design degrees of freedom: with fewer than {MIN_RANK_DF} the rank "
        "confidence sets cover a little under their level even with the small-sample "
        "correction (about 94% where 95% is asked, with 10 to 20 cases). Test the pairs of "
        "models that matter with the randomization test (df.paired.randomization, exact at "
        "any size) and adjust their p-values for multiplicity (Holm), or compare on more "
        "cases."
    )
