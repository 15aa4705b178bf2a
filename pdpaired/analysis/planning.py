"""Planning a comparison from its observed design (:meth:`pdpaired.Comparison.plan`).

The analysis-layer half of planning: it reads the design of the comparison
(the unit table of the analysis' design through the measure and the
backend, or the pass/fail counts of 0/1 scores) and hands arrays to the
core module :mod:`pdpaired.core.planning`, then assembles a
:class:`~pdpaired.PlanResult`.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from pdpaired._lib.errors import DegenerateDataWarning, find_stack_level
from pdpaired._lib.rng import derived_seed, normalize_rng, stream_name
from pdpaired._lib.validation import check_choice, check_positive_int
from pdpaired.analysis.measures import MeanMeasure, Measure
from pdpaired.core.planning import (
    DesignSummary,
    UnitSimulation,
    mcnemar_power,
    mcnemar_simulated_power,
    randomization_power,
    smallest_size,
    solve_effect,
    summarize_design,
    threshold_power,
)
from pdpaired.core.randomization import ALTERNATIVES
from pdpaired.pairs.backend import PairsBackend
from pdpaired.results.bootstrap import BootstrapResult
from pdpaired.results.planning import PlanResult

__all__ = ["PLAN_TESTS", "PlanOptions", "plan_comparison", "plan_iv"]


@dataclass(frozen=True, slots=True, kw_only=True)
class PlanOptions:
    """The validated arguments of :meth:`~pdpaired.Comparison.plan`."""

    power: float
    alpha: float
    alternative: str
    effect: float | None
    n_cases: int | None
    method: str
    n_simulations: int
    test: str | None = None
    practical_threshold: float = 0.0


#: What ``plan(test=...)`` accepts (None: the test ``report()`` runs for these data).
PLAN_TESTS = ("bootstrap", "randomization", "exact_binomial")


def _unit_interval(value: Any, name: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        msg = f"`{name}` must be a number in (0, 1); got {value!r}."
        raise TypeError(msg)
    x = float(value)
    if not 0.0 < x < 1.0:
        msg = f"`{name}` must be in (0, 1); got {value!r}."
        raise ValueError(msg)
    return x


def plan_iv(
    *, power: Any, alpha: Any, alternative: Any, effect: Any, n_cases: Any, method: Any,
    n_simulations: Any, test: Any = None, practical_threshold: Any = 0.0,
) -> PlanOptions:  # fmt: skip
    """Check the arguments of ``plan`` and return them normalized."""
    pw = _unit_interval(power, "power")
    al = _unit_interval(alpha, "alpha")
    if pw <= al:
        msg = f"`power` must exceed `alpha`; got power={pw:g}, alpha={al:g}."
        raise ValueError(msg)
    alternative = check_choice(alternative, "alternative", ALTERNATIVES)
    eff = None
    if effect is not None:
        if isinstance(effect, (bool, np.bool_)) or not isinstance(effect, (int, float, np.number)):
            msg = f"`effect` must be a number (an improvement of A over B); got {effect!r}."
            raise TypeError(msg)
        eff = float(effect)
        if not math.isfinite(eff) or eff == 0.0:
            msg = f"`effect` must be a finite nonzero improvement; got {effect!r}."
            raise ValueError(msg)
        if (alternative == "greater" and eff < 0) or (alternative == "less" and eff > 0):
            msg = (
                f"`effect`={eff:g} points the other way from alternative={alternative!r}: "
                "the test cannot detect it."
            )
            raise ValueError(msg)
    n = check_positive_int(n_cases, "n_cases", optional=True)
    if n is not None and n < 2:
        msg = f"`n_cases` must be at least 2; got {n}."
        raise ValueError(msg)
    if test is not None:
        test = check_choice(test, "test", PLAN_TESTS)
    if isinstance(practical_threshold, (bool, np.bool_)) or not isinstance(
        practical_threshold, (int, float, np.number)
    ):
        msg = f"`practical_threshold` must be a number >= 0; got {practical_threshold!r}."
        raise TypeError(msg)
    thr = float(practical_threshold)
    if not (math.isfinite(thr) and thr >= 0.0):
        msg = f"`practical_threshold` must be a finite number >= 0; got {practical_threshold!r}."
        raise ValueError(msg)
    if thr > 0.0 and test in ("randomization", "exact_binomial"):
        msg = (
            f"`practical_threshold`={thr:g} is a decision of the bootstrap interval (its low end "
            f"above the threshold); the {test.replace('_', ' ')} test tests no difference. Plan "
            "test='bootstrap' with the threshold, or drop it."
        )
        raise ValueError(msg)
    return PlanOptions(
        power=pw, alpha=al, alternative=alternative, effect=eff, n_cases=n,
        method=check_choice(method, "method", ("analytic", "simulation")),
        n_simulations=int(check_positive_int(n_simulations, "n_simulations") or 0),
        test=test, practical_threshold=thr,
    )  # fmt: skip


def plan_comparison(
    pairs: PairsBackend,
    measure: Measure,
    opts: PlanOptions,
    *,
    rng: int | np.random.Generator | None,
    bootstrap: Callable[..., BootstrapResult],
) -> PlanResult:
    """Plan the comparison held by ``pairs`` and ``measure``.

    ``bootstrap(n_resamples=..., rng=...)`` is the comparison's bootstrap,
    whose standard error of the improvement (at least 200 resamples) plans
    prediction mode, whose corpus metrics have no per-case differences to
    resample.
    """
    seed = (
        normalize_rng(rng)
        if opts.method == "simulation" or not isinstance(measure, MeanMeasure)
        else None
    )
    cols = pairs.columns
    n_now = pairs.n_cases
    sign = 1.0 if measure.higher_is_better else -1.0
    group = cols.group
    n_groups = pairs.n_groups
    common: dict[str, Any] = {
        "a": pairs.a, "b": pairs.b, "metric": measure.name,
        "higher_is_better": measure.higher_is_better, "n_cases": n_now, "n_groups": n_groups,
        "n_strata": None, "power": opts.power, "alpha": opts.alpha,
        "alternative": opts.alternative, "effect": opts.effect, "method": opts.method,
        "missing": pairs.missing, "seed": None if seed is None else seed.seed,
        "stream": None,
        "n_simulations": opts.n_simulations if seed is not None else None,
        "practical_threshold": opts.practical_threshold,
    }  # fmt: skip
    thr = opts.practical_threshold
    planned = opts.n_cases or n_now

    if not isinstance(measure, MeanMeasure):  # prediction mode: the bootstrap's standard error
        if opts.test not in (None, "bootstrap"):
            msg = (
                f"plan(test={opts.test!r}) is not available in prediction mode: it plans the "
                "bootstrap interval (test='bootstrap'), from the bootstrap's standard error."
            )
            raise ValueError(msg)
        assert seed is not None
        common["stream"] = stream_name("plan_bootstrap")
        boot_seed = derived_seed(seed.seed_sequence, "plan_bootstrap")
        se_now = bootstrap(n_resamples=max(opts.n_simulations, 200), rng=boot_seed).standard_error
        summary = DesignSummary(
            se=se_now, n_units=n_now, n_strata=1, n_cases=n_now, sd_diff=math.nan,
            design_effect=1.0, icc=None, cases_per_unit=1.0,
        )  # fmt: skip
        point = measure.point(pairs, "case", "item", stratified=False)
        improvement = sign * (point.metric_a - point.metric_b)

        def fn(delta: np.ndarray, n: int) -> np.ndarray:
            return threshold_power(delta, summary.se_at(n), math.inf, opts.alpha,
                                   opts.alternative, thr)  # fmt: skip

        return _finish(common, opts, fn, summary, planned, improvement, test="bootstrap",
                       unit="case", sd=None, deff=None, icc=None, disc=None, n_strata=None,
                       per_unit=1.0, grouped=False)  # fmt: skip

    design, meta, table = measure.design(pairs, None, "item", None, None)
    if table is None:  # a backend that resamples in place: bring the per-case sums over
        pairs = pairs.with_collect(True)
        design, meta, table = measure.design(pairs, None, "item", None, None)
    improvement = sign * (meta.metric_a - meta.metric_b)
    n_strata = meta.n_strata
    common["n_strata"] = n_strata

    if opts.test == "exact_binomial" and not pairs.binary:
        msg = (
            "plan(test='exact_binomial') needs binary 0/1 scores; these are not. Plan "
            "test='bootstrap' or test='randomization'."
        )
        raise ValueError(msg)
    if opts.test == "exact_binomial" and group is not None:
        msg = (
            "plan(test='exact_binomial'): the exact binomial test assumes independent pairs, and "
            f"the cases are clustered in groups ({group!r}); plan test='randomization' (whole-"
            "group swaps) or test='bootstrap' instead."
        )
        raise ValueError(msg)
    mcnemar = opts.test == "exact_binomial" or (
        opts.test is None and pairs.binary and group is None and thr == 0.0
    )
    if mcnemar:  # the exact binomial (McNemar) test
        flags = measure.pass_flags(pairs)
        w = np.ones(flags.a_pass.size, np.int64) if flags.freq is None else flags.freq
        disc = int(w[flags.a_pass != flags.b_pass].sum()) / n_now
        summary = summarize_design(design, None)
        if opts.method == "analytic":

            def fn(delta: np.ndarray, n: int) -> np.ndarray:
                return np.array(
                    [mcnemar_power(n, disc, float(d), opts.alpha, opts.alternative) for d in delta]
                )
        else:
            assert seed is not None
            common["stream"] = stream_name("plan_mcnemar")

            def fn(delta: np.ndarray, n: int) -> np.ndarray:
                return mcnemar_simulated_power(
                    n, disc, delta, opts.alpha, opts.alternative,
                    n_simulations=opts.n_simulations, root=seed.seed_sequence,
                )  # fmt: skip

        return _finish(common, opts, fn, summary, planned, improvement, test="exact_binomial",
                       unit="case", sd=summary.sd_diff, deff=None, icc=None, disc=disc,
                       n_strata=n_strata, per_unit=1.0, grouped=False)  # fmt: skip

    unit = meta.unit
    case_design = None
    if unit == "group":
        case_design = measure.design(pairs, "case", "item", None, None)[0]
    summary = summarize_design(design, case_design)
    per_unit = summary.cases_per_unit
    if summary.se <= 1e-12 * abs(improvement):  # rounding noise of constant differences
        summary = replace(summary, se=0.0)
    if summary.se <= 0.0:
        warnings.warn(
            "The paired differences do not vary (standard error 0): any improvement is "
            "'detected' with certainty, which says more about the data than about power.",
            DegenerateDataWarning,
            stacklevel=find_stack_level(),
        )

    def units(n: int) -> int:
        return max(round(n / per_unit), 2)

    test = "randomization" if opts.test == "randomization" else "t"
    if opts.method == "analytic" and test == "randomization":

        def fn(delta: np.ndarray, n: int) -> np.ndarray:
            u = units(n)
            return randomization_power(delta, summary.se_at(u), summary.df_at(u), u, opts.alpha,
                                       opts.alternative)  # fmt: skip
    elif opts.method == "analytic":

        def fn(delta: np.ndarray, n: int) -> np.ndarray:
            u = units(n)
            return threshold_power(delta, summary.se_at(u), summary.df_at(u), opts.alpha,
                                   opts.alternative, thr)  # fmt: skip
    else:
        assert seed is not None
        sim = UnitSimulation(design, seed.seed_sequence, opts.n_simulations)
        common["stream"] = stream_name("plan_simulation")

        def fn(delta: np.ndarray, n: int) -> np.ndarray:
            return sim.power(delta, units(n), summary.n_strata, opts.alpha, opts.alternative,
                             threshold=thr, test=test)  # fmt: skip

    return _finish(common, opts, fn, summary, planned, improvement, test=test, unit=unit,
                   sd=summary.sd_diff, deff=summary.design_effect, icc=summary.icc, disc=None,
                   n_strata=n_strata, per_unit=per_unit, grouped=unit == "group")  # fmt: skip


def _finish(
    common: dict[str, Any],
    opts: PlanOptions,
    fn: Callable[[np.ndarray, int], np.ndarray],
    summary: DesignSummary,
    planned: int,
    improvement: float,
    *,
    test: str,
    unit: str,
    sd: float | None,
    deff: float | None,
    icc: float | None,
    disc: float | None,
    n_strata: int | None,
    per_unit: float,
    grouped: bool,
) -> PlanResult:
    """Solve for the detectable effect and the size needed; assemble the result."""
    direction = -1.0 if opts.alternative == "less" else 1.0

    def power_of(delta: float, n: int) -> float:
        return float(fn(np.array([direction * delta]), n)[0])

    scale = summary.se if summary.se > 0 else 1e-3
    mde = solve_effect(lambda d: power_of(d, planned), opts.power, 3.0 * scale * math.sqrt(
        summary.n_cases / planned))  # fmt: skip
    if disc is not None and mde > 1.0:
        mde = math.inf  # a difference of two proportions cannot exceed 1
    need = None
    need_groups = None
    if opts.effect is not None:
        eff = abs(opts.effect)
        # a start from the normal approximation, then the exact (or simulated) power
        z = 2.8 if summary.se > 0 else 1.0
        start = max(int(summary.n_cases * (z * summary.se / eff) ** 2) if eff > 0 else 2, 2)
        if (disc is not None and eff > 1.0) or eff <= opts.practical_threshold:
            need = None  # no size makes an improvement within the threshold decisive
        else:
            # a simulated power is known to about 1%: a size to within 0.5% is enough
            tol = 0.005 if opts.method == "simulation" else 0.0
            need = smallest_size(lambda n: power_of(eff, n), opts.power, start, tol)
        if need is not None and grouped:
            need_groups = max(math.ceil(need / per_unit), 2)
            need = math.ceil(need_groups * per_unit)
    return PlanResult(
        **common, improvement=improvement, unit=unit, test=test, planned_n_cases=planned,
        mde=direction * mde if math.isfinite(mde) else math.inf, n_cases_needed=need,
        n_groups_needed=need_groups, standard_error=summary.se, sd_diff=sd,
        design_effect=deff, icc=icc, discordant_rate=disc, power_function=fn,
    )  # fmt: skip
