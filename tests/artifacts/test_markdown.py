"""``comparison.md`` (what ``--summary-markdown`` appends to a CI summary) discloses no more
than the shareable artifact: canary labels of small slices -- an id-like slice column with
``min_slice_size=1``, a 6-case slice -- never reach it, in the Python API or the CLI."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pdpaired.cli.main import main

CANARY = "CANARY{:03d}"


def frame(n: int = 120, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    b = rng.normal(size=n)
    a = b + 0.3 + rng.normal(0, 1, n)
    # a 6-case site and an id-like column whose every slice is one case
    site = np.where(np.arange(n) < 6, "SECRETSITE", np.where(np.arange(n) % 2, "north", "south"))
    ident = [CANARY.format(i) for i in range(n)]
    return pd.concat(
        [pd.DataFrame({"case_id": np.arange(n), "model": m, "score": s, "site": site,
                       "ident": ident}) for m, s in (("A", a), ("B", b))],
        ignore_index=True,
    )  # fmt: skip


def leaked(text: str) -> list[str]:
    return sorted(set(re.findall(r"CANARY\d{3}|SECRETSITE", text)))


@pytest.mark.filterwarnings("ignore::pdpaired.DegenerateDataWarning")
@pytest.mark.parametrize("uncertainty", [False, True])
def test_small_slices_are_suppressed_in_the_markdown_as_in_the_shareable_artifact(
    uncertainty: bool,
) -> None:
    df = frame()
    rep = df.paired.compare("A", "B", higher_is_better=True).report(
        n_resamples=200, n_permutations=200, rng=0, slices=["site", "ident"],
        min_slice_size=1, slice_uncertainty=uncertainty,
    )  # fmt: skip
    md = rep.to_markdown()
    assert leaked(md) == []
    # the local analysis did see them: the canaries are in the local artifact only
    assert "SECRETSITE" in str(rep.to_artifact("local"))
    assert leaked(str(rep.to_artifact("shareable"))) == []
    # every slice row of the Markdown is a row of the shareable artifact, in order
    rows = rep.to_artifact("shareable")["slices"]["rows"]
    table = [line for line in md.splitlines() if line.startswith(("| site =", "| ident ="))]
    assert len(table) == len(rows)
    for line, r in zip(table, rows, strict=True):
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert cells[0] == f"{r['column']} = {r['value']}"
        assert cells[1] == str(r["n"])
        assert cells[2] == r["status"]
        if r["status"] == "suppressed":
            assert set(cells[3:7]) <= {"n/a", ""}  # no number of a suppressed slice
    assert "suppressed" in md
    # no per-case score is printed: no number of the A column with all its digits
    for x in df.loc[df["model"] == "A", "score"].head(20):
        assert f"{x:.6g}" not in md


def test_the_cli_summary_markdown_holds_no_canary(tmp_path: Path) -> None:
    df = frame()
    path = tmp_path / "long.csv"
    df.to_csv(path, index=False)
    summary = tmp_path / "summary.md"
    code = main(["compare", str(path), "--long", "--a", "A", "--b", "B", "--score", "score",
                 "--higher-is-better", "--slice-columns", "site", "ident",
                 "--min-slice-size", "1", "--resamples", "200", "--permutations", "200",
                 "--seed", "0", "--summary-markdown", str(summary),
                 "--out", str(tmp_path / "out")])  # fmt: skip
    assert code == 0
    assert leaked(summary.read_text(encoding="utf-8")) == []
    assert leaked((tmp_path / "out" / "comparison.md").read_text(encoding="utf-8")) == []
    assert leaked((tmp_path / "out" / "comparison.shareable.json").read_text("utf-8")) == []
    assert "SECRETSITE" in (tmp_path / "out" / "comparison.json").read_text("utf-8")
