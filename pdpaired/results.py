"""Result objects: frozen dataclasses with text, HTML, dict and frame views."""

from __future__ import annotations

import html
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["BootstrapResult", "ConfidenceInterval", "MissingSummary"]


def _jsonable(x: Any) -> Any:
    """Convert NumPy scalars/arrays to plain Python; non-finite floats become None."""
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return [_jsonable(v) for v in x.tolist()]
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        f = float(x)
        return f if math.isfinite(f) else None
    if x is None or isinstance(x, str):
        return x
    return str(x)


def _fmt(x: float | None, signed: bool = False, digits: int = 4) -> str:
    if x is None:
        return "n/a"
    return f"{x:+.{digits}g}" if signed else f"{x:.{digits}g}"


@dataclass(frozen=True, slots=True, kw_only=True)
class ConfidenceInterval:
    """A confidence interval (scipy's vocabulary: ``low`` and ``high``)."""

    low: float
    high: float

    def __repr__(self) -> str:
        return f"ConfidenceInterval(low={self.low!r}, high={self.high!r})"


@dataclass(frozen=True, slots=True, kw_only=True)
class MissingSummary:
    """The declared missing-outcome policy and what it did.

    Attributes
    ----------
    policy : str
        ``"error"``, ``"complete-case"`` or ``"as-failure"``.
    n_missing_a, n_missing_b : int
        Cases with no usable output for model A (resp. B): absent row or NaN.
    n_dropped : int
        Cases dropped for both models (``"complete-case"``).
    n_filled : int
        Cases where at least one output was set to ``fill_value`` (``"as-failure"``).
    fill_value : float or None
        The value ``"as-failure"`` filled in.
    """

    policy: str
    n_missing_a: int = 0
    n_missing_b: int = 0
    n_dropped: int = 0
    n_filled: int = 0
    fill_value: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-safe dict."""
        out: dict[str, Any] = _jsonable(
            {
                "policy": self.policy,
                "n_missing_a": self.n_missing_a,
                "n_missing_b": self.n_missing_b,
                "n_dropped": self.n_dropped,
                "n_filled": self.n_filled,
                "fill_value": self.fill_value,
            }
        )
        return out

    def describe(self) -> str:
        """One line in words."""
        if self.policy == "complete-case" and self.n_dropped:
            return (
                f"complete-case: {self.n_dropped} case(s) dropped for both models "
                f"({self.n_missing_a} missing for A, {self.n_missing_b} for B); "
                "the estimand is the effect on cases both models answered"
            )
        if self.policy == "as-failure" and self.n_filled:
            return (
                f"as-failure: {self.n_filled} case(s) filled with {self.fill_value:g} "
                f"({self.n_missing_a} missing for A, {self.n_missing_b} for B)"
            )
        return f"{self.policy}: no missing outcomes"


_TEXT_FIELDS = (
    "a", "b", "metric", "higher_is_better", "metric_a", "metric_b", "raw_delta",
    "improvement", "n_cases", "n_groups", "n_strata", "unit", "weighting", "sampling", "seed",
)  # fmt: skip


@dataclass(frozen=True, slots=True, kw_only=True)
class BootstrapResult:
    """Paired bootstrap confidence interval for the improvement of A over B.

    ``improvement`` is direction adjusted: positive always means A is better.
    ``raw_delta`` is literally ``metric_a - metric_b``.

    Attributes
    ----------
    a, b : str
        Model names.
    metric : str
        Metric name (``"mean"`` in score mode).
    higher_is_better : bool
    metric_a, metric_b, raw_delta, improvement : float
    n_cases : int
        Paired cases analysed (after the missing-outcome policy).
    n_groups : int or None
        Groups (clusters), None without a group column.
    n_strata : int or None
        Strata, None without stratification.
    unit : str
        Resampling unit, ``"case"`` or ``"group"``.
    weighting : str
        ``"item"`` (mean over cases) or ``"group"`` (mean of group means).
    sampling : str
        ``"iid"``, ``"cluster"``, ``"stratified"`` or ``"stratified-cluster"``.
    stratum_weights : dict or None
        Population share of each stratum used in the estimate.
    missing : MissingSummary
    seed : int or None
        Reproduce with ``rng=seed``; None when a Generator was passed.
    rng_state : dict or None
        Starting ``bit_generator.state`` of a Generator passed as ``rng``.
    confidence_interval : ConfidenceInterval
    confidence_level : float
    method : str
        ``"percentile"``, ``"basic"`` or ``"bca"``.
    n_resamples, n_valid : int
        Replicates drawn, and those where the metric was defined.
    bootstrap_distribution : ndarray
        The ``n_valid`` replicates of the improvement.
    standard_error : float
        Standard deviation of the bootstrap distribution.
    practical_threshold : float
    noninferiority_margin : float or None
    superior_point : bool
        ``improvement > practical_threshold``.
    superior_ci : bool
        ``confidence_interval.low > practical_threshold``.
    noninferior : bool or None
        ``confidence_interval.low >= -noninferiority_margin``; None without a margin.
    engine : str
        Resampling engine used: ``"multinomial"``, ``"numba"`` or ``"numpy"``
        (all give identical replicates for the same design and seed).
    """

    a: str
    b: str
    metric: str
    higher_is_better: bool
    metric_a: float
    metric_b: float
    raw_delta: float
    improvement: float
    n_cases: int
    n_groups: int | None
    n_strata: int | None
    unit: str
    weighting: str
    sampling: str
    stratum_weights: dict[str, float] | None = field(repr=False, compare=False)
    missing: MissingSummary = field(repr=False)
    seed: int | None
    rng_state: dict[str, Any] | None = field(repr=False, compare=False)
    confidence_interval: ConfidenceInterval
    confidence_level: float
    method: str
    n_resamples: int
    n_valid: int
    bootstrap_distribution: np.ndarray = field(repr=False, compare=False)
    standard_error: float = field(repr=False)
    practical_threshold: float
    noninferiority_margin: float | None
    superior_point: bool
    superior_ci: bool
    noninferior: bool | None
    engine: str = field(repr=False, compare=False)

    # -- views -------------------------------------------------------------
    def __repr__(self) -> str:
        ci = self.confidence_interval
        return (
            f"BootstrapResult(a={self.a!r}, b={self.b!r}, metric={self.metric!r}, "
            f"improvement={self.improvement:.6g}, confidence_interval=[{ci.low:.6g}, "
            f"{ci.high:.6g}], method={self.method!r}, n_resamples={self.n_resamples}, "
            f"sampling={self.sampling!r}, seed={self.seed!r})"
        )

    def _label(self) -> str:
        arrow = "higher is better" if self.higher_is_better else "lower is better"
        return f"{self.metric} ({arrow})"

    def _rows(self) -> list[tuple[str, str]]:
        ci = self.confidence_interval
        lvl = (
            f"{self.confidence_level:.0%}"
            if self.confidence_level * 100 % 1 == 0
            else (f"{self.confidence_level * 100:g}%")
        )
        seed = "Generator" if self.seed is None else f"seed {self.seed}"
        rows = [
            (f"Model A ({self.a}) {self.metric}", _fmt(self.metric_a)),
            (f"Model B ({self.b}) {self.metric}", _fmt(self.metric_b)),
            ("Improvement (A over B)", _fmt(self.improvement, signed=True)),
            (
                f"{lvl} paired CI",
                f"[{_fmt(ci.low, True)}, {_fmt(ci.high, True)}]   "
                f"{self.method}, {self.n_resamples} resamples, {seed}",
            ),
        ]
        design = f"{self.sampling} over {self.unit}s, {self.n_cases} cases"
        if self.n_groups is not None:
            design += f" in {self.n_groups} groups"
        if self.n_strata is not None:
            design += f", {self.n_strata} strata"
        if self.weighting == "group":
            design += ", mean of group means"
        rows.append(("Design", design))
        rows.append(("Direction", self._label()))
        rows.append(("Missing outcomes", self.missing.describe()))
        decision = f"superior (CI low > {self.practical_threshold:g}): {_yes(self.superior_ci)}"
        if self.noninferior is not None:
            decision += (
                f"; noninferior (margin {self.noninferiority_margin:g}): {_yes(self.noninferior)}"
            )
        rows.append(("Decision", decision))
        if self.n_valid < self.n_resamples:
            rows.append(("Valid resamples", f"{self.n_valid} of {self.n_resamples}"))
        return rows

    def __str__(self) -> str:
        rows = self._rows()
        width = max(len(k) for k, _ in rows) + 3
        return "\n".join(f"{k:<{width}}{v}" for k, v in rows)

    def _repr_html_(self) -> str:
        body = "".join(
            f"<tr><th style='text-align:left'>{html.escape(k)}</th>"
            f"<td style='text-align:left'>{html.escape(v)}</td></tr>"
            for k, v in self._rows()
        )
        return f"<table class='pdpaired-result'><caption>Paired bootstrap</caption>{body}</table>"

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-safe dict (no NumPy scalars, no NaN).

        The bootstrap distribution is omitted; it is in ``bootstrap_distribution``.
        """
        d = {k: getattr(self, k) for k in _TEXT_FIELDS}
        d.update(
            {
                "confidence_interval": {
                    "low": self.confidence_interval.low,
                    "high": self.confidence_interval.high,
                },
                "confidence_level": self.confidence_level,
                "method": self.method,
                "n_resamples": self.n_resamples,
                "n_valid": self.n_valid,
                "standard_error": self.standard_error,
                "stratum_weights": self.stratum_weights,
                "missing": self.missing.to_dict(),
                "practical_threshold": self.practical_threshold,
                "noninferiority_margin": self.noninferiority_margin,
                "superior_point": self.superior_point,
                "superior_ci": self.superior_ci,
                "noninferior": self.noninferior,
                "rng_state": self.rng_state,
                "engine": self.engine,
            }
        )
        out: dict[str, Any] = _jsonable(d)
        return out

    def to_frame(self) -> pd.DataFrame:
        """Return a one-row tidy DataFrame."""
        d = self.to_dict()
        ci = d.pop("confidence_interval")
        d.pop("rng_state")
        d.pop("stratum_weights")
        missing = d.pop("missing")
        d["ci_low"], d["ci_high"] = ci["low"], ci["high"]
        d["missing_policy"] = missing["policy"]
        d["n_missing_a"], d["n_missing_b"] = missing["n_missing_a"], missing["n_missing_b"]
        d["n_dropped"], d["n_filled"] = missing["n_dropped"], missing["n_filled"]
        return pd.DataFrame([d])

    def plot(self, ax: Axes | None = None, *, bins: int | str = "auto") -> Axes:
        """Histogram of the bootstrap distribution with the interval and the estimate.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Axes to draw on; a new figure (not managed by pyplot) when None.
        bins : int or str
            Passed to :meth:`~matplotlib.axes.Axes.hist`.

        Returns
        -------
        matplotlib.axes.Axes
        """
        if ax is None:
            from matplotlib.figure import Figure

            ax = Figure(figsize=(6, 3.5), layout="constrained").add_subplot()
        ci = self.confidence_interval
        ax.hist(self.bootstrap_distribution, bins=bins, color="0.75", edgecolor="0.55")
        ax.axvspan(ci.low, ci.high, color="C0", alpha=0.15, label=f"{self.confidence_level:.0%} CI")
        ax.axvline(self.improvement, color="C0", lw=2, label="estimate")
        ax.axvline(0.0, color="k", lw=1, ls="--", label="no difference")
        if self.practical_threshold:
            ax.axvline(
                self.practical_threshold, color="C3", lw=1, ls=":", label="practical threshold"
            )
        ax.set_xlabel(f"improvement of {self.a} over {self.b} ({self.metric})")
        ax.set_ylabel("replicates")
        ax.set_title(f"Paired bootstrap ({self.method}, {self.sampling})")
        ax.legend(loc="best", fontsize="small")
        return ax


def _yes(flag: bool | None) -> str:
    return "yes" if flag else "no"
