"""The suite of tasks end to end: per-task bootstraps on their own streams, then pooling."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.meta_analysis import combine_effects

import pdpaired
from pdpaired.analysis.suite import task_seed

KW = {"higher_is_better": True, "n_resamples": 500, "rng": 7}


def make_suite(seed: int = 0, lifts: tuple[float, ...] = (0.0, 0.1, 0.25, 0.05)) -> pd.DataFrame:
    """Continuous scores, one block per task, the tasks' case ids overlapping on purpose."""
    rng = np.random.default_rng(seed)
    parts = []
    for t, lift in enumerate(lifts):
        n = 60 + 10 * t
        base = rng.normal(0, 1, n)
        parts.append(pd.DataFrame({
            "task": f"task{t}",
            "case_id": np.repeat(np.arange(n), 2),
            "group": np.repeat(np.arange(n) // 4, 2),
            "model": ["A", "B"] * n,
            "score": np.ravel(np.c_[base + lift + rng.normal(0, 0.5, n),
                                    base + rng.normal(0, 0.5, n)]),
        }))  # fmt: skip
    return pd.concat(parts, ignore_index=True)


class TestPerTask:
    def test_each_task_equals_its_own_bootstrap_on_its_derived_stream(self) -> None:
        df = make_suite()
        res = df.paired.suite("A", "B", **KW)
        assert list(res.tasks["task"]) == ["task0", "task1", "task2", "task3"]
        for _, row in res.tasks.iterrows():
            rows = df[df["task"] == row["task"]]
            alone = rows.paired.bootstrap(
                "A", "B", higher_is_better=True, n_resamples=500,
                rng=task_seed(7, "task", row["task"]),
            )  # fmt: skip
            assert alone.sampling == "cluster"  # the group column is each task's design
            assert row["improvement"] == alone.improvement
            assert row["standard_error"] == alone.standard_error
            assert row["ci_low"] == alone.confidence_interval.low
            assert row["ci_high"] == alone.confidence_interval.high
            assert row["n_cases"] == alone.n_cases
            assert row["stream"] == f"suite:task={row['task']}:bootstrap"

    def test_pooled_numbers_are_those_of_the_task_estimates(self) -> None:
        res = make_suite().paired.suite("A", "B", tau2="dl", **KW)
        y, se = res.tasks["improvement"].to_numpy(), res.tasks["standard_error"].to_numpy()
        sm = combine_effects(y, se**2, method_re="dl")
        assert res.fixed == pytest.approx(sm.mean_effect_fe, abs=1e-10)
        assert res.random == pytest.approx(sm.mean_effect_re, abs=1e-10)
        assert res.tau2 == pytest.approx(max(sm.tau2, 0.0), abs=1e-10)
        assert res.q == pytest.approx(sm.q, abs=1e-10)
        assert sm.tau2 > 0  # so statsmodels' untruncated tau2 is pdpaired's
        assert res.random_ci == "hksj"  # the default
        *_, hk = sm.conf_int(alpha=0.05, use_t=True)
        assert (res.random_interval.low, res.random_interval.high) == pytest.approx(
            tuple(hk), abs=1e-10
        )
        wald = make_suite().paired.suite("A", "B", tau2="dl", random_ci="wald", **KW)
        _, re_wald, *_ = sm.conf_int(alpha=0.05, use_t=False)
        assert (wald.random_interval.low, wald.random_interval.high) == pytest.approx(
            tuple(re_wald), abs=1e-10
        )
        assert (wald.random, wald.random_se) == (res.random, res.random_se)
        assert wald.prediction_interval == res.prediction_interval

    def test_a_task_does_not_depend_on_the_other_tasks(self) -> None:
        df = make_suite()
        full = df.paired.suite("A", "B", **KW).tasks.set_index("task")
        part = df[df["task"] != "task1"].paired.suite("A", "B", **KW).tasks.set_index("task")
        own = ["n_cases", "improvement", "standard_error", "ci_low", "ci_high", "stream"]
        # the simultaneous intervals and the weights depend on the set of tasks, by design
        pd.testing.assert_frame_equal(part[own], full.drop(index="task1").loc[part.index, own])

    def test_the_task_column_is_configured_or_given(self) -> None:
        df = make_suite().rename(columns={"task": "bench"})
        configured = df.paired(task="bench").suite("A", "B", **KW)
        given = df.paired.suite("A", "B", task="bench", **KW)
        assert configured == given
        assert configured.task_column == "bench"
        assert "task='bench'" in repr(df.paired(task="bench"))
        # suite's own argument takes precedence over the configuration
        df["other"] = "x-" + df["bench"]
        res = df.paired(task="bench").suite("A", "B", task="other", **KW)
        assert res.task_column == "other"
        assert res.tasks["task"].str.startswith("x-").all()

    def test_bootstrap_keywords_reach_every_task(self) -> None:
        res = (
            make_suite()
            .paired(group=None)
            .suite("A", "B", method="percentile", confidence_level=0.9, **KW)
        )
        assert set(res.tasks["method"]) == {"percentile"}
        assert res.confidence_level == 0.9
        assert res.simultaneous_level == pytest.approx(0.9 ** (1 / 4))


class TestInvariance:
    def test_row_order_is_irrelevant(self) -> None:
        df = make_suite()
        shuffled = df.sample(frac=1.0, random_state=1)
        a = df.paired.suite("A", "B", **KW)
        b = shuffled.paired.suite("A", "B", **KW)
        pd.testing.assert_frame_equal(a.to_frame(), b.to_frame())
        assert a == b

    def test_the_callers_frame_is_unmodified(self) -> None:
        df = make_suite()
        before = df.copy()
        df.paired.suite("A", "B", **KW)
        pd.testing.assert_frame_equal(df, before)
        assert df.attrs == {}

    def test_swapping_the_models_negates_the_pooled_effects(self) -> None:
        df = make_suite()
        ab = df.paired.suite("A", "B", **KW)
        ba = df.paired.suite("B", "A", **KW)
        np.testing.assert_allclose(ba.tasks["improvement"], -ab.tasks["improvement"], atol=1e-12)
        np.testing.assert_allclose(ba.tasks["standard_error"], ab.tasks["standard_error"])
        assert ba.random == pytest.approx(-ab.random, abs=1e-12)
        assert ba.fixed == pytest.approx(-ab.fixed, abs=1e-12)
        assert ba.tau2 == pytest.approx(ab.tau2, abs=1e-12)

    def test_same_seed_same_result(self) -> None:
        df = make_suite()
        assert df.paired.suite("A", "B", **KW) == df.paired.suite("A", "B", **KW)


class TestErrors:
    def test_one_task_is_an_error(self) -> None:
        df = make_suite(lifts=(0.1,))
        with pytest.raises(ValueError, match="at least 2 tasks"):
            df.paired.suite("A", "B", **KW)

    def test_a_failing_task_is_named(self) -> None:
        df = make_suite()
        df = df[~((df["task"] == "task2") & (df["model"] == "B") & (df["case_id"] == 3))]
        with pytest.raises(ValueError, match="task task=task2: "):
            df.paired.suite("A", "B", **KW)

    def test_a_task_without_variation_is_named(self) -> None:
        df = make_suite()
        df.loc[df["task"] == "task0", "score"] = 1.0
        with pytest.raises(ValueError, match=r"task task=task0: .*standard error"):
            df.paired(group=None).suite("A", "B", **KW)

    def test_missing_task_column_and_values(self) -> None:
        df = make_suite()
        with pytest.raises(ValueError, match="`task` must name a column"):
            df.paired.suite("A", "B", task="nope", **KW)
        df.loc[0, "task"] = None
        case = int(df.loc[0, "case_id"])
        with pytest.raises(ValueError, match="missing value") as info:
            df.paired.suite("A", "B", **KW)
        assert "1 missing value(s)" in str(info.value)
        assert f"first ids: [{case!r}]" in str(info.value)

    def test_bad_tau2(self) -> None:
        with pytest.raises(ValueError, match="`tau2` must be one of"):
            make_suite().paired.suite("A", "B", tau2="pm", **KW)

    def test_bad_random_ci(self) -> None:
        with pytest.raises(ValueError, match="`random_ci` must be one of"):
            make_suite().paired.suite("A", "B", random_ci="hk", **KW)


class TestViews:
    def test_frame_dict_text_html_plot(self) -> None:
        res = make_suite(lifts=(0.3, 0.4, 0.5, 0.35)).paired.suite("A", "B", **KW)
        assert isinstance(res, pdpaired.SuiteResult)
        frame = res.to_frame()
        assert frame["row"].tolist() == ["task"] * 4 + ["fixed", "random", "prediction"]
        assert frame.loc[5, "improvement"] == res.random
        assert frame.loc[6, "ci_low"] == res.prediction_interval.low
        d = res.to_dict()
        json.dumps(d, allow_nan=False)
        assert d["random"]["estimate"] == res.random
        assert len(d["tasks"]) == 4
        text = str(res)
        assert text.splitlines()[0] == res.verdict_sentence()
        assert res.verdict == "a_better"
        assert "is better than" in text
        assert "verdict='a_better'" in repr(res)
        import matplotlib.figure

        ax = res.plot(ax=matplotlib.figure.Figure().subplots())
        labels = [t.get_text() for t in ax.get_yticklabels()]
        assert labels[-3:] == ["fixed effect", "random effects", "prediction"]

    def test_labels_are_escaped(self) -> None:
        df = make_suite()
        df["task"] = df["task"].replace({"task0": "<b>x</b>", "task1": "a\x1b[31m"})
        res = df.paired.suite("A", "B", **KW)
        page = res._repr_html_()
        assert "<b>x</b>" not in page
        assert "&lt;b&gt;x&lt;/b&gt;" in page
        assert "\x1b" not in str(res)


def test_the_dask_accessor_says_to_bring_the_table_into_memory() -> None:
    import dask.dataframe as dd

    import pdpaired.dask  # noqa: F401  (registers ddf.paired)

    ddf = dd.from_pandas(make_suite(), npartitions=2)
    with pytest.raises(NotImplementedError, match=r"ddf\.compute\(\)"):
        ddf.paired.suite("A", "B", **KW)
