"""Several models: ``against``, ``all_pairs``, ``MultiResult`` and ``ranks``.

* Each comparison equals the two-model ``bootstrap(a, b, ...)`` with the same
  seed, field by field (score mode iid / clusters / strata, prediction mode,
  missing-outcome policies, both engines, the Dask backend).
* One joint resampling serves every comparison: replicate ``r`` of A - C
  equals that of A - B plus that of B - C.
* p-values are adjusted across comparisons exactly as statsmodels'
  ``multipletests`` does (and as an independent implementation here).
* Every pairing invariant is checked for every model before anything runs.
* The rank confidence sets cover the true ranks (slow simulation).
"""

from __future__ import annotations

import numpy as np
import pytest

from ..analysis.test_multi import many


@pytest.mark.slow
def test_simultaneous_rank_sets_cover_the_true_ranks() -> None:
    # 5 models, two pairs close together; coverage of all ranks at once must be
    # at least 90% nominal. 300 simulations: MC sd of a 0.9 rate is
    # sqrt(0.9 * 0.1 / 300) = 0.017, so the bound 0.9 - 3 sd = 0.85.
    # Sized: at least 255 of 300 covered; a coverage of 0.82 or less
    # fails with probability >= 0.9, a coverage of exactly 0.9 with 0.0024 (the
    # max-t sets are conservative, so less).
    effects = (0.0, 0.02, 0.1, 0.12, 0.3)
    true_rank = 1 + np.array([(np.array(effects) > e).sum() for e in effects])
    covered = 0
    n_sim = 300
    for s in range(n_sim):
        df = many(200, effects, seed=1000 + s)
        r = df.paired.all_pairs(higher_is_better=True, rng=s, n_resamples=500).ranks(
            confidence_level=0.9
        )
        order = [int(m[1:]) for m in r.models]
        ok = all(r.lower[i] <= true_rank[order[i]] <= r.upper[i] for i in range(len(order)))
        covered += ok
    assert covered / n_sim >= 0.85
