"""The result of sequential monitoring: a confidence sequence, look by look."""

from __future__ import annotations

import base64
import html
import io
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from pdpaired._lib.format import fmt as _fmt
from pdpaired._lib.format import jsonable as _jsonable
from pdpaired._lib.format import level_text as _level
from pdpaired._lib.public import public
from pdpaired.results.base import ConfidenceInterval
from pdpaired.results.missing import MissingSummary

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["SequenceResult"]

_VERDICT_TEXT = {
    "a_better": "A is better (the sequence excluded 0 from above)",
    "b_better": "B is better (the sequence excluded 0 from below)",
    "inconclusive": "inconclusive so far (every interval includes 0)",
    "undetermined": "undetermined (no observations yet)",
}


@public
@dataclass(frozen=True, slots=True, kw_only=True)
class SequenceResult:
    """An anytime-valid confidence sequence for the mean paired difference.

    Returned by :meth:`Comparison.sequential <pdpaired.Comparison.sequential>`
    (one look after every case, or group) and by
    :meth:`Monitor.update <pdpaired.Monitor.update>` (one look per update).
    With probability at least ``1 - alpha`` every interval of the sequence
    covers the true mean difference, so it may be watched continuously and
    the evaluation stopped when it excludes 0.

    Attributes
    ----------
    a, b : str or None
        Model names (None for a :class:`~pdpaired.Monitor`).
    metric : str or None
        ``"mean"`` (None for a monitor).
    higher_is_better : bool or None
    metric_a, metric_b : float or None
        Mean score of each model over the observations (for groups, the mean
        of group means); None for a monitor.
    estimate : float or None
        The running mean difference at the last look (positive: A better);
        None before any observation.
    confidence_interval : ConfidenceInterval
        The sequence's interval at the last look (``bounds`` before any).
    alpha : float
        Miscoverage: ``P(the mean is outside some interval) <= alpha``.
    alternative : str
        ``"two-sided"``, ``"greater"`` (lower bound only) or ``"less"``.
    bounds : (float, float)
        The declared range of every difference (improvement direction).
    method : str
        The confidence sequence used.
    n : int
        Observations so far (cases, or groups).
    unit : str
        ``"case"``, ``"group"`` or (a monitor) ``"observation"``.
    order : str or None
        The column that gave the arrival order.
    n_cases, n_groups, n_strata : int or None
        Size of the design (None where it does not apply).
    stopped_at : int or None
        The first ``n`` whose interval excluded 0 (where a monitor that
        stops on significance would have stopped); None if none did.
    verdict : str
        ``"a_better"`` or ``"b_better"`` (decided at ``stopped_at``, as a
        monitor that stops there decides), ``"inconclusive"`` (no interval
        excluded 0), or ``"undetermined"`` (no observations).
    fixed_interval : ConfidenceInterval or None
        The fixed-sample Student-t interval at level ``1 - alpha`` on all the
        observations: valid only if ``n`` had been fixed in advance and
        nobody had looked before. For contrast; None below 2 observations.
    missing : MissingSummary or None
        The comparison's missing-outcome policy (None for a monitor).
    look_n, look_estimate, look_low, look_high : ndarray
        One entry per look (see :meth:`to_frame`).
    """

    a: str | None
    b: str | None
    metric: str | None
    higher_is_better: bool | None
    metric_a: float | None
    metric_b: float | None
    estimate: float | None
    confidence_interval: ConfidenceInterval
    alpha: float
    alternative: str
    bounds: tuple[float, float]
    method: str = field(repr=False)
    n: int
    unit: str
    order: str | None
    n_cases: int | None
    n_groups: int | None
    n_strata: int | None
    stopped_at: int | None
    verdict: str
    fixed_interval: ConfidenceInterval | None
    missing: MissingSummary | None = field(repr=False)
    look_n: np.ndarray = field(repr=False, compare=False)
    look_estimate: np.ndarray = field(repr=False, compare=False)
    look_low: np.ndarray = field(repr=False, compare=False)
    look_high: np.ndarray = field(repr=False, compare=False)

    @property
    def confidence_level(self) -> float:
        """``1 - alpha``: the coverage, simultaneously over every look."""
        return 1.0 - self.alpha

    def __repr__(self) -> str:
        ci = self.confidence_interval
        est = "None" if self.estimate is None else f"{self.estimate:.6g}"
        who = "" if self.a is None else f"a={self.a!r}, b={self.b!r}, "
        return (
            f"SequenceResult({who}n={self.n}, estimate={est}, confidence_interval=[{ci.low:.6g}, "
            f"{ci.high:.6g}], alpha={self.alpha:g}, alternative={self.alternative!r}, "
            f"stopped_at={self.stopped_at!r}, verdict={self.verdict!r})"
        )

    # -- views -----------------------------------------------------------------
    def to_frame(self) -> pd.DataFrame:
        """One row per look: ``n``, ``estimate``, ``low``, ``high``.

        Returns
        -------
        pandas.DataFrame
        """
        return pd.DataFrame(
            {
                "n": np.asarray(self.look_n, dtype=np.int64),
                "estimate": np.asarray(self.look_estimate, dtype=np.float64),
                "low": np.asarray(self.look_low, dtype=np.float64),
                "high": np.asarray(self.look_high, dtype=np.float64),
            }
        )

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-safe dict of the summary (the looks are in :meth:`to_frame`)."""
        ci, fixed = self.confidence_interval, self.fixed_interval
        d = {
            "result": "SequenceResult",
            "a": self.a,
            "b": self.b,
            "metric": self.metric,
            "higher_is_better": self.higher_is_better,
            "metric_a": self.metric_a,
            "metric_b": self.metric_b,
            "estimate": self.estimate,
            "confidence_interval": {"low": ci.low, "high": ci.high},
            "alpha": self.alpha,
            "alternative": self.alternative,
            "bounds": list(self.bounds),
            "method": self.method,
            "n": self.n,
            "n_looks": int(np.size(self.look_n)),
            "unit": self.unit,
            "order": self.order,
            "n_cases": self.n_cases,
            "n_groups": self.n_groups,
            "n_strata": self.n_strata,
            "stopped_at": self.stopped_at,
            "verdict": self.verdict,
            "fixed_interval": None if fixed is None else {"low": fixed.low, "high": fixed.high},
            "missing": None if self.missing is None else self.missing.to_dict(),
        }
        out: dict[str, Any] = _jsonable(d)
        return out

    def _rows(self) -> list[tuple[str, str]]:
        level = _level(self.confidence_level)
        unit = self.unit
        rows: list[tuple[str, str]] = []
        if self.a is not None:
            rows += [
                (f"Model A ({self.a}) mean", _fmt(self.metric_a)),
                (f"Model B ({self.b}) mean", _fmt(self.metric_b)),
                ("Improvement (A over B)", _fmt(self.estimate, signed=True)),
            ]
        else:
            rows.append(("Mean difference", _fmt(self.estimate, signed=True)))
        ci = self.confidence_interval
        rows.append(
            (
                f"{level} confidence sequence",
                f"[{_fmt(ci.low, True)}, {_fmt(ci.high, True)}] at n = {self.n} {unit}s "
                f"({self.alternative}; valid at every look, anytime)",
            )
        )
        if self.fixed_interval is not None:
            fx = self.fixed_interval
            rows.append(
                (
                    f"Fixed-sample {level} t interval",
                    f"[{_fmt(fx.low, True)}, {_fmt(fx.high, True)}] (for contrast: valid only "
                    f"if n = {self.n} was fixed in advance and nobody looked before)",
                )
            )
        stop = (
            "not yet: every interval so far includes 0"
            if self.stopped_at is None
            else f"n = {self.stopped_at} (the first interval to exclude 0)"
        )
        rows.append(("Stopped at", stop))
        rows.append(("Verdict", f"{self.verdict}: {_VERDICT_TEXT[self.verdict]}"))
        lo, hi = self.bounds
        rows.append(("Method", f"{self.method}; differences bounded in [{lo:g}, {hi:g}]"))
        if self.a is not None:
            if unit == "group":
                design = (
                    f"{self.n_groups} groups in order of first arrival ({self.order!r}), "
                    f"{self.n_cases} cases; each group's mean difference is one observation"
                )
            else:
                design = f"{self.n_cases} cases in order of {self.order!r}"
            if self.n_strata is not None:
                design += (
                    f"; {self.n_strata} strata not used (the sequence is for the mean over "
                    "cases as they arrive)"
                )
            arrow = "higher is better" if self.higher_is_better else "lower is better"
            rows.append(("Design", design))
            rows.append(("Direction", f"mean ({arrow}); improvement > 0 means A is better"))
            if self.missing is not None:
                rows.append(("Missing outcomes", self.missing.describe()))
        return rows

    def __str__(self) -> str:
        rows = self._rows()
        width = max(len(k) for k, _ in rows) + 3
        head = "Sequential monitoring (anytime-valid confidence sequence)"
        return head + "\n" + "\n".join(f"{k:<{width}}{v}" for k, v in rows)

    def _repr_html_(self) -> str:
        body = "".join(
            f"<tr><th style='text-align:left'>{html.escape(k)}</th>"
            f"<td style='text-align:left'>{html.escape(v)}</td></tr>"
            for k, v in self._rows()
        )
        img = ""
        if np.size(self.look_n):
            from matplotlib.figure import Figure  # lazily; not pyplot: displaying leaks no figure

            fig = Figure(figsize=(6.5, 3.6), layout="constrained")
            self.plot(ax=fig.add_subplot())
            buf = io.BytesIO()
            fig.savefig(buf, format="png", dpi=80)
            data = base64.b64encode(buf.getvalue()).decode()
            img = f"<img alt='confidence sequence' src='data:image/png;base64,{data}'/>"
        return (
            "<div class='pdpaired-sequence'><table class='pdpaired-result'>"
            "<caption>Sequential monitoring (anytime-valid)</caption>"
            f"{body}</table>{img}</div>"
        )

    # -- plot --------------------------------------------------------------------
    def plot(self, ax: Axes | None = None) -> Axes:
        """Draw the sequence narrowing over ``n``, with the fixed-sample interval at the end.

        The band is the confidence sequence at each look, the line the
        running mean difference; a dotted line marks ``stopped_at``. The
        fixed-sample t interval at the last ``n`` is drawn beside it for
        contrast (narrower, but valid only at a sample size fixed in
        advance).

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Axes to draw on; when None, the current Axes of pyplot
            (``plt.gca()``), so the plot shows inline in Jupyter and with
            ``plt.show()``.

        Returns
        -------
        matplotlib.axes.Axes
        """
        if ax is None:
            import matplotlib.pyplot as plt  # lazily: only when asked to draw

            ax = plt.gca()
        n = np.asarray(self.look_n, dtype=np.float64)
        low = np.asarray(self.look_low, dtype=np.float64)
        high = np.asarray(self.look_high, dtype=np.float64)
        est = np.asarray(self.look_estimate, dtype=np.float64)
        level = _level(self.confidence_level)
        many = n.size > 50
        if n.size:
            ax.fill_between(n, low, high, color="C0", alpha=0.25, lw=0,
                            label=f"{level} confidence sequence")  # fmt: skip
            ax.plot(n, est, color="C0", lw=1.2, marker=None if many else "o", ms=3,
                    label="running mean difference")  # fmt: skip
        ax.axhline(0.0, color="k", lw=1, ls="--")
        if self.stopped_at is not None:
            ax.axvline(self.stopped_at, color="C3", lw=1, ls=":",
                       label=f"first excludes 0 (n = {self.stopped_at})")  # fmt: skip
        if self.fixed_interval is not None and n.size:
            fx = self.fixed_interval
            x_end = n[-1] + 0.03 * (n[-1] - n[0] or 1.0)
            mean = float(est[-1])
            ax.errorbar([x_end], [mean], yerr=[[mean - fx.low], [fx.high - mean]], fmt="s",
                        color="C1", ms=4, capsize=4,
                        label=f"fixed-sample {level} t interval at n = {self.n}\n"
                        "(valid only if n was fixed in advance)")  # fmt: skip
        # y-range: the looks from a tenth of the way on (the first intervals span
        # the whole range and would squash the picture; they run off the top and bottom)
        lo_b, hi_b = self.bounds
        if n.size:
            keep = n >= 0.1 * n[-1]
            y0 = min(float(low[keep].min()), 0.0)
            y1 = max(float(high[keep].max()), 0.0)
            if self.fixed_interval is not None:
                y0, y1 = min(y0, self.fixed_interval.low), max(y1, self.fixed_interval.high)
            pad = 0.15 * (y1 - y0 or 1.0)
            ax.set_ylim(max(y0 - pad, lo_b), min(y1 + pad, hi_b))
        what = {"group": "groups", "case": "cases"}.get(self.unit, "observations")
        order = f" (in order of {self.order})" if self.order else ""
        ax.set_xlabel(f"{what} seen{order}")
        who = "mean difference" if self.a is None else f"improvement of {self.a} over {self.b}"
        ax.set_ylabel(who)
        ax.set_title("Anytime-valid confidence sequence")
        # the empty corner: below 0 on the right when the estimate is positive, above otherwise
        if not n.size or est[-1] >= 0:
            ax.legend(loc="lower right", fontsize="small")
        else:
            ax.legend(loc="upper right", fontsize="small")
        return ax
