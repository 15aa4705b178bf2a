"""Odd tables through the pairing layer and the command line's CSV reader (hypothesis).

A clean long table is drawn, then corrupted the ways real data are: ids of
mixed types (``1`` and ``"1"``, tuples, timestamps, booleans), integers
beyond 64 bits, ``NaN``/``pd.NA``/``None`` in any column, duplicate column
names, empty frames, categorical columns with unused categories, nullable
and string dtypes, shuffled rows. Every outcome must be a result or one of
the documented errors (``PairingError``, ``ValueError``, ``TypeError``),
pdpaired's own warnings only, and the caller's frame unchanged. The same
tables, written to CSV (and then byte-edited), go through ``pdpaired
compare``: exit 0, or exit 2 with one line on stderr.

Hypothesis runs derandomized without an example database, so CI sees the
same examples on every run.
"""

from __future__ import annotations

import copy
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pdpaired
from pdpaired.cli.main import main

FUZZ = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.function_scoped_fixture,
        HealthCheck.data_too_large,
    ],
)
#: The documented error classes (PairingError is a ValueError).
DOCUMENTED = (pdpaired.PairingError, ValueError, TypeError)
OURS = (pdpaired.DegenerateDataWarning, pdpaired.IndependenceWarning)

odd_values = st.sampled_from(
    [
        None, pd.NA, np.nan, float("inf"), -float("inf"), 2**70, -(2**70), 2**63, "1", 1, 1.0,
        True, "", "x", "A", "B", (1, 2), pd.Timestamp("2024-01-01"), b"bytes", -0.0, "NaN",
    ]
)  # fmt: skip


@st.composite
def long_tables(
    draw: st.DrawFn, *, prediction: bool = False
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """A long table (score or prediction mode) with some odd corruptions, and its names."""
    n = draw(st.integers(0, 14))
    id_kind = draw(st.sampled_from(["int", "str", "huge", "mixed", "float"]))
    ids: list[Any] = {
        "int": list(range(n)),
        "str": [f"c{i}" for i in range(n)],
        "huge": [2**70 + i for i in range(n)],
        "mixed": [i if i % 2 else str(i) for i in range(n)],
        "float": [i + 0.5 for i in range(n)],
    }[id_kind]
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    rows = []
    for model in ("A", "B"):
        for i, case in enumerate(ids):
            row = {"case_id": case, "model": model, "group": i // 3, "stratum": i // 6,
                   "site": ["n", "s", "e"][i % 3]}  # fmt: skip
            if prediction:
                row["target"] = int(i % 2)
                row["prediction"] = float(rng.uniform())
            else:
                row["score"] = float(rng.integers(0, 2) if id_kind == "int" else rng.normal())
            rows.append(row)
    frame = pd.DataFrame(rows)
    if frame.empty:
        frame = pd.DataFrame(columns=["case_id", "model", "group", "stratum", "site", "score"])
    columns = list(frame.columns)
    for _ in range(draw(st.integers(0, 3)) if len(frame) else 0):  # single odd values
        column = draw(st.sampled_from(columns))
        row = draw(st.integers(0, len(frame) - 1))
        value = draw(odd_values)
        frame[column] = frame[column].astype(object)
        frame.iat[row, columns.index(column)] = value
    for column in draw(st.lists(st.sampled_from(columns), max_size=2, unique=True)):
        cast = draw(st.sampled_from(["category", "string", "Int64", "object", "float"]))
        try:
            if cast == "category":  # with an unused category
                col = frame[column].astype("category")
                frame[column] = col.cat.add_categories(["__unused__"])
            else:
                frame[column] = frame[column].astype(cast)
        except (TypeError, ValueError, OverflowError):
            pass  # a cast that does not apply to these values: the column stays
    if draw(st.booleans()):
        frame = frame.sample(frac=1.0, random_state=0)
    if draw(st.integers(0, 5)) == 5:  # a duplicated column name
        dup = draw(st.sampled_from(columns))
        frame[dup + "_copy"] = frame[dup]
        frame.columns = [*frame.columns[:-1], dup]
    names: dict[str, Any] = {"case": "case_id", "model": "model"}
    if prediction:
        names.update(target="target", prediction="prediction")
    else:
        names["score"] = "score"
    if draw(st.booleans()):
        names["group"] = "group"
    if draw(st.booleans()):
        names["stratum"] = "stratum"
    return frame, names


def snapshot(frame: pd.DataFrame) -> tuple[pd.DataFrame, list[Any], list[Any], dict[Any, Any]]:
    return copy.deepcopy(frame), list(frame.columns), list(frame.dtypes), dict(frame.attrs)


def assert_unchanged(frame: pd.DataFrame, snap: tuple[Any, ...]) -> None:
    before, columns, dtypes, attrs = snap
    assert list(frame.columns) == columns
    assert list(frame.dtypes) == dtypes
    assert frame.attrs == attrs
    pd.testing.assert_frame_equal(frame, before, check_exact=True)


def run_pairing(frame: pd.DataFrame, names: dict[str, Any], analysis: str, **kw: Any) -> None:
    """One analysis; only a result, a documented error or pdpaired's own warnings."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            cmp = frame.paired(**names).compare("A", "B", **kw)
            if analysis == "bootstrap":
                res = cmp.bootstrap(n_resamples=30, rng=0)
                assert res.n_cases >= 2
            elif analysis == "randomization":
                res = cmp.randomization(n_permutations=30, rng=0)
                assert 0.0 < res.pvalue <= 1.0
            else:
                cmp.by_slice("site", min_size=1)
        except DOCUMENTED as err:
            assert str(err)  # a message, never empty
    others = [w for w in caught if not issubclass(w.category, OURS)]
    assert not others, [f"{w.category.__name__}: {w.message}" for w in others]


@FUZZ
@given(
    long_tables(),
    st.sampled_from(["bootstrap", "randomization", "slices"]),
    st.sampled_from(["error", "complete-case", "as-failure"]),
)
def test_score_mode_tables(table: tuple[pd.DataFrame, dict[str, Any]], analysis: str,
                           missing: str) -> None:  # fmt: skip
    frame, names = table
    snap = snapshot(frame)
    kw: dict[str, Any] = {"higher_is_better": True, "missing": missing}
    if missing == "as-failure":
        kw["fill_value"] = 0.0
    run_pairing(frame, names, analysis, **kw)
    assert_unchanged(frame, snap)


@FUZZ
@given(long_tables(prediction=True), st.sampled_from(["auroc", "rmse", "accuracy", "log_loss"]))
def test_prediction_mode_tables(table: tuple[pd.DataFrame, dict[str, Any]], metric: str) -> None:
    frame, names = table
    snap = snapshot(frame)
    run_pairing(frame, names, "bootstrap", metric=metric)
    assert_unchanged(frame, snap)


@pytest.mark.parametrize(
    "column",
    ["case_id", "model", "score", "group"],
)
def test_a_duplicated_configured_column_is_a_pairing_error(column: str) -> None:
    """pandas allows two columns with one label; the error names the rule and the column."""
    frame = pd.DataFrame({"case_id": [1, 2, 1, 2], "model": list("AABB"),
                          "score": [0.1, 0.2, 0.3, 0.5], "group": [1, 1, 1, 1]})  # fmt: skip
    frame.insert(0, "dup", frame[column])
    frame = frame.rename(columns={"dup": column})
    snap = snapshot(frame)
    with pytest.raises(pdpaired.PairingError, match="unique column names") as info:
        frame.paired(group="group").bootstrap("A", "B", higher_is_better=True, n_resamples=10)
    assert info.value.rule == "unique column names"
    assert repr(column) in str(info.value)
    assert_unchanged(frame, snap)


def test_a_duplicated_unused_column_is_harmless() -> None:
    frame = pd.DataFrame({"case_id": [1, 2, 3, 1, 2, 3], "model": list("AAABBB"),
                          "score": [0.1, 0.2, 0.7, 0.3, 0.5, 0.4], "x": 0, "y": 1})  # fmt: skip
    frame.columns = ["case_id", "model", "score", "meta", "meta"]
    res = frame.paired.bootstrap("A", "B", higher_is_better=True, n_resamples=50, rng=0)
    assert res.improvement == pytest.approx(np.mean([0.1 - 0.3, 0.2 - 0.5, 0.7 - 0.4]))


def test_a_duplicated_slice_column_is_a_pairing_error() -> None:
    frame = pd.DataFrame({"case_id": [1, 2, 3, 1, 2, 3], "model": list("AAABBB"),
                          "score": [0.1, 0.2, 0.7, 0.3, 0.5, 0.4], "x": 0, "y": 1})  # fmt: skip
    frame.columns = ["case_id", "model", "score", "site", "site"]
    cmp = frame.paired.compare("A", "B", higher_is_better=True)
    with pytest.raises(pdpaired.PairingError, match="unique column names"):
        cmp.by_slice("site", min_size=1)


# --------------------------------------------------------------------------- the CLI's CSV reader
def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    assert code in (0, 2), (code, err)
    if code == 2:
        assert out == ""
        assert err.count("\n") == 1, err
        assert err.startswith("error: ")
        assert "Traceback" not in err
    return code, out, err


FAST_CLI = ["--resamples", "20", "--permutations", "20", "--seed", "0"]


@st.composite
def csv_texts(draw: st.DrawFn) -> bytes:
    """A long table written as CSV, then (sometimes) a few bytes edited."""
    frame, _ = draw(long_tables())
    raw = bytearray(frame.to_csv(index=False).encode("utf-8"))
    for _ in range(draw(st.integers(0, 3)) if raw else 0):
        i = draw(st.integers(0, len(raw) - 1))
        op = draw(st.sampled_from(["set", "insert", "delete"]))
        byte = draw(st.sampled_from([0x2C, 0x22, 0x0A, 0x0D, 0x00, 0xFF, 0x41, 0x30, 0x2E]))
        if op == "set":
            raw[i] = byte
        elif op == "insert":
            raw.insert(i, byte)
        else:
            del raw[i]
    return bytes(raw)


@FUZZ
@given(csv_texts(), st.booleans())
def test_cli_long_csv(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: bytes, slices: bool
) -> None:
    path = tmp_path / "long.csv"
    path.write_bytes(text)
    args = ["compare", str(path), "--long", "--a", "A", "--b", "B", "--score", "score",
            "--higher-is-better", "--min-slice-size", "1", *FAST_CLI]  # fmt: skip
    if slices:
        args += ["--slice-columns", "site"]
    _cli(args, capsys)


@FUZZ
@given(long_tables(prediction=True), st.sampled_from(["rmse", "auroc"]))
def test_cli_two_prediction_files(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    table: tuple[pd.DataFrame, dict[str, Any]],
    metric: str,
) -> None:
    frame, _ = table
    paths = []
    for model in ("A", "B"):
        part = frame.loc[frame["model"] == model] if frame.columns.is_unique else frame
        path = tmp_path / f"{model}.csv"
        part.drop(columns=["model"], errors="ignore").to_csv(path, index=False)
        paths.append(str(path))
    args = ["compare", *paths, "--id-column", "case_id", "--target", "target",
            "--prediction-column", "prediction", "--metric", metric, *FAST_CLI]  # fmt: skip
    _cli(args, capsys)


@pytest.mark.parametrize(
    "content",
    [b"", b"\n\n", b"\xff\xfe\x00\x00", b"case_id,model,score\n", b'"unclosed\n1,2',
     b"case_id,model,score\n1,A,0.5\n1,B\n", b"a,a,a\n1,2,3\n"],
)  # fmt: skip
def test_cli_odd_csv_files(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                           content: bytes) -> None:  # fmt: skip
    path = tmp_path / "odd.csv"
    path.write_bytes(content)
    code, _, _ = _cli(["compare", str(path), "--long", "--a", "A", "--b", "B", "--score",
                       "score", "--higher-is-better", *FAST_CLI], capsys)  # fmt: skip
    assert code == 2
