"""Result objects: frozen dataclasses with text, HTML, dict and frame views."""

from __future__ import annotations

import html
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from pdpaired._lib.format import fmt as _fmt
from pdpaired._lib.format import jsonable as _jsonable
from pdpaired._lib.format import level_text as _level
from pdpaired._lib.format import plot_text as _plot_text
from pdpaired._lib.format import printable as _printable

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = [
    "VERDICTS",
    "BootstrapResult",
    "ConfidenceInterval",
    "DeLongResult",
    "Decisions",
    "ExactBinomialResult",
    "MissingSummary",
    "RandomizationResult",
    "VerifiedArtifact",
    "decide",
    "interval_degenerate",
    "verdict_headline",
]

#: The verdicts of a bootstrap interval (see docs/concepts/decisions.md).
VERDICTS = ("a_better", "b_better", "equivalent", "inconclusive", "undetermined")


@dataclass(frozen=True, slots=True, kw_only=True)
class ConfidenceInterval:
    """A confidence interval (scipy's vocabulary: ``low`` and ``high``)."""

    low: float
    high: float

    def __repr__(self) -> str:
        return f"ConfidenceInterval(low={self.low!r}, high={self.high!r})"


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


# --------------------------------------------------------------------------- verdict
def interval_degenerate(
    low: float, high: float, distribution: np.ndarray, *, confidence_level: float, method: str
) -> bool:
    """Whether a bootstrap interval is too degenerate to decide anything.

    True when the interval has zero width, or when either tail of the
    bootstrap distribution that sets an endpoint (the replicates at or
    beyond it) holds fewer than 2 distinct values: the endpoint then sits
    on one atom of the distribution (too few resamples, or almost no
    discordant cases), not on a tail.

    For ``method="basic"`` (a reflection of the percentile endpoints) the
    tails are those of the percentile endpoints.

    Examples
    --------
    >>> import numpy as np
    >>> from pdpaired.results.bootstrap import interval_degenerate
    >>> interval_degenerate(0.1, 0.1, np.full(100, 0.1), confidence_level=0.95,
    ...                     method="percentile")
    True
    >>> dist = np.linspace(-1.0, 1.0, 1001)
    >>> low, high = np.percentile(dist, [2.5, 97.5])
    >>> interval_degenerate(low, high, dist, confidence_level=0.95, method="percentile")
    False
    """
    if not high > low:
        return True
    dist = np.asarray(distribution, dtype=np.float64)
    if method == "basic":
        alpha = (1.0 - confidence_level) / 2.0
        low, high = np.percentile(dist, [100 * alpha, 100 * (1 - alpha)])
    tails = (dist[dist <= low], dist[dist >= high])
    return any(np.unique(tail).size < 2 for tail in tails)


@dataclass(frozen=True, slots=True, kw_only=True)
class Decisions:
    """The verdict of an interval and the decision flags."""

    verdict: str
    superior_point: bool
    superior_ci: bool
    noninferior: bool | None


def decide(
    improvement: float,
    low: float,
    high: float,
    *,
    practical_threshold: float,
    noninferiority_margin: float | None,
    degenerate: bool,
) -> Decisions:
    """Return the verdict and the decision flags of an interval of the improvement.

    With ``t = practical_threshold``: ``"a_better"`` when ``low > t``,
    ``"b_better"`` when ``high < -t``, ``"equivalent"`` when ``t > 0`` and
    the interval lies within ``[-t, t]``, else ``"inconclusive"``; and
    ``"undetermined"`` when the interval is ``degenerate`` (see
    :func:`interval_degenerate`): then no flag is True.

    Examples
    --------
    >>> from pdpaired.results.bootstrap import decide
    >>> decide(-0.004, -0.0071, -0.0005, practical_threshold=0.0,
    ...        noninferiority_margin=None, degenerate=False).verdict
    'b_better'
    >>> decide(-0.004, -0.0071, -0.0005, practical_threshold=0.01,
    ...        noninferiority_margin=None, degenerate=False).verdict
    'equivalent'
    """
    t, margin = practical_threshold, noninferiority_margin
    if degenerate:
        return Decisions(verdict="undetermined", superior_point=False, superior_ci=False,
                         noninferior=None if margin is None else False)  # fmt: skip
    if low > t:
        verdict = "a_better"
    elif high < -t:
        verdict = "b_better"
    elif t > 0 and -t <= low and high <= t:
        verdict = "equivalent"
    else:
        verdict = "inconclusive"
    return Decisions(
        verdict=verdict,
        superior_point=bool(improvement > t),
        superior_ci=bool(low > t),
        noninferior=None if margin is None else bool(low >= -margin),
    )


def verdict_headline(
    verdict: str,
    low: float,
    high: float,
    *,
    a: str,
    b: str,
    practical_threshold: float,
    confidence_level: float,
    strong: str = "",
) -> str:
    """One sentence stating the verdict, and who is statistically ahead.

    ``a`` and ``b`` are the model names as they should appear (a caller
    writing Markdown passes them escaped); ``strong`` wraps the verdict
    (``"**"`` in Markdown). When the interval excludes 0 but the verdict is
    ``"equivalent"`` or ``"inconclusive"``, the sentence names the model
    that is statistically ahead.

    Examples
    --------
    >>> from pdpaired.results.bootstrap import verdict_headline
    >>> text = verdict_headline("equivalent", -0.0071, -0.0005, a="new", b="baseline",
    ...                         practical_threshold=0.01, confidence_level=0.95)
    >>> for part in text.replace(" — ", "; ").split("; "):
    ...     print(part)
    Verdict: equivalent within ±0.01
    the 95% interval [-0.0071, -0.0005] lies inside [-0.01, +0.01]
    baseline is statistically ahead (the interval excludes 0), by less than the threshold.
    """
    t = practical_threshold
    neg = f"{-t:g}" if t else "0"
    lvl = _level(confidence_level)
    iv = f"the {lvl} interval [{_fmt(low, True)}, {_fmt(high, True)}]"
    ahead = a if low > 0 else b if high < 0 else None
    if verdict == "a_better":
        head = f"{a} is better than {b}"
        why = f"{iv} lies above {t:g}"
    elif verdict == "b_better":
        head = f"{b} is better than {a}"
        why = f"{iv} lies below {neg}"
    elif verdict == "equivalent":
        head = f"equivalent within ±{t:g}"
        why = f"{iv} lies inside [{neg}, {t:+g}]"
        if ahead is not None:
            why += (
                f"; {ahead} is statistically ahead (the interval excludes 0), by less than "
                "the threshold"
            )
    elif verdict == "inconclusive":
        head = "inconclusive"
        if ahead is not None:
            why = (
                f"{ahead} is statistically ahead ({iv} excludes 0), but the interval "
                f"straddles the practical threshold {t:g}: whether the difference matters "
                "is not settled"
            )
        elif t > 0:
            why = f"{iv} includes 0 and reaches beyond ±{t:g}"
        else:
            why = f"{iv} includes 0"
    else:
        head = "undetermined"
        why = (
            f"{iv} is degenerate (zero width, or too few distinct bootstrap replicates in a "
            "tail), so no decision is made; more cases or more resamples are needed"
        )
    return f"{strong}Verdict: {head}{strong} — {why}."


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
class _Result(Provenance):
    """Provenance shared by every result (see the subclasses' docstrings)."""

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

    def text(self, width: int | None = None) -> str:
        """Return the plain-text block, its labels padded to ``width`` (default: its own)."""
        width = max(width or 0, self.key_width())
        rows = [(_printable(k), _printable(v)) for k, v in self._rows()]  # labels are data
        lines = [f"{k:<{width}}{v}" for k, v in rows]
        head = self._headline()
        return "\n".join(lines if head is None else [_printable(head), *lines])

    def __str__(self) -> str:
        return self.text()

    def _repr_html_(self) -> str:
        return html_table(self._title, self._rows(), lead=self._headline())

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


@dataclass(frozen=True, slots=True, kw_only=True)
class BootstrapResult(_Result):
    """Paired bootstrap confidence interval for the improvement of A over B.

    Attributes
    ----------
    {common}
    confidence_interval : ConfidenceInterval
    confidence_level : float
    method : str
        ``"percentile"``, ``"basic"`` or ``"bca"``.
    n_resamples, n_valid : int
        Replicates drawn, and those where the metric was defined.
    bootstrap_distribution : ndarray
        The ``n_valid`` replicates of the improvement.
    standard_error : float
        Standard deviation of the bootstrap distribution.
    practical_threshold : float
    noninferiority_margin : float or None
    superior_point : bool
        ``improvement > practical_threshold``.
    superior_ci : bool
        ``confidence_interval.low > practical_threshold``.
    noninferior : bool or None
        ``confidence_interval.low >= -noninferiority_margin``; None without a margin.
    verdict : str
        With ``t = practical_threshold``: ``"a_better"`` (``low > t``),
        ``"b_better"`` (``high < -t``), ``"equivalent"`` (``t > 0`` and the
        interval inside ``[-t, t]``), ``"inconclusive"``, or
        ``"undetermined"`` when the interval is degenerate (zero width, or
        fewer than 2 distinct replicate values in a tail): then no decision
        flag is True. :meth:`headline` says it in words.
    engine : str
        Resampling engine used: ``"multinomial"``, ``"numba"`` or ``"numpy"``
        (all give identical replicates for the same design and seed), or on
        the Dask path ``"poisson"`` (the Poisson bootstrap in partitions).
    confidence_interval_se : ConfidenceInterval or None
        Monte Carlo standard error of each endpoint (``.low``, ``.high``): how
        much the endpoint would move with another seed (0 for a degenerate
        interval).
    degenerate : bool
        The interval is degenerate: zero width, or fewer than 2 distinct
        replicate values in one of its tails (an endpoint sits on an atom of
        a few-valued bootstrap distribution). Then ``verdict`` is
        ``"undetermined"`` and no decision flag is True.
    exact_check : str or None
        For 0/1 scores resampled case by case: a note when the exact binomial
        test on the discordant pairs disagrees with the interval about
        whether 0 is excluded (and that the exact test is the one to trust);
        None otherwise.
    verdict : str
        ``"a_better"`` (``low > t``), ``"b_better"`` (``high < -t``),
        ``"equivalent"`` (``t > 0`` and ``-t <= low`` and ``high <= t``),
        ``"inconclusive"``, or ``"undetermined"`` (degenerate interval), with
        ``t = practical_threshold``.
    decision_stable : bool
        False when a decision threshold (``t``, ``-t``, ``-margin``) lies
        within 2 Monte Carlo standard errors of the endpoint compared with
        it: another seed could flip that decision; use more resamples (or
        ``n_resamples="auto"``).
    """

    confidence_interval: ConfidenceInterval
    confidence_level: float
    method: str
    n_resamples: int
    n_valid: int
    bootstrap_distribution: np.ndarray = field(repr=False, compare=False)
    standard_error: float = field(repr=False)
    practical_threshold: float
    noninferiority_margin: float | None
    superior_point: bool
    superior_ci: bool
    noninferior: bool | None
    verdict: str
    engine: str = field(repr=False, compare=False)
    confidence_interval_se: ConfidenceInterval | None = field(default=None, repr=False)
    degenerate: bool = False
    exact_check: str | None = field(default=None, repr=False)

    _title = "Paired bootstrap"

    def _headline(self) -> str | None:
        return self.headline()

    def headline(self, *, strong: str = "") -> str:
        """Return the verdict in one sentence, naming the model that is statistically ahead.

        Parameters
        ----------
        strong : str, default ""
            Wraps the verdict (``"**"`` for Markdown).

        Returns
        -------
        str
        """
        ci = self.confidence_interval
        return verdict_headline(
            self.verdict, ci.low, ci.high, a=self.a, b=self.b,
            practical_threshold=self.practical_threshold,
            confidence_level=self.confidence_level, strong=strong,
        )  # fmt: skip

    @property
    def decision_stable(self) -> bool:
        """False when a threshold lies within 2 Monte Carlo SEs of the endpoint that decides it."""
        se = self.confidence_interval_se
        if se is None or self.degenerate:
            return True
        ci, t = self.confidence_interval, self.practical_threshold
        checks = [(ci.low, se.low, t), (ci.high, se.high, -t)]
        if t > 0:
            checks += [(ci.low, se.low, -t), (ci.high, se.high, t)]
        if self.noninferiority_margin is not None:
            checks.append((ci.low, se.low, -self.noninferiority_margin))
        return all(abs(end - thr) > 2.0 * err for end, err, thr in checks)

    def __repr__(self) -> str:
        ci = self.confidence_interval
        return (
            f"BootstrapResult(a={self.a!r}, b={self.b!r}, metric={self.metric!r}, "
            f"improvement={self.improvement:.6g}, confidence_interval=[{ci.low:.6g}, "
            f"{ci.high:.6g}], verdict={self.verdict!r}, method={self.method!r}, "
            f"n_resamples={self.n_resamples}, sampling={self.sampling!r}, seed={self.seed!r}, "
            f"stream={self.stream!r})"
        )

    def _rows(self) -> list[tuple[str, str]]:
        ci = self.confidence_interval
        rows = self._head_rows()
        rows.append(
            (
                f"{_level(self.confidence_level)} paired CI",
                f"[{_fmt(ci.low, True)}, {_fmt(ci.high, True)}]   "
                f"{self.method}, {self.n_resamples} resamples, {self._seed_text()}",
            )
        )
        se = self.confidence_interval_se
        if se is not None:
            mc = f"+/-{se.low:.2g} (low), +/-{se.high:.2g} (high)"
            if not self.decision_stable:
                mc += (
                    "; a decision threshold is within 2 MC SE of its endpoint, so another "
                    "seed could flip the decision: use more resamples or n_resamples='auto'"
                )
            rows.append(("Monte Carlo error", mc))
        rows += self._tail_rows()
        if self.degenerate:
            rows.append(
                (
                    "Verdict",
                    "undetermined: the interval is degenerate (zero width, or an endpoint on an "
                    "atom of a few-valued bootstrap distribution), so it supports no decision; "
                    "use the randomization test or, for 0/1 scores, the exact binomial test",
                )
            )
        if self.exact_check is not None:
            rows.append(("Exact test", self.exact_check))
        decision = (
            f"{self.verdict}; superior (CI low > {self.practical_threshold:g}): "
            f"{_yes(self.superior_ci)}"
        )
        if self.noninferior is not None:
            decision += (
                f"; noninferior (margin {self.noninferiority_margin:g}): {_yes(self.noninferior)}"
            )
        rows.append(("Decision", decision))
        if self.n_valid < self.n_resamples:
            rows.append(("Valid resamples", f"{self.n_valid} of {self.n_resamples}"))
        return rows

    def _extra_dict(self) -> dict[str, Any]:
        return {
            "confidence_interval": {
                "low": self.confidence_interval.low,
                "high": self.confidence_interval.high,
            },
            "confidence_level": self.confidence_level,
            "method": self.method,
            "n_resamples": self.n_resamples,
            "n_valid": self.n_valid,
            "standard_error": self.standard_error,
            "practical_threshold": self.practical_threshold,
            "noninferiority_margin": self.noninferiority_margin,
            "superior_point": self.superior_point,
            "superior_ci": self.superior_ci,
            "noninferior": self.noninferior,
            "verdict": self.verdict,
            "engine": self.engine,
            "confidence_interval_se": None
            if self.confidence_interval_se is None
            else {"low": self.confidence_interval_se.low, "high": self.confidence_interval_se.high},
            "degenerate": self.degenerate,
            "decision_stable": self.decision_stable,
            "exact_check": self.exact_check,
        }

    def plot(self, ax: Axes | None = None, *, bins: int | str = "auto") -> Axes:
        """Histogram of the bootstrap distribution with the interval and the estimate.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Axes to draw on; pyplot's current Axes (``plt.gca()``) when None, as in
            pandas and seaborn, so the plot shows inline in Jupyter.
        bins : int or str
            Passed to :meth:`~matplotlib.axes.Axes.hist`.

        Returns
        -------
        matplotlib.axes.Axes
        """
        ax = plot_axes(ax)
        ci = self.confidence_interval
        ax.hist(self.bootstrap_distribution, bins=bins, color="0.75", edgecolor="0.55")
        ax.axvspan(
            ci.low, ci.high, color="C0", alpha=0.15, label=f"{_level(self.confidence_level)} CI"
        )
        ax.axvline(self.improvement, color="C0", lw=2, label="estimate")
        ax.axvline(0.0, color="k", lw=1, ls="--", label="no difference")
        if self.practical_threshold:  # at +t and -t: the verdict compares the interval with both
            ax.axvline(
                self.practical_threshold, color="C3", lw=1, ls=":", label="practical threshold"
            )
            ax.axvline(-self.practical_threshold, color="C3", lw=1, ls=":")
        ax.set_xlabel(_plot_text(f"improvement of {self.a} over {self.b} ({self.metric_label})"))
        ax.set_ylabel("replicates")
        ax.set_title(f"Paired bootstrap ({self.method}, {self.sampling}): {self.verdict}")
        ax.legend(loc="best", fontsize="small")
        return ax


def _with_common_doc(cls: type) -> None:
    cls.__doc__ = (cls.__doc__ or "").replace("    {common}\n", _COMMON_DOC)


_with_common_doc(BootstrapResult)


def _pfmt(p: float) -> str:
    return f"{p:.2e}" if p < 1e-4 else f"{p:.4f}"


@dataclass(frozen=True, slots=True, kw_only=True)
class RandomizationResult(_Result):
    """Paired randomization (prediction-swap) test of A against B.

    Attributes
    ----------
    {common}
    statistic : float
        The observed improvement (the same estimand as the bootstrap's).
    pvalue : float
        ``(1 + #as-extreme) / (1 + n_permutations)`` by Monte Carlo, or the
        exact share when every assignment was enumerated.
    pvalue_se : float or None
        Monte Carlo standard error of ``pvalue``; None when exact.
    null_distribution : ndarray
        The statistic under each evaluated assignment.
    alternative : str
        ``"two-sided"``, ``"greater"`` (A better) or ``"less"``, declared up front.
    n_permutations : int
        Assignments evaluated (``2**n_units`` when exact).
    exact : bool
        Whether every assignment was enumerated.
    engine : str
        ``"exact"``, ``"binomial"``, ``"numba"`` or ``"numpy"``; on the Dask
        path also ``"partition-flips"`` (sign flips in partitions).
    """

    statistic: float
    pvalue: float
    pvalue_se: float | None
    null_distribution: np.ndarray = field(repr=False, compare=False)
    alternative: str
    n_permutations: int
    exact: bool
    engine: str = field(repr=False, compare=False)

    _title = "Paired randomization test"

    def __repr__(self) -> str:
        return (
            f"RandomizationResult(a={self.a!r}, b={self.b!r}, metric={self.metric!r}, "
            f"statistic={self.statistic:.6g}, pvalue={self.pvalue:.6g}, "
            f"alternative={self.alternative!r}, n_permutations={self.n_permutations}, "
            f"exact={self.exact}, unit={self.unit!r}, seed={self.seed!r}, stream={self.stream!r})"
        )

    def _rows(self) -> list[tuple[str, str]]:
        rows = self._head_rows()
        how = (
            f"exact, all {self.n_permutations} assignments"
            if self.exact
            else f"{self.n_permutations} permutations, {self._seed_text()}, "
            f"MC SE {self.pvalue_se:.2g}"
        )
        rows.append(
            (
                "Randomization test",
                f"p = {_pfmt(self.pvalue)}   {self.alternative}, {self.unit} swaps, {how}",
            )
        )
        return rows + self._tail_rows()

    def _extra_dict(self) -> dict[str, Any]:
        return {
            "statistic": self.statistic,
            "pvalue": self.pvalue,
            "pvalue_se": self.pvalue_se,
            "alternative": self.alternative,
            "n_permutations": self.n_permutations,
            "exact": self.exact,
            "engine": self.engine,
        }

    def plot(self, ax: Axes | None = None, *, bins: int | str = "auto") -> Axes:
        """Histogram of the null distribution with the observed statistic.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Axes to draw on; pyplot's current Axes (``plt.gca()``) when None, as in
            pandas and seaborn, so the plot shows inline in Jupyter.
        bins : int or str
            Passed to :meth:`~matplotlib.axes.Axes.hist`.

        Returns
        -------
        matplotlib.axes.Axes
        """
        ax = plot_axes(ax)
        ax.hist(self.null_distribution, bins=bins, color="0.75", edgecolor="0.55")
        ax.axvline(self.statistic, color="C3", lw=2, label=f"observed (p = {_pfmt(self.pvalue)})")
        if self.alternative == "two-sided":
            ax.axvline(-self.statistic, color="C3", lw=1, ls="--")
        ax.set_xlabel(
            _plot_text(f"improvement of {self.a} over {self.b} under swaps ({self.metric_label})")
        )
        ax.set_ylabel("assignments")
        ax.set_title(f"Randomization null distribution ({self.unit} swaps)")
        ax.legend(loc="best", fontsize="small")
        return ax


@dataclass(frozen=True, slots=True, kw_only=True)
class ExactBinomialResult(_Result):
    """Exact conditional test on the discordant pairs of binary 0/1 scores.

    "Pass" is the better value (1 when higher is better, 0 when lower is better).

    Attributes
    ----------
    {common}
    a_only, b_only : int
        Pairs where only A (resp. only B) passes: the discordant pairs.
    both_pass, both_fail : int
        Concordant pairs (they carry no information about the difference).
    statistic : int
        ``a_only``; Binomial(a_only + b_only, 1/2) under the null.
    pvalue : float
    alternative : str
        ``"two-sided"`` (doubled smaller tail, capped at 1), ``"greater"``
        (upper tail of ``a_only``: A better) or ``"less"``.
    mid_p : bool
        Whether the mid-p variant was used.
    discordant_share : float or None
        ``a_only / (a_only + b_only)``; None without discordant pairs.
    confidence_interval : ConfidenceInterval
        Exact Clopper-Pearson interval of the discordant share ([0, 1] when
        there is no discordant pair).
    confidence_level : float
    """

    a_only: int
    b_only: int
    both_pass: int
    both_fail: int
    statistic: int
    pvalue: float
    alternative: str
    mid_p: bool
    discordant_share: float | None
    confidence_interval: ConfidenceInterval
    confidence_level: float

    _title = "Exact binomial test on discordant pairs"

    def __repr__(self) -> str:
        return (
            f"ExactBinomialResult(a={self.a!r}, b={self.b!r}, a_only={self.a_only}, "
            f"b_only={self.b_only}, pvalue={self.pvalue:.6g}, "
            f"alternative={self.alternative!r}, mid_p={self.mid_p})"
        )

    def _rows(self) -> list[tuple[str, str]]:
        rows = self._head_rows()
        n = self.a_only + self.b_only
        rows.append(
            (
                "Discordant pairs",
                f"A only {self.a_only}, B only {self.b_only} (of {n}); "
                f"concordant: both pass {self.both_pass}, both fail {self.both_fail}",
            )
        )
        ci = self.confidence_interval
        share = "n/a" if self.discordant_share is None else f"{self.discordant_share:.4g}"
        rows.append(
            (
                "Share won by A",
                f"{share}   ({_level(self.confidence_level)} exact CI "
                f"[{ci.low:.4g}, {ci.high:.4g}])",
            )
        )
        kind = "mid-p" if self.mid_p else "exact"
        rows.append(
            ("Exact binomial test", f"p = {_pfmt(self.pvalue)}   {self.alternative}, {kind}")
        )
        return rows + self._tail_rows()

    def _extra_dict(self) -> dict[str, Any]:
        return {
            "a_only": self.a_only,
            "b_only": self.b_only,
            "both_pass": self.both_pass,
            "both_fail": self.both_fail,
            "statistic": self.statistic,
            "pvalue": self.pvalue,
            "alternative": self.alternative,
            "mid_p": self.mid_p,
            "discordant_share": self.discordant_share,
            "confidence_interval": {
                "low": self.confidence_interval.low,
                "high": self.confidence_interval.high,
            },
            "confidence_level": self.confidence_level,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class DeLongResult(_Result):
    """DeLong's test of equal AUROC of two models on the same cases.

    The null is that the two AUROCs are equal (whatever the shapes of the
    ROC curves); the variance of the difference comes from the cases'
    placement values (DeLong, DeLong & Clarke-Pearson 1988, in O(n log n) as
    in Sun & Xu 2014).

    Attributes
    ----------
    {common}
    statistic : float
        AUROC of A minus AUROC of B (``metric_a - metric_b``).
    pvalue : float
    se : float
        DeLong standard error of ``statistic``.
    z : float
        ``statistic / se``.
    confidence_interval : ConfidenceInterval
        Wald interval ``statistic -/+ z * se`` (one-sided, with an infinite
        end, for a one-sided ``alternative``).
    confidence_level : float
    alternative : str
        ``"two-sided"``, ``"greater"`` (AUROC A > AUROC B) or ``"less"``.
    n_positive, n_negative : int
        Cases of each class.
    """

    statistic: float
    pvalue: float
    se: float
    z: float
    confidence_interval: ConfidenceInterval
    confidence_level: float
    alternative: str
    n_positive: int
    n_negative: int

    _title = "DeLong test of equal AUROC"

    def __repr__(self) -> str:
        ci = self.confidence_interval
        return (
            f"DeLongResult(a={self.a!r}, b={self.b!r}, statistic={self.statistic:.6g}, "
            f"se={self.se:.6g}, pvalue={self.pvalue:.6g}, confidence_interval=[{ci.low:.6g}, "
            f"{ci.high:.6g}], alternative={self.alternative!r})"
        )

    def _rows(self) -> list[tuple[str, str]]:
        ci = self.confidence_interval
        rows = self._head_rows()
        rows.append(
            (
                f"{_level(self.confidence_level)} CI (DeLong)",
                f"[{_fmt(ci.low, True)}, {_fmt(ci.high, True)}]   SE {self.se:.4g}",
            )
        )
        rows.append(
            (
                "DeLong test",
                f"p = {_pfmt(self.pvalue)}   {self.alternative}, z = {self.z:.3f}, "
                f"{self.n_positive} positive / {self.n_negative} negative cases",
            )
        )
        rows.append(("Null hypothesis", "equal AUROC (whatever the shapes of the ROC curves)"))
        return rows + self._tail_rows()

    def _extra_dict(self) -> dict[str, Any]:
        return {
            "statistic": self.statistic,
            "pvalue": self.pvalue,
            "se": self.se,
            "z": self.z,
            "confidence_interval": {
                "low": self.confidence_interval.low,
                "high": self.confidence_interval.high,
            },
            "confidence_level": self.confidence_level,
            "alternative": self.alternative,
            "n_positive": self.n_positive,
            "n_negative": self.n_negative,
        }


_with_common_doc(RandomizationResult)
_with_common_doc(ExactBinomialResult)
_with_common_doc(DeLongResult)


def html_table(caption: str, rows: list[tuple[str, str]], *, lead: str | None = None) -> str:
    """Return a result block as HTML: an optional bold lead sentence, then a two-column table."""
    body = "".join(
        f"<tr><th style='text-align:left'>{html.escape(k)}</th>"
        f"<td style='text-align:left'>{html.escape(v)}</td></tr>"
        for k, v in rows
    )
    head = "" if lead is None else f"<p class='pdpaired-verdict'><b>{html.escape(lead)}</b></p>"
    return (
        f"<div class='pdpaired-result'>{head}<table>"
        f"<caption>{html.escape(caption)}</caption>{body}</table></div>"
    )


def plot_axes(ax: Axes | None, figsize: tuple[float, float] = (6.4, 4.0)) -> Axes:
    """Return ``ax``, or pyplot's current Axes (``plt.gca()``) when None.

    As pandas' and seaborn's ``plot`` do, so ``res.plot()`` shows inline in
    Jupyter and with ``plt.show()`` in a script. When pyplot has no figure
    open, a new one of ``figsize`` (constrained layout) is made current
    first, so the plot gets a size that fits it. pyplot is imported here,
    never at package import.
    """
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt  # lazily: pyplot costs 0.3 s and picks a backend

    if not plt.get_fignums():
        plt.figure(figsize=figsize, layout="constrained")
    return plt.gca()


def _yes(flag: bool | None) -> str:
    return "yes" if flag else "no"


class VerifiedArtifact(dict[str, Any]):
    """A comparison artifact that passed :func:`pdpaired.verify`: the artifact, as a dict.

    Every field of the artifact is an item (``art["interval"]["low"]``);
    the repr is a one-line summary that fits a screen, not the whole
    artifact. ``path`` is the file that was checked.

    Examples
    --------
    >>> from pdpaired.results.bootstrap import VerifiedArtifact
    >>> art = VerifiedArtifact({"kind": "shareable", "artifact": "paired-comparison-artifact/v1",
    ...     "models": {"a": "new", "b": "old"}, "metric": {"name": "auroc"}, "n_cases": 300,
    ...     "improvement_a_over_b": 0.0123, "interval": {"low": 0.004, "high": 0.02},
    ...     "decisions": {"verdict": "a_better"}, "digest": "0123456789abcdef"}, path="c.json")
    >>> for part in repr(art).split("; "):
    ...     print(part)
    VerifiedArtifact('c.json': valid shareable paired-comparison-artifact/v1
    new vs old, auroc, 300 cases
    improvement +0.0123 [+0.004, +0.02], verdict a_better
    digest 0123456789ab...)
    >>> art["kind"]
    'shareable'
    """

    def __init__(self, artifact: dict[str, Any], *, path: str) -> None:
        super().__init__(artifact)
        self.path = path

    def summary(self) -> str:
        """One line: what the artifact is and what it says."""
        comps = self.get("comparisons")
        if isinstance(comps, list):  # several models (artifact v2): one verdict per comparison
            an = self.get("analysis") or {}
            what = f"against {an.get('baseline')}" if an.get("kind") == "against" else "all pairs"
            verdicts = ", ".join(
                f"{(c.get('models') or {}).get('a')} vs {(c.get('models') or {}).get('b')} "
                f"{(c.get('decisions') or {}).get('verdict')}"
                for c in comps[:5]
                if isinstance(c, dict)
            ) + (", ..." if len(comps) > 5 else "")
            return (
                f"valid {self.get('kind')} {self.get('artifact')}; {len(comps)} comparison(s) "
                f"{what}, {(self.get('metric') or {}).get('name')}; {verdicts}; digest "
                f"{str(self.get('digest'))[:12]}..."
            )
        iv = self.get("interval") or {}
        verdict = (self.get("decisions") or {}).get("verdict")
        models = self.get("models") or {}
        return (
            f"valid {self.get('kind')} {self.get('artifact')}; {models.get('a')} vs "
            f"{models.get('b')}, {(self.get('metric') or {}).get('name')}, "
            f"{self.get('n_cases')} cases; improvement "
            f"{_fmt(self.get('improvement_a_over_b'), True)} [{_fmt(iv.get('low'), True)}, "
            f"{_fmt(iv.get('high'), True)}]"
            + (f", verdict {verdict}" if verdict else "")
            + f"; digest {str(self.get('digest'))[:12]}..."
        )

    def __repr__(self) -> str:
        return f"VerifiedArtifact({self.path!r}: {self.summary()})"

    def _repr_html_(self) -> str:
        path, summary = html.escape(self.path), html.escape(self.summary())
        return f"<p>&#10004; <code>{path}</code>: {summary}</p>"
