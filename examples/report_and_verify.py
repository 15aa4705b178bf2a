"""The Python API, round trip: a declared report, its artifacts, and ``pdpaired.verify``.

Real data: the diabetes data bundled with scikit-learn (442 patients, no
download). A ridge regression and a random forest predict disease
progression one year after baseline; both are cross-validated on the same
10 folds, so every patient has one out-of-fold prediction from each model.
Each model's predictions form their own table; ``pdpaired.from_tables``
stacks them into the long layout.

The analysis is declared before the numbers are seen -- the metric (RMSE,
lower is better), the noninferiority margin (the forest may be at most 2
units of RMSE worse than ridge), the slice column (BMI in thirds) and the
seed -- and run in one call, ``df.paired.report(...)``. Then:

1. ``report.save(dir)`` writes ``comparison.json`` (local provenance),
   ``comparison.shareable.json`` (aggregates only) and ``comparison.md``;
2. ``pdpaired.verify`` checks both artifacts (schema, digest, consistency);
3. the interval is reproduced from the recorded seed by the same ``report()`` call;
4. an edited copy of the shareable artifact raises ``pdpaired.ArtifactError``.

Run with ``python examples/report_and_verify.py``; it writes into a
temporary directory and removes it. ``examples/cli_round_trip.py`` does the
same from the command line.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import load_diabetes
from sklearn.ensemble import RandomForestRegressor
from sklearn.linear_model import RidgeCV
from sklearn.model_selection import KFold, cross_val_predict

import pdpaired


def prediction_tables() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Out-of-fold predictions of two regressors, one table per model."""
    data = load_diabetes(as_frame=True)
    x, y = data.data, data.target
    cases = pd.DataFrame(
        {
            "patient": [f"P{i:03d}" for i in range(len(y))],
            "progression": y.to_numpy(),
            # the features are centred and scaled; thirds of BMI keep the order
            "bmi_third": pd.qcut(x["bmi"], 3, labels=["low BMI", "mid BMI", "high BMI"]),
        }
    )
    cv = KFold(n_splits=10, shuffle=True, random_state=0)  # the same folds for both models
    models = {
        "ridge": RidgeCV(alphas=np.logspace(-3, 2, 11)),
        "forest": RandomForestRegressor(n_estimators=200, min_samples_leaf=5, random_state=0),
    }
    tables = [
        cases.assign(predicted=cross_val_predict(model, x, y, cv=cv)) for model in models.values()
    ]
    return tables[0], tables[1]


def main() -> None:
    ridge, forest = prediction_tables()
    df = pdpaired.from_tables(forest, ridge, id="patient", names=("forest", "ridge"))
    print(f"{df['patient'].nunique()} patients, models {sorted(df['model'].unique())}\n")

    # Declared up front: metric, margin, slices, seed. A is the forest, B the ridge.
    rep = df.paired(case="patient", target="progression", prediction="predicted").report(
        "forest",
        "ridge",
        metric="rmse",
        noninferiority_margin=2.0,
        slices="bmi_third",
        slice_uncertainty=True,
        n_resamples=2_000,
        n_permutations=2_000,
        rng=0,
    )
    print(rep, end="\n\n")

    with tempfile.TemporaryDirectory() as tmp:
        paths = rep.save(tmp)
        for kind, path in paths.items():
            print(f"wrote {kind:<9} {Path(path).name}")

        # 2. verify both artifacts: schema, digest and internal consistency.
        for kind in ("local", "shareable"):
            art = pdpaired.verify(paths[kind])
            print(f"verify({Path(paths[kind]).name}): ok, kind={art['kind']!r}")
        shareable = json.loads(Path(paths["shareable"]).read_text())
        text = Path(paths["shareable"]).read_text()
        print(f"patient ids in the shareable artifact: {sum(p in text for p in ridge['patient'])}")

        # 3. the interval, reproduced from the recorded seed: the same report() call
        #    (the report's bootstrap reads its own stream, interval.stream, of that seed).
        cmp = df.paired(case="patient", target="progression", prediction="predicted").compare(
            "forest", "ridge", metric="rmse"
        )
        again = cmp.report(
            n_resamples=2_000, n_permutations=2_000, noninferiority_margin=2.0,
            rng=shareable["interval"]["seed"],
        )  # fmt: skip
        same = again.bootstrap.confidence_interval == rep.bootstrap.confidence_interval
        iv = shareable["interval"]
        print(f"interval reproduced from seed={iv['seed']} (stream {iv['stream']}): {same}")

        # 4. an edited copy: the forest's RMSE made 1.0 better, nothing else touched.
        edited = json.loads(json.dumps(shareable))
        edited["metric_a"] -= 1.0
        bad = Path(tmp) / "edited.shareable.json"
        bad.write_text(json.dumps(edited, indent=2))
        try:
            pdpaired.verify(bad)
        except pdpaired.ArtifactError as err:
            print(f"\nverify(edited copy) raised ArtifactError with {len(err.problems)} problems:")
            for problem in err.problems:
                print(f"- {problem}")
        else:
            sys.exit("the edited artifact was not caught")


if __name__ == "__main__":
    main()
