"""Coverage of a suite's pooled intervals, by simulation of heterogeneous tasks.

Each data set has ``K`` tasks; task ``i`` has a true improvement
``theta_i ~ N(MU, TAU**2)`` and ``n_i`` (40 to 120) paired differences
``~ N(theta_i, 1)``, so its estimate is the mean difference and its standard
error the plug-in ``sd / sqrt(n_i)`` (what the bootstrap's standard error
estimates, without the per-call cost of a bootstrap). The random-effects
interval should cover ``MU``; the prediction interval should cover the
improvement ``theta_new ~ N(MU, TAU**2)`` of a new task.

The first check is of the Wald random-effects interval (``random_ci="wald"``,
the default of :func:`pdpaired.core.suite.pool_tasks`); the second compares it
with the Hartung-Knapp-Sidik-Jonkman interval (the suite's default). The
Wald random-effects interval is known to cover a little below its level with
few tasks, because it treats ``tau2`` as known. Measured with 20,000
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


# --------------------------------------------------------------------------- HKSJ vs Wald
# The Hartung-Knapp-Sidik-Jonkman interval (the default, ``random_ci="hksj"``) against the
# Wald interval on the same data sets. Each task's estimate and standard error are drawn
# from their exact distributions under the model above (the mean of ``n`` N(theta, 1)
# differences is N(theta, 1/n); ``(n - 1) sd**2`` is chi-square with ``n - 1`` df,
# independent of the mean), vectorised across data sets. References, REML, 20,000 data
# sets each (Monte Carlo SE 0.0015-0.002):
#
#   K   tau    Wald    HKSJ    HKSJ with max(1, q) ("modified")
#   8   0.15   0.9166  0.9500  0.9585
#   8   0      0.9609  0.9491  0.9864
#   20  0.15   0.9352  0.9495  0.9520
#   20  0      0.9578  0.9488  0.9717
#
# HKSJ is within Monte Carlo error of 0.95 in every row; the modified variant is never
# below the level but over-covers (0.986 with 8 homogeneous tasks), which is why the
# unmodified interval is the one offered. R = 2,500 data sets per check: MC SE
# sqrt(0.95 * 0.05 / R) = 0.0044. HKSJ must be within 3 SE of 0.95; each interval within
# 3 combined SE (``sqrt(c (1 - c) / R + REF_SE**2)``) of its reference.
R_CI, REF_CI_SE = 2500, 0.002
REF_CI = {(8, 0.15): (0.9166, 0.9500), (8, 0.0): (0.9609, 0.9491), (20, 0.15): (0.9352, 0.9495)}


def simulate_ci(k: int, tau: float, seed: int) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    n = rng.integers(40, 121, (R_CI, k))
    y = MU + rng.normal(0.0, tau, (R_CI, k)) + rng.normal(0.0, 1.0, (R_CI, k)) / np.sqrt(n)
    se = np.sqrt(rng.chisquare(n - 1) / (n - 1) / n)
    z = 1.959963984540054
    wald = hksj = 0
    for i in range(R_CI):
        p = pool_tasks(y[i], se[i], tau2_method="reml", confidence_level=0.95, random_ci="hksj")
        wald += abs(p.random - MU) <= z * p.random_se
        hksj += p.random_low <= MU <= p.random_high
    return wald / R_CI, hksj / R_CI


@pytest.mark.slow
@pytest.mark.parametrize(("k", "tau"), list(REF_CI))
def test_hksj_covers_at_its_level_where_wald_does_not(k: int, tau: float) -> None:
    wald, hksj = simulate_ci(k, tau, seed=100 + k + int(100 * tau))
    se = math.sqrt(0.95 * 0.05 / R_CI)
    assert abs(hksj - 0.95) <= 3 * se, (k, tau, hksj, se)
    for got, ref in zip((wald, hksj), REF_CI[(k, tau)], strict=True):
        mc = math.sqrt(got * (1 - got) / R_CI + REF_CI_SE**2)
        assert abs(got - ref) <= 3 * mc, (k, tau, got, ref, mc)
    if tau > 0 and k == 8:
        assert wald < 0.95 - 3 * se  # the under-coverage HKSJ corrects
