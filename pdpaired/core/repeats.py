"""Repeated runs at the array level: variance components and the two-stage bootstrap.

Each case ``i`` carries ``R_ia`` runs of model A and ``R_ib`` of B (independent
samples of each model's output on the case). Its score is the mean over its
runs, ``m_ia`` and ``m_ib``, and its improvement ``d_i = m_ia - m_ib``
(direction applied by ``sign``). Under the one-way random-effects model

    y_aij = mu_a + c_ai + e_aij,   Var(e_aij) = s2_a   (and the same for B)

the variance of ``d_i`` is ``between + s2_a / R_ia + s2_b / R_ib``, where
``between`` is the variance over cases of the true per-case improvement.

:func:`variance_components` estimates the parts by the method of moments
(one-way ANOVA, unequal runs allowed): ``s2_a`` is the pooled within-case
mean square ``sum_i sum_j (y_aij - m_ia)**2 / sum_i (R_ia - 1)``, unbiased
whatever the numbers of runs; and since ``E[var(d)] = between + mean_i(s2_a /
R_ia + s2_b / R_ib)`` for independent cases (``var`` with ``ddof=1``),
``between = var(d) - mean_i(s2_a / R_ia + s2_b / R_ib)``, unbiased too (it can
be negative; ANOVA estimators are).

:class:`TwoStageResampler` is the two-stage bootstrap: stage one draws the
resampling units (cases, or whole groups, within strata) exactly as the
ordinary bootstrap's index engine does, from the same ``bootstrap_chunk``
streams; stage two redraws, for every drawn case and each model, as many
runs as the case has, with replacement, from its own runs, from the
``repeat_runs`` streams. Resampling both stages naively counts the run noise
twice: a case mean already varies by ``s2 / R`` between cases, and redrawing
its runs adds about ``s2 (R - 1) / R**2`` more. Following Davison & Hinkley
(1997, sec. 3.8), the resampled values are adjusted so that the bootstrap
reproduces both components: the runs are redrawn from residuals rescaled by
``sqrt(R / (R - 1))`` (their bootstrap variance is then the unbiased
within-case variance), and each case's improvement is shrunk towards its
stratum's estimate by ``lam = sqrt(1 - noise / spread)``, where ``spread``
is the observed variance of the units' improvements and ``noise`` its part
from the runs (estimated from each case's own runs), so that stage one
carries only the between-case part ``spread - noise``. When that estimate is
negative (``noise > spread``, as in about half of all data sets when the
cases do not differ beyond their run noise), stage one carries nothing
(``lam = 0``) and the residuals are scaled by a further ``sqrt(spread /
noise)``, so that stage two carries ``spread`` rather than ``noise``.
Truncating the between-case part at zero and keeping all the run noise
would make the bootstrap variance too large on average (by 6-12% with no
between-case variance, 30 to 100 cases and two or three runs per model).
For cases resampled one by one the bootstrap variance of the mean
improvement is then ``((n - 1) / n * (spread - noise) + noise) / n`` when
``noise <= spread`` and ``spread / n`` otherwise: the analytic variance
``var(d) / n`` of the mean of run means, but for the one-stage bootstrap's
usual ``(n - 1) / n`` on the between-case part. A case with a single run of
a model carries no residual: its run noise stays in stage one, unshrunk.

Everything is vectorized across the replicates of a chunk of ``CHUNK``; a
chunk reads its own streams, so results do not depend on ``batch``, threads
or row order (each case's runs are sorted by value).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from pdpaired._lib.rng import CHUNK, stream_sequence
from pdpaired.core.accel import for_each_chunk
from pdpaired.core.bootstrap import DesignResampler
from pdpaired.core.engine import rao_wu

__all__ = ["RunComponents", "TwoStageResampler", "case_runs", "variance_components"]

#: Index draws of stage one per call (as :mod:`pdpaired.core.engine`'s NumPy path).
_BLOCK_WORDS = 1 << 18
#: Run draws of stage two generated at once (bounds memory; never changes results).
_RUN_BLOCK = 1 << 21


@dataclass(frozen=True, slots=True, eq=False)
class RunComponents:
    """Method-of-moments variance components of the improvement (see the module docstring)."""

    d: np.ndarray  # per case: direction-adjusted improvement of the run means
    between: float
    within_a: float
    within_b: float
    var_d: float
    runs_a: float  # harmonic means of the runs per case
    runs_b: float
    noise: np.ndarray = field(repr=False)  # per case: s2_ia / R_ia + s2_ib / R_ib (own runs)


def case_runs(ptr: np.ndarray, runs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per case: the number of runs, their mean and their sum of squared deviations."""
    r = np.diff(ptr)
    case = np.repeat(np.arange(r.size), r)
    mean = np.bincount(case, weights=runs, minlength=r.size) / r
    dev = runs - mean[case]
    ss = np.bincount(case, weights=dev * dev, minlength=r.size)
    return r, mean, ss


def _pooled(r: np.ndarray, ss: np.ndarray) -> float:
    df = int(np.sum(r - 1))
    return float(np.sum(ss) / df) if df > 0 else math.nan


def variance_components(
    ptr_a: np.ndarray, runs_a: np.ndarray, ptr_b: np.ndarray, runs_b: np.ndarray, sign: float
) -> RunComponents:
    """Split the variance of the per-case improvement into between-case and run parts.

    Parameters
    ----------
    ptr_a, runs_a, ptr_b, runs_b : ndarray
        Each model's runs: case ``i``'s are ``runs[ptr[i]:ptr[i + 1]]``
        (every case has at least one).
    sign : float
        +1 when higher is better, -1 otherwise.

    Returns
    -------
    RunComponents
    """
    r_a, m_a, ss_a = case_runs(ptr_a, runs_a)
    r_b, m_b, ss_b = case_runs(ptr_b, runs_b)
    d = sign * (m_a - m_b)
    n = d.size
    var_d = float(np.var(d, ddof=1)) if n > 1 else math.nan
    within_a, within_b = _pooled(r_a, ss_a), _pooled(r_b, ss_b)
    expected_noise = float(np.mean(within_a / r_a + within_b / r_b))
    # each case's own run noise (unbiased s2 / R; 0 for a single run, whose noise
    # cannot be told apart from the case's own effect)
    with np.errstate(invalid="ignore", divide="ignore"):
        own_a = np.where(r_a > 1, ss_a / np.maximum(r_a - 1, 1) / r_a, 0.0)
        own_b = np.where(r_b > 1, ss_b / np.maximum(r_b - 1, 1) / r_b, 0.0)
    return RunComponents(
        d=d,
        between=var_d - expected_noise,
        within_a=within_a,
        within_b=within_b,
        var_d=var_d,
        runs_a=float(r_a.size / np.sum(1.0 / r_a)),
        runs_b=float(r_b.size / np.sum(1.0 / r_b)),
        noise=own_a + own_b,
    )


@dataclass(eq=False)
class TwoStageResampler:
    """The two-stage bootstrap of a mean of run means, as a ``Resampler``.

    Parameters
    ----------
    base : DesignResampler
        The one-stage bootstrap of the same design (units, strata, weights,
        direction, small-sample correction): stage one draws its units the
        way its index engine does, and the point estimate, BCa's jackknife
        (over the units) and the warnings are its own.
    unit_of_case : ndarray of int64
        The design's unit (row of ``base.design``) of each case.
    case_factor : ndarray of float64
        Each case's weight inside its unit: 1 (mean over cases) or
        ``1 / n_u`` (``weighting="group"``: the mean of the unit's cases).
    ptr_a, runs_a, ptr_b, runs_b : ndarray
        Each model's runs per case (sorted within a case).

    Attributes
    ----------
    shrink : float
        ``lam``, the factor of each case's deviation from its stratum's
        estimate (see the module docstring).
    run_scale : float
        The factor of the rescaled residuals: 1, or ``sqrt(spread / noise)``
        when the run noise exceeds the spread of the units.
    """

    base: DesignResampler
    unit_of_case: np.ndarray
    case_factor: np.ndarray
    ptr_a: np.ndarray
    runs_a: np.ndarray
    ptr_b: np.ndarray
    runs_b: np.ndarray
    shrink: float = field(init=False)
    run_scale: float = field(init=False)

    def __post_init__(self) -> None:
        design = self.base.design
        self.n_strata = len(design.weight)
        self.unit_stratum = np.repeat(np.arange(self.n_strata), design.sizes)
        self.case_stratum = self.unit_stratum[self.unit_of_case]
        r_a, m_a, ss_a = case_runs(self.ptr_a, self.runs_a)
        r_b, m_b, ss_b = case_runs(self.ptr_b, self.runs_b)
        raw = m_a - m_b  # A - B; the design's sign is applied at the end
        # each stratum's estimate, computed like a replicate (mean over cases or units)
        f = self.case_factor
        if (design.count is None and np.all(f == 1.0)) or np.all(f == 1.0):  # units are cases
            denom = np.bincount(self.case_stratum, minlength=self.n_strata).astype(np.float64)
        else:  # mean of group means
            denom = design.sizes.astype(np.float64)
        center = np.bincount(self.case_stratum, weights=f * raw, minlength=self.n_strata) / denom
        self.center = center
        # the spread of the units' deviations, and its part from the runs (own runs only)
        dev = np.bincount(
            self.unit_of_case, weights=f * (raw - center[self.case_stratum]),
            minlength=design.sizes.sum(),
        )  # fmt: skip
        with np.errstate(invalid="ignore", divide="ignore"):
            own = np.where(r_a > 1, ss_a / np.maximum(r_a - 1, 1) / r_a, 0.0)
            own += np.where(r_b > 1, ss_b / np.maximum(r_b - 1, 1) / r_b, 0.0)
        noise_u = np.bincount(self.unit_of_case, weights=f * f * own, minlength=dev.size)
        n_units, dof = dev.size, dev.size - self.n_strata
        spread = float(np.sum(dev * dev)) / dof if dof > 0 else 0.0
        noise = float(np.sum(noise_u)) / n_units if n_units else 0.0
        if noise <= spread:  # the between-case part is spread - noise >= 0: stage one keeps it
            self.shrink = math.sqrt(1.0 - noise / spread) if spread > 0 else 0.0
            self.run_scale = 1.0
        else:  # a negative between-case estimate: no between part, less run noise
            self.shrink = 0.0
            self.run_scale = math.sqrt(spread / noise)
        centred = raw - center[self.case_stratum]
        self.value = f * (center[self.case_stratum] + self.shrink * centred)
        # residuals rescaled to the unbiased within-case variance (none for a single run),
        # times run_scale (below 1 when the run noise exceeds the spread of the cases),
        # grouped by the number of runs: (cases, R, residuals (cases x R), weight / R)
        self.by_runs: list[list[tuple[np.ndarray, int, np.ndarray, np.ndarray]]] = []
        models = (
            (self.ptr_a, self.runs_a, r_a, m_a, 1.0),
            (self.ptr_b, self.runs_b, r_b, m_b, -1.0),
        )
        for ptr, runs, r, m, sgn in models:
            groups = []
            for size in np.unique(r[r > 1]):
                cases = np.flatnonzero(r == size)
                idx = ptr[cases][:, None] + np.arange(size)
                kappa = math.sqrt(size / (size - 1.0)) * self.run_scale
                resid = (runs[idx] - m[cases][:, None]) * kappa
                groups.append((cases, int(size), resid, sgn * f[cases] / size))
            self.by_runs.append(groups)
        self.rescale = rao_wu(design) if self.base.small_sample else None

    # -- the Resampler protocol (the one-stage design's for everything but the draws) -----
    @property
    def degrees_of_freedom(self) -> float | None:
        """The design degrees of freedom of the one-stage bootstrap's small-sample correction."""
        return self.base.degrees_of_freedom

    def few_units_warning(self) -> str | None:
        """Return the one-stage design's warning about too few units."""
        return self.base.few_units_warning()

    def singleton_warning(self) -> str | None:
        """Return the one-stage design's warning about single-unit strata."""
        return self.base.singleton_warning()

    def theta(self) -> float:
        """Return the statistic on the original sample (the mean of run means)."""
        return self.base.theta()

    def acceleration(self) -> float:
        """Return BCa's acceleration from the jackknife over the first-stage units."""
        return self.base.acceleration()

    def undefined(self, n_dropped: int, n_resamples: int) -> str:  # pragma: no cover
        """Say how many replicates are undefined (a mean of run means never is)."""
        return self.base.undefined(n_dropped, n_resamples)

    def replicates(
        self, n_resamples: int, seed_sequence: np.random.SeedSequence, batch: int | None
    ) -> tuple[np.ndarray, str]:
        """Two-stage replicates of the improvement, chunk by chunk of ``CHUNK``."""
        del batch  # a chunk's memory is bounded by _RUN_BLOCK draws at a time
        out = np.empty(n_resamples, dtype=np.float64)

        def run_chunk(k: int) -> None:
            lo = k * CHUNK
            m = min(n_resamples, lo + CHUNK) - lo
            out[lo : lo + m] = self._chunk(seed_sequence, k, m)

        for_each_chunk(run_chunk, -(-n_resamples // CHUNK))
        return out, "two-stage"

    def _unit_counts(self, seed_sequence: np.random.SeedSequence, k: int, m: int) -> np.ndarray:
        """How often each unit is drawn in the ``m`` replicates of chunk ``k`` (stage one).

        The same draws, in the same order, as the one-stage index engine
        (``pdpaired.core.engine``): ``Generator.integers(0, G_h)`` stratum by
        stratum from the ``bootstrap_chunk`` stream of the chunk.
        """
        design = self.base.design
        gen = np.random.Generator(
            np.random.PCG64(stream_sequence(seed_sequence, "bootstrap_chunk", k))
        )
        ptr, sizes = design.unit_ptr, design.sizes
        counts = np.zeros((m, int(sizes.sum())), dtype=np.int64)
        for h in range(self.n_strata):
            a, g = int(ptr[h]), int(sizes[h])
            if g == 1:
                counts[:, a] = 1
                continue
            if g <= _BLOCK_WORDS:
                per = max(1, _BLOCK_WORDS // g)
                for r0 in range(0, m, per):
                    r1 = min(m, r0 + per)
                    idx = gen.integers(0, g, size=(r1 - r0, g))
                    flat = (np.arange(r1 - r0)[:, None] * g + idx).ravel()
                    block = np.bincount(flat, minlength=(r1 - r0) * g).reshape(r1 - r0, g)
                    counts[r0:r1, a : a + g] = block
            else:
                for r in range(m):
                    for p0 in range(0, g, _BLOCK_WORDS):
                        idx = gen.integers(0, g, size=min(_BLOCK_WORDS, g - p0))
                        counts[r, a : a + g] += np.bincount(idx, minlength=g)
        return counts

    def _chunk(self, seed_sequence: np.random.SeedSequence, k: int, m: int) -> np.ndarray:
        design = self.base.design
        n_h = self.n_strata
        units = self._unit_counts(seed_sequence, k, m)
        w = units[:, self.unit_of_case]  # (m, n): how often each case is drawn
        s = np.zeros((m, n_h))
        for h in range(n_h):
            cases = np.flatnonzero(self.case_stratum == h)
            s[:, h] = w[:, cases] @ self.value[cases]
        if np.all(self.case_factor == 1.0):  # mean over cases: the cases drawn
            per_unit = np.ones(units.shape[1]) if design.count is None else design.count
            c = np.zeros((m, n_h))
            for h in range(n_h):
                lo, hi = int(design.unit_ptr[h]), int(design.unit_ptr[h + 1])
                c[:, h] = units[:, lo:hi] @ per_unit[lo:hi]
        else:  # mean of unit means: G_h units every time
            c = np.broadcast_to(design.sizes.astype(np.float64), (m, n_h))
        # stage two: each drawn case redraws R runs of each model from its residuals
        for model, groups in enumerate(self.by_runs):
            gen = np.random.Generator(
                np.random.PCG64(stream_sequence(seed_sequence, "repeat_runs", k, model))
            )
            for cases, r, resid, scale in groups:  # cases with r runs, in case order
                occ = w[:, cases]  # (m, cases): occurrences of each case, replicate by replicate
                keys = np.arange(m)[:, None] * n_h + self.case_stratum[cases]
                per_rep = occ.sum(axis=1) * r
                r0 = 0
                while r0 < m:  # blocks of replicates: the draws are read in the same order
                    r1 = r0 + 1
                    total = int(per_rep[r0])
                    while r1 < m and total + int(per_rep[r1]) <= _RUN_BLOCK:
                        total += int(per_rep[r1])
                        r1 += 1
                    counts = occ[r0:r1].ravel()
                    which = np.repeat(np.tile(np.arange(cases.size), r1 - r0), counts)
                    u = gen.random((which.size, r))  # one row of r draws per occurrence
                    u *= r
                    idx = u.astype(np.intp)  # floor: u < 1, so idx <= r - 1
                    np.minimum(idx, r - 1, out=idx)
                    idx += (which * r)[:, None]  # into the (cases x r) residuals, flat
                    sums = resid.ravel()[idx].sum(axis=1)
                    key = np.repeat(keys[r0:r1].ravel(), counts)
                    s += np.bincount(key, weights=sums * scale[which], minlength=m * n_h).reshape(
                        m, n_h
                    )
                    r0 = r1
        ratio = s / c
        if self.rescale is not None:
            center, factor = self.rescale
            ratio = center + factor * (ratio - center)
        theta: np.ndarray = design.sign * (ratio @ design.weight)
        return theta
