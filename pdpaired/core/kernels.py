"""numba kernels of the resampling engines (imported only when numba is).

Module-level functions with module-level constants, so that numba's on-disk
cache (``cache=True``) works: a new process loads the compiled kernels
instead of compiling them again.
"""

# mypy: ignore-errors
from __future__ import annotations

from typing import Any

import numpy as np
from llvmlite import ir
from numba import njit, prange, types
from numba.extending import intrinsic


@intrinsic
def mulhi(typingctx: Any, a: Any, b: Any) -> Any:
    sig = types.uint64(types.uint64, types.uint64)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        i128 = ir.IntType(128)
        p = builder.mul(builder.zext(args[0], i128), builder.zext(args[1], i128))
        return builder.trunc(builder.lshr(p, ir.Constant(i128, 64)), ir.IntType(64))

    return sig, codegen


m_hi = np.uint64(2549297995355413924)  # PCG64's 128-bit multiplier, high word
m_lo = np.uint64(4865540595714422341)
one = np.uint64(1)
s58 = np.uint64(58)
u63 = np.uint64(63)
u64 = np.uint64(64)


@njit(inline="always")
def step(s_hi, s_lo, inc_hi, inc_lo):
    lo = s_lo * m_lo
    hi = mulhi(s_lo, m_lo) + s_lo * m_hi + s_hi * m_lo
    n_lo = lo + inc_lo
    n_hi = hi + inc_hi + (one if n_lo < lo else np.uint64(0))
    return n_hi, n_lo


@njit(inline="always")
def output(s_hi, s_lo):
    x = s_hi ^ s_lo
    rot = s_hi >> s58
    return (x >> rot) | (x << ((u64 - rot) & u63))


mask32 = np.uint64(0xFFFFFFFF)
s32 = np.uint64(32)
two32 = np.uint64(1 << 32)


@njit(inline="always")
def bounded(s_hi, s_lo, i_hi, i_lo, spare, has_spare, gu, threshold):
    # One draw of numpy.random.Generator.integers(0, g): Lemire's multiply-shift
    # on the next 32-bit half of a PCG64 word (low half first), with rejection.
    # Returns the index and the advanced stream state.
    while True:
        if has_spare:
            u = spare
            has_spare = False
        else:
            s_hi, s_lo = step(s_hi, s_lo, i_hi, i_lo)
            w = output(s_hi, s_lo)
            u = w & mask32
            spare = w >> s32
            has_spare = True
        m = u * gu
        if (m & mask32) >= threshold:
            return np.int64(m >> s32), s_hi, s_lo, spare, has_spare


@njit(parallel=True, cache=True, nogil=True)
def kernel(st_hi, st_lo, inc_hi, inc_lo, chunk, n_rep,
           unit_ptr, qc, has_c, s_out, c_out):  # fmt: skip
    # Chunk ch (replicates ch*chunk ...) reads its own PCG64 stream exactly as
    # numpy.random.Generator.integers(0, G_h) does: 32-bit halves of each
    # 64-bit word, low half first, Lemire's multiply-shift with rejection, and
    # no draw at all when G_h == 1; stratum by stratum, replicate by replicate.
    # qc[u, 0] is unit u's sum term and, when has_c, qc[u, 1] its count: one
    # row per unit, so a draw's two values share a cache line.
    # While two or more draws remain, both halves of the next word are
    # candidates, so the word is consumed whole without `bounded`'s spare-half
    # bookkeeping; `bounded` aligns to a word boundary first and draws the last.
    n_chunks = st_hi.shape[0]
    n_strata = unit_ptr.shape[0] - 1
    for ch in prange(n_chunks):
        s_hi = st_hi[ch]
        s_lo = st_lo[ch]
        i_hi = inc_hi[ch]
        i_lo = inc_lo[ch]
        spare = np.uint64(0)
        has_spare = False
        r0 = ch * chunk
        r1 = min(n_rep, r0 + chunk)
        for h in range(n_strata):
            a = unit_ptr[h]
            g = unit_ptr[h + 1] - a
            gu = np.uint64(g)
            threshold = (two32 - gu) % gu
            for r in range(r0, r1):
                acc_s = np.int64(0)
                acc_c = np.int64(0)
                if g == 1:
                    acc_s = qc[a, 0]
                    if has_c:
                        acc_c = qc[a, 1]
                else:
                    need = g
                    while has_spare and need > 0:
                        k, s_hi, s_lo, spare, has_spare = bounded(
                            s_hi, s_lo, i_hi, i_lo, spare, has_spare, gu, threshold
                        )
                        acc_s += qc[a + k, 0]
                        if has_c:
                            acc_c += qc[a + k, 1]
                        need -= 1
                    while need >= 2:
                        s_hi, s_lo = step(s_hi, s_lo, i_hi, i_lo)
                        w = output(s_hi, s_lo)
                        m0 = (w & mask32) * gu
                        m1 = (w >> s32) * gu
                        if (m0 & mask32) >= threshold:
                            idx = a + np.int64(m0 >> s32)
                            acc_s += qc[idx, 0]
                            if has_c:
                                acc_c += qc[idx, 1]
                            need -= 1
                        if (m1 & mask32) >= threshold:
                            idx = a + np.int64(m1 >> s32)
                            acc_s += qc[idx, 0]
                            if has_c:
                                acc_c += qc[idx, 1]
                            need -= 1
                    while need > 0:
                        k, s_hi, s_lo, spare, has_spare = bounded(
                            s_hi, s_lo, i_hi, i_lo, spare, has_spare, gu, threshold
                        )
                        acc_s += qc[a + k, 0]
                        if has_c:
                            acc_c += qc[a + k, 1]
                        need -= 1
                s_out[r, h] = acc_s
                if has_c:
                    c_out[r, h] = acc_c


@njit(parallel=True, cache=True, nogil=True)
def joint_kernel(st_hi, st_lo, inc_hi, inc_lo, chunk, n_rep,
                 unit_ptr, q_t, c, has_c, s_out, c_out):  # fmt: skip
    # `kernel` for several comparisons of the same units at once: the same
    # draws (stream layout and algorithm), recorded once per replicate as how
    # many times each unit was drawn, then per comparison one sequential pass
    # sum_u times[u] * q_t[j, u] over its row of q_t (comparisons x units).
    # Exact int64 arithmetic (|sum| < 2**61, see _engine.fixed_point), so each
    # comparison's sums equal the two-model kernel's bit for bit.
    n_chunks = st_hi.shape[0]
    n_strata = unit_ptr.shape[0] - 1
    n_cols = q_t.shape[0]
    g_max = 1
    for h in range(n_strata):
        g_max = max(g_max, unit_ptr[h + 1] - unit_ptr[h])
    for ch in prange(n_chunks):
        s_hi = st_hi[ch]
        s_lo = st_lo[ch]
        i_hi = inc_hi[ch]
        i_lo = inc_lo[ch]
        spare = np.uint64(0)
        has_spare = False
        r0 = ch * chunk
        r1 = min(n_rep, r0 + chunk)
        times = np.zeros(g_max, dtype=np.int32)
        for h in range(n_strata):
            a = unit_ptr[h]
            g = unit_ptr[h + 1] - a
            gu = np.uint64(g)
            threshold = (two32 - gu) % gu
            for r in range(r0, r1):
                if g == 1:
                    for j in range(n_cols):
                        s_out[r, h, j] = q_t[j, a]
                    if has_c:
                        c_out[r, h] = c[a]
                    continue
                for u in range(g):
                    times[u] = 0
                for _ in range(g):
                    k, s_hi, s_lo, spare, has_spare = bounded(
                        s_hi, s_lo, i_hi, i_lo, spare, has_spare, gu, threshold
                    )
                    times[k] += 1
                j = 0
                while j + 1 < n_cols:  # two comparisons per pass over the counts
                    acc0 = np.int64(0)
                    acc1 = np.int64(0)
                    for u in range(g):
                        t = np.int64(times[u])
                        acc0 += t * q_t[j, a + u]
                        acc1 += t * q_t[j + 1, a + u]
                    s_out[r, h, j] = acc0
                    s_out[r, h, j + 1] = acc1
                    j += 2
                if j < n_cols or has_c:
                    acc0 = np.int64(0)
                    acc1 = np.int64(0)
                    for u in range(g):
                        t = np.int64(times[u])
                        if j < n_cols:
                            acc0 += t * q_t[j, a + u]
                        if has_c:
                            acc1 += t * c[a + u]
                    if j < n_cols:
                        s_out[r, h, j] = acc0
                    if has_c:
                        c_out[r, h] = acc1


@njit(parallel=True, cache=True, nogil=True)
def flip_kernel(st_hi, st_lo, inc_hi, inc_lo, reps_per_chunk, n_rep,
                word_ptr, q_pad, totals, s_out):  # fmt: skip
    # Unit u of the padded layout is bit u % 64 of word u // 64; a set bit swaps
    # the unit. The inner loop is branch free and vectorizes.
    n_chunks = st_hi.shape[0]
    n_strata = word_ptr.shape[0] - 1
    for ch in prange(n_chunks):
        s_hi = st_hi[ch]
        s_lo = st_lo[ch]
        r0 = ch * reps_per_chunk
        r1 = min(n_rep, r0 + reps_per_chunk)
        for r in range(r0, r1):
            for h in range(n_strata):
                acc = np.int64(0)
                for wi in range(word_ptr[h], word_ptr[h + 1]):
                    s_hi, s_lo = step(s_hi, s_lo, inc_hi, inc_lo)
                    w = np.int64(output(s_hi, s_lo))
                    base = wi * 64
                    for j in range(64):
                        acc += q_pad[base + j] * ((w >> j) & 1)
                s_out[r, h] = totals[h] - 2 * acc


@njit(parallel=True, cache=True, nogil=True)
def count_kernel(st_hi, st_lo, inc_hi, inc_lo, chunk, n_rep, cell_ptr, out):
    # The draws of `kernel` (same stream layout and algorithm), recorded as
    # counts: out[r, u] += 1 for every draw of unit u in replicate r.
    n_chunks = st_hi.shape[0]
    n_cells = cell_ptr.shape[0] - 1
    for ch in prange(n_chunks):
        s_hi = st_hi[ch]
        s_lo = st_lo[ch]
        i_hi = inc_hi[ch]
        i_lo = inc_lo[ch]
        spare = np.uint64(0)
        has_spare = False
        r0 = ch * chunk
        r1 = min(n_rep, r0 + chunk)
        for h in range(n_cells):
            a = cell_ptr[h]
            g = cell_ptr[h + 1] - a
            gu = np.uint64(g)
            threshold = (two32 - gu) % gu
            for r in range(r0, r1):
                if h == 0:
                    out[r, :] = 0
                if g == 1:
                    out[r, a] += 1
                    continue
                for _ in range(g):
                    k, s_hi, s_lo, spare, has_spare = bounded(
                        s_hi, s_lo, i_hi, i_lo, spare, has_spare, gu, threshold
                    )
                    out[r, a + k] += 1


@njit(parallel=True, cache=True, nogil=True)
def auc_kernel(counts, unit_sorted, pos_sorted, starts, out):
    # Weighted Mann-Whitney AUROC of each row of integer draw counts: the case
    # at sorted position j weighs counts[r, unit_sorted[j]]. Every sum is an
    # integer below 2**52, so the result equals the NumPy evaluation exactly.
    # One row per iteration: a row of int32 counts stays in the core's cache.
    m = counts.shape[0]
    nb = starts.shape[0] - 1
    for r in prange(m):
        row = counts[r]
        cum = 0.0
        num2 = 0.0
        ptot = 0.0
        for b in range(nb):
            pb = 0.0
            nw = 0.0
            for j in range(starts[b], starts[b + 1]):
                w = np.float64(row[unit_sorted[j]])
                if pos_sorted[j]:
                    pb += w
                else:
                    nw += w
            num2 += pb * (2.0 * cum + nw)
            cum += nw
            ptot += pb
        if ptot > 0.0 and cum > 0.0:
            out[r] = num2 / (2.0 * ptot * cum)
        else:
            out[r] = np.nan


golden = np.uint64(0x9E3779B97F4A7C15)
mix_a = np.uint64(0xBF58476D1CE4E5B9)
mix_b = np.uint64(0x94D049BB133111EB)
s30 = np.uint64(30)
s27 = np.uint64(27)
s31 = np.uint64(31)
s11 = np.uint64(11)


@njit(inline="always")
def splitmix(z):
    z = (z ^ (z >> s30)) * mix_a
    z = (z ^ (z >> s27)) * mix_b
    return z ^ (z >> s31)


@njit(parallel=True, cache=True, nogil=True)
def partition_kernel(keys, dq, codes, cw, seed1, thresholds, flip, out):
    # Counter-based draws of the Dask path (see pdpaired.dask): replicate r of
    # case i reads splitmix(keys[i] + (((r + 1) * golden) ^ seed1)); a Poisson(1)
    # weight by inverse CDF on its top 53 bits, or a sign from its top bit.
    # Exact int64 sums, the same as the NumPy evaluation.
    n_rep = out.shape[1]
    n_strata = out.shape[2]
    for r in prange(n_rep):
        ctr = (np.uint64(r) + one) * golden ^ seed1
        acc = np.zeros(n_strata, dtype=np.int64)
        cnt = np.zeros(n_strata, dtype=np.int64)
        if flip:
            for i in range(keys.size):
                u = splitmix(keys[i] + ctr)
                sgn = np.int64(1) - np.int64(2) * np.int64(u >> u63)
                acc[codes[i]] += sgn * dq[i]
        else:
            for i in range(keys.size):
                top = splitmix(keys[i] + ctr) >> s11
                # branch-free for weights 0..5 (all but 6e-4 of draws)
                w = (
                    np.int64(top >= thresholds[0])
                    + np.int64(top >= thresholds[1])
                    + np.int64(top >= thresholds[2])
                    + np.int64(top >= thresholds[3])
                    + np.int64(top >= thresholds[4])
                )
                if w == 5:
                    while top >= thresholds[w]:
                        w += 1
                acc[codes[i]] += w * dq[i]
                cnt[codes[i]] += w * cw[i]
        for h in range(n_strata):
            out[0, r, h] = acc[h]
            out[1, r, h] = cnt[h]
