"""Would another NumPy bit generator make the numba bootstrap kernel pay?

pdpaired's numba kernel reads NumPy's PCG64 stream exactly as
``numpy.random.Generator.integers(0, G)`` does (Lemire's multiply-shift on
32-bit halves of each 64-bit word, with rejection), so that both engines give
the same numbers. A change of stream, to a generator NumPy ships (SFC64,
PCG64DXSM), would pay only if the numba kernel then reached 15x scipy on the
cluster workload and 25x on continuous n = 1e5.

This script times the kernel's inner loop -- bounded draws and the gather-sum
of fixed-point unit values, the work of one bootstrap replicate -- with each
generator, on the two workloads (1e4 clusters x 10,000 replicates = 1e8
draws; n = 1e5 cases x 10,000 replicates = 1e9 draws), two threads, best of
``--repeats``. It first checks that each kernel is bit-identical to NumPy's
``Generator(bit_generator).integers`` (so the comparison is of streams
pdpaired could actually adopt), and times NumPy's own ``integers`` per draw
(the NumPy engine's generator cost). Run from the repository root::

    python benchmarks/index_streams.py

Needs numba (``pip install -e .[fast]``).
"""

import argparse
import time
from pathlib import Path

import numpy as np
from numba import njit, prange

from pdpaired.core.kernels import mask32, mulhi, output, s32, step, two32

u11 = np.uint64(11)
u3 = np.uint64(3)
u24 = np.uint64(24)
u40 = np.uint64(40)
one = np.uint64(1)
u48 = np.uint64(48)
CM = np.uint64(0xDA942042E4DD58B5)


@njit(inline="always")
def sfc_next(a, b, c, w):
    tmp = a + b + w
    w = w + one
    a = b ^ (b >> u11)
    b = c + (c << u3)
    c = ((c << u24) | (c >> u40)) + tmp
    return tmp, a, b, c, w


@njit(inline="always")
def dxsm_next(s_hi, s_lo, i_hi, i_lo):
    hi = s_hi
    lo = s_lo | one
    hi ^= hi >> s32
    hi *= CM
    hi ^= hi >> u48
    hi *= lo
    # state = state * CM (128-bit, 64-bit multiplier) + inc
    n_lo = s_lo * CM
    n_hi = mulhi(s_lo, CM) + s_hi * CM
    l2 = n_lo + i_lo
    n_hi = n_hi + i_hi + (one if l2 < n_lo else np.uint64(0))
    return hi, n_hi, l2


@njit(parallel=True, nogil=True)
def k_pcg(sh, sl, ih, il, nrep, q, out):
    for t in prange(sh.shape[0]):
        s_hi = sh[t]
        s_lo = sl[t]
        spare = np.uint64(0)
        has = False
        g = q.shape[0]
        gu = np.uint64(g)
        thr = (two32 - gu) % gu
        for r in range(t * nrep, (t + 1) * nrep):
            acc = np.int64(0)
            for _ in range(g):
                while True:
                    if has:
                        u = spare
                        has = False
                    else:
                        s_hi, s_lo = step(s_hi, s_lo, ih[t], il[t])
                        w = output(s_hi, s_lo)
                        u = w & mask32
                        spare = w >> s32
                        has = True
                    m = u * gu
                    if (m & mask32) >= thr:
                        break
                acc += q[np.int64(m >> s32)]
            out[r] = acc


@njit(parallel=True, nogil=True)
def k_sfc(A, B, C, W, nrep, q, out):
    for t in prange(A.shape[0]):
        a = A[t]
        b = B[t]
        c = C[t]
        w = W[t]
        spare = np.uint64(0)
        has = False
        g = q.shape[0]
        gu = np.uint64(g)
        thr = (two32 - gu) % gu
        for r in range(t * nrep, (t + 1) * nrep):
            acc = np.int64(0)
            for _ in range(g):
                while True:
                    if has:
                        u = spare
                        has = False
                    else:
                        x, a, b, c, w = sfc_next(a, b, c, w)
                        u = x & mask32
                        spare = x >> s32
                        has = True
                    m = u * gu
                    if (m & mask32) >= thr:
                        break
                acc += q[np.int64(m >> s32)]
            out[r] = acc


@njit(parallel=True, nogil=True)
def k_dxsm(sh, sl, ih, il, nrep, q, out):
    for t in prange(sh.shape[0]):
        s_hi = sh[t]
        s_lo = sl[t]
        spare = np.uint64(0)
        has = False
        g = q.shape[0]
        gu = np.uint64(g)
        thr = (two32 - gu) % gu
        for r in range(t * nrep, (t + 1) * nrep):
            acc = np.int64(0)
            for _ in range(g):
                while True:
                    if has:
                        u = spare
                        has = False
                    else:
                        x, s_hi, s_lo = dxsm_next(s_hi, s_lo, ih[t], il[t])
                        u = x & mask32
                        spare = x >> s32
                        has = True
                    m = u * gu
                    if (m & mask32) >= thr:
                        break
                acc += q[np.int64(m >> s32)]
            out[r] = acc


def states(kind, T):
    ss = np.random.SeedSequence(1).spawn(T)
    if kind == "sfc":
        st = [np.random.SFC64(s).state["state"]["state"] for s in ss]
        return [np.array([x[k] for x in st], dtype=np.uint64) for k in range(4)]
    bg = np.random.PCG64 if kind == "pcg" else np.random.PCG64DXSM
    st = [bg(s).state["state"] for s in ss]

    def f(v):
        return (np.uint64(v >> 64), np.uint64(v & ((1 << 64) - 1)))

    return [
        np.array([f(x["state"])[0] for x in st]),
        np.array([f(x["state"])[1] for x in st]),
        np.array([f(x["inc"])[0] for x in st]),
        np.array([f(x["inc"])[1] for x in st]),
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    # correctness: one thread, one replicate vs numpy Generator.integers then gather-sum
    q = np.random.default_rng(0).integers(-1000, 1000, size=1000).astype(np.int64)
    for kind, k, bg in (
        ("pcg", k_pcg, np.random.PCG64),
        ("sfc", k_sfc, np.random.SFC64),
        ("dxsm", k_dxsm, np.random.PCG64DXSM),
    ):
        s = states(kind, 1)
        out = np.zeros(3, np.int64)
        k(*s, 3, q, out)
        g = np.random.Generator(bg(np.random.SeedSequence(1).spawn(1)[0]))
        ref = [q[g.integers(0, len(q), size=len(q))].sum() for _ in range(3)]
        if list(out) != ref:
            msg = f"the {kind} kernel does not reproduce NumPy's draws"
            raise SystemExit(msg)
    lines = [
        "# Index streams for the numba kernel",
        "",
        "Generated by `python benchmarks/index_streams.py`: kernel inner loop (bounded draws "
        f"+ gather-sum), two threads, best of {args.repeats}; NumPy `integers` per draw, one "
        "thread. Every kernel checked bit-identical to NumPy's `Generator.integers`.",
        "",
        "| workload | PCG64 s | SFC64 s | PCG64DXSM s | PCG64 / SFC64 | "
        "NumPy ns/draw PCG64 | SFC64 | PCG64DXSM |",
        "|---|---|---|---|---|---|---|---|",
    ]

    for g, nrep_total, label in (
        (10_000, 10_000, "cluster G=1e4 x 1e4 reps (1e8 draws)"),
        (100_000, 10_000, "continuous n=1e5 x 1e4 reps (1e9 draws)"),
    ):
        q = np.random.default_rng(0).integers(-(2**40), 2**40, size=g).astype(np.int64)
        T = 2
        nrep = nrep_total // T
        res = {}
        for kind, k in (("pcg", k_pcg), ("sfc", k_sfc), ("dxsm", k_dxsm)):
            s = states(kind, T)
            out = np.zeros(nrep_total, np.int64)
            best = 1e9
            for _ in range(args.repeats):
                t = time.perf_counter()
                k(*s, nrep, q, out)
                best = min(best, time.perf_counter() - t)
            res[kind] = best
        # numpy engine draws
        npres = {}
        for kind, bg in (
            ("pcg", np.random.PCG64),
            ("sfc", np.random.SFC64),
            ("dxsm", np.random.PCG64DXSM),
        ):
            gen = np.random.Generator(bg(1))
            t = time.perf_counter()
            for _ in range(10):
                gen.integers(0, g, size=10**7)
            npres[kind] = (time.perf_counter() - t) / 1e8 * 1e9
        lines.append(
            f"| {label} | {res['pcg']:.3f} | {res['sfc']:.3f} | {res['dxsm']:.3f} | "
            f"{res['pcg'] / res['sfc']:.2f}x | {npres['pcg']:.2f} | {npres['sfc']:.2f} | "
            f"{npres['dxsm']:.2f} |"
        )
    text = "\n".join(lines) + "\n"
    out_path = Path(__file__).resolve().parent / "results" / "index-streams.md"
    out_path.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
