"""Comparisons on metrics of per-case statistics: every analysis against an oracle outside pdpaired.

The oracles resample sacrebleu's own per-segment statistics with NumPy and
score each resample with sacrebleu (``_compute_score_from_stats``, what
sacrebleu's paired bootstrap does), cluster by cluster for documents and
stratum by stratum for strata; sacrebleu's paired approximate randomization
(``PairedTest(test_type="ar")``) for the randomization test; plain NumPy
for a ratio. Each tolerance is the Monte Carlo error of the two estimates.
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pdpaired
from pdpaired.io import read_sacrebleu
from pdpaired.io.sacrebleu import bleu_statistics

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.metrics import BLEU  # noqa: E402


def make_corpus(folder: Path, n_docs: int = 60, per_doc: int = 8, seed: int = 0) -> dict:
    """Systems whose quality varies by document (segments of a document are correlated)."""
    rng = np.random.default_rng(seed)
    vocab = [f"w{i}" for i in range(150)]
    n = n_docs * per_doc
    refs = [" ".join(rng.choice(vocab, rng.integers(4, 20))) for _ in range(n)]
    doc = np.repeat(np.arange(n_docs), per_doc)
    hard = rng.uniform(0.1, 0.5, n_docs)[doc]  # a document's difficulty, shared by both
    gap = rng.normal(0.0, 0.06, n_docs)[doc]  # and how much better A does on it
    systems = {}
    for name, p in (("A", np.clip(hard - gap / 2 - 0.01, 0, 1)),
                    ("B", np.clip(hard + gap / 2, 0, 1))):  # fmt: skip
        systems[name] = [" ".join(w if rng.random() > p[i] else str(rng.choice(vocab))
                                  for w in r.split()) for i, r in enumerate(refs)]  # fmt: skip
    paths = {}
    for name, lines in {"ref": refs, **systems}.items():
        paths[name] = folder / f"{name}.txt"
        paths[name].write_text("\n".join(lines) + "\n")
    paths["docs"] = folder / "docs.txt"
    paths["docs"].write_text("\n".join(f"d{d}" for d in doc) + "\n")
    return {"paths": paths, "refs": refs, **systems}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict:
    c = make_corpus(tmp_path_factory.mktemp("mt"))
    p = c["paths"]
    c["table"] = read_sacrebleu(p["ref"], {"A": p["A"], "B": p["B"]}, documents=p["docs"])
    c["table"]["half"] = np.where(c["table"]["case_id"] % 2 == 0, "even", "odd")
    return c


def stats_of(table: pd.DataFrame, model: str) -> np.ndarray:
    return table[table.model == model].sort_values("case_id")[bleu_statistics()].to_numpy()


def sacrebleu_scores(totals: np.ndarray) -> np.ndarray:
    scorer = BLEU()
    return np.array([scorer._compute_score_from_stats([int(v) for v in t]).score for t in totals])


def quantile_tolerance(draws: np.ndarray, level: float, n: int) -> float:
    """Four Monte Carlo SEs of the difference of two bootstrap quantiles at ``level``.

    The SE of a sample quantile is ``sqrt(p (1 - p) / n) / f(q)``; the density
    ``f`` at the quantile is estimated from the oracle's draws (a histogram
    bin of 2 % of the mass around it).
    """
    q = np.quantile(draws, [level - 0.01, level + 0.01])
    density = 0.02 / (q[1] - q[0])
    return 4 * math.sqrt(2) * math.sqrt(level * (1 - level) / n) / density


def check_against_oracle(res, oracle: np.ndarray, n: int) -> None:
    lo, hi = res.confidence_interval.low, res.confidence_interval.high
    for ours, level in ((lo, 0.025), (hi, 0.975)):
        theirs = float(np.quantile(oracle, level))
        assert abs(ours - theirs) < quantile_tolerance(oracle, level, n), (level, ours, theirs)
    # the SE of a bootstrap SE estimate is about SE / sqrt(2 n) per side
    assert res.standard_error == pytest.approx(oracle.std(ddof=1), rel=4 * math.sqrt(2 / (2 * n)))


def test_iid_bootstrap_matches_resampling_sacrebleus_statistics(corpus) -> None:
    n = 4000
    res = corpus["table"].paired.bootstrap("A", "B", metric=pdpaired.metrics.bleu(),
                                           n_resamples=n, rng=1)  # fmt: skip
    sa, sb = stats_of(corpus["table"], "A"), stats_of(corpus["table"], "B")
    idx = np.random.default_rng(2).integers(0, len(sa), (n, len(sa)))
    oracle = sacrebleu_scores(sa[idx].sum(1)) - sacrebleu_scores(sb[idx].sum(1))
    assert res.improvement == (
        sacrebleu.corpus_bleu(corpus["A"], [corpus["refs"]]).score
        - sacrebleu.corpus_bleu(corpus["B"], [corpus["refs"]]).score
    )
    check_against_oracle(res, oracle, n)


def test_document_bootstrap_matches_resampling_whole_documents(corpus) -> None:
    n = 4000
    table = corpus["table"]
    res = table.paired(group="document").bootstrap("A", "B", metric=pdpaired.metrics.bleu(),
                                                   n_resamples=n, rng=1)  # fmt: skip
    sa, sb = stats_of(table, "A"), stats_of(table, "B")
    docs = table[table.model == "A"].sort_values("case_id")["document"].to_numpy()
    labels, inverse = np.unique(docs, return_inverse=True)
    da = np.zeros((len(labels), sa.shape[1]))
    db = np.zeros_like(da)
    np.add.at(da, inverse, sa)
    np.add.at(db, inverse, sb)
    idx = np.random.default_rng(3).integers(0, len(labels), (n, len(labels)))
    oracle = sacrebleu_scores(da[idx].sum(1)) - sacrebleu_scores(db[idx].sum(1))
    check_against_oracle(res, oracle, n)
    # the segments of a document are correlated here: treating them as independent
    # understates the uncertainty, by more than the Monte Carlo error
    iid = table.paired.bootstrap("A", "B", metric=pdpaired.metrics.bleu(), n_resamples=n, rng=1)
    assert iid.standard_error < 0.85 * res.standard_error


def test_stratified_bootstrap_matches_resampling_within_strata(corpus) -> None:
    n = 4000
    table = corpus["table"]
    res = table.paired(stratum="half").bootstrap("A", "B", metric=pdpaired.metrics.bleu(),
                                                 n_resamples=n, rng=1)  # fmt: skip
    sa, sb = stats_of(table, "A"), stats_of(table, "B")
    half = table[table.model == "A"].sort_values("case_id")["half"].to_numpy()
    rng = np.random.default_rng(4)
    ta = np.zeros((n, sa.shape[1]))
    tb = np.zeros_like(ta)
    for h in np.unique(half):  # equal-size strata: the observed shares are the weights
        rows = np.flatnonzero(half == h)
        idx = rows[rng.integers(0, len(rows), (n, len(rows)))]
        ta += sa[idx].sum(1)
        tb += sb[idx].sum(1)
    oracle = sacrebleu_scores(ta) - sacrebleu_scores(tb)
    check_against_oracle(res, oracle, n)


def test_randomization_matches_sacrebleus_paired_approximate_randomization(corpus) -> None:
    from sacrebleu.significance import PairedTest

    n = 4000
    cut = 240  # a subset on which the p-value is moderate, where the comparison has power
    table = corpus["table"][corpus["table"].case_id <= cut]
    res = table.paired.randomization("A", "B", metric=pdpaired.metrics.bleu(),
                                     n_permutations=n, rng=0)  # fmt: skip
    refs = corpus["refs"][:cut]
    test = PairedTest([("B", corpus["B"][:cut]), ("A", corpus["A"][:cut])],
                      {"BLEU": BLEU(references=[refs])}, references=None, test_type="ar",
                      n_samples=n)  # fmt: skip
    theirs = test()[1]["BLEU"][1].p_value
    p = 0.5 * (res.pvalue + theirs)
    assert 0.01 < p < 0.9, p
    assert abs(res.pvalue - theirs) < 4 * math.sqrt(2 * p * (1 - p) / n) + 1 / n


def test_ratio_bootstrap_matches_numpy() -> None:
    rng = np.random.default_rng(7)
    n, b = 300, 4000
    tokens = rng.integers(5, 60, n)
    err = {m: rng.binomial(tokens, p) for m, p in (("A", 0.08), ("B", 0.1))}
    df = pd.concat([pd.DataFrame({"case_id": np.arange(n), "model": m, "errors": e,
                                  "tokens": tokens}) for m, e in err.items()])  # fmt: skip
    metric = pdpaired.metrics.ratio("errors", "tokens", higher_is_better=False)
    res = df.paired.bootstrap("A", "B", metric=metric, n_resamples=b, rng=0)
    idx = rng.integers(0, n, (b, n))
    rate = {m: e[idx].sum(1) / tokens[idx].sum(1) for m, e in err.items()}
    oracle = rate["B"] - rate["A"]  # lower is better: the improvement of A is B - A
    expected = err["B"].sum() / tokens.sum() - err["A"].sum() / tokens.sum()
    assert res.improvement == pytest.approx(expected, rel=1e-12)
    check_against_oracle(res, oracle, b)


def test_several_models_and_slices_score_each_subset_as_sacrebleu_does(corpus) -> None:
    table = corpus["table"]
    c = table[table.model == "A"].assign(model="C")
    three = pd.concat([table, c], ignore_index=True)
    res = three.paired.against("B", metric=pdpaired.metrics.bleu(), n_resamples=999, rng=0)
    assert len(res.comparisons) == 2
    sl = table.paired.compare("A", "B", metric=pdpaired.metrics.bleu()).by_slice(
        "half", rng=0, min_size=2)  # fmt: skip
    rows = sl.table.set_index(sl.table.columns[0]) if hasattr(sl, "table") else None
    frame = sl.to_frame() if rows is None else rows
    for half, parity in (("even", 0), ("odd", 1)):
        keep = [i for i in range(len(corpus["refs"])) if (i + 1) % 2 == parity]
        a = sacrebleu.corpus_bleu([corpus["A"][i] for i in keep],
                                  [[corpus["refs"][i] for i in keep]]).score  # fmt: skip
        b = sacrebleu.corpus_bleu([corpus["B"][i] for i in keep],
                                  [[corpus["refs"][i] for i in keep]]).score  # fmt: skip
        row = frame[frame.astype(str).eq(half).any(axis=1)].iloc[0]
        assert row["improvement"] == pytest.approx(a - b, rel=1e-12)


def test_dask_gives_the_pandas_numbers(corpus) -> None:
    dd = pytest.importorskip("dask.dataframe")
    import pdpaired.dask

    table = corpus["table"]
    ddf = dd.from_pandas(table, npartitions=3)
    m = pdpaired.metrics.bleu()
    ours = ddf.paired(group="document").bootstrap("A", "B", metric=m, n_resamples=999, rng=5)
    ref = table.paired(group="document").bootstrap("A", "B", metric=m, n_resamples=999, rng=5)
    assert ours.confidence_interval == ref.confidence_interval
    assert ours.improvement == ref.improvement


def test_missing_statistics_follow_the_declared_policy(corpus) -> None:
    table = corpus["table"].copy()
    table.loc[(table.model == "A") & (table.case_id == 9), "bleu_match_1"] = np.nan
    m = pdpaired.metrics.bleu()
    with pytest.raises(pdpaired.PairingError, match=r"missing outcome for A.*first ids: \[9\]"):
        table.paired.compare("A", "B", metric=m)
    cmp = table.paired.compare("A", "B", metric=m, missing="complete-case")
    kept = [i for i in range(len(corpus["refs"])) if i != 8]
    refs = [[corpus["refs"][i] for i in kept]]
    assert cmp.metric_a == sacrebleu.corpus_bleu([corpus["A"][i] for i in kept], refs).score
    with pytest.raises(ValueError, match="as-failure' is not available for the statistics"):
        table.paired.compare("A", "B", metric=m, missing="as-failure")
    with pytest.raises(NotImplementedError, match="per-case statistics"):
        cmp.sensitivity()
    rep = cmp.report(n_resamples=199, n_permutations=199, rng=0)
    assert rep.sensitivity is None
    assert "per-case statistics" in rep.sensitivity_note


def test_bad_statistics_tables_get_clear_errors(corpus) -> None:
    table = corpus["table"]
    m = pdpaired.metrics.bleu()
    with pytest.raises(ValueError, match=r"needs the column\(s\) \['bleu_match_4'\].*columns:"):
        table.drop(columns="bleu_match_4").paired.compare("A", "B", metric=m)
    with pytest.raises(ValueError, match="contradicts metric 'bleu'"):
        table.paired.compare("A", "B", metric=m, higher_is_better=False)
    inf = table.astype({"bleu_sys_len": float})
    inf.loc[(inf.model == "B") & (inf.case_id == 4), "bleu_sys_len"] = np.inf
    with pytest.raises(pdpaired.PairingError, match=r"rule `finite .*first ids: \[4\]"):
        inf.paired.compare("A", "B", metric=m)
    with pytest.raises(ValueError, match="binary per-case outcomes"):
        table.paired.compare("A", "B", metric=m).exact_binomial()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="repeat='sample' is score mode only"):
            table.paired(repeat="sample").compare("A", "B", metric=m)
