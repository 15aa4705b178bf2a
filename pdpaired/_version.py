"""The version of pdpaired (a leaf: anything may import it).

The one place the version is written: ``pyproject.toml`` reads it from here when
the package is built (``[tool.setuptools.dynamic]``), so ``import pdpaired``
does not ask the installed metadata for it.
"""

from __future__ import annotations

__all__ = ["__version__"]

__version__ = "0.1.0"
