"""Markdown sections of the benchmark report, one per method family.

Each section is the family's same-run ratio table (seconds, speed-ups against the
tools users would otherwise use, peak extra memory), what exactly each tool ran,
and the agreement checks (intervals, p-values, bit-identical engines).
"""

from __future__ import annotations

from statistics import NormalDist
from typing import Any

import numpy as np
from harness import BUSY, Row, X, fmt_mib, fmt_ratio, fmt_s, table

HOW = (
    "Seconds: wall clock, best of the number of calls in brackets, every row in this one "
    "process after its warm-up call. Ratios are same-run speed-ups (reference seconds / row "
    "seconds; above 1 means faster than the reference). Peak MiB: extra resident memory "
    "during one call above the process's memory just before it (kernel high-water mark). "
    f"‡: other processes used ≥ {BUSY} cores while the row ran (not measured below "
    "half a second). Other processes using the cores distort the timings."
)


def reference(rows: list[Row], case: str, key: str) -> float | None:
    """Seconds of the case's first row whose class is the ``key`` reference."""
    hit = next((r for r in rows if r.case == case and r.reference == key), None)
    return hit.seconds if hit else None


def ratio(rows: list[Row], row: Row, key: str) -> float | None:
    ref = reference(rows, row.case, key)
    return ref / row.seconds if ref and row.seconds else None


def results(rows: list[Row], refs: dict[str, str], extrapolated: str) -> list[str]:
    """The ratio table: one column per reference (``{key: column title}``)."""
    rows = [r for r in rows if r.tool != "compare"]
    body, busy = [], []
    for r in rows:
        if r.problem:
            body.append([r.case, r.label, r.problem, *["—"] * (len(refs) + 1)])
            continue
        mark = " ¹" if r.scale != 1.0 else ""
        if (r.foreign or 0.0) >= BUSY:
            mark += " ‡"
            busy.append(f"{r.case}, {r.label}: {r.foreign:.2f}")
        cells = [fmt_ratio(ratio(rows, r, key)) for key in refs]
        body.append(
            [r.case, r.label, f"{fmt_s(r.seconds)}{mark} [{r.repeats}]", *cells, fmt_mib(r.peak)]
        )
    head = ["case", "tool", "seconds", *refs.values(), "peak MiB"]
    out = [*table(head, body, "ll" + "r" * (len(refs) + 2)), ""]
    if any(r.scale != 1.0 for r in rows if not r.problem):
        out += [extrapolated, ""]
    if busy:
        out += [
            f"‡ Other processes used ≥ {BUSY} cores on average while this row ran, so its "
            "time is probably inflated (cores used by others: " + "; ".join(busy) + ").",
            "",
        ]
    return out


def compare_table(rows: list[Row]) -> list[str]:
    """First call in a fresh process (pandera's import included) and the repeated call."""
    body = []
    for first in (r for r in rows if r.tool == "compare" and r.cls == "CompareFirstCall"):
        again = next((r for r in rows if r.cls == "Compare" and r.case == first.case), None)
        warm = f"{fmt_s(again.seconds)} [{again.repeats}]" if again and again.seconds else "—"
        cold = first.problem or fmt_s(first.seconds)
        body.append([first.case, cold, fmt_mib(first.peak), warm, fmt_mib(again and again.peak)])
    head = ["case", "first call in a process, s", "peak MiB", "repeated call, s", "peak MiB"]
    return [*table(head, body, "lrrrr"), ""]


def first_call_lines(first: dict[str, Any]) -> list[str]:
    out = []
    for label, v in first.items():
        out.append(
            f"- {label}: first call {v[0]:.2f} s, second call {v[1]:.3f} s"
            if v
            else f"- {label}: failed"
        )
    auto = next((v for k, v in first.items() if k.startswith("auto")), None)
    numpy = next((v for k, v in first.items() if k.startswith("numpy")), None)
    if auto and numpy:
        out.append(
            f"- default engine choice / numpy engine, first call: {auto[0] / numpy[0]:.2f}"
            " (target ≤ 1.5)"
        )
    return [*out, ""]


NOTE_EXTRAPOLATED = (
    "¹ Extrapolated linearly: measured with a tenth of the resamples (loop: iterations) and "
    f"multiplied by 10; their time is linear in the number of resamples (mode `full` runs "
    "them all). The peak memory is that of the shorter run: for batched scipy it depends on "
    f"the batch, not on the number of resamples; with batch=None it grows linearly ({X}10)."
)


def bootstrap(rows: list[Row], notes: list[str], first: dict[str, Any]) -> list[str]:
    """The paired bootstrap of a mean difference."""
    out = ["## Bootstrap", "", "10,000 resamples, 95% interval.", ""]
    out += results(
        rows,
        {"scipy": "ratio vs scipy percentile", "loop": "ratio vs numpy loop"},
        NOTE_EXTRAPOLATED,
    )
    out += [*notes, "### One-time pairing and validation (`df.paired.compare`)", ""]
    out += compare_table(rows)
    if first:
        out += ["### First call (continuous n=1e3, 10,000 resamples, fresh process)", ""]
        out += first_call_lines(first)
    out += ["### Intervals (all tools should agree within Monte Carlo error)", ""]
    body = [
        [r.case, r.label, f"[{r.info['ci'][0]:.6f}, {r.info['ci'][1]:.6f}]"]
        for r in rows
        if "ci" in r.info
    ]
    return [*out, *table(["case", "tool", "95% interval"], body, "lll"), ""]


def randomization(rows: list[Row], notes: list[str], first: dict[str, Any]) -> list[str]:
    """The paired randomization (sign-flip) test."""
    out = [
        "## Randomization test",
        "",
        "Paired randomization (sign-flip) test, 10,000 permutations, two-sided.",
        "",
    ]
    out += results(rows, {"scipy": "ratio vs scipy", "loop": "ratio vs numpy loop"}, "")
    out += notes
    for r in rows:  # scipy's default batch not run: scale the batched row's peak
        if r.cls == "Scipy" and r.params.get("batch") == "default" and r.problem:
            b = next((x for x in rows if x.case == r.case and x.reference == "scipy"), None)
            if b and b.peak and b.info.get("batch"):
                batch = b.info["batch"]
                est = b.peak * 10_000 / batch / 1024
                out += [
                    f"scipy's default `batch=None` at {r.case}: scaling the peak of the "
                    f"batch={batch} row ({fmt_mib(b.peak)} MiB) to one batch of 10,000 "
                    f"permutations gives about {est:,.0f} GiB.",
                    "",
                ]
    out += [
        "### p-values (all tools should agree within Monte Carlo error)",
        "",
        "z: difference to pdpaired (numba) over the combined Monte Carlo s.e.; |z| < 3 "
        "counts as agreement. Null hash: sha256 of the null distribution (pdpaired).",
        "",
    ]
    body = []
    for r in rows:
        if "pvalue" not in r.info:
            continue
        ref = next(
            (
                x
                for x in rows
                if x.case == r.case
                and x.cls == "Pdpaired"
                and x.params["engine"] == "numba"
                and "pvalue" in x.info
            ),
            None,
        )
        i, se = r.info, r.info.get("pvalue_se")
        if ref is None:
            verdict = "—"
        elif r is ref:
            verdict = "reference"
        elif r.tool == "pdpaired":
            same = i["null_sha"] == ref.info["null_sha"] and i["pvalue"] == ref.info["pvalue"]
            verdict = "identical (same seed)" if same else "**differs**"
        else:
            den = float(np.hypot(se or 0.0, ref.info.get("pvalue_se") or 0.0))
            z = (i["pvalue"] - ref.info["pvalue"]) / den if den > 0 else float("inf")
            verdict = f"agrees (z = {z:+.2f})" if abs(z) < 3 else f"**disagrees** (z = {z:+.2f})"
        body.append(
            [
                r.case,
                r.label,
                f"{i['statistic']:.8g}",
                f"{i['pvalue']:.4f}",
                "—" if se is None else f"{se:.4f}",
                verdict,
                i.get("null_sha", "—"),
            ]
        )
    head = ["case", "tool", "statistic", "p-value", "MC s.e.", "vs pdpaired (numba)", "null hash"]
    out += [*table(head, body, "llrrrll"), ""]
    if first:
        out += [
            "### First call (randomization, continuous n=1e4, 10,000 permutations, fresh process)",
            "",
            *first_call_lines(first),
        ]
    return out


def quantile_se(sd: float, alpha: float, b: int) -> float:
    """Monte Carlo s.e. of a bootstrap ``alpha`` quantile from ``b`` draws (normal approx.)."""
    nd = NormalDist()
    return sd * float(np.sqrt(alpha * (1 - alpha) / b)) / nd.pdf(nd.inv_cdf(alpha))


def auroc(rows: list[Row], notes: list[str], first: dict[str, Any]) -> list[str]:
    """Prediction mode, the bootstrap of an AUROC difference."""
    out = [
        "## AUROC bootstrap, prediction mode",
        "",
        "AUROC(A) - AUROC(B), 2,000 resamples, 95% interval; binary target (~50% "
        "positives), two correlated continuous scores.",
        "",
    ]
    out += results(
        rows,
        {"scipy": "ratio vs scipy percentile", "loop": "ratio vs numpy loop"},
        NOTE_EXTRAPOLATED.replace("a tenth", "200 of the 2,000"),
    )
    out += [*notes, "### Pairing and validation (`compare(..., metric='auroc')`)", ""]
    out += compare_table(rows)
    out += [
        "### Intervals (all tools should agree within Monte Carlo error)",
        "",
        "Reference: pdpaired percentile (numba, iid), the design of scipy and the loop; z: "
        "each end's difference over the combined Monte Carlo s.e. of the two 2.5 % / 97.5 % "
        "quantiles; |z| < 3 counts as agreement. Hash: sha256 of the bootstrap distribution "
        "(numba and numpy must match).",
        "",
    ]
    body = []
    for r in rows:
        if "ci" not in r.info:
            continue
        ref = next(
            (
                x
                for x in rows
                if x.case == r.case
                and x.cls == "Pdpaired"
                and "ci" in x.info
                and x.params["design"] == "iid"
            ),
            None,
        )
        verdict = "—"
        if ref is r:
            verdict = "reference"
        elif ref is not None and r.params.get("method", "percentile") == "percentile":
            zs = []
            for k, alpha in ((0, 0.025), (1, 0.975)):
                se = float(
                    np.hypot(
                        quantile_se(ref.info["se"], alpha, ref.info["n_dist"]),
                        quantile_se(r.info["se"], alpha, r.info["n_dist"]),
                    )
                )
                zs.append((r.info["ci"][k] - ref.info["ci"][k]) / se if se > 0 else float("inf"))
            word = "agrees" if max(abs(z) for z in zs) < 3 else "**differs**"
            verdict = f"{word} (z = {zs[0]:+.2f}, {zs[1]:+.2f})"
        i = r.info
        body.append(
            [
                r.case,
                r.label,
                i["sampling"],
                f"{i['n_dist']:,}",
                f"{i['improvement']:.6f}",
                f"[{i['ci'][0]:.6f}, {i['ci'][1]:.6f}]",
                f"{i['se']:.6f}",
                verdict,
                i.get("dist_sha", "—"),
            ]
        )
    head = [
        "case",
        "tool",
        "sampling",
        "draws",
        "AUROC(A) - AUROC(B)",
        "95% interval",
        "s.e.",
        "vs pdpaired (numba, iid)",
        "hash",
    ]
    return [*out, *table(head, body, "lllrrlrll"), ""]


def slices(rows: list[Row], notes: list[str], first: dict[str, Any]) -> list[str]:
    """``by_slice`` with uncertainty against a loop of scipy calls."""
    out = ["## Slices with uncertainty", ""]
    return out + results(rows, {"scipy": "ratio vs scipy loop"}, "") + notes
