"""Release gates: turn a comparison's verdict into an exit code for CI.

``report.gate(fail_on)`` (and ``pdpaired compare ... --fail-on``) fails a job
when the verdict meets a condition:

* ``"b-better"`` -- the baseline B is better: the whole interval lies below
  ``-practical_threshold`` (verdict ``b_better``). For "do not ship a
  regression".
* ``"not-a-better"`` -- anything but "A is better" (verdict other than
  ``a_better``). For "ship only a demonstrated improvement".
* ``"not-noninferior"`` -- noninferiority is not shown: the interval's low end
  is below ``-noninferiority_margin`` (needs a margin). For "ship if it is
  not worse by more than the margin".

When a test of the same report disagrees with the interval about 0 (the
report's ``agreement`` is False), the verdict is not established: a
``"not-a-better"`` gate fails even on ``a_better`` and a ``"b-better"`` gate
does not fail on ``b_better``; the reason says which test disagrees.

The exit code is 1 when the gate fails, 0 when it passes; bad input (an
unknown condition, ``"not-noninferior"`` without a margin) raises a
``ValueError``, which the command line reports with exit code 2.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pdpaired._lib.format import fmt as _fmt
from pdpaired._lib.format import level_text as _level
from pdpaired._lib.format import md_escape, printable
from pdpaired._lib.public import public
from pdpaired.results.bootstrap import BootstrapResult

__all__ = ["FAIL_ON", "GateResult", "gate"]

#: The conditions a gate can fail on (the command line's ``--fail-on`` choices).
FAIL_ON = ("b-better", "not-a-better", "not-noninferior")


@public
@dataclass(frozen=True, slots=True, kw_only=True)
class GateResult:
    """The outcome of a release gate.

    Attributes
    ----------
    fail_on : str
        The condition: ``"b-better"``, ``"not-a-better"`` or ``"not-noninferior"``.
    failed : bool
        Whether the verdict meets the condition (the gate fails).
    exit_code : int
        1 when the gate fails, 0 when it passes (what ``--fail-on`` exits with).
    verdict : str
        ``"a_better"``, ``"b_better"``, ``"equivalent"``, ``"inconclusive"`` or
        ``"undetermined"`` (see the bootstrap result's ``verdict``).
    reason : str
        One sentence: the verdict, the interval, and why the gate passes or fails.
    """

    fail_on: str
    failed: bool
    exit_code: int
    verdict: str
    reason: str

    @property
    def passed(self) -> bool:
        """Whether the gate passes (``not failed``)."""
        return not self.failed

    def __bool__(self) -> bool:
        """Return True when the gate passes: ``if report.gate(...)`` reads "may ship"."""
        return not self.failed

    def __str__(self) -> str:
        word = "FAILED" if self.failed else "passed"
        return (
            f"Release gate --fail-on {self.fail_on}: {word} (exit {self.exit_code}). "
            f"{printable(self.reason)}"
        )

    def to_markdown(self) -> str:
        """One Markdown paragraph for a CI job summary."""
        word = "**failed**" if self.failed else "**passed**"
        return (
            f"**Release gate** `--fail-on {self.fail_on}`: {word} (exit {self.exit_code}). "
            f"{md_escape(self.reason)}\n"
        )

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-safe dict."""
        return {
            "fail_on": self.fail_on,
            "failed": self.failed,
            "exit_code": self.exit_code,
            "verdict": self.verdict,
            "reason": self.reason,
        }


def _verdict(bs: BootstrapResult) -> str:
    """Return the result's verdict (see ``BootstrapResult.verdict``)."""
    return str(bs.verdict)


_WORDS = {
    "a_better": "A ({a}) is better than B ({b})",
    "b_better": "B ({b}) is better than A ({a})",
    "equivalent": "A ({a}) and B ({b}) are equivalent within the practical threshold",
    "inconclusive": "no clear winner between A ({a}) and B ({b})",
    "undetermined": "undetermined (the interval is degenerate)",
}


def gate(result: Any, fail_on: str) -> GateResult:
    """Apply a release gate to a bootstrap result (or a report).

    Parameters
    ----------
    result : BootstrapResult or ComparisonReport
        A report's gate reads its bootstrap interval.
    fail_on : {"b-better", "not-a-better", "not-noninferior"}
        The condition that fails the gate (underscores are accepted too).

    Returns
    -------
    GateResult

    Raises
    ------
    ValueError
        An unknown condition, or ``"not-noninferior"`` on a result without a
        noninferiority margin.

    Examples
    --------
    >>> import pdpaired
    >>> from pdpaired.datasets import load_digits_cv
    >>> from pdpaired.results.gate import gate
    >>> res = load_digits_cv().paired(score="correct").bootstrap(
    ...     "knn", "logreg", higher_is_better=True, rng=0, noninferiority_margin=0.01)
    >>> g = gate(res, "not-a-better")
    >>> g.verdict, g.failed, g.exit_code
    ('a_better', False, 0)
    >>> gate(res, "b-better").exit_code
    0
    """
    bs = getattr(result, "bootstrap", result)
    if not isinstance(bs, BootstrapResult):
        msg = f"gate() takes a BootstrapResult or a ComparisonReport; got {type(result).__name__}."
        raise TypeError(msg)
    cond = fail_on.replace("_", "-") if isinstance(fail_on, str) else fail_on
    if cond not in FAIL_ON:
        msg = f"`fail_on` must be one of {', '.join(map(repr, FAIL_ON))}; got {fail_on!r}."
        raise ValueError(msg)
    verdict = _verdict(bs)
    note = result.agreement_note  # a report's covers its tests and the bootstrap's exact check
    established = note is None
    ci = bs.confidence_interval
    level = _level(bs.confidence_level)
    interval = (
        f"the {level} interval of the improvement is [{_fmt(ci.low, True)}, {_fmt(ci.high, True)}]"
    )
    said = _WORDS.get(verdict, verdict).format(a=bs.a, b=bs.b)
    if cond == "b-better":
        failed = verdict == "b_better" and established
        why = "B is better" if failed else "B is not shown better"
    elif cond == "not-a-better":
        failed = verdict != "a_better" or not established
        why = "A is not shown better" if failed else "A is better"
        if bs.practical_threshold:
            why += f" (by more than the practical threshold {bs.practical_threshold:g})"
    else:
        margin = bs.noninferiority_margin
        if margin is None:
            msg = (
                "`fail_on='not-noninferior'` needs a noninferiority margin "
                "(noninferiority_margin=..., --noninferiority-margin on the command line)."
            )
            raise ValueError(msg)
        shown = verdict != "undetermined" and bool(bs.noninferior)
        failed = not shown
        why = (
            f"noninferiority (margin {margin:g}) is "
            + ("shown" if shown else "not shown")
            + f": the interval's low end {_fmt(ci.low, True)} is "
            + (">=" if ci.low >= -margin else "<")
            + f" {-margin:g}"
        )
    reason = f"Verdict {verdict}: {said}; {interval}. "
    if note is not None:
        reason += f"{note} "
    reason += f"{why[0].upper()}{why[1:]}, so the gate " + ("fails." if failed else "passes.")
    return GateResult(
        fail_on=cond, failed=failed, exit_code=1 if failed else 0, verdict=verdict, reason=reason
    )
