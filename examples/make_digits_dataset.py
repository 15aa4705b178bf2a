"""Regenerate the ``digits_cv`` example dataset shipped with pdpaired.

This script builds ``pdpaired/datasets/digits_cv.csv``, a small, real paired-comparison
dataset: out-of-fold predictions of two classifiers on scikit-learn's bundled copy of the
UCI Optical Recognition of Handwritten Digits data (``sklearn.datasets.load_digits``,
1797 8x8 images, 10 classes).

Both models are evaluated with the *same* 10-fold
``StratifiedKFold(n_splits=10, shuffle=True, random_state=0)`` split, so every image is a
test case for both models exactly once, in the same fold:

* ``"logreg"``: ``make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000, C=0.05))``
* ``"knn"``: ``KNeighborsClassifier(n_neighbors=15)``

The output is in long layout, one row per ``(case_id, model)`` (3594 rows), sorted by
``case_id`` then ``model``, with columns:

``case_id``
    Image index into ``load_digits()`` (0..1796).
``model``
    ``"logreg"`` or ``"knn"``.
``fold``
    CV fold (0..9) in which the case was in the test set.
``target``
    True digit (0..9).
``predicted``
    Predicted digit (0..9).
``correct``
    1 if ``predicted == target`` else 0 (higher is better).
``log_loss``
    ``-log(p_true)`` with the predicted probability of the true class clipped to
    ``[1e-15, 1]``, rounded to 6 decimals (lower is better).
``brier``
    Multiclass Brier score ``sum_k (p_k - onehot_k)**2``, rounded to 6 decimals
    (lower is better).

The script is deterministic: rerunning it produces a byte-identical file. Rerun it from the
repository root (any working directory works; the output path is resolved relative to
this file) with::

    python examples/make_digits_dataset.py

Requires scikit-learn (``pip install scikit-learn``); no network access is needed.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

OUTPUT = Path(__file__).resolve().parent.parent / "pdpaired" / "datasets" / "digits_cv.csv"
N_SPLITS = 10
RANDOM_STATE = 0
EPS = 1e-15
COLUMNS = ["case_id", "model", "fold", "target", "predicted", "correct", "log_loss", "brier"]


def make_models() -> dict:
    """Return fresh, unfitted instances of the two compared models, keyed by name."""
    return {
        "logreg": make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000, C=0.05)),
        "knn": KNeighborsClassifier(n_neighbors=15),
    }


def build_dataset(models: Callable[[], dict] = make_models) -> pd.DataFrame:
    """Cross-validate the models on the digits data and return per-case scores.

    Parameters
    ----------
    models : callable
        Returns fresh, unfitted models keyed by name (default: the two of
        ``digits_cv.csv``; ``examples/datasets/make_digits_models.py`` passes five).

    Returns
    -------
    pandas.DataFrame
        Long-layout frame with the columns listed in the module docstring, sorted by
        ``case_id`` then ``model``.
    """
    X, y = load_digits(return_X_y=True)
    n = len(y)
    cv = StratifiedKFold(n_splits=N_SPLITS, shuffle=True, random_state=RANDOM_STATE)
    splits = list(cv.split(X, y))

    fold_of = np.empty(n, dtype=np.int64)
    for fold, (_, test) in enumerate(splits):
        fold_of[test] = fold

    frames = []
    for name in models():
        proba = np.zeros((n, 10), dtype=np.float64)
        for train, test in splits:
            model = models()[name]
            model.fit(X[train], y[train])
            # Map predict_proba columns onto digit labels 0..9 explicitly.
            proba[np.ix_(test, model.classes_)] = model.predict_proba(X[test])
        # argmax breaks ties towards the smaller digit, as the models' own predict() does.
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
                    "log_loss": np.round(-np.log(p_true), 6) + 0.0,  # + 0.0 turns -0.0 into 0.0
                    "brier": np.round(((proba - onehot) ** 2).sum(axis=1), 6),
                }
            )
        )

    out = pd.concat(frames, ignore_index=True)
    out = out.sort_values(["case_id", "model"], kind="mergesort", ignore_index=True)
    return out[COLUMNS]


def main() -> None:
    """Build the dataset, write it to ``OUTPUT`` and print a short summary."""
    df = build_dataset()
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(OUTPUT, index=False, lineterminator="\n", float_format="%.6f")
    summary = df.groupby("model")[["correct", "log_loss", "brier"]].mean()
    print(f"wrote {len(df)} rows to {OUTPUT}")
    print(summary.rename(columns={"correct": "accuracy"}).to_string(float_format="%.4f"))


if __name__ == "__main__":
    main()
