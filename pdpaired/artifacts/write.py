"""Writing an artifact's files: all of them atomically, or none.

:meth:`pdpaired.ComparisonReport.save` and :meth:`pdpaired.MultiResult.save`
write their JSON artifacts and Markdown report through :func:`write_files`,
so a reader never sees a half-written artifact, nor a directory that mixes
an old set of files with a new one.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["write_files"]


def write_files(out: Path, texts: list[tuple[Path, str]]) -> None:
    """Write ``(path, text)`` files in ``out`` atomically, all or none.

    Each file is first written to a temporary file in ``out`` and then
    renamed, so a reader never sees a half-written artifact; nothing is
    renamed unless all were written, and if a rename fails the files
    already replaced are rolled back, so ``out`` holds either the old set
    or the new one.
    """
    staged: list[tuple[str, Path]] = []
    backups: list[tuple[str, Path]] = []
    placed: list[Path] = []
    try:
        for target, text in texts:
            fd, tmp = tempfile.mkstemp(dir=out, prefix=f".{target.name}.", suffix=".tmp")
            staged.append((tmp, target))
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
            os.chmod(tmp, 0o644)  # mkstemp makes it private; artifacts are for reading
        try:
            for tmp, target in staged:
                if target.exists() and not target.is_dir():  # keep the old one until done
                    fd, bak = tempfile.mkstemp(dir=out, prefix=f".{target.name}.", suffix=".old")
                    os.close(fd)
                    os.replace(target, bak)
                    backups.append((bak, target))
                os.replace(tmp, target)
                placed.append(target)
        except BaseException:
            for target in placed:  # roll back: the old set, not a mix
                target.unlink(missing_ok=True)
            for bak, target in backups:
                os.replace(bak, target)
            backups.clear()
            raise
    finally:
        for tmp, _ in staged + backups:
            if os.path.exists(tmp):
                os.unlink(tmp)
