"""pdpaired: honest paired comparison of two models, as a pandas accessor.

``import pdpaired`` registers ``DataFrame.paired``::

    import pdpaired
    res = df.paired.bootstrap("candidate", "baseline", higher_is_better=True, rng=0)
    print(res)
"""

from __future__ import annotations

from pdpaired import io
from pdpaired._errors import (
    ArtifactError,
    DegenerateDataWarning,
    IndependenceWarning,
    PairingError,
)
from pdpaired._version import __version__
from pdpaired.accessor import PairedAccessor
from pdpaired.comparison import Comparison
from pdpaired.gate import GateResult
from pdpaired.metrics import Metric
from pdpaired.multi import MultiResult, RankResult
from pdpaired.plan_result import PlanResult
from pdpaired.prediction import from_tables
from pdpaired.repeat_result import RunSummary, VarianceComponents
from pdpaired.report import ComparisonReport, verify
from pdpaired.results import (
    BootstrapResult,
    ConfidenceInterval,
    DeLongResult,
    ExactBinomialResult,
    MissingSummary,
    RandomizationResult,
    VerifiedArtifact,
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
    "DeLongResult",
    "DegenerateDataWarning",
    "ExactBinomialResult",
    "GateResult",
    "IndependenceWarning",
    "Metric",
    "MissingSummary",
    "Monitor",
    "MultiResult",
    "PairedAccessor",
    "PairingError",
    "PlanResult",
    "RandomizationResult",
    "RankResult",
    "RunSummary",
    "SensitivityResult",
    "SequenceResult",
    "SliceResult",
    "VarianceComponents",
    "VerifiedArtifact",
    "__version__",
    "from_tables",
    "io",
    "verify",
]
