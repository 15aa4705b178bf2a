"""The ``--sacrebleu`` and ``--trec`` inputs of ``compare`` and ``plan``.

``--sacrebleu REF SYS_A SYS_B ...`` reads plain-text references and system
outputs with :func:`pdpaired.io.read_sacrebleu` and compares corpus BLEU,
chrF, chrF++ or TER (``--metric``) recomputed from each resample's totals;
``--documents FILE`` adds the document of each segment and makes it the
resampled unit. ``--trec QRELS RUN_A RUN_B ...`` scores each judged query
with :func:`pdpaired.io.read_trec` and compares the mean of one measure
(``--metric nDCG@10``). Either way the result is a long table and the
settings that configure ``df.paired`` on it; every other flag of
``compare`` applies unchanged, and the local artifact's inputs record each
file's role, digest and, for runs, the queries left unanswered or unjudged.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pdpaired.cli.inputs import UsageError, check_log_and_gate_args, file_names, load_comparison

__all__ = ["CorpusInputs", "check_corpus_args", "load_any", "read_corpus"]

#: --metric values of --sacrebleu -> (sacrebleu metric, extra options)
_SACREBLEU = {"bleu": ("bleu", {}), "chrf": ("chrf", {}), "chrf++": ("chrf", {"word_order": 2}),
              "ter": ("ter", {})}  # fmt: skip


@dataclass
class CorpusInputs:
    """A long table read from --sacrebleu or --trec files, and how to compare it."""

    long: Any
    inputs: list[dict[str, Any]]
    models: list[str]
    metric: Any  # a pdpaired.Metric (statistics) or "mean"
    score: str | None
    group: str | None
    higher_is_better: bool | None

    def paired(self, stratum: str | None) -> Any:
        """``df.paired`` on the table, configured for its score or statistics."""
        return self.long.paired(score=self.score, group=self.group, stratum=stratum)


def check_corpus_args(args: argparse.Namespace) -> str | None:
    """Check the flags that --sacrebleu / --trec exclude; return the flag in use (or None)."""
    flag = "--sacrebleu" if args.sacrebleu else "--trec" if args.trec else None
    if not args.sacrebleu:
        for given, name in ((args.documents, "--documents"), (args.tokenize, "--tokenize"),
                            (args.lowercase, "--lowercase")):  # fmt: skip
            if given:
                where = ", not --trec" if args.trec else " inputs"
                msg = f"{name} applies to --sacrebleu{where}"
                raise UsageError(msg)
    if flag is None:
        return None
    what = "REF" if args.sacrebleu else "QRELS"
    if len(args.files) < 3:
        msg = (
            f"{flag} takes {what} and then one file per system: {what} SYS_A SYS_B (more "
            f"systems with --baseline NAME or --all-pairs); got {len(args.files)} file(s)"
        )
        raise UsageError(msg)
    for bad, name in [(args.long, "--long"), (args.a or args.b, "--a/--b"),
                      (args.score, "--score"), (args.target, "--target"),
                      (args.prediction_column or args.prediction_columns, "--prediction-column"),
                      (args.class_labels, "--class-labels"),
                      (args.fill_value is not None, "--fill-value")]:  # fmt: skip
        if bad:
            msg = f"{name} does not apply to {flag}: the files hold the outputs themselves"
            raise UsageError(msg)
    if args.trec:
        if args.metric is None:
            msg = "--trec needs --metric, a measure in ir_measures' names (e.g. nDCG@10, AP, RR)"
            raise UsageError(msg)
        if args.higher_is_better is False:
            msg = (
                "--lower-is-better does not apply to --trec: every retrieval measure is "
                "higher-better"
            )
            raise UsageError(msg)
    else:
        metric = args.metric or "bleu"
        if metric not in _SACREBLEU:
            msg = f"--sacrebleu --metric must be one of {', '.join(_SACREBLEU)}; got {metric!r}"
            raise UsageError(msg)
        if args.tokenize and metric != "bleu":
            msg = f"--tokenize applies to --metric bleu (sacrebleu's {metric} has no tokenizer)"
            raise UsageError(msg)
        if args.lowercase and metric == "ter":
            msg = "--lowercase applies to bleu and chrf; TER is case-sensitive unless normalized"
            raise UsageError(msg)
        if args.higher_is_better is not None:
            msg = (
                "--higher-is-better / --lower-is-better do not apply to --sacrebleu: BLEU and "
                "chrF are higher-better, TER lower-better"
            )
            raise UsageError(msg)
    return flag


def load_any(args: argparse.Namespace) -> tuple[Any, list[dict[str, Any]]]:
    """Read the inputs of ``compare`` or ``plan``: text, retrieval or the other inputs.

    Returns the two-model comparison and the provenance of every file read,
    as :func:`pdpaired.cli.inputs.load_comparison` does for the other inputs.
    """
    if check_corpus_args(args) is None:
        return load_comparison(args)
    check_log_and_gate_args(args)
    if len(args.files) != 3:
        msg = (
            f"{len(args.files) - 1} system files compare several systems: add "
            "--baseline NAME or --all-pairs"
        )
        raise UsageError(msg)
    corpus = read_corpus(args)
    cmp = corpus.paired(args.stratum_column).compare(
        *corpus.models, metric=corpus.metric, higher_is_better=corpus.higher_is_better,
        missing=args.missing,
    )  # fmt: skip
    return cmp, corpus.inputs


def read_corpus(args: argparse.Namespace) -> CorpusInputs:
    """Read --sacrebleu or --trec files into a long table, with its provenance."""
    import warnings

    from pdpaired._lib.format import printable
    from pdpaired.artifacts.digests import file_sha256

    first, systems = args.files[0], list(args.files[1:])
    names = file_names(args.names, systems, "system file")
    for path in [first, *systems, *([args.documents] if args.documents else [])]:
        if not Path(path).is_file():
            msg = f"input {'not found' if not Path(path).exists() else 'is not a file'}: {path}"
            raise UsageError(msg)

    def entry(path: str, role: str, model: str | None = None, **extra: Any) -> dict[str, Any]:
        out: dict[str, Any] = {"path": os.fspath(path), "sha256": file_sha256(path), "role": role}
        if model is not None:
            out["model"] = model
        return {**out, **extra}

    if args.sacrebleu:
        import pdpaired.metrics
        from pdpaired.io import read_sacrebleu

        name, extra = _SACREBLEU[args.metric or "bleu"]
        options: dict[str, Any] = dict(extra)
        if args.tokenize:
            options["tokenize"] = args.tokenize
        if args.lowercase:
            options["lowercase"] = True
        try:
            long = read_sacrebleu(first, dict(zip(names, systems, strict=True)), metric=name,
                                  documents=args.documents, **options)  # fmt: skip
            metric = getattr(pdpaired.metrics, name)(**options)
        except (ValueError, TypeError, FileNotFoundError) as err:
            raise UsageError(str(err)) from err
        inputs = [entry(first, "reference", options=options)]
        inputs += [entry(p, "system", n) for p, n in zip(systems, names, strict=True)]
        if args.documents:
            inputs.append(entry(args.documents, "documents"))
        group = args.group_column or ("document" if args.documents else None)
        return CorpusInputs(long, inputs, names, metric, None, group, None)

    from pdpaired.io import read_trec

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            long = read_trec(first, dict(zip(names, systems, strict=True)), measures=args.metric)
        except (ValueError, TypeError, FileNotFoundError) as err:
            raise UsageError(str(err)) from err
    for w in caught:
        print(printable(f"note: {w.message}"), file=sys.stderr)
    unanswered, unjudged = long.attrs["unanswered"], long.attrs["unjudged"]
    inputs = [entry(first, "qrels")]
    inputs += [
        entry(p, "run", n, unanswered=list(unanswered[n]), unjudged=list(unjudged[n]))
        for p, n in zip(systems, names, strict=True)
    ]
    measure = str(long["measure"].iloc[0])  # ir_measures' canonical name, the score's label
    long = long.drop(columns=["measure"]).rename(columns={"score": measure})
    return CorpusInputs(long, inputs, names, "mean", measure, args.group_column, True)
