"""The result of planning a comparison: power, detectable effects and sizes."""

from __future__ import annotations

import base64
import html
import io
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from pdpaired._lib.format import fmt as _fmt
from pdpaired._lib.format import jsonable as _jsonable
from pdpaired._lib.format import md_escape as _md
from pdpaired._lib.format import plot_text
from pdpaired._lib.public import public
from pdpaired.results.missing import MissingSummary

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["PlanResult"]

_TESTS = {
    "t": "paired t / bootstrap interval (normal approximation, design effect)",
    "randomization": "paired randomization test (sign flips, normal approximation)",
    "exact_binomial": "exact binomial (McNemar) test of the discordant pairs",
    "bootstrap": "bootstrap standard error of the metric (normal approximation)",
}


@public
@dataclass(frozen=True, slots=True, kw_only=True)
class PlanResult:
    """How many cases a comparison needs, and what it can detect.

    Returned by :meth:`Comparison.plan <pdpaired.Comparison.plan>`. Read from
    the observed paired design: the spread of the paired differences, the
    groups' design effect and the strata.

    Attributes
    ----------
    a, b : str
        Model names.
    metric : str
    higher_is_better : bool
    improvement : float
        The observed improvement (positive: A better).
    n_cases, n_groups, n_strata : int or None
        The observed design (``n_groups`` None without groups).
    unit : str
        ``"case"`` or ``"group"``: what a planned comparison adds.
    test : str
        The test planned for: ``"t"`` (the paired t-test, or the bootstrap
        interval excluding 0 or ``practical_threshold``, which it
        approximates), ``"randomization"`` (the paired sign-flip test),
        ``"exact_binomial"`` (0/1 scores without groups) or ``"bootstrap"``
        (prediction mode: the bootstrap interval).
    practical_threshold : float
        The interval's decision planned for: its low end above this
        threshold (A better) or its high end below minus it (B better,
        two-sided); 0 is "the interval excludes 0".
    method : str
        ``"analytic"`` or ``"simulation"``.
    power, alpha : float
        The target power and the test's level.
    alternative : str
        ``"two-sided"``, ``"greater"`` (A better) or ``"less"``.
    effect : float or None
        The improvement ``n_cases_needed`` is planned for (None: not asked).
    planned_n_cases : int
        The size ``mde`` is computed at (the observed size unless given).
    mde : float
        Minimum detectable improvement: the smallest improvement whose power
        reaches ``power`` with ``planned_n_cases`` cases (``inf`` if none).
    n_cases_needed, n_groups_needed : int or None
        Cases (and groups) needed for power ``power`` at ``effect``.
    standard_error : float
        Standard error of the improvement at the observed size.
    sd_diff : float or None
        Standard deviation of the per-case paired differences (score mode).
    design_effect : float or None
        Variance of the estimate over its variance had the cases been
        independent (1 for independent cases).
    icc : float or None
        Intraclass correlation implied by the design effect,
        ``design_effect = 1 + (m - 1) * icc`` (``m``: size-weighted mean group size).
    discordant_rate : float or None
        0/1 scores: the share of cases where the models disagree.
    n_simulations : int or None
        Simulated comparisons per size (``method="simulation"``).
    seed : int or None
        The seed (simulation only); ``rng=seed`` reproduces the result.
    stream : str or None
        ``"plan"`` when random numbers were drawn.
    missing : MissingSummary
    """

    a: str
    b: str
    metric: str
    higher_is_better: bool
    improvement: float
    n_cases: int
    n_groups: int | None
    n_strata: int | None
    unit: str
    test: str
    method: str
    power: float
    alpha: float
    alternative: str
    effect: float | None
    planned_n_cases: int
    mde: float
    n_cases_needed: int | None
    n_groups_needed: int | None
    standard_error: float
    sd_diff: float | None
    design_effect: float | None
    icc: float | None
    discordant_rate: float | None
    n_simulations: int | None
    seed: int | None
    stream: str | None
    missing: MissingSummary = field(repr=False)
    power_function: Callable[[np.ndarray, int], np.ndarray] = field(repr=False, compare=False)
    practical_threshold: float = 0.0

    def power_at(self, improvement: Any, n_cases: int | None = None) -> Any:
        """Power of the planned test at a true improvement.

        Parameters
        ----------
        improvement : float or array_like
            True improvement of A over B (positive: A better).
        n_cases : int, optional
            Number of cases (default: ``planned_n_cases``).

        Returns
        -------
        float or ndarray
            A float for a scalar ``improvement``, else an array of its shape.
        """
        n = self.planned_n_cases if n_cases is None else int(n_cases)
        x = np.asarray(improvement, dtype=np.float64)
        out = np.asarray(self.power_function(x.ravel(), n), dtype=np.float64).reshape(x.shape)
        return float(out) if out.ndim == 0 else out

    def __repr__(self) -> str:
        need = "None" if self.n_cases_needed is None else str(self.n_cases_needed)
        return (
            f"PlanResult(a={self.a!r}, b={self.b!r}, test={self.test!r}, method={self.method!r}, "
            f"power={self.power:g}, alpha={self.alpha:g}, mde={self.mde:.6g}, "
            f"effect={self.effect!r}, n_cases_needed={need})"
        )

    # -- views ---------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-safe dict (an infinite ``mde`` becomes None)."""
        d = {
            "result": "PlanResult",
            "a": self.a,
            "b": self.b,
            "metric": self.metric,
            "higher_is_better": self.higher_is_better,
            "improvement": self.improvement,
            "n_cases": self.n_cases,
            "n_groups": self.n_groups,
            "n_strata": self.n_strata,
            "unit": self.unit,
            "test": self.test,
            "practical_threshold": self.practical_threshold,
            "method": self.method,
            "power": self.power,
            "alpha": self.alpha,
            "alternative": self.alternative,
            "effect": self.effect,
            "planned_n_cases": self.planned_n_cases,
            "mde": self.mde,
            "n_cases_needed": self.n_cases_needed,
            "n_groups_needed": self.n_groups_needed,
            "standard_error": self.standard_error,
            "sd_diff": self.sd_diff,
            "design_effect": self.design_effect,
            "icc": self.icc,
            "discordant_rate": self.discordant_rate,
            "n_simulations": self.n_simulations,
            "seed": self.seed,
            "stream": self.stream,
            "missing": self.missing.to_dict(),
        }
        out: dict[str, Any] = _jsonable(d)
        return out

    def to_frame(self, improvements: Any = None) -> pd.DataFrame:
        """Return the power curve: one row per improvement.

        Columns ``improvement``, ``n_cases`` and ``power``.

        Parameters
        ----------
        improvements : array_like, optional
            Default: 41 points from 0 to twice the larger of ``mde`` and ``effect``.
        """
        x = self._effect_grid(41) if improvements is None else np.asarray(improvements, float)
        return pd.DataFrame(
            {
                "improvement": x,
                "n_cases": self.planned_n_cases,
                "power": np.asarray(self.power_at(x), dtype=np.float64).reshape(x.shape),
            }
        )

    def _effect_grid(self, n: int) -> np.ndarray:
        top = max(
            v for v in (self.mde, self.effect or 0.0, self.standard_error) if math.isfinite(v)
        )
        lo = -2.0 * top if self.alternative == "two-sided" else 0.0
        return np.linspace(lo, 2.0 * top, n)

    def _rows(self) -> list[tuple[str, str]]:
        arrow = "higher is better" if self.higher_is_better else "lower is better"
        rows = [
            ("Comparison", f"{self.a} vs {self.b}, {self.metric} ({arrow})"),
            ("Observed improvement", _fmt(self.improvement, signed=True)),
        ]
        design = f"{self.n_cases} cases"
        if self.n_groups is not None:
            design += f" in {self.n_groups} groups"
        if self.n_strata is not None:
            design += f", {self.n_strata} strata"
        rows.append(("Design", design))
        if self.sd_diff is not None:
            rows.append(("SD of paired differences", _fmt(self.sd_diff)))
        if self.design_effect is not None and self.n_groups is not None:
            icc = "" if self.icc is None else f" (ICC {_fmt(self.icc, digits=3)})"
            rows.append(("Design effect", _fmt(self.design_effect, digits=3) + icc))
        if self.discordant_rate is not None:
            rows.append(("Discordant cases", f"{100 * self.discordant_rate:.3g}%"))
        rows.append(("Standard error now", _fmt(self.standard_error)))
        how = (
            self.method
            if self.n_simulations is None
            else (f"simulation ({self.n_simulations} per size, seed {self.seed})")
        )
        rows.append(("Test", f"{_TESTS.get(self.test, self.test)}; {self.alternative}, "
                             f"alpha {self.alpha:g}; {how}"))  # fmt: skip
        if self.practical_threshold > 0:
            rows.append(("Decision planned", f"interval beyond the practical threshold "
                                             f"{_fmt(self.practical_threshold)}"))  # fmt: skip
        if self.n_simulations is not None:
            size = float(self.power_at(0.0, self.n_cases))
            note = "" if size <= 1.5 * self.alpha + 0.01 else (
                "; above alpha: the test is miscalibrated on data like these"
            )  # fmt: skip
            rows.append(("Rejections with no effect", f"{size:.3f} now{note}"))
        mde = "none reaches it" if not math.isfinite(self.mde) else _fmt(self.mde)
        rows.append(
            (f"Detectable at {self.power:.0%} power", f"{mde} with {self.planned_n_cases} cases")
        )
        if self.effect is not None:
            if self.n_cases_needed is None:
                need = "not reachable"
            else:
                need = f"{self.n_cases_needed} cases"
                if self.n_groups_needed is not None:
                    need += f" ({self.n_groups_needed} groups)"
            rows.append((f"Needed for {_fmt(self.effect, signed=True)}", need))
            rows.append(
                (
                    f"Power now at {_fmt(self.effect, signed=True)}",
                    f"{self.power_at(self.effect, self.n_cases):.3f} with {self.n_cases} cases",
                )
            )
        rows.append(("Missing outcomes", self.missing.describe()))
        return rows

    def to_markdown(self, *, heading: str = "#", image: str | None = None) -> str:
        """Return the plan as Markdown: a table (labels escaped) and the power curves' image.

        Parameters
        ----------
        heading : str, default "#"
            The heading marks of the section.
        image : str, optional
            Path (relative to the Markdown file) of the saved power curves
            (``pdpaired plan --report`` saves them next to the report), linked
            below the table.

        Returns
        -------
        str

        Examples
        --------
        >>> from pdpaired.datasets import load_digits_cv
        >>> p = load_digits_cv().paired(score="correct").compare(
        ...     "knn", "logreg", higher_is_better=True).plan(effect=0.005)
        >>> print(p.to_markdown(image="power.png").splitlines()[0])
        # Planning a paired comparison: knn vs logreg
        """
        lines = [f"{heading} Planning a paired comparison: {_md(self.a)} vs {_md(self.b)}", "",
                 "| quantity | value |", "|---|---|"]  # fmt: skip
        lines += [f"| {_md(k)} | {_md(v)} |" for k, v in self._rows()]
        lines += [
            "",
            "Power is the chance that the planned test decides for A (or for B, two-sided) "
            "when the true improvement is the one on the curve; the design (the spread of the "
            "paired differences, the groups' design effect, the strata) is the observed one.",
            "",
        ]
        if image is not None:
            lines += [f"![power curves]({image})", ""]
        return "\n".join(lines)

    def __str__(self) -> str:
        rows = self._rows()
        width = max(len(k) for k, _ in rows) + 3
        return "Planning a paired comparison\n" + "\n".join(f"{k:<{width}}{v}" for k, v in rows)

    def _repr_html_(self) -> str:
        body = "".join(
            f"<tr><th style='text-align:left'>{html.escape(k)}</th>"
            f"<td style='text-align:left'>{html.escape(v)}</td></tr>"
            for k, v in self._rows()
        )
        from matplotlib.figure import Figure  # lazily; not pyplot: displaying leaks no figure

        fig = Figure(figsize=(9, 3.4), layout="constrained")
        ax1, ax2 = fig.subplots(1, 2)
        self.plot(ax=ax1)
        self.plot(ax=ax2, x="cases")
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=80)
        data = base64.b64encode(buf.getvalue()).decode()
        img = f"<img alt='power curves' src='data:image/png;base64,{data}'/>"
        return (
            "<div class='pdpaired-plan'><table class='pdpaired-result'>"
            f"<caption>Planning a paired comparison</caption>{body}</table>{img}</div>"
        )

    # -- plot --------------------------------------------------------------------------
    def plot(self, ax: Axes | None = None, *, x: str = "improvement") -> Axes:
        """Draw the power curve.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Axes to draw on; when None, the current Axes of pyplot
            (``plt.gca()``), so the plot shows inline in Jupyter.
        x : {"improvement", "cases"}
            ``"improvement"``: power against the true improvement at
            ``planned_n_cases`` (the ``mde`` marked); ``"cases"``: power
            against the number of cases at ``effect`` (or at ``mde`` when no
            effect was given), ``n_cases_needed`` marked.

        Returns
        -------
        matplotlib.axes.Axes
        """
        if x not in ("improvement", "cases"):
            msg = f"`x` must be 'improvement' or 'cases'; got {x!r}."
            raise ValueError(msg)
        if ax is None:
            import matplotlib.pyplot as plt  # lazily: only when asked to draw

            ax = plt.gca()
        ax.axhline(self.power, color="0.5", lw=1, ls=":", label=f"target power {self.power:g}")
        ax.axhline(self.alpha, color="0.7", lw=1, ls="--")
        if x == "improvement":
            grid = self._effect_grid(81 if self.n_simulations is None else 41)
            ax.plot(grid, self.power_at(grid), color="C0", lw=1.6,
                    label=f"power with {self.planned_n_cases} cases")  # fmt: skip
            if math.isfinite(self.mde):
                ax.axvline(self.mde, color="C3", lw=1, ls="--",
                           label=f"MDE {_fmt(self.mde, digits=3)}")  # fmt: skip
            ax.set_xlabel(plot_text(f"true improvement of {self.a} over {self.b}"))
        else:
            delta = self.effect if self.effect is not None else self.mde
            top = max(self.n_cases_needed or 0, self.planned_n_cases, self.n_cases) * 1.6
            n_points = 40 if self.n_simulations is None else 10
            sizes = np.unique(np.linspace(max(4, top / n_points), top, n_points).astype(int))
            if math.isfinite(delta):
                pw = [float(self.power_at(delta, int(n))) for n in sizes]
                ax.plot(sizes, pw, color="C0", lw=1.6, marker=None if n_points > 20 else "o",
                        ms=3, label=f"power at {_fmt(delta, True, 3)}")  # fmt: skip
            if self.n_cases_needed is not None:
                ax.axvline(self.n_cases_needed, color="C3", lw=1, ls="--",
                           label=f"needed: {self.n_cases_needed} cases")  # fmt: skip
            ax.axvline(self.n_cases, color="0.3", lw=1, ls="-.", label=f"now: {self.n_cases}")
            ax.set_xlabel("cases")
        ax.set_ylim(0, 1.02)
        ax.set_ylabel("power")
        test = {"exact_binomial": "exact binomial", "t": "t"}.get(self.test, self.test)
        beyond = ""
        if self.practical_threshold > 0:
            beyond = f" (interval beyond {_fmt(self.practical_threshold, digits=3)})"
        ax.set_title(f"Power: {test} test{beyond}, alpha {self.alpha:g}", fontsize="medium")
        ax.legend(loc="lower right", fontsize="small")
        return ax
