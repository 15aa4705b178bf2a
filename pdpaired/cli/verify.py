"""``pdpaired verify`` and ``pdpaired sign``: check or sign an artifact, say so on one line.

:func:`pdpaired.verify` checks the schema, the digest, the internal
consistency and, with ``--public-key``, the signature (and raises
:class:`~pdpaired.ArtifactError` otherwise); this prints the models, the
metric and the digest of a valid two-model (``v1``), several-model (``v2``)
or suite artifact, with the file's text escaped. :func:`pdpaired.sign` writes the
signature beside the artifact.
"""

from __future__ import annotations

import argparse

__all__ = ["sign", "verify"]


def verify(args: argparse.Namespace) -> int:
    """``pdpaired verify``: check the artifact (raising if it is not valid); print what it holds."""
    import pdpaired
    from pdpaired._lib.format import printable

    art = pdpaired.verify(args.artifact, public_key=args.public_key, signature=args.signature)
    signed = "" if art.signed_by is None else f" Signature OK: key {art.signed_by}."
    if "comparisons" in art:  # several models (artifact v2)
        an = art["analysis"]
        what = f"against {an['baseline']}" if an["kind"] == "against" else "all pairs"
        print(
            printable(
                f"OK: {args.artifact} is a valid {art['kind']} {art['artifact']} artifact "
                f"({len(art['models'])} models, {len(art['comparisons'])} comparison(s) {what}, "
                f"{art['metric']['name']}; digest {art['digest'][:12]}...).{signed}"
            )
        )
        return 0
    if "pooled" in art:  # a suite of tasks
        rd = art["pooled"]["random"]
        print(
            printable(
                f"OK: {args.artifact} is a valid {art['kind']} {art['artifact']} artifact "
                f"({art['models']['a']} vs {art['models']['b']}, {art['metric']['name']}, "
                f"{len(art['tasks'])} tasks; random effects {rd['estimate']:+.4g} "
                f"[{rd['low']:+.4g}, {rd['high']:+.4g}], pooling recomputed from the tasks; "
                f"digest {art['digest'][:12]}...).{signed}"
            )
        )
        return 0
    print(  # the names come from the file: shown with control characters escaped
        printable(
            f"OK: {args.artifact} is a valid {art['kind']} {art['artifact']} artifact "
            f"({art['models']['a']} vs {art['models']['b']}, {art['metric']['name']}, "
            f"{art['n_cases']} cases; digest {art['digest'][:12]}...).{signed}"
        )
    )
    return 0


def sign(args: argparse.Namespace) -> int:
    """``pdpaired sign``: verify the artifact, sign it, print where the signature went."""
    import pdpaired
    from pdpaired._lib.format import printable

    where = pdpaired.sign(args.artifact, args.key, out=args.signature)
    print(printable(f"Signed {args.artifact}: the signature is {where}"))
    return 0
