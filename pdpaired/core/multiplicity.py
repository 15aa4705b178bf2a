"""Multiplicity: p-values adjusted across a family of comparisons.

Slices adjust the p-values of their reported slices, and several models
adjust the bootstrap p-values of their comparisons; both use
:func:`adjust_pvalues` (Holm, Bonferroni or Benjamini-Hochberg), which
equals ``statsmodels.stats.multitest.multipletests`` without needing it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["ADJUSTMENTS", "adjust_pvalues"]

#: The adjustments :func:`adjust_pvalues` knows (None, no adjustment, aside).
ADJUSTMENTS = ("holm", "bonferroni", "fdr_bh")


def adjust_pvalues(pvalues: Sequence[float] | np.ndarray, method: str | None) -> np.ndarray:
    """Adjust p-values for multiple comparisons.

    Parameters
    ----------
    pvalues : array_like
    method : {"holm", "bonferroni", "fdr_bh"} or None
        Holm's step-down (family-wise error), Bonferroni, or
        Benjamini-Hochberg (false discovery rate); None returns them unchanged.

    Returns
    -------
    ndarray
        Adjusted p-values, capped at 1, in the input order (equal to
        ``statsmodels.stats.multitest.multipletests(p, method=...)[1]``).

    Examples
    --------
    >>> from pdpaired.core.multiplicity import adjust_pvalues
    >>> adjust_pvalues([0.01, 0.04, 0.03], "holm").round(3).tolist()
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(pvalues, dtype=np.float64)
    m = p.size
    if method is None or m == 0:
        return p.copy()
    if method == "bonferroni":
        return np.minimum(1.0, p * m)
    order = np.argsort(p, kind="stable")
    ps = p[order]
    if method == "holm":
        adj = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * ps))
    else:  # fdr_bh: p_(i) / (i / m), as statsmodels computes it
        adj = np.minimum.accumulate((ps / (np.arange(1, m + 1) / m))[::-1])[::-1]
        adj = np.minimum(1.0, adj)
    out = np.empty(m)
    out[order] = adj
    return out
