"""The artifact of a suite of tasks: ``paired-suite-artifact/v1``.

A :class:`~pdpaired.SuiteResult` is written as one artifact of protocol
``paired-suite/v1``: the models and the metric, the task column, the
settings (confidence level, the Šidák level of the simultaneous intervals,
the ``tau2`` estimator, resamples, seed), one entry per task (its cases,
both metrics, the improvement, its bootstrap standard error and interval,
its simultaneous interval, its pooling weights and its stream) and the
pooled block (fixed and random effects with their standard errors and
intervals, ``tau2``, the prediction interval, Cochran's Q and I², the
verdict). The local artifact adds, per task, the SHA-256 of its analysed
table and of its aligned case ids, and the input files' digests.

This module builds the body (without the digest, which
:mod:`pdpaired.artifacts.digests` computes), the Markdown report, and the
consistency check :func:`pdpaired.verify` runs: it recomputes the whole
pooled block from the recorded per-task estimates and standard errors
(:func:`pdpaired.core.suite.pool_tasks`), so a pooled number, ``tau2`` or
an interval edited by hand is caught. It reads result objects only.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from pdpaired._lib.format import fmt as _fmt
from pdpaired._lib.format import jsonable
from pdpaired._lib.format import level_text as _level
from pdpaired._lib.format import md_escape as _md
from pdpaired.artifacts.checks import close as _close
from pdpaired.core.suite import RANDOM_CI_METHODS, TAU2_METHODS, pool_tasks

_RANDOM_CI_TEXT = {
    "hksj": "random-effects interval Hartung-Knapp-Sidik-Jonkman (t with k - 1 df, "
    "its own standard error; the SE column is the model-based one)",
    "wald": "random-effects interval Wald (normal)",
}

if TYPE_CHECKING:
    from pdpaired.analysis.suite_result import SuiteResult

__all__ = [
    "ARTIFACT_SUITE",
    "PROTOCOL_SUITE",
    "SCHEMA_FILE_SUITE",
    "is_suite_artifact",
    "suite_body",
    "suite_consistency",
    "suite_markdown",
]

PROTOCOL_SUITE = "paired-suite/v1"
ARTIFACT_SUITE = "paired-suite-artifact/v1"
SCHEMA_FILE_SUITE = "paired-suite-artifact-v1.json"
#: Pooled numbers recomputed from the recorded estimates: the same arithmetic, so only
#: the last bits may differ (REML iterates to 1e-13; the quantile functions may differ in
#: their last digits between scipy versions).
_RTOL = 1e-7

_TASK_FIELDS = (
    "n_cases", "metric_a", "metric_b", "improvement", "standard_error", "ci_low", "ci_high",
    "method", "simultaneous_low", "simultaneous_high", "weight_fixed", "weight_random", "stream",
)  # fmt: skip


def is_suite_artifact(art: dict[str, Any]) -> bool:
    """Whether an artifact is shaped as a suite artifact (it has ``tasks`` and ``pooled``).

    :func:`pdpaired.verify` picks the schema by the artifact's shape, so one
    relabelled as another version is refused by the schema of what it holds.
    """
    return "tasks" in art and "pooled" in art


# --------------------------------------------------------------------------- building
def suite_body(
    res: SuiteResult, kind: str, *, software: dict[str, str], local: dict[str, Any] | None
) -> dict[str, Any]:
    """Return the suite artifact without its digest (JSON-safe).

    ``local`` is the provenance block of the local artifact (None for the
    shareable one): the inputs, each task's table and id digests, the seed.
    """
    pi = res.prediction_interval
    tasks = []
    for r in res.tasks.to_dict(orient="records"):
        entry = {"task": str(r["task"])}
        entry.update({k: r[k] for k in _TASK_FIELDS})
        tasks.append(entry)
    art: dict[str, Any] = {
        "protocol": PROTOCOL_SUITE,
        "artifact": ARTIFACT_SUITE,
        "kind": kind,
        "models": {"a": str(res.a), "b": str(res.b)},
        "metric": {"name": res.metric, "higher_is_better": bool(res.higher_is_better)},
        "task_column": str(res.task_column),
        "settings": {
            "confidence_level": res.confidence_level,
            "simultaneous_level": res.simultaneous_level,
            "tau2_method": res.tau2_method,
            "random_ci": res.random_ci,
            "n_resamples": res.n_resamples,
            "seed": res.seed,
            "noninferiority_margin": res.noninferiority_margin,
        },
        "tasks": tasks,
        "pooled": {
            "fixed": {
                "estimate": res.fixed,
                "standard_error": res.fixed_se,
                "low": res.fixed_interval.low,
                "high": res.fixed_interval.high,
            },
            "random": {
                "estimate": res.random,
                "standard_error": res.random_se,
                "low": res.random_interval.low,
                "high": res.random_interval.high,
            },
            "prediction_interval": None if pi is None else {"low": pi.low, "high": pi.high},
            "tau2": res.tau2,
            "q": res.q,
            "q_df": res.q_df,
            "q_pvalue": res.q_pvalue,
            "i2": res.i2,
            "verdict": res.verdict,
        },
        "software": dict(software),
    }
    if local is not None:
        art["local"] = local
    out: dict[str, Any] = jsonable(art)
    return out


# --------------------------------------------------------------------------- Markdown
def suite_markdown(res: SuiteResult) -> str:
    """Return the human-readable report of a suite (``suite.md``); every label escaped."""
    level = _level(res.confidence_level)
    direction = "higher" if res.higher_is_better else "lower"
    pi = res.prediction_interval
    f, r = res.fixed_interval, res.random_interval
    pred = "n/a (two tasks)" if pi is None else f"[{_fmt(pi.low, True)}, {_fmt(pi.high, True)}]"
    lines = [
        f"# Suite of {res.n_tasks} tasks: {_md(res.a)} vs {_md(res.b)}",
        "",
        _md(res.verdict_sentence()),
        "",
        f"Metric {_md(res.metric)} ({direction} is better); improvement > 0 means "
        f"{_md(res.a)} is better than {_md(res.b)}. Tasks are the values of column "
        f"{_md(res.task_column)}; "
        f"each is bootstrapped on its own ({res.n_resamples} resamples, seed {res.seed}).",
        "",
        f"| {_md(res.task_column)} | n | metric A | metric B | improvement | SE | {level} CI | "
        f"simultaneous CI ({100 * res.simultaneous_level:.2f}% each) | weight (random) |",
        "|---|---:|---:|---:|---:|---:|---|---|---:|",
    ]
    for t in res.tasks.to_dict(orient="records"):
        lines.append(
            f"| {_md(t['task'])} | {int(t['n_cases'])} | {_fmt(t['metric_a'])} | "
            f"{_fmt(t['metric_b'])} | {_fmt(t['improvement'], True)} | "
            f"{_fmt(t['standard_error'])} | [{_fmt(t['ci_low'], True)}, "
            f"{_fmt(t['ci_high'], True)}] | [{_fmt(t['simultaneous_low'], True)}, "
            f"{_fmt(t['simultaneous_high'], True)}] | {100 * t['weight_random']:.1f}% |"
        )
    lines += [
        "",
        f"| pooled | estimate | SE | {level} interval |",
        "|---|---:|---:|---|",
        f"| fixed effect | {_fmt(res.fixed, True)} | {_fmt(res.fixed_se)} | "
        f"[{_fmt(f.low, True)}, {_fmt(f.high, True)}] |",
        f"| random effects | {_fmt(res.random, True)} | {_fmt(res.random_se)} | "
        f"[{_fmt(r.low, True)}, {_fmt(r.high, True)}] |",
        f"| prediction (unseen task) | | | {pred} |",
        "",
        f"Between-task variance tau² = {_fmt(res.tau2)} ({_md(res.tau2_method)}); "
        f"{_RANDOM_CI_TEXT[res.random_ci]}; "
        f"Q = {_fmt(res.q)} on {res.q_df} df (p = {res.q_pvalue:.3g}), "
        f"I² = {100 * res.i2:.1f}%. The simultaneous intervals cover every task's improvement "
        f"together with {level} (Šidák).",
    ]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- verify
def _near(x: float | None, y: float | None, scale: float) -> bool:
    if x is None or y is None:
        return x is None and y is None
    return math.isclose(x, y, rel_tol=_RTOL, abs_tol=_RTOL * scale)


def suite_consistency(art: dict[str, Any]) -> list[str]:
    """Problems with a suite artifact's internal consistency (after its schema passed).

    Per task: the improvement follows from the metrics and the direction,
    the intervals are ordered, the simultaneous interval is ``improvement ±
    z SE`` at the recorded Šidák level. Across tasks: distinct labels and
    streams, and the whole pooled block -- fixed and random effects, their
    standard errors and intervals, ``tau2`` by the recorded estimator, Q,
    its p-value, I², the prediction interval, the weights, the Šidák level
    and the verdict -- recomputed from the recorded estimates and standard
    errors. The local block has one digest pair per task, in the same order.
    """
    out: list[str] = []
    hib = art["metric"]["higher_is_better"]
    st, pooled, tasks = art["settings"], art["pooled"], art["tasks"]
    level = st["confidence_level"]
    if art["models"]["a"] == art["models"]["b"]:
        out.append(f"models.a and models.b are both {art['models']['a']!r}: a model with itself")
    labels = [t["task"] for t in tasks]
    if len(set(labels)) != len(labels):
        out.append("tasks: a task is listed twice")
    if len({t["stream"] for t in tasks}) != len(tasks):
        out.append("tasks: two tasks record the same stream (each task has its own)")
    for t in tasks:
        name = f"task {t['task']}"
        want = (t["metric_a"] - t["metric_b"]) if hib else (t["metric_b"] - t["metric_a"])
        if not _close(t["improvement"], want):
            out.append(
                f"{name}: improvement {t['improvement']!r} does not follow from its metrics and "
                f"the direction (expected {want!r})"
            )
        if t["ci_low"] > t["ci_high"]:
            out.append(f"{name}: ci_low {t['ci_low']!r} exceeds ci_high {t['ci_high']!r}")
    y = np.array([t["improvement"] for t in tasks], dtype=np.float64)
    se = np.array([t["standard_error"] for t in tasks], dtype=np.float64)
    ci_method = st.get("random_ci", "wald")  # artifacts written before the choice: Wald
    if (
        st["tau2_method"] not in TAU2_METHODS or ci_method not in RANDOM_CI_METHODS
        or not 0.0 < level < 1.0 or np.any(se <= 0)
    ):  # fmt: skip
        return out  # the schema refuses these; nothing to pool from
    pool = pool_tasks(
        y, se, tau2_method=st["tau2_method"], confidence_level=level, random_ci=ci_method
    )
    scale = float(np.max(se))  # the natural size of every pooled number but tau2
    fx, rd, pi = pooled["fixed"], pooled["random"], pooled["prediction_interval"]
    checks: list[tuple[str, float | None, float | None, float]] = [
        ("pooled.fixed.estimate", fx["estimate"], pool.fixed, scale),
        ("pooled.fixed.standard_error", fx["standard_error"], pool.fixed_se, scale),
        ("pooled.fixed.low", fx["low"], pool.fixed_low, scale),
        ("pooled.fixed.high", fx["high"], pool.fixed_high, scale),
        ("pooled.tau2", pooled["tau2"], pool.tau2, scale**2),
        ("pooled.random.estimate", rd["estimate"], pool.random, scale),
        ("pooled.random.standard_error", rd["standard_error"], pool.random_se, scale),
        ("pooled.random.low", rd["low"], pool.random_low, scale),
        ("pooled.random.high", rd["high"], pool.random_high, scale),
        ("pooled.prediction_interval.low", None if pi is None else pi["low"],
         pool.prediction_low, scale),
        ("pooled.prediction_interval.high", None if pi is None else pi["high"],
         pool.prediction_high, scale),
        ("pooled.q", pooled["q"], pool.q, 1.0),
        ("pooled.q_pvalue", pooled["q_pvalue"], pool.q_pvalue, 1e-6),
        ("pooled.i2", pooled["i2"], pool.i2, 1.0),
        ("settings.simultaneous_level", st["simultaneous_level"], pool.simultaneous_level, 1.0),
    ]  # fmt: skip
    for name, got, want, s in checks:
        if not _near(got, want, s):
            out.append(
                f"{name} = {got!r} does not follow from the tasks' improvements and standard "
                f"errors ({st['tau2_method']}, {ci_method}, {_level(level)}): expected {want!r}"
            )
    if pooled["q_df"] != len(tasks) - 1:
        out.append(f"pooled.q_df = {pooled['q_df']} is not the number of tasks - 1")
    for t, wf, wr in zip(tasks, pool.weights_fixed, pool.weights_random, strict=True):
        name = f"task {t['task']}"
        for key, want in (("weight_fixed", wf), ("weight_random", wr)):
            if not _near(t[key], float(want), 1.0):
                out.append(f"{name}: {key} = {t[key]!r} but the standard errors give {want!r}")
        half = pool.simultaneous_z * t["standard_error"]
        for key, want in (("simultaneous_low", t["improvement"] - half),
                          ("simultaneous_high", t["improvement"] + half)):  # fmt: skip
            if not _near(t[key], want, scale):
                out.append(
                    f"{name}: {key} = {t[key]!r} is not improvement ± z SE at the Šidák level "
                    f"(expected {want!r})"
                )
    lo, hi = rd["low"], rd["high"]
    verdict = "a_better" if lo > 0 else "b_better" if hi < 0 else "inconclusive"
    if pooled["verdict"] != verdict:
        out.append(
            f"pooled.verdict = {pooled['verdict']!r} but the random-effects interval "
            f"[{lo!r}, {hi!r}] gives {verdict!r}"
        )
    if "local" in art:
        loc = art["local"]
        if [t["task"] for t in loc["tasks"]] != labels:
            out.append("local.tasks must list the tasks of `tasks`, in the same order")
        if loc["seed"] != st["seed"]:
            out.append("local.seed differs from settings.seed")
    return out
