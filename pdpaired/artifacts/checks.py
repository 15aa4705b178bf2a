"""Consistency checks shared by the artifact versions (v1's comparison, each of v2's).

:func:`pdpaired.artifacts.verify.verify` and :func:`pdpaired.artifacts.multi.multi_consistency`
run these on parsed JSON after its schema passed: numbers only, no file access.
"""

from __future__ import annotations

import math
from typing import Any

from pdpaired.results.verdict import decide, disagreement

__all__ = [
    "RTOL",
    "SHAREABLE_MIN_SLICE",
    "close",
    "comparison_problems",
    "inference_problems",
    "slice_problems",
    "split_problems",
]

#: Relative tolerance of the consistency checks (numbers round-trip through JSON exactly).
RTOL = 1e-9
#: ... of a p-value recomputed from recorded counts (special functions may differ in the
#: last digits between scipy versions).
_P_RTOL = 1e-6
#: The shareable artifact never shows a slice of fewer cases than this (nor below min_size):
#: its label and numbers are suppressed (with the smallest other slices of its column until
#: the hidden ones hold this many cases), so slicing by an id column cannot leak per-case data.
SHAREABLE_MIN_SLICE = 10


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


def inference_problems(a: dict[str, Any]) -> list[str]:
    """Return what contradicts the tests' own records (v1): p-values that the counts refute.

    The exact binomial counts add up to the cases and its p-value lies in
    (0, 1]; the p-value is recomputed from the recorded discordant
    counts (and, for plain 0/1 means, the two metrics from the four counts);
    a Monte Carlo randomization p-value is ``(1 + k) / (1 + R)`` for an
    integer ``k``, so at least ``1 / (1 + R)`` with the matching standard
    error; ``exact`` means every one of the ``2**U`` assignments of the
    ``U`` units was evaluated.
    """
    out: list[str] = []
    hib = a["metric"]["higher_is_better"]
    n = a["n_cases"]
    iv = a["interval"]
    eb = a["exact_binomial"]
    total = None if eb is None else eb["a_only"] + eb["b_only"] + eb["both_pass"] + eb["both_fail"]
    # unweighted 0/1 outcomes: the improvement and both metrics follow from the four counts
    plain_mean = total == n > 0 and iv["n_strata"] is None and iv["weighting"] == "item"
    if eb is not None:
        if total != n:
            out.append(f"exact_binomial counts add up to {total}, not n_cases = {n}")
        imp, from_counts = a["improvement_a_over_b"], (eb["a_only"] - eb["b_only"]) / max(n, 1)
        if plain_mean and not close(imp, from_counts):
            out.append(
                f"exact_binomial counts give an improvement of {from_counts!r} "
                f"((a_only - b_only) / n_cases), not {imp!r}"
            )
        if not 0.0 < eb["pvalue"] <= 1.0:
            out.append(f"exact_binomial.pvalue = {eb['pvalue']!r} is not in (0, 1]")
    if eb is not None and 0.0 < eb["pvalue"] <= 1.0:
        from pdpaired.core.exact_binomial import binomial_test

        want = binomial_test(eb["a_only"], eb["b_only"], alternative=eb["alternative"],
                             mid_p=eb["mid_p"], confidence_level=0.95).pvalue  # fmt: skip
        if not math.isclose(eb["pvalue"], want, rel_tol=_P_RTOL, abs_tol=1e-300):
            out.append(
                f"exact_binomial.pvalue = {eb['pvalue']!r} but a_only = {eb['a_only']} and "
                f"b_only = {eb['b_only']} give {want!r} ({eb['alternative']}"
                f"{', mid-p' if eb['mid_p'] else ''})"
            )
        if plain_mean:
            # a model passes with a 1 (higher is better) or with a 0 (lower is better)
            ones_a = eb["a_only"] + eb["both_pass"] if hib else eb["b_only"] + eb["both_fail"]
            ones_b = eb["b_only"] + eb["both_pass"] if hib else eb["a_only"] + eb["both_fail"]
            for role, ones in (("a", ones_a), ("b", ones_b)):
                if not close(a[f"metric_{role}"], ones / n):
                    out.append(
                        f"metric_{role} = {a[f'metric_{role}']!r} but the exact_binomial counts "
                        f"give {ones / n!r} ({ones} of {n} cases scored 1)"
                    )
    rz = a["randomization"]
    if rz is None or not 0.0 < rz["pvalue"] <= 1.0:
        return out
    r, p = rz["n_permutations"], rz["pvalue"]
    units = _randomization_units(a)
    if rz["exact"]:
        if rz["pvalue_se"] is not None:
            out.append("randomization.pvalue_se must be null for exact enumeration")
        if units is not None and (units >= 63 or r != 1 << units):
            out.append(
                f"randomization.exact is true with {r} assignments, but {units} units have "
                f"2**{units} assignments: only a full enumeration is exact"
            )
        elif not _integral(p * r):
            out.append(f"randomization.pvalue = {p!r} is not a count of {r} assignments")
        return out
    if p < 1.0 / (1 + r) * (1 - RTOL):
        out.append(
            f"randomization.pvalue = {p!r} is below 1 / (1 + n_permutations) = {1 / (1 + r)!r}: "
            "a Monte Carlo p-value counts the observed assignment"
        )
    elif not _integral(p * (1 + r)) and p < 1.0:
        out.append(
            f"randomization.pvalue = {p!r} is not (1 + k) / (1 + {r}) for any count k of "
            "assignments"
        )
    if units is not None and units < 63 and r >= 1 << units:
        out.append(
            f"randomization: {r} Monte Carlo assignments of {units} units, which have only "
            f"2**{units}: the test would have enumerated them (exact)"
        )
    se = rz["pvalue_se"]
    want_se = math.sqrt(p * (1 - p) / (1 + r))
    if se is None or not math.isclose(se, want_se, rel_tol=_P_RTOL, abs_tol=1e-15):
        out.append(
            f"randomization.pvalue_se = {se!r} is not sqrt(p (1 - p) / (1 + R)) = {want_se!r}"
        )
    return out


def _randomization_units(a: dict[str, Any]) -> int | None:
    """Return the number of units the randomization test swaps (None: not recorded)."""
    rz, iv = a["randomization"], a["interval"]
    if rz["unit"] == "case":
        return int(a["n_cases"])
    if rz["unit"] == iv["unit"] and iv["n_groups"] is not None:
        return int(iv["n_groups"])
    return None


def _integral(x: float) -> bool:
    return abs(x - round(x)) <= 1e-6 * max(1.0, abs(x))


def slice_problems(a: dict[str, Any], *, hib: bool) -> list[str]:
    """Return what contradicts the slice block's own records (v1).

    Each column's slices partition the cases (sizes sum to ``n_cases``); a
    reported slice has at least ``min_size`` cases (the shareable artifact,
    at least :data:`SHAREABLE_MIN_SLICE`), a skipped one fewer; a reported
    slice's improvement follows from its metrics and its winner from the
    improvement; with uncertainty, its interval is ordered, its verdict
    follows from the interval and the practical threshold, and its adjusted
    p-value is at least its raw one.
    """
    sl = a["slices"]
    if sl is None:
        return []
    out: list[str] = []
    floor = sl["min_size"] if a["kind"] == "local" else max(sl["min_size"], SHAREABLE_MIN_SLICE)
    thr = a["decisions"]["practical_threshold"]
    sizes: dict[str, int] = {}
    for r in sl["rows"]:
        sizes[r["column"]] = sizes.get(r["column"], 0) + r["n"]
    for column in sl["columns"]:
        if sizes.get(column, 0) != a["n_cases"]:
            out.append(
                f"slices of {column!r} hold {sizes.get(column, 0)} cases, not n_cases = "
                f"{a['n_cases']}: a column's slices partition the cases"
            )
    for column in set(sizes) - set(sl["columns"]):
        out.append(f"slice rows of {column!r}, which is not among slices.columns")
    for r in sl["rows"]:
        name = f"slice {r['column']} = {r['value']}"
        if r["status"] == "skipped" and r["n"] >= sl["min_size"]:
            out.append(f"{name}: skipped with n = {r['n']} >= min_size = {sl['min_size']}")
        if r["status"] != "reported":
            continue
        if r["n"] < floor:
            out.append(
                f"{name}: reported with n = {r['n']}, below the {a['kind']} artifact's minimum "
                f"slice size {floor}"
            )
        if r["n"] > a["n_cases"]:
            out.append(f"{name}: n = {r['n']} exceeds n_cases")
        sa, sb, si = r["metric_a"], r["metric_b"], r["improvement"]
        if None not in (sa, sb, si):
            w = (sa - sb) if hib else (sb - sa)
            if not close(si, w):
                out.append(f"{name}: improvement {si!r} does not follow from its metrics")
            winner = "A" if si > 0 else "B" if si < 0 else "tie"
            if r["winner"] != winner:
                out.append(f"{name}: winner {r['winner']!r} but the improvement says {winner}")
        for key in ("pvalue", "pvalue_adjusted"):
            p = r.get(key)
            if p is not None and not 0.0 < p <= 1.0:
                out.append(f"{name}: {key} = {p!r} is not in (0, 1]")
        p, q = r.get("pvalue"), r.get("pvalue_adjusted")
        if p is not None and q is not None and q < p * (1 - RTOL):
            out.append(f"{name}: pvalue_adjusted {q!r} is below the raw pvalue {p!r}")
        lo, hi = r.get("ci_low"), r.get("ci_high")
        if lo is None or hi is None or si is None:
            continue
        if lo > hi:
            out.append(f"{name}: ci_low {lo!r} exceeds ci_high {hi!r}")
            continue
        verdict = r.get("verdict")
        if verdict in (None, "undetermined"):  # degenerate: the distribution says, not recorded
            continue
        want = decide(si, lo, hi, practical_threshold=thr, noninferiority_margin=None,
                      degenerate=False).verdict  # fmt: skip
        if verdict != want:
            out.append(
                f"{name}: verdict {verdict!r} but its interval [{lo!r}, {hi!r}] and the "
                f"practical threshold {thr!r} give {want!r}"
            )
    return out


def agreement_problems(a: dict[str, Any]) -> list[str]:
    """Return what contradicts the recorded agreement of the tests with the interval (v1).

    ``agreement.agrees`` is true exactly when ``note`` is null; and when the
    recorded two-sided tests disagree with the recorded interval about 0 at
    its level, the record must say so, in the words those records give.
    (A disagreement of the bootstrap's own exact check is not recomputable
    from the artifact, so a recorded one is taken as it is.)
    """
    rec = a.get("agreement")
    if rec is None:  # optional in v1: older artifacts have none
        return []
    out = []
    if rec["agrees"] != (rec["note"] is None):
        out.append("agreement.agrees must be true exactly when agreement.note is null")
    if a["decisions"].get("verdict") == "undetermined":
        return out
    iv, rz, eb = a["interval"], a["randomization"], a["exact_binomial"]
    tests = []
    if rz is not None:
        tests.append(("the randomization test", rz["pvalue"], rz["statistic"], rz["alternative"]))
    if eb is not None:
        tests.append(("the exact binomial test", eb["pvalue"], eb["a_only"] - eb["b_only"],
                      eb["alternative"]))  # fmt: skip
    want = disagreement(iv["low"], iv["high"], confidence_level=iv["confidence_level"],
                        tests=tests)  # fmt: skip
    if want is not None and rec["note"] != want:
        out.append(
            f"agreement: the recorded tests and interval disagree ({want}) but the artifact "
            f"records agrees = {rec['agrees']!r}, note = {rec['note']!r}"
        )
    return out


def split_problems(a: dict[str, Any]) -> list[str]:
    """Return the problems of a v1 artifact's ``split`` block (the selection / confirmation split).

    An artifact holds no case ids, so it cannot show by itself that the
    confirmation cases were not in the selection part: the report checked
    that on the ids when it was written. What the record must satisfy: each
    part holds at least one unit, a case is a unit without ``by`` (and a
    group holds at least one case with it), the comparison analysed no more
    cases than the confirmation part holds, and -- local artifact -- the two
    parts' id digests differ, and when the comparison analysed as many cases
    as the confirmation part holds, its aligned ids are that part's
    (``aligned_ids_sha256`` equals ``confirmation_ids_sha256``). Anyone
    holding the table can redraw the split from its seed, fraction, ``by``
    and ``stratify`` and compare both digests.
    """
    sp = a.get("split")
    if sp is None:
        return []
    out = []
    for part in ("selection", "confirmation"):
        cases, units = sp[f"n_{part}_cases"], sp[f"n_{part}_units"]
        if units < 1:
            out.append(f"split.n_{part}_units = {units}: each part must hold at least one unit")
        if sp["by"] is None and cases != units:
            out.append(
                f"split.n_{part}_cases = {cases} differs from n_{part}_units = {units}, "
                "but without `by` each unit is one case"
            )
        elif cases < units:
            out.append(
                f"split.n_{part}_cases = {cases} is below n_{part}_units = {units}: a group "
                "holds at least one case"
            )
    if a["n_cases"] > sp["n_confirmation_cases"]:
        out.append(
            f"n_cases = {a['n_cases']} exceeds split.n_confirmation_cases = "
            f"{sp['n_confirmation_cases']}: the comparison used cases outside the confirmation part"
        )
    sel, conf = sp.get("selection_ids_sha256"), sp.get("confirmation_ids_sha256")
    if sel is not None and sel == conf:
        out.append("split: the selection and confirmation parts have the same case ids")
    local = a.get("local")
    if (
        local is not None
        and conf is not None
        and a["n_cases"] == sp["n_confirmation_cases"]
        and local["aligned_ids_sha256"] != conf
    ):
        out.append(
            "local.aligned_ids_sha256 is not split.confirmation_ids_sha256, although the "
            "comparison analysed as many cases as the confirmation part holds: it was not "
            "run on that part"
        )
    return out
