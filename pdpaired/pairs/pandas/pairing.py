"""The in-memory pairing: a pandas long table turned into validated, aligned pairs.

Turns a long table ``(case, model, score[, group, stratum])`` into validated,
aligned pairs sorted by case id. The rows are reduced to the per-case summary
of :mod:`pdpaired.pairs.rules` and checked by its pandera schemas (the ones the Dask
path uses too), run lazily so that all violations of a stage are reported
together; a violation raises :class:`~pdpaired.PairingError` naming the rule,
the number of offending cases and the ten smallest ids, with pandera's full
``failure_cases`` table attached. The checks of the whole table (columns,
models present, enough cases) are :mod:`pdpaired.pairs.checks`'; ids and
labels not missing are checked here. :func:`pair` pairs two models,
:func:`pair_many` several at once, and both end in :func:`assemble_pairs`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from pdpaired.pairs.checks import (
    category_values,
    check_columns,
    check_enough_cases,
    check_models_present,
    check_orderable,
    check_slice_column,
    factorize_sorted,
    sort_cases,
)
from pdpaired.pairs.columns import Columns
from pdpaired.pairs.rules import (
    SummaryLayout,
    case_summary,
    failure_table,
    pairing_schemas,
    raise_failures,
    raise_schema_errors,
)
from pdpaired.pairs.units import grid_exponent
from pdpaired.results.missing import MissingSummary

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = [
    "PairedData",
    "assemble_pairs",
    "case_codes",
    "check_summary",
    "pair",
    "pair_many",
    "pairs_grid",
    "slice_values",
    "sorted_codes",
    "summarize",
]


@dataclass(frozen=True, eq=False)
class PairedData:
    """Validated pairs: one row per case.

    ``table`` holds the cases in any order (as pairing found them);
    :attr:`frame` is the same table sorted by case id, sorted on first use.
    Order-free reductions (sums, counts, group totals) read ``table`` and
    never pay for the sort; anything whose result depends on the order of
    the cases (resampling cases, the pairs shown to users, a report's
    digests) reads ``frame``, so results never depend on row order.
    """

    table: pd.DataFrame  # index: case id; columns: [target,] a, b, then design columns
    a: str
    b: str
    columns: Columns
    missing: MissingSummary
    binary: bool
    values_a: np.ndarray | None = None  # prediction mode: (n,) or (n, K) outputs of A, sorted
    values_b: np.ndarray | None = None
    source: pd.DataFrame | None = None  # the caller's long table (read only, for slices)
    scale_exp: int = 0  # score mode: fixed-point grid 2**-k of the exact sums (see _units)

    @cached_property
    def frame(self) -> pd.DataFrame:
        """The pairs sorted by case id (stably; computed once)."""
        if self.table.index.is_monotonic_increasing:
            return self.table
        return sort_cases(self.table)

    def subset(self, mask: np.ndarray) -> PairedData:
        """Return the same pairs restricted to the cases where ``mask`` (on ``frame``) is True."""
        frame = self.frame.loc[mask]
        scale_exp = 0
        if self.values_a is None:  # score mode: the subset's own grid
            scale_exp = pairs_grid(*(frame[c].to_numpy(np.float64) for c in (self.a, self.b)))
        return PairedData(
            table=frame,
            a=self.a,
            b=self.b,
            columns=self.columns,
            missing=self.missing,
            binary=self.binary,
            values_a=None if self.values_a is None else self.values_a[mask],
            values_b=None if self.values_b is None else self.values_b[mask],
            source=self.source,
            scale_exp=scale_exp,
        )


# --------------------------------------------------------------------------- errors
def _validate(schema: Any, frame: pd.DataFrame, *, what: str = "case") -> None:
    import pandera.pandas as pa

    try:
        schema.validate(frame, lazy=True)
    except pa.errors.SchemaErrors as err:
        raise_schema_errors(err, what=what)


def check_summary(
    summary: pd.DataFrame, schemas: Sequence[Any], frame: pd.DataFrame | None = None
) -> None:
    """Validate an in-memory per-case summary, stage by stage (see :mod:`pdpaired.pairs.rules`).

    ``frame``: the rows summarized, for the offending values an error shows.
    """
    for schema in schemas:
        raise_failures(failure_table(summary, schema), schema, frame=frame)


# --------------------------------------------------------------------------- rows to cases
def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool)


def _numeric_values(s: pd.Series) -> np.ndarray:
    """Flag values that are numbers or missing (NaN/None)."""
    if pd.api.types.is_numeric_dtype(s.dtype):
        return np.ones(len(s), dtype=bool)
    flags: np.ndarray = s.map(lambda x: x is None or x is pd.NA or _is_number(x)).to_numpy(bool)
    return flags


def _float_values(s: pd.Series) -> np.ndarray:
    """Return a numeric column as float64, NaN for missing (a float64 column is read in place)."""
    if s.dtype == np.float64:
        values: np.ndarray = s.to_numpy()  # no copy: a 2e7-row score column is 160 MB
    else:
        values = s.to_numpy(dtype=np.float64, na_value=np.nan)
    return values


def _infinite_values(s: pd.Series, numeric: np.ndarray) -> np.ndarray:
    """Flag values that are +-inf (non-numbers are not)."""
    if not numeric.all():
        s = s.where(numeric)
    flags: np.ndarray = np.isinf(_float_values(pd.to_numeric(s, errors="coerce")))
    return flags


def _first_rows(codes: np.ndarray) -> np.ndarray:
    """Position of each case's first row (codes numbered in order of first appearance)."""
    if not len(codes):
        return np.zeros(0, dtype=np.int64)
    top = np.maximum.accumulate(codes)
    new = np.empty(len(codes), dtype=bool)
    new[0] = True
    np.greater(top[1:], top[:-1], out=new[1:])
    return np.flatnonzero(new)


def case_codes(ids: pd.Series) -> tuple[np.ndarray, pd.Index, np.ndarray]:
    """Factorize case ids once (one hash pass over the rows).

    Returns each row's case code (cases numbered in order of first
    appearance), the distinct ids in that order and each case's first row.
    Nothing is sorted here: :attr:`PairedData.frame` sorts the cases when an
    analysis needs their order, and order-free ones never do.

    Raises
    ------
    PairingError
        When the ids cannot be ordered (mixed types): results must not
        depend on row order, and the order of the cases is their ids'.
    """
    ids = category_values(ids)
    dense = _dense_int_codes(ids)
    if dense is not None:  # integer ids in a narrow range: sorted codes in O(n)
        codes, uniques = dense
        row = np.int32 if len(codes) < 2**31 - 1 else np.intp
        first = np.full(len(uniques), len(codes), dtype=row)
        np.minimum.at(first, codes, np.arange(len(codes), dtype=row))
        return codes, pd.Index(uniques, name=ids.name), first
    codes, uniques = pd.factorize(ids)
    check_orderable(uniques)
    if len(uniques) < 2**31 - 1:  # half the memory of intp for every later gather
        codes = codes.astype(np.int32)
    return codes, pd.Index(uniques, name=ids.name), _first_rows(codes)


def sorted_codes(values: pd.Series) -> tuple[np.ndarray, pd.Index]:
    """Return int64 codes numbering a column's values in sorted order, and the sorted labels.

    ``pd.factorize(values, sort=True)``, but integer columns in a narrow range
    (group and stratum numbers) are ranked through a presence table: no hash
    table sized by the number of cases (factorize peaks at five times the
    codes' memory). Missing values are not expected (the pairing
    rules refuse them).
    """
    dense = _dense_int_codes(values)  # (never a categorical: not an integer dtype)
    if dense is not None:
        codes, uniques = dense
        return codes.astype(np.int64), pd.Index(uniques, name=values.name)
    codes, labels = factorize_sorted(values)
    return codes.astype(np.int64, copy=False), labels


def _dense_int_codes(ids: pd.Series) -> tuple[np.ndarray, np.ndarray] | None:
    """Codes numbering integer ids in sorted order, without hashing; None if not applicable.

    For an int64 (or narrower) id column whose values span at most four times
    as many integers as there are rows -- ids 0 .. n-1, or any numbering with
    few gaps -- a presence table gives every id its rank directly.
    """
    dtype = ids.dtype
    if not (isinstance(dtype, np.dtype) and dtype.kind in "iu") or len(ids) == 0:
        return None
    x = ids.to_numpy()
    lo, hi = int(x.min()), int(x.max())
    if hi - lo >= 4 * len(x) + 1024:
        return None
    offset = (x - lo).astype(np.intp, copy=False)
    present = np.zeros(hi - lo + 1, dtype=bool)
    present[offset] = True
    rank = np.cumsum(present, dtype=np.int32 if hi - lo < 2**31 - 1 else np.int64) - 1
    uniques = (np.flatnonzero(present) + lo).astype(dtype)
    return rank[offset], uniques


def _varies(values: pd.Series, codes: np.ndarray, first: np.ndarray) -> np.ndarray:
    """Per case: whether any row's value differs from its first row's (NaN is a value)."""
    dtype = values.dtype
    if isinstance(dtype, np.dtype) and dtype.kind in "iub":  # no missing value: compare directly
        v = values.to_numpy()
    else:  # labels of any kind, missing ones included: compare their codes
        v, _ = pd.factorize(values, use_na_sentinel=False)
    return np.bincount(codes[v != v[first][codes]], minlength=len(first)) > 0


def summarize(
    ab: pd.DataFrame,
    cols: Columns,
    is_a: np.ndarray,
    layout: SummaryLayout,
    *,
    case: tuple[np.ndarray, pd.Index, np.ndarray] | None = None,
) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """Reduce A's and B's rows to the per-case summary of :mod:`pdpaired.pairs.rules` (in memory).

    ``is_a`` flags A's rows (the others are B's). Returns the summary (cases
    in order of first appearance), each row's case code (in that order) and
    each case's first row. ``case``: :func:`case_codes` of the rows, when
    the caller has it already.
    """
    codes, index, first = case_codes(ab[cols.case]) if case is None else case
    n = len(index)

    def count(rows: np.ndarray | None) -> np.ndarray | int:
        """Rows per case where ``rows`` (all rows: None); 0 when no row is flagged.

        int32, the summary's dtype (see :mod:`pdpaired.pairs.rules`); a 0 is
        broadcast by the summary, so a rule nobody breaks costs no pass.
        """
        if rows is None:
            return np.bincount(codes, minlength=n).astype(np.int32)
        if not rows.any():
            return 0
        return np.bincount(codes[rows], minlength=n).astype(np.int32)

    missing = np.zeros(len(ab), dtype=bool)
    counts: dict[str, Any] = {}
    for v in layout.outputs:
        numeric = _numeric_values(ab[v])
        missing |= ab[v].isna().to_numpy(dtype=bool)
        counts[f"non_numeric {v}"] = count(~numeric)
        counts[f"infinite {v}"] = count(_infinite_values(ab[v], numeric))
    if layout.outputs:
        rows_a = count(is_a)
        rows_b = count(None) - rows_a
        counts.update(rows_a=rows_a, rows_b=rows_b)
        if missing.any():
            present_a = count(is_a & ~missing)
            counts.update(outputs_a=present_a, outputs_b=count(~missing) - present_a)
        else:  # every row's outputs are present
            counts.update(outputs_a=rows_a, outputs_b=rows_b)
    for c in layout.agree:
        counts[f"null {c}"] = count(ab[c].isna().to_numpy(dtype=bool))
    for c in (*layout.agree, *layout.slices):
        counts[f"varies {c}"] = _varies(ab[c], codes, first)
    return case_summary(layout, index, counts), codes, first


def pair(
    df: pd.DataFrame,
    cols: Columns,
    a: str,
    b: str,
    *,
    missing: str = "error",
    fill_value: float | None = None,
    higher_is_better: bool | None = None,
) -> PairedData:
    """Validate a long table and return aligned pairs.

    Parameters
    ----------
    df : DataFrame
        Long table, one row per (case, model). Never modified.
    cols : Columns
    a, b : str
        Model names (A is the candidate; improvement > 0 means A is better).
    missing : {"error", "complete-case", "as-failure"}
    fill_value : float, optional
        Value for missing outputs under ``"as-failure"``.
    higher_is_better : bool, optional
        Needed to choose the default fill value of binary scores.

    Returns
    -------
    PairedData
    """
    import pandera.pandas as pa

    check_columns(df, cols)
    values = cols.value_columns()
    design = cols.design_columns()
    # columns that must agree between A's and B's row of a case
    agree = design if cols.target is None else [cols.target, *design]
    used = list(dict.fromkeys([cols.case, cols.model, *values, *agree]))
    long = df.loc[:, used]  # a new frame; the caller's is never touched

    # 1. row level: ids and labels present (rows have no case id yet: report row labels);
    # A's and B's rows found by two comparisons (no hashing of the model column)
    def row_rules() -> None:  # raises the PairingError that names the rows
        _validate(
            pa.DataFrameSchema(
                {
                    cols.case: pa.Column(nullable=False),
                    cols.model: pa.Column(nullable=False),
                }
            ),
            long,
            what="row",
        )

    model = long[cols.model]
    if bool(model.isna().any()):
        row_rules()
    is_a = _equals(model, a)
    keep = _equals(model, b)
    if not (is_a.any() and keep.any()):
        check_models_present(list(pd.unique(model)), cols, a, b)  # raises, naming the models
    keep = keep | is_a
    if not keep.all():  # rows of other models: copy A's and B's rows only
        if bool(long[cols.case].isna().any()):  # every row needs its id
            row_rules()
        ab, is_a = long[keep], is_a[keep]
    else:
        ab = long
    del keep  # only A's and B's rows from here on
    # the case ids, factorized once; a missing id is factorize's -1 (no separate pass)
    case = case_codes(ab[cols.case])
    if len(case[0]) and int(case[0].min()) < 0:
        row_rules()

    # 2. per case: one summary, checked by the pairing rules (pdpaired.pairs.rules)
    layout = SummaryLayout.of(cols)
    summary, codes, first = summarize(ab, cols, is_a, layout, case=case)
    del case  # the same arrays as codes and first, freed with them below
    check_summary(summary, pairing_schemas(layout, a, b, missing=missing), ab)

    # 3. align on the sorted case codes; absent rows and NaN outputs are both missing
    cases = summary.index
    n_cases = len(cases)
    del summary  # checked
    values_a = np.full((n_cases, len(values)), np.nan)
    values_b = np.full((n_cases, len(values)), np.nan)
    b_rows = ~is_a
    for i, v in enumerate(values):
        x = _float_values(pd.to_numeric(ab[v]))
        values_a[codes[is_a], i] = x[is_a]  # at most one row per (case, model): checked
        values_b[codes[b_rows], i] = x[b_rows]
        del x
    del codes, b_rows
    agreed = [ab[c].iloc[first].set_axis(cases) for c in agree]
    del first
    return assemble_pairs(
        values_a, values_b, cases, agreed, cols, a, b, missing=missing,
        fill_value=fill_value, higher_is_better=higher_is_better, source=df,
    )  # fmt: skip


def assemble_pairs(
    values_a: np.ndarray,
    values_b: np.ndarray,
    cases: pd.Index,
    agreed: Sequence[pd.Series],
    cols: Columns,
    a: Any,
    b: Any,
    *,
    missing: str,
    fill_value: float | None,
    higher_is_better: bool | None,
    source: pd.DataFrame,
) -> PairedData:
    """Apply the missing-outcome policy to aligned outputs and return the pairs.

    ``values_a`` and ``values_b`` are ``(n_cases, V)`` arrays of A's and B's
    outputs (NaN: missing), one row per case of ``cases``; ``agreed`` holds
    the per-case values of the columns that agree within a case (target,
    group, stratum), checked. :func:`pair` and
    :func:`pair_many` both end here, so the policy is written once.
    """
    values = cols.value_columns()
    design = cols.design_columns()
    agree = design if cols.target is None else [cols.target, *design]
    miss_a = np.isnan(values_a).any(axis=1)
    miss_b = np.isnan(values_b).any(axis=1)
    binary = _binary(values_a, values_b)
    # internal column keys: A's outputs 0 .. V-1, B's V .. 2V-1, then the agreed columns
    n_values = len(values)
    columns: dict[int, Any] = {i: values_a[:, i] for i in range(n_values)}
    columns.update({n_values + i: values_b[:, i] for i in range(n_values)})
    for j, series in enumerate(agreed):
        columns[2 * n_values + j] = series
    wide = pd.DataFrame(columns, index=cases, copy=False)
    out_a = list(range(n_values))
    out_b = list(range(n_values, 2 * n_values))

    any_missing = miss_a | miss_b
    summary = MissingSummary(
        policy=missing, n_missing_a=int(miss_a.sum()), n_missing_b=int(miss_b.sum())
    )
    if any_missing.any():
        if missing == "complete-case":
            wide = wide.loc[~any_missing]
            summary = MissingSummary(
                policy=missing,
                n_missing_a=summary.n_missing_a,
                n_missing_b=summary.n_missing_b,
                n_dropped=int(any_missing.sum()),
            )
        else:  # as-failure
            if fill_value is None:
                if not binary or cols.prediction_mode:
                    msg = (
                        "`fill_value` is required with missing='as-failure' unless the scores "
                        f"are binary 0/1; {int(any_missing.sum())} case(s) need a value"
                        + (
                            " (in prediction mode: the prediction to use, applied to every "
                            "prediction column)."
                            if cols.prediction_mode
                            else "."
                        )
                    )
                    raise ValueError(msg)
                fill_value = 0.0 if higher_is_better else 1.0
            fill = float(fill_value)
            if not np.isfinite(fill):
                msg = f"`fill_value` must be a finite number; got {fill_value!r}."
                raise ValueError(msg)
            wide = wide.fillna(dict.fromkeys(out_a + out_b, fill))
            summary = MissingSummary(
                policy=missing,
                n_missing_a=summary.n_missing_a,
                n_missing_b=summary.n_missing_b,
                n_filled=int(any_missing.sum()),
                fill_value=fill,
            )
            binary = binary and fill in (0.0, 1.0)
    elif missing == "as-failure" and fill_value is not None:
        summary = MissingSummary(policy=missing, fill_value=float(fill_value))

    check_enough_cases(len(wide), a, b)
    if cols.prediction_mode:  # prediction mode keeps its arrays in case order: sort now
        wide = sort_cases(wide)
    if any_missing.any() or cols.prediction_mode:  # dropped, filled or sorted
        values_a = wide[out_a].to_numpy(dtype=np.float64)
        values_b = wide[out_b].to_numpy(dtype=np.float64)
    scale_exp = pairs_grid(values_a, values_b)
    if cols.prediction_mode and len(values) > 1:  # multiclass: (model, class column)
        labels = [(a, v) for v in values] + [(b, v) for v in values]
        labels += [(c, "") for c in agree]
        wide.columns = pd.MultiIndex.from_tuples(labels)
    else:
        wide.columns = pd.Index([a, b, *agree])
        if cols.target is not None:  # target first
            wide = wide[[cols.target, a, b, *design]]
    if not cols.prediction_mode:
        return PairedData(
            table=wide, a=a, b=b, columns=cols, missing=summary, binary=binary, source=source,
            scale_exp=scale_exp,
        )  # fmt: skip
    return PairedData(
        table=wide,
        a=a,
        b=b,
        columns=cols,
        missing=summary,
        binary=binary,
        values_a=values_a if len(values) > 1 else values_a[:, 0],
        values_b=values_b if len(values) > 1 else values_b[:, 0],
        source=source,
    )


def _equals(column: pd.Series, label: Any) -> np.ndarray:
    """Rows whose label is ``label`` (a model name), as a NumPy bool array."""
    try:
        hit = column == label
    except TypeError:  # a label that does not compare with the column's values
        hit = column.map(lambda x: bool(x == label))
    flags: np.ndarray = hit.to_numpy(dtype=bool, na_value=False)
    return flags


def _binary(values_a: np.ndarray, values_b: np.ndarray) -> bool:
    """Whether every observed output is 0 or 1 (and at least one is observed)."""
    seen = False
    for x in (values_a, values_b):
        ok = np.isnan(x)
        seen = seen or not bool(ok.all())
        ok |= x == 0.0
        ok |= x == 1.0
        if not ok.all():
            return False
    return seen


def pairs_grid(values_a: np.ndarray, values_b: np.ndarray) -> int:
    """Fixed-point grid exponent of a set of pairs (see :mod:`pdpaired.pairs.units`).

    It depends only on the paired values themselves (their largest magnitude
    and their number), so a slice analysed inside ``by_slice`` and the same
    slice analysed from a filtered table sum on the same grid.
    """
    m = max(
        float(np.max(np.abs(values_a), initial=0.0)), float(np.max(np.abs(values_b), initial=0.0))
    )
    return grid_exponent(m, values_a.size + values_b.size)


def slice_values(data: PairedData, column: str) -> pd.Series:
    """Slice column values per case, aligned with ``data.frame``; checked constant.

    Raises
    ------
    PairingError
        If the column is missing, or differs between A's and B's row of a case.
    """
    df, cols = data.source, data.columns
    assert df is not None
    check_slice_column(df, cols, column)
    ab = df.loc[df[cols.model].isin([data.a, data.b]), [cols.case, cols.model, column]]
    layout = SummaryLayout(slices=(column,))
    is_a = (ab[cols.model] == data.a).to_numpy(dtype=bool)
    summary, _, first = summarize(ab, cols, is_a, layout)
    check_summary(summary, pairing_schemas(layout, data.a, data.b))
    per_case = ab[column].iloc[first].set_axis(summary.index)
    return per_case.reindex(data.frame.index)


# --------------------------------------------------------------------------- several models
def pair_many(
    df: pd.DataFrame,
    cols: Columns,
    pairs: Sequence[tuple[Any, Any]],
    *,
    missing: str = "error",
    fill_value: float | None = None,
    higher_is_better: bool | None = None,
) -> list[PairedData]:
    """Validate a long table of several models once and return the pairs of each comparison.

    The rows of every model named in ``pairs`` are read together: the case
    ids are factorized once, one table of rows per (case, model) -- ``k``
    columns wide -- and one summary per case are checked against every rule
    of :func:`pair` for all the models at once (usable outputs; one row per
    case and model; target, group and stratum constant within a case; and
    under ``missing="error"`` no missing outcome for any model). Then each
    comparison's pairs are cut from the aligned outputs without reading the
    rows again: the cases where A or B has a row, A's and B's outputs, and
    the missing-outcome policy of :func:`assemble_pairs` -- the same pairs
    ``pair(df, cols, a, b, ...)`` returns (its ``table`` may list the cases
    in another order; ``frame``, sorted by case id, is the same).

    Returns
    -------
    list of PairedData
        One per ``(a, b)`` of ``pairs``, in order.
    """
    import pandera.pandas as pa

    check_columns(df, cols)
    models = list(dict.fromkeys(m for ab in pairs for m in ab))
    k = len(models)
    values = cols.value_columns()
    design = cols.design_columns()
    agree = design if cols.target is None else [cols.target, *design]
    used = list(dict.fromkeys([cols.case, cols.model, *values, *agree]))
    long = df.loc[:, used]  # a new frame; the caller's is never touched

    def row_rules() -> None:  # raises the PairingError that names the rows
        _validate(
            pa.DataFrameSchema(
                {cols.case: pa.Column(nullable=False), cols.model: pa.Column(nullable=False)}
            ),
            long,
            what="row",
        )

    # 1. rows: each row's model among the k (one hash pass over the model column)
    labels = long[cols.model]
    if bool(labels.isna().any()):
        row_rules()
    row_code, uniques = pd.factorize(labels)
    position = {}  # label code -> model (the first model whose label the value equals)
    for i, u in enumerate(uniques):
        j = next((j for j, m in enumerate(models) if _same_label(u, m)), None)
        if j is not None:
            position[i] = j
    found = set(position.values())
    for a, b in pairs:
        if models.index(a) not in found or models.index(b) not in found:
            check_models_present(list(uniques), cols, a, b)  # raises, naming the models
    lookup = np.full(len(uniques), -1, dtype=np.int64)
    for i, j in position.items():
        lookup[i] = j
    model_of_row = lookup[row_code]
    keep = model_of_row >= 0
    if not keep.all():
        if bool(long[cols.case].isna().any()):
            row_rules()
        rows, model_of_row = long[keep], model_of_row[keep]
    else:
        rows = long
    case = case_codes(rows[cols.case])
    if len(case[0]) and int(case[0].min()) < 0:
        row_rules()
    codes, index, first = case
    n = len(index)

    # 2. per case and model: rows, and rows whose outputs are all present (k columns)
    cell = codes.astype(np.int64) * k + model_of_row
    n_rows = np.bincount(cell, minlength=n * k).reshape(n, k)
    present_rows = np.ones(len(rows), dtype=bool)
    for v in values:
        present_rows &= ~rows[v].isna().to_numpy(dtype=bool)
    n_present = np.bincount(cell[present_rows], minlength=n * k).reshape(n, k)
    # the per-case summary of pdpaired.pairs.rules: row-level rules over every model's rows,
    # "one row per (case, model)" as the largest count of any model, agreement across all
    layout = SummaryLayout.of(cols)
    is_first_model = model_of_row == 0
    summary, _, _ = summarize(rows, cols, is_first_model, layout, case=case)
    summary["rows_a"] = n_rows.max(axis=1).astype(np.int32)
    summary["rows_b"] = np.zeros(n, dtype=np.int32)
    stages = list(pairing_schemas(layout, models[0], models[1], missing="complete-case"))
    if missing == "error":  # every model's missing outcomes, where any model has a row
        for j in range(k):
            summary[f"outputs {j}"] = n_present[:, j].astype(np.int32)
        stages.append(
            pa.DataFrameSchema(
                {
                    f"outputs {j}": pa.Column(
                        checks=pa.Check(
                            _at_least_one,
                            name=f"missing outcome for {m}",
                            error=f"missing outcome for {m}",
                            ignore_na=False,
                        )
                    )
                    for j, m in enumerate(models)
                }
            )
        )
    check_summary(summary, stages, rows)
    del summary

    # 3. every model's outputs aligned on the case codes (NaN: no row, or a NaN output)
    out = np.full((n, k, len(values)), np.nan)
    for i, v in enumerate(values):
        x = _float_values(pd.to_numeric(rows[v]))
        out[codes, model_of_row, i] = x  # at most one row per (case, model): checked
    agreed = [rows[c].iloc[first].set_axis(index) for c in agree]
    has_row = n_rows > 0
    result = []
    for a, b in pairs:
        ia, ib = models.index(a), models.index(b)
        mine = has_row[:, ia] | has_row[:, ib]  # the cases of this comparison
        if mine.all():
            cases, va, vb, ag = index, out[:, ia, :], out[:, ib, :], agreed
        else:
            cases = index[mine]
            va, vb = out[mine, ia, :], out[mine, ib, :]
            ag = [s[mine] for s in agreed]
        result.append(
            assemble_pairs(
                np.ascontiguousarray(va),
                np.ascontiguousarray(vb),
                cases,
                ag,
                cols,
                a,
                b,
                missing=missing,
                fill_value=fill_value,
                higher_is_better=higher_is_better,
                source=df,
            )
        )
    return result


def _at_least_one(s: pd.Series) -> pd.Series:
    return s >= 1


def _same_label(x: Any, label: Any) -> bool:
    """Whether a model column's value is the model ``label`` (``==``, as :func:`pair` reads)."""
    try:
        return bool(x == label)
    except (TypeError, ValueError):
        return False
