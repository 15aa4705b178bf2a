"""The :class:`Comparison` object: validated pairs plus the declared analysis.

Each public method checks its arguments and hands the pairs (a backend) and
the measure to its feature's module in this layer (``bootstrap``,
``randomization``, ``exact_binomial``, ``delong``, ``slices``, ``planning``,
...); the docstrings the documentation is built from stay here (``audit``'s: in its module).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from pdpaired._lib.docs import compose
from pdpaired._lib.progress import with_progress
from pdpaired._lib.public import public
from pdpaired._lib.rng import SeedInfo
from pdpaired._lib.validation import check_bool, check_confidence_level, check_positive_int
from pdpaired.analysis.audit import comparison_audit
from pdpaired.analysis.bootstrap import bootstrap_setup, design_point, run_bootstrap, score_column
from pdpaired.analysis.crossed import comparison_variance_components, resampling_measure
from pdpaired.analysis.delong import delong_comparison
from pdpaired.analysis.display import comparison_html, comparison_repr
from pdpaired.analysis.exact_binomial import run_exact_binomial
from pdpaired.analysis.measures import BootstrapPlan, Measure
from pdpaired.analysis.planning import plan_comparison, plan_iv
from pdpaired.analysis.randomization import run_randomization
from pdpaired.analysis.report import build_report
from pdpaired.analysis.sensitivity import missing_sensitivity
from pdpaired.analysis.sequential import arrivals, paired_sequence
from pdpaired.analysis.slice_units import slice_units
from pdpaired.analysis.slices import SliceResult, by_slice
from pdpaired.artifacts.report import ComparisonReport
from pdpaired.core.options import (
    BootstrapOptions,
    bootstrap_iv,
    exact_binomial_iv,
    randomization_iv,
)
from pdpaired.pairs.backend import DesignMeta, PairsBackend
from pdpaired.pairs.columns import Columns
from pdpaired.results.base import Provenance
from pdpaired.results.bootstrap import BootstrapResult
from pdpaired.results.crossed import CrossedSummary
from pdpaired.results.delong import DeLongResult
from pdpaired.results.exact_binomial import ExactBinomialResult
from pdpaired.results.planning import PlanResult
from pdpaired.results.randomization import RandomizationResult
from pdpaired.results.repeats import RunSummary
from pdpaired.results.sensitivity import SensitivityResult
from pdpaired.results.sequential import SequenceResult
from pdpaired.results.split import SplitResult

__all__ = ["Comparison", "bootstrap_parts"]


@public
class Comparison:
    """Two models paired on the same cases, ready for statistics.

    Built by :meth:`DataFrame.paired.compare <pdpaired.PairedAccessor.compare>`
    (or ``ddf.paired.compare`` on a Dask table); every invariant has been
    checked when it exists. Nothing about it changes once built: each method
    returns a new result.

    One class serves every table and every metric: it holds the pairs (a
    backend: in memory, or a Dask table reduced by graphs) and a measure (the
    mean of per-case scores, or a corpus metric recomputed on every resample),
    and runs the same analyses on both. ``task`` says which measure it holds.

    Examples
    --------
    >>> import pandas as pd
    >>> import pdpaired
    >>> df = pd.DataFrame({
    ...     "case_id": [1, 1, 2, 2, 3, 3, 4, 4],
    ...     "model": ["new", "old"] * 4,
    ...     "score": [0.9, 0.7, 0.6, 0.6, 0.8, 0.5, 0.4, 0.5],
    ... })
    >>> cmp = df.paired.compare("new", "old", higher_is_better=True)
    >>> cmp.pairs
             new  old
    case_id
    1        0.9  0.7
    2        0.6  0.6
    3        0.8  0.5
    4        0.4  0.5
    >>> round(cmp.improvement, 3)
    0.1
    """

    def __init__(self, pairs: PairsBackend, measure: Measure) -> None:
        self._pairs = pairs
        self._measure = measure

    # -- descriptive --------------------------------------------------------
    @property
    def a(self) -> str:
        """Model A (the candidate)."""
        return self._pairs.a

    @property
    def b(self) -> str:
        """Model B (the reference)."""
        return self._pairs.b

    @property
    def metric(self) -> str:
        """Metric name."""
        return self._measure.name

    @property
    def higher_is_better(self) -> bool:
        """Direction of the metric."""
        return self._measure.higher_is_better

    @property
    def task(self) -> str:
        """``"score"``, or the prediction task: "binary", "multiclass" or "regression"."""
        return self._measure.task

    @property
    def class_labels(self) -> list[Any] | None:
        """Prediction mode: the class labels (negative, positive) or classes; else None."""
        return self._measure.class_labels

    @property
    def threshold(self) -> float | None:
        """The probability threshold of binary label metrics (accuracy, F1); None otherwise."""
        return self._measure.threshold

    @property
    def pairs(self) -> pd.DataFrame:
        """Wide table indexed by case id, sorted by case id (a fresh copy).

        On a Dask table this would bring every case to the client and raises
        :class:`AttributeError`; use :meth:`per_case` there.
        """
        return self._pairs.pairs_frame()

    def per_case(self) -> Any:
        """Return the analysed pairs, one row per case, after the missing-outcome policy.

        In memory: the same table as :attr:`pairs`. On a Dask table: a lazy
        Dask DataFrame (columns ``case``, the two models' scores named after
        the models, and the group / stratum columns); nothing is computed
        until you call ``.compute()``, which brings every case to the client.

        Returns
        -------
        pandas.DataFrame or dask.dataframe.DataFrame
        """
        return self._pairs.per_case()

    @property
    def missing(self) -> Any:
        """The :class:`~pdpaired.MissingSummary` of the declared policy."""
        return self._pairs.missing

    @property
    def n_cases(self) -> int:
        """Number of paired cases analysed."""
        return self._pairs.n_cases

    @property
    def metric_a(self) -> float:
        """Metric of A on all cases (no strata weights; the results' exact sums)."""
        return float(self._measure.point(self._pairs, "case", "item", stratified=False).metric_a)

    @property
    def metric_b(self) -> float:
        """Metric of B on all cases (no strata weights; the results' exact sums)."""
        return float(self._measure.point(self._pairs, "case", "item", stratified=False).metric_b)

    @property
    def improvement(self) -> float:
        """Direction-adjusted ``metric_a - metric_b`` (positive: A better)."""
        raw = self.metric_a - self.metric_b
        return raw if self.higher_is_better else -raw

    def __repr__(self) -> str:
        return comparison_repr(self._pairs, self._measure)

    def _meta(self, unit: str | None, weighting: str) -> DesignMeta:
        """Point estimates and design description of the analysis with this design."""
        return self._measure.point(self._pairs, unit, weighting)

    def _columns(self) -> Columns:
        """Return the resolved column names of the long table."""
        return self._pairs.columns

    def _point(self, unit: str | None, weighting: str) -> tuple[float, float, float]:
        """Metric A, metric B and the improvement with the analysis' design (for slices)."""
        return design_point(self._meta(unit, weighting), self.higher_is_better)

    def _slices(self, column: str) -> Iterator[tuple[Any, int, Callable[[], Comparison]]]:
        """Yield ``(value, n_cases, restrict)`` for each value of a slice column, in order."""
        for value, n, restrict in self._pairs.slices(column):
            yield value, n, partial(self._on, restrict)

    def _on(self, pairs: Callable[[], PairsBackend]) -> Comparison:
        """Return the same analysis on other pairs (a slice's)."""
        return Comparison(pairs(), self._measure)

    def _with_collect(self, collect: bool) -> Comparison:
        """Return the same comparison with the backend's ``collect`` option."""
        pairs = self._pairs.with_collect(collect)
        return self if pairs is self._pairs else Comparison(pairs, self._measure)

    # -- statistics (pdpaired.analysis.bootstrap, .randomization, .exact_binomial) ------
    @with_progress
    @compose
    def bootstrap(
        self, *, n_resamples: int = 10_000, confidence_level: float = 0.95,
        method: str = "auto", rng: int | np.random.Generator | None = None,
        unit: str | None = None, weighting: str = "item", stratified: bool | None = None,
        stratum_weights: Mapping[Any, float] | pd.Series | None = None,
        practical_threshold: float = 0.0, noninferiority_margin: float | None = None,
        batch: int | None = None, collect: bool = False, resample_repeats: bool = False,
        resample_factors: bool = False,
    ) -> BootstrapResult:  # fmt: skip
        """Paired bootstrap confidence interval for the improvement of A over B.

        The same resampled cases (or whole groups) are used for A and B in
        every replicate, so the interval reflects the pairing.

        On a Dask table, clusters and few-valued (0/1) scores are reduced by
        Dask to sufficient statistics and resampled on the client:
        bit-identical to the pandas path for the same seed. Continuous scores
        resampled by case use a Poisson bootstrap inside each partition
        (``engine="poisson"``, statistically equivalent; ``method="bca"`` is
        not available there) unless ``collect=True``.

        Parameters
        ----------
        ${bootstrap_params}
        ${collect_param}
        ${progress_param}
        ${repeats_param}
        ${factors_param}

        Returns
        -------
        BootstrapResult

        Examples
        --------
        >>> import numpy as np, pandas as pd
        >>> import pdpaired
        >>> rng = np.random.default_rng(1)
        >>> base = rng.uniform(size=200)
        >>> df = pd.DataFrame({
        ...     "case_id": np.tile(np.arange(200), 2),
        ...     "model": np.repeat(["new", "old"], 200),
        ...     "score": np.concatenate([base + rng.normal(0.05, 0.1, 200), base]),
        ... })
        >>> res = df.paired.compare("new", "old", higher_is_better=True).bootstrap(rng=0)
        >>> res.confidence_interval.low > 0
        True
        >>> res.seed
        0
        """
        opts = bootstrap_iv(
            n_resamples=n_resamples, confidence_level=confidence_level, method=method,
            batch=batch, practical_threshold=practical_threshold,
            noninferiority_margin=noninferiority_margin,
        )  # fmt: skip
        pairs = self._pairs.with_collect(collect)
        measure = resampling_measure(
            pairs, self._measure, resample_repeats=check_bool(resample_repeats, "resample_repeats"),
            resample_factors=check_bool(resample_factors, "resample_factors"),
        )  # fmt: skip
        return run_bootstrap(
            pairs, measure, opts, unit=unit, weighting=weighting, stratified=stratified,
            stratum_weights=stratum_weights, rng=rng,
        )  # fmt: skip

    audit = comparison_audit  # the design audit (pdpaired.analysis.audit)

    @with_progress
    @compose
    def randomization(
        self, *, n_permutations: int = 10_000, alternative: str = "two-sided",
        rng: int | np.random.Generator | None = None, unit: str | None = None,
        weighting: str = "item", stratum_weights: Mapping[Any, float] | pd.Series | None = None,
        batch: int | None = None, collect: bool = False,
    ) -> RandomizationResult:  # fmt: skip
        """Paired randomization (prediction-swap) test.

        Under the null that the two models are exchangeable, each unit (a
        case, or a whole group) independently swaps which model's output is
        called A; the improvement is recomputed for every assignment. The
        statistic is the same estimand as :meth:`bootstrap`'s.

        Parameters
        ----------
        ${randomization_params}
        ${collect_param}
        ${progress_param}

        Returns
        -------
        RandomizationResult

        Notes
        -----
        The Monte Carlo p-value is ``(1 + #as-extreme) / (1 + n_permutations)``,
        never 0; "as extreme" tolerates ties (the proven rounding drift of the
        exact fixed-point sums plus 100 machine epsilons). For 0/1 scores, swaps
        only matter on discordant units and the null distribution is drawn from
        binomials, exactly. In prediction mode each unit swaps its two
        predictions and the metric is recomputed; the same bits, the same tie
        rule. On a Dask table, continuous scores swapped by case flip signs
        inside each partition (``engine="partition-flips"``, the same null
        distribution in law) unless ``collect=True``.

        Examples
        --------
        >>> import pdpaired
        >>> from pdpaired.datasets import load_digits_cv
        >>> cmp = load_digits_cv().paired(score="correct").compare(
        ...     "knn", "logreg", higher_is_better=True)
        >>> res = cmp.randomization(rng=0, n_permutations=5000)
        >>> res.alternative, res.exact, res.pvalue < 0.01
        ('two-sided', False, True)
        """
        opts = randomization_iv(n_permutations=n_permutations, alternative=alternative, batch=batch)
        return run_randomization(
            self._pairs.with_collect(collect), self._measure, opts, unit=unit,
            weighting=weighting, stratum_weights=stratum_weights, rng=rng,
        )  # fmt: skip

    @with_progress
    @compose
    def by_slice(
        self, columns: str | Sequence[str], *, min_size: int = 30, uncertainty: bool = False,
        n_resamples: int = 2_000, n_permutations: int = 2_000, adjust: str | None = "holm",
        rng: int | np.random.Generator | None = None, confidence_level: float = 0.95,
        practical_threshold: float = 0.0, unit: str | None = None, weighting: str = "item",
        method: str = "auto", batch: int | None = None, collect: bool = False,
    ) -> SliceResult:  # fmt: skip
        """Compare A and B within every value of one or more slice columns.

        On a Dask table one pass finds each slice's size (and checks the
        column is constant within a case); each reported slice is then its
        own comparison (one pass for its pairs, one per design).

        Parameters
        ----------
        ${slice_columns_param}
        ${by_slice_params}
        ${collect_param}
        ${progress_param}

        Returns
        -------
        SliceResult

        Notes
        -----
        A slice scan is exploratory: with many slices some intervals exclude
        zero by chance, which the adjusted p-values and the heterogeneity
        test guard against but do not make confirmatory.

        Examples
        --------
        >>> import pdpaired
        >>> from pdpaired.datasets import load_digits_cv
        >>> cmp = load_digits_cv().paired(score="correct").compare(
        ...     "knn", "logreg", higher_is_better=True)
        >>> res = cmp.by_slice("fold", min_size=30)
        >>> res.table[["column", "value", "n", "winner"]].head(3)
          column  value    n winner
        0   fold      0  180      A
        1   fold      1  180      A
        2   fold      2  180      A
        """
        cmp = self._with_collect(collect)
        return by_slice(
            cmp, columns, levels=cmp._slices, point=Comparison._point,
            units=partial(slice_units, cmp._pairs, cmp._measure),
            min_size=min_size,
            uncertainty=uncertainty, n_resamples=n_resamples, n_permutations=n_permutations,
            adjust=adjust, rng=rng,
            confidence_level=confidence_level, practical_threshold=practical_threshold,
            unit=unit, weighting=weighting, batch=batch, method=method,
        )  # fmt: skip

    @with_progress
    @compose
    def report(
        self, *, n_resamples: int = 10_000, n_permutations: int = 10_000,
        slices: str | Sequence[str] | None = None, min_slice_size: int = 30,
        slice_uncertainty: bool = False, practical_threshold: float = 0.0,
        noninferiority_margin: float | None = None, confidence_level: float = 0.95,
        method: str = "auto", alternative: str = "two-sided",
        rng: int | np.random.Generator | None = None, unit: str | None = None,
        weighting: str = "item", score_range: tuple[float, float] | None = None,
        split: SplitResult | None = None, inputs: Sequence[Mapping[str, str]] | None = None,
    ) -> ComparisonReport:  # fmt: skip
        """Run the declared analysis in one call: a :class:`~pdpaired.ComparisonReport`.

        The paired bootstrap interval, the randomization test, the exact
        binomial test when the outcomes are binary (0/1 scores, or
        ``metric="accuracy"``), the slices and the decisions. Each part reads
        its own stream of the seed (``"report:bootstrap"``, ``"report:randomization"``,
        ``"report:slices"``) and records the seed and that stream, so the same
        ``report()`` call with ``rng=report.bootstrap.seed`` (the seed you gave)
        reproduces every part; ``cmp.bootstrap`` with that seed reads another stream.

        Parameters
        ----------
        ${report_params}
        ${report_inputs_param}
        ${progress_param}

        Returns
        -------
        ComparisonReport

        Examples
        --------
        >>> import tempfile
        >>> import pdpaired
        >>> from pdpaired.datasets import load_digits_cv
        >>> cmp = load_digits_cv().paired(score="correct").compare(
        ...     "knn", "logreg", higher_is_better=True)
        >>> rep = cmp.report(n_resamples=2000, n_permutations=2000, rng=0,
        ...                  practical_threshold=0.005)
        >>> rep.bootstrap.superior_ci, rep.exact_binomial is not None
        (True, True)
        >>> sorted(p.name for p in rep.save(tempfile.mkdtemp()).values())
        ['comparison.json', 'comparison.md', 'comparison.shareable.json']
        """
        n_resamples = int(check_positive_int(n_resamples, "n_resamples") or 0)
        if not (isinstance(n_permutations, (int, np.integer)) and n_permutations == 0):
            n_permutations = int(check_positive_int(n_permutations, "n_permutations") or 0)
        if isinstance(slices, str):
            slices = [slices]
        return build_report(
            self, n_resamples=n_resamples, n_permutations=n_permutations,
            slices=None if slices is None else list(slices), min_slice_size=min_slice_size,
            slice_uncertainty=slice_uncertainty, practical_threshold=practical_threshold,
            noninferiority_margin=noninferiority_margin, confidence_level=confidence_level,
            method=method, alternative=alternative, rng=rng, unit=unit, weighting=weighting,
            inputs=None if inputs is None else [dict(x) for x in inputs],
            table=self._pairs.canonical_table(),
            binary_outcomes=self._measure.binary_outcomes(self._pairs),
            grouped=self._columns().group is not None, score_range=score_range, split=split,
        )  # fmt: skip

    @compose
    def exact_binomial(
        self, *, alternative: str = "two-sided", mid_p: bool = False,
        confidence_level: float = 0.95,
    ) -> ExactBinomialResult:  # fmt: skip
        """Exact conditional test on discordant pairs of binary 0/1 scores.

        Only cases where exactly one model passes carry information. Under the
        null, given ``n = a_only + b_only`` discordant pairs, ``a_only`` is
        Binomial(n, 1/2). "Pass" is the better value: 1 when higher is better,
        0 when lower is better.

        Parameters
        ----------
        ${exact_binomial_params}

        Returns
        -------
        ExactBinomialResult

        Warns
        -----
        DegenerateDataWarning
            With no discordant pair (``pvalue`` is then 1).
        IndependenceWarning
            With a group column: the test assumes independent pairs; use
            :meth:`randomization` with ``unit="group"`` for clustered cases.

        Examples
        --------
        >>> import pdpaired
        >>> from pdpaired.datasets import load_digits_cv
        >>> res = load_digits_cv().paired(score="correct").exact_binomial(
        ...     "knn", "logreg", higher_is_better=True)
        >>> res.a_only, res.b_only, bool(res.pvalue < 1e-4)
        (39, 10, True)
        """
        opts = exact_binomial_iv(
            alternative=alternative, mid_p=mid_p, confidence_level=confidence_level
        )
        return run_exact_binomial(self._pairs, self._measure, opts)

    # -- sequential monitoring (pdpaired.analysis.sequential) -----------------------------
    @compose
    def sequential(
        self, order: str, *, alpha: float = 0.05, bounds: tuple[float, float] | None = None,
        alternative: str = "two-sided",
    ) -> SequenceResult:  # fmt: skip
        """Anytime-valid confidence sequence of the improvement, cases in arrival order.

        Valid under continuous monitoring and optional stopping: with
        probability at least ``1 - alpha`` the interval after every case
        covers the mean paired difference, so the comparison may be watched
        while it runs and stopped as soon as the interval excludes 0
        (``stopped_at``). Non-asymptotic, for bounded scores: the
        predictable-mixture empirical-Bernstein sequence of Waudby-Smith &
        Ramdas (2024), O(n) over the whole path.

        Parameters
        ----------
        ${sequential_params}

        Returns
        -------
        SequenceResult
            One look per case (or per group), ``to_frame()`` gives them all.

        Notes
        -----
        With a group column the sequence runs over groups: each group's mean
        difference is one observation, groups taken in the order of their
        first case's arrival, so the estimand is the mean of group means
        (correlated cases within a group would break the guarantee of a
        sequence over cases). A stratum column is not used: the sequence
        estimates the mean over the cases as they arrive (the observed
        stratum mix), and stratum weights do not apply.

        Examples
        --------
        >>> import numpy as np, pandas as pd
        >>> import pdpaired
        >>> rng = np.random.default_rng(0)
        >>> n = 1500
        >>> df = pd.DataFrame({
        ...     "case_id": np.tile(np.arange(n), 2),
        ...     "model": np.repeat(["new", "old"], n),
        ...     "score": np.concatenate([rng.binomial(1, 0.62, n), rng.binomial(1, 0.50, n)]),
        ...     "arrival": np.tile(np.arange(n), 2),
        ... })
        >>> res = df.paired.compare("new", "old", higher_is_better=True).sequential("arrival")
        >>> res.verdict, res.stopped_at is not None, len(res.to_frame())
        ('a_better', True, 1500)
        """
        return paired_sequence(
            arrivals(self._pairs, self._measure, order), alpha=alpha, bounds=bounds,
            alternative=alternative,
        )  # fmt: skip

    # -- display ------------------------------------------------------------
    @property
    def score_column(self) -> str | None:
        """Score mode: the per-case score column (labels read ``"mean <column>"``)."""
        return score_column(self._columns())

    def _repr_html_(self) -> str:
        return comparison_html(self._pairs, self._measure)

    # -- DeLong's test (pdpaired.analysis.delong, pdpaired.core.delong) ----------
    @compose
    def delong(
        self, *, alternative: str = "two-sided", confidence_level: float = 0.95
    ) -> DeLongResult:
        """DeLong's test of equal AUROC (binary prediction mode, ``metric="auroc"``).

        The null is *equal AUROC*, whatever the shapes of the two ROC curves
        (the randomization test's null is exchangeable predictions). The
        covariance of the two AUROCs comes from the cases' placement values
        (DeLong, DeLong & Clarke-Pearson 1988), computed from midranks in
        O(n log n) (Sun & Xu 2014).

        Parameters
        ----------
        ${delong_params}

        Returns
        -------
        DeLongResult

        Examples
        --------
        >>> import numpy as np, pandas as pd
        >>> import pdpaired
        >>> rng = np.random.default_rng(0)
        >>> y = rng.integers(0, 2, 300)
        >>> df = pd.DataFrame({
        ...     "case_id": np.tile(np.arange(300), 2),
        ...     "model": np.repeat(["new", "old"], 300),
        ...     "y": np.tile(y, 2),
        ...     "p": np.concatenate([y + rng.normal(0, 0.8, 300), y + rng.normal(0, 1.2, 300)]),
        ... })
        >>> cmp = df.paired(target="y", prediction="p").compare("new", "old", metric="auroc")
        >>> res = cmp.delong()
        >>> bool(res.statistic > 0), bool(res.pvalue < 0.05)
        (True, True)
        """
        return delong_comparison(
            self._pairs, self._measure, alternative=alternative, confidence_level=confidence_level
        )

    # -- planning (pdpaired.analysis.planning, pdpaired.core.planning) -----------------------------
    @compose
    def plan(
        self, *, power: float = 0.8, alpha: float = 0.05, alternative: str = "two-sided",
        effect: float | None = None, n_cases: int | None = None, method: str = "analytic",
        n_simulations: int = 2_000, rng: int | np.random.Generator | None = None,
        test: str | None = None, practical_threshold: float = 0.0,
    ) -> PlanResult:  # fmt: skip
        """Power and sample size, from the observed paired design.

        Reads what the test's power depends on from this comparison: the
        spread of the paired differences, the groups' design effect and the
        strata. Returns the minimum detectable improvement at ``n_cases``
        (default: the current size), the cases (and groups) needed to detect
        ``effect``, and the power at any improvement (``power_at``).

        Parameters
        ----------
        ${plan_params}

        Returns
        -------
        PlanResult

        Notes
        -----
        The test planned for: with 0/1 scores and no group column, the exact
        binomial test (:meth:`exact_binomial`), with its discreteness; its
        power keeps the observed share of discordant cases. Otherwise the t
        test of the improvement with the analysis' standard error (over
        groups and within strata), which the bootstrap interval and the
        randomization test match in large samples. A planned comparison keeps
        the design: the same stratum shares and, with groups, more groups of
        the observed sizes. In prediction mode the standard error of the
        metric comes from the paired bootstrap and scales as
        ``1 / sqrt(n)``.

        Examples
        --------
        >>> import pdpaired
        >>> from pdpaired.datasets import load_digits_cv
        >>> cmp = load_digits_cv().paired(score="correct").compare(
        ...     "knn", "logreg", higher_is_better=True)
        >>> p = cmp.plan(effect=0.005)
        >>> p.test, p.n_cases, p.n_cases_needed > p.n_cases
        ('exact_binomial', 1797, True)
        >>> round(p.power_at(p.mde), 2)
        0.8

        Planning for the interval's decision beyond a practical threshold
        instead (the bootstrap interval's low end above 0.002):

        >>> q = cmp.plan(effect=0.005, test="bootstrap", practical_threshold=0.002)
        >>> q.test, q.n_cases_needed > p.n_cases_needed
        ('t', True)
        """
        opts = plan_iv(
            power=power, alpha=alpha, alternative=alternative, effect=effect, n_cases=n_cases,
            method=method, n_simulations=n_simulations, test=test,
            practical_threshold=practical_threshold,
        )  # fmt: skip
        return plan_comparison(self._pairs, self._measure, opts, rng=rng, bootstrap=self.bootstrap)

    # -- missing-outcome sensitivity (pdpaired.analysis.sensitivity) -----------------------
    @compose
    def sensitivity(
        self, *, lower: float | None = None, upper: float | None = None,
        confidence_level: float = 0.95, rng: int | np.random.Generator | None = None,
    ) -> SensitivityResult:  # fmt: skip
        """Bound what the missing outputs could do to the improvement.

        Pairs the table again with every missing output (an absent row or a
        NaN score) filled with the ends of the score range: A's at its worst
        and B's at its best gives the lower end of the identified set of the
        improvement, the reverse the upper end (Manski's worst-case bounds).
        An Imbens-Manski (2004) interval covers the set; the tipping point
        is the fill value (the same for both models) at which the verdict
        changes (score mode). In prediction mode the ends are the worst and
        best predictions (probability 0 or 1 of the true class).

        Parameters
        ----------
        ${sensitivity_params}

        Returns
        -------
        SensitivityResult

        Examples
        --------
        >>> import numpy as np, pandas as pd
        >>> import pdpaired
        >>> df = pd.DataFrame({
        ...     "case_id": np.repeat(np.arange(100), 2),
        ...     "model": ["new", "old"] * 100,
        ...     "score": np.tile([1.0, 0.0], 100),
        ... })
        >>> df.loc[[0, 2], "score"] = np.nan  # two missing outputs of "new"
        >>> cmp = df.paired.compare("new", "old", higher_is_better=True,
        ...                         missing="complete-case")
        >>> res = cmp.sensitivity()
        >>> res.bounds.low, res.bounds.high
        (0.98, 1.0)
        """
        level = check_confidence_level(confidence_level)

        def bootstrap_se(pairs: PairsBackend, seed: int) -> float:
            cmp = Comparison(pairs, self._measure)
            return cmp.bootstrap(n_resamples=2_000, rng=seed).standard_error

        return missing_sensitivity(
            self._pairs, self._measure, lower=lower, upper=upper, confidence_level=level,
            rng=rng, improvement=self.improvement, bootstrap_se=bootstrap_se,
        )  # fmt: skip

    def canonical_table(self) -> pd.DataFrame:
        """Return the analysed pairs in memory, one row per case, sorted by case id.

        What an artifact digests (``aligned_ids_sha256``, the in-memory input
        digest): the same table on the pandas and the Dask path. On a Dask
        table it brings every case to the client.
        """
        return self._pairs.canonical_table()

    # -- repeated runs (pdpaired.analysis.repeats) -----------------------------------
    @property
    def runs(self) -> RunSummary | None:
        """How the runs were averaged (``df.paired(repeat="sample")``); None without runs.

        Records the runs read per model, the fewest and most per case, and
        the missing runs (NaN scores) with what the missing-outcome policy
        did with them (:class:`~pdpaired.RunSummary`).
        """
        runs = self._pairs.runs()
        return None if runs is None else runs.summary

    @property
    def crossed(self) -> CrossedSummary | None:
        """The crossed design (``factors=``): levels, missing cells, the policy; else None."""
        cells = self._pairs.cells()
        return None if cells is None else cells.summary

    # the variance components of runs or of crossed factors (pdpaired.analysis.crossed)
    variance_components = comparison_variance_components


def bootstrap_parts(
    cmp: Comparison, opts: BootstrapOptions, seed: SeedInfo, *, unit: str | None, weighting: str,
    stratified: bool | None, stratum_weights: Mapping[Any, float] | pd.Series | None,
    collect: bool = False,
) -> tuple[BootstrapPlan, Provenance]:  # fmt: skip
    """Return the resampler and provenance of ``cmp.bootstrap(...)``, for a joint bootstrap.

    :mod:`pdpaired.analysis.multi` draws several comparisons' replicates at once and
    assembles each result with :func:`bootstrap_result`, as :meth:`Comparison.bootstrap` does.
    """
    pairs = cmp._pairs.with_collect(collect)
    return bootstrap_setup(
        pairs, cmp._measure, opts, seed, unit=unit, weighting=weighting, stratified=stratified,
        stratum_weights=stratum_weights,
    )  # fmt: skip
