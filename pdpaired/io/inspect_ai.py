"""Read inspect_ai eval logs into pdpaired's long table.

:func:`read_inspect` reads UK AISI inspect_ai logs (``.eval`` or ``.json``)
through ``inspect_ai.log.read_eval_log`` (``pip install "pdpaired[inspect]"``),
one row per sample and epoch; :func:`inspect_value_to_float` maps a score
value to a float as inspect's ``value_to_float()`` does, except that an
unknown string is NaN (a missing outcome) rather than a silent 0. A failed,
invalidated or unscored sample keeps its row with ``score`` NaN and the
reason in ``error``.
"""

from __future__ import annotations

import json
import math
import os
import re
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from pdpaired._lib.errors import find_stack_level
from pdpaired.io._common import PathArg, as_number, as_paths

__all__ = ["inspect_value_to_float", "read_inspect"]

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
        number = as_number(value)
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
    for p in as_paths(path):
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
    rows += _absent_rows(log, rows, label, task, path)
    out = pd.DataFrame(rows, columns=[*_INSPECT_COLUMNS, *meta_keys])
    out["score"] = out["score"].astype("float64")
    out["epoch"] = out["epoch"].astype("int64")
    out.attrs["scorer"] = scorer if key is None else f"{scorer}/{key}"
    out.attrs["higher_is_better"] = True if grades == {True} else None
    return out


def _absent_rows(
    log: Any, rows: list[dict[str, Any]], label: str, task: str, path: Path
) -> list[dict[str, Any]]:
    """Rows (score NaN) for the (sample, epoch) records the log's spec promises but lacks.

    The spec promises every sample of ``eval.dataset.sample_ids`` for each of
    ``eval.config.epochs`` epochs; a record it does not hold (a log stopped
    early, an epoch lost) is a missing outcome, not a case averaged over the
    epochs it has. Warns, naming them, and when the log's status is not
    ``"success"``.
    """
    config = getattr(log.eval, "config", None)
    epochs = int(getattr(config, "epochs", None) or 1)
    promised = list(getattr(getattr(log.eval, "dataset", None), "sample_ids", None) or [])
    have = {(r["case_id"], r["epoch"]) for r in rows}
    first_row: dict[Any, dict[str, Any]] = {}
    for r in rows:
        first_row.setdefault(r["case_id"], r)
    ids = list(dict.fromkeys([*promised, *first_row]))
    absent = [(i, e) for i in ids for e in range(1, epochs + 1) if (i, e) not in have]
    name = os.fspath(path)
    status = str(getattr(log, "status", "success"))
    if status != "success":
        err = getattr(log, "error", None)
        why = f": {str(getattr(err, 'message', err))[:200]}" if err is not None else ""
        warnings.warn(
            f"{name!r} is a log with status {status!r}{why}. It holds {len(have)} of the "
            f"{len(ids) * epochs} (sample, epoch) records its configuration promises; the "
            "others are missing outcomes.",
            UserWarning,
            stacklevel=find_stack_level(),
        )
    if not absent:
        return []
    shown = ", ".join(f"({i!r}, {e})" for i, e in absent[:10])
    more = f", ... ({len(absent) - 10} more)" if len(absent) > 10 else ""
    warnings.warn(
        f"{name!r} lacks {len(absent)} (sample, epoch) record(s) its configuration promises "
        f"({len(ids)} samples x {epochs} epoch(s)): {shown}{more}. They are missing "
        "outcomes (score NaN), for the comparison's `missing=` policy.",
        UserWarning,
        stacklevel=find_stack_level(),
    )
    out = []
    for i, e in absent:
        # a sample's metadata is the same in every epoch: copy it from one it has
        base = {k: v for k, v in first_row.get(i, {}).items() if k not in _INSPECT_COLUMNS}
        out.append({"case_id": i, "model": label, "epoch": e, "score": math.nan, "task": task,
                    "error": "absent from the log", **base})  # fmt: skip
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
    ``missing=`` policy. So does every (sample, epoch) the log's
    configuration promises (each sample of ``eval.dataset.sample_ids``, each
    of ``eval.config.epochs``) but does not hold -- a log stopped early, an
    epoch lost -- with a warning naming them (``error`` "absent from the
    log"), and a log whose status is not ``"success"`` warns.

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
