"""The rank confidence sets of several models: :class:`RankResult`, with its views.

:meth:`pdpaired.MultiResult.ranks` computes them from the joint replicates
(:func:`pdpaired.core.multi.rank_sets`); here are the frozen result, its
frame, text, HTML, dict and plot, and the two helpers the several-models
views share (:func:`label`, :func:`json_value`). ``MultiResult`` itself is
in :mod:`pdpaired.analysis.multi_result`: it ranks and writes artifacts.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from pdpaired._lib.format import printable
from pdpaired._lib.public import public

__all__ = ["RankResult", "json_value", "label"]


def label(x: Any) -> str:
    """Return a model label as printable text (control characters escaped)."""
    return printable(x)


def json_value(v: Any) -> Any:
    """Return a JSON-safe scalar: NumPy scalars converted, non-finite floats None, others text."""
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and not np.isfinite(v):
        return None
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    return str(v)


@public
@dataclass(frozen=True, slots=True, kw_only=True)
class RankResult:
    """Simultaneous (or per-model) confidence sets for the models' ranks; rank 1 is the best.

    Attributes
    ----------
    models : tuple
    metric : str
    higher_is_better : bool
    value : ndarray
        Each model's metric.
    rank : ndarray
        Each model's estimated rank (ties share the best rank).
    lower, upper : ndarray
        The rank confidence set ``{lower, ..., upper}`` of each model.
    confidence_level : float
    simultaneous : bool
    critical_value : float
        The max-t critical value of the simultaneous differences, in
        bootstrap standard errors, with the small-sample correction applied
        (the half-width of each difference's interval over its bootstrap SE).
    """

    models: tuple[Any, ...]
    metric: str
    higher_is_better: bool
    value: np.ndarray = field(repr=False, compare=False)
    rank: np.ndarray = field(repr=False, compare=False)
    lower: np.ndarray = field(repr=False, compare=False)
    upper: np.ndarray = field(repr=False, compare=False)
    confidence_level: float
    simultaneous: bool
    critical_value: float

    def to_frame(self) -> pd.DataFrame:
        """One row per model, best first: ``model``, ``metric``, ``rank``, ``lower``, ``upper``."""
        frame = pd.DataFrame(
            {
                "model": list(self.models),
                "metric": self.value,
                "rank": self.rank.astype(int),
                "lower": self.lower.astype(int),
                "upper": self.upper.astype(int),
            }
        )
        return frame.sort_values(["rank", "lower", "upper"], kind="stable").reset_index(drop=True)

    def __str__(self) -> str:
        kind = "simultaneous" if self.simultaneous else "per-model"
        lines = [f"{self.confidence_level:.0%} {kind} rank confidence sets ({self.metric}):"]
        for row in self.to_frame().itertuples(index=False):
            lines.append(
                f"  {label(row.model)}: rank {row.rank}, set {{{row.lower}..{row.upper}}}"
                f"  ({self.metric} {row.metric:.4g})"
            )
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        head = html.escape(str(self).splitlines()[0])
        table = str(self.to_frame().to_html(index=False, escape=True))
        return f"<p>{head}</p>\n{table}"

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-safe dict."""
        return {
            "metric": self.metric,
            "higher_is_better": bool(self.higher_is_better),
            "confidence_level": float(self.confidence_level),
            "simultaneous": bool(self.simultaneous),
            "critical_value": json_value(float(self.critical_value)),
            "ranks": [
                {k: json_value(v) for k, v in row.items()}
                for row in self.to_frame().to_dict("records")
            ],
        }

    def plot(self, ax: Any = None) -> Any:
        """Rank plot: each model's rank confidence set as a bar, its estimated rank as a dot.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Default: the current axes (``plt.gca()``).

        Returns
        -------
        matplotlib.axes.Axes
        """
        if ax is None:
            import matplotlib.pyplot as plt

            ax = plt.gca()
        frame = self.to_frame()
        y = np.arange(len(frame))[::-1]
        for yi, row in zip(y, frame.itertuples(index=False), strict=True):
            # the set {lower, ..., upper} as a bar covering its ranks (half a rank each side)
            ax.plot([row.lower - 0.4, row.upper + 0.4], [yi, yi], color="tab:blue", lw=8,
                    alpha=0.35, solid_capstyle="butt")  # fmt: skip
            ax.plot([row.rank], [yi], "o", color="tab:blue")
        ax.set_yticks(y)
        ax.set_yticklabels([label(m) for m in frame.model])
        k = len(frame)
        ax.set_xticks(np.arange(1, k + 1))
        ax.set_xlim(0.5, k + 0.5)
        ax.set_xlabel("rank (1 = best)")
        kind = "simultaneous" if self.simultaneous else "per-model"
        ax.set_title(f"{self.confidence_level:.0%} {kind} rank confidence sets")
        return ax
