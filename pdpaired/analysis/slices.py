"""Per-slice comparison: subgroup effects, multiplicity, heterogeneity.

A globally better model can lose on an important subgroup. ``by_slice``
computes the comparison within every value of one or more slice columns,
with the same design as the overall analysis (groups, strata, target
classes), one generator per slice derived from the seed and a stable digest
of ``(column, value)`` (so adding or removing a slice never changes another
slice's result), p-values adjusted across every reported slice, and a test
of heterogeneity of the slice effects.

This module runs the scan and decides which slices each heterogeneity test
takes; the tests themselves are in :mod:`pdpaired.core.slices`, the
adjustment in :mod:`pdpaired.core.multiplicity` and the result in
:mod:`pdpaired.results.slices`. Those names are importable from here too
(the old path ``pdpaired.slices`` forwards here).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from pdpaired._lib import progress
from pdpaired._lib.errors import DegenerateDataWarning
from pdpaired._lib.rng import (
    SLICE_SCAN,
    derived_seed,
    normalize_rng,
    slice_index,
    stream_name,
)
from pdpaired._lib.validation import (
    check_bool,
    check_choice,
    check_confidence_level,
    check_nonneg_float,
    check_positive_int,
    plain,
)
from pdpaired.core.multiplicity import ADJUSTMENTS, adjust_pvalues
from pdpaired.core.slices import (
    permutation_heterogeneity,
    permute,
    variance_dof,
    welch_heterogeneity,
)
from pdpaired.pairs.backend import value_order
from pdpaired.results.slices import SliceResult, as_part, slice_label

if TYPE_CHECKING:
    from pdpaired.analysis.comparison import Comparison

__all__ = [
    "ADJUSTMENTS",
    "SliceResult",
    "SliceUnits",
    "adjust_pvalues",
    "as_part",
    "by_slice",
    "permutation_heterogeneity",
    "slice_label",
    "value_order",
    "welch_heterogeneity",
]

_TABLE_COLUMNS = [
    "column", "value", "n", "status", "metric_a", "metric_b", "improvement", "winner",
    "verdict", "ci_low", "ci_high", "pvalue", "pvalue_adjusted", "seed", "stream_bootstrap",
    "stream_randomization",
]  # fmt: skip
_SEEDS = ("seed", "stream_bootstrap", "stream_randomization")  # with uncertainty only


@dataclass(frozen=True, slots=True, eq=False)
class SliceUnits:
    """The resampling units of a comparison with a slice column, for the permutation test.

    One entry per unit (a case, or a whole group): ``label`` its slice value,
    ``total`` and ``count`` the sum of its direction-adjusted score
    differences and its number of cases (with ``weighting="group"``: the
    group's mean difference and 1), ``stratum`` its stratum code (or None).
    A slice's estimate is ``sum(total) / sum(count)`` over its units.
    """

    label: pd.Series
    total: np.ndarray
    count: np.ndarray
    stratum: np.ndarray | None


def _winner(improvement: float) -> str:
    if improvement > 0:
        return "A"
    if improvement < 0:
        return "B"
    return "tie"


def by_slice(
    cmp: Comparison,
    columns: str | Sequence[str],
    *,
    levels: Callable[[str], Iterator[tuple[Any, int, Callable[[], Comparison]]]],
    point: Callable[[Comparison, str | None, str], tuple[float, float, float]],
    min_size: int = 30,
    uncertainty: bool = False,
    n_resamples: int = 2_000,
    n_permutations: int = 2_000,
    adjust: str | None = "holm",
    rng: int | np.random.Generator | None = None,
    confidence_level: float = 0.95,
    practical_threshold: float = 0.0,
    unit: str | None = None,
    weighting: str = "item",
    batch: int | None = None,
    units: Callable[[str, str | None, str], SliceUnits | None] | None = None,
    method: str = "auto",
) -> SliceResult:
    """Run the per-slice analysis of a comparison (see ``Comparison.by_slice``).

    ``levels(column)`` yields ``(value, n_cases, restrict)`` for each value of a
    slice column, in order, ``restrict()`` returning the comparison of that
    slice; ``point(cmp, unit, weighting)`` is ``(metric_a, metric_b,
    improvement)`` of a comparison with the analysis' design. The comparison
    hands both in, so this module needs nothing of its internals; so is
    ``units(column, unit, weighting)``, the resampling units with their slice
    values (:class:`SliceUnits`) for the permutation test of heterogeneity,
    or None where it cannot be run (then Welch's test gives ``pvalue``).

    Slice ``(column, value)`` reads the streams ``slice_bootstrap`` and
    ``slice_randomization`` of the registry (:mod:`pdpaired._lib.rng`) under the
    root of ``rng``, indexed by a SHA-256 digest of the pair, so adding or
    removing another slice never changes its result.
    """
    if not isinstance(columns, (str, list, tuple)):
        msg = f"`columns` must be a column name or a list of names; got {columns!r}."
        raise TypeError(msg)
    cols = [columns] if isinstance(columns, str) else list(columns)
    if not cols or not all(isinstance(c, str) for c in cols) or len(set(cols)) != len(cols):
        msg = f"`columns` must be a column name or a list of distinct names; got {columns!r}."
        raise TypeError(msg)
    if isinstance(min_size, bool) or not isinstance(min_size, (int, np.integer)) or min_size < 1:
        msg = f"`min_size` must be an integer >= 1; got {min_size!r}."
        raise ValueError(msg)
    uncertainty = check_bool(uncertainty, "uncertainty")
    n_resamples = int(check_positive_int(n_resamples, "n_resamples") or 0)
    n_permutations = int(check_positive_int(n_permutations, "n_permutations") or 0)
    if adjust is not None:
        adjust = check_choice(adjust, "adjust", ADJUSTMENTS)
    level = check_confidence_level(confidence_level)
    threshold = check_nonneg_float(practical_threshold, "practical_threshold")
    assert threshold is not None
    seed = normalize_rng(rng)
    root = seed.seed_sequence
    notes: list[str] = []
    records: list[dict[str, Any]] = []
    dists: dict[int, np.ndarray] = {}
    dofs: dict[int, tuple[float, float]] = {}
    groups: dict[int, int | None] = {}
    total_groups: int | None = None

    def run(
        sub: Comparison, words: tuple[int, ...], name: str, where: str, *, test: bool
    ) -> dict[str, Any]:
        # internal seeds of the slice's own streams; the row records the user's seed
        s_boot = derived_seed(root, "slice_bootstrap", *words)
        s_rand = derived_seed(root, "slice_randomization", *words)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", DegenerateDataWarning)
            bs = sub.bootstrap(n_resamples=n_resamples, confidence_level=level, rng=s_boot,
                               unit=unit, weighting=weighting, batch=batch,
                               practical_threshold=threshold, method=method)  # fmt: skip
            rz = (
                sub.randomization(n_permutations=n_permutations, rng=s_rand, unit=unit,
                                  weighting=weighting, batch=batch)
                if test
                else None
            )  # fmt: skip
        for w in caught:
            if issubclass(w.category, DegenerateDataWarning):
                notes.append(f"{where}: {w.message}")
            else:
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        return {
            "metric_a": bs.metric_a,
            "metric_b": bs.metric_b,
            "improvement": bs.improvement,
            "ci_low": bs.confidence_interval.low,
            "ci_high": bs.confidence_interval.high,
            "verdict": bs.verdict,
            "method": bs.method,
            "pvalue": None if rz is None else rz.pvalue,
            "seed": seed.seed,
            "stream_bootstrap": stream_name("slice_bootstrap", name),
            "stream_randomization": stream_name("slice_randomization", name),
            "_dist": bs.bootstrap_distribution,
            "_dof": variance_dof(bs, score_mode=sub.task == "score"),
            "_groups": bs.n_groups,
        }

    with progress.bar(None, "slices", "slice") as done:  # a slice's own analyses show none
        for column in cols:
            for label, n, restrict in levels(column):
                rec: dict[str, Any] = dict.fromkeys(_TABLE_COLUMNS)
                rec.update(column=column, value=plain(label), n=n)
                if n < min_size:
                    rec["status"] = "skipped"
                    records.append(rec)
                    continue
                sub = restrict()
                with np.errstate(all="ignore"):
                    ma, mb, impr = point(sub, unit, weighting)
                rec.update(metric_a=ma, metric_b=mb, improvement=impr)
                if not np.isfinite(impr):
                    rec["status"] = "undefined"
                    records.append(rec)
                    continue
                rec["status"] = "reported"
                rec["winner"] = _winner(impr)
                if uncertainty:
                    where = f"slice {column} = {slice_label(label)}"
                    name = f"{column}={slice_label(label)}"
                    out = run(sub, slice_index(column, label), name, where, test=True)
                    dists[len(records)] = out.pop("_dist")
                    dofs[len(records)] = out.pop("_dof")
                    groups[len(records)] = out.pop("_groups")
                    rec.update(out)
                    done(1)
                records.append(rec)

    seeds = {  # exact 63-bit ints (NA if absent), the stream names as text
        c: pd.array([r[c] for r in records], dtype="Int64" if c == "seed" else "string")
        for c in _SEEDS
    }
    table = pd.DataFrame.from_records(records, columns=_TABLE_COLUMNS)
    table["n"] = table["n"].astype(np.int64)
    for c in ("metric_a", "metric_b", "improvement", "ci_low", "ci_high", "pvalue"):
        table[c] = table[c].astype(np.float64)
    table["winner"] = table["winner"].astype("string")  # <NA> when not reported
    table["verdict"] = table["verdict"].astype("string")  # <NA> without an interval
    for c, arr in seeds.items():
        table[c] = arr
    reported = (table["status"] == "reported").to_numpy()
    table["pvalue_adjusted"] = np.nan
    if uncertainty and reported.any():
        table.loc[reported, "pvalue_adjusted"] = adjust_pvalues(
            table.loc[reported, "pvalue"].to_numpy(), adjust
        )
    if not uncertainty:
        table = table.drop(columns=["ci_low", "ci_high", "pvalue", "pvalue_adjusted", *_SEEDS])
    ma, mb, impr = point(cmp, unit, weighting)
    overall: dict[str, Any] = {"n": cmp.n_cases, "metric_a": ma, "metric_b": mb,
                               "improvement": impr}  # fmt: skip
    if uncertainty:
        with progress.quiet():  # part of the scan, whose bar has closed
            out = run(cmp, slice_index("", "\x00overall"), "overall", "overall", test=False)
        total_groups = out.pop("_groups")
        for key in ("_dist", "_dof", "pvalue", "stream_randomization"):
            out.pop(key)
        overall.update(out)
    heterogeneity = (
        _heterogeneity(
            table, dists, notes, dofs, groups, total_groups, n_permutations=n_permutations,
            units=None if units is None else (lambda c: units(c, unit, weighting)), root=root,
        )
        if uncertainty
        else {}
    )  # fmt: skip
    return SliceResult(
        a=cmp.a,
        b=cmp.b,
        metric=cmp.metric,
        higher_is_better=cmp.higher_is_better,
        columns=tuple(cols),
        table=table,
        overall=overall,
        heterogeneity=heterogeneity,
        min_size=int(min_size),
        uncertainty=bool(uncertainty),
        confidence_level=level,
        n_resamples=n_resamples,
        n_permutations=n_permutations,
        adjust=adjust,
        practical_threshold=threshold,
        seed=seed.seed,
        stream=SLICE_SCAN,
        rng_state=seed.rng_state,
        notes=tuple(notes),
        score_column=getattr(cmp, "score_column", None),
    )


def _heterogeneity(
    table: pd.DataFrame,
    dists: dict[int, np.ndarray],
    notes: list[str],
    dofs: dict[int, tuple[float, float]],
    groups: dict[int, int | None] | None = None,
    total_groups: int | None = None,
    *,
    units: Callable[[str], SliceUnits | None] | None = None,
    n_permutations: int = 0,
    root: np.random.SeedSequence | None = None,
) -> dict[str, dict[str, float]]:
    """Heterogeneity of the slice effects, per column: Cochran's Q and Welch's calibrated test.

    ``statistic`` is Cochran's Q with the inverse bootstrap variances as
    weights and ``pvalue_chi2`` its chi-square p-value (which over-rejects
    with small slices); ``pvalue`` is Welch's test (:func:`welch_heterogeneity`)
    on the unbiased variances, with ``statistic_welch`` and ``df2``. Slices
    that share cases (several columns) are analysed column by column: the
    slices of one column are disjoint. A slice whose bootstrap variance is
    zero (for example both models right on every case) has no finite weight;
    it is left out of the test, with a note. When the cases of a group fall in
    several slices of the column (the slices' group counts add up to more
    than the groups), the slice estimates share the groups' effects and are
    correlated: the test, which needs independent slices, is refused for that
    column with a note.
    """
    from scipy import stats

    out: dict[str, dict[str, float]] = {}
    for column, sub in table.groupby("column", sort=False):
        rows = [i for i in sub.index if i in dists]
        if not rows:
            continue
        counts = [None if groups is None else groups.get(i) for i in rows]
        if total_groups is not None and all(c is not None for c in counts):
            spread = sum(int(c) for c in counts if c is not None) - total_groups
            if spread > 0:
                notes.append(
                    f"heterogeneity across {column}: not tested, because the cases of some "
                    f"groups fall in several slices ({spread} more group-slice memberships "
                    f"than the {total_groups} groups), so the slice estimates are correlated; "
                    "slice by a column that is constant within groups"
                )
                continue
        r = min(dists[i].size for i in rows)
        var = {i: float(np.var(dists[i][:r], ddof=1)) if r > 1 else 0.0 for i in rows}
        flat = [i for i in rows if not var[i] > 0.0]
        if flat:
            names = ", ".join(slice_label(table.loc[i, "value"]) for i in flat)
            notes.append(
                f"heterogeneity across {column}: slice(s) {names} left out (zero bootstrap "
                "variance, so no finite weight)"
            )
        rows = [i for i in rows if var[i] > 0.0]
        if len(rows) < 2:
            continue
        theta = table.loc[rows, "improvement"].to_numpy(dtype=float)
        w = 1.0 / np.array([var[i] for i in rows])
        mean = np.sum(w * theta) / w.sum()
        q_obs = float(np.sum(w * (theta - mean) ** 2))
        k = len(rows)
        unbiased = np.array([var[i] * dofs[i][1] for i in rows])
        _, f, df2, p = welch_heterogeneity(theta, unbiased, np.array([dofs[i][0] for i in rows]))
        entry = {
            "statistic": q_obs,
            "df": float(k - 1),
            "pvalue": p,
            "pvalue_chi2": float(stats.chi2.sf(q_obs, k - 1)),
            "n_slices": float(k),
            "statistic_welch": float(f),
            "df2": df2,
            "pvalue_welch": p,
            "n_permutations": 0.0,
        }
        got = None if units is None or root is None or n_permutations < 1 else units(str(column))
        if got is not None:
            assert root is not None  # got is None without it
            perm = permute(table, rows, got, n_permutations, root, str(column))
            if perm is not None:
                entry.update(statistic_permutation=perm[0], pvalue=perm[1],
                             n_permutations=float(n_permutations))  # fmt: skip
        out[str(column)] = entry
    return out
