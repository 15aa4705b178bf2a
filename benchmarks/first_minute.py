"""The first minute: import, the CLI and the first call, each against its same-run baseline.

Run from the repository root, in the environment to measure::

    python benchmarks/first_minute.py             # median of 7 fresh processes each
    python benchmarks/first_minute.py --repeats 3 --out first-minute.md

Every number is the median wall time of fresh processes, alternated with their
baseline in the same run (so a busy machine inflates both alike):

* ``import pdpaired`` against ``import pandas`` (target: at most 1.3x);
* ``pdpaired compare`` on two 1,000-case CSV files (RMSE of a regression, AUROC
  of a classifier; the CLI's defaults: 10,000 resamples, 5,000 permutations)
  against ``import pandas`` (target: at most 2.5x);
* the first bootstrap on 1,000 cases in a process, with the default engine
  choice, against the same call on the NumPy engine (target: at most 1.5x).

Bytecode: a wheel install compiles every module once; run from a checkout with
``PYTHONDONTWRITEBYTECODE`` set, each process compiles pdpaired's sources again
(about 0.1 s), which this script reports but does not hide.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

FIRST_CALL = """
import time
import numpy as np, pandas as pd
import pdpaired
rng = np.random.default_rng(1)
n = 1000
df = pd.DataFrame({"case_id": np.tile(np.arange(n), 2), "model": np.repeat(["A", "B"], n),
                   "score": rng.normal(size=2 * n)})
cmp = df.paired.compare("A", "B", higher_is_better=True)
t = time.perf_counter()
res = cmp.bootstrap(n_resamples=10_000, rng=0)
print(time.perf_counter() - t, res.engine)
"""


def write_inputs(folder: Path) -> dict[str, list[str]]:
    """Two 1,000-case files per task; return the CLI arguments of each."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(3)
    n = 1000
    t = rng.normal(size=n)
    y = rng.integers(0, 2, n)
    frames = {
        "ra.csv": {"target": t, "prediction": t + rng.normal(0, 1.0, n)},
        "rb.csv": {"target": t, "prediction": t + rng.normal(0, 1.1, n)},
        "ca.csv": {"target": y, "p": np.clip(0.35 * y + 0.65 * rng.random(n), 0, 1)},
        "cb.csv": {"target": y, "p": np.clip(0.30 * y + 0.70 * rng.random(n), 0, 1)},
    }
    for name, cols in frames.items():
        pd.DataFrame({"id": np.arange(n), **cols}).to_csv(folder / name, index=False)
    common = ["--id-column", "id", "--target", "target"]
    return {
        "rmse": ["compare", "ra.csv", "rb.csv", *common, "--prediction-column", "prediction",
                 "--metric", "rmse"],
        "auroc": ["compare", "ca.csv", "cb.csv", *common, "--prediction-column", "p",
                  "--metric", "auroc", "--class-labels", "0", "1"],
    }  # fmt: skip


def wall(cmd: Sequence[str], cwd: Path, env: dict[str, str]) -> float:
    """Wall seconds of one fresh process (its output discarded; a failure raises)."""
    t = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)  # fmt: skip
    return time.perf_counter() - t


def first_call(cwd: Path, env: dict[str, str], accelerator: str) -> tuple[float, str]:
    out = subprocess.run([sys.executable, "-c", FIRST_CALL], cwd=cwd, check=True,
                         env=dict(env, PDPAIRED_ACCELERATOR=accelerator),
                         capture_output=True, text=True).stdout.split()  # fmt: skip
    return float(out[0]), out[1]


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=7, help="fresh processes per timing")
    ap.add_argument("--out", type=Path, help="also write the Markdown report here")
    args = ap.parse_args(argv)
    env = {k: v for k, v in os.environ.items() if k != "PDPAIRED_ACCELERATOR"}
    py = sys.executable
    cli = shutil.which("pdpaired", path=str(Path(py).parent)) or "pdpaired"
    runs: dict[str, list[float]] = {}
    engines: set[str] = set()
    with tempfile.TemporaryDirectory(prefix="pdpaired-first-minute-") as tmp:
        cwd = Path(tmp)
        tasks = write_inputs(cwd)
        timed = {
            "import pandas": [py, "-c", "import pandas"],
            "import pdpaired": [py, "-c", "import pdpaired"],
            **{f"pdpaired compare ({k})": [cli, *v] for k, v in tasks.items()},
        }
        for cmd in timed.values():  # warm the file cache (and write bytecode where allowed)
            wall(cmd, cwd, env)
        for _ in range(args.repeats):
            for label, cmd in timed.items():
                runs.setdefault(label, []).append(wall(cmd, cwd, env))
            for accelerator in ("auto", "numpy"):
                seconds, engine = first_call(cwd, env, accelerator)
                runs.setdefault(f"first bootstrap ({accelerator})", []).append(seconds)
                if accelerator == "auto":
                    engines.add(engine)
    med = {k: statistics.median(v) for k, v in runs.items()}
    base = med["import pandas"]
    rows = [
        ("import pdpaired / import pandas", med["import pdpaired"] / base, 1.3),
        *(
            (f"{k} / import pandas", med[k] / base, 2.5)
            for k in med
            if k.startswith("pdpaired compare")
        ),
        ("first bootstrap, default engine / numpy engine",
         med["first bootstrap (auto)"] / med["first bootstrap (numpy)"], 1.5),
    ]  # fmt: skip
    lines = [
        "# The first minute",
        "",
        f"Python {sys.version.split()[0]}, median of {args.repeats} fresh processes each; "
        f"PYTHONDONTWRITEBYTECODE={os.environ.get('PYTHONDONTWRITEBYTECODE', '') or 'unset'}; "
        f"numba {'installed' if _has('numba') else 'not installed'}, "
        f"hypothesis {'installed' if _has('hypothesis') else 'not installed'}; "
        f"default engine of the first bootstrap: {', '.join(sorted(engines))}.",
        "",
        "| what | median s |",
        "|---|---:|",
        *(f"| {k} | {v:.3f} |" for k, v in med.items()),
        "",
        "| ratio | measured | target | |",
        "|---|---:|---:|---|",
        *(f"| {k} | {r:.2f} | ≤ {t} | {'met' if r <= t else '**NOT met**'} |" for k, r, t in rows),
        "",
    ]
    text = "\n".join(lines)
    print(text)
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    return 0


def _has(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


if __name__ == "__main__":
    raise SystemExit(main())
