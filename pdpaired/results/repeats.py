"""Results of repeated runs: what the runs were, and the split of the variance.

:class:`RunSummary` records how a table with several rows per (case, model)
(``df.paired(repeat="sample")``) became one score per case: the runs read,
the missing runs and what the missing-outcome policy did with them.
:class:`VarianceComponents` is what ``Comparison.variance_components()``
returns: the variance of the per-case improvement split into the part that
differs between cases and the run-to-run part, and the standard error of the
improvement for any number of cases and runs.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from pdpaired._lib.format import fmt, jsonable, printable
from pdpaired._lib.public import public

__all__ = ["RunSummary", "VarianceComponents"]


@public
@dataclass(frozen=True, slots=True, kw_only=True)
class RunSummary:
    """How the runs of each (case, model) were read and averaged.

    Attributes
    ----------
    repeat : str
        ``"sample"``: each run is an independent sample of the model's output
        on the case (temperature sampling, epochs, seeds of the decoder).
    column : str
        The run id column.
    policy : str
        The missing-outcome policy, applied to missing runs (NaN scores).
    n_runs_a, n_runs_b : int
        Runs averaged into the analysed cases' scores, per model (filled runs
        included).
    min_runs_a, max_runs_a, min_runs_b, max_runs_b : int
        Fewest and most runs of a model on an analysed case.
    n_missing_runs_a, n_missing_runs_b : int
        Runs with a NaN score, per model (missing outcomes at the run level).
    n_runs_dropped : int
        Missing runs dropped (``"complete-case"``); a case left with no run
        for a model is then a missing outcome of that model, counted in the
        result's ``missing``.
    n_runs_filled : int
        Missing runs given ``fill_value`` (``"as-failure"``).
    fill_value : float or None
    """

    repeat: str
    column: str
    policy: str
    n_runs_a: int
    n_runs_b: int
    min_runs_a: int
    max_runs_a: int
    min_runs_b: int
    max_runs_b: int
    n_missing_runs_a: int = 0
    n_missing_runs_b: int = 0
    n_runs_dropped: int = 0
    n_runs_filled: int = 0
    fill_value: float | None = None

    def describe(self) -> str:
        """Return the runs in one line.

        Examples
        --------
        >>> from pdpaired.results.repeats import RunSummary
        >>> RunSummary(repeat="sample", column="run", policy="error", n_runs_a=30, n_runs_b=20,
        ...            min_runs_a=3, max_runs_a=3, min_runs_b=2, max_runs_b=2).describe()
        '30 runs of A (3 per case), 20 of B (2 per case), column run; no missing runs'
        """

        def per(lo: int, hi: int) -> str:
            return f"{lo} per case" if lo == hi else f"{lo}-{hi} per case"

        text = (
            f"{self.n_runs_a} runs of A ({per(self.min_runs_a, self.max_runs_a)}), "
            f"{self.n_runs_b} of B ({per(self.min_runs_b, self.max_runs_b)}), "
            f"column {self.column}"
        )
        n_missing = self.n_missing_runs_a + self.n_missing_runs_b
        if not n_missing:
            return text + "; no missing runs"
        what = f"{self.n_missing_runs_a} missing runs of A, {self.n_missing_runs_b} of B"
        if self.n_runs_dropped:
            return f"{text}; {what}, dropped (policy complete-case)"
        fill = "" if self.fill_value is None else f" with {self.fill_value:g}"
        return f"{text}; {what}, filled{fill} (policy as-failure)"

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
class VarianceComponents:
    """The variance of the per-case improvement, split into between-case and run-to-run parts.

    With ``d_i`` the improvement on case ``i`` (A's mean over its ``R_ia``
    runs minus B's over ``R_ib``, direction adjusted), the one-way random
    effects model ``d_i = delta + u_i + e_ia - e_ib`` gives
    ``Var(d_i) = between + within_a / R_ia + within_b / R_ib`` and the
    variance of the mean improvement over ``n`` cases
    ``(between + within_a / R_a + within_b / R_b) / n`` (Miller 2024, with
    ``within = within_a + within_b`` when both models have ``R`` runs).

    Attributes
    ----------
    a, b : str
    metric : str
    higher_is_better : bool
    improvement : float
        Mean of the per-case improvements (the comparison's improvement with
        every case weighted equally).
    n_cases : int
    between : float
        Between-case variance of the true per-case improvement (method of
        moments: the variance of the case means minus its expected run
        noise; unbiased, so it can come out negative when the cases barely
        differ beyond their run noise -- read it as 0 then).
    within_a, within_b : float
        Run-to-run variance of a single run of A (resp. B) on a case: the
        pooled within-case variance (one-way ANOVA mean square within;
        unequal runs allowed), from the cases with at least two runs. NaN
        when no case has two runs of that model.
    within : float
        ``within_a + within_b``: the run-to-run variance of the difference of
        one run of A and one of B.
    var_case_improvement : float
        Sample variance (``ddof=1``) of the per-case improvements, whose
        expectation is ``between`` plus the average run noise of a case.
    runs_a, runs_b : float
        Harmonic mean of the runs per case of each model (the ``R`` of the
        formulas).
    standard_error : float
        ``sqrt(var_case_improvement / n_cases)``: the standard error of the
        mean improvement over cases resampled iid (what the one-stage
        bootstrap estimates).
    share_within : float
        Part of ``var_case_improvement`` the runs account for (the run noise
        of a case mean over its variance; more runs per case shrink it).
    runs : RunSummary
    """

    a: str
    b: str
    metric: str
    higher_is_better: bool
    improvement: float
    n_cases: int
    between: float
    within_a: float
    within_b: float
    within: float
    var_case_improvement: float
    runs_a: float
    runs_b: float
    standard_error: float
    share_within: float
    runs: RunSummary = field(repr=False)

    def se_at(self, n_cases: int | None = None, runs: float | None = None) -> float:
        """Return the SE of the mean improvement with ``n_cases`` cases and ``runs`` runs each.

        ``sqrt((between + within_a / runs + within_b / runs) / n_cases)``,
        ``between`` read as 0 when negative. Defaults: the observed number
        of cases and each model's observed (harmonic mean) runs per case.

        Parameters
        ----------
        n_cases : int, optional
        runs : float, optional
            Runs per case of each model.

        Returns
        -------
        float
        """
        n = self.n_cases if n_cases is None else int(n_cases)
        if n < 1:
            msg = f"`n_cases` must be >= 1; got {n_cases!r}."
            raise ValueError(msg)
        if runs is not None and not runs > 0:
            msg = f"`runs` must be > 0; got {runs!r}."
            raise ValueError(msg)
        r_a = self.runs_a if runs is None else float(runs)
        r_b = self.runs_b if runs is None else float(runs)
        within = _zero_if_nan(self.within_a) / r_a + _zero_if_nan(self.within_b) / r_b
        return math.sqrt((max(self.between, 0.0) + within) / n)

    def __repr__(self) -> str:
        return (
            f"VarianceComponents(a={self.a!r}, b={self.b!r}, n_cases={self.n_cases}, "
            f"between={self.between:.6g}, within_a={self.within_a:.6g}, "
            f"within_b={self.within_b:.6g}, runs_a={self.runs_a:.4g}, runs_b={self.runs_b:.4g}, "
            f"standard_error={self.standard_error:.6g})"
        )

    def _rows(self) -> list[tuple[str, str]]:
        return [
            ("Models", f"A ({self.a}) over B ({self.b}), {self.n_cases} cases"),
            ("Improvement (mean over cases)", fmt(self.improvement, signed=True)),
            ("Between cases (variance)", fmt(self.between)),
            ("Run to run, A (variance of one run)", fmt(self.within_a)),
            ("Run to run, B (variance of one run)", fmt(self.within_b)),
            ("Runs per case (harmonic mean)", f"A {self.runs_a:.3g}, B {self.runs_b:.3g}"),
            ("Variance of a case's improvement", fmt(self.var_case_improvement)),
            ("Share from run noise", f"{100 * self.share_within:.1f}%"),
            ("Standard error of the improvement", fmt(self.standard_error)),
            ("Runs", self.runs.describe()),
        ]

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
            "<div class='pdpaired-result'><table><caption>Variance components of the "
            f"improvement</caption>{body}</table></div>"
        )

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-safe dict (NaN becomes None)."""
        d = {name: getattr(self, name) for name in self.__dataclass_fields__ if name != "runs"}
        d["runs"] = self.runs.to_dict()
        out: dict[str, Any] = jsonable({"result": "VarianceComponents", **d})
        return out

    def to_frame(self) -> pd.DataFrame:
        """Return one row per component: its variance and its part of a case's variance.

        ``component`` is ``"between"``, ``"within_a"`` and ``"within_b"``;
        ``per_case`` is the component's contribution to the variance of one
        case's improvement (a run-to-run variance divided by the runs per
        case) and ``share`` that contribution over their sum.
        """
        parts = {
            "between": (self.between, max(self.between, 0.0)),
            "within_a": (self.within_a, _zero_if_nan(self.within_a) / self.runs_a),
            "within_b": (self.within_b, _zero_if_nan(self.within_b) / self.runs_b),
        }
        total = sum(p for _, p in parts.values())
        return pd.DataFrame(
            {
                "component": list(parts),
                "variance": [v for v, _ in parts.values()],
                "per_case": [p for _, p in parts.values()],
                "share": [p / total if total > 0 else float("nan") for _, p in parts.values()],
            }
        )


def _zero_if_nan(x: float) -> float:
    return 0.0 if math.isnan(x) else x
