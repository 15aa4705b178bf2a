"""A self-contained HTML report of two models, and of several, written to a temporary folder.

Real data shipped with pdpaired: five classifiers of the scikit-learn digits
(1,797 images, out-of-fold predictions; 0/1 correct per image). The report
of k-NN against logistic regression, with slices by digit, becomes one HTML
page (``report.to_html(path)``): inline CSS and SVG plots, no network, no
script, the verdict first, and the shareable artifact inside it to check
with ``pdpaired verify``. Every model against the baseline gives the page of
several models (``result.to_html(path)``). The script checks what it claims
and prints each page's size.

Run with ``python examples/html_report.py``; it writes into a temporary
directory and removes it. Open the pages in a browser to read them (copy
the folder first, or pass a directory: ``python examples/html_report.py OUT``).
"""

from __future__ import annotations

import html
import json
import re
import sys
import tempfile
from pathlib import Path

import pdpaired
from pdpaired.datasets import load_digits_cv, load_digits_models


def write_pages(out: Path) -> dict[str, Path]:
    """Write the two-model page and the several-model page into ``out``."""
    cmp = load_digits_cv().paired(score="correct").compare("knn", "logreg", higher_is_better=True)
    rep = cmp.report(n_resamples=2_000, n_permutations=2_000, slices="target",
                     slice_uncertainty=True, practical_threshold=0.005, rng=0)  # fmt: skip
    several = (
        load_digits_models()
        .paired(score="correct")
        .against("logreg", higher_is_better=True, n_resamples=2_000, rng=0)
    )
    pages = {"two models": out / "knn-vs-logreg.html", "several models": out / "vs-logreg.html"}
    text = rep.to_html(pages["two models"])
    several.to_html(pages["several models"])

    # what the page claims: no script, nothing to fetch, the verdict first,
    # and the shareable artifact inside it, which verify() accepts
    assert "<script" not in text
    assert not re.search(r'(?:src|href)="(?!#)', text)
    lead = re.search(r'id="verdict">(.*?)</p>', text, re.S)
    assert lead is not None
    assert html.unescape(lead.group(1)) == rep.headline()
    block = re.search(r"<pre>(\{.*?)</pre>", text, re.S)
    assert block is not None
    shared = out / "comparison.shareable.json"
    shared.write_text(html.unescape(block.group(1)), encoding="utf-8")
    assert json.loads(shared.read_text(encoding="utf-8")) == rep.to_artifact("shareable")
    pdpaired.verify(shared)
    print(rep.headline())
    return pages


def main() -> None:
    if len(sys.argv) > 1:
        out = Path(sys.argv[1])
        out.mkdir(parents=True, exist_ok=True)
        pages = write_pages(out)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            pages = write_pages(Path(tmp))
            sizes = {k: p.stat().st_size for k, p in pages.items()}
        for kind, size in sizes.items():
            print(f"{kind}: {size / 1024:.0f} KiB, one file, no network")
        return
    for kind, path in pages.items():
        print(f"{kind}: {path} ({path.stat().st_size / 1024:.0f} KiB)")


if __name__ == "__main__":
    main()
