"""``pdpaired compare``: one pair of models, or several, with the report and the gate.

Two inputs (CSV files, a ``--long`` table, two evaluation-log runs of
``--lm-eval``, ``--inspect`` or ``--helm``, or the two providers of a
``--promptfoo`` results file) give one :meth:`pdpaired.Comparison.report`;
``--baseline`` or ``--all-pairs`` compare several models in one report
(artifact ``v2``) from :meth:`DataFrame.paired.against
<pdpaired.PairedAccessor.against>` / ``all_pairs``. Either way the result
block goes to stdout, ``--out`` writes the artifacts, ``--html`` the
self-contained HTML page, ``--summary-markdown`` appends the Markdown report
and ``--fail-on`` turns the verdict into the exit status (1 when the release
gate fails).
``--pass-at-k K`` / ``--pass-hat-k K`` read a ``--long`` table with a row
per sample and compare the per-case unbiased pass@K / pass^K estimates
(:mod:`pdpaired.analysis.pass_at_k`) with the same report.
``--audit`` adds the design audit of the two models' comparison
(:meth:`pdpaired.Comparison.audit`), printed after the report and recorded
in the local artifact. ``--task-column COL`` runs the suite of tasks
(:meth:`DataFrame.paired.suite <pdpaired.PairedAccessor.suite>`): A and B
within each value of ``COL``, pooled across tasks; its artifact is
``paired-suite-artifact/v1`` and ``--fail-on`` reads the random-effects
interval.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path
from typing import Any

from pdpaired.cli.corpus import check_corpus_args, load_any, read_corpus
from pdpaired.cli.inputs import (
    UsageError,
    check_log_and_gate_args,
    check_out,
    file_names,
    id_column,
    load_samples,
    load_table,
    read_csv,
    typed_class_labels,
)

__all__ = ["compare"]


def compare(args: argparse.Namespace) -> int:
    """``pdpaired compare``: print the report; ``--out`` saves the artifacts, then the gate."""
    from pdpaired._lib.format import printable

    if args.resamples < 1:
        msg = f"--resamples must be a positive integer; got {args.resamples}"
        raise UsageError(msg)
    if args.audit_simulations < 2:
        msg = f"--audit-simulations must be at least 2; got {args.audit_simulations}"
        raise UsageError(msg)
    if args.task_column is not None:
        return _compare_suite(args)
    for flag, value in (("--tau2", args.tau2), ("--random-ci", args.random_ci)):
        if value is not None:
            msg = f"{flag} applies to a suite of tasks: give --task-column COLUMN"
            raise UsageError(msg)
    sampled = args.pass_at_k is not None or args.pass_hat_k is not None
    if (args.baseline is not None or args.all_pairs) and sampled:
        flag = "--pass-at-k" if args.pass_at_k is not None else "--pass-hat-k"
        msg = f"{flag} compares two models (--long with --a and --b), not --baseline/--all-pairs"
        raise UsageError(msg)
    if args.correct is not None and not sampled:
        msg = "--correct applies to --pass-at-k or --pass-hat-k"
        raise UsageError(msg)
    if args.baseline is not None or args.all_pairs:
        if args.audit:
            flag = "--baseline" if args.baseline is not None else "--all-pairs"
            msg = f"--audit applies to two models; audit each comparison of {flag} on its own"
            raise UsageError(msg)
        return _compare_many(args)
    if args.adjust != "holm":
        msg = "--adjust applies to several models (--baseline or --all-pairs)"
        raise UsageError(msg)
    if args.permutations is None:
        args.permutations = 5_000
    if args.permutations < 0:
        msg = f"--permutations must be >= 0 (0 skips the test); got {args.permutations}"
        raise UsageError(msg)
    if args.permutations == 0 and args.include_slice_uncertainty:
        msg = (
            "--permutations 0 skips the randomization test, but --include-slice-uncertainty "
            "needs the slices' p-values: give --permutations > 0"
        )
        raise UsageError(msg)
    if args.out:
        check_out(Path(args.out))
    cmp, inputs = load_samples(args) if sampled else load_any(args)
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
    if args.audit:
        audit = cmp.audit(
            n_simulations=args.audit_simulations, confidence_level=args.confidence_level,
            rng=rep.seed if rep.seed is not None else args.seed,
        )  # fmt: skip
        rep = replace(rep, audit=audit)
    print(rep)
    if args.out:
        paths = rep.save(args.out)
        print()
        for path in paths.values():
            print(f"wrote {printable(path)}")
    _write_html(args, rep)
    return _summary_and_gate(args, rep)


# --------------------------------------------------------------------------- suite of tasks
def _check_suite_args(args: argparse.Namespace) -> None:
    """Refuse, before any work, the flags a suite of tasks has no use for."""
    flag = f"--task-column {args.task_column}"
    refused = [
        (args.baseline is not None or args.all_pairs, "--baseline/--all-pairs",
         "a suite compares two models (A and B) within each task"),
        (args.pass_at_k is not None or args.pass_hat_k is not None or args.correct is not None,
         "--pass-at-k/--pass-hat-k/--correct", "a suite compares per-case scores or predictions"),
        (args.sacrebleu or args.trec, "--sacrebleu/--trec",
         "a suite reads a table with a task column (CSV files, --long or evaluation logs)"),
        (args.audit, "--audit", "audit each task's comparison on its own"),
        (args.permutations is not None, "--permutations",
         "a suite pools each task's bootstrap estimate and standard error; it runs no "
         "randomization test"),
        (args.slice_columns or args.include_slice_uncertainty,
         "--slice-columns/--include-slice-uncertainty", "the tasks are the suite's slices"),
        (args.alternative != "two-sided", "--alternative",
         "the pooled intervals are two-sided"),
        (args.score_range is not None, "--score-range",
         "a suite has no missing-outcome sensitivity bounds"),
        (args.practical_threshold != 0.0, "--practical-threshold",
         "the suite's verdict reads the random-effects interval against 0"),
        (args.adjust != "holm", "--adjust", "the suite's simultaneous per-task intervals are "
         "Šidák intervals"),
        (args.task_type is not None, "--task-type",
         "check the task type on one task's rows without --task-column"),
    ]  # fmt: skip
    for given, name, why in refused:
        if given:
            msg = f"{name} does not apply to {flag}: {why}"
            raise UsageError(msg)
    if args.fail_on == "not-noninferior" and args.noninferiority_margin is None:
        msg = "--fail-on not-noninferior needs --noninferiority-margin"
        raise UsageError(msg)


def _compare_suite(args: argparse.Namespace) -> int:
    """``pdpaired compare --task-column COL``: the suite of tasks, its artifacts and its gate."""
    from pdpaired._lib.format import printable

    _check_suite_args(args)
    if args.out:
        check_out(Path(args.out))
    read = load_table(args)
    if args.task_column not in read.long.columns:
        msg = (
            f"--task-column {args.task_column}: no such column; the table's columns: "
            f"{', '.join(map(str, read.long.columns))}"
        )
        raise UsageError(msg)
    res = read.accessor.suite(
        read.a, read.b, task=args.task_column, tau2=args.tau2 or "reml",
        random_ci=args.random_ci or "hksj", **read.compare_kw,
        n_resamples=args.resamples, confidence_level=args.confidence_level,
        method=args.method, rng=args.seed,
        noninferiority_margin=args.noninferiority_margin,
    )  # fmt: skip
    for line in str(res).splitlines():  # task labels come from the data: escaped
        print(printable(line))
    if args.out:
        paths = res.save(args.out, inputs=read.inputs)
        print()
        for path in paths.values():
            print(f"wrote {printable(path)}")
    _write_html(args, res)
    return _summary_and_gate(args, res)


# --------------------------------------------------------------------------- several models
def _check_many_args(args: argparse.Namespace) -> None:
    """Check the flags of a several-model comparison, before any work."""
    flag = f"--baseline {args.baseline}" if args.baseline is not None else "--all-pairs"
    if args.lm_eval or args.inspect or args.promptfoo or args.helm:
        msg = f"{flag} takes prediction files or a --long table, not evaluation logs"
        raise UsageError(msg)
    if args.a or args.b:
        msg = f"--a and --b name two models; {flag} compares several (drop --a/--b)"
        raise UsageError(msg)
    if args.permutations not in (None, 0):
        msg = (
            f"--permutations does not apply to {flag}: the several-model report tests each "
            "comparison with its joint bootstrap p-value, adjusted across comparisons (--adjust)"
        )
        raise UsageError(msg)
    for given, name in ((args.slice_columns, "--slice-columns"),
                        (args.include_slice_uncertainty, "--include-slice-uncertainty"),
                        (args.alternative != "two-sided", "--alternative")):  # fmt: skip
        if given:
            msg = f"{name} applies to two models; {flag} reports every comparison as a whole"
            raise UsageError(msg)
    if args.all_pairs and args.fail_on:
        msg = (
            "--fail-on gates candidates against a baseline: use --baseline NAME (each "
            "candidate must pass), not --all-pairs"
        )
        raise UsageError(msg)
    if args.fail_on == "not-noninferior" and args.noninferiority_margin is None:
        msg = "--fail-on not-noninferior needs --noninferiority-margin"
        raise UsageError(msg)
    check_log_and_gate_args(args)


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
            raise UsageError(msg)
        if args.names:
            msg = "--names applies to files; a --long table names its models in its model column"
            raise UsageError(msg)
        long, info = read_csv(args.files[0], args.id_column)
        case = args.id_column or ("sample_id" if "case_id" not in long.columns
                                  and "sample_id" in long.columns else "case_id")  # fmt: skip
        return long, case, None, [info]
    if len(args.files) < 2:
        msg = "give two or more CSV files (one per model), or one with --long"
        raise UsageError(msg)
    if args.score:
        msg = "--score applies to --long tables; prediction files need --target"
        raise UsageError(msg)
    names = file_names(args.names, args.files, "file")
    read = [read_csv(f, args.id_column) for f in args.files]
    frames, inputs = [f for f, _ in read], [i for _, i in read]
    case = id_column(args.id_column, frames, args.files)
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
            raise UsageError(msg)
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
        check_out(Path(args.out))
    if check_corpus_args(args) is not None:  # text or retrieval files
        corpus = read_corpus(args)
        long, inputs = corpus.long, corpus.inputs
        names: list[str] | None = corpus.models
        accessor = corpus.paired(args.stratum_column)
        metric, higher_is_better = corpus.metric, corpus.higher_is_better
    else:
        long, case, names, inputs = _read_many(args)
        prediction: Any = args.prediction_columns or args.prediction_column
        if args.target is not None and args.score is None and not prediction:
            prediction = "prediction"
        score_mode = args.score is not None
        if score_mode == (args.target is not None):
            msg = "give either --score (score mode) or --target with --prediction-column(s)"
            raise UsageError(msg)
        accessor = long.paired(
            case=case, model=args.model_column, score=args.score if score_mode else None,
            group=args.group_column, stratum=args.stratum_column, target=args.target,
            prediction=prediction if not score_mode else None,
        )  # fmt: skip
        metric = args.metric or ("mean" if score_mode else None)
        if metric is None:
            msg = "prediction mode needs --metric (e.g. auroc, log_loss, rmse)"
            raise UsageError(msg)
        higher_is_better = args.higher_is_better
    kw: dict[str, Any] = {
        "metric": metric, "higher_is_better": higher_is_better, "missing": args.missing,
        "fill_value": args.fill_value,
        "class_labels": typed_class_labels(args.class_labels, long, args.target),
        "threshold": args.threshold, "n_resamples": args.resamples,
        "confidence_level": args.confidence_level, "method": args.method, "rng": args.seed,
        "practical_threshold": args.practical_threshold,
        "noninferiority_margin": args.noninferiority_margin,
        "adjust": None if args.adjust == "none" else args.adjust,
        "simultaneous": args.simultaneous,
    }  # fmt: skip
    if args.baseline is not None:
        present = names if names is not None else None
        if present is not None and args.baseline not in present:
            msg = (
                f"--baseline {args.baseline}: no file has that model name; the models are "
                f"{', '.join(present)} (the file stems, or --names)"
            )
            raise UsageError(msg)
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
            raise UsageError(msg)
    text = str(res) + ("\n\n" + str(res.ranks()) if res.same_cases else "")
    for line in text.splitlines():  # labels come from the data: escaped line by line
        print(printable(line))
    if args.out:
        paths = res.save(args.out, inputs=inputs)
        print()
        for path in paths.values():
            print(f"wrote {printable(path)}")
    _write_html(args, res)
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


def _write_html(args: argparse.Namespace, res: Any) -> None:
    """``--html PATH``: write the report's self-contained HTML page (atomically)."""
    if not args.html:
        return
    from pdpaired._lib.format import printable

    res.to_html(args.html)
    if not args.out:
        print()
    print(f"wrote {printable(args.html)}")


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
