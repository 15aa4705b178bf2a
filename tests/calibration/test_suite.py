"""Coverage of a suite's pooled intervals, by simulation of heterogeneous tasks.

Each data set has ``K`` tasks; task ``i`` has a true improvement
``theta_i ~ N(MU, TAU**2)`` and ``n_i`` (40 to 120) paired differences
``~ N(theta_i, 1)``, so its estimate is the mean difference and its standard
error the plug-in ``sd / sqrt(n_i)`` (what the bootstrap's standard error
estimates, without the per-call cost of a bootstrap). The random-effects
interval should cover ``MU``; the prediction interval should cover the
improvement ``theta_new ~ N(MU, TAU**2)`` of a new task.

The Wald random-effects interval is known to cover a little below its level
with few tasks, because it treats ``tau2`` as known. Measured with 20,000
data sets (REML, ``K = 20``): random effects 0.9327 +/- 0.0018, prediction
0.9269 +/- 0.0018 - the reference values below, which the guide quotes;
DerSimonian-Laird's ``tau2`` gives the same coverage within Monte Carlo
error (0.936 and 0.931 over 2,000 data sets), so it is held to them too. A
check with ``R`` data sets allows 3 combined Monte Carlo SEs
(``sqrt(c (1 - c) / R)`` and the reference's own) around the reference, and
requires the interval to stay within 0.03 of the nominal 0.95.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from pdpaired.core.suite import pool_tasks

MU, TAU, K = 0.1, 0.15, 20
R = 3000
REF_RANDOM, REF_PREDICTION, REF_SE = 0.9327, 0.9269, 0.0018


def simulate(method: str, seed: int) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    cover = cover_new = 0
    for _ in range(R):
        n = rng.integers(40, 121, K)
        theta = MU + rng.normal(0.0, TAU, K)
        y = np.empty(K)
        se = np.empty(K)
        for i in range(K):
            d = rng.normal(theta[i], 1.0, n[i])
            y[i] = d.mean()
            se[i] = d.std(ddof=1) / math.sqrt(n[i])
        p = pool_tasks(y, se, tau2_method=method, confidence_level=0.95)
        cover += p.random_low <= MU <= p.random_high
        new = MU + rng.normal(0.0, TAU)
        assert p.prediction_low is not None
        assert p.prediction_high is not None
        cover_new += p.prediction_low <= new <= p.prediction_high
    return cover / R, cover_new / R


@pytest.mark.slow
@pytest.mark.parametrize("method", ["reml", "dl"])
def test_random_effects_and_prediction_coverage(method: str) -> None:
    random, prediction = simulate(method, seed=2026)
    for got, ref in ((random, REF_RANDOM), (prediction, REF_PREDICTION)):
        mc = math.sqrt(got * (1 - got) / R + REF_SE**2)
        assert abs(got - ref) <= 3 * mc, (method, got, ref, mc)
        assert abs(got - 0.95) <= 0.03
