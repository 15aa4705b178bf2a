"""The permutation test of slice heterogeneity, permutation by permutation.

Coarser checks (the statistic's formula, a Monte Carlo p-value against
exact enumeration within its error) still pass when
a unit is left out of the shuffle, when a one-unit stratum is shuffled, or
when the batches of permutations are cut differently. Here the whole test
is written out from its documented construction: one generator
``default_rng(seed_sequence)``; permutation ``r`` shuffles the units of each
stratum of two or more units with ``Generator.permuted`` (strata in sorted
order, units in their stable order); ``Q*`` is Q with each slice weighted by
``n_k / var_k`` on the shuffled values; ``p = (1 + #{Q* >= Q - 1e-12 Q}) /
(1 + R)``; permutations are drawn in batches of ``floor(2e6 / units)`` rows.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import pdpaired  # noqa: F401  (registers DataFrame.paired)
from pdpaired.core import slices
from pdpaired.core.slices import permutation_heterogeneity


def studentized_q(d_by_slice: list[np.ndarray]) -> float:
    """Q with each slice weighted by n_k / var(d_k, ddof=1), from its definition."""
    theta = np.array([x.mean() for x in d_by_slice])
    w = np.array([x.size / x.var(ddof=1) for x in d_by_slice])
    mu = (w * theta).sum() / w.sum()
    return float((w * (theta - mu) ** 2).sum())


def written_out(
    code: np.ndarray, d: np.ndarray, stratum: np.ndarray | None, k: int, r: int,
    ss: np.random.SeedSequence, rows_per_batch: int,
) -> tuple[float, float]:  # fmt: skip
    n = d.size
    q_obs = studentized_q([d[code == j] for j in range(k)])
    rng = np.random.default_rng(ss)
    order = np.arange(n) if stratum is None else np.argsort(stratum, kind="stable")
    labels = np.zeros(n, dtype=int) if stratum is None else stratum[order]
    blocks = [np.flatnonzero(labels == s) for s in np.unique(labels)]
    hits = 0
    for start in range(0, r, rows_per_batch):
        m = min(rows_per_batch, r - start)
        perms = np.tile(order, (m, 1))
        for idx in blocks:
            if idx.size > 1:  # a lone unit has nothing to swap with
                perms[:, idx] = rng.permuted(perms[:, idx], axis=1)
        for row in perms:
            src = np.empty(n, dtype=int)
            src[order] = row  # unit order[i] takes the values of unit row[i]
            q = studentized_q([d[src][code == j] for j in range(k)])
            hits += not q < q_obs - 1e-12 * max(1.0, abs(q_obs))
    return q_obs, (1 + hits) / (1 + r)


@pytest.mark.parametrize("strata", [False, True])
def test_permutation_p_value_is_the_construction_written_out(strata: bool) -> None:
    rng = np.random.default_rng(2)
    n, k, r = 45, 3, 120
    code = rng.integers(0, k, size=n)
    d = rng.normal(size=n) + 0.3 * code
    # strata of 20, 24 and 1 units: the lone unit stays where it is
    stratum = np.r_[np.zeros(20, int), np.ones(24, int), [2]] if strata else None
    if strata:
        rng.shuffle(stratum)
    ss = np.random.SeedSequence(9)
    got = permutation_heterogeneity(code, d, np.ones(n), stratum, k, r, ss)
    want = written_out(code, d, stratum, k, r, np.random.SeedSequence(9), r)
    assert got[0] == pytest.approx(want[0], rel=1e-12)
    assert got[1] == want[1]
    assert 0.0 < got[1] < 1.0


def test_permutations_are_drawn_in_batches_stratum_by_stratum(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Permutations come in batches of floor(2,000,000 / units) rows; within a batch each
    stratum's block is shuffled for every row before the next stratum's. So without
    strata the batch size never changes the p-value; with strata the draws follow the
    batches (a fixed function of the number of units, so still reproducible)."""
    rng = np.random.default_rng(5)
    n, k, r = 40, 4, 50
    code = np.repeat(np.arange(k), n // k)
    d = rng.exponential(size=n) + 0.2 * code
    stratum = np.arange(n) % 3
    ss = np.random.SeedSequence(4)
    whole_flat = permutation_heterogeneity(code, d, np.ones(n), None, k, r, ss)
    whole = permutation_heterogeneity(code, d, np.ones(n), stratum, k, r, ss)
    assert whole == pytest.approx(written_out(code, d, stratum, k, r, ss, r), rel=1e-12)
    # 7 permutations at a time (the last batch of 1): cells = 7 * n + 3
    monkeypatch.setattr(slices, "_PERM_BATCH_CELLS", 7 * n + 3)
    assert permutation_heterogeneity(code, d, np.ones(n), None, k, r, ss) == whole_flat
    batched = permutation_heterogeneity(code, d, np.ones(n), stratum, k, r, ss)
    assert batched == pytest.approx(written_out(code, d, stratum, k, r, ss, 7), rel=1e-12)


def test_one_group_in_two_slices_refuses_the_test() -> None:
    """Exactly one group-slice membership more than there are groups is enough."""
    rng = np.random.default_rng(1)
    n = 90
    site = np.repeat(["s0", "s1", "s2"], n // 3)
    user = np.array([f"{s}-{i % 6}" for i, s in enumerate(site)], dtype=object)
    user[30] = "s0-0"  # s1's first case joins a group of s0: 18 groups, 19 memberships
    a = rng.normal(size=n)
    df = pd.DataFrame({
        "case_id": np.tile(np.arange(n), 2), "model": np.repeat(["A", "B"], n),
        "score": np.r_[a + rng.normal(0, 0.5, n), a], "site": np.tile(site, 2),
        "user": np.tile(user, 2),
    })  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = df.paired(group="user").by_slice(
            "A", "B", columns="site", higher_is_better=True, uncertainty=True, rng=0,
            n_resamples=100, n_permutations=19, min_size=5,
        )  # fmt: skip
    assert "site" not in res.heterogeneity
    note = next(x for x in res.notes if x.startswith("heterogeneity across site"))
    assert "(1 more group-slice memberships than the 18 groups)" in note


class TestVarianceDof:
    """The unbiasing factor of a slice's variance: Rao-Wu rescaled designs need none."""

    @staticmethod
    def bs(metric: str, sampling: str) -> object:
        from types import SimpleNamespace

        return SimpleNamespace(
            metric=metric, sampling=sampling, unit="group", n_groups=10, n_cases=40,
            n_strata=None,
        )  # fmt: skip

    def test_a_mean_of_scores_named_otherwise_is_rescaled_when_said_so(self) -> None:
        # a pass@k comparison is a mean of per-case estimates: Rao-Wu rescaled
        assert slices.variance_dof(self.bs("pass@5", "cluster"), score_mode=True) == (9.0, 1.0)
        assert slices.variance_dof(self.bs("mean", "cluster")) == (9.0, 1.0)

    def test_other_metrics_get_the_g_over_g_minus_1_factor(self) -> None:
        assert slices.variance_dof(self.bs("bleu", "cluster")) == (9.0, 10 / 9)
        assert slices.variance_dof(self.bs("pass@5", "cluster"), score_mode=False) == (9.0, 10 / 9)
        assert slices.variance_dof(self.bs("mean", "iid")) == (9.0, 10 / 9)
