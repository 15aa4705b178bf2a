"""Score intervals for the difference of two paired proportions: Newcombe's and Tango's.

For 0/1 scores of two models on the same cases, with ``a`` cases both pass,
``b`` only A passes, ``c`` only B passes and ``d`` both fail (``n`` cases),
the difference of the pass rates is ``(b - c) / n``. Newcombe's method 10
("square-and-add" of Wilson score intervals) combines the Wilson interval of
each model's pass rate, ``(l1, u1)`` and ``(l2, u2)``, with the correlation
of the paired outcomes:

``L = D - sqrt((p1 - l1)**2 - 2 phi (p1 - l1)(u2 - p2) + (u2 - p2)**2)``
``U = D + sqrt((u1 - p1)**2 - 2 phi (u1 - p1)(p2 - l2) + (p2 - l2)**2)``

with ``phi`` the phi coefficient of the 2 x 2 table, its numerator ``ad - bc``
replaced by ``max(ad - bc - n/2, 0)`` when positive, and ``phi = 0`` when a
margin is empty (Newcombe 1998, Statistics in Medicine 17:2635-2650, method 10;
the same as in Altman et al., *Statistics with Confidence*, 2nd ed., ch. 6).
Its coverage stays close to nominal with few discordant pairs, and it never
leaves [-1, 1]. Tango's (1998) interval inverts the score test of
``p12 - p21 = delta`` (:func:`tango_interval`).
"""

from __future__ import annotations

import math

from pdpaired._lib.special import ndtri

__all__ = ["newcombe_interval", "tango_interval", "tango_statistic", "wilson_interval"]


def wilson_interval(x: int, n: int, z: float) -> tuple[float, float]:
    """Wilson's score interval for ``x`` successes in ``n`` trials (no continuity correction)."""
    p = x / n
    denom = n + z * z
    centre = (x + z * z / 2.0) / denom
    half = z * math.sqrt(n * p * (1.0 - p) + z * z / 4.0) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def newcombe_interval(
    a: int, b: int, c: int, d: int, confidence_level: float
) -> tuple[float, float]:
    """Newcombe's (1998) method 10 interval for ``(b - c) / n``, the paired difference.

    Parameters
    ----------
    a, b, c, d : int
        Both pass, only A passes, only B passes, both fail.
    confidence_level : float

    Returns
    -------
    low, high : float

    Examples
    --------
    >>> from pdpaired.core.paired_proportions import newcombe_interval
    >>> [round(v, 4) for v in newcombe_interval(36, 12, 2, 0, 0.95)]
    [0.0569, 0.3404]
    """
    n = a + b + c + d
    if n <= 0:
        msg = "newcombe_interval needs at least one pair."
        raise ValueError(msg)
    z = float(ndtri(0.5 + confidence_level / 2.0))
    p1, p2 = (a + b) / n, (a + c) / n
    l1, u1 = wilson_interval(a + b, n, z)
    l2, u2 = wilson_interval(a + c, n, z)
    margins = (a + b) * (c + d) * (a + c) * (b + d)
    if margins == 0:
        phi = 0.0
    else:
        cross = a * d - b * c
        num = max(cross - n / 2.0, 0.0) if cross > 0 else float(cross)
        phi = num / math.sqrt(margins)
    diff = p1 - p2
    dl1, du1, dl2, du2 = p1 - l1, u1 - p1, p2 - l2, u2 - p2
    low = diff - math.sqrt(max(dl1 * dl1 - 2.0 * phi * dl1 * du2 + du2 * du2, 0.0))
    high = diff + math.sqrt(max(du1 * du1 - 2.0 * phi * du1 * dl2 + dl2 * dl2, 0.0))
    return max(-1.0, low), min(1.0, high)


def tango_statistic(b: int, c: int, n: int, delta: float) -> float:
    """Tango's (1998) score statistic for ``p12 - p21 = delta`` from the discordant counts.

    ``b`` pairs where only A passes, ``c`` where only B passes, ``n`` pairs.
    Under the constraint the maximum-likelihood ``p21`` solves
    ``2 n q**2 + W q - c delta (1 - delta) = 0`` with
    ``W = -b - c + (2 n - b + c) delta``, and
    ``Z = (b - c - n delta) / sqrt(n (2 q + delta (1 - delta)))``.
    """
    w = -b - c + (2.0 * n - b + c) * delta
    q = (-w + math.sqrt(max(w * w + 8.0 * n * c * delta * (1.0 - delta), 0.0))) / (4.0 * n)
    var = n * (2.0 * q + delta * (1.0 - delta))
    num = b - c - n * delta
    if var <= 0.0:
        return 0.0 if num == 0.0 else math.copysign(math.inf, num)
    return num / math.sqrt(var)


def tango_interval(b: int, c: int, n: int, confidence_level: float) -> tuple[float, float]:
    """Tango's (1998) score interval for the paired difference of proportions ``(b - c) / n``.

    The set of ``delta`` whose score statistic lies within ``+/- z``; ``Z`` is
    decreasing in ``delta``, so each end is found by bisection (to 1e-12).
    """
    z = float(ndtri(0.5 + confidence_level / 2.0))
    est = (b - c) / n

    def solve(lo: float, hi: float, target: float) -> float:
        # Z(lo) >= target >= Z(hi); bisect to the crossing
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            if tango_statistic(b, c, n, mid) > target:
                lo = mid
            else:
                hi = mid
            if hi - lo < 1e-13:
                break
        return 0.5 * (lo + hi)

    low = -1.0 if tango_statistic(b, c, n, -1.0) <= z else solve(-1.0, est, z)
    high = 1.0 if tango_statistic(b, c, n, 1.0) >= -z else solve(est, 1.0, -z)
    return low, high
