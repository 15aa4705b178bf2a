"""Collection settings for the whole tree (the suite, the package's doctests, the docs).

pdpaired's public classes and functions report ``__module__ == "pdpaired"``
(so reprs and docs show ``pdpaired.BootstrapResult``, not a file path).
doctest's finder decides which module an object belongs to by ``__module__``,
so it would look for a public class's examples in ``pdpaired/__init__.py``
and then drop its methods' examples there, whose globals are another file's.
Here each rehomed object belongs to the module that defines it, which runs
every example exactly once, where it is written.
"""

from __future__ import annotations

import doctest
from typing import Any

from pdpaired._lib.public import HOMES

_from_module = doctest.DocTestFinder._from_module


def _from_defining_module(self: doctest.DocTestFinder, module: Any, obj: Any) -> bool:
    try:
        home = HOMES.get(obj)
    except TypeError:  # unhashable: never rehomed
        home = None
    if home is not None:
        return bool(module.__name__ == home)
    return bool(_from_module(self, module, obj))


doctest.DocTestFinder._from_module = _from_defining_module  # type: ignore[method-assign]
