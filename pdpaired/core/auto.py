"""``method="auto"``: the interval method follows the design.

One table of rules (documented with its coverage evidence in the bootstrap
guide; each row is checked by a simulation of ``tests/calibration``):

==========================================  ==================  ==========================
design                                      method              why
==========================================  ==================  ==========================
0/1 scores, independent cases, one stratum  ``"tango"``         a score interval keeps its
                                                                level with few discordant
                                                                pairs; the bootstrap does not
continuous scores, independent cases,       ``"studentized"``   the bootstrap-t is second-
fewer than :data:`FEW_CASES` or skewness                        order accurate; percentile
at least :data:`STRONG_SKEW`                                    under-covers skewed means
other independent cases (and those where   ``"percentile"``    accurate at this size (the
:data:`MAX_FLAT_SHARE` of the resamples                         bootstrap-t is undefined
draw one value only)                                            without spread)
strata or clusters                          ``"percentile"``    with the small-sample
                                                                correction (Rao-Wu and the
                                                                effective design df)
corpus metric, jackknife affordable         ``"bca"``           corrects bias and skew of a
                                                                nonlinear metric
corpus metric otherwise, two-stage runs,    ``"percentile"``    no affordable correction
Poisson (Dask) bootstrap
==========================================  ==================  ==========================
"""

from __future__ import annotations

import numpy as np

from pdpaired.core.bootstrap import DesignResampler
from pdpaired.core.crossed import PigeonholeResampler
from pdpaired.core.prediction import CountResampler, jackknife_affordable

__all__ = [
    "FEW_CASES",
    "MAX_FLAT_SHARE",
    "STRONG_SKEW",
    "choose_method",
    "coverage_warning",
    "flat_share",
    "is_binary",
    "skewness",
]

#: Below this many independent cases a continuous mean gets the bootstrap-t.
FEW_CASES = 100
#: From this absolute sample skewness of the differences, the bootstrap-t.
STRONG_SKEW = 1.0
#: The bootstrap-t needs replicates with spread: not when at least this share of
#: replicates would draw one value only (few cases, many ties).
MAX_FLAT_SHARE = 0.005


def is_binary(resampler: DesignResampler) -> bool:
    """Whether the design is one of 0/1 scores by case.

    The scores themselves must be 0/1 (``resampler.binary``, as the pairs
    know them): integer ratings that differ by at most 1 also have
    differences in {-1, 0, 1} but are not pass/fail outcomes. Without that
    knowledge, the differences decide.
    """
    d = resampler.design
    if d.count is not None or resampler.binary is False:
        return False
    return bool(np.all(np.isin(d.value, (-1.0, 0.0, 1.0))))


def flat_share(resampler: DesignResampler) -> float:
    """Probability that a replicate draws a single distinct value: ``sum_v (n_v / n)**n``."""
    d = resampler.design
    f = d.row_weights().astype(np.float64)
    n = float(f.sum())
    _, inv = np.unique(d.value, return_inverse=True)
    share = np.bincount(inv.ravel(), weights=f) / n
    return float(np.sum(share**n))


def skewness(resampler: DesignResampler) -> float:
    """Sample skewness ``g1`` of the unit values (0 with fewer than 3 or no spread)."""
    d = resampler.design
    f = d.row_weights().astype(np.float64)
    n = float(f.sum())
    if n < 3:
        return 0.0
    x = d.value
    scale = float(np.max(np.abs(x))) if x.size else 0.0
    if not 0.0 < scale < np.inf:
        return 0.0
    x = x / scale  # skewness is scale-free; this keeps cubes of values near 1e308 finite
    m = float(np.sum(f * x) / n)
    z = x - m
    m2 = float(np.sum(f * z * z) / n)
    if not m2 > 0.0:
        return 0.0
    return float(np.sum(f * z**3) / n / m2**1.5)


def choose_method(resampler: object) -> tuple[str, str]:
    """Return the concrete method for a design and one sentence saying why.

    Parameters
    ----------
    resampler : Resampler
        What the bootstrap resamples: a score-mode design
        (:class:`~pdpaired.core.bootstrap.DesignResampler`), a corpus metric
        (:class:`~pdpaired.core.prediction.CountResampler`), or another
        resampler (two-stage runs, the Dask Poisson bootstrap).

    Returns
    -------
    method, reason : str
    """
    if isinstance(resampler, DesignResampler):
        d = resampler.design
        n = d.n_units
        if resampler.small_sample:
            return "percentile", (
                "strata or clusters: the percentile bootstrap with the small-sample "
                "correction (Rao-Wu rescaling within strata and tail levels from the "
                f"design's {resampler.degrees_of_freedom or 0:.3g} effective degrees of freedom)"
            )
        if len(d.weight) == 1 and is_binary(resampler):
            return "tango", (
                f"0/1 scores on {n} independent cases: Tango's score interval, which keeps "
                "its level with few discordant pairs where a bootstrap does not"
            )
        skew = skewness(resampler)
        flat = flat_share(resampler)
        if (n < FEW_CASES or abs(skew) >= STRONG_SKEW) and flat >= MAX_FLAT_SHARE:
            return "percentile", (
                f"continuous scores on only {n} independent cases with many ties: "
                f"{100 * flat:.2g}% of resamples would draw one value only, where the bootstrap-t "
                "is undefined, so the percentile bootstrap"
            )
        if n < FEW_CASES or abs(skew) >= STRONG_SKEW:
            why = f"only {n} independent cases" if n < FEW_CASES else f"skewness {skew:+.2f}"
            return "studentized", (
                f"continuous scores with {why}: the bootstrap-t, which corrects for skew "
                "and small samples where the percentile interval under-covers"
            )
        return "percentile", (
            f"continuous scores on {n} independent cases with skewness {skew:+.2f}: the "
            "percentile bootstrap is accurate at this size"
        )
    if isinstance(resampler, CountResampler):
        if jackknife_affordable(resampler.evaluator):
            return "bca", (
                f"corpus metric {resampler.metric!r}: BCa, which corrects the bias and skew of "
                "a nonlinear metric (its jackknife is affordable here)"
            )
        return "percentile", (
            f"corpus metric {resampler.metric!r} whose jackknife over "
            f"{resampler.layout.n_units} units is too costly for BCa: the percentile bootstrap"
        )
    if isinstance(resampler, PigeonholeResampler):
        dof = resampler.degrees_of_freedom
        tails = "" if dof is None else f", tails widened to {dof:.3g} degrees of freedom"
        return "percentile", (
            f"crossed factors ({' x '.join(map(str, resampler.shape))} cells): the pigeonhole "
            "bootstrap of cases and levels, rescaled to the ANOVA's variance of the mean"
            f"{tails}; no jackknife or per-replicate standard error, so the percentile interval"
        )
    return "percentile", (
        "a design resampled without a per-replicate standard error or jackknife (two-stage "
        "runs or the Poisson bootstrap): the percentile bootstrap"
    )


def coverage_warning(resampler: object, method: str) -> str | None:
    """Say when a named method is known to under-cover on this design; else None.

    A percentile, basic or BCa interval of a mean of fewer than
    :data:`FEW_CASES` independent cases whose differences have skewness of
    at least :data:`STRONG_SKEW` (lognormal differences, 30 cases: the
    percentile interval covers about 0.89 at a nominal 0.95, the bootstrap-t
    0.93; the bootstrap guide's coverage table).
    """
    if method not in ("percentile", "basic", "bca"):
        return None
    if not isinstance(resampler, DesignResampler) or resampler.small_sample:
        return None
    if is_binary(resampler):
        return None
    n = resampler.design.n_units
    skew = skewness(resampler)
    if n >= FEW_CASES or abs(skew) < STRONG_SKEW:
        return None
    return (
        f"The paired differences are strongly skewed (skewness {skew:+.2f}) on only {n} "
        f"independent cases: a {method} interval under-covers here (for lognormal "
        "differences on 30 cases a 95% percentile interval covers about 89% of the time). "
        "Use method='studentized' (what method='auto' chooses for this design) or "
        "method='calibrated', and check the methods on this design with cmp.audit()."
    )
