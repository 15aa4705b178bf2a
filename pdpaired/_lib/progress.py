"""Progress bars for long analyses (tqdm, optional): shown only past two seconds.

An analysis's loops report the replicates (or assignments, or slices) done
through :func:`bar`; nothing is shown -- and tqdm is not even imported --
until :data:`DELAY_SECONDS` have passed, so short calls stay silent and
cost nothing. Then tqdm draws a widget in Jupyter (a text bar without
ipywidgets) and a bar on a terminal's stderr; when stderr is not a terminal
(CI logs, files) nothing is shown. Without tqdm installed (``pip install 'pdpaired[progress]'``)
nothing is shown.

Off with ``progress=False`` on the analysis (:func:`progress_scope`), or for
the whole process with ``PDPAIRED_PROGRESS=0``; ``progress=True`` shows the
bar past the delay even when stderr is not a terminal. A bar never changes a
number: the loops draw the same addressed streams in whatever batches.
Inside a bar (a report's slices), inner analyses show none.
"""

from __future__ import annotations

import functools
import importlib.util
import inspect
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

__all__ = [
    "DELAY_SECONDS",
    "MIN_STEPS",
    "SPLIT_SECONDS",
    "bar",
    "progress_scope",
    "quiet",
    "steps",
    "wanted",
    "with_progress",
]

#: Seconds an analysis runs before its bar appears.
DELAY_SECONDS = 2.0
#: Batches a loop is split into, at least, while a bar may show (so it moves) ...
MIN_STEPS = 20
#: ... when its work is estimated at this many seconds or more (shorter work keeps one batch).
SPLIT_SECONDS = 1.0

_CHOICE: ContextVar[bool | None] = ContextVar("pdpaired_progress", default=None)
_OPEN: ContextVar[bool] = ContextVar("pdpaired_progress_open", default=False)
_OFF = {"0", "false", "no", "off"}


@contextmanager
def progress_scope(progress: bool | None) -> Iterator[None]:
    """Apply an analysis's ``progress`` argument (None: automatic) to everything inside."""
    if progress is not None and not isinstance(progress, bool):
        msg = f"`progress` must be True, False or None; got {progress!r}."
        raise TypeError(msg)
    token = _CHOICE.set(progress)
    try:
        yield
    finally:
        _CHOICE.reset(token)


def with_progress(func: F) -> F:
    """Give an analysis a keyword-only ``progress`` argument (None, True or False).

    ``None`` (the default) keeps the choice of an enclosing call -- automatic
    at the top -- so a one-call form's ``progress`` reaches the analysis it
    runs; True or False applies to everything the call runs.
    """
    sig = inspect.signature(func)
    extra = inspect.Parameter("progress", inspect.Parameter.KEYWORD_ONLY, default=None,
                              annotation="bool | None")  # fmt: skip

    @functools.wraps(func)
    def run(*args: Any, progress: bool | None = None, **kwargs: Any) -> Any:
        if progress is None:  # the enclosing choice (automatic at the top)
            return func(*args, **kwargs)
        with progress_scope(progress):
            return func(*args, **kwargs)

    params = [*sig.parameters.values(), extra]
    run.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
    return run  # type: ignore[return-value]


def wanted() -> bool:
    """Whether a bar may show here: not turned off, and no bar already open."""
    if _OPEN.get() or _CHOICE.get() is False:
        return False
    return os.environ.get("PDPAIRED_PROGRESS", "").strip().lower() not in _OFF


def steps(total: int, batch: int | None, multiple: int = 1, seconds: float = 0.0) -> int | None:
    """Return a batch size giving a bar :data:`MIN_STEPS` updates (``batch`` if given).

    Only for work estimated at :data:`SPLIT_SECONDS` or more: shorter work
    ends before a bar could show, and keeps its one large batch.
    """
    if batch is not None or seconds < SPLIT_SECONDS or not wanted():
        return batch
    per = -(-total // MIN_STEPS)
    return max(multiple, multiple * -(-per // multiple))


class _Bar:
    """Counts what is done; opens a tqdm bar only once the delay has passed."""

    def __init__(self, total: int | None, desc: str, unit: str, force: bool) -> None:
        self.total, self.desc, self.unit, self.force = total, desc, unit, force
        self.done = 0
        self.start = time.monotonic()
        self.shown: Any = None
        self.failed = False
        self.lock = threading.Lock()

    def update(self, n: int) -> None:
        with self.lock:
            self.done += n
            if self.shown is not None:
                self.shown.update(n)
            elif not self.failed and time.monotonic() - self.start >= DELAY_SECONDS:
                self._open()

    def _open(self) -> None:
        try:
            from tqdm.std import tqdm
        except ImportError:
            self.failed = True
            return
        kernel = _in_kernel()
        if kernel and importlib.util.find_spec("ipywidgets") is not None:
            from tqdm.notebook import tqdm  # a widget
        # a notebook's stderr is no terminal, but it shows a text bar (without ipywidgets,
        # tqdm.auto would warn and show nothing); elsewhere only a terminal shows one
        self.shown = tqdm(total=self.total, initial=self.done, desc=self.desc, unit=self.unit,
                          leave=False, dynamic_ncols=True,
                          disable=False if (self.force or kernel) else None)  # fmt: skip

    def close(self) -> None:
        with self.lock:
            if self.shown is not None:
                self.shown.close()


@contextmanager
def bar(total: int | None, desc: str, unit: str = "resample") -> Iterator[Callable[[int], None]]:
    """Yield ``update(n)`` for a loop of ``total`` steps (None: unknown; a no-op when no bar)."""
    if not wanted():
        yield _nothing
        return
    b = _Bar(total, desc, unit, force=_CHOICE.get() is True)
    token = _OPEN.set(True)
    try:
        yield b.update
    finally:
        _OPEN.reset(token)
        b.close()


def _in_kernel() -> bool:
    """Whether this process is a Jupyter kernel (IPython already loaded: never imported here)."""
    ipython = sys.modules.get("IPython")
    shell = getattr(ipython, "get_ipython", lambda: None)() if ipython is not None else None
    return shell is not None and "IPKernelApp" in getattr(shell, "config", {})


@contextmanager
def quiet() -> Iterator[None]:
    """Show no bar for what runs inside (a part of an analysis that has its own bar)."""
    token = _OPEN.set(True)
    try:
        yield
    finally:
        _OPEN.reset(token)


def _nothing(n: int) -> None:
    return None
