"""An interval for the best of several candidates that accounts for the choice.

A candidate chosen because it looked best on some cases has, on those same
cases, an estimate biased upwards (the winner's curse) and an ordinary
("naive") interval that covers its true effect less often than it says.
:func:`selection_band` gives intervals that hold for every candidate at
once: from joint bootstrap replicates of the ``k`` effects, the critical
value is the ``confidence_level`` quantile of the largest studentized
deviation ``max_j |theta*_j - theta_hat_j| / se_j`` (a max-t band). Since
all ``k`` intervals cover together with probability ``confidence_level``
(asymptotically), the one of the candidate picked -- by any rule, the best
estimate included -- covers its own effect at least that often.

The band is conservative when one candidate clearly wins (it pays for ``k``
comparisons where fewer mattered); the conditional and hybrid intervals of
Andrews, Kitagawa & McCloskey (2024, "Inference on winners", QJE) are
shorter there but rest on a normal approximation of the effects' joint
distribution and condition on the selection rule being "largest estimate".
The max-t band holds whatever the rule, and is the one computed here.

:func:`select_index` is the rule :func:`pdpaired.analysis.selection.select_best`
applies: the largest estimate, ties to the first candidate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pdpaired._lib.special import ndtr, stdtrit

__all__ = ["SelectionBand", "select_index", "selection_band"]


@dataclass(frozen=True, slots=True, eq=False)
class SelectionBand:
    """Simultaneous intervals of ``k`` effects (max-t band).

    Attributes
    ----------
    low, high : ndarray, shape (k,)
        Each effect's interval; all cover together with the band's level.
    se : ndarray, shape (k,)
        Bootstrap standard error of each effect.
    critical_value : float
        The half-width of each interval over its standard error (after the
        small-sample correction).
    n_used : int
        Replicates used (those finite for every effect).
    """

    low: np.ndarray
    high: np.ndarray
    se: np.ndarray
    critical_value: float
    n_used: int


def select_index(estimate: np.ndarray) -> int:
    """Return the position of the largest finite estimate (ties: the first one).

    Examples
    --------
    >>> select_index(np.array([0.1, 0.3, 0.3, -1.0]))
    1
    """
    est = np.asarray(estimate, dtype=np.float64)
    finite = np.isfinite(est)
    if not finite.any():
        msg = "No candidate has a finite estimate to select."
        raise ValueError(msg)
    return int(np.argmax(np.where(finite, est, -np.inf)))


def selection_band(
    estimate: np.ndarray,
    replicates: np.ndarray,
    *,
    confidence_level: float,
    df: float | None = None,
    variance_factor: float = 1.0,
) -> SelectionBand:
    """Simultaneous max-t intervals of ``k`` effects from their joint bootstrap replicates.

    With ``se_j`` the standard deviation of effect ``j``'s replicates and
    ``c`` the ``confidence_level`` quantile over replicates of
    ``max_j |replicate_j - estimate_j| / se_j`` (effects with ``se_j = 0``
    left out of the maximum), the intervals are ``estimate_j +- c * se_j``.
    Given ``df`` the tail level of ``c`` is read on Student's t instead of
    the normal, ``c_t = t_df(1 - Phi(-c))``, and ``variance_factor`` scales
    the standard errors by its square root, the small-sample correction of
    :func:`pdpaired.core.multi.rank_sets`.

    Parameters
    ----------
    estimate : ndarray, shape (k,)
        The effects (any direction: the band is two-sided).
    replicates : ndarray, shape (k, n)
        Their joint bootstrap replicates: column ``r`` from one resampling
        of the cases. Columns with a non-finite value are dropped.
    confidence_level : float
    df : float, optional
        Degrees of freedom of the design; None reads ``c`` as it is.
    variance_factor : float, default 1.0

    Returns
    -------
    SelectionBand

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> reps = rng.normal(size=(3, 4000)) * np.array([[1.0], [2.0], [0.5]])
    >>> band = selection_band(np.zeros(3), reps, confidence_level=0.95)
    >>> round(band.critical_value, 1)  # three independent normals: about 2.39
    2.4
    """
    est = np.asarray(estimate, dtype=np.float64)
    reps = np.asarray(replicates, dtype=np.float64)
    reps = reps[:, np.all(np.isfinite(reps), axis=0)]
    k, n = reps.shape
    if n < 2:
        nan = np.full(k, np.nan)
        return SelectionBand(nan, nan.copy(), nan.copy(), float("nan"), n)
    se = reps.std(axis=1, ddof=1)
    live = se > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.abs(reps - est[:, None]) / se[:, None]
    t = np.where(live[:, None], t, 0.0)
    crit = float(np.quantile(t.max(axis=0), confidence_level))
    if df is not None and df > 0:
        crit = float(-stdtrit(df, ndtr(-crit)))
    crit *= math.sqrt(variance_factor)
    half = crit * se
    return SelectionBand(est - half, est + half, se, crit, n)
