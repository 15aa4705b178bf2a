"""Regenerate the ``digits_models`` example dataset (five classifiers, the same cases).

``pdpaired/datasets/digits_models.csv`` holds out-of-fold predictions of five
classifiers on scikit-learn's bundled copy of the UCI handwritten digits data
(``sklearn.datasets.load_digits``, 1797 images), all evaluated with the *same*
``StratifiedKFold(n_splits=10, shuffle=True, random_state=0)`` split as
``digits_cv.csv`` (so ``logreg`` and ``knn`` are the rows of that file):

* ``"logreg"``: ``make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000, C=0.05))``
* ``"knn"``: ``KNeighborsClassifier(n_neighbors=15)``
* ``"lda"``: ``LinearDiscriminantAnalysis()``
* ``"nb"``: ``GaussianNB()``
* ``"tree"``: ``DecisionTreeClassifier(max_depth=10, random_state=0)``

Columns as in ``digits_cv.csv``: ``case_id``, ``model``, ``fold``, ``target``,
``predicted``, ``correct``, ``log_loss``, ``brier``. Deterministic.

Run ``python examples/datasets/make_digits_models.py --write`` to rewrite the file;
without ``--write`` it rebuilds the table and says whether it equals the shipped one.
Requires scikit-learn.
"""

from __future__ import annotations

import functools
import importlib.util
import sys
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
OUTPUT = HERE.parents[1] / "pdpaired" / "datasets" / "digits_models.csv"


@functools.cache
def _digits_script():  # type: ignore[no-untyped-def]
    """``examples/make_digits_dataset.py``: its cross-validation builds this table too."""
    spec = importlib.util.spec_from_file_location(
        "make_digits_dataset", HERE.parent / "make_digits_dataset.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def make_models() -> dict:
    """Return fresh, unfitted instances of the five models, keyed by name."""
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    from sklearn.naive_bayes import GaussianNB
    from sklearn.tree import DecisionTreeClassifier

    return {
        **_digits_script().make_models(),  # logreg and knn, as in digits_cv.csv
        "lda": LinearDiscriminantAnalysis(),
        "nb": GaussianNB(),
        "tree": DecisionTreeClassifier(max_depth=10, random_state=0),
    }


def build_dataset() -> pd.DataFrame:
    """Cross-validate the five models and return per-case scores (long layout)."""
    return _digits_script().build_dataset(make_models)  # type: ignore[no-any-return]


def main() -> None:
    """Build the table; write it with ``--write``, else compare it with the shipped file."""
    df = build_dataset()
    text = df.to_csv(index=False, lineterminator="\n", float_format="%.6f")
    if "--write" in sys.argv:
        OUTPUT.write_text(text, encoding="utf-8")
        print(f"wrote {len(df)} rows to {OUTPUT}")
    else:
        same = OUTPUT.exists() and OUTPUT.read_text(encoding="utf-8") == text
        print("rebuilt table equals the shipped file" if same else "rebuilt table differs")
    summary = df.groupby("model")[["correct", "log_loss", "brier"]].mean()
    print(summary.rename(columns={"correct": "accuracy"}).to_string(float_format="%.4f"))


if __name__ == "__main__":
    main()
