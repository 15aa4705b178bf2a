"""Several models, one artifact, and one pairing of every model.

* ``MultiResult.to_artifact`` / ``save``: the ``paired-comparison-artifact/v2``
  artifact; each comparison's numbers are the two-model bootstrap's; it
  verifies, and ``verify`` refuses it edited (a number, a removed field, the
  wrong version, a p-value adjustment that does not follow), while two-model
  reports keep the ``v1`` artifact;
* the shareable artifact holds no case id, target, prediction or path;
* ``pairing.pair_many`` returns, for each comparison, the pairs
  ``pairing.pair`` returns (score and prediction mode, clusters and strata,
  every missing-outcome policy), and checks every rule for all the models.
"""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import pdpaired
from pdpaired import ArtifactError, PairingError
from pdpaired.core.multiplicity import adjust_pvalues
from pdpaired.pairs.columns import resolve_columns
from pdpaired.pairs.pandas.pairing import pair, pair_many

from ..analysis.test_multi import many


def redigest(art: dict[str, Any]) -> dict[str, Any]:
    """Recompute the digest (an attacker who edits the content can do this too)."""
    body = {k: v for k, v in art.items() if k != "digest"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return {**body, "digest": hashlib.sha256(text.encode()).hexdigest()}


def problems_of(path: Path, art: dict[str, Any]) -> list[str]:
    path.write_text(json.dumps(art), encoding="utf-8")
    with pytest.raises(ArtifactError) as err:
        pdpaired.verify(path)
    found: list[str] = err.value.problems  # type: ignore[attr-defined]
    return found


@pytest.fixture(scope="module")
def res() -> pdpaired.MultiResult:
    df = many(120, effects=(0.0, 0.05, -0.03, 0.1))
    df["case_id"] = "CANARY-" + df["case_id"].astype(str)
    return df.paired.against("m0", higher_is_better=True, rng=3, n_resamples=400)


def edit_number(art: dict[str, Any]) -> None:
    art["comparisons"][1]["improvement_a_over_b"] += 0.01


def drop_field(art: dict[str, Any]) -> None:
    del art["comparisons"][0]["pvalue_adjusted"]


def wrong_version(art: dict[str, Any]) -> None:
    art["artifact"] = "paired-comparison-artifact/v1"


def bad_adjustment(art: dict[str, Any]) -> None:
    art["comparisons"][2]["pvalue_adjusted"] = min(1.0, art["comparisons"][2]["pvalue"] * 1.5)


def other_baseline(art: dict[str, Any]) -> None:
    art["comparisons"][0]["models"]["b"] = "m2"


def flipped_verdict(art: dict[str, Any]) -> None:
    d = art["comparisons"][0]["decisions"]
    d["verdict"] = "b_better" if d["verdict"] != "b_better" else "a_better"


def narrower_band(art: dict[str, Any]) -> None:
    # one interval shrunk about its centre: it no longer has the band's half-width
    iv = art["comparisons"][1]["interval"]
    imp = art["comparisons"][1]["improvement_a_over_b"]
    iv["low"], iv["high"] = imp - 0.9 * (imp - iv["low"]), imp + 0.9 * (iv["high"] - imp)


def band_undeclared(art: dict[str, Any]) -> None:
    art["analysis"]["simultaneous"] = False


def own_interval_in_band(art: dict[str, Any]) -> None:
    art["comparisons"][0]["interval"]["method"] = "percentile"


# --------------------------------------------------------------- one pairing of every model
def frames_equal(got: Any, ref: Any) -> None:
    pd.testing.assert_frame_equal(got.frame, ref.frame)
    assert got.missing == ref.missing
    assert got.binary == ref.binary
    assert got.scale_exp == ref.scale_exp
    for name in ("values_a", "values_b"):
        x, y = getattr(got, name), getattr(ref, name)
        assert (x is None) == (y is None)
        if x is not None:
            np.testing.assert_array_equal(x, y)


# --------------------------------------------------------------- the artifact
def test_artifact_holds_each_comparison_of_the_result(res: pdpaired.MultiResult) -> None:
    art = res.to_artifact("shareable")
    assert art["protocol"] == "paired-comparison/v2"
    assert art["artifact"] == "paired-comparison-artifact/v2"
    assert art["models"] == ["m0", "m1", "m2", "m3"]
    assert art["analysis"] == {"kind": "against", "baseline": "m0", "adjust": "holm",
                               "pvalue": "bootstrap-two-sided", "shared_draws": True,
                               "same_cases": True, "simultaneous": True,
                               "critical_value": res.critical_value}  # fmt: skip
    assert res.critical_value is not None
    assert f"each estimate +/- {res.critical_value:.4g} bootstrap SEs" in res.to_markdown()
    frame = res.to_frame()
    assert len(art["comparisons"]) == len(frame) == 3
    for c, bs, row in zip(art["comparisons"], res.comparisons, frame.itertuples(), strict=True):
        assert c["models"] == {"a": bs.a, "b": "m0"}
        assert c["metric_a"] == bs.metric_a
        assert c["metric_b"] == bs.metric_b
        assert c["improvement_a_over_b"] == bs.improvement
        assert c["interval"]["low"] == bs.confidence_interval.low
        assert c["interval"]["high"] == bs.confidence_interval.high
        assert c["interval"]["seed"] == 3
        assert c["interval"]["method"] == bs.method == "max-t"
        assert c["decisions"]["verdict"] == bs.verdict == row.verdict
        assert c["pvalue"] == row.pvalue
        assert c["pvalue_adjusted"] == row.pvalue_adjusted
    ranks = res.ranks().to_frame()
    assert [r["model"] for r in art["ranks"]["rows"]] == list(ranks.model)
    assert [r["upper"] for r in art["ranks"]["rows"]] == list(ranks.upper)
    np.testing.assert_allclose(
        [c["pvalue_adjusted"] for c in art["comparisons"]],
        adjust_pvalues([c["pvalue"] for c in art["comparisons"]], "holm"),
    )


def test_saved_artifacts_verify_and_shareable_holds_no_case_data(
    res: pdpaired.MultiResult, tmp_path: Path
) -> None:
    paths = res.save(tmp_path / "out")
    assert {p.name for p in (tmp_path / "out").iterdir()} == {
        "comparison.json", "comparison.shareable.json", "comparison.md"}  # fmt: skip
    local = pdpaired.verify(paths["local"])
    share = pdpaired.verify(paths["shareable"])
    assert local["kind"] == "local"
    assert share["kind"] == "shareable"
    assert "local" not in share
    assert len(local["local"]["aligned_ids_sha256"]) == 3
    assert local["local"]["seed"] == 3
    assert {"in_memory_table_sha256"} == set(local["local"]["inputs"][0])
    text = paths["shareable"].read_text(encoding="utf-8")
    assert "CANARY" not in text
    assert str(tmp_path) not in text
    md = paths["markdown"].read_text(encoding="utf-8")
    assert md == res.to_markdown()
    assert "| m1 | m0 |" in md


def test_given_inputs_are_recorded_in_the_local_artifact(res: pdpaired.MultiResult) -> None:
    inputs = [{"path": "a.csv", "sha256": "0" * 64}, {"path": "b.csv", "sha256": "1" * 64}]
    art = res.to_artifact("local", inputs=inputs)
    assert art["local"]["inputs"] == inputs
    with pytest.raises(ValueError, match="`kind`"):
        res.to_artifact("public")


@pytest.mark.parametrize(
    ("edit", "word"),
    [
        (edit_number, "improvement_a_over_b"),
        (drop_field, "pvalue_adjusted"),
        (wrong_version, "'paired-comparison-artifact/v2' was expected"),
        (bad_adjustment, "holm adjustment"),
        (other_baseline, "baseline"),
        (flipped_verdict, "decisions.verdict"),
        (narrower_band, "half-width"),
        (band_undeclared, "not simultaneous"),
        (own_interval_in_band, "in a simultaneous band"),
    ],
)
def test_verify_refuses_an_edited_v2_artifact(
    res: pdpaired.MultiResult, tmp_path: Path, edit: Any, word: str
) -> None:
    art = res.to_artifact("shareable")
    plain = copy.deepcopy(art)
    edit(plain)
    found = problems_of(tmp_path / "plain.json", plain)
    # an edit without a new digest: the digest differs (or the schema fails first)
    assert any("digest" in p or p.startswith("schema") for p in found), found
    edited = copy.deepcopy(art)
    edit(edited)
    found = problems_of(tmp_path / "redigested.json", redigest(edited))
    assert any(word in p for p in found), found  # and with a recomputed one


def test_v1_artifact_relabelled_v2_is_refused(tmp_path: Path) -> None:
    cmp = many(60).paired.compare("m1", "m0", higher_is_better=True)
    art = cmp.report(n_resamples=200, n_permutations=200, rng=0).to_artifact("shareable")
    assert art["artifact"] == "paired-comparison-artifact/v1"  # two models: v1, unchanged
    assert "comparisons" not in art
    found = problems_of(tmp_path / "x.json", redigest(dict(art, artifact=(
        "paired-comparison-artifact/v2"))))  # fmt: skip
    assert found == ["schema: artifact: 'paired-comparison-artifact/v1' was expected"]


def test_all_pairs_artifact_without_shared_cases_has_no_ranks(tmp_path: Path) -> None:
    df = many(80)
    gone = df[~((df.model == "m3") & (df.case_id.isin([4, 9])))]
    res = gone.paired.all_pairs(higher_is_better=True, rng=0, n_resamples=200,
                                missing="complete-case", simultaneous=False)  # fmt: skip
    art = pdpaired.verify(res.save(tmp_path)["local"])
    assert art["ranks"] is None
    assert art["analysis"]["baseline"] is None
    assert [c["n_cases"] for c in art["comparisons"]] == [r.n_cases for r in res.comparisons]
    digests = art["local"]["aligned_ids_sha256"]
    assert len(set(digests)) == 2  # the comparisons with m3 dropped two cases


@pytest.mark.parametrize(("missing", "fill_value"), [("complete-case", None), ("as-failure", -3.0)])
def test_pair_many_equals_pair_for_each_comparison(missing: str, fill_value: float) -> None:
    n = 90
    df = many(n, group=np.arange(n) // 3, stratum=np.arange(n) % 2)
    gone = df[~(((df.model == "m3") & df.case_id.isin([4, 9])) | ((df.model == "m0") & (
        df.case_id == 50)))].sample(frac=1.0, random_state=1)  # fmt: skip
    gone.loc[gone.index[:2], "score"] = np.nan
    cols = resolve_columns({}, list(gone.columns))
    pairs = [("m1", "m0"), ("m3", "m0"), ("m2", "m3"), ("m1", "m2")]
    got = pair_many(gone, cols, pairs, missing=missing, fill_value=fill_value,
                    higher_is_better=True)  # fmt: skip
    for (a, b), data in zip(pairs, got, strict=True):
        ref = pair(gone, cols, a, b, missing=missing, fill_value=fill_value, higher_is_better=True)
        frames_equal(data, ref)


def test_pair_many_equals_pair_in_prediction_mode() -> None:
    rng = np.random.default_rng(4)
    n = 70
    y = rng.integers(0, 2, n)
    parts = [
        pd.DataFrame({"id": np.arange(n), "sys": m, "y": y,
                      "p": np.clip(y * s + rng.uniform(0, 1 - s, n), 0, 1)})
        for m, s in (("a", 0.5), ("b", 0.2), ("c", 0.0))
    ]  # fmt: skip
    df = pd.concat(parts, ignore_index=True)
    df = df[~((df.sys == "c") & (df.id == 3))]
    cols = resolve_columns({"case": "id", "model": "sys", "target": "y", "prediction": "p"},
                           list(df.columns))  # fmt: skip
    pairs = [("a", "b"), ("a", "c"), ("b", "c")]
    got = pair_many(df, cols, pairs, missing="as-failure", fill_value=0.5)
    for (a, b), data in zip(pairs, got, strict=True):
        frames_equal(data, pair(df, cols, a, b, missing="as-failure", fill_value=0.5))
    res = df.paired(case="id", model="sys", target="y", prediction="p").all_pairs(
        metric="auroc",
        missing="as-failure",
        fill_value=0.5,
        rng=0,
        n_resamples=300,
        simultaneous=False,
    )
    for r in res.comparisons:
        two = df.paired(case="id", model="sys", target="y", prediction="p").bootstrap(
            r.a, r.b, metric="auroc", missing="as-failure", fill_value=0.5, rng=0,
            n_resamples=300)  # fmt: skip
        assert r.confidence_interval == two.confidence_interval
        np.testing.assert_array_equal(r.bootstrap_distribution, two.bootstrap_distribution)


def test_pair_many_checks_every_rule_for_all_models_at_once() -> None:
    df = many(40)
    cols = resolve_columns({}, list(df.columns))
    pairs = [("m1", "m0"), ("m2", "m0"), ("m3", "m0")]
    gone = df[~(((df.model == "m2") & (df.case_id == 5)) | ((df.model == "m3") & (
        df.case_id == 7)))]  # fmt: skip
    with pytest.raises(PairingError) as err:
        pair_many(gone, cols, pairs)
    msg = str(err.value)  # both models' missing outcomes, in one error
    assert "missing outcome for m2" in msg
    assert "missing outcome for m3" in msg
    assert set(err.value.failure_cases["index"]) == {5, 7}
    dup = pd.concat([df, df[(df.model == "m3") & (df.case_id.isin([2, 8]))]])
    with pytest.raises(PairingError, match=r"unique \(case, model\).*\[2, 8\]"):
        pair_many(dup, cols, pairs)
    with pytest.raises(PairingError, match="m9"):
        pair_many(df, cols, [("m1", "m9")])
    nulls = df.assign(model=df.model.where(df.index != 3, None))
    with pytest.raises(PairingError, match="row"):
        pair_many(nulls, cols, pairs)


# --------------------------------------------------------------- all_pairs: sums derived
@pytest.mark.usefixtures("engine")
def test_all_pairs_derived_sums_equal_each_two_model_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``A - B = (R - B) - (R - A)`` spares a gather only when it holds on the integers.

    Models on one scale (every relation holds, grids equal), two close models
    (their difference sits on a finer grid: the relation holds up to a power
    of two) and models on other scales (other grids: the relation fails and
    the comparison is gathered): every replicate equals the two-model call.
    """
    import pdpaired.core.multi as joint

    seen: list[dict[int, tuple[int, int, int]]] = []
    real = joint._derivable

    def spy(quantized: Any, relations: Any) -> dict[int, tuple[int, int, int]]:
        out = real(quantized, relations)
        seen.append(out)
        return out

    monkeypatch.setattr(joint, "_derivable", spy)
    rng = np.random.default_rng(8)
    n = 400
    base = rng.normal(size=n)
    close = base + rng.normal(0.0, 0.3, n)

    def dyadic(x: np.ndarray) -> np.ndarray:  # scores on a grid of 2**-12, as rounded scores are
        return np.round(x * 4096.0) / 4096.0

    scores = {
        "r": dyadic(base + rng.normal(0.0, 2.0, n)),
        "a": dyadic(close),
        "b": dyadic(close + rng.normal(0.0, 0.01, n)),  # a - b: a finer grid than r - a
        "c": dyadic(base + rng.normal(0.0, 0.5, n)),
        "d": 1000.0 * (base + rng.normal(0.0, 0.5, n)),  # continuous, another scale
    }
    df = pd.concat(
        [
            pd.DataFrame({"case_id": np.arange(n), "model": m, "score": x})
            for m, x in scores.items()
        ],
        ignore_index=True,
    )
    kw = {"higher_is_better": True, "rng": 2, "n_resamples": 300}
    res = df.paired.all_pairs(list(scores), **kw, simultaneous=False)
    derived = seen[-1]
    shifts = {v[2] for v in derived.values()}
    assert len(derived) >= 3
    assert any(s > 0 for s in shifts)  # the close pair, from its coarser relatives
    for r in res.comparisons:
        two = df.paired.bootstrap(r.a, r.b, **kw)
        np.testing.assert_array_equal(r.bootstrap_distribution, two.bootstrap_distribution)
        assert r.confidence_interval == two.confidence_interval
