"""``AuditResult``: its frame, dict, text, HTML and plot views."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest

from pdpaired import AuditResult
from pdpaired.results.audit import FRAME_COLUMNS, AuditRow
from pdpaired.results.missing import MissingSummary


def result(*, a: str = "new", recommended: str = "percentile", auto: str = "percentile",
           coverage: tuple[float, ...] = (0.9475, 0.93, 0.9525)) -> AuditResult:  # fmt: skip
    methods = ("percentile", "basic", "studentized")
    s = 400
    rows = [
        AuditRow(
            method=m,
            kind="interval",
            coverage=c,
            coverage_se=float(np.sqrt(c * (1 - c) / s)),
            mean_width=0.2 + 0.01 * i,
            recommended=m == recommended,
        )
        for i, (m, c) in enumerate(zip(methods, coverage, strict=True))
    ]
    rows.append(AuditRow(method="randomization", kind="test", size=0.0475,
                         size_se=float(np.sqrt(0.0475 * 0.9525 / s))))  # fmt: skip
    return AuditResult(
        a=a, b="old", metric="mean", higher_is_better=True, metric_a=0.6, metric_b=0.5,
        raw_delta=0.1, improvement=0.1, n_cases=200, n_groups=None, n_strata=None, unit="case",
        weighting="item", sampling="iid", stratum_weights=None,
        missing=MissingSummary(policy="error", n_missing_a=0, n_missing_b=0, n_dropped=0,
                               n_filled=0),
        seed=0, stream="audit", rng_state=None, score_column="score", rows=tuple(rows),
        confidence_level=0.95, n_simulations=s, n_resamples=999, auto_method=auto,
        auto_reason="continuous scores on 200 independent cases", recommended_method=recommended,
        recommended_reason="it is the method 'auto' chooses for this design", engine="numba",
    )  # fmt: skip


def test_frame_has_one_row_per_method_and_the_documented_columns() -> None:
    frame = result().to_frame()
    assert tuple(frame.columns) == FRAME_COLUMNS
    assert frame["method"].tolist() == ["percentile", "basic", "studentized", "randomization"]
    assert frame["recommended"].dtype == bool
    assert frame["recommended"].tolist() == [True, False, False, False]
    assert frame.loc[3, ["coverage", "coverage_se", "mean_width"]].isna().all()
    assert frame.loc[:2, ["size", "size_se"]].isna().all().all()
    assert frame.loc[0, "coverage_se"] == pytest.approx(np.sqrt(0.9475 * 0.0525 / 400))


def test_dict_is_json_without_nan() -> None:
    d = result().to_dict()
    json.dumps(d, allow_nan=False)
    assert d["result"] == "AuditResult"
    assert d["rows"][3]["coverage"] is None
    assert d["recommended_method"] == "percentile"


def test_text_says_which_method_to_trust_and_why() -> None:
    text = str(result(recommended="studentized", auto="percentile", coverage=(0.88, 0.87, 0.95)))
    first = text.splitlines()[0]
    assert first.startswith("Trust studentized on this design")
    assert "method='auto' chooses percentile (it covered 88.0%)" in first
    assert "pass method='studentized'" in first
    assert "coverage 0.950 +/- 0.011 (nominal 95%)" in text
    assert "size 0.048 +/- 0.011 (nominal 0.05)" in text


def test_labels_are_escaped_in_text_and_html() -> None:
    res = result(a="evil\x1b[31m<script>")
    assert "\x1b" not in str(res)
    page = res._repr_html_()
    assert "<script>" not in page
    assert "&lt;script&gt;" in page
    assert "Trust percentile" in page


def test_plot_draws_coverage_against_the_nominal_level() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    try:
        out = result().plot(ax=ax)
        assert out is ax
        assert [t.get_text() for t in ax.get_yticklabels()] == ["percentile", "basic",
                                                                 "studentized"]  # fmt: skip
        nominal = [ln for ln in ax.get_lines() if list(ln.get_xdata()) == [0.95, 0.95]]
        assert nominal
    finally:
        plt.close(fig)


def test_repr_is_short() -> None:
    r = repr(result())
    assert r.startswith("AuditResult(a='new'")
    assert "recommended_method='percentile'" in r
    assert isinstance(result().to_frame(), pd.DataFrame)


class TestArtifactBlock:
    def test_a_block_from_a_result_has_no_problem(self) -> None:
        from pdpaired.results.audit import audit_problems

        block = result().artifact_block()
        assert block["stream"] == "audit"
        assert audit_problems(block) == []

    @pytest.mark.parametrize(
        ("change", "found"),
        [
            (lambda b: b["rows"][0].update(coverage=0.948), "not a share of 400"),
            (lambda b: b["rows"][0].update(coverage_se=0.02), "not sqrt(p(1-p)/S)"),
            (lambda b: b["rows"][3].update(coverage=0.5), "must hold size, size_se only"),
            (lambda b: b["rows"][1].update(recommended=True), "the one recommended"),
            (lambda b: b.update(recommended_method="basic"), "the one recommended"),
            (lambda b: b["rows"][1].update(method="percentile"), "appears twice"),
        ],
    )
    def test_tampered_blocks_are_found(
        self, change: Callable[[dict[str, Any]], None], found: str
    ) -> None:
        from pdpaired.results.audit import audit_problems

        block = result().artifact_block()
        change(block)
        problems = audit_problems(block)
        assert any(found in p for p in problems), problems
