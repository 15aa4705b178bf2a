"""The pairing layer: the only code that looks at column names.

Turns a long table ``(case, model, score[, group, stratum])`` into validated,
aligned pairs sorted by case id. Every invariant is a pandera check, run lazily
so that all violations are reported together; a violation raises
:class:`~pdpaired.PairingError` naming the rule, the number of offending cases
and the first ids, with pandera's full ``failure_cases`` table attached.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from pdpaired._errors import MAX_IDS_SHOWN, PairingError
from pdpaired._units import grid_exponent
from pdpaired._validation import plain
from pdpaired.results import MissingSummary

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

__all__ = [
    "AUTO",
    "Columns",
    "PairedData",
    "ids_text",
    "pair",
    "pairs_grid",
    "plain",
    "resolve_columns",
    "slice_values",
]

MISSING_POLICIES = ("error", "complete-case", "as-failure")


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
    )


@dataclass(frozen=True, slots=True, eq=False)
class PairedData:
    """Validated pairs: one row per case, sorted by case id."""

    frame: pd.DataFrame  # index: case id; columns: [target,] a, b, then design columns
    a: str
    b: str
    columns: Columns
    missing: MissingSummary
    binary: bool
    values_a: np.ndarray | None = None  # prediction mode: (n,) or (n, K) outputs of A
    values_b: np.ndarray | None = None
    source: pd.DataFrame | None = None  # the caller's long table (read only, for slices)
    scale_exp: int = 0  # score mode: fixed-point grid 2**-k of the exact sums (see _units)

    def subset(self, mask: np.ndarray) -> PairedData:
        """Return the same pairs restricted to the cases where ``mask`` is True."""
        frame = self.frame.loc[mask]
        scale_exp = 0
        if self.values_a is None:  # score mode: the subset's own grid
            scale_exp = pairs_grid(*(frame[c].to_numpy(np.float64) for c in (self.a, self.b)))
        return PairedData(
            frame=frame,
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
def ids_text(ids: Sequence[Any]) -> str:
    """Format up to ten ids, saying how many more there are."""
    ids = list(ids)
    total = len(ids)
    shown = ", ".join(repr(plain(i)) for i in ids[:MAX_IDS_SHOWN])
    more = f", ... ({total - MAX_IDS_SHOWN} more)" if total > MAX_IDS_SHOWN else ""
    return f"[{shown}{more}]"


def _raise_from_schema(err: Exception, *, what: str = "case") -> None:
    """Re-raise pandera's SchemaErrors as a PairingError naming each rule."""
    fc: pd.DataFrame = err.failure_cases  # type: ignore[attr-defined]
    fc = fc.copy()
    # pandera's built-in null check is named after the column it guards
    builtin = fc["check"] == "not_nullable"
    fc.loc[builtin, "check"] = "no missing " + fc.loc[builtin, "column"].astype(str)
    label = "first ids" if what == "case" else "first row labels"
    parts: list[str] = []
    rules: list[str] = []
    for rule, sub in fc.groupby("check", sort=False):
        ids = list(pd.unique(sub["index"].dropna()))
        rules.append(str(rule))
        if ids:
            parts.append(
                f"rule `{rule}` is violated by {len(ids)} {what}(s); {label}: {ids_text(ids)}"
            )
        else:
            parts.append(f"rule `{rule}` is violated: {list(sub['failure_case'])[:MAX_IDS_SHOWN]}")
    msg = "Pairing check failed: " + "; ".join(parts) + ". See `.failure_cases` for all of them."
    raise PairingError(msg, rule="; ".join(rules), failure_cases=fc) from err


def _validate(schema: Any, frame: pd.DataFrame, *, what: str = "case") -> None:
    import pandera.pandas as pa

    try:
        schema.validate(frame, lazy=True)
    except pa.errors.SchemaErrors as err:
        _raise_from_schema(err, what=what)


def _check(fn: Callable[[pd.Series], Any], rule: str, *, element_wise: bool = False) -> Any:
    import pandera.pandas as pa

    return pa.Check(fn, name=rule, error=rule, element_wise=element_wise, ignore_na=False)


# --------------------------------------------------------------------------- rules
def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool)


def _numeric_values(s: pd.Series) -> pd.Series:
    """Flag values that are numbers or missing (NaN/None)."""
    if pd.api.types.is_numeric_dtype(s.dtype):
        return pd.Series(True, index=s.index)
    return s.map(lambda x: x is None or x is pd.NA or _is_number(x)).astype(bool)


def _not_infinite(s: pd.Series) -> pd.Series:
    num = pd.to_numeric(s.where(_numeric_values(s)), errors="coerce")
    finite = ~np.isinf(num.to_numpy(dtype=np.float64, na_value=np.nan))
    return pd.Series(finite, index=s.index)


def check_columns(df: pd.DataFrame, cols: Columns) -> None:
    """Check that the required columns exist."""
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
            "df.paired(case=..., model=..., score=..., group=..., stratum=...) or, in "
            "prediction mode, df.paired(target=..., prediction=...)."
        )
        raise PairingError(msg, rule="required columns", failure_cases=fc)


def _check_models_present(long: pd.DataFrame, cols: Columns, a: Any, b: Any) -> None:
    models = pd.unique(long[cols.model])
    for name, role in ((a, "a"), (b, "b")):
        if name not in set(models):
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

    # 1. row level: ids and labels present (rows have no case id yet: report row labels)
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
    _check_models_present(long, cols, a, b)

    ab = long[long[cols.model].isin([a, b])]
    by_case = ab.set_index(cols.case)

    # 2. A/B rows, indexed by case id: usable values
    what_value = "prediction" if cols.prediction_mode else "score"
    row_checks: dict[str, Any] = {
        v: pa.Column(
            nullable=True,
            checks=[
                _check(_numeric_values, f"numeric {what_value}"),
                _check(_not_infinite, f"finite {what_value} (NaN marks a missing output)"),
            ],
        )
        for v in values
    }
    for c in agree:
        row_checks[c] = pa.Column(
            nullable=True, checks=[_check(lambda s: s.notna(), f"`{c}` not missing")]
        )
    _validate(pa.DataFrameSchema(row_checks), by_case.drop(columns=[cols.model]))

    # 3. per case: (case, model) unique; design columns constant within a case
    is_a = (ab[cols.model] == a).to_numpy()
    per_case = (
        pd.DataFrame(
            {"n_rows_a": is_a.astype(np.int64), "n_rows_b": (~is_a).astype(np.int64)},
            index=ab[cols.case],
        )
        .groupby(level=0, sort=False)
        .sum()
    )
    case_checks: dict[str, Any] = {
        "n_rows_a": pa.Column(checks=_check(lambda s: s <= 1, "unique (case, model)")),
        "n_rows_b": pa.Column(checks=_check(lambda s: s <= 1, "unique (case, model)")),
    }
    if agree:
        distinct = ab.groupby(cols.case, sort=False)[agree].nunique(dropna=False)
        for c in agree:
            rule = (
                f"target `{c}` agrees between A and B"
                if c == cols.target
                else f"`{c}` constant within a case"
            )
            per_case[f"distinct_{c}"] = distinct[c]
            case_checks[f"distinct_{c}"] = pa.Column(checks=_check(lambda s: s <= 1, rule))
    _validate(pa.DataFrameSchema(case_checks), per_case)

    # 4. align; absent rows and NaN outputs are both missing outcomes
    cases = per_case.index
    a_rows = by_case.loc[is_a]
    b_rows = by_case.loc[~is_a]
    # internal column keys: ("a", v) / ("b", v) for outputs, ("x", c) for the rest
    wide = pd.DataFrame(index=cases)
    for key, rows in (("a", a_rows), ("b", b_rows)):
        for v in values:
            wide[(key, v)] = pd.to_numeric(rows[v]).astype(np.float64).reindex(cases)
    if agree:
        first = ab.drop_duplicates(cols.case).set_index(cols.case)
        for c in agree:
            wide[("x", c)] = first[c].reindex(cases)
    wide = _sort_cases(wide)
    out_a = [("a", v) for v in values]
    out_b = [("b", v) for v in values]
    miss_a = wide[out_a].isna().any(axis=1).to_numpy()
    miss_b = wide[out_b].isna().any(axis=1).to_numpy()
    observed = wide[out_a + out_b].to_numpy().ravel()
    observed = observed[~np.isnan(observed)]
    binary = bool(observed.size) and bool(np.isin(observed, (0.0, 1.0)).all())

    any_missing = miss_a | miss_b
    summary = MissingSummary(
        policy=missing, n_missing_a=int(miss_a.sum()), n_missing_b=int(miss_b.sum())
    )
    if any_missing.any():
        if missing == "error":
            flags = pd.DataFrame(
                {"a": np.where(miss_a, np.nan, 0.0), "b": np.where(miss_b, np.nan, 0.0)},
                index=wide.index,
            )
            _validate(
                pa.DataFrameSchema(
                    {
                        "a": pa.Column(
                            nullable=True,
                            checks=_check(lambda s: s.notna(), f"missing outcome for A ({a})"),
                        ),
                        "b": pa.Column(
                            nullable=True,
                            checks=_check(lambda s: s.notna(), f"missing outcome for B ({b})"),
                        ),
                    }
                ),
                flags,
            )
        elif missing == "complete-case":
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

    if len(wide) < 2:
        msg = (
            f"Pairing check failed: rule `at least two paired cases` — got {len(wide)} "
            f"usable case(s) for {a!r} vs {b!r}."
        )
        raise PairingError(msg, rule="at least two paired cases", failure_cases=None)
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
            frame=wide, a=a, b=b, columns=cols, missing=summary, binary=binary, source=df,
            scale_exp=scale_exp,
        )  # fmt: skip
    return PairedData(
        frame=wide,
        a=a,
        b=b,
        columns=cols,
        missing=summary,
        binary=binary,
        values_a=values_a if len(values) > 1 else values_a[:, 0],
        values_b=values_b if len(values) > 1 else values_b[:, 0],
        source=df,
    )


def pairs_grid(values_a: np.ndarray, values_b: np.ndarray) -> int:
    """Fixed-point grid exponent of a set of pairs (see :mod:`pdpaired._units`).

    It depends only on the paired values themselves (their largest magnitude
    and their number), so a slice analysed inside ``by_slice`` and the same
    slice analysed from a filtered table sum on the same grid.
    """
    m = max(
        float(np.max(np.abs(values_a), initial=0.0)), float(np.max(np.abs(values_b), initial=0.0))
    )
    return grid_exponent(m, values_a.size + values_b.size)


def _sort_cases(wide: pd.DataFrame) -> pd.DataFrame:
    try:
        return wide.sort_index(kind="stable")
    except TypeError as err:
        msg = (
            "Pairing check failed: rule `sortable case ids` — case ids of mixed types cannot "
            "be ordered; results must not depend on row order, so cast the id column to one type."
        )
        raise PairingError(msg, rule="sortable case ids") from err


def slice_values(data: PairedData, column: str) -> pd.Series:
    """Slice column values per case, aligned with ``data.frame``; checked constant.

    Raises
    ------
    PairingError
        If the column is missing, or differs between A's and B's row of a case.
    """
    import pandera.pandas as pa

    df, cols = data.source, data.columns
    assert df is not None
    if column not in df.columns:
        msg = (
            f"Pairing check failed: rule `required columns` — slice column {column!r} not "
            f"found; the table has {list(df.columns)}."
        )
        raise PairingError(msg, rule="required columns")
    if column in (cols.case, cols.model):
        msg = f"The case id and model columns cannot be slice columns; got {column!r}."
        raise ValueError(msg)
    ab = df.loc[df[cols.model].isin([data.a, data.b]), [cols.case, column]]
    distinct = ab.groupby(cols.case, sort=False)[column].nunique(dropna=False)
    rule = f"slice `{column}` constant within a case"
    _validate(
        pa.DataFrameSchema({"n": pa.Column(checks=_check(lambda s: s <= 1, rule))}),
        pd.DataFrame({"n": distinct}),
    )
    first = ab.drop_duplicates(cols.case).set_index(cols.case)[column]
    return first.reindex(data.frame.index)
