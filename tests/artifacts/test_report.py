"""``Comparison.report``, the two JSON artifacts, the bundled schema and ``verify``.

* sharing boundary: canary case ids, targets, predictions and row-level
  metadata are planted in the inputs and searched for in the raw text (and the
  parsed numbers) of ``comparison.shareable.json``; none may appear, while the
  local artifact carries the provenance digests;
* tampering: numbers, signs, decisions, counts, versions and fields are edited
  on disk and ``verify`` must name the problem, also when the digest is
  recomputed after the edit (the consistency checks, not only the digest);
* schema: both artifacts validate against the bundled schema with
  ``jsonschema.Draft202012Validator`` directly, and the schema itself is a
  valid Draft 2020-12 schema;
* numbers: the artifact equals the Python API for the recorded seeds, the
  exact binomial counts equal counts made here by hand;
* atomic writes: ``save`` leaves exactly three files, no temporary files, and
  never a half-written file when a write or a rename fails.

The command line is tested in ``tests/cli/``.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from jsonschema import Draft202012Validator
from jsonschema.validators import validator_for
from sklearn import metrics as skm

import pdpaired
from pdpaired import ArtifactError
from pdpaired._lib.rng import derived_seed
from pdpaired.artifacts.digests import content_digest
from pdpaired.datasets import load_digits_cv

FAST = {"n_resamples": 200, "n_permutations": 200}


FILES = {"comparison.json", "comparison.shareable.json", "comparison.md"}


HEX64 = re.compile(r"[0-9a-f]{64}")


# --------------------------------------------------------------------------- helpers
def digest_of(art: dict[str, Any]) -> str:
    """The content digest, computed here from the documented definition."""
    body = {k: v for k, v in art.items() if k != "digest"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def leaves(obj: Any) -> Iterator[Any]:
    """Every scalar of a parsed JSON document (dict keys included)."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield k
            yield from leaves(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from leaves(v)
    else:
        yield obj


def schema() -> dict[str, Any]:
    text = (
        resources.files("pdpaired.schemas")
        .joinpath("paired-comparison-artifact-v1.json")
        .read_text(encoding="utf-8")
    )
    out: dict[str, Any] = json.loads(text)
    return out


def canary_regression(n: int = 48, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """Two one-file-per-model regression tables full of searchable canaries.

    Case ids ``CANARY-ID-7f3a-NNN``; every target ends in ``.123456789``;
    model A's predictions end in ``...0271828`` and B's in ``...0314159``;
    a row-level note ``CANARY-META-c0ffee-NNN`` and a numeric row-level
    ``latency_ms`` ending in ``.918273``. ``site`` (north/south) is a slice
    column: its labels are aggregate metadata and may be shared.
    """
    rng = np.random.default_rng(seed)
    ids = [f"CANARY-ID-7f3a-{i:03d}" for i in range(n)]
    y = rng.integers(-5, 6, n) + 0.123456789
    pa = np.round(y + rng.normal(0, 0.4, n), 2) + 0.0000271828
    pb = np.round(y + rng.normal(0, 0.8, n), 2) + 0.0000314159
    site = np.where(np.arange(n) % 2 == 0, "north", "south")
    note = [f"CANARY-META-c0ffee-{i:03d}" for i in range(n)]
    latency = rng.integers(100, 999, n) + 0.918273
    a = pd.DataFrame(
        {"sample_id": ids, "y": y, "pred": pa, "site": site, "note": note, "latency_ms": latency}
    )
    b = a.assign(pred=pb)
    canaries = {
        "strings": [*ids, *note, "CANARY-ID", "CANARY-META", "7f3a", "c0ffee"],
        "numbers": [*y, *pa, *pb, *latency],
        "fragments": ["123456789", "0271828", "0314159", "918273"],
    }
    return a, b, canaries


def assert_no_canary(text: str, canaries: dict) -> None:
    for s in canaries["strings"]:
        assert s not in text, f"canary string {s!r} leaked into the shareable artifact"
    for frag in canaries["fragments"]:
        assert frag not in text, f"canary digits {frag!r} leaked into the shareable artifact"
    numbers = {float(x) for x in canaries["numbers"]}
    for x in numbers:
        assert repr(x) not in text, f"canary number {x!r} leaked into the shareable artifact"
        assert f"{x:.9g}" not in text, f"canary number {x:.9g} leaked (rounded)"
    parsed = json.loads(text)
    for leaf in leaves(parsed):
        if isinstance(leaf, float):
            assert leaf not in numbers, f"a row-level value {leaf!r} is in the shareable artifact"


def binary_long(n: int = 90, seed: int = 3) -> pd.DataFrame:
    """Score mode, binary 0/1 outcomes, a case-level slice column ``site``."""
    rng = np.random.default_rng(seed)
    a = (rng.uniform(size=n) < 0.8).astype(int)
    b = (rng.uniform(size=n) < 0.55).astype(int)
    site = np.where(rng.uniform(size=n) < 0.5, "north", "south")
    ids = np.arange(n) * 11 + 5
    parts = [
        pd.DataFrame({"case_id": ids, "model": m, "score": s, "site": site})
        for m, s in (("cand", a), ("base", b))
    ]
    return pd.concat(parts, ignore_index=True).sample(frac=1.0, random_state=0)


def binary_prediction(n: int = 120, seed: int = 5) -> pd.DataFrame:
    """Prediction mode, binary 0/1 target, probabilities of two models (no ties at 0.5)."""
    rng = np.random.default_rng(seed)
    y = (rng.uniform(size=n) < 0.5).astype(int)
    z = rng.normal(size=(2, n))
    pa = 1 / (1 + np.exp(-(1.6 * (2 * y - 1) + z[0])))
    pb = 1 / (1 + np.exp(-(0.7 * (2 * y - 1) + z[1])))
    pa, pb = np.round(pa, 3) + 1e-4, np.round(pb, 3) + 1e-4
    return pd.DataFrame(
        {
            "case_id": np.tile(np.arange(n), 2),
            "model": np.repeat(["new", "old"], n),
            "y": np.tile(y, 2),
            "p": np.concatenate([pa, pb]),
        }
    )


def report_seed(rng: int, family: str) -> int:
    """The internal seed of a report part's stream (the registry's), for the API calls."""
    return derived_seed(np.random.SeedSequence(rng), family)


@pytest.fixture(scope="module")
def canary_report() -> tuple[pdpaired.ComparisonReport, dict]:
    a, b, canaries = canary_regression()
    long = pdpaired.from_tables(a, b, id="sample_id", names=("ridge", "lasso"))
    cmp = long.paired(case="sample_id", target="y", prediction="pred").compare(
        "ridge", "lasso", metric="rmse"
    )
    rep = cmp.report(**FAST, rng=1, slices="site", min_slice_size=5, slice_uncertainty=True)
    return rep, canaries


@pytest.fixture(scope="module")
def binary_cmp() -> pdpaired.Comparison:
    return binary_long().paired.compare("cand", "base", higher_is_better=True)


@pytest.fixture(scope="module")
def full_report(binary_cmp: pdpaired.Comparison) -> pdpaired.ComparisonReport:
    """Every block present: exact binomial, slices with uncertainty, a margin."""
    return binary_cmp.report(
        **FAST, rng=7, slices=["site"], min_slice_size=10, slice_uncertainty=True,
        practical_threshold=0.01, noninferiority_margin=0.05,
    )  # fmt: skip


@pytest.fixture(scope="module")
def saved(
    full_report: pdpaired.ComparisonReport, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Path]:
    return full_report.save(tmp_path_factory.mktemp("saved") / "reports")


def load(path: Path) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return out


# --------------------------------------------------------------------------- 2. tampering
def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    keys = [int(k) if k.isdigit() else k for k in path.split(".")]

    def edit(art: dict[str, Any]) -> None:
        node: Any = art
        for k in keys[:-1]:
            node = node[k]
        node[keys[-1]] = value(node[keys[-1]]) if callable(value) else value

    return edit


def _drop(key: str) -> Callable[[dict[str, Any]], None]:
    def edit(art: dict[str, Any]) -> None:
        del art[key]

    return edit


def _both(*edits: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
    def edit(art: dict[str, Any]) -> None:
        for e in edits:
            e(art)

    return edit


def _get(art: dict[str, Any], path: str) -> Any:
    node: Any = art
    for k in path.split("."):
        node = node[int(k) if k.isdigit() else k]
    return node


def _swap(one: str, two: str) -> Callable[[dict[str, Any]], None]:
    def edit(art: dict[str, Any]) -> None:
        x, y = _get(art, one), _get(art, two)
        assert x != y, "nothing to swap"
        _set(one, y)(art)
        _set(two, x)(art)

    return edit


def _not(x: bool) -> bool:
    return not x


# (id, edit) -- digest left as written: the digest check must catch each
DIGEST_ONLY = [
    ("metric_a", _set("metric_a", lambda x: x + 1e-3)),
    ("interval-low", _set("interval.low", lambda x: x - 0.01)),
    ("randomization-pvalue", _set("randomization.pvalue", lambda p: p / 2)),
    ("exact-binomial-pvalue", _set("exact_binomial.pvalue", lambda p: p / 3)),
    ("model-name", _set("models.a", "someone-else")),
    ("n-resamples", _set("interval.n_resamples", 10_000)),
    ("seed", _set("interval.seed", 12345)),
    ("swap-discordant", _swap("exact_binomial.a_only", "exact_binomial.b_only")),
]  # fmt: skip


# (id, edit, words the message must contain) -- digest recomputed after the edit,
# so only the consistency checks can catch it
CONSISTENCY = [
    ("improvement-sign", _set("improvement_a_over_b", lambda x: -x), ["improvement_a_over_b"]),
    ("raw-delta-sign", _set("raw_delta_a_minus_b", lambda x: -x), ["raw_delta_a_minus_b"]),
    ("metric_a", _set("metric_a", lambda x: x + 0.05),
     ["raw_delta_a_minus_b", "improvement_a_over_b"]),
    ("direction", _set("metric.higher_is_better", _not), ["improvement_a_over_b"]),
    ("both-signs", _both(_set("improvement_a_over_b", lambda x: -x),
                         _set("raw_delta_a_minus_b", lambda x: -x)),
     ["improvement_a_over_b", "randomization.statistic", "superior_point"]),
    ("superior_point", _set("decisions.superior_point", _not), ["decisions.superior_point"]),
    ("superior_ci", _set("decisions.superior_ci", _not), ["decisions.superior_ci"]),
    ("noninferior", _set("decisions.noninferior", _not), ["decisions.noninferior"]),
    ("threshold", _set("decisions.practical_threshold", 0.99), ["decisions.superior"]),
    ("margin-dropped", _set("decisions.noninferiority_margin", None), ["decisions.noninferior"]),
    ("interval-inverted", _set("interval.low", lambda x: x + 10.0), ["exceeds high"]),
    ("n_valid", _set("interval.n_valid", 10**6), ["n_valid"]),
    ("n_cases", _set("n_cases", lambda n: n + 1), ["n_cases"]),
    ("alignment-n", _set("alignment.n_cases", lambda n: n - 1), ["alignment.n_cases"]),
    ("missing-count", _set("missing.n_missing_a", 3), ["missing.n_missing_a"]),
    ("dropped", _both(_set("alignment.n_dropped", 2), _set("missing.n_dropped", 2)),
     ["dropped"]),
    ("counts", _set("exact_binomial.both_pass", lambda n: n + 1), ["add up"]),
    ("statistic", _set("randomization.statistic", lambda x: x + 0.1),
     ["randomization.statistic"]),
    ("slice-improvement", _set("slices.rows.0.improvement", lambda x: x + 0.1),
     ["slice site", "improvement"]),
    ("slice-winner", _set("slices.rows.0.winner", "B"), ["slice site", "winner"]),
    ("slice-pvalue", _set("slices.rows.1.pvalue_adjusted", 0.0), ["pvalue_adjusted"]),
    ("slice-n", _set("slices.rows.0.n", 10**4), ["exceeds n_cases"]),
]  # fmt: skip


# (id, edit, words) -- schema violations (caught with or without a new digest)
SCHEMA = [
    ("protocol-version", _set("protocol", "paired-comparison/v2"), ["protocol"]),
    ("artifact-version", _set("artifact", "paired-comparison-artifact/v2"), ["artifact"]),
    ("drop-interval", _drop("interval"), ["'interval' is a required property"]),
    ("drop-improvement", _drop("improvement_a_over_b"), ["improvement_a_over_b"]),
    ("drop-digest", _drop("digest"), ["'digest' is a required property"]),
    ("added-field", _set("case_ids", ["c1", "c2"]), ["case_ids"]),
    ("added-nested-field", _set("interval.targets", [0.5]), ["interval", "targets"]),
    ("pvalue-zero", _set("randomization.pvalue", 0.0), ["randomization/pvalue"]),
    ("pvalue-above-one", _set("exact_binomial.pvalue", 1.5), ["exact_binomial"]),
    ("negative-count", _set("exact_binomial.a_only", -1), ["exact_binomial"]),
    ("decision-not-bool", _set("decisions.superior_ci", "yes"), ["decisions/superior_ci"]),
    ("number-as-string", _set("metric_a", "0.8"), ["metric_a"]),
    ("bad-kind", _set("kind", "public"), ["kind"]),
    ("bad-task", _set("metric.task", "ranking"), ["metric/task"]),
]  # fmt: skip


def _tamper(
    src: Path, dst: Path, edit: Callable[[dict[str, Any]], None], *, redigest: bool
) -> Path:
    art = copy.deepcopy(load(src))
    edit(art)
    if redigest and "digest" in art:
        art["digest"] = digest_of(art)
    dst.write_text(json.dumps(art, indent=2), encoding="utf-8")
    return dst


def _problems(path: Path) -> tuple[str, list[str]]:
    with pytest.raises(ArtifactError) as info:
        pdpaired.verify(path)
    problems = info.value.problems  # type: ignore[attr-defined]
    assert isinstance(problems, list)
    assert problems
    return str(info.value), problems


def _assert_complete(directory: Path) -> None:
    """No temporary files; every file present is whole (parses and verifies)."""
    names = {p.name for p in directory.iterdir()}
    assert names <= FILES, f"leftover files: {names - FILES}"
    for name in names & {"comparison.json", "comparison.shareable.json"}:
        pdpaired.verify(directory / name)


# --------------------------------------------------------------------------- 1. canaries
def test_shareable_artifact_has_no_ids_targets_predictions_or_row_metadata(
    canary_report: tuple[pdpaired.ComparisonReport, dict], tmp_path: Path
) -> None:
    rep, canaries = canary_report
    paths = rep.save(tmp_path)
    text = paths["shareable"].read_text(encoding="utf-8")
    assert_no_canary(text, canaries)
    art = json.loads(text)
    assert "local" not in art
    assert art["kind"] == "shareable"
    # the only SHA-256-looking string is the artifact's own digest
    assert HEX64.findall(text) == [art["digest"]]
    # the same holds for the in-memory dict
    assert_no_canary(json.dumps(rep.to_artifact("shareable")), canaries)


def test_shareable_artifact_keeps_the_aggregate_metadata(
    canary_report: tuple[pdpaired.ComparisonReport, dict],
) -> None:
    rep, _ = canary_report
    art = rep.to_artifact("shareable")
    assert art["models"] == {"a": "ridge", "b": "lasso"}
    assert art["metric"] == {
        "name": "rmse",
        "higher_is_better": False,
        "task": "regression",
        "threshold": None,
    }
    assert art["n_cases"] == 48
    assert art["alignment"]["status"] == "aligned"
    assert art["slices"]["columns"] == ["site"]
    assert sorted(r["value"] for r in art["slices"]["rows"]) == ["north", "south"]
    assert sorted(r["n"] for r in art["slices"]["rows"]) == [24, 24]


def test_local_artifact_carries_provenance_digests(
    canary_report: tuple[pdpaired.ComparisonReport, dict],
) -> None:
    rep, _ = canary_report
    local = rep.to_artifact("local")
    assert local["kind"] == "local"
    block = local["local"]
    assert block["seed"] == 1
    assert HEX64.fullmatch(block["aligned_ids_sha256"])
    [source] = block["inputs"]
    assert HEX64.fullmatch(source["in_memory_table_sha256"])
    # everything else is the shareable content
    share = rep.to_artifact("shareable")
    rest = {k: v for k, v in local.items() if k not in ("local", "kind", "digest")}
    assert rest == {k: v for k, v in share.items() if k not in ("kind", "digest")}
    # digests only: no raw ids in the local artifact either
    assert "CANARY-ID" not in json.dumps(local)


def test_provenance_digests_follow_the_data_not_the_row_order() -> None:
    a, b, _ = canary_regression()

    def local(a_df: pd.DataFrame, b_df: pd.DataFrame) -> dict[str, Any]:
        long = pdpaired.from_tables(a_df, b_df, id="sample_id", names=("ridge", "lasso"))
        cmp = long.paired(case="sample_id", target="y", prediction="pred").compare(
            "ridge", "lasso", metric="rmse"
        )
        out: dict[str, Any] = cmp.report(**FAST, rng=1).to_artifact("local")
        return out

    base = local(a, b)
    shuffled = local(a.sample(frac=1.0, random_state=1), b.sample(frac=1.0, random_state=2))
    assert shuffled["local"] == base["local"]
    assert shuffled["digest"] == base["digest"]
    # one prediction changed: same ids, another table
    changed = local(a.assign(pred=a["pred"].where(a.index != 3, 99.0)), b)
    assert changed["local"]["aligned_ids_sha256"] == base["local"]["aligned_ids_sha256"]
    assert changed["local"]["inputs"] != base["local"]["inputs"]
    # one case fewer: another id set
    fewer = local(a.iloc[1:], b.iloc[1:])
    assert fewer["local"]["aligned_ids_sha256"] != base["local"]["aligned_ids_sha256"]


def test_integer_ids_and_scores_do_not_leak_in_score_mode(tmp_path: Path) -> None:
    rng = np.random.default_rng(11)
    n = 40
    ids = 918_273_645 + np.arange(n) * 1_000_003
    sa = rng.integers(0, 50, n) + 0.7071067
    sb = rng.integers(0, 50, n) + 0.5772156
    df = pd.concat(
        [
            pd.DataFrame({"case_id": ids, "model": "gpt", "score": sa, "user": "CANARY-USER-9b"}),
            pd.DataFrame({"case_id": ids, "model": "llama", "score": sb, "user": "CANARY-USER-9b"}),
        ],
        ignore_index=True,
    )
    rep = df.paired.compare("gpt", "llama", higher_is_better=True).report(**FAST, rng=0)
    text = rep.save(tmp_path)["shareable"].read_text(encoding="utf-8")
    canaries = {
        "strings": [*(str(i) for i in ids), "CANARY-USER", "918273"],
        "numbers": [*sa, *sb],
        "fragments": ["7071067", "5772156"],
    }
    assert_no_canary(text, canaries)
    assert '"gpt"' in text
    assert '"llama"' in text


def test_the_canary_check_itself_can_fail(
    canary_report: tuple[pdpaired.ComparisonReport, dict],
) -> None:
    rep, canaries = canary_report
    art = rep.to_artifact("shareable")
    for planted in ({"note": "CANARY-META-c0ffee-007"}, {"x": float(canaries["numbers"][5])}):
        leaky = json.dumps({**art, **planted})
        with pytest.raises(AssertionError, match=r"leaked|row-level"):
            assert_no_canary(leaky, canaries)


def test_saved_artifacts_verify_and_their_digest_follows_the_definition(
    saved: dict[str, Path],
) -> None:
    for kind in ("local", "shareable"):
        art = pdpaired.verify(saved[kind])
        assert art == load(saved[kind])
        assert art["kind"] == kind
        assert art["digest"] == digest_of(art)
    # verify accepts str paths too
    assert pdpaired.verify(str(saved["shareable"]))["kind"] == "shareable"


@pytest.mark.parametrize("kind", ["local", "shareable"])
@pytest.mark.parametrize(("name", "edit"), DIGEST_ONLY, ids=[c[0] for c in DIGEST_ONLY])
def test_an_edit_without_a_new_digest_fails_the_digest(
    saved: dict[str, Path], tmp_path: Path, kind: str, name: str, edit: Callable
) -> None:
    path = _tamper(saved[kind], tmp_path / "t.json", edit, redigest=False)
    message, problems = _problems(path)
    assert any(p.startswith("digest") for p in problems), problems
    assert str(path) in message


@pytest.mark.parametrize("kind", ["local", "shareable"])
@pytest.mark.parametrize(("name", "edit", "words"), CONSISTENCY, ids=[c[0] for c in CONSISTENCY])
def test_an_edit_with_a_recomputed_digest_fails_the_consistency_checks(
    saved: dict[str, Path], tmp_path: Path, kind: str, name: str, edit: Callable,
    words: list[str],
) -> None:  # fmt: skip
    path = _tamper(saved[kind], tmp_path / "t.json", edit, redigest=True)
    message, problems = _problems(path)
    assert not any(p.startswith("digest") for p in problems), problems
    for word in words:
        assert word in message, (word, problems)
    # the same edit without a new digest is caught by both
    path = _tamper(saved[kind], tmp_path / "u.json", edit, redigest=False)
    _, problems = _problems(path)
    assert any(p.startswith("digest") for p in problems)
    assert len(problems) >= 2


@pytest.mark.parametrize("redigest", [False, True])
@pytest.mark.parametrize(("name", "edit", "words"), SCHEMA, ids=[c[0] for c in SCHEMA])
def test_a_schema_violation_fails_verify(
    saved: dict[str, Path], tmp_path: Path, name: str, edit: Callable, words: list[str],
    redigest: bool,
) -> None:  # fmt: skip
    path = _tamper(saved["shareable"], tmp_path / "t.json", edit, redigest=redigest)
    message, problems = _problems(path)
    assert all(p.startswith("schema") for p in problems), problems
    for word in words:
        assert word in message, (word, problems)
    # and independently of verify: the bundled schema rejects it
    assert not Draft202012Validator(schema()).is_valid(load(path))


@pytest.mark.parametrize("redigest", [False, True])
def test_the_local_block_is_refused_in_a_shareable_artifact(
    saved: dict[str, Path], tmp_path: Path, redigest: bool
) -> None:
    local = load(saved["local"])["local"]
    path = _tamper(saved["shareable"], tmp_path / "t.json", _set("local", local), redigest=redigest)
    message, _ = _problems(path)
    assert "local" in message
    # relabelling a local artifact as shareable keeps its local block: refused too
    path = _tamper(saved["local"], tmp_path / "u.json", _set("kind", "shareable"), redigest=True)
    message, _ = _problems(path)
    assert "local" in message
    # and a local artifact without its provenance is not a local artifact
    path = _tamper(saved["local"], tmp_path / "v.json", _drop("local"), redigest=True)
    message, _ = _problems(path)
    assert "'local' is a required property" in message


@pytest.mark.parametrize("digest", ["xyz", "A" * 64, "0" * 63, 123])
def test_a_malformed_digest_fails_the_schema(
    saved: dict[str, Path], tmp_path: Path, digest: Any
) -> None:
    path = _tamper(saved["shareable"], tmp_path / "t.json", _set("digest", digest), redigest=False)
    message, problems = _problems(path)
    assert problems[0].startswith("schema: digest")
    assert "digest" in message


def test_every_problem_is_named_at_once(saved: dict[str, Path], tmp_path: Path) -> None:
    edit = _both(
        _set("improvement_a_over_b", lambda x: -x),
        _set("decisions.superior_ci", _not),
        _set("exact_binomial.a_only", lambda n: n + 5),
    )
    path = _tamper(saved["shareable"], tmp_path / "t.json", edit, redigest=False)
    message, problems = _problems(path)
    assert len(problems) >= 4
    assert f"failed {len(problems)} check(s)" in message
    for word in ("digest", "improvement_a_over_b", "decisions.superior_ci", "add up"):
        assert word in message


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("not-json", b"{this is not json"),
        ("empty", b""),
        ("truncated", b'{"protocol": "paired-comparison/v1", "artifact": '),
        ("array", b"[1, 2, 3]"),
        ("string", b'"paired-comparison/v1"'),
        ("null", b"null"),
        ("csv", b"case_id,score\n1,0.5\n"),
        ("empty-object", b"{}"),
    ],
)
def test_a_file_that_is_not_an_artifact_raises_artifact_error(
    tmp_path: Path, name: str, content: bytes
) -> None:
    path = tmp_path / f"{name}.json"
    path.write_bytes(content)
    with pytest.raises(ArtifactError, match=re.escape(str(path))) as info:
        pdpaired.verify(path)
    if name == "empty-object":
        assert "'protocol' is a required property" in str(info.value)


def test_a_missing_file_or_a_directory_raises_artifact_error(tmp_path: Path) -> None:
    with pytest.raises(ArtifactError, match=r"nope\.json"):
        pdpaired.verify(tmp_path / "nope.json")
    with pytest.raises(ArtifactError, match="Cannot read"):
        pdpaired.verify(tmp_path)


def test_a_binary_file_raises_artifact_error(tmp_path: Path) -> None:
    path = tmp_path / "garbage.json"
    path.write_bytes(bytes(range(128, 256)) * 8)  # not UTF-8
    with pytest.raises(ArtifactError, match=re.escape(str(path))):
        pdpaired.verify(path)


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_non_finite_numbers_raise_artifact_error(
    saved: dict[str, Path], tmp_path: Path, literal: str
) -> None:
    text = saved["shareable"].read_text(encoding="utf-8")
    art = load(saved["shareable"])
    field = f'"metric_a": {json.dumps(art["metric_a"])},'
    assert text.count(field) == 1
    edited = text.replace(field, f'"metric_a": {literal},')
    path = tmp_path / "t.json"
    path.write_text(edited, encoding="utf-8")
    with pytest.raises(ArtifactError):
        pdpaired.verify(path)


# --------------------------------------------------------------------------- 3. schema
def test_the_bundled_schema_is_a_valid_draft_2020_12_schema() -> None:
    s = schema()
    Draft202012Validator.check_schema(s)
    assert validator_for(s) is Draft202012Validator
    assert s["title"] == "paired-comparison-artifact/v1"
    assert s["properties"]["protocol"] == {"const": "paired-comparison/v1"}
    assert s["properties"]["artifact"] == {"const": "paired-comparison-artifact/v1"}


def test_both_artifacts_validate_against_the_schema_directly(
    saved: dict[str, Path], canary_report: tuple[pdpaired.ComparisonReport, dict]
) -> None:
    validator = Draft202012Validator(schema())
    others = [canary_report[0].to_artifact(k) for k in ("local", "shareable")]
    for art in [load(saved["local"]), load(saved["shareable"]), *others]:
        errors = [e.message for e in validator.iter_errors(art)]
        assert errors == [], errors
    # the schema is not vacuous: an edited copy fails it
    bad = load(saved["shareable"])
    bad["n_cases"] = "ninety"
    assert not validator.is_valid(bad)


def test_null_blocks_validate_too() -> None:
    """Prediction mode with auroc: no exact binomial, no slices, no margin."""
    cmp = (
        binary_prediction().paired(target="y", prediction="p").compare("new", "old", metric="auroc")
    )
    validator = Draft202012Validator(schema())
    for kind in ("local", "shareable"):
        art = cmp.report(**FAST, rng=2).to_artifact(kind)
        assert art["exact_binomial"] is None
        assert art["slices"] is None
        assert art["decisions"]["noninferior"] is None
        assert validator.is_valid(art), [e.message for e in validator.iter_errors(art)]


# --------------------------------------------------------------------------- 4. numbers
def test_the_recorded_seeds_reproduce_the_python_api(
    binary_cmp: pdpaired.Comparison, full_report: pdpaired.ComparisonReport
) -> None:
    rep = full_report
    # the parts record the user's seed; they are ordinary analyses on the report's streams
    assert rep.bootstrap.seed == rep.randomization.seed == rep.seed == 7
    assert (rep.bootstrap.stream, rep.randomization.stream) == (
        "report:bootstrap", "report:randomization")  # fmt: skip
    bs = binary_cmp.bootstrap(
        n_resamples=200, rng=report_seed(7, "report_bootstrap"), practical_threshold=0.01,
        noninferiority_margin=0.05,
    )  # fmt: skip
    assert bs.confidence_interval == rep.bootstrap.confidence_interval
    np.testing.assert_array_equal(bs.bootstrap_distribution, rep.bootstrap.bootstrap_distribution)
    rz = binary_cmp.randomization(n_permutations=200, rng=report_seed(7, "report_randomization"))
    assert rz.pvalue == rep.randomization.pvalue
    assert rz.statistic == rep.randomization.statistic
    art = rep.to_artifact("shareable")
    assert art["metric_a"] == bs.metric_a
    assert art["metric_b"] == bs.metric_b
    assert art["improvement_a_over_b"] == bs.improvement
    assert art["raw_delta_a_minus_b"] == bs.raw_delta
    assert [art["interval"]["low"], art["interval"]["high"]] == [
        bs.confidence_interval.low,
        bs.confidence_interval.high,
    ]
    assert art["interval"]["seed"] == rep.bootstrap.seed
    assert art["interval"]["standard_error"] == bs.standard_error
    assert art["randomization"]["pvalue"] == rz.pvalue
    assert art["randomization"]["seed"] == rep.randomization.seed
    d = art["decisions"]
    assert (d["superior_point"], d["superior_ci"], d["noninferior"]) == (
        bs.superior_point, bs.superior_ci, bs.noninferior,
    )  # fmt: skip
    assert d["practical_threshold"] == 0.01
    assert d["noninferiority_margin"] == 0.05


def test_exact_binomial_counts_match_a_hand_count(
    binary_cmp: pdpaired.Comparison, full_report: pdpaired.ComparisonReport
) -> None:
    wide = binary_long().pivot(index="case_id", columns="model", values="score")
    a, b = wide["cand"].to_numpy(), wide["base"].to_numpy()
    eb = full_report.to_artifact("shareable")["exact_binomial"]
    assert eb is not None
    counts = {
        "a_only": int(((a == 1) & (b == 0)).sum()),
        "b_only": int(((a == 0) & (b == 1)).sum()),
        "both_pass": int(((a == 1) & (b == 1)).sum()),
        "both_fail": int(((a == 0) & (b == 0)).sum()),
    }
    assert {k: eb[k] for k in counts} == counts
    assert eb["pvalue"] == binary_cmp.exact_binomial().pvalue
    assert full_report.to_artifact("shareable")["metric_a"] == pytest.approx(a.mean(), abs=1e-15)


def test_the_same_seed_gives_the_same_artifacts(binary_cmp: pdpaired.Comparison) -> None:
    kw = {**FAST, "slices": "site", "min_slice_size": 10, "slice_uncertainty": True}
    one, two = binary_cmp.report(**kw, rng=21), binary_cmp.report(**kw, rng=21)
    for kind in ("local", "shareable"):
        assert one.to_artifact(kind) == two.to_artifact(kind)
    assert one.to_markdown() == two.to_markdown()
    other = binary_cmp.report(**kw, rng=22)
    assert other.to_artifact("shareable")["digest"] != one.to_artifact("shareable")["digest"]
    assert other.bootstrap.seed != one.bootstrap.seed


def test_a_fresh_seed_is_recorded_and_reproduces_the_report(
    binary_cmp: pdpaired.Comparison,
) -> None:
    fresh = binary_cmp.report(**FAST)
    assert isinstance(fresh.seed, int)
    assert fresh.to_artifact("local")["local"]["seed"] == fresh.seed
    again = binary_cmp.report(**FAST, rng=fresh.seed)
    assert again.to_artifact("local") == fresh.to_artifact("local")


def test_binary_scores_get_the_exact_binomial_and_auroc_does_not() -> None:
    cmp = (
        binary_prediction().paired(target="y", prediction="p").compare("new", "old", metric="auroc")
    )
    rep = cmp.report(**FAST, rng=4)
    assert rep.exact_binomial is None
    assert rep.task == "binary"
    art = rep.to_artifact("shareable")
    assert art["exact_binomial"] is None
    assert art["metric"] == {
        "name": "auroc",
        "higher_is_better": True,
        "task": "binary",
        "threshold": None,
    }
    frame = binary_prediction()
    y = frame.loc[frame["model"] == "new", "y"].to_numpy()
    pa = frame.loc[frame["model"] == "new", "p"].to_numpy()
    pb = frame.loc[frame["model"] == "old", "p"].to_numpy()
    assert art["metric_a"] == pytest.approx(skm.roc_auc_score(y, pa), rel=1e-12)
    assert art["metric_b"] == pytest.approx(skm.roc_auc_score(y, pb), rel=1e-12)


def test_accuracy_in_prediction_mode_gets_the_exact_binomial() -> None:
    frame = binary_prediction()
    cmp = frame.paired(target="y", prediction="p").compare("new", "old", metric="accuracy")
    art = cmp.report(**FAST, rng=4).to_artifact("shareable")
    assert art["metric"] == {"name": "accuracy", "higher_is_better": True, "task": "binary",
                             "threshold": 0.5}  # fmt: skip
    eb = art["exact_binomial"]
    assert eb is not None
    y = frame.loc[frame["model"] == "new", "y"].to_numpy()
    ca = (frame.loc[frame["model"] == "new", "p"].to_numpy() > 0.5) == y
    cb = (frame.loc[frame["model"] == "old", "p"].to_numpy() > 0.5) == y
    assert (eb["a_only"], eb["b_only"]) == (int((ca & ~cb).sum()), int((~ca & cb).sum()))
    assert eb["both_pass"] + eb["both_fail"] == int((ca == cb).sum())


def test_rmse_in_the_artifact_equals_scikit_learn(
    canary_report: tuple[pdpaired.ComparisonReport, dict],
) -> None:
    a, b, _ = canary_regression()
    art = canary_report[0].to_artifact("shareable")
    assert art["metric_a"] == pytest.approx(skm.root_mean_squared_error(a["y"], a["pred"]))
    assert art["metric_b"] == pytest.approx(skm.root_mean_squared_error(b["y"], b["pred"]))
    assert art["improvement_a_over_b"] == pytest.approx(art["metric_b"] - art["metric_a"])
    assert art["exact_binomial"] is None


def test_the_slices_block_mirrors_the_slice_table(full_report: pdpaired.ComparisonReport) -> None:
    block = full_report.to_artifact("shareable")["slices"]
    assert block is not None
    assert block["columns"] == ["site"]
    assert block["uncertainty"] is True
    assert block["min_size"] == 10
    table = full_report.slices.table  # type: ignore[union-attr]
    assert len(block["rows"]) == len(table)
    for row, ref in zip(block["rows"], table.to_dict(orient="records"), strict=True):
        assert row["value"] == str(ref["value"])
        assert row["n"] == ref["n"]
        assert row["improvement"] == ref["improvement"]
        assert row["ci_low"] == ref["ci_low"]
        assert row["pvalue_adjusted"] == ref["pvalue_adjusted"]
    assert set(block["heterogeneity"]) == {"site"}
    # and per-site metrics by hand
    frame = binary_long()
    for row in block["rows"]:
        part = frame[frame["site"] == row["value"]]
        assert row["metric_a"] == pytest.approx(part.loc[part["model"] == "cand", "score"].mean())
        assert row["metric_b"] == pytest.approx(part.loc[part["model"] == "base", "score"].mean())


def test_no_slices_means_a_null_block(binary_cmp: pdpaired.Comparison) -> None:
    rep = binary_cmp.report(**FAST, rng=0)
    assert rep.slices is None
    assert rep.to_artifact("local")["slices"] is None


def test_grouped_binary_scores_get_no_exact_binomial() -> None:
    """The exact binomial test assumes independent pairs: a grouped report leaves it out."""
    frame = binary_long()
    frame["group"] = frame["case_id"] // 55
    cmp = frame.paired.compare("cand", "base", higher_is_better=True)
    rep = cmp.report(**FAST, rng=0)  # and warns about nothing (warnings are errors here)
    assert rep.exact_binomial is None
    art = rep.to_artifact("shareable")
    assert art["exact_binomial"] is None
    assert art["interval"]["unit"] == "group"
    assert art["randomization"]["unit"] == "group"
    assert art["interval"]["n_groups"] == frame["group"].nunique()
    rz = cmp.randomization(n_permutations=200, rng=report_seed(0, "report_randomization"))
    assert art["randomization"]["pvalue"] == rz.pvalue


def test_small_slices_are_suppressed_in_the_shareable_artifact(tmp_path: Path) -> None:
    """A slice below max(min_size, 10) cases shows neither its label nor its numbers."""
    rng = np.random.default_rng(8)
    n = 60
    b = rng.normal(size=n)
    a = b + 0.3 + rng.normal(0, 0.5, n)
    a[7] = 4.0987654321  # the lone case of the tiny slice
    site = np.array(["big"] * n, dtype=object)
    site[7] = "CANARY-SITE-77aa"  # an id-like slice label
    site[20:28] = "eight"  # below the floor of 10 even with min_size=5
    frame = pd.concat(
        [
            pd.DataFrame({"case_id": np.arange(n), "model": m, "score": s, "site": site})
            for m, s in (("A", a), ("B", b))
        ],
        ignore_index=True,
    )
    cmp = frame.paired.compare("A", "B", higher_is_better=True)
    rep = cmp.report(**FAST, rng=0, slices="site", min_slice_size=5, slice_uncertainty=True)
    paths = rep.save(tmp_path)
    text = paths["shareable"].read_text(encoding="utf-8")
    assert "CANARY-SITE" not in text
    assert "77aa" not in text
    assert '"eight"' not in text
    assert "0987654321" not in text
    rows = {(r["n"], r["status"]): r for r in load(paths["shareable"])["slices"]["rows"]}
    # the two small slices hold 9 < 10 cases together, so the 51-case slice is hidden
    # too: otherwise the overall metric minus it would reveal their 9 cases
    assert set(rows) == {(1, "suppressed"), (8, "suppressed"), (51, "suppressed")}
    assert '"big"' not in text
    for key in ((1, "suppressed"), (8, "suppressed"), (51, "suppressed")):
        row = rows[key]
        assert row["value"] == "(suppressed)"
        assert [row[k] for k in ("metric_a", "metric_b", "improvement", "winner", "ci_low",
                                 "pvalue")] == [None] * 6  # fmt: skip
    # the local artifact keeps them
    local = pdpaired.verify(paths["local"])
    values = {r["value"]: r for r in local["slices"]["rows"]}
    assert values["eight"]["status"] == "reported"
    assert values["eight"]["metric_a"] == pytest.approx(a[20:28].mean())
    assert values["CANARY-SITE-77aa"]["status"] == "skipped"
    pdpaired.verify(paths["shareable"])


def test_markdown_states_the_decision_and_the_limits(
    full_report: pdpaired.ComparisonReport,
) -> None:
    md = full_report.to_markdown()
    assert md.startswith("# Paired comparison: cand vs base")
    assert "does not cover" in md
    assert "## Slices" in md
    assert "exact binomial" in md
    assert "paired-comparison/v1" in md
    verdict = md.splitlines()[2]
    bs = full_report.bootstrap
    head = {
        "a_better": "cand is better than base",
        "b_better": "base is better than cand",
        "inconclusive": "inconclusive",
        "equivalent": "equivalent within",
    }[bs.verdict]
    assert verdict.startswith(f"**Verdict: {head}")


def test_markdown_verdict_both_ways(binary_cmp: pdpaired.Comparison) -> None:
    """The same data with an unreachable threshold and with none: two different verdicts."""
    low = binary_cmp.report(**FAST, rng=7).bootstrap.confidence_interval.low
    better = "**Verdict: cand is better than base**"
    for threshold, want in (
        (1.0, "**Verdict: equivalent within ±1**"),
        (max(0.0, low / 2), better),
    ):
        if threshold < 1.0 and not low > 0:
            continue  # the fixture's interval must lie above zero for the second case
        rep = binary_cmp.report(**FAST, rng=7, practical_threshold=threshold)
        assert rep.to_markdown().splitlines()[2].startswith(want), threshold
    assert low > 0  # both verdicts were checked


def test_bad_kind_is_refused(full_report: pdpaired.ComparisonReport) -> None:
    with pytest.raises(ValueError, match="kind"):
        full_report.to_artifact("public")


# --------------------------------------------------------------------------- 5. atomic writes
def test_save_writes_exactly_three_files_into_a_new_directory(
    full_report: pdpaired.ComparisonReport, tmp_path: Path
) -> None:
    out = tmp_path / "new" / "nested"
    paths = full_report.save(out)
    assert set(paths) == {"local", "shareable", "markdown"}
    assert {p.name for p in out.iterdir()} == FILES
    assert {p.name for p in paths.values()} == FILES
    assert paths["markdown"].read_text(encoding="utf-8") == full_report.to_markdown()
    assert load(paths["local"]) == full_report.to_artifact("local")
    assert load(paths["shareable"]) == full_report.to_artifact("shareable")
    # saving again replaces the files in place
    full_report.save(str(out))
    assert {p.name for p in out.iterdir()} == FILES
    for kind in ("local", "shareable"):
        pdpaired.verify(paths[kind])


def test_a_failing_swap_leaves_the_old_set_and_no_temporary(
    full_report: pdpaired.ComparisonReport, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pdpaired.artifacts import write as write_mod

    out = tmp_path / "reports"
    full_report.save(out)
    old = {p.name: p.read_bytes() for p in out.iterdir()}

    def full_disk(a: Any, b: Any) -> bool:
        msg = "disk full"
        raise OSError(msg)

    monkeypatch.setattr(write_mod, "_exchange", full_disk)
    with pytest.raises(OSError, match="disk full"):
        full_report.save(out)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == old
    assert sorted(p.name for p in tmp_path.iterdir()) == ["reports"]  # no staging left
    # a first save whose one rename fails leaves nothing at all
    real = os.rename

    def failing(src: Any, dst: Any) -> None:
        msg = "disk full"
        raise OSError(msg)

    monkeypatch.setattr(os, "rename", failing)
    with pytest.raises(OSError, match="disk full"):
        full_report.save(tmp_path / "fresh")
    monkeypatch.setattr(os, "rename", real)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["reports"]


def test_a_target_that_is_a_directory_leaves_no_temporary_file(
    full_report: pdpaired.ComparisonReport, tmp_path: Path
) -> None:
    (tmp_path / "comparison.md").mkdir()
    with pytest.raises(OSError):  # noqa: PT011  (IsADirectoryError on Linux)
        full_report.save(tmp_path)
    assert (tmp_path / "comparison.md").is_dir()
    names = {p.name for p in tmp_path.iterdir()}
    assert not [n for n in names if n.endswith(".tmp")], names
    for name in names & {"comparison.json", "comparison.shareable.json"}:
        pdpaired.verify(tmp_path / name)


def test_a_failing_write_leaves_no_temporary_file(
    full_report: pdpaired.ComparisonReport, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = os.fsync
    calls: list[int] = []

    def flaky(fd: int) -> None:
        calls.append(fd)
        if len(calls) == 2:
            msg = "I/O error"
            raise OSError(msg)
        real(fd)

    monkeypatch.setattr(os, "fsync", flaky)
    with pytest.raises(OSError, match="I/O error"):
        full_report.save(tmp_path)
    # nothing was renamed (the failure happened while staging) and nothing is left over
    assert sorted(p.name for p in tmp_path.iterdir()) == []


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


def _forge(path: Path, edit) -> Path:
    art = json.loads(path.read_text())
    edit(art)
    art["digest"] = content_digest(art)  # a forger recomputes the digest
    out = path.with_name("forged.json")
    out.write_text(json.dumps(art))
    return out


class TestSensitivityInReports:
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

    @pytest.mark.parametrize("policy", ["complete-case", "as-failure"])
    def test_binary_report_carries_the_bounds_everywhere(self, policy, tmp_path) -> None:
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

    def test_closed_form_bounds_in_the_artifact(self, tmp_path) -> None:
        # 0/1 scores, no strata: the bounds are (a_only - b_only) over every case with A's
        # missing outputs at 0 / B's at 1 (low) and the reverse (high), counted by hand
        df = _binary()
        wide = df.pivot(index="case_id", columns="model", values="score")
        a, b = wide["new"].to_numpy(), wide["old"].to_numpy()
        ma, mb = np.isnan(a), np.isnan(b)
        low = np.mean(np.where(ma, 0, a) - np.where(mb, 1, b))
        high = np.mean(np.where(ma, 1, a) - np.where(mb, 0, b))
        rep = df.paired.compare(
            "new", "old", higher_is_better=True, missing="complete-case"
        ).report(n_resamples=200, n_permutations=200, rng=0)
        art = json.loads(_save(rep, tmp_path)["shareable"].read_text())
        assert art["sensitivity"]["bounds"]["low"] == pytest.approx(low, abs=1e-14)
        assert art["sensitivity"]["bounds"]["high"] == pytest.approx(high, abs=1e-14)
        assert art["sensitivity"]["n_cases"] == art["n_cases"] + art["missing"]["n_dropped"]

    def test_no_missing_outcomes_no_block(self, tmp_path) -> None:
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

    def test_continuous_scores_need_the_range(self, tmp_path) -> None:
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

    @pytest.mark.parametrize(
        ("edit", "problem"),
        [
            (lambda s: s["bounds"].update(low=s["bounds"]["low"] - 0.01), "Imbens-Manski"),
            (lambda s: s["confidence_interval"].update(
                high=s["confidence_interval"]["high"] + 0.01),
             "Imbens-Manski"),
            (lambda s: s["standard_errors"].update(low=s["standard_errors"]["low"] * 2),
             "Imbens-Manski"),
            (lambda s: s.update(
                bounds={"low": s["bounds"]["high"] + 1, "high": s["bounds"]["high"]}),
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
    def test_verify_rejects_an_edited_block(self, tmp_path, edit, problem) -> None:
        rep = _binary().paired.compare("new", "old", higher_is_better=True,
                                       missing="complete-case").report(
            n_resamples=200, n_permutations=200, rng=0)  # fmt: skip
        path = _save(rep, tmp_path)["shareable"]
        forged = _forge(path, lambda art: edit(art["sensitivity"]))
        with pytest.raises(pdpaired.ArtifactError, match="sensitivity") as err:
            pdpaired.verify(forged)
        assert any(problem in p for p in err.value.problems), err.value.problems

    def test_schema_rejects_a_malformed_block(self, tmp_path) -> None:
        rep = _binary().paired.compare("new", "old", higher_is_better=True,
                                       missing="complete-case").report(
            n_resamples=200, n_permutations=200, rng=0)  # fmt: skip
        path = _save(rep, tmp_path)["local"]
        for edit in (lambda s: s.pop("bounds"), lambda s: s.update(extra=1),
                     lambda s: s.update(conclusion="maybe")):  # fmt: skip
            forged = _forge(path, lambda art, e=edit: e(art["sensitivity"]))
            with pytest.raises(pdpaired.ArtifactError, match="schema: sensitivity"):
                pdpaired.verify(forged)

    def test_as_failure_improvement_lies_in_the_set(self, tmp_path) -> None:
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

    def test_prediction_mode_report_is_seeded(self, tmp_path) -> None:
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

    def test_dask_report_carries_the_same_block(self, tmp_path) -> None:
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

    def test_cli_compare_score_range(self, tmp_path) -> None:
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


# ------------------------------------------------------------ the headline and the tests beside it
def dozen_cases(*, swap: bool = False) -> pd.DataFrame:
    """0/1 scores on 12 cases, 5 discordant pairs all won by one model.

    The exact binomial test gives p = 2 / 2**5 = 0.0625 (scipy: binomtest(5, 5)),
    so it does not reject at 0.05, while a bootstrap or score interval of the
    difference of means (5/12) excludes 0: the two disagree.
    """
    win = np.array([1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 0])
    lose = np.array([0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0])
    a, b = (lose, win) if swap else (win, lose)
    return pd.concat(
        pd.DataFrame({"case_id": range(12), "model": m, "score": s})
        for m, s in (("cand", a), ("base", b))
    )


@pytest.fixture(scope="module")
def disagreeing() -> pdpaired.ComparisonReport:
    with pytest.warns(pdpaired.DegenerateDataWarning, match="exact binomial test"):
        return dozen_cases().paired.compare("cand", "base", higher_is_better=True).report(
            n_resamples=2000, n_permutations=2000, rng=0)  # fmt: skip


class TestAgreement:
    """One primary analysis: the interval's verdict is the headline, and a test that disagrees
    with it at the same level is said beside it, in every view, and read by the gate."""

    def test_the_exact_test_of_the_fixture_does_not_reject(self) -> None:
        from scipy.stats import binomtest

        assert binomtest(5, 5, 0.5).pvalue == pytest.approx(0.0625, abs=1e-15)

    def test_the_headline_says_the_tests_disagree(
        self, disagreeing: pdpaired.ComparisonReport
    ) -> None:
        rep = disagreeing
        ci = rep.bootstrap.confidence_interval
        assert rep.bootstrap.verdict == "a_better"
        assert ci.low > 0
        assert rep.exact_binomial is not None
        assert rep.exact_binomial.pvalue == 0.0625
        assert rep.agreement is False
        note = rep.agreement_note
        assert note is not None
        assert note.startswith("Not established:")
        assert "the exact binomial test does not reject no difference (p = 0.0625 ≥ 0.05)" in note
        head = rep.headline()
        assert head.startswith(rep.bootstrap.headline())
        assert head.endswith(note)
        # every view leads with it
        assert str(rep).splitlines()[0] == head
        assert "Not established: a_better by the interval" in rep._repr_html_()
        md = rep.to_markdown()
        verdict_line = next(line for line in md.splitlines() if "Verdict" in line)
        assert "Not established" in verdict_line
        assert rep.to_frame()["agreement"].tolist() == [False]
        art = rep.to_artifact("shareable")
        assert art["agreement"] == {"agrees": False, "note": note}

    def test_the_gate_reads_the_disagreement_as_not_established(
        self, disagreeing: pdpaired.ComparisonReport
    ) -> None:
        g = disagreeing.gate("not-a-better")
        assert g.verdict == "a_better"
        assert g.failed
        assert g.exit_code == 1
        assert disagreeing.agreement_note in g.reason
        assert disagreeing.gate("b-better").exit_code == 0
        # the mirror: B ahead by the interval, not by the test: "b-better" does not fire
        with pytest.warns(pdpaired.DegenerateDataWarning):
            mirror = dozen_cases(swap=True).paired.compare(
                "cand", "base", higher_is_better=True).report(
                n_resamples=2000, n_permutations=2000, rng=0)  # fmt: skip
        assert mirror.bootstrap.verdict == "b_better"
        assert not mirror.agreement
        assert mirror.gate("b-better").exit_code == 0
        assert mirror.gate("not-a-better").exit_code == 1

    def test_a_report_whose_tests_agree_says_nothing_more(self) -> None:
        rep = load_digits_cv().paired(score="correct").compare(
            "knn", "logreg", higher_is_better=True).report(
            n_resamples=1000, n_permutations=1000, rng=0)  # fmt: skip
        assert rep.agreement
        assert rep.agreement_note is None
        assert rep.headline() == rep.bootstrap.headline()
        assert rep.to_artifact()["agreement"] == {"agrees": True, "note": None}
        assert "Not established" not in str(rep)

    def test_a_forged_agreement_fails_verify(
        self, disagreeing: pdpaired.ComparisonReport, tmp_path: Path
    ) -> None:
        paths = disagreeing.save(tmp_path / "out")
        pdpaired.verify(paths["local"])

        def agrees(art: dict[str, Any]) -> None:
            art["agreement"] = {"agrees": True, "note": None}

        _, problems = _problems(_tamper(paths["local"], tmp_path / "f.json", agrees,
                                        redigest=True))  # fmt: skip
        assert any(p.startswith("agreement") for p in problems), problems

        def half(art: dict[str, Any]) -> None:
            art["agreement"]["agrees"] = True

        _, problems = _problems(_tamper(paths["local"], tmp_path / "g.json", half, redigest=True))
        assert any("agreement.agrees must be true exactly when" in p for p in problems)
