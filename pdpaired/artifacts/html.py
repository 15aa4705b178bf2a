"""The HTML reports of two models and of several: one file, built from the shareable artifact.

:meth:`pdpaired.ComparisonReport.to_html` returns :func:`report_html` and
:meth:`pdpaired.MultiResult.to_html` returns :func:`multi_html`. Each page
starts with the verdict in words, then the plots and tables, then the
provenance and how to verify (the shareable artifact itself, to save and
run ``pdpaired verify`` on). What a page shows is what the shareable
artifact holds: the numbers of the interval plot, of the slices' table and
forest plot and of the rank sets are read from that artifact (so a small
slice is suppressed here as there), and the result blocks shown beside them
hold aggregates the artifact records too; so is the design audit's table,
when the report holds an audit. The page itself is assembled by
:mod:`pdpaired.results.html_report`.
"""

from __future__ import annotations

import html
import math
from typing import TYPE_CHECKING, Any

from pdpaired._lib.format import fmt as _fmt
from pdpaired._lib.format import level_text as _level
from pdpaired._lib.format import plot_text
from pdpaired.artifacts.checks import SHAREABLE_MIN_SLICE
from pdpaired.results.display import html_table
from pdpaired.results.html_report import (
    artifact_section,
    page,
    paragraph,
    scroll,
    section,
    svg_figure,
    wrap,
    wrap_ticks,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from pdpaired.analysis.multi_result import MultiResult
    from pdpaired.artifacts.report import ComparisonReport

__all__ = ["multi_html", "report_html"]

#: The shareable artifact's file name, as ``save()`` writes it.
SHAREABLE_NAME = "comparison.shareable.json"


def _num(x: Any) -> float | None:
    if x is None:
        return None
    f = float(x)
    return None if math.isnan(f) else f


def _cell(x: Any, signed: bool = False) -> str:
    return _fmt(_num(x), signed)


def _thresholds(ax: Axes, decisions: dict[str, Any]) -> None:
    """Draw 0, the practical threshold ±t and the noninferiority margin as vertical lines."""
    ax.axvline(0.0, color="0.2", lw=1.0)
    t = decisions.get("practical_threshold") or 0.0
    if t:
        ax.axvline(t, color="C2", lw=1, ls=":", label=f"practical threshold ±{t:g}")
        ax.axvline(-t, color="C2", lw=1, ls=":")
    margin = decisions.get("noninferiority_margin")
    if margin is not None:
        ax.axvline(-margin, color="C1", lw=1, ls="--", label=f"noninferiority margin -{margin:g}")


def _interval_figure(art: dict[str, Any]) -> str:
    """Return the interval plot: the improvement, its interval, 0 and the decision thresholds."""
    iv, dec = art["interval"], art["decisions"]
    a, b = art["models"]["a"], art["models"]["b"]
    est = _num(art["improvement_a_over_b"])
    low, high = _num(iv["low"]), _num(iv["high"])
    level = _level(iv["confidence_level"])

    from matplotlib.ticker import MaxNLocator

    def draw(ax: Axes) -> None:
        if low is not None and high is not None:
            ax.plot([low, high], [0, 0], color="C0", lw=3, solid_capstyle="butt",
                    label=f"{level} paired interval")  # fmt: skip
        if est is not None:
            ax.plot([est], [0], "D", color="k", ms=7, label="improvement")
        _thresholds(ax, dec)
        ax.set_yticks([])
        ax.set_ylim(-1, 1)
        ax.set_xlabel(wrap(plot_text(f"improvement of {a} over {b}")) + "\n(> 0: A better)")
        ax.xaxis.set_major_locator(MaxNLocator(5))
        ax.figure.legend(loc="outside lower center", ncol=2, fontsize="small", frameon=False)

    alt = (
        f"Improvement of {a} over {b}: {_cell(est, True)}, {level} interval "
        f"[{_cell(low, True)}, {_cell(high, True)}]"
    )
    return svg_figure(draw, figsize=(5.0, 2.6), alt=alt, caption=alt + ".")


def _slice_rows(block: dict[str, Any]) -> list[dict[str, Any]]:
    """Return the slices a page may show: reported in the shareable artifact, with an estimate."""
    return [
        r for r in block["rows"] if r["status"] == "reported" and _num(r["improvement"]) is not None
    ]


def _forest_figure(art: dict[str, Any]) -> str:
    """Return the slices' forest plot: the shareable artifact's slice rows and the overall."""
    block, iv = art["slices"], art["interval"]
    rows = _slice_rows(block)
    unc = bool(block["uncertainty"])
    labels = [wrap(plot_text(f"{r['column']} = {r['value']} (n={r['n']})"), 24) for r in rows]
    labels.append(f"overall (n={art['n_cases']})")
    est = [_num(r["improvement"]) for r in rows] + [_num(art["improvement_a_over_b"])]
    lows = [_num(r.get("ci_low")) for r in rows] + [_num(iv["low"])]
    highs = [_num(r.get("ci_high")) for r in rows] + [_num(iv["high"])]
    ys = list(range(len(labels), 0, -1))
    from matplotlib.ticker import MaxNLocator

    def draw(ax: Axes) -> None:
        for i, y in enumerate(ys):
            last = i == len(ys) - 1
            lo, hi = lows[i], highs[i]
            if (unc or last) and lo is not None and hi is not None:
                ax.plot([lo, hi], [y, y], color="k" if last else "0.35", lw=1.5)
            if est[i] is not None:
                ax.plot([est[i]], [y], "D" if last else "s", color="k" if last else "C0",
                        ms=7 if last else 5)  # fmt: skip
        _thresholds(ax, art["decisions"])
        ax.set_yticks(ys, labels)
        ax.xaxis.set_major_locator(MaxNLocator(5))
        ax.set_ylim(0.4, len(ys) + 0.6)
        what = f"{_level(iv['confidence_level'])} paired CI" if unc else "estimate; overall with CI"
        ax.set_xlabel(f"improvement of A over B ({what})")

    alt = f"Improvement by slice: {len(rows)} slices shown and the overall effect"
    return svg_figure(draw, figsize=(5.0, 1.3 + 0.3 * len(labels)), alt=alt,
                      caption=alt + "; suppressed slices are not drawn.")  # fmt: skip


def _slice_table(block: dict[str, Any]) -> str:
    cols = ["slice", "n", "status", "A", "B", "improvement", "winner"]
    if block["uncertainty"]:
        cols += ["CI", "adjusted p", "verdict"]
    head = "".join(f"<th>{c}</th>" for c in cols)
    body = []
    for r in block["rows"]:
        cells = [
            f"<td>{html.escape(str(r['column']))} = {html.escape(str(r['value']))}</td>",
            f"<td class='num'>{int(r['n'])}</td>",
            f"<td>{html.escape(str(r['status']))}</td>",
            f"<td class='num'>{_cell(r['metric_a'])}</td>",
            f"<td class='num'>{_cell(r['metric_b'])}</td>",
            f"<td class='num'>{_cell(r['improvement'], True)}</td>",
            f"<td>{html.escape(str(r['winner'] or ''))}</td>",
        ]
        if block["uncertainty"]:
            ci = (
                ""
                if r["ci_low"] is None
                else f"[{_cell(r['ci_low'], True)}, {_cell(r['ci_high'], True)}]"
            )
            cells += [f"<td class='num'>{ci}</td>",
                      f"<td class='num'>{_cell(r['pvalue_adjusted'])}</td>",
                      f"<td>{html.escape(str(r['verdict'] or ''))}</td>"]  # fmt: skip
        body.append("<tr>" + "".join(cells) + "</tr>")
    return scroll(
        f"<table><caption>Slices (adjustment: {html.escape(str(block['adjust']))})</caption>"
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    )


def _covers(n_cases: int, unit: str) -> str:
    grouped = " (resampled as whole groups)" if unit == "group" else ""
    items = [
        f"It covers the sampling variation of these {n_cases} evaluation cases{grouped}, with "
        "both models scored on the same cases.",
        "It does not cover a change of population or deployment conditions, the variation "
        "between training runs or seeds of either model, label noise in the targets, or the "
        "selection of this comparison among many (best-of-many prompts, repeated looks at the "
        "data).",
        "A small p-value is not a large effect: read the size of the improvement and the "
        "practical threshold.",
    ]
    return "<ul>" + "".join(f"<li>{html.escape(t)}</li>" for t in items) + "</ul>"


def report_html(rep: ComparisonReport) -> str:
    """Return the HTML page of a two-model report (see :meth:`ComparisonReport.to_html`)."""
    art = rep.to_artifact("shareable")
    bs = rep.bootstrap
    a, b = art["models"]["a"], art["models"]["b"]
    lead = rep.headline()
    if bs.noninferior is not None:
        lead += (
            f" Noninferiority (margin {bs.noninferiority_margin:g}): "
            f"{'shown' if bs.noninferior else 'not shown'}."
        )
    warn = not rep.agreement or bs.verdict == "undetermined" or not bs.decision_stable
    sections = [
        section(
            "The interval",
            _interval_figure(art),
            scroll(bs.html(headline="")),  # the verdict is the page's lead
            slug="interval",
        )
    ]
    tests = [r for r in (rep.randomization, rep.exact_binomial) if r is not None]
    parts = [scroll(r.html()) for r in tests]
    if rep.randomization is None:
        parts.append(paragraph("Randomization test skipped (n_permutations=0)."))
    sections.append(section("Tests of no difference", *parts, slug="tests"))
    if art["slices"] is not None:
        block = art["slices"]
        floor = max(int(block["min_size"]), SHAREABLE_MIN_SLICE)
        notes = []
        if any(r["status"] == "suppressed" for r in block["rows"]):
            notes.append(paragraph(
                f"Slices of fewer than {floor} cases are suppressed (label and numbers), with "
                "the smallest others of their column when needed, so no case's value can be "
                "recovered by subtraction."))  # fmt: skip
        notes.append(paragraph("Slice scans are exploratory: treat a slice effect as a lead to "
                               "test on new data, not as a finding."))  # fmt: skip
        forest = _forest_figure(art) if _slice_rows(block) else ""
        sections.append(section("Slices", forest, _slice_table(block), *notes, slug="slices"))
    if rep.sensitivity is not None and "sensitivity" in art:
        sens = rep.sensitivity
        fig = svg_figure(sens.plot, figsize=(5.5, 3.2),
                         alt="What the missing outcomes could change")  # fmt: skip
        sections.append(section("Missing-outcome sensitivity", fig,
                                scroll(sens.html()),
                                slug="sensitivity"))  # fmt: skip
    elif rep.sensitivity_note is not None:
        sections.append(section("Missing-outcome sensitivity",
                                paragraph(f"Missing-outcome sensitivity {rep.sensitivity_note}."),
                                slug="sensitivity"))  # fmt: skip
    if "audit" in art:
        sections.append(_audit_section(art["audit"], rep))
    sections.append(section("What the interval covers, and what it does not",
                            _covers(int(art["n_cases"]), art["interval"]["unit"]),
                            slug="coverage"))  # fmt: skip
    sections.append(artifact_section(art, SHAREABLE_NAME))
    return page(f"Paired comparison: {a} vs {b}", lead, sections, warn=warn)


def _audit_section(block: dict[str, Any], rep: ComparisonReport) -> str:
    """Return the design audit: which method to trust and why, its plot, one row per method."""
    level = _level(block["confidence_level"])
    rows = []
    for r in block["rows"]:
        if r["kind"] == "interval":
            mark = " (recommended)" if r["recommended"] else ""
            rows.append((f"{r['method']} interval",
                         f"coverage {r['coverage']:.3f} +/- {r['coverage_se']:.3f} (nominal "
                         f"{level}), mean width {r['mean_width']:.4g}{mark}"))  # fmt: skip
        else:
            rows.append((f"{r['method']} test",
                         f"size {r['size']:.3f} +/- {r['size_se']:.3f} (nominal "
                         f"{1.0 - block['confidence_level']:.3g})"))  # fmt: skip
    seed = "no seed" if block["seed"] is None else f"seed {block['seed']}"
    rows.append(("Audit", f"{block['n_simulations']} simulations of this design, "
                          f"{block['n_resamples']} resamples each, {seed}"))  # fmt: skip
    rows.append(("Auto", f"method='auto' chooses {block['auto_method']}"))
    reason = block["recommended_reason"].rstrip()
    lead = paragraph(
        f"Trust the {block['recommended_method']} interval on this design: {reason}"
        + ("" if reason.endswith(".") else ".")
    )
    parts = [lead]
    if rep.audit is not None:
        audit = rep.audit

        def draw(ax: Axes) -> None:
            audit.plot(ax=ax)
            ax.set_xlabel(wrap(ax.get_xlabel(), 48))
            ax.set_title(wrap(ax.get_title(), 48))

        parts.append(svg_figure(draw, figsize=(5.5, 3.2),
                                alt="Coverage of each interval method on this design, with "
                                "+/- 2 Monte Carlo standard errors, against the nominal "
                                "level"))  # fmt: skip
    parts.append(scroll(html_table("Design audit", rows)))
    return section("Design audit", *parts, slug="audit")


def _multi_lead(res: MultiResult) -> str:
    """Return the verdicts of several comparisons in one sentence: how many of each, and which."""
    level = _level(res.confidence_level)
    adjust = "unadjusted" if res.adjust is None else f"{res.adjust}-adjusted"
    words = {"a_better": "better", "b_better": "worse", "equivalent": "equivalent",
             "inconclusive": "inconclusive", "undetermined": "undetermined"}  # fmt: skip
    if res.kind == "against":
        groups: dict[str, list[str]] = {}
        for bs in res.comparisons:
            groups.setdefault(words.get(bs.verdict, bs.verdict), []).append(str(bs.a))
        parts = [f"{', '.join(names)}: {w}" for w, names in groups.items()]
        head = f"Against the baseline {res.baseline}: " + "; ".join(parts)
    else:
        better = [f"{bs.a} over {bs.b}" if bs.verdict == "a_better" else f"{bs.b} over {bs.a}"
                  for bs in res.comparisons if bs.verdict in ("a_better", "b_better")]  # fmt: skip
        head = (f"Of {len(res)} pairs of {len(res.models)} models, {len(better)} show a better "
                "model" + (f" ({'; '.join(better)})" if better else ""))  # fmt: skip
    return f"{head} ({level} paired bootstrap intervals; p-values {adjust})."


def _multi_figure(res: MultiResult) -> str:
    from matplotlib.ticker import MaxNLocator

    def draw(ax: Axes) -> None:
        res.plot(ax=ax)
        ax.set_yticklabels([plot_text(t.get_text()) for t in ax.get_yticklabels()])
        wrap_ticks(ax)
        ax.xaxis.set_major_locator(MaxNLocator(5))
        ax.set_title(wrap(ax.get_title()))

    alt = f"{len(res)} paired comparisons: each improvement and its interval"
    return svg_figure(draw, figsize=(5.5, 1.4 + 0.35 * len(res)), alt=alt, caption=alt + ".")


def _ranks_table(ranks: dict[str, Any]) -> str:
    """Return the shareable artifact's rank sets as a table (rank 1 is the best)."""
    kind = "simultaneous" if ranks["simultaneous"] else "per-model"
    rows = "".join(
        f"<tr><td>{html.escape(str(r['model']))}</td><td class='num'>{_cell(r['metric'])}</td>"
        f"<td class='num'>{int(r['rank'])}</td><td class='num'>{{{int(r['lower'])}.."
        f"{int(r['upper'])}}}</td></tr>"
        for r in ranks["rows"]
    )
    caption = f"{_level(ranks['confidence_level'])} {kind} rank confidence sets (1 = best)"
    return scroll(
        f"<table><caption>{html.escape(caption)}</caption><thead><tr><th>model</th>"
        f"<th>metric</th><th>rank</th><th>rank set</th></tr></thead><tbody>{rows}</tbody></table>"
    )


def multi_html(res: MultiResult) -> str:
    """Return the HTML page of several comparisons (see :meth:`MultiResult.to_html`)."""
    art = res.to_artifact("shareable")
    verdicts = "<ul>" + "".join(
        f"<li>{html.escape(bs.headline())}</li>" for bs in res.comparisons
    ) + "</ul>"  # fmt: skip
    table = res.to_frame().to_html(index=False, float_format=lambda x: f"{x:.4g}", escape=True,
                                   border=0)  # fmt: skip
    sections = [
        section("The comparisons", verdicts, _multi_figure(res), scroll(table), slug="comparisons")
    ]
    if art["ranks"] is not None:
        sections.append(section("Ranks", _ranks_table(art["ranks"]), slug="ranks"))
    sections.append(artifact_section(art, SHAREABLE_NAME))
    title = f"Paired comparison of {len(res.models)} models: {res.metric}"
    warn = any(v == "undetermined" for v in res.verdicts)
    return page(title, _multi_lead(res), sections, warn=warn)
