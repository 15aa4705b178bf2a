"""The result of a design audit: how each interval method and test did, and which to trust.

:class:`AuditResult` is what :mod:`pdpaired.core.audit` computes and
:meth:`Comparison.audit <pdpaired.Comparison.audit>` returns: one
:class:`AuditRow` per interval method and per test, the recommended method
and, in words, why.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pandas as pd

from pdpaired._lib.format import jsonable as _jsonable
from pdpaired._lib.format import level_text as _level
from pdpaired._lib.format import plot_text as _plot_text
from pdpaired._lib.public import public
from pdpaired.results.base import ResultBase, with_common_doc
from pdpaired.results.display import plot_axes

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["FRAME_COLUMNS", "AuditResult", "AuditRow", "audit_problems"]

#: The columns of :meth:`AuditResult.to_frame`, in order.
FRAME_COLUMNS = (
    "method", "kind", "coverage", "coverage_se", "mean_width", "size", "size_se", "recommended",
)  # fmt: skip


@dataclass(frozen=True, slots=True, kw_only=True)
class AuditRow:
    """How one interval method (``kind="interval"``) or one test (``kind="test"``) did.

    Attributes
    ----------
    method : str
        The interval method or test (``"randomization"``, ``"exact_binomial"``).
    kind : str
        ``"interval"`` or ``"test"``.
    coverage, coverage_se : float or None
        Intervals: the share of outer resamples whose interval covered the
        observed improvement, and its Monte Carlo standard error
        ``sqrt(p (1 - p) / n_simulations)``; None for a test.
    mean_width : float or None
        Intervals: the mean width of the intervals; None for a test.
    size, size_se : float or None
        Tests: the share of null outer resamples where the test rejected at
        ``1 - confidence_level``, and its Monte Carlo standard error; None
        for an interval.
    recommended : bool
        The interval method to trust on this design (one row at most).
    """

    method: str
    kind: str
    coverage: float | None = None
    coverage_se: float | None = None
    mean_width: float | None = None
    size: float | None = None
    size_se: float | None = None
    recommended: bool = False


@public
@dataclass(frozen=True, slots=True, kw_only=True)
class AuditResult(ResultBase):
    """How well each interval method and test works on this comparison's own design.

    The observed units are the population and the observed improvement the
    truth: ``n_simulations`` outer resamples are drawn with the comparison's
    design and every method's interval is computed on each with
    ``n_resamples`` replicates (see :meth:`Comparison.audit
    <pdpaired.Comparison.audit>`).

    Attributes
    ----------
    {common}
    rows : tuple of AuditRow
        One per interval method, then one per test.
    confidence_level : float
        The nominal coverage of the intervals (tests reject at ``1 - confidence_level``).
    n_simulations : int
        Outer resamples.
    n_resamples : int
        Inner replicates of each interval (and permutations of each test).
    auto_method, auto_reason : str
        The method ``method="auto"`` chooses on this design, and why.
    recommended_method : str
        The interval method to trust. A method keeps its level when its
        coverage is at least the nominal level less two Monte Carlo standard
        errors (of a coverage at the nominal level). The method ``"auto"``
        chooses when it keeps its level; else the narrowest on average of
        those that do; when none does, the one that covered most.
    recommended_reason : str
        Why, in one sentence.
    engine : str
        Resampling engine of the inner bootstraps.

    Examples
    --------
    >>> import pdpaired
    >>> from pdpaired.datasets import load_digits_cv
    >>> cmp = load_digits_cv().paired(score="correct").compare(
    ...     "knn", "logreg", higher_is_better=True)
    >>> audit = cmp.audit(n_simulations=20, n_resamples=199, rng=0)
    >>> frame = audit.to_frame()
    >>> frame.loc[frame["kind"] == "interval", "method"].tolist()
    ['percentile', 'basic', 'bca', 'studentized', 'tango', 'newcombe']
    >>> int(frame["recommended"].sum()), audit.recommended_method in set(frame["method"])
    (1, True)
    """

    rows: tuple[AuditRow, ...] = field(compare=False)
    confidence_level: float
    n_simulations: int
    n_resamples: int
    auto_method: str
    auto_reason: str = field(repr=False)
    recommended_method: str
    recommended_reason: str = field(repr=False)
    engine: str = field(repr=False, compare=False)

    _title = "Design audit"

    def __repr__(self) -> str:
        return (
            f"AuditResult(a={self.a!r}, b={self.b!r}, metric={self.metric!r}, "
            f"improvement={self.improvement:.6g}, methods={[r.method for r in self.rows]!r}, "
            f"recommended_method={self.recommended_method!r}, auto_method={self.auto_method!r}, "
            f"n_simulations={self.n_simulations}, n_resamples={self.n_resamples}, "
            f"sampling={self.sampling!r}, seed={self.seed!r}, stream={self.stream!r})"
        )

    def _headline(self) -> str | None:
        return self.headline()

    def headline(self) -> str:
        """Return, in one sentence, which method to trust on this design and why."""
        text = f"Trust {self.recommended_method} on this design: {self.recommended_reason}."
        if self.auto_method != self.recommended_method:
            auto = self._row(self.auto_method)
            cov = (
                ""
                if auto is None or auto.coverage is None
                else (f" (it covered {100 * auto.coverage:.1f}%)")
            )
            text += (
                f" method='auto' chooses {self.auto_method}{cov}; pass "
                f"method={self.recommended_method!r} to use the audited one."
            )
        return text

    def _row(self, method: str) -> AuditRow | None:
        return next((r for r in self.rows if r.method == method), None)

    def _rows(self) -> list[tuple[str, str]]:
        rows = self._head_rows()
        rows.append(
            (
                "Audit",
                f"{self.n_simulations} simulations of this design (the observed improvement as "
                f"the truth), {self.n_resamples} resamples each, {self._seed_text()}",
            )
        )
        level = _level(self.confidence_level)
        for r in self.rows:
            if r.kind == "interval":
                assert r.coverage is not None
                assert r.coverage_se is not None
                mark = "   <- recommended" if r.recommended else ""
                rows.append(
                    (
                        f"{r.method} interval",
                        f"coverage {r.coverage:.3f} +/- {r.coverage_se:.3f} (nominal {level}), "
                        f"mean width {r.mean_width:.4g}{mark}",
                    )
                )
            else:
                assert r.size is not None
                assert r.size_se is not None
                rows.append(
                    (
                        f"{r.method} test",
                        f"size {r.size:.3f} +/- {r.size_se:.3f} "
                        f"(nominal {1.0 - self.confidence_level:.3g})",
                    )
                )
        rows.append(("Auto", f"{self.auto_method}: {self.auto_reason}"))
        rows += self._tail_rows()
        return rows

    def _extra_dict(self) -> dict[str, Any]:
        return {
            "confidence_level": self.confidence_level,
            "n_simulations": self.n_simulations,
            "n_resamples": self.n_resamples,
            "auto_method": self.auto_method,
            "auto_reason": self.auto_reason,
            "recommended_method": self.recommended_method,
            "recommended_reason": self.recommended_reason,
            "engine": self.engine,
            "rows": [{k: getattr(r, k) for k in FRAME_COLUMNS} for r in self.rows],
        }

    def artifact_block(self) -> dict[str, Any]:
        """Return the ``audit`` block of the local artifact (aggregates only)."""
        out: dict[str, Any] = _jsonable({
            "confidence_level": self.confidence_level,
            "n_simulations": self.n_simulations,
            "n_resamples": self.n_resamples,
            "seed": self.seed,
            "stream": self.stream,
            "auto_method": self.auto_method,
            "recommended_method": self.recommended_method,
            "recommended_reason": self.recommended_reason,
            "rows": self.table(),
        })  # fmt: skip
        return out

    def table(self) -> list[dict[str, Any]]:
        """Return the rows as JSON-safe dicts (the columns of :meth:`to_frame`)."""
        out: list[dict[str, Any]] = _jsonable(
            [{k: getattr(r, k) for k in FRAME_COLUMNS} for r in self.rows]
        )
        return out

    def to_frame(self) -> pd.DataFrame:
        """Return one row per interval method and per test.

        Columns ``method``, ``kind``, ``coverage``, ``coverage_se``,
        ``mean_width`` (intervals), ``size``, ``size_se`` (tests) and
        ``recommended``; what does not apply to a row is missing (NaN).
        """
        frame = pd.DataFrame(self.table(), columns=list(FRAME_COLUMNS))
        for col in ("coverage", "coverage_se", "mean_width", "size", "size_se"):
            frame[col] = frame[col].astype("float64")
        frame["recommended"] = frame["recommended"].astype(bool)
        return frame

    def plot(self, ax: Axes | None = None) -> Axes:
        """Coverage of each interval method with +/- 2 Monte Carlo SE, against the nominal level.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Axes to draw on; pyplot's current Axes (``plt.gca()``) when None.

        Returns
        -------
        matplotlib.axes.Axes
        """
        ax = plot_axes(ax)
        rows = [r for r in self.rows if r.kind == "interval"]
        ys = list(range(len(rows)))[::-1]
        for y, r in zip(ys, rows, strict=True):
            assert r.coverage is not None
            assert r.coverage_se is not None
            color = "C2" if r.recommended else "C0"
            ax.errorbar(r.coverage, y, xerr=2.0 * r.coverage_se, fmt="o", color=color,
                        capsize=3)  # fmt: skip
        ax.axvline(self.confidence_level, color="k", lw=1, ls="--",
                   label=f"nominal {_level(self.confidence_level)}")  # fmt: skip
        ax.set_yticks(ys)
        ax.set_yticklabels([_plot_text(r.method) for r in rows])
        ax.set_xlabel("coverage of the observed improvement (+/- 2 Monte Carlo SE)")
        ax.set_title(_plot_text(f"Design audit ({self.sampling}): trust {self.recommended_method}"))
        ax.legend(loc="best", fontsize="small")
        return ax


with_common_doc(AuditResult)


def audit_problems(block: dict[str, Any]) -> list[str]:
    """Check an artifact's ``audit`` block against itself.

    What holds whatever the data were: each row has the numbers of its kind
    and only those; a coverage or size is a count of the ``n_simulations``
    outer resamples, and its standard error is ``sqrt(p (1 - p) / S)``; the
    methods are distinct; exactly one interval row is recommended, and it is
    ``recommended_method``.
    """
    out: list[str] = []
    s = block["n_simulations"]
    rows = block["rows"]
    methods = [r["method"] for r in rows]
    if len(set(methods)) != len(methods):
        out.append(f"audit: a method appears twice in its rows: {methods}")
    own = {"interval": ("coverage", "coverage_se", "mean_width"), "test": ("size", "size_se")}
    for r in rows:
        want = own[r["kind"]]
        other = [k for keys in own.values() for k in keys if k not in want]
        if any(r[k] is None for k in want) or any(r[k] is not None for k in other):
            out.append(f"audit: row {r['method']!r} ({r['kind']}) must hold {', '.join(want)} only")
            continue
        p, se = (r["coverage"], r["coverage_se"]) if r["kind"] == "interval" else (
            r["size"], r["size_se"])  # fmt: skip
        if abs(p * s - round(p * s)) > 1e-6:
            out.append(f"audit: row {r['method']!r}: {p!r} is not a share of {s} simulations")
        if not math.isclose(se, math.sqrt(p * (1.0 - p) / s), rel_tol=1e-9, abs_tol=1e-12):
            out.append(f"audit: row {r['method']!r}: standard error {se!r} is not sqrt(p(1-p)/S)")
    chosen = [r["method"] for r in rows if r["recommended"]]
    if chosen != [block["recommended_method"]] or any(
        r["recommended"] and r["kind"] != "interval" for r in rows
    ):
        out.append(
            f"audit: recommended_method {block['recommended_method']!r} must be the one "
            f"recommended interval row; recommended rows: {chosen}"
        )
    return out
