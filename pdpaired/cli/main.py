"""The ``pdpaired`` command line: ``pdpaired compare`` and ``pdpaired verify``.

Exit status 0 on success, 2 on bad input (the message on stderr, no
traceback), 1 when a ``--fail-on`` release gate fails. ``compare`` prints the
result block on stdout and, with ``--out``, writes the three artifacts of
:meth:`pdpaired.Comparison.report`; with ``--baseline`` or ``--all-pairs``
(several models: more than two files, or a ``--long`` table) it writes one
report of every comparison from :meth:`DataFrame.paired.against
<pdpaired.PairedAccessor.against>` / ``all_pairs`` (artifact ``v2``).
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

__all__ = ["main"]

_EPILOG_COMPARE = """\
examples:
  # one prediction file per model (the model names default to the file stems)
  pdpaired compare candidate.csv baseline.csv --id-column sample_id --target target \\
      --prediction-column prediction --task-type regression --metric rmse --seed 0 --out reports/

  # binary classifier probabilities, string labels, slices with uncertainty
  pdpaired compare new.csv old.csv --target label --prediction-column p_spam \\
      --task-type binary --metric auroc --class-labels ham spam \\
      --slice-columns site --include-slice-uncertainty --seed 0

  # multiclass: one probability column per class
  pdpaired compare a.csv b.csv --target y --prediction-columns p_cat p_dog p_bird \\
      --class-labels cat dog bird --task-type multiclass --metric log_loss

  # several models: every candidate file against the baseline file, one report (artifact v2)
  pdpaired compare base.csv cand1.csv cand2.csv --baseline base --target target \\
      --metric rmse --seed 0 --out reports/

  # every pair of the models of a long table, with simultaneous rank sets
  pdpaired compare results.csv --long --all-pairs --score score --higher-is-better

  # a long table of per-case scores (one row per case and model)
  pdpaired compare results.csv --long --a candidate --b baseline --score score \\
      --higher-is-better --group-column prompt_group --out reports/

  # evaluation logs: lm-evaluation-harness runs (--log_samples) or inspect_ai logs
  pdpaired compare --lm-eval runs/candidate/ runs/baseline/ --metric acc --stratum-column task
  pdpaired compare --inspect candidate.eval baseline.eval --missing as-failure

  # a release gate in CI: exit 1 unless the candidate is not worse by more than 0.02
  pdpaired compare --lm-eval new/ old/ --metric acc --noninferiority-margin 0.02 \\
      --fail-on not-noninferior --summary-markdown "$GITHUB_STEP_SUMMARY"
"""

_EPILOG_VERIFY = """\
examples:
  pdpaired verify reports/comparison.shareable.json
  pdpaired verify reports/comparison.json
  (two-model artifacts are paired-comparison-artifact/v1; several models: v2)
"""


_EPILOG_PLAN = """\
examples:
  # how many cases would detect a 0.5-point improvement? (0/1 scores: exact McNemar power)
  pdpaired plan results.csv --long --a knn --b logreg --score correct --higher-is-better \\
      --effect 0.005 --plot power.png

  # by simulation, clustered cases
  pdpaired plan results.csv --long --a new --b old --score score --higher-is-better \\
      --group-column prompt_group --effect 0.02 --method simulation --seed 0

  # the interval beyond a practical threshold, written into a Markdown report
  pdpaired plan results.csv --long --a new --b old --score score --higher-is-better \\
      --effect 0.03 --test bootstrap --practical-threshold 0.01 --report plan.md
"""

#: --fail-on's choices (pdpaired.results.gate.FAIL_ON; spelled out so `--help` imports nothing)
_FAIL_ON = ("b-better", "not-a-better", "not-noninferior")


class _Usage(Exception):
    """Bad input from the command line: exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # argparse's own usage errors
        self.print_usage(sys.stderr)
        msg = f"{self.prog}: {message}"
        raise _Usage(msg)


def _add_inputs(c: argparse.ArgumentParser) -> None:
    """Add the input options ``compare`` and ``plan`` share (files, columns, mode, policy)."""
    c.add_argument("files", nargs="+",
                   help="two CSV files (A then B), or one with --long; compare also takes "
                   "more than two with --baseline or --all-pairs")  # fmt: skip
    c.add_argument("--long", action="store_true", help="one long CSV: a row per (case, model)")
    c.add_argument("--a", help="--long: model A (the candidate)")
    c.add_argument("--b", help="--long: model B (the baseline)")
    c.add_argument(
        "--names",
        nargs="+",
        metavar="NAME",
        help="model names of the files, one per file (default: the file stems)",
    )
    c.add_argument("--id-column", default=None,
                   help="case id column (default: sample_id, or case_id when the files have "
                   "that instead)")  # fmt: skip
    c.add_argument("--model-column", default="model", help="--long: model column (default: model)")
    c.add_argument("--score", help="--long score mode: the per-case score column")
    direction = c.add_mutually_exclusive_group()
    direction.add_argument("--higher-is-better", dest="higher_is_better", action="store_true",
                           default=None, help="score mode: a larger score is better")  # fmt: skip
    direction.add_argument("--lower-is-better", dest="higher_is_better", action="store_false",
                           help="score mode: a smaller score is better")  # fmt: skip
    c.add_argument("--target", help="prediction mode: the target column")
    c.add_argument("--prediction-column",
                   help="prediction mode: one prediction column (default: prediction)")  # fmt: skip
    c.add_argument("--prediction-columns", nargs="+", help="multiclass: one column per class")
    c.add_argument("--task-type", choices=("binary", "multiclass", "classification", "regression"),
                   help="prediction mode: checked against the data and the metric; "
                   "classification is binary or multiclass from the prediction "
                   "column(s)")  # fmt: skip
    c.add_argument("--metric", default=None, help="metric (prediction mode), e.g. auroc, rmse")
    c.add_argument("--class-labels", nargs="+", help="(negative positive), or one per column")
    c.add_argument("--threshold", type=float, default=0.5, help="label metrics (default 0.5)")
    c.add_argument("--group-column", help="cluster column (resampled as whole groups)")
    c.add_argument("--stratum-column", help="stratum column")
    c.add_argument("--missing", default="error", choices=("error", "complete-case", "as-failure"))
    c.add_argument("--fill-value", type=float, help="the value --missing as-failure fills in")


def _parser() -> argparse.ArgumentParser:
    ap = _Parser(
        prog="pdpaired",
        description="Honest paired comparison of two models on the same evaluation cases.",
    )
    sub = ap.add_subparsers(dest="command", required=True, parser_class=_Parser)
    c = sub.add_parser(
        "compare",
        help="compare two models and write verifiable artifacts",
        description="Compare model A (the candidate) with model B on the same cases: paired "
        "bootstrap interval, randomization test, exact binomial test for binary outcomes, "
        "slices and decisions.",
        epilog=_EPILOG_COMPARE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_inputs(c)
    c.add_argument("--resamples", type=int, default=10_000, help="bootstrap resamples")
    c.add_argument("--permutations", type=int, default=None,
                   help="randomization assignments (default 5000; 0 skips the test)")  # fmt: skip
    c.add_argument("--confidence-level", type=float, default=0.95)
    c.add_argument("--method", default="percentile", choices=("percentile", "basic", "bca"))
    c.add_argument("--alternative", default="two-sided", choices=("two-sided", "greater", "less"))
    c.add_argument("--practical-threshold", type=float, default=0.0)
    c.add_argument("--noninferiority-margin", type=float, default=None)
    c.add_argument("--slice-columns", nargs="+", help="slice columns (each analysed separately)")
    c.add_argument("--min-slice-size", type=int, default=30)
    c.add_argument("--include-slice-uncertainty", action="store_true",
                   help="intervals and adjusted p-values per slice")  # fmt: skip
    c.add_argument("--seed", type=int, default=None, help="seed (default: fresh, recorded)")
    c.add_argument(
        "--score-range",
        type=float,
        nargs=2,
        default=None,
        metavar=("LOWER", "UPPER"),
        help="with missing outcomes: the score range of the sensitivity bounds in "
        "the report and artifacts (0/1 scores and class probabilities need none)",
    )
    c.add_argument("--out", help="directory for comparison.json, .shareable.json and .md")
    # -- several models (pdpaired.analysis.multi): one report of every comparison ------------------
    several = c.add_mutually_exclusive_group()
    several.add_argument("--baseline", metavar="NAME",
                         help="several models: compare every other model with this one (a "
                         "file's model name, or a model of a --long table)")  # fmt: skip
    several.add_argument("--all-pairs", action="store_true",
                         help="several models: compare every pair of models")  # fmt: skip
    c.add_argument("--adjust", default="holm", choices=("holm", "fdr_bh", "bonferroni", "none"),
                   help="several models: p-value adjustment across the comparisons "
                   "(default holm)")  # fmt: skip
    # -- evaluation logs (pdpaired.io) and release gates (pdpaired.results.gate) --------------
    logs = c.add_mutually_exclusive_group()
    logs.add_argument("--lm-eval", action="store_true",
                      help="the two inputs are lm-evaluation-harness runs (samples_*.jsonl "
                      "files or their directories), A then B; --metric names the harness "
                      "metric")  # fmt: skip
    logs.add_argument("--inspect", action="store_true",
                      help="the two inputs are inspect_ai eval logs (.eval/.json), "
                      "A then B")  # fmt: skip
    c.add_argument("--scorer", help="--inspect: the scorer whose value is the score")
    c.add_argument("--tasks", nargs="+", help="--lm-eval: read only these tasks")
    c.add_argument("--lm-eval-filter", help="--lm-eval: the harness filter (e.g. strict-match)")
    c.add_argument("--fail-on", choices=_FAIL_ON,
                   help="exit 1 when the verdict meets this condition (0 otherwise)")  # fmt: skip
    c.add_argument("--summary-markdown", metavar="PATH",
                   help="append the Markdown report to PATH "
                   "(e.g. $GITHUB_STEP_SUMMARY)")  # fmt: skip
    pl = sub.add_parser(
        "plan",
        help="power, detectable improvement and cases needed, from an observed comparison",
        description="Plan a comparison from an observed one: the minimum detectable "
        "improvement, the cases (and groups) needed for --effect, and the power curve. Reads "
        "the same inputs as compare.",
        epilog=_EPILOG_PLAN,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_inputs(pl)  # the input options of compare, the same
    pl.add_argument("--power", type=float, default=0.8, help="target power (default 0.8)")
    pl.add_argument("--alpha", type=float, default=0.05, help="level of the test (default 0.05)")
    pl.add_argument("--alternative", default="two-sided", choices=("two-sided", "greater", "less"))
    pl.add_argument("--effect", type=float, default=None,
                    help="improvement of A over B to plan for (cases needed)")  # fmt: skip
    pl.add_argument("--n-cases", type=int, default=None,
                    help="size at which the detectable improvement is computed")  # fmt: skip
    pl.add_argument("--method", dest="plan_method", default="analytic",
                    choices=("analytic", "simulation"))  # fmt: skip
    pl.add_argument("--simulations", type=int, default=2_000, help="simulated comparisons")
    pl.add_argument("--score-range", type=float, nargs=2, default=(None, None),
                    metavar=("LOWER", "UPPER"),
                    help="with missing outcomes: the score range for the sensitivity bounds "
                    "(0/1 scores need none)")  # fmt: skip
    pl.add_argument("--test", dest="plan_test", default=None,
                    choices=("bootstrap", "randomization", "exact_binomial"),
                    help="the test you will run (default: the exact binomial test for 0/1 "
                    "scores without groups, else the bootstrap interval)")  # fmt: skip
    pl.add_argument("--practical-threshold", type=float, default=0.0,
                    help="plan for the bootstrap interval beyond this threshold")  # fmt: skip
    pl.add_argument("--seed", type=int, default=None, help="seed of the simulation")
    pl.add_argument("--plot", default=None, help="PNG file for the power curves")
    pl.add_argument("--report", default=None, metavar="FILE.md",
                    help="write the plan (and the sensitivity, with missing outcomes) as "
                    "Markdown, the power curves saved next to it (FILE.power.png, or --plot) "
                    "and linked")  # fmt: skip
    # compare's evaluation-log inputs do not apply to plan
    pl.set_defaults(lm_eval=False, inspect=False, scorer=None, tasks=None, lm_eval_filter=None,
                    fail_on=None, noninferiority_margin=None, summary_markdown=None)  # fmt: skip
    v = sub.add_parser(
        "verify",
        help="check an artifact's schema, digest and internal consistency",
        epilog=_EPILOG_VERIFY,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    v.add_argument("artifact", help="comparison.json or comparison.shareable.json")
    return ap


def _read_csv(path: str) -> tuple[Any, dict[str, str]]:
    import pandas as pd

    from pdpaired.artifacts.digests import file_sha256

    p = Path(path)
    if not p.is_file():
        msg = f"input file not found: {path}"
        raise _Usage(msg)
    try:
        frame = pd.read_csv(p)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as err:
        msg = f"cannot read {path} as CSV: {err}"
        raise _Usage(msg) from err
    except OSError as err:
        msg = f"cannot read {path}: {err.strerror or err}"
        raise _Usage(msg) from err
    return frame, {"path": os.fspath(p), "sha256": file_sha256(p)}


def _labels(values: Sequence[str] | None, frame: Any, column: str | None) -> Any:
    """Class labels from the command line, typed like the target column."""
    if values is None or column is None or column not in frame.columns:
        return values
    import pandas as pd

    if pd.api.types.is_numeric_dtype(frame[column].dtype):
        try:
            return [int(v) if float(v).is_integer() else float(v) for v in values]
        except ValueError:
            return values
    return values


def _check_out(out: Path) -> None:
    """``--out`` must be a directory we can create or write, checked before any work."""
    if out.exists() and not out.is_dir():
        msg = f"--out {out} exists and is not a directory"
        raise _Usage(msg)
    parent = out
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        msg = f"--out {out} cannot be created or written (check {parent})"
        raise _Usage(msg)


def _id_column(given: str | None, frames: Sequence[Any], names: Sequence[str]) -> str:
    """Return the case id column: ``--id-column``, else ``sample_id``, else ``case_id``."""
    if given is not None:
        for path, frame in zip(names, frames, strict=True):
            if given not in frame.columns:
                msg = (
                    f"--id-column {given}: {path} has no such column; its columns: "
                    f"{', '.join(map(str, frame.columns))}"
                )
                raise _Usage(msg)
        return given
    for name in ("sample_id", "case_id"):
        if all(name in f.columns for f in frames):
            return name
    cols = ", ".join(map(str, frames[0].columns))
    msg = (
        f"no id column: {' and '.join(names)} have neither sample_id nor case_id (in every "
        f"file); name the id column with --id-column NAME (columns: {cols})"
    )
    raise _Usage(msg)


def _compare(args: argparse.Namespace) -> int:
    from pdpaired._lib.format import printable

    if args.resamples < 1:
        msg = f"--resamples must be a positive integer; got {args.resamples}"
        raise _Usage(msg)
    if args.baseline is not None or args.all_pairs:
        return _compare_many(args)
    if args.adjust != "holm":
        msg = "--adjust applies to several models (--baseline or --all-pairs)"
        raise _Usage(msg)
    if args.permutations is None:
        args.permutations = 5_000
    if args.permutations < 0:
        msg = f"--permutations must be >= 0 (0 skips the test); got {args.permutations}"
        raise _Usage(msg)
    if args.permutations == 0 and args.include_slice_uncertainty:
        msg = (
            "--permutations 0 skips the randomization test, but --include-slice-uncertainty "
            "needs the slices' p-values: give --permutations > 0"
        )
        raise _Usage(msg)
    if args.out:
        _check_out(Path(args.out))
    cmp, inputs = _load(args)
    rep = cmp.report(
        n_resamples=args.resamples, n_permutations=args.permutations,
        slices=args.slice_columns, min_slice_size=args.min_slice_size,
        slice_uncertainty=args.include_slice_uncertainty,
        practical_threshold=args.practical_threshold,
        noninferiority_margin=args.noninferiority_margin,
        confidence_level=args.confidence_level, method=args.method,
        alternative=args.alternative, rng=args.seed, inputs=inputs,
        score_range=None if args.score_range is None else tuple(args.score_range),
    )  # fmt: skip
    print(rep)
    if args.out:
        paths = rep.save(args.out)
        print()
        for path in paths.values():
            print(f"wrote {printable(path)}")
    return _summary_and_gate(args, rep)


def _load(args: argparse.Namespace) -> tuple[Any, list[dict[str, str]]]:
    """Read the inputs ``compare`` and ``plan`` share; return the comparison and the inputs."""
    import pdpaired

    prediction: Any = args.prediction_columns or args.prediction_column
    if args.target is not None and args.score is None and not prediction:
        prediction = "prediction"  # PrivateLabBench's default prediction column
    if not args.long and (args.a or args.b):
        msg = "--a and --b name the models of a --long table; for two files use --names A B"
        raise _Usage(msg)
    if args.names and len(args.names) != 2 and not args.long:
        msg = (
            f"--names takes one name per file: 2 files, {len(args.names)} names (more than "
            "two files compare with --baseline NAME or --all-pairs)"
        )
        raise _Usage(msg)
    if args.long and args.names:
        msg = "--names applies to two files; a --long table names its models with --a and --b"
        raise _Usage(msg)
    _check_log_and_gate_args(args)
    if args.lm_eval or args.inspect:  # evaluation logs: a long table of per-case scores
        long, inputs, a, b = _read_eval_logs(args)
        case = "case_id"  # the readers' id column
    elif args.long:
        if len(args.files) != 1:
            msg = "--long takes exactly one CSV file"
            raise _Usage(msg)
        if not (args.a and args.b):
            msg = "--long needs --a and --b (the two model names)"
            raise _Usage(msg)
        long, info = _read_csv(args.files[0])
        inputs = [info]
        a, b = args.a, args.b
        case = args.id_column or ("sample_id" if "case_id" not in long.columns
                                  and "sample_id" in long.columns else "case_id")  # fmt: skip
    else:
        if len(args.files) != 2:
            msg = "give two CSV files (model A, then model B), or one with --long" + (
                f"; {len(args.files)} files compare several models with --baseline NAME "
                "or --all-pairs"
                if len(args.files) > 2
                else ""
            )
            raise _Usage(msg)
        if args.score:
            msg = "--score applies to --long tables; prediction files need --target"
            raise _Usage(msg)
        (fa, ia), (fb, ib) = _read_csv(args.files[0]), _read_csv(args.files[1])
        inputs = [ia, ib]
        case = _id_column(args.id_column, (fa, fb), args.files)
        for path, frame in zip(args.files, (fa, fb), strict=True):
            missing = [c for c in [prediction] if isinstance(c, str) and c not in frame.columns]
            if missing and args.target is not None and not args.prediction_columns:
                msg = (
                    f"{path} has no prediction column {missing[0]!r}; name it with "
                    "--prediction-column NAME (or one column per class with "
                    f"--prediction-columns); its columns: {', '.join(map(str, frame.columns))}"
                )
                raise _Usage(msg)
        a, b = args.names or (Path(args.files[0]).stem, Path(args.files[1]).stem)
        if a == b:
            msg = f"both files are named {a!r}; give --names A B"
            raise _Usage(msg)
        long = pdpaired.from_tables(fa, fb, id=case, names=(a, b), model=args.model_column)
    score_mode = args.score is not None
    if score_mode == (args.target is not None):
        msg = "give either --score (score mode) or --target with --prediction-column(s)"
        raise _Usage(msg)
    if not score_mode and not prediction:
        msg = "prediction mode needs --prediction-column or --prediction-columns"
        raise _Usage(msg)
    accessor = long.paired(
        case=case,
        model=args.model_column,
        score=args.score if score_mode else None,
        group=args.group_column,
        stratum=args.stratum_column,
        target=args.target,
        prediction=prediction if not score_mode else None,
    )
    metric = args.metric or ("mean" if score_mode else None)
    if metric is None:
        msg = "prediction mode needs --metric (e.g. auroc, log_loss, rmse)"
        raise _Usage(msg)
    cmp = accessor.compare(
        a, b, metric=metric, higher_is_better=args.higher_is_better, missing=args.missing,
        fill_value=args.fill_value,
        class_labels=_labels(args.class_labels, long, args.target),
        threshold=args.threshold,
    )  # fmt: skip
    if args.task_type is not None:
        task = cmp.task
        fits = ("binary", "multiclass") if args.task_type == "classification" else (args.task_type,)
        if task not in fits:
            msg = (
                f"--task-type {args.task_type} does not match the data and metric, which make "
                f"a {task} task"
            )
            raise _Usage(msg)
    return cmp, inputs


# --------------------------------------------------------------------------- several models
def _check_many_args(args: argparse.Namespace) -> None:
    """Check the flags of a several-model comparison, before any work."""
    flag = f"--baseline {args.baseline}" if args.baseline is not None else "--all-pairs"
    if args.lm_eval or args.inspect:
        msg = f"{flag} takes prediction files or a --long table, not evaluation logs"
        raise _Usage(msg)
    if args.a or args.b:
        msg = f"--a and --b name two models; {flag} compares several (drop --a/--b)"
        raise _Usage(msg)
    if args.permutations not in (None, 0):
        msg = (
            f"--permutations does not apply to {flag}: the several-model report tests each "
            "comparison with its joint bootstrap p-value, adjusted across comparisons (--adjust)"
        )
        raise _Usage(msg)
    for given, name in ((args.slice_columns, "--slice-columns"),
                        (args.include_slice_uncertainty, "--include-slice-uncertainty"),
                        (args.alternative != "two-sided", "--alternative")):  # fmt: skip
        if given:
            msg = f"{name} applies to two models; {flag} reports every comparison as a whole"
            raise _Usage(msg)
    if args.all_pairs and args.fail_on:
        msg = (
            "--fail-on gates candidates against a baseline: use --baseline NAME (each "
            "candidate must pass), not --all-pairs"
        )
        raise _Usage(msg)
    if args.fail_on == "not-noninferior" and args.noninferiority_margin is None:
        msg = "--fail-on not-noninferior needs --noninferiority-margin"
        raise _Usage(msg)
    _check_log_and_gate_args(args)


def _read_many(args: argparse.Namespace) -> tuple[Any, str, list[str] | None, list[Any]]:
    """Read the inputs of several models into one long table.

    Returns the long table, the id column, the models in the files' order
    (None for a ``--long`` table: its models, sorted) and the inputs' provenance.
    """
    import pandas as pd

    import pdpaired

    if args.long:
        if len(args.files) != 1:
            msg = "--long takes exactly one CSV file"
            raise _Usage(msg)
        if args.names:
            msg = "--names applies to files; a --long table names its models in its model column"
            raise _Usage(msg)
        long, info = _read_csv(args.files[0])
        case = args.id_column or ("sample_id" if "case_id" not in long.columns
                                  and "sample_id" in long.columns else "case_id")  # fmt: skip
        return long, case, None, [info]
    if len(args.files) < 2:
        msg = "give two or more CSV files (one per model), or one with --long"
        raise _Usage(msg)
    if args.score:
        msg = "--score applies to --long tables; prediction files need --target"
        raise _Usage(msg)
    names = list(args.names) if args.names else [Path(f).stem for f in args.files]
    if len(names) != len(args.files):
        msg = f"--names takes one name per file: {len(args.files)} files, {len(names)} names"
        raise _Usage(msg)
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        msg = f"several files are named {', '.join(map(repr, twice))}; give --names, one per file"
        raise _Usage(msg)
    read = [_read_csv(f) for f in args.files]
    frames, inputs = [f for f, _ in read], [i for _, i in read]
    case = _id_column(args.id_column, frames, args.files)
    prediction = args.prediction_columns or args.prediction_column or "prediction"
    for path, frame in zip(args.files, frames, strict=True):
        if (
            args.target is not None
            and isinstance(prediction, str)
            and prediction not in frame.columns
            and not args.prediction_columns
        ):
            msg = (
                f"{path} has no prediction column {prediction!r}; name it with "
                "--prediction-column NAME (or one column per class with "
                f"--prediction-columns); its columns: {', '.join(map(str, frame.columns))}"
            )
            raise _Usage(msg)
    # every file is checked against the first one (same columns, unique ids) as two files are
    model = args.model_column
    pairs = [
        pdpaired.from_tables(frames[0], f, id=case, names=(names[0], n), model=model)
        for f, n in zip(frames[1:], names[1:], strict=True)
    ]
    long = pd.concat(
        [pairs[0], *(p[p[model] == n] for p, n in zip(pairs[1:], names[2:], strict=True))],
        ignore_index=True,
    )
    return long, case, names, inputs


def _compare_many(args: argparse.Namespace) -> int:
    """``pdpaired compare`` with --baseline or --all-pairs: one report of every comparison."""
    from pdpaired._lib.format import printable

    _check_many_args(args)
    if args.out:
        _check_out(Path(args.out))
    long, case, names, inputs = _read_many(args)
    prediction: Any = args.prediction_columns or args.prediction_column
    if args.target is not None and args.score is None and not prediction:
        prediction = "prediction"
    score_mode = args.score is not None
    if score_mode == (args.target is not None):
        msg = "give either --score (score mode) or --target with --prediction-column(s)"
        raise _Usage(msg)
    accessor = long.paired(
        case=case, model=args.model_column, score=args.score if score_mode else None,
        group=args.group_column, stratum=args.stratum_column, target=args.target,
        prediction=prediction if not score_mode else None,
    )  # fmt: skip
    metric = args.metric or ("mean" if score_mode else None)
    if metric is None:
        msg = "prediction mode needs --metric (e.g. auroc, log_loss, rmse)"
        raise _Usage(msg)
    kw: dict[str, Any] = {
        "metric": metric, "higher_is_better": args.higher_is_better, "missing": args.missing,
        "fill_value": args.fill_value,
        "class_labels": _labels(args.class_labels, long, args.target),
        "threshold": args.threshold, "n_resamples": args.resamples,
        "confidence_level": args.confidence_level, "method": args.method, "rng": args.seed,
        "practical_threshold": args.practical_threshold,
        "noninferiority_margin": args.noninferiority_margin,
        "adjust": None if args.adjust == "none" else args.adjust,
    }  # fmt: skip
    if args.baseline is not None:
        present = names if names is not None else None
        if present is not None and args.baseline not in present:
            msg = (
                f"--baseline {args.baseline}: no file has that model name; the models are "
                f"{', '.join(present)} (the file stems, or --names)"
            )
            raise _Usage(msg)
        others = None if names is None else [n for n in names if n != args.baseline]
        res = accessor.against(args.baseline, others, **kw)
    else:
        res = accessor.all_pairs(names, **kw)
    if args.task_type is not None:
        fits = ("binary", "multiclass") if args.task_type == "classification" else (args.task_type,)
        if res.task not in fits:
            msg = (
                f"--task-type {args.task_type} does not match the data and metric, which make "
                f"a {res.task} task"
            )
            raise _Usage(msg)
    text = str(res) + ("\n\n" + str(res.ranks()) if res.same_cases else "")
    for line in text.splitlines():  # labels come from the data: escaped line by line
        print(printable(line))
    if args.out:
        paths = res.save(args.out, inputs=inputs)
        print()
        for path in paths.values():
            print(f"wrote {printable(path)}")
    gates = res.gate(args.fail_on) if args.fail_on else ()
    if args.summary_markdown:
        text = res.to_markdown() + "".join("\n" + g.to_markdown() for g in gates)
        with open(args.summary_markdown, "a", encoding="utf-8") as f:
            f.write(text if text.endswith("\n") else text + "\n")
    if not gates:
        return 0
    print()
    for g in gates:
        print(printable(str(g)))
    return max(int(g.exit_code) for g in gates)


# --------------------------------------------------------------------------- logs and gates
def _check_log_and_gate_args(args: argparse.Namespace) -> None:
    """Check the evaluation-log and release-gate flags, before any work."""
    logs = args.lm_eval or args.inspect
    flag = "--lm-eval" if args.lm_eval else "--inspect"
    if logs:
        if len(args.files) != 2:
            msg = f"{flag} takes two inputs: model A's run, then model B's"
            raise _Usage(msg)
        for bad, name in [(args.long, "--long"), (args.a or args.b, "--a/--b"),
                          (args.score, "--score"), (args.target, "--target")]:  # fmt: skip
            if bad:
                msg = f"{name} does not apply to {flag}: the logs hold the per-case scores"
                raise _Usage(msg)
    if args.scorer and not args.inspect:
        msg = "--scorer applies to --inspect logs"
        raise _Usage(msg)
    if (args.tasks or args.lm_eval_filter) and not args.lm_eval:
        msg = "--tasks and --lm-eval-filter apply to --lm-eval runs"
        raise _Usage(msg)
    if args.fail_on == "not-noninferior" and args.noninferiority_margin is None:
        msg = "--fail-on not-noninferior needs --noninferiority-margin"
        raise _Usage(msg)
    if args.summary_markdown:
        target = Path(args.summary_markdown)
        if target.is_dir() or not target.parent.is_dir():
            msg = f"--summary-markdown {target}: not a file in an existing directory"
            raise _Usage(msg)
        if not os.access(target if target.exists() else target.parent, os.W_OK):
            msg = f"--summary-markdown {target} cannot be written"
            raise _Usage(msg)


def _read_eval_logs(args: argparse.Namespace) -> tuple[Any, list[dict[str, str]], str, str]:
    """Read both runs with pdpaired.io into one long table; set the score-mode options."""
    import pandas as pd

    from pdpaired.io import read_inspect, read_lm_eval
    from pdpaired.artifacts.digests import file_sha256

    names: list[str | None] = list(args.names) if args.names else [None, None]
    frames = []
    for path, name in zip(args.files, names, strict=True):
        if not Path(path).exists():
            msg = f"input not found: {path}"
            raise _Usage(msg)
        if args.lm_eval:
            frame = read_lm_eval(path, model=name, metric=args.metric, tasks=args.tasks,
                                 filter=args.lm_eval_filter)  # fmt: skip
        else:
            frame = read_inspect(path, scorer=args.scorer, model=name)
        frames.append(frame)
    labels = [str(f["model"].iloc[0]) if len(f) else "" for f in frames]
    if labels[0] == labels[1]:  # e.g. two runs of one model: name them after their paths
        labels = [Path(p).stem if Path(p).is_file() else Path(p).resolve().name
                  for p in args.files]  # fmt: skip
        if labels[0] == labels[1]:
            msg = f"both runs are model {labels[0]!r}; name them with --names A B"
            raise _Usage(msg)
        frames = [f.assign(model=lab) for f, lab in zip(frames, labels, strict=True)]
    hib = {f.attrs.get("higher_is_better") for f in frames}
    sources = [src for f in frames for src in f.attrs.get("source_files", [])]
    if args.inspect and any((f["epoch"] != 1).any() for f in frames):
        # one score per case: the mean over epochs (inspect's default reducer); a case with
        # a missing epoch stays missing (NaN), for the --missing policy to handle
        frames = [
            f.groupby(["case_id", "model"], as_index=False, sort=True)
            .agg(score=("score", lambda s: s.mean(skipna=False)), epochs=("epoch", "size"),
                 **{c: (c, "first") for c in f.columns if c not in
                    ("case_id", "model", "score", "epoch", "error")})
            for f in frames
        ]  # fmt: skip
        from pdpaired._lib.format import printable

        print(printable(f"note: {', '.join(args.files)}: several epochs per sample; comparing "
                        "the mean score over epochs per case"), file=sys.stderr)  # fmt: skip
    if args.higher_is_better is None:
        if len(hib) != 1 or None in hib:
            msg = (
                "the logs do not say whether a higher score is better: give "
                "--higher-is-better or --lower-is-better"
            )
            raise _Usage(msg)
        args.higher_is_better = hib.pop()
    inputs = [{"path": os.fspath(src), "sha256": file_sha256(src)} for src in sources]
    long = pd.concat(frames, ignore_index=True)
    args.score, args.metric = "score", None  # score mode: the mean of the per-case score
    return long, inputs, labels[0], labels[1]


def _summary_and_gate(args: argparse.Namespace, rep: Any) -> int:
    """Append the Markdown summary (--summary-markdown) and apply the gate (--fail-on)."""
    result = rep.gate(args.fail_on) if args.fail_on else None
    if args.summary_markdown:
        text = rep.to_markdown()
        if result is not None:
            text += "\n" + result.to_markdown()
        with open(args.summary_markdown, "a", encoding="utf-8") as f:
            f.write(text if text.endswith("\n") else text + "\n")
    if result is None:
        return 0
    from pdpaired._lib.format import printable

    print()
    print(printable(str(result)))  # the reason names the models: no control characters
    return int(result.exit_code)


#: Python argument names in pdpaired's messages, and the flags that set them.
_FLAGS = {
    "class_labels": "--class-labels", "threshold": "--threshold", "metric": "--metric",
    "missing": "--missing", "fill_value": "--fill-value", "n_resamples": "--resamples",
    "n_permutations": "--permutations", "confidence_level": "--confidence-level",
    "method": "--method", "alternative": "--alternative",
    "practical_threshold": "--practical-threshold",
    "noninferiority_margin": "--noninferiority-margin", "min_size": "--min-slice-size",
    "min_slice_size": "--min-slice-size", "columns": "--slice-columns",
    "slice_uncertainty": "--include-slice-uncertainty", "rng": "--seed",
    "higher_is_better": "--higher-is-better or --lower-is-better",
}  # fmt: skip


def as_flags(message: str) -> str:
    """Say a Python-API message in the command line's words: flags, not arguments.

    Examples
    --------
    >>> from pdpaired.cli.main import as_flags
    >>> as_flags("binary targets must be 0/1; pass class_labels=(negative, positive)")
    'binary targets must be 0/1; give --class-labels NEGATIVE POSITIVE'
    >>> as_flags("use missing='complete-case' or missing='as-failure'")
    'use --missing complete-case or --missing as-failure'
    """
    import re

    message = message.replace(
        "pass class_labels=(negative, positive)", "give --class-labels NEGATIVE POSITIVE"
    ).replace("Pass class_labels=[...]", "Give --class-labels (one per column)")
    message = message.replace(
        "(accuracy, BLEU: True) or worse (loss, error, latency: False)",
        "(accuracy, BLEU: --higher-is-better) or worse (loss, error, latency: --lower-is-better)",
    )
    message = re.sub(r"\bpass metric= ", "give --metric ", message)
    message = re.sub(  # check_columns' advice: the column flags
        r"Configure names with df\.paired\([^)]*\)( or, in prediction mode, df\.paired\([^)]*\))?",
        "Name the columns with --id-column, --model-column, --score, --target, "
        "--prediction-column(s), --group-column or --stratum-column",
        message,
    )
    message = re.sub(r"`df\.paired\(case=\.\.\.\)`", "--id-column", message)
    message = re.sub(r"\bdf\.paired\(case=\.\.\.\)", "--id-column", message)
    message = re.sub(r"\bn_permutations=0\b", "--permutations 0", message)
    message = re.sub(  # class_labels=('neg', 'pos') -> --class-labels neg pos
        r"\bclass_labels=[(\[]([^)\]]*)[)\]]",
        lambda m: "--class-labels " + " ".join(v.strip(" '\"") for v in m.group(1).split(",")),
        message,
    )

    def flag(m: re.Match[str]) -> str:
        name, value = m.group(1), m.group(2)
        if name not in _FLAGS:
            return m.group(0)
        if not value:
            return _FLAGS[name]
        return f"{_FLAGS[name]} {value.strip(chr(39))}"

    # `name`, name='value' and name=value (a word, a number or a quoted word)
    message = re.sub(r"`(\w+)`()", lambda m: flag(m) if m.group(1) in _FLAGS else m.group(0),
                     message)  # fmt: skip
    message = re.sub(r"`(\w+)=('[^']*'|[\w.+-]+)`", flag, message)
    message = re.sub(r"\b(\w+)=('[^']*'|[\w.+-]+)", flag, message)
    return message


def _plan(args: argparse.Namespace) -> int:
    """``pdpaired plan``: print the plan; ``--plot`` saves the power curves, ``--report`` both."""
    from pdpaired._lib.format import printable

    for target in (args.plot, args.report):
        if target is not None:
            where = Path(target)
            _check_out(where.parent if str(where.parent) else Path("."))
    cmp, _ = _load(args)
    res = cmp.plan(
        power=args.power, alpha=args.alpha, alternative=args.alternative, effect=args.effect,
        n_cases=args.n_cases, method=args.plan_method, n_simulations=args.simulations,
        rng=args.seed, test=args.plan_test, practical_threshold=args.practical_threshold,
    )  # fmt: skip
    print(res)
    sens, note = None, None
    if args.missing != "error" and (cmp.missing.n_missing_a or cmp.missing.n_missing_b):
        try:
            sens = cmp.sensitivity(lower=args.score_range[0], upper=args.score_range[1])
        except ValueError as err:
            note = f"missing-outcome sensitivity not computed: {printable(err)}"
            print(f"\n({note})")
        else:
            print()
            print(sens)
    plot = args.plot
    if plot is None and args.report is not None:
        plot = str(Path(args.report).with_suffix(".power.png"))
    if plot is not None:
        from matplotlib.figure import Figure

        Path(plot).parent.mkdir(parents=True, exist_ok=True)
        fig = Figure(figsize=(9, 3.4), layout="constrained")
        ax1, ax2 = fig.subplots(1, 2)
        res.plot(ax=ax1)
        res.plot(ax=ax2, x="cases")
        fig.savefig(plot, dpi=110)
        print(f"\nwrote {printable(plot)}")
    if args.report is not None:
        _plan_report(Path(args.report), res, sens, note, Path(plot) if plot else None)
        print(f"wrote {printable(args.report)}")
    return 0


def _plan_report(path: Path, res: Any, sens: Any, note: str | None, plot: Path | None) -> None:
    """Write the plan's Markdown report, its images linked relative to it."""
    from pdpaired._lib.format import md_escape

    def rel(p: Path) -> str:
        return os.path.relpath(p.resolve(), path.resolve().parent).replace(os.sep, "/")

    parts = [res.to_markdown(image=None if plot is None else rel(plot))]
    if sens is not None:
        from matplotlib.figure import Figure

        image = path.with_suffix(".sensitivity.png")
        fig = Figure(figsize=(6.5, 3.6), layout="constrained")
        sens.plot(ax=fig.add_subplot())
        fig.savefig(image, dpi=110)
        parts.append(sens.to_markdown(image=rel(image)))
    elif note is not None:
        parts.append(f"{md_escape(note)}.\n")
    path.write_text("\n".join(parts), encoding="utf-8")


def _verify(args: argparse.Namespace) -> int:
    import pdpaired
    from pdpaired._lib.format import printable

    art = pdpaired.verify(args.artifact)
    if "comparisons" in art:  # several models (artifact v2)
        an = art["analysis"]
        what = f"against {an['baseline']}" if an["kind"] == "against" else "all pairs"
        print(
            printable(
                f"OK: {args.artifact} is a valid {art['kind']} {art['artifact']} artifact "
                f"({len(art['models'])} models, {len(art['comparisons'])} comparison(s) {what}, "
                f"{art['metric']['name']}; digest {art['digest'][:12]}...)."
            )
        )
        return 0
    print(  # the names come from the file: shown with control characters escaped
        printable(
            f"OK: {args.artifact} is a valid {art['kind']} {art['artifact']} artifact "
            f"({art['models']['a']} vs {art['models']['b']}, {art['metric']['name']}, "
            f"{art['n_cases']} cases; digest {art['digest'][:12]}...)."
        )
    )
    return 0


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    """Print a warning for a command-line user: its category and message, no source line.

    A file and line number would name pdpaired's or the launcher's code, never
    the user's, so they are left out (as the error messages leave out tracebacks).
    """
    from pdpaired._lib.format import printable

    text = _one_line(f"warning: {category.__name__}: {as_flags(str(message))}")
    print(printable(text), file=sys.stderr if file is None else file)


def _one_line(message: str) -> str:
    """Return a message on one line: a list of problems becomes ``"...: a; b"``."""
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    if len(lines) <= 1:
        return lines[0] if lines else ""
    return lines[0] + " " + "; ".join(line.removeprefix("- ") for line in lines[1:])


def _error(err: BaseException) -> int:
    """Print ``error: <message>`` on one line of stderr (data escaped); return exit status 2."""
    from pdpaired._lib.format import printable

    print(printable(_one_line(f"error: {as_flags(str(err))}")), file=sys.stderr)
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (0 success, 2 bad input)."""
    from pdpaired._lib.errors import ArtifactError

    try:
        args = _parser().parse_args(argv)
        with warnings.catch_warnings():
            warnings.simplefilter("default")  # warnings go to stderr, never fail the run
            warnings.showwarning = _show_warning  # restored by catch_warnings
            run = {"compare": _compare, "plan": _plan, "verify": _verify}[args.command]
            return run(args)
    except _Usage as err:
        return _error(err)
    except (ValueError, TypeError, ArtifactError) as err:  # PairingError is a ValueError
        return _error(err)
    except OSError as err:  # e.g. --out not writable
        return _error(err)
    except SystemExit as err:  # --help
        return int(err.code or 0)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
