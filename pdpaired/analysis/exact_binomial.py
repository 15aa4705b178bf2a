"""The exact binomial test of a comparison: discordant pairs of pass/fail outcomes.

:meth:`Comparison.exact_binomial <pdpaired.Comparison.exact_binomial>`
checks its options and hands :func:`run_exact_binomial` the pairs and the
measure; the measure flags each case's pass/fail for both models, and
:func:`exact_binomial_counts` counts the discordant pairs, warns where the
test's assumptions fail, runs :func:`pdpaired.core.exact_binomial.binomial_test`
and assembles the :class:`~pdpaired.ExactBinomialResult`.
"""

from __future__ import annotations

import warnings

import numpy as np

from pdpaired._lib.errors import DegenerateDataWarning, IndependenceWarning, find_stack_level
from pdpaired.analysis.bootstrap import provenance
from pdpaired.analysis.measures import Measure
from pdpaired.core.exact_binomial import binomial_test
from pdpaired.core.options import ExactBinomialOptions
from pdpaired.pairs.backend import PairsBackend
from pdpaired.results.base import ConfidenceInterval, Provenance, provenance_fields
from pdpaired.results.exact_binomial import ExactBinomialResult

__all__ = ["exact_binomial_counts", "run_exact_binomial"]


def run_exact_binomial(
    pairs: PairsBackend, measure: Measure, opts: ExactBinomialOptions
) -> ExactBinomialResult:
    """Run the exact binomial test with validated options."""
    flags = measure.pass_flags(pairs)
    meta = measure.point(pairs, "case", "item", stratified=False)
    return exact_binomial_counts(
        provenance(pairs, measure, meta, None, None), flags.a_pass, flags.b_pass, opts,
        freq=flags.freq, group=pairs.columns.group,
    )  # fmt: skip


def exact_binomial_counts(
    prov: Provenance,
    a_pass: np.ndarray,
    b_pass: np.ndarray,
    opts: ExactBinomialOptions,
    *,
    freq: np.ndarray | None = None,
    group: str | None,
) -> ExactBinomialResult:
    """Run the exact binomial test on pass/fail outcomes (shared with Dask).

    ``a_pass`` and ``b_pass`` flag each case (or, with ``freq``, each distinct
    outcome pair standing for ``freq`` cases); ``group`` names the cluster
    column, which makes the test's independence assumption doubtful.
    """
    if group is not None:
        warnings.warn(
            f"The exact binomial test assumes independent pairs, but cases are grouped by "
            f"{group!r}; correlated cases make its p-value too small. Use "
            "randomization(unit='group') for clustered cases.",
            IndependenceWarning,
            stacklevel=find_stack_level(),
        )
    w = np.ones(a_pass.size, dtype=np.int64) if freq is None else freq
    counts = {
        "a_only": int(w[a_pass & ~b_pass].sum()),
        "b_only": int(w[~a_pass & b_pass].sum()),
        "both_pass": int(w[a_pass & b_pass].sum()),
        "both_fail": int(w[~a_pass & ~b_pass].sum()),
    }
    a_only, b_only = counts["a_only"], counts["b_only"]
    n_disc = a_only + b_only
    if n_disc == 0:
        warnings.warn(
            "No discordant pairs: the two models pass and fail on exactly the same cases, "
            "so the data carry no evidence either way; pvalue is 1.",
            DegenerateDataWarning,
            stacklevel=find_stack_level(),
        )
    core = binomial_test(
        a_only, b_only, alternative=opts.alternative, mid_p=opts.mid_p,
        confidence_level=opts.confidence_level,
    )  # fmt: skip
    return ExactBinomialResult(
        **provenance_fields(prov),
        a_only=a_only,
        b_only=b_only,
        both_pass=counts["both_pass"],
        both_fail=counts["both_fail"],
        statistic=a_only,
        pvalue=core.pvalue,
        alternative=opts.alternative,
        mid_p=opts.mid_p,
        discordant_share=None if n_disc == 0 else a_only / n_disc,
        confidence_interval=ConfidenceInterval(low=core.low, high=core.high),
        confidence_level=opts.confidence_level,
    )
