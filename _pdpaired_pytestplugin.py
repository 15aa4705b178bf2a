"""The module pytest loads through pdpaired's ``pytest11`` entry point.

pytest imports every installed plugin when a session starts, whether or not a
test uses it. This module therefore imports neither pdpaired nor pandas: the
``paired_gate`` fixture loads :mod:`pdpaired.pytest_plugin` when a test asks
for it, so a session that does not use it pays nothing and pdpaired is not
imported before a coverage measurement starts. It is not a public import
path: ``pytest -p pdpaired.pytest_plugin`` names the fixture's public home.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

__all__ = ["paired_gate"]


@pytest.fixture
def paired_gate() -> Callable[..., Any]:
    """Fail the test when a paired comparison's release gate fails.

    See :func:`pdpaired.pytest_plugin.check_gate`, which this fixture returns.
    """
    from pdpaired.pytest_plugin import check_gate

    return check_gate
