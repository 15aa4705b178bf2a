"""Several models on the same cases: a baseline against many, all pairs, and ranks.

:func:`compare_many` pairs every comparison first (every pairing invariant of
every model is checked before anything is resampled), then draws one joint
resampling of the cases that serves all of them (:mod:`pdpaired.core.multi`),
and assembles each comparison's :class:`~pdpaired.BootstrapResult` exactly as
the two-model :meth:`~pdpaired.Comparison.bootstrap` does: with the same
seed, each row equals the two-model call. p-values are adjusted across the
comparisons, and :meth:`MultiResult.ranks` turns the joint replicates into
simultaneous confidence sets for the models' ranks.
"""

from __future__ import annotations

import html
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from pdpaired.core.options import BootstrapOptions
from pdpaired._lib.rng import normalize_rng
from pdpaired._lib.validation import check_confidence_level
from pdpaired.core.bootstrap import Resampler, bootstrap_replicates
from pdpaired.analysis.bootstrap import bootstrap_result
from pdpaired.analysis.comparison import Comparison, bootstrap_parts
from pdpaired.results.gate import GateResult, gate
from pdpaired.core.multi import joint_replicates, pair_relations, rank_sets
from pdpaired.artifacts.multi import artifact_body, multi_markdown
from pdpaired.artifacts.report import (
    content_digest,
    frame_sha256,
    ids_sha256,
    software_versions,
    write_files,
)
from pdpaired.results.bootstrap import BootstrapResult
from pdpaired.analysis.slices import adjust_pvalues

__all__ = ["ADJUSTMENTS", "MultiResult", "RankResult", "compare_many", "model_pairs"]

#: The p-value adjustments across comparisons.
ADJUSTMENTS = ("holm", "fdr_bh", "bonferroni", None)

VERDICTS = ("a_better", "b_better", "equivalent", "inconclusive", "undetermined")


def verdict_of(res: BootstrapResult) -> str:
    """Return a bootstrap result's verdict (``BootstrapResult.verdict``)."""
    return str(res.verdict)


def bootstrap_pvalue(replicates: np.ndarray) -> float:
    """Two-sided bootstrap p-value of "no improvement" from a comparison's replicates.

    ``min(1, 2 * min(1 + #{r <= 0}, 1 + #{r >= 0}) / (1 + n))``: twice the
    smaller share of replicates on either side of 0, with the plus-one
    correction so that it is never 0. It is the smallest ``alpha`` (up to the
    plus-one) at which the equal-tailed percentile interval of level
    ``1 - alpha`` excludes 0, so it agrees with the percentile intervals.
    """
    r = replicates[np.isfinite(replicates)]
    n = r.size
    le, ge = int(np.count_nonzero(r <= 0.0)), int(np.count_nonzero(r >= 0.0))
    return float(min(1.0, 2.0 * min(1 + le, 1 + ge) / (1 + n)))


class _Drawn:
    """A comparison's resampler whose replicates were drawn jointly with the others."""

    def __init__(self, inner: Resampler, reps: np.ndarray, engine: str) -> None:
        self.inner, self.reps, self.engine = inner, reps, engine

    def __getattr__(self, name: str) -> Any:
        # the optional members the bootstrap loop asks for (degrees_of_freedom,
        # few_units_warning, exact_check, tango_interval) are the comparison's own
        return getattr(self.inner, name)

    def singleton_warning(self) -> str | None:
        return self.inner.singleton_warning()

    def replicates(
        self, n_resamples: int, seed_sequence: np.random.SeedSequence, batch: int | None
    ) -> tuple[np.ndarray, str]:
        del n_resamples, seed_sequence, batch
        return self.reps, self.engine

    def theta(self) -> float:
        return self.inner.theta()

    def acceleration(self) -> float:
        return self.inner.acceleration()

    def undefined(self, n_dropped: int, n_resamples: int) -> str:
        return self.inner.undefined(n_dropped, n_resamples)


def check_adjust(adjust: object) -> str | None:
    """Check ``adjust`` (one of :data:`ADJUSTMENTS`)."""
    if adjust is None or (isinstance(adjust, str) and adjust in ADJUSTMENTS):
        return adjust
    msg = f"`adjust` must be one of 'holm', 'fdr_bh', 'bonferroni' or None; got {adjust!r}."
    raise ValueError(msg)


def model_pairs(
    present: Sequence[Any], baseline: Any | None, models: Sequence[Any] | None
) -> tuple[list[Any], list[tuple[Any, Any]]]:
    """Return the models and the (A, B) pairs of ``against`` (a baseline) or ``all_pairs`` (None).

    ``present`` are the table's models in order. ``against``: every model
    (or each of ``models``) against the baseline, ``(model, baseline)``, the
    baseline listed first among the models. ``all_pairs``: ``(m_i, m_j)``
    for ``i < j`` in the order of ``models`` (default: the table's).
    """
    if models is not None:
        if isinstance(models, (str, bytes)) or not isinstance(models, Sequence):
            msg = f"`models` must be a list of model labels or None; got {models!r}."
            raise TypeError(msg)
        chosen = list(models)
        dup = sorted({repr(m) for m in chosen if chosen.count(m) > 1})
        if dup:
            msg = f"`models` lists a model more than once: {', '.join(dup)}."
            raise ValueError(msg)
    if baseline is not None:
        if models is None:
            chosen = [m for m in present if m != baseline]
        elif baseline in chosen:
            msg = f"`models` must not include the baseline {baseline!r}."
            raise ValueError(msg)
        if not chosen:
            msg = (
                f"against({baseline!r}): no other model to compare; the table's models are "
                f"{list(present)!r}."
            )
            raise ValueError(msg)
        return [baseline, *chosen], [(m, baseline) for m in chosen]
    if models is None:
        chosen = list(present)
    if len(chosen) < 2:
        msg = f"all_pairs() needs at least two models; got {chosen!r}."
        raise ValueError(msg)
    return chosen, [
        (chosen[i], chosen[j]) for i in range(len(chosen)) for j in range(i + 1, len(chosen))
    ]


def compare_many(
    make: Callable[[Sequence[tuple[Any, Any]]], Sequence[Comparison]],
    pairs: Sequence[tuple[Any, Any]],
    opts: BootstrapOptions,
    *,
    kind: str,
    baseline: Any | None,
    models: Sequence[Any],
    adjust: str | None,
    rng: int | np.random.Generator | None,
    unit: str | None,
    weighting: str,
    stratified: bool | None,
    stratum_weights: Mapping[Any, float] | pd.Series | None,
    collect: bool = False,
) -> MultiResult:
    """Bootstrap several comparisons from one joint resampling of the cases.

    ``make(pairs)`` pairs the models of every comparison (every invariant
    checked; the pandas front end reads the rows of all the models once) and
    returns one comparison per pair, before anything is resampled. The replicates come from
    :func:`pdpaired.core.multi.joint_replicates` with the user's seed, and each
    result is assembled by the two-model bootstrap's own code.
    """
    comparisons = list(make(pairs))  # every pairing check, before any draw
    seed = normalize_rng(rng)
    parts = [
        bootstrap_parts(
            cmp,
            opts,
            seed,
            unit=unit,
            weighting=weighting,
            stratified=stratified,
            stratum_weights=stratum_weights,
            collect=collect,
        )
        for cmp in comparisons
    ]
    if not isinstance(opts.n_resamples, int):
        msg = (
            "n_resamples='auto' is not available for several comparisons at once (each would "
            "stop at its own count); give a number of resamples."
        )
        raise ValueError(msg)
    draws = joint_replicates(
        [plan.resampler for plan, _ in parts], opts.n_resamples, seed.seed_sequence, opts.batch,
        relations=pair_relations(pairs),
    )  # fmt: skip
    results = []
    for (plan, prov), reps in zip(parts, draws.replicates, strict=True):
        core = bootstrap_replicates(
            _Drawn(plan.resampler, reps, draws.engine), prov.improvement,
            n_resamples=opts.n_resamples, confidence_level=opts.confidence_level,
            method=opts.method, seed_sequence=seed.seed_sequence, batch=opts.batch,
        )  # fmt: skip
        results.append(
            bootstrap_result(
                prov,
                opts,
                ci=core.confidence_interval,
                dist=core.distribution,
                engine=core.engine,
                core=core,
            )
        )
    joint = np.vstack(draws.replicates) if draws.replicates else np.empty((0, 0))
    pvalues = np.array([bootstrap_pvalue(r) for r in draws.replicates])
    same_cases = (
        draws.coherent
        and all(r.missing.n_dropped == 0 for r in results)
        and len({r.n_cases for r in results}) == 1
    )
    return MultiResult(
        kind=kind,
        baseline=baseline,
        models=tuple(models),
        comparisons=tuple(results),
        pvalues=pvalues,
        pvalues_adjusted=adjust_pvalues(pvalues, adjust),
        adjust=adjust,
        verdicts=tuple(verdict_of(r) for r in results),
        shared_draws=draws.shared,
        same_cases=same_cases,
        bootstrap_distribution=joint,
        task=comparisons[0].task,
        threshold=comparisons[0].threshold,
        class_labels=comparisons[0].class_labels,
        sources=tuple(comparisons),
    )


def _fmt(x: float) -> str:
    return f"{x:+.4g}" if np.isfinite(x) else "nan"


def _label(x: Any) -> str:
    return str(x)


@dataclass(frozen=True, slots=True, kw_only=True)
class MultiResult:
    """Several paired comparisons from one joint bootstrap of the cases.

    Attributes
    ----------
    kind : {"against", "all_pairs"}
    baseline : object or None
        The baseline of ``against`` (None for ``all_pairs``).
    models : tuple
        The models compared (the baseline first for ``against``).
    comparisons : tuple of BootstrapResult
        One per comparison (A over B), each equal to the two-model
        ``bootstrap(a, b, ...)`` with the same seed.
    pvalues : ndarray
        Two-sided bootstrap p-value of each comparison (no improvement).
    pvalues_adjusted : ndarray
        The same, adjusted across the comparisons (``adjust``).
    adjust : str or None
    verdicts : tuple of str
    shared_draws : bool
        True when one draw of the cases served every comparison; False when
        the comparisons' cases differ (``"complete-case"`` with different
        missing cases) or the backend resamples where its rows are, and each
        comparison read the same streams on its own.
    same_cases : bool
        True when every comparison analyses the same cases (none dropped) and
        replicate ``r`` of each resampled the same cases, so the replicates
        are coherent and :meth:`ranks` applies.
    bootstrap_distribution : ndarray, shape (n_comparisons, n_resamples)
        The joint replicates of the improvements (NaN where undefined).
    task : str
        ``"score"``, or the prediction task (``"binary"``, ``"multiclass"``,
        ``"regression"``).
    threshold : float or None
        The probability threshold of binary label metrics.
    class_labels : list or None
        The class labels of a classification task (local artifact only:
        they are target values).
    """

    kind: str
    baseline: Any
    models: tuple[Any, ...]
    comparisons: tuple[BootstrapResult, ...]
    pvalues: np.ndarray = field(repr=False, compare=False)
    pvalues_adjusted: np.ndarray = field(repr=False, compare=False)
    adjust: str | None
    verdicts: tuple[str, ...]
    shared_draws: bool
    same_cases: bool
    bootstrap_distribution: np.ndarray = field(repr=False, compare=False)
    task: str = "score"
    threshold: float | None = None
    class_labels: list[Any] | None = field(default=None, compare=False)
    #: the comparisons analysed (their canonical tables are what a local artifact digests)
    sources: tuple[Comparison, ...] = field(default=(), repr=False, compare=False)

    # -- common facts ----------------------------------------------------------
    @property
    def metric(self) -> str:
        """The metric's name."""
        return self.comparisons[0].metric

    @property
    def higher_is_better(self) -> bool:
        """The metric's direction."""
        return self.comparisons[0].higher_is_better

    @property
    def confidence_level(self) -> float:
        """The intervals' confidence level (each interval's own, not simultaneous)."""
        return self.comparisons[0].confidence_level

    @property
    def seed(self) -> int | None:
        """The seed every comparison used (``rng=result.seed`` reproduces the result)."""
        return self.comparisons[0].seed

    @property
    def stream(self) -> str | None:
        """The name of the stream every comparison read."""
        return self.comparisons[0].stream

    @property
    def n_resamples(self) -> int:
        """Bootstrap replicates per comparison."""
        return self.comparisons[0].n_resamples

    def __len__(self) -> int:
        return len(self.comparisons)

    def __repr__(self) -> str:
        return (
            f"MultiResult(kind={self.kind!r}, models={list(self.models)!r}, "
            f"n_comparisons={len(self.comparisons)}, metric={self.metric!r}, "
            f"adjust={self.adjust!r}, seed={self.seed!r})"
        )

    # -- views ---------------------------------------------------------------------
    def to_frame(self) -> pd.DataFrame:
        """One row per comparison.

        Columns ``a``, ``b``, ``metric_a``, ``metric_b``, ``improvement``,
        ``low``, ``high``, ``pvalue``, ``pvalue_adjusted``, ``verdict``.
        """
        rows = [
            {
                "a": r.a,
                "b": r.b,
                "metric_a": r.metric_a,
                "metric_b": r.metric_b,
                "improvement": r.improvement,
                "low": r.confidence_interval.low,
                "high": r.confidence_interval.high,
                "pvalue": float(p),
                "pvalue_adjusted": float(q),
                "verdict": v,
            }
            for r, p, q, v in zip(
                self.comparisons, self.pvalues, self.pvalues_adjusted, self.verdicts, strict=True
            )
        ]
        return pd.DataFrame(
            rows,
            columns=["a", "b", "metric_a", "metric_b", "improvement", "low", "high",
                     "pvalue", "pvalue_adjusted", "verdict"],
        )  # fmt: skip

    def _headline(self) -> str:
        what = (
            f"{len(self)} models against baseline {_label(self.baseline)}"
            if self.kind == "against"
            else f"all {len(self)} pairs of {len(self.models)} models"
        )
        first = self.comparisons[0]
        adj = "unadjusted" if self.adjust is None else f"{self.adjust}-adjusted"
        return (
            f"{self.metric} ({'higher' if self.higher_is_better else 'lower'} is better): "
            f"{what}; {self.confidence_level:.0%} paired bootstrap intervals "
            f"({first.method}, {self.n_resamples} resamples, seed {self.seed}, one joint "
            f"resampling), p-values {adj} across comparisons"
        )

    def __str__(self) -> str:
        frame = self.to_frame()
        lines = [self._headline()]
        width = max(
            len(f"{_label(a)} vs {_label(b)}") for a, b in zip(frame.a, frame.b, strict=True)
        )
        for row in frame.itertuples(index=False):
            name = f"{_label(row.a)} vs {_label(row.b)}".ljust(width)
            lines.append(
                f"  {name}  {_fmt(row.improvement)}  [{_fmt(row.low)}, {_fmt(row.high)}]  "
                f"p={row.pvalue:.3g} adj={row.pvalue_adjusted:.3g}  {row.verdict}"
            )
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        frame = self.to_frame()
        body = frame.to_html(index=False, float_format=lambda x: f"{x:.4g}", escape=True)
        return f"<p>{html.escape(self._headline())}</p>\n{body}"

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-safe dict (no NaN; NumPy scalars converted)."""
        frame = self.to_frame()
        comps = []
        for row, res in zip(frame.to_dict("records"), self.comparisons, strict=True):
            entry = {k: _json_value(v) for k, v in row.items()}
            entry["n_cases"] = int(res.n_cases)
            entry["n_valid"] = int(res.n_valid)
            entry["missing"] = res.missing.to_dict()
            comps.append(entry)
        out = {
            "kind": self.kind,
            "baseline": _json_value(self.baseline),
            "models": [_json_value(m) for m in self.models],
            "metric": self.metric,
            "higher_is_better": bool(self.higher_is_better),
            "confidence_level": float(self.confidence_level),
            "method": self.comparisons[0].method,
            "n_resamples": int(self.n_resamples),
            "seed": self.seed,
            "stream": self.stream,
            "adjust": self.adjust,
            "shared_draws": bool(self.shared_draws),
            "comparisons": comps,
        }
        json.dumps(out, allow_nan=False)  # fail here, not in the caller's json.dumps
        return out

    def plot(self, ax: Any = None) -> Any:
        """Forest plot: each comparison's improvement and interval, with 0 (and ``±t``).

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Default: the current axes (``plt.gca()``), so it shows inline.

        Returns
        -------
        matplotlib.axes.Axes
        """
        if ax is None:
            import matplotlib.pyplot as plt

            ax = plt.gca()
        frame = self.to_frame()
        y = np.arange(len(frame))[::-1]
        colors = {"a_better": "tab:green", "b_better": "tab:red", "equivalent": "tab:blue"}
        for yi, row in zip(y, frame.itertuples(index=False), strict=True):
            color = colors.get(row.verdict, "0.35")
            ax.plot([row.low, row.high], [yi, yi], color=color, lw=2)
            ax.plot([row.improvement], [yi], "o", color=color)
        ax.axvline(0.0, color="black", lw=0.8)
        t = self.comparisons[0].practical_threshold
        if t > 0:
            for x in (-t, t):
                ax.axvline(x, color="0.5", lw=0.8, ls="--")
        ax.set_yticks(y)
        ax.set_yticklabels(
            [f"{_label(a)} vs {_label(b)}" for a, b in zip(frame.a, frame.b, strict=True)]
        )
        ax.set_xlabel(f"improvement in {self.metric} (positive: A better)")
        ax.set_title(f"{self.confidence_level:.0%} paired bootstrap intervals")
        return ax

    # -- artifacts (paired-comparison-artifact/v2) --------------------------------------
    def _ranks_or_none(self) -> RankResult | None:
        """Return the simultaneous rank sets an artifact records (None without shared cases)."""
        return self.ranks() if self.same_cases and len(self.models) >= 2 else None

    def _local_block(self, inputs: Sequence[Mapping[str, str]] | None) -> dict[str, Any]:
        tables = [cmp.canonical_table() for cmp in self.sources]
        if not tables:
            msg = "this MultiResult holds no comparisons to digest (it was not built by pdpaired)."
            raise ValueError(msg)
        digests: dict[int, tuple[str, str]] = {}  # comparisons on one table: digested once
        for t in tables:
            if id(t) not in digests:
                digests[id(t)] = (ids_sha256(t.index), frame_sha256(t))
        if inputs is None:
            given = [{"in_memory_table_sha256": digests[id(t)][1]} for t in tables]
        else:
            given = [{str(k): str(v) for k, v in x.items()} for x in inputs]
        weights = self.comparisons[0].stratum_weights
        return {
            "inputs": given,
            "aligned_ids_sha256": [digests[id(t)][0] for t in tables],
            "seed": self.seed,
            "stratum_weights": weights,
            "class_labels": self.class_labels,
        }

    def to_artifact(
        self, kind: str = "local", *, inputs: Sequence[Mapping[str, str]] | None = None
    ) -> dict[str, Any]:
        """Return the artifact of every comparison (``paired-comparison-artifact/v2``).

        One artifact holds the ``comparisons`` list: per comparison the
        models, the alignment and missing outcomes, both metrics, the
        improvement, the interval and its design, the bootstrap p-value and
        its adjusted value, the decisions and the verdict; with the analysis
        (``against`` / ``all_pairs``, the baseline, the adjustment), the
        simultaneous rank sets (when the comparisons share their cases), the
        software and a ``digest`` of everything else.
        :func:`pdpaired.verify` checks it. (A two-model
        :meth:`~pdpaired.Comparison.report` keeps the ``v1`` artifact.)

        Parameters
        ----------
        kind : {"local", "shareable"}
            ``"shareable"`` holds aggregates only (no case ids, targets,
            predictions, paths); ``"local"`` adds the input provenance.
        inputs : list of dict, optional
            Local artifact: ``{"path", "sha256"}`` of each input file (the
            command line passes them). Default: the SHA-256 of each
            comparison's analysed table (``in_memory_table_sha256``).

        Returns
        -------
        dict
            JSON-safe, with its ``digest``.

        Examples
        --------
        >>> import pdpaired
        >>> from pdpaired.datasets import load_digits_models
        >>> res = load_digits_models().paired(score="correct").against(
        ...     "logreg", higher_is_better=True, rng=0, n_resamples=500)
        >>> art = res.to_artifact("shareable")
        >>> art["artifact"], len(art["comparisons"]), art["analysis"]["baseline"]
        ('paired-comparison-artifact/v2', 4, 'logreg')
        """
        if kind not in ("local", "shareable"):
            msg = f"`kind` must be 'local' or 'shareable'; got {kind!r}."
            raise ValueError(msg)
        art = artifact_body(
            self, kind, ranks=self._ranks_or_none(), task=self.task, threshold=self.threshold,
            software=software_versions(),
            local=self._local_block(inputs) if kind == "local" else None,
        )  # fmt: skip
        art["digest"] = content_digest(art)
        return art

    def to_markdown(self) -> str:
        """Return the human-readable report of every comparison (``comparison.md``)."""
        return multi_markdown(self, self._ranks_or_none())

    def save(
        self,
        directory: str | os.PathLike[str],
        *,
        inputs: Sequence[Mapping[str, str]] | None = None,
    ) -> dict[str, Path]:
        """Write ``comparison.json``, ``comparison.shareable.json`` and ``comparison.md``.

        The same files as :meth:`pdpaired.ComparisonReport.save`, written
        the same way (atomically, all or none), holding the ``v2`` artifact
        of every comparison (:meth:`to_artifact`).

        Parameters
        ----------
        directory : str or path-like
            Created if needed.
        inputs : list of dict, optional
            The input files' ``{"path", "sha256"}`` for the local artifact.

        Returns
        -------
        dict
            ``{"local": path, "shareable": path, "markdown": path}``.
        """
        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)

        def dump(art: dict[str, Any]) -> str:
            return json.dumps(art, indent=2, sort_keys=True, ensure_ascii=False,
                              allow_nan=False) + "\n"  # fmt: skip

        texts = {
            "local": (out / "comparison.json", dump(self.to_artifact("local", inputs=inputs))),
            "shareable": (out / "comparison.shareable.json", dump(self.to_artifact("shareable"))),
            "markdown": (out / "comparison.md", self.to_markdown()),
        }
        write_files(out, list(texts.values()))
        return {k: v[0] for k, v in texts.items()}

    def gate(self, fail_on: str) -> tuple[GateResult, ...]:
        """Apply a release gate to every comparison (see :func:`pdpaired.results.gate.gate`).

        ``pdpaired compare ... --baseline B --fail-on ...`` exits with the
        largest exit code: 1 when any comparison fails the gate. Each gate
        reads its comparison's own interval (not adjusted for the others).

        Returns
        -------
        tuple of GateResult
            One per comparison, in order.
        """
        return tuple(gate(r, fail_on) for r in self.comparisons)

    # -- ranks ---------------------------------------------------------------------
    def _effects(self) -> tuple[list[Any], np.ndarray, np.ndarray, np.ndarray]:
        """Each model's effect relative to a reference (direction adjusted), with replicates."""
        ref = self.models[0]
        index = {m: i for i, m in enumerate(self.models)}
        k, n = len(self.models), self.bootstrap_distribution.shape[1]
        est = np.full(k, np.nan)
        reps = np.full((k, n), np.nan)
        metric = np.full(k, np.nan)
        est[0], reps[0] = 0.0, 0.0
        for j, res in enumerate(self.comparisons):
            metric[index[res.a]], metric[index[res.b]] = res.metric_a, res.metric_b
            if res.b == ref:
                est[index[res.a]] = res.improvement
                reps[index[res.a]] = self.bootstrap_distribution[j]
            elif res.a == ref:
                est[index[res.b]] = -res.improvement
                reps[index[res.b]] = -self.bootstrap_distribution[j]
        return list(self.models), est, reps, metric

    def ranks(
        self, *, confidence_level: float | None = None, simultaneous: bool = True
    ) -> RankResult:
        """Confidence sets for each model's rank (1 = best), from the joint bootstrap.

        Simultaneous confidence intervals for every difference between two
        models (a max-t critical value from the joint replicates) decide
        which models are significantly better or worse than each model; its
        rank lies between 1 + (models significantly better) and k -
        (models significantly worse). This is the construction of Mogstad,
        Romano, Shaikh & Wilhelm (2024). With ``simultaneous=True`` (the
        default) all sets hold at once with probability at least
        ``confidence_level`` (asymptotically); with False each set holds for
        its own model.

        Parameters
        ----------
        confidence_level : float, optional
            Default: the intervals' level.
        simultaneous : bool, default True

        Returns
        -------
        RankResult
        """
        level = (
            self.confidence_level
            if confidence_level is None
            else check_confidence_level(confidence_level)
        )
        if not self.same_cases:
            msg = (
                "ranks() needs joint replicates of every comparison on the same cases, but "
                "some comparisons dropped cases (missing='complete-case': use "
                "missing='as-failure' or remove the cases missing for some model first) or "
                "were resampled each on its own (a Dask table of few-valued scores is reduced "
                "to counts per comparison; use the pandas table)."
            )
            raise ValueError(msg)
        models, est, reps, metric = self._effects()
        sets = rank_sets(est, reps, confidence_level=level, simultaneous=bool(simultaneous))
        return RankResult(
            models=tuple(models), metric=self.metric, higher_is_better=self.higher_is_better,
            value=metric, rank=sets.rank, lower=sets.lower, upper=sets.upper,
            confidence_level=level, simultaneous=bool(simultaneous),
            critical_value=sets.critical_value,
        )  # fmt: skip


def _json_value(v: Any) -> Any:
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and not np.isfinite(v):
        return None
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    return str(v)


@dataclass(frozen=True, slots=True, kw_only=True)
class RankResult:
    """Simultaneous (or per-model) confidence sets for the models' ranks; rank 1 is the best.

    Attributes
    ----------
    models : tuple
    metric : str
    higher_is_better : bool
    value : ndarray
        Each model's metric.
    rank : ndarray
        Each model's estimated rank (ties share the best rank).
    lower, upper : ndarray
        The rank confidence set ``{lower, ..., upper}`` of each model.
    confidence_level : float
    simultaneous : bool
    critical_value : float
        The max-t critical value of the simultaneous differences.
    """

    models: tuple[Any, ...]
    metric: str
    higher_is_better: bool
    value: np.ndarray = field(repr=False, compare=False)
    rank: np.ndarray = field(repr=False, compare=False)
    lower: np.ndarray = field(repr=False, compare=False)
    upper: np.ndarray = field(repr=False, compare=False)
    confidence_level: float
    simultaneous: bool
    critical_value: float

    def to_frame(self) -> pd.DataFrame:
        """One row per model, best first: ``model``, ``metric``, ``rank``, ``lower``, ``upper``."""
        frame = pd.DataFrame(
            {
                "model": list(self.models),
                "metric": self.value,
                "rank": self.rank.astype(int),
                "lower": self.lower.astype(int),
                "upper": self.upper.astype(int),
            }
        )
        return frame.sort_values(["rank", "lower", "upper"], kind="stable").reset_index(drop=True)

    def __str__(self) -> str:
        kind = "simultaneous" if self.simultaneous else "per-model"
        lines = [f"{self.confidence_level:.0%} {kind} rank confidence sets ({self.metric}):"]
        for row in self.to_frame().itertuples(index=False):
            lines.append(
                f"  {_label(row.model)}: rank {row.rank}, set {{{row.lower}..{row.upper}}}"
                f"  ({self.metric} {row.metric:.4g})"
            )
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        head = html.escape(str(self).splitlines()[0])
        table = str(self.to_frame().to_html(index=False, escape=True))
        return f"<p>{head}</p>\n{table}"

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-safe dict."""
        return {
            "metric": self.metric,
            "higher_is_better": bool(self.higher_is_better),
            "confidence_level": float(self.confidence_level),
            "simultaneous": bool(self.simultaneous),
            "critical_value": _json_value(float(self.critical_value)),
            "ranks": [
                {k: _json_value(v) for k, v in row.items()}
                for row in self.to_frame().to_dict("records")
            ],
        }

    def plot(self, ax: Any = None) -> Any:
        """Rank plot: each model's rank confidence set as a bar, its estimated rank as a dot.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Default: the current axes (``plt.gca()``).

        Returns
        -------
        matplotlib.axes.Axes
        """
        if ax is None:
            import matplotlib.pyplot as plt

            ax = plt.gca()
        frame = self.to_frame()
        y = np.arange(len(frame))[::-1]
        for yi, row in zip(y, frame.itertuples(index=False), strict=True):
            # the set {lower, ..., upper} as a bar covering its ranks (half a rank each side)
            ax.plot([row.lower - 0.4, row.upper + 0.4], [yi, yi], color="tab:blue", lw=8,
                    alpha=0.35, solid_capstyle="butt")  # fmt: skip
            ax.plot([row.rank], [yi], "o", color="tab:blue")
        ax.set_yticks(y)
        ax.set_yticklabels([_label(m) for m in frame.model])
        k = len(frame)
        ax.set_xticks(np.arange(1, k + 1))
        ax.set_xlim(0.5, k + 0.5)
        ax.set_xlabel("rank (1 = best)")
        kind = "simultaneous" if self.simultaneous else "per-model"
        ax.set_title(f"{self.confidence_level:.0%} {kind} rank confidence sets")
        return ax
