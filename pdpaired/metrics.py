"""Corpus metrics: the built-ins, custom :class:`Metric`, and statistics metrics.

The public home of the metrics; the implementation lives in the statistics
core. Prediction mode's built-ins are named by string (``metric="auroc"``);
the statistics metrics are built by a function, since they name the
per-case columns they read:

* :func:`ratio` -- ``Σ numerator / Σ denominator``;
* :func:`micro_f1` -- micro-F1 from per-case TP / FP / FN counts;
* :func:`bleu`, :func:`chrf`, :func:`ter` -- sacrebleu's corpus scores from
  the per-segment statistics :func:`pdpaired.io.read_sacrebleu` extracts.
"""

from __future__ import annotations

from pdpaired._lib.public import rehome
from pdpaired.core.metrics import BUILTIN, TASK_METRICS, Metric, auc_batch, auc_counts, auc_order
from pdpaired.core.statistics import bleu, chrf, micro_f1, ratio, ter

__all__ = [
    "BUILTIN",
    "TASK_METRICS",
    "Metric",
    "auc_batch",
    "auc_counts",
    "auc_order",
    "bleu",
    "chrf",
    "micro_f1",
    "ratio",
    "ter",
]

rehome(globals(), __all__, "pdpaired.metrics")
del rehome
