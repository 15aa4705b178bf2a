"""Prediction mode: engines, design invariances, closed forms and bad input.

Statistical oracles (scikit-learn metric values, independent paired
bootstraps, DeLong, coverage) are in ``test_prediction_oracles.py``.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn import metrics as skm

import pdpaired
from pdpaired import DegenerateDataWarning, PairingError


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
                                                        n_resamples=40, rng=0)  # fmt: skip
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
    pct = acc.bootstrap("A", "B", metric="auroc", n_resamples=2000, rng=0)
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
