"""Formatting shared by the result objects, slices and reports (a leaf module)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["fmt", "jsonable", "level_text"]


def jsonable(x: Any) -> Any:
    """Convert NumPy scalars/arrays to plain Python; non-finite floats become None."""
    if isinstance(x, dict):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return [jsonable(v) for v in x.tolist()]
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        f = float(x)
        return f if math.isfinite(f) else None
    if x is None or isinstance(x, str):
        return x
    return str(x)


def fmt(x: float | None, signed: bool = False, digits: int = 4) -> str:
    """Format a number with ``digits`` significant digits (``signed``: always a sign)."""
    if x is None:
        return "n/a"
    return f"{x:+.{digits}g}" if signed else f"{x:.{digits}g}"


def level_text(confidence_level: float) -> str:
    """Return a confidence level as a percentage: ``0.95`` is ``"95%"``."""
    pct = confidence_level * 100
    return f"{pct:.0f}%" if pct % 1 == 0 else f"{pct:g}%"
