"""Optional numba kernels (``pip install pdpaired[fast]``).

The kernel reads the same PCG64 stream as the NumPy path (see
:mod:`pdpaired._lib.rng`) and accumulates exact int64 sums, so it returns
bit-identical results. Which engine runs is chosen at call time by the
environment variable ``PDPAIRED_ACCELERATOR``: ``auto`` (default: numba when
importable), ``numba`` (error if it is not) or ``numpy``.

Loading numba and its cached kernels costs a process about
:data:`NUMBA_LOAD_SECONDS`, several times a small bootstrap. So ``auto`` decides
like the ski-rental problem: while numba is not loaded, a computation whose
NumPy cost (estimated from its draws) fits in what is left of that budget runs
on NumPy, and the first one that does not loads numba, which then runs
everything. A script of small calls never pays more than about twice the
cheaper of the two, and a first call never waits for numba it does not need.
:func:`engine_for` makes that choice once per computation (a result's
``engine`` names what ran); either engine gives the same numbers.

The NumPy path runs independent random streams on a pool of threads (NumPy
releases the GIL while it draws, gathers and sums): as many as the process may
use, or ``PDPAIRED_NUM_THREADS``; a bootstrap whose estimated NumPy work is
below :data:`THREAD_MIN_SECONDS` runs on the calling thread, where the pool
would cost more than it saves. :func:`small_calls` runs many small
computations in a row on NumPy on the calling thread, where starting a pool
or launching a compiled parallel kernel per call would cost more than the
draws. The numba kernels use numba's own thread pool
(``NUMBA_NUM_THREADS``). Neither changes any result.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from typing import Any

__all__ = [
    "DRAW_SECONDS",
    "FLIP_SECONDS",
    "NUMBA_LOAD_SECONDS",
    "auc_kernel",
    "count_kernel",
    "engine_for",
    "engine_name",
    "flip_kernel",
    "for_each_chunk",
    "index_kernel",
    "joint_kernel",
    "numpy_threads",
    "partition_kernel",
    "resampling_engine",
    "small_calls",
]


#: Seconds a process spends importing numba and loading its kernels from the
#: on-disk cache (measured: 0.25-0.35 s on a 2-core machine); a kernel not yet in the cache
#: compiles once, in about 2 s.
NUMBA_LOAD_SECONDS = 0.3
#: NumPy-path seconds per resampled unit of an index bootstrap (draw, gather, sum);
#: measured 1.9e-9 to 3.7e-9 on 1e3 to 1e4 units.
DRAW_SECONDS = 3e-9
#: NumPy-path seconds per unit of a sign-flip assignment (measured 4.8e-10 to 5.0e-10).
FLIP_SECONDS = 5e-10
#: NumPy-path work (estimated seconds) below which the chunks run on the calling thread:
#: a pool per call then costs more than it saves (by_slice on six slices of 40 cases,
#: 2,000 resamples each: 4.5 s of wall time and 4.7 s of CPU with a 2-thread pool per
#: bootstrap, 2.9 s and 2.9 s on the calling thread).
THREAD_MIN_SECONDS = 0.01

_SCOPED: ContextVar[str | None] = ContextVar("pdpaired_engine", default=None)
_budget_lock = threading.Lock()
_numpy_seconds = 0.0  # estimated NumPy seconds spent in place of loading numba


def _numba_loaded() -> bool:
    return "pdpaired.core.kernels" in sys.modules


@cache
def _numba_findable() -> bool:
    return importlib.util.find_spec("numba") is not None


def resampling_engine(seconds: float) -> str:
    """Return ``"numba"`` or ``"numpy"`` for a computation of about ``seconds`` on NumPy.

    Inside :func:`engine_for`, its choice. Otherwise ``numba`` and ``numpy``
    are obeyed; under ``auto``, NumPy while numba is not loaded and the NumPy
    seconds chosen so far in this process, with these, stay within
    :data:`NUMBA_LOAD_SECONDS`; else numba (loading it).
    """
    global _numpy_seconds
    scoped = _SCOPED.get()
    if scoped is not None:
        return scoped
    if _choice() == "auto" and not _numba_loaded() and _numba_findable():
        with _budget_lock:
            if _numpy_seconds + seconds <= NUMBA_LOAD_SECONDS:
                _numpy_seconds += seconds
                return "numpy"
    return engine_name()


@contextmanager
def engine_for(seconds: float) -> Iterator[str]:
    """Choose the engine once (:func:`resampling_engine`) for everything inside the block.

    Nested blocks keep the outermost choice, so the engine a result reports is
    the one every kernel inside it ran.
    """
    outer = _SCOPED.get()
    if outer is not None:
        yield outer
        return
    choice = resampling_engine(seconds)
    token = _SCOPED.set(choice)
    try:
        yield choice
    finally:
        _SCOPED.reset(token)


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
    """Return ``"numba"`` or ``"numpy"``: the configured engine (loads numba under ``auto``).

    Inside :func:`engine_for`, its choice.
    """
    scoped = _SCOPED.get()
    if scoped is not None:
        return scoped
    choice = _choice()
    if choice == "numpy" or (choice == "auto" and not _numba_findable()):
        return "numpy"  # (no failed import of the kernels to repeat on every call)
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


def _choice() -> str:
    choice = os.environ.get("PDPAIRED_ACCELERATOR", "auto").strip().lower()
    if choice not in {"auto", "numba", "numpy"}:
        msg = f"PDPAIRED_ACCELERATOR must be 'auto', 'numba' or 'numpy'; got {choice!r}."
        raise ValueError(msg)
    return choice


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


_ONE_THREAD: ContextVar[bool] = ContextVar("pdpaired_one_thread", default=False)


@contextmanager
def small_calls() -> Iterator[None]:
    """Run many small computations on NumPy, on the calling thread (results are the same).

    The NumPy path then starts no thread pool per call, and under
    ``PDPAIRED_ACCELERATOR=auto`` no compiled parallel kernel is launched per
    call either (an explicit ``numba`` is obeyed).
    """
    token = _ONE_THREAD.set(True)
    engine = _SCOPED.set("numpy" if _choice() != "numba" else "numba")
    try:
        yield
    finally:
        _SCOPED.reset(engine)
        _ONE_THREAD.reset(token)


def numpy_threads() -> int:
    """Threads of the NumPy path: ``PDPAIRED_NUM_THREADS``, else the usable CPUs.

    One inside :func:`small_calls`.
    """
    if _ONE_THREAD.get():
        return 1
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


def for_each_chunk(
    fn: Callable[[int], None], n_chunks: int, *, seconds: float | None = None
) -> None:
    """Run ``fn(k)`` for ``k < n_chunks`` on the NumPy path's threads.

    The chunks must be independent (their own random stream, their own rows of
    the output), so the result does not depend on the number of threads.
    ``seconds``, the estimated NumPy work, below :data:`THREAD_MIN_SECONDS`
    runs the chunks on the calling thread.
    Exceptions propagate to the caller; on one (Ctrl-C included) the chunks
    not yet started are cancelled, so an interrupt waits for the running
    chunks only, not for the whole queue.
    """
    n_threads = min(numpy_threads(), n_chunks)
    if seconds is not None and seconds < THREAD_MIN_SECONDS:
        n_threads = 1
    if n_threads <= 1:
        for k in range(n_chunks):
            fn(k)
        return
    pool = ThreadPoolExecutor(n_threads, thread_name_prefix="pdpaired")
    try:
        for _ in pool.map(fn, range(n_chunks)):
            pass
    except BaseException:
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
