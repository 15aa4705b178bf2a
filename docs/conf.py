"""Sphinx configuration of the pdpaired documentation (``make docs``).

The pages are Markdown (MyST) and double as doctests: pytest runs every
``docs/*.md`` with ``--doctest-glob``. The API reference (``api.md``) is built
by autosummary; ``sphinx_autosummary_accessors`` documents the accessor as
``DataFrame.paired`` and its methods as ``DataFrame.paired.bootstrap`` etc.,
the way pandas and xarray document theirs. ``make docs`` builds with ``-W``:
every warning is an error.
"""

from __future__ import annotations

import sphinx_autosummary_accessors

import pdpaired

project = "pdpaired"
author = "pdpaired developers"
copyright = "pdpaired developers"  # noqa: A001  (Sphinx's name for it)
version = release = pdpaired.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "sphinx_autosummary_accessors",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
templates_path = ["_templates", sphinx_autosummary_accessors.templates_path]
# Not pages: build output, autosummary templates, and the pytest conftest.
exclude_patterns = ["_build", "_templates", "conftest.py", "Thumbs.db", ".DS_Store"]

# MyST: the existing pages use definition lists and link to section headings
# (``bootstrap.md#decisions``), which need heading anchors.
myst_enable_extensions = ["deflist", "colon_fence", "dollarmath"]
myst_heading_anchors = 3

# autosummary writes one stub page per listed object into ``generated/``
# (not committed; see .gitignore).
autosummary_generate = True
autodoc_typehints = "none"  # numpydoc's Parameters sections carry the types
autodoc_member_order = "bysource"

# numpydoc: the class pages list their methods through the autosummary class
# template, so numpydoc's own member tables (one stub per dataclass field,
# which do not exist as pages) are switched off.
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

html_theme = "pydata_sphinx_theme"
html_title = f"pdpaired {release}"
html_static_path = ["_static"]
# a wider content column, code blocks that wrap instead of clipping, whole page titles
html_css_files = ["pdpaired.css"]
html_js_files = ["pdpaired.js"]
# pages without sub-pages get no (empty) section sidebar
html_sidebars = {
    page: [] for page in ("index", "getting-started", "reference", "changelog", "architecture")
}
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 5,
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_show_sourcelink = False
