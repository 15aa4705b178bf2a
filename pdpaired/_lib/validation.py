"""Argument validation at the public boundary (scipy's ``_bootstrap_iv`` pattern)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = [
    "check_choice",
    "check_confidence_level",
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
