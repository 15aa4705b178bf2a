"""Results of crossed factors: how the cells were read, and the variance components.

:class:`CrossedSummary` records how a table with one row per (case, model,
level of every factor) (``df.paired(repeat="sample", factors=[...])``)
became a balanced crossed design: the levels, the cells, the missing cells
and what the missing-outcome policy did with them.
:class:`CrossedComponents` is what ``Comparison.variance_components()``
returns with factors: one variance component per axis of the design (cases,
each factor, their interactions, the residual), the standard error of the
improvement for the population of cases *and* levels, and what more cases
or more levels of a factor would buy (:meth:`CrossedComponents.plan`).
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Any

import pandas as pd

from pdpaired._lib.format import fmt, jsonable, printable
from pdpaired._lib.public import public

__all__ = ["CrossedComponents", "CrossedSummary"]


@public
@dataclass(frozen=True, slots=True, kw_only=True)
class CrossedSummary:
    """How the rows of each (case, model) were read into a crossed design.

    Attributes
    ----------
    factors : tuple of str
        The factor columns, crossed with the cases.
    n_levels : tuple of int
        The levels of each factor (over A's and B's rows).
    replicate : str or None
        The column telling apart several rows of one cell (their mean is
        the cell's value), or None (one row per cell).
    policy : str
        The missing-outcome policy, applied to missing rows (NaN scores)
        and to missing cells.
    n_missing_rows_a, n_missing_rows_b : int
        Rows with a NaN score, per model.
    n_missing_cells_a, n_missing_cells_b : int
        Cells of an analysed or dropped case with no usable row, per model.
    n_incomplete_cases : int
        Cases with at least one missing cell for a model: dropped for both
        models under ``"complete-case"`` (counted in the result's
        ``missing`` too), their missing cells filled under ``"as-failure"``.
    incomplete_ids : tuple of str
        The first (at most ten) of those cases, in id order.
    fill_value : float or None
    """

    factors: tuple[str, ...]
    n_levels: tuple[int, ...]
    replicate: str | None
    policy: str
    n_missing_rows_a: int = 0
    n_missing_rows_b: int = 0
    n_missing_cells_a: int = 0
    n_missing_cells_b: int = 0
    n_incomplete_cases: int = 0
    incomplete_ids: tuple[str, ...] = ()
    fill_value: float | None = None

    def describe(self) -> str:
        """Return the design in one line.

        Examples
        --------
        >>> from pdpaired.results.crossed import CrossedSummary
        >>> CrossedSummary(factors=("seed", "prompt"), n_levels=(4, 3), replicate=None,
        ...                policy="error").describe()
        'cases crossed with seed (4 levels) x prompt (3 levels), one row per cell; no missing cells'
        """
        axes = " x ".join(
            f"{f} ({n} levels)" for f, n in zip(self.factors, self.n_levels, strict=True)
        )
        reps = (
            "one row per cell"
            if self.replicate is None
            else f"replicates per cell told apart by {self.replicate}"
        )
        text = f"cases crossed with {axes}, {reps}"
        n_cells = self.n_missing_cells_a + self.n_missing_cells_b
        n_rows = self.n_missing_rows_a + self.n_missing_rows_b
        if not n_cells and not n_rows:
            return text + "; no missing cells"
        what = (
            f"{self.n_missing_rows_a} missing rows of A, {self.n_missing_rows_b} of B; "
            f"{self.n_missing_cells_a} missing cells of A, {self.n_missing_cells_b} of B"
        )
        ids = ", ".join(self.incomplete_ids)
        if self.policy == "complete-case":
            done = f"{self.n_incomplete_cases} incomplete case(s) dropped for both models"
        else:
            fill = "" if self.fill_value is None else f" with {self.fill_value:g}"
            done = f"missing rows and cells of {self.n_incomplete_cases} case(s) filled{fill}"
        first = f" (first: {ids})" if ids else ""
        return f"{text}; {what}; {done}{first} (policy {self.policy})"

    def __str__(self) -> str:
        return self.describe()

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-safe dict."""
        out: dict[str, Any] = jsonable(
            {name: getattr(self, name) for name in self.__dataclass_fields__}
        )
        return out


@public
@dataclass(frozen=True, slots=True, kw_only=True)
class CrossedComponents:
    """Variance components of the improvement in a crossed design, one per axis.

    The per-cell improvement ``d`` (A's cell mean minus B's, direction
    adjusted) follows the balanced random-effects model with one effect per
    non-empty set ``E`` of the axes (cases and each factor); the variance
    of the mean improvement over ``n`` cases and ``n_f`` levels of each
    factor ``f`` is ``sum_E variance[E] / divisor[E]``, with ``divisor[E]``
    the product of the numbers of levels of the axes in ``E``. The
    estimand is the mean improvement over the populations of cases and of
    every factor's levels (a new case, a new seed, a new prompt).

    Attributes
    ----------
    a, b : str
    metric : str
    higher_is_better : bool
    improvement : float
        Mean of the per-cell improvements.
    n_cases : int
    factors : tuple of str
    n_levels : tuple of int
    components : tuple of str
        The name of each component: ``"case"``, each factor, their
        interactions (``"case x seed"``, ``"seed x prompt"`` ...) and
        ``"residual"``. With one row per cell, ``"residual"`` is the
        interaction of the cases with every factor *and* the run noise: the
        two cannot be told apart. With replicate rows in the cells, that
        interaction has its own row and ``"residual"`` is the run noise of
        a cell's improvement at the observed replicates (``within_a / r_a
        + within_b / r_b``, pooled within-cell variances).
    variances : tuple of float
        Method-of-moments estimates (unbiased, so some can be negative:
        read them as 0).
    divisors : tuple of float
        What each variance is divided by in the variance of the mean.
    axes : tuple of tuple of int
        The axes each component spans (0: cases, then the factors in order).
    replicates : float
        Harmonic mean of the rows per cell of A and B (1 without replicates).
    standard_error : float
        ``sqrt(sum_E max(variance[E], 0) / divisor[E])``: the standard
        error of the mean improvement for new cases and new levels.
    case_standard_error : float
        The standard error the case-only bootstrap estimates (the spread of
        the case means over ``sqrt(n_cases)``): for new cases with these
        levels only.
    pigeonhole_standard_error : float
        The standard error the plain pigeonhole bootstrap estimates on these
        data (exact, given the data): it counts the interactions more than
        once (too large when they dominate) but each main effect times
        ``(n_a - 1) / n_a`` (too small when a factor with few levels
        dominates). ``bootstrap(resample_factors=True)`` rescales its
        replicates to ``standard_error``.
    degrees_of_freedom : float
        Satterthwaite's degrees of freedom of ``standard_error ** 2`` (a
        combination of the ANOVA's mean squares): few when a factor with
        few levels dominates.
    summary : CrossedSummary
    """

    a: str
    b: str
    metric: str
    higher_is_better: bool
    improvement: float
    n_cases: int
    factors: tuple[str, ...]
    n_levels: tuple[int, ...]
    components: tuple[str, ...]
    variances: tuple[float, ...]
    divisors: tuple[float, ...]
    axes: tuple[tuple[int, ...], ...] = field(repr=False)
    replicates: float
    standard_error: float
    case_standard_error: float
    pigeonhole_standard_error: float
    degrees_of_freedom: float
    summary: CrossedSummary = field(repr=False)

    def _sizes(self, n_cases: int | None, levels: Mapping[str, int] | None) -> list[float]:
        n = self.n_cases if n_cases is None else n_cases
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            msg = f"`n_cases` must be an int >= 1; got {n_cases!r}."
            raise ValueError(msg)
        sizes: list[float] = [float(n), *map(float, self.n_levels)]
        for name, value in dict(levels or {}).items():
            if name not in self.factors:
                msg = (
                    f"`levels` names a factor not in the design: {name!r}; "
                    f"factors {list(self.factors)}."
                )
                raise ValueError(msg)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                msg = f"`levels[{name!r}]` must be an int >= 1; got {value!r}."
                raise ValueError(msg)
            sizes[1 + self.factors.index(name)] = float(value)
        return sizes

    def se_at(self, n_cases: int | None = None, levels: Mapping[str, int] | None = None) -> float:
        """Return the SE of the mean improvement with ``n_cases`` cases and ``levels`` levels.

        ``sqrt(sum_E max(variance[E], 0) / prod_{a in E} n_a)``. Defaults:
        the observed numbers; the replicates per cell stay as observed.

        Parameters
        ----------
        n_cases : int, optional
        levels : mapping of str to int, optional
            Levels of some factors, e.g. ``{"seed": 5}``.

        Returns
        -------
        float
        """
        sizes = self._sizes(n_cases, levels)
        total = 0.0
        for var, axes in zip(self.variances, self.axes, strict=True):
            total += max(var, 0.0) / math.prod(sizes[a] for a in axes)
        return math.sqrt(total)

    def interval(self, confidence_level: float = 0.95) -> tuple[float, float]:
        """Return the t interval ``improvement -/+ t_df * standard_error`` (Satterthwaite df).

        The normal-theory interval of the balanced random-effects model, a
        check on the pigeonhole bootstrap's when a factor has few levels.

        Parameters
        ----------
        confidence_level : float, default 0.95

        Returns
        -------
        tuple of float
            ``(low, high)``.
        """
        from scipy.special import stdtrit

        if not 0 < confidence_level < 1:
            msg = f"`confidence_level` must be in (0, 1); got {confidence_level!r}."
            raise ValueError(msg)
        df = self.degrees_of_freedom
        q = (
            float(stdtrit(df, 0.5 + confidence_level / 2))
            if math.isfinite(df)
            else (NormalDist().inv_cdf(0.5 + confidence_level / 2))
        )
        half = q * self.standard_error
        return self.improvement - half, self.improvement + half

    def plan(
        self, *, add_cases: int = 200, add_levels: int = 1, confidence_level: float = 0.95
    ) -> pd.DataFrame:
        """Compare designs: as run, ``add_cases`` more cases, or ``add_levels`` more of a factor.

        Parameters
        ----------
        add_cases : int, default 200
        add_levels : int, default 1
        confidence_level : float, default 0.95

        Returns
        -------
        DataFrame
            One row per design: ``design``, ``n_cases``, the levels of each
            factor, ``standard_error`` and ``half_width`` (the normal
            interval's half width at ``confidence_level``).

        Examples
        --------
        >>> import numpy as np, pandas as pd
        >>> import pdpaired
        >>> rng = np.random.default_rng(0)
        >>> n, s, p = 40, 3, 2
        >>> case, seed, prompt = (a.ravel() for a in np.meshgrid(
        ...     np.arange(n), np.arange(s), np.arange(p), indexing="ij"))
        >>> d = (0.3 + rng.normal(0, 1, n)[case] + rng.normal(0, 0.5, s)[seed]
        ...      + rng.normal(0, 0.5, case.size))
        >>> df = pd.concat([
        ...     pd.DataFrame({"case_id": case, "seed": seed, "prompt": prompt, "model": "new",
        ...                   "score": d}),
        ...     pd.DataFrame({"case_id": case, "seed": seed, "prompt": prompt, "model": "old",
        ...                   "score": 0.0})])
        >>> cmp = df.paired(repeat="sample", factors=["seed", "prompt"]).compare(
        ...     "new", "old", higher_is_better=True)
        >>> cmp.variance_components().plan(add_cases=200)[["design", "n_cases", "seed"]]
                    design  n_cases  seed
        0           as run       40     3
        1       +200 cases      240     3
        2    +1 seed level       40     4
        3  +1 prompt level       40     3
        """
        for name, value in (("add_cases", add_cases), ("add_levels", add_levels)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                msg = f"`{name}` must be an int >= 0; got {value!r}."
                raise ValueError(msg)
        if not 0 < confidence_level < 1:
            msg = f"`confidence_level` must be in (0, 1); got {confidence_level!r}."
            raise ValueError(msg)
        z = NormalDist().inv_cdf(0.5 + confidence_level / 2)
        designs: list[tuple[str, int, dict[str, int]]] = [
            ("as run", self.n_cases, {}),
            (f"+{add_cases} cases", self.n_cases + add_cases, {}),
        ]
        for f, n_f in zip(self.factors, self.n_levels, strict=True):
            designs.append((f"+{add_levels} {f} level", self.n_cases, {f: n_f + add_levels}))
        rows = []
        for label, n, levels in designs:
            se = self.se_at(n, levels)
            row: dict[str, Any] = {"design": label, "n_cases": n}
            for f, n_f in zip(self.factors, self.n_levels, strict=True):
                row[f] = levels.get(f, n_f)
            row.update(standard_error=se, half_width=z * se)
            rows.append(row)
        return pd.DataFrame(rows)

    def to_frame(self) -> pd.DataFrame:
        """Return one row per component: its variance and its part of the variance of the mean.

        Columns ``component``, ``variance`` (method of moments),
        ``divisor``, ``contribution`` (``max(variance, 0) / divisor``, the
        component's term of the variance of the mean improvement) and
        ``share`` (that term over their sum).
        """
        contrib = []
        for var, div in zip(self.variances, self.divisors, strict=True):
            contrib.append(max(var, 0.0) / div)
        total = sum(contrib)
        return pd.DataFrame(
            {
                "component": list(self.components),
                "variance": list(self.variances),
                "divisor": list(self.divisors),
                "contribution": contrib,
                "share": [c / total if total > 0 else float("nan") for c in contrib],
            }
        )

    def __repr__(self) -> str:
        axes = ", ".join(f"{f}={n}" for f, n in zip(self.factors, self.n_levels, strict=True))
        return (
            f"CrossedComponents(a={self.a!r}, b={self.b!r}, n_cases={self.n_cases}, {axes}, "
            f"standard_error={self.standard_error:.6g}, "
            f"case_standard_error={self.case_standard_error:.6g})"
        )

    def _rows(self) -> list[tuple[str, str]]:
        rows = [
            ("Models", f"A ({self.a}) over B ({self.b}), {self.n_cases} cases"),
            ("Improvement (mean over cells)", fmt(self.improvement, signed=True)),
        ]
        for name, var, div in zip(self.components, self.variances, self.divisors, strict=True):
            rows.append((f"{name} (variance / divisor)", f"{fmt(var)} / {div:g}"))
        rows += [
            ("Standard error (new cases and levels)", fmt(self.standard_error)),
            ("Standard error (new cases only)", fmt(self.case_standard_error)),
            ("Plain pigeonhole bootstrap's standard error", fmt(self.pigeonhole_standard_error)),
            ("Degrees of freedom (Satterthwaite)", f"{self.degrees_of_freedom:.3g}"),
            ("Design", self.summary.describe()),
        ]
        return rows

    def __str__(self) -> str:
        rows = [(printable(k), printable(v)) for k, v in self._rows()]
        width = max(len(k) for k, _ in rows) + 3
        return "\n".join(f"{k:<{width}}{v}" for k, v in rows)

    def _repr_html_(self) -> str:
        body = "".join(
            f"<tr><th style='text-align:left'>{html.escape(k)}</th>"
            f"<td style='text-align:left'>{html.escape(v)}</td></tr>"
            for k, v in self._rows()
        )
        return (
            "<div class='pdpaired-result'><table><caption>Variance components of a crossed "
            f"design</caption>{body}</table></div>"
        )

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-safe dict (NaN becomes None)."""
        d = {
            name: getattr(self, name)
            for name in self.__dataclass_fields__
            if name not in ("summary", "axes")
        }
        d["summary"] = self.summary.to_dict()
        out: dict[str, Any] = jsonable({"result": "CrossedComponents", **d})
        return out
