"""``save`` is all-or-none under SIGKILL at any moment and under a concurrent writer.

A forked child saves a new set over an old one and is SIGKILLed right after
its N-th filesystem step (every fsync, link, chmod, rename, exchange and
removal), for N = 1, 2, ... until it runs to the end: after every kill the
directory holds exactly the old set or exactly the new one (byte for byte),
and the next save leaves the new set and nothing else -- no staging
directory, no displaced set, no temporary. The same with the exchange
unavailable (the two-rename fallback), where a kill between the renames
leaves the old set aside and the next save puts it back. Two writers with
slowed renames take turns under the lock, and a reader that opens the
directory once sees three files of one run at every moment. The directory's
other files stay, stale signatures go, subdirectories and the working
directory are refused.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import pdpaired

FILES = ("comparison.json", "comparison.shareable.json", "comparison.md")

FRAME = """
import numpy as np, pandas as pd, pdpaired
rng = np.random.default_rng(5)
n = 80
b = rng.normal(size=n)
df = pd.DataFrame({"case_id": np.tile(np.arange(n), 2), "model": np.repeat(["A", "B"], n),
                   "score": np.r_[b + 0.3 + rng.normal(0, 1, n), b]})
def report(seed):
    return df.paired.compare("A", "B", higher_is_better=True).report(
        n_resamples=200, n_permutations=200, rng=seed)
"""


def sets(tmp: Path) -> dict[str, dict[str, bytes]]:
    """The old (seed 0) and new (seed 1) sets, saved in their own directories."""
    code = FRAME + f"report(0).save({str(tmp / 'old')!r}); report(1).save({str(tmp / 'new')!r})"
    subprocess.run([sys.executable, "-c", code], check=True, timeout=300)
    return {k: {f: (tmp / k / f).read_bytes() for f in FILES} for k in ("old", "new")}


def contents(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in out.iterdir()} if out.is_dir() else {}


def leftovers(parent: Path, name: str) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if p.name.startswith(f".{name}."))


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, bytes]]:
    return sets(tmp_path_factory.mktemp("sets"))


def killed_save(rep: pdpaired.ComparisonReport, out: Path, kill_at: int, fallback: bool) -> int:
    """Save ``rep`` in a forked child SIGKILLed right after its ``kill_at``-th filesystem step.

    Returns the child's wait status (signal 9 when killed, exit 0 when the save
    had fewer steps). The steps: every fsync, link, chmod, rename, exchange
    and removal of a tree.
    """
    pid = os.fork()
    if pid:
        return os.waitpid(pid, 0)[1]
    try:  # the child: count the steps, die at one of them
        from pdpaired.artifacts import write as w

        steps = [0]

        def counted(fn: Any) -> Any:
            def step(*a: Any, **k: Any) -> Any:
                r = fn(*a, **k)
                steps[0] += 1
                if steps[0] == kill_at:
                    os.kill(os.getpid(), signal.SIGKILL)
                return r

            return step

        for mod, name in ((os, "fsync"), (os, "link"), (os, "chmod"), (os, "rename"),
                          (shutil, "rmtree")):  # fmt: skip
            setattr(mod, name, counted(getattr(mod, name)))
        w._exchange = counted((lambda a, b: False) if fallback else w._exchange)
        rep.save(out)
    finally:
        os._exit(0)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork (POSIX)")
@pytest.mark.parametrize("fallback", [False, True], ids=["exchange", "two-renames"])
def test_a_kill_after_every_filesystem_step_leaves_one_whole_set(
    both: dict[str, dict[str, bytes]], tmp_path: Path, fallback: bool
) -> None:
    old, new = both["old"], both["new"]
    rep = report(1)
    killed = 0
    for kill_at in range(1, 40):
        parent = tmp_path / f"run{kill_at}"
        out = parent / "reports"
        out.mkdir(parents=True)
        for name, data in old.items():
            (out / name).write_bytes(data)
        status = killed_save(rep, out, kill_at, fallback)
        if os.WIFEXITED(status):  # fewer steps than kill_at: the run completed
            assert os.WEXITSTATUS(status) == 0
            assert contents(out) == new
            assert leftovers(parent, "reports") == []
            break
        assert os.WIFSIGNALED(status)
        assert os.WTERMSIG(status) == signal.SIGKILL
        killed += 1
        seen = contents(out)
        if fallback and not seen:  # killed between the two renames: the old set is aside
            (aside,) = [p for p in parent.iterdir() if p.name.endswith(".old")]
            assert contents(aside) == old
        else:
            assert seen in (old, new), (kill_at, sorted(seen))
        # the next save cleans what the kill left and writes its set
        pdpaired.verify(rep.save(out)["local"])
        assert leftovers(parent, "reports") == []
        assert contents(out) == new
    else:
        pytest.fail("the save never completed")
    assert killed == (11 if fallback else 8)  # every step of the save was interrupted


def report(seed: int) -> pdpaired.ComparisonReport:
    return frame().paired.compare("A", "B", higher_is_better=True).report(
        n_resamples=200, n_permutations=200, rng=seed)  # fmt: skip


def frame() -> pd.DataFrame:
    rng = np.random.default_rng(5)
    n = 80
    b = rng.normal(size=n)
    return pd.DataFrame({"case_id": np.tile(np.arange(n), 2), "model": np.repeat(["A", "B"], n),
                         "score": np.r_[b + 0.3 + rng.normal(0, 1, n), b]})  # fmt: skip


WRITER = (
    FRAME
    + """
import os, sys, time
real = os.rename
def slow(a, b):
    time.sleep(0.15)
    real(a, b)
os.rename = slow
from pdpaired.artifacts import write as w
w._exchange = lambda a, b: False  # the two-rename fallback: the slowest, most exposed path
seed, out = int(sys.argv[1]), sys.argv[2]
rep = report(seed)
for _ in range(3):
    rep.save(out)
"""
)


def test_two_writers_take_turns_and_a_reader_always_sees_one_run(tmp_path: Path) -> None:
    out = tmp_path / "reports"
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(seed), str(out)])
               for seed in (0, 1)]  # fmt: skip
    seen_sets = 0
    deadline = time.monotonic() + 240
    while any(w.poll() is None for w in writers) and time.monotonic() < deadline:
        try:
            fd = os.open(out, os.O_RDONLY)
        except FileNotFoundError:
            continue  # not written yet, or between the fallback's two renames
        try:
            texts = {}
            for name in FILES:
                try:
                    with open(os.open(name, os.O_RDONLY, dir_fd=fd), "rb") as f:
                        texts[name] = f.read()
                except FileNotFoundError:
                    texts = {}
                    break
        finally:
            os.close(fd)
        if texts:
            local = json.loads(texts["comparison.json"])
            shared = json.loads(texts["comparison.shareable.json"])
            assert local["interval"]["seed"] == shared["interval"]["seed"]
            assert f"seed {local['interval']['seed']}" in texts["comparison.md"].decode()
            seen_sets += 1
        time.sleep(0.01)
    for w in writers:
        assert w.wait(timeout=60) == 0
    assert seen_sets > 0
    assert sorted(p.name for p in out.iterdir()) == sorted(FILES)
    assert leftovers(tmp_path, "reports") == []
    for name in ("comparison.json", "comparison.shareable.json"):
        pdpaired.verify(out / name)


def test_other_files_stay_and_stale_signatures_go(tmp_path: Path) -> None:
    out = tmp_path / "reports"
    out.mkdir()
    (out / "README.txt").write_text("mine", encoding="utf-8")
    (out / "comparison.json.sig").write_text("an old signature", encoding="utf-8")
    (out / ".comparison.md.x1y2.tmp").write_text("left by an older writer", encoding="utf-8")
    (tmp_path / "elsewhere.txt").write_text("theirs", encoding="utf-8")
    os.symlink(tmp_path / "elsewhere.txt", out / "link.txt")
    rep = frame().paired.compare("A", "B", higher_is_better=True).report(
        n_resamples=200, n_permutations=200, rng=0)  # fmt: skip
    rep.save(out)
    assert sorted(p.name for p in out.iterdir()) == sorted([*FILES, "README.txt", "link.txt"])
    assert (out / "README.txt").read_text(encoding="utf-8") == "mine"
    assert (out / "link.txt").is_symlink()  # a link stays a link, to the same file
    assert (out / "link.txt").read_text(encoding="utf-8") == "theirs"


def test_subdirectories_and_the_working_directory_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rep = frame().paired.compare("A", "B", higher_is_better=True).report(
        n_resamples=200, n_permutations=200, rng=0)  # fmt: skip
    out = tmp_path / "reports"
    (out / "plots").mkdir(parents=True)
    with pytest.raises(IsADirectoryError, match=r"not a regular file .*plots"):
        rep.save(out)
    assert sorted(p.name for p in out.iterdir()) == ["plots"]
    assert leftovers(tmp_path, "reports") == []
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    with pytest.raises(IsADirectoryError, match="working directory"):
        rep.save(".")
    assert list(here.iterdir()) == []
