"""Formatting shared by the result objects, slices and reports (a leaf module)."""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np

__all__ = ["fmt", "jsonable", "level_text", "md_escape", "plot_text", "printable"]


def jsonable(x: Any) -> Any:
    """Convert NumPy scalars/arrays to plain Python; non-finite floats become None."""
    if isinstance(x, dict):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return [jsonable(v) for v in x.tolist()]
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        f = float(x)
        return f if math.isfinite(f) else None
    if x is None or isinstance(x, str):
        return x
    return str(x)


def fmt(x: float | None, signed: bool = False, digits: int = 4) -> str:
    """Format a number with ``digits`` significant digits (``signed``: always a sign)."""
    if x is None:
        return "n/a"
    return f"{x:+.{digits}g}" if signed else f"{x:.{digits}g}"


def level_text(confidence_level: float) -> str:
    """Return a confidence level as a percentage: ``0.95`` is ``"95%"``."""
    pct = confidence_level * 100
    return f"{pct:.0f}%" if pct % 1 == 0 else f"{pct:g}%"


def _escape_char(c: str) -> str:
    r"""Python's own escape of one character (``"\x1b"``, ``"\n"``, ``"\u202e"``)."""
    return repr(c)[1:-1]


def printable(text: object) -> str:
    r"""Return ``str(text)`` with every non-printable character escaped.

    Terminal control characters (C0 and C1, including ESC, so no ANSI escape
    sequence), line and paragraph separators, bidirectional overrides
    (U+202A-U+202E, U+2066-U+2069: "Trojan Source") and the other characters
    Python does not print (:meth:`str.isprintable`) become their Python escape,
    as :func:`repr` writes them; everything else, accents and CJK included, is
    kept. Text output applies it to every label that comes from the data, so
    printing a result is one line per row and never drives the terminal.

    Examples
    --------
    >>> from pdpaired._lib.format import printable
    >>> printable("model\x1b[2J\nB")
    'model\\x1b[2J\\nB'
    >>> printable("modèle 模型")
    'modèle 模型'
    """
    s = str(text)
    if s.isprintable():
        return s
    return "".join(c if c.isprintable() else _escape_char(c) for c in s)


#: ASCII punctuation that is Markdown (or GitHub Flavored Markdown) syntax inside
#: a line: code spans, emphasis, strikethrough, links and images, table cells;
#: escaped with a backslash (CommonMark: any ASCII punctuation may be).
_MD_PUNCT = re.compile(r"([\\`*_~\[\]|])")
_MD_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_MD_WWW = re.compile(r"((?i:www))\.")  # GitHub's extended autolinks: www. ...
_MD_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):(?=//)")  # ... and scheme://


def md_escape(text: object) -> str:
    r"""Return ``str(text)`` as literal text for a Markdown line or table cell.

    Every label written into Markdown (model names, metric and column names,
    slice values) passes through it, so whatever the data's labels hold:

    * ``|`` never splits a table cell, and backticks, ``*``, ``_``, ``~``,
      ``[``, ``]`` and ``\`` never start a code span, emphasis or a link (they
      are backslash-escaped, which CommonMark and GitHub render as the
      character itself);
    * ``<``, ``>`` and ``&`` become ``&lt;``, ``&gt;`` and ``&amp;``, so no
      HTML tag, comment, autolink or entity passes through;
    * a line break becomes a space (it would end a table row) and other
      non-printable characters their visible escape (:func:`printable`);
    * nothing is linked that GitHub would link in plain text: the dot of
      ``www.`` and the colon of ``scheme://`` are backslash-escaped (no
      bare-URL autolink), and a zero-width space follows every ``@`` (no
      e-mail autolink, no ``@mention`` notifying someone).

    Examples
    --------
    >>> from pdpaired._lib.format import md_escape
    >>> md_escape("<img src=x onerror=alert(1)>")
    '&lt;img src=x onerror=alert(1)&gt;'
    >>> md_escape("a|b `c` *d*")
    'a\\|b \\`c\\` \\*d\\*'
    """
    s = re.sub(r"\r\n|[\r\n\v\f\x85\u2028\u2029]", " ", str(text))
    s = _MD_PUNCT.sub(r"\\\1", s)
    s = "".join(_MD_ENTITIES.get(c, c) for c in s) if any(c in s for c in "&<>") else s
    s = printable(s)
    s = _MD_WWW.sub(r"\1\\.", s)
    s = _MD_SCHEME.sub(r"\1\\:", s)
    return s.replace("@", "@\u200b")


def plot_text(text: object) -> str:
    r"""Return ``str(text)`` as literal text for a Matplotlib label.

    Dollar signs are escaped (a pair of them would start Matplotlib's mathtext,
    and a malformed formula makes drawing raise) and non-printable characters
    shown as their escape (:func:`printable`), so a label from the data never
    changes how a plot is drawn.

    Examples
    --------
    >>> from pdpaired._lib.format import plot_text
    >>> plot_text("price $5-$10")
    'price \\$5-\\$10'
    """
    return printable(text).replace("$", r"\$")
