"""pdpaired: honest paired comparison of two models, as a pandas accessor.

``import pdpaired`` registers ``DataFrame.paired``::

    import pdpaired
    res = df.paired.bootstrap("candidate", "baseline", higher_is_better=True, rng=0)
    print(res)
"""

from __future__ import annotations

from pdpaired._errors import (
    ArtifactError,
    DegenerateDataWarning,
    IndependenceWarning,
    PairingError,
)
from pdpaired._version import __version__
from pdpaired.accessor import PairedAccessor
from pdpaired.comparison import Comparison
from pdpaired.metrics import Metric
from pdpaired.plan_result import PlanResult
from pdpaired.prediction import from_tables
from pdpaired.report import ComparisonReport, verify
from pdpaired.results import (
    BootstrapResult,
    ConfidenceInterval,
    ExactBinomialResult,
    MissingSummary,
    RandomizationResult,
)
from pdpaired.sensitivity_result import SensitivityResult
from pdpaired.sequence_result import SequenceResult
from pdpaired.sequential import Monitor
from pdpaired.slices import SliceResult

__all__ = [
    "ArtifactError",
    "BootstrapResult",
    "Comparison",
    "ComparisonReport",
    "ConfidenceInterval",
    "DegenerateDataWarning",
    "ExactBinomialResult",
    "IndependenceWarning",
    "Metric",
    "MissingSummary",
    "Monitor",
    "PairedAccessor",
    "PairingError",
    "PlanResult",
    "RandomizationResult",
    "SensitivityResult",
    "SequenceResult",
    "SliceResult",
    "__version__",
    "from_tables",
    "verify",
]
