"""The two-stage bootstrap of repeated runs (:mod:`pdpaired.core.repeats`), draw by draw.

Stage one of the two-stage bootstrap draws the units stratum by stratum from
the ``bootstrap_chunk`` streams like the one-stage NumPy index engine: no draw
for a stratum of one unit, blocks of replicates for small strata, blocks of
draws replicate by replicate for strata larger than a block. With the block
shrunk to 4 draws, strata of 1, 3, 9 and 13 units take every path, and the
replicates are checked against the whole two-stage bootstrap written out here
with the same generators (the shrinkage of the case effects computed from its
formula, the runs redrawn from the rescaled residuals). With no run noise the
two-stage bootstrap is the one-stage bootstrap of the case means, draw for
draw, in a case design and a group design; and a stratum of a single unit
adds no variance: moving its value moves every replicate by the same amount.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from pdpaired.core import engine as _engine
from pdpaired.core import repeats as two_stage
from pdpaired.core.bootstrap import DesignResampler
from pdpaired.core.engine import Design, resample
from pdpaired.core.repeats import TwoStageResampler

SIZES = [1, 3, 9, 13]  # cases per stratum (units are cases)


CHUNK = 64


def runs_data(
    seed: int, sizes: list[int], min_runs: int = 1
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Each case's runs of A and of B: ``min_runs`` to 3 runs, sorted within a case.

    The case effect is common to both models: the improvement varies between
    cases by its run noise only.
    """
    rng = np.random.default_rng(seed)
    n = sum(sizes)
    effect = rng.normal(0.0, 1.0, n)
    runs_a, runs_b = [], []
    for i in range(n):
        ra, rb = int(rng.integers(min_runs, 4)), int(rng.integers(min_runs, 4))
        runs_a.append(np.sort(effect[i] + 0.4 + rng.normal(0.0, 0.8, ra)))
        runs_b.append(np.sort(effect[i] + rng.normal(0.0, 0.5, rb)))
    return runs_a, runs_b


def flat(runs: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    ptr = np.concatenate([[0], np.cumsum([r.size for r in runs])]).astype(np.int64)
    return ptr, np.concatenate(runs)


def case_design(
    runs_a: list[np.ndarray], runs_b: list[np.ndarray], sizes: list[int], sign: float
) -> Design:
    d = np.array([a.mean() - b.mean() for a, b in zip(runs_a, runs_b, strict=True)])
    return Design(
        value=d,
        count=None,
        unit_ptr=np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
        weight=np.array([0.1, 0.2, 0.3, 0.4]),
        sign=sign,
    )


def two_stage_of(
    runs_a: list[np.ndarray], runs_b: list[np.ndarray], design: Design, unit_of_case: np.ndarray,
    factor: np.ndarray, *, small_sample: bool = False,
) -> TwoStageResampler:  # fmt: skip
    ptr_a, flat_a = flat(runs_a)
    ptr_b, flat_b = flat(runs_b)
    base = DesignResampler(design, small_sample=small_sample)
    return TwoStageResampler(base, unit_of_case, factor, ptr_a, flat_a, ptr_b, flat_b)


def child(seed: int, *key: int) -> np.random.Generator:
    """The generator of stream ``key`` of a seed (docs: the stream registry)."""
    entropy = np.random.SeedSequence(seed).entropy
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(entropy, spawn_key=key)))


@pytest.mark.parametrize(
    ("sign", "seed", "min_runs", "noisy"),
    [(1.0, 3, 1, False), (-1.0, 3, 1, False), (1.0, 2, 2, True), (-1.0, 2, 2, True)],
)
def test_two_stage_replicates_written_out(
    monkeypatch: pytest.MonkeyPatch, sign: float, seed: int, min_runs: int, noisy: bool
) -> None:
    monkeypatch.setattr(two_stage, "_BLOCK_WORDS", 4)
    runs_a, runs_b = runs_data(seed, SIZES, min_runs)
    n = sum(SIZES)
    design = case_design(runs_a, runs_b, SIZES, sign)
    ts = two_stage_of(runs_a, runs_b, design, np.arange(n), np.ones(n))
    n_rep, seed = CHUNK + 6, 12  # two chunks, the second partial
    got, engine = ts.replicates(n_rep, np.random.SeedSequence(seed), None)
    assert engine == "two-stage"

    # the shrinkage of the case effects towards their stratum's mean, from its formula
    stratum = np.repeat(np.arange(len(SIZES)), SIZES)
    raw = np.array([a.mean() - b.mean() for a, b in zip(runs_a, runs_b, strict=True)])
    centre = np.array([raw[stratum == h].mean() for h in range(len(SIZES))])
    spread = np.sum((raw - centre[stratum]) ** 2) / (n - len(SIZES))

    def own(r: np.ndarray) -> float:
        return float(np.var(r, ddof=1) / r.size) if r.size > 1 else 0.0

    noise = sum(own(a) + own(b) for a, b in zip(runs_a, runs_b, strict=True)) / n
    # noisy: the run noise exceeds the spread (a negative between-case estimate), so the
    # cases are not spread at all and the residuals shrink to carry the spread alone
    assert (noise > spread) == noisy
    lam = math.sqrt(1.0 - noise / spread) if not noisy else 0.0
    run_scale = math.sqrt(spread / noise) if noisy else 1.0
    assert ts.shrink == pytest.approx(lam, rel=1e-12, abs=0.0)
    assert ts.run_scale == pytest.approx(run_scale, rel=1e-12)
    value = centre[stratum] + lam * (raw - centre[stratum])

    want = np.empty(n_rep)
    ptr = np.concatenate([[0], np.cumsum(SIZES)])
    for k in range(2):
        m = min(n_rep, (k + 1) * CHUNK) - k * CHUNK
        # stage one: stratum by stratum, replicate by replicate, blocks of 4 draws
        gen = child(seed, 0, k)
        drawn = np.zeros((m, n), dtype=np.int64)
        for h, g in enumerate(SIZES):
            a = int(ptr[h])
            for r in range(m):
                if g == 1:
                    drawn[r, a] = 1  # no draw at all
                    continue
                idx = np.concatenate(
                    [gen.integers(0, g, size=min(4, g - p0)) for p0 in range(0, g, 4)]
                )
                drawn[r, a : a + g] = np.bincount(idx, minlength=g)
        sums = np.zeros((m, len(SIZES)))
        for r in range(m):
            for i in range(n):
                sums[r, stratum[i]] += drawn[r, i] * value[i]
        # stage two, model by model: cases grouped by their number of runs (ascending),
        # each drawn occurrence redraws its R runs from the residuals rescaled by sqrt(R/(R-1))
        # (and by run_scale)
        for model, (runs, sgn) in enumerate(((runs_a, 1.0), (runs_b, -1.0))):
            gen = child(seed, 31, k, model)
            for size in sorted({x.size for x in runs if x.size > 1}):
                cases = [i for i in range(n) if runs[i].size == size]
                for r in range(m):
                    for i in cases:
                        resid = (runs[i] - runs[i].mean()) * math.sqrt(size / (size - 1))
                        resid *= run_scale
                        for _ in range(drawn[r, i]):
                            pick = np.floor(gen.random(size) * size).astype(int)
                            sums[r, stratum[i]] += sgn * resid[pick].sum() / size
        ratio = sums / np.array(SIZES, dtype=np.float64)  # G_h cases drawn every time
        want[k * CHUNK : k * CHUNK + m] = sign * (ratio @ design.weight)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("small_sample", [False, True])
def test_without_run_noise_two_stage_is_the_one_stage_bootstrap(
    monkeypatch: pytest.MonkeyPatch, small_sample: bool
) -> None:
    # every run of a case is the same value: nothing to redraw, nothing to shrink, and
    # stage one reads the one-stage engine's draws (one-unit stratum and large strata)
    monkeypatch.setenv("PDPAIRED_ACCELERATOR", "numpy")
    monkeypatch.setattr(two_stage, "_BLOCK_WORDS", 4)
    monkeypatch.setattr(_engine, "_BLOCK_WORDS", 4)
    rng = np.random.default_rng(8)
    n = sum(SIZES)
    mean_a, mean_b = rng.normal(0.5, 1.0, n), rng.normal(0.0, 1.0, n)
    reps = rng.integers(1, 4, size=(2, n))
    runs_a = [np.full(reps[0, i], mean_a[i]) for i in range(n)]
    runs_b = [np.full(reps[1, i], mean_b[i]) for i in range(n)]
    design = case_design(runs_a, runs_b, SIZES, -1.0)
    ts = two_stage_of(runs_a, runs_b, design, np.arange(n), np.ones(n), small_sample=small_sample)
    assert ts.shrink == 1.0
    got, _ = ts.replicates(150, np.random.SeedSequence(5), None)
    one, engine = resample(design, 150, np.random.SeedSequence(5), rescale=small_sample)
    assert engine == "numpy"
    np.testing.assert_allclose(got, one, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("weighting", ["item", "group"])
def test_without_run_noise_grouped_two_stage_is_the_one_stage_bootstrap(
    monkeypatch: pytest.MonkeyPatch, weighting: str
) -> None:
    # units are groups (a stratum of one group, two larger strata): the one-stage design
    # holds each group's sum of case means and its count (item weighting) or its mean
    # (group weighting)
    monkeypatch.setenv("PDPAIRED_ACCELERATOR", "numpy")
    monkeypatch.setattr(two_stage, "_BLOCK_WORDS", 4)
    monkeypatch.setattr(_engine, "_BLOCK_WORDS", 4)
    rng = np.random.default_rng(11)
    groups_per = [1, 6, 8]
    group_size = rng.integers(1, 5, size=sum(groups_per))
    unit_of_case = np.repeat(np.arange(group_size.size), group_size)
    n = unit_of_case.size
    d = rng.normal(0.2, 1.0, n)
    reps = rng.integers(1, 4, size=(2, n))
    runs_a = [np.full(reps[0, i], d[i] + 3.0) for i in range(n)]
    runs_b = [np.full(reps[1, i], 3.0) for i in range(n)]
    sums = np.bincount(unit_of_case, weights=d).astype(np.float64)
    count: np.ndarray | None = group_size.astype(np.int64)
    value, factor = sums, np.ones(n)
    if weighting == "group":
        value, count, factor = sums / group_size, None, 1.0 / group_size[unit_of_case]
    design = Design(
        value=value,
        count=count,
        unit_ptr=np.concatenate([[0], np.cumsum(groups_per)]).astype(np.int64),
        weight=np.array([0.2, 0.5, 0.3]),
        sign=1.0,
    )
    ts = two_stage_of(runs_a, runs_b, design, unit_of_case, factor, small_sample=True)
    got, _ = ts.replicates(130, np.random.SeedSequence(2), None)
    one, _ = resample(design, 130, np.random.SeedSequence(2), rescale=True)
    np.testing.assert_allclose(got, one, rtol=1e-12, atol=1e-13)


def test_a_one_unit_stratum_adds_no_variance(monkeypatch: pytest.MonkeyPatch) -> None:
    # moving the single case of stratum 0 (weight 0.1) by delta -- all its runs of A --
    # moves every replicate by exactly 0.1 * delta: its stage one is not drawn, its
    # residuals do not change, and the shrinkage of the others does not depend on it
    monkeypatch.setattr(two_stage, "_BLOCK_WORDS", 4)
    runs_a, runs_b = runs_data(6, SIZES)
    n = sum(SIZES)
    out = []
    for delta in (0.0, 2.5):
        ra = [r + delta if i == 0 else r for i, r in enumerate(runs_a)]
        design = case_design(ra, runs_b, SIZES, 1.0)
        ts = two_stage_of(ra, runs_b, design, np.arange(n), np.ones(n))
        out.append(ts.replicates(100, np.random.SeedSequence(4), None)[0])
    np.testing.assert_allclose(out[1] - out[0], 0.1 * 2.5, rtol=0, atol=1e-12)
    assert np.std(out[0]) > 0.01  # the other strata do vary


@pytest.mark.parametrize(("seed", "noisy"), [(5, False), (11, True)])
def test_two_stage_variance_is_the_analytic_variance(seed: int, noisy: bool) -> None:
    # 100 independent cases, 3 runs of each model, no between-case variance: the run noise
    # of the case means is 0.76 (seed 5) and 1.32 (seed 11) times the observed variance of
    # their improvements, var(d). Given the data, the bootstrap variance of the mean is
    # ((n - 1)/n * (var(d) - noise) + noise) / n when noise <= var(d), else var(d) / n: the
    # analytic var(d) / n but for the bootstrap's (n - 1)/n on the between-case part (never
    # below 0). Truncating that part at zero but keeping all the run noise (noise / n)
    # would be 32% too large for seed 11. The variance of 20,000 near-normal replicates
    # has a relative Monte Carlo SE of sqrt(2 / 19,999) = 1.0%; we allow 4 of them.
    n = 100
    runs_a, runs_b = runs_data(seed, [n], min_runs=3)
    d = np.array([a.mean() - b.mean() for a, b in zip(runs_a, runs_b, strict=True)])
    spread = float(np.var(d, ddof=1))
    noise = float(np.mean([np.var(a, ddof=1) / 3 + np.var(b, ddof=1) / 3
                           for a, b in zip(runs_a, runs_b, strict=True)]))  # fmt: skip
    assert (noise > spread) == noisy
    between = max(0.0, spread - noise)
    want = ((n - 1) / n * between + min(noise, spread)) / n
    design = Design(
        value=d, count=None, unit_ptr=np.array([0, n]), weight=np.array([1.0]), sign=1.0
    )
    ts = two_stage_of(runs_a, runs_b, design, np.arange(n), np.ones(n))
    got, _ = ts.replicates(20_000, np.random.SeedSequence(seed), None)
    assert np.var(got, ddof=1) == pytest.approx(want, rel=0.04)
    # and the analytic variance of the mean of run means, up to (n - 1)/n on `between`
    assert want == pytest.approx(spread / n, rel=1.0 / n)
