"""Display helpers the result views share: the HTML block, the plot Axes, the p-value text.

:func:`html_table` is the ``_repr_html_`` of every result and report part,
:func:`plot_axes` picks the Axes a ``plot`` method draws on (importing pyplot
only then), and :func:`pfmt` writes a p-value as the text blocks show it.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["html_table", "pfmt", "plot_axes"]


def html_table(caption: str, rows: list[tuple[str, str]], *, lead: str | None = None) -> str:
    """Return a result block as HTML: an optional bold lead sentence, then a two-column table.

    No lead paragraph when ``lead`` is None or empty.
    """
    body = "".join(
        f"<tr><th style='text-align:left'>{html.escape(k)}</th>"
        f"<td style='text-align:left'>{html.escape(v)}</td></tr>"
        for k, v in rows
    )
    head = "" if not lead else f"<p class='pdpaired-verdict'><b>{html.escape(lead)}</b></p>"
    return (
        f"<div class='pdpaired-result'>{head}<table>"
        f"<caption>{html.escape(caption)}</caption>{body}</table></div>"
    )


def plot_axes(ax: Axes | None, figsize: tuple[float, float] = (6.4, 4.0)) -> Axes:
    """Return ``ax``, or pyplot's current Axes (``plt.gca()``) when None.

    As pandas' and seaborn's ``plot`` do, so ``res.plot()`` shows inline in
    Jupyter and with ``plt.show()`` in a script. When pyplot has no figure
    open, a new one of ``figsize`` (constrained layout) is made current
    first, so the plot gets a size that fits it. pyplot is imported here,
    never at package import.
    """
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt  # lazily: pyplot costs 0.3 s and picks a backend

    if not plt.get_fignums():
        plt.figure(figsize=figsize, layout="constrained")
    return plt.gca()


def pfmt(p: float) -> str:
    """Return a p-value as text: scientific below 1e-4, else four decimals."""
    return f"{p:.2e}" if p < 1e-4 else f"{p:.4f}"
