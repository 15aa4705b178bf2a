"""Seeds and the addressable random stream shared by every resampling engine.

Every bootstrap draw is taken from one PCG64 stream (NumPy's default bit
generator) whose state comes from the recorded seed. Word ``j`` of the stream
is used for draw ``j % D`` of replicate ``j // D`` (``D`` draws per replicate),
so any engine can start anywhere with :meth:`numpy.random.PCG64.advance`:
the NumPy path reads the stream in order, the numba kernel jumps each thread to
its own block of replicates. Results therefore do not depend on the batch
size, the number of threads or the engine.

A 64-bit word ``w`` becomes an index in ``[0, G)`` as ``floor((w >> 11) *
(G * 2**-53))``: 53 random bits, so the selection probabilities of the units
differ from ``1/G`` by at most a factor ``1 ± G * 2**-53``.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["SeedInfo", "normalize_rng"]

_MASK64 = (1 << 64) - 1


@dataclass(frozen=True, slots=True)
class SeedInfo:
    """The normalized ``rng`` argument: what was recorded and the root sequence."""

    seed: int | None
    rng_state: dict[str, Any] | None
    seed_sequence: np.random.SeedSequence

    def child(self, *words: int) -> np.random.SeedSequence:
        """Return a child sequence addressed by ``words`` (stable, order free)."""
        ss = self.seed_sequence
        return np.random.SeedSequence(ss.entropy, spawn_key=(*ss.spawn_key, *words))


def normalize_rng(rng: int | np.random.Generator | None) -> SeedInfo:
    """Normalize ``rng`` following SPEC 7 and record how to reproduce it.

    Parameters
    ----------
    rng : int, numpy.random.Generator or None
        An int is the seed. ``None`` draws fresh OS entropy as a 63-bit int and
        records it as the seed. A Generator is consumed (four 63-bit words) and
        its starting ``bit_generator.state`` is recorded; the seed is then None.

    Returns
    -------
    SeedInfo
    """
    if isinstance(rng, np.random.Generator):
        state = dict(rng.bit_generator.state)
        entropy = [int(x) for x in rng.integers(0, 2**63, size=4, dtype=np.int64)]
        return SeedInfo(seed=None, rng_state=state, seed_sequence=np.random.SeedSequence(entropy))
    if rng is None:
        seed = secrets.randbits(63)
    elif isinstance(rng, (bool, np.bool_)):
        msg = f"`rng` must be an int, a numpy.random.Generator or None; got {rng!r}."
        raise TypeError(msg)
    elif isinstance(rng, (int, np.integer)):
        seed = int(rng)
        if seed < 0:
            msg = f"`rng` must be a non-negative int seed; got {seed}."
            raise ValueError(msg)
    else:
        msg = (
            "`rng` must be an int, a numpy.random.Generator or None "
            f"(numpy.random.RandomState is not supported); got {type(rng).__name__}."
        )
        raise TypeError(msg)
    return SeedInfo(seed=seed, rng_state=None, seed_sequence=np.random.SeedSequence(seed))


def pcg64_state(ss: np.random.SeedSequence, advance: int = 0) -> tuple[int, int, int, int]:
    """Return ``(state_hi, state_lo, inc_hi, inc_lo)`` of PCG64(ss) advanced by ``advance``."""
    bg = np.random.PCG64(ss)
    if advance:
        bg.advance(advance)
    st = bg.state["state"]
    s, inc = int(st["state"]), int(st["inc"])
    return s >> 64, s & _MASK64, inc >> 64, inc & _MASK64
