"""The command line, round trip: CSV files in, verified artifacts out.

Two scikit-learn classifiers (a scaled logistic regression and a random
forest) are cross-validated on the same 10 folds of the breast-cancer data
bundled with scikit-learn (569 tumours; no download). Each model's
out-of-fold probability of "malignant" is written to its own CSV file, the
usual "one prediction file per model" layout, with a slice column (the
tumour's texture, in thirds).

Then, exactly as in a shell or a CI job:

1. ``pdpaired compare logreg.csv forest.csv ... --out reports`` -- the result
   block on stdout, three artifacts in ``reports/``;
2. ``pdpaired verify`` on ``comparison.json`` and ``comparison.shareable.json``;
3. tampered copies of the shareable artifact (one number edited) fail
   ``pdpaired verify`` with exit status 2;
4. the first lines of the human-readable ``comparison.md``.

Run with ``python examples/cli_round_trip.py``; it writes into a temporary
directory and removes it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler


def pdpaired_command() -> list[str]:
    """The installed ``pdpaired`` console script, or ``python -m pdpaired``."""
    bindir = Path(sys.executable).parent
    for name in ("pdpaired", "pdpaired.exe"):
        script = bindir / name
        if script.is_file():
            return [str(script)]
    return [sys.executable, "-m", "pdpaired"]


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run ``pdpaired ARGS`` in ``cwd``, echoing the command line."""
    print("$ pdpaired " + " ".join(args))
    return subprocess.run(
        [*pdpaired_command(), *args], cwd=cwd, capture_output=True, text=True, check=False
    )


def write_prediction_files(directory: Path) -> None:
    """Out-of-fold P(malignant) of two classifiers, one CSV file per model."""
    data = load_breast_cancer(as_frame=True)
    x, y = data.data, data.target  # target 0 = malignant, 1 = benign
    cases = pd.DataFrame(
        {
            "tumour_id": [f"T{i:04d}" for i in range(len(y))],
            "diagnosis": data.target_names[y],  # "malignant" / "benign"
            "texture": pd.qcut(x["mean texture"], 3, labels=["smooth", "medium", "coarse"]),
        }
    )
    # One splitter with a fixed seed for both models: the same folds, a paired comparison.
    cv = StratifiedKFold(n_splits=10, shuffle=True, random_state=0)
    models = {
        "logreg": make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)),
        "forest": RandomForestClassifier(n_estimators=100, random_state=0),
    }
    for name, model in models.items():
        proba = cross_val_predict(model, x, y, cv=cv, method="predict_proba")
        # predict_proba's columns follow classes_ = [0, 1]; 0 is malignant
        table = cases.assign(p_malignant=proba[:, 0].round(6))
        table.to_csv(directory / f"{name}.csv", index=False)
    print(f"wrote logreg.csv and forest.csv: {len(y)} tumours, 10-fold CV, same folds")
    print("\n".join((directory / "logreg.csv").read_text().splitlines()[:3]), end="\n\n")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        write_prediction_files(work)

        # 1. compare: declared up front -- metric, slices, seed, margin.
        proc = run(
            [
                "compare", "logreg.csv", "forest.csv",
                "--id-column", "tumour_id", "--target", "diagnosis",
                "--prediction-column", "p_malignant", "--class-labels", "benign", "malignant",
                "--task-type", "binary", "--metric", "auroc",
                "--noninferiority-margin", "0.01",
                "--slice-columns", "texture", "--include-slice-uncertainty",
                "--resamples", "2000", "--permutations", "2000", "--seed", "0",
                "--out", "reports",
            ],
            work,
        )  # fmt: skip
        print(proc.stdout)
        if proc.returncode != 0:
            sys.exit(f"pdpaired compare failed ({proc.returncode}): {proc.stderr}")

        # 2. verify both artifacts.
        reports = work / "reports"
        for name in ("comparison.json", "comparison.shareable.json"):
            proc = run(["verify", f"reports/{name}"], work)
            print(proc.stdout, end="")
            if proc.returncode != 0:
                sys.exit(f"pdpaired verify failed ({proc.returncode}): {proc.stderr}")

        # What the shareable artifact holds, and what it leaves out.
        local = json.loads((reports / "comparison.json").read_text())
        shareable = json.loads((reports / "comparison.shareable.json").read_text())
        text = (reports / "comparison.shareable.json").read_text()
        print(f"\nlocal provenance (comparison.json only): {local['local']['inputs']}")
        ids = pd.read_csv(work / "logreg.csv")["tumour_id"]
        print(f"tumour ids in the shareable artifact: {sum(i in text for i in ids)} of {len(ids)}")
        print(f"file names in the shareable artifact: {'.csv' in text}")
        print(f"slice labels in the shareable artifact: {'smooth' in text} (data you chose)\n")

        # 3. tampered copies. Raising the interval's lower end keeps the artifact
        # consistent, so only the digest catches it; lowering the forest's AUROC
        # also breaks the difference and the improvement. (The digest is not a
        # signature: whoever recomputes it after editing every related number
        # consistently is not caught -- publish the digest where readers trust it.)
        for field in ("interval.low", "metric_b"):
            copy = json.loads(json.dumps(shareable))  # a deep copy
            if field == "interval.low":
                copy["interval"]["low"] += 0.002
            else:
                copy["metric_b"] -= 0.01
            tampered = work / f"tampered-{field}.json"
            tampered.write_text(json.dumps(copy, indent=2))
            proc = run(["verify", tampered.name], work)
            print(proc.stderr, end="")
            print(f"exit status {proc.returncode}\n")
            if proc.returncode != 2:
                sys.exit(f"the edit of {field} was not caught")

        # 4. the human-readable report.
        print("first lines of reports/comparison.md:\n")
        lines = (reports / "comparison.md").read_text().splitlines()
        print("\n".join(lines[:18]))


if __name__ == "__main__":
    main()
