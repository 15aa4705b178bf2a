"""The self-contained HTML page a report writes: one file that needs no network and no script.

:meth:`pdpaired.ComparisonReport.to_html`, :meth:`pdpaired.MultiResult.to_html`
and :meth:`pdpaired.SuiteResult.to_html` assemble their sections and hand
them to :func:`page`, which wraps them in one HTML document: inline CSS, a
``Content-Security-Policy`` that allows no request and no script (so even a
label that slipped past escaping could neither run nor load anything), and
a layout that reads at phone and desktop widths. Plots are inline SVG
(:func:`svg_figure`): Matplotlib draws them on a plain ``Figure`` (no pyplot
figure is left open), text as glyph outlines (the page looks the same
whatever fonts the reader has), with no date in the file (the same report
gives the same bytes) and every ``id`` prefixed per figure, so two plots of
one page never share one. :func:`write_html` writes the file atomically.

Every label from the data reaches the page through :func:`html.escape` (the
tables of :func:`pdpaired.results.display.html_table`, the headings here)
or as a Matplotlib label, which the SVG holds as outlines and an escaped
comment.
"""

from __future__ import annotations

import html
import io
import json
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pdpaired._lib.files import atomic_write_text

if TYPE_CHECKING:
    import os

    from matplotlib.axes import Axes

__all__ = [
    "artifact_section",
    "page",
    "paragraph",
    "scroll",
    "section",
    "svg_figure",
    "write_html",
]

#: No request of any kind, no script; inline styles only (the page's and the SVGs').
CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; "
    "form-action 'none'"
)

#: The plots' font size in points (one point is one unit of the SVG's viewBox).
_FONT_SIZE = 12.0

_CSS = """
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; padding: 1rem; font: 16px/1.5 system-ui, -apple-system, "Segoe UI",
  Roboto, "Helvetica Neue", Arial, sans-serif; color: #1a1a1a; background: #fff; }
main { max-width: 60rem; margin: 0 auto; }
h1 { font-size: 1.5rem; line-height: 1.25; margin: 0 0 .75rem; overflow-wrap: anywhere; }
h2 { font-size: 1.2rem; margin: 2rem 0 .5rem; border-bottom: 1px solid #ddd;
  padding-bottom: .25rem; overflow-wrap: anywhere; }
p, li { overflow-wrap: break-word; }
.verdict { font-size: 1.1rem; border-left: .35rem solid #2b6cb0; background: #f0f5fb;
  padding: .75rem 1rem; margin: 0 0 1rem; overflow-wrap: anywhere; }
.verdict.warn { border-left-color: #c05621; background: #fdf3ec; }
.scroll { overflow-x: auto; margin: .5rem 0 1rem; }
table { border-collapse: collapse; font-size: .92rem; }
caption { text-align: left; font-weight: 600; padding: .25rem 0; }
th, td { border-top: 1px solid #e2e2e2; padding: .3rem .6rem .3rem 0; vertical-align: top;
  text-align: left; }
.pdpaired-result table th { min-width: 9rem; }
td { overflow-wrap: break-word; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
figure { margin: .5rem 0 1rem; }
figure svg { display: block; max-width: 100%; height: auto; }
figure svg * { stroke-linejoin: round; stroke-linecap: butt; }
figcaption { font-size: .9rem; color: #444; }
details { margin: .5rem 0; }
summary { cursor: pointer; }
pre { background: #f6f6f6; padding: .75rem; overflow-x: auto; font-size: .8rem;
  white-space: pre; }
code { font-size: .9em; background: #f2f2f2; padding: 0 .2em; overflow-wrap: anywhere; }
footer { margin-top: 2rem; font-size: .85rem; color: #555; }
"""


def page(title: str, lead: str, sections: list[str], *, warn: bool = False) -> str:
    """Return the whole HTML document: the title, the verdict ``lead`` first, then ``sections``.

    ``title`` and ``lead`` are text (escaped here); ``sections`` are HTML
    built by :func:`section` and the result views.
    """
    klass = "verdict warn" if warn else "verdict"
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="referrer" content="no-referrer">\n'
        f"<title>{html.escape(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n<main>\n"
        f"<h1>{html.escape(title)}</h1>\n"
        f'<p class="{klass}" id="verdict">{html.escape(lead)}</p>\n'
        + "\n".join(sections)
        + "\n</main>\n</body>\n</html>\n"
    )


def section(heading: str, *parts: str, slug: str | None = None) -> str:
    """Return a ``<section>``: an escaped ``heading``, then the HTML ``parts``."""
    ident = f' id="{html.escape(slug)}"' if slug else ""
    body = "\n".join(parts)
    return f"<section{ident}>\n<h2>{html.escape(heading)}</h2>\n{body}\n</section>"


def scroll(block: str) -> str:
    """Wrap a wide block (a table) so a phone scrolls it sideways, not the page."""
    return f'<div class="scroll">{block}</div>'


def paragraph(text: str) -> str:
    """Return ``text`` (escaped) as a paragraph."""
    return f"<p>{html.escape(text)}</p>"


def wrap(text: str, width: int = 40) -> str:
    """Return a plot label broken into lines of at most ``width`` characters (long names fit).

    A name with no space is cut every ``width`` characters, so no label is
    wider than the figure, whatever the data calls its models or slices.
    """
    import textwrap

    return "\n".join(
        textwrap.fill(line, width, break_long_words=True, break_on_hyphens=False) or line
        for line in text.split("\n")
    )


def wrap_ticks(ax: Axes, width: int = 24) -> None:
    """Wrap the y tick labels of ``ax`` (slice, task or comparison names) to ``width``."""
    ticks = ax.get_yticks()
    labels = [wrap(t.get_text(), width) for t in ax.get_yticklabels()]
    ax.set_yticks(ticks, labels)


_ID = re.compile(r'\bid="([^"]+)"')
_REF = re.compile(r'(href="#|url\(#)([^")]+)')


def svg_figure(
    draw: Callable[[Axes], Any], *, figsize: tuple[float, float], alt: str, caption: str = ""
) -> str:
    """Draw with ``draw(ax)`` on a new ``Figure`` and return it as an inline SVG ``<figure>``.

    ``alt`` is the figure's text alternative (``aria-label``), ``caption``
    the text under it; both are escaped. The SVG has no XML prolog, no
    document type (its address would be a URL), no metadata (no date: the
    same plot gives the same bytes) and no comments; its ids are prefixed by
    a digest of its content, so ids never clash between the figures of a page.
    """
    import hashlib

    import matplotlib
    from matplotlib.figure import Figure  # lazily: not pyplot, no figure left open

    buf = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": "pdpaired", "svg.fonttype": "path",
                                "font.size": _FONT_SIZE}):  # fmt: skip
        fig = Figure(figsize=figsize, layout="constrained")
        draw(fig.add_subplot())
        fig.savefig(buf, format="svg", metadata={"Date": None})
    svg = buf.getvalue()
    svg = svg[svg.index("<svg") :]
    svg = re.sub(r"<metadata>.*?</metadata>\s*", "", svg, flags=re.S)
    svg = re.sub(r"<!--.*?-->", "", svg, flags=re.S)
    svg = re.sub(r"<style[^>]*>.*?</style>\s*", "", svg, flags=re.S)  # the page's CSS has it
    prefix = "f" + hashlib.sha256(svg.encode("utf-8")).hexdigest()[:8] + "-"
    svg = _ID.sub(lambda m: f'id="{prefix}{m.group(1)}"', svg)
    svg = _REF.sub(lambda m: f"{m.group(1)}{prefix}{m.group(2)}", svg)
    svg = svg.replace("<svg ", f'<svg role="img" aria-label="{html.escape(alt)}" ', 1)
    cap = f"<figcaption>{html.escape(caption)}</figcaption>" if caption else ""
    return f"<figure>\n{svg.strip()}\n{cap}</figure>"


def artifact_section(artifact: dict[str, Any], filename: str) -> str:
    """Return the provenance section: software, digest, how to verify, the artifact itself.

    ``artifact`` is the shareable artifact the page was built from,
    ``filename`` the name it is saved under; the reader copies the JSON
    shown into that file and runs ``pdpaired verify`` on it.
    """
    soft = artifact.get("software", {})
    rows = [
        ("protocol", str(artifact.get("protocol"))),
        ("artifact", f"{artifact.get('artifact')} ({artifact.get('kind')})"),
        ("digest", str(artifact.get("digest"))),
        ("software", ", ".join(f"{k} {v}" for k, v in sorted(soft.items()))),
    ]
    from pdpaired.results.display import html_table

    text = json.dumps(artifact, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False)
    name = html.escape(filename)
    return section(
        "Provenance and how to verify",
        scroll(html_table("Provenance", rows)),
        "<p>This page holds what the shareable artifact below holds, and nothing more: "
        "aggregates only, no case ids, no per-case values, no input paths, no small slices. "
        "To check its numbers, save the JSON below as "
        f"<code>{name}</code> and run</p>\n"
        f"<pre>pdpaired verify {name}</pre>\n"
        "<p>which recomputes the digest and checks that the numbers follow from the "
        "artifact's own records (exit status 0: verified). The same call with the same data "
        "and seed reproduces every number.</p>",
        f"<details><summary>The shareable artifact ({name})</summary>\n"
        f"<pre>{html.escape(text)}</pre></details>",
        slug="provenance",
    )


def write_html(text: str, path: str | os.PathLike[str] | None) -> str:
    """Write ``text`` to ``path`` atomically (when given) and return it."""
    if path is not None:
        atomic_write_text(path, text)
    return text
