"""The result of DeLong's test of equal AUROC and its views.

:class:`DeLongResult` is what :mod:`pdpaired.core.delong` computes and the
comparison returns (prediction mode, binary targets).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pdpaired._lib.format import fmt as _fmt
from pdpaired._lib.format import level_text as _level
from pdpaired._lib.public import public
from pdpaired.results.base import ConfidenceInterval, ResultBase, with_common_doc
from pdpaired.results.display import pfmt as _pfmt
from pdpaired.results.verdict import pvalue_verdict, pvalue_verdict_text

__all__ = ["DeLongResult"]


@public
@dataclass(frozen=True, slots=True, kw_only=True)
class DeLongResult(ResultBase):
    """DeLong's test of equal AUROC of two models on the same cases.

    The null is that the two AUROCs are equal (whatever the shapes of the
    ROC curves); the variance of the difference comes from the cases'
    placement values (DeLong, DeLong & Clarke-Pearson 1988, in O(n log n) as
    in Sun & Xu 2014).

    Attributes
    ----------
    {common}
    statistic : float
        AUROC of A minus AUROC of B (``metric_a - metric_b``).
    pvalue : float
    se : float
        DeLong standard error of ``statistic``.
    z : float
        ``statistic / se``.
    confidence_interval : ConfidenceInterval
        Wald interval ``statistic -/+ z * se`` (one-sided, with an infinite
        end, for a one-sided ``alternative``).
    confidence_level : float
    alternative : str
        ``"two-sided"``, ``"greater"`` (AUROC A > AUROC B) or ``"less"``.
    n_positive, n_negative : int
        Cases of each class.
    alpha : float
        The level the verdict is read at: ``1 - confidence_level``.
    verdict : str
        The test's reading at level ``alpha``: ``"a_better"`` (A has the
        higher AUROC), ``"b_better"`` or ``"inconclusive"``.
    """

    statistic: float
    pvalue: float
    se: float
    z: float
    confidence_interval: ConfidenceInterval
    confidence_level: float
    alternative: str
    n_positive: int
    n_negative: int

    _title = "DeLong test of equal AUROC"

    def __repr__(self) -> str:
        ci = self.confidence_interval
        return (
            f"DeLongResult(a={self.a!r}, b={self.b!r}, statistic={self.statistic:.6g}, "
            f"se={self.se:.6g}, pvalue={self.pvalue:.6g}, confidence_interval=[{ci.low:.6g}, "
            f"{ci.high:.6g}], alternative={self.alternative!r})"
        )

    @property
    def alpha(self) -> float:
        """The level the verdict is read at: ``1 - confidence_level`` (0.05 by default)."""
        return round(1.0 - self.confidence_level, 12)  # 1 - 0.95 is 0.050000000000000044

    @property
    def verdict(self) -> str:
        """The verdict of the test, read from its p-value at level :attr:`alpha`.

        A two-sided test that rejects equal AUROC (``pvalue < alpha``) says
        the model with the higher AUROC is better (AUROC is higher-is-better
        whatever the metric's direction); a one-sided test that rejects says
        the model of its ``alternative`` is better (``"greater"``: A); else
        ``"inconclusive"``. For a two-sided test it agrees with the Wald
        interval beside it: the interval excludes 0 exactly when the test
        rejects.

        Returns
        -------
        str
            ``"a_better"``, ``"b_better"`` or ``"inconclusive"``; the views
            state it in their ``Verdict`` row.
        """
        return pvalue_verdict(self.pvalue, self.statistic, alternative=self.alternative,
                              alpha=self.alpha)  # fmt: skip

    def _rows(self) -> list[tuple[str, str]]:
        ci = self.confidence_interval
        rows = self._head_rows()
        rows.append(
            (
                f"{_level(self.confidence_level)} CI (DeLong)",
                f"[{_fmt(ci.low, True)}, {_fmt(ci.high, True)}]   SE {self.se:.4g}",
            )
        )
        rows.append(
            (
                "DeLong test",
                f"p = {_pfmt(self.pvalue)}   {self.alternative}, z = {self.z:.3f}, "
                f"{self.n_positive} positive / {self.n_negative} negative cases",
            )
        )
        rows.append(("Null hypothesis", "equal AUROC (whatever the shapes of the ROC curves)"))
        verdict = pvalue_verdict_text(
            self.verdict, self.pvalue, self.statistic, alternative=self.alternative,
            alpha=self.alpha, a=self.a, b=self.b,
        )  # fmt: skip
        rows.append(("Verdict", verdict.replace("no difference", "equal AUROC")))
        return rows + self._tail_rows()

    def _extra_dict(self) -> dict[str, Any]:
        return {
            "statistic": self.statistic,
            "pvalue": self.pvalue,
            "se": self.se,
            "z": self.z,
            "confidence_interval": {
                "low": self.confidence_interval.low,
                "high": self.confidence_interval.high,
            },
            "confidence_level": self.confidence_level,
            "alternative": self.alternative,
            "n_positive": self.n_positive,
            "n_negative": self.n_negative,
            "verdict": self.verdict,
        }


with_common_doc(DeLongResult)
