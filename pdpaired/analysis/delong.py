"""DeLong's test of equal AUROC of a comparison (binary prediction mode).

:meth:`Comparison.delong <pdpaired.Comparison.delong>` hands
:func:`delong_comparison` the pairs and the measure; this module checks that
the comparison is one of two AUROCs, warns where the test's independence
assumption fails, runs :func:`pdpaired.core.delong.delong_test` on the
in-memory predictions and assembles the :class:`~pdpaired.DeLongResult`.
"""

from __future__ import annotations

import warnings

import numpy as np

from pdpaired._lib.errors import DegenerateDataWarning, IndependenceWarning, find_stack_level
from pdpaired.analysis.bootstrap import provenance
from pdpaired.analysis.measures import Measure
from pdpaired.core.delong import delong_test
from pdpaired.core.options import exact_binomial_iv
from pdpaired.pairs.backend import PairsBackend
from pdpaired.results.base import ConfidenceInterval, provenance_fields
from pdpaired.results.delong import DeLongResult

__all__ = ["delong_comparison"]


def delong_comparison(
    pairs: PairsBackend, measure: Measure, *, alternative: str, confidence_level: float
) -> DeLongResult:
    """Run :func:`pdpaired.core.delong.delong_test` on a binary AUROC comparison."""
    opts = exact_binomial_iv(
        alternative=alternative, mid_p=False, confidence_level=confidence_level
    )
    if measure.task != "binary" or measure.name != "auroc":
        msg = (
            "delong() compares two AUROCs: it needs binary prediction mode with "
            f"metric='auroc' (this comparison: task {measure.task!r}, metric {measure.name!r})."
        )
        raise ValueError(msg)
    cols = pairs.columns
    if cols.group is not None:
        warnings.warn(
            f"DeLong's test assumes independent cases, but cases are grouped by {cols.group!r}; "
            "correlated cases make its p-value too small. Use randomization(unit='group') or "
            "bootstrap(unit='group') for clustered cases.",
            IndependenceWarning,
            stacklevel=find_stack_level(),
        )
    frame = pairs.pairs_frame()
    labels = measure.class_labels
    assert labels is not None
    assert cols.target is not None
    positive = frame[cols.target].to_numpy() == labels[1]
    core = delong_test(
        frame[pairs.a].to_numpy(dtype=np.float64), frame[pairs.b].to_numpy(dtype=np.float64),
        positive, alternative=opts.alternative, confidence_level=opts.confidence_level,
    )  # fmt: skip
    if core.se == 0.0:
        warnings.warn(
            "The DeLong variance of the AUROC difference is 0 (for example, identical "
            "predictions, or both models separating the classes perfectly): the test carries "
            "no information.",
            DegenerateDataWarning,
            stacklevel=find_stack_level(),
        )
    prov = provenance(pairs, measure, measure.point(pairs, "case", "item"), None, None)
    return DeLongResult(
        **provenance_fields(prov),
        statistic=core.statistic, pvalue=core.pvalue, se=core.se, z=core.z,
        confidence_interval=ConfidenceInterval(low=core.low, high=core.high),
        confidence_level=opts.confidence_level, alternative=opts.alternative,
        n_positive=core.n_positive, n_negative=core.n_negative,
    )  # fmt: skip
