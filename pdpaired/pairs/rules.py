"""The pairing rules, written once for every backend.

A backend (the in-memory pandas path of :mod:`pdpaired.pairs.pandas.pairing`, or
the Dask one of :mod:`pdpaired.pairs.dask`) reduces A's and B's rows to one **per-case summary**
(:func:`case_summary`), and :func:`pairing_schemas` builds the pandera schemas
that check it. The summary is indexed by case id, so pandera's
``failure_cases["index"]`` is the case id; Dask validates it partition by
partition (:func:`failure_table` through ``map_partitions``, as pandera does
for Dask itself) and concatenates the failure tables, so both backends report
every offending case. :func:`raise_failures` turns a failure table into the
:class:`~pdpaired.PairingError` that names each rule, how many cases break it
and the ten smallest ids.

The summary's columns, one row per case (``v`` an output column: the score or
each prediction column; ``c`` a column that must agree within a case):

=====================  =====  ==================================================
column                 dtype  meaning
=====================  =====  ==================================================
``rows_a``             int32  rows of model A
``rows_b``             int32  rows of model B
``outputs_a``          int32  rows of A whose outputs are all present (not NaN)
``outputs_b``          int32  rows of B whose outputs are all present
``non_numeric {v}``    int32  rows of A or B whose ``v`` is not a number
``infinite {v}``       int32  rows of A or B whose ``v`` is +-inf
``null {c}``           int32  rows of A or B whose ``c`` is missing
``varies {c}``         bool   ``c`` differs between the rows of A and B
=====================  =====  ==================================================

The checks run in three stages, each reported on its own and in this order
(a later stage is read only when the earlier ones pass): usable values
(numeric, finite outputs; agreed columns present), then the case structure
(one row per model; agreed columns constant), then, under
``missing="error"``, the missing outcomes (a case with no row, or a NaN
output, for one model).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from pdpaired._lib.errors import MAX_IDS_SHOWN, PairingError
from pdpaired._lib.validation import plain

if TYPE_CHECKING:
    from collections.abc import Callable

    from pdpaired.pairs.columns import Columns

__all__ = [
    "FAILURE_COLUMNS",
    "SummaryLayout",
    "case_summary",
    "failure_table",
    "ids_text",
    "pairing_schemas",
    "raise_failures",
    "raise_schema_errors",
    "sorted_ids",
]

#: pandera's failure table columns (``index`` holds the case id).
FAILURE_COLUMNS = ("schema_context", "column", "check", "check_number", "failure_case", "index")


# --------------------------------------------------------------------------- layout
@dataclass(frozen=True, slots=True)
class SummaryLayout:
    """Which columns a per-case summary describes, and so which rules apply.

    ``outputs`` are the output columns (the score, or the prediction
    columns); ``target`` and ``design`` must be present and agree within a
    case; ``slices`` must agree within a case (a missing value is a level).
    """

    outputs: tuple[str, ...] = ()
    target: str | None = None
    design: tuple[str, ...] = ()
    slices: tuple[str, ...] = ()
    prediction_mode: bool = False

    @classmethod
    def of(cls, cols: Columns) -> SummaryLayout:
        """Return the layout of a comparison's columns."""
        return cls(
            outputs=tuple(cols.value_columns()),
            target=cols.target,
            design=tuple(cols.design_columns()),
            prediction_mode=cols.prediction_mode,
        )

    @property
    def agree(self) -> tuple[str, ...]:
        """Columns that must be present and agree between A's and B's row of a case."""
        return self.design if self.target is None else (self.target, *self.design)

    def columns(self) -> dict[str, Any]:
        """Return the summary's column names and dtypes, in order.

        Counts are int32 (a case has far fewer than 2**31 rows; half the memory
        of int64 at 1e7 cases).
        """
        out: dict[str, Any] = {}
        if self.outputs:  # (a slice column's summary holds its own column only)
            out.update(dict.fromkeys(("rows_a", "rows_b", "outputs_a", "outputs_b"), np.int32))
        for v in self.outputs:
            out[f"non_numeric {v}"] = np.int32
            out[f"infinite {v}"] = np.int32
        for c in self.agree:
            out[f"null {c}"] = np.int32
        for c in (*self.agree, *self.slices):
            out[f"varies {c}"] = np.bool_
        return out


def case_summary(
    layout: SummaryLayout,
    index: pd.Index,
    counts: Mapping[str, Any],
) -> pd.DataFrame:
    """Assemble a per-case summary in the layout's column order and dtypes.

    ``counts`` maps every column of ``layout.columns()`` to an array aligned
    with ``index`` (the case ids); a scalar is broadcast (a backend that
    cannot hold a kind of violation passes 0 or False).
    """
    n = len(index)
    data = {}
    for name, dtype in layout.columns().items():
        value = counts[name]
        arr = np.asarray(value)
        data[name] = (
            np.full(n, arr, dtype=dtype) if arr.ndim == 0 else arr.astype(dtype, copy=False)
        )
    return pd.DataFrame(data, index=index, copy=False)  # one block per column: no copy


# --------------------------------------------------------------------------- schemas
def _check(fn: Callable[[pd.Series], Any], rule: str) -> Any:
    import pandera.pandas as pa

    return pa.Check(fn, name=rule, error=rule, ignore_na=False)


def _at_most_one(s: pd.Series) -> pd.Series:
    return s <= 1


def _at_least_one(s: pd.Series) -> pd.Series:
    return s >= 1


def _zero(s: pd.Series) -> pd.Series:
    return s == 0


def _false(s: pd.Series) -> pd.Series:
    return ~s.astype(bool)


def pairing_schemas(
    layout: SummaryLayout, a: Any, b: Any, *, missing: str = "error"
) -> tuple[Any, ...]:
    """Return the pandera schemas of the per-case summary, one per stage, in order.

    Every pairing rule of a per-case summary is here, with its name; both
    backends validate their summaries with these schemas.
    """
    import pandera.pandas as pa

    what = "prediction" if layout.prediction_mode else "score"
    values: dict[str, Any] = {}
    for v in layout.outputs:
        values[f"non_numeric {v}"] = pa.Column(checks=_check(_zero, f"numeric {what}"))
        values[f"infinite {v}"] = pa.Column(
            checks=_check(_zero, f"finite {what} (NaN marks a missing output)")
        )
    for c in layout.agree:
        values[f"null {c}"] = pa.Column(checks=_check(_zero, f"`{c}` not missing"))
    cases: dict[str, Any] = {}
    if layout.outputs:
        unique = _check(_at_most_one, "unique (case, model)")
        cases.update({"rows_a": pa.Column(checks=unique), "rows_b": pa.Column(checks=unique)})
    for c in layout.agree:
        rule = (
            f"target `{c}` agrees between A and B"
            if c == layout.target
            else f"`{c}` constant within a case"
        )
        cases[f"varies {c}"] = pa.Column(checks=_check(_false, rule))
    for c in layout.slices:
        cases[f"varies {c}"] = pa.Column(
            checks=_check(_false, f"slice `{c}` constant within a case")
        )
    stages = [values, cases]
    if missing == "error" and layout.outputs:
        stages.append(
            {
                "outputs_a": pa.Column(
                    checks=_check(_at_least_one, f"missing outcome for A ({a})")
                ),
                "outputs_b": pa.Column(
                    checks=_check(_at_least_one, f"missing outcome for B ({b})")
                ),
            }
        )
    return tuple(pa.DataFrameSchema(stage) for stage in stages if stage)


# --------------------------------------------------------------------------- failures
def failure_table(summary: pd.DataFrame, schema: Any) -> pd.DataFrame:
    """Validate (a partition of) a summary lazily; return pandera's table of every failure.

    The table is empty when the summary passes. Its columns are
    :data:`FAILURE_COLUMNS` (object dtype), ``index`` the case id; pandera's
    built-in null check is named after the column it guards.
    """
    import pandera.pandas as pa

    try:  # inplace: the schemas coerce nothing, so pandera need not copy the summary
        schema.validate(summary, lazy=True, inplace=True)
    except pa.errors.SchemaErrors as err:
        return _normalized(err.failure_cases)
    return pd.DataFrame({c: pd.Series([], dtype=object) for c in FAILURE_COLUMNS})


def _normalized(fc: pd.DataFrame) -> pd.DataFrame:
    fc = fc.loc[:, list(FAILURE_COLUMNS)].astype(object)
    builtin = fc["check"] == "not_nullable"
    fc.loc[builtin, "check"] = "no missing " + fc.loc[builtin, "column"].astype(str)
    return fc.reset_index(drop=True)


def sorted_ids(values: Sequence[Any]) -> list[Any]:
    """Sort ids (by their text when they do not compare, e.g. mixed types)."""
    values = list(values)
    try:
        return sorted(values)
    except TypeError:
        return sorted(values, key=str)


def ids_text(ids: Sequence[Any]) -> str:
    """Format up to ten ids, saying how many more there are."""
    ids = list(ids)
    total = len(ids)
    shown = ", ".join(repr(plain(i)) for i in ids[:MAX_IDS_SHOWN])
    more = f", ... ({total - MAX_IDS_SHOWN} more)" if total > MAX_IDS_SHOWN else ""
    return f"[{shown}{more}]"


def _in_order(fc: pd.DataFrame, schema: Any) -> pd.DataFrame:
    """Failures ordered by the schema's columns and checks, then by id (row order free)."""
    position = {name: i for i, name in enumerate(schema.columns)}
    col = fc["column"].map(lambda c: position.get(c, -1)).to_numpy(np.int64)
    num = pd.to_numeric(fc["check_number"], errors="coerce").fillna(-1).to_numpy(np.int64)
    ids = fc["index"]
    order = {v: i for i, v in enumerate(sorted_ids(pd.unique(ids.dropna())))}
    rank = ids.map(lambda v: order.get(v, -1)).to_numpy(np.int64)
    keep = np.lexsort((rank, num, col))
    return fc.iloc[keep].reset_index(drop=True)


def _bad_values(frame: pd.DataFrame | None, column: str) -> str:
    """Return the dtype of ``column`` and a few of its values that are not numbers."""
    if frame is None or column not in frame.columns:
        return ""
    s = frame[column]
    bad = s[~s.map(lambda x: x is None or x is pd.NA or (
        isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool)
    )).to_numpy(dtype=bool)]  # fmt: skip
    values = sorted({repr(plain(v)) for v in pd.unique(bad)})  # independent of row order
    shown = ", ".join(values[:5]) + (", ..." if len(values) > 5 else "")
    return f" (column {column!r} has dtype {s.dtype}; offending values: {shown})"


def _hint(rule: str, columns: Sequence[str], frame: pd.DataFrame | None) -> str:
    """Return what to do about a violated rule (empty when there is nothing specific to say)."""
    if rule.startswith("missing outcome for"):
        return (
            " A case with no row, or a NaN output, for one model is a missing outcome: "
            "declare a policy with missing='complete-case' (drop those cases for both "
            "models; the estimand changes) or missing='as-failure' (fill them with "
            "fill_value=...; 0/1 scores default to the worse value), or fix the table"
        )
    if rule.startswith("numeric"):
        details = "".join(_bad_values(frame, c.removeprefix("non_numeric ")) for c in columns)
        return (
            f"{details} Convert the column to numbers first, e.g. "
            "df['score'] = pd.to_numeric(df['score'], errors='coerce') (anything else becomes "
            "NaN, a missing outcome) or df['score'].map({'yes': 1, 'no': 0})"
        )
    if rule.startswith("finite"):  # the values are +-inf (both backends say the same)
        return (
            " Replace infinities, e.g. df['score'].replace([np.inf, -np.inf], np.nan) "
            "(they become missing outcomes, handled by the missing= policy)"
        )
    if rule == "unique (case, model)":
        return (
            " Each case needs one row per model: check that the id column is right "
            "(df.paired(case=...)); if the rows are repeated runs (several samples, seeds or "
            "epochs per case), declare them with df.paired(repeat='sample', run='run') "
            "(a case's score is then the mean over its runs)"
        )
    if rule == "unique (case, model, run)":
        return (
            " With repeat='sample' each row is one run: a (case, model) pair may have several "
            "rows, but each needs its own run id; check the run column (df.paired(run=...))"
        )
    if rule.startswith("missing run for"):
        return (
            " A run with a NaN score is a missing outcome at the run level: declare a policy "
            "with missing='complete-case' (drop those runs; a case left with no run for a "
            "model is dropped for both models) or missing='as-failure' (fill them with "
            "fill_value=...; 0/1 scores default to the worse value), or fix the table"
        )
    if "agrees between A and B" in rule or "constant within a case" in rule:
        return (
            " A case's rows must agree on it: check that the id column pairs the right rows "
            "(df.paired(case=...))"
        )
    if rule.startswith("no missing") or rule.endswith("not missing"):
        return (
            " Drop or fill those rows first (df.dropna(subset=[...])), or name the right "
            "columns with df.paired(case=..., model=...)"
        )
    return ""


def raise_failures(
    fc: pd.DataFrame,
    schema: Any = None,
    *,
    what: str = "case",
    cause: BaseException | None = None,
    frame: pd.DataFrame | None = None,
) -> None:
    """Raise the :class:`~pdpaired.PairingError` of a non-empty failure table.

    The message names each rule, the number of offending cases and the ten
    smallest ids, then what to do about it (for non-numeric or infinite
    outputs, the column's dtype and a few offending values of ``frame``,
    the rows checked, when given); ``failure_cases`` holds every row of
    ``fc`` (ordered by the schema's rules, then by id). Does nothing when
    ``fc`` is empty.

    The error is raised ``from None``: pandera's own error (``cause``, a
    long JSON report) is not chained, because ``failure_cases`` holds its
    whole table.
    """
    del cause  # its failure table is ``fc``
    if not len(fc):
        return
    if schema is not None:
        fc = _in_order(fc, schema)
    label = "first ids" if what == "case" else "first row labels"
    parts: list[str] = []
    rules: list[str] = []
    for rule, sub in fc.groupby("check", sort=False):
        ids = sorted_ids(pd.unique(sub["index"].dropna()))
        rules.append(str(rule))
        hint = _hint(str(rule), [str(c) for c in pd.unique(sub["column"])], frame)
        details, _, hint = hint.partition(")") if hint.startswith(" (") else ("", "", hint)
        details += ")" if details else ""  # the dtype and values, before the full stop
        if ids:
            parts.append(
                f"rule `{rule}` is violated by {len(ids)} {what}(s); {label}: {ids_text(ids)}"
                f"{details}." + hint
            )
        else:
            parts.append(
                f"rule `{rule}` is violated: {list(sub['failure_case'])[:MAX_IDS_SHOWN]}"
                f"{details}." + hint
            )
    msg = (
        "Pairing check failed: "
        + " ".join(p if p.endswith(".") else p + "." for p in parts)
        + " See `.failure_cases` for all of them."
    )
    raise PairingError(msg, rule="; ".join(rules), failure_cases=fc) from None


def raise_schema_errors(err: Exception, *, what: str = "case") -> None:
    """Re-raise pandera's ``SchemaErrors`` as a :class:`~pdpaired.PairingError`."""
    fc: pd.DataFrame = err.failure_cases  # type: ignore[attr-defined]
    raise_failures(_normalized(fc), what=what, cause=err)
