"""The report of two models, an object that saves itself as verifiable artifacts.

A :class:`ComparisonReport` (what ``cmp.report(...)`` returns, assembled by
:func:`pdpaired.analysis.report.build_report`) holds the bootstrap, the
randomization test, the exact binomial test, the slices and the
missing-outcome sensitivity. ``report.save(dir)`` writes three files
atomically:

* ``comparison.json`` -- the local artifact: everything, plus the input
  provenance (file paths and SHA-256, or a digest of the canonical in-memory
  table), the digest of the aligned id set, the design and the seeds;
* ``comparison.shareable.json`` -- aggregates only: no case ids, targets,
  predictions, paths or row-level data (small slices suppressed);
* ``comparison.md`` -- a human-readable report
  (:mod:`pdpaired.artifacts.markdown`).

``report.to_html(path)`` writes one more view, a self-contained HTML page
(:mod:`pdpaired.artifacts.html`) holding what the shareable artifact holds.

Both JSON files are :meth:`ComparisonReport.to_artifact`: the
``paired-comparison-artifact/v1`` body with its ``digest``, which
:func:`pdpaired.verify` (:mod:`pdpaired.artifacts.verify`) checks.
"""

from __future__ import annotations

import html
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from pdpaired._lib.format import jsonable as _jsonable
from pdpaired._lib.public import public
from pdpaired.artifacts.checks import SHAREABLE_MIN_SLICE
from pdpaired.artifacts.digests import content_digest
from pdpaired.artifacts.html import report_html
from pdpaired.artifacts.markdown import report_markdown, text_or_none
from pdpaired.artifacts.multi import bootstrap_fields
from pdpaired.artifacts.verify import ARTIFACT, PROTOCOL
from pdpaired.artifacts.write import write_files
from pdpaired.results.audit import AuditResult
from pdpaired.results.bootstrap import BootstrapResult
from pdpaired.results.exact_binomial import ExactBinomialResult
from pdpaired.results.gate import GateResult
from pdpaired.results.gate import gate as apply_gate
from pdpaired.results.html_report import write_html
from pdpaired.results.randomization import RandomizationResult
from pdpaired.results.sensitivity import SensitivityResult
from pdpaired.results.slices import slice_label
from pdpaired.results.verdict import disagreement

if TYPE_CHECKING:
    from pdpaired.results.slices import SliceResult

__all__ = ["SHAREABLE_MIN_SLICE", "ComparisonReport"]


@public
@dataclass(frozen=True, slots=True, kw_only=True)
class ComparisonReport:
    """The declared analysis of one comparison, ready to be saved and shared.

    Attributes
    ----------
    bootstrap : BootstrapResult
    randomization : RandomizationResult or None
        None when ``n_permutations=0`` skipped the test.
    exact_binomial : ExactBinomialResult or None
        With binary outcomes only (0/1 scores, or ``metric="accuracy"``).
    slices : SliceResult or None
    task : str
        ``"score"``, ``"binary"``, ``"multiclass"``, ``"regression"`` or
        ``"statistics"`` (a metric of per-case statistics, such as BLEU).
    threshold : float or None
        The probability threshold of binary label metrics (accuracy, F1).
    class_labels : list or None
        The class labels of a classification task (local artifact only:
        they are target values).
    seed : int or None
        The seed the user gave (or drew); every part records it too, with the
        name of its stream. The same ``report()`` call with ``rng=seed``
        reproduces every part.
    inputs : list of dict
        Provenance: ``{"path", "sha256"}`` per input file, or one
        ``{"in_memory_table_sha256"}`` (the SHA-256 of ``frame_sha256`` of the
        aligned pairs) when the table was not read from files.
    id_digest : str
        SHA-256 of the aligned, sorted case ids.
    software : dict
        Versions of pdpaired, Python, NumPy, pandas, SciPy.
    sensitivity : SensitivityResult or None
        When outcomes are missing: what they could change (the identified
        set of the improvement, the Imbens-Manski interval, the tipping
        point; :meth:`Comparison.sensitivity`, on the stream
        ``"report:sensitivity"``). None without missing outcomes, or when
        the scores are neither 0/1 nor bounded by ``score_range``.
    sensitivity_note : str or None
        Why the sensitivity was not computed although outcomes are missing.
    audit : AuditResult or None
        The design audit (:meth:`Comparison.audit`), when one was run
        (``pdpaired compare --audit``): recorded in both artifacts (aggregates
        of the design's simulations: coverage, sizes, mean widths).
    split : dict or None
        The selection / confirmation split (``df.paired.split``) whose
        confirmation part the comparison was reported on
        (:meth:`pdpaired.SplitResult.record`); the shareable artifact keeps
        its rule and counts, the local one also the digests of both parts'
        case ids.

    Notes
    -----
    The report has one primary analysis, the bootstrap interval: its verdict
    is the headline of every view (:meth:`headline`). The tests beside it
    answer the same question, whether the improvement is 0; when a
    two-sided test disagrees with the interval at the same level,
    :attr:`agreement` is False, the headline says so in words and a release
    gate reads the comparison as not established (:meth:`gate`).
    """

    bootstrap: BootstrapResult
    randomization: RandomizationResult | None
    exact_binomial: ExactBinomialResult | None
    slices: SliceResult | None
    task: str
    threshold: float | None
    class_labels: list[Any] | None = field(compare=False)
    seed: int | None
    inputs: list[dict[str, str]] = field(compare=False)
    id_digest: str
    software: dict[str, str] = field(compare=False)
    sensitivity: SensitivityResult | None = None
    sensitivity_note: str | None = field(default=None, compare=False)
    audit: AuditResult | None = field(default=None, compare=False)
    split: dict[str, Any] | None = field(default=None, compare=False)

    # -- the one judgement -----------------------------------------------------
    @property
    def agreement_note(self) -> str | None:
        """The sentence saying which test disagrees with the interval about 0, or None.

        Compared: each two-sided test of the report (the randomization test;
        the exact binomial test with 0/1 scores) read at ``1 -
        confidence_level``, the level of the interval; and the bootstrap's
        own exact check of few discordant pairs
        (:attr:`BootstrapResult.exact_check`). A one-sided test is not
        compared: it answers another question.
        """
        bs, rz, eb = self.bootstrap, self.randomization, self.exact_binomial
        tests = []
        if rz is not None:
            tests.append(("the randomization test", rz.pvalue, rz.statistic, rz.alternative))
        if eb is not None:
            tests.append(("the exact binomial test", eb.pvalue, eb.a_only - eb.b_only,
                          eb.alternative))  # fmt: skip
        ci = bs.confidence_interval
        if bs.verdict == "undetermined":  # a degenerate interval decides nothing to contradict
            return None
        note = disagreement(ci.low, ci.high, confidence_level=bs.confidence_level, tests=tests)
        return bs.agreement_note if note is None else note

    @property
    def agreement(self) -> bool:
        """Whether every test of the report agrees with the interval about 0.

        False when a two-sided test rejects no difference while the interval
        includes 0, or does not reject while the interval excludes it, at
        the same level (:attr:`agreement_note` says which). Then the
        headline says so beside the verdict and :meth:`gate` reads the
        comparison as not established: ``"not-a-better"`` fails and
        ``"b-better"`` does not.

        Examples
        --------
        >>> from pdpaired.datasets import load_digits_cv
        >>> rep = load_digits_cv().paired(score="correct").compare(
        ...     "knn", "logreg", higher_is_better=True).report(
        ...     n_resamples=1000, n_permutations=1000, rng=0)
        >>> rep.agreement, rep.agreement_note is None
        (True, True)
        """
        return self.agreement_note is None

    def headline(self, *, strong: str = "") -> str:
        """Return the verdict of the interval in one sentence, and any test that disagrees.

        Parameters
        ----------
        strong : str, default ""
            Wraps the verdict (``"**"`` for Markdown).

        Returns
        -------
        str
            :meth:`BootstrapResult.headline`, followed by
            :attr:`agreement_note` when a test disagrees.
        """
        head = self.bootstrap.headline(strong=strong)
        note = self.agreement_note
        return head if note is None else f"{head} {strong}{note}{strong}"

    # -- artifacts -------------------------------------------------------------
    def to_artifact(self, kind: str = "local") -> dict[str, Any]:
        """Return the artifact dict (``"local"`` or ``"shareable"``), digest included."""
        if kind not in ("local", "shareable"):
            msg = f"`kind` must be 'local' or 'shareable'; got {kind!r}."
            raise ValueError(msg)
        bs, rz, eb = self.bootstrap, self.randomization, self.exact_binomial
        art: dict[str, Any] = {
            "protocol": PROTOCOL,
            "artifact": ARTIFACT,
            "kind": kind,
            "metric": {
                "name": bs.metric,
                "higher_is_better": bs.higher_is_better,
                "task": self.task,
                "threshold": self.threshold,
            },
            "randomization": None
            if rz is None
            else {
                "statistic": rz.statistic,
                "pvalue": rz.pvalue,
                "pvalue_se": rz.pvalue_se,
                "alternative": rz.alternative,
                "n_permutations": rz.n_permutations,
                "exact": rz.exact,
                "unit": rz.unit,
                "seed": rz.seed,
                "stream": rz.stream,
            },
            "exact_binomial": None
            if eb is None
            else {
                "a_only": eb.a_only,
                "b_only": eb.b_only,
                "both_pass": eb.both_pass,
                "both_fail": eb.both_fail,
                "pvalue": eb.pvalue,
                "alternative": eb.alternative,
                "mid_p": eb.mid_p,
            },
            "slices": None if self.slices is None else _slice_block(self.slices, kind),
            "software": dict(self.software),
            **bootstrap_fields(bs),
        }
        art["agreement"] = {"agrees": self.agreement, "note": self.agreement_note}
        if self.sensitivity is not None:  # optional: only when outcomes are missing
            art["sensitivity"] = self.sensitivity.artifact_block()
        if self.audit is not None:  # optional: only when an audit was run (aggregates only)
            art["audit"] = self.audit.artifact_block()
        if self.split is not None:  # optional: the ids' digests in the local artifact only
            art["split"] = {k: v for k, v in self.split.items()
                            if kind == "local" or not k.endswith("_sha256")}  # fmt: skip
        if kind == "local":
            art["local"] = {
                "inputs": [dict(x) for x in self.inputs],
                "aligned_ids_sha256": self.id_digest,
                "seed": self.seed,
                "stratum_weights": bs.stratum_weights,
                "class_labels": self.class_labels,
            }
        art = _jsonable(art)
        art["digest"] = content_digest(art)
        return art

    def to_markdown(self) -> str:
        """Return the human-readable report (``comparison.md``)."""
        return report_markdown(self)

    def to_html(self, path: str | os.PathLike[str] | None = None) -> str:
        """Return the report as one self-contained HTML page; write it to ``path`` if given.

        The page needs no network and no script: CSS inline, plots inline
        as SVG, a content security policy that forbids every request. It
        starts with the verdict in words, then the interval plot and the
        bootstrap's numbers, the tests, the slices (table and forest plot),
        the missing-outcome sensitivity, what the interval covers, and the
        provenance with how to verify: the shareable artifact itself, to
        save as ``comparison.shareable.json`` and check with ``pdpaired
        verify``. It holds only what that artifact holds -- no case ids, no
        per-case values, no input paths, small slices suppressed -- and every
        label from the data is
        escaped. The same report gives the same bytes.

        Parameters
        ----------
        path : str or path-like, optional
            Write the page here, atomically (a temporary file beside it,
            then one rename); its directory must exist.

        Returns
        -------
        str
            The HTML document.

        Examples
        --------
        >>> from pdpaired.datasets import load_digits_cv
        >>> rep = load_digits_cv().paired(score="correct").compare(
        ...     "knn", "logreg", higher_is_better=True).report(
        ...     n_resamples=1000, n_permutations=1000, rng=0)
        >>> page = rep.to_html()
        >>> page.startswith("<!DOCTYPE html>"), "<script" in page, "<svg" in page
        (True, False, True)
        """
        return write_html(report_html(self), path)

    def save(self, directory: str | os.PathLike[str]) -> dict[str, Path]:
        """Write ``comparison.json``, ``comparison.shareable.json`` and ``comparison.md``.

        All or none, even if the process is killed: the three files are
        written into a fresh sibling directory and swapped in with one
        atomic step, under a lock, so ``directory`` holds either the old set
        or the new one (see :mod:`pdpaired.artifacts.write`); its other
        regular files stay. ``directory`` is created if needed; it must hold
        only regular files and not be the working directory.

        Returns
        -------
        dict
            ``{"local": path, "shareable": path, "markdown": path}``.
        """
        out = Path(directory)
        texts = {
            "local": (out / "comparison.json", _dump(self.to_artifact("local"))),
            "shareable": (out / "comparison.shareable.json", _dump(self.to_artifact("shareable"))),
            "markdown": (out / "comparison.md", self.to_markdown()),
        }
        write_files(out, list(texts.values()))
        return {k: v[0] for k, v in texts.items()}

    # -- views -------------------------------------------------------------------
    def __str__(self) -> str:
        blocks = [self.bootstrap, self.randomization, self.exact_binomial]
        shown = [r for r in blocks if r is not None]
        width = max(r.key_width() for r in shown)  # the parts' labels line up
        texts = [r.text(width) for r in shown]
        texts[0] = self.bootstrap.text(width, headline=self.headline())
        parts = "\n\n".join(texts).split("\n")
        if self.randomization is None:
            parts += ["", "Randomization test skipped (n_permutations=0)."]
        if self.slices is not None:
            parts += ["", str(self.slices)]
        if self.sensitivity is not None:
            parts += ["", str(self.sensitivity)]
        elif self.sensitivity_note is not None:
            parts += ["", f"Missing-outcome sensitivity {self.sensitivity_note}."]
        if self.audit is not None:
            parts += ["", str(self.audit)]
        return "\n".join(parts)

    def __repr__(self) -> str:
        bs, rz = self.bootstrap, self.randomization
        return (
            f"ComparisonReport(a={bs.a!r}, b={bs.b!r}, metric={bs.metric!r}, "
            f"improvement={bs.improvement:.6g}, verdict={bs.verdict!r}, "
            f"pvalue={'None' if rz is None else format(rz.pvalue, '.4g')}, "
            f"slices={self.slices is not None}, seed={self.seed!r})"
        )

    def _repr_html_(self) -> str:
        parts = [self.bootstrap.html(headline=self.headline())]
        if self.randomization is not None:
            parts.append(self.randomization._repr_html_())
        if self.exact_binomial is not None:
            parts.append(self.exact_binomial._repr_html_())
        if self.slices is not None:
            parts.append(self.slices._repr_html_())
        if self.sensitivity is not None:
            parts.append(self.sensitivity._repr_html_())
        elif self.sensitivity_note is not None:
            note = html.escape(self.sensitivity_note)
            parts.append(f"<p>Missing-outcome sensitivity {note}.</p>")
        if self.audit is not None:
            parts.append(self.audit._repr_html_())
        caption = html.escape(f"Comparison report: {self.bootstrap.a} vs {self.bootstrap.b}")
        return f"<div class='pdpaired-report'><h4>{caption}</h4>{''.join(parts)}</div>"

    def to_dict(self) -> dict[str, Any]:
        """Return the local artifact as a JSON-safe dict."""
        return self.to_artifact("local")

    def to_frame(self) -> pd.DataFrame:
        """Return a one-row tidy summary (estimate, interval, p-values, decisions)."""
        bs, rz, eb = self.bootstrap, self.randomization, self.exact_binomial
        row = bs.to_frame().iloc[0].to_dict()
        row["randomization_pvalue"] = None if rz is None else rz.pvalue
        row["exact_binomial_pvalue"] = None if eb is None else eb.pvalue
        row["task"] = self.task
        row["agreement"] = self.agreement
        return pd.DataFrame([row])

    # -- release gate ----------------------------------------------------------
    def gate(self, fail_on: str) -> GateResult:
        """Apply a release gate: exit code 1 when the verdict meets ``fail_on``, else 0.

        Parameters
        ----------
        fail_on : {"b-better", "not-a-better", "not-noninferior"}
            ``"b-better"`` fails when B is better (the whole interval below
            ``-practical_threshold``); ``"not-a-better"`` fails unless A is
            better (the whole interval above ``practical_threshold``);
            ``"not-noninferior"`` fails unless noninferiority is shown (needs
            ``noninferiority_margin``).

        Returns
        -------
        GateResult
            ``exit_code`` (1 fail, 0 pass), ``failed``, ``verdict``, ``reason``;
            what ``pdpaired compare ... --fail-on`` exits with.

        Examples
        --------
        >>> from pdpaired.datasets import load_digits_cv
        >>> rep = load_digits_cv().paired(score="correct").compare(
        ...     "logreg", "knn", higher_is_better=True).report(
        ...     n_resamples=1000, n_permutations=1000, rng=0)
        >>> g = rep.gate("not-a-better")
        >>> g.exit_code, g.verdict
        (1, 'b_better')
        """
        return apply_gate(self, fail_on)


def _dump(artifact: dict[str, Any]) -> str:
    return (
        json.dumps(artifact, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n"
    )


def _suppressed(table: pd.DataFrame, smallest: int) -> set[int]:
    """Rows hidden from the shareable artifact.

    Every slice below ``smallest`` cases, and per column, while the hidden
    slices together hold fewer than ``smallest`` cases, the smallest shown
    slice too: otherwise the overall metric minus the shown slices would
    reveal a hidden slice by subtraction.
    """
    hidden: set[int] = set()
    for _, sub in table.groupby("column", sort=False):
        sizes = sub["n"].astype(int)
        small = set(sizes.index[sizes < smallest])
        shown = sizes.drop(index=list(small)).sort_values(kind="stable")
        while small and sum(int(sizes[i]) for i in small) < smallest and len(shown):
            small.add(shown.index[0])
            shown = shown.iloc[1:]
        hidden |= small
    return hidden


def _slice_block(res: SliceResult, kind: str) -> dict[str, Any]:
    rows = []
    smallest = max(res.min_size, SHAREABLE_MIN_SLICE)
    hidden = _suppressed(res.table, smallest) if kind == "shareable" else set()
    for i, r in zip(res.table.index, res.table.to_dict(orient="records"), strict=True):
        if i in hidden:
            row_s: dict[str, Any] = dict.fromkeys(("metric_a", "metric_b", "improvement", "winner"))
            row_s.update(column=str(r["column"]), value="(suppressed)", n=int(r["n"]),
                         status="suppressed")  # fmt: skip
            if res.uncertainty:
                row_s.update(dict.fromkeys(("ci_low", "ci_high", "pvalue", "pvalue_adjusted",
                                            "verdict")))  # fmt: skip
            rows.append(row_s)
            continue
        row = {
            "column": str(r["column"]),
            "value": slice_label(r["value"]),
            "n": int(r["n"]),
            "status": str(r["status"]),
            "metric_a": r["metric_a"],
            "metric_b": r["metric_b"],
            "improvement": r["improvement"],
            "winner": None if r["winner"] is pd.NA else r["winner"],
        }
        if res.uncertainty:
            row.update(ci_low=r["ci_low"], ci_high=r["ci_high"], pvalue=r["pvalue"],
                       pvalue_adjusted=r["pvalue_adjusted"],
                       verdict=text_or_none(r["verdict"]))  # fmt: skip
        rows.append(row)
    # Cochran's Q of a column is computed from every reported slice: with one of them
    # suppressed, it would be one more equation in the hidden slices' effects
    leaky = {str(res.table.loc[i, "column"]) for i in hidden
             if res.table.loc[i, "status"] == "reported"}  # fmt: skip
    return {
        "columns": list(res.columns),
        "min_size": res.min_size,
        "uncertainty": res.uncertainty,
        "adjust": res.adjust,
        "rows": rows,
        "heterogeneity": {c: h for c, h in res.heterogeneity.items() if c not in leaky},
    }
