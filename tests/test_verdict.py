"""The verdict of a bootstrap interval, on constructed intervals and data.

``a_better`` (low > t), ``b_better`` (high < -t), ``equivalent`` (t > 0 and
the interval inside [-t, t]), ``inconclusive``; ``undetermined`` for a
degenerate interval, and then no decision flag is True. The headline says
which model is statistically ahead when the interval excludes 0 but the
verdict is ``equivalent`` or ``inconclusive``.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import pdpaired
from pdpaired.results.verdict import VERDICTS, decide, interval_degenerate, verdict_headline

from .conftest import long_table


def verdict(low: float, high: float, t: float, margin: float | None = None) -> str:
    return decide((low + high) / 2, low, high, practical_threshold=t,
                  noninferiority_margin=margin, degenerate=False).verdict  # fmt: skip


# --------------------------------------------------------------------------- the rule
@pytest.mark.parametrize(
    ("low", "high", "t", "expected"),
    [
        # a small difference: wholly negative, inside the threshold -> equivalent
        (-0.0071, -0.0005, 0.01, "equivalent"),
        # wholly negative without a threshold: B is better
        (-0.0071, -0.0005, 0.0, "b_better"),
        # wholly negative and beyond -t: B is better
        (-0.03, -0.012, 0.01, "b_better"),
        # wholly negative, reaching past -t: inconclusive (B ahead, relevance unsettled)
        (-0.03, -0.005, 0.01, "inconclusive"),
        # the mirror images for A
        (0.0005, 0.0071, 0.01, "equivalent"),
        (0.0005, 0.0071, 0.0, "a_better"),
        (0.012, 0.03, 0.01, "a_better"),
        (0.005, 0.03, 0.01, "inconclusive"),
        # straddling 0
        (-0.004, 0.006, 0.01, "equivalent"),
        (-0.004, 0.006, 0.0, "inconclusive"),
        (-0.02, 0.02, 0.01, "inconclusive"),
        # boundaries: strict for better, inclusive for equivalent
        (0.01, 0.02, 0.01, "inconclusive"),
        (-0.02, -0.01, 0.01, "inconclusive"),
        (-0.01, 0.01, 0.01, "equivalent"),
        (0.0, 0.0071, 0.0, "inconclusive"),
    ],
)
def test_verdict_rule_on_constructed_intervals(low: float, high: float, t: float,
                                               expected: str) -> None:  # fmt: skip
    assert verdict(low, high, t) == expected
    # swapping A and B negates the interval and swaps the verdict
    swapped = {"a_better": "b_better", "b_better": "a_better"}.get(expected, expected)
    assert verdict(-high, -low, t) == swapped


def test_degenerate_interval_is_undetermined_and_sets_no_flag() -> None:
    d = decide(0.5, 0.5, 0.5, practical_threshold=0.0, noninferiority_margin=0.1,
               degenerate=True)  # fmt: skip
    assert d.verdict == "undetermined"
    assert (d.superior_point, d.superior_ci, d.noninferior) == (False, False, False)
    d = decide(0.5, 0.5, 0.5, practical_threshold=0.0, noninferiority_margin=None,
               degenerate=True)  # fmt: skip
    assert d.noninferior is None


def test_interval_degenerate() -> None:
    kw = {"confidence_level": 0.95, "method": "percentile"}
    assert interval_degenerate(0.2, 0.2, np.full(50, 0.2), **kw)
    smooth = np.linspace(-1, 1, 2001)
    lo, hi = np.percentile(smooth, [2.5, 97.5])
    assert not interval_degenerate(lo, hi, smooth, **kw)
    # 40% of the replicates sit on the lowest atom: the lower endpoint is that atom
    lumpy = np.concatenate([np.zeros(400), np.linspace(0.01, 1, 600)])
    lo, hi = np.percentile(lumpy, [2.5, 97.5])
    assert lo == 0.0
    assert interval_degenerate(lo, hi, lumpy, **kw)
    # "basic" reflects the percentile endpoints; its tails are theirs
    est = 0.3
    assert interval_degenerate(2 * est - hi, 2 * est - lo, lumpy, confidence_level=0.95,
                               method="basic")  # fmt: skip
    assert not interval_degenerate(2 * est - 0.975, 2 * est + 0.975, smooth,
                                   confidence_level=0.95, method="basic")  # fmt: skip


def test_headline_says_who_is_statistically_ahead() -> None:
    kw = {"a": "candidate", "b": "baseline", "confidence_level": 0.95}
    # a small difference: the whole interval is below 0 but within the threshold
    text = verdict_headline("equivalent", -0.00695, -0.00058, practical_threshold=0.01, **kw)
    assert text.startswith("Verdict: equivalent within ±0.01")
    assert "baseline is statistically ahead" in text
    assert "at or below" not in text
    text = verdict_headline("inconclusive", -0.03, -0.005, practical_threshold=0.01, **kw)
    assert "baseline is statistically ahead" in text
    text = verdict_headline("inconclusive", 0.005, 0.03, practical_threshold=0.01, **kw)
    assert "candidate is statistically ahead" in text
    text = verdict_headline("inconclusive", -0.02, 0.02, practical_threshold=0.01, **kw)
    assert "statistically ahead" not in text
    assert "includes 0" in text
    text = verdict_headline("b_better", -0.0071, -0.0005, practical_threshold=0.0, **kw)
    assert text.startswith("Verdict: baseline is better than candidate")
    assert "below 0" in text
    assert "-0" not in text.split("below")[1]
    text = verdict_headline("a_better", 0.02, 0.05, practical_threshold=0.01, **kw)
    assert text.startswith("Verdict: candidate is better than baseline")
    assert "undetermined" in verdict_headline("undetermined", 0.1, 0.1,
                                              practical_threshold=0.0, **kw)  # fmt: skip


# --------------------------------------------------------------------------- on real results
def shifted(shift: float, n: int = 400, sd: float = 0.01, seed: int = 0) -> pd.DataFrame:
    """Paired scores whose differences are ``shift`` plus N(0, sd) noise."""
    rng = np.random.default_rng(seed)
    b = rng.normal(size=n)
    return long_table(b + shift + rng.normal(0.0, sd, size=n), b, names=("cand", "base"))


@pytest.mark.parametrize(
    ("shift", "t", "expected"),
    [(-0.004, 0.01, "equivalent"), (-0.004, 0.0, "b_better"), (-0.03, 0.01, "b_better"),
     (0.03, 0.01, "a_better"), (0.0, 0.0, "inconclusive")],
)  # fmt: skip
def test_bootstrap_result_verdict_matches_its_interval(shift: float, t: float,
                                                       expected: str) -> None:  # fmt: skip
    # with sd 0.01 and n = 400 the standard error of the mean difference is 0.0005,
    # so each interval lies within +-0.0015 of the shift: the verdicts are not borderline
    res = shifted(shift).paired.bootstrap("cand", "base", higher_is_better=True, rng=0,
                                          n_resamples=2000, practical_threshold=t)  # fmt: skip
    ci = res.confidence_interval
    assert res.verdict == expected == verdict(ci.low, ci.high, t)
    assert res.to_dict()["verdict"] == expected
    assert res.to_frame().loc[0, "verdict"] == expected
    assert f"verdict={expected!r}" in repr(res)
    assert str(res).splitlines()[0] == res.headline()
    assert res.headline() in res._repr_html_()
    if expected == "equivalent" and shift < 0:
        assert "base is statistically ahead" in str(res)


def test_constant_differences_are_undetermined_with_no_flag() -> None:
    df = long_table(np.arange(50.0) + 0.5, np.arange(50.0))  # every difference is 0.5
    with pytest.warns(pdpaired.DegenerateDataWarning, match="identical"):
        res = df.paired.bootstrap("A", "B", higher_is_better=True, rng=0, n_resamples=500,
                                  noninferiority_margin=0.1)  # fmt: skip
    assert res.improvement == 0.5
    assert res.verdict == "undetermined"
    assert (res.superior_point, res.superior_ci, res.noninferior) == (False, False, False)
    assert "undetermined" in str(res).splitlines()[0]


def test_few_discordant_pairs_are_undetermined() -> None:
    # 2 of 1000 cases differ (A right, B wrong): a replicate draws neither of them with
    # probability (1 - 2/1000)^1000 = e^-2 = 0.135 > 0.025, so the lower endpoint is the
    # atom at 0 and the lower tail holds a single value
    a = np.zeros(1000)
    a[:2] = 1.0
    res = long_table(a, np.zeros(1000)).paired.bootstrap(
        "A", "B", higher_is_better=True, rng=0, n_resamples=2000
    )
    assert res.confidence_interval.low == 0.0
    assert res.verdict == "undetermined"
    assert not res.superior_point


def test_slice_rows_carry_their_bootstrap_verdict() -> None:
    rng = np.random.default_rng(1)
    n = 600
    b = rng.normal(size=n)
    site = np.repeat(["up", "flat", "down"], n // 3)
    shift = np.select([site == "up", site == "down"], [0.05, -0.05], 0.0)
    df = long_table(b + shift + rng.normal(0, 0.01, n), b, site=site)
    res = df.paired.by_slice("A", "B", columns="site", higher_is_better=True, uncertainty=True,
                             rng=0, n_resamples=500, n_permutations=200,
                             practical_threshold=0.01)  # fmt: skip
    got = dict(zip(res.table["value"], res.table["verdict"], strict=True))
    assert got == {"down": "b_better", "flat": "equivalent", "up": "a_better"}
    for _, r in res.table.iterrows():
        assert r["verdict"] == verdict(r["ci_low"], r["ci_high"], 0.01)
    assert res.overall["verdict"] == verdict(res.overall["ci_low"], res.overall["ci_high"], 0.01)
    assert set(res.to_dict()["slices"][0]) >= {"verdict"}
    # without uncertainty there is no interval, so no verdict
    plain = df.paired.by_slice("A", "B", columns="site", higher_is_better=True)
    assert plain.table["verdict"].isna().all()


def test_artifact_records_and_verify_checks_the_verdict(tmp_path) -> None:
    df = shifted(-0.004)
    rep = df.paired.report("cand", "base", higher_is_better=True, rng=0, n_resamples=1000,
                           n_permutations=200, practical_threshold=0.01)  # fmt: skip
    paths = rep.save(tmp_path)
    art = json.loads(paths["shareable"].read_text())
    assert art["decisions"]["verdict"] == "equivalent"
    pdpaired.verify(paths["shareable"])
    md = paths["markdown"].read_text()
    assert "**Verdict: equivalent within ±0.01**" in md
    assert "base is statistically ahead" in md
    # a verdict that does not follow from the interval is caught
    from pdpaired.artifacts.digests import content_digest

    art["decisions"]["verdict"] = "b_better"
    art["digest"] = content_digest(art)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(art))
    with pytest.raises(pdpaired.ArtifactError, match=r"decisions\.verdict"):
        pdpaired.verify(bad)


def test_verdicts_are_the_api_set() -> None:
    assert VERDICTS == ("a_better", "b_better", "equivalent", "inconclusive", "undetermined")
