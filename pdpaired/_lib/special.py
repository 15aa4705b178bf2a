"""Normal and Student-t distribution functions, with scipy imported on first use.

``import scipy.special`` costs about 0.1 s and ``scipy.stats`` about 0.5 s. The
statistics core needs them only once a number is asked for, so ``import pdpaired``
(a notebook's first cell, ``pdpaired --help``) does not pay for them. Each function
is the scipy ufunc of the same name, applied to its arguments unchanged.
:func:`rankdata` is written here with NumPy (it is all ``scipy.stats`` was
imported for on the AUROC paths) and returns scipy's midranks exactly.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def ndtr(x: Any) -> Any:
    """Return the standard normal CDF at ``x`` (``scipy.special.ndtr``)."""
    from scipy.special import ndtr as f

    return f(x)


def ndtri(p: Any) -> Any:
    """Return the standard normal quantile of ``p`` (``scipy.special.ndtri``)."""
    from scipy.special import ndtri as f

    return f(p)


def stdtrit(df: Any, p: Any) -> Any:
    """Return the Student-t quantile of ``p`` on ``df`` degrees of freedom (``stdtrit``)."""
    from scipy.special import stdtrit as f

    return f(df, p)


def rankdata(x: Any) -> np.ndarray:
    """Return the midranks of a 1-D array: ``scipy.stats.rankdata(x)`` (``method="average"``).

    Ties share the mean of the ranks they span, ``(first + last) / 2``, an exact
    half-integer in float64, so the values equal scipy's bit for bit; as there,
    a NaN anywhere makes every rank NaN.
    """
    a = np.asarray(x)
    if a.ndim != 1:
        msg = f"rankdata needs a 1-D array; got shape {a.shape}."
        raise ValueError(msg)
    n = a.size
    if n and a.dtype.kind in "fc" and bool(np.isnan(a).any()):
        return np.full(n, np.nan)
    order = np.argsort(a, kind="mergesort")
    ordered = a[order]
    new = np.empty(n, dtype=bool)
    new[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    starts = np.flatnonzero(new)
    ends = np.append(starts[1:], n)  # one past each run of ties
    ranks = np.empty(n, dtype=np.float64)
    ranks[order] = np.repeat((starts + ends + 1) / 2.0, ends - starts)
    return ranks
