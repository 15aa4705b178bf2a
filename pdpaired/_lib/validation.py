"""Argument validation at the public boundary (scipy's ``_bootstrap_iv`` pattern)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = [
    "check_choice",
    "check_confidence_level",
    "check_memory",
    "check_model_names",
    "check_nonneg_float",
    "check_positive_int",
    "plain",
]


def check_positive_int(value: Any, name: str, *, optional: bool = False) -> int | None:
    """Return ``value`` as an int >= 1."""
    if value is None and optional:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        msg = f"`{name}` must be a positive integer; got {value!r}."
        raise TypeError(msg)
    if value < 1:
        msg = f"`{name}` must be a positive integer; got {value!r}."
        raise ValueError(msg)
    return int(value)


def available_memory() -> int | None:
    """Bytes of memory the system can give without swapping (Linux ``MemAvailable``), or None."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _bytes(n: float) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:.3g} {unit}"
        n /= 1024
    return f"{n:.3g} PiB"  # pragma: no cover


def check_memory(count: int, per_item: int, name: str) -> None:
    """Refuse ``count`` items of ``per_item`` bytes that cannot fit in the available memory.

    Up front, with the figure: allocating them would fail, or -- with the
    kernel's overcommit -- succeed and have the process killed once the memory
    is touched, with no message at all.
    """
    need = count * per_item
    have = available_memory()
    if have is not None and need > have:
        msg = (
            f"`{name}`={count:,} needs about {_bytes(need)} of memory for its values alone; "
            f"this machine has {_bytes(have)} available. Ask for fewer."
        )
        raise ValueError(msg)


def check_confidence_level(value: Any) -> float:
    """Return ``value`` as a float in (0, 1)."""
    try:
        level = float(value)
    except (TypeError, ValueError):
        msg = f"`confidence_level` must be a number in (0, 1); got {value!r}."
        raise TypeError(msg) from None
    if isinstance(value, (bool, np.bool_)) or not 0.0 < level < 1.0:
        msg = f"`confidence_level` must be in (0, 1); got {value!r}."
        raise ValueError(msg)
    return level


def check_bool(value: Any, name: str) -> bool:
    """Return ``value`` as a bool if it is True or False (NumPy bools too)."""
    if not isinstance(value, (bool, np.bool_)):
        msg = f"`{name}` must be True or False; got {value!r}."
        raise TypeError(msg)
    return bool(value)


def check_choice(value: Any, name: str, choices: tuple[str, ...]) -> str:
    """Return ``value`` lower-cased if it is one of ``choices``."""
    if not isinstance(value, str) or value.lower() not in choices:
        msg = f"`{name}` must be one of {list(choices)}; got {value!r}."
        raise ValueError(msg)
    return value.lower()


def check_nonneg_float(value: Any, name: str, *, optional: bool = False) -> float | None:
    """Return ``value`` as a finite float >= 0."""
    if value is None and optional:
        return None
    if isinstance(value, (bool, np.bool_)):
        msg = f"`{name}` must be a finite number >= 0; got {value!r}."
        raise TypeError(msg)
    try:
        x = float(value)
    except (TypeError, ValueError):
        msg = f"`{name}` must be a finite number >= 0; got {value!r}."
        raise TypeError(msg) from None
    if not math.isfinite(x) or x < 0:
        msg = f"`{name}` must be a finite number >= 0; got {value!r}."
        raise ValueError(msg)
    return x


def plain(x: Any) -> Any:
    """Return a NumPy scalar as the Python scalar it holds (for messages)."""
    return x.item() if isinstance(x, np.generic) else x


def check_model_names(a: Any, b: Any) -> None:
    """Model names must be single labels (a string, a number), not a column or a list.

    A Series passed as a name would otherwise fail deep inside pandas with
    "The truth value of a Series is ambiguous".
    """
    for name, value in (("a", a), ("b", b)):
        if value is None:
            continue  # the comparison says that both names are required
        if isinstance(value, list) or getattr(value, "ndim", 0) > 0:
            kind = type(value).__name__
            size = getattr(value, "size", None) or (len(value) if hasattr(value, "__len__") else "")
            msg = (
                f"`{name}` must be one model name (a label such as 'candidate'); got a {kind}"
                + (f" of {size} values" if size != "" else "")
                + ". Name the two models to compare, e.g. "
                "df.paired.compare('candidate', 'baseline', ...)."
            )
            raise TypeError(msg)
        try:
            hash(value)
        except TypeError:
            msg = f"`{name}` must be one model name (a hashable label); got {value!r}."
            raise TypeError(msg) from None
