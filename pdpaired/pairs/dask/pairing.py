"""The Dask pairing: per-partition code that reduces a long table's rows to per-case tables.

Functions mapped over the partitions of a Dask table by
:class:`~pdpaired.pairs.dask.backend.DaskPairs`: the scan of pass 0, the
per-row indicator counts and label hashes a per-case groupby sums, the rows
on the grid, the missing-outcome policy applied per partition of cases, the
counts of distinct score pairs, the per-case summary in the layout of
:mod:`pdpaired.pairs.rules` with its failure tables, and the per-case table
of missing-outcome sensitivity. This module writes no pairing rule: the
failure tables come from :mod:`pdpaired.pairs.rules`' pandera schemas.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import dask.dataframe as dd
import numpy as np
import pandas as pd

from pdpaired.pairs.columns import Columns
from pdpaired.pairs.rules import FAILURE_COLUMNS, SummaryLayout, case_summary, failure_table
from pdpaired.pairs.units import quantize

__all__ = [
    "MAX_DISTINCT",
    "SCAN_META",
    "apply_policy",
    "failure_tables",
    "fill_cases",
    "pair_counts",
    "partition_rows",
    "partition_rows_meta",
    "row_grid",
    "scan_partition",
]

#: Distinct (stratum, score A, score B) combinations kept per partition before a
#: design counts as continuous (then it is not collected as counts).
MAX_DISTINCT = 4096


# --------------------------------------------------------------------------- partition code
def _label_hash(values: pd.Series) -> np.ndarray:
    """64-bit hash of labels (deterministic across processes), as int64."""
    h = pd.util.hash_array(np.asarray(values.astype(object).to_numpy()), categorize=False)
    return h.view(np.int64)


def _ab_mask(part: pd.DataFrame, cols: Columns, a: Any, b: Any) -> tuple[np.ndarray, np.ndarray]:
    model = part[cols.model]
    is_a = (model == a).to_numpy(dtype=bool, na_value=False)
    is_b = (model == b).to_numpy(dtype=bool, na_value=False)
    return is_a, is_b


def scan_partition(part: pd.DataFrame, *, cols: Columns, a: Any, b: Any) -> pd.DataFrame:
    """Pass 0, per partition: rows of A and B, their largest finite |score|, null ids."""
    is_a, is_b = _ab_mask(part, cols, a, b)
    keep = is_a | is_b
    x = part[cols.score].to_numpy(dtype=np.float64, na_value=np.nan)[keep]
    finite = np.abs(x[np.isfinite(x)])
    return pd.DataFrame(
        {
            "rows_ab": [int(keep.sum())],
            "max_abs": [float(finite.max()) if finite.size else 0.0],
            "null_case": [int(part[cols.case].isna().sum())],
            "null_model": [int(part[cols.model].isna().sum())],
        }
    )


SCAN_META = pd.DataFrame(
    {"rows_ab": pd.Series([], dtype=np.int64), "max_abs": pd.Series([], dtype=np.float64),
     "null_case": pd.Series([], dtype=np.int64), "null_model": pd.Series([], dtype=np.int64)}
)  # fmt: skip


def partition_rows(
    part: pd.DataFrame, *, cols: Columns, a: Any, b: Any, extra: tuple[str, ...], labels: bool
) -> pd.DataFrame:
    """Per row of A or B: indicator counts, masked scores and label hashes (numeric only)."""
    is_a, is_b = _ab_mask(part, cols, a, b)
    keep = is_a | is_b
    x = part[cols.score].to_numpy(dtype=np.float64, na_value=np.nan)[keep]
    ia, ib = is_a[keep], is_b[keep]
    nan = np.isnan(x)
    out = pd.DataFrame(
        {
            "case": part[cols.case].to_numpy()[keep],
            "n_a": ia.astype(np.int64),
            "n_b": ib.astype(np.int64),
            "x_a": np.where(ia, x, np.nan),
            "x_b": np.where(ib, x, np.nan),
            "nan_a": (ia & nan).astype(np.int64),
            "nan_b": (ib & nan).astype(np.int64),
            "inf": np.isinf(x).astype(np.int64),
        }
    )
    rows = np.flatnonzero(keep)
    for i, c in enumerate(extra):
        v = part[c].iloc[rows].reset_index(drop=True)
        h = _label_hash(v)
        out[f"null{i}"] = v.isna().to_numpy().astype(np.int64)
        out[f"hmin{i}"] = h
        out[f"hmax{i}"] = h
        if labels:
            out[f"label{i}"] = v.astype(object)
    return out


def partition_rows_meta(
    cols: Columns, ddf: dd.DataFrame, extra: tuple[str, ...], labels: bool
) -> pd.DataFrame:
    """Return the empty frame :func:`partition_rows` returns (the ``meta`` of its map)."""
    meta = pd.DataFrame({"case": pd.Series([], dtype=ddf[cols.case].dtype)})
    for c in ("n_a", "n_b", "nan_a", "nan_b", "inf"):
        meta[c] = pd.Series([], dtype=np.int64)
    meta["x_a"] = pd.Series([], dtype=np.float64)
    meta["x_b"] = pd.Series([], dtype=np.float64)
    meta = meta[["case", "n_a", "n_b", "x_a", "x_b", "nan_a", "nan_b", "inf"]]
    for i, _c in enumerate(extra):
        meta[f"null{i}"] = pd.Series([], dtype=np.int64)
        meta[f"hmin{i}"] = pd.Series([], dtype=np.int64)
        meta[f"hmax{i}"] = pd.Series([], dtype=np.int64)
        if labels:
            meta[f"label{i}"] = pd.Series([], dtype=object)
    return meta


def row_grid(
    part: pd.DataFrame, *, cols: Columns, a: Any, b: Any, k: int, extra: tuple[str, ...]
) -> pd.DataFrame:
    """Per row of A or B: the score on the grid as ``qa`` (A rows) or ``qb`` (B rows).

    Used when no case has a missing outcome: then every case has exactly one
    row per model, and a sum over rows is the sum over cases.
    """
    is_a, is_b = _ab_mask(part, cols, a, b)
    keep = is_a | is_b
    x = part[cols.score].to_numpy(dtype=np.float64, na_value=np.nan)[keep]
    q = quantize(np.where(np.isfinite(x), x, 0.0), k)  # (non-finite: discarded, see caller)
    ia = is_a[keep]
    out = pd.DataFrame(
        {
            "case": part[cols.case].to_numpy()[keep],
            "qa": np.where(ia, q, 0),
            "qb": np.where(ia, 0, q),
            "na": ia.astype(np.int64),
        }
    )
    rows = np.flatnonzero(keep)
    for i, c in enumerate(extra):
        v = part[c].iloc[rows].reset_index(drop=True)
        out[f"h{i}"] = _label_hash(v)
        out[f"label{i}"] = v
    return out


def apply_policy(
    part: pd.DataFrame, *, policy: str, fill: float | None, k: int, quantized: bool = True
) -> pd.DataFrame:
    """Per partition of cases: drop or fill missing outcomes; add the grid integers."""
    miss_a = (part["n_a"].to_numpy() == 0) | (part["nan_a"].to_numpy() > 0)
    miss_b = (part["n_b"].to_numpy() == 0) | (part["nan_b"].to_numpy() > 0)
    part = part.copy()
    if policy == "complete-case":
        part = part.loc[~(miss_a | miss_b)]
    elif fill is not None:
        part.loc[miss_a, "x_a"] = fill
        part.loc[miss_b, "x_b"] = fill
    if quantized:  # (a NaN left here is a missing outcome of a discarded speculative pass)
        for x, q in (("x_a", "qa"), ("x_b", "qb")):
            v = part[x].to_numpy()
            part[q] = quantize(np.where(np.isfinite(v), v, 0.0), k)
    return part


def pair_counts(part: pd.DataFrame, *, keys: list[str], **policy: Any) -> pd.DataFrame:
    """Count each (stratum hash, qa, qb) in a partition of cases, or flag 'too many'."""
    part = apply_policy(part, **policy)
    c = part.groupby(keys, sort=False).size().rename("n").reset_index()
    c = c.astype({"n": np.int64})
    if len(c) > MAX_DISTINCT:  # continuous: say so instead of sending the values
        return c.iloc[:1].assign(n=np.int64(0), too_many=True)
    return c.assign(too_many=False)


def _summary(
    part: pd.DataFrame, *, layout: SummaryLayout, extra: tuple[str, ...], case: str
) -> pd.DataFrame:
    """Put a partition of the per-case frame in the summary layout of :mod:`pdpaired.pairs.rules`.

    Only a translation of this module's counts: the rules that read them are
    :func:`pdpaired.pairs.rules.pairing_schemas`. Scores are numeric here (checked
    on the column's dtype), so no value is non-numeric.
    """
    n_a, n_b = part["n_a"].to_numpy(), part["n_b"].to_numpy()
    counts: dict[str, Any] = {
        "rows_a": n_a,
        "rows_b": n_b,
        "outputs_a": n_a - part["nan_a"].to_numpy(),
        "outputs_b": n_b - part["nan_b"].to_numpy(),
    }
    for v in layout.outputs:
        counts[f"non_numeric {v}"] = 0
        counts[f"infinite {v}"] = part["inf"].to_numpy()
    for i, c in enumerate(extra):
        counts[f"null {c}"] = part[f"null{i}"].to_numpy()
        counts[f"varies {c}"] = part[f"hmin{i}"].to_numpy() != part[f"hmax{i}"].to_numpy()
    return case_summary(layout, pd.Index(part["case"], name=case), counts)


_FAILURE_META = pd.DataFrame({c: pd.Series([], dtype=object) for c in FAILURE_COLUMNS})


def failure_tables(per: dd.DataFrame, layout: SummaryLayout, extra: tuple[str, ...], case: str,
              schemas: Sequence[Any]) -> list[Any]:  # fmt: skip
    """Lazy failure tables of the pairing schemas, one per stage: every offending case.

    Each partition of cases is summarized and validated on its own (pandera's
    way with Dask); the tables are concatenated.
    """
    kw: dict[str, Any] = {"layout": layout, "extra": extra, "case": case}
    summary = per.map_partitions(_summary, **kw, meta=_summary(per._meta, **kw))
    return [summary.map_partitions(failure_table, schema=schema, meta=_FAILURE_META)
            for schema in schemas]  # fmt: skip


def fill_cases(part: pd.DataFrame, *, si: int | None, gi: int | None) -> pd.DataFrame:
    """Per case: observed A minus observed B (missing: 0), the missing flags, observed range."""
    ma = (part["n_a"].to_numpy() == 0) | (part["nan_a"].to_numpy() > 0)
    mb = (part["n_b"].to_numpy() == 0) | (part["nan_b"].to_numpy() > 0)
    xa = np.where(ma, np.nan, part["x_a"].to_numpy(np.float64))
    xb = np.where(mb, np.nan, part["x_b"].to_numpy(np.float64))
    odd = (~ma & ~np.isin(xa, (0.0, 1.0))).astype(np.int64) + (~mb & ~np.isin(xb, (0.0, 1.0)))
    with np.errstate(invalid="ignore"):
        lo, hi = np.fmin(xa, xb), np.fmax(xa, xb)
    out = pd.DataFrame(
        {
            "d": np.nan_to_num(xa) - np.nan_to_num(xb),
            "ma": ma.astype(np.int64),
            "mb": mb.astype(np.int64),
            "both": (ma & mb).astype(np.int64),
            "n": np.ones(len(part), dtype=np.int64),
            "odd": odd.astype(np.int64),
            "lo": lo,
            "hi": hi,
            "s": part[f"label{si}"].astype(object).to_numpy() if si is not None
            else np.full(len(part), "all", dtype=object),
        }
    )  # fmt: skip
    if gi is not None:
        out["g"] = part[f"label{gi}"].astype(object).to_numpy()
    return out
