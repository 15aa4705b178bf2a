"""Heterogeneity across slices at its nominal level (issue 17, item 5).

Oracles: Welch's (1951) formula written out here, and type-I simulations on
the issue's null designs with tolerances from their binomial Monte Carlo
error.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import pdpaired  # noqa: F401  (registers DataFrame.paired)
from pdpaired.slices import welch_heterogeneity


def test_welch_formula() -> None:
    theta = np.array([0.1, 0.3, -0.2, 0.05])
    var = np.array([0.01, 0.02, 0.015, 0.03])
    nu = np.array([20.0, 35.0, 12.0, 50.0])
    q, f, df2, p = welch_heterogeneity(theta, var, nu)
    w = 1 / var
    mu = (w * theta).sum() / w.sum()
    assert q == pytest.approx((w * (theta - mu) ** 2).sum(), rel=1e-12)
    lam = ((1 - w / w.sum()) ** 2 / nu).sum()
    assert f == pytest.approx(q / 3 / (1 + 2 * 2 / 15 * lam), rel=1e-12)
    assert df2 == pytest.approx(15 / (3 * lam), rel=1e-12)
    assert p == pytest.approx(stats.f.sf(f, 3, df2), rel=1e-12)
    # with many degrees of freedom Welch's test becomes Q's chi-square test
    big = welch_heterogeneity(theta, var, np.full(4, 1e9))
    assert big[3] == pytest.approx(stats.chi2.sf(q, 3), rel=1e-5)


def slices_frame(rng: np.random.Generator, kind: str, k: int = 6, n: int = 40) -> pd.DataFrame:
    site = np.repeat([f"s{i}" for i in range(k)], n)
    total = k * n
    if kind == "binary":  # 0/1 scores, both models right 70% of the time
        a = (rng.uniform(size=total) < 0.7).astype(float)
        b = (rng.uniform(size=total) < 0.7).astype(float)
    else:  # skewed continuous differences
        b = rng.normal(size=total)
        a = b + rng.exponential(1.0, total) - 1.0
    return pd.DataFrame(
        {
            "case_id": np.tile(np.arange(total), 2),
            "model": np.repeat(["A", "B"], total),
            "score": np.concatenate([a, b]),
            "site": np.tile(site, 2),
        }
    )


def test_shared_groups_refuse_the_test_with_a_reason() -> None:
    rng = np.random.default_rng(0)
    df = slices_frame(rng, "binary", k=3, n=60)
    n = df["case_id"].max() + 1
    df["user"] = df["case_id"] % 20  # every user has cases in every site
    df["region"] = (df["site"] != "s0").map({True: "r1", False: "r0"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = df.paired(group="user").by_slice(
            "A", "B", columns="site", higher_is_better=True, uncertainty=True, rng=0,
            n_resamples=200, n_permutations=9,
        )  # fmt: skip
    assert "site" not in res.heterogeneity
    assert any("several slices" in note for note in res.notes)
    # groups nested in the slices: tested as usual
    df["user"] = df["site"] + "-" + (df["case_id"] % 7).astype(str)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nested = df.paired(group="user").by_slice(
            "A", "B", columns="site", higher_is_better=True, uncertainty=True, rng=0,
            n_resamples=200, n_permutations=9,
        )  # fmt: skip
    assert "site" in nested.heterogeneity
    assert n == 180


@pytest.mark.slow
def test_heterogeneity_type1_on_small_slices() -> None:
    """Six disjoint slices of 40 cases of 0/1 scores, no real difference (the issue's design).

    2,000 data sets: binomial SE sqrt(.05 * .95 / 2000) = 0.0049, so 5% and
    7.5% are 5 SE apart. Welch's test must reject within 3 SE of 5% (measured
    0.055); Cochran's Q with its chi-square p over-rejects (measured 0.0755).
    For strongly skewed differences (exponential, 40 cases per slice) Welch's
    test is still somewhat liberal: about 0.062 with 20,000 sets of the
    analytic statistic, against 0.084 for Q (documented in docs/slices.md).

    Sized (issue 22): accepted counts [71, 129] of 2,000 (rates 0.036-0.065);
    a size of 0.072 (or 0.030) fails with probability >= 0.9 -- Q's 0.0755 with
    0.97; a size of exactly 0.05 fails with 0.0025.
    """
    kind = "binary"
    n_sets = 2_000
    rng = np.random.default_rng(5)
    welch = chi2 = 0
    for r in range(n_sets):
        df = slices_frame(rng, kind)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = df.paired.by_slice(
                "A", "B", columns="site", higher_is_better=True, uncertainty=True, rng=r,
                n_resamples=2_000, n_permutations=1,
            )  # fmt: skip
        h = res.heterogeneity["site"]
        welch += h["pvalue"] <= 0.05
        chi2 += h["pvalue_chi2"] <= 0.05
    se = math.sqrt(0.05 * 0.95 / n_sets)
    rate = welch / n_sets
    assert abs(rate - 0.05) <= 3 * se, rate
    assert chi2 / n_sets > rate  # Q's chi-square p over-rejects more
