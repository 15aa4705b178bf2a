"""The ``pdpaired`` command line: ``pdpaired compare``, ``pdpaired plan`` and ``pdpaired verify``.

Exit status 0 on success, 2 on bad input (the message on stderr, no
traceback). ``compare`` prints the result block on stdout and, with
``--out``, writes the three artifacts of :meth:`pdpaired.Comparison.report`.
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

  # a long table of per-case scores (one row per case and model)
  pdpaired compare results.csv --long --a candidate --b baseline --score score \\
      --higher-is-better --group-column prompt_group --out reports/
"""

_EPILOG_VERIFY = """\
examples:
  pdpaired verify reports/comparison.shareable.json
  pdpaired verify reports/comparison.json
"""


_EPILOG_PLAN = """\
examples:
  # how many cases would detect a 0.5-point improvement? (0/1 scores: exact McNemar power)
  pdpaired plan results.csv --long --a knn --b logreg --score correct --higher-is-better \\
      --effect 0.005 --plot power.png

  # by simulation, clustered cases
  pdpaired plan results.csv --long --a new --b old --score score --higher-is-better \\
      --group-column prompt_group --effect 0.02 --method simulation --seed 0
"""


class _Usage(Exception):
    """Bad input from the command line: exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # argparse's own usage errors
        self.print_usage(sys.stderr)
        msg = f"{self.prog}: {message}"
        raise _Usage(msg)


def _add_inputs(p: argparse.ArgumentParser) -> None:
    """Add the options that say how to read and pair the input (``compare`` and ``plan``)."""
    p.add_argument("files", nargs="+", help="two CSV files (A then B), or one with --long")
    p.add_argument("--long", action="store_true", help="one long CSV: a row per (case, model)")
    p.add_argument("--a", help="--long: model A (the candidate)")
    p.add_argument("--b", help="--long: model B (the baseline)")
    p.add_argument("--names", nargs=2, metavar=("A", "B"), help="model names of the two files")
    p.add_argument("--id-column", default=None, help="case id column (default: case_id)")
    p.add_argument("--model-column", default="model", help="--long: model column (default: model)")
    p.add_argument("--score", help="--long score mode: the per-case score column")
    direction = p.add_mutually_exclusive_group()
    direction.add_argument("--higher-is-better", dest="higher_is_better", action="store_true",
                           default=None, help="score mode: a larger score is better")  # fmt: skip
    direction.add_argument("--lower-is-better", dest="higher_is_better", action="store_false",
                           help="score mode: a smaller score is better")  # fmt: skip
    p.add_argument("--target", help="prediction mode: the target column")
    p.add_argument("--prediction-column", help="prediction mode: one prediction column")
    p.add_argument("--prediction-columns", nargs="+", help="multiclass: one column per class")
    p.add_argument("--task-type", choices=("binary", "multiclass", "regression"),
                   help="prediction mode: checked against the metric")  # fmt: skip
    p.add_argument("--metric", default=None, help="metric (prediction mode), e.g. auroc, rmse")
    p.add_argument("--class-labels", nargs="+", help="(negative positive), or one per column")
    p.add_argument("--threshold", type=float, default=0.5, help="label metrics (default 0.5)")
    p.add_argument("--group-column", help="cluster column (resampled as whole groups)")
    p.add_argument("--stratum-column", help="stratum column")
    p.add_argument("--missing", default="error", choices=("error", "complete-case", "as-failure"))
    p.add_argument("--fill-value", type=float, help="the value --missing as-failure fills in")


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
    c.add_argument("--permutations", type=int, default=5_000, help="randomization assignments")
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
    c.add_argument("--out", help="directory for comparison.json, .shareable.json and .md")
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
    pl.add_argument("--seed", type=int, default=None, help="seed of the simulation")
    pl.add_argument("--plot", default=None, help="PNG file for the power curves")
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

    from pdpaired.report import file_sha256

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


def _compare(args: argparse.Namespace) -> int:
    from pdpaired._format import printable

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
    )  # fmt: skip
    print(rep)
    if args.out:
        paths = rep.save(args.out)
        print()
        for path in paths.values():
            print(f"wrote {printable(path)}")
    return 0


def _load(args: argparse.Namespace) -> tuple[Any, list[dict[str, str]]]:
    """Read the input files of ``compare`` / ``plan`` and pair them: the comparison and inputs."""
    import pdpaired

    case = args.id_column or "case_id"
    prediction: Any = args.prediction_columns or args.prediction_column
    if not args.long and (args.a or args.b):
        msg = "--a and --b name the models of a --long table; for two files use --names A B"
        raise _Usage(msg)
    if args.long and args.names:
        msg = "--names applies to two files; a --long table names its models with --a and --b"
        raise _Usage(msg)
    if args.long:
        if len(args.files) != 1:
            msg = "--long takes exactly one CSV file"
            raise _Usage(msg)
        if not (args.a and args.b):
            msg = "--long needs --a and --b (the two model names)"
            raise _Usage(msg)
        long, info = _read_csv(args.files[0])
        inputs = [info]
        a, b = args.a, args.b
    else:
        if len(args.files) != 2:
            msg = "give two CSV files (model A, then model B), or one with --long"
            raise _Usage(msg)
        if args.score:
            msg = "--score applies to --long tables; prediction files need --target"
            raise _Usage(msg)
        (fa, ia), (fb, ib) = _read_csv(args.files[0]), _read_csv(args.files[1])
        inputs = [ia, ib]
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
        if task != args.task_type:
            msg = (
                f"--task-type {args.task_type} does not match the data and metric, which make "
                f"a {task} task"
            )
            raise _Usage(msg)
    return cmp, inputs


def _plan(args: argparse.Namespace) -> int:
    """``pdpaired plan``: print the plan; with ``--plot``, save the power curves."""
    from pdpaired._format import printable

    if args.plot is not None:
        plot = Path(args.plot)
        _check_out(plot.parent if str(plot.parent) else Path("."))
    cmp, _ = _load(args)
    res = cmp.plan(
        power=args.power, alpha=args.alpha, alternative=args.alternative, effect=args.effect,
        n_cases=args.n_cases, method=args.plan_method, n_simulations=args.simulations,
        rng=args.seed,
    )  # fmt: skip
    print(res)
    if args.missing != "error" and (cmp.missing.n_missing_a or cmp.missing.n_missing_b):
        try:
            sens = cmp.sensitivity(lower=args.score_range[0], upper=args.score_range[1])
        except ValueError as err:
            print(f"\n(missing-outcome sensitivity not computed: {printable(err)})")
        else:
            print()
            print(sens)
    if args.plot is not None:
        from matplotlib.figure import Figure

        fig = Figure(figsize=(9, 3.4), layout="constrained")
        ax1, ax2 = fig.subplots(1, 2)
        res.plot(ax=ax1)
        res.plot(ax=ax2, x="cases")
        fig.savefig(args.plot, dpi=110)
        print(f"\nwrote {printable(args.plot)}")
    return 0


def _verify(args: argparse.Namespace) -> int:
    import pdpaired
    from pdpaired._format import printable

    art = pdpaired.verify(args.artifact)
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
    from pdpaired._format import printable

    text = _one_line(f"warning: {category.__name__}: {message}")
    print(printable(text), file=sys.stderr if file is None else file)


def _one_line(message: str) -> str:
    """Return a message on one line: a list of problems becomes ``"...: a; b"``."""
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    if len(lines) <= 1:
        return lines[0] if lines else ""
    return lines[0] + " " + "; ".join(line.removeprefix("- ") for line in lines[1:])


def _error(err: BaseException) -> int:
    """Print ``error: <message>`` on one line of stderr (data escaped); return exit status 2."""
    from pdpaired._format import printable

    print(printable(_one_line(f"error: {err}")), file=sys.stderr)
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (0 success, 2 bad input)."""
    from pdpaired._errors import ArtifactError

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
