"""Prediction mode on real scikit-learn models: corpus metrics, recomputed per resample.

Two comparisons on datasets bundled with scikit-learn (no download needed):

(a) Classification, breast-cancer data (569 tumours): logistic regression
    against Gaussian naive Bayes, compared on AUROC and log loss.
(b) Regression, diabetes data (442 patients): ridge regression against a
    small random forest, compared on RMSE.

Both models of a comparison are cross-validated on the *same* folds, so every
case gets one out-of-fold prediction from each model and the comparison is
paired. Each model's predictions are saved as its own table (the usual "one
file per model" layout); ``pdpaired.from_tables`` stacks them into the long
table that ``df.paired(target=..., prediction=...)`` reads.

AUROC, log loss and RMSE are *corpus* metrics: pdpaired recomputes them on
every bootstrap resample and every swap assignment, never averaging a
per-case number. Run with ``python examples/compare_classifiers_and_regressors.py``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer, load_diabetes
from sklearn.ensemble import RandomForestRegressor
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.model_selection import KFold, StratifiedKFold, cross_val_predict
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import pdpaired

N_RESAMPLES = 2_000
N_PERMUTATIONS = 2_000


def classifier_tables() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Out-of-fold P(malignant) of two classifiers, one table per model."""
    data = load_breast_cancer()
    x, y = data.data, data.target  # target 0 = malignant, 1 = benign
    # One splitter with a fixed seed, used for both models: the same folds.
    cv = StratifiedKFold(n_splits=10, shuffle=True, random_state=0)
    models = {
        "logreg": make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)),
        "naive_bayes": GaussianNB(),
    }
    tables = []
    for model in models.values():
        proba = cross_val_predict(model, x, y, cv=cv, method="predict_proba")
        tables.append(
            pd.DataFrame(
                {
                    "sample_id": np.arange(len(y)),
                    "diagnosis": data.target_names[y],  # "malignant" / "benign"
                    # predict_proba's columns follow classes_ = [0, 1]; 0 is malignant
                    "p_malignant": proba[:, 0],
                }
            )
        )
    return tables[0], tables[1]


def regressor_tables() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Out-of-fold predictions of disease progression by two regressors."""
    x, y = load_diabetes(return_X_y=True)
    cv = KFold(n_splits=10, shuffle=True, random_state=0)
    models = {
        "ridge": Ridge(alpha=1.0),
        "forest": RandomForestRegressor(n_estimators=100, min_samples_leaf=5, random_state=0),
    }
    tables = []
    for model in models.values():
        pred = cross_val_predict(model, x, y, cv=cv)
        tables.append(pd.DataFrame({"patient": np.arange(len(y)), "progression": y, "pred": pred}))
    return tables[0], tables[1]


def compare_classifiers() -> None:
    logreg, naive_bayes = classifier_tables()
    # Long layout: one row per (sample_id, model); the target must agree per case.
    long = pdpaired.from_tables(logreg, naive_bayes, id="sample_id", names=("logreg", "nb"))
    # The positive class is "malignant", the class p_malignant is the probability of.
    paired = long.paired(case="sample_id", target="diagnosis", prediction="p_malignant")
    labels = ("benign", "malignant")  # (negative, positive)
    print(f"(a) Breast cancer: {long['sample_id'].nunique()} tumours, 10-fold CV, same folds\n")

    # AUROC, bootstrap resampling within the two diagnosis classes
    # (target-stratified: every resample keeps 212 malignant and 357 benign).
    auroc = paired.compare("logreg", "nb", metric="auroc", class_labels=labels)
    boot = auroc.bootstrap(n_resamples=N_RESAMPLES, rng=0)
    print("AUROC, paired bootstrap (target-stratified)")
    print(boot, end="\n\n")
    # The swap test for AUROC exchanges the two models' within-model ranks per
    # case (Venkatraman & Begg, 1996): naive Bayes' probabilities pile up at
    # exactly 0 and 1 while logreg's are spread out, and swapping raw scores
    # would mix the two scales and make the test needlessly weak. Ranks leave
    # both AUROCs unchanged.
    swap = auroc.randomization(n_permutations=N_PERMUTATIONS, rng=0)
    print("AUROC, paired randomization test (swap within-model ranks per case)")
    print(swap, end="\n\n")

    # Log loss, lower is better: the improvement is direction adjusted, so a
    # positive improvement still means logreg is better. Naive Bayes is very
    # overconfident: probabilities of exactly 0 or 1 are clipped to
    # [eps, 1 - eps] (as scikit-learn does), each costing about 36 nats when wrong.
    loss = paired.compare("logreg", "nb", metric="log_loss", class_labels=labels)
    boot = loss.bootstrap(n_resamples=N_RESAMPLES, rng=0)
    print("Log loss, paired bootstrap (target-stratified)")
    print(boot, end="\n\n")
    swap = loss.randomization(n_permutations=N_PERMUTATIONS, rng=0)
    print("Log loss, paired randomization test")
    print(swap, end="\n\n")
    extreme = int((naive_bayes["p_malignant"].isin([0.0, 1.0])).sum())
    print(f"Naive Bayes gave a probability of exactly 0 or 1 to {extreme} tumours.\n")


def compare_regressors() -> None:
    ridge, forest = regressor_tables()
    long = pdpaired.from_tables(ridge, forest, id="patient", names=("ridge", "forest"))
    paired = long.paired(case="patient", target="progression", prediction="pred")
    print(f"(b) Diabetes: {long['patient'].nunique()} patients, 10-fold CV, same folds\n")

    # RMSE is not a mean of per-case values (the mean of per-case |error| is
    # the MAE): each resample recomputes sqrt(mean squared error).
    rmse = paired.compare("ridge", "forest", metric="rmse")
    boot = rmse.bootstrap(n_resamples=N_RESAMPLES, rng=0, noninferiority_margin=2.0)
    print("RMSE, paired bootstrap (ridge vs random forest; non-inferiority margin 2.0)")
    print(boot, end="\n\n")
    swap = rmse.randomization(n_permutations=N_PERMUTATIONS, rng=0)
    print("RMSE, paired randomization test")
    print(swap)


def main() -> None:
    compare_classifiers()
    compare_regressors()


if __name__ == "__main__":
    main()
