"""Crossed factors: one row per (case, model, level of every factor), paired within each cell.

``df.paired(repeat="sample", factors=["seed", "prompt"])`` declares that each
row is one run of a model on a case under one level of every factor (a
training or decoding seed, a prompt template, a judge), and that a level
means the same thing for every case and for both models: A's and B's runs
with seed ``s`` and prompt ``p`` on case ``i`` form the cell ``(i, s, p)``,
and the improvement is paired within the cell. (When a seed is specific to
each model, as a training seed is, "the same seed" pairs A's ``s``-th run
with B's ``s``-th: the pairing is by index, and the factor's variance then
holds both models' seed-to-seed variation.)

:func:`pair_crossed` checks the rows, applies the missing-outcome policy to
missing rows (NaN scores) and to missing cells (a case not run under some
combination of levels), takes each cell's mean (several rows of one cell
are told apart by the ``run`` column when the table has it), and pairs the
cases' means over their cells with every rule of
:func:`pdpaired.pairs.repeats.pair_runs` (so every case-level analysis
reads the case means). It also returns the cells (:class:`CrossedCells`),
a balanced array per model, which the pigeonhole bootstrap and the
variance components read. The policy keeps the design balanced:
``"error"`` raises on any missing cell, ``"complete-case"`` drops a case
with a missing cell for both models (counted in the result's ``missing``),
``"as-failure"`` fills the missing cells with ``fill_value``. Nothing is
dropped silently.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from pdpaired._lib.errors import PairingError
from pdpaired._lib.validation import plain
from pdpaired.pairs.checks import check_columns, check_models_present, check_numeric_column
from pdpaired.pairs.columns import Columns
from pdpaired.pairs.pandas.pairing import PairedData, check_summary, summarize
from pdpaired.pairs.repeats import CaseRuns, pair_runs
from pdpaired.pairs.rules import FAILURE_COLUMNS, SummaryLayout, pairing_schemas, raise_failures
from pdpaired.results.crossed import CrossedSummary

__all__ = ["CrossedCells", "pair_crossed"]


@dataclass(frozen=True, slots=True, eq=False)
class CrossedCells:
    """Each model's cell means on every analysed case, aligned with ``PairedData.frame``.

    ``cells_a[i, l1, ..., lk]`` is A's mean over its rows on case ``i`` (in
    case-id order) under level ``l1`` of the first factor, ... (levels in
    sorted order, ``levels``). ``ss_a`` and ``reps_a`` hold each cell's sum
    of squared deviations and its number of rows (a filled cell: one row,
    no deviation).
    """

    factors: tuple[str, ...]
    levels: tuple[tuple[Any, ...], ...]
    cells_a: np.ndarray
    cells_b: np.ndarray
    reps_a: np.ndarray
    reps_b: np.ndarray
    ss_a: np.ndarray
    ss_b: np.ndarray
    summary: CrossedSummary

    def improvement(self, sign: float) -> np.ndarray:
        """Return the per-cell improvement ``sign * (A - B)``, axes (cases, factors...)."""
        out: np.ndarray = sign * (self.cells_a - self.cells_b)
        return out


def _failures(column: str, rule: str, ids: Any, values: Any) -> pd.DataFrame:
    """Return a pandera-style failure table: one row per offending row or cell."""
    return pd.DataFrame(
        {
            "schema_context": "Column",
            "column": column,
            "check": rule,
            "check_number": None,
            "failure_case": np.asarray(values, dtype=object),
            "index": np.asarray(ids, dtype=object),
        },
        columns=list(FAILURE_COLUMNS),
    )


def _sorted_levels(values: pd.Series) -> pd.Index:
    """Distinct values in sorted order (by text when they do not compare)."""
    uniq = pd.Index(pd.unique(values))
    try:
        return uniq.sort_values()
    except TypeError:
        return pd.Index(sorted(uniq, key=repr), dtype=object)


def _free_name(taken: set[Any], stem: str) -> str:
    name = stem
    while name in taken:
        name = "_" + name
    return name


def pair_crossed(
    df: pd.DataFrame,
    cols: Columns,
    a: Any,
    b: Any,
    *,
    missing: str,
    fill_value: float | None,
    higher_is_better: bool,
) -> tuple[PairedData, CaseRuns, CrossedCells]:
    """Check the cells of A and B, apply the policy, take cell means and pair the cases.

    Parameters
    ----------
    df : DataFrame
        Long table, one row per (case, model, level of each factor) (and
        replicate, with a ``run`` column). Never modified.
    cols : Columns
        With ``repeat`` and ``factors`` set.
    a, b : str
    missing : {"error", "complete-case", "as-failure"}
    fill_value : float, optional
    higher_is_better : bool

    Returns
    -------
    PairedData
        The pairs of case means over the cells (``source`` is ``df``).
    CaseRuns
        Each case's cell means, as runs (for the case-level analyses).
    CrossedCells
    """
    assert cols.score is not None
    assert cols.factors is not None
    score, case, model = cols.score, cols.case, cols.model
    factors = list(cols.factors)
    check_columns(df, cols)
    absent = [f for f in factors if f not in df.columns]
    if absent:
        msg = (
            f"Pairing check failed: rule `required columns` — factor column(s) {absent} not "
            f"found; the table has {list(df.columns)}. Name the factor columns with "
            "df.paired(repeat='sample', factors=[...])."
        )
        raise PairingError(msg, rule="required columns")
    design = cols.design_columns()
    clash = [f for f in factors if f in (case, model, score, *design)]
    if clash:
        msg = f"A factor column must differ from the other configured columns; got {clash}."
        raise ValueError(msg)
    replicate = cols.run if cols.run in df.columns and cols.run not in factors else None
    if replicate is not None and replicate in (case, model, score, *design):
        replicate = None
    check_numeric_column(
        df[score].dtype, score,
        hint="convert it to numbers first, e.g. pd.to_numeric(df[...], errors='coerce').",
    )  # fmt: skip
    is_ab = df[model].isin([a, b]).to_numpy(dtype=bool)
    present = set(pd.unique(df[model].dropna()))
    if a not in present or b not in present:
        check_models_present(list(present), cols, a, b)
    keys = [case, *factors] + ([replicate] if replicate is not None else [])
    rows = df.loc[is_ab, list(dict.fromkeys([*keys, model, score, *design]))]

    # row level: ids and levels present, finite scores, one row per cell (and replicate)
    for column in keys:
        bad = rows[column].isna()
        if bad.any():
            fc = _failures(column, f"no missing {column}", rows.index[bad], rows.loc[bad, column])
            raise_failures(fc, what="row")
    x = rows[score].to_numpy(dtype=np.float64, na_value=np.nan)
    if np.isinf(x).any():
        bad = np.isinf(x)
        fc = _failures(
            score, "finite score (NaN marks a missing output)", rows[case][bad], rows[score][bad]
        )
        raise_failures(fc)
    unique_by = [case, model, *factors] + ([replicate] if replicate is not None else [])
    dup = rows.duplicated(unique_by, keep=False).to_numpy(dtype=bool)
    if dup.any():
        rule = "unique (case, model, " + ", ".join(unique_by[2:]) + ")"
        if replicate is None:
            rule += "; name the column telling replicates of a cell apart with run="
        fc = _failures(factors[0], rule, rows[case][dup], rows[factors[0]][dup])
        raise_failures(fc)
    if design:
        layout = SummaryLayout(design=tuple(design))
        summary, _, _ = summarize(rows, cols, np.zeros(len(rows), dtype=bool), layout)
        check_summary(summary, pairing_schemas(layout, a, b), rows)

    # missing rows (NaN scores): the policy, at the row level
    is_a = (rows[model] == a).to_numpy(dtype=bool)
    nan = np.isnan(x)
    nan_cases = [pd.unique(rows[case][nan & flag]) for flag in (is_a, ~is_a)]
    n_nan_a, n_nan_b = int((nan & is_a).sum()), int((nan & ~is_a).sum())
    observed = x[~nan]
    binary = bool(observed.size) and bool(np.isin(observed, (0.0, 1.0)).all())
    if fill_value is None and missing == "as-failure" and binary:
        fill_value = 0.0 if higher_is_better else 1.0  # the worse value, as for cases
    if missing == "as-failure":
        if fill_value is None:
            msg = (
                "`fill_value` is required with missing='as-failure' unless the scores are "
                "binary 0/1 (missing rows and cells of a crossed design need a value)."
            )
            raise ValueError(msg)
        if not np.isfinite(float(fill_value)):
            msg = f"`fill_value` must be a finite number; got {fill_value!r}."
            raise ValueError(msg)
    if nan.any():
        if missing == "error":
            for flag, role, name in ((is_a, "A", a), (~is_a, "B", b)):
                hit = nan & flag
                if hit.any():
                    fc = _failures(
                        score, f"missing output in a cell for {role} ({name})",
                        rows[case][hit], rows[factors[0]][hit],
                    )  # fmt: skip
                    raise_failures(fc)
        elif missing == "complete-case":
            keep = ~nan
            rows, x, is_a = rows.loc[keep], x[keep], is_a[keep]
        else:
            assert fill_value is not None
            x = np.where(nan, float(fill_value), x)

    # every case under every combination of levels: cell sums and counts per model
    all_rows = df.loc[is_ab]
    cases = _sorted_levels(all_rows[case])
    levels = [_sorted_levels(all_rows[f]) for f in factors]
    shape = (len(cases), *(len(lv) for lv in levels))
    code = cases.get_indexer(pd.Index(rows[case]))
    for f, lv in zip(factors, levels, strict=True):
        code = code * len(lv) + lv.get_indexer(pd.Index(rows[f]))
    n_cells = int(np.prod(shape))
    per_model = []
    for flag in (is_a, ~is_a):
        c, v = code[flag], x[flag]
        count = np.bincount(c, minlength=n_cells)
        total = np.bincount(c, weights=v, minlength=n_cells)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = total / count
        dev = v - mean[c]
        ss = np.bincount(c, weights=dev * dev, minlength=n_cells)
        per_model.append((count.reshape(shape), mean.reshape(shape), ss.reshape(shape)))
    (cnt_a, mean_a, ss_a), (cnt_b, mean_b, ss_b) = per_model
    hole_a, hole_b = cnt_a == 0, cnt_b == 0
    axes = tuple(range(1, len(shape)))
    bad_a, bad_b = hole_a.any(axis=axes), hole_b.any(axis=axes)
    incomplete = bad_a | bad_b
    n_hole_a, n_hole_b = int(hole_a.sum()), int(hole_b.sum())
    inc_ids = tuple(str(v) for v in cases[incomplete][:10])
    if incomplete.any():
        if missing == "error":
            for hole, role, name in ((hole_a, "A", a), (hole_b, "B", b)):
                where = np.argwhere(hole)
                if where.size:
                    cells = [
                        ", ".join(
                            f"{f}={plain(lv[j])!r}"
                            for f, lv, j in zip(factors, levels, w[1:], strict=True)
                        )
                        for w in where
                    ]
                    fc = _failures(
                        factors[0],
                        f"complete crossed design: every case under every combination of "
                        f"levels, for {role} ({name})",
                        cases[where[:, 0]], cells,
                    )  # fmt: skip
                    raise_failures(fc)
        elif missing == "as-failure":
            assert fill_value is not None
            for hole, mean, cnt in ((hole_a, mean_a, cnt_a), (hole_b, mean_b, cnt_b)):
                mean[hole] = float(fill_value)
                cnt[hole] = 1
    # complete-case: a model's rows of an incomplete case are left out, so the pairing
    # below counts the case as missing for that model and drops it for both

    # the reduced table: one row per (case, model, cell) with the cell mean
    cell_col = _free_name({case, model, score, *design}, "cell")
    flat_cells = np.arange(int(np.prod(shape[1:])))
    design_of_case = (
        all_rows.groupby(case, sort=False, observed=True, dropna=False)[design].first()
        if design
        else None
    )
    parts = []
    for name, mean, bad in ((a, mean_a, bad_a), (b, mean_b, bad_b)):
        keep = ~bad if missing == "complete-case" else np.ones(len(cases), dtype=bool)
        kept = np.flatnonzero(keep)
        part = pd.DataFrame(
            {
                case: np.repeat(cases[kept].to_numpy(dtype=object), flat_cells.size),
                model: name,
                cell_col: np.tile(flat_cells, kept.size),
                score: mean.reshape(len(cases), -1)[kept].ravel(),
            }
        )
        if design_of_case is not None:
            for c in design:
                part[c] = design_of_case[c].reindex(part[case]).to_numpy()
        parts.append(part)
    reduced = pd.concat(parts, ignore_index=True)
    reduced[case] = reduced[case].astype(all_rows[case].dtype)
    cols_cells = replace(cols, run=cell_col, factors=None)
    data, runs = pair_runs(
        reduced, cols_cells, a, b, missing=missing, fill_value=fill_value,
        higher_is_better=higher_is_better,
    )  # fmt: skip
    data = replace(data, source=df, columns=cols)
    if missing == "as-failure" and (incomplete.any() or nan.any()):
        assert fill_value is not None
        # the cases whose missing rows or cells were filled, in the result's ``missing``
        miss_a, miss_b = (
            hole | cases.isin(ids) for hole, ids in zip((bad_a, bad_b), nan_cases, strict=True)
        )
        data = replace(
            data,
            missing=replace(
                data.missing, n_missing_a=int(miss_a.sum()), n_missing_b=int(miss_b.sum()),
                n_filled=int((miss_a | miss_b).sum()), fill_value=float(fill_value),
            ),
        )  # fmt: skip
    label = " x ".join(factors)
    runs = replace(runs, summary=replace(runs.summary, column=label))

    pos = cases.get_indexer(data.frame.index)
    summary = CrossedSummary(
        factors=tuple(factors), n_levels=tuple(len(lv) for lv in levels),
        replicate=replicate, policy=missing,
        n_missing_rows_a=n_nan_a, n_missing_rows_b=n_nan_b,
        n_missing_cells_a=n_hole_a, n_missing_cells_b=n_hole_b,
        n_incomplete_cases=int(incomplete.sum()), incomplete_ids=inc_ids,
        fill_value=None if fill_value is None or missing != "as-failure" else float(fill_value),
    )  # fmt: skip
    cells = CrossedCells(
        factors=tuple(factors), levels=tuple(tuple(lv) for lv in levels),
        cells_a=mean_a[pos], cells_b=mean_b[pos], reps_a=cnt_a[pos], reps_b=cnt_b[pos],
        ss_a=ss_a[pos], ss_b=ss_b[pos], summary=summary,
    )  # fmt: skip
    return data, runs, cells
