"""The columns of a long table: which column holds what, and the missing-outcome policies.

:class:`Columns` holds the resolved names (case id, model, score or target
and prediction columns, group, stratum, repeated runs) a backend reads a
long table with, and :func:`resolve_columns` resolves an accessor's
configuration against a table's columns. Nothing here reads a row: the
pandas and Dask backends, the pairing rules and the front ends share it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = [
    "AUTO",
    "MISSING_POLICIES",
    "REPEATS",
    "Columns",
    "check_factors",
    "check_repeat",
    "resolve_columns",
]

MISSING_POLICIES = ("error", "complete-case", "as-failure")
#: The values of ``repeat``: ``"sample"``, runs nested in cases (independent samples).
REPEATS = ("sample",)


def check_repeat(repeat: Any) -> str | None:
    """Check the ``repeat`` option; return it (None: one row per (case, model))."""
    if repeat is None:
        return None
    if not isinstance(repeat, str) or repeat not in REPEATS:
        msg = (
            f"`repeat` must be None or one of {list(REPEATS)}; got {repeat!r}. "
            "repeat='sample' declares several rows per (case, model), one per run."
        )
        raise ValueError(msg)
    return repeat


def check_factors(factors: Any, repeat: str | None) -> tuple[str, ...] | None:
    """Check the ``factors`` option; return it as a tuple (None: no crossed factors)."""
    if factors is None:
        return None
    if isinstance(factors, str):
        factors = [factors]
    try:
        out = tuple(factors)
    except TypeError:
        out = ()
    if not out or len(set(out)) != len(out) or not all(isinstance(f, str) for f in out):
        msg = (
            "`factors` must be a column name or a list of distinct column names (e.g. "
            f"['seed', 'prompt']); got {factors!r}."
        )
        raise ValueError(msg)
    if repeat is None:
        msg = (
            "`factors` needs repeat='sample': each row is one run of a model on a case, "
            "indexed by the levels of the factors; declare df.paired(repeat='sample', "
            f"factors={list(out)!r})."
        )
        raise ValueError(msg)
    return out


@dataclass(frozen=True, slots=True)
class Columns:
    """Resolved column names of a long table."""

    case: str = "case_id"
    model: str = "model"
    score: str | None = "score"
    group: str | None = None
    stratum: str | None = None
    target: str | None = None
    prediction: tuple[str, ...] | None = None
    repeat: str | None = None  # "sample": several rows per (case, model), one per run
    run: str = "run"  # the run id column (with ``repeat``)
    #: Crossed factors (with ``repeat``): columns whose levels mean the same for every case.
    factors: tuple[str, ...] | None = None

    def design_columns(self) -> list[str]:
        """Group and stratum columns (constant within a case)."""
        return [c for c in (self.group, self.stratum) if c is not None]

    @property
    def prediction_mode(self) -> bool:
        """True when a target and prediction column(s) are configured."""
        return self.prediction is not None

    def value_columns(self) -> list[str]:
        """Return the per-model output columns: the score, or the prediction column(s)."""
        if self.prediction is not None:
            return list(self.prediction)
        return [] if self.score is None else [self.score]


class _Auto:
    """Sentinel: use the default column when the table has it."""

    def __repr__(self) -> str:
        return "<auto>"


AUTO: Any = _Auto()


def resolve_columns(spec: Mapping[str, Any], names: Any) -> Columns:
    """Column names from an accessor's configuration and the table's columns.

    ``group`` and ``stratum`` left at their default mean: that column if the
    table has it (every front end).
    """
    spec = dict(spec)
    for key in ("group", "stratum"):
        value = spec.get(key, AUTO)
        spec[key] = (key if key in names else None) if value is AUTO else value
    pred = spec.get("prediction")
    if isinstance(pred, str):
        pred = (pred,)
    elif pred is not None:
        pred = tuple(pred)
    return Columns(
        case=spec.get("case", "case_id"),
        model=spec.get("model", "model"),
        score=spec.get("score", "score"),
        group=spec["group"],
        stratum=spec["stratum"],
        target=spec.get("target"),
        prediction=pred,
        repeat=spec.get("repeat"),
        run=spec.get("run", "run"),
        factors=spec.get("factors"),
    )
