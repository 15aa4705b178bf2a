"""The artifact of several comparisons: ``paired-comparison-artifact/v2``.

A :class:`~pdpaired.MultiResult` (``against`` or ``all_pairs``) is written as
one artifact of protocol ``paired-comparison/v2`` whose ``comparisons`` list
holds, per comparison, what a two-model artifact (``v1``) holds about its
bootstrap: the models, alignment and missing outcomes, both metrics, the
raw delta and the improvement, the interval and its design, the decisions
and the verdict, plus the comparison's bootstrap p-value and its value
adjusted across the comparisons. The analysis block records the kind
(``against`` / ``all_pairs``), the baseline, the adjustment and whether the
intervals are simultaneous (the max-t band, with its critical value); ``ranks``
the simultaneous rank confidence sets (null when the comparisons do not
share their cases). Two models compared with ``compare``/``report`` keep
the ``v1`` artifact, unchanged.

This module builds the artifact's body (without the digest, which
:mod:`pdpaired.artifacts.digests` computes for both versions) and its Markdown, and
checks a v2 artifact's internal consistency for :func:`pdpaired.verify`.
It reads result objects only; it never recomputes a statistic from data.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from pdpaired._lib.format import fmt as _fmt
from pdpaired._lib.format import jsonable
from pdpaired._lib.format import level_text as _level
from pdpaired._lib.format import md_escape as _md
from pdpaired.artifacts.checks import close as _close
from pdpaired.artifacts.checks import comparison_problems
from pdpaired.core.multiplicity import adjust_pvalues
from pdpaired.results.bootstrap import BootstrapResult

if TYPE_CHECKING:
    from pdpaired.analysis.multi_result import MultiResult
    from pdpaired.results.multi import RankResult

__all__ = [
    "ARTIFACT_V2",
    "PROTOCOL_V2",
    "SCHEMA_FILE_V2",
    "artifact_body",
    "is_multi_artifact",
    "multi_consistency",
    "multi_markdown",
]

PROTOCOL_V2 = "paired-comparison/v2"
ARTIFACT_V2 = "paired-comparison-artifact/v2"
SCHEMA_FILE_V2 = "paired-comparison-artifact-v2.json"
#: The adjusted p-values are recomputed from the raw ones: the same arithmetic, so
#: only the last bits may differ.
_PTOL = 1e-12


def is_multi_artifact(art: dict[str, Any]) -> bool:
    """Whether an artifact is shaped as ``v2`` (it has a ``comparisons`` list).

    :func:`pdpaired.verify` picks the schema by the artifact's shape, so that
    an artifact whose ``artifact`` field names the other version is refused
    by the schema of what it holds ("'...v1' was expected").
    """
    return "comparisons" in art


# --------------------------------------------------------------------------- building
def _interval(bs: BootstrapResult) -> dict[str, Any]:
    se = bs.confidence_interval_se
    return {
        "low": bs.confidence_interval.low,
        "high": bs.confidence_interval.high,
        "confidence_level": bs.confidence_level,
        "method": bs.method,
        "method_reason": bs.method_reason,
        "n_resamples": bs.n_resamples,
        "n_valid": bs.n_valid,
        "seed": bs.seed,
        "stream": bs.stream,
        "sampling": bs.sampling,
        "unit": bs.unit,
        "weighting": bs.weighting,
        "n_groups": bs.n_groups,
        "n_strata": bs.n_strata,
        "standard_error": bs.standard_error,
        "low_se": None if se is None else se.low,
        "high_se": None if se is None else se.high,
    }


def _decisions(bs: BootstrapResult) -> dict[str, Any]:
    return {
        "practical_threshold": bs.practical_threshold,
        "noninferiority_margin": bs.noninferiority_margin,
        "superior_point": bs.superior_point,
        "superior_ci": bs.superior_ci,
        "noninferior": bs.noninferior,
        "verdict": bs.verdict,
        "undetermined": bs.degenerate,
        "decision_stable": bs.decision_stable,
    }


def bootstrap_fields(bs: BootstrapResult) -> dict[str, Any]:
    """Return one comparison's artifact fields: its models, counts, metrics, interval, decisions.

    The same in a v1 artifact (:meth:`pdpaired.ComparisonReport.to_artifact`)
    and in each entry of v2's ``comparisons`` list.
    """
    miss = bs.missing
    return {
        "models": {"a": str(bs.a), "b": str(bs.b)},
        "n_cases": bs.n_cases,
        "alignment": {
            "status": "aligned",
            "n_cases": bs.n_cases,
            "policy": miss.policy,
            "n_missing_a": miss.n_missing_a,
            "n_missing_b": miss.n_missing_b,
            "n_dropped": miss.n_dropped,
            "n_filled": miss.n_filled,
        },
        "missing": miss.to_dict(),
        "metric_a": bs.metric_a,
        "metric_b": bs.metric_b,
        "raw_delta_a_minus_b": bs.raw_delta,
        "improvement_a_over_b": bs.improvement,
        "interval": _interval(bs),
        "decisions": _decisions(bs),
    }


def comparison_entry(bs: BootstrapResult, pvalue: float, pvalue_adjusted: float) -> dict[str, Any]:
    """Return one comparison of the ``comparisons`` list (aggregates only)."""
    return {
        **bootstrap_fields(bs),
        "pvalue": float(pvalue),
        "pvalue_adjusted": float(pvalue_adjusted),
    }


def _ranks_block(ranks: RankResult | None) -> dict[str, Any] | None:
    if ranks is None:
        return None
    frame = ranks.to_frame()
    crit = float(ranks.critical_value)
    return {
        "confidence_level": float(ranks.confidence_level),
        "simultaneous": bool(ranks.simultaneous),
        "critical_value": crit if math.isfinite(crit) else None,
        "rows": [
            {
                "model": str(r.model),
                "metric": float(r.metric),
                "rank": int(r.rank),
                "lower": int(r.lower),
                "upper": int(r.upper),
            }
            for r in frame.itertuples(index=False)
        ],
    }


def artifact_body(
    res: MultiResult,
    kind: str,
    *,
    ranks: RankResult | None,
    task: str,
    threshold: float | None,
    software: dict[str, str],
    local: dict[str, Any] | None,
) -> dict[str, Any]:
    """Return the v2 artifact without its digest (JSON-safe).

    ``local`` is the provenance block of the local artifact (None for the
    shareable one): input files or in-memory table digests, the aligned ids'
    digest of each comparison, the seed, stratum weights and class labels.
    """
    art: dict[str, Any] = {
        "protocol": PROTOCOL_V2,
        "artifact": ARTIFACT_V2,
        "kind": kind,
        "analysis": {
            "kind": res.kind,
            "baseline": None if res.baseline is None else str(res.baseline),
            "adjust": res.adjust,
            "pvalue": "bootstrap-two-sided",
            "shared_draws": bool(res.shared_draws),
            "same_cases": bool(res.same_cases),
            "simultaneous": bool(res.simultaneous),
            "critical_value": None if res.critical_value is None else float(res.critical_value),
        },
        "models": [str(m) for m in res.models],
        "metric": {
            "name": res.metric,
            "higher_is_better": bool(res.higher_is_better),
            "task": task,
            "threshold": threshold,
        },
        "comparisons": [
            comparison_entry(bs, p, q)
            for bs, p, q in zip(res.comparisons, res.pvalues, res.pvalues_adjusted, strict=True)
        ],
        "ranks": _ranks_block(ranks),
        "software": dict(software),
    }
    if local is not None:
        art["local"] = local
    out: dict[str, Any] = jsonable(art)
    return out


# --------------------------------------------------------------------------- Markdown
def multi_markdown(res: MultiResult, ranks: RankResult | None) -> str:
    """Return the human-readable report of several comparisons (``comparison.md``)."""
    first = res.comparisons[0]
    level = _level(res.confidence_level)
    direction = "higher" if res.higher_is_better else "lower"
    if res.kind == "against":
        what = (
            f"{len(res)} model(s) against the baseline **{_md(res.baseline)}**: each "
            "comparison is (model, baseline), a positive improvement means the model is better"
        )
    else:
        what = (
            f"all {len(res)} pairs of {len(res.models)} models: each comparison is (A, B), a "
            "positive improvement means A is better"
        )
    adjust = "not adjusted" if res.adjust is None else f"{_md(res.adjust)}-adjusted"
    lines = [
        f"# Paired comparison of {len(res.models)} models: {_md(res.metric)}",
        "",
        f"Models: {', '.join(_md(m) for m in res.models)}; {what}. Metric "
        f"{_md(res.metric)} ({direction} is better).",
        "",
        f"{level} paired bootstrap intervals ({_md(res.method)}, {res.n_resamples} resamples, "
        f"seed {res.seed}), one joint resampling of the cases for every comparison"
        + ("" if res.shared_draws else " (each comparison's own cases, from the same streams)")
        + f"; two-sided bootstrap p-values, {adjust} across the {len(res)} comparisons. "
        + _interval_sentence(res, level),
        "",
        "| A | B | n | metric A | metric B | improvement | "
        f"{level} CI | p | p adjusted | verdict |",
        "|---|---|---:|---:|---:|---:|---|---:|---:|---|",
    ]
    for bs, p, q in zip(res.comparisons, res.pvalues, res.pvalues_adjusted, strict=True):
        ci = bs.confidence_interval
        lines.append(
            f"| {_md(bs.a)} | {_md(bs.b)} | {bs.n_cases} | {_fmt(bs.metric_a)} | "
            f"{_fmt(bs.metric_b)} | {_fmt(bs.improvement, True)} | "
            f"[{_fmt(ci.low, True)}, {_fmt(ci.high, True)}] | {float(p):.3g} | "
            f"{float(q):.3g} | {_md(bs.verdict)} |"
        )
    missing = [bs for bs in res.comparisons if bs.missing.n_missing_a or bs.missing.n_missing_b]
    if missing:
        lines += ["", f"Missing outcomes (policy `{_md(first.missing.policy)}`):", ""]
        for bs in missing:
            m = bs.missing
            lines.append(
                f"- {_md(bs.a)} vs {_md(bs.b)}: missing for A {m.n_missing_a}, for B "
                f"{m.n_missing_b}; dropped {m.n_dropped}, filled {m.n_filled}"
            )
    if ranks is not None:
        kind = "simultaneous" if ranks.simultaneous else "per-model"
        lines += [
            "",
            f"## Ranks ({_level(ranks.confidence_level)} {kind} confidence sets, rank 1 = best)",
            "",
            "| model | metric | rank | rank set |",
            "|---|---:|---:|---|",
        ]
        for r in ranks.to_frame().itertuples(index=False):
            lines.append(
                f"| {_md(r.model)} | {_fmt(float(r.metric))} | {int(r.rank)} | "
                f"{{{int(r.lower)}..{int(r.upper)}}} |"
            )
    return "\n".join(lines) + "\n"


def _interval_sentence(res: MultiResult, level: str) -> str:
    if not res.simultaneous:
        return f"Each interval is the comparison's own ({level}), not simultaneous."
    if res.critical_value is None:
        return f"The one comparison's interval is its own ({level})."
    return (
        f"The intervals are simultaneous: all {len(res)} cover at once with {level} (the max-t "
        f"band of the joint replicates, each estimate +/- {res.critical_value:.4g} bootstrap "
        "SEs), and the verdicts read them."
    )


# --------------------------------------------------------------------------- verify
def _comparison_problems(c: dict[str, Any], hib: bool, name: str) -> list[str]:
    """Return the problems of one comparison: a v1 artifact's checks, and its p-values."""
    out = [f"{name}: {p}" for p in comparison_problems(c, hib)]
    if c["pvalue_adjusted"] < c["pvalue"] * (1 - _PTOL):
        out.append(f"{name}: pvalue_adjusted {c['pvalue_adjusted']!r} is below pvalue")
    return out


def multi_consistency(art: dict[str, Any]) -> list[str]:
    """Problems with a v2 artifact's internal consistency (after its schema passed).

    Each comparison is checked as a two-model artifact is (improvement from
    the metrics and the direction, raw delta, interval order, decisions and
    verdict from the thresholds, counts); across comparisons: the models are
    the artifact's and, for ``against``, each is compared with the baseline;
    every comparison records the one seed and design; the adjusted p-values
    are the declared adjustment of the p-values; a model's metric is the
    same in every comparison analysing the same cases; the rank sets are
    about the artifact's models and contain their ranks.
    """
    out: list[str] = []
    hib = art["metric"]["higher_is_better"]
    models = art["models"]
    known = set(models)
    an = art["analysis"]
    comps = art["comparisons"]
    pairs = []
    for i, c in enumerate(comps):
        a, b = c["models"]["a"], c["models"]["b"]
        name = f"comparisons[{i}] ({a} vs {b})"
        pairs.append((a, b))
        if a not in known or b not in known:
            out.append(f"{name}: compares a model that is not in `models`")
        if a == b:
            out.append(f"{name}: compares a model with itself")
        if an["kind"] == "against" and b != an["baseline"]:
            out.append(f"{name}: B is not the baseline {an['baseline']!r}")
        out += _comparison_problems(c, hib, name)
    if len(set(pairs)) != len(pairs):
        out.append("comparisons: a pair of models is listed twice")
    if an["kind"] == "against" and an["baseline"] not in known:
        out.append(f"analysis.baseline {an['baseline']!r} is not in `models`")
    if an["kind"] == "all_pairs" and an["baseline"] is not None:
        out.append("analysis.baseline must be null for all_pairs")
    # one seed, one design for every comparison (and the local block's seed); the method
    # may differ: method="auto" chooses it from each comparison's differences
    shared = ("seed", "stream", "confidence_level", "n_resamples", "sampling", "unit",
              "weighting")  # fmt: skip
    for key in shared:
        values = {repr(c["interval"].get(key)) for c in comps}
        if len(values) > 1:
            out.append(f"comparisons record different interval.{key} values: {sorted(values)}")
    if "local" in art and comps and art["local"]["seed"] != comps[0]["interval"]["seed"]:
        out.append("local.seed differs from the comparisons' seed")
    if "local" in art and len(art["local"]["aligned_ids_sha256"]) != len(comps):
        out.append("local.aligned_ids_sha256 must hold one digest per comparison")
    # the declared adjustment of the p-values
    p = np.array([c["pvalue"] for c in comps], dtype=np.float64)
    q = np.array([c["pvalue_adjusted"] for c in comps], dtype=np.float64)
    want = adjust_pvalues(p, an["adjust"])
    bad = [i for i in range(len(comps)) if not math.isclose(q[i], want[i], rel_tol=_PTOL)]
    if bad:
        out.append(
            f"pvalue_adjusted of comparisons {bad} is not the {an['adjust']} adjustment of the "
            f"p-values (expected {[float(want[i]) for i in bad]})"
        )
    # a model's metric is the same in each comparison that analyses the same cases
    if all(c["missing"]["n_dropped"] == 0 for c in comps):
        seen: dict[str, float] = {}
        for c in comps:
            for role in ("a", "b"):
                m, v = c["models"][role], c[f"metric_{role}"]
                if m in seen and not _close(seen[m], v):
                    out.append(
                        f"model {m}: metric {v!r} in one comparison but {seen[m]!r} in another "
                        "(no cases were dropped, so they analyse the same cases)"
                    )
                seen.setdefault(m, v)
    out += _band_problems(art)
    out += _rank_problems(art, models)
    return out


def _band_problems(art: dict[str, Any]) -> list[str]:
    """Check the simultaneous band: each interval is ``improvement +- critical_value * SE``.

    With ``analysis.simultaneous`` and a critical value, every comparison's
    method is ``"max-t"`` and its interval is symmetric about its
    improvement; where every replicate was defined (``n_valid ==
    n_resamples``), its half-width is the critical value times its
    recorded bootstrap standard error. Without a band no interval is
    ``"max-t"``.
    """
    an, comps = art["analysis"], art["comparisons"]
    crit = an.get("critical_value")
    band = bool(an.get("simultaneous", False)) and crit is not None
    out: list[str] = []
    if an.get("critical_value") is not None and not an.get("simultaneous", False):
        out.append("analysis.critical_value is recorded but the intervals are not simultaneous")
    for i, c in enumerate(comps):
        iv, name = c["interval"], f"comparisons[{i}]"
        if not band:
            if iv["method"] == "max-t":
                out.append(f"{name}: a max-t interval, but the artifact records no band")
            continue
        if iv["method"] != "max-t":
            out.append(f"{name}: interval method {iv['method']!r} in a simultaneous band")
        imp, low, high = c["improvement_a_over_b"], iv["low"], iv["high"]
        half = (high - low) / 2.0
        if not _close(imp - low, high - imp):
            out.append(f"{name}: the band's interval [{low!r}, {high!r}] is not centred on {imp!r}")
        if iv["n_valid"] == iv["n_resamples"] and not _close(half, crit * iv["standard_error"]):
            out.append(
                f"{name}: the band's half-width {half!r} is not critical_value {crit!r} times "
                f"the standard error {iv['standard_error']!r}"
            )
    return out


def _rank_problems(art: dict[str, Any], models: Sequence[str]) -> list[str]:
    ranks = art["ranks"]
    if ranks is None:
        return []
    out: list[str] = []
    k = len(models)
    rows = ranks["rows"]
    if sorted(r["model"] for r in rows) != sorted(models):
        out.append("ranks: the rows must list each model of `models` once")
    for r in rows:
        if not 1 <= r["lower"] <= r["rank"] <= r["upper"] <= k:
            out.append(
                f"ranks: model {r['model']}: the set {{{r['lower']}..{r['upper']}}} must "
                f"contain its rank {r['rank']} within 1..{k}"
            )
    if not art["analysis"]["same_cases"]:
        out.append("ranks: present although the comparisons do not share their cases")
    return out
