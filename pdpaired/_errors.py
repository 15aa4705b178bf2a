"""Exceptions and warnings raised by pdpaired."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ArtifactError", "DegenerateDataWarning", "IndependenceWarning", "PairingError"]

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
