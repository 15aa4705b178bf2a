"""The one registry of random streams (``pdpaired/_lib/rng.py``) and the seeds results show.

* registry: every family has its own first address word and a fixed number
  of index words, so no two addresses collide or prefix one another; the
  derived families (slices, report parts) are disjoint from the direct ones;
  the addresses and the derived seeds are the ones pdpaired always used, so
  no number changed; stream names are distinct per stream and readable;
* static: no module but ``_lib/rng.py`` builds a child stream, holds an address
  literal or defines a chunk size, and every family the package names exists;
* seeds shown to users: every result records the seed the
  user gave and the name of its stream, and the same call with
  ``rng=result.seed`` reproduces it -- the bootstrap, the randomization test,
  prediction mode, every part of a report, every slice row, the Dask path
  and ``pdpaired compare --seed 0``; no derived integer is shown anywhere.
"""

from __future__ import annotations

import ast
import itertools
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import pdpaired
from pdpaired._lib import rng as _rng
from pdpaired._lib.rng import (
    CHUNK,
    FAMILIES,
    address,
    derived_seed,
    slice_index,
    stream_name,
    stream_sequence,
)

from ..conftest import long_table

PACKAGE = Path(pdpaired.__file__).parent


FAST: dict[str, Any] = {"n_resamples": 200, "n_permutations": 200}


#: The streams that read several families (one analysis, several engines).
SHARED = {"bootstrap": {"bootstrap_chunk", "bootstrap_stratum"},
          "randomization": {"randomization_bits", "randomization_stratum"}}  # fmt: skip


# --------------------------------------------------------------------------- 1. registry
def sample_addresses(name: str) -> list[tuple[int, ...]]:
    """Addresses of a family with index words at the edges of their range."""
    fam = FAMILIES[name]
    edges = (0, 1, 2**32 - 1)
    return [address(name, *ix) for ix in itertools.product(edges, repeat=fam.n_index)]


# --------------------------------------------------------------------------- 2. static
def package_sources() -> dict[str, str]:
    return {
        p.relative_to(PACKAGE).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(PACKAGE.rglob("*.py"))
    }


REGISTRY = "_lib/rng.py"  # the one module that builds streams


REGISTRY_CALLS = {
    "stream_sequence": 1, "stream_state": 1, "stream_words": 1, "derived_seed": 1,
    "address": 0, "stream_name": 0,
}  # fmt: skip


# --------------------------------------------------------------------------- 3. results
@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    rng = np.random.default_rng(11)
    n = 240
    base = rng.normal(size=n)
    return long_table(base + rng.normal(0.15, 1.0, n), base,
                      site=np.array(["a", "b", "c"])[np.arange(n) % 3])  # fmt: skip


@pytest.fixture(scope="module")
def cmp(frame: pd.DataFrame) -> pdpaired.Comparison:
    return frame.paired.compare("A", "B", higher_is_better=True)


def same_bootstrap(x: Any, y: Any) -> None:
    assert x.confidence_interval == y.confidence_interval
    np.testing.assert_array_equal(x.bootstrap_distribution, y.bootstrap_distribution)
    assert (x.seed, x.stream) == (y.seed, y.stream)


def same_randomization(x: Any, y: Any) -> None:
    assert x.pvalue == y.pvalue
    np.testing.assert_array_equal(x.null_distribution, y.null_distribution)
    assert (x.seed, x.stream) == (y.seed, y.stream)


def derived_integers(rng: int) -> set[int]:
    """Every internal seed a report with ``rng`` (and slices of ``site``) derives."""
    root = np.random.SeedSequence(rng)
    out = {derived_seed(root, f) for f in ("report_bootstrap", "report_randomization",
                                            "report_slices")}  # fmt: skip
    for r in (root, np.random.SeedSequence(derived_seed(root, "report_slices"))):
        for value in ("a", "b", "c", "\x00overall"):
            index = slice_index("" if value == "\x00overall" else "site", value)
            out |= {derived_seed(r, f, *index) for f in ("slice_bootstrap", "slice_randomization")}
    return out


def test_every_family_has_its_own_first_word() -> None:
    words = [f.word for f in FAMILIES.values()]
    assert len(set(words)) == len(words), words
    assert all(isinstance(w, int) and w >= 0 for w in words)
    assert all(f.n_index >= 0 for f in FAMILIES.values())


def test_no_address_equals_or_prefixes_another_familys() -> None:
    """Prefix freeness: two families never share an address or its beginning."""
    for f, g in itertools.permutations(FAMILIES, 2):
        for x in sample_addresses(f):
            for y in sample_addresses(g):
                assert y[: len(x)] != x, (f, x, g, y)
    # within a family every address has the same length, so distinct ones never prefix
    for name, fam in FAMILIES.items():
        assert {len(a) for a in sample_addresses(name)} == {1 + fam.n_index}


def test_derived_families_are_disjoint_from_the_direct_ones() -> None:
    derived = {f.word for f in FAMILIES.values() if f.derived}
    direct = {f.word for f in FAMILIES.values() if not f.derived}
    assert derived
    assert direct
    assert not derived & direct
    assert {n for n, f in FAMILIES.items() if f.derived} == {
        "slice_bootstrap", "slice_randomization", "report_bootstrap", "plan_bootstrap",
        "report_randomization", "report_slices", "report_sensitivity", "suite",
    }  # fmt: skip


def test_the_addresses_are_the_ones_pdpaired_always_used() -> None:
    """Every number stays bit for bit the same: the table holds the historical words."""
    want = {
        "bootstrap_chunk": (0, 1), "bootstrap_stratum": (1, 1), "randomization_bits": (2, 0),
        "randomization_stratum": (3, 1),
        "slice_bootstrap": (6, 4), "slice_randomization": (7, 4), "report_bootstrap": (8, 0),
        "report_randomization": (9, 0), "report_slices": (10, 0), "dask_poisson": (11, 0),
        "dask_flips": (12, 0), "plan_simulation": (18, 2), "plan_mcnemar": (19, 0),
        "plan_bootstrap": (20, 0), "slice_heterogeneity": (24, 4), "report_sensitivity": (25, 0),
        "repeat_runs": (31, 2), "calibration": (32, 1), "audit": (33, 2),
        "suite": (34, 4), "split": (40, 1), "crossed_levels": (41, 2),
    }  # fmt: skip
    assert {n: (f.word, f.n_index) for n, f in FAMILIES.items()} == want
    assert CHUNK == 64
    root = np.random.SeedSequence(42)
    ss = stream_sequence(root, "bootstrap_chunk", 3)
    assert ss.entropy == 42
    assert ss.spawn_key == (0, 3)
    # the derived seed of the old slices/report code: (w0 << 31) ^ w1, 63 bits
    words = slice_index("site", "a")
    state = np.random.SeedSequence(42, spawn_key=(6, *words)).generate_state(2, np.uint64)
    old = ((int(state[0]) << 31) ^ int(state[1])) & ((1 << 63) - 1)
    assert derived_seed(root, "slice_bootstrap", *words) == old
    assert 0 <= old < 2**63


def test_the_documented_table_is_the_registry() -> None:
    """The table in ``_rng``'s docstring lists exactly the registered addresses."""
    doc = _rng.__doc__ or ""
    rows = re.findall(r"^``(\w+)``\s+``\((\d+)(,[^`]*)?\)``", doc, re.M)
    got = {name: (int(word), 0 if rest in ("", ",") else rest.count(",") + rest.count("*4") * 3)
           for name, word, rest in rows}  # fmt: skip
    assert got == {n: (f.word, f.n_index) for n, f in FAMILIES.items()}


def test_the_registry_refuses_a_wrong_arity_or_kind() -> None:
    root = np.random.SeedSequence(1)
    with pytest.raises(ValueError, match="index word"):
        address("bootstrap_chunk")
    with pytest.raises(ValueError, match="index word"):
        stream_sequence(root, "randomization_bits", 0)
    with pytest.raises(ValueError, match="derived"):
        stream_sequence(root, "report_bootstrap")
    with pytest.raises(ValueError, match="generator"):
        derived_seed(root, "bootstrap_chunk", 0)
    with pytest.raises(KeyError):
        address("no_such_family")
    with pytest.raises(ValueError, match="slice label"):
        stream_name("slice_bootstrap")


def test_stream_names_are_readable_and_distinct_per_stream() -> None:
    names: dict[str, set[str]] = {}
    for name, fam in FAMILIES.items():
        assert re.fullmatch(r"[a-z][a-z{}:-]*", fam.stream), fam.stream
        names.setdefault(fam.stream, set()).add(name)
    shared = {s: f for s, f in names.items() if len(f) > 1}
    assert shared == SHARED
    assert stream_name("slice_bootstrap", "site=3") == "slice:site=3:bootstrap"
    assert stream_name("slice_randomization", "site=3", scope="report") == (
        "report:slice:site=3:randomization"
    )
    assert stream_name("report_slices") == f"report:{_rng.SLICE_SCAN}"


def test_only_the_registry_builds_streams_or_defines_the_chunk() -> None:
    """A cheap static check: the addresses and the chunk size live in ``_lib/rng.py`` only."""
    banned = [
        (re.compile(r"\bchild_sequence\s*\("), "a child stream built by hand"),
        (re.compile(r"\bspawn_key\b"), "a spawn key"),
        (re.compile(r"\bSeedSequence\s*\("), "a SeedSequence built outside the registry"),
        (re.compile(r"\.generate_state\s*\("), "words drawn from a SeedSequence"),
        (re.compile(r"^\s*_?CHUNK\w*\s*=", re.M), "a chunk size"),
        (re.compile(r"^\s*_?\w*(CHUNK|ROLE)\w*\s*(:\s*\w+\s*)?=\s*\d", re.M), "a stream constant"),
        (re.compile(r"\b_derived_seed\b|\b_stream\b"), "the old private seed helpers"),
    ]
    problems = []
    for name, text in package_sources().items():
        if name == REGISTRY:
            continue
        for pattern, what in banned:
            for m in pattern.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                problems.append(f"{name}:{line}: {what}: {m.group(0).strip()!r}")
    assert not problems, "\n".join(problems)
    # and the registry itself defines the chunk once
    assert len(re.findall(r"^CHUNK\s*=", (PACKAGE / REGISTRY).read_text(), re.M)) == 1


def test_every_family_the_package_names_is_registered_and_used() -> None:
    used: set[str] = set()
    problems = []
    for name, text in package_sources().items():
        if name == REGISTRY:
            continue
        for node in ast.walk(ast.parse(text)):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            fname = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if fname not in REGISTRY_CALLS:
                continue
            pos = REGISTRY_CALLS[fname]
            arg = node.args[pos] if len(node.args) > pos else None
            if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
                problems.append(f"{name}:{node.lineno}: {fname} without a literal family name")
                continue
            if arg.value not in FAMILIES:
                problems.append(f"{name}:{node.lineno}: unknown family {arg.value!r}")
            used.add(arg.value)
            counts = fname == "stream_words"  # its last argument counts words
            for extra in node.args[pos + 1 : len(node.args) - counts]:  # computed, not literal
                if isinstance(extra, ast.Constant) and isinstance(extra.value, int):
                    problems.append(f"{name}:{node.lineno}: a literal index word in {fname}")
    assert not problems, "\n".join(problems)
    assert used == set(FAMILIES), set(FAMILIES) ^ used


def test_bootstrap_and_randomization_record_the_seed_and_reproduce(
    cmp: pdpaired.Comparison,
) -> None:
    bs = cmp.bootstrap(n_resamples=300)  # a fresh seed, drawn and recorded
    assert isinstance(bs.seed, int)
    assert bs.stream == "bootstrap"
    same_bootstrap(cmp.bootstrap(n_resamples=300, rng=bs.seed), bs)
    rz = cmp.randomization(n_permutations=300, rng=0)
    assert (rz.seed, rz.stream) == (0, "randomization")
    same_randomization(cmp.randomization(n_permutations=300, rng=rz.seed), rz)
    for res, stream in ((bs, "bootstrap"), (rz, "randomization")):
        d = res.to_dict()
        assert (d["seed"], d["stream"]) == (res.seed, stream)
        row = res.to_frame().iloc[0]
        assert (row["seed"], row["stream"]) == (res.seed, stream)
        assert f"seed {res.seed}" in str(res)
        assert f"seed {res.seed}" in res._repr_html_()
        assert f"stream={stream!r}" in repr(res)


def test_the_exact_binomial_test_has_no_seed_and_no_stream() -> None:
    rng = np.random.default_rng(2)
    a, b = (rng.random(80) < 0.7).astype(float), (rng.random(80) < 0.6).astype(float)
    res = long_table(a, b).paired.exact_binomial("A", "B", higher_is_better=True)
    assert (res.seed, res.stream) == (None, None)
    assert res.to_dict()["stream"] is None


def test_prediction_mode_records_its_streams_and_reproduces() -> None:
    rng = np.random.default_rng(4)
    n = 160
    y = rng.integers(0, 2, n)
    frame = pd.DataFrame({
        "case_id": np.tile(np.arange(n), 2), "model": np.repeat(["A", "B"], n),
        "y": np.tile(y, 2),
        "p": np.concatenate([np.clip(0.3 * y + 0.7 * rng.random(n), 0, 1), rng.random(n)]),
    })  # fmt: skip
    pc = frame.paired(target="y", prediction="p").compare("A", "B", metric="auroc")
    bs = pc.bootstrap(n_resamples=200, rng=None)
    assert bs.stream == "bootstrap"
    same_bootstrap(pc.bootstrap(n_resamples=200, rng=bs.seed), bs)
    rz = pc.randomization(n_permutations=200, rng=None)
    assert rz.stream == "randomization"  # score mode's sign-flip bits, unit for unit
    same_randomization(pc.randomization(n_permutations=200, rng=rz.seed), rz)


def test_a_report_records_the_seed_in_every_part_and_reproduces_them(
    cmp: pdpaired.Comparison,
) -> None:
    kw: dict[str, Any] = {**FAST, "slices": "site", "min_slice_size": 10,
                          "slice_uncertainty": True}  # fmt: skip
    rep = cmp.report(**kw)  # a fresh seed
    seed = rep.seed
    assert isinstance(seed, int)
    assert rep.bootstrap.seed == rep.randomization.seed == seed
    assert rep.slices is not None
    assert rep.slices.seed == seed
    assert (rep.bootstrap.stream, rep.randomization.stream, rep.slices.stream) == (
        "report:bootstrap", "report:randomization", "report:slices")  # fmt: skip
    table = rep.slices.table
    assert (table["seed"] == seed).all()
    assert list(table["stream_bootstrap"]) == [
        f"report:slice:site={v}:bootstrap" for v in ("a", "b", "c")
    ]
    assert rep.slices.overall["stream_bootstrap"] == "report:slice:overall:bootstrap"
    assert rep.slices.overall["seed"] == seed
    # the same call with any part's seed reproduces every part, bit for bit
    again = cmp.report(**kw, rng=rep.bootstrap.seed)
    same_bootstrap(again.bootstrap, rep.bootstrap)
    same_randomization(again.randomization, rep.randomization)
    assert again.slices is not None
    pd.testing.assert_frame_equal(again.slices.table, table, check_exact=True)
    assert again.slices.overall == rep.slices.overall
    assert again.slices.heterogeneity == rep.slices.heterogeneity
    for kind in ("local", "shareable"):
        assert again.to_artifact(kind) == rep.to_artifact(kind)
    assert again.to_markdown() == rep.to_markdown()
    # the stand-alone bootstrap with that seed reads another stream: other resamples
    alone = cmp.bootstrap(n_resamples=FAST["n_resamples"], rng=seed)
    assert alone.stream == "bootstrap"
    assert not np.array_equal(alone.bootstrap_distribution, rep.bootstrap.bootstrap_distribution)


def test_a_report_shows_no_derived_integer(cmp: pdpaired.Comparison) -> None:
    rep = cmp.report(**FAST, slices="site", min_slice_size=10, slice_uncertainty=True, rng=5)
    assert rep.slices is not None
    texts = [
        str(rep), rep._repr_html_(), rep.to_markdown(), repr(rep),
        json.dumps(rep.to_artifact("local")), json.dumps(rep.to_artifact("shareable")),
        json.dumps(rep.bootstrap.to_dict()), json.dumps(rep.randomization.to_dict()),
        json.dumps(rep.slices.to_dict()), rep.slices.table.to_csv(),
        rep.bootstrap.to_frame().to_csv(), rep.to_frame().to_csv(),
    ]  # fmt: skip
    hidden = derived_integers(5)
    assert len(hidden) == 3 + 2 * 2 * 4
    for text in texts:
        for x in hidden:
            assert str(x) not in text, (x, text[:200])
    assert "seed 5, stream report:bootstrap" in str(rep.bootstrap)
    assert "seed 5, stream report:slices; p-values adjusted" in str(rep.slices)
    assert "seed 5, stream report:randomization" in str(rep.randomization)
    art = rep.to_artifact("shareable")
    assert (art["interval"]["seed"], art["interval"]["stream"]) == (5, "report:bootstrap")
    assert (art["randomization"]["seed"], art["randomization"]["stream"]) == (
        5, "report:randomization")  # fmt: skip
    assert rep.to_artifact("local")["local"]["seed"] == 5


def test_a_report_from_a_generator_records_its_state(cmp: pdpaired.Comparison) -> None:
    rep = cmp.report(**FAST, rng=np.random.default_rng(9))
    state = np.random.default_rng(9).bit_generator.state
    for part in (rep.bootstrap, rep.randomization):
        assert part.seed is None
        assert part.rng_state == state
    assert "Generator, stream report:bootstrap" in str(rep.bootstrap)
    again = cmp.report(**FAST, rng=np.random.default_rng(9))
    same_bootstrap(again.bootstrap, rep.bootstrap)


def test_an_artifact_without_streams_still_verifies(
    cmp: pdpaired.Comparison, tmp_path: Path
) -> None:
    """Artifacts written before ``stream`` was recorded stay valid."""
    from pdpaired.artifacts.digests import content_digest

    art = cmp.report(**FAST, rng=0).to_artifact("shareable")
    del art["interval"]["stream"], art["randomization"]["stream"]
    art["digest"] = content_digest(art)
    path = tmp_path / "old.json"
    path.write_text(json.dumps(art), encoding="utf-8")
    assert pdpaired.verify(path)["interval"]["seed"] == 0
    # before, the parts recorded two different derived seeds: still fine without streams
    art["interval"]["seed"] = 4982717711195048510
    art["randomization"]["seed"] = 3633340974140081282
    art["digest"] = content_digest(art)
    path.write_text(json.dumps(art), encoding="utf-8")
    assert pdpaired.verify(path)["interval"]["seed"] == 4982717711195048510
    art["interval"]["stream"] = ""  # present, it must name a stream
    art["digest"] = content_digest(art)
    path.write_text(json.dumps(art), encoding="utf-8")
    with pytest.raises(pdpaired.ArtifactError, match="interval/stream"):
        pdpaired.verify(path)


@pytest.mark.parametrize(
    ("kind", "where"),
    [("local", "interval"), ("local", "randomization"), ("local", "local"),
     ("shareable", "interval"), ("shareable", "randomization")],
)  # fmt: skip
def test_an_artifact_whose_parts_record_different_seeds_fails(
    cmp: pdpaired.Comparison, tmp_path: Path, kind: str, where: str
) -> None:
    from pdpaired.artifacts.digests import content_digest

    art = cmp.report(**FAST, rng=0).to_artifact(kind)
    art[where]["seed"] = 1
    art["digest"] = content_digest(art)
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(art), encoding="utf-8")
    with pytest.raises(pdpaired.ArtifactError, match="one seed"):
        pdpaired.verify(path)


def test_slice_rows_record_the_seed_and_reproduce(cmp: pdpaired.Comparison) -> None:
    kw: dict[str, Any] = {"uncertainty": True, "min_size": 10, **FAST}
    sl = cmp.by_slice("site", **kw)  # a fresh seed
    assert isinstance(sl.seed, int)
    assert sl.stream == "slices"
    t = sl.table
    assert (t["seed"] == sl.seed).all()
    assert list(t["stream_bootstrap"]) == [f"slice:site={v}:bootstrap" for v in "abc"]
    assert list(t["stream_randomization"]) == [f"slice:site={v}:randomization" for v in "abc"]
    again = cmp.by_slice("site", **kw, rng=int(t["seed"].iloc[1]))
    pd.testing.assert_frame_equal(again.table, t, check_exact=True)
    assert again.overall == sl.overall
    assert f"2000 resamples, seed {sl.seed};" not in str(sl)  # FAST: 200 resamples
    assert f"200 resamples, seed {sl.seed}; p-values adjusted" in str(sl)
    assert f"seed {sl.seed}" in sl._repr_html_()
    d = sl.to_dict()
    assert (d["seed"], d["stream"]) == (sl.seed, "slices")
    assert [r["seed"] for r in d["slices"]] == [sl.seed] * 3
    # a slice's own row does not depend on the other slices
    only_b = cmp.by_slice("site", **{**kw, "min_size": 1}, rng=sl.seed)
    pd.testing.assert_frame_equal(only_b.table.drop(columns="pvalue_adjusted"),
                                  t.drop(columns="pvalue_adjusted"))  # fmt: skip


def test_slices_without_uncertainty_have_no_seed_columns(cmp: pdpaired.Comparison) -> None:
    sl = cmp.by_slice("site", min_size=10, rng=3)
    assert not {"seed", "stream_bootstrap", "stream_randomization"} & set(sl.table.columns)
    assert sl.seed == 3


def test_dask_records_its_streams_and_reproduces(frame: pd.DataFrame) -> None:
    dd = pytest.importorskip("dask.dataframe")
    import pdpaired.dask  # noqa: F401  (registers ddf.paired)

    ddf = dd.from_pandas(frame.drop(columns="site"), npartitions=3)
    bs = ddf.paired.bootstrap("A", "B", higher_is_better=True, n_resamples=200)
    assert (bs.engine, bs.stream) == ("poisson", "poisson-bootstrap")
    again = ddf.paired.bootstrap("A", "B", higher_is_better=True, n_resamples=200, rng=bs.seed)
    same_bootstrap(again, bs)
    rz = ddf.paired.randomization("A", "B", higher_is_better=True, n_permutations=200, rng=1)
    assert (rz.engine, rz.seed, rz.stream) == ("partition-flips", 1, "partition-flips")
    col = ddf.paired.bootstrap("A", "B", higher_is_better=True, n_resamples=200, rng=1,
                               collect=True)  # fmt: skip
    assert col.stream == "bootstrap"  # the pandas path's stream, bit for bit


# --------------------------------------------------------------------------- 4. command line
def test_the_command_line_prints_and_records_the_seed_and_reruns_identically(
    frame: pd.DataFrame, tmp_path: Path
) -> None:
    long = frame.rename(columns={"case_id": "case"})
    path = tmp_path / "scores.csv"
    long.to_csv(path, index=False)

    def compare(seed: int, out: str) -> subprocess.CompletedProcess[str]:
        args = [sys.executable, "-m", "pdpaired", "compare", str(path), "--long",
                "--a", "A", "--b", "B", "--id-column", "case", "--score", "score",
                "--higher-is-better", "--slice-columns", "site", "--min-slice-size", "10",
                "--include-slice-uncertainty", "--resamples", "200", "--permutations", "200",
                "--seed", str(seed), "--out", str(tmp_path / out)]  # fmt: skip
        proc = subprocess.run(args, capture_output=True, text=True, timeout=180, check=False)
        assert proc.returncode == 0, proc.stderr
        return proc

    first = compare(0, "one")
    assert "seed 0, stream report:bootstrap" in first.stdout
    assert "seed 0, stream report:randomization" in first.stdout
    outputs = [first.stdout, *((tmp_path / "one" / f).read_text() for f in (
        "comparison.json", "comparison.shareable.json", "comparison.md"))]  # fmt: skip
    for text in outputs:
        for x in derived_integers(0):
            assert str(x) not in text, x
    local = json.loads((tmp_path / "one" / "comparison.json").read_text())
    share = json.loads((tmp_path / "one" / "comparison.shareable.json").read_text())
    assert local["local"]["seed"] == local["interval"]["seed"] == share["interval"]["seed"] == 0
    assert share["randomization"]["seed"] == 0
    assert "seed 0, stream report:bootstrap" in (tmp_path / "one" / "comparison.md").read_text()
    # passing the recorded seed back reruns identically
    second = compare(share["interval"]["seed"], "two")
    strip = re.compile(r"^wrote .*$", re.M)
    assert strip.sub("", second.stdout) == strip.sub("", first.stdout)
    for f in ("comparison.json", "comparison.shareable.json", "comparison.md"):
        assert (tmp_path / "two" / f).read_text() == (tmp_path / "one" / f).read_text()
    # and equals the Python API's report with that seed, on the table the CLI reads (its
    # id column as text)
    cmp = pd.read_csv(path, dtype={"case": str}).paired(case="case").compare(
        "A", "B", higher_is_better=True)  # fmt: skip
    rep = cmp.report(**FAST, slices=["site"], min_slice_size=10, slice_uncertainty=True, rng=0)
    assert rep.to_artifact("shareable") == share
