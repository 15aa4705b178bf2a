"""Machine-translation outputs: per-segment BLEU, chrF and TER statistics from sacrebleu.

Corpus BLEU is not the mean of sentence BLEU: it is a function of the corpus
totals of each segment's matched n-grams and lengths (chrF of its character
n-gram counts, TER of its edits and reference lengths). :func:`read_sacrebleu`
reads plain-text files (one segment a line, as ``sacrebleu`` reads them) and
returns those per-segment statistics, extracted by sacrebleu itself
(tokenization, n-gram matching, TER's shifts), as a long table with one row
per (segment, system); :func:`pdpaired.metrics.bleu` and friends score a
resample's totals. The column names of each metric's statistics are
defined here, where they are written.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "SACREBLEU_METRICS",
    "bleu_statistics",
    "chrf_statistics",
    "read_sacrebleu",
    "sacrebleu_metric",
    "statistic_names",
    "ter_statistics",
]

#: The metrics read_sacrebleu extracts statistics for.
SACREBLEU_METRICS = ("bleu", "chrf", "ter")

_INSTALL = 'needs sacrebleu: pip install "pdpaired[text]" (or sacrebleu)'

_FilePath = str | os.PathLike[str]


def bleu_statistics(max_ngram_order: int = 4) -> list[str]:
    """BLEU's statistic columns: lengths, then matches and totals per n-gram order.

    sacrebleu's order: hypothesis length, (closest) reference length,
    matched n-grams of order 1 .. N, hypothesis n-grams of order 1 .. N.
    """
    n = range(1, max_ngram_order + 1)
    return (
        ["bleu_sys_len", "bleu_ref_len"]
        + [f"bleu_match_{i}" for i in n]
        + [f"bleu_total_{i}" for i in n]
    )


def chrf_statistics(char_order: int = 6, word_order: int = 0) -> list[str]:
    """ChrF's statistic columns: (hypothesis, reference, matched) n-grams per order.

    Character orders 1 .. C, then word orders 1 .. W (chrF++: ``word_order=2``).
    """
    orders = [f"c{i}" for i in range(1, char_order + 1)]
    orders += [f"w{i}" for i in range(1, word_order + 1)]
    return [f"chrf_{part}_{o}" for o in orders for part in ("hyp", "ref", "match")]


def ter_statistics() -> list[str]:
    """TER's statistic columns: edits and (average) reference length."""
    return ["ter_edits", "ter_ref_len"]


def statistic_names(metric: str, options: Mapping[str, Any]) -> list[str]:
    """Return the statistic columns of a sacrebleu metric with these options."""
    if metric == "bleu":
        return bleu_statistics(int(options.get("max_ngram_order", 4)))
    if metric == "chrf":
        return chrf_statistics(int(options.get("char_order", 6)), int(options.get("word_order", 0)))
    return ter_statistics()


def sacrebleu_metric(metric: str, options: Mapping[str, Any]) -> Any:
    """Return a sacrebleu metric object (``BLEU``, ``CHRF`` or ``TER``) with these options."""
    check_metric(metric)
    try:
        import sacrebleu
    except ImportError as err:
        msg = f"metric {metric!r} {_INSTALL}."
        raise ImportError(msg) from err
    cls = {"bleu": sacrebleu.BLEU, "chrf": sacrebleu.CHRF, "ter": sacrebleu.TER}[metric]
    try:
        return cls(**options)
    except TypeError as err:
        msg = f"Not an option of sacrebleu's {cls.__name__}: {err}"
        raise TypeError(msg) from err


def check_metric(metric: Any) -> str:
    """Check a sacrebleu metric name."""
    if not isinstance(metric, str) or metric not in SACREBLEU_METRICS:
        msg = f"`metric` must be one of {list(SACREBLEU_METRICS)}; got {metric!r}."
        raise ValueError(msg)
    return metric


def _lines(path: _FilePath, what: str) -> list[str]:
    p = Path(path)
    if not p.is_file():
        msg = f"The {what} file {str(p)!r} does not exist or is not a regular file."
        raise FileNotFoundError(msg)
    with p.open(encoding="utf-8", newline="\n") as f:  # as sacrebleu reads: one segment a line
        return [line.rstrip("\n") for line in f]


def read_sacrebleu(
    references: _FilePath | Sequence[_FilePath],
    systems: Mapping[str, _FilePath],
    *,
    metric: str = "bleu",
    documents: _FilePath | None = None,
    **options: Any,
) -> pd.DataFrame:
    r"""Per-segment statistics of BLEU, chrF or TER for several systems, as a long table.

    Parameters
    ----------
    references : path or list of paths
        Reference file(s), one segment a line (several files: several
        references per segment, as ``sacrebleu REF1 REF2 ...``).
    systems : mapping of str to path
        System name -> its output file, one segment a line.
    metric : {"bleu", "chrf", "ter"}
        Whose statistics to extract.
    documents : path, optional
        A file with the document id of each segment, one a line: the
        ``document`` column, the unit to resample with
        ``df.paired(group="document")`` (segments of one document are not
        independent).
    **options
        Options of sacrebleu's ``BLEU``, ``CHRF`` or ``TER`` (``tokenize``,
        ``lowercase``, ``max_ngram_order``, ``char_order``, ``word_order``,
        ...). Give the same options to :func:`pdpaired.metrics.bleu` (or
        ``chrf`` / ``ter``) so that it reads these columns.

    Returns
    -------
    DataFrame
        One row per (segment, system): ``case_id`` (the line number, from
        1), ``model``, ``document`` (with ``documents``) and the metric's
        statistic columns (:func:`bleu_statistics`, :func:`chrf_statistics`,
        :func:`ter_statistics`), integers for BLEU and chrF. ``attrs``
        records the source files, the metric and its options.

    Raises
    ------
    ValueError
        A file whose number of lines differs from the references', naming
        both files and their counts; an empty ``systems``; an unknown metric.
    FileNotFoundError
        A path that is not a regular file.
    ImportError
        sacrebleu is not installed (``pip install "pdpaired[text]"``).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import pdpaired
    >>> from pdpaired.io import read_sacrebleu
    >>> d = Path(tempfile.mkdtemp())
    >>> _ = (d / "ref.txt").write_text("the cat sat on the mat\nit is raining today\n")
    >>> _ = (d / "a.txt").write_text("the cat sat on the mat\nit rains today\n")
    >>> _ = (d / "b.txt").write_text("a cat is on a mat\nit is raining\n")
    >>> df = read_sacrebleu(d / "ref.txt", {"A": d / "a.txt", "B": d / "b.txt"})
    >>> df[["case_id", "model", "bleu_sys_len", "bleu_ref_len", "bleu_match_1"]]
       case_id model  bleu_sys_len  bleu_ref_len  bleu_match_1
    0        1     A             6             6             6
    1        2     A             3             4             2
    2        1     B             6             6             3
    3        2     B             3             4             3
    """
    check_metric(metric)
    ref_paths = [references] if isinstance(references, (str, os.PathLike)) else list(references)
    if not ref_paths:
        msg = "`references` is an empty list; give at least one reference file."
        raise ValueError(msg)
    if not isinstance(systems, Mapping) or not systems:
        msg = "`systems` must be a non-empty mapping of system name -> output file."
        raise ValueError(msg)
    refs = [_lines(p, "reference") for p in ref_paths]
    n = len(refs[0])
    counted: list[tuple[str, int]] = [(str(ref_paths[0]), n)]
    for p, r in zip(ref_paths[1:], refs[1:], strict=True):
        counted.append((str(p), len(r)))
    hyps = {name: _lines(path, "system") for name, path in systems.items()}
    counted += [(str(systems[name]), len(h)) for name, h in hyps.items()]
    docs = None if documents is None else _lines(documents, "documents")
    if docs is not None:
        counted.append((str(documents), len(docs)))
    wrong = [(p, c) for p, c in counted if c != n]
    if wrong:
        shown = "; ".join(f"{p}: {c}" for p, c in wrong[:5])
        msg = (
            f"Every file must have one line per segment, as the reference {counted[0][0]!r} "
            f"({n} lines); these differ: {shown}."
        )
        raise ValueError(msg)
    if n == 0:
        msg = f"The reference {counted[0][0]!r} has no segments."
        raise ValueError(msg)
    scorer = sacrebleu_metric(metric, {**options, "references": refs})
    names = statistic_names(metric, options)
    frames = []
    for name, h in hyps.items():
        stats = np.asarray(scorer._extract_corpus_statistics(h, None))
        if stats.shape != (n, len(names)):  # pragma: no cover - sacrebleu's own layout
            msg = f"sacrebleu returned statistics of shape {stats.shape}, not {(n, len(names))}."
            raise AssertionError(msg)
        part = pd.DataFrame(stats, columns=names)
        if metric != "ter":
            part = part.astype(np.int64)
        part.insert(0, "model", name)
        part.insert(0, "case_id", np.arange(1, n + 1))
        if docs is not None:
            part.insert(2, "document", docs)
        frames.append(part)
    out = pd.concat(frames, ignore_index=True)
    out.attrs["source_files"] = [str(p) for p in ref_paths] + [str(p) for p in systems.values()]
    out.attrs["metric"] = metric
    out.attrs["metric_options"] = {k: v for k, v in options.items() if k != "references"}
    out.attrs["higher_is_better"] = metric != "ter"
    return out
