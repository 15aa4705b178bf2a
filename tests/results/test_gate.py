"""Release gates: report.gate(...) in Python, --fail-on / --summary-markdown on the command line.

The gate's rule is checked against the verdict rule (docs/concepts/decisions.md) written out
again here (an independent statement of it), on every verdict, and the
command line is run through the installed console script (``.venv/bin/pdpaired``),
its exit codes compared with the Python gate of the same analysis (same seed).
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd
import pytest

import pdpaired
from pdpaired.io import read_lm_eval
from pdpaired.results.base import ConfidenceInterval
from pdpaired.results.gate import FAIL_ON, GateResult, gate
from pdpaired.results.verdict import decide

DATA = Path(__file__).resolve().parents[1] / "data"


RUNS = DATA / "lm_eval" / "runs"


LOGS = DATA / "inspect"


FAST = ["--resamples", "400", "--permutations", "200", "--seed", "3"]


def expected_verdict(low: float, high: float, t: float) -> str:
    """The verdict from the interval and the practical threshold t."""
    if low == high:
        return "undetermined"
    if low > t:
        return "a_better"
    if high < -t:
        return "b_better"
    if t > 0 and -t <= low and high <= t:
        return "equivalent"
    return "inconclusive"


@pytest.fixture(scope="module")
def base() -> pdpaired.BootstrapResult:
    rng = np.random.default_rng(0)
    n = 60
    df = pd.DataFrame({"case_id": np.tile(np.arange(n), 2), "model": np.repeat(["A", "B"], n),
                       "score": rng.normal(size=2 * n)})  # fmt: skip
    return df.paired.bootstrap("A", "B", higher_is_better=True, n_resamples=200, rng=0,
                               noninferiority_margin=0.1)  # fmt: skip


INTERVALS = [  # (low, high, practical threshold)
    (0.05, 0.3, 0.0), (0.05, 0.3, 0.1), (-0.3, -0.05, 0.0), (-0.3, -0.05, 0.1),
    (-0.05, 0.05, 0.1), (-0.05, 0.05, 0.0), (-0.2, 0.3, 0.0), (0.0, 0.0, 0.0), (0.0, 0.3, 0.0),
    (-0.3, 0.0, 0.0), (-0.08, 0.2, 0.05),
]  # fmt: skip


# --------------------------------------------------------------------------- command line
def console_script() -> str | None:
    here = Path(sys.executable).parent / "pdpaired"
    if here.is_file() and os.access(here, os.X_OK):
        return str(here)
    return shutil.which("pdpaired")


SCRIPT = console_script()


class Run(NamedTuple):
    returncode: int
    stdout: str
    stderr: str


LM = ["compare", "--lm-eval", str(RUNS / "large"), str(RUNS / "small"), "--metric", "acc",
      "--tasks", "tiny_arith", "--missing", "complete-case", *FAST]  # fmt: skip


INSPECT = ["compare", "--inspect", str(LOGS / "large.eval"), str(LOGS / "small.eval"),
           "--missing", "as-failure", *FAST]  # fmt: skip


def jobs(tmp: Path) -> dict[str, list[str]]:
    summary = tmp / "summary.md"
    summary.write_text("# earlier step\n", encoding="utf-8")
    return {
        # gates on the lm-eval comparison (inconclusive) and the inspect one (A better by
        # the interval, not by the exact test: not established)
        "lm_b_better": [*LM, "--fail-on", "b-better"],
        "lm_not_a_better": [
            *LM,
            "--fail-on",
            "not-a-better",
            "--summary-markdown",
            str(summary),
        ],
        "lm_not_noninferior": [
            *LM,
            "--fail-on",
            "not-noninferior",
            "--noninferiority-margin",
            "0.05",
            "--out",
            str(tmp / "lm_out"),
        ],
        "lm_plain": [*LM, "--summary-markdown", str(tmp / "new.md")],
        "inspect_not_a_better": [
            *INSPECT,
            "--fail-on",
            "not-a-better",
            "--out",
            str(tmp / "inspect_out"),
        ],
        "inspect_b_better": [*INSPECT, "--fail-on", "b-better", "--names", "cand", "base"],
        # bad input: exit 2
        "bad_margin": [*LM, "--fail-on", "not-noninferior"],
        "bad_choice": [*LM, "--fail-on", "a-worse"],
        "bad_summary_dir": [*LM, "--summary-markdown", str(tmp / "no" / "such" / "dir.md")],
        "bad_one_input": ["compare", "--lm-eval", str(RUNS / "large"), "--metric", "acc"],
        "bad_metric": [*LM[:4], "--metric", "accuracy", "--tasks", "tiny_arith"],
        "bad_missing_policy": [
            "compare",
            "--inspect",
            str(LOGS / "large.eval"),
            str(LOGS / "small.eval"),
            *FAST,
        ],
        "bad_scorer_flag": [*LM, "--scorer", "match"],
        "bad_two_flags": ["compare", "--lm-eval", "--inspect", "a", "b"],
        "bad_absent": ["compare", "--inspect", str(tmp / "absent.eval"), str(LOGS / "small.eval")],
        "bad_same_names": [
            "compare",
            "--inspect",
            str(LOGS / "small.eval"),
            str(LOGS / "small.eval"),
        ],
    }


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Run], Path]:
    if SCRIPT is None:
        pytest.skip("the `pdpaired` console script is not installed (pip install -e . creates it)")
    tmp = tmp_path_factory.mktemp("gate")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONWARNINGS"}

    def one(args: list[str]) -> Run:
        proc = subprocess.run([SCRIPT, *args], cwd=tmp, env=env, capture_output=True, text=True,
                              timeout=300, check=False)  # fmt: skip
        return Run(proc.returncode, proc.stdout, proc.stderr)

    todo = jobs(tmp)
    with ThreadPoolExecutor(max_workers=2) as pool:
        out = dict(zip(todo, pool.map(one, todo.values()), strict=True))
    return out, tmp


def python_report(kind: str, margin: float | None = None) -> pdpaired.ComparisonReport:
    if kind == "lm":
        long = pd.concat([read_lm_eval(RUNS / m, metric="acc", tasks=["tiny_arith"])
                          for m in ("large", "small")])  # fmt: skip
        cmp = long.paired.compare("large", "small", higher_is_better=True,
                                  missing="complete-case")  # fmt: skip
    else:
        pytest.importorskip("inspect_ai")
        long = pd.concat([pdpaired.io.read_inspect(LOGS / f) for f in ("large.eval", "small.eval")])
        cmp = long.paired.compare("mockllm/large", "mockllm/small", higher_is_better=True,
                                  missing="as-failure")  # fmt: skip
    return cmp.report(n_resamples=400, n_permutations=200, rng=3, noninferiority_margin=margin)


# the inspect logs compare 20 cases with 11 discordant ones: pdpaired warns that the
# exact test is the one to trust there; the gate's exit codes are the subject
pytestmark = pytest.mark.filterwarnings(
    "ignore:The exact binomial test:pdpaired.DegenerateDataWarning"
)


@pytest.mark.parametrize(("low", "high", "t"), INTERVALS)
def test_gate_follows_the_verdict(base, low: float, high: float, t: float) -> None:
    margin = 0.1
    # the result a bootstrap with this interval would give (its decisions recomputed);
    # expected_verdict above restates the verdict rule independently
    d = decide(base.improvement, low, high, practical_threshold=t, noninferiority_margin=margin,
               degenerate=low == high)  # fmt: skip
    res = dataclasses.replace(
        base, confidence_interval=ConfidenceInterval(low=low, high=high), practical_threshold=t,
        noninferiority_margin=margin, verdict=d.verdict, superior_point=d.superior_point,
        superior_ci=d.superior_ci, noninferior=d.noninferior,
    )  # fmt: skip
    verdict = expected_verdict(low, high, t)
    want = {
        "b-better": verdict == "b_better",
        "not-a-better": verdict != "a_better",
        "not-noninferior": verdict == "undetermined" or low < -margin,
    }
    for cond in FAIL_ON:
        g = gate(res, cond)
        assert g.verdict == verdict
        assert g.failed is want[cond], (cond, low, high, t)
        assert g.exit_code == int(want[cond])
        assert bool(g) is (not want[cond])
        assert g.passed is (not want[cond])
        assert g.fail_on == cond
        assert ("fails" if want[cond] else "passes") in g.reason
    assert gate(res, "not_a_better") == gate(res, "not-a-better")  # underscores accepted


def test_gate_bad_input(base) -> None:
    with pytest.raises(ValueError, match=r"`fail_on` must be one of 'b-better'"):
        gate(base, "a-worse")
    no_margin = dataclasses.replace(base, noninferiority_margin=None, noninferior=None)
    with pytest.raises(ValueError, match="noninferiority margin"):
        gate(no_margin, "not-noninferior")
    with pytest.raises(TypeError, match="BootstrapResult or a ComparisonReport"):
        gate("report", "b-better")


def test_report_gate_is_the_bootstrap_gate() -> None:
    long = pd.concat([read_lm_eval(RUNS / m, metric="acc", tasks=["tiny_arith"])
                      for m in ("large", "small")])  # fmt: skip
    cmp = long.paired.compare("large", "small", higher_is_better=True, missing="complete-case")
    rep = cmp.report(n_resamples=400, n_permutations=200, rng=3, noninferiority_margin=0.05)
    for cond in FAIL_ON:
        g = rep.gate(cond)
        assert isinstance(g, GateResult)
        assert g == gate(rep.bootstrap, cond)
    assert json.loads(json.dumps(rep.gate("b-better").to_dict()))["fail_on"] == "b-better"


def test_gate_markdown_is_escaped(base) -> None:
    odd = dataclasses.replace(base, a="new|model <b>", b="`old`")
    md = gate(odd, "not-a-better").to_markdown()
    assert "<b>" not in md
    assert "&lt;b&gt;" in md
    reason = md.split("). ", 1)[1]  # past the fixed head, which has its own code span
    # every | and backtick of a label is backslash-escaped (CommonMark: a literal character)
    assert re.search(r"(?<!\\)[|`]", reason) is None, reason
    assert "new\\|model" in reason
    assert "\\`old\\`" in reason
    assert md.startswith("**Release gate** `--fail-on not-a-better`")


@pytest.mark.parametrize(
    ("name", "kind", "cond", "margin"),
    [("lm_b_better", "lm", "b-better", None), ("lm_not_a_better", "lm", "not-a-better", None),
     ("lm_not_noninferior", "lm", "not-noninferior", 0.05),
     ("inspect_not_a_better", "inspect", "not-a-better", None),
     ("inspect_b_better", "inspect", "b-better", None)],
)  # fmt: skip
def test_cli_exit_code_is_the_python_gate(runs, name, kind, cond, margin) -> None:
    run = runs[0][name]
    want = python_report(kind, margin).gate(cond)
    assert run.returncode == want.exit_code, run.stderr
    assert "Traceback" not in run.stderr
    assert f"Release gate --fail-on {cond}: {'FAILED' if want.failed else 'passed'}" in run.stdout
    if name == "inspect_b_better":  # --names relabels the models in the reason
        assert f"Verdict {want.verdict}: A (cand)" in run.stdout
    else:
        assert want.reason in run.stdout


def test_cli_gates_cover_both_outcomes(runs) -> None:
    out = runs[0]
    assert out["lm_b_better"].returncode == 0  # inconclusive: B is not better
    assert out["lm_not_a_better"].returncode == 1  # inconclusive: A is not shown better
    if out["inspect_not_a_better"].returncode != 2:  # (2: inspect_ai not installed)
        # a_better by the interval, but the exact test on the few discordant pairs does
        # not reject: not established, so the strict gate fails and the lenient one passes
        run = out["inspect_not_a_better"]
        assert run.returncode == 1, run.stderr
        assert run.stdout.startswith("Verdict: mockllm/large is better than mockllm/small")
        assert "Not established" in run.stdout.splitlines()[0]
        assert out["inspect_b_better"].returncode == 0
    assert out["lm_plain"].returncode == 0  # no --fail-on: 0 whatever the verdict


def test_cli_numbers_equal_the_python_api(runs) -> None:
    out, tmp = runs
    art = json.loads((tmp / "lm_out" / "comparison.json").read_text())
    rep = python_report("lm", 0.05)
    assert art["improvement_a_over_b"] == rep.bootstrap.improvement
    assert art["interval"]["low"] == rep.bootstrap.confidence_interval.low
    assert art["interval"]["high"] == rep.bootstrap.confidence_interval.high
    assert art["models"] == {"a": "large", "b": "small"}
    assert art["missing"]["n_dropped"] == 1
    srcs = [x["path"] for x in art["local"]["inputs"]]
    assert [Path(p).name.split("_2026")[0] for p in srcs] == ["samples_tiny_arith"] * 2
    pdpaired.verify(tmp / "lm_out" / "comparison.json")
    if out["inspect_not_a_better"].returncode != 2:
        art = json.loads((tmp / "inspect_out" / "comparison.json").read_text())
        rep = python_report("inspect")
        assert art["improvement_a_over_b"] == rep.bootstrap.improvement
        assert art["interval"]["low"] == rep.bootstrap.confidence_interval.low
        assert art["missing"]["n_filled"] == 1
    names = out["inspect_b_better"]
    if names.returncode == 0:
        assert "Model A (cand)" in names.stdout


def test_cli_summary_markdown_appends(runs) -> None:
    tmp = runs[1]
    text = (tmp / "summary.md").read_text(encoding="utf-8")
    assert text.startswith("# earlier step\n")  # appended, not overwritten
    assert "# Paired comparison: large vs small" in text
    assert "**Release gate** `--fail-on not-a-better`: **failed** (exit 1)" in text
    plain = (tmp / "new.md").read_text(encoding="utf-8")
    assert plain.startswith("# Paired comparison: large vs small")
    assert "Release gate" not in plain
    rep = python_report("lm")
    assert rep.to_markdown() in text


@pytest.mark.parametrize(
    ("name", "words"),
    [("bad_margin", ["--noninferiority-margin"]), ("bad_choice", ["invalid choice"]),
     ("bad_summary_dir", ["--summary-markdown"]), ("bad_one_input", ["two inputs"]),
     ("bad_metric", ["Unknown metric 'accuracy'", "acc_norm"]),
     ("bad_missing_policy", ["q07"]), ("bad_scorer_flag", ["--scorer"]),
     ("bad_two_flags", ["not allowed with"]), ("bad_absent", ["not found"]),
     ("bad_same_names", ["--names"])],
)  # fmt: skip
def test_cli_bad_input_exits_2(runs, name, words) -> None:
    run = runs[0][name]
    assert run.returncode == 2, (run.returncode, run.stdout, run.stderr)
    assert "Traceback" not in run.stderr
    if name == "bad_missing_policy" and "inspect" in run.stderr.lower():
        pytest.skip("inspect_ai is not installed")
    for word in words:
        assert word in run.stderr, (word, run.stderr)
    assert "Release gate" not in run.stdout


HOSTILE = "evil\x1b[31m\n# heading [link](http://x) ![img](y) `code` <b>\u202e"


def hostile_table(n: int = 40) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    names = ["base", HOSTILE, "c"]
    return pd.DataFrame({"case_id": np.tile(np.arange(n), 3), "model": np.repeat(names, n),
                         "score": rng.normal(size=3 * n)})  # fmt: skip


def assert_printable(text: str) -> None:
    """One line per row, nothing that drives a terminal or reorders the text."""
    for bad in ("\x1b", "\u202e"):
        assert bad not in text
    for line in text.splitlines():
        assert line.isprintable(), repr(line)


def test_printing_a_gate_or_several_models_escapes_the_labels() -> None:
    df = hostile_table()
    g = df.paired.compare(HOSTILE, "base", higher_is_better=True).report(
        rng=0, n_resamples=200, n_permutations=200).gate("not-a-better")  # fmt: skip
    assert_printable(str(g))
    assert len(str(g).splitlines()) == 1
    assert "evil\\x1b[31m\\n# heading" in str(g)  # escaped, as repr writes it
    many = df.paired.against("base", higher_is_better=True, rng=0, n_resamples=200)
    assert_printable(str(many))
    assert len(str(many).splitlines()) == 3  # the headline and one line per comparison
    assert_printable(str(many.ranks()))


def test_the_gate_markdown_holds_no_live_markdown_from_a_label() -> None:
    df = hostile_table()
    md = df.paired.compare(HOSTILE, "base", higher_is_better=True).report(
        rng=0, n_resamples=200, n_permutations=200).gate("not-a-better").to_markdown()  # fmt: skip
    assert md.count("\n") == 1  # one paragraph: a label's newline cannot start a heading
    assert_printable(md.rstrip("\n"))
    for live in ("[link](", "![img](", "`code`", "<b>"):
        assert live not in md
    assert "\\[link\\](http\\://x)" in md  # no link, no bare-URL autolink
    assert "&lt;b&gt;" in md


def test_the_command_line_gate_fails_when_a_test_disagrees(tmp_path: Path) -> None:
    """12 cases of 0/1 scores, 5 discordant pairs all won by A: the interval excludes 0, the
    exact binomial test does not reject (p = 0.0625); the printed headline says so and
    ``--fail-on not-a-better`` fails the job while ``--fail-on b-better`` passes it."""
    if SCRIPT is None:
        pytest.skip("the `pdpaired` console script is not installed (pip install -e . creates it)")
    win = [1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 0]
    lose = [0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0]
    long = pd.concat(
        pd.DataFrame({"case_id": range(12), "model": m, "score": s})
        for m, s in (("cand", win), ("base", lose))
    )
    path = tmp_path / "dozen.csv"
    long.to_csv(path, index=False)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONWARNINGS"}
    base = ["compare", str(path), "--long", "--a", "cand", "--b", "base", "--score", "score",
            "--higher-is-better", *FAST]  # fmt: skip
    out = {}
    for cond in ("not-a-better", "b-better"):
        proc = subprocess.run([SCRIPT, *base, "--fail-on", cond], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
        out[cond] = proc
    first = out["not-a-better"].stdout.splitlines()[0]
    assert first.startswith("Verdict: cand is better than base")
    assert "Not established: a_better by the interval" in first
    assert "exact binomial test does not reject no difference (p = 0.0625" in first
    assert out["not-a-better"].returncode == 1, out["not-a-better"].stderr
    assert out["b-better"].returncode == 0, out["b-better"].stderr
    assert "Not established" in out["not-a-better"].stdout.split("Release gate")[-1]
