"""The Dask backend: :class:`DaskPairs`, a long Dask table reduced to pairs by graphs.

:class:`DaskPairs` implements :class:`~pdpaired.pairs.backend.PairsBackend` for the
``ddf.paired`` front end (:mod:`pdpaired.dask`). It holds graph code only:
no statistic (the measures of :mod:`pdpaired.analysis.measures` turn its sums into
intervals and p-values) and no pairing rule (those are :mod:`pdpaired.pairs.rules`'
pandera schemas, run per partition). The functions it maps over partitions
are :mod:`pdpaired.pairs.dask.pairing`'s and :mod:`pdpaired.pairs.dask.resampling`'s;
how the passes fit together is told in :mod:`pdpaired.pairs.dask`.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import dask.dataframe as dd
import numpy as np
import pandas as pd
from dask.base import compute
from dask.delayed import delayed

from pdpaired._lib.errors import PairingError
from pdpaired._lib.validation import check_bool
from pdpaired.pairs.backend import (
    CaseArrivals,
    FillUnits,
    PassFlags,
    non_binary_message,
    value_order,
)
from pdpaired.pairs.checks import (
    check_columns,
    check_enough_cases,
    check_groups_nested,
    check_models_present,
    check_numeric_column,
    check_slice_column,
    factorize_sorted,
    sort_cases,
)
from pdpaired.pairs.columns import Columns
from pdpaired.pairs.dask.pairing import (
    MAX_DISTINCT,
    SCAN_META,
    apply_policy,
    failure_tables,
    fill_cases,
    pair_counts,
    partition_rows,
    partition_rows_meta,
    row_grid,
    scan_partition,
)
from pdpaired.pairs.dask.resampling import W_BITS, replicate_sums, round_shift, tree_sum
from pdpaired.pairs.rules import SummaryLayout, pairing_schemas, raise_failures
from pdpaired.pairs.units import UnitTable, grid_exponent, to_float
from pdpaired.results.missing import MissingSummary

__all__ = ["DaskPairs"]


class DaskPairs:
    """The pairs of a Dask table: a :class:`~pdpaired.pairs.backend.PairsBackend` built from graphs.

    Built by ``ddf.paired.compare`` (which checks the arguments first). The
    pairing passes run when it is built; every later reduction is cached.
    ``pairs_frame`` is refused (it would bring every case to the client).
    ``collect=True`` brings continuous per-case values to the client instead
    of resampling them inside the partitions.
    """

    kind = "dask"

    def __init__(
        self,
        ddf: dd.DataFrame,
        cols: Columns,
        a: Any,
        b: Any,
        *,
        higher_is_better: bool,
        missing: str = "error",
        fill_value: float | None = None,
        where: tuple[str, Any] | None = None,
        collect: bool = False,
    ) -> None:
        if not isinstance(ddf, dd.DataFrame):
            msg = f"Expected a dask DataFrame; got {type(ddf).__name__}."
            raise TypeError(msg)
        self._ddf = ddf
        self._cols = cols
        self._a, self._b = a, b
        self._higher_is_better = higher_is_better  # what a filled failure is worth
        self._policy = missing
        self._fill_given = fill_value
        self._where = where
        self._collect = collect
        self._cache: dict[Any, Any] = {}
        self._check_columns()
        self._summarize()

    # -- descriptive --------------------------------------------------------
    @property
    def a(self) -> str:
        """Model A (the candidate)."""
        return self._a

    @property
    def b(self) -> str:
        """Model B (the reference)."""
        return self._b

    @property
    def columns(self) -> Columns:
        """The resolved column names."""
        return self._cols

    @property
    def binary(self) -> bool:
        """Whether every analysed score is 0 or 1."""
        return self._binary

    @property
    def n_groups(self) -> int | None:
        """Number of groups (None without a group column)."""
        return self._n_groups

    def pairs_frame(self) -> pd.DataFrame:
        """Not available on a Dask table: use ``cmp.per_case()`` (a lazy frame)."""
        msg = (
            "Comparison.pairs would bring every case of a Dask table to the client; use "
            "cmp.per_case() for a lazy per-case dask DataFrame and .compute() it if it fits."
        )
        raise AttributeError(msg)

    def describe(self) -> str:
        """Return the number of partitions, for the comparison's repr."""
        return f", npartitions={self._ddf.npartitions}"

    def runs(self) -> None:
        """Return None: no repeated runs on the Dask path (``repeat=`` is refused)."""

    def cells(self) -> None:
        """Return None: no crossed factors on the Dask path (``repeat=`` is refused)."""

    @property
    def missing(self) -> MissingSummary:
        """The :class:`~pdpaired.MissingSummary` of the declared policy."""
        return self._summary

    @property
    def n_cases(self) -> int:
        """Number of paired cases analysed."""
        return self._n

    # -- pass 0 and pass 1: pairing checks ------------------------------------
    def _check_columns(self) -> None:
        cols, ddf = self._cols, self._ddf
        check_columns(ddf, cols, accessor="ddf")
        assert cols.score is not None  # score mode (checked by check_score_mode)
        check_numeric_column(
            ddf[cols.score].dtype, cols.score,
            hint=f"the Dask path needs a score column of a numeric dtype (cast it, e.g. "
            f"ddf[{cols.score!r}].astype('float64')).",
        )  # fmt: skip
        self._extra = tuple(cols.design_columns())

    def _source(self) -> dd.DataFrame:
        """Return the long table (restricted to the slice, for a slice's comparison)."""
        ddf = self._ddf
        if self._where is not None:
            column, value = self._where
            is_na = value is None or (isinstance(value, float) and math.isnan(value))
            ddf = ddf[ddf[column].isna()] if is_na else ddf[ddf[column] == value]
        return ddf

    def _case_frame(self, *, labels: bool = False) -> dd.DataFrame:
        """Lazy per-case reduction of the long table (one row per case; a Dask shuffle)."""
        cols, ddf, extra = self._cols, self._source(), self._extra
        rows = ddf.map_partitions(
            partition_rows, cols=cols, a=self._a, b=self._b, extra=extra, labels=labels,
            meta=partition_rows_meta(cols, ddf, extra, labels),
        )  # fmt: skip
        spec: dict[str, Any] = dict.fromkeys(
            ("n_a", "n_b", "x_a", "x_b", "nan_a", "nan_b", "inf"), "sum"
        )
        for i in range(len(extra)):
            spec.update({f"null{i}": "sum", f"hmin{i}": "min", f"hmax{i}": "max"})
            if labels:
                spec[f"label{i}"] = "first"
        split = max(1, ddf.npartitions // 8)
        return rows.groupby("case", sort=False).agg(spec, split_out=split).reset_index()

    def _row_frame(self, k: int) -> dd.DataFrame:
        """Lazy per-row grid values (valid when no case has a missing outcome)."""
        ddf = self._source()
        kw = {"cols": self._cols, "a": self._a, "b": self._b, "k": k, "extra": self._extra}
        return ddf.map_partitions(row_grid, **kw, meta=row_grid(ddf._meta, **kw))

    def _summarize(self) -> None:
        cols = self._cols
        src = self._source()
        extra = self._extra
        # pass 0 (no shuffle): ids present, models present, size and range of the scores
        scan, models = compute(
            src.map_partitions(scan_partition, cols=cols, a=self._a, b=self._b, meta=SCAN_META),
            src[cols.model].dropna().unique(),
        )
        null_case, null_model = int(scan["null_case"].sum()), int(scan["null_model"].sum())
        if null_case or null_model:
            bad = [(f"no missing {c}", k, what) for c, k, what in (
                (cols.case, null_case, "no case id"), (cols.model, null_model, "no model label"))
                if k]  # fmt: skip
            msg = (
                "Pairing check failed: "
                + "; ".join(
                    f"rule `{rule}` is violated by {k} row(s) ({what})" for rule, k, what in bad
                )
                + "."
            )
            raise PairingError(msg, rule="; ".join(rule for rule, _, _ in bad))
        check_models_present(list(pd.unique(np.asarray(models, dtype=object))), cols,
                             self._a, self._b)  # fmt: skip
        # the grid if no outcome is missing (then it is the final one)
        k0 = grid_exponent(
            float(np.max(scan["max_abs"].to_numpy(), initial=0.0)), int(scan["rows_ab"].sum())
        )

        # pass 1 (the per-case shuffle): every invariant, plus this design's tables
        per = self._case_frame()
        miss_a = (per["n_a"] == 0) | (per["nan_a"] > 0)
        miss_b = (per["n_b"] == 0) | (per["nan_b"] > 0)
        complete = ~(miss_a | miss_b)
        ax, bx = per["x_a"].abs(), per["x_b"].abs()

        def non_binary(x: dd.Series, miss: dd.Series) -> Any:
            return miss.count() - (x.isin([0.0, 1.0]) | miss).sum()

        layout = SummaryLayout.of(cols)
        schemas = pairing_schemas(layout, self._a, self._b, missing=self._policy)
        todo: dict[str, Any] = {
            "n": per["case"].count(),
            "n_complete": complete.sum(),
            "n_miss_a": miss_a.sum(),
            "n_miss_b": miss_b.sum(),
            "max_complete": ax.where(complete).max(),
            "max_complete_b": bx.where(complete).max(),
            "max_obs_a": ax.where(~miss_a).max(),
            "max_obs_b": bx.where(~miss_b).max(),
            "nonbin": non_binary(per["x_a"], miss_a) + non_binary(per["x_b"], miss_b),
            # speculative: on grid k0, nothing filled; kept if that is how it turns out
            "counts": self._counts_graph(per, {"policy": self._policy, "fill": None, "k": k0}),
        }
        for i, failures in enumerate(failure_tables(per, layout, extra, cols.case, schemas)):
            todo[f"failures:{i}"] = failures
        rows = self._row_frame(k0)
        todo["totals"] = self._totals_graph(rows, from_rows=True)
        if cols.group is not None:
            todo["groups"] = self._groups_graph(rows, from_rows=True)
        keys = list(todo)
        got = dict(zip(keys, compute(*[todo[k] for k in keys]), strict=True))

        for i, schema in enumerate(schemas):  # every offending case, stage by stage
            raise_failures(got[f"failures:{i}"], schema)
        n_miss_a, n_miss_b = int(got["n_miss_a"]), int(got["n_miss_b"])

        n_total = int(got["n"])
        n_any = n_total - int(got["n_complete"])
        binary = int(got["nonbin"]) == 0 and n_total > 0
        fill: float | None = None
        summary = MissingSummary(policy=self._policy, n_missing_a=n_miss_a, n_missing_b=n_miss_b)

        def fmax(*xs: Any) -> float:
            vals = [float(x) for x in xs if x is not None and not pd.isna(x)]
            return max(vals, default=0.0)

        if self._policy == "complete-case":
            n = n_total - n_any
            big = fmax(got["max_complete"], got["max_complete_b"])
            summary = MissingSummary(policy=self._policy, n_missing_a=n_miss_a,
                                     n_missing_b=n_miss_b, n_dropped=n_any)  # fmt: skip
        else:
            n = n_total
            big = fmax(got["max_obs_a"], got["max_obs_b"])
            if self._policy == "as-failure" and n_any:
                if self._fill_given is None:
                    if not binary:
                        msg = (
                            "`fill_value` is required with missing='as-failure' unless the "
                            f"scores are binary 0/1; {n_any} case(s) need a value."
                        )
                        raise ValueError(msg)
                    fill = 0.0 if self._higher_is_better else 1.0
                else:
                    fill = float(self._fill_given)
                if not np.isfinite(fill):
                    msg = f"`fill_value` must be a finite number; got {self._fill_given!r}."
                    raise ValueError(msg)
                big = max(big, abs(fill))
                binary = binary and fill in (0.0, 1.0)
                summary = MissingSummary(policy=self._policy, n_missing_a=n_miss_a,
                                         n_missing_b=n_miss_b, n_filled=n_any,
                                         fill_value=fill)  # fmt: skip
            elif self._policy == "as-failure" and self._fill_given is not None:
                summary = MissingSummary(policy=self._policy, fill_value=float(self._fill_given))
        # a slice may hold one case
        check_enough_cases(n, self._a, self._b, minimum=1 if self._where is not None else 2)
        self._n = n
        self._summary = summary
        self._binary = binary
        self._fill = fill
        self._k = grid_exponent(big, 2 * n)
        self._no_missing = n_any == 0
        self._n_groups = None
        if self._no_missing:  # every row is one model's output of one case: row sums are exact
            assert self._k == k0
            self._cache["totals"] = got["totals"]
            if cols.group is not None:
                self._cache["groups"] = got["groups"]
                self._n_groups = len(got["groups"])
        if self._k == k0 and self._fill is None:  # the speculative counts used this policy
            self._cache["counts"] = got["counts"]
        if cols.group is not None and self._n_groups is None:
            self._n_groups = len(self._group_agg())

    # -- pass 2: sufficient statistics --------------------------------------
    def per_case(self) -> dd.DataFrame:
        """Lazy per-case frame of the analysed pairs (after the missing-outcome policy).

        Columns: ``case``, the two models' scores (named after the models),
        and the group / stratum columns. Nothing is computed until you call
        ``.compute()`` (which brings every case to the client).

        Returns
        -------
        dask.dataframe.DataFrame
        """
        per = self._case_frame(labels=True).map_partitions(
            apply_policy, **self._policy_kw(), quantized=False
        )
        names = {"x_a": self._a, "x_b": self._b}
        names.update({f"label{i}": c for i, c in enumerate(self._extra)})
        keep = ["case", "x_a", "x_b", *[f"label{i}" for i in range(len(self._extra))]]
        return per[keep].rename(columns=names)

    def _policy_kw(self) -> dict[str, Any]:
        """Keywords of :func:`apply_policy` for this comparison."""
        return {"policy": self._policy, "fill": self._fill, "k": self._k}

    def _design_frame(self, *, labels: bool = False) -> dd.DataFrame:
        """Per-case frame after the policy, with the grid integers ``qa``, ``qb``."""
        per = self._case_frame(labels=labels)
        meta = per._meta.copy()
        meta["qa"] = pd.Series([], dtype=np.int64)
        meta["qb"] = pd.Series([], dtype=np.int64)
        return per.map_partitions(apply_policy, **self._policy_kw(), meta=meta)

    def _stratum_index(self) -> int | None:
        s = self._cols.stratum
        return None if s is None else self._extra.index(s)

    def _counts_graph(self, per: dd.DataFrame, policy: dict[str, Any]) -> Any:
        """Per partition: counts of each (stratum hash, qa, qb), or a 'too many' flag."""
        si = self._stratum_index()
        keys = ["qa", "qb"] if si is None else [f"hmin{si}", "qa", "qb"]
        kw = {"keys": keys, **policy}
        return per.map_partitions(pair_counts, **kw, meta=pair_counts(per._meta, **kw))

    def _totals_graph(self, frame: dd.DataFrame, *, from_rows: bool) -> Any:
        """Per stratum (or overall): exact sums of qa, qb and the number of cases."""
        si = self._stratum_index()
        n_col = "na" if from_rows else "case"
        how = "sum" if from_rows else "count"
        spec = {"qa": "sum", "qb": "sum", n_col: how}
        if si is None:
            return frame.assign(_s="all", _h=np.int64(0)).groupby("_s").agg({**spec, "_h": "first"})
        h = f"h{si}" if from_rows else f"hmin{si}"
        return frame.groupby(f"label{si}", dropna=False).agg({**spec, h: "first"})

    def _groups_graph(self, frame: dd.DataFrame, *, from_rows: bool) -> Any:
        """Per group: exact sums of qa, qb, the number of cases and its stratum hashes."""
        cols = self._cols
        assert cols.group is not None
        gi = self._extra.index(cols.group)
        si = self._stratum_index()
        spec: dict[str, Any] = {"qa": "sum", "qb": "sum"}
        spec["na" if from_rows else "case"] = "sum" if from_rows else "count"
        if si is not None:
            if from_rows:
                spec[f"h{si}"] = ["min", "max"]
            else:
                spec.update({f"hmin{si}": "min", f"hmax{si}": "max"})
        split = max(1, self._source().npartitions // 32)
        return frame.groupby(f"label{gi}").agg(spec, split_out=split)

    def _group_agg(self) -> pd.DataFrame:
        """Per-group sums (cached): from the rows, or from the cases after the policy."""
        if "groups" not in self._cache:
            self._cache["groups"] = self._groups_graph(
                self._design_frame(labels=True), from_rows=False
            ).compute()
        return self._cache["groups"]

    def _totals_agg(self) -> pd.DataFrame:
        """Per-stratum sums (cached)."""
        if "totals" not in self._cache:
            self._cache["totals"] = self._totals_graph(
                self._design_frame(labels=True), from_rows=False
            ).compute()
        return self._cache["totals"]

    def _stratum_labels(self) -> tuple[dict[int, Any], pd.Index]:
        """Stratum hash -> label, and the sorted labels."""
        got = self._totals_agg()
        labels = pd.Index(got.index)
        hashes = got.iloc[:, -1].to_numpy(np.int64)
        order = np.argsort(factorize_sorted(labels)[0], kind="stable")
        return dict(zip(hashes.tolist(), labels, strict=True)), labels[order]

    def unit_table(self, unit: str, use_strata: bool) -> UnitTable | None:
        """Exact unit sums computed by Dask (groups or distinct score pairs), cached.

        None for continuous scores by case (without ``collect=True``): those
        are resampled (or swapped) inside the partitions instead, through
        :meth:`stratum_totals` and :meth:`partition_sums`.
        """
        if unit == "group":
            key = ("units", unit, use_strata)
            if key not in self._cache:
                self._cache[key] = self._group_table(use_strata)
            table: UnitTable = self._cache[key]
            return table
        return self._case_table(use_strata)

    def _case_table(self, use_strata: bool) -> UnitTable | None:
        """Return the cases reduced to counts of distinct score pairs, or collected (else None)."""
        key = ("units", "case", use_strata)
        if key not in self._cache:
            table = self._counts_table(use_strata)
            if table is None and self._collect:
                table = self._collected_cases(use_strata)
            self._cache[key] = table
        return self._cache[key]

    def _group_table(self, use_strata: bool) -> UnitTable:
        got = self._group_agg()  # columns by position: qa, qb, cases[, stratum hash min, max]
        qa, qb = got.iloc[:, 0].to_numpy(np.int64), got.iloc[:, 1].to_numpy(np.int64)
        count = got.iloc[:, 2].to_numpy(np.int64)
        si = self._stratum_index()
        g_labels = pd.Index(got.index)
        if use_strata and si is not None:
            h_lo = got.iloc[:, 3].to_numpy(np.int64)
            h_hi = got.iloc[:, 4].to_numpy(np.int64)
            check_groups_nested(list(g_labels[h_lo != h_hi]))
            by_hash, s_labels = self._stratum_labels()
            rank = {lab: i for i, lab in enumerate(s_labels)}
            s_codes = np.array([rank[by_hash[h]] for h in h_lo.tolist()], dtype=np.int64)
        else:
            s_codes, s_labels = np.zeros(len(got), dtype=np.int64), pd.Index(["all"])
        g_codes, _ = factorize_sorted(g_labels)
        order = np.lexsort((g_codes, s_codes))  # by (stratum, group label)
        return UnitTable(
            sum_a=qa[order], sum_b=qb[order], count=count[order], stratum=s_codes[order],
            s_labels=s_labels, k=self._k, unit="group",
        )  # fmt: skip

    def _order_free(self, got: pd.DataFrame, keys: list[str]) -> bool:
        """Whether the engines ignore the order of the units on this compressed design.

        The bootstrap uses the multinomial engine (few distinct differences per
        stratum) and the randomization test the binomial one (not exact
        enumeration): then a compressed design gives the pandas path's numbers.
        """
        dq = got["qa"].to_numpy(np.int64) - got["qb"].to_numpy(np.int64)
        stratum = got[keys[0]].to_numpy() if len(keys) == 3 else np.zeros(len(got))
        n_distinct = len(pd.DataFrame({"s": stratum, "d": dq}).drop_duplicates())
        return self._n >= 64 and n_distinct * 16 <= self._n

    def _counts_table(self, use_strata: bool, *, raw: bool = False) -> UnitTable | None:
        """Cases collapsed to distinct (stratum, score A, score B); None if too many.

        When the resampling engines would depend on the order of the units
        (few cases), repeated values are collected as cases instead, in the
        pandas path's order, and mostly distinct values count as continuous
        (None). ``raw=True`` always returns the counts, or None.
        """
        if "counts" not in self._cache:
            self._cache["counts"] = self._counts_graph(
                self._case_frame(), self._policy_kw()
            ).compute()
        got: pd.DataFrame = self._cache["counts"]
        if bool(got["too_many"].any()):
            return None
        si = self._stratum_index()
        keys = ["qa", "qb"] if si is None else [f"hmin{si}", "qa", "qb"]
        got = got.groupby(keys, sort=False)["n"].sum().reset_index()
        if len(got) > MAX_DISTINCT:
            return None
        if not raw and not self._order_free(got, keys):
            if len(got) * 2 > self._n:  # mostly distinct: continuous scores
                return None
            return self._collected_cases(use_strata)  # repeated values, few cases: collect
        if use_strata and si is not None:
            by_hash, s_labels = self._stratum_labels()
            rank = {lab: i for i, lab in enumerate(s_labels)}
            s_codes = np.array([rank[by_hash[h]] for h in got[keys[0]].tolist()], dtype=np.int64)
        else:
            s_codes, s_labels = np.zeros(len(got), dtype=np.int64), pd.Index(["all"])
        qa, qb = got["qa"].to_numpy(np.int64), got["qb"].to_numpy(np.int64)
        freq = got["n"].to_numpy(np.int64)
        order = np.lexsort((qb, qa, s_codes))
        return UnitTable(
            sum_a=qa[order], sum_b=qb[order], count=np.ones(len(got), dtype=np.int64),
            stratum=s_codes[order], s_labels=s_labels, k=self._k, unit="case",
            freq=freq[order],
        )  # fmt: skip

    def _collected_cases(self, use_strata: bool) -> UnitTable:
        """Every case's grid integers brought to the client (``collect=True``)."""
        si = self._stratum_index() if use_strata else None
        keep = ["case", "qa", "qb"] + ([] if si is None else [f"label{si}"])
        got: pd.DataFrame = self._design_frame(labels=si is not None)[keep].compute()
        got = sort_cases(got, by="case")
        if si is not None:
            s_codes, s_labels = factorize_sorted(got[f"label{si}"])
        else:
            s_codes, s_labels = np.zeros(len(got), dtype=np.int64), pd.Index(["all"])
        order = np.argsort(s_codes, kind="stable")  # by (stratum, case id)
        return UnitTable(
            sum_a=got["qa"].to_numpy(np.int64)[order],
            sum_b=got["qb"].to_numpy(np.int64)[order],
            count=np.ones(len(got), dtype=np.int64),
            stratum=np.asarray(s_codes, dtype=np.int64)[order], s_labels=s_labels, k=self._k,
            unit="case",
        )  # fmt: skip

    # -- in-place resampling ------------------------------------------------------
    def with_collect(self, collect: bool) -> DaskPairs:
        """Return the same pairs (and passes) with the ``collect`` option."""
        collect = check_bool(collect, "collect")
        if collect == self._collect:
            return self
        clone = copy.copy(self)  # the same pairs and passes; only the option differs
        clone._collect = collect
        clone._cache = {k: v for k, v in self._cache.items() if v is not None}
        return clone

    def stratum_totals(self, use_strata: bool) -> UnitTable:
        """Per stratum (one 'unit' each): exact sums of both models' scores, sorted labels."""
        got = self._totals_agg()
        qa, qb = got.iloc[:, 0].to_numpy(np.int64), got.iloc[:, 1].to_numpy(np.int64)
        count = got.iloc[:, 2].to_numpy(np.int64)
        if not use_strata or self._stratum_index() is None:
            return UnitTable(
                sum_a=qa.sum(keepdims=True), sum_b=qb.sum(keepdims=True),
                count=count.sum(keepdims=True), stratum=np.zeros(1, dtype=np.int64),
                s_labels=pd.Index(["all"]), k=self._k, unit="group",
            )  # fmt: skip
        order = np.argsort(factorize_sorted(pd.Index(got.index))[0], kind="stable")
        return UnitTable(
            sum_a=qa[order], sum_b=qb[order], count=count[order],
            stratum=np.arange(len(got), dtype=np.int64), s_labels=pd.Index(got.index)[order],
            k=self._k, unit="group",
        )  # fmt: skip

    def pass_flags(self, good: float) -> PassFlags:
        """Pass/fail of each distinct (score A, score B) pair and its count, reduced by Dask."""
        table = None if not self._binary else self._counts_table(use_strata=False, raw=True)
        if table is None:
            raise ValueError(self._non_binary_message())
        assert table.freq is not None
        one = np.ldexp(1.0, self._k)  # the grid value of a score of 1
        return PassFlags(
            a_pass=to_float(table.sum_a, 0) == good * one,
            b_pass=to_float(table.sum_b, 0) == good * one,
            freq=table.freq,
        )

    def _non_binary_message(self) -> str:
        """Say which values make the scores non-binary (up to ten, from a Dask pass)."""

        def odd(part: pd.DataFrame) -> pd.DataFrame:
            # the ten smallest other values with their counts, and the rest as one NaN row
            v = np.concatenate([part["x_a"].to_numpy(), part["x_b"].to_numpy()])
            v = v[~np.isin(v, (0.0, 1.0))]
            u, c = np.unique(v, return_counts=True)
            return pd.DataFrame(
                {"v": np.append(u[:10], np.nan), "n": np.append(c[:10], c[10:].sum())}
            )

        meta = pd.DataFrame({"v": pd.Series([], dtype=np.float64),
                             "n": pd.Series([], dtype=np.int64)})  # fmt: skip
        frame = self._case_frame().map_partitions(
            apply_policy, **self._policy_kw(), quantized=False
        )
        got = frame.map_partitions(odd, meta=meta).compute()
        return non_binary_message(int(got["n"].sum()), np.unique(got["v"].dropna().to_numpy()))

    # -- slices -------------------------------------------------------------
    def slices(self, column: str) -> Iterator[tuple[Any, int, Callable[[], DaskPairs]]]:
        """Each value of a slice column (checked constant within a case), in order."""
        cols = self._cols
        check_slice_column(self._ddf, cols, column)
        slicer = copy.copy(self)  # the same pairs, reduced by the slice column
        slicer._cols = Columns(case=cols.case, model=cols.model, score=cols.score,
                               group=column)  # fmt: skip
        slicer._extra = (column,)
        raw = slicer._case_frame(labels=True)
        kept = raw.map_partitions(apply_policy, **self._policy_kw(), quantized=False)
        # every case of A or B is checked, as pandas does
        layout = SummaryLayout(slices=(column,))
        schemas = pairing_schemas(layout, self._a, self._b)
        *failures, counts = compute(*failure_tables(raw, layout, (column,), cols.case, schemas),
                                    kept["label0"].value_counts(dropna=False))  # fmt: skip
        for schema, fc in zip(schemas, failures, strict=True):
            raise_failures(fc, schema)
        dtype = self._ddf[column].dtype
        labels = pd.Index(counts.index)
        values = (
            pd.Series(pd.Categorical(labels, dtype=dtype))
            if isinstance(dtype, pd.CategoricalDtype) and dtype.known_categories
            else pd.Series(labels)
        )
        for i in value_order(labels, values):
            label = labels[i]
            n = int(counts.iloc[i])
            yield label, n, partial(self._restrict_to, column, label)

    def arrivals(self, order: str) -> CaseArrivals:
        """Not on the Dask path yet: sequential monitoring needs the cases in arrival order."""
        del order
        msg = (
            "sequential() is not available on the Dask path yet. Compute the per-case score "
            "differences in arrival order (cmp.per_case() joined with your order column) and "
            "feed them to pdpaired.Monitor(bounds=..., alpha=...).update(...), in batches if "
            "they do not fit in memory."
        )
        raise NotImplementedError(msg)

    def fill_units(self, unit: str, use_strata: bool) -> FillUnits:
        """Every case of the table, missing outputs counted, summed per unit (one Dask pass).

        Per case: A's observed output minus B's (a missing output counts 0)
        and the two missing flags. Groups are summed by Dask's groupby; cases
        are counted by distinct (stratum, difference, flags), a few rows for
        0/1 scores and about one per case for continuous ones (which then
        come to the client, like ``collect=True``). The smallest and largest
        observed outputs reduce in the same pass.
        """
        key = ("fill", unit, use_strata)
        if key in self._cache:
            return self._cache[key]
        si = self._stratum_index() if use_strata else None
        gi = self._extra.index(self._cols.group) if unit == "group" and self._cols.group else None
        per = self._case_frame(labels=si is not None or gi is not None)
        frame = per.map_partitions(fill_cases, si=si, gi=gi,
                                   meta=fill_cases(per._meta, si=si, gi=gi))  # fmt: skip
        scalars = {k: frame[k].sum() for k in ("ma", "mb", "both", "odd")}
        scalars.update(lo=frame["lo"].min(), hi=frame["hi"].max())
        if gi is not None:
            table = frame.groupby("g", dropna=False).agg(
                {"d": "sum", "ma": "sum", "mb": "sum", "n": "sum", "s": "first"}
            )
        else:
            table = frame.groupby(["s", "d", "ma", "mb"], dropna=False)["n"].sum()
        got, sc = compute(table, scalars)
        got = got.reset_index()
        s_codes, s_labels = factorize_sorted(got["s"])
        s_codes = np.asarray(s_codes, dtype=np.int64)
        if gi is not None:
            g_codes, _ = factorize_sorted(got["g"])
            order = np.lexsort((g_codes, s_codes))  # by (stratum, group label)
            freq = None
            count = got["n"].to_numpy(np.int64)[order]
        else:
            order = np.lexsort((got["mb"].to_numpy(), got["ma"].to_numpy(), got["d"].to_numpy(),
                                s_codes))  # fmt: skip
            freq = got["n"].to_numpy(np.int64)[order]
            count = np.ones(len(got), dtype=np.int64)
        ptr = np.searchsorted(s_codes[order], np.arange(len(s_labels) + 1)).astype(np.int64)
        lo, hi = float(sc["lo"]), float(sc["hi"])
        out = FillUnits(
            observed=got["d"].to_numpy(np.float64)[order],
            missing_a=got["ma"].to_numpy(np.int64)[order],
            missing_b=got["mb"].to_numpy(np.int64)[order], count=count, unit_ptr=ptr,
            s_labels=pd.Index(s_labels) if si is not None else pd.Index(["all"]), freq=freq,
            n_missing_a=int(sc["ma"]), n_missing_b=int(sc["mb"]), n_missing_both=int(sc["both"]),
            low=lo, high=hi, binary=int(sc["odd"]) == 0 and not math.isnan(lo),
        )  # fmt: skip
        self._cache[key] = out
        return out

    def _restrict_to(self, column: str, label: Any) -> DaskPairs:
        value = None if pd.isna(label) else label
        return DaskPairs(
            self._ddf, self._cols, self._a, self._b, higher_is_better=self._higher_is_better,
            missing=self._policy, fill_value=self._fill_given, where=(column, value),
            collect=self._collect,
        )  # fmt: skip

    # -- continuous designs resampled in partitions ----------------------------
    def partition_sums(
        self, kind: str, n_rep: int, seed_words: np.ndarray, use_strata: bool
    ) -> tuple[np.ndarray, np.ndarray]:
        """Replicate sums per stratum, computed inside the partitions.

        ``kind="poisson"``: every case weighted by Poisson(1) draws keyed by
        its id; returns the weighted sums of the differences and the weighted
        case counts. ``kind="flip"``: every case's difference signed by a
        fair coin keyed by its id; returns the signed sums and the case
        counts. Both are ``(n_rep, strata)`` arrays, strata in the order of
        :meth:`stratum_totals`' labels; the sums are exact integers on the
        grid, summed with a tree of delayed additions, and converted to
        floats once.

        With no missing outcome the rows are weighted where they are (both rows
        of a case get the case's weight, from its id): no shuffle. Otherwise
        the per-case frame after the policy is.
        """
        si = self._stratum_index() if use_strata else None
        s_labels = self.stratum_totals(use_strata).s_labels
        shift = W_BITS if kind == "poisson" else 0
        if si is None:
            lookup: dict[Any, int] = {}
        else:
            by_hash, _ = self._stratum_labels()
            rank = {lab: i for i, lab in enumerate(s_labels)}
            lookup = {h: rank[lab] for h, lab in by_hash.items()}
        from_rows = self._no_missing
        h_col = None if si is None else (f"h{si}" if from_rows else f"hmin{si}")

        def prepare(part: pd.DataFrame) -> pd.DataFrame:
            qa = round_shift(part["qa"].to_numpy(np.int64), shift)
            qb = round_shift(part["qb"].to_numpy(np.int64), shift)
            codes = (
                np.zeros(len(part), dtype=np.int64)
                if h_col is None
                else np.array([lookup[h] for h in part[h_col].tolist()], dtype=np.int64)
            )
            cw = part["na"].to_numpy(np.int64) if from_rows else np.ones(len(part), np.int64)
            return pd.DataFrame({"case": part["case"].to_numpy(), "dq": qa - qb, "s": codes,
                                 "cw": cw})  # fmt: skip

        frame = self._row_frame(self._k) if from_rows else self._design_frame()
        meta = pd.DataFrame({"case": frame._meta["case"], "dq": pd.Series([], dtype=np.int64),
                             "s": pd.Series([], dtype=np.int64),
                             "cw": pd.Series([], dtype=np.int64)})  # fmt: skip
        cases = frame.map_partitions(prepare, meta=meta)
        fn = delayed(replicate_sums, pure=True)
        parts = [fn(p, n_rep=n_rep, n_strata=len(s_labels), seed_words=seed_words, kind=kind)
                 for p in cases.to_delayed()]  # fmt: skip
        (total,) = compute(tree_sum(parts))
        total = np.asarray(total)
        return to_float(total[0], self._k - shift), total[1]

    def canonical_table(self) -> pd.DataFrame:
        """Return the analysed pairs on the client, as the pandas path holds them.

        One row per case, indexed by case id and sorted, columns A, B and the
        group / stratum columns: ``report()`` digests it, so the same table
        gives the same input and id digests on both paths. It grows with the
        number of cases (not rows).
        """
        per = self.per_case().compute()
        frame = per.set_index("case")
        frame.index.name = self._cols.case
        frame = frame.sort_index(kind="stable")
        for c in (self._a, self._b):
            frame[c] = frame[c].astype(np.float64)
        return frame.infer_objects()  # label columns come back as objects
