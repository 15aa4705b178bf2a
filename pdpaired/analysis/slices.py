"""Per-slice comparison: subgroup effects, multiplicity, heterogeneity, forest plots.

A globally better model can lose on an important subgroup. ``by_slice``
computes the comparison within every value of one or more slice columns,
with the same design as the overall analysis (groups, strata, target
classes), one generator per slice derived from the seed and a stable digest
of ``(column, value)`` (so adding or removing a slice never changes another
slice's result), p-values adjusted across every reported slice, and a test
of heterogeneity of the slice effects.
"""

from __future__ import annotations

import base64
import html
import io
import itertools
import math
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from pdpaired._lib.errors import DegenerateDataWarning
from pdpaired._lib.format import fmt as _fmt
from pdpaired._lib.format import jsonable as _jsonable
from pdpaired._lib.format import level_text as _level
from pdpaired._lib.format import plot_text as _plot_text
from pdpaired._lib.format import printable as _printable
from pdpaired._lib.rng import (
    SLICE_SCAN,
    derived_seed,
    normalize_rng,
    slice_index,
    stream_name,
    stream_sequence,
)
from pdpaired._lib.validation import (
    check_bool,
    check_choice,
    check_confidence_level,
    check_nonneg_float,
    check_positive_int,
)
from pdpaired.pairs.backend import slice_label, value_order
from pdpaired.core.bootstrap import SMALL_SAMPLE_SAMPLINGS
from pdpaired._lib.validation import plain
from pdpaired.results.bootstrap import metric_label, plot_axes

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from pdpaired.analysis.comparison import Comparison

__all__ = [
    "ADJUSTMENTS",
    "SliceResult",
    "SliceUnits",
    "adjust_pvalues",
    "by_slice",
    "permutation_heterogeneity",
    "slice_label",
    "value_order",
]

ADJUSTMENTS = ("holm", "bonferroni", "fdr_bh")

_TABLE_COLUMNS = [
    "column", "value", "n", "status", "metric_a", "metric_b", "improvement", "winner",
    "verdict", "ci_low", "ci_high", "pvalue", "pvalue_adjusted", "seed", "stream_bootstrap",
    "stream_randomization",
]  # fmt: skip
_SEEDS = ("seed", "stream_bootstrap", "stream_randomization")  # with uncertainty only
#: Permutations of slice labels evaluated at once (bounds memory; never changes results).
_PERM_BATCH_CELLS = 2_000_000


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


# --------------------------------------------------------------------------- multiplicity
def adjust_pvalues(pvalues: Sequence[float] | np.ndarray, method: str | None) -> np.ndarray:
    """Adjust p-values for multiple comparisons.

    Parameters
    ----------
    pvalues : array_like
    method : {"holm", "bonferroni", "fdr_bh"} or None
        Holm's step-down (family-wise error), Bonferroni, or
        Benjamini-Hochberg (false discovery rate); None returns them unchanged.

    Returns
    -------
    ndarray
        Adjusted p-values, capped at 1, in the input order (equal to
        ``statsmodels.stats.multitest.multipletests(p, method=...)[1]``).

    Examples
    --------
    >>> from pdpaired.analysis.slices import adjust_pvalues
    >>> adjust_pvalues([0.01, 0.04, 0.03], "holm").round(3).tolist()
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(pvalues, dtype=np.float64)
    m = p.size
    if method is None or m == 0:
        return p.copy()
    if method == "bonferroni":
        return np.minimum(1.0, p * m)
    order = np.argsort(p, kind="stable")
    ps = p[order]
    if method == "holm":
        adj = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * ps))
    else:  # fdr_bh: p_(i) / (i / m), as statsmodels computes it
        adj = np.minimum.accumulate((ps / (np.arange(1, m + 1) / m))[::-1])[::-1]
        adj = np.minimum(1.0, adj)
    out = np.empty(m)
    out[order] = adj
    return out


# --------------------------------------------------------------------------- result
@dataclass(frozen=True, slots=True, kw_only=True)
class SliceResult:
    """Per-slice comparison of A and B.

    Attributes
    ----------
    a, b : str
        Model names.
    metric : str
    higher_is_better : bool
    columns : tuple of str
        The slice columns, each analysed separately.
    table : DataFrame
        One row per (column, value), reported or skipped: ``n``, ``status``
        (``"reported"``, ``"skipped"`` below ``min_size``, or ``"undefined"``
        when the metric is undefined on the slice), ``metric_a``,
        ``metric_b``, ``improvement``, ``winner`` (``"A"``, ``"B"``,
        ``"tie"``), ``verdict`` (with uncertainty: the slice's bootstrap
        verdict, as :attr:`BootstrapResult.verdict <pdpaired.BootstrapResult.verdict>`
        with the ``practical_threshold``; ``<NA>`` without an interval), and
        with uncertainty ``ci_low``, ``ci_high``, ``pvalue``,
        ``pvalue_adjusted``, ``seed`` (the user's seed, as :attr:`seed`) and
        the names of the slice's streams, ``stream_bootstrap`` and
        ``stream_randomization`` (``"slice:site=3:bootstrap"``, ...).
    overall : dict
        The overall effect: ``n``, ``metric_a``, ``metric_b``,
        ``improvement`` and, with uncertainty, ``ci_low``, ``ci_high``,
        ``verdict``, ``seed`` and ``stream_bootstrap`` (``"slice:overall:bootstrap"``; the
        overall test is ``Comparison.randomization``).
    heterogeneity : dict
        Per column with at least two reported slices (uncertainty only):
        ``statistic`` (Cochran's ``Q`` of the slice effects weighted by their
        inverse bootstrap variances), ``df`` (``k - 1``), ``pvalue`` (score
        mode: the permutation test of slice labels among units, within
        strata, on ``statistic_permutation``, Q with each slice's own
        unit-level variance, ``(1 + #{Q* >= Q}) / (1 + R)`` with
        ``R = n_permutations``; otherwise Welch's test), ``pvalue_welch``
        (Welch's 1951 test, ``statistic_welch`` on ``df`` and ``df2``
        degrees of freedom), ``pvalue_chi2`` (Q's chi-square approximation,
        which over-rejects with small slices), ``n_permutations`` (0 when
        the permutation test was not run) and ``n_slices``.
    min_size : int
    uncertainty : bool
    confidence_level : float
    n_resamples, n_permutations : int
    adjust : str or None
        Multiplicity adjustment across every reported slice.
    practical_threshold : float
    seed : int or None
        The seed the user gave (or drew): the same call with ``rng=seed``
        reproduces every row. Each slice reads its own streams, addressed by
        the seed and a digest of ``(column, value)``.
    stream : str
        ``"slices"``, or ``"report:slices"`` for the slices of a report
        (whose rows' streams are then ``"report:slice:..."``).
    notes : tuple of str
        Warnings raised inside slices (for example a degenerate slice).
    score_column : str or None
        Score mode: the score column (labels read ``"mean <column>"``).
    """

    a: str
    b: str
    metric: str
    higher_is_better: bool
    columns: tuple[str, ...]
    table: pd.DataFrame = field(repr=False, compare=False)
    overall: dict[str, Any] = field(repr=False, compare=False)
    heterogeneity: dict[str, dict[str, float]] = field(repr=False, compare=False)
    min_size: int
    uncertainty: bool
    confidence_level: float
    n_resamples: int
    n_permutations: int
    adjust: str | None
    practical_threshold: float
    seed: int | None
    stream: str
    rng_state: dict[str, Any] | None = field(repr=False, compare=False)
    notes: tuple[str, ...] = field(repr=False, compare=False)
    score_column: str | None = field(default=None, repr=False)

    @property
    def metric_label(self) -> str:
        """The metric as labels show it (``"mean log_loss"`` in score mode)."""
        return metric_label(self.metric, self.score_column)

    def __repr__(self) -> str:
        rep = int((self.table["status"] == "reported").sum())
        return (
            f"SliceResult(a={self.a!r}, b={self.b!r}, metric={self.metric!r}, "
            f"columns={list(self.columns)!r}, reported={rep}, "
            f"skipped={len(self.table) - rep}, uncertainty={self.uncertainty})"
        )

    # -- views -----------------------------------------------------------------
    def to_frame(self) -> pd.DataFrame:
        """Return the tidy per-slice table (a copy), one row per slice value."""
        return self.table.copy()

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-safe dict (no NumPy scalars, no NaN)."""
        rows = [
            {
                k: None if v is pd.NA else (slice_label(v) if k == "value" else plain(v))
                for k, v in row.items()
            }
            for row in self.table.to_dict(orient="records")
        ]
        d = {
            "result": "SliceResult",
            "a": self.a,
            "b": self.b,
            "metric": self.metric,
            "higher_is_better": self.higher_is_better,
            "columns": list(self.columns),
            "min_size": self.min_size,
            "uncertainty": self.uncertainty,
            "confidence_level": self.confidence_level,
            "n_resamples": self.n_resamples,
            "n_permutations": self.n_permutations,
            "adjust": self.adjust,
            "practical_threshold": self.practical_threshold,
            "score_column": self.score_column,
            "seed": self.seed,
            "stream": self.stream,
            "overall": self.overall,
            "heterogeneity": self.heterogeneity,
            "slices": rows,
            "notes": list(self.notes),
        }
        out: dict[str, Any] = _jsonable(d)
        return out

    def _lines(self) -> list[str]:
        arrow = "higher is better" if self.higher_is_better else "lower is better"
        head = [
            f"Slices of {self.a} vs {self.b}: {self.metric_label} ({arrow}); "
            "improvement > 0 means A is better",
        ]
        t = self.table
        shown = t[t["status"] == "reported"]
        header = ["", "n", "A", "B", "improvement", "winner"]
        if self.uncertainty:
            header += [f"{_level(self.confidence_level)} CI", "adjusted p", "verdict"]
        cells = [header]
        for _, r in shown.iterrows():
            row = [f"{r['column']} = {slice_label(r['value'])}", str(int(r["n"])),
                   _fmt(r["metric_a"]), _fmt(r["metric_b"]), _fmt(r["improvement"], True),
                   str(r["winner"])]  # fmt: skip
            if self.uncertainty:
                row += [f"[{_fmt(r['ci_low'], True)}, {_fmt(r['ci_high'], True)}]",
                        _fmt(r["pvalue_adjusted"]), str(r["verdict"])]  # fmt: skip
            cells.append(row)
        o = self.overall
        row = ["overall", str(int(o["n"])), _fmt(o["metric_a"]), _fmt(o["metric_b"]),
               _fmt(o["improvement"], True), ""]  # fmt: skip
        if self.uncertainty:
            row += [f"[{_fmt(o['ci_low'], True)}, {_fmt(o['ci_high'], True)}]", "",
                    str(o["verdict"])]  # fmt: skip
        cells.append(row)
        widths = [max(len(c[j]) for c in cells) for j in range(len(header))]
        left = {0, 5, len(header) - 1} if self.uncertainty else {0, 5}
        for c in cells:
            text = "  ".join(
                v.ljust(w) if j in left else v.rjust(w)
                for j, (v, w) in enumerate(zip(c, widths, strict=True))
            )
            head.append("  " + text.rstrip())
        for _, r in t[t["status"] != "reported"].iterrows():
            why = (
                f"below min_size={self.min_size}"
                if r["status"] == "skipped"
                else "metric undefined"
            )
            head.append(
                f"  skipped: {r['column']} = {slice_label(r['value'])} (n={int(r['n'])}, {why})"
            )
        for col, h in self.heterogeneity.items():
            if h.get("n_permutations", 0.0) > 0:
                head.append(
                    f"  heterogeneity across {col}: Q = {h['statistic']:.3g} on "
                    f"{int(h['df'])} df, permutation p = {_fmt(h['pvalue'])} "
                    f"({int(h['n_permutations'])} permutations; Welch p = "
                    f"{_fmt(h['pvalue_welch'])}, chi-square p = {_fmt(h['pvalue_chi2'])})"
                )
            else:
                head.append(
                    f"  heterogeneity across {col}: Q = {h['statistic']:.3g} on "
                    f"{int(h['df'])} df, Welch p = {_fmt(h['pvalue'])} "
                    f"(chi-square p = {_fmt(h['pvalue_chi2'])})"
                )
        if self.uncertainty:
            head.append(
                f"  {_level(self.confidence_level)} paired CIs, {self.n_resamples} resamples, "
                f"{self._seed_text()}; "
                f"p-values adjusted across {len(shown)} slices ({self.adjust or 'none'}). "
                "Slice scans are exploratory, not confirmatory."
            )
        return head

    def _seed_text(self) -> str:
        text = "Generator" if self.seed is None else f"seed {self.seed}"
        return text if ":" not in self.stream else f"{text}, stream {self.stream}"

    def __str__(self) -> str:
        return "\n".join(_printable(line) for line in self._lines())  # labels are data

    def _repr_html_(self) -> str:
        t = self.table
        cols = ["column", "value", "n", "status", "metric_a", "metric_b", "improvement", "winner"]
        if self.uncertainty:
            cols += ["ci_low", "ci_high", "pvalue_adjusted", "verdict"]
        head = "".join(f"<th>{html.escape(c)}</th>" for c in cols)
        body = []
        for _, r in t.iterrows():
            cells = []
            for c in cols:
                v = r[c]
                if c == "value":
                    text = slice_label(v)
                elif v is pd.NA or (isinstance(v, float) and math.isnan(v)):
                    text = ""
                elif isinstance(v, float):
                    text = _fmt(v, signed=c in ("improvement", "ci_low", "ci_high"))
                else:
                    text = str(v)
                cells.append(f"<td>{html.escape(text)}</td>")
            body.append("<tr>" + "".join(cells) + "</tr>")
        img = ""
        if (t["status"] == "reported").any():
            from matplotlib.figure import Figure

            rows = int((t["status"] == "reported").sum()) + 1
            fig = Figure(figsize=(7.0, 1.9 + 0.32 * rows), layout="constrained")
            self.plot(ax=fig.add_subplot())
            buf = io.BytesIO()
            fig.savefig(buf, format="png", dpi=80)
            data = base64.b64encode(buf.getvalue()).decode()
            img = f"<img alt='forest plot' src='data:image/png;base64,{data}'/>"
        seed = f"; {self._seed_text()}" if self.uncertainty else ""
        caption = html.escape(f"Slices: {self.a} vs {self.b} ({self.metric_label}{seed})")
        return (
            f"<div class='pdpaired-slices'><table><caption>{caption}</caption>"
            f"<tr>{head}</tr>{''.join(body)}</table>{img}</div>"
        )

    # -- forest plot -------------------------------------------------------------
    def plot(self, ax: Axes | None = None, *, alpha: float = 0.05, highlight: bool = True) -> Axes:
        """Forest plot: one row per reported slice, then the overall effect.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Axes to draw on; pyplot's current Axes (``plt.gca()``) when None, as in
            pandas and seaborn, so the plot shows inline in Jupyter; a new pyplot
            figure sized to the rows when none is open.
        alpha : float, default 0.05
            Slices whose adjusted p-value is below ``alpha`` are highlighted.
        highlight : bool, default True

        Returns
        -------
        matplotlib.axes.Axes
        """
        t = self.table[self.table["status"] == "reported"]
        ax = plot_axes(ax, figsize=(7.0, 1.9 + 0.32 * (len(t) + 1)))
        labels = [
            _plot_text(f"{c} = {slice_label(v)} (n={int(n)})")
            for c, v, n in zip(t["column"], t["value"], t["n"], strict=True)
        ]
        labels.append(f"overall (n={int(self.overall['n'])})")
        # one row per slice, a gap between slice columns, the overall row last
        y_list, pos = [], 0.0
        previous = None
        for column in t["column"]:
            if previous is not None and column != previous:
                pos += 0.6
            y_list.append(pos)
            pos += 1.0
            previous = column
        y_list.append(pos + 0.6)
        y = -np.asarray(y_list)
        est = np.append(t["improvement"].to_numpy(dtype=float), self.overall["improvement"])
        hot = np.zeros(len(labels), dtype=bool)
        if self.uncertainty:
            low = np.append(t["ci_low"].to_numpy(dtype=float), self.overall["ci_low"])
            high = np.append(t["ci_high"].to_numpy(dtype=float), self.overall["ci_high"])
            if highlight:
                hot[:-1] = t["pvalue_adjusted"].to_numpy(dtype=float) < alpha
            ax.hlines(y, low, high, color=np.where(hot, "C3", "0.3"), lw=1.5)
        cold = ~hot[:-1]
        ax.scatter(est[:-1][cold], y[:-1][cold], marker="s", s=30, color="C0", zorder=3,
                   label="slice")  # fmt: skip
        if hot.any():
            ax.scatter(est[:-1][~cold], y[:-1][~cold], marker="s", s=30, color="C3", zorder=3,
                       label=f"adjusted p < {alpha:g} ({self.adjust or 'unadjusted'})")  # fmt: skip
        ax.scatter(est[-1:], y[-1:], marker="D", s=60, color="k", zorder=3, label="overall")
        ax.axvline(0.0, color="k", lw=1, ls="--")
        if self.practical_threshold:
            ax.axvline(self.practical_threshold, color="C2", lw=1, ls=":",
                       label=f"practical threshold ±{self.practical_threshold:g}")  # fmt: skip
            ax.axvline(-self.practical_threshold, color="C2", lw=1, ls=":")
        ax.axhline(y[-1] + 0.8, color="0.8", lw=0.8)
        ax.set_yticks(y, labels)
        for tick, flag in zip(ax.get_yticklabels(), hot, strict=True):
            if flag:
                tick.set_color("C3")
                tick.set_fontweight("bold")
        ax.set_ylim(y[-1] - 0.7, 0.7)
        what = f"{_level(self.confidence_level)} paired CI" if self.uncertainty else "estimate"
        metric = "mean score" if self.metric_label == "mean" else _plot_text(self.metric_label)
        names = _plot_text(f"improvement of {self.a} over {self.b}")
        ax.set_xlabel(f"{names}\n({metric}, {what})")
        ax.set_title("Improvement by slice", fontsize="medium")
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.28), ncol=2, fontsize="small",
                  frameon=False)  # fmt: skip
        return ax


# --------------------------------------------------------------------------- core
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
                               practical_threshold=threshold)  # fmt: skip
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
            "pvalue": None if rz is None else rz.pvalue,
            "seed": seed.seed,
            "stream_bootstrap": stream_name("slice_bootstrap", name),
            "stream_randomization": stream_name("slice_randomization", name),
            "_dist": bs.bootstrap_distribution,
            "_dof": _variance_dof(bs),
            "_groups": bs.n_groups,
        }

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


def as_part(
    result: SliceResult, scope: str, seed: int | None, rng_state: dict[str, Any] | None
) -> SliceResult:
    """Return the slices of a larger analysis (``scope``, e.g. ``"report"``) as its part.

    ``result`` was computed with the internal seed of the scope's slice
    stream; its numbers stay, the user's ``seed`` and ``rng_state`` replace
    that seed, and every stream name gets the prefix ``scope:``.
    """
    table = result.table.copy()
    overall = dict(result.overall)
    if result.uncertainty:
        done = table["stream_bootstrap"].notna().to_numpy()
        table["seed"] = pd.array([seed if d else None for d in done], dtype="Int64")
        for c in ("stream_bootstrap", "stream_randomization"):
            table[c] = (scope + ":" + table[c]).astype("string")
        overall["seed"] = seed
        overall["stream_bootstrap"] = f"{scope}:{overall['stream_bootstrap']}"
    return replace(result, table=table, overall=overall, seed=seed,
                   stream=f"{scope}:{result.stream}", rng_state=rng_state)  # fmt: skip


def _variance_dof(bs: Any) -> tuple[float, float]:
    """Degrees of freedom of a slice's bootstrap variance, and the factor that unbiases it.

    The variance of a mean estimated from ``G`` resampling units (in ``H``
    strata) has ``G - H`` degrees of freedom. The plain bootstrap's variance
    is ``(G - 1) / G`` of the unbiased estimate; the stratified and cluster
    bootstraps of score mode are Rao-Wu rescaled, so already unbiased.
    """
    units = bs.n_groups if bs.unit == "group" and bs.n_groups is not None else bs.n_cases
    strata = bs.n_strata or 1
    if bs.sampling == "target-stratified":
        strata += 1  # two target classes held fixed
    dof = float(max(units - strata, 1))
    rescaled = bs.sampling in SMALL_SAMPLE_SAMPLINGS and bs.metric == "mean"
    factor = 1.0 if rescaled or units < 2 else units / (units - 1.0)
    return dof, factor


def welch_heterogeneity(
    theta: np.ndarray, var: np.ndarray, dof: np.ndarray
) -> tuple[float, float, float, float]:
    """Welch's (1951) test of equal means with estimated variances, for slice effects.

    Cochran's Q with inverse-variance weights refers the weighted spread of
    the effects to a chi-square with ``k - 1`` degrees of freedom, as if the
    weights were known; estimated from a few dozen cases they are not, and Q
    rejects too often (7-8% at a nominal 5% with six slices of 40 cases).
    Welch divides ``Q / (k - 1)`` by ``1 + 2 (k - 2) / (k**2 - 1) * L`` with
    ``L = sum_i (1 - w_i / W)**2 / nu_i`` and refers it to an F distribution
    with ``k - 1`` and ``(k**2 - 1) / (3 L)`` degrees of freedom, which
    accounts for the variance estimates' own error (``nu_i`` their degrees
    of freedom).

    Returns
    -------
    q, f, df2, pvalue
    """
    from scipy import stats

    w = 1.0 / var
    big_w = float(w.sum())
    k = theta.size
    mean = float(np.sum(w * theta)) / big_w
    q = float(np.sum(w * (theta - mean) ** 2))
    lam = float(np.sum((1.0 - w / big_w) ** 2 / dof))
    f = q / (k - 1) / (1.0 + 2.0 * (k - 2) / (k * k - 1.0) * lam)
    df2 = (k * k - 1.0) / (3.0 * lam) if lam > 0 else np.inf
    return q, f, float(df2), float(stats.f.sf(f, k - 1, df2))


def _studentized_q(
    s1: np.ndarray,
    m1: np.ndarray,
    s2: np.ndarray,
    sm: np.ndarray,
    m2: np.ndarray,
    g: np.ndarray,
) -> np.ndarray:
    """Q of the slice estimates, each weighted by its own unit-level variance (last axis: slices).

    ``s1, m1, s2, sm, m2, g``: per slice, the sums of ``total``, ``count``,
    ``total**2``, ``total * count``, ``count**2`` and the number of units.
    The slice estimate is the ratio ``s1 / m1`` and its variance the
    linearized (cluster) estimate ``g / (g - 1) * sum((t - theta c)**2) / m1**2``,
    which for single cases is ``var(d, ddof=1) / n``.
    """
    with np.errstate(all="ignore"):
        theta = s1 / m1
        ss = s2 - 2.0 * theta * sm + theta * theta * m2
        var = g / (g - 1.0) * np.maximum(ss, 0.0) / (m1 * m1)
        w = 1.0 / var
        mean = np.sum(w * theta, axis=-1, keepdims=True) / np.sum(w, axis=-1, keepdims=True)
        q: np.ndarray = np.sum(w * (theta - mean) ** 2, axis=-1)
    return q


def permutation_heterogeneity(
    code: np.ndarray,
    total: np.ndarray,
    count: np.ndarray,
    stratum: np.ndarray | None,
    k: int,
    n_permutations: int,
    seed_sequence: np.random.SeedSequence,
) -> tuple[float, float]:
    """Permutation test of equal slice effects: slice labels permuted among units.

    The statistic is Cochran's Q with each slice weighted by the inverse of
    its own estimated variance (a *studentized* statistic: its permutation
    test is exact when the slices' distributions are the same, and
    asymptotically valid for equal means when their variances differ --
    Chung & Romano 2013, Ann. Statist. 41(2)). Labels are permuted among
    the units (cases, or whole groups) of the same stratum. The p-value is
    ``(1 + #{Q* >= Q}) / (1 + R)`` (a permuted Q equal to the observed one
    within 1e-12 counts; an undefined Q*, a permuted slice without spread,
    counts too). Permutations are drawn from one generator in batches of
    ``floor(2,000,000 / units)``; within a batch each stratum's units are
    shuffled for every permutation (``Generator.permuted``) before the next
    stratum's, so with strata the draws depend on that batch size (a fixed
    function of the number of units: the p-value is reproducible).

    Parameters
    ----------
    code : ndarray of int
        Slice of each unit, ``0 .. k-1``.
    total, count : ndarray
        Each unit's sum of differences and its number of cases.
    stratum : ndarray of int or None
    k : int
        Number of slices.
    n_permutations : int
    seed_sequence : numpy.random.SeedSequence
        The stream ``slice_heterogeneity`` of the column.

    Returns
    -------
    statistic, pvalue : float
    """
    n = code.size
    t = np.asarray(total, dtype=np.float64)
    c = np.asarray(count, dtype=np.float64)
    parts = (t, c, t * t, t * c, c * c)
    # columns grouped by slice: a slice's sums are one reduceat over its columns
    by_slice = np.argsort(code, kind="stable")
    sizes = np.bincount(code, minlength=k)
    if np.any(sizes == 0):
        return math.nan, math.nan
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    g = sizes.astype(np.float64)

    single = bool(np.all(c == 1.0))  # cases: the count sums are the slice sizes

    def q_of(src: np.ndarray) -> np.ndarray:
        # src[r, u]: the unit whose values unit u carries in permutation r
        cols = src[:, by_slice]
        if single:
            s1, s2 = (np.add.reduceat(x[cols], starts, axis=1) for x in (t, t * t))
            m = np.broadcast_to(g, s1.shape)
            return _studentized_q(s1, m, s2, s1, m, m)
        s1, m1, s2, sm, m2 = (np.add.reduceat(x[cols], starts, axis=1) for x in parts)
        return _studentized_q(s1, m1, s2, sm, m2, np.broadcast_to(g, s1.shape))

    q_obs = float(q_of(np.arange(n)[None, :])[0])
    # shuffling values among units of a stratum is shuffling their slice labels
    unit_order = np.argsort(stratum, kind="stable") if stratum is not None else np.arange(n)
    if stratum is None:
        blocks = [(0, n)]
    else:
        edges = np.flatnonzero(np.diff(stratum[unit_order])) + 1
        bounds = np.concatenate([[0], edges, [n]])
        blocks = [(int(a), int(b)) for a, b in itertools.pairwise(bounds)]
    rng = np.random.default_rng(seed_sequence)
    tol = 1e-12 * max(1.0, abs(q_obs))
    extreme = 0
    step = max(1, _PERM_BATCH_CELLS // max(n, 1))
    done = 0
    while done < n_permutations:
        rows = min(step, n_permutations - done)
        base = np.broadcast_to(unit_order, (rows, n)).copy()
        for lo, hi in blocks:
            if hi - lo > 1:
                base[:, lo:hi] = rng.permuted(base[:, lo:hi], axis=1)
        src = np.empty_like(base)
        src[:, unit_order] = base
        q = q_of(src)
        extreme += int(np.count_nonzero(~(q < q_obs - tol)))  # NaN counts as extreme
        done += rows
    return q_obs, (1.0 + extreme) / (1.0 + n_permutations)


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
            perm = _permute(table, rows, got, n_permutations, root, str(column))
            if perm is not None:
                entry.update(statistic_permutation=perm[0], pvalue=perm[1],
                             n_permutations=float(n_permutations))  # fmt: skip
        out[str(column)] = entry
    return out


def _permute(
    table: pd.DataFrame,
    rows: list[int],
    got: SliceUnits,
    n_permutations: int,
    root: np.random.SeedSequence,
    column: str,
) -> tuple[float, float] | None:
    """Run :func:`permutation_heterogeneity` on the units of the tested slices of a column."""
    codes, uniques = pd.factorize(got.label, use_na_sentinel=False)
    where = np.full(len(uniques), -1, dtype=np.int64)
    for k, i in enumerate(rows):
        v = table.loc[i, "value"]
        for j, u in enumerate(uniques):
            na_u, na_v = _scalar_na(u), _scalar_na(v)
            if (na_u and na_v) or (not na_u and not na_v and bool(u == v)):
                where[j] = k
    code = where[codes]
    keep = code >= 0  # units of skipped, undefined or flat slices are left out
    stratum = None if got.stratum is None else got.stratum[keep]
    q, p = permutation_heterogeneity(
        code[keep], got.total[keep], got.count[keep], stratum, len(rows), n_permutations,
        stream_sequence(root, "slice_heterogeneity", *slice_index("\x00heterogeneity", column)),
    )  # fmt: skip
    return (q, p) if np.isfinite(q) else None


def _scalar_na(v: Any) -> bool:
    return v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v))
