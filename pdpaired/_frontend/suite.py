"""The suite form of the ``paired`` accessors: ``suite``, one comparison per task, pooled.

:class:`SuiteForms` asks the front end's ``_split_tasks`` hook for one
accessor per task (the task's rows, the same column configuration), pairs
``a`` with ``b`` within each task, and hands them to
:func:`pdpaired.analysis.suite.run_suite`. It is a mixin over
:class:`~pdpaired._frontend.base.FrontEndBase` and keeps no state.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from pdpaired._frontend.base import FrontEndBase
from pdpaired._lib.docs import compose
from pdpaired._lib.progress import with_progress
from pdpaired._lib.validation import check_model_names

if TYPE_CHECKING:  # the analysis layer loads on the first analysis, not at import
    from pdpaired.analysis.suite_result import SuiteResult
    from pdpaired.core.metrics import Metric

__all__ = ["SuiteForms"]


class SuiteForms(FrontEndBase):
    """``suite`` of the ``paired`` accessors (no state of its own)."""

    @with_progress
    @compose
    def suite(
        self,
        a: Any,
        b: Any,
        *,
        task: str | None = None,
        tau2: str = "reml",
        random_ci: str = "hksj",
        metric: str | Metric = "mean",
        higher_is_better: bool | None = None,
        missing: str = "error",
        fill_value: float | None = None,
        class_labels: Sequence[Any] | None = None,
        threshold: float = 0.5,
        n_resamples: int = 10_000,
        confidence_level: float = 0.95,
        method: str = "auto",
        rng: int | np.random.Generator | None = None,
        unit: str | None = None,
        weighting: str = "item",
        stratified: bool | None = None,
        stratum_weights: Mapping[Any, float] | pd.Series | None = None,
        practical_threshold: float = 0.0,
        noninferiority_margin: float | None = None,
        batch: int | None = None,
    ) -> SuiteResult:
        """Compare two models on each task of a suite and pool the improvements across tasks.

        The rows of each value of the ``task`` column are one task: A and
        B are paired case by case within it and bootstrapped with its own
        design (its group and stratum columns, every bootstrap keyword),
        giving the task's improvement and bootstrap standard error. The
        tasks are independent, and the improvements are pooled as in a
        meta-analysis: the fixed-effect mean (inverse-variance weights: the
        improvement common to these tasks if they share one), the
        random-effects mean (the average improvement over a population of
        tasks, with the between-task variance ``tau2``), a prediction
        interval for an unseen task (Higgins, Thompson & Spiegelhalter,
        2009: ``t`` with ``k - 2`` degrees of freedom and
        ``sqrt(tau2 + SE**2)``), Cochran's Q and I², and simultaneous
        per-task intervals (``improvement ± z SE`` at the Šidák level
        ``confidence_level ** (1 / k)`` each, exact for independent normal
        estimates). The fixed-effect interval is normal; the
        random-effects interval is by default Hartung-Knapp-Sidik-Jonkman's
        (``random_ci``), as ``statsmodels.stats.meta_analysis.combine_effects``
        computes them.

        Each task is bootstrapped on its own stream, derived from ``rng``
        and the task's column and value (``stream`` in :attr:`SuiteResult.tasks
        <pdpaired.SuiteResult.tasks>`), so a task's numbers do not depend on
        the other tasks or on the row order.

        The task column can be configured with the other columns,
        ``df.paired(task="task").suite(...)``, or passed to ``suite``; only
        this analysis reads it, and every other analysis keeps treating the
        table as one comparison.

        Parameters
        ----------
        a, b : str
            Model names (A is the candidate).
        task : str, optional
            The column naming each row's task; at least two tasks. Default:
            the ``task`` of the accessor's configuration
            (``df.paired(task=...)``), else the column ``task``. A task's
            cases are paired within the task, so a case id may recur in
            several tasks.
        tau2 : {"reml", "dl"}, default "reml"
            Estimator of the between-task variance: restricted maximum
            likelihood, or DerSimonian and Laird's moment estimator (both
            truncated at 0).
        random_ci : {"hksj", "wald"}, default "hksj"
            Interval of the random-effects mean: Hartung-Knapp-Sidik-Jonkman
            (``t`` with ``k - 1`` degrees of freedom and a standard error
            scaled by the weighted residuals; close to its level with few
            tasks) or Wald (normal, ``mean ± z SE``; covers below its level
            with few tasks, e.g. about 91% for a 95% interval with 8 tasks).
        ${compare_params}
        ${bootstrap_params}
        ${progress_param}

        Returns
        -------
        SuiteResult

        Raises
        ------
        ValueError
            Fewer than two tasks, a missing task value, or a task whose
            comparison fails or whose standard error is 0 (the message names
            the task).

        Examples
        --------
        >>> import numpy as np, pandas as pd
        >>> import pdpaired
        >>> rng = np.random.default_rng(0)
        >>> rows = []
        >>> for t, lift in enumerate([0.02, 0.05, 0.08, 0.03]):
        ...     p = rng.uniform(0.3, 0.8, 150)
        ...     rows.append(pd.DataFrame({
        ...         "task": f"t{t}", "case_id": np.repeat(np.arange(150), 2),
        ...         "model": ["new", "old"] * 150,
        ...         "score": (rng.random(300) < np.repeat(p, 2) + [lift, 0] * 150) * 1.0}))
        >>> df = pd.concat(rows, ignore_index=True)
        >>> res = df.paired(task="task").suite(
        ...     "new", "old", higher_is_better=True, rng=0, n_resamples=1000)
        >>> res.n_tasks, res.tau2_method, res.to_frame()["row"].tolist()[-3:]
        (4, 'reml', ['fixed', 'random', 'prediction'])
        """
        check_model_names(a, b)
        from pdpaired.analysis.suite import run_suite

        compare_kw = {
            "metric": metric, "higher_is_better": higher_is_better, "missing": missing,
            "fill_value": fill_value, "class_labels": class_labels, "threshold": threshold,
        }  # fmt: skip

        def maker(front: Any) -> Any:
            return lambda: front.compare(a, b, **compare_kw)

        column = task if task is not None else (self._spec.get("task") or "task")
        tasks = [(label, maker(front)) for label, front in self._split_tasks(column)]
        return run_suite(
            tasks, task_column=column, tau2=tau2, random_ci=random_ci, rng=rng, bootstrap_kw={
                "n_resamples": n_resamples, "confidence_level": confidence_level,
                "method": method, "unit": unit, "weighting": weighting,
                "stratified": stratified, "stratum_weights": stratum_weights,
                "practical_threshold": practical_threshold,
                "noninferiority_margin": noninferiority_margin, "batch": batch,
            },
        )  # fmt: skip
