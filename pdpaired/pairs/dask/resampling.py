"""Resampling inside the partitions: counter-based Poisson and sign-flip weights, exact sums.

A case's weight in each replicate comes from a counter-based stream
(SplitMix64) keyed by a hash of its id and two recorded seed words, so the
draws depend neither on the partitioning nor on the row order. Poisson(1)
weights are read from 53-bit thresholds of the inverse CDF; sign flips are
one bit. :func:`replicate_sums` sums one partition's signed grid values
(numba kernel or NumPy, the same integers), :func:`tree_sum` adds the
partitions' arrays in a balanced tree and :func:`round_shift` coarsens the
grid to leave room for the weights.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
from dask.delayed import delayed

from pdpaired.core.accel import engine_name, partition_kernel

__all__ = ["W_BITS", "replicate_sums", "round_shift", "tree_sum"]

#: Replicates of the in-partition Poisson bootstrap / sign flips drawn at once,
#: bounded so that a block holds at most this many 64-bit draws.
_BLOCK_DRAWS = 1 << 22
#: Poisson weights are capped at this value (the mass above is below 1e-80).
_W_MAX = 63
#: Extra bits of headroom of the Poisson-weighted sums (weights <= 63 < 2**6).
W_BITS = 6

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _splitmix(x: np.ndarray) -> np.ndarray:
    """SplitMix64's output function (a bijective 64-bit mixer)."""
    with np.errstate(over="ignore"):
        z = x.copy()
        z ^= z >> np.uint64(30)
        z *= np.uint64(0xBF58476D1CE4E5B9)
        z ^= z >> np.uint64(27)
        z *= np.uint64(0x94D049BB133111EB)
        z ^= z >> np.uint64(31)
    return z


def _poisson_thresholds() -> np.ndarray:
    """Upper 53-bit thresholds of the Poisson(1) inverse CDF, for weights 0 .. 62."""
    cdf = np.cumsum([math.exp(-1.0) / math.factorial(j) for j in range(_W_MAX)])
    return np.minimum(np.floor(cdf * 2.0**53), 2.0**53).astype(np.uint64)


_THRESHOLDS = _poisson_thresholds()


def _case_keys(ids: np.ndarray, seed_words: np.ndarray) -> np.ndarray:
    """Per case: the start of its counter-based stream (hash of the id and the seed)."""
    h = pd.util.hash_array(np.asarray(ids, dtype=object), categorize=False)
    return _splitmix(h ^ seed_words[0])


def _weights_block(keys: np.ndarray, r0: int, r1: int, seed_words: np.ndarray, kind: str) -> Any:
    """Draws of replicates ``r0 .. r1`` for every case: shape (cases, r1 - r0)."""
    with np.errstate(over="ignore"):
        counters = (np.arange(r0, r1, dtype=np.uint64) + np.uint64(1)) * _GOLDEN
        u = _splitmix(keys[:, None] + (counters[None, :] ^ seed_words[1]))
    if kind == "flip":
        return 1 - 2 * (u >> np.uint64(63)).astype(np.int64)  # +1 or -1
    top = u >> np.uint64(11)  # 53 bits
    w = np.zeros(top.shape, dtype=np.int64)
    for t in _THRESHOLDS[:5]:  # weights 0..5 by comparisons, the rare tail by search
        w += top >= t
    tail = w == 5
    if tail.any():
        w[tail] = np.searchsorted(_THRESHOLDS, top[tail], side="right")
    return w


def replicate_sums(
    part: pd.DataFrame, *, n_rep: int, n_strata: int, seed_words: np.ndarray, kind: str
) -> np.ndarray:
    """Exact per-replicate, per-stratum sums of one partition.

    ``part`` has one row per case, or one row per model output when no case
    has a missing outcome (both rows of a case share its weight): ``case``,
    ``dq`` (the signed grid value), ``s`` (stratum code) and ``cw`` (1 where
    the row counts the case once). Returns int64 of shape (2, n_rep, n_strata):
    weighted values and weighted case counts (Poisson), or signed values and
    case counts (flips). The numba kernel (when installed) and NumPy give the
    same integers.
    """
    out = np.zeros((2, n_rep, n_strata), dtype=np.int64)
    if len(part) == 0:
        return out
    keys = _case_keys(part["case"].to_numpy(), seed_words)
    dq = part["dq"].to_numpy(dtype=np.int64)
    codes = part["s"].to_numpy(dtype=np.int64)
    cw = part["cw"].to_numpy(dtype=np.int64)
    if engine_name() == "numba":
        partition_kernel()(keys, dq, codes, cw, seed_words[1], _THRESHOLDS, kind == "flip", out)
    else:
        per = max(1, _BLOCK_DRAWS // max(1, len(part)))
        for h in np.unique(codes):
            sel = codes == h
            k_h, d_h, c_h = keys[sel], dq[sel], cw[sel]
            for r0 in range(0, n_rep, per):
                r1 = min(n_rep, r0 + per)
                w = _weights_block(k_h, r0, r1, seed_words, kind)
                out[0, r0:r1, h] = d_h @ w
                if kind == "poisson":
                    out[1, r0:r1, h] = c_h @ w
    if kind == "flip":
        out[1] = np.bincount(codes, weights=cw, minlength=n_strata).astype(np.int64)[None, :]
    return out


def tree_sum(parts: list[Any]) -> Any:
    """Sum delayed arrays pairwise (a balanced tree, in partition order)."""
    add = delayed(np.add, pure=True)
    while len(parts) > 1:
        nxt = [add(parts[i], parts[i + 1]) for i in range(0, len(parts) - 1, 2)]
        if len(parts) % 2:
            nxt.append(parts[-1])
        parts = nxt
    return parts[0]


def round_shift(q: np.ndarray, shift: int) -> np.ndarray:
    """``q`` on a grid ``2**shift`` times coarser, rounded to nearest (half away from 0).

    Odd-symmetric, so swapping A and B exactly negates every replicate.
    """
    if not shift:
        return q
    return np.sign(q) * ((np.abs(q) + (1 << (shift - 1))) >> shift)
