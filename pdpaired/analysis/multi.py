"""Several models on the same cases: a baseline against many, all pairs, and ranks.

:func:`compare_many` pairs every comparison first (every pairing invariant of
every model is checked before anything is resampled), then draws one joint
resampling of the cases that serves all of them (:mod:`pdpaired.core.multi`),
and assembles each comparison's :class:`~pdpaired.BootstrapResult` exactly as
the two-model :meth:`~pdpaired.Comparison.bootstrap` does: with the same
seed, each row equals the two-model call. With ``simultaneous=True`` (the
default) :func:`simultaneous_results` then replaces the intervals by the
max-t band of the joint replicates, which covers every comparison at once.
p-values are adjusted across the comparisons, and :meth:`MultiResult.ranks`
turns the joint replicates into simultaneous confidence sets for the
models' ranks.

The results are in :mod:`pdpaired.analysis.multi_result` (``MultiResult``) and
:mod:`pdpaired.results.multi` (``RankResult``); both are importable from here
too (the old path ``pdpaired.multi`` forwards here).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from pdpaired._lib.rng import normalize_rng
from pdpaired.analysis.bootstrap import bootstrap_result, resolve_method
from pdpaired.analysis.comparison import Comparison, bootstrap_parts
from pdpaired.analysis.multi_result import MultiResult, design_df
from pdpaired.core.bootstrap import BootstrapCore, Resampler, bootstrap_replicates
from pdpaired.core.multi import JointDraws, joint_replicates, pair_relations, simultaneous_band
from pdpaired.core.multiplicity import adjust_pvalues
from pdpaired.core.options import BootstrapOptions
from pdpaired.results.base import ConfidenceInterval, Provenance
from pdpaired.results.bootstrap import BootstrapResult
from pdpaired.results.multi import RankResult

__all__ = [
    "ADJUSTMENTS",
    "MAX_T",
    "MultiResult",
    "RankResult",
    "compare_many",
    "model_pairs",
    "simultaneous_results",
]

#: The p-value adjustments across comparisons.
ADJUSTMENTS = ("holm", "fdr_bh", "bonferroni", None)

#: The interval method of the simultaneous intervals (``simultaneous=True``).
MAX_T = "max-t"

VERDICTS = ("a_better", "b_better", "equivalent", "inconclusive", "undetermined")


def verdict_of(res: BootstrapResult) -> str:
    """Return a bootstrap result's verdict (``BootstrapResult.verdict``)."""
    return str(res.verdict)


def bootstrap_pvalue(replicates: np.ndarray) -> float:
    """Two-sided bootstrap p-value of "no improvement" from a comparison's replicates.

    ``min(1, 2 * min(1 + #{r <= 0}, 1 + #{r >= 0}) / (1 + n))``: twice the
    smaller share of replicates on either side of 0, with the plus-one
    correction so that it is never 0. It is the smallest ``alpha`` (up to the
    plus-one) at which the equal-tailed percentile interval of level
    ``1 - alpha`` excludes 0, so it agrees with the percentile intervals.
    """
    r = replicates[np.isfinite(replicates)]
    n = r.size
    le, ge = int(np.count_nonzero(r <= 0.0)), int(np.count_nonzero(r >= 0.0))
    return float(min(1.0, 2.0 * min(1 + le, 1 + ge) / (1 + n)))


class _Drawn:
    """A comparison's resampler whose replicates were drawn jointly with the others."""

    def __init__(self, inner: Resampler, reps: np.ndarray, engine: str) -> None:
        self.inner, self.reps, self.engine = inner, reps, engine

    def __getattr__(self, name: str) -> Any:
        # the optional members the bootstrap loop asks for (degrees_of_freedom,
        # few_units_warning, exact_check, tango_interval) are the comparison's own
        return getattr(self.inner, name)

    def singleton_warning(self) -> str | None:
        return self.inner.singleton_warning()

    def replicates(
        self, n_resamples: int, seed_sequence: np.random.SeedSequence, batch: int | None
    ) -> tuple[np.ndarray, str]:
        del n_resamples, seed_sequence, batch
        return self.reps, self.engine

    def theta(self) -> float:
        return self.inner.theta()

    def acceleration(self) -> float:
        return self.inner.acceleration()

    def undefined(self, n_dropped: int, n_resamples: int) -> str:
        return self.inner.undefined(n_dropped, n_resamples)


def check_adjust(adjust: object) -> str | None:
    """Check ``adjust`` (one of :data:`ADJUSTMENTS`)."""
    if adjust is None or (isinstance(adjust, str) and adjust in ADJUSTMENTS):
        return adjust
    msg = f"`adjust` must be one of 'holm', 'fdr_bh', 'bonferroni' or None; got {adjust!r}."
    raise ValueError(msg)


def model_pairs(
    present: Sequence[Any], baseline: Any | None, models: Sequence[Any] | None
) -> tuple[list[Any], list[tuple[Any, Any]]]:
    """Return the models and the (A, B) pairs of ``against`` (a baseline) or ``all_pairs`` (None).

    ``present`` are the table's models in order. ``against``: every model
    (or each of ``models``) against the baseline, ``(model, baseline)``, the
    baseline listed first among the models. ``all_pairs``: ``(m_i, m_j)``
    for ``i < j`` in the order of ``models`` (default: the table's).
    """
    if models is not None:
        if isinstance(models, (str, bytes)) or not isinstance(models, Sequence):
            msg = f"`models` must be a list of model labels or None; got {models!r}."
            raise TypeError(msg)
        chosen = list(models)
        dup = sorted({repr(m) for m in chosen if chosen.count(m) > 1})
        if dup:
            msg = f"`models` lists a model more than once: {', '.join(dup)}."
            raise ValueError(msg)
    if baseline is not None:
        if models is None:
            chosen = [m for m in present if m != baseline]
        elif baseline in chosen:
            msg = f"`models` must not include the baseline {baseline!r}."
            raise ValueError(msg)
        if not chosen:
            msg = (
                f"against({baseline!r}): no other model to compare; the table's models are "
                f"{list(present)!r}."
            )
            raise ValueError(msg)
        return [baseline, *chosen], [(m, baseline) for m in chosen]
    if models is None:
        chosen = list(present)
    if len(chosen) < 2:
        msg = f"all_pairs() needs at least two models; got {chosen!r}."
        raise ValueError(msg)
    return chosen, [
        (chosen[i], chosen[j]) for i in range(len(chosen)) for j in range(i + 1, len(chosen))
    ]


def compare_many(
    make: Callable[[Sequence[tuple[Any, Any]]], Sequence[Comparison]],
    pairs: Sequence[tuple[Any, Any]],
    opts: BootstrapOptions,
    *,
    kind: str,
    baseline: Any | None,
    models: Sequence[Any],
    adjust: str | None,
    rng: int | np.random.Generator | None,
    unit: str | None,
    weighting: str,
    stratified: bool | None,
    stratum_weights: Mapping[Any, float] | pd.Series | None,
    collect: bool = False,
    simultaneous: bool = True,
) -> MultiResult:
    """Bootstrap several comparisons from one joint resampling of the cases.

    ``make(pairs)`` pairs the models of every comparison (every invariant
    checked; the pandas front end reads the rows of all the models once) and
    returns one comparison per pair, before anything is resampled. The replicates come from
    :func:`pdpaired.core.multi.joint_replicates` with the user's seed, and each
    result is assembled by the two-model bootstrap's own code. With
    ``simultaneous=True`` and more than one comparison, the intervals are
    then replaced by the max-t band of :func:`simultaneous_results`.
    """
    comparisons = list(make(pairs))  # every pairing check, before any draw
    seed = normalize_rng(rng)
    parts = [
        bootstrap_parts(
            cmp,
            opts,
            seed,
            unit=unit,
            weighting=weighting,
            stratified=stratified,
            stratum_weights=stratum_weights,
            collect=collect,
        )
        for cmp in comparisons
    ]
    if not isinstance(opts.n_resamples, int):
        msg = (
            "n_resamples='auto' is not available for several comparisons at once (each would "
            "stop at its own count); give a number of resamples."
        )
        raise ValueError(msg)
    draws = joint_replicates(
        [plan.resampler for plan, _ in parts], opts.n_resamples, seed.seed_sequence, opts.batch,
        relations=pair_relations(pairs),
    )  # fmt: skip
    if simultaneous and len(parts) > 1 and not draws.coherent:
        msg = (
            "simultaneous=True needs one joint resampling of the cases for every comparison, "
            "but these comparisons were resampled each on its own (missing='complete-case' "
            "dropped different cases for different models, or a Dask table of few-valued "
            "scores is reduced to counts per comparison): pass simultaneous=False for each "
            "comparison's own interval (the adjusted p-values still control the family-wise "
            "error), use missing='as-failure', or use the pandas table."
        )
        raise ValueError(msg)
    results, cores = [], []
    for (plan, prov), reps in zip(parts, draws.replicates, strict=True):
        own, why = resolve_method(opts, plan.resampler)  # "auto": each comparison's design
        core = bootstrap_replicates(
            _Drawn(plan.resampler, reps, draws.engine), prov.improvement,
            n_resamples=own.n_resamples, confidence_level=own.confidence_level,
            method=own.method, seed_sequence=seed.seed_sequence, batch=own.batch,
        )  # fmt: skip
        cores.append((prov, own, core))
        results.append(
            bootstrap_result(
                prov,
                own,
                ci=core.confidence_interval,
                dist=core.distribution,
                engine=core.engine,
                core=core,
                method_reason=why,
            )
        )
    critical = None
    if simultaneous and len(results) > 1:
        results, critical = simultaneous_results(
            results, cores, [plan.resampler for plan, _ in parts], draws,
            task=comparisons[0].task,
        )  # fmt: skip
    joint = np.vstack(draws.replicates) if draws.replicates else np.empty((0, 0))
    pvalues = np.array([bootstrap_pvalue(r) for r in draws.replicates])
    same_cases = (
        draws.coherent
        and all(r.missing.n_dropped == 0 for r in results)
        and len({r.n_cases for r in results}) == 1
    )
    return MultiResult(
        kind=kind,
        baseline=baseline,
        models=tuple(models),
        comparisons=tuple(results),
        pvalues=pvalues,
        pvalues_adjusted=adjust_pvalues(pvalues, adjust),
        adjust=adjust,
        verdicts=tuple(verdict_of(r) for r in results),
        shared_draws=draws.shared,
        same_cases=same_cases,
        bootstrap_distribution=joint,
        task=comparisons[0].task,
        threshold=comparisons[0].threshold,
        class_labels=comparisons[0].class_labels,
        simultaneous=bool(simultaneous),
        critical_value=critical,
        sources=tuple(comparisons),
    )


def simultaneous_results(
    results: Sequence[BootstrapResult],
    cores: Sequence[tuple[Provenance, BootstrapOptions, BootstrapCore]],
    resamplers: Sequence[Resampler],
    draws: JointDraws,
    *,
    task: str,
) -> tuple[list[BootstrapResult], float]:
    """Replace each comparison's interval by the simultaneous max-t band of all of them.

    :func:`pdpaired.core.multi.simultaneous_band` on the joint replicates
    (every comparison's improvement replicates, one resampling of the cases
    per column), with the design's degrees of freedom and variance factor
    (:func:`pdpaired.analysis.multi_result.design_df`, as the rank sets use
    them). Each result keeps its estimate, replicates and design; its
    interval, the interval's Monte Carlo error, the decisions and the
    verdict follow the band; ``method`` is ``"max-t"`` and
    ``method_reason`` names the per-comparison method it replaces. The
    exact check of 0/1 scores compares the band with the exact test at the
    Bonferroni level ``1 - (1 - confidence_level) / m``.

    Returns
    -------
    list of BootstrapResult, float
        The results, and the critical value (the half-width of every
        interval in its comparison's bootstrap standard errors).
    """
    m = len(results)
    level = results[0].confidence_level
    df, factor = design_df(results[0], task)
    band = simultaneous_band(
        np.array([r.improvement for r in results]), np.vstack(draws.replicates),
        confidence_level=level, df=df, variance_factor=factor,
    )  # fmt: skip
    exact_level = 1.0 - (1.0 - level) / m
    out = []
    for j, (res, (prov, own, core), resampler) in enumerate(
        zip(results, cores, resamplers, strict=True)
    ):
        ci = ConfidenceInterval(low=float(band.low[j]), high=float(band.high[j]))
        err = float(band.endpoint_se[j])
        check = getattr(resampler, "exact_check", None)
        note = None if check is None else check(ci, exact_level)
        reason = (
            f"simultaneous: the {level:.0%} max-t band over the {m} comparisons (critical "
            f"value {band.critical_value:.4g} bootstrap SEs), in place of the {res.method} "
            f"interval ({res.method_reason})"
        )
        out.append(
            bootstrap_result(
                prov, replace(own, method=MAX_T), ci=ci, dist=core.distribution,
                engine=core.engine,
                core=replace(core, confidence_interval=ci, degenerate=False, exact_check=note,
                             confidence_interval_se=ConfidenceInterval(low=err, high=err)),
                method_reason=reason,
            )
        )  # fmt: skip
    return out, band.critical_value
