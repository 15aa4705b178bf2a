"""The command line never prints a traceback: what the machine cannot do, hostile values
in logs, a missing extra, Ctrl-C, a closed pipe and files that are not regular files each
end with one line and a documented exit status."""

from __future__ import annotations

import importlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pdpaired._lib import validation
from pdpaired.cli.main import EXIT_CLOSED_PIPE, EXIT_INTERRUPTED, main

cli_main = importlib.import_module("pdpaired.cli.main")  # the module (the package's `main` is
# the function)
ROOT = Path(__file__).resolve().parents[2]
LM_EVAL = ROOT / "tests" / "data" / "lm_eval" / "runs"


def two_files(folder: Path, n: int = 200, scale: float = 1.0) -> list[str]:
    rng = np.random.default_rng(0)
    t = rng.normal(size=n)
    for name, sd in (("a.csv", 1.0), ("b.csv", 1.2)):
        pd.DataFrame({"id": np.arange(n), "target": t * scale,
                      "prediction": (t + rng.normal(0, sd, n)) * scale}).to_csv(
            folder / name, index=False)  # fmt: skip
    return [str(folder / "a.csv"), str(folder / "b.csv"), "--id-column", "id", "--target",
            "target", "--prediction-column", "prediction", "--metric", "rmse"]  # fmt: skip


def one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ")
    assert "Traceback" not in err
    return lines[0]


def test_memory_beyond_the_machine_is_refused_up_front_with_the_figure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = two_files(tmp_path)
    assert main(["compare", *args, "--resamples", str(10**12), "--out", str(tmp_path / "o")]) == 2
    line = one_line_error(capsys)
    assert "--resamples=1,000,000,000,000 needs about 21.8 TiB" in line
    assert "available" in line
    assert not (tmp_path / "o").exists()
    assert main(["compare", *args, "--permutations", str(10**12)]) == 2
    assert "--permutations=1,000,000,000,000 needs about" in one_line_error(capsys)


def test_the_python_api_refuses_the_same_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(validation, "available_memory", lambda: 1 << 20)  # 1 MiB left
    n = 50
    df = pd.DataFrame({"case_id": np.tile(np.arange(n), 2), "model": np.repeat(["A", "B"], n),
                       "score": np.random.default_rng(3).normal(size=2 * n)})  # fmt: skip
    cmp = df.paired.compare("A", "B", higher_is_better=True)
    with pytest.raises(ValueError, match=r"`n_resamples`=100,000 needs about 2.29 MiB of memory"):
        cmp.bootstrap(n_resamples=100_000)
    with pytest.raises(ValueError, match=r"`n_permutations`=50,000 needs about 1.14 MiB"):
        cmp.randomization(n_permutations=50_000)
    cmp.bootstrap(n_resamples=40_000, rng=0)  # 0.92 MiB: fits
    monkeypatch.setattr(validation, "available_memory", lambda: None)  # not known: no limit
    cmp.bootstrap(n_resamples=100_000, rng=0)


@pytest.mark.parametrize(
    ("handler_input", "expected"),
    [
        (MemoryError("Unable to allocate 7.28 TiB"), "not enough memory for this run"),
        (ImportError('read_inspect needs inspect_ai: pip install "pdpaired[inspect]"'),
         'pip install "pdpaired[inspect]"'),
        (RecursionError("maximum recursion depth exceeded"), "RecursionError: maximum"),
        (OverflowError("int too large to convert to float"), "OverflowError: int too large"),
    ],
)  # fmt: skip
def test_what_the_machine_cannot_do_is_one_line_and_status_2(
    handler_input: BaseException,
    expected: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    def fails(args: object) -> int:
        raise handler_input

    monkeypatch.setattr(cli_main, "verify", fails)
    assert main(["verify", "x.json"]) == 2
    assert expected in one_line_error(capsys)


def lm_eval_copy(tmp_path: Path) -> tuple[Path, Path]:
    runs = tmp_path / "runs"
    shutil.copytree(LM_EVAL, runs)
    for samples in runs.glob("*/*/samples_tiny_words_*.jsonl"):
        samples.unlink()  # one task, whose metric is acc
    (small,) = runs.glob("small/small/samples_tiny_arith_*.jsonl")
    return runs, small


def test_an_integer_beyond_float64_in_a_log_names_the_file_and_the_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs, small = lm_eval_copy(tmp_path)
    lines = small.read_text(encoding="utf-8").splitlines()
    rec = json.loads(lines[3])
    rec["acc"] = 10**400
    lines[3] = json.dumps(rec)
    small.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code = main(["compare", "--lm-eval", str(runs / "small"), str(runs / "large"),
                 "--metric", "acc"])  # fmt: skip
    assert code == 2
    line = one_line_error(capsys)
    assert small.name in line
    assert f"document {rec['doc_id']!r}" in line
    assert "beyond float64's range" in line


def test_a_deeply_nested_json_line_names_the_file_and_the_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs, small = lm_eval_copy(tmp_path)
    lines = small.read_text(encoding="utf-8").splitlines()
    lines[1] = "[" * 200_000 + "]" * 200_000
    small.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code = main(["compare", "--lm-eval", str(runs / "small"), str(runs / "large"),
                 "--metric", "acc"])  # fmt: skip
    assert code == 2
    line = one_line_error(capsys)
    assert f"{small.name}' line 2 is not JSON: nested too deeply" in line


def test_scores_that_overflow_float64_are_refused_before_any_artifact(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = np.random.default_rng(1)
    n = 50
    df = pd.DataFrame({"case_id": np.tile(np.arange(n), 2), "model": np.repeat(["A", "B"], n),
                       "score": rng.uniform(-1, 1, 2 * n) * 1.7e308})  # fmt: skip
    df.to_csv(tmp_path / "huge.csv", index=False)
    args = ["compare", str(tmp_path / "huge.csv"), "--long", "--a", "A", "--b", "B",
            "--score", "score", "--higher-is-better", "--out", str(tmp_path / "o")]  # fmt: skip
    assert main(args) == 2
    assert "too large to add up in float64" in one_line_error(capsys)
    assert not (tmp_path / "o").exists()
    with pytest.raises(ValueError, match="too large to add up in float64"):
        df.paired.compare("A", "B", higher_is_better=True)


def test_scores_near_the_top_of_float64_give_a_finite_bca_interval_that_verifies(
    tmp_path: Path,
) -> None:
    rng = np.random.default_rng(2)
    n = 50
    df = pd.DataFrame({"case_id": np.tile(np.arange(n), 2), "model": np.repeat(["A", "B"], n),
                       "score": rng.uniform(-1, 1, 2 * n) * 1e305})  # fmt: skip
    with np.errstate(over="raise"):  # no overflow on the way (BCa's cubes, the replicates' SD)
        res = df.paired.bootstrap("A", "B", higher_is_better=True, method="bca", rng=0,
                                  n_resamples=2000)  # fmt: skip
    # the same data scaled down by a power of two (exact) gives the same interval, scaled
    small = df.assign(score=np.ldexp(df["score"], -1000))
    ref = small.paired.bootstrap("A", "B", higher_is_better=True, method="bca", rng=0,
                                 n_resamples=2000)  # fmt: skip
    assert np.ldexp(ref.confidence_interval.low, 1000) == pytest.approx(
        res.confidence_interval.low, rel=1e-12)  # fmt: skip
    assert np.ldexp(ref.standard_error, 1000) == pytest.approx(res.standard_error, rel=1e-12)
    df.to_csv(tmp_path / "big.csv", index=False)
    out = tmp_path / "o"
    assert main(["compare", str(tmp_path / "big.csv"), "--long", "--a", "A", "--b", "B",
                 "--score", "score", "--higher-is-better", "--method", "bca",
                 "--resamples", "500", "--permutations", "200",
                 "--out", str(out)]) == 0  # fmt: skip
    assert main(["verify", str(out / "comparison.json")]) == 0


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_only_regular_files_are_read(tmp_path: Path) -> None:
    fifo = tmp_path / "comparison.json"
    os.mkfifo(fifo)
    args = two_files(tmp_path)
    for cmd in (["verify", str(fifo)], ["compare", str(fifo), *args[1:]]):
        # a subprocess with a timeout: reading a FIFO would wait for a writer forever
        proc = subprocess.run([sys.executable, "-m", "pdpaired", *cmd], capture_output=True,
                              text=True, timeout=120, check=False)  # fmt: skip
        assert proc.returncode == 2, proc.stderr
        assert "not a regular file" in proc.stderr
        assert "Traceback" not in proc.stderr


def test_ctrl_c_exits_130_with_one_line(tmp_path: Path) -> None:
    args = two_files(tmp_path, n=2000)
    cmd = [sys.executable, "-m", "pdpaired", "compare", *args, "--resamples", "20000000"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    time.sleep(4)  # past start-up: inside the bootstrap
    err = None
    try:
        # Ctrl-C until it stops, as a user would: a signal that lands while the
        # interpreter is still starting (slow under a loaded machine or coverage)
        # can be lost before Python's handler is in place
        for _ in range(60):
            proc.send_signal(signal.SIGINT)
            try:
                _, err = proc.communicate(timeout=2)
                break
            except subprocess.TimeoutExpired:
                continue
    finally:  # never leave it running for the next test to find
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == EXIT_INTERRUPTED
    assert err == "interrupted\n"


def test_a_closed_pipe_exits_quietly(tmp_path: Path) -> None:
    args = two_files(tmp_path)
    read_end, write_end = os.pipe()
    os.close(read_end)  # `| head` that has already exited
    cmd = [sys.executable, "-m", "pdpaired", "compare", *args, "--resamples", "200",
           "--permutations", "200"]  # fmt: skip
    proc = subprocess.run(cmd, stdout=write_end, stderr=subprocess.PIPE, text=True,
                          timeout=120, check=False)  # fmt: skip
    os.close(write_end)
    assert proc.returncode == EXIT_CLOSED_PIPE
    assert proc.stderr == ""


def test_the_console_script_skips_only_the_final_collection(tmp_path: Path) -> None:
    # the console entry point freezes what is left after main() (no final cycle collection);
    # what it wrote is complete: the artifact verifies, stdout holds the whole report
    args = ["compare", *two_files(tmp_path), "--resamples", "300", "--permutations", "300",
            "--out", str(tmp_path / "out")]  # fmt: skip
    code = (
        "import gc, sys\nfrom pdpaired.cli import console\n"
        f"status = console({args!r})\nprint('frozen', gc.get_freeze_count() > 0)\n"
        "raise SystemExit(status)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=False)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.rstrip().endswith("frozen True")
    assert "Verdict" in proc.stdout
    assert main(["verify", str(tmp_path / "out" / "comparison.json")]) == 0
