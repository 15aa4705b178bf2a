"""``python -m pdpaired``: the command line, as the ``pdpaired`` console script runs it."""

from __future__ import annotations

from pdpaired.cli import console

__all__: list[str] = []

raise SystemExit(console())
