"""How a :class:`~pdpaired.Comparison` shows itself before any statistic: repr and HTML.

``repr(cmp)`` names the models, the measure, the design columns and the
backend (:func:`comparison_repr`); in Jupyter the comparison shows a small
table of the same facts and the analyses to run next (:func:`comparison_html`).
Both read the comparison's pairs and measure only.
"""

from __future__ import annotations

from pdpaired.analysis.bootstrap import score_column
from pdpaired.analysis.measures import Measure
from pdpaired.pairs.backend import PairsBackend
from pdpaired.results.base import metric_label
from pdpaired.results.display import html_table

__all__ = ["comparison_html", "comparison_repr"]


def comparison_repr(pairs: PairsBackend, measure: Measure) -> str:
    """Return ``Comparison(a=..., b=..., metric=..., n_cases=...)`` with the design columns."""
    cols = pairs.columns
    extra = "".join(
        f", {k}={v!r}" for k, v in (("group", cols.group), ("stratum", cols.stratum)) if v
    )
    column = score_column(cols)
    score = "" if column is None else f", score={column!r}"
    task = "" if measure.task == "score" else f", task={measure.task!r}"
    return (
        f"Comparison(a={pairs.a!r}, b={pairs.b!r}, {measure.describe()}{score}{task}, "
        f"n_cases={pairs.n_cases}{extra}{pairs.describe()})"
    )


def comparison_html(pairs: PairsBackend, measure: Measure) -> str:
    """Return the HTML table of a comparison (models, metric, task, cases, missing outputs)."""
    cols = pairs.columns
    arrow = "higher is better" if measure.higher_is_better else "lower is better"
    design = ", ".join(f"{k} {v!r}" for k, v in (("group", cols.group),
                                                 ("stratum", cols.stratum)) if v)  # fmt: skip
    rows = [
        ("Model A (candidate)", str(pairs.a)),
        ("Model B (reference)", str(pairs.b)),
        ("Metric", f"{metric_label(measure.name, score_column(cols))} ({arrow})"),
        ("Task", measure.task),
        ("Cases", f"{pairs.n_cases} paired" + (f"; {design}" if design else "")),
        ("Missing outcomes", pairs.missing.describe()),
        ("Next", ".bootstrap(), .randomization(), .by_slice(...), .report()"),
    ]
    return html_table("Paired comparison (no statistic computed yet)", rows)
