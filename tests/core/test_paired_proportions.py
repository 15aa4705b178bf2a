"""Newcombe's (1998) method 10 interval for the paired difference of proportions.

Oracles: an independent implementation written here from the paper's
definitions (each Wilson bound found as the root of the score equation
``|x/n - p| = z sqrt(p (1 - p) / n)`` by Brent's method, not from the closed
form; the phi coefficient of the 2 x 2 table with the numerator
``max(AD - BC - N/2, 0)`` when positive), and the published values of
Newcombe (1998), Statistics in Medicine 17:2635-2650, Table II, method 10,
four examples to four decimals. We read those four from the test suite of
the R package propint (tests/testthat, "produces the results reported in
Newcombe1998"); we could not read Table II itself, so they are quoted as
that package reproduces them, and two independent implementations (ours and
the one written here) agree with them.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, stats

import pdpaired
from pdpaired import DegenerateDataWarning
from pdpaired.core.paired_proportions import newcombe_interval, wilson_interval


def wilson_by_root(x: int, n: int, z: float) -> tuple[float, float]:
    """The Wilson bounds as the roots of (x/n - p)**2 = z**2 p (1 - p) / n."""
    p_hat = x / n

    def score(p: float) -> float:
        return (p_hat - p) ** 2 - z * z * p * (1 - p) / n

    # the roots bracket p_hat; at x = 0 (x = n) p_hat itself is a root, so the other
    # root is searched just beside it
    inner_lo = p_hat - 1e-13 if x == n else p_hat
    inner_hi = p_hat + 1e-13 if x == 0 else p_hat
    low = 0.0 if x == 0 else optimize.brentq(score, 0.0, inner_lo, xtol=1e-15)
    high = 1.0 if x == n else optimize.brentq(score, inner_hi, 1.0, xtol=1e-15)
    return low, high


def newcombe_reference(a: int, b: int, c: int, d: int, level: float) -> tuple[float, float]:
    """Newcombe (1998) method 10, written from the paper: square-and-add with phi."""
    n = a + b + c + d
    z = stats.norm.ppf(0.5 + level / 2)
    p1, p2 = (a + b) / n, (a + c) / n
    l1, u1 = wilson_by_root(a + b, n, z)
    l2, u2 = wilson_by_root(a + c, n, z)
    e, f, g, h = a + b, c + d, a + c, b + d  # the four margins
    if e * f * g * h == 0:
        phi = 0.0
    else:
        num = a * d - b * c
        if num > 0:
            num = max(num - n / 2, 0)
        phi = num / math.sqrt(e * f * g * h)
    delta = math.sqrt((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2)
    eps = math.sqrt((u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2)
    return (p1 - p2) - delta, (p1 - p2) + eps


#: Newcombe (1998) Table II, method 10 (as reproduced by the R package propint):
#: (both pass, only A, only B, both fail) -> 95% interval of the difference.
PUBLISHED = [
    ((36, 12, 2, 0), (0.0569, 0.3404)),
    ((18, 12, 2, 18), (0.0562, 0.3290)),
    ((53, 0, 0, 1), (-0.0729, 0.0729)),  # no discordant pair
    ((0, 30, 0, 0), (0.8395, 1.0)),  # every pair discordant, all one way
]


def long_table(a: np.ndarray, b: np.ndarray) -> pd.DataFrame:
    n = a.size
    return pd.DataFrame({"case_id": np.tile(np.arange(n), 2), "model": np.repeat(["A", "B"], n),
                         "score": np.concatenate([a, b])})  # fmt: skip


def table_scores(a: int, b: int, c: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    sa = np.r_[np.ones(a), np.ones(b), np.zeros(c), np.zeros(d)]
    sb = np.r_[np.ones(a), np.zeros(b), np.ones(c), np.zeros(d)]
    return sa, sb


def boot(df: pd.DataFrame, **kw: object) -> pdpaired.BootstrapResult:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        return df.paired.bootstrap("A", "B", rng=0, method="newcombe", n_resamples=300, **kw)


@pytest.mark.parametrize(("table", "published"), PUBLISHED)
def test_published_worked_examples(table: tuple[int, ...], published: tuple[float, float]) -> None:
    low, high = newcombe_interval(*table, 0.95)
    assert low == pytest.approx(published[0], abs=5e-5)
    assert high == pytest.approx(published[1], abs=5e-5)


@pytest.mark.parametrize(
    "table",
    [(36, 12, 2, 0), (18, 12, 2, 18), (53, 0, 0, 1), (0, 30, 0, 0), (10, 0, 0, 5), (1, 1, 0, 1),
     (0, 0, 3, 0), (5, 4, 0, 41), (20, 7, 9, 4), (0, 2, 1, 0), (40, 3, 1, 6)],
)  # fmt: skip
@pytest.mark.parametrize("level", [0.9, 0.95, 0.99])
def test_matches_the_independent_implementation(table: tuple[int, ...], level: float) -> None:
    low, high = newcombe_interval(*table, level)
    ref = newcombe_reference(*table, level)
    assert low == pytest.approx(max(-1.0, ref[0]), abs=1e-9)
    assert high == pytest.approx(min(1.0, ref[1]), abs=1e-9)
    a, b, c, d = table
    n = a + b + c + d
    assert -1.0 <= low <= (b - c) / n <= high <= 1.0


def test_wilson_closed_form_equals_the_roots() -> None:
    z = stats.norm.ppf(0.975)
    for x, n in [(0, 5), (5, 5), (3, 10), (47, 50), (1, 1)]:
        assert wilson_interval(x, n, z) == pytest.approx(wilson_by_root(x, n, z), abs=1e-12)


@pytest.mark.parametrize("table", [(36, 12, 2, 0), (18, 12, 2, 18), (46, 4, 0, 0), (2, 1, 0, 1)])
def test_method_newcombe_through_the_api(table: tuple[int, ...]) -> None:
    sa, sb = table_scores(*table)
    df = long_table(sa, sb).sample(frac=1.0, random_state=1)  # row order does not matter
    res = boot(df, higher_is_better=True)
    ref = newcombe_reference(*table, 0.95)
    assert res.method == "newcombe"
    assert res.confidence_interval.low == pytest.approx(max(-1, ref[0]), abs=1e-9)
    assert res.confidence_interval.high == pytest.approx(min(1, ref[1]), abs=1e-9)
    assert res.improvement == pytest.approx((table[1] - table[2]) / sum(table))
    # lower is better: pass is 0, the same interval in the improvement direction
    low = boot(long_table(1 - sa, 1 - sb), higher_is_better=False)
    assert low.confidence_interval == res.confidence_interval
    assert res.to_dict()["method"] == "newcombe"


def test_four_zero_split_is_not_called_superior_where_exact_test_disagrees() -> None:
    """n = 50, 4-0 discordant split (a sparse case): the percentile interval excluded 0;
    Newcombe's includes it, in line with the exact test (p = 0.125)."""
    sa, sb = table_scores(30, 4, 0, 16)
    res = boot(long_table(sa, sb), higher_is_better=True)
    ref = newcombe_reference(30, 4, 0, 16, 0.95)
    assert res.confidence_interval.low == pytest.approx(ref[0], abs=1e-9)
    assert res.confidence_interval.low < 0 < res.confidence_interval.high
    assert not res.superior_ci


def test_refuses_what_it_cannot_compute() -> None:
    rng = np.random.default_rng(0)
    cont = long_table(rng.normal(size=30), rng.normal(size=30))
    with pytest.raises(ValueError, match="0/1 scores"):
        boot(cont, higher_is_better=True)
    sa, sb = table_scores(10, 5, 2, 3)
    strat = long_table(sa, sb)
    strat["stratum"] = np.tile(np.arange(20) % 2, 2)
    acc = strat.paired(stratum="stratum")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="without strata"):
            acc.bootstrap(
                "A", "B", higher_is_better=True, rng=0, method="newcombe", n_resamples=100
            )
    with pytest.raises(ValueError, match="method"):
        long_table(sa, sb).paired.bootstrap("A", "B", higher_is_better=True, method="newcomb")


def test_newcombe_interval_needs_a_pair() -> None:
    from pdpaired.core.paired_proportions import newcombe_interval

    with pytest.raises(ValueError, match="at least one pair"):
        newcombe_interval(0, 0, 0, 0, 0.95)
