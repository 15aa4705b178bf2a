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

:class:`PandasPairs` is the in-memory backend (score and prediction mode);
the Dask backend lives in :mod:`pdpaired.pairs.dask.pairs`. The design helpers
shared by both (resolving ``unit`` / ``weighting`` / ``stratified`` and
describing a design) are here too.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol

import numpy as np
import pandas as pd

from pdpaired.core.engine import Design
from pdpaired.pairs.units import UnitTable, quantize, segment_sum
from pdpaired._lib.validation import check_bool, check_choice
from pdpaired.pairs.pairing import (
    Columns,
    PairedData,
    check_groups_nested,
    pair,
    slice_values,
    sorted_codes,
)
from pdpaired.pairs.repeats import CaseRuns
from pdpaired.results.missing import MissingSummary
from pdpaired.results.slices import slice_label

__all__ = [
    "CaseArrivals",
    "DesignMeta",
    "FillUnits",
    "PairsBackend",
    "PandasPairs",
    "PassFlags",
    "design_meta",
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

    Implementations: :class:`PandasPairs` (in memory) and
    ``pdpaired.pairs.dask.pairs.DaskPairs`` (a Dask table reduced by graphs).
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


# --------------------------------------------------------------------------- pandas
class PandasPairs:
    """Validated pairs in memory: one row per case, sorted by case id.

    Holds the :class:`~pdpaired.pairs.pairing.PairedData` and, in prediction mode,
    the target coded as numbers (``target``). Caches the unit table of each
    design it has been asked for: the pairs never change.
    """

    kind = "pandas"

    def __init__(
        self,
        data: PairedData,
        *,
        target: np.ndarray | None = None,
        runs: CaseRuns | None = None,
    ) -> None:
        self.data = data
        self.target = target
        self._runs = runs
        self._unit_tables: dict[tuple[str, bool], UnitTable] = {}
        #: What a measure derives from these pairs and keeps (they never change).
        self.memo: dict[Any, Any] = {}

    # -- descriptive --------------------------------------------------------
    @property
    def a(self) -> str:
        """Model A."""
        return self.data.a

    @property
    def b(self) -> str:
        """Model B."""
        return self.data.b

    @property
    def columns(self) -> Columns:
        """The resolved column names."""
        return self.data.columns

    @property
    def missing(self) -> MissingSummary:
        """The declared missing-outcome policy and what it did."""
        return self.data.missing

    @property
    def n_cases(self) -> int:
        """Number of paired cases."""
        return len(self.data.table)

    @property
    def binary(self) -> bool:
        """Whether every analysed score is 0 or 1."""
        return bool(self.data.binary)

    @property
    def n_groups(self) -> int | None:
        """Number of distinct groups (None without a group column)."""
        group = self.data.columns.group
        return None if group is None else int(self.column(group, ordered=False).nunique())

    @property
    def values_a(self) -> np.ndarray:
        """Prediction mode: A's outputs, ``(n,)`` or ``(n, K)``."""
        assert self.data.values_a is not None
        return self.data.values_a

    @property
    def values_b(self) -> np.ndarray:
        """Prediction mode: B's outputs."""
        assert self.data.values_b is not None
        return self.data.values_b

    def pairs_frame(self) -> pd.DataFrame:
        """Return the wide per-case table (a fresh copy)."""
        return self.data.frame.copy()

    def per_case(self) -> pd.DataFrame:
        """Return the per-case table (a fresh copy of the pairs)."""
        return self.pairs_frame()

    def canonical_table(self) -> pd.DataFrame:
        """Return the aligned pairs, one row per case sorted by case id."""
        return self.data.frame

    def describe(self) -> str:
        """Nothing to add: an in-memory table."""
        return ""

    def runs(self) -> CaseRuns | None:
        """Each model's runs on every case (``repeat="sample"``; a slice has none)."""
        return self._runs

    def with_collect(self, collect: bool) -> PandasPairs:
        """Return these pairs: an in-memory table is already collected."""
        check_bool(collect, "collect")
        return self

    def subset(self, mask: np.ndarray) -> PandasPairs:
        """Return the same pairs restricted to the cases where ``mask`` is True."""
        return PandasPairs(
            self.data.subset(mask), target=None if self.target is None else self.target[mask]
        )

    # -- per-case columns -------------------------------------------------------
    def column(self, name: str, *, ordered: bool = True) -> pd.Series:
        """Return a per-case column (multiclass pairs have two column levels).

        ``ordered=False``: the cases in any order (for order-free reductions).
        """
        col = (self.data.frame if ordered else self.data.table)[name]
        return col.iloc[:, 0] if isinstance(col, pd.DataFrame) else col

    def strata(self, use_strata: bool, *, ordered: bool = True) -> tuple[np.ndarray, pd.Index]:
        """Stratum code of each case (sorted labels), or one stratum ``"all"``."""
        stratum = self.data.columns.stratum
        if not use_strata:
            return np.zeros(self.n_cases, dtype=np.int64), pd.Index(["all"])
        assert stratum is not None
        return sorted_codes(self.column(stratum, ordered=ordered))

    def groups(self, s_codes: np.ndarray, *, ordered: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """Group code of each case and the stratum of each group (sorted labels).

        Raises
        ------
        PairingError
            If a group spans several strata.
        """
        group = self.data.columns.group
        assert group is not None
        g_codes, g_labels = sorted_codes(self.column(group, ordered=ordered))
        # a group is nested when its cases' lowest and highest stratum codes agree
        # (unbuffered ufunc.at: no temporary as long as the cases)
        g_stratum = np.full(len(g_labels), np.iinfo(np.int64).max, dtype=np.int64)
        np.minimum.at(g_stratum, g_codes, s_codes)
        highest = np.full(len(g_labels), -1, dtype=np.int64)
        np.maximum.at(highest, g_codes, s_codes)
        check_groups_nested(list(g_labels[g_stratum != highest]))
        return g_codes, g_stratum

    # -- reductions ---------------------------------------------------------------
    def unit_table(self, unit: str, use_strata: bool) -> UnitTable:
        """Exact per-unit sums of the scores on the data's grid (cached per design)."""
        key = (unit, use_strata)
        if key not in self._unit_tables:
            self._unit_tables[key] = self._build_unit_table(unit, use_strata)
        return self._unit_tables[key]

    def _build_unit_table(self, unit: str, use_strata: bool) -> UnitTable:
        # group sums are exact integers, so the order of the cases cannot change them:
        # a cluster design reads the cases as pairing left them (no sort by case id)
        ordered = unit != "group"
        frame = self.data.frame if ordered else self.data.table
        k = self.data.scale_exp
        n = len(frame)
        s_codes, s_labels = self.strata(use_strata, ordered=ordered)
        if unit == "group":
            g_codes, g_stratum = self.groups(s_codes, ordered=False)
            del s_codes  # per case; the groups carry the strata from here
            n_units = len(g_stratum)
            rank, unit_stratum = order_units(g_stratum)  # by (stratum, group label)
            unit_of_case = (
                rank.astype(np.int32, copy=False)[g_codes] if n_units < 2**31 else rank[g_codes]
            )
            del g_codes  # the largest temporaries come one at a time (this bounds the peak memory)
            # one model's grid integers at a time: the largest arrays never coexist
            sum_a = segment_sum(
                quantize(frame[self.a].to_numpy(np.float64), k), unit_of_case, n_units
            )
            sum_b = segment_sum(
                quantize(frame[self.b].to_numpy(np.float64), k), unit_of_case, n_units
            )
            count = np.bincount(unit_of_case, minlength=n_units).astype(np.int64)
        else:
            unit_of_case, unit_stratum = order_units(s_codes)  # by (stratum, case id)
            qa = quantize(frame[self.a].to_numpy(dtype=np.float64), k)
            qb = quantize(frame[self.b].to_numpy(dtype=np.float64), k)
            sum_a = np.empty(n, dtype=np.int64)
            sum_b = np.empty(n, dtype=np.int64)
            sum_a[unit_of_case], sum_b[unit_of_case] = qa, qb
            count = np.ones(n, dtype=np.int64)
        return UnitTable(
            sum_a=sum_a, sum_b=sum_b, count=count, stratum=unit_stratum, s_labels=s_labels,
            k=k, unit=unit,
        )  # fmt: skip

    def stratum_totals(self, use_strata: bool) -> UnitTable:  # pragma: no cover - never asked
        """Not needed in memory: :meth:`unit_table` always reduces."""
        msg = "in-memory pairs always reduce to a unit table"
        raise NotImplementedError(msg)

    def partition_sums(
        self, kind: str, n_rep: int, seed_words: np.ndarray, use_strata: bool
    ) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover - never asked
        """Not needed in memory: :meth:`unit_table` always reduces."""
        msg = "in-memory pairs always reduce to a unit table"
        raise NotImplementedError(msg)

    def pass_flags(self, good: float) -> PassFlags:
        """Pass/fail flags of both models; ValueError naming the scores that are not 0/1."""
        frame = self.data.table  # counts only: any order
        a_val = frame[self.a].to_numpy(dtype=np.float64)
        b_val = frame[self.b].to_numpy(dtype=np.float64)
        both = np.concatenate([a_val, b_val])
        bad = ~np.isin(both, (0.0, 1.0))
        if bad.any():
            raise ValueError(non_binary_message(int(bad.sum()), pd.unique(both[bad])))
        return PassFlags(a_pass=a_val == good, b_pass=b_val == good)

    # -- slices -------------------------------------------------------------------
    def slices(self, column: str) -> Iterator[tuple[Any, int, Callable[[], PandasPairs]]]:
        """Yield ``(value, n_cases, restrict)`` for each value of a slice column, in order.

        Missing values form their own slice; a categorical keeps its category
        order, other values are sorted (see :func:`value_order`).
        """
        values = slice_values(self.data, column)
        codes, labels = pd.factorize(values, use_na_sentinel=False)
        for i in value_order(labels, values):
            mask = codes == i
            yield labels[i], int(mask.sum()), partial(self.subset, mask)

    def arrivals(self, order: str) -> CaseArrivals:
        """Both scores, the arrival key and the group of every case, sorted by case id.

        ``order`` is a column constant within a case (checked like a slice
        column), or the case id column itself.
        """
        cols, frame = self.data.columns, self.data.frame
        if not isinstance(order, str):
            msg = f"`order` must be a column name; got {order!r}."
            raise TypeError(msg)
        source = self.data.source
        if order != cols.case and source is not None and order not in source.columns:
            msg = f"`order` column {order!r} not found; the table has {list(source.columns)}."
            raise ValueError(msg)
        if order == cols.case:
            arrival = pd.Series(frame.index, index=frame.index)
        else:
            arrival = slice_values(self.data, order)
        return CaseArrivals(
            score_a=frame[self.a].to_numpy(dtype=np.float64),
            score_b=frame[self.b].to_numpy(dtype=np.float64),
            case_ids=frame.index,
            order=arrival,
            group=None if cols.group is None else self.column(cols.group),
            n_strata=None if cols.stratum is None else int(self.column(cols.stratum).nunique()),
        )

    def fill_units(self, unit: str, use_strata: bool) -> FillUnits:
        """Every case of the long table, missing outputs counted, summed per unit.

        The table is paired again (the same rules) with every missing output
        filled twice, with 0 and with 1: the outputs that differ are the
        missing ones, whatever the comparison's policy dropped or filled.
        Units are ordered like :meth:`unit_table`'s: by stratum, then case id
        or group label.
        """
        source = self.data.source
        if source is None or self.data.values_a is not None:
            msg = "fill_units needs the long table of a score-mode comparison"
            raise NotImplementedError(msg)
        cols, a, b = self.data.columns, self.a, self.b
        at0 = pair(source, cols, a, b, missing="as-failure", fill_value=0.0)
        at1 = pair(source, cols, a, b, missing="as-failure", fill_value=1.0)
        f0, f1 = at0.frame, at1.frame
        va0, vb0 = f0[a].to_numpy(np.float64), f0[b].to_numpy(np.float64)
        miss_a = va0 != f1[a].to_numpy(np.float64)
        miss_b = vb0 != f1[b].to_numpy(np.float64)
        full = PandasPairs(at0)
        s_codes, s_labels = full.strata(use_strata)
        if unit == "group":
            g_codes, g_stratum = full.groups(s_codes)
            rank, unit_stratum = order_units(g_stratum)  # by (stratum, group label)
            unit_of_case = rank[g_codes]
        else:
            unit_of_case, unit_stratum = order_units(s_codes)  # by (stratum, case id)
        return fill_units_from_cases(va0, vb0, miss_a, miss_b, unit_of_case, unit_stratum,
                                     s_labels)  # fmt: skip


def non_binary_message(total: int, values: np.ndarray) -> str:
    """Say which values make the scores non-binary (up to ten of them)."""
    shown = ", ".join(f"{v:g}" for v in values[:10])
    return (
        f"exact_binomial needs binary 0/1 scores; found {total} other value(s): {shown}"
        + (" ..." if values.size > 10 else "")
        + ". Use bootstrap() or randomization() for other scores."
    )
