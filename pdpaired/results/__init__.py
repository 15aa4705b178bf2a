"""Result objects: frozen dataclasses with text, HTML, dict and frame views, and the verdict rules.

One module per family of results, named as the module of :mod:`pdpaired.core`
that computes it (``bootstrap``, ``randomization``, ``exact_binomial``,
``delong``, ...); what they share sits beside them: ``base`` (the provenance
fields and the views), ``verdict`` (the verdict rules), ``missing`` (the
missing-outcome summary) and ``display`` (HTML and plot helpers). The public
classes are exported from :mod:`pdpaired` itself.
"""

from __future__ import annotations

import importlib
import sys
import warnings
from typing import Any

#: Names of the former ``pdpaired.results`` module, and where each lives now.
_MOVED = {
    "BootstrapResult": "pdpaired.results.bootstrap",
    "ConfidenceInterval": "pdpaired.results.base",
    "DeLongResult": "pdpaired.results.delong",
    "ExactBinomialResult": "pdpaired.results.exact_binomial",
    "MissingSummary": "pdpaired.results.missing",
    "Provenance": "pdpaired.results.base",
    "RandomizationResult": "pdpaired.results.randomization",
    "VerifiedArtifact": "pdpaired.results.verified",
}


def __getattr__(name: str) -> Any:
    """Forward the former ``pdpaired.results.<name>`` with a ``DeprecationWarning``."""
    if name not in _MOVED:
        msg = f"module 'pdpaired.results' has no attribute {name!r}"
        raise AttributeError(msg)
    home = "pdpaired" if name in getattr(sys.modules["pdpaired"], "__all__", ()) else _MOVED[name]
    warnings.warn(
        f"`pdpaired.results.{name}` has moved: import it from `{home}` "
        "(the old path will be removed in the next release).",
        DeprecationWarning,
        stacklevel=2,
    )
    return getattr(importlib.import_module(_MOVED[name]), name)
