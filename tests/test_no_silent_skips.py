"""No silent skips: a missing extra fails in CI, and the NumPy path runs without numba.

* ``PDPAIRED_REQUIRE_EXTRAS=1`` (set by ``make test``) turns a skip for a
  missing module -- ``importorskip`` at module level or in a test -- into a
  failure, while other skips stay skips.
* With numba hidden (a ``numba`` package on ``PYTHONPATH`` whose import
  fails), ``auto`` falls back to NumPy with the same numbers bit for bit,
  ``PDPAIRED_ACCELERATOR=numba`` says numba is missing, a bad value of the
  variable is refused, and the argument-validation tests of the engines run
  (they used to be skipped with their module).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import pdpaired

from .conftest import long_table

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def env_without(*names: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in names}
    env.update(extra, MPLBACKEND="Agg")
    return env


def test_require_extras_turns_missing_module_skips_into_failures(tmp_path: Path) -> None:
    shutil.copy(HERE / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "test_module_level.py").write_text(
        "import pytest\nmod = pytest.importorskip('no_such_module_pdpaired')\n"
        "def test_a():\n    pass\n"
    )
    body = """
        import pytest
        def test_b():
            pytest.importorskip("no_such_module_pdpaired")
        def test_c():
            pytest.skip("an ordinary reason")
    """
    (tmp_path / "test_in_test.py").write_text(textwrap.dedent(body))
    cmd = [sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider",
           "--continue-on-collection-errors", "--rootdir", str(tmp_path),
           "-o", "addopts=", str(tmp_path)]  # fmt: skip
    strict = subprocess.run(
        cmd, env=env_without(PDPAIRED_REQUIRE_EXTRAS="1"), cwd=tmp_path,
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    out = strict.stdout
    assert strict.returncode == 1, out
    assert "ERROR test_module_level.py" in out
    assert "FAILED test_in_test.py::test_b" in out
    assert "SKIPPED [1] test_in_test.py" in out
    assert "an ordinary reason" in out
    assert "PDPAIRED_REQUIRE_EXTRAS is set" in out
    lax = subprocess.run(cmd, env=env_without("PDPAIRED_REQUIRE_EXTRAS"), cwd=tmp_path,
                         capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
    assert lax.returncode == 0, lax.stdout
    assert "3 skipped" in lax.stdout


@pytest.fixture(scope="module")
def no_numba(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Environment whose Python cannot import numba."""
    hide = tmp_path_factory.mktemp("hide-numba")
    (hide / "numba").mkdir()
    (hide / "numba" / "__init__.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'numba'\", name='numba')\n"
    )
    path = os.pathsep.join([str(hide), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env_without("PDPAIRED_ACCELERATOR", "PDPAIRED_REQUIRE_EXTRAS", PYTHONPATH=path)


SCRIPT = """
import json, os, sys
import numpy as np, pandas as pd
import pdpaired
from pdpaired.core.accel import engine_name
try:
    import numba  # noqa: F401
    hidden = False
except ImportError:
    hidden = True
rng = np.random.default_rng(4)
n = 60
base = rng.normal(size=n)
df = pd.DataFrame({"case_id": np.tile(np.arange(n), 2), "model": np.repeat(["A", "B"], n),
                   "score": np.r_[base + 0.3 + rng.normal(0, 0.5, n), base]})
out = {"hidden": hidden}
choice = sys.argv[1]
if choice != "-":
    os.environ["PDPAIRED_ACCELERATOR"] = choice
try:
    out["engine"] = engine_name()
    bs = df.paired.bootstrap("A", "B", higher_is_better=True, rng=3, n_resamples=500)
    rz = df.paired.randomization("A", "B", higher_is_better=True, rng=3, n_permutations=500)
    out.update(bs_engine=bs.engine, rz_engine=rz.engine,
               dist=bs.bootstrap_distribution.tolist(), pvalue=rz.pvalue,
               ci=[bs.confidence_interval.low, bs.confidence_interval.high])
except Exception as exc:
    out["error"] = f"{type(exc).__name__}: {exc}"
for kw in ({"n_resamples": 0}, {"method": "jackknife"}, {"confidence_level": 1.0}):
    try:
        df.paired.bootstrap("A", "B", higher_is_better=True, rng=3, **kw)
        out.setdefault("validation", []).append(None)
    except Exception as exc:
        out.setdefault("validation", []).append(f"{type(exc).__name__}: {exc}")
print(json.dumps(out))
"""


def run_script(env: dict[str, str], choice: str) -> dict[str, object]:
    proc = subprocess.run([sys.executable, "-c", SCRIPT, choice], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    return out


def test_numpy_path_without_numba_equals_the_numpy_engine(
    no_numba: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    hidden = run_script(no_numba, "-")  # auto
    assert hidden["hidden"] is True
    assert (hidden["engine"], hidden["bs_engine"], hidden["rz_engine"]) == ("numpy",) * 3
    # the same numbers as the NumPy engine here (and so as numba: engines are bit-identical)
    monkeypatch.setenv("PDPAIRED_ACCELERATOR", "numpy")
    rng = np.random.default_rng(4)
    n = 60
    base = rng.normal(size=n)
    df = long_table(base + 0.3 + rng.normal(0, 0.5, n), base)
    bs = df.paired.bootstrap("A", "B", higher_is_better=True, rng=3, n_resamples=500)
    rz = df.paired.randomization("A", "B", higher_is_better=True, rng=3, n_permutations=500)
    np.testing.assert_array_equal(np.array(hidden["dist"]), bs.bootstrap_distribution)
    assert hidden["pvalue"] == rz.pvalue
    assert hidden["ci"] == [bs.confidence_interval.low, bs.confidence_interval.high]
    # argument validation does not need numba
    v = hidden["validation"]
    assert isinstance(v, list)
    assert all(isinstance(m, str) and m.startswith("ValueError") for m in v), v
    assert "`n_resamples`" in v[0]
    assert "method" in v[1]
    assert "confidence_level" in v[2]


def test_numba_requested_but_missing_is_a_clear_error(no_numba: dict[str, str]) -> None:
    out = run_script(no_numba, "numba")
    assert out["hidden"] is True
    err = str(out["error"])
    assert err.startswith("ImportError: PDPAIRED_ACCELERATOR=numba but numba is not installed")
    assert "pdpaired[fast]" in err
    assert run_script(no_numba, "numpy")["engine"] == "numpy"


@pytest.mark.parametrize("value", ["gpu", "NUMBA ", " numpy"])
def test_accelerator_variable_is_validated(value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from pdpaired.core.accel import engine_name

    monkeypatch.setenv("PDPAIRED_ACCELERATOR", value)
    if value.strip().lower() in {"numba", "numpy"}:  # case and spaces are forgiven
        if value.strip().lower() == "numba":
            pytest.importorskip("numba")
        assert engine_name() == value.strip().lower()
        return
    df = long_table(np.arange(5.0), np.zeros(5))
    with pytest.raises(ValueError, match="PDPAIRED_ACCELERATOR must be 'auto', 'numba' or "
                                         "'numpy'; got 'gpu'"):  # fmt: skip
        df.paired.bootstrap("A", "B", higher_is_better=True, rng=0, n_resamples=10)


def test_engine_validation_tests_run_without_numba(no_numba: dict[str, str]) -> None:
    """The engines' argument and rule tests pass with numba hidden (not skipped)."""
    tests = [
        "tests/core/test_engine.py::test_bad_arguments",
        "tests/core/test_engine.py::test_bad_rng",
        "tests/core/test_engine.py::test_direction_rules",
        "tests/core/test_engine.py::test_bootstrap_indices_are_numpys_bounded_integers",
        "tests/core/test_randomization.py::test_randomization_bad_arguments",
        "tests/core/test_randomization.py::test_exact_binomial_bad_arguments",
    ]
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", *tests],
        env=no_numba, cwd=ROOT, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    tail = proc.stdout.strip().splitlines()[-1]
    assert proc.returncode == 0, proc.stdout[-3000:]
    # the numba-parametrized case of the index test skips, the rest pass
    assert "1 skipped" in tail, tail
    assert "could not import 'numba'" in proc.stdout
    assert int(tail.split(" passed")[0].split()[-1]) >= len(tests)
    assert pdpaired.__version__  # the in-process package is untouched


def test_engine_choice_when_the_kernels_cannot_be_imported(monkeypatch: pytest.MonkeyPatch) -> None:
    """In process (so coverage sees it): ``auto`` falls back, ``numba`` names the extra."""
    from pdpaired.core import accel as _accel

    def missing() -> None:
        raise ModuleNotFoundError("No module named 'numba'", name="numba")

    monkeypatch.setattr(_accel, "_numba_kernel", missing)
    monkeypatch.setenv("PDPAIRED_ACCELERATOR", "auto")
    assert _accel.engine_name() == "numpy"
    monkeypatch.setenv("PDPAIRED_ACCELERATOR", "numba")
    with pytest.raises(
        ImportError, match=r"numba is not installed \(pip install pdpaired\[fast\]\)"
    ):
        _accel.engine_name()
