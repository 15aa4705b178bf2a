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
        The rows, labelled by their position in ``frame`` where a pairing rule
        may name rows (0, 1, ... otherwise: the labels of the rows kept, as a
        pandas table of those rows would have them). A configured column
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
    1        2     a    0.5
    2        2     b    0.2

    A row with no case id is named by its position, as pandas names it:

    >>> lf = lf.with_columns(pl.when(pl.col("model") == "b").then(None)
    ...                      .otherwise(pl.col("case_id")).alias("case_id"))
    >>> to_pandas(lf, Columns(group=None, stratum=None), models=["a", "b"]).index.tolist()
    [0, 2, 3]
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
    if models is None:  # every row, in order: the row labels are 0, 1, ...
        return _collect(frame.select(keep)).to_pandas()
    try:
        return _compared_rows(frame, cols, models, keep, names)
    except (pl.exceptions.PolarsError, TypeError, ValueError):
        # a model label of another type than the column's: every row, for the pandas
        # path to say that the model does not occur (its labels 0, 1, ...: every row)
        return _collect(frame.select(keep)).to_pandas()


def _compared_rows(
    frame: pl.LazyFrame, cols: Columns, models: Sequence[Any], keep: list[str], names: list[str]
) -> pd.DataFrame:
    """Return the rows of ``models`` and the rows with no model or no case id."""
    model, case = pl.col(cols.model), pl.col(cols.case)
    wanted_rows = model.is_in(list(models)) | model.is_null() | case.is_null()
    out = _collect(frame.select(keep).filter(wanted_rows))
    # the rows kept are labelled 0, 1, ... unless a rule will name rows (a missing case,
    # model or run id: the pandas path names their labels) or every model (one is absent)
    ids = [c for c in (cols.case, cols.model, cols.run if cols.repeat else None) if c in keep]
    absent = not set(models) <= set(out.get_column(cols.model).unique().to_list())
    if not absent and not any(out.get_column(c).null_count() for c in ids):
        return out.to_pandas()
    del out
    row = _row_label(names)
    query = frame.with_row_index(row).select(pl.col(row).cast(pl.Int64), *keep)
    out = _collect(query.filter(wanted_rows))
    if absent:  # the pandas path names every model, in the order they appear
        firsts = _collect(query.filter(model.is_first_distinct()))
        out = pl.concat([out, firsts]).unique(row, keep="first").sort(row)
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
    ['b', 'a', nan]
    """
    if model not in column_names(frame):
        return pd.DataFrame(index=pd.RangeIndex(0))
    query = frame.lazy().select(pl.col(model).unique(maintain_order=True))
    return _collect(query).to_pandas()
