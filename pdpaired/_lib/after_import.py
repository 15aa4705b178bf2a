"""Run an import when another library is imported: a front end registered without its cost.

``import pdpaired`` registers ``pl.DataFrame.paired`` without importing polars
(which costs about as much as pdpaired itself): if polars is already imported
the front end is imported at once; otherwise a finder on :data:`sys.meta_path`
waits for the first ``import polars`` and imports the front end right after
polars' own module has run. Nothing happens when the library is not installed
or is never imported.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
from typing import Any

__all__ = ["after_import"]


class _ThenImport(importlib.abc.Loader):
    """The library's own loader, then the import of ``then``."""

    def __init__(self, loader: Any, then: str) -> None:
        self._loader = loader
        self._then = then

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType | None:
        return self._loader.create_module(spec)  # type: ignore[no-any-return]

    def exec_module(self, module: types.ModuleType) -> None:
        self._loader.exec_module(module)
        module.__loader__ = self._loader  # the library sees its own loader from now on
        if module.__spec__ is not None:
            module.__spec__.loader = self._loader
        importlib.import_module(self._then)

    def __getattr__(self, name: str) -> Any:  # resources and the like: the library's loader
        return getattr(self._loader, name)


class _Waiting(importlib.abc.MetaPathFinder):
    """Find nothing itself; wrap the loader of ``name`` when the other finders find it."""

    def __init__(self, name: str, then: str) -> None:
        self.name = name
        self.then = then

    def find_spec(
        self, fullname: str, path: Any = None, target: Any = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)  # once, and not while the other finders look
        spec = None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            spec = None if find is None else find(fullname, path, target)
            if spec is not None:
                break
        if spec is None or spec.loader is None:
            return spec
        spec.loader = _ThenImport(spec.loader, self.then)
        return spec


def after_import(name: str, then: str) -> None:
    """Import module ``then`` once top-level module ``name`` is imported (now if it is).

    Parameters
    ----------
    name : str
        A top-level module, such as ``"polars"``.
    then : str
        The module to import after it, such as ``"pdpaired.polars"``.

    Examples
    --------
    >>> import sys
    >>> from pdpaired._lib.after_import import after_import
    >>> after_import("json", "pdpaired._version")  # json is imported: at once
    >>> "pdpaired._version" in sys.modules
    True
    """
    if name in sys.modules:
        if sys.modules[name] is not None:  # None: the library is blocked, not imported
            importlib.import_module(then)
        return
    if not any(isinstance(f, _Waiting) and f.name == name for f in sys.meta_path):
        sys.meta_path.insert(0, _Waiting(name, then))
