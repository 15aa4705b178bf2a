"""Pooling of per-task improvements: fixed and random effects, prediction, simultaneous CIs.

:func:`pool_tasks` takes one estimate and one standard error per task
(independent tasks) and returns :class:`Pooling`: the fixed-effect
(inverse-variance) estimate, the random-effects estimate with the
between-task variance ``tau2`` (REML or DerSimonian-Laird) and its
confidence interval (Wald, or Hartung-Knapp-Sidik-Jonkman), Cochran's Q
with its p-value and I², the prediction interval for an unseen task
(Higgins, Thompson & Spiegelhalter, 2009) and the Šidák multipliers of the
simultaneous per-task intervals. Arrays in, a frozen result out; the
arguments are trusted (the analysis layer validates them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

__all__ = ["RANDOM_CI_METHODS", "TAU2_METHODS", "Pooling", "pool_tasks", "tau2_dl", "tau2_reml"]

#: The estimators of the between-task variance.
TAU2_METHODS = ("reml", "dl")

#: The confidence intervals of the random-effects mean.
RANDOM_CI_METHODS = ("hksj", "wald")


@dataclass(frozen=True, slots=True, kw_only=True)
class Pooling:
    """The pooled estimates of a suite of tasks (every interval at ``confidence_level``)."""

    k: int
    fixed: float
    fixed_se: float
    fixed_low: float
    fixed_high: float
    random: float
    random_se: float
    random_low: float
    random_high: float
    random_ci: str
    random_ci_se: float
    random_ci_df: int | None
    tau2: float
    tau2_method: str
    q: float
    q_df: int
    q_pvalue: float
    i2: float
    prediction_low: float | None
    prediction_high: float | None
    weights_fixed: np.ndarray
    weights_random: np.ndarray
    simultaneous_level: float
    simultaneous_z: float


def tau2_dl(y: np.ndarray, v: np.ndarray) -> float:
    """DerSimonian-Laird moment estimate of the between-task variance, truncated at 0.

    ``(Q - (k - 1)) / (sum w - sum w**2 / sum w)`` with ``w = 1 / v``.
    """
    w = 1.0 / v
    mu = float(np.sum(w * y) / np.sum(w))
    q = float(np.sum(w * (y - mu) ** 2))
    c = float(np.sum(w) - np.sum(w**2) / np.sum(w))
    return max(0.0, (q - (len(y) - 1)) / c)


def tau2_reml(y: np.ndarray, v: np.ndarray, *, tol: float = 1e-13, maxiter: int = 10_000) -> float:
    """Restricted maximum-likelihood estimate of the between-task variance.

    Fisher scoring on the restricted likelihood (Viechtbauer, 2005), from
    the DerSimonian-Laird estimate: ``tau2 <- sum w**2 ((y - mu)**2 - v) /
    sum w**2 + 1 / sum w`` with ``w = 1 / (v + tau2)``, truncated at 0
    (a fixed point on the boundary is the constrained maximum).
    """
    tau2 = tau2_dl(y, v)
    for _ in range(maxiter):
        w = 1.0 / (v + tau2)
        mu = np.sum(w * y) / np.sum(w)
        new = float(np.sum(w**2 * ((y - mu) ** 2 - v)) / np.sum(w**2) + 1.0 / np.sum(w))
        new = max(0.0, new)
        if abs(new - tau2) <= tol * (1.0 + tau2):
            return new
        tau2 = new
    return tau2


def pool_tasks(
    effects: np.ndarray, standard_errors: np.ndarray, *, tau2_method: str,
    confidence_level: float, random_ci: str = "wald",
) -> Pooling:  # fmt: skip
    """Pool independent per-task estimates.

    Parameters
    ----------
    effects, standard_errors : numpy.ndarray
        One estimate and its standard error (positive) per task; at least two tasks.
    tau2_method : {"reml", "dl"}
        Estimator of the between-task variance.
    confidence_level : float
        Level of every interval; the simultaneous per-task intervals use the
        Šidák level ``confidence_level ** (1 / k)`` each, exact for
        independent normal estimates.
    random_ci : {"wald", "hksj"}
        Interval of the random-effects mean. ``"wald"``: ``mu_RE ± z SE_RE``
        with ``SE_RE = (sum w)**-0.5``, ``w = 1 / (v + tau2)``. ``"hksj"``
        (Hartung-Knapp-Sidik-Jonkman): ``mu_RE ± t_{k-1} SE_HK`` with
        ``SE_HK**2 = sum w (y - mu_RE)**2 / ((k - 1) sum w)``, the
        interval of ``statsmodels.stats.meta_analysis.combine_effects``'s
        ``conf_int(use_t=True)`` (its fourth, ``_wls``, pair). The
        unmodified variant: ``SE_HK`` is below ``SE_RE`` when the
        weighted residuals are smaller than their expectation, which is
        what calibrates it (truncating the ratio at 1 over-covers).

    Returns
    -------
    Pooling
        The fixed-effect interval is normal (``mean ± z SE``, as
        ``combine_effects`` with ``use_t=False``); ``random_se`` is always
        ``SE_RE`` and ``random_ci_se`` / ``random_ci_df`` the standard
        error and degrees of freedom (None: normal) of the random-effects
        interval. The prediction interval is ``mu_RE ± t_{k-2}
        sqrt(tau2 + SE_RE**2)`` (None for two tasks) for either interval.
    """
    y = np.asarray(effects, dtype=float)
    v = np.asarray(standard_errors, dtype=float) ** 2
    k = len(y)
    z = float(stats.norm.ppf(0.5 + confidence_level / 2))
    w = 1.0 / v
    fixed = float(np.sum(w * y) / np.sum(w))
    fixed_se = math.sqrt(1.0 / float(np.sum(w)))
    q = float(np.sum(w * (y - fixed) ** 2))
    q_df = k - 1
    tau2 = tau2_reml(y, v) if tau2_method == "reml" else tau2_dl(y, v)
    wr = 1.0 / (v + tau2)
    random = float(np.sum(wr * y) / np.sum(wr))
    random_se = math.sqrt(1.0 / float(np.sum(wr)))
    if random_ci == "hksj":
        ci_df: int | None = k - 1
        ci_se = math.sqrt(float(np.sum(wr * (y - random) ** 2)) / (q_df * float(np.sum(wr))))
        ci_crit = float(stats.t.ppf(0.5 + confidence_level / 2, q_df))
    else:
        ci_df, ci_se, ci_crit = None, random_se, z
    if k >= 3:
        t = float(stats.t.ppf(0.5 + confidence_level / 2, k - 2))
        half = t * math.sqrt(tau2 + random_se**2)
        pred_low: float | None = random - half
        pred_high: float | None = random + half
    else:
        pred_low = pred_high = None
    sim_level = confidence_level ** (1.0 / k)
    return Pooling(
        k=k, fixed=fixed, fixed_se=fixed_se, fixed_low=fixed - z * fixed_se,
        fixed_high=fixed + z * fixed_se, random=random, random_se=random_se,
        random_low=random - ci_crit * ci_se, random_high=random + ci_crit * ci_se,
        random_ci=random_ci, random_ci_se=ci_se, random_ci_df=ci_df,
        tau2=tau2, tau2_method=tau2_method, q=q, q_df=q_df,
        q_pvalue=float(stats.chi2.sf(q, q_df)),
        i2=max(0.0, (q - q_df) / q) if q > 0 else 0.0,
        prediction_low=pred_low, prediction_high=pred_high,
        weights_fixed=w / np.sum(w), weights_random=wr / np.sum(wr),
        simultaneous_level=sim_level,
        simultaneous_z=float(stats.norm.ppf(0.5 + sim_level / 2)),
    )  # fmt: skip
