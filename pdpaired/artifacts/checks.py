"""Consistency checks shared by the artifact versions (v1's comparison, each of v2's).

:func:`pdpaired.artifacts.verify.verify` and :func:`pdpaired.artifacts.multi.multi_consistency`
run these on parsed JSON after its schema passed: numbers only, no file access.
"""

from __future__ import annotations

import math
from typing import Any

from pdpaired.results.verdict import decide

__all__ = ["RTOL", "close", "comparison_problems"]

#: Relative tolerance of the consistency checks (numbers round-trip through JSON exactly).
RTOL = 1e-9


def close(x: float, y: float) -> bool:
    """Whether two recorded numbers agree to :data:`RTOL` (or 1e-12 absolute)."""
    return math.isclose(x, y, rel_tol=RTOL, abs_tol=1e-12)


def comparison_problems(a: dict[str, Any], hib: bool) -> list[str]:
    """Return the problems of one comparison's numbers (v1 artifact, or an entry of v2).

    The improvement and the raw delta follow from the metrics and the
    direction (``hib``: higher is better), the interval is ordered, the
    decisions and the verdict follow from the interval and the thresholds,
    and the alignment and missing-outcome counts agree.
    """
    out: list[str] = []
    ma, mb = a["metric_a"], a["metric_b"]
    raw, imp = a["raw_delta_a_minus_b"], a["improvement_a_over_b"]
    if not close(raw, ma - mb):
        out.append(f"raw_delta_a_minus_b = {raw!r} is not metric_a - metric_b = {ma - mb!r}")
    want = (ma - mb) if hib else (mb - ma)
    if not close(imp, want):
        out.append(
            f"improvement_a_over_b = {imp!r} does not follow from the metrics and the direction "
            f"({'higher' if hib else 'lower'} is better: expected {want!r})"
        )
    iv = a["interval"]
    if iv["low"] > iv["high"]:
        out.append(f"interval low {iv['low']!r} exceeds high {iv['high']!r}")
    if iv["n_valid"] > iv["n_resamples"]:
        out.append(f"interval n_valid {iv['n_valid']} exceeds n_resamples {iv['n_resamples']}")
    d = a["decisions"]
    thr, margin = d["practical_threshold"], d["noninferiority_margin"]
    verdict = d.get("verdict")  # optional in v1: an artifact may have none
    if (
        "undetermined" in d
        and verdict is not None
        and d["undetermined"] != (verdict == "undetermined")
    ):
        out.append("decisions.undetermined must be true exactly when the verdict is undetermined")
    if verdict == "undetermined" or d.get(
        "undetermined"
    ):  # a degenerate interval: no decision flag is True
        if d["superior_point"] or d["superior_ci"] or d["noninferior"]:
            out.append("decisions: the verdict is undetermined but a decision flag is true")
        if (d["noninferior"] is None) != (margin is None):
            out.append("decisions.noninferior must be null exactly when there is no margin")
    else:
        checks = [
            ("superior_point", imp > thr, f"improvement {imp!r} > practical_threshold {thr!r}"),
            (
                "superior_ci",
                iv["low"] > thr,
                f"interval low {iv['low']!r} > practical_threshold {thr!r}",
            ),
        ]
        for name, expected, rule in checks:
            if d[name] != expected:
                out.append(f"decisions.{name} = {d[name]} but {rule} is {expected}")
        expected_ni = None if margin is None else iv["low"] >= -margin
        if d["noninferior"] != expected_ni:
            out.append(
                f"decisions.noninferior = {d['noninferior']} but the interval low and the "
                f"margin {margin!r} give {expected_ni}"
            )
        if verdict is not None:
            want_v = decide(imp, iv["low"], iv["high"], practical_threshold=thr,
                            noninferiority_margin=margin, degenerate=False).verdict  # fmt: skip
            if verdict != want_v:
                out.append(
                    f"decisions.verdict = {verdict!r} but the interval [{iv['low']!r}, "
                    f"{iv['high']!r}] and the practical threshold {thr!r} give {want_v!r}"
                )
    al = a["alignment"]
    if al["n_cases"] != a["n_cases"]:
        out.append(f"alignment.n_cases {al['n_cases']} differs from n_cases {a['n_cases']}")
    if al["n_dropped"] + al["n_filled"] > al["n_missing_a"] + al["n_missing_b"]:
        out.append("alignment: more cases dropped or filled than were missing")
    for key in ("policy", "n_missing_a", "n_missing_b", "n_dropped", "n_filled"):
        if a["missing"][key] != al[key]:
            out.append(f"missing.{key} = {a['missing'][key]!r} differs from alignment.{key}")
    return out
