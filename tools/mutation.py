"""Mutation testing of the statistics core, one module at a time (``make mutation``).

Each target mutates one module (or, with ``names``, some functions of it)
with mutmut 3 and runs only the test files that cover it, so one target
takes minutes on a 2-core machine (times in ``docs/quality.md``). mutmut 3
copies the package and the tests into ``mutants/`` and runs them from there,
so each target runs in its own scratch directory ``build/mutation/<target>``
(a copy of ``pdpaired/``, ``tests/`` and ``pyproject.toml`` with the target's
``[tool.mutmut]`` table), which also keeps mutmut's cache of results per
target between runs.

Usage::

    python tools/mutation.py                 # every target
    python tools/mutation.py bootstrap rules # some targets
    python tools/mutation.py --list

The per-target scores go to ``build/mutation/summary.json`` and are printed;
``docs/quality.md`` records the last full run and why each survivor is
equivalent (``mutmut show NAME`` in the target's directory shows a mutant).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "build" / "mutation"

# target: (module file or files, mutant-name globs or None for all, test files that cover it)
TARGETS: dict[str, tuple[str | tuple[str, ...], list[str] | None, list[str]]] = {
    "engine": ("pdpaired/core/engine.py", None,
                ["tests/core/test_engine.py", "tests/core/test_bootstrap.py",
                 "tests/core/test_randomization.py", "tests/core/test_engine.py",
                 "tests/core/test_engine.py"]),
    "bootstrap": ("pdpaired/core/bootstrap.py", None,
                  ["tests/core/test_engine.py", "tests/core/test_bootstrap.py",
                   "tests/results/test_verdict.py", "tests/core/test_bootstrap.py", "tests/core/test_paired_proportions.py",
                   "tests/core/test_bootstrap.py", "tests/core/test_bootstrap.py"]),
    # randomization: the p-value, the sign-flip sums and the exact shortcut
    "randomization": ("pdpaired/core/randomization.py",
                      ["pdpaired.core.randomization.x_null_pvalue*",
                       "pdpaired.core.randomization.x_tie_tolerance*",
                       "pdpaired.core.randomization.x__flip_sums_numpy*",
                       "pdpaired.core.randomization.x__binomial_sums*",
                       "pdpaired.core.randomization.x__abs_distinct*",
                       "pdpaired.core.randomization.x__few_distinct*",
                       "pdpaired.core.randomization.x__exact_sums*"],
                      ["tests/core/test_randomization.py", "tests/core/test_randomization.py",
                       "tests/core/test_randomization.py",
                       "tests/core/test_randomization.py"]),
    "exact_binomial": ("pdpaired/core/exact_binomial.py", None,
                       ["tests/core/test_randomization.py", "tests/results/test_verdict.py"]),
    # slices: the scan's heterogeneity orchestration, the tests and the adjustment
    "slices": (("pdpaired/analysis/slices.py", "pdpaired/core/slices.py",
                "pdpaired/core/multiplicity.py"),
               ["pdpaired.analysis.slices.x__heterogeneity*",
                "pdpaired.core.multiplicity.x_adjust_pvalues*",
                "pdpaired.analysis.slices.x__winner*",
                "pdpaired.core.slices.x_permutation_heterogeneity*",
                "pdpaired.core.slices.x_welch_heterogeneity*",
                "pdpaired.core.slices.x__studentized_q*",
                "pdpaired.core.slices.x_permute*", "pdpaired.core.slices.x_variance_dof*"],
               ["tests/analysis/test_slices.py", "tests/results/test_verdict.py", "tests/analysis/test_slices.py",
                "tests/core/test_slices.py"]),
    "metrics": ("pdpaired/core/metrics.py", None,
                ["tests/analysis/test_prediction.py", "tests/analysis/test_prediction.py",
                 "tests/results/test_verdict.py", "tests/core/test_metrics.py"]),
    # units: the functions changed since the whole-module run of 1 December
    # (docs/quality.md): quantize in blocks, segment_sum by np.add.at, design_from_units
    "units": ("pdpaired/pairs/units.py",
               ["pdpaired.pairs.units.x_quantize*", "pdpaired.pairs.units.x_segment_sum*",
                "pdpaired.pairs.units.x_design_from_units*"],
               ["tests/pairs/test_rules.py", "tests/core/test_engine.py", "tests/pairs/test_units.py",
                "tests/core/test_bootstrap.py"]),
    # rules: the checks, the summary and the ordering of failures; the texts of the
    # hints and the pandera schema construction (message wording) are left out
    "rules": ("pdpaired/pairs/rules.py",
              ["pdpaired.pairs.rules.x_case_summary*", "pdpaired.pairs.rules.x__check*",
               "pdpaired.pairs.rules.x__at_most_one*", "pdpaired.pairs.rules.x__at_least_one*",
               "pdpaired.pairs.rules.x__zero*", "pdpaired.pairs.rules.x__false*",
               "pdpaired.pairs.rules.x_failure_table*", "pdpaired.pairs.rules.x__normalized*",
               "pdpaired.pairs.rules.x_sorted_ids*", "pdpaired.pairs.rules.x_ids_text*",
               "pdpaired.pairs.rules.x__in_order*", "pdpaired.pairs.rules.x__bad_values*",
               "pdpaired.pairs.rules.xǁSummaryLayoutǁ*"],
              ["tests/pairs/test_rules.py", "tests/pairs/test_pairing.py", "tests/test_accessor.py",
               "tests/pairs/test_rules.py", "tests/pairs/test_rules.py"]),
    "decisions": ("pdpaired/analysis/bootstrap.py", ["pdpaired.analysis.bootstrap.x_bootstrap_result*"],
                  ["tests/results/test_verdict.py", "tests/core/test_engine.py"]),
}  # fmt: skip

PYTEST_ARGS = ["-p", "no:cacheprovider", "-m", "not slow", "-W", "error"]


def module_files(name: str) -> list[str]:
    """Return the module files the target mutates."""
    module = TARGETS[name][0]
    return [module] if isinstance(module, str) else list(module)


def prepare(name: str) -> Path:
    """Make (or refresh) the target's scratch copy of the project."""
    _, _, listed = TARGETS[name]
    tests = list(dict.fromkeys(listed))  # subjects share files: each once
    work = OUT / name
    work.mkdir(parents=True, exist_ok=True)
    for sub in ("pdpaired", "tests"):
        shutil.rmtree(work / sub, ignore_errors=True)
        shutil.copytree(ROOT / sub, work / sub,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))  # fmt: skip
    shutil.copy(ROOT / "conftest.py", work / "conftest.py")  # the doctest collector's rule
    table = {
        "source_paths": ["pdpaired/"],
        "only_mutate": module_files(name),
        "pytest_add_cli_args": PYTEST_ARGS,
        "pytest_add_cli_args_test_selection": tests,
        "use_git_change_detection": False,
        # a forked worker may compile numba kernels and this machine is shared:
        # a generous timeout, so a slow kill is not reported as a timeout
        "timeout_multiplier": 20.0,
        "timeout_constant": 60.0,
        # workers forked from a process that ran the suite die of SIGTERM in
        # matplotlib/numba tests (reported "suspicious"); a clean fork server does not
        "process_isolation": "forkserver",
    }
    toml = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    lines = ["", "[tool.mutmut]"]
    lines += [f"{k} = {json.dumps(v)}" for k, v in table.items()]
    (work / "pyproject.toml").write_text(toml + "\n".join(lines) + "\n", encoding="utf-8")
    return work


def mutmut(work: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONDONTWRITEBYTECODE="1")
    exe = Path(sys.executable).with_name("mutmut")
    return subprocess.run([str(exe), *args], cwd=work, env=env, text=True,
                          capture_output=True, check=False)  # fmt: skip


def statuses(work: Path) -> dict[str, str]:
    """Each mutant's status, from ``mutmut results --all true``."""
    res = mutmut(work, "results", "--all", "true")
    out: dict[str, str] = {}
    for line in res.stdout.splitlines():
        key, sep, value = line.strip().rpartition(": ")
        if sep and key.startswith("pdpaired."):
            out[key] = value.strip()
    return out


def all_mutants(work: Path, globs: list[str] | None) -> list[str]:
    """Every mutant of the target (made, with the test map, if not made yet)."""
    import fnmatch

    status = statuses(work)
    if not status:  # mutmut makes the mutants and maps the tests on its first run; a
        # name that matches nothing stops it right after (an assertion, expected)
        mutmut(work, "run", "--max-children", "1", "pdpaired.x_no_such_mutant")
        status = statuses(work)
    return sorted(k for k in status if not globs or any(fnmatch.fnmatch(k, g) for g in globs))


def sample_of(work: Path, globs: list[str] | None, size: int, seed: int) -> list[str]:
    """A simple random sample of ``size`` of the target's mutants (all if fewer).

    Sampling mutants (Acree 1980; Wong & Mathur 1995) estimates the score
    without running every mutant: with ``n`` mutants sampled, the score's
    standard error is at most ``0.5 / sqrt(n)`` (3 points at 90% with n = 100).
    The sample depends only on the seed and the mutant names.
    """
    import random

    names = all_mutants(work, globs)
    if size >= len(names):
        return names
    return sorted(random.Random(seed).sample(names, size))


def run_target(
    name: str, max_children: int, sample: int | None = None, seed: int = 2026
) -> dict[str, object]:
    again_possible = (OUT / name / "mutants").exists()  # results kept from a past run
    work = prepare(name)
    _, names, _ = TARGETS[name]
    t0 = time.monotonic()
    if sample is not None:
        chosen = sample_of(work, names, sample, seed)
        (work / "sample.json").write_text(json.dumps(chosen), encoding="utf-8")
        # mutmut forgets every result when a selected test file changes; the
        # sample's results are kept here while the module itself is unchanged,
        # and a kill stands (more tests only kill more): the rest is run again
        import hashlib

        digest = hashlib.sha256(
            b"".join((ROOT / f).read_bytes() for f in module_files(name))
        ).hexdigest()
        kept_path = work / "sample-results.json"
        kept = json.loads(kept_path.read_text()) if kept_path.exists() else {}
        if kept.get("module_sha256") != digest:
            kept = {"module_sha256": digest, "status": {}}
        todo = [k for k in chosen if kept["status"].get(k) not in ("killed", "timeout")]
        proc = mutmut(work, "run", "--max-children", str(max_children), *todo) if todo else None
        (work / "run.log").write_text("" if proc is None else proc.stdout + proc.stderr,
                                      encoding="utf-8")  # fmt: skip
        now = statuses(work)
        for k in todo:
            if now.get(k, "not checked") != "not checked":
                kept["status"][k] = now[k]
        kept_path.write_text(json.dumps(kept, indent=1), encoding="utf-8")
        status = {k: kept["status"].get(k, "not checked") for k in chosen}
        return summarize(name, status, time.monotonic() - t0, 0 if proc is None else proc.returncode,
                         sampled_from=len(all_mutants(work, TARGETS[name][1])))  # fmt: skip
    proc = mutmut(work, "run", "--max-children", str(max_children), *(names or []))
    (work / "run.log").write_text(proc.stdout + proc.stderr, encoding="utf-8")
    # mutmut keeps a result while the mutated function is unchanged, even when
    # the tests changed: name the survivors to have them tested again
    again = [k for k, v in statuses(work).items() if v == "survived"]
    if again and again_possible and not names:
        mutmut(work, "run", "--max-children", str(max_children), *again)
    seconds = time.monotonic() - t0
    status = statuses(work)
    if names:  # only the functions asked for
        import fnmatch

        status = {k: v for k, v in status.items() if any(fnmatch.fnmatch(k, g) for g in names)}
    return summarize(name, status, seconds, proc.returncode)


def summarize(
    name: str, status: dict[str, str], seconds: float, returncode: int,
    sampled_from: int | None = None,
) -> dict[str, object]:  # fmt: skip
    """The target's score: killed / (killed + survived), timeouts counted as killed."""
    counts: dict[str, int] = {}
    for v in status.values():
        counts[v] = counts.get(v, 0) + 1
    done = sum(n for s, n in counts.items() if s not in ("not checked",))
    killed = counts.get("killed", 0) + counts.get("timeout", 0)
    return {
        "target": name,
        "module": ", ".join(module_files(name)),
        "mutants": len(status),
        "sampled_from": sampled_from,
        "counts": counts,
        "score": killed / done if done else None,
        "survivors": sorted(k for k, v in status.items() if v in ("survived", "no tests")),
        "seconds": round(seconds),
        "returncode": returncode,
    }


def print_table(names: list[str]) -> None:
    """Markdown rows of each target's results so far (also of an unfinished run)."""
    import fnmatch

    for name in names:
        work = OUT / name
        if not (work / "mutants").exists():
            continue
        _, globs, tests = TARGETS[name]
        module = ", ".join(module_files(name))
        status = statuses(work)
        if globs:
            status = {k: v for k, v in status.items() if any(fnmatch.fnmatch(k, g) for g in globs)}
        n = len(status)
        killed = sum(v in ("killed", "timeout") for v in status.values())
        survived = sum(v in ("survived", "no tests") for v in status.values())
        done = killed + survived
        score = f"{100 * killed / done:.1f}%" if done else "n/a"
        left = n - done
        what = module + ("" if not globs else " (" + ", ".join(
            g.rsplit(".", 1)[-1].removeprefix("x_").rstrip("*") for g in globs) + ")")  # fmt: skip
        note = f"{left} not yet run" if left else ""
        print(f"| {name} | `{what}` | {', '.join(t.removeprefix('tests/') for t in tests)} "
              f"| {n} | {killed} | {survived} | {score} | {note} |")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("targets", nargs="*", help="targets to run (default: all)")
    parser.add_argument("--list", action="store_true", help="list the targets and exit")
    parser.add_argument("--max-children", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--sample", type=int, default=None,
                        help="run a random sample of this many mutants per target")  # fmt: skip
    parser.add_argument("--seed", type=int, default=2026, help="the sample's seed")
    parser.add_argument(
        "--table",
        action="store_true",
        help="print the Markdown table of the results so far (docs/quality.md)",
    )
    args = parser.parse_args(argv)
    if args.table:
        print_table(args.targets or list(TARGETS))
        return 0
    if args.list:
        for name, (_, names, tests) in TARGETS.items():
            module = " ".join(module_files(name))
            print(f"{name:15} {module} {names or ''} <- {' '.join(tests)}")
        return 0
    unknown = sorted(set(args.targets) - set(TARGETS))
    if unknown:
        parser.error(f"unknown target(s) {unknown}; see --list")
    OUT.mkdir(parents=True, exist_ok=True)
    summary_path = OUT / "summary.json"
    summary = json.loads(summary_path.read_text()) if summary_path.exists() else {}
    for name in args.targets or list(TARGETS):
        out = run_target(name, args.max_children, args.sample, args.seed)
        summary[name] = out
        summary_path.write_text(json.dumps(summary, indent=1), encoding="utf-8")
        score = "n/a" if out["score"] is None else f"{100 * out['score']:.1f}%"
        of = f" (sample of {out['sampled_from']})" if out.get("sampled_from") else ""
        print(f"{name:15} {out['mutants']:4d} mutants{of}  score {score:>6}  {out['counts']}  "
              f"{out['seconds']} s", flush=True)  # fmt: skip
        for s in out["survivors"]:
            print(f"    survived: {s}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
