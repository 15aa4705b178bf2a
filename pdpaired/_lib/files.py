"""Writing one file atomically: a reader sees the old file or the new one, never a part.

:func:`atomic_write_text` writes a temporary file beside the target, flushes
it to disk and renames it over the target in one step (``os.replace``). A
failure or a kill leaves the old file and at most a hidden ``.NAME.*.tmp``
beside it. The signature files (:mod:`pdpaired.artifacts.signing`) and the
HTML reports are written this way; a set of artifact files is swapped in as
a whole directory (:mod:`pdpaired.artifacts.write`).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["atomic_write_text"]


def atomic_write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` in one atomic step and return the path.

    The parent directory must exist. The file is readable by everyone
    (mode 0644), as a report meant to be shared is.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from pdpaired._lib.files import atomic_write_text
    >>> with tempfile.TemporaryDirectory() as d:
    ...     target = atomic_write_text(Path(d) / "page.html", "<p>hi</p>")
    ...     target.read_text(encoding="utf-8"), sorted(p.name for p in Path(d).iterdir())
    ('<p>hi</p>', ['page.html'])
    """
    target = Path(path)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return target
