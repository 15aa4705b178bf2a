"""pdpaired.core.statistics: corpus metrics scored from totals of per-case statistics.

The oracles: sacrebleu's own scoring of a statistics vector
(``_compute_score_from_stats``, what ``corpus_score`` calls after summing the
segments) for BLEU, chrF and TER, on random totals that reach every branch
(zero matches, zero lengths, short hypotheses); scikit-learn's micro-averaged
F1 for micro_f1; plain sums for ratio.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdpaired
from pdpaired.core.statistics import bleu_score, chrf_score, ter_score

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.metrics import BLEU, CHRF, TER  # noqa: E402


def random_bleu_totals(rng: np.random.Generator, n: int, order: int = 4) -> np.ndarray:
    total = rng.integers(0, 30, (n, order))
    total[rng.random((n, order)) < 0.1] = 0
    match = np.minimum(total, rng.integers(0, 20, (n, order)))
    match[rng.random((n, order)) < 0.3] = 0
    lengths = rng.integers(0, 40, (n, 2))
    return np.column_stack([lengths, match, total]).astype(np.float64)


@pytest.mark.parametrize("smooth_method", ["exp", "floor", "add-k", "none"])
@pytest.mark.parametrize("effective_order", [False, True])
def test_bleu_equals_sacrebleu_on_every_smoothing(
    smooth_method: str, effective_order: bool
) -> None:
    rng = np.random.default_rng(1)
    totals = random_bleu_totals(rng, 800)
    scorer = BLEU(smooth_method=smooth_method, effective_order=effective_order)
    expected = np.array([scorer._compute_score_from_stats([int(v) for v in row]).score
                         for row in totals])  # fmt: skip
    got = bleu_score(totals, smooth_method=smooth_method, effective_order=effective_order)
    np.testing.assert_array_equal(got, expected)  # the same arithmetic, to the last bit
    # any leading shape: a (2, 400) batch gives the same numbers
    np.testing.assert_array_equal(
        bleu_score(totals.reshape(2, 400, -1), smooth_method=smooth_method,
                   effective_order=effective_order).ravel(), expected)  # fmt: skip


def test_bleu_other_orders_and_smooth_values() -> None:
    rng = np.random.default_rng(2)
    for order, value in [(2, None), (3, 0.5), (6, 2.0)]:
        totals = random_bleu_totals(rng, 300, order)
        scorer = BLEU(max_ngram_order=order, smooth_method="add-k", smooth_value=value)
        expected = [scorer._compute_score_from_stats([int(v) for v in r]).score for r in totals]
        got = bleu_score(totals, max_ngram_order=order, smooth_method="add-k", smooth_value=value)
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize(
    "options", [{}, {"word_order": 2}, {"eps_smoothing": True}, {"beta": 1}, {"char_order": 4}]
)
def test_chrf_equals_sacrebleu(options: dict) -> None:
    rng = np.random.default_rng(3)
    scorer = CHRF(**options)
    k = 3 * scorer.order
    totals = rng.integers(0, 10, (800, k)).astype(np.float64)
    totals[:, 2::3] = np.minimum(totals[:, 2::3], totals[:, 0::3])  # matched <= hypothesis
    totals[rng.random(totals.shape) < 0.1] = 0
    expected = [scorer._compute_score_from_stats([int(v) for v in r]).score for r in totals]
    got = chrf_score(totals, beta=options.get("beta", 2),
                     eps_smoothing=options.get("eps_smoothing", False))  # fmt: skip
    np.testing.assert_array_equal(got, expected)


def test_ter_equals_sacrebleu() -> None:
    rng = np.random.default_rng(4)
    totals = rng.random((500, 2)) * 10
    totals[::7, 1] = 0  # no reference words: TER is 1 (edits) or 0 (none)
    totals[::14, 0] = 0
    scorer = TER()
    expected = [scorer._compute_score_from_stats(list(r)).score for r in totals]
    np.testing.assert_array_equal(ter_score(totals), expected)


def test_named_metrics_read_the_reader_columns() -> None:
    from pdpaired.io.sacrebleu import bleu_statistics, chrf_statistics, ter_statistics

    assert pdpaired.metrics.bleu().statistics == tuple(bleu_statistics())
    assert pdpaired.metrics.bleu(max_ngram_order=2).statistics == tuple(bleu_statistics(2))
    assert pdpaired.metrics.chrf(word_order=2).statistics == tuple(chrf_statistics(6, 2))
    assert pdpaired.metrics.chrf(word_order=2).name == "chrf++"
    assert pdpaired.metrics.ter().statistics == tuple(ter_statistics())
    assert pdpaired.metrics.ter().higher_is_better is False
    # extraction options pass through; anything else is refused by name
    pdpaired.metrics.bleu(tokenize="intl", lowercase=True)
    with pytest.raises(TypeError, match=r"Not an option of sacrebleu's BLEU: \['tokenise'\]"):
        pdpaired.metrics.bleu(tokenise="intl")
    with pytest.raises(ValueError, match="smooth_method"):
        pdpaired.metrics.bleu(smooth_method="laplace")
    with pytest.raises(ValueError, match="max_ngram_order"):
        pdpaired.metrics.bleu(max_ngram_order=0)


def test_micro_f1_equals_scikit_learn() -> None:
    from sklearn.metrics import f1_score

    rng = np.random.default_rng(5)
    n, labels = 120, 6
    truth = rng.random((n, labels)) < 0.3
    preds = {m: np.where(rng.random((n, labels)) < p, truth, ~truth)
             for m, p in (("A", 0.85), ("B", 0.75))}  # fmt: skip
    rows = []
    for m, pred in preds.items():
        rows.append(pd.DataFrame({
            "case_id": np.arange(n), "model": m,
            "tp": (pred & truth).sum(1), "fp": (pred & ~truth).sum(1),
            "fn": (~pred & truth).sum(1),
        }))  # fmt: skip
    df = pd.concat(rows, ignore_index=True)
    cmp = df.paired.compare("A", "B", metric=pdpaired.metrics.micro_f1())
    assert cmp.metric_a == pytest.approx(f1_score(truth, preds["A"], average="micro"), rel=1e-12)
    assert cmp.metric_b == pytest.approx(f1_score(truth, preds["B"], average="micro"), rel=1e-12)


def test_ratio_is_a_ratio_of_totals_not_a_mean_of_ratios() -> None:
    df = pd.DataFrame({"case_id": [1, 2, 1, 2], "model": ["A", "A", "B", "B"],
                       "errors": [1, 30, 1, 20], "tokens": [10, 100, 2, 100]})  # fmt: skip
    cmp = df.paired.compare("A", "B", metric=pdpaired.metrics.ratio(
        "errors", "tokens", higher_is_better=False))  # fmt: skip
    assert cmp.metric_a == 31 / 110
    assert cmp.metric_b == 21 / 102
    assert cmp.improvement == pytest.approx(21 / 102 - 31 / 110)  # lower is better: B - A
    with pytest.raises(TypeError, match="higher_is_better"):
        pdpaired.metrics.ratio("errors", "tokens")  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="two columns"):
        pdpaired.metrics.ratio("errors", "errors", higher_is_better=False)


def test_from_statistics_checks_its_arguments() -> None:
    ok = {"statistics": ["x", "y"], "higher_is_better": True}
    with pytest.raises(ValueError, match="distinct"):
        pdpaired.Metric.from_statistics(
            "m", lambda t: t[..., 0], **{**ok, "statistics": ["x", "x"]}
        )
    with pytest.raises(ValueError, match="at least one"):
        pdpaired.Metric.from_statistics("m", lambda t: t[..., 0], **{**ok, "statistics": []})
    with pytest.raises(TypeError, match="callable"):
        pdpaired.Metric.from_statistics("m", 3, **ok)  # type: ignore[arg-type]
    # a function that returns the wrong shape is refused before any resample, by name
    df = pd.DataFrame({"case_id": [1, 2, 1, 2], "model": ["A", "A", "B", "B"],
                       "x": [1.0, 2, 3, 4], "y": [1.0, 1, 1, 1]})  # fmt: skip
    flat = pdpaired.Metric.from_statistics("flat", lambda t: np.ravel(t), **ok)
    with pytest.raises(TypeError, match="'flat'"):
        df.paired.compare("A", "B", metric=flat)
