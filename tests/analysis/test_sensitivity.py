"""Missing-outcome sensitivity (``Comparison.sensitivity``) on tables with closed-form bounds."""

from __future__ import annotations

import html
import json
import math
import re

import matplotlib as mpl
import numpy as np
import pandas as pd
import pytest
from scipy import optimize, stats

import pdpaired
import pdpaired.dask  # noqa: F401

mpl.use("Agg")


def long(a: np.ndarray, b: np.ndarray, drop_b_rows: np.ndarray | None = None) -> pd.DataFrame:
    n = a.size
    df = pd.DataFrame(
        {
            "case_id": np.tile(np.arange(n), 2),
            "model": np.repeat(["a", "b"], n),
            "score": np.concatenate([a, b]),
        }
    )
    if drop_b_rows is not None:  # an absent row is a missing outcome too
        df = df.drop(index=n + drop_b_rows)
    return df


def se_of(d: np.ndarray) -> float:
    return float(d.std(ddof=1) / math.sqrt(d.size))


def im_critical(width: float, sigma: float, level: float) -> float:
    """Imbens-Manski critical value, solved here with scipy."""
    f = lambda c: stats.norm.cdf(c + width / sigma) - stats.norm.cdf(-c) - level  # noqa: E731
    return optimize.brentq(f, 0.0, 10.0, xtol=1e-14)


@pytest.fixture(scope="module")
def table() -> tuple[pd.DataFrame, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    n = 120
    a = rng.uniform(2, 9, n)
    b = rng.uniform(1, 8, n)
    miss_a = np.zeros(n, bool)
    miss_a[:10] = True
    miss_b = np.zeros(n, bool)
    miss_b[5:12] = True
    a_obs, b_obs = a.copy(), b.copy()
    a_obs[miss_a] = np.nan
    df = long(a_obs, b_obs, drop_b_rows=np.nonzero(miss_b)[0])
    return df, a, b, miss_a, miss_b


@pytest.mark.parametrize("policy", ["complete-case", "as-failure"])
def test_bounds_are_the_worst_and_best_fills(table, policy) -> None:
    df, a, b, miss_a, miss_b = table
    kw = {"fill_value": 0.0} if policy == "as-failure" else {}
    cmp = df.paired.compare("a", "b", higher_is_better=True, missing=policy, **kw)
    res = cmp.sensitivity(lower=0, upper=10)
    d_low = np.where(miss_a, 0.0, a) - np.where(miss_b, 10.0, b)
    d_high = np.where(miss_a, 10.0, a) - np.where(miss_b, 0.0, b)
    assert res.bounds.low == pytest.approx(d_low.mean(), abs=1e-12)
    assert res.bounds.high == pytest.approx(d_high.mean(), abs=1e-12)
    # closed form: the width is the range times the share of cases with a missing output
    share = (miss_a.sum() + miss_b.sum()) / a.size
    assert res.bounds.high - res.bounds.low == pytest.approx(10 * share, abs=1e-12)
    assert (res.n_missing_a, res.n_missing_b, res.n_missing_both) == (10, 7, 5)
    assert res.n_cases == 120
    # Imbens-Manski, from the two ends' standard errors
    s_lo, s_hi = se_of(d_low), se_of(d_high)
    assert res.standard_errors.low == pytest.approx(s_lo, rel=1e-10)
    c = im_critical(d_high.mean() - d_low.mean(), max(s_lo, s_hi), 0.95)
    assert res.confidence_interval.low == pytest.approx(d_low.mean() - c * s_lo, rel=1e-9)
    assert res.confidence_interval.high == pytest.approx(d_high.mean() + c * s_hi, rel=1e-9)
    assert stats.norm.ppf(0.95) < c < stats.norm.ppf(0.975)


def test_tipping_point_flips_the_verdict() -> None:
    rng = np.random.default_rng(0)
    n = 300
    a = rng.uniform(0.3, 1.0, n)
    b = rng.uniform(0.2, 0.9, n)
    miss_a = np.zeros(n, bool)
    miss_a[:60] = True  # A misses many more outputs than B: the fill matters
    a_obs = a.copy()
    a_obs[miss_a] = np.nan
    cmp = long(a_obs, b).paired.compare("a", "b", higher_is_better=True, missing="complete-case")
    res = cmp.sensitivity(lower=0, upper=1)
    tip = res.tipping_point
    assert tip is not None
    assert 0 < tip < 1
    z = stats.norm.ppf(0.975)

    def verdict(v: float) -> str:
        d = np.where(miss_a, v, a) - b
        lo, hi = d.mean() - z * se_of(d), d.mean() + z * se_of(d)
        return "a_better" if lo > 0 else "b_better" if hi < 0 else "inconclusive"

    assert verdict(tip - 1e-6) == verdict(0.0) == res.fill_verdict[0]
    assert verdict(tip + 1e-6) != verdict(0.0)
    frame = res.to_frame()
    assert list(frame.columns) == ["fill", "improvement", "low", "high", "verdict"]
    # the improvement is linear in the fill: slope = missing share of A
    slope = np.polyfit(frame.fill, frame.improvement, 1)[0]
    assert slope == pytest.approx(60 / 300, rel=1e-9)


def test_binary_scores_need_no_range_and_lower_is_better_flips() -> None:
    a = np.array([1, 1, 0, 1, np.nan, np.nan, 1, 0, 1, 1] * 5, dtype=float)
    b = np.array([0, 1, 0, 0, 1, 0, np.nan, 0, 1, 0] * 5, dtype=float)
    df = long(a, b)
    res = df.paired.compare("a", "b", higher_is_better=True, missing="complete-case").sensitivity()
    ma, mb = np.isnan(a), np.isnan(b)
    lo = (np.where(ma, 0, a) - np.where(mb, 1, b)).mean()
    hi = (np.where(ma, 1, a) - np.where(mb, 0, b)).mean()
    assert (res.lower, res.upper) == (0.0, 1.0)
    assert res.bounds.low == pytest.approx(lo)
    assert res.bounds.high == pytest.approx(hi)
    # lower is better: A's worst is 1, and the improvement is B - A
    inv = df.paired.compare("a", "b", higher_is_better=False, missing="complete-case").sensitivity()
    lo_inv = -(np.where(ma, 1, a) - np.where(mb, 0, b)).mean()
    hi_inv = -(np.where(ma, 0, a) - np.where(mb, 1, b)).mean()
    assert inv.bounds.low == pytest.approx(lo_inv)
    assert inv.bounds.high == pytest.approx(hi_inv)


def test_no_missing_outcomes_gives_a_point() -> None:
    rng = np.random.default_rng(1)
    a, b = rng.binomial(1, 0.7, 80).astype(float), rng.binomial(1, 0.5, 80).astype(float)
    res = long(a, b).paired.compare("a", "b", higher_is_better=True).sensitivity()
    assert res.bounds.low == res.bounds.high == pytest.approx((a - b).mean())
    z = stats.norm.ppf(0.975)
    assert res.confidence_interval.low == pytest.approx((a - b).mean() - z * se_of(a - b))
    assert res.tipping_point is None


def test_errors() -> None:
    a = np.array([0.5, 2.0, 3.0, np.nan, 1.0, 2.5])
    b = np.array([1.0, 1.5, 2.0, 2.0, 0.5, 2.0])
    cmp = long(a, b).paired.compare("a", "b", higher_is_better=True, missing="complete-case")
    with pytest.raises(ValueError, match="`lower` and `upper`"):
        cmp.sensitivity()  # unbounded continuous scores
    with pytest.raises(ValueError, match="outside"):
        cmp.sensitivity(lower=0, upper=2.5)
    with pytest.raises(ValueError, match="below"):
        cmp.sensitivity(lower=5, upper=0)
    with pytest.raises(ValueError, match="finite"):
        cmp.sensitivity(lower=0, upper=math.inf)
    with pytest.raises(ValueError, match="confidence_level"):
        cmp.sensitivity(lower=0, upper=5, confidence_level=2)


def test_views(table) -> None:
    import matplotlib.pyplot as plt

    df = table[0]
    res = df.paired.compare("a", "b", higher_is_better=True, missing="complete-case").sensitivity(
        lower=0, upper=10
    )
    json.dumps(res.to_dict(), allow_nan=False)
    assert "Identified set" in str(res)
    assert "<img" in res._repr_html_()
    assert res.plot() is plt.gca()
    plt.close("all")


def rows_of(res) -> dict[str, str]:
    """The rows of a sensitivity's text view, by label."""
    pairs = [re.split(r"\s{2,}", ln, maxsplit=1) for ln in str(res).splitlines()[1:]]
    return {k: v for k, v in pairs}


def html_cell(page: str, label: str) -> str:
    (cell,) = re.findall(rf"<th[^>]*>{label}</th><td[^>]*>(.*?)</td>", page)
    return html.unescape(cell)


def markdown_cell(page: str, label: str) -> str:
    (cell,) = re.findall(rf"^\| {label} \| (.*) \|$", page, flags=re.MULTILINE)
    return cell.replace("\\_", "_").replace("\\[", "[").replace("\\]", "]")


def views_agree(res) -> str:
    """The conclusion, which the text, HTML and Markdown views state alike."""
    text = rows_of(res)["Conclusion"]
    assert html_cell(res._repr_html_(), "Conclusion") == text
    assert markdown_cell(res.to_markdown(), "Conclusion") == text
    return text


def sensitivity_of(a: np.ndarray, b: np.ndarray):
    cmp = long(a, b).paired.compare("a", "b", higher_is_better=True, missing="complete-case")
    return cmp.sensitivity(lower=0, upper=1)


def test_conclusion_with_a_tipping_point_says_the_fill_could_change_it() -> None:
    rng = np.random.default_rng(0)
    a, b = rng.uniform(0.3, 1.0, 300), rng.uniform(0.2, 0.9, 300)
    a[:60] = np.nan  # A misses many outputs: the fill decides
    res = sensitivity_of(a, b)
    tip = res.tipping_point
    assert tip is not None
    frame = res.to_frame()
    before, after = frame.verdict.iloc[0], frame.verdict[frame.fill >= tip].iloc[0]
    assert (before, after) == ("inconclusive", "a_better")
    assert rows_of(res)["Tipping point"] == (
        f"{tip:.4g} (filling every missing output with it turns 'inconclusive' into 'a_better')"
    )
    assert views_agree(res) == (
        f"the missing outputs could change the verdict: filled with {tip:.4g}, they turn "
        "'inconclusive' into 'a_better'"
    )


def test_conclusion_without_a_tipping_point_says_the_fills_cannot_change_it() -> None:
    rng = np.random.default_rng(0)
    n = 300
    a, b = rng.uniform(0, 1, n), rng.uniform(0, 1, n)
    a[:3] = np.nan  # three missing outputs cannot move an inconclusive verdict
    res = sensitivity_of(a, b)
    frame = res.to_frame()
    assert res.tipping_point is None
    assert set(frame.verdict) == {"inconclusive"}
    assert res.confidence_interval.low < 0 < res.confidence_interval.high
    assert rows_of(res)["Tipping point"] == (
        "none: every fill in the range gives the same verdict (inconclusive)"
    )
    conclusion = views_agree(res)
    assert conclusion == (
        "the missing outputs cannot change the verdict within the range examined: every fill "
        "in [0, 1], the same for both models, gives 'inconclusive'"
    )
    assert "could" not in str(res)
    assert "could" not in re.sub(r"<img[^>]*>", "", res._repr_html_())
    # to_frame is the fill path, as it was
    assert list(frame.columns) == ["fill", "improvement", "low", "high", "verdict"]
    assert len(frame) == 101


def test_conclusion_when_the_interval_settles_it_whatever_the_fills() -> None:
    rng = np.random.default_rng(0)
    n = 300
    a, b = rng.uniform(0.3, 1, n), rng.uniform(0, 0.8, n)
    a[:3] = np.nan
    res = sensitivity_of(a, b)
    assert res.tipping_point is None
    assert set(res.to_frame().verdict) == {"a_better"}
    assert res.conclusion == "a_better"
    assert views_agree(res) == (
        "the missing outputs cannot change the verdict: A is better whatever the missing "
        "outputs were"
    )


def test_conclusion_names_the_fills_it_holds_for_when_the_set_reaches_past_zero() -> None:
    # both models miss the same cases: one fill for both cancels, different fills do not
    rng = np.random.default_rng(2)
    n = 400
    b = rng.uniform(0, 0.9, n)
    a = np.clip(b + 0.06 + rng.normal(0, 0.05, n), 0, 1)
    a[:40] = b[:40] = np.nan
    res = sensitivity_of(a, b)
    ci = res.confidence_interval
    assert res.tipping_point is None
    assert set(res.to_frame().verdict) == {"a_better"}
    assert ci.low < 0 < ci.high
    assert res.conclusion == "inconclusive"
    assert views_agree(res) == (
        "the missing outputs cannot change the verdict within the range examined: every fill "
        "in [0, 1], the same for both models, gives 'a_better'; fills that differ between the "
        f"models might change it (the Imbens-Manski interval [{ci.low:+.4g}, {ci.high:+.4g}] "
        "includes 0)"
    )


def test_conclusion_without_missing_outputs_and_in_prediction_mode() -> None:
    rng = np.random.default_rng(1)
    a, b = rng.binomial(1, 0.7, 80).astype(float), rng.binomial(1, 0.5, 80).astype(float)
    none = long(a, b).paired.compare("a", "b", higher_is_better=True).sensitivity()
    assert rows_of(none)["Tipping point"] == "none: no output is missing"
    assert views_agree(none) == "no output is missing, so nothing can change the verdict"
    # prediction mode: no fill path, the conclusion is the interval's
    n = 200
    y = rng.integers(0, 2, n)
    pa, pb = np.clip(y * 0.5 + rng.uniform(0, 0.5, n), 0, 1), rng.uniform(0, 1, n)
    pa[:20] = np.nan
    df = pd.DataFrame({"case_id": np.tile(np.arange(n), 2), "model": np.repeat(["a", "b"], n),
                       "target": np.tile(y, 2), "p": np.concatenate([pa, pb])})  # fmt: skip
    pred = (
        df.paired(target="target", prediction="p")
        .compare("a", "b", metric="accuracy", missing="complete-case")
        .sensitivity(rng=0)
    )
    assert pred.confidence_interval.low > 0
    assert rows_of(pred)["Tipping point"] == (
        "not computed (prediction mode: the metric is not linear in a fill value)"
    )
    assert views_agree(pred) == "A is better whatever the missing outputs were"


def test_text_view_escapes_the_model_names() -> None:
    rng = np.random.default_rng(0)
    a, b = rng.uniform(0, 1, 50), rng.uniform(0, 1, 50)
    a[:3] = np.nan
    df = long(a, b).replace({"model": {"a": "new\x1b[2J", "b": "old\nB"}})
    res = df.paired.compare("new\x1b[2J", "old\nB", higher_is_better=True,
                            missing="complete-case").sensitivity(lower=0, upper=1)  # fmt: skip
    text = str(res)
    assert "\x1b" not in text
    assert rows_of(res)["Comparison"] == "new\\x1b[2J vs old\\nB, mean (higher is better)"


def test_caller_frame_untouched(table) -> None:
    df = table[0]
    before = df.copy()
    df.paired.compare("a", "b", higher_is_better=True, missing="complete-case").sensitivity(
        lower=0, upper=10
    )
    pd.testing.assert_frame_equal(df, before)


def test_prediction_mode_binary_bounds() -> None:
    """Missing probabilities at 0 / 1 for the true class: accuracy bounds in closed form."""
    rng = np.random.default_rng(5)
    n = 200
    y = rng.integers(0, 2, n)
    pa = np.clip(y * 0.5 + rng.uniform(0, 0.5, n), 0, 1)
    pb = rng.uniform(0, 1, n)
    pa_obs = pa.copy()
    pa_obs[:20] = np.nan
    df = pd.DataFrame(
        {
            "case_id": np.tile(np.arange(n), 2),
            "model": np.repeat(["a", "b"], n),
            "target": np.tile(y, 2),
            "p": np.concatenate([pa_obs, pb]),
        }
    )
    cmp = df.paired(target="target", prediction="p").compare(
        "a", "b", metric="accuracy", missing="complete-case"
    )
    res = cmp.sensitivity(rng=0)
    right_a = (pa > 0.5) == (y == 1)
    right_b = (pb > 0.5) == (y == 1)
    acc_b = right_b.mean()
    low = (right_a[20:].sum() + 0) / n - acc_b  # missing predictions all wrong
    high = (right_a[20:].sum() + 20) / n - acc_b  # all right
    assert res.bounds.low == pytest.approx(low, abs=1e-12)
    assert res.bounds.high == pytest.approx(high, abs=1e-12)
    assert res.tipping_point is None
    assert res.seed == 0
    assert res.confidence_interval.low < low
    assert res.confidence_interval.high > high


dd = pytest.importorskip("dask.dataframe")


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


class TestOnDask:
    """``cmp.sensitivity()`` on the Dask path equals the pandas path on the same data.

    The Dask backend reduces the long table to the same per-unit sums of the
    observed outputs and counts of missing ones (``PairsBackend.fill_units``);
    the sensitivity arithmetic is then shared, so the two paths differ only in
    the order floating-point sums are taken: every number agrees to 1e-12
    relative (the sums hold at most a few thousand terms of size <= 10, so the
    rounding differences are below 1e-13 relative).
    """

    @pytest.mark.parametrize("policy", ["complete-case", "as-failure"])
    @pytest.mark.parametrize(
        ("binary", "groups", "strata"),
        [(True, False, False), (False, False, False), (False, True, False), (True, False, True),
         (False, True, True)],
    )  # fmt: skip
    def test_dask_sensitivity_equals_pandas(self, policy, binary, groups, strata) -> None:
        df = _table(binary, groups=groups, strata=strata)
        kw = {} if binary else {"lower": 0.0, "upper": 10.0}
        fill = {} if binary or policy != "as-failure" else {"fill_value": 0.0}
        config = {"group": "group" if groups else None, "stratum": "stratum" if strata else None}
        pd_cmp = df.paired(**config).compare(
            "a", "b", higher_is_better=True, missing=policy, **fill
        )
        ddf = dd.from_pandas(df, npartitions=4)
        dk_cmp = ddf.paired(**config).compare(
            "a", "b", higher_is_better=True, missing=policy, **fill
        )
        _same(pd_cmp.sensitivity(**kw), dk_cmp.sensitivity(**kw))

    def test_dask_sensitivity_ignores_the_partitioning(self) -> None:
        df = _table(True, groups=False, strata=False)
        res = [
            dd.from_pandas(df, npartitions=k).paired.compare(
                "a", "b", higher_is_better=True, missing="complete-case").sensitivity()
            for k in (1, 3, 7)
        ]  # fmt: skip
        for r in res[1:]:
            _same(res[0], r)

    def test_dask_sensitivity_refuses_unbounded_scores(self) -> None:
        df = _table(False, groups=False, strata=False)
        cmp = dd.from_pandas(df, npartitions=2).paired.compare(
            "a", "b", higher_is_better=True, missing="complete-case")  # fmt: skip
        with pytest.raises(ValueError, match="`lower` and `upper`"):
            cmp.sensitivity()
        with pytest.raises(ValueError, match="outside"):
            cmp.sensitivity(lower=0.0, upper=5.0)
