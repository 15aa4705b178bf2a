"""after_import: a module imported right after another one is, without importing it first."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pdpaired._lib.after_import import _Waiting, after_import


@pytest.fixture
def libs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Two throwaway top-level modules: ``lib_first`` (a package) and ``lib_then``."""
    (tmp_path / "lib_first").mkdir()
    (tmp_path / "lib_first" / "__init__.py").write_text("import lib_first.part\nVALUE = 1\n")
    (tmp_path / "lib_first" / "part.py").write_text("")
    (tmp_path / "lib_first" / "data.txt").write_text("payload")
    # the module run afterwards sees the first one complete
    (tmp_path / "lib_then.py").write_text("import lib_first\nSEEN = lib_first.VALUE\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    before = list(sys.meta_path)
    yield tmp_path
    sys.meta_path[:] = before
    for name in ("lib_first", "lib_first.part", "lib_then", "lib_absent"):
        sys.modules.pop(name, None)


def waiting() -> list[_Waiting]:
    return [f for f in sys.meta_path if isinstance(f, _Waiting)]


def test_the_module_runs_after_the_first_import_and_only_then(libs: Path) -> None:
    before = len(waiting())
    after_import("lib_first", "lib_then")
    after_import("lib_first", "lib_then")  # asked twice: one finder
    assert len(waiting()) == before + 1
    assert "lib_then" not in sys.modules
    first = importlib.import_module("lib_first")
    assert sys.modules["lib_then"].SEEN == 1
    assert len(waiting()) == before  # the finder is gone
    # the library keeps its own loader, which still reads its files
    assert type(first.__loader__).__module__ != "pdpaired._lib.after_import"
    assert first.__spec__.loader is first.__loader__
    assert first.__loader__.get_data(str(libs / "lib_first" / "data.txt")) == b"payload"


def test_at_once_when_imported_and_never_when_blocked_or_absent(
    libs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    importlib.import_module("lib_first")
    after_import("lib_first", "lib_then")  # imported already: at once
    assert "lib_then" in sys.modules
    del sys.modules["lib_then"]
    monkeypatch.setitem(sys.modules, "lib_blocked", None)  # as if not installed
    after_import("lib_blocked", "lib_then")
    assert "lib_then" not in sys.modules
    after_import("lib_absent", "lib_then")
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("lib_absent")
    assert "lib_then" not in sys.modules


def test_the_wrapped_loader_answers_as_the_library_s_own(libs: Path) -> None:
    from pdpaired._lib.after_import import _ThenImport

    spec = importlib.util.find_spec("lib_first")
    proxy = _ThenImport(spec.loader, "lib_then")
    assert proxy.get_filename("lib_first") == spec.loader.get_filename("lib_first")
    module = proxy.create_module(spec) or importlib.util.module_from_spec(spec)
    module.__spec__ = None  # a module without a spec is still run, then the other one
    sys.modules["lib_first"] = module
    proxy.exec_module(module)
    assert module.VALUE == 1
    assert sys.modules["lib_then"].SEEN == 1
