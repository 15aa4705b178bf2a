"""Optional numba kernels (``pip install pdpaired[fast]``).

The kernel reads the same PCG64 stream as the NumPy path (see
:mod:`pdpaired._lib.rng`) and accumulates exact int64 sums, so it returns
bit-identical results. Which engine runs is chosen at call time by the
environment variable ``PDPAIRED_ACCELERATOR``: ``auto`` (default: numba when
importable), ``numba`` (error if it is not) or ``numpy``.

The NumPy path runs independent random streams on a pool of threads (NumPy
releases the GIL while it draws, gathers and sums): as many as the process may
use, or ``PDPAIRED_NUM_THREADS``. The numba kernels use numba's own thread
pool (``NUMBA_NUM_THREADS``). Neither changes any result.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from typing import Any

__all__ = [
    "auc_kernel",
    "count_kernel",
    "engine_name",
    "flip_kernel",
    "for_each_chunk",
    "index_kernel",
    "joint_kernel",
    "numpy_threads",
    "partition_kernel",
]


@cache
def _numba_kernel() -> Any:
    from pdpaired.core import (
        kernels as _kernels,  # imports numba; compiled kernels come from its cache
    )

    return (
        _kernels.kernel,
        _kernels.flip_kernel,
        _kernels.count_kernel,
        _kernels.auc_kernel,
        _kernels.partition_kernel,
        _kernels.joint_kernel,
    )


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


def joint_kernel() -> Any:
    """Return the compiled index-resampling kernel of several comparisons at once."""
    return _numba_kernel()[5]


def flip_kernel() -> Any:
    """Return the compiled sign-flip kernel of the randomization test."""
    return _numba_kernel()[1]


def count_kernel() -> Any:
    """Return the compiled draw-count kernel of prediction mode."""
    return _numba_kernel()[2]


def auc_kernel() -> Any:
    """Return the compiled weighted-AUROC kernel of prediction mode."""
    return _numba_kernel()[3]


def partition_kernel() -> Any:
    """Return the compiled in-partition Poisson / sign-flip kernel of the Dask path."""
    return _numba_kernel()[4]


def numpy_threads() -> int:
    """Threads of the NumPy path: ``PDPAIRED_NUM_THREADS``, else the usable CPUs."""
    raw = os.environ.get("PDPAIRED_NUM_THREADS", "").strip()
    if raw:
        try:
            n = int(raw)
        except ValueError:
            n = 0
        if n < 1:
            msg = f"PDPAIRED_NUM_THREADS must be a positive integer; got {raw!r}."
            raise ValueError(msg)
        return n
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def for_each_chunk(fn: Callable[[int], None], n_chunks: int) -> None:
    """Run ``fn(k)`` for ``k < n_chunks`` on the NumPy path's threads.

    The chunks must be independent (their own random stream, their own rows of
    the output), so the result does not depend on the number of threads.
    Exceptions propagate to the caller.
    """
    n_threads = min(numpy_threads(), n_chunks)
    if n_threads <= 1:
        for k in range(n_chunks):
            fn(k)
        return
    with ThreadPoolExecutor(n_threads, thread_name_prefix="pdpaired") as pool:
        for _ in pool.map(fn, range(n_chunks)):
            pass
