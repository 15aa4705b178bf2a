"""Prediction mode: engines, design invariances, closed forms and bad input.

Statistical oracles (scikit-learn metric values, independent paired
bootstraps, DeLong) are in ``TestAgainstOracles`` below; the coverage and
type-I error simulations in ``tests/calibration/test_delong.py``.
"""

from __future__ import annotations

import itertools
import math
import os
from collections.abc import Iterator

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from scipy.special import expit, ndtri
from sklearn import metrics as skm
from sklearn.metrics import (
    accuracy_score,
    balanced_accuracy_score,
    brier_score_loss,
    f1_score,
    log_loss,
    mean_absolute_error,
    r2_score,
    roc_auc_score,
    root_mean_squared_error,
)

import pdpaired
from pdpaired import DegenerateDataWarning, PairingError
from pdpaired.core.randomization import swap_indicators, tie_tolerance

from ..core.test_bootstrap import (
    ALPHA,
    LEVEL,
    P_FAIL,
    bca_endpoint_se,
    bca_from_dist,
    ci,
    dh_acceleration,
    percentile_interval,
    quantile_se,
    sd_se,
)


def table(n: int = 300, *, seed: int = 0, groups: int | None = None, strata: int | None = None,
          prevalence: float = 0.5, ties: bool = True) -> pd.DataFrame:  # fmt: skip
    """Binary target, two probability models of different quality."""
    rng = np.random.default_rng(seed)
    y = (rng.uniform(size=n) < prevalence).astype(int)
    z = rng.normal(size=(2, n))
    pa = 1 / (1 + np.exp(-(1.5 * (2 * y - 1) + z[0])))
    pb = 1 / (1 + np.exp(-(0.8 * (2 * y - 1) + z[1])))
    if ties:
        pa, pb = np.round(pa, 2), np.round(pb, 2)
    df = pd.DataFrame(
        {
            "case_id": np.tile(np.arange(n), 2),
            "model": np.repeat(["A", "B"], n),
            "y": np.tile(y, 2),
            "p": np.concatenate([pa, pb]),
            "v": np.concatenate([y + z[0] * 0.5, y + z[1] * 0.8]),  # a regression output
        }
    )
    if groups:
        g = rng.integers(0, groups, n)
        df["group"] = np.tile(g, 2)
        if strata:
            df["stratum"] = np.tile(g % strata, 2)
    elif strata:
        df["stratum"] = np.tile(rng.integers(0, strata, n), 2)
    return df


def multiclass(n: int = 240, k: int = 3, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    frames = []
    for name, strength in (("A", 2.0), ("B", 1.0)):
        logits = rng.normal(size=(n, k)) + strength * np.eye(k)[y]
        prob = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
        f = pd.DataFrame(prob, columns=[f"p{j}" for j in range(k)])
        f.insert(0, "y", y)
        f.insert(0, "model", name)
        f.insert(0, "case_id", np.arange(n))
        frames.append(f)
    return pd.concat(frames, ignore_index=True)


@pytest.fixture
def both_engines() -> Iterator[None]:
    old = os.environ.get("PDPAIRED_ACCELERATOR")
    yield
    if old is None:
        os.environ.pop("PDPAIRED_ACCELERATOR", None)
    else:
        os.environ["PDPAIRED_ACCELERATOR"] = old


def dist(cmp: pdpaired.Comparison, engine: str, **kw: object) -> np.ndarray:
    os.environ["PDPAIRED_ACCELERATOR"] = engine
    with np.errstate(all="ignore"):
        return cmp.bootstrap(n_resamples=150, rng=7, **kw).bootstrap_distribution  # type: ignore[arg-type]


BINARY = ["auroc", "accuracy", "f1", "log_loss", "brier"]


# --------------------------------------------------------------------------- BCa
def brute_jackknife(df: pd.DataFrame, metric: str, unit: str) -> np.ndarray:
    a = df[df.model == "A"].sort_values("case_id")
    b = df[df.model == "B"].sort_values("case_id")
    fn = {"auroc": skm.roc_auc_score, "log_loss": lambda y, p: skm.log_loss(y, p, labels=[0, 1])}
    sign = 1.0 if metric == "auroc" else -1.0
    keys = a[unit].to_numpy() if unit != "case_id" else a["case_id"].to_numpy()
    out = []
    for k in np.unique(keys):
        keep = keys != k
        ma = fn[metric](a["y"][keep], a["p"][keep])
        mb = fn[metric](b["y"][keep], b["p"][keep])
        out.append(sign * (ma - mb))
    return np.array(out)


# --------------------------------------------------------------------------- engines
@pytest.mark.parametrize("metric", BINARY)
@pytest.mark.parametrize(("groups", "strata"), [(None, None), (None, 3), (40, None), (40, 3)])
def test_numba_numpy_and_batches_bit_identical(
    both_engines: None, metric: str, groups: int | None, strata: int | None
) -> None:
    pytest.importorskip("numba")
    df = table(groups=groups, strata=strata)
    cmp = df.paired(target="y", prediction="p").compare("A", "B", metric=metric)
    ref = dist(cmp, "numba")
    assert np.array_equal(ref, dist(cmp, "numpy"))
    assert np.array_equal(ref, dist(cmp, "numpy", batch=64))
    assert np.array_equal(ref, dist(cmp, "numba", batch=1))


@pytest.mark.parametrize("groups", [None, 40])
def test_auroc_swap_null_distribution_identical_on_both_engines(
    both_engines: None, groups: int | None
) -> None:
    # NumPy derives model B's pooled AUROC from model A's pass; numba evaluates both
    pytest.importorskip("numba")
    cmp = table(groups=groups).paired(target="y", prediction="p").compare("A", "B", metric="auroc")
    nulls = []
    for engine in ("numba", "numpy"):
        os.environ["PDPAIRED_ACCELERATOR"] = engine
        res = cmp.randomization(n_permutations=300, rng=5)
        assert res.engine == engine
        nulls.append(res.null_distribution)
    assert np.array_equal(nulls[0], nulls[1])


@pytest.mark.parametrize("metric", ["auroc", "log_loss"])
def test_numpy_thread_count_does_not_change_draw_counts(
    both_engines: None, metric: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 150 replicates = 3 chunks of 64 (the last partial) on 1, 2 or 4 threads
    cmp = (
        table(groups=None, strata=3)
        .paired(target="y", prediction="p")
        .compare("A", "B", metric=metric)
    )
    out = []
    for threads in ("1", "2", "4"):
        monkeypatch.setenv("PDPAIRED_NUM_THREADS", threads)
        out.append(dist(cmp, "numpy"))
    assert np.array_equal(out[0], out[1])
    assert np.array_equal(out[0], out[2])


@pytest.mark.parametrize(
    ("metric", "kind"),
    [("accuracy", "multi"), ("log_loss", "multi"), ("macro_f1", "multi"),
     ("mae", "reg"), ("rmse", "reg"), ("r2", "reg")],
)  # fmt: skip
def test_multiclass_and_regression_engines_identical(
    both_engines: None, metric: str, kind: str
) -> None:
    pytest.importorskip("numba")
    if kind == "multi":
        acc = multiclass().paired(target="y", prediction=["p0", "p1", "p2"])
    else:
        acc = table().paired(target="y", prediction="v")
    cmp = acc.compare("A", "B", metric=metric)
    assert np.array_equal(dist(cmp, "numba"), dist(cmp, "numpy", batch=64))


def test_stratum_weights_engines_identical(both_engines: None) -> None:
    pytest.importorskip("numba")
    df = table(strata=3)
    cmp = df.paired(target="y", prediction="p").compare("A", "B", metric="auroc")
    weights = {0: 0.5, 1: 0.3, 2: 0.2}
    a = dist(cmp, "numba", stratum_weights=weights)
    b = dist(cmp, "numpy", stratum_weights=weights, batch=64)
    assert np.array_equal(a, b)


@pytest.mark.parametrize("metric", ["auroc", "log_loss"])
def test_row_order_does_not_matter(metric: str) -> None:
    df = table(groups=30)
    shuffled = df.sample(frac=1.0, random_state=3)
    res = [
        d.paired(target="y", prediction="p").bootstrap(
            "A", "B", metric=metric, n_resamples=300, rng=1
        )
        for d in (df, shuffled)
    ]
    assert np.array_equal(res[0].bootstrap_distribution, res[1].bootstrap_distribution)
    assert res[0].confidence_interval == res[1].confidence_interval


def test_swapping_models_negates_point_estimate() -> None:
    df = table()
    acc = df.paired(target="y", prediction="p")
    ab = acc.compare("A", "B", metric="auroc")
    ba = acc.compare("B", "A", metric="auroc")
    assert ab.improvement == -ba.improvement


def test_input_frame_not_modified() -> None:
    df = table(groups=20)
    before = df.copy()
    df.paired(target="y", prediction="p").bootstrap("A", "B", metric="f1", n_resamples=50, rng=0)
    pd.testing.assert_frame_equal(df, before)


# --------------------------------------------------------------------------- design
def test_target_stratified_keeps_class_counts() -> None:
    """Rare positives: every resample keeps exactly the 30 positives of n = 300."""
    df = table(prevalence=0.1, seed=5)
    n_pos = int(df.loc[df.model == "A", "y"].sum())
    # count positives per resample with a custom metric that reports them
    seen: list[float] = []

    def positives(y: np.ndarray, p: np.ndarray, sample_weight: np.ndarray) -> float:
        seen.append(float(sample_weight[y == 1].sum()))
        return 0.0

    metric = pdpaired.Metric("positives", positives, higher_is_better=True)
    with pytest.warns(DegenerateDataWarning, match="identical"):
        df.paired(target="y", prediction="p").bootstrap("A", "B", metric=metric,
                                                        n_resamples=40, rng=0,
                                                        method="percentile")  # fmt: skip
    assert set(seen[2:]) == {float(n_pos)}  # the first two calls are the full-sample values
    res = df.paired(target="y", prediction="p").bootstrap("A", "B", metric="auroc",
                                                          n_resamples=500, rng=0)  # fmt: skip
    assert res.sampling == "target-stratified"
    assert res.n_valid == 500


def test_cluster_resampling_drops_and_counts_undefined_replicates() -> None:
    # 6 groups, positives in only one: many group resamples have no positive
    rng = np.random.default_rng(0)
    n = 60
    g = np.repeat(np.arange(6), 10)
    y = (g == 0).astype(int)
    df = pd.DataFrame(
        {
            "case_id": np.tile(np.arange(n), 2),
            "model": np.repeat(["A", "B"], n),
            "y": np.tile(y, 2),
            "p": rng.uniform(size=2 * n),
            "group": np.tile(g, 2),
        }
    )
    with pytest.warns(DegenerateDataWarning, match="undefined on"):
        res = df.paired(target="y", prediction="p").bootstrap("A", "B", metric="auroc",
                                                              n_resamples=400, rng=0)  # fmt: skip
    # P(group 0 never drawn in 6 draws) = (5/6)**6 = 0.335; SE of the share < 0.024
    share = 1 - res.n_valid / 400
    assert abs(share - (5 / 6) ** 6) < 4 * np.sqrt(0.335 * 0.665 / 400)
    assert np.isfinite(res.confidence_interval.low)
    assert np.isfinite(res.confidence_interval.high)
    assert res.bootstrap_distribution.size == res.n_valid


def test_post_stratified_metric_equals_weighted_sklearn() -> None:
    df = table(strata=3)
    weights = {0: 0.6, 1: 0.3, 2: 0.1}
    res = df.paired(target="y", prediction="p").bootstrap(
        "A", "B", metric="log_loss", stratum_weights=weights, n_resamples=50, rng=0
    )
    a = df[df.model == "A"].sort_values("case_id")
    n_h = a["stratum"].value_counts()
    w = a["stratum"].map(lambda h: weights[h] / n_h[h]).to_numpy()
    expected = skm.log_loss(a["y"], a["p"], sample_weight=w)
    assert res.metric_a == pytest.approx(expected, rel=1e-12)


def test_custom_metric_gets_the_same_design() -> None:
    """A custom metric wrapping scikit-learn equals the built-in on every resample."""
    df = table(groups=25)
    acc = df.paired(target="y", prediction="p")

    def ll(y: np.ndarray, p: np.ndarray, sample_weight: np.ndarray) -> float:
        return float(skm.log_loss(y, p, sample_weight=sample_weight, labels=[0, 1]))

    custom = acc.bootstrap("A", "B", metric=pdpaired.Metric("ll", ll, False), n_resamples=64,
                           rng=4)  # fmt: skip
    builtin = acc.bootstrap("A", "B", metric="log_loss", n_resamples=64, rng=4)
    # the built-in sums quantized values (relative error < 2**-30 of the largest loss)
    np.testing.assert_allclose(
        custom.bootstrap_distribution, builtin.bootstrap_distribution, rtol=0, atol=1e-9
    )
    assert custom.metric_a == pytest.approx(builtin.metric_a, rel=1e-12)


@pytest.mark.parametrize("metric", ["auroc", "log_loss"])
@pytest.mark.parametrize("unit", ["case_id", "group"])
def test_closed_form_jackknife_equals_brute_force(metric: str, unit: str) -> None:
    from pdpaired.core.prediction import unit_jackknife as _jackknife  # moved with the shared loop

    df = table(n=120, groups=25)
    cmp = df.paired(target="y", prediction="p").compare("A", "B", metric=metric)
    measure, pairs = cmp._measure, cmp._pairs  # the corpus measure and its in-memory pairs
    layout, _ = measure.layout(pairs, "group" if unit == "group" else "case", "item", None, None)
    loo = _jackknife(measure.evaluator(pairs, layout))
    assert loo is not None
    # units are ordered by cell then case id (case unit) or by group label (group unit)
    expected = brute_jackknife(df, metric, unit)
    if unit == "case_id":
        a = df[df.model == "A"].sort_values("case_id")
        order = np.lexsort((np.arange(len(a)), a["y"].to_numpy()))
        expected = expected[order]
    np.testing.assert_allclose(loo, expected, rtol=1e-9, atol=1e-12)


def test_bca_runs_and_differs_from_percentile() -> None:
    df = table(n=400)
    acc = df.paired(target="y", prediction="p")
    pct = acc.bootstrap("A", "B", metric="auroc", n_resamples=2000, rng=0, method="percentile")
    bca = acc.bootstrap("A", "B", metric="auroc", n_resamples=2000, rng=0, method="bca")
    assert np.array_equal(pct.bootstrap_distribution, bca.bootstrap_distribution)
    assert bca.confidence_interval != pct.confidence_interval
    assert bca.confidence_interval.low < bca.improvement < bca.confidence_interval.high


# --------------------------------------------------------------------------- randomization
@pytest.mark.parametrize("metric", ["auroc", "brier", "f1"])
def test_exact_enumeration_equals_brute_force(metric: str) -> None:
    n = 9
    df = table(n=n, seed=11, ties=False)
    acc = df.paired(target="y", prediction="p")
    res = acc.randomization("A", "B", metric=metric, n_permutations=1000, rng=0)
    assert res.exact
    assert res.n_permutations == 2**n
    a = df[df.model == "A"].sort_values("case_id")
    b = df[df.model == "B"].sort_values("case_id")
    y, pa, pb = a["y"].to_numpy(), a["p"].to_numpy(), b["p"].to_numpy()
    fn = {
        "auroc": (skm.roc_auc_score, 1.0),
        "brier": (skm.brier_score_loss, -1.0),
        "f1": (lambda yy, p: skm.f1_score(yy, p > 0.5, zero_division=np.nan), 1.0),
    }[metric]
    if metric == "auroc":  # AUROC swaps within-model ranks (Venkatraman & Begg)
        pa, pb = stats.rankdata(pa) / n, stats.rankdata(pb) / n
    null = []
    for bits in itertools.product([False, True], repeat=n):
        e = np.array(bits)
        sa, sb = np.where(e, pb, pa), np.where(e, pa, pb)
        null.append(fn[1] * (fn[0](y, sa) - fn[0](y, sb)))
    null_arr = np.array(null)
    t = null_arr[0]
    assert res.statistic == pytest.approx(t, rel=1e-12, abs=1e-15)
    extreme = np.abs(null_arr) >= abs(t) - 1e-9
    assert res.pvalue == pytest.approx(extreme.mean(), rel=1e-12)


def test_randomization_group_swaps_and_seed_reproducible() -> None:
    df = table(groups=30)
    acc = df.paired(target="y", prediction="p")
    r1 = acc.randomization("A", "B", metric="auroc", n_permutations=500, rng=3)
    r2 = acc.randomization("A", "B", metric="auroc", n_permutations=500, rng=3, batch=7)
    assert r1.unit == "group"
    assert np.array_equal(r1.null_distribution, r2.null_distribution)
    assert 0 < r1.pvalue <= 1
    # the swap null is symmetric about zero (each assignment's complement negates it)
    assert abs(np.mean(r1.null_distribution)) < 4 * np.std(r1.null_distribution) / np.sqrt(500)


def test_exact_binomial_on_accuracy_equals_binomtest() -> None:
    df = table(n=400)
    res = df.paired(target="y", prediction="p").exact_binomial("A", "B", metric="accuracy")
    a = df[df.model == "A"].sort_values("case_id")
    b = df[df.model == "B"].sort_values("case_id")
    ca = (a["p"].to_numpy() > 0.5) == (a["y"].to_numpy() == 1)
    cb = (b["p"].to_numpy() > 0.5) == (b["y"].to_numpy() == 1)
    a_only, b_only = int(np.sum(ca & ~cb)), int(np.sum(~ca & cb))
    assert (res.a_only, res.b_only) == (a_only, b_only)
    assert res.pvalue == pytest.approx(stats.binomtest(a_only, a_only + b_only).pvalue, rel=1e-12)
    with pytest.raises(ValueError, match="metric='accuracy'"):
        df.paired(target="y", prediction="p").exact_binomial("A", "B", metric="auroc")


# --------------------------------------------------------------------------- from_tables
def test_from_tables_round_trip() -> None:
    df = table(n=50)
    a = df[df.model == "A"].drop(columns="model").rename(columns={"case_id": "sid"})
    b = df[df.model == "B"].drop(columns="model").rename(columns={"case_id": "sid"})
    long = pdpaired.from_tables(a, b.sample(frac=1, random_state=0), id="sid", names=("A", "B"))
    res = long.paired(case="sid", target="y", prediction="p").compare("A", "B", metric="auroc")
    ref = df.paired(target="y", prediction="p").compare("A", "B", metric="auroc")
    assert res.metric_a == ref.metric_a
    assert res.metric_b == ref.metric_b


def test_from_tables_bad_input() -> None:
    a = pd.DataFrame({"sid": [1, 2, 2], "y": [0, 1, 1], "p": [0.1, 0.8, 0.7]})
    b = pd.DataFrame({"sid": [1, 2, 3], "y": [0, 1, 0], "p": [0.2, 0.6, 0.3]})
    with pytest.raises(PairingError, match=r"unique id per table.*'cand'.*\[2\]") as err:
        pdpaired.from_tables(a, b, id="sid", names=("cand", "base"))
    assert err.value.rule == "unique id per table"
    with pytest.raises(PairingError, match="no id column 'case'"):
        pdpaired.from_tables(b, b, id="case", names=("x", "y"))
    with pytest.raises(PairingError, match=r"same columns.*only in 'x': \['extra'\]"):
        pdpaired.from_tables(b.assign(extra=1), b, id="sid", names=("x", "y"))
    # ids in one table only are kept and handled by the missing-outcome policy
    a2 = pd.DataFrame({"sid": [1, 2, 4], "y": [0, 1, 1], "p": [0.1, 0.8, 0.7]})
    long = pdpaired.from_tables(a2, b, id="sid", names=("x", "z"))
    assert len(long) == 6
    acc = long.paired(case="sid", target="y", prediction="p")
    with pytest.raises(PairingError, match="missing outcome"):
        acc.compare("x", "z", metric="brier")
    cmp = acc.compare("x", "z", metric="brier", missing="complete-case")
    assert cmp.n_cases == 2
    assert cmp.missing.n_dropped == 2


# --------------------------------------------------------------------------- bad input
def test_probabilities_outside_unit_interval() -> None:
    df = table(n=30)
    df.loc[3, "p"] = 1.2
    acc = df.paired(target="y", prediction="p")
    with pytest.raises(ValueError, match=r"model 'A' must be probabilities in \[0, 1\].*\[3\]"):
        acc.compare("A", "B", metric="log_loss")
    acc.compare("A", "B", metric="auroc")  # AUROC only ranks the scores


def test_multiclass_rows_must_sum_to_one() -> None:
    df = multiclass(n=30)
    df.loc[df.index[35], "p0"] += 0.01  # a row of model B
    with pytest.raises(ValueError, match=r"model 'B' must sum to 1.*within 1e-05.*\[5\]"):
        df.paired(target="y", prediction=["p0", "p1", "p2"]).compare("A", "B", metric="log_loss")


def test_target_not_in_class_labels() -> None:
    df = table(n=20)
    df["y"] = np.where(df["y"] == 1, "spam", "ham")
    acc = df.paired(target="y", prediction="p")
    with pytest.raises(ValueError, match=r"\['ham', 'spam'\] are not class labels"):
        acc.compare("A", "B", metric="auroc")
    cmp = acc.compare("A", "B", metric="auroc", class_labels=("ham", "spam"))
    assert cmp.class_labels == ["ham", "spam"]
    with pytest.raises(ValueError, match=r"\['spam'\] are not class labels"):
        acc.compare("A", "B", metric="auroc", class_labels=("ham", "eggs"))


def test_metric_does_not_fit_task_lists_those_that_do() -> None:
    acc = table(n=20).paired(target="y", prediction="p")
    with pytest.raises(ValueError, match=r"'macro_f1' does not fit.*auroc, accuracy, f1"):
        acc.compare("A", "B", metric="macro_f1")
    macc = multiclass(n=20).paired(target="y", prediction=["p0", "p1", "p2"])
    with pytest.raises(ValueError, match=r"'auroc' does not fit.*accuracy, log_loss, macro_f1"):
        macc.compare("A", "B", metric="auroc")


def test_unknown_metric_and_mean_in_prediction_mode() -> None:
    acc = table(n=20).paired(target="y", prediction="p")
    with pytest.raises(ValueError, match=r"Unknown metric 'auc'.*auroc"):
        acc.compare("A", "B", metric="auc")
    with pytest.raises(ValueError, match="needs a corpus metric"):
        acc.compare("A", "B")


def test_single_class_target_for_auroc() -> None:
    df = table(n=20)
    df["y"] = 1
    with pytest.raises(ValueError, match="AUROC needs both classes"):
        df.paired(target="y", prediction="p").compare("A", "B", metric="auroc")


def test_targets_that_disagree_are_a_pairing_error() -> None:
    df = table(n=20)
    df.loc[(df.model == "B") & (df.case_id.isin([4, 7])), "y"] ^= 1
    with pytest.raises(PairingError, match=r"target `y` agrees between A and B.*2 case.*\[4, 7\]"):
        df.paired(target="y", prediction="p").compare("A", "B", metric="auroc")


def test_direction_conflict_and_group_weighting() -> None:
    acc = table(n=40, groups=5).paired(target="y", prediction="p")
    with pytest.raises(ValueError, match="contradicts metric 'log_loss'"):
        acc.compare("A", "B", metric="log_loss", higher_is_better=True)
    with pytest.raises(ValueError, match="weighting='item'"):
        acc.bootstrap("A", "B", metric="auroc", weighting="group")


def test_missing_predictions_policies() -> None:
    df = table(n=30)
    df.loc[(df.model == "A") & (df.case_id == 5), "p"] = np.nan
    acc = df.paired(target="y", prediction="p")
    with pytest.raises(PairingError, match=r"missing outcome for A \(A\).*\[5\]"):
        acc.compare("A", "B", metric="auroc")
    with pytest.raises(ValueError, match="`fill_value` is required"):
        acc.compare("A", "B", metric="auroc", missing="as-failure")
    filled = acc.compare("A", "B", metric="auroc", missing="as-failure", fill_value=0.5)
    assert filled.missing.n_filled == 1
    assert filled.n_cases == 30


Z = 4.0


RTOL = 1e-12


EPS = np.finfo(float).eps  # scikit-learn 1.9 clips probabilities to [eps, 1 - eps]


HIGHER_IS_BETTER = {
    "auroc": True, "accuracy": True, "f1": True, "macro_f1": True, "r2": True,
    "log_loss": False, "brier": False, "mae": False, "rmse": False,
}  # fmt: skip


PROB_COLS = ("p0", "p1", "p2")


def assert_within(actual, expected, tol, what):
    actual, expected, tol = np.atleast_1d(actual), np.atleast_1d(expected), np.atleast_1d(tol)
    err = np.abs(actual - expected)
    assert np.all(err <= tol), (
        f"{what}: |{actual} - {expected}| = {err} exceeds Z*SE = {tol} ({Z * err / tol} SE)"
    )


def assert_same_law(lib_d, own_d, what, quantiles=True):
    """Two independent bootstraps of the same design: SD, mean, endpoints, KS."""
    se_sd = np.hypot(sd_se(lib_d), sd_se(own_d))
    assert_within(lib_d.std(ddof=1), own_d.std(ddof=1), Z * se_sd, f"{what}: SD")
    se_mean = math.hypot(lib_d.std() / math.sqrt(lib_d.size), own_d.std() / math.sqrt(own_d.size))
    assert_within(lib_d.mean(), own_d.mean(), Z * se_mean, f"{what}: mean")
    if quantiles:
        se_q = [np.hypot(quantile_se(lib_d, p), quantile_se(own_d, p)) for p in (ALPHA, 1 - ALPHA)]
        assert_within(percentile_interval(lib_d), percentile_interval(own_d),
                      Z * np.asarray(se_q), f"{what}: percentile endpoints")  # fmt: skip
    assert stats.ks_2samp(lib_d, own_d).pvalue > P_FAIL, what


def assert_metric(actual, expected, what=""):
    assert actual == pytest.approx(expected, rel=RTOL, abs=1e-15), what


# ---------------------------------------------------------------------------
# long tables
# ---------------------------------------------------------------------------
def pred_frame(y, pa, pb, *, pcols=("p",), seed=0, **design):
    """Long table (case_id, model, y, prediction column(s)[, design]), rows shuffled."""
    y = np.asarray(y)
    n = len(y)
    ids = np.arange(n) * 7 + 3
    parts = []
    for name, pred in (("A", pa), ("B", pb)):
        pred = np.asarray(pred, float).reshape(n, -1)
        assert pred.shape[1] == len(pcols)
        part = pd.DataFrame({"case_id": ids, "model": name, "y": y})
        for j, col in enumerate(pcols):
            part[col] = pred[:, j]
        for k, v in design.items():
            part[k] = np.asarray(v)
        parts.append(part)
    df = pd.concat(parts, ignore_index=True)
    return df.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def paired(df, pcols=("p",)):
    return df.paired(target="y", prediction=pcols[0] if len(pcols) == 1 else list(pcols))


# ---------------------------------------------------------------------------
# data generators
# ---------------------------------------------------------------------------
def correlated_normals(n, rho, rng):
    e = rng.standard_normal((2, n))
    return e[0], rho * e[0] + math.sqrt(1 - rho**2) * e[1]


def binary_data(seed=101, n=300, prevalence=0.35, rho=0.5):
    """Probabilities on the 0.1 grid: many ties, exact 0.5 / 0.3 values, and 0 / 1.

    B leans positive (higher TPR, lower TNR than A), so the per-case accuracy
    difference depends strongly on the class: target stratification matters.
    """
    rng = np.random.default_rng(seed)
    y = (rng.uniform(size=n) < prevalence).astype(int)
    ea, eb = correlated_normals(n, rho, rng)
    pa = np.round(expit(1.3 * (1.8 * y - 0.9 + ea)), 1)
    pb = np.round(expit(1.3 * (1.4 * y + 0.4 + eb)), 1)
    neg, pos = np.flatnonzero(y == 0), np.flatnonzero(y == 1)
    pa[neg[0]], pa[pos[0]], pb[neg[1]] = 1.0, 0.0, 1.0  # confident mistakes: log-loss clipping
    return y, pa, pb


def auroc_data(seed, n_pos, n_neg, mu=(1.2, 1.0), rho=0.8, decimals=2):
    """Binormal latent scores (AUC = Phi(mu / sqrt 2)), correlated between A and B."""
    rng = np.random.default_rng(seed)
    y = rng.permutation(np.r_[np.ones(n_pos, int), np.zeros(n_neg, int)])
    ea, eb = correlated_normals(y.size, rho, rng)
    pa, pb = expit(mu[0] * y + ea), expit(mu[1] * y + eb)
    if decimals is not None:
        pa, pb = np.round(pa, decimals), np.round(pb, decimals)
    return y, pa, pb


PATTERNS = np.array([[0.7, 0.2, 0.1], [0.5, 0.3, 0.2], [1.0, 0.0, 0.0]])


def class_probs(top, kind):
    """Rows from a few fixed probability vectors with a unique argmax at ``top``."""
    out = np.empty((top.size, 3))
    for i, (t, k) in enumerate(zip(top, kind, strict=True)):
        others = [c for c in range(3) if c != t]
        out[i, [t, *others]] = PATTERNS[k]
    return out


def multiclass_data(seed=202, counts=(140, 100, 60), skill=(0.75, 0.65)):
    """3 probability columns; the target uses the first len(counts) classes only."""
    rng = np.random.default_rng(seed)
    y = rng.permutation(np.repeat(np.arange(len(counts)), counts))
    n = y.size
    hard = rng.uniform(size=n) < 0.3  # shared difficulty: A and B correlated
    preds = []
    for s in skill:
        correct = rng.uniform(size=n) < np.where(hard, s - 0.35, s)
        top = np.where(correct, y, (y + rng.integers(1, 3, size=n)) % 3)
        preds.append(class_probs(top, rng.integers(0, 3, size=n)))
    return y, preds[0], preds[1]


def regression_data(seed=303, n=250):
    rng = np.random.default_rng(seed)
    y = rng.gamma(2.0, 1.5, n)
    common = rng.normal(0, 0.8, n)  # shared error: A and B correlated
    pa = np.round(y + common + rng.lognormal(-1.0, 0.8, n) * rng.choice([-1, 1], n), 1)
    pb = np.round(0.9 * y + 0.3 + common + rng.normal(0, 0.9, n), 1)
    return y, pa, pb


# ---------------------------------------------------------------------------
# own resampling and vectorised (count-weighted) metrics: the oracles
# ---------------------------------------------------------------------------
def own_indices(y, B, rng, stratified):
    """B resamples as an index matrix: n iid draws, or n_c draws within each class."""
    n = len(y)
    if not stratified:
        return rng.integers(0, n, size=(B, n))
    cols = []
    for c in np.unique(y):
        members = np.flatnonzero(y == c)
        cols.append(members[rng.integers(0, members.size, size=(B, members.size))])
    return np.concatenate(cols, axis=1)


def counts_of(idx, n):
    B = idx.shape[0]
    flat = (idx + n * np.arange(B)[:, None]).ravel()
    return np.bincount(flat, minlength=B * n).reshape(B, n).astype(float)


def own_bootstrap(stat, y, B, seed, stratified, batch=2_000):
    """Replicates of ``stat(counts)`` over B own resamples (count matrices)."""
    rng = np.random.default_rng(seed)
    out = [stat(counts_of(own_indices(y, min(batch, B - s), rng, stratified), len(y)))
           for s in range(0, B, batch)]  # fmt: skip
    return np.concatenate(out)


def check_oracle(stat_counts, stat_sklearn, y, stratified, k=30, seed=999):
    """The vectorised oracle equals scikit-learn on k materialised resamples."""
    idx = own_indices(y, k, np.random.default_rng(seed), stratified)
    fast = stat_counts(counts_of(idx, len(y)))
    slow = np.array([stat_sklearn(row) for row in idx])
    np.testing.assert_allclose(fast, slow, rtol=1e-12, atol=1e-14)


def safe_ratio(num, den):
    return np.divide(num, den, out=np.full(np.shape(num), np.nan), where=den > 0)


def auc_kernel(y, s):
    """psi(x_i, y_j) for positives i, negatives j: 1 if x > y, 1/2 if tied, else 0."""
    sp, sn = s[y == 1], s[y == 0]
    return (sp[:, None] > sn[None, :]) + 0.5 * (sp[:, None] == sn[None, :])


def auc_counts(w, y, s):
    """Weighted Mann-Whitney AUROC, one value per row of the count matrix w."""
    K = auc_kernel(y, s)
    w1, w0 = w[:, y == 1], w[:, y == 0]
    return safe_ratio(((w1 @ K) * w0).sum(1), w1.sum(1) * w0.sum(1))


def f1_counts(w, y, label):
    tp = w @ ((y == 1) & label)
    fp = w @ ((y == 0) & label)
    fn = w @ ((y == 1) & ~label)
    return safe_ratio(2 * tp, 2 * tp + fp + fn)


def macro_f1_counts(w, y, top):
    """Mean over the classes present in the target of the per-class F1."""
    f1s = []
    for c in np.unique(y):
        tp = w @ ((y == c) & (top == c))
        fp = w @ ((y != c) & (top == c))
        fn = w @ ((y == c) & (top != c))
        f1s.append(safe_ratio(2 * tp, 2 * tp + fp + fn))
    return np.mean(f1s, axis=0)


def balanced_accuracy_counts(w, y, label):
    correct = label == (y == 1)
    tpr = (w @ (correct & (y == 1))) / (w @ (y == 1))
    tnr = (w @ (correct & (y == 0))) / (w @ (y == 0))
    return (tpr + tnr) / 2


def auc_diff_sklearn(y, pa, pb):
    def stat(row):
        if np.unique(y[row]).size < 2:
            return np.nan  # undefined: no positive (or no negative) drawn
        return roc_auc_score(y[row], pa[row]) - roc_auc_score(y[row], pb[row])

    return stat


# ===========================================================================
# 1. metric values vs scikit-learn
# ===========================================================================
def sk_binary(metric, y, p, threshold=0.5):
    label = (p > threshold).astype(int)  # strictly greater
    return {
        "auroc": lambda: roc_auc_score(y, p),
        "accuracy": lambda: accuracy_score(y, label),
        "f1": lambda: f1_score(y, label),
        "log_loss": lambda: log_loss(y, y_proba=p, labels=[0, 1]),
        "brier": lambda: brier_score_loss(y, p),
    }[metric]()


def check_values(cmp, res, ref_a, ref_b, metric):
    """metric_a, metric_b, improvement (of the Comparison and the result), raw_delta."""
    hib = HIGHER_IS_BETTER[metric]
    sign = 1.0 if hib else -1.0
    for obj in (res,) if cmp is None else (cmp, res):
        assert_metric(obj.metric_a, ref_a, f"{metric}: metric_a")
        assert_metric(obj.metric_b, ref_b, f"{metric}: metric_b")
        assert obj.improvement == pytest.approx(sign * (ref_a - ref_b), rel=1e-10, abs=1e-14)
    assert res.raw_delta == pytest.approx(ref_a - ref_b, rel=1e-10, abs=1e-14)
    assert res.higher_is_better is hib


@pytest.fixture(scope="module")
def binary():
    y, pa, pb = binary_data()
    # the data really exercise ties, the strict threshold and the clipping
    assert (pa == 0.5).sum() > 10
    assert (pb == 0.5).sum() > 10
    assert (pa == 0.3).sum() > 10
    assert np.unique(pa).size <= 11
    assert (pa[y == 0] == 1.0).any()
    assert (pa[y == 1] == 0.0).any()
    return y, pa, pb, pred_frame(y, pa, pb, seed=1)


@pytest.fixture(scope="module")
def multiclass_against_oracles():
    y, pa, pb = multiclass_data()
    assert (pa == 0).any()
    assert (pa[np.arange(y.size), y] == 0).any()
    return y, pa, pb, pred_frame(y, pa, pb, pcols=PROB_COLS, seed=3)


def sk_multiclass(metric, y, P, present=None):
    top = P.argmax(1)  # each row has a unique maximum
    present = np.unique(y) if present is None else present
    return {
        "accuracy": lambda: accuracy_score(y, top),
        "log_loss": lambda: log_loss(y, y_proba=P, labels=np.arange(P.shape[1])),
        # pdpaired's macro-F1: mean over the classes occurring in the target
        "macro_f1": lambda: f1_score(y, top, average="macro", labels=present),
    }[metric]()


@pytest.fixture(scope="module")
def regression():
    y, pa, pb = regression_data()
    return y, pa, pb, pred_frame(y, pa, pb, seed=5)


SK_REGRESSION = {"mae": mean_absolute_error, "rmse": root_mean_squared_error, "r2": r2_score}


# ===========================================================================
# 2. mean-type metrics: exact moments of the ideal bootstrap
# ===========================================================================
def per_case_loss(task, metric, y, P):
    """Per-case values whose mean is the metric (accuracy, log loss, Brier, MAE)."""
    if task == "binary":
        if metric == "accuracy":
            return ((P > 0.5).astype(int) == y).astype(float)
        if metric == "log_loss":  # as scikit-learn: clip p and 1 - p separately
            return -np.log(np.clip(np.where(y == 1, P, 1 - P), EPS, 1 - EPS))
        return (P - y) ** 2  # brier
    if task == "multiclass":
        if metric == "accuracy":
            return (P.argmax(1) == y).astype(float)
        return -np.log(np.clip(P[np.arange(y.size), y], EPS, 1 - EPS))
    return np.abs(y - P)  # mae


def ideal_sd(d, y, stratified):
    """Exact SD of mean(d*) under the ideal bootstrap.

    iid: var0(d) / n.  Within classes: mean(d*) = sum_c (n_c/n) mean_c(d*), the
    class means independent, so var = sum_c (n_c/n)^2 var0_c(d) / n_c.
    """
    if not stratified:
        return math.sqrt(d.var() / d.size)
    return math.sqrt(sum((y == c).mean() ** 2 * d[y == c].var() / (y == c).sum()
                         for c in np.unique(y)))  # fmt: skip


MEAN_CASES = [
    ("binary", "accuracy", None), ("binary", "accuracy", False),
    ("binary", "log_loss", None), ("binary", "log_loss", False),
    ("binary", "brier", None), ("binary", "brier", False),
    ("multiclass", "accuracy", None), ("multiclass", "accuracy", False),
    ("multiclass", "log_loss", None), ("multiclass", "log_loss", False),
    ("regression", "mae", None),
]  # fmt: skip


# ===========================================================================
# 3. paired AUROC bootstrap vs own bootstrap (target-stratified and iid)
# ===========================================================================
@pytest.fixture(scope="module")
def auroc_mid():
    y, pa, pb = auroc_data(seed=606, n_pos=84, n_neg=156)
    assert np.unique(pa).size < 0.5 * y.size  # heavy ties
    return y, pa, pb, pred_frame(y, pa, pb, seed=7)


# ===========================================================================
# 7. randomization (paired prediction-swap) test with AUROC
# ===========================================================================
def within_ranks(p):
    """Within-model mid-ranks scaled to (0, 1]: what the AUROC swap test exchanges
    (Venkatraman & Begg, 1996). Neither model's AUROC changes."""
    return stats.rankdata(p) / p.size


def swap_aucs(y, pa, pb, swap):
    """AUROC of A* and B* for each row of the boolean swap matrix (R, n), by
    scipy's Mann-Whitney U = AUC * m * n (midranks: ties count 1/2), swapping
    the within-model ranks."""
    pos, neg = y == 1, y == 0
    m, n = pos.sum(), neg.sum()
    ra, rb = within_ranks(pa), within_ranks(pb)
    a_star, b_star = np.where(swap, rb, ra), np.where(swap, ra, rb)

    def auc(s):
        u = stats.mannwhitneyu(s[:, pos], s[:, neg], axis=1, method="asymptotic")
        return u.statistic / (m * n)

    return auc(a_star), auc(b_star)


def swap_pvalue(t, null, alternative, plus_one):
    tol = 1e-9  # AUC differences live on a 1 / (2 m n) lattice, far coarser than this
    if alternative == "two-sided":
        k = np.sum(np.abs(null) >= abs(t) - tol)
    elif alternative == "greater":
        k = np.sum(null >= t - tol)
    else:
        k = np.sum(null <= t + tol)
    return (1 + k) / (1 + null.size) if plus_one else k / null.size


@pytest.fixture(scope="module")
def tiny_enumeration():
    """8 cases (3 positives): all 2^8 swaps of within-model ranks, AUROC by scikit-learn."""
    rng = np.random.default_rng(1111)
    y = np.array([1, 0, 1, 0, 0, 1, 0, 0])
    pa = np.round(expit(1.5 * y + rng.normal(size=8)), 1)
    pb = np.round(expit(0.5 * y + rng.normal(size=8)), 1)
    ra, rb = within_ranks(pa), within_ranks(pb)
    null = []
    for mask in itertools.product([False, True], repeat=8):
        s = np.array(mask)
        a, b = np.where(s, rb, ra), np.where(s, ra, rb)
        null.append(roc_auc_score(y, a) - roc_auc_score(y, b))
    null = np.array(null)
    t = roc_auc_score(y, pa) - roc_auc_score(y, pb)
    return y, pa, pb, t, null


R_OWN_SWAPS = 30_000


@pytest.fixture(scope="module")
def swap_case():
    """n = 200 (80 positives), a modest AUROC gain: p-values near 0.01-0.03.

    The own swap null (R_OWN_SWAPS assignments) is shared by both alternatives.
    """
    y, pa, pb = auroc_data(seed=1212, n_pos=80, n_neg=120, mu=(1.1, 0.95), rho=0.75)
    swap = np.random.default_rng(122).uniform(size=(R_OWN_SWAPS, y.size)) < 0.5
    auc_a, auc_b = swap_aucs(y, pa, pb, swap)
    own_null = auc_a - auc_b
    ra, rb = within_ranks(pa), within_ranks(pb)
    for k in range(20):  # the vectorised oracle is scikit-learn's AUROC
        a, b = np.where(swap[k], rb, ra), np.where(swap[k], ra, rb)
        assert own_null[k] == pytest.approx(roc_auc_score(y, a) - roc_auc_score(y, b), abs=1e-12)
    return y, pa, pb, own_null, pred_frame(y, pa, pb, seed=13)


# ===========================================================================
# 8. regression vs scipy.stats.bootstrap(paired=True)
# ===========================================================================
def _rmse(y, p, axis):
    return np.sqrt(np.mean((y - p) ** 2, axis=axis))


def _r2(y, p, axis):
    ybar = np.mean(y, axis=axis, keepdims=True)
    return 1 - np.sum((y - p) ** 2, axis=axis) / np.sum((y - ybar) ** 2, axis=axis)


IMPROVEMENT = {  # direction adjusted: positive = A better
    "rmse": lambda y, a, b, axis=-1: _rmse(y, b, axis) - _rmse(y, a, axis),
    "mae": lambda y, a, b, axis=-1: np.mean(np.abs(y - b), axis) - np.mean(np.abs(y - a), axis),
    "r2": lambda y, a, b, axis=-1: _r2(y, a, axis) - _r2(y, b, axis),
}


# ===========================================================================
# 9. custom metrics
# ===========================================================================
def balanced_accuracy(y_true, y_pred, *, sample_weight):
    """keyword-only ``sample_weight``: pdpaired must pass it by keyword."""
    label = (np.asarray(y_pred) > 0.5).astype(int)
    return balanced_accuracy_score(y_true, label, sample_weight=sample_weight)


def brier(y_true, y_pred, *, sample_weight):
    return brier_score_loss(y_true, y_pred, sample_weight=sample_weight)


class TestAgainstOracles:
    """Independent oracle tests for prediction mode (metrics recomputed on resamples).

    Every expected value here is computed without pdpaired's internals:

    * metric values by scikit-learn (``roc_auc_score``, ``f1_score``, ``log_loss``...);
    * resampling distributions by plain NumPy re-implementations of the designs
      written in this file, by ``scipy.stats.bootstrap(paired=True)``, or by
      closed-form moments of the ideal (B -> infinity) bootstrap;
    * the variance of a difference of two correlated AUCs by DeLong, DeLong &
      Clarke-Pearson (1988), written out below from the placement values;
    * swap (randomization) distributions by full enumeration or by an own Monte
      Carlo swap test.

    The designs under test (docs/prediction.md):

    * target-stratified bootstrap (default for classification with case units):
      every replicate draws ``n_c`` cases with replacement within each target
      class ``c``, the SAME cases for A and B, and the metric is recomputed on the
      resample (count weights);
    * iid bootstrap (``stratified=False``, and regression): ``n`` cases with
      replacement;
    * paired swap test: each case independently swaps A's and B's predictions
      with probability 1/2.

    The vectorised oracles below (count-weighted AUROC, F1, macro-F1, balanced
    accuracy) are checked against scikit-learn on materialised resamples
    (``y[idx]``, ``p[idx]``) inside every test that uses them, so each oracle
    distribution *is* scikit-learn's metric evaluated on the oracle's resamples;
    vectorising only keeps the run time down (``roc_auc_score`` costs ~1.5 ms a
    call, i.e. 30 s for 10,000 paired replicates).

    Tolerances
    ----------
    * Metric values: scikit-learn to ``rtol = 1e-12`` (only summation order differs).
    * *Exact given the replicates* (no Monte Carlo error): intervals recomputed
      from pdpaired's own ``bootstrap_distribution``; ~1e-10 of the SD.
    * *Within Monte Carlo (MC) error*: ``Z * SE`` of the difference, with the SE
      estimated from the replicates themselves, exactly as in
      ``tests/core/test_bootstrap.py``:

      - sample p-quantile of B replicates: ``sqrt(p (1 - p) / B) / f(q_p)``, ``f``
        by a central finite difference of the empirical quantile function;
      - sample SD: ``s * sqrt((kurt - 1) / (4 B))`` (delta method);
      - mean of B replicates: ``s / sqrt(B)``;
      - Monte Carlo p-value from R swaps: ``sqrt(p (1 - p) / R)``;
      - the count of undefined replicates: binomial SD ``sqrt(B q (1 - q))``.

      ``Z = 4``: this file makes about 80 such comparisons, so the chance that any
      one of them fails by MC bad luck is about 80 * 6.3e-5 = 0.5% (seeds are
      fixed, so the outcome is deterministic anyway).  Whole-distribution
      comparisons use a two-sample KS test and fail only at p < 1e-4 (KS is
      conservative on the discrete distributions of label metrics).
    * Simulations (slow): rates over R simulated data sets have binomial SE
      ``sqrt(c (1 - c) / R)``; each bound is ``3 SE`` plus an allowance stated
      and justified at the test.
    """

    @pytest.mark.parametrize("metric", ["auroc", "accuracy", "f1", "log_loss", "brier"])
    def test_binary_metric_values(self, binary, metric):
        y, pa, pb, df = binary
        cmp = paired(df).compare("A", "B", metric=metric)
        res = cmp.bootstrap(n_resamples=200, rng=0)
        check_values(cmp, res, sk_binary(metric, y, pa), sk_binary(metric, y, pb), metric)
        assert res.metric == metric
        assert res.sampling == "target-stratified"
        assert res.n_cases == y.size

    @pytest.mark.parametrize("metric", ["accuracy", "f1"])
    @pytest.mark.parametrize("threshold", [0.5, 0.3])
    def test_binary_threshold_is_strict(self, binary, metric, threshold):
        y, pa, pb, df = binary
        cmp = paired(df).compare("A", "B", metric=metric, threshold=threshold)
        res = cmp.bootstrap(n_resamples=200, rng=0)
        ref_a, ref_b = sk_binary(metric, y, pa, threshold), sk_binary(metric, y, pb, threshold)
        check_values(cmp, res, ref_a, ref_b, metric)
        # power: ">=" instead of ">" would change the value (many p equal the threshold)
        assert sk_binary(metric, y, pa, threshold - 1e-9) != pytest.approx(ref_a, rel=1e-6)

    @pytest.mark.parametrize(
        ("labels", "class_labels"),
        [
            (("healthy", "sick"), ("healthy", "sick")),
            # the positive label sorts first: a sorted-label mapping would flip the classes
            (("normal", "abnormal"), ("normal", "abnormal")),
            ((False, True), None),  # bool target
        ],
    )
    @pytest.mark.parametrize("metric", ["auroc", "f1", "log_loss"])
    def test_binary_class_labels(self, binary, labels, class_labels, metric):
        y, pa, pb, _ = binary
        target = np.where(y == 1, labels[1], labels[0]) if class_labels else y.astype(bool)
        df = pred_frame(target, pa, pb, seed=2)
        cmp = paired(df).compare("A", "B", metric=metric, class_labels=class_labels)
        res = cmp.bootstrap(n_resamples=200, rng=0)
        check_values(cmp, res, sk_binary(metric, y, pa), sk_binary(metric, y, pb), metric)

    @pytest.mark.parametrize("metric", ["accuracy", "log_loss", "macro_f1"])
    def test_multiclass_metric_values(self, multiclass_against_oracles, metric):
        y, pa, pb, df = multiclass_against_oracles
        cmp = paired(df, PROB_COLS).compare("A", "B", metric=metric)
        res = cmp.bootstrap(n_resamples=200, rng=0)
        check_values(cmp, res, sk_multiclass(metric, y, pa), sk_multiclass(metric, y, pb), metric)
        assert res.sampling == "target-stratified"

    @pytest.mark.parametrize("metric", ["accuracy", "log_loss", "macro_f1"])
    def test_multiclass_string_labels_and_class_absent_from_target(self, metric):
        """class_labels name the probability columns in order; "bird" is predicted
        (argmax) for some cases but never occurs in the target, so macro-F1 averages
        over cat and dog only (scikit-learn's default would also average bird's F1 = 0)."""
        y, pa, pb = multiclass_data(seed=404, counts=(120, 90))
        names = np.array(["cat", "dog", "bird"])
        cols = ("p_cat", "p_dog", "p_bird")
        assert (pa.argmax(1) == 2).any()
        assert (pb.argmax(1) == 2).any()
        df = pred_frame(names[y], pa, pb, pcols=cols, seed=4)
        cmp = paired(df, cols).compare("A", "B", metric=metric, class_labels=tuple(names))
        res = cmp.bootstrap(n_resamples=200, rng=0)
        ref_a, ref_b = sk_multiclass(metric, y, pa), sk_multiclass(metric, y, pb)
        check_values(cmp, res, ref_a, ref_b, metric)
        if metric == "macro_f1":  # power: the "all labels" average is different
            every = f1_score(y, pa.argmax(1), average="macro", labels=[0, 1, 2])
            assert abs(every - ref_a) > 0.1

    @pytest.mark.parametrize("metric", ["mae", "rmse", "r2"])
    def test_regression_metric_values(self, regression, metric):
        y, pa, pb, df = regression
        cmp = paired(df).compare("A", "B", metric=metric)
        res = cmp.bootstrap(n_resamples=200, rng=0)
        fn = SK_REGRESSION[metric]
        check_values(cmp, res, fn(y, pa), fn(y, pb), metric)
        assert res.sampling == "iid"
        if metric == "rmse":  # the definition, not just scikit-learn's function
            assert_metric(res.metric_a, math.sqrt(np.mean((y - pa) ** 2)))

    @pytest.mark.parametrize("metric", ["auroc", "f1", "log_loss", "rmse"])
    def test_post_stratified_metric_values(self, metric):
        """With stratum weights every case weighs w_h / n_h inside the metric
        (docs/prediction.md); default weights (observed shares) give the plain metric."""
        rng = np.random.default_rng(505)
        sizes = {"s0": 180, "s1": 80, "s2": 40}
        prev = {"s0": 0.2, "s1": 0.45, "s2": 0.7}
        stratum = np.concatenate([[h] * k for h, k in sizes.items()])
        weights = {"s0": 0.2, "s1": 0.3, "s2": 0.5}
        w = np.array([weights[h] / sizes[h] for h in stratum])
        if metric == "rmse":
            y = rng.gamma(2.0, 1.0, stratum.size) + (stratum == "s2") * 2.0
            pa = y + rng.normal(0, 0.5 + (stratum == "s2"), y.size)
            pb = y + rng.normal(0.2, 0.8, y.size)

            def ref(p, sample_weight=None):
                return root_mean_squared_error(y, p, sample_weight=sample_weight)
        else:
            y = (rng.uniform(size=stratum.size) < np.array([prev[h] for h in stratum])).astype(int)
            ea, eb = correlated_normals(y.size, 0.5, rng)
            shift = (stratum == "s2") * 0.8  # the strata differ in calibration, too
            pa = np.round(expit(1.6 * y - 0.8 + ea + shift), 2)
            pb = np.round(expit(1.2 * y - 0.6 + eb), 2)

            def ref(p, sample_weight=None):
                label = (p > 0.5).astype(int)
                return {
                    "auroc": lambda: roc_auc_score(y, p, sample_weight=sample_weight),
                    "f1": lambda: f1_score(y, label, sample_weight=sample_weight),
                    "log_loss": lambda: log_loss(
                        y, y_proba=p, labels=[0, 1], sample_weight=sample_weight
                    ),
                }[metric]()

        df = pred_frame(y, pa, pb, seed=6, stratum=stratum)
        cmp = paired(df).compare("A", "B", metric=metric)
        res = cmp.bootstrap(n_resamples=200, rng=0, stratum_weights=weights)
        check_values(None, res, ref(pa, w), ref(pb, w), metric)  # weights are a bootstrap option
        assert abs(ref(pa, w) - ref(pa)) > 1e-3  # the weights really matter
        plain = cmp.bootstrap(n_resamples=200, rng=0)
        check_values(cmp, plain, ref(pa), ref(pb), metric)

    @pytest.mark.parametrize(("task", "metric", "stratified"), MEAN_CASES)
    def test_mean_metrics_exact_ideal_bootstrap(
        self, binary, multiclass_against_oracles, regression, task, metric, stratified
    ):
        data = {
            "binary": binary,
            "multiclass": multiclass_against_oracles,
            "regression": regression,
        }[task]
        y, pa, pb, df = data
        pcols = PROB_COLS if task == "multiclass" else ("p",)
        la, lb = per_case_loss(task, metric, y, pa), per_case_loss(task, metric, y, pb)
        d = la - lb if HIGHER_IS_BETTER[metric] else lb - la  # per-case improvement
        B = 20_000
        res = paired(df, pcols).bootstrap("A", "B", metric=metric, rng=31, n_resamples=B,
                                          stratified=stratified, method="percentile")  # fmt: skip
        by_class = task != "regression" and stratified is None
        assert res.sampling == ("target-stratified" if by_class else "iid")
        assert res.n_valid == res.n_resamples == B
        dist = res.bootstrap_distribution
        assert dist.shape == (B,)
        # the oracle's own check: the per-case values reproduce scikit-learn's metric
        sk = {"binary": sk_binary, "multiclass": sk_multiclass}.get(task)
        ref_a = sk(metric, y, pa) if sk else mean_absolute_error(y, pa)
        assert_metric(la.mean(), ref_a)
        assert res.improvement == pytest.approx(d.mean(), rel=1e-10, abs=1e-13)
        sd = ideal_sd(d, y, by_class)
        assert_within(dist.std(ddof=1), sd, Z * sd_se(dist), f"{task} {metric}: SD vs exact")
        assert_within(
            dist.mean(), d.mean(), Z * sd / math.sqrt(B), f"{task} {metric}: mean vs exact"
        )
        # percentile interval is exactly np.percentile of the replicates
        np.testing.assert_allclose(ci(res), percentile_interval(dist), rtol=0, atol=1e-12 * sd)

    def test_accuracy_target_stratification_has_power(self, binary):
        """The two designs give clearly different exact SDs for these data (B leans
        positive: higher TPR, lower TNR than A), so the test above tells them apart.

        The MC SE of an SD from 20,000 replicates is ~0.5% of it (kurtosis ~3), so
        the tolerance there is ~2%; the gap between the designs is required > 10%.
        """
        y, pa, pb, _ = binary
        d = per_case_loss("binary", "accuracy", y, pa) - per_case_loss("binary", "accuracy", y, pb)
        strat, iid = ideal_sd(d, y, True), ideal_sd(d, y, False)
        assert iid - strat > 0.10 * iid

    @pytest.mark.parametrize("stratified", [None, False])
    def test_auroc_bootstrap_vs_own(self, auroc_mid, stratified):
        y, pa, pb, df = auroc_mid
        by_class = stratified is None
        B = 20_000
        res = paired(df).bootstrap("A", "B", metric="auroc", rng=41, n_resamples=B,
                                   stratified=stratified, method="percentile")  # fmt: skip
        assert res.sampling == ("target-stratified" if by_class else "iid")
        assert res.n_valid == B
        assert_metric(res.improvement, roc_auc_score(y, pa) - roc_auc_score(y, pb))

        def stat(w):
            return auc_counts(w, y, pa) - auc_counts(w, y, pb)

        check_oracle(stat, auc_diff_sklearn(y, pa, pb), y, by_class)
        own = own_bootstrap(stat, y, B, seed=42, stratified=by_class)
        assert_same_law(res.bootstrap_distribution, own, f"AUROC stratified={stratified}")
        np.testing.assert_allclose(ci(res), percentile_interval(res.bootstrap_distribution),
                                   rtol=0, atol=1e-12)  # fmt: skip

        # power: resampling A and B independently (unpaired) would give a far larger
        # SD for these correlated scores, far outside the SD tolerance above
        rng = np.random.default_rng(43)
        idx_a, idx_b = (own_indices(y, 2_000, rng, by_class) for _ in range(2))
        unpaired = auc_counts(counts_of(idx_a, y.size), y, pa) - auc_counts(
            counts_of(idx_b, y.size), y, pb)  # fmt: skip
        assert unpaired.std() > 1.5 * own.std()

    @pytest.mark.parametrize(("task", "metric"), [("binary", "f1"), ("multiclass", "macro_f1")])
    @pytest.mark.parametrize("stratified", [None, False])
    def test_f1_bootstrap_vs_own(
        self, binary, multiclass_against_oracles, task, metric, stratified
    ):
        y, pa, pb, df = binary if task == "binary" else multiclass_against_oracles
        pcols = PROB_COLS if task == "multiclass" else ("p",)
        by_class = stratified is None
        B = 20_000
        res = paired(df, pcols).bootstrap("A", "B", metric=metric, rng=51, n_resamples=B,
                                          stratified=stratified)  # fmt: skip
        assert res.n_valid == B
        assert res.sampling == ("target-stratified" if by_class else "iid")
        if task == "binary":
            la, lb = pa > 0.5, pb > 0.5

            def stat(w):
                return f1_counts(w, y, la) - f1_counts(w, y, lb)

            def slow(row):
                return f1_score(y[row], la[row].astype(int)) - f1_score(y[row], lb[row].astype(int))
        else:
            ta, tb = pa.argmax(1), pb.argmax(1)

            def stat(w):
                return macro_f1_counts(w, y, ta) - macro_f1_counts(w, y, tb)

            def slow(row):
                return (sk_multiclass("macro_f1", y[row], pa[row], np.unique(y))
                        - sk_multiclass("macro_f1", y[row], pb[row], np.unique(y)))  # fmt: skip

        check_oracle(stat, slow, y, by_class)
        own = own_bootstrap(stat, y, B, seed=52, stratified=by_class)
        assert_same_law(res.bootstrap_distribution, own, f"{metric} stratified={stratified}")

    @pytest.mark.parametrize("stratified", [None, False])
    def test_auroc_bca_and_basic_exact_given_replicates(self, auroc_mid, stratified):
        """BCa from pdpaired's own replicates with an independent jackknife.

        Target-stratified resampling is a stratified bootstrap (strata = classes),
        so the acceleration is Davison & Hinkley's stratified jackknife: leave one
        case out within its class.  iid: Efron's leave-one-out over all cases.
        Leave-one-out AUCs by the placement identity AUC_{-i} = (m AUC - V10_i)/(m-1)
        (positive i) and (n AUC - V01_j)/(n-1) (negative j), checked against
        scikit-learn on a few cases.
        """
        y, pa, pb, df = auroc_mid
        cmp = paired(df).compare("A", "B", metric="auroc")
        res = cmp.bootstrap(n_resamples=10_000, rng=61, method="bca", stratified=stratified)
        basic = cmp.bootstrap(n_resamples=10_000, rng=61, method="basic", stratified=stratified)
        theta = roc_auc_score(y, pa) - roc_auc_score(y, pb)
        h = auc_kernel(y, pa) - auc_kernel(y, pb)
        m, n = h.shape
        loo_pos = (m * theta - h.mean(1)) / (m - 1)
        loo_neg = (n * theta - h.mean(0)) / (n - 1)
        pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
        for k, i in enumerate(pos[:3]):
            keep = np.arange(y.size) != i
            assert loo_pos[k] == pytest.approx(
                roc_auc_score(y[keep], pa[keep]) - roc_auc_score(y[keep], pb[keep]), abs=1e-12
            )
        for k, j in enumerate(neg[:3]):
            keep = np.arange(y.size) != j
            assert loo_neg[k] == pytest.approx(
                roc_auc_score(y[keep], pa[keep]) - roc_auc_score(y[keep], pb[keep]), abs=1e-12
            )
        acc_strat = dh_acceleration([loo_pos, loo_neg])
        acc_iid = dh_acceleration([np.r_[loo_pos, loo_neg]])
        dist = res.bootstrap_distribution
        scale = dist.std()
        expected = bca_from_dist(dist, theta, acc_strat if stratified is None else acc_iid)
        other = bca_from_dist(dist, theta, acc_iid if stratified is None else acc_strat)
        assert np.allclose(ci(res), expected, rtol=0, atol=1e-10 * scale), (
            f"BCa {ci(res)} != expected {expected} (the other jackknife gives {other})"
        )
        # basic: 2 theta - reversed percentile endpoints (same seed, same replicates)
        np.testing.assert_allclose(basic.bootstrap_distribution, dist, rtol=0, atol=0)
        np.testing.assert_allclose(ci(basic), 2 * theta - percentile_interval(dist)[::-1],
                                   rtol=0, atol=1e-10 * scale)  # fmt: skip

    def test_auroc_cluster_bootstrap_vs_own(self):
        """With a group column the unit is the group: each replicate draws G whole
        groups with replacement (a case drawn k times through its group weighs k),
        the same groups for A and B; classes cannot be held fixed.  Own oracle:
        group draw counts mapped onto the cases, weighted AUROC per replicate."""
        rng = np.random.default_rng(1313)
        G = 40
        sizes = rng.integers(3, 16, G)
        group = np.repeat(np.arange(G), sizes)
        y = (rng.uniform(size=group.size) < rng.uniform(0.2, 0.6, G)[group]).astype(int)
        u = rng.normal(0, 0.8, G)[group]  # group effect shared by A and B
        ea, eb = correlated_normals(group.size, 0.5, rng)
        pa = np.round(expit(1.2 * y + u + ea), 2)
        pb = np.round(expit(0.9 * y + u + eb), 2)
        labels = np.array([f"g{g:02d}" for g in group])
        df = pred_frame(y, pa, pb, seed=14, group=labels)
        B = 20_000
        res = paired(df).bootstrap("A", "B", metric="auroc", rng=171, n_resamples=B)
        assert res.sampling == "cluster"
        assert res.n_valid == B
        assert_metric(res.improvement, roc_auc_score(y, pa) - roc_auc_score(y, pb))

        def stat(w):
            return auc_counts(w, y, pa) - auc_counts(w, y, pb)

        draws = np.random.default_rng(172)
        own = np.concatenate([
            stat(counts_of(draws.integers(0, G, size=(2_000, G)), G)[:, group])
            for _ in range(B // 2_000)
        ])  # fmt: skip
        gidx = draws.integers(0, G, size=(20, G))  # the oracle is scikit-learn's AUROC
        for row, w in zip(gidx, counts_of(gidx, G)[:, group], strict=True):
            rows = np.concatenate([np.flatnonzero(group == g) for g in row])  # materialised
            assert stat(w[None])[0] == pytest.approx(auc_diff_sklearn(y, pa, pb)(rows), abs=1e-12)
        assert_same_law(res.bootstrap_distribution, own, "cluster AUROC")
        # the design matters here: the case-level (target-stratified) bootstrap is narrower
        case_sd = paired(df).bootstrap("A", "B", metric="auroc", rng=173, n_resamples=2_000,
                                       unit="case").bootstrap_distribution.std()  # fmt: skip
        assert own.std() > 1.2 * case_sd

    def test_auroc_stratum_by_class_cells_with_weights(self):
        """With a stratum column, classification resamples within stratum x class
        cells (each cell keeps its size) and stratum weights make every case weigh
        w_h / n_h inside the metric: the replicate is a weighted AUROC.  Own oracle:
        the same cells, counts times those case weights."""
        rng = np.random.default_rng(1414)
        sizes = {"s0": 150, "s1": 90, "s2": 60}
        prev = {"s0": 0.25, "s1": 0.4, "s2": 0.6}
        stratum = np.concatenate([[h] * k for h, k in sizes.items()])
        y = (rng.uniform(size=stratum.size) < np.array([prev[h] for h in stratum])).astype(int)
        ea, eb = correlated_normals(y.size, 0.7, rng)
        shift = np.where(stratum == "s2", 0.7, 0.0)
        pa = np.round(expit(1.3 * y + ea + shift), 2)
        pb = np.round(expit(1.0 * y + eb), 2)
        weights = {"s0": 0.2, "s1": 0.3, "s2": 0.5}
        cw = np.array([weights[h] / sizes[h] for h in stratum])
        df = pred_frame(y, pa, pb, seed=15, stratum=stratum)
        B = 20_000
        res = paired(df).bootstrap("A", "B", metric="auroc", rng=181, n_resamples=B,
                                   stratum_weights=weights)  # fmt: skip
        assert res.n_valid == B
        theta = roc_auc_score(y, pa, sample_weight=cw) - roc_auc_score(y, pb, sample_weight=cw)
        assert_metric(res.improvement, theta)

        def stat(w):
            return auc_counts(w * cw, y, pa) - auc_counts(w * cw, y, pb)

        cells = np.char.add(stratum, y.astype(str))  # resampling strata: stratum x class

        def slow(row):
            return (roc_auc_score(y[row], pa[row], sample_weight=cw[row])
                    - roc_auc_score(y[row], pb[row], sample_weight=cw[row]))  # fmt: skip

        check_oracle(stat, slow, cells, True)
        own = own_bootstrap(stat, cells, B, seed=182, stratified=True)
        assert_same_law(res.bootstrap_distribution, own, "stratum x class cells, weighted AUROC")

    # ===========================================================================
    # 4. large n: DeLong (1988) and the exact ideal-bootstrap variance
    # ===========================================================================
    def test_auroc_large_n_vs_delong(self):
        """n = 3000 (900 positives), correlated scores with ties.

        DeLong: placements V10_i = mean_j psi(X_i, Y_j) (positives), V01_j =
        mean_i psi(X_i, Y_j) (negatives); S10, S01 their 2x2 covariance matrices
        over the two models (ddof 1); S = S10/m + S01/n; var(AUC_A - AUC_B) = e'Se,
        e = (1, -1).

        Exact target-stratified bootstrap variance of the two-sample U-statistic
        U = mean_ij h_ij, h = psi_A - psi_B (positives and negatives resampled
        independently; counting equal/unequal index pairs):
            var* = s10/m + s01/n + (s11 - s10 - s01)/(mn)
        with s10 = var0_i(mean_j h_ij), s01 = var0_j(mean_i h_ij), s11 = var0(h).
        It differs from DeLong's by O(1/m) (ddof and the degenerate term).
        """
        y, pa, pb = auroc_data(seed=707, n_pos=900, n_neg=2100, mu=(1.1, 0.9), rho=0.7)
        pos, neg = y == 1, y == 0
        m, n = pos.sum(), neg.sum()
        psi_a, psi_b = auc_kernel(y, pa), auc_kernel(y, pb)
        assert_metric(psi_a.mean(), roc_auc_score(y, pa))  # oracle's own check
        v10 = np.stack([psi_a.mean(1), psi_b.mean(1)])
        v01 = np.stack([psi_a.mean(0), psi_b.mean(0)])
        S = np.cov(v10) / m + np.cov(v01) / n
        e = np.array([1.0, -1.0])
        se_delong = math.sqrt(e @ S @ e)
        h = psi_a - psi_b
        theta = h.mean()
        s10, s01, s11 = h.mean(1).var(), h.mean(0).var(), h.var()
        sd_ideal = math.sqrt(s10 / m + s01 / n + (s11 - s10 - s01) / (m * n))
        gap = abs(sd_ideal / se_delong - 1)
        assert gap < 0.005  # the two oracles agree to O(1/m) (property of the oracles)

        B = 10_000
        res = pred_frame(y, pa, pb, seed=8).paired(target="y", prediction="p").bootstrap(
            "A", "B", metric="auroc", rng=71, n_resamples=B)  # fmt: skip
        assert res.sampling == "target-stratified"
        assert res.n_valid == B
        assert_metric(res.improvement, theta)
        dist = res.bootstrap_distribution
        sd = dist.std(ddof=1)
        # pure MC comparison with the exact ideal SD (relative MC SE ~0.7%)
        assert_within(sd, sd_ideal, Z * sd_se(dist), "AUROC SD vs exact ideal bootstrap")
        # vs DeLong: MC error plus the computed deterministic gap (a ~10% tolerance
        # would be far looser than needed: the tolerance here is ~3%)
        assert_within(sd, se_delong, Z * sd_se(dist) + gap * se_delong, "AUROC SD vs DeLong SE")
        # E*(U*) = U exactly for this design
        assert_within(dist.mean(), theta, Z * sd_ideal / math.sqrt(B), "AUROC mean vs estimate")

        # Percentile endpoints vs DeLong's Wald interval theta -/+ z se.  Besides MC
        # error, the endpoints differ by the skewness of the replicates (Cornish-
        # Fisher: gamma (z^2 - 1) / 6 sd) and by the SD gap; |gamma| of an AUC
        # difference at m = 900 is O(1 / sqrt m) ~ 0.03, bounded here by 0.15
        # (checked first, so the allowance is not circular: a sample skewness of
        # 10,000 replicates has SE sqrt(6 / B) = 0.025).
        gamma = stats.skew(dist)
        assert abs(gamma) < 0.15
        z = ndtri(1 - ALPHA)
        wald = theta + np.array([-z, z]) * se_delong
        allowance = 0.15 * (z**2 - 1) / 6 * sd_ideal + z * gap * se_delong
        tol = np.array([Z * quantile_se(dist, p) for p in (ALPHA, 1 - ALPHA)]) + allowance
        assert_within(ci(res), wald, tol, "AUROC percentile interval vs DeLong")

    # ===========================================================================
    # 5. rare positives
    # ===========================================================================
    def test_rare_positives_target_stratified_vs_iid(self):
        """10% prevalence, n = 300 (30 positives).

        Target-stratified: every replicate has exactly 30 positives, so AUROC is
        always defined.  iid: the count of positives varies, Bin(300, 0.1) (SD 5.2),
        and a replicate without positives would be undefined, but that has
        probability 0.9^300 ~ 2e-14: at this n both designs keep every replicate
        and, for AUROC (prevalence-free to first order), give nearly the same SD.
        Where they differ is for prevalence-dependent metrics: accuracy, see the
        exact SDs checked below.
        """
        y, pa, pb = auroc_data(seed=808, n_pos=30, n_neg=270, mu=(1.3, 1.0), rho=0.6)
        df = pred_frame(y, pa, pb, seed=9)
        B = 20_000

        def stat(w):
            return auc_counts(w, y, pa) - auc_counts(w, y, pb)

        for stratified, seed in ((None, 81), (False, 83)):
            by_class = stratified is None
            res = paired(df).bootstrap("A", "B", metric="auroc", rng=seed, n_resamples=B,
                                       stratified=stratified)  # fmt: skip
            assert res.n_valid == res.n_resamples == B  # no replicate undefined, no warning
            check_oracle(stat, auc_diff_sklearn(y, pa, pb), y, by_class)
            own = own_bootstrap(stat, y, B, seed=seed + 1, stratified=by_class)
            assert np.isfinite(own).all()
            assert_same_law(res.bootstrap_distribution, own, f"rare AUROC stratified={stratified}")

        # accuracy: class mix varies under iid resampling, adding variance when A's
        # and B's gains differ between the classes; both exact SDs are matched
        la, lb = (per_case_loss("binary", "accuracy", y, np.round(p, 1)) for p in (pa, pb))
        d = la - lb
        df_acc = pred_frame(y, np.round(pa, 1), np.round(pb, 1), seed=10)
        for stratified, by_class in ((None, True), (False, False)):
            res = paired(df_acc).bootstrap("A", "B", metric="accuracy", rng=85, n_resamples=B,
                                           stratified=stratified)  # fmt: skip
            sd = ideal_sd(d, y, by_class)
            dist = res.bootstrap_distribution
            assert_within(
                dist.std(ddof=1), sd, Z * sd_se(dist), f"rare accuracy by_class={by_class}"
            )

    def test_very_rare_positives_iid_drops_undefined_replicates(self):
        """3 positives in 300 cases.  Target-stratified: every replicate has 3
        positives, so n_valid == n_resamples (and no warning).  iid: a replicate
        has no positive with probability q = (297/300)^300 ~ 0.049; such replicates
        are undefined, dropped and counted, with a DegenerateDataWarning (< 99% valid).
        The number dropped is Bin(B, q): checked within Z binomial SDs."""
        y, pa, pb = auroc_data(seed=909, n_pos=3, n_neg=297, mu=(1.5, 1.0), rho=0.6)
        df = pred_frame(y, pa, pb, seed=11)
        cmp = paired(df).compare("A", "B", metric="auroc")
        B = 20_000

        def stat(w):
            return auc_counts(w, y, pa) - auc_counts(w, y, pb)

        res = cmp.bootstrap(n_resamples=B, rng=91)
        assert res.sampling == "target-stratified"
        assert res.n_valid == B
        own = own_bootstrap(stat, y, B, seed=92, stratified=True)
        assert_same_law(res.bootstrap_distribution, own, "3 positives, stratified", quantiles=False)

        with pytest.warns(pdpaired.DegenerateDataWarning):
            iid = cmp.bootstrap(n_resamples=B, rng=93, stratified=False)
        assert iid.sampling == "iid"
        assert iid.n_resamples == B
        q = (297 / 300) ** 300
        dropped = B - iid.n_valid
        assert abs(dropped - B * q) <= Z * math.sqrt(B * q * (1 - q)), (dropped, B * q)
        dist = iid.bootstrap_distribution
        assert dist.shape == (iid.n_valid,)
        assert np.isfinite(dist).all()
        check_oracle(stat, auc_diff_sklearn(y, pa, pb), y, False, k=60)
        own_iid = own_bootstrap(stat, y, B, seed=94, stratified=False)
        assert abs(np.isnan(own_iid).mean() - q) <= Z * math.sqrt(q * (1 - q) / B)  # oracle check
        assert_same_law(dist, own_iid[np.isfinite(own_iid)], "3 positives, iid", quantiles=False)

    @pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
    def test_auroc_randomization_exact_enumeration(self, tiny_enumeration, alternative):
        y, pa, pb, t, null = tiny_enumeration
        df = pred_frame(y, pa, pb, seed=12)
        res = paired(df).randomization("A", "B", metric="auroc", n_permutations=1_000,
                                       alternative=alternative, rng=0)  # fmt: skip
        assert res.exact
        assert res.n_permutations == 256
        assert_metric(res.statistic, t)
        np.testing.assert_allclose(
            np.sort(res.null_distribution), np.sort(null), rtol=0, atol=1e-12
        )
        expected = swap_pvalue(t, null, alternative, plus_one=False)
        assert 0.02 < expected < 1  # informative (the data are not degenerate)
        assert res.pvalue == pytest.approx(expected, rel=1e-12)

    @pytest.mark.parametrize("alternative", ["two-sided", "greater"])
    def test_auroc_randomization_mc_vs_own_swap_test(self, swap_case, alternative):
        y, pa, pb, own_null, df = swap_case
        t = roc_auc_score(y, pa) - roc_auc_score(y, pb)
        r_lib, r_own = 50_000, own_null.size
        res = paired(df).randomization("A", "B", metric="auroc", n_permutations=r_lib,
                                       alternative=alternative, rng=121)  # fmt: skip
        assert not res.exact
        assert_metric(res.statistic, t)
        own_p = swap_pvalue(t, own_null, alternative, plus_one=True)
        assert 0.005 < own_p < 0.3, own_p  # an informative p-value (property of the data)
        se = math.hypot(
            math.sqrt(own_p * (1 - own_p) / r_lib), math.sqrt(own_p * (1 - own_p) / r_own)
        )
        # MC error of both, plus the O(1/R) difference of the plus-one corrections
        assert abs(res.pvalue - own_p) <= Z * se + 2 / r_own, (res.pvalue, own_p, Z * se)
        # the null distributions have the same law (symmetric about 0)
        lib_null = np.asarray(res.null_distribution)
        assert lib_null.shape == (r_lib,)
        assert stats.ks_2samp(lib_null, own_null).pvalue > P_FAIL
        assert_within(lib_null.std(), own_null.std(),
                      Z * np.hypot(sd_se(lib_null), sd_se(own_null)), "swap null SD")  # fmt: skip

    @pytest.mark.parametrize(("metric", "method"),
                             [("rmse", "percentile"), ("rmse", "bca"), ("mae", "percentile"),
                              ("r2", "percentile")])  # fmt: skip
    def test_regression_vs_scipy_paired(self, regression, metric, method):
        y, pa, pb, df = regression
        stat = IMPROVEMENT[metric]
        theta = stat(y, pa, pb)
        B = 20_000
        res = paired(df).bootstrap("A", "B", metric=metric, rng=131, n_resamples=B, method=method)
        ref = stats.bootstrap((y, pa, pb), stat, paired=True, vectorized=True, n_resamples=B,
                              method="BCa" if method == "bca" else method, confidence_level=LEVEL,
                              rng=np.random.default_rng(132))  # fmt: skip
        assert res.sampling == "iid"
        assert res.n_valid == B
        assert res.improvement == pytest.approx(theta, rel=1e-10, abs=1e-13)
        lib_d, ref_d = res.bootstrap_distribution, ref.bootstrap_distribution
        ref_ci = np.array([ref.confidence_interval.low, ref.confidence_interval.high])
        if method == "percentile":
            se = [
                np.hypot(quantile_se(lib_d, p), quantile_se(ref_d, p)) for p in (ALPHA, 1 - ALPHA)
            ]
            np.testing.assert_allclose(ci(res), percentile_interval(lib_d), rtol=0, atol=1e-12)
        else:
            # exact given the replicates, with a brute-force leave-one-out jackknife
            keep = ~np.eye(y.size, dtype=bool)
            loo = np.array([stat(y[k], pa[k], pb[k]) for k in keep])
            acc = dh_acceleration([loo])
            np.testing.assert_allclose(ci(res), bca_from_dist(lib_d, theta, acc), rtol=0,
                                       atol=1e-10 * lib_d.std())  # fmt: skip
            se = np.hypot(bca_endpoint_se(lib_d, theta, acc), bca_endpoint_se(ref_d, theta, acc))
        assert_within(ci(res), ref_ci, Z * np.asarray(se), f"{metric} {method} interval vs scipy")
        assert_within(
            lib_d.std(ddof=1),
            ref.standard_error,
            Z * np.hypot(sd_se(lib_d), sd_se(ref_d)),
            f"{metric} SD vs scipy",
        )
        assert stats.ks_2samp(lib_d, ref_d).pvalue > P_FAIL

    def test_custom_metric_values_and_bootstrap(self, binary):
        y, pa, pb, df = binary
        metric = pdpaired.Metric("balanced_accuracy", balanced_accuracy, higher_is_better=True)
        cmp = paired(df).compare("A", "B", metric=metric)
        ref_a = balanced_accuracy_score(y, (pa > 0.5).astype(int))
        ref_b = balanced_accuracy_score(y, (pb > 0.5).astype(int))
        assert_metric(cmp.metric_a, ref_a)
        assert_metric(cmp.metric_b, ref_b)
        B = 600  # pdpaired calls the Python function per resample (~1 ms each)
        res = cmp.bootstrap(n_resamples=B, rng=141, stratified=False)
        assert res.metric == "balanced_accuracy"
        assert res.sampling == "iid"
        assert res.n_valid == B
        assert_metric(res.metric_a, ref_a)
        assert res.improvement == pytest.approx(ref_a - ref_b, rel=1e-10, abs=1e-14)
        la, lb = pa > 0.5, pb > 0.5

        def stat(w):
            return balanced_accuracy_counts(w, y, la) - balanced_accuracy_counts(w, y, lb)

        def slow(row):
            return (balanced_accuracy_score(y[row], la[row].astype(int))
                    - balanced_accuracy_score(y[row], lb[row].astype(int)))  # fmt: skip

        check_oracle(stat, slow, y, False)
        own = own_bootstrap(stat, y, 20_000, seed=142, stratified=False)
        assert_same_law(res.bootstrap_distribution, own, "custom balanced accuracy, iid",
                        quantiles=False)  # fmt: skip

        # default design: target-stratified (custom metrics get the same design as
        # built-in ones, docs/prediction.md); balanced accuracy = (TPR + TNR) / 2 is
        # a mean within each class, so its ideal-bootstrap SD is exact
        dflt = cmp.bootstrap(n_resamples=B, rng=143)
        assert dflt.n_valid == B
        assert dflt.sampling == "target-stratified"
        dist = dflt.bootstrap_distribution
        d = (la == (y == 1)).astype(float) - (lb == (y == 1)).astype(float)
        sd = 0.5 * math.sqrt(sum(d[y == c].var() / (y == c).sum() for c in (0, 1)))
        assert_within(dist.std(ddof=1), sd, Z * sd_se(dist), "custom, target-stratified SD")

    def test_custom_lower_is_better_matches_builtin(self, binary):
        """A custom Brier (lower is better) gives the built-in's values and direction,
        and its iid bootstrap has the exact ideal SD of a mean of per-case losses."""
        y, pa, pb, df = binary
        custom = pdpaired.Metric("my_brier", brier, higher_is_better=False)
        B = 1_000  # pdpaired calls the Python function per resample
        res = paired(df).bootstrap("A", "B", metric=custom, rng=151, n_resamples=B,
                                   stratified=False)  # fmt: skip
        builtin = paired(df).bootstrap("A", "B", metric="brier", rng=152, n_resamples=20_000,
                                       stratified=False)  # fmt: skip
        assert res.higher_is_better is False
        for r in (res, builtin):
            assert_metric(r.metric_a, brier_score_loss(y, pa))
            assert_metric(r.metric_b, brier_score_loss(y, pb))
            assert r.improvement == pytest.approx(r.metric_b - r.metric_a, rel=1e-12, abs=1e-15)
        d = (pb - y) ** 2 - (pa - y) ** 2
        sd = ideal_sd(d, y, stratified=False)
        dist = res.bootstrap_distribution
        assert_within(dist.std(ddof=1), sd, Z * sd_se(dist), "custom Brier SD vs exact")
        assert_within(dist.mean(), d.mean(), Z * sd / math.sqrt(B), "custom Brier mean vs exact")
        assert_same_law(dist, builtin.bootstrap_distribution, "custom vs built-in Brier")


def regression_table(seed: int = 0, n: int = 300) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.normal(size=n)
    pa = y + rng.normal(0.0, 0.9, n)
    pb = y + rng.normal(0.0, 1.0, n)
    group = np.arange(n) // 5
    stratum = np.array(["s0", "s1", "s2"])[group % 3]
    ids = rng.permutation(n) + 10
    rows = []
    for name, p in (("A", pa), ("B", pb)):
        rows.append(pd.DataFrame({
            "case_id": ids, "model": name, "y": y, "p": p, "abs_err": np.abs(p - y),
            "group": group, "stratum": stratum,
        }))  # fmt: skip
    return pd.concat(rows, ignore_index=True)


class TestSharedStreams:
    """Prediction mode's randomization test reads score mode's stream and tie rule.

    * ``swap_indicators`` are exactly the bits the score-mode sign-flip engines
      read: recomputing the flip sums from them gives the engines' integer sums.
    * A decomposable corpus metric (MAE) in prediction mode and the mean of the
      same per-case values (absolute errors) in score mode swap the same units for
      the same seed, so their null distributions agree to rounding and their
      p-values are equal -- for cases, strata and whole groups.
    * One tie rule: 100 machine epsilons of the magnitudes combined in floating
      point, plus the quantization drift where sums are exact.
    """

    def test_swap_indicators_are_the_sign_flip_engines_bits(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        from pdpaired._lib.rng import stream_sequence
        from pdpaired.core.randomization import _flip_layout, _flip_sums_numpy

        rng = np.random.default_rng(4)
        ptr = np.array([0, 70, 70 + 1, 70 + 1 + 130])  # strata of 70, 1 and 130 units
        q = rng.integers(-1000, 1000, size=int(ptr[-1])).astype(np.int64)
        root = np.random.SeedSequence(99)
        lay = _flip_layout(q, ptr, tables=True)
        sums = _flip_sums_numpy(lay, 300, stream_sequence(root, "randomization_bits"), batch=64)
        flips = swap_indicators(ptr, 0, 300, root).astype(np.int64)
        signed = np.where(flips == 1, -q, q)
        assert np.array_equal(np.add.reduceat(signed, ptr[:-1], axis=1), sums)
        # assignments 120.. read on from the same place, whatever the batch
        assert np.array_equal(swap_indicators(ptr, 120, 50, root), flips[120:170].astype(np.uint8))

    @pytest.mark.parametrize(
        ("config", "unit"),
        [
            ({"group": None, "stratum": None}, "case"),
            ({"group": None}, "case"),  # strata
            ({}, "group"),  # whole groups within strata
        ],
    )
    def test_prediction_and_score_mode_swap_the_same_units(
        self, config: dict[str, None], unit: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv(
            "PDPAIRED_ACCELERATOR", "numpy"
        )  # score mode reads the same bits either way
        df = regression_table()
        kw = {"n_permutations": 3000, "rng": 11, "unit": unit, "alternative": "two-sided"}
        pred = df.paired(target="y", prediction="p", **config).randomization(
            "A", "B", metric="mae", **kw
        )
        score = df.paired(score="abs_err", **config).randomization(
            "A", "B", higher_is_better=False, **kw
        )
        assert pred.exact is False
        assert score.engine in ("numpy", "numba")
        assert pred.statistic == pytest.approx(score.statistic, rel=1e-12)
        # same assignments: the same null distribution, value for value, to rounding
        np.testing.assert_allclose(
            pred.null_distribution, score.null_distribution, rtol=0, atol=1e-12
        )
        assert pred.pvalue == score.pvalue

    def test_one_tie_rule(self) -> None:
        eps = np.finfo(np.float64).eps
        assert tie_tolerance(0.25) == 100 * eps * 0.25
        assert tie_tolerance(0.7, -0.5, 0.2) == pytest.approx(100 * eps * 1.4, rel=1e-15)
        assert tie_tolerance(-2.0, drift=1e-12) == 1e-12 + 200 * eps

    def test_prediction_mode_counts_exact_ties_as_extreme(self) -> None:
        """0/1 correctness ties constantly: the observed value itself counts as 'as extreme'."""
        rng = np.random.default_rng(2)
        n = 200
        y = rng.integers(0, 2, n)
        pa = np.where(rng.random(n) < 0.8, y, 1 - y).astype(float)
        pb = np.where(rng.random(n) < 0.8, y, 1 - y).astype(float)
        df = pd.concat([
            pd.DataFrame({"case_id": np.arange(n), "model": m, "y": y, "p": p})
            for m, p in (("A", pa), ("B", pb))
        ], ignore_index=True)  # fmt: skip
        res = df.paired(target="y", prediction="p").randomization(
            "A", "B", metric="accuracy", n_permutations=2000, rng=3
        )
        t, null = res.statistic, res.null_distribution
        extreme = np.count_nonzero(
            np.abs(null) >= abs(t) - tie_tolerance(res.metric_a, res.metric_b, t)
        )
        assert res.pvalue == (1 + extreme) / (1 + null.size)
        # ties really occur at the observed value, and counting them is what makes the p-value
        assert np.count_nonzero(np.isclose(np.abs(null), abs(t), rtol=0, atol=1e-12)) > 0
