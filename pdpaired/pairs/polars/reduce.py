"""A polars table as the pandas long table of the pairing layer (a lazy one reduced first).

:func:`to_pandas` is the one way a polars table reaches pandas: an eager frame
whole, a :class:`polars.LazyFrame` through polars' streaming engine, reduced
to the columns and the rows that the pairing reads (see
:mod:`pdpaired.pairs.polars`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import pandas as pd
import polars as pl

from pdpaired.pairs.columns import Columns

__all__ = ["column_names", "model_table", "needed_columns", "to_pandas"]


def column_names(frame: pl.DataFrame | pl.LazyFrame) -> list[str]:
    """Return the column names of a polars table (a lazy one's from its schema, nothing read)."""
    if isinstance(frame, pl.LazyFrame):
        return list(frame.collect_schema().names())
    return list(frame.columns)


def needed_columns(cols: Columns, extra: Iterable[Any] = ()) -> list[str]:
    """Return the columns an analysis reads: the configured ones, then ``extra``, once each."""
    names: list[Any] = [cols.case, cols.model, *cols.value_columns(), *cols.design_columns()]
    if cols.target is not None:
        names.append(cols.target)
    if cols.repeat is not None:
        names.append(cols.run)
    names.extend(extra)
    return list(dict.fromkeys(n for n in names if isinstance(n, str)))


def _row_label(names: Sequence[str]) -> str:
    """Return a column name for the row positions that no column of the table has."""
    label = "__pdpaired_row__"
    while label in names:
        label += "_"
    return label


def _collect(query: pl.LazyFrame) -> pl.DataFrame:
    return query.collect(engine="streaming")


def to_pandas(
    frame: pl.DataFrame | pl.LazyFrame,
    cols: Columns,
    *,
    models: Sequence[Any] | None = None,
    extra: Iterable[Any] = (),
) -> pd.DataFrame:
    """Return the pandas long table that the pandas path pairs, as it would pair ``frame``.

    Parameters
    ----------
    frame : polars.DataFrame or polars.LazyFrame
        The long table. An eager frame is converted whole.
    cols : Columns
        The configured columns: a lazy table is read for these and ``extra``.
    models : sequence, optional
        The compared models: a lazy table keeps their rows only (and every
        row with no model or no case id, which the pairing rules name).
        None keeps every row.
    extra : iterable of str
        Other columns the analysis reads (slices, statistics, a task).

    Returns
    -------
    pandas.DataFrame
        The rows, labelled by their position in ``frame``. A configured column
        that ``frame`` lacks gives a table with no rows and every column of
        ``frame``, an absent ``extra`` column the rows with every column, for
        the pandas path to name what is missing and list the table's columns.

    Examples
    --------
    >>> import polars as pl
    >>> from pdpaired.pairs.columns import Columns
    >>> lf = pl.LazyFrame({"case_id": [1, 1, 2, 2], "model": ["a", "c", "a", "b"],
    ...                    "score": [1.0, 0.0, 0.5, 0.2], "note": ["x"] * 4})
    >>> to_pandas(lf, Columns(group=None, stratum=None), models=["a", "b"])
       case_id model  score
    0        1     a    1.0
    2        2     a    0.5
    3        2     b    0.2
    """
    if isinstance(frame, pl.DataFrame):
        return frame.to_pandas()
    names = column_names(frame)
    wanted = needed_columns(cols)
    if not set(wanted) <= set(names):
        return _collect(frame.head(0)).to_pandas()
    keep = needed_columns(cols, extra)
    if not set(keep) <= set(names):  # a column named by the analysis is absent: pandas
        keep = names  # lists the table's columns when it says so (a failing call only)
    row = _row_label(names)
    query = frame.with_row_index(row).select(pl.col(row).cast(pl.Int64), *keep)
    out = None
    if models is not None:
        model, case = pl.col(cols.model), pl.col(cols.case)
        try:  # a model label of another type than the column's: the pandas path says so
            out = _collect(
                query.filter(model.is_in(list(models)) | model.is_null() | case.is_null())
            )
        except (pl.exceptions.PolarsError, TypeError, ValueError):
            out = None
        if out is not None and not set(models) <= set(out.get_column(cols.model).to_list()):
            # a model absent: the pandas path names every model, in the order they appear
            firsts = _collect(query.filter(model.is_first_distinct()))
            out = pl.concat([out, firsts]).unique(row, keep="first").sort(row)
    if out is None:
        out = _collect(query)
    table = out.to_pandas().set_index(row)
    table.index.name = None
    return table


def model_table(frame: pl.DataFrame | pl.LazyFrame, model: str) -> pd.DataFrame:
    """Return each distinct value of the model column once, in order of appearance.

    The table lacks the column when ``frame`` does (the pandas path says so).

    Examples
    --------
    >>> import polars as pl
    >>> model_table(pl.LazyFrame({"model": ["b", "a", "b", None]}), "model")["model"].tolist()
    ['b', 'a', None]
    """
    if model not in column_names(frame):
        return pd.DataFrame(index=pd.RangeIndex(0))
    query = frame.lazy().select(pl.col(model).unique(maintain_order=True))
    return _collect(query).to_pandas()
