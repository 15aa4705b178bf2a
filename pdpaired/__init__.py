"""pdpaired: honest paired comparison of two models, as a pandas accessor.

``import pdpaired`` registers ``DataFrame.paired``::

    import pdpaired
    res = df.paired.bootstrap("candidate", "baseline", higher_is_better=True, rng=0)
    print(res)
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from pdpaired._lib import compat
from pdpaired._lib.after_import import after_import
from pdpaired._lib.errors import (
    ArtifactError,
    DegenerateDataWarning,
    IndependenceWarning,
    PairingError,
)
from pdpaired._lib.public import rehome
from pdpaired._version import __version__
from pdpaired.accessor import PairedAccessor

if TYPE_CHECKING:
    from pdpaired import io
    from pdpaired.analysis.comparison import Comparison
    from pdpaired.analysis.multi_result import MultiResult
    from pdpaired.analysis.prediction import from_tables
    from pdpaired.analysis.suite_result import SuiteResult
    from pdpaired.artifacts.report import ComparisonReport
    from pdpaired.artifacts.verify import sign, verify
    from pdpaired.core.metrics import Metric
    from pdpaired.core.sequential import Monitor
    from pdpaired.results.audit import AuditResult
    from pdpaired.results.base import ConfidenceInterval
    from pdpaired.results.bootstrap import BootstrapResult
    from pdpaired.results.crossed import CrossedComponents, CrossedSummary
    from pdpaired.results.delong import DeLongResult
    from pdpaired.results.exact_binomial import ExactBinomialResult
    from pdpaired.results.gate import GateResult
    from pdpaired.results.missing import MissingSummary
    from pdpaired.results.multi import RankResult
    from pdpaired.results.planning import PlanResult
    from pdpaired.results.randomization import RandomizationResult
    from pdpaired.results.repeats import RunSummary, VarianceComponents
    from pdpaired.results.selection import SelectionResult
    from pdpaired.results.sensitivity import SensitivityResult
    from pdpaired.results.sequential import SequenceResult
    from pdpaired.results.slices import SliceResult
    from pdpaired.results.split import SplitResult
    from pdpaired.results.verified import VerifiedArtifact

#: The names loaded on first use, and the module that defines each (marked
#: ``@public`` there, so they show as ``pdpaired.<name>`` however they are reached).
_ON_FIRST_USE = {
    "AuditResult": "pdpaired.results.audit",
    "BootstrapResult": "pdpaired.results.bootstrap",
    "Comparison": "pdpaired.analysis.comparison",
    "ComparisonReport": "pdpaired.artifacts.report",
    "ConfidenceInterval": "pdpaired.results.base",
    "CrossedComponents": "pdpaired.results.crossed",
    "CrossedSummary": "pdpaired.results.crossed",
    "DeLongResult": "pdpaired.results.delong",
    "ExactBinomialResult": "pdpaired.results.exact_binomial",
    "GateResult": "pdpaired.results.gate",
    "Metric": "pdpaired.core.metrics",
    "MissingSummary": "pdpaired.results.missing",
    "Monitor": "pdpaired.core.sequential",
    "MultiResult": "pdpaired.analysis.multi_result",
    "PlanResult": "pdpaired.results.planning",
    "RandomizationResult": "pdpaired.results.randomization",
    "RankResult": "pdpaired.results.multi",
    "RunSummary": "pdpaired.results.repeats",
    "SelectionResult": "pdpaired.results.selection",
    "SensitivityResult": "pdpaired.results.sensitivity",
    "SequenceResult": "pdpaired.results.sequential",
    "SliceResult": "pdpaired.results.slices",
    "SuiteResult": "pdpaired.analysis.suite_result",
    "SplitResult": "pdpaired.results.split",
    "VarianceComponents": "pdpaired.results.repeats",
    "VerifiedArtifact": "pdpaired.results.verified",
    "from_tables": "pdpaired.analysis.prediction",
    "io": "pdpaired.io",
    "metrics": "pdpaired.metrics",
    "sign": "pdpaired.artifacts.verify",
    "verify": "pdpaired.artifacts.verify",
}

__all__ = [
    "ArtifactError",
    "AuditResult",
    "BootstrapResult",
    "Comparison",
    "ComparisonReport",
    "ConfidenceInterval",
    "CrossedComponents",
    "CrossedSummary",
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
    "SelectionResult",
    "SensitivityResult",
    "SequenceResult",
    "SliceResult",
    "SplitResult",
    "SuiteResult",
    "VarianceComponents",
    "VerifiedArtifact",
    "__version__",
    "from_tables",
    "io",
    "metrics",
    "sign",
    "verify",
]


def __getattr__(name: str) -> Any:
    """Load a public name on first use (PEP 562): ``import pdpaired`` loads only the accessor."""
    home = _ON_FIRST_USE.get(name)
    if home is None:
        msg = f"module 'pdpaired' has no attribute {name!r}"
        raise AttributeError(msg)
    module = importlib.import_module(home)
    value = module if name in ("io", "metrics") else getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


compat.install()
# pl.DataFrame.paired / pl.LazyFrame.paired: registered when polars is imported, before or
# after pdpaired; importing polars here would about double the time of `import pdpaired`
after_import("polars", "pdpaired.polars")
rehome(globals(), [name for name in __all__ if name not in _ON_FIRST_USE])
del after_import, compat, rehome
