"""Paired bootstrap confidence intervals: percentile, basic and BCa.

The interval conventions follow :func:`scipy.stats.bootstrap` exactly
(linear-interpolated percentiles; BCa bias correction from the share of
replicates below the estimate, ties counted half; acceleration from the
jackknife), so results agree with scipy within Monte Carlo error. The
jackknife is computed in closed form over the resampling unit (case or
group, within strata), so BCa costs O(n), not O(n**2).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from statistics import NormalDist
from typing import Any, Protocol

import numpy as np

from pdpaired._lib.errors import DegenerateDataWarning, find_stack_level
from pdpaired._lib.special import ndtr, ndtri, stdtrit
from pdpaired.core.engine import Design, choose_engine, full_sample_statistic, resample
from pdpaired.core.exact_binomial import binomial_test
from pdpaired.core.paired_proportions import newcombe_interval, tango_interval, tango_statistic
from pdpaired.core.studentized import (
    Studentized,
    calibrated_levels,
    effective_df,
    studentized_replicates,
    t_interval,
)
from pdpaired.results.base import ConfidenceInterval

__all__ = [
    "AUTO_MAX",
    "AUTO_START",
    "AUTO_TARGET",
    "DESIGN_METHODS",
    "FEW_DISCORDANT",
    "METHODS",
    "MIN_DF",
    "SCORE_METHODS",
    "SMALL_SAMPLE_SAMPLINGS",
    "TINY_STRATUM",
    "BootstrapCore",
    "DesignResampler",
    "Resampler",
    "acceleration",
    "bootstrap_replicates",
    "endpoint_se",
    "expanded_alpha",
    "interval",
    "replicate_sd",
    "tango_interval",
    "tango_statistic",
    "thin_tails",
    "tiny_strata_message",
]

METHODS = ("percentile", "basic", "bca", "studentized", "calibrated", "tango", "newcombe")
#: Score intervals of a paired difference of proportions (0/1 scores), not bootstrap ones.
SCORE_METHODS = ("tango", "newcombe")
#: Intervals that need the design of a mean (score mode): the bootstrap-t and the
#: double-bootstrap calibrated percentile interval (:mod:`pdpaired.core.studentized`).
DESIGN_METHODS = ("studentized", "calibrated")
#: Below this many design degrees of freedom ``sum_h (G_h - 1)`` the corrected
#: stratified / cluster bootstrap warns (see :func:`few_units_message`).
MIN_DF = 8
#: Score-mode designs that get the small-sample correction (Rao-Wu rescaling
#: and the design-df expanded levels): every design but plain iid cases, whose
#: bootstrap stays Efron's (and scipy.stats.bootstrap's).
SMALL_SAMPLE_SAMPLINGS = ("cluster", "stratified", "stratified-cluster")
#: With fewer discordant pairs than this (McNemar's rule of thumb for the
#: normal approximation is 25), a bootstrap of 0/1 scores is checked against the
#: exact binomial test (:meth:`DesignResampler.exact_check`).
FEW_DISCORDANT = 25
#: ``n_resamples="auto"``: first size, largest size, and the target Monte Carlo
#: standard error of each endpoint as a share of the bootstrap standard error.
AUTO_START = 2_000
AUTO_MAX = 1_000_000
AUTO_TARGET = 0.01


@dataclass(frozen=True, slots=True, eq=False)
class BootstrapCore:
    """What the array-level bootstrap returns."""

    confidence_interval: ConfidenceInterval
    distribution: np.ndarray
    engine: str
    degenerate: bool
    n_resamples: int = 0
    confidence_interval_se: ConfidenceInterval | None = None
    standard_error: float = 0.0
    exact_check: str | None = None


def bca_acceleration(design: Design, plan: Any = None) -> float:
    """Acceleration ``a`` of BCa from the closed-form jackknife over units.

    With the multinomial engine's ``plan`` (few distinct units), the jackknife
    runs on the distinct units with their frequencies: the same value at the
    cost of the distinct units, however the design was stored.
    """
    if plan is not None and plan[0] == "multinomial":
        theta_minus, stratum_of, f = design.distinct_jackknife(plan[3], plan[2])
        return acceleration(theta_minus, stratum_of, design.sizes, f.astype(np.float64))
    theta_minus, stratum_of = design.jackknife()
    freq = None if design.freq is None else design.freq.astype(np.float64)
    return acceleration(theta_minus, stratum_of, design.sizes, freq)


def replicate_sd(dist: np.ndarray) -> float:
    """Return the standard deviation (``ddof=1``) of replicates; 0 for fewer than two.

    Computed on the replicates divided by a power of two (exact), so that
    squaring replicates near float64's range cannot overflow.
    """
    if dist.size < 2:
        return 0.0
    e = _scale_exponent(dist)
    return float(np.ldexp(np.std(np.ldexp(dist, -e), ddof=1), e))


def _scale_exponent(x: np.ndarray) -> int:
    """Exponent ``e`` with ``max |x| < 2**e`` (0 when it is 0, not finite or ``x`` empty).

    Dividing by ``2**e`` is exact and brings the values below 1 in magnitude,
    so their squares and cubes cannot overflow.
    """
    top = float(np.max(np.abs(x))) if x.size else 0.0
    return math.frexp(top)[1] if top > 0.0 and math.isfinite(top) else 0


def acceleration(
    theta_minus: np.ndarray,
    stratum_of: np.ndarray,
    sizes: np.ndarray,
    freq: np.ndarray | None = None,
) -> float:
    """BCa acceleration from leave-one-unit-out statistics.

    With strata, Davison & Hinkley's (1997, sec. 3.3) stratified form
    ``a = sum_h n_h**-3 sum_j l_hj**3 / (6 (sum_h n_h**-2 sum_j l_hj**2)**1.5)``
    with jackknife influence values ``l_hj = (n_h - 1) (mean_h - theta_(hj))``;
    with one stratum this is scipy's formula. ``freq`` gives how many units
    each entry stands for. Equal (stratum, statistic) entries are merged and
    summed in sorted order first, so the result does not depend on the order
    of the units or on how they were grouped into entries.
    """
    sizes = sizes.astype(np.float64)
    n_strata = len(sizes)
    w = np.ones(theta_minus.size) if freq is None else np.asarray(freq, dtype=np.float64)
    order = np.lexsort((theta_minus, stratum_of))
    s_sorted, t_sorted = stratum_of[order], theta_minus[order]
    new = np.ones(order.size, dtype=bool)
    new[1:] = (s_sorted[1:] != s_sorted[:-1]) | (t_sorted[1:] != t_sorted[:-1])
    starts = np.flatnonzero(new)
    stratum_of, theta_minus = s_sorted[starts], t_sorted[starts]
    w = np.add.reduceat(w[order], starts) if starts.size else w
    mean_h = np.bincount(stratum_of, weights=theta_minus * w, minlength=n_strata) / sizes
    infl = mean_h[stratum_of] - theta_minus
    infl = np.ldexp(infl, -_scale_exponent(infl))  # ``a`` is scale-free
    l2 = infl * infl
    sum2 = np.bincount(stratum_of, weights=l2 * w, minlength=n_strata)
    sum3 = np.bincount(stratum_of, weights=l2 * infl * w, minlength=n_strata)
    factor = (sizes - 1.0) / sizes  # l_hj = (n_h - 1) * infl_hj, divided by n_h
    num = float(np.sum(sum3 * factor**3))
    den = float(np.sum(sum2 * factor**2))
    if den <= 0.0:
        return 0.0
    return float(num / (6.0 * den**1.5))


class Resampler(Protocol):
    """What the bootstrap loop needs of a statistic: score mode's mean and corpus metrics alike.

    :class:`DesignResampler` resamples the unit sums of a design (a mean);
    ``pdpaired.core.prediction.CountResampler`` draws count vectors from the same
    addressed streams and recomputes a corpus metric on each. Both go through
    :func:`bootstrap_replicates`: the same batching, the same streams, the
    same handling of undefined replicates and the same interval code.
    """

    def singleton_warning(self) -> str | None:
        """Message when some resampling stratum holds a single unit (None otherwise)."""

    def replicates(
        self, n_resamples: int, seed_sequence: np.random.SeedSequence, batch: int | None
    ) -> tuple[np.ndarray, str]:
        """Return the replicates (NaN where the statistic is undefined) and the engine."""

    def theta(self) -> float:
        """Return the statistic on the original sample, computed like a replicate."""

    def acceleration(self) -> float:
        """Return BCa's acceleration (may raise ``ValueError`` when it cannot be had)."""

    def undefined(self, n_dropped: int, n_resamples: int) -> str:
        """Message for replicates where the statistic is undefined (all of them: an error)."""


@dataclass(eq=False)
class DesignResampler:
    """Score mode: resample a design's unit sums (see :func:`pdpaired.core.engine.resample`).

    ``small_sample=True`` (stratified and cluster designs) applies the
    small-sample correction: each stratum's replicates are Rao-Wu rescaled
    (:func:`pdpaired.core.engine.rao_wu`), which removes the ``(G_h - 1) / G_h``
    bias of the bootstrap variance, and the interval's tail levels are
    expanded with the design's effective degrees of freedom
    (:func:`expanded_alpha`, :func:`pdpaired.core.studentized.effective_df`:
    ``sum_h (G_h - 1)`` when the strata's variance contributions are alike,
    fewer when one stratum dominates). The draws are the same either way.
    """

    design: Design
    small_sample: bool = False
    #: Cases both models pass (0/1 scores by case, for ``method="newcombe"``), else None.
    both_pass: int | None = None
    #: Whether every score is 0 or 1 (None: unknown, judged from the differences).
    binary: bool | None = None

    def __post_init__(self) -> None:
        self.plan = choose_engine(self.design)
        self._levels: dict[tuple[Any, ...], tuple[float, float]] = {}

    @property
    def degrees_of_freedom(self) -> float | None:
        """Effective design degrees of freedom (Welch 1947) with the small-sample correction."""
        if not self.small_sample:
            return None
        return effective_df(self.design)

    def studentized(
        self, n_resamples: int, seed_sequence: np.random.SeedSequence, batch: int | None
    ) -> Studentized:
        """Replicates and their standard errors for the bootstrap-t (the same draws)."""
        return studentized_replicates(
            self.design, n_resamples, seed_sequence, batch, rescale=self.small_sample
        )

    def calibrated_levels(
        self, estimate: float, confidence_level: float, seed_sequence: np.random.SeedSequence
    ) -> tuple[float, float]:
        """Return the double bootstrap's percentile levels (once per estimate and level)."""
        key = (estimate, confidence_level, id(seed_sequence))  # a resampler lives for one call
        if key not in self._levels:
            self._levels[key] = calibrated_levels(
                self.design, estimate, confidence_level, seed_sequence,
                rescale=self.small_sample,
            )  # fmt: skip
        return self._levels[key]

    def few_units_warning(self) -> str | None:
        """Message when the design has too few units for any bootstrap to reach its level."""
        if not self.small_sample:
            return None
        sizes, df = self.design.sizes, self.degrees_of_freedom
        return few_units_message(sizes, df) or tiny_strata_message(sizes, df)

    def exact_check(self, ci: ConfidenceInterval, confidence_level: float) -> str | None:
        """Say when the exact sign test on the ±1 differences disagrees with the interval.

        Only for case resampling of differences in {-1, 0, 1} (0/1 scores)
        with fewer than :data:`FEW_DISCORDANT` discordant pairs: the nonzero
        differences are the discordant pairs and the exact binomial (sign)
        test on them is exact whatever their number, while a bootstrap
        interval is not when they are few.
        """
        d = self.design
        if d.count is not None or not np.all(np.isin(d.value, (-1.0, 0.0, 1.0))):
            return None
        f = d.row_weights()
        a_only = int(f[d.sign * d.value > 0].sum())
        b_only = int(f[d.sign * d.value < 0].sum())
        if not 0 < a_only + b_only < FEW_DISCORDANT:
            return None
        p = binomial_test(
            a_only, b_only, alternative="two-sided", mid_p=False,
            confidence_level=confidence_level,
        ).pvalue  # fmt: skip
        alpha = 1.0 - confidence_level
        excludes = ci.low > 0.0 or ci.high < 0.0
        if excludes == (p < alpha):  # the test rejects below its level, as every verdict reads
            return None
        level = f"at the {100 * alpha:g}% level"
        if excludes:
            said = f"it does not exclude a difference of 0 {level}, while the interval does"
        else:
            said = f"it excludes a difference of 0 {level}, while the interval does not"
        return (
            f"The exact binomial test on the {a_only + b_only} discordant pairs ({a_only} won by "
            f"A, {b_only} by B) gives p = {p:.3g}: {said}. With few discordant pairs the exact "
            "test is the one to trust (cmp.exact_binomial()); the bootstrap interval of a "
            "difference of 0/1 scores is unreliable there."
        )

    def tango_interval(self, confidence_level: float) -> ConfidenceInterval | None:
        """Tango's score interval; None unless 0/1 scores by case in one stratum."""
        d = self.design
        if d.count is not None or len(d.weight) != 1:
            return None
        if not np.all(np.isin(d.value, (-1.0, 0.0, 1.0))):
            return None
        f = d.row_weights()
        b = int(f[d.sign * d.value > 0].sum())
        c = int(f[d.sign * d.value < 0].sum())
        low, high = tango_interval(b, c, int(f.sum()), confidence_level)
        return ConfidenceInterval(low=low, high=high)

    def newcombe_interval(self, confidence_level: float) -> ConfidenceInterval | None:
        """Newcombe's (1998) method 10 interval; None unless 0/1 scores by case in one stratum."""
        d = self.design
        if self.both_pass is None or d.count is not None or len(d.weight) != 1:
            return None
        if not np.all(np.isin(d.value, (-1.0, 0.0, 1.0))):
            return None
        f = d.row_weights()
        b = int(f[d.sign * d.value > 0].sum())
        c = int(f[d.sign * d.value < 0].sum())
        n = int(f.sum())
        low, high = newcombe_interval(self.both_pass, b, c, n - self.both_pass - b - c,
                                      confidence_level)  # fmt: skip
        return ConfidenceInterval(low=low, high=high)

    def singleton_warning(self) -> str | None:
        """Strata with a single unit: resampling within them cannot vary."""
        singletons = int(np.count_nonzero(self.design.sizes == 1))
        if not singletons or len(self.design.sizes) == 1:
            return None
        return (
            f"{singletons} stratum/strata hold a single resampling unit: resampling within "
            "them cannot vary, so they add no sampling variance and the interval is too "
            "narrow. Merge small strata or resample without them."
        )

    def replicates(
        self, n_resamples: int, seed_sequence: np.random.SeedSequence, batch: int | None
    ) -> tuple[np.ndarray, str]:
        """Resample with the engine the design allows."""
        return resample(
            self.design, n_resamples, seed_sequence, batch, self.plan, rescale=self.small_sample
        )

    def theta(self) -> float:
        """Return the full-sample statistic, with the arithmetic of the replicates."""
        return full_sample_statistic(self.design)

    def acceleration(self) -> float:
        """Return the acceleration from the closed-form jackknife over the units."""
        return bca_acceleration(self.design, self.plan)

    def undefined(self, n_dropped: int, n_resamples: int) -> str:  # pragma: no cover
        """Say how many replicates are undefined (a mean of finite scores never is)."""
        return f"{n_dropped} of {n_resamples} replicates are undefined."


def bootstrap_replicates(
    resampler: Resampler,
    estimate: float,
    *,
    n_resamples: int | str,
    confidence_level: float,
    method: str,
    seed_sequence: np.random.SeedSequence,
    batch: int | None,
) -> BootstrapCore:
    """Bootstrap a statistic and return the interval for ``estimate``.

    The one loop of both modes: warn about single-unit strata, draw the
    replicates (in batches, from the addressed streams), drop the undefined
    ones (an error when none is left, a warning below 99% valid), compute
    BCa's acceleration first (so an impossible one raises before any warning
    about the interval), then the interval and the Monte Carlo standard
    error of its endpoints.

    Parameters
    ----------
    resampler : Resampler
    estimate : float
        The point estimate (direction adjusted) the interval is built around
        (used by ``"basic"``).
    n_resamples : int or "auto"
        ``"auto"``: :data:`AUTO_START` replicates, then more until both
        endpoints' Monte Carlo standard errors are at most :data:`AUTO_TARGET`
        times the bootstrap standard error, or :data:`AUTO_MAX` replicates.
        Replicate ``i`` always reads the same addressed stream, so the result
        is bit-identical to asking for the final number at once.
    confidence_level : float
    method : {"percentile", "basic", "bca"}
    seed_sequence : numpy.random.SeedSequence
    batch : int or None

    Returns
    -------
    BootstrapCore
    """
    lonely = resampler.singleton_warning()
    if lonely is not None:
        warnings.warn(lonely, DegenerateDataWarning, stacklevel=find_stack_level())
    few = getattr(resampler, "few_units_warning", lambda: None)()
    if few is not None:
        warnings.warn(few, DegenerateDataWarning, stacklevel=find_stack_level())
    df = getattr(resampler, "degrees_of_freedom", None)
    run = partial(
        _one_run, resampler, estimate, confidence_level=confidence_level, method=method,
        seed_sequence=seed_sequence, batch=batch, df=df,
    )  # fmt: skip
    if n_resamples != "auto":
        return run(int(n_resamples))
    n = AUTO_START
    while True:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            core = run(n)
        se = core.confidence_interval_se
        assert se is not None
        worst = max(se.low, se.high)
        target = AUTO_TARGET * core.standard_error
        if core.degenerate or worst <= target or n >= AUTO_MAX:
            break
        # the endpoint SE falls like 1 / sqrt(n): aim a little past the target
        grow = math.ceil(n * 1.2 * (worst / target) ** 2) if target > 0 else AUTO_MAX
        n = min(AUTO_MAX, max(2 * n, grow))
    for w in caught:  # the warnings of the run that is returned, once
        warnings.warn(w.message, w.category, stacklevel=find_stack_level())
    return core


def _one_run(
    resampler: Resampler,
    estimate: float,
    n_resamples: int,
    *,
    confidence_level: float,
    method: str,
    seed_sequence: np.random.SeedSequence,
    batch: int | None,
    df: float | None,
) -> BootstrapCore:
    if method in DESIGN_METHODS and not hasattr(resampler, "studentized"):
        msg = (
            f"method={method!r} needs the design of a mean of per-case scores (score mode); "
            "a corpus metric, two-stage or pigeonhole (crossed factors) design has no "
            "per-replicate standard error. Use method='percentile' (or 'bca', except with "
            "crossed factors)."
        )
        raise ValueError(msg)
    if method == "studentized":
        return _studentized_run(resampler, estimate, n_resamples, confidence_level=confidence_level,
                                seed_sequence=seed_sequence, batch=batch)  # fmt: skip
    reps, engine = resampler.replicates(n_resamples, seed_sequence, batch)
    valid = np.isfinite(reps)
    dist = reps if valid.all() else reps[valid]
    if dist.size == 0:
        raise ValueError(resampler.undefined(n_resamples, n_resamples))
    if dist.size < 0.99 * n_resamples:
        warnings.warn(
            resampler.undefined(n_resamples - dist.size, n_resamples),
            DegenerateDataWarning,
            stacklevel=find_stack_level(),
        )
    if method in SCORE_METHODS:
        score_interval = getattr(resampler, f"{method}_interval", None)
        ci_tango = None if score_interval is None else score_interval(confidence_level)
        if ci_tango is None:
            who = "Tango's" if method == "tango" else "Newcombe's (1998, method 10)"
            msg = (
                f"method={method!r} ({who} score interval for a paired difference of "
                "proportions) needs 0/1 scores resampled case by case without strata "
                "(score mode, unit='case', no stratum column or stratified=False)."
            )
            raise ValueError(msg)
        check = getattr(resampler, "exact_check", None)
        note = None if check is None else check(ci_tango, confidence_level)
        if note is not None:
            warnings.warn(note, DegenerateDataWarning, stacklevel=find_stack_level())
        return BootstrapCore(
            ci_tango, dist, engine, degenerate=False, n_resamples=n_resamples,
            confidence_interval_se=None, exact_check=note,  # from the counts: no MC error
            standard_error=replicate_sd(dist),
        )  # fmt: skip
    if method == "calibrated":
        calibrate: Any = resampler
        levels = calibrate.calibrated_levels(resampler.theta(), confidence_level, seed_sequence)
        return _finish(resampler, dist, engine, estimate, n_resamples, confidence_level,
                       method="percentile", df=None, levels=levels)  # fmt: skip
    return _finish(resampler, dist, engine, estimate, n_resamples, confidence_level,
                   method=method, df=df)  # fmt: skip


def _finish(
    resampler: Resampler, dist: np.ndarray, engine: str, estimate: float, n_resamples: int,
    confidence_level: float, *, method: str, df: float | None,
    levels: tuple[float, float] | None = None,
) -> BootstrapCore:  # fmt: skip
    """Interval, endpoint Monte Carlo errors and the exact check, from valid replicates."""
    accel: Callable[[], float] = resampler.acceleration
    if method == "bca":
        value = resampler.acceleration()  # raises before any warning about the interval
        accel = lambda: value  # noqa: E731
    ci, dist, degenerate, read = interval(
        dist, estimate, method=method, confidence_level=confidence_level,
        theta=resampler.theta, accel=accel, df=df, details=True, levels=levels,
    )  # fmt: skip
    if degenerate:
        se = ConfidenceInterval(low=0.0, high=0.0)
    else:
        se = endpoint_se(dist, read)
        degenerate = thin_tails(dist, ci)
    check = getattr(resampler, "exact_check", None)
    note = None if check is None or degenerate else check(ci, confidence_level)
    if note is not None:
        warnings.warn(note, DegenerateDataWarning, stacklevel=find_stack_level())
    return BootstrapCore(
        ci, dist, engine, degenerate=degenerate, n_resamples=n_resamples,
        confidence_interval_se=se, exact_check=note,
        standard_error=replicate_sd(dist),
    )  # fmt: skip


def thin_tails(dist: np.ndarray, ci: ConfidenceInterval) -> bool:
    """Whether either tail of the interval holds fewer than 2 distinct replicate values.

    Then an endpoint is an atom of a few-valued bootstrap distribution (a
    boundary such as "no discordant pair drawn"), not an estimate of a
    quantile: the interval is degenerate (its verdict is ``"undetermined"``).
    """
    low_tail = np.unique(dist[dist <= ci.low])
    high_tail = np.unique(dist[dist >= ci.high])
    return bool(low_tail.size < 2 or high_tail.size < 2)


@dataclass(frozen=True, slots=True)
class Levels:
    """How an interval read its replicates: the quantile levels, and BCa's z0 and a."""

    method: str
    levels: np.ndarray  # the two quantile levels read (low endpoint's first)
    alpha: float  # the tail level (after the small-sample expansion)
    z0: float = 0.0
    acc: float = 0.0


_NORMAL = NormalDist()


def sparsity(sorted_dist: np.ndarray, p: float) -> float:
    """``1 / f(q_p)`` of the replicates, by a difference of quantiles.

    The bandwidth is Hall & Sheather's (1988), the usual choice for the
    sparsity of a sample quantile; it is doubled while the two quantiles
    coincide (a few-valued distribution).
    """
    n = sorted_dist.size
    # (the standard library's normal quantile: a bandwidth needs no scipy import)
    zp = _NORMAL.inv_cdf(min(max(p, 1e-12), 1 - 1e-12))
    z975 = _NORMAL.inv_cdf(0.975)
    h = n ** (-1 / 3) * z975 ** (2 / 3) * (1.5 * _phi(zp) ** 2 / (2 * zp**2 + 1)) ** (1 / 3)
    h = max(h, 1.0 / n)
    while True:
        lo, hi = max(0.0, p - h), min(1.0, p + h)
        q_lo, q_hi = np.quantile(sorted_dist, [lo, hi])
        if q_hi > q_lo or (lo == 0.0 and hi == 1.0):
            return float((q_hi - q_lo) / (hi - lo))
        h *= 2.0


def _phi(z: float) -> float:
    return float(np.exp(-0.5 * z * z) / np.sqrt(2 * np.pi))


def endpoint_se(dist: np.ndarray, lv: Levels) -> ConfidenceInterval:
    """Monte Carlo standard error of each endpoint of the interval.

    A sample ``p``-quantile of ``B`` replicates has standard error
    ``sqrt(p (1 - p) / B) / f(q_p)`` (its asymptotic law); ``"basic"``
    reflects the opposite quantile. A BCa endpoint also moves with the
    estimated bias correction ``z0 = Phi^-1(s)`` (``s`` the share of
    replicates below the estimate): by the delta method over the joint law
    of ``s`` and the empirical distribution at the quantile,
    ``B Var * f**2 = L'**2 s (1 - s) + L (1 - L) - 2 L' (min(L, s) - L s)``
    with ``L'`` the derivative of the BCa level with respect to ``s``.
    """
    b = dist.size
    sd = np.sort(dist)
    out = []
    if lv.method == "bca":
        s = float(ndtr(lv.z0))
        z_low = float(ndtri(lv.alpha))  # by symmetry (see interval): 1 - alpha may round to 1
        for level, za in zip(lv.levels, (z_low, -z_low), strict=True):
            u = lv.z0 + za
            dlevel = _phi(lv.z0 + u / (1 - lv.acc * u)) * (1 + 1 / (1 - lv.acc * u) ** 2)
            dlevel /= _phi(lv.z0)  # dz0/ds = 1 / phi(z0)
            var = dlevel**2 * s * (1 - s) + level * (1 - level)
            var -= 2 * dlevel * (min(level, s) - level * s)
            out.append(np.sqrt(max(var, 0.0) / b) * sparsity(sd, float(level)))
    else:
        levels = lv.levels[::-1] if lv.method == "basic" else lv.levels
        for level in levels:
            out.append(np.sqrt(level * (1 - level) / b) * sparsity(sd, float(level)))
    return ConfidenceInterval(low=float(out[0]), high=float(out[1]))


def _studentized_run(
    resampler: Any, estimate: float, n_resamples: int, *,
    confidence_level: float, seed_sequence: np.random.SeedSequence, batch: int | None,
) -> BootstrapCore:  # fmt: skip
    """Return the bootstrap-t interval (:func:`pdpaired.core.studentized.t_interval`)."""
    st = resampler.studentized(n_resamples, seed_sequence, batch)
    dist = st.theta
    if np.ptp(dist) == 0.0 or st.standard_error == 0.0:
        return _finish(resampler, dist, st.engine, estimate, n_resamples, confidence_level,
                       method="percentile", df=None)  # fmt: skip
    low, high, t, levels = t_interval(st, confidence_level)
    unbounded = not (math.isfinite(low) and math.isfinite(high))
    if unbounded:
        warnings.warn(
            "A tail of the bootstrap-t distribution is made of replicates without spread "
            "(every drawn unit equal), so that endpoint is unbounded; it is shown at the "
            "extreme replicate and the interval is degenerate. Use more cases, the "
            "randomization test, or method='percentile'.",
            DegenerateDataWarning,
            stacklevel=find_stack_level(),
        )
        low = low if math.isfinite(low) else float(dist.min())
        high = high if math.isfinite(high) else float(dist.max())
    ci = ConfidenceInterval(low=low, high=high)
    sd = np.sort(t)
    b = t.size
    with np.errstate(over="ignore", invalid="ignore"):
        low_se, high_se = (
            float(st.standard_error * np.sqrt(p * (1 - p) / b) * sparsity(sd, float(p)))
            for p in levels
        )
    if unbounded or not (math.isfinite(low_se) and math.isfinite(high_se)):
        low_se = high_se = 0.0  # as for every degenerate interval
    se = ConfidenceInterval(low=low_se, high=high_se)
    q_hi, q_lo = np.percentile(t, 100 * levels)
    degenerate = thin_tails(t, ConfidenceInterval(low=float(q_lo), high=float(q_hi)))
    degenerate = degenerate or unbounded
    check = resampler.exact_check
    note = None if degenerate else check(ci, confidence_level)
    if note is not None:
        warnings.warn(note, DegenerateDataWarning, stacklevel=find_stack_level())
    return BootstrapCore(
        ci, dist, st.engine, degenerate=degenerate, n_resamples=n_resamples,
        confidence_interval_se=se, exact_check=note, standard_error=replicate_sd(dist),
    )  # fmt: skip


def expanded_alpha(alpha: float, df: float | None) -> float:
    """Tail level ``Phi(t_df(alpha))`` of the expanded percentile interval (``alpha`` for None)."""
    if df is None or df <= 0:
        return alpha
    return float(ndtr(stdtrit(df, alpha)))


def few_units_message(sizes: np.ndarray, df: float | None) -> str | None:
    """Warn below the design degrees of freedom where the corrected bootstrap still under-covers.

    The rule reads the design's ``sum_h (G_h - 1)``: with at least
    :data:`MIN_DF` of them the effective df (``df``, which falls when the
    strata's variances differ) restores the level. ``df`` is named in the
    message when it falls short.
    """
    nominal = int(np.sum(np.maximum(sizes - 1, 0)))
    if df is None or nominal >= MIN_DF:
        return None
    n_units = int(sizes.sum())
    # merging strata adds degrees of freedom; with one stratum only other tests help
    merge = "fewer strata, " if len(sizes) > 1 else ""
    if round(df, 1) < nominal:
        dof = (
            f"{df:.1f} effective design degrees of freedom of {nominal}: the strata's "
            "variances differ, so a few strata carry the uncertainty"
        )
    else:
        dof = f"{nominal} design degrees of freedom"
    return (
        f"Only {n_units} resampling units ({len(sizes)} stratum/strata, {dof}): below "
        f"{MIN_DF} degrees of freedom no bootstrap interval reliably reaches its confidence "
        "level, even with the small-sample correction. Check the methods on this design "
        f"with cmp.audit(); use {merge}the randomization test (exact at this size), or for "
        "0/1 scores the exact binomial test."
    )


#: Strata of at most this many units on average are "tiny" (:func:`tiny_strata_message`).
TINY_STRATUM = 3


def tiny_strata_message(sizes: np.ndarray, df: float | None) -> str | None:
    """Warn for strata of at most :data:`TINY_STRATUM` units on average.

    Their variances cannot be told apart from two or three units each, and
    the corrected interval covers a little under its level (measured on 10
    strata: 0.947 +- 0.004 with two cases of equal variance, 0.932-0.937
    +- 0.004 with SD 0.5 to 2, 0.93-0.94 with three cases of equal variance).
    """
    if df is None or len(sizes) < 2 or float(np.mean(sizes)) > TINY_STRATUM:
        return None
    nominal = int(np.sum(np.maximum(sizes - 1, 0)))
    return (
        f"Tiny strata ({len(sizes)} strata of {float(np.mean(sizes)):.2g} units on average, "
        f"{df:.1f} effective design degrees of freedom of {nominal}): two or three units "
        "cannot tell whether the strata's variances differ, and the corrected bootstrap "
        "interval covers about 93-95% where 95% is asked (measured on 10 such strata). Check "
        "the methods on this design with cmp.audit(), merge strata, or test with the "
        "randomization test (exact at any size)."
    )


def interval(
    dist: np.ndarray,
    estimate: float,
    *,
    method: str,
    confidence_level: float,
    theta: Callable[[], float],
    accel: Callable[[], float],
    df: float | None = None,
    details: bool = False,
    levels: tuple[float, float] | None = None,
) -> Any:
    """Interval from bootstrap replicates, with scipy's conventions.

    ``theta`` and ``accel`` are called only for BCa: the statistic on the
    original sample (computed like a replicate) and the acceleration.
    ``df`` (the design degrees of freedom of the small-sample correction)
    widens the tail levels from ``alpha`` to ``Phi(t_df(alpha))``: the
    interval then spans ``t_df`` standard errors where a normal
    distribution of the replicates has ``z`` (Hesterberg's 2015 "expanded
    percentile" interval with the survey design's degrees of freedom).
    ``levels`` (percentile only): read these two quantile levels instead
    (the calibrated interval's, :func:`pdpaired.core.studentized.calibrated_levels`).

    Returns
    -------
    interval, distribution, degenerate
        and, with ``details``, the :class:`Levels` the interval read.
    """
    alpha = expanded_alpha((1.0 - confidence_level) / 2.0, df)
    if np.ptp(dist) == 0.0:
        warnings.warn(
            "Every bootstrap replicate of the improvement is identical (for example, every "
            "paired difference is equal): the interval collapses to the point estimate "
            f"{estimate:.6g}. It carries no information about sampling uncertainty.",
            DegenerateDataWarning,
            stacklevel=find_stack_level(),
        )
        point = ConfidenceInterval(low=float(estimate), high=float(estimate))
        flat = np.full_like(dist, estimate)
        if details:
            return point, flat, True, Levels(method, np.array([alpha, 1 - alpha]), alpha)
        return point, flat, True
    z0 = acc = 0.0
    read = np.array([alpha, 1 - alpha]) if levels is None else np.array(levels, dtype=float)
    if method == "percentile":
        low, high = np.percentile(dist, 100 * read)
    elif method == "basic":
        p_low, p_high = np.percentile(dist, [100 * alpha, 100 * (1 - alpha)])
        low, high = 2 * estimate - p_high, 2 * estimate - p_low
    else:
        t0 = theta()
        share = ((dist < t0).sum() + (dist <= t0).sum()) / (2.0 * dist.size)
        if share <= 0.0 or share >= 1.0:
            warnings.warn(
                "The estimate lies outside the bootstrap distribution, so the BCa bias "
                "correction is unbounded; it is clipped to half a replicate. Consider "
                "method='percentile' or more resamples.",
                DegenerateDataWarning,
                stacklevel=find_stack_level(),
            )
            share = min(max(share, 0.5 / dist.size), 1 - 0.5 / dist.size)
        z0 = ndtri(share)
        acc = accel()
        # by symmetry, not ndtri(1 - alpha): with one design degree of freedom the
        # expanded alpha (~3e-37) makes 1 - alpha round to 1, whose quantile is inf
        z_low = float(ndtri(alpha))
        z = np.array([z_low, -z_low])
        adj = ndtr(z0 + (z0 + z) / (1 - acc * (z0 + z)))
        low, high = np.percentile(dist, 100 * adj)
        read = adj
    ci = ConfidenceInterval(low=float(low), high=float(high))
    if details:
        return ci, dist, False, Levels(method, read, alpha, float(z0), float(acc))
    return ci, dist, False
