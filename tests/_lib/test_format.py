"""A label through ``md_escape`` is literal text to GitHub's own Markdown renderer.

cmark-gfm (the ``cmarkgfm`` binding of the library GitHub renders with, every
extension on: tables, strikethrough, autolinks, tag filter) is the oracle:
whatever the label holds, one table cell renders to one cell whose text is
the label -- no tag, no link (bare URLs, ``www.``, e-mail addresses), no
emphasis. The zero-width space after ``@`` (no e-mail autolink, no
``@mention``) is the only character added.
"""

from __future__ import annotations

import html
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pdpaired._lib.format import md_escape, printable

cmarkgfm = pytest.importorskip("cmarkgfm")
from cmarkgfm.cmark import Options  # noqa: E402

FUZZ = settings(max_examples=300, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
ZWSP = "\u200b"
LINKY = ["www.example.com", "WWW.Example.org/x", "https://evil.example/p?q=1",
         "ftp://files.example", "mailto:someone@example.com", "someone@example.com",
         "@octocat", "[x](https://e.com)", "![i](https://e.com/i.png)", "<https://e.com>",
         "# heading", "\x1b[31mred", "a\u202eb", "`code`", "**bold**"]  # fmt: skip


def cell(label: str) -> str:
    rendered = cmarkgfm.github_flavored_markdown_to_html(
        f"| h |\n|---|\n| {md_escape(label)} |\n", options=Options.CMARK_OPT_UNSAFE
    )
    assert rendered.count("<td>") == 1, rendered
    return rendered.split("<td>")[1].split("</td>")[0]


def expected(label: str) -> str:
    return printable(re.sub(r"\r\n|[\r\n\v\f\x85\u2028\u2029]", " ", label)).strip(" ")


@pytest.mark.parametrize("label", LINKY)
def test_links_and_markup_in_a_label_render_as_its_text(label: str) -> None:
    got = cell(f"model {label} v2")
    assert "<" not in got  # no <a>, <img>, <em>, <code>, <h1>
    assert html.unescape(got).replace(ZWSP, "") == expected(f"model {label} v2")


@FUZZ
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=40)
       | st.lists(st.sampled_from([*LINKY, " ", "@", ".", ":", "//", "www", "|"]),
                  max_size=6).map("".join))  # fmt: skip
def test_any_label_is_one_cell_of_literal_text(label: str) -> None:
    got = cell(label)
    assert "<" not in got
    assert html.unescape(got).replace(ZWSP, "") == expected(label).replace(ZWSP, "")
