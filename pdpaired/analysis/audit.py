"""The design audit of a comparison: which interval method to trust on its own design.

:meth:`Comparison.audit <pdpaired.Comparison.audit>` checks its options and
hands :func:`run_audit` the pairs and the measure. The measure's bootstrap
plan gives the design (the one :meth:`~pdpaired.Comparison.bootstrap`
resamples), :func:`pdpaired.core.audit.audit_design` runs the simulations,
and this module assembles the :class:`~pdpaired.AuditResult` with the
comparison's provenance and the recommendation.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from pdpaired._lib.docs import compose
from pdpaired._lib.progress import with_progress
from pdpaired._lib.rng import normalize_rng, stream_name
from pdpaired._lib.validation import check_bool, check_confidence_level, check_positive_int
from pdpaired.analysis.bootstrap import provenance
from pdpaired.analysis.measures import Measure
from pdpaired.core.audit import (
    AUDIT_METHODS,
    audit_design,
    audit_methods,
    audit_tests,
    recommend,
)
from pdpaired.core.auto import choose_method
from pdpaired.core.bootstrap import DesignResampler
from pdpaired.pairs.backend import PairsBackend
from pdpaired.results.audit import AuditResult, AuditRow
from pdpaired.results.base import provenance_fields

if TYPE_CHECKING:
    from pdpaired.analysis.comparison import Comparison

__all__ = ["AuditOptions", "audit_iv", "comparison_audit", "run_audit"]


@dataclass(frozen=True, slots=True)
class AuditOptions:
    """The audit's validated options (``methods`` None: every method valid for the design)."""

    methods: tuple[str, ...] | None
    n_simulations: int
    n_resamples: int
    confidence_level: float
    tests: bool


def audit_iv(
    *, methods: Sequence[str] | str | None, n_simulations: Any, n_resamples: Any,
    confidence_level: Any, tests: Any,
) -> AuditOptions:  # fmt: skip
    """Validate the audit's options once and return them normalized."""
    if methods is not None:
        if isinstance(methods, str):
            methods = [methods]
        names = list(methods)
        if not names:
            msg = "`methods` must name at least one interval method, or be None; got []."
            raise ValueError(msg)
        known = (*AUDIT_METHODS, "auto")
        bad = [m for m in names if m not in known]
        if bad:
            msg = f"`methods` must be among {', '.join(map(repr, known))}; got {bad[0]!r}."
            raise ValueError(msg)
        methods = tuple(dict.fromkeys(names))
    n_sim = check_positive_int(n_simulations, "n_simulations")
    n_res = check_positive_int(n_resamples, "n_resamples")
    assert n_sim is not None
    assert n_res is not None
    if n_sim < 2:
        msg = f"`n_simulations` must be at least 2; got {n_sim}."
        raise ValueError(msg)
    return AuditOptions(
        methods=methods, n_simulations=n_sim, n_resamples=n_res,
        confidence_level=check_confidence_level(confidence_level),
        tests=check_bool(tests, "tests"),
    )  # fmt: skip


def _refuse(pairs: PairsBackend, resampler: object) -> None:
    """Raise for designs the audit cannot simulate, saying why."""
    if pairs.runs() is not None:
        msg = (
            "cmp.audit() does not support repeated runs per case: its simulations redraw "
            "cases, not the runs within them, so they would not reproduce the run-to-run "
            "noise of this design. Audit the comparison of per-case means instead, or use "
            "cmp.variance_components() to see what the runs add."
        )
        raise ValueError(msg)
    if isinstance(resampler, DesignResampler):
        return
    name = type(resampler).__name__
    if name == "PoissonResampler":
        msg = (
            "cmp.audit() cannot simulate the in-partition Poisson bootstrap of a Dask table: "
            "each simulation needs the units on the client. Pass collect=True (the cases' "
            "differences brought to the client, as bootstrap(collect=True) does) or audit a "
            "pandas table."
        )
    else:
        msg = (
            "cmp.audit() needs a mean of per-case scores (score mode): a corpus metric or a "
            "metric of predictions has no per-replicate standard error and no unit values "
            "to resample outer and inner, so its methods cannot be audited here."
        )
    raise ValueError(msg)


def run_audit(
    pairs: PairsBackend,
    measure: Measure,
    opts: AuditOptions,
    *,
    unit: str | None,
    weighting: str,
    stratified: bool | None,
    stratum_weights: Mapping[Any, float] | pd.Series | None,
    rng: int | np.random.Generator | None,
) -> AuditResult:
    """Run the audit with validated options (the design arguments are checked here)."""
    plan = measure.bootstrap_plan(
        pairs, unit=unit, weighting=weighting, stratified=stratified,
        stratum_weights=stratum_weights, method="newcombe",
    )  # fmt: skip
    resampler = plan.resampler
    _refuse(pairs, resampler)
    assert isinstance(resampler, DesignResampler)
    auto, auto_reason = choose_method(resampler)
    valid = audit_methods(resampler)
    if opts.methods is None:
        methods = tuple(m for m in AUDIT_METHODS if m in valid or m == auto)
    else:
        methods = tuple(dict.fromkeys(auto if m == "auto" else m for m in opts.methods))
        for m in methods:
            if m not in valid and m != "calibrated":
                msg = (
                    f"method {m!r} is not valid for this design: Tango's and Newcombe's score "
                    "intervals need 0/1 scores on independent cases without strata (Newcombe's "
                    f"also the cases both models pass). Valid here: {', '.join(valid)}, "
                    "calibrated."
                )
                raise ValueError(msg)
    tests = audit_tests(resampler) if opts.tests else ()
    seed = normalize_rng(rng)
    core = audit_design(
        resampler, methods=methods, tests=tests, n_simulations=opts.n_simulations,
        n_resamples=opts.n_resamples, confidence_level=opts.confidence_level,
        seed_sequence=seed.seed_sequence,
    )  # fmt: skip
    s = opts.n_simulations
    coverage = core.covered.mean(axis=1)
    coverage_se = np.sqrt(coverage * (1.0 - coverage) / s)
    width = core.width.mean(axis=1)
    best, why = recommend(methods, coverage, width, opts.confidence_level, s, preferred=auto)
    rows = [
        AuditRow(
            method=m,
            kind="interval",
            coverage=float(coverage[i]),
            coverage_se=float(coverage_se[i]),
            mean_width=float(width[i]),
            recommended=m == best,
        )
        for i, m in enumerate(methods)
    ]
    for j, t in enumerate(tests):
        size = float(core.rejected[j].mean())
        rows.append(AuditRow(method=t, kind="test", size=size,
                             size_se=math.sqrt(size * (1.0 - size) / s)))  # fmt: skip
    prov = provenance(pairs, measure, plan.meta, seed.seed, seed.rng_state, stream_name("audit"))
    return AuditResult(
        **provenance_fields(prov), rows=tuple(rows), confidence_level=opts.confidence_level,
        n_simulations=s, n_resamples=opts.n_resamples, auto_method=auto,
        auto_reason=auto_reason, recommended_method=best, recommended_reason=why,
        engine=core.engine,
    )  # fmt: skip


@with_progress
@compose
def comparison_audit(
    self: Comparison, *, methods: Sequence[str] | None = None, n_simulations: int = 400,
    n_resamples: int = 999, confidence_level: float = 0.95, tests: bool = True,
    rng: int | np.random.Generator | None = None, unit: str | None = None,
    weighting: str = "item", stratified: bool | None = None,
    stratum_weights: Mapping[Any, float] | pd.Series | None = None, collect: bool = False,
) -> AuditResult:  # fmt: skip
    """Estimate how well each interval method (and test) works on this design.

    ${audit_doc}

    Parameters
    ----------
    ${audit_params}
    ${collect_param}
    ${progress_param}

    Returns
    -------
    AuditResult

    Examples
    --------
    >>> from pdpaired.datasets import load_digits_cv
    >>> cmp = load_digits_cv().paired(score="correct").compare(
    ...     "knn", "logreg", higher_is_better=True)
    >>> audit = cmp.audit(n_simulations=20, n_resamples=199, rng=0)
    >>> audit.auto_method, audit.to_frame()["method"].tolist()[-2:]
    ('tango', ['randomization', 'exact_binomial'])
    """
    opts = audit_iv(
        methods=methods, n_simulations=n_simulations, n_resamples=n_resamples,
        confidence_level=confidence_level, tests=tests,
    )  # fmt: skip
    return run_audit(
        self._pairs.with_collect(collect), self._measure, opts, unit=unit, weighting=weighting,
        stratified=stratified, stratum_weights=stratum_weights, rng=rng,
    )  # fmt: skip


# shown as the method it is (Comparison.audit) in the docs, reprs and tracebacks
comparison_audit.__name__ = "audit"
comparison_audit.__qualname__ = "Comparison.audit"
