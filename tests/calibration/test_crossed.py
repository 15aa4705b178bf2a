"""Crossed factors: coverage of the population mean over cases, seeds and prompts.

Each simulated data set is 60 cases x 4 seeds x 3 prompts of per-cell
improvements from the balanced random-effects model with true mean 0; an
interval covers when it holds 0, i.e. the mean over the *populations* of
cases, seeds and prompts. Four intervals at 95%:

* case only: the percentile bootstrap of the case means, what
  ``bootstrap(resample_factors=False)`` computes (checked bit for bit in
  ``tests/analysis/test_crossed.py``);
* plain pigeonhole: cases and levels resampled, no correction (the same
  draws as the corrected one, before its rescaling; a percentile interval);
* pigeonhole: what ``bootstrap(resample_factors=True)`` computes (the same
  resampler and interval code, ``method="auto"`` resolves to the percentile
  interval), rescaled to the ANOVA variance with tails at Satterthwaite's df;
* t: ``CrossedComponents.interval``, the estimate -/+ t_df x the ANOVA SE.

400 resamples per interval: the endpoint's Monte Carlo error adds little to
the coverage's (the same data sets at 2,000 resamples gave the same
pigeonhole coverage within 0.001). With R data sets a coverage p has Monte
Carlo SE sqrt(p (1 - p) / R): 0.0069 at p = 0.95, R = 1000.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy import stats

from pdpaired.core.bootstrap import bootstrap_replicates
from pdpaired.core.crossed import PigeonholeResampler, anova_variance

SHAPE = (60, 4, 3)


def coverage(sd: dict[tuple[int, ...], float], n_sets: int, seed: int) -> dict[str, float]:
    """Share of data sets whose 95% interval holds the true mean 0, per interval."""
    rng = np.random.default_rng(seed)
    hits = dict.fromkeys(("case", "plain", "pigeonhole", "t"), 0)
    n_cases = SHAPE[0]
    for k in range(n_sets):
        x = np.zeros(SHAPE)
        for axes, s in sd.items():
            x = x + rng.normal(0.0, s, [SHAPE[a] if a in axes else 1 for a in range(3)])
        # case only: the case means resampled (a percentile interval)
        w = rng.multinomial(n_cases, np.full(n_cases, 1.0 / n_cases), size=400)
        reps = w @ x.mean(axis=(1, 2)) / n_cases
        lo, hi = np.quantile(reps, [0.025, 0.975])
        hits["case"] += lo <= 0.0 <= hi
        res = PigeonholeResampler(x)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "a factor has only ... levels"
            core = bootstrap_replicates(
                res, res.theta(), n_resamples=400, confidence_level=0.95, method="percentile",
                seed_sequence=np.random.SeedSequence([seed, k]), batch=None,
            )  # fmt: skip
        hits["pigeonhole"] += core.confidence_interval.low <= 0.0 <= core.confidence_interval.high
        # the plain pigeonhole replicates are the same draws before the rescaling
        plain = res.theta() + (core.distribution - res.theta()) / res.scale
        lo, hi = np.quantile(plain, [0.025, 0.975])
        hits["plain"] += lo <= 0.0 <= hi
        v, dof = anova_variance(x)
        hits["t"] += abs(x.mean()) <= stats.t.ppf(0.975, dof) * math.sqrt(v)
    return {name: h / n_sets for name, h in hits.items()}


@pytest.mark.slow
def test_a_dominant_seed_effect() -> None:
    # sigma_case 1, sigma_seed 1, sigma_prompt 0.3, residual 0.5: the seeds carry 84% of
    # the variance of the mean. R = 1000, MC SE <= 0.016 (at p = 0.4), 0.0069 at 0.95.
    # Measured (this seed): case only 0.323, plain pigeonhole 0.849, pigeonhole 0.927,
    # t 0.944 (0.951 over another 4,000 data sets). With 4 seeds the bootstrap distribution
    # of the seed mean is bounded by the observed seeds, so even rescaled to the right
    # variance and read at Satterthwaite's df (about 4) its tails fall short of the t
    # interval's: 2.3 points below nominal, 3 MC SEs. The bounds are the measured values
    # minus 3 MC SEs.
    got = coverage({(0,): 1.0, (1,): 1.0, (2,): 0.3, (0, 1, 2): 0.5}, 1000, seed=11)
    se = math.sqrt(0.95 * 0.05 / 1000)
    assert got["case"] < 0.40  # the case-only interval ignores the seeds: far too short
    assert got["plain"] < 0.95 - 3 * se  # (n - 1) / n of the seed variance: under-covers
    assert got["pigeonhole"] > got["plain"] + 0.04
    assert got["pigeonhole"] >= 0.927 - 3 * se
    assert got["t"] >= 0.95 - 3 * se - 0.005  # 0.944 here; 0.951 on 4,000 other sets


@pytest.mark.slow
def test_interactions_with_the_cases() -> None:
    # sigma_case 1, sigma_seed 0.3, sigma_prompt 0.2, case x seed 0.5, case x prompt 0.5,
    # residual 0.5: the interactions count again in the plain pigeonhole's variance
    # (conservative part) while the main effects lose (n - 1) / n. R = 1000, MC SE 0.0069.
    # Measured (this seed): case only 0.728, plain pigeonhole 0.909, pigeonhole 0.941,
    # t 0.941 (another 1,000 data sets: 0.764, 0.917, 0.953).
    sd = {(0,): 1.0, (1,): 0.3, (2,): 0.2, (0, 1): 0.5, (0, 2): 0.5, (0, 1, 2): 0.5}
    got = coverage(sd, 1000, seed=12)
    se = math.sqrt(0.95 * 0.05 / 1000)
    assert got["case"] < 0.80
    assert got["plain"] < got["pigeonhole"]
    assert got["pigeonhole"] >= 0.95 - 3 * se
    assert got["t"] >= 0.95 - 3 * se


@pytest.mark.slow
def test_no_factor_effects_costs_little() -> None:
    # Only cases and residual (the factors change nothing): every interval should cover,
    # and the corrected pigeonhole should not be much wider than needed. R = 600, MC SE
    # 0.0089. Measured (this seed): case only 0.947, plain 0.955, pigeonhole 0.953, t 0.958.
    got = coverage({(0,): 1.0, (0, 1, 2): 0.5}, 600, seed=13)
    se = math.sqrt(0.95 * 0.05 / 600)
    assert got["case"] >= 0.95 - 3 * se - 0.01  # percentile of 60 cases: slightly short
    assert 0.95 - 3 * se <= got["pigeonhole"] <= 0.975
