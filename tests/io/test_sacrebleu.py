"""pdpaired.io.read_sacrebleu: per-segment statistics in, corpus BLEU / chrF / TER out.

The oracle is sacrebleu itself: ``sacrebleu.corpus_bleu`` (``corpus_chrf``,
``corpus_ter``) on the same files must give exactly the comparison's point
estimates, with the same tokenizer and options, one reference or several.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pdpaired
from pdpaired.io import read_sacrebleu
from pdpaired.io.sacrebleu import bleu_statistics, chrf_statistics

sacrebleu = pytest.importorskip("sacrebleu")


def write_corpus(folder: Path, n: int = 120, seed: int = 0) -> dict[str, Path]:
    """Reference(s) and three systems of word-noised copies, and a documents file."""
    rng = np.random.default_rng(seed)
    vocab = [f"w{i}" for i in range(80)] + ["Hello", "world,", "it's", "naïve", "日本語"]
    refs = [" ".join(rng.choice(vocab, rng.integers(3, 18))) for _ in range(n)]
    ref2 = [" ".join(reversed(r.split())) for r in refs]

    def noisy(p: float) -> list[str]:
        return [" ".join(w if rng.random() > p else str(rng.choice(vocab)) for w in r.split())
                for r in refs]  # fmt: skip

    out = {"ref": refs, "ref2": ref2, "a": noisy(0.25), "b": noisy(0.3), "c": noisy(0.4)}
    out["c"][3] = ""  # an empty output is an output: zero matches, its reference length kept
    paths = {}
    for name, lines in out.items():
        paths[name] = folder / f"{name}.txt"
        paths[name].write_text("\n".join(lines) + "\n", encoding="utf-8")
    paths["docs"] = folder / "docs.txt"
    paths["docs"].write_text("\n".join(f"doc{i // 6}" for i in range(n)) + "\n")
    return paths


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_corpus(tmp_path_factory.mktemp("mt"))


def lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")[:-1]


@pytest.mark.parametrize(
    ("metric", "options", "scorer"),
    [
        ("bleu", {}, lambda h, r: sacrebleu.corpus_bleu(h, r).score),
        ("bleu", {"tokenize": "intl", "lowercase": True},
         lambda h, r: sacrebleu.corpus_bleu(h, r, tokenize="intl", lowercase=True).score),
        ("chrf", {}, lambda h, r: sacrebleu.corpus_chrf(h, r).score),
        ("chrf", {"word_order": 2}, lambda h, r: sacrebleu.corpus_chrf(h, r, word_order=2).score),
        ("ter", {}, lambda h, r: sacrebleu.corpus_ter(h, r).score),
    ],
)  # fmt: skip
def test_point_estimates_equal_sacrebleu(corpus, metric, options, scorer) -> None:
    df = read_sacrebleu(corpus["ref"], {"A": corpus["a"], "C": corpus["c"]}, metric=metric,
                        **options)  # fmt: skip
    m = getattr(pdpaired.metrics, metric)(**options)
    cmp = df.paired.compare("A", "C", metric=m)
    refs = [lines(corpus["ref"])]
    assert cmp.metric_a == scorer(lines(corpus["a"]), refs)
    assert cmp.metric_b == scorer(lines(corpus["c"]), refs)
    assert df.attrs["higher_is_better"] is (metric != "ter")
    assert df.attrs["metric_options"] == options


def test_several_references(corpus) -> None:
    df = read_sacrebleu([corpus["ref"], corpus["ref2"]], {"A": corpus["a"], "B": corpus["b"]})
    cmp = df.paired.compare("A", "B", metric=pdpaired.metrics.bleu())
    refs = [lines(corpus["ref"]), lines(corpus["ref2"])]
    assert cmp.metric_a == sacrebleu.corpus_bleu(lines(corpus["a"]), refs).score
    assert cmp.metric_b == sacrebleu.corpus_bleu(lines(corpus["b"]), refs).score


def test_table_layout(corpus) -> None:
    df = read_sacrebleu(corpus["ref"], {"A": corpus["a"], "B": corpus["b"]},
                        documents=corpus["docs"])  # fmt: skip
    assert list(df.columns) == ["case_id", "model", "document", *bleu_statistics()]
    assert len(df) == 240
    assert df["case_id"].tolist() == list(range(1, 121)) * 2
    assert (df.dtypes[bleu_statistics()] == np.int64).all()
    assert df.loc[df.case_id == 7, "document"].tolist() == ["doc1", "doc1"]
    # the statistics are sacrebleu's own, segment by segment
    one = sacrebleu.sentence_bleu(lines(corpus["a"])[4], [lines(corpus["ref"])[4]])
    row = df[(df.model == "A") & (df.case_id == 5)].iloc[0]
    assert [row["bleu_sys_len"], row["bleu_ref_len"]] == [one.sys_len, one.ref_len]
    assert [row[f"bleu_match_{i}"] for i in range(1, 5)] == one.counts
    assert [row[f"bleu_total_{i}"] for i in range(1, 5)] == one.totals
    chrf = read_sacrebleu(corpus["ref"], {"A": corpus["a"]}, metric="chrf", word_order=2)
    assert list(chrf.columns[2:]) == chrf_statistics(6, 2)


def test_bad_files_are_refused_by_name(corpus, tmp_path: Path) -> None:
    short = tmp_path / "short.txt"
    short.write_text("one line\n")
    with pytest.raises(ValueError, match=r"one line per segment.*short\.txt: 1"):
        read_sacrebleu(corpus["ref"], {"A": corpus["a"], "S": short})
    with pytest.raises(ValueError, match=r"short\.txt: 1"):
        read_sacrebleu(corpus["ref"], {"A": corpus["a"]}, documents=short)
    with pytest.raises(FileNotFoundError, match=r"nope\.txt"):
        read_sacrebleu(corpus["ref"], {"A": tmp_path / "nope.txt"})
    with pytest.raises(ValueError, match="metric"):
        read_sacrebleu(corpus["ref"], {"A": corpus["a"]}, metric="meteor")
    with pytest.raises(ValueError, match="non-empty mapping"):
        read_sacrebleu(corpus["ref"], {})
    with pytest.raises(TypeError, match="Not an option of sacrebleu's BLEU"):
        read_sacrebleu(corpus["ref"], {"A": corpus["a"]}, tokenise="13a")


def test_the_callers_files_and_row_order_do_not_matter(corpus) -> None:
    df = read_sacrebleu(corpus["ref"], {"A": corpus["a"], "B": corpus["b"]})
    m = pdpaired.metrics.bleu()
    res = df.paired.bootstrap("A", "B", metric=m, n_resamples=999, rng=3)
    shuffled = df.sample(frac=1.0, random_state=1)
    before = shuffled.copy()
    again = shuffled.paired.bootstrap("A", "B", metric=m, n_resamples=999, rng=3)
    assert again.confidence_interval == res.confidence_interval
    pd.testing.assert_frame_equal(shuffled, before)
