"""``pdpaired verify``: check an artifact and say what it holds, on one line.

:func:`pdpaired.verify` checks the schema, the digest and the internal
consistency (and raises :class:`~pdpaired.ArtifactError` otherwise); this
prints the models, the metric and the digest of a valid two-model (``v1``) or
several-model (``v2``) artifact, with the file's text escaped.
"""

from __future__ import annotations

import argparse

__all__ = ["verify"]


def verify(args: argparse.Namespace) -> int:
    """``pdpaired verify``: check the artifact (raising if it is not valid); print what it holds."""
    import pdpaired
    from pdpaired._lib.format import printable

    art = pdpaired.verify(args.artifact)
    if "comparisons" in art:  # several models (artifact v2)
        an = art["analysis"]
        what = f"against {an['baseline']}" if an["kind"] == "against" else "all pairs"
        print(
            printable(
                f"OK: {args.artifact} is a valid {art['kind']} {art['artifact']} artifact "
                f"({len(art['models'])} models, {len(art['comparisons'])} comparison(s) {what}, "
                f"{art['metric']['name']}; digest {art['digest'][:12]}...)."
            )
        )
        return 0
    print(  # the names come from the file: shown with control characters escaped
        printable(
            f"OK: {args.artifact} is a valid {art['kind']} {art['artifact']} artifact "
            f"({art['models']['a']} vs {art['models']['b']}, {art['metric']['name']}, "
            f"{art['n_cases']} cases; digest {art['digest'][:12]}...)."
        )
    )
    return 0
