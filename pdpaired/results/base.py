"""What every result shares: its provenance fields and its text, HTML, dict and frame views.

:class:`Provenance` holds the fields every result records about its
comparison (models, metric, design, missing outcomes, seed and stream);
:class:`ResultBase` adds the views built on them, which each result family
(:mod:`~pdpaired.results.bootstrap`, :mod:`~pdpaired.results.randomization`,
:mod:`~pdpaired.results.exact_binomial`, :mod:`~pdpaired.results.delong`)
extends with its own rows. :func:`with_common_doc` writes the shared fields
into a result's docstring. :class:`ConfidenceInterval` is the interval every
family reports.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

import pandas as pd

from pdpaired._lib.format import fmt as _fmt
from pdpaired._lib.format import jsonable as _jsonable
from pdpaired._lib.format import printable as _printable
from pdpaired._lib.public import public
from pdpaired.results.display import html_table
from pdpaired.results.missing import MissingSummary

__all__ = [
    "ConfidenceInterval",
    "Provenance",
    "ResultBase",
    "metric_label",
    "provenance_fields",
    "with_common_doc",
]


@public
@dataclass(frozen=True, slots=True, kw_only=True)
class ConfidenceInterval:
    """A confidence interval (scipy's vocabulary: ``low`` and ``high``)."""

    low: float
    high: float

    def __repr__(self) -> str:
        return f"ConfidenceInterval(low={self.low!r}, high={self.high!r})"


_COMMON_DOC = """    a, b : str
        Model names (A is the candidate).
    metric : str
        Metric name (``"mean"`` in score mode, e.g. ``"auroc"`` in prediction mode).
    higher_is_better : bool
    metric_a, metric_b : float
        The metric of each model (``sum_h w_h * mean_h`` with strata).
    raw_delta : float
        Literally ``metric_a - metric_b``.
    improvement : float
        Direction adjusted: positive always means A is better.
    n_cases : int
        Paired cases analysed (after the missing-outcome policy).
    n_groups : int or None
        Groups (clusters), None without a group column.
    n_strata : int or None
        Strata, None without stratification.
    unit : str
        Resampling / swapping unit, ``"case"`` or ``"group"``.
    weighting : str
        ``"item"`` (mean over cases) or ``"group"`` (mean of group means).
    sampling : str
        ``"iid"``, ``"cluster"``, ``"stratified"``, ``"stratified-cluster"`` or
        (prediction mode, classification) ``"target-stratified"``: resampled
        within target classes (and strata), so class counts are fixed.
    stratum_weights : dict or None
        Population share of each stratum used in the estimate.
    missing : MissingSummary
    seed : int or None
        The seed the user gave (or the one drawn for ``rng=None``): the same
        call with ``rng=seed`` reproduces the result (for a part of a report,
        the same ``report()`` call). None when a Generator was passed (or
        when the analysis uses no randomness).
    stream : str or None
        The addressed random stream the analysis read under that seed:
        ``"bootstrap"``, ``"randomization"`` (score and prediction mode alike),
        ``"poisson-bootstrap"`` / ``"partition-flips"`` (Dask), or for a part
        of a report ``"report:bootstrap"`` / ``"report:randomization"``;
        None when the analysis uses no randomness (the exact binomial test).
    rng_state : dict or None
        Starting ``bit_generator.state`` of a Generator passed as ``rng``.
    score_column : str or None
        Score mode: the per-case score column, so labels read ``"mean log_loss"``
        (None in prediction mode). :attr:`metric_label` is the label.
"""


@dataclass(frozen=True, slots=True, kw_only=True)
class Provenance:
    """What every result records about its comparison: the fields all results share.

    The comparison builds one per analysis and hands it to the result's
    constructor through :func:`provenance_fields`.
    """

    a: str
    b: str
    metric: str
    higher_is_better: bool
    metric_a: float
    metric_b: float
    raw_delta: float
    improvement: float
    n_cases: int
    n_groups: int | None
    n_strata: int | None
    unit: str
    weighting: str
    sampling: str
    stratum_weights: dict[str, float] | None = field(repr=False, compare=False)
    missing: MissingSummary = field(repr=False)
    seed: int | None
    stream: str | None
    rng_state: dict[str, Any] | None = field(repr=False, compare=False)
    score_column: str | None = field(default=None, repr=False)

    @property
    def metric_label(self) -> str:
        """The metric as labels show it: ``"mean log_loss"`` in score mode, else ``metric``."""
        return metric_label(self.metric, self.score_column)


def metric_label(metric: str, score_column: str | None) -> str:
    """Label of a metric: the mean of a score names its column (``"mean log_loss"``)."""
    if metric == "mean" and score_column is not None:
        return f"mean {score_column}"
    return metric


def provenance_fields(prov: Provenance) -> dict[str, Any]:
    """Return the shared fields of ``prov`` as keyword arguments of a result (values as is)."""
    return {f.name: getattr(prov, f.name) for f in fields(Provenance)}


#: The shared fields every result's dict and frame views show (all but the
#: missing-outcome summary, shown on its own, and a Generator's state).
_COMMON_FIELDS = tuple(f.name for f in fields(Provenance) if f.name not in ("missing", "rng_state"))


@dataclass(frozen=True, slots=True, kw_only=True)
class ResultBase(Provenance):
    """Provenance and the views every result shares (see the subclasses' docstrings)."""

    _title = "Paired comparison"

    def _head_rows(self) -> list[tuple[str, str]]:
        label = self.metric_label
        return [
            (f"Model A ({self.a}) {label}", _fmt(self.metric_a)),
            (f"Model B ({self.b}) {label}", _fmt(self.metric_b)),
            ("Improvement (A over B)", _fmt(self.improvement, signed=True)),
        ]

    def _tail_rows(self) -> list[tuple[str, str]]:
        verb = "over" if self.unit == "case" else "over whole"
        design = f"{self.sampling} {verb} {self.unit}s, {self.n_cases} cases"
        if self.n_groups is not None:
            design += f" in {self.n_groups} groups"
        if self.n_strata is not None:
            design += f", {self.n_strata} strata"
        if self.weighting == "group":
            design += ", mean of group means"
        if self.stream == "two-stage-bootstrap":  # bootstrap(..., resample_repeats=True)
            design += "; runs redrawn within each drawn case (two-stage)"
        if self.stream == "pigeonhole-bootstrap":  # bootstrap(..., resample_factors=True)
            design += "; every factor's levels redrawn too (pigeonhole: new cases and levels)"
        arrow = "higher is better" if self.higher_is_better else "lower is better"
        return [
            ("Design", design),
            ("Direction", f"{self.metric_label} ({arrow}); improvement > 0 means A is better"),
            ("Missing outcomes", self.missing.describe()),
        ]

    def _rows(self) -> list[tuple[str, str]]:
        return self._head_rows() + self._tail_rows()

    def _seed_text(self) -> str:
        text = "Generator" if self.seed is None else f"seed {self.seed}"
        if self.stream is not None and ":" in self.stream:  # a part of a larger analysis
            text += f", stream {self.stream}"
        return text

    def _headline(self) -> str | None:
        """Return the sentence above the block (the verdict of a bootstrap), or None."""
        return None

    def key_width(self) -> int:
        """Width of the label column of the text block (a report aligns its parts on it)."""
        return max(len(_printable(k)) for k, _ in self._rows()) + 3

    def text(self, width: int | None = None, *, headline: str | None = None) -> str:
        """Return the plain-text block, its labels padded to ``width`` (default: its own).

        ``headline`` replaces the block's own first sentence (a report states
        its judgement of all its parts there).
        """
        width = max(width or 0, self.key_width())
        rows = [(_printable(k), _printable(v)) for k, v in self._rows()]  # labels are data
        lines = [f"{k:<{width}}{v}" for k, v in rows]
        head = self._headline() if headline is None else headline
        return "\n".join(lines if head is None else [_printable(head), *lines])

    def __str__(self) -> str:
        return self.text()

    def html(self, *, headline: str | None = None) -> str:
        """Return the HTML block (what a notebook shows), labels escaped.

        ``headline`` replaces the block's own first sentence, as in
        :meth:`text`; ``""`` leaves it out (a page that states the verdict
        above the block).
        """
        head = self._headline() if headline is None else headline
        return html_table(self._title, self._rows(), lead=head)

    def _repr_html_(self) -> str:
        return self.html()

    def _extra_dict(self) -> dict[str, Any]:
        return {}

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-safe dict (no NumPy scalars, no NaN; arrays omitted)."""
        d: dict[str, Any] = {"result": type(self).__name__}
        d.update({k: getattr(self, k) for k in _COMMON_FIELDS})
        d["missing"] = self.missing.to_dict()
        d.update(self._extra_dict())
        d["rng_state"] = self.rng_state
        out: dict[str, Any] = _jsonable(d)
        return out

    def to_frame(self) -> pd.DataFrame:
        """Return a one-row tidy DataFrame (nested fields flattened)."""
        d = self.to_dict()
        for key in ("rng_state", "stratum_weights", "null_distribution"):
            d.pop(key, None)
        missing = d.pop("missing")
        ci = d.pop("confidence_interval", None)
        if ci is not None:
            d["ci_low"], d["ci_high"] = ci["low"], ci["high"]
        if "confidence_interval_se" in d:
            ci_se = d.pop("confidence_interval_se") or {"low": None, "high": None}
            d["ci_low_se"], d["ci_high_se"] = ci_se["low"], ci_se["high"]
        d["missing_policy"] = missing["policy"]
        for key in ("n_missing_a", "n_missing_b", "n_dropped", "n_filled"):
            d[key] = missing[key]
        return pd.DataFrame([d])


def with_common_doc(cls: type) -> None:
    """Write the shared fields' descriptions where ``cls``'s docstring says ``{common}``."""
    cls.__doc__ = (cls.__doc__ or "").replace("    {common}\n", _COMMON_DOC)
