"""Planning (``Comparison.plan``): power, detectable effects and sizes, against oracles.

Oracles: the paired t-test's power from scipy's noncentral t written here
(and statsmodels' ``TTestPower``), the exact McNemar power by brute-force
enumeration of every (A only, B only, concordant) outcome with
``scipy.stats.binomtest``, and simulations of fresh data at the planned size.
"""

from __future__ import annotations

import matplotlib as mpl
import numpy as np
import pytest
from scipy import stats

from ..analysis.test_planning import binary_frame, paired_frame

mpl.use("Agg")


# ------------------------------------------------------------------ n needed, by simulation
@pytest.mark.slow
def test_n_cases_needed_has_the_power_by_simulation() -> None:
    """Fresh normal data at the planned size: the paired t-test rejects at the target rate."""
    sd, delta = 1.0, 0.2
    base = np.random.default_rng(7).normal(0.0, sd, 400)
    base = (base - base.mean()) / base.std(ddof=1) * sd  # the observed sd is exactly sd
    p = paired_frame(base).paired.compare("a", "b", higher_is_better=True).plan(effect=delta)
    n = p.n_cases_needed
    rng = np.random.default_rng(8)
    reps = 20_000
    x = rng.normal(delta, sd, (reps, n))
    res = stats.ttest_1samp(x, 0.0, axis=1)
    rate = float(np.mean(res.pvalue <= 0.05))
    # 20,000 replicates: MC sd sqrt(.8 * .2 / 20000) = 0.0028; 4 sd.
    # Sized: accepted [0.788, 0.812]; a planned size whose power is
    # 0.784 or less, or 0.816 or more, fails with
    # probability >= 0.9; a power of exactly 0.8 fails with 2e-5
    assert rate == pytest.approx(0.8, abs=0.012)
    rate_below = float(np.mean(stats.ttest_1samp(x[:, : n - 8], 0.0, axis=1).pvalue <= 0.05))
    assert rate_below < 0.8


@pytest.mark.slow
def test_mcnemar_n_cases_needed_by_simulation() -> None:
    """Fresh 0/1 data at the planned size: the exact binomial test rejects at >= the target."""
    df = binary_frame(40, 20, 600, 340)  # n = 1000, discordance 6%
    p = df.paired.compare("a", "b", higher_is_better=True).plan(effect=0.02)
    n = p.n_cases_needed
    rng = np.random.default_rng(9)
    reps = 10_000
    p10, p01 = (0.06 + 0.02) / 2, (0.06 - 0.02) / 2
    draws = rng.multinomial(n, [p10, p01, 1 - p10 - p01], size=reps)
    k, j = draws[:, 0], draws[:, 1]
    upper = stats.binom.sf(k - 1, k + j, 0.5)
    lower = stats.binom.cdf(k, k + j, 0.5)
    rate = float(np.mean(np.minimum(1, 2 * np.minimum(upper, lower)) <= 0.05))
    # 10,000 replicates: MC sd 0.004; the exact power at n is in [0.8, 0.81).
    # Sized: a simulated rate 0.021 or more from the exact power (the
    # power one planned size step away) is caught with probability >= 0.9; the
    # exact power itself fails with 5e-5
    assert rate == pytest.approx(p.power_at(0.02, n), abs=0.016)
    assert p.power_at(0.02, n) >= 0.8
