"""The verdict rules of a bootstrap interval, on their own.

Whether an interval is too degenerate to decide anything
(:func:`interval_degenerate`), the verdict and decision flags it supports
(:func:`decide`, :class:`Decisions`) and the sentence that states them
(:func:`verdict_headline`). Results, reports, slices and artifact checks all
decide through these functions, so the rules are written once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pdpaired._lib.format import fmt as _fmt
from pdpaired._lib.format import level_text as _level

__all__ = ["VERDICTS", "Decisions", "decide", "interval_degenerate", "verdict_headline"]

#: The verdicts of a bootstrap interval (see docs/concepts/decisions.md).
VERDICTS = ("a_better", "b_better", "equivalent", "inconclusive", "undetermined")


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
    tails are those of the percentile endpoints.

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
