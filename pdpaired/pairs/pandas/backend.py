"""The in-memory backend: validated pairs held in a pandas table.

:class:`PandasPairs` implements :class:`~pdpaired.pairs.backend.PairsBackend`
for the pandas accessor in score and prediction mode. It holds the
:class:`~pdpaired.pairs.pandas.pairing.PairedData` of
:func:`~pdpaired.pairs.pandas.pairing.pair` and reduces them to the exact
unit sums, pass/fail flags, slices, arrivals and fill units a measure asks
for; the design helpers it shares with the Dask backend are
:mod:`pdpaired.pairs.backend`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import cached_property, partial
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from pdpaired._lib.validation import check_bool
from pdpaired.pairs.backend import (
    CaseArrivals,
    FillUnits,
    PassFlags,
    fill_units_from_cases,
    non_binary_message,
    order_units,
    value_order,
)
from pdpaired.pairs.checks import check_groups_nested
from pdpaired.pairs.pandas.pairing import PairedData, pair, slice_values, sorted_codes
from pdpaired.pairs.units import UnitTable, quantize, segment_sum

if TYPE_CHECKING:
    from pdpaired.pairs.columns import Columns
    from pdpaired.pairs.crossed import CrossedCells
    from pdpaired.pairs.repeats import CaseRuns
    from pdpaired.results.missing import MissingSummary

__all__ = ["PandasPairs"]


class PandasPairs:
    """Validated pairs in memory: one row per case, sorted by case id.

    Holds the :class:`~pdpaired.pairs.pandas.pairing.PairedData` and, in prediction mode,
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
        cells: CrossedCells | None = None,
    ) -> None:
        self.data = data
        self.target = target
        self._runs = runs
        self._cells = cells
        self._unit_tables: dict[tuple[str, bool], UnitTable] = {}
        self._slice_values: dict[str, pd.Series] = {}
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

    @cached_property
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

    def cells(self) -> CrossedCells | None:
        """Each model's cell means of a crossed design (``factors=``; a slice has none)."""
        return self._cells

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
        values = self._values(column)
        codes, labels = pd.factorize(values, use_na_sentinel=False)
        for i in value_order(labels, values):
            mask = codes == i
            yield labels[i], int(mask.sum()), partial(self.subset, mask)

    def _values(self, column: str) -> pd.Series:
        # a column's per-case values, checked once: by_slice reads them for the
        # slices and again for the heterogeneity test's units
        if column not in self._slice_values:
            self._slice_values[column] = slice_values(self.data, column)
        return self._slice_values[column]

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
