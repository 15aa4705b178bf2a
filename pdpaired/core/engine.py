"""The resampling engine: exact, order-free sums over a resampling design.

A design is a list of resampling units (cases or groups) sorted by stratum.
Each unit carries a value (the sum of its paired differences, or its mean
difference for ``weighting="group"``) and a count (its number of cases). A
replicate draws exactly ``G_h`` units with replacement inside each stratum
``h`` and the statistic is ``sign * sum_h w_h * S_h / C_h`` with ``S_h`` the
summed values and ``C_h`` the summed counts of the drawn units.

Unit values are summed in exact int64 fixed point (``q = round(v * 2**k)``
with ``k`` as large as the bound ``max|q| * G < 2**62`` allows, so at least
``62 - log2(G) - 1`` bits of the largest value are kept; integers such as
0/1 scores are exact). Integer addition is associative, so the sums, and hence
every replicate, are bit-identical whatever the batch size, thread count or
engine. The quantization error of a resampled mean is below
``max|v| * 2**-(62 - log2 G)``, many orders of magnitude under its bootstrap
standard error.

Three engines give the same replicates for the same stream:

* ``multinomial``: when the units take few distinct (value, count) pairs
  (0/1 scores give at most three distinct differences), a replicate is a
  multinomial draw of how often each distinct unit is taken, O(k) per
  replicate instead of O(G). Exact in distribution; it uses its own child
  streams, one per stratum.
* ``numpy`` and ``numba``: index resampling. Replicates come in chunks of
  ``CHUNK`` (64); chunk ``k`` reads its own PCG64 stream (``bootstrap_chunk``
  ``k`` of the registry in :mod:`pdpaired._lib.rng`)
  through NumPy's unbiased bounded-integer algorithm
  (``Generator.integers(0, G_h)``: Lemire's multiply-shift on 32-bit halves
  of each word, with rejection), which the numba kernel reproduces exactly.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import numpy as np

from pdpaired._lib import progress
from pdpaired._lib.rng import CHUNK, stream_sequence, stream_state
from pdpaired.core.accel import (
    DRAW_SECONDS,
    for_each_chunk,
    index_kernel,
    joint_kernel,
    resampling_engine,
)

__all__ = [
    "CALL_SECONDS",
    "Design",
    "finalize",
    "fixed_point",
    "interruptible_batch",
    "joint_draws",
    "rao_wu",
    "resample",
]

#: Draws processed at once by one thread of the NumPy path (2 MiB of indices).
_BLOCK_WORDS = 1 << 18
#: Use the multinomial engine when sum_h k_h * _FEW_FACTOR <= total draws.
_FEW_FACTOR = 16
#: Longest a batch should run on NumPy's estimate: a compiled kernel holds Ctrl-C
#: (and every other signal) until it returns, so a batch is at most this long.
CALL_SECONDS = 0.5


def interruptible_batch(n_units: int) -> int:
    """Most replicates per batch so that one batch takes about :data:`CALL_SECONDS`.

    Whole chunks (:data:`CHUNK`), at least one. Batches never change results.
    """
    per = int(CALL_SECONDS / (DRAW_SECONDS * max(1, n_units)))
    return CHUNK * max(1, per // CHUNK)


@dataclass(frozen=True, slots=True, eq=False)
class Design:
    """Units of resampling, sorted by stratum.

    Attributes
    ----------
    value : ndarray of float64
        Per unit: sum of paired differences (A - B), or the unit's mean
        difference when each unit counts once (``weighting="group"``).
    count : ndarray of int64 or None
        Per unit: number of cases; None when every unit counts 1.
    unit_ptr : ndarray of int64
        Units of stratum ``h`` are ``unit_ptr[h]:unit_ptr[h + 1]``.
    weight : ndarray of float64
        Population share of each stratum (sums to 1).
    sign : float
        +1 when higher is better, -1 otherwise (direction adjustment).
    freq : ndarray of int64 or None
        How many identical units each row stands for (a compressed design, as
        the Dask path builds for 0/1 scores); None when each row is one unit.
        ``unit_ptr`` then delimits rows, not units.
    """

    value: np.ndarray
    count: np.ndarray | None
    unit_ptr: np.ndarray
    weight: np.ndarray
    sign: float
    freq: np.ndarray | None = None

    @property
    def n_units(self) -> int:
        """Total number of resampling units."""
        return int(self.unit_ptr[-1]) if self.freq is None else int(self.freq.sum())

    @property
    def sizes(self) -> np.ndarray:
        """Units per stratum, ``G_h``."""
        if self.freq is None:
            return np.diff(self.unit_ptr)
        return np.add.reduceat(self.freq, self.unit_ptr[:-1])

    def row_weights(self) -> np.ndarray:
        """Units each row stands for (ones unless compressed)."""
        if self.freq is None:
            return np.ones(self.value.size, dtype=np.int64)
        return self.freq

    def expanded(self) -> Design:
        """Return the same design with one row per unit (identical units adjacent)."""
        if self.freq is None:
            return self
        sizes = self.sizes
        return Design(
            value=np.repeat(self.value, self.freq),
            count=None if self.count is None else np.repeat(self.count, self.freq),
            unit_ptr=np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
            weight=self.weight,
            sign=self.sign,
        )

    def jackknife(self) -> tuple[np.ndarray, np.ndarray]:
        """Leave-one-unit-out statistics, in closed form, O(n).

        Computed from the exact fixed-point sums of :func:`fixed_point` (the
        arithmetic of the replicates), so a row's value depends only on its
        stratum, value and count, never on the order of the rows.

        Returns
        -------
        theta_minus : ndarray
            The statistic with the unit of row ``i`` removed from its stratum
            (each row's multiplicity is :meth:`row_weights`).
        stratum_of : ndarray of int64
            Stratum index of each row.
        """
        q, qscale = fixed_point(self)
        return jackknife_q(q, qscale, self.count, self.row_weights(), self.unit_ptr, self)

    def distinct_jackknife(
        self, distinct: _Distinct, qscale: float
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`jackknife` on the distinct units of each stratum, with their frequencies.

        Every unit with the same (stratum, value, count) has the same
        leave-one-out statistic, so this is the jackknife at the cost of the
        distinct units (``distinct`` as the multinomial engine builds it).
        """
        q = np.concatenate([d[0] for d in distinct])
        count = None if self.count is None else np.concatenate([d[1] for d in distinct])
        freq = np.concatenate([d[2] for d in distinct]).astype(np.int64)
        ptr = np.concatenate([[0], np.cumsum([len(d[0]) for d in distinct])]).astype(np.int64)
        theta_minus, stratum_of = jackknife_q(q, qscale, count, freq, ptr, self)
        return theta_minus, stratum_of, freq


def jackknife_q(
    q: np.ndarray,
    qscale: float,
    count: np.ndarray | None,
    f: np.ndarray,
    ptr: np.ndarray,
    design: Design,
) -> tuple[np.ndarray, np.ndarray]:
    """Closed-form leave-one-unit-out statistics of rows of fixed-point values ``q``.

    Row ``i`` stands for ``f[i]`` units of value ``q[i] * qscale`` and count
    ``count[i]`` (1 when None); ``ptr`` delimits the strata's rows. Returns
    the statistic without one unit of row ``i``, and each row's stratum.
    """
    starts = ptr[:-1]
    sums = np.add.reduceat(q * f, starts)  # exact
    c = np.ones(q.size, dtype=np.int64) if count is None else count
    counts = np.add.reduceat(c * f, starts)
    ratio = sums.astype(np.float64) * qscale / counts
    full = design.sign * float(np.sum(design.weight * ratio))
    stratum_of = np.repeat(np.arange(len(design.weight)), np.diff(ptr))
    rest = counts[stratum_of] - c
    with np.errstate(invalid="ignore", divide="ignore"):
        loo = (sums[stratum_of] - q).astype(np.float64) * qscale / rest
    loo = np.where(rest > 0, loo, ratio[stratum_of])  # singleton stratum: no influence
    theta_minus = full - design.sign * design.weight[stratum_of] * (ratio[stratum_of] - loo)
    return theta_minus, stratum_of


def fixed_point(design: Design, bits: int = 61) -> tuple[np.ndarray, float]:
    """Quantize unit values to int64 so that any sum of G_h of them is exact.

    Every sum of at most ``max(G_h)`` quantized values stays below ``2**bits``
    in magnitude: 61 keeps int64 sums exact; 52 keeps float64 sums exact too.
    """
    v = design.value
    vmax = float(np.max(np.abs(v))) if v.size else 0.0
    if vmax == 0.0:
        return np.zeros(v.shape, dtype=np.int64), 1.0
    exp = math.frexp(vmax)[1]  # vmax < 2**exp
    gbits = int(design.sizes.max()).bit_length()
    k = bits - exp - gbits
    k = max(min(k, 1000), -1000)
    q = np.rint(np.ldexp(v, k)).astype(np.int64)
    return q, math.ldexp(1.0, -k)


def finalize(
    design: Design,
    s: np.ndarray,
    c: np.ndarray | None,
    qscale: float,
    rescale: Rescale | None = None,
) -> np.ndarray:
    """Statistic of each replicate from its per-stratum sums (shared by all engines).

    With ``rescale`` (see :func:`rao_wu`), each stratum's replicate ratio is
    moved away from the stratum's full-sample ratio by the Rao-Wu factor:
    ``r_h + f_h * (r*_h - r_h)``.
    """
    ratio = s.astype(np.float64) * qscale
    ratio /= design.sizes.astype(np.float64) if c is None else c.astype(np.float64)
    if rescale is not None:
        center, factor = rescale
        ratio -= center
        ratio *= factor
        ratio += center
    terms = ratio * design.weight
    theta = np.add.accumulate(terms, axis=1)[:, -1] if terms.shape[1] > 1 else terms[:, 0]
    return theta * design.sign


#: Per stratum: the full-sample ratio and the Rao-Wu factor (see :func:`rao_wu`).
Rescale = tuple[np.ndarray, np.ndarray]


def rao_wu(design: Design) -> Rescale:
    """Per-stratum centres and factors of the Rao-Wu (1988) rescaled bootstrap.

    Drawing ``G_h`` units with replacement from the ``G_h`` units of stratum
    ``h`` gives a stratum mean whose bootstrap variance is ``(G_h - 1) / G_h``
    times the unbiased variance estimate ``s_h**2 / G_h``: a stratified design
    with two units per stratum halves the variance. Rao & Wu (1988, with
    ``m_h = n_h``) move each replicate's stratum mean away from the
    full-sample one by ``sqrt(G_h / (G_h - 1))``, which makes the bootstrap
    variance of a linear statistic exactly the unbiased stratified variance
    ``sum_h w_h**2 s_h**2 / G_h``. For a ratio (cluster sums over cluster
    sizes) the factor is applied to the stratum's ratio, which does the same
    for its linearization. A stratum of a single unit cannot vary (factor 1).

    Returns
    -------
    center : ndarray
        Each stratum's full-sample ratio, computed like a replicate's.
    factor : ndarray
        ``sqrt(G_h / (G_h - 1))``, 1 where ``G_h == 1``.
    """
    q, qs = fixed_point(design)
    f = design.row_weights()
    s = np.add.reduceat(q * f, design.unit_ptr[:-1]).astype(np.float64) * qs
    if design.count is None:
        center = s / design.sizes.astype(np.float64)
    else:
        center = s / np.add.reduceat(design.count * f, design.unit_ptr[:-1]).astype(np.float64)
    g = design.sizes.astype(np.float64)
    factor = np.sqrt(np.divide(g, g - 1.0, out=np.ones_like(g), where=g > 1.0))
    return center, factor


def full_sample_statistic(design: Design) -> float:
    """Return the statistic on the original sample, computed like a replicate."""
    q, qscale = fixed_point(design)
    f = design.row_weights()
    s = np.add.reduceat(q * f, design.unit_ptr[:-1])[None, :]
    c = (
        None
        if design.count is None
        else np.add.reduceat(design.count * f, design.unit_ptr[:-1])[None, :]
    )
    return float(finalize(design, s, c, qscale)[0])


_Distinct = list[tuple[np.ndarray, np.ndarray | None, np.ndarray]]


def _distinct(design: Design, q: np.ndarray) -> _Distinct:
    """Per stratum: distinct quantized values, their counts, and frequencies."""
    out: _Distinct = []
    f = design.freq
    for a, b in zip(design.unit_ptr[:-1], design.unit_ptr[1:], strict=True):
        # (the inverse costs an argsort instead of a sort: only for compressed designs)
        if design.count is None:
            if f is None:
                uq, freq = np.unique(q[a:b], return_counts=True)
            else:
                uq, inv = np.unique(q[a:b], return_inverse=True)
                freq = np.bincount(inv, weights=f[a:b], minlength=uq.size).astype(np.int64)
            out.append((uq, None, freq))
        else:
            rows = np.stack([q[a:b], design.count[a:b]], axis=1)
            if f is None:
                u, freq = np.unique(rows, axis=0, return_counts=True)
            else:
                u, inv = np.unique(rows, axis=0, return_inverse=True)
                freq = np.bincount(inv.ravel(), weights=f[a:b], minlength=len(u)).astype(np.int64)
            out.append((u[:, 0].copy(), u[:, 1].copy(), freq))
    return out


def choose_engine(design: Design) -> tuple[str, np.ndarray, float, _Distinct | None]:
    """Pick the engine for a design; returns (name, q, qscale, distinct).

    The name is ``"multinomial"`` (few distinct units) or ``"index"``: index
    resampling, on numba or NumPy as :func:`resample` decides from the work.
    """
    q, qscale = fixed_point(design)
    if design.count is not None and design.freq is None:
        # distinct (value, count) pairs are at least the distinct values: a cheap
        # 1-D count rules the multinomial engine out before the pair table is built
        n_values = sum(np.unique(q[a:b]).size for a, b in pairwise(design.unit_ptr))
        if n_values * _FEW_FACTOR > design.n_units:
            return "index", q, qscale, None
    distinct = _distinct(design, q)
    n_distinct = sum(len(d[0]) for d in distinct)
    if n_distinct * _FEW_FACTOR <= design.n_units:
        return "multinomial", q, qscale, distinct
    return "index", q, qscale, None


def resample(
    design: Design,
    n_resamples: int,
    seed_sequence: np.random.SeedSequence,
    batch: int | None = None,
    plan: tuple[str, np.ndarray, float, _Distinct | None] | None = None,
    *,
    rescale: bool = False,
) -> tuple[np.ndarray, str]:
    """Bootstrap replicates of the design statistic.

    Parameters
    ----------
    design : Design
    n_resamples : int
    seed_sequence : numpy.random.SeedSequence
        Root of the streams (see :mod:`pdpaired._lib.rng`): index chunk ``k`` reads
        ``bootstrap_chunk`` ``k``, the multinomial stream of stratum ``h`` is
        ``bootstrap_stratum`` ``h``.
    batch : int, optional
        Replicates evaluated at once (bounds memory); never changes results.
    plan : tuple, optional
        What :func:`choose_engine` returns for this design, if already known.
    rescale : bool, default False
        Rao-Wu rescaling of each stratum's replicates (:func:`rao_wu`); the
        draws, and so the streams, are the same either way.

    Returns
    -------
    replicates : ndarray of float64, shape (n_resamples,)
    engine : str
        ``"multinomial"``, ``"numba"`` or ``"numpy"``.
    """
    engine, q, qscale, distinct = choose_engine(design) if plan is None else plan
    if engine != "multinomial" and design.freq is not None:
        return resample(design.expanded(), n_resamples, seed_sequence, batch, rescale=rescale)
    rw = rao_wu(design) if rescale else None
    n_strata = len(design.weight)
    if batch is None:
        # about 64 MiB of per-stratum sums at most; smaller while a progress bar may show
        batch = max(1, min(n_resamples, (1 << 22) // max(1, n_strata)))
        work = DRAW_SECONDS * design.n_units * n_resamples  # NumPy's cost; numba's is less
        batch = min(batch, progress.steps(n_resamples, None, CHUNK, work) or batch)
        if engine != "multinomial":  # its batches are O(distinct units) NumPy calls
            batch = min(batch, interruptible_batch(design.n_units))
    out = np.empty(n_resamples, dtype=np.float64)
    with progress.bar(n_resamples, "bootstrap") as done:
        return _resample(design, n_resamples, seed_sequence, batch, engine, q, qscale,
                         distinct, rw, out, done)  # fmt: skip


def _resample(
    design: Design, n_resamples: int, seed_sequence: np.random.SeedSequence, batch: int,
    engine: str, q: np.ndarray, qscale: float, distinct: Any, rw: Any, out: np.ndarray,
    done: Callable[[int], None],
) -> tuple[np.ndarray, str]:  # fmt: skip
    n_strata = len(design.weight)
    sizes = design.sizes

    if engine == "multinomial":
        assert distinct is not None
        gens = [
            np.random.Generator(
                np.random.PCG64(stream_sequence(seed_sequence, "bootstrap_stratum", h))
            )
            for h in range(n_strata)
        ]
        for start in range(0, n_resamples, batch):
            m = min(batch, n_resamples - start)
            s = np.empty((m, n_strata), dtype=np.int64)
            c = None if design.count is None else np.empty((m, n_strata), dtype=np.int64)
            for h, (uq, uc, freq) in enumerate(distinct):
                counts = gens[h].multinomial(int(sizes[h]), freq / sizes[h], size=m)
                s[:, h] = counts @ uq
                if c is not None and uc is not None:
                    c[:, h] = counts @ uc
            out[start : start + m] = finalize(design, s, c, qscale, rw)
            done(m)
        return out, engine

    if int(sizes.max()) > 0xFFFFFFFF:
        msg = "More than 2**32 - 1 resampling units in one stratum are not supported."
        raise ValueError(msg)
    n_chunks_total = -(-n_resamples // CHUNK)
    engine = resampling_engine(DRAW_SECONDS * design.n_units * n_resamples)
    if engine == "numba":
        kernel = index_kernel()
        cnt = design.count
        has_c = cnt is not None
        # one row per unit: its sum term and, with counts, its count
        qc = q.reshape(-1, 1) if cnt is None else np.column_stack((q, cnt.astype(np.int64)))
        per_batch = CHUNK * max(1, batch // CHUNK)  # batches hold whole chunks
        for start in range(0, n_resamples, per_batch):
            m = min(per_batch, n_resamples - start)
            first = start // CHUNK
            n_chunks = -(-m // CHUNK)
            states = np.array(
                [
                    stream_state(seed_sequence, "bootstrap_chunk", first + i)
                    for i in range(n_chunks)
                ],
                dtype=np.uint64,
            ).reshape(n_chunks, 4)
            s = np.empty((m, n_strata), dtype=np.int64)
            c = np.empty((m, n_strata), dtype=np.int64) if has_c else np.empty((1, 1), np.int64)
            kernel(states[:, 0].copy(), states[:, 1].copy(), states[:, 2].copy(),
                   states[:, 3].copy(), CHUNK, m, design.unit_ptr, qc, has_c,
                   s, c)  # fmt: skip
            out[start : start + m] = finalize(design, s, c if has_c else None, qscale, rw)
            done(m)
        return out, engine

    # NumPy path: chunk k of CHUNK replicates reads its own stream through
    # Generator.integers(0, G_h), stratum by stratum, replicate by replicate (the
    # kernel above reproduces that algorithm and order exactly). Chunks are
    # independent, so they run on a pool of threads (NumPy's generators, take
    # and sum release the GIL); each chunk writes only its own replicates.
    def run_chunk(k: int) -> None:
        r_lo = k * CHUNK
        m = min(n_resamples, r_lo + CHUNK) - r_lo
        s, c = _numpy_chunk(design, q, stream_sequence(seed_sequence, "bootstrap_chunk", k), m)
        out[r_lo : r_lo + m] = finalize(design, s, c, qscale, rw)
        done(m)

    for_each_chunk(run_chunk, n_chunks_total, seconds=DRAW_SECONDS * design.n_units * n_resamples)
    return out, engine


def _numpy_chunk(
    design: Design, q: np.ndarray, ss: np.random.SeedSequence, m: int
) -> tuple[np.ndarray, np.ndarray | None]:
    """Per-stratum sums of ``m`` replicates drawn from the PCG64 stream of ``ss``.

    The one-column case of :func:`_numpy_joint_chunk` (the same draws).
    """
    n_strata = len(design.weight)
    s = np.empty((m, n_strata, 1), dtype=np.int64)
    c = None if design.count is None else np.empty((m, n_strata), dtype=np.int64)
    _numpy_joint_chunk(design, q[None, :], ss, s, c)
    return s[:, :, 0], c


def _numpy_joint_chunk(
    design: Design,
    q_t: np.ndarray,
    ss: np.random.SeedSequence,
    s: np.ndarray,
    c: np.ndarray | None,
) -> None:
    """Fill per-stratum sums ``s`` (m x strata x comparisons) of one chunk's replicates.

    One set of draws (calls to ``Generator.integers``, stratum by stratum)
    gathers every row of ``q_t``; :func:`resample`'s NumPy path is the case
    of one row, so each comparison's sums equal its two-model bootstrap's.
    """
    gen = np.random.Generator(np.random.PCG64(ss))
    ptr, sizes = design.unit_ptr, design.sizes
    m, n_cols = s.shape[0], q_t.shape[0]
    for h in range(len(design.weight)):
        a, g = int(ptr[h]), int(sizes[h])
        qh = q_t[:, a : a + g]  # comparisons x units of the stratum
        ch = None if design.count is None else design.count[a : a + g]
        if g == 1:
            s[:, h, :] = qh[:, 0]
            if c is not None and ch is not None:
                c[:, h] = ch[0]
            continue
        if g <= _BLOCK_WORDS:
            per = max(1, _BLOCK_WORDS // g)
            for r0 in range(0, m, per):
                r1 = min(m, r0 + per)
                idx = gen.integers(0, g, size=(r1 - r0, g))
                for j in range(n_cols):  # a gather per comparison: small temporaries
                    s[r0:r1, h, j] = np.take(qh[j], idx).sum(axis=1)
                if c is not None and ch is not None:
                    c[r0:r1, h] = np.take(ch, idx).sum(axis=1)
        else:
            for r in range(m):
                acc = np.zeros(n_cols, dtype=np.int64)
                acc_c = 0
                for p0 in range(0, g, _BLOCK_WORDS):
                    idx = gen.integers(0, g, size=min(_BLOCK_WORDS, g - p0))
                    acc += np.take(qh, idx, axis=1).sum(axis=1)
                    if ch is not None:
                        acc_c += int(np.take(ch, idx).sum())
                s[r, h, :] = acc
                if c is not None:
                    c[r, h] = acc_c


def joint_draws(
    first: Any, q_t: np.ndarray, c: np.ndarray | None, s: np.ndarray, n_resamples: int,
    seed_sequence: np.random.SeedSequence, batch: int | None, engine: str, work: float,
    done: Callable[[int], None], offset: int = 0,
) -> None:  # fmt: skip
    """Fill the stratum sums ``s`` (and counts ``c``) of one index resampling, batch by batch.

    Each draw of the units of ``first`` gathers the sums of every row of
    ``q_t`` (columns x units, int64): several comparisons of the same units,
    or several functions of one comparison's units. The draws are those of
    :func:`resample`'s index engines (the same streams, calls and order), so
    a column's sums equal the two-model bootstrap's on that column.
    ``offset`` (a multiple of :data:`CHUNK`) is the index of the first
    replicate filled: replicates ``offset ...`` read their own streams, so a
    resampling can be filled a slice at a time.
    """
    if offset % CHUNK:
        msg = f"offset must be a multiple of {CHUNK}, not {offset}"
        raise ValueError(msg)
    skip = offset // CHUNK
    n_strata, n_cols = s.shape[1], s.shape[2]
    if engine == "numba":
        if batch is None:
            batch = max(1, min(n_resamples, (1 << 22) // max(1, n_strata * n_cols)))
            batch = min(batch, progress.steps(n_resamples, None, CHUNK, work) or batch)
            batch = min(batch, interruptible_batch(first.n_units * n_cols))
        per_batch = CHUNK * max(1, batch // CHUNK)
        kernel = joint_kernel()
        has_c = c is not None
        cnt = first.count if first.count is not None else np.zeros(1, dtype=np.int64)
        for start in range(0, n_resamples, per_batch):
            m = min(per_batch, n_resamples - start)
            first_chunk = skip + start // CHUNK
            n_chunks = -(-m // CHUNK)
            states = np.array(
                [
                    stream_state(seed_sequence, "bootstrap_chunk", first_chunk + i)
                    for i in range(n_chunks)
                ],
                dtype=np.uint64,
            ).reshape(n_chunks, 4)
            c_out = c[start : start + m] if c is not None else np.empty((1, 1), np.int64)
            kernel(states[:, 0].copy(), states[:, 1].copy(), states[:, 2].copy(),
                   states[:, 3].copy(), CHUNK, m, first.unit_ptr, q_t, cnt, has_c,
                   s[start : start + m], c_out)  # fmt: skip
            done(m)
    else:

        def run_chunk(k: int) -> None:
            r_lo = k * CHUNK
            m = min(n_resamples, r_lo + CHUNK) - r_lo
            ss = stream_sequence(seed_sequence, "bootstrap_chunk", skip + k)
            _numpy_joint_chunk(
                first, q_t, ss, s[r_lo : r_lo + m], None if c is None else c[r_lo : r_lo + m]
            )
            done(m)

        for_each_chunk(run_chunk, -(-n_resamples // CHUNK), seconds=work)
