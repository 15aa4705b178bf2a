"""The public surface: where names are shown and which import lines work.

* Every public class and function reports its public module
  (``pdpaired.BootstrapResult``, ``pdpaired.dask.DaskPairs``,
  ``pdpaired.io.read_lm_eval``), whichever file defines it, so reprs, pickles,
  the reference and the artifacts never show a file path.
* Every import line the docs, the README and the examples show runs without a
  deprecation warning.
* The old flat module paths still import, forward to the new homes and warn
  with the path to use.
* ``import pdpaired`` loads no dependency that only numbers need (scipy,
  pandera, matplotlib, jsonschema, the optional extras) and none of its own
  analysis, artifact or reader modules: a fresh interpreter shows them
  unloaded until a first number. The names loaded on first use show
  ``pdpaired.<name>`` however they are first reached (a result of the
  accessor, their defining module), and ``dir(pdpaired)`` lists them.
"""

from __future__ import annotations

import importlib
import pickle
import re
import warnings
from pathlib import Path

import pytest

import pdpaired
import pdpaired.dask
import pdpaired.io
import pdpaired.metrics
import pdpaired.polars
from pdpaired._lib.compat import MOVED

ROOT = Path(__file__).resolve().parents[1]


def _public(module: object) -> list[tuple[str, object]]:
    return [
        (name, getattr(module, name))
        for name in module.__all__  # type: ignore[attr-defined]
        if isinstance(getattr(module, name), type)
        or (callable(getattr(module, name)) and hasattr(getattr(module, name), "__code__"))
    ]


@pytest.mark.parametrize(
    ("module", "shown"),
    [(pdpaired, "pdpaired"), (pdpaired.dask, "pdpaired.dask"), (pdpaired.io, "pdpaired.io")],
    ids=lambda x: getattr(x, "__name__", x),
)
def test_public_names_report_their_public_module(module: object, shown: str) -> None:
    names = _public(module)
    assert len(names) >= 2
    assert {name: obj.__module__ for name, obj in names if obj.__module__ != shown} == {}


def test_the_polars_accessor_reports_its_public_module() -> None:
    assert pdpaired.polars.__all__ == ["PolarsPairedAccessor"]
    assert pdpaired.polars.PolarsPairedAccessor.__module__ == "pdpaired.polars"


def test_the_metrics_keep_pdpaired_metric_and_show_their_module() -> None:
    assert pdpaired.metrics.Metric is pdpaired.Metric
    assert pdpaired.Metric.__module__ == "pdpaired"
    assert pdpaired.metrics.auc_batch.__module__ == "pdpaired.metrics"


def test_a_result_shows_and_pickles_by_its_public_name() -> None:
    ci = pdpaired.ConfidenceInterval(low=-1.0, high=2.0)
    assert repr(type(ci)) == "<class 'pdpaired.ConfidenceInterval'>"
    assert pickle.loads(pickle.dumps(ci)) == ci


def _import_lines(text: str) -> list[str]:
    """`import pdpaired...` and `from pdpaired... import ...` lines, joined if parenthesized."""
    lines = [re.sub(r"^\s*(>>>|\.\.\.)\s?", "", ln) for ln in text.splitlines()]
    out, i = [], 0
    while i < len(lines):
        ln = lines[i].strip()
        if re.match(r"^(from pdpaired[\w.]* import |import pdpaired\b)", ln):
            stmt = ln.split("#")[0].rstrip()
            while stmt.count("(") > stmt.count(")") and i + 1 < len(lines):
                i += 1
                stmt += " " + lines[i].split("#")[0].strip()
            out.append(stmt)
        i += 1
    return out


DOCUMENTED = sorted(
    {
        stmt
        for path in [
            ROOT / "README.md",
            *(ROOT / "docs").rglob("*.md"),
            *(ROOT / "examples").glob("*.py"),
        ]
        if "_build" not in path.parts
        for stmt in _import_lines(path.read_text(encoding="utf-8"))
    }
)


def test_the_docs_show_import_lines() -> None:
    assert len(DOCUMENTED) >= 10
    assert "import pdpaired" in DOCUMENTED


@pytest.mark.parametrize("statement", DOCUMENTED)
def test_every_documented_import_line_works_without_a_warning(statement: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        exec(statement, {})


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_flat_path_forwards_with_a_warning_naming_the_new_one(old: str) -> None:
    module = importlib.import_module(old)
    homes = [importlib.import_module(h) for h in MOVED[old]]
    names = sorted({n for h in homes for n in getattr(h, "__all__", ())})
    assert names, old
    name = names[0]
    with pytest.warns(DeprecationWarning, match=rf"`{re.escape(old)}\.{name}` has moved"):
        value = getattr(module, name)
    assert any(getattr(h, name, None) is value for h in homes)
    with pytest.raises(AttributeError):
        module.no_such_name  # noqa: B018


def test_the_documented_old_names_still_resolve() -> None:
    """Names the earlier docs showed at their flat paths, each with a warning."""
    shown = {
        "pdpaired.comparison": "Comparison", "pdpaired.report": "verify",
        "pdpaired.slices": "adjust_pvalues", "pdpaired.pairing": "pair",
        "pdpaired.backend": "PandasPairs", "pdpaired.bootstrap": "Resampler",
        "pdpaired.measures": "MeanMeasure", "pdpaired.prediction": "CorpusMeasure",
        "pdpaired.joint": "joint_replicates", "pdpaired.multi_artifact": "multi_consistency",
        "pdpaired.randomization": "tie_tolerance", "pdpaired.planning": "summarize_design",
        "pdpaired.gate": "gate", "pdpaired.delong": "delong_test",
        "pdpaired.two_stage": "TwoStageResampler", "pdpaired.rules": "pairing_schemas",
    }  # fmt: skip
    for old, name in shown.items():
        with pytest.warns(DeprecationWarning, match="has moved"):
            getattr(importlib.import_module(old), name)
    with pytest.warns(DeprecationWarning, match="import it from `pdpaired`"):
        from pdpaired.results import BootstrapResult  # noqa: F401
    with pytest.warns(DeprecationWarning, match="import it from `pdpaired.results.base`"):
        from pdpaired.results import Provenance  # noqa: F401


def test_import_loads_no_dependency_that_is_only_needed_for_numbers() -> None:
    """``import pdpaired`` (and its accessor) leaves scipy, pandera, matplotlib,
    jsonschema and every optional extra unimported until a method needs them:
    they cost about a second, which a notebook's first cell or ``pdpaired --help``
    should not pay. Checked in a fresh interpreter, where nothing else imported them."""
    import json
    import subprocess
    import sys

    heavy = ["scipy", "pandera", "matplotlib", "jsonschema", "dask", "numba", "polars",
             "statsmodels", "sklearn", "inspect_ai", "pdpaired.analysis", "pdpaired.artifacts",
             "pdpaired.core", "pdpaired.io", "pdpaired.results"]  # fmt: skip
    code = (
        "import json, sys, pandas, pdpaired\n"
        "pandas.DataFrame({'x': [1]}).paired\n"
        "loaded = {m.split('.')[0] for m in sys.modules} | {'.'.join(m.split('.')[:2]) "
        "for m in sys.modules if m.startswith('pdpaired.')}\n"
        f"print(json.dumps(sorted(loaded & set({heavy!r}))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120)  # fmt: skip
    assert json.loads(out.stdout) == []
    # and a first number loads what it needs: the check above is not vacuous
    code_used = code.replace(".paired\n", ".paired\nimport pdpaired.core.bootstrap as b; "
                             "b.ndtri(0.5)\n")  # fmt: skip
    used = subprocess.run([sys.executable, "-c", code_used], capture_output=True, text=True,
                          check=True, timeout=120)  # fmt: skip
    assert json.loads(used.stdout) == ["pdpaired.core", "pdpaired.results", "scipy"]


def test_names_loaded_on_first_use_show_pdpaired_however_they_are_reached() -> None:
    """A result of the accessor is ``pdpaired.BootstrapResult`` before anyone looks
    ``pdpaired.BootstrapResult`` up, and so is every lazily loaded name imported
    from the file that defines it (a fresh interpreter each: nothing loaded before)."""
    import json
    import subprocess
    import sys

    lazy = pdpaired._ON_FIRST_USE  # type: ignore[attr-defined]
    code = (
        "import json, importlib, pandas, pdpaired\n"
        "df = pandas.DataFrame({'case_id': [1, 1, 2, 2, 3, 3], 'model': ['a', 'b'] * 3,\n"
        "                       'score': [1.0, 0.0, 1.0, 1.0, 0.0, 0.5]})\n"
        "res = df.paired.bootstrap('a', 'b', higher_is_better=True, n_resamples=99, rng=0)\n"
        "shown = {'result': type(res).__module__ + '.' + type(res).__qualname__}\n"
        f"for name, home in {lazy!r}.items():\n"
        "    if name not in ('io', 'metrics'):  # the two modules\n"
        "        shown[name] = getattr(importlib.import_module(home), name).__module__\n"
        "print(json.dumps(shown))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120)  # fmt: skip
    shown = json.loads(out.stdout)
    assert shown.pop("result") == "pdpaired.BootstrapResult"
    assert shown == dict.fromkeys(set(lazy) - {"io", "metrics"}, "pdpaired")
    # the table is the public namespace: every name of __all__ is eager or in it
    eager = {"ArtifactError", "DegenerateDataWarning", "IndependenceWarning", "PairingError",
             "PairedAccessor", "__version__"}  # fmt: skip
    assert set(pdpaired.__all__) == eager | set(lazy)
    assert set(pdpaired.__all__) <= set(dir(pdpaired))
    assert pdpaired.io is importlib.import_module("pdpaired.io")
    with pytest.raises(AttributeError, match="module 'pdpaired' has no attribute 'nope'"):
        pdpaired.nope  # noqa: B018
