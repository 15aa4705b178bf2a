"""Old import paths, kept working for one release with a ``DeprecationWarning``.

pdpaired's modules once sat in one flat folder (``pdpaired.comparison``,
``pdpaired.bootstrap``, ...). They now live in layer subpackages. A finder on
:data:`sys.meta_path` answers the old names with a thin module that forwards
every attribute to the new home and warns, naming the new path, the first
time the caller reads a name through it. The public names themselves are
importable from :mod:`pdpaired` directly, which is the path to use.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
import warnings
from typing import Any

__all__ = ["MOVED", "install"]

#: Old flat module -> the modules its public names live in now, searched in order
#: (public-looking names only; the private ``pdpaired._x`` modules were never a
#: documented path).
MOVED: dict[str, tuple[str, ...]] = {
    "pdpaired.artifact_checks": ("pdpaired.artifacts.checks",),
    "pdpaired.backend": ("pdpaired.pairs.backend", "pdpaired.pairs.pandas.backend",
                         "pdpaired.results.slices"),
    "pdpaired.bootstrap": ("pdpaired.core.bootstrap",),
    "pdpaired.comparison": ("pdpaired.analysis.comparison", "pdpaired.analysis.bootstrap",
                            "pdpaired.analysis.make", "pdpaired.analysis.exact_binomial",
                            "pdpaired.analysis.delong"),
    "pdpaired.delong": ("pdpaired.core.delong",),
    "pdpaired.exact_binomial": ("pdpaired.core.exact_binomial",),
    "pdpaired.gate": ("pdpaired.results.gate",),
    "pdpaired.joint": ("pdpaired.core.multi",),
    "pdpaired.measures": ("pdpaired.analysis.measures", "pdpaired.analysis.measures.mean"),
    "pdpaired.monitoring": ("pdpaired.analysis.sequential",),
    "pdpaired.multi": ("pdpaired.analysis.multi", "pdpaired.analysis.multi_result",
                       "pdpaired.results.multi"),
    "pdpaired.multi_artifact": ("pdpaired.artifacts.multi",),
    "pdpaired.paired_proportions": ("pdpaired.core.paired_proportions",),
    "pdpaired.pairing": ("pdpaired.pairs.pandas.pairing", "pdpaired.pairs.columns",
                         "pdpaired.pairs.checks", "pdpaired.pairs.rules",
                         "pdpaired._lib.validation"),
    "pdpaired.plan_result": ("pdpaired.results.planning",),
    "pdpaired.planning": ("pdpaired.core.planning",),
    "pdpaired.power": ("pdpaired.analysis.planning",),
    "pdpaired.prediction": ("pdpaired.analysis.prediction", "pdpaired.analysis.measures.corpus"),
    "pdpaired.randomization": ("pdpaired.core.randomization",),
    "pdpaired.repeat_analysis": ("pdpaired.analysis.repeats",
                                 "pdpaired.analysis.measures.two_stage"),
    "pdpaired.repeat_result": ("pdpaired.results.repeats",),
    "pdpaired.repeats": ("pdpaired.pairs.repeats",),
    "pdpaired.report": ("pdpaired.artifacts.report", "pdpaired.artifacts.verify",
                        "pdpaired.artifacts.digests", "pdpaired.artifacts.write",
                        "pdpaired.analysis.report"),
    "pdpaired.rules": ("pdpaired.pairs.rules",),
    "pdpaired.sensitivity": ("pdpaired.analysis.sensitivity", "pdpaired.results.sensitivity"),
    "pdpaired.sensitivity_result": ("pdpaired.results.sensitivity",),
    "pdpaired.sequence_result": ("pdpaired.results.sequential",),
    "pdpaired.sequential": ("pdpaired.core.sequential",),
    "pdpaired.slices": ("pdpaired.analysis.slices", "pdpaired.results.slices",
                        "pdpaired.core.multiplicity", "pdpaired.core.slices"),
    "pdpaired.two_stage": ("pdpaired.core.repeats",),
}  # fmt: skip


def _forwarding_module(old: str, homes: tuple[str, ...]) -> types.ModuleType:
    """Return a module named ``old`` whose attributes come from ``homes``, with a warning."""
    module = types.ModuleType(old, f"Deprecated alias of {', '.join(homes)}.")

    def __getattr__(name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        for home in homes:
            target = importlib.import_module(home)
            if hasattr(target, name):
                break
        else:
            msg = f"module {old!r} has no attribute {name!r}"
            raise AttributeError(msg)
        value = getattr(target, name)
        defined_in = getattr(value, "__module__", None)
        if name in getattr(sys.modules["pdpaired"], "__all__", ()):
            public = "pdpaired"
        elif isinstance(defined_in, str) and defined_in.startswith("pdpaired."):
            public = defined_in  # where it is defined, not a module that re-exports it
        else:
            public = home
        warnings.warn(
            f"`{old}.{name}` has moved: import it from `{public}` "
            f"(the old path `{old}` will be removed in the next release).",
            DeprecationWarning,
            stacklevel=2,
        )
        return value

    module.__getattr__ = __getattr__  # type: ignore[method-assign]
    module.__dict__["__all__"] = []  # a star import of a deprecated path imports nothing
    return module


class _Loader(importlib.abc.Loader):
    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return _forwarding_module(spec.name, MOVED[spec.name])

    def exec_module(self, module: types.ModuleType) -> None:
        return None


class _Finder(importlib.abc.MetaPathFinder):
    """Find the old flat module names, and nothing else."""

    def find_spec(
        self, fullname: str, path: Any = None, target: Any = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in MOVED:
            return None
        return importlib.machinery.ModuleSpec(fullname, _Loader())


def install() -> None:
    """Put the finder of old paths on :data:`sys.meta_path` (once)."""
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.append(_Finder())
