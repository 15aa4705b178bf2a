"""Statistics metrics: corpus metrics as vectorized functions of per-case totals.

Each built-in returns a :class:`~pdpaired.Metric` made by
:meth:`~pdpaired.Metric.from_statistics`: a ratio of two totals, micro-F1
from true positive, false positive and false negative counts, and
sacrebleu's BLEU, chrF and TER from the per-segment statistics
:func:`pdpaired.io.read_sacrebleu` extracts. Their ``fn`` takes a batch of
totals ``(..., k)`` and returns ``(...)``, so a batch of resamples is scored
at once.

The text metrics' scoring follows sacrebleu's ``_compute_score_from_stats``
operation for operation (the same smoothing branches, the same order of
additions and multiplications, Python's ``math.exp`` and ``math.log`` for
BLEU's exponent): on integer totals every score equals sacrebleu's bit for
bit, which the tests check on random totals and on real corpora. The
statistics themselves (tokenization, n-gram matching, TER's shifts) are
always sacrebleu's.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from pdpaired._lib.validation import check_bool
from pdpaired.core.metrics import Metric
from pdpaired.io.sacrebleu import bleu_statistics, chrf_statistics, ter_statistics

__all__ = ["bleu", "bleu_score", "chrf", "chrf_score", "micro_f1", "ratio", "ter", "ter_score"]

_SMOOTH_DEFAULTS: dict[str, float | None] = {"none": None, "floor": 0.1, "add-k": 1.0, "exp": None}


def _column(name: object, what: str) -> str:
    if not isinstance(name, str) or not name:
        msg = f"`{what}` must be a column name (a non-empty string); got {name!r}."
        raise TypeError(msg)
    return name


def ratio(
    numerator: str, denominator: str, *, higher_is_better: bool, name: str | None = None
) -> Metric:
    """Make the ratio of two totals, ``Σ numerator / Σ denominator``, a metric.

    Errors per token, words per second, tokens matched per reference token:
    the resample's total of one column over its total of another (NaN where
    the denominator's total is 0). Not the mean of per-case ratios, which
    weighs a short case as much as a long one.

    Parameters
    ----------
    numerator, denominator : str
        The two per-case columns.
    higher_is_better : bool
        Direction (an error rate: False; a hit rate: True).
    name : str, optional
        Shown in results; default ``"numerator/denominator"``.

    Examples
    --------
    >>> import pandas as pd, pdpaired
    >>> df = pd.DataFrame({"case_id": [1, 2, 1, 2], "model": ["A", "A", "B", "B"],
    ...                    "errors": [1, 3, 2, 6], "tokens": [10, 30, 10, 30]})
    >>> m = pdpaired.metrics.ratio("errors", "tokens", higher_is_better=False)
    >>> cmp = df.paired.compare("A", "B", metric=m)
    >>> cmp.metric, cmp.metric_a, cmp.metric_b
    ('errors/tokens', 0.1, 0.2)
    """
    num, den = _column(numerator, "numerator"), _column(denominator, "denominator")
    if num == den:
        msg = f"`numerator` and `denominator` must be two columns; both are {num!r}."
        raise ValueError(msg)
    hib = check_bool(higher_is_better, "higher_is_better")

    def fn(totals: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            d = totals[..., 1]
            return np.where(d != 0, totals[..., 0] / np.where(d != 0, d, 1.0), np.nan)

    return Metric.from_statistics(
        name or f"{num}/{den}", fn, statistics=[num, den], higher_is_better=hib
    )


def micro_f1(tp: str = "tp", fp: str = "fp", fn: str = "fn") -> Metric:
    """Micro-averaged F1 from per-case counts: ``2 TP / (2 TP + FP + FN)`` of the totals.

    Each case (a document, an utterance) carries its counts of true
    positives, false positives and false negatives (entities, labels, spans);
    micro-F1 pools them over the corpus, so it is recomputed from the
    resample's totals, never averaged per case. NaN where the totals have no
    positive and no prediction. Equals scikit-learn's
    ``f1_score(..., average="micro")`` on the pooled decisions.

    Parameters
    ----------
    tp, fp, fn : str
        The count columns (default ``"tp"``, ``"fp"``, ``"fn"``).

    Examples
    --------
    >>> import pandas as pd, pdpaired
    >>> df = pd.DataFrame({"case_id": [1, 2, 1, 2], "model": ["A", "A", "B", "B"],
    ...                    "tp": [3, 5, 2, 4], "fp": [1, 0, 2, 1], "fn": [0, 1, 1, 2]})
    >>> cmp = df.paired.compare("A", "B", metric=pdpaired.metrics.micro_f1())
    >>> round(cmp.metric_a, 4), round(cmp.metric_b, 4)   # 16/18 and 12/18
    (0.8889, 0.6667)
    """
    cols = [_column(tp, "tp"), _column(fp, "fp"), _column(fn, "fn")]
    if len(set(cols)) != 3:
        msg = f"`tp`, `fp` and `fn` must be three columns; got {cols}."
        raise ValueError(msg)

    def score(totals: np.ndarray) -> np.ndarray:
        t_tp, t_fp, t_fn = totals[..., 0], totals[..., 1], totals[..., 2]
        den = 2 * t_tp + t_fp + t_fn
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(den > 0, 2 * t_tp / np.where(den > 0, den, 1.0), np.nan)

    return Metric.from_statistics("micro_f1", score, statistics=cols, higher_is_better=True)


# --------------------------------------------------------------------------- BLEU
def _elementwise(f: Callable[[float], float], x: np.ndarray) -> np.ndarray:
    """``f`` (a ``math`` function) on every element: sacrebleu's rounding, not NumPy's."""
    flat = np.ravel(x)
    return np.fromiter((f(float(v)) for v in flat), dtype=np.float64, count=flat.size).reshape(
        np.shape(x)
    )


def bleu_score(
    totals: np.ndarray,
    *,
    max_ngram_order: int = 4,
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    effective_order: bool = False,
) -> np.ndarray:
    """Corpus BLEU (0-100) of totals ``(..., 2 + 2N)`` in :func:`bleu_statistics` order.

    sacrebleu's ``BLEU.compute_bleu``, vectorized: brevity penalty from the
    two lengths, n-gram precisions with the smoothing method's rule for a
    zero match count (``"exp"``: halve successively; ``"floor"``: the floor
    value; ``"add-k"``: add k from order 2; ``"none"``), orders after the
    first empty one left out, and the geometric mean.
    """
    t = np.asarray(totals, dtype=np.float64)
    n_ord = max_ngram_order
    if t.shape[-1] != 2 + 2 * n_ord:
        msg = (
            f"BLEU with max_ngram_order={n_ord} reads {2 + 2 * n_ord} statistics; "
            f"got {t.shape[-1]}."
        )
        raise ValueError(msg)
    sv = _SMOOTH_DEFAULTS[smooth_method] if smooth_value is None else smooth_value
    sys_len, ref_len = t[..., 0], t[..., 1]
    correct = t[..., 2 : 2 + n_ord].copy()
    total = t[..., 2 + n_ord :].copy()
    shape = t.shape[:-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        short = sys_len < ref_len
        ratio_ = np.where(short & (sys_len > 0), ref_len / np.where(sys_len > 0, sys_len, 1), 0.0)
        bp = np.where(short, np.where(sys_len > 0, _elementwise(math.exp, 1 - ratio_), 0.0), 1.0)
        prec = np.zeros((*shape, n_ord))
        active = np.ones(shape, dtype=bool)
        eff = np.full(shape, float(n_ord))
        smooth_mteval = np.ones(shape)
        for k in range(n_ord):
            c, tot = correct[..., k], total[..., k]
            if smooth_method == "add-k" and k > 0:
                assert sv is not None
                c, tot = c + sv, tot + sv
            active &= tot != 0  # sacrebleu stops at the first order with no n-gram
            if effective_order:
                eff = np.where(active, float(k + 1), eff)
            zero = active & (c == 0)
            safe_tot = np.where(active, tot, 1.0)
            p = np.where(active & ~zero, 100.0 * c / safe_tot, 0.0)
            if smooth_method == "exp":
                smooth_mteval = np.where(zero, smooth_mteval * 2, smooth_mteval)
                p = np.where(zero, 100.0 / (smooth_mteval * safe_tot), p)
            elif smooth_method == "floor":
                assert sv is not None
                p = np.where(zero, 100.0 * sv / safe_tot, p)
            prec[..., k] = p
        logs = np.where(prec == 0.0, -9999999999.0, 0.0)
        pos = prec > 0
        if pos.any():
            logs[pos] = _elementwise(math.log, prec[pos])
        acc = np.zeros(shape)
        for k in range(n_ord):  # Python's sum: left to right, from 0
            acc = acc + np.where(k < eff, logs[..., k], 0.0)
        score = bp * _elementwise(math.exp, acc / eff)
        no_match = ~(t[..., 2 : 2 + n_ord] != 0).any(axis=-1)  # sacrebleu's early stop: 0.0
    return np.asarray(np.where(no_match, 0.0, score))


def bleu(
    *,
    max_ngram_order: int = 4,
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    effective_order: bool = False,
    **extraction: object,
) -> Metric:
    """Corpus BLEU (sacrebleu's), recomputed from the resample's total statistics.

    Reads the columns :func:`pdpaired.io.read_sacrebleu` writes with
    ``metric="bleu"`` (:func:`pdpaired.io.sacrebleu.bleu_statistics`). The
    point estimate equals ``sacrebleu.corpus_bleu(...).score`` exactly.

    Parameters
    ----------
    max_ngram_order, smooth_method, smooth_value, effective_order
        sacrebleu's ``BLEU`` scoring options (defaults: sacrebleu's).
    **extraction
        Options that only change the statistics (``tokenize``,
        ``lowercase``, ``force``), accepted so that the reader's options can
        be passed here unchanged; they do not change the scoring.

    Examples
    --------
    >>> import pdpaired
    >>> m = pdpaired.metrics.bleu()
    >>> m.name, m.higher_is_better, m.statistics[:3]
    ('bleu', True, ('bleu_sys_len', 'bleu_ref_len', 'bleu_match_1'))
    """
    _check_extraction(extraction, ("tokenize", "lowercase", "force", "trg_lang"), "BLEU")
    if smooth_method not in _SMOOTH_DEFAULTS:
        msg = f"`smooth_method` must be one of {list(_SMOOTH_DEFAULTS)}; got {smooth_method!r}."
        raise ValueError(msg)
    order = _order(max_ngram_order, "max_ngram_order", low=1)
    eff = check_bool(effective_order, "effective_order")

    def fn(totals: np.ndarray) -> np.ndarray:
        return bleu_score(totals, max_ngram_order=order, smooth_method=smooth_method,
                          smooth_value=smooth_value, effective_order=eff)  # fmt: skip

    return Metric.from_statistics(
        "bleu", fn, statistics=bleu_statistics(order), higher_is_better=True
    )


# --------------------------------------------------------------------------- chrF
def chrf_score(totals: np.ndarray, *, beta: float = 2, eps_smoothing: bool = False) -> np.ndarray:
    """ChrF (0-100) of totals ``(..., 3 * order)`` in :func:`chrf_statistics` order.

    sacrebleu's ``CHRF._compute_f_score``, vectorized: per order the
    precision and recall of the matched n-grams (``1e-16`` for an empty
    side), then either the F-score of the precisions and recalls averaged
    over the orders that both sides have (the default) or, with
    ``eps_smoothing``, the mean of the per-order F-scores.
    """
    t = np.asarray(totals, dtype=np.float64)
    if t.shape[-1] % 3 or not t.shape[-1]:
        msg = f"chrF reads three statistics per n-gram order; got {t.shape[-1]}."
        raise ValueError(msg)
    order = t.shape[-1] // 3
    shape = t.shape[:-1]
    eps = 1e-16
    factor = beta**2
    score = np.zeros(shape)
    avg_prec, avg_rec = np.zeros(shape), np.zeros(shape)
    effective = np.zeros(shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in range(order):
            n_hyp, n_ref, n_match = t[..., 3 * i], t[..., 3 * i + 1], t[..., 3 * i + 2]
            prec = np.where(n_hyp > 0, n_match / np.where(n_hyp > 0, n_hyp, 1.0), eps)
            rec = np.where(n_ref > 0, n_match / np.where(n_ref > 0, n_ref, 1.0), eps)
            denom = factor * prec + rec
            safe = np.where(denom > 0, denom, 1.0)
            term = np.where(denom > 0, (1 + factor) * prec * rec / safe, eps)
            score = score + term
            both = (n_hyp > 0) & (n_ref > 0)
            avg_prec = np.where(both, avg_prec + prec, avg_prec)
            avg_rec = np.where(both, avg_rec + rec, avg_rec)
            effective = effective + both
        if eps_smoothing:
            return np.asarray(100 * score / order)
        some = effective > 0
        avg_prec = np.where(some, avg_prec / np.where(some, effective, 1.0), 0.0)
        avg_rec = np.where(some, avg_rec / np.where(some, effective, 1.0), 0.0)
        total = avg_prec + avg_rec
        f = (1 + factor) * avg_prec * avg_rec
        f = f / np.where(total != 0, factor * avg_prec + avg_rec, 1.0)
        return np.asarray(np.where(total != 0, 100 * f, 0.0))


def chrf(
    *,
    char_order: int = 6,
    word_order: int = 0,
    beta: float = 2,
    eps_smoothing: bool = False,
    **extraction: object,
) -> Metric:
    """Corpus chrF (sacrebleu's; chrF++ with ``word_order=2``) from total n-gram statistics.

    Reads the columns :func:`pdpaired.io.read_sacrebleu` writes with
    ``metric="chrf"``; the point estimate equals
    ``sacrebleu.corpus_chrf(...).score`` exactly.

    Parameters
    ----------
    char_order, word_order, beta, eps_smoothing
        sacrebleu's ``CHRF`` options (defaults: sacrebleu's).
    **extraction
        ``lowercase``, ``whitespace``: they only change the statistics.

    Examples
    --------
    >>> import pdpaired
    >>> m = pdpaired.metrics.chrf(word_order=2)
    >>> m.name, len(m.statistics)
    ('chrf++', 24)
    """
    _check_extraction(extraction, ("lowercase", "whitespace"), "CHRF")
    c = _order(char_order, "char_order", low=0)
    w = _order(word_order, "word_order", low=0)
    if c + w == 0:
        msg = "chrF needs at least one n-gram order (char_order + word_order > 0)."
        raise ValueError(msg)
    if isinstance(beta, bool) or not isinstance(beta, (int, float)) or beta <= 0:
        msg = f"`beta` must be a positive number; got {beta!r}."
        raise ValueError(msg)
    eps = check_bool(eps_smoothing, "eps_smoothing")

    def fn(totals: np.ndarray) -> np.ndarray:
        return chrf_score(totals, beta=beta, eps_smoothing=eps)

    name = "chrf++" if w == 2 and c == 6 else "chrf"
    return Metric.from_statistics(name, fn, statistics=chrf_statistics(c, w), higher_is_better=True)


# --------------------------------------------------------------------------- TER
def ter_score(totals: np.ndarray) -> np.ndarray:
    """TER (0-100) of totals ``(..., 2)``: edits over reference length (sacrebleu's rule at 0)."""
    t = np.asarray(totals, dtype=np.float64)
    edits, ref = t[..., 0], t[..., 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        safe = np.where(ref > 0, ref, 1.0)
        score = np.where(ref > 0, edits / safe, np.where(edits > 0, 1.0, 0.0))
    return np.asarray(100 * score)


def ter(**extraction: object) -> Metric:
    """Corpus TER (sacrebleu's; lower is better) from total edits and reference lengths.

    Reads the columns :func:`pdpaired.io.read_sacrebleu` writes with
    ``metric="ter"``; the point estimate equals
    ``sacrebleu.corpus_ter(...).score`` exactly.

    Parameters
    ----------
    **extraction
        ``normalized``, ``no_punct``, ``asian_support``, ``case_sensitive``:
        they only change the statistics.

    Examples
    --------
    >>> import pdpaired
    >>> m = pdpaired.metrics.ter()
    >>> m.name, m.higher_is_better, m.statistics
    ('ter', False, ('ter_edits', 'ter_ref_len'))
    """
    _check_extraction(
        extraction, ("normalized", "no_punct", "asian_support", "case_sensitive"), "TER"
    )
    return Metric.from_statistics("ter", ter_score, statistics=ter_statistics(),
                                  higher_is_better=False)  # fmt: skip


def _order(value: object, what: str, *, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        msg = f"`{what}` must be an integer >= {low}; got {value!r}."
        raise ValueError(msg)
    return int(value)


def _check_extraction(options: dict[str, object], allowed: tuple[str, ...], cls: str) -> None:
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        msg = (
            f"Not an option of sacrebleu's {cls}: {unknown}. Scoring options are keywords of "
            f"this function; the extraction options it accepts (they change only the "
            f"statistics, read_sacrebleu's job) are {list(allowed)}."
        )
        raise TypeError(msg)
