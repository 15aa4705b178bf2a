"""Prediction mode's randomization test reads score mode's stream and tie rule.

* ``swap_indicators`` are exactly the bits the score-mode sign-flip engines
  read: recomputing the flip sums from them gives the engines' integer sums.
* A decomposable corpus metric (MAE) in prediction mode and the mean of the
  same per-case values (absolute errors) in score mode swap the same units for
  the same seed, so their null distributions agree to rounding and their
  p-values are equal -- for cases, strata and whole groups.
* One tie rule: 100 machine epsilons of the magnitudes combined in floating
  point, plus the quantization drift where sums are exact.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdpaired  # noqa: F401
from pdpaired.core.randomization import swap_indicators, tie_tolerance


def regression_table(seed: int = 0, n: int = 300) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.normal(size=n)
    pa = y + rng.normal(0.0, 0.9, n)
    pb = y + rng.normal(0.0, 1.0, n)
    group = np.arange(n) // 5
    stratum = np.array(["s0", "s1", "s2"])[group % 3]
    ids = rng.permutation(n) + 10
    rows = []
    for name, p in (("A", pa), ("B", pb)):
        rows.append(pd.DataFrame({
            "case_id": ids, "model": name, "y": y, "p": p, "abs_err": np.abs(p - y),
            "group": group, "stratum": stratum,
        }))  # fmt: skip
    return pd.concat(rows, ignore_index=True)


def test_swap_indicators_are_the_sign_flip_engines_bits(monkeypatch: pytest.MonkeyPatch) -> None:
    from pdpaired._lib.rng import stream_sequence
    from pdpaired.core.randomization import _flip_layout, _flip_sums_numpy

    rng = np.random.default_rng(4)
    ptr = np.array([0, 70, 70 + 1, 70 + 1 + 130])  # strata of 70, 1 and 130 units
    q = rng.integers(-1000, 1000, size=int(ptr[-1])).astype(np.int64)
    root = np.random.SeedSequence(99)
    lay = _flip_layout(q, ptr, tables=True)
    sums = _flip_sums_numpy(lay, 300, stream_sequence(root, "randomization_bits"), batch=64)
    flips = swap_indicators(ptr, 0, 300, root).astype(np.int64)
    signed = np.where(flips == 1, -q, q)
    assert np.array_equal(np.add.reduceat(signed, ptr[:-1], axis=1), sums)
    # assignments 120.. read on from the same place, whatever the batch
    assert np.array_equal(swap_indicators(ptr, 120, 50, root), flips[120:170].astype(np.uint8))


@pytest.mark.parametrize(
    ("config", "unit"),
    [
        ({"group": None, "stratum": None}, "case"),
        ({"group": None}, "case"),  # strata
        ({}, "group"),  # whole groups within strata
    ],
)
def test_prediction_and_score_mode_swap_the_same_units(
    config: dict[str, None], unit: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PDPAIRED_ACCELERATOR", "numpy")  # score mode reads the same bits either way
    df = regression_table()
    kw = {"n_permutations": 3000, "rng": 11, "unit": unit, "alternative": "two-sided"}
    pred = df.paired(target="y", prediction="p", **config).randomization(
        "A", "B", metric="mae", **kw
    )
    score = df.paired(score="abs_err", **config).randomization(
        "A", "B", higher_is_better=False, **kw
    )
    assert pred.exact is False
    assert score.engine in ("numpy", "numba")
    assert pred.statistic == pytest.approx(score.statistic, rel=1e-12)
    # same assignments: the same null distribution, value for value, to rounding
    np.testing.assert_allclose(pred.null_distribution, score.null_distribution, rtol=0, atol=1e-12)
    assert pred.pvalue == score.pvalue


def test_one_tie_rule() -> None:
    eps = np.finfo(np.float64).eps
    assert tie_tolerance(0.25) == 100 * eps * 0.25
    assert tie_tolerance(0.7, -0.5, 0.2) == pytest.approx(100 * eps * 1.4, rel=1e-15)
    assert tie_tolerance(-2.0, drift=1e-12) == 1e-12 + 200 * eps


def test_prediction_mode_counts_exact_ties_as_extreme() -> None:
    """Accuracy on 0/1 correctness ties constantly: the observed value itself is 'as extreme'."""
    rng = np.random.default_rng(2)
    n = 200
    y = rng.integers(0, 2, n)
    pa = np.where(rng.random(n) < 0.8, y, 1 - y).astype(float)
    pb = np.where(rng.random(n) < 0.8, y, 1 - y).astype(float)
    df = pd.concat([
        pd.DataFrame({"case_id": np.arange(n), "model": m, "y": y, "p": p})
        for m, p in (("A", pa), ("B", pb))
    ], ignore_index=True)  # fmt: skip
    res = df.paired(target="y", prediction="p").randomization(
        "A", "B", metric="accuracy", n_permutations=2000, rng=3
    )
    t, null = res.statistic, res.null_distribution
    extreme = np.count_nonzero(
        np.abs(null) >= abs(t) - tie_tolerance(res.metric_a, res.metric_b, t)
    )
    assert res.pvalue == (1 + extreme) / (1 + null.size)
    # ties really occur at the observed value, and counting them is what makes the p-value
    assert np.count_nonzero(np.isclose(np.abs(null), abs(t), rtol=0, atol=1e-12)) > 0
