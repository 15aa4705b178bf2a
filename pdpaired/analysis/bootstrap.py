"""The paired bootstrap of a comparison: its provenance, its replicates and its result.

:meth:`Comparison.bootstrap <pdpaired.Comparison.bootstrap>` checks its
options and hands :func:`run_bootstrap` the pairs (a backend) and the
measure. The measure's bootstrap plan gives the resampler and the design
(:func:`bootstrap_setup`), :func:`pdpaired.core.bootstrap.bootstrap_replicates`
draws the replicates, and :func:`bootstrap_result` assembles the
:class:`~pdpaired.BootstrapResult` with its decisions.
:mod:`pdpaired.analysis.multi` draws the replicates of several comparisons at
once and assembles each result with the same :func:`bootstrap_result`.

:func:`provenance` builds what every result of a comparison records (the
models, the metric, the point estimates, the design, the seed and its
stream): the bootstrap's, and the tests' of
:mod:`pdpaired.analysis.randomization`, :mod:`pdpaired.analysis.exact_binomial`
and :mod:`pdpaired.analysis.delong`.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from pdpaired._lib.errors import DegenerateDataWarning, find_stack_level
from pdpaired._lib.rng import SeedInfo, normalize_rng
from pdpaired.analysis.measures import BootstrapPlan, Measure
from pdpaired.core.auto import choose_method, coverage_warning
from pdpaired.core.bootstrap import BootstrapCore, Resampler, bootstrap_replicates, replicate_sd
from pdpaired.core.options import BootstrapOptions
from pdpaired.pairs.backend import DesignMeta, PairsBackend
from pdpaired.pairs.columns import Columns
from pdpaired.results.base import ConfidenceInterval, Provenance, provenance_fields
from pdpaired.results.bootstrap import BootstrapResult
from pdpaired.results.verdict import decide, interval_degenerate

#: ``method_reason`` of a method the caller named.
ASKED_FOR = "asked for"

__all__ = [
    "ASKED_FOR",
    "bootstrap_result",
    "bootstrap_setup",
    "design_point",
    "provenance",
    "resolve_method",
    "run_bootstrap",
    "score_column",
]


def score_column(cols: Columns) -> str | None:
    """Score mode: the per-case score column (labels read ``"mean <column>"``); else None."""
    return cols.score if cols.prediction is None else None


def design_point(meta: DesignMeta, higher_is_better: bool) -> tuple[float, float, float]:
    """Metric A, metric B and the improvement of a design's point estimates."""
    raw = meta.metric_a - meta.metric_b
    return meta.metric_a, meta.metric_b, raw if higher_is_better else -raw


def provenance(
    pairs: PairsBackend,
    measure: Measure,
    meta: DesignMeta,
    seed: int | None,
    rng_state: dict[str, Any] | None,
    stream: str | None = None,
) -> Provenance:
    """Return what every result records (``stream`` None: no randomness)."""
    raw = meta.metric_a - meta.metric_b
    hib = measure.higher_is_better
    return Provenance(
        a=pairs.a, b=pairs.b, metric=measure.name, higher_is_better=hib,
        metric_a=meta.metric_a, metric_b=meta.metric_b, raw_delta=raw,
        improvement=raw if hib else -raw, n_cases=pairs.n_cases,
        n_groups=meta.n_groups, n_strata=meta.n_strata, unit=meta.unit,
        weighting=meta.weighting, sampling=meta.sampling,
        stratum_weights=meta.stratum_weights, missing=pairs.missing, seed=seed,
        stream=stream, rng_state=rng_state, score_column=score_column(pairs.columns),
    )  # fmt: skip


def bootstrap_setup(
    pairs: PairsBackend,
    measure: Measure,
    opts: BootstrapOptions,
    seed: SeedInfo,
    *,
    unit: str | None,
    weighting: str,
    stratified: bool | None,
    stratum_weights: Mapping[Any, float] | pd.Series | None,
) -> tuple[BootstrapPlan, Provenance]:
    """Return the measure's bootstrap plan on ``pairs`` and the result's provenance.

    What a bootstrap draws its replicates from, before any draw: the
    two-model bootstrap (:func:`run_bootstrap`) and the joint bootstrap of
    several comparisons (:mod:`pdpaired.analysis.multi`) alike.
    """
    plan = measure.bootstrap_plan(
        pairs, unit=unit, weighting=weighting, stratified=stratified,
        stratum_weights=stratum_weights, method=opts.method,
    )  # fmt: skip
    return plan, provenance(pairs, measure, plan.meta, seed.seed, seed.rng_state, plan.stream)


def resolve_method(opts: BootstrapOptions, resampler: Resampler) -> tuple[BootstrapOptions, str]:
    """Return the options with a concrete method, and why it was chosen.

    ``method="auto"`` resolves from the design
    (:func:`pdpaired.core.auto.choose_method`); a named method is kept, and
    when the design is one where it is known to under-cover (a percentile,
    basic or BCa interval of a skewed mean of few cases) a warning names the
    method ``"auto"`` would use.
    """
    if opts.method == "auto":
        method, why = choose_method(resampler)
        return replace(opts, method=method), why
    note = coverage_warning(resampler, opts.method)
    if note is not None:
        warnings.warn(note, DegenerateDataWarning, stacklevel=find_stack_level())
    return opts, ASKED_FOR


def run_bootstrap(
    pairs: PairsBackend,
    measure: Measure,
    opts: BootstrapOptions,
    *,
    unit: str | None,
    weighting: str,
    stratified: bool | None,
    stratum_weights: Mapping[Any, float] | pd.Series | None,
    rng: int | np.random.Generator | None,
) -> BootstrapResult:
    """Run the bootstrap with validated options (the design arguments are checked here)."""
    plan = measure.bootstrap_plan(
        pairs, unit=unit, weighting=weighting, stratified=stratified,
        stratum_weights=stratum_weights, method=opts.method,
    )  # fmt: skip
    seed = normalize_rng(rng)
    prov = provenance(pairs, measure, plan.meta, seed.seed, seed.rng_state, plan.stream)
    opts, why = resolve_method(opts, plan.resampler)
    core = bootstrap_replicates(
        plan.resampler, prov.improvement, n_resamples=opts.n_resamples,
        confidence_level=opts.confidence_level, method=opts.method,
        seed_sequence=seed.seed_sequence, batch=opts.batch,
    )  # fmt: skip
    return bootstrap_result(
        prov, opts, ci=core.confidence_interval, dist=core.distribution, engine=core.engine,
        core=core, method_reason=why,
    )  # fmt: skip


def bootstrap_result(
    prov: Provenance,
    opts: BootstrapOptions,
    *,
    ci: ConfidenceInterval,
    dist: np.ndarray,
    engine: str,
    core: BootstrapCore | None = None,
    method_reason: str | None = None,
) -> BootstrapResult:
    """Assemble a :class:`BootstrapResult` with its decisions.

    A degenerate interval (``core.degenerate``) sets no decision flag.
    """
    threshold, margin = opts.practical_threshold, opts.noninferiority_margin
    degenerate = (core is not None and core.degenerate) or interval_degenerate(
        ci.low, ci.high, dist, confidence_level=opts.confidence_level, method=opts.method
    )
    decision = decide(prov.improvement, ci.low, ci.high, practical_threshold=threshold,
                      noninferiority_margin=margin, degenerate=degenerate)  # fmt: skip
    return BootstrapResult(
        **provenance_fields(prov),
        confidence_interval=ci,
        confidence_level=opts.confidence_level,
        method=opts.method,
        n_resamples=core.n_resamples if core is not None else int(opts.n_resamples),
        n_valid=int(dist.size),
        bootstrap_distribution=dist,
        standard_error=replicate_sd(dist),
        practical_threshold=threshold,
        noninferiority_margin=margin,
        superior_point=decision.superior_point,
        superior_ci=decision.superior_ci,
        noninferior=decision.noninferior,
        verdict=decision.verdict,
        engine=engine,
        confidence_interval_se=None if core is None else core.confidence_interval_se,
        degenerate=degenerate,
        exact_check=None if core is None else core.exact_check,
        method_reason=method_reason,
    )
