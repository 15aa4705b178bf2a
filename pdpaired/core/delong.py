"""DeLong's test of two correlated AUROCs, in O(n log n).

DeLong, DeLong & Clarke-Pearson (1988) estimate the covariance of two
AUROCs measured on the same cases from the *placement values* of each case:
for a positive case, the share of negatives it outscores (ties count half);
for a negative case, the share of positives that outscore it. The AUROC is
the mean placement of either class, and its (co)variance is that of the
placements divided by the class size, summed over the two classes:

``S = S10 / m + S01 / n``

with ``S10``, ``S01`` the 2 x 2 sample covariance matrices (``ddof=1``) of the
two models' placements over the ``m`` positives and the ``n`` negatives.
Sun & Xu (2014) compute every placement from three midrankings (of all cases,
of the positives, of the negatives), which costs a sort: O(n log n) instead
of the O(m n) of the pairwise definition.

The null of this test is *equal AUROC*, whatever the shapes of the two ROC
curves; the paired randomization test's null is that the two models'
predictions are exchangeable, a stronger hypothesis, which it also rejects
for models with equal AUROC and different ROC curves.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pdpaired._lib.special import ndtr, ndtri, rankdata

__all__ = ["DeLongCore", "delong_test", "placements"]


@dataclass(frozen=True, slots=True)
class DeLongCore:
    """What the array-level DeLong test returns."""

    auc_a: float
    auc_b: float
    statistic: float  # auc_a - auc_b
    se: float
    z: float
    pvalue: float
    low: float
    high: float
    n_positive: int
    n_negative: int


def placements(score: np.ndarray, positive: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """AUROC and the placement values of one model, by midranks (Sun & Xu 2014).

    Parameters
    ----------
    score : ndarray
        The model's predictions (higher means more likely positive).
    positive : ndarray of bool

    Returns
    -------
    auc : float
    v10 : ndarray
        Per positive case: share of negatives it outscores (ties count half).
    v01 : ndarray
        Per negative case: share of positives that outscore it (ties count half).
    """
    x, y = score[positive], score[~positive]
    m, n = x.size, y.size
    tz = rankdata(np.concatenate([x, y]))  # midranks of all cases
    tx, ty = rankdata(x), rankdata(y)
    v10 = (tz[:m] - tx) / n
    v01 = 1.0 - (tz[m:] - ty) / m
    auc = float((tz[:m].sum() - m * (m + 1) / 2.0) / (m * n))
    return auc, v10, v01


def delong_test(
    score_a: np.ndarray,
    score_b: np.ndarray,
    positive: np.ndarray,
    *,
    alternative: str = "two-sided",
    confidence_level: float = 0.95,
) -> DeLongCore:
    """DeLong's test of ``AUROC(A) = AUROC(B)`` on the same cases.

    ``alternative="greater"`` tests AUROC A > AUROC B. The interval is the
    Wald interval ``statistic -/+ z * se``, one-sided (an infinite end) for a
    one-sided alternative, as scipy's tests report it.

    Raises
    ------
    ValueError
        Fewer than two cases of either class (the covariance needs two).
    """
    positive = np.asarray(positive, dtype=bool)
    m = int(positive.sum())
    n = positive.size - m
    if m < 2 or n < 2:
        msg = (
            f"DeLong's test needs at least two positive and two negative cases; got {m} "
            f"positive and {n} negative."
        )
        raise ValueError(msg)
    auc_a, v10_a, v01_a = placements(np.asarray(score_a, dtype=np.float64), positive)
    auc_b, v10_b, v01_b = placements(np.asarray(score_b, dtype=np.float64), positive)
    s10 = np.cov(np.stack([v10_a, v10_b]), ddof=1)
    s01 = np.cov(np.stack([v01_a, v01_b]), ddof=1)
    s = s10 / m + s01 / n
    var = float(s[0, 0] + s[1, 1] - 2.0 * s[0, 1])
    stat = auc_a - auc_b
    se = float(np.sqrt(var)) if var > 0.0 else 0.0
    # a zero variance: no evidence when the AUROCs agree, an infinite z otherwise
    z = stat / se if se > 0.0 else (0.0 if stat == 0.0 else float(np.copysign(np.inf, stat)))
    if alternative == "two-sided":
        p = 2.0 * float(ndtr(-abs(z)))
        q = float(ndtri(0.5 + confidence_level / 2.0))
        low, high = stat - q * se, stat + q * se
    elif alternative == "greater":
        p = float(ndtr(-z))
        low, high = stat - float(ndtri(confidence_level)) * se, np.inf
    else:
        p = float(ndtr(z))
        low, high = -np.inf, stat + float(ndtri(confidence_level)) * se
    if se == 0.0 and stat == 0.0:
        p = 1.0
    return DeLongCore(
        auc_a=auc_a, auc_b=auc_b, statistic=stat, se=se, z=float(z), pvalue=min(1.0, p),
        low=float(low), high=float(high), n_positive=m, n_negative=n,
    )  # fmt: skip
