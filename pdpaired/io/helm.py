"""Read HELM per-instance statistics into pdpaired's long table.

:func:`read_helm` reads the run directories that Stanford CRFM's HELM
(``helm-run``) writes under ``benchmark_output/runs/<suite>/``: one run is one
model on one scenario, with ``run_spec.json`` (which model, which scenario and
settings), ``per_instance_stats.json`` (every statistic of every evaluated
instance) and ``scenario_state.json`` (every request sent and its result). One
statistic (``metric=``, e.g. ``"exact_match"``) becomes the score. An instance
whose request failed, or that has no value for the statistic, keeps its row
with ``score`` NaN and the reason in ``error``.
"""

from __future__ import annotations

import json
import math
import os
import re
import warnings
from pathlib import Path
from typing import Any

import pandas as pd

from pdpaired._lib.errors import find_stack_level
from pdpaired.io._common import PathArg, as_number, as_paths

__all__ = ["read_helm"]

_COLUMNS = ("case_id", "model", "task", "instance_id", "perturbation", "train_trial", "split",
            "score", "error")  # fmt: skip

#: The fields of HELM's PerturbationDescription that say how a perturbation is used, not
#: which one it is (every other field, e.g. a misspelling's ``prob``, names it).
_PERTURBATION_USE = frozenset({"name", "robustness", "fairness", "computed_on"})

#: The settings of a run spec name that choose the model: the rest names the task.
_MODEL_SETTINGS = ("model=", "model_deployment=")

#: The error of an instance that scenario_state.json holds and per_instance_stats.json lacks.
_ABSENT = "absent from per_instance_stats.json"

_Key = tuple[str, "str | None", int]  # (instance id, perturbation label, train trial)


def _load(path: Path) -> Any:
    name = os.fspath(path)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, RecursionError) as err:  # JSONDecodeError and UnicodeDecodeError
        why = "nested too deeply" if isinstance(err, RecursionError) else str(err)[:200]
        msg = f"{name!r} is not JSON: {why}."
        raise ValueError(msg) from None


def _run_dirs(path: PathArg) -> list[Path]:
    """Return the run directories to read: each one given, or every run in a suite directory."""
    out: list[Path] = []
    for p in as_paths(path):
        if p.is_file() and p.name == "per_instance_stats.json":
            p = p.parent
        if not p.exists():
            msg = f"No such file or directory: {os.fspath(p)!r}."
            raise FileNotFoundError(msg)
        if not p.is_dir():
            msg = (
                f"{os.fspath(p)!r} is not a HELM run directory: give the directory helm-run "
                "wrote (benchmark_output/runs/<suite>/<run>), or the suite directory."
            )
            raise ValueError(msg)
        if (p / "per_instance_stats.json").is_file():
            out.append(p)
            continue
        runs = sorted(q.parent for q in p.glob("*/per_instance_stats.json") if q.is_file())
        if not runs:
            msg = (
                f"No HELM run in {os.fspath(p)!r}: neither it nor a directory in it holds "
                "per_instance_stats.json (helm-run writes one per run into "
                "benchmark_output/runs/<suite>/<run>/)."
            )
            raise FileNotFoundError(msg)
        out += runs
    return out


def _task_of(run_name: str) -> str:
    """Return the run spec's name without the settings that choose the model."""
    head, sep, settings = run_name.partition(":")
    kept = [s for s in settings.split(",") if s and not s.startswith(_MODEL_SETTINGS)]
    return head + (sep + ",".join(kept) if kept else "")


def _perturbation(value: Any, where: str) -> str | None:
    """Return a perturbation's label: its name, and the fields that tell it from a namesake."""
    if value is None:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("name"), str):
        msg = f"{where}: `perturbation` is {str(value)[:80]}, not a perturbation with a name."
        raise ValueError(msg)
    extra = {k: v for k, v in value.items() if k not in _PERTURBATION_USE}
    if not extra:
        return str(value["name"])
    args = ",".join(f"{k}={json.dumps(v, sort_keys=True)}" for k, v in sorted(extra.items()))
    return f"{value['name']}({args})"


def _run_spec(run: Path) -> dict[str, Any]:
    path = run / "run_spec.json"
    if not path.is_file():
        msg = (
            f"{os.fspath(run)!r} has no run_spec.json (helm-run writes it beside "
            "per_instance_stats.json): pdpaired reads the run's model and task from it."
        )
        raise FileNotFoundError(msg)
    spec = _load(path)
    adapter = spec.get("adapter_spec") if isinstance(spec, dict) else None
    if not isinstance(spec, dict) or not isinstance(spec.get("name"), str) or not spec["name"]:
        msg = f"{os.fspath(path)!r} is not a HELM run spec: it has no `name`."
        raise ValueError(msg)
    if not isinstance(adapter, dict) or not isinstance(adapter.get("model"), str):
        msg = f"{os.fspath(path)!r} is not a HELM run spec: it has no adapter_spec.model."
        raise ValueError(msg)
    return spec


def _stat_value(stat: dict[str, Any], where: str) -> float | None:
    """Return a per-instance Stat's value: its mean (sum / count); None if it counts nothing."""
    count = stat.get("count")
    if count == 0:
        return None
    value = stat.get("mean")
    if value is None and isinstance(count, int) and count > 0:
        total = stat.get("sum")
        if isinstance(total, (int, float)) and not isinstance(total, bool):
            try:
                value = total / count
            except OverflowError:
                value = total  # as_number says it is beyond float64's range
        else:
            value = total
    try:
        return as_number(value)
    except TypeError:
        msg = f"{where}: the value is a {type(value).__name__} ({str(value)[:60]}), not a number."
        raise ValueError(msg) from None
    except ValueError as err:
        msg = f"{where}: {err}."
        raise ValueError(msg) from None


def _instances(path: Path, metric: str) -> tuple[dict[_Key, dict[str, Any]], set[str]]:
    """Return each evaluated (instance, perturbation, train trial) of a per_instance_stats.json.

    HELM writes one record per metric class for each of them; their statistics
    are merged here. Returns, per key, the split and the value of ``metric``
    (absent: no such statistic), and the names of every statistic in the file.
    """
    name = os.fspath(path)
    records = _load(path)
    if not isinstance(records, list):
        msg = (
            f"{name!r} is not HELM's per_instance_stats.json: it holds a "
            f"{type(records).__name__}, not a list of per-instance records."
        )
        raise ValueError(msg)
    out: dict[_Key, dict[str, Any]] = {}
    names: set[str] = set()
    for i, rec in enumerate(records):
        where = f"{name!r}: record {i}"
        if not isinstance(rec, dict):
            msg = f"{where} is a {type(rec).__name__}, not a per-instance record."
            raise ValueError(msg)
        iid, trial, stats = rec.get("instance_id"), rec.get("train_trial_index"), rec.get("stats")
        if not isinstance(iid, str) or not iid:
            msg = f"{where} has no instance_id (got {iid!r}); pdpaired pairs the runs by it."
            raise ValueError(msg)
        if not isinstance(trial, int) or isinstance(trial, bool) or trial < 0:
            msg = f"{where} (instance {iid!r}) has no train_trial_index (got {trial!r})."
            raise ValueError(msg)
        if not isinstance(stats, list):
            msg = f"{where} (instance {iid!r}) has no list of stats."
            raise ValueError(msg)
        key = (iid, _perturbation(rec.get("perturbation"), where), trial)
        entry = out.setdefault(key, {"split": None})
        for j, stat in enumerate(stats):
            label = stat.get("name") if isinstance(stat, dict) else None
            if not isinstance(label, dict) or not isinstance(label.get("name"), str):
                msg = f"{where} (instance {iid!r}): stats[{j}] is not a HELM Stat with a name."
                raise ValueError(msg)
            names.add(label["name"])
            if entry["split"] is None and isinstance(label.get("split"), str):
                entry["split"] = label["split"]
            if label["name"] != metric:
                continue
            value = _stat_value(stat, f"{where} (instance {iid!r}): stat {metric!r}")
            if "value" in entry and entry["value"] != value:
                msg = (
                    f"{where} (instance {iid!r}, train trial {trial}): two {metric!r} stats "
                    f"disagree ({entry['value']} and {value}); one instance would have two "
                    "scores."
                )
                raise ValueError(msg)
            entry["value"] = value
    return out, names


def _requests(run: Path) -> dict[_Key, dict[str, Any]] | None:
    """Return each (instance, perturbation, train trial) of scenario_state.json: split, error."""
    path = run / "scenario_state.json"
    if not path.is_file():
        warnings.warn(
            f"{os.fspath(run)!r} has no scenario_state.json: a request that failed cannot be "
            "told from a wrong answer (HELM scores both), nor an instance without statistics "
            "from one never evaluated. Every record of per_instance_stats.json is read as it is.",
            UserWarning,
            stacklevel=find_stack_level(),
        )
        return None
    name = os.fspath(path)
    state = _load(path)
    states = state.get("request_states") if isinstance(state, dict) else None
    if not isinstance(states, list):
        msg = f"{name!r} is not HELM's scenario_state.json: it lacks the list request_states."
        raise ValueError(msg)
    out: dict[_Key, dict[str, Any]] = {}
    for i, rs in enumerate(states):
        where = f"{name!r}: request_states[{i}]"
        inst = rs.get("instance") if isinstance(rs, dict) else None
        trial = rs.get("train_trial_index") if isinstance(rs, dict) else None
        if not isinstance(inst, dict) or not isinstance(inst.get("id"), str):
            msg = f"{where} has no instance with an id."
            raise ValueError(msg)
        if not isinstance(trial, int) or isinstance(trial, bool) or trial < 0:
            msg = f"{where} (instance {inst['id']!r}) has no train_trial_index (got {trial!r})."
            raise ValueError(msg)
        key = (inst["id"], _perturbation(inst.get("perturbation"), where), trial)
        entry = out.setdefault(key, {"split": inst.get("split"), "error": None})
        result = rs.get("result")
        if entry["error"] is not None:
            continue
        if not isinstance(result, dict):
            entry["error"] = "no result (the request was not run)"
        elif result.get("success") is not True:
            lines = str(result.get("error") or "").strip().splitlines()
            entry["error"] = lines[0] if lines else "the request failed"
    return out


def _natural(text: str) -> tuple[Any, ...]:
    # "id9" before "id10": HELM numbers its instances
    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", text))


def _read_run(
    run: Path, metric: str, model: str | None, task: str | None
) -> tuple[list[dict[str, Any]], set[str], list[str], bool]:
    """Return one run's rows, its stat names, the files read, whether it has ``metric``."""
    spec = _run_spec(run)
    model = spec["adapter_spec"]["model"] if model is None else model
    task = _task_of(spec["name"]) if task is None else task
    stats_path = run / "per_instance_stats.json"
    instances, names = _instances(stats_path, metric)
    requests = _requests(run)
    files = [os.fspath(run / "run_spec.json"), os.fspath(stats_path)]
    if requests is not None:
        files.append(os.fspath(run / "scenario_state.json"))
    rows = []
    for (iid, pert, trial), entry in instances.items():
        failed = (requests or {}).get((iid, pert, trial), {}).get("error")
        value = entry.get("value")
        if failed is not None:
            error, score = failed, math.nan
        elif "value" not in entry:
            error, score = f"no {metric!r} stat", math.nan
        elif value is None:
            error, score = f"the {metric!r} stat has no value", math.nan
        else:
            error, score = None, value
        rows.append({"instance_id": iid, "perturbation": pert, "train_trial": trial,
                     "split": entry["split"], "score": score, "error": error})  # fmt: skip
    absent = sorted((k for k in (requests or {}) if k not in instances),
                    key=lambda k: (_natural(k[0]), k[1] or "", k[2]))  # fmt: skip
    if absent:
        shown = ", ".join(
            f"({i!r}{'' if p is None else f', {p!r}'}, train trial {t})" for i, p, t in absent[:10]
        ) + (f", ... ({len(absent) - 10} more)" if len(absent) > 10 else "")
        warnings.warn(
            f"{os.fspath(stats_path)!r} has no statistics for {len(absent)} of the "
            f"{len(requests or {})} (instance, train trial) that scenario_state.json holds: "
            f"{shown}. They are missing outcomes (score NaN), for the comparison's `missing=` "
            "policy.",
            UserWarning,
            stacklevel=find_stack_level(),
        )
        for iid, pert, trial in absent:
            failed = (requests or {})[(iid, pert, trial)]
            rows.append({"instance_id": iid, "perturbation": pert, "train_trial": trial,
                         "split": failed["split"], "score": math.nan,
                         "error": failed["error"] or _ABSENT})  # fmt: skip
    for r in rows:
        r["model"], r["task"] = model, task
        r["case_id"] = f"{task}/{r['instance_id']}" + (
            "" if r["perturbation"] is None else f"/{r['perturbation']}"
        )
    return rows, names, files, any("value" in e for e in instances.values())


def read_helm(
    run_dir: PathArg, *, metric: str, model: str | None = None, task: str | None = None
) -> pd.DataFrame:
    r"""Read HELM per-instance statistics into a long table.

    ``helm-run`` writes each run -- one model on one scenario with one set of
    settings -- into ``benchmark_output/runs/<suite>/<run spec name>/``:
    ``run_spec.json`` names the model and the scenario, ``per_instance_stats.json``
    holds every statistic of every evaluated instance (for each train trial,
    HELM's draws of in-context examples), and ``scenario_state.json`` holds
    every request and its result.

    Parameters
    ----------
    run_dir : str, path-like, or a list of them
        A run directory, several, or a suite directory (every run directory
        in it is read): one model's runs, or several models' runs of the
        same scenarios.
    metric : str
        The HELM statistic to use as ``score`` (e.g. ``"exact_match"``,
        ``"quasi_exact_match"``, ``"f1_score"``); an unknown name raises a
        ``ValueError`` listing the statistics of the runs.
    model : str, optional
        The model label of every row. Default: the run's model
        (``adapter_spec.model`` of ``run_spec.json``).
    task : str, optional
        The task of every row (the first part of every case id). Default:
        the run spec's name without its ``model=`` and ``model_deployment=``
        settings, so two models' runs of the same scenario and settings
        share their case ids. Give it to pair two runs whose settings
        differ (two prompts, two numbers of in-context examples).

    Returns
    -------
    pandas.DataFrame
        One row per (instance, perturbation, train trial) of each run,
        sorted by task, instance (``id9`` before ``id10``), perturbation,
        train trial and run, with columns ``case_id``
        (``"<task>/<instance_id>"``, then ``"/<perturbation>"`` for a
        perturbed copy of an instance), ``model``, ``task``,
        ``instance_id`` (HELM's; a perturbed copy keeps its original's, so
        it can be the group of a clustered comparison), ``perturbation``
        (its name, with the fields that tell it from another of that name;
        missing for an original instance), ``train_trial`` (HELM's
        ``train_trial_index``: a repeat of the case), ``split``
        (``"test"``, ``"valid"``), ``score`` (float) and ``error`` (why
        ``score`` is NaN, else missing). An instance whose request failed
        (``scenario_state.json``: HELM scores its empty answer as wrong)
        has ``score`` NaN and the request's error; so does one without a
        value for the statistic (HELM leaves out a statistic that is NaN)
        and, with a warning, one that ``scenario_state.json`` holds and
        ``per_instance_stats.json`` lacks: missing outcomes for the
        comparison's ``missing=`` policy. ``attrs`` records
        ``source_files``, ``metric`` and ``higher_is_better`` (None: a run
        directory does not say).

    Raises
    ------
    ValueError
        A file that is not JSON or not the HELM file it should be (naming
        the file and the record), a value that is not a number, an unknown
        ``metric`` (listing the statistics) or one that a run lacks
        entirely, or a (case, model, train trial) that two runs hold.
    FileNotFoundError
        A path that does not exist, a directory without runs, or a run
        without ``run_spec.json``.

    See Also
    --------
    read_lm_eval, read_inspect, read_promptfoo : the same for other harnesses.

    Notes
    -----
    Without ``scenario_state.json`` (a copy that kept only the statistics)
    a failed request cannot be told from a wrong answer: the records are
    read as they are, with a warning. HELM averages each statistic over
    instances and then over train trials; the same mean per case is
    ``df.paired(repeat="sample", run="train_trial")``.

    Examples
    --------
    Two runs of one scenario, written as ``helm-run`` writes them (most
    fields left out here); the new model's request for ``id3`` failed:

    >>> import json, tempfile
    >>> from pathlib import Path
    >>> import pdpaired
    >>> from pdpaired.io import read_helm
    >>> suite = Path(tempfile.mkdtemp())
    >>> def write_run(model, exact_match, failed=()):
    ...     run = suite / f"simple1:model={model.replace('/', '_')}"
    ...     run.mkdir()
    ...     spec = {"name": run.name, "adapter_spec": {"model": model}}
    ...     stats = [{"instance_id": f"id{i}", "train_trial_index": 0,
    ...               "stats": [{"name": {"name": "exact_match", "split": "test"},
    ...                          "count": 1, "sum": x, "mean": x}]}
    ...              for i, x in enumerate(exact_match)]
    ...     states = [{"instance": {"id": f"id{i}", "split": "test"}, "train_trial_index": 0,
    ...                "result": {"success": i not in failed, "error": "Error: timeout"}}
    ...               for i in range(len(exact_match))]
    ...     for name, doc in [("run_spec", spec), ("per_instance_stats", stats),
    ...                       ("scenario_state", {"request_states": states})]:
    ...         _ = (run / f"{name}.json").write_text(json.dumps(doc))
    >>> write_run("org/old", [1, 0, 0, 1])
    >>> write_run("org/new", [1, 1, 0, 0], failed={3})
    >>> df = read_helm(suite, metric="exact_match")
    >>> df[["case_id", "model", "train_trial", "score", "error"]]
           case_id    model  train_trial  score           error
    0  simple1/id0  org/new            0    1.0             NaN
    1  simple1/id0  org/old            0    1.0             NaN
    2  simple1/id1  org/new            0    1.0             NaN
    3  simple1/id1  org/old            0    0.0             NaN
    4  simple1/id2  org/new            0    0.0             NaN
    5  simple1/id2  org/old            0    0.0             NaN
    6  simple1/id3  org/new            0    NaN  Error: timeout
    7  simple1/id3  org/old            0    1.0             NaN
    >>> cmp = df.paired.compare("org/new", "org/old", higher_is_better=True,
    ...                         missing="complete-case")
    >>> len(cmp.pairs)
    3
    """
    runs = _run_dirs(run_dir)
    rows: list[dict[str, Any]] = []
    names: set[str] = set()
    sources: list[str] = []
    lacking: list[str] = []
    for run in runs:
        run_rows, run_names, files, has = _read_run(run, metric, model, task)
        rows += run_rows
        names |= run_names
        sources += files
        if not has:
            lacking.append(os.fspath(run))
    if len(lacking) == len(runs):
        msg = (
            f"Unknown metric {metric!r}; the runs' statistics are: "
            f"{', '.join(map(repr, sorted(names))) or 'none'}."
        )
        raise ValueError(msg)
    if lacking:
        msg = (
            f"Statistic {metric!r} is in no record of {', '.join(map(repr, lacking))}, while "
            "the other runs have it: read the runs that compute it."
        )
        raise ValueError(msg)
    order = {m: k for k, m in enumerate(dict.fromkeys(r["model"] for r in rows))}
    rows.sort(key=lambda r: (r["task"], _natural(r["instance_id"]), r["perturbation"] or "",
                             r["train_trial"], order[r["model"]]))  # fmt: skip
    out = pd.DataFrame(rows, columns=list(_COLUMNS))
    dup = out.duplicated(["case_id", "model", "train_trial"], keep=False)
    if dup.any():
        first = out.loc[dup].iloc[0]
        msg = (
            f"{int(dup.sum())} rows repeat a (case, model, train trial), e.g. "
            f"{first['case_id']!r} of {first['model']!r}: two runs of one model on one task "
            "were read (two settings of one model: give each its `task=` or `model=`)."
        )
        raise ValueError(msg)
    out["train_trial"] = out["train_trial"].astype("int64")
    out["score"] = out["score"].astype("float64")
    out.attrs.update(source_files=sources, metric=metric, higher_is_better=None)
    return out
