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

import sys
from pathlib import Path

import numpy as np
import pandas as pd

OUTPUT = Path(__file__).resolve().parents[2] / "pdpaired" / "datasets" / "digits_models.csv"
EPS = 1e-15
COLUMNS = ["case_id", "model", "fold", "target", "predicted", "correct", "log_loss", "brier"]


def make_models() -> dict:
    """Return fresh, unfitted instances of the five models, keyed by name."""
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.tree import DecisionTreeClassifier

    return {
        "logreg": make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000, C=0.05)),
        "knn": KNeighborsClassifier(n_neighbors=15),
        "lda": LinearDiscriminantAnalysis(),
        "nb": GaussianNB(),
        "tree": DecisionTreeClassifier(max_depth=10, random_state=0),
    }


def build_dataset() -> pd.DataFrame:
    """Cross-validate the five models and return per-case scores (long layout)."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import StratifiedKFold

    X, y = load_digits(return_X_y=True)
    n = len(y)
    splits = list(StratifiedKFold(n_splits=10, shuffle=True, random_state=0).split(X, y))
    fold_of = np.empty(n, dtype=np.int64)
    for fold, (_, test) in enumerate(splits):
        fold_of[test] = fold
    frames = []
    for name in make_models():
        proba = np.zeros((n, 10), dtype=np.float64)
        for train, test in splits:
            model = make_models()[name]
            model.fit(X[train], y[train])
            proba[np.ix_(test, model.classes_)] = model.predict_proba(X[test])
        predicted = proba.argmax(axis=1)
        p_true = np.clip(proba[np.arange(n), y], EPS, 1.0)
        onehot = np.eye(10)[y]
        frames.append(
            pd.DataFrame(
                {
                    "case_id": np.arange(n, dtype=np.int64),
                    "model": name,
                    "fold": fold_of,
                    "target": y.astype(np.int64),
                    "predicted": predicted.astype(np.int64),
                    "correct": (predicted == y).astype(np.int64),
                    "log_loss": np.round(-np.log(p_true), 6) + 0.0,
                    "brier": np.round(((proba - onehot) ** 2).sum(axis=1), 6),
                }
            )
        )
    out = pd.concat(frames, ignore_index=True)
    out = out.sort_values(["case_id", "model"], kind="mergesort", ignore_index=True)
    return out[COLUMNS]


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
