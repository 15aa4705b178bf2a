"""``pdpaired plan``: power, the detectable improvement and the cases needed.

Reads the same inputs as ``compare`` (:func:`pdpaired.cli.corpus.load_any`)
and prints :meth:`pdpaired.Comparison.plan`, with the missing-outcome
sensitivity when outcomes are missing; ``--plot`` saves the power curves and
``--report`` writes both as Markdown with the images linked.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from pdpaired.cli.corpus import load_any
from pdpaired.cli.inputs import check_out

__all__ = ["plan"]


def plan(args: argparse.Namespace) -> int:
    """``pdpaired plan``: print the plan; ``--plot`` saves the power curves, ``--report`` both."""
    from pdpaired._lib.format import printable

    for target in (args.plot, args.report):
        if target is not None:
            where = Path(target)
            check_out(where.parent if str(where.parent) else Path("."))
    cmp, _ = load_any(args)
    res = cmp.plan(
        power=args.power, alpha=args.alpha, alternative=args.alternative, effect=args.effect,
        n_cases=args.n_cases, method=args.plan_method, n_simulations=args.simulations,
        rng=args.seed, test=args.plan_test, practical_threshold=args.practical_threshold,
    )  # fmt: skip
    print(res)
    sens, note = None, None
    if args.missing != "error" and (cmp.missing.n_missing_a or cmp.missing.n_missing_b):
        try:
            sens = cmp.sensitivity(lower=args.score_range[0], upper=args.score_range[1])
        except ValueError as err:
            note = f"missing-outcome sensitivity not computed: {printable(err)}"
            print(f"\n({note})")
        else:
            print()
            print(sens)
    plot = args.plot
    if plot is None and args.report is not None:
        plot = str(Path(args.report).with_suffix(".power.png"))
    if plot is not None:
        from matplotlib.figure import Figure

        Path(plot).parent.mkdir(parents=True, exist_ok=True)
        fig = Figure(figsize=(9, 3.4), layout="constrained")
        ax1, ax2 = fig.subplots(1, 2)
        res.plot(ax=ax1)
        res.plot(ax=ax2, x="cases")
        fig.savefig(plot, dpi=110)
        print(f"\nwrote {printable(plot)}")
    if args.report is not None:
        _plan_report(Path(args.report), res, sens, note, Path(plot) if plot else None)
        print(f"wrote {printable(args.report)}")
    return 0


def _plan_report(path: Path, res: Any, sens: Any, note: str | None, plot: Path | None) -> None:
    """Write the plan's Markdown report, its images linked relative to it."""
    from pdpaired._lib.format import md_escape

    def rel(p: Path) -> str:
        return os.path.relpath(p.resolve(), path.resolve().parent).replace(os.sep, "/")

    parts = [res.to_markdown(image=None if plot is None else rel(plot))]
    if sens is not None:
        from matplotlib.figure import Figure

        image = path.with_suffix(".sensitivity.png")
        fig = Figure(figsize=(6.5, 3.6), layout="constrained")
        sens.plot(ax=fig.add_subplot())
        fig.savefig(image, dpi=110)
        parts.append(sens.to_markdown(image=rel(image)))
    elif note is not None:
        parts.append(f"{md_escape(note)}.\n")
    path.write_text("\n".join(parts), encoding="utf-8")
