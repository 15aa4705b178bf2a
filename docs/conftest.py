"""pytest collection in docs/: only the Markdown pages are tests (doctests).

``--doctest-modules`` would import ``conf.py`` (Sphinx's configuration), and
``--doctest-glob=*.md`` would read build output and templates; none of them
is a test.
"""

collect_ignore = ["conf.py"]
collect_ignore_glob = ["_build/*", "_templates/*", "generated/*"]
