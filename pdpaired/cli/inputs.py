"""The inputs ``compare`` and ``plan`` read: CSV files, a long table or evaluation logs.

Both subcommands take the same input flags (files, columns, score or
prediction mode, the missing-outcome policy); :func:`load_comparison` reads
them into one two-model :class:`~pdpaired.Comparison`, with the provenance
(path and SHA-256) of every file read. The checks that run before any work --
``--out`` writable, the id column present, the evaluation-log and release-gate
flags consistent -- live here too, and every bad input raises
:class:`UsageError`, which the command line reports with exit status 2.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "Table",
    "UsageError",
    "check_log_and_gate_args",
    "check_out",
    "file_names",
    "id_column",
    "load_comparison",
    "load_samples",
    "load_table",
    "read_csv",
    "typed_class_labels",
]


class UsageError(Exception):
    """Bad input from the command line: exit status 2."""


#: The columns read as text wherever a file has them: case ids are labels, so ``007`` and
#: ``7`` are two cases (pandas would read both as the number 7).
ID_COLUMNS = ("sample_id", "case_id")


def read_csv(path: str, id_column: str | None = None) -> tuple[Any, dict[str, str]]:
    """Read a CSV input; return the table and its provenance (path and SHA-256).

    The id column (``id_column``, and ``sample_id`` / ``case_id``) is read as
    text; a header that names a column twice is refused (pandas would rename
    the second copy and the first would be read silently).
    """
    import csv

    import pandas as pd

    from pdpaired.artifacts.digests import file_sha256

    p = Path(path)
    if not p.is_file():  # (is_file follows links; a FIFO or a device is not read)
        what = "is not a regular file" if p.exists() else "file not found"
        msg = f"input {what}: {path}"
        raise UsageError(msg)
    try:
        with open(p, encoding="utf-8-sig", newline="") as f:
            header = next(csv.reader(f), [])
        twice = sorted({c for c in header if header.count(c) > 1})
        if twice:
            msg = (
                f"rule `unique column names`: {path} names the column(s) "
                f"{', '.join(map(repr, twice))} more than once in its header; rename or drop "
                "the duplicates"
            )
            raise UsageError(msg)
        ids = {c for c in (id_column, *ID_COLUMNS) if c is not None and c in header}
        frame = pd.read_csv(p, dtype=dict.fromkeys(ids, str))
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError,
            csv.Error) as err:  # fmt: skip
        msg = f"cannot read {path} as CSV: {err}"
        raise UsageError(msg) from err
    except OSError as err:
        msg = f"cannot read {path}: {err.strerror or err}"
        raise UsageError(msg) from err
    return frame, {"path": os.fspath(p), "sha256": file_sha256(p)}


def typed_class_labels(values: Sequence[str] | None, frame: Any, column: str | None) -> Any:
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


def check_out(out: Path) -> None:
    """``--out`` must be a directory we can create or write, checked before any work."""
    if out.exists() and not out.is_dir():
        msg = f"--out {out} exists and is not a directory"
        raise UsageError(msg)
    parent = out
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        msg = f"--out {out} cannot be created or written (check {parent})"
        raise UsageError(msg)


def id_column(given: str | None, frames: Sequence[Any], names: Sequence[str]) -> str:
    """Return the case id column: ``--id-column``, else ``sample_id``, else ``case_id``."""
    if given is not None:
        for path, frame in zip(names, frames, strict=True):
            if given not in frame.columns:
                msg = (
                    f"--id-column {given}: {path} has no such column; its columns: "
                    f"{', '.join(map(str, frame.columns))}"
                )
                raise UsageError(msg)
        return given
    for name in ("sample_id", "case_id"):
        if all(name in f.columns for f in frames):
            return name
    cols = ", ".join(map(str, frames[0].columns))
    msg = (
        f"no id column: {' and '.join(names)} have neither sample_id nor case_id (in every "
        f"file); name the id column with --id-column NAME (columns: {cols})"
    )
    raise UsageError(msg)


def file_names(given: Sequence[str] | None, files: Sequence[str], what: str) -> list[str]:
    """Return the model names of several input files: ``--names`` or the stems, distinct."""
    names = list(given) if given else [Path(f).stem for f in files]
    if len(names) != len(files):
        msg = f"--names takes one name per {what}: {len(files)} files, {len(names)} names"
        raise UsageError(msg)
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        shown = ", ".join(map(repr, twice))
        msg = f"several {what}s are named {shown}; give --names, one per {what}"
        raise UsageError(msg)
    return names


def load_comparison(args: argparse.Namespace) -> tuple[Any, list[dict[str, Any]]]:
    """Read the inputs ``compare`` and ``plan`` share; return the comparison and the inputs."""
    read = load_table(args)
    cmp = read.accessor.compare(read.a, read.b, **read.compare_kw)
    if args.task_type is not None:
        task = cmp.task
        fits = ("binary", "multiclass") if args.task_type == "classification" else (args.task_type,)
        if task not in fits:
            msg = (
                f"--task-type {args.task_type} does not match the data and metric, which make "
                f"a {task} task"
            )
            raise UsageError(msg)
    return cmp, read.inputs


@dataclass(frozen=True)
class Table:
    """The inputs read: the long table and its configured accessor, the models, the keywords."""

    accessor: Any
    long: Any
    a: str
    b: str
    compare_kw: dict[str, Any]
    inputs: list[dict[str, Any]]


def load_table(args: argparse.Namespace) -> Table:
    """Read the inputs into one long table; return its accessor, the models and the keywords.

    ``compare`` and ``plan`` build their two-model comparison from it
    (:func:`load_comparison`); ``compare --task-column`` runs the suite on it.
    """
    import pdpaired

    prediction: Any = args.prediction_columns or args.prediction_column
    if args.target is not None and args.score is None and not prediction:
        prediction = "prediction"  # PrivateLabBench's default prediction column
    if not (args.long or args.promptfoo) and (args.a or args.b):
        msg = "--a and --b name the models of a --long table; for two files use --names A B"
        raise UsageError(msg)
    if args.names and len(args.names) != 2 and not args.long:
        msg = (
            f"--names takes one name per file: 2 files, {len(args.names)} names (more than "
            "two files compare with --baseline NAME or --all-pairs)"
        )
        raise UsageError(msg)
    if args.long and args.names:
        msg = "--names applies to two files; a --long table names its models with --a and --b"
        raise UsageError(msg)
    check_log_and_gate_args(args)
    if args.lm_eval or args.inspect or args.helm:  # evaluation logs: per-case scores
        long, inputs, a, b = _read_eval_logs(args)
        case = "case_id"  # the readers' id column
    elif args.promptfoo:  # one results file holds every provider: a long table
        long, inputs, a, b = _read_promptfoo(args)
        case = "case_id"
    elif args.long:
        if len(args.files) != 1:
            msg = "--long takes exactly one CSV file"
            raise UsageError(msg)
        if not (args.a and args.b):
            msg = "--long needs --a and --b (the two model names)"
            raise UsageError(msg)
        long, info = read_csv(args.files[0], args.id_column)
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
            raise UsageError(msg)
        if args.score:
            msg = "--score applies to --long tables; prediction files need --target"
            raise UsageError(msg)
        (fa, ia), (fb, ib) = (read_csv(f, args.id_column) for f in args.files)
        inputs = [ia, ib]
        case = id_column(args.id_column, (fa, fb), args.files)
        for path, frame in zip(args.files, (fa, fb), strict=True):
            missing = [c for c in [prediction] if isinstance(c, str) and c not in frame.columns]
            if missing and args.target is not None and not args.prediction_columns:
                msg = (
                    f"{path} has no prediction column {missing[0]!r}; name it with "
                    "--prediction-column NAME (or one column per class with "
                    f"--prediction-columns); its columns: {', '.join(map(str, frame.columns))}"
                )
                raise UsageError(msg)
        a, b = args.names or (Path(args.files[0]).stem, Path(args.files[1]).stem)
        if a == b:
            msg = f"both files are named {a!r}; give --names A B"
            raise UsageError(msg)
        long = pdpaired.from_tables(fa, fb, id=case, names=(a, b), model=args.model_column)
    score_mode = args.score is not None
    if score_mode == (args.target is not None):
        msg = "give either --score (score mode) or --target with --prediction-column(s)"
        raise UsageError(msg)
    if not score_mode and not prediction:
        msg = "prediction mode needs --prediction-column or --prediction-columns"
        raise UsageError(msg)
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
        raise UsageError(msg)
    compare_kw = {
        "metric": metric, "higher_is_better": args.higher_is_better, "missing": args.missing,
        "fill_value": args.fill_value,
        "class_labels": typed_class_labels(args.class_labels, long, args.target),
        "threshold": args.threshold,
    }  # fmt: skip
    return Table(accessor=accessor, long=long, a=a, b=b, compare_kw=compare_kw, inputs=inputs)


def load_samples(args: argparse.Namespace) -> tuple[Any, list[dict[str, Any]]]:
    """Read a ``--long`` table of samples; return the pass@k (or pass^k) comparison and inputs."""
    from pdpaired.analysis.pass_at_k import make_pass_comparison
    from pdpaired.pairs.columns import Columns

    flag, k = (
        ("--pass-at-k", args.pass_at_k) if args.pass_at_k is not None
        else ("--pass-hat-k", args.pass_hat_k)
    )  # fmt: skip
    if not args.long or len(args.files) != 1 or not (args.a and args.b):
        msg = f"{flag} reads one --long table with a row per sample; give --long FILE --a A --b B"
        raise UsageError(msg)
    check_log_and_gate_args(args)
    for given, name in ((args.target, "--target"), (args.metric, "--metric"),
                        (args.prediction_column or args.prediction_columns,
                         "--prediction-column(s)")):  # fmt: skip
        if given:
            msg = f"{name} does not apply to {flag}: each sample is scored by a 0/1 column"
            raise UsageError(msg)
    if args.higher_is_better is False:
        msg = f"{flag} is higher-is-better (a chance of success); drop --lower-is-better"
        raise UsageError(msg)
    if k < 1:
        msg = f"{flag} must be a positive integer; got {k}"
        raise UsageError(msg)
    long, info = read_csv(args.files[0], args.id_column)
    case = args.id_column or ("sample_id" if "case_id" not in long.columns
                              and "sample_id" in long.columns else "case_id")  # fmt: skip
    cols = Columns(
        case=case, model=args.model_column, score=None, group=args.group_column,
        stratum=args.stratum_column,
    )  # fmt: skip
    cmp = make_pass_comparison(
        long, cols, args.a, args.b, k=k,
        kind="pass@k" if args.pass_at_k is not None else "pass^k",
        correct=args.correct or args.score or "correct", missing=args.missing,
        fill_value=args.fill_value,
    )  # fmt: skip
    return cmp, [info]


# --------------------------------------------------------------------------- logs and gates
def check_log_and_gate_args(args: argparse.Namespace) -> None:
    """Check the evaluation-log and release-gate flags, before any work."""
    logs = args.lm_eval or args.inspect or args.helm
    flag = "--lm-eval" if args.lm_eval else "--inspect" if args.inspect else "--helm"
    if logs:
        if len(args.files) != 2:
            msg = f"{flag} takes two inputs: model A's run, then model B's"
            raise UsageError(msg)
        for bad, name in [(args.long, "--long"), (args.a or args.b, "--a/--b"),
                          (args.score, "--score"), (args.target, "--target")]:  # fmt: skip
            if bad:
                msg = f"{name} does not apply to {flag}: the logs hold the per-case scores"
                raise UsageError(msg)
        if args.helm and not args.metric:
            msg = "--helm needs --metric, the HELM statistic to compare (e.g. exact_match)"
            raise UsageError(msg)
    if args.promptfoo:
        if not args.files:
            msg = "--promptfoo takes a results.json (or one per provider)"
            raise UsageError(msg)
        for bad, name in [(args.long, "--long"), (args.names, "--names"),
                          (args.score, "--score"), (args.target, "--target")]:  # fmt: skip
            if bad:
                msg = (
                    f"{name} does not apply to --promptfoo: the results hold the per-case "
                    "scores; name the two providers with --a and --b"
                )
                raise UsageError(msg)
        if not (args.a and args.b):
            msg = "--promptfoo needs --a and --b (the two providers' labels, else their ids)"
            raise UsageError(msg)
    if args.scorer and not args.inspect:
        msg = "--scorer applies to --inspect logs"
        raise UsageError(msg)
    if (args.tasks or args.lm_eval_filter) and not args.lm_eval:
        msg = "--tasks and --lm-eval-filter apply to --lm-eval runs"
        raise UsageError(msg)
    if args.fail_on == "not-noninferior" and args.noninferiority_margin is None:
        msg = "--fail-on not-noninferior needs --noninferiority-margin"
        raise UsageError(msg)
    if args.summary_markdown:
        target = Path(args.summary_markdown)
        if target.is_dir() or not target.parent.is_dir():
            msg = f"--summary-markdown {target}: not a file in an existing directory"
            raise UsageError(msg)
        if not os.access(target if target.exists() else target.parent, os.W_OK):
            msg = f"--summary-markdown {target} cannot be written"
            raise UsageError(msg)
    if getattr(args, "html", None):
        target = Path(args.html)
        if target.is_dir() or not target.parent.is_dir():
            msg = f"--html {target}: not a file in an existing directory"
            raise UsageError(msg)
        if not os.access(target if target.exists() else target.parent, os.W_OK):
            msg = f"--html {target} cannot be written"
            raise UsageError(msg)


def _read_promptfoo(args: argparse.Namespace) -> tuple[Any, list[dict[str, str]], str, str]:
    """Read promptfoo results into one long table; check --a/--b; set the score-mode options."""
    from pdpaired.artifacts.digests import file_sha256
    from pdpaired.io import read_promptfoo

    for path in args.files:
        if not Path(path).is_file():
            msg = f"input not found: {path}"
            raise UsageError(msg)
    long = read_promptfoo(args.files, metric=args.metric)
    providers = list(dict.fromkeys(long["model"]))
    unknown = [m for m in (args.a, args.b) if m not in providers]
    if unknown:
        msg = (
            f"no provider {unknown[0]!r} in {', '.join(args.files)}; its providers: "
            f"{', '.join(map(repr, providers))}"
        )
        raise UsageError(msg)
    if args.higher_is_better is None:
        args.higher_is_better = long.attrs["higher_is_better"]  # promptfoo's scores: True
    inputs = [{"path": os.fspath(src), "sha256": file_sha256(src)}
              for src in long.attrs["source_files"]]  # fmt: skip
    args.score, args.metric = "score", None  # score mode: the mean of the per-case score
    return long, inputs, args.a, args.b


def _helm_per_case(frames: list[Any], files: Sequence[str]) -> list[Any]:
    """One score per (case, model) of HELM runs: the mean over train trials, same tasks."""
    from pdpaired._lib.format import printable

    tasks = [sorted(set(f["task"])) for f in frames]
    if not set(tasks[0]) & set(tasks[1]):
        msg = (
            f"the HELM runs are of different tasks ({'; '.join(tasks[0])} and "
            f"{'; '.join(tasks[1])}): pdpaired pairs HELM instances by task and instance id, "
            "so compare runs of the same scenario and settings"
        )
        raise UsageError(msg)
    if all((f["train_trial"] == f["train_trial"].iloc[0]).all() for f in frames if len(f)):
        return [f.drop(columns="train_trial") for f in frames]
    # HELM's own mean: over train trials; a case with a missing trial stays missing (NaN)
    print(printable(f"note: {', '.join(files)}: several train trials per instance; comparing "
                    "the mean score over train trials per case"), file=sys.stderr)  # fmt: skip
    return [
        f.groupby(["case_id", "model"], as_index=False, sort=True)
        .agg(score=("score", lambda s: s.mean(skipna=False)),
             train_trials=("train_trial", "size"),
             **{c: (c, "first") for c in f.columns if c not in
                ("case_id", "model", "score", "train_trial", "error")})
        for f in frames
    ]  # fmt: skip


def _read_eval_logs(args: argparse.Namespace) -> tuple[Any, list[dict[str, str]], str, str]:
    """Read both runs with pdpaired.io into one long table; set the score-mode options."""
    import pandas as pd

    from pdpaired.artifacts.digests import file_sha256
    from pdpaired.io import read_helm, read_inspect, read_lm_eval

    names: list[str | None] = list(args.names) if args.names else [None, None]
    frames = []
    for path, name in zip(args.files, names, strict=True):
        if not Path(path).exists():
            msg = f"input not found: {path}"
            raise UsageError(msg)
        if args.lm_eval:
            frame = read_lm_eval(path, model=name, metric=args.metric, tasks=args.tasks,
                                 filter=args.lm_eval_filter)  # fmt: skip
        elif args.helm:
            frame = read_helm(path, metric=args.metric, model=name)
        else:
            frame = read_inspect(path, scorer=args.scorer, model=name)
        frames.append(frame)
    labels = [str(f["model"].iloc[0]) if len(f) else "" for f in frames]
    if labels[0] == labels[1]:  # e.g. two runs of one model: name them after their paths
        labels = [Path(p).stem if Path(p).is_file() else Path(p).resolve().name
                  for p in args.files]  # fmt: skip
        if labels[0] == labels[1]:
            msg = f"both runs are model {labels[0]!r}; name them with --names A B"
            raise UsageError(msg)
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
            raise UsageError(msg)
        args.higher_is_better = hib.pop()
    if args.helm:
        frames = _helm_per_case(frames, args.files)
    inputs = [{"path": os.fspath(src), "sha256": file_sha256(src)} for src in sources]
    long = pd.concat(frames, ignore_index=True)
    args.score, args.metric = "score", None  # score mode: the mean of the per-case score
    return long, inputs, labels[0], labels[1]
