"""Generate the inspect_ai fixtures of tests/io/test_readers.py with inspect_ai itself.

Run with inspect_ai installed (``pip install "pdpaired[inspect]"``; 0.3.285 made
the committed logs). No network: inspect's offline mock model ``mockllm/...``
answers, and every output carries its token usage so inspect does not
download a tokenizer::

    python tests/data/inspect/make_logs.py

A small local task (20 arithmetic questions; metadata ``level`` and
``topic``; scorer ``match()``) is run for two "models", ``mockllm/small`` and
``mockllm/large``, each answering from a deterministic rule. The ``large``
model's call fails on sample ``q07`` (``fail_on_error=False``), so its log keeps
that sample with an error and no score: a missing outcome. A third log,
``epochs.eval``, runs a 6-sample task for two epochs with two scorers
(``match()`` and a custom scorer giving ``C``/``P``/``I``/``N``).

The logs are written to ``logs/`` and renamed to ``small.eval``,
``large.eval`` and ``epochs.eval`` beside this script.
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

QUESTIONS = [(f"q{i:02d}", 3 * i + 4, 2 * i + 1) for i in range(20)]


def _unit(*parts: str) -> float:
    h = hashlib.sha256("|".join(parts).encode()).digest()
    return int.from_bytes(h[:8], "big") / 2**64


def _output(model: str, text: str):
    from inspect_ai.model import ModelOutput, ModelUsage

    out = ModelOutput.from_content(model=model, content=text)
    out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return out


def _answerer(name: str, skill: float, fail_on: str | None = None):
    def answer(messages, tools, tool_choice, config):
        prompt = messages[-1].text
        qid, a, b = next(q for q in QUESTIONS if prompt.startswith(f"[{q[0]}]"))
        if qid == fail_on:
            msg = f"mock API failure on {qid}"
            raise RuntimeError(msg)
        right = _unit(name, qid) < skill
        return _output(f"mockllm/{name}", str(a + b if right else a + b + 1))

    return answer


def main() -> None:
    from inspect_ai import Task, eval, task
    from inspect_ai.dataset import Sample
    from inspect_ai.model import get_model
    from inspect_ai.scorer import (
        CORRECT,
        INCORRECT,
        NOANSWER,
        PARTIAL,
        Score,
        Target,
        accuracy,
        match,
        scorer,
    )
    from inspect_ai.solver import TaskState, generate

    @task
    def tiny_sums() -> Task:
        samples = [
            Sample(
                id=qid,
                input=f"[{qid}] What is {a} + {b}? Answer with a number.",
                target=str(a + b),
                metadata={
                    "level": "easy" if a + b < 40 else "hard",
                    "topic": "addition",
                    "digits": len(str(a + b)),
                },
            )
            for qid, a, b in QUESTIONS
        ]
        return Task(dataset=samples, solver=generate(), scorer=match())

    @scorer(metrics=[accuracy()])
    def graded():
        async def score(state: TaskState, target: Target) -> Score:
            text = state.output.completion
            value = {0: CORRECT, 1: PARTIAL, 2: INCORRECT, 3: NOANSWER}[
                int(_unit(text, state.sample_id) * 4)
            ]
            return Score(value=value, answer=text)

        return score

    @task
    def tiny_sums_epochs() -> Task:
        samples = [
            Sample(
                id=qid,
                input=f"[{qid}] What is {a} + {b}? Answer with a number.",
                target=str(a + b),
                metadata={"level": "easy" if a + b < 40 else "hard"},
            )
            for qid, a, b in QUESTIONS[:6]
        ]
        return Task(dataset=samples, solver=generate(), scorer=[match(), graded()], epochs=2)

    tmp = Path(tempfile.mkdtemp())
    runs = [
        ("small", tiny_sums(), _answerer("small", 0.45), "small.eval"),
        ("large", tiny_sums(), _answerer("large", 0.8, fail_on="q07"), "large.eval"),
        ("large", tiny_sums_epochs(), _answerer("large-epochs", 0.6), "epochs.eval"),
    ]
    for name, the_task, answerer, filename in runs:
        log_dir = tmp / filename
        [log] = eval(
            the_task,
            model=get_model(f"mockllm/{name}", custom_outputs=answerer),
            log_dir=str(log_dir),
            display="none",
            fail_on_error=False,
            log_format="eval",
        )
        [path] = log_dir.glob("*.eval")
        shutil.copyfile(path, HERE / filename)
        print(f"{filename}: status {log.status}, {len(log.samples)} samples")
    shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
