"""Optional numba kernels (``pip install pdpaired[fast]``).

The kernel reads the same PCG64 stream as the NumPy path (see
:mod:`pdpaired._stream`) and accumulates exact int64 sums, so it returns
bit-identical results. Which engine runs is chosen at call time by the
environment variable ``PDPAIRED_ACCELERATOR``: ``auto`` (default: numba when
importable), ``numba`` (error if it is not) or ``numpy``.
"""

from __future__ import annotations

import os
from functools import cache
from typing import Any

__all__ = ["engine_name", "flip_kernel", "index_kernel"]


@cache
def _numba_kernel() -> Any:
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
    s11 = np.uint64(11)
    s58 = np.uint64(58)
    u63 = np.uint64(63)
    u64 = np.uint64(64)

    @njit(inline="always")
    def step(s_hi, s_lo, inc_hi, inc_lo):  # type: ignore[no-untyped-def]
        lo = s_lo * m_lo
        hi = mulhi(s_lo, m_lo) + s_lo * m_hi + s_hi * m_lo  # type: ignore[call-arg]
        n_lo = lo + inc_lo
        n_hi = hi + inc_hi + (one if n_lo < lo else np.uint64(0))
        return n_hi, n_lo

    @njit(inline="always")
    def output(s_hi, s_lo):  # type: ignore[no-untyped-def]
        x = s_hi ^ s_lo
        rot = s_hi >> s58
        return (x >> rot) | (x << ((u64 - rot) & u63))

    @njit(inline="always")
    def affine(s_hi, s_lo, a_hi, a_lo, b_hi, b_lo):  # type: ignore[no-untyped-def]
        # (a * s + b) mod 2**128: jumps a PCG64 state ahead by a fixed number of steps
        lo = a_lo * s_lo
        hi = mulhi(a_lo, s_lo) + a_lo * s_hi + a_hi * s_lo  # type: ignore[call-arg]
        n_lo = lo + b_lo
        n_hi = hi + b_hi + (one if n_lo < lo else np.uint64(0))
        return n_hi, n_lo

    @njit(parallel=True, cache=True, nogil=True)
    def kernel(st_hi, st_lo, inc_hi, inc_lo, jm_hi, jm_lo, jp_hi, jp_lo,  # type: ignore[no-untyped-def]
               reps_per_chunk, n_rep, unit_ptr, scale, q, c, has_c, s_out, c_out):  # fmt: skip
        # Four replicates advance in lockstep: four independent LCG chains keep the
        # multiplier busy (one chain is latency-bound). Lane i starts at the state
        # of replicate r + i, one jump (D steps, the affine map jm, jp) apart.
        n_chunks = st_hi.shape[0]
        n_strata = unit_ptr.shape[0] - 1
        for ch in prange(n_chunks):
            b_hi = st_hi[ch]
            b_lo = st_lo[ch]
            r0 = ch * reps_per_chunk
            r1 = min(n_rep, r0 + reps_per_chunk)
            for r in range(r0, r1, 4):
                h0, l0 = b_hi, b_lo
                h1, l1 = affine(h0, l0, jm_hi, jm_lo, jp_hi, jp_lo)
                h2, l2 = affine(h1, l1, jm_hi, jm_lo, jp_hi, jp_lo)
                h3, l3 = affine(h2, l2, jm_hi, jm_lo, jp_hi, jp_lo)
                b_hi, b_lo = affine(h3, l3, jm_hi, jm_lo, jp_hi, jp_lo)
                lanes = min(4, r1 - r)
                for h in range(n_strata):
                    a = unit_ptr[h]
                    g = unit_ptr[h + 1] - a
                    sc = scale[h]
                    s0 = s1 = s2 = s3 = np.int64(0)
                    c0 = c1 = c2 = c3 = np.int64(0)
                    for _ in range(g):
                        h0, l0 = step(h0, l0, inc_hi, inc_lo)
                        h1, l1 = step(h1, l1, inc_hi, inc_lo)
                        h2, l2 = step(h2, l2, inc_hi, inc_lo)
                        h3, l3 = step(h3, l3, inc_hi, inc_lo)
                        i0 = a + np.int64(np.float64(np.int64(output(h0, l0) >> s11)) * sc)
                        i1 = a + np.int64(np.float64(np.int64(output(h1, l1) >> s11)) * sc)
                        i2 = a + np.int64(np.float64(np.int64(output(h2, l2) >> s11)) * sc)
                        i3 = a + np.int64(np.float64(np.int64(output(h3, l3) >> s11)) * sc)
                        s0 += q[i0]
                        s1 += q[i1]
                        s2 += q[i2]
                        s3 += q[i3]
                        if has_c:
                            c0 += c[i0]
                            c1 += c[i1]
                            c2 += c[i2]
                            c3 += c[i3]
                    s_out[r, h] = s0
                    if lanes > 1:
                        s_out[r + 1, h] = s1
                    if lanes > 2:
                        s_out[r + 2, h] = s2
                    if lanes > 3:
                        s_out[r + 3, h] = s3
                    if has_c:
                        c_out[r, h] = c0
                        if lanes > 1:
                            c_out[r + 1, h] = c1
                        if lanes > 2:
                            c_out[r + 2, h] = c2
                        if lanes > 3:
                            c_out[r + 3, h] = c3

    @njit(parallel=True, cache=True, nogil=True)
    def flip_kernel(st_hi, st_lo, inc_hi, inc_lo, reps_per_chunk, n_rep,  # type: ignore[no-untyped-def]
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

    return kernel, flip_kernel


def engine_name() -> str:
    """Return ``"numba"`` or ``"numpy"``: the resampling engine used now."""
    choice = os.environ.get("PDPAIRED_ACCELERATOR", "auto").strip().lower()
    if choice not in {"auto", "numba", "numpy"}:
        msg = f"PDPAIRED_ACCELERATOR must be 'auto', 'numba' or 'numpy'; got {choice!r}."
        raise ValueError(msg)
    if choice == "numpy":
        return "numpy"
    try:
        _numba_kernel()
    except ImportError:
        if choice == "numba":
            msg = (
                "PDPAIRED_ACCELERATOR=numba but numba is not installed "
                "(pip install pdpaired[fast])."
            )
            raise ImportError(msg) from None
        return "numpy"
    return "numba"


def index_kernel() -> Any:
    """Return the compiled index-resampling kernel (numba must be importable)."""
    return _numba_kernel()[0]


def flip_kernel() -> Any:
    """Return the compiled sign-flip kernel of the randomization test."""
    return _numba_kernel()[1]
