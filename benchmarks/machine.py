"""The machine section of the benchmark report: CPU, memory, versions, the commit measured."""

from __future__ import annotations

import datetime as _dt
import hashlib
import importlib.util
import os
import platform
import subprocess
from pathlib import Path


def pdpaired_source() -> tuple[str, Path | None]:
    """Short sha256 of the pdpaired package's .py files, and where they are imported from."""
    spec = importlib.util.find_spec("pdpaired")
    if spec is None or spec.origin is None:
        return "?", None
    pkg = Path(spec.origin).parent
    h = hashlib.sha256()
    for f in sorted(pkg.rglob("*.py")):
        h.update(str(f.relative_to(pkg)).encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:12], pkg


def machine_info() -> dict[str, str]:
    """CPU, memory, library versions, the commit measured and the threading environment."""
    import pdpaired

    cpu = platform.processor() or "?"
    try:
        with open("/proc/cpuinfo") as fh:
            cpu = next(
                (ln.split(":", 1)[1].strip() for ln in fh if ln.startswith("model name")), cpu
            )
    except OSError:
        pass
    digest, pkg = pdpaired_source()
    commit = "not in a git checkout"
    if pkg is not None:
        git = ["git", "-C", str(pkg.parent)]
        head = subprocess.run(
            [*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True
        )
        if head.returncode == 0:
            commit = f"git {head.stdout.strip()}"
            st = subprocess.run(
                [*git, "status", "--porcelain", "--", str(pkg)], capture_output=True, text=True
            )
            commit += " + uncommitted changes in pdpaired/" if st.stdout.strip() else ""
    versions = {}
    for mod in ("numpy", "scipy", "pandas", "sklearn", "numba"):
        try:
            versions[mod] = __import__(mod).__version__
        except ImportError:
            versions[mod] = "not installed"
    if versions["numba"] != "not installed":
        import numba

        versions["numba"] += f" (threads: {numba.config.NUMBA_NUM_THREADS})"
    prefixes = ("OPENBLAS_", "OMP_", "MKL_", "NUMBA_", "PDPAIRED_")
    env = sorted(f"{k}={v}" for k, v in os.environ.items() if k.startswith(prefixes))
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return {
        "date (UTC)": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M"),
        "cpu": cpu,
        "cpu count": f"{os.cpu_count()} (usable: {len(os.sched_getaffinity(0))})",
        "memory": f"{mem:.1f} GiB",
        "python": platform.python_version(),
        "pdpaired": f"{pdpaired.__version__}, {commit}; source sha256 {digest} ({pkg})",
        **{("scikit-learn" if k == "sklearn" else k): v for k, v in versions.items()},
        "OPENBLAS_* / OMP_* / MKL_* / NUMBA_* / PDPAIRED_* env": ", ".join(env) or "none set",
    }
