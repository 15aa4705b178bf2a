"""``cmp.sensitivity()`` on the Dask path equals the pandas path on the same data.

The Dask backend reduces the long table to the same per-unit sums of the
observed outputs and counts of missing ones (``PairsBackend.fill_units``);
the sensitivity arithmetic is then shared, so the two paths differ only in
the order floating-point sums are taken: every number agrees to 1e-12
relative (the sums hold at most a few thousand terms of size <= 10, so the
rounding differences are below 1e-13 relative).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdpaired

dd = pytest.importorskip("dask.dataframe")
import pdpaired.dask  # noqa: E402,F401

RTOL = 1e-12


def _table(binary: bool, *, groups: bool, strata: bool, seed: int = 7) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n = 400
    if binary:
        a = rng.binomial(1, 0.7, n).astype(float)
        b = rng.binomial(1, 0.6, n).astype(float)
    else:
        a = rng.uniform(2, 9, n)
        b = rng.uniform(1, 8, n)
    df = pd.DataFrame(
        {
            "case_id": np.tile(np.arange(n), 2),
            "model": np.repeat(["a", "b"], n),
            "score": np.concatenate([a, b]),
        }
    )
    if groups:
        df["group"] = np.tile(np.arange(n) // 8, 2)
    if strata:
        df["stratum"] = np.tile(np.where(np.arange(n) < 240, "easy", "hard"), 2)
    df.loc[rng.choice(n, 25, replace=False), "score"] = np.nan  # A's missing outputs (NaN)
    absent_b = n + rng.choice(n, 15, replace=False)  # B's missing outputs (absent rows)
    return df.drop(index=absent_b).sample(frac=1.0, random_state=1).reset_index(drop=True)


def _same(x, y) -> None:
    for field in ("low", "high"):
        np.testing.assert_allclose(getattr(x.bounds, field), getattr(y.bounds, field), rtol=RTOL)
        np.testing.assert_allclose(getattr(x.confidence_interval, field),
                                   getattr(y.confidence_interval, field), rtol=RTOL)  # fmt: skip
        np.testing.assert_allclose(getattr(x.standard_errors, field),
                                   getattr(y.standard_errors, field), rtol=RTOL)  # fmt: skip
    assert (x.n_cases, x.n_missing_a, x.n_missing_b, x.n_missing_both) == (
        y.n_cases, y.n_missing_a, y.n_missing_b, y.n_missing_both,
    )  # fmt: skip
    assert (x.lower, x.upper, x.binary) == (y.lower, y.upper, y.binary)
    if x.tipping_point is None:
        assert y.tipping_point is None
    else:
        np.testing.assert_allclose(x.tipping_point, y.tipping_point, rtol=1e-9)
    np.testing.assert_allclose(x.fill_improvement, y.fill_improvement, rtol=RTOL, atol=1e-15)
    np.testing.assert_array_equal(x.fill_verdict, y.fill_verdict)
    np.testing.assert_allclose(x.improvement, y.improvement, rtol=RTOL)


@pytest.mark.parametrize("policy", ["complete-case", "as-failure"])
@pytest.mark.parametrize(
    ("binary", "groups", "strata"),
    [(True, False, False), (False, False, False), (False, True, False), (True, False, True),
     (False, True, True)],
)  # fmt: skip
def test_dask_sensitivity_equals_pandas(policy, binary, groups, strata) -> None:
    df = _table(binary, groups=groups, strata=strata)
    kw = {} if binary else {"lower": 0.0, "upper": 10.0}
    fill = {} if binary or policy != "as-failure" else {"fill_value": 0.0}
    config = {"group": "group" if groups else None, "stratum": "stratum" if strata else None}
    pd_cmp = df.paired(**config).compare("a", "b", higher_is_better=True, missing=policy, **fill)
    ddf = dd.from_pandas(df, npartitions=4)
    dk_cmp = ddf.paired(**config).compare("a", "b", higher_is_better=True, missing=policy, **fill)
    _same(pd_cmp.sensitivity(**kw), dk_cmp.sensitivity(**kw))


def test_dask_sensitivity_ignores_the_partitioning() -> None:
    df = _table(True, groups=False, strata=False)
    res = [
        dd.from_pandas(df, npartitions=k).paired.compare(
            "a", "b", higher_is_better=True, missing="complete-case").sensitivity()
        for k in (1, 3, 7)
    ]  # fmt: skip
    for r in res[1:]:
        _same(res[0], r)


def test_dask_sensitivity_refuses_unbounded_scores() -> None:
    df = _table(False, groups=False, strata=False)
    cmp = dd.from_pandas(df, npartitions=2).paired.compare(
        "a", "b", higher_is_better=True, missing="complete-case")  # fmt: skip
    with pytest.raises(ValueError, match="`lower` and `upper`"):
        cmp.sensitivity()
    with pytest.raises(ValueError, match="outside"):
        cmp.sensitivity(lower=0.0, upper=5.0)
