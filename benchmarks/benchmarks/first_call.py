"""The first call's cost in a fresh process (asv ``timeraw_``).

asv times ``STMT`` after ``PREPARE`` in a new interpreter, so the number includes
loading (or compiling) the numba kernel but not the imports or the data. The
targets script runs the numba code twice, in two processes sharing one initially
empty ``NUMBA_CACHE_DIR``: the first compiles, the second loads the cache; then
the default engine choice (``auto``) and the NumPy engine, in fresh processes
of the same run, for their ratio.
"""

from __future__ import annotations

PREPARE = """
import os
os.environ["PDPAIRED_ACCELERATOR"] = "{accelerator}"
import numpy as np, pandas as pd
import pdpaired
n = {n}
r = np.random.default_rng(0)
x = r.normal(size=n)
df = pd.DataFrame({{"case_id": np.tile(np.arange(n), 2), "model": np.repeat(["A", "B"], n),
                   "score": np.concatenate([x + r.normal(size=n), x])}})
c = df.paired.compare("A", "B", higher_is_better=True)
"""
STMT = {
    "bootstrap": "c.bootstrap(n_resamples=10_000, rng=0)",
    "randomization": "c.randomization(n_permutations=10_000, rng=0)",
}
N = {"bootstrap": 1_000, "randomization": 10_000}  # continuous n=1e3 and n=1e4


def code(call: str, accelerator: str = "numba") -> tuple[str, str]:
    """``(statement, setup)`` of the first call of ``call`` (bootstrap or randomization)."""
    return STMT[call], PREPARE.format(n=N[call], accelerator=accelerator)


class FirstCall:
    """Time to the first result of a numba-accelerated call in a fresh process."""

    params = (("bootstrap", "randomization"),)
    param_names = ("call",)
    number = 1
    repeat = 1

    def setup(self, call: str) -> None:
        try:
            import numba  # noqa: F401
        except ImportError:
            msg = "numba is not installed"
            raise NotImplementedError(msg) from None

    def timeraw_first_call(self, call: str) -> tuple[str, str]:
        return code(call)
