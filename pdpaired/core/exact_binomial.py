"""Exact conditional (McNemar-type) test on the discordant pairs of 0/1 scores.

Only pairs where exactly one model passes carry information about which is
better. Under the null of no difference, given the number ``n`` of discordant
pairs, the count ``a_only`` (A passes, B fails) is Binomial(n, 1/2).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["BinomialCore", "binomial_test"]


@dataclass(frozen=True, slots=True)
class BinomialCore:
    """What the array-level exact binomial test returns."""

    pvalue: float
    low: float
    high: float


def binomial_test(
    a_only: int, b_only: int, *, alternative: str, mid_p: bool, confidence_level: float
) -> BinomialCore:
    """Exact binomial test of ``a_only`` among ``a_only + b_only`` discordant pairs.

    Parameters
    ----------
    a_only, b_only : int
        Discordant pairs where only A (resp. only B) passes.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: the upper tail of ``a_only`` (A better); ``"less"``: the
        lower tail; ``"two-sided"``: twice the smaller tail, capped at 1.
    mid_p : bool
        Count half the probability of the observed count (mid-p variant).
    confidence_level : float
        Level of the Clopper-Pearson interval for ``a_only / n``.

    Returns
    -------
    BinomialCore
        ``pvalue`` and the interval ``(low, high)`` of the discordant share;
        with no discordant pair, ``pvalue`` is 1 and the interval is [0, 1].
    """
    from scipy.stats import beta, binom  # scipy.stats costs 0.5 s to import: only when used

    n = a_only + b_only
    if n == 0:
        return BinomialCore(pvalue=1.0, low=0.0, high=1.0)
    at = binom.pmf(a_only, n, 0.5)
    upper = binom.sf(a_only, n, 0.5) + (0.5 * at if mid_p else at)  # P(X >= a) or mid
    lower = binom.cdf(a_only - 1, n, 0.5) + (0.5 * at if mid_p else at)  # P(X <= a) or mid
    if alternative == "greater":
        p = upper
    elif alternative == "less":
        p = lower
    else:
        p = 2.0 * min(upper, lower)
    alpha = 1.0 - confidence_level
    low = 0.0 if a_only == 0 else float(beta.ppf(alpha / 2, a_only, n - a_only + 1))
    high = 1.0 if a_only == n else float(beta.ppf(1 - alpha / 2, a_only + 1, n - a_only))
    return BinomialCore(pvalue=float(min(1.0, p)), low=low, high=high)
