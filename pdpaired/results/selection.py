"""The best of several candidates: :class:`SelectionResult`.

What ``df.paired.select_best`` returns: every candidate's comparison with
the baseline, the one chosen, its naive interval and the interval that
accounts for the choice (:mod:`pdpaired.core.selection`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from pdpaired._lib.format import fmt as _fmt
from pdpaired._lib.format import jsonable as _jsonable
from pdpaired._lib.format import level_text as _level
from pdpaired._lib.format import printable as _printable
from pdpaired._lib.public import public
from pdpaired.results.base import ConfidenceInterval
from pdpaired.results.bootstrap import BootstrapResult
from pdpaired.results.display import html_table, plot_axes
from pdpaired.results.verdict import decide, verdict_headline

__all__ = ["SelectionResult", "decide_selected"]


@public
@dataclass(frozen=True, slots=True, kw_only=True)
class SelectionResult:
    """The best of several candidates against a baseline, with an interval for the choice.

    The candidate with the largest improvement over the baseline (direction
    adjusted; ties to the first candidate listed) is :attr:`selected`. Its
    :attr:`naive_interval` is the ordinary paired bootstrap interval, as if
    it had been named before looking: it covers the selected candidate's
    true improvement less often than its level says. Its
    :attr:`confidence_interval` comes from simultaneous intervals of every
    candidate (the maximum over candidates of the studentized deviations of
    one joint resampling of the cases), so it covers at its level whichever
    candidate is chosen and however.

    Attributes
    ----------
    candidates : tuple
        The candidates, in the order given.
    baseline : object
    selected : object
        The chosen candidate.
    comparisons : tuple of BootstrapResult
        Each candidate against the baseline (as ``bootstrap(candidate,
        baseline, ...)`` with the same seed), in the order of ``candidates``.
    improvement : float
        The selected candidate's improvement over the baseline (positive:
        better), biased upwards by the choice (the winner's curse).
    confidence_interval : ConfidenceInterval
        The interval of the selected candidate's improvement that accounts
        for the choice.
    naive_interval : ConfidenceInterval
        The selected candidate's own bootstrap interval, which does not.
    band_low, band_high : ndarray
        The simultaneous (max-t) interval of every candidate, which hold
        together.
    critical_value : float
        Half-width of every simultaneous interval over its bootstrap standard
        error (a normal quantile would be about 1.96 for one candidate).
    confidence_level : float
    method : {"max-t", "hybrid"}
        How :attr:`confidence_interval` accounts for the choice.
    verdict : str
        Read from :attr:`confidence_interval` with the practical threshold,
        by the same rule as a two-model bootstrap.
    practical_threshold : float
    metric, metric_label : str
    higher_is_better : bool
    n_cases : int
        Cases of the selected comparison.
    n_resamples : int
    seed : int or None
        ``rng=seed`` reproduces the result.
    """

    candidates: tuple[Any, ...]
    baseline: Any
    selected: Any
    comparisons: tuple[BootstrapResult, ...] = field(repr=False, compare=False)
    improvement: float
    confidence_interval: ConfidenceInterval
    naive_interval: ConfidenceInterval
    band_low: np.ndarray = field(repr=False, compare=False)
    band_high: np.ndarray = field(repr=False, compare=False)
    critical_value: float
    confidence_level: float
    method: str
    verdict: str
    practical_threshold: float
    metric: str
    metric_label: str
    higher_is_better: bool
    n_cases: int
    n_resamples: int
    seed: int | None

    @property
    def index(self) -> int:
        """Position of :attr:`selected` among :attr:`candidates`."""
        return self.candidates.index(self.selected)

    def headline(self, *, strong: str = "") -> str:
        """Return the verdict of the selection-adjusted interval in one sentence.

        Parameters
        ----------
        strong : str, default ""
            Wraps the verdict (``"**"`` for Markdown).

        Returns
        -------
        str
        """
        ci = self.confidence_interval
        head = verdict_headline(
            self.verdict, ci.low, ci.high, a=str(self.selected), b=str(self.baseline),
            practical_threshold=self.practical_threshold,
            confidence_level=self.confidence_level, strong=strong,
        )  # fmt: skip
        return (
            f"{head[:-1]}, accounting for choosing the best of {len(self.candidates)} "
            "candidates on the same cases."
        )

    def _rows(self) -> list[tuple[str, str]]:
        lvl = _level(self.confidence_level)
        ci, naive = self.confidence_interval, self.naive_interval
        best = self.comparisons[self.index]
        arrow = "higher is better" if self.higher_is_better else "lower is better"
        return [
            ("Selected", f"{self.selected} (best of {len(self.candidates)} candidates)"),
            (f"Selected {self.metric_label}", _fmt(best.metric_a)),
            (f"Baseline ({self.baseline}) {self.metric_label}", _fmt(best.metric_b)),
            ("Improvement (selected over baseline)", _fmt(self.improvement, signed=True)),
            (f"{lvl} CI, accounting for the choice",
             f"[{_fmt(ci.low, True)}, {_fmt(ci.high, True)}] ({self._how()})"),
            (f"{lvl} CI, naive (as if named in advance)",
             f"[{_fmt(naive.low, True)}, {_fmt(naive.high, True)}]"),
            ("Design", f"{self.n_cases} cases, {self.n_resamples} joint resamples, "
                       f"seed {self.seed}"),
            ("Direction", f"{self.metric_label} ({arrow}); improvement > 0 means better"),
        ]  # fmt: skip

    def _how(self) -> str:
        k = len(self.candidates)
        if self.method == "hybrid":
            return f"hybrid conditional interval, Andrews-Kitagawa-McCloskey, {k} candidates"
        return f"max-t over {k} candidates, critical value {self.critical_value:.3g}"

    def __repr__(self) -> str:
        ci = self.confidence_interval
        return (
            f"SelectionResult(selected={self.selected!r}, baseline={self.baseline!r}, "
            f"n_candidates={len(self.candidates)}, improvement={self.improvement:.4g}, "
            f"confidence_interval=[{ci.low:.4g}, {ci.high:.4g}], verdict={self.verdict!r})"
        )

    def text(self) -> str:
        """Return the plain-text block: the verdict sentence, then one line per fact."""
        rows = [(_printable(k), _printable(v)) for k, v in self._rows()]
        width = max(len(k) for k, _ in rows) + 3
        return "\n".join([_printable(self.headline()), *(f"{k:<{width}}{v}" for k, v in rows)])

    def __str__(self) -> str:
        return self.text()

    def _repr_html_(self) -> str:
        block = html_table("Best of several candidates", self._rows(), lead=self.headline())
        table = self.to_frame().to_html(index=False, float_format=lambda x: f"{x:.4g}")
        return f"{block}\n{table}"

    def to_frame(self) -> pd.DataFrame:
        """One row per candidate, in the order given.

        Columns ``candidate``, ``baseline``, ``metric_candidate``,
        ``metric_baseline``, ``improvement``, ``simultaneous_low``,
        ``simultaneous_high`` (the max-t band: every candidate's interval,
        holding together), ``naive_low``, ``naive_high`` (each candidate's
        own interval) and ``selected``. The selected candidate's interval
        that accounts for the choice is :attr:`confidence_interval`.
        """
        rows = [
            {
                "candidate": c,
                "baseline": self.baseline,
                "metric_candidate": r.metric_a,
                "metric_baseline": r.metric_b,
                "improvement": r.improvement,
                "simultaneous_low": float(lo),
                "simultaneous_high": float(hi),
                "naive_low": r.confidence_interval.low,
                "naive_high": r.confidence_interval.high,
                "selected": c == self.selected,
            }
            for c, r, lo, hi in zip(
                self.candidates, self.comparisons, self.band_low, self.band_high, strict=True
            )
        ]
        return pd.DataFrame(rows)

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-safe dict (no NaN, NumPy scalars converted)."""
        out: dict[str, Any] = _jsonable(
            {
                "result": "SelectionResult",
                "candidates": [str(c) for c in self.candidates],
                "baseline": str(self.baseline),
                "selected": str(self.selected),
                "metric": self.metric,
                "higher_is_better": self.higher_is_better,
                "improvement": self.improvement,
                "confidence_interval": {
                    "low": self.confidence_interval.low,
                    "high": self.confidence_interval.high,
                },
                "naive_interval": {
                    "low": self.naive_interval.low,
                    "high": self.naive_interval.high,
                },
                "critical_value": self.critical_value,
                "confidence_level": self.confidence_level,
                "method": self.method,
                "verdict": self.verdict,
                "practical_threshold": self.practical_threshold,
                "n_cases": self.n_cases,
                "n_resamples": self.n_resamples,
                "seed": self.seed,
            }
        )
        return out

    def plot(self, ax: Any = None) -> Any:
        """Each candidate's improvement, its naive (thin) and simultaneous (thick) interval.

        The selected candidate (blue) also shows :attr:`confidence_interval`
        (a black bar just below it).

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Default: the current axes (``plt.gca()``).

        Returns
        -------
        matplotlib.axes.Axes
        """
        ax = plot_axes(ax)
        frame = self.to_frame()
        y = np.arange(len(frame))[::-1]
        for yi, row in zip(y, frame.itertuples(index=False), strict=True):
            color = "tab:blue" if row.selected else "0.45"
            ax.plot([row.simultaneous_low, row.simultaneous_high], [yi, yi], color=color, lw=4,
                    alpha=0.4)  # fmt: skip
            ax.plot([row.naive_low, row.naive_high], [yi, yi], color=color, lw=1.5)
            ax.plot([row.improvement], [yi], "o", color=color)
        ci, ys = self.confidence_interval, y[self.index] - 0.2
        ax.plot([ci.low, ci.high], [ys, ys], color="black", lw=2)
        ax.axvline(0.0, color="black", lw=0.8)
        ax.set_yticks(y)
        ax.set_yticklabels([_printable(c) for c in frame.candidate])
        ax.set_xlabel(f"improvement over {_printable(self.baseline)} (positive: better)")
        ax.set_title(
            f"{_level(self.confidence_level)} intervals: simultaneous (thick), naive (thin)"
        )
        return ax


def decide_selected(improvement: float, low: float, high: float, practical_threshold: float) -> str:
    """Return the verdict of the selection-adjusted interval (the two-model rule)."""
    degenerate = not (np.isfinite(low) and np.isfinite(high) and high > low)
    return decide(
        improvement, low, high, practical_threshold=practical_threshold,
        noninferiority_margin=None, degenerate=degenerate,
    ).verdict  # fmt: skip
