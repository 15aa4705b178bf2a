"""The built documentation site, as a reader's browser shows it.

Long API names (``pandas.DataFrame.paired.exact_binomial``) must wrap after a dot
or an underscore in the side bars, the breadcrumbs and the previous / next links,
and never be cut or broken inside a word. ``docs/_static/pdpaired.js`` adds the
break points and, with ``#layout-check`` in the address, reports every such link
whose text does not fit its box; ``pdpaired.css`` turns mid-word breaking off
there, so a name that cannot wrap overflows and is reported. The pages are loaded
in headless Chromium (``--dump-dom`` after the scripts ran, and a screenshot).

The site is the one ``make test`` builds first (``docs/_build/html``) when it is
newer than every docs source, else a fresh build. Without Chromium on the
machine (Debian: ``apt install chromium``) these tests skip, saying so.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
BROWSER = next(
    (b for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None
)
needs_browser = pytest.mark.skipif(
    BROWSER is None, reason="no headless Chromium on this machine (Debian: apt install chromium)"
)
#: the pages with the longest names in their side bars and navigation, and two guide pages
PAGES = [
    "generated/pandas.DataFrame.paired.exact_binomial.html",
    "generated/pandas.DataFrame.paired.bootstrap.html",
    "generated/pdpaired.io.inspect_value_to_float.html",
    "generated/pdpaired.core.multiplicity.adjust_pvalues.html",
    "api.html",
    "getting-started.html",
]


def _sources_mtime() -> float:
    files = [p for p in DOCS.rglob("*") if p.is_file() and "_build" not in p.parts]
    return max(p.stat().st_mtime for p in files)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    built = DOCS / "_build" / "html"
    stamp = built / ".buildinfo"  # Sphinx rewrites it at the end of every build
    if stamp.exists() and stamp.stat().st_mtime >= _sources_mtime():
        return built
    out = tmp_path_factory.mktemp("site")
    subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", "-b", "html", str(DOCS), str(out)],
        check=True, capture_output=True, timeout=600,
    )  # fmt: skip
    return out


def layout_check(page: Path, width: int = 1300, height: int = 1200) -> dict[str, object]:
    """Load ``page`` with ``#layout-check`` and return the report the page's script wrote."""
    assert BROWSER is not None
    proc = subprocess.run(
        [BROWSER, "--headless", "--no-sandbox", "--disable-gpu", f"--window-size={width},{height}",
         "--dump-dom", page.as_uri() + "#layout-check"],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    found = re.search(r'<pre id="pdpaired-layout-check"[^>]*>(.*?)</pre>', proc.stdout, re.S)
    assert found, "the page's script wrote no layout report (is pdpaired.js in the site?)"
    report: dict[str, object] = json.loads(found.group(1).replace("&quot;", '"'))
    return report


@needs_browser
@pytest.mark.parametrize("page", PAGES)
def test_long_names_are_never_cut(site: Path, page: str) -> None:
    report = layout_check(site / page)
    assert isinstance(report["checked"], int)
    assert report["checked"] >= 10  # the side bar's links were there to check
    assert report["cut"] == []
    # and nothing may break inside a word instead (the theme's default there)
    assert report["wrap"] == ["normal"]


@needs_browser
def test_the_check_reports_a_name_that_cannot_wrap(site: Path, tmp_path: Path) -> None:
    """A side-bar name with no dot or underscore and too long for the bar is reported."""
    page = site / PAGES[0]
    html = page.read_text(encoding="utf-8")
    long_name = "x" * 120
    link = r'(<li class="toctree-l1"><a [^>]*>)pdpaired\.Comparison'
    edited, n = re.subn(link, rf"\g<1>{long_name}", html, count=1)
    assert n == 1
    copy = page.parent / f"layout-check-{tmp_path.name}.html"  # beside it: same _static
    copy.write_text(edited, encoding="utf-8")
    try:
        report = layout_check(copy)
    finally:
        copy.unlink()
    cut = report["cut"]
    assert isinstance(cut, list)
    assert [c["text"] for c in cut] == [long_name]


@needs_browser
def test_a_screenshot_of_the_api_page(site: Path, tmp_path: Path) -> None:
    assert BROWSER is not None
    shot = tmp_path / "api.png"
    subprocess.run(
        [BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         "--window-size=1300,1400", f"--screenshot={shot}", (site / PAGES[1]).as_uri()],
        capture_output=True, timeout=120, check=True,
    )  # fmt: skip
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
