"""Public names report ``pdpaired`` as their module, wherever their file is.

httpx's pattern: ``__init__`` sets ``__module__ = "pdpaired"`` on every name it
exports, so reprs, tracebacks, pickles, the docs and the artifacts show
``pdpaired.BootstrapResult`` rather than the file that defines it, and files
can move between layers without users noticing. :data:`HOMES` keeps where
each name is defined (the doctest collector reads it to run a class's
examples with the module that defines it).

:mod:`pdpaired` loads most of its names on first use, so a result can reach
the user before ``pdpaired.BootstrapResult`` is ever looked up: those names
are marked :func:`public` where they are defined, which sets their module
whichever happens first.
"""

from __future__ import annotations

from typing import Any, TypeVar

__all__ = ["HOMES", "public", "rehome"]

T = TypeVar("T")

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


def public(obj: T) -> T:
    """Show the class or function ``obj`` as ``pdpaired.<name>`` from its definition on.

    For the names :mod:`pdpaired` loads on first use; put it outermost (above
    ``@dataclass``, which may build a new class).
    """
    name = obj.__name__  # type: ignore[attr-defined]
    rehome({name: obj}, [name])
    return obj
