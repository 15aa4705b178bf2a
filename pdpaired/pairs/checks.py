"""The table-level pairing checks both backends share.

What a whole table must satisfy besides the per-case rules of
:mod:`pdpaired.pairs.rules`: the configured columns exist and each name picks
one column, a score column is numeric where a backend needs it, models A and
B occur, enough cases are left, groups nest in strata, a slice column is
usable and case ids can be ordered (:func:`sort_cases`). Each failure raises
:class:`~pdpaired.PairingError` naming its rule. The checks read column
names, dtypes and short lists, never a backend's rows, so the in-memory and
the Dask backend call the same functions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from pdpaired._lib.errors import PairingError
from pdpaired.pairs.rules import ids_text, sorted_ids

if TYPE_CHECKING:
    from collections.abc import Sequence

    from pdpaired.pairs.columns import Columns

__all__ = [
    "category_values",
    "check_columns",
    "check_enough_cases",
    "check_groups_nested",
    "check_models_present",
    "check_numeric_column",
    "check_orderable",
    "check_slice_column",
    "check_unique_names",
    "factorize_sorted",
    "sort_cases",
]


def check_columns(df: Any, cols: Columns, *, accessor: str = "df") -> None:
    """Check that the required columns exist (``df``: any frame with ``.columns``)."""
    needed = [cols.case, cols.model, *cols.design_columns(), *cols.value_columns()]
    if cols.target is not None:
        needed.append(cols.target)
    missing = [c for c in needed if c not in df.columns]
    if missing:
        fc = pd.DataFrame(
            {
                "schema_context": "DataFrameSchema",
                "column": missing,
                "check": "column_in_dataframe",
                "check_number": None,
                "failure_case": missing,
                "index": None,
            }
        )
        msg = (
            f"Pairing check failed: rule `required columns` — column(s) {missing} not found; "
            f"the table has {list(df.columns)}. Configure names with "
            f"{accessor}.paired(case=..., model=..., score=..., group=..., stratum=...)"
            + (
                f" or, in prediction mode, {accessor}.paired(target=..., prediction=...)."
                if accessor == "df"
                else "."
            )
        )
        raise PairingError(msg, rule="required columns", failure_cases=fc)
    check_unique_names(df, needed)


def check_unique_names(df: Any, names: Sequence[Any]) -> None:
    """Check that each configured name picks one column (pandas allows duplicate labels)."""
    labels = list(df.columns)
    twice = [c for c in dict.fromkeys(names) if labels.count(c) > 1]
    if twice:
        msg = (
            f"Pairing check failed: rule `unique column names` — column name(s) {twice} "
            f"appear more than once in the table ({labels}), so a name does not pick one "
            "column. Rename or drop the duplicates, e.g. df.loc[:, ~df.columns.duplicated()]."
        )
        raise PairingError(msg, rule="unique column names")


def check_numeric_column(dtype: Any, column: str, *, hint: str) -> None:
    """Check that a score column has a numeric dtype (a backend that needs one)."""
    if not pd.api.types.is_numeric_dtype(dtype):
        msg = (
            f"Pairing check failed: rule `numeric score` — column {column!r} has dtype {dtype}; "
            f"{hint}"
        )
        raise PairingError(msg, rule="numeric score")


def check_models_present(models: Sequence[Any], cols: Columns, a: Any, b: Any) -> None:
    """Check that models A and B occur among the table's ``models``."""
    present = set(models)
    for name, role in ((a, "a"), (b, "b")):
        if name not in present:
            avail = sorted(map(str, models))
            msg = (
                f"Pairing check failed: rule `models present` — model {role.upper()} "
                f"`{role}`={name!r} does not occur in column {cols.model!r}; "
                f"the models in the table are {avail}."
            )
            fc = pd.DataFrame(
                {
                    "schema_context": ["Column"],
                    "column": [cols.model],
                    "check": ["models present"],
                    "check_number": [None],
                    "failure_case": [name],
                    "index": [None],
                }
            )
            raise PairingError(msg, rule="models present", failure_cases=fc)


def check_enough_cases(n: int, a: Any, b: Any, *, minimum: int = 2) -> None:
    """Check that at least ``minimum`` cases are left to analyse."""
    if n < minimum:
        msg = (
            f"Pairing check failed: rule `at least two paired cases` — got {n} "
            f"usable case(s) for {a!r} vs {b!r}."
        )
        raise PairingError(msg, rule="at least two paired cases", failure_cases=None)


def check_groups_nested(groups: Sequence[Any]) -> None:
    """Raise if any group spans several strata (``groups``: those that do)."""
    if len(groups):
        bad = sorted_ids(groups)
        msg = (
            f"Pairing check failed: rule `groups nested in strata` — {len(bad)} "
            f"group(s) span several strata; first groups: {ids_text(bad)}. "
            "Cluster resampling within strata needs every group inside one stratum."
        )
        raise PairingError(msg, rule="groups nested in strata")


def check_slice_column(df: Any, cols: Columns, column: str) -> None:
    """Check that a slice column exists and is neither the case id nor the model column."""
    if column not in df.columns:
        msg = (
            f"Pairing check failed: rule `required columns` — slice column {column!r} not "
            f"found; the table has {list(df.columns)}."
        )
        raise PairingError(msg, rule="required columns")
    check_unique_names(df, [column])
    if column in (cols.case, cols.model):
        msg = f"The case id and model columns cannot be slice columns; got {column!r}."
        raise ValueError(msg)


def check_orderable(ids: pd.Index) -> None:
    """Raise unless the case ids can be sorted (checked without sorting when the dtype says so)."""
    if ids.dtype != object or len(ids) < 2:
        return  # one type: numbers, strings, categories, datetimes all order
    kind = pd.api.types.infer_dtype(ids, skipna=False)
    if kind not in ("mixed", "mixed-integer"):
        return
    try:  # tuples and other objects may still compare: try
        ids.argsort()
    except TypeError as err:
        raise _unsortable_ids() from err


def _unsortable_ids() -> PairingError:
    """Return the error of rule `sortable case ids` (mixed-type ids that do not compare)."""
    msg = (
        "Pairing check failed: rule `sortable case ids` — case ids of mixed types cannot "
        "be ordered; results must not depend on row order, so cast the id column to one type."
    )
    return PairingError(msg, rule="sortable case ids")


def sort_cases(frame: pd.DataFrame, by: str | None = None) -> pd.DataFrame:
    """Sort a per-case frame by case id (its index, or column ``by``), stably."""
    try:
        if by is None:
            return frame.sort_index(kind="stable")
        return frame.sort_values(by, kind="stable")
    except TypeError as err:
        raise _unsortable_ids() from err


def category_values(values: Any) -> Any:
    """Return a categorical Series or Index with its categories sorted; others as given.

    Cases, groups and strata are ordered -- and so read their random streams --
    by their values: a categorical's category order, which pandas sorts and
    factorizes by, is a display choice and must not change a result. The
    codes are renumbered (no label is materialized); categories that cannot be
    sorted (mixed types) give the values as objects, which the pairing refuses
    with its rule for unorderable ids.
    """
    dtype = getattr(values, "dtype", None)
    if not isinstance(dtype, pd.CategoricalDtype):
        return values
    cats = dtype.categories
    try:
        order = np.asarray(cats.argsort(), dtype=np.intp)
    except TypeError:
        plain = np.asarray(values, dtype=object)
    else:
        if np.array_equal(order, np.arange(order.size)):
            return values
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        codes = np.asarray(values.array.codes if isinstance(values, pd.Series) else values.codes)
        new = np.where(codes < 0, -1, rank[np.maximum(codes, 0)])
        plain = pd.Categorical.from_codes(new, categories=cats[order])
    if isinstance(values, pd.Series):
        return pd.Series(plain, index=values.index, name=values.name)
    return pd.Index(plain, name=values.name)


def factorize_sorted(values: Any) -> tuple[np.ndarray, pd.Index]:
    """Return ``pd.factorize(values, sort=True)`` in the order of the values.

    Whatever a categorical's category order (see :func:`category_values`).
    """
    codes, uniques = pd.factorize(category_values(values), sort=True)
    return codes, pd.Index(uniques)
