"""``python -m pdpaired``: the command line."""

from pdpaired.cli.main import main

raise SystemExit(main())
