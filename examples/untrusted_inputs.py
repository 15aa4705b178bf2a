"""Untrusted input, end to end: hostile labels, small slices, and files you did not make.

Real data: scikit-learn's breast cancer data (569 tumours, bundled, no
download). Two classifiers are cross-validated on the same folds, so each
tumour has a pass/fail outcome from each model. The evaluation pipeline is
careless in three ways an attacker could also exploit:

1. a model is registered under a name full of markup and a terminal escape
   sequence (``<img src=x onerror=...>``, a table pipe, ``ESC[2J``), and one
   slice value holds a ``<script>`` tag;
2. the slice column has a slice of 3 tumours, small enough that its
   accuracy is nearly per-case data;
3. the reader receives, next to the genuine artifact, a file nested 200,000
   levels deep and a forged artifact with a recomputed digest.

The script shows what holds: the Markdown renders the labels as text, the
terminal output carries no escape sequence, the shareable artifact hides the
small slice *and* its complement (so the overall minus the shown slices
cannot reveal it), ``pdpaired verify`` refuses the hostile file with one
line and exit status 2, and -- what it cannot do -- a self-consistent forgery
verifies: the digest proves consistency, not authorship.

Run with ``python examples/untrusted_inputs.py``; it writes into a temporary
directory and removes it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import pdpaired
from pdpaired.artifacts.digests import content_digest

EVIL = "<img src=x onerror=alert(1)>|\x1b[2J"


def main() -> None:
    x, y = load_breast_cancer(return_X_y=True)
    folds = StratifiedKFold(10, shuffle=True, random_state=0)
    models = {
        EVIL: make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)),
        "naive-bayes": GaussianNB(),
    }
    size = x[:, 0]  # mean radius in three bins, one holding only the 3 largest tumours
    order = np.argsort(np.argsort(size))
    bins = np.where(order >= len(y) - 3, "<script>alert('xl')</script>",
                    np.where(order < 283, "small", "large"))  # fmt: skip
    frame = pd.concat(
        [
            pd.DataFrame(
                {
                    "tumour": np.arange(len(y)),
                    "model": name,
                    "correct": (cross_val_predict(m, x, y, cv=folds) == y).astype(float),
                    "radius": bins,
                }
            )
            for name, m in models.items()
        ],
        ignore_index=True,
    )
    cmp = frame.paired(case="tumour", score="correct").compare(
        EVIL, "naive-bayes", higher_is_better=True
    )
    rep = cmp.report(n_resamples=2_000, n_permutations=2_000, slices="radius",
                     min_slice_size=1, rng=0)  # fmt: skip

    # 1. labels from the data are text in every output
    text = str(rep.bootstrap)
    assert "\x1b" not in text
    assert "\\x1b[2J" in text
    print(text.splitlines()[0])
    md = rep.to_markdown()
    assert "<img" not in md
    assert "<script" not in md
    print(md.splitlines()[0])
    # the Markdown shows what the shareable artifact shows: the 3-tumour slice suppressed
    for line in md.splitlines():
        if line.startswith("| radius ="):
            print(line)
    assert "| radius = (suppressed) | 3 | suppressed |" in md

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        paths = rep.save(out / "report")

        # 2. the shareable artifact: the 3-tumour slice, and its complement, hidden
        shared = pdpaired.verify(paths["shareable"])
        rows = [(r["value"], r["n"], r["status"]) for r in shared["slices"]["rows"]]
        print("shareable slices:", rows)
        assert ("(suppressed)", 3, "suppressed") in rows
        shown = [r for r in shared["slices"]["rows"] if r["status"] == "reported"]
        hidden_n = shared["n_cases"] - sum(r["n"] for r in shown)
        assert hidden_n >= pdpaired.artifacts.report.SHAREABLE_MIN_SLICE
        print(f"overall minus the shown slices: an aggregate of {hidden_n} tumours, not of 3")
        assert "script" not in paths["shareable"].read_text("utf-8")

        # 3. a hostile file: exit status 2, one line on stderr, no traceback
        deep = out / "deep.json"
        deep.write_text("[" * 200_000 + "]" * 200_000)
        proc = subprocess.run([sys.executable, "-m", "pdpaired", "verify", str(deep)],
                              capture_output=True, text=True, check=False)  # fmt: skip
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.count("\n") == 1, proc.stderr
        message = proc.stderr.strip().replace(str(deep), "deep.json")
        print("verify deep.json ->", proc.returncode, message)

        # ... and a self-consistent forgery verifies: consistency, not authorship
        forged = dict(shared, models={"a": "a-model-we-never-ran", "b": "naive-bayes"})
        forged["digest"] = content_digest(forged)
        fake = out / "forged.json"
        fake.write_text(json.dumps(forged))
        assert pdpaired.verify(fake)["models"]["a"] == "a-model-we-never-ran"
        print("a forged artifact with a recomputed digest verifies: sign or publish the digest")


if __name__ == "__main__":
    main()
