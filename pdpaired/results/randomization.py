"""The result of a paired randomization (prediction-swap) test and its views.

:class:`RandomizationResult` is what :mod:`pdpaired.core.randomization`
computes and the comparison returns.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from pdpaired._lib.format import plot_text as _plot_text
from pdpaired._lib.public import public
from pdpaired.results.base import ResultBase, with_common_doc
from pdpaired.results.display import pfmt as _pfmt
from pdpaired.results.display import plot_axes
from pdpaired.results.verdict import pvalue_verdict, pvalue_verdict_text

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["RandomizationResult"]

#: The level :attr:`RandomizationResult.verdict` is read at (the test is run without one).
_ALPHA = 0.05


@public
@dataclass(frozen=True, slots=True, kw_only=True)
class RandomizationResult(ResultBase):
    """Paired randomization (prediction-swap) test of A against B.

    Attributes
    ----------
    {common}
    statistic : float
        The observed improvement (the same estimand as the bootstrap's).
    pvalue : float
        ``(1 + #as-extreme) / (1 + n_permutations)`` by Monte Carlo, or the
        exact share when every assignment was enumerated.
    pvalue_se : float or None
        Monte Carlo standard error of ``pvalue``; None when exact.
    null_distribution : ndarray
        The statistic under each evaluated assignment.
    alternative : str
        ``"two-sided"``, ``"greater"`` (A better) or ``"less"``, declared up front.
    n_permutations : int
        Assignments evaluated (``2**n_units`` when exact).
    exact : bool
        Whether every assignment was enumerated.
    engine : str
        ``"exact"``, ``"binomial"``, ``"numba"`` or ``"numpy"``; on the Dask
        path also ``"partition-flips"`` (sign flips in partitions).
    level : float or None
        The confidence level of the analysis the test is part of (a report
        sets its own), or None for a test run on its own.
    alpha : float
        The level the verdict is read at: ``1 - level``, or 0.05 by
        convention for a test run on its own (without a level).
    verdict : str
        The test's reading at level ``alpha``: ``"a_better"``,
        ``"b_better"`` or ``"inconclusive"`` (see :attr:`verdict`).
    """

    statistic: float
    pvalue: float
    pvalue_se: float | None
    null_distribution: np.ndarray = field(repr=False, compare=False)
    alternative: str
    n_permutations: int
    exact: bool
    engine: str = field(repr=False, compare=False)
    level: float | None = field(default=None, repr=False)

    _title = "Paired randomization test"

    def __repr__(self) -> str:
        return (
            f"RandomizationResult(a={self.a!r}, b={self.b!r}, metric={self.metric!r}, "
            f"statistic={self.statistic:.6g}, pvalue={self.pvalue:.6g}, "
            f"alternative={self.alternative!r}, n_permutations={self.n_permutations}, "
            f"exact={self.exact}, unit={self.unit!r}, seed={self.seed!r}, stream={self.stream!r})"
        )

    @property
    def alpha(self) -> float:
        """The level the verdict is read at: ``1 - level``, else 0.05 by convention."""
        if self.level is None:
            return _ALPHA
        return round(1.0 - self.level, 12)  # 1 - 0.95 is 0.050000000000000044

    @property
    def verdict(self) -> str:
        """The verdict of the test, read from its p-value at level :attr:`alpha`.

        A test run on its own has no level, so its verdict is read at the
        conventional 0.05; inside a report, at the report's ``1 -
        confidence_level``. For another level compare :attr:`pvalue` with
        it. A two-sided test that rejects no difference (``pvalue < 0.05``)
        says the model ahead in :attr:`statistic` (direction adjusted:
        positive means A is better) is better; a one-sided test that rejects
        says the model of its ``alternative`` is better (``"greater"``: A); a
        test that does not reject is inconclusive, as is a one-sided test
        whose data point the other way.

        Returns
        -------
        str
            ``"a_better"``, ``"b_better"`` or ``"inconclusive"``; the text
            and HTML views state it, with the p-value and the level, in their
            ``Verdict`` row.

        Examples
        --------
        >>> import pdpaired
        >>> from pdpaired.datasets import load_digits_cv
        >>> cmp = load_digits_cv().paired(score="correct").compare(
        ...     "knn", "logreg", higher_is_better=True)
        >>> cmp.randomization(n_permutations=2000, rng=0).verdict
        'a_better'
        """
        return pvalue_verdict(self.pvalue, self.statistic, alternative=self.alternative,
                              alpha=self.alpha)  # fmt: skip

    def _rows(self) -> list[tuple[str, str]]:
        rows = self._head_rows()
        how = (
            f"exact, all {self.n_permutations} assignments"
            if self.exact
            else f"{self.n_permutations} permutations, {self._seed_text()}, "
            f"MC SE {self.pvalue_se:.2g}"
        )
        rows.append(
            (
                "Randomization test",
                f"p = {_pfmt(self.pvalue)}   {self.alternative}, {self.unit} swaps, {how}",
            )
        )
        verdict = pvalue_verdict_text(
            self.verdict, self.pvalue, self.statistic, alternative=self.alternative,
            alpha=self.alpha, a=self.a, b=self.b,
            level_note=", the conventional level" if self.level is None else "",
        )  # fmt: skip
        rows.append(("Verdict", verdict))
        return rows + self._tail_rows()

    def _extra_dict(self) -> dict[str, Any]:
        return {
            "statistic": self.statistic,
            "pvalue": self.pvalue,
            "pvalue_se": self.pvalue_se,
            "alternative": self.alternative,
            "n_permutations": self.n_permutations,
            "exact": self.exact,
            "engine": self.engine,
            "verdict": self.verdict,
        }

    def plot(self, ax: Axes | None = None, *, bins: int | str = "auto") -> Axes:
        """Histogram of the null distribution with the observed statistic.

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
        ax.hist(self.null_distribution, bins=bins, color="0.75", edgecolor="0.55")
        ax.axvline(self.statistic, color="C3", lw=2, label=f"observed (p = {_pfmt(self.pvalue)})")
        if self.alternative == "two-sided":
            ax.axvline(-self.statistic, color="C3", lw=1, ls="--")
        ax.set_xlabel(
            _plot_text(f"improvement of {self.a} over {self.b} under swaps ({self.metric_label})")
        )
        ax.set_ylabel("assignments")
        ax.set_title(f"Randomization null distribution ({self.unit} swaps)")
        ax.legend(loc="best", fontsize="small")
        return ax


with_common_doc(RandomizationResult)
