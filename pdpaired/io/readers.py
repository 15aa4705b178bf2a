"""Read the per-case results of evaluation harnesses into pdpaired's long table.

Two readers, one result: a long table with one row per (case, model) and the
columns ``case_id``, ``model`` and ``score`` (plus the task and any per-case
metadata), ready for ``df.paired``:

* :func:`read_lm_eval` -- EleutherAI lm-evaluation-harness ``samples_<task>_<date>.jsonl``
  files (written with ``--log_samples``);
* :func:`read_inspect` -- UK AISI inspect_ai eval logs (``.eval`` or ``.json``),
  read through ``inspect_ai.log.read_eval_log`` (``pip install "pdpaired[inspect]"``).

A record without a usable score (no value, ``None``, NaN, a failed or
invalidated sample) becomes a row with ``score`` NaN: a missing outcome that
the comparison's declared ``missing=`` policy handles (``"error"`` lists it).
No record is ever dropped, and nothing is aligned here: pairing (and its
checks) happens in ``df.paired.compare``.

Each table records where it came from in ``df.attrs``: ``"source_files"``
(the files read), ``"metric"`` / ``"scorer"`` (the score's name) and
``"higher_is_better"`` (True, False, or None when the log does not say).
"""

from __future__ import annotations

import json
import math
import os
import re
import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from pdpaired._lib.errors import find_stack_level

__all__ = ["inspect_value_to_float", "read_inspect", "read_lm_eval"]

PathArg = str | os.PathLike[str] | Sequence[str | os.PathLike[str]]

#: The record keys lm-evaluation-harness writes itself (every other key is a metric).
_LM_EVAL_FIELDS = frozenset(
    {"doc_id", "doc", "target", "arguments", "resps", "filtered_resps", "filter", "metrics",
     "doc_hash", "prompt_hash", "target_hash"}
)  # fmt: skip


def _as_paths(path: PathArg) -> list[Path]:
    if isinstance(path, (str, os.PathLike)):
        return [Path(path)]
    paths = [Path(p) for p in path]
    if not paths:
        msg = "`path` is an empty list; give a file, a directory or a list of files."
        raise ValueError(msg)
    return paths


def _number(value: Any) -> float | None:
    """Return a record's score as a float (None: no score); ``TypeError`` if not a number."""
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_, int, float, np.integer, np.floating)):
        f = float(value)
        return None if math.isnan(f) else f
    raise TypeError(type(value).__name__)


# --------------------------------------------------------------------------- lm-eval
def _lm_eval_task(name: str) -> str:
    # lm_eval.utils.get_file_task_name: between the first and the last underscore
    return name[name.find("_") + 1 : name.rfind("_")]


def _lm_eval_date(name: str) -> str:
    # lm_eval.utils.get_file_datetime
    return name[name.rfind("_") + 1 :].removesuffix(".jsonl")


def _is_samples_file(p: Path) -> bool:
    return p.is_file() and p.name.startswith("samples_") and p.name.endswith(".jsonl")


def _lm_eval_files(path: PathArg) -> list[Path]:
    """Return the samples files to read: files as given, per directory the latest run."""
    out: list[Path] = []
    for p in _as_paths(path):
        if p.is_file():
            if not p.name.endswith(".jsonl"):
                msg = f"{os.fspath(p)!r} is not an lm-evaluation-harness samples_*.jsonl file."
                raise ValueError(msg)
            out.append(p)
            continue
        if not p.is_dir():
            msg = f"No such file or directory: {os.fspath(p)!r}."
            raise FileNotFoundError(msg)
        found = sorted(q for q in p.glob("samples_*.jsonl") if q.is_file())
        if not found:  # the harness writes into <output_path>/<model_name_sanitized>/
            subdirs = sorted({q.parent for q in p.glob("*/samples_*.jsonl") if _is_samples_file(q)})
            if len(subdirs) > 1:
                names = ", ".join(repr(d.name) for d in subdirs)
                msg = (
                    f"{os.fspath(p)!r} holds the samples of several runs ({names}); give the "
                    "directory of one model's run."
                )
                raise ValueError(msg)
            found = sorted(subdirs[0].glob("samples_*.jsonl")) if subdirs else []
        if not found:
            msg = (
                f"No lm-evaluation-harness samples_<task>_<date>.jsonl files in "
                f"{os.fspath(p)!r} (the harness writes them with --log_samples)."
            )
            raise FileNotFoundError(msg)
        by_task: dict[str, list[Path]] = {}
        for q in found:
            by_task.setdefault(_lm_eval_task(q.name), []).append(q)
        for task, files in sorted(by_task.items()):
            latest = max(files, key=lambda q: _lm_eval_date(q.name))  # the harness's own rule
            older = [q.name for q in files if q != latest]
            if older:
                warnings.warn(
                    f"Task {task!r} was run {len(files)} times in {os.fspath(p)!r}: reading the "
                    f"latest, {latest.name}, and ignoring {', '.join(older)} (the harness's "
                    "own rule; give the files to read them instead).",
                    UserWarning,
                    stacklevel=find_stack_level(),
                )
            out.append(latest)
    tasks: dict[str, list[str]] = {}
    for q in out:
        tasks.setdefault(_lm_eval_task(q.name), []).append(os.fspath(q))
    repeated = {t: fs for t, fs in tasks.items() if len(fs) > 1}
    if repeated:
        t, fs = next(iter(repeated.items()))
        msg = (
            f"Task {t!r} comes from {len(fs)} files ({', '.join(fs)}): its documents would "
            "appear twice for one model; read one run per model."
        )
        raise ValueError(msg)
    return out


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    records = []
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as err:
                msg = f"{os.fspath(path)!r} line {lineno} is not JSON: {err}."
                raise ValueError(msg) from err
            if not isinstance(rec, dict) or "doc_id" not in rec:
                msg = (
                    f"{os.fspath(path)!r} line {lineno} is not an lm-evaluation-harness sample "
                    "record (no doc_id)."
                )
                raise ValueError(msg)
            records.append(rec)
    return records


def _record_metrics(rec: dict[str, Any]) -> list[str]:
    named = rec.get("metrics")
    if isinstance(named, list):
        return [str(m) for m in named]
    return [k for k in rec if k not in _LM_EVAL_FIELDS]


def _results_file(samples: Path) -> dict[str, Any] | None:
    """Return the ``results_<date>.json`` the harness wrote with these samples, if any."""
    path = samples.with_name(f"results_{_lm_eval_date(samples.name)}.json")
    try:
        out = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return out if isinstance(out, dict) else None


def read_lm_eval(
    path: PathArg,
    *,
    model: str | None = None,
    metric: str | None = None,
    tasks: Iterable[str] | None = None,
    filter: str | None = None,
) -> pd.DataFrame:
    r"""Read lm-evaluation-harness per-sample results into a long table.

    The harness writes one ``samples_<task>_<date>.jsonl`` file per task
    when run with ``--log_samples``, into ``<output_path>/<model>/``. Each
    line is one document with its per-sample metric values (``acc``,
    ``exact_match``, ...).

    Parameters
    ----------
    path : str, path-like, or a list of them
        A samples file, several files, or a results directory: the
        directory itself or the single model directory the harness created
        inside it. In a directory, a task run several times is read from
        its latest file (the harness's own rule) with a warning.
    model : str, optional
        The model label of every row. Default: the ``model_name`` the
        harness recorded in the run's ``results_<date>.json``, else the name
        of the directory holding the samples files.
    metric : str, optional
        The per-sample metric to use as ``score`` (e.g. ``"acc"``,
        ``"acc_norm"``, ``"exact_match"``). Required when the files hold
        more than one; an unknown name raises a ``ValueError`` listing the
        metrics of every task.
    tasks : iterable of str, optional
        Read only these tasks (default: every task found).
    filter : str, optional
        The harness's filter (e.g. ``"strict-match"``) when a task logs
        several (each document then appears once per filter). Required
        then; default: the one filter of each task (usually ``"none"``).

    Returns
    -------
    pandas.DataFrame
        One row per document, sorted by task and document id, with columns
        ``case_id`` (``"<task>/<doc_id>"``: document ids restart at 0 in
        every task), ``model``, ``task`` (usable as a stratum or slice
        column), ``doc_id`` and ``score`` (float; NaN where the record has
        no value for the metric). ``attrs`` records ``source_files``,
        ``metric``, ``filter`` and ``higher_is_better`` (from the results
        file, None when it does not say).

    Raises
    ------
    ValueError
        An unknown metric, task or filter (listing the available ones), a
        metric whose per-sample values are not numbers (corpus-level
        metrics such as ``bleu`` log the pair the aggregation needs, not a
        score), a file that is not a samples file.
    FileNotFoundError
        A path that does not exist, or a directory without samples files.

    See Also
    --------
    read_inspect : the same for inspect_ai logs.

    Examples
    --------
    Two runs of one task, as the harness logs them (a line per document;
    most fields left out here):

    >>> import json, tempfile
    >>> from pathlib import Path
    >>> import pandas as pd, pdpaired
    >>> from pdpaired.io import read_lm_eval
    >>> root = Path(tempfile.mkdtemp())
    >>> for name, acc in [("old", [1, 0, 0, 1]), ("new", [1, 1, 0, 1])]:
    ...     (root / name).mkdir()
    ...     lines = [json.dumps({"doc_id": i, "filter": "none", "metrics": ["acc"], "acc": a})
    ...              for i, a in enumerate(acc)]
    ...     _ = (root / name / "samples_arc_2026-01-01T00-00-00.0.jsonl").write_text(
    ...         "\n".join(lines))
    >>> old = read_lm_eval(root / "old", metric="acc")
    >>> old
      case_id model task  doc_id  score
    0   arc/0   old  arc       0    1.0
    1   arc/1   old  arc       1    0.0
    2   arc/2   old  arc       2    0.0
    3   arc/3   old  arc       3    1.0
    >>> long = pd.concat([old, read_lm_eval(root / "new", metric="acc")])
    >>> long.paired.compare("new", "old", higher_is_better=True).pairs["new"].mean()
    np.float64(0.75)
    """
    files = _lm_eval_files(path)
    wanted = None if tasks is None else ([tasks] if isinstance(tasks, str) else list(tasks))
    by_task = {_lm_eval_task(f.name): f for f in files}
    if wanted is not None:
        unknown = [t for t in wanted if t not in by_task]
        if unknown:
            msg = (
                f"`tasks`: {', '.join(map(repr, unknown))} not found; the files hold "
                f"{', '.join(map(repr, sorted(by_task)))}."
            )
            raise ValueError(msg)
        by_task = {t: by_task[t] for t in wanted}
    records = {t: _read_jsonl(f) for t, f in by_task.items()}
    available = {t: sorted({m for r in recs for m in _record_metrics(r)}) for t, recs in
                 records.items()}  # fmt: skip
    listing = "; ".join(f"{t}: {', '.join(ms) or '(none)'}" for t, ms in available.items())
    if metric is None:
        every = sorted({m for ms in available.values() for m in ms})
        if len(every) != 1:
            msg = f"Give `metric`: the samples hold several metrics ({listing})."
            raise ValueError(msg)
        metric = every[0]
    lacking = [t for t, ms in available.items() if metric not in ms]
    if len(lacking) == len(available):
        msg = f"Unknown metric {metric!r}; the samples' metrics are: {listing}."
        raise ValueError(msg)
    if lacking:
        msg = (
            f"Metric {metric!r} is not logged for task(s) {', '.join(map(repr, lacking))} "
            f"({listing}); read the tasks that have it with `tasks=`."
        )
        raise ValueError(msg)
    # the filter of each task
    chosen_filter: dict[str, str] = {}
    for t, recs in records.items():
        filters = sorted({str(r.get("filter", "none")) for r in recs})
        if filter is not None:
            if filter not in filters:
                msg = f"`filter` {filter!r} is not logged for task {t!r}; its filters: {filters}."
                raise ValueError(msg)
            chosen_filter[t] = filter
        elif len(filters) > 1:
            msg = (
                f"Task {t!r} logs each document under {len(filters)} filters {filters}; choose "
                "one with `filter=` (--lm-eval-filter on the command line)."
            )
            raise ValueError(msg)
        else:
            chosen_filter[t] = filters[0] if filters else "none"
        records[t] = [r for r in recs if str(r.get("filter", "none")) == chosen_filter[t]]
    rows: list[tuple[str, int | str, float]] = []
    for t, recs in records.items():
        for r in recs:
            try:
                value = _number(r.get(metric))
            except TypeError:
                msg = (
                    f"Metric {metric!r} of task {t!r} logs a {type(r[metric]).__name__} per "
                    f"sample (document {r['doc_id']!r}: {str(r[metric])[:60]}), not a number: "
                    "the harness aggregates it over the whole corpus, so it has no per-case "
                    "score. Choose a per-sample metric."
                )
                raise ValueError(msg) from None
            rows.append((t, r["doc_id"], np.nan if value is None else value))
    if model is None:
        names = set()
        for f in by_task.values():
            res = _results_file(f)
            name = None if res is None else res.get("model_name")
            names.add(str(name) if name else f.parent.name)
        if len(names) > 1:
            msg = (
                f"The files come from {len(names)} models ({', '.join(sorted(names))}); read "
                "each model's run separately, or give `model=`."
            )
            raise ValueError(msg)
        model = names.pop()
    hib: set[Any] = set()
    for t, f in by_task.items():
        res = _results_file(f)
        declared = (res or {}).get("higher_is_better")
        per_task = declared.get(t) if isinstance(declared, dict) else None
        flag = per_task.get(metric) if isinstance(per_task, dict) else None
        hib.add(flag if isinstance(flag, bool) else None)
    out = pd.DataFrame(rows, columns=["task", "doc_id", "score"])
    out["score"] = out["score"].astype("float64")
    out = out.sort_values(["task", "doc_id"], kind="stable", ignore_index=True)
    out.insert(0, "case_id", out["task"].astype(str) + "/" + out["doc_id"].astype(str))
    out.insert(1, "model", model)
    out.attrs.update(
        source_files=[os.fspath(by_task[t]) for t in by_task],
        metric=metric,
        filter=chosen_filter if len(set(chosen_filter.values())) > 1 else
        next(iter(chosen_filter.values()), None),
        higher_is_better=hib.pop() if len(hib) == 1 else None,
    )  # fmt: skip
    return out


# --------------------------------------------------------------------------- inspect_ai
# inspect_ai.scorer's CORRECT, INCORRECT, PARTIAL, NOANSWER and what value_to_float()
# maps them to (inspect_ai/scorer/_metric.py)
_INSPECT_GRADES = {"C": 1.0, "P": 0.5, "I": 0.0, "N": 0.0}
_INSPECT_WORDS = {"yes": 1.0, "true": 1.0, "no": 0.0, "false": 0.0}
_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")


def inspect_value_to_float(value: Any) -> float:
    """Map an inspect_ai score value to a float, as inspect's ``value_to_float()`` does.

    ``"C"`` (correct) -> 1, ``"P"`` (partial) -> 0.5, ``"I"`` (incorrect) and
    ``"N"`` (no answer) -> 0; ``"yes"``/``"true"`` -> 1 and ``"no"``/``"false"``
    -> 0 (any case); numbers and booleans -> float; a string holding a
    finite number -> that number. Where inspect falls back to 0 with a
    logged warning (any other string), this returns NaN: not a usable
    score, so a missing outcome rather than a silent failure. ``None`` and
    NaN give NaN.

    Parameters
    ----------
    value : str, int, float, bool or None

    Returns
    -------
    float

    Raises
    ------
    TypeError
        A list or dict value (a scorer that returns several values): choose
        one with ``scorer="name/key"`` in :func:`read_inspect`.

    Examples
    --------
    >>> from pdpaired.io import inspect_value_to_float
    >>> [inspect_value_to_float(v) for v in ["C", "P", "I", "N", "yes", "0.25", 3, True]]
    [1.0, 0.5, 0.0, 0.0, 1.0, 0.25, 3.0, 1.0]
    >>> inspect_value_to_float("maybe")
    nan
    """
    if isinstance(value, str):
        if value in _INSPECT_GRADES:
            return _INSPECT_GRADES[value]
        low = value.lower()
        if low in _INSPECT_WORDS:
            return _INSPECT_WORDS[low]
        if _NUMBER.match(value.strip()):
            f = float(value)
            return f if math.isfinite(f) else math.nan
        return math.nan
    try:
        number = _number(value)
    except TypeError:
        msg = f"an inspect_ai score value of type {type(value).__name__} is not one number"
        raise TypeError(msg) from None
    return math.nan if number is None else number


def _is_grade(value: Any) -> bool:
    """Tell whether a value's direction is known: a letter grade, yes/no, a boolean."""
    return isinstance(value, (bool, np.bool_)) or (
        isinstance(value, str) and (value in _INSPECT_GRADES or value.lower() in _INSPECT_WORDS)
    )


def _metadata_cell(value: Any) -> Any:
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    try:
        return json.dumps(value, sort_keys=True, default=str)
    except (TypeError, ValueError):
        return str(value)


_INSPECT_COLUMNS = ("case_id", "model", "epoch", "score", "task", "error")


def _inspect_log_paths(path: PathArg) -> list[Path]:
    from inspect_ai.log import list_eval_logs

    out: list[Path] = []
    for p in _as_paths(path):
        if p.is_file():
            out.append(p)
        elif p.is_dir():
            found = sorted(
                Path(info.name.removeprefix("file://"))
                for info in list_eval_logs(os.fspath(p.resolve()), recursive=False)
            )
            if not found:
                msg = f"No inspect_ai eval logs (*.eval, *.json) in {os.fspath(p)!r}."
                raise FileNotFoundError(msg)
            out += found
        else:
            msg = f"No such file or directory: {os.fspath(p)!r}."
            raise FileNotFoundError(msg)
    return out


def _scorer_value(scores: dict[str, Any] | None, name: str, key: str | None) -> Any:
    if not scores or name not in scores:
        return None
    value = getattr(scores[name], "value", None)
    if key is not None:
        return value.get(key) if isinstance(value, dict) else None
    return value


def _inspect_rows(log: Any, scorer: str | None, model: str | None, path: Path) -> pd.DataFrame:
    samples = list(log.samples or [])
    if not samples:
        msg = (
            f"{os.fspath(path)!r} holds no samples (status {log.status!r}): no case to read, "
            "not even as a missing outcome."
        )
        raise ValueError(msg)
    names: list[str] = []
    for s in samples:
        for k in s.scores or {}:
            if k not in names:
                names.append(k)
    # scorers no sample has a value of (each failed): the spec's, else the results'
    # (whose names are a dict-valued scorer's keys; `scorer` names the scorer)
    declared = [getattr(sc, "name", None) for sc in getattr(log.eval, "scorers", None) or []]
    if not any(declared):
        declared = [getattr(sc, "scorer", None) or getattr(sc, "name", None)
                    for sc in getattr(log.results, "scores", None) or []]  # fmt: skip
    for name in declared:
        if name and name not in names:
            names.append(str(name))
    key = None
    if scorer is None:
        if len(names) != 1:
            msg = (
                f"{os.fspath(path)!r} has {len(names)} scorers "
                f"({', '.join(map(repr, names)) or 'none'}); choose one with `scorer=` "
                "(--scorer on the command line)."
            )
            raise ValueError(msg)
        scorer = names[0]
    elif scorer not in names:
        head, _, tail = scorer.rpartition("/")
        if head in names and tail:
            scorer, key = head, tail
        else:
            msg = (
                f"Unknown scorer {scorer!r} in {os.fspath(path)!r}; its scorers: "
                f"{', '.join(map(repr, names)) or 'none'}."
            )
            raise ValueError(msg)
    label = model if model is not None else str(log.eval.model)
    task = str(log.eval.task)
    rows: list[dict[str, Any]] = []
    meta_keys: list[str] = []
    grades: set[bool] = set()
    for s in samples:
        value = _scorer_value(s.scores, scorer, key)
        if isinstance(value, dict):
            msg = (
                f"Scorer {scorer!r} gives several values per sample (keys "
                f"{', '.join(map(repr, value))}); choose one with scorer='{scorer}/<key>'."
            )
            raise ValueError(msg)
        try:
            score = inspect_value_to_float(value)
        except TypeError as exc:
            msg = f"Scorer {scorer!r}, sample {s.id!r}: {exc}."
            raise ValueError(msg) from None
        if value is not None and not math.isnan(score):
            grades.add(_is_grade(value))
        err = getattr(s, "error", None)
        if getattr(s, "invalidation", None) is not None:
            score, reason = math.nan, "invalidated"
        elif err is not None:
            reason = str(getattr(err, "message", err))
        elif value is None:
            reason = "no score"
        elif math.isnan(score):
            reason = f"score value {value!r} is not a number"
        else:
            reason = None
        row = {"case_id": s.id, "model": label, "epoch": int(s.epoch), "score": score,
               "task": task, "error": reason}  # fmt: skip
        for k, v in (s.metadata or {}).items():
            col = f"metadata_{k}" if k in _INSPECT_COLUMNS else str(k)
            if col not in meta_keys:
                meta_keys.append(col)
            row[col] = _metadata_cell(v)
        rows.append(row)
    out = pd.DataFrame(rows, columns=[*_INSPECT_COLUMNS, *meta_keys])
    out["score"] = out["score"].astype("float64")
    out["epoch"] = out["epoch"].astype("int64")
    out.attrs["scorer"] = scorer if key is None else f"{scorer}/{key}"
    out.attrs["higher_is_better"] = True if grades == {True} else None
    return out


def read_inspect(
    path: PathArg, scorer: str | None = None, *, model: str | None = None
) -> pd.DataFrame:
    """Read inspect_ai eval logs into a long table.

    Each log is read with ``inspect_ai.log.read_eval_log`` (install the
    optional extra: ``pip install "pdpaired[inspect]"``). One row per sample
    and epoch; a sample whose model call failed, that was invalidated, or
    that lacks the scorer's value keeps its row with ``score`` NaN (and the
    reason in ``error``): a missing outcome for the comparison's
    ``missing=`` policy.

    Parameters
    ----------
    path : str, path-like, or a list of them
        A log file (``.eval`` or ``.json``), several, or a log directory
        (every log in it, as ``inspect_ai.log.list_eval_logs`` finds them).
    scorer : str, optional
        The scorer whose value is the ``score``; required when the logs
        have several (an unknown name lists them). For a scorer that gives
        a dict of values, ``"scorer/key"`` picks one.
    model : str, optional
        The model label of every row; default: the model recorded in each
        log (e.g. ``"openai/gpt-4o"``).

    Returns
    -------
    pandas.DataFrame
        Columns ``case_id`` (the sample id), ``model``, ``epoch`` (the run:
        1, 2, ... with ``epochs > 1``), ``score`` (float: inspect's grades
        mapped as its ``value_to_float()`` maps them, see
        :func:`inspect_value_to_float`), ``task``, ``error`` (why the score
        is missing, else None) and one column per sample-metadata key
        (a key that clashes with these columns gets the prefix
        ``metadata_``; lists and dicts become JSON text). ``attrs`` records
        ``source_files``, ``scorer`` and ``higher_is_better`` (True when
        every value is a grade such as ``"C"``/``"I"``, else None).

    Raises
    ------
    ImportError
        inspect_ai is not installed.
    ValueError
        An unknown or ambiguous scorer (listing the scorers), a scorer with
        several values per sample and no key, or two logs that hold the same
        model's (sample, epoch).

    See Also
    --------
    read_lm_eval : the same for lm-evaluation-harness samples files.

    Notes
    -----
    With several epochs, a case has one row per epoch and model; compare
    one score per case, e.g. the mean over epochs (inspect's default
    reducer): ``df.groupby(["case_id", "model"], as_index=False)["score"].mean()``
    (a case with a missing epoch is then NaN only with ``skipna=False``).
    The command line (``pdpaired compare --inspect``) does the latter.

    Examples
    --------
    Two logs of one task, for the candidate and the baseline (needs
    inspect_ai and the logs, so not run here):

    >>> import pandas as pd, pdpaired
    >>> from pdpaired.io import read_inspect
    >>> long = pd.concat([read_inspect("logs/candidate.eval"),
    ...                   read_inspect("logs/baseline.eval")])  # doctest: +SKIP
    >>> long.paired.compare("openai/gpt-4o", "openai/gpt-4o-mini", higher_is_better=True,
    ...                     missing="as-failure").bootstrap(rng=0)  # doctest: +SKIP
    """
    try:
        from inspect_ai.log import read_eval_log
    except ImportError as err:
        msg = 'read_inspect needs inspect_ai: pip install "pdpaired[inspect]" (or inspect-ai).'
        raise ImportError(msg) from err
    frames = []
    sources = []
    for p in _inspect_log_paths(path):
        log = read_eval_log(os.fspath(p))
        frames.append(_inspect_rows(log, scorer, model, p))
        sources.append(os.fspath(p))
    out = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    if len(frames) > 1:
        scorers = {f.attrs["scorer"] for f in frames}
        hib = {f.attrs["higher_is_better"] for f in frames}
        dup = out.duplicated(["model", "case_id", "epoch"], keep=False)
        if dup.any():
            first = out.loc[dup].iloc[0]
            msg = (
                f"{int(dup.sum())} rows repeat a (model, sample, epoch), e.g. model "
                f"{first['model']!r}, sample {first['case_id']!r}, epoch {first['epoch']}: "
                f"the logs {', '.join(sources)} hold the same model's samples twice. Read "
                "each model's log separately (with `model=` to tell runs of one model apart); "
                "for one model's logs of several tasks, make the ids unique first, e.g. "
                "df['case_id'] = df['task'] + '/' + df['case_id'].astype(str)."
            )
            raise ValueError(msg)
        out.attrs["scorer"] = scorers.pop() if len(scorers) == 1 else sorted(scorers)
        out.attrs["higher_is_better"] = hib.pop() if len(hib) == 1 else None
    out.attrs["source_files"] = sources
    return out
