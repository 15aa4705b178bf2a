"""Timing, peak memory and Markdown formatting for ``targets.py``.

A benchmark class (see ``benchmarks/common.py``) is run for every combination of its
``params``: ``setup``, then its ``time_*`` method at most ``repeats`` times (no new
call once the calls have used ``budget`` seconds), keeping the best time. The peak
extra memory of a call is read from the kernel's high-water mark, reset just before
it (Linux; ``None`` elsewhere). Everything runs in this one process.
"""

from __future__ import annotations

import ctypes
import gc
import itertools
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

BUSY = 0.2  # cores used by other processes above which a row is marked ‡
X = "\u00d7"


@dataclass
class Row:
    """One measured (or skipped) combination of a benchmark class's parameters."""

    family: str
    cls: str
    tool: str
    reference: str | None
    role: str
    case: str
    params: dict[str, Any]
    label: str = ""
    seconds: float | None = None  # best call, times ``scale`` (extrapolated: ¹)
    repeats: int = 0
    peak: float | None = None  # MiB above the resident memory just before the call
    scale: float = 1.0
    foreign: float | None = None  # cores used by other processes during the calls
    problem: str | None = None  # "not run (...)" or an error
    info: dict[str, Any] = field(default_factory=dict)


def _status_kib(key: str) -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    raise KeyError(key)


class PeakMemory:
    """Peak extra resident memory of a block, from the kernel's high-water mark."""

    def __init__(self) -> None:
        self.ok = True
        try:
            self._trim: Any = ctypes.CDLL("libc.so.6").malloc_trim
        except OSError:  # not glibc
            self._trim = None

    def start(self) -> None:
        gc.collect()
        if self._trim is not None:
            self._trim(0)  # give freed heap pages back, so reuse shows up as growth
        try:
            with open("/proc/self/clear_refs", "w") as fh:
                fh.write("5")  # reset VmHWM to the current RSS
            self.base = _status_kib("VmRSS")
        except OSError:
            self.ok = False

    def stop(self) -> float | None:
        return (_status_kib("VmHWM") - self.base) / 1024.0 if self.ok else None


def busy_cpu_seconds() -> float | None:
    """CPU seconds the whole machine has spent busy (all processes, /proc/stat)."""
    try:
        with open("/proc/stat") as fh:
            ticks = [int(v) for v in fh.readline().split()[1:9]]
    except (OSError, ValueError):
        return None
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")


def own_cpu_seconds() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def time_call(fn: Callable[[], Any], repeats: int, budget: float) -> dict[str, Any]:
    """Best wall time of up to ``repeats`` calls, their largest peak, foreign load."""
    mem = PeakMemory()
    best, peak, spent, done, out = float("inf"), None, 0.0, 0, None
    b0, o0, w0 = busy_cpu_seconds(), own_cpu_seconds(), time.perf_counter()
    while done < repeats:
        mem.start()
        t0 = time.perf_counter()
        out = fn()
        dt = time.perf_counter() - t0
        p = mem.stop()
        peak = p if peak is None or (p is not None and p > peak) else peak
        best, spent, done = min(best, dt), spent + dt, done + 1
        if spent + dt > budget:
            break
    b1, o1, wall = busy_cpu_seconds(), own_cpu_seconds(), time.perf_counter() - w0
    foreign = None  # /proc/stat counts in 10 ms ticks: too coarse below half a second
    if b0 is not None and b1 is not None and wall >= 0.5:
        foreign = max(0.0, (b1 - b0) - (o1 - o0)) / wall
    return {"best": best, "done": done, "peak": peak, "out": out, "foreign": foreign}


def new_row(family: str, module: Any, cls: type, combo: tuple[Any, ...]) -> Row:
    from benchmarks.common import resolve

    case = resolve(module.CASES, combo[0])["name"]
    params = dict(zip(getattr(cls, "param_names", ()), combo, strict=False))
    return Row(
        family, cls.__name__, cls.tool, getattr(cls, "reference", None), combo[0], case, params
    )


def run_class(
    family: str, module: Any, cls: type, repeats: int, budget: float, log: Callable[[Row], None]
) -> list[Row]:
    """Every planned combination of ``cls``'s parameters, measured in turn."""
    method = next(m for m in dir(cls) if m.startswith("time_"))
    rows = []
    for combo in itertools.product(*cls.params):
        bench = cls()
        row = new_row(family, module, cls, combo)
        try:
            bench.setup(*combo)
            res = time_call(lambda b=bench, c=combo: getattr(b, method)(*c), repeats, budget)
            row.info = bench.summary(res["out"])
            row.scale = float(bench.scale)
            row.seconds, row.repeats = res["best"] * row.scale, res["done"]
            row.peak, row.foreign = res["peak"], res["foreign"]
        except NotImplementedError as e:
            if not str(e):
                continue  # not part of the plan
            row.problem = str(e)
        except Exception as e:  # a failing row is reported, not fatal
            row.problem = f"error: {type(e).__name__}: {e}"[:300]
        row.label = bench.label(row.info, *combo)
        rows.append(row)
        log(row)
        del bench
        gc.collect()
    return rows


FRESH = """{setup}
import ctypes, gc, time
def _kib(key):
    with open("/proc/self/status") as fh:
        return next(int(ln.split()[1]) for ln in fh if ln.startswith(key + ":"))
gc.collect()
try:
    ctypes.CDLL("libc.so.6").malloc_trim(0)
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")
    base = _kib("VmRSS")
except OSError:
    base = None
t = time.perf_counter()
{stmt}
t1 = time.perf_counter() - t
peak = (_kib("VmHWM") - base) / 1024 if base is not None else -1.0
t = time.perf_counter()
{stmt}
print(t1, time.perf_counter() - t, peak)
"""


def fresh_process(code: tuple[str, str], env: dict[str, str]) -> list[float] | None:
    """Run ``setup`` then ``stmt`` twice in a new interpreter: first and second call, first peak."""
    stmt, setup = code
    script = FRESH.format(setup=setup, stmt=stmt)
    # cwd: keep `python -c` from importing a pdpaired/ of the current directory ahead of
    # PYTHONPATH (a snapshot being measured).
    with tempfile.TemporaryDirectory(prefix="pdpaired-bench-") as cwd:
        p = subprocess.run([sys.executable, "-c", script], env=env, cwd=cwd,
                           capture_output=True, text=True)  # fmt: skip
    try:
        return [float(v) for v in p.stdout.split()[-3:]]
    except ValueError:
        return None


def first_call(
    code: Callable[[str], tuple[str, str]], repeats: int = 5
) -> dict[str, list[float] | None]:
    """First and second call in fresh processes: numba with an empty then a written cache,
    then (median of ``repeats`` processes each, alternating) ``auto`` and ``numpy``."""
    out: dict[str, list[float] | None] = {}
    with tempfile.TemporaryDirectory(prefix="pdpaired-bench-first-call-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        for label in ("numba, process 1 (empty cache dir)",
                      "numba, process 2 (cache dir written by process 1)"):  # fmt: skip
            out[label] = fresh_process(code("numba"), env)
        runs: dict[str, list[list[float]]] = {"auto": [], "numpy": []}
        for _ in range(repeats):
            for accelerator, got in runs.items():
                one = fresh_process(code(accelerator), env)
                if one is not None:
                    got.append(one)
        for accelerator, got in runs.items():
            label = f"{accelerator} (default engine choice, cache written), median of {repeats}"
            if accelerator == "numpy":
                label = f"numpy engine, median of {repeats}"
            out[label] = [statistics.median(v[i] for v in got) for i in range(3)] if got else None
    return out


def run_raw(family: str, module: Any, cls: type, log: Callable[[Row], None]) -> list[Row]:
    """A ``timeraw_`` class: each combination's first call in a fresh process."""
    method = next(m for m in dir(cls) if m.startswith("timeraw_"))
    rows = []
    for combo in itertools.product(*cls.params):
        bench = cls()
        row = new_row(family, module, cls, combo)
        row.label = bench.label({}, *combo)
        got = fresh_process(getattr(bench, method)(*combo), dict(os.environ))
        if got is None:
            row.problem = "error: the fresh process failed"
        else:
            row.seconds, row.repeats = got[0], 1
            row.peak = got[2] if got[2] >= 0 else None
            row.info = {"second": got[1]}
        rows.append(row)
        log(row)
    return rows


def fmt_s(x: float | None) -> str:
    """Seconds, three significant digits."""
    if x is None:
        return "—"
    return f"{x:.3g}" if x < 100 else f"{x:.0f}"


def fmt_ratio(x: float | None) -> str:
    """A speed-up, e.g. '9.43' or '1,363' followed by the multiplication sign."""
    if x is None:
        return "—"
    return f"{x:,.0f}{X}" if x >= 100 else f"{x:.3g}{X}"


def fmt_mib(x: float | None) -> str:
    """MiB, no decimals above 10."""
    if x is None:
        return "—"
    return f"{x:,.0f}" if x >= 10 else f"{x:.1f}"


def table(header: list[str], body: list[list[str]], align: str) -> list[str]:
    """A Markdown table; ``align`` has one letter per column, ``l`` or ``r``."""
    rule = "|" + "|".join("---:" if a == "r" else "---" for a in align) + "|"
    lines = ["| " + " | ".join(header) + " |", rule]
    return lines + ["| " + " | ".join(r) + " |" for r in body]
