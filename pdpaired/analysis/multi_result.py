"""The result of several comparisons from one joint bootstrap: :class:`MultiResult`.

:func:`pdpaired.analysis.multi.compare_many` fills it. Besides its frame,
text, HTML, dict and plot views it turns the joint replicates into rank
confidence sets (:meth:`MultiResult.ranks`, by :mod:`pdpaired.core.multi`)
and writes the ``paired-comparison-artifact/v2`` artifact and its Markdown
(built by :mod:`pdpaired.artifacts.multi`), which is why it sits above the
results layer; the rank sets it returns, :class:`~pdpaired.RankResult`, are
in :mod:`pdpaired.results.multi`.
"""

from __future__ import annotations

import html
import json
import os
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from pdpaired._lib.errors import DegenerateDataWarning, find_stack_level
from pdpaired._lib.public import public
from pdpaired._lib.validation import check_confidence_level
from pdpaired.analysis.comparison import Comparison
from pdpaired.artifacts.digests import content_digest, frame_sha256, ids_sha256, software_versions
from pdpaired.artifacts.html import multi_html
from pdpaired.artifacts.multi import artifact_body, multi_markdown
from pdpaired.artifacts.write import write_files
from pdpaired.core.bootstrap import SMALL_SAMPLE_SAMPLINGS
from pdpaired.core.multi import few_ranked_units_message, rank_sets
from pdpaired.results.bootstrap import BootstrapResult
from pdpaired.results.gate import GateResult, gate
from pdpaired.results.html_report import write_html
from pdpaired.results.multi import RankResult, json_value, label

__all__ = ["MultiResult", "design_df"]


def design_df(first: BootstrapResult, task: str) -> tuple[float | None, float]:
    """Return the design degrees of freedom and the factor that unbiases the bootstrap variance.

    ``G - H`` for ``G`` resampling units in ``H`` strata. The small-sample
    correction of a score-mode stratified or cluster design (Rao-Wu)
    already removes the bootstrap's ``(G_h - 1) / G_h`` bias of the
    variance; elsewhere (independent cases, prediction mode) the factor
    ``G / (G - H)`` does. The rank sets and the simultaneous intervals of
    several comparisons read their max-t critical value with them.
    """
    units = first.n_groups if first.unit == "group" and first.n_groups else first.n_cases
    df = units - (first.n_strata or 1)
    if df <= 0:
        return None, 1.0
    rescaled = task == "score" and first.sampling in SMALL_SAMPLE_SAMPLINGS
    return float(df), 1.0 if rescaled else units / df


def _fmt(x: float) -> str:
    return f"{x:+.4g}" if np.isfinite(x) else "nan"


@public
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
        One per comparison (A over B). With ``simultaneous=False`` each
        equals the two-model ``bootstrap(a, b, ...)`` with the same seed;
        with ``simultaneous=True`` each keeps that call's estimate and
        replicates but its interval (``method="max-t"``), the interval's
        Monte Carlo error, decisions and verdict are the simultaneous
        band's.
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
    simultaneous : bool
        True when the intervals cover every comparison at once with
        ``confidence_level`` (the max-t band of the joint replicates,
        :func:`pdpaired.core.multi.simultaneous_band`; with one comparison
        its own interval already does); False when each interval is its
        comparison's own.
    critical_value : float or None
        The band's half-width of every interval in its comparison's
        bootstrap standard errors (None without a band: one comparison, or
        ``simultaneous=False``).
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
    simultaneous: bool = False
    critical_value: float | None = None
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
        """The intervals' confidence level: of all at once when :attr:`simultaneous`."""
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
            f"adjust={self.adjust!r}, simultaneous={self.simultaneous!r}, seed={self.seed!r})"
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
            f"{len(self)} models against baseline {label(self.baseline)}"
            if self.kind == "against"
            else f"all {len(self)} pairs of {len(self.models)} models"
        )
        adj = "unadjusted" if self.adjust is None else f"{self.adjust}-adjusted"
        kind = "simultaneous" if self.simultaneous else "per-comparison"
        return (
            f"{self.metric} ({'higher' if self.higher_is_better else 'lower'} is better): "
            f"{what}; {self.confidence_level:.0%} {kind} paired bootstrap intervals "
            f"({self.method}, {self.n_resamples} resamples, seed {self.seed}, one joint "
            f"resampling), p-values {adj} across comparisons"
        )

    @property
    def method(self) -> str:
        """The comparisons' interval method, or their methods joined by "/" where they differ.

        With ``method="auto"`` each comparison's own design chooses (its
        ``method_reason`` says why), so a skewed comparison may get the
        bootstrap-t beside percentile intervals. With ``simultaneous=True``
        (and more than one comparison) it is ``"max-t"``: the simultaneous
        band replaced each comparison's interval, whatever ``method`` was
        asked for (each comparison's ``method_reason`` names the one it
        replaced).
        """
        seen: list[str] = []
        for c in self.comparisons:
            if c.method not in seen:
                seen.append(c.method)
        return "/".join(seen)

    def __str__(self) -> str:
        frame = self.to_frame()
        lines = [self._headline()]
        width = max(len(f"{label(a)} vs {label(b)}") for a, b in zip(frame.a, frame.b, strict=True))
        for row in frame.itertuples(index=False):
            name = f"{label(row.a)} vs {label(row.b)}".ljust(width)
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
            entry = {k: json_value(v) for k, v in row.items()}
            entry["n_cases"] = int(res.n_cases)
            entry["n_valid"] = int(res.n_valid)
            entry["missing"] = res.missing.to_dict()
            comps.append(entry)
        out = {
            "kind": self.kind,
            "baseline": json_value(self.baseline),
            "models": [json_value(m) for m in self.models],
            "metric": self.metric,
            "higher_is_better": bool(self.higher_is_better),
            "confidence_level": float(self.confidence_level),
            "method": self.method,
            "n_resamples": int(self.n_resamples),
            "seed": self.seed,
            "stream": self.stream,
            "adjust": self.adjust,
            "simultaneous": bool(self.simultaneous),
            "critical_value": None
            if self.critical_value is None
            else json_value(float(self.critical_value)),
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
            [f"{label(a)} vs {label(b)}" for a, b in zip(frame.a, frame.b, strict=True)]
        )
        ax.set_xlabel(f"improvement in {self.metric} (positive: A better)")
        kind = "simultaneous" if self.simultaneous else "per-comparison"
        ax.set_title(f"{self.confidence_level:.0%} {kind} paired bootstrap intervals")
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
            given = [{str(k): v if isinstance(v, (list, dict)) else str(v)
                      for k, v in x.items()} for x in inputs]  # fmt: skip
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

    def to_html(self, path: str | os.PathLike[str] | None = None) -> str:
        """Return every comparison as one self-contained HTML page; write it to ``path`` if given.

        As :meth:`pdpaired.ComparisonReport.to_html`: no network, no script,
        plots inline as SVG; the verdicts first in words, then the forest
        plot and table of the comparisons, the rank sets (when the
        comparisons share their cases), and the provenance with how to
        verify (the shareable ``v2`` artifact itself). It holds only what
        the shareable artifact holds, with every label escaped.

        Parameters
        ----------
        path : str or path-like, optional
            Write the page here, atomically; its directory must exist.

        Returns
        -------
        str
            The HTML document.

        Examples
        --------
        >>> from pdpaired.datasets import load_digits_models
        >>> res = load_digits_models().paired(score="correct").against(
        ...     "logreg", higher_is_better=True, rng=0, n_resamples=500)
        >>> page = res.to_html()
        >>> page.startswith("<!DOCTYPE html>"), "<script" in page, "Against the baseline" in page
        (True, False, True)
        """
        return write_html(multi_html(self), path)

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
        reads its comparison's interval: the simultaneous one when
        :attr:`simultaneous` (the default), else its own.

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

    def _design_df(self) -> tuple[float | None, float]:
        """Return the design degrees of freedom and variance factor (:func:`design_df`)."""
        return design_df(self.comparisons[0], self.task)

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
        its own model. A small-sample correction reads the critical value's
        tail level on Student's t with the design's degrees of freedom (see
        :func:`pdpaired.core.multi.rank_sets`); below 20 of them the sets
        still cover a little under their level, and a
        ``DegenerateDataWarning`` says so.

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
        df, factor = self._design_df()
        few = few_ranked_units_message(df)
        if few is not None:
            warnings.warn(few, DegenerateDataWarning, stacklevel=find_stack_level())
        sets = rank_sets(
            est, reps, confidence_level=level, simultaneous=bool(simultaneous),
            df=df, variance_factor=factor,
        )  # fmt: skip
        return RankResult(
            models=tuple(models), metric=self.metric, higher_is_better=self.higher_is_better,
            value=metric, rank=sets.rank, lower=sets.lower, upper=sets.upper,
            confidence_level=level, simultaneous=bool(simultaneous),
            critical_value=sets.critical_value,
        )  # fmt: skip
