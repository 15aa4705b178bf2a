"""``python -m pdpaired``: the command line, as the ``pdpaired`` console script runs it."""

from __future__ import annotations

import sys

try:  # Ctrl-C while pandas and pdpaired load: one line and 130, as later on
    from pdpaired.cli import console
except KeyboardInterrupt:
    print("interrupted", file=sys.stderr)
    raise SystemExit(130) from None

__all__: list[str] = []

raise SystemExit(console())
