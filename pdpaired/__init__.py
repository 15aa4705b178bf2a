"""pdpaired: honest paired comparison of two models, as a pandas accessor.

``import pdpaired`` registers ``DataFrame.paired``::

    import pdpaired
    res = df.paired.bootstrap("candidate", "baseline", higher_is_better=True, rng=0)
    print(res)
"""

from __future__ import annotations

from pdpaired import io
from pdpaired._lib import compat
from pdpaired._lib.errors import (
    ArtifactError,
    DegenerateDataWarning,
    IndependenceWarning,
    PairingError,
)
from pdpaired._lib.public import rehome
from pdpaired._version import __version__
from pdpaired.accessor import PairedAccessor
from pdpaired.analysis.comparison import Comparison
from pdpaired.analysis.multi_result import MultiResult
from pdpaired.analysis.prediction import from_tables
from pdpaired.artifacts.report import ComparisonReport
from pdpaired.artifacts.verify import verify
from pdpaired.core.metrics import Metric
from pdpaired.core.sequential import Monitor
from pdpaired.results.base import ConfidenceInterval
from pdpaired.results.bootstrap import BootstrapResult
from pdpaired.results.delong import DeLongResult
from pdpaired.results.exact_binomial import ExactBinomialResult
from pdpaired.results.gate import GateResult
from pdpaired.results.missing import MissingSummary
from pdpaired.results.multi import RankResult
from pdpaired.results.planning import PlanResult
from pdpaired.results.randomization import RandomizationResult
from pdpaired.results.repeats import RunSummary, VarianceComponents
from pdpaired.results.sensitivity import SensitivityResult
from pdpaired.results.sequential import SequenceResult
from pdpaired.results.slices import SliceResult
from pdpaired.results.verified import VerifiedArtifact

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

compat.install()
rehome(globals(), __all__)
del compat, rehome
