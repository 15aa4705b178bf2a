"""The ``pdpaired`` command line: ``pdpaired compare``, ``pdpaired plan`` and ``pdpaired verify``."""

from __future__ import annotations

from pdpaired.cli.main import main

__all__ = ["main"]
