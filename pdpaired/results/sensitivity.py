"""The result of a missing-outcome sensitivity analysis."""

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
from pdpaired._lib.format import md_escape as _md
from pdpaired._lib.format import printable as _printable
from pdpaired._lib.public import public
from pdpaired.results.base import ConfidenceInterval
from pdpaired.results.missing import MissingSummary

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["SensitivityResult", "imbens_manski", "sensitivity_problems"]

#: Relative tolerance of the artifact checks (numbers round-trip through JSON exactly;
#: the Imbens-Manski critical value is solved again, to 1e-14).
_RTOL = 1e-9


def imbens_manski(
    low: float, high: float, se_low: float, se_high: float, level: float
) -> tuple[float, float, float]:
    """Imbens-Manski (2004) interval covering the identified set ``[low, high]``.

    Returns ``(lo, hi, c)``: the interval and its critical value, which
    solves ``Phi(c + (high - low) / max(se_low, se_high)) - Phi(-c) = level``
    (between the one-sided ``z_level`` for a wide set and the two-sided
    ``z_(1+level)/2`` for a point).

    Examples
    --------
    >>> from pdpaired.results.sensitivity import imbens_manski
    >>> lo, hi, c = imbens_manski(0.0, 0.0, 1.0, 1.0, 0.95)  # a point: the two-sided 1.96
    >>> round(c, 4)
    1.96
    >>> lo, hi, c = imbens_manski(0.0, 10.0, 1.0, 1.0, 0.95)  # a wide set: one-sided 1.645
    >>> round(c, 4)
    1.6449
    """
    from scipy.optimize import brentq
    from scipy.stats import norm

    sigma = max(se_low, se_high)
    width = max(high - low, 0.0)
    if sigma <= 0.0:
        return low, high, 0.0
    ratio = width / sigma

    def gap(c: float) -> float:
        return float(norm.cdf(c + ratio) - norm.cdf(-c) - level)

    c_hi = float(norm.ppf(0.5 + level / 2))
    c = c_hi if gap(c_hi) <= 0 else float(brentq(gap, 0.0, c_hi, xtol=1e-14))
    return low - c * se_low, high + c * se_high, c


def _conclusion(low: float, high: float) -> str:
    """Return what holds whatever the missing outputs were (from the Imbens-Manski interval)."""
    return "a_better" if low > 0 else "b_better" if high < 0 else "inconclusive"


def _close(x: float, y: float, scale: float = 0.0) -> bool:
    return abs(x - y) <= _RTOL * max(abs(x), abs(y), scale) + 1e-12


def sensitivity_problems(block: dict[str, Any], artifact: dict[str, Any]) -> list[str]:
    """Check an artifact's ``sensitivity`` block against itself and the artifact.

    The invariants that hold whatever the data were: the identified set is
    ordered and lies inside the Imbens-Manski interval, which follows from
    the set's ends, their standard errors and the level; the improvement
    with one fill for both models (at ``lower`` and at ``upper``) lies in
    the set; the tipping point lies in ``(lower, upper]``; the conclusion
    follows from the interval; the missing counts agree with the
    artifact's; the bounds count every case (those the policy dropped
    too); with ``"as-failure"`` (item weighting) the improvement as
    analysed is one fill, so it lies in the set.
    """
    out: list[str] = []
    b, se, ci = block["bounds"], block["standard_errors"], block["confidence_interval"]
    lo, hi = b["low"], b["high"]
    scale = max(abs(lo), abs(hi), abs(ci["low"]), abs(ci["high"]))
    if lo > hi:
        out.append(f"sensitivity: bounds.low {lo!r} exceeds bounds.high {hi!r}")
    if not block["lower"] < block["upper"]:
        out.append(f"sensitivity: lower {block['lower']!r} is not below upper {block['upper']!r}")
    want_lo, want_hi, _ = imbens_manski(lo, hi, se["low"], se["high"], block["confidence_level"])
    if not (_close(ci["low"], want_lo, scale) and _close(ci["high"], want_hi, scale)):
        out.append(
            f"sensitivity: confidence_interval [{ci['low']!r}, {ci['high']!r}] is not the "
            f"Imbens-Manski interval of the bounds and standard errors [{want_lo!r}, {want_hi!r}]"
        )
    if ci["low"] > lo + 1e-12 * max(scale, 1.0) or ci["high"] < hi - 1e-12 * max(scale, 1.0):
        out.append("sensitivity: the confidence interval does not cover the identified set")
    for key in ("improvement_at_lower", "improvement_at_upper"):
        v = block[key]
        if v is not None and not (lo - 1e-9 * max(scale, 1.0) <= v <= hi + 1e-9 * max(scale, 1.0)):
            out.append(
                f"sensitivity: {key} = {v!r} lies outside the identified set [{lo!r}, {hi!r}]"
            )
    tip = block["tipping_point"]
    if tip is not None and not block["lower"] < tip <= block["upper"]:
        out.append(f"sensitivity: tipping_point {tip!r} lies outside (lower, upper]")
    want = _conclusion(ci["low"], ci["high"])
    if block["conclusion"] != want:
        out.append(
            f"sensitivity: conclusion {block['conclusion']!r} but the interval gives {want!r}"
        )
    miss = artifact["missing"]
    for key in ("n_missing_a", "n_missing_b"):
        if block[key] != miss[key]:
            out.append(f"sensitivity: {key} = {block[key]!r} differs from missing.{key}")
    if block["n_missing_both"] > min(block["n_missing_a"], block["n_missing_b"]):
        out.append("sensitivity: n_missing_both exceeds the cases missing for one model")
    if block["n_missing_a"] + block["n_missing_b"] == 0:
        out.append("sensitivity: the block is written only when outcomes are missing")
    if block["n_cases"] != artifact["n_cases"] + miss["n_dropped"]:
        out.append(
            f"sensitivity: n_cases = {block['n_cases']!r} is not the cases analysed plus those "
            f"dropped ({artifact['n_cases']} + {miss['n_dropped']})"
        )
    fill = miss["fill_value"]
    iv = artifact["interval"]
    if (
        miss["policy"] == "as-failure" and fill is not None and iv.get("weighting") == "item"
        and block["lower"] <= fill <= block["upper"]
    ):  # fmt: skip
        imp = artifact["improvement_a_over_b"]
        if not lo - 1e-9 * max(scale, 1.0) <= imp <= hi + 1e-9 * max(scale, 1.0):
            out.append(
                f"sensitivity: the improvement as analysed {imp!r} (missing outputs filled with "
                f"{fill!r}) lies outside the identified set [{lo!r}, {hi!r}]"
            )
    return out


@public
@dataclass(frozen=True, slots=True, kw_only=True)
class SensitivityResult:
    """What the missing outputs could do to the improvement.

    Returned by :meth:`Comparison.sensitivity <pdpaired.Comparison.sensitivity>`.

    Attributes
    ----------
    a, b : str
    metric : str
    higher_is_better : bool
    improvement : float
        The improvement as analysed (under the comparison's missing policy).
    lower, upper : float
        The ends of the score range the missing outputs were filled with.
    binary : bool
        Whether the observed scores are 0/1 (then ``lower, upper = 0, 1`` by default).
    bounds : ConfidenceInterval
        The identified set of the improvement: ``low`` with every missing
        output of A at its worst and of B at its best, ``high`` the reverse.
    standard_errors : ConfidenceInterval
        Standard errors of the two ends (``low``, ``high``).
    confidence_interval : ConfidenceInterval
        Imbens-Manski (2004) interval: covers the identified set (hence the
        true improvement, whatever the missing outputs were) with
        probability ``confidence_level``.
    confidence_level : float
    tipping_point : float or None
        The smallest fill value (the same for both models' missing outputs)
        at which the verdict differs from the verdict at ``lower``; None if
        no fill in ``[lower, upper]`` changes it.
    n_cases : int
        Cases in the bounds (every case, the missing ones filled).
    n_missing_a, n_missing_b, n_missing_both : int
        Cases missing for A, for B, and for both.
    missing : MissingSummary
        The policy of the comparison as analysed.
    seed : int or None
    fill_grid, fill_improvement, fill_low, fill_high, fill_verdict : ndarray
        The improvement, its interval and verdict with every missing output
        filled with each value of ``fill_grid`` (see :meth:`to_frame`).

    Notes
    -----
    The text, HTML and Markdown views end on one conclusion, which follows
    from the fills: with a tipping point, the missing outputs could change
    the verdict (the row says at which fill, and into what); without one,
    every fill in ``[lower, upper]`` (the same for both models) gives the
    same verdict, so they cannot change it within that range, and when the
    Imbens-Manski interval also excludes 0 the better model is better
    whatever they were. Without a fill path (prediction mode) the
    conclusion is the interval's, :attr:`conclusion`.
    """

    a: str
    b: str
    metric: str
    higher_is_better: bool
    improvement: float
    lower: float
    upper: float
    binary: bool
    bounds: ConfidenceInterval
    standard_errors: ConfidenceInterval = field(repr=False)
    confidence_interval: ConfidenceInterval
    confidence_level: float
    tipping_point: float | None
    n_cases: int
    n_missing_a: int
    n_missing_b: int
    n_missing_both: int
    missing: MissingSummary = field(repr=False)
    seed: int | None = field(repr=False)
    fill_grid: np.ndarray = field(repr=False, compare=False)
    fill_improvement: np.ndarray = field(repr=False, compare=False)
    fill_low: np.ndarray = field(repr=False, compare=False)
    fill_high: np.ndarray = field(repr=False, compare=False)
    fill_verdict: np.ndarray = field(repr=False, compare=False)
    stream: str | None = field(default=None, repr=False)

    @property
    def conclusion(self) -> str:
        """What holds whatever the missing outputs were: ``"a_better"``, ``"b_better"``.

        ``"a_better"`` (``"b_better"``) when the Imbens-Manski interval lies
        above (below) 0, else ``"inconclusive"``.
        """
        return _conclusion(self.confidence_interval.low, self.confidence_interval.high)

    def artifact_block(self) -> dict[str, Any]:
        """Return the ``sensitivity`` block of a comparison artifact (aggregates only).

        Checked by :func:`pdpaired.verify` (:func:`sensitivity_problems`).
        """
        at = {}
        if np.size(self.fill_grid):  # one fill for both models, at the two ends of the range
            at = {"improvement_at_lower": float(self.fill_improvement[0]),
                  "improvement_at_upper": float(self.fill_improvement[-1])}  # fmt: skip
        d = {
            "lower": self.lower,
            "upper": self.upper,
            "binary": self.binary,
            "n_cases": self.n_cases,
            "n_missing_a": self.n_missing_a,
            "n_missing_b": self.n_missing_b,
            "n_missing_both": self.n_missing_both,
            "bounds": {"low": self.bounds.low, "high": self.bounds.high},
            "standard_errors": {"low": self.standard_errors.low, "high": self.standard_errors.high},
            "confidence_interval": {
                "low": self.confidence_interval.low,
                "high": self.confidence_interval.high,
            },
            "confidence_level": self.confidence_level,
            "tipping_point": self.tipping_point,
            "improvement_at_lower": at.get("improvement_at_lower"),
            "improvement_at_upper": at.get("improvement_at_upper"),
            "conclusion": self.conclusion,
            "seed": self.seed,
            "stream": self.stream,
        }
        out: dict[str, Any] = _jsonable(d)
        return out

    def __repr__(self) -> str:
        b, ci = self.bounds, self.confidence_interval
        return (
            f"SensitivityResult(a={self.a!r}, b={self.b!r}, bounds=[{b.low:.6g}, {b.high:.6g}], "
            f"confidence_interval=[{ci.low:.6g}, {ci.high:.6g}], "
            f"tipping_point={self.tipping_point!r}, n_missing_a={self.n_missing_a}, "
            f"n_missing_b={self.n_missing_b})"
        )

    def to_frame(self) -> pd.DataFrame:
        """One row per fill value: ``fill``, ``improvement``, ``low``, ``high``, ``verdict``."""
        return pd.DataFrame(
            {
                "fill": np.asarray(self.fill_grid, dtype=np.float64),
                "improvement": np.asarray(self.fill_improvement, dtype=np.float64),
                "low": np.asarray(self.fill_low, dtype=np.float64),
                "high": np.asarray(self.fill_high, dtype=np.float64),
                "verdict": np.asarray(self.fill_verdict, dtype=object),
            }
        )

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-safe dict (the fill path is in :meth:`to_frame`)."""
        d = {
            "result": "SensitivityResult",
            "a": self.a,
            "b": self.b,
            "metric": self.metric,
            "higher_is_better": self.higher_is_better,
            "improvement": self.improvement,
            "lower": self.lower,
            "upper": self.upper,
            "bounds": {"low": self.bounds.low, "high": self.bounds.high},
            "standard_errors": {"low": self.standard_errors.low, "high": self.standard_errors.high},
            "confidence_interval": {
                "low": self.confidence_interval.low,
                "high": self.confidence_interval.high,
            },
            "confidence_level": self.confidence_level,
            "tipping_point": self.tipping_point,
            "n_cases": self.n_cases,
            "n_missing_a": self.n_missing_a,
            "n_missing_b": self.n_missing_b,
            "n_missing_both": self.n_missing_both,
            "missing": self.missing.to_dict(),
            "conclusion": self.conclusion,
            "seed": self.seed,
            "stream": self.stream,
        }
        out: dict[str, Any] = _jsonable(d)
        return out

    def _rows(self) -> list[tuple[str, str]]:
        b, ci = self.bounds, self.confidence_interval
        level = _level(self.confidence_level)
        arrow = "higher is better" if self.higher_is_better else "lower is better"
        rows = [
            ("Comparison", f"{self.a} vs {self.b}, {self.metric} ({arrow})"),
            ("Improvement as analysed",
             f"{_fmt(self.improvement, True)} ({self.missing.describe()})"),
            ("Missing outputs", f"{self.n_missing_a} for A, {self.n_missing_b} for B "
                                f"({self.n_missing_both} for both) of {self.n_cases} cases"),
            ("Score range", f"[{self.lower:g}, {self.upper:g}]"),
            ("Identified set", f"[{_fmt(b.low, True)}, {_fmt(b.high, True)}] (worst to best "
                               "fill for A)"),
            (f"{level} Imbens-Manski CI", f"[{_fmt(ci.low, True)}, {_fmt(ci.high, True)}]"),
        ]  # fmt: skip
        rows.append(("Tipping point", self._tipping_text()))
        rows.append(("Conclusion", self._conclusion_text()))
        return rows

    def _tipped(self) -> str:
        """Return the verdict at the tipping point (it differs from the verdict at ``lower``)."""
        assert self.tipping_point is not None
        return str(self.fill_verdict[np.searchsorted(self.fill_grid, self.tipping_point)])

    def _tipping_text(self) -> str:
        if self.tipping_point is not None:
            return (f"{self.tipping_point:.4g} (filling every missing output with it turns "
                    f"'{self.fill_verdict[0]}' into '{self._tipped()}')")  # fmt: skip
        if self.fill_verdict.size:
            return f"none: every fill in the range gives the same verdict ({self.fill_verdict[0]})"
        if self.n_missing_a + self.n_missing_b == 0:
            return "none: no output is missing"
        return "not computed (prediction mode: the metric is not linear in a fill value)"

    def _conclusion_text(self) -> str:
        """Return the one conclusion the fills and the Imbens-Manski interval support together."""
        ci = self.confidence_interval
        whatever = {"a_better": "A is better whatever the missing outputs were",
                    "b_better": "B is better whatever the missing outputs were"}  # fmt: skip
        if self.tipping_point is not None:
            return (f"the missing outputs could change the verdict: filled with "
                    f"{self.tipping_point:.4g}, they turn '{self.fill_verdict[0]}' into "
                    f"'{self._tipped()}'")  # fmt: skip
        if self.fill_verdict.size:
            verdict = str(self.fill_verdict[0])
            if self.conclusion == verdict and verdict in whatever:
                return f"the missing outputs cannot change the verdict: {whatever[verdict]}"
            text = (f"the missing outputs cannot change the verdict within the range examined: "
                    f"every fill in [{self.lower:g}, {self.upper:g}], the same for both models, "
                    f"gives '{verdict}'")  # fmt: skip
            if verdict in whatever:
                text += (
                    "; fills that differ between the models might change it (the Imbens-Manski "
                    f"interval [{_fmt(ci.low, True)}, {_fmt(ci.high, True)}] includes 0)"
                )
            return text
        if self.n_missing_a + self.n_missing_b == 0:
            return "no output is missing, so nothing can change the verdict"
        if self.conclusion in whatever:
            return whatever[self.conclusion]
        return (
            "not settled: the Imbens-Manski interval includes 0, so no verdict holds whatever "
            "the missing outputs were"
        )

    def to_markdown(self, *, heading: str = "##", image: str | None = None) -> str:
        """Return a Markdown section: a table of the bounds (labels escaped), and a plot link.

        Parameters
        ----------
        heading : str, default "##"
            The section's heading marks.
        image : str, optional
            Path of a saved :meth:`plot`, linked below the table.
        """
        lines = [f"{heading} Missing outcomes: what they could change", "",
                 "| quantity | value |", "|---|---|"]  # fmt: skip
        lines += [f"| {_md(k)} | {_md(v)} |" for k, v in self._rows()[1:]]
        lines += [
            "",
            "The identified set holds every improvement the missing outputs could give (each "
            "missing output anywhere in the score range); the Imbens-Manski interval covers it "
            f"with probability {_level(self.confidence_level)}; the tipping point is the value "
            "that, filled in for every missing output, changes the verdict.",
            "",
        ]
        if image is not None:
            lines += [f"![what the missing outputs could do]({image})", ""]
        return "\n".join(lines)

    def __str__(self) -> str:
        rows = [(_printable(k), _printable(v)) for k, v in self._rows()]  # labels are data
        width = max(len(k) for k, _ in rows) + 3
        return "Missing-outcome sensitivity\n" + "\n".join(f"{k:<{width}}{v}" for k, v in rows)

    def html(self) -> str:
        """Return the HTML table of the sensitivity (labels escaped), without the plot."""
        body = "".join(
            f"<tr><th style='text-align:left'>{html.escape(k)}</th>"
            f"<td style='text-align:left'>{html.escape(v)}</td></tr>"
            for k, v in self._rows()
        )
        return (
            "<table class='pdpaired-result'>"
            f"<caption>Missing-outcome sensitivity</caption>{body}</table>"
        )

    def _repr_html_(self) -> str:
        from matplotlib.figure import Figure  # lazily; not pyplot

        fig = Figure(figsize=(6.5, 3.6), layout="constrained")
        self.plot(ax=fig.add_subplot())
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=80)
        data = base64.b64encode(buf.getvalue()).decode()
        return (
            f"<div class='pdpaired-sensitivity'>{self.html()}"
            f"<img alt='sensitivity' src='data:image/png;base64,{data}'/></div>"
        )

    def plot(self, ax: Axes | None = None) -> Axes:
        """Draw the improvement against the fill value, with the identified set and its interval.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            When None, the current Axes of pyplot (``plt.gca()``).

        Returns
        -------
        matplotlib.axes.Axes
        """
        if ax is None:
            import matplotlib.pyplot as plt

            ax = plt.gca()
        b, ci = self.bounds, self.confidence_interval
        level = _level(self.confidence_level)
        ax.axhspan(b.low, b.high, color="C1", alpha=0.2, lw=0, label="identified set")
        ax.axhline(ci.low, color="C1", ls=":", lw=1.2, label=f"{level} Imbens-Manski interval")
        ax.axhline(ci.high, color="C1", ls=":", lw=1.2)
        if np.size(self.fill_grid):
            ax.fill_between(self.fill_grid, self.fill_low, self.fill_high, color="C0",
                            alpha=0.2, lw=0, label=f"{level} interval, one fill")  # fmt: skip
            ax.plot(self.fill_grid, self.fill_improvement, color="C0", lw=1.5,
                    label="improvement, missing outputs filled")  # fmt: skip
        ax.axhline(0.0, color="k", lw=1, ls="--")
        if self.tipping_point is not None:
            ax.axvline(self.tipping_point, color="C3", lw=1, ls="--",
                       label=f"tipping point {self.tipping_point:.3g}")  # fmt: skip
        ax.set_xlim(self.lower, self.upper)
        ax.set_xlabel("value filled in for every missing output")
        ax.set_ylabel("improvement (A over B)")
        ax.set_title("What the missing outputs could do")
        ax.legend(loc="best", fontsize="small")
        return ax
