"""Prediction-mode metrics: built-in corpus metrics and custom :class:`Metric`.

The public home of the metrics; the implementation lives in the statistics
core.
"""

from __future__ import annotations

from pdpaired._lib.public import rehome
from pdpaired.core.metrics import BUILTIN, TASK_METRICS, Metric, auc_batch, auc_counts, auc_order

__all__ = ["BUILTIN", "TASK_METRICS", "Metric", "auc_batch", "auc_counts", "auc_order"]

rehome(globals(), __all__, "pdpaired.metrics")
del rehome
