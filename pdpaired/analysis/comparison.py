"""The :class:`Comparison` object: validated pairs plus the declared analysis."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from pdpaired._lib.docs import compose
from pdpaired._lib.errors import (
    DegenerateDataWarning,
    IndependenceWarning,
    find_stack_level,
)
from pdpaired.core.options import (
    BootstrapOptions,
    ExactBinomialOptions,
    RandomizationOptions,
    bootstrap_iv,
    exact_binomial_iv,
    randomization_iv,
)
from pdpaired._lib.rng import SeedInfo, normalize_rng
from pdpaired._lib.validation import (
    check_bool,
    check_choice,
    check_confidence_level,
    check_positive_int,
)
from pdpaired.pairs.backend import DesignMeta, PairsBackend
from pdpaired.core.bootstrap import BootstrapCore, bootstrap_replicates
from pdpaired.core.delong import delong_test
from pdpaired.core.exact_binomial import binomial_test
from pdpaired.analysis.measures import BootstrapPlan, Measure
from pdpaired.analysis.sequential import Arrivals, paired_sequence
from pdpaired.pairs.columns import MISSING_POLICIES, Columns
from pdpaired.results.planning import PlanResult
from pdpaired.analysis.planning import plan_comparison, plan_iv
from pdpaired.analysis.repeats import run_variance_components, two_stage_measure
from pdpaired.results.repeats import RunSummary, VarianceComponents
from pdpaired.analysis.report import build_report
from pdpaired.artifacts.report import ComparisonReport
from pdpaired.results.base import ConfidenceInterval, Provenance, metric_label, provenance_fields
from pdpaired.results.bootstrap import BootstrapResult
from pdpaired.results.delong import DeLongResult
from pdpaired.results.display import html_table
from pdpaired.results.exact_binomial import ExactBinomialResult
from pdpaired.results.randomization import RandomizationResult
from pdpaired.results.verdict import decide, interval_degenerate
from pdpaired.analysis.sensitivity import missing_sensitivity
from pdpaired.results.sensitivity import SensitivityResult
from pdpaired.results.sequential import SequenceResult
from pdpaired.analysis.slices import SliceUnits, by_slice
from pdpaired.results.slices import SliceResult

__all__ = ["Comparison"]


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
        cols = self._pairs.columns
        extra = "".join(
            f", {k}={v!r}" for k, v in (("group", cols.group), ("stratum", cols.stratum)) if v
        )
        score = "" if self.score_column is None else f", score={self.score_column!r}"
        task = "" if self.task == "score" else f", task={self.task!r}"
        return (
            f"Comparison(a={self.a!r}, b={self.b!r}, {self._measure.describe()}{score}{task}, "
            f"n_cases={self.n_cases}{extra}{self._pairs.describe()})"
        )

    def _meta(self, unit: str | None, weighting: str) -> DesignMeta:
        """Point estimates and design description of the analysis with this design."""
        return self._measure.point(self._pairs, unit, weighting)

    def _columns(self) -> Columns:
        """Return the resolved column names of the long table."""
        return self._pairs.columns

    def _slices(self, column: str) -> Iterator[tuple[Any, int, Callable[[], Comparison]]]:
        """Yield ``(value, n_cases, restrict)`` for each value of a slice column, in order."""
        for value, n, restrict in self._pairs.slices(column):
            yield value, n, partial(self._on, restrict)

    def _slice_units(self, column: str, unit: str | None, weighting: str) -> SliceUnits | None:
        """Return the resampling units with their slice values (heterogeneity permutation test).

        Score mode only (a mean of per-case differences: a slice's estimate is
        its units' total over their count); None in prediction mode, where
        Welch's test is used. Each slice's cases come from the backend's own
        slice restriction and :meth:`per_case` (computed on Dask), sorted by
        case id, so both backends give the same units in the same order.
        """
        if self.task != "score":
            return None
        cols = self._columns()
        frames, labels = [], []
        for value, _, restrict in self._pairs.slices(column):
            got = restrict().per_case()
            got = got.compute() if hasattr(got, "compute") else got
            for key in (cols.case, "case"):  # Dask: the case id is a column ("case")
                if key in got.columns:
                    got = got.set_index(key)
                    break
            got = got.sort_index(kind="stable")
            frames.append(got)
            labels.append(pd.Series([value] * len(got), dtype=object))
        per = pd.concat(frames)
        label = pd.concat(labels, ignore_index=True)
        d = per[self.a].to_numpy(dtype=np.float64) - per[self.b].to_numpy(dtype=np.float64)
        d = d if self.higher_is_better else -d
        stratum = (
            None
            if cols.stratum is None
            else pd.factorize(per[cols.stratum], sort=True, use_na_sentinel=False)[0]
        )
        if cols.group is None or unit == "case":
            return SliceUnits(label=label, total=d, count=np.ones(d.size), stratum=stratum)
        g, _ = pd.factorize(per[cols.group], sort=True, use_na_sentinel=False)
        total: np.ndarray = np.bincount(g, weights=d)
        count = np.bincount(g).astype(np.float64)
        first = np.unique(g, return_index=True)[1]  # groups are nested in slices when tested
        if weighting == "group":
            total, count = total / count, np.ones(count.size)
        return SliceUnits(
            label=label.iloc[first].reset_index(drop=True), total=total, count=count,
            stratum=None if stratum is None else stratum[first],
        )  # fmt: skip

    def _on(self, pairs: Callable[[], PairsBackend]) -> Comparison:
        """Return the same analysis on other pairs (a slice's)."""
        return Comparison(pairs(), self._measure)

    def _with_collect(self, collect: bool) -> Comparison:
        """Return the same comparison with the backend's ``collect`` option."""
        pairs = self._pairs.with_collect(collect)
        return self if pairs is self._pairs else Comparison(pairs, self._measure)

    # -- statistics ----------------------------------------------------------
    @compose
    def bootstrap(
        self,
        *,
        n_resamples: int = 10_000,
        confidence_level: float = 0.95,
        method: str = "percentile",
        rng: int | np.random.Generator | None = None,
        unit: str | None = None,
        weighting: str = "item",
        stratified: bool | None = None,
        stratum_weights: Mapping[Any, float] | pd.Series | None = None,
        practical_threshold: float = 0.0,
        noninferiority_margin: float | None = None,
        batch: int | None = None,
        collect: bool = False,
        resample_repeats: bool = False,
    ) -> BootstrapResult:
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
        ${repeats_param}

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
        cmp = self._with_collect(collect)
        if check_bool(resample_repeats, "resample_repeats"):
            cmp = Comparison(cmp._pairs, two_stage_measure(cmp._pairs, cmp._measure))
        return cmp._bootstrap(
            opts, unit=unit, weighting=weighting, stratified=stratified,
            stratum_weights=stratum_weights, rng=rng,
        )  # fmt: skip

    def _bootstrap(
        self,
        opts: BootstrapOptions,
        *,
        unit: str | None,
        weighting: str,
        stratified: bool | None,
        stratum_weights: Mapping[Any, float] | pd.Series | None,
        rng: int | np.random.Generator | None,
    ) -> BootstrapResult:
        """Run the bootstrap with validated options (the design arguments are checked here)."""
        plan = self._measure.bootstrap_plan(
            self._pairs, unit=unit, weighting=weighting, stratified=stratified,
            stratum_weights=stratum_weights, method=opts.method,
        )  # fmt: skip
        seed = normalize_rng(rng)
        prov = self._provenance(plan.meta, seed.seed, seed.rng_state, plan.stream)
        core = bootstrap_replicates(
            plan.resampler, prov.improvement, n_resamples=opts.n_resamples,
            confidence_level=opts.confidence_level, method=opts.method,
            seed_sequence=seed.seed_sequence, batch=opts.batch,
        )  # fmt: skip
        return bootstrap_result(
            prov, opts, ci=core.confidence_interval, dist=core.distribution, engine=core.engine,
            core=core,
        )  # fmt: skip

    def _provenance(
        self,
        meta: DesignMeta,
        seed: int | None,
        rng_state: dict[str, Any] | None,
        stream: str | None = None,
    ) -> Provenance:
        """Return what every result records (``stream`` None: no randomness)."""
        raw = meta.metric_a - meta.metric_b
        return Provenance(
            a=self.a, b=self.b, metric=self.metric, higher_is_better=self.higher_is_better,
            metric_a=meta.metric_a, metric_b=meta.metric_b, raw_delta=raw,
            improvement=raw if self.higher_is_better else -raw, n_cases=self.n_cases,
            n_groups=meta.n_groups, n_strata=meta.n_strata, unit=meta.unit,
            weighting=meta.weighting, sampling=meta.sampling,
            stratum_weights=meta.stratum_weights, missing=self.missing, seed=seed,
            stream=stream, rng_state=rng_state, score_column=self.score_column,
        )  # fmt: skip

    @compose
    def randomization(
        self,
        *,
        n_permutations: int = 10_000,
        alternative: str = "two-sided",
        rng: int | np.random.Generator | None = None,
        unit: str | None = None,
        weighting: str = "item",
        stratum_weights: Mapping[Any, float] | pd.Series | None = None,
        batch: int | None = None,
        collect: bool = False,
    ) -> RandomizationResult:
        """Paired randomization (prediction-swap) test.

        Under the null that the two models are exchangeable, each unit (a
        case, or a whole group) independently swaps which model's output is
        called A; the improvement is recomputed for every assignment. The
        statistic is the same estimand as :meth:`bootstrap`'s.

        Parameters
        ----------
        ${randomization_params}
        ${collect_param}

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
        return self._with_collect(collect)._randomization(
            opts, unit=unit, weighting=weighting, stratum_weights=stratum_weights, rng=rng
        )

    def _randomization(
        self,
        opts: RandomizationOptions,
        *,
        unit: str | None,
        weighting: str,
        stratum_weights: Mapping[Any, float] | pd.Series | None,
        rng: int | np.random.Generator | None,
    ) -> RandomizationResult:
        """Run the randomization test with validated options."""
        seed = normalize_rng(rng)
        core, meta, stream = self._measure.randomization(
            self._pairs, opts, unit=unit, weighting=weighting, stratum_weights=stratum_weights,
            seed=seed,
        )  # fmt: skip
        prov = self._provenance(meta, seed.seed, seed.rng_state, stream)
        return RandomizationResult(
            **provenance_fields(prov),
            statistic=prov.improvement,
            pvalue=core.pvalue,
            pvalue_se=core.pvalue_se,
            null_distribution=core.null_distribution,
            alternative=opts.alternative,
            n_permutations=core.n_permutations,
            exact=core.exact,
            engine=core.engine,
        )

    @compose
    def by_slice(
        self,
        columns: str | Sequence[str],
        *,
        min_size: int = 30,
        uncertainty: bool = False,
        n_resamples: int = 2_000,
        n_permutations: int = 2_000,
        adjust: str | None = "holm",
        rng: int | np.random.Generator | None = None,
        confidence_level: float = 0.95,
        practical_threshold: float = 0.0,
        unit: str | None = None,
        weighting: str = "item",
        batch: int | None = None,
        collect: bool = False,
    ) -> SliceResult:
        """Compare A and B within every value of one or more slice columns.

        On a Dask table one pass finds each slice's size (and checks the
        column is constant within a case); each reported slice is then its
        own comparison (one pass for its pairs, one per design).

        Parameters
        ----------
        ${slice_columns_param}
        ${by_slice_params}
        ${collect_param}

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
            cmp, columns, levels=cmp._slices, point=design_point, units=cmp._slice_units,
            min_size=min_size,
            uncertainty=uncertainty, n_resamples=n_resamples, n_permutations=n_permutations,
            adjust=adjust, rng=rng,
            confidence_level=confidence_level, practical_threshold=practical_threshold,
            unit=unit, weighting=weighting, batch=batch,
        )  # fmt: skip

    @compose
    def report(
        self,
        *,
        n_resamples: int = 10_000,
        n_permutations: int = 10_000,
        slices: str | Sequence[str] | None = None,
        min_slice_size: int = 30,
        slice_uncertainty: bool = False,
        practical_threshold: float = 0.0,
        noninferiority_margin: float | None = None,
        confidence_level: float = 0.95,
        method: str = "percentile",
        alternative: str = "two-sided",
        rng: int | np.random.Generator | None = None,
        unit: str | None = None,
        weighting: str = "item",
        score_range: tuple[float, float] | None = None,
        inputs: Sequence[Mapping[str, str]] | None = None,
    ) -> ComparisonReport:
        """Run the declared analysis in one call: a :class:`~pdpaired.ComparisonReport`.

        The paired bootstrap interval, the randomization test, the exact
        binomial test when the outcomes are binary (0/1 scores, or
        ``metric="accuracy"``), the slices and the decisions. Each part reads
        its own stream of the seed (``"report:bootstrap"``,
        ``"report:randomization"``, ``"report:slices"``) and records the
        seed and that stream, so the same ``report()`` call with
        ``rng=report.bootstrap.seed`` (the seed you gave) reproduces every
        part; ``cmp.bootstrap`` with that seed reads another stream.

        Parameters
        ----------
        ${report_params}
        ${report_inputs_param}

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
            grouped=self._columns().group is not None, score_range=score_range,
        )  # fmt: skip

    @compose
    def exact_binomial(
        self,
        *,
        alternative: str = "two-sided",
        mid_p: bool = False,
        confidence_level: float = 0.95,
    ) -> ExactBinomialResult:
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
        return self._exact_binomial(opts)

    def _exact_binomial(self, opts: ExactBinomialOptions) -> ExactBinomialResult:
        """Run the exact binomial test with validated options."""
        flags = self._measure.pass_flags(self._pairs)
        meta = self._measure.point(self._pairs, "case", "item", stratified=False)
        return exact_binomial_counts(
            self._provenance(meta, None, None), flags.a_pass, flags.b_pass, opts,
            freq=flags.freq, group=self._pairs.columns.group,
        )  # fmt: skip

    # -- sequential monitoring (pdpaired.analysis.sequential) -----------------------------
    @compose
    def sequential(
        self,
        order: str,
        *,
        alpha: float = 0.05,
        bounds: tuple[float, float] | None = None,
        alternative: str = "two-sided",
    ) -> SequenceResult:
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
            self._arrivals(order), alpha=alpha, bounds=bounds, alternative=alternative
        )

    def _arrivals(self, order: str) -> Arrivals:
        """Return the per-case scores, arrival key and groups, for :meth:`sequential`."""
        if self.task != "score":
            msg = (
                "sequential() needs per-case scores (score mode); in prediction mode compute a "
                "per-case score column first (e.g. correct = prediction == target)."
            )
            raise ValueError(msg)
        got = self._pairs.arrivals(order)
        return Arrivals(
            a=self.a, b=self.b, higher_is_better=self.higher_is_better, score_a=got.score_a,
            score_b=got.score_b, case_ids=got.case_ids, order_name=order, order=got.order,
            group=got.group, n_strata=got.n_strata, binary=self._pairs.binary,
            missing=self.missing,
        )  # fmt: skip

    # -- display ------------------------------------------------------------
    @property
    def score_column(self) -> str | None:
        """Score mode: the per-case score column (labels read ``"mean <column>"``)."""
        cols = self._columns()
        return cols.score if cols.prediction is None else None

    def _repr_html_(self) -> str:
        cols = self._columns()
        arrow = "higher is better" if self.higher_is_better else "lower is better"
        design = ", ".join(f"{k} {v!r}" for k, v in (("group", cols.group),
                                                     ("stratum", cols.stratum)) if v)  # fmt: skip
        rows = [
            ("Model A (candidate)", str(self.a)),
            ("Model B (reference)", str(self.b)),
            ("Metric", f"{metric_label(self.metric, self.score_column)} ({arrow})"),
            ("Task", self.task),
            ("Cases", f"{self.n_cases} paired" + (f"; {design}" if design else "")),
            ("Missing outcomes", self.missing.describe()),
            ("Next", ".bootstrap(), .randomization(), .by_slice(...), .report()"),
        ]
        return html_table("Paired comparison (no statistic computed yet)", rows)

    # -- DeLong's test (the logic lives in pdpaired.core.delong) -----------------
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
        return delong_comparison(self, alternative=alternative, confidence_level=confidence_level)

    # -- planning (pdpaired.analysis.planning, pdpaired.core.planning) -----------------------------
    @compose
    def plan(
        self,
        *,
        power: float = 0.8,
        alpha: float = 0.05,
        alternative: str = "two-sided",
        effect: float | None = None,
        n_cases: int | None = None,
        method: str = "analytic",
        n_simulations: int = 2_000,
        rng: int | np.random.Generator | None = None,
        test: str | None = None,
        practical_threshold: float = 0.0,
    ) -> PlanResult:
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

        def bootstrap_se(n_resamples: int, seed: int) -> float:
            return self.bootstrap(n_resamples=max(n_resamples, 200), rng=seed).standard_error

        return plan_comparison(self._pairs, self._measure, opts, rng=rng, bootstrap_se=bootstrap_se)

    # -- missing-outcome sensitivity (pdpaired.analysis.sensitivity) -----------------------
    @compose
    def sensitivity(
        self,
        *,
        lower: float | None = None,
        upper: float | None = None,
        confidence_level: float = 0.95,
        rng: int | np.random.Generator | None = None,
    ) -> SensitivityResult:
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
        if self._pairs.runs() is not None:
            msg = (
                "sensitivity() is not available with repeated runs yet: its bounds re-pair the "
                "table with the missing outputs filled, one row per (case, model). Average the "
                "runs first (df.groupby([case, model], as_index=False)[score].mean()) and run "
                "it on the run means, where a missing case is one with no usable run."
            )
            raise NotImplementedError(msg)

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
        did with them (:class:`~pdpaired.results.repeats.RunSummary`).
        """
        runs = self._pairs.runs()
        return None if runs is None else runs.summary

    def variance_components(self) -> VarianceComponents:
        """Split the variance of the improvement into between-case and run-to-run parts.

        With repeated runs (``df.paired(repeat="sample")``), a case's
        improvement ``d_i`` is the difference of A's and B's means over their
        runs, and ``Var(d_i) = between + within_a / R_ia + within_b / R_ib``:
        the variance over cases of the true per-case improvement, plus each
        model's run-to-run variance over its runs on the case. Estimated by
        the method of moments (one-way ANOVA; the runs may differ in number
        per case and per model). The variance of the mean improvement over
        ``n`` cases is ``(between + within / R) / n`` (Miller 2024, "Adding
        error bars to evals"), so :meth:`VarianceComponents.se_at` tells
        whether more runs per case or more cases shrink the standard error
        more.

        Returns
        -------
        VarianceComponents

        Notes
        -----
        The components describe the cases as independent (groups and strata
        are not used): with clustered cases, ``between`` includes the
        clusters' correlation. Direction-adjusted like every result.

        Examples
        --------
        >>> import numpy as np, pandas as pd
        >>> import pdpaired
        >>> rng = np.random.default_rng(0)
        >>> n, runs = 2000, 4
        >>> gain = rng.normal(0.2, 0.5, n)  # true per-case improvement: variance 0.25
        >>> case = np.repeat(np.arange(n), runs)
        >>> df = pd.concat([
        ...     pd.DataFrame({"case_id": case, "model": m, "run": np.tile(np.arange(runs), n),
        ...                   "score": shift[case] + rng.normal(0.0, 2.0, n * runs)})
        ...     for m, shift in (("new", gain), ("old", np.zeros(n)))])
        >>> cmp = df.paired(repeat="sample").compare("new", "old", higher_is_better=True)
        >>> vc = cmp.variance_components()  # truth: between 0.25, run to run 4 and 4
        >>> round(vc.between, 2), round(vc.within_a, 1), round(vc.within_b, 1)
        (0.21, 4.0, 3.9)
        >>> vc.se_at(runs=16) < vc.se_at(n_cases=2 * n)  # run noise dominates here
        True
        """
        return run_variance_components(
            self._pairs, a=self.a, b=self.b, metric=self.metric,
            higher_is_better=self.higher_is_better,
        )  # fmt: skip


def design_point(cmp: Comparison, unit: str | None, weighting: str) -> tuple[float, float, float]:
    """Metric A, metric B and the improvement of ``cmp`` with the analysis' design."""
    meta = cmp._meta(unit, weighting)
    raw = meta.metric_a - meta.metric_b
    return meta.metric_a, meta.metric_b, raw if cmp.higher_is_better else -raw


def exact_binomial_counts(
    prov: Provenance,
    a_pass: np.ndarray,
    b_pass: np.ndarray,
    opts: ExactBinomialOptions,
    *,
    freq: np.ndarray | None = None,
    group: str | None,
) -> ExactBinomialResult:
    """Run the exact binomial test on pass/fail outcomes (shared with Dask).

    ``a_pass`` and ``b_pass`` flag each case (or, with ``freq``, each distinct
    outcome pair standing for ``freq`` cases); ``group`` names the cluster
    column, which makes the test's independence assumption doubtful.
    """
    if group is not None:
        warnings.warn(
            f"The exact binomial test assumes independent pairs, but cases are grouped by "
            f"{group!r}; correlated cases make its p-value too small. Use "
            "randomization(unit='group') for clustered cases.",
            IndependenceWarning,
            stacklevel=find_stack_level(),
        )
    w = np.ones(a_pass.size, dtype=np.int64) if freq is None else freq
    counts = {
        "a_only": int(w[a_pass & ~b_pass].sum()),
        "b_only": int(w[~a_pass & b_pass].sum()),
        "both_pass": int(w[a_pass & b_pass].sum()),
        "both_fail": int(w[~a_pass & ~b_pass].sum()),
    }
    a_only, b_only = counts["a_only"], counts["b_only"]
    n_disc = a_only + b_only
    if n_disc == 0:
        warnings.warn(
            "No discordant pairs: the two models pass and fail on exactly the same cases, "
            "so the data carry no evidence either way; pvalue is 1.",
            DegenerateDataWarning,
            stacklevel=find_stack_level(),
        )
    core = binomial_test(
        a_only, b_only, alternative=opts.alternative, mid_p=opts.mid_p,
        confidence_level=opts.confidence_level,
    )  # fmt: skip
    return ExactBinomialResult(
        **provenance_fields(prov),
        a_only=a_only,
        b_only=b_only,
        both_pass=counts["both_pass"],
        both_fail=counts["both_fail"],
        statistic=a_only,
        pvalue=core.pvalue,
        alternative=opts.alternative,
        mid_p=opts.mid_p,
        discordant_share=None if n_disc == 0 else a_only / n_disc,
        confidence_interval=ConfidenceInterval(low=core.low, high=core.high),
        confidence_level=opts.confidence_level,
    )


def bootstrap_result(
    prov: Provenance,
    opts: BootstrapOptions,
    *,
    ci: ConfidenceInterval,
    dist: np.ndarray,
    engine: str,
    core: BootstrapCore | None = None,
) -> BootstrapResult:
    """Assemble a :class:`BootstrapResult` with its decisions.

    A degenerate interval (``core.degenerate``) sets no decision flag.
    """
    threshold, margin = opts.practical_threshold, opts.noninferiority_margin
    degenerate = (core is not None and core.degenerate) or interval_degenerate(
        ci.low, ci.high, dist, confidence_level=opts.confidence_level, method=opts.method
    )
    decision = decide(prov.improvement, ci.low, ci.high, practical_threshold=threshold,
                      noninferiority_margin=margin, degenerate=degenerate)  # fmt: skip
    return BootstrapResult(
        **provenance_fields(prov),
        confidence_interval=ci,
        confidence_level=opts.confidence_level,
        method=opts.method,
        n_resamples=core.n_resamples if core is not None else int(opts.n_resamples),
        n_valid=int(dist.size),
        bootstrap_distribution=dist,
        standard_error=float(np.std(dist, ddof=1)) if dist.size > 1 else 0.0,
        practical_threshold=threshold,
        noninferiority_margin=margin,
        superior_point=decision.superior_point,
        superior_ci=decision.superior_ci,
        noninferior=decision.noninferior,
        verdict=decision.verdict,
        engine=engine,
        confidence_interval_se=None if core is None else core.confidence_interval_se,
        degenerate=degenerate,
        exact_check=None if core is None else core.exact_check,
    )


def delong_comparison(
    cmp: Comparison, *, alternative: str, confidence_level: float
) -> DeLongResult:
    """Run :func:`pdpaired.core.delong.delong_test` on a binary AUROC comparison."""
    opts = exact_binomial_iv(
        alternative=alternative, mid_p=False, confidence_level=confidence_level
    )
    if cmp.task != "binary" or cmp.metric != "auroc":
        msg = (
            "delong() compares two AUROCs: it needs binary prediction mode with "
            f"metric='auroc' (this comparison: task {cmp.task!r}, metric {cmp.metric!r})."
        )
        raise ValueError(msg)
    cols = cmp._columns()
    if cols.group is not None:
        warnings.warn(
            f"DeLong's test assumes independent cases, but cases are grouped by {cols.group!r}; "
            "correlated cases make its p-value too small. Use randomization(unit='group') or "
            "bootstrap(unit='group') for clustered cases.",
            IndependenceWarning,
            stacklevel=find_stack_level(),
        )
    pairs = cmp.pairs
    labels = cmp.class_labels
    assert labels is not None
    assert cols.target is not None
    positive = pairs[cols.target].to_numpy() == labels[1]
    core = delong_test(
        pairs[cmp.a].to_numpy(dtype=np.float64), pairs[cmp.b].to_numpy(dtype=np.float64),
        positive, alternative=opts.alternative, confidence_level=opts.confidence_level,
    )  # fmt: skip
    if core.se == 0.0:
        warnings.warn(
            "The DeLong variance of the AUROC difference is 0 (for example, identical "
            "predictions, or both models separating the classes perfectly): the test carries "
            "no information.",
            DegenerateDataWarning,
            stacklevel=find_stack_level(),
        )
    prov = cmp._provenance(cmp._meta("case", "item"), None, None)
    return DeLongResult(
        **provenance_fields(prov),
        statistic=core.statistic, pvalue=core.pvalue, se=core.se, z=core.z,
        confidence_interval=ConfidenceInterval(low=core.low, high=core.high),
        confidence_level=opts.confidence_level, alternative=opts.alternative,
        n_positive=core.n_positive, n_negative=core.n_negative,
    )  # fmt: skip


def check_models(a: Any, b: Any, missing: str) -> str:
    """Check the two model names and the missing-outcome policy; return the policy."""
    if a is None or b is None:
        msg = "`a` and `b` (the two model names) are required."
        raise TypeError(msg)
    if a == b:
        msg = f"`a` and `b` must name two different models; both are {a!r}."
        raise ValueError(msg)
    return check_choice(missing, "missing", MISSING_POLICIES)


def check_score_mode(
    cols: Columns, a: Any, b: Any, metric: Any, higher_is_better: bool | None, *, hint: str
) -> bool:
    """Check score mode's metric, direction and model names; return the direction.

    ``hint`` says what to do for a metric other than ``"mean"``.
    """
    if not (isinstance(metric, str) and metric == "mean"):
        msg = (
            f"metric={metric!r} {hint}. Score mode (a per-case score column) supports "
            "metric='mean'."
        )
        raise ValueError(msg)
    if higher_is_better is None:
        msg = (
            "`higher_is_better` is required for metric='mean': say whether a larger score is "
            "better (accuracy, BLEU: True) or worse (loss, error, latency: False)."
        )
        raise ValueError(msg)
    direction = check_bool(higher_is_better, "higher_is_better")
    clash = {a, b} & set(cols.design_columns())
    if clash:
        msg = f"Model names must differ from the group/stratum column names; clash: {clash}."
        raise ValueError(msg)
    return direction


def bootstrap_parts(
    cmp: Comparison,
    opts: BootstrapOptions,
    seed: SeedInfo,
    *,
    unit: str | None,
    weighting: str,
    stratified: bool | None,
    stratum_weights: Mapping[Any, float] | pd.Series | None,
    collect: bool = False,
) -> tuple[BootstrapPlan, Provenance]:
    """Return the resampler and provenance of ``cmp.bootstrap(...)``, for a joint bootstrap.

    :mod:`pdpaired.analysis.multi` draws the replicates of several comparisons at
    once and assembles each result with :func:`bootstrap_result`, exactly as
    :meth:`Comparison.bootstrap` does with its own replicates.
    """
    cmp = cmp._with_collect(collect)
    plan = cmp._measure.bootstrap_plan(
        cmp._pairs, unit=unit, weighting=weighting, stratified=stratified,
        stratum_weights=stratum_weights, method=opts.method,
    )  # fmt: skip
    return plan, cmp._provenance(plan.meta, seed.seed, seed.rng_state, plan.stream)
