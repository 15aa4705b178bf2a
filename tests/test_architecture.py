"""The layer order is a checked contract.

* ``lint-imports`` keeps the two contracts of ``pyproject.toml``: the layers
  (front ends > analysis > pairs > core > leaf, every module placed) and no
  import cycle between pdpaired's modules.
* No module reads another module's private names: no ``from pdpaired.x import
  _name``, and no ``obj._attr`` on anything but ``self``/``cls`` unless the
  module itself defines ``_attr`` (its own class's attribute or method).
* The contract is live: a deliberately upward import makes it fail.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "pdpaired"


def lint_imports(cwd: Path) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).with_name("lint-imports")
    if not exe.exists():
        found = shutil.which("lint-imports")
        if found is None:
            pytest.skip("import-linter is not installed (pip install pdpaired[test])")
        exe = Path(found)
    return subprocess.run(
        [str(exe), "--no-cache", "--no-logo"],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        env={"PYTHONPATH": str(cwd), "PATH": str(exe.parent)},
    )


def test_import_contracts_are_kept() -> None:
    proc = lint_imports(ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 kept, 0 broken" in proc.stdout, proc.stdout


def test_every_module_is_placed_in_one_layer() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    (layers,) = [c for c in config["contracts"] if c["type"] == "layers"]
    placed = [m.strip() for layer in layers["layers"] for m in re.split(r"[:|]", layer)]
    assert len(placed) == len(set(placed))
    modules = {p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    modules |= {p.parent.name for p in PACKAGE.glob("*/__init__.py")}
    assert set(placed) == modules


def test_an_upward_import_breaks_the_contract(tmp_path: Path) -> None:
    """The check can fail: a leaf module importing the analysis layer is reported."""
    shutil.copytree(PACKAGE, tmp_path / "pdpaired", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    leaf = tmp_path / "pdpaired" / "_lib" / "format.py"
    leaf.write_text(
        leaf.read_text() + "\nimport pdpaired.analysis.comparison  # noqa: E402, F401\n"
    )
    proc = lint_imports(tmp_path)
    assert proc.returncode != 0
    assert "pdpaired._lib.format -> pdpaired.analysis.comparison" in proc.stdout, proc.stdout


def _defined_names(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names


def _is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


#: Underscored attributes of other libraries that their docs tell users to read:
#: a Dask collection's ``_meta`` (its empty pandas prototype, "Internal Design:
#: Metadata" in Dask's docs), which ``map_partitions(meta=...)`` is built from;
#: and sacrebleu's ``_extract_corpus_statistics`` (a metric's per-segment
#: statistics), which sacrebleu's own paired tests (``sacrebleu.significance``)
#: are built on and for which sacrebleu 2 has no public name.
THIRD_PARTY = frozenset({"_meta", "_extract_corpus_statistics"})


def private_reads(path: Path) -> list[str]:
    """Where the module at ``path`` reads a private name defined in another module."""
    tree = ast.parse(path.read_text())
    own = _defined_names(tree)
    submodules = {p.stem for p in PACKAGE.rglob("*.py")} | {
        p.name for p in PACKAGE.rglob("*") if p.is_dir()
    }
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("pdpaired"):
            for alias in node.names:
                if _is_private(alias.name) and alias.name not in submodules:
                    found.append(f"{path.name}:{node.lineno}: {node.module}.{alias.name}")
        elif isinstance(node, ast.Attribute) and _is_private(node.attr):
            base = node.value
            if isinstance(base, ast.Name) and base.id in ("self", "cls"):
                continue
            if node.attr not in own and node.attr not in THIRD_PARTY:
                found.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_no_module_reads_another_modules_private_names() -> None:
    found = [hit for path in sorted(PACKAGE.rglob("*.py")) for hit in private_reads(path)]
    assert found == []


def test_the_private_name_check_can_fail(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "from pdpaired.analysis.slices import _heterogeneity\n"
        "def f(cmp):\n    return cmp._data, cmp.n_cases\n"
    )
    assert private_reads(bad) == [
        "bad.py:1: pdpaired.analysis.slices._heterogeneity",
        "bad.py:3: cmp._data",
    ]


def documented_tree() -> set[str]:
    """The module paths drawn in docs/architecture.md's tree (relative to pdpaired/)."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    block = text.split("```text\n", 1)[1].split("```", 1)[0].splitlines()
    assert block[0] == "pdpaired/"
    paths, folders = set(), []
    for line in block[1:]:
        depth = (len(line) - len(line.lstrip(" "))) // 2
        name = line.split()[0]
        del folders[depth - 1 :]
        if name.endswith("/"):
            folders.append(name[:-1])
        else:
            paths.add("/".join([*folders, name]))
    return paths


def test_the_documented_tree_is_the_package() -> None:
    actual = {
        p.relative_to(PACKAGE).as_posix()
        for p in PACKAGE.rglob("*.py")
        if "__pycache__" not in p.parts
    }
    drawn = documented_tree()
    assert sorted(actual - drawn) == [], "modules missing from docs/architecture.md's tree"
    assert sorted(drawn - actual) == [], "modules in docs/architecture.md's tree that do not exist"


def test_the_tree_check_can_fail(tmp_path: Path) -> None:
    """A module the tree does not draw is found (the check reads the real package)."""
    drawn = documented_tree()
    assert "analysis/comparison.py" in drawn
    assert "pairs/dask/backend.py" in drawn
    assert "analysis/new_feature.py" not in drawn


def test_no_module_is_over_800_lines() -> None:
    sizes = {
        p.relative_to(PACKAGE).as_posix(): len(p.read_text().splitlines())
        for p in PACKAGE.rglob("*.py")
    }
    assert {k: v for k, v in sizes.items() if v > 800} == {}


def test_the_layers_contract_names_folders() -> None:
    """About a dozen lines, one layer each, and no module of a subpackage named in it."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    (layers,) = [c for c in config["contracts"] if c["type"] == "layers"]
    assert len(layers["layers"]) <= 12
    for layer in layers["layers"]:
        for name in re.split(r"[:|]", layer):
            assert "." not in name.strip()
