"""Read the per-case results of evaluation harnesses into pdpaired's long table.

Four readers, one result: a long table with one row per (case, model) and the
columns ``case_id``, ``model`` and ``score`` (plus the task and any per-case
metadata), ready for ``df.paired``:

* :func:`read_lm_eval` (:mod:`pdpaired.io.lm_eval`) -- EleutherAI
  lm-evaluation-harness ``samples_<task>_<date>.jsonl`` files (written with
  ``--log_samples``);
* :func:`read_inspect` (:mod:`pdpaired.io.inspect_ai`) -- UK AISI inspect_ai
  eval logs (``.eval`` or ``.json``), read through
  ``inspect_ai.log.read_eval_log`` (``pip install "pdpaired[inspect]"``);
* :func:`read_promptfoo` (:mod:`pdpaired.io.promptfoo`) -- promptfoo's
  ``results.json`` (``promptfoo eval --output results.json``): one row per
  test and provider, with the score and the pass flag;
* :func:`read_helm` (:mod:`pdpaired.io.helm`) -- Stanford CRFM HELM run
  directories (``benchmark_output/runs/<suite>/<run>/``): one row per
  instance, perturbation and train trial, with the HELM statistic you name.

Two more return per-case *statistics* or measures rather than one score:

* :func:`read_sacrebleu` (:mod:`pdpaired.io.sacrebleu`) -- plain-text
  references and system outputs, one segment a line: sacrebleu's
  per-segment BLEU, chrF or TER statistics, the columns that
  :func:`pdpaired.metrics.bleu` (``chrf``, ``ter``) score from their
  corpus totals (``pip install "pdpaired[text]"``);
* :func:`read_trec` (:mod:`pdpaired.io.trec`) -- TREC qrels and run files:
  per-query measures (nDCG@10, AP, ...) computed with ir_measures, every
  query of the qrels kept (``pip install "pdpaired[ir]"``).

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

from pdpaired._lib.public import rehome
from pdpaired.io.helm import read_helm
from pdpaired.io.inspect_ai import inspect_value_to_float, read_inspect
from pdpaired.io.lm_eval import read_lm_eval
from pdpaired.io.promptfoo import read_promptfoo
from pdpaired.io.sacrebleu import read_sacrebleu
from pdpaired.io.trec import read_trec

__all__ = [
    "inspect_value_to_float",
    "read_helm",
    "read_inspect",
    "read_lm_eval",
    "read_promptfoo",
    "read_sacrebleu",
    "read_trec",
]

rehome(globals(), __all__, "pdpaired.io")
del rehome
