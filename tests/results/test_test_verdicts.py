"""The verdict of the randomization and exact binomial tests: the rule, and each view's line.

The tests run through the public API on data whose p-values are exact (every
assignment enumerated, or the binomial tail), so each verdict is known in
closed form and every view is read as text.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import pdpaired
from pdpaired.results.verdict import TEST_VERDICTS, pvalue_verdict

from ..conftest import long_table

#: Eight cases where A beats B by distinct margins: with every one of the 2**8
#: swaps enumerated, the one-sided p is 1/256 and the two-sided p 2/256.
WINS = np.array([0.11, 0.23, 0.31, 0.42, 0.57, 0.61, 0.76, 0.88])


def swaps(higher_is_better: bool, alternative: str, names=("new", "old")):
    df = long_table(WINS + 1.0, np.ones(WINS.size), names=names)
    return df.paired.randomization(*names, higher_is_better=higher_is_better,
                                   alternative=alternative, rng=0)  # fmt: skip


def discordant(a_only: int, b_only: int, names=("new", "old")) -> pd.DataFrame:
    """0/1 scores with ``a_only`` pairs only A passes, ``b_only`` only B, and 3 concordant."""
    a = np.r_[np.ones(a_only), np.zeros(b_only), 1, 1, 0]
    b = np.r_[np.zeros(a_only), np.ones(b_only), 1, 1, 0]
    return long_table(a, b, names=names)


def verdict_row(text: str) -> str:
    """The value of the ``Verdict`` row of a text block."""
    (line,) = [ln for ln in text.splitlines() if ln.startswith("Verdict ")]
    return line[len("Verdict") :].strip()


def html_verdict(page: str) -> str:
    """The value of the ``Verdict`` row of an HTML block."""
    (cell,) = re.findall(r"<th[^>]*>Verdict</th><td[^>]*>(.*?)</td>", page)
    return cell


# --------------------------------------------------------------------------- randomization
@pytest.mark.parametrize(
    ("higher_is_better", "alternative", "verdict", "line"),
    [
        (True, "two-sided", "a_better",
         "a_better: the test rejects no difference (p = 0.0078 < 0.05, the conventional "
         "level); new is better than old"),
        (True, "greater", "a_better",
         "a_better: the one-sided test rejects that new is no better than old (p = 0.0039 "
         "< 0.05, the conventional level); new is better than old"),
        (True, "less", "inconclusive",
         "inconclusive: the one-sided test does not reject that old is no better than new "
         "(p = 1.0000 ≥ 0.05, the conventional level); a one-sided test for old better "
         "cannot show new better"),
        # lower is better: the same scores make B the better model
        (False, "two-sided", "b_better",
         "b_better: the test rejects no difference (p = 0.0078 < 0.05, the conventional "
         "level); old is better than new"),
        (False, "less", "b_better",
         "b_better: the one-sided test rejects that old is no better than new (p = 0.0039 "
         "< 0.05, the conventional level); old is better than new"),
        (False, "greater", "inconclusive",
         "inconclusive: the one-sided test does not reject that new is no better than old "
         "(p = 1.0000 ≥ 0.05, the conventional level); a one-sided test for new better "
         "cannot show old better"),
    ],
)  # fmt: skip
def test_randomization_verdict_in_every_view(higher_is_better, alternative, verdict, line) -> None:
    res = swaps(higher_is_better, alternative)
    assert res.exact
    assert res.pvalue == (2 if alternative == "two-sided" else 1 if verdict != "inconclusive"
                          else 256) / 256  # fmt: skip
    assert res.alpha == 0.05
    assert res.verdict == verdict
    assert verdict_row(str(res)) == line
    assert html_verdict(res._repr_html_()) == line.replace("<", "&lt;")
    assert res.to_dict()["verdict"] == verdict
    assert res.to_frame().loc[0, "verdict"] == verdict


def test_randomization_that_does_not_reject_is_inconclusive() -> None:
    rng = np.random.default_rng(4)
    base = rng.normal(size=60)
    df = long_table(base + rng.normal(0, 1, 60), base)
    res = df.paired.randomization("A", "B", higher_is_better=True, n_permutations=999, rng=1)
    assert res.pvalue >= 0.05
    assert res.verdict == "inconclusive"
    assert verdict_row(str(res)) == (
        f"inconclusive: the test does not reject no difference (p = {res.pvalue:.4f} ≥ 0.05, "
        "the conventional level)"
    )


def test_randomization_verdict_in_a_report_reads_the_reports_level() -> None:
    """p between 0.05 and 0.10: inconclusive on its own, a_better in a 90% report."""
    for seed in range(200):  # a data set whose p lands between the two levels
        rng = np.random.default_rng(seed)
        base = rng.normal(size=40)
        df = long_table(base + rng.normal(0.3, 1, 40), base)
        alone = df.paired.randomization("A", "B", higher_is_better=True, n_permutations=999,
                                        rng=1)  # fmt: skip
        if 0.055 < alone.pvalue < 0.095:
            break
    assert 0.055 < alone.pvalue < 0.095
    assert alone.level is None
    assert alone.alpha == 0.05
    assert alone.verdict == "inconclusive"
    rep = df.paired.compare("A", "B", higher_is_better=True).report(
        confidence_level=0.9, n_resamples=999, n_permutations=999, rng=1)  # fmt: skip
    rz = rep.randomization
    assert rz is not None
    assert rz.level == 0.9
    assert rz.alpha == pytest.approx(0.1, abs=0)
    assert rz.verdict == ("a_better" if rz.pvalue < 0.1 else "inconclusive")
    row = verdict_row(rz.text())
    assert "< 0.1)" in row or "≥ 0.1)" in row
    assert "conventional" not in row


def test_randomization_verdict_row_follows_the_test_row() -> None:
    labels = [ln.split("  ")[0] for ln in str(swaps(True, "two-sided")).splitlines()]
    assert labels[labels.index("Randomization test") + 1] == "Verdict"


# --------------------------------------------------------------------------- exact binomial
def test_exact_binomial_verdict_at_the_results_level() -> None:
    df = discordant(9, 1)
    p = stats.binomtest(9, 10, 0.5).pvalue  # 22/1024 = 0.0215
    res = df.paired.exact_binomial("new", "old", higher_is_better=True)
    assert res.pvalue == pytest.approx(p, rel=1e-12)
    assert (res.alpha, res.verdict) == (0.05, "a_better")
    line = (f"a_better: the test rejects no difference (p = {p:.4f} < 0.05); "
            "new is better than old")  # fmt: skip
    assert verdict_row(str(res)) == line
    assert html_verdict(res._repr_html_()) == line.replace("<", "&lt;")
    assert res.to_dict()["verdict"] == "a_better"
    # at the 99% level the same p no longer rejects
    strict = df.paired.exact_binomial("new", "old", higher_is_better=True, confidence_level=0.99)
    assert (strict.alpha, strict.verdict) == (0.01, "inconclusive")
    assert verdict_row(str(strict)) == (
        f"inconclusive: the test does not reject no difference (p = {p:.4f} ≥ 0.01)"
    )


def test_exact_binomial_direction_and_one_sided() -> None:
    df = discordant(9, 1)
    # lower is better: "pass" is 0, so B passes the nine discordant pairs
    low = df.paired.exact_binomial("new", "old", higher_is_better=False)
    assert (low.a_only, low.b_only, low.verdict) == (1, 9, "b_better")
    assert verdict_row(str(low)).endswith("; old is better than new")
    less = df.paired.exact_binomial("new", "old", higher_is_better=True, alternative="less")
    assert less.verdict == "inconclusive"
    assert verdict_row(str(less)).startswith(
        "inconclusive: the one-sided test does not reject that old is no better than new"
    )
    assert verdict_row(str(less)).endswith("a one-sided test for old better cannot show new better")
    greater = df.paired.exact_binomial("new", "old", higher_is_better=True, alternative="greater")
    assert greater.verdict == "a_better"
    assert verdict_row(str(greater)).startswith(
        "a_better: the one-sided test rejects that new is no better than old (p = 0.0107 < 0.05)"
    )


def test_exact_binomial_p_on_the_level_does_not_reject() -> None:
    df = discordant(5, 0)  # two-sided p = 2 / 32 = 0.0625, exactly
    res = df.paired.exact_binomial("new", "old", higher_is_better=True, confidence_level=0.9375)
    assert res.pvalue == res.alpha == 0.0625
    assert res.verdict == "inconclusive"
    assert "(p = 0.0625 ≥ 0.0625)" in verdict_row(str(res))


def test_the_verdict_line_escapes_the_model_names() -> None:
    names = ("<b>new</b>", "old\x1b[2J")
    res = swaps(True, "two-sided", names=names)
    text = verdict_row(str(res))
    assert text.endswith("; <b>new</b> is better than old\\x1b[2J")
    assert "\x1b" not in str(res)
    cell = html_verdict(res._repr_html_())
    assert cell.endswith("; &lt;b&gt;new&lt;/b&gt; is better than old\x1b[2J")
    assert "<b>new" not in res._repr_html_()


# --------------------------------------------------------------------------- the rule
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("improvement", [-0.2, 0.0, 0.2])
@pytest.mark.parametrize("pvalue", [0.01, 0.05, 0.5, float("nan")])
def test_pvalue_verdict_rule(alternative: str, improvement: float, pvalue: float) -> None:
    got = pvalue_verdict(pvalue, improvement, alternative=alternative, alpha=0.05)
    assert got in TEST_VERDICTS
    if not pvalue < 0.05:
        assert got == "inconclusive"
    elif alternative == "greater":
        assert got == "a_better"
    elif alternative == "less":
        assert got == "b_better"
    else:
        assert got == {-0.2: "b_better", 0.0: "inconclusive", 0.2: "a_better"}[improvement]


def test_pdpaired_exports_the_results_with_a_verdict() -> None:
    assert isinstance(pdpaired.RandomizationResult.verdict, property)
    assert isinstance(pdpaired.ExactBinomialResult.verdict, property)


# --------------------------------------------------------------------------- DeLong
@pytest.mark.parametrize("shift", [0.0, 0.8, -0.8])
def test_delong_verdict_agrees_with_its_wald_interval(shift: float) -> None:
    """Two-sided: the test rejects exactly when the interval beside it excludes 0."""
    rng = np.random.default_rng(11)
    n = 300
    y = (rng.uniform(size=n) < 0.4).astype(float)
    pa = y * shift + rng.normal(size=n)
    pb = rng.normal(size=n) + 0.3 * y
    df = pd.DataFrame({"case_id": np.tile(np.arange(n), 2), "model": np.repeat(["A", "B"], n),
                       "y": np.tile(y, 2), "p": np.r_[pa, pb]})  # fmt: skip
    res = df.paired(target="y", prediction="p").compare("A", "B", metric="auroc").delong()
    ci = res.confidence_interval
    side = "a_better" if ci.low > 0 else "b_better" if ci.high < 0 else "inconclusive"
    assert res.verdict == side
    assert res.verdict == pvalue_verdict(res.pvalue, res.statistic, alternative="two-sided",
                                         alpha=0.05)  # fmt: skip
    assert verdict_row(str(res)).startswith(f"{res.verdict}: the test ")
    assert "equal AUROC" in verdict_row(str(res))
    assert res.to_dict()["verdict"] == res.verdict
