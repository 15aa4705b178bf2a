"""Repeated runs: several rows per (case, model), one per run, paired case by case.

``df.paired(repeat="sample", run="run")`` declares that each row is one run
of a model on a case (an independent sample of its output: temperature
sampling, epochs, decoder seeds). :func:`pair_runs` checks the run-level
rules, applies the missing-outcome policy to missing runs (NaN scores),
averages each (case, model)'s runs into the case's score and pairs those
means with every rule of :func:`pdpaired.pairs.pandas.pairing.pair`; it also returns the
runs themselves (:class:`CaseRuns`), which the two-stage bootstrap and the
variance components read.

Run ids only tell runs apart within a (case, model): run 1 of one case has
nothing to do with run 1 of another, and A's run 1 is not paired with B's
run 1 (the pairing is by case).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from pdpaired._lib.errors import PairingError
from pdpaired.pairs.checks import check_columns, check_models_present, check_numeric_column
from pdpaired.pairs.columns import Columns
from pdpaired.pairs.pandas.pairing import PairedData, check_summary, pair, summarize
from pdpaired.pairs.rules import FAILURE_COLUMNS, SummaryLayout, pairing_schemas, raise_failures
from pdpaired.results.repeats import RunSummary

__all__ = ["CaseRuns", "pair_runs"]


@dataclass(frozen=True, slots=True, eq=False)
class CaseRuns:
    """Each model's runs on every analysed case, aligned with ``PairedData.frame``.

    The runs of case ``i`` (the ``i``-th case in case-id order) are
    ``runs_a[ptr_a[i]:ptr_a[i + 1]]``, sorted by value (so nothing depends on
    the order of the rows). A case that the ``"as-failure"`` policy filled
    for a model holds one run with the fill value.
    """

    ptr_a: np.ndarray
    runs_a: np.ndarray
    ptr_b: np.ndarray
    runs_b: np.ndarray
    summary: RunSummary

    @property
    def n_cases(self) -> int:
        """Number of cases."""
        return int(self.ptr_a.size - 1)


def _failures(column: str, rule: str, ids: pd.Series, values: pd.Series) -> pd.DataFrame:
    """Return a pandera-style failure table: one row per offending row (``index``: case id)."""
    return pd.DataFrame(
        {
            "schema_context": "Column",
            "column": column,
            "check": rule,
            "check_number": None,
            "failure_case": values.to_numpy(dtype=object),
            "index": ids.to_numpy(dtype=object),
        },
        columns=list(FAILURE_COLUMNS),
    )


def pair_runs(
    df: pd.DataFrame,
    cols: Columns,
    a: Any,
    b: Any,
    *,
    missing: str,
    fill_value: float | None,
    higher_is_better: bool,
) -> tuple[PairedData, CaseRuns]:
    """Check the runs of A and B, apply the policy to missing runs, average and pair.

    Parameters
    ----------
    df : DataFrame
        Long table, one row per (case, model, run). Never modified.
    cols : Columns
        With ``repeat`` set and ``run`` the run id column.
    a, b : str
    missing : {"error", "complete-case", "as-failure"}
        Applied to missing runs (NaN scores) first, then, as always, to
        cases with no usable run for a model.
    fill_value : float, optional
    higher_is_better : bool

    Returns
    -------
    PairedData
        The pairs of run means (``source`` is ``df``, so slices read it).
    CaseRuns
    """
    assert cols.score is not None
    score, run, case, model = cols.score, cols.run, cols.case, cols.model
    check_columns(df, cols)
    if run not in df.columns:
        msg = (
            f"Pairing check failed: rule `required columns` — run column {run!r} not found; "
            f"the table has {list(df.columns)}. With repeat='sample' each row is one run: name "
            "its run id column with df.paired(repeat='sample', run=...)."
        )
        raise PairingError(msg, rule="required columns")
    if run in (case, model, score, *cols.design_columns()):
        msg = f"The run column must differ from the other configured columns; got {run!r}."
        raise ValueError(msg)
    check_numeric_column(
        df[score].dtype, score,
        hint="convert it to numbers first, e.g. pd.to_numeric(df[...], errors='coerce').",
    )  # fmt: skip
    design = cols.design_columns()
    is_ab = df[model].isin([a, b]).to_numpy(dtype=bool)
    present = set(pd.unique(df[model].dropna()))
    if a not in present or b not in present:
        check_models_present(list(present), cols, a, b)
    rows = df.loc[is_ab, list(dict.fromkeys([case, model, run, score, *design]))]

    # row level: ids present (rows with no case id or no run id name their row labels)
    for column in (case, run):
        bad = rows[column].isna()
        if bad.any():
            labels = rows.index[bad].to_series()
            fc = _failures(column, f"no missing {column}", labels, rows.loc[bad, column])
            raise_failures(fc, what="row")
    x = rows[score].to_numpy(dtype=np.float64, na_value=np.nan)
    if np.isinf(x).any():
        bad = np.isinf(x)
        fc = _failures(
            score, "finite score (NaN marks a missing output)", rows[case][bad], rows[score][bad]
        )
        raise_failures(fc)

    # case level: one row per (case, model, run); group / stratum constant within a case
    dup = rows.duplicated([case, model, run], keep=False).to_numpy(dtype=bool)
    if dup.any():
        fc = _failures(run, "unique (case, model, run)", rows[case][dup], rows[run][dup])
        raise_failures(fc)
    if design:
        layout = SummaryLayout(design=tuple(design))
        summary, _, _ = summarize(rows, cols, np.zeros(len(rows), dtype=bool), layout)
        check_summary(summary, pairing_schemas(layout, a, b), rows)

    # missing runs: the policy, at the run level
    is_a = (rows[model] == a).to_numpy(dtype=bool)
    nan = np.isnan(x)
    n_missing_a, n_missing_b = int((nan & is_a).sum()), int((nan & ~is_a).sum())
    observed = x[~nan]
    binary = bool(observed.size) and bool(np.isin(observed, (0.0, 1.0)).all())
    if fill_value is None and missing == "as-failure" and binary:
        fill_value = 0.0 if higher_is_better else 1.0  # the worse value, as for cases
    n_dropped = n_filled = 0
    if nan.any():
        if missing == "error":
            for flag, role, name in ((is_a, "A", a), (~is_a, "B", b)):
                hit = nan & flag
                if hit.any():
                    fc = _failures(
                        score, f"missing run for {role} ({name})", rows[case][hit], rows[run][hit]
                    )
                    raise_failures(fc)
        if missing == "complete-case":
            keep = ~nan
            rows, x, is_a = rows.loc[keep], x[keep], is_a[keep]
            n_dropped = n_missing_a + n_missing_b
        else:  # as-failure
            if fill_value is None:
                msg = (
                    "`fill_value` is required with missing='as-failure' unless the scores "
                    f"are binary 0/1; {n_missing_a + n_missing_b} run(s) need a value."
                )
                raise ValueError(msg)
            if not np.isfinite(float(fill_value)):
                msg = f"`fill_value` must be a finite number; got {fill_value!r}."
                raise ValueError(msg)
            x = np.where(nan, float(fill_value), x)
            n_filled = n_missing_a + n_missing_b

    # each (case, model)'s mean over its runs, then the ordinary pairing of the means
    means = rows.assign(**{score: x}).groupby(
        [case, model], sort=False, observed=True, dropna=False
    )
    reduced = means[[score]].mean().reset_index()
    if design:
        firsts = means[design].first().reset_index(drop=True)
        reduced = pd.concat([reduced, firsts], axis=1)
    data = pair(
        reduced, cols, a, b, missing=missing, fill_value=fill_value,
        higher_is_better=higher_is_better,
    )  # fmt: skip
    data = replace(data, source=df)

    frame = data.frame
    pos = frame.index.get_indexer(pd.Index(rows[case]))
    ptr_runs: list[tuple[np.ndarray, np.ndarray]] = []
    for flag, name in ((is_a, data.a), (~is_a, data.b)):
        p, v = pos[flag], x[flag]
        kept = p >= 0  # cases the policy dropped are gone
        p, v = p[kept], v[kept]
        counts = np.bincount(p, minlength=len(frame))
        empty = np.flatnonzero(counts == 0)  # filled for this model: one run of the fill value
        if empty.size:
            p = np.concatenate([p, empty])
            v = np.concatenate([v, frame[name].to_numpy(dtype=np.float64)[empty]])
        order = np.lexsort((v, p))
        ptr = np.concatenate([[0], np.cumsum(np.bincount(p, minlength=len(frame)))])
        ptr_runs.append((ptr.astype(np.int64), v[order]))
    (ptr_a, runs_a), (ptr_b, runs_b) = ptr_runs
    r_a, r_b = np.diff(ptr_a), np.diff(ptr_b)
    summary = RunSummary(
        repeat=str(cols.repeat), column=str(run), policy=missing,
        n_runs_a=int(r_a.sum()), n_runs_b=int(r_b.sum()),
        min_runs_a=int(r_a.min()), max_runs_a=int(r_a.max()),
        min_runs_b=int(r_b.min()), max_runs_b=int(r_b.max()),
        n_missing_runs_a=n_missing_a, n_missing_runs_b=n_missing_b,
        n_runs_dropped=n_dropped, n_runs_filled=n_filled,
        fill_value=None if fill_value is None or missing != "as-failure" else float(fill_value),
    )  # fmt: skip
    return data, CaseRuns(ptr_a=ptr_a, runs_a=runs_a, ptr_b=ptr_b, runs_b=runs_b, summary=summary)
