"""pytest collection in docs/: only the Markdown pages are tests (doctests).

``--doctest-modules`` would import ``conf.py`` (Sphinx's configuration), and
``--doctest-glob=*.md`` would read build output and templates; none of them
is a test. Plots draw on pyplot's current Axes; every page's figures are
closed after it.
"""

import pytest


@pytest.fixture(autouse=True)
def _close_pyplot_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")

collect_ignore = ["conf.py"]
collect_ignore_glob = ["_build/*", "_templates/*", "generated/*"]
