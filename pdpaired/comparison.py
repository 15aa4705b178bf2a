"""The :class:`Comparison` object: validated pairs plus the declared analysis."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from pdpaired._docs import compose
from pdpaired._engine import Design
from pdpaired._errors import (
    DegenerateDataWarning,
    IndependenceWarning,
    find_stack_level,
)
from pdpaired._options import (
    BootstrapOptions,
    ExactBinomialOptions,
    RandomizationOptions,
    bootstrap_iv,
    exact_binomial_iv,
    randomization_iv,
)
from pdpaired._rng import normalize_rng, stream_name
from pdpaired._units import (
    UnitTable,
    design_from_units,
    quantize,
    segment_sums,
)
from pdpaired._validation import (
    check_bool,
    check_choice,
    check_positive_int,
)
from pdpaired.bootstrap import (
    SMALL_SAMPLE_SAMPLINGS,
    BootstrapCore,
    DesignResampler,
    bootstrap_replicates,
)
from pdpaired.delong import delong_test
from pdpaired.exact_binomial import binomial_test
from pdpaired.pairing import (
    MISSING_POLICIES,
    Columns,
    PairedData,
    check_groups_nested,
    slice_values,
)
from pdpaired.randomization import randomization_design
from pdpaired.report import ComparisonReport, build_report
from pdpaired.results import (
    BootstrapResult,
    ConfidenceInterval,
    DeLongResult,
    ExactBinomialResult,
    Provenance,
    RandomizationResult,
    provenance_fields,
)
from pdpaired.slices import SliceResult, by_slice, value_order

__all__ = ["Comparison"]


@dataclass(frozen=True, slots=True, kw_only=True)
class DesignMeta:
    """Point estimates of the two metrics and the description of an analysis' design."""

    metric_a: float
    metric_b: float
    n_groups: int | None
    n_strata: int | None
    unit: str
    weighting: str
    sampling: str
    stratum_weights: dict[str, float] | None


class Comparison:
    """Two models paired on the same cases, ready for statistics.

    Built by :meth:`DataFrame.paired.compare <pdpaired.PairedAccessor.compare>`;
    every invariant has been checked when it exists. Nothing about it changes
    once built (it only caches the per-unit table of each design it has
    analysed): each method returns a new result.

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

    def __init__(self, data: PairedData, *, metric: str, higher_is_better: bool) -> None:
        self._data = data
        self._metric = metric
        self._higher_is_better = higher_is_better
        self._unit_tables: dict[tuple[str, bool], tuple[UnitTable, int | None]] = {}

    # -- descriptive --------------------------------------------------------
    @property
    def a(self) -> str:
        """Model A (the candidate)."""
        return self._data.a

    @property
    def b(self) -> str:
        """Model B (the reference)."""
        return self._data.b

    @property
    def metric(self) -> str:
        """Metric name."""
        return self._metric

    @property
    def higher_is_better(self) -> bool:
        """Direction of the metric."""
        return self._higher_is_better

    @property
    def task(self) -> str:
        """``"score"``: per-case scores (prediction mode: the prediction task)."""
        return "score"

    @property
    def class_labels(self) -> list[Any] | None:
        """Prediction mode: the class labels (negative, positive) or the classes; None here."""
        return None

    @property
    def threshold(self) -> float | None:
        """Prediction mode: the probability threshold of binary label metrics; None here."""
        return None

    @property
    def pairs(self) -> pd.DataFrame:
        """Wide table indexed by case id, sorted by case id (a fresh copy)."""
        return self._data.frame.copy()

    @property
    def missing(self) -> Any:
        """The :class:`~pdpaired.MissingSummary` of the declared policy."""
        return self._data.missing

    @property
    def n_cases(self) -> int:
        """Number of paired cases analysed."""
        return len(self._data.frame)

    @property
    def metric_a(self) -> float:
        """Metric of A on all cases (no strata weights; the results' exact sums)."""
        return float(self._design("case", "item", False, None)[1].metric_a)

    @property
    def metric_b(self) -> float:
        """Metric of B on all cases (no strata weights; the results' exact sums)."""
        return float(self._design("case", "item", False, None)[1].metric_b)

    @property
    def improvement(self) -> float:
        """Direction-adjusted ``metric_a - metric_b`` (positive: A better)."""
        raw = self.metric_a - self.metric_b
        return raw if self._higher_is_better else -raw

    def __repr__(self) -> str:
        cols = self._data.columns
        extra = "".join(
            f", {k}={v!r}" for k, v in (("group", cols.group), ("stratum", cols.stratum)) if v
        )
        return (
            f"Comparison(a={self.a!r}, b={self.b!r}, metric={self._metric!r}, "
            f"higher_is_better={self._higher_is_better}, n_cases={self.n_cases}{extra})"
        )

    def _meta(self, unit: str | None, weighting: str) -> DesignMeta:
        """Point estimates and design description of the analysis with this design."""
        return self._design(unit, weighting, None, None)[1]

    def _columns(self) -> Columns:
        """Return the resolved column names of the long table."""
        return self._data.columns

    def _canonical_table(self) -> pd.DataFrame:
        """Return the aligned pairs, one row per case sorted by case id (what a report digests)."""
        return self._data.frame

    def _binary_outcomes(self) -> bool:
        """Whether per-case outcomes are pass/fail (what the exact binomial test needs)."""
        return bool(self._data.binary)

    def _slices(self, column: str) -> Iterator[tuple[Any, int, Callable[[], Comparison]]]:
        """Yield ``(value, n_cases, restrict)`` for each value of a slice column, in order.

        Missing values form their own slice; a categorical keeps its category
        order, other values are sorted (see :func:`pdpaired.slices.value_order`).
        """
        values = slice_values(self._data, column)
        codes, labels = pd.factorize(values, use_na_sentinel=False)
        for i in value_order(labels, values):
            mask = codes == i
            yield labels[i], int(mask.sum()), partial(self._restrict, mask)

    def _restrict(self, mask: np.ndarray) -> Comparison:
        """Return the same comparison on the cases where ``mask`` is True (a slice)."""
        return Comparison(
            self._data.subset(mask), metric=self._metric, higher_is_better=self._higher_is_better
        )

    # -- design --------------------------------------------------------------
    def _design(
        self,
        unit: str | None,
        weighting: str,
        stratified: bool | None,
        stratum_weights: Mapping[Any, float] | pd.Series | None,
    ) -> tuple[Design, DesignMeta]:
        unit, weighting, use_strata = resolve_design(
            self._columns(), unit, weighting, stratified, stratum_weights
        )
        table, n_groups = self._unit_table(unit, use_strata)
        sign = 1.0 if self._higher_is_better else -1.0
        design, metric_a, metric_b = design_from_units(
            table, weighting=weighting, stratum_weights=stratum_weights, sign=sign
        )
        return design, design_meta(
            metric_a, metric_b, design, table.s_labels, n_groups=n_groups, unit=unit,
            weighting=weighting, use_strata=use_strata,
        )  # fmt: skip

    def _unit_table(self, unit: str, use_strata: bool) -> tuple[UnitTable, int | None]:
        """Exact per-unit sums of the scores on the data's grid, and the number of groups.

        Cached per design: the pairs never change, and repeated analyses of one
        comparison (a bootstrap then a test, several seeds) reuse the table.
        """
        key = (unit, use_strata)
        if key not in self._unit_tables:
            self._unit_tables[key] = self._build_unit_table(unit, use_strata)
        return self._unit_tables[key]

    def _build_unit_table(self, unit: str, use_strata: bool) -> tuple[UnitTable, int | None]:
        frame = self._data.frame
        cols = self._data.columns
        k = self._data.scale_exp
        qa = quantize(frame[self.a].to_numpy(dtype=np.float64), k)
        qb = quantize(frame[self.b].to_numpy(dtype=np.float64), k)
        n = len(frame)
        s_codes, s_labels = self._strata(use_strata)
        n_groups: int | None
        if unit == "group":
            g_codes, g_stratum = self._groups(s_codes)
            n_groups = n_units = len(g_stratum)
            rank, unit_stratum = order_units(g_stratum)  # by (stratum, group label)
            unit_of_case = rank[g_codes]
            sum_a, sum_b = segment_sums((qa, qb), unit_of_case, n_units)
            count = np.bincount(unit_of_case, minlength=n_units).astype(np.int64)
        else:
            unit_of_case, unit_stratum = order_units(s_codes)  # by (stratum, case id)
            sum_a = np.empty(n, dtype=np.int64)
            sum_b = np.empty(n, dtype=np.int64)
            sum_a[unit_of_case], sum_b[unit_of_case] = qa, qb
            count = np.ones(n, dtype=np.int64)
            n_groups = None if cols.group is None else int(frame[cols.group].nunique())
        table = UnitTable(
            sum_a=sum_a, sum_b=sum_b, count=count, stratum=unit_stratum, s_labels=s_labels,
            k=k, unit=unit,
        )  # fmt: skip
        return table, n_groups

    def _col(self, name: str) -> pd.Series:
        """Return a per-case column of the pairs (multiclass pairs have two column levels)."""
        col = self._data.frame[name]
        return col.iloc[:, 0] if isinstance(col, pd.DataFrame) else col

    def _strata(self, use_strata: bool) -> tuple[np.ndarray, pd.Index]:
        """Stratum code of each case (sorted labels), or one stratum ``"all"``."""
        cols = self._data.columns
        if not use_strata:
            return np.zeros(self.n_cases, dtype=np.int64), pd.Index(["all"])
        assert cols.stratum is not None
        codes, labels = pd.factorize(self._col(cols.stratum), sort=True)
        return codes.astype(np.int64), labels

    def _groups(self, s_codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Group code of each case and the stratum of each group (sorted labels).

        Raises
        ------
        PairingError
            If a group spans several strata.
        """
        group = self._data.columns.group
        assert group is not None
        g_codes, g_labels = pd.factorize(self._col(group), sort=True)
        g_stratum = np.full(len(g_labels), -1, dtype=np.int64)
        g_stratum[g_codes] = s_codes
        mixed = np.zeros(len(g_labels), dtype=bool)
        mixed[g_codes[g_stratum[g_codes] != s_codes]] = True
        check_groups_nested(list(g_labels[mixed]))
        return g_codes.astype(np.int64), g_stratum

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
    ) -> BootstrapResult:
        """Paired bootstrap confidence interval for the improvement of A over B.

        The same resampled cases (or whole groups) are used for A and B in
        every replicate, so the interval reflects the pairing.

        Parameters
        ----------
        ${bootstrap_params}

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
        return self._bootstrap(
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
        design, meta = self._design(unit, weighting, stratified, stratum_weights)
        seed = normalize_rng(rng)
        prov = self._provenance(meta, seed.seed, seed.rng_state, stream_name("bootstrap_chunk"))
        core = bootstrap_replicates(
            DesignResampler(design, small_sample=meta.sampling in SMALL_SAMPLE_SAMPLINGS),
            prov.improvement, n_resamples=opts.n_resamples,
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
            a=self.a, b=self.b, metric=self._metric, higher_is_better=self._higher_is_better,
            metric_a=meta.metric_a, metric_b=meta.metric_b, raw_delta=raw,
            improvement=raw if self._higher_is_better else -raw, n_cases=self.n_cases,
            n_groups=meta.n_groups, n_strata=meta.n_strata, unit=meta.unit,
            weighting=meta.weighting, sampling=meta.sampling,
            stratum_weights=meta.stratum_weights, missing=self.missing, seed=seed,
            stream=stream, rng_state=rng_state,
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
    ) -> RandomizationResult:
        """Paired randomization (prediction-swap) test.

        Under the null that the two models are exchangeable, each unit (a
        case, or a whole group) independently swaps which model's output is
        called A; the improvement is recomputed for every assignment. The
        statistic is the same estimand as :meth:`bootstrap`'s.

        Parameters
        ----------
        ${randomization_params}

        Returns
        -------
        RandomizationResult

        Notes
        -----
        The Monte Carlo p-value is ``(1 + #as-extreme) / (1 + n_permutations)``,
        never 0; "as extreme" tolerates ties (the proven rounding drift of the
        exact fixed-point sums plus 100 machine epsilons). For 0/1 scores, swaps
        only matter on discordant units and the null distribution is drawn from
        binomials, exactly.

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
        return self._randomization(
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
        design, meta = self._design(unit, weighting, None, stratum_weights)
        seed = normalize_rng(rng)
        core = randomization_design(
            design, n_permutations=opts.n_permutations, alternative=opts.alternative,
            seed_sequence=seed.seed_sequence, batch=opts.batch,
        )  # fmt: skip
        prov = self._provenance(meta, seed.seed, seed.rng_state, stream_name("randomization_bits"))
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
    ) -> SliceResult:
        """Compare A and B within every value of one or more slice columns.

        Parameters
        ----------
        ${slice_columns_param}
        ${by_slice_params}

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
        return by_slice(
            self, columns, levels=self._slices, point=design_point, min_size=min_size,
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
            table=self._canonical_table(), binary_outcomes=self._binary_outcomes(),
            grouped=self._columns().group is not None,
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
        frame = self._data.frame
        a_val = frame[self.a].to_numpy(dtype=np.float64)
        b_val = frame[self.b].to_numpy(dtype=np.float64)
        both = np.concatenate([a_val, b_val])
        bad = ~np.isin(both, (0.0, 1.0))
        if bad.any():
            values = pd.unique(both[bad])
            shown = ", ".join(f"{v:g}" for v in values[:10])
            msg = (
                "exact_binomial needs binary 0/1 scores; found "
                f"{int(bad.sum())} other value(s): {shown}"
                + (" ..." if values.size > 10 else "")
                + ". Use bootstrap() or randomization() for other scores."
            )
            raise ValueError(msg)
        good = 1.0 if self._higher_is_better else 0.0
        meta = self._design("case", "item", False, None)[1]
        return exact_binomial_counts(
            self._provenance(meta, None, None), a_val == good, b_val == good, opts,
            group=self._data.columns.group,
        )  # fmt: skip

    # -- DeLong's test (issue 17; the logic lives in pdpaired.delong) ---------
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
        alternative : {"two-sided", "greater", "less"}
            ``"greater"``: AUROC of A > AUROC of B.
        confidence_level : float, default 0.95
            Level of the Wald interval of the AUROC difference.

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


def resolve_design(
    cols: Columns,
    unit: str | None,
    weighting: str,
    stratified: bool | None,
    stratum_weights: Mapping[Any, float] | pd.Series | None,
    *,
    stratified_without_column: bool = False,
) -> tuple[str, str, bool]:
    """Check the design arguments; return ``(unit, weighting, use_strata)``.

    ``stratified_without_column``: ``stratified=True`` is allowed without a
    stratum column (prediction mode, where it also means target classes).
    """
    if unit is None:
        unit = "group" if cols.group is not None else "case"
    unit = check_choice(unit, "unit", ("case", "group"))
    weighting = check_choice(weighting, "weighting", ("item", "group"))
    if unit == "group" and cols.group is None:
        msg = "`unit`='group' needs a group column: call df.paired(group='...') first."
        raise ValueError(msg)
    if weighting == "group" and unit != "group":
        msg = "`weighting`='group' (mean of group means) needs unit='group' and a group column."
        raise ValueError(msg)
    if stratified not in (None, True, False):
        msg = f"`stratified` must be None, True or False; got {stratified!r}."
        raise TypeError(msg)
    if stratified is True and cols.stratum is None and not stratified_without_column:
        msg = "`stratified`=True needs a stratum column: call df.paired(stratum='...') first."
        raise ValueError(msg)
    use_strata = cols.stratum is not None and stratified is not False
    if stratum_weights is not None and not use_strata:
        msg = "`stratum_weights` needs stratified resampling over a stratum column."
        raise ValueError(msg)
    return unit, weighting, use_strata


def design_meta(
    metric_a: float,
    metric_b: float,
    design: Design,
    s_labels: pd.Index,
    *,
    n_groups: int | None,
    unit: str,
    weighting: str,
    use_strata: bool,
) -> DesignMeta:
    """Point estimates and the description of a score-mode design (shared with Dask)."""
    if use_strata and unit == "group":
        sampling = "stratified-cluster"
    elif use_strata:
        sampling = "stratified"
    else:
        sampling = "cluster" if unit == "group" else "iid"
    return DesignMeta(
        metric_a=metric_a,
        metric_b=metric_b,
        n_groups=n_groups,
        n_strata=len(s_labels) if use_strata else None,
        unit=unit,
        weighting=weighting,
        sampling=sampling,
        stratum_weights=(
            {str(k): float(w) for k, w in zip(s_labels, design.weight, strict=True)}
            if use_strata
            else None
        ),
    )


def order_units(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rank of each unit when sorted (stably) by ``key``, and the sorted keys."""
    order = np.argsort(key, kind="stable")
    rank = np.empty(key.size, dtype=np.int64)
    rank[order] = np.arange(key.size)
    return rank, key[order]


def bootstrap_result(
    prov: Provenance,
    opts: BootstrapOptions,
    *,
    ci: ConfidenceInterval,
    dist: np.ndarray,
    engine: str,
    core: BootstrapCore | None = None,
) -> BootstrapResult:
    """Assemble a :class:`BootstrapResult` with its decisions (API sections 5 and 10).

    A degenerate interval (``core.degenerate``) sets no decision flag.
    """
    threshold, margin = opts.practical_threshold, opts.noninferiority_margin
    degenerate = core is not None and core.degenerate
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
        superior_point=not degenerate and bool(prov.improvement > threshold),
        superior_ci=not degenerate and bool(ci.low > threshold),
        noninferior=None if margin is None else not degenerate and bool(ci.low >= -margin),
        engine=engine,
        confidence_interval_se=None if core is None else core.confidence_interval_se,
        degenerate=degenerate,
        exact_check=None if core is None else core.exact_check,
    )


def delong_comparison(
    cmp: Comparison, *, alternative: str, confidence_level: float
) -> DeLongResult:
    """Run :func:`pdpaired.delong.delong_test` on a binary AUROC comparison."""
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
