"""Power and sample size of a paired comparison, from the observed design.

Array-level planning for :meth:`pdpaired.Comparison.plan`. Everything is read
from a resampling :class:`~pdpaired.core.engine.Design` (the units of the analysis
with their summed differences, counts, strata and stratum weights) or, for
0/1 scores tested with the exact binomial (McNemar-type) test, from the
discordant-pair counts.

Two ways to compute power, for the same tests:

* **analytic**. The estimator of the improvement is a stratified ratio mean
  of unit sums; its standard error at the observed size is the linearization
  (sandwich) standard error over the units, ``Var = sum_h w_h**2 *
  G_h / (G_h - 1) * sum_g e_g**2 / C_h**2`` with residuals ``e_g = S_g -
  R_h * C_g``: for independent cases the paired t-test's ``s / sqrt(n)``, for
  clusters the cluster-robust one. Planning keeps the design (the stratum
  shares and the distribution of cluster sizes) and scales the number of
  units, so the standard error at ``n`` units is ``se * sqrt(n_now / n)``.
  The test statistic is referred to Student's t with ``units - strata``
  degrees of freedom and power is the noncentral t probability of rejecting
  (exactly the paired t-test's power for independent normal differences; for
  large samples the normal approximation ``Phi(delta / se - z)``). The
  design effect is the ratio of this variance to the variance of the same
  mean over independent cases, ``design_effect = 1 + (m - 1) * icc`` with
  ``m`` the size-weighted mean cluster size ``sum m_g**2 / sum m_g``.
* **exact McNemar power** for 0/1 scores: given ``n`` cases with discordance
  rate ``p_d`` and share ``pi`` of discordant pairs won by A, the number of
  discordant pairs ``D`` is Binomial(n, p_d) and, given ``D``, A's count is
  Binomial(D, pi); power sums, over every ``D``, the probability of the
  exact binomial test's rejection region.
* **simulation**: resample the observed units within strata (as many as the
  planned size), centre them on no effect, shift them to the effect and run
  the test on each simulated comparison; for 0/1 scores draw the discordant
  counts and run the exact binomial test itself.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from pdpaired._lib.rng import PLAN_CHUNK, stream_sequence
from pdpaired.core.engine import Design

__all__ = [
    "DesignSummary",
    "McNemarDesign",
    "UnitSimulation",
    "analytic_power",
    "mcnemar_power",
    "mcnemar_rejection",
    "mcnemar_simulated_power",
    "randomization_power",
    "smallest_size",
    "solve_effect",
    "summarize_design",
    "threshold_power",
]

#: Draws held in memory at once by the unit simulation.
_BLOCK = 1 << 22


# --------------------------------------------------------------------------- the design
@dataclass(frozen=True, slots=True)
class DesignSummary:
    """What the analytic power needs from a design.

    Attributes
    ----------
    se : float
        Standard error of the improvement at the observed size (sandwich, over units).
    n_units : int
        Resampling units (cases, or groups).
    n_strata : int
    n_cases : int
    sd_diff : float
        Standard deviation of the per-case differences (within strata, pooled).
    design_effect : float
        ``se**2`` over the variance of the same estimator on independent cases.
    icc : float or None
        Intraclass correlation implied by the design effect (None without clusters).
    cases_per_unit : float
        Mean cases per unit (1 for cases).
    """

    se: float
    n_units: int
    n_strata: int
    n_cases: int
    sd_diff: float
    design_effect: float
    icc: float | None
    cases_per_unit: float

    @property
    def df(self) -> int:
        """Degrees of freedom at the observed size: units minus strata."""
        return max(self.n_units - self.n_strata, 1)

    def se_at(self, n_units: float) -> float:
        """Return the standard error with ``n_units`` units of the same design."""
        return self.se * math.sqrt(self.n_units / n_units)

    def df_at(self, n_units: float) -> float:
        """Degrees of freedom with ``n_units`` units."""
        return max(float(n_units) - self.n_strata, 1.0)


def _stratum_variance(design: Design) -> tuple[np.ndarray, np.ndarray]:
    """Per stratum: the sandwich variance of the ratio mean and the total count."""
    d = design.expanded()
    value = d.value
    count = np.ones(value.size) if d.count is None else d.count.astype(np.float64)
    var = np.zeros(d.unit_ptr.size - 1)
    total = np.zeros(d.unit_ptr.size - 1)
    for h, (lo, hi) in enumerate(zip(d.unit_ptr[:-1], d.unit_ptr[1:], strict=True)):
        v, c = value[lo:hi], count[lo:hi]
        g = hi - lo
        total[h] = c.sum()
        if g < 2:
            continue
        ratio = v.sum() / c.sum()
        e = v - ratio * c
        var[h] = g / (g - 1) * float(np.sum(e * e)) / total[h] ** 2
    return var, total


def summarize_design(design: Design, case_design: Design | None) -> DesignSummary:
    """Summarize a design for planning.

    Parameters
    ----------
    design : Design
        The analysis' design (cases or groups, strata, weights).
    case_design : Design or None
        The same analysis with every case its own unit (for the design
        effect); None when ``design`` is already over cases.
    """
    var_h, _ = _stratum_variance(design)
    w = design.weight
    variance = float(np.sum(w * w * var_h))
    cases = design if case_design is None else case_design
    iid_h, n_h = _stratum_variance(cases)
    iid = float(np.sum(w * w * iid_h))
    # pooled within-stratum sd of the case differences
    c = cases.expanded()
    resid = 0.0
    for lo, hi in zip(c.unit_ptr[:-1], c.unit_ptr[1:], strict=True):
        v = c.value[lo:hi]
        resid += float(np.sum((v - v.mean()) ** 2))
    n_cases = int(n_h.sum())
    n_strata = int(c.unit_ptr.size - 1)
    sd = math.sqrt(resid / max(n_cases - n_strata, 1))
    n_units = design.n_units
    deff = variance / iid if iid > 0 else 1.0
    icc = None
    if case_design is not None:
        d = design.expanded()
        m = np.ones(d.value.size) if d.count is None else d.count.astype(np.float64)
        m_w = float(np.sum(m * m) / np.sum(m))
        icc = (deff - 1.0) / (m_w - 1.0) if m_w > 1.0 else None
    return DesignSummary(
        se=math.sqrt(variance), n_units=n_units, n_strata=n_strata, n_cases=n_cases,
        sd_diff=sd, design_effect=deff, icc=icc, cases_per_unit=n_cases / n_units,
    )  # fmt: skip


# --------------------------------------------------------------------------- analytic
def analytic_power(
    delta: np.ndarray | float, se: float, df: float, alpha: float, alternative: str
) -> np.ndarray:
    """Power of the t-test of the improvement: noncentral t with ``df`` degrees of freedom.

    ``delta`` is the true improvement (positive: A better), ``se`` the
    standard error of its estimate; ``"greater"`` rejects for large
    estimates, ``"less"`` for small ones, ``"two-sided"`` for both.
    ``df = inf`` gives the normal approximation.
    """
    from scipy.stats import nct, norm, t

    delta = np.asarray(delta, dtype=np.float64)
    # no spread (se 0): any nonzero effect is certain
    certain = np.where(delta > 0, np.inf, np.where(delta < 0, -np.inf, 0.0))
    nc = delta / se if se > 0 else certain
    normal = not math.isfinite(df) or df > 1e7 or se <= 0  # se 0: power 1 at any effect
    if alternative == "two-sided":
        crit = norm.isf(alpha / 2) if normal else t.isf(alpha / 2, df)
        if normal:
            return np.asarray(norm.sf(crit - nc) + norm.cdf(-crit - nc))
        # P(T <= -c) as P(T' >= c) with T' ~ nct(df, -nc): scipy's cdf far in the
        # lower tail of a large noncentrality returns NaN, its sf does not
        return np.asarray(nct.sf(crit, df, nc) + nct.sf(crit, df, -nc))
    crit = norm.isf(alpha) if normal else t.isf(alpha, df)
    if alternative == "less":
        nc = -nc
    return np.asarray(norm.sf(crit - nc) if normal else nct.sf(crit, df, nc))


def threshold_power(
    delta: np.ndarray | float, se: float, df: float, alpha: float, alternative: str,
    threshold: float,
) -> np.ndarray:  # fmt: skip
    """Power of the interval's decision with a practical threshold ``t >= 0``.

    The bootstrap interval at level ``1 - alpha`` (two-sided; one-sided
    bound for ``"greater"``/``"less"``) decides "A better" when its lower end
    exceeds ``t`` and "B better" when its upper end is below ``-t``: with the
    estimate ``delta + se * T`` these are ``(est - t) / se >= c`` and
    ``(est + t) / se <= -c``, so the power is the noncentral t probability
    of each, with noncentrality ``(delta - t) / se`` and ``(delta + t) / se``.
    ``t = 0`` is :func:`analytic_power`.
    """
    if threshold == 0.0:
        return analytic_power(delta, se, df, alpha, alternative)
    delta = np.asarray(delta, dtype=np.float64)
    if alternative == "two-sided":
        return np.asarray(
            analytic_power(delta - threshold, se, df, alpha / 2, "greater")
            + analytic_power(delta + threshold, se, df, alpha / 2, "less")
        )
    if alternative == "greater":
        return analytic_power(delta - threshold, se, df, alpha, "greater")
    return analytic_power(delta + threshold, se, df, alpha, "less")


def randomization_power(
    delta: np.ndarray | float, se: float, df: float, n_units: float, alpha: float,
    alternative: str,
) -> np.ndarray:  # fmt: skip
    """Large-sample power of the paired randomization (sign-flip) test over ``n_units`` units.

    Given the data, the flips' null distribution of the estimate is centred
    on 0 with variance ``sum_h w_h**2 / C_h**2 * sum_g v_g**2`` over the
    *uncentred* unit sums ``v_g``; the test rejects when the estimate lies
    beyond ``z`` of its standard deviations (Hoeffding's normal
    approximation of the randomization distribution). The uncentred sum
    holds the estimate itself: with ``G`` units of equal size, ``sum v_g**2
    = sum e_g**2 + G * m**2 * R**2`` (``e_g`` centred, ``R`` the estimate),
    so the rejection ``R**2 * G**2 * m**2 >= z**2 * sum v_g**2`` is exactly
    ``|R| / se >= c`` with ``c = z * sqrt((G - 1) / (G - z**2))``: the t
    test of the estimate with a slightly larger critical value (none below
    ``z**2`` units). Its power is the noncentral t probability beyond
    ``c``; for unequal group sizes and strata this is an approximation,
    which ``method="simulation"`` (the flips' variance of every simulated
    comparison) does not need.
    """
    from scipy.stats import norm

    z = float(norm.isf(alpha / 2 if alternative == "two-sided" else alpha))
    if n_units <= z * z:  # too few units: no assignment is extreme enough
        return np.zeros(np.shape(delta))
    c = z * math.sqrt((n_units - 1.0) / (n_units - z * z))
    # the t test's power at critical value c: analytic_power at the level that gives c
    from scipy.stats import t

    tail = float(t.sf(c, df)) if math.isfinite(df) and df <= 1e7 else float(norm.sf(c))
    level = 2 * tail if alternative == "two-sided" else tail
    return analytic_power(delta, se, df, level, alternative)


def solve_effect(power_fn: Callable[[float], float], power: float, hi: float) -> float:
    """Smallest positive effect whose power reaches ``power`` (bisection; power rises with it)."""
    lo = 0.0
    n_double = 0
    while power_fn(hi) < power:
        lo, hi = hi, 2.0 * hi
        n_double += 1
        if n_double > 60:
            return math.inf
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if power_fn(mid) >= power:
            hi = mid
        else:
            lo = mid
        if hi - lo <= 1e-10 * max(hi, 1e-300):
            break
    return hi


def smallest_size(
    power_fn: Callable[[int], float], power: float, start: int, rel_tol: float = 0.0
) -> int | None:
    """Smallest size ``n >= 2`` whose power reaches ``power`` (power rising in ``n``).

    ``rel_tol > 0`` stops the bisection once the bracket is narrower than
    ``rel_tol * n`` (a simulated power is only known to Monte Carlo error, so
    a finer answer would be noise) and returns its upper end.
    """
    hi = max(int(start), 2)
    while power_fn(hi) < power:
        hi *= 2
        if hi > 2**40:
            return None
    lo = max(hi // 2, 1)
    if lo >= 2 and power_fn(lo) >= power:  # start was past the answer: search below
        lo = 1
    while hi - lo > max(1, int(rel_tol * hi)):
        mid = (lo + hi) // 2
        if power_fn(mid) >= power:
            hi = mid
        else:
            lo = mid
    return hi


# --------------------------------------------------------------------------- McNemar
@dataclass(frozen=True, slots=True)
class McNemarDesign:
    """0/1 outcomes: the share of cases where the two models disagree."""

    n_cases: int
    discordant_rate: float  # (a_only + b_only) / n


def _shares(p_d: float, delta: float) -> tuple[float, float]:
    """Discordance rate and A's share of discordant pairs for improvement ``delta``.

    The observed discordance rate is kept; an improvement larger than it
    needs at least ``|delta|`` discordant cases, so the rate is raised to that.
    """
    p = max(p_d, abs(delta))
    if p <= 0.0:
        return 0.0, 0.5
    return min(p, 1.0), 0.5 + 0.5 * delta / p


def mcnemar_rejection(n_d: np.ndarray, alpha: float, alternative: str) -> np.ndarray:
    """Smallest count ``u`` of A-only pairs whose one-sided exact p-value is ``<= level``.

    ``level`` is ``alpha / 2`` for ``"two-sided"`` (the doubled smaller tail)
    and ``alpha`` otherwise. ``u = n_d + 1`` when no count rejects.
    """
    from scipy.stats import binom

    level = alpha / 2 if alternative == "two-sided" else alpha
    n_d = np.asarray(n_d, dtype=np.int64)
    guess = np.asarray(binom.isf(level, n_d, 0.5), dtype=np.float64)
    u: np.ndarray = np.where(np.isnan(guess), n_d, guess).astype(np.int64) + 1
    # correct floating-point edge cases: P(X >= u) <= level < P(X >= u - 1)
    for _ in range(3):
        too_low = binom.sf(u - 1, n_d, 0.5) > level
        u = np.where(too_low, u + 1, u)
        lower_ok = (u - 1 >= 0) & (binom.sf(u - 2, n_d, 0.5) <= level)
        u = np.where(lower_ok, u - 1, u)
    out: np.ndarray = np.minimum(u, n_d + 1)
    return out


_TABLES: dict[tuple[float, str], np.ndarray] = {}


def _rejection_table(n: int, alpha: float, alternative: str) -> np.ndarray:
    """:func:`mcnemar_rejection` for ``n_d = 0 .. n`` (kept, grown as needed)."""
    key = (alpha, alternative)
    have = _TABLES.get(key)
    if have is None or have.size <= n:
        size = max(n + 1, 2 * (0 if have is None else have.size), 1024)
        have = mcnemar_rejection(np.arange(size), alpha, alternative)
        if len(_TABLES) > 16:
            _TABLES.clear()
        _TABLES[key] = have
    return have[: n + 1]


def mcnemar_power(n: int, p_d: float, delta: float, alpha: float, alternative: str) -> float:
    """Exact power of the exact binomial test on ``n`` cases (enumeration over ``D``)."""
    from scipy.stats import binom

    p, share = _shares(p_d, delta)
    if p == 0.0:
        return 0.0
    # the discordant counts with any weight: a window of about 40 sd around the mean
    sd = math.sqrt(n * p * (1 - p))
    lo = max(0, int(n * p - 40 * sd - 10))
    hi = min(n, int(n * p + 40 * sd + 10))
    n_d = np.arange(lo, hi + 1)
    weight = binom.pmf(n_d, n, p)
    u = _rejection_table(n, alpha, alternative)[lo : hi + 1]
    upper = binom.sf(u - 1, n_d, share)  # P(K >= u)
    lower = binom.cdf(n_d - u, n_d, share)  # P(K <= D - u)
    if alternative == "greater":
        reject = upper
    elif alternative == "less":
        reject = lower
    else:
        reject = upper + lower
    return float(np.clip(np.sum(weight * reject), 0.0, 1.0))


def mcnemar_simulated_power(
    n: int,
    p_d: float,
    delta: np.ndarray,
    alpha: float,
    alternative: str,
    *,
    n_simulations: int,
    root: np.random.SeedSequence,
) -> np.ndarray:
    """Simulate the power of the exact binomial test: draw the counts, run the test.

    One stream (``plan_mcnemar``) draws uniform numbers shared by every
    effect (common random numbers), so the curve is smooth in ``delta``.
    """
    from scipy.stats import binom

    rng = np.random.Generator(np.random.PCG64(stream_sequence(root, "plan_mcnemar")))
    u1 = rng.random(n_simulations)
    u2 = rng.random(n_simulations)
    out = np.empty(np.size(delta))
    for i, dl in enumerate(np.atleast_1d(delta)):
        p, share = _shares(p_d, float(dl))
        n_d = binom.ppf(u1, n, p).astype(np.int64)
        k = np.where(n_d > 0, binom.ppf(u2, np.maximum(n_d, 1), share), 0).astype(np.int64)
        upper = np.where(n_d > 0, binom.sf(k - 1, n_d, 0.5), 1.0)
        lower = np.where(n_d > 0, binom.cdf(k, n_d, 0.5), 1.0)
        if alternative == "greater":
            pval = upper
        elif alternative == "less":
            pval = lower
        else:
            pval = np.minimum(1.0, 2.0 * np.minimum(upper, lower))
        out[i] = float(np.mean(pval <= alpha))
    return out


# --------------------------------------------------------------------------- simulation
class UnitSimulation:
    """Resample the observed units, centred on no effect; test each simulated comparison.

    For a planned size the units of stratum ``h`` are drawn ``G_h * n / n_now``
    times (rounded, at least 2) with replacement from the observed ones, their
    differences centred on the stratum's mean (no effect), and each simulated
    comparison gives its estimate and its sandwich standard error. Shifting
    every case by ``delta`` shifts the estimate by ``delta`` and leaves the
    standard error unchanged, so one simulation per size serves every effect:
    the power at ``delta`` is the share of simulated ``(delta + est) / se``
    beyond the t test's critical value.
    """

    def __init__(self, design: Design, root: np.random.SeedSequence, n_simulations: int) -> None:
        d = design.expanded()
        count = np.ones(d.value.size) if d.count is None else d.count.astype(np.float64)
        self._count = count
        self._ptr = d.unit_ptr
        self._weight = d.weight
        self._sign = d.sign
        centred = np.empty_like(d.value)
        for lo, hi in zip(d.unit_ptr[:-1], d.unit_ptr[1:], strict=True):
            ratio = d.value[lo:hi].sum() / count[lo:hi].sum()
            centred[lo:hi] = d.value[lo:hi] - ratio * count[lo:hi]
        self._value = centred
        self._root = root
        self._n_sim = n_simulations
        self._cache: dict[int, tuple[np.ndarray, ...]] = {}

    @property
    def n_units(self) -> int:
        """Observed units."""
        return int(self._ptr[-1])

    def sizes_at(self, n_units: int) -> np.ndarray:
        """Units drawn per stratum for a planned total of ``n_units``."""
        g = np.diff(self._ptr).astype(np.float64)
        out: np.ndarray = np.maximum(np.rint(g * n_units / g.sum()), 2).astype(np.int64)
        return out

    def draws(self, n_units: int) -> tuple[np.ndarray, np.ndarray]:
        """Estimates (at no effect) and standard errors of the simulated comparisons."""
        est, se, *_ = self._simulate(n_units)
        return est, se

    def flip_moments(self, n_units: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per simulated comparison: what the sign-flip null variance is made of.

        The randomization test flips whole units: its null distribution has
        variance ``sum_h w_h**2 / C_h**2 * sum_g v_g**2`` over the *uncentred*
        unit sums ``v_g = e_g + s * delta * C_g`` (``s`` the direction sign),
        i.e. ``q_ee + 2 * s * delta * q_ec + delta**2 * q_cc`` with the three
        weighted sums returned here.
        """
        _, _, q_ee, q_ec, q_cc = self._simulate(n_units)
        return q_ee, q_ec, q_cc

    def _simulate(self, n_units: int) -> tuple[np.ndarray, ...]:
        if n_units in self._cache:
            return self._cache[n_units]
        sizes = self.sizes_at(n_units)
        est = np.zeros(self._n_sim)
        var = np.zeros(self._n_sim)
        q_ee = np.zeros(self._n_sim)
        q_ec = np.zeros(self._n_sim)
        q_cc = np.zeros(self._n_sim)
        for h, (lo, hi) in enumerate(zip(self._ptr[:-1], self._ptr[1:], strict=True)):
            g_obs, g_new = int(hi - lo), int(sizes[h])
            v, c = self._value[lo:hi], self._count[lo:hi]
            step = PLAN_CHUNK * max(1, _BLOCK // (PLAN_CHUNK * g_new))
            for start in range(0, self._n_sim, step):
                stop = min(start + step, self._n_sim)
                idx = self._indices(h, start, stop, g_obs, g_new)
                vs, cs = v[idx], c[idx]
                s, cc = vs.sum(axis=1), cs.sum(axis=1)
                ratio = s / cc
                e = vs - ratio[:, None] * cs
                var_h = g_new / (g_new - 1) * np.sum(e * e, axis=1) / cc**2
                est[start:stop] += self._weight[h] * ratio
                var[start:stop] += self._weight[h] ** 2 * var_h
                f = self._weight[h] ** 2 / cc**2
                q_ee[start:stop] += f * np.sum(vs * vs, axis=1)
                q_ec[start:stop] += f * np.sum(vs * cs, axis=1)
                q_cc[start:stop] += f * np.sum(cs * cs, axis=1)
        out = (self._sign * est, np.sqrt(var), q_ee, q_ec, q_cc)
        self._cache[n_units] = out
        return out

    def _indices(self, h: int, start: int, stop: int, g_obs: int, g_new: int) -> np.ndarray:
        """Return the unit indices of simulations ``start:stop`` (whole chunks, own streams)."""
        rows = []
        for k in range(start // PLAN_CHUNK, -(-stop // PLAN_CHUNK)):
            ss = stream_sequence(self._root, "plan_simulation", h, k)
            rng = np.random.Generator(np.random.PCG64(ss))
            n_here = min(PLAN_CHUNK, self._n_sim - k * PLAN_CHUNK)
            rows.append(rng.integers(0, g_obs, size=(n_here, g_new)))
        return np.concatenate(rows)

    def power(
        self, delta: np.ndarray | float, n_units: int, n_strata: int, alpha: float,
        alternative: str, *, threshold: float = 0.0, test: str = "t",
    ) -> np.ndarray:  # fmt: skip
        """Share of simulated comparisons whose test rejects, for each effect.

        ``test="t"``: the interval ``est -/+ c * se`` (``c`` Student's
        critical value) lies above ``threshold`` (A better) or below
        ``-threshold`` (B better; two-sided only), the bootstrap interval's
        decision. ``test="randomization"``: ``|est|`` beyond ``z`` times the
        sign-flip null standard deviation of the same simulated comparison
        (:meth:`flip_moments`; the large-sample randomization test).
        """
        from scipy.stats import norm, t

        est, se = self.draws(n_units)
        delta = np.atleast_1d(np.asarray(delta, dtype=np.float64))
        shifted = delta[:, None] + est[None, :]
        if test == "randomization":
            q_ee, q_ec, q_cc = self.flip_moments(n_units)
            s = self._sign
            null_var = (q_ee[None, :] + 2 * s * delta[:, None] * q_ec[None, :]
                        + delta[:, None] ** 2 * q_cc[None, :])  # fmt: skip
            null_sd = np.sqrt(np.maximum(null_var, 0.0))
            z = norm.isf(alpha / 2 if alternative == "two-sided" else alpha)
            if alternative == "two-sided":
                reject = np.abs(shifted) >= z * null_sd
            elif alternative == "greater":
                reject = shifted >= z * null_sd
            else:
                reject = shifted <= -z * null_sd
            reject &= null_sd > 0
            return np.asarray(reject.mean(axis=1))
        df = max(int(self.sizes_at(n_units).sum()) - n_strata, 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            upper = np.nan_to_num((shifted - threshold) / se[None, :], nan=0.0)
            lower = np.nan_to_num((shifted + threshold) / se[None, :], nan=0.0)
        if alternative == "two-sided":
            c = t.isf(alpha / 2, df)
            reject = (upper >= c) | (lower <= -c)
        elif alternative == "greater":
            reject = upper >= t.isf(alpha, df)
        else:
            reject = lower <= -t.isf(alpha, df)
        return np.asarray(reject.mean(axis=1))
