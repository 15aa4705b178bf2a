"""Untrusted input: ``verify`` on any file, and labels from the data in every output.

* ``pdpaired.verify`` is total: whatever a file holds (hostile files written
  by hand, random bytes, random JSON, mutations of a genuine artifact drawn by
  hypothesis), it returns the artifact or raises ``ArtifactError``, and
  ``pdpaired verify`` exits 2 with one line on stderr, no traceback.
* No markup and no control characters from the data reach an output: model,
  metric, column names and slice values that hold HTML, Markdown table
  syntax, ANSI escape sequences, line breaks, bidirectional overrides or
  mathtext go through the accessor's results (``str``, ``repr``, HTML,
  plots), the report's Markdown (rendered by a CommonMark parser as the
  oracle), the artifacts and the command line, and come out as literal text.

Hypothesis runs derandomized without an example database (the same examples
on every run and machine), with ``max_examples`` sized so the file runs in
well under a minute.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import re
import subprocess
import sys
import warnings
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pdpaired
from pdpaired._lib.format import md_escape, plot_text, printable
from pdpaired.artifacts import digests
from pdpaired.artifacts import report as report_mod
from pdpaired.artifacts import verify as verify_mod
from pdpaired.cli.main import main

FUZZ = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


FAST = {"n_resamples": 200, "n_permutations": 200}


def save(tmp: Path, content: bytes | str, name: str = "artifact.json") -> Path:
    path = tmp / name
    if isinstance(content, str):
        content = content.encode("utf-8", "surrogatepass")
    path.write_bytes(content)
    return path


def redigest(art: dict[str, Any]) -> dict[str, Any]:
    """Recompute the digest, as a forger would, so the consistency checks are what decide."""
    art = dict(art)
    with contextlib.suppress(ValueError):  # a lone surrogate: the old digest stays
        art["digest"] = digests.content_digest(art)
    return art


def dump(art: Any) -> str:
    return json.dumps(art, ensure_ascii=False, allow_nan=True)


# --------------------------------------------------------------------------- a genuine artifact
def _frame(a_name: str = "cand", b_name: str = "base") -> pd.DataFrame:
    rng = np.random.default_rng(23)
    n = 120
    b = rng.normal(size=n)
    a = b + 0.2 + rng.normal(0, 0.5, n)
    site = np.array(["north", "south", "east", "tiny"])[np.minimum(np.arange(n) // 35, 3)]
    return pd.concat(
        [
            pd.DataFrame({"case_id": np.arange(n), "model": m, "score": s, "site": site})
            for m, s in ((a_name, a), (b_name, b))
        ],
        ignore_index=True,
    )


@pytest.fixture(scope="module")
def genuine(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    cmp = _frame().paired.compare("cand", "base", higher_is_better=True)
    rep = cmp.report(**FAST, rng=0, slices="site", slice_uncertainty=True, min_slice_size=5)
    paths = rep.save(tmp_path_factory.mktemp("genuine"))
    return {kind: json.loads(paths[kind].read_text("utf-8")) for kind in ("local", "shareable")}


# --------------------------------------------------------------------------- hostile files
def _nested_in_class_labels(genuine: dict[str, dict[str, Any]], depth: int) -> str:
    """A forged local artifact whose free-form ``class_labels`` nest ``depth`` levels in all."""
    art = copy.deepcopy(genuine["local"])
    value: Any = "x"
    for _ in range(depth - 2):  # the artifact and "local" are 2 levels, the lists the rest
        value = [value]
    art["local"]["class_labels"] = value
    return dump(redigest(art))


def hostile_files(genuine: dict[str, dict[str, Any]]) -> dict[str, tuple[str | bytes, str]]:
    """``name -> (content, words the message must hold)``."""
    art = genuine["shareable"]
    text = dump(art)

    def with_value(key: str, raw: str) -> str:  # a top-level number replaced by a raw token
        return text.replace(f'"{key}": {json.dumps(art[key])}', f'"{key}": {raw}', 1)

    surrogate = copy.deepcopy(art)
    surrogate["models"]["a"] = "cand\ud800"  # written as the JSON escape "\\ud800"
    return {
        "empty": ("", "not valid JSON"),
        "whitespace": (" \n\t ", "not valid JSON"),
        "binary": (bytes(range(256)) * 4, "not UTF-8"),
        "utf16": (text.encode("utf-16"), "not UTF-8"),
        "utf8-bom": ("\ufeff" + text, "not valid JSON"),
        "deep-arrays": ("[" * 200_000 + "]" * 200_000, "200000 levels deep"),
        "deep-objects": ('{"a":' * 200_000 + "1" + "}" * 200_000, "200000 levels deep"),
        "deep-unclosed": ("[" * 200_000, "200000 levels deep"),
        "deep-in-labels": (_nested_in_class_labels(genuine, 40), "40 levels deep"),
        "brackets-in-strings-only": (
            json.dumps({"a": "[" * 200_000}),
            "schema",
        ),  # not deep: the brackets are text
        "nan": (with_value("metric_a", "NaN"), "NaN is not a JSON number"),
        "infinity": (with_value("metric_a", "-Infinity"), "-Infinity is not a JSON number"),
        "float-overflow": (with_value("metric_a", "1e400"), "beyond float range"),
        "long-integer": (with_value("n_cases", "9" * 5000), "beyond float range"),
        "integer-beyond-floats": (with_value("metric_a", "1" + "0" * 400), "beyond float range"),
        "lone-surrogate": (json.dumps(redigest(surrogate)), "not valid Unicode"),
        "duplicate-key": (
            text.replace('"metric_a":', '"metric_a": 0.0, "metric_a":', 1),
            "appears twice",
        ),
        "top-level-array": ("[1, 2]", "must be a JSON object"),
        "top-level-null": ("null", "must be a JSON object"),
        "unterminated-string": ('{"a": "' + '\\"' * 100_000, "not valid JSON"),
        "truncated": (text[: len(text) // 2], "not valid JSON"),
    }


HOSTILE = [
    "empty", "whitespace", "binary", "utf16", "utf8-bom", "deep-arrays", "deep-objects",
    "deep-unclosed", "deep-in-labels", "brackets-in-strings-only", "nan", "infinity",
    "float-overflow", "long-integer", "integer-beyond-floats", "lone-surrogate",
    "duplicate-key", "top-level-array", "top-level-null", "unterminated-string", "truncated",
]  # fmt: skip


# --------------------------------------------------------------------------- fuzzing verify
def _check_total(path: Path) -> dict[str, Any] | None:
    """``verify`` returns or raises ArtifactError, never through the catch-all for the checks."""
    try:
        return pdpaired.verify(path)
    except pdpaired.ArtifactError as err:
        assert "cannot be checked" not in str(err), str(err)  # the checks computed fine
        assert len(str(err)) < 21 * 600
        return None


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**80), 2**80)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=30,
)


def _paths(obj: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value inside a JSON document."""
    out = [prefix]
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += _paths(v, (*prefix, i))
    return out


leaf_values = (
    st.none()
    | st.booleans()
    | st.sampled_from(
        [
            0,
            1,
            -1,
            2,
            10**300,
            -(10**300),
            2**63,
            0.0,
            -0.0,
            5e-324,
            1.7e308,
            -1.7e308,
            0.5,
            1.0,
            1e-12,
        ]
    )
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=10)
    | st.just([])
    | st.just({})
)


@st.composite
def mutations(draw: st.DrawFn, base: dict[str, Any]) -> tuple[str, bool]:
    """A genuine artifact with one to three values replaced, removed or added."""
    art = copy.deepcopy(base)
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(_paths(art)[1:]))
        *head, last = path
        parent = art
        for key in head:
            parent = parent[key]
        action = draw(st.sampled_from(["replace", "replace", "replace", "delete", "add"]))
        if action == "delete":
            del parent[last]
        elif action == "add" and isinstance(parent, dict):
            parent[draw(st.text(max_size=6))] = draw(leaf_values)
        else:
            parent[last] = draw(leaf_values)
    forged = draw(st.booleans())
    return dump(redigest(art) if forged else art), forged


# --------------------------------------------------------------------------- hostile labels
EVIL_A = "<img src=x onerror=alert(1)>|`a`*b*\x1b[31m"


EVIL_B = "<script>alert('b')</script>\n| x | [l](http://e.x) &amp; \u202egnp.exe $x^{$"


EVIL_COLUMN = "<b>site</b>|\x1b]0;title\x07_c_"


EVIL_VALUES = [
    "a|b",
    "<script>alert(1)</script>",
    "`x` **y**\r\nz",
    "\x1b[2J\x9b1m&lt;",
    "$\\frac{$",
]


def hostile_frame() -> pd.DataFrame:
    rng = np.random.default_rng(5)
    n = 150
    b = rng.normal(size=n)
    a = b + 0.3 + rng.normal(0, 0.5, n)
    site = np.array(EVIL_VALUES, dtype=object)[np.arange(n) % len(EVIL_VALUES)]
    return pd.concat(
        [
            pd.DataFrame({"case_id": np.arange(n), "model": m, "score": s, EVIL_COLUMN: site})
            for m, s in ((EVIL_A, a), (EVIL_B, b))
        ],
        ignore_index=True,
    )


@pytest.fixture(scope="module")
def hostile_report() -> pdpaired.ComparisonReport:
    cmp = hostile_frame().paired.compare(EVIL_A, EVIL_B, higher_is_better=True)
    return cmp.report(**FAST, rng=0, slices=EVIL_COLUMN, slice_uncertainty=True, min_slice_size=5)


def _benign_report() -> pdpaired.ComparisonReport:
    frame = hostile_frame()
    frame["model"] = frame["model"].map({EVIL_A: "A", EVIL_B: "B"})
    frame = frame.rename(columns={EVIL_COLUMN: "site"})
    frame["site"] = frame["site"].map({v: f"v{i}" for i, v in enumerate(EVIL_VALUES)})
    cmp = frame.paired.compare("A", "B", higher_is_better=True)
    return cmp.report(**FAST, rng=0, slices="site", slice_uncertainty=True, min_slice_size=5)


def _no_control(text: str) -> bool:
    """Only printable characters and the output's own line breaks."""
    return all(c.isprintable() or c == "\n" for c in text)


# --------------------------------------------------------------------------- the shareable boundary
def _sliced(sizes: dict[str, list[int]], seed: int) -> pd.DataFrame:
    """Scores of A and B on ``n`` cases, and per column a random partition of the given sizes."""
    rng = np.random.default_rng(seed)
    n = sum(next(iter(sizes.values())))
    b = rng.normal(size=n)
    a = b + 0.2 + rng.normal(0, 1, n)
    columns = {}
    for column, parts in sizes.items():
        assert sum(parts) == n
        labels = np.repeat([f"{column}-v{i}" for i in range(len(parts))], parts)
        columns[column] = rng.permutation(labels)
    return pd.concat(
        [
            pd.DataFrame({"case_id": np.arange(n), "model": m, "score": s, **columns})
            for m, s in (("A", a), ("B", b))
        ],
        ignore_index=True,
    )


def _check_no_recovery(frame: pd.DataFrame, columns: list[str], min_size: int,
                       uncertainty: bool) -> dict[str, Any]:  # fmt: skip
    """The subtraction attack on the shareable artifact recovers no slice below the floor.

    For a mean score, ``n * metric = sum over the shown slices of n_i * metric_i +
    (the hidden cases' sum)``: the attacker learns the sum over the union of the hidden
    slices of a column, nothing finer. The union must be empty, the whole evaluation
    set (whose aggregate is the published overall) or at least ``max(min_size, 10)``
    cases; the attack's arithmetic is checked against the frame, so it is the real one.
    """
    cmp = frame.paired.compare("A", "B", higher_is_better=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pdpaired.DegenerateDataWarning)
        rep = cmp.report(n_resamples=50, n_permutations=50, rng=0, slices=columns,
                         min_slice_size=min_size, slice_uncertainty=uncertainty)  # fmt: skip
    art = rep.to_artifact("shareable")
    local = rep.to_artifact("local")
    n, floor = art["n_cases"], max(min_size, report_mod.SHAREABLE_MIN_SLICE)
    text = json.dumps(art)
    a_rows = frame[frame["model"] == "A"].set_index("case_id")
    for column in columns:
        rows = [r for r in art["slices"]["rows"] if r["column"] == column]
        truth = [r for r in local["slices"]["rows"] if r["column"] == column]
        assert [r["n"] for r in rows] == [r["n"] for r in truth]  # same order, sizes kept
        assert {r["status"] for r in rows} <= {"reported", "suppressed"}
        shown = [r for r in rows if r["status"] == "reported"]
        hidden = [t for r, t in zip(rows, truth, strict=True) if r["status"] == "suppressed"]
        hidden_n = n - sum(r["n"] for r in shown)
        assert hidden_n == sum(t["n"] for t in hidden)
        assert hidden_n == 0 or hidden_n == n or hidden_n >= floor, (column, hidden_n, floor)
        for r, t in zip(rows, truth, strict=True):
            if r["status"] == "suppressed":
                assert r["value"] == "(suppressed)"
                assert r["metric_a"] is r["metric_b"] is r["improvement"] is None
                assert f'"{t["value"]}"' not in text  # the label is nowhere in the file
            else:
                assert t["n"] >= floor
        # the attack, and its oracle: the sum of A's scores over the hidden cases
        recovered = n * art["metric_a"] - sum(r["n"] * r["metric_a"] for r in shown)
        labels = {t["value"] for t in hidden}
        oracle = a_rows.loc[a_rows[column].isin(labels), "score"].sum()
        assert recovered == pytest.approx(oracle, abs=1e-9 * n * (1 + a_rows["score"].abs().max()))
        if any(t["status"] == "reported" for t in hidden):  # Q would involve a hidden slice
            assert column not in art["slices"]["heterogeneity"]
    return art


def test_genuine_artifacts_verify_and_are_shallow(
    genuine: dict[str, dict[str, Any]], tmp_path: Path
) -> None:
    for kind, art in genuine.items():
        assert pdpaired.verify(save(tmp_path, dump(art)))["kind"] == kind
        depth = verify_mod._nesting_depth(dump(art))
        assert depth <= 4 < verify_mod.MAX_ARTIFACT_DEPTH


@pytest.mark.parametrize("name", HOSTILE)
def test_verify_refuses_hostile_files(
    genuine: dict[str, dict[str, Any]], tmp_path: Path, name: str
) -> None:
    content, words = hostile_files(genuine)[name]
    with pytest.raises(pdpaired.ArtifactError) as info:
        pdpaired.verify(save(tmp_path, content))
    assert words in str(info.value)


@pytest.mark.parametrize("name", HOSTILE)
def test_cli_verify_exits_2_with_one_line(
    genuine: dict[str, dict[str, Any]],
    tmp_path: Path,
    name: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    content, words = hostile_files(genuine)[name]
    code = main(["verify", str(save(tmp_path, content))])
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1
    assert err.startswith("error: ")
    assert words in err
    assert all(c.isprintable() for c in err.rstrip("\n"))


def test_depth_limit_is_inclusive(genuine: dict[str, dict[str, Any]], tmp_path: Path) -> None:
    """Nesting up to the limit is parsed (and verified), one level more is refused."""
    limit = verify_mod.MAX_ARTIFACT_DEPTH
    assert pdpaired.verify(save(tmp_path, _nested_in_class_labels(genuine, limit)))
    with pytest.raises(pdpaired.ArtifactError, match=f"{limit + 1} levels deep"):
        pdpaired.verify(save(tmp_path, _nested_in_class_labels(genuine, limit + 1)))


def test_verify_reads_a_bounded_number_of_bytes(tmp_path: Path) -> None:
    """A file beyond the bound is refused without being read whole (a sparse 1 GiB file)."""
    path = tmp_path / "huge.json"
    with open(path, "wb") as f:
        f.truncate(2**30)  # sparse: no disk space, but read() would return 1 GiB of NULs
    with pytest.raises(pdpaired.ArtifactError, match="larger than 16777216 bytes"):
        pdpaired.verify(path)


def test_verify_bounds_the_read_at_the_limit(
    genuine: dict[str, dict[str, Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = save(tmp_path, dump(genuine["shareable"]))
    size = path.stat().st_size
    monkeypatch.setattr(verify_mod, "MAX_ARTIFACT_BYTES", size)
    assert pdpaired.verify(path)["kind"] == "shareable"
    monkeypatch.setattr(verify_mod, "MAX_ARTIFACT_BYTES", size - 1)
    with pytest.raises(pdpaired.ArtifactError, match="larger than"):
        pdpaired.verify(path)


@pytest.mark.parametrize(
    ("target", "words"),
    [("missing.json", "Cannot read"), (".", "Cannot read"), ("nul\x00byte.json", "Cannot read")],
)
def test_unreadable_paths_are_artifact_errors(tmp_path: Path, target: str, words: str) -> None:
    with pytest.raises(pdpaired.ArtifactError, match=words):
        pdpaired.verify(tmp_path / target)


def test_many_problems_stay_a_short_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every problem is in ``.problems``; the message shows a few, each clipped."""
    monkeypatch.setattr(verify_mod, "_MAX_PROBLEMS_SHOWN", 5)
    required = verify_mod._schema()["required"]
    art = {k: "x" * 100_000 for k in required}  # each of the wrong type, quoted in its message
    with pytest.raises(pdpaired.ArtifactError) as info:
        pdpaired.verify(save(tmp_path, json.dumps(art)))
    problems = info.value.problems  # type: ignore[attr-defined]
    assert len(problems) >= len(required)
    assert len(str(info.value)) < 6 * 600
    assert f"and {len(problems) - 5} more" in str(info.value)
    assert all(len(p) <= 600 for p in problems)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX console script path")
def test_console_script_on_a_deeply_nested_file(tmp_path: Path) -> None:
    """The reported crash, as a user met it: exit 2, one line, no traceback."""
    path = save(tmp_path, "[" * 200_000 + "]" * 200_000)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONWARNINGS"}
    proc = subprocess.run(
        [sys.executable, "-m", "pdpaired", "verify", str(path)],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )  # fmt: skip
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1
    assert "Traceback" not in proc.stderr
    assert "200000 levels deep" in proc.stderr


@FUZZ
@given(st.binary(max_size=2_000))
def test_verify_on_random_bytes(tmp_path: Path, data: bytes) -> None:
    assert _check_total(save(tmp_path, data)) is None


@FUZZ
@given(json_values)
def test_verify_on_random_json(tmp_path: Path, value: Any) -> None:
    assert _check_total(save(tmp_path, dump(value))) is None


@FUZZ
@given(data=st.data())
def test_verify_on_mutated_artifacts(
    genuine: dict[str, dict[str, Any]], tmp_path: Path, data: st.DataObject
) -> None:
    kind = data.draw(st.sampled_from(["local", "shareable"]))
    text, forged = data.draw(mutations(genuine[kind]))
    got = _check_total(save(tmp_path, text))
    if got is not None:  # only a re-digested forgery can pass, and it is what the file holds
        assert forged
        assert got == json.loads(text)


@FUZZ
@given(data=st.data())
def test_verify_on_byte_edits_of_an_artifact(
    genuine: dict[str, dict[str, Any]], tmp_path: Path, data: st.DataObject
) -> None:
    raw = bytearray(dump(genuine["shareable"]).encode())
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(raw) - 1))
        op = data.draw(st.sampled_from(["set", "insert", "delete"]))
        byte = data.draw(st.integers(0, 255))
        if op == "set":
            raw[i] = byte
        elif op == "insert":
            raw.insert(i, byte)
        else:
            del raw[i]
    got = _check_total(save(tmp_path, bytes(raw)))
    if got is not None:  # an edit can only pass if it left the content as it was
        assert got == genuine["shareable"]


def test_markdown_renders_hostile_labels_as_text(hostile_report: pdpaired.ComparisonReport) -> None:
    """A CommonMark parser (raw HTML enabled, GFM tables) is the oracle: no tag, no split cell."""
    from markdown_it import MarkdownIt

    md = hostile_report.to_markdown()
    assert _no_control(md)
    assert md.count("\n") == _benign_report().to_markdown().count("\n")  # no row broken
    rendered = MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(md)
    for tag in ("<img", "<script", "<b>", "<a ", "<code>", "<em>", "<del>"):
        assert tag not in rendered, tag
    # every table row has as many cells as its header
    tables = rendered.split("<table>")[1:]
    assert len(tables) == 2
    for table in tables:
        rows = table.split("</table>")[0].split("<tr>")[1:]
        cells = {row.count("<td>") + row.count("<th>") for row in rows}
        assert len(cells) == 1, cells
    # and the labels are there, as text (HTML-escaped by the renderer)
    import html

    text = html.unescape(rendered)
    for label in ("<img src=x onerror=alert(1)>|`a`*b*", "<script>alert(1)</script>", "a|b"):
        assert label in text, label
    assert "&lt;" in text  # the literal slice value "&lt;", not a "<"


def test_markdown_heading_shows_the_names_as_text(
    hostile_report: pdpaired.ComparisonReport,
) -> None:
    """The report's own Markdown stays (a heading); the names in it are text."""
    from markdown_it import MarkdownIt

    md = hostile_report.to_markdown()
    first = MarkdownIt("commonmark").render(md.splitlines()[0])
    assert first.startswith("<h1>Paired comparison: &lt;img src=x onerror=alert(1)&gt;|`a`*b*")


def test_text_and_repr_carry_no_control_characters(
    hostile_report: pdpaired.ComparisonReport,
) -> None:
    benign = _benign_report()
    for got, ref in (
        (str(hostile_report), str(benign)),
        (str(hostile_report.bootstrap), str(benign.bootstrap)),
        (str(hostile_report.randomization), str(benign.randomization)),
        (str(hostile_report.slices), str(benign.slices)),
    ):
        assert _no_control(got)
        assert got.count("\n") == ref.count("\n")
        assert "\\x1b" in got  # shown, escaped
    for obj in (hostile_report, hostile_report.bootstrap, hostile_report.slices):
        assert _no_control(repr(obj))
        assert "\n" not in repr(obj)


def test_html_reprs_escape_hostile_labels(hostile_report: pdpaired.ComparisonReport) -> None:
    for obj in (hostile_report, hostile_report.bootstrap, hostile_report.slices):
        page = obj._repr_html_()
        assert "<img src=x" not in page
        assert "<script>" not in page
        assert "<b>site" not in page
        assert "&lt;img src=x onerror=alert(1)&gt;" in page


def test_plots_draw_hostile_labels_literally(hostile_report: pdpaired.ComparisonReport) -> None:
    """A label with ``$`` (mathtext, malformed here) is drawn as text, never parsed."""
    from matplotlib.figure import Figure

    for part in (hostile_report.bootstrap, hostile_report.randomization, hostile_report.slices):
        fig = Figure()
        ax = part.plot(ax=fig.add_subplot())
        fig.savefig(os.devnull, format="png")  # drawing parses every text
        texts = [ax.get_xlabel(), *(t.get_text() for t in ax.get_yticklabels())]
        assert any(r"\$x^{\$" in t or r"\$\frac{\$" in t for t in texts), texts
        assert not any("\x1b" in t for t in texts)


def test_artifacts_keep_hostile_labels_exactly(
    hostile_report: pdpaired.ComparisonReport, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """JSON quotes any text; the names round-trip, verify passes and its OK line is clean."""
    paths = hostile_report.save(tmp_path)
    art = pdpaired.verify(paths["local"])
    assert art["models"] == {"a": EVIL_A, "b": EVIL_B}
    assert {r["value"] for r in art["slices"]["rows"]} == set(EVIL_VALUES)
    assert art["slices"]["columns"] == [EVIL_COLUMN]
    assert main(["verify", str(paths["shareable"])]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert out.count("\n") == 1
    assert _no_control(out)
    assert out.startswith("OK: ")
    assert "<img src=x" in out  # plain text for a terminal: escaped controls, not HTML


def test_cli_output_carries_no_control_characters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    frame = hostile_frame()
    csv = tmp_path / "long.csv"
    frame.to_csv(csv, index=False)
    args = ["compare", str(csv), "--long", "--a", EVIL_A, "--b", EVIL_B, "--score", "score",
            "--higher-is-better", "--slice-columns", EVIL_COLUMN, "--min-slice-size", "5",
            "--resamples", "100", "--permutations", "100", "--seed", "0",
            "--out", str(tmp_path / "out")]  # fmt: skip
    assert main(args) == 0
    out, err = capsys.readouterr()
    assert _no_control(out)
    assert _no_control(err)
    assert "\\x1b[31m" in out
    md = (tmp_path / "out" / "comparison.md").read_text("utf-8")
    assert "<img" not in md
    assert "<script" not in md
    # an error that quotes the data: one line, escaped
    bad = [*args[:6], "\x1b[2Jghost\nmodel", *args[7:]]
    assert main(bad) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1
    assert "\x1b" not in err
    assert _no_control(err)


@pytest.mark.parametrize(
    ("text", "markdown"),
    [
        ("plain name-1.0", "plain name-1.0"),
        ("a|b", "a\\|b"),
        ("`x`", "\\`x\\`"),
        ("<i>&", "&lt;i&gt;&amp;"),
        ("*a* _b_ ~c~ [d](e)", "\\*a\\* \\_b\\_ \\~c\\~ \\[d\\](e)"),
        ("back\\slash", "back\\\\slash"),
        ("two\nlines\r\nthree", "two lines three"),
        ("\x1b[1m\u202e", "\\x1b\\[1m\\u202e"),
    ],
)
def test_md_escape(text: str, markdown: str) -> None:
    assert md_escape(text) == markdown


@FUZZ
@given(st.text())
def test_md_escape_is_literal_text_to_a_commonmark_parser(text: str) -> None:
    """Whatever the text, one table cell renders to that text (controls shown escaped)."""
    import html

    from markdown_it import MarkdownIt

    parser = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    rendered = parser.render(f"| h |\n|---|\n| {md_escape(text)} |\n")
    assert rendered.count("<td>") == 1
    cell = rendered.split("<td>")[1].split("</td>")[0]
    assert "<" not in cell  # no tag of any kind
    want = printable(re.sub(r"\r\n|[\r\n\v\f\x85\u2028\u2029]", " ", text))
    assert html.unescape(cell).replace("\u200b", "") == want.strip(" ").replace("\u200b", "")


@FUZZ
@given(st.text())
def test_printable_is_one_printable_line(text: str) -> None:
    out = printable(text)
    assert out.isprintable()
    assert out == text or not text.isprintable()
    assert "$" not in plot_text(text).replace("\\$", "")


@pytest.mark.parametrize(
    ("sizes", "min_size", "published"),
    [
        ([150, 47, 3], 30, [150]),  # 3 hidden; 47 hidden too, or 200 - 150 - 47 = the 3
        ([51, 1, 8], 5, []),  # 9 < 10 hidden: the 51 goes too, so nothing is shown
        ([40, 40, 12, 8], 10, [40, 40]),  # 8 hidden; with the 12 they hold 20
        ([60, 25, 15], 10, [60, 25, 15]),  # nothing small: nothing hidden
        ([7, 7], 1, []),  # the whole set below the floor
    ],
)
def test_complementary_suppression(sizes: list[int], min_size: int, published: list[int]) -> None:
    art = _check_no_recovery(_sliced({"site": sizes}, 0), ["site"], min_size, uncertainty=False)
    shown = [r["n"] for r in art["slices"]["rows"] if r["status"] == "reported"]
    assert sorted(shown) == sorted(published)


@settings(FUZZ, max_examples=30)
@given(
    n=st.integers(2, 160),
    cuts=st.lists(st.lists(st.floats(0, 1), max_size=6), min_size=1, max_size=2),
    min_size=st.sampled_from([1, 5, 10, 30]),
    uncertainty=st.booleans(),
    seed=st.integers(0, 1000),
)
def test_no_suppressed_slice_is_recovered_by_subtraction(
    n: int, cuts: list[list[float]], min_size: int, uncertainty: bool, seed: int
) -> None:
    sizes = {}
    for k, fractions in enumerate(cuts):
        points = sorted({0, n, *(round(f * n) for f in fractions)})
        sizes[f"c{k}"] = [hi - lo for lo, hi in pairwise(points) if hi > lo]
    _check_no_recovery(_sliced(sizes, seed), list(sizes), min_size, uncertainty)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero on this platform")
def test_a_device_is_refused_as_not_a_regular_file() -> None:
    # (a FIFO would block a plain open() until a writer comes: tests/cli/test_main.py)
    with pytest.raises(pdpaired.ArtifactError, match=r"'/dev/zero': not a regular file\."):
        pdpaired.verify("/dev/zero")
