"""A reproducible selection / confirmation split of a table's cases.

:func:`split_table` splits a table's cases (or whole groups) into a
selection and a confirmation part, within strata, reproducibly from the
seed (the ``"split"`` stream), so a candidate chosen on the first part can
be confirmed on cases that played no part in the choice;
:func:`split_block` is what a confirmation report records of the split,
after checking that the comparison's cases all lie in the confirmation
part.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from pdpaired._lib.rng import normalize_rng, stream_sequence
from pdpaired.artifacts.digests import ids_sha256
from pdpaired.pairs.rules import ids_text
from pdpaired.results.split import SplitResult

__all__ = ["split_block", "split_table"]


def _sorted(values: Sequence[Any]) -> list[Any]:
    """Return distinct values sorted (by ``repr`` when they do not sort): row order free."""
    out = list(pd.unique(np.asarray(list(values), dtype=object)))
    try:
        out.sort()
    except TypeError:
        out.sort(key=repr)
    return out


def _check_column(df: pd.DataFrame, name: Any, param: str, case: str) -> str | None:
    if name is None:
        return None
    if not isinstance(name, str) or name not in df.columns:
        msg = f"`{param}` must name a column of the table; got {name!r}."
        raise ValueError(msg)
    if name == case:
        msg = f"`{param}` must name a column other than the case ids {case!r}."
        raise ValueError(msg)
    missing = df[name].isna().to_numpy()
    if missing.any():
        ids = _sorted(df.loc[missing, case])
        msg = (
            f"`{param}` column {name!r} has {int(missing.sum())} missing value(s); every row "
            f"must have one, in {len(ids)} case(s); first ids: {ids_text(ids)}."
        )
        raise ValueError(msg)
    return name


def _one_value_per(df: pd.DataFrame, key: str, column: str, what: str, param: str) -> pd.Series:
    """Return ``column``'s one value per ``key`` value; an error names the keys with several."""
    counts = df.groupby(key, sort=False, observed=True)[column].nunique()
    bad = counts.index[counts.to_numpy() > 1]
    if len(bad):
        ids = _sorted(bad)
        msg = (
            f"every {what} must lie in one value of `{param}` column {column!r}; "
            f"{len(ids)} {what}(s) span several; first: {ids_text(ids)}."
        )
        raise ValueError(msg)
    return df.groupby(key, sort=False, observed=True)[column].first()


def split_table(
    df: pd.DataFrame,
    case: str,
    fraction: Any,
    *,
    by: Any,
    stratify: Any,
    rng: int | np.random.Generator | None,
) -> SplitResult:
    """Split ``df``'s cases (whole groups with ``by``) into selection and confirmation parts.

    Within each stratum (value of ``stratify``; one stratum without it) the
    units (cases, or groups of ``by``) are sorted, shuffled by the
    ``"split"`` stream of the seed at the stratum's position among the
    sorted strata, and the first ``round(fraction * G)`` of its ``G`` units
    go to the selection part -- at least one and at most ``G - 1`` when
    ``G >= 2``; a stratum of one unit sends it to the selection part with
    probability ``fraction``. The split depends on the table's content, the
    seed and the arguments only, never on its row order.
    """
    if (
        isinstance(fraction, (bool, np.bool_))
        or not isinstance(fraction, (int, float, np.integer, np.floating))
        or not 0.0 < float(fraction) < 1.0
    ):
        msg = (
            "`fraction` must be a number strictly between 0 and 1 (the selection part's share "
            f"of the cases); got {fraction!r}."
        )
        raise ValueError(msg)
    fraction = float(fraction)
    if case not in df.columns:
        msg = (
            f"the case-id column {case!r} is not in the table (configure it: df.paired(case=...))."
        )
        raise ValueError(msg)
    if df[case].isna().any():
        msg = f"the case-id column {case!r} has {int(df[case].isna().sum())} missing value(s)."
        raise ValueError(msg)
    by = _check_column(df, by, "by", case)
    stratify = _check_column(df, stratify, "stratify", case)
    if by is not None:
        _one_value_per(df, case, by, "case", "by")  # a case in two groups cannot stay whole
    unit_col = by if by is not None else case
    if stratify is not None:
        unit_stratum = _one_value_per(df, unit_col, stratify, "group" if by else "case",
                                      "stratify")  # fmt: skip
    units = _sorted(df[unit_col])
    if len(units) < 2:
        msg = f"split needs at least two {'groups' if by else 'cases'}; the table has {len(units)}."
        raise ValueError(msg)
    seed = normalize_rng(rng)
    if stratify is None:
        strata = {0: units}
    else:
        by_stratum: dict[Any, list[Any]] = {}
        for u in units:  # sorted units, so each stratum's list is sorted
            by_stratum.setdefault(unit_stratum[u], []).append(u)
        strata = {h: by_stratum[s] for h, s in enumerate(_sorted(by_stratum))}
    chosen: set[Any] = set()
    for h, members in strata.items():
        gen = np.random.Generator(np.random.PCG64(stream_sequence(seed.seed_sequence, "split", h)))
        g = len(members)
        if g == 1:
            if gen.random() < fraction:
                chosen.add(members[0])
            continue
        take = min(g - 1, max(1, int(np.floor(fraction * g + 0.5))))
        order = gen.permutation(g)[:take]
        chosen.update(members[i] for i in order)
    in_selection = df[unit_col].isin(list(chosen)).to_numpy()
    sel, conf = df.loc[in_selection].copy(), df.loc[~in_selection].copy()
    sel_ids, conf_ids = _sorted(sel[case]), _sorted(conf[case])
    return SplitResult(
        selection=sel,
        confirmation=conf,
        fraction=fraction,
        by=by,
        stratify=stratify,
        case=case,
        seed=seed.seed,
        n_selection_cases=len(sel_ids),
        n_confirmation_cases=len(conf_ids),
        n_selection_units=len(chosen),
        n_confirmation_units=len(units) - len(chosen),
        selection_ids_sha256=ids_sha256(pd.Index(sel_ids)),
        confirmation_ids_sha256=ids_sha256(pd.Index(conf_ids)),
    )


def split_block(split: SplitResult, case_ids: pd.Index) -> dict[str, Any]:
    """Check that ``case_ids`` (a comparison's cases) lie in the confirmation part; the record.

    The record is :meth:`SplitResult.record` (local form: with the digests of
    both parts' ids); an error names the cases that are in the selection part
    or in neither.
    """
    if not isinstance(split, SplitResult):
        msg = (
            f"`split` must be the SplitResult of df.paired.split(...); got {type(split).__name__}."
        )
        raise TypeError(msg)
    ids = list(case_ids)
    in_sel = set(split.selection[split.case].tolist())
    in_conf = set(split.confirmation[split.case].tolist())
    leaked = _sorted([x for x in ids if x in in_sel])
    if leaked:
        msg = (
            f"the confirmation comparison must use only cases of the split's confirmation part; "
            f"{len(leaked)} case(s) are in its selection part; first ids: {ids_text(leaked)}."
        )
        raise ValueError(msg)
    outside = _sorted([x for x in ids if x not in in_conf])
    if outside:
        msg = (
            f"the confirmation comparison must use only cases of the split's confirmation part; "
            f"{len(outside)} case(s) are in neither part; first ids: {ids_text(outside)}."
        )
        raise ValueError(msg)
    return split.record(kind="local")
