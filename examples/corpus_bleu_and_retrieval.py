"""Corpus BLEU with documents as the unit, and two retrieval runs on every judged query.

Corpus BLEU is a function of the corpus totals of each segment's n-gram
matches and lengths, not the mean of sentence BLEU: the paired bootstrap
resamples segments (here whole documents, since one hard document is hard
for both systems) and recomputes corpus BLEU from the resample's totals.
The point estimate is sacrebleu's ``corpus_bleu`` to the last bit, which
this script checks.

The retrieval half reads a qrels file and two runs with ir_measures'
measures; a query one run did not answer scores 0 rather than vanishing
from its mean.

The same from the command line:

    pdpaired compare --sacrebleu ref.txt new.txt old.txt --documents docs.txt --seed 0
    pdpaired compare --trec qrels.txt dense.run bm25.run --metric nDCG@10 --seed 0

Needs ``pip install "pdpaired[text,ir]"`` (sacrebleu, ir_measures).
"""

from __future__ import annotations

import tempfile
import warnings
from pathlib import Path

import numpy as np

import pdpaired
from pdpaired.io import read_sacrebleu, read_trec


def write_translations(folder: Path, rng: np.random.Generator) -> list[str]:
    """A reference and two systems over 40 documents; difficulty and the gap vary by document."""
    words = [
        "the",
        "a",
        "cat",
        "dog",
        "sat",
        "ran",
        "on",
        "under",
        "mat",
        "rug",
        "house",
        "garden",
        "today",
        "yesterday",
        "quickly",
        "slowly",
        "red",
        "big",
        "small",
        "old",
        "river",
        "stone",
        "light",
    ]
    n_docs, per_doc = 40, 15
    refs = [" ".join(rng.choice(words, rng.integers(6, 18))) for _ in range(n_docs * per_doc)]
    difficulty = np.repeat(rng.uniform(0.1, 0.35, n_docs), per_doc)
    gap = np.repeat(rng.normal(0.0, 0.06, n_docs), per_doc)  # new's edge varies by document
    for name, p in (("new", difficulty - 0.02 - gap / 2), ("old", difficulty + gap / 2)):
        lines = [" ".join(w if rng.random() > q else str(rng.choice(words)) for w in r.split())
                 for r, q in zip(refs, p, strict=True)]  # fmt: skip
        (folder / f"{name}.txt").write_text("\n".join(lines) + "\n")
    (folder / "ref.txt").write_text("\n".join(refs) + "\n")
    docs = [f"doc{i // per_doc}" for i in range(n_docs * per_doc)]
    (folder / "docs.txt").write_text("\n".join(docs) + "\n")
    return refs


def write_runs(folder: Path, rng: np.random.Generator) -> None:
    """A qrels file of 50 queries and two runs; the dense run skips three queries."""
    lines = [f"q{q} 0 d{q}_{k} {int(rng.random() < 0.25)}" for q in range(50) for k in range(20)]
    (folder / "qrels.txt").write_text("\n".join(lines) + "\n")
    for name, skill, skip in (("dense", 1.0, {4, 19, 33}), ("bm25", 0.7, set())):
        rel = {}
        for line in lines:
            q, _, doc, r = line.split()
            rel[doc] = int(r)
        out = []
        for q in range(50):
            if q in skip:
                continue
            docs = [f"d{q}_{k}" for k in range(20)]
            score = rng.normal(size=20) + skill * np.array([rel[d] for d in docs])
            for rank, i in enumerate(np.argsort(-score)):
                out.append(f"q{q} Q0 {docs[i]} {rank + 1} {20 - rank} {name}")
        (folder / f"{name}.run").write_text("\n".join(out) + "\n")


def main() -> None:
    rng = np.random.default_rng(7)
    folder = Path(tempfile.mkdtemp())
    refs = write_translations(folder, rng)

    # -- machine translation: corpus BLEU, documents as the resampled unit --------------
    df = read_sacrebleu(folder / "ref.txt", {"new": folder / "new.txt", "old": folder / "old.txt"},
                        documents=folder / "docs.txt")  # fmt: skip
    bleu = pdpaired.metrics.bleu()
    cmp = df.paired(group="document").compare("new", "old", metric=bleu)
    import sacrebleu

    new = (folder / "new.txt").read_text().splitlines()
    assert cmp.metric_a == sacrebleu.corpus_bleu(new, [refs]).score  # the same number
    res = cmp.bootstrap(rng=0)
    print(res)
    iid = df.paired.bootstrap("new", "old", metric=bleu, rng=0)
    print(f"\nSE with documents as the unit {res.standard_error:.3f}; "
          f"treating segments as independent {iid.standard_error:.3f}\n")  # fmt: skip
    print(cmp.randomization(rng=0))

    # -- retrieval: nDCG@10 over every judged query ---------------------------------------
    write_runs(folder, rng)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        runs = read_trec(folder / "qrels.txt",
                         {"dense": folder / "dense.run", "bm25": folder / "bm25.run"},
                         measures=["nDCG@10", "AP"])  # fmt: skip
    for w in caught:
        print(f"\nnote: {w.message}")
    print(f"unanswered queries: {runs.attrs['unanswered']}\n")
    ndcg = runs[runs["measure"] == "nDCG@10"]
    print(ndcg.paired.bootstrap("dense", "bm25", higher_is_better=True, rng=0))


if __name__ == "__main__":
    main()
