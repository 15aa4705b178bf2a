"""``python -m pdpaired``: the command line."""

from pdpaired.cli import main

raise SystemExit(main())
