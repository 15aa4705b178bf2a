"""Read promptfoo eval results into pdpaired's long table.

:func:`read_promptfoo` reads the ``results.json`` that ``promptfoo eval
--output results.json`` writes: one row per (test case, provider), paired by
the test's index in the config (promptfoo's ``testIdx``). The score is the
result's own score, or a named assertion metric's (``metric=``); the pass
flag is a column of its own. A result that errored, or that lacks the score,
keeps its row with ``score`` NaN and the reason in ``error``.
"""

from __future__ import annotations

import json
import math
import os
import warnings
from pathlib import Path
from typing import Any

import pandas as pd

from pdpaired._lib.errors import find_stack_level
from pdpaired.io._common import PathArg, as_number, as_paths

__all__ = ["read_promptfoo"]

_COLUMNS = ("case_id", "model", "score", "passed", "error", "prompt", "description", "vars")

#: promptfoo's ResultFailureReason: NONE 0, ASSERT 1 (an assertion failed), ERROR 2
_FAILURE_ERROR = 2


def _load(path: Path) -> list[dict[str, Any]]:
    """Return the result records of one ``results.json``, each checked for its keys."""
    name = os.fspath(path)
    if not path.is_file():
        msg = f"No such file: {name!r}." if not path.exists() else (
            f"{name!r} is not a file; give promptfoo's results.json.")  # fmt: skip
        raise FileNotFoundError(msg)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, RecursionError) as err:  # JSONDecodeError and UnicodeDecodeError
        why = "nested too deeply" if isinstance(err, RecursionError) else str(err)[:200]
        msg = f"{name!r} is not JSON: {why}."
        raise ValueError(msg) from None
    inner = doc.get("results") if isinstance(doc, dict) else None
    records = inner.get("results") if isinstance(inner, dict) else None
    if not isinstance(records, list):
        msg = (
            f"{name!r} is not a promptfoo results file: it lacks the list "
            "results.results (write one with `promptfoo eval --output results.json`)."
        )
        raise ValueError(msg)
    if not records:
        msg = f"{name!r} holds no results: no case to read, not even as a missing outcome."
        raise ValueError(msg)
    for i, rec in enumerate(records):
        if not isinstance(rec, dict):
            msg = f"{name!r}: results.results[{i}] is a {type(rec).__name__}, not a result."
            raise ValueError(msg)
        idx = rec.get("testIdx")
        if not isinstance(idx, int) or isinstance(idx, bool) or idx < 0:
            msg = (
                f"{name!r}: results.results[{i}] has no test index (testIdx {idx!r}); "
                "pdpaired pairs the providers' results by it."
            )
            raise ValueError(msg)
        if _provider(rec) is None:
            msg = f"{name!r}: results.results[{i}] names no provider (provider.id or .label)."
            raise ValueError(msg)
    return records


def _provider(rec: dict[str, Any]) -> str | None:
    p = rec.get("provider")
    if isinstance(p, str):
        return p or None
    if isinstance(p, dict):
        for key in ("label", "id"):
            if isinstance(p.get(key), str) and p[key]:
                return str(p[key])
    return None


def _prompt(rec: dict[str, Any]) -> str | None:
    p = rec.get("prompt")
    if isinstance(p, dict):
        for key in ("label", "raw"):
            if isinstance(p.get(key), str):
                return str(p[key])
    return None


def _test_text(rec: dict[str, Any]) -> tuple[str | None, str]:
    """Return the test's description and its vars as JSON text (keys sorted)."""
    case = rec.get("testCase")
    case = case if isinstance(case, dict) else {}
    desc = case.get("description")
    variables = rec.get("vars", case.get("vars"))
    text = json.dumps(variables if variables is not None else {}, sort_keys=True, default=str)
    return (str(desc) if desc is not None else None), text


def _named_scores(rec: dict[str, Any]) -> dict[str, Any]:
    named = rec.get("namedScores")
    if not isinstance(named, dict):
        grading = rec.get("gradingResult")
        named = grading.get("namedScores") if isinstance(grading, dict) else None
    return named if isinstance(named, dict) else {}


def _is_error(rec: dict[str, Any]) -> bool:
    reason = rec.get("failureReason")
    if isinstance(reason, int) and not isinstance(reason, bool):
        return reason == _FAILURE_ERROR
    # a file without failureReason: an error message and no grading at all
    return bool(rec.get("error")) and not rec.get("gradingResult")


def _error_text(rec: dict[str, Any]) -> str:
    err = rec.get("error")
    response = rec.get("response")
    if not err and isinstance(response, dict):
        err = response.get("error")
    if not err:
        return "error"
    lines = str(err).strip().splitlines()
    return lines[0] if lines else "error"  # the message, not the stack trace below it


def _row(rec: dict[str, Any], metric: str | None, where: str) -> dict[str, Any]:
    desc, variables = _test_text(rec)
    row: dict[str, Any] = {"case_id": rec["testIdx"], "model": _provider(rec), "score": math.nan,
                           "passed": math.nan, "error": None, "prompt": _prompt(rec),
                           "description": desc, "vars": variables}  # fmt: skip
    if _is_error(rec):
        row["error"] = _error_text(rec)
        return row
    success = rec.get("success")
    if not isinstance(success, bool):
        msg = f"{where}: `success` is {success!r}, not true or false."
        raise ValueError(msg)
    row["passed"] = float(success)
    if metric is None:
        value = rec.get("score")
        if value is None and isinstance(rec.get("gradingResult"), dict):
            value = rec["gradingResult"].get("score")
        label = "score"
    else:
        value = _named_scores(rec).get(metric)
        label = f"named score {metric!r}"
    try:
        number = as_number(value)
    except TypeError:
        msg = f"{where}: the {label} is a {type(value).__name__} ({str(value)[:60]}), not a number."
        raise ValueError(msg) from None
    except ValueError as err:
        msg = f"{where}: the {label}: {err}."
        raise ValueError(msg) from None
    if number is None:
        row["error"] = "no score" if metric is None else f"no {metric!r} named score"
    else:
        row["score"] = number
    return row


def _check_tests(rows: list[dict[str, Any]], sources: list[str]) -> None:
    """Refuse a test index that stands for different tests in different results."""
    seen: dict[int, dict[str, Any]] = {}
    for r in rows:
        first = seen.setdefault(r["case_id"], r)
        if (first["description"], first["vars"]) != (r["description"], r["vars"]):
            msg = (
                f"Test {r['case_id']} is not the same test for every result of "
                f"{', '.join(map(repr, sources))}: for {first['model']!r} it is "
                f"{first['description']!r} with vars {first['vars'][:120]}, for "
                f"{r['model']!r} {r['description']!r} with vars {r['vars'][:120]}. Read "
                "results of the same tests (the same config) together."
            )
            raise ValueError(msg)


def _absent_rows(rows: list[dict[str, Any]], sources: list[str]) -> list[dict[str, Any]]:
    """Rows (score NaN) for the (test, provider) pairs no result holds, with a warning."""
    have = {(r["case_id"], r["model"]) for r in rows}
    first = {}
    for r in rows:
        first.setdefault(r["case_id"], r)
    models = list(dict.fromkeys(r["model"] for r in rows))
    absent = [(i, m) for i in sorted(first) for m in models if (i, m) not in have]
    if not absent:
        return []
    shown = ", ".join(f"(test {i}, {m!r})" for i, m in absent[:10])
    more = f", ... ({len(absent) - 10} more)" if len(absent) > 10 else ""
    warnings.warn(
        f"{', '.join(map(repr, sources))} lack(s) {len(absent)} of the "
        f"{len(first) * len(models)} (test, provider) results ({len(first)} tests x "
        f"{len(models)} providers): {shown}{more}. They are missing outcomes (score NaN), "
        "for the comparison's `missing=` policy.",
        UserWarning,
        stacklevel=find_stack_level(),
    )
    return [{**first[i], "model": m, "score": math.nan, "passed": math.nan, "prompt": None,
             "error": "absent from the results"} for i, m in absent]  # fmt: skip


def read_promptfoo(path: PathArg, *, metric: str | None = None) -> pd.DataFrame:
    r"""Read promptfoo eval results (``results.json``) into a long table.

    ``promptfoo eval --output results.json`` writes one result per test case
    and provider (and prompt). Each becomes one row, paired across providers
    by the test's index in the config: the same test has the same index for
    every provider of an eval, and in two evals of the same config.

    Parameters
    ----------
    path : str, path-like, or a list of them
        A ``results.json``, or several (e.g. one eval per provider of the same
        config); each must hold promptfoo's ``results.results`` list.
    metric : str, optional
        A named metric (an assertion's ``metric:``, promptfoo's
        ``namedScores``) to use as ``score``. Default: the result's own score
        (the weighted mean of its assertions' scores). A result whose test
        has no assertion with this metric keeps its row with ``score`` NaN.

    Returns
    -------
    pandas.DataFrame
        One row per (test, provider), sorted by test and then in the file's
        order of providers, with columns ``case_id`` (the test's index,
        promptfoo's ``testIdx``), ``model`` (the provider's ``label``, else
        its ``id``; when a provider ran several prompts, ``"[provider]
        prompt label"`` for every row, as promptfoo heads its table's
        columns), ``score`` (float), ``passed`` (1.0 when every assertion
        passed, 0.0 when one failed: promptfoo's ``success``), ``error`` (why
        ``score`` and ``passed`` are NaN, else missing), ``prompt`` (the
        prompt's label), ``description`` (the test's) and ``vars`` (the
        test's variables as JSON text). A result that errored (promptfoo's
        ``failureReason`` 2: the provider failed, a transform threw) has
        ``score`` and ``passed`` NaN and the error's message in ``error``;
        so does every (test, provider) no result holds (an eval stopped
        early), with a warning: missing outcomes for the comparison's
        ``missing=`` policy. ``attrs`` records ``source_files``, ``metric``
        (``"score"`` or the named metric) and ``higher_is_better`` (True).

    Raises
    ------
    ValueError
        A file that is not JSON or not promptfoo's results (naming the file
        and what is wrong), a result without a test index or provider, a
        score that is not a number, an unknown ``metric`` (listing the named
        metrics), a (test, provider) that two results hold, or one test
        index that stands for different tests (description or vars) in
        different results.
    FileNotFoundError
        A path that does not exist.

    See Also
    --------
    read_inspect, read_lm_eval : the same for inspect_ai and
        lm-evaluation-harness logs.

    Notes
    -----
    To compare pass rates rather than scores, use the ``passed`` column as
    the score: ``df.assign(score=df["passed"])``.

    Examples
    --------
    A promptfoo ``results.json`` (most fields left out here) for two
    providers on two tests; the candidate's second call errored:

    >>> import json, tempfile
    >>> from pathlib import Path
    >>> import pdpaired
    >>> from pdpaired.io import read_promptfoo
    >>> def result(test, provider, score, error=None):
    ...     return {"testIdx": test, "provider": {"id": "echo", "label": provider},
    ...             "vars": {"q": test}, "score": score, "success": score == 1,
    ...             "failureReason": 2 if error else (0 if score == 1 else 1),
    ...             "error": error, "namedScores": {}}
    >>> results = [result(0, "old", 1), result(0, "new", 1),
    ...            result(1, "old", 0), result(1, "new", 0, "Error: timeout")]
    >>> path = Path(tempfile.mkdtemp()) / "results.json"
    >>> _ = path.write_text(json.dumps({"results": {"version": 3, "results": results}}))
    >>> read_promptfoo(path)[["case_id", "model", "score", "passed", "error"]]
       case_id model  score  passed           error
    0        0   old    1.0     1.0             NaN
    1        0   new    1.0     1.0             NaN
    2        1   old    0.0     0.0             NaN
    3        1   new    NaN     NaN  Error: timeout
    """
    files = as_paths(path)
    sources = [os.fspath(p) for p in files]
    rows: list[dict[str, Any]] = []
    named: set[str] = set()
    for p in files:
        for i, rec in enumerate(_load(p)):
            named.update(map(str, _named_scores(rec)))
            rows.append(_row(rec, metric, f"{os.fspath(p)!r}: results.results[{i}]"))
    if metric is not None and metric not in named:
        msg = (
            f"Unknown metric {metric!r}; the results' named metrics (an assertion's "
            f"`metric:`) are: {', '.join(map(repr, sorted(named))) or 'none'}."
        )
        raise ValueError(msg)
    prompts: dict[str, set[Any]] = {}
    for r in rows:
        prompts.setdefault(r["model"], set()).add(r["prompt"])
    if any(len(ps) > 1 for ps in prompts.values()):
        for r in rows:
            r["model"] = f"[{r['model']}] {r['prompt']}"
    _check_tests(rows, sources)
    out = pd.DataFrame(rows, columns=list(_COLUMNS))
    dup = out.duplicated(["case_id", "model"], keep=False)
    if dup.any():
        first = out.loc[dup].iloc[0]
        msg = (
            f"{int(dup.sum())} results repeat a (test, provider), e.g. test "
            f"{first['case_id']} of {first['model']!r}, in {', '.join(map(repr, sources))}: "
            "one case would have two scores. Read each eval once, and one eval per provider "
            "and prompt."
        )
        raise ValueError(msg)
    absent = _absent_rows(rows, sources)
    if absent:
        out = pd.concat([out, pd.DataFrame(absent, columns=list(_COLUMNS))], ignore_index=True)
    order = {m: k for k, m in enumerate(dict.fromkeys(out["model"]))}
    out = out.assign(_order=out["model"].map(order))
    out = out.sort_values(["case_id", "_order"], kind="stable", ignore_index=True)
    out = out.drop(columns="_order")
    out["case_id"] = out["case_id"].astype("int64")
    out["score"] = out["score"].astype("float64")
    out["passed"] = out["passed"].astype("float64")
    out.attrs.update(source_files=sources, metric="score" if metric is None else metric,
                     higher_is_better=True)  # fmt: skip
    return out
