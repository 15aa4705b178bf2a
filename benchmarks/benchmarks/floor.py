"""The cluster ``floor`` of the bootstrap benchmark: not a tool, a bound.

A numba kernel doing only the memory work of a cluster bootstrap's replicates (per
group drawn, a gather of its int64 sum and count), with precomputed indices and
no random numbers. The fastest variant bounds the ratio vs scipy that any exact
cluster bootstrap can reach on the machine.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from .bootstrap import CASES
from .common import Benchmark, group_sums, make_arrays, resamples, resolve, use_engine

__all__ = ["CASES", "Floor"]
# What the report says each tool ran (printed under the family's table).
NOTE = (
    "floor (clusters only): not a bootstrap but a lower bound for any "
    "exact one on this machine: a numba kernel doing only the replicates' random loads (per "
    "group drawn, its int64 sum and count), with precomputed indices and no random numbers, "
    "in two layouts, numba's vectorizer on or off; the fastest bounds every exact cluster "
    "bootstrap's ratio vs scipy."
)


def _floor_kernel(layout: str, vectorize: bool, *example: np.ndarray) -> Any:
    """Compile the floor's kernel on ``example``; ``vectorize=False``: numba's vectorizers off.

    numba rereads its environment variables when it starts a compilation, so the
    flags are set around the compiling call and restored after it.
    """
    import numba

    flags = ("NUMBA_LOOP_VECTORIZE", "NUMBA_SLP_VECTORIZE")
    saved = {k: os.environ.get(k) for k in flags}
    if not vectorize:  # scalar loads: AMD's vector gathers are slower (read at compile time)
        os.environ.update(dict.fromkeys(flags, "0"))
    try:
        if layout == "two arrays":

            @numba.njit(parallel=True, nogil=True)
            def kernel(idx, q, c, s_out, c_out):  # type: ignore[no-untyped-def]
                for r in numba.prange(s_out.size):
                    row = idx[r % idx.shape[0]]
                    acc, acc_c = np.int64(0), np.int64(0)
                    for j in range(row.size):
                        acc += q[row[j]]
                        acc_c += c[row[j]]
                    s_out[r], c_out[r] = acc, acc_c
        else:

            @numba.njit(parallel=True, nogil=True)
            def kernel(idx, qc, c, s_out, c_out):  # type: ignore[no-untyped-def]
                for r in numba.prange(s_out.size):
                    row = idx[r % idx.shape[0]]
                    acc, acc_c = np.int64(0), np.int64(0)
                    for j in range(row.size):
                        acc += qc[row[j], 0]
                        acc_c += qc[row[j], 1]
                    s_out[r], c_out[r] = acc, acc_c

        kernel(*example)
        return kernel
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


class Floor(Benchmark):
    """A lower bound for any exact cluster bootstrap: the replicates' random loads alone.

    Per replicate, one gather per group drawn of the group's int64 sum and count,
    summed, with 64 precomputed index rows reused and no random numbers; two memory
    layouts (two arrays, or sum and count side by side), numba's vectorizer on or off.
    """

    tool = "floor"
    params = (("clusters",), ("two arrays", "side by side"), ("vectorized", "scalar loads"))
    param_names = ("case", "layout", "loads")

    def setup(self, role: str, layout: str, loads: str) -> None:
        use_engine("numba")  # skips when numba is absent
        arrs = make_arrays(resolve(CASES, role))
        s = group_sums(arrs["a"] - arrs["b"], arrs["sizes"])
        q = np.rint(np.ldexp(s, 40)).astype(np.int64)
        c = arrs["sizes"].astype(np.int64)
        data = q if layout == "two arrays" else np.stack([q, c], axis=1)  # one cache line
        self.idx = np.random.default_rng(0).integers(0, s.size, size=(64, s.size))
        self.s_out = np.empty(resamples(), dtype=np.int64)
        self.c_out = np.empty(resamples(), dtype=np.int64)
        self.args = (self.idx, data, c)
        example = (*self.args, self.s_out[:64], self.c_out[:64])
        self.kernel = _floor_kernel(layout, loads == "vectorized", *example)
        import numba

        self.threads = numba.get_num_threads()

    def time_floor(self, role: str, layout: str, loads: str) -> None:
        self.kernel(*self.args, self.s_out, self.c_out)

    def peakmem_floor(self, role: str, layout: str, loads: str) -> None:
        self.time_floor(role, layout, loads)

    def label(self, info: dict[str, Any], role: str, layout: str, loads: str) -> str:
        threads = getattr(self, "threads", "?")
        what = f"numba, {threads} threads, {loads}, {layout}"
        return f"floor: the gathers alone, no random numbers ({what})"
