"""Unbiased per-case pass@k and pass^k estimators against exact rational oracles."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import binom

from pdpaired.core.pass_at_k import pass_at_k, pass_hat_k


def _grid(max_n: int) -> list[tuple[int, int, int]]:
    return [(n, c, k) for n in range(1, max_n + 1) for c in range(n + 1) for k in range(1, n + 1)]


class TestAgainstComb:
    """Each estimate equals the exact ratio of binomial coefficients (as a Fraction)."""

    def test_pass_at_k_every_n_c_k_up_to_25(self):
        grid = _grid(25)
        n, c, k = (np.array(v) for v in zip(*grid, strict=True))
        for kk in np.unique(k):
            sel = k == kk
            got = pass_at_k(n[sel], c[sel], int(kk))
            want = [
                float(1 - Fraction(math.comb(nn - cc, int(kk)), math.comb(nn, int(kk))))
                for nn, cc in zip(n[sel], c[sel], strict=True)
            ]
            # a product of k <= 25 factors: at most ~k ulps of relative error
            np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)

    def test_pass_hat_k_every_n_c_k_up_to_25(self):
        grid = _grid(25)
        n, c, k = (np.array(v) for v in zip(*grid, strict=True))
        for kk in np.unique(k):
            sel = k == kk
            got = pass_hat_k(n[sel], c[sel], int(kk))
            want = [
                float(Fraction(math.comb(int(cc), int(kk)), math.comb(int(nn), int(kk))))
                for nn, cc in zip(n[sel], c[sel], strict=True)
            ]
            np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-300)

    @pytest.mark.parametrize(("n", "c", "k"), [(1000, 3, 500), (2000, 1990, 100), (500, 250, 250)])
    def test_large_n_stays_finite_and_exact(self, n, c, k):
        # math.comb of these overflows float64; the product form does not
        want_at = float(1 - Fraction(math.comb(n - c, k), math.comb(n, k)))
        want_hat = float(Fraction(math.comb(c, k), math.comb(n, k)))
        got_at = pass_at_k(np.array([n]), np.array([c]), k)
        np.testing.assert_allclose(got_at, [want_at], rtol=1e-11)
        got_hat = pass_hat_k(np.array([n]), np.array([c]), k)[0]
        assert got_hat == pytest.approx(want_hat, rel=1e-10, abs=1e-300)

    def test_k_equal_1_is_the_fraction_correct(self):
        n = np.array([1, 4, 7, 10])
        c = np.array([0, 1, 7, 3])
        np.testing.assert_allclose(pass_at_k(n, c, 1), c / n, rtol=1e-15)
        np.testing.assert_allclose(pass_hat_k(n, c, 1), c / n, rtol=1e-15)

    def test_boundaries(self):
        n = np.array([5, 5, 5, 5])
        c = np.array([0, 5, 1, 4])
        # no correct sample: pass@k 0; all correct: 1; fewer than k wrong: pass@k exactly 1
        got_at, got_hat = pass_at_k(n, c, 2), pass_hat_k(n, c, 2)
        np.testing.assert_array_equal(got_at[[0, 1, 3]], [0.0, 1.0, 1.0])
        np.testing.assert_array_equal(got_hat[[0, 1, 2]], [0.0, 1.0, 0.0])
        np.testing.assert_allclose([got_at[2], got_hat[3]], [0.4, 0.6], rtol=1e-15)


class TestUnbiased:
    """E over c ~ Binomial(n, p) of the estimate is the target probability, exactly."""

    @pytest.mark.parametrize("n", [1, 2, 5, 10, 20])
    @pytest.mark.parametrize("p", [Fraction(1, 10), Fraction(1, 2), Fraction(7, 9)])
    def test_exact_expectation_with_rationals(self, n, p):
        for k in range(1, n + 1):
            e_at = sum(
                math.comb(n, c) * p**c * (1 - p) ** (n - c)
                * (1 - Fraction(math.comb(n - c, k), math.comb(n, k)))
                for c in range(n + 1)
            )  # fmt: skip
            e_hat = sum(
                math.comb(n, c) * p**c * (1 - p) ** (n - c)
                * Fraction(math.comb(c, k), math.comb(n, k))
                for c in range(n + 1)
            )  # fmt: skip
            assert e_at == 1 - (1 - p) ** k
            assert e_hat == p**k

    @pytest.mark.parametrize(("n", "k"), [(10, 1), (10, 3), (16, 16), (40, 7)])
    @pytest.mark.parametrize("p", [0.03, 0.4, 0.95])
    def test_float_estimators_weighted_by_binomial_pmf(self, n, k, p):
        c = np.arange(n + 1)
        w = binom.pmf(c, n, p)
        nn = np.full(n + 1, n)
        assert float(w @ pass_at_k(nn, c, k)) == pytest.approx(1 - (1 - p) ** k, abs=1e-12)
        assert float(w @ pass_hat_k(nn, c, k)) == pytest.approx(p**k, abs=1e-12)
