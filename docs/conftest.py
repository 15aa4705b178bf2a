"""pytest collection in docs/: only the Markdown pages are tests (doctests).

``--doctest-modules`` would import ``conf.py`` (Sphinx's configuration), and
``--doctest-glob=*.md`` would read build output and templates; none of them
is a test. Each page runs from the repository root, so the example logs a
page reads (``tests/data/...``) resolve wherever pytest was started. Plots
draw on pyplot's current Axes; every page's figures are closed after it.
"""

import importlib.util
from pathlib import Path

import pytest

collect_ignore = ["conf.py"]
collect_ignore_glob = ["_build/*", "_templates/*", "generated/*"]


@pytest.fixture(autouse=True)
def _repository_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(Path(__file__).resolve().parent.parent)


@pytest.fixture(autouse=True)
def _close_pyplot_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Skip the page that reads inspect_ai logs when inspect_ai is not installed."""
    if importlib.util.find_spec("inspect_ai") is not None:
        return
    for item in items:
        if item.path.name == "eval-logs.md":
            item.add_marker(pytest.mark.skip(reason='needs inspect_ai ("pdpaired[inspect]")'))
