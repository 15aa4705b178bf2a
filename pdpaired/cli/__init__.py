"""The ``pdpaired`` command line: ``pdpaired compare``, ``pdpaired plan``, ``pdpaired verify``.

One module per subcommand (:mod:`~pdpaired.cli.compare`, :mod:`~pdpaired.cli.plan`,
:mod:`~pdpaired.cli.verify`), the inputs they share in :mod:`~pdpaired.cli.inputs`, and the
parser, the dispatch and the display of errors and warnings in :mod:`~pdpaired.cli.main`.
"""

from __future__ import annotations

from pdpaired.cli.main import console, main

__all__ = ["console", "main"]
