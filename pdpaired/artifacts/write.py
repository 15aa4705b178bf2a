"""Writing an artifact's files: the whole set from one run, or the old set -- even under SIGKILL.

:meth:`pdpaired.ComparisonReport.save` and :meth:`pdpaired.MultiResult.save`
write their JSON artifacts and Markdown report through :func:`write_files`.
Replacing three files one rename at a time leaves a mixed set when the
process dies between two renames, so the set is swapped in as a directory:

1. Under an exclusive lock (``fcntl.flock`` on the parent directory, so two
   writers of the same directory take turns), what killed runs left behind
   is cleaned: staging directories ``.NAME.*.new`` in the parent, and a
   displaced old set ``.NAME.*.old`` -- put back if ``NAME`` itself is
   missing (a run killed between the two renames of the fallback below).
2. The files are written into a fresh sibling staging directory
   ``.NAME.<random>.new`` and flushed to disk; the other regular files of
   ``NAME`` are hard-linked into it (so they stay), as are the signature
   files beside the artifacts -- except those of the artifacts being
   replaced, which no longer match.
3. One atomic step makes the new directory ``NAME``: a rename when ``NAME``
   does not exist, else an exchange of the two directories
   (``renameat2(RENAME_EXCHANGE)`` on Linux, ``renamex_np(RENAME_SWAP)`` on
   macOS); the old set, now in the staging name, is removed. Where no
   exchange exists, ``NAME`` is renamed aside (``.NAME.<random>.old``) and
   the new directory renamed in; a kill between the two is repaired by the
   next write (step 1).

A reader therefore sees, at every moment, the old set or the new one, never
a mix; a failure (an exception, a full disk) leaves the old set and no
temporary; a kill leaves at most a hidden sibling that the next write
removes. ``NAME`` must hold only regular files (a subdirectory could not be
carried over atomically) and must not be the current working directory.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

__all__ = ["write_files"]

_RENAME_EXCHANGE = 2  # linux/fs.h
_RENAME_SWAP = 0x2  # macOS sys/stdio.h


def write_files(out: Path, texts: list[tuple[Path, str]]) -> None:
    """Make ``out`` hold the files ``(path, text)`` (paths inside ``out``), all or none.

    ``out`` is created if needed (its parents too); its other regular files
    are kept. See the module's description for the steps and what a reader
    or a killed run can observe.

    Raises
    ------
    OSError
        ``out`` holds a subdirectory or is the working directory
        (:class:`IsADirectoryError`), or the disk refused a write (the old
        set is then left as it was, with no temporary file).
    """
    out = Path(os.path.abspath(out))
    names = [target.name for target, _ in texts]
    if any(Path(os.path.abspath(t)).parent != out for t, _ in texts):
        msg = "write_files: every file must be directly inside the output directory"
        raise ValueError(msg)
    out.parent.mkdir(parents=True, exist_ok=True)
    with _locked(out.parent):
        _clean_leftovers(out)
        if out.exists():
            _check_replaceable(out)
        stage = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.", suffix=".new"))
        try:
            for target, text in texts:
                with open(stage / target.name, "w", encoding="utf-8") as f:
                    f.write(text)
                    f.flush()
                    os.fsync(f.fileno())
            if out.exists():
                _carry_over(out, stage, names)
            os.chmod(stage, 0o755)  # mkdtemp makes it private; artifacts are for reading
            _fsync_dir(stage)
            _swap_in(stage, out)
        finally:
            if stage.exists():  # not swapped in, or the old set after an exchange
                shutil.rmtree(stage, ignore_errors=True)
        _fsync_dir(out.parent)


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``folder`` (no lock file: the directory itself)."""
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock (Windows has no fcntl)
        yield
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def _clean_leftovers(out: Path) -> None:
    """Remove what killed writes of ``out`` left; restore a displaced set if ``out`` is gone."""
    parent, prefix = out.parent, f".{out.name}."
    displaced = sorted(
        (p for p in parent.iterdir() if p.name.startswith(prefix) and p.name.endswith(".old")),
        key=lambda p: p.stat().st_mtime,
    )
    if displaced and not out.exists():
        os.rename(displaced.pop(), out)  # the newest old set: what readers saw last
    for p in parent.iterdir():
        if p.name.startswith(prefix) and p.name.endswith((".new", ".old")) and p.is_dir():
            shutil.rmtree(p, ignore_errors=True)
    if out.is_dir():  # per-file temporaries of earlier versions of this writer
        for p in out.iterdir():
            if p.name.startswith(".") and p.name.endswith((".tmp", ".old")) and p.is_file():
                p.unlink(missing_ok=True)


def _check_replaceable(out: Path) -> None:
    if not out.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, "the output path exists and is not a directory",
                                 str(out))  # fmt: skip
    try:
        here = os.path.samefile(out, os.getcwd())
    except OSError:  # no working directory any more
        here = False
    if here:
        msg = (
            "the output directory is the working directory; the set of files is swapped in "
            "as a whole directory: write to a directory of its own (e.g. --out reports/)"
        )
        raise IsADirectoryError(errno.EISDIR, msg, str(out))
    sub = sorted(p.name for p in out.iterdir() if p.is_dir() or not p.is_file())
    if sub:
        msg = (
            f"the output directory holds {len(sub)} entr{'y' if len(sub) == 1 else 'ies'} that "
            f"{'is' if len(sub) == 1 else 'are'} not a regular file ({', '.join(sub[:5])}); the "
            "set of files is swapped in as a whole directory, which must hold files only: write "
            "to a directory of its own"
        )
        raise IsADirectoryError(errno.EISDIR, msg, str(out))


def _carry_over(out: Path, stage: Path, names: list[str]) -> None:
    """Hard-link (else copy) ``out``'s other files into ``stage``: they stay after the swap.

    The signatures of the files being replaced are not carried: they sign
    the old artifacts.
    """
    stale = {f"{n}.sig" for n in names}
    for p in out.iterdir():
        if p.name in names or p.name in stale:
            continue
        try:  # a symbolic link stays one (linked itself, not its target)
            os.link(p, stage / p.name, follow_symlinks=False)
        except (OSError, NotImplementedError):  # no hard links here
            shutil.copy2(p, stage / p.name, follow_symlinks=False)


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):  # not every platform can open a directory
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _swap_in(stage: Path, out: Path) -> None:
    """Make ``stage`` be ``out`` in one atomic step; the old ``out``, if any, ends at ``stage``."""
    if not out.exists():
        os.rename(stage, out)
        return
    if _exchange(stage, out):
        return
    aside = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.", suffix=".old"))
    os.rmdir(aside)  # a fresh name for the old set
    os.rename(out, aside)  # a kill here leaves no `out`: the next write puts `aside` back
    os.rename(stage, out)
    os.rename(aside, stage)  # removed by the caller, as after an exchange


def _exchange(a: Path, b: Path) -> bool:
    """Exchange two directories atomically; False where the system cannot."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return False
    src, dst = os.fsencode(a), os.fsencode(b)
    if sys.platform.startswith("linux") and hasattr(libc, "renameat2"):
        at_fdcwd = -100
        rc = libc.renameat2(at_fdcwd, src, at_fdcwd, dst, _RENAME_EXCHANGE)
    elif sys.platform == "darwin" and hasattr(libc, "renamex_np"):
        rc = libc.renamex_np(src, dst, _RENAME_SWAP)
    else:
        return False
    if rc == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False  # this file system cannot exchange: the two-rename fallback
    raise OSError(err, os.strerror(err), str(b))
