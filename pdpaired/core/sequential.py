"""Anytime-valid confidence sequences for the mean of bounded paired differences.

A confidence sequence ``(C_n)`` covers the mean ``mu`` at every sample size
at once: ``P(mu in C_n for all n >= 1) >= 1 - alpha``. It stays valid when
the data are looked at after every case and the evaluation is stopped (or
extended) because of what was seen, which a fixed-sample interval does not.

The method is the predictable-mixture empirical-Bernstein confidence
sequence of Waudby-Smith & Ramdas (2024, JRSS-B 86(1), "Estimating means of
bounded random variables by betting", Theorem 2, "PrPl-EB"). Its guarantee is
non-asymptotic: it needs only that every difference lies in known ``bounds``
and that each has conditional mean ``mu`` given the earlier ones (i.i.d.
differences, in particular). For ``x_i`` in [0, 1] (the differences mapped
linearly from ``bounds``)::

    mu_t      = (1/2 + sum_{i<=t} x_i) / (t + 1)
    sigma2_t  = (1/4 + sum_{i<=t} (x_i - mu_i)**2) / (t + 1)
    lambda_t  = min(sqrt(2 log(2/alpha) / (sigma2_{t-1} t log(1 + t))), 1/2)
    v_i       = 4 (x_i - mu_{i-1})**2,   psi(l) = (-log(1 - l) - l) / 4
    C_t       = sum(lambda_i x_i) / sum(lambda_i)
                +- (log(2/alpha) + sum(v_i psi(lambda_i))) / sum(lambda_i)

intersected with [0, 1]; one-sided sequences use ``log(1/alpha)`` instead of
``log(2/alpha)`` in both places and keep one side. Everything is a running
sum, so the whole path costs O(n) and a stream can be continued from a few
running sums (:class:`SequenceState`): :class:`Monitor` fed in any batch sizes
gives bit-identical bounds.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from pdpaired._lib.public import public
from pdpaired._lib.special import stdtrit
from pdpaired._lib.validation import check_choice, plain
from pdpaired.results.base import ConfidenceInterval
from pdpaired.results.missing import MissingSummary
from pdpaired.results.sequential import SequenceResult

__all__ = [
    "ALTERNATIVES",
    "METHOD",
    "TRUNCATION",
    "Monitor",
    "SequenceOptions",
    "SequencePath",
    "SequenceState",
    "check_differences",
    "extend",
    "sequence_iv",
    "sequence_result",
]

ALTERNATIVES = ("two-sided", "greater", "less")

#: The bet ``lambda_t`` is truncated at ``c = 1/2`` (Theorem 2 allows 1/2 or 3/4).
TRUNCATION = 0.5

METHOD = "predictable-mixture empirical Bernstein (Waudby-Smith & Ramdas 2024)"


@dataclass(frozen=True, slots=True)
class SequenceOptions:
    """Validated options of a confidence sequence."""

    alpha: float
    alternative: str
    bounds: tuple[float, float]

    @property
    def log_term(self) -> float:
        """``log(2/alpha)`` (two-sided) or ``log(1/alpha)`` (one-sided)."""
        sides = 2.0 if self.alternative == "two-sided" else 1.0
        return math.log(sides / self.alpha)


def check_alpha(value: Any) -> float:
    """Return ``value`` as a float in (0, 1)."""
    if isinstance(value, (bool, np.bool_)):
        msg = f"`alpha` must be a number in (0, 1); got {value!r}."
        raise TypeError(msg)
    try:
        alpha = float(value)
    except (TypeError, ValueError):
        msg = f"`alpha` must be a number in (0, 1); got {value!r}."
        raise TypeError(msg) from None
    if not 0.0 < alpha < 1.0:
        msg = f"`alpha` must be in (0, 1); got {value!r}."
        raise ValueError(msg)
    return alpha


def check_bounds(value: Any) -> tuple[float, float]:
    """Return ``value`` as two finite floats ``low < high``."""
    msg = f"`bounds` must be two finite numbers (low, high) with low < high; got {value!r}."
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise TypeError(msg)
    items = list(value)
    if len(items) != 2 or any(isinstance(v, (bool, np.bool_)) for v in items):
        raise TypeError(msg)
    try:
        low, high = (float(v) for v in items)
    except (TypeError, ValueError):
        raise TypeError(msg) from None
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        raise ValueError(msg)
    return low, high


def sequence_iv(*, alpha: Any, alternative: Any, bounds: Any) -> SequenceOptions:
    """Validate the options of a confidence sequence once, at the public boundary."""
    return SequenceOptions(
        alpha=check_alpha(alpha),
        alternative=check_choice(alternative, "alternative", ALTERNATIVES),
        bounds=check_bounds(bounds),
    )


def check_differences(
    d: Any,
    bounds: tuple[float, float],
    *,
    labels: np.ndarray | None = None,
    what: str = "difference",
) -> np.ndarray:
    """Return ``d`` as a 1-D float array, checked finite and within ``bounds``.

    ``labels`` name the observations in a message (case or group ids);
    without them, positions are shown.

    Raises
    ------
    ValueError
        If a value is not finite or lies outside ``bounds``: the count, the
        first ten offenders and their values.
    """
    try:
        x = np.asarray(d, dtype=np.float64)
    except (TypeError, ValueError):
        msg = f"The {what}s must be numbers; got {type(d).__name__} {d!r:.80}."
        raise TypeError(msg) from None
    if x.ndim == 0:  # one difference
        x = x.reshape(1)
    if x.ndim != 1:
        msg = f"The {what}s must be one-dimensional; got an array of shape {x.shape}."
        raise ValueError(msg)
    low, high = bounds
    with np.errstate(invalid="ignore"):
        bad = ~np.isfinite(x) | (x < low) | (x > high)
    if bad.any():
        where = np.flatnonzero(bad)
        names = where if labels is None else np.asarray(labels)[where]
        shown = ", ".join(
            f"{plain(n)!r}: {plain(v):g}" for n, v in zip(names[:10], x[where[:10]], strict=True)
        )
        more = " ..." if where.size > 10 else ""
        kind = "position" if labels is None else "id"
        rule = f"not finite or outside the declared bounds [{low:g}, {high:g}]"
        msg = (
            f"{where.size} {what}(s) are {rule} ({kind}: value) {shown}{more}. A confidence "
            "sequence for bounded scores needs bounds that hold for every possible case, "
            "fixed before looking at the data: for scores in [l, u] the differences lie in "
            "[l - u, u - l]."
        )
        raise ValueError(msg)
    return x


@dataclass(frozen=True, slots=True)
class SequenceState:
    """Running sums after ``n`` observations: all a sequence needs to go on.

    Five sums on the [0, 1] scale (``x = (d - low) / (high - low)``), two on
    the differences' own scale (shifted by the first difference, for the
    fixed-sample interval), and where the sequence first excluded 0.
    Small and picklable.
    """

    n: int = 0
    sum_x: float = 0.0  # sum x_i
    sum_sq: float = 0.0  # sum (x_i - mu_i)^2
    sum_lam: float = 0.0  # sum lambda_i
    sum_lam_x: float = 0.0  # sum lambda_i x_i
    sum_v_psi: float = 0.0  # sum v_i psi(lambda_i)
    shift: float = 0.0  # the first difference
    sum_d: float = 0.0  # sum (d_i - shift)
    sum_d2: float = 0.0  # sum (d_i - shift)^2
    stopped_at: int | None = None
    stop_sign: int = 0  # +1: the interval lay above 0 when it first excluded it; -1: below


@dataclass(frozen=True, slots=True)
class SequencePath:
    """The sequence at every observation of a batch (``n``, estimate, low, high)."""

    n: np.ndarray
    estimate: np.ndarray
    low: np.ndarray
    high: np.ndarray


def _carry(start: float, values: np.ndarray) -> np.ndarray:
    """Return the running sums of ``values`` continued from ``start``, left to right.

    ``np.cumsum`` accumulates sequentially, so continuing from a carried sum
    gives the same floats as one cumulative sum over the whole stream:
    batching never changes a bound.
    """
    return np.cumsum(np.concatenate(([start], values)))[1:]


def extend(
    state: SequenceState, d: np.ndarray, opts: SequenceOptions
) -> tuple[SequencePath, SequenceState]:
    """Continue the sequence in ``state`` with the checked differences ``d``.

    Returns the sequence after each new observation and the new state, in
    O(len(d)).
    """
    low_b, high_b = opts.bounds
    width = high_b - low_b
    m = d.size
    n0 = state.n
    t = n0 + np.arange(1, m + 1, dtype=np.float64)
    x = (d - low_b) / width
    sum_x = _carry(state.sum_x, x)
    mu = (0.5 + sum_x) / (t + 1.0)  # mu_t (regularized running mean)
    mu_prev = np.concatenate((((0.5 + state.sum_x) / (n0 + 1.0),), mu[:-1]))
    sum_sq = _carry(state.sum_sq, (x - mu) ** 2)
    sigma2_prev = np.concatenate(
        (((0.25 + state.sum_sq) / (n0 + 1.0),), ((0.25 + sum_sq) / (t + 1.0))[:-1])
    )
    log_term = opts.log_term
    lam = np.minimum(np.sqrt(2.0 * log_term / (sigma2_prev * t * np.log1p(t))), TRUNCATION)
    v = 4.0 * (x - mu_prev) ** 2
    psi = (-np.log1p(-lam) - lam) / 4.0
    sum_lam = _carry(state.sum_lam, lam)
    sum_lam_x = _carry(state.sum_lam_x, lam * x)
    sum_v_psi = _carry(state.sum_v_psi, v * psi)
    center = sum_lam_x / sum_lam
    margin = (log_term + sum_v_psi) / sum_lam
    if opts.alternative == "less":
        low = np.full(m, low_b)
    else:
        low = np.maximum(low_b + width * (center - margin), low_b)
    if opts.alternative == "greater":
        high = np.full(m, high_b)
    else:
        high = np.minimum(low_b + width * (center + margin), high_b)

    shift = state.shift if n0 else (float(d[0]) if m else 0.0)
    sum_d = _carry(state.sum_d, d - shift)
    sum_d2 = _carry(state.sum_d2, (d - shift) ** 2)
    estimate = shift + sum_d / t

    stopped_at, stop_sign = state.stopped_at, state.stop_sign
    if stopped_at is None:
        hit = np.flatnonzero((low > 0.0) | (high < 0.0))
        if hit.size:
            stopped_at = n0 + int(hit[0]) + 1
            stop_sign = 1 if low[hit[0]] > 0.0 else -1
    if m:
        state = SequenceState(
            n=n0 + m, sum_x=float(sum_x[-1]), sum_sq=float(sum_sq[-1]),
            sum_lam=float(sum_lam[-1]), sum_lam_x=float(sum_lam_x[-1]),
            sum_v_psi=float(sum_v_psi[-1]), shift=shift, sum_d=float(sum_d[-1]),
            sum_d2=float(sum_d2[-1]), stopped_at=stopped_at, stop_sign=stop_sign,
        )  # fmt: skip
    path = SequencePath(n=np.arange(n0 + 1, n0 + m + 1), estimate=estimate, low=low, high=high)
    return path, state


def fixed_sample_interval(state: SequenceState, opts: SequenceOptions) -> ConfidenceInterval | None:
    """Student-t interval at level ``1 - alpha`` from the differences seen so far.

    What a fixed-sample analysis would report at this ``n``: valid only if
    ``n`` had been fixed in advance and nobody looked before. Intersected
    with the bounds; None below two observations.
    """
    n = state.n
    if n < 2:
        return None
    mean = state.shift + state.sum_d / n
    var = max(state.sum_d2 - state.sum_d**2 / n, 0.0) / (n - 1)
    se = math.sqrt(var / n)
    low_b, high_b = opts.bounds
    if opts.alternative == "two-sided":
        q = float(stdtrit(n - 1, 1.0 - opts.alpha / 2.0))
        low, high = mean - q * se, mean + q * se
    else:
        q = float(stdtrit(n - 1, 1.0 - opts.alpha))
        low = mean - q * se if opts.alternative == "greater" else low_b
        high = mean + q * se if opts.alternative == "less" else high_b
    return ConfidenceInterval(low=max(low, low_b), high=min(high, high_b))


def verdict_of(state: SequenceState, opts: SequenceOptions) -> str:
    """``"a_better"``/``"b_better"`` once the sequence has excluded 0; else undecided."""
    if state.n == 0:
        return "undetermined"
    if state.stopped_at is None:
        return "inconclusive"
    return "a_better" if state.stop_sign > 0 else "b_better"


def sequence_result(
    looks: SequencePath,
    state: SequenceState,
    opts: SequenceOptions,
    *,
    a: str | None = None,
    b: str | None = None,
    higher_is_better: bool | None = None,
    metric_a: float | None = None,
    metric_b: float | None = None,
    unit: str = "observation",
    order: str | None = None,
    n_cases: int | None = None,
    n_groups: int | None = None,
    n_strata: int | None = None,
    missing: MissingSummary | None = None,
) -> SequenceResult:
    """Assemble a :class:`~pdpaired.SequenceResult` from the looks and the final state."""
    if looks.n.size:
        ci = ConfidenceInterval(low=float(looks.low[-1]), high=float(looks.high[-1]))
        estimate: float | None = float(looks.estimate[-1])
    else:
        ci = ConfidenceInterval(low=opts.bounds[0], high=opts.bounds[1])
        estimate = None
    return SequenceResult(
        a=a, b=b, metric=None if a is None else "mean", higher_is_better=higher_is_better,
        metric_a=metric_a, metric_b=metric_b, estimate=estimate, confidence_interval=ci,
        alpha=opts.alpha, alternative=opts.alternative, bounds=opts.bounds, method=METHOD,
        n=state.n, unit=unit, order=order, n_cases=n_cases, n_groups=n_groups,
        n_strata=n_strata, stopped_at=state.stopped_at, verdict=verdict_of(state, opts),
        fixed_interval=fixed_sample_interval(state, opts), missing=missing,
        look_n=looks.n, look_estimate=looks.estimate, look_low=looks.low, look_high=looks.high,
    )  # fmt: skip


@public
class Monitor:
    """Watch a stream of paired differences with an anytime-valid confidence sequence.

    Feed the differences as they arrive (one at a time or in batches of any
    size); after every :meth:`update` the returned
    :class:`~pdpaired.SequenceResult` may be looked at, and the evaluation
    stopped or continued because of it, without losing the guarantee: with
    probability at least ``1 - alpha`` the sequence covers the true mean
    difference at every ``n`` at once.

    The method is the predictable-mixture empirical-Bernstein confidence
    sequence of Waudby-Smith & Ramdas (2024, Theorem 2); it needs only that
    every difference lies in ``bounds``, known before the data are seen.

    Parameters
    ----------
    bounds : (float, float), default (-1, 1)
        The range every difference can take: ``(-1, 1)`` for differences of
        0/1 (or [0, 1]) scores, ``(l - u, u - l)`` for scores in [l, u].
    alpha : float, default 0.05
        Miscoverage: the sequence covers the mean at every ``n`` with
        probability at least ``1 - alpha``.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: a lower bound only (is the mean above 0, A better?);
        ``"less"``: an upper bound only.

    Notes
    -----
    Feed the differences in the improvement direction (positive means A is
    better): ``score_a - score_b`` when higher is better. The monitor keeps
    a few running sums and one row per update (``n``, estimate, low, high);
    it pickles, so a monitor can be saved between batches of a long run.
    Any split of the same stream into batches gives bit-identical bounds:
    the sequence is defined at every observation, and an update computes it
    for each observation of its batch. ``stopped_at`` is the first
    observation at which the interval excluded 0, even if that fell inside a
    batch.

    Examples
    --------
    >>> import numpy as np
    >>> import pdpaired
    >>> rng = np.random.default_rng(0)
    >>> mon = pdpaired.Monitor(bounds=(-1, 1), alpha=0.05)
    >>> for batch in range(8):
    ...     d = rng.binomial(1, 0.6, 250) - rng.binomial(1, 0.45, 250)  # A right 60%, B 45%
    ...     res = mon.update(d)
    >>> res.n, res.verdict, res.stopped_at is not None
    (2000, 'a_better', True)
    >>> res.to_frame().shape  # one row per update
    (8, 4)
    """

    def __init__(
        self,
        bounds: tuple[float, float] = (-1.0, 1.0),
        alpha: float = 0.05,
        *,
        alternative: str = "two-sided",
    ) -> None:
        self._opts = sequence_iv(alpha=alpha, alternative=alternative, bounds=bounds)
        self._state = SequenceState()
        self._looks: list[tuple[int, float, float, float]] = []

    @property
    def bounds(self) -> tuple[float, float]:
        """The declared range of every difference."""
        return self._opts.bounds

    @property
    def alpha(self) -> float:
        """Miscoverage of the sequence."""
        return self._opts.alpha

    @property
    def alternative(self) -> str:
        """``"two-sided"``, ``"greater"`` or ``"less"``."""
        return self._opts.alternative

    @property
    def n(self) -> int:
        """Differences seen so far."""
        return self._state.n

    @property
    def state(self) -> SequenceState:
        """The running sums (what a pickled monitor carries besides its looks)."""
        return self._state

    def __repr__(self) -> str:
        lo, hi = self._opts.bounds
        return (
            f"Monitor(bounds=({lo:g}, {hi:g}), alpha={self._opts.alpha:g}, "
            f"alternative={self._opts.alternative!r}, n={self._state.n})"
        )

    def update(self, differences: Any) -> SequenceResult:
        """Add a batch of differences (any size, possibly one) and return the sequence.

        Parameters
        ----------
        differences : array_like of float
            The new differences, in arrival order, each within ``bounds``.

        Returns
        -------
        SequenceResult
            The sequence so far, one row per update that added data.

        Raises
        ------
        ValueError
            If a difference is not finite or lies outside ``bounds`` (then
            nothing is added).
        """
        offset = self._state.n
        try:
            d = check_differences(differences, self._opts.bounds)
        except ValueError as err:
            msg = str(err).replace("(position:", f"(position in this batch, after {offset} seen:")
            raise ValueError(msg) from None
        path, self._state = extend(self._state, d, self._opts)
        if d.size:
            self._looks.append(
                (int(path.n[-1]), float(path.estimate[-1]), float(path.low[-1]),
                 float(path.high[-1]))
            )  # fmt: skip
        return self.result()

    def result(self) -> SequenceResult:
        """Return the sequence so far (what the last :meth:`update` returned)."""
        if self._looks:
            n, est, low, high = (np.array(c) for c in zip(*self._looks, strict=True))
        else:
            n, est, low, high = (np.array([], dtype=dt) for dt in (np.int64, float, float, float))
        looks = SequencePath(n=n, estimate=est, low=low, high=high)
        return sequence_result(looks, self._state, self._opts)
