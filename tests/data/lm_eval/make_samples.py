"""Generate the lm-evaluation-harness fixtures of tests/io/test_readers.py with the harness itself.

Run with lm-eval installed (0.4.13 made the committed files; it needs no network
and no torch for this):

    python -m venv /tmp/lmeval && /tmp/lmeval/bin/pip install lm-eval==0.4.13
    /tmp/lmeval/bin/python tests/data/lm_eval/make_samples.py

Two small local tasks (a local JSON Lines data set each, no download) are run
through the harness's own command line (``lm_eval run ... --log_samples``) for
two deterministic "models" registered below, so the ``samples_<task>_<date>.jsonl``
and ``results_<date>.json`` files are written by the harness's
``EvaluationTracker``:

* ``tiny_arith`` -- multiple choice (metrics ``acc`` and ``acc_norm``), 24 documents
  with a ``level`` field (``easy``/``hard``);
* ``tiny_words`` -- generation (metric ``exact_match``), two filters (``none``
  and ``first-word``), 6 documents.

Model ``small`` is evaluated on every document; model ``large`` on all but
document 23 of ``tiny_arith`` (``--samples``), so that case is missing for it,
as when a run is cut short. The output goes to ``runs/<model>/`` beside this
script (``--output_path runs/<model>`` puts the files in
``runs/<model>/<model>/``, the harness's own layout).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORK = HERE / "_tasks"

ARITH = [(f"{a} + {b} =", a + b) for a, b in ((3 * i + 1, 7 * i % 19 + 2) for i in range(24))]
WORDS = [
    ("The colour of the sky:", "blue"),
    ("The opposite of hot:", "cold"),
    ("A young cat:", "kitten"),
    ("Frozen water:", "ice"),
    ("The capital of France:", "Paris"),
    ("Two plus two, in words:", "four"),
]


def _unit(*parts: str) -> float:
    """A deterministic number in [0, 1) from text (no global random state)."""
    h = hashlib.sha256("|".join(parts).encode()).digest()
    return int.from_bytes(h[:8], "big") / 2**64


def _register() -> None:
    from lm_eval.api.model import LM
    from lm_eval.api.registry import register_model

    @register_model("pdpaired_fixture")
    class FixtureLM(LM):
        """Scores continuations from a hash; ``large`` knows the right answer more often."""

        def __init__(self, pretrained: str = "small", **kwargs: object) -> None:
            super().__init__()
            self.name = pretrained
            self.skill = {"small": 0.4, "large": 0.7}[pretrained]

        @classmethod
        def create_from_arg_string(cls, arg_string, additional_config=None):
            args = dict(kv.split("=", 1) for kv in arg_string.split(",") if kv)
            return cls(**args)

        def loglikelihood(self, requests, disable_tqdm: bool = False):
            out = []
            for req in requests:
                context, continuation = req.arguments
                q = context.strip().split("\n")[-1]
                truth = dict(ARITH).get(q.removeprefix("Question: ").removesuffix("\nAnswer:"))
                knows = _unit(self.name, q, "knows") < self.skill
                right = truth is not None and continuation.strip() == str(truth)
                ll = -_unit(self.name, context, continuation) * 3
                out.append((ll + (5.0 if (knows and right) else 0.0), False))
            return out

        def generate_until(self, requests, disable_tqdm: bool = False):
            out = []
            for req in requests:
                prompt = req.arguments[0].strip()
                truth = dict(WORDS).get(prompt, "")
                knows = _unit(self.name, prompt, "gen") < self.skill
                out.append((" " + truth if knows else " no idea") + " indeed")
            return out

        def loglikelihood_rolling(self, requests, disable_tqdm: bool = False):
            return [-1.0 for _ in requests]


def _write_tasks() -> None:
    if WORK.exists():
        shutil.rmtree(WORK)
    WORK.mkdir()
    with open(WORK / "arith.jsonl", "w") as f:
        for i, (q, a) in enumerate(ARITH):
            choices = [str(a), str(a + 1), str(a - 2), str(a * 2)]
            f.write(
                json.dumps(
                    {
                        "id": i,
                        "question": q,
                        "choices": choices,
                        "label": 0,
                        "level": "easy" if a < 20 else "hard",
                    }
                )
                + "\n"
            )
    with open(WORK / "words.jsonl", "w") as f:
        for i, (q, a) in enumerate(WORDS):
            f.write(json.dumps({"id": i, "prompt": q, "answer": a}) + "\n")
    (WORK / "tiny_arith.yaml").write_text(f"""\
task: tiny_arith
dataset_path: json
dataset_kwargs:
  data_files:
    test: {WORK / "arith.jsonl"}
test_split: test
output_type: multiple_choice
doc_to_text: "{{{{question}}}}"
doc_to_choice: "{{{{choices}}}}"
doc_to_target: label
metric_list:
  - metric: acc
    aggregation: mean
    higher_is_better: true
  - metric: acc_norm
    aggregation: mean
    higher_is_better: true
metadata:
  version: 1.0
""")
    (WORK / "tiny_words.yaml").write_text(f"""\
task: tiny_words
dataset_path: json
dataset_kwargs:
  data_files:
    test: {WORK / "words.jsonl"}
test_split: test
output_type: generate_until
doc_to_text: "{{{{prompt}}}}"
doc_to_target: "{{{{answer}}}}"
generation_kwargs:
  until: ["\\n"]
metric_list:
  - metric: exact_match
    aggregation: mean
    higher_is_better: true
    ignore_case: true
    ignore_punctuation: true
filter_list:
  - name: none
    filter:
      - function: take_first
  - name: first-word
    filter:
      - function: regex
        regex_pattern: "(\\\\w+)"
        group_select: 0
      - function: take_first
metadata:
  version: 1.0
""")


def main() -> None:
    import os

    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    _register()
    _write_tasks()
    from lm_eval.__main__ import cli_evaluate

    runs = HERE / "runs"
    if runs.exists():
        shutil.rmtree(runs)
    for name, samples in [
        ("small", None),
        ("large", {"tiny_arith": list(range(23)), "tiny_words": list(range(6))}),
    ]:
        argv = [
            "lm_eval",
            "run",
            "--model",
            "pdpaired_fixture",
            "--model_args",
            f"pretrained={name}",
            "--tasks",
            "tiny_arith,tiny_words",
            "--include_path",
            str(WORK),
            "--output_path",
            str(runs / name),
            "--log_samples",
            "--seed",
            "0",
        ]
        if samples is not None:
            argv += ["--samples", json.dumps(samples)]
        sys.argv = argv
        cli_evaluate()
    shutil.rmtree(WORK)


if __name__ == "__main__":
    main()
