"""The result of the exact binomial test on discordant pairs and its views.

:class:`ExactBinomialResult` is what :mod:`pdpaired.core.exact_binomial`
computes and the comparison returns (binary 0/1 scores).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pdpaired._lib.format import level_text as _level
from pdpaired._lib.public import public
from pdpaired.results.base import ConfidenceInterval, ResultBase, with_common_doc
from pdpaired.results.display import pfmt as _pfmt
from pdpaired.results.verdict import pvalue_verdict, pvalue_verdict_text

__all__ = ["ExactBinomialResult"]


@public
@dataclass(frozen=True, slots=True, kw_only=True)
class ExactBinomialResult(ResultBase):
    """Exact conditional test on the discordant pairs of binary 0/1 scores.

    "Pass" is the better value (1 when higher is better, 0 when lower is better).

    Attributes
    ----------
    {common}
    a_only, b_only : int
        Pairs where only A (resp. only B) passes: the discordant pairs.
    both_pass, both_fail : int
        Concordant pairs (they carry no information about the difference).
    statistic : int
        ``a_only``; Binomial(a_only + b_only, 1/2) under the null.
    pvalue : float
    alternative : str
        ``"two-sided"`` (doubled smaller tail, capped at 1), ``"greater"``
        (upper tail of ``a_only``: A better) or ``"less"``.
    mid_p : bool
        Whether the mid-p variant was used.
    discordant_share : float or None
        ``a_only / (a_only + b_only)``; None without discordant pairs.
    confidence_interval : ConfidenceInterval
        Exact Clopper-Pearson interval of the discordant share ([0, 1] when
        there is no discordant pair).
    confidence_level : float
    alpha : float
        The level the verdict is read at, ``1 - confidence_level``.
    verdict : str
        The test's reading at level ``alpha``: ``"a_better"``,
        ``"b_better"`` or ``"inconclusive"`` (see :attr:`verdict`).
    """

    a_only: int
    b_only: int
    both_pass: int
    both_fail: int
    statistic: int
    pvalue: float
    alternative: str
    mid_p: bool
    discordant_share: float | None
    confidence_interval: ConfidenceInterval
    confidence_level: float

    _title = "Exact binomial test on discordant pairs"

    def __repr__(self) -> str:
        return (
            f"ExactBinomialResult(a={self.a!r}, b={self.b!r}, a_only={self.a_only}, "
            f"b_only={self.b_only}, pvalue={self.pvalue:.6g}, "
            f"alternative={self.alternative!r}, mid_p={self.mid_p})"
        )

    @property
    def alpha(self) -> float:
        """The level the verdict is read at: ``1 - confidence_level`` (0.05 by default)."""
        return round(1.0 - self.confidence_level, 12)  # 1 - 0.95 is 0.050000000000000044

    @property
    def verdict(self) -> str:
        """The verdict of the test, read from its p-value at level :attr:`alpha`.

        ``alpha = 1 - confidence_level``, the level of the exact interval
        beside it. A two-sided test that rejects no difference
        (``pvalue < alpha``) says the model that passes more of the
        discordant pairs is better (``a_only > b_only``: A; "pass" is the
        better value, so ``higher_is_better`` is already in the counts); a
        one-sided test that rejects says the model of its ``alternative`` is
        better (``"greater"``: A); a test that does not reject is
        inconclusive, as is a one-sided test whose counts point the other way.

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
        >>> res = load_digits_cv().paired(score="correct").exact_binomial(
        ...     "knn", "logreg", higher_is_better=True)
        >>> res.a_only, res.b_only, res.verdict
        (39, 10, 'a_better')
        """
        return pvalue_verdict(self.pvalue, self.a_only - self.b_only,
                              alternative=self.alternative, alpha=self.alpha)  # fmt: skip

    def _rows(self) -> list[tuple[str, str]]:
        rows = self._head_rows()
        n = self.a_only + self.b_only
        rows.append(
            (
                "Discordant pairs",
                f"A only {self.a_only}, B only {self.b_only} (of {n}); "
                f"concordant: both pass {self.both_pass}, both fail {self.both_fail}",
            )
        )
        ci = self.confidence_interval
        share = "n/a" if self.discordant_share is None else f"{self.discordant_share:.4g}"
        rows.append(
            (
                "Share won by A",
                f"{share}   ({_level(self.confidence_level)} exact CI "
                f"[{ci.low:.4g}, {ci.high:.4g}])",
            )
        )
        kind = "mid-p" if self.mid_p else "exact"
        rows.append(
            ("Exact binomial test", f"p = {_pfmt(self.pvalue)}   {self.alternative}, {kind}")
        )
        verdict = pvalue_verdict_text(
            self.verdict, self.pvalue, self.a_only - self.b_only, alternative=self.alternative,
            alpha=self.alpha, a=self.a, b=self.b,
        )  # fmt: skip
        rows.append(("Verdict", verdict))
        return rows + self._tail_rows()

    def _extra_dict(self) -> dict[str, Any]:
        return {
            "a_only": self.a_only,
            "b_only": self.b_only,
            "both_pass": self.both_pass,
            "both_fail": self.both_fail,
            "statistic": self.statistic,
            "pvalue": self.pvalue,
            "alternative": self.alternative,
            "mid_p": self.mid_p,
            "discordant_share": self.discordant_share,
            "confidence_interval": {
                "low": self.confidence_interval.low,
                "high": self.confidence_interval.high,
            },
            "confidence_level": self.confidence_level,
            "verdict": self.verdict,
        }


with_common_doc(ExactBinomialResult)
