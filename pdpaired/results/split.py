"""A selection / confirmation split of a table's cases: :class:`SplitResult`.

What ``df.paired.split`` returns: both parts of the table and the record of
how they were drawn, which a confirmation report carries into its artifact.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from pdpaired._lib.format import printable as _printable
from pdpaired._lib.public import public

__all__ = ["SplitResult"]


@public
@dataclass(frozen=True, slots=True, kw_only=True)
class SplitResult:
    """A reproducible split of a table's cases into a selection and a confirmation part.

    Choose on :attr:`selection` (with ``select_best`` or by any means), then
    compare the chosen candidate on :attr:`confirmation`: that comparison is
    a fresh, fixed one, and ``cmp.report(..., split=this)`` records this
    split in its artifact (:meth:`record`).

    Attributes
    ----------
    selection, confirmation : pandas.DataFrame
        The rows of each part (whole cases; whole groups with ``by``), in
        the table's row order; the caller's table is not modified.
    fraction : float
        The share of units (cases, or groups) asked for the selection part.
    by : str or None
        The group column whose groups were kept whole.
    stratify : str or None
        The column within whose values the fraction was applied.
    case : str
        The case-id column.
    seed : int or None
        ``rng=seed`` reproduces the split (None when a Generator was given).
    n_selection_cases, n_confirmation_cases : int
    n_selection_units, n_confirmation_units : int
        Cases, or groups with ``by``.
    selection_ids_sha256, confirmation_ids_sha256 : str
        SHA-256 of each part's sorted case ids (as an artifact's
        ``aligned_ids_sha256``).
    """

    selection: pd.DataFrame = field(repr=False, compare=False)
    confirmation: pd.DataFrame = field(repr=False, compare=False)
    fraction: float
    by: str | None
    stratify: str | None
    case: str
    seed: int | None
    n_selection_cases: int
    n_confirmation_cases: int
    n_selection_units: int
    n_confirmation_units: int
    selection_ids_sha256: str
    confirmation_ids_sha256: str

    def record(self, *, kind: str = "local") -> dict[str, Any]:
        """Return how the split was made, as an artifact records it (JSON-safe).

        ``"local"`` adds the digests of each part's case ids; ``"shareable"``
        holds only the rule and the counts.
        """
        out: dict[str, Any] = {
            "fraction": float(self.fraction),
            "by": self.by,
            "stratify": self.stratify,
            "seed": self.seed,
            "n_selection_cases": int(self.n_selection_cases),
            "n_confirmation_cases": int(self.n_confirmation_cases),
            "n_selection_units": int(self.n_selection_units),
            "n_confirmation_units": int(self.n_confirmation_units),
        }
        if kind == "local":
            out["selection_ids_sha256"] = self.selection_ids_sha256
            out["confirmation_ids_sha256"] = self.confirmation_ids_sha256
        return out

    def __str__(self) -> str:
        unit = f", whole groups of {self.by!r}" if self.by else ""
        within = f", within each value of {self.stratify!r}" if self.stratify else ""
        return _printable(
            f"Split of {self.n_selection_cases + self.n_confirmation_cases} cases{unit}"
            f"{within} (fraction {self.fraction:g}, seed {self.seed}): selection "
            f"{self.n_selection_cases} cases ({self.n_selection_units} units), confirmation "
            f"{self.n_confirmation_cases} cases ({self.n_confirmation_units} units)"
        )

    def _repr_html_(self) -> str:
        return f"<p>{html.escape(str(self))}</p>"
