"""Plots show in a real Jupyter kernel (nbclient + ipykernel), as a notebook user sees them.

``res.plot()`` with no ``ax`` draws on pyplot's current Axes,
so the inline backend shows it at the end of the cell; a plain Figure unknown
to pyplot would leave the cell empty. Each cell below is one form a user
types; the executed notebook must hold an ``image/png`` output for it.
"""

from __future__ import annotations

import sys

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

SETUP = """\
import sys
import matplotlib.pyplot as plt
import pdpaired
from pdpaired.datasets import load_digits_cv
df = load_digits_cv()
cmp = df.paired(score="correct").compare("knn", "logreg", higher_is_better=True)
boot = cmp.bootstrap(n_resamples=500, rng=0)
rnd = cmp.randomization(n_permutations=500, rng=0)
sl = cmp.by_slice("fold", uncertainty=True, n_resamples=200, n_permutations=200, rng=0)
print(sys.executable)
"""

#: The plotting forms a user types; each must show a PNG in its own cell.
FORMS = [
    "boot.plot();",
    "rnd.plot();",
    "ax = sl.plot(); plt.show()",
    "sl.plot();",
    "boot.plot()",
]


def test_plots_show_inline_in_a_real_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel picks its inline backend
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(SETUP)] + [nbformat.v4.new_code_cell(f) for f in FORMS]
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3", allow_errors=False)
    client.execute()
    setup_out = "".join(o.get("text", "") for o in nb.cells[0].outputs)
    assert setup_out.strip() == sys.executable  # the kernel runs this environment's pdpaired
    for form, cell in zip(FORMS, nb.cells[1:], strict=True):
        kinds = [k for o in cell.outputs for k in (o.get("data") or {})]
        assert kinds.count("image/png") == 1, (form, kinds)
    # without the semicolon the Axes' repr follows the image, as with pandas' plot()
    last = [o for o in nb.cells[-1].outputs if o.get("output_type") == "execute_result"]
    assert "Axes" in last[0]["data"]["text/plain"]
