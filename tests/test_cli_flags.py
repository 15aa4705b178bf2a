"""Every ``pdpaired compare`` flag through the installed console script, each checked.

``tests/test_cli.py`` covers the workflows; this file makes sure the flags it
does not reach (``--lower-is-better``, ``--method``, ``--alternative``,
``--confidence-level``, ``--missing``, ``--fill-value``, ``--threshold``,
``--stratum-column``, ``--model-column``, ``--practical-threshold``,
``--noninferiority-margin``, ``--group-column``, ``--id-column``,
``--task-type``, ``--names``, ``--seed``) reach the analysis: the artifact
the script writes must equal the one the Python API gives for the same
options, and the point estimates must equal an independent computation
(pandas / scikit-learn). A flag that was parsed but dropped would leave
the default in the artifact and fail the comparison, because every value
given differs from its default.

Also every ``report()`` option: ``method``, ``alternative``,
``confidence_level``, ``unit`` and ``weighting`` are checked against the
standalone ``bootstrap()`` / ``randomization()`` with the report's streams.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.metrics import accuracy_score

import pdpaired


def console_script() -> str:
    here = Path(sys.executable).parent / "pdpaired"
    if here.is_file() and os.access(here, os.X_OK):
        return str(here)
    found = shutil.which("pdpaired")
    if found is None:
        pytest.skip("the `pdpaired` console script is not installed (pip install -e .)")
    return found


def run_cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONWARNINGS"}
    env["MPLBACKEND"] = "Agg"
    proc = subprocess.run([console_script(), *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300, check=False)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return proc


SAME = ("metric", "n_cases", "alignment", "missing", "metric_a", "metric_b",
        "raw_delta_a_minus_b", "improvement_a_over_b", "interval", "randomization",
        "exact_binomial", "decisions")  # fmt: skip


def assert_same_analysis(cli: dict[str, Any], api: dict[str, Any]) -> None:
    for key in SAME:
        assert cli[key] == api[key], key


@pytest.fixture(scope="module")
def score_table() -> pd.DataFrame:
    """Long table, 'lower is better' scores, groups nested in strata, one missing score."""
    rng = np.random.default_rng(31)
    n = 96
    group = np.arange(n) // 4
    base = rng.gamma(2.0, 1.0, size=n)
    x = base - 0.15 + rng.normal(0, 0.4, n)
    y = base + rng.normal(0, 0.4, n)
    df = pd.DataFrame({
        "cid": np.tile(np.arange(n) * 3 + 1, 2), "who": np.repeat(["new", "old"], n),
        "loss": np.r_[x, y], "g": np.tile(group, 2), "st": np.tile(group % 3, 2),
    })  # fmt: skip
    df.loc[7, "loss"] = np.nan  # model "new", case 7: missing
    return df


def test_score_mode_flags_equal_the_api(score_table: pd.DataFrame, tmp_path: Path) -> None:
    path = tmp_path / "long.csv"
    score_table.to_csv(path, index=False)
    run_cli(["compare", str(path), "--long", "--a", "new", "--b", "old",
             "--model-column", "who", "--id-column", "cid", "--score", "loss",
             "--lower-is-better", "--group-column", "g", "--stratum-column", "st",
             "--missing", "as-failure", "--fill-value", "9.5",
             "--method", "bca", "--alternative", "greater", "--confidence-level", "0.9",
             "--practical-threshold", "0.01", "--noninferiority-margin", "0.3",
             "--resamples", "400", "--permutations", "300", "--seed", "17",
             "--out", str(tmp_path / "out")], tmp_path)  # fmt: skip
    cli = pdpaired.verify(tmp_path / "out" / "comparison.json")
    acc = score_table.paired(case="cid", model="who", score="loss", group="g", stratum="st")
    cmp = acc.compare("new", "old", higher_is_better=False, missing="as-failure", fill_value=9.5)
    rep = cmp.report(n_resamples=400, n_permutations=300, method="bca", alternative="greater",
                     confidence_level=0.9, practical_threshold=0.01,
                     noninferiority_margin=0.3, rng=17)  # fmt: skip
    assert_same_analysis(cli, rep.to_artifact("local"))
    # each flag reached the analysis (every value differs from its default)
    iv, rz, d = cli["interval"], cli["randomization"], cli["decisions"]
    assert cli["metric"]["higher_is_better"] is False
    assert (iv["method"], iv["confidence_level"], iv["n_resamples"]) == ("bca", 0.9, 400)
    design = (iv["sampling"], iv["unit"], iv["n_strata"], iv["n_groups"], iv["seed"])
    assert design == ("stratified-cluster", "group", 3, 24, 17)
    assert (rz["alternative"], rz["n_permutations"]) == ("greater", 300)
    assert (d["practical_threshold"], d["noninferiority_margin"]) == (0.01, 0.3)
    assert d["noninferior"] == (iv["low"] >= -0.3)
    assert cli["missing"] == {"policy": "as-failure", "n_missing_a": 1, "n_missing_b": 0,
                              "n_dropped": 0, "n_filled": 1, "fill_value": 9.5}  # fmt: skip
    # the point estimates by pandas: the missing score filled with 9.5, lower is better
    wide = score_table.pivot(index="cid", columns="who", values="loss").fillna(9.5)
    assert cli["metric_a"] == pytest.approx(wide["new"].mean(), rel=1e-12)
    assert cli["metric_b"] == pytest.approx(wide["old"].mean(), rel=1e-12)
    assert cli["improvement_a_over_b"] == pytest.approx(
        wide["old"].mean() - wide["new"].mean(), rel=1e-12
    )


def test_prediction_mode_flags_equal_the_python_api_and_sklearn(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    n = 120
    y = (rng.uniform(size=n) < 0.4).astype(int)
    pa = np.round(np.clip(0.35 * y + rng.uniform(0, 0.65, n), 0, 1), 1)  # ties at 0.3
    pb = np.round(np.clip(0.2 * y + rng.uniform(0, 0.8, n), 0, 1), 1)
    ids = np.arange(n) + 100
    for name, p in (("cand", pa), ("base", pb)):
        pd.DataFrame({"sid": ids, "label": y, "prob": p}).to_csv(tmp_path / f"{name}.csv",
                                                                index=False)  # fmt: skip
    proc = run_cli(["compare", str(tmp_path / "cand.csv"), str(tmp_path / "base.csv"),
                    "--names", "A", "B", "--id-column", "sid", "--model-column", "which",
                    "--target", "label", "--prediction-column", "prob", "--task-type", "binary",
                    "--metric", "accuracy", "--threshold", "0.3", "--method", "basic",
                    "--alternative", "less", "--confidence-level", "0.8",
                    "--resamples", "300", "--permutations", "200", "--seed", "3",
                    "--out", str(tmp_path / "out")], tmp_path)  # fmt: skip
    cli = json.loads((tmp_path / "out" / "comparison.json").read_text(encoding="utf-8"))
    assert "80%" in proc.stdout
    long = pdpaired.from_tables(pd.read_csv(tmp_path / "cand.csv"),
                                pd.read_csv(tmp_path / "base.csv"), id="sid",
                                names=("A", "B"), model="which")  # fmt: skip
    cmp = long.paired(case="sid", model="which", target="label", prediction="prob").compare(
        "A", "B", metric="accuracy", threshold=0.3
    )
    rep = cmp.report(n_resamples=300, n_permutations=200, method="basic", alternative="less",
                     confidence_level=0.8, rng=3)  # fmt: skip
    assert_same_analysis(cli, rep.to_artifact("local"))
    assert cli["metric"]["threshold"] == 0.3
    acc_a, acc_b = accuracy_score(y, pa > 0.3), accuracy_score(y, pb > 0.3)
    assert cli["metric_a"] == pytest.approx(acc_a, rel=1e-12)
    assert cli["metric_b"] == pytest.approx(acc_b, rel=1e-12)
    assert acc_a != accuracy_score(y, pa > 0.5)  # the threshold matters on these data
    assert (cli["interval"]["method"], cli["randomization"]["alternative"]) == ("basic", "less")


# --------------------------------------------------------------------------- report() options
@pytest.fixture(scope="module")
def clustered_cmp() -> pdpaired.Comparison:
    rng = np.random.default_rng(77)
    sizes = rng.integers(1, 9, size=36)
    group = np.repeat(np.arange(36), sizes)
    n = group.size
    b = rng.normal(size=n)
    a = b + rng.normal(0.1, 0.5, size=36)[group] + rng.normal(0, 0.3, n)
    df = pd.DataFrame({"case_id": np.tile(np.arange(n), 2), "model": np.repeat(["A", "B"], n),
                       "score": np.r_[a, b], "group": np.tile(group, 2)})  # fmt: skip
    return df.paired(group="group").compare("A", "B", higher_is_better=True)


@pytest.mark.parametrize(
    "opts",
    [
        {"method": "basic", "alternative": "less", "confidence_level": 0.8},
        {"method": "bca", "alternative": "greater", "confidence_level": 0.99,
         "weighting": "group"},
        {"method": "percentile", "alternative": "two-sided", "confidence_level": 0.9,
         "unit": "case"},
    ],
)  # fmt: skip
def test_report_options_reach_the_bootstrap_and_the_test(
    clustered_cmp: pdpaired.Comparison, opts: dict[str, Any]
) -> None:
    """The report's parts equal bootstrap()/randomization() with the same options.

    The report draws from its own streams (``report:bootstrap``...), so the
    standalone calls are compared through the report's recorded parts: the
    same method, level, alternative, unit and weighting, and an interval
    recomputed from the report's own replicates.
    """
    rep = clustered_cmp.report(n_resamples=500, n_permutations=300, rng=9, **opts)
    bs, rz = rep.bootstrap, rep.randomization
    assert bs.method == opts["method"]
    assert bs.confidence_level == opts["confidence_level"]
    assert rz.alternative == opts["alternative"]
    unit = opts.get("unit", "group")
    weighting = opts.get("weighting", "item")
    art = rep.to_artifact("local")
    assert (art["interval"]["unit"], art["interval"]["weighting"]) == (unit, weighting)
    assert art["randomization"]["unit"] == unit
    # the point estimate follows the weighting: group-weighted is the mean of group means
    alone = clustered_cmp.bootstrap(n_resamples=500, rng=9, unit=opts.get("unit"),
                                    weighting=weighting, method=opts["method"],
                                    confidence_level=opts["confidence_level"])  # fmt: skip
    assert bs.improvement == pytest.approx(alone.improvement, rel=1e-12)
    pairs = clustered_cmp.pairs
    d = pairs["A"] - pairs["B"]
    want = d.groupby(pairs["group"]).mean().mean() if weighting == "group" else d.mean()
    assert bs.improvement == pytest.approx(want, rel=1e-12)
    assert d.groupby(pairs["group"]).mean().mean() != pytest.approx(d.mean(), rel=1e-6)
    # the interval of the report's own replicates, at its level
    dist = bs.bootstrap_distribution
    alpha = (1 - opts["confidence_level"]) / 2
    if unit == "group":  # clusters: tail levels Phi(t_nu(alpha)), nu = groups - 1
        nu = pairs["group"].nunique() - 1
        alpha = float(stats.norm.cdf(stats.t.ppf(alpha, nu)))
    if opts["method"] == "percentile":
        want = np.percentile(dist, [100 * alpha, 100 * (1 - alpha)])
        np.testing.assert_allclose([bs.confidence_interval.low, bs.confidence_interval.high],
                                   want, rtol=0, atol=1e-12)  # fmt: skip
    elif opts["method"] == "basic":
        want = 2 * bs.improvement - np.percentile(dist, [100 * (1 - alpha), 100 * alpha])
        np.testing.assert_allclose([bs.confidence_interval.low, bs.confidence_interval.high],
                                   want, rtol=0, atol=1e-12)  # fmt: skip
    # the one-sided p-values of the report's null distribution, plus one
    null = rz.null_distribution
    obs = rz.statistic
    if opts["alternative"] == "greater":
        want_p = (1 + np.sum(null >= obs - 1e-12 * abs(obs))) / (1 + null.size)
        assert rz.pvalue == pytest.approx(want_p, abs=1.0 / (1 + null.size))
    elif opts["alternative"] == "less":
        want_p = (1 + np.sum(null <= obs + 1e-12 * abs(obs))) / (1 + null.size)
        assert rz.pvalue == pytest.approx(want_p, abs=1.0 / (1 + null.size))
