"""``Comparison.audit`` and ``df.paired.audit``: the comparison's own design, the methods
valid for it, determinism, row-order invariance and the designs it refuses."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdpaired
from pdpaired import AuditResult

SMALL = {"n_simulations": 20, "n_resamples": 99}


def scores(n: int = 40, seed: int = 0, *, binary: bool = False, groups: int | None = None,
           strata: int | None = None) -> pd.DataFrame:  # fmt: skip
    rng = np.random.default_rng(seed)
    if binary:
        a, b = rng.binomial(1, 0.7, n), rng.binomial(1, 0.6, n)
    else:
        b = rng.normal(0, 1, n)
        a = b + rng.lognormal(0, 1, n) - 1.0
    df = pd.DataFrame({
        "case_id": np.tile(np.arange(n), 2), "model": np.repeat(["A", "B"], n),
        "score": np.concatenate([a, b]).astype(float),
    })  # fmt: skip
    if groups is not None:
        df["group"] = np.tile(np.arange(n) % groups, 2)
    if strata is not None:
        df["stratum"] = np.tile(np.arange(n) % strata, 2)
    return df


def test_default_methods_include_autos_choice_and_the_tests() -> None:
    res = scores().paired.compare("A", "B", higher_is_better=True).audit(rng=0, **SMALL)
    assert isinstance(res, AuditResult)
    assert res.auto_method == "studentized"
    frame = res.to_frame()
    assert frame["method"].tolist() == ["percentile", "basic", "bca", "studentized",
                                        "randomization"]  # fmt: skip
    assert frame["recommended"].sum() == 1
    assert res.recommended_method in frame["method"].tolist()
    assert res.stream == "audit"
    assert res.seed == 0


def test_binary_scores_add_the_score_intervals_and_the_exact_test() -> None:
    res = scores(200, binary=True).paired.audit("A", "B", higher_is_better=True, rng=1, **SMALL)
    methods = res.to_frame()["method"].tolist()
    assert res.auto_method == "tango"
    assert methods[-4:] == ["tango", "newcombe", "randomization", "exact_binomial"]


def test_calibrated_only_when_asked_and_auto_names_its_choice() -> None:
    cmp = scores(20).paired.compare("A", "B", higher_is_better=True)
    res = cmp.audit(methods=["auto", "calibrated"], tests=False, rng=0, n_simulations=2,
                    n_resamples=49)  # fmt: skip
    assert res.to_frame()["method"].tolist() == ["studentized", "calibrated"]
    assert "calibrated" not in cmp.audit(rng=0, **SMALL).to_frame()["method"].tolist()


def test_the_accessor_is_compare_then_audit() -> None:
    df = scores()
    one = df.paired.audit("A", "B", higher_is_better=True, rng=5, **SMALL)
    two = df.paired.compare("A", "B", higher_is_better=True).audit(rng=5, **SMALL)
    pd.testing.assert_frame_equal(one.to_frame(), two.to_frame())


def test_same_seed_same_audit_other_seed_other_audit() -> None:
    cmp = scores().paired.compare("A", "B", higher_is_better=True)
    one, two = cmp.audit(rng=3, **SMALL), cmp.audit(rng=3, **SMALL)
    pd.testing.assert_frame_equal(one.to_frame(), two.to_frame())
    other = cmp.audit(rng=4, **SMALL)
    assert not one.to_frame()["mean_width"].equals(other.to_frame()["mean_width"])
    gen = cmp.audit(rng=np.random.default_rng(3), **SMALL)
    assert gen.seed is None
    assert gen.rng_state is not None


def test_row_order_does_not_change_the_audit() -> None:
    df = scores(30, groups=10, strata=2)
    shuffled = df.sample(frac=1.0, random_state=7).reset_index(drop=True)
    kw = {"higher_is_better": True, "rng": 11, **SMALL}
    one = df.paired(group="group", stratum="stratum").audit("A", "B", **kw)
    two = shuffled.paired(group="group", stratum="stratum").audit("A", "B", **kw)
    pd.testing.assert_frame_equal(one.to_frame(), two.to_frame())
    assert one.sampling == "stratified-cluster"


def test_cluster_design_is_the_bootstraps() -> None:
    cmp = scores(60, groups=12).paired(group="group").compare("A", "B", higher_is_better=True)
    res = cmp.audit(rng=0, **SMALL)
    boot = cmp.bootstrap(rng=0, n_resamples=99)
    assert (res.sampling, res.unit, res.n_groups) == (boot.sampling, boot.unit, boot.n_groups)
    assert res.auto_method == boot.method


class TestRefusals:
    def test_corpus_metric(self) -> None:
        rng = np.random.default_rng(0)
        n = 60
        y = rng.integers(0, 2, n)
        df = pd.DataFrame({
            "case_id": np.tile(np.arange(n), 2), "model": np.repeat(["A", "B"], n),
            "y": np.tile(y, 2), "p": rng.uniform(size=2 * n),
        })  # fmt: skip
        cmp = df.paired(target="y", prediction="p").compare("A", "B", metric="auroc")
        with pytest.raises(ValueError, match="needs a mean of per-case scores"):
            cmp.audit(rng=0, **SMALL)

    def test_repeated_runs(self) -> None:
        df = pd.concat([scores(20, seed=r).assign(run=r) for r in range(3)], ignore_index=True)
        cmp = df.paired(repeat="sample").compare("A", "B", higher_is_better=True)
        with pytest.raises(ValueError, match="repeated runs"):
            cmp.audit(rng=0, **SMALL)

    def test_dask_poisson_bootstrap(self) -> None:
        dd = pytest.importorskip("dask.dataframe")
        import pdpaired.dask  # noqa: F401

        ddf = dd.from_pandas(scores(200), npartitions=2)
        cmp = ddf.paired.compare("A", "B", higher_is_better=True)
        with pytest.raises(ValueError, match="Poisson bootstrap"):
            cmp.audit(rng=0, **SMALL)
        collected = cmp.audit(rng=0, collect=True, **SMALL)
        local = scores(200).paired.compare("A", "B", higher_is_better=True).audit(rng=0, **SMALL)
        pd.testing.assert_frame_equal(collected.to_frame(), local.to_frame())

    def test_score_interval_on_continuous_scores(self) -> None:
        cmp = scores().paired.compare("A", "B", higher_is_better=True)
        with pytest.raises(ValueError, match="'tango' is not valid for this design"):
            cmp.audit(methods=["tango"], rng=0, **SMALL)

    @pytest.mark.parametrize(
        ("kw", "error", "match"),
        [
            ({"methods": ["wilson"]}, ValueError, "`methods` must be among"),
            ({"methods": []}, ValueError, "at least one"),
            ({"n_simulations": 1}, ValueError, "at least 2"),
            ({"n_simulations": 2.5}, TypeError, "`n_simulations`"),
            ({"n_resamples": 0}, ValueError, "`n_resamples`"),
            ({"confidence_level": 1.5}, ValueError, "`confidence_level`"),
            ({"tests": "yes"}, TypeError, "`tests`"),
        ],
    )
    def test_options(self, kw: dict[str, object], error: type, match: str) -> None:
        cmp = scores().paired.compare("A", "B", higher_is_better=True)
        with pytest.raises(error, match=match):
            cmp.audit(**kw)  # type: ignore[arg-type]


def test_public_name() -> None:
    assert pdpaired.AuditResult.__module__ == "pdpaired"
