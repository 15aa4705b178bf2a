"""Exceptions and warnings raised by pdpaired."""

from __future__ import annotations

import inspect
import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "ArtifactError",
    "DegenerateDataWarning",
    "IndependenceWarning",
    "PairingError",
    "find_stack_level",
]

#: How many offending ids an error message shows; ``failure_cases`` holds all.
MAX_IDS_SHOWN = 10


class PairingError(ValueError):
    """A pairing invariant of the long table is violated.

    Raised before any statistic is computed. The message names the rule, the
    number of offending cases and up to ten of their ids.

    Attributes
    ----------
    rule : str
        Short name of the violated invariant, e.g. ``"unique (case, model)"``.
    failure_cases : pandas.DataFrame
        Every offending case (not only the ten in the message), in pandera's
        layout: ``schema_context, column, check, check_number, failure_case,
        index``, where ``index`` is the case id.
    """

    def __init__(self, message: str, *, rule: str, failure_cases: pd.DataFrame | None = None):
        super().__init__(message)
        self.rule = rule
        self.failure_cases = failure_cases

    def __reduce__(self) -> tuple[Any, ...]:  # keep picklable (multiprocessing, dask)
        return (_rebuild_pairing_error, (str(self), self.rule, self.failure_cases))


def _rebuild_pairing_error(message: str, rule: str, failure_cases: Any) -> PairingError:
    return PairingError(message, rule=rule, failure_cases=failure_cases)


class DegenerateDataWarning(RuntimeWarning):
    """The data are valid but degenerate, e.g. every paired difference is equal."""


class IndependenceWarning(UserWarning):
    """A test that assumes independent pairs is run on clustered cases."""


class ArtifactError(ValueError):
    """A comparison artifact fails its schema or an internal consistency check."""


# Shown (in tracebacks and reprs) under their public names, as numpy does for its own.
for _cls in (PairingError, DegenerateDataWarning, IndependenceWarning, ArtifactError):
    _cls.__module__ = "pdpaired"
del _cls

_PKG_DIR = os.path.dirname(os.path.dirname(__file__)) + os.sep  # the pdpaired package

#: Top-level packages a warning never points into when they stand between pdpaired
#: and the user's code: the libraries that call pdpaired back (pandas and Dask run
#: functions handed to them) or that a user hands pdpaired's functions to.
_PASS_THROUGH = frozenset(
    {"concurrent", "dask", "distributed", "functools", "numpy", "pandas", "pandera", "scipy",
     "threading", "toolz"}
)  # fmt: skip


def find_stack_level() -> int:
    """Return the ``stacklevel`` at which a warning points at the user's line.

    Call it as the argument of the ``warnings.warn`` call it is for, as pandas
    does: ``warnings.warn(message, category, stacklevel=find_stack_level())``.
    The level is computed from the call stack, so it is right whichever front
    end (pandas accessor, :class:`~pdpaired.Comparison`, Dask accessor, CLI)
    and however many internal calls led to the warning.

    Walking out from the caller, frames inside the ``pdpaired`` package (by
    file path, as pandas' ``find_stack_level`` does) and frames of the
    libraries in ``_PASS_THROUGH`` are skipped; the first other frame is the
    user's (a script, a notebook cell, a test). If there is none (a worker
    thread that only runs library and pdpaired code), the warning points at
    the frame just outside the outermost pdpaired frame.

    Returns
    -------
    int
    """
    frame = inspect.currentframe()  # this function's frame: level 0; the warn caller's: 1
    level = outermost = 0
    try:
        while frame is not None:
            if frame.f_code.co_filename.startswith(_PKG_DIR):
                outermost = level
            elif str(frame.f_globals.get("__name__", "")).partition(".")[0] not in _PASS_THROUGH:
                return level
            frame = frame.f_back
            level += 1
    finally:
        del frame  # a frame in a local makes a reference cycle (see the inspect docs)
    return outermost + 1
