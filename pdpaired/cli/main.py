"""The ``pdpaired`` command line: the parser, the dispatch and how problems are shown.

``pdpaired compare`` (:mod:`pdpaired.cli.compare`), ``pdpaired plan``
(:mod:`pdpaired.cli.plan`), ``pdpaired verify`` and ``pdpaired sign``
(:mod:`pdpaired.cli.verify`) share one parser, built here with every flag and
its help. Exit status 0 on success, 2 on bad input (the message on stderr, on
one line, in the command line's words -- flags, not Python arguments -- and no
traceback), 1 when a ``--fail-on`` release gate fails. Warnings are shown the same way, without the
source line. The inputs ``compare`` and ``plan`` share are read by
:mod:`pdpaired.cli.inputs`.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Sequence
from typing import Any, TextIO

from pdpaired._lib.progress import progress_scope
from pdpaired.cli.compare import compare
from pdpaired.cli.inputs import UsageError
from pdpaired.cli.plan import plan
from pdpaired.cli.verify import sign, verify

#: ``--method``: every method ``bootstrap`` accepts (kept light: no numerical import here).
METHOD_CHOICES = (
    "auto", "percentile", "basic", "bca", "studentized", "calibrated", "tango", "newcombe",
)  # fmt: skip

__all__ = ["EXIT_CLOSED_PIPE", "EXIT_INTERRUPTED", "METHOD_CHOICES", "as_flags", "main"]


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
  pdpaired compare --promptfoo results.json --a candidate --b baseline --missing as-failure
  pdpaired compare --helm "runs/v1/mmlu:subject=anatomy,model=org_new" \\
      "runs/v1/mmlu:subject=anatomy,model=org_old" \\
      --metric exact_match --higher-is-better

  # machine translation: corpus BLEU (or chrf, chrf++, ter), documents as the unit
  pdpaired compare --sacrebleu ref.txt sys_a.txt sys_b.txt --metric bleu --documents docs.txt

  # retrieval: the mean nDCG@10 over every judged query (unanswered queries score 0)
  pdpaired compare --trec qrels.txt run_a.txt run_b.txt --metric nDCG@10

  # a suite of tasks: A vs B within each task, pooled across tasks (random effects)
  pdpaired compare results.csv --long --a new --b old --score correct --higher-is-better \\
      --task-column task --seed 0 --out reports/ --fail-on not-a-better

  # a release gate in CI: exit 1 unless the candidate is not worse by more than 0.02
  pdpaired compare --lm-eval new/ old/ --metric acc --noninferiority-margin 0.02 \\
      --fail-on not-noninferior --summary-markdown "$GITHUB_STEP_SUMMARY"
"""

_EPILOG_VERIFY = """\
examples:
  pdpaired verify reports/comparison.shareable.json
  pdpaired verify reports/comparison.json
  (two-model artifacts are paired-comparison-artifact/v1; several models: v2;
  a suite of tasks: paired-suite-artifact/v1, its pooling recomputed from the tasks)

  # who produced it: the signature `pdpaired sign` wrote beside it, with the signer's key
  pdpaired verify reports/comparison.shareable.json --public-key team.pub
"""

_EPILOG_SIGN = """\
examples:
  # an Ed25519 key pair (OpenSSL); keep signing-key.pem private, publish signing-key.pub
  openssl genpkey -algorithm ed25519 -out signing-key.pem
  openssl pkey -in signing-key.pem -pubout -out signing-key.pub
  pdpaired sign reports/comparison.shareable.json --key signing-key.pem
  pdpaired verify reports/comparison.shareable.json --public-key signing-key.pub
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


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # argparse's own usage errors
        self.print_usage(sys.stderr)
        msg = f"{self.prog}: {message}"
        raise UsageError(msg)


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
    # -- text and retrieval files (pdpaired.io.sacrebleu, pdpaired.io.trec) ------------------
    corpus = c.add_mutually_exclusive_group()
    corpus.add_argument("--sacrebleu", action="store_true",
                        help="the inputs are REF SYS_A SYS_B ... (plain text, one segment a "
                        "line); --metric bleu (default), chrf, chrf++ or ter, recomputed "
                        "from each resample's totals (needs sacrebleu)")  # fmt: skip
    corpus.add_argument("--trec", action="store_true",
                        help="the inputs are QRELS RUN_A RUN_B ... (TREC format); --metric "
                        "is one ir_measures measure (nDCG@10, AP, RR, R@100), its mean over "
                        "the judged queries compared (needs ir_measures)")  # fmt: skip
    c.add_argument("--documents", metavar="FILE",
                   help="--sacrebleu: the document id of each segment, one a line; the "
                   "documents are resampled as whole groups")  # fmt: skip
    c.add_argument("--tokenize", help="--sacrebleu --metric bleu: sacrebleu's tokenizer "
                   "(13a, intl, zh, ja-mecab, char, none, ...)")  # fmt: skip
    c.add_argument("--lowercase", action="store_true",
                   help="--sacrebleu: lowercase before scoring (bleu, chrf)")  # fmt: skip


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
    samples = c.add_mutually_exclusive_group()
    samples.add_argument("--pass-at-k", type=int, metavar="K",
                         help="--long, a row per sample: compare pass@K, the chance that one "
                         "of K attempts is correct (unbiased per case)")  # fmt: skip
    samples.add_argument("--pass-hat-k", type=int, metavar="K",
                         help="--long, a row per sample: compare pass^K, the chance that all K "
                         "attempts are correct (unbiased per case)")  # fmt: skip
    c.add_argument("--correct", metavar="COLUMN",
                   help="--pass-at-k/--pass-hat-k: the 0/1 column of each sample (default: "
                   "the --score column, else correct)")  # fmt: skip
    c.add_argument("--resamples", type=int, default=10_000, help="bootstrap resamples")
    c.add_argument("--permutations", type=int, default=None,
                   help="randomization assignments (default 5000; 0 skips the test)")  # fmt: skip
    c.add_argument("--confidence-level", type=float, default=0.95)
    c.add_argument("--method", default="auto", choices=METHOD_CHOICES,
                   help="interval method (default auto: chosen from the design)")  # fmt: skip
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
    c.add_argument("--audit", action="store_true",
                   help="also run the design audit (cmp.audit()): each interval method's coverage "
                        "on this design; printed, and recorded in comparison.json")  # fmt: skip
    c.add_argument("--audit-simulations", type=int, default=400, metavar="N",
                   help="--audit: outer resamples of the design (default 400)")  # fmt: skip
    c.add_argument("--out", help="directory for comparison.json, .shareable.json and .md")
    c.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="a progress bar on stderr for analyses past 2 s (default: when stderr is "
                        "a terminal; needs tqdm); --no-progress: never")  # fmt: skip
    # -- a suite of tasks (pdpaired.analysis.suite): each task's comparison, pooled -------------
    c.add_argument("--task-column", metavar="COLUMN",
                   help="a suite of tasks: compare A and B within each value of COLUMN and "
                   "pool the improvements (fixed and random effects, tau2, prediction "
                   "interval); --fail-on reads the random-effects interval")  # fmt: skip
    c.add_argument("--tau2", choices=("reml", "dl"), default=None,
                   help="--task-column: the between-task variance estimator "
                   "(default reml)")  # fmt: skip
    c.add_argument("--random-ci", choices=("hksj", "wald"), default=None,
                   help="--task-column: the random-effects interval, Hartung-Knapp-Sidik-"
                   "Jonkman or Wald (default hksj)")  # fmt: skip
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
    c.add_argument("--simultaneous", action=argparse.BooleanOptionalAction, default=True,
                   help="several models: intervals that cover every comparison at once (the "
                   "max-t band of the joint replicates; default); --no-simultaneous: each "
                   "comparison's own interval")  # fmt: skip
    # -- evaluation logs (pdpaired.io) and release gates (pdpaired.results.gate) --------------
    logs = c.add_mutually_exclusive_group()
    logs.add_argument("--lm-eval", action="store_true",
                      help="the two inputs are lm-evaluation-harness runs (samples_*.jsonl "
                      "files or their directories), A then B; --metric names the harness "
                      "metric")  # fmt: skip
    logs.add_argument("--inspect", action="store_true",
                      help="the two inputs are inspect_ai eval logs (.eval/.json), "
                      "A then B")  # fmt: skip
    logs.add_argument("--promptfoo", action="store_true",
                      help="the input is a promptfoo results.json holding both providers "
                      "(or one file per provider); --a and --b name the providers, --metric "
                      "a named metric instead of the result's score")  # fmt: skip
    logs.add_argument("--helm", action="store_true",
                      help="the two inputs are HELM run directories (benchmark_output/runs/"
                      "<suite>/<run>), A then B; --metric names the HELM statistic "
                      "(e.g. exact_match)")  # fmt: skip
    c.add_argument("--scorer", help="--inspect: the scorer whose value is the score")
    c.add_argument("--tasks", nargs="+", help="--lm-eval: read only these tasks")
    c.add_argument("--lm-eval-filter", help="--lm-eval: the harness filter (e.g. strict-match)")
    c.add_argument("--fail-on", choices=_FAIL_ON,
                   help="exit 1 when the verdict meets this condition (0 otherwise)")  # fmt: skip
    c.add_argument("--html", metavar="PATH",
                   help="write the report as one self-contained HTML page (no network, no "
                   "script; what the shareable artifact holds)")  # fmt: skip
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
    pl.set_defaults(lm_eval=False, inspect=False, promptfoo=False, helm=False, scorer=None,
                    tasks=None, lm_eval_filter=None, fail_on=None, noninferiority_margin=None,
                    summary_markdown=None)  # fmt: skip
    v = sub.add_parser(
        "verify",
        help="check an artifact's schema, digest and internal consistency",
        epilog=_EPILOG_VERIFY,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    v.add_argument("artifact", help="comparison.json or comparison.shareable.json")
    v.add_argument(
        "--public-key",
        metavar="PUB",
        help="also check the artifact's Ed25519 signature with this PEM public key "
        "(needs pip install 'pdpaired[sign]')",
    )
    v.add_argument(
        "--signature",
        metavar="SIG",
        help="the signature file (default: ARTIFACT.sig beside the artifact)",
    )
    s = sub.add_parser(
        "sign",
        help="sign a valid artifact with an Ed25519 private key (writes ARTIFACT.sig)",
        epilog=_EPILOG_SIGN,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    s.add_argument("artifact", help="the artifact to sign (it is verified first)")
    s.add_argument(
        "--key",
        required=True,
        metavar="KEY",
        help="PEM Ed25519 private key; an encrypted one's passphrase is read from "
        "$PDPAIRED_SIGNING_PASSWORD",
    )
    s.add_argument(
        "--signature", metavar="SIG", help="where to write the signature (default: ARTIFACT.sig)"
    )
    return ap


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
    "higher_is_better": "--higher-is-better or --lower-is-better", "correct": "--correct",
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


def _error(err: BaseException | str) -> int:
    """Print ``error: <message>`` on one line of stderr (data escaped); return exit status 2."""
    from pdpaired._lib.format import printable

    print(printable(_one_line(f"error: {as_flags(str(err))}")), file=sys.stderr)
    return 2


#: Exit status when interrupted (Ctrl-C): 128 + SIGINT, as shells report it.
EXIT_INTERRUPTED = 130
#: Exit status when the reader of stdout went away (``| head``): 128 + SIGPIPE.
EXIT_CLOSED_PIPE = 141


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status.

    0 success, 1 a failed ``--fail-on`` gate, 2 bad input -- including what
    the machine cannot do (memory it would need, an extra not installed, a
    value beyond float64) -- with one line on stderr and never a traceback;
    130 on Ctrl-C (one line), 141 when stdout's reader closed the pipe (nothing
    printed).
    """
    from pdpaired._lib.errors import ArtifactError

    try:
        args = _parser().parse_args(argv)
        with warnings.catch_warnings():
            warnings.simplefilter("default")  # warnings go to stderr, never fail the run
            warnings.showwarning = _show_warning  # restored by catch_warnings
            run = {"compare": compare, "plan": plan, "sign": sign, "verify": verify}[args.command]
            with progress_scope(getattr(args, "progress", None)):
                return run(args)
    except UsageError as err:
        return _error(err)
    except (ValueError, TypeError, ArtifactError) as err:  # PairingError is a ValueError
        return _error(err)
    except BrokenPipeError:
        return _closed_pipe()
    except OSError as err:  # e.g. --out not writable
        return _error(err)
    except MemoryError as err:
        return _error(f"not enough memory for this run ({err or 'allocation failed'}); ask for "
                      "fewer resamples or permutations, or use a larger machine")  # fmt: skip
    except ImportError as err:  # an optional extra: its message names the pip install line
        return _error(err)
    except (RecursionError, OverflowError) as err:
        return _error(f"{type(err).__name__}: {err}")
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except SystemExit as err:  # --help
        return int(err.code or 0)


def console(argv: Sequence[str] | None = None) -> int:
    """Run :func:`main` as the ``pdpaired`` console script and ``python -m pdpaired`` do.

    The process ends right after :func:`main`. Its last step would otherwise
    be the interpreter's final cycle collection over every object pandas,
    pandera and pdpaired created (0.1-0.2 s measured on a 2-core machine, more
    than the whole comparison of 1,000 cases), which frees nothing the
    operating system does not reclaim anyway. So the objects left are frozen
    (:func:`gc.freeze`): exit handlers still run and every object still
    released by reference counting is (open files are flushed and closed), only
    that collection is skipped. Call :func:`main` to run a command in a
    process that goes on.
    """
    import gc

    code = main(argv)
    gc.freeze()
    return code


def _closed_pipe() -> int:
    """Stop quietly: point stdout at /dev/null so the interpreter's final flush cannot fail."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout without a file descriptor (captured in tests)
        pass
    return EXIT_CLOSED_PIPE


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(console())
