"""Resampling units as exact sufficient statistics, shared by the pandas and Dask paths.

Every score is put on one fixed-point grid before anything is summed:
``q = round(x * 2**k)`` in int64, with ``k`` fixed by the pairs analysed
alone: the largest magnitude ``M`` among their ``R = 2n`` scores (after the
missing-outcome policy) and their number, so that any sum of at most ``R`` of
them stays below ``2**61`` (a slice analysed inside ``by_slice`` and the same
slice analysed from a filtered table therefore share the grid). Integer
addition is associative, so a unit's sum, a stratum's total and every point
estimate come out bit for bit the same whatever the
order of the rows, the way they are split into partitions or the machine that
adds them up: the pandas path and the Dask path build the same
:class:`UnitTable` and hence the same :class:`~pdpaired.core.engine.Design`.
A score keeps ``61 - log2(R)`` significant bits relative to ``M`` (43 bits,
a relative error below ``1e-12``, at a hundred thousand cases); integers such
as 0/1 scores are exact.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from pdpaired._lib.validation import plain
from pdpaired.core.engine import Design

__all__ = ["UnitTable", "design_from_units", "grid_exponent", "quantize", "stratum_weight_vector"]


def grid_exponent(max_abs: float, n_rows: int) -> int:
    """Exponent ``k`` of the grid: ``n_rows`` values of magnitude ``<= max_abs`` sum below 2**61.

    Raises ``ValueError`` when such a sum could pass float64's largest value
    (about 1.8e308): the means, differences and sums of the analysis would be
    infinite.
    """
    if not max_abs > 0.0:
        return 0
    exp = math.frexp(max_abs)[1]  # max_abs < 2**exp
    bits = max(1, int(n_rows)).bit_length()
    if exp + bits > 1024:  # the sum of n_rows values is below 2**(exp + bits)
        msg = (
            f"The scores are too large to add up in float64: {int(n_rows):,} paired values of "
            f"magnitude up to {max_abs:.3g} can sum past float64's largest value (1.8e308), "
            "which would make the means and the interval infinite. Rescale the scores (for "
            "example divide them by a power of ten)."
        )
        raise ValueError(msg)
    return 61 - exp - bits


#: Scores quantized per block of this many values, so the only full-size array is the result.
_QUANTIZE_BLOCK = 1 << 20


def quantize(x: np.ndarray, k: int) -> np.ndarray:
    """Scores on the grid ``2**-k`` as int64 (round half to even)."""
    x = np.asarray(x, dtype=np.float64)
    out = np.empty(x.shape, dtype=np.int64)
    flat_x, flat_out = x.reshape(-1), out.reshape(-1)
    for start in range(0, flat_x.size, _QUANTIZE_BLOCK):  # bounded temporaries
        y = np.ldexp(flat_x[start : start + _QUANTIZE_BLOCK], k)
        flat_out[start : start + _QUANTIZE_BLOCK] = np.rint(y, out=y)
    return out


def to_float(q: np.ndarray, k: int) -> np.ndarray:
    """Grid integers back to float64 (one correctly rounded conversion)."""
    return np.ldexp(np.asarray(q).astype(np.float64), -k)


@dataclass(frozen=True, slots=True, eq=False)
class UnitTable:
    """Per resampling unit: exact sums of both models' scores and the number of cases.

    Rows are sorted by stratum code, then by the unit's label (case id or group
    label). ``freq`` (optional) says how many identical units a row stands
    for; the Dask path uses it for 0/1-style scores, whose cases collapse to
    a few distinct rows per stratum.
    """

    sum_a: np.ndarray  # int64, grid 2**-k
    sum_b: np.ndarray  # int64
    count: np.ndarray  # int64, cases per unit
    stratum: np.ndarray  # int64 codes into s_labels, non-decreasing
    s_labels: pd.Index
    k: int
    unit: str  # "case" or "group"
    freq: np.ndarray | None = None

    def weights(self) -> np.ndarray:
        """Multiplicity of each row (ones when ``freq`` is None)."""
        return np.ones(self.sum_a.size, dtype=np.int64) if self.freq is None else self.freq


def stratum_weight_vector(
    given: Mapping[Any, float] | pd.Series | None, labels: pd.Index, observed: np.ndarray
) -> np.ndarray:
    """Return each stratum's population share: the given mapping (checked) or ``observed``."""
    if given is None:
        return observed
    if isinstance(given, pd.Series):
        given = given.to_dict()
    if not isinstance(given, Mapping):
        msg = "`stratum_weights` must be a mapping (dict or Series) from stratum to share."
        raise TypeError(msg)
    keys = set(given)
    missing = [lab for lab in labels if lab not in keys]
    extra = [k for k in given if k not in set(labels)]
    if missing or extra:
        msg = (
            "`stratum_weights` must give one share for every stratum in the data; "
            f"missing: {[plain(x) for x in missing]}, "
            f"not in the data: {[plain(x) for x in extra]}."
        )
        raise ValueError(msg)
    w = np.array([float(given[lab]) for lab in labels])
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        msg = f"`stratum_weights` must be finite and >= 0; got {dict(given)}."
        raise ValueError(msg)
    if not math.isclose(float(w.sum()), 1.0, rel_tol=0.0, abs_tol=1e-9):
        msg = f"`stratum_weights` must sum to 1 (within 1e-9); they sum to {w.sum():.12g}."
        raise ValueError(msg)
    return w


def design_from_units(
    t: UnitTable,
    *,
    weighting: str,
    stratum_weights: Mapping[Any, float] | pd.Series | None,
    sign: float,
) -> tuple[Design, float, float]:
    """Build the resampling design and the point estimates from a unit table.

    Returns
    -------
    design : Design
    metric_a, metric_b : float
        ``sum_h w_h * mean_h`` for each model: the mean over cases
        (``weighting="item"``) or over units (``"group"``) within stratum ``h``.
    """
    n_strata = len(t.s_labels)
    f = t.weights()
    rows_per = np.bincount(t.stratum, minlength=n_strata)
    ptr = np.concatenate([[0], np.cumsum(rows_per)]).astype(np.int64)
    diff = to_float(t.sum_a - t.sum_b, t.k)
    if weighting == "group":
        unit_a = to_float(t.sum_a, t.k) / t.count
        unit_b = to_float(t.sum_b, t.k) / t.count
        value = diff / t.count
        unit_count = None
        share = np.bincount(t.stratum, weights=f, minlength=n_strata)
        mean_a = np.bincount(t.stratum, weights=unit_a * f, minlength=n_strata) / share
        mean_b = np.bincount(t.stratum, weights=unit_b * f, minlength=n_strata) / share
    else:
        value = diff
        unit_count = None if t.unit == "case" else t.count
        share = np.bincount(t.stratum, weights=t.count * f, minlength=n_strata)
        starts = ptr[:-1]
        mean_a = to_float(np.add.reduceat(t.sum_a * f, starts), t.k) / share
        mean_b = to_float(np.add.reduceat(t.sum_b * f, starts), t.k) / share
    weights = stratum_weight_vector(stratum_weights, t.s_labels, share / share.sum())
    metric_a = float(np.sum(weights * mean_a))
    metric_b = float(np.sum(weights * mean_b))
    design = Design(
        value=value, count=unit_count, unit_ptr=ptr, weight=weights, sign=sign, freq=t.freq
    )
    return design, metric_a, metric_b


def segment_sum(values: np.ndarray, unit_of_case: np.ndarray, n_units: int) -> np.ndarray:
    """Exact int64 sum of ``values`` per unit (every unit holds at least one case).

    Unbuffered ``np.add.at``: integer sums in any order are exact, and it needs
    no sort of the cases and no temporary as long as the table (at 1e7 cases,
    0.2 s instead of 10 s for a stable sort and ``reduceat``).
    """
    total = np.zeros(n_units, dtype=np.int64)
    np.add.at(total, unit_of_case, values)
    return total
