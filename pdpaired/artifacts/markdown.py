"""The human-readable report of two models, ``comparison.md``.

:meth:`pdpaired.ComparisonReport.to_markdown` returns :func:`report_markdown`:
the verdict, a table of the estimates, the interval, the tests and the
design, the slices, the missing-outcome sensitivity and what the interval
covers. Every label that comes from the data (model, metric, slice names) is
escaped, so it renders as text. The report of several models is
:func:`pdpaired.artifacts.multi.multi_markdown`.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import pandas as pd

from pdpaired._lib.format import fmt as _fmt
from pdpaired._lib.format import level_text as _level
from pdpaired._lib.format import md_escape as _md
from pdpaired.artifacts.checks import SHAREABLE_MIN_SLICE
from pdpaired.artifacts.verify import ARTIFACT, PROTOCOL

if TYPE_CHECKING:
    from pdpaired.artifacts.report import ComparisonReport

__all__ = ["report_markdown", "text_or_none"]


def _mc_rows(bs: Any) -> list[str]:
    """Markdown rows on the interval's Monte Carlo error and the exact-test check."""
    rows = []
    if bs.method_reason is not None:
        rows.append(f"| method | {bs.method}: {_md(bs.method_reason)} |")
    se = bs.confidence_interval_se
    if se is not None:
        stable = (
            ""
            if bs.decision_stable
            else (
                "; **a decision threshold is within 2 MC SE of its endpoint: another seed could "
                "flip it** (use more resamples)"
            )
        )
        rows.append(f"| Monte Carlo error of the endpoints | +/-{se.low:.2g} (low), "
                    f"+/-{se.high:.2g} (high){stable} |")  # fmt: skip
    if bs.exact_check is not None:
        rows.append(f"| exact test check | {bs.exact_check} |")
    return rows


def report_markdown(rep: ComparisonReport) -> str:
    """Return the Markdown report of ``rep`` (what ``comparison.md`` holds)."""
    bs, rz, eb = rep.bootstrap, rep.randomization, rep.exact_binomial

    # the labels from the data (model and metric names), escaped once for every line below
    def escaped(res: Any) -> Any:
        score = res.score_column
        return replace(
            res, a=_md(res.a), b=_md(res.b), metric=_md(res.metric),
            score_column=None if score is None else _md(score),
        )  # fmt: skip

    bs = escaped(bs)
    rz = None if rz is None else escaped(rz)
    ci = bs.confidence_interval
    arrow = "higher is better" if bs.higher_is_better else "lower is better"
    lvl = _level(bs.confidence_level)
    verdict = bs.headline(strong="**")
    if rep.agreement_note is not None:  # the tests disagree: said beside the verdict
        verdict += f" **{_md(rep.agreement_note)}**"
    if bs.noninferior is not None:
        verdict += (
            f" Noninferiority (margin {bs.noninferiority_margin:g}): "
            f"{'shown' if bs.noninferior else 'not shown'}."
        )
    lines = [
        f"# Paired comparison: {bs.a} vs {bs.b}",
        "",
        verdict,
        "",
        "| quantity | value |",
        "|---|---|",
        f"| metric | {bs.metric_label} ({arrow}; task: {rep.task}) |",
        f"| {bs.a} (A) | {_fmt(bs.metric_a, digits=6)} |",
        f"| {bs.b} (B) | {_fmt(bs.metric_b, digits=6)} |",
        f"| raw difference A - B | {_fmt(bs.raw_delta, True, 6)} |",
        f"| improvement of A over B | {_fmt(bs.improvement, True, 6)} |",
        f"| {lvl} paired interval | [{_fmt(ci.low, True, 6)}, {_fmt(ci.high, True, 6)}] "
        f"({bs.method}, {bs.n_resamples} resamples, {bs.n_valid} valid, seed {bs.seed}, "
        f"stream {bs.stream}) |",
        *_mc_rows(bs),
        "| randomization test | skipped (n_permutations=0) |"
        if rz is None
        else f"| randomization test | p = {rz.pvalue:.4g} ({rz.alternative}, "
        f"{rz.n_permutations} {'assignments, exact' if rz.exact else 'permutations'}, "
        f"{rz.unit} swaps, seed {rz.seed}, stream {rz.stream}) |",
    ]
    if bs.metric == "auroc":
        lines.append(
            "| which AUROC test | the randomization test's null is *interchangeable "
            "rankings*; for *equal AUROC* (whatever the ROC shapes) run DeLong's test, "
            "`cmp.delong()` |"
        )
    if eb is not None:
        lines.append(
            f"| exact binomial test | p = {eb.pvalue:.4g} (A only {eb.a_only}, B only "
            f"{eb.b_only}, both pass {eb.both_pass}, both fail {eb.both_fail}) |"
        )
    lines += [
        f"| cases | {bs.n_cases} ({bs.missing.describe()}) |",
        f"| design | {bs.sampling}, resampling unit {bs.unit}"
        + (f", {bs.n_groups} groups" if bs.n_groups is not None else "")
        + (f", {bs.n_strata} strata" if bs.n_strata is not None else "")
        + " |",
        "",
    ]
    if rep.slices is not None:
        # what the shareable artifact shows, no more: this text is pasted into pull requests
        # and CI summaries, so small slices are suppressed here as there
        sl = rep.slices
        block = rep.to_artifact("shareable")["slices"]
        head = "| slice | n | status | A | B | improvement | winner |"
        rule = "|---|---:|---|---:|---:|---:|---|"
        if sl.uncertainty:
            head, rule = head + " CI | adjusted p | verdict |", rule + "---|---:|---|"
        lines += ["## Slices", "", head, rule]
        for r in block["rows"]:
            row = (
                f"| {_md(r['column'])} = {_md(r['value'])} | {r['n']} | {r['status']} | "
                f"{_fmt(_num(r['metric_a']))} | {_fmt(_num(r['metric_b']))} | "
                f"{_fmt(_num(r['improvement']), True)} | {r['winner'] or ''} |"
            )
            if sl.uncertainty:
                ci = (
                    ""
                    if r["ci_low"] is None
                    else f"[{_fmt(_num(r['ci_low']), True)}, {_fmt(_num(r['ci_high']), True)}]"
                )
                row += f" {ci} | {_fmt(_num(r['pvalue_adjusted']))} | {r['verdict'] or ''} |"
            lines.append(row)
        floor = max(sl.min_size, SHAREABLE_MIN_SLICE)
        if any(r["status"] == "suppressed" for r in block["rows"]):
            lines += ["", f"Slices of fewer than {floor} cases are suppressed (label and "
                      "numbers), with the smallest others of their column when needed, so no "
                      "case's value can be recovered by subtraction."]  # fmt: skip
        lines += ["", "Slice scans are exploratory: treat a slice effect as a lead to test on new "
                  "data, not as a finding.", ""]  # fmt: skip
    if rep.sensitivity is not None:
        lines += [rep.sensitivity.to_markdown()]
    elif rep.sensitivity_note is not None:
        lines += [f"Missing-outcome sensitivity {_md(rep.sensitivity_note)}.", ""]
    if rep.split is not None:
        sp = rep.split
        unit = f", whole groups of {_md(sp['by'])}" if sp["by"] else ""
        within = f", within each value of {_md(sp['stratify'])}" if sp["stratify"] else ""
        lines += [
            f"Confirmation on fresh cases: the cases were split (fraction {sp['fraction']:g} "
            f"for selection{unit}{within}, seed {sp['seed']}) into {sp['n_selection_cases']} "
            f"selection and {sp['n_confirmation_cases']} confirmation cases; this comparison "
            "uses confirmation cases only, so the choice made on the selection part does "
            "not bias it.",
            "",
        ]
    lines += [
        "## What the interval covers, and what it does not",
        "",
        f"- It covers the sampling variation of these {bs.n_cases} evaluation cases"
        + (" (resampled as whole groups)" if bs.unit == "group" else "")
        + ", with both models scored on the same cases.",
        "- It does not cover a change of population or deployment conditions, the "
        "variation between training runs or seeds of either model, label noise in the "
        "targets, or the selection of this comparison among many (best-of-many prompts, "
        "repeated looks at the data).",
        "- A small p-value is not a large effect: read the size of the improvement and "
        "the practical threshold.",
        "",
        f"Protocol {PROTOCOL}; artifact {ARTIFACT}; pdpaired {rep.software.get('pdpaired')}.",
        "",
    ]
    return "\n".join(lines)


def text_or_none(x: Any) -> str | None:
    """Return a table cell as text; None when missing (``to_dict`` gives None or ``pd.NA``)."""
    return None if x is None or x is pd.NA else str(x)


def _num(x: Any) -> float | None:
    if x is None or x is pd.NA:
        return None
    f = float(x)
    return None if math.isnan(f) else f
