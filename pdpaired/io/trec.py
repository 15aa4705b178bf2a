"""Retrieval runs: per-query measures of TREC run files against their qrels, from ir_measures.

In retrieval the independent unit is the query (topic): a run is scored per
query, and the run's score is the mean over queries. :func:`read_trec` reads
a qrels file and several run files, computes each query's measures with
ir_measures (the trec_eval-compatible implementations the field uses), and
returns them as a long table ready for ``df.paired``.

Which queries count is decided by the qrels, as trec_eval does with ``-c``:
every judged query is kept, a query that a run did not answer scores 0 (and
is flagged in the ``answered`` column, counted in ``attrs`` and in a
warning), and a query that a run answered but the qrels do not judge is not
used (counted the same way). Without this rule a run that skips hard queries
would look better than one that answers them.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["parse_measures", "read_trec"]

_INSTALL = 'needs ir_measures: pip install "pdpaired[ir]" (or ir_measures)'

_FilePath = str | os.PathLike[str]


def _ir_measures() -> Any:
    try:
        import ir_measures
    except ImportError as err:
        msg = f"read_trec {_INSTALL}."
        raise ImportError(msg) from err
    return ir_measures


def parse_measures(measures: str | Sequence[str]) -> list[Any]:
    """Parse measure names (``"nDCG@10"``, ``"AP"``, ``"RR"``, ``"R@100"``) with ir_measures.

    Returns ir_measures' measure objects; ``str()`` of each is its canonical
    name, the value of the ``measure`` column. Refuses an empty list, an
    unknown name and a name given twice.
    """
    irm = _ir_measures()
    names = [measures] if isinstance(measures, str) else list(measures)
    if not names:
        msg = "`measures` is empty; give at least one measure, such as 'nDCG@10'."
        raise ValueError(msg)
    parsed = []
    for name in names:
        if not isinstance(name, str):
            msg = f"A measure must be a name such as 'nDCG@10'; got {name!r}."
            raise TypeError(msg)
        try:
            parsed.append(irm.parse_measure(name))
        except (ValueError, TypeError, NameError, SyntaxError) as err:
            msg = (
                f"Unknown measure {name!r} ({err}); use ir_measures' names, such as "
                "'nDCG@10', 'AP', 'RR', 'R@100', 'P@5'."
            )
            raise ValueError(msg) from err
    labels = [str(m) for m in parsed]
    twice = sorted({x for x in labels if labels.count(x) > 1})
    if twice:
        msg = f"The measure(s) {twice} are given more than once."
        raise ValueError(msg)
    return parsed


def _file(path: _FilePath, what: str) -> str:
    p = Path(path)
    if not p.is_file():
        msg = f"The {what} file {str(p)!r} does not exist or is not a regular file."
        raise FileNotFoundError(msg)
    return os.fspath(p)


def _read(reader: Any, path: str, what: str) -> list[Any]:
    try:
        rows = list(reader(path))
    except (ValueError, IndexError, TypeError) as err:
        msg = f"Cannot read {path!r} as a TREC {what} file: {err}"
        raise ValueError(msg) from err
    if not rows:
        msg = f"The {what} file {path!r} has no lines."
        raise ValueError(msg)
    return rows


def _shown(ids: Sequence[str]) -> str:
    first = ", ".join(map(repr, ids[:5]))
    return first + (", ..." if len(ids) > 5 else "")


def read_trec(
    qrels: _FilePath,
    runs: Mapping[str, _FilePath],
    *,
    measures: str | Sequence[str],
) -> pd.DataFrame:
    r"""Per-query retrieval measures of several TREC runs, as a long table.

    Parameters
    ----------
    qrels : path
        The relevance judgments, TREC format (``query 0 doc relevance``).
    runs : mapping of str to path
        System name -> its run file, TREC format (``query Q0 doc rank score
        tag``).
    measures : str or list of str
        Measures in ir_measures' names (``"nDCG@10"``, ``"AP"``, ``"RR"``,
        ``"R@100"``, ``"P@5"``, ...), computed by ir_measures.

    Returns
    -------
    DataFrame
        One row per (query, system, measure): ``case_id`` (the query id, as
        text), ``model``, ``measure`` (ir_measures' canonical name),
        ``score`` and ``answered`` (False: the run returned nothing for this
        judged query, which scores 0). Every query of the qrels is kept, in
        the qrels' order. Compare one measure at a time::

            df[df["measure"] == "nDCG@10"].paired.compare("A", "B", ...)

        ``attrs`` records the source files, the measures,
        ``"unanswered"`` (system -> judged queries it did not answer) and
        ``"unjudged"`` (system -> queries it answered that the qrels do not
        judge; not used), with ``"higher_is_better"`` True.

    Raises
    ------
    ValueError
        An empty ``runs``, an unknown measure, an empty or unreadable file.
    FileNotFoundError
        A path that is not a regular file.
    ImportError
        ir_measures is not installed (``pip install "pdpaired[ir]"``).

    Warns
    -----
    UserWarning
        When a run leaves judged queries unanswered or answers unjudged
        ones, with the counts and the first query ids.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from pdpaired.io import read_trec
    >>> d = Path(tempfile.mkdtemp())
    >>> _ = (d / "qrels").write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 1\n")
    >>> _ = (d / "a.run").write_text("q1 Q0 d1 1 2.0 a\nq1 Q0 d2 2 1.0 a\nq2 Q0 d3 1 1.0 a\n")
    >>> _ = (d / "b.run").write_text("q1 Q0 d2 1 2.0 b\nq1 Q0 d1 2 1.0 b\n")
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     df = read_trec(d / "qrels", {"A": d / "a.run", "B": d / "b.run"}, measures="RR")
    >>> print(caught[0].message)
    TREC runs left judged queries unanswered (each scores 0): B: 1 ('q2').
    >>> df
      case_id model measure  score  answered
    0      q1     A      RR    1.0      True
    1      q2     A      RR    1.0      True
    2      q1     B      RR    0.5      True
    3      q2     B      RR    0.0     False
    >>> df.attrs["unanswered"]
    {'A': [], 'B': ['q2']}
    """
    irm = _ir_measures()
    parsed = parse_measures(measures)
    labels = [str(m) for m in parsed]
    if not isinstance(runs, Mapping) or not runs:
        msg = "`runs` must be a non-empty mapping of system name -> run file."
        raise ValueError(msg)
    qrels_path = _file(qrels, "qrels")
    run_paths = {str(name): _file(path, "run") for name, path in runs.items()}
    judged = _read(irm.read_trec_qrels, qrels_path, "qrels")
    queries = list(dict.fromkeys(str(q.query_id) for q in judged))
    position = {q: i for i, q in enumerate(queries)}
    frames = []
    unanswered: dict[str, list[str]] = {}
    unjudged: dict[str, list[str]] = {}
    for name, path in run_paths.items():
        scored = _read(irm.read_trec_run, path, "run")
        in_run = set(dict.fromkeys(str(d.query_id) for d in scored))
        unanswered[name] = [q for q in queries if q not in in_run]
        unjudged[name] = sorted(in_run.difference(position))
        values = np.zeros((len(labels), len(queries)))
        row = {label: i for i, label in enumerate(labels)}
        for m in irm.iter_calc(parsed, judged, scored):
            q = str(m.query_id)
            if q in position:  # (a provider may or may not skip unjudged queries)
                values[row[str(m.measure)], position[q]] = float(m.value)
        answered = np.array([q in in_run for q in queries])
        for label in labels:
            frames.append(
                pd.DataFrame(
                    {
                        "case_id": queries,
                        "model": name,
                        "measure": label,
                        "score": values[row[label]],
                        "answered": answered,
                    }
                )
            )
    out = pd.concat(frames, ignore_index=True)  # (system, measure, query) order
    for what, found in (
        ("left judged queries unanswered (each scores 0)", unanswered),
        ("answered queries the qrels do not judge (not used)", unjudged),
    ):
        counts = [f"{n}: {len(ids)} ({_shown(ids)})" for n, ids in found.items() if ids]
        if counts:
            warnings.warn(f"TREC runs {what}: {'; '.join(counts)}.", UserWarning, stacklevel=2)
    out.attrs["source_files"] = [qrels_path, *run_paths.values()]
    out.attrs["metric"] = labels[0] if len(labels) == 1 else labels
    out.attrs["measures"] = labels
    out.attrs["unanswered"] = unanswered
    out.attrs["unjudged"] = unjudged
    out.attrs["higher_is_better"] = True
    return out
