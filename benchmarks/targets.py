"""pdpaired's benchmark: same-run ratio tables and the targets table.

Run from the repository root (``make bench`` runs the first line)::

    python benchmarks/targets.py                      # every family, ~15-20 min on 2 cores
    python benchmarks/targets.py --quick              # small sizes, a few minutes
    python benchmarks/targets.py --full               # no extrapolation at n = 1e6
    python benchmarks/targets.py --only randomization # bootstrap, randomization, auroc, slices

It imports the asv-style classes of ``benchmarks/benchmarks/`` (one module per method
family), times each planned parameter combination in this process (best of up to
``--repeats`` calls after ``setup``'s warm-up call), measures the peak extra memory of
a call, and writes the Markdown report to ``benchmarks/results/`` (``latest.md``,
``latest-PART.md`` with ``--only``, ``quick*.md`` with ``--quick``; ``--out`` to change).
"""

from __future__ import annotations

import argparse
import importlib
import os
import shutil
import sys
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # the `benchmarks` package and the helpers

import harness  # noqa: E402
import machine  # noqa: E402
import report  # noqa: E402
from harness import Row, X, fmt_mib, fmt_ratio, fmt_s  # noqa: E402

FAMILIES = {  # --only name: (modules, report section, first-call code)
    "bootstrap": (("bootstrap", "floor"), report.bootstrap, "bootstrap"),
    "randomization": (("randomization",), report.randomization, "randomization"),
    "auroc": (("prediction",), report.auroc, None),
    "slices": (("slices",), report.slices, None),
}


def verdict(ok: bool | None) -> str:
    return "—" if ok is None else ("met" if ok else "**NOT met**")


def both(ok: bool | None, new: bool) -> bool:
    """Fold one more check into a verdict that starts as None (nothing measured)."""
    return (ok is not False) and new


def pick(rows: list[Row], cls: str, role: str, **params: Any) -> Row | None:
    """The measured row of ``cls`` at ``role`` whose parameters include ``params``."""
    for r in rows:
        if r.cls == cls and r.role == role and r.seconds and params.items() <= r.params.items():
            return r
    return None


def case_name(rows: list[Row], role: str) -> str:
    return next((r.case for r in rows if r.role == role), role)


def speed(rows: list[Row], what: str, row: Row | None, goal: float, extra: str = "") -> list[str]:
    """Target: ``row`` at least ``goal`` times faster than the case's scipy reference."""
    x = report.ratio(rows, row, "scipy") if row else None
    ref = report.reference(rows, row.case, "scipy") if row else None
    ok = None if x is None else x >= goal
    miss = "" if ok or x is None else f"; {x / goal:.0%} of the target"
    secs = f" ({fmt_s(row.seconds if row else None)} s vs {fmt_s(ref)} s)"
    return [what, f"{fmt_ratio(x)}{secs}{miss}{extra}", verdict(ok)]


def memory(rows: list[Row], what: str, roles: list[str], limit: float) -> list[str]:
    """Target: every pdpaired row of ``roles`` under ``limit`` MiB (baselines for context)."""
    parts, ok = [], None
    for role in roles:
        mine = [(r.peak, r.label) for r in rows if r.role == role and r.tool == "pdpaired"]
        mine = [m for m in mine if m[0] is not None]
        if mine:
            peak, label = max(mine)
            ok = both(ok, peak < limit)
            parts.append(f"{case_name(rows, role)}: max {fmt_mib(peak)} MiB ({label})")
    for tool in ("scipy", "loop"):
        theirs = [(r.peak, r.label) for r in rows if r.role in roles and r.tool == tool]
        theirs = [t for t in theirs if t[0] is not None]
        if theirs:
            peak, label = max(theirs)
            parts.append(f"({tool}: up to {fmt_mib(peak)} MiB, {label})")
    return [what, "; ".join(parts), verdict(ok)]


def identical(rows: list[Row], what: str, key: str, **params: Any) -> list[str]:
    """Target: the numba and numpy rows of every case (and method) have equal hashes."""
    pairs: dict[str, dict[str, dict[str, Any]]] = {}
    for r in rows:
        if r.cls == "Pdpaired" and key in r.info and params.items() <= r.params.items():
            tag = r.case + (f" {r.params['method']}" if "method" in r.params else "")
            pairs.setdefault(tag, {})[r.params["engine"]] = r.info
    parts, ok = [], None
    for tag, got in pairs.items():
        if {"numba", "numpy"} <= got.keys():
            a, b = got["numba"], got["numpy"]
            ok = both(ok, a[key] == b[key])
            eng = a["engine"] if a["engine"] == b["engine"] else f"{a['engine']} vs {b['engine']}"
            rel = "==" if a[key] == b[key] else "!="
            parts.append(f"{tag} ({eng}): {a[key]} {rel} {b[key]}")
    return [what, "; ".join(parts), verdict(ok)]


def bootstrap_targets(b: list[Row]) -> list[list[str]]:
    """The bootstrap's speed, memory and BCa-cost targets."""
    out = []
    floor = min((r.seconds for r in b if r.tool == "floor" and r.seconds), default=None)
    for role, engine, goal in (
        ("cont_mid", "numba", 10),
        ("clusters", "numba", 30),
        ("cont_mid", "numpy", 3),
        ("clusters", "numpy", 5),
    ):
        row = pick(b, "Pdpaired", role, engine=engine, method="percentile")
        ref = report.reference(b, row.case, "scipy") if row else None
        extra = ""
        if role == "clusters" and engine == "numba" and floor and ref:
            extra = (
                f" (the gathers alone, with no random numbers, take at least {fmt_s(floor)} s: "
                f"at most {fmt_ratio(ref / floor)} for any exact cluster bootstrap here)"
            )
        what = f"bootstrap: {engine} ≥ {goal}{X} scipy percentile, {case_name(b, role)}"
        out.append(speed(b, what, row, goal, extra))
    vals = [
        (f"{r.case} {r.params['engine']}", report.ratio(b, r, "scipy"))
        for r in b
        if r.cls == "Pdpaired"
        and r.role in {"bin_mid", "bin_large"}
        and r.seconds
        and r.params["method"] == "percentile"
    ]
    ok = all(v is not None and v >= 500 for _, v in vals) if vals else None
    meas = "; ".join(f"{w}: {fmt_ratio(v)}" for w, v in vals)
    what = f"bootstrap: 0/1 scores ≥ 500{X} scipy percentile, either engine"
    out.append([what, meas, verdict(ok)])
    for engine in ("numba", "numpy"):
        rs = sorted(
            (report.ratio(b, r, "loop") or 0.0, f"{r.case} {r.params['method']}")
            for r in b
            if r.cls == "Pdpaired" and r.params["engine"] == engine and r.seconds
        )
        if rs:
            slower = [w for w in rs if w[0] < 1.0]
            meas = f"lowest {fmt_ratio(rs[0][0])} ({rs[0][1]})"
            meas += "".join(f"; also slower: {w[1]} {fmt_ratio(w[0])}" for w in slower[1:])
            what = f"bootstrap: {engine} never slower than the plain numpy loop (every row)"
            out.append([what, meas, verdict(not slower)])
    for role in ("cont_large", "bin_large", "clusters"):
        parts, ok = [], None
        for engine in ("numba", "numpy"):
            p = pick(b, "Pdpaired", role, engine=engine, method="percentile")
            q = pick(b, "Pdpaired", role, engine=engine, method="bca")
            if p and p.seconds and q and q.seconds:
                f = q.seconds / p.seconds
                ok = both(ok, f < 2.0)
                parts.append(f"{engine}: {fmt_s(q.seconds)} s / {fmt_s(p.seconds)} s = {f:.2f}")
        what = f"bootstrap: BCa < 2 {X} percentile time, {case_name(b, role)}"
        out.append([what, "; ".join(parts), verdict(ok)])
    what = "bootstrap: peak extra memory < 300 MiB at the largest n (bootstrap call)"
    return [*out, memory(b, what, ["cont_large", "bin_large", "clusters"], 300)]


def randomization_targets(r3: list[Row]) -> list[list[str]]:
    """The randomization test's speed, memory and bit-identity targets."""
    out = []
    for engine, goal in (("numba", 200), ("numpy", 20)):
        what = (
            f"randomization: {engine} ≥ {goal}{X} scipy permutation_test, {case_name(r3, 'cont')}"
        )
        out.append(speed(r3, what, pick(r3, "Pdpaired", "cont", engine=engine), goal))
    what = "randomization: peak extra memory < 300 MiB (randomization call, every pdpaired row)"
    out.append(memory(r3, what, ["cont", "bin", "clusters"], 300))
    what = (
        "randomization: bit-identical null distribution, numba vs numpy engine, same seed (sha256)"
    )
    return [*out, identical(r3, what, "null_sha")]


def auroc_targets(r4: list[Row]) -> list[list[str]]:
    """The AUROC bootstrap's speed, memory and bit-identity targets."""
    out, large = [], case_name(r4, "auroc_large")
    for engine, goal in (("numba", 50), ("numpy", 10)):
        row = pick(
            r4, "Pdpaired", "auroc_large", engine=engine, method="percentile", design="stratified"
        )
        what = f"AUROC: {engine} ≥ {goal}{X} scipy percentile, {large} (percentile, stratified)"
        out.append(speed(r4, what, row, goal))
    what = f"AUROC: peak extra memory < 500 MiB, {large} (bootstrap call, every pdpaired row)"
    out.append(memory(r4, what, ["auroc_large"], 500))
    what = "AUROC: bit-identical bootstrap distribution, numba vs numpy engine, same seed (sha256)"
    return [*out, identical(r4, what, "dist_sha", design="stratified")]


TARGETS = {
    "bootstrap": bootstrap_targets,
    "randomization": randomization_targets,
    "auroc": auroc_targets,
}


def collect(family: str, mode: str, repeats: int, budget: float) -> tuple[list[Row], list[str]]:
    """Run every benchmark class of ``family``; its rows (by case) and report section."""
    from benchmarks import first_call

    names, section, call = FAMILIES[family]
    modules = [importlib.import_module(f"benchmarks.{name}") for name in names]
    first = harness.first_call(partial(first_call.code, call)) if call and mode != "tiny" else {}

    def log(r: Row) -> None:
        what = r.problem or (
            f"{fmt_s(r.seconds)} s [{r.repeats}], peak {fmt_mib(r.peak)} MiB, "
            f"other processes {r.foreign if r.foreign is not None else float('nan'):.2f} cores"
        )
        print(f"{family}: {r.case}: {r.label}: {what}", file=sys.stderr, flush=True)

    rows: list[Row] = []
    for module in modules:
        for cls in vars(module).values():
            if not (isinstance(cls, type) and cls.__module__ == module.__name__):
                continue
            if any(m.startswith("timeraw_") for m in dir(cls)):
                rows += harness.run_raw(family, module, cls, log)
            elif hasattr(cls, "tool"):
                rows += harness.run_class(family, module, cls, repeats, budget, log)
    order = list(modules[0].CASES)
    rows.sort(key=lambda r: order.index(r.role))  # stable: class and parameter order kept
    notes = [line for m in modules if getattr(m, "NOTE", "") for line in (m.NOTE, "")]
    return rows, section(rows, notes, first)


def main(argv: list[str] | None = None) -> None:
    """Run the chosen families, print the report and write it to ``benchmarks/results/``."""
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    size = ap.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="small sizes, indicative verdicts")
    size.add_argument("--full", action="store_true", help="no extrapolation (+~15 min)")
    size.add_argument("--tiny", action="store_true", help=argparse.SUPPRESS)  # smoke test
    ap.add_argument("--only", choices=["all", *FAMILIES], default="all", help="one family")
    ap.add_argument("--repeats", type=int, help="timed calls per row, best kept (3; quick 2)")
    ap.add_argument("--budget", type=float, help="no new call past this many s (45; quick 5)")
    ap.add_argument("--out", type=Path, help="Markdown output (default: benchmarks/results/)")
    ap.add_argument("--source-note", help="added to the machine section, e.g. the commit")
    args = ap.parse_args(argv)
    mode = "tiny" if args.tiny else "quick" if args.quick else "full" if args.full else "default"
    small = mode in {"tiny", "quick"}
    repeats = args.repeats or (2 if small else 3)
    budget = args.budget if args.budget is not None else (5.0 if small else 45.0)
    info = machine.machine_info()  # before any row sets PDPAIRED_* variables
    if args.source_note:
        info["note"] = args.source_note
    os.environ["PDPAIRED_BENCH_MODE"] = mode
    own_cache = "NUMBA_CACHE_DIR" not in os.environ  # keep numba's cache out of the tree
    if own_cache:
        os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="pdpaired-bench-numba-")
    chosen = list(FAMILIES) if args.only == "all" else [args.only]
    t_start, load_start = time.perf_counter(), os.getloadavg()
    source_start = machine.pdpaired_source()[0]
    rows: dict[str, list[Row]] = {}
    sections: list[str] = []
    try:
        for family in chosen:
            rows[family], lines = collect(family, mode, repeats, budget)
            sections += lines
    finally:
        if own_cache:
            shutil.rmtree(os.environ.pop("NUMBA_CACHE_DIR"), ignore_errors=True)
    if machine.pdpaired_source()[0] != source_start:
        info["WARNING"] = "pdpaired's source changed during the run; rerun on a stable tree"
    info["benchmark wall time"] = f"{time.perf_counter() - t_start:.0f} s"
    loads = " / ".join(", ".join(f"{x:.2f}" for x in la) for la in (load_start, os.getloadavg()))
    info["load average (1, 5, 15 min) at start / end"] = loads

    flags = "".join(f" --{f}" for f in ("quick", "full", "tiny") if getattr(args, f))
    flags += f" --only {args.only}" if args.only != "all" else ""
    title = "pdpaired benchmark: " + ", ".join(chosen)
    title += f" — {mode.upper()} run (not the benchmark sizes)" if small else ""
    lines = [f"# {title}", "", f"Generated by `python benchmarks/targets.py{flags}`.", ""]
    lines += [
        "## Machine",
        "",
        *(f"- {k}: {v}" for k, v in info.items()),
        "",
        report.HOW,
        "",
        *sections,
    ]
    lines += ["## Targets (same-run ratios)", ""]
    if small:
        lines += ["_Small sizes: not the benchmark cases; verdicts are indicative only._", ""]
    found = [t for family in chosen if family in TARGETS for t in TARGETS[family](rows[family])]
    lines += harness.table(["target", "measured", "verdict"], found, "lll")
    text = "\n".join(lines) + "\n"
    print(text)
    stem = ("latest" if not small else mode) + ("" if args.only == "all" else f"-{args.only}")
    out = args.out or HERE / "results" / f"{stem}.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    print(f"written to {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
