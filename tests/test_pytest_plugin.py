"""The pytest plugin: ``paired_gate`` fails a test with the gate's reason.

* In process, :func:`pdpaired.pytest_plugin.check_gate` returns the report
  when the gate passes and fails the test (``pytest.fail``, no traceback)
  with the gate's reason when it fails; column names configure the
  accessor and every other keyword reaches the report.
* In a pytest subprocess, the fixture works with ``-p
  pdpaired.pytest_plugin`` and, where pdpaired is installed, through the
  ``pytest11`` entry point alone: a passing and a failing gate give exit
  code 1, one test failed with the verdict's sentence.
* The entry point's module imports neither pdpaired nor pandas, so every
  pytest session where pdpaired is installed pays nothing for the plugin
  until a test asks for the fixture.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
import tomllib
from importlib.metadata import entry_points
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pdpaired.pytest_plugin import check_gate

from .conftest import long_table

ROOT = Path(__file__).resolve().parents[1]

#: A table where "new" beats "old" by about 0.4 on every one of 40 cases.
GATE_TESTS = """
    import pandas as pd

    n = 40
    df = pd.DataFrame({
        "case_id": list(range(n)) * 2,
        "model": ["new"] * n + ["old"] * n,
        "acc": [0.9 + (i % 5) / 100 for i in range(n)] + [0.5 + (i % 7) / 100 for i in range(n)],
    })
    KW = dict(score="acc", higher_is_better=True, n_resamples=1000, n_permutations=500, rng=0)

    def test_new_ships(paired_gate):
        rep = paired_gate(df, "new", "old", **KW)
        assert rep.gate("not-a-better").verdict == "a_better"

    def test_old_does_not_ship(paired_gate):
        paired_gate(df, "old", "new", **KW)
"""


def run_pytest(
    tmp_path: Path, *args: str, autoload: bool = True
) -> subprocess.CompletedProcess[str]:
    """Run pytest on ``tmp_path``'s test files, without the repository's configuration."""
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    env["MPLBACKEND"] = "Agg"
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    if autoload:
        env.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)
    else:
        env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    cmd = [sys.executable, "-m", "pytest", "-q", "-rf", "-p", "no:cacheprovider", "-W", "error",
           "--rootdir", str(tmp_path), "-c", os.devnull, *args, str(tmp_path)]  # fmt: skip
    return subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300, check=False)  # fmt: skip


def assert_one_pass_one_gate_failure(proc: subprocess.CompletedProcess[str]) -> None:
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "1 failed, 1 passed" in out, out
    assert "FAILED test_gate.py::test_old_does_not_ship" in out, out
    assert "Release gate fail_on='not-a-better' failed. Verdict b_better: " in out, out
    assert "B (new) is better than A (old)" in out, out
    assert "A is not shown better, so the gate fails." in out, out


def registered() -> list[str]:
    return [ep.value for ep in entry_points(group="pytest11") if ep.name == "pdpaired"]


# --------------------------------------------------------------------------- in process
@pytest.fixture
def better() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    base = rng.normal(size=60)
    return long_table(base + 1.0 + rng.normal(0, 0.2, size=60), base, names=("new", "old"))


def test_a_passing_gate_returns_the_report(better: pd.DataFrame) -> None:
    rep = check_gate(better, "new", "old", higher_is_better=True, n_resamples=500,
                     n_permutations=200, rng=0)  # fmt: skip
    assert rep.gate("not-a-better").passed
    assert rep.bootstrap.n_resamples == 500
    assert rep.seed == 0


def test_a_failing_gate_fails_the_test_with_its_reason(better: pd.DataFrame) -> None:
    kw = {"higher_is_better": True, "n_resamples": 500, "n_permutations": 200, "rng": 0}
    expected = check_gate(better, "new", "old", **kw)  # the same report, from the other side
    with pytest.raises(pytest.fail.Exception) as info:
        check_gate(better, "old", "new", **kw)
    assert not info.value.pytrace
    failed = "Release gate fail_on='not-a-better' failed. Verdict b_better"
    assert str(info.value).startswith(failed)
    assert "B (new) is better than A (old)" in str(info.value)
    # the lenient gate passes the same comparison's mirror image
    assert check_gate(better, "new", "old", fail_on="b-better", **kw).gate("b-better").passed
    assert expected.gate("not-a-better").verdict == "a_better"


def test_column_names_configure_the_accessor(better: pd.DataFrame) -> None:
    renamed = better.rename(columns={"case_id": "id", "model": "system", "score": "acc"})
    kw = {"higher_is_better": True, "n_resamples": 300, "n_permutations": 0, "rng": 1}
    by_kw = check_gate(renamed, "new", "old", case="id", model="system", score="acc", **kw)
    configured = renamed.paired(case="id", model="system", score="acc")
    by_accessor = check_gate(configured, "new", "old", **kw)
    assert by_kw.bootstrap.confidence_interval == by_accessor.bootstrap.confidence_interval
    with pytest.raises(TypeError, match=r"column names \(score\) configure a table's accessor"):
        check_gate(configured, "new", "old", score="acc", **kw)


def test_bad_gate_input_errors_instead_of_passing(better: pd.DataFrame) -> None:
    kw = {"higher_is_better": True, "n_resamples": 200, "n_permutations": 0, "rng": 0}
    with pytest.raises(ValueError, match="`fail_on` must be one of"):
        check_gate(better, "new", "old", fail_on="a-worse", **kw)
    with pytest.raises(ValueError, match="needs a noninferiority margin"):
        check_gate(better, "new", "old", fail_on="not-noninferior", **kw)
    with pytest.raises(TypeError, match="no_such_option"):
        check_gate(better, "new", "old", no_such_option=1, **kw)


def test_the_fixture_is_check_gate(request: pytest.FixtureRequest) -> None:
    """pdpaired's own suite gets the fixture from the entry point."""
    if not registered():
        pytest.skip("the pytest11 entry point is not installed here (pip install -e . adds it)")
    assert request.getfixturevalue("paired_gate") is check_gate


# --------------------------------------------------------------------------- pytest sessions
def test_the_fixture_fails_a_test_with_p(tmp_path: Path) -> None:
    (tmp_path / "test_gate.py").write_text(textwrap.dedent(GATE_TESTS))
    assert_one_pass_one_gate_failure(
        run_pytest(tmp_path, "-p", "pdpaired.pytest_plugin", autoload=False)
    )
    # without the plugin there is no fixture
    off = run_pytest(tmp_path, autoload=False)
    assert off.returncode == 1
    assert "fixture 'paired_gate' not found" in off.stdout


def test_the_documented_test_file_gives_the_documented_failure(tmp_path: Path) -> None:
    page = (ROOT / "docs" / "ci.md").read_text()
    (example,) = [b for b in re.findall(r"```python\n(.*?)```", page, re.S) if "def test_" in b]
    (shown,) = [line for line in page.splitlines() if line.startswith("Release gate fail_on=")]
    (tmp_path / "test_release_gate.py").write_text(example)
    proc = run_pytest(tmp_path, "-p", "pdpaired.pytest_plugin", autoload=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "1 failed, 1 passed" in proc.stdout
    assert "FAILED test_release_gate.py::test_logreg_ships" in proc.stdout
    assert shown in proc.stdout.splitlines()


def test_pyproject_declares_the_entry_point() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["entry-points"]["pytest11"] == {"pdpaired": "_pdpaired_pytestplugin"}
    assert "_pdpaired_pytestplugin" in project["tool"]["setuptools"]["py-modules"]
    assert (ROOT / "_pdpaired_pytestplugin.py").is_file()


def test_the_entry_point_loads_the_fixture_in_every_session(tmp_path: Path) -> None:
    if not registered():
        pytest.skip(
            "the pytest11 entry point `pdpaired` is not installed in this environment "
            "(an editable install older than the entry point): pip install -e . registers it"
        )
    assert registered() == ["_pdpaired_pytestplugin"]
    (tmp_path / "test_gate.py").write_text(textwrap.dedent(GATE_TESTS))
    assert_one_pass_one_gate_failure(run_pytest(tmp_path))
    # -p with the public path beside the entry point: both load, nothing clashes
    assert_one_pass_one_gate_failure(run_pytest(tmp_path, "-p", "pdpaired.pytest_plugin"))
    off = run_pytest(tmp_path, "-p", "no:pdpaired")
    assert off.returncode == 1
    assert "fixture 'paired_gate' not found" in off.stdout


def test_the_entry_point_imports_neither_pdpaired_nor_pandas(tmp_path: Path) -> None:
    """In a fresh interpreter, and in a pytest session that does not use the fixture."""
    code = (
        "import json, sys, _pdpaired_pytestplugin\n"
        "print(json.dumps(sorted(m for m in ('pdpaired', 'pandas', 'numpy') if m in sys.modules)))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         cwd=tmp_path, check=True, timeout=120)  # fmt: skip
    assert json.loads(out.stdout) == []
    if not registered():
        return
    (tmp_path / "test_light.py").write_text(
        "import sys\n\ndef test_nothing_heavy():\n"
        "    assert 'pdpaired' not in sys.modules\n    assert 'pandas' not in sys.modules\n"
    )
    light = run_pytest(tmp_path)
    assert light.returncode == 0, light.stdout + light.stderr


def test_the_public_module_loads_no_more_than_import_pdpaired(tmp_path: Path) -> None:
    code = (
        "import json, sys, {mod}\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('pdpaired.') "
        "and m != 'pdpaired.pytest_plugin')))"
    )
    runs = [
        subprocess.run(
            [sys.executable, "-c", code.format(mod=mod)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=True,
            timeout=120,
        )
        for mod in ("pdpaired", "pdpaired.pytest_plugin")
    ]
    got = [json.loads(run.stdout) for run in runs]
    assert got[0] == got[1]
