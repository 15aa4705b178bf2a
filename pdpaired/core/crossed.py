"""Crossed factors at the array level: the random-effects ANOVA and the pigeonhole bootstrap.

With crossed factors each case is run once under every combination of the
levels of some factors (seeds, prompt templates, judges); A and B share the
cell (seed ``s`` and prompt ``p`` mean the same for both models). The
per-cell improvement ``d[i, s, p]`` (A's cell mean minus B's, direction
applied) is a fully crossed array with one value per cell, and the estimand
is its mean over the *populations* of cases, seeds and prompts.

The balanced random-effects model writes ``d`` as a grand mean plus one
zero-mean random effect for every non-empty set ``E`` of the axes (cases,
each factor, and every interaction), with variance ``sigma2[E]``; the
effect of the set of all axes is the residual (with one value per cell it
cannot be told apart from the highest interaction). The variance of the
grand mean over ``n_a`` levels of each axis ``a`` is

    Var(mean) = sum_E sigma2[E] / prod_{a in E} n_a.

:func:`anova` computes the ANOVA's mean squares (the effect of ``E`` is
the inclusion-exclusion of the marginal means over the axes of ``E``);
:func:`variance_components` estimates each ``sigma2[E]`` by the method of
moments: with ``EMS[E] = sum_{F >= E} c_F sigma2[F]`` and ``c_F = prod_{a
not in F} n_a``, Möbius inversion gives the unbiased estimates ``sigma2[E]
= sum_{F >= E} (-1)^{|F| - |E|} MS[F] / c_E`` (Cornfield & Tukey 1956;
they can be negative).

:class:`PigeonholeResampler` is the pigeonhole (multiway) bootstrap of
McCullagh (2000) and Owen (2007): every replicate draws the cases, and
independently the levels of every factor, with replacement; its statistic
is the mean of ``d`` over the product of the drawn index sets (weights the
products of the multiplicities). Given the data its variance is exactly
(:func:`pigeonhole_variance`)

    Var*(mean*) = sum_E nu[E] / prod_{a in E} n_a,
    nu[E] = SS[E] / N  (the mean square of the estimated effect of E),

and ``E[nu[E]] = df_E EMS[E] / N`` (:func:`expected_pigeonhole_variance`):
every interaction is counted again in the term of each subset of its axes,
which makes the bootstrap conservative when the interactions dominate
(Owen 2007), but each main effect carries a factor ``(n_a - 1) / n_a``,
which makes it too narrow when a factor with few levels dominates (4 seeds:
three quarters of the seed variance). In a simulation of 60 cases x 4
seeds x 3 prompts with a dominant seed effect the plain pigeonhole
percentile interval covered 85% at the 95% level.

The small-sample correction (``small_sample=True``, the default) therefore
rescales the replicates about the estimate so that their variance is the
ANOVA's estimate of ``Var(mean)`` (:func:`anova_variance`, components read
as 0 when negative), and reads the percentile interval's tails at
Satterthwaite's degrees of freedom of that estimate (as the stratified and
cluster bootstrap's correction does, ``core.bootstrap.expanded_alpha``).
The shape of the bootstrap distribution is kept. Everything is vectorized
across the replicates of a chunk of ``CHUNK``, each chunk reading its own
addressed streams (one per axis), so results do not depend on ``batch`` or
threads.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np

from pdpaired._lib.rng import CHUNK, stream_sequence
from pdpaired.core.accel import for_each_chunk

__all__ = [
    "Effect",
    "PigeonholeResampler",
    "anova",
    "anova_variance",
    "expected_pigeonhole_variance",
    "pigeonhole_variance",
    "variance_components",
]


@dataclass(frozen=True, slots=True)
class Effect:
    """One term of the crossed ANOVA: the axes it spans and its sums of squares."""

    axes: tuple[int, ...]
    df: int
    ss: float
    ms: float
    sigma2: float  # method-of-moments variance component (unbiased; may be negative)
    divisor: int  # prod_{a in axes} n_a: the term of Var(mean) is sigma2 / divisor


def _subsets(k: int) -> list[tuple[int, ...]]:
    """Every non-empty subset of ``range(k)``, by size then lexicographically."""
    return [s for r in range(1, k + 1) for s in itertools.combinations(range(k), r)]


def _effect(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """Return the estimated effect of ``axes``: inclusion-exclusion of the marginal means."""
    k = x.ndim
    out = np.zeros(tuple(x.shape[a] for a in axes))
    for r in range(len(axes) + 1):
        for keep in itertools.combinations(axes, r):
            drop = tuple(a for a in range(k) if a not in keep)
            m = x.mean(axis=drop) if drop else x
            # m's axes are `keep` in order; broadcast them onto `axes`
            shape = [x.shape[a] if a in keep else 1 for a in axes]
            out = out + (-1) ** (len(axes) - r) * m.reshape(shape)
    return out


def anova(x: np.ndarray) -> list[tuple[tuple[int, ...], int, float]]:
    """Return ``(axes, degrees of freedom, sum of squares)`` of every effect of a crossed array.

    Parameters
    ----------
    x : ndarray
        One value per cell of a fully crossed design (every axis at least 2 levels).

    Returns
    -------
    list of tuple
        One per non-empty set of axes, by size: the effects sum (with the
        grand mean) to ``x``, and their sums of squares to the total.
    """
    n = x.size
    out = []
    for axes in _subsets(x.ndim):
        e = _effect(x, axes)
        ss = float(np.sum(e * e)) * n / e.size
        df = math.prod(x.shape[a] - 1 for a in axes)
        out.append((axes, df, ss))
    return out


def variance_components(x: np.ndarray) -> list[Effect]:
    """Method-of-moments variance components of a balanced crossed random-effects design.

    Parameters
    ----------
    x : ndarray
        One value per cell, axes ``(cases, factor 1, ..., factor k)``.

    Returns
    -------
    list of Effect
        One per non-empty set of axes (see the module docstring).
    """
    shape = x.shape
    terms = anova(x)
    ms = {axes: ss / df for axes, df, ss in terms}
    out = []
    for axes, df, ss in terms:
        c_e = math.prod(shape[a] for a in range(x.ndim) if a not in axes)
        total = 0.0
        for sup, value in ms.items():
            if set(axes) <= set(sup):
                total += (-1) ** (len(sup) - len(axes)) * value
        out.append(
            Effect(
                axes=axes,
                df=df,
                ss=ss,
                ms=ms[axes],
                sigma2=total / c_e,
                divisor=math.prod(shape[a] for a in axes),
            )
        )
    return out


def pigeonhole_variance(x: np.ndarray) -> float:
    """Return the pigeonhole bootstrap's variance of the mean, given the data (exact).

    ``sum_E nu[E] / prod_{a in E} n_a`` with ``nu[E]`` the mean square of
    the estimated effect of ``E`` over its cells (module docstring).
    """
    total = 0.0
    for axes in _subsets(x.ndim):
        e = _effect(x, axes)
        total += float(np.mean(e * e)) / e.size
    return total


def anova_variance(x: np.ndarray) -> tuple[float, float]:
    """Return the ANOVA estimate of ``Var(mean)`` and its Satterthwaite degrees of freedom.

    ``V = sum_E max(sigma2[E], 0) / prod_{a in E} n_a``: the components
    read as 0 when negative (so ``V`` errs upwards). As a combination of
    the mean squares, ``V = sum_F b_F MS[F]``, Satterthwaite's (1946)
    degrees of freedom are ``V**2 / sum_F (b_F MS[F])**2 / df_F``.

    Parameters
    ----------
    x : ndarray
        One value per cell (every axis at least 2 levels).

    Returns
    -------
    variance, degrees_of_freedom : float
    """
    shape = x.shape
    effects = variance_components(x)
    b = {e.axes: 0.0 for e in effects}
    total = 0.0
    for e in effects:
        if e.sigma2 <= 0:
            continue
        total += e.sigma2 / e.divisor
        c_e = math.prod(shape[a] for a in range(x.ndim) if a not in e.axes)
        for f in effects:  # sigma2[E] = sum_{F >= E} (-1)^(|F| - |E|) MS[F] / c_E
            if set(e.axes) <= set(f.axes):
                b[f.axes] += (-1) ** (len(f.axes) - len(e.axes)) / (c_e * e.divisor)
    denom = sum((b[e.axes] * e.ms) ** 2 / e.df for e in effects)
    dof = total * total / denom if denom > 0 else math.inf
    return total, dof


def expected_pigeonhole_variance(
    sigma2: dict[tuple[int, ...], float], shape: tuple[int, ...]
) -> float:
    """Return the expected pigeonhole bootstrap variance under the random-effects model.

    ``E[nu[E]] = df_E EMS[E] / N`` for every effect ``E``, with
    ``EMS[E] = sum_{F >= E} c_F sigma2[F]``: the bootstrap variance's
    expectation over data sets drawn from components ``sigma2`` (keys: sets
    of axes; missing keys are 0).

    Parameters
    ----------
    sigma2 : dict
    shape : tuple of int

    Returns
    -------
    float
    """
    k = len(shape)
    n = math.prod(shape)
    total = 0.0
    for axes in _subsets(k):
        ems = 0.0
        for sup in _subsets(k):
            if set(axes) <= set(sup):
                c_f = math.prod(shape[a] for a in range(k) if a not in sup)
                ems += c_f * sigma2.get(sup, 0.0)
        df = math.prod(shape[a] - 1 for a in axes)
        total += df * ems / n / math.prod(shape[a] for a in axes)
    return total


@dataclass(eq=False)
class PigeonholeResampler:
    """The pigeonhole bootstrap of the mean of a crossed array, as a ``Resampler``.

    Parameters
    ----------
    cells : ndarray
        The direction-adjusted per-cell improvement, axes ``(cases, factor
        1, ..., factor k)``.
    small_sample : bool, default True
        Rescale the replicates to the ANOVA variance and widen the tails to
        its Satterthwaite degrees of freedom (module docstring); False: the
        plain pigeonhole bootstrap.
    """

    cells: np.ndarray
    small_sample: bool = True
    shape: tuple[int, ...] = field(init=False)
    scale: float = field(init=False)
    df: float | None = field(init=False)

    def __post_init__(self) -> None:
        self.shape = tuple(int(s) for s in self.cells.shape)
        self.center = float(np.mean(self.cells))
        self.scale, self.df = 1.0, None
        if self.small_sample and min(self.shape) >= 2:
            target, dof = anova_variance(self.cells)
            plain = pigeonhole_variance(self.cells)
            if plain > 0 and target > 0:
                self.scale, self.df = math.sqrt(target / plain), dof

    def singleton_warning(self) -> str | None:
        """Return a warning when an axis has a single level (nothing to resample there)."""
        single = [a for a, s in enumerate(self.shape) if s < 2]
        if not single:
            return None
        return (
            f"{len(single)} axis(es) of the crossed design have a single level: the "
            "pigeonhole bootstrap cannot tell their variance."
        )

    def few_units_warning(self) -> str | None:
        """Return a warning when a factor has fewer than 3 levels (a wide, rough interval)."""
        few = [s for s in self.shape[1:] if s < 3]
        if not few:
            return None
        return (
            f"a factor has only {min(few)} level(s): the pigeonhole bootstrap's interval for "
            "a new level rests on very few draws and is rough."
        )

    @property
    def degrees_of_freedom(self) -> float | None:
        """Satterthwaite's degrees of freedom of the variance (the small-sample correction)."""
        return self.df

    def theta(self) -> float:
        """Return the mean over every cell."""
        return self.center

    def acceleration(self) -> float:
        """BCa is not defined for the pigeonhole bootstrap."""
        msg = (
            "method='bca' needs a jackknife over independent units; the cells of a crossed "
            "design have none. Use method='percentile' or 'basic' with resample_factors=True."
        )
        raise ValueError(msg)

    def undefined(self, n_dropped: int, n_resamples: int) -> str:  # pragma: no cover
        """Say how many replicates are undefined (a mean over drawn cells never is)."""
        return f"{n_dropped} of {n_resamples} replicates are undefined."

    def replicates(
        self, n_resamples: int, seed_sequence: np.random.SeedSequence, batch: int | None
    ) -> tuple[np.ndarray, str]:
        """Pigeonhole replicates of the mean, chunk by chunk of ``CHUNK``."""
        del batch  # a chunk holds CHUNK x (cells / cases) floats at most
        out = np.empty(n_resamples, dtype=np.float64)

        def run_chunk(k: int) -> None:
            lo = k * CHUNK
            m = min(n_resamples, lo + CHUNK) - lo
            out[lo : lo + m] = self.chunk(self.counts(seed_sequence, k, m))

        for_each_chunk(run_chunk, -(-n_resamples // CHUNK))
        return out, "pigeonhole"

    def counts(self, seed_sequence: np.random.SeedSequence, k: int, m: int) -> list[np.ndarray]:
        """How often each level of each axis is drawn in the ``m`` replicates of chunk ``k``.

        Axis ``j`` reads stream ``crossed_levels`` ``(k, j)``:
        ``Generator.integers(0, n_j, size=(m, n_j))``, one row per replicate.
        """
        out = []
        for j, n_j in enumerate(self.shape):
            gen = np.random.Generator(
                np.random.PCG64(stream_sequence(seed_sequence, "crossed_levels", k, j))
            )
            idx = gen.integers(0, n_j, size=(m, n_j))
            flat = (np.arange(m)[:, None] * n_j + idx).ravel()
            out.append(np.bincount(flat, minlength=m * n_j).reshape(m, n_j))
        return out

    def chunk(self, counts: list[np.ndarray]) -> np.ndarray:
        """Return the replicates' means for the given multiplicities of every axis."""
        m = counts[0].shape[0]
        x = self.cells.reshape(self.shape[0], -1)
        t = counts[0].astype(np.float64) @ x  # (m, rest)
        for j in range(1, len(self.shape)):
            t = t.reshape(m, self.shape[j], -1)
            t = np.einsum("ml,mlr->mr", counts[j].astype(np.float64), t)
        theta: np.ndarray = t.reshape(m) / math.prod(self.shape)
        if self.scale != 1.0:
            theta = self.center + self.scale * (theta - self.center)
        return theta
