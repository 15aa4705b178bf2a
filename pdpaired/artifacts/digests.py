"""What an artifact records to be checked and reproduced: digests and software versions.

An artifact's ``digest`` is the SHA-256 of the canonical JSON of every other
field (:func:`content_digest`); its input provenance is the SHA-256 of each
input file (:func:`file_sha256`), or of the canonical in-memory table
(:func:`frame_sha256`), plus the digest of the aligned case ids
(:func:`ids_sha256`); its ``software`` block names the versions that wrote
it (:func:`software_versions`). Both artifact versions (two models and
several) and :func:`pdpaired.verify` use these; nothing here reads a result.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "canonical_json",
    "content_digest",
    "file_sha256",
    "frame_sha256",
    "ids_sha256",
    "software_versions",
]


def canonical_json(obj: Any) -> str:
    """Canonical JSON: sorted keys, no spaces, no NaN (what the digest hashes)."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)  # fmt: skip


def content_digest(artifact: dict[str, Any]) -> str:
    """SHA-256 of the canonical JSON of every field except ``digest``."""
    body = {k: v for k, v in artifact.items() if k != "digest"}
    return hashlib.sha256(canonical_json(body).encode()).hexdigest()


def file_sha256(path: str | os.PathLike[str]) -> str:
    """SHA-256 of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def frame_sha256(frame: pd.DataFrame) -> str:
    """SHA-256 of a table's CSV text (floats with 17 significant digits).

    ``report()`` applies it to the aligned pairs (``Comparison.pairs``: one
    row per case, sorted by case id), so the digest does not depend on the
    input's row order.
    """
    text = frame.to_csv(lineterminator="\n", float_format="%.17g")
    return hashlib.sha256(text.encode()).hexdigest()


def ids_sha256(ids: pd.Index) -> str:
    """SHA-256 of the sorted aligned case ids (one ``repr`` per line)."""
    text = "\n".join(repr(x.item() if isinstance(x, np.generic) else x) for x in ids)
    return hashlib.sha256(text.encode()).hexdigest()


def software_versions() -> dict[str, str]:
    """Versions of pdpaired, Python, NumPy, pandas and SciPy (an artifact's ``software``)."""
    import scipy

    from pdpaired._version import __version__

    return {
        "pdpaired": __version__,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "pandas": pd.__version__,
        "scipy": scipy.__version__,
    }
