"""``pdpaired compare --sacrebleu`` and ``--trec``: text and retrieval files on the command line.

Each run is checked against the Python API on the same files and seed (the
same interval, bit for bit), its artifact verifies and records every file's
role and digest (and, for runs, the queries left unanswered), and bad flag
combinations exit 2 with one line saying which rule.
"""

from __future__ import annotations

import hashlib
import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import pdpaired
from pdpaired.cli.main import main
from pdpaired.io import read_sacrebleu, read_trec

pytest.importorskip("sacrebleu")
pytest.importorskip("ir_measures")


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("corpus")
    rng = np.random.default_rng(0)
    vocab = [f"w{i}" for i in range(100)]
    refs = [" ".join(rng.choice(vocab, rng.integers(4, 16))) for _ in range(150)]
    out = {}

    def write(name: str, lines: list[str]) -> None:
        out[name] = d / f"{name}.txt"
        out[name].write_text("\n".join(lines) + "\n")

    write("ref", refs)
    for name, p in (("sys_a", 0.25), ("sys_b", 0.3), ("sys_c", 0.35)):
        write(name, [" ".join(w if rng.random() > p else str(rng.choice(vocab))
                              for w in r.split()) for r in refs])  # fmt: skip
    write("docs", [f"doc{i // 5}" for i in range(150)])
    qrels = [f"q{q} 0 d{q}_{k} {int(rng.random() < 0.3)}" for q in range(50) for k in range(12)]
    write("qrels", qrels)
    for name in ("run_a", "run_b"):
        lines = []
        for q in range(50):
            if name == "run_b" and q == 7:
                continue
            for rank, k in enumerate(rng.permutation(12)):
                lines.append(f"q{q} Q0 d{q}_{k} {rank + 1} {12 - rank} {name}")
        write(name, lines)
    return out


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_sacrebleu_equals_the_python_api(files, tmp_path: Path, capsys) -> None:
    out = tmp_path / "bleu"
    code, stdout, _ = run(["compare", "--sacrebleu", str(files["ref"]), str(files["sys_a"]),
                           str(files["sys_b"]), "--metric", "bleu", "--documents",
                           str(files["docs"]), "--seed", "0", "--resamples", "2000",
                           "--permutations", "500", "--out", str(out)], capsys)  # fmt: skip
    assert code == 0
    df = read_sacrebleu(files["ref"], {"sys_a": files["sys_a"], "sys_b": files["sys_b"]},
                        documents=files["docs"])  # fmt: skip
    rep = df.paired(group="document").compare("sys_a", "sys_b", metric=pdpaired.metrics.bleu())
    rep = rep.report(n_resamples=2000, n_permutations=500, rng=0)
    art = json.loads((out / "comparison.json").read_text())
    assert art["interval"]["low"] == rep.bootstrap.confidence_interval.low
    assert art["interval"]["high"] == rep.bootstrap.confidence_interval.high
    assert art["metric"]["name"] == "bleu"
    assert art["metric"]["task"] == "statistics"
    assert "cluster over whole groups, 150 cases in 30 groups" in stdout
    roles = [(x["role"], x.get("model")) for x in art["local"]["inputs"]]
    assert roles == [("reference", None), ("system", "sys_a"), ("system", "sys_b"),
                     ("documents", None)]  # fmt: skip
    digest = hashlib.sha256(files["sys_a"].read_bytes()).hexdigest()
    assert art["local"]["inputs"][1]["sha256"] == digest
    assert main(["verify", str(out / "comparison.json")]) == 0
    assert main(["verify", str(out / "comparison.shareable.json")]) == 0


def test_sacrebleu_other_metrics_and_several_systems(files, capsys) -> None:
    code, stdout, _ = run(["compare", "--sacrebleu", str(files["ref"]), str(files["sys_a"]),
                           str(files["sys_b"]), "--metric", "ter", "--seed", "0",
                           "--resamples", "500", "--permutations", "0"], capsys)  # fmt: skip
    assert code == 0
    assert "ter (lower is better)" in stdout
    code, stdout, _ = run(["compare", "--sacrebleu", str(files["ref"]), str(files["sys_a"]),
                           str(files["sys_b"]), str(files["sys_c"]), "--metric", "chrf++",
                           "--baseline", "sys_c", "--seed", "0", "--resamples", "500"],
                          capsys)  # fmt: skip
    assert code == 0
    assert "sys_a vs sys_c" in stdout
    assert "sys_b vs sys_c" in stdout


def test_trec_records_unanswered_queries(files, tmp_path: Path, capsys) -> None:
    out = tmp_path / "trec"
    code, stdout, stderr = run(["compare", "--trec", str(files["qrels"]), str(files["run_a"]),
                                str(files["run_b"]), "--metric", "nDCG@10", "--seed", "0",
                                "--resamples", "1000", "--permutations", "500", "--out",
                                str(out)], capsys)  # fmt: skip
    assert code == 0
    assert "unanswered (each scores 0): run_b: 1 ('q7')" in stderr
    assert "mean nDCG@10" in stdout
    assert "50 cases" in stdout
    art = json.loads((out / "comparison.json").read_text())
    run_b = next(x for x in art["local"]["inputs"] if x.get("model") == "run_b")
    assert run_b["role"] == "run"
    assert run_b["unanswered"] == ["q7"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = read_trec(files["qrels"], {"run_a": files["run_a"], "run_b": files["run_b"]},
                       measures="nDCG@10")  # fmt: skip
    res = df.paired(score="score").bootstrap("run_a", "run_b", higher_is_better=True,
                                             n_resamples=1000, rng=0)  # fmt: skip
    assert art["improvement_a_over_b"] == res.improvement
    assert main(["verify", str(out / "comparison.json")]) == 0


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--sacrebleu", "ref", "sys_a"], "--sacrebleu takes REF and then one file per system"),
        (["--sacrebleu", "ref", "sys_a", "sys_b", "--metric", "meteor"], "--metric must be one"),
        (["--sacrebleu", "ref", "sys_a", "sys_b", "--higher-is-better"], "do not apply"),
        (["--sacrebleu", "ref", "sys_a", "sys_b", "--metric", "ter", "--tokenize", "intl"],
         "--tokenize applies to --metric bleu"),
        (["--sacrebleu", "ref", "sys_a", "sys_b", "--score", "x"], "--score does not apply"),
        (["--sacrebleu", "ref", "sys_a", "sys_b", "sys_c"], "add --baseline NAME or --all-pairs"),
        (["--sacrebleu", "ref", "sys_a", "qrels"], "one line per segment"),
        (["--trec", "qrels", "run_a", "run_b"], "--trec needs --metric"),
        (["--trec", "qrels", "run_a", "run_b", "--metric", "nDCG@ten"], "Unknown measure"),
        (["--trec", "qrels", "run_a", "run_b", "--metric", "AP", "--documents", "docs"],
         "--documents applies to --sacrebleu, not --trec"),
        (["sys_a", "sys_b", "--documents", "docs"], "--documents applies to --sacrebleu"),
        (["--sacrebleu", "--trec", "ref", "sys_a", "sys_b"], "not allowed with argument"),
    ],
)  # fmt: skip
def test_bad_flags_exit_2_with_the_rule(files, capsys, extra, message) -> None:
    argv = ["compare"] + [str(files[a]) if a in files else a for a in extra]
    code, _, stderr = run(argv, capsys)
    assert code == 2
    assert message in stderr
    assert "Traceback" not in stderr
