"""The result of a paired bootstrap: the interval, its verdict and its views.

:class:`BootstrapResult` is what :mod:`pdpaired.core.bootstrap` computes and
the comparison returns; its verdict follows :mod:`pdpaired.results.verdict`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from pdpaired._lib.format import fmt as _fmt
from pdpaired._lib.format import level_text as _level
from pdpaired._lib.format import plot_text as _plot_text
from pdpaired._lib.public import public
from pdpaired.results.base import ConfidenceInterval, ResultBase, with_common_doc
from pdpaired.results.display import plot_axes
from pdpaired.results.verdict import verdict_headline

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["BootstrapResult"]


@public
@dataclass(frozen=True, slots=True, kw_only=True)
class BootstrapResult(ResultBase):
    """Paired bootstrap confidence interval for the improvement of A over B.

    Attributes
    ----------
    {common}
    confidence_interval : ConfidenceInterval
    confidence_level : float
    method : str
        The concrete interval method (never ``"auto"``): ``"percentile"``,
        ``"basic"``, ``"bca"``, ``"studentized"``, ``"calibrated"``,
        ``"tango"`` or ``"newcombe"``; ``"max-t"`` for a comparison of
        several models whose interval is their simultaneous band
        (``against`` / ``all_pairs`` with ``simultaneous=True``).
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
    verdict : str
        With ``t = practical_threshold``: ``"a_better"`` (``low > t``),
        ``"b_better"`` (``high < -t``), ``"equivalent"`` (``t > 0`` and the
        interval inside ``[-t, t]``), ``"inconclusive"``, or
        ``"undetermined"`` when the interval is degenerate (zero width, or
        fewer than 2 distinct replicate values in a tail): then no decision
        flag is True. :meth:`headline` says it in words.
    engine : str
        Resampling engine used: ``"multinomial"``, ``"numba"`` or ``"numpy"``
        (all give identical replicates for the same design and seed), or on
        the Dask path ``"poisson"`` (the Poisson bootstrap in partitions).
        With numba installed, small work in a process runs on NumPy until
        loading numba pays (``PDPAIRED_ACCELERATOR=auto``).
    confidence_interval_se : ConfidenceInterval or None
        Monte Carlo standard error of each endpoint (``.low``, ``.high``): how
        much the endpoint would move with another seed (0 for a degenerate
        interval; None for a score interval, ``"tango"`` or ``"newcombe"``,
        which is computed from the counts without Monte Carlo error).
    degenerate : bool
        The interval is degenerate: zero width, or fewer than 2 distinct
        replicate values in one of its tails (an endpoint sits on an atom of
        a few-valued bootstrap distribution). Then ``verdict`` is
        ``"undetermined"`` and no decision flag is True.
    exact_check : str or None
        For 0/1 scores resampled case by case: a note when the exact binomial
        test on the discordant pairs disagrees with the interval about
        whether 0 is excluded (and that the exact test is the one to trust);
        None otherwise.
    method_reason : str or None
        Why this interval method: with ``method="auto"`` (the default) the
        design facts that chose it (for example "continuous scores with only
        30 independent cases: the bootstrap-t ..."); ``"asked for"`` when the
        caller named the method; None on results built by hand.
    verdict : str
        ``"a_better"`` (``low > t``), ``"b_better"`` (``high < -t``),
        ``"equivalent"`` (``t > 0`` and ``-t <= low`` and ``high <= t``),
        ``"inconclusive"``, or ``"undetermined"`` (degenerate interval), with
        ``t = practical_threshold``.
    decision_stable : bool
        False when a decision threshold (``t``, ``-t``, ``-margin``) lies
        within 2 Monte Carlo standard errors of the endpoint compared with
        it: another seed could flip that decision; use more resamples (or
        ``n_resamples="auto"``).
    """

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
    verdict: str
    engine: str = field(repr=False, compare=False)
    confidence_interval_se: ConfidenceInterval | None = field(default=None, repr=False)
    degenerate: bool = False
    exact_check: str | None = field(default=None, repr=False)
    method_reason: str | None = field(default=None, repr=False)

    _title = "Paired bootstrap"

    def _headline(self) -> str | None:
        return self.headline()

    @property
    def agreement(self) -> bool:
        """False when the exact test on the discordant pairs disagrees with the interval about 0.

        Only 0/1 scores with few discordant pairs are checked
        (:attr:`exact_check` then says how); a report also checks its
        randomization test (:attr:`pdpaired.ComparisonReport.agreement`).
        A release gate reads a disagreement as "not established".
        """
        return self.exact_check is None

    @property
    def agreement_note(self) -> str | None:
        """The sentence saying that the exact check disagrees with the interval, or None.

        ``"Not established: "`` followed by :attr:`exact_check`; a release
        gate gives it as its reason for reading the verdict as not
        established.
        """
        return None if self.exact_check is None else f"Not established: {self.exact_check}"

    def headline(self, *, strong: str = "") -> str:
        """Return the verdict in one sentence, naming the model that is statistically ahead.

        Parameters
        ----------
        strong : str, default ""
            Wraps the verdict (``"**"`` for Markdown).

        Returns
        -------
        str
        """
        ci = self.confidence_interval
        return verdict_headline(
            self.verdict, ci.low, ci.high, a=self.a, b=self.b,
            practical_threshold=self.practical_threshold,
            confidence_level=self.confidence_level, strong=strong,
        )  # fmt: skip

    @property
    def decision_stable(self) -> bool:
        """False when a threshold lies within 2 Monte Carlo SEs of the endpoint that decides it."""
        se = self.confidence_interval_se
        if se is None or self.degenerate:
            return True
        ci, t = self.confidence_interval, self.practical_threshold
        checks = [(ci.low, se.low, t), (ci.high, se.high, -t)]
        if t > 0:
            checks += [(ci.low, se.low, -t), (ci.high, se.high, t)]
        if self.noninferiority_margin is not None:
            checks.append((ci.low, se.low, -self.noninferiority_margin))
        return all(abs(end - thr) > 2.0 * err for end, err, thr in checks)

    def __repr__(self) -> str:
        ci = self.confidence_interval
        return (
            f"BootstrapResult(a={self.a!r}, b={self.b!r}, metric={self.metric!r}, "
            f"improvement={self.improvement:.6g}, confidence_interval=[{ci.low:.6g}, "
            f"{ci.high:.6g}], verdict={self.verdict!r}, method={self.method!r}, "
            f"n_resamples={self.n_resamples}, sampling={self.sampling!r}, seed={self.seed!r}, "
            f"stream={self.stream!r})"
        )

    def _rows(self) -> list[tuple[str, str]]:
        ci = self.confidence_interval
        rows = self._head_rows()
        rows.append(
            (
                f"{_level(self.confidence_level)} paired CI",
                f"[{_fmt(ci.low, True)}, {_fmt(ci.high, True)}]   "
                f"{self.method}, {self.n_resamples} resamples, {self._seed_text()}",
            )
        )
        if self.method_reason is not None:
            rows.append(("Method", f"{self.method}: {self.method_reason}"))
        se = self.confidence_interval_se
        if se is not None:
            mc = f"+/-{se.low:.2g} (low), +/-{se.high:.2g} (high)"
            if not self.decision_stable:
                mc += (
                    "; a decision threshold is within 2 MC SE of its endpoint, so another "
                    "seed could flip the decision: use more resamples or n_resamples='auto'"
                )
            rows.append(("Monte Carlo error", mc))
        rows += self._tail_rows()
        if self.degenerate:
            rows.append(
                (
                    "Verdict",
                    "undetermined: the interval is degenerate (zero width, or an endpoint on an "
                    "atom of a few-valued bootstrap distribution), so it supports no decision; "
                    "use the randomization test or, for 0/1 scores, the exact binomial test",
                )
            )
        if self.exact_check is not None:
            rows.append(("Exact test", self.exact_check))
        decision = (
            f"{self.verdict}; superior (CI low > {self.practical_threshold:g}): "
            f"{_yes(self.superior_ci)}"
        )
        if self.noninferior is not None:
            decision += (
                f"; noninferior (margin {self.noninferiority_margin:g}): {_yes(self.noninferior)}"
            )
        rows.append(("Decision", decision))
        if self.n_valid < self.n_resamples:
            rows.append(("Valid resamples", f"{self.n_valid} of {self.n_resamples}"))
        return rows

    def _extra_dict(self) -> dict[str, Any]:
        return {
            "confidence_interval": {
                "low": self.confidence_interval.low,
                "high": self.confidence_interval.high,
            },
            "confidence_level": self.confidence_level,
            "method": self.method,
            "method_reason": self.method_reason,
            "n_resamples": self.n_resamples,
            "n_valid": self.n_valid,
            "standard_error": self.standard_error,
            "practical_threshold": self.practical_threshold,
            "noninferiority_margin": self.noninferiority_margin,
            "superior_point": self.superior_point,
            "superior_ci": self.superior_ci,
            "noninferior": self.noninferior,
            "verdict": self.verdict,
            "engine": self.engine,
            "confidence_interval_se": None
            if self.confidence_interval_se is None
            else {"low": self.confidence_interval_se.low, "high": self.confidence_interval_se.high},
            "degenerate": self.degenerate,
            "decision_stable": self.decision_stable,
            "exact_check": self.exact_check,
        }

    def plot(self, ax: Axes | None = None, *, bins: int | str = "auto") -> Axes:
        """Histogram of the bootstrap distribution with the interval and the estimate.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Axes to draw on; pyplot's current Axes (``plt.gca()``) when None, as in
            pandas and seaborn, so the plot shows inline in Jupyter.
        bins : int or str
            Passed to :meth:`~matplotlib.axes.Axes.hist`.

        Returns
        -------
        matplotlib.axes.Axes
        """
        ax = plot_axes(ax)
        ci = self.confidence_interval
        ax.hist(self.bootstrap_distribution, bins=bins, color="0.75", edgecolor="0.55")
        ax.axvspan(
            ci.low, ci.high, color="C0", alpha=0.15, label=f"{_level(self.confidence_level)} CI"
        )
        ax.axvline(self.improvement, color="C0", lw=2, label="estimate")
        ax.axvline(0.0, color="k", lw=1, ls="--", label="no difference")
        if self.practical_threshold:  # at +t and -t: the verdict compares the interval with both
            ax.axvline(
                self.practical_threshold, color="C3", lw=1, ls=":", label="practical threshold"
            )
            ax.axvline(-self.practical_threshold, color="C3", lw=1, ls=":")
        ax.set_xlabel(_plot_text(f"improvement of {self.a} over {self.b} ({self.metric_label})"))
        ax.set_ylabel("replicates")
        ax.set_title(f"Paired bootstrap ({self.method}, {self.sampling}): {self.verdict}")
        ax.legend(loc="best", fontsize="small")
        return ax


with_common_doc(BootstrapResult)


def _yes(flag: bool | None) -> str:
    return "yes" if flag else "no"
