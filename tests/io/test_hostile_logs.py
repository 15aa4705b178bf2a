"""Evaluation logs from anyone: every reader gives a table or one line, never a traceback.

Hypothesis edits the harnesses' own logs -- an lm-evaluation-harness samples
file (a field of a record set to any JSON value, a line replaced by any
bytes), an inspect_ai log written as JSON (a field of a sample or of the
header set to any JSON value) and a HELM run (a field of a per-instance
record, of a statistic, of a request state or of the run spec set to any
JSON value) -- and runs ``pdpaired compare`` on the edited
log against the intact one. It must exit 0 (the edit was harmless, or a
missing outcome the policy allows) or 2 with one ``error:`` line on stderr;
any other exception fails the test. Derandomized, no example database, a
bounded number of examples: the same inputs on every run.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import tempfile
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pdpaired.cli.main import main

DATA = Path(__file__).resolve().parents[1] / "data"
RUNS = DATA / "lm_eval" / "runs"
LOGS = DATA / "inspect"
HELM = DATA / "helm" / "runs"

FUZZ = settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
FAST = ["--resamples", "200", "--permutations", "200", "--seed", "0"]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**30), 10**30)
    | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                                  max_size=3),
    max_leaves=6,
)  # fmt: skip


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    quiet = warnings.catch_warnings()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), quiet:
        warnings.simplefilter("ignore")
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def answered(code: int, err: str) -> None:
    assert code in (0, 2), err
    assert "Traceback" not in err
    if code == 2:
        errors = [line for line in err.splitlines() if line.startswith("error: ")]
        assert len(errors) == 1, err


# --------------------------------------------------------------------------- lm-evaluation-harness
LM_FIELDS = ["doc_id", "acc", "filter", "doc", "resps", "filtered_resps", "target", "metrics",
             "doc_hash"]  # fmt: skip


def lm_eval_copy(folder: Path) -> Path:
    runs = folder / "runs"
    shutil.copytree(RUNS, runs)
    for samples in runs.glob("*/*/samples_tiny_words_*.jsonl"):
        samples.unlink()  # one task, whose metric is acc
    (small,) = runs.glob("small/small/samples_tiny_arith_*.jsonl")
    return small


def lm_eval_compare(folder: Path) -> tuple[int, str]:
    code, _, err = run_cli(["compare", "--lm-eval", str(folder / "runs" / "small"),
                            str(folder / "runs" / "large"), "--metric", "acc", *FAST])  # fmt: skip
    return code, err


@FUZZ
@given(line=st.integers(0, 7), field=st.sampled_from(LM_FIELDS), value=json_values)
def test_lm_eval_a_record_field_with_any_value(line: int, field: str, value: Any) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        small = lm_eval_copy(Path(tmp))
        lines = small.read_text(encoding="utf-8").splitlines()
        rec = json.loads(lines[line % len(lines)])
        rec[field] = value
        lines[line % len(lines)] = json.dumps(rec, allow_nan=True)
        small.write_text("\n".join(lines) + "\n", encoding="utf-8")
        answered(*lm_eval_compare(Path(tmp)))


@FUZZ
@given(line=st.integers(0, 7), raw=st.binary(max_size=120))
def test_lm_eval_a_line_of_any_bytes(line: int, raw: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        small = lm_eval_copy(Path(tmp))
        lines = small.read_bytes().splitlines()
        lines[line % len(lines)] = raw
        small.write_bytes(b"\n".join(lines) + b"\n")
        answered(*lm_eval_compare(Path(tmp)))


# --------------------------------------------------------------------------- inspect_ai
SAMPLE_FIELDS = ["id", "epoch", "scores", "error", "input", "target", "metadata"]
HEADER_FIELDS = ["status", "eval", "results", "samples"]


@pytest.fixture(scope="module")
def json_logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The committed .eval logs rewritten by inspect_ai as JSON logs (text to edit)."""
    pytest.importorskip("inspect_ai")
    from inspect_ai.log import read_eval_log, write_eval_log

    folder = tmp_path_factory.mktemp("json-logs")
    out = {}
    for name in ("small", "large"):
        write_eval_log(read_eval_log(str(LOGS / f"{name}.eval")), str(folder / f"{name}.json"))
        out[name] = (folder / f"{name}.json").read_text(encoding="utf-8")
    return out


def inspect_compare(folder: Path) -> tuple[int, str]:
    code, _, err = run_cli(["compare", "--inspect", str(folder / "small.json"),
                            str(folder / "large.json"), "--missing", "as-failure",
                            *FAST])  # fmt: skip
    return code, err


def test_the_intact_json_logs_compare(json_logs: dict[str, str], tmp_path: Path) -> None:
    for name, text in json_logs.items():
        (tmp_path / f"{name}.json").write_text(text, encoding="utf-8")
    code, err = inspect_compare(tmp_path)
    assert code == 0, err


@FUZZ
@given(where=st.sampled_from(["sample", "header"]), index=st.integers(0, 9),
       field=st.sampled_from(SAMPLE_FIELDS + HEADER_FIELDS), value=json_values)  # fmt: skip
def test_inspect_a_field_with_any_value(
    json_logs: dict[str, str], where: str, index: int, field: str, value: Any
) -> None:
    log = json.loads(json_logs["small"])
    if where == "sample":
        samples = log.get("samples") or []
        samples[index % len(samples)][field if field in SAMPLE_FIELDS else "id"] = value
    else:
        log[field if field in HEADER_FIELDS else "status"] = value
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "small.json").write_text(json.dumps(log, allow_nan=True), encoding="utf-8")
        (folder / "large.json").write_text(json_logs["large"], encoding="utf-8")
        answered(*inspect_compare(folder))


@FUZZ
@given(cut=st.integers(0, 10**6), raw=st.binary(max_size=60))
def test_inspect_a_truncated_or_spliced_log(
    json_logs: dict[str, str], cut: int, raw: bytes
) -> None:
    text = json_logs["small"].encode("utf-8")
    cut %= len(text)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "small.json").write_bytes(text[:cut] + raw)
        (folder / "large.json").write_text(json_logs["large"], encoding="utf-8")
        answered(*inspect_compare(folder))


# --------------------------------------------------------------------------- HELM
HELM_FIELDS = {
    "record": ["instance_id", "train_trial_index", "stats", "perturbation"],
    "stat": ["name", "count", "sum", "mean"],
    "request": ["instance", "train_trial_index", "result"],
    "spec": ["name", "adapter_spec"],
}


@FUZZ
@given(where=st.sampled_from(sorted(HELM_FIELDS)), index=st.integers(0, 15),
       field=st.integers(0, 3), value=json_values)  # fmt: skip
def test_helm_a_field_with_any_value(where: str, index: int, field: int, value: Any) -> None:
    name = HELM_FIELDS[where][field % len(HELM_FIELDS[where])]
    with tempfile.TemporaryDirectory() as tmp:
        runs = Path(tmp) / "runs"
        shutil.copytree(HELM, runs)
        run = runs / "simple_model2"
        file = {"record": "per_instance_stats", "stat": "per_instance_stats",
                "request": "scenario_state", "spec": "run_spec"}[where]  # fmt: skip
        doc = json.loads((run / f"{file}.json").read_text(encoding="utf-8"))
        if where == "record":
            doc[index % len(doc)][name] = value
        elif where == "stat":
            stats = doc[index % len(doc)]["stats"]
            exact = next(s for s in stats if s["name"]["name"] == "exact_match")
            exact[name] = value
        elif where == "request":
            doc["request_states"][index % len(doc["request_states"])][name] = value
        else:
            doc[name] = value
        (run / f"{file}.json").write_text(json.dumps(doc, allow_nan=True), encoding="utf-8")
        code, _, err = run_cli(["compare", "--helm", str(run), str(runs / "simple_model1"),
                                "--metric", "exact_match", "--higher-is-better",
                                "--missing", "complete-case", *FAST])  # fmt: skip
        answered(code, err)
