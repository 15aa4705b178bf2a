"""Where the validated pairs live, and what an analysis may ask of them.

A :class:`~pdpaired.Comparison` holds a *backend* (the pairs) and a *measure*
(the statistic, :mod:`pdpaired.analysis.measures`) and never knows which backend it
holds. :class:`PairsBackend` is the small protocol between them, in the
spirit of pandera's split of a schema from its pandas / polars backends:

* what every backend knows: the two models, the resolved columns, the
  missing-outcome summary, the number of cases, whether outcomes are 0/1;
* exact per-unit sums for a design (:meth:`PairsBackend.unit_table`), the
  pass/fail flags of the exact binomial test, the slices of a column, and the
  canonical per-case table a report digests;
* optionally, resampling *where the rows are*: a backend that cannot reduce
  continuous scores by case to a client-side table (Dask, without
  ``collect=True``) returns ``None`` from ``unit_table`` and supplies
  per-stratum totals and partition-side Poisson / sign-flip sums instead.

The backends live in subpackages with the same file names, in the spirit of
pandera's ``backends/<library>/``: the in-memory one (score and prediction
mode) in :mod:`pdpaired.pairs.pandas` (``PandasPairs``), the Dask one in
:mod:`pdpaired.pairs.dask` (``DaskPairs``). What every backend shares is here:
the protocol, the records it returns (:class:`DesignMeta`,
:class:`CaseArrivals`, :class:`FillUnits`, :class:`PassFlags`) and the design
helpers (resolving ``unit`` / ``weighting`` / ``stratified``, describing a
design, ordering units and slice values).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import pandas as pd

from pdpaired._lib.validation import check_choice
from pdpaired.core.engine import Design
from pdpaired.pairs.columns import Columns
from pdpaired.pairs.units import UnitTable
from pdpaired.results.missing import MissingSummary
from pdpaired.results.slices import slice_label

if TYPE_CHECKING:
    from pdpaired.pairs.crossed import CrossedCells
    from pdpaired.pairs.repeats import CaseRuns

__all__ = [
    "CaseArrivals",
    "DesignMeta",
    "FillUnits",
    "PairsBackend",
    "PassFlags",
    "design_meta",
    "fill_units_from_cases",
    "non_binary_message",
    "order_units",
    "resolve_design",
    "slice_label",
    "value_order",
]


# --------------------------------------------------------------------------- designs
@dataclass(frozen=True, slots=True, kw_only=True)
class DesignMeta:
    """Point estimates of the two metrics and the description of an analysis' design."""

    metric_a: float
    metric_b: float
    n_groups: int | None
    n_strata: int | None
    unit: str
    weighting: str
    sampling: str
    stratum_weights: dict[str, float] | None


@dataclass(frozen=True, slots=True, kw_only=True)
class CaseArrivals:
    """Per case, sorted by id: both scores, an arrival key and the group (sequential monitoring)."""

    score_a: np.ndarray
    score_b: np.ndarray
    case_ids: pd.Index
    order: pd.Series  # the arrival key of each case
    group: pd.Series | None  # the group of each case, or None
    n_strata: int | None


@dataclass(frozen=True, slots=True, kw_only=True)
class FillUnits:
    """Per unit (case or group), sorted by stratum: the observed outputs and the missing ones.

    What missing-outcome sensitivity needs: every case of the table, each
    missing output (an absent row or a NaN score) counted instead of filled,
    so that filling A's missing outputs with ``f_a`` and B's with ``f_b`` gives
    the unit's sum of paired differences ``observed + f_a * missing_a - f_b *
    missing_b`` (linear in the fills).

    Attributes
    ----------
    observed : ndarray of float64
        Sum over the unit's cases of A's output minus B's, a missing output counting 0.
    missing_a, missing_b : ndarray of int64
        Missing outputs of A (of B) in the unit.
    count : ndarray of int64
        Cases in the unit.
    unit_ptr : ndarray of int64
        Rows of stratum ``h`` are ``unit_ptr[h]:unit_ptr[h + 1]``.
    s_labels : Index
        Stratum labels (sorted; ``["all"]`` without strata).
    freq : ndarray of int64 or None
        How many identical units each row stands for (a compressed table).
    n_missing_a, n_missing_b, n_missing_both : int
        Cases missing for A, for B, for both.
    low, high : float
        Smallest and largest observed output of either model (NaN if none).
    binary : bool
        Whether every observed output is 0 or 1.
    """

    observed: np.ndarray
    missing_a: np.ndarray
    missing_b: np.ndarray
    count: np.ndarray
    unit_ptr: np.ndarray
    s_labels: pd.Index
    freq: np.ndarray | None
    n_missing_a: int
    n_missing_b: int
    n_missing_both: int
    low: float
    high: float
    binary: bool

    @property
    def n_cases(self) -> int:
        """Cases in the table (missing ones included)."""
        f = np.ones(self.count.size, np.int64) if self.freq is None else self.freq
        return int(np.sum(self.count * f))


def fill_units_from_cases(
    a_obs: np.ndarray,
    b_obs: np.ndarray,
    miss_a: np.ndarray,
    miss_b: np.ndarray,
    unit_of_case: np.ndarray,
    unit_stratum: np.ndarray,
    s_labels: pd.Index,
) -> FillUnits:
    """Sum per-case outputs (a missing one: any value, ignored) into :class:`FillUnits`.

    ``unit_of_case`` numbers the units in their final order (sorted by
    stratum); ``unit_stratum`` is the stratum code of each unit.
    """
    n_units = unit_stratum.size
    a0 = np.where(miss_a, 0.0, a_obs)
    b0 = np.where(miss_b, 0.0, b_obs)
    observed = np.bincount(unit_of_case, weights=a0 - b0, minlength=n_units)
    ma = np.bincount(unit_of_case, weights=miss_a, minlength=n_units).astype(np.int64)
    mb = np.bincount(unit_of_case, weights=miss_b, minlength=n_units).astype(np.int64)
    count = np.bincount(unit_of_case, minlength=n_units).astype(np.int64)
    seen = np.concatenate([a_obs[~miss_a], b_obs[~miss_b]])
    ptr = np.searchsorted(unit_stratum, np.arange(len(s_labels) + 1)).astype(np.int64)
    return FillUnits(
        observed=observed, missing_a=ma, missing_b=mb, count=count, unit_ptr=ptr,
        s_labels=s_labels, freq=None, n_missing_a=int(miss_a.sum()),
        n_missing_b=int(miss_b.sum()), n_missing_both=int((miss_a & miss_b).sum()),
        low=float(seen.min()) if seen.size else math.nan,
        high=float(seen.max()) if seen.size else math.nan,
        binary=bool(np.isin(seen, (0.0, 1.0)).all()),
    )  # fmt: skip


@dataclass(frozen=True, slots=True)
class PassFlags:
    """Pass/fail outcome of each case (or, with ``freq``, of each distinct outcome pair)."""

    a_pass: np.ndarray
    b_pass: np.ndarray
    freq: np.ndarray | None = None


def resolve_design(
    cols: Columns,
    unit: str | None,
    weighting: str,
    stratified: bool | None,
    stratum_weights: Mapping[Any, float] | pd.Series | None,
    *,
    stratified_without_column: bool = False,
) -> tuple[str, str, bool]:
    """Check the design arguments; return ``(unit, weighting, use_strata)``.

    ``stratified_without_column``: ``stratified=True`` is allowed without a
    stratum column (prediction mode, where it also means target classes).
    """
    if unit is None:
        unit = "group" if cols.group is not None else "case"
    unit = check_choice(unit, "unit", ("case", "group"))
    weighting = check_choice(weighting, "weighting", ("item", "group"))
    if unit == "group" and cols.group is None:
        msg = "`unit`='group' needs a group column: call df.paired(group='...') first."
        raise ValueError(msg)
    if weighting == "group" and unit != "group":
        msg = "`weighting`='group' (mean of group means) needs unit='group' and a group column."
        raise ValueError(msg)
    if stratified not in (None, True, False):
        msg = f"`stratified` must be None, True or False; got {stratified!r}."
        raise TypeError(msg)
    if stratified is True and cols.stratum is None and not stratified_without_column:
        msg = "`stratified`=True needs a stratum column: call df.paired(stratum='...') first."
        raise ValueError(msg)
    use_strata = cols.stratum is not None and stratified is not False
    if stratum_weights is not None and not use_strata:
        msg = "`stratum_weights` needs stratified resampling over a stratum column."
        raise ValueError(msg)
    return unit, weighting, use_strata


def design_meta(
    metric_a: float,
    metric_b: float,
    design: Design,
    s_labels: pd.Index,
    *,
    n_groups: int | None,
    unit: str,
    weighting: str,
    use_strata: bool,
) -> DesignMeta:
    """Point estimates and the description of a score-mode design (every backend)."""
    if use_strata and unit == "group":
        sampling = "stratified-cluster"
    elif use_strata:
        sampling = "stratified"
    else:
        sampling = "cluster" if unit == "group" else "iid"
    return DesignMeta(
        metric_a=metric_a,
        metric_b=metric_b,
        n_groups=n_groups,
        n_strata=len(s_labels) if use_strata else None,
        unit=unit,
        weighting=weighting,
        sampling=sampling,
        stratum_weights=(
            {str(k): float(w) for k, w in zip(s_labels, design.weight, strict=True)}
            if use_strata
            else None
        ),
    )


def order_units(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rank of each unit when sorted (stably) by ``key``, and the sorted keys.

    Codes that fit in int16 (strata) are sorted as int16, which NumPy's
    stable sort does by radix sort in O(n).
    """
    small = key.size > 0 and int(key.min()) >= -(2**15) and int(key.max()) < 2**15
    order = np.argsort(key.astype(np.int16) if small else key, kind="stable")
    rank = np.empty(key.size, dtype=np.int64)
    rank[order] = np.arange(key.size)
    return rank, key[order]


def value_order(labels: pd.Index | np.ndarray, values: pd.Series) -> list[int]:
    """Order slice values; missing values last.

    A categorical keeps its category order; other values are sorted (as text
    if they do not compare).
    """
    missing = [i for i, v in enumerate(labels) if slice_label(v) == "<missing>"]
    present = [i for i in range(len(labels)) if i not in set(missing)]
    if isinstance(values.dtype, pd.CategoricalDtype):
        rank = {c: k for k, c in enumerate(values.cat.categories)}
        present.sort(key=lambda i: rank[labels[i]])
        return present + missing
    try:
        present.sort(key=lambda i: labels[i])
    except TypeError:
        present.sort(key=lambda i: str(labels[i]))
    return present + missing


# --------------------------------------------------------------------------- the protocol
class PairsBackend(Protocol):
    """What a :class:`~pdpaired.Comparison` asks of the pairs it holds.

    Implementations: :class:`~pdpaired.pairs.pandas.backend.PandasPairs` (in memory) and
    :class:`~pdpaired.pairs.dask.backend.DaskPairs` (a Dask table reduced by graphs).
    """

    @property
    def kind(self) -> str:
        """``"pandas"`` or ``"dask"`` (shown in reprs only; analyses never branch on it)."""

    @property
    def a(self) -> str:
        """Model A."""

    @property
    def b(self) -> str:
        """Model B."""

    @property
    def columns(self) -> Columns:
        """The resolved column names."""

    @property
    def missing(self) -> MissingSummary:
        """The declared missing-outcome policy and what it did."""

    @property
    def n_cases(self) -> int:
        """Number of paired cases analysed."""

    @property
    def binary(self) -> bool:
        """Whether every analysed score is 0 or 1."""

    @property
    def n_groups(self) -> int | None:
        """Number of groups (None without a group column)."""

    def pairs_frame(self) -> pd.DataFrame:
        """Return the wide per-case table (a fresh copy); may refuse when it would not fit."""

    def per_case(self) -> Any:
        """Return the per-case table: a DataFrame, or a lazy one out of core."""

    def canonical_table(self) -> pd.DataFrame:
        """One row per case, sorted by case id, in memory (what a report digests)."""

    def unit_table(self, unit: str, use_strata: bool) -> UnitTable | None:
        """Exact per-unit sums of the scores for a design (None: resample in place)."""

    def stratum_totals(self, use_strata: bool) -> UnitTable:
        """Exact per-stratum sums (one 'unit' per stratum), for in-place resampling."""

    def partition_sums(
        self, kind: str, n_rep: int, seed_words: np.ndarray, use_strata: bool
    ) -> tuple[np.ndarray, np.ndarray]:
        """Replicate sums and case counts per stratum, computed where the rows are.

        ``kind`` is ``"poisson"`` (Poisson(1) case weights) or ``"flip"``
        (random signs); both keyed by the case id and ``seed_words``.
        """

    def pass_flags(self, good: float) -> PassFlags:
        """Pass/fail flags of both models (``good``: the passing value); ValueError if not 0/1."""

    def slices(self, column: str) -> Iterator[tuple[Any, int, Callable[[], PairsBackend]]]:
        """Yield ``(value, n_cases, restrict)`` for each value of a slice column, in order."""

    def arrivals(self, order: str) -> CaseArrivals:
        """Both scores, the arrival key (column ``order``) and the group of every case."""

    def fill_units(self, unit: str, use_strata: bool) -> FillUnits:
        """Every case of the table, its missing outputs counted, summed per unit (sensitivity)."""

    def with_collect(self, collect: bool) -> PairsBackend:
        """Return the same pairs with the ``collect`` option (a no-op in memory)."""

    def describe(self) -> str:
        """Extra text for the comparison's repr (``""`` or ``", npartitions=4"``)."""

    def runs(self) -> CaseRuns | None:
        """Each model's runs on every case (``repeat="sample"``), or None (one row per case)."""

    def cells(self) -> CrossedCells | None:
        """Each model's cell means of a crossed design (``factors=``), or None."""


def non_binary_message(total: int, values: np.ndarray) -> str:
    """Say which values make the scores non-binary (up to ten of them)."""
    shown = ", ".join(f"{v:g}" for v in values[:10])
    return (
        f"exact_binomial needs binary 0/1 scores; found {total} other value(s): {shown}"
        + (" ..." if values.size > 10 else "")
        + ". Use bootstrap() or randomization() for other scores."
    )
