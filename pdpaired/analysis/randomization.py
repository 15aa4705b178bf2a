"""The paired randomization (prediction-swap) test of a comparison.

:meth:`Comparison.randomization <pdpaired.Comparison.randomization>` checks
its options and hands :func:`run_randomization` the pairs and the measure.
The measure draws the null distribution (sign flips of unit sums, or the
metric recomputed on swapped predictions;
:mod:`pdpaired.core.randomization`), and this module assembles the
:class:`~pdpaired.RandomizationResult` with the comparison's provenance.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from pdpaired._lib.rng import normalize_rng
from pdpaired.analysis.bootstrap import provenance
from pdpaired.analysis.measures import Measure
from pdpaired.core.options import RandomizationOptions
from pdpaired.pairs.backend import PairsBackend
from pdpaired.results.base import provenance_fields
from pdpaired.results.randomization import RandomizationResult

__all__ = ["run_randomization"]


def run_randomization(
    pairs: PairsBackend,
    measure: Measure,
    opts: RandomizationOptions,
    *,
    unit: str | None,
    weighting: str,
    stratum_weights: Mapping[Any, float] | pd.Series | None,
    rng: int | np.random.Generator | None,
) -> RandomizationResult:
    """Run the randomization test with validated options."""
    seed = normalize_rng(rng)
    core, meta, stream = measure.randomization(
        pairs, opts, unit=unit, weighting=weighting, stratum_weights=stratum_weights,
        seed=seed,
    )  # fmt: skip
    prov = provenance(pairs, measure, meta, seed.seed, seed.rng_state, stream)
    return RandomizationResult(
        **provenance_fields(prov),
        statistic=prov.improvement,
        pvalue=core.pvalue,
        pvalue_se=core.pvalue_se,
        null_distribution=core.null_distribution,
        alternative=opts.alternative,
        n_permutations=core.n_permutations,
        exact=core.exact,
        engine=core.engine,
    )
