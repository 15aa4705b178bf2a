"""The suite artifact (``paired-suite-artifact/v1``): contents, Markdown, gate and verify.

The pooled numbers of a saved artifact are checked against
``statsmodels.stats.meta_analysis.combine_effects`` run on the artifact's
own per-task estimates and standard errors (an independent pooling), and
the local artifact's digests against hashes written out here. ``verify``
must refuse every edit an attacker who recomputes the digest could make to
the pooled block: a forged pooled effect, a forged ``tau2`` (alone, or with
the random-effects mean recomputed to match it), a forged prediction
interval, a flipped verdict.
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.meta_analysis import combine_effects

import pdpaired
from pdpaired import ArtifactError

from ..analysis.test_suite import make_suite
from .test_multi import problems_of, redigest

KW = {"higher_is_better": True, "n_resamples": 400, "rng": 11}
XSS = "<img src=x onerror=alert(1)>"
CANARY_TASKS = (XSS, "a|b", "`tick`", "plain")


@pytest.fixture(scope="module")
def df() -> pd.DataFrame:
    """Four heterogeneous tasks named with canaries, case ids marked as canaries too."""
    frame = make_suite(seed=5, lifts=(0.0, 0.4, -0.2, 0.6))
    names = dict(zip(sorted(frame["task"].unique()), CANARY_TASKS, strict=True))
    frame["task"] = frame["task"].map(names)
    frame["case_id"] = "CANARY-ID-" + frame["case_id"].astype(str)
    return frame


@pytest.fixture(scope="module")
def res(df: pd.DataFrame) -> pdpaired.SuiteResult:
    return df.paired.suite("A", "B", tau2="dl", noninferiority_margin=0.5, **KW)


@pytest.fixture(scope="module")
def saved(res: pdpaired.SuiteResult, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return res.save(tmp_path_factory.mktemp("suite") / "out")


def load(path: Path) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return out


class TestContents:
    def test_the_pooling_of_the_recorded_tasks_equals_statsmodels(
        self, saved: dict[str, Path]
    ) -> None:
        art = load(saved["shareable"])
        assert art["artifact"] == "paired-suite-artifact/v1"
        y = np.array([t["improvement"] for t in art["tasks"]])
        v = np.array([t["standard_error"] for t in art["tasks"]]) ** 2
        ref = combine_effects(y, v, method_re="dl", use_t=False)
        frame = ref.summary_frame(alpha=0.05)
        p = art["pooled"]
        assert art["settings"]["tau2_method"] == "dl"
        assert art["settings"]["random_ci"] == "hksj"  # the default
        assert p["tau2"] > 0  # heterogeneous tasks: the random-effects row differs
        assert p["tau2"] == pytest.approx(ref.tau2, rel=1e-10)
        for row, name in (("fixed effect", "fixed"), ("random effect", "random")):
            assert p[name]["estimate"] == pytest.approx(frame.loc[row, "eff"], rel=1e-10)
            assert p[name]["standard_error"] == pytest.approx(frame.loc[row, "sd_eff"], rel=1e-10)
        assert p["fixed"]["low"] == pytest.approx(frame.loc["fixed effect", "ci_low"], rel=1e-10)
        assert p["fixed"]["high"] == pytest.approx(frame.loc["fixed effect", "ci_upp"], rel=1e-10)
        # Hartung-Knapp-Sidik-Jonkman: statsmodels' "wls" random-effects interval with t_{k-1}
        _, _, _, (hk_low, hk_high) = ref.conf_int(alpha=0.05, use_t=True)
        assert p["random"]["low"] == pytest.approx(hk_low, rel=1e-10)
        assert p["random"]["high"] == pytest.approx(hk_high, rel=1e-10)
        assert p["q"] == pytest.approx(ref.q, rel=1e-10)
        # Higgins-Thompson-Spiegelhalter, written out: t with k - 2 df
        k, se_re = len(y), p["random"]["standard_error"]
        half = stats.t.ppf(0.975, k - 2) * math.sqrt(p["tau2"] + se_re**2)
        assert p["prediction_interval"]["low"] == pytest.approx(
            p["random"]["estimate"] - half, rel=1e-12
        )
        sidak = 0.95 ** (1 / k)
        assert art["settings"]["simultaneous_level"] == pytest.approx(sidak, rel=1e-14)
        z = stats.norm.ppf(0.5 + sidak / 2)
        for t in art["tasks"]:
            assert t["simultaneous_high"] == pytest.approx(
                t["improvement"] + z * t["standard_error"], rel=1e-12
            )

    def test_artifact_holds_each_task_of_the_result(
        self, res: pdpaired.SuiteResult, saved: dict[str, Path]
    ) -> None:
        art = load(saved["local"])
        assert [t["task"] for t in art["tasks"]] == [str(x) for x in res.tasks["task"]]
        for t, (_, row) in zip(art["tasks"], res.tasks.iterrows(), strict=True):
            for key in ("n_cases", "metric_a", "metric_b", "improvement", "standard_error",
                        "ci_low", "ci_high", "method", "stream"):  # fmt: skip
                assert t[key] == row[key]
        assert art["settings"]["seed"] == 11
        assert art["settings"]["noninferiority_margin"] == 0.5
        assert art["pooled"]["verdict"] == res.verdict

    def test_local_artifact_digests_each_tasks_table(
        self, df: pd.DataFrame, saved: dict[str, Path]
    ) -> None:
        art = load(saved["local"])
        for entry in art["local"]["tasks"]:
            rows = df[df["task"] == entry["task"]]
            pairs = rows.paired.compare("A", "B", higher_is_better=True).pairs
            ids = "\n".join(repr(x) for x in pairs.index)
            table = pairs.to_csv(lineterminator="\n", float_format="%.17g")
            assert entry["aligned_ids_sha256"] == hashlib.sha256(ids.encode()).hexdigest()
            assert entry["table_sha256"] == hashlib.sha256(table.encode()).hexdigest()
        assert art["local"]["seed"] == art["settings"]["seed"]

    def test_both_artifacts_verify_and_the_shareable_one_holds_no_case_ids(
        self, saved: dict[str, Path]
    ) -> None:
        for kind in ("local", "shareable"):
            got = pdpaired.verify(saved[kind])
            assert got["kind"] == kind
            assert "4 tasks" in repr(got)
        text = saved["shareable"].read_text(encoding="utf-8")
        assert "CANARY-ID" not in text
        assert "local" not in load(saved["shareable"])
        assert "CANARY-ID" not in saved["markdown"].read_text(encoding="utf-8")

    def test_given_inputs_are_recorded(self, res: pdpaired.SuiteResult) -> None:
        given = [{"path": "runs/x.csv", "sha256": "0" * 64}]
        assert res.to_artifact("local", inputs=given)["local"]["inputs"] == given
        with pytest.raises(ValueError, match="`kind` must be 'local' or 'shareable'"):
            res.to_artifact("public")


# --------------------------------------------------------------------------- verify
def forge_random(art: dict[str, Any]) -> None:
    art["pooled"]["random"]["estimate"] += 0.05


def forge_fixed(art: dict[str, Any]) -> None:
    art["pooled"]["fixed"]["estimate"] *= 1.1


def forge_tau2(art: dict[str, Any]) -> None:
    art["pooled"]["tau2"] /= 4


def forge_tau2_and_the_random_mean_with_it(art: dict[str, Any]) -> None:
    """A smaller tau2 and the random-effects row recomputed from it: coherent but forged."""
    tau2 = art["pooled"]["tau2"] / 4
    y = np.array([t["improvement"] for t in art["tasks"]])
    w = 1 / (np.array([t["standard_error"] for t in art["tasks"]]) ** 2 + tau2)
    mu, se = float(np.sum(w * y) / np.sum(w)), float(np.sum(w) ** -0.5)
    art["pooled"]["tau2"] = tau2
    art["pooled"]["random"].update(estimate=mu, standard_error=se, low=mu - 1.959964 * se,
                                   high=mu + 1.959964 * se)  # fmt: skip


def forge_prediction(art: dict[str, Any]) -> None:
    art["pooled"]["prediction_interval"]["low"] /= 2


def flip_verdict(art: dict[str, Any]) -> None:
    art["pooled"]["verdict"] = "b_better" if art["pooled"]["verdict"] != "b_better" else "a_better"


def forge_task(art: dict[str, Any]) -> None:
    art["tasks"][0]["improvement"] += 0.1


def forge_weight(art: dict[str, Any]) -> None:
    art["tasks"][1]["weight_random"] = 0.5


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (forge_random, r"pooled\.random\.estimate = .* does not follow"),
        (forge_fixed, r"pooled\.fixed\.estimate = .* does not follow"),
        (forge_tau2, r"pooled\.tau2 = .* does not follow"),
        (forge_tau2_and_the_random_mean_with_it, r"pooled\.tau2 = .* does not follow"),
        (forge_prediction, r"pooled\.prediction_interval\.low = .* does not follow"),
        (flip_verdict, r"pooled\.verdict = .* but the random-effects interval"),
        (forge_task, r"improvement .* does not follow from its metrics"),
        (forge_weight, r"weight_random = 0\.5 but the standard errors give"),
    ],
)
def test_verify_refuses_a_forged_suite_artifact(
    saved: dict[str, Path], tmp_path: Path, edit: Any, expected: str
) -> None:
    art = load(saved["shareable"])
    edit(art)
    found = problems_of(tmp_path / "forged.json", redigest(art))
    assert any(re.search(expected, p) for p in found), found


def test_verify_recomputes_the_recorded_random_effects_interval(
    df: pd.DataFrame, saved: dict[str, Path], tmp_path: Path
) -> None:
    hksj = load(saved["shareable"])
    # relabelled as Wald, the HKSJ interval no longer follows
    found = problems_of(
        tmp_path / "relabelled.json",
        redigest({**hksj, "settings": {**hksj["settings"], "random_ci": "wald"}}),
    )
    assert any(re.search(r"pooled\.random\.low = .* \(dl, wald, 95%\)", p) for p in found), found
    wald = df.paired.suite("A", "B", tau2="dl", random_ci="wald", **KW)
    art = wald.to_artifact("shareable")
    assert art["settings"]["random_ci"] == "wald"
    assert art["pooled"]["random"]["low"] != hksj["pooled"]["random"]["low"]
    # an artifact written before the choice existed has no random_ci: it is read as Wald
    del art["settings"]["random_ci"]
    (tmp_path / "old.json").write_text(json.dumps(redigest(art)), encoding="utf-8")
    pdpaired.verify(tmp_path / "old.json")
    del hksj["settings"]["random_ci"]
    found = problems_of(tmp_path / "old-hksj.json", redigest(hksj))
    assert any(re.search(r"pooled\.random\.low = .* does not follow", p) for p in found), found


def test_verify_refuses_an_edit_without_a_new_digest_and_a_relabelled_version(
    saved: dict[str, Path], tmp_path: Path
) -> None:
    art = load(saved["local"])
    edited = copy.deepcopy(art)
    edited["pooled"]["q"] += 1
    found = problems_of(tmp_path / "a.json", edited)
    assert any(p.startswith("digest:") for p in found), found
    relabelled = redigest({**art, "artifact": "paired-comparison-artifact/v1"})
    found = problems_of(tmp_path / "b.json", relabelled)
    assert any("paired-suite-artifact/v1" in p for p in found), found
    local = copy.deepcopy(art)
    local["local"]["tasks"] = local["local"]["tasks"][:-1]
    found = problems_of(tmp_path / "c.json", redigest(local))
    assert any("local.tasks must list the tasks" in p for p in found), found
    shareable_with_local = redigest({**load(saved["shareable"]), "local": art["local"]})
    (tmp_path / "d.json").write_text(json.dumps(shareable_with_local), encoding="utf-8")
    with pytest.raises(ArtifactError, match="schema"):
        pdpaired.verify(tmp_path / "d.json")


def test_verify_accepts_two_tasks_without_a_prediction_interval(tmp_path: Path) -> None:
    frame = make_suite(seed=2, lifts=(0.1, 0.3))
    res = frame.paired.suite("A", "B", **KW)
    assert res.prediction_interval is None
    paths = res.save(tmp_path / "two")
    art = pdpaired.verify(paths["shareable"])
    assert art["pooled"]["prediction_interval"] is None
    assert "n/a (two tasks)" in paths["markdown"].read_text(encoding="utf-8")


# --------------------------------------------------------------------------- Markdown
def test_markdown_escapes_every_task_label(res: pdpaired.SuiteResult) -> None:
    md = res.to_markdown()
    assert "<img" not in md
    assert "&lt;img src=x onerror=alert(1)&gt;" in md
    assert "a\\|b" in md
    assert "\\`tick\\`" in md
    rows = [line for line in md.splitlines() if line.startswith("| ")]
    header = rows[0]
    cells = len(re.findall(r"(?<!\\)\|", header))
    task_rows = [r for r in rows if "CANARY" not in r][1 : 1 + res.n_tasks]
    for row in task_rows:  # an escaped pipe never splits a cell
        assert len(re.findall(r"(?<!\\)\|", row)) == cells, row
    assert md.count("\n| ") >= res.n_tasks + 4


# --------------------------------------------------------------------------- gate
class TestGate:
    def test_the_gate_reads_the_random_effects_interval(self, res: pdpaired.SuiteResult) -> None:
        lo, hi = res.random_interval.low, res.random_interval.high
        want_a = lo > 0
        assert res.gate("not-a-better").failed is (not want_a)
        assert res.gate("b-better").failed is (hi < 0)
        g = res.gate("not_noninferior")  # underscores accepted, as gate() does
        assert g.fail_on == "not-noninferior"
        assert g.failed is (lo < -0.5)
        assert g.exit_code == int(g.failed)
        assert "random-effects interval" in g.reason

    def test_noninferiority_at_a_margin_just_past_the_low_end(self, df: pd.DataFrame) -> None:
        base = df.paired.suite("A", "B", **KW)
        lo = base.random_interval.low
        for margin, failed in ((max(0.0, -lo) + 0.01, False), (max(0.0, -lo - 0.01), lo < 0)):
            res = df.paired.suite("A", "B", noninferiority_margin=margin, **KW)
            assert res.random_interval.low == lo  # the margin changes no number
            assert res.gate("not-noninferior").failed is failed

    def test_bad_conditions_raise(self, df: pd.DataFrame, res: pdpaired.SuiteResult) -> None:
        with pytest.raises(ValueError, match="`fail_on` must be one of"):
            res.gate("worse")
        plain = df.paired.suite("A", "B", **KW)
        with pytest.raises(ValueError, match="needs a noninferiority margin"):
            plain.gate("not-noninferior")


def test_markdown_renders_every_task_label_as_one_cell_of_text_on_github(
    res: pdpaired.SuiteResult,
) -> None:
    """cmark-gfm, the library GitHub renders with, is the oracle of the Markdown."""
    import html as html_lib

    cmarkgfm = pytest.importorskip("cmarkgfm")
    from cmarkgfm.cmark import Options

    rendered = cmarkgfm.github_flavored_markdown_to_html(
        res.to_markdown(), options=Options.CMARK_OPT_UNSAFE
    )
    assert "<img" not in rendered
    assert "<code>" not in rendered
    body = rendered.split("<tbody>")[1].split("</tbody>")[0]
    rows = body.split("<tr>")[1:]
    assert len(rows) == res.n_tasks
    for row, label in zip(rows, res.tasks["task"], strict=True):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row, re.DOTALL)
        assert len(cells) == 9, row
        assert html_lib.unescape(cells[0]) == label


def test_markdown_names_the_random_effects_interval(res: pdpaired.SuiteResult) -> None:
    assert "random-effects interval Hartung-Knapp-Sidik-Jonkman (t with k - 1 df" in (
        res.to_markdown()
    )
    assert "random-effects interval: Hartung-Knapp-Sidik-Jonkman" in str(res)
