"""What both log readers share: the path argument and a record's score as a number.

:mod:`pdpaired.io.lm_eval` and :mod:`pdpaired.io.inspect_ai` take a file, a
directory or a list of them (:data:`PathArg`, spread by :func:`as_paths`) and
turn each record's score into a float or None (:func:`as_number`), so that both
formats refuse an empty list and a non-numeric score in the same words.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["PathArg", "as_number", "as_paths"]

PathArg = str | os.PathLike[str] | Sequence[str | os.PathLike[str]]


def as_paths(path: PathArg) -> list[Path]:
    """Return the paths a ``path`` argument names: the one given, or the list (not empty)."""
    if isinstance(path, (str, os.PathLike)):
        return [Path(path)]
    paths = [Path(p) for p in path]
    if not paths:
        msg = "`path` is an empty list; give a file, a directory or a list of files."
        raise ValueError(msg)
    return paths


def as_number(value: Any) -> float | None:
    """Return a record's score as a float (None: no score).

    ``TypeError`` if it is not a number, ``ValueError`` if it is an integer
    beyond float64's range (a JSON integer has no size limit).
    """
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_, int, float, np.integer, np.floating)):
        try:
            f = float(value)
        except OverflowError:
            msg = f"the integer score {str(value)[:12]}... is beyond float64's range (1.8e308)"
            raise ValueError(msg) from None
        return None if math.isnan(f) else f
    raise TypeError(type(value).__name__)
