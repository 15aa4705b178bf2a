"""Unbiased per-case estimators of pass@k and pass^k from n samples with c correct.

A model sampled ``n`` times on a case, ``c`` of them correct, estimates

* pass@k, the probability that at least one of ``k`` fresh samples is
  correct, without bias by ``1 - C(n - c, k) / C(n, k)`` (Chen et al., 2021,
  "Evaluating Large Language Models Trained on Code");
* pass^k, the probability that all ``k`` fresh samples are correct, without
  bias by ``C(c, k) / C(n, k)``.

Both ratios are computed as products of ``k`` factors, vectorised over the
cases, never from factorials: ``C(m, k) / C(n, k) = prod_{j<k} (m - j) / (n - j)``,
a factor clipped at 0 once ``m - j`` reaches 0 (then ``C(m, k) = 0``). The
relative rounding error is at most about ``k`` ulps.
"""

from __future__ import annotations

import numpy as np

__all__ = ["ESTIMATORS", "pass_at_k", "pass_hat_k"]


def _comb_ratio(m: np.ndarray, n: np.ndarray, k: int) -> np.ndarray:
    """``C(m, k) / C(n, k)`` for integer arrays ``0 <= m <= n`` with ``n >= k``."""
    m = np.asarray(m, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    out = np.ones(np.broadcast(m, n).shape, dtype=np.float64)
    for j in range(k):
        out *= np.maximum(m - j, 0.0) / (n - j)
    return out


def pass_at_k(n: np.ndarray, c: np.ndarray, k: int) -> np.ndarray:
    """Unbiased pass@k of each case: ``1 - C(n - c, k) / C(n, k)``.

    Parameters
    ----------
    n : array of int
        Samples per case, each at least ``k``.
    c : array of int
        Correct samples per case, ``0 <= c <= n``.
    k : int
        At least 1.

    Returns
    -------
    ndarray of float64

    Examples
    --------
    >>> import numpy as np
    >>> from pdpaired.core.pass_at_k import pass_at_k
    >>> pass_at_k(np.array([10, 10, 5]), np.array([0, 1, 5]), 2)
    array([0. , 0.2, 1. ])
    """
    n = np.asarray(n, dtype=np.int64)
    c = np.asarray(c, dtype=np.int64)
    return 1.0 - _comb_ratio(n - c, n, k)


def pass_hat_k(n: np.ndarray, c: np.ndarray, k: int) -> np.ndarray:
    """Unbiased pass^k of each case: ``C(c, k) / C(n, k)``.

    Parameters
    ----------
    n : array of int
        Samples per case, each at least ``k``.
    c : array of int
        Correct samples per case, ``0 <= c <= n``.
    k : int
        At least 1.

    Returns
    -------
    ndarray of float64

    Examples
    --------
    >>> import numpy as np
    >>> from pdpaired.core.pass_at_k import pass_hat_k
    >>> pass_hat_k(np.array([10, 10, 5]), np.array([0, 9, 5]), 2)
    array([0. , 0.8, 1. ])
    """
    n = np.asarray(n, dtype=np.int64)
    c = np.asarray(c, dtype=np.int64)
    return _comb_ratio(c, n, k)


#: The estimators by kind, with the metric name each gives (``{k}`` filled in).
ESTIMATORS = {"pass@k": (pass_at_k, "pass@{k}"), "pass^k": (pass_hat_k, "pass^{k}")}
