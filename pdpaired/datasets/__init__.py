"""Small, real example datasets for paired model comparison.

Each loader returns a fresh :class:`pandas.DataFrame` read from a CSV file shipped
inside the package, so no network access is needed.
"""

from __future__ import annotations

from importlib.resources import files

import pandas as pd

__all__ = ["load_digits_cv", "load_digits_models"]

_DIGITS_CV_DTYPES = {
    "case_id": "int64",
    "model": str,
    "fold": "int64",
    "target": "int64",
    "predicted": "int64",
    "correct": "int64",
    "log_loss": "float64",
    "brier": "float64",
}


def load_digits_cv() -> pd.DataFrame:
    """Load out-of-fold scores of two classifiers on the handwritten digits data.

    Returns
    -------
    pandas.DataFrame
        Long-layout frame with 3594 rows (1797 cases x 2 models), sorted by
        ``case_id`` then ``model``, with columns:

        ``case_id`` : int64
            Image index into :func:`sklearn.datasets.load_digits` (0..1796); the
            pairing key shared by both models.
        ``model`` : str
            ``"logreg"`` or ``"knn"``.
        ``fold`` : int64
            Cross-validation fold (0..9) in which the case was a test case. Both
            models used the same split, so a case has the same fold for both.
        ``target`` : int64
            True digit (0..9).
        ``predicted`` : int64
            Predicted digit (0..9).
        ``correct`` : int64
            1 if ``predicted == target`` else 0. Higher is better.
        ``log_loss`` : float64
            ``-log(p_true)``, the negative log of the predicted probability of the
            true class clipped to ``[1e-15, 1]``, rounded to 6 decimals. Lower is
            better.
        ``brier`` : float64
            Multiclass Brier score ``sum_k (p_k - onehot_k)**2`` (0..2), rounded to
            6 decimals. Lower is better.

        A new frame is read from disk on every call, so it can be modified freely.

    Notes
    -----
    Provenance: scikit-learn's bundled copy of the UCI Optical Recognition of
    Handwritten Digits test set [1]_ (1797 8x8 grey-level images of the digits 0-9,
    64 integer features in 0..16). Two models were evaluated with the same
    ``StratifiedKFold(n_splits=10, shuffle=True, random_state=0)`` split, and every
    row is an out-of-fold prediction:

    * ``"logreg"``:
      ``make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000, C=0.05))``
      (accuracy 0.9633, mean log loss 0.1943, mean Brier 0.0762);
    * ``"knn"``: ``KNeighborsClassifier(n_neighbors=15)``
      (accuracy 0.9794, mean log loss 0.0927, mean Brier 0.0377).

    The k-NN probabilities are vote fractions (multiples of 1/15), so a case whose
    true class gets no neighbour vote has probability 0, clipped to 1e-15, and a
    log loss of about 34.54. One such case is present; it dominates the tail of the
    k-NN log loss distribution.

    The file is produced deterministically by ``examples/make_digits_dataset.py`` in
    the source repository; regenerate it with::

        python examples/make_digits_dataset.py

    References
    ----------
    .. [1] E. Alpaydin and C. Kaynak, "Optical Recognition of Handwritten Digits",
       UCI Machine Learning Repository, 1998. https://doi.org/10.24432/C50P49

    Examples
    --------
    >>> from pdpaired.datasets import load_digits_cv
    >>> df = load_digits_cv()
    >>> df.shape
    (3594, 8)
    >>> list(df.columns)
    ['case_id', 'model', 'fold', 'target', 'predicted', 'correct', 'log_loss', 'brier']
    >>> sorted(df["model"].unique())
    ['knn', 'logreg']
    >>> df.groupby("model")["correct"].mean().round(4).to_dict()
    {'knn': 0.9794, 'logreg': 0.9633}

    One column per model, one row per case:

    >>> wide = df.pivot(index="case_id", columns="model", values="correct")
    >>> wide.shape
    (1797, 2)
    """
    resource = files("pdpaired.datasets").joinpath("digits_cv.csv")
    with resource.open("r", encoding="utf-8") as fh:
        return pd.read_csv(fh, dtype=_DIGITS_CV_DTYPES)


def load_digits_models() -> pd.DataFrame:
    """Load out-of-fold scores of five classifiers on the handwritten digits data.

    The same 1797 cases and the same ten cross-validation folds as
    :func:`load_digits_cv` (whose two models are the ``"knn"`` and
    ``"logreg"`` rows here), with three more models, for comparing several
    models on the same cases (``df.paired.against``, ``df.paired.all_pairs``).

    Returns
    -------
    pandas.DataFrame
        Long-layout frame with 8985 rows (1797 cases x 5 models), sorted by
        ``case_id`` then ``model``, with the columns of :func:`load_digits_cv`.
        The models:

        * ``"logreg"``: ``make_pipeline(StandardScaler(),
          LogisticRegression(max_iter=2000, C=0.05))`` (accuracy 0.9633);
        * ``"knn"``: ``KNeighborsClassifier(n_neighbors=15)`` (0.9794);
        * ``"lda"``: ``LinearDiscriminantAnalysis()`` (0.9533);
        * ``"nb"``: ``GaussianNB()`` (0.8403);
        * ``"tree"``: ``DecisionTreeClassifier(max_depth=10, random_state=0)`` (0.8425).

    Notes
    -----
    Produced deterministically by ``examples/datasets/make_digits_models.py``
    in the source repository (scikit-learn's bundled digits data, no network).

    Examples
    --------
    >>> from pdpaired.datasets import load_digits_models
    >>> df = load_digits_models()
    >>> df.shape
    (8985, 8)
    >>> df.groupby("model")["correct"].mean().round(4).to_dict()
    {'knn': 0.9794, 'lda': 0.9533, 'logreg': 0.9633, 'nb': 0.8403, 'tree': 0.8425}
    """
    resource = files("pdpaired.datasets").joinpath("digits_models.csv")
    with resource.open("r", encoding="utf-8") as fh:
        return pd.read_csv(fh, dtype=_DIGITS_CV_DTYPES)
