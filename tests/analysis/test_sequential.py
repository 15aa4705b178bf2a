"""Sequential monitoring: anytime-valid confidence sequences.

* An independent implementation of Waudby-Smith & Ramdas (2024), Theorem 2
  (the predictable-mixture empirical-Bernstein CS), written here as a plain
  loop from the paper's formulas, agrees with the module to ~1e-12.
* Time-uniform coverage under continuous peeking (slow): over thousands of
  simulated streams with a look after every case, the share of streams whose
  sequence ever excludes the true mean is at most alpha plus Monte Carlo
  error, while the fixed-sample t interval looked at after every case
  excludes it far more often.
* Monitor: any batch sizes give bit-identical bounds; it pickles mid-stream.
* Direction, groups, strata, row order, views, plot and errors.
"""

from __future__ import annotations

import json
import math
import pickle
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import pdpaired
from pdpaired.core.sequential import SequenceState, extend, sequence_iv

from ..conftest import long_table


# --------------------------------------------------------------------------- reference
def prpl_eb_reference(
    d: np.ndarray, bounds: tuple[float, float], alpha: float, alternative: str = "two-sided"
) -> tuple[np.ndarray, np.ndarray]:
    """Waudby-Smith & Ramdas (2024, JRSS-B), Theorem 2, one observation at a time.

    Data mapped to [0, 1]; mu_hat_t = (1/2 + sum x) / (t + 1), sigma2_hat_t =
    (1/4 + sum (x_i - mu_hat_i)^2) / (t + 1), lambda_t = min(sqrt(2 log(2/alpha)
    / (sigma2_hat_{t-1} t log(1 + t))), 1/2), v_i = 4 (x_i - mu_hat_{i-1})^2,
    psi_E(l) = (-log(1 - l) - l) / 4, and C_t = sum(l x)/sum(l) +- (log(2/alpha)
    + sum v psi_E(l)) / sum(l), intersected with [0, 1]. One-sided: log(1/alpha).
    """
    lo, hi = bounds
    w = hi - lo
    log_term = math.log((2.0 if alternative == "two-sided" else 1.0) / alpha)
    mu_prev, sigma2_prev = 0.5, 0.25
    sum_x = sum_sq = 0.0
    s_lam = s_lam_x = s_v_psi = 0.0
    lows, highs = [], []
    for t, di in enumerate(d, start=1):
        x = (di - lo) / w
        lam = min(math.sqrt(2 * log_term / (sigma2_prev * t * math.log(1 + t))), 0.5)
        v = 4 * (x - mu_prev) ** 2
        psi = (-math.log(1 - lam) - lam) / 4
        s_lam += lam
        s_lam_x += lam * x
        s_v_psi += v * psi
        center = s_lam_x / s_lam
        margin = (log_term + s_v_psi) / s_lam
        low = max(center - margin, 0.0) if alternative != "less" else 0.0
        high = min(center + margin, 1.0) if alternative != "greater" else 1.0
        lows.append(lo + w * low)
        highs.append(lo + w * high)
        sum_x += x
        mu = (0.5 + sum_x) / (t + 1)
        sum_sq += (x - mu) ** 2
        mu_prev, sigma2_prev = mu, (0.25 + sum_sq) / (t + 1)
    return np.array(lows), np.array(highs)


def path(d: np.ndarray, bounds: tuple[float, float] = (-1.0, 1.0), alpha: float = 0.05,
         alternative: str = "two-sided") -> Any:  # fmt: skip
    opts = sequence_iv(alpha=alpha, alternative=alternative, bounds=bounds)
    return extend(SequenceState(), np.asarray(d, dtype=np.float64), opts)


STREAMS = {
    "binary": lambda rng, n: (rng.binomial(1, 0.7, n) - rng.binomial(1, 0.55, n)).astype(float),
    "continuous": lambda rng, n: rng.beta(2.0, 5.0, n) - rng.beta(2.0, 3.0, n),
    "constant": lambda rng, n: np.full(n, 0.25),
    "one-valued-then-other": lambda rng, n: np.r_[np.ones(n // 2), -np.ones(n - n // 2)],
}


@pytest.mark.parametrize("kind", sorted(STREAMS))
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_matches_an_independent_implementation_of_theorem_2(kind: str, alternative: str) -> None:
    rng = np.random.default_rng(11)
    d = STREAMS[kind](rng, 700)
    for bounds, alpha in [((-1.0, 1.0), 0.05), ((-1.5, 2.0), 0.1), ((-1.0, 1.0), 0.001)]:
        got, _ = path(d, bounds, alpha, alternative)
        low, high = prpl_eb_reference(d, bounds, alpha, alternative)
        np.testing.assert_allclose(got.low, low, rtol=0, atol=1e-12)
        np.testing.assert_allclose(got.high, high, rtol=0, atol=1e-12)
        np.testing.assert_allclose(got.high - got.low, high - low, rtol=0, atol=1e-12)
        np.testing.assert_allclose(got.estimate, np.cumsum(d) / np.arange(1, d.size + 1),
                                   rtol=0, atol=1e-12)  # fmt: skip


def test_comparison_sequence_is_the_reference_on_the_ordered_differences() -> None:
    rng = np.random.default_rng(5)
    n = 400
    a, b = rng.binomial(1, 0.65, n), rng.binomial(1, 0.5, n)
    arrival = rng.permutation(n)
    df = long_table(a, b, arrival=arrival)
    res = df.paired.compare("A", "B", higher_is_better=True).sequential("arrival")
    d = (a - b)[np.argsort(arrival)].astype(float)
    low, high = prpl_eb_reference(d, (-1.0, 1.0), 0.05)
    frame = res.to_frame()
    assert list(frame.columns) == ["n", "estimate", "low", "high"]
    assert frame["n"].tolist() == list(range(1, n + 1))
    np.testing.assert_allclose(frame["low"], low, rtol=0, atol=1e-12)
    np.testing.assert_allclose(frame["high"], high, rtol=0, atol=1e-12)
    assert res.estimate == pytest.approx(np.mean(a - b), abs=1e-12)
    excluded = np.flatnonzero((low > 0) | (high < 0))
    assert res.stopped_at == (int(excluded[0]) + 1 if excluded.size else None)


def test_a_real_difference_is_found_and_the_sequence_narrows() -> None:
    rng = np.random.default_rng(3)
    d = STREAMS["binary"](rng, 3000)  # mean 0.15
    p, state = path(d)
    width = p.high - p.low
    assert state.stopped_at is not None
    assert state.stopped_at < 3000
    assert width[-1] < 0.12
    assert width[99] > width[999] > width[-1]
    assert p.low[-1] < 0.15 < p.high[-1]


# --------------------------------------------------------------------------- Monitor
def test_monitor_batches_give_bit_identical_bounds() -> None:
    rng = np.random.default_rng(2)
    d = rng.beta(2, 5, 2000) - rng.beta(3, 3, 2000)
    whole, final = path(d)
    for trial in range(5):
        cuts = np.sort(rng.choice(np.arange(1, d.size), size=[1, 7, 40, 200, 600][trial],
                                  replace=False))  # fmt: skip
        mon = pdpaired.Monitor(bounds=(-1, 1), alpha=0.05)
        for part in np.split(d, cuts):
            res = mon.update(part)
        frame = res.to_frame()
        at = frame["n"].to_numpy() - 1
        assert frame["n"].tolist() == [*cuts.tolist(), d.size]
        assert (frame["low"].to_numpy() == whole.low[at]).all()  # exactly, not approximately
        assert (frame["high"].to_numpy() == whole.high[at]).all()
        assert (frame["estimate"].to_numpy() == whole.estimate[at]).all()
        assert mon.state == final
        assert res.stopped_at == final.stopped_at
    one_by_one = pdpaired.Monitor()
    for x in d[:300]:
        res = one_by_one.update(x)  # a scalar is one difference
    frame = res.to_frame()
    assert (frame["low"].to_numpy() == whole.low[:300]).all()
    assert (frame["high"].to_numpy() == whole.high[:300]).all()


def test_monitor_pickles_mid_stream_and_continues_identically() -> None:
    rng = np.random.default_rng(4)
    d = (rng.binomial(1, 0.6, 900) - rng.binomial(1, 0.5, 900)).astype(float)
    mon = pdpaired.Monitor(bounds=(-1, 1), alpha=0.1, alternative="greater")
    mon.update(d[:450])
    blob = pickle.dumps(mon)
    assert len(blob) < 2000  # small state: running sums and one row per update
    restored = pickle.loads(blob)
    assert restored.state == mon.state
    assert restored.update(d[450:]) == mon.update(d[450:])
    assert restored.result().to_frame().equals(mon.result().to_frame())
    assert repr(restored) == "Monitor(bounds=(-1, 1), alpha=0.1, alternative='greater', n=900)"


def test_monitor_before_any_data_and_empty_updates() -> None:
    mon = pdpaired.Monitor()
    res = mon.result()
    assert res.verdict == "undetermined"
    assert res.n == 0
    assert res.estimate is None
    assert res.confidence_interval.low == -1.0
    assert res.confidence_interval.high == 1.0
    assert res.to_frame().shape == (0, 4)
    assert res.fixed_interval is None
    json.dumps(res.to_dict(), allow_nan=False)
    assert mon.update([]).n == 0  # an empty batch adds no look
    assert mon.update([0.5]).to_frame().shape == (1, 4)
    assert "no observations" not in str(mon.result())


def test_monitor_matches_the_comparison() -> None:
    rng = np.random.default_rng(8)
    a, b = rng.uniform(0, 1, 300), rng.uniform(0, 1, 300)
    df = long_table(a, b)
    res = df.paired.compare("A", "B", higher_is_better=True).sequential(
        "case_id", bounds=(-1, 1), alpha=0.1
    )
    mon = pdpaired.Monitor(bounds=(-1, 1), alpha=0.1)
    for chunk in np.array_split(a - b, 6):
        got = mon.update(chunk)
    assert got.confidence_interval == res.confidence_interval
    assert got.stopped_at == res.stopped_at
    assert got.verdict == res.verdict
    assert got.fixed_interval == res.fixed_interval


# --------------------------------------------------------------------------- direction
def test_direction_positive_means_a_better_and_lower_is_better_flips() -> None:
    rng = np.random.default_rng(9)
    n = 800
    good, bad = rng.binomial(1, 0.75, n), rng.binomial(1, 0.55, n)
    df = long_table(good, bad)
    res = df.paired.compare("A", "B", higher_is_better=True).sequential("case_id")
    assert res.estimate > 0
    assert res.verdict == "a_better"
    assert res.confidence_interval.low > 0
    swapped = df.paired.compare("B", "A", higher_is_better=True).sequential("case_id")
    assert swapped.verdict == "b_better"
    assert swapped.stopped_at == res.stopped_at
    np.testing.assert_allclose(swapped.look_low, -res.look_high, atol=1e-12)
    np.testing.assert_allclose(swapped.look_high, -res.look_low, atol=1e-12)
    # the same numbers as errors (1 = wrong, lower is better): A still better
    errors = long_table(1 - good, 1 - bad)
    flipped = errors.paired.compare("A", "B", higher_is_better=False).sequential("case_id")
    assert flipped.verdict == "a_better"
    assert flipped.estimate == pytest.approx(res.estimate)
    np.testing.assert_allclose(flipped.look_low, res.look_low, atol=1e-12)
    # declared bounds are on A - B; lower-is-better mirrors them onto B - A
    mirrored = errors.paired.compare("A", "B", higher_is_better=False).sequential(
        "case_id", bounds=(-1.0, 2.0)
    )
    assert mirrored.bounds == (-2.0, 1.0)
    one_sided = df.paired.compare("A", "B", higher_is_better=True).sequential(
        "case_id", alternative="greater"
    )
    assert one_sided.confidence_interval.high == 1.0
    assert one_sided.verdict == "a_better"
    assert one_sided.stopped_at <= res.stopped_at  # log(1/alpha) < log(2/alpha)
    less = df.paired.compare("A", "B", higher_is_better=True).sequential(
        "case_id", alternative="less"
    )
    assert less.verdict == "inconclusive"
    assert less.stopped_at is None


def test_result_does_not_depend_on_row_order_and_ties_arrive_by_case_id() -> None:
    rng = np.random.default_rng(10)
    n = 200
    a, b = rng.binomial(1, 0.6, n), rng.binomial(1, 0.5, n)
    df = long_table(a, b, ids=rng.permutation(n) + 1000, batch=rng.integers(0, 20, n))
    before = df.copy()
    res = df.paired.compare("A", "B", higher_is_better=True).sequential("batch")
    pd.testing.assert_frame_equal(df, before)  # the caller's frame is untouched
    shuffled = df.sample(frac=1.0, random_state=1)
    again = shuffled.paired.compare("A", "B", higher_is_better=True).sequential("batch")
    pd.testing.assert_frame_equal(res.to_frame(), again.to_frame())
    per_case = df[df["model"] == "A"][["case_id", "batch"]].copy()
    per_case["d"] = (a - b).astype(float)
    expected = per_case.sort_values(["batch", "case_id"], kind="stable")["d"].to_numpy()
    low, _ = prpl_eb_reference(expected, (-1.0, 1.0), 0.05)
    np.testing.assert_allclose(res.look_low, low, atol=1e-12)


# --------------------------------------------------------------------------- design
def test_groups_are_observations_in_order_of_first_arrival(clustered: pd.DataFrame) -> None:
    df = clustered.copy()
    df["score"] = 1 / (1 + np.exp(-df["score"]))  # into (0, 1)
    rng = np.random.default_rng(0)
    arrival = dict(zip(df["case_id"].unique(), rng.permutation(df["case_id"].nunique()),
                       strict=True))  # fmt: skip
    df["t"] = df["case_id"].map(arrival)
    res = (
        df.paired(stratum=None)
        .compare("A", "B", higher_is_better=True)
        .sequential("t", bounds=(-1, 1))
    )
    wide = df.pivot(index="case_id", columns="model", values="score")
    cases = df.drop_duplicates("case_id").set_index("case_id")
    wide["d"], wide["group"], wide["t"] = wide["A"] - wide["B"], cases["group"], cases["t"]
    by_group = wide.groupby("group").agg(d=("d", "mean"), first=("t", "min"))
    expected = by_group.sort_values("first")["d"].to_numpy()
    low, high = prpl_eb_reference(expected, (-1.0, 1.0), 0.05)
    assert res.unit == "group"
    assert res.n == res.n_groups == 30
    assert res.n_cases == len(wide)
    np.testing.assert_allclose(res.look_low, low, atol=1e-12)
    np.testing.assert_allclose(res.look_high, high, atol=1e-12)
    assert res.estimate == pytest.approx(by_group["d"].mean())
    assert "mean difference is one observation" in str(res)


def test_strata_are_recorded_and_not_used(clustered: pd.DataFrame) -> None:
    df = clustered.copy()
    df["score"] = 1 / (1 + np.exp(-df["score"]))
    with_strata = df.paired(group=None).compare("A", "B", higher_is_better=True)
    without = df.paired(group=None, stratum=None).compare("A", "B", higher_is_better=True)
    res = with_strata.sequential("case_id", bounds=(-1, 1))
    ref = without.sequential("case_id", bounds=(-1, 1))
    assert res.n_strata == 3
    assert ref.n_strata is None
    pd.testing.assert_frame_equal(res.to_frame(), ref.to_frame())
    assert "3 strata not used" in str(res)


# --------------------------------------------------------------------------- views
def test_views_text_html_dict_and_plot() -> None:
    import matplotlib.pyplot as plt

    rng = np.random.default_rng(1)
    n = 600
    df = long_table(rng.binomial(1, 0.7, n), rng.binomial(1, 0.5, n), names=("new", "old"))
    res = df.paired.compare("new", "old", higher_is_better=True).sequential("case_id")
    text = str(res)
    for needle in ("Model A (new) mean", "95% confidence sequence", "Fixed-sample 95% t interval",
                   f"n = {res.stopped_at}", "a_better", "Waudby-Smith & Ramdas"):  # fmt: skip
        assert needle in text, needle
    assert repr(res).startswith("SequenceResult(a='new', b='old', n=600")
    d = res.to_dict()
    json.dumps(d, allow_nan=False)
    assert d["stopped_at"] == res.stopped_at
    assert d["n_looks"] == n
    fx = res.fixed_interval
    assert fx is not None
    diff = df[df.model == "new"].score.to_numpy() - df[df.model == "old"].score.to_numpy()
    ci = stats.ttest_1samp(diff, 0.0).confidence_interval(0.95)
    assert fx.low == pytest.approx(ci.low)
    assert fx.high == pytest.approx(ci.high)
    assert res.confidence_interval.low < fx.low  # the sequence pays for looking at every n
    before = plt.get_fignums()
    html = res._repr_html_()
    assert "<img" in html
    assert "confidence sequence" in html
    assert plt.get_fignums() == before
    plt.figure()
    ax = res.plot()
    assert ax is plt.gca()
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any("confidence sequence" in s for s in labels)
    assert any("fixed-sample" in s for s in labels)
    plt.close("all")


# --------------------------------------------------------------------------- errors
def test_errors_are_clear() -> None:
    rng = np.random.default_rng(0)
    cont = long_table(rng.uniform(0, 2, 50), rng.uniform(0, 1, 50), t=np.arange(50))
    cmp = cont.paired.compare("A", "B", higher_is_better=True)
    with pytest.raises(ValueError, match="`bounds` is required unless the scores are 0/1"):
        cmp.sequential("t")
    with pytest.raises(
        ValueError,
        match=r"score difference A - B\(s\) are not finite or "
        r"outside the declared bounds \[-1, 1\] \(case id: difference A - B\)",
    ):
        cmp.sequential("t", bounds=(-1, 1))  # fmt: skip
    assert cmp.sequential("t", bounds=(-1, 2)).n == 50
    with pytest.raises(ValueError, match="`alpha` must be in"):
        cmp.sequential("t", bounds=(-1, 2), alpha=1.5)
    with pytest.raises(TypeError, match="`alpha`"):
        cmp.sequential("t", bounds=(-1, 2), alpha=True)
    with pytest.raises(ValueError, match="`alternative` must be one of"):
        cmp.sequential("t", bounds=(-1, 2), alternative="bigger")
    for bad in [(1, -1), (0, 0), (-np.inf, 1)]:
        with pytest.raises(ValueError, match="`bounds` must be two finite numbers"):
            cmp.sequential("t", bounds=bad)
    for bad in [(1,), "ab", 3, (-1, "x")]:
        with pytest.raises(TypeError, match="`bounds`"):
            cmp.sequential("t", bounds=bad)
    with pytest.raises(ValueError, match="`order` column 'when' not found"):
        cmp.sequential("when", bounds=(-1, 2))
    holes = cont.copy()
    holes.loc[holes["case_id"] == 7, "t"] = np.nan
    with pytest.raises(ValueError, match=r"no value for 1 case\(s\): 7"):
        holes.paired.compare("A", "B", higher_is_better=True).sequential("t", bounds=(-1, 2))
    clash = cont.copy()
    clash.loc[(clash["case_id"] == 3) & (clash["model"] == "B"), "t"] = 99
    with pytest.raises(pdpaired.PairingError, match="t"):
        clash.paired.compare("A", "B", higher_is_better=True).sequential("t", bounds=(-1, 2))
    mon = pdpaired.Monitor()
    mon.update([0.5, -0.5])
    state = mon.state
    with pytest.raises(ValueError, match=r"1 difference\(s\) are not finite .* after 2 seen"):
        mon.update([0.1, np.nan, 0.2])
    with pytest.raises(ValueError, match=r"2 difference\(s\).*outside the declared bounds"):
        mon.update([3.0, 0.0, -2.0])
    assert mon.state == state  # nothing was added
    with pytest.raises(TypeError, match="must be numbers"):
        mon.update(["a"])
    with pytest.raises(ValueError, match="one-dimensional"):
        mon.update(np.zeros((2, 2)))
    with pytest.raises(TypeError, match="`bounds`"):
        pdpaired.Monitor(bounds=None)  # type: ignore[arg-type]


def test_prediction_mode_and_dask_refuse_clearly() -> None:
    rng = np.random.default_rng(0)
    n = 40
    df = pd.DataFrame({
        "case_id": np.tile(np.arange(n), 2), "model": np.repeat(["A", "B"], n),
        "y": np.tile(rng.integers(0, 2, n), 2), "p": rng.uniform(size=2 * n),
    })  # fmt: skip
    cmp = df.paired(target="y", prediction="p").compare("A", "B", metric="auroc")
    with pytest.raises(ValueError, match="needs per-case scores"):
        cmp.sequential("case_id")
    dd = pytest.importorskip("dask.dataframe")
    pytest.importorskip("pdpaired.dask")  # registers ddf.paired
    scores = long_table(rng.binomial(1, 0.5, n), rng.binomial(1, 0.5, n))
    ddf = dd.from_pandas(scores, npartitions=2)
    with pytest.raises(NotImplementedError, match=r"pdpaired\.Monitor"):
        ddf.paired.sequential("A", "B", order="case_id", higher_is_better=True)


def test_one_call_form_equals_the_comparison_method() -> None:
    rng = np.random.default_rng(6)
    df = long_table(rng.binomial(1, 0.6, 300), rng.binomial(1, 0.5, 300))
    one = df.paired.sequential("A", "B", order="case_id", higher_is_better=True, alpha=0.1)
    two = df.paired.compare("A", "B", higher_is_better=True).sequential("case_id", alpha=0.1)
    assert one == two
    pd.testing.assert_frame_equal(one.to_frame(), two.to_frame())


def test_every_parameter_is_documented() -> None:
    import inspect

    from pdpaired.accessor import PairedAccessor

    for fn in (pdpaired.Comparison.sequential, PairedAccessor.sequential, pdpaired.Monitor):
        params = {p for p in inspect.signature(fn).parameters if p != "self"}
        doc = inspect.getdoc(fn) or ""
        section = doc.split("Parameters\n----------\n", 1)[1].split("\n\n", 1)[0]
        documented = {
            n.strip()
            for line in section.splitlines()
            if line and not line.startswith(" ")
            for n in line.split(" : ")[0].split(",")
        }
        assert params <= documented, (fn, params - documented)
        assert "$" not in doc
