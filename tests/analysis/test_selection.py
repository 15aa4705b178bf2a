"""``select_best``: the best candidate against a baseline, with an interval for the choice.

* The numbers are ``against``'s with the same seed, fed to the core
  functions: each candidate's comparison and naive interval are its
  two-model bootstrap, the simultaneous band is ``simultaneous_band`` of the
  joint replicates, the hybrid ``hybrid_interval`` (tested against their own
  oracles in ``tests/core/test_selection.py``).
* The best is chosen by the direction-adjusted improvement (lower is better
  picks the lowest metric), ties to the first candidate; results do not
  depend on row order.
* Views: text with the verdict sentence, HTML escaped, a frame per
  candidate, a JSON-safe dict, a plot.
* Bad arguments raise errors that name the rule; a single resample gives NaN
  intervals (no band), not an error.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import pdpaired
from pdpaired import DegenerateDataWarning, SelectionResult
from pdpaired.core.multi import simultaneous_band
from pdpaired.core.selection import hybrid_interval

from ..conftest import assert_identical
from .test_multi import many

EFFECTS = (0.0, 0.05, -0.03, 0.12, 0.1)  # m0 the baseline, m3 the best


def _design_df(res: pdpaired.MultiResult) -> tuple[float, float]:
    n = res.comparisons[0].n_cases
    return float(n - 1), n / (n - 1)  # independent cases, score mode


@pytest.mark.parametrize("interval", ["max-t", "hybrid"])
def test_numbers_are_against_fed_to_the_core(interval: str) -> None:
    df = many(200, EFFECTS, seed=1)
    cands = ["m1", "m2", "m3", "m4"]
    res = df.paired.select_best(cands, "m0", higher_is_better=True, rng=3,
                                n_resamples=800, interval=interval)  # fmt: skip
    ag = df.paired.against(
        "m0", cands, higher_is_better=True, rng=3, n_resamples=800, simultaneous=False
    )
    est = np.array([r.improvement for r in ag.comparisons])
    dof, factor = _design_df(ag)
    band = simultaneous_band(est, ag.bootstrap_distribution, confidence_level=0.95, df=dof,
                             variance_factor=factor)  # fmt: skip
    assert res.selected == "m3"
    assert res.index == 2
    for mine, theirs in zip(res.comparisons, ag.comparisons, strict=True):
        assert_identical(mine, theirs)
    np.testing.assert_array_equal(res.band_low, band.low)
    np.testing.assert_array_equal(res.band_high, band.high)
    assert res.critical_value == band.critical_value
    if interval == "max-t":
        want = (band.low[2], band.high[2])
    else:
        want = hybrid_interval(est, ag.bootstrap_distribution, 2, confidence_level=0.95,
                               df=dof, variance_factor=factor)  # fmt: skip
    assert (res.confidence_interval.low, res.confidence_interval.high) == want
    assert res.method == interval
    two = df.paired.bootstrap("m3", "m0", higher_is_better=True, rng=3, n_resamples=800)
    assert res.naive_interval == two.confidence_interval
    assert res.improvement == two.improvement
    assert res.seed == 3
    assert res.n_cases == 200


def test_lower_is_better_picks_the_lowest_metric() -> None:
    df = many(200, EFFECTS, seed=1)
    df["loss"] = -df["score"]
    res = df.paired(score="loss").select_best(["m1", "m2", "m4"], "m0", higher_is_better=False,
                                              rng=0, n_resamples=500)  # fmt: skip
    means = df.groupby("model")["loss"].mean()
    assert res.selected == means[["m1", "m2", "m4"]].idxmin() == "m4"
    assert res.improvement == pytest.approx(means["m0"] - means["m4"])
    assert res.improvement > 0


def test_candidates_default_to_every_other_model_and_ties_go_to_the_first() -> None:
    df = many(120, (0.0, 0.1, 0.1), seed=2)
    df.loc[df.model == "m2", "score"] = df.loc[df.model == "m1", "score"].to_numpy()
    with pytest.warns(DegenerateDataWarning, match="2 candidates tie for the best"):
        res = df.paired.select_best(None, "m0", higher_is_better=True, rng=0,
                                    n_resamples=300, interval="hybrid")  # fmt: skip
    assert res.candidates == ("m1", "m2")
    assert res.selected == "m1"
    assert res.method == "max-t"  # the hybrid's fallback at a tie, said by the warning


def test_row_order_does_not_matter() -> None:
    df = many(150, EFFECTS, seed=4)
    kw = {"higher_is_better": True, "rng": 7, "n_resamples": 400}
    a = df.paired.select_best(["m1", "m3", "m4"], "m0", **kw)
    b = df.sample(frac=1.0, random_state=1).paired.select_best(["m1", "m3", "m4"], "m0", **kw)
    assert a == b
    np.testing.assert_array_equal(a.band_low, b.band_low)


def test_clusters_resample_whole_groups_jointly() -> None:
    n = 200
    df = many(n, EFFECTS, seed=5, group=np.arange(n) // 4)
    res = df.paired.select_best(["m1", "m3"], "m0", higher_is_better=True, rng=0,
                                n_resamples=400)  # fmt: skip
    ag = df.paired.against(
        "m0", ["m1", "m3"], higher_is_better=True, rng=0, n_resamples=400, simultaneous=False
    )
    band = simultaneous_band(
        np.array([r.improvement for r in ag.comparisons]), ag.bootstrap_distribution,
        confidence_level=0.95, df=49.0, variance_factor=1.0,  # Rao-Wu rescaled clusters
    )  # fmt: skip
    assert res.comparisons[0].unit == "group"
    np.testing.assert_array_equal(res.band_low, band.low)


def test_views() -> None:
    df = many(150, EFFECTS, seed=6)
    df["model"] = df["model"].replace({"m3": "<b>m3</b>"})
    res = df.paired.select_best(None, "m0", higher_is_better=True, rng=0, n_resamples=400)
    assert isinstance(res, SelectionResult)
    assert type(res).__module__ == "pdpaired"
    text = str(res)
    assert text.startswith("Verdict: ")
    assert "accounting for choosing the best of 4 candidates" in text
    assert "naive (as if named in advance)" in text
    html = res._repr_html_()
    assert "<b>m3</b>" not in html
    assert "&lt;b&gt;m3&lt;/b&gt;" in html
    frame = res.to_frame()
    assert list(frame.columns) == [
        "candidate", "baseline", "metric_candidate", "metric_baseline", "improvement",
        "simultaneous_low", "simultaneous_high", "naive_low", "naive_high", "selected",
    ]  # fmt: skip
    assert frame.selected.sum() == 1
    assert frame.loc[frame.selected, "candidate"].item() == res.selected
    wider = (frame.simultaneous_high - frame.simultaneous_low) > (
        frame.naive_high - frame.naive_low
    )
    assert wider.all()
    d = res.to_dict()
    json.dumps(d, allow_nan=False)
    assert d["selected"] == res.selected
    assert d["confidence_interval"]["low"] == res.confidence_interval.low
    ci = res.confidence_interval
    assert res.verdict == ("a_better" if ci.low > 0 else "inconclusive")
    assert "SelectionResult(selected=" in repr(res)


def test_plot_draws_every_candidate() -> None:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    res = many(100, EFFECTS, seed=7).paired.select_best(
        None, "m0", higher_is_better=True, rng=0, n_resamples=200
    )
    ax = res.plot(ax=Figure().subplots())
    labels = {t.get_text(): t.get_position()[1] for t in ax.get_yticklabels()}
    assert sorted(labels, key=labels.get, reverse=True) == ["m1", "m2", "m3", "m4"]  # top down


@pytest.mark.parametrize(
    ("kw", "error", "match"),
    [
        ({"candidates": ["m1", "m0"]}, ValueError, "must not include the baseline"),
        ({"candidates": ["m1", "m1"]}, ValueError, "lists a model more than once"),
        ({"candidates": "m1"}, TypeError, "must be a list of model labels"),
        ({"interval": "akm"}, ValueError, "`interval` must be 'max-t' or 'hybrid'"),
        ({"confidence_level": 1.5}, ValueError, "confidence_level"),
        ({"n_resamples": "auto"}, ValueError, "not available for several comparisons"),
    ],
)
def test_bad_arguments_name_the_rule(kw: dict, error: type, match: str) -> None:
    df = many(60, EFFECTS, seed=0)
    args = {"candidates": ["m1", "m2"], "baseline": "m0", "higher_is_better": True, "rng": 0,
            "n_resamples": 100}  # fmt: skip
    args.update(kw)
    with pytest.raises(error, match=match):
        df.paired.select_best(args.pop("candidates"), args.pop("baseline"), **args)


def test_cases_dropped_for_some_candidates_are_refused() -> None:
    df = many(80, EFFECTS, seed=0)
    df.loc[(df.model == "m2") & (df.case_id < 3), "score"] = np.nan
    with pytest.raises(ValueError, match="needs every candidate compared on the same cases"):
        df.paired.select_best(None, "m0", higher_is_better=True, missing="complete-case",
                              rng=0, n_resamples=100)  # fmt: skip


def test_the_caller_table_is_not_modified() -> None:
    df = many(60, EFFECTS, seed=0)
    before = df.copy()
    df.paired.select_best(None, "m0", higher_is_better=True, rng=0, n_resamples=100)
    pd.testing.assert_frame_equal(df, before)


def test_a_dask_table_gives_its_own_joint_draws_fed_to_the_same_band() -> None:
    dd = pytest.importorskip("dask.dataframe")
    import pdpaired.dask  # noqa: F401

    ddf = dd.from_pandas(many(150, EFFECTS, seed=8), npartitions=3)
    res = ddf.paired.select_best(None, "m0", higher_is_better=True, rng=0, n_resamples=300)
    ag = ddf.paired.against("m0", higher_is_better=True, rng=0, n_resamples=300, simultaneous=False)
    est = np.array([r.improvement for r in ag.comparisons])
    band = simultaneous_band(est, ag.bootstrap_distribution, confidence_level=0.95,
                             df=149.0, variance_factor=150 / 149)  # fmt: skip
    assert res.selected == "m3"
    np.testing.assert_array_equal(res.band_low, band.low)
    assert res.confidence_interval.low == band.low[2]


@pytest.mark.parametrize("interval", ["max-t", "hybrid"])
def test_fewer_than_two_resamples_give_no_interval(interval: str) -> None:
    # one resample: no band can be read from it; the intervals are NaN, not an error
    df = many(50, EFFECTS, seed=1)
    with pytest.warns(DegenerateDataWarning, match="Every bootstrap replicate"):
        res = df.paired.select_best(None, "m0", higher_is_better=True, rng=0, n_resamples=1,
                                    interval=interval)  # fmt: skip
    assert np.isnan(res.band_low).all()
    assert np.isnan(res.band_high).all()
    assert np.isnan(res.critical_value)
    assert np.isnan(res.confidence_interval.low)
    assert np.isnan(res.confidence_interval.high)
    assert res.verdict == "undetermined"
