"""Sequential monitoring of a comparison: cases (or groups) in arrival order.

:meth:`Comparison.sequential <pdpaired.Comparison.sequential>` hands this
module its pairs and measure; :func:`arrivals` reads the per-case scores,
the arrival column and the groups (:class:`Arrivals`), and
:func:`paired_sequence` orders the cases, forms the differences in the
improvement direction, checks them against the declared bounds and runs the
confidence sequence of :mod:`pdpaired.core.sequential` over the whole path.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from pdpaired._lib.errors import MAX_IDS_SHOWN
from pdpaired.analysis.measures import Measure
from pdpaired.core.sequential import (
    SequenceState,
    check_differences,
    extend,
    sequence_iv,
    sequence_result,
)
from pdpaired.pairs.backend import PairsBackend
from pdpaired.results.missing import MissingSummary
from pdpaired.results.sequential import SequenceResult

__all__ = ["Arrivals", "arrivals", "paired_sequence"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Arrivals:
    """What a comparison hands to sequential monitoring, one entry per case (sorted by id)."""

    a: str
    b: str
    higher_is_better: bool
    score_a: np.ndarray
    score_b: np.ndarray
    case_ids: pd.Index
    order_name: str
    order: pd.Series  # the arrival key of each case
    group: pd.Series | None  # the group of each case, or None
    n_strata: int | None
    binary: bool
    missing: MissingSummary


def arrivals(pairs: PairsBackend, measure: Measure, order: str) -> Arrivals:
    """Return the per-case scores, arrival key and groups of a comparison (score mode)."""
    if measure.task != "score":
        msg = (
            "sequential() needs per-case scores (score mode); in prediction mode compute a "
            "per-case score column first (e.g. correct = prediction == target)."
        )
        raise ValueError(msg)
    got = pairs.arrivals(order)
    return Arrivals(
        a=pairs.a, b=pairs.b, higher_is_better=measure.higher_is_better, score_a=got.score_a,
        score_b=got.score_b, case_ids=got.case_ids, order_name=order, order=got.order,
        group=got.group, n_strata=got.n_strata, binary=pairs.binary, missing=pairs.missing,
    )  # fmt: skip


def _ids(values: Any) -> str:
    shown = ", ".join(repr(v) for v in list(values)[:MAX_IDS_SHOWN])
    return shown + (" ..." if len(values) > MAX_IDS_SHOWN else "")


def paired_sequence(arr: Arrivals, *, alpha: Any, bounds: Any, alternative: Any) -> SequenceResult:
    """Run the confidence sequence over the cases (or groups) of ``arr`` in arrival order.

    ``bounds`` is the range of a score difference ``A - B`` (default
    ``(-1, 1)`` for 0/1 scores, required otherwise); the sequence runs on
    the improvement (``B - A`` when lower is better), whose range is mirrored.
    """
    if bounds is None:
        if not arr.binary:
            msg = (
                "`bounds` is required unless the scores are 0/1: give the range every score "
                "difference A - B can take, fixed before seeing the data (for scores in [l, u]: "
                "bounds=(l - u, u - l)). A confidence sequence for bounded scores is only valid "
                "for bounds that no case can exceed."
            )
            raise ValueError(msg)
        bounds = (-1.0, 1.0)
    opts = sequence_iv(alpha=alpha, alternative=alternative, bounds=bounds)
    raw_low, raw_high = opts.bounds
    sign = 1.0 if arr.higher_is_better else -1.0
    if sign < 0:
        opts = sequence_iv(alpha=opts.alpha, alternative=opts.alternative,
                           bounds=(-raw_high, -raw_low))  # fmt: skip
    raw = arr.score_a - arr.score_b
    try:
        check_differences(raw, (raw_low, raw_high), labels=np.asarray(arr.case_ids),
                          what="score difference A - B")  # fmt: skip
    except ValueError as err:
        msg = str(err).replace("(id: value)", "(case id: difference A - B)")
        raise ValueError(msg) from None

    order = arr.order
    absent = order.isna().to_numpy()
    if absent.any():
        ids = arr.case_ids[absent]
        msg = (
            f"The `order` column {arr.order_name!r} has no value for {ids.size} case(s): "
            f"{_ids(ids)}. Every case needs an arrival position."
        )
        raise ValueError(msg)
    # cases sorted by id, then stably by arrival: ties arrive in case-id order
    try:
        rank = np.asarray(order.argsort(kind="stable"))
    except TypeError as err:
        msg = f"The `order` column {arr.order_name!r} mixes values that cannot be ordered."
        raise ValueError(msg) from err

    d_case = sign * raw
    n_groups = None
    if arr.group is None:
        d = d_case[rank]
        mean_a, mean_b = float(np.mean(arr.score_a)), float(np.mean(arr.score_b))
        unit = "case"
    else:
        codes, _ = pd.factorize(arr.group, sort=True)
        n_groups = int(codes.max()) + 1 if codes.size else 0
        count = np.bincount(codes, minlength=n_groups).astype(np.float64)
        g_d = np.bincount(codes, weights=d_case, minlength=n_groups) / count
        g_a = np.bincount(codes, weights=arr.score_a, minlength=n_groups) / count
        g_b = np.bincount(codes, weights=arr.score_b, minlength=n_groups) / count
        # a group arrives with its first case: order groups by their first case's position
        first = np.full(n_groups, rank.size, dtype=np.int64)
        np.minimum.at(first, codes[rank], np.arange(rank.size))
        g_rank = np.argsort(first, kind="stable")
        d = g_d[g_rank]
        mean_a, mean_b = float(np.mean(g_a)), float(np.mean(g_b))
        unit = "group"
    path, state = extend(SequenceState(), d, opts)
    return sequence_result(
        path, state, opts, a=arr.a, b=arr.b, higher_is_better=arr.higher_is_better,
        metric_a=mean_a, metric_b=mean_b, unit=unit, order=arr.order_name,
        n_cases=int(arr.score_a.size), n_groups=n_groups, n_strata=arr.n_strata,
        missing=arr.missing,
    )  # fmt: skip
