"""Paired randomization (prediction-swap) test.

Under the exchangeability null each unit (a case, or a whole group)
independently swaps which model's output is called A, i.e. flips the sign of
its paired difference. The statistic is the same estimand as the bootstrap's
(same weighting and stratum weights), recomputed for each assignment:
``sign * sum_h w_h * sum_u eps_u v_u / C_h``, where the counts ``C_h`` do not
change under swaps.

Sums are exact: unit values are quantized to integers whose sums stay below
``2**52`` (so int64 and float64/BLAS sums agree bit for bit), which makes the
null distribution identical across engines, batch sizes and thread counts,
and lets "at least as extreme" tolerate ties with a proven bound: the
quantization drift (at most ``G_h`` quanta per stratum between two assignments
whose exact statistics are equal) plus 100 machine epsilons relative, as
scipy's ``permutation_test``. The quantum is ``max|v| * G / 2**52``, so the
tolerance is below ``max|v| * G**2 / (n * 2**52)``: far below the spread of
the null distribution.

Engines
-------
* ``exact``: every one of the ``2**n_units`` assignments when that is at most
  ``n_permutations`` (no plus-one correction).
* ``binomial``: when the units take few distinct absolute values (0/1 scores:
  at most one non-zero), the sum over the ``k`` units of absolute value ``a``
  is ``a * (2 * Binomial(k, 1/2) - k)`` in distribution, O(distinct) per
  permutation.
* ``numpy`` / ``numba``: one random bit per unit, read from the PCG64 stream
  (64 units per word; assignment ``r`` uses words ``r*W .. r*W + W - 1``;
  strata are padded to multiples of 64 units). numba sums the masked values
  with vector instructions; NumPy through lookup tables of exact subset sums,
  one lookup per 8 (or 4) units.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise

import numpy as np

from pdpaired._lib import progress
from pdpaired._lib.rng import pcg64_state, stream_sequence
from pdpaired.core.accel import FLIP_SECONDS, flip_kernel, resampling_engine
from pdpaired.core.engine import Design, finalize, fixed_point

__all__ = [
    "ALTERNATIVES",
    "RandomizationCore",
    "null_pvalue",
    "randomization_design",
    "swap_indicators",
    "tie_tolerance",
]

ALTERNATIVES = ("two-sided", "greater", "less")
_FEW_FACTOR = 16
_BLOCK_UNITS = 1 << 18  # lookups materialized at once by the NumPy path
#: Tolerance per unit of magnitude combined in floating point (scipy's 100 epsilons).
_TIE_EPS = 100 * np.finfo(np.float64).eps


def tie_tolerance(*magnitudes: float, drift: float = 0.0) -> float:
    """How far a null statistic may fall short of the observed one and still count as a tie.

    One rule for every metric and both modes: ``drift`` bounds what exact
    arithmetic on quantized values can add between two assignments whose exact
    statistics are equal (0 where nothing is quantized), plus 100 machine
    epsilons of each magnitude combined in floating point to form the
    statistic -- the improvement itself in score mode (it comes out of exact
    sums), metric A and metric B for a corpus metric (their difference is
    taken in floating point). scipy's ``permutation_test`` uses the same 100
    epsilons.
    """
    return drift + _TIE_EPS * sum(abs(m) for m in magnitudes)


def swap_indicators(
    unit_ptr: np.ndarray, first: int, n_rows: int, seed_sequence: np.random.SeedSequence
) -> np.ndarray:
    """Swap indicators (rows x units, 0/1 uint8) of assignments ``first ... first + n_rows - 1``.

    The bits the sign-flip engines read: the bit stream of the seed, each
    stratum (units ``unit_ptr[h]`` to ``unit_ptr[h + 1]``) padded to a
    multiple of 64 units, padded unit ``u`` of an assignment being bit
    ``u % 64`` of its word ``u // 64``. Prediction mode swaps the units these
    bits select, so both modes read one stream the same way.
    """
    offsets, position = _padded_positions(unit_ptr)
    words = int(offsets[-1]) // 64
    bg = np.random.PCG64(stream_sequence(seed_sequence, "randomization_bits"))
    bg.advance(first * words)
    raw = bg.random_raw(n_rows * words).astype("<u8", copy=False)
    bits = np.unpackbits(raw.view(np.uint8), bitorder="little").reshape(n_rows, words * 64)
    if len(unit_ptr) == 2:  # one stratum: its units are the first bits, in order
        return np.ascontiguousarray(bits[:, : int(unit_ptr[1])])
    return np.ascontiguousarray(bits[:, position])


@dataclass(frozen=True, slots=True, eq=False)
class RandomizationCore:
    """What the array-level randomization test returns."""

    pvalue: float
    pvalue_se: float | None
    null_distribution: np.ndarray
    n_permutations: int
    exact: bool
    engine: str


def _counts(design: Design) -> np.ndarray | None:
    if design.count is None:
        return None
    return np.add.reduceat(design.count * design.row_weights(), design.unit_ptr[:-1])[None, :]


def _exact_sums(q: np.ndarray, ptr: np.ndarray) -> np.ndarray:
    n = q.size
    codes = np.arange(1 << n, dtype=np.int64)
    bits = (codes[:, None] >> np.arange(n, dtype=np.int64)) & 1  # 1 = swapped
    signed = np.where(bits == 1, -q, q)
    return np.add.reduceat(signed, ptr[:-1], axis=1)


@dataclass(frozen=True, slots=True, eq=False)
class _FlipLayout:
    """Bit layout of the sign-flip engines, and the NumPy path's lookup tables.

    Each stratum is padded with zero-valued units to a multiple of 64, so that
    padded unit ``u`` is bit ``u % 64`` of word ``u // 64`` of an assignment's
    words and no word spans two strata. The numba kernel sums ``q_pad`` masked
    by the bits (vectorized). The NumPy path reads ``k`` bits at a time
    (``k`` = 8, 4 or 1, the largest whose table stays cache-sized):
    ``table[p * 2**k + v]`` is the exact sum of the values of the units of
    lookup position ``p`` whose bits are set in ``v``, one lookup per ``k``
    units. Both give the same exact integer sums.
    """

    q_pad: np.ndarray
    word_ptr: np.ndarray
    k: int
    table: np.ndarray
    lookup_ptr: np.ndarray
    totals: np.ndarray

    @property
    def words_per(self) -> int:
        """Words of the stream per assignment."""
        return int(self.word_ptr[-1])


#: Size of the NumPy path's lookup table, at most (bytes).
_TABLE_BYTES = 1 << 24


def _padded_positions(ptr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Lay the sign flips' bits out: each stratum padded to a multiple of 64 units.

    Returns the padded strata's start offsets (``H + 1``) and each unit's
    padded position (its bit: ``u % 64`` of word ``u // 64``).
    """
    sizes = np.diff(ptr)
    offsets = np.concatenate([[0], np.cumsum(-(-sizes // 64) * 64)])
    return offsets, np.repeat(offsets[:-1] - ptr[:-1], sizes) + np.arange(int(ptr[-1]))


def _flip_layout(q: np.ndarray, ptr: np.ndarray, *, tables: bool) -> _FlipLayout:
    offsets, position = _padded_positions(ptr)
    n_pad = int(offsets[-1])
    q_pad = np.zeros(n_pad, dtype=np.int64)
    q_pad[position] = q
    k = 1
    table = np.empty(0, dtype=np.int64)
    if tables:
        k = next(k for k in (8, 4, 1) if (n_pad // k) * (8 << k) <= _TABLE_BYTES or k == 1)
        patterns = (np.arange(1 << k)[:, None] >> np.arange(k)) & 1  # (2**k, k)
        table = np.ascontiguousarray(q_pad.reshape(-1, k) @ patterns.T).ravel()
    return _FlipLayout(
        q_pad=q_pad,
        word_ptr=(offsets // 64).astype(np.int64),
        k=k,
        table=table,
        lookup_ptr=(offsets // k).astype(np.int64),
        totals=np.add.reduceat(q, ptr[:-1]),
    )


def _flip_sums_numpy(
    lay: _FlipLayout, n_perm: int, stream: np.random.SeedSequence, batch: int,
    done: Callable[[int], None] | None = None,
) -> np.ndarray:  # fmt: skip
    bg = np.random.PCG64(stream)
    n_look = int(lay.lookup_ptr[-1])
    base = np.arange(n_look, dtype=np.int64) << lay.k
    out = np.empty((n_perm, len(lay.totals)), dtype=np.int64)
    per = max(1, min(batch, _BLOCK_UNITS // max(1, n_look)))
    for r0 in range(0, n_perm, per):
        m = min(per, n_perm - r0)
        words = bg.random_raw(m * lay.words_per).astype("<u8", copy=False)
        raw = words.reshape(m, lay.words_per).view(np.uint8)
        if lay.k == 8:
            codes = raw
        elif lay.k == 4:
            codes = np.empty((m, raw.shape[1] * 2), dtype=np.uint8)
            np.bitwise_and(raw, 15, out=codes[:, 0::2])
            np.right_shift(raw, 4, out=codes[:, 1::2])
        else:
            codes = np.unpackbits(raw, axis=1, bitorder="little")
        idx = codes[:, :n_look].astype(np.int64)
        idx += base
        swapped = np.add.reduceat(lay.table[idx], lay.lookup_ptr[:-1], axis=1)
        out[r0 : r0 + m] = lay.totals[None, :] - 2 * swapped
        if done is not None:
            done(m)
    return out


def _flip_sums_numba(
    lay: _FlipLayout, n_perm: int, stream: np.random.SeedSequence, batch: int,
    done: Callable[[int], None] | None = None,
) -> np.ndarray:  # fmt: skip
    kernel = flip_kernel()
    # about 16 chunks per batch: load balance without many start states
    reps_per_chunk = max(1, -(-batch // 16))
    _, _, inc_hi, inc_lo = (np.uint64(x) for x in pcg64_state(stream))
    out = np.empty((n_perm, len(lay.totals)), dtype=np.int64)
    for start in range(0, n_perm, batch):
        m = min(batch, n_perm - start)
        n_chunks = -(-m // reps_per_chunk)
        st_hi = np.empty(n_chunks, dtype=np.uint64)
        st_lo = np.empty(n_chunks, dtype=np.uint64)
        for i in range(n_chunks):
            s_hi, s_lo, _, _ = pcg64_state(stream, (start + i * reps_per_chunk) * lay.words_per)
            st_hi[i], st_lo[i] = s_hi, s_lo
        kernel(st_hi, st_lo, inc_hi, inc_lo, reps_per_chunk, m, lay.word_ptr,
               lay.q_pad, lay.totals, out[start : start + m])  # fmt: skip
        if done is not None:
            done(m)
    return out


def _abs_distinct(q: np.ndarray, f: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct ``|q|`` and how many units take each (rows weighted by ``f``)."""
    values, inv = np.unique(np.abs(q), return_inverse=True)
    return values, np.bincount(inv, weights=f, minlength=values.size).astype(np.int64)


def _binomial_sums(
    q: np.ndarray,
    f: np.ndarray,
    ptr: np.ndarray,
    n_perm: int,
    root: np.random.SeedSequence,
    batch: int,
) -> np.ndarray:
    out = np.zeros((n_perm, len(ptr) - 1), dtype=np.int64)
    for h, (a, b) in enumerate(pairwise(ptr)):
        values, k = _abs_distinct(q[a:b], f[a:b])
        keep = values != 0
        values, k = values[keep], k[keep]
        gen = np.random.Generator(
            np.random.PCG64(stream_sequence(root, "randomization_stratum", h))
        )
        for r0 in range(0, n_perm, batch):
            m = min(batch, n_perm - r0)
            heads = gen.binomial(k, 0.5, size=(m, k.size))
            out[r0 : r0 + m, h] = (2 * heads - k) @ values
    return out


def _few_distinct(q: np.ndarray, ptr: np.ndarray, n_units: int) -> bool:
    n_distinct = sum(np.unique(np.abs(q[a:b])).size for a, b in pairwise(ptr))
    return n_distinct * _FEW_FACTOR <= n_units


def null_pvalue(
    null: np.ndarray, t: float, *, gamma: float, alternative: str, exact: bool
) -> tuple[float, float | None]:
    """P-value of ``t`` against a null distribution, ties within ``gamma`` counted.

    Two-sided counts ``|T*| >= |t|``; Monte Carlo p-values get the plus-one
    correction and a standard error, exact enumeration neither.
    """
    if alternative == "two-sided":
        extreme = int(np.count_nonzero(np.abs(null) >= abs(t) - gamma))
    elif alternative == "greater":
        extreme = int(np.count_nonzero(null >= t - gamma))
    else:
        extreme = int(np.count_nonzero(null <= t + gamma))
    n_eval = int(null.size)
    if exact:
        return float(min(1.0, extreme / n_eval)), None
    pvalue = (1 + extreme) / (1 + n_eval)
    return float(min(1.0, pvalue)), float(np.sqrt(pvalue * (1 - pvalue) / (1 + n_eval)))


def randomization_design(
    design: Design,
    *,
    n_permutations: int,
    alternative: str,
    seed_sequence: np.random.SeedSequence,
    batch: int | None,
) -> RandomizationCore:
    """Run the sign-flip randomization test on a design.

    Parameters
    ----------
    design : Design
    n_permutations : int
        Monte Carlo assignments; enumeration is used when ``2**n_units`` is
        not larger.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: A better than B (in the improvement direction).
    seed_sequence : numpy.random.SeedSequence
        Root of the streams (see :mod:`pdpaired._lib.rng`): the bit stream is
        ``randomization_bits``, the binomial stream of stratum ``h`` is
        ``randomization_stratum`` ``h``.
    batch : int or None
        Assignments evaluated at once; never changes results.

    Returns
    -------
    RandomizationCore
    """
    q, qscale = fixed_point(design, bits=52)
    ptr = design.unit_ptr
    n_units = design.n_units
    exact = n_units < 63 and (1 << n_units) <= n_permutations
    few = _few_distinct(q, ptr, n_units)
    if design.freq is not None and (exact or not few):  # these engines need one row per unit
        return randomization_design(
            design.expanded(), n_permutations=n_permutations, alternative=alternative,
            seed_sequence=seed_sequence, batch=batch,
        )  # fmt: skip
    f = design.row_weights()
    counts = _counts(design)
    observed_sums = np.add.reduceat(q * f, ptr[:-1])[None, :]
    t = float(finalize(design, observed_sums, counts, qscale)[0])
    batch = batch or 8192

    if exact:
        sums, engine = _exact_sums(q, ptr), "exact"
    elif few:
        sums = _binomial_sums(q, f, ptr, n_permutations, seed_sequence, batch)
        engine = "binomial"
    else:
        work = FLIP_SECONDS * n_units * n_permutations
        engine = resampling_engine(work)
        stream = stream_sequence(seed_sequence, "randomization_bits")
        layout = _flip_layout(q, ptr, tables=engine == "numpy")
        flip = _flip_sums_numba if engine == "numba" else _flip_sums_numpy
        batch = min(batch, progress.steps(n_permutations, None, 64, work) or batch)
        with progress.bar(n_permutations, "randomization", "flip") as done:
            sums = flip(layout, n_permutations, stream, batch, done)

    if counts is not None:
        counts = np.broadcast_to(counts, sums.shape)
    null = finalize(design, sums, counts, qscale)
    # Ties: two assignments whose exact statistics are equal can differ after
    # quantization by at most G_h quanta in stratum h (each unit's rounding error
    # is at most half a quantum and enters a difference of two signed sums at most
    # twice), so that drift, carried through the statistic, is tolerated; plus
    # 100 machine epsilons for the final floating-point combination (as scipy).
    n_per = design.sizes.astype(np.float64)
    denom = n_per if counts is None else counts[0].astype(np.float64)
    drift = float(np.sum(design.weight * n_per / denom)) * qscale
    gamma = tie_tolerance(t, drift=drift)
    pvalue, se = null_pvalue(null, t, gamma=gamma, alternative=alternative, exact=exact)
    n_eval = int(null.size)
    return RandomizationCore(
        pvalue=pvalue,
        pvalue_se=se,
        null_distribution=null,
        n_permutations=n_eval,
        exact=exact,
        engine=engine,
    )
