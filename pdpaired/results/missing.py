"""The declared missing-outcome policy of an analysis and what it did.

:class:`MissingSummary` is built by the pairing backends and carried by every
result, so it sits low, with nothing of pdpaired above it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pdpaired._lib.format import jsonable as _jsonable
from pdpaired._lib.public import public

__all__ = ["MissingSummary"]


@public
@dataclass(frozen=True, slots=True, kw_only=True)
class MissingSummary:
    """The declared missing-outcome policy and what it did.

    Attributes
    ----------
    policy : str
        ``"error"``, ``"complete-case"`` or ``"as-failure"``.
    n_missing_a, n_missing_b : int
        Cases with no usable output for model A (resp. B): absent row or NaN.
    n_dropped : int
        Cases dropped for both models (``"complete-case"``).
    n_filled : int
        Cases where at least one output was set to ``fill_value`` (``"as-failure"``).
    fill_value : float or None
        The value ``"as-failure"`` filled in.
    """

    policy: str
    n_missing_a: int = 0
    n_missing_b: int = 0
    n_dropped: int = 0
    n_filled: int = 0
    fill_value: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-safe dict."""
        out: dict[str, Any] = _jsonable(
            {
                "policy": self.policy,
                "n_missing_a": self.n_missing_a,
                "n_missing_b": self.n_missing_b,
                "n_dropped": self.n_dropped,
                "n_filled": self.n_filled,
                "fill_value": self.fill_value,
            }
        )
        return out

    def describe(self) -> str:
        """One line in words: the declared policy, then what it did.

        Examples
        --------
        >>> from pdpaired import MissingSummary
        >>> MissingSummary(policy="error").describe()
        'policy error — no missing outcomes'
        """
        if self.policy == "complete-case" and self.n_dropped:
            return (
                f"policy complete-case — {self.n_dropped} case(s) dropped for both models "
                f"({self.n_missing_a} missing for A, {self.n_missing_b} for B); "
                "the estimand is the effect on cases both models answered"
            )
        if self.policy == "as-failure" and self.n_filled:
            return (
                f"policy as-failure — {self.n_filled} case(s) filled with {self.fill_value:g} "
                f"({self.n_missing_a} missing for A, {self.n_missing_b} for B)"
            )
        return f"policy {self.policy} — no missing outcomes"
