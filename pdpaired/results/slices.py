"""The result of a per-slice comparison: SliceResult, with its table, text, HTML and plot.

``Comparison.by_slice`` (:mod:`pdpaired.analysis.slices`) fills it: one row
per value of each slice column, the overall effect and the heterogeneity of
the slice effects. Here are its views, :func:`slice_label`, the text of a
slice value that every view (and the report) shows, and :func:`as_part`,
which restates a slice scan as the part of a larger analysis (the report's
slices, under the user's seed and the report's stream names).
"""

from __future__ import annotations

import base64
import html
import io
import math
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from pdpaired._lib.format import fmt as _fmt
from pdpaired._lib.format import jsonable as _jsonable
from pdpaired._lib.format import level_text as _level
from pdpaired._lib.format import plot_text as _plot_text
from pdpaired._lib.format import printable as _printable
from pdpaired._lib.public import public
from pdpaired._lib.validation import plain
from pdpaired.results.base import metric_label
from pdpaired.results.display import plot_axes

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["SliceResult", "as_part", "slice_label"]


def slice_label(v: Any) -> str:
    """Return a slice value as text: its plain ``str``, or ``"<missing>"`` when missing."""
    if v is None or (isinstance(v, float) and math.isnan(v)) or v is pd.NA:
        return "<missing>"
    return str(plain(v))


@public
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
        # every slice, then the overall effect with its verdict, as in the text view
        overall = {"column": "overall", **{k: v for k, v in self.overall.items() if k in cols}}
        for r in [*(row for _, row in t.iterrows()), overall]:
            cells = []
            for c in cols:
                v = r.get(c, pd.NA)
                if c == "value":
                    text = "" if r is overall else slice_label(v)
                elif v is pd.NA or v is None or (isinstance(v, float) and math.isnan(v)):
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
