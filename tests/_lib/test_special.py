"""The distribution functions imported on first use, and NumPy midranks, against scipy."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special
import scipy.stats

from pdpaired._lib import special


def test_the_wrappers_are_scipys_functions() -> None:
    x = np.linspace(-8, 8, 101)
    p = np.linspace(1e-9, 1 - 1e-9, 101)
    np.testing.assert_array_equal(special.ndtr(x), scipy.special.ndtr(x))
    np.testing.assert_array_equal(special.ndtri(p), scipy.special.ndtri(p))
    for df in (1, 2.5, 30, np.inf):
        np.testing.assert_array_equal(special.stdtrit(df, p), scipy.special.stdtrit(df, p))
    assert special.ndtri(0.975) == scipy.special.ndtri(0.975)


@pytest.mark.parametrize("kind", ["continuous", "ties", "integers", "one", "empty", "nan"])
def test_rankdata_equals_scipys_midranks_bit_for_bit(kind: str) -> None:
    rng = np.random.default_rng(7)

    def draw(n: int) -> np.ndarray:
        if kind == "continuous":
            return rng.normal(size=n)
        if kind == "ties":
            return np.round(rng.normal(size=n), 1)
        if kind == "integers":
            return rng.integers(0, 4, n)
        if kind == "one":
            return np.full(n, 0.25)
        if kind == "empty":
            return np.zeros(0)
        return np.where(rng.uniform(size=n) < 0.1, np.nan, rng.normal(size=n))

    for _ in range(50):
        x = draw(int(rng.integers(1, 300)))
        got = special.rankdata(x)
        ref = scipy.stats.rankdata(x)
        assert got.dtype == ref.dtype == np.float64
        np.testing.assert_array_equal(got, ref)


def test_rankdata_needs_one_dimension() -> None:
    with pytest.raises(ValueError, match="1-D"):
        special.rankdata(np.zeros((2, 2)))
