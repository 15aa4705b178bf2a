"""``verify`` checks substance, not only form: numbers that contradict the artifact's own records.

A forger who edits an artifact can recompute its digest; what they cannot do
is make the edited numbers follow from the rest. Each forgery here (from a
genuine artifact, digest recomputed) changes one fact -- a p-value the
recorded counts refute, an ``exact`` flag without full enumeration, metrics
the 0/1 counts do not give, slices that do not partition the cases, an
adjusted p-value below the raw one, a verdict its interval does not give, a
model compared with itself, a one-case slice in the shareable artifact --
and must be refused with a message naming it. Genuine artifacts of every
design (0/1 and continuous scores, lower-is-better, exact enumeration,
clusters, slices with uncertainty, prediction mode) must pass: the checks
have no false alarms. The exact binomial p-value is recomputed against
scipy's ``binomtest`` as the independent oracle.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest

import pdpaired
from pdpaired.artifacts import digests

FAST = {"n_resamples": 300, "n_permutations": 300}


def binary_frame(n: int = 300, *, seed: int = 4, groups: int | None = None) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    b = (rng.random(n) < 0.6).astype(float)
    flip = rng.random(n) < 0.25
    a = np.where(flip, rng.random(n) < 0.8, b).astype(float)
    site = np.array(["north", "south", "east"])[np.arange(n) % 3]
    extra = {} if groups is None else {"doc": np.arange(n) % groups}
    return pd.concat(
        [pd.DataFrame({"case_id": np.arange(n), "model": m, "score": s, "site": site, **extra})
         for m, s in (("cand", a), ("base", b))],
        ignore_index=True,
    )  # fmt: skip


def saved(rep: pdpaired.ComparisonReport, tmp: Path) -> dict[str, dict[str, Any]]:
    paths = rep.save(tmp)
    return {kind: json.loads(paths[kind].read_text("utf-8")) for kind in ("local", "shareable")}


def write(tmp: Path, art: dict[str, Any], *, redigest: bool = True) -> Path:
    art = copy.deepcopy(art)
    if redigest:
        art["digest"] = digests.content_digest(art)
    path = tmp / "forged.json"
    path.write_text(json.dumps(art), encoding="utf-8")
    return path


def refused(tmp: Path, art: dict[str, Any], *words: str) -> str:
    with pytest.raises(pdpaired.ArtifactError) as err:
        pdpaired.verify(write(tmp, art))
    text = str(err.value)
    for w in words:
        assert w in text, text
    assert "digest" not in text  # the digest was recomputed: the numbers decide
    return text


@pytest.fixture(scope="module")
def binary(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    cmp = binary_frame().paired.compare("cand", "base", higher_is_better=True)
    rep = cmp.report(**FAST, rng=0, slices="site", slice_uncertainty=True, min_slice_size=20)
    return saved(rep, tmp_path_factory.mktemp("binary"))


# --------------------------------------------------------------------------- no false alarms
@pytest.mark.filterwarnings("ignore::pdpaired.DegenerateDataWarning")  # tiny slices
@pytest.mark.parametrize(
    "design",
    ["binary", "lower_is_better", "exact_enumeration", "clusters", "continuous", "prediction",
     "tiny_slices_shareable"],
)  # fmt: skip
def test_genuine_artifacts_of_every_design_verify(design: str, tmp_path: Path) -> None:
    if design == "binary":
        rep = (
            binary_frame()
            .paired.compare("cand", "base", higher_is_better=True)
            .report(**FAST, rng=1, slices="site", slice_uncertainty=True, min_slice_size=20)
        )
    elif design == "lower_is_better":  # 1 = an error: B passes where A scores 1
        rep = (
            binary_frame()
            .paired.compare("cand", "base", higher_is_better=False)
            .report(**FAST, rng=1, slices="site", slice_uncertainty=True)
        )
    elif design == "exact_enumeration":  # 9 cases: 512 assignments <= 1000 permutations
        rep = (
            binary_frame(9, seed=2)
            .paired.compare("cand", "base", higher_is_better=True)
            .report(n_resamples=300, n_permutations=1000, rng=1)
        )
    elif design == "clusters":
        rep = (
            binary_frame(groups=40)
            .paired(group="doc")
            .compare("cand", "base", higher_is_better=True)
            .report(**FAST, rng=1, unit="group")
        )
    elif design == "continuous":
        df = binary_frame()
        df["score"] = df["score"] + np.random.default_rng(0).normal(0, 0.3, len(df))
        rep = df.paired.compare("cand", "base", higher_is_better=True).report(
            **FAST, rng=1, slices="site", slice_uncertainty=True, practical_threshold=0.05
        )
    elif design == "prediction":
        df = binary_frame()
        df["y"] = np.tile((np.arange(300) % 2).astype(float), 2)
        df["p"] = np.where(df["score"] == 1, df["y"], 1 - df["y"])
        rep = (
            df.paired(target="y", prediction="p")
            .compare("cand", "base", metric="accuracy")
            .report(**FAST, rng=1)
        )
    else:  # slices of 4 cases: reported locally, suppressed in the shareable artifact
        df = binary_frame(60)
        df["bucket"] = np.tile(np.minimum(np.arange(60) // 4, 20), 2).astype(str)
        rep = df.paired.compare("cand", "base", higher_is_better=True).report(
            **FAST, rng=1, slices="bucket", min_slice_size=1
        )
    arts = saved(rep, tmp_path)
    for kind, art in arts.items():
        assert pdpaired.verify(write(tmp_path, art, redigest=False))["kind"] == kind
    if design == "exact_enumeration":
        assert arts["local"]["randomization"]["exact"] is True
        assert arts["local"]["randomization"]["n_permutations"] == 2**9


def test_the_exact_binomial_pvalue_is_scipys(binary: dict[str, dict[str, Any]]) -> None:
    eb = binary["local"]["exact_binomial"]
    n = eb["a_only"] + eb["b_only"]
    assert n > 20
    want = binomtest(eb["a_only"], n, 0.5, alternative="two-sided").pvalue
    assert eb["pvalue"] == pytest.approx(want, rel=1e-9)


# --------------------------------------------------------------------------- forgeries
def test_an_exact_binomial_pvalue_the_counts_refute(
    binary: dict[str, dict[str, Any]], tmp_path: Path
) -> None:
    art = copy.deepcopy(binary["shareable"])
    assert art["exact_binomial"]["pvalue"] < 0.01
    art["exact_binomial"]["pvalue"] = 0.9
    text = refused(tmp_path, art, "exact_binomial.pvalue = 0.9", "a_only")
    eb = binary["shareable"]["exact_binomial"]
    assert repr(eb["pvalue"])[:8] in text  # the value the counts give


def test_exact_binomial_counts_that_do_not_give_the_metrics(
    binary: dict[str, dict[str, Any]], tmp_path: Path
) -> None:
    art = copy.deepcopy(binary["shareable"])
    eb = art["exact_binomial"]
    eb["both_pass"] -= 10  # same total, same discordant counts: the metrics no longer follow
    eb["both_fail"] += 10
    refused(tmp_path, art, "metric_a", "metric_b", "exact_binomial counts give")


def test_a_randomization_pvalue_below_one_over_r_plus_one(
    binary: dict[str, dict[str, Any]], tmp_path: Path
) -> None:
    art = copy.deepcopy(binary["shareable"])
    art["randomization"]["pvalue"] = 1e-9
    art["randomization"]["pvalue_se"] = 1e-9
    refused(tmp_path, art, "below 1 / (1 + n_permutations)")


def test_a_randomization_pvalue_that_is_no_count(
    binary: dict[str, dict[str, Any]], tmp_path: Path
) -> None:
    art = copy.deepcopy(binary["shareable"])
    r = art["randomization"]["n_permutations"]
    p = 7.5 / (1 + r)
    art["randomization"]["pvalue"] = p
    art["randomization"]["pvalue_se"] = (p * (1 - p) / (1 + r)) ** 0.5
    refused(tmp_path, art, "is not (1 + k) /")


def test_exact_without_full_enumeration(binary: dict[str, dict[str, Any]], tmp_path: Path) -> None:
    art = copy.deepcopy(binary["shareable"])
    rz = art["randomization"]
    rz["exact"], rz["pvalue_se"] = True, None
    rz["pvalue"] = round(rz["pvalue"] * rz["n_permutations"]) / rz["n_permutations"] or 1.0
    refused(tmp_path, art, "exact is true with 300 assignments", "2**300")


def test_slice_sizes_that_do_not_sum_to_the_cases(
    binary: dict[str, dict[str, Any]], tmp_path: Path
) -> None:
    art = copy.deepcopy(binary["local"])
    art["slices"]["rows"][0]["n"] += 5
    refused(tmp_path, art, "slices of 'site' hold 305 cases, not n_cases = 300")


def test_an_adjusted_pvalue_below_the_raw_one(
    binary: dict[str, dict[str, Any]], tmp_path: Path
) -> None:
    art = copy.deepcopy(binary["local"])
    row = next(r for r in art["slices"]["rows"] if r["pvalue"] is not None and r["pvalue"] > 0.01)
    row["pvalue_adjusted"] = row["pvalue"] / 2
    refused(tmp_path, art, "pvalue_adjusted", "is below the raw pvalue")


def test_a_slice_verdict_its_interval_does_not_give(
    binary: dict[str, dict[str, Any]], tmp_path: Path
) -> None:
    art = copy.deepcopy(binary["local"])
    row = art["slices"]["rows"][0]
    row.update(ci_low=-0.5, ci_high=0.5, verdict="a_better")
    refused(tmp_path, art, "verdict 'a_better'", "give 'inconclusive'")


def test_a_reversed_slice_interval(binary: dict[str, dict[str, Any]], tmp_path: Path) -> None:
    art = copy.deepcopy(binary["local"])
    row = art["slices"]["rows"][1]
    row["ci_low"], row["ci_high"] = row["ci_high"] + 0.1, row["ci_low"]
    refused(tmp_path, art, "ci_low", "exceeds ci_high")


def test_a_model_compared_with_itself(binary: dict[str, dict[str, Any]], tmp_path: Path) -> None:
    art = copy.deepcopy(binary["shareable"])
    art["models"]["b"] = art["models"]["a"]
    refused(tmp_path, art, "a model with itself")


def test_a_one_case_slice_in_the_shareable_artifact(
    binary: dict[str, dict[str, Any]], tmp_path: Path
) -> None:
    # relabel a slice as one case with an id-like label; the sizes kept summing
    art = copy.deepcopy(binary["shareable"])
    art["slices"]["min_size"] = 1
    rows = art["slices"]["rows"]
    rows[1]["n"] += rows[0]["n"] - 1
    rows[0].update(n=1, value="case-0017")
    refused(tmp_path, art, "reported with n = 1", "minimum slice size 10")


def test_a_skipped_slice_that_was_large_enough(
    binary: dict[str, dict[str, Any]], tmp_path: Path
) -> None:
    art = copy.deepcopy(binary["local"])
    row = art["slices"]["rows"][0]
    row["status"] = "skipped"
    refused(tmp_path, art, "skipped with n = 100 >= min_size = 20")
