"""The design audit's simulations (pdpaired.core.audit), checked against audits written
out in plain NumPy on the same addressed draws."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pdpaired.core.audit import (
    audit_design,
    audit_methods,
    audit_tests,
    binary_cells,
    recommend,
)
from pdpaired.core.bootstrap import DesignResampler
from pdpaired.core.engine import Design, full_sample_statistic
from pdpaired.core.paired_proportions import tango_interval


def _design(values: np.ndarray, sizes: tuple[int, ...] | None = None) -> Design:
    sizes = (values.size,) if sizes is None else sizes
    ptr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    w = np.asarray(sizes, dtype=np.float64) / values.size
    return Design(value=values, count=None, unit_ptr=ptr, weight=w, sign=1.0)


def _child(root: np.random.SeedSequence, *words: int) -> np.random.SeedSequence:
    return np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, *words))


def _plain_percentile_audit(
    v: np.ndarray, n_sim: int, n_res: int, level: float, root: np.random.SeedSequence
) -> tuple[np.ndarray, np.ndarray]:
    """The percentile audit of a mean of independent cases, in plain NumPy.

    Simulation ``s``: the outer resample reads the stream at address
    ``(33, s, 0)`` (n draws of ``integers(0, n)``, sorted); the inner bootstrap
    is rooted at ``(33, s, 1)`` and its chunk ``k`` of 64 replicates reads
    ``(0, k)`` under it, one ``integers(0, n, size=(64, n))`` call per chunk.
    """
    n = v.size
    truth = v.mean()
    alpha = (1 - level) / 2
    covered, width = np.zeros(n_sim, bool), np.zeros(n_sim)
    for s in range(n_sim):
        gen = np.random.Generator(np.random.PCG64(_child(root, 33, s, 0)))
        outer = v[np.sort(gen.integers(0, n, size=n))]
        inner = _child(root, 33, s, 1)
        reps = []
        for k in range(-(-n_res // 64)):
            m = min(64, n_res - 64 * k)
            g = np.random.Generator(np.random.PCG64(_child(inner, 0, k)))
            reps.append(outer[g.integers(0, n, size=(m, n))].mean(axis=1))
        low, high = np.percentile(np.concatenate(reps), [100 * alpha, 100 * (1 - alpha)])
        covered[s], width[s] = low <= truth <= high, high - low
    return covered, width


class TestAgainstPlainNumPy:
    def test_percentile_coverage_is_the_plain_audit_on_the_same_draws(self) -> None:
        v = np.random.default_rng(4).lognormal(0.0, 1.0, 25)
        root = np.random.SeedSequence(2024)
        core = audit_design(
            DesignResampler(_design(v)), methods=("percentile",), tests=(), n_simulations=60,
            n_resamples=150, confidence_level=0.9, seed_sequence=root,
        )  # fmt: skip
        covered, width = _plain_percentile_audit(v, 60, 150, 0.9, root)
        np.testing.assert_array_equal(core.covered[0], covered)
        # the engine sums in exact fixed point: the widths agree to rounding
        np.testing.assert_allclose(core.width[0], width, rtol=1e-9)
        assert core.truth == pytest.approx(v.mean(), rel=1e-12)
        assert 0 < covered.sum() < 60  # the check is not vacuous

    def test_tango_coverage_is_the_plain_audit_of_the_resampled_two_by_two_table(self) -> None:
        # 0/1 scores: a both pass, b only A, c only B, d both fail
        a, b, c, d = 50, 9, 4, 17
        n = a + b + c + d
        value = np.repeat([0.0, 1.0, -1.0, 0.0], [a, b, c, d])
        res = DesignResampler(_design(value), both_pass=a, binary=True)
        assert binary_cells(res) == (a, b, c, d)
        root = np.random.SeedSequence(5)
        core = audit_design(
            res, methods=("tango",), tests=("exact_binomial",), n_simulations=80, n_resamples=99,
            confidence_level=0.95, seed_sequence=root,
        )  # fmt: skip
        truth = (b - c) / n
        want = []
        for s in range(80):
            gen = np.random.Generator(np.random.PCG64(_child(root, 33, s, 0)))
            _, bb, cc, _ = gen.multinomial(n, np.array([a, b, c, d]) / n)
            low, high = tango_interval(int(bb), int(cc), n, 0.95)
            want.append(low <= truth <= high)
        np.testing.assert_array_equal(core.covered[0], want)


class TestDesign:
    def test_same_seed_same_audit_and_a_method_does_not_depend_on_the_others(self) -> None:
        v = np.random.default_rng(1).normal(0.3, 1.0, 40)
        res = DesignResampler(_design(v))
        kw = {"n_simulations": 30, "n_resamples": 99, "confidence_level": 0.95}
        one = audit_design(res, methods=("bca",), tests=(),
                           seed_sequence=np.random.SeedSequence(3), **kw)  # fmt: skip
        all_ = audit_design(res, methods=("percentile", "bca", "studentized"),
                            tests=("randomization",), seed_sequence=np.random.SeedSequence(3),
                            **kw)  # fmt: skip
        np.testing.assert_array_equal(one.covered[0], all_.covered[1])
        np.testing.assert_array_equal(one.width[0], all_.width[1])
        other = audit_design(res, methods=("bca",), tests=(),
                             seed_sequence=np.random.SeedSequence(4), **kw)  # fmt: skip
        assert not np.array_equal(one.width[0], other.width[0])

    def test_stratified_outer_resamples_keep_each_stratum_size(self) -> None:
        rng = np.random.default_rng(2)
        v = np.concatenate([rng.normal(0, 1, 6), rng.normal(5, 1, 9)])
        res = DesignResampler(_design(v, (6, 9)), small_sample=True)
        core = audit_design(res, methods=("percentile", "studentized"), tests=("randomization",),
                            n_simulations=20, n_resamples=99, confidence_level=0.95,
                            seed_sequence=np.random.SeedSequence(0))  # fmt: skip
        assert core.truth == pytest.approx(full_sample_statistic(_design(v, (6, 9))))
        # a stratum of 6 values near 0 and one of 9 near 5 never mix: every width is finite
        assert np.all(np.isfinite(core.width))
        assert np.all(core.width > 0)

    def test_methods_and_tests_valid_for_the_design(self) -> None:
        cont = DesignResampler(_design(np.linspace(-1, 2, 30)))
        assert audit_methods(cont) == ("percentile", "basic", "bca", "studentized")
        assert audit_tests(cont) == ("randomization",)
        binary = DesignResampler(_design(np.array([0.0, 1.0, -1.0] * 10)), both_pass=5,
                                 binary=True)  # fmt: skip
        assert audit_methods(binary)[-2:] == ("tango", "newcombe")
        assert audit_tests(binary) == ("randomization", "exact_binomial")
        ratings = DesignResampler(_design(np.array([0.0, 1.0, -1.0] * 10)), binary=False)
        assert "tango" not in audit_methods(ratings)


class TestNullWorld:
    def test_randomization_size_on_normal_differences_is_near_alpha(self) -> None:
        # 300 null simulations: the size's Monte Carlo SE at 0.05 is 0.0126;
        # 4 SE bound the check (the flip test is exact for symmetric data)
        v = np.random.default_rng(8).normal(1.0, 1.0, 60)  # a large effect: centring removes it
        core = audit_design(
            DesignResampler(_design(v)), methods=("percentile",), tests=("randomization",),
            n_simulations=300, n_resamples=199, confidence_level=0.95,
            seed_sequence=np.random.SeedSequence(9),
        )  # fmt: skip
        size = core.rejected[0].mean()
        assert abs(size - 0.05) <= 4 * math.sqrt(0.05 * 0.95 / 300)

    def test_sign_symmetrised_exact_test_keeps_its_level(self) -> None:
        value = np.repeat([0.0, 1.0, -1.0], [40, 30, 2])  # A far ahead: the null world erases it
        res = DesignResampler(_design(value), both_pass=20, binary=True)
        core = audit_design(res, methods=("tango",), tests=("exact_binomial",), n_simulations=300,
                            n_resamples=99, confidence_level=0.95,
                            seed_sequence=np.random.SeedSequence(1))  # fmt: skip
        # the exact test is conservative: its size is at most 0.05 (+ 3 MC SE)
        assert core.rejected[0].mean() <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / 300)

    def test_a_p_value_on_the_level_is_not_a_rejection_as_in_every_verdict(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """p = 50/1000 = 0.05 at level 0.95: the verdict rule says inconclusive; so does the audit.

        (``1 - 0.95`` is 0.050000000000000044 in floating point: read unrounded, or
        with ``<=``, the audit would count this p-value as a rejection.)
        """
        import pdpaired.core.audit as audit_module
        from pdpaired.results.verdict import pvalue_verdict

        class OnTheLevel:
            pvalue = 50 / 1000

        monkeypatch.setattr(audit_module, "randomization_design", lambda *a, **k: OnTheLevel())
        assert pvalue_verdict(0.05, 1.0, alternative="two-sided", alpha=0.05) == "inconclusive"
        v = np.random.default_rng(3).normal(0.5, 1.0, 40)
        core = audit_design(
            DesignResampler(_design(v)), methods=("percentile",), tests=("randomization",),
            n_simulations=20, n_resamples=99, confidence_level=0.95,
            seed_sequence=np.random.SeedSequence(2),
        )  # fmt: skip
        assert not core.rejected.any()

        class Below:
            pvalue = 49 / 1000

        monkeypatch.setattr(audit_module, "randomization_design", lambda *a, **k: Below())
        core = audit_design(
            DesignResampler(_design(v)), methods=("percentile",), tests=("randomization",),
            n_simulations=20, n_resamples=99, confidence_level=0.95,
            seed_sequence=np.random.SeedSequence(2),
        )  # fmt: skip
        assert core.rejected.all()


class TestRecommend:
    methods = ("percentile", "basic", "studentized")

    def test_auto_choice_when_it_keeps_its_level(self) -> None:
        m, why = recommend(self.methods, np.array([0.95, 0.94, 0.95]), np.array([1.0, 0.9, 1.2]),
                           0.95, 400, preferred="studentized")  # fmt: skip
        assert m == "studentized"
        assert "'auto' chooses" in why

    def test_narrowest_that_keeps_its_level_when_auto_under_covers(self) -> None:
        # 2 SE at 400 simulations: 0.0218; 0.90 is far below, 0.94 within
        m, why = recommend(self.methods, np.array([0.94, 0.95, 0.90]), np.array([1.0, 1.1, 0.8]),
                           0.95, 400, preferred="studentized")  # fmt: skip
        assert m == "percentile"
        assert "narrowest" in why

    def test_highest_coverage_when_none_keeps_its_level(self) -> None:
        m, why = recommend(self.methods, np.array([0.80, 0.85, 0.70]), np.array([1.0, 1.1, 0.8]),
                           0.95, 400)  # fmt: skip
        assert m == "basic"
        assert why.startswith("no method kept")
