"""Reports and artifacts carry the missing-outcome sensitivity.

When outcomes are missing and the scores are 0/1 (or bounded by
``score_range``), ``report()`` runs :meth:`Comparison.sensitivity` on its own
stream and the text, HTML and Markdown report and both JSON artifacts carry
the identified set, the Imbens-Manski interval and the tipping point. The
artifact block is optional (additive in v1): without missing outcomes it is
absent and the artifact is what it was. ``verify`` checks the block's
invariants; edited values (with the digest recomputed, as a forger would)
are rejected by name.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pdpaired
from pdpaired.artifacts.digests import content_digest


def _binary(n: int = 300, n_missing: int = 20, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    a = rng.binomial(1, 0.72, n).astype(float)
    b = rng.binomial(1, 0.6, n).astype(float)
    df = pd.DataFrame(
        {"case_id": np.tile(np.arange(n), 2), "model": np.repeat(["new", "old"], n),
         "score": np.concatenate([a, b])}
    )  # fmt: skip
    df.loc[: n_missing - 1, "score"] = np.nan  # A's missing outputs
    return df.drop(index=[n + n_missing, n + n_missing + 1])  # two absent B rows


def _continuous(n: int = 200, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {"case_id": np.tile(np.arange(n), 2), "model": np.repeat(["new", "old"], n),
         "score": np.concatenate([rng.uniform(3, 9, n), rng.uniform(2, 8, n)])}
    )  # fmt: skip
    df.loc[:9, "score"] = np.nan
    return df


def _save(rep, tmp_path: Path) -> dict[str, Path]:
    return rep.save(tmp_path)


@pytest.mark.parametrize("policy", ["complete-case", "as-failure"])
def test_binary_report_carries_the_bounds_everywhere(policy, tmp_path) -> None:
    cmp = _binary().paired.compare("new", "old", higher_is_better=True, missing=policy)
    rep = cmp.report(n_resamples=500, n_permutations=500, rng=3)
    sens = rep.sensitivity
    assert sens is not None
    assert rep.sensitivity_note is None
    # the same numbers as the standalone analysis (score mode draws nothing)
    alone = cmp.sensitivity()
    assert (sens.bounds, sens.confidence_interval, sens.tipping_point) == (
        alone.bounds, alone.confidence_interval, alone.tipping_point)  # fmt: skip
    assert (sens.seed, sens.stream) == (3, "report:sensitivity")
    # closed form: 20 missing for A, 2 for B; A's worst fill 0 and B's best 1 (and reverse)
    assert sens.n_missing_a == 20
    assert sens.n_missing_b == 2
    assert sens.n_cases == 300
    text, md, page = str(rep), rep.to_markdown(), rep._repr_html_()
    assert "Missing-outcome sensitivity" in text
    assert "Identified set" in text
    assert "## Missing outcomes: what they could change" in md
    assert "Imbens-Manski" in md
    assert "Missing-outcome sensitivity" in page
    paths = _save(rep, tmp_path)
    for kind in ("local", "shareable"):
        art = json.loads(paths[kind].read_text())
        block = art["sensitivity"]
        assert block == json.loads(json.dumps(sens.artifact_block()))
        assert block["bounds"] == {"low": sens.bounds.low, "high": sens.bounds.high}
        assert block["conclusion"] == sens.conclusion
        pdpaired.verify(paths[kind])
    assert "Missing outcomes: what they could change" in paths["markdown"].read_text()


def test_closed_form_bounds_in_the_artifact(tmp_path) -> None:
    # 0/1 scores, no strata: the bounds are (a_only - b_only) over every case with A's
    # missing outputs at 0 / B's at 1 (low) and the reverse (high), counted by hand
    df = _binary()
    wide = df.pivot(index="case_id", columns="model", values="score")
    a, b = wide["new"].to_numpy(), wide["old"].to_numpy()
    ma, mb = np.isnan(a), np.isnan(b)
    low = np.mean(np.where(ma, 0, a) - np.where(mb, 1, b))
    high = np.mean(np.where(ma, 1, a) - np.where(mb, 0, b))
    rep = df.paired.compare("new", "old", higher_is_better=True, missing="complete-case").report(
        n_resamples=200, n_permutations=200, rng=0)  # fmt: skip
    art = json.loads(_save(rep, tmp_path)["shareable"].read_text())
    assert art["sensitivity"]["bounds"]["low"] == pytest.approx(low, abs=1e-14)
    assert art["sensitivity"]["bounds"]["high"] == pytest.approx(high, abs=1e-14)
    assert art["sensitivity"]["n_cases"] == art["n_cases"] + art["missing"]["n_dropped"]


def test_no_missing_outcomes_no_block(tmp_path) -> None:
    df = _binary(n_missing=0).dropna()
    df = df[df["case_id"].isin(df.groupby("case_id").size().loc[lambda s: s == 2].index)]
    rep = df.paired.compare("new", "old", higher_is_better=True).report(
        n_resamples=200, n_permutations=200, rng=0)  # fmt: skip
    assert rep.sensitivity is None
    assert rep.sensitivity_note is None
    paths = _save(rep, tmp_path)
    art = json.loads(paths["local"].read_text())
    assert "sensitivity" not in art  # an artifact of before: byte for byte the same shape
    pdpaired.verify(paths["local"])
    assert "sensitivity" not in paths["markdown"].read_text().lower()


def test_continuous_scores_need_the_range(tmp_path) -> None:
    cmp = _continuous().paired.compare("new", "old", higher_is_better=True,
                                       missing="complete-case")  # fmt: skip
    rep = cmp.report(n_resamples=200, n_permutations=200, rng=0)
    assert rep.sensitivity is None
    assert "score_range" in rep.sensitivity_note
    assert "not computed" in str(rep)
    assert "not computed" in rep.to_markdown()
    assert "sensitivity" not in rep.to_artifact("shareable")
    ranged = cmp.report(n_resamples=200, n_permutations=200, rng=0, score_range=(0, 10))
    assert ranged.sensitivity is not None
    assert ranged.sensitivity.bounds == cmp.sensitivity(lower=0, upper=10).bounds
    assert (ranged.sensitivity.lower, ranged.sensitivity.upper) == (0.0, 10.0)
    pdpaired.verify(_save(ranged, tmp_path)["shareable"])
    with pytest.raises(ValueError, match="outside"):
        cmp.report(n_resamples=200, n_permutations=200, rng=0, score_range=(0, 5))
    with pytest.raises(ValueError, match="two numbers"):
        cmp.report(n_resamples=200, n_permutations=200, rng=0, score_range=(0, 5, 9))
    with pytest.raises(TypeError, match="two numbers"):
        cmp.report(n_resamples=200, n_permutations=200, rng=0, score_range=7)


def _forge(path: Path, edit) -> Path:
    art = json.loads(path.read_text())
    edit(art)
    art["digest"] = content_digest(art)  # a forger recomputes the digest
    out = path.with_name("forged.json")
    out.write_text(json.dumps(art))
    return out


@pytest.mark.parametrize(
    ("edit", "problem"),
    [
        (lambda s: s["bounds"].update(low=s["bounds"]["low"] - 0.01), "Imbens-Manski"),
        (lambda s: s["confidence_interval"].update(high=s["confidence_interval"]["high"] + 0.01),
         "Imbens-Manski"),
        (lambda s: s["standard_errors"].update(low=s["standard_errors"]["low"] * 2),
         "Imbens-Manski"),
        (lambda s: s.update(bounds={"low": s["bounds"]["high"] + 1, "high": s["bounds"]["high"]}),
         "exceeds"),
        (lambda s: s.update(conclusion="a_better"), "conclusion"),
        (lambda s: s.update(n_missing_a=s["n_missing_a"] + 1), "missing.n_missing_a"),
        (lambda s: s.update(n_missing_both=99), "n_missing_both"),
        (lambda s: s.update(n_cases=s["n_cases"] - 1), "dropped"),
        (lambda s: s.update(tipping_point=s["upper"] + 1), "tipping_point"),
        (lambda s: s.update(improvement_at_lower=s["bounds"]["high"] + 0.5),
         "improvement_at_lower"),
        (lambda s: s.update(lower=2.0), "lower"),
        (lambda s: s.update(seed=12345), "one seed"),
    ],
)  # fmt: skip
def test_verify_rejects_an_edited_block(tmp_path, edit, problem) -> None:
    rep = _binary().paired.compare("new", "old", higher_is_better=True,
                                   missing="complete-case").report(
        n_resamples=200, n_permutations=200, rng=0)  # fmt: skip
    path = _save(rep, tmp_path)["shareable"]
    forged = _forge(path, lambda art: edit(art["sensitivity"]))
    with pytest.raises(pdpaired.ArtifactError, match="sensitivity") as err:
        pdpaired.verify(forged)
    assert any(problem in p for p in err.value.problems), err.value.problems


def test_schema_rejects_a_malformed_block(tmp_path) -> None:
    rep = _binary().paired.compare("new", "old", higher_is_better=True,
                                   missing="complete-case").report(
        n_resamples=200, n_permutations=200, rng=0)  # fmt: skip
    path = _save(rep, tmp_path)["local"]
    for edit in (lambda s: s.pop("bounds"), lambda s: s.update(extra=1),
                 lambda s: s.update(conclusion="maybe")):  # fmt: skip
        forged = _forge(path, lambda art, e=edit: e(art["sensitivity"]))
        with pytest.raises(pdpaired.ArtifactError, match="schema: sensitivity"):
            pdpaired.verify(forged)


def test_as_failure_improvement_lies_in_the_set(tmp_path) -> None:
    rep = _binary().paired.compare("new", "old", higher_is_better=True,
                                   missing="as-failure").report(
        n_resamples=200, n_permutations=200, rng=0)  # fmt: skip
    s = rep.sensitivity
    assert s.bounds.low <= rep.bootstrap.improvement <= s.bounds.high
    path = _save(rep, tmp_path)["shareable"]

    def shift(art) -> None:  # move the whole analysis outside the set, consistently
        d = art["sensitivity"]["bounds"]["low"] - 0.05 - art["improvement_a_over_b"]
        art["metric_a"] += d
        art["raw_delta_a_minus_b"] += d
        art["improvement_a_over_b"] += d
        art["randomization"]["statistic"] += d

    with pytest.raises(pdpaired.ArtifactError, match="lies outside the identified set"):
        pdpaired.verify(_forge(path, shift))


def test_prediction_mode_report_is_seeded(tmp_path) -> None:
    rng = np.random.default_rng(4)
    n = 200
    y = rng.integers(0, 2, n)
    df = pd.DataFrame({
        "case_id": np.tile(np.arange(n), 2), "model": np.repeat(["new", "old"], n),
        "y": np.tile(y, 2),
        "p": np.clip(np.concatenate([y * 0.5 + rng.uniform(0, 0.5, n),
                                     y * 0.3 + rng.uniform(0, 0.7, n)]), 0, 1),
    })  # fmt: skip
    df.loc[:4, "p"] = np.nan
    cmp = df.paired(target="y", prediction="p").compare("new", "old", metric="accuracy",
                                                       missing="complete-case")  # fmt: skip
    one = cmp.report(n_resamples=200, n_permutations=200, rng=11)
    two = cmp.report(n_resamples=200, n_permutations=200, rng=11)
    assert one.sensitivity is not None
    assert one.sensitivity == two.sensitivity
    art = one.to_artifact("shareable")
    assert art["sensitivity"]["improvement_at_lower"] is None  # no fill path in prediction mode
    paths = _save(one, tmp_path)
    pdpaired.verify(paths["shareable"])
    pdpaired.verify(paths["local"])


def test_dask_report_carries_the_same_block(tmp_path) -> None:
    dd = pytest.importorskip("dask.dataframe")
    import pdpaired.dask

    df = _binary()
    kw = {"higher_is_better": True, "missing": "complete-case"}
    pd_rep = df.paired.compare("new", "old", **kw).report(n_resamples=200, n_permutations=200,
                                                         rng=0)  # fmt: skip
    dk_rep = dd.from_pandas(df, npartitions=3).paired.compare("new", "old", **kw).report(
        n_resamples=200, n_permutations=200, rng=0)  # fmt: skip
    a = pd_rep.to_artifact("shareable")["sensitivity"]
    b = dk_rep.to_artifact("shareable")["sensitivity"]
    assert a.keys() == b.keys()
    for k in ("bounds", "confidence_interval", "standard_errors"):
        for e in ("low", "high"):
            assert a[k][e] == pytest.approx(b[k][e], rel=1e-12, abs=1e-15)
    assert {k: a[k] for k in ("n_cases", "n_missing_a", "n_missing_b", "conclusion")} == {
        k: b[k] for k in ("n_cases", "n_missing_a", "n_missing_b", "conclusion")}  # fmt: skip
    pdpaired.verify(dk_rep.save(tmp_path)["shareable"])


def test_cli_compare_score_range(tmp_path) -> None:
    path = tmp_path / "long.csv"
    _continuous().to_csv(path, index=False)
    exe = str(Path(sys.executable).parent / "pdpaired")
    base = [exe, "compare", str(path), "--long", "--a", "new", "--b", "old", "--score", "score",
            "--higher-is-better", "--missing", "complete-case", "--resamples", "200",
            "--permutations", "200", "--seed", "0"]  # fmt: skip
    got = subprocess.run([*base, "--out", str(tmp_path / "r")], capture_output=True, text=True)
    assert got.returncode == 0, got.stderr
    assert "--score-range" in got.stdout  # the note says how to get the bounds
    assert "sensitivity" not in json.loads((tmp_path / "r" / "comparison.json").read_text())
    got = subprocess.run([*base, "--score-range", "0", "10", "--out", str(tmp_path / "s")],
                         capture_output=True, text=True)  # fmt: skip
    assert got.returncode == 0, got.stderr
    assert "Identified set" in got.stdout
    art = json.loads((tmp_path / "s" / "comparison.shareable.json").read_text())
    api = (
        _continuous()
        .paired.compare("new", "old", higher_is_better=True, missing="complete-case")
        .sensitivity(lower=0, upper=10)
    )
    assert art["sensitivity"]["bounds"] == {"low": api.bounds.low, "high": api.bounds.high}
    assert (art["sensitivity"]["lower"], art["sensitivity"]["upper"]) == (0, 10)
    got = subprocess.run([exe, "verify", str(tmp_path / "s" / "comparison.shareable.json")],
                         capture_output=True, text=True)  # fmt: skip
    assert got.returncode == 0, got.stderr
    got = subprocess.run([*base, "--score-range", "0", "5"], capture_output=True, text=True)
    assert got.returncode == 2
    assert "outside" in got.stderr
