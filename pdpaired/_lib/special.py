"""Normal and Student-t distribution functions, with scipy imported on first use.

``import scipy.special`` costs about 0.1 s and ``scipy.stats`` about 0.5 s. The
statistics core needs them only once a number is asked for, so ``import pdpaired``
(a notebook's first cell, ``pdpaired --help``) does not pay for them. Each function
is the scipy ufunc of the same name, applied to its arguments unchanged.
"""

from __future__ import annotations

from typing import Any


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
