"""``pdpaired compare`` with several models, run as the installed console script.

Three prediction files (``--baseline``) and a long table of three models
(``--all-pairs``): exit status 0, one report whose artifacts verify and equal
the Python API's (``df.paired.against`` / ``all_pairs`` with the same seed,
``MultiResult.to_artifact``); ``verify`` accepts the ``v2`` artifact and refuses
it edited (a number, a removed field, the wrong version); ``--fail-on`` exits 1
when a candidate fails the gate; bad input exits 2 with a message and no
traceback. Every run is launched up front, concurrently (see ``test_cli``).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from sklearn import metrics as skm

import pdpaired

from .test_cli import Run, assert_bad, assert_ok, get, load, run_all, sha256
from .test_multi_artifact import redigest

FAST = ["--resamples", "300"]
REG = ["--target", "y", "--prediction-column", "pred", "--metric", "rmse"]
FILES = ("base", "good", "bad")


def write_inputs(root: Path) -> dict[str, Path]:
    d = root / "inputs-CANARY-DIR-9b1c"
    d.mkdir()
    rng = np.random.default_rng(11)
    n = 150
    y = np.round(rng.normal(0.0, 3.0, n), 3) + 0.000123456
    ids = [f"CANARY-ID-{i:03d}" for i in range(n)]
    files: dict[str, Path] = {}
    for name, sd in (("base", 1.0), ("good", 0.6), ("bad", 1.6)):
        files[name] = d / f"{name}.csv"
        pred = np.round(y + rng.normal(0.0, sd, n), 3)
        pd.DataFrame({"sample_id": ids, "y": y, "pred": pred}).to_csv(files[name], index=False)
    long = pd.concat(
        [
            pd.DataFrame({"case_id": np.arange(n), "model": m, "score": rng.uniform(size=n) + eff,
                          "grp": np.arange(n) // 5})
            for m, eff in (("alpha", 0.0), ("beta", 0.1), ("gamma", -0.05))
        ],
        ignore_index=True,
    )  # fmt: skip
    files["long"] = d / "long.csv"
    long.to_csv(files["long"], index=False)
    return files


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cli_multi")


@pytest.fixture(scope="module")
def inputs(work: Path) -> dict[str, Path]:
    return write_inputs(work)


def three(f: dict[str, Path]) -> list[str]:
    return [str(f[n]) for n in FILES]


@pytest.fixture(scope="module")
def runs(work: Path, inputs: dict[str, Path]) -> dict[str, Run]:
    f, out = inputs, work / "out"
    jobs: dict[str, tuple[list[str], str]] = {
        "against": (["compare", *three(f), "--baseline", "base", *REG, *FAST, "--seed", "0",
                     "--out", str(out / "against")], "script"),
        "all-pairs": (["compare", str(f["long"]), "--long", "--all-pairs", "--score", "score",
                       "--higher-is-better", "--group-column", "grp", "--adjust", "fdr_bh",
                       *FAST, "--seed", "1", "--out", str(out / "all-pairs")], "script"),
        "gate": (["compare", *three(f), "--baseline", "base", *REG, *FAST, "--seed", "0",
                  "--fail-on", "b-better"], "script"),
        "gate-pass": (["compare", str(f["base"]), str(f["good"]), "--baseline", "base", *REG,
                       *FAST, "--seed", "0", "--fail-on", "b-better"], "module"),
        "bad-no-baseline": (["compare", *three(f), *REG, *FAST], "script"),
        "bad-unknown-baseline": (["compare", *three(f), "--baseline", "nope", *REG, *FAST],
                                 "script"),
        "bad-permutations": (["compare", *three(f), "--baseline", "base", *REG, *FAST,
                              "--permutations", "100"], "script"),
        "bad-names": (["compare", *three(f), "--baseline", "x", "--names", "x", "y", *REG],
                      "script"),
        "bad-gate-all-pairs": (["compare", *three(f), "--all-pairs", "--fail-on", "b-better",
                                *REG], "script"),
    }  # fmt: skip
    return run_all(jobs, cwd=work)


def against_api(inputs: dict[str, Path]) -> pdpaired.MultiResult:
    frames = [pd.read_csv(inputs[n]) for n in FILES]
    long = pd.concat([f.assign(model=n) for f, n in zip(frames, FILES, strict=True)],
                     ignore_index=True)  # fmt: skip
    return long.paired(case="sample_id", target="y", prediction="pred").against(
        "base", ["good", "bad"], metric="rmse", rng=0, n_resamples=300
    )


def test_three_files_against_a_baseline_equal_the_python_api(
    runs: dict[str, Run], work: Path, inputs: dict[str, Path]
) -> None:
    run = get(runs, "against")
    assert_ok(run)
    out = work / "out" / "against"
    res = against_api(inputs)
    share = pdpaired.verify(out / "comparison.shareable.json")
    assert share == res.to_artifact("shareable")
    provenance = [{"path": str(inputs[n]), "sha256": sha256(inputs[n])} for n in FILES]
    assert load(out / "comparison.json") == res.to_artifact("local", inputs=provenance)
    assert (out / "comparison.md").read_text(encoding="utf-8") == res.to_markdown()
    # each comparison is the two-model call, and its metrics are scikit-learn's
    base = pd.read_csv(inputs["base"])
    for c, name in zip(share["comparisons"], ("good", "bad"), strict=True):
        assert c["models"] == {"a": name, "b": "base"}
        frame = pd.read_csv(inputs[name])
        assert c["metric_a"] == pytest.approx(skm.root_mean_squared_error(frame.y, frame.pred))
        assert c["metric_b"] == pytest.approx(skm.root_mean_squared_error(base.y, base.pred))
    for line in ("good vs base", "bad vs base", "wrote "):
        assert line in run.stdout
    text = (out / "comparison.shareable.json").read_text(encoding="utf-8")
    for word in ("CANARY", "9b1c", "123456", ".csv", "sample_id", str(work)):
        assert word not in text, f"{word!r} leaked into the shareable artifact"


def test_long_table_all_pairs_equal_the_python_api(
    runs: dict[str, Run], work: Path, inputs: dict[str, Path]
) -> None:
    assert_ok(get(runs, "all-pairs"))
    art = pdpaired.verify(work / "out" / "all-pairs" / "comparison.shareable.json")
    long = pd.read_csv(inputs["long"])
    res = long.paired(group="grp").all_pairs(higher_is_better=True, rng=1, n_resamples=300,
                                             adjust="fdr_bh")  # fmt: skip
    assert art == res.to_artifact("shareable")
    assert art["analysis"]["kind"] == "all_pairs"
    assert [(c["models"]["a"], c["models"]["b"]) for c in art["comparisons"]] == [
        ("alpha", "beta"), ("alpha", "gamma"), ("beta", "gamma")]  # fmt: skip
    assert {c["interval"]["sampling"] for c in art["comparisons"]} == {"cluster"}
    means = long.groupby("model")["score"].mean()
    for c in art["comparisons"]:
        assert c["metric_a"] == pytest.approx(means[c["models"]["a"]])
    assert art["ranks"] is not None


def test_verify_accepts_v2_and_refuses_it_edited(runs: dict[str, Run], work: Path) -> None:
    assert_ok(get(runs, "against"))
    out = work / "out" / "against"
    share = load(out / "comparison.shareable.json")
    bad = work / "tampered"
    bad.mkdir(exist_ok=True)

    def tampered(name: str, edit: Any) -> str:
        art = copy.deepcopy(share)
        edit(art)
        path = bad / f"{name}.json"
        path.write_text(json.dumps(redigest(art)), encoding="utf-8")
        return str(path)

    def number(art: dict[str, Any]) -> None:
        art["comparisons"][0]["metric_a"] *= 1.01

    def field(art: dict[str, Any]) -> None:
        del art["comparisons"][1]["interval"]

    def version(art: dict[str, Any]) -> None:
        art["artifact"] = "paired-comparison-artifact/v1"

    jobs = {
        "local": (["verify", str(out / "comparison.json")], "script"),
        "shareable": (["verify", str(out / "comparison.shareable.json")], "script"),
        "number": (["verify", tampered("number", number)], "script"),
        "field": (["verify", tampered("field", field)], "script"),
        "version": (["verify", tampered("version", version)], "script"),
    }
    got = run_all(jobs, cwd=work)
    for name in ("local", "shareable"):
        run = get(got, name)
        assert_ok(run)
        assert run.stdout.startswith("OK: ")
        assert "paired-comparison-artifact/v2" in run.stdout
        assert "3 models, 2 comparison(s) against base" in run.stdout
    assert_bad(get(got, "number"), "improvement_a_over_b")
    assert_bad(get(got, "field"), "'interval' is a required property")
    assert_bad(get(got, "version"), "'paired-comparison-artifact/v2' was expected")


def test_fail_on_exits_1_when_any_candidate_fails(runs: dict[str, Run]) -> None:
    run = get(runs, "gate")
    assert run.returncode == 1, run.stderr
    assert "Traceback" not in run.stderr
    assert run.stdout.count("Release gate --fail-on b-better") == 2
    assert "FAILED (exit 1)" in run.stdout  # bad vs base: the baseline is better
    passing = get(runs, "gate-pass")
    assert_ok(passing)
    assert "passed (exit 0)" in passing.stdout


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("bad-no-baseline", ("--baseline NAME or --all-pairs",)),
        ("bad-unknown-baseline", ("--baseline nope", "base, good, bad")),
        ("bad-permutations", ("--permutations",)),
        ("bad-names", ("--names", "3 files, 2 names")),
        ("bad-gate-all-pairs", ("--fail-on", "--all-pairs")),
    ],
)
def test_bad_several_model_input_exits_2(
    runs: dict[str, Run], name: str, words: tuple[str, ...]
) -> None:
    assert_bad(get(runs, name), *words)
