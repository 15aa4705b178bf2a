"""The result of a suite of tasks: per-task improvements and their pooled effect.

:class:`SuiteResult` holds one row per task (its paired comparison, its
bootstrap standard error, its own and its simultaneous interval) and the
pooled estimates across tasks (fixed effect, random effects, prediction
interval for an unseen task, heterogeneity), with its text, HTML, dict and
frame views, a forest plot, a self-contained HTML page, its release gate
and its artifact
(``paired-suite-artifact/v1``, built by :mod:`pdpaired.artifacts.suite`),
which is why it sits above the artifacts layer. It never recomputes a
statistic.
"""

from __future__ import annotations

import html
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from pdpaired._lib.format import fmt as _fmt
from pdpaired._lib.format import jsonable as _jsonable
from pdpaired._lib.format import level_text
from pdpaired._lib.format import plot_text as _plot_text
from pdpaired._lib.format import printable as _printable
from pdpaired._lib.public import public
from pdpaired.artifacts.digests import content_digest, frame_sha256, ids_sha256, software_versions
from pdpaired.artifacts.suite import suite_body, suite_markdown
from pdpaired.artifacts.write import write_files
from pdpaired.results.base import ConfidenceInterval
from pdpaired.results.display import html_table, pfmt, plot_axes
from pdpaired.results.gate import FAIL_ON, GateResult
from pdpaired.results.html_report import (
    page,
    scroll,
    section,
    svg_figure,
    wrap,
    wrap_ticks,
    write_html,
)

if TYPE_CHECKING:
    import os

    from matplotlib.axes import Axes

    from pdpaired.analysis.comparison import Comparison

__all__ = ["TASK_COLUMNS", "SuiteResult"]

#: The columns of :attr:`SuiteResult.tasks`, in order.
TASK_COLUMNS = (
    "task", "n_cases", "metric_a", "metric_b", "improvement", "standard_error",
    "ci_low", "ci_high", "method", "simultaneous_low", "simultaneous_high",
    "weight_fixed", "weight_random", "stream",
)  # fmt: skip


_CI_NAMES = {"hksj": "Hartung-Knapp-Sidik-Jonkman (t, k - 1 df)", "wald": "Wald (normal)"}


@public
@dataclass(frozen=True, slots=True, kw_only=True)
class SuiteResult:
    """Paired comparison of two models on each task of a suite, and the pooled effect.

    Attributes
    ----------
    a, b : str
        Model names (A is the candidate).
    metric : str
    higher_is_better : bool
    task_column : str
        The column that names the tasks.
    tasks : pandas.DataFrame
        One row per task (sorted by task): ``task``, ``n_cases``,
        ``metric_a``, ``metric_b``, ``improvement`` (positive: A better),
        ``standard_error`` (the bootstrap's), ``ci_low`` / ``ci_high`` (the
        task's bootstrap interval), ``method``, ``simultaneous_low`` /
        ``simultaneous_high`` (``improvement ± z * standard_error`` at the
        Šidák level, so all tasks' intervals cover together), the pooling
        weights ``weight_fixed`` / ``weight_random`` and ``stream``.
    fixed : float
        Fixed-effect (inverse-variance weighted) mean of the improvements.
    fixed_se : float
    fixed_interval : ConfidenceInterval
    random : float
        Random-effects mean: the average improvement over a population of tasks.
    random_se : float
    random_interval : ConfidenceInterval
    prediction_interval : ConfidenceInterval or None
        Where the improvement of an unseen task is expected (None with two tasks).
    tau2 : float
        Between-task variance of the true improvements.
    tau2_method : str
        ``"reml"`` or ``"dl"``.
    random_ci : str
        How ``random_interval`` is made: ``"hksj"`` (Hartung-Knapp-Sidik-Jonkman,
        ``t`` with ``k - 1`` degrees of freedom) or ``"wald"`` (normal).
    q, q_df, q_pvalue : float, int, float
        Cochran's heterogeneity statistic, its degrees of freedom and chi-square p-value.
    i2 : float
        Share of the variation across tasks due to heterogeneity, ``max(0, (Q - df) / Q)``.
    confidence_level : float
    simultaneous_level : float
        The per-task level of the simultaneous intervals, ``confidence_level ** (1 / k)``.
    verdict : str
        From the random-effects interval: ``"a_better"``, ``"b_better"`` or ``"inconclusive"``.
    n_resamples : int
        Bootstrap replicates per task (the largest, with ``n_resamples="auto"``).
    seed : int or None
        The seed the user gave: the same call with ``rng=seed`` reproduces the result.
    noninferiority_margin : float or None
        The margin given to ``suite``: the ``"not-noninferior"`` gate reads
        the random-effects interval's low end against ``-margin``.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import pdpaired
    >>> rng = np.random.default_rng(1)
    >>> df = pd.concat([pd.DataFrame({
    ...     "task": t, "case_id": np.repeat(np.arange(80), 2), "model": ["A", "B"] * 80,
    ...     "score": rng.normal(0, 1, 160) + np.tile([lift, 0.0], 80)})
    ...     for t, lift in [("x", 0.3), ("y", 0.5), ("z", 0.4)]], ignore_index=True)
    >>> res = df.paired.suite("A", "B", higher_is_better=True, rng=0, n_resamples=500)
    >>> res.n_tasks, res.verdict, res.tau2_method
    (3, 'a_better', 'reml')
    >>> res.to_frame()["row"].tolist()
    ['task', 'task', 'task', 'fixed', 'random', 'prediction']
    """

    a: str
    b: str
    metric: str
    higher_is_better: bool
    task_column: str
    tasks: pd.DataFrame = field(repr=False, compare=False)
    fixed: float
    fixed_se: float
    fixed_interval: ConfidenceInterval
    random: float
    random_se: float
    random_interval: ConfidenceInterval
    prediction_interval: ConfidenceInterval | None
    tau2: float
    tau2_method: str
    random_ci: str = "wald"
    q: float
    q_df: int
    q_pvalue: float
    i2: float
    confidence_level: float
    simultaneous_level: float
    verdict: str
    n_resamples: int
    seed: int | None
    rng_state: dict[str, Any] | None = field(repr=False, compare=False)
    noninferiority_margin: float | None = None
    #: each task's comparison, in the order of ``tasks`` (what a local artifact digests)
    sources: tuple[Comparison, ...] = field(default=(), repr=False, compare=False)

    @property
    def n_tasks(self) -> int:
        """Number of tasks."""
        return len(self.tasks)

    def __repr__(self) -> str:
        return (
            f"SuiteResult(a={self.a!r}, b={self.b!r}, metric={self.metric!r}, "
            f"n_tasks={self.n_tasks}, random={self.random!r}, tau2={self.tau2!r}, "
            f"verdict={self.verdict!r})"
        )

    # -- views -----------------------------------------------------------------
    def to_frame(self) -> pd.DataFrame:
        """Return one row per task, then the pooled rows ``fixed``, ``random``, ``prediction``.

        Column ``row`` says which (``"task"`` for the tasks); the pooled rows
        have ``improvement``, ``standard_error`` (the prediction row:
        ``sqrt(tau2 + random_se**2)``), ``ci_low`` and ``ci_high``.
        """
        t = self.tasks.copy()
        t.insert(0, "row", "task")
        pi = self.prediction_interval
        pooled = pd.DataFrame(
            {
                "row": ["fixed", "random", "prediction"],
                "task": [pd.NA] * 3,
                "improvement": [self.fixed, self.random, self.random],
                "standard_error": [
                    self.fixed_se, self.random_se, (self.tau2 + self.random_se**2) ** 0.5,
                ],
                "ci_low": [self.fixed_interval.low, self.random_interval.low,
                           None if pi is None else pi.low],
                "ci_high": [self.fixed_interval.high, self.random_interval.high,
                            None if pi is None else pi.high],
            }
        )  # fmt: skip
        pooled["ci_low"] = pooled["ci_low"].astype(float)
        pooled["ci_high"] = pooled["ci_high"].astype(float)
        out = pd.concat([t, pooled], ignore_index=True)
        out["n_cases"] = out["n_cases"].astype("Int64")
        return out

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-safe dict (no NumPy scalars, no NaN)."""
        pi = self.prediction_interval
        d = {
            "result": "SuiteResult",
            "a": self.a,
            "b": self.b,
            "metric": self.metric,
            "higher_is_better": self.higher_is_better,
            "task_column": self.task_column,
            "n_tasks": self.n_tasks,
            "fixed": {"estimate": self.fixed, "standard_error": self.fixed_se,
                      "low": self.fixed_interval.low, "high": self.fixed_interval.high},
            "random": {"estimate": self.random, "standard_error": self.random_se,
                       "low": self.random_interval.low, "high": self.random_interval.high},
            "prediction_interval": None if pi is None else {"low": pi.low, "high": pi.high},
            "tau2": self.tau2,
            "tau2_method": self.tau2_method,
            "random_ci": self.random_ci,
            "q": self.q,
            "q_df": self.q_df,
            "q_pvalue": self.q_pvalue,
            "i2": self.i2,
            "confidence_level": self.confidence_level,
            "simultaneous_level": self.simultaneous_level,
            "verdict": self.verdict,
            "n_resamples": self.n_resamples,
            "seed": self.seed,
            "tasks": [
                {k: (str(v) if k == "task" else v) for k, v in row.items()}
                for row in self.tasks.to_dict(orient="records")
            ],
        }  # fmt: skip
        out: dict[str, Any] = _jsonable(d)
        return out

    def verdict_sentence(self) -> str:
        """Return the verdict on the random-effects mean as one sentence."""
        lvl = level_text(self.confidence_level)
        ci = self.random_interval
        where = f"{_fmt(self.random, True)}, {lvl} CI [{_fmt(ci.low, True)}, {_fmt(ci.high, True)}]"
        if self.verdict == "a_better":
            head = f"Across {self.n_tasks} tasks, {self.a} is better than {self.b} on average"
        elif self.verdict == "b_better":
            head = f"Across {self.n_tasks} tasks, {self.b} is better than {self.a} on average"
        else:
            head = f"Across {self.n_tasks} tasks, the average difference is inconclusive"
        text = f"{head} (random effects: {where})"
        pi = self.prediction_interval
        if pi is not None:
            text += (
                f"; on an unseen task the improvement is expected in "
                f"[{_fmt(pi.low, True)}, {_fmt(pi.high, True)}]"
            )
        return text + "."

    def _rows(self) -> list[tuple[str, str]]:
        lvl = level_text(self.confidence_level)
        rows = [
            (f"{self.task_column} = {r['task']} (n = {int(r['n_cases'])})",
             f"{_fmt(r['improvement'], True)} [{_fmt(r['ci_low'], True)}, "
             f"{_fmt(r['ci_high'], True)}], simultaneous [{_fmt(r['simultaneous_low'], True)}, "
             f"{_fmt(r['simultaneous_high'], True)}]")
            for _, r in self.tasks.iterrows()
        ]  # fmt: skip
        f, r, pi = self.fixed_interval, self.random_interval, self.prediction_interval
        rows += [
            ("fixed effect", f"{_fmt(self.fixed, True)} [{_fmt(f.low, True)}, "
             f"{_fmt(f.high, True)}]"),
            ("random effects", f"{_fmt(self.random, True)} [{_fmt(r.low, True)}, "
             f"{_fmt(r.high, True)}]"),
            ("prediction (unseen task)", "n/a (two tasks)" if pi is None
             else f"[{_fmt(pi.low, True)}, {_fmt(pi.high, True)}]"),
            (f"tau² ({self.tau2_method})", _fmt(self.tau2)),
            ("random-effects interval", _CI_NAMES[self.random_ci]),
            ("heterogeneity", f"Q = {_fmt(self.q)} on {self.q_df} df, p = {pfmt(self.q_pvalue)}, "
             f"I² = {100 * self.i2:.1f}%"),
            ("intervals", f"{lvl}; simultaneous per task at {100 * self.simultaneous_level:.2f}% "
             "each (Šidák)"),
            ("seed", "Generator" if self.seed is None else str(self.seed)),
        ]  # fmt: skip
        return rows

    def __str__(self) -> str:
        arrow = "higher is better" if self.higher_is_better else "lower is better"
        lines = [
            self.verdict_sentence(),
            f"Suite of {self.n_tasks} tasks, {self.a} vs {self.b}: {self.metric} ({arrow}); "
            "improvement > 0 means A is better",
        ]
        lines += [f"  {k}: {v}" for k, v in self._rows()]
        return "\n".join(_printable(line) for line in lines)  # labels are data

    def _repr_html_(self) -> str:
        caption = f"Suite: {self.a} vs {self.b} ({self.metric}, {self.n_tasks} tasks)"
        return html_table(caption, self._rows(), lead=self.verdict_sentence())

    def plot(self, ax: Axes | None = None) -> Axes:
        """Draw a forest plot: each task's interval, the pooled diamonds, the prediction interval.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Draw here; None draws on pyplot's current Axes.

        Returns
        -------
        matplotlib.axes.Axes
        """
        ax = plot_axes(ax, (6.4, 1.2 + 0.35 * (self.n_tasks + 3)))
        t = self.tasks
        k = len(t)
        ys = list(range(k + 2, 2, -1))
        for y, (_, r) in zip(ys, t.iterrows(), strict=True):
            ax.plot([r["simultaneous_low"], r["simultaneous_high"]], [y, y], color="0.7", lw=1)
            ax.plot([r["ci_low"], r["ci_high"]], [y, y], color="C0", lw=2)
            ax.plot([r["improvement"]], [y], "s", color="C0",
                    markersize=3 + 6 * float(r["weight_random"]) ** 0.5)  # fmt: skip
        for y, est, ci, color in (
            (2, self.fixed, self.fixed_interval, "C1"),
            (1, self.random, self.random_interval, "C3"),
        ):
            ax.fill([ci.low, est, ci.high, est], [y, y + 0.25, y, y - 0.25], color=color)
        pi = self.prediction_interval
        if pi is not None:
            ax.plot([pi.low, pi.high], [0, 0], color="C3", lw=2, ls="--")
        ax.axvline(0.0, color="0.3", lw=0.8)
        labels = [_plot_text(v) for v in t["task"]]  # labels are data: no mathtext
        ax.set_yticks([*ys, 2, 1, 0],
                      [*labels, "fixed effect", "random effects", "prediction"])  # fmt: skip
        ax.set_xlabel(_plot_text(f"improvement of {self.a} over {self.b} ({self.metric}; "
                                 "> 0: A better)"))  # fmt: skip
        ax.set_title(_plot_text(f"{self.a} vs {self.b}, {self.n_tasks} tasks"))
        return ax

    # -- release gate ----------------------------------------------------------------
    def gate(self, fail_on: str) -> GateResult:
        """Apply a release gate to the random-effects mean (``pdpaired compare --fail-on``).

        The gate reads the random-effects interval, the average improvement
        over a population of tasks like these (the suite's :attr:`verdict`):

        * ``"b-better"`` fails when it lies below 0 (verdict ``b_better``);
        * ``"not-a-better"`` fails unless it lies above 0 (verdict ``a_better``);
        * ``"not-noninferior"`` fails unless its low end is at least
          ``-noninferiority_margin`` (needs the margin given to ``suite``).

        It does not read the per-task intervals nor the prediction interval:
        a suite can pass while one task, or an unseen task, is worse.

        Parameters
        ----------
        fail_on : {"b-better", "not-a-better", "not-noninferior"}

        Returns
        -------
        GateResult

        Raises
        ------
        ValueError
            An unknown condition, or ``"not-noninferior"`` without a margin.

        Examples
        --------
        >>> import numpy as np, pandas as pd
        >>> import pdpaired
        >>> rng = np.random.default_rng(1)
        >>> df = pd.concat([pd.DataFrame({
        ...     "task": t, "case_id": np.repeat(np.arange(80), 2), "model": ["A", "B"] * 80,
        ...     "score": rng.normal(0, 1, 160) + np.tile([lift, 0.0], 80)})
        ...     for t, lift in [("x", 0.3), ("y", 0.5), ("z", 0.4)]], ignore_index=True)
        >>> res = df.paired.suite("A", "B", higher_is_better=True, rng=0, n_resamples=500)
        >>> res.gate("not-a-better").exit_code, res.gate("b-better").failed
        (0, False)
        """
        cond = fail_on.replace("_", "-") if isinstance(fail_on, str) else fail_on
        if cond not in FAIL_ON:
            msg = f"`fail_on` must be one of {', '.join(map(repr, FAIL_ON))}; got {fail_on!r}."
            raise ValueError(msg)
        ci = self.random_interval
        interval = (
            f"the {level_text(self.confidence_level)} random-effects interval of the mean "
            f"improvement over {self.n_tasks} tasks is [{_fmt(ci.low, True)}, "
            f"{_fmt(ci.high, True)}]"
        )
        if cond == "b-better":
            failed = self.verdict == "b_better"
            why = "B is better on average" if failed else "B is not shown better on average"
        elif cond == "not-a-better":
            failed = self.verdict != "a_better"
            why = "A is not shown better on average" if failed else "A is better on average"
        else:
            margin = self.noninferiority_margin
            if margin is None:
                msg = (
                    "`fail_on='not-noninferior'` needs a noninferiority margin "
                    "(noninferiority_margin=..., --noninferiority-margin on the command line)."
                )
                raise ValueError(msg)
            failed = not ci.low >= -margin
            why = (
                f"noninferiority (margin {margin:g}) is {'not shown' if failed else 'shown'}: "
                f"the interval's low end {_fmt(ci.low, True)} is "
                f"{'<' if failed else '>='} {-margin:g}"
            )
        reason = (
            f"Verdict {self.verdict} ({self.a} vs {self.b}, random effects); {interval}. "
            f"{why[0].upper()}{why[1:]}, so the gate " + ("fails." if failed else "passes.")
        )
        return GateResult(fail_on=cond, failed=failed, exit_code=int(failed),
                          verdict=self.verdict, reason=reason)  # fmt: skip

    # -- artifacts (paired-suite-artifact/v1) ------------------------------------------
    def _local_block(self, inputs: Sequence[Mapping[str, str]] | None) -> dict[str, Any]:
        if len(self.sources) != self.n_tasks:
            msg = "this SuiteResult holds no comparisons to digest (it was not built by pdpaired)."
            raise ValueError(msg)
        tasks = []
        for label, cmp in zip(self.tasks["task"], self.sources, strict=True):
            table = cmp.canonical_table()
            tasks.append({"task": str(label), "aligned_ids_sha256": ids_sha256(table.index),
                          "table_sha256": frame_sha256(table)})  # fmt: skip
        given = (
            [] if inputs is None
            else [{str(k): v if isinstance(v, (list, dict)) else str(v) for k, v in x.items()}
                  for x in inputs]
        )  # fmt: skip
        return {"inputs": given, "tasks": tasks, "seed": self.seed}

    def to_artifact(
        self, kind: str = "local", *, inputs: Sequence[Mapping[str, str]] | None = None
    ) -> dict[str, Any]:
        """Return the suite's artifact (``paired-suite-artifact/v1``), with its digest.

        It records the models, the metric, the task column, the settings
        (levels, ``tau2`` estimator, resamples, seed, margin), one entry per
        task (its numbers as in :attr:`tasks`) and the pooled block;
        :func:`pdpaired.verify` recomputes the pooled block from the
        per-task estimates and standard errors.

        Parameters
        ----------
        kind : {"local", "shareable"}
            ``"shareable"`` holds aggregates only (task labels, counts and
            the numbers above); ``"local"`` adds, per task, the SHA-256 of
            its analysed table (``table_sha256``) and of its sorted case ids
            (``aligned_ids_sha256``), and the input files' digests.
        inputs : list of dict, optional
            Local artifact: ``{"path", "sha256"}`` of each input file (the
            command line passes them).

        Returns
        -------
        dict
            JSON-safe.

        Examples
        --------
        >>> import numpy as np, pandas as pd
        >>> import pdpaired
        >>> rng = np.random.default_rng(1)
        >>> df = pd.concat([pd.DataFrame({
        ...     "task": t, "case_id": np.repeat(np.arange(80), 2), "model": ["A", "B"] * 80,
        ...     "score": rng.normal(0, 1, 160) + np.tile([lift, 0.0], 80)})
        ...     for t, lift in [("x", 0.3), ("y", 0.5), ("z", 0.4)]], ignore_index=True)
        >>> res = df.paired.suite("A", "B", higher_is_better=True, rng=0, n_resamples=500)
        >>> art = res.to_artifact("shareable")
        >>> art["artifact"], [t["task"] for t in art["tasks"]], art["pooled"]["verdict"]
        ('paired-suite-artifact/v1', ['x', 'y', 'z'], 'a_better')
        """
        if kind not in ("local", "shareable"):
            msg = f"`kind` must be 'local' or 'shareable'; got {kind!r}."
            raise ValueError(msg)
        art = suite_body(self, kind, software=software_versions(),
                         local=self._local_block(inputs) if kind == "local" else None)  # fmt: skip
        art["digest"] = content_digest(art)
        return art

    def to_markdown(self) -> str:
        """Return the Markdown report (``comparison.md``): tasks, pooled rows; labels escaped."""
        return suite_markdown(self)

    def save(
        self,
        directory: str | os.PathLike[str],
        *,
        inputs: Sequence[Mapping[str, str]] | None = None,
    ) -> dict[str, Path]:
        """Write ``comparison.json``, ``comparison.shareable.json`` and ``comparison.md``.

        The same files as :meth:`pdpaired.ComparisonReport.save`, written the
        same way (atomically, all or none), holding the suite's artifact
        (:meth:`to_artifact`).

        Parameters
        ----------
        directory : str or path-like
            Created if needed.
        inputs : list of dict, optional
            The input files' ``{"path", "sha256"}`` for the local artifact.

        Returns
        -------
        dict
            ``{"local": path, "shareable": path, "markdown": path}``.
        """
        out = Path(directory)

        def dump(art: dict[str, Any]) -> str:
            return json.dumps(art, indent=2, sort_keys=True, ensure_ascii=False,
                              allow_nan=False) + "\n"  # fmt: skip

        texts = {
            "local": (out / "comparison.json", dump(self.to_artifact("local", inputs=inputs))),
            "shareable": (out / "comparison.shareable.json", dump(self.to_artifact("shareable"))),
            "markdown": (out / "comparison.md", self.to_markdown()),
        }
        write_files(out, list(texts.values()))
        return {k: v[0] for k, v in texts.items()}

    def to_html(self, path: str | os.PathLike[str] | None = None) -> str:
        """Return the suite as one self-contained HTML page; write it to ``path`` if given.

        As :meth:`pdpaired.ComparisonReport.to_html`: no network, no script,
        the forest plot inline as SVG, every label escaped. The verdict on
        the average improvement comes first in words, then the forest plot,
        the per-task and pooled numbers, and the provenance: the shareable
        artifact (:meth:`to_artifact`, aggregates per task, no case ids) with
        the command that verifies it. The page holds nothing that artifact
        does not hold.

        Parameters
        ----------
        path : str or path-like, optional
            Write the page here, atomically; its directory must exist.

        Returns
        -------
        str
            The HTML document.

        Examples
        --------
        >>> import numpy as np, pandas as pd
        >>> import pdpaired
        >>> rng = np.random.default_rng(1)
        >>> df = pd.concat([pd.DataFrame({
        ...     "task": t, "case_id": np.repeat(np.arange(80), 2), "model": ["A", "B"] * 80,
        ...     "score": rng.normal(0, 1, 160) + np.tile([lift, 0.0], 80)})
        ...     for t, lift in [("x", 0.3), ("y", 0.5), ("z", 0.4)]], ignore_index=True)
        >>> res = df.paired.suite("A", "B", higher_is_better=True, rng=0, n_resamples=500)
        >>> page = res.to_html()
        >>> page.startswith("<!DOCTYPE html>"), "<script" in page, "<svg" in page
        (True, False, True)
        """
        caption = f"Suite: {self.a} vs {self.b} ({self.metric}, {self.n_tasks} tasks)"
        alt = (
            f"Forest plot of {self.n_tasks} tasks: each task's interval, the pooled "
            "fixed-effect and random-effects estimates and the prediction interval"
        )

        def draw(ax: Axes) -> None:
            self.plot(ax=ax)
            wrap_ticks(ax)
            ax.set_xlabel(wrap(ax.get_xlabel(), 48))
            ax.set_title(wrap(ax.get_title(), 48))

        figure = svg_figure(draw,
                            figsize=(5.5, 1.3 + 0.35 * (self.n_tasks + 3)), alt=alt,
                            caption=alt + "; grey: the simultaneous intervals.")  # fmt: skip
        record = json.dumps(self.to_artifact("shareable"), indent=2, sort_keys=True,
                            ensure_ascii=False, allow_nan=False)  # fmt: skip
        table = scroll(html_table(caption, self._rows()))
        sections = [
            section("Tasks and the pooled effect", figure, table, slug="suite"),
            section(
                "Provenance",
                "<p>The same call with the same data and <code>rng=seed</code> reproduces every "
                "number. The record below is the suite's shareable artifact: aggregates per "
                "task, no case ids, no per-case values. Save it as "
                "<code>comparison.shareable.json</code> and run <code>pdpaired verify "
                "comparison.shareable.json</code>: it recomputes the pooled effects, "
                "&tau;&sup2; and the prediction interval from the per-task numbers.</p>",
                f"<details><summary>The shareable artifact</summary>\n"
                f"<pre>{html.escape(record)}</pre></details>",
                slug="provenance",
            ),
        ]
        title = f"Suite of {self.n_tasks} tasks: {self.a} vs {self.b}"
        return write_html(page(title, self.verdict_sentence(), sections), path)
