"""Read the per-case results of evaluation harnesses into pdpaired's long table.

``read_lm_eval`` reads lm-evaluation-harness sample logs and ``read_inspect``
reads inspect_ai logs; both return a long table ``(case, model, score, ...)``
ready for ``DataFrame.paired``.
"""

from __future__ import annotations

from pdpaired.io.readers import inspect_value_to_float, read_inspect, read_lm_eval

__all__ = ["inspect_value_to_float", "read_inspect", "read_lm_eval"]
