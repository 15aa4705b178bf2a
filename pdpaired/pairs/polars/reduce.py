"""A polars table as the pandas long table of the pairing layer (a lazy one reduced first).

:func:`to_pandas` is the one way a polars table reaches pandas: an eager frame
whole, a :class:`polars.LazyFrame` through polars' streaming engine, reduced
to the columns and the rows that the pairing reads (see
:mod:`pdpaired.pairs.polars`). :func:`reduced_pairs` goes further for score
mode's common case: it pairs a lazy table in polars, one row per case, and
hands the per-case arrays to the pandas path's last step.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd
import polars as pl

from pdpaired.pairs.columns import Columns
from pdpaired.pairs.pandas.pairing import PairedData, assemble_pairs

__all__ = ["column_names", "model_table", "needed_columns", "reduced_pairs", "to_pandas"]


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


# --------------------------------------------------------------------------- per-case reduction
_LABELS = (pl.String, pl.Categorical, pl.Enum)  # model labels compared with a str
_IDS = (pl.String,)  # case ids, group and stratum labels besides integers


def _is_int(dtype: Any) -> bool:
    return bool(dtype.is_integer())


def _label_ok(dtype: Any, value: Any) -> bool:
    """Whether ``value`` compares with a column of ``dtype`` as pandas compares it."""
    if isinstance(dtype, _LABELS):
        return isinstance(value, str)
    if _is_int(dtype):
        return isinstance(value, int) and not isinstance(value, bool)
    return False


def _reducible(schema: Any, cols: Columns, a: Any, b: Any) -> bool:
    """Whether the per-case reduction applies: score mode, two labels, plain dtypes."""
    if cols.target is not None or cols.prediction is not None or cols.repeat is not None:
        return False
    if cols.factors is not None or len(cols.value_columns()) != 1:
        return False
    names = [cols.case, cols.model, cols.value_columns()[0], *cols.design_columns()]
    if not all(isinstance(n, str) and n in schema for n in names) or len(set(names)) < len(names):
        return False
    if not (_label_ok(schema[cols.model], a) and _label_ok(schema[cols.model], b)):
        return False
    if not all(_is_int(schema[c]) or isinstance(schema[c], _IDS)
               for c in (cols.case, *cols.design_columns())):  # fmt: skip
        return False
    score = schema[cols.value_columns()[0]]
    return bool(_is_int(score) or score.is_float())


def reduced_pairs(
    frame: pl.LazyFrame,
    cols: Columns,
    a: Any,
    b: Any,
    *,
    missing: str,
    fill_value: float | None,
    higher_is_better: bool | None,
) -> PairedData | None:
    """Pair two models' scores in polars' streaming engine, one row per case; None if unsure.

    The common case of score mode (one score column, no runs, no factors) is
    reduced to one row per case in polars: A's and B's rows and score,
    whether a score is missing, the group and stratum values and whether they
    vary. When every pairing rule of
    :func:`pdpaired.pairs.pandas.pairing.pair` certainly holds, the per-case
    arrays go to :func:`~pdpaired.pairs.pandas.pairing.assemble_pairs`, the
    pandas path's last step, so the pairs are the pandas path's; the long
    rows never reach pandas (``source``, for slices, the order of
    ``sequential`` and ``sensitivity``, is read from ``frame`` when first
    used). Otherwise (a rule may be broken, another dtype) it returns None
    and the caller pairs the pruned long table, whose errors name the rule.

    Examples
    --------
    >>> import polars as pl
    >>> from pdpaired.pairs.columns import Columns
    >>> lf = pl.LazyFrame({"case_id": [2, 1, 1, 2, 3], "model": ["a", "a", "b", "b", "c"],
    ...                    "score": [1.0, 0.0, 0.5, 0.2, 9.0]})
    >>> data = reduced_pairs(lf, Columns(group=None, stratum=None), "a", "b",
    ...                      missing="error", fill_value=None, higher_is_better=True)
    >>> data.frame
             a    b
    case_id
    1      0.0  0.5
    2      1.0  0.2


    Under ``missing="error"`` a case with no row of a model breaks a rule: the
    pandas path pairs the long rows and names it.

    >>> reduced_pairs(lf, Columns(group=None, stratum=None), "a", "c",
    ...               missing="error", fill_value=None, higher_is_better=True) is None
    True
    """
    try:
        return _reduced_pairs(frame, cols, a, b, missing, fill_value, higher_is_better)
    except pl.exceptions.PolarsError:  # a comparison polars refuses: pandas says what it is
        return None


def _reduced_pairs(
    frame: pl.LazyFrame,
    cols: Columns,
    a: Any,
    b: Any,
    missing: str,
    fill_value: float | None,
    higher_is_better: bool | None,
) -> PairedData | None:
    schema = frame.collect_schema()
    if not _reducible(schema, cols, a, b):
        return None
    model, score = pl.col(cols.model), cols.value_columns()[0]
    design = list(cols.design_columns())
    x = pl.col(score).cast(pl.Float64)
    is_a, is_b = model == a, model == b
    ab = is_a | is_b
    flags = _collect(
        frame.select(
            pl.col(cols.case).null_count().alias("null_case"),
            pl.col(cols.model).null_count().alias("null_model"),
            is_a.sum().alias("rows_a"),
            is_b.sum().alias("rows_b"),
            (ab & x.is_infinite()).sum().alias("infinite"),
            *[(ab & pl.col(c).is_null()).sum().alias(f"null {c}") for c in design],
        )
    ).row(0, named=True)
    if flags["null_case"] or flags["null_model"] or not (flags["rows_a"] and flags["rows_b"]):
        return None
    if flags["infinite"] or any(flags[f"null {c}"] for c in design):
        return None
    y = pl.when(x.is_nan()).then(None).otherwise(x)  # a missing output: null
    # streaming aggregations only (sums, min, max): with at most one row per (case, model),
    # checked below, the max of A's rows is A's score (null when absent or missing)
    per_case = (
        frame.filter(ab)
        .group_by(cols.case)
        .agg(
            is_a.sum().alias("__rows_a"),
            is_b.sum().alias("__rows_b"),
            (is_a & y.is_not_null()).sum().alias("__out_a"),
            (is_b & y.is_not_null()).sum().alias("__out_b"),
            pl.when(is_a).then(y).max().alias("__a"),
            pl.when(is_b).then(y).max().alias("__b"),
            *[pl.col(c).min() for c in design],
            *[pl.col(c).max().alias(f"__max {c}") for c in design],
        )
        .sort(cols.case)
    )
    wide = _collect(per_case)
    checks = [pl.col("__rows_a").max() <= 1, pl.col("__rows_b").max() <= 1]
    checks += [(pl.col(c) == pl.col(f"__max {c}")).all() for c in design]
    if missing == "error":
        checks += [pl.col("__out_a").min() >= 1, pl.col("__out_b").min() >= 1]
    if not all(wide.select(checks).row(0)):
        return None
    table = wide.select(cols.case, *design).to_pandas()
    values_a = wide.get_column("__a").fill_null(float("nan")).to_numpy().reshape(-1, 1)
    values_b = wide.get_column("__b").fill_null(float("nan")).to_numpy().reshape(-1, 1)
    del wide
    cases = pd.Index(table[cols.case], name=cols.case)
    agreed = [table[c].set_axis(cases) for c in design]
    data = assemble_pairs(
        np.ascontiguousarray(values_a), np.ascontiguousarray(values_b), cases, agreed, cols,
        a, b, missing=missing, fill_value=fill_value, higher_is_better=higher_is_better,
        source=None,
    )  # fmt: skip
    return _with_lazy_source(data, functools.partial(to_pandas, frame, cols, models=[a, b]))


class _ReducedPairs(PairedData):
    """Pairs whose long table (``source``) is read from the polars table when first used."""

    @property  # type: ignore[override]
    def source(self) -> pd.DataFrame | None:
        got = self.__dict__.get("_source")
        load = self.__dict__.get("_load")
        if got is None and load is not None:
            got = self.__dict__["_source"] = load()
        return got

    @source.setter
    def source(self, value: pd.DataFrame | None) -> None:
        self.__dict__["_source"] = value


def _with_lazy_source(data: PairedData, load: Callable[[], pd.DataFrame]) -> PairedData:
    fields = {f.name: getattr(data, f.name) for f in dataclasses.fields(data)}
    out = _ReducedPairs(**fields)
    out.__dict__["_load"] = load
    return out
