"""The verdict rules of a bootstrap interval and of a significance test, on their own.

Whether an interval is too degenerate to decide anything
(:func:`interval_degenerate`), the verdict and decision flags it supports
(:func:`decide`, :class:`Decisions`) and the sentence that states them
(:func:`verdict_headline`); the verdict of a test read from its p-value
(:func:`pvalue_verdict`) and the line that states it
(:func:`pvalue_verdict_text`); whether the tests of a report agree with its
interval about 0 (:func:`disagreement`). Results, reports, slices and artifact checks
all decide through these functions, so the rules are written once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pdpaired._lib.format import fmt as _fmt
from pdpaired._lib.format import level_text as _level
from pdpaired.results.display import pfmt as _pfmt

__all__ = [
    "TEST_VERDICTS",
    "VERDICTS",
    "Decisions",
    "decide",
    "disagreement",
    "interval_degenerate",
    "pvalue_verdict",
    "pvalue_verdict_text",
    "verdict_headline",
]

#: The verdicts of a bootstrap interval (see docs/concepts/decisions.md).
VERDICTS = ("a_better", "b_better", "equivalent", "inconclusive", "undetermined")

#: The verdicts of a significance test read at a level (:func:`pvalue_verdict`).
TEST_VERDICTS = ("a_better", "b_better", "inconclusive")


def interval_degenerate(
    low: float, high: float, distribution: np.ndarray, *, confidence_level: float, method: str
) -> bool:
    """Whether a bootstrap interval is too degenerate to decide anything.

    True when the interval has zero width, or when either tail of the
    bootstrap distribution that sets an endpoint (the replicates at or
    beyond it) holds fewer than 2 distinct values: the endpoint then sits
    on one atom of the distribution (too few resamples, or almost no
    discordant cases), not on a tail.

    For ``method="basic"`` (a reflection of the percentile endpoints) the
    tails are those of the percentile endpoints. A ``"studentized"``
    interval reads the quantiles of the studentized replicates, not of
    ``distribution`` (its tails are checked where they are computed), and
    the score intervals (``"tango"``, ``"newcombe"``) read no replicate at
    all, so for them only the width is checked here; nor does the
    simultaneous band of several comparisons (``"max-t"``), whose
    endpoints are the estimate plus or minus a multiple of the bootstrap
    SD and may lie beyond every replicate.

    Examples
    --------
    >>> import numpy as np
    >>> from pdpaired.results.verdict import interval_degenerate
    >>> interval_degenerate(0.1, 0.1, np.full(100, 0.1), confidence_level=0.95,
    ...                     method="percentile")
    True
    >>> dist = np.linspace(-1.0, 1.0, 1001)
    >>> low, high = np.percentile(dist, [2.5, 97.5])
    >>> interval_degenerate(low, high, dist, confidence_level=0.95, method="percentile")
    False
    """
    if not high > low:
        return True
    if method in ("studentized", "tango", "newcombe", "max-t"):
        return False
    dist = np.asarray(distribution, dtype=np.float64)
    if method == "basic":
        alpha = (1.0 - confidence_level) / 2.0
        low, high = np.percentile(dist, [100 * alpha, 100 * (1 - alpha)])
    tails = (dist[dist <= low], dist[dist >= high])
    return any(np.unique(tail).size < 2 for tail in tails)


@dataclass(frozen=True, slots=True, kw_only=True)
class Decisions:
    """The verdict of an interval and the decision flags."""

    verdict: str
    superior_point: bool
    superior_ci: bool
    noninferior: bool | None


def decide(
    improvement: float,
    low: float,
    high: float,
    *,
    practical_threshold: float,
    noninferiority_margin: float | None,
    degenerate: bool,
) -> Decisions:
    """Return the verdict and the decision flags of an interval of the improvement.

    With ``t = practical_threshold``: ``"a_better"`` when ``low > t``,
    ``"b_better"`` when ``high < -t``, ``"equivalent"`` when ``t > 0`` and
    the interval lies within ``[-t, t]``, else ``"inconclusive"``; and
    ``"undetermined"`` when the interval is ``degenerate`` (see
    :func:`interval_degenerate`): then no flag is True.

    Examples
    --------
    >>> from pdpaired.results.verdict import decide
    >>> decide(-0.004, -0.0071, -0.0005, practical_threshold=0.0,
    ...        noninferiority_margin=None, degenerate=False).verdict
    'b_better'
    >>> decide(-0.004, -0.0071, -0.0005, practical_threshold=0.01,
    ...        noninferiority_margin=None, degenerate=False).verdict
    'equivalent'
    """
    t, margin = practical_threshold, noninferiority_margin
    if degenerate:
        return Decisions(verdict="undetermined", superior_point=False, superior_ci=False,
                         noninferior=None if margin is None else False)  # fmt: skip
    if low > t:
        verdict = "a_better"
    elif high < -t:
        verdict = "b_better"
    elif t > 0 and -t <= low and high <= t:
        verdict = "equivalent"
    else:
        verdict = "inconclusive"
    return Decisions(
        verdict=verdict,
        superior_point=bool(improvement > t),
        superior_ci=bool(low > t),
        noninferior=None if margin is None else bool(low >= -margin),
    )


def verdict_headline(
    verdict: str,
    low: float,
    high: float,
    *,
    a: str,
    b: str,
    practical_threshold: float,
    confidence_level: float,
    strong: str = "",
) -> str:
    """One sentence stating the verdict, and who is statistically ahead.

    ``a`` and ``b`` are the model names as they should appear (a caller
    writing Markdown passes them escaped); ``strong`` wraps the verdict
    (``"**"`` in Markdown). When the interval excludes 0 but the verdict is
    ``"equivalent"`` or ``"inconclusive"``, the sentence names the model
    that is statistically ahead.

    Examples
    --------
    >>> from pdpaired.results.verdict import verdict_headline
    >>> text = verdict_headline("equivalent", -0.0071, -0.0005, a="new", b="baseline",
    ...                         practical_threshold=0.01, confidence_level=0.95)
    >>> for part in text.replace(" — ", "; ").split("; "):
    ...     print(part)
    Verdict: equivalent within ±0.01
    the 95% interval [-0.0071, -0.0005] lies inside [-0.01, +0.01]
    baseline is statistically ahead (the interval excludes 0), by less than the threshold.
    """
    t = practical_threshold
    neg = f"{-t:g}" if t else "0"
    lvl = _level(confidence_level)
    iv = f"the {lvl} interval [{_fmt(low, True)}, {_fmt(high, True)}]"
    ahead = a if low > 0 else b if high < 0 else None
    if verdict == "a_better":
        head = f"{a} is better than {b}"
        why = f"{iv} lies above {t:g}"
    elif verdict == "b_better":
        head = f"{b} is better than {a}"
        why = f"{iv} lies below {neg}"
    elif verdict == "equivalent":
        head = f"equivalent within ±{t:g}"
        why = f"{iv} lies inside [{neg}, {t:+g}]"
        if ahead is not None:
            why += (
                f"; {ahead} is statistically ahead (the interval excludes 0), by less than "
                "the threshold"
            )
    elif verdict == "inconclusive":
        head = "inconclusive"
        if ahead is not None:
            why = (
                f"{ahead} is statistically ahead ({iv} excludes 0), but the interval "
                f"straddles the practical threshold {t:g}: whether the difference matters "
                "is not settled"
            )
        elif t > 0:
            why = f"{iv} includes 0 and reaches beyond ±{t:g}"
        else:
            why = f"{iv} includes 0"
    else:
        head = "undetermined"
        why = (
            f"{iv} is degenerate (zero width, or too few distinct bootstrap replicates in a "
            "tail), so no decision is made; more cases or more resamples are needed"
        )
    return f"{strong}Verdict: {head}{strong} — {why}."


def pvalue_verdict(pvalue: float, improvement: float, *, alternative: str, alpha: float) -> str:
    """Return the verdict of a paired test read from its p-value at level ``alpha``.

    ``"a_better"`` when the test rejects in A's favour: a ``"greater"`` test
    (A better) with ``pvalue < alpha``, or a ``"two-sided"`` one with
    ``pvalue < alpha`` and a positive ``improvement``; ``"b_better"`` the
    mirror (``"less"``, or two-sided with a negative improvement); else
    ``"inconclusive"``, which a one-sided test also gives when the data point
    the other way (its p-value is then at least about 1/2). ``improvement``
    is direction adjusted (positive means A is better), so
    ``higher_is_better`` is already in it.

    Examples
    --------
    >>> from pdpaired.results.verdict import pvalue_verdict
    >>> pvalue_verdict(0.012, 0.03, alternative="two-sided", alpha=0.05)
    'a_better'
    >>> pvalue_verdict(0.012, -0.03, alternative="two-sided", alpha=0.05)
    'b_better'
    >>> pvalue_verdict(0.065, 0.03, alternative="two-sided", alpha=0.05)
    'inconclusive'
    >>> pvalue_verdict(0.97, -0.03, alternative="greater", alpha=0.05)
    'inconclusive'
    """
    if not pvalue < alpha:  # NaN too
        return "inconclusive"
    if alternative == "greater":
        return "a_better"
    if alternative == "less":
        return "b_better"
    return "a_better" if improvement > 0 else "b_better" if improvement < 0 else "inconclusive"


def pvalue_verdict_text(
    verdict: str,
    pvalue: float,
    improvement: float,
    *,
    alternative: str,
    alpha: float,
    a: str,
    b: str,
    level_note: str = "",
) -> str:
    """Return the verdict of a test and why, in one line: the ``Verdict`` row of its result.

    ``a`` and ``b`` are the model names as they should appear (each view
    escapes the whole line); ``level_note`` follows the level in the
    parenthesis (``", the conventional level"`` for a test run without one).
    A one-sided test that does not reject while the data point the other
    way says that it cannot show that direction.

    Examples
    --------
    >>> from pdpaired.results.verdict import pvalue_verdict_text
    >>> pvalue_verdict_text("a_better", 0.012, 0.03, alternative="two-sided", alpha=0.05,
    ...                     a="new", b="baseline")
    'a_better: the test rejects no difference (p = 0.0120 < 0.05); new is better than baseline'
    >>> pvalue_verdict_text("inconclusive", 0.065, 0.03, alternative="two-sided", alpha=0.05,
    ...                     a="new", b="baseline")
    'inconclusive: the test does not reject no difference (p = 0.0650 ≥ 0.05)'
    """
    favoured, other = (b, a) if alternative == "less" else (a, b)
    if alternative == "two-sided":
        test, null = "the test", "no difference"
    else:
        test, null = "the one-sided test", f"that {favoured} is no better than {other}"
    p = _pfmt(pvalue)
    if float(p) == alpha != pvalue:  # rounded onto the level: show the digits that decide
        p = f"{pvalue:.6g}"
    if verdict == "inconclusive":
        text = f"inconclusive: {test} does not reject {null} (p = {p} ≥ {alpha:g}{level_note})"
        points = improvement < 0 if alternative == "greater" else improvement > 0
        if alternative != "two-sided" and points:
            text += f"; a one-sided test for {favoured} better cannot show {other} better"
        return text
    winner, loser = (a, b) if verdict == "a_better" else (b, a)
    return (
        f"{verdict}: {test} rejects {null} (p = {p} < {alpha:g}{level_note}); "
        f"{winner} is better than {loser}"
    )


def disagreement(
    low: float,
    high: float,
    *,
    confidence_level: float,
    tests: list[tuple[str, float, float, str]],
) -> str | None:
    """Return the sentence saying where a test disagrees with the interval about 0, or None.

    The interval at ``confidence_level`` and a two-sided test at
    ``alpha = 1 - confidence_level`` answer the same question, whether the
    improvement is 0; they disagree when the interval excludes 0 and the
    test does not reject, or the test rejects and the interval includes 0
    (or they point at different models). A one-sided test answers another
    question (one direction, at another level per tail) and is not
    compared. Each test is ``(name, pvalue, signed, alternative)`` with
    ``signed`` the direction-adjusted statistic (positive: A is better).

    Returns
    -------
    str or None
        One sentence starting with "Not established:": the interval's
        reading about 0 (``"a_better"``, ``"b_better"`` or
        ``"inconclusive"``) and each test that disagrees with it, its
        p-value and the level; None when all agree.

    Examples
    --------
    >>> from pdpaired.results.verdict import disagreement
    >>> print(disagreement(0.01, 0.40, confidence_level=0.95,
    ...                    tests=[("the exact binomial test", 0.065, 5.0, "two-sided")]))
    Not established: a_better by the interval (it excludes 0), but the exact
    binomial test does not reject no difference (p = 0.0650 ≥ 0.05).
    >>> disagreement(0.01, 0.40, confidence_level=0.95,
    ...              tests=[("the randomization test", 0.003, 0.2, "two-sided")]) is None
    True
    """
    alpha = round(1.0 - confidence_level, 12)  # 1 - 0.95 is 0.050000000000000044
    by_interval = "a_better" if low > 0 else "b_better" if high < 0 else "inconclusive"
    parts = []
    for name, pvalue, signed, alternative in tests:
        if alternative != "two-sided" or not np.isfinite(pvalue):
            continue
        by_test = pvalue_verdict(pvalue, signed, alternative="two-sided", alpha=alpha)
        if by_test == by_interval:
            continue
        p = _pfmt(pvalue)
        if float(p) == alpha != pvalue:  # rounded onto the level: show the digits that decide
            p = f"{pvalue:.6g}"
        if by_test == "inconclusive":
            parts.append(f"{name} does not reject no difference (p = {p} ≥ {alpha:g})")
        elif by_interval == "inconclusive":
            parts.append(f"{name} rejects no difference (p = {p} < {alpha:g})")
        else:
            parts.append(f"{name} favours the other model (p = {p} < {alpha:g})")
    if not parts:
        return None
    reading = "it includes 0" if by_interval == "inconclusive" else "it excludes 0"
    return f"Not established: {by_interval} by the interval ({reading}), but " + (
        " and ".join(parts) + "."
    )
