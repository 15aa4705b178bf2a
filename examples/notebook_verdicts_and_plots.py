"""A notebook session: two scikit-learn classifiers, a verdict, and plots that show.

Gradient boosting against logistic regression on scikit-learn's breast-cancer
data (569 tumours), with out-of-fold probabilities from the same 10 folds, so
both models are scored on every case. Each ``# %%`` block is a notebook cell
(Jupytext, or an editor that runs ``# %%`` cells, opens it as a notebook);
``res.plot()`` draws on pyplot's current Axes, so in Jupyter ``res.plot();``
shows the figure inline, and in a script ``plt.show()`` (or ``plt.savefig``)
does.
"""

# %%
import matplotlib.pyplot as plt
import pandas as pd
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import pdpaired

X, y = load_breast_cancer(return_X_y=True)
folds = StratifiedKFold(n_splits=10, shuffle=True, random_state=0)
models = {
    "boosting": GradientBoostingClassifier(random_state=0),
    "logreg": make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000)),
}
rows = []
for name, model in models.items():
    p = cross_val_predict(model, X, y, cv=folds, method="predict_proba")[:, 1]
    fold = pd.Series(0, index=range(len(y)))
    for k, (_, test) in enumerate(folds.split(X, y)):
        fold.iloc[test] = k
    rows.append(pd.DataFrame({"case_id": range(len(y)), "model": name,
                              "label": pd.Series(y).map({0: "malignant", 1: "benign"}),
                              "p_benign": p, "fold": fold}))  # fmt: skip
df = pd.concat(rows, ignore_index=True)
acc = df.paired(target="label", prediction="p_benign")

# %%
# AUROC with a practical threshold of 0.01, declared before looking: the
# headline states the verdict, and who is statistically ahead
boot = acc.bootstrap("boosting", "logreg", metric="auroc", class_labels=("malignant", "benign"),
                     practical_threshold=0.01, rng=0)  # fmt: skip
print(boot)
print("verdict:", boot.verdict)

# %%
rnd = acc.randomization("boosting", "logreg", metric="auroc",
                        class_labels=("malignant", "benign"), rng=0)  # fmt: skip
print(f"randomization p = {rnd.pvalue:.4g}")

# %%
# per fold, with an interval and a verdict on each row
sl = acc.by_slice("boosting", "logreg", columns="fold", metric="auroc",
                  class_labels=("malignant", "benign"), uncertainty=True, min_size=20,
                  practical_threshold=0.01, rng=0, n_resamples=2000,
                  n_permutations=2000)  # fmt: skip
print(sl.table[["value", "n", "improvement", "ci_low", "ci_high", "verdict"]].to_string())

# %%
# in a notebook each of these shows its figure inline; a script saves them
boot.plot()
plt.savefig("bootstrap.png", dpi=90)
plt.close("all")
rnd.plot()
plt.savefig("randomization.png", dpi=90)
plt.close("all")
sl.plot()
plt.savefig("forest.png", dpi=90)
plt.close("all")
print("saved bootstrap.png, randomization.png, forest.png")

# %%
# class labels the wrong way round are caught: both AUROCs fall below 0.5
import warnings  # noqa: E402

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    acc.compare("boosting", "logreg", metric="auroc", class_labels=("benign", "malignant"))
print("warning:", str(caught[0].message).split(":")[0])
print(pdpaired.__version__)
