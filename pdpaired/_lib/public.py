"""Public names report ``pdpaired`` as their module, wherever their file is.

httpx's pattern: ``__init__`` sets ``__module__ = "pdpaired"`` on every name it
exports, so reprs, tracebacks, pickles, the docs and the artifacts show
``pdpaired.BootstrapResult`` rather than the file that defines it, and files
can move between layers without users noticing. :data:`HOMES` keeps where
each name is defined (the doctest collector reads it to run a class's
examples with the module that defines it).
"""

from __future__ import annotations

from typing import Any

__all__ = ["HOMES", "rehome"]

#: The module that defines each rehomed class or function.
HOMES: dict[Any, str] = {}


def rehome(namespace: dict[str, Any], names: list[str], module: str = "pdpaired") -> None:
    """Set ``__module__`` of the classes and functions ``names`` of ``namespace`` to ``module``.

    A name already rehomed keeps its first public module: ``pdpaired.Metric``
    stays ``pdpaired.Metric`` when :mod:`pdpaired.metrics` re-exports it.
    """
    for name in names:
        obj = namespace[name]
        is_function = callable(obj) and hasattr(obj, "__code__")
        if not (isinstance(obj, type) or is_function) or obj in HOMES:
            continue  # data, or already shown at a public path (pdpaired's own names first)
        if obj.__module__ != module:
            HOMES.setdefault(obj, obj.__module__)
            obj.__module__ = module
