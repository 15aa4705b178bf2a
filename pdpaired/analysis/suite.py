"""A suite of tasks: the paired comparison within each task, pooled across tasks.

The front end's ``suite`` splits the table by its task column and hands
:func:`run_suite` one way to build each task's :class:`~pdpaired.Comparison`
(the task's rows, with its own group and stratum columns, so the item-level
pairing is kept). Each task is bootstrapped on its own derived stream
(family ``suite`` of :mod:`pdpaired._lib.rng`, addressed by the task column
and value, so a task's result does not depend on which other tasks exist),
:func:`pdpaired.core.suite.pool_tasks` pools the improvements with their
bootstrap standard errors, and this module assembles the
:class:`~pdpaired.SuiteResult`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from pdpaired._lib.rng import derived_seed, normalize_rng, slice_index, stream_name
from pdpaired._lib.validation import check_choice, check_confidence_level
from pdpaired.analysis.suite_result import TASK_COLUMNS, SuiteResult
from pdpaired.core.suite import RANDOM_CI_METHODS, TAU2_METHODS, pool_tasks
from pdpaired.results.base import ConfidenceInterval
from pdpaired.results.slices import slice_label

if TYPE_CHECKING:
    from pdpaired.analysis.comparison import Comparison

__all__ = ["run_suite", "task_seed"]


def task_seed(seed: int | np.random.Generator | None, task_column: str, task: Any) -> int:
    """Return the internal seed a task of a suite bootstraps with.

    The child ``("suite", digest of (task_column, task))`` of the root
    sequence of ``seed``, as :func:`pdpaired._lib.rng.derived_seed` makes it:
    running ``compare(...).bootstrap(rng=task_seed(...))`` on the task's rows
    alone reproduces the task's row of a suite.
    """
    root = normalize_rng(seed).seed_sequence
    return derived_seed(root, "suite", *slice_index(task_column, task))


def _named(task_column: str, label: Any, err: Exception) -> Exception:
    where = f"task {task_column}={slice_label(label)}"
    if isinstance(err, ValueError):
        return ValueError(f"{where}: {err}")
    err.add_note(f"(in {where})")
    return err


def run_suite(
    tasks: Sequence[tuple[Any, Callable[[], Comparison]]], *, task_column: str, tau2: Any,
    random_ci: Any = "hksj", rng: int | np.random.Generator | None, bootstrap_kw: Mapping[str, Any],
) -> SuiteResult:  # fmt: skip
    """Bootstrap each task's comparison on its own stream and pool the improvements.

    Parameters
    ----------
    tasks : sequence of (label, callable)
        Each task's label and a function that builds its comparison (called
        once; an error it raises is re-raised naming the task).
    task_column : str
        The column the labels come from (it names the tasks' streams).
    tau2 : {"reml", "dl"}
        Estimator of the between-task variance.
    random_ci : {"hksj", "wald"}, default "hksj"
        Interval of the random-effects mean (see
        :func:`pdpaired.core.suite.pool_tasks`).
    rng : int, numpy.random.Generator or None
        The user's ``rng``; each task reads the derived stream :func:`task_seed`.
    bootstrap_kw : mapping
        Every other keyword of :meth:`pdpaired.Comparison.bootstrap`.

    Returns
    -------
    SuiteResult
    """
    method = check_choice(tau2, "tau2", TAU2_METHODS)
    ci_method = check_choice(random_ci, "random_ci", RANDOM_CI_METHODS)
    level = check_confidence_level(bootstrap_kw.get("confidence_level", 0.95))
    if len(tasks) < 2:
        msg = (
            f"a suite needs at least 2 tasks in column {task_column!r}; got {len(tasks)}. "
            "With one task, use bootstrap() on its rows."
        )
        raise ValueError(msg)
    info = normalize_rng(rng)
    root = info.seed_sequence
    records: list[dict[str, Any]] = []
    first = None
    sources = []
    for label, make in tasks:
        words = slice_index(task_column, label)
        try:
            cmp = make()
            bs = cmp.bootstrap(**bootstrap_kw, rng=derived_seed(root, "suite", *words))
        except Exception as err:
            raise _named(task_column, label, err) from err
        se = float(bs.standard_error)
        if not (math.isfinite(se) and se > 0):
            msg = (
                f"task {task_column}={slice_label(label)}: the bootstrap standard error is "
                f"{se!r} (the improvement does not vary across resamples); inverse-variance "
                "pooling needs a positive standard error for every task."
            )
            raise ValueError(msg)
        first = first or bs
        sources.append(cmp)
        records.append({
            "task": label, "n_cases": int(bs.n_cases), "metric_a": float(bs.metric_a),
            "metric_b": float(bs.metric_b), "improvement": float(bs.improvement),
            "standard_error": se, "ci_low": float(bs.confidence_interval.low),
            "ci_high": float(bs.confidence_interval.high), "method": bs.method,
            "stream": stream_name("suite", f"{task_column}={slice_label(label)}"),
            "_n_resamples": int(bs.n_resamples),
        })  # fmt: skip
    assert first is not None
    y = np.array([r["improvement"] for r in records])
    se_all = np.array([r["standard_error"] for r in records])
    pool = pool_tasks(y, se_all, tau2_method=method, confidence_level=level, random_ci=ci_method)
    for r, wf, wr in zip(records, pool.weights_fixed, pool.weights_random, strict=True):
        half = pool.simultaneous_z * r["standard_error"]
        r.update(simultaneous_low=r["improvement"] - half,
                 simultaneous_high=r["improvement"] + half,
                 weight_fixed=float(wf), weight_random=float(wr))  # fmt: skip
    table = pd.DataFrame.from_records(records, columns=list(TASK_COLUMNS))
    if pool.random_low > 0:
        verdict = "a_better"
    elif pool.random_high < 0:
        verdict = "b_better"
    else:
        verdict = "inconclusive"
    pi = (
        None
        if pool.prediction_low is None or pool.prediction_high is None
        else ConfidenceInterval(low=pool.prediction_low, high=pool.prediction_high)
    )
    return SuiteResult(
        a=first.a, b=first.b, metric=first.metric, higher_is_better=first.higher_is_better,
        task_column=task_column, tasks=table, fixed=pool.fixed, fixed_se=pool.fixed_se,
        fixed_interval=ConfidenceInterval(low=pool.fixed_low, high=pool.fixed_high),
        random=pool.random, random_se=pool.random_se,
        random_interval=ConfidenceInterval(low=pool.random_low, high=pool.random_high),
        prediction_interval=pi, tau2=pool.tau2, tau2_method=method, q=pool.q, q_df=pool.q_df,
        random_ci=ci_method, q_pvalue=pool.q_pvalue, i2=pool.i2, confidence_level=level,
        simultaneous_level=pool.simultaneous_level, verdict=verdict,
        n_resamples=max(r["_n_resamples"] for r in records), seed=info.seed,
        rng_state=info.rng_state, noninferiority_margin=first.noninferiority_margin,
        sources=tuple(sources),
    )  # fmt: skip
