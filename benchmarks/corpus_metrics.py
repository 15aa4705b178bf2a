"""Benchmark: paired tests on corpus BLEU, pdpaired vs sacrebleu's own, in the same run.

Run from the repository root::

    python benchmarks/corpus_metrics.py                 # 3,000 segments, 1,000 resamples
    python benchmarks/corpus_metrics.py --segments 10000 --resamples 2000
    python benchmarks/corpus_metrics.py --tiny          # a smoke run

Two systems translate a synthetic 3,000-segment corpus. Extraction (sacrebleu
tokenizing and matching n-grams, once per system) is timed on its own: it is
the same sacrebleu code in both tools. Then, on the extracted statistics:

* ``bootstrap``: ``df.paired.bootstrap(metric=pdpaired.metrics.bleu())``
  against sacrebleu's paired bootstrap (``PairedTest(test_type="bs")``, Koehn's
  method as ``sacrebleu --paired-bs`` runs it);
* ``randomization``: ``df.paired.randomization(...)`` against sacrebleu's
  paired approximate randomization (``test_type="ar"``, ``--paired-ar``).

sacrebleu's bootstrap also resamples the baseline alone for its confidence
interval (its ``--paired-bs`` output shows it), which is part of what a user
of it waits for. sacrebleu's test extracts the statistics inside the call, so its per-resample
cost is measured as the difference between a run with ``R`` resamples and one
with ``R0 = 10`` (the same extraction in both), divided by ``R - R0``; pdpaired's
the same way. Best of ``--repeat``. The Markdown table is printed and written
to ``benchmarks/results/latest-corpus.md``.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import pdpaired
from pdpaired.io import read_sacrebleu


def corpus(n: int, seed: int = 0) -> dict[str, list[str]]:
    rng = np.random.default_rng(seed)
    vocab = [f"w{i}" for i in range(400)]
    refs = [" ".join(rng.choice(vocab, rng.integers(5, 30))) for _ in range(n)]

    def noisy(p: float) -> list[str]:
        return [" ".join(w if rng.random() > p else str(rng.choice(vocab)) for w in r.split())
                for r in refs]  # fmt: skip

    return {"ref": refs, "A": noisy(0.30), "B": noisy(0.32)}


def best_of(fn: Callable[[], Any], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--segments", type=int, default=3000)
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--tiny", action="store_true")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    if args.tiny:
        args.segments, args.resamples, args.repeat = 200, 60, 1
    from sacrebleu.metrics import BLEU
    from sacrebleu.significance import PairedTest

    n, r, r0 = args.segments, args.resamples, 10
    text = corpus(n)
    folder = Path(tempfile.mkdtemp())
    for name, lines in text.items():
        (folder / f"{name}.txt").write_text("\n".join(lines) + "\n")
    files = {m: folder / f"{m}.txt" for m in ("A", "B")}
    t_extract = best_of(lambda: read_sacrebleu(folder / "ref.txt", files), args.repeat)
    df = read_sacrebleu(folder / "ref.txt", files)
    m = pdpaired.metrics.bleu()
    cmp = df.paired.compare("A", "B", metric=m)

    def sacre(kind: str, k: int) -> Callable[[], Any]:
        def run() -> Any:
            metric = BLEU(references=[text["ref"]])
            # n_ar_confidence=-1: no bootstrap confidence interval on top of the AR test
            return PairedTest([("B", text["B"]), ("A", text["A"])], {"BLEU": metric},
                              references=None, test_type=kind, n_samples=k,
                              n_ar_confidence=-1)()  # fmt: skip

        return run

    rows = []
    for label, ours, kind in (
        ("bootstrap", lambda k: cmp.bootstrap(n_resamples=k, rng=0), "bs"),
        ("randomization", lambda k: cmp.randomization(n_permutations=k, rng=0), "ar"),
    ):
        ours(r)  # warm-up
        t_ours = best_of(lambda f=ours: f(r), args.repeat)
        per_ours = max(t_ours - best_of(lambda f=ours: f(r0), args.repeat), 1e-9) / (r - r0)
        t_sacre = best_of(sacre(kind, r), args.repeat)
        per_sacre = max(t_sacre - best_of(sacre(kind, r0), args.repeat), 1e-9) / (r - r0)
        rows.append((label, t_ours, t_sacre, per_ours, per_sacre))
    lines = [
        f"# Corpus BLEU: pdpaired vs sacrebleu ({n:,} segments, {r:,} resamples)",
        "",
        f"Extraction (sacrebleu's statistics, both systems, `read_sacrebleu`): "
        f"{t_extract:.3f} s, the same sacrebleu code in both tools; not in the rows below.",
        "",
        "| test | pdpaired (s) | sacrebleu, with its extraction (s) | pdpaired per resample (ms) "
        "| sacrebleu per resample (ms) | ratio per resample |",
        "|---|---|---|---|---|---|",
    ]
    for label, t_ours, t_sacre, per_ours, per_sacre in rows:
        lines.append(f"| {label} | {t_ours:.3f} | {t_sacre:.3f} | {1e3 * per_ours:.4f} | "
                     f"{1e3 * per_sacre:.4f} | {per_sacre / per_ours:.1f}x |")  # fmt: skip
    lines += ["", f"Machine: {os.cpu_count()} CPUs; best of {args.repeat}."]
    report = "\n".join(lines) + "\n"
    print(report)
    out = Path(args.out) if args.out else (
        Path(__file__).resolve().parent / "results" / ("tiny-corpus.md" if args.tiny
                                                       else "latest-corpus.md"))  # fmt: skip
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
