"""The verdict of a bootstrap interval and the decisions, on constructed
intervals, on data, and exactly on their boundaries (one ulp either side)."""

from __future__ import annotations

import json
import math
import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy.special import ndtr, ndtri

import pdpaired
from pdpaired import PairingError
from pdpaired.results.gate import gate
from pdpaired.results.verdict import VERDICTS, decide, interval_degenerate, verdict_headline

from ..conftest import long_table


def verdict(low: float, high: float, t: float, margin: float | None = None) -> str:
    return decide((low + high) / 2, low, high, practical_threshold=t,
                  noninferiority_margin=margin, degenerate=False).verdict  # fmt: skip


# --------------------------------------------------------------------------- on real results
def shifted(shift: float, n: int = 400, sd: float = 0.01, seed: int = 0) -> pd.DataFrame:
    """Paired scores whose differences are ``shift`` plus N(0, sd) noise."""
    rng = np.random.default_rng(seed)
    b = rng.normal(size=n)
    return long_table(b + shift + rng.normal(0.0, sd, size=n), b, names=("cand", "base"))


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
        "A", "B", higher_is_better=True, rng=0, n_resamples=2000, method="percentile"
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


@pytest.fixture(scope="module")
def shifted_verdicts_on_their_boundaries() -> pd.DataFrame:
    """A clear improvement of A over B (the same table as tests/results/test_verdict.py)."""
    rng = np.random.default_rng(2024)
    base = rng.normal(size=120)
    return long_table(base + 0.5 + rng.normal(0, 0.5, size=120), base)


@pytest.fixture(scope="module")
def null() -> pd.DataFrame:
    """No effect: the interval straddles zero."""
    rng = np.random.default_rng(11)
    base = rng.normal(size=150)
    return long_table(base + rng.normal(0, 0.5, size=150), base)


class TestVerdictsOnTheirBoundaries:
    """The verdicts of an interval tested exactly on their boundaries.

    ``verdict`` is ``"a_better"`` when ``low > t``, ``"b_better"`` when
    ``high < -t`` and ``"equivalent"`` when ``t > 0`` and ``-t <= low`` and
    ``high <= t`` (``t`` the practical threshold). A test away from the boundary
    passes whether the code says ``>`` or ``>=``; each test here puts ``t`` on the
    bound that decides (the same float, read from a first run on the same seed)
    and one ulp either side, through the public API: the bootstrap result, the
    slice table, the several-model table, the release gate, the report that
    ``verify`` re-checks, and the sequential monitor's stopping rule.
    """

    # -------------------------------------------------------------------------- a_better / b_better
    def test_a_better_needs_low_strictly_above_the_threshold(
        self, shifted_verdicts_on_their_boundaries: pd.DataFrame
    ) -> None:
        low = boot(shifted_verdicts_on_their_boundaries).confidence_interval.low
        assert low > 0
        on = boot(shifted_verdicts_on_their_boundaries, practical_threshold=low)
        assert on.confidence_interval.low == low  # same seed: the same interval
        assert on.verdict == "inconclusive"  # high > t too, so not equivalent either
        assert (
            boot(shifted_verdicts_on_their_boundaries, practical_threshold=below(low)).verdict
            == "a_better"
        )
        assert (
            boot(shifted_verdicts_on_their_boundaries, practical_threshold=above(low)).verdict
            == "inconclusive"
        )

    def test_b_better_needs_high_strictly_below_minus_the_threshold(
        self, shifted_verdicts_on_their_boundaries: pd.DataFrame
    ) -> None:
        high = boot(shifted_verdicts_on_their_boundaries, "B", "A").confidence_interval.high
        assert high < 0
        on = boot(shifted_verdicts_on_their_boundaries, "B", "A", practical_threshold=-high)
        assert on.confidence_interval.high == high
        assert on.verdict == "inconclusive"
        assert (
            boot(
                shifted_verdicts_on_their_boundaries, "B", "A", practical_threshold=below(-high)
            ).verdict
            == "b_better"
        )
        assert (
            boot(
                shifted_verdicts_on_their_boundaries, "B", "A", practical_threshold=above(-high)
            ).verdict
            == "inconclusive"
        )

    def test_a_zero_threshold_decides_on_zero_itself(
        self, shifted_verdicts_on_their_boundaries: pd.DataFrame
    ) -> None:
        # t = 0: a_better exactly when low > 0, b_better exactly when high < 0
        assert boot(shifted_verdicts_on_their_boundaries).verdict == "a_better"
        assert boot(shifted_verdicts_on_their_boundaries, "B", "A").verdict == "b_better"

    # --------------------------------------------------------------------------- equivalent
    @pytest.mark.parametrize("side", ["low", "high"])
    def test_equivalent_includes_both_ends_of_the_margin(
        self, null: pd.DataFrame, side: str
    ) -> None:
        ci = boot(null).confidence_interval
        assert ci.low < 0 < ci.high
        # put the deciding end exactly on the margin: the other end is strictly inside
        a, b = ("A", "B") if (side == "low") == (-ci.low >= ci.high) else ("B", "A")
        ci = boot(null, a, b).confidence_interval
        t = -ci.low if side == "low" else ci.high
        assert max(-ci.low, ci.high) == t
        on = boot(null, a, b, practical_threshold=t)
        assert (on.confidence_interval.low, on.confidence_interval.high) == (ci.low, ci.high)
        assert on.verdict == "equivalent"
        assert boot(null, a, b, practical_threshold=above(t)).verdict == "equivalent"
        assert boot(null, a, b, practical_threshold=below(t)).verdict == "inconclusive"

    def test_equivalence_needs_a_positive_threshold(self) -> None:
        # all differences 0: a point interval [0, 0] lies within [-0, 0] but t = 0
        # makes no equivalence claim (and a zero-width interval is undetermined)
        df = long_table(np.arange(40.0), np.arange(40.0))
        with pytest.warns(pdpaired.DegenerateDataWarning, match="identical"):
            res = df.paired.bootstrap("A", "B", higher_is_better=True, rng=0, n_resamples=200)
        assert res.verdict == "undetermined"
        from pdpaired.results.verdict import decide

        d = decide(0.0, -0.1, 0.1, practical_threshold=0.0, noninferiority_margin=None,
                   degenerate=False)  # fmt: skip
        assert d.verdict == "inconclusive"
        d = decide(0.0, -0.1, 0.1, practical_threshold=0.1, noninferiority_margin=None,
                   degenerate=False)  # fmt: skip
        assert d.verdict == "equivalent"
        # the rule itself: with t = 0 even an interval [0, 0] within [-t, t] is not
        # "equivalent" (through the API such an interval is degenerate first)
        d = decide(0.0, 0.0, 0.0, practical_threshold=0.0, noninferiority_margin=None,
                   degenerate=False)  # fmt: skip
        assert d.verdict == "inconclusive"

    # --------------------------------------------------------------------------- slices
    def test_slice_verdicts_on_their_boundaries(
        self, shifted_verdicts_on_their_boundaries: pd.DataFrame
    ) -> None:
        df = shifted_verdicts_on_their_boundaries.copy()
        df["half"] = np.where(df["case_id"].astype(str).str[-1].isin(list("01234")), "x", "y")
        kw: dict[str, Any] = dict(higher_is_better=True, uncertainty=True, n_resamples=200,
                                  n_permutations=50, rng=3, min_size=10)  # fmt: skip
        ref = df.paired.by_slice("A", "B", columns="half", **kw).to_frame().set_index("value")
        assert (ref["ci_low"] > 0).all()
        assert set(ref["verdict"]) == {"a_better"}
        t = float(ref.loc["x", "ci_low"])
        on = df.paired.by_slice("A", "B", columns="half", practical_threshold=t, **kw).to_frame()
        on = on.set_index("value")
        assert on.loc["x", "ci_low"] == t
        assert on.loc["x", "verdict"] == "inconclusive"
        below_t = df.paired.by_slice("A", "B", columns="half", practical_threshold=below(t), **kw)
        assert below_t.to_frame().set_index("value").loc["x", "verdict"] == "a_better"
        # the other slice's verdict follows its own low end against the same t
        y_low = float(on.loc["y", "ci_low"])
        assert on.loc["y", "verdict"] == ("a_better" if y_low > t else "inconclusive")

    # --------------------------------------------------------------------------- several models
    def test_multi_verdicts_on_their_boundaries(
        self, shifted_verdicts_on_their_boundaries: pd.DataFrame
    ) -> None:
        c = shifted_verdicts_on_their_boundaries[
            shifted_verdicts_on_their_boundaries["model"] == "B"
        ].assign(model="C")
        c["score"] += np.random.default_rng(1).normal(0, 0.3, size=len(c))
        df = pd.concat([shifted_verdicts_on_their_boundaries, c])
        kw: dict[str, Any] = dict(higher_is_better=True, n_resamples=300, rng=5)
        ref = df.paired.against("B", models=["A", "C"], **kw).to_frame().set_index("a")
        t = float(ref.loc["A", "low"])
        assert t > 0
        assert ref.loc["A", "verdict"] == "a_better"
        on = df.paired.against("B", models=["A", "C"], practical_threshold=t, **kw)
        on_frame = on.to_frame().set_index("a")
        assert on_frame.loc["A", "low"] == t
        assert on_frame.loc["A", "verdict"] == "inconclusive"
        off = df.paired.against("B", models=["A", "C"], practical_threshold=below(t), **kw)
        assert off.to_frame().set_index("a").loc["A", "verdict"] == "a_better"

    # --------------------------------------------------------------------------- release gate
    def test_gate_on_the_boundaries(
        self, shifted_verdicts_on_their_boundaries: pd.DataFrame
    ) -> None:
        low = boot(shifted_verdicts_on_their_boundaries).confidence_interval.low
        assert (
            gate(
                boot(shifted_verdicts_on_their_boundaries, practical_threshold=low), "not-a-better"
            ).exit_code
            == 1
        )
        assert (
            gate(
                boot(shifted_verdicts_on_their_boundaries, practical_threshold=below(low)),
                "not-a-better",
            ).exit_code
            == 0
        )
        high = boot(shifted_verdicts_on_their_boundaries, "B", "A").confidence_interval.high
        assert (
            gate(
                boot(shifted_verdicts_on_their_boundaries, "B", "A", practical_threshold=-high),
                "b-better",
            ).exit_code
            == 0
        )
        just_below = boot(
            shifted_verdicts_on_their_boundaries, "B", "A", practical_threshold=below(-high)
        )
        assert gate(just_below, "b-better").exit_code == 1
        # not-noninferior: a margin equal to -low is noninferior (passes), one ulp less fails
        low_ba = boot(shifted_verdicts_on_their_boundaries, "B", "A").confidence_interval.low
        on = gate(
            boot(shifted_verdicts_on_their_boundaries, "B", "A", noninferiority_margin=-low_ba),
            "not-noninferior",
        )
        assert on.exit_code == 0
        assert ">=" in on.reason
        off = gate(
            boot(
                shifted_verdicts_on_their_boundaries, "B", "A", noninferiority_margin=below(-low_ba)
            ),
            "not-noninferior",
        )
        assert off.exit_code == 1
        assert "<" in off.reason.split("low end")[1]

    def test_gate_through_the_cli_on_the_boundary(
        self, shifted_verdicts_on_their_boundaries: pd.DataFrame, tmp_path: Any
    ) -> None:
        import json
        import subprocess
        import sys

        path = tmp_path / "scores.csv"
        shifted_verdicts_on_their_boundaries.to_csv(path, index=False)

        def run(*extra: str) -> int:
            cmd = [sys.executable, "-m", "pdpaired", "compare", str(path), "--long",
                   "--a", "A", "--b", "B", "--score", "score", "--higher-is-better",
                   "--seed", "7", "--resamples", "300", *extra]  # fmt: skip
            return subprocess.run(cmd, capture_output=True, text=True, check=False).returncode

        # the command's own interval (the report's stream), read back from its artifact
        assert run("--out", str(tmp_path / "ref")) == 0
        art = json.loads((tmp_path / "ref" / "comparison.json").read_text(encoding="utf-8"))
        low = art["interval"]["low"]
        assert low > 0
        assert art["decisions"]["verdict"] == "a_better"
        gate = ("--fail-on", "not-a-better")
        assert run("--practical-threshold", repr(low), *gate) == 1
        assert run("--practical-threshold", repr(below(low)), *gate) == 0

    # ------------------------------------------------------------------------ sequential monitoring
    @pytest.mark.parametrize(("bounds", "value"), [((0.0, 1.0), 0.0), ((-1.0, 0.0), 0.0)])
    def test_sequence_stops_only_when_zero_is_strictly_excluded(
        self, bounds: tuple[float, float], value: float
    ) -> None:
        # differences known to lie in [0, 1] (or [-1, 0]) and all equal to 0: every
        # look's interval ends exactly at 0 (the bound), which does not exclude 0
        res = pdpaired.Monitor(bounds=bounds).update(np.full(400, value))
        frame = res.to_frame()
        end = frame["low"] if bounds[0] == 0.0 else frame["high"]
        assert (end == 0.0).all()
        assert res.stopped_at is None
        assert res.verdict == "inconclusive"
        # one positive (negative) step away from the bound and the sequence stops
        sign = 1.0 if bounds[0] == 0.0 else -1.0
        moved = pdpaired.Monitor(bounds=bounds).update(np.full(400, sign * 0.5))
        assert moved.stopped_at is not None
        assert moved.verdict == ("a_better" if sign > 0 else "b_better")


ALPHA = 0.025


def below(x: float) -> float:
    return float(np.nextafter(x, -np.inf))


def above(x: float) -> float:
    return float(np.nextafter(x, np.inf))


@pytest.fixture(scope="module")
def shifted_decisions_on_their_boundaries() -> pd.DataFrame:
    """A clear improvement of A over B: ci.low > 0 (and B over A: ci.high < 0)."""
    rng = np.random.default_rng(2024)
    base = rng.normal(size=120)
    return long_table(base + 0.5 + rng.normal(0, 0.5, size=120), base)


def boot(df: pd.DataFrame, a: str = "A", b: str = "B", **kw: Any) -> pdpaired.BootstrapResult:
    kw.setdefault("n_resamples", 300)
    return df.paired.bootstrap(a, b, higher_is_better=True, rng=7, **kw)


# --------------------------------------------------------------------------- BCa, prediction mode
def share_below(dist: np.ndarray, theta: float) -> float:
    return float(((dist < theta).sum() + (dist <= theta).sum()) / (2.0 * dist.size))


def bca_from_dist(dist: np.ndarray, theta: float, acc: float) -> np.ndarray:
    z0 = ndtri(share_below(dist, theta))
    z = ndtri(np.array([ALPHA, 1 - ALPHA]))
    return np.percentile(dist, 100 * ndtr(z0 + (z0 + z) / (1 - acc * (z0 + z))))


def efron_acceleration(loo: np.ndarray) -> float:
    infl = loo.mean() - loo
    return float(np.sum(infl**3) / (6 * np.sum(infl**2) ** 1.5))


# --------------------------------------------------------------------------- exact binomial edges
def binary_pairs(a_only: int, b_only: int, both: int = 3, neither: int = 2) -> pd.DataFrame:
    a = np.r_[np.ones(a_only), np.zeros(b_only), np.ones(both), np.zeros(neither)]
    b = np.r_[np.zeros(a_only), np.ones(b_only), np.ones(both), np.zeros(neither)]
    return long_table(a, b)


class TestDecisionsOnTheirBoundaries:
    """Decisions and rules tested exactly on their boundaries.

    A decision test that recomputes ``low >= -margin`` with the code's own
    formula, away from the boundary, passes whether the code says ``>=`` or
    ``>``. Each test here puts the threshold *on* the bound (the same float), and
    one ulp either side, so a flipped comparison fails:

    * superiority: ``improvement > threshold`` and ``ci.low > threshold`` -- a
      threshold equal to the bound is *not* superior;
    * noninferiority: ``ci.low >= -margin`` -- a margin equal to ``-ci.low`` *is*
      noninferior, one ulp less is not;
    * the same rules re-checked by :func:`pdpaired.verify` on a saved report;
    * slices: ``winner`` on an exact zero improvement is ``"tie"``; a slice of
      exactly ``min_size`` cases is reported, one case fewer is skipped;
    * pairing: exactly two cases are enough, one is not (pandas and Dask);
    * the heterogeneity p-value ``(1 + #{Q* >= Q}) / (1 + R)`` exactly, on a
      Q* equal to Q;
    * BCa's acceleration sign in prediction mode, for lower-is-better corpus
      metrics (log loss, MSE) against a leave-one-out jackknife by scikit-learn.

    The verdicts (bootstrap results, slice rows, several
    models, release gates, sequential monitoring) on their boundaries are in
    ``tests/results/test_verdict.py``.
    """

    # -------------------------------------------------------------------------- bootstrap decisions
    def test_superiority_threshold_equal_to_the_bound_is_not_superior(
        self, shifted_decisions_on_their_boundaries: pd.DataFrame
    ) -> None:
        ref = boot(shifted_decisions_on_their_boundaries)
        low, imp = ref.confidence_interval.low, ref.improvement
        assert 0 < low < imp
        on_low = boot(shifted_decisions_on_their_boundaries, practical_threshold=low)
        assert on_low.confidence_interval.low == low  # same seed, same interval
        assert on_low.superior_ci is False
        assert on_low.superior_point is True
        assert (
            boot(shifted_decisions_on_their_boundaries, practical_threshold=below(low)).superior_ci
            is True
        )
        on_point = boot(shifted_decisions_on_their_boundaries, practical_threshold=imp)
        assert on_point.superior_point is False
        assert on_point.superior_ci is False
        assert (
            boot(
                shifted_decisions_on_their_boundaries, practical_threshold=below(imp)
            ).superior_point
            is True
        )

    def test_margin_equal_to_minus_the_low_bound_is_noninferior(
        self, shifted_decisions_on_their_boundaries: pd.DataFrame
    ) -> None:
        ref = boot(
            shifted_decisions_on_their_boundaries, "B", "A"
        )  # B is worse: the interval lies below zero
        low = ref.confidence_interval.low
        assert low < 0
        on = boot(shifted_decisions_on_their_boundaries, "B", "A", noninferiority_margin=-low)
        assert on.confidence_interval.low == low
        assert on.noninferior is True
        assert (
            boot(
                shifted_decisions_on_their_boundaries, "B", "A", noninferiority_margin=below(-low)
            ).noninferior
            is False
        )
        assert (
            boot(
                shifted_decisions_on_their_boundaries, "B", "A", noninferiority_margin=above(-low)
            ).noninferior
            is True
        )
        # and a margin of zero: noninferior exactly when the interval's low end is >= 0
        assert (
            boot(
                shifted_decisions_on_their_boundaries, "B", "A", noninferiority_margin=0.0
            ).noninferior
            is False
        )
        assert (
            boot(shifted_decisions_on_their_boundaries, noninferiority_margin=0.0).noninferior
            is True
        )

    def test_zero_margin_on_an_interval_starting_at_zero_is_noninferior(self) -> None:
        # on the boundary itself: low == -margin == 0 is noninferior, not superior
        d = decide(0.075, 0.0, 0.175, practical_threshold=0.0, noninferiority_margin=0.0,
                   degenerate=False)  # fmt: skip
        assert d.noninferior is True
        assert d.superior_ci is False
        # through the bootstrap, 0/1 differences put that endpoint on an atom of the
        # replicates: the verdict calls the interval undetermined and sets no flag
        df = long_table(np.r_[np.ones(3), np.zeros(37)], np.zeros(40))
        res = df.paired.bootstrap("A", "B", higher_is_better=True, rng=0, n_resamples=200,
                                  confidence_level=0.999, noninferiority_margin=0.0,
                                  method="percentile")  # fmt: skip
        assert res.confidence_interval.low == 0.0
        assert res.verdict == "undetermined"
        assert res.noninferior is False

    def test_report_decisions_on_the_boundary_verify(
        self, shifted_decisions_on_their_boundaries: pd.DataFrame, tmp_path: Any
    ) -> None:
        """The report's decisions and verify's re-check use the same boundary rules."""
        cmp = shifted_decisions_on_their_boundaries.paired.compare("B", "A", higher_is_better=True)
        kw: dict[str, Any] = {"n_resamples": 300, "n_permutations": 99, "rng": 3}
        low = cmp.report(**kw).bootstrap.confidence_interval.low
        assert low < 0
        rep = cmp.report(noninferiority_margin=-low, **kw)
        assert rep.bootstrap.confidence_interval.low == low
        assert rep.bootstrap.noninferior is True
        paths = rep.save(tmp_path / "ni")
        art = pdpaired.verify(paths["local"])
        assert art["decisions"]["noninferior"] is True

        up = shifted_decisions_on_their_boundaries.paired.compare("A", "B", higher_is_better=True)
        low_up = up.report(**kw).bootstrap.confidence_interval.low
        assert low_up > 0
        rep = up.report(practical_threshold=low_up, **kw)
        assert rep.bootstrap.superior_ci is False
        art = pdpaired.verify(rep.save(tmp_path / "sup")["local"])
        assert art["decisions"]["superior_ci"] is False
        assert art["decisions"]["superior_point"] is True
        rep = up.report(practical_threshold=rep.bootstrap.improvement, **kw)
        assert rep.bootstrap.superior_point is False
        art = pdpaired.verify(rep.save(tmp_path / "point")["local"])
        assert art["decisions"]["superior_point"] is False

    # --------------------------------------------------------------------------- slices
    def test_slice_winner_tie_and_min_size_boundary(self) -> None:
        # slice "t": A == B on every case (improvement exactly 0) -> "tie";
        # slice "u": A better; slice "v": B better; slice "w": 4 cases only
        site = np.repeat(["t", "u", "v", "w"], [5, 5, 5, 4])
        b = np.arange(19, dtype=float)
        a = b + np.select([site == "u", site == "v"], [1.0, -1.0], 0.0)
        df = long_table(a, b, site=site)
        res = df.paired.by_slice("A", "B", columns="site", higher_is_better=True, min_size=5)
        t = res.table.set_index("value")
        assert t.loc["t", "improvement"] == 0.0
        assert t.loc["t", "winner"] == "tie"
        assert t.loc["u", "winner"] == "A"
        assert t.loc["v", "winner"] == "B"
        assert t.loc["t", "status"] == "reported"  # exactly min_size cases
        assert t.loc["w", "status"] == "skipped"  # one fewer
        assert pd.isna(t.loc["w", "winner"])
        lower = df.paired.by_slice("A", "B", columns="site", higher_is_better=False, min_size=4)
        lt = lower.table.set_index("value")
        assert lt.loc["w", "status"] == "reported"
        assert (lt.loc["u", "winner"], lt.loc["v", "winner"]) == ("B", "A")

    # --------------------------------------------------------------------------- pairing
    def test_two_cases_are_enough_one_is_not(self) -> None:
        two = long_table(np.array([1.0, 2.0]), np.array([0.0, 0.5]))
        cmp = two.paired.compare("A", "B", higher_is_better=True)
        assert cmp.n_cases == 2
        assert cmp.improvement == pytest.approx(1.25, abs=1e-15)
        one = long_table(np.array([1.0]), np.array([0.0]))
        with pytest.raises(PairingError, match="got 1 usable case") as exc:
            one.paired.compare("A", "B", higher_is_better=True)
        assert exc.value.rule == "at least two paired cases"
        # two rows of which one is dropped as missing: one usable case left
        gap = long_table(np.array([1.0, np.nan]), np.array([0.0, 0.5]))
        with pytest.raises(PairingError, match="got 1 usable case"):
            gap.paired.compare("A", "B", higher_is_better=True, missing="complete-case")

    def test_two_cases_are_enough_on_dask(self) -> None:
        dd = pytest.importorskip("dask.dataframe")
        import pdpaired.dask  # noqa: F401  (registers ddf.paired)

        two = dd.from_pandas(long_table(np.array([1.0, 2.0]), np.array([0.0, 0.5])), npartitions=1)
        cmp = two.paired.compare("A", "B", higher_is_better=True)
        assert cmp.n_cases == 2
        one = dd.from_pandas(long_table(np.array([1.0]), np.array([0.0])), npartitions=1)
        with pytest.raises(PairingError, match="got 1 usable case"):
            one.paired.compare("A", "B", higher_is_better=True).n_cases  # noqa: B018

    @pytest.mark.parametrize("metric", ["log_loss", "mae", "rmse"])
    def test_prediction_bca_acceleration_sign_lower_is_better(self, metric: str) -> None:
        """BCa with a lower-is-better corpus metric, from the library's own replicates.

        The improvement is ``metric_B - metric_A``; its leave-one-out values come
        from scikit-learn on n - 1 cases. A flipped acceleration sign moves each
        endpoint by far more than the 1e-9 tolerance (checked: the acceleration
        here is not near zero).
        """
        from sklearn.metrics import log_loss, mean_absolute_error, mean_squared_error

        rng = np.random.default_rng(11)
        n = 80
        if metric == "log_loss":
            y = (rng.uniform(size=n) < 0.4).astype(float)
            pa = np.clip(np.where(y == 1, 0.7, 0.3) + rng.normal(0, 0.15, n), 0.02, 0.98)
            pb = np.clip(np.where(y == 1, 0.6, 0.4) + rng.normal(0, 0.25, n), 0.02, 0.98)
            pb[:3] = 1 - y[:3] * 0.97  # a few confident mistakes: skewed jackknife

            def fn(yy: np.ndarray, p: np.ndarray) -> float:
                return float(log_loss(yy, p, labels=[0.0, 1.0]))
        else:
            y = rng.normal(size=n)
            pa = y + rng.normal(0, 0.5, n)
            pb = y + rng.standard_exponential(n) * rng.choice([-1, 1], n)

            def fn(yy: np.ndarray, p: np.ndarray) -> float:
                if metric == "mae":
                    return float(mean_absolute_error(yy, p))
                return math.sqrt(mean_squared_error(yy, p))

        df = pd.DataFrame({"case_id": np.tile(np.arange(n), 2), "model": np.repeat(["A", "B"], n),
                           "y": np.tile(y, 2), "p": np.r_[pa, pb]})  # fmt: skip
        cmp = df.paired(target="y", prediction="p").compare("A", "B", metric=metric)
        assert cmp.higher_is_better is False
        res = cmp.bootstrap(n_resamples=2_000, rng=5, method="bca", stratified=False)
        theta = fn(y, pb) - fn(y, pa)
        assert res.improvement == pytest.approx(theta, rel=1e-12)
        keep = ~np.eye(n, dtype=bool)
        loo = np.array([fn(y[k], pb[k]) - fn(y[k], pa[k]) for k in keep])
        acc = efron_acceleration(loo)
        assert abs(acc) > 0.01
        dist = res.bootstrap_distribution
        expected = bca_from_dist(dist, theta, acc)
        flipped = bca_from_dist(dist, theta, -acc)
        got = np.array([res.confidence_interval.low, res.confidence_interval.high])
        scale = float(dist.std())
        assert np.max(np.abs(expected - flipped)) > 1e-3 * scale
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9 * scale)

    # --------------------------------------------------------------------------- standard error
    @pytest.mark.parametrize("n_resamples", [1, 2, 3])
    def test_standard_error_is_the_sd_of_the_replicates(self, n_resamples: int) -> None:
        """``standard_error`` is ``np.std(dist, ddof=1)``, and 0.0 for a single replicate."""
        rng = np.random.default_rng(8)
        df = long_table(rng.normal(size=30) + 0.1, rng.normal(size=30))
        if n_resamples == 1:
            with pytest.warns(pdpaired.DegenerateDataWarning, match="identical"):
                res = boot(df, n_resamples=n_resamples)
        else:
            res = boot(df, n_resamples=n_resamples)
        dist = res.bootstrap_distribution
        assert dist.size == n_resamples
        if n_resamples == 1:
            assert res.standard_error == 0.0
        else:
            d = dist - dist.mean()
            assert res.standard_error == pytest.approx(
                math.sqrt(float(d @ d) / (n_resamples - 1)), rel=1e-12
            )
            assert res.standard_error > 0

    def test_standard_error_matches_ddof_one_on_many_replicates(
        self, shifted_decisions_on_their_boundaries: pd.DataFrame
    ) -> None:
        res = boot(shifted_decisions_on_their_boundaries)
        d = res.bootstrap_distribution - res.bootstrap_distribution.mean()
        assert res.standard_error == pytest.approx(
            math.sqrt(float(d @ d) / (d.size - 1)), rel=1e-12
        )

    @pytest.mark.parametrize(("a_only", "b_only"), [(0, 5), (1, 0), (1, 4), (5, 0), (2, 7), (0, 1)])
    @pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
    def test_exact_binomial_small_counts_equal_scipy(self, a_only: int, b_only: int,
                                                     alternative: str) -> None:  # fmt: skip
        """p-value and Clopper-Pearson interval at the edges a = 0, a = n, n = 1, vs scipy."""
        from scipy.stats import binomtest

        n = a_only + b_only
        cmp = binary_pairs(a_only, b_only).paired.compare("A", "B", higher_is_better=True)
        res = cmp.exact_binomial(alternative=alternative, confidence_level=0.9)
        ref = binomtest(a_only, n, 0.5, alternative=alternative)
        assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
        ci = binomtest(a_only, n, 0.5).proportion_ci(confidence_level=0.9, method="exact")
        assert res.confidence_interval.low == pytest.approx(ci.low, abs=1e-12)
        assert res.confidence_interval.high == pytest.approx(ci.high, abs=1e-12)
        assert (res.a_only, res.b_only, res.discordant_share) == (a_only, b_only, a_only / n)

    def test_exact_binomial_without_discordant_pairs_is_uninformative(self) -> None:
        cmp = binary_pairs(0, 0).paired.compare("A", "B", higher_is_better=True)
        with pytest.warns(pdpaired.DegenerateDataWarning, match="No discordant pairs"):
            res = cmp.exact_binomial()
        assert res.pvalue == 1.0
        assert (res.confidence_interval.low, res.confidence_interval.high) == (0.0, 1.0)
        assert res.discordant_share is None

    # --------------------------------------------------------------------------- BCa clipping
    @pytest.mark.parametrize("side", ["below", "above"])
    def test_bca_clips_an_estimate_outside_the_replicates(self, side: str) -> None:
        """Every replicate above (below) the estimate: z0 is clipped to half a replicate.

        The clipped share is 0.5 / B (1 - 0.5 / B), so z0 = ndtri(share) and the
        BCa levels follow from it and the acceleration; checked against the same
        formula written here.
        """
        from pdpaired.core.bootstrap import interval

        rng = np.random.default_rng(3)
        b = 400
        dist = np.sort(rng.normal(1.0, 0.2, b))
        theta = float(dist.min() - 0.5) if side == "below" else float(dist.max() + 0.5)
        acc = 0.03
        with pytest.warns(pdpaired.DegenerateDataWarning, match="clipped to half a replicate"):
            ci, out, degenerate = interval(dist, theta, method="bca", confidence_level=0.9,
                                           theta=lambda: theta, accel=lambda: acc)  # fmt: skip
        assert not degenerate
        np.testing.assert_array_equal(out, dist)
        share = 0.5 / b if side == "below" else 1 - 0.5 / b
        z0 = ndtri(share)
        z = ndtri(np.array([0.05, 0.95]))
        want = np.percentile(dist, 100 * ndtr(z0 + (z0 + z) / (1 - acc * (z0 + z))))
        np.testing.assert_allclose([ci.low, ci.high], want, rtol=0, atol=1e-12)
        # an estimate inside the replicates is not clipped and does not warn
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            interval(dist, 1.0, method="bca", confidence_level=0.9, theta=lambda: 1.0,
                     accel=lambda: acc)  # fmt: skip

    # --------------------------------------------------------------------------- custom metrics
    def test_custom_metric_returning_nan_or_raising(self) -> None:
        """A custom Metric that is undefined (NaN) on every resample is an error naming
        the metric; one that raises lets its own exception through, unchanged."""
        rng = np.random.default_rng(2)
        n = 40
        y = (rng.uniform(size=n) < 0.5).astype(float)
        df = pd.DataFrame({"case_id": np.tile(np.arange(n), 2), "model": np.repeat(["A", "B"], n),
                           "y": np.tile(y, 2), "p": rng.uniform(size=2 * n)})  # fmt: skip
        acc = df.paired(target="y", prediction="p")

        def nan_metric(y_true: Any, p: Any, sample_weight: Any = None) -> float:
            return float("nan")

        class Boom(RuntimeError):
            pass

        def boom(y_true: Any, p: Any, sample_weight: Any = None) -> float:
            raise Boom("custom metric failed")

        cmp = acc.compare("A", "B", metric=pdpaired.Metric("always_nan", nan_metric, True))
        assert math.isnan(cmp.improvement)
        with pytest.raises(ValueError, match="always_nan"):
            cmp.bootstrap(n_resamples=20, rng=0)
        with pytest.raises(Boom, match="custom metric failed"):
            acc.compare("A", "B", metric=pdpaired.Metric("boom", boom, True)).bootstrap(
                n_resamples=20, rng=0
            )

    # ------------------------------------------------------------------------ NumPy engine branches
    @pytest.mark.parametrize("weighting", ["item", "group"])
    def test_numpy_engine_cluster_paths_equal_numba(
        self, weighting: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """The NumPy engine's cluster paths (sizes carried along, a single-unit stratum,
        strata wider than a block of draws) give numba's replicates bit for bit."""
        from pdpaired.core import engine as _engine

        from ..conftest import require_numba

        require_numba()
        monkeypatch.setattr(_engine, "_BLOCK_WORDS", 4)
        rng = np.random.default_rng(12)
        sizes = rng.integers(1, 5, size=23)
        group = np.repeat(np.arange(23), sizes)
        stratum = np.where(group == 0, "solo", np.where(group % 2 == 0, "even", "odd"))
        n = group.size
        b = rng.normal(size=n)
        a = b + rng.normal(0.2, 1.0, size=n)
        df = long_table(a, b, group=group, stratum=stratum)
        out = []
        for accel in ("numpy", "numba"):
            monkeypatch.setenv("PDPAIRED_ACCELERATOR", accel)
            for batch in (None, 3):
                with pytest.warns(pdpaired.DegenerateDataWarning, match="single resampling unit"):
                    res = df.paired.bootstrap(
                        "A",
                        "B",
                        higher_is_better=True,
                        rng=5,
                        n_resamples=40,
                        weighting=weighting,
                        batch=batch,
                    )
                assert res.engine == accel
                out.append(res.bootstrap_distribution)
        for other in out[1:]:
            np.testing.assert_array_equal(out[0], other)
        assert np.std(out[0]) > 0

    # -------------------------------------------------------------------------- heterogeneity edges
    def test_heterogeneity_per_column_in_order_and_flat_slices_noted(self) -> None:
        """Columns keep the caller's order; a column with no reported slice does not stop
        the others; a slice with zero bootstrap variance is left out with a note naming it."""
        rng = np.random.default_rng(21)
        n = 120
        zone = np.repeat(["z2", "z1", "z0"], 40)
        tiny = np.arange(n).astype(str)  # one case per value: every slice skipped
        site = np.tile(["s1", "s0"], 60)
        b = rng.normal(size=n)
        a = b + rng.normal(0.1, 1.0, size=n)
        a[zone == "z0"] = b[zone == "z0"] + 0.25  # a constant difference: zero variance
        df = long_table(a, b, zone=zone, tiny=tiny, site=site)
        res = df.paired.by_slice("A", "B", columns=["zone", "tiny", "site"],
                                 higher_is_better=True, uncertainty=True, rng=0, min_size=10,
                                 n_resamples=200, n_permutations=20)  # fmt: skip
        assert list(res.heterogeneity) == ["zone", "site"]
        assert res.heterogeneity["zone"]["n_slices"] == 2.0  # z0 left out
        assert res.heterogeneity["site"]["n_slices"] == 2.0
        assert (
            "heterogeneity across zone: slice(s) z0 left out (zero bootstrap variance, so no "
            "finite weight)"
        ) in res.notes

    def test_heterogeneity_column_with_one_usable_slice_does_not_stop_the_next(self) -> None:
        """A column left with a single non-flat slice has no test; the next column still has."""
        rng = np.random.default_rng(8)
        n = 120
        zone = np.repeat(["z1", "z0"], 60)
        site = np.tile(["s1", "s0"], 60)
        b = rng.normal(size=n)
        a = b + rng.normal(0.1, 1.0, size=n)
        a[zone == "z0"] = b[zone == "z0"] + 0.25  # zero variance: z0 is left out
        df = long_table(a, b, zone=zone, site=site)
        res = df.paired.by_slice("A", "B", columns=["zone", "site"], higher_is_better=True,
                                 uncertainty=True, rng=0, min_size=10, n_resamples=200,
                                 n_permutations=20)  # fmt: skip
        assert list(res.heterogeneity) == ["site"]
        assert res.heterogeneity["site"]["n_slices"] == 2.0

    @pytest.mark.parametrize("n_resamples", [1, 2])
    def test_heterogeneity_needs_two_replicates(self, n_resamples: int) -> None:
        """One replicate has no variance: every slice is flat and there is no test; two do."""
        rng = np.random.default_rng(4)
        n = 80
        site = np.repeat(["a", "b"], 40)
        b = rng.normal(size=n)
        df = long_table(b + rng.normal(0.1, 1.0, size=n), b, site=site)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", pdpaired.DegenerateDataWarning)
            res = df.paired.by_slice("A", "B", columns="site", higher_is_better=True,
                                     uncertainty=True, rng=1, min_size=10,
                                     n_resamples=n_resamples, n_permutations=20)  # fmt: skip
        if n_resamples == 1:
            assert res.heterogeneity == {}
            assert (
                "heterogeneity across site: slice(s) a, b left out (zero bootstrap variance, "
                "so no finite weight)"
            ) in res.notes
        else:
            assert res.heterogeneity["site"]["n_slices"] == 2.0
            # 20 permutations of two slice labels on 80 cases: p is (1 + hits) / 21
            assert res.heterogeneity["site"]["pvalue"] * 21 == pytest.approx(
                round(res.heterogeneity["site"]["pvalue"] * 21), abs=1e-9
            )

    def test_custom_metric_randomization_equals_the_builtin(self) -> None:
        """A custom Metric's swap path gives the built-in metric's null distribution."""
        from sklearn.metrics import accuracy_score

        rng = np.random.default_rng(6)
        n = 60
        y = (rng.uniform(size=n) < 0.5).astype(float)
        p = rng.uniform(size=2 * n)
        df = pd.DataFrame({"case_id": np.tile(np.arange(n), 2), "model": np.repeat(["A", "B"], n),
                           "y": np.tile(y, 2), "p": p})  # fmt: skip

        def acc(y_true: Any, prob: Any, sample_weight: Any = None) -> float:
            return float(accuracy_score(y_true, prob > 0.5, sample_weight=sample_weight))

        paired = df.paired(target="y", prediction="p")
        custom = paired.compare("A", "B", metric=pdpaired.Metric("acc", acc, True))
        builtin = paired.compare("A", "B", metric="accuracy")
        assert custom.improvement == pytest.approx(builtin.improvement, abs=1e-12)
        rc = custom.randomization(n_permutations=99, rng=2)
        rb = builtin.randomization(n_permutations=99, rng=2)
        np.testing.assert_allclose(rc.null_distribution, rb.null_distribution, rtol=0, atol=1e-12)
        assert rc.pvalue == rb.pvalue


# --------------------------------------------------------- tests that disagree with the interval
class TestDisagreement:
    """``disagreement``: a two-sided test and the interval read at the same level about 0.

    The oracle is the rule written out with scipy's binomial test on discordant
    counts: it rejects when ``p < 1 - confidence_level``; the interval excludes 0
    when ``low > 0`` or ``high < 0``; they agree when both say the same.
    """

    @pytest.mark.parametrize("a_only", range(0, 9))
    @pytest.mark.parametrize("interval", [(0.05, 0.6), (-0.1, 0.5), (-0.6, -0.05)])
    @pytest.mark.parametrize("level", [0.9, 0.95, 0.99])
    def test_against_the_rule_with_scipys_binomial_test(
        self, a_only: int, interval: tuple[float, float], level: float
    ) -> None:
        from scipy.stats import binomtest

        from pdpaired.results.verdict import disagreement

        b_only = 8 - a_only
        p = binomtest(a_only, a_only + b_only, 0.5, alternative="two-sided").pvalue
        low, high = interval
        tests = [("the exact binomial test", p, a_only - b_only, "two-sided")]
        note = disagreement(low, high, confidence_level=level, tests=tests)
        rejects = p < 1 - level
        side_test = 0 if not rejects else (1 if a_only > b_only else -1)
        side_interval = 1 if low > 0 else -1 if high < 0 else 0
        assert (note is None) == (side_test == side_interval)
        if note is not None:
            assert note.startswith("Not established: ")
            assert "the exact binomial test" in note

    def test_one_sided_tests_are_not_compared(self) -> None:
        from pdpaired.results.verdict import disagreement

        tests = [("the randomization test", 0.4, 0.1, "greater")]
        assert disagreement(0.01, 0.2, confidence_level=0.95, tests=tests) is None

    def test_a_test_that_rejects_while_the_interval_includes_0(self) -> None:
        from pdpaired.results.verdict import disagreement

        tests = [("the randomization test", 0.012, 0.1, "two-sided")]
        note = disagreement(-0.01, 0.3, confidence_level=0.95, tests=tests)
        assert note == (
            "Not established: inconclusive by the interval (it includes 0), but the "
            "randomization test rejects no difference (p = 0.0120 < 0.05)."
        )

    def test_each_test_that_disagrees_is_named_once(self) -> None:
        from pdpaired.results.verdict import disagreement

        tests = [("the randomization test", 0.0605, 5.0, "two-sided"),
                 ("the exact binomial test", 0.0625, 5.0, "two-sided")]  # fmt: skip
        note = disagreement(0.07, 0.68, confidence_level=0.95, tests=tests)
        assert note == (
            "Not established: a_better by the interval (it excludes 0), but the randomization "
            "test does not reject no difference (p = 0.0605 ≥ 0.05) and the exact binomial "
            "test does not reject no difference (p = 0.0625 ≥ 0.05)."
        )
        # a p-value that rounds onto the level shows the digits that decide
        tests = [("the randomization test", 0.0500004, 1.0, "two-sided")]
        near = disagreement(0.07, 0.68, confidence_level=0.95, tests=tests)
        assert near is not None
        assert "(p = 0.0500004 ≥ 0.05)" in near
