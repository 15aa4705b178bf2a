"""Read lm-evaluation-harness per-sample logs into pdpaired's long table.

:func:`read_lm_eval` reads the ``samples_<task>_<date>.jsonl`` files that
EleutherAI's lm-evaluation-harness writes with ``--log_samples``: it finds the
latest run of each task in a directory (the harness's own rule), picks the
per-sample metric and filter, and names the model after the run's
``results_<date>.json``. A document without a value for the metric keeps its
row with ``score`` NaN, a missing outcome for the comparison's ``missing=``
policy.
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from pdpaired._lib.errors import find_stack_level
from pdpaired.io._common import PathArg, as_number, as_paths

__all__ = ["read_lm_eval"]

#: The record keys lm-evaluation-harness writes itself (every other key is a metric).
_LM_EVAL_FIELDS = frozenset(
    {"doc_id", "doc", "target", "arguments", "resps", "filtered_resps", "filter", "metrics",
     "doc_hash", "prompt_hash", "target_hash"}
)  # fmt: skip


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
    for p in as_paths(path):
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
            except (ValueError, RecursionError) as err:  # JSONDecodeError is a ValueError
                why = "nested too deeply" if isinstance(err, RecursionError) else str(err)[:200]
                msg = f"{os.fspath(path)!r} line {lineno} is not JSON: {why}."
                raise ValueError(msg) from None
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


def _absent_documents(
    task: str, path: Path, recs: list[dict[str, Any]], res: dict[str, Any] | None
) -> list[tuple[str, int | str, float]]:
    """Rows (score NaN) for the documents the run's results file counts but the samples lack.

    The harness's ``results_<date>.json`` records, per task, the number of
    documents evaluated (``n-samples`` / ``effective``), numbered from 0. A
    samples file that holds fewer (a run stopped early, a file cut short)
    gets a missing outcome for each absent number, with a warning naming
    them; when its ids are not such numbers, only the counts are said.
    """
    counts = (res or {}).get("n-samples")
    entry = counts.get(task) if isinstance(counts, dict) else None
    effective = entry.get("effective") if isinstance(entry, dict) else None
    if not isinstance(effective, int) or isinstance(effective, bool):
        return []
    have = {r["doc_id"] for r in recs}
    if len(have) >= effective:
        return []
    name = os.fspath(path)
    numbered = all(isinstance(d, int) and 0 <= d < effective for d in have)
    if not numbered:
        warnings.warn(
            f"{name!r} holds {len(have)} documents of task {task!r}, while its results file "
            f"counts {effective} evaluated; the others cannot be named (the ids are not the "
            "harness's numbers 0 .. n-1) and are not read.",
            UserWarning,
            stacklevel=find_stack_level(),
        )
        return []
    absent = [d for d in range(effective) if d not in have]
    shown = ", ".join(map(str, absent[:10])) + (f", ... ({len(absent) - 10} more)"
                                                 if len(absent) > 10 else "")  # fmt: skip
    warnings.warn(
        f"{name!r} lacks {len(absent)} of the {effective} documents of task {task!r} its "
        f"results file counts (doc_id {shown}). They are missing outcomes (score NaN), for "
        "the comparison's `missing=` policy.",
        UserWarning,
        stacklevel=find_stack_level(),
    )
    return [(task, d, np.nan) for d in absent]


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
        no value for the metric, and for each document the results file
        counts but the samples file lacks, with a warning). ``attrs`` records ``source_files``,
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
                value = as_number(r.get(metric))
            except TypeError:
                msg = (
                    f"Metric {metric!r} of task {t!r} logs a {type(r[metric]).__name__} per "
                    f"sample (document {r['doc_id']!r}: {str(r[metric])[:60]}), not a number: "
                    "the harness aggregates it over the whole corpus, so it has no per-case "
                    "score. Choose a per-sample metric."
                )
                raise ValueError(msg) from None
            except ValueError as err:
                msg = (
                    f"{os.fspath(by_task[t])!r}, document {r['doc_id']!r}: metric {metric!r}: "
                    f"{err}."
                )
                raise ValueError(msg) from None
            rows.append((t, r["doc_id"], np.nan if value is None else value))
    results = {t: _results_file(f) for t, f in by_task.items()}  # each read once
    for t, f in by_task.items():
        rows += _absent_documents(t, f, records[t], results[t])
    if model is None:
        names = set()
        for t, f in by_task.items():
            res = results[t]
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
    for t in by_task:
        declared = (results[t] or {}).get("higher_is_better")
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
