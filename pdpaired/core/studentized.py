"""Bootstrap-t (studentized) and double-bootstrap calibrated intervals of a design mean.

The statistic of a design (:mod:`pdpaired.core.engine`) is
``sign * sum_h w_h * r_h`` with ``r_h = S_h / C_h`` the ratio of a stratum's
summed unit values to its summed counts (a mean of cases, or a ratio of
cluster sums to cluster sizes). Its linearization variance is

``V = sum_h w_h**2 * sum_i (y_i - r_h c_i)**2 / (G_h (G_h - 1) cbar_h**2)``

with ``G_h`` units in stratum ``h`` and ``cbar_h = C_h / G_h`` (``c_i = 1``
without counts: then it is the textbook ``sum_h w_h**2 s_h**2 / G_h``).

* **Bootstrap-t** (:func:`studentized_replicates`, :func:`t_interval`): each
  replicate ``theta*`` is divided by its own standard error ``se*`` (the
  same formula on the replicate's units), and the interval is
  ``[theta - t*_(1-alpha) se, theta - t*_(alpha) se]`` from the quantiles of
  ``t* = (theta* - theta) / se*`` (Efron 1981; Hall 1988: second-order
  accurate where the percentile interval is first-order). The replicates
  ``theta*`` are those of :func:`pdpaired.core.engine.resample` for the
  same design and stream, bit for bit: one index draw gathers the unit
  values and their squared residuals at once (:func:`joint_draws`); the
  multinomial engine's counts give the same sums of any function of a unit.
  With the small-sample correction each stratum's deviation and variance
  are Rao-Wu rescaled alike.
* **Calibrated percentile** (:func:`calibrated_levels`): the double
  bootstrap of Beran (1987, prepivoting) and Hall & Martin (1988). Each of
  ``CALIBRATION_OUTER`` outer resamples is bootstrapped again
  ``CALIBRATION_INNER`` times; ``u_b`` is the share of its inner replicates
  below the full-sample estimate (ties counted half). The percentile
  interval then reads the outer replicates at the ``alpha`` and
  ``1 - alpha`` quantiles of the ``u_b`` instead of at ``alpha`` and
  ``1 - alpha``: the levels at which the percentile interval covered the
  estimate in the bootstrap world.
* :func:`effective_df`: the effective degrees of freedom of ``V`` for the
  small-sample correction's expanded levels (Welch's 1947 form of the
  Satterthwaite approximation), close to ``sum_h (G_h - 1)`` when the strata
  contribute alike and falling towards ``G_h - 1`` of the dominant stratum
  when they do not.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from pdpaired._lib import progress
from pdpaired._lib.rng import CHUNK, stream_sequence
from pdpaired.core.accel import DRAW_SECONDS, resampling_engine
from pdpaired.core.engine import (
    Design,
    choose_engine,
    finalize,
    fixed_point,
    full_sample_statistic,
    joint_draws,
    rao_wu,
)

__all__ = [
    "CALIBRATION_INNER",
    "CALIBRATION_OUTER",
    "Studentized",
    "calibrated_levels",
    "design_se",
    "effective_df",
    "studentized_replicates",
    "t_interval",
]

#: Outer and inner resamples of the calibrated (double-bootstrap) interval.
CALIBRATION_OUTER = 1000
CALIBRATION_INNER = 500
#: Most int64 sums held at once while drawing (32 MiB).
_CAP = 1 << 22
#: Replaces an infinite ``t*`` (a replicate with no spread) so quantiles interpolate.
_BIG = 1e300


@dataclass(frozen=True, slots=True, eq=False)
class Studentized:
    """Replicates of the statistic, their standard errors, and the full-sample ones."""

    theta: np.ndarray
    se: np.ndarray
    estimate: float
    standard_error: float
    engine: str

    @property
    def t(self) -> np.ndarray:
        """``(theta* - theta) / se*``; 0 where both are 0, +-``_BIG`` where only se* is."""
        dev = self.theta - self.estimate
        with np.errstate(divide="ignore", invalid="ignore"):
            t = dev / self.se
        t = np.where(self.se > 0, t, np.sign(dev) * _BIG)
        return np.where(np.isfinite(t), t, np.sign(t) * _BIG)


def _ratios(design: Design) -> np.ndarray:
    """Each stratum's full-sample ratio, with the arithmetic of the replicates."""
    return rao_wu(design)[0]


def _residuals(design: Design, q: np.ndarray, qscale: float) -> tuple[np.ndarray, np.ndarray]:
    """Per row: the unit's residual ``y - r_h c`` and its count (1 without counts)."""
    r = _ratios(design)
    stratum = np.repeat(np.arange(len(design.weight)), np.diff(design.unit_ptr))
    c = np.ones(q.size) if design.count is None else design.count.astype(np.float64)
    return q.astype(np.float64) * qscale - r[stratum] * c, c


def _variance_terms(design: Design, rescale: bool) -> tuple[np.ndarray, np.ndarray]:
    """Per stratum: ``w_h**2 f_h**2 / (G_h (G_h - 1))`` (0 for one unit), and ``G_h``."""
    g = design.sizes.astype(np.float64)
    factor = rao_wu(design)[1] if rescale else np.ones_like(g)
    with np.errstate(divide="ignore", invalid="ignore"):
        k = np.where(g > 1, design.weight**2 * factor**2 / (g * (g - 1.0)), 0.0)
    return k, g


def _variance_shares(design: Design) -> tuple[np.ndarray, np.ndarray]:
    """Per stratum: its share ``a_h`` of the module's ``V``, and ``G_h``."""
    q, qscale = fixed_point(design)
    u, c = _residuals(design, q, qscale)
    f = design.row_weights().astype(np.float64)
    ptr = design.unit_ptr[:-1]
    k, g = _variance_terms(design, rescale=False)
    cbar = np.add.reduceat(f * c, ptr) / g
    return k * np.add.reduceat(f * u * u, ptr) / cbar**2, g


def design_se(design: Design) -> float:
    """Linearization standard error of the design statistic (the module's ``V``)."""
    a, _ = _variance_shares(design)
    return float(math.sqrt(max(0.0, float(np.sum(a)))))


def effective_df(design: Design) -> float | None:
    """Effective degrees of freedom of :func:`design_se`'s variance; None without any.

    Welch's (1947) form of the Satterthwaite approximation,
    ``(sum_h a_h)**2 / sum_h (a_h**2 / (G_h + 1)) - 2`` with ``a_h`` stratum
    ``h``'s estimated share of the variance, clipped to
    ``[min_h (G_h - 1), sum_h (G_h - 1)]`` over the strata that have any. It
    corrects the plain Satterthwaite ratio ``(sum a)**2 / sum a**2 / (G - 1)``
    for the noise of each ``a_h`` (for normal data ``E a_h**2`` is
    ``(G_h + 1) / (G_h - 1)`` times the square of its mean), which makes the
    plain ratio about a third of ``sum_h (G_h - 1)`` with two units per
    stratum even when every stratum has the same variance. When every stratum
    has no spread (``V = 0``), ``sum_h (G_h - 1)``.
    """
    a, g = _variance_shares(design)
    keep = g > 1
    if not keep.any():
        return None
    dfs = g[keep] - 1.0
    total_df = float(np.sum(dfs))
    a = a[keep]
    if not np.sum(a) > 0.0:
        return total_df
    welch = float(np.sum(a) ** 2 / np.sum(a**2 / (g[keep] + 1.0)) - 2.0)
    return min(max(welch, float(np.min(dfs[a > 0]))), total_df)


def studentized_replicates(
    design: Design,
    n_resamples: int,
    seed_sequence: np.random.SeedSequence,
    batch: int | None = None,
    *,
    rescale: bool = False,
) -> Studentized:
    """Bootstrap replicates of the statistic and of its standard error, from one draw.

    Parameters
    ----------
    design : Design
    n_resamples : int
    seed_sequence : numpy.random.SeedSequence
        The root of the streams: the draws are those of
        :func:`pdpaired.core.engine.resample` (index chunks, or the
        multinomial streams per stratum), so ``theta`` equals its replicates.
    batch : int, optional
        Replicates evaluated at once (bounds memory); never changes results.
    rescale : bool, default False
        The small-sample correction (Rao-Wu), applied to each stratum's
        deviation and to its variance alike.

    Returns
    -------
    Studentized
    """
    plan = choose_engine(design)
    if plan[0] != "multinomial" and design.freq is not None:
        return studentized_replicates(
            design.expanded(), n_resamples, seed_sequence, batch, rescale=rescale
        )
    engine, q, qscale, distinct = plan
    rw = rao_wu(design) if rescale else None
    r = _ratios(design)
    k, g = _variance_terms(design, rescale)
    theta = np.empty(n_resamples)
    se = np.empty(n_resamples)

    def finish(lo: int, s: np.ndarray, cs: np.ndarray | None, uu: np.ndarray,
               uc: np.ndarray, cc: np.ndarray) -> None:  # fmt: skip
        theta[lo : lo + s.shape[0]] = finalize(design, s, cs, qscale, rw)
        counts = g if cs is None else cs.astype(np.float64)
        delta = s.astype(np.float64) * qscale / counts - r
        ss = np.maximum(uu - 2.0 * delta * uc + delta**2 * cc, 0.0)
        cbar = counts / g
        se[lo : lo + s.shape[0]] = np.sqrt(np.sum(k * ss / cbar**2, axis=1))

    if engine == "multinomial":
        assert distinct is not None
        _multinomial(design, n_resamples, seed_sequence, batch, distinct, qscale, r, finish)
        out_engine = engine
    else:
        out_engine = _index(design, n_resamples, seed_sequence, batch, q, qscale, finish)
    return Studentized(theta, se, full_sample_statistic(design), design_se(design), out_engine)


_Finish = Callable[..., None]


def _multinomial(
    design: Design, n_resamples: int, seed_sequence: np.random.SeedSequence,
    batch: int | None, distinct: Any, qscale: float, r: np.ndarray, finish: _Finish,
) -> None:  # fmt: skip
    """Draw with the multinomial engine (its streams and batches) and finish each batch."""
    n_strata = len(design.weight)
    sizes = design.sizes
    gens = [
        np.random.Generator(np.random.PCG64(stream_sequence(seed_sequence, "bootstrap_stratum", h)))
        for h in range(n_strata)
    ]
    if batch is None:
        batch = max(1, min(n_resamples, _CAP // max(1, 4 * n_strata)))
    for start in range(0, n_resamples, batch):
        m = min(batch, n_resamples - start)
        s = np.empty((m, n_strata), dtype=np.int64)
        cs = None if design.count is None else np.empty((m, n_strata), dtype=np.int64)
        uu = np.empty((m, n_strata))
        uc = np.empty((m, n_strata))
        cc = np.empty((m, n_strata))
        for h, (uq, ucnt, freq) in enumerate(distinct):
            counts = gens[h].multinomial(int(sizes[h]), freq / sizes[h], size=m)
            s[:, h] = counts @ uq
            c = np.ones(uq.size) if ucnt is None else ucnt.astype(np.float64)
            if cs is not None and ucnt is not None:
                cs[:, h] = counts @ ucnt
            u = uq.astype(np.float64) * qscale - r[h] * c
            cf = counts.astype(np.float64)
            uu[:, h] = cf @ (u * u)
            uc[:, h] = cf @ (u * c)
            cc[:, h] = cf @ (c * c)
        finish(start, s, cs, uu, uc, cc)


def _index(
    design: Design, n_resamples: int, seed_sequence: np.random.SeedSequence,
    batch: int | None, q: np.ndarray, qscale: float, finish: _Finish,
) -> str:  # fmt: skip
    """Draw with an index engine, gathering values, squared residuals and cross terms at once."""
    u, c = _residuals(design, q, qscale)
    r = _ratios(design)
    cols = [q]
    scales = [qscale]
    for extra in (u * u,) if design.count is None else (u * u, u * c):
        qe, se = fixed_point(replace(design, value=extra, count=None))
        cols.append(qe)
        scales.append(se)
    if design.count is not None:
        cols.append(design.count.astype(np.int64) ** 2)  # exact
        scales.append(1.0)
    q_t = np.ascontiguousarray(np.stack(cols, axis=0))
    n_cols = q_t.shape[0]
    n_strata = len(design.weight)
    g = design.sizes.astype(np.float64)
    work = DRAW_SECONDS * design.n_units * n_resamples * n_cols
    engine = resampling_engine(work)
    per = CHUNK * max(1, _CAP // (CHUNK * n_strata * n_cols))
    with progress.bar(n_resamples, "bootstrap") as done:
        for lo in range(0, n_resamples, per):
            m = min(per, n_resamples - lo)
            s = np.empty((m, n_strata, n_cols), dtype=np.int64)
            cs = None if design.count is None else np.empty((m, n_strata), dtype=np.int64)
            joint_draws(design, q_t, cs, s, m, seed_sequence, batch, engine, work, done, lo)
            sums = [s[:, :, j].astype(np.float64) * scales[j] for j in range(1, n_cols)]
            if design.count is None:  # sum of residuals: G_h times the ratio's deviation
                uu, cc = sums[0], np.broadcast_to(g, (m, n_strata))
                uc = s[:, :, 0].astype(np.float64) * qscale - r * g
            else:
                uu, uc, cc = sums
            finish(lo, np.ascontiguousarray(s[:, :, 0]), cs, uu, uc, cc)
    return engine


def t_interval(
    st: Studentized, confidence_level: float
) -> tuple[float, float, np.ndarray, np.ndarray]:
    """Return the bootstrap-t interval, the ``t*`` replicates and the two quantile levels read.

    Returns ``(low, high, t, levels)``: ``low = theta - t*_(1-alpha) se`` and
    ``high = theta - t*_(alpha) se`` (``levels`` is ``[1 - alpha, alpha]``,
    the low endpoint's first). An endpoint whose ``t*`` quantile is a
    replicate without spread is infinite.
    """
    alpha = (1.0 - confidence_level) / 2.0
    t = st.t
    levels = np.array([1.0 - alpha, alpha])
    q_hi, q_lo = np.percentile(t, 100 * levels)
    with np.errstate(over="ignore", invalid="ignore"):
        low = -math.inf if q_hi >= _BIG else st.estimate - q_hi * st.standard_error
        high = math.inf if q_lo <= -_BIG else st.estimate - q_lo * st.standard_error
    low = float(low) if math.isfinite(low) else -math.inf
    high = float(high) if math.isfinite(high) else math.inf
    return low, high, t, levels


def calibrated_levels(
    design: Design,
    estimate: float,
    confidence_level: float,
    seed_sequence: np.random.SeedSequence,
    *,
    rescale: bool = False,
    n_outer: int = CALIBRATION_OUTER,
    n_inner: int = CALIBRATION_INNER,
) -> tuple[float, float]:
    """Return the calibrated percentile levels ``(lambda_low, lambda_high)`` (double bootstrap).

    Outer resample ``b`` draws ``G_h`` units with replacement in each stratum
    from the ``calibration`` stream ``b``; ``n_inner`` inner resamples of
    those units, from the same generator, give ``u_b``, the share of inner
    replicates below ``estimate`` (ties half). The levels are the ``alpha``
    and ``1 - alpha`` quantiles of the ``u_b``. Unit sums are the exact
    fixed-point sums of the engine, so ``u_b`` does not depend on batching.
    """
    alpha = (1.0 - confidence_level) / 2.0
    d = design.expanded()
    q, qscale = fixed_point(d)
    rw = rao_wu(d) if rescale else None
    ptr, sizes = d.unit_ptr, d.sizes
    n_strata = len(d.weight)
    u = np.empty(n_outer)
    n = int(d.n_units)
    per = max(1, _CAP // max(1, n))  # inner replicates drawn at once
    with progress.bar(n_outer, "calibration") as done:
        for b in range(n_outer):
            gen = np.random.Generator(
                np.random.PCG64(stream_sequence(seed_sequence, "calibration", b))
            )
            outer = [int(ptr[h]) + gen.integers(0, int(sizes[h]), size=int(sizes[h]))
                     for h in range(n_strata)]  # fmt: skip
            below = 0.0
            for r0 in range(0, n_inner, per):
                m = min(per, n_inner - r0)
                s = np.empty((m, n_strata), dtype=np.int64)
                cs = None if d.count is None else np.empty((m, n_strata), dtype=np.int64)
                for h in range(n_strata):
                    g = int(sizes[h])
                    idx = outer[h][gen.integers(0, g, size=(m, g))]
                    s[:, h] = np.take(q, idx).sum(axis=1)
                    if cs is not None and d.count is not None:
                        cs[:, h] = np.take(d.count, idx).sum(axis=1)
                reps = finalize(d, s, cs, qscale, rw)
                below += float(np.sum(reps < estimate)) + 0.5 * float(np.sum(reps == estimate))
            u[b] = below / n_inner
            done(1)
    lo, hi = np.quantile(u, [alpha, 1.0 - alpha])
    return float(lo), float(hi)
