"""Line and branch coverage of pdpaired's layers, from a ``.coverage`` data file.

``make test`` runs the suite under coverage.py (``--cov=pdpaired
--cov-branch``) and then this script, which prints the line and branch
coverage of each module of the *core* and *pairs* layers (read from the
import-linter contract in ``pyproject.toml``) and of each layer, and exits
non-zero when a layer is below its targets (95% of lines, 90% of
branches)::

    python tools/coverage_layers.py [--data .coverage] [--no-fail]

``pdpaired/_kernels.py`` is left out of the figures: its functions are
numba-compiled, which coverage.py cannot trace; the tests check every
kernel bit for bit against the NumPy path instead.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("core", "pairs")
LINE_TARGET, BRANCH_TARGET = 95.0, 90.0
UNTRACEABLE = {"_kernels"}  # numba-compiled


def layer_modules() -> dict[str, list[str]]:
    """Module names of the core and pairs layers, from the import-linter contract."""
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contract = next(c for c in cfg["tool"]["importlinter"]["contracts"] if c["id"] == "layers")
    layers = contract["layers"]  # front ends, analysis, pairs, core, leaf
    pick = {"pairs": layers[2], "core": layers[3]}
    return {k: [m.strip() for m in v.split(":")] for k, v in pick.items()}


def main(argv: list[str] | None = None) -> int:
    import coverage

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(ROOT / ".coverage"))
    parser.add_argument("--no-fail", action="store_true", help="report only")
    args = parser.parse_args(argv)
    cov = coverage.Coverage(data_file=args.data)
    cov.load()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "coverage.json"
        cov.json_report(
            outfile=str(out), include=[str(ROOT / "pdpaired" / "*.py")], ignore_errors=True
        )  # a test writes and removes a module
        files = json.loads(out.read_text(encoding="utf-8"))["files"]
    summary = {Path(k).stem: v["summary"] for k, v in files.items()}
    failed = []
    print(f"{'module':28} {'lines':>13} {'line %':>7} {'branches':>13} {'branch %':>8}")
    for layer, modules in layer_modules().items():
        tot = [0, 0, 0, 0]  # statements, missing, branches, missing branches
        for mod in modules:
            if mod in UNTRACEABLE:
                continue
            s = summary.get(mod)
            if s is None:  # never imported
                print(f"{layer + '/' + mod:28} not measured")
                failed.append(f"{mod}: not measured")
                continue
            row = [s["num_statements"], s["missing_lines"], s["num_branches"],
                   s["missing_branches"]]  # fmt: skip
            tot = [a + b for a, b in zip(tot, row, strict=True)]
            line_pct = 100.0 * (1 - row[1] / max(1, row[0]))
            br_pct = 100.0 * (1 - row[3] / max(1, row[2]))
            print(f"{layer + '/' + mod:28} {row[0] - row[1]:6d}/{row[0]:<6d}"
                  f" {line_pct:6.1f}% {row[2] - row[3]:6d}/{row[2]:<6d} {br_pct:7.1f}%")  # fmt: skip
        line_pct = 100.0 * (1 - tot[1] / max(1, tot[0]))
        br_pct = 100.0 * (1 - tot[3] / max(1, tot[2]))
        print(f"{'= ' + layer:28} {tot[0] - tot[1]:6d}/{tot[0]:<6d} {line_pct:6.1f}% "
              f"{tot[2] - tot[3]:6d}/{tot[2]:<6d} {br_pct:7.1f}%")  # fmt: skip
        if line_pct < LINE_TARGET or br_pct < BRANCH_TARGET:
            failed.append(f"{layer}: {line_pct:.1f}% lines, {br_pct:.1f}% branches")
    if failed:
        print(f"below the targets ({LINE_TARGET:g}% lines, {BRANCH_TARGET:g}% branches): "
              + "; ".join(failed))  # fmt: skip
        return 0 if args.no_fail else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
