"""The declared analysis of two models in one call: :meth:`Comparison.report`.

:func:`build_report` runs the paired bootstrap, the randomization test, the
exact binomial test (binary outcomes), the slices and the missing-outcome
sensitivity, each on its own stream of the user's seed
(``report:bootstrap``, ``report:randomization``, ``report:slices``,
``report:sensitivity``), and returns a :class:`~pdpaired.ComparisonReport`
(:mod:`pdpaired.artifacts.report`), which saves itself as the verifiable
artifacts.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from pdpaired._lib.rng import derived_seed, normalize_rng, stream_name
from pdpaired.analysis.split import split_block
from pdpaired.artifacts.digests import frame_sha256, ids_sha256, software_versions
from pdpaired.artifacts.report import ComparisonReport
from pdpaired.results.slices import as_part
from pdpaired.results.split import SplitResult

if TYPE_CHECKING:
    from pdpaired.analysis.comparison import Comparison

__all__ = ["build_report"]


def build_report(
    cmp: Comparison,
    *,
    n_resamples: int,
    n_permutations: int,
    slices: list[str] | None,
    min_slice_size: int,
    slice_uncertainty: bool,
    practical_threshold: float,
    noninferiority_margin: float | None,
    confidence_level: float,
    method: str,
    alternative: str,
    rng: int | np.random.Generator | None,
    unit: str | None,
    weighting: str,
    inputs: list[dict[str, str]] | None,
    table: pd.DataFrame,
    binary_outcomes: bool,
    grouped: bool,
    score_range: Any = None,
    split: SplitResult | None = None,
) -> ComparisonReport:
    """Run the declared analysis (see ``Comparison.report``).

    ``table`` is the comparison's canonical per-case table (digested as the
    in-memory input), ``binary_outcomes`` whether its outcomes are pass/fail
    and ``grouped`` whether its cases are clustered: the comparison hands
    them in, so this module needs nothing of its internals.
    """
    if n_permutations == 0 and slices and slice_uncertainty:
        msg = (
            "`n_permutations=0` skips the randomization test, but `slice_uncertainty=True` "
            "needs the slices' p-values: give n_permutations > 0."
        )
        raise ValueError(msg)
    score_range = _check_score_range(score_range)
    # the split's check first: a comparison with cases of the selection part runs nothing
    split_record = None if split is None else split_block(split, table.index)
    seed = normalize_rng(rng)
    root = seed.seed_sequence
    # each part runs on its own stream of the registry, seeded by an internal derived
    # seed; the parts then record the user's seed and the name of their stream
    s_boot = derived_seed(root, "report_bootstrap")
    s_rand = derived_seed(root, "report_randomization")
    s_slices = derived_seed(root, "report_slices")
    # the slices first: a slice column that does not exist is an error before any other
    # work or warning (each part reads its own streams, so the order changes no number)
    sl = None
    if slices:
        sl = cmp.by_slice(
            slices, min_size=min_slice_size, uncertainty=slice_uncertainty,
            n_resamples=n_resamples, n_permutations=n_permutations or n_resamples, rng=s_slices,
            confidence_level=confidence_level, practical_threshold=practical_threshold,
            unit=unit, weighting=weighting, method=method,
        )  # fmt: skip
        sl = as_part(sl, "report", seed.seed, seed.rng_state)
    bs = cmp.bootstrap(
        n_resamples=n_resamples, confidence_level=confidence_level, method=method, rng=s_boot,
        unit=unit, weighting=weighting, practical_threshold=practical_threshold,
        noninferiority_margin=noninferiority_margin,
    )  # fmt: skip
    bs = replace(bs, seed=seed.seed, rng_state=seed.rng_state,
                 stream=stream_name("report_bootstrap"))  # fmt: skip
    rz = None  # n_permutations=0 skips the test
    if n_permutations:
        rz = cmp.randomization(n_permutations=n_permutations, alternative=alternative,
                               rng=s_rand, unit=unit, weighting=weighting)  # fmt: skip
        rz = replace(rz, seed=seed.seed, rng_state=seed.rng_state, level=confidence_level,
                     stream=stream_name("report_randomization"))  # fmt: skip
    eb = None
    # the exact binomial test assumes independent pairs: not run on grouped cases
    # (the randomization test with whole-group swaps is the valid test there)
    if binary_outcomes and not grouped:
        eb = cmp.exact_binomial(alternative=alternative, confidence_level=confidence_level)
    sens, note = None, None
    if cmp.missing.n_missing_a or cmp.missing.n_missing_b:
        bounded = binary_outcomes if cmp.task == "score" else cmp.task != "regression"
        if cmp.runs is not None:
            note = (
                "not computed: the comparison averages repeated runs, and the bounds are "
                "not available for run means yet (Comparison.sensitivity)"
            )
        elif cmp.task == "statistics":
            note = (
                "not computed: a metric of per-case statistics has no worst or best output "
                "to fill in for a missing case (Comparison.sensitivity)"
            )
        elif score_range is None and not bounded:
            note = (
                "not computed: the scores are neither 0/1 nor bounded; give their range "
                "(score_range=(lower, upper); CLI: --score-range LOWER UPPER)"
            )
        else:
            lower, upper = (None, None) if score_range is None else score_range
            sens = cmp.sensitivity(lower=lower, upper=upper, confidence_level=confidence_level,
                                   rng=derived_seed(root, "report_sensitivity"))  # fmt: skip
            sens = replace(sens, seed=seed.seed, stream=stream_name("report_sensitivity"))
    if inputs is None:  # the canonical table: the aligned pairs, sorted by case id
        inputs = [{"in_memory_table_sha256": frame_sha256(table)}]
    return ComparisonReport(
        bootstrap=bs,
        randomization=rz,
        exact_binomial=eb,
        slices=sl,
        task=cmp.task,
        threshold=cmp.threshold,  # binary label metrics only
        class_labels=cmp.class_labels,
        seed=seed.seed,
        inputs=inputs,
        id_digest=ids_sha256(table.index),
        software=software_versions(),
        sensitivity=sens,
        sensitivity_note=note,
        split=split_record,
    )


def _check_score_range(score_range: Any) -> tuple[float, float] | None:
    """``score_range``: None or two numbers ``(lower, upper)`` (their order checked later)."""
    if score_range is None:
        return None
    if isinstance(score_range, (str, bytes)) or not hasattr(score_range, "__len__"):
        msg = f"`score_range` must be (lower, upper), two numbers; got {score_range!r}."
        raise TypeError(msg)
    if len(score_range) != 2:
        msg = f"`score_range` must be (lower, upper), two numbers; got {len(score_range)} values."
        raise ValueError(msg)
    lower, upper = score_range
    return lower, upper
