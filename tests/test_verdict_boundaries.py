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

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

import pdpaired
from pdpaired.results.gate import gate

from .conftest import long_table
from .test_boundaries import above, below, boot


@pytest.fixture(scope="module")
def shifted() -> pd.DataFrame:
    """A clear improvement of A over B (the same table as tests/test_boundaries.py)."""
    rng = np.random.default_rng(2024)
    base = rng.normal(size=120)
    return long_table(base + 0.5 + rng.normal(0, 0.5, size=120), base)


@pytest.fixture(scope="module")
def null() -> pd.DataFrame:
    """No effect: the interval straddles zero."""
    rng = np.random.default_rng(11)
    base = rng.normal(size=150)
    return long_table(base + rng.normal(0, 0.5, size=150), base)


# --------------------------------------------------------------------------- a_better / b_better
def test_a_better_needs_low_strictly_above_the_threshold(shifted: pd.DataFrame) -> None:
    low = boot(shifted).confidence_interval.low
    assert low > 0
    on = boot(shifted, practical_threshold=low)
    assert on.confidence_interval.low == low  # same seed: the same interval
    assert on.verdict == "inconclusive"  # high > t too, so not equivalent either
    assert boot(shifted, practical_threshold=below(low)).verdict == "a_better"
    assert boot(shifted, practical_threshold=above(low)).verdict == "inconclusive"


def test_b_better_needs_high_strictly_below_minus_the_threshold(shifted: pd.DataFrame) -> None:
    high = boot(shifted, "B", "A").confidence_interval.high
    assert high < 0
    on = boot(shifted, "B", "A", practical_threshold=-high)
    assert on.confidence_interval.high == high
    assert on.verdict == "inconclusive"
    assert boot(shifted, "B", "A", practical_threshold=below(-high)).verdict == "b_better"
    assert boot(shifted, "B", "A", practical_threshold=above(-high)).verdict == "inconclusive"


def test_a_zero_threshold_decides_on_zero_itself(shifted: pd.DataFrame) -> None:
    # t = 0: a_better exactly when low > 0, b_better exactly when high < 0
    assert boot(shifted).verdict == "a_better"
    assert boot(shifted, "B", "A").verdict == "b_better"


# --------------------------------------------------------------------------- equivalent
@pytest.mark.parametrize("side", ["low", "high"])
def test_equivalent_includes_both_ends_of_the_margin(null: pd.DataFrame, side: str) -> None:
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


def test_equivalence_needs_a_positive_threshold() -> None:
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
def test_slice_verdicts_on_their_boundaries(shifted: pd.DataFrame) -> None:
    df = shifted.copy()
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
def test_multi_verdicts_on_their_boundaries(shifted: pd.DataFrame) -> None:
    c = shifted[shifted["model"] == "B"].assign(model="C")
    c["score"] += np.random.default_rng(1).normal(0, 0.3, size=len(c))
    df = pd.concat([shifted, c])
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
def test_gate_on_the_boundaries(shifted: pd.DataFrame) -> None:
    low = boot(shifted).confidence_interval.low
    assert gate(boot(shifted, practical_threshold=low), "not-a-better").exit_code == 1
    assert gate(boot(shifted, practical_threshold=below(low)), "not-a-better").exit_code == 0
    high = boot(shifted, "B", "A").confidence_interval.high
    assert gate(boot(shifted, "B", "A", practical_threshold=-high), "b-better").exit_code == 0
    just_below = boot(shifted, "B", "A", practical_threshold=below(-high))
    assert gate(just_below, "b-better").exit_code == 1
    # not-noninferior: a margin equal to -low is noninferior (passes), one ulp less fails
    low_ba = boot(shifted, "B", "A").confidence_interval.low
    on = gate(boot(shifted, "B", "A", noninferiority_margin=-low_ba), "not-noninferior")
    assert on.exit_code == 0
    assert ">=" in on.reason
    off = gate(boot(shifted, "B", "A", noninferiority_margin=below(-low_ba)), "not-noninferior")
    assert off.exit_code == 1
    assert "<" in off.reason.split("low end")[1]


def test_gate_through_the_cli_on_the_boundary(shifted: pd.DataFrame, tmp_path: Any) -> None:
    import json
    import subprocess
    import sys

    path = tmp_path / "scores.csv"
    shifted.to_csv(path, index=False)

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


# --------------------------------------------------------------------------- sequential monitoring
@pytest.mark.parametrize(("bounds", "value"), [((0.0, 1.0), 0.0), ((-1.0, 0.0), 0.0)])
def test_sequence_stops_only_when_zero_is_strictly_excluded(
    bounds: tuple[float, float], value: float
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
