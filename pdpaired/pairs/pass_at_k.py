"""Sampled outputs: several 0/1 rows per (case, model), reduced to per-case pass@k or pass^k.

Each row is one sample of a model's output on a case, with a 0/1 (or
boolean) ``correct`` column. :func:`pair_samples` checks the rows, applies
the missing-outcome policy to missing samples (NaN in ``correct``), counts
each (case, model)'s samples ``n`` and correct samples ``c``, replaces them
by the model's unbiased per-case estimate (:mod:`pdpaired.core.pass_at_k`)
and pairs the estimates with every rule of
:func:`pdpaired.pairs.pandas.pairing.pair` (so a case one model lacks
follows the missing-outcome policy as in any comparison). The estimate is
computed per case before the pairing: every analysis then resamples cases
(or groups, within strata) as for any per-case score.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pandas as pd

from pdpaired._lib.errors import PairingError
from pdpaired.core.pass_at_k import ESTIMATORS
from pdpaired.pairs.checks import check_columns, check_models_present
from pdpaired.pairs.columns import Columns
from pdpaired.pairs.pandas.pairing import PairedData, check_summary, pair, summarize
from pdpaired.pairs.rules import FAILURE_COLUMNS, SummaryLayout, pairing_schemas, raise_failures

__all__ = ["pair_samples"]


def _failures(column: str, rule: str, ids: Any, values: Any) -> pd.DataFrame:
    """Return a pandera-style failure table: one row per offending row (``index``: case id)."""
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


def _zero_one(values: pd.Series, column: str) -> np.ndarray:
    """Return a 0/1 column as float64 (NaN kept); raise naming the rows that are not 0/1."""
    if pd.api.types.is_bool_dtype(values.dtype):
        return values.to_numpy(dtype=np.float64, na_value=np.nan)
    if not pd.api.types.is_numeric_dtype(values.dtype):
        msg = (
            f"Pairing check failed: rule `0/1 correct` — column {column!r} has dtype "
            f"{values.dtype}; give 1 (or True) for a correct sample and 0 (or False) otherwise."
        )
        raise PairingError(msg, rule="0/1 correct")
    return values.to_numpy(dtype=np.float64, na_value=np.nan)


def pair_samples(
    df: pd.DataFrame,
    cols: Columns,
    a: Any,
    b: Any,
    *,
    k: int,
    kind: str,
    correct: str,
    missing: str,
    fill_value: float | None,
) -> PairedData:
    """Check the samples of A and B, estimate pass@k or pass^k per case and pair the estimates.

    Parameters
    ----------
    df : DataFrame
        Long table, one row per (case, model, sample). Never modified.
    cols : Columns
        The case, model, group and stratum columns (the score column is
        ``correct``; ``repeat`` and the prediction columns are not read).
    a, b : str
    k : int
        At least 1 (checked by the caller).
    kind : {"pass@k", "pass^k"}
    correct : str
        The 0/1 or boolean column, one value per sample.
    missing : {"error", "complete-case", "as-failure"}
        Applied to missing samples (NaN in ``correct``) first: an error
        naming them, dropped, or counted as incorrect; then, as always, to
        cases with no sample for a model (``"as-failure"`` fills the worst
        estimate, 0, unless ``fill_value`` says otherwise).
    fill_value : float, optional

    Returns
    -------
    PairedData
        The pairs of per-case estimates, in column ``correct`` (``source`` is
        ``df``, so slices read it).
    """
    estimator, _ = ESTIMATORS[kind]
    case, model = cols.case, cols.model
    cols = dataclasses.replace(
        cols, score=correct, repeat=None, factors=None, target=None, prediction=None
    )
    check_columns(df, cols)
    if correct in (case, model, *cols.design_columns()):
        msg = (
            f"The `correct` column must differ from the other configured columns; got {correct!r}."
        )
        raise ValueError(msg)
    design = cols.design_columns()
    present = set(pd.unique(df[model].dropna()))
    if a not in present or b not in present:
        check_models_present(list(present), cols, a, b)
    is_ab = df[model].isin([a, b]).to_numpy(dtype=bool)
    rows = df.loc[is_ab, list(dict.fromkeys([case, model, correct, *design]))]

    bad = rows[case].isna()
    if bad.any():
        labels = rows.index[bad].to_series()
        raise_failures(
            _failures(case, f"no missing {case}", labels, rows.loc[bad, case]), what="row"
        )
    x = _zero_one(rows[correct], correct)
    wrong = ~np.isnan(x) & ~np.isin(x, (0.0, 1.0))
    if wrong.any():
        raise_failures(_failures(correct, "0/1 correct", rows[case][wrong], rows[correct][wrong]))
    if design:  # group / stratum constant within a case
        layout = SummaryLayout(design=tuple(design))
        summary, _, _ = summarize(rows, cols, np.zeros(len(rows), dtype=bool), layout)
        check_summary(summary, pairing_schemas(layout, a, b), rows)

    # missing samples: the policy, at the sample level
    is_a = (rows[model] == a).to_numpy(dtype=bool)
    nan = np.isnan(x)
    if nan.any():
        if missing == "error":
            for flag, role, name in ((is_a, "A", a), (~is_a, "B", b)):
                hit = nan & flag
                if hit.any():
                    fc = _failures(
                        correct, f"missing sample for {role} ({name})", rows[case][hit],
                        rows[correct][hit],
                    )  # fmt: skip
                    raise_failures(fc)
        if missing == "complete-case":
            rows, x = rows.loc[~nan], x[~nan]
        else:  # as-failure: a missing sample is an incorrect one
            x = np.where(nan, 0.0, x)

    # n and c per (case, model), then the estimate, checked for at least k samples
    grouped = rows.assign(**{correct: x}).groupby(
        [case, model], sort=False, observed=True, dropna=False
    )
    counts = grouped[correct].agg(["size", "sum"])
    n = counts["size"].to_numpy(dtype=np.int64)
    c = np.rint(counts["sum"].to_numpy(dtype=np.float64)).astype(np.int64)
    few = n < k
    if few.any():
        ids = counts.index.get_level_values(0)[few]
        who = counts.index.get_level_values(1)[few]
        fc = _failures(
            correct, f"at least k={k} samples per (case, model)", ids,
            [f"{m}: {int(v)} sample(s)" for m, v in zip(who, n[few], strict=True)],
        )  # fmt: skip
        raise_failures(fc)
    reduced = counts.index.to_frame(index=False)
    reduced[correct] = estimator(n, c, k)
    if design:
        firsts = grouped[design].first().reset_index(drop=True)
        reduced = pd.concat([reduced, firsts], axis=1)
    if missing == "as-failure" and fill_value is None:
        fill_value = 0.0  # the worst estimate, as 0 is the worse 0/1 score
    data = pair(reduced, cols, a, b, missing=missing, fill_value=fill_value, higher_is_better=True)
    return dataclasses.replace(data, source=df)
