"""pdpaired.io.read_trec: TREC qrels and runs in, per-query measures out.

Two oracles, neither of them pdpaired: ir_measures' own aggregate (the mean
over the judged queries, trec_eval's) and ranx, an independent
implementation, for the per-query scores; ranx's Fisher randomization test
for the paired test on the mean, agreeing within Monte Carlo error.

ranx runs in a subprocess: importing it sets numba's threading layer to
``workqueue`` for the whole process (``ranx/__init__.py``), a layer that
aborts when parallel kernels are launched from several threads at once, as
the Dask tests that share a pytest worker with this file do.
"""

from __future__ import annotations

import importlib.util
import json
import math
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from pdpaired.io import read_trec

ir_measures = pytest.importorskip("ir_measures")
if importlib.util.find_spec("ranx") is None:  # found, but never imported here
    pytest.importorskip("ranx")

RANX = """
import json, sys, warnings
warnings.simplefilter("ignore")
import numpy as np
import ranx
from ranx.statistical_tests import fisher_randomization_test
job = json.loads(sys.argv[1])
qrels = ranx.Qrels.from_file(job["qrels"], kind="trec")
out = {}
for name, path in job["runs"].items():
    run = ranx.Run.from_file(path, kind="trec")
    scores = ranx.evaluate(qrels, run, job["measures"], return_mean=False, make_comparable=True)
    out[name] = {m: [float(x) for x in np.atleast_1d(v)] for m, v in scores.items()}
if "fisher" in job:
    control, treatment = (np.array(job["fisher"][k]) for k in ("control", "treatment"))
    out["fisher"] = float(fisher_randomization_test(control, treatment, n_permutations=job["n"],
                                                    random_seed=1)[0])
print(json.dumps(out))
"""


def ranx_says(job: dict) -> dict:
    """Run ranx on ``job`` in a fresh interpreter (see the module docstring)."""
    proc = subprocess.run([sys.executable, "-c", RANX, json.dumps(job)], capture_output=True,
                          text=True, check=True, timeout=600)  # fmt: skip
    return json.loads(proc.stdout)


N_QUERIES = 80


def write_collection(folder: Path, seed: int = 0) -> dict[str, Path]:
    """A qrels file and three runs: B skips two judged queries, A answers an unjudged one."""
    rng = np.random.default_rng(seed)
    paths = {"qrels": folder / "qrels.txt"}
    with paths["qrels"].open("w") as f:
        for q in range(N_QUERIES):
            for d in range(25):
                rel = int(rng.random() < 0.2) * int(rng.integers(1, 3))
                f.write(f"q{q} 0 d{q}_{d} {rel}\n")
    for name, skill in (("a", 1.2), ("b", 0.8), ("c", 0.0)):
        paths[name] = folder / f"run_{name}.txt"
        with paths[name].open("w") as f:
            for q in range(N_QUERIES):
                if name == "b" and q in (5, 17):
                    continue
                docs = [f"d{q}_{d}" for d in range(25)] + [f"x{q}_{d}" for d in range(10)]
                boost = np.r_[np.full(25, skill), np.zeros(10)]
                score = rng.normal(size=35) + boost * (rng.random(35) < 0.5)
                for rank, i in enumerate(np.argsort(-score)):
                    f.write(f"q{q} Q0 {docs[i]} {rank + 1} {-rank} {name}\n")
            if name == "a":
                f.write("q999 Q0 zz 1 1.0 a\n")
    return paths


@pytest.fixture(scope="module")
def collection(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_collection(tmp_path_factory.mktemp("trec"))


MEASURES = {"nDCG@10": "ndcg@10", "AP": "map", "RR": "mrr", "R@100": "recall@100",
            "P@5": "precision@5"}  # fmt: skip


def read(collection, measures=tuple(MEASURES)):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return read_trec(collection["qrels"],
                         {"A": collection["a"], "B": collection["b"], "C": collection["c"]},
                         measures=list(measures))  # fmt: skip


def test_every_judged_query_is_kept_and_unanswered_ones_score_zero(collection) -> None:
    with pytest.warns(UserWarning, match="TREC runs") as caught:
        df = read_trec(collection["qrels"], {"A": collection["a"], "B": collection["b"]},
                       measures="nDCG@10")  # fmt: skip
    text = " ".join(str(w.message) for w in caught)
    assert "unanswered (each scores 0): B: 2 ('q5', 'q17')" in text
    assert "do not judge (not used): A: 1 ('q999')" in text
    assert df.groupby("model").size().tolist() == [N_QUERIES, N_QUERIES]
    assert "q999" not in set(df["case_id"])
    b = df[df.model == "B"].set_index("case_id")
    assert b.loc[["q5", "q17"], "score"].tolist() == [0.0, 0.0]
    assert not b.loc["q5", "answered"]
    assert b["answered"].sum() == N_QUERIES - 2
    assert df.attrs["unanswered"] == {"A": [], "B": ["q5", "q17"]}
    assert df.attrs["unjudged"] == {"A": ["q999"], "B": []}
    assert df.attrs["higher_is_better"] is True


def test_per_query_scores_equal_ranx_and_the_mean_equals_ir_measures(collection) -> None:
    df = read(collection)
    theirs_all = ranx_says({
        "qrels": str(collection["qrels"]), "measures": list(MEASURES.values()),
        "runs": {m: str(collection[m.lower()]) for m in ("A", "B", "C")},
    })  # fmt: skip
    for model in ("A", "B", "C"):
        theirs = theirs_all[model]
        order = sorted(f"q{q}" for q in range(N_QUERIES))  # ranx's query order
        for ours_name, ranx_name in MEASURES.items():
            ours = df[(df.model == model) & (df.measure == ours_name)].set_index("case_id")
            np.testing.assert_allclose(
                ours.loc[order, "score"], theirs[ranx_name], rtol=0, atol=1e-12,
                err_msg=f"{model} {ours_name}",
            )  # fmt: skip
        # the mean over every judged query, unanswered ones at 0, is ir_measures' aggregate
        agg = ir_measures.calc_aggregate(
            [ir_measures.parse_measure(m) for m in MEASURES],
            list(ir_measures.read_trec_qrels(str(collection["qrels"]))),
            list(ir_measures.read_trec_run(str(collection[model.lower()]))),
        )
        for m, value in agg.items():
            mean = df[(df.model == model) & (df.measure == str(m))]["score"].mean()
            assert mean == pytest.approx(value, abs=1e-12), (model, str(m))


def test_randomization_agrees_with_ranx_fisher(collection) -> None:
    df = read(collection, ["nDCG@10"])
    n = 20_000
    res = df.paired(score="score").randomization("A", "B", higher_is_better=True,
                                                 n_permutations=n, rng=0)  # fmt: skip
    a = df[df.model == "A"].sort_values("case_id")["score"].to_numpy()
    b = df[df.model == "B"].sort_values("case_id")["score"].to_numpy()
    theirs = ranx_says({"qrels": str(collection["qrels"]), "measures": ["ndcg@10"], "runs": {},
                        "fisher": {"control": b.tolist(), "treatment": a.tolist()},
                        "n": n})["fisher"]  # fmt: skip
    p = 0.5 * (res.pvalue + theirs)
    se = math.sqrt(2 * p * (1 - p) / n)  # the difference of two independent estimates
    assert abs(res.pvalue - theirs) < 4 * se + 1e-9, (res.pvalue, theirs)
    assert 0.001 < p < 0.999  # a p-value where the check has power


def test_bad_input_is_refused(collection, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="Unknown measure 'nDCG@ten'"):
        read_trec(collection["qrels"], {"A": collection["a"]}, measures="nDCG@ten")
    with pytest.raises(ValueError, match="more than once"):
        read_trec(collection["qrels"], {"A": collection["a"]}, measures=["AP", "AP"])
    with pytest.raises(ValueError, match="empty"):
        read_trec(collection["qrels"], {"A": collection["a"]}, measures=[])
    with pytest.raises(ValueError, match="non-empty mapping"):
        read_trec(collection["qrels"], {}, measures="AP")
    with pytest.raises(FileNotFoundError, match=r"missing\.txt"):
        read_trec(tmp_path / "missing.txt", {"A": collection["a"]}, measures="AP")
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    with pytest.raises(ValueError, match="has no lines"):
        read_trec(empty, {"A": collection["a"]}, measures="AP")
